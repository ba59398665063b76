// SPDX-License-Identifier: GPL-2.0
/*
 * npuflowd - loads the npuflow XDP classifier, attaches it to the given
 * ports through libxdp (multi-program dispatcher), pins its maps under
 * /sys/fs/bpf/npuflow/ and consumes its ring buffer.  See npuflowd --help.
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
#include <sys/stat.h>
#include <sys/vfs.h>
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

static void vlogmsg(enum npuflowd_log lvl, const char *fmt, va_list ap)
{
	static const int prio[] = { LOG_ERR, LOG_WARNING, LOG_INFO, LOG_DEBUG };

	if (lvl > opts.log_level)
		return;
	if (use_syslog) {
		vsyslog(prio[lvl], fmt, ap);
	} else {
		fprintf(stderr, "npuflowd: %s: ", npuflowd_log_name(lvl));
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
	}
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
	(void)sig;
	stop = 1;
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

static int check_bpffs(const char *dir)
{
	struct statfs st;
	char parent[256];
	char *slash;

	snprintf(parent, sizeof(parent), "%s", dir);
	slash = strrchr(parent, '/');
	if (slash && slash != parent)
		*slash = '\0';
	if (statfs(parent, &st) || st.f_type != BPF_FS_MAGIC) {
		err("%s is not on a BPF file system: mount -t bpf bpf %s", dir, parent);
		return -1;
	}
	return 0;
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

static int flush(void)
{
	struct if_nameindex *ifs = if_nameindex(), *i;
	char path[512];
	size_t k;
	int rc = 0;

	for (i = ifs; i && i->if_index; i++)
		detach_leftovers(i->if_index, "--flush");
	if (fmd_flush_rules(fm_log))
		warn("cannot remove flow rules: %s", strerror(errno));
	if (ifs)
		if_freenameindex(ifs);
	for (k = 0; k < sizeof(pinned_maps) / sizeof(pinned_maps[0]); k++) {
		snprintf(path, sizeof(path), "%s/%s", opts.pin_dir, pinned_maps[k]);
		if (!unlink(path)) {
			info("removed %s", path);
		} else if (errno != ENOENT) {
			err("cannot remove %s: %s", path, strerror(errno));
			rc = 1;
		}
	}
	if (rmdir(opts.pin_dir) && errno != ENOENT) {
		err("cannot remove %s: %s (not empty?)", opts.pin_dir, strerror(errno));
		rc = 1;
	}
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

		snprintf(path, sizeof(path), "%s/%s", opts.pin_dir, pinned_maps[k]);
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
			err("pinned map %s does not match (type %u key %u value %u entries %u; "
			    "want type %u key %u value %u entries %u): run npuflowd --flush, "
			    "or start with the old size", path, info.type, info.key_size,
			    info.value_size, info.max_entries, bpf_map__type(maps[k]),
			    bpf_map__key_size(maps[k]), bpf_map__value_size(maps[k]),
			    bpf_map__max_entries(maps[k]));
			return -1;
		}
		info("reusing pinned %s (%u entries)", path, info.max_entries);
	}
	return 0;
}

static void chmod_pins(void)
{
	char path[512];
	size_t k;

	for (k = 0; k < sizeof(pinned_maps) / sizeof(pinned_maps[0]); k++) {
		snprintf(path, sizeof(path), "%s/%s", opts.pin_dir, pinned_maps[k]);
		if (chmod(path, 0600))
			warn("chmod %s: %s", path, strerror(errno));
	}
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
	struct sigaction sa = { .sa_handler = on_signal };

	if (npuflowd_parse_args(argc, argv, &opts, msg, sizeof(msg))) {
		fprintf(stderr, "npuflowd: %s\n", msg);
		return 2;
	}
	if (opts.help) {
		fputs(npuflowd_usage, stdout);
		return 0;
	}
	libbpf_set_print(libbpf_print);
	libxdp_set_print(libxdp_print);
	mode = opts.mode == NPUFLOWD_MODE_SKB ? XDP_MODE_SKB : XDP_MODE_NATIVE;

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
	if (check_bpffs(opts.pin_dir))
		return 1;
	if (mkdir(opts.pin_dir, 0700) && errno != EEXIST) {
		err("mkdir %s: %s", opts.pin_dir, strerror(errno));
		return 1;
	}
	chmod(opts.pin_dir, 0700);

	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

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
		fmd.cache_gen_bump = cache_gen_bump;
		fm_on = 1;
		fmd_restore(&fmd, fmd_now());
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
	while (!stop) {
		struct pollfd pfd[3] = {
			{ .fd = ring_buffer__epoll_fd(rb), .events = POLLIN },
			{ .fd = fm_on ? fmd_ct_fd(&fmd) : -1, .events = POLLIN },
			{ .fd = ctl_fd, .events = POLLIN },
		};

		e = poll(pfd, 3, fm_on ? 50 : 500);
		if (e < 0 && errno != EINTR) {
			err("poll: %s", strerror(errno));
			goto out;
		}
		events_this_pass = 0;
		e = ring_buffer__consume(rb);
		if (e < 0 && e != -EINTR && e != -EAGAIN) {
			err("ring buffer: %s", strerror(-e));
			goto out;
		}
		if (!fm_on)
			continue;
		if (pfd[1].revents)
			fmd_ct_input(&fmd, fmd_now());
		if (pfd[2].revents)
			serve_ctl(ctl_fd);
		fmd_tick(&fmd, fmd_now());
	}
	rc = 0;
out:
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
