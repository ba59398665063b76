// SPDX-License-Identifier: GPL-2.0
/*
 * npuep flow offload: a flow_rule read into one direction of a connection.
 *
 * The glue: reads the kernel's struct flow_rule (its matches with
 * flow_rule_match_*(), its actions, the redirect target looked up among
 * this device's ports) into a struct npuep_flow_desc of plain data, and
 * hands that to the pure part (flow_parse_pure.c), which validates it and
 * turns it into the microflow key and rewrite.  Nothing is decided here.
 */
#include <linux/if_arp.h>
#include <linux/if_vlan.h>
#include <linux/netdevice.h>
#include <linux/rcupdate.h>
#include <net/flow_offload.h>

#include "npuep.h"
#include "flow_priv.h"
#include "flow_desc.h"

static const struct {
	u8 id;			/* enum flow_dissector_key_id */
	u32 bit;		/* NPUEP_FD_* */
} npuep_fd_keys[] = {
	{ FLOW_DISSECTOR_KEY_META, NPUEP_FD_META },
	{ FLOW_DISSECTOR_KEY_CONTROL, NPUEP_FD_CONTROL },
	{ FLOW_DISSECTOR_KEY_BASIC, NPUEP_FD_BASIC },
	{ FLOW_DISSECTOR_KEY_IPV4_ADDRS, NPUEP_FD_IPV4 },
	{ FLOW_DISSECTOR_KEY_IPV6_ADDRS, NPUEP_FD_IPV6 },
	{ FLOW_DISSECTOR_KEY_PORTS, NPUEP_FD_PORTS },
	{ FLOW_DISSECTOR_KEY_TCP, NPUEP_FD_TCP },
	{ FLOW_DISSECTOR_KEY_VLAN, NPUEP_FD_VLAN },
	{ FLOW_DISSECTOR_KEY_CVLAN, NPUEP_FD_CVLAN },
	{ FLOW_DISSECTOR_KEY_PPPOE, NPUEP_FD_PPPOE },
};

static u32 npuep_fd_read_keys(const struct flow_rule *rule)
{
	u64 used = rule->match.dissector->used_keys;
	u32 keys = 0;
	int i;

	for (i = 0; i < ARRAY_SIZE(npuep_fd_keys); i++) {
		if (used & BIT_ULL(npuep_fd_keys[i].id))
			keys |= npuep_fd_keys[i].bit;
		used &= ~BIT_ULL(npuep_fd_keys[i].id);
	}
	if (used)
		keys |= NPUEP_FD_OTHER;
	return keys;
}

static void npuep_fd_read_meta(struct flow_rule *rule, struct npuep_flow_desc *d)
{
	struct flow_match_meta m;

	flow_rule_match_meta(rule, &m);
	d->meta.key.ingress_ifindex = m.key->ingress_ifindex;
	d->meta.key.ingress_iftype = m.key->ingress_iftype;
	d->meta.key.l2_miss = m.key->l2_miss;
	d->meta.mask.ingress_ifindex = m.mask->ingress_ifindex;
	d->meta.mask.ingress_iftype = m.mask->ingress_iftype;
	d->meta.mask.l2_miss = m.mask->l2_miss;
}

static void npuep_fd_read_control(struct flow_rule *rule, struct npuep_flow_desc *d)
{
	struct flow_match_control m;

	flow_rule_match_control(rule, &m);
	if (m.key->addr_type == FLOW_DISSECTOR_KEY_IPV4_ADDRS)
		d->control.key.addr_type = NPUEP_FD_ADDR_IPV4;
	else if (m.key->addr_type == FLOW_DISSECTOR_KEY_IPV6_ADDRS)
		d->control.key.addr_type = NPUEP_FD_ADDR_IPV6;
	d->control.key.flags = m.key->flags;
	d->control.mask.flags = m.mask->flags;
}

static void npuep_fd_read_basic(struct flow_rule *rule, struct npuep_flow_desc *d)
{
	struct flow_match_basic m;

	flow_rule_match_basic(rule, &m);
	d->basic.key.n_proto = m.key->n_proto;
	d->basic.key.ip_proto = m.key->ip_proto;
	d->basic.mask.n_proto = m.mask->n_proto;
	d->basic.mask.ip_proto = m.mask->ip_proto;
}

static void npuep_fd_read_addrs(struct flow_rule *rule, struct npuep_flow_desc *d)
{
	if (d->keys & NPUEP_FD_IPV4) {
		struct flow_match_ipv4_addrs m;

		flow_rule_match_ipv4_addrs(rule, &m);
		d->ipv4.key.src = m.key->src;
		d->ipv4.key.dst = m.key->dst;
		d->ipv4.mask.src = m.mask->src;
		d->ipv4.mask.dst = m.mask->dst;
	}
	if (d->keys & NPUEP_FD_IPV6) {
		struct flow_match_ipv6_addrs m;

		flow_rule_match_ipv6_addrs(rule, &m);
		memcpy(d->ipv6.key.src, &m.key->src, 16);
		memcpy(d->ipv6.key.dst, &m.key->dst, 16);
		memcpy(d->ipv6.mask.src, &m.mask->src, 16);
		memcpy(d->ipv6.mask.dst, &m.mask->dst, 16);
	}
}

static void npuep_fd_read_l4(struct flow_rule *rule, struct npuep_flow_desc *d)
{
	if (d->keys & NPUEP_FD_PORTS) {
		struct flow_match_ports m;

		flow_rule_match_ports(rule, &m);
		d->ports.key.src = m.key->src;
		d->ports.key.dst = m.key->dst;
		d->ports.mask.src = m.mask->src;
		d->ports.mask.dst = m.mask->dst;
	}
	if (d->keys & NPUEP_FD_TCP) {
		struct flow_match_tcp m;

		flow_rule_match_tcp(rule, &m);
		d->tcp_flags.key = m.key->flags;
		d->tcp_flags.mask = m.mask->flags;
	}
}

static void npuep_fd_vlan(struct npuep_fd_vlan *v, const struct flow_dissector_key_vlan *k)
{
	v->id = k->vlan_id;
	v->dei = k->vlan_dei;
	v->priority = k->vlan_priority;
	v->tpid = k->vlan_tpid;
	v->eth_type = k->vlan_eth_type;
}

static void npuep_fd_read_vlan(struct flow_rule *rule, struct npuep_flow_desc *d)
{
	struct flow_match_vlan m;

	if (d->keys & NPUEP_FD_VLAN) {
		flow_rule_match_vlan(rule, &m);
		npuep_fd_vlan(&d->vlan.key, m.key);
		npuep_fd_vlan(&d->vlan.mask, m.mask);
	}
	if (d->keys & NPUEP_FD_CVLAN) {
		flow_rule_match_cvlan(rule, &m);
		npuep_fd_vlan(&d->cvlan.key, m.key);
		npuep_fd_vlan(&d->cvlan.mask, m.mask);
	}
}

static void npuep_fd_pppoe(struct npuep_fd_pppoe *p, const struct flow_dissector_key_pppoe *k)
{
	p->sid = k->session_id;
	p->ppp_proto = k->ppp_proto;
	p->type = k->type;
}

static void npuep_fd_read_pppoe(struct flow_rule *rule, struct npuep_flow_desc *d)
{
	struct flow_match_pppoe m;

	flow_rule_match_pppoe(rule, &m);
	npuep_fd_pppoe(&d->pppoe.key, m.key);
	npuep_fd_pppoe(&d->pppoe.mask, m.mask);
}

/*
 * nf_flow_table (Linux 6.12, nf_flow_rule_match()) fills its VLAN and
 * CVLAN keys and points the dissector at them, but leaves them out of
 * used_keys: a flowtable's rule has them where their offsets are set (the
 * dissector is zeroed, and neither key is the first of its struct).
 */
static u32 npuep_fd_read_ft_vlan_keys(const struct flow_rule *rule)
{
	const struct flow_dissector *fd = rule->match.dissector;
	u32 keys = 0;

	if (fd->offset[FLOW_DISSECTOR_KEY_VLAN])
		keys |= NPUEP_FD_VLAN;
	if (fd->offset[FLOW_DISSECTOR_KEY_CVLAN])
		keys |= NPUEP_FD_CVLAN;
	return keys;
}

static void npuep_fd_read_matches(struct flow_rule *rule, struct npuep_flow_desc *d)
{
	d->keys = npuep_fd_read_keys(rule);
	if (d->ft)
		d->keys |= npuep_fd_read_ft_vlan_keys(rule);
	if (d->keys & NPUEP_FD_META)
		npuep_fd_read_meta(rule, d);
	if (d->keys & NPUEP_FD_CONTROL)
		npuep_fd_read_control(rule, d);
	if (d->keys & NPUEP_FD_BASIC)
		npuep_fd_read_basic(rule, d);
	npuep_fd_read_addrs(rule, d);
	npuep_fd_read_l4(rule, d);
	npuep_fd_read_vlan(rule, d);
	if (d->keys & NPUEP_FD_PPPOE)
		npuep_fd_read_pppoe(rule, d);
}

/*
 * A flowtable's 802.1Q tags against the port's VLAN devices: a stack of
 * them must carry the tags, and no 802.1ad device of the port a stack with
 * the outer one (enum npuep_fd_ft_tags).  Under RCU: the glue does not
 * sleep.
 */
static u8 npuep_fd_read_ft_tags(struct net_device *dev, const struct npuep_flow_desc *d)
{
	bool cvlan = d->keys & NPUEP_FD_CVLAN;
	struct net_device *v, *upper;
	struct list_head *iter;
	u8 r;

	if (!(d->keys & NPUEP_FD_VLAN))
		return NPUEP_FD_FT_TAGS_PORT;
	rcu_read_lock();
	v = __vlan_find_dev_deep_rcu(dev, htons(ETH_P_8021Q), d->vlan.key.id);
	if (v && cvlan)
		v = __vlan_find_dev_deep_rcu(v, htons(ETH_P_8021Q), d->cvlan.key.id);
	r = v ? NPUEP_FD_FT_TAGS_PORT : NPUEP_FD_FT_TAGS_NODEV;
	if (v && !cvlan) {
		netdev_for_each_upper_dev_rcu(dev, upper, iter)
			if (is_vlan_dev(upper) &&
			    vlan_dev_vlan_proto(upper) == htons(ETH_P_8021AD) &&
			    __vlan_find_dev_deep_rcu(upper, htons(ETH_P_8021Q), d->vlan.key.id))
				r = NPUEP_FD_FT_TAGS_UNDER_AD;
	}
	rcu_read_unlock();
	return r;
}

static u8 npuep_fd_htype(enum flow_action_mangle_base htype)
{
	switch (htype) {
	case FLOW_ACT_MANGLE_HDR_TYPE_ETH:
		return NPUEP_FH_ETH;
	case FLOW_ACT_MANGLE_HDR_TYPE_IP4:
		return NPUEP_FH_IP4;
	case FLOW_ACT_MANGLE_HDR_TYPE_IP6:
		return NPUEP_FH_IP6;
	case FLOW_ACT_MANGLE_HDR_TYPE_TCP:
		return NPUEP_FH_TCP;
	case FLOW_ACT_MANGLE_HDR_TYPE_UDP:
		return NPUEP_FH_UDP;
	default:
		return NPUEP_FH_OTHER;
	}
}

/*
 * A redirect's target: a port of @port's device, a ppp device (the path
 * under it, read under RCU as nf_flow_table reads it), or
 * NPUEP_FD_PORT_FOREIGN.
 */
static void npuep_fd_read_redirect(const struct npuep_port *port,
				   const struct net_device *dev,
				   struct npuep_fd_act *fa,
				   struct npuep_flow_desc *d)
{
	fa->redirect.port = npuep_flow_port_of(port->ndev, dev);
	if (fa->redirect.port != NPUEP_FD_PORT_FOREIGN) {
		fa->redirect.mtu = READ_ONCE(dev->mtu);
		return;
	}
	if (!dev || dev->type != ARPHRD_PPP)
		return;
	fa->redirect.via_ppp = true;
	rcu_read_lock();
	d->npath = npuep_flow_path_read(port->ndev, dev, d->path);
	rcu_read_unlock();
}

static void npuep_fd_read_act(const struct npuep_port *port,
			      const struct flow_action_entry *a,
			      struct npuep_fd_act *fa,
			      struct npuep_flow_desc *d)
{
	switch (a->id) {
	case FLOW_ACTION_MANGLE:
	case FLOW_ACTION_ADD:
		fa->id = a->id == FLOW_ACTION_ADD ? NPUEP_FA_ADD : NPUEP_FA_MANGLE;
		fa->mangle.htype = npuep_fd_htype(a->mangle.htype);
		fa->mangle.offset = a->mangle.offset;
		fa->mangle.mask = a->mangle.mask;
		fa->mangle.val = a->mangle.val;
		break;
	case FLOW_ACTION_CSUM:
		fa->id = NPUEP_FA_CSUM;
		break;
	case FLOW_ACTION_REDIRECT:
		fa->id = NPUEP_FA_REDIRECT;
		npuep_fd_read_redirect(port, a->dev, fa, d);
		break;
	case FLOW_ACTION_VLAN_PUSH:
		fa->id = NPUEP_FA_VLAN_PUSH;
		fa->vlan.proto = a->vlan.proto;
		fa->vlan.vid = a->vlan.vid;
		fa->vlan.prio = a->vlan.prio;
		break;
	case FLOW_ACTION_VLAN_POP:
		fa->id = NPUEP_FA_VLAN_POP;
		break;
	case FLOW_ACTION_PPPOE_PUSH:
		fa->id = NPUEP_FA_PPPOE_PUSH;
		fa->pppoe.sid = a->pppoe.sid;
		break;
	case FLOW_ACTION_ACCEPT:
		fa->id = NPUEP_FA_ACCEPT;
		break;
	default:
		fa->id = NPUEP_FA_OTHER;
		break;
	}
}

static void npuep_fd_read_actions(const struct npuep_port *port,
				  const struct flow_rule *rule,
				  struct npuep_flow_desc *d)
{
	const struct flow_action_entry *a;
	int i;

	d->nact = rule->action.num_entries;
	flow_action_for_each(i, a, &rule->action) {
		if (i == NPUEP_FD_ACT_MAX)
			break;
		npuep_fd_read_act(port, a, &d->act[i], d);
	}
}

/**
 * npuep_flow_parse() - a flow_rule as one direction of a connection
 * @port: the port whose callback was offered the rule (the ingress port)
 * @rule: the rule
 * @ft: the rule is a flowtable's: routed (the TTL decremented without a
 *	pedit saying so), its pushes outermost first
 * @spec: filled: the microflow key and the rewrite
 * @extack: why a rule is refused
 *
 * A redirect to a ppp device sends in the session the kernel finds under
 * it; a flowtable's PPPoE push is taken while its session is up, with its
 * ppp device's MTU (npuep_flow_session_up()).
 *
 * Context: any; does not sleep or allocate.
 * Return: 0; -ENODEV for another port's rule (nothing set in @extack);
 * -EOPNOTSUPP, with a message in @extack, for a rule the fast path cannot
 * execute exactly.
 */
int npuep_flow_parse(struct npuep_port *port, struct flow_rule *rule,
		     bool ft, struct npuep_flow_spec *spec,
		     struct netlink_ext_ack *extack)
{
	struct npuep_flow_desc d = {
		.port = port->idx,
		.ifindex = port->netdev->ifindex,
		.routed_ttl = ft,
		.ft = ft,
		.l2_encap = port->ndev->caps & NPU_CAP_L2_ENCAP,
	};
	const char *msg;
	int err;

	npuep_fd_read_matches(rule, &d);
	if (ft)
		d.ft_tags = npuep_fd_read_ft_tags(port->netdev, &d);
	npuep_fd_read_actions(port, rule, &d);
	err = npuep_flow_desc_parse(&d, &spec->key, &spec->rw, &msg);
	if (err && msg)
		NL_SET_ERR_MSG_FMT_MOD(extack, "%s", msg);
	if (!err && ft && (spec->rw.l2 & NPU_RW_L2_PPPOE_PUSH))
		err = npuep_flow_session_up(port, spec, extack);
	return err;
}
