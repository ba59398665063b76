// SPDX-License-Identifier: GPL-2.0
/*
 * npuep ntuple steering (ethtool -N / -n): rules the coprocessor's ingress
 * classifier executes on the frames a port punts, before RSS (npu_hw.h).
 *
 * The driver keeps every port's rules as the user gave them (struct
 * ethtool_rx_flow_spec, by location) and writes each to the device with
 * NPU_CMD_NTUPLE_ADD.  That copy is the truth: after a devlink reload and
 * after a firmware recovery (whose fault emptied the device's tables) every
 * port's table is cleared and written again (npuep_ntuple_replay()).
 *
 * Supported: flow types tcp4, udp4, ip4, tcp6, udp6, ip6 with source and
 * destination addresses and ports under any mask, the IP protocol of ip4
 * and ip6 (exact or any); action a queue below the active count (ethtool
 * -L) or drop (RX_CLS_FLOW_DISC); a location below NPU_NTUPLE_RULES or
 * RX_CLS_LOC_ANY/FIRST/LAST.  Anything else is refused with a message
 * saying why.  All under rtnl.
 */
#include <linux/ethtool.h>
#include <linux/in.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>

#include "npuep.h"

/**
 * struct npuep_ntuple - one port's rules
 * @fs: the rules as inserted, by location
 * @used: locations holding a rule
 * @count: rules held
 */
struct npuep_ntuple {
	struct ethtool_rx_flow_spec fs[NPU_NTUPLE_RULES];
	DECLARE_BITMAP(used, NPU_NTUPLE_RULES);
	u32 count;
};

static int npuep_ntuple_cmd(struct npuep_port *port, u16 opcode, u32 loc,
			    const struct npu_ntuple_rule *rule)
{
	struct npu_cmd_ntuple nc = {};

	nc.port = cpu_to_le16(port->idx);
	nc.loc = cpu_to_le16(loc);
	if (rule)
		nc.rule = *rule;
	return npuep_cmd_exec(port->ndev, opcode, &nc, sizeof(nc), NULL, 0);
}

static void npuep_ntuple_addr(__be32 *v, __be32 *m, const __be32 *hv,
			      const __be32 *hm, u32 words)
{
	u32 i;

	for (i = 0; i < words; i++) {
		m[i] = hm[i];
		v[i] = hv[i] & hm[i];
	}
}

static void npuep_ntuple_ports(struct npu_ntuple_rule *r, __be16 psrc,
			       __be16 msrc, __be16 pdst, __be16 mdst)
{
	r->sport = psrc & msrc;
	r->sport_mask = msrc;
	r->dport = pdst & mdst;
	r->dport_mask = mdst;
}

/*
 * Translate an ethtool rule into the device's.  Return: 0, or -EINVAL /
 * -EOPNOTSUPP with the reason logged on the netdev.
 */
static int npuep_ntuple_to_hw(struct npuep_port *port,
			      const struct ethtool_rx_flow_spec *fs,
			      struct npu_ntuple_rule *r)
{
	struct net_device *netdev = port->netdev;
	u32 type = fs->flow_type & ~(FLOW_EXT | FLOW_MAC_EXT | FLOW_RSS);
	const union ethtool_flow_union *h = &fs->h_u, *m = &fs->m_u;
	u64 q;

	memset(r, 0, sizeof(*r));
	if (fs->flow_type & FLOW_RSS) {
		netdev_err(netdev, "ntuple: RSS contexts are not supported\n");
		return -EOPNOTSUPP;
	}
	if (((fs->flow_type & FLOW_EXT) &&
	     (fs->m_ext.vlan_etype || fs->m_ext.vlan_tci ||
	      fs->m_ext.data[0] || fs->m_ext.data[1])) ||
	    ((fs->flow_type & FLOW_MAC_EXT) &&
	     !is_zero_ether_addr(fs->m_ext.h_dest))) {
		netdev_err(netdev, "ntuple: no VLAN, user-def or MAC match\n");
		return -EOPNOTSUPP;
	}

	switch (type) {
	case TCP_V4_FLOW:
	case UDP_V4_FLOW:
		if (m->tcp_ip4_spec.tos)
			goto tos;
		r->family = NPU_AF_INET;
		r->proto = type == TCP_V4_FLOW ? IPPROTO_TCP : IPPROTO_UDP;
		r->proto_mask = 0xff;
		npuep_ntuple_addr(r->saddr, r->saddr_mask,
				  &h->tcp_ip4_spec.ip4src,
				  &m->tcp_ip4_spec.ip4src, 1);
		npuep_ntuple_addr(r->daddr, r->daddr_mask,
				  &h->tcp_ip4_spec.ip4dst,
				  &m->tcp_ip4_spec.ip4dst, 1);
		npuep_ntuple_ports(r, h->tcp_ip4_spec.psrc,
				   m->tcp_ip4_spec.psrc, h->tcp_ip4_spec.pdst,
				   m->tcp_ip4_spec.pdst);
		break;
	case IP_USER_FLOW:
		if (m->usr_ip4_spec.tos)
			goto tos;
		if (m->usr_ip4_spec.l4_4_bytes)
			goto l4bytes;
		if (m->usr_ip4_spec.ip_ver ||
		    (h->usr_ip4_spec.ip_ver &&
		     h->usr_ip4_spec.ip_ver != ETH_RX_NFC_IP4)) {
			netdev_err(netdev, "ntuple: ip4 rules are IPv4 only\n");
			return -EINVAL;
		}
		r->family = NPU_AF_INET;
		r->proto_mask = m->usr_ip4_spec.proto;
		r->proto = h->usr_ip4_spec.proto & r->proto_mask;
		npuep_ntuple_addr(r->saddr, r->saddr_mask,
				  &h->usr_ip4_spec.ip4src,
				  &m->usr_ip4_spec.ip4src, 1);
		npuep_ntuple_addr(r->daddr, r->daddr_mask,
				  &h->usr_ip4_spec.ip4dst,
				  &m->usr_ip4_spec.ip4dst, 1);
		break;
	case TCP_V6_FLOW:
	case UDP_V6_FLOW:
		if (m->tcp_ip6_spec.tclass)
			goto tos;
		r->family = NPU_AF_INET6;
		r->proto = type == TCP_V6_FLOW ? IPPROTO_TCP : IPPROTO_UDP;
		r->proto_mask = 0xff;
		npuep_ntuple_addr(r->saddr, r->saddr_mask,
				  h->tcp_ip6_spec.ip6src,
				  m->tcp_ip6_spec.ip6src, 4);
		npuep_ntuple_addr(r->daddr, r->daddr_mask,
				  h->tcp_ip6_spec.ip6dst,
				  m->tcp_ip6_spec.ip6dst, 4);
		npuep_ntuple_ports(r, h->tcp_ip6_spec.psrc,
				   m->tcp_ip6_spec.psrc, h->tcp_ip6_spec.pdst,
				   m->tcp_ip6_spec.pdst);
		break;
	case IPV6_USER_FLOW:
		if (m->usr_ip6_spec.tclass)
			goto tos;
		if (m->usr_ip6_spec.l4_4_bytes)
			goto l4bytes;
		r->family = NPU_AF_INET6;
		r->proto_mask = m->usr_ip6_spec.l4_proto;
		r->proto = h->usr_ip6_spec.l4_proto & r->proto_mask;
		npuep_ntuple_addr(r->saddr, r->saddr_mask,
				  h->usr_ip6_spec.ip6src,
				  m->usr_ip6_spec.ip6src, 4);
		npuep_ntuple_addr(r->daddr, r->daddr_mask,
				  h->usr_ip6_spec.ip6dst,
				  m->usr_ip6_spec.ip6dst, 4);
		break;
	default:
		netdev_err(netdev,
			   "ntuple: flow type %#x not supported (tcp4 udp4 ip4 tcp6 udp6 ip6)\n",
			   type);
		return -EOPNOTSUPP;
	}
	if (r->proto_mask && r->proto_mask != 0xff) {
		netdev_err(netdev, "ntuple: the protocol matches exactly or not at all\n");
		return -EINVAL;
	}

	if (fs->ring_cookie == RX_CLS_FLOW_DISC) {
		r->action = NPU_NTUPLE_ACT_DROP;
		return 0;
	}
	if (fs->ring_cookie == RX_CLS_FLOW_WAKE ||
	    ethtool_get_flow_spec_ring_vf(fs->ring_cookie)) {
		netdev_err(netdev, "ntuple: the action is a queue or drop (-1)\n");
		return -EOPNOTSUPP;
	}
	q = ethtool_get_flow_spec_ring(fs->ring_cookie);
	if (q >= port->nq) {
		netdev_err(netdev,
			   "ntuple: queue %llu is beyond the %u active queues (ethtool -L)\n",
			   q, port->nq);
		return -EINVAL;
	}
	r->action = NPU_NTUPLE_ACT_QUEUE;
	r->queue = cpu_to_le16(q);
	return 0;

tos:
	netdev_err(netdev, "ntuple: no TOS / traffic class match\n");
	return -EOPNOTSUPP;
l4bytes:
	netdev_err(netdev, "ntuple: no l4 data match (use tcp/udp flow types for ports)\n");
	return -EOPNOTSUPP;
}

static int npuep_ntuple_loc(struct npuep_port *port, struct npuep_ntuple *nt,
			    u32 loc)
{
	unsigned long i;

	if (!(loc & RX_CLS_LOC_SPECIAL)) {
		if (loc < NPU_NTUPLE_RULES)
			return loc;
		netdev_err(port->netdev, "ntuple: location %u is not below %u\n",
			   loc, NPU_NTUPLE_RULES);
		return -EINVAL;
	}
	switch (loc) {
	case RX_CLS_LOC_ANY:
	case RX_CLS_LOC_FIRST:
		i = find_first_zero_bit(nt->used, NPU_NTUPLE_RULES);
		break;
	case RX_CLS_LOC_LAST:
		for (i = NPU_NTUPLE_RULES; i--;)
			if (!test_bit(i, nt->used))
				break;
		if (i == ULONG_MAX)
			i = NPU_NTUPLE_RULES;
		break;
	default:
		return -EINVAL;
	}
	if (i < NPU_NTUPLE_RULES)
		return i;
	netdev_err(port->netdev, "ntuple: the table is full (%u rules)\n",
		   NPU_NTUPLE_RULES);
	return -ENOSPC;
}

static int npuep_ntuple_insert(struct npuep_port *port,
			       struct ethtool_rx_flow_spec *fs)
{
	struct npu_ntuple_rule r;
	struct npuep_ntuple *nt;
	int loc, err;

	if (!(port->netdev->features & NETIF_F_NTUPLE)) {
		netdev_err(port->netdev,
			   "ntuple: filters are off (ethtool -K %s ntuple on)\n",
			   port->netdev->name);
		return -EOPNOTSUPP;
	}
	err = npuep_ntuple_to_hw(port, fs, &r);
	if (err)
		return err;
	if (!port->ntuple) {
		port->ntuple = kzalloc(sizeof(*port->ntuple), GFP_KERNEL);
		if (!port->ntuple)
			return -ENOMEM;
	}
	nt = port->ntuple;
	loc = npuep_ntuple_loc(port, nt, fs->location);
	if (loc < 0)
		return loc;
	err = npuep_ntuple_cmd(port, NPU_CMD_NTUPLE_ADD, loc, &r);
	if (err) {
		netdev_err(port->netdev,
			   "ntuple: the coprocessor refused the rule at %d: %d\n",
			   loc, err);
		return err;
	}
	fs->location = loc;
	nt->fs[loc] = *fs;
	if (!__test_and_set_bit(loc, nt->used))
		nt->count++;
	return 0;
}

static int npuep_ntuple_delete(struct npuep_port *port, u32 loc)
{
	struct npuep_ntuple *nt = port->ntuple;
	int err;

	if (loc >= NPU_NTUPLE_RULES)
		return -EINVAL;
	if (!nt || !test_bit(loc, nt->used))
		return -ENOENT;
	err = npuep_ntuple_cmd(port, NPU_CMD_NTUPLE_DEL, loc, NULL);
	/* Gone from the device already (a fault emptied it): fine. */
	if (err && err != -ENOENT) {
		netdev_err(port->netdev,
			   "ntuple: the coprocessor did not delete rule %u: %d\n",
			   loc, err);
		return err;
	}
	__clear_bit(loc, nt->used);
	nt->count--;
	return 0;
}

/**
 * npuep_ntuple_get_rxnfc() - ETHTOOL_GRXCLSRLCNT, GRXCLSRULE, GRXCLSRLALL
 * @port: the port
 * @cmd: the request
 * @rule_locs: GRXCLSRLALL: room for @cmd->rule_cnt locations
 *
 * Return: 0, -EOPNOTSUPP for another command, or a negative errno.
 */
int npuep_ntuple_get_rxnfc(struct npuep_port *port, struct ethtool_rxnfc *cmd,
			   u32 *rule_locs)
{
	struct npuep_ntuple *nt = port->ntuple;
	u32 n = 0, loc;

	switch (cmd->cmd) {
	case ETHTOOL_GRXCLSRLCNT:
		cmd->rule_cnt = nt ? nt->count : 0;
		cmd->data = NPU_NTUPLE_RULES | RX_CLS_LOC_SPECIAL;
		return 0;
	case ETHTOOL_GRXCLSRULE:
		loc = cmd->fs.location;
		if (loc >= NPU_NTUPLE_RULES)
			return -EINVAL;
		if (!nt || !test_bit(loc, nt->used))
			return -ENOENT;
		cmd->fs = nt->fs[loc];
		return 0;
	case ETHTOOL_GRXCLSRLALL:
		cmd->data = NPU_NTUPLE_RULES;
		if (nt) {
			for_each_set_bit(loc, nt->used, NPU_NTUPLE_RULES) {
				if (n == cmd->rule_cnt)
					return -EMSGSIZE;
				rule_locs[n++] = loc;
			}
		}
		cmd->rule_cnt = n;
		return 0;
	default:
		return -EOPNOTSUPP;
	}
}

/**
 * npuep_set_rxnfc() - ethtool_ops.set_rxnfc: insert or delete a rule
 * @netdev: the port's netdev
 * @cmd: ETHTOOL_SRXCLSRLINS (@cmd->fs.location set to the location used)
 *	or ETHTOOL_SRXCLSRLDEL
 *
 * Return: 0 or a negative errno (the reason is logged on the netdev).
 */
int npuep_set_rxnfc(struct net_device *netdev, struct ethtool_rxnfc *cmd)
{
	struct npuep_port *port = netdev_priv(netdev);

	ASSERT_RTNL();
	switch (cmd->cmd) {
	case ETHTOOL_SRXCLSRLINS:
		return npuep_ntuple_insert(port, &cmd->fs);
	case ETHTOOL_SRXCLSRLDEL:
		return npuep_ntuple_delete(port, cmd->fs.location);
	default:
		return -EOPNOTSUPP;
	}
}

/**
 * npuep_ntuple_queue_user() - a rule that steers to a queue at or past @nq
 * @port: the port
 * @nq: a queue count about to be set
 *
 * Return: the rule's location, or -1 if no rule would lose its queue.
 */
int npuep_ntuple_queue_user(struct npuep_port *port, u32 nq)
{
	struct npuep_ntuple *nt = port->ntuple;
	u32 loc;

	if (!nt)
		return -1;
	for_each_set_bit(loc, nt->used, NPU_NTUPLE_RULES) {
		u64 c = nt->fs[loc].ring_cookie;

		if (c != RX_CLS_FLOW_DISC && ethtool_get_flow_spec_ring(c) >= nq)
			return loc;
	}
	return -1;
}

/**
 * npuep_ntuple_clear() - remove every rule of a port (ethtool -K ntuple off)
 * @port: the port
 *
 * Return: 0, or the device's error (the rules are then kept).
 */
int npuep_ntuple_clear(struct npuep_port *port)
{
	struct npuep_ntuple *nt = port->ntuple;
	int err;

	ASSERT_RTNL();
	err = npuep_ntuple_cmd(port, NPU_CMD_NTUPLE_DEL, NPU_NTUPLE_LOC_ALL,
			       NULL);
	if (err == -EOPNOTSUPP && !(port->ndev->caps & NPU_CAP_NTUPLE))
		err = 0;
	if (err) {
		netdev_err(port->netdev,
			   "ntuple: the coprocessor did not clear the rules: %d\n",
			   err);
		return err;
	}
	if (nt) {
		bitmap_zero(nt->used, NPU_NTUPLE_RULES);
		nt->count = 0;
	}
	return 0;
}

/**
 * npuep_ntuple_replay() - write every port's rules to the device again
 * @ndev: the coprocessor
 *
 * After a devlink reload and a firmware recovery: each port's table on the
 * device is cleared, then the driver's rules are written in location order.
 * A rule the device refuses stays in the driver's table and is logged.
 *
 * Return: the number of rules written, or the first negative errno.
 */
int npuep_ntuple_replay(struct npuep_dev *ndev)
{
	struct npu_ntuple_rule r;
	int err, ret = 0, n = 0;
	u32 p, loc;

	if (!(ndev->caps & NPU_CAP_NTUPLE))
		return 0;
	rtnl_lock();
	for (p = 0; p < ndev->nports; p++) {
		struct npuep_port *port = ndev->ports[p];

		if (!port || !port->ntuple)
			continue;
		err = npuep_ntuple_cmd(port, NPU_CMD_NTUPLE_DEL,
				       NPU_NTUPLE_LOC_ALL, NULL);
		if (err) {
			netdev_err(port->netdev,
				   "ntuple: table not cleared for the replay: %d\n",
				   err);
			ret = ret ?: err;
			continue;
		}
		for_each_set_bit(loc, port->ntuple->used, NPU_NTUPLE_RULES) {
			err = npuep_ntuple_to_hw(port, &port->ntuple->fs[loc],
						 &r);
			if (!err)
				err = npuep_ntuple_cmd(port, NPU_CMD_NTUPLE_ADD,
						       loc, &r);
			if (err) {
				netdev_err(port->netdev,
					   "ntuple: rule %u not replayed: %d\n",
					   loc, err);
				ret = ret ?: err;
				continue;
			}
			n++;
		}
	}
	rtnl_unlock();
	return ret ?: n;
}

/**
 * npuep_ntuple_port_init() - a port starts with an empty table
 * @port: the port, before its netdev is registered
 *
 * The device keeps its tables across a driver unbind; rules left by a
 * previous binding must not steer this one's traffic.
 */
void npuep_ntuple_port_init(struct npuep_port *port)
{
	if (!(port->ndev->caps & NPU_CAP_NTUPLE))
		return;
	if (npuep_ntuple_cmd(port, NPU_CMD_NTUPLE_DEL, NPU_NTUPLE_LOC_ALL, NULL))
		dev_warn(port->ndev->dev,
			 "port %u: ntuple table not cleared\n", port->idx + 1);
}

/**
 * npuep_ntuple_free() - free a port's rules (the netdev is unregistered)
 * @port: the port
 */
void npuep_ntuple_free(struct npuep_port *port)
{
	kfree(port->ntuple);
	port->ntuple = NULL;
}
