// SPDX-License-Identifier: GPL-2.0
/*
 * fmd_ct.c - conntrack's side (fmd_int.h): a DESTROY or a TCP close takes
 * the connection out; a dump after lost events, and a periodic sweep, find
 * what went without one; and conntrack told to stop tracking the TCP
 * window of connections that leave the host (be-liberal, in batches), for
 * the writes (fmd_make.c) and the releases (fmd_release.c).
 */
#include <errno.h>
#include <string.h>
#include <netinet/in.h>
#include "fmd_int.h"
#include "fmd_keepalive.h"

/*
 * The periodic sweep, when anything holds a conntrack entry: one dump of
 * the table, which grows with it.  A made connection whose entry went
 * without a DESTROY would stay in hardware.  Every FMD_SWEEP_NS, stretched
 * by its cost (fm_pace_next_share()) up to a bound: FMD_SWEEP_MAX_NS while
 * DESTROY events can be lost (no reliable delivery) or after a mass
 * deletion (FMD_SWEEP_BURST of them since the last sweep: a conntrack -F, a
 * zone or a table emptied), FMD_SWEEP_QUIET_MAX_NS otherwise.  Reliable
 * delivery (ctc_reliable()) resends a DESTROY the socket could not take,
 * but some still never come after a flush, with no overrun reported (VM
 * test 65: 10 of 1,011 before it, 4 of 1,021 with it); entries that carry
 * no event cache (made while nf_conntrack_events was 0, or 2 with no
 * ctnetlink listener) send none at all.  Between mass deletions, with
 * reliable delivery, the sweep is a backstop at a hundredth of the loop.
 * A sweep whose dump took FMD_SWEEP_STEP_NS or more the last time is read
 * in steps of about that, a datagram of the dump at a time on a socket of
 * its own, each followed by its share's pause (fm_pace_gap()), as
 * keepalive's run; a connection looked up meanwhile is not swept this time
 * (its entry may be newer than the dump's place).
 */
#define FMD_SWEEP_MAX_NS	(60ull * 1000000000)
#define FMD_SWEEP_QUIET_MAX_NS	(300ull * 1000000000)
#define FMD_SWEEP_BURST		256
#define FMD_SWEEP_STEP_NS	(10ull * 1000000)

/* Whether the sweep takes a fiftieth of the loop up to FMD_SWEEP_MAX_NS
 * apart (DESTROYs can be lost, or a mass deletion came), not a hundredth
 * up to FMD_SWEEP_QUIET_MAX_NS apart. */
static int sweep_urgent(const struct fmd *d)
{
	return !d->ct.reliable || d->ct_burst >= FMD_SWEEP_BURST;
}

static uint32_t sweep_share(const struct fmd *d)
{
	return sweep_urgent(d) ? FM_PACE_SHARE : FM_PACE_SHARE_QUIET;
}

static uint64_t sweep_bound(const struct fmd *d)
{
	return sweep_urgent(d) ? FMD_SWEEP_MAX_NS : FMD_SWEEP_QUIET_MAX_NS;
}

/* The next sweep after one that ended at @end and took @took (ns). */
static uint64_t sweep_next(const struct fmd *d, uint64_t end, uint64_t took)
{
	return fm_pace_next_share(end, FMD_SWEEP_NS, took, sweep_bound(d), sweep_share(d));
}

/* A sweep that began at @from ended at @end, its dump's time @took: the
 * next one placed. */
static void sweep_ended(struct fmd *d, uint64_t from, uint64_t took, uint64_t end)
{
	d->sweep_end_ns = end;
	d->sweep_took_ns = took;
	d->next_sweep_ns = sweep_next(d, from, took);
}

void fmd_takeout(struct fmd *d, uint32_t id, enum fm_action a)
{
	struct fm_entry *e = fm_get(&d->fm, id);

	if (!e)
		return;
	if (a == FM_A_TAKEOUT) {
		fmd_hw_delete(d, e);
		d->log(L_INFO, "connection %u taken out (conntrack dropped it)", id);
	}
	fm_forget(&d->fm, id);
	fmd_sync_id(d, id);
}

/* The connection of a conntrack entry that went, or is @why: taken out. */
static void ct_gone(struct fmd *d, const struct ct_info *ci, const char *why)
{
	struct npuflow_key ctk;
	enum fm_action a;
	uint32_t id = 0;

	ctz_seen(&d->zones, ci->zone, fmd_now());
	fm_ct_key(&ctk, &ci->orig, ci->zone);
	a = fm_destroy(&d->fm, &ctk, fmd_now(), &id);
	if (d->o->log_level >= L_DBG) {
		char kb[160];

		fmd_fmt_key(&ci->orig, kb, sizeof(kb));
		d->log(L_DBG, "conntrack %s %u: %s: %s", why, ci->id, kb, fm_action_name(a));
	}
	if (a == FM_A_TAKEOUT || a == FM_A_FORGET)
		fmd_takeout(d, id, a);
}

void fmd_ct_destroyed(void *ctx, const struct ct_info *ci)
{
	struct fmd *d = ctx;

	d->fm.stat[NPUFLOW_FM_CT_DESTROYS]++;
	ct_gone(d, ci, "destroy");
	/* a mass deletion: the next sweep as soon as its pace allows, once
	 * its DESTROYs are read (FMD_SWEEP_NS from now) */
	if (++d->ct_burst == FMD_SWEEP_BURST) {
		uint64_t next = sweep_next(d, d->sweep_end_ns, d->sweep_took_ns);
		uint64_t settled = fmd_now() + FMD_SWEEP_NS;

		if (next < settled)
			next = settled;
		if (next < d->next_sweep_ns)
			d->next_sweep_ns = next;
	}
}

/*
 * A TCP entry left ESTABLISHED (a FIN or RST went through the host): its
 * connection goes back to the host now, so that the last frames of the
 * close cross conntrack and keepalive never sets an ESTABLISHED timeout on
 * a closing entry (which would keep a TIME_WAIT entry for days).
 */
void fmd_ct_closing(void *ctx, const struct ct_info *ci)
{
	ct_gone(ctx, ci, "closing");
}

/*
 * A dumped entry: the connection made for it (if any) stays, unless
 * closing.  One restored from the pinned records and never refreshed since
 * takes the timeout the entry has left (fmd_keepalive_restored()): not
 * every restored connection refreshed at the first keepalive.
 */
static void mark_cb(void *ctx, const struct ct_info *ci)
{
	struct fmd *d = ctx;
	struct fm_entry *e;
	uint64_t now = fmd_now();

	ctz_seen(&d->zones, ci->zone, now);
	if (ctc_tcp_closing(ci))
		return;
	e = fm_find_ct(&d->fm, &ci->orig, &ci->reply, ci->zone, ci->id);
	if (!e)
		return;
	d->mark[e - d->fm.e] = 1;
	fmd_keepalive_restored(d, e, ci->timeout, now);
}

/* A stepped sweep given up (a resync's dump takes its place): its socket
 * made anew, the rest of its dump dropped with the old one unread. */
static void sweep_abort(struct fmd *d)
{
	if (!d->sw.active)
		return;
	fmd_nls_reset(d, &d->swct, NETLINK_NETFILTER);
	d->sw.active = 0;
}

/* The connections with a conntrack entry that the dump did not mark,
 * taken out: how many. */
static int sweep_unmarked(struct fmd *d)
{
	uint32_t id;
	int n = 0;

	for (id = 0; id < fm_id_end(&d->fm); id++) {
		struct fm_entry *e = &d->fm.e[id];

		if (e->rec.state == NPUFLOW_CS_FREE || !e->has_ct || d->mark[id])
			continue;
		fmd_takeout(d, id, e->rec.flags & (NPUFLOW_CONN_F_HW0 | NPUFLOW_CONN_F_HW1) ?
			FM_A_TAKEOUT : FM_A_FORGET);
		n++;
	}
	return n;
}

int fmd_ct_sweep(struct fmd *d)
{
	sweep_abort(d);
	memset(d->mark, 0, fm_id_end(&d->fm));	/* mark_cb marks ids in use */
	if (ctc_dump(&d->ct, mark_cb, d)) {
		d->log(L_WARN, "conntrack dump failed: %s", strerror(errno));
		return -1;
	}
	return sweep_unmarked(d);
}

void fmd_ct_looked_up(struct fmd *d, uint32_t id)
{
	if (d->sw.active && id < d->fm.cfg.max_conns)
		d->mark[id] = 1;
}

/* After lost events (ENOBUFS). */
static void resync(struct fmd *d)
{
	int n = fmd_ct_sweep(d);

	if (n < 0)
		return;
	d->fm.stat[NPUFLOW_FM_CT_RESYNC]++;
	d->log(L_WARN, "conntrack events lost: resynced by dump, %d taken out", n);
}

/* Whether any connection holds a conntrack entry: a sweep has work. */
static int any_ct(const struct fmd *d)
{
	uint32_t id;

	for (id = 0; id < fm_id_end(&d->fm); id++)
		if (d->fm.e[id].rec.state != NPUFLOW_CS_FREE && d->fm.e[id].has_ct)
			return 1;
	return 0;
}

static void swept(struct fmd *d, int n)
{
	if (n <= 0)
		return;
	d->fm.stat[NPUFLOW_FM_CT_SWEPT] += n;
	d->log(L_WARN, "%d connections whose conntrack entry went without a DESTROY event: taken out", n);
}

static void sweep(struct fmd *d)
{
	if (any_ct(d))
		swept(d, fmd_ct_sweep(d));
}

void fmd_ct_input(struct fmd *d, uint64_t now)
{
	(void)now;
	if (ctc_events(&d->ct) == -ENOBUFS)
		resync(d);
}

void fmd_ct_closing_input(struct fmd *d, uint64_t now)
{
	(void)now;
	if (ctc_closing_events(&d->ct) == -ENOBUFS)
		resync(d);
}

/* --- a sweep in steps ----------------------------------------------------- */

static int sweep_msg(const struct nlmsghdr *nlh, void *data)
{
	struct ct_info ci;

	if (!ctc_parse(nlh, &ci))
		mark_cb(data, &ci);
	return MNL_CB_OK;
}

/* The stepped sweep's dump asked: 0, or -errno (the sweep goes in one go). */
static int sweep_begin(struct fmd *d, uint64_t now)
{
	char buf[64] __attribute__((aligned(8)));
	size_t n;

	d->sw.seq = nls_seq(&d->swct);
	n = ctc_build_dump(buf, sizeof(buf), d->sw.seq);
	if (!n || nls_send(&d->swct, buf, n))
		return -EIO;
	memset(d->mark, 0, fm_id_end(&d->fm));
	d->sw.active = 1;
	d->sw.start_ns = now;
	d->sw.spent_ns = 0;
	return 0;
}

/* The dump read for about FMD_SWEEP_STEP_NS; at its end, the sweep. */
static void sweep_step(struct fmd *d, uint64_t now)
{
	uint64_t t0 = fmd_now(), took, end;
	int rc;

	while ((rc = nls_read_step(&d->swct, d->sw.seq, sweep_msg, d)) == 1 &&
	       fmd_now() - t0 < FMD_SWEEP_STEP_NS)
		;
	if (rc == 1) {
		took = fmd_now() - t0;
		d->sweep_ns += took;
		d->sw.spent_ns += took;
		d->sw.next_ns = fm_sat_add(fmd_now(), fm_pace_gap(took, sweep_share(d),
							d->sweep_took_ns, sweep_bound(d)));
		return;
	}
	d->sw.active = 0;
	if (rc < 0) {
		d->log(L_WARN, "conntrack dump failed: %s", strerror(-rc));
		fmd_nls_reset(d, &d->swct, NETLINK_NETFILTER);	/* its dump may not have ended */
	}
	else
		swept(d, sweep_unmarked(d));
	end = fmd_now();
	d->sweep_ns += end - t0;
	d->sw.spent_ns += end - t0;
	sweep_ended(d, d->sw.start_ns, d->sw.spent_ns, end);
	if (d->next_sweep_ns < now)
		d->next_sweep_ns = now;
}

void fmd_sweep_tick(struct fmd *d, uint64_t now)
{
	uint64_t t0, end;

	if (d->sw.active) {
		if (now >= d->sw.next_ns)
			sweep_step(d, now);
		return;
	}
	if (now < d->next_sweep_ns)
		return;
	d->ct_burst = 0;
	if (d->swct.nl && d->sweep_took_ns >= FMD_SWEEP_STEP_NS && any_ct(d) &&
	    !sweep_begin(d, now)) {
		sweep_step(d, now);
		return;
	}
	t0 = fmd_now();
	sweep(d);
	end = fmd_now();
	d->sweep_ns += end - t0;
	sweep_ended(d, end, end - t0, end);
}

void fmd_ct_say_reliable(struct fmd *d)
{
	int rc = d->ct.reliable_err;

	if (!d->ct.ev)
		return;
	if (!rc)
		d->log(L_INFO, "conntrack DESTROY events delivered reliably");
	else
		d->log(L_WARN, "conntrack DESTROY events can be lost (reliable delivery: %s): "
		       "an overrun costs a dump of conntrack", strerror(-rc));
}

/*
 * As nft_flow_offload does, before the write: conntrack stops seeing the
 * stream, so its TCP window tracking is relaxed first.  Relaxed after it,
 * an ACK the host still took in the moment the rules landed acknowledged
 * data conntrack never saw: invalid, so not translated back - with
 * masquerade it reached the host's own address and the host's stack reset
 * the connection.  The host also takes the stream back later (give-back,
 * hold, takeout, npuflowd gone) without invalid-state drops.  One sendmsg
 * for the batch's TCP connections; the kernel applies each request before
 * it reads the next, and all before the rules are sent.
 */
void fmd_liberal_many(struct fmd *d, const uint32_t *ids, int n)
{
	struct fmd_wq *q = &d->wq;
	int rcs[FMD_WQ_MAX], i, k = 0;
	uint32_t seq0 = 0, who[FMD_WQ_MAX];
	size_t off = 0, m;

	for (i = 0; i < n && i < FMD_WQ_MAX; i++) {
		const struct fm_entry *e = &d->fm.e[ids[i]];
		int rc;

		if (e->rec.key[0].proto != IPPROTO_TCP)
			continue;
		m = q->ctb.nl ? ctc_build_be_liberal(q->buf + off, q->buflen - off, &e->rec.key[0],
						     e->rec.zone, nls_batch_seq(&q->ctb)) : 0;
		/* no batch socket, or no room: alone */
		if (!nls_batch_take(&q->ctb, m, &seq0, &k, &off)) {
			rc = ctc_be_liberal(&d->ct, &e->rec.key[0], e->rec.zone, 1);
			if (rc)
				d->log(L_WARN, "connection %u: be-liberal failed: %s", ids[i],
				       strerror(-rc));
			continue;
		}
		who[k - 1] = ids[i];
	}
	if (!k)
		return;
	nls_batch(&q->ctb, q->buf, off, seq0, rcs, k);
	for (i = 0; i < k; i++)
		if (rcs[i])
			d->log(L_WARN, "connection %u: be-liberal failed: %s", who[i],
			       strerror(rcs[i] > 0 ? EIO : -rcs[i]));
}
