// SPDX-License-Identifier: GPL-2.0
/*
 * fmd.c - the flow maker inside npuflowd (see fmd.h).  Single-threaded: the
 * main loop calls into it (fmd.h) for ring-buffer events, conntrack events,
 * control requests and timers; the policy core decides, the fmd*.c files do
 * (fmd_int.h lists them).  This one: the timers, restore and setup; it
 * calls the others, and none of them calls it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "fmd_int.h"
#include "fmd_egress.h"
#include "fmd_keepalive.h"
#include "fmd_walk.h"
#include "tcflower.h"

#define FMD_YIELD_NS	(20ull * 1000000)
/*
 * Egress facts (a port's MAC, MTU and shaping, the 802.1Q devices) serve at
 * most this long between rtnetlink's announcements: the bound on what it
 * does not announce to the monitor (a qdisc added to an egress port is
 * seen within it; the idle recheck then walks the made connections,
 * fmd_watch.c).
 */
#define FMD_EGRESS_MAX_AGE_NS	(1000ull * 1000000)
/*
 * Routes and next hops serve at most this long: every change of theirs is
 * announced (routes, rules, links, neighbours; an overrun monitor counts as
 * a change) and makes them stale at once, so the age only bounds what a
 * connection between two hosts that talked a while ago asks again.  With
 * the 1-s bound the first connection after start asked its four lookups
 * again (5.5-5.7 ms under TCG against 0.3 cached): the warm-up's had aged.
 */
#define FMD_ROUTE_MAX_AGE_NS	(30000ull * 1000000)
/* --- timers ---------------------------------------------------------------- */

static void tick_cb(void *ctx, enum fm_action a, uint32_t id)
{
	struct fmd *d = ctx;
	struct fm_entry *e = &d->fm.e[id];

	switch (a) {
	case FM_A_REARM:
		/* a watched candidate expired: let it raise an event again */
		fmd_rearm(d, e);
		break;
	case FM_A_RECHECK:
		break;		/* after the tick: fm_recheck with the candidate's counts */
	case FM_A_WATCH: {
		struct npuflow_cand v;

		/* re-read the candidate: it may have reached the byte threshold */
		if (!fmd_read_cand(d, &e->rec.key[0], &v) &&
		    v.bytes != e->rec.cand_bytes) {
			if (d->npending < d->fm.cfg.max_conns) {
				d->pending_a[d->npending] = FM_A_WATCH;
				d->pending[d->npending++] = id;
			}
		}
		return;
	}
	default:
		break;
	}
	if (d->npending < d->fm.cfg.max_conns) {
		d->pending_a[d->npending] = a;
		d->pending[d->npending++] = id;
	}
}

/*
 * One pass of the upkeep (keepalive, the sweep, the egress recheck), then,
 * if it held the loop FMD_YIELD_NS or more (a full table's dumps take
 * seconds under TCG), the nftables ruleset read again: a change waits for
 * the pass under way, not for every pass that falls due in the same tick
 * (after a restart, all of them).
 */
static void upkeep(struct fmd *d, uint64_t now, void (*pass)(struct fmd *, uint64_t))
{
	uint64_t t0 = fmd_now();

	pass(d, now);
	if (fmd_now() - t0 >= FMD_YIELD_NS)
		fmd_ruleset_poll(d, now);
}

/* --- the announcements and the loop's wait ---------------------------------- */

int fmd_mon_fd(const struct fmd *d, int m)
{
	const struct nlsock *s = m == FMD_MON_RT ? &d->mon : m == FMD_MON_XFRM ? &d->xmon :
				 m == FMD_MON_NFT ? &d->nft : NULL;

	return s && s->nl ? mnl_socket_get_fd(s->nl) : -1;
}

void fmd_announced(struct fmd *d, int m)
{
	if (m >= 0 && m < FMD_MON_N)
		d->announced |= 1u << m;
}

/* Whether the pass reads the announcements of @mask: some came, or this
 * pass's lookups are judged against the latest; no longer pending then. */
static int announcements_due(struct fmd *d, unsigned int mask)
{
	int due = (d->announced & mask) || d->lq.n || d->wq.n;

	d->announced &= ~mask;
	return due;
}

/*
 * A quiet loop waits at most this long (a keepalive or sweep due sooner
 * shortens it): fd events still wake it at once.  What else a quiet loop
 * does comes once a second at most (the counters written, conntrack's
 * timeouts read) or every few (the idle egress recheck).
 */
#define FMD_QUIET_WAIT_NS	(1000ull * 1000000)

/* Whether anything is under way or due within a tick (fmd_wait_ms()). */
static int loop_busy(const struct fmd *d)
{
	return !fm_quiet(&d->fm) || d->lq.n || d->wq.n || d->announced || d->egress_dirty ||
	       d->rs.active || d->busy.active || d->sw.active || d->ka.port >= 0 ||
	       (d->cand_fd >= 0 && (!d->rs.looked || d->rs.events_at != d->events_seen));
}

int fmd_wait_ms(const struct fmd *d, uint64_t now)
{
	uint64_t w = FMD_QUIET_WAIT_NS;

	if (loop_busy(d))
		return FMD_TICK_NS / 1000000;
	if (d->next_keepalive_ns < now + w)
		w = d->next_keepalive_ns > now ? d->next_keepalive_ns - now : 0;
	if (d->next_sweep_ns < now + w)
		w = d->next_sweep_ns > now ? d->next_sweep_ns - now : 0;
	return w < FMD_TICK_NS ? FMD_TICK_NS / 1000000 : w / 1000000;
}

void fmd_tick(struct fmd *d, uint64_t now)
{
	uint64_t t0;
	uint32_t i;

	/* before any lookup is judged (prove_forwarded) */
	if (announcements_due(d, 1u << FMD_MON_NFT))
		fmd_ruleset_poll(d, now);
	fmd_lq_flush(d);		/* the pass's lookups */
	fmd_wq_flush(d);		/* and makes */
	if (now < d->next_tick_ns)
		return;
	d->next_tick_ns = now + FMD_TICK_NS;
	d->npending = 0;
	d->cache_read = 0;
	t0 = fmd_now();
	fm_tick(&d->fm, now, tick_cb, d);
	for (i = 0; i < d->npending; i++) {
		uint32_t id = d->pending[i];
		struct fm_entry *e = &d->fm.e[id];

		switch (d->pending_a[i]) {
		case FM_A_RECHECK: {
			struct npuflow_cand v;
			enum fm_action r;

			if (fmd_read_cand(d, &e->rec.key[0], &v))
				memset(&v, 0, sizeof(v));
			r = fm_recheck(&d->fm, id, v.frames, v.bytes, now);
			if (r == FM_A_LOOKUP) {
				fmd_lookup(d, id, now, v.last_ns);
			} else if (r == FM_A_FORGET) {
				fmd_rearm(d, e);
				fm_forget(&d->fm, id);
				fmd_sync_id(d, id);
			}
			break;
		}
		case FM_A_LOOKUP:
			fmd_lookup(d, id, now, 0);
			break;
		case FM_A_WATCH: {
			struct npuflow_cand v;
			uint32_t nid;

			if (e->rec.state == NPUFLOW_CS_PENDING &&
			    !fmd_read_cand(d, &e->rec.key[0], &v) &&
			    fm_candidate(&d->fm, &e->rec.key[0], v.frames, v.bytes, v.reason,
					 v.last_ns, now, &nid) == FM_A_LOOKUP)
				fmd_lookup(d, nid, now, v.last_ns);
			else
				fmd_sync_id(d, id);
			break;
		}
		default:
			fmd_sync_id(d, id);
			break;
		}
	}
	d->fmtick_ns += fmd_now() - t0;
	upkeep(d, now, fmd_keepalive_tick);
	upkeep(d, now, fmd_sweep_tick);
	if (announcements_due(d, 1u << FMD_MON_RT | 1u << FMD_MON_XFRM))
		fmd_monitor_poll(d);
	upkeep(d, now, fmd_recheck_made);
	/* the next connection's shared facts, while one is in prospect: with
	 * only made connections the idle recheck asks them (fmd_watch.c) */
	if (!fm_quiet(&d->fm) || d->lq.n || d->wq.n)
		fmd_egress_keep(d, now);
	t0 = fmd_now();
	fmd_rescan(d, now);
	d->rescan_ns += fmd_now() - t0;
	fmd_busy_walk(d, now);
	fmd_lq_flush(d);
	fmd_wq_flush(d);		/* the timers' and the rescan's */
	fmd_write_stats(d, now);
}

/* --- restart ------------------------------------------------------------------ */

#define FMD_RESTORE_BATCH	1024

/* One pinned record: restored, or (transient or bad) its rules and the
 * record gone (a bucket the batch read already: its walk goes on). */
static void restore_one(struct fmd *d, uint32_t id, const struct npuflow_conn *rec)
{
	if (!fm_restore(&d->fm, id, rec))
		return;
	if (rec->flags & NPUFLOW_CONN_F_HW0)
		fmd_hw_del_dir(d, rec, 0);
	if (rec->flags & NPUFLOW_CONN_F_HW1)
		fmd_hw_del_dir(d, rec, 1);
	bpf_map_delete_elem(d->conn_fd, &id);
}

/* The pinned records, FMD_RESTORE_BATCH a bpf_map_lookup_batch(): 0 or -1. */
static int restore_records(struct fmd *d)
{
	DECLARE_LIBBPF_OPTS(bpf_map_batch_opts, opts);
	struct npuflow_conn *recs = malloc(FMD_RESTORE_BATCH * sizeof(*recs));
	uint32_t keys[FMD_RESTORE_BATCH], token = 0, count, i;
	int first = 1, rc;

	if (!recs)
		return -1;
	do {
		count = FMD_RESTORE_BATCH;
		rc = bpf_map_lookup_batch(d->conn_fd, first ? NULL : &token, &token, keys, recs,
					  &count, &opts);
		if (rc && errno != ENOENT) {
			d->log(L_ERR, "connections map: batch read: %s", strerror(errno));
			free(recs);
			return -1;
		}
		first = 0;
		for (i = 0; i < count; i++)
			restore_one(d, keys[i], &recs[i]);
	} while (!rc);
	free(recs);
	return 0;
}

int fmd_restore(struct fmd *d, uint64_t now)
{
	uint32_t i, kept = 0, gone, fixed = 0;
	uint8_t *present;
	int rc;

	/* 0. the counters go on from where they were */
	{
		struct npuflow_fmstats st;
		uint32_t zero = 0;

		if (!bpf_map_lookup_elem(d->stats_fd, &zero, &st)) {
			memcpy(d->fm.stat, st.stat, sizeof(d->fm.stat));
			memcpy(d->fm.refused, st.refused, sizeof(d->fm.refused));
			d->ka_total_ns = st.stat[NPUFLOW_FM_KEEPALIVE_US] * 1000;
			d->sweep_ns = st.stat[NPUFLOW_FM_SWEEP_US] * 1000;
			d->egress_ns = st.stat[NPUFLOW_FM_RECHECK_US] * 1000;
			d->rescan_ns = st.stat[NPUFLOW_FM_RESCAN_US] * 1000;
			d->fmtick_ns = st.stat[NPUFLOW_FM_TIMERS_US] * 1000;
		}
	}
	/* 1. the pinned records */
	if (restore_records(d))
		return -1;
	/* 2. conntrack, one dump: entries that went while we were down or
	 * whose tuple is another entry's now (another NAT, a new id); the
	 * zones in use (ctzones.h) */
	rc = fmd_ct_sweep(d);
	if (rc < 0)
		d->log(L_WARN, "conntrack dump failed: entries gone meanwhile go at the next sweep, "
		       "zones in use are learned from events");
	gone = rc > 0 ? rc : 0;
	/* 3. the hardware: every rule of ours belongs to a connection, once */
	present = calloc(d->fm.cfg.max_conns, 1);
	if (!present)
		return -1;
	fmd_rules_dump(d, present, now);
	for (i = 0; i < fm_id_end(&d->fm); i++) {
		struct fm_entry *e = &d->fm.e[i];
		int dir, bad = 0;

		if (e->rec.state == NPUFLOW_CS_FREE)
			continue;
		kept++;
		for (dir = 0; dir < 2; dir++) {
			uint16_t f = dir ? NPUFLOW_CONN_F_HW1 : NPUFLOW_CONN_F_HW0;

			if (!(e->rec.flags & f) || (present[i] & (1 << dir)))
				continue;
			/* recorded in hardware but missing: write it again */
			if (fmd_hw_write_dir(d, e, dir))
				bad = 1;
			else
				fixed++;
		}
		if (bad) {
			fmd_hw_delete(d, e);
			fm_forget(&d->fm, i);
			kept--;
		}
		fmd_sync_id(d, i);
	}
	free(present);
	d->log(L_INFO, "restored %u connection(s) (%u gone from conntrack, %u rule(s) "
	       "rewritten, %llu orphan rule(s) deleted)", kept, gone, fixed,
	       (unsigned long long)d->fm.stat[NPUFLOW_FM_HW_ORPHANS]);
	fmd_ruleset_gen_check(d, now);
	fmd_write_stats(d, now);
	return 0;
}

/* --- setup ---------------------------------------------------------------------- */

/*
 * The IPsec policies (xfrmdb).  A kernel without xfrm (no NETLINK_XFRM)
 * transforms nothing; one whose policies cannot be watched has every
 * connection refused (ipsec); a failed first load is tried again by
 * fmd_ipsec(), connections refused meanwhile.
 */
static void fmd_xfrm_open(struct fmd *d)
{
	if (nls_open_bus(&d->xfrm, NETLINK_XFRM)) {
		d->xfrm_unknown = errno != EPROTONOSUPPORT;
		if (d->xfrm_unknown)
			d->log(L_WARN, "cannot open xfrm netlink (%s): every connection is "
			       "refused (ipsec)", strerror(errno));
		nls_close(&d->xfrm);
		return;
	}
	if (nls_xfrm_monitor_open(&d->xmon)) {
		d->log(L_WARN, "cannot watch xfrm's policies (%s): every connection is "
		       "refused (ipsec)", strerror(errno));
		d->xfrm_unknown = 1;
		nls_close(&d->xfrm);
		nls_close(&d->xmon);
		return;
	}
	if (xfrmdb_load(&d->xdb, &d->xfrm))
		d->log(L_WARN, "cannot read xfrm's policies (%s): connections are refused "
		       "(ipsec) until they can be read", strerror(errno));
}

int fmd_init(struct fmd *d, const struct npuflowd_opts *o, const int *ifindex,
	     int conn_fd, int stats_fd, int cand_fd, fmd_log_fn log)
{
	int i, rc;

	memset(d, 0, sizeof(*d));
	d->o = o;
	d->log = log;
	d->conn_fd = conn_fd;
	d->stats_fd = stats_fd;
	d->cand_fd = cand_fd;
	d->cache_fd = -1;
	d->fwd_fd = -1;
	d->gen_fd = -1;
	d->counters_fd = -1;
	d->ctl_fd = -1;
	d->timeout_fd[0] = d->timeout_fd[1] = -1;
	d->fwd6_fd = -1;
	d->ct.ev_fd = d->ct.upd_fd = -1;
	d->tc_flags = o->tc_skip_sw ? TCA_CLS_FLAGS_SKIP_SW : 0;
	d->start_ns = fmd_now();
	if (fm_init(&d->fm, &o->fm))
		return -ENOMEM;
	d->mark = calloc(d->fm.cfg.max_conns, 1);
	d->pending = calloc(d->fm.cfg.max_conns, sizeof(*d->pending));
	d->pending_a = calloc(d->fm.cfg.max_conns, sizeof(*d->pending_a));
	if (!d->mark || !d->pending || !d->pending_a)
		return -ENOMEM;
	if (nls_open(&d->rt) || nls_open(&d->tc)) {
		log(L_ERR, "cannot open rtnetlink: %s", strerror(errno));
		return -errno;
	}
	d->rtc = malloc(sizeof(*d->rtc));
	/* room for tcfl_build_add's 2 kB per rule of a full batch */
	d->wq.buflen = 2 * FMD_WQ_MAX * 2048;
	d->wq.buf = aligned_alloc(8, d->wq.buflen);
	if (!d->rtc || !d->wq.buf)
		return -ENOMEM;
	if (nls_open_bus(&d->wq.ctb, NETLINK_NETFILTER))
		log(L_WARN, "cannot open nfnetlink (%s): be-liberal one connection at a time",
		    strerror(errno));
	/* without the monitor nothing is kept: every make asks rtnetlink */
	if (nls_monitor_open(&d->mon)) {
		log(L_WARN, "cannot watch rtnetlink (%s): egress facts not cached",
		    strerror(errno));
		rtc_init(d->rtc, 0, 0);
	} else {
		rtc_init(d->rtc, FMD_EGRESS_MAX_AGE_NS, FMD_ROUTE_MAX_AGE_NS);
	}
	fmd_xfrm_open(d);
	if (nls_nft_monitor_open(&d->nft))
		log(L_WARN, "cannot watch nftables' ruleset (%s): made connections stay in "
		    "hardware when it changes", strerror(errno));
	rc = ctc_open(&d->ct, o->ct_rcvbuf, fmd_ct_destroyed, d);
	if (rc) {
		log(L_ERR, "cannot open conntrack netlink: %s", strerror(-rc));
		return rc;
	}
	if (d->ct.rcvbuf < o->ct_rcvbuf)
		log(L_WARN, "conntrack event buffer %u bytes, asked %u", d->ct.rcvbuf,
		    o->ct_rcvbuf);
	fmd_ct_say_reliable(d);
	if (nls_open_bus(&d->swct, NETLINK_NETFILTER))
		log(L_WARN, "cannot open the sweep's conntrack socket (%s): each sweep in one go",
		    strerror(errno));
	rc = o->ct_rcvbuf ? ctc_watch_closing(&d->ct, o->ct_rcvbuf, fmd_ct_closing) : 0;
	if (rc) {
		log(L_ERR, "cannot watch conntrack for closing TCP connections: %s",
		    strerror(-rc));
		return rc;
	}
	d->nports = o->nports;
	for (i = 0; i < o->nports; i++) {
		struct nls_link l;

		d->ports[i].ifindex = ifindex[i];
		snprintf(d->ports[i].name, sizeof(d->ports[i].name), "%s", o->ports[i]);
		if (!nls_link_get(&d->rt, ifindex[i], &l)) {
			memcpy(d->ports[i].switch_id, l.switch_id, sizeof(l.switch_id));
			d->ports[i].switch_id_len = l.switch_id_len;
		}
	}
	fmd_read_timeouts(d);
	fmd_keepalive_init(d);
	d->next_keepalive_ns = d->start_ns + o->keepalive_ns;
	d->next_sweep_ns = d->start_ns + FMD_SWEEP_NS;
	d->sweep_end_ns = d->start_ns;
	return 0;
}

void fmd_fini(struct fmd *d)
{
	if (d->fwd6_fd >= 0)
		close(d->fwd6_fd);
	d->fwd6_fd = -1;
	ctc_close(&d->ct);
	nls_close(&d->rt);
	nls_close(&d->tc);
	fmd_keepalive_fini(d);
	nls_close(&d->mon);
	nls_close(&d->nft);
	nls_close(&d->xfrm);
	nls_close(&d->xmon);
	nls_close(&d->wq.ctb);
	nls_close(&d->swct);
	free(d->wq.buf);
	xfrmdb_free(&d->xdb);
	free(d->rtc);
	fm_free(&d->fm);
	free(d->mark);
	free(d->pending);
	free(d->pending_a);
	free(d->cache);
	free(d->counters_buf);
	fmd_walks_free(d);
}

/* --flush: every rule of ours on every interface of this namespace. */
