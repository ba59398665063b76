// SPDX-License-Identifier: GPL-2.0
/*
 * npuload's command line, run: build/npuload (built here with the same
 * sanitizers) is given bad usage, --help and --version, and what it says
 * and exits with is checked.  No connection is opened: what npuload sends
 * and counts is the VM tests' (6x-flowmaker-*, tools/bench/run).
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include "run_check.h"
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char npuload_bin[PATH_MAX];

static int setup(void **state)
{
	char self[PATH_MAX];
	ssize_t n;

	(void)state;
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return -1;
	self[n] = '\0';
	snprintf(npuload_bin, sizeof(npuload_bin), "%s/npuload", dirname(self));
	return access(npuload_bin, X_OK) ? -1 : 0;
}

/* A file of the test's, already unlinked. */
static int scratch(void)
{
	char path[] = "/tmp/npuload-run.XXXXXX";
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	unlink(path);
	return fd;
}

/* As npuload()'s @out: no stdout at all (>&-). */
#define CLOSED	"-"

/*
 * npuload ARGS... (NULL-terminated), its stdout into @out (NULL: a file of
 * the test's, read back into r.out).
 */
static struct run npuload(const char *out, ...)
{
	char *argv[24] = { npuload_bin };
	int argc = 1, st, fd[2];
	struct run r;
	va_list ap;
	pid_t pid;

	va_start(ap, out);
	while ((argv[argc] = va_arg(ap, char *)))
		assert_true(++argc < 23);
	va_end(ap);
	fd[0] = !out ? scratch() : open(strcmp(out, CLOSED) ? out : "/dev/null",
						 O_WRONLY | O_CLOEXEC);
	fd[1] = scratch();
	assert_true(fd[0] >= 0);
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		if (out && !strcmp(out, CLOSED))
			close(1);
		else
			dup2(fd[0], 1);
		dup2(fd[1], 2);
		alarm(5);	/* a run that goes on (usage taken as valid) ends */
		execv(npuload_bin, argv);
		_exit(127);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	r.rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	r.out = out ? strdup("") : slurp(fd[0]);
	r.err = slurp(fd[1]);
	close(fd[0]);
	close(fd[1]);
	return r;
}

/* @r exited @rc, wrote nothing on stdout, and said @err on stderr: else fail. */
static void says(struct run r, int rc, const char *err)
{
	char msg[2048];
	int bad = r.rc != rc || strcmp(r.err, err) || r.out[0];

	snprintf(msg, sizeof(msg), "npuload exited %d (not %d); stderr:\n%s(not:\n%s)stdout:\n%s",
		 r.rc, rc, r.err, err, r.out);
	run_free(&r);
	if (bad)
		fail_msg("%s", msg);
}

#define TRY	"Try 'npuload --help' for more information.\n"

/* A value out of range: the option, the value and the range, then where the help is. */
static void out_of_range(void **state)
{
	(void)state;
	says(npuload(NULL, "client", "-a", "127.0.0.1", "-c", "65537", NULL), 2,
	     "npuload: -c: '65537' is not a number in 1..65536\n" TRY);
	says(npuload(NULL, "client", "-a", "127.0.0.1", "-c", "0", NULL), 2,
	     "npuload: -c: '0' is not a number in 1..65536\n" TRY);
	says(npuload(NULL, "client", "-a", "127.0.0.1", "-p", "65536", NULL), 2,
	     "npuload: -p: '65536' is not a number in 1..65535\n" TRY);
	says(npuload(NULL, "server", "-t", "3601", NULL), 2,
	     "npuload: -t: '3601' is not a number in 1..3600\n" TRY);
	says(npuload(NULL, "server", "-n", "65537", NULL), 2,
	     "npuload: -n: '65537' is not a number in 1..65536\n" TRY);
	says(npuload(NULL, "client", "-a", "127.0.0.1", "-s", "65537", NULL), 2,
	     "npuload: -s: '65537' is not a number in 1..65536\n" TRY);
	says(npuload(NULL, "client", "-a", "127.0.0.1", "-r", "-1", NULL), 2,
	     "npuload: -r: '-1' is not a number of bytes/s, 0 or more\n" TRY);
	/* not a number at all, or one with more after it: not taken as 0 or 10 */
	says(npuload(NULL, "client", "-a", "127.0.0.1", "-c", "many", NULL), 2,
	     "npuload: -c: 'many' is not a number in 1..65536\n" TRY);
	says(npuload(NULL, "server", "-t", "10s", NULL), 2,
	     "npuload: -t: '10s' is not a number in 1..3600\n" TRY);
	says(npuload(NULL, "client", "-a", "127.0.0.1", "-r", "fast", NULL), 2,
	     "npuload: -r: 'fast' is not a number of bytes/s, 0 or more\n" TRY);
	says(npuload(NULL, "client", "-a", "127.0.0.1", "-r", "nan", NULL), 2,
	     "npuload: -r: 'nan' is not a number of bytes/s, 0 or more\n" TRY);
}

/* Any other usage error: what is wrong, then where the help is; not the usage. */
static void usage_errors(void **state)
{
	(void)state;
	says(npuload(NULL, NULL), 2, "npuload: no command (server or client)\n" TRY);
	says(npuload(NULL, "bogus", NULL), 2,
	     "npuload: unknown command 'bogus' (server or client)\n" TRY);
	says(npuload(NULL, "client", NULL), 2, "npuload: client: no address (-a ADDR)\n" TRY);
	says(npuload(NULL, "server", "-x", NULL), 2, "npuload: unknown option '-x'\n" TRY);
	says(npuload(NULL, "server", "--port=1", NULL), 2,
	     "npuload: unknown option '--port=1'\n" TRY);
	says(npuload(NULL, "server", "-t", "1", "now", NULL), 2,
	     "npuload: extra operand 'now'\n" TRY);
	says(npuload(NULL, "server", "-p", NULL), 2,
	     "npuload: option '-p' requires an argument\n" TRY);
	says(npuload(NULL, "client", "-a", "10.0.0.256", NULL), 2,
	     "npuload: -a: '10.0.0.256' is not an IPv4 or IPv6 address\n" TRY);
	says(npuload(NULL, "client", "-a", "::1", "-b", "here", NULL), 2,
	     "npuload: -b: 'here' is not an IPv4 or IPv6 address\n" TRY);
}

static void help_and_version(void **state)
{
	struct run r;

	(void)state;
	r = npuload(NULL, "--help", NULL);
	assert_int_equal(r.rc, 0);
	assert_string_equal(r.err, "");
	assert_non_null(strstr(r.out, "npuload server [-p PORT]"));
	assert_non_null(strstr(r.out, "npuload client -a ADDR"));
	run_free(&r);
	r = npuload(NULL, "--version", NULL);
	assert_int_equal(r.rc, 0);
	assert_true(!strncmp(r.out, "npuload (npuflow) ", 18));
	run_free(&r);
}

/* What cannot be written is an error, as coreutils' close_stdout has it: exit 1, said. */
static void full_stdout(void **state)
{
	(void)state;
	says(npuload("/dev/full", "--help", NULL), 1,
	     "npuload: cannot write the output: No space left on device\n");
	says(npuload("/dev/full", "server", "-h", NULL), 1,
	     "npuload: cannot write the output: No space left on device\n");
	says(npuload("/dev/full", "--version", NULL), 1,
	     "npuload: cannot write the output: No space left on device\n");
	/* a usage error writes nothing there: still 2 */
	says(npuload("/dev/full", "bogus", NULL), 2,
	     "npuload: unknown command 'bogus' (server or client)\n" TRY);
	/* no stdout at all: an error only when something was meant for it */
	says(npuload(CLOSED, "--version", NULL), 1,
	     "npuload: cannot write the output: Bad file descriptor\n");
	says(npuload(CLOSED, "bogus", NULL), 2,
	     "npuload: unknown command 'bogus' (server or client)\n" TRY);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(out_of_range),
		cmocka_unit_test(usage_errors),
		cmocka_unit_test(help_and_version),
		cmocka_unit_test(full_stdout),
	};

	return cmocka_run_group_tests_name("npuload_run", tests, setup, NULL);
}
