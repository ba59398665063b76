/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fmd.h - the flow maker inside npuflowd: carries out the policy core's
 * decisions (flowmaker.c) with conntrack (ctclient.c), rtnetlink lookups and
 * tc flower rules (nlsock.c, tcflower.c), and mirrors every connection into
 * the pinned `connections` map and the counters into `fmstats`.
 */
#ifndef _FMD_H
#define _FMD_H

#include <stdint.h>
#include "ctclient.h"
#include "flowmaker.h"
#include "../lib/npuflow_cache.h"
#include "nlsock.h"
#include "rtcache.h"
#include "xfrmdb.h"
#include "pppoetab.h"
#include "ctzones.h"
#include "fmd_walk.h"
#include "fmd_keepalive.h"
#include "npuflowd_opts.h"

/* fmd_log_fn's levels (npuflowd's --log-level: error, warn, info, debug) */
#define L_ERR	0
#define L_WARN	1
#define L_INFO	2
#define L_DBG	3

typedef void (*fmd_log_fn)(int level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

struct fmd_port {
	uint32_t ifindex;
	char name[16];
	uint8_t switch_id[32];
	int switch_id_len;
	int clsact;			/* clsact qdisc present (ours or found) */
	/* as egress: MAC, MTU and shaping, looked up at facts_gen/facts_ns (rtcache) */
	uint8_t mac[6];
	uint32_t mtu;
	int shaped;
	uint64_t facts_gen, facts_ns;
	/* the MTU at the last egress recheck, and whether it changed then */
	uint32_t mtu_checked;
	int mtu_changed;
};

/* The host's 802.1Q devices, for tagged directions (fmd_egress.c). */
#define FMD_VLANS_MAX	256
struct fmd_vlans {
	struct nls_vlan v[FMD_VLANS_MAX];
	uint8_t shaped[FMD_VLANS_MAX];	/* on a port, and its root qdisc shapes */
	int n, valid;
	uint64_t gen, at_ns;		/* rtcache generation and time of the dump */
};

/*
 * The connections looked up and due to be written (FM_A_WRITE): written
 * together (fmd_make.c, fmd_wq_flush()) at the end of a loop pass or when
 * FMD_WQ_MAX wait, so that a burst of makes costs a few sendmsgs, not three
 * round trips each.
 */
#define FMD_WQ_MAX	32
struct fmd_wq_item {
	uint32_t id, ct_id;		/* the entry, and its conntrack id when queued */
	uint64_t now;			/* the policy clock of its lookup */
	uint64_t lookup_ns;		/* its lookup's stages, for its "made" line */
	uint64_t ev_ns, ct_ns, eg_ns;
};

struct fmd_wq {
	struct fmd_wq_item it[FMD_WQ_MAX];
	int n;
	char *buf;			/* the batch's requests */
	size_t buflen;
	struct nlsock ctb;		/* NETLINK_NETFILTER for the be-liberal batch */
};

/* A lookup asked for in this loop pass, its conntrack query not yet sent. */
struct fmd_lq_item {
	uint32_t id;
	uint64_t now;			/* the policy clock when it was asked */
	uint64_t cross_ns;		/* its crossing frame's time */
};

/* The loop pass's lookups, their conntrack queries sent together (lq_flush). */
struct fmd_lq {
	struct fmd_lq_item it[FMD_WQ_MAX];
	int n;
};

struct fmd {
	struct fm fm;
	struct ctc ct;
	struct nlsock rt;		/* routes, neighbours, links */
	struct nlsock tc;		/* qdiscs and filters */
	struct nlsock mon;		/* rtnetlink announcements (invalidate rtc) */
	struct nlsock nft;		/* nftables' ruleset announcements */
	struct nlsock xfrm;		/* xfrm policy dumps */
	struct nlsock xmon;		/* xfrm policy announcements */
	struct fmd_wq wq;
	struct fmd_lq lq;
	struct xfrmdb xdb;		/* the out and fwd policies, reloaded when stale */
	int xfrm_stale;
	int fwd6;			/* net.ipv6.conf.all.forwarding, read with the ports' facts */
	int fwd6_fd;			/* its file, kept open (-1: not yet) */
	int fwd_fd;			/* the classifier's "forwarded" map, -1 if none */
	uint64_t ruleset_ns;		/* the last nftables ruleset change npuflowd saw */
	int gen_fd;			/* the classifier's "fmgen" map: the generation seen */
	struct ctzones zones;		/* conntrack zones other than 0 seen in use */
	int xfrm_unknown;		/* xfrm cannot be read: every connection is refused ipsec */
	uint64_t xfrm_retry_ns;		/* a failed load is tried again from then */
	struct rtc *rtc;		/* egress facts between connections */
	const struct npuflowd_opts *o;
	struct fmd_port ports[NPUFLOWD_MAX_PORTS];
	int nports;
	struct fmd_vlans vlans;
	struct pppoetab_pass pppoe;	/* the host's PPPoE sessions, read once a pass */
	uint64_t egress_pass;		/* passes of lookups (fmd_egress_pass()) */
	int rules_sel;			/* NLS_RULES_*, as of rtcache generation rules_gen */
	uint64_t rules_gen;
	int conn_fd, stats_fd, cand_fd;
	int cache_fd;			/* the classifier's candidate cache, -1 = none */
	int counters_fd;		/* its counters (EVENT_LOST: rescan), -1 = none */
	void *counters_buf;		/* every slot, every CPU */
	int ncpu;
	int counters_no_batch;		/* read a slot at a time (no batch lookup) */
	struct fmd_rescan rs;
	uint64_t events_seen;		/* ring events handed over (fmd_event()) */
	unsigned int announced;		/* 1 << FMD_MON_*: found readable by the loop */
	struct npuflow_fmstats stats_written;	/* the counters as last written */
	struct fmd_busy busy;
	void (*cache_gen_bump)(void);	/* bumps its npuflow_cache_gen, or NULL */
	struct npuflow_cache *cache;	/* what it held at this tick (read when needed) */
	size_t ncache;
	int cache_read;
	uint32_t tc_flags;
	fmd_log_fn log;
	uint64_t start_ns, next_tick_ns, next_keepalive_ns, next_sweep_ns;
	/* the last sweep's end and length; DESTROY events read since it */
	uint64_t sweep_end_ns, sweep_took_ns;
	uint32_t ct_burst;
	/* rtnetlink announced a change (or egress_idle_ns passed with facts
	 * it does not announce moved): made connections' egress is checked
	 * again, not before next_recheck_ns */
	int egress_dirty;
	uint64_t next_recheck_ns, egress_idle_ns;
	/* the ports' and 802.1Q devices' facts found changed when asked again
	 * (fmd_egress.c), and that count at the last recheck; the recheck's
	 * backstop, whatever moved */
	uint64_t facts_moved, facts_checked, recheck_all_ns;
	uint32_t tcp_timeout, udp_timeout;	/* conntrack's established/stream timeouts, s */
	int timeout_fd[2];		/* their sysctls, kept open (-1: not yet) */
	uint8_t *mark;			/* resync scratch, one per id */
	uint32_t *pending;		/* ids the timer made due */
	enum fm_action *pending_a;
	uint32_t npending;
	int ctl_fd;
	/* keepalive's time since npuflowd's last busy line (npuflowd.c): the
	 * tc dumps (hardware counters) and the conntrack timeout refreshes */
	uint64_t ka_ns, ka_dump_ns, ka_ct_ns, ka_runs, ka_refreshed;
	int ka_stretched;	/* keepalive paced slower than --keepalive-ms */
	int ka_no_batch;	/* the kernel updates the connections map a record at a time */
	uint32_t ka_classes;	/* FM_CLASS_* made, as of the last keepalive and since */
	uint64_t next_timeouts_ns;	/* conntrack's timeouts read again then */
	/* cumulative: makes (lookups and writes), the policy's timers and
	 * what they made due, the rescans, the conntrack sweeps, the egress
	 * rechecks, the waiting connections' walks */
	uint64_t make_ns, fmtick_ns, rescan_ns, sweep_ns, egress_ns, busy_ns;
	uint64_t ka_total_ns;	/* keepalive's, cumulative */
	struct fmd_ka_run ka;	/* keepalive's run (fmd_keepalive.c) */
	struct nlsock katc;	/* keepalive's dumps, read a step at a time */
	/* a conntrack sweep read in steps (fmd_ct.c): under way, its dump's
	 * number, its start, its next step, its steps' time so far */
	struct {
		int active;
		uint32_t seq;
		uint64_t start_ns, next_ns, spent_ns;
	} sw;
	struct nlsock swct;	/* the sweep's conntrack dumps, read a step at a time */
};

/**
 * fmd_init - set up the flow maker: its policy core with @o->fm as it is
 * (fm_init()), the netlink and conntrack sockets it works through, and
 * its ports, @o->ports
 * @d: the daemon's state
 * @o: npuflowd's options; @d keeps the pointer
 * @ifindex: the ports' ifindexes, in @o->ports' order
 * @conn_fd, @stats_fd, @cand_fd: the connections, fmstats and candidates maps
 * @log: where it says what fails
 *
 * Return: 0, or -errno (-ENOMEM also when fm_init() refuses the settings).
 */
int fmd_init(struct fmd *d, const struct npuflowd_opts *o, const int *ifindex,
	     int conn_fd, int stats_fd, int cand_fd, fmd_log_fn log);
void fmd_fini(struct fmd *d);
/* Rebuild the view after a restart: pinned map, conntrack, tc dump. */
int fmd_restore(struct fmd *d, uint64_t now);
/* The first connection's one-time work now (qdiscs, tc modules, the driver's
 * path, the lookups' dumps), logged. */
void fmd_warmup(struct fmd *d);
/* A ring-buffer event. */
void fmd_event(struct fmd *d, const struct npuflow_event *ev, uint64_t now);
/* Conntrack events readable. */
void fmd_ct_input(struct fmd *d, uint64_t now);
/* Closing TCP entries' events readable (fmd_ct_closing_fd()). */
void fmd_ct_closing_input(struct fmd *d, uint64_t now);
/* Timers (holds, retries, keepalive, stats mirror, the rescan after lost
 * threshold events); call often. */
void fmd_tick(struct fmd *d, uint64_t now);
/* Release one (id) or all (id == UINT32_MAX): how many were released. */
int fmd_release(struct fmd *d, uint32_t id, uint64_t now);
/*
 * fmd_takeback_all() - after a ruleset change (fmd_watch.c): every made,
 * held or waiting connection released as fmd_release() does (be-liberal,
 * rules out), then forgotten with its candidates re-armed: its next frames
 * raise a crossing, and it is made again once the host has forwarded both
 * its directions under the new ruleset (a connection the ruleset now drops
 * never is).  A connection an operator released stays released.
 * Return: how many were taken back.
 */
int fmd_takeback_all(struct fmd *d, uint64_t now);
/* A control-socket request ("release ID", "release all", "status"):
 * reply text into @out. */
void fmd_ctl(struct fmd *d, const char *req, char *out, size_t len, uint64_t now);
/* The fd to poll for conntrack events (-1 if none). */
static inline int fmd_ct_fd(const struct fmd *d)
{
	return d->ct.ev_fd;
}

/* The fd to poll for closing TCP entries' events (-1 if none). */
static inline int fmd_ct_closing_fd(const struct fmd *d)
{
	return d->ct.upd_fd;
}

/*
 * The announcements' sockets - rtnetlink's, xfrm's, nftables' - that the
 * loop polls with the others (fmd_mon_fd(): -1 for one not open), and
 * their readiness handed back (fmd_announced()): a pass reads them when
 * they have something, or when lookups are to be judged against the
 * latest, not every pass.
 */
enum { FMD_MON_RT, FMD_MON_XFRM, FMD_MON_NFT, FMD_MON_N };
int fmd_mon_fd(const struct fmd *d, int m);
void fmd_announced(struct fmd *d, int m);
/*
 * fmd_wait_ms() - how long the loop may wait for its fds at @now: a tick
 * (FMD_TICK_NS) while anything is under way or due (a candidate watched, a
 * lookup, a hold, a walk, a dump in steps, an egress recheck, events the
 * rescan has not looked after), up to FMD_QUIET_WAIT_NS when nothing is
 * (fm_quiet()), never past the next keepalive or sweep.  Milliseconds.
 */
int fmd_wait_ms(const struct fmd *d, uint64_t now);
uint64_t fmd_now(void);
/* The candidate of @k with what the classifier's per-CPU cache holds for it
 * (read once a tick): 0, or -1 if it is not there. */
int fmd_read_cand(struct fmd *d, const struct npuflow_key *k, struct npuflow_cand *v);
/* --flush: delete every npuflowd rule (our prios) on every interface. */
int fmd_flush_rules(fmd_log_fn log);

#endif
