// SPDX-License-Identifier: GPL-2.0
/*
 * fmd.c - the flow maker inside npuflowd (see fmd.h).  Single-threaded: the
 * main loop calls in here for ring-buffer events, conntrack events, control
 * requests and timers; the policy core decides, this file does.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <linux/if_ether.h>
#include <linux/pkt_cls.h>
#include <linux/rtnetlink.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "fmd.h"
#include "fmd_egress.h"
#include "fmd_keepalive.h"
#include "fmd_walk.h"
#include "tcflower.h"

#define TICK_NS	(50ull * 1000000)
/*
 * Egress facts (a port's MAC, MTU and shaping, the 802.1Q devices) serve at
 * most this long between rtnetlink's announcements: the bound on what it
 * does not announce to the monitor (a qdisc added to an egress port is
 * obeyed within it).
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
/* The egress of made connections is checked again at most this often after
 * rtnetlink announced changes, and at least every FMD_RECHECK_IDLE_NS for
 * what it does not announce (a qdisc); each stretched by the check's cost
 * (fm_pace_next()) up to FMD_RECHECK_MAX_NS (a change is obeyed within a
 * second) and FMD_RECHECK_IDLE_MAX_NS. */
#define FMD_RECHECK_NS		(200ull * 1000000)
#define FMD_RECHECK_MAX_NS	(1000ull * 1000000)
#define FMD_RECHECK_IDLE_NS	(5000ull * 1000000)
#define FMD_RECHECK_IDLE_MAX_NS	(60000ull * 1000000)

uint64_t fmd_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static const char *ifn(uint32_t ifindex, char *buf)
{
	if (!if_indextoname(ifindex, buf))
		snprintf(buf, IF_NAMESIZE, "if%u", ifindex);
	return buf;
}

static void fmt_key(const struct npuflow_key *k, char *buf, size_t len)
{
	char s[48], t[48];
	int af = k->family == 10 ? AF_INET6 : AF_INET;

	inet_ntop(af, k->saddr, s, sizeof(s));
	inet_ntop(af, k->daddr, t, sizeof(t));
	snprintf(buf, len, "if%u %s %s:%u > %s:%u", k->ifindex,
		 k->proto == 6 ? "tcp" : k->proto == 17 ? "udp" : "proto", s, ntohs(k->sport),
		 t, ntohs(k->dport));
}

/* --- pinned map mirror --------------------------------------------------- */

void fmd_sync_id(struct fmd *d, uint32_t id)
{
	struct fm_entry *e = &d->fm.e[id];

	if (id >= d->fm.cfg.max_conns)
		return;
	if (e->rec.state == NPUFLOW_CS_FREE)
		bpf_map_delete_elem(d->conn_fd, &id);
	else if (bpf_map_update_elem(d->conn_fd, &id, &e->rec, BPF_ANY))
		d->log(L_WARN, "connections map: update %u: %s", id, strerror(errno));
	e->dirty = 0;
}

static void write_stats(struct fmd *d, uint64_t now)
{
	struct npuflow_fmstats st;
	uint32_t zero = 0;

	memset(&st, 0, sizeof(st));
	memcpy(st.stat, d->fm.stat, sizeof(st.stat));
	st.stat[NPUFLOW_FM_TABLE_FULL] = d->fm.full.now_full;
	st.stat[NPUFLOW_FM_FULL_WAITING] = d->fm.full.waiting;
	memcpy(st.refused, d->fm.refused, sizeof(st.refused));
	fm_count_states(&d->fm, st.state);
	st.start_ns = d->start_ns;
	st.updated_ns = now;
	bpf_map_update_elem(d->stats_fd, &zero, &st, BPF_ANY);
}

/*
 * Let the classifier raise a new threshold event for @k: delete it, and bump
 * the cache generation so no CPU's cache entry keeps counting for it.
 */
static void rearm_key(struct fmd *d, const struct npuflow_key *k)
{
	bpf_map_delete_elem(d->cand_fd, k);
	if (d->cache_gen_bump)
		d->cache_gen_bump();
}

/* The candidate of @k with what the per-CPU cache holds for it (read once a tick). */
int fmd_read_cand(struct fmd *d, const struct npuflow_key *k, struct npuflow_cand *v)
{
	if (bpf_map_lookup_elem(d->cand_fd, k, v))
		return -1;
	if (d->cache_fd >= 0 && !d->cache_read) {
		free(d->cache);
		d->cache = NULL;
		d->ncache = 0;
		npuflow_cache_read(d->cache_fd, &d->cache, &d->ncache);
		d->cache_read = 1;
	}
	npuflow_cache_add(k, v, d->cache, d->ncache);
	return 0;
}

static void rearm(struct fmd *d, const struct fm_entry *e)
{
	int i;

	for (i = 0; i < (e->nkeys ? e->nkeys : 1); i++)
		if (e->rec.key[i].ifindex)
			rearm_key(d, &e->rec.key[i]);
}

/* --- hardware: tc flower ------------------------------------------------- */

static int ensure_clsact(struct fmd *d, uint32_t ifindex)
{
	int p = fmd_port_of(d, ifindex), rc;
	size_t n;

	if (p >= 0 && d->ports[p].clsact)
		return 0;
	n = tcfl_build_qdisc(d->tc.buf, d->tc.buflen, ifindex, nls_seq(&d->tc));
	rc = nls_talk(&d->tc, d->tc.buf, n, NULL, NULL);
	if (rc == -EEXIST)
		rc = 0;
	if (rc) {
		char b[IF_NAMESIZE];

		d->log(L_WARN, "%s: cannot add clsact qdisc: %s%s%s", ifn(ifindex, b),
		       strerror(-rc), d->tc.ext_ack[0] ? ": " : "", d->tc.ext_ack);
	} else if (p >= 0) {
		d->ports[p].clsact = 1;
	}
	return rc;
}

int fmd_hw_del_rule(struct fmd *d, uint32_t ifindex, uint16_t prio, uint16_t proto,
		    uint32_t handle)
{
	char buf[512] __attribute__((aligned(8)));
	size_t n;
	int rc;

	n = tcfl_build_del(buf, sizeof(buf), ifindex, prio, proto, handle, nls_seq(&d->tc));
	rc = nls_talk(&d->tc, buf, n, NULL, NULL);
	if (rc == -ENOENT || rc == -EINVAL)	/* not there (EINVAL: no such tp) */
		rc = 0;
	else if (!rc)
		d->fm.stat[NPUFLOW_FM_HW_DELETES]++;
	return rc;
}

static int hw_del_dir(struct fmd *d, const struct npuflow_conn *c, int dir)
{
	if (!c->hw_handle[dir] || !c->key[dir].ifindex)
		return 0;
	return fmd_hw_del_rule(d, c->key[dir].ifindex, tcfl_prio(&c->key[dir]),
			   tcfl_proto(&c->key[dir]), c->hw_handle[dir]);
}

static void hw_delete(struct fmd *d, struct fm_entry *e)
{
	int dir, rc;

	for (dir = 0; dir < 2; dir++) {
		rc = hw_del_dir(d, &e->rec, dir);
		if (rc)
			d->log(L_WARN, "connection %u: cannot delete direction %d: %s",
			       (unsigned int)(e - d->fm.e), dir, strerror(-rc));
	}
	e->rec.flags &= ~(NPUFLOW_CONN_F_HW0 | NPUFLOW_CONN_F_HW1);
	e->dirty = 1;
}

/* After rule @r of @e's direction @dir was answered @rc: counted, logged. */
static void hw_write_done(struct fmd *d, const struct fm_entry *e, int dir,
			  const struct tcfl_rule *r, int rc)
{
	if (!rc) {
		d->fm.stat[NPUFLOW_FM_HW_WRITES]++;
		if (d->o->log_level >= L_DBG) {
			char line[1024], a[IF_NAMESIZE], b[IF_NAMESIZE];

			tcfl_fmt(r, ifn(r->ifindex, a), ifn(r->out_ifindex, b), line, sizeof(line));
			d->log(L_DBG, "%s", line);
		}
	} else {
		d->log(rc == -ENOSPC ? L_INFO : L_WARN,
		       "connection %u direction %d: rule refused: %s%s%s",
		       (unsigned int)(e - d->fm.e), dir, strerror(-rc),
		       d->tc.ext_ack[0] ? ": " : "", d->tc.ext_ack);
	}
}

static int hw_write_dir(struct fmd *d, struct fm_entry *e, int dir)
{
	struct tcfl_rule r;
	size_t n;
	int rc;

	tcfl_rule_from_conn(&e->rec, dir, d->tc_flags, &r);
	rc = ensure_clsact(d, r.ifindex);
	if (rc)
		return rc;
	n = tcfl_build_add(d->tc.buf, d->tc.buflen, &r, nls_seq(&d->tc));
	if (!n)
		return -EINVAL;
	rc = nls_talk(&d->tc, d->tc.buf, n, NULL, NULL);
	if (rc == -EEXIST) {
		/* a leftover with our handle: replace it */
		hw_del_dir(d, &e->rec, dir);
		n = tcfl_build_add(d->tc.buf, d->tc.buflen, &r, nls_seq(&d->tc));
		rc = nls_talk(&d->tc, d->tc.buf, n, NULL, NULL);
	}
	hw_write_done(d, e, dir, &r, rc);
	return rc;
}

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
 * The one-time work of the first connection, done at start, so that it
 * costs the first connection no more than the next (docs/measurements.md,
 * "The first connection after start"): the clsact qdisc on every port (a
 * static key: kernel text patched); cls_flower and the act_* modules,
 * loaded by a software-only rule that matches nothing (tcfl_build_warmup);
 * the driver's offload path, run by a hardware-only rule of a connection's
 * shape that matches nothing either (warm_driver()); and the lookups' first
 * run (warm_lookups()).  The rules are deleted at once.  Logged once with
 * the time each took; a failure only costs the first connection that time
 * again.
 */
#define FMD_WARMUP_HANDLE	0xfffffff0u	/* no id's (tcfl_handle): an orphan at restore */
#define FMD_WARMUP_HW_HANDLE	0xfffffff2u

/* Delete the warm-up's rule @handle on port 0. */
static void warm_delete(struct fmd *d, uint32_t handle)
{
	size_t n = tcfl_build_del(d->tc.buf, d->tc.buflen, d->ports[0].ifindex,
				  NPUFLOW_TC_PRIO_IP, ETH_P_IP, handle, nls_seq(&d->tc));

	if (nls_talk(&d->tc, d->tc.buf, n, NULL, NULL))
		d->log(L_WARN, "warm-up: cannot delete its rule %#x on %s", handle,
		       d->ports[0].name);
}

/* The warm-up's rule of @n bytes in d->tc.buf (0: not built) added, then
 * deleted as @handle: 0, or -errno of the add (one there already counts). */
static int warm_rule(struct fmd *d, size_t n, uint32_t handle)
{
	int rc = n ? nls_talk(&d->tc, d->tc.buf, n, NULL, NULL) : -EINVAL;

	if (!rc || rc == -EEXIST)
		warm_delete(d, handle);
	return rc == -EEXIST ? 0 : rc;
}

/* cls_flower and the act_* modules: 0, or -errno of the rule's add. */
static int warm_tc(struct fmd *d)
{
	return warm_rule(d, tcfl_build_warmup(d->tc.buf, d->tc.buflen, d->ports[0].ifindex,
					      NPUFLOW_TC_PRIO_IP, FMD_WARMUP_HANDLE,
					      nls_seq(&d->tc)), FMD_WARMUP_HANDLE);
}

/*
 * The driver's offload path (parse, shadow table, command post) and the
 * coprocessor's table write, once: a skip_sw rule as a connection's
 * direction from port 0 to the next port (0.0.0.0 to 0.0.0.0, TCP port 0
 * to 0: nothing forwarded matches), the ports' MACs as its rewrite.  0, or
 * -errno of the add (a driver that refuses it leaves the first connection
 * that path's first run).
 */
static int warm_driver(struct fmd *d)
{
	int out = d->nports > 1 ? 1 : 0;
	struct tcfl_rule r;

	memset(&r, 0, sizeof(r));
	r.ifindex = d->ports[0].ifindex;
	r.handle = FMD_WARMUP_HW_HANDLE;
	r.prio = NPUFLOW_TC_PRIO_IP;
	r.flags = TCA_CLS_FLAGS_SKIP_SW;
	r.match.family = 2;
	r.match.proto = 6;
	r.match.ifindex = r.ifindex;
	r.out = r.match;
	memcpy(r.dmac, d->ports[out].mac, 6);
	memcpy(r.smac, d->ports[out].mac, 6);
	r.set_mac = 1;
	r.dec_ttl = 1;
	r.out_ifindex = d->ports[out].ifindex;
	return warm_rule(d, tcfl_build_add(d->tc.buf, d->tc.buflen, &r, nls_seq(&d->tc)),
			 FMD_WARMUP_HW_HANDLE);
}

/* The warm-up's GET: the key it asked, and whether the answer was its entry. */
struct warm_ct {
	const struct npuflow_key *k;
	int found;
};

/* The warm-up's GET answer: its entry read as a make's lookup reads one. */
static int warm_ct_answer(int i, const struct nlmsghdr *nlh, void *arg)
{
	struct warm_ct *w = arg;
	struct ct_info ci;
	int dir;

	(void)i;
	if (!ctc_parse(nlh, &ci) && !ctc_dir(&ci, w->k, &dir))
		w->found = 1;
	return 0;
}

/* The warm-up's entry, made alone (so that an entry there already is
 * never deleted): 1 if the kernel made it, else 0. */
static int warm_ct_create(struct fmd *d, const struct npuflow_key *k)
{
	struct fmd_wq *q = &d->wq;
	uint32_t seq = q->ctb.seq + 1;
	size_t n = q->ctb.nl ? ctc_build_create(q->buf, q->buflen, k, 0, 2, seq) : 0;
	int rc;

	if (!n)
		return 0;
	nls_seq(&q->ctb);
	return !nls_batch(&q->ctb, q->buf, n, seq, &rc, 1) && !rc;
}

/*
 * Conntrack's paths a make runs, once with an entry to find: a TCP entry
 * made for the warm-up (192.0.2.1:9 to 198.51.100.1:9, TEST-NET-1 to
 * TEST-NET-2 of RFC 5737 and the discard port, 2 s to live), then in one
 * batch, as a make's lookups and writes send theirs, looked up, made
 * be-liberal and deleted.  A query that finds no entry leaves the answer's
 * path (the entry's attributes, ctc_parse()) to the first connection
 * (docs/measurements.md, "The first connection after start").  1 if the
 * entry was made, found and made be-liberal; 0 if not (an entry there
 * already is not touched; without the batch socket nothing is made, and a
 * query that finds no entry is asked instead).
 */
static int warm_conntrack(struct fmd *d)
{
	struct npuflow_key none, k;
	struct fmd_wq *q = &d->wq;
	struct warm_ct w = { .k = &k };
	uint32_t seq0;
	int rcs[3], dir;
	struct ct_info ci;
	size_t n, len;

	memset(&none, 0, sizeof(none));
	none.family = 2;
	none.proto = IPPROTO_TCP;
	k = none;
	memcpy(k.saddr, "\xc0\x00\x02\x01", 4);
	memcpy(k.daddr, "\xc6\x33\x64\x01", 4);
	k.sport = k.dport = htons(9);
	if (!warm_ct_create(d, &k)) {
		ctc_find(&d->ct, &none, 0, &ci, &dir);
		return 0;
	}
	seq0 = q->ctb.seq + 1;
	n = ctc_build_get(q->buf, q->buflen, &k, 0, seq0);
	len = MNL_ALIGN(n);
	n = n ? ctc_build_be_liberal(q->buf + len, q->buflen - len, &k, 0, seq0 + 1) : 0;
	len += MNL_ALIGN(n);
	n = n ? ctc_build_delete(q->buf + len, q->buflen - len, &k, 0, seq0 + 2) : 0;
	len += n;
	q->ctb.seq += 3;
	if (!n || nls_batch_data(&q->ctb, q->buf, len, seq0, rcs, 3, warm_ct_answer, &w) ||
	    rcs[2]) {
		d->log(L_WARN, "warm-up: its conntrack entry is left to time out (2 s)");
		return 0;
	}
	return w.found && !rcs[0] && !rcs[1];
}

/*
 * The lookups' first run, which costs the first connection several times
 * the next one's: each port's link and shaping, the policy rules' dump,
 * the 802.1Q devices' dump, and conntrack's (warm_conntrack()).  What a
 * neighbour's announcement leaves cached (rtc_neigh_seen()) the first
 * connection finds.  1 if conntrack's entry was made and found, else 0.
 */
static int warm_lookups(struct fmd *d, uint64_t now)
{
	int i;

	for (i = 0; i < d->nports; i++)
		fmd_port_facts(d, i, now);
	fmd_egress_warm(d, now);
	return warm_conntrack(d);
}

/* A neighbour on one of the ports whose address a route leads to (an
 * IPv6 link-local one is not routed). */
static int warm_routable(const struct fmd *d, const struct nls_neigh_note *n)
{
	return fmd_port_of(d, n->ifindex) >= 0 &&
	       !(n->family == AF_INET6 && n->addr[0] == 0xfe && (n->addr[1] & 0xc0) == 0x80);
}

/* Two routable neighbours of @nb[@n] on two different ports, *a and *b:
 * 1, or 0. */
static int warm_pair(const struct fmd *d, const struct nls_neigh_note *nb, int n, int *a,
		     int *b)
{
	int i, j;

	for (i = 0; i < n; i++) {
		if (!warm_routable(d, &nb[i]))
			continue;
		for (j = i + 1; j < n; j++)
			if (nb[j].ifindex != nb[i].ifindex && warm_routable(d, &nb[j])) {
				*a = i;
				*b = j;
				return 1;
			}
	}
	return 0;
}

/*
 * The forwarding path's lookups, run once per family as a connection
 * between two neighbours on two ports would have them (the route from the
 * ingress port, the next hop, the egress port's facts; both directions):
 * under TCG the first run of the kernel's forwarding route lookup costs the
 * first connection about 20 ms.  Families with no such pair are skipped.
 * Their answers stay in rtcache for a max age, as any connection's.
 */
static int warm_egress(struct fmd *d)
{
	static const int fams[2] = { AF_INET, AF_INET6 };
	struct nls_neigh_note nb[64];
	struct fmd_egress eg;
	struct npuflow_key k;
	int f, n, a, b, done = 0;

	for (f = 0; f < 2; f++) {
		n = nls_neighs_get(&d->rt, fams[f], nb, sizeof(nb) / sizeof(nb[0]));
		if (n <= 0 || !warm_pair(d, nb, n, &a, &b))
			continue;
		memset(&k, 0, sizeof(k));
		k.family = fams[f] == AF_INET6 ? 10 : 2;
		k.proto = IPPROTO_TCP;
		k.ifindex = nb[a].ifindex;
		memcpy(k.saddr, nb[a].addr, 16);
		memcpy(k.daddr, nb[b].addr, 16);
		fmd_egress(d, &k, k.daddr, 0, &eg);
		k.ifindex = nb[b].ifindex;
		memcpy(k.saddr, nb[b].addr, 16);
		memcpy(k.daddr, nb[a].addr, 16);
		fmd_egress(d, &k, k.daddr, 0, &eg);
		done++;
	}
	return done;
}

void fmd_warmup(struct fmd *d)
{
	uint64_t t0 = fmd_now(), t1, t2, t3, t4;
	int i, rc, hw, fams, nq = 0;
	const char *ct;

	for (i = 0; i < d->nports; i++)
		if (!ensure_clsact(d, d->ports[i].ifindex))
			nq++;
	t1 = fmd_now();
	if (!d->nports)
		return;
	rc = warm_tc(d);
	t2 = fmd_now();
	ct = warm_lookups(d, t2) ? "a conntrack entry made, found, made be-liberal and deleted" :
				    "a conntrack query";
	fams = warm_egress(d);
	t3 = fmd_now();
	hw = rc ? rc : warm_driver(d);
	t4 = fmd_now();
	if (rc)
		d->log(L_WARN, "warm-up: clsact on %d of %d port(s) in %.1f ms; tc modules not "
		       "loaded: %s%s%s (the first connection loads them); %s in %.1f ms",
		       nq, d->nports, (t1 - t0) / 1e6, strerror(-rc),
		       d->tc.ext_ack[0] ? ": " : "", d->tc.ext_ack, ct, (t3 - t2) / 1e6);
	else
		d->log(L_INFO, "warm-up in %.1f ms: clsact on %d of %d port(s) %.1f ms, "
		       "cls_flower, act_pedit, act_csum, act_vlan, act_mirred loaded by a "
		       "software rule %.1f ms, deleted, the ports' facts, the rules' and "
		       "VLANs' dumps, %s and the forwarding lookups between "
		       "two neighbours (%d famil%s) %.1f ms, the driver's path by a "
		       "hardware rule %.1f ms%s%s", (t4 - t0) / 1e6, nq, d->nports,
		       (t1 - t0) / 1e6, (t2 - t1) / 1e6, ct, fams, fams == 1 ? "y" : "ies",
		       (t3 - t2) / 1e6, (t4 - t3) / 1e6,
		       hw ? ", refused: " : ", deleted", hw ? strerror(-hw) : "");
}

/* --- making a connection ------------------------------------------------- */

/*
 * Made @e displaced for a busier connection (fm_evict.c): its rules out
 * before the busier one's are written, its candidates re-armed so that its
 * traffic while held back is seen.
 */
static void evicted(struct fmd *d, struct fm_entry *e, uint64_t now)
{
	uint32_t id = e - d->fm.e;

	hw_delete(d, e);
	rearm(d, e);
	d->log(L_INFO, "connection %u taken out for a busier one: held back %llu ms", id,
	       (unsigned long long)((e->rec.until_ns - now) / 1000000));
	fmd_sync_id(d, id);
}

static void do_write(struct fmd *d, uint32_t id, uint64_t now, uint64_t lookup_ns);
static void lq_flush(struct fmd *d);
static void wq_flush(struct fmd *d);

/* A neighbour announcement: the made connections are checked again only if
 * it may change a direction's MAC (rtc_neigh_seen()). */
static void neigh_seen(const struct nls_neigh_note *n, void *arg)
{
	struct fmd *d = arg;

	if (rtc_neigh_seen(d->rtc, n->family, n->ifindex, n->addr, n->usable ? n->mac : NULL))
		d->egress_dirty = 1;
}

/*
 * What rtnetlink announced since the last call.  A link, route or rule
 * change makes every egress fact looked up so far stale; a neighbour's
 * changes at most its own (a busy host's neighbours change state every
 * few seconds, and each full invalidation costs the next makes their
 * route, rules and link lookups again).  Either way the made connections'
 * egress is checked again.
 */
static void monitor_poll(struct fmd *d)
{
	if (d->mon.nl && nls_monitor_read(&d->mon, neigh_seen, d)) {
		rtc_invalidate(d->rtc);
		d->egress_dirty = 1;
	}
	if (d->xmon.nl && nls_monitor_changed(&d->xmon)) {
		d->xfrm_stale = 1;
		d->egress_dirty = 1;
	}
}

/* Direction @dir's egress into @l: 0, or FM_EG_*. */
static uint32_t lookup_egress(struct fmd *d, struct fm_lookup *l, int dir,
			      const uint8_t *out_daddr)
{
	struct fmd_egress eg;
	uint32_t rc = fmd_egress(d, &l->key[dir], out_daddr, l->ct_mark, &eg);

	l->out_ifindex[dir] = eg.oif;
	l->out_vid[dir] = eg.out_vid;
	memcpy(l->nexthop[dir], eg.nexthop, sizeof(l->nexthop[dir]));
	memcpy(l->dmac[dir], eg.dmac, 6);
	memcpy(l->smac[dir], eg.smac, 6);
	return rc;
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
	hw_delete(d, o);
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
		out.ifindex = l->out_ifindex[dir];
		out.vlan_outer = out.vlan_inner = 0;
		out.pad = 0;
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
	mk.ev = cross_ns && now > cross_ns ? now - cross_ns : 0;
	mk.eg = 0;
	if (!rc) {
		uint64_t teg = fmd_now();

		l.ct_flags = ctc_fm_flags(ci);
		if (zone_conflict(d, ci))
			l.ct_flags |= FM_CT_ZONED;
		l.ct_id = ci->id;
		l.ct_mark = ci->mark;
		l.zone = ci->zone;
		l.key[0] = ci->orig;
		l.key[1] = ci->reply;
		o = !dir;
		l.key[dir].ifindex = cand.ifindex;
		l.key[dir].vlan_outer = cand.vlan_outer;
		l.key[dir].vlan_inner = cand.vlan_inner;
		/* a direction leaves towards the other's source */
		l.eg_flags[dir] = lookup_egress(d, &l, dir, l.key[o].saddr);
		/* the other direction arrives where this one leaves, tagged as
		 * this one leaves */
		l.key[o].ifindex = l.out_ifindex[dir] ? l.out_ifindex[dir] : cand.ifindex;
		l.key[o].vlan_outer = l.out_vid[dir];
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
	if (a == FM_A_WRITE) {
		uint32_t v = fm_evict_victim(&d->fm, id, now);

		if (v != UINT32_MAX)
			evicted(d, &d->fm.e[v], now);
		do_write(d, id, now, lookup_ns);
		return;
	}
	if (a == FM_A_REFUSE && d->o->log_level >= L_DBG) {
		char kb[160];

		fmt_key(&cand, kb, sizeof(kb));
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
static void do_lookup(struct fmd *d, uint32_t id, uint64_t now, uint64_t cross_ns)
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
		lq_flush(d);
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
static void lq_flush(struct fmd *d)
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
	monitor_poll(d);
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
		wq_flush(d);
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
static void wq_liberal(struct fmd *d, int n)
{
	struct fmd_wq *q = &d->wq;
	int rcs[FMD_WQ_MAX], who[FMD_WQ_MAX], i, k = 0;
	uint32_t seq0 = 0;
	size_t off = 0, m;

	for (i = 0; i < n; i++) {
		struct fm_entry *e = &d->fm.e[q->it[i].id];
		uint32_t seq;

		if (e->rec.key[0].proto != IPPROTO_TCP)
			continue;
		if (!q->ctb.nl) {	/* no batch socket: one at a time */
			int rc = ctc_be_liberal(&d->ct, &e->rec.key[0], e->rec.zone, 1);

			if (rc)
				d->log(L_WARN, "connection %u: be-liberal failed: %s",
				       q->it[i].id, strerror(-rc));
			continue;
		}
		seq = q->ctb.seq + 1;	/* taken only if built: the run stays unbroken */
		m = ctc_build_be_liberal(q->buf + off, q->buflen - off, &e->rec.key[0],
					 e->rec.zone, seq);
		if (!m)
			continue;
		nls_seq(&q->ctb);
		if (!k)
			seq0 = seq;
		who[k++] = q->it[i].id;
		off += MNL_ALIGN(m);
	}
	if (!k)
		return;
	nls_batch(&q->ctb, q->buf, off, seq0, rcs, k);
	for (i = 0; i < k; i++)
		if (rcs[i])
			d->log(L_WARN, "connection %u: be-liberal failed: %s", (unsigned int)who[i],
			       strerror(-rcs[i]));
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
			rc[i][dir] = ensure_clsact(d, r[i][dir].ifindex);
		}
	for (i = 0; i < n; i++)
		for (dir = 0; dir < 2; dir++) {
			uint32_t seq;

			if (rc[i][dir])
				continue;
			seq = d->tc.seq + 1;	/* taken only if built, as above */
			m = tcfl_build_add(q->buf + off, q->buflen - off, &r[i][dir], seq);
			if (!m) {
				rc[i][dir] = -EINVAL;
				continue;
			}
			nls_seq(&d->tc);
			if (!k)
				seq0 = seq;
			k++;
			off += MNL_ALIGN(m);
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
				rc[i][dir] = hw_write_dir(d, e, dir);
			else
				hw_write_done(d, e, dir, &r[i][dir], rc[i][dir]);
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
			hw_del_dir(d, &e->rec, dir);
	if (err)
		liberal_undo(d, e, it->id);
	if (fm_write_done(&d->fm, it->id, err, it->now) == FM_A_REARM) {
		note_made(d, e, hw_ns);
		rearm(d, e);
		fmt_key(&e->rec.key[0], kb, sizeof(kb));
		d->log(L_INFO, "connection %u made%s: %s%s (lookup %.1f ms, written in a batch of "
		       "%d: liberal %.2f rules %.2f ms; event %.1f ct %.2f egress %.2f ms)",
		       it->id, e->rec.remakes ? " again" : "", kb,
		       e->rec.flags & NPUFLOW_CONN_F_NAT ? " (NAT)" : "", it->lookup_ns / 1e6, n,
		       lib_ms, rules_ms, it->ev_ns / 1e6, it->ct_ns / 1e6, it->eg_ns / 1e6);
	}
	fmd_sync_id(d, it->id);
}

static void wq_flush(struct fmd *d)
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
		do_lookup(d, id, now, ev->ts_ns);
		break;
	case FM_A_HOLD: {
		struct fm_entry *e = &d->fm.e[id];

		hw_delete(d, e);
		rearm(d, e);
		d->log(L_INFO, "connection %u given back under a new identity: held %llu ms",
		       id, (unsigned long long)(e->rec.wait_ns / 1000000));
		fmd_sync_id(d, id);
		break;
	}
	case FM_A_WATCH:
		fmd_sync_id(d, id);
		break;
	case FM_A_REARM:
		rearm(d, &d->fm.e[id]);
		break;
	default:
		if (id < d->fm.cfg.max_conns && d->fm.e[id].dirty)
			fmd_sync_id(d, id);
		break;
	}
}

static void takeout(struct fmd *d, uint32_t id, enum fm_action a)
{
	struct fm_entry *e = fm_get(&d->fm, id);

	if (!e)
		return;
	if (a == FM_A_TAKEOUT) {
		hw_delete(d, e);
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

		fmt_key(&ci->orig, kb, sizeof(kb));
		d->log(L_DBG, "conntrack %s %u: %s: %s", why, ci->id, kb, fm_action_name(a));
	}
	if (a == FM_A_TAKEOUT || a == FM_A_FORGET)
		takeout(d, id, a);
}

static void on_destroy(void *ctx, const struct ct_info *ci)
{
	ct_gone(ctx, ci, "destroy");
}

/*
 * A TCP entry left ESTABLISHED (a FIN or RST went through the host): its
 * connection goes back to the host now, so that the last frames of the
 * close cross conntrack and keepalive never sets an ESTABLISHED timeout on
 * a closing entry (which would keep a TIME_WAIT entry for days).
 */
static void on_closing(void *ctx, const struct ct_info *ci)
{
	ct_gone(ctx, ci, "closing");
}

/* A dumped entry: the connection made for it (if any) stays, unless closing. */
static void mark_cb(void *ctx, const struct ct_info *ci)
{
	struct fmd *d = ctx;
	struct fm_entry *e;

	ctz_seen(&d->zones, ci->zone, fmd_now());
	if (ctc_tcp_closing(ci))
		return;
	e = fm_find_ct(&d->fm, &ci->orig, &ci->reply, ci->zone, ci->id);
	if (e)
		d->mark[e - d->fm.e] = 1;
}

/* Everything whose conntrack entry is gone goes: how many, -1 if the dump failed. */
static int ct_sweep(struct fmd *d)
{
	uint32_t id;
	int n = 0;

	memset(d->mark, 0, fm_id_end(&d->fm));	/* mark_cb marks ids in use */
	if (ctc_dump(&d->ct, mark_cb, d)) {
		d->log(L_WARN, "conntrack dump failed: %s", strerror(errno));
		return -1;
	}
	for (id = 0; id < fm_id_end(&d->fm); id++) {
		struct fm_entry *e = &d->fm.e[id];

		if (e->rec.state == NPUFLOW_CS_FREE || !e->has_ct || d->mark[id])
			continue;
		takeout(d, id, e->rec.flags & (NPUFLOW_CONN_F_HW0 | NPUFLOW_CONN_F_HW1) ?
			FM_A_TAKEOUT : FM_A_FORGET);
		n++;
	}
	return n;
}

/* After lost events (ENOBUFS). */
static void resync(struct fmd *d)
{
	int n = ct_sweep(d);

	if (n < 0)
		return;
	d->fm.stat[NPUFLOW_FM_CT_RESYNC]++;
	d->log(L_WARN, "conntrack events lost: resynced by dump, %d taken out", n);
}

/*
 * Every FMD_SWEEP_NS, when anything holds a conntrack entry: a DESTROY can
 * fail to arrive with no overrun reported (VM test 65: 10 of 1,011 after a
 * conntrack -F, none within 60 s), and a made connection whose entry went
 * would stay in hardware.  One dump of the table, which grows with it: the
 * period is stretched by its cost (fm_pace_next()), up to FMD_SWEEP_MAX_NS.
 */
#define FMD_SWEEP_NS		(10ull * 1000000000)
#define FMD_SWEEP_MAX_NS	(60ull * 1000000000)

static void sweep(struct fmd *d)
{
	uint32_t id;
	int n;

	for (id = 0; id < fm_id_end(&d->fm); id++)
		if (d->fm.e[id].rec.state != NPUFLOW_CS_FREE && d->fm.e[id].has_ct)
			break;
	if (id == fm_id_end(&d->fm))
		return;
	n = ct_sweep(d);
	if (n <= 0)
		return;
	d->fm.stat[NPUFLOW_FM_CT_SWEPT] += n;
	d->log(L_WARN, "%d connections whose conntrack entry went without a DESTROY event: taken out", n);
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

/* --- timers ---------------------------------------------------------------- */

static void tick_cb(void *ctx, enum fm_action a, uint32_t id)
{
	struct fmd *d = ctx;
	struct fm_entry *e = &d->fm.e[id];

	switch (a) {
	case FM_A_REARM:
		/* a watched candidate expired: let it raise an event again */
		rearm(d, e);
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

/* --- the egress moves under made connections ------------------------------ */

/*
 * After rtnetlink announced a change (a neighbour's MAC, a route, a rule, a
 * link's state or MTU), at most every FMD_RECHECK_NS: every made
 * connection's egress is looked up again (from rtcache where it still
 * serves: the connections between two hosts share their lookups), and one
 * whose egress moved or cannot be made any more goes back to the host: its
 * rules deleted, its candidates re-armed, the entry forgotten.  A next hop
 * not resolved at the moment keeps its connections as they are (a probe
 * unanswered under load took 901 of 1,024 back to the host at once, and
 * they were made again); its next resolution says whether the MAC moved.  The host
 * forwards its frames with the new facts meanwhile, and they make it again
 * (or keep it on the host, refused) as any new connection.
 */
/* Why fmd_egress_check() took a made connection back, for the log. */
static const char *egress_why(uint32_t rc)
{
	return rc == FMD_EG_MOVED ? "its egress moved" :
	       rc == FMD_EG_IPSEC ? "an IPsec policy covers it" :
	       rc == FM_EG_NO_ROUTE ? "its egress cannot be made any more: no route" :
	       rc == FM_EG_FOREIGN ? "its egress cannot be made any more: another device's port" :
	       rc == FM_EG_SHAPED ? "its egress cannot be made any more: a shaped port" :
	       rc == FM_EG_LOCAL ? "its egress cannot be made any more: the host's own" :
	       rc == FM_EG_VLAN ? "its egress cannot be made any more: a tag not written" :
	       "its egress cannot be made any more";
}

static void recheck_egress(struct fmd *d, uint64_t now)
{
	uint64_t t0 = fmd_now(), end;
	int n = 0, kept = 0;
	uint32_t id, rc;

	if (now >= d->egress_idle_ns)
		d->egress_dirty = 1;
	if (!d->egress_dirty || now < d->next_recheck_ns)
		return;
	d->egress_dirty = 0;
	fmd_egress_recheck_ports(d, now);
	for (id = 0; id < fm_id_end(&d->fm); id++) {
		struct fm_entry *e = &d->fm.e[id];

		if (e->rec.state != NPUFLOW_CS_MADE)
			continue;
		rc = fmd_egress_check(d, &e->rec, e->ct_mark, e->nh_known ? e->nexthop : NULL);
		if (rc == FM_EG_NO_NEIGH)
			kept++;
		if (!rc || rc == FM_EG_NO_NEIGH ||
		    fm_egress_moved(&d->fm, id, now) != FM_A_TAKEOUT)
			continue;
		hw_delete(d, e);
		rearm(d, e);
		d->log(L_INFO, "connection %u back to the host: %s", id, egress_why(rc));
		fm_forget(&d->fm, id);
		fmd_sync_id(d, id);
		n++;
	}
	/* paced by its cost (fm_pace_next()); without the monitor every lookup
	 * is a round trip: once an idle period */
	end = fmd_now();
	d->egress_ns += end - t0;
	d->next_recheck_ns = fm_pace_next(end, d->mon.nl ? FMD_RECHECK_NS : FMD_RECHECK_IDLE_NS,
					  end - t0, FMD_RECHECK_MAX_NS);
	d->egress_idle_ns = fm_pace_next(end, FMD_RECHECK_IDLE_NS, end - t0,
					 FMD_RECHECK_IDLE_MAX_NS);
	if (n)
		d->log(L_INFO, "egress recheck: %d connection(s) back to the host", n);
	if (kept)
		d->log(L_INFO, "egress recheck: %d connection(s) kept, their next hop not "
		       "resolved now", kept);
}

/*
 * Keep nftables' generation now in "fmgen" (one round trip).  @changed,
 * when not NULL: set if it differs from the kept one, or if none was kept
 * while npuflowd holds connections.  0, or -1 when the generation cannot be
 * read (no nftables) or kept.
 */
static int ruleset_gen_keep(struct fmd *d, int *changed)
{
	uint64_t kept = 0, cur;
	uint32_t genid, zero = 0, id;

	if (d->gen_fd < 0 || !d->wq.ctb.nl || nls_nft_genid(&d->wq.ctb, &genid))
		return -1;
	cur = 1ull << 32 | genid;
	if (changed) {
		bpf_map_lookup_elem(d->gen_fd, &zero, &kept);
		*changed = kept != cur;
		if (!kept) {	/* never kept: a change only if something was restored */
			*changed = 0;
			for (id = 0; id < fm_id_end(&d->fm); id++)
				if (d->fm.e[id].rec.state != NPUFLOW_CS_FREE)
					*changed = 1;
		}
	}
	return bpf_map_update_elem(d->gen_fd, &zero, &cur, BPF_ANY) ? -1 : 0;
}

/*
 * nftables committed a new ruleset: a rule may now refuse what the made
 * connections carry, and conntrack keeps their entries whatever the
 * ruleset says.  Every made (held, waiting) connection is released to the
 * host, where the ruleset sees its frames, until conntrack drops it.  And
 * nothing is made, whatever its state, until the host has forwarded both
 * its directions after the change (prove_forwarded()): conntrack's state
 * says nothing of the new rules.  Called first in each pass, so that no
 * lookup is judged against a ruleset older than what was announced.  (The
 * kernel's flowtable keeps forwarding the flows it holds past a ruleset
 * change: docs/operator-guide.md.)
 */
static void ruleset_poll(struct fmd *d, uint64_t now)
{
	int gens, n;

	if (!d->nft.nl)
		return;
	gens = nls_nft_monitor_gens(&d->nft);
	if (gens <= 0)
		return;
	d->fm.stat[NPUFLOW_FM_RULESETS] += gens;
	/* from now on a direction is made only once the host forwarded it again */
	d->ruleset_ns = fmd_now();
	n = fmd_release(d, UINT32_MAX, now);
	d->log(n ? L_INFO : L_DBG, "nftables ruleset changed: %d connection(s) released to the "
	       "host", n);
	ruleset_gen_keep(d, NULL);
}

/*
 * At start, after the restore: a ruleset committed while npuflowd was not
 * running (the generation differs from the one kept in "fmgen", or none was
 * kept while connections were restored) is a change as ruleset_poll() sees
 * one: every made connection is released, and nothing is made before the
 * host forwards it again.
 */
static void ruleset_gen_check(struct fmd *d, uint64_t now)
{
	int changed, n;

	if (ruleset_gen_keep(d, &changed) || !changed)
		return;
	d->fm.stat[NPUFLOW_FM_RULESETS]++;
	d->ruleset_ns = fmd_now();
	n = fmd_release(d, UINT32_MAX, now);
	d->log(L_INFO, "nftables ruleset changed while npuflowd was not running: %d "
	       "connection(s) released to the host", n);
}

void fmd_tick(struct fmd *d, uint64_t now)
{
	uint64_t t0;
	uint32_t i;

	ruleset_poll(d, now);	/* before any lookup is judged (prove_forwarded) */
	lq_flush(d);		/* the pass's lookups */
	wq_flush(d);		/* and makes */
	if (now < d->next_tick_ns)
		return;
	d->next_tick_ns = now + TICK_NS;
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
				do_lookup(d, id, now, v.last_ns);
			} else if (r == FM_A_FORGET) {
				rearm(d, e);
				fm_forget(&d->fm, id);
				fmd_sync_id(d, id);
			}
			break;
		}
		case FM_A_LOOKUP:
			do_lookup(d, id, now, 0);
			break;
		case FM_A_WATCH: {
			struct npuflow_cand v;
			uint32_t nid;

			if (e->rec.state == NPUFLOW_CS_PENDING &&
			    !fmd_read_cand(d, &e->rec.key[0], &v) &&
			    fm_candidate(&d->fm, &e->rec.key[0], v.frames, v.bytes, v.reason,
					 v.last_ns, now, &nid) == FM_A_LOOKUP)
				do_lookup(d, nid, now, v.last_ns);
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
	fmd_keepalive_tick(d, now);
	if (now >= d->next_sweep_ns) {
		uint64_t end;

		t0 = fmd_now();
		sweep(d);
		end = fmd_now();
		d->sweep_ns += end - t0;
		d->next_sweep_ns = fm_pace_next(end, FMD_SWEEP_NS, end - t0, FMD_SWEEP_MAX_NS);
	}
	monitor_poll(d);
	recheck_egress(d, now);
	fmd_egress_keep(d, now);	/* the next connection's shared facts */
	t0 = fmd_now();
	fmd_rescan(d, now);
	d->rescan_ns += fmd_now() - t0;
	fmd_busy_walk(d, now);
	lq_flush(d);
	wq_flush(d);		/* the timers' and the rescan's */
	write_stats(d, now);
}

/* --- release ---------------------------------------------------------------- */

static int release_one(struct fmd *d, uint32_t id, uint64_t now)
{
	struct fm_entry *e = fm_get(&d->fm, id);
	int rc;

	if (!e || fm_release(&d->fm, id, now) != FM_A_RELEASE)
		return 0;
	/* the firewall first: relaxed window tracking, then the hardware entries */
	rc = ctc_be_liberal(&d->ct, &e->rec.key[0], e->rec.zone, 1);
	if (rc)
		d->log(L_WARN, "connection %u: be-liberal failed: %s", id, strerror(-rc));
	hw_delete(d, e);
	d->log(L_INFO, "connection %u released to the host", id);
	fmd_sync_id(d, id);
	return 1;
}

int fmd_release(struct fmd *d, uint32_t id, uint64_t now)
{
	uint32_t i;
	int n = 0;

	if (id != UINT32_MAX)
		return release_one(d, id, now);
	for (i = 0; i < fm_id_end(&d->fm); i++)
		n += release_one(d, i, now);
	return n;
}

void fmd_ctl(struct fmd *d, const char *req, char *out, size_t len, uint64_t now)
{
	unsigned long id;
	char *end;

	if (!strncmp(req, "release ", 8)) {
		const char *arg = req + 8;

		if (!strcmp(arg, "all")) {
			snprintf(out, len, "released %d\n", fmd_release(d, UINT32_MAX, now));
			return;
		}
		id = strtoul(arg, &end, 10);
		if (end == arg || *end || id >= d->fm.cfg.max_conns) {
			snprintf(out, len, "error: no connection '%s'\n", arg);
			return;
		}
		if (!fm_get(&d->fm, id)) {
			snprintf(out, len, "error: no connection %lu\n", id);
			return;
		}
		snprintf(out, len, "released %d\n", fmd_release(d, id, now));
		return;
	}
	if (!strcmp(req, "ping")) {
		snprintf(out, len, "pong\n");
		return;
	}
	snprintf(out, len, "error: unknown request\n");
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
		hw_del_dir(d, rec, 0);
	if (rec->flags & NPUFLOW_CONN_F_HW1)
		hw_del_dir(d, rec, 1);
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
		}
	}
	/* 1. the pinned records */
	if (restore_records(d))
		return -1;
	/* 2. conntrack, one dump: entries that went while we were down or
	 * whose tuple is another entry's now (another NAT, a new id); the
	 * zones in use (ctzones.h) */
	rc = ct_sweep(d);
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
			if (hw_write_dir(d, e, dir))
				bad = 1;
			else
				fixed++;
		}
		if (bad) {
			hw_delete(d, e);
			fm_forget(&d->fm, i);
			kept--;
		}
		fmd_sync_id(d, i);
	}
	free(present);
	d->log(L_INFO, "restored %u connection(s) (%u gone from conntrack, %u rule(s) "
	       "rewritten, %llu orphan rule(s) deleted)", kept, gone, fixed,
	       (unsigned long long)d->fm.stat[NPUFLOW_FM_HW_ORPHANS]);
	ruleset_gen_check(d, now);
	write_stats(d, now);
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
	struct fm_cfg cfg;
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
	d->ct.ev_fd = d->ct.upd_fd = -1;
	d->tc_flags = o->tc_skip_sw ? TCA_CLS_FLAGS_SKIP_SW : 0;
	d->start_ns = fmd_now();
	fm_cfg_init(&cfg);
	cfg.thr_frames = o->threshold;
	cfg.thr_bytes = o->threshold_bytes;
	cfg.thr_all = !o->threshold_any;
	cfg.hold_min_ns = o->hold_min_ns;
	cfg.hold_max_ns = o->hold_max_ns;
	cfg.hold_quiet_ns = o->hold_quiet_ns;
	cfg.retry_ns = o->retry_ns;
	cfg.evict_pps = o->evict_pps;
	cfg.evict_hold_ns = o->evict_hold_ns;
	cfg.max_conns = o->connections;
	if (fm_init(&d->fm, &cfg))
		return -ENOMEM;
	d->mark = calloc(cfg.max_conns, 1);
	d->pending = calloc(cfg.max_conns, sizeof(*d->pending));
	d->pending_a = calloc(cfg.max_conns, sizeof(*d->pending_a));
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
	rc = ctc_open(&d->ct, o->ct_rcvbuf, on_destroy, d);
	if (rc) {
		log(L_ERR, "cannot open conntrack netlink: %s", strerror(-rc));
		return rc;
	}
	if (d->ct.rcvbuf < o->ct_rcvbuf)
		log(L_WARN, "conntrack event buffer %u bytes, asked %u", d->ct.rcvbuf,
		    o->ct_rcvbuf);
	rc = o->ct_rcvbuf ? ctc_watch_closing(&d->ct, o->ct_rcvbuf, on_closing) : 0;
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
	d->next_keepalive_ns = d->start_ns + o->keepalive_ns;
	d->next_sweep_ns = d->start_ns + FMD_SWEEP_NS;
	return 0;
}

void fmd_fini(struct fmd *d)
{
	ctc_close(&d->ct);
	nls_close(&d->rt);
	nls_close(&d->tc);
	nls_close(&d->mon);
	nls_close(&d->nft);
	nls_close(&d->xfrm);
	nls_close(&d->xmon);
	nls_close(&d->wq.ctb);
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
struct flush_ctx {
	struct nlsock *s;
	struct { uint32_t ifindex, handle, pp; } *r;
	uint32_t n, cap;
};

static int flush_cb(const struct nlmsghdr *nlh, void *data)
{
	struct flush_ctx *c = data;
	struct tcfl_info in;

	if (tcfl_parse(nlh, &in) || !in.handle || !tcfl_prio_ours(in.prio))
		return MNL_CB_OK;
	if (c->n == c->cap) {
		uint32_t nc = c->cap ? c->cap * 2 : 64;
		void *p = realloc(c->r, nc * sizeof(*c->r));

		if (!p)
			return MNL_CB_OK;
		c->r = p;
		c->cap = nc;
	}
	c->r[c->n].ifindex = in.ifindex;
	c->r[c->n].handle = in.handle;
	c->r[c->n++].pp = (uint32_t)in.prio << 16 | in.protocol;
	return MNL_CB_OK;
}

int fmd_flush_rules(fmd_log_fn log)
{
	struct if_nameindex *ifs = if_nameindex(), *i;
	struct flush_ctx c = { 0 };
	struct nlsock s;
	char buf[512] __attribute__((aligned(8)));
	uint32_t k, n = 0;

	if (nls_open(&s)) {
		if (ifs)
			if_freenameindex(ifs);
		return -1;
	}
	c.s = &s;
	for (i = ifs; i && i->if_index; i++) {
		size_t len = tcfl_build_dump(buf, sizeof(buf), i->if_index, nls_seq(&s), 1);

		nls_talk(&s, buf, len, flush_cb, &c);
	}
	for (k = 0; k < c.n; k++) {
		size_t len = tcfl_build_del(buf, sizeof(buf), c.r[k].ifindex, c.r[k].pp >> 16,
					    c.r[k].pp & 0xffff, c.r[k].handle, nls_seq(&s));

		if (!nls_talk(&s, buf, len, NULL, NULL))
			n++;
	}
	if (n)
		log(L_INFO, "removed %u flow rule(s)", n);
	free(c.r);
	nls_close(&s);
	if (ifs)
		if_freenameindex(ifs);
	return 0;
}
