/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npuflowd's log (npuflowd_log.c): what every file of npuflowd writes
 * through, at the level set once the options are read.
 */
#ifndef NPUFLOWD_LOG_H
#define NPUFLOWD_LOG_H

#include <stdint.h>
#include "npuflowd_opts.h"

/* the lines written from now on: those up to @lvl (--log-level) */
void log_set_level(enum npuflowd_log lvl);

__attribute__((format(printf, 2, 3)))
void logmsg(enum npuflowd_log lvl, const char *fmt, ...);
/* the flow maker's log callback (fmd_log_fn) */
__attribute__((format(printf, 2, 3)))
void fm_log(int lvl, const char *fmt, ...);

#define err(...)   logmsg(NPUFLOWD_LOG_ERR, __VA_ARGS__)
#define warn(...)  logmsg(NPUFLOWD_LOG_WARN, __VA_ARGS__)
#define info(...)  logmsg(NPUFLOWD_LOG_INFO, __VA_ARGS__)
#define dbg(...)   logmsg(NPUFLOWD_LOG_DEBUG, __VA_ARGS__)

/* libbpf's and libxdp's messages into the log */
void log_take_libs(void);
/* libbpf's warnings logged as debug while @on: around a call whose failure
 * the caller expects and handles (a hook that exists already) */
void log_libbpf_expected(int on);
/* from now on to syslog (a daemon) */
void log_to_syslog(void);
/* batch the log's lines (the loop's passes) or write each at once (0) */
void log_set_batch(int on);
/* write the lines batched */
void log_flush(void);
/* the time spent in the log so far, in microseconds */
uint64_t log_spent_us(void);
/* CLOCK_MONOTONIC in microseconds */
uint64_t mono_us(void);

#endif
