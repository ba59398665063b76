// SPDX-License-Identifier: GPL-2.0
/*
 * npuflowd's command line and its service-manager notifications
 * (loader/npuflowd_opts.c), natively with cmocka.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include "../../loader/npuflowd_opts.c"

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
	assert_int_equal(o.threshold, NPUFLOW_THRESHOLD_DEFAULT);
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
	assert_int_equal(o.threshold, 32);
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
	assert_int_equal(o.threshold, 0);
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
	assert_int_equal(parse(&o, err, "eth0", "-c", NULL), -1);
	assert_non_null(strstr(err, "needs a value"));
	assert_int_equal(parse(&o, err, "eth0", "eth0", NULL), -1);
	assert_non_null(strstr(err, "twice"));
	assert_int_equal(parse(&o, err, "averyveryverylongifname", NULL), -1);
	assert_int_equal(parse(&o, err, "a/b", NULL), -1);
	assert_int_equal(parse(&o, err, "--flush", "eth0", NULL), -1);
}

static void flush_and_help(void **state)
{
	struct npuflowd_opts o;
	char err[256];

	(void)state;
	assert_int_equal(parse(&o, err, "--flush", NULL), 0);
	assert_int_equal(o.flush, 1);
	assert_int_equal(o.nports, 0);
	assert_int_equal(parse(&o, err, "--help", NULL), 0);
	assert_int_equal(o.help, 1);
	assert_int_equal(parse(&o, err, "-h", "--bogus", NULL), 0);
	assert_non_null(strstr(npuflowd_usage, "SYNOPSIS"));
	assert_non_null(strstr(npuflowd_usage, "--candidates"));
	assert_non_null(strstr(npuflowd_usage, "--flush"));
}

static void flowmaker_options(void **state)
{
	struct npuflowd_opts o;
	char err[256];

	(void)state;
	assert_int_equal(parse(&o, err, "eth0", NULL), 0);
	assert_int_equal(o.flowmaker, 1);
	assert_int_equal(o.tc_skip_sw, 1);
	assert_int_equal(o.hold_min_ns, 1000ull * 1000000);
	assert_int_equal(o.hold_max_ns, 16000ull * 1000000);
	assert_int_equal(o.hold_quiet_ns, 30000ull * 1000000);
	assert_int_equal(o.retry_ns, 1000ull * 1000000);
	assert_int_equal(o.keepalive_ns, 1000ull * 1000000);
	assert_int_equal(o.connections, 65536);
	assert_int_equal(o.ct_rcvbuf, 8u << 20);
	assert_int_equal(o.threshold_bytes, 0);
	assert_int_equal(o.threshold_any, 0);
	assert_string_equal(o.ctl_socket, "/run/npuflowd.sock");
	assert_int_equal(parse(&o, err, "--hold-min-ms", "250", "--hold-max-ms", "8000",
			       "--hold-quiet-ms", "0", "--retry-ms", "200", "--keepalive-ms", "500",
			       "--connections", "1m", "--ct-rcvbuf", "64m", "--tc-skip-sw", "0",
			       "--threshold-bytes", "64k", "--threshold-any", "--ctl-socket",
			       "/tmp/x.sock", "--no-flowmaker", "eth0", NULL), 0);
	assert_int_equal(o.hold_min_ns, 250ull * 1000000);
	assert_int_equal(o.hold_max_ns, 8000ull * 1000000);
	assert_int_equal(o.hold_quiet_ns, 0);
	assert_int_equal(o.retry_ns, 200ull * 1000000);
	assert_int_equal(o.keepalive_ns, 500ull * 1000000);
	assert_int_equal(o.connections, 1u << 20);
	assert_int_equal(o.ct_rcvbuf, 64u << 20);
	assert_int_equal(o.tc_skip_sw, 0);
	assert_int_equal(o.threshold_bytes, 65536);
	assert_int_equal(o.threshold_any, 1);
	assert_int_equal(o.flowmaker, 0);
	assert_string_equal(o.ctl_socket, "/tmp/x.sock");
	assert_int_equal(parse(&o, err, "--hold-min-ms", "5000", "--hold-max-ms", "1000", "eth0",
			       NULL), -1);
	assert_non_null(strstr(err, "below"));
	assert_int_equal(parse(&o, err, "--tc-skip-sw", "2", "eth0", NULL), -1);
	assert_int_equal(parse(&o, err, "--hold-min-ms", "0", "eth0", NULL), -1);
	assert_int_equal(parse(&o, err, "--connections", "100", "eth0", NULL), -1);
	assert_non_null(strstr(npuflowd_usage, "--hold-min-ms"));
	assert_non_null(strstr(npuflowd_usage, "seed 002"));
	assert_non_null(strstr(npuflowd_usage, "--tc-skip-sw"));
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
		cmocka_unit_test(flowmaker_options),
		cmocka_unit_test(numbers),
		cmocka_unit_test(pin_split),
		cmocka_unit_test(watchdog_interval),
		cmocka_unit_test(notify),
	};

	return cmocka_run_group_tests_name("loader_opts", tests, NULL, NULL);
}
