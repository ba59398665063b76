// SPDX-License-Identifier: GPL-2.0
/*
 * npuflowd's command line and its service-manager notifications
 * (loader/npuflowd_opts.c), natively with cmocka.
 */
#define _GNU_SOURCE		/* strcasestr */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include "../../loader/npuflowd_opts.c"
#include "../../loader/flowmaker.c"
#include "../../loader/fm_evict.c"
#include "../../lib/npuflow_stdout.c"

static int parse(struct npuflowd_opts *o, char *err, ...)
{
	char *argv[32];
	int argc = 0;
	va_list ap;

	argv[argc++] = "npuflowd";
	va_start(ap, err);
	for (;;) {
		char *a = va_arg(ap, char *);

		if (!a)
			break;
		argv[argc++] = a;
	}
	va_end(ap);
	argv[argc] = NULL;
	err[0] = '\0';
	return npuflowd_parse_args(argc, argv, o, err, 256);
}

static void defaults(void **state)
{
	struct npuflowd_opts o;
	char err[256];

	(void)state;
	assert_int_equal(parse(&o, err, "eth0", NULL), 0);
	assert_int_equal(o.nports, 1);
	assert_string_equal(o.ports[0], "eth0");
	assert_int_equal(o.candidates, 65536);
	assert_int_equal(o.fm.thr_frames, NPUFLOW_THRESHOLD_DEFAULT);
	assert_int_equal(o.mode, NPUFLOWD_MODE_NATIVE);
	assert_int_equal(o.log_level, NPUFLOWD_LOG_INFO);
	assert_int_equal(o.foreground, 0);
	assert_int_equal(o.flush, 0);
	assert_int_equal(o.ringbuf, 256 * 1024);
	assert_int_equal(o.revive_gap_ns, 1000000);
	assert_string_equal(o.pin_dir, "/sys/fs/bpf/npuflow");
	assert_string_equal(o.lock_file, "/run/npuflowd.lock");
}

static void all_options(void **state)
{
	struct npuflowd_opts o;
	char err[256];

	(void)state;
	assert_int_equal(parse(&o, err, "-c", "128k", "--threshold", "32", "--mode", "skb",
			       "-f", "--log-level", "debug", "--revive-gap-ms", "250",
			       "--clock", "precise", "--ringbuf", "1m", "--pin-dir", "/sys/fs/bpf/x",
			       "--lock-file", "/tmp/l", "--no-dispatcher", "npu0p3", "npu0p8",
			       NULL), 0);
	assert_int_equal(o.candidates, 131072);
	assert_int_equal(o.fm.thr_frames, 32);
	assert_int_equal(o.mode, NPUFLOWD_MODE_SKB);
	assert_int_equal(o.foreground, 1);
	assert_int_equal(o.log_level, NPUFLOWD_LOG_DEBUG);
	assert_int_equal(o.revive_gap_ns, 250000000ull);
	assert_int_equal(o.precise_clock, 1);
	assert_int_equal(o.ringbuf, 1 << 20);
	assert_int_equal(o.no_dispatcher, 1);
	assert_string_equal(o.pin_dir, "/sys/fs/bpf/x");
	assert_string_equal(o.lock_file, "/tmp/l");
	assert_int_equal(o.nports, 2);
	assert_string_equal(o.ports[1], "npu0p8");
	/* trailing slashes go */
	assert_int_equal(parse(&o, err, "--pin-dir", "/sys/fs/bpf/y//", "eth0", NULL), 0);
	assert_string_equal(o.pin_dir, "/sys/fs/bpf/y");
	/* options after interfaces (GNU permutation) and --candidates=N */
	assert_int_equal(parse(&o, err, "eth0", "--candidates=2048", "-t0", NULL), 0);
	assert_int_equal(o.candidates, 2048);
	assert_int_equal(o.fm.thr_frames, 0);
}

static void errors(void **state)
{
	struct npuflowd_opts o;
	char err[256];

	(void)state;
	assert_int_equal(parse(&o, err, NULL), -1);
	assert_non_null(strstr(err, "no interface"));
	assert_int_equal(parse(&o, err, "-c", "100", "eth0", NULL), -1);	/* < 1024 */
	assert_non_null(strstr(err, "--candidates"));
	assert_int_equal(parse(&o, err, "-c", "32m", "eth0", NULL), -1);	/* > 16m */
	assert_int_equal(parse(&o, err, "-c", "12x", "eth0", NULL), -1);
	assert_int_equal(parse(&o, err, "-c", "-5", "eth0", NULL), -1);
	assert_int_equal(parse(&o, err, "-t", "ten", "eth0", NULL), -1);
	assert_int_equal(parse(&o, err, "-t", "99999999999", "eth0", NULL), -1);
	assert_int_equal(parse(&o, err, "--mode", "hw", "eth0", NULL), -1);
	assert_non_null(strstr(err, "native or skb"));
	assert_int_equal(parse(&o, err, "--log-level", "loud", "eth0", NULL), -1);
	assert_int_equal(parse(&o, err, "--ringbuf", "5000", "eth0", NULL), -1);	/* not 2^n */
	assert_int_equal(parse(&o, err, "--clock", "fast", "eth0", NULL), -1);
	assert_int_equal(parse(&o, err, "--pin-dir", "relative", "eth0", NULL), -1);
	/* its parent is where npuflowd mounts a bpffs if none is there: never / */
	assert_int_equal(parse(&o, err, "--pin-dir", "/npuflow", "eth0", NULL), -1);
	assert_non_null(strstr(err, "--pin-dir"));
	assert_int_equal(parse(&o, err, "--pin-dir", "/", "eth0", NULL), -1);
	assert_int_equal(parse(&o, err, "--pin-dir", "/sys/fs/bpf/../x", "eth0", NULL), -1);
	assert_int_equal(parse(&o, err, "--pin-dir", "/sys/fs/bpf/.", "eth0", NULL), -1);
	assert_int_equal(parse(&o, err, "--bogus", "eth0", NULL), -1);
	assert_non_null(strstr(err, "unknown option"));
	/* in getopt's words, as npuctl and npuload say it */
	assert_int_equal(parse(&o, err, "eth0", "-c", NULL), -1);
	assert_string_equal(err, "option '-c' requires an argument");
	assert_int_equal(parse(&o, err, "eth0", "--pin-dir", NULL), -1);
	assert_string_equal(err, "option '--pin-dir' requires an argument");
	assert_int_equal(parse(&o, err, "eth0", "eth0", NULL), -1);
	assert_non_null(strstr(err, "twice"));
	assert_int_equal(parse(&o, err, "averyveryverylongifname", NULL), -1);
	assert_int_equal(parse(&o, err, "a/b", NULL), -1);
	assert_int_equal(parse(&o, err, "--flush", "eth0", NULL), -1);
}

/* What npuflowd --help (or --version) prints, in a string the caller frees. */
static char *help_of(enum npuflowd_show what)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	npuflowd_print_help(f, what);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static void flush_and_help(void **state)
{
	struct npuflowd_opts o;
	char err[256], *help;

	(void)state;
	assert_int_equal(parse(&o, err, "--flush", NULL), 0);
	assert_int_equal(o.flush, 1);
	assert_int_equal(o.nports, 0);
	assert_int_equal(parse(&o, err, "--help", NULL), 0);
	assert_int_equal(o.help, NPUFLOWD_SHOW_HELP);
	assert_int_equal(parse(&o, err, "-h", "--bogus", NULL), 0);
	assert_int_equal(o.help, NPUFLOWD_SHOW_HELP);
	assert_int_equal(parse(&o, err, "--version", "--bogus", NULL), 0);
	assert_int_equal(o.help, NPUFLOWD_SHOW_VERSION);
	assert_int_equal(parse(&o, err, "eth0", NULL), 0);
	assert_int_equal(o.help, NPUFLOWD_SHOW_NONE);
	help = help_of(NPUFLOWD_SHOW_HELP);
	/* help2man's forms: "Usage:" for SYNOPSIS, "Options:" for OPTIONS */
	assert_true(!strncmp(help, "Usage: npuflowd ", 16));
	assert_non_null(strstr(help, "\n  or:  npuflowd --flush\n"));
	assert_non_null(strstr(help, "\nOptions:\n"));
	assert_non_null(strstr(help, "\n  -c, --candidates=N "));
	assert_non_null(strstr(help, "\n      --flush "));
	assert_non_null(strstr(help, "seed 002"));
	free(help);
	help = help_of(NPUFLOWD_SHOW_VERSION);
	assert_string_equal(help, "npuflowd (npuflow) " NPUFLOW_VERSION "\n");
	free(help);
}

/* All of @fd from its start, in @buf (@len bytes with the NUL). */
static char *read_back(int fd, char *buf, size_t len)
{
	ssize_t n = pread(fd, buf, len - 1, 0);

	assert_true(n >= 0);
	buf[n] = '\0';
	return buf;
}

/*
 * npuflowd --help or --version (npuflowd_show(), as main() runs it) with
 * its stdout on @out and its stderr in @err (@errlen bytes): its exit status.
 */
static int show_into(enum npuflowd_show what, const char *out, char *err, size_t errlen)
{
	char path[] = "/tmp/npuflowd-show.XXXXXX";
	int efd = mkstemp(path), ofd = open(out, O_WRONLY | O_CLOEXEC), st;
	pid_t pid;

	assert_true(efd >= 0 && ofd >= 0);
	unlink(path);
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		dup2(ofd, 1);
		dup2(efd, 2);
		exit(npuflowd_show(what));	/* as main() returns it */
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	read_back(efd, err, errlen);
	close(efd);
	close(ofd);
	assert_true(WIFEXITED(st));
	return WEXITSTATUS(st);
}

/* --help and --version: exit 0 once written, 1 and why when stdout is full. */
static void show_to_stdout(void **state)
{
	char path[] = "/tmp/npuflowd-help.XXXXXX", err[256], *help, *got;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(show_into(NPUFLOWD_SHOW_HELP, path, err, sizeof(err)), 0);
	assert_string_equal(err, "");
	help = help_of(NPUFLOWD_SHOW_HELP);
	got = calloc(1, strlen(help) + 2);
	assert_non_null(got);
	assert_string_equal(read_back(fd, got, strlen(help) + 2), help);
	free(got);
	free(help);
	close(fd);
	unlink(path);
	assert_int_equal(show_into(NPUFLOWD_SHOW_HELP, "/dev/full", err, sizeof(err)), 1);
	assert_string_equal(err, "npuflowd: cannot write the output: No space left on device\n");
	assert_int_equal(show_into(NPUFLOWD_SHOW_VERSION, "/dev/full", err, sizeof(err)), 1);
	assert_string_equal(err, "npuflowd: cannot write the output: No space left on device\n");
}

/* "  -k, --name" or "      --name": how --help's line of @d begins. */
static void names_of(const struct optdef *d, char *buf, size_t len)
{
	if (d->key)
		snprintf(buf, len, "  -%c, --%s", d->key, d->name);
	else
		snprintf(buf, len, "      --%s", d->name);
}

/* --help's paragraph of @d: from its names to the next option's line. */
static const char *help_entry(const char *help, const struct optdef *d, char *buf, size_t len)
{
	char names[64];
	const char *at, *end;

	names[0] = '\n';
	names_of(d, names + 1, sizeof(names) - 1);
	at = strstr(help, names);
	assert_non_null(at);
	at++;
	/* its lines go on at column 30; an option's begins at 2 or 6 */
	for (end = strchr(at, '\n'); end && strspn(end + 1, " ") >= 10;
	     end = strchr(end + 1, '\n'))
		;
	assert_non_null(end);
	snprintf(buf, len, "%.*s", (int)(end - at), at);
	return buf;
}

/* The default --help gives in @entry: the word after its last "default", less the stop. */
static const char *default_in(const char *entry, char *buf, size_t len)
{
	const char *at = NULL, *p;
	size_t n;

	for (p = entry; (p = strcasestr(p, "default")); p++)
		at = p;
	assert_non_null(at);
	at += strlen("default");
	at += strspn(at, " \n");
	n = strcspn(at, " \n");
	assert_true(n > 1 && at[n - 1] == '.');
	snprintf(buf, len, "%.*s", (int)n - 1, at);
	return buf;
}

/*
 * Every option of the table is in --help, in the form help2man takes: at
 * most 79 columns, the text at column 30, on the next line when the names
 * are longer; with its argument, and its default when it takes one.
 */
static void every_option_in_help(void **state)
{
	char *help = help_of(NPUFLOWD_SHOW_HELP), entry[2048], names[64], dv[256];
	const char *line;
	size_t i, n;

	(void)state;
	for (line = help; *line; line = strchr(line, '\n') + 1)
		assert_true(strcspn(line, "\n") <= 79);
	for (i = 0; i < NOPTS; i++) {
		const struct optdef *d = &optdefs[i];

		help_entry(help, d, entry, sizeof(entry));
		names_of(d, names, sizeof(names));
		n = strcspn(entry + strlen(names), " \n") + strlen(names);	/* with =ARG */
		if (n <= 28) {
			assert_true(strspn(entry + n, " ") == 30 - n);
		} else {
			assert_int_equal(entry[n], '\n');
			assert_true(strspn(entry + n + 1, " ") == 30);
		}
		if (d->set == set_flag) {
			assert_int_equal(entry[strlen(names)], ' ');
		} else {
			assert_int_equal(entry[strlen(names)], '=');
			default_in(entry, dv, sizeof(dv));
		}
	}
	free(help);
}

/*
 * Every option of the table parses, by each of its names: a flag sets its
 * value, an option with an argument takes the default --help gives.
 */
static void every_option_parses(void **state)
{
	struct npuflowd_opts o, def;
	char *help = help_of(NPUFLOWD_SHOW_HELP), entry[2048], opt[320], dv[256], err[256];
	size_t i;

	(void)state;
	npuflowd_opts_init(&def);
	for (i = 0; i < NOPTS; i++) {
		const struct optdef *d = &optdefs[i];
		/* --flush takes no interface; --help and --version ignore one */
		char *port = d->off == offsetof(struct npuflowd_opts, flush) ? NULL : "eth0";

		if (d->set == set_flag) {
			snprintf(opt, sizeof(opt), "--%s", d->name);
			assert_int_equal(parse(&o, err, opt, port, NULL), 0);
			assert_memory_equal((char *)&o + d->off, &d->value, sizeof(int));
			continue;
		}
		default_in(help_entry(help, d, entry, sizeof(entry)), dv, sizeof(dv));
		snprintf(opt, sizeof(opt), "--%s=%s", d->name, dv);
		assert_int_equal(parse(&o, err, opt, port, NULL), 0);
		assert_memory_equal((char *)&o + d->off, (char *)&def + d->off, d->size);
		if (d->key) {
			snprintf(opt, sizeof(opt), "-%c", d->key);
			assert_int_equal(parse(&o, err, opt, dv, port, NULL), 0);
			assert_memory_equal((char *)&o + d->off, (char *)&def + d->off, d->size);
		}
	}
	free(help);
}

/* getopt_long()'s tables hold every option once, and nothing else. */
static void getopt_from_table(void **state)
{
	struct option lo[NOPTS + 1];
	char so[3 * NOPTS + 2];
	size_t i, j;

	(void)state;
	getopt_tables(lo, so);
	assert_string_equal(so, ":c:t:m:fl:h");
	for (i = 0; i < NOPTS; i++) {
		assert_string_equal(lo[i].name, optdefs[i].name);
		assert_ptr_equal(opt_by_val(lo[i].val), &optdefs[i]);
		for (j = 0; j < i; j++)
			assert_true(strcmp(lo[i].name, lo[j].name) && lo[i].val != lo[j].val);
	}
	assert_null(lo[NOPTS].name);
	/* what getopt_long() returns for a missing value or an unknown option */
	assert_null(opt_by_val(':'));
	assert_null(opt_by_val('?'));
}

static void flowmaker_options(void **state)
{
	struct npuflowd_opts o;
	char err[256];

	(void)state;
	assert_int_equal(parse(&o, err, "eth0", NULL), 0);
	assert_int_equal(o.flowmaker, 1);
	assert_int_equal(o.tc_skip_sw, 1);
	assert_int_equal(o.fm.hold_min_ns, 1000ull * 1000000);
	assert_int_equal(o.fm.hold_max_ns, 16000ull * 1000000);
	assert_int_equal(o.fm.hold_quiet_ns, 30000ull * 1000000);
	assert_int_equal(o.fm.retry_ns, 1000ull * 1000000);
	assert_int_equal(o.keepalive_ns, 1000ull * 1000000);
	assert_int_equal(o.fm.max_conns, 65536);
	assert_int_equal(o.ct_rcvbuf, 8u << 20);
	assert_int_equal(o.fm.thr_bytes, 0);
	assert_int_equal(o.fm.thr_any, 0);
	assert_string_equal(o.ctl_socket, "/run/npuflowd.sock");
	assert_int_equal(parse(&o, err, "--hold-min-ms", "250", "--hold-max-ms", "8000",
			       "--hold-quiet-ms", "0", "--retry-ms", "200", "--keepalive-ms", "500",
			       "--connections", "1m", "--ct-rcvbuf", "64m", "--tc-skip-sw", "0",
			       "--threshold-bytes", "64k", "--threshold-any", "--ctl-socket",
			       "/tmp/x.sock", "--no-flowmaker", "eth0", NULL), 0);
	assert_int_equal(o.fm.hold_min_ns, 250ull * 1000000);
	assert_int_equal(o.fm.hold_max_ns, 8000ull * 1000000);
	assert_int_equal(o.fm.hold_quiet_ns, 0);
	assert_int_equal(o.fm.retry_ns, 200ull * 1000000);
	assert_int_equal(o.keepalive_ns, 500ull * 1000000);
	assert_int_equal(o.fm.max_conns, 1u << 20);
	assert_int_equal(o.ct_rcvbuf, 64u << 20);
	assert_int_equal(o.tc_skip_sw, 0);
	assert_int_equal(o.fm.thr_bytes, 65536);
	assert_int_equal(o.fm.thr_any, 1);
	assert_int_equal(o.flowmaker, 0);
	assert_string_equal(o.ctl_socket, "/tmp/x.sock");
	assert_int_equal(parse(&o, err, "--hold-min-ms", "5000", "--hold-max-ms", "1000", "eth0",
			       NULL), -1);
	assert_non_null(strstr(err, "below"));
	assert_int_equal(parse(&o, err, "--tc-skip-sw", "2", "eth0", NULL), -1);
	assert_int_equal(parse(&o, err, "--hold-min-ms", "0", "eth0", NULL), -1);
	assert_int_equal(parse(&o, err, "--connections", "100", "eth0", NULL), -1);
}

/*
 * npuflowd starts with the flow maker's defaults, fm_cfg_init()'s, and
 * they are settings the flow maker takes (fmd_init() hands them over as
 * they are).  --help prints them: every_option_parses.
 */
static void flowmaker_defaults(void **state)
{
	struct npuflowd_opts o;
	struct fm_cfg c;
	struct fm fm;
	char err[256];

	(void)state;
	fm_cfg_init(&c);
	assert_int_equal(parse(&o, err, "eth0", NULL), 0);
	assert_memory_equal(&o.fm, &c, sizeof(c));
	assert_int_equal(fm_init(&fm, &o.fm), 0);
	fm_free(&fm);
}

static void numbers(void **state)
{
	uint64_t v;

	(void)state;
	assert_int_equal(npuflowd_parse_u64("0", 0, 10, 0, &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(npuflowd_parse_u64("4K", 0, ~0ull, 1, &v), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(npuflowd_parse_u64("1g", 0, ~0ull, 1, &v), 0);
	assert_int_equal(v, 1ull << 30);
	assert_int_equal(npuflowd_parse_u64("1k", 0, ~0ull, 0, &v), -1);	/* no suffix allowed */
	assert_int_equal(npuflowd_parse_u64("", 0, 10, 0, &v), -1);
	assert_int_equal(npuflowd_parse_u64(" 5", 0, 10, 0, &v), -1);
	assert_int_equal(npuflowd_parse_u64("+5", 0, 10, 0, &v), -1);
	assert_int_equal(npuflowd_parse_u64("11", 0, 10, 0, &v), -1);
	assert_int_equal(npuflowd_parse_u64("99999999999999999999", 0, ~0ull, 0, &v), -1);
	assert_int_equal(npuflowd_parse_u64("17179869184g", 0, ~0ull, 1, &v), -1);	/* overflow */
}

static void pin_split(void **state)
{
	char parent[64], base[64];

	(void)state;
	assert_int_equal(npuflowd_pin_split("/sys/fs/bpf/npuflow", parent, sizeof(parent),
					    base, sizeof(base)), 0);
	assert_string_equal(parent, "/sys/fs/bpf");
	assert_string_equal(base, "npuflow");
	assert_int_equal(npuflowd_pin_split("/a//b/", parent, sizeof(parent), base,
					    sizeof(base)), 0);
	assert_string_equal(parent, "/a");
	assert_string_equal(base, "b");
	assert_int_equal(npuflowd_pin_split("/npuflow", parent, sizeof(parent), base,
					    sizeof(base)), -1);
	assert_int_equal(npuflowd_pin_split("/", parent, sizeof(parent), base, sizeof(base)), -1);
	assert_int_equal(npuflowd_pin_split("x/y", parent, sizeof(parent), base, sizeof(base)), -1);
	assert_int_equal(npuflowd_pin_split("/sys/fs/bpf/npuflow", parent, 8, base, sizeof(base)),
			 -1);
}

static void watchdog_interval(void **state)
{
	(void)state;
	/* half of $WATCHDOG_USEC, for this pid or any */
	assert_int_equal(npuflowd_watchdog_usec("10000000", NULL, 42), 5000000);
	assert_int_equal(npuflowd_watchdog_usec("10000000", "42", 42), 5000000);
	assert_int_equal(npuflowd_watchdog_usec("10000000", "43", 42), 0);
	assert_int_equal(npuflowd_watchdog_usec(NULL, NULL, 42), 0);
	assert_int_equal(npuflowd_watchdog_usec("", NULL, 42), 0);
	assert_int_equal(npuflowd_watchdog_usec("0", NULL, 42), 0);
	assert_int_equal(npuflowd_watchdog_usec("10s", NULL, 42), 0);
	assert_int_equal(npuflowd_watchdog_usec("1", NULL, 42), 1);
}

/* A datagram socket bound at @sa (@len bytes of it), as systemd's notify socket. */
static int notify_listener(const struct sockaddr_un *sa, socklen_t len)
{
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	struct timeval tv = { .tv_sec = 2 };

	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (const struct sockaddr *)sa, len), 0);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return fd;
}

static void expect_datagram(int fd, const char *want)
{
	char buf[128];
	ssize_t n = recv(fd, buf, sizeof(buf) - 1, 0);

	assert_true(n > 0);
	buf[n] = '\0';
	assert_string_equal(buf, want);
}

static void notify(void **state)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char dir[] = "/tmp/npuflowd-notify.XXXXXX", name[64];
	socklen_t len;
	int fd;

	(void)state;
	/* not under a service manager: nothing to do, no error */
	unsetenv("NOTIFY_SOCKET");
	assert_int_equal(npuflowd_notify("READY=1"), 0);
	/* a path */
	assert_non_null(mkdtemp(dir));
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/notify", dir);
	fd = notify_listener(&sa, sizeof(sa));
	setenv("NOTIFY_SOCKET", sa.sun_path, 1);
	assert_int_equal(npuflowd_notify("READY=1"), 1);
	expect_datagram(fd, "READY=1");
	assert_int_equal(npuflowd_notify("WATCHDOG=1"), 1);
	expect_datagram(fd, "WATCHDOG=1");
	close(fd);
	/* nobody listening any more: an error, not a hang */
	assert_true(npuflowd_notify("WATCHDOG=1") < 0);
	unlink(sa.sun_path);
	rmdir(dir);
	/* the abstract namespace: "@name" */
	snprintf(name, sizeof(name), "npuflowd-notify-%d", getpid());
	memset(sa.sun_path, 0, sizeof(sa.sun_path));
	memcpy(sa.sun_path + 1, name, strlen(name));
	len = offsetof(struct sockaddr_un, sun_path) + 1 + strlen(name);
	fd = notify_listener(&sa, len);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "@%s", name);
	setenv("NOTIFY_SOCKET", sa.sun_path, 1);
	assert_int_equal(npuflowd_notify("READY=1"), 1);
	expect_datagram(fd, "READY=1");
	close(fd);
	/* not a socket address */
	setenv("NOTIFY_SOCKET", "relative", 1);
	assert_int_equal(npuflowd_notify("READY=1"), -EINVAL);
	unsetenv("NOTIFY_SOCKET");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(defaults),
		cmocka_unit_test(all_options),
		cmocka_unit_test(errors),
		cmocka_unit_test(flush_and_help),
		cmocka_unit_test(show_to_stdout),
		cmocka_unit_test(every_option_in_help),
		cmocka_unit_test(every_option_parses),
		cmocka_unit_test(getopt_from_table),
		cmocka_unit_test(flowmaker_options),
		cmocka_unit_test(flowmaker_defaults),
		cmocka_unit_test(numbers),
		cmocka_unit_test(pin_split),
		cmocka_unit_test(watchdog_interval),
		cmocka_unit_test(notify),
	};

	return cmocka_run_group_tests_name("loader_opts", tests, NULL, NULL);
}
