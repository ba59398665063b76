// SPDX-License-Identifier: GPL-2.0
/*
 * npuep flow offload: a rule's matches turned into a microflow key
 * (ingress port, VLAN tags, PPPoE session, addresses, protocol, ports),
 * each exact or refused with a message.  The rest of the parse is in
 * flow_parse_pure.c, which calls npuep_fp_matches().
 *
 * Pure C (npu_compat.h): compiled into npuep.ko and, unchanged, into
 * the cmocka unit tests.
 */
#include "flow_parse_int.h"
/* ---- matches ------------------------------------------------------ */

static int npuep_fp_keys(struct npuep_fp *p)
{
	u32 keys = p->d->keys;

	if (p->d->l2_encap)
		keys &= ~NPUEP_FP_KEYS_L2;
	if (keys & ~NPUEP_FP_KEYS)
		return npuep_fp_refuse(p,
				       "fast path matches port, VLAN, addresses, protocol, ports only");
	return 0;
}

/*
 * A flowtable offers every rule to every device's callback: another port's
 * rule is not ours to count or refuse (-ENODEV, no message).
 */
static int npuep_fp_ingress(struct npuep_fp *p)
{
	const struct npuep_flow_desc *d = p->d;

	if ((d->keys & NPUEP_FD_META) && d->meta.mask.ingress_ifindex &&
	    d->meta.key.ingress_ifindex != d->ifindex)
		return -ENODEV;
	return 0;
}

/* The frame's ingress is all the fast path knows of how it arrived. */
static int npuep_fp_meta(struct npuep_fp *p)
{
	const struct npuep_flow_desc *d = p->d;

	if (!(d->keys & NPUEP_FD_META))
		return 0;
	if (d->meta.mask.l2_miss)
		return npuep_fp_refuse(p, "fast path cannot match l2_miss");
	if (d->meta.mask.ingress_iftype)
		return npuep_fp_refuse(p,
				       "fast path cannot match the ingress interface type");
	return 0;
}

static int npuep_fp_control(struct npuep_fp *p)
{
	const struct npuep_flow_desc *d = p->d;

	if ((d->keys & (NPUEP_FD_CONTROL | NPUEP_FD_BASIC | NPUEP_FD_PORTS)) !=
	    (NPUEP_FD_CONTROL | NPUEP_FD_BASIC | NPUEP_FD_PORTS))
		return npuep_fp_refuse(p,
				       "fast path needs an exact 5-tuple (protocol, addresses, ports)");
	if (d->control.mask.flags)
		return npuep_fp_refuse(p, "Unsupported match on control.flags");
	return 0;
}

static int npuep_fp_basic(struct npuep_fp *p)
{
	const struct npuep_flow_desc *d = p->d;

	if (d->basic.mask.ip_proto != 0xff ||
	    (d->basic.key.ip_proto != IPPROTO_TCP &&
	     d->basic.key.ip_proto != IPPROTO_UDP))
		return npuep_fp_refuse(p,
				       "fast path forwards TCP and UDP only (exact ip_proto)");
	p->key->proto = d->basic.key.ip_proto;
	return 0;
}

static int npuep_fp_ipv4(struct npuep_fp *p)
{
	const struct npuep_flow_desc *d = p->d;

	if (d->ipv4.mask.src != htonl(0xffffffff) ||
	    d->ipv4.mask.dst != htonl(0xffffffff))
		return npuep_fp_refuse(p, "fast path needs exact IPv4 addresses");
	p->key->family = NPU_AF_INET;
	p->key->saddr[0] = d->ipv4.key.src;
	p->key->daddr[0] = d->ipv4.key.dst;
	memcpy(p->l3 + offsetof(struct iphdr, saddr), &d->ipv4.key.src, 4);
	memcpy(p->l3 + offsetof(struct iphdr, daddr), &d->ipv4.key.dst, 4);
	p->v6 = false;
	p->l3len = sizeof(struct iphdr);
	return 0;
}

static bool npuep_fp_all_ones(const u8 *b, u32 len)
{
	u32 i;

	for (i = 0; i < len; i++)
		if (b[i] != 0xff)
			return false;
	return true;
}

static int npuep_fp_ipv6(struct npuep_fp *p)
{
	const struct npuep_flow_desc *d = p->d;

	if (!npuep_fp_all_ones(d->ipv6.mask.src, 16) ||
	    !npuep_fp_all_ones(d->ipv6.mask.dst, 16))
		return npuep_fp_refuse(p, "fast path needs exact IPv6 addresses");
	p->key->family = NPU_AF_INET6;
	memcpy(p->key->saddr, d->ipv6.key.src, 16);
	memcpy(p->key->daddr, d->ipv6.key.dst, 16);
	memcpy(p->l3 + offsetof(struct ipv6hdr, saddr), d->ipv6.key.src, 16);
	memcpy(p->l3 + offsetof(struct ipv6hdr, daddr), d->ipv6.key.dst, 16);
	p->v6 = true;
	p->l3len = sizeof(struct ipv6hdr);
	return 0;
}

static int npuep_fp_addrs(struct npuep_fp *p)
{
	switch (p->d->control.key.addr_type) {
	case NPUEP_FD_ADDR_IPV4:
		return npuep_fp_ipv4(p);
	case NPUEP_FD_ADDR_IPV6:
		return npuep_fp_ipv6(p);
	default:
		return npuep_fp_refuse(p, "fast path needs IPv4 or IPv6 addresses");
	}
}

/* A matched ethertype: none, or exactly @want. */
static bool npuep_fp_type_ok(__be16 key, __be16 mask, __be16 want)
{
	return !mask || (mask == htons(0xffff) && key == want);
}

/*
 * The ethertypes along the headers, where the rule matches them: after the
 * outer tag the inner one's TPID, after the tags the session's, then the
 * addresses' (the flow dissector's n_proto).  A rule for another one (a
 * tag it does not match, say) means frames the microflow key cannot tell
 * apart.
 */
static int npuep_fp_ethertype(struct npuep_fp *p)
{
	const struct npuep_flow_desc *d = p->d;
	__be16 ip = htons(p->v6 ? ETH_P_IPV6 : ETH_P_IP);
	__be16 inner = d->keys & NPUEP_FD_PPPOE ? htons(ETH_P_PPP_SES) : ip;
	__be16 outer = d->keys & NPUEP_FD_CVLAN ? htons(ETH_P_8021Q) : inner;

	if (!npuep_fp_type_ok(d->basic.key.n_proto, d->basic.mask.n_proto, ip) ||
	    ((d->keys & NPUEP_FD_VLAN) &&
	     !npuep_fp_type_ok(d->vlan.key.eth_type, d->vlan.mask.eth_type, outer)) ||
	    ((d->keys & NPUEP_FD_CVLAN) &&
	     !npuep_fp_type_ok(d->cvlan.key.eth_type, d->cvlan.mask.eth_type, inner)))
		return npuep_fp_refuse(p, NPUEP_FP_ETHERTYPE);
	return 0;
}

static int npuep_fp_ports(struct npuep_fp *p)
{
	const struct npuep_flow_desc *d = p->d;

	if (d->ports.mask.src != htons(0xffff) ||
	    d->ports.mask.dst != htons(0xffff))
		return npuep_fp_refuse(p, "fast path needs exact L4 ports");
	p->key->sport = d->ports.key.src;
	p->key->dport = d->ports.key.dst;
	memcpy(p->l4 + offsetof(struct udphdr, source), &d->ports.key.src, 2);
	memcpy(p->l4 + offsetof(struct udphdr, dest), &d->ports.key.dst, 2);
	return 0;
}

/*
 * nf_flow_table matches "no RST, no FIN": the fast path punts those itself;
 * anything else is not a microflow.
 */
static int npuep_fp_tcp(struct npuep_fp *p)
{
	const struct npuep_flow_desc *d = p->d;

	if (!(d->keys & NPUEP_FD_TCP))
		return 0;
	if (d->tcp_flags.key ||
	    (d->tcp_flags.mask & ~htons(NPUEP_FP_TCP_FIN_RST)))
		return npuep_fp_refuse(p,
				       "fast path cannot match TCP flags (it punts SYN/FIN/RST)");
	return 0;
}

/* A tag's exact id, of neither priority nor DEI; @msg otherwise. */
static int npuep_fp_tag_exact(struct npuep_fp *p, const struct npuep_fd_vlan *mask,
			      const char *msg)
{
	if (mask->id != NPUEP_FP_VID_MASK || mask->priority || mask->dei)
		return npuep_fp_refuse(p, msg);
	return 0;
}

/*
 * The outer tag of an exact id 1..4095: 802.1Q, or 802.1ad with
 * NPU_CAP_L2_ENCAP.  The key's 0 is "untagged"; the coprocessor punts
 * priority tags.
 */
static int npuep_fp_vlan(struct npuep_fp *p)
{
	const struct npuep_flow_desc *d = p->d;
	__be16 tpid = d->vlan.mask.tpid ? d->vlan.key.tpid : htons(ETH_P_8021Q);
	int err;

	if (!(d->keys & NPUEP_FD_VLAN))
		return 0;
	if (!d->l2_encap) {
		err = npuep_fp_tag_exact(p, &d->vlan.mask, NPUEP_FP_VLAN_EXACT);
		if (!err && tpid != htons(ETH_P_8021Q))
			err = npuep_fp_refuse(p, NPUEP_FP_VLAN_EXACT);
	} else {
		err = npuep_fp_tag_exact(p, &d->vlan.mask, NPUEP_FP_VLANS_EXACT);
		if (!err && tpid != htons(ETH_P_8021Q) && tpid != htons(ETH_P_8021AD))
			err = npuep_fp_refuse(p,
					      "fast path matches 802.1Q and 802.1ad tags only");
	}
	if (err)
		return err;
	if (!d->vlan.key.id)
		return npuep_fp_refuse(p, NPUEP_FP_PRIO_TAG);
	p->key->vlan = htons(d->vlan.key.id);
	if (tpid == htons(ETH_P_8021AD))
		p->key->l2 |= NPU_KEY_L2_AD;
	return 0;
}

/* The inner tag: 802.1Q, of an exact id 1..4095, under the outer one. */
static int npuep_fp_cvlan(struct npuep_fp *p)
{
	const struct npuep_flow_desc *d = p->d;
	int err;

	if (!(d->keys & NPUEP_FD_CVLAN))
		return 0;
	if (!(d->keys & NPUEP_FD_VLAN))
		return npuep_fp_refuse(p, "fast path matches an inner tag under an outer one");
	err = npuep_fp_tag_exact(p, &d->cvlan.mask, NPUEP_FP_VLANS_EXACT);
	if (err)
		return err;
	if (d->cvlan.mask.tpid && d->cvlan.key.tpid != htons(ETH_P_8021Q))
		return npuep_fp_refuse(p, "fast path matches an inner 802.1Q tag only");
	if (!d->cvlan.key.id)
		return npuep_fp_refuse(p, NPUEP_FP_PRIO_TAG);
	p->key->vlan_inner = htons(d->cvlan.key.id);
	return 0;
}

/*
 * A PPPoE session of an exact id 1..0xfffe carrying the addresses' IP
 * version: what the coprocessor keys (npu_hw.h).  The rule ends it
 * (npuep_fp_rewrite()).
 */
static int npuep_fp_pppoe(struct npuep_fp *p)
{
	const struct npuep_flow_desc *d = p->d;
	const struct npuep_fd_pppoe *k = &d->pppoe.key, *m = &d->pppoe.mask;
	u16 proto = p->v6 ? NPUEP_FP_PPP_IPV6 : NPUEP_FP_PPP_IP;

	if (!(d->keys & NPUEP_FD_PPPOE))
		return 0;
	if (!npuep_fp_type_ok(k->type, m->type, htons(ETH_P_PPP_SES)))
		return npuep_fp_refuse(p, "fast path matches PPPoE sessions (0x8864) only");
	if (m->sid != htons(0xffff) || !k->sid || k->sid == htons(0xffff))
		return npuep_fp_refuse(p, "fast path needs an exact PPPoE session id of 1-65534");
	if (m->ppp_proto != htons(0xffff) || k->ppp_proto != htons(proto))
		return npuep_fp_refuse(p, "fast path needs ppp_proto ip or ipv6");
	p->key->pppoe_sid = k->sid;
	return 0;
}

/*
 * nf_flow_table neither matches nor pops an 802.1ad tag: under one, the
 * direction arriving in it matches the 802.1Q tags inside alone, and would
 * take frames that carry just those.  A flowtable's tags must be a VLAN
 * device stack of the port that no 802.1ad device of it repeats.
 */
static int npuep_fp_ft_tags(struct npuep_fp *p)
{
	if (!p->d->ft)
		return 0;
	switch (p->d->ft_tags) {
	case NPUEP_FD_FT_TAGS_NODEV:
		return npuep_fp_refuse(p, NPUEP_FP_FT_NODEV);
	case NPUEP_FD_FT_TAGS_UNDER_AD:
		return npuep_fp_refuse(p, NPUEP_FP_FT_UNDER_AD);
	default:
		return 0;
	}
}

/* The rule's matches into the key: every key the fast path takes, exact. */
int npuep_fp_matches(struct npuep_fp *p)
{
	int err;

	p->key->port = p->d->port;
	err = npuep_fp_ingress(p);
	if (!err)
		err = npuep_fp_keys(p);
	if (!err)
		err = npuep_fp_meta(p);
	if (!err)
		err = npuep_fp_control(p);
	if (!err)
		err = npuep_fp_basic(p);
	if (!err)
		err = npuep_fp_addrs(p);
	if (!err)
		err = npuep_fp_ethertype(p);
	if (!err)
		err = npuep_fp_ports(p);
	if (!err)
		err = npuep_fp_tcp(p);
	if (!err)
		err = npuep_fp_vlan(p);
	if (!err)
		err = npuep_fp_cvlan(p);
	if (!err)
		err = npuep_fp_pppoe(p);
	if (!err)
		err = npuep_fp_ft_tags(p);
	return err;
}
