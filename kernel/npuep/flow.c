// SPDX-License-Identifier: GPL-2.0
/*
 * npuep flow offload: ndo_setup_tc for nftables flowtables (TC_SETUP_FT)
 * and TC flower blocks, writing connections into the coprocessor's fast
 * path.
 *
 * One parser turns a flow_rule into one direction: a microflow (ingress
 * port, VLAN, addresses, ports, protocol: an exact match) and its rewrite
 * (MACs, NAT of addresses and ports, VLAN push/pop, egress port, TTL).  The
 * kernel offers a connection as one rule per direction (nf_flow_table_offload
 * sends FLOW_CLS_REPLACE per direction; flower users add two filters); the
 * driver pairs them into one connection block: the reply of a direction,
 * with its rewrite applied, is the other direction's match.  An unpaired
 * direction works alone.
 *
 * The shadow table is keyed by match, not by cookie: a flower "replace"
 * sends REPLACE with a new cookie and then DESTROY of the old one.  Capacity
 * is checked in the shadow table before any command is sent, so a full
 * table is -ENOSPC (counted) and the flow stays on the host.
 *
 * Revive in place belongs to the receive path: a frame punted "not active"
 * with a connection index makes the driver send that connection's create
 * again (rate limited per connection), see npuep_flow_revive().
 */
#include <linux/debugfs.h>
#include <linux/etherdevice.h>
#include <linux/ethtool.h>
#include <linux/rhashtable.h>
#include <linux/ipv6.h>
#include <linux/ip.h>
#include <net/flow_offload.h>
#include <net/pkt_cls.h>

#include "npuep.h"
#include "flow.h"

/* Connection statistics are read back this often (conntrack keepalive). */
#define NPUEP_FLOW_STATS_MS	1000
/* A purge drops the flow-table lock after this many removals. */
#define NPUEP_FLOW_PURGE_BATCH	16
/*
 * Posted DESTROYs wait in a queue of this many for the destroy work, which
 * applies them this many to a hold of the lock (a teardown of the seed's
 * 1,000 connections queues 2,000).
 */
#define NPUEP_FLOW_DESTROY_QLEN		4096
#define NPUEP_FLOW_DESTROY_BATCH	8
/* The destroy work waits this long (jiffies) for more to batch and pair. */
#define NPUEP_FLOW_DESTROY_DELAY	1
/* At most one revive per connection in this many ms. */
#define NPUEP_FLOW_REVIVE_MS	20

struct npuep_conn;

/*
 * A connection's revive command as of its current revision: immutable,
 * replaced whole (RCU) when the connection is rewritten, so the receive
 * path can post it without the flow-table lock.
 */
struct npuep_revive {
	struct rcu_head rcu;
	struct npu_cmd_conn_create cmd;
};

/*
 * One direction of a connection, as the kernel offered it.  Freed after a
 * grace period: DESTROY looks its cookie up without the lock first.
 */
struct npuep_flow {
	struct rcu_head rcu;
	struct rhash_head knode;	/* by key (the match) */
	struct rhash_head cnode;	/* by cookie */
	struct npu_mflow_key key;
	unsigned long cookie;
	struct npu_rewrite rw;
	struct npuep_conn *conn;
	u8 dir;				/* in the connection */
	u8 owner;			/* enum npuep_flow_owner */
	bool dying;			/* its DESTROY is queued */
	u64 rep_pkts;			/* reported to the kernel so far */
	u64 rep_bytes;
};

struct npuep_conn {
	u32 idx;
	u16 rev;
	struct npuep_flow *flow[2];
	u64 pkts[2];			/* cumulative, as last read */
	u64 bytes[2];
	unsigned long lastused;		/* jiffies */
	unsigned long revive_next;	/* jiffies: rate limit */
	struct npuep_revive __rcu *revive;
	u8 state;			/* enum npu_conn_state, as last read */
	struct rcu_head rcu;
};

static const struct rhashtable_params npuep_flow_key_params = {
	.head_offset = offsetof(struct npuep_flow, knode),
	.key_offset = offsetof(struct npuep_flow, key),
	.key_len = sizeof(struct npu_mflow_key),
	.automatic_shrinking = true,
};

static const struct rhashtable_params npuep_flow_cookie_params = {
	.head_offset = offsetof(struct npuep_flow, cnode),
	.key_offset = offsetof(struct npuep_flow, cookie),
	.key_len = sizeof(unsigned long),
	.automatic_shrinking = true,
};

static struct npuep_conn *npuep_conn_at(struct npuep_ft *ft, u32 idx)
{
	return rcu_dereference_protected(ft->by_idx[idx],
					 lockdep_is_held(&ft->lock));
}

static void npuep_ft_lock(struct npuep_ft *ft)
{
	mutex_lock(&ft->lock);
	ft->lock_t0 = ktime_get_ns();
	ft->bh_off = false;
	ft->lock_run0 = READ_ONCE(current->se.sum_exec_runtime);
	ft->lock_nvcsw0 = current->nvcsw;
	ft->lock_nivcsw0 = current->nivcsw;
}

/*
 * The flow-table lock for work that posts and never waits (the kernel's
 * REPLACE/DESTROY/STATS with flow_cmd_posted, a purge's batch): the mutex,
 * plus softirqs and preemption off on this CPU while it is held.  Without
 * that, the receive softirq and the model's firmware work (on the same
 * CPUs under the model) ran inside the hold: 62 logged 24 ms holds of
 * which the holder's own code was a small part.  Under it nothing sleeps
 * or waits for the device: allocations are GFP_ATOMIC (npuep_ft_gfp()) and
 * a full command ring queues the command in the driver behind it
 * (npuep_cmd_post_queued()); with a wait for a slot instead, make bench
 * still saw holds over 5 ms, one per full ring.
 */
static void npuep_ft_lock_bh(struct npuep_ft *ft)
{
	npuep_ft_lock(ft);
	local_bh_disable();
	ft->bh_off = true;
}

/* The lock for flow writes: softirqs off when they are posted (never wait). */
static void npuep_ft_lock_writes(struct npuep_ft *ft)
{
	if (READ_ONCE(ft->ndev->dlx.flow_cmd_posted))
		npuep_ft_lock_bh(ft);
	else
		npuep_ft_lock(ft);
}

static gfp_t npuep_ft_gfp(struct npuep_ft *ft)
{
	return ft->bh_off ? GFP_ATOMIC : GFP_KERNEL;
}

/*
 * A new longest hold above 5 ms is logged with what it was made of: the
 * holder's own CPU time, and how often it slept (voluntary switches: a
 * command or an allocation waited) or was preempted (involuntary).
 */
static void npuep_ft_unlock(struct npuep_ft *ft)
{
	u64 held = ktime_get_ns() - ft->lock_t0;

	if (ft->bh_off) {
		ft->bh_off = false;
		local_bh_enable();
	}
	if (held > ft->st.lock_held_max_ns) {
		ft->st.lock_held_max_ns = held;
		if (held > 5 * NSEC_PER_MSEC)
			dev_info(ft->ndev->dev,
				 "flow-table lock held %llu us by %pS: on CPU ~%llu us (scheduler ticks), slept %lu times, preempted %lu times\n",
				 div_u64(held, NSEC_PER_USEC), (void *)_RET_IP_,
				 div_u64(READ_ONCE(current->se.sum_exec_runtime) - ft->lock_run0,
					 NSEC_PER_USEC),
				 current->nvcsw - ft->lock_nvcsw0,
				 current->nivcsw - ft->lock_nivcsw0);
	}
	if (held > NSEC_PER_MSEC)
		ft->st.lock_held_over_1ms++;
	if (held > 5 * NSEC_PER_MSEC)
		ft->st.lock_held_over_5ms++;
	mutex_unlock(&ft->lock);
}

/* ------------------------------------------------------------------ */
/* Commands.                                                           */

/*
 * Every flow command goes through here: on @ring, posted (not waited for)
 * when @posted and no response is wanted.  Under ft->lock.
 */
static int npuep_ft_cmd_ring(struct npuep_ft *ft, u32 ring, bool posted,
			     u16 op, const void *req, u16 len, void *resp,
			     u16 resp_len)
{
	int err;

	if (WARN_ON_ONCE(ft->bh_off && resp))
		return -EINVAL;		/* an answer cannot be waited for here */
	if (ft->bh_off) {
		bool queued;

		/* Softirqs are off: never sleep, never wait for the device;
		 * a full ring queues the command in the driver behind it.
		 */
		err = npuep_cmd_post_queued(ft->ndev, ring, op, req, len, &queued);
		if (queued)
			ft->st.cmd_ring_full++;
		ft->st.cmd_posted++;
	} else if (posted && !resp) {
		err = npuep_cmd_post(ft->ndev, ring, op, req, len);
		ft->st.cmd_posted++;
	} else {
		err = npuep_cmd_exec_ring(ft->ndev, ring, op, req, len, resp,
					  resp_len);
		ft->st.cmd_waited++;
	}
	if (err)
		ft->st.cmd_failed++;
	return err;
}

/* A flow command as the devlink params flow_cmd_ring/flow_cmd_posted say. */
static int npuep_ft_cmd(struct npuep_ft *ft, u16 op, const void *req, u16 len,
			void *resp, u16 resp_len)
{
	struct npuep_dlx *dlx = &ft->ndev->dlx;

	return npuep_ft_cmd_ring(ft, READ_ONCE(dlx->flow_cmd_ring),
				 READ_ONCE(dlx->flow_cmd_posted), op, req, len,
				 resp, resp_len);
}

static void npuep_conn_fill(struct npuep_conn *c,
			    struct npu_cmd_conn_create *cmd, bool mflows)
{
	u16 flags = 0;
	int d;

	memset(cmd, 0, sizeof(*cmd));
	cmd->conn = cpu_to_le32(c->idx);
	cmd->rev = cpu_to_le16(c->rev);
	for (d = 0; d < 2; d++) {
		if (!c->flow[d])
			continue;
		cmd->dir[d] = c->flow[d]->rw;
		flags |= NPU_CONN_F_DIR0 << d;
		if (mflows) {
			cmd->mflow[d] = c->flow[d]->key;
			flags |= NPU_CONN_F_MFLOW0 << d;
		}
	}
	if (!mflows)
		flags |= NPU_CONN_F_REVIVE;
	cmd->flags = cpu_to_le16(flags);
}

/*
 * Publish the connection's revive command (same index and revision, no
 * microflow) for the receive path.  Without memory the receive path falls
 * back to the revive work item.  Under ft->lock.
 */
static void npuep_conn_publish(struct npuep_ft *ft, struct npuep_conn *c)
{
	struct npuep_revive *r, *old;

	r = kmalloc(sizeof(*r), npuep_ft_gfp(ft));
	if (r)
		npuep_conn_fill(c, &r->cmd, false);
	old = rcu_replace_pointer(c->revive, r, lockdep_is_held(&ft->lock));
	if (old)
		kfree_rcu(old, rcu);
}

/* (Re)write a connection with both its microflows, under a new revision. */
static int npuep_conn_write(struct npuep_ft *ft, struct npuep_conn *c)
{
	struct npu_cmd_conn_create cmd;

	c->rev++;
	npuep_conn_fill(c, &cmd, true);
	npuep_conn_publish(ft, c);
	return npuep_ft_cmd(ft, NPU_CMD_CONN_CREATE, &cmd, sizeof(cmd), NULL, 0);
}

static int npuep_conn_reclaim(struct npuep_ft *ft, struct npuep_conn *c)
{
	struct npu_cmd_conn_ref ref = {
		.conn = cpu_to_le32(c->idx),
		.rev = cpu_to_le16(c->rev),
	};

	return npuep_ft_cmd(ft, NPU_CMD_CONN_RECLAIM, &ref, sizeof(ref), NULL, 0);
}

/* ------------------------------------------------------------------ */
/* Parsing a flow_rule into one direction.                             */

struct npuep_flow_spec {
	struct npu_mflow_key key;
	struct npu_rewrite rw;
};

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

static int npuep_flow_parse(struct npuep_port *port, struct flow_rule *rule,
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

/* The key the reply of @f's direction arrives with. */
static void npuep_flow_reply_key(const struct npuep_flow *f,
				 struct npu_mflow_key *r)
{
	const struct npu_rewrite *rw = &f->rw;
	int alen = f->key.family == NPU_AF_INET6 ? 16 : 4;

	memset(r, 0, sizeof(*r));
	r->port = rw->egress_port;
	r->family = f->key.family;
	r->proto = f->key.proto;
	if (rw->flags & NPU_RW_VLAN_PUSH)
		r->vlan = htons(ntohs(rw->vlan_tci) & VLAN_VID_MASK);
	else if (!(rw->flags & NPU_RW_VLAN_POP))
		r->vlan = f->key.vlan;
	memcpy(r->saddr, rw->flags & NPU_RW_DNAT ? rw->nat_daddr : f->key.daddr, alen);
	memcpy(r->daddr, rw->flags & NPU_RW_SNAT ? rw->nat_saddr : f->key.saddr, alen);
	r->sport = rw->nat_dport;
	r->dport = rw->nat_sport;
}

/* ------------------------------------------------------------------ */
/* The shadow table.                                                   */

static struct npuep_conn *npuep_conn_new(struct npuep_ft *ft)
{
	struct npuep_conn *c;
	int idx;

	idx = ida_alloc_max(&ft->conn_ida, ft->conn_max - 1, npuep_ft_gfp(ft));
	if (idx < 0)
		return NULL;
	c = kzalloc(sizeof(*c), npuep_ft_gfp(ft));
	if (!c) {
		ida_free(&ft->conn_ida, idx);
		return NULL;
	}
	c->idx = idx;
	/* A reused index continues its revisions: stale revives miss. */
	c->rev = ft->revs[idx];
	c->lastused = jiffies;
	rcu_assign_pointer(ft->by_idx[idx], c);
	ft->nconns++;
	return c;
}

static void npuep_conn_free(struct npuep_ft *ft, struct npuep_conn *c)
{
	struct npuep_revive *r;

	ft->revs[c->idx] = c->rev;
	RCU_INIT_POINTER(ft->by_idx[c->idx], NULL);
	ida_free(&ft->conn_ida, c->idx);
	ft->nconns--;
	r = rcu_replace_pointer(c->revive, NULL, lockdep_is_held(&ft->lock));
	if (r)
		kfree_rcu(r, rcu);
	kfree_rcu(c, rcu);
}

static void npuep_flow_unhash(struct npuep_ft *ft, struct npuep_flow *f)
{
	rhashtable_remove_fast(&ft->by_key, &f->knode, npuep_flow_key_params);
	rhashtable_remove_fast(&ft->by_cookie, &f->cnode, npuep_flow_cookie_params);
	ft->nflows--;
	ft->owner_flows[f->key.port]--;
	if (!ft->owner_flows[f->key.port])
		ft->owner[f->key.port] = NPUEP_OWNER_NONE;
}

static int npuep_flow_replace(struct npuep_ft *ft, struct npuep_port *port,
			      struct flow_cls_offload *cls, u8 owner)
{
	struct flow_rule *rule = flow_cls_offload_flow_rule(cls);
	struct netlink_ext_ack *extack = cls->common.extack;
	struct npu_mflow_key reply;
	struct npuep_flow_spec spec;
	struct npuep_flow *f, *g;
	struct npuep_conn *c;
	int err;

	err = npuep_flow_parse(port, rule, owner == NPUEP_OWNER_FT, &spec, extack);
	if (err == -ENODEV)
		return -EOPNOTSUPP;	/* another port's rule */
	if (err) {
		ft->st.unsupported++;
		return err;
	}
	/* Checked under the lock the unbind clears it under: npuep_setup_block(). */
	if (owner == NPUEP_OWNER_FT && !test_bit(port->idx, &ft->ndev->ft_bound))
		return -EOPNOTSUPP;
	if (ft->owner[port->idx] != NPUEP_OWNER_NONE && ft->owner[port->idx] != owner) {
		if (owner == NPUEP_OWNER_FT)
			NL_SET_ERR_MSG_MOD(extack, "port's offload is driven by tc flower rules");
		else
			NL_SET_ERR_MSG_MOD(extack,
					   "port's offload is driven by an nftables flowtable");
		ft->st.unsupported++;
		return -EBUSY;
	}

	/* Keyed by match: a replace of the same match re-points the cookie. */
	f = rhashtable_lookup_fast(&ft->by_key, &spec.key, npuep_flow_key_params);
	if (f) {
		rhashtable_remove_fast(&ft->by_cookie, &f->cnode, npuep_flow_cookie_params);
		f->cookie = cls->cookie;
		err = rhashtable_insert_fast(&ft->by_cookie, &f->cnode,
					     npuep_flow_cookie_params);
		if (err)
			return err;
		if (memcmp(&f->rw, &spec.rw, sizeof(spec.rw))) {
			f->rw = spec.rw;
			err = npuep_conn_write(ft, f->conn);
		} else if (f->conn->state == NPU_CONN_NOT_ACTIVE) {
			/*
			 * Given back and not revived: its microflows may have
			 * expired in the device, so nothing reaches the receive
			 * path's revive.  The kernel offering the flow again
			 * (nf_flow_table refreshes it about once a second while
			 * the host forwards it) makes it again, microflows
			 * and all, under a new revision.
			 */
			err = npuep_conn_write(ft, f->conn);
			if (!err) {
				f->conn->state = NPU_CONN_VALID;
				ft->st.remade++;
			}
		}
		return err;
	}

	if (ft->nflows >= ft->mflow_max) {
		NL_SET_ERR_MSG_MOD(extack, "fast path microflow table full");
		ft->st.enospc++;
		return -ENOSPC;
	}
	f = kzalloc(sizeof(*f), npuep_ft_gfp(ft));
	if (!f)
		return -ENOMEM;
	f->key = spec.key;
	f->rw = spec.rw;
	f->cookie = cls->cookie;
	f->owner = owner;

	/* Pair with the other direction if it is here and alone. */
	npuep_flow_reply_key(f, &reply);
	g = rhashtable_lookup_fast(&ft->by_key, &reply, npuep_flow_key_params);
	if (g && g->conn && !g->conn->flow[!g->dir]) {
		c = g->conn;
		f->dir = !g->dir;
	} else {
		c = npuep_conn_new(ft);
		if (!c) {
			kfree(f);
			NL_SET_ERR_MSG_MOD(extack, "fast path connection table full");
			ft->st.enospc++;
			return -ENOSPC;
		}
		f->dir = 0;
	}
	f->conn = c;
	c->flow[f->dir] = f;

	err = rhashtable_insert_fast(&ft->by_key, &f->knode, npuep_flow_key_params);
	if (err)
		goto err_unlink;
	err = rhashtable_insert_fast(&ft->by_cookie, &f->cnode, npuep_flow_cookie_params);
	if (err) {
		rhashtable_remove_fast(&ft->by_key, &f->knode, npuep_flow_key_params);
		goto err_unlink;
	}
	ft->nflows++;
	ft->owner[port->idx] = owner;
	ft->owner_flows[port->idx]++;

	err = npuep_conn_write(ft, c);
	if (err) {
		NL_SET_ERR_MSG_MOD(extack, "coprocessor refused the connection");
		npuep_flow_unhash(ft, f);
		goto err_unlink;
	}
	ft->st.flows_added++;
	if (c->flow[0] && c->flow[1])
		ft->st.paired++;
	return 0;

err_unlink:
	c->flow[f->dir] = NULL;
	if (!c->flow[!f->dir])
		npuep_conn_free(ft, c);
	kfree_rcu(f, rcu);
	return err;
}

/* Remove one direction; its connection goes when it has none left. */
static void npuep_flow_remove(struct npuep_ft *ft, struct npuep_flow *f)
{
	struct npuep_conn *c = f->conn;
	struct npu_cmd_mflow m = {};

	npuep_flow_unhash(ft, f);
	c->flow[f->dir] = NULL;
	if (c->flow[!f->dir]) {
		m.key = f->key;
		npuep_conn_publish(ft, c);
		npuep_ft_cmd(ft, NPU_CMD_MFLOW_INVALIDATE, &m, sizeof(m), NULL, 0);
	} else {
		npuep_conn_reclaim(ft, c);
		npuep_conn_free(ft, c);
	}
	ft->st.flows_deleted++;
	kfree_rcu(f, rcu);
}

static int npuep_flow_destroy(struct npuep_ft *ft, struct flow_cls_offload *cls)
{
	struct npuep_flow *f;

	f = rhashtable_lookup_fast(&ft->by_cookie, &cls->cookie,
				   npuep_flow_cookie_params);
	if (!f)
		return 0;	/* replaced under a new cookie, or never offloaded */
	npuep_flow_remove(ft, f);
	return 0;
}

static int npuep_flow_stats(struct npuep_ft *ft, struct flow_cls_offload *cls)
{
	struct npuep_flow *f;
	struct npuep_conn *c;
	u64 pkts, bytes;

	f = rhashtable_lookup_fast(&ft->by_cookie, &cls->cookie,
				   npuep_flow_cookie_params);
	if (!f)
		return -ENOENT;
	c = f->conn;
	pkts = c->pkts[f->dir] - f->rep_pkts;
	bytes = c->bytes[f->dir] - f->rep_bytes;
	f->rep_pkts = c->pkts[f->dir];
	f->rep_bytes = c->bytes[f->dir];
	flow_stats_update(&cls->stats, bytes, pkts, 0, c->lastused,
			  FLOW_ACTION_HW_STATS_DELAYED);
	return 0;
}

/* Timing of one DESTROY call or one batch of them, for debugfs ft_teardown. */
static void npuep_ft_td_note(struct npuep_ft *ft, u64 t0, u64 t1, u64 t2,
			     u32 calls, u32 inflight)
{
	struct npuep_ft_td *td = &ft->td;

	spin_lock(&td->lock);
	if (calls) {
		if (!td->n || t0 < td->first_ns)
			td->first_ns = t0;
		td->n += calls;
		td->last_entry_ns = max(td->last_entry_ns, t0);
	}
	td->wait_ns += t1 - t0;
	td->wait_max_ns = max(td->wait_max_ns, t1 - t0);
	td->held_ns += t2 - t1;
	td->held_max_ns = max(td->held_max_ns, t2 - t1);
	td->inflight_max = max(td->inflight_max, inflight);
	td->last_ns = max(td->last_ns, t2);
	spin_unlock(&td->lock);
}

/*
 * Apply up to @max queued DESTROYs (npuep_flow_destroy_cb()), oldest
 * first, under ft->lock.  Return: how many were taken from the queue.
 */
static u32 npuep_ft_dq_apply(struct npuep_ft *ft, u32 max)
{
	struct npuep_flow *f, *g;
	unsigned long cookie;
	u32 n;

	for (n = 0; n < max; n++) {
		spin_lock(&ft->dq_lock);
		if (!ft->dq_len) {
			spin_unlock(&ft->dq_lock);
			break;
		}
		cookie = ft->dq[ft->dq_head];
		ft->dq_head = (ft->dq_head + 1) % NPUEP_FLOW_DESTROY_QLEN;
		ft->dq_len--;
		spin_unlock(&ft->dq_lock);
		f = rhashtable_lookup_fast(&ft->by_cookie, &cookie,
					   npuep_flow_cookie_params);
		if (!f)
			continue;	/* went with its other direction */
		g = f->conn->flow[!f->dir];
		if (g && READ_ONCE(g->dying)) {
			/*
			 * Both directions are going (nf_flow_table destroys
			 * a connection's two back to back): one RECLAIM
			 * takes the connection out with both microflows,
			 * not an INVALIDATE and then a RECLAIM.  The
			 * device's backlog is a teardown's tail: half the
			 * commands, half the tail.
			 */
			npuep_flow_unhash(ft, g);
			g->conn->flow[g->dir] = NULL;
			ft->st.flows_deleted++;
			kfree_rcu(g, rcu);
		}
		npuep_flow_remove(ft, f);
	}
	return n;
}

/*
 * Apply every queued DESTROY, NPUEP_FLOW_DESTROY_BATCH to a hold of the
 * lock.  Called by destroy_work, and before anything that must come after
 * them: a REPLACE (the kernel may offer a new flow under a destroyed
 * flow's cookie once it freed that flow), a purge.
 */
static void npuep_ft_dq_flush(struct npuep_ft *ft)
{
	u64 t0, t1;
	u32 n;

	/* a hint: a DESTROY queued before our caller was called is seen */
	while (data_race(ft->dq_len)) {
		t0 = ktime_get_ns();
		npuep_ft_lock_writes(ft);
		t1 = ft->lock_t0;
		n = npuep_ft_dq_apply(ft, NPUEP_FLOW_DESTROY_BATCH);
		npuep_ft_td_note(ft, t0, t1, ktime_get_ns(), 0, 0);
		npuep_ft_unlock(ft);
		if (!n)
			break;
		cond_resched();
	}
}

static void npuep_ft_destroy_work(struct work_struct *work)
{
	npuep_ft_dq_flush(container_of(to_delayed_work(work), struct npuep_ft,
				       destroy_work));
}

/*
 * FLOW_CLS_DESTROY.  With posted writes the removal is queued for
 * destroy_work and the call returns: the kernel sends a teardown's
 * DESTROYs one per flow and direction from as many kworkers as it likes
 * (nf_flow_table's gc: one work item per flow), and each taking the
 * flow-table lock in turn spent more time waiting and handing it over
 * than removing (make bench, 1,000 connections: waits summed 737 ms
 * over 152 ms, up to 10 callers at once).  The queue is applied in
 * batches, in order, before any REPLACE; when it is full the caller
 * removes the flow itself.  Waited writes remove in the call.
 */
static int npuep_flow_destroy_cb(struct npuep_port *port,
				 struct flow_cls_offload *cls)
{
	struct npuep_ft *ft = port->ndev->ft;
	struct npuep_flow *f;
	bool queued = false;
	u64 t0, t1;
	u32 in;

	t0 = ktime_get_ns();
	if (READ_ONCE(ft->td.noop)) {
		npuep_ft_td_note(ft, t0, t0, t0, 1, 0);
		return 0;
	}
	/*
	 * Each direction of a flowtable's connection reaches the callback
	 * of every port of the flowtable's block (half of a teardown's
	 * 4,000 calls found nothing); the callback of the port it enters
	 * on removes it, the others return.  That port's callback is on
	 * the same block (its REPLACE was accepted there), or its unbind
	 * purged the port's flows.  No lock for this: rhashtable lookups
	 * are RCU safe and flows are freed after a grace period; the
	 * kernel does not offer and destroy one cookie at once, so a miss
	 * here is a miss under the lock.
	 */
	rcu_read_lock();
	f = rhashtable_lookup(&ft->by_cookie, &cls->cookie,
			      npuep_flow_cookie_params);
	if (f && f->key.port != port->idx)
		f = NULL;
	if (!f) {
		rcu_read_unlock();
		atomic64_inc(&ft->destroy_missed);
		return 0;
	}
	in = atomic_inc_return(&ft->td.inflight);
	if (READ_ONCE(ft->ndev->dlx.flow_cmd_posted)) {
		spin_lock(&ft->dq_lock);
		if (ft->dq_len < NPUEP_FLOW_DESTROY_QLEN) {
			ft->dq[(ft->dq_head + ft->dq_len) % NPUEP_FLOW_DESTROY_QLEN] =
				cls->cookie;
			ft->dq_len++;
			ft->destroy_queued++;
			WRITE_ONCE(f->dying, true);
			queued = true;
		} else {
			ft->destroy_sync++;
		}
		spin_unlock(&ft->dq_lock);
	}
	rcu_read_unlock();
	if (queued) {
		/*
		 * A tick's wait gathers what follows (the other direction,
		 * the rest of a teardown) into batches and pairs.
		 */
		queue_delayed_work(system_highpri_wq, &ft->destroy_work,
				   NPUEP_FLOW_DESTROY_DELAY);
		t1 = ktime_get_ns();
		npuep_ft_td_note(ft, t0, t1, t1, 1, in);
	} else {
		npuep_ft_lock_writes(ft);
		t1 = ft->lock_t0;
		npuep_flow_destroy(ft, cls);
		npuep_ft_td_note(ft, t0, t1, ktime_get_ns(), 1, in);
		npuep_ft_unlock(ft);
	}
	atomic_dec(&ft->td.inflight);
	return 0;
}

static int npuep_flow_cls(struct npuep_port *port, struct flow_cls_offload *cls,
			  u8 owner)
{
	struct npuep_ft *ft = port->ndev->ft;
	int err;

	if (!ft)
		return -EOPNOTSUPP;
	if (cls->common.chain_index) {
		NL_SET_ERR_MSG_MOD(cls->common.extack, "only chain 0 is offloaded");
		return -EOPNOTSUPP;
	}
	if (cls->command == FLOW_CLS_DESTROY)
		return npuep_flow_destroy_cb(port, cls);
	if (cls->command == FLOW_CLS_REPLACE)
		npuep_ft_dq_flush(ft);
	npuep_ft_lock_writes(ft);
	switch (cls->command) {
	case FLOW_CLS_REPLACE:
		err = npuep_flow_replace(ft, port, cls, owner);
		break;
	case FLOW_CLS_STATS:
		err = npuep_flow_stats(ft, cls);
		break;
	default:
		err = -EOPNOTSUPP;
	}
	npuep_ft_unlock(ft);
	return err;
}

static int npuep_ft_block_cb(enum tc_setup_type type, void *type_data,
			     void *cb_priv)
{
	struct npuep_port *port = cb_priv;

	if (type != TC_SETUP_CLSFLOWER)
		return -EOPNOTSUPP;
	return npuep_flow_cls(port, type_data, NPUEP_OWNER_FT);
}

static int npuep_tc_block_cb(enum tc_setup_type type, void *type_data,
			     void *cb_priv)
{
	struct flow_cls_offload *cls = type_data;
	struct npuep_port *port = cb_priv;

	if (type != TC_SETUP_CLSFLOWER)
		return -EOPNOTSUPP;
	if (!tc_cls_can_offload_and_chain0(port->netdev, &cls->common))
		return -EOPNOTSUPP;
	return npuep_flow_cls(port, cls, NPUEP_OWNER_FLOWER);
}

/*
 * Remove the directions entering on @port (NPU_MAX_PORTS: any port) that
 * @owner wrote (NPUEP_OWNER_NONE: any owner), with their connections.
 * The lock is dropped every NPUEP_FLOW_PURGE_BATCH removals so that the
 * receive path's revives and the kernel's own offload requests are not
 * held behind a mass removal (seed 004: the table lock is the bottleneck).
 */
static void npuep_flow_purge(struct npuep_ft *ft, u32 port, u8 owner)
{
	struct rhashtable_iter iter;
	struct npuep_flow *f;
	unsigned int n;

	npuep_ft_dq_flush(ft);
	do {
		n = 0;
		npuep_ft_lock_writes(ft);
		rhashtable_walk_enter(&ft->by_key, &iter);
		rhashtable_walk_start(&iter);
		while (n < NPUEP_FLOW_PURGE_BATCH &&
		       (f = rhashtable_walk_next(&iter))) {
			if (IS_ERR(f))
				continue;
			if ((port < NPU_MAX_PORTS && f->key.port != port) ||
			    (owner != NPUEP_OWNER_NONE && f->owner != owner))
				continue;
			rhashtable_walk_stop(&iter);
			npuep_flow_remove(ft, f);
			n++;
			rhashtable_walk_start(&iter);
		}
		rhashtable_walk_stop(&iter);
		rhashtable_walk_exit(&iter);
		npuep_ft_unlock(ft);
		cond_resched();
	} while (n == NPUEP_FLOW_PURGE_BATCH);
}

/*
 * A flowtable leaves @port.  nftables unbinds a flowtable's devices before
 * it flushes the flowtable: those DESTROYs reach no driver, so its
 * connections entering here go now.  And nf_flow_table_offload_setup()
 * calls us before it takes our callback off the flowtable's list (under
 * its flow_block_lock): an add work item walking that list can still post
 * a REPLACE after the purge.  The port leaves ft_bound first, under the
 * table lock that npuep_flow_replace() tests it under, so that REPLACE
 * finds it gone (else an orphan stays in the driver and the coprocessor:
 * test 63 once found one after a flowtable deletion).  tc replays DESTROY
 * for every filter before an unbind: flower needs none of this.
 */
static void npuep_ft_unbind(struct npuep_port *port)
{
	struct npuep_ft *ft = port->ndev->ft;

	if (!ft) {
		clear_bit(port->idx, &port->ndev->ft_bound);
		return;
	}
	npuep_ft_lock_writes(ft);
	clear_bit(port->idx, &port->ndev->ft_bound);
	npuep_ft_unlock(ft);
	npuep_flow_purge(ft, port->idx, NPUEP_OWNER_FT);
}

static LIST_HEAD(npuep_block_cb_list);

static int npuep_setup_block(struct npuep_port *port, struct flow_block_offload *f,
			     flow_setup_cb_t *cb)
{
	struct flow_block_cb *block_cb;

	if (f->binder_type != FLOW_BLOCK_BINDER_TYPE_CLSACT_INGRESS)
		return -EOPNOTSUPP;
	f->driver_block_list = &npuep_block_cb_list;

	switch (f->command) {
	case FLOW_BLOCK_BIND:
		if (cb == npuep_ft_block_cb && port->ndev->ft &&
		    port->ndev->ft->owner[port->idx] == NPUEP_OWNER_FLOWER) {
			NL_SET_ERR_MSG_MOD(f->extack,
					   "port's offload is driven by tc flower rules");
			return -EBUSY;
		}
		block_cb = flow_block_cb_lookup(f->block, cb, port);
		if (block_cb) {
			flow_block_cb_incref(block_cb);
			return 0;
		}
		block_cb = flow_block_cb_alloc(cb, port, port, NULL);
		if (IS_ERR(block_cb))
			return PTR_ERR(block_cb);
		flow_block_cb_incref(block_cb);
		flow_block_cb_add(block_cb, f);
		list_add_tail(&block_cb->driver_list, &npuep_block_cb_list);
		if (cb == npuep_ft_block_cb)
			set_bit(port->idx, &port->ndev->ft_bound);
		return 0;
	case FLOW_BLOCK_UNBIND:
		block_cb = flow_block_cb_lookup(f->block, cb, port);
		if (!block_cb)
			return -ENOENT;
		if (!flow_block_cb_decref(block_cb)) {
			flow_block_cb_remove(block_cb, f);
			list_del(&block_cb->driver_list);
			if (cb == npuep_ft_block_cb)
				npuep_ft_unbind(port);
		}
		return 0;
	default:
		return -EOPNOTSUPP;
	}
}

/**
 * npuep_setup_tc() - ndo_setup_tc: flowtable and flower offload
 * @netdev: a port's netdev
 * @type: TC_SETUP_FT (nftables flowtable) or TC_SETUP_BLOCK (clsact ingress)
 * @type_data: struct flow_block_offload
 *
 * Return: 0, -EOPNOTSUPP for other types or when hw-tc-offload is off.
 */
int npuep_setup_tc(struct net_device *netdev, enum tc_setup_type type,
		   void *type_data)
{
	struct npuep_port *port = netdev_priv(netdev);

	switch (type) {
	case TC_SETUP_FT:
		return npuep_setup_block(port, type_data, npuep_ft_block_cb);
	case TC_SETUP_BLOCK:
		return npuep_setup_block(port, type_data, npuep_tc_block_cb);
	default:
		return -EOPNOTSUPP;
	}
}

/* ------------------------------------------------------------------ */
/* Statistics read-back, revive, life cycle.                           */

static void npuep_flow_rep_reset(struct npuep_flow *f)
{
	f->rep_pkts = 0;
	f->rep_bytes = 0;
}

static void npuep_ft_stats_work(struct work_struct *work)
{
	struct npuep_ft *ft = container_of(to_delayed_work(work), struct npuep_ft,
					   stats_work);
	struct npu_cmd_conn_stats resp;
	struct npu_cmd_conn_ref ref;
	u32 i, j, n, more;

	for (i = 0; i < ft->conn_max; i += NPU_CONN_STATS_MAX) {
		npuep_ft_lock(ft);
		for (j = 0; j < NPU_CONN_STATS_MAX && i + j < ft->conn_max; j++)
			if (npuep_conn_at(ft, i + j))
				break;
		more = ft->nconns;
		npuep_ft_unlock(ft);
		if (j == NPU_CONN_STATS_MAX || i + j >= ft->conn_max) {
			if (!more)
				break;
			continue;
		}
		/*
		 * The read is waited for outside the flow-table lock: the
		 * answers are matched to connections by index and revision
		 * below, so a connection replaced meanwhile is skipped.
		 */
		ref.conn = cpu_to_le32(i);
		ref.rev = 0;
		ref.count = cpu_to_le16(min_t(u32, NPU_CONN_STATS_MAX, ft->conn_max - i));
		if (npuep_cmd_exec_ring(ft->ndev, READ_ONCE(ft->ndev->dlx.flow_cmd_ring),
					NPU_CMD_CONN_STATS, &ref, sizeof(ref),
					&resp, sizeof(resp)))
			break;
		npuep_ft_lock(ft);
		ft->st.stats_reads++;
		n = min_t(u32, le16_to_cpu(resp.count), NPU_CONN_STATS_MAX);
		for (j = 0; j < n; j++) {
			const struct npu_conn_stat *s = &resp.st[j];
			u32 idx = le32_to_cpu(s->conn);
			struct npuep_conn *c;
			u64 p0, p1;

			if (idx >= ft->conn_max)
				continue;	/* untrusted */
			c = npuep_conn_at(ft, idx);
			if (!c || le16_to_cpu(s->rev) != c->rev)
				continue;
			p0 = le64_to_cpu(s->packets[0]);
			p1 = le64_to_cpu(s->packets[1]);
			/* Counters restart with a new revision. */
			if (p0 < c->pkts[0] || p1 < c->pkts[1]) {
				c->pkts[0] = 0;
				c->pkts[1] = 0;
				c->bytes[0] = 0;
				c->bytes[1] = 0;
				if (c->flow[0])
					npuep_flow_rep_reset(c->flow[0]);
				if (c->flow[1])
					npuep_flow_rep_reset(c->flow[1]);
			}
			if (p0 != c->pkts[0] || p1 != c->pkts[1])
				c->lastused = jiffies - msecs_to_jiffies(le32_to_cpu(s->idle_ms));
			c->pkts[0] = p0;
			c->pkts[1] = p1;
			c->bytes[0] = le64_to_cpu(s->bytes[0]);
			c->bytes[1] = le64_to_cpu(s->bytes[1]);
			c->state = s->state;
		}
		npuep_ft_unlock(ft);
		cond_resched();
	}
	if (!ft->stopping)
		queue_delayed_work(system_unbound_wq, &ft->stats_work,
				   msecs_to_jiffies(NPUEP_FLOW_STATS_MS));
}

static void npuep_ft_revive_work(struct work_struct *work)
{
	struct npuep_ft *ft = container_of(work, struct npuep_ft, revive_work);
	struct npu_cmd_conn_create cmd;
	struct npuep_conn *c;
	u32 idx;

	for_each_set_bit(idx, ft->revive_map, ft->conn_max) {
		clear_bit(idx, ft->revive_map);
		npuep_ft_lock(ft);
		c = npuep_conn_at(ft, idx);
		if (c) {
			/* Same index and revision, no microflow: revive in place. */
			npuep_conn_fill(c, &cmd, false);
			if (!npuep_ft_cmd_ring(ft, NPUEP_CMD_RING_HIGH, true,
					       NPU_CMD_CONN_CREATE, &cmd,
					       sizeof(cmd), NULL, 0))
				ft->st.revived++;
		}
		npuep_ft_unlock(ft);
	}
}

/**
 * npuep_flow_revive() - a frame of a given-back connection reached the host
 * @ndev: the coprocessor
 * @conn: the connection index from the receive descriptor (untrusted)
 *
 * Called from NAPI for frames punted NPU_PUNT_NOT_ACTIVE.  Posts the
 * connection's create command again on the high-priority ring (same index
 * and revision, no microflow: revive in place) straight from the receive
 * path, at most once per NPUEP_FLOW_REVIVE_MS per connection; when that
 * ring is full the revive goes to a work item instead (counted in
 * fp_revive_deferred).  Lock free apart from the ring's slot lock; never
 * sleeps.
 */
void npuep_flow_revive(struct npuep_dev *ndev, u32 conn)
{
	struct npuep_ft *ft = ndev->ft;
	struct npuep_revive *r;
	struct npuep_conn *c;

	if (!ft || !READ_ONCE(ft->revive) || conn >= ft->conn_max)
		return;
	rcu_read_lock();
	c = rcu_dereference(ft->by_idx[conn]);
	if (c && !time_before(jiffies, READ_ONCE(c->revive_next))) {
		WRITE_ONCE(c->revive_next,
			   jiffies + msecs_to_jiffies(NPUEP_FLOW_REVIVE_MS));
		r = rcu_dereference(c->revive);
		if (r && !npuep_cmd_post_atomic(ndev, NPUEP_CMD_RING_HIGH,
						NPU_CMD_CONN_CREATE, &r->cmd,
						sizeof(r->cmd))) {
			atomic64_inc(&ft->revived_rx);
		} else if (!test_and_set_bit(conn, ft->revive_map)) {
			atomic64_inc(&ft->revive_deferred);
			queue_work(system_highpri_wq, &ft->revive_work);
		}
	}
	rcu_read_unlock();
}

static const char * const npuep_flow_stat_names[] = {
	"fp_conns", "fp_flows", "fp_flows_added", "fp_flows_deleted",
	"fp_paired", "fp_enospc", "fp_unsupported", "fp_revived",
	"fp_revive_deferred", "fp_remade",
	"fp_cmd_waited", "fp_cmd_posted", "fp_cmd_ring_full", "fp_cmd_failed",
	"fp_stats_reads",
	"fp_lock_held_max_us", "fp_lock_held_over_1ms", "fp_lock_held_over_5ms",
	"hw_fp_conns", "hw_fp_mflows",
	"hw_fwd_frames", "hw_fwd_bytes",
};

static const char * const npuep_flow_punt_names[NPU_PUNT_MAX] = {
	"none", "flow_miss", "not_active", "tcp_flags", "exception", "mtu",
	"non_ip", "mcast", "fastpath_off", "ntuple", "malformed",
};

/**
 * npuep_flow_sset_count() - ethtool -S entries of the fast path
 *
 * Return: the number of u64 npuep_flow_get_stats() writes.
 */
int npuep_flow_sset_count(void)
{
	return ARRAY_SIZE(npuep_flow_stat_names) + NPU_PUNT_MAX;
}

/**
 * npuep_flow_get_strings() - names of the fast path's ethtool -S entries
 * @data: cursor into the strings buffer, advanced
 *
 * fp_* are the driver's (device wide), hw_* the coprocessor's: hw_fwd_* and
 * hw_punt_<reason> count frames that arrived on this port, forwarded by the
 * fast path or punted to the host (including frames XDP dropped later).
 */
void npuep_flow_get_strings(u8 **data)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(npuep_flow_stat_names); i++)
		ethtool_puts(data, npuep_flow_stat_names[i]);
	for (i = 0; i < NPU_PUNT_MAX; i++)
		ethtool_sprintf(data, "hw_punt_%s", npuep_flow_punt_names[i]);
}

/**
 * npuep_flow_get_stats() - values of the fast path's ethtool -S entries
 * @port: the port asked about
 * @data: cursor into the values, advanced by npuep_flow_sset_count()
 */
void npuep_flow_get_stats(struct npuep_port *port, u64 **data)
{
	struct npuep_dev *ndev = port->ndev;
	struct npuep_ft *ft = ndev->ft;
	u32 base = NPU_REG_PORT_FP(port->idx);
	struct npuep_ft_stats st = {};
	u64 *d = *data;
	u32 nconns = 0, nflows = 0;
	unsigned int i;

	if (ft) {
		/*
		 * Counters only, no lock: ethtool -S must not wait behind
		 * a mass removal or a slow command (make bench saw 3 s).
		 */
		st = data_race(ft->st);
		/* a count, read without the lock as above */
		nconns = data_race(ft->nconns);
		/* a count, read without the lock as above */
		nflows = data_race(ft->nflows);
	}
	*d++ = nconns;
	*d++ = nflows;
	*d++ = st.flows_added;
	*d++ = st.flows_deleted;
	*d++ = st.paired;
	*d++ = st.enospc;
	*d++ = st.unsupported;
	*d++ = ft ? st.revived + atomic64_read(&ft->revived_rx) : 0;
	*d++ = ft ? atomic64_read(&ft->revive_deferred) : 0;
	*d++ = st.remade;
	*d++ = st.cmd_waited;
	*d++ = st.cmd_posted;
	*d++ = st.cmd_ring_full;
	/* posted commands the device failed, seen when their slot is reused */
	*d++ = st.cmd_failed + READ_ONCE(ndev->dlx.cmdq[0].posted_failed) +
	       READ_ONCE(ndev->dlx.cmdq[1].posted_failed);
	*d++ = st.stats_reads;
	*d++ = div_u64(st.lock_held_max_ns, NSEC_PER_USEC);
	*d++ = st.lock_held_over_1ms;
	*d++ = st.lock_held_over_5ms;
	*d++ = npuep_rd32(ndev, NPU_REG_FT_CONNS);
	*d++ = npuep_rd32(ndev, NPU_REG_FT_MFLOWS);
	*d++ = npuep_rd64(ndev, base + NPU_PORT_FP_FWD_FRAMES);
	*d++ = npuep_rd64(ndev, base + NPU_PORT_FP_FWD_BYTES);
	for (i = 0; i < NPU_PUNT_MAX; i++)
		*d++ = npuep_rd64(ndev, base + NPU_PORT_FP_PUNT(i));
	*data = d;
}

static int npuep_ft_td_show(struct seq_file *m, void *v)
{
	struct npuep_ft *ft = m->private;
	struct npuep_ft_td td;
	u32 r;

	spin_lock(&ft->td.lock);
	td = ft->td;
	spin_unlock(&ft->td.lock);
	seq_printf(m, "destroys %llu\nfirst_ns %llu\nlast_entry_ns %llu\nlast_ns %llu\n",
		   td.n, td.first_ns, td.last_entry_ns, td.last_ns);
	seq_printf(m, "wait_ns %llu\nwait_max_ns %llu\nheld_ns %llu\nheld_max_ns %llu\n",
		   td.wait_ns, td.wait_max_ns, td.held_ns, td.held_max_ns);
	seq_printf(m, "inflight_max %u\nnoop %u\nmissed %lld\n", td.inflight_max,
		   td.noop, atomic64_read(&ft->destroy_missed));
	seq_printf(m, "queued %llu\nsync %llu\n", READ_ONCE(ft->destroy_queued),
		   READ_ONCE(ft->destroy_sync));
	for (r = 0; r < NPU_CMD_RINGS; r++) {
		struct npuep_cmdq *q = &ft->ndev->dlx.cmdq[r];

		seq_printf(m, "ring%u_posted %llu\nring%u_backlogged %llu\nring%u_backlog_max %u\nring%u_drained_ns %llu\n",
			   r, READ_ONCE(q->posted), r, READ_ONCE(q->backlogged),
			   r, READ_ONCE(q->backlog_max), r, READ_ONCE(q->drained_ns));
		seq_printf(m, "ring%u_drain_sleeps %llu\nring%u_drain_sleep_ns %llu\n",
			   r, READ_ONCE(q->drain_sleeps), r, READ_ONCE(q->drain_sleep_ns));
	}
	return 0;
}

static int npuep_ft_td_open(struct inode *inode, struct file *file)
{
	return single_open(file, npuep_ft_td_show, inode->i_private);
}

/* Any write resets the figures; "noop 1" / "noop 0" sets the bench knob. */
static ssize_t npuep_ft_td_write(struct file *file, const char __user *ubuf,
				 size_t len, loff_t *ppos)
{
	struct npuep_ft *ft = file_inode(file)->i_private;
	char buf[16] = {};
	u32 r;

	if (copy_from_user(buf, ubuf, min(len, sizeof(buf) - 1)))
		return -EFAULT;
	spin_lock(&ft->td.lock);
	ft->td.n = 0;
	ft->td.first_ns = 0;
	ft->td.last_entry_ns = 0;
	ft->td.last_ns = 0;
	ft->td.wait_ns = 0;
	ft->td.wait_max_ns = 0;
	ft->td.held_ns = 0;
	ft->td.held_max_ns = 0;
	ft->td.inflight_max = 0;
	if (!strncmp(buf, "noop ", 5))
		WRITE_ONCE(ft->td.noop, buf[5] == '1');
	spin_unlock(&ft->td.lock);
	for (r = 0; r < NPU_CMD_RINGS; r++) {
		struct npuep_cmdq *q = &ft->ndev->dlx.cmdq[r];

		spin_lock_bh(&q->slot_lock);
		q->backlog_max = 0;
		q->drained_ns = 0;
		q->drain_sleeps = 0;
		q->drain_sleep_ns = 0;
		spin_unlock_bh(&q->slot_lock);
	}
	return len;
}

static const struct file_operations npuep_ft_td_fops = {
	.owner = THIS_MODULE,
	.open = npuep_ft_td_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
	.write = npuep_ft_td_write,
};

/**
 * npuep_flow_flush() - take every connection out of the coprocessor
 * @ndev: the coprocessor
 *
 * One pass over the shadow table; the kernel's offload state (flowtable,
 * flower) forgets nothing: the flows simply go back to the host path.
 */
void npuep_flow_flush(struct npuep_dev *ndev)
{
	if (ndev->ft)
		npuep_flow_purge(ndev->ft, NPU_MAX_PORTS, NPUEP_OWNER_NONE);
}

/**
 * npuep_flow_init() - set up the shadow table and tell the coprocessor its sizes
 * @ndev: the coprocessor
 * @conns: connection table size (devlink resource)
 * @mflows: microflow table size (devlink resource)
 *
 * Return: 0 or a negative errno.
 */
int npuep_flow_init(struct npuep_dev *ndev, u32 conns, u32 mflows)
{
	struct npu_cmd_ft_config cfg = {};
	struct npuep_ft *ft;
	int err;

	ft = kzalloc(sizeof(*ft), GFP_KERNEL);
	if (!ft)
		return -ENOMEM;
	ft->ndev = ndev;
	ft->conn_max = conns;
	ft->mflow_max = mflows;
	ft->revive = true;
	mutex_init(&ft->lock);
	spin_lock_init(&ft->td.lock);
	spin_lock_init(&ft->dq_lock);
	INIT_DELAYED_WORK(&ft->destroy_work, npuep_ft_destroy_work);
	ida_init(&ft->conn_ida);
	INIT_DELAYED_WORK(&ft->stats_work, npuep_ft_stats_work);
	INIT_WORK(&ft->revive_work, npuep_ft_revive_work);
	ft->by_idx = kvcalloc(conns, sizeof(*ft->by_idx), GFP_KERNEL);
	ft->revs = kvcalloc(conns, sizeof(*ft->revs), GFP_KERNEL);
	ft->revive_map = bitmap_zalloc(conns, GFP_KERNEL);
	ft->dq = kvcalloc(NPUEP_FLOW_DESTROY_QLEN, sizeof(*ft->dq), GFP_KERNEL);
	if (!ft->by_idx || !ft->revs || !ft->revive_map || !ft->dq) {
		err = -ENOMEM;
		goto err_free;
	}
	err = rhashtable_init(&ft->by_key, &npuep_flow_key_params);
	if (err)
		goto err_free;
	err = rhashtable_init(&ft->by_cookie, &npuep_flow_cookie_params);
	if (err)
		goto err_key;

	cfg.conns = cpu_to_le32(conns);
	cfg.mflows = cpu_to_le32(mflows);
	cfg.fastpath = 1;
	err = npuep_cmd_exec(ndev, NPU_CMD_FT_CONFIG, &cfg, sizeof(cfg), NULL, 0);
	if (err)
		goto err_cookie;
	ndev->ft = ft;
	ft->dbg = debugfs_create_dir(dev_name(ndev->dev), npuep_dbg_root);
	debugfs_create_file("ft_teardown", 0600, ft->dbg, ft, &npuep_ft_td_fops);
	queue_delayed_work(system_unbound_wq, &ft->stats_work,
			   msecs_to_jiffies(NPUEP_FLOW_STATS_MS));
	return 0;

err_cookie:
	rhashtable_destroy(&ft->by_cookie);
err_key:
	rhashtable_destroy(&ft->by_key);
err_free:
	kvfree(ft->dq);
	bitmap_free(ft->revive_map);
	kvfree(ft->revs);
	kvfree(ft->by_idx);
	kfree(ft);
	return err;
}

/**
 * npuep_flow_fini() - take everything out and free the shadow table
 * @ndev: the coprocessor
 */
void npuep_flow_fini(struct npuep_dev *ndev)
{
	struct npuep_ft *ft = ndev->ft;

	if (!ft)
		return;
	debugfs_remove_recursive(ft->dbg);
	ft->stopping = true;
	cancel_delayed_work_sync(&ft->stats_work);
	npuep_flow_flush(ndev);
	ndev->ft = NULL;
	cancel_delayed_work_sync(&ft->destroy_work);
	cancel_work_sync(&ft->revive_work);
	rhashtable_destroy(&ft->by_cookie);
	rhashtable_destroy(&ft->by_key);
	ida_destroy(&ft->conn_ida);
	synchronize_rcu();	/* npuep_flow_revive() readers */
	kvfree(ft->dq);
	bitmap_free(ft->revive_map);
	kvfree(ft->revs);
	kvfree(ft->by_idx);
	mutex_destroy(&ft->lock);
	kfree(ft);
}

/**
 * npuep_flow_replay() - reset the coprocessor's fast path and re-program it
 * @ndev: the coprocessor
 *
 * Firmware recovery: NPU_CMD_FT_CONFIG (empties the tables and clears a
 * fault) with the current sizes, then every connection of the shadow table
 * is created again with its microflows, under a new revision, waited for on
 * the normal ring.
 *
 * Return: the number of connections re-sent, or a negative errno.
 */
int npuep_flow_replay(struct npuep_dev *ndev)
{
	struct npuep_ft *ft = ndev->ft;
	struct npu_cmd_ft_config cfg = {};
	struct npuep_conn *c;
	int err, n = 0;
	u32 i;

	if (!ft)
		return -ENODEV;
	npuep_ft_lock(ft);
	cfg.conns = cpu_to_le32(ft->conn_max);
	cfg.mflows = cpu_to_le32(ft->mflow_max);
	cfg.fastpath = READ_ONCE(ndev->dlx.fastpath);
	err = npuep_ft_cmd_ring(ft, NPUEP_CMD_RING_NORMAL, false,
				NPU_CMD_FT_CONFIG, &cfg, sizeof(cfg), NULL, 0);
	for (i = 0; !err && i < ft->conn_max; i++) {
		c = npuep_conn_at(ft, i);
		if (!c)
			continue;
		c->pkts[0] = 0;
		c->pkts[1] = 0;
		c->bytes[0] = 0;
		c->bytes[1] = 0;
		if (c->flow[0])
			npuep_flow_rep_reset(c->flow[0]);
		if (c->flow[1])
			npuep_flow_rep_reset(c->flow[1]);
		err = npuep_conn_write(ft, c);
		if (!err)
			n++;
	}
	npuep_ft_unlock(ft);
	return err ?: n;
}

/**
 * npuep_flow_snapshot() - the shadow table as an array of npu_conn_stat
 * @ndev: the coprocessor
 * @out: @n entries, zeroed; entry i describes connection index i
 * @n: entries in @out
 *
 * Counters are those of the last batched statistics read.
 *
 * Return: connections in use.
 */
u32 npuep_flow_snapshot(struct npuep_dev *ndev, struct npu_conn_stat *out,
			u32 n)
{
	struct npuep_ft *ft = ndev->ft;
	struct npuep_conn *c;
	u32 i, used = 0;

	if (!ft)
		return 0;
	npuep_ft_lock(ft);
	for (i = 0; i < n && i < ft->conn_max; i++) {
		c = npuep_conn_at(ft, i);
		if (!c)
			continue;
		out[i].conn = cpu_to_le32(i);
		out[i].rev = cpu_to_le16(c->rev);
		out[i].state = c->state;
		out[i].packets[0] = cpu_to_le64(c->pkts[0]);
		out[i].packets[1] = cpu_to_le64(c->pkts[1]);
		out[i].bytes[0] = cpu_to_le64(c->bytes[0]);
		out[i].bytes[1] = cpu_to_le64(c->bytes[1]);
		out[i].idle_ms = cpu_to_le32(jiffies_to_msecs(jiffies -
							      c->lastused));
		used++;
	}
	npuep_ft_unlock(ft);
	return used;
}
