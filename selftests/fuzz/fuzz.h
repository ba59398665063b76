/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fuzz.h - what the libFuzzer targets share: the walk over a received
 * batch as npuflowd's readers do it (whole messages only, mnl_nlmsg_ok), and
 * the seed writer each target's seeds_* program uses (built from the same
 * source with -DFUZZ_SEEDS).
 */
#ifndef _FUZZ_H
#define _FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libmnl/libmnl.h>
#include "../../loader/nlsock.h"

/* Each whole message @nlh of the @size bytes at @data (size_t @left). */
#define fuzz_for_each_msg(nlh, data, size, left) \
	for ((left) = (size), (nlh) = (const struct nlmsghdr *)(data); \
	     nls_msg_ok((nlh), (left)); (nlh) = nls_msg_next((nlh), &(left)))

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#ifdef FUZZ_SEEDS
/* Write @len bytes of @p as seed @name into directory @dir (exits on an
 * error), and run it through the target once. */
static void seed_write(const char *dir, const char *name, const void *p, size_t len)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(p, 1, len, f) != len || fclose(f)) {
		perror(path);
		exit(1);
	}
	LLVMFuzzerTestOneInput(p, len);
}

/* The target's seeds, written into @dir. */
static void seeds(const char *dir);

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	seeds(argv[1]);
	return 0;
}
#endif

#endif
