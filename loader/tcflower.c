// SPDX-License-Identifier: GPL-2.0
/*
 * tcflower.c - TC flower rules as netlink messages (see tcflower.h).  Pure:
 * libmnl's attribute helpers only, no I/O.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <linux/if_ether.h>
#include <linux/netlink.h>
#include <linux/pkt_cls.h>
#include <linux/gen_stats.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <linux/tc_act/tc_csum.h>
#include <linux/tc_act/tc_mirred.h>
#include <linux/tc_act/tc_pedit.h>
#include <linux/tc_act/tc_vlan.h>
#include <libmnl/libmnl.h>
#include "tcflower.h"

#define TCFL_PARENT_INGRESS	TC_H_MAKE(TC_H_CLSACT, TC_H_MIN_INGRESS)
#ifndef ETH_P_PPP_SES
#define ETH_P_PPP_SES		0x8864
#endif
#define TCFL_PPP_IP		0x0021
#define TCFL_PPP_IPV6		0x0057

static struct nlmsghdr *hdr(void *buf, uint16_t type, uint16_t flags, uint32_t seq,
			    uint32_t ifindex, uint32_t handle, uint32_t parent, uint32_t info)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct tcmsg *t;

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	nlh->nlmsg_seq = seq;
	t = mnl_nlmsg_put_extra_header(nlh, sizeof(*t));
	t->tcm_family = AF_UNSPEC;
	t->tcm_ifindex = ifindex;
	t->tcm_handle = handle;
	t->tcm_parent = parent;
	t->tcm_info = info;
	return nlh;
}

size_t tcfl_build_qdisc(void *buf, size_t len, uint32_t ifindex, uint32_t seq)
{
	struct nlmsghdr *nlh;

	if (len < 256)
		return 0;
	/* tc qdisc add dev X clsact: EEXIST is fine for the caller */
	nlh = hdr(buf, RTM_NEWQDISC, NLM_F_CREATE | NLM_F_EXCL | NLM_F_ACK, seq, ifindex,
		  TC_H_MAKE(TC_H_CLSACT, 0), TC_H_CLSACT, 0);
	mnl_attr_put_strz(nlh, TCA_KIND, "clsact");
	return nlh->nlmsg_len;
}

static uint16_t eth_proto(const struct npuflow_key *k)
{
	return k->family == 10 ? ETH_P_IPV6 : ETH_P_IP;
}

/* The ethertype after the tags: the session's, or the addresses'. */
static uint16_t inner_proto(const struct npuflow_key *k)
{
	return k->pppoe_sid ? ETH_P_PPP_SES : eth_proto(k);
}

uint16_t tcfl_proto(const struct npuflow_key *k)
{
	if (k->vlan_outer)
		return k->vlan_outer & NPUFLOW_VLAN_AD ? ETH_P_8021AD : ETH_P_8021Q;
	return inner_proto(k);
}

uint16_t tcfl_prio(const struct npuflow_key *k)
{
	if (k->vlan_outer & NPUFLOW_VLAN_AD)
		return NPUFLOW_TC_PRIO_QINQ;
	if (k->vlan_outer)
		return NPUFLOW_TC_PRIO_VLAN;
	if (k->pppoe_sid)
		return NPUFLOW_TC_PRIO_PPPOE;
	return k->family == 10 ? NPUFLOW_TC_PRIO_IPV6 : NPUFLOW_TC_PRIO_IP;
}

int tcfl_prio_ours(uint16_t prio)
{
	return prio == NPUFLOW_TC_PRIO_IP || prio == NPUFLOW_TC_PRIO_IPV6 ||
	       prio == NPUFLOW_TC_PRIO_VLAN || prio == NPUFLOW_TC_PRIO_QINQ ||
	       prio == NPUFLOW_TC_PRIO_PPPOE;
}

/* One pedit key: 4 bytes at @off of header @htype; @val and @keep are the
 * bytes as in the frame (keep 0xff = byte unchanged). */
struct pkey {
	uint32_t off;
	uint8_t val[4], keep[4];
	uint16_t htype, cmd;
};

static int add_bytes(struct pkey *k, int n, int max, uint16_t htype, uint32_t off,
		     const uint8_t *v, uint32_t vlen)
{
	uint32_t i;

	for (i = 0; i < vlen; i++) {
		uint32_t o = off + i, base = o & ~3u;
		int j;

		/* merge into the previous key when it is this word's */
		if (n > 0 && k[n - 1].off == base && k[n - 1].htype == htype && !k[n - 1].cmd) {
			j = n - 1;
		} else {
			if (n < 0 || n == max)
				return -1;
			j = n++;
			memset(&k[j], 0, sizeof(k[j]));
			memset(k[j].keep, 0xff, 4);
			k[j].off = base;
			k[j].htype = htype;
		}
		k[j].val[o - base] = v[i];
		k[j].keep[o - base] = 0;
	}
	return n;
}

/*
 * An action's kind and, for a hardware-only rule (@hw_only), no per-CPU
 * counters (TCA_ACT_FLAGS_NO_PERCPU_STATS, iproute2's no_percpu): the
 * software path never runs the action, the driver's statistics update one
 * counter, and each per-CPU counter (bytes and packets, hardware's, queue)
 * costs the rule's write an alloc_percpu() and its delete a free.
 */
static void put_action_hdr(struct nlmsghdr *nlh, const char *kind, int hw_only)
{
	struct nla_bitfield32 f = { TCA_ACT_FLAGS_NO_PERCPU_STATS,
				    TCA_ACT_FLAGS_NO_PERCPU_STATS };

	mnl_attr_put_strz(nlh, TCA_ACT_KIND, kind);
	if (hw_only)
		mnl_attr_put(nlh, TCA_ACT_FLAGS, sizeof(f), &f);
}

/* Action number @idx of kind @kind whose options are one parms attribute. */
static void put_parms_action(struct nlmsghdr *nlh, uint16_t idx, const char *kind,
			     uint16_t parms_type, size_t parms_len, const void *parms, int hw_only)
{
	struct nlattr *act, *aopts;

	act = mnl_attr_nest_start(nlh, idx);
	put_action_hdr(nlh, kind, hw_only);
	aopts = mnl_attr_nest_start(nlh, TCA_ACT_OPTIONS);
	mnl_attr_put(nlh, parms_type, parms_len, parms);
	mnl_attr_nest_end(nlh, aopts);
	mnl_attr_nest_end(nlh, act);
}

/*
 * The match: ethertype (and tags: the outer one's TPID is the ethertype),
 * session, protocol, addresses, ports.
 */
static void put_match(struct nlmsghdr *nlh, const struct npuflow_key *m)
{
	int v6 = m->family == 10;
	uint8_t ones[16];

	mnl_attr_put_u16(nlh, TCA_FLOWER_KEY_ETH_TYPE, htons(tcfl_proto(m)));
	if (m->vlan_outer) {
		mnl_attr_put_u16(nlh, TCA_FLOWER_KEY_VLAN_ID, m->vlan_outer & NPUFLOW_VLAN_VID);
		mnl_attr_put_u16(nlh, TCA_FLOWER_KEY_VLAN_ETH_TYPE,
				 htons(m->vlan_inner ? ETH_P_8021Q : inner_proto(m)));
	}
	if (m->vlan_outer && m->vlan_inner) {
		mnl_attr_put_u16(nlh, TCA_FLOWER_KEY_CVLAN_ID, m->vlan_inner & NPUFLOW_VLAN_VID);
		mnl_attr_put_u16(nlh, TCA_FLOWER_KEY_CVLAN_ETH_TYPE, htons(inner_proto(m)));
	}
	if (m->pppoe_sid) {
		mnl_attr_put_u16(nlh, TCA_FLOWER_KEY_PPPOE_SID, htons(m->pppoe_sid));
		mnl_attr_put_u16(nlh, TCA_FLOWER_KEY_PPP_PROTO,
				 htons(v6 ? TCFL_PPP_IPV6 : TCFL_PPP_IP));
	}
	mnl_attr_put_u8(nlh, TCA_FLOWER_KEY_IP_PROTO, m->proto);
	memset(ones, 0xff, sizeof(ones));
	if (v6) {
		mnl_attr_put(nlh, TCA_FLOWER_KEY_IPV6_SRC, 16, m->saddr);
		mnl_attr_put(nlh, TCA_FLOWER_KEY_IPV6_SRC_MASK, 16, ones);
		mnl_attr_put(nlh, TCA_FLOWER_KEY_IPV6_DST, 16, m->daddr);
		mnl_attr_put(nlh, TCA_FLOWER_KEY_IPV6_DST_MASK, 16, ones);
	} else {
		mnl_attr_put(nlh, TCA_FLOWER_KEY_IPV4_SRC, 4, m->saddr);
		mnl_attr_put(nlh, TCA_FLOWER_KEY_IPV4_SRC_MASK, 4, ones);
		mnl_attr_put(nlh, TCA_FLOWER_KEY_IPV4_DST, 4, m->daddr);
		mnl_attr_put(nlh, TCA_FLOWER_KEY_IPV4_DST_MASK, 4, ones);
	}
	if (m->proto == 6) {
		mnl_attr_put_u16(nlh, TCA_FLOWER_KEY_TCP_SRC, m->sport);
		mnl_attr_put_u16(nlh, TCA_FLOWER_KEY_TCP_SRC_MASK, 0xffff);
		mnl_attr_put_u16(nlh, TCA_FLOWER_KEY_TCP_DST, m->dport);
		mnl_attr_put_u16(nlh, TCA_FLOWER_KEY_TCP_DST_MASK, 0xffff);
		/* as nf_flow_table: FIN and RST go to the host (the firewall sees
		 * the close); the fast path punts them itself */
		mnl_attr_put_u16(nlh, TCA_FLOWER_KEY_TCP_FLAGS, 0);
		mnl_attr_put_u16(nlh, TCA_FLOWER_KEY_TCP_FLAGS_MASK, htons(0x0005));
	} else {
		mnl_attr_put_u16(nlh, TCA_FLOWER_KEY_UDP_SRC, m->sport);
		mnl_attr_put_u16(nlh, TCA_FLOWER_KEY_UDP_SRC_MASK, 0xffff);
		mnl_attr_put_u16(nlh, TCA_FLOWER_KEY_UDP_DST, m->dport);
		mnl_attr_put_u16(nlh, TCA_FLOWER_KEY_UDP_DST_MASK, 0xffff);
	}
}

#define TCFL_PEDIT_MAX	24

/*
 * The rule's pedit keys in tc's order - eth dst, eth src, addresses, ports,
 * TTL - into @keys (TCFL_PEDIT_MAX): their number, or -1 if they do not fit.
 */
static int pedit_keys(const struct tcfl_rule *r, struct pkey *keys)
{
	const struct npuflow_key *m = &r->match, *o = &r->out;
	int v6 = m->family == 10, alen = v6 ? 16 : 4, n = 0;
	uint16_t l4h = m->proto == 17 ? TCA_PEDIT_KEY_EX_HDR_TYPE_UDP : TCA_PEDIT_KEY_EX_HDR_TYPE_TCP;
	uint16_t l3h = v6 ? TCA_PEDIT_KEY_EX_HDR_TYPE_IP6 : TCA_PEDIT_KEY_EX_HDR_TYPE_IP4;
	struct pkey *k;

	if (r->set_mac) {
		n = add_bytes(keys, n, TCFL_PEDIT_MAX, TCA_PEDIT_KEY_EX_HDR_TYPE_ETH, 0, r->dmac, 6);
		n = add_bytes(keys, n, TCFL_PEDIT_MAX, TCA_PEDIT_KEY_EX_HDR_TYPE_ETH, 6, r->smac, 6);
	}
	if (memcmp(m->saddr, o->saddr, alen))
		n = add_bytes(keys, n, TCFL_PEDIT_MAX, l3h, v6 ? 8 : 12, o->saddr, alen);
	if (memcmp(m->daddr, o->daddr, alen))
		n = add_bytes(keys, n, TCFL_PEDIT_MAX, l3h, v6 ? 24 : 16, o->daddr, alen);
	if (m->sport != o->sport)
		n = add_bytes(keys, n, TCFL_PEDIT_MAX, l4h, 0, (const uint8_t *)&o->sport, 2);
	if (m->dport != o->dport)
		n = add_bytes(keys, n, TCFL_PEDIT_MAX, l4h, 2, (const uint8_t *)&o->dport, 2);
	if (n < 0 || !r->dec_ttl)
		return n;
	if (n == TCFL_PEDIT_MAX)
		return -1;
	k = &keys[n++];
	memset(k, 0, sizeof(*k));
	memset(k->keep, 0xff, 4);
	k->htype = l3h;
	k->cmd = TCA_PEDIT_KEY_EX_CMD_ADD;
	/* ip ttl: byte 8; ip6 hop_limit: byte 7 (word at 4, byte 3) */
	k->off = v6 ? 4 : 8;
	k->val[v6 ? 3 : 0] = 0xff;
	k->keep[v6 ? 3 : 0] = 0;
	return n;
}

/* Action number @idx: pedit ex with @n keys. */
static void put_pedit(struct nlmsghdr *nlh, uint16_t idx, const struct pkey *keys, int n,
		      int hw_only)
{
	char selbuf[sizeof(struct tc_pedit_sel) + TCFL_PEDIT_MAX * sizeof(struct tc_pedit_key)];
	struct tc_pedit_sel *sel = (struct tc_pedit_sel *)selbuf;
	struct nlattr *act, *aopts, *keysex, *kex;
	int i;

	act = mnl_attr_nest_start(nlh, idx);
	put_action_hdr(nlh, "pedit", hw_only);
	aopts = mnl_attr_nest_start(nlh, TCA_ACT_OPTIONS);
	memset(selbuf, 0, sizeof(selbuf));
	sel->action = TC_ACT_PIPE;
	sel->nkeys = n;
	for (i = 0; i < n; i++) {
		memcpy(&sel->keys[i].val, keys[i].val, 4);
		memcpy(&sel->keys[i].mask, keys[i].keep, 4);
		sel->keys[i].off = keys[i].off;
	}
	mnl_attr_put(nlh, TCA_PEDIT_PARMS_EX, sizeof(*sel) + n * sizeof(struct tc_pedit_key), sel);
	keysex = mnl_attr_nest_start(nlh, TCA_PEDIT_KEYS_EX);
	for (i = 0; i < n; i++) {
		kex = mnl_attr_nest_start(nlh, TCA_PEDIT_KEY_EX);
		mnl_attr_put_u16(nlh, TCA_PEDIT_KEY_EX_HTYPE, keys[i].htype);
		mnl_attr_put_u16(nlh, TCA_PEDIT_KEY_EX_CMD, keys[i].cmd);
		mnl_attr_nest_end(nlh, kex);
	}
	mnl_attr_nest_end(nlh, keysex);
	mnl_attr_nest_end(nlh, aopts);
	mnl_attr_nest_end(nlh, act);
}

/* Action number @idx: vlan pop, or vlan push of tag @vid (VID |
 * NPUFLOW_VLAN_AD for TPID 0x88a8, else 802.1Q). */
static void put_vlan(struct nlmsghdr *nlh, uint16_t idx, int push, uint16_t vid, int hw_only)
{
	struct tc_vlan vl = { .action = TC_ACT_PIPE,
			      .v_action = push ? TCA_VLAN_ACT_PUSH : TCA_VLAN_ACT_POP };
	struct nlattr *act, *aopts;

	act = mnl_attr_nest_start(nlh, idx);
	put_action_hdr(nlh, "vlan", hw_only);
	aopts = mnl_attr_nest_start(nlh, TCA_ACT_OPTIONS);
	mnl_attr_put(nlh, TCA_VLAN_PARMS, sizeof(vl), &vl);
	if (push) {
		mnl_attr_put_u16(nlh, TCA_VLAN_PUSH_VLAN_ID, vid & NPUFLOW_VLAN_VID);
		mnl_attr_put_u16(nlh, TCA_VLAN_PUSH_VLAN_PROTOCOL,
				 htons(vid & NPUFLOW_VLAN_AD ? ETH_P_8021AD : ETH_P_8021Q));
	}
	mnl_attr_nest_end(nlh, aopts);
	mnl_attr_nest_end(nlh, act);
}

/*
 * The actions: [vlan pop [vlan pop]] [pedit[, csum]] [vlan push [vlan push]]
 * mirred: a pop a tag matched, a push a tag it leaves in, innermost first.  A rule in
 * software too updates the checksums its pedit breaks (act_csum); a
 * hardware-only one (skip_sw) leaves them to the device, which updates
 * every checksum it rewrites (the driver takes a csum action and does
 * nothing with it), and is one action cheaper to write.
 */
static int put_actions(struct nlmsghdr *nlh, const struct tcfl_rule *r)
{
	const struct npuflow_key *m = &r->match;
	struct tc_mirred mr = { .action = TC_ACT_STOLEN, .eaction = TCA_EGRESS_REDIR,
				.ifindex = r->out_ifindex };
	struct tc_csum cs = { .action = TC_ACT_PIPE };
	struct pkey keys[TCFL_PEDIT_MAX];
	struct nlattr *acts;
	int n = pedit_keys(r, keys), hw = !!(r->flags & TCA_CLS_FLAGS_SKIP_SW);
	uint16_t idx = 1;

	if (n < 0)
		return -1;
	acts = mnl_attr_nest_start(nlh, TCA_FLOWER_ACT);
	if (m->vlan_outer)
		put_vlan(nlh, idx++, 0, 0, hw);
	if (m->vlan_outer && m->vlan_inner)
		put_vlan(nlh, idx++, 0, 0, hw);
	if (n) {
		put_pedit(nlh, idx++, keys, n, hw);
	}
	if (n && !hw) {
		cs.update_flags = (m->family == 10 ? 0 : TCA_CSUM_UPDATE_FLAG_IPV4HDR) |
				  (m->proto == 6 ? TCA_CSUM_UPDATE_FLAG_TCP :
						   TCA_CSUM_UPDATE_FLAG_UDP);
		put_parms_action(nlh, idx++, "csum", TCA_CSUM_PARMS, sizeof(cs), &cs, hw);
	}
	if (r->push_vid && r->push_vid_inner)
		put_vlan(nlh, idx++, 1, r->push_vid_inner, hw);
	if (r->push_vid)
		put_vlan(nlh, idx++, 1, r->push_vid, hw);
	put_parms_action(nlh, idx++, "mirred", TCA_MIRRED_PARMS, sizeof(mr), &mr, hw);
	mnl_attr_nest_end(nlh, acts);
	return 0;
}

size_t tcfl_build_add(void *buf, size_t len, const struct tcfl_rule *r, uint32_t seq)
{
	const struct npuflow_key *m = &r->match;
	struct nlattr *opts;
	struct nlmsghdr *nlh;

	if (len < 2048 || (m->proto != 6 && m->proto != 17))
		return 0;
	nlh = hdr(buf, RTM_NEWTFILTER, NLM_F_CREATE | NLM_F_EXCL | NLM_F_ACK, seq, r->ifindex,
		  r->handle, TCFL_PARENT_INGRESS,
		  TC_H_MAKE((uint32_t)r->prio << 16, htons(tcfl_proto(m))));
	mnl_attr_put_strz(nlh, TCA_KIND, "flower");
	opts = mnl_attr_nest_start(nlh, TCA_OPTIONS);
	mnl_attr_put_u32(nlh, TCA_FLOWER_FLAGS, r->flags);
	put_match(nlh, m);
	if (put_actions(nlh, r))
		return 0;
	mnl_attr_nest_end(nlh, opts);
	return nlh->nlmsg_len;
}

size_t tcfl_build_warmup(void *buf, size_t len, uint32_t ifindex, uint16_t prio,
			 uint32_t handle, uint32_t seq)
{
	struct nlattr *opts, *acts, *act, *aopts, *keysex, *kex;
	char selbuf[sizeof(struct tc_pedit_sel) + sizeof(struct tc_pedit_key)];
	struct tc_pedit_sel *sel = (struct tc_pedit_sel *)selbuf;
	struct tc_csum cs = { .action = TC_ACT_PIPE,
			      .update_flags = TCA_CSUM_UPDATE_FLAG_IPV4HDR };
	struct tc_mirred mr = { .action = TC_ACT_STOLEN, .eaction = TCA_EGRESS_REDIR,
				.ifindex = ifindex };
	struct nlmsghdr *nlh;
	uint8_t ones[4] = { 0xff, 0xff, 0xff, 0xff }, zero[4] = { 0 };

	if (len < 1024)
		return 0;
	nlh = hdr(buf, RTM_NEWTFILTER, NLM_F_CREATE | NLM_F_EXCL | NLM_F_ACK, seq, ifindex,
		  handle, TCFL_PARENT_INGRESS, TC_H_MAKE((uint32_t)prio << 16, htons(ETH_P_IP)));
	mnl_attr_put_strz(nlh, TCA_KIND, "flower");
	opts = mnl_attr_nest_start(nlh, TCA_OPTIONS);
	mnl_attr_put_u32(nlh, TCA_FLOWER_FLAGS, TCA_CLS_FLAGS_SKIP_HW);
	mnl_attr_put_u16(nlh, TCA_FLOWER_KEY_ETH_TYPE, htons(ETH_P_IP));
	mnl_attr_put_u8(nlh, TCA_FLOWER_KEY_IP_PROTO, 6);
	/* 0.0.0.0 to 0.0.0.0, TCP port 0 to 0: nothing forwarded matches */
	mnl_attr_put(nlh, TCA_FLOWER_KEY_IPV4_SRC, 4, zero);
	mnl_attr_put(nlh, TCA_FLOWER_KEY_IPV4_SRC_MASK, 4, ones);
	mnl_attr_put(nlh, TCA_FLOWER_KEY_IPV4_DST, 4, zero);
	mnl_attr_put(nlh, TCA_FLOWER_KEY_IPV4_DST_MASK, 4, ones);
	mnl_attr_put_u16(nlh, TCA_FLOWER_KEY_TCP_SRC, 0);
	mnl_attr_put_u16(nlh, TCA_FLOWER_KEY_TCP_SRC_MASK, 0xffff);
	mnl_attr_put_u16(nlh, TCA_FLOWER_KEY_TCP_DST, 0);
	mnl_attr_put_u16(nlh, TCA_FLOWER_KEY_TCP_DST_MASK, 0xffff);
	acts = mnl_attr_nest_start(nlh, TCA_FLOWER_ACT);

	act = mnl_attr_nest_start(nlh, 1);
	put_action_hdr(nlh, "pedit", 0);
	aopts = mnl_attr_nest_start(nlh, TCA_ACT_OPTIONS);
	memset(selbuf, 0, sizeof(selbuf));
	sel->action = TC_ACT_PIPE;
	sel->nkeys = 1;
	sel->keys[0].off = 8;			/* ip ttl add 0 */
	sel->keys[0].mask = htonl(0x00ffffff);
	mnl_attr_put(nlh, TCA_PEDIT_PARMS_EX, sizeof(selbuf), sel);
	keysex = mnl_attr_nest_start(nlh, TCA_PEDIT_KEYS_EX);
	kex = mnl_attr_nest_start(nlh, TCA_PEDIT_KEY_EX);
	mnl_attr_put_u16(nlh, TCA_PEDIT_KEY_EX_HTYPE, TCA_PEDIT_KEY_EX_HDR_TYPE_IP4);
	mnl_attr_put_u16(nlh, TCA_PEDIT_KEY_EX_CMD, TCA_PEDIT_KEY_EX_CMD_ADD);
	mnl_attr_nest_end(nlh, kex);
	mnl_attr_nest_end(nlh, keysex);
	mnl_attr_nest_end(nlh, aopts);
	mnl_attr_nest_end(nlh, act);

	put_parms_action(nlh, 2, "csum", TCA_CSUM_PARMS, sizeof(cs), &cs, 0);

	put_vlan(nlh, 3, 0, 0, 0);

	put_parms_action(nlh, 4, "mirred", TCA_MIRRED_PARMS, sizeof(mr), &mr, 0);

	mnl_attr_nest_end(nlh, acts);
	mnl_attr_nest_end(nlh, opts);
	return nlh->nlmsg_len;
}

size_t tcfl_build_del(void *buf, size_t len, uint32_t ifindex, uint16_t prio,
		      uint16_t proto, uint32_t handle, uint32_t seq)
{
	struct nlmsghdr *nlh;

	if (len < 256)
		return 0;
	nlh = hdr(buf, RTM_DELTFILTER, NLM_F_ACK, seq, ifindex, handle, TCFL_PARENT_INGRESS,
		  TC_H_MAKE((uint32_t)prio << 16, htons(proto)));
	mnl_attr_put_strz(nlh, TCA_KIND, "flower");
	return nlh->nlmsg_len;
}

size_t tcfl_build_dump(void *buf, size_t len, uint32_t ifindex, uint32_t seq, int terse)
{
	struct nla_bitfield32 f = { TCA_DUMP_FLAGS_TERSE, TCA_DUMP_FLAGS_TERSE };
	struct nlmsghdr *nlh;

	if (len < 256)
		return 0;
	nlh = hdr(buf, RTM_GETTFILTER, NLM_F_DUMP, seq, ifindex, 0, TCFL_PARENT_INGRESS, 0);
	if (terse)
		mnl_attr_put(nlh, TCA_DUMP_FLAGS, sizeof(f), &f);
	return nlh->nlmsg_len;
}

/* --- parsing ------------------------------------------------------- */

/*
 * Every attribute is validated before it is read (mnl_attr_validate*): a
 * scalar or an address has exactly its size, a string its NUL, a nest room
 * for a header, a struct (which the kernel may extend) at least the fields
 * read.  A message with a malformed attribute is refused whole.
 */

/* 0 if @a is a scalar of libmnl @type (MNL_TYPE_U8 ... U64), else -1. */
static int valid(const struct nlattr *a, enum mnl_attr_data_type type)
{
	return mnl_attr_validate(a, type) < 0 ? -1 : 0;
}

/* 0 if @a's payload is exactly @len bytes, else -1. */
static int valid_len(const struct nlattr *a, size_t len)
{
	return mnl_attr_validate2(a, MNL_TYPE_BINARY, len) < 0 ? -1 : 0;
}

/* 0 if @a's payload holds at least @len bytes, else -1. */
static int holds(const struct nlattr *a, size_t len)
{
	return mnl_attr_get_payload_len(a) < len ? -1 : 0;
}

/*
 * @a's NUL-terminated string into @dst (truncated to @len - 1): 0, or -1.
 * A copy, not snprintf(): keepalive's dump parses two kinds a rule, and
 * glibc's printf machinery was 6 % of npuflowd's time over a dump of 32,768.
 */
static int get_str(const struct nlattr *a, char *dst, size_t len)
{
	size_t n;

	if (!len || valid(a, MNL_TYPE_NUL_STRING))
		return -1;
	n = strnlen(mnl_attr_get_str(a), len - 1);
	memcpy(dst, mnl_attr_get_str(a), n);
	dst[n] = '\0';
	return 0;
}

/* Exactly @len bytes of @a into @dst: 0, or -1. */
static int get_bytes(const struct nlattr *a, void *dst, size_t len)
{
	if (valid_len(a, len))
		return -1;
	memcpy(dst, mnl_attr_get_payload(a), len);
	return 0;
}

/*
 * TCA_ACT_STATS: bytes and packets of TCA_STATS_BASIC (32-bit packets,
 * clamped), and TCA_STATS_PKT64 right after it overriding the packets
 * (the kernel adds it past 2^32; one after TCA_STATS_BASIC_HW is the
 * hardware's share, not read).  0, or -1 if malformed.
 */
static int parse_stats(const struct nlattr *x, struct tcfl_info *out)
{
	const struct nlattr *y;
	int after_basic = 0;
	uint32_t pk;

	mnl_attr_for_each_nested(y, x) {
		uint16_t t = mnl_attr_get_type(y);

		if (t == TCA_STATS_BASIC) {
			if (holds(y, 12))	/* __u64 bytes, __u32 packets */
				return -1;
			memcpy(&out->bytes, mnl_attr_get_payload(y), 8);
			memcpy(&pk, (const uint8_t *)mnl_attr_get_payload(y) + 8, 4);
			out->packets = pk;
			out->have_stats = 1;
		} else if (t == TCA_STATS_PKT64) {
			if (valid(y, MNL_TYPE_U64))
				return -1;
			if (after_basic)
				out->packets = mnl_attr_get_u64(y);
		}
		after_basic = t == TCA_STATS_BASIC;
	}
	return 0;
}

/* One attribute of an action's TCA_ACT_OPTIONS, for action @kind. */
static int parse_act_opt(const struct nlattr *y, const char *kind, struct tcfl_info *out)
{
	uint16_t t = mnl_attr_get_type(y);
	struct tc_pedit_sel sel;
	struct tc_mirred mr;
	struct tc_vlan vl;
	uint64_t lastuse;

	if (!strcmp(kind, "mirred") && t == TCA_MIRRED_PARMS) {
		if (holds(y, sizeof(mr)))
			return -1;
		memcpy(&mr, mnl_attr_get_payload(y), sizeof(mr));
		out->out_ifindex = mr.ifindex;
	} else if (!strcmp(kind, "mirred") && t == TCA_MIRRED_TM) {
		/* struct tcf_t, 4-byte aligned here: lastuse copied out */
		if (holds(y, offsetof(struct tcf_t, lastuse) + sizeof(lastuse)))
			return -1;
		memcpy(&lastuse, (const uint8_t *)mnl_attr_get_payload(y) +
		       offsetof(struct tcf_t, lastuse), sizeof(lastuse));
		/* clock_t (USER_HZ 100) since the last use */
		out->lastuse_ms = lastuse * 10;
		out->have_lastuse = 1;
	} else if (!strcmp(kind, "pedit") && t == TCA_PEDIT_PARMS_EX) {
		if (holds(y, sizeof(sel)))
			return -1;
		memcpy(&sel, mnl_attr_get_payload(y), sizeof(sel));
		out->npedit_keys = sel.nkeys;
	} else if (!strcmp(kind, "vlan") && t == TCA_VLAN_PARMS) {
		if (holds(y, sizeof(vl)))
			return -1;
		memcpy(&vl, mnl_attr_get_payload(y), sizeof(vl));
		out->vlan_pop += vl.v_action == TCA_VLAN_ACT_POP;
	} else if (!strcmp(kind, "vlan") && t == TCA_VLAN_PUSH_VLAN_ID) {
		uint16_t vid;

		/* a second push is the outer tag: the first goes inside */
		if (get_bytes(y, &vid, 2))
			return -1;
		out->push_vid_inner = out->push_vid;
		out->push_vid = vid & NPUFLOW_VLAN_VID;
	} else if (!strcmp(kind, "vlan") && t == TCA_VLAN_PUSH_VLAN_PROTOCOL) {
		uint16_t proto;

		if (get_bytes(y, &proto, 2))
			return -1;
		if (proto == htons(ETH_P_8021AD))
			out->push_vid |= NPUFLOW_VLAN_AD;
	}
	return 0;
}

/* One action of TCA_FLOWER_ACT: its kind, stats, options.  0, or -1. */
static int parse_action(const struct nlattr *a, struct tcfl_info *out)
{
	const struct nlattr *x, *y;
	char kind[16] = "";
	int i = out->nactions;

	if (valid(a, MNL_TYPE_NESTED))
		return -1;
	mnl_attr_for_each_nested(x, a) {
		switch (mnl_attr_get_type(x)) {
		case TCA_ACT_KIND:
			if (get_str(x, kind, sizeof(kind)))
				return -1;
			break;
		case TCA_ACT_STATS:
			if (valid(x, MNL_TYPE_NESTED) || parse_stats(x, out))
				return -1;
			break;
		case TCA_ACT_OPTIONS:
			if (valid(x, MNL_TYPE_NESTED))
				return -1;
			mnl_attr_for_each_nested(y, x)
				if (parse_act_opt(y, kind, out))
					return -1;
			break;
		}
	}
	if (kind[0] && i < (int)(sizeof(out->actions) / sizeof(out->actions[0]))) {
		memcpy(out->actions[i], kind, sizeof(kind));
		out->nactions++;
	}
	return 0;
}

/* One attribute of a flower rule's TCA_OPTIONS: 0, or -1 if malformed. */
static int parse_option(const struct nlattr *x, struct tcfl_info *out)
{
	struct npuflow_key *m = &out->match;
	const struct nlattr *y;
	uint16_t eth;

	switch (mnl_attr_get_type(x)) {
	case TCA_FLOWER_FLAGS:
		return get_bytes(x, &out->flags, 4);
	case TCA_FLOWER_IN_HW_COUNT:
		return get_bytes(x, &out->in_hw_count, 4);
	case TCA_FLOWER_KEY_IP_PROTO:
		return get_bytes(x, &m->proto, 1);
	case TCA_FLOWER_KEY_VLAN_ID:
		if (get_bytes(x, &eth, 2))
			return -1;
		m->vlan_outer |= eth & NPUFLOW_VLAN_VID;
		return 0;
	case TCA_FLOWER_KEY_CVLAN_ID:
		return get_bytes(x, &m->vlan_inner, 2);
	case TCA_FLOWER_KEY_PPPOE_SID:
		if (get_bytes(x, &eth, 2))
			return -1;
		m->pppoe_sid = ntohs(eth);
		return 0;
	case TCA_FLOWER_KEY_PPP_PROTO:
		if (get_bytes(x, &eth, 2))
			return -1;
		m->family = eth == htons(TCFL_PPP_IPV6) ? 10 : 2;
		return 0;
	case TCA_FLOWER_KEY_VLAN_ETH_TYPE:
	case TCA_FLOWER_KEY_CVLAN_ETH_TYPE:
		if (get_bytes(x, &eth, 2))
			return -1;
		if (eth == htons(ETH_P_IPV6) || eth == htons(ETH_P_IP))
			m->family = eth == htons(ETH_P_IPV6) ? 10 : 2;
		return 0;
	case TCA_FLOWER_KEY_IPV4_SRC:
		return get_bytes(x, m->saddr, 4);
	case TCA_FLOWER_KEY_IPV4_DST:
		return get_bytes(x, m->daddr, 4);
	case TCA_FLOWER_KEY_IPV6_SRC:
		return get_bytes(x, m->saddr, 16);
	case TCA_FLOWER_KEY_IPV6_DST:
		return get_bytes(x, m->daddr, 16);
	case TCA_FLOWER_KEY_TCP_SRC:
	case TCA_FLOWER_KEY_UDP_SRC:
		return get_bytes(x, &m->sport, 2);
	case TCA_FLOWER_KEY_TCP_DST:
	case TCA_FLOWER_KEY_UDP_DST:
		return get_bytes(x, &m->dport, 2);
	case TCA_FLOWER_ACT:
		if (valid(x, MNL_TYPE_NESTED))
			return -1;
		mnl_attr_for_each_nested(y, x)
			if (parse_action(y, out))
				return -1;
		return 0;
	default:
		return 0;
	}
}

/* The attributes after a message's fixed header of @hdrlen bytes, and their
 * length, within nlmsg_len exactly (no alignment padding past it). */
static const void *msg_attrs(const struct nlmsghdr *nlh, size_t hdrlen, size_t *len)
{
	size_t off = MNL_NLMSG_HDRLEN + MNL_ALIGN(hdrlen);

	*len = nlh->nlmsg_len > off ? nlh->nlmsg_len - off : 0;
	return (const uint8_t *)nlh + off;
}

/*
 * An RTM_NEWTFILTER of a dump or an echo, nlmsg_len bytes readable at @nlh
 * (as nls_msg_ok() checks): 0 with @out filled, or -1 if it is not a
 * flower rule or any attribute read is malformed (@out then partial).
 */
int tcfl_parse(const struct nlmsghdr *nlh, struct tcfl_info *out)
{
	const struct tcmsg *t = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *a, *x;
	const void *attrs;
	size_t alen;

	memset(out, 0, sizeof(*out));
	if (nlh->nlmsg_len < MNL_NLMSG_HDRLEN + sizeof(*t) ||
	    nlh->nlmsg_type != RTM_NEWTFILTER)
		return -1;
	out->ifindex = t->tcm_ifindex;
	out->handle = t->tcm_handle;
	out->parent = t->tcm_parent;
	out->prio = t->tcm_info >> 16;
	out->protocol = ntohs(t->tcm_info & 0xffff);
	out->match.family = out->protocol == ETH_P_IPV6 ? 10 : 2;
	/* the outer tag's TPID is the rule's protocol */
	if (out->protocol == ETH_P_8021AD)
		out->match.vlan_outer = NPUFLOW_VLAN_AD;
	attrs = msg_attrs(nlh, sizeof(*t), &alen);
	for (a = attrs; mnl_attr_ok(a, (const char *)attrs + alen - (const char *)a);
	     a = mnl_attr_next(a)) {
		switch (mnl_attr_get_type(a)) {
		case TCA_KIND:
			if (get_str(a, out->kind, sizeof(out->kind)))
				return -1;
			break;
		case TCA_OPTIONS:
			if (valid(a, MNL_TYPE_NESTED))
				return -1;
			mnl_attr_for_each_nested(x, a)
				if (parse_option(x, out))
					return -1;
			break;
		}
	}
	out->match.ifindex = out->ifindex;
	return strcmp(out->kind, "flower") ? -1 : 0;
}

void tcfl_out_key(const struct npuflow_key key[2], int dir, struct npuflow_key *out)
{
	const struct npuflow_key *other = &key[!dir];

	*out = key[dir];
	memcpy(out->saddr, other->daddr, 16);
	memcpy(out->daddr, other->saddr, 16);
	out->sport = other->dport;
	out->dport = other->sport;
}

void tcfl_rule_from_conn(const struct npuflow_conn *c, int dir, uint32_t flags,
			 struct tcfl_rule *r)
{
	memset(r, 0, sizeof(*r));
	r->ifindex = c->key[dir].ifindex;
	r->handle = c->hw_handle[dir];
	r->prio = tcfl_prio(&c->key[dir]);
	r->flags = flags;
	r->match = c->key[dir];
	tcfl_out_key(c->key, dir, &r->out);
	r->dec_ttl = !!(c->flags & NPUFLOW_CONN_F_ROUTED);
	r->out_ifindex = c->out_ifindex[dir];
	/* into a session: the ppp device; its session's are the MACs and tags */
	if (c->out_sid[dir])
		return;
	memcpy(r->dmac, c->dmac[dir], 6);
	memcpy(r->smac, c->smac[dir], 6);
	r->set_mac = 1;
	r->push_vid = c->out_vid[dir];
	r->push_vid_inner = c->out_vid_inner[dir];
}

/* tc's name of an ethertype a rule is filed under or matches after a tag. */
static const char *proto_name(uint16_t p)
{
	return p == ETH_P_8021AD ? "802.1ad" : p == ETH_P_8021Q ? "802.1Q" :
	       p == ETH_P_PPP_SES ? "ppp_ses" : p == ETH_P_IPV6 ? "ipv6" : "ip";
}

/* The match's tags and session, as tc's flower options. */
static void fmt_l2(const struct npuflow_key *m, char *buf, size_t len)
{
	int v6 = m->family == 10, n = 0;

	buf[0] = '\0';
	if (m->vlan_outer)
		n += snprintf(buf + n, len - n, " vlan_id %u vlan_ethtype %s",
			      m->vlan_outer & NPUFLOW_VLAN_VID,
			      m->vlan_inner ? "802.1Q" : proto_name(inner_proto(m)));
	if (m->vlan_outer && m->vlan_inner)
		n += snprintf(buf + n, len > (size_t)n ? len - n : 0,
			      " cvlan_id %u cvlan_ethtype %s", m->vlan_inner & NPUFLOW_VLAN_VID,
			      proto_name(inner_proto(m)));
	if (m->pppoe_sid)
		snprintf(buf + n, len > (size_t)n ? len - n : 0, " pppoe_sid %u ppp_proto %s",
			 m->pppoe_sid, v6 ? "ipv6" : "ip");
}

/* "action vlan push id V [protocol 802.1ad] pipe" of tag @vid, at @buf + @n. */
static int fmt_push(char *buf, size_t len, int n, uint16_t vid)
{
	return snprintf(buf + n, len > (size_t)n ? len - n : 0, " action vlan push id %u%s pipe",
			vid & NPUFLOW_VLAN_VID, vid & NPUFLOW_VLAN_AD ? " protocol 802.1ad" : "");
}

int tcfl_fmt(const struct tcfl_rule *r, const char *in, const char *out, char *buf,
	     size_t len)
{
	char sa[48], da[48], osa[48], oda[48], vl[120];
	int v6 = r->match.family == 10, af = v6 ? AF_INET6 : AF_INET;
	const char *l4 = r->match.proto == 17 ? "udp" : "tcp";
	int n;

	inet_ntop(af, r->match.saddr, sa, sizeof(sa));
	inet_ntop(af, r->match.daddr, da, sizeof(da));
	inet_ntop(af, r->out.saddr, osa, sizeof(osa));
	inet_ntop(af, r->out.daddr, oda, sizeof(oda));
	fmt_l2(&r->match, vl, sizeof(vl));
	n = snprintf(buf, len, "tc filter add dev %s ingress protocol %s prio %u handle %u "
		     "flower%s%s ip_proto %s src_ip %s dst_ip %s src_port %u dst_port %u %s%s%s"
		     "action pedit ex",
		     in, proto_name(tcfl_proto(&r->match)), r->prio, r->handle,
		     r->flags & TCA_CLS_FLAGS_SKIP_SW ? " skip_sw" :
		     r->flags & TCA_CLS_FLAGS_SKIP_HW ? " skip_hw" : "", vl, l4, sa, da,
		     ntohs(r->match.sport), ntohs(r->match.dport),
		     r->match.proto == 6 ? "tcp_flags 0x0/0x5 " : "",
		     r->match.vlan_outer ? "action vlan pop pipe " : "",
		     r->match.vlan_outer && r->match.vlan_inner ? "action vlan pop pipe " : "");
	if (r->set_mac)
		n += snprintf(buf + n, len > (size_t)n ? len - n : 0,
			      " munge eth dst set %02x:%02x:%02x:%02x:%02x:%02x"
			      " munge eth src set %02x:%02x:%02x:%02x:%02x:%02x",
			      r->dmac[0], r->dmac[1], r->dmac[2], r->dmac[3], r->dmac[4],
			      r->dmac[5], r->smac[0], r->smac[1], r->smac[2], r->smac[3],
			      r->smac[4], r->smac[5]);
	if (strcmp(sa, osa))
		n += snprintf(buf + n, len > (size_t)n ? len - n : 0, " munge %s src set %s",
			      v6 ? "ip6" : "ip", osa);
	if (strcmp(da, oda))
		n += snprintf(buf + n, len > (size_t)n ? len - n : 0, " munge %s dst set %s",
			      v6 ? "ip6" : "ip", oda);
	if (r->match.sport != r->out.sport)
		n += snprintf(buf + n, len > (size_t)n ? len - n : 0, " munge %s sport set %u",
			      l4, ntohs(r->out.sport));
	if (r->match.dport != r->out.dport)
		n += snprintf(buf + n, len > (size_t)n ? len - n : 0, " munge %s dport set %u",
			      l4, ntohs(r->out.dport));
	if (r->dec_ttl)
		n += snprintf(buf + n, len > (size_t)n ? len - n : 0, " munge %s add 255",
			      v6 ? "ip6 hoplimit" : "ip ttl");
	n += snprintf(buf + n, len > (size_t)n ? len - n : 0, " pipe");
	if (!(r->flags & TCA_CLS_FLAGS_SKIP_SW))
		n += snprintf(buf + n, len > (size_t)n ? len - n : 0, " action csum %s%s pipe",
			      v6 ? "" : "ip ", l4);
	if (r->push_vid && r->push_vid_inner)
		n += fmt_push(buf, len, n, r->push_vid_inner);
	if (r->push_vid)
		n += fmt_push(buf, len, n, r->push_vid);
	n += snprintf(buf + n, len > (size_t)n ? len - n : 0,
		      " action mirred egress redirect dev %s", out);
	return n;
}
