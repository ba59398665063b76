/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npuflowd's own files share this: the options, the stop flag, the log
 * (npuflowd_log.c), the service's process (npuflowd_svc.c), the pin
 * directory (npuflowd_pins.c), the XDP attachment (npuflowd_xdp.c) and
 * the control socket (npuflowd_ctl.c).  main and the loop are npuflowd.c.
 */
#ifndef NPUFLOWD_H
#define NPUFLOWD_H

#include <signal.h>
#include <stdint.h>
#include <xdp/libxdp.h>
#include "npuflowd_opts.h"

struct classify;
struct fmd;

/* the options, as parsed (npuflowd.c) */
extern struct npuflowd_opts opts;
/* the stop signal caught, 0 while running (npuflowd_svc.c) */
extern volatile sig_atomic_t stop;

/* --- the log (npuflowd_log.c) ---------------------------------------------- */

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

/* --- the process (npuflowd_svc.c) ------------------------------------------ */

void catch_stop_signals(void);
int take_lock(const char *path);
int check_privileges(void);
int daemonize(int lock_fd);
void notify(const char *state);
int watchdog_ping(uint64_t every_us, uint64_t *last, int wait_ms);
/* log which signal stopped npuflowd, if one did */
void log_stop_signal(void);

/* --- the pin directory (npuflowd_pins.c) ----------------------------------- */

int pins_open(int start);
int pins_check(struct classify *skel);
void pins_chmod(void);
int pins_remove(void);
/* after a start that failed: what it made removed, what was there kept */
void pins_undo(void);

/* --- the classifier's attachment (npuflowd_xdp.c) -------------------------- */

const char *xdp_mode_name(enum xdp_attach_mode m);
int detach_leftovers(int ifindex, const char *why);
/* libxdp's state directory ($LIBXDP_BPFFS/xdp) removed if empty, under
 * libxdp's lock on it (--flush: no dispatcher of any program is left). */
void xdp_state_remove_empty(void);
struct xdp_program *classifier_program(struct classify *skel);
int port_attach(struct xdp_program *prog, int ifindex, const char *name,
		enum xdp_attach_mode mode);
int port_detach(struct xdp_program *prog, int ifindex, const char *name,
		enum xdp_attach_mode mode);

/* --- the egress watch (npuflowd_fwd.c) ------------------------------------- */

/* npuflow_forwarded (@prog_fd) on @ifindex's clsact egress, the qdisc added
 * if missing: 0, or -1 (logged). */
int fwd_attach(int prog_fd, int ifindex, const char *name);
/* npuflowd's egress watch off @ifindex: 0 (also when there was none), or
 * -errno. */
int fwd_detach(int ifindex);

/* --- the control socket (npuflowd_ctl.c) ----------------------------------- */

int ctl_open(const char *path);
void ctl_serve(int lfd, struct fmd *fmd);

#endif
