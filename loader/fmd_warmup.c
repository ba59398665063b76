// SPDX-License-Identifier: GPL-2.0
/*
 * fmd_warmup.c - the first connection's one-time work, done at start
 * (fmd_warmup(), fmd.h).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>
#include <linux/if_ether.h>
#include <linux/pkt_cls.h>
#include "fmd_int.h"
#include "fmd_egress.h"

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
		fmd_egress(d, &k, NULL, k.daddr, 0, &eg);
		k.ifindex = nb[b].ifindex;
		memcpy(k.saddr, nb[b].addr, 16);
		memcpy(k.daddr, nb[a].addr, 16);
		fmd_egress(d, &k, NULL, k.daddr, 0, &eg);
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
		if (!fmd_hw_clsact(d, d->ports[i].ifindex))
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
