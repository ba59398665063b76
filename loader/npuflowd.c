// SPDX-License-Identifier: GPL-2.0
/*
 * npuflowd - loads the npuflow XDP classifier, attaches it to the given
 * ports through libxdp (multi-program dispatcher), pins its maps under
 * /sys/fs/bpf/npuflow/ (mounting bpffs there if none is) and consumes its
 * ring buffer, as a service if asked (sd_notify).  See npuflowd --help.
 *
 * and runs the flow maker (fmd.c: conntrack, routes, tc flower rules).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <syslog.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>
#include "classify.skel.h"
#include "npuflow_fmt.h"
#include "npuflowd_opts.h"
#include "fmd.h"

#ifndef BPF_FS_MAGIC
#define BPF_FS_MAGIC 0xcafe4a11
#endif

#define PROG_NAME "npuflow_classify"

static struct npuflowd_opts opts;
static volatile sig_atomic_t stop;
static int use_syslog;

static const char *const pinned_maps[] = {
	"candidates", "counters", "events", "connections", "fmstats", "candcache",
};
static struct fmd fmd;
static int fm_on;
static struct classify *cls;	/* for cache_gen_bump() */

static uint64_t mono_us(void);
static uint64_t log_us;		/* time in the log, for the loop's busy line */

/*
 * The log on stderr, a pass of the loop at a time: lines are collected here
 * and written with one write(2) at the end of the pass (log_flush(), before
 * the loop waits), not three unbuffered writes a line.  The demo's 1,024
 * connections spent 3.2 to 6.0 s of every 5 s of npuflowd's loop in those
 * writes (its log on the VM's 9p share, under TCG): more than in lookups
 * and rule writes (docs/measurements.md, "npuflowd under the 1,024 load").
 * Outside the loop (start, stop) each line is written at once.
 */
static char log_buf[64 * 1024];
static size_t log_len;
static int log_batch;

static void log_flush(void)
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

static void vlogmsg(enum npuflowd_log lvl, const char *fmt, va_list ap)
{
	static const int prio[] = { LOG_ERR, LOG_WARNING, LOG_INFO, LOG_DEBUG };
	uint64_t t;
	int n, m;

	if (lvl > opts.log_level)
		return;
	t = mono_us();
	if (use_syslog) {
		vsyslog(prio[lvl], fmt, ap);
	} else {
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
	log_us += mono_us() - t;
}

__attribute__((format(printf, 2, 3)))
static void logmsg(enum npuflowd_log lvl, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlogmsg(lvl, fmt, ap);
	va_end(ap);
}

__attribute__((format(printf, 2, 3)))
static void fm_log(int lvl, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlogmsg((enum npuflowd_log)lvl, fmt, ap);
	va_end(ap);
}

#define err(...)   logmsg(NPUFLOWD_LOG_ERR, __VA_ARGS__)
#define warn(...)  logmsg(NPUFLOWD_LOG_WARN, __VA_ARGS__)
#define info(...)  logmsg(NPUFLOWD_LOG_INFO, __VA_ARGS__)
#define dbg(...)   logmsg(NPUFLOWD_LOG_DEBUG, __VA_ARGS__)

static int lib_print(enum npuflowd_log lvl, const char *fmt, va_list ap)
{
	char buf[512];
	size_t n;

	if (lvl > opts.log_level)
		return 0;
	vsnprintf(buf, sizeof(buf), fmt, ap);
	n = strlen(buf);
	while (n && buf[n - 1] == '\n')
		buf[--n] = '\0';
	logmsg(lvl, "%s", buf);
	return 0;
}

static int libbpf_print(enum libbpf_print_level l, const char *fmt, va_list ap)
{
	/* libbpf's warnings are errors to us only when a call fails; keep them at warn */
	return lib_print(l == LIBBPF_WARN ? NPUFLOWD_LOG_WARN :
			 l == LIBBPF_INFO ? NPUFLOWD_LOG_DEBUG : NPUFLOWD_LOG_DEBUG, fmt, ap);
}

static int libxdp_print(enum libxdp_print_level l, const char *fmt, va_list ap)
{
	return lib_print(l == LIBXDP_WARN ? NPUFLOWD_LOG_WARN : NPUFLOWD_LOG_DEBUG, fmt, ap);
}

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
static void catch_stop_signals(void)
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

/* Single instance: an exclusive flock held for the process's lifetime. */
static int take_lock(const char *path)
{
	char pid[32];
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);

	if (fd < 0) {
		err("cannot open lock file %s: %s", path, strerror(errno));
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB)) {
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

/* --- the pin directory ------------------------------------------------------- */

/*
 * The pin directory, opened once and checked (not a symlink, a directory of
 * root's or ours, on bpffs): everything npuflowd does in it goes through
 * @fd, so what was checked is what is used.  @path is what libbpf pins
 * through: /proc/self/fd/N when /proc shows @fd there, else the name.
 */
static struct pins {
	int parent_fd;
	int fd;
	char base[256];
	char path[64];
} pins = { .parent_fd = -1, .fd = -1 };

static int fd_on_bpffs(int fd)
{
	struct statfs st;

	return !fstatfs(fd, &st) && st.f_type == BPF_FS_MAGIC;
}

/*
 * Mount a BPF file system at @dir, mode 0700, as bpftool and libxdp do: the
 * mount point is made private first (bind-mounted on itself when it is no
 * mount point yet), so the new mount does not propagate.  0 or -errno.
 */
static int mount_bpffs(const char *dir)
{
	int bound = 0;

	while (mount("", dir, "none", MS_PRIVATE | MS_REC, NULL)) {
		if (errno != EINVAL || bound)
			return -errno;
		if (mount(dir, dir, "none", MS_BIND, NULL))
			return -errno;
		bound = 1;
	}
	return mount("bpf", dir, "bpf", 0, "mode=0700") ? -errno : 0;
}

/*
 * Open @parent, the pin directory's parent; with @mount, mount a BPF file
 * system there when it is not on one and it is /sys/fs/bpf (elsewhere the
 * operator mounts it).  The fd, or -1 (logged); with
 * !@mount, -2 when it is not on bpffs or not there (nothing is pinned).
 */
#define NPUFLOWD_BPFFS	"/sys/fs/bpf"

static int open_parent(const char *parent, int mount)
{
	int fd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC), e;

	if (fd < 0 && !mount && errno == ENOENT)
		return -2;
	if (fd < 0) {
		err("cannot open %s (the pin directory's parent): %s", parent, strerror(errno));
		return -1;
	}
	if (fd_on_bpffs(fd))
		return fd;
	close(fd);
	if (!mount)
		return -2;
	/* only the BPF file system's own place: a mount over another directory
	 * (/run, /tmp) would hide everything in it from the whole system */
	if (strcmp(parent, NPUFLOWD_BPFFS)) {
		err("%s (the pin directory's parent) is not a BPF file system, and npuflowd mounts "
		    "one only at %s: pin under it, or under a BPF file system of your own",
		    parent, NPUFLOWD_BPFFS);
		return -1;
	}
	e = mount_bpffs(parent);
	if (e) {
		err("no BPF file system at %s, and cannot mount one: %s", parent, strerror(-e));
		return -1;
	}
	info("mounted bpffs at %s", parent);
	fd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || !fd_on_bpffs(fd)) {
		err("%s: not a BPF file system after mounting one", parent);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/*
 * Point libxdp at the BPF file system the pins are on: it keeps its
 * dispatcher state in $LIBXDP_BPFFS/xdp (default /sys/fs/bpf/xdp) and reads
 * the variable once, at its first use.  @parent is on bpffs; its mount
 * point is found by walking up while the device stays the same.  An
 * operator's own $LIBXDP_BPFFS is kept, and libxdp mounts it if it must
 * (LIBXDP_BPFFS_AUTOMOUNT=1, unless set).
 */
static void tell_libxdp(const char *parent)
{
	const char *env = getenv("LIBXDP_BPFFS");
	char dir[256], up[256], *slash;
	struct stat st, ust;

	if (env && env[0]) {
		setenv("LIBXDP_BPFFS_AUTOMOUNT", "1", 0);
		dbg("libxdp state in %s/xdp ($LIBXDP_BPFFS)", env);
		return;
	}
	snprintf(dir, sizeof(dir), "%s", parent);
	if (stat(dir, &st))
		return;
	for (;;) {
		snprintf(up, sizeof(up), "%s", dir);
		slash = strrchr(up, '/');
		if (!slash || slash == up)
			break;
		*slash = '\0';
		if (stat(up, &ust) || ust.st_dev != st.st_dev)
			break;
		snprintf(dir, sizeof(dir), "%s", up);
	}
	setenv("LIBXDP_BPFFS", dir, 1);
	dbg("libxdp state in %s/xdp", dir);
}

/* Refuse a pin directory @fd that is not root's or ours (or not on bpffs). */
static int pins_trusted(int fd)
{
	struct stat st;

	if (fstat(fd, &st)) {
		err("%s: %s", opts.pin_dir, strerror(errno));
		return -1;
	}
	if (st.st_uid != 0 && st.st_uid != geteuid()) {
		err("pin directory %s is owned by uid %u, not root: refusing it (remove it, "
		    "or choose another --pin-dir)", opts.pin_dir, (unsigned int)st.st_uid);
		return -1;
	}
	if (!fd_on_bpffs(fd)) {
		err("pin directory %s is not on a BPF file system: refusing it", opts.pin_dir);
		return -1;
	}
	return 0;
}

/* Why openat(O_NOFOLLOW | O_DIRECTORY) of the pin directory failed. */
static void pins_explain(int e)
{
	struct stat st;

	if (!fstatat(pins.parent_fd, pins.base, &st, AT_SYMLINK_NOFOLLOW) && S_ISLNK(st.st_mode))
		err("pin directory %s is a symbolic link: refusing it (remove it, or choose "
		    "another --pin-dir)", opts.pin_dir);
	else if (e == ENOTDIR)
		err("pin directory %s is not a directory: refusing it", opts.pin_dir);
	else
		err("cannot open the pin directory %s: %s", opts.pin_dir, strerror(e));
}

/* The directory libbpf pins through: /proc/self/fd/N when it shows pins.fd. */
static void pins_path(void)
{
	struct stat a, b;

	snprintf(pins.path, sizeof(pins.path), "/proc/self/fd/%d", pins.fd);
	if (fstat(pins.fd, &a) || stat(pins.path, &b) || a.st_dev != b.st_dev ||
	    a.st_ino != b.st_ino) {
		dbg("no /proc/self/fd: pinning by name in %s", opts.pin_dir);
		pins.path[0] = '\0';
	}
}

/*
 * pins_open - open the pin directory for a start (@start: mount bpffs on its
 * parent if none is there, create the directory 0700, chmod it 0700) or for
 * --flush (mount and create nothing).  0 with pins.fd open; 0 with pins.fd
 * -1 for a flush that finds nothing (no bpffs, no directory); -1 (logged)
 * when the directory is refused or cannot be had.
 */
static int pins_open(int start)
{
	char parent[256];

	if (npuflowd_pin_split(opts.pin_dir, parent, sizeof(parent), pins.base,
			       sizeof(pins.base))) {
		err("pin directory %s: no parent directory", opts.pin_dir);
		return -1;
	}
	pins.parent_fd = open_parent(parent, start);
	if (pins.parent_fd == -2) {
		info("no BPF file system at %s: nothing pinned in %s", parent, opts.pin_dir);
		pins.parent_fd = -1;
		return 0;
	}
	if (pins.parent_fd < 0)
		return -1;
	tell_libxdp(parent);
	if (start && mkdirat(pins.parent_fd, pins.base, 0700) && errno != EEXIST) {
		err("mkdir %s: %s", opts.pin_dir, strerror(errno));
		return -1;
	}
	pins.fd = openat(pins.parent_fd, pins.base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
			 O_CLOEXEC);
	if (pins.fd < 0) {
		if (!start && errno == ENOENT)
			return 0;
		pins_explain(errno);
		return -1;
	}
	if (pins_trusted(pins.fd))
		return -1;
	if (start && fchmod(pins.fd, 0700))
		warn("chmod %s: %s", opts.pin_dir, strerror(errno));
	pins_path();
	return 0;
}

/* libbpf's path of the pinned map @name (see struct pins). */
static void pin_path_of(const char *name, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", pins.path[0] ? pins.path : opts.pin_dir, name);
}

/* Detach every npuflow classifier attached to @ifindex; returns the count. */
static int detach_leftovers(int ifindex, const char *why)
{
	struct xdp_multiprog *mp = xdp_multiprog__get_from_ifindex(ifindex);
	struct xdp_program *p;
	enum xdp_attach_mode mode;
	char ifname[IF_NAMESIZE] = "?";
	int n = 0;

	if (!mp || libxdp_get_error(mp))
		return 0;
	if_indextoname(ifindex, ifname);
	mode = xdp_multiprog__attach_mode(mp);
	if (xdp_multiprog__is_legacy(mp)) {
		p = xdp_multiprog__main_prog(mp);
		if (p && !strcmp(xdp_program__name(p), PROG_NAME)) {
			if (!xdp_multiprog__detach(mp))
				n++;
		}
	} else {
		for (p = xdp_multiprog__next_prog(NULL, mp); p;
		     p = xdp_multiprog__next_prog(p, mp)) {
			if (strcmp(xdp_program__name(p), PROG_NAME))
				continue;
			if (!xdp_program__detach(p, ifindex, mode, 0))
				n++;
		}
	}
	if (n)
		warn("%s: detached %d npuflow classifier(s) left attached (%s)", ifname, n, why);
	xdp_multiprog__close(mp);
	return n;
}

/* --flush's part in the pin directory: the maps, then the directory. */
static int unpin_all(void)
{
	size_t k;
	int rc = 0;

	if (pins.fd < 0)
		return 0;
	for (k = 0; k < sizeof(pinned_maps) / sizeof(pinned_maps[0]); k++) {
		if (!unlinkat(pins.fd, pinned_maps[k], 0)) {
			info("removed %s/%s", opts.pin_dir, pinned_maps[k]);
		} else if (errno != ENOENT) {
			err("cannot remove %s/%s: %s", opts.pin_dir, pinned_maps[k],
			    strerror(errno));
			rc = 1;
		}
	}
	if (unlinkat(pins.parent_fd, pins.base, AT_REMOVEDIR) && errno != ENOENT) {
		err("cannot remove %s: %s (not empty?)", opts.pin_dir, strerror(errno));
		rc = 1;
	}
	return rc;
}

/*
 * --flush: the pin directory is checked first (a refused one stops it all),
 * then every leftover classifier is detached, npuflowd's rules deleted and
 * the pins removed.  It mounts nothing: no BPF file system, nothing pinned.
 */
static int flush(void)
{
	struct if_nameindex *ifs, *i;
	int rc;

	if (pins_open(0))
		return 1;
	ifs = if_nameindex();
	for (i = ifs; i && i->if_index; i++)
		detach_leftovers(i->if_index, "--flush");
	if (fmd_flush_rules(fm_log))
		warn("cannot remove flow rules: %s", strerror(errno));
	if (ifs)
		if_freenameindex(ifs);
	rc = unpin_all();
	info("flushed");
	return rc;
}

/*
 * After the flow maker deletes candidates: the classifier's per-CPU cache
 * entries written before are not used again (bpf/npuflow.h).  Through the
 * map: libxdp loads the object with bpf_object__load(), and libbpf 1.1
 * maps skel->bss onto the map only in classify__load().
 */
static void cache_gen_bump(void)
{
	int fd = cls ? bpf_map__fd(cls->maps.bss) : -1;
	struct classify__bss b;
	__u32 zero = 0;

	if (fd < 0 || bpf_map_lookup_elem(fd, &zero, &b))
		return;
	b.npuflow_cache_gen++;
	bpf_map_update_elem(fd, &zero, &b, 0);
}

/*
 * A pinned map is reused by libbpf only if it matches; say clearly why not
 * before libbpf fails with a generic message.
 */
static int check_pins(struct classify *skel)
{
	struct bpf_map *maps[] = { skel->maps.candidates, skel->maps.counters, skel->maps.events,
				   skel->maps.connections, skel->maps.fmstats, skel->maps.candcache };
	size_t k;

	for (k = 0; k < sizeof(maps) / sizeof(maps[0]); k++) {
		struct bpf_map_info info = {};
		__u32 len = sizeof(info);
		char path[512];
		int fd;

		pin_path_of(pinned_maps[k], path, sizeof(path));
		if (bpf_map__set_pin_path(maps[k], path)) {
			err("cannot set pin path %s", path);
			return -1;
		}
		fd = bpf_obj_get(path);
		if (fd < 0)
			continue;
		if (bpf_obj_get_info_by_fd(fd, &info, &len)) {
			close(fd);
			continue;
		}
		close(fd);
		if (info.type != bpf_map__type(maps[k]) ||
		    info.key_size != bpf_map__key_size(maps[k]) ||
		    info.value_size != bpf_map__value_size(maps[k]) ||
		    info.max_entries != bpf_map__max_entries(maps[k])) {
			err("pinned map %s/%s does not match (type %u key %u value %u entries %u; "
			    "want type %u key %u value %u entries %u): run npuflowd --flush, "
			    "or start with the old size", opts.pin_dir, pinned_maps[k],
			    info.type, info.key_size,
			    info.value_size, info.max_entries, bpf_map__type(maps[k]),
			    bpf_map__key_size(maps[k]), bpf_map__value_size(maps[k]),
			    bpf_map__max_entries(maps[k]));
			return -1;
		}
		info("reusing pinned %s/%s (%u entries)", opts.pin_dir, pinned_maps[k],
		     info.max_entries);
	}
	return 0;
}

static void chmod_pins(void)
{
	size_t k;

	for (k = 0; k < sizeof(pinned_maps) / sizeof(pinned_maps[0]); k++)
		if (fchmodat(pins.fd, pinned_maps[k], 0600, 0))
			warn("chmod %s/%s: %s", opts.pin_dir, pinned_maps[k], strerror(errno));
}

/*
 * Events handled per pass over the ring: the flow maker's timers,
 * keepalive and statistics (npuctl status) run between passes even while
 * a burst of events keeps the ring non-empty (the demo's 1,024 connections
 * left them unrun for the whole load).
 */
#define NPUFLOWD_EVENTS_PER_PASS	64
static unsigned int events_this_pass;

static int on_event(void *ctx, void *data, size_t len)
{
	char line[512];

	(void)ctx;
	if (len < sizeof(struct npuflow_event))
		return 0;
	npuflow_fmt_event(data, line, sizeof(line));
	info("event %s", line);
	if (fm_on)
		fmd_event(&fmd, data, fmd_now());
	/* this event is consumed; the rest wait for the next pass */
	return ++events_this_pass >= NPUFLOWD_EVENTS_PER_PASS ? -EAGAIN : 0;
}

/* The control socket (npuctl release): SOCK_SEQPACKET, root only. */
static int open_ctl(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

	if (fd < 0)
		return -1;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	unlink(path);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || chmod(path, 0600) ||
	    listen(fd, 8)) {
		warn("control socket %s: %s (npuctl release will not work)", path,
		     strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

static void serve_ctl(int lfd)
{
	char req[256], rep[256];
	ssize_t n;
	int fd;

	while ((fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC)) >= 0) {
		struct timeval tv = { .tv_sec = 1 };

		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		n = recv(fd, req, sizeof(req) - 1, 0);
		if (n > 0) {
			req[n] = '\0';
			req[strcspn(req, "\n")] = '\0';
			fmd_ctl(&fmd, req, rep, sizeof(rep), fmd_now());
			if (send(fd, rep, strlen(rep), MSG_NOSIGNAL) < 0)
				dbg("control reply: %s", strerror(errno));
		}
		close(fd);
	}
}

/*
 * Detach from the terminal once started: the parent exits 0 (the attached
 * programs, pinned maps, sockets and the lock belong to the child), the
 * child logs to syslog and writes its pid into the lock file.
 */
static int daemonize(int lock_fd)
{
	char pid[32];
	int n;

	if (daemon(0, 0)) {
		err("daemon: %s", strerror(errno));
		return -1;
	}
	openlog("npuflowd", LOG_PID, LOG_DAEMON);
	use_syslog = 1;
	/* the lock's pid is the daemon's now */
	n = snprintf(pid, sizeof(pid), "%d\n", getpid());
	if (ftruncate(lock_fd, 0) || pwrite(lock_fd, pid, n, 0) != n)
		warn("cannot write pid to %s", opts.lock_file);
	info("running as a daemon, pid %d", getpid());
	return 0;
}

/* Tell the service manager (systemd, Type=notify) @state; see npuflowd_notify(). */
static void notify(const char *state)
{
	int e = npuflowd_notify(state);

	if (e < 0)
		warn("cannot notify the service manager (%s): %s", state, strerror(-e));
}

static uint64_t mono_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000ull + ts.tv_nsec / 1000;
}

/*
 * keepalive - WATCHDOG=1 to the service manager when @every_us (0: no
 * watchdog) has passed since *@last (CLOCK_MONOTONIC us, updated).
 * Returns @wait_ms, shortened so that the loop wakes for the next one.
 */
static int keepalive(uint64_t every_us, uint64_t *last, int wait_ms)
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
 * The main loop, until a stop signal: events, conntrack, the control
 * socket, the flow maker's timers, and the service manager's watchdog
 * (WATCHDOG=1 every half of $WATCHDOG_USEC, from this loop: a hung loop
 * sends none).  READY=1 once, on entry.  0 on a stop, 1 on an error (logged).
 */
static int serve(struct ring_buffer *rb, int ctl_fd)
{
	uint64_t wd_us = npuflowd_watchdog_usec(getenv("WATCHDOG_USEC"),
						 getenv("WATCHDOG_PID"), getpid());
	uint64_t wd_last = mono_us();
	int e;

	/* where the loop's time goes, logged every 5 s while it was busy */
	uint64_t lp0 = mono_us(), lp_poll = 0, lp_ev = 0, lp_ct = 0, lp_tick = 0, lp_n = 0, t;
	uint64_t lg0 = log_us, mk0 = fmd.make_ns, tm0 = fmd.fmtick_ns, rs0 = fmd.rescan_ns;
	uint64_t lp_log_flush = 0;

	notify("READY=1");
	if (wd_us)
		info("watchdog: keepalive every %llu ms", (unsigned long long)(wd_us / 1000));
	log_batch = 1;
	while (!stop) {
		struct pollfd pfd[3] = {
			{ .fd = ring_buffer__epoll_fd(rb), .events = POLLIN },
			{ .fd = fm_on ? fmd_ct_fd(&fmd) : -1, .events = POLLIN },
			{ .fd = ctl_fd, .events = POLLIN },
		};

		t = mono_us();
		log_flush();		/* the pass's lines, before the wait */
		lp_log_flush += mono_us() - t;
		t = mono_us();
		e = poll(pfd, 3, keepalive(wd_us, &wd_last, fm_on ? 50 : 500));
		if (e < 0 && errno != EINTR) {
			log_batch = 0;
			log_flush();
			err("poll: %s", strerror(errno));
			return 1;
		}
		lp_poll += mono_us() - t;
		t = mono_us();
		events_this_pass = 0;
		e = ring_buffer__consume(rb);
		if (e < 0 && e != -EINTR && e != -EAGAIN) {
			log_batch = 0;
			log_flush();
			err("ring buffer: %s", strerror(-e));
			return 1;
		}
		lp_ev += mono_us() - t;
		lp_n += events_this_pass;
		if (!fm_on)
			continue;
		t = mono_us();
		if (pfd[1].revents)
			fmd_ct_input(&fmd, fmd_now());
		if (pfd[2].revents)
			serve_ctl(ctl_fd);
		lp_ct += mono_us() - t;
		t = mono_us();
		fmd_tick(&fmd, fmd_now());
		lp_tick += mono_us() - t;
		t = mono_us();
		if (t - lp0 >= 5000000) {
			if (lp_poll * 5 < (t - lp0) * 4)	/* busy over a fifth */
				info("loop: %llu of %llu ms busy: %llu events %llu ms, conntrack "
				     "events and control %llu ms, timers %llu ms (keepalive %llu "
				     "runs %llu ms: tc dumps %llu ms, %llu conntrack refreshes "
				     "%llu ms); poll %llu ms; of all: makes %llu ms (lookups and "
				     "writes), the log %llu ms, the policy's timers %llu ms, "
				     "rescans %llu ms",
				     (unsigned long long)((t - lp0 - lp_poll) / 1000),
				     (unsigned long long)((t - lp0) / 1000),
				     (unsigned long long)lp_n, (unsigned long long)(lp_ev / 1000),
				     (unsigned long long)(lp_ct / 1000),
				     (unsigned long long)(lp_tick / 1000),
				     (unsigned long long)fmd.ka_runs,
				     (unsigned long long)(fmd.ka_ns / 1000000),
				     (unsigned long long)(fmd.ka_dump_ns / 1000000),
				     (unsigned long long)fmd.ka_refreshed,
				     (unsigned long long)(fmd.ka_ct_ns / 1000000),
				     (unsigned long long)(lp_poll / 1000),
				     (unsigned long long)((fmd.make_ns - mk0) / 1000000),
				     (unsigned long long)((log_us - lg0 + lp_log_flush) / 1000),
				     (unsigned long long)((fmd.fmtick_ns - tm0) / 1000000),
				     (unsigned long long)((fmd.rescan_ns - rs0) / 1000000));
			lp0 = t;
			lg0 = log_us;
			lp_log_flush = 0;
			mk0 = fmd.make_ns;
			tm0 = fmd.fmtick_ns;
			rs0 = fmd.rescan_ns;
			lp_poll = lp_ev = lp_ct = lp_tick = lp_n = 0;
			fmd.ka_ns = fmd.ka_dump_ns = fmd.ka_ct_ns = fmd.ka_runs = fmd.ka_refreshed = 0;
		}
	}
	log_batch = 0;
	log_flush();
	return 0;
}

static const char *mode_str(enum xdp_attach_mode m)
{
	switch (m) {
	case XDP_MODE_NATIVE: return "native";
	case XDP_MODE_SKB: return "skb";
	case XDP_MODE_HW: return "hw";
	default: return "unspec";
	}
}

int main(int argc, char **argv)
{
	char msg[256], ebuf[128];
	struct classify *skel = NULL;
	struct xdp_program *prog = NULL;
	struct ring_buffer *rb = NULL;
	enum xdp_attach_mode mode;
	int ifindex[NPUFLOWD_MAX_PORTS] = { 0 }, attached[NPUFLOWD_MAX_PORTS] = { 0 };
	int lock_fd, i, rc = 1, e, ctl_fd = -1;

	if (npuflowd_parse_args(argc, argv, &opts, msg, sizeof(msg))) {
		fprintf(stderr, "npuflowd: %s\n", msg);
		return 2;
	}
	if (opts.help) {
		npuflowd_print_help(stdout, opts.help);
		return 0;
	}
	libbpf_set_print(libbpf_print);
	libxdp_set_print(libxdp_print);
	mode = opts.mode == NPUFLOWD_MODE_SKB ? XDP_MODE_SKB : XDP_MODE_NATIVE;

	catch_stop_signals();
	lock_fd = take_lock(opts.lock_file);
	if (lock_fd < 0)
		return 1;
	if (opts.flush)
		return flush();

	for (i = 0; i < opts.nports; i++) {
		ifindex[i] = if_nametoindex(opts.ports[i]);
		if (!ifindex[i]) {
			err("no interface %s", opts.ports[i]);
			return 1;
		}
	}
	/* before libxdp's first use: it reads $LIBXDP_BPFFS once */
	if (pins_open(1))
		return 1;

	skel = classify__open();
	if (!skel) {
		err("cannot open the classifier: %s", strerror(errno));
		goto out;
	}
	cls = skel;
	skel->rodata->npuflow_threshold = opts.threshold;
	skel->rodata->npuflow_revive_gap_ns = opts.revive_gap_ns;
	skel->rodata->npuflow_coarse_clock = !opts.precise_clock;
	if (bpf_map__set_max_entries(skel->maps.candidates, opts.candidates) ||
	    bpf_map__set_max_entries(skel->maps.connections, opts.connections) ||
	    bpf_map__set_max_entries(skel->maps.events, opts.ringbuf)) {
		err("cannot size the maps");
		goto out;
	}
	if (check_pins(skel))
		goto out;

	{
		DECLARE_LIBXDP_OPTS(xdp_program_opts, xo, .obj = skel->obj,
				    .prog_name = PROG_NAME);

		prog = xdp_program__create(&xo);
		e = libxdp_get_error(prog);
		if (e) {
			libxdp_strerror(e, ebuf, sizeof(ebuf));
			err("cannot create the XDP program: %s", ebuf);
			prog = NULL;
			goto out;
		}
	}

	for (i = 0; i < opts.nports && !stop; i++) {
		struct xdp_multiprog *mp;

		detach_leftovers(ifindex[i], "from an earlier run");
		if (opts.no_dispatcher)
			setenv("LIBXDP_SKIP_DISPATCHER", "1", 1);
		e = xdp_program__attach(prog, ifindex[i], mode, 0);
		if (e) {
			libxdp_strerror(e, ebuf, sizeof(ebuf));
			err("%s: cannot attach in %s mode: %s%s", opts.ports[i], mode_str(mode),
			    ebuf, mode == XDP_MODE_NATIVE && e == -EOPNOTSUPP ?
			    " (the driver has no native XDP; --mode skb is explicit)" : "");
			goto out;
		}
		attached[i] = 1;
		mp = xdp_multiprog__get_from_ifindex(ifindex[i]);
		if (mp && !libxdp_get_error(mp)) {
			enum xdp_attach_mode got = xdp_multiprog__attach_mode(mp);

			if (got != mode) {
				err("%s: attached in %s mode, not %s: refusing", opts.ports[i],
				    mode_str(got), mode_str(mode));
				xdp_multiprog__close(mp);
				goto out;
			}
			if (xdp_multiprog__is_legacy(mp))
				warn("%s: attached as a single XDP program, not through the "
				     "libxdp dispatcher%s; other XDP programs cannot be added to "
				     "this interface", opts.ports[i], opts.no_dispatcher ?
				     " (--no-dispatcher)" : " (the kernel or driver refused it)");
			else
				info("%s: attached in %s mode through the dispatcher (%d program(s))",
				     opts.ports[i], mode_str(got),
				     xdp_multiprog__program_count(mp));
			xdp_multiprog__close(mp);
		}
	}
	if (stop)
		goto out;
	chmod_pins();
	info("classifier on %d port(s): candidates %u, threshold %llu, clock %s, maps in %s",
	     opts.nports, opts.candidates, (unsigned long long)opts.threshold,
	     opts.precise_clock ? "precise" : "coarse", opts.pin_dir);

	if (opts.flowmaker) {
		e = fmd_init(&fmd, &opts, ifindex, bpf_map__fd(skel->maps.connections),
			     bpf_map__fd(skel->maps.fmstats), bpf_map__fd(skel->maps.candidates),
			     fm_log);
		if (e) {
			err("cannot start the flow maker: %s", strerror(-e));
			goto out;
		}
		fmd.cache_fd = bpf_map__fd(skel->maps.candcache);
		fmd.counters_fd = bpf_map__fd(skel->maps.counters);
		fmd.cache_gen_bump = cache_gen_bump;
		fm_on = 1;
		fmd_restore(&fmd, fmd_now());
		/* before the control socket and READY=1: whoever waits for
		 * them to send traffic does not wait for the warm-up too */
		fmd_warmup(&fmd);
		ctl_fd = open_ctl(opts.ctl_socket);
		info("flow maker: rules %s, hold %llu..%llu ms, connections %u, control %s",
		     opts.tc_skip_sw ? "skip_sw" : "in software too",
		     (unsigned long long)(opts.hold_min_ns / 1000000),
		     (unsigned long long)(opts.hold_max_ns / 1000000), opts.connections,
		     ctl_fd >= 0 ? opts.ctl_socket : "none");
	}

	rb = ring_buffer__new(bpf_map__fd(skel->maps.events), on_event, NULL, NULL);
	if (!rb) {
		err("cannot open the event ring: %s", strerror(errno));
		goto out;
	}
	/*
	 * Everything that can fail at start has run, with its errors on
	 * stderr: only now become a daemon, so that "npuflowd IFNAME" exits
	 * non-zero when it cannot attach and 0 once it is serving.
	 */
	if (!opts.foreground && daemonize(lock_fd))
		goto out;
	rc = serve(rb, ctl_fd);
out:
	if (stop && sigabbrev_np(stop))
		info("SIG%s: stopping", sigabbrev_np(stop));
	else if (stop)
		info("signal %d: stopping", (int)stop);
	notify("STOPPING=1");
	ring_buffer__free(rb);
	for (i = 0; i < opts.nports; i++) {
		if (!attached[i])
			continue;
		e = xdp_program__detach(prog, ifindex[i], mode, 0);
		if (e) {
			libxdp_strerror(e, ebuf, sizeof(ebuf));
			err("%s: detach failed: %s", opts.ports[i], ebuf);
			rc = 1;
		}
		/* nothing of ours may stay behind */
		if (detach_leftovers(ifindex[i], "after detach"))
			rc = 1;
		else
			info("%s: detached", opts.ports[i]);
	}
	xdp_program__close(prog);
	if (ctl_fd >= 0) {
		close(ctl_fd);
		unlink(opts.ctl_socket);
	}
	if (fm_on)
		fmd_fini(&fmd);
	cls = NULL;
	classify__destroy(skel);
	if (rc == 0)
		info("stopped; maps stay pinned in %s", opts.pin_dir);
	close(lock_fd);
	return rc;
}
