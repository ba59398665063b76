/* SPDX-License-Identifier: GPL-2.0 */
/*
 * run_check.h - what the tests that run one of our programs keep of a run
 * (test_npuctl_run.c, test_npuload_run.c): its exit status and all it
 * wrote on stdout and stderr.  Include after cmocka.h.
 */
#ifndef _RUN_CHECK_H
#define _RUN_CHECK_H

#include <stdlib.h>
#include <unistd.h>

struct run {
	int rc;		/* exit status, 128 + signal */
	char *out;	/* stdout, malloc'd */
	char *err;	/* stderr, malloc'd */
};

/* All of @fd from its start, malloc'd and NUL-terminated. */
static char *slurp(int fd)
{
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap);
	ssize_t n;

	assert_non_null(buf);
	lseek(fd, 0, SEEK_SET);
	while ((n = read(fd, buf + len, cap - len - 1)) > 0) {
		len += n;
		if (cap - len < 2) {
			buf = realloc(buf, cap *= 2);
			assert_non_null(buf);
		}
	}
	buf[len] = '\0';
	return buf;
}

static void run_free(struct run *r)
{
	free(r->out);
	free(r->err);
}

#endif /* _RUN_CHECK_H */
