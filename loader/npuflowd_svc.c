// SPDX-License-Identifier: GPL-2.0
/*
 * npuflowd as a service: the stop signals, the single-instance lock,
 * becoming a daemon, and the service manager's notifications (READY=1,
 * WATCHDOG=1, STOPPING=1; sd_notify(3) without libsystemd).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/capability.h>
#include "npuflowd_log.h"
#include "npuflowd_svc.h"

volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = sig;
}

/*
 * Every signal whose default action ends the process, but for the faults
 * (SEGV, BUS, FPE, ILL, TRAP, SYS) and SIGABRT (a crash, or the service
 * manager's watchdog: a hung npuflowd cannot detach anyway).  Each stops
 * npuflowd as SIGTERM does: programs detached, maps and rules kept.  Taken
 * over even when inherited ignored (bash starts background jobs with SIGINT
 * and SIGQUIT ignored; nohup ignores SIGHUP).  SIGPIPE is ignored.
 */
void catch_stop_signals(void)
{
	static const int sigs[] = {
		SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM,
		SIGPROF, SIGXCPU, SIGXFSZ, SIGIO, SIGPWR, SIGSTKFLT,
	};
	struct sigaction sa = { .sa_handler = on_signal };
	size_t k;
	int s;

	sigfillset(&sa.sa_mask);
	for (k = 0; k < sizeof(sigs) / sizeof(sigs[0]); k++)
		sigaction(sigs[k], &sa, NULL);
	for (s = SIGRTMIN; s <= SIGRTMAX; s++)
		sigaction(s, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

void log_stop_signal(void)
{
	if (stop && sigabbrev_np(stop))
		info("SIG%s: stopping", sigabbrev_np(stop));
	else if (stop)
		info("signal %d: stopping", (int)stop);
}

/*
 * Single instance: an open file description lock on the whole file, held
 * for the process's lifetime.  npuctl tests for it (F_OFD_GETLK) without
 * taking it.  The file is not followed if it is a symbolic link.
 */
int take_lock(const char *path)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	char pid[32];
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);

	if (fd < 0) {
		err("cannot open lock file %s: %s%s", path, strerror(errno),
		    errno == ELOOP ? " (a symbolic link: refused)" : "");
		return -1;
	}
	if (fcntl(fd, F_OFD_SETLK, &fl)) {
		ssize_t n = read(fd, pid, sizeof(pid) - 1);

		pid[n > 0 ? n : 0] = '\0';
		pid[strcspn(pid, "\n")] = '\0';
		err("another npuflowd is running (lock %s held%s%s); stop it first",
		    path, pid[0] ? " by pid " : "", pid);
		close(fd);
		return -1;
	}
	if (ftruncate(fd, 0) == 0) {
		int n = snprintf(pid, sizeof(pid), "%d\n", getpid());

		if (write(fd, pid, n) != n)
			warn("cannot write pid to %s", path);
	}
	return fd;
}

/*
 * Detach from the terminal once started: the parent exits 0 (the attached
 * programs, pinned maps, sockets and the lock belong to the child), the
 * child logs to syslog and writes its pid into the lock file.
 */
int daemonize(int lock_fd, const char *lock_path)
{
	char pid[32];
	int n;

	if (daemon(0, 0)) {
		err("daemon: %s", strerror(errno));
		return -1;
	}
	log_to_syslog();
	/* the lock's pid is the daemon's now */
	n = snprintf(pid, sizeof(pid), "%d\n", getpid());
	if (ftruncate(lock_fd, 0) || pwrite(lock_fd, pid, n, 0) != n)
		warn("cannot write pid to %s", lock_path);
	info("running as a daemon, pid %d", getpid());
	return 0;
}

/* Tell the service manager (systemd, Type=notify) @state; see npuflowd_notify(). */
void notify(const char *state)
{
	int e = npuflowd_notify(state);

	if (e < 0)
		warn("cannot notify the service manager (%s): %s", state, strerror(-e));
}

/*
 * watchdog_ping - WATCHDOG=1 to the service manager when @every_us (0: no
 * watchdog) has passed since *@last (CLOCK_MONOTONIC us, updated).
 * Returns @wait_ms, shortened so that the loop wakes for the next one.
 */
int watchdog_ping(uint64_t every_us, uint64_t *last, int wait_ms)
{
	uint64_t now = mono_us(), due = *last + every_us;

	if (!every_us)
		return wait_ms;
	if (now >= due) {
		notify("WATCHDOG=1");
		*last = now;
		due = now + every_us;
	}
	if ((due - now) / 1000 < (uint64_t)wait_ms)
		wait_ms = (due - now + 999) / 1000;
	return wait_ms;
}

/*
 * Whether npuflowd holds what it needs, read with capget(2) (no libcap):
 * CAP_NET_ADMIN (XDP, tc, conntrack, rtnetlink writes) and CAP_BPF or
 * CAP_SYS_ADMIN (programs, maps, the BPF file system's mount).  0, or -1
 * with the error said once, before anything fails with a bare EPERM.
 */
int check_privileges(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct c[_LINUX_CAPABILITY_U32S_3];

	memset(c, 0, sizeof(c));
	if (syscall(SYS_capget, &h, c))
		return 0;	/* unknown: the operations say what fails */
#define HAS(cap) (!!(c[(cap) / 32].effective & (1u << ((cap) % 32))))
	if (HAS(CAP_NET_ADMIN) && (HAS(CAP_BPF) || HAS(CAP_SYS_ADMIN)))
		return 0;
#undef HAS
	err("needs CAP_NET_ADMIN and CAP_BPF (or CAP_SYS_ADMIN): run it as root");
	return -1;
}
