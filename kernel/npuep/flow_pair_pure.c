// SPDX-License-Identifier: GPL-2.0
/*
 * npuep flow offload: the pairing of a connection's two directions.
 *
 * A direction's reply arrives with the direction's rewrite applied: on its
 * egress port, addresses and ports swapped and translated, in the tags and
 * the PPPoE session the rewrite leaves the frame in.  That reply key is the
 * other direction's match (npuep_flow_reply_key()).
 *
 * nf_flow_table gives no PPPoE match and no PPPoE pop: the direction that
 * arrives in a session reads like one that arrives outside it, and the
 * session id is only in the other direction's PPPOE_PUSH.  Such a
 * direction is completed from its partner's push (npuep_flow_complete()),
 * whichever of the two the kernel offers first.
 *
 * A direction that pushes a PPPoE session sends in it as long as the
 * session lives: npuep_flow_session() says which session that is, as the
 * kernel's path under a ppp device describes one (port, tags, id,
 * concentrator), npuep_flow_session_find() whether it is among those up.
 *
 * Pure C (npu_compat.h): compiled into npuep.ko and, unchanged, into the
 * cmocka unit tests.
 */
#include "flow_pair.h"

#define NPUEP_PAIR_VID_MASK	0x0fff
/* Tags a frame can carry after a rewrite: two kept, two pushed. */
#define NPUEP_PAIR_TAGS_MAX	4

/* A frame's L2 encapsulation: its tags outermost first, its session. */
struct npuep_pair_l2 {
	u8 ntags;
	__be16 vid[NPUEP_PAIR_TAGS_MAX];
	bool ad[NPUEP_PAIR_TAGS_MAX];
	__be16 sid;
};

static void npuep_pair_l2_of_key(const struct npu_mflow_key *key,
				 struct npuep_pair_l2 *l2)
{
	memset(l2, 0, sizeof(*l2));
	if (key->vlan) {
		l2->vid[l2->ntags] = key->vlan;
		l2->ad[l2->ntags++] = key->l2 & NPU_KEY_L2_AD;
	}
	if (key->vlan_inner)
		l2->vid[l2->ntags++] = key->vlan_inner;
	l2->sid = key->pppoe_sid;
}

/* Put a tag of @tci (VID bits kept) outside the frame's tags. */
static void npuep_pair_l2_push(struct npuep_pair_l2 *l2, __be16 tci, bool ad)
{
	memmove(l2->vid + 1, l2->vid, (NPUEP_PAIR_TAGS_MAX - 1) * sizeof(l2->vid[0]));
	memmove(l2->ad + 1, l2->ad, (NPUEP_PAIR_TAGS_MAX - 1) * sizeof(l2->ad[0]));
	l2->vid[0] = cpu_to_be16(be16_to_cpu(tci) & NPUEP_PAIR_VID_MASK);
	l2->ad[0] = ad;
	l2->ntags++;
}

/* @rw's pops and pushes applied to @l2, in npu_hw.h's order. */
static void npuep_pair_l2_rewrite(struct npuep_pair_l2 *l2,
				  const struct npu_rewrite *rw)
{
	u8 pops = 0;

	if (rw->flags & NPU_RW_VLAN_POP)
		pops = rw->l2 & NPU_RW_L2_POP2 ? 2 : 1;
	/* A pop of what the frame does not have pops nothing. */
	if (pops > l2->ntags)
		pops = l2->ntags;
	l2->ntags -= pops;
	memmove(l2->vid, l2->vid + pops, l2->ntags * sizeof(l2->vid[0]));
	memmove(l2->ad, l2->ad + pops, l2->ntags * sizeof(l2->ad[0]));
	if (rw->l2 & NPU_RW_L2_PPPOE_POP)
		l2->sid = 0;
	if (rw->l2 & NPU_RW_L2_PPPOE_PUSH)
		l2->sid = rw->pppoe_sid;
	if (!(rw->flags & NPU_RW_VLAN_PUSH))
		return;
	npuep_pair_l2_push(l2, rw->vlan_tci, rw->l2 & NPU_RW_L2_AD1);
	if (rw->l2 & NPU_RW_L2_PUSH2)
		npuep_pair_l2_push(l2, rw->vlan_tci2, rw->l2 & NPU_RW_L2_AD2);
}

/**
 * npuep_flow_reply_key() - the key a direction's reply arrives with
 * @key: the direction's match
 * @rw: its rewrite
 * @r: the reply's key (written whole)
 *
 * The reply enters on @rw's egress port, its addresses and ports those
 * the direction sends, swapped, in the tags and the session the rewrite
 * leaves: a pop of a tag the match does not have pops nothing.
 *
 * Return: false if no key holds the reply's tags (more than two, or an
 * inner 802.1ad one): nothing pairs with the direction.
 */
bool npuep_flow_reply_key(const struct npu_mflow_key *key,
			  const struct npu_rewrite *rw, struct npu_mflow_key *r)
{
	int alen = key->family == NPU_AF_INET6 ? 16 : 4;
	struct npuep_pair_l2 l2;

	npuep_pair_l2_of_key(key, &l2);
	npuep_pair_l2_rewrite(&l2, rw);

	memset(r, 0, sizeof(*r));
	r->port = rw->egress_port;
	r->family = key->family;
	r->proto = key->proto;
	memcpy(r->saddr, rw->flags & NPU_RW_DNAT ? rw->nat_daddr : key->daddr, alen);
	memcpy(r->daddr, rw->flags & NPU_RW_SNAT ? rw->nat_saddr : key->saddr, alen);
	r->sport = rw->nat_dport;
	r->dport = rw->nat_sport;
	r->pppoe_sid = l2.sid;
	if (l2.ntags > 2 || (l2.ntags == 2 && l2.ad[1]))
		return false;
	if (l2.ntags > 0) {
		r->vlan = l2.vid[0];
		r->l2 = l2.ad[0] ? NPU_KEY_L2_AD : 0;
	}
	if (l2.ntags > 1)
		r->vlan_inner = l2.vid[1];
	return true;
}

/**
 * npuep_flow_complete() - a flowtable direction's session, from its partner's push
 * @fkey: the match of the direction that pushes a session (f)
 * @frw: its rewrite
 * @gkey: the match of the other direction (g), as nf_flow_table gave it
 * @grw: its rewrite
 *
 * When f pushes a PPPoE session and g's match is f's reply but for the
 * session (g keys none, pops and pushes none), g arrives in that session:
 * @gkey takes its id and @grw pops its header after g's tag pops.  Both
 * must be nf_flow_table's: a flower rule says its session itself.
 *
 * Return: whether g was completed; unchanged otherwise.
 */
bool npuep_flow_complete(const struct npu_mflow_key *fkey,
			 const struct npu_rewrite *frw,
			 struct npu_mflow_key *gkey, struct npu_rewrite *grw)
{
	struct npu_mflow_key r;

	if (!(frw->l2 & NPU_RW_L2_PPPOE_PUSH) || gkey->pppoe_sid ||
	    (grw->l2 & (NPU_RW_L2_PPPOE_POP | NPU_RW_L2_PPPOE_PUSH)))
		return false;
	if (!npuep_flow_reply_key(fkey, frw, &r))
		return false;
	r.pppoe_sid = 0;
	if (memcmp(&r, gkey, sizeof(r)))
		return false;
	gkey->pppoe_sid = frw->pppoe_sid;
	grw->l2 |= NPU_RW_L2_PPPOE_POP;
	return true;
}

/**
 * npuep_flow_session() - the PPPoE session a direction sends in
 * @key: the direction's match
 * @rw: its rewrite
 * @s: filled, when it pushes one: its egress port, the tags around the
 *	session outermost first (the rewrite's and those it keeps), the
 *	session id and the concentrator's MAC (the rewrite's destination
 *	MAC; zero when it rewrites none); @s->smac and @s->mtu zero
 *
 * Return: whether the direction pushes a session that a key can describe
 * (two tags around it at most, an inner 802.1ad one not).
 */
bool npuep_flow_session(const struct npu_mflow_key *key,
			const struct npu_rewrite *rw, struct npuep_fd_session *s)
{
	struct npuep_pair_l2 l2;
	u8 i;

	if (!(rw->l2 & NPU_RW_L2_PPPOE_PUSH))
		return false;
	npuep_pair_l2_of_key(key, &l2);
	npuep_pair_l2_rewrite(&l2, rw);
	if (l2.ntags > 2)
		return false;
	memset(s, 0, sizeof(*s));
	s->port = rw->egress_port;
	s->ntags = l2.ntags;
	for (i = 0; i < l2.ntags; i++) {
		s->tag[i].vid = be16_to_cpu(l2.vid[i]) & NPUEP_PAIR_VID_MASK;
		s->tag[i].tpid = cpu_to_be16(l2.ad[i] ? ETH_P_8021AD : ETH_P_8021Q);
	}
	s->sid = be16_to_cpu(rw->pppoe_sid);
	if (rw->flags & NPU_RW_MAC)
		memcpy(s->dmac, rw->dmac, ETH_ALEN);
	return true;
}

/* Whether @a and @b are one session: port, tags, id, concentrator. */
static bool npuep_flow_session_eq(const struct npuep_fd_session *a,
				  const struct npuep_fd_session *b)
{
	u8 i;

	if (a->port != b->port || a->ntags != b->ntags || a->sid != b->sid ||
	    memcmp(a->dmac, b->dmac, ETH_ALEN))
		return false;
	for (i = 0; i < a->ntags && i < 2; i++)
		if (a->tag[i].vid != b->tag[i].vid || a->tag[i].tpid != b->tag[i].tpid)
			return false;
	return true;
}

/**
 * npuep_flow_session_find() - a session among those up
 * @s: the session (npuep_flow_session())
 * @live: the sessions up (npuep_flow_path_session() of each ppp device)
 * @n: how many
 *
 * Sessions are the same by port, tags, session id and concentrator's
 * MAC; the MAC the frames leave with and the MTU are not compared.
 *
 * Return: the index in @live, or -1.
 */
int npuep_flow_session_find(const struct npuep_fd_session *s,
			    const struct npuep_fd_session *live, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++)
		if (npuep_flow_session_eq(s, &live[i]))
			return i;
	return -1;
}
