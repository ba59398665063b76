// SPDX-License-Identifier: GPL-2.0
/*
 * fmd_egress.c - where a direction of a connection leaves (see
 * fmd_egress.h): route, egress port and its facts, next hop, 802.1Q tags.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <linux/rtnetlink.h>
#include "fmd.h"
#include "fmd_egress.h"
#include "vlanstack.h"
#include "pppoetab.h"
#include "tcflower.h"

int fmd_port_of(const struct fmd *d, uint32_t ifindex)
{
	int i;

	for (i = 0; i < d->nports; i++)
		if (d->ports[i].ifindex == ifindex)
			return i;
	return -1;
}

/*
 * IPv6 forwarding, global: ip6_forward() drops what arrives while
 * net.ipv6.conf.all.forwarding is 0, whatever the route says (IPv4's
 * per-device forwarding is in the route lookup with an input device:
 * ip_route_input_slow() answers -EHOSTUNREACH).  1 if it cannot be read.
 * Its file is kept open (a pread a port's facts, not four system calls).
 */
static int ipv6_forwarding(struct fmd *d)
{
	char buf[16];
	ssize_t n;

	if (d->fwd6_fd < 0)
		d->fwd6_fd = open("/proc/sys/net/ipv6/conf/all/forwarding", O_RDONLY | O_CLOEXEC);
	if (d->fwd6_fd < 0)
		return 1;
	n = pread(d->fwd6_fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return 1;
	buf[n] = 0;
	return strtol(buf, NULL, 10) != 0;
}

/*
 * Port @po's facts asked of rtnetlink: 0, or -ENODEV.  Facts that differ
 * from the last answer count in d->facts_moved: a qdisc or IPv6's
 * forwarding are not announced to the monitor, and the idle recheck walks
 * the made connections only when something moved (fmd_recheck_made()).
 */
static int port_facts_ask(struct fmd *d, int po, uint64_t now)
{
	struct fmd_port *p = &d->ports[po];
	int fwd6 = d->fwd6, shaped = p->shaped;
	uint8_t mac[6];
	uint32_t mtu = p->mtu;
	struct nls_link l;

	memcpy(mac, p->mac, 6);
	d->fwd6 = ipv6_forwarding(d);
	if (nls_link_get(&d->rt, p->ifindex, &l))
		return -ENODEV;
	memcpy(p->mac, l.mac, 6);
	p->mtu = l.mtu;
	p->shaped = nls_shaped(&d->tc, p->ifindex) > 0;
	if (p->facts_ns && (fwd6 != d->fwd6 || shaped != p->shaped || mtu != p->mtu ||
			    memcmp(mac, p->mac, 6)))
		d->facts_moved++;
	p->facts_gen = d->rtc->gen;
	p->facts_ns = now;
	return 0;
}

static int port_facts_fresh(const struct fmd *d, int po, uint64_t now)
{
	const struct fmd_port *p = &d->ports[po];

	return rtc_fresh(d->rtc, p->facts_gen, p->facts_ns, now);
}

int fmd_port_facts(struct fmd *d, int po, uint64_t now)
{
	if (port_facts_fresh(d, po, now)) {
		d->fm.stat[NPUFLOW_FM_EGRESS_CACHED]++;
		return 0;
	}
	d->fm.stat[NPUFLOW_FM_EGRESS_ASKED]++;
	return port_facts_ask(d, po, now);
}

/* Whether VLAN device @e of @v is on a port, or on a VLAN device on one. */
static int on_port(const struct fmd *d, const struct nls_vlan *v, int n,
		   const struct nls_vlan *e)
{
	int i;

	if (fmd_port_of(d, e->lower) >= 0)
		return 1;
	for (i = 0; i < n; i++)
		if (v[i].ifindex == e->lower)
			return fmd_port_of(d, v[i].lower) >= 0;
	return 0;
}

/*
 * The host's VLAN devices (802.1Q and 802.1ad), one dump.  Those on a port
 * (or on a VLAN device on one) have their shaping read with them.  A dump that fails leaves none: tagged
 * directions stay on the host until the next.  A table that differs from
 * the last counts in d->facts_moved (fmd_recheck_made()).
 */
static void vlans_ask(struct fmd *d, uint64_t now)
{
	struct fmd_vlans *t = &d->vlans;
	struct nls_vlan v[FMD_VLANS_MAX];
	uint8_t shaped[FMD_VLANS_MAX];
	int i, n;

	n = nls_vlans_get(&d->rt, v, FMD_VLANS_MAX, 1);
	n = n > 0 ? n : 0;
	for (i = 0; i < n; i++)
		shaped[i] = on_port(d, v, n, &v[i]) && nls_shaped(&d->tc, v[i].ifindex) > 0;
	/* every field of a dumped device is set: the entries compare whole */
	if (t->valid && (n != t->n || memcmp(v, t->v, n * sizeof(v[0])) ||
			 memcmp(shaped, t->shaped, n)))
		d->facts_moved++;
	memcpy(t->v, v, n * sizeof(v[0]));
	memcpy(t->shaped, shaped, n);
	t->n = n;
	t->gen = d->rtc->gen;
	t->at_ns = now;
	t->valid = 1;
}

static int vlans_are_fresh(const struct fmd *d, uint64_t now)
{
	return d->vlans.valid && rtc_fresh(d->rtc, d->vlans.gen, d->vlans.at_ns, now);
}

/* The 802.1Q devices, from rtc's generation: asked again when rtnetlink
 * announced a change or they aged out. */
static void vlans_fresh(struct fmd *d, uint64_t now)
{
	if (vlans_are_fresh(d, now)) {
		d->fm.stat[NPUFLOW_FM_EGRESS_CACHED]++;
		return;
	}
	d->fm.stat[NPUFLOW_FM_EGRESS_ASKED]++;
	vlans_ask(d, now);
}

/* The VLAN device @ifindex, as an index of d->vlans, or -1. */
static int vlan_dev(const struct fmd *d, uint32_t ifindex)
{
	int i;

	for (i = 0; i < d->vlans.n; i++)
		if (d->vlans.v[i].ifindex == ifindex)
			return i;
	return -1;
}

/*
 * What the policy rules select routes by, from rtc's generation (rules are
 * among what rtnetlink announces): one dump after a change.  A dump that
 * fails is taken as rules by everything (exact routes, fewer shared).
 */
static int rules_select(struct fmd *d)
{
	int sel;

	if (d->rules_gen == d->rtc->gen && d->rtc->max_age_ns)
		return d->rules_sel;
	sel = nls_rules_select(&d->rt);
	d->rules_sel = sel < 0 ? NLS_RULES_MARK | NLS_RULES_FLOW : sel;
	d->rules_gen = d->rtc->gen;
	return d->rules_sel;
}

void fmd_egress_warm(struct fmd *d, uint64_t now)
{
	vlans_fresh(d, now);
	rules_select(d);
}

void fmd_egress_keep(struct fmd *d, uint64_t now)
{
	int i;

	for (i = 0; i < d->nports; i++)
		if (!port_facts_fresh(d, i, now))
			port_facts_ask(d, i, now);
	if (!vlans_are_fresh(d, now))
		vlans_ask(d, now);
	rules_select(d);
}

/*
 * The route of @k (mark @mark) from @iif to @dst: 0, or FM_EG_NO_ROUTE.
 * The mark and the protocol and ports are asked with it when a policy
 * rule selects by them, so that the connections between two hosts share
 * their route otherwise.
 */
static uint32_t route(struct fmd *d, const struct npuflow_key *k, const uint8_t *dst,
		      uint32_t iif, uint32_t mark, uint64_t now, struct nls_route *r)
{
	int af = k->family == 10 ? AF_INET6 : AF_INET, rc, sel = rules_select(d);
	struct nls_flow f;

	memset(&f, 0, sizeof(f));
	if (sel & NLS_RULES_MARK)
		f.mark = mark;
	if (sel & NLS_RULES_FLOW) {
		f.proto = k->proto;
		f.sport = k->sport;
		f.dport = k->dport;
	}
	if (!rtc_route_get(d->rtc, af, k->saddr, dst, iif, &f, now, r)) {
		d->fm.stat[NPUFLOW_FM_EGRESS_CACHED]++;
		return 0;
	}
	d->fm.stat[NPUFLOW_FM_EGRESS_ASKED]++;
	rc = nls_route_get(&d->rt, af, k->saddr, dst, iif, &f, r);
	if (rc || !r->oif)
		return FM_EG_NO_ROUTE;
	rtc_route_put(d->rtc, af, k->saddr, dst, iif, &f, now, r);
	return 0;
}

/* The next hop's MAC on @oif: 0, or FM_EG_NO_NEIGH. */
static uint32_t next_hop(struct fmd *d, int af, uint32_t oif, const uint8_t *addr,
			 uint64_t now, uint8_t dmac[6])
{
	int rc = rtc_neigh_get(d->rtc, af, oif, addr, now, dmac);

	if (rc != -ENOENT) {
		d->fm.stat[NPUFLOW_FM_EGRESS_CACHED]++;
		return rc ? FM_EG_NO_NEIGH : 0;
	}
	d->fm.stat[NPUFLOW_FM_EGRESS_ASKED]++;
	rc = nls_neigh_get(&d->rt, af, oif, addr, dmac);
	/* not resolved now (no entry, incomplete, failed): kept as such, so
	 * that the connections sharing it ask once */
	if (rc == -ENOENT || rc == -EAGAIN)
		rtc_neigh_put(d->rtc, af, oif, addr, now, NULL);
	if (rc)
		return FM_EG_NO_NEIGH;
	rtc_neigh_put(d->rtc, af, oif, addr, now, dmac);
	return 0;
}

/* Whether VLAN device @vi of d->vlans, or the one under it, shapes. */
static int stack_shaped(const struct fmd *d, int vi)
{
	int lo = vlan_dev(d, d->vlans.v[vi].lower);

	return d->vlans.shaped[vi] || (lo >= 0 && d->vlans.shaped[lo]);
}

static int same_switch(const struct fmd_port *a, const struct fmd_port *b)
{
	return a->switch_id_len == b->switch_id_len &&
	       !memcmp(a->switch_id, b->switch_id, a->switch_id_len);
}

void fmd_egress_pass(struct fmd *d)
{
	d->egress_pass++;
}

/* The host's PPPoE sessions as this pass of lookups reads them: their
 * number (more than PPPOETAB_PASS_MAX, or none readable: none usable). */
static int sessions(struct fmd *d, const struct pppoe_sess **s)
{
	int n = pppoetab_pass_get(&d->pppoe, PPPOETAB_PATH, d->egress_pass, s);

	return n > 0 && n <= PPPOETAB_PASS_MAX ? n : 0;
}

/* The device a direction arriving as @k is received on (its tags'): 0 with
 * *@dev, or FM_EG_VLAN. */
static uint32_t ingress_dev(struct fmd *d, const struct npuflow_key *k, uint64_t now,
			    uint32_t *dev)
{
	int vi;

	*dev = k->ifindex;
	if (k->vlan_inner && !k->vlan_outer)
		return FM_EG_VLAN;
	if (!k->vlan_outer)
		return 0;
	vlans_fresh(d, now);
	vi = vlanstack_in(d->vlans.v, d->vlans.n, k->ifindex, k->vlan_outer, k->vlan_inner);
	if (vi < 0)
		return FM_EG_VLAN;
	*dev = d->vlans.v[vi].ifindex;
	return 0;
}

/*
 * The PPPoE session on device @dev: session @sid, or with @sid 0 any, as
 * long as it is the only one on @dev.  0 with @out, or FM_EG_PPPOE.
 */
static uint32_t session_on(struct fmd *d, uint32_t dev, uint16_t sid, struct pppoe_sess *out)
{
	const struct pppoe_sess *s;
	char name[IF_NAMESIZE];
	int n, i;

	n = sessions(d, &s);
	if (!n || !if_indextoname(dev, name))
		return FM_EG_PPPOE;
	i = pppoetab_find(s, n, name, 0);
	if (i < 0 || (sid && s[i].sid != sid))
		return FM_EG_PPPOE;
	*out = s[i];
	return 0;
}

/* Whether @ifindex is a ppp unit (ARPHRD_PPP). */
static int is_ppp(struct fmd *d, uint32_t ifindex)
{
	struct nls_link l;

	return !nls_link_get(&d->rt, ifindex, &l) && l.type == ARPHRD_PPP;
}

/*
 * A direction arriving as @k in its session on @dev is the host's from the
 * ppp device its route back to the source leaves by: 0 with *@iif, or
 * FM_EG_PPPOE.
 */
static uint32_t ppp_ingress(struct fmd *d, const struct npuflow_key *k, uint32_t dev,
			    uint32_t *iif)
{
	int af = k->family == 10 ? AF_INET6 : AF_INET;
	struct nls_flow f = { 0 };
	struct pppoe_sess s;
	struct nls_route r;

	if (session_on(d, dev, k->pppoe_sid, &s))
		return FM_EG_PPPOE;
	if (nls_route_get(&d->rt, af, NULL, k->saddr, 0, &f, &r) || !r.oif ||
	    !is_ppp(d, r.oif))
		return FM_EG_PPPOE;
	*iif = r.oif;
	return 0;
}

/*
 * The only session of the host on a device of the ports (a port, or a VLAN
 * stack on one): 0 with @out and its device's index in *@dev, or
 * FM_EG_PPPOE (none, or several: which is the ppp unit's, user space
 * cannot tell).
 */
static uint32_t only_session(struct fmd *d, struct pppoe_sess *out, uint32_t *dev)
{
	const struct pppoe_sess *s;
	uint32_t ifi, lower;
	uint16_t o, in;
	int n = sessions(d, &s), i, found = 0;

	for (i = 0; i < n; i++) {
		ifi = if_nametoindex(s[i].dev);
		if (!ifi || vlanstack_out(d->vlans.v, d->vlans.n, ifi, &lower, &o, &in) < 0 ||
		    fmd_port_of(d, lower) < 0)
			continue;
		if (found++)
			return FM_EG_PPPOE;
		*out = s[i];
		*dev = ifi;
	}
	return found ? 0 : FM_EG_PPPOE;
}

/*
 * A direction routed out of ppp device @ppp: in @peer's session (the other
 * direction's, on the device it arrives on), or the only one on the
 * ports'.  Its port, tags, MACs and session into @eg: 0, or FM_EG_*.
 */
static uint32_t ppp_egress(struct fmd *d, const struct npuflow_key *peer, uint32_t ppp,
			   int pi, uint64_t now, struct fmd_egress *eg)
{
	struct pppoe_sess s;
	uint32_t dev, lower;
	int po, vi;

	vlans_fresh(d, now);
	if (peer && peer->pppoe_sid) {
		if (ingress_dev(d, peer, now, &dev) || session_on(d, dev, peer->pppoe_sid, &s))
			return FM_EG_PPPOE;
	} else if (only_session(d, &s, &dev)) {
		return FM_EG_PPPOE;
	}
	if (vlanstack_out(d->vlans.v, d->vlans.n, dev, &lower, &eg->out_vid,
			  &eg->out_vid_inner) < 0)
		return FM_EG_VLAN;
	po = fmd_port_of(d, lower);
	if (po < 0 || pi < 0 || !same_switch(&d->ports[pi], &d->ports[po]))
		return FM_EG_FOREIGN;
	if (fmd_port_facts(d, po, now))
		return FM_EG_NO_ROUTE;
	vi = vlan_dev(d, dev);
	if (d->ports[po].shaped || (vi >= 0 && stack_shaped(d, vi)) ||
	    nls_shaped(&d->tc, ppp) > 0)
		return FM_EG_SHAPED;
	eg->oif = ppp;
	eg->port = d->ports[po].ifindex;
	eg->out_sid = s.sid;
	memcpy(eg->smac, vi >= 0 ? d->vlans.v[vi].mac : d->ports[po].mac, 6);
	memcpy(eg->dmac, s.remote, 6);
	return 0;
}

uint32_t fmd_egress(struct fmd *d, const struct npuflow_key *k, const struct npuflow_key *peer,
		    const uint8_t *out_daddr, uint32_t mark, struct fmd_egress *eg)
{
	int af = k->family == 10 ? AF_INET6 : AF_INET, pi, po, vi = -1;
	uint32_t iif, rc;
	uint64_t now = fmd_now();
	struct nls_route r;

	memset(eg, 0, sizeof(*eg));
	rc = ingress_dev(d, k, now, &iif);
	if (!rc && k->pppoe_sid)
		rc = ppp_ingress(d, k, iif, &iif);
	if (rc)
		return rc;
	/* as the stack routes it: after the destination translation (conntrack
	 * un-NATs a reply in PREROUTING), before the source one (POSTROUTING) */
	rc = route(d, k, out_daddr, iif, mark, now, &r);
	if (rc)
		return rc;
	if (r.type == RTN_LOCAL || r.type == RTN_BROADCAST || r.type == RTN_MULTICAST)
		return FM_EG_LOCAL;
	if (r.type != RTN_UNICAST)
		return FM_EG_NO_ROUTE;
	eg->oif = r.oif;
	eg->port = r.oif;
	pi = fmd_port_of(d, k->ifindex);
	po = fmd_port_of(d, r.oif);
	if (po < 0) {
		uint32_t lower;

		vlans_fresh(d, now);
		vi = vlan_dev(d, r.oif);
		if (vi < 0 && is_ppp(d, r.oif))
			return af == AF_INET6 && !d->fwd6 ? FM_EG_NO_ROUTE :
			       ppp_egress(d, peer, r.oif, pi, now, eg);
		if (vlanstack_out(d->vlans.v, d->vlans.n, r.oif, &lower, &eg->out_vid,
				  &eg->out_vid_inner) < 0)
			return FM_EG_VLAN;
		if (vi >= 0)
			po = fmd_port_of(d, lower);
	}
	if (po < 0 || pi < 0 || !same_switch(&d->ports[pi], &d->ports[po]))
		return FM_EG_FOREIGN;
	if (fmd_port_facts(d, po, now) || (af == AF_INET6 && !d->fwd6))
		return FM_EG_NO_ROUTE;
	if (d->ports[po].shaped || (vi >= 0 && stack_shaped(d, vi)))
		return FM_EG_SHAPED;
	eg->oif = d->ports[po].ifindex;
	eg->port = eg->oif;
	if (vi >= 0) {
		memcpy(eg->smac, d->vlans.v[vi].mac, 6);
	} else {
		memcpy(eg->smac, d->ports[po].mac, 6);
	}
	/* the neighbour is the routing device's: the VLAN device's if tagged */
	memcpy(eg->nexthop, r.nexthop, sizeof(eg->nexthop));
	return next_hop(d, af, r.oif, r.nexthop, now, eg->dmac);
}

/* Direction @dir of @c leaves as @eg says: same port, tag and source MAC,
 * and the same next hop's MAC when @dmac. */
static int egress_same(const struct npuflow_conn *c, int dir, const struct fmd_egress *eg,
		       int dmac)
{
	return eg->oif == c->out_ifindex[dir] && eg->out_vid == c->out_vid[dir] &&
	       eg->out_vid_inner == c->out_vid_inner[dir] && eg->out_sid == c->out_sid[dir] &&
	       (!dmac || !memcmp(eg->dmac, c->dmac[dir], 6)) &&
	       !memcmp(eg->smac, c->smac[dir], 6);
}

void fmd_egress_recheck_ports(struct fmd *d, uint64_t now)
{
	struct fmd_port *p;
	int i;

	for (i = 0; i < d->nports; i++) {
		p = &d->ports[i];
		if (fmd_port_facts(d, i, now))
			continue;
		p->mtu_changed = p->mtu_checked && p->mtu != p->mtu_checked;
		p->mtu_checked = p->mtu;
	}
}

int fmd_ipsec(struct fmd *d, const struct npuflow_key key[2], const uint32_t out_ifindex[2])
{
	struct npuflow_key out;
	int dir;

	if (!d->xfrm.nl)
		return d->xfrm_unknown;
	if (d->xfrm_stale || (!d->xdb.loaded && fmd_now() >= d->xfrm_retry_ns)) {
		d->xfrm_stale = 0;
		if (xfrmdb_load(&d->xdb, &d->xfrm)) {
			/* refused (ipsec) until a load succeeds, tried once a second */
			d->xfrm_retry_ns = fmd_now() + 1000000000ull;
			d->log(L_WARN, "cannot read xfrm's policies (%s): connections are refused "
			    "(ipsec) until they can be read", strerror(errno));
		}
	}
	for (dir = 0; dir < 2; dir++) {
		tcfl_out_key(key, dir, &out);
		if (xfrmdb_conn_protected(&d->xdb, &key[dir], &out, out_ifindex[dir]))
			return 1;
	}
	return 0;
}

uint32_t fmd_egress_check(struct fmd *d, const struct npuflow_conn *c, uint32_t mark,
			  const uint8_t (*nexthop)[16])
{
	uint32_t rc, unresolved = 0;
	struct fmd_egress eg;
	int dir, po;

	for (dir = 0; dir < 2; dir++) {
		rc = fmd_egress(d, &c->key[dir], &c->key[!dir], c->key[!dir].saddr, mark, &eg);
		if (rc == FM_EG_NO_NEIGH)
			unresolved = rc;	/* all but the next hop's MAC is in @eg */
		else if (rc)
			return rc;
		if (!egress_same(c, dir, &eg, rc != FM_EG_NO_NEIGH))
			return FMD_EG_MOVED;
		/* a new gateway not resolved yet has no MAC to compare */
		if (nexthop && memcmp(eg.nexthop, nexthop[dir], sizeof(eg.nexthop)))
			return FMD_EG_MOVED;
		po = fmd_port_of(d, eg.port);
		if (po >= 0 && d->ports[po].mtu_changed)
			return FMD_EG_MOVED;
	}
	if (fmd_ipsec(d, c->key, c->out_ifindex))
		return FMD_EG_IPSEC;
	return unresolved;
}
