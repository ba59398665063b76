/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npuflowd as a service (npuflowd_svc.c): the stop signals, the lock,
 * becoming a daemon, the service manager's notifications.
 */
#ifndef NPUFLOWD_SVC_H
#define NPUFLOWD_SVC_H

#include <signal.h>
#include <stdint.h>

/* the stop signal caught, 0 while running */
extern volatile sig_atomic_t stop;

void catch_stop_signals(void);
int take_lock(const char *path);
int check_privileges(void);
/* a daemon from now on, @lock_fd (the lock file @lock_path) holding its pid */
int daemonize(int lock_fd, const char *lock_path);
void notify(const char *state);
int watchdog_ping(uint64_t every_us, uint64_t *last, int wait_ms);
/* log which signal stopped npuflowd, if one did */
void log_stop_signal(void);

#endif
