// SPDX-License-Identifier: GPL-2.0
/*
 * npuflowd - loads the npuflow XDP classifier, attaches it to the given
 * ports through libxdp (multi-program dispatcher), pins its maps under
 * /sys/fs/bpf/npuflow/ (mounting bpffs there if none is), consumes its
 * ring buffer and runs the flow maker (fmd.c: conntrack, routes, tc flower
 * rules), as a service if asked (sd_notify).  See npuflowd --help.
 *
 * This file is the start, the loop and the stop, and holds the options; the
 * log, the process, the pin directory, the attachment, the egress watch and
 * the control socket have files of their own (npuflowd_*.h), which this
 * file drives and hands what they need of the options: none of them calls
 * back into it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <net/if.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>
#include "classify.skel.h"
#include "../lib/npuflow_fmt.h"
#include "npuflowd_ctl.h"
#include "npuflowd_fwd.h"
#include "npuflowd_log.h"
#include "npuflowd_loop.h"
#include "npuflowd_pins.h"
#include "npuflowd_svc.h"
#include "npuflowd_xdp.h"
#include "fmd.h"

static struct npuflowd_opts opts;

static struct fmd fmd;
static int fm_on;
static struct classify *cls;	/* for cache_gen_bump() */

/* What a start holds, released by stop_all(); @started once ready to serve. */
struct run {
	struct classify *skel;
	struct xdp_program *prog;
	struct ring_buffer *rb;
	enum xdp_attach_mode mode;
	int ifindex[NPUFLOWD_MAX_PORTS];
	int attached[NPUFLOWD_MAX_PORTS];
	int watched[NPUFLOWD_MAX_PORTS];	/* the egress watch attached */
	int lock_fd;
	int ctl_fd;
	int started;
};

/*
 * --flush: the pin directory is checked first (a refused one stops it all),
 * then every leftover classifier is detached, npuflowd's rules deleted and
 * the pins removed, and libxdp's state directory if nothing is left in it.
 * It mounts nothing: no BPF file system, nothing pinned.
 */
static int flush(void)
{
	struct if_nameindex *ifs, *i;
	int rc;

	if (pins_open(opts.pin_dir, 0))
		return 1;
	ifs = if_nameindex();
	for (i = ifs; i && i->if_index; i++) {
		detach_leftovers(i->if_index, "--flush");
		fwd_detach(i->if_index);
	}
	if (fmd_flush_rules(fm_log))
		warn("cannot remove flow rules: %s", strerror(errno));
	if (ifs)
		if_freenameindex(ifs);
	rc = pins_remove();
	xdp_state_remove_empty();
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
 * Events handled per pass over the ring: the flow maker's timers,
 * keepalive and statistics (npuctl status) run between passes even while
 * a burst of events keeps the ring non-empty.
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
	/* with the flow maker the crossings are its input (debug); without,
	 * the events are the product */
	if (fm_on)
		dbg("event %s", line);
	else
		info("event %s", line);
	if (fm_on)
		fmd_event(&fmd, data, fmd_now());
	/* this event is consumed; the rest wait for the next pass */
	return ++events_this_pass >= NPUFLOWD_EVENTS_PER_PASS ? -EAGAIN : 0;
}

/* --- the loop ---------------------------------------------------------------- */

/* Where the loop's time goes (us), logged every 5 s while it was busy. */
struct loop_stats {
	uint64_t t0, poll, ev, ct, tick, n, log_flush;
	uint64_t log0, make0, fmtick0, rescan0, sweep0, egress0, busy0;	/* the totals at t0 */
};

static void loop_stats_start(struct loop_stats *s, uint64_t now)
{
	*s = (struct loop_stats){ .t0 = now, .log0 = log_spent_us(), .make0 = fmd.make_ns,
				  .fmtick0 = fmd.fmtick_ns, .rescan0 = fmd.rescan_ns,
				  .sweep0 = fmd.sweep_ns, .egress0 = fmd.egress_ns,
				  .busy0 = fmd.busy_ns };
}

#define MS(us)	((unsigned long long)((us) / 1000))
#define NS_MS(ns)	((unsigned long long)((ns) / 1000000))

static void loop_stats_log(const struct loop_stats *s, uint64_t now)
{
	info("loop: %llu of %llu ms busy: %llu events %llu ms, conntrack events and control "
	     "%llu ms, timers %llu ms (keepalive %llu runs %llu ms: tc dumps %llu ms, %llu "
	     "conntrack refreshes %llu ms); poll %llu ms; of all: makes %llu ms (lookups and "
	     "writes), the log %llu ms, the policy's timers %llu ms, rescans %llu ms, conntrack "
	     "sweeps %llu ms, egress rechecks %llu ms, the waiting connections' walks %llu ms",
	     MS(now - s->t0 - s->poll), MS(now - s->t0), (unsigned long long)s->n, MS(s->ev),
	     MS(s->ct), MS(s->tick), (unsigned long long)fmd.ka_runs, NS_MS(fmd.ka_ns),
	     NS_MS(fmd.ka_dump_ns), (unsigned long long)fmd.ka_refreshed, NS_MS(fmd.ka_ct_ns),
	     MS(s->poll), NS_MS(fmd.make_ns - s->make0),
	     MS(log_spent_us() - s->log0 + s->log_flush), NS_MS(fmd.fmtick_ns - s->fmtick0),
	     NS_MS(fmd.rescan_ns - s->rescan0), NS_MS(fmd.sweep_ns - s->sweep0),
	     NS_MS(fmd.egress_ns - s->egress0), NS_MS(fmd.busy_ns - s->busy0));
}

/* Every 5 s: the busy line when the loop was busy over a fifth, then a new period. */
static void loop_stats_period(struct loop_stats *s)
{
	uint64_t now = mono_us();

	if (now - s->t0 < 5000000)
		return;
	if (s->poll * 5 < (now - s->t0) * 4)
		loop_stats_log(s, now);
	loop_stats_start(s, now);
	fmd.ka_ns = fmd.ka_dump_ns = fmd.ka_ct_ns = fmd.ka_runs = fmd.ka_refreshed = 0;
}

/* The loop's counters (npuflowd_loop.h) and their pinned map, -1 if none. */
static struct npuflow_loopstats lstats;
static int lstats_fd = -1;

/* The loop's counters into "loopstats" with the process's CPU, once a
 * second (loop_stats_due()). */
static void loop_stats_write(void)
{
	uint64_t now = mono_us() * 1000;
	struct rusage ru;
	__u32 zero = 0;

	if (lstats_fd < 0 || !loop_stats_due(&lstats, now))
		return;
	if (!getrusage(RUSAGE_SELF, &ru)) {
		lstats.cpu_user_us = ru.ru_utime.tv_sec * 1000000ull + ru.ru_utime.tv_usec;
		lstats.cpu_sys_us = ru.ru_stime.tv_sec * 1000000ull + ru.ru_stime.tv_usec;
	}
	lstats.updated_ns = now;
	bpf_map_update_elem(lstats_fd, &zero, &lstats, BPF_ANY);
}

/* The time since *@t (us) counted to @part, *@t moved on to now. */
static uint64_t lap(uint64_t *t, unsigned int part)
{
	uint64_t now = mono_us(), us = now - *t;

	loop_count_time(&lstats, part, us);
	*t = now;
	return us;
}

/* The flow maker's part of a pass: conntrack events, the control socket,
 * timers; its parts' time counted from *@t on. */
static void serve_flowmaker(struct pollfd *pfd, int ctl_fd, struct loop_stats *s, uint64_t *t)
{
	if (pfd[LOOP_FD_CT].revents)
		fmd_ct_input(&fmd, fmd_now());
	if (pfd[LOOP_FD_CT_CLOSING].revents)
		fmd_ct_closing_input(&fmd, fmd_now());
	s->ct += lap(t, NPUFLOW_LP_CONNTRACK);
	if (pfd[LOOP_FD_CTL].revents)
		ctl_serve(ctl_fd, &fmd);
	s->ct += lap(t, NPUFLOW_LP_CONTROL);
	fmd_tick(&fmd, fmd_now());
	s->tick += lap(t, NPUFLOW_LP_TIMERS);
}

/* A pass of the loop, waiting at most @wait_ms: 0, or 1 on an error (logged). */
static int serve_pass(struct ring_buffer *rb, int ctl_fd, int wait_ms, struct loop_stats *s)
{
	struct pollfd pfd[LOOP_FD_MAX] = {
		[LOOP_FD_RING] = { .fd = ring_buffer__epoll_fd(rb), .events = POLLIN },
		[LOOP_FD_CT] = { .fd = fm_on ? fmd_ct_fd(&fmd) : -1, .events = POLLIN },
		[LOOP_FD_CTL] = { .fd = ctl_fd, .events = POLLIN },
		[LOOP_FD_CT_CLOSING] = { .fd = fm_on ? fmd_ct_closing_fd(&fmd) : -1,
					 .events = POLLIN },
	};
	uint64_t t = mono_us();
	int e, m, perr;

	_Static_assert(LOOP_FD_MAX == LOOP_FD_MON + FMD_MON_N, "the monitors' fds");
	/* the flow maker's announcements wake the loop; read when they come */
	for (m = 0; m < FMD_MON_N; m++) {
		pfd[LOOP_FD_MON + m].fd = fm_on ? fmd_mon_fd(&fmd, m) : -1;
		pfd[LOOP_FD_MON + m].events = POLLIN;
	}
	log_flush();		/* the pass's lines, before the wait */
	s->log_flush += lap(&t, NPUFLOW_LP_LOG);
	e = poll(pfd, LOOP_FD_MAX, wait_ms);
	perr = errno;
	if (e < 0 && perr != EINTR) {
		log_set_batch(0);
		err("poll: %s", strerror(perr));
		return 1;
	}
	loop_count_wakes(&lstats, pfd, LOOP_FD_MAX, e, perr);
	for (m = 0; m < FMD_MON_N; m++)
		if (pfd[LOOP_FD_MON + m].revents)
			fmd_announced(&fmd, m);
	s->poll += lap(&t, NPUFLOW_LP_MAX);
	events_this_pass = 0;
	e = ring_buffer__consume(rb);
	if (e < 0 && e != -EINTR && e != -EAGAIN) {
		log_set_batch(0);
		err("ring buffer: %s", strerror(-e));
		return 1;
	}
	s->ev += lap(&t, NPUFLOW_LP_EVENTS);
	s->n += events_this_pass;
	if (fm_on) {
		serve_flowmaker(pfd, ctl_fd, s, &t);
		loop_stats_period(s);
	}
	loop_stats_write();
	lap(&t, NPUFLOW_LP_OTHER);
	return 0;
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
	struct loop_stats s;

	loop_stats_start(&s, mono_us());
	notify("READY=1");
	if (wd_us)
		info("watchdog: keepalive every %llu ms", (unsigned long long)(wd_us / 1000));
	log_set_batch(1);
	while (!stop)
		if (serve_pass(rb, ctl_fd, watchdog_ping(wd_us, &wd_last,
							 fm_on ? fmd_wait_ms(&fmd, fmd_now()) : 500), &s))
			return 1;
	log_set_batch(0);
	return 0;
}

/* --- start and stop ---------------------------------------------------------- */

static int resolve_ports(struct run *r)
{
	int i;

	for (i = 0; i < opts.nports; i++) {
		r->ifindex[i] = if_nametoindex(opts.ports[i]);
		if (!r->ifindex[i]) {
			err("no interface %s", opts.ports[i]);
			return -1;
		}
	}
	return 0;
}

/* Open the classifier, configure and size it, pin its maps, and make its XDP program. */
static int open_classifier(struct run *r)
{
	struct classify *skel = classify__open();

	if (!skel) {
		err("cannot open the classifier: %s", strerror(errno));
		return -1;
	}
	r->skel = cls = skel;
	skel->rodata->npuflow_threshold = opts.fm.thr_frames;
	skel->rodata->npuflow_revive_gap_ns = opts.revive_gap_ns;
	skel->rodata->npuflow_coarse_clock = !opts.precise_clock;
	if (bpf_map__set_max_entries(skel->maps.candidates, opts.candidates) ||
	    bpf_map__set_max_entries(skel->maps.forwarded, opts.candidates) ||
	    bpf_map__set_max_entries(skel->maps.connections, opts.fm.max_conns) ||
	    bpf_map__set_max_entries(skel->maps.events, opts.ringbuf)) {
		err("cannot size the maps");
		return -1;
	}
	if (pins_check(skel))
		return -1;
	r->prog = classifier_program(skel);
	return r->prog ? 0 : -1;
}

/* Attach to every port (the first attach loads the classifier); stops on a signal. */
static int attach_ports(struct run *r)
{
	int i, e;

	for (i = 0; i < opts.nports && !stop; i++) {
		e = port_attach(r->prog, r->ifindex[i], opts.ports[i], r->mode,
				opts.no_dispatcher);
		r->attached[i] = e != 0;
		if (e <= 0)
			return -1;
	}
	if (stop)
		return -1;
	pins_chmod();
	info("classifier on %d port(s): candidates %u, threshold %llu, clock %s, maps in %s",
	     opts.nports, opts.candidates, (unsigned long long)opts.fm.thr_frames,
	     opts.precise_clock ? "precise" : "coarse", opts.pin_dir);
	return 0;
}

/* The egress watch on every port: the flow maker's proof that the host forwards a connection. */
static int watch_forwarded(struct run *r)
{
	int fd = bpf_program__fd(r->skel->progs.npuflow_forwarded), i;

	for (i = 0; i < opts.nports; i++) {
		if (fwd_attach(fd, r->ifindex[i], opts.ports[i]))
			return -1;
		r->watched[i] = 1;
	}
	return 0;
}

static int start_flowmaker(struct run *r)
{
	struct classify *skel = r->skel;
	int e;

	e = fmd_init(&fmd, &opts, r->ifindex, bpf_map__fd(skel->maps.connections),
		     bpf_map__fd(skel->maps.fmstats), bpf_map__fd(skel->maps.candidates), fm_log);
	if (e) {
		err("cannot start the flow maker: %s", strerror(-e));
		return -1;
	}
	fmd.cache_fd = bpf_map__fd(skel->maps.candcache);
	fmd.fwd_fd = bpf_map__fd(skel->maps.forwarded);
	fmd.gen_fd = bpf_map__fd(skel->maps.fmgen);
	fmd.counters_fd = bpf_map__fd(skel->maps.counters);
	fmd.cache_gen_bump = cache_gen_bump;
	fm_on = 1;
	fmd_restore(&fmd, fmd_now());
	/* before the control socket and READY=1: whoever waits for
	 * them to send traffic does not wait for the warm-up too */
	fmd_warmup(&fmd);
	r->ctl_fd = ctl_open(opts.ctl_socket);
	info("flow maker: rules %s, hold %llu..%llu ms, connections %u, control %s",
	     opts.tc_skip_sw ? "skip_sw" : "in software too",
	     (unsigned long long)(opts.fm.hold_min_ns / 1000000),
	     (unsigned long long)(opts.fm.hold_max_ns / 1000000), opts.fm.max_conns,
	     r->ctl_fd >= 0 ? opts.ctl_socket : "none");
	return 0;
}

/* Everything that can fail at start, its errors on stderr: 0 when ready to serve. */
static int start(struct run *r)
{
	if (open_classifier(r) || attach_ports(r))
		return -1;
	if (opts.flowmaker && (watch_forwarded(r) || start_flowmaker(r)))
		return -1;
	r->rb = ring_buffer__new(bpf_map__fd(r->skel->maps.events), on_event, NULL, NULL);
	if (!r->rb) {
		err("cannot open the event ring: %s", strerror(errno));
		return -1;
	}
	lstats_fd = bpf_map__fd(r->skel->maps.loopstats);
	return 0;
}

/*
 * Detach, close and free what @r holds, and after a start that failed
 * remove what it made in the pin directory (pins_undo); @rc, or 1 when a
 * detach failed.
 */
static int stop_all(struct run *r, int rc)
{
	int i;

	log_stop_signal();
	notify("STOPPING=1");
	ring_buffer__free(r->rb);
	for (i = 0; i < opts.nports; i++) {
		if (r->attached[i] && port_detach(r->prog, r->ifindex[i], opts.ports[i], r->mode))
			rc = 1;
		if (r->watched[i] && fwd_detach(r->ifindex[i])) {
			err("%s: cannot detach the egress watch", opts.ports[i]);
			rc = 1;
		}
	}
	xdp_program__close(r->prog);
	if (r->ctl_fd >= 0) {
		close(r->ctl_fd);
		unlink(opts.ctl_socket);
	}
	if (fm_on)
		fmd_fini(&fmd);
	cls = NULL;
	lstats_fd = -1;
	classify__destroy(r->skel);
	if (!r->started)
		pins_undo();
	else if (rc == 0)
		info("stopped; maps stay pinned in %s", opts.pin_dir);
	close(r->lock_fd);
	return rc;
}

int main(int argc, char **argv)
{
	struct run r = { .ctl_fd = -1 };
	char msg[256];
	int rc = 1;

	if (npuflowd_parse_args(argc, argv, &opts, msg, sizeof(msg))) {
		fprintf(stderr, "npuflowd: %s\nTry 'npuflowd --help' for more information.\n", msg);
		return 2;
	}
	log_set_level(opts.log_level);
	if (opts.help)
		return npuflowd_show(opts.help);
	log_take_libs();
	if (check_privileges())
		return 1;
	r.mode = opts.mode == NPUFLOWD_MODE_SKB ? XDP_MODE_SKB : XDP_MODE_NATIVE;
	catch_stop_signals();
	r.lock_fd = take_lock(opts.lock_file);
	if (r.lock_fd < 0)
		return 1;
	if (opts.flush)
		return flush();
	if (resolve_ports(&r))
		return 1;
	/* pins_open before libxdp's first use: it reads $LIBXDP_BPFFS once */
	if (pins_open(opts.pin_dir, 1)) {
		pins_undo();
		return 1;
	}
	/*
	 * Only once everything that can fail at start has run become a
	 * daemon, so that "npuflowd IFNAME" exits non-zero when it cannot
	 * attach and 0 once it is serving.
	 */
	r.started = !start(&r) && (opts.foreground || !daemonize(r.lock_fd, opts.lock_file));
	if (r.started)
		rc = serve(r.rb, r.ctl_fd);
	return stop_all(&r, rc);
}
