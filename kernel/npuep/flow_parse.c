// SPDX-License-Identifier: GPL-2.0
/*
 * npuep flow offload: a flow_rule read into one direction of a connection.
 *
 * One parser turns a flow_rule into one direction: a microflow (ingress
 * port, VLAN, addresses, ports, protocol: an exact match) and its rewrite
 * (MACs, NAT of addresses and ports, VLAN push/pop, egress port, TTL).
 */
#include <linux/etherdevice.h>
#include <linux/ipv6.h>
#include <linux/ip.h>
#include <net/flow_offload.h>
#include <net/tcp.h>

#include "npuep.h"
#include "flow_priv.h"



#define NPUEP_FLOW_KEYS (BIT_ULL(FLOW_DISSECTOR_KEY_META) |		\
			 BIT_ULL(FLOW_DISSECTOR_KEY_CONTROL) |		\
			 BIT_ULL(FLOW_DISSECTOR_KEY_BASIC) |		\
			 BIT_ULL(FLOW_DISSECTOR_KEY_IPV4_ADDRS) |	\
			 BIT_ULL(FLOW_DISSECTOR_KEY_IPV6_ADDRS) |	\
			 BIT_ULL(FLOW_DISSECTOR_KEY_PORTS) |		\
			 BIT_ULL(FLOW_DISSECTOR_KEY_TCP) |		\
			 BIT_ULL(FLOW_DISSECTOR_KEY_VLAN))

/* Apply a pedit-style mangle to a header image: byte-wise (old & mask) | val. */
static int npuep_mangle(u8 *img, u32 img_len, const struct flow_action_entry *a)
{
	const u8 *mask = (const u8 *)&a->mangle.mask;
	const u8 *val = (const u8 *)&a->mangle.val;
	u32 off = a->mangle.offset;
	int i;

	if (off > img_len - 4)
		return -EOPNOTSUPP;
	for (i = 0; i < 4; i++)
		img[off + i] = (img[off + i] & mask[i]) | (val[i] & ~mask[i]);
	return 0;
}

/* The changed bytes of @img versus @orig lie within [lo, hi). */
static bool npuep_changed_within(const u8 *img, const u8 *orig, u32 len,
				 u32 lo, u32 hi)
{
	u32 i;

	for (i = 0; i < len; i++)
		if (img[i] != orig[i] && (i < lo || i >= hi))
			return false;
	return true;
}

static bool npuep_is_npuep(const struct net_device *dev)
{
	return dev && dev->netdev_ops &&
	       dev->netdev_ops->ndo_setup_tc == npuep_setup_tc;
}

int npuep_flow_parse(struct npuep_port *port, struct flow_rule *rule,
			    bool routed_ttl, struct npuep_flow_spec *spec,
			    struct netlink_ext_ack *extack)
{
	struct flow_dissector *d = rule->match.dissector;
	u8 eth[ETH_HLEN] = {}, eth_set[ETH_HLEN] = {}, l3[40], l3o[40];
	struct npuep_port *eport = NULL;
	const struct flow_action_entry *a;
	u8 l4[4], l4o[4];
	u32 l3len;
	u16 addr_type;
	bool v6, mac = false;
	int i, j;

	memset(spec, 0, sizeof(*spec));
	if (d->used_keys & ~NPUEP_FLOW_KEYS) {
		NL_SET_ERR_MSG_MOD(extack,
				   "fast path matches port, VLAN, addresses, protocol, ports only");
		return -EOPNOTSUPP;
	}
	if (flow_rule_match_key(rule, FLOW_DISSECTOR_KEY_META)) {
		struct flow_match_meta m;

		/* A flowtable offers every rule to every device's callback:
		 * another port's rule is not ours to count or refuse.
		 */
		flow_rule_match_meta(rule, &m);
		if (m.mask->ingress_ifindex &&
		    m.key->ingress_ifindex != port->netdev->ifindex)
			return -ENODEV;
	}
	if (!flow_rule_match_key(rule, FLOW_DISSECTOR_KEY_CONTROL) ||
	    !flow_rule_match_key(rule, FLOW_DISSECTOR_KEY_BASIC) ||
	    !flow_rule_match_key(rule, FLOW_DISSECTOR_KEY_PORTS)) {
		NL_SET_ERR_MSG_MOD(extack,
				   "fast path needs an exact 5-tuple (protocol, addresses, ports)");
		return -EOPNOTSUPP;
	}
	{
		struct flow_match_control m;

		flow_rule_match_control(rule, &m);
		if (flow_rule_has_control_flags(m.mask->flags, extack))
			return -EOPNOTSUPP;
		addr_type = m.key->addr_type;
	}
	{
		struct flow_match_basic m;

		flow_rule_match_basic(rule, &m);
		if (m.mask->ip_proto != 0xff ||
		    (m.key->ip_proto != IPPROTO_TCP && m.key->ip_proto != IPPROTO_UDP)) {
			NL_SET_ERR_MSG_MOD(extack,
					   "fast path forwards TCP and UDP only (exact ip_proto)");
			return -EOPNOTSUPP;
		}
		spec->key.proto = m.key->ip_proto;
	}

	memset(l3, 0, sizeof(l3));
	if (addr_type == FLOW_DISSECTOR_KEY_IPV4_ADDRS) {
		struct flow_match_ipv4_addrs m;

		flow_rule_match_ipv4_addrs(rule, &m);
		if (m.mask->src != htonl(0xffffffff) || m.mask->dst != htonl(0xffffffff)) {
			NL_SET_ERR_MSG_MOD(extack, "fast path needs exact IPv4 addresses");
			return -EOPNOTSUPP;
		}
		spec->key.family = NPU_AF_INET;
		spec->key.saddr[0] = m.key->src;
		spec->key.daddr[0] = m.key->dst;
		memcpy(l3 + offsetof(struct iphdr, saddr), &m.key->src, 4);
		memcpy(l3 + offsetof(struct iphdr, daddr), &m.key->dst, 4);
		v6 = false;
		l3len = sizeof(struct iphdr);
	} else if (addr_type == FLOW_DISSECTOR_KEY_IPV6_ADDRS) {
		struct flow_match_ipv6_addrs m;

		flow_rule_match_ipv6_addrs(rule, &m);
		if (memchr_inv(&m.mask->src, 0xff, 16) || memchr_inv(&m.mask->dst, 0xff, 16)) {
			NL_SET_ERR_MSG_MOD(extack, "fast path needs exact IPv6 addresses");
			return -EOPNOTSUPP;
		}
		spec->key.family = NPU_AF_INET6;
		memcpy(spec->key.saddr, &m.key->src, 16);
		memcpy(spec->key.daddr, &m.key->dst, 16);
		memcpy(l3 + offsetof(struct ipv6hdr, saddr), &m.key->src, 16);
		memcpy(l3 + offsetof(struct ipv6hdr, daddr), &m.key->dst, 16);
		v6 = true;
		l3len = sizeof(struct ipv6hdr);
	} else {
		NL_SET_ERR_MSG_MOD(extack, "fast path needs IPv4 or IPv6 addresses");
		return -EOPNOTSUPP;
	}
	{
		struct flow_match_ports m;

		flow_rule_match_ports(rule, &m);
		if (m.mask->src != htons(0xffff) || m.mask->dst != htons(0xffff)) {
			NL_SET_ERR_MSG_MOD(extack, "fast path needs exact L4 ports");
			return -EOPNOTSUPP;
		}
		spec->key.sport = m.key->src;
		spec->key.dport = m.key->dst;
		memcpy(l4, &m.key->src, 2);
		memcpy(l4 + 2, &m.key->dst, 2);
	}
	if (flow_rule_match_key(rule, FLOW_DISSECTOR_KEY_TCP)) {
		struct flow_match_tcp m;

		/* nf_flow_table matches "no RST, no FIN": the fast path punts
		 * those itself; anything else is not a microflow.
		 */
		flow_rule_match_tcp(rule, &m);
		if (m.key->flags ||
		    (m.mask->flags & ~htons(be32_to_cpu(TCP_FLAG_RST | TCP_FLAG_FIN) >> 16))) {
			NL_SET_ERR_MSG_MOD(extack,
					   "fast path cannot match TCP flags (it punts SYN/FIN/RST)");
			return -EOPNOTSUPP;
		}
	}
	if (flow_rule_match_key(rule, FLOW_DISSECTOR_KEY_VLAN)) {
		struct flow_match_vlan m;

		flow_rule_match_vlan(rule, &m);
		if (m.mask->vlan_id != VLAN_VID_MASK || m.mask->vlan_priority ||
		    (m.mask->vlan_tpid && m.key->vlan_tpid != htons(ETH_P_8021Q))) {
			NL_SET_ERR_MSG_MOD(extack,
					   "fast path matches an exact 802.1Q VLAN id only");
			return -EOPNOTSUPP;
		}
		spec->key.vlan = htons(m.key->vlan_id);
	}
	spec->key.port = port->idx;

	/* Actions. */
	memcpy(l3o, l3, sizeof(l3));
	memcpy(l4o, l4, sizeof(l4));
	flow_action_for_each(i, a, &rule->action) {
		switch (a->id) {
		case FLOW_ACTION_MANGLE:
			switch (a->mangle.htype) {
			case FLOW_ACT_MANGLE_HDR_TYPE_ETH:
				if (npuep_mangle(eth, sizeof(eth), a))
					goto bad_mangle;
				for (j = 0; j < 4; j++)
					if (((u8 *)&a->mangle.mask)[j] != 0xff)
						eth_set[a->mangle.offset + j] = 1;
				break;
			case FLOW_ACT_MANGLE_HDR_TYPE_IP4:
				if (v6 || npuep_mangle(l3, l3len, a))
					goto bad_mangle;
				break;
			case FLOW_ACT_MANGLE_HDR_TYPE_IP6:
				if (!v6 || npuep_mangle(l3, l3len, a))
					goto bad_mangle;
				break;
			case FLOW_ACT_MANGLE_HDR_TYPE_TCP:
			case FLOW_ACT_MANGLE_HDR_TYPE_UDP:
				if (npuep_mangle(l4, sizeof(l4), a))
					goto bad_mangle;
				break;
			default:
				goto bad_mangle;
			}
			break;
		case FLOW_ACTION_ADD:
			/* pedit "ip ttl dec" / "ip6 hoplimit dec": add 0xff */
			if (a->mangle.htype == FLOW_ACT_MANGLE_HDR_TYPE_IP4 &&
			    a->mangle.offset == 8 &&
			    ((const u8 *)&a->mangle.val)[0] == 0xff) {
				spec->rw.flags |= NPU_RW_TTL;
				break;
			}
			if (a->mangle.htype == FLOW_ACT_MANGLE_HDR_TYPE_IP6 &&
			    a->mangle.offset == 4 &&
			    ((const u8 *)&a->mangle.val)[3] == 0xff) {
				spec->rw.flags |= NPU_RW_TTL;
				break;
			}
			goto bad_mangle;
		case FLOW_ACTION_CSUM:
			/* the coprocessor updates every checksum it touches */
			break;
		case FLOW_ACTION_REDIRECT:
			if (!npuep_is_npuep(a->dev) ||
			    ((struct npuep_port *)netdev_priv(a->dev))->ndev != port->ndev) {
				NL_SET_ERR_MSG_MOD(extack,
						   "redirect target is not a port of this device");
				return -EOPNOTSUPP;
			}
			eport = netdev_priv(a->dev);
			break;
		case FLOW_ACTION_VLAN_PUSH:
			if (a->vlan.proto != htons(ETH_P_8021Q) ||
			    (spec->rw.flags & NPU_RW_VLAN_PUSH)) {
				NL_SET_ERR_MSG_MOD(extack, "fast path pushes one 802.1Q tag");
				return -EOPNOTSUPP;
			}
			spec->rw.flags |= NPU_RW_VLAN_PUSH;
			spec->rw.vlan_tci = htons(a->vlan.vid |
						  (a->vlan.prio << VLAN_PRIO_SHIFT));
			break;
		case FLOW_ACTION_VLAN_POP:
			if (spec->rw.flags & NPU_RW_VLAN_POP) {
				NL_SET_ERR_MSG_MOD(extack, "fast path pops one tag");
				return -EOPNOTSUPP;
			}
			spec->rw.flags |= NPU_RW_VLAN_POP;
			break;
		default:
			NL_SET_ERR_MSG_MOD(extack, "action not supported by the fast path");
			return -EOPNOTSUPP;
		}
	}
	if (!eport) {
		NL_SET_ERR_MSG_MOD(extack,
				   "fast path needs a redirect to a port of this device");
		return -EOPNOTSUPP;
	}

	/* Only addresses may change in the IP header, only ports in L4. */
	if (!npuep_changed_within(l3, l3o, l3len, v6 ? 8 : 12, l3len)) {
		NL_SET_ERR_MSG_MOD(extack, "fast path rewrites only IP addresses");
		return -EOPNOTSUPP;
	}
	for (j = 0; j < ETH_HLEN; j++)
		mac |= eth_set[j];
	if (mac) {
		if (memchr_inv(eth_set, 1, 2 * ETH_ALEN)) {
			NL_SET_ERR_MSG_MOD(extack, "fast path rewrites both MAC addresses or none");
			return -EOPNOTSUPP;
		}
		spec->rw.flags |= NPU_RW_MAC;
		ether_addr_copy(spec->rw.dmac, eth);
		ether_addr_copy(spec->rw.smac, eth + ETH_ALEN);
	}
	spec->rw.egress_port = eport->idx;
	spec->rw.mtu = cpu_to_le16(min_t(u32, eport->netdev->mtu, U16_MAX));
	if (routed_ttl)
		spec->rw.flags |= NPU_RW_TTL;

	if (v6) {
		if (memcmp(l3 + 8, l3o + 8, 16) || memcmp(l4, l4o, 2)) {
			spec->rw.flags |= NPU_RW_SNAT;
			memcpy(spec->rw.nat_saddr, l3 + 8, 16);
		}
		if (memcmp(l3 + 24, l3o + 24, 16) || memcmp(l4 + 2, l4o + 2, 2)) {
			spec->rw.flags |= NPU_RW_DNAT;
			memcpy(spec->rw.nat_daddr, l3 + 24, 16);
		}
	} else {
		if (memcmp(l3 + 12, l3o + 12, 4) || memcmp(l4, l4o, 2)) {
			spec->rw.flags |= NPU_RW_SNAT;
			memcpy(spec->rw.nat_saddr, l3 + 12, 4);
		}
		if (memcmp(l3 + 16, l3o + 16, 4) || memcmp(l4 + 2, l4o + 2, 2)) {
			spec->rw.flags |= NPU_RW_DNAT;
			memcpy(spec->rw.nat_daddr, l3 + 16, 4);
		}
	}
	memcpy(&spec->rw.nat_sport, l4, 2);
	memcpy(&spec->rw.nat_dport, l4 + 2, 2);
	return 0;

bad_mangle:
	NL_SET_ERR_MSG_MOD(extack,
			   "fast path rewrites MACs, addresses, ports and TTL only");
	return -EOPNOTSUPP;
}
