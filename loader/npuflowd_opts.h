/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npuflowd_opts.h - npuflowd's command line, parsed without side effects
 * (no syscalls: interface names are resolved by the caller), and its
 * service-manager interface ($NOTIFY_SOCKET, $WATCHDOG_USEC), so both are
 * unit-tested natively; and --help and --version written (npuflowd_show).
 */
#ifndef _NPUFLOWD_OPTS_H
#define _NPUFLOWD_OPTS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "../lib/npuflow_defaults.h"
#include "flowmaker.h"

#define NPUFLOWD_MAX_PORTS	64
#define NPUFLOWD_IFNAMSIZ	16
#define NPUFLOWD_CAND_MIN	1024
#define NPUFLOWD_CAND_MAX	(16u << 20)
#define NPUFLOWD_RB_MIN		4096
#define NPUFLOWD_RB_MAX		(256u << 20)
#define NPUFLOWD_CT_RCVBUF_DEFAULT	(8u << 20)
#define NPUFLOWD_KEEPALIVE_NS_DEFAULT	(1000ull * 1000000)

enum npuflowd_mode { NPUFLOWD_MODE_NATIVE, NPUFLOWD_MODE_SKB };
enum npuflowd_log { NPUFLOWD_LOG_ERR, NPUFLOWD_LOG_WARN, NPUFLOWD_LOG_INFO, NPUFLOWD_LOG_DEBUG };
/* What npuflowd prints and exits with instead of running (opts.help). */
enum npuflowd_show { NPUFLOWD_SHOW_NONE, NPUFLOWD_SHOW_HELP, NPUFLOWD_SHOW_VERSION };

struct npuflowd_opts {
	char ports[NPUFLOWD_MAX_PORTS][NPUFLOWD_IFNAMSIZ];
	int nports;
	uint32_t candidates;		/* candidate map entries */
	uint64_t revive_gap_ns;
	uint32_t ringbuf;		/* bytes, power of two */
	enum npuflowd_mode mode;
	enum npuflowd_log log_level;
	int precise_clock;
	int foreground;
	int flush;
	enum npuflowd_show help;	/* --help, --version: print, exit 0 */
	int no_dispatcher;		/* legacy single-program attach, on purpose */
	char pin_dir[256];
	char lock_file[256];
	/* the flow maker */
	int flowmaker;			/* 0: classifier only (--no-flowmaker) */
	/*
	 * The flow maker's settings, as fm_init() takes them, its defaults
	 * fm_cfg_init()'s.  fm.thr_frames is also the classifier's threshold
	 * (frames, 0 = no threshold events) and fm.max_conns the size of the
	 * connections map and the policy table.
	 */
	struct fm_cfg fm;
	uint64_t keepalive_ns;
	uint32_t ct_rcvbuf;		/* conntrack event socket receive buffer, bytes */
	int tc_skip_sw;			/* 1: skip_sw (hardware only), 0: no flag (software too) */
	char ctl_socket[108];
};

/**
 * npuflowd_opts_init - set every option to its default (npuflowd --help
 * prints them); the flow maker's are fm_cfg_init()'s
 * @o: the options
 */
void npuflowd_opts_init(struct npuflowd_opts *o);

/**
 * npuflowd_parse_args - parse npuflowd's command line into @o
 * @argc, @argv: as main() has them (getopt_long; optind is reset)
 * @o: the options, first set to their defaults
 * @err, @errlen: where a usage error is said
 *
 * --help and --version set o->help and end the parse there, successfully.
 *
 * Return: 0, or -1 on a usage error (the message in @err).
 */
int npuflowd_parse_args(int argc, char **argv, struct npuflowd_opts *o,
			char *err, size_t errlen);

/**
 * npuflowd_print_help - print what o->help asks for: the usage and every
 * option with its default (NPUFLOWD_SHOW_HELP), or the version line
 * (NPUFLOWD_SHOW_VERSION)
 * @f: where to
 * @what: o->help
 *
 * The usage is in the form help2man reads: npuflowd(8) is made from it.
 */
void npuflowd_print_help(FILE *f, enum npuflowd_show what);

/**
 * npuflowd_show - print what o->help asks for on stdout
 * (npuflowd_print_help()), then flush and close it
 * @what: o->help, not NPUFLOWD_SHOW_NONE
 *
 * Return: npuflowd's exit status: 0, or 1 when the output could not all be
 * written (said on stderr, as npuflow_close_stdout() says it).
 */
int npuflowd_show(enum npuflowd_show what);

/**
 * npuflowd_parse_u64 - a strict unsigned decimal number
 * @s: the text: digits only, then a k, m or g (x1024) when @suffix
 * @min, @max: the range it must be in
 * @suffix: whether a k/m/g suffix is accepted
 * @out: the number
 *
 * Return: 0, or -1 when @s is not such a number or is out of range.
 */
int npuflowd_parse_u64(const char *s, uint64_t min, uint64_t max, int suffix, uint64_t *out);
const char *npuflowd_mode_name(enum npuflowd_mode m);
const char *npuflowd_log_name(enum npuflowd_log l);

/*
 * npuflowd_pin_split - split the pin directory @pin (absolute, trailing
 * slashes ignored) into its parent (where a BPF file system must be, or is
 * mounted) and its last component.  0, or -1 when @pin is not absolute, has
 * no parent other than /, or does not fit @plen / @blen bytes.  Pure.
 */
int npuflowd_pin_split(const char *pin, char *parent, size_t plen, char *base, size_t blen);

/*
 * npuflowd_watchdog_usec - how often to send WATCHDOG=1, in microseconds:
 * half of @usec (the value of $WATCHDOG_USEC) when @wpid ($WATCHDOG_PID) is
 * NULL or @pid; 0 (no watchdog) when unset, zero, not a number, or meant
 * for another process.  Pure.
 */
uint64_t npuflowd_watchdog_usec(const char *usec, const char *wpid, long pid);

/*
 * npuflowd_notify - send @state ("READY=1", "WATCHDOG=1", "STOPPING=1", lines
 * joined by newlines) to the service manager, as sd_notify(3) does: one
 * datagram to the AF_UNIX socket named by $NOTIFY_SOCKET (a path, or
 * "@name" in the abstract namespace).  1 sent, 0 when $NOTIFY_SOCKET is
 * unset (no service manager), -errno on failure (-EINVAL: not a socket
 * address).  Never blocks.  The only function here that makes syscalls.
 */
int npuflowd_notify(const char *state);

#endif
