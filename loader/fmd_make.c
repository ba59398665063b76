// SPDX-License-Identifier: GPL-2.0
/*
 * fmd_make.c - making a connection (fmd_int.h): a threshold event's
 * candidate looked up (conntrack, the egress of both directions), the
 * policy core's verdict carried out, and the writes (be-liberal, two rules)
 * sent in batches at the end of a pass.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <linux/pkt_cls.h>
#include "fmd_int.h"
#include "fmd_egress.h"
#include "fmd_keepalive.h"

/*
 * One make's lookup stages, ns, for its "made" line: the crossing frame to
 * the handling (event delivery: classifier clock, coarse by default), the
 * conntrack query, the egress facts (route, port, neighbour) of both
 * directions.
 */
static struct {
	uint64_t ev, ct, eg;
} mk;

/*
 * Made @e displaced for a busier connection (fm_evict.c): its rules out
 * before the busier one's are written, its candidates re-armed so that its
 * traffic while held back is seen.
 */
static void evicted(struct fmd *d, struct fm_entry *e, uint64_t now)
{
	uint32_t id = e - d->fm.e;

	fmd_hw_delete(d, e);
	fmd_rearm(d, e);
	d->log(L_INFO, "connection %u taken out for a busier one: held back %llu ms", id,
	       (unsigned long long)((e->rec.until_ns - now) / 1000000));
	fmd_sync_id(d, id);
}

static void do_write(struct fmd *d, uint32_t id, uint64_t now, uint64_t lookup_ns);

/* Direction @dir's egress into @l: 0, or FM_EG_*. */
static uint32_t lookup_egress(struct fmd *d, struct fm_lookup *l, int dir,
			      const uint8_t *out_daddr)
{
	struct fmd_egress eg;
	uint32_t rc = fmd_egress(d, &l->key[dir], &l->key[!dir], out_daddr, l->ct_mark, &eg);

	l->out_ifindex[dir] = eg.oif;
	l->out_port[dir] = eg.port;
	l->out_sid[dir] = eg.out_sid;
	l->out_vid[dir] = eg.out_vid;
	l->out_vid_inner[dir] = eg.out_vid_inner;
	memcpy(l->nexthop[dir], eg.nexthop, sizeof(l->nexthop[dir]));
	memcpy(l->dmac[dir], eg.dmac, 6);
	memcpy(l->smac[dir], eg.smac, 6);
	return fm_eg_session(rc, l->key[dir].pppoe_sid, eg.out_sid,
			     !!(d->tc_flags & TCA_CLS_FLAGS_SKIP_SW));
}

/*
 * A made connection of the conntrack entry @l found, whose direction @dir
 * arrives elsewhere than the frames of the candidate looked up show (the
 * reply routed back by another port or with another tag than the original
 * leaves by): that direction's rule never matches, and its frames stay on
 * the host.  It goes back to the host (counted rerouted), so that this
 * lookup makes the connection with the ingress the frames show.
 */
static void take_back_twin(struct fmd *d, uint32_t id, const struct fm_lookup *l, int dir,
			   uint64_t now)
{
	struct npuflow_key ctk;
	struct fm_entry *o;
	uint32_t oid;

	fm_ct_key(&ctk, &l->key[0], l->zone);
	o = fm_find(&d->fm, &ctk);
	if (!o || o == fm_get(&d->fm, id) || o->rec.ct_id != l->ct_id ||
	    !memcmp(&o->rec.key[dir], &l->key[dir], sizeof(l->key[dir])))
		return;
	oid = o - d->fm.e;
	if (fm_egress_moved(&d->fm, oid, now) != FM_A_TAKEOUT)
		return;
	fmd_hw_delete(d, o);
	d->log(L_INFO, "connection %u back to the host: its direction %d arrives on if%u vlan %u, "
	       "not if%u vlan %u", oid, dir, l->key[dir].ifindex, l->key[dir].vlan_outer,
	       o->rec.key[dir].ifindex, o->rec.key[dir].vlan_outer);
	fm_forget(&d->fm, oid);
	fmd_sync_id(d, oid);
}

/*
 * Whether the host forwarded a frame of each direction of @l out of its
 * egress port since the last ruleset change (the classifier's
 * npuflow_forwarded records them, keyed as they leave: the port, no tag,
 * NAT applied): a direction without one is marked FM_EG_UNPROVEN.  With no
 * record to read (no "forwarded" map), nothing is proven.
 */
static void prove_forwarded(const struct fmd *d, struct fm_lookup *l)
{
	struct npuflow_key out;
	uint64_t t;
	int dir;

	for (dir = 0; dir < 2; dir++) {
		tcfl_out_key(l->key, dir, &out);
		out.ifindex = l->out_port[dir];
		out.vlan_outer = out.vlan_inner = 0;
		out.pppoe_sid = 0;
		if (d->fwd_fd < 0 || bpf_map_lookup_elem(d->fwd_fd, &out, &t) ||
		    t < d->ruleset_ns)
			l->eg_flags[dir] |= FM_EG_UNPROVEN;
	}
}

/*
 * Whether the tuple of @ci, found in zone 0, is also in a zone other than 0
 * that conntrack has been seen to use (ctzones.h): one round trip per such
 * zone, none where zones are not in use.  1 also when more zones are in use
 * than npuflowd tells apart.
 */
static int zone_conflict(struct fmd *d, const struct ct_info *ci)
{
	uint16_t zones[CTZ_MAX];
	struct ct_info o;
	int n = ctz_active(&d->zones, fmd_now(), zones), i;

	if (n < 0)
		return 1;
	for (i = 0; i < n; i++)
		if (zones[i] != ci->zone && !ctc_get(&d->ct, &ci->orig, 0, zones[i], &o))
			return 1;
	return 0;
}

/*
 * The rest of @id's lookup, its conntrack query answered (@rc, @ci, @dir)
 * in @ct_ns of its own: the egress of both directions, then the policy's
 * decision, carried out.  @t0: when its lookup started.
 */
static void lookup_answered(struct fmd *d, uint32_t id, uint64_t now, uint64_t cross_ns,
			    int rc, const struct ct_info *ci, int dir, uint64_t t0,
			    uint64_t ct_ns)
{
	struct fm_entry *e = fm_get(&d->fm, id);
	struct npuflow_key cand;
	struct fm_lookup l;
	enum fm_action a;
	uint64_t lookup_ns;
	int o;

	if (!e)
		return;
	cand = e->rec.key[0];
	memset(&l, 0, sizeof(l));
	mk.ct = ct_ns;
	d->fm.stat[NPUFLOW_FM_CT_US] += mk.ct / 1000;
	mk.ev = cross_ns ? npuflow_since(now, cross_ns) : 0;
	mk.eg = 0;
	if (!rc) {
		uint64_t teg = fmd_now();

		l.ct_flags = ctc_fm_flags(ci);
		if (zone_conflict(d, ci))
			l.ct_flags |= FM_CT_ZONED;
		l.ct_id = ci->id;
		l.ct_mark = ci->mark;
		l.ct_timeout = ci->timeout;
		l.zone = ci->zone;
		l.key[0] = ci->orig;
		l.key[1] = ci->reply;
		o = !dir;
		l.key[dir].ifindex = cand.ifindex;
		l.key[dir].vlan_outer = cand.vlan_outer;
		l.key[dir].vlan_inner = cand.vlan_inner;
		l.key[dir].pppoe_sid = cand.pppoe_sid;
		/* a direction leaves towards the other's source */
		l.eg_flags[dir] = lookup_egress(d, &l, dir, l.key[o].saddr);
		/* the other direction arrives where this one leaves, tagged as
		 * this one leaves */
		l.key[o].ifindex = l.out_port[dir] ? l.out_port[dir] : cand.ifindex;
		l.key[o].vlan_outer = l.out_vid[dir];
		l.key[o].vlan_inner = l.out_vid_inner[dir];
		l.key[o].pppoe_sid = l.out_sid[dir];
		if (!l.eg_flags[dir])
			l.eg_flags[o] = lookup_egress(d, &l, o, l.key[dir].saddr);
		l.routed = 1;
		if (!l.eg_flags[0] && !l.eg_flags[1] && fmd_ipsec(d, l.key, l.out_ifindex))
			l.ct_flags |= FM_CT_IPSEC;
		prove_forwarded(d, &l);
		mk.eg = fmd_now() - teg;
	}
	if (!rc)
		take_back_twin(d, id, &l, dir, now);
	lookup_ns = fmd_now() - t0;
	d->make_ns += lookup_ns;
	d->fm.stat[NPUFLOW_FM_LOOKUP_US] += lookup_ns / 1000;
	a = fm_lookup_done(&d->fm, id, &l, now);
	fmd_ct_looked_up(d, id);
	if (a == FM_A_WRITE) {
		uint32_t v = fm_evict_victim(&d->fm, id, now);

		if (v != UINT32_MAX)
			evicted(d, &d->fm.e[v], now);
		do_write(d, id, now, lookup_ns);
		return;
	}
	if (a == FM_A_REFUSE && d->o->log_level >= L_DBG) {
		char kb[160];

		fmd_fmt_key(&cand, kb, sizeof(kb));
		d->log(L_DBG, "%s: stays on the host: %s", kb, fm_reason_name(e->rec.reason));
	}
	fmd_sync_id(d, id);
}

/*
 * A lookup asked for: queued, its conntrack query sent with the others of
 * the loop pass (lq_flush).  Entries the policy forgets meanwhile are
 * dropped there; one asked again keeps its place.  @cross_ns: the punted
 * frame the make starts from (an event's, a candidate's latest), 0 for a
 * timer's remake.
 */
void fmd_lookup(struct fmd *d, uint32_t id, uint64_t now, uint64_t cross_ns)
{
	struct fmd_lq_item *it;
	int i;

	if (!fm_get(&d->fm, id))
		return;
	d->fm.e[id].rec.cross_ns = cross_ns;
	for (i = 0; i < d->lq.n; i++)
		if (d->lq.it[i].id == id)
			return;
	if (d->lq.n == FMD_WQ_MAX)
		fmd_lq_flush(d);
	it = &d->lq.it[d->lq.n++];
	it->id = id;
	it->now = now;
	it->cross_ns = cross_ns;
}

/* The batch's answers, by request: the entry read, or none. */
struct lq_answers {
	struct ct_info ci[FMD_WQ_MAX];
	int parsed[FMD_WQ_MAX];
};

static int lq_answer(int k, const struct nlmsghdr *nlh, void *arg)
{
	struct lq_answers *a = arg;

	a->parsed[k] = !ctc_parse(nlh, &a->ci[k]);
	return 0;
}

/*
 * The queued lookups' conntrack queries in one nfnetlink sendmsg, their
 * answers (an entry and an ack, or an error) read as they come; each
 * lookup's share of the batch's time is its query's.  A lookup not in the
 * batch (no batch socket, a request that could not be built, a batch that
 * failed) asks on its own.  Then each lookup goes on.
 */
void fmd_lq_flush(struct fmd *d)
{
	struct fmd_lq q = d->lq;
	struct lq_answers a;
	struct ct_info ci;
	int rcs[FMD_WQ_MAX], slot[FMD_WQ_MAX], i, k, n = 0, dir;
	uint32_t seq0 = d->wq.ctb.seq + 1;	/* nls_seq()'s next */
	uint64_t t0, ct_ns;
	size_t len = 0;

	d->lq.n = 0;
	if (!q.n)
		return;
	fmd_monitor_poll(d);
	fmd_egress_pass(d);
	t0 = fmd_now();
	memset(a.parsed, 0, sizeof(a.parsed));
	for (i = 0; i < q.n; i++) {
		struct fm_entry *e = fm_get(&d->fm, q.it[i].id);
		size_t m = 0;

		slot[i] = -1;
		if (e && e->rec.state == NPUFLOW_CS_LOOKUP && d->wq.ctb.nl)
			m = ctc_build_get(d->wq.buf + len, d->wq.buflen - len, &e->rec.key[0],
					  e->rec.zone, seq0 + n);
		if (!m)
			continue;
		nls_seq(&d->wq.ctb);	/* seq0 + n taken */
		slot[i] = n++;
		len += MNL_ALIGN(m);
	}
	/* a batch that failed is asked again one query at a time */
	if (n && nls_batch_data(&d->wq.ctb, d->wq.buf, len, seq0, rcs, n, lq_answer, &a))
		memset(slot, -1, sizeof(slot));
	ct_ns = n ? (fmd_now() - t0) / n : 0;
	for (i = 0; i < q.n; i++) {
		struct fm_entry *e = fm_get(&d->fm, q.it[i].id);
		uint64_t t = fmd_now();
		int rc;

		if (!e || e->rec.state != NPUFLOW_CS_LOOKUP)
			continue;
		k = slot[i];
		if (k >= 0) {
			rc = rcs[k] ? rcs[k] : a.parsed[k] ?
			     ctc_dir(&a.ci[k], &e->rec.key[0], &dir) : -ENOENT;
			lookup_answered(d, q.it[i].id, q.it[i].now, q.it[i].cross_ns, rc,
					&a.ci[k], dir, t - ct_ns, ct_ns);
			continue;
		}
		rc = ctc_find(&d->ct, &e->rec.key[0], e->rec.zone, &ci, &dir);
		lookup_answered(d, q.it[i].id, q.it[i].now, q.it[i].cross_ns, rc, &ci, dir, t,
				fmd_now() - t);
	}
}

/*
 * In hardware at @hw_ns: what the candidates counted until then - the first
 * frame of either direction and the frames punted - before the re-arm
 * deletes them (npuctl flows --json, make bench).
 */
static void note_made(struct fmd *d, struct fm_entry *e, uint64_t hw_ns)
{
	struct npuflow_cand v;
	uint64_t first = 0, frames = 0;
	int i;

	for (i = 0; i < 2; i++) {
		if (!e->rec.key[i].ifindex ||
		    bpf_map_lookup_elem(d->cand_fd, &e->rec.key[i], &v))
			continue;
		if (v.first_ns && (!first || v.first_ns < first))
			first = v.first_ns;
		frames += v.frames;
	}
	e->rec.first_ns = first;
	e->rec.hw_ns = hw_ns;
	e->rec.punted = frames;
	fmd_keepalive_made(d, e, hw_ns);
}

/* --- writing, in batches --------------------------------------------------- */

/* Queue @id, looked up (mk) at @now in @lookup_ns, for the next wq_flush. */
static void do_write(struct fmd *d, uint32_t id, uint64_t now, uint64_t lookup_ns)
{
	struct fmd_wq_item *it;
	int i;

	for (i = 0; i < d->wq.n; i++) {
		if (d->wq.it[i].id == id) {	/* looked up again before its write */
			d->wq.it[i] = d->wq.it[--d->wq.n];
			break;
		}
	}
	if (d->wq.n == FMD_WQ_MAX)
		fmd_wq_flush(d);
	it = &d->wq.it[d->wq.n++];
	it->id = id;
	it->ct_id = d->fm.e[id].rec.ct_id;
	it->now = now;
	it->lookup_ns = lookup_ns;
	it->ev_ns = mk.ev;
	it->ct_ns = mk.ct;
	it->eg_ns = mk.eg;
}

/* The queued entries still waiting for their write (not forgotten, taken
 * out or reused since): kept in place, their number. */
static int wq_live(struct fmd *d)
{
	struct fmd_wq *q = &d->wq;
	int i, n = 0;

	for (i = 0; i < q->n; i++) {
		struct fm_entry *e = fm_get(&d->fm, q->it[i].id);

		if (e && e->rec.state == NPUFLOW_CS_LOOKUP && e->rec.ct_id == q->it[i].ct_id)
			q->it[n++] = q->it[i];
	}
	return n;
}

static void wq_liberal(struct fmd *d, int n)
{
	uint32_t ids[FMD_WQ_MAX];
	int i;

	for (i = 0; i < n && i < FMD_WQ_MAX; i++)
		ids[i] = d->wq.it[i].id;
	fmd_liberal_many(d, ids, i);
}

/*
 * Both directions' rules of the first @n queued entries, in one sendmsg:
 * rc[i][dir] gets each one's answer.  The qdiscs first (their requests
 * would break the batch's run of sequence numbers); a leftover rule with
 * our handle (EEXIST) is replaced one at a time, as hw_write_dir does.
 */
static void wq_rules(struct fmd *d, int n, int rc[][2])
{
	struct fmd_wq *q = &d->wq;
	int rcs[2 * FMD_WQ_MAX], i, dir, k = 0;
	struct tcfl_rule r[FMD_WQ_MAX][2];
	uint32_t seq0 = 0;
	size_t off = 0, m;

	for (i = 0; i < n; i++)
		for (dir = 0; dir < 2; dir++) {
			tcfl_rule_from_conn(&d->fm.e[q->it[i].id].rec, dir, d->tc_flags, &r[i][dir]);
			rc[i][dir] = fmd_hw_clsact(d, r[i][dir].ifindex);
		}
	for (i = 0; i < n; i++)
		for (dir = 0; dir < 2; dir++) {
			if (rc[i][dir])
				continue;
			m = tcfl_build_add(q->buf + off, q->buflen - off, &r[i][dir],
					   nls_batch_seq(&d->tc));
			if (!nls_batch_take(&d->tc, m, &seq0, &k, &off)) {
				rc[i][dir] = -EINVAL;
				continue;
			}
			rc[i][dir] = NLS_UNANSWERED;	/* answer k - 1 */
		}
	if (k)
		nls_batch(&d->tc, q->buf, off, seq0, rcs, k);
	for (i = 0, k = 0; i < n; i++)
		for (dir = 0; dir < 2; dir++) {
			struct fm_entry *e = &d->fm.e[q->it[i].id];

			if (rc[i][dir] != NLS_UNANSWERED)
				continue;
			rc[i][dir] = rcs[k++];
			if (rc[i][dir] == -EEXIST)
				rc[i][dir] = fmd_hw_write_dir(d, e, dir);
			else
				fmd_hw_write_done(d, e, dir, &r[i][dir], rc[i][dir]);
		}
}

/*
 * A write that failed (the table full, a refused rule) leaves the
 * connection on the host: the be-liberal wq_liberal() set for it is taken
 * back unless conntrack's entry was liberal before (a connection made
 * before keeps it, for the host's taking the stream back), so that a
 * connection that is not made keeps its firewall's TCP window checks.
 */
static void liberal_undo(struct fmd *d, struct fm_entry *e, uint32_t id)
{
	int rc;

	if (e->rec.key[0].proto != IPPROTO_TCP || e->liberal)
		return;
	rc = ctc_be_liberal(&d->ct, &e->rec.key[0], e->rec.zone, 0);
	if (rc)
		d->log(L_WARN, "connection %u: be-liberal not taken back: %s", id, strerror(-rc));
	else
		d->fm.stat[NPUFLOW_FM_LIBERAL_UNDONE]++;
}

/* Queued entry @it written with answers @rc (both or none: a refused
 * direction takes the other out): the policy told, its "made" line. */
static void wq_done(struct fmd *d, const struct fmd_wq_item *it, const int rc[2],
		    uint64_t hw_ns, double lib_ms, double rules_ms, int n)
{
	struct fm_entry *e = &d->fm.e[it->id];
	int dir, err = rc[0] ? rc[0] : rc[1];
	char kb[160];

	for (dir = 0; dir < 2 && err; dir++)
		if (!rc[dir])
			fmd_hw_del_dir(d, &e->rec, dir);
	if (err)
		liberal_undo(d, e, it->id);
	if (fm_write_done(&d->fm, it->id, err, it->now) == FM_A_REARM) {
		note_made(d, e, hw_ns);
		fmd_rearm(d, e);
		fmd_fmt_key(&e->rec.key[0], kb, sizeof(kb));
		d->log(L_INFO, "connection %u made%s: %s%s (lookup %.1f ms, written in a batch of "
		       "%d: liberal %.2f rules %.2f ms; event %.1f ct %.2f egress %.2f ms)",
		       it->id, e->rec.remakes ? " again" : "", kb,
		       e->rec.flags & NPUFLOW_CONN_F_NAT ? " (NAT)" : "", it->lookup_ns / 1e6, n,
		       lib_ms, rules_ms, it->ev_ns / 1e6, it->ct_ns / 1e6, it->eg_ns / 1e6);
	}
	fmd_sync_id(d, it->id);
}

void fmd_wq_flush(struct fmd *d)
{
	struct fmd_wq *q = &d->wq;
	uint64_t t0 = fmd_now(), t1, hw_ns;
	int rc[FMD_WQ_MAX][2], i, n = wq_live(d);

	q->n = 0;
	if (!n)
		return;
	wq_liberal(d, n);
	t1 = fmd_now();
	wq_rules(d, n, rc);
	hw_ns = fmd_now();
	d->make_ns += hw_ns - t0;
	d->fm.stat[NPUFLOW_FM_WRITE_US] += (hw_ns - t0) / 1000;
	for (i = 0; i < n; i++)
		wq_done(d, &q->it[i], rc[i], hw_ns, (t1 - t0) / 1e6, (hw_ns - t1) / 1e6, n);
}

/* --- events -------------------------------------------------------------- */

void fmd_event(struct fmd *d, const struct npuflow_event *ev, uint64_t now)
{
	enum fm_action a;
	uint32_t id = 0;

	d->events_seen++;
	if (ev->type == NPUFLOW_EV_REVIVE) {
		fm_revive(&d->fm, &ev->key, now);
		return;
	}
	if (ev->type != NPUFLOW_EV_THRESHOLD)
		return;
	a = fm_candidate(&d->fm, &ev->key, ev->frames, ev->bytes, ev->reason, ev->ts_ns, now,
			 &id);
	switch (a) {
	case FM_A_LOOKUP:
		fmd_lookup(d, id, now, ev->ts_ns);
		break;
	case FM_A_HOLD: {
		struct fm_entry *e = &d->fm.e[id];

		fmd_hw_delete(d, e);
		fmd_rearm(d, e);
		d->log(L_INFO, "connection %u given back under a new identity: held %llu ms",
		       id, (unsigned long long)(e->rec.wait_ns / 1000000));
		fmd_sync_id(d, id);
		break;
	}
	case FM_A_WATCH:
		fmd_sync_id(d, id);
		break;
	case FM_A_REARM:
		fmd_rearm(d, &d->fm.e[id]);
		break;
	default:
		if (id < d->fm.cfg.max_conns && d->fm.e[id].dirty)
			fmd_sync_id(d, id);
		break;
	}
}
