// SPDX-License-Identifier: GPL-2.0
/*
 * npuflowd's log: on stderr, or syslog once a daemon; libbpf's and
 * libxdp's messages go through it at npuflowd's --log-level.
 *
 * On stderr, a pass of the loop at a time: lines are collected here and
 * written with one write(2) at the end of the pass (log_flush(), before the
 * loop waits), not three unbuffered writes a line.  Under a load of many
 * connections, those writes cost more of the loop than its lookups and rule
 * writes (docs/measurements.md, "npuflowd under the 1,024 load").  Outside
 * the loop (start, stop) each line is written at once.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>
#include "npuflowd_log.h"

static enum npuflowd_log log_level;
static int use_syslog;
static char log_buf[64 * 1024];
static size_t log_len;
static int log_batch;
static uint64_t log_us;		/* time in the log, for the loop's busy line */

void log_set_level(enum npuflowd_log lvl)
{
	log_level = lvl;
}

uint64_t mono_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000ull + ts.tv_nsec / 1000;
}

uint64_t log_spent_us(void)
{
	return log_us;
}

void log_to_syslog(void)
{
	openlog("npuflowd", LOG_PID, LOG_DAEMON);
	use_syslog = 1;
}

void log_set_batch(int on)
{
	log_batch = on;
	if (!on)
		log_flush();
}

void log_flush(void)
{
	size_t off = 0;
	ssize_t n;

	while (off < log_len) {
		n = write(STDERR_FILENO, log_buf + off, log_len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;		/* the log is lost, not the daemon */
		off += n;
	}
	log_len = 0;
}

/* "npuflowd: LEVEL: line\n" into the buffer, truncated to what fits */
static void log_append(enum npuflowd_log lvl, const char *fmt, va_list ap)
{
	int n, m;

	/* room for a long line (1,024 bytes) or flush first */
	if (sizeof(log_buf) - log_len < 1200)
		log_flush();
	n = snprintf(log_buf + log_len, sizeof(log_buf) - log_len, "npuflowd: %s: ",
		     npuflowd_log_name(lvl));
	m = vsnprintf(log_buf + log_len + n, sizeof(log_buf) - log_len - n - 1, fmt, ap);
	if (m < 0)
		m = 0;
	if ((size_t)m > sizeof(log_buf) - log_len - n - 2)
		m = sizeof(log_buf) - log_len - n - 2;	/* truncated */
	log_len += n + m;
	log_buf[log_len++] = '\n';
	if (!log_batch)
		log_flush();
}

static void vlogmsg(enum npuflowd_log lvl, const char *fmt, va_list ap)
{
	static const int prio[] = { LOG_ERR, LOG_WARNING, LOG_INFO, LOG_DEBUG };
	uint64_t t;

	if (lvl > log_level)
		return;
	t = mono_us();
	if (use_syslog)
		vsyslog(prio[lvl], fmt, ap);
	else
		log_append(lvl, fmt, ap);
	log_us += mono_us() - t;
}

void logmsg(enum npuflowd_log lvl, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlogmsg(lvl, fmt, ap);
	va_end(ap);
}

void fm_log(int lvl, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlogmsg((enum npuflowd_log)lvl, fmt, ap);
	va_end(ap);
}

/* a library's message, its trailing newlines dropped */
static int lib_print(enum npuflowd_log lvl, const char *fmt, va_list ap)
{
	char buf[512];
	size_t n;

	if (lvl > log_level)
		return 0;
	vsnprintf(buf, sizeof(buf), fmt, ap);
	n = strlen(buf);
	while (n && buf[n - 1] == '\n')
		buf[--n] = '\0';
	logmsg(lvl, "%s", buf);
	return 0;
}

static int libbpf_quiet;

static int libbpf_print(enum libbpf_print_level l, const char *fmt, va_list ap)
{
	/* libbpf's warnings are errors to us only when a call fails; keep them at warn */
	return lib_print(l == LIBBPF_WARN && !libbpf_quiet ? NPUFLOWD_LOG_WARN :
			 NPUFLOWD_LOG_DEBUG, fmt, ap);
}

void log_libbpf_expected(int on)
{
	libbpf_quiet = on;
}

static int libxdp_print(enum libxdp_print_level l, const char *fmt, va_list ap)
{
	return lib_print(l == LIBXDP_WARN ? NPUFLOWD_LOG_WARN : NPUFLOWD_LOG_DEBUG, fmt, ap);
}

void log_take_libs(void)
{
	libbpf_set_print(libbpf_print);
	libxdp_set_print(libxdp_print);
}
