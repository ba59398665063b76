// SPDX-License-Identifier: GPL-2.0
/*
 * npuep flow offload: a rule's description (flow_desc.h) turned into one
 * direction of a connection: a microflow key (ingress port, VLAN tags,
 * PPPoE session, addresses, ports, protocol: an exact match) and its
 * rewrite (MACs, NAT of addresses and ports, pops and pushes of tags and
 * sessions, egress port, TTL).
 *
 * Two tags, 802.1ad and PPPoE need a coprocessor that keys and rewrites
 * them (NPU_CAP_L2_ENCAP); without it the parser takes what it took
 * before, one 802.1Q tag, with the same messages.
 *
 * tc has no PPPoE push or pop.  A flower rule that redirects to a ppp
 * device pushes the session under it: in software the ppp device sends
 * the IP packet in its session, over the devices the kernel's
 * dev_fill_forward_path() walks down to a port (the glue reads them into
 * the description's path), with the concentrator's MAC and the lower
 * device's.  A flower rule that matches a PPPoE
 * session and is routed (its pedit decrements the TTL) ends the session:
 * the fast path pops its header, with the tags its "vlan pop" pops.  In
 * software the rule would forward the frame still in its session; no tc
 * rule says what the host does (routes it out of ppp0's session), so the
 * driver reads a skip_sw rule so.  An unrouted one is refused.
 *
 * Pure C (npu_compat.h): compiled into npuep.ko and, unchanged, into
 * the cmocka unit tests.  Every refusal returns -EOPNOTSUPP with the message
 * the glue gives the kernel's extack.
 *
 * The rewrites are found by applying the rule's pedits, as act_pedit does
 * ((old & mask) ^ val), to images of the headers built from the match: an
 * IPv4 or IPv6 header and the L4 ports hold the matched (exact) addresses
 * and ports, so what a pedit makes of them is known.  Of the other bytes
 * nothing is known: a pedit that touches them (a mask byte other than 0xff,
 * or value bits) is refused, except that it sets MAC bytes whole.
 */
#include "flow_parse_int.h"

/* ---- actions ------------------------------------------------------ */

/*
 * The bytes a pedit word at @off of a @len-byte image touches, as a bitmap
 * (bit i: byte @off + i): those whose mask byte is not 0xff or whose value
 * byte is not 0.  -1 when the word does not lie within the image.
 */
static int npuep_fp_touched(const struct npuep_fd_act *a, u32 len)
{
	const u8 *mask = (const u8 *)&a->mangle.mask;
	const u8 *val = (const u8 *)&a->mangle.val;
	u32 off = a->mangle.offset;
	int i, t = 0;

	if (len < 4 || off > len - 4)
		return -1;
	for (i = 0; i < 4; i++)
		if (mask[i] != 0xff || val[i])
			t |= BIT(i);
	return t;
}

/* act_pedit's set on an image: byte-wise (old & mask) ^ val. */
static void npuep_fp_apply(u8 *img, const struct npuep_fd_act *a)
{
	const u8 *mask = (const u8 *)&a->mangle.mask;
	const u8 *val = (const u8 *)&a->mangle.val;
	u8 *b = img + a->mangle.offset;
	int i;

	for (i = 0; i < 4; i++)
		b[i] = (b[i] & mask[i]) ^ val[i];
}

/* Ethernet: the MACs only, each byte set whole (the image starts empty). */
static int npuep_fp_mangle_eth(struct npuep_fp *p, const struct npuep_fd_act *a)
{
	const u8 *mask = (const u8 *)&a->mangle.mask;
	int t = npuep_fp_touched(a, sizeof(p->eth));
	u32 off = a->mangle.offset;
	int i;

	if (t < 0 || (t << off) >> (2 * ETH_ALEN))
		return npuep_fp_refuse(p, NPUEP_FP_BAD_MANGLE);
	for (i = 0; i < 4; i++)
		if ((t & BIT(i)) && mask[i])
			return npuep_fp_refuse(p,
					       "fast path rewrites whole MAC addresses only");
	npuep_fp_apply(p->eth, a);
	p->eth_set |= t << off;
	return 0;
}

/* IPv4 or IPv6: the addresses only (the image holds them as matched). */
static int npuep_fp_mangle_ip(struct npuep_fp *p, const struct npuep_fd_act *a)
{
	u32 lo = p->v6 ? offsetof(struct ipv6hdr, saddr) :
			 offsetof(struct iphdr, saddr);
	bool v6 = a->mangle.htype == NPUEP_FH_IP6;
	int t = npuep_fp_touched(a, p->l3len);
	u32 off = a->mangle.offset;
	int i;

	if (v6 != p->v6 || t < 0)
		return npuep_fp_refuse(p, NPUEP_FP_BAD_MANGLE);
	for (i = 0; i < 4; i++)
		if ((t & BIT(i)) && off + i < lo)
			return npuep_fp_refuse(p, NPUEP_FP_IP_ONLY);
	npuep_fp_apply(p->l3, a);
	return 0;
}

/* TCP or UDP: the ports (as matched), the same in both headers. */
static int npuep_fp_mangle_l4(struct npuep_fp *p, const struct npuep_fd_act *a)
{
	if (npuep_fp_touched(a, sizeof(p->l4)) < 0)
		return npuep_fp_refuse(p, NPUEP_FP_BAD_MANGLE);
	npuep_fp_apply(p->l4, a);
	return 0;
}

static int npuep_fp_act_mangle(struct npuep_fp *p, const struct npuep_fd_act *a)
{
	switch (a->mangle.htype) {
	case NPUEP_FH_ETH:
		return npuep_fp_mangle_eth(p, a);
	case NPUEP_FH_IP4:
	case NPUEP_FH_IP6:
		return npuep_fp_mangle_ip(p, a);
	case NPUEP_FH_TCP:
	case NPUEP_FH_UDP:
		return npuep_fp_mangle_l4(p, a);
	default:
		return npuep_fp_refuse(p, NPUEP_FP_BAD_MANGLE);
	}
}

/*
 * pedit "ip ttl dec" / "ip6 hoplimit dec" (iproute2; npuflowd writes the
 * same): add 0xff to the TTL byte of its word, the mask keeping the other
 * three, which nothing is added to.  Any other add is not a decrement.
 */
static int npuep_fp_act_add(struct npuep_fp *p, const struct npuep_fd_act *a)
{
	u32 ttl = p->v6 ? offsetof(struct ipv6hdr, hop_limit) :
			  offsetof(struct iphdr, ttl);
	u8 mask[4] = { 0xff, 0xff, 0xff, 0xff }, val[4] = { 0 };
	u8 want = p->v6 ? NPUEP_FH_IP6 : NPUEP_FH_IP4;

	if (a->mangle.htype != want || a->mangle.offset != (ttl & ~3u))
		return npuep_fp_refuse(p, NPUEP_FP_BAD_MANGLE);
	mask[ttl & 3] = 0;
	val[ttl & 3] = 0xff;
	if (memcmp(&a->mangle.mask, mask, 4) || memcmp(&a->mangle.val, val, 4))
		return npuep_fp_refuse(p,
				       "fast path adds only 0xff to the TTL (pedit ttl/hoplimit dec)");
	if (p->ttl_dec)
		return npuep_fp_refuse(p, "fast path decrements the TTL once");
	p->ttl_dec = true;
	return 0;
}

/* A redirect to a ppp device: out of the port under its session. */
static int npuep_fp_redirect_ppp(struct npuep_fp *p)
{
	int err;

	err = npuep_flow_path_session(p->d->path, p->d->npath, &p->sess, &p->msg);
	if (err)
		return err;
	p->via_ppp = true;
	p->eport = p->sess.port;
	p->emtu = p->sess.mtu;
	return 0;
}

static int npuep_fp_act_redirect(struct npuep_fp *p, const struct npuep_fd_act *a)
{
	if (a->redirect.via_ppp && p->d->l2_encap)
		return npuep_fp_redirect_ppp(p);
	if (a->redirect.port < 0 || a->redirect.port >= NPU_MAX_PORTS)
		return npuep_fp_refuse(p,
				       "redirect target is not a port of this device");
	p->eport = a->redirect.port;
	p->emtu = a->redirect.mtu;
	return 0;
}

/* A push of a tag or a session, taken in the rule's order (npuep_fp_pushes()). */
static int npuep_fp_act_push(struct npuep_fp *p, const struct npuep_fd_act *a)
{
	if (p->npush == NPUEP_FP_PUSH_MAX)
		return npuep_fp_refuse(p, p->d->l2_encap ? "fast path pushes two tags at most" :
				       NPUEP_FP_PUSH_ONE);
	p->push[p->npush++] = a;
	return 0;
}

/* The coprocessor pops the outer tag (or two), then pushes (npu_hw.h). */
static int npuep_fp_act_pop(struct npuep_fp *p)
{
	if (p->npush)
		return npuep_fp_refuse(p, "fast path pops a tag before it pushes one");
	if (p->npop == (p->d->l2_encap ? 2 : 1))
		return npuep_fp_refuse(p, p->d->l2_encap ? "fast path pops two tags at most" :
				       "fast path pops one tag");
	p->rw->flags |= NPU_RW_VLAN_POP;
	if (++p->npop == 2)
		p->rw->l2 |= NPU_RW_L2_POP2;
	return 0;
}

/*
 * nf_flow_table leaves the push of an 802.1ad tag an entry it does not
 * fill (FLOW_ACTION_ACCEPT): the rule has no id for the tag.
 */
static int npuep_fp_act_accept(struct npuep_fp *p)
{
	return npuep_fp_refuse(p, p->d->ft ? NPUEP_FP_FT_AD : NPUEP_FP_NO_ACT);
}

static int npuep_fp_act(struct npuep_fp *p, const struct npuep_fd_act *a)
{
	switch (a->id) {
	case NPUEP_FA_MANGLE:
		return npuep_fp_act_mangle(p, a);
	case NPUEP_FA_ADD:
		return npuep_fp_act_add(p, a);
	case NPUEP_FA_CSUM:
		/* the coprocessor updates every checksum it touches */
		return 0;
	case NPUEP_FA_REDIRECT:
		return npuep_fp_act_redirect(p, a);
	case NPUEP_FA_VLAN_PUSH:
		return npuep_fp_act_push(p, a);
	case NPUEP_FA_PPPOE_PUSH:
		if (!p->d->l2_encap)
			return npuep_fp_refuse(p, NPUEP_FP_NO_ACT);
		return npuep_fp_act_push(p, a);
	case NPUEP_FA_VLAN_POP:
		return npuep_fp_act_pop(p);
	case NPUEP_FA_ACCEPT:
		return npuep_fp_act_accept(p);
	default:
		return npuep_fp_refuse(p, NPUEP_FP_NO_ACT);
	}
}

/* A session pushed, @i-th from the inside: the innermost. */
static int npuep_fp_push_pppoe(struct npuep_fp *p, const struct npuep_fd_act *a, u32 i)
{
	if (i)
		return npuep_fp_refuse(p,
				       "fast path pushes one PPPoE session, inside the tags it pushes");
	if (!a->pppoe.sid || a->pppoe.sid == 0xffff)
		return npuep_fp_refuse(p, NPUEP_FP_SES_PUSHED);
	p->rw->l2 |= NPU_RW_L2_PPPOE_PUSH;
	p->rw->pppoe_sid = htons(a->pppoe.sid);
	return 0;
}

/*
 * The @nth tag pushed from the inside, the @outer one of all the pushes or
 * not: two at most, 802.1ad only outside (one 802.1Q tag without
 * NPU_CAP_L2_ENCAP).
 */
static int npuep_fp_push_tag(struct npuep_fp *p, const struct npuep_fd_act *a,
			     u32 nth, bool outer)
{
	bool ad = a->vlan.proto == htons(ETH_P_8021AD);
	struct npu_rewrite *rw = p->rw;
	__be16 tci;

	if (!p->d->l2_encap && (nth || a->vlan.proto != htons(ETH_P_8021Q)))
		return npuep_fp_refuse(p, NPUEP_FP_PUSH_ONE);
	if (nth > 1)
		return npuep_fp_refuse(p, "fast path pushes two tags at most");
	if (!ad && a->vlan.proto != htons(ETH_P_8021Q))
		return npuep_fp_refuse(p, "fast path pushes 802.1Q and 802.1ad tags only");
	if (ad && !outer)
		return npuep_fp_refuse(p, "fast path pushes an 802.1ad tag as the outer one only");
	if (a->vlan.vid > NPUEP_FP_VID_MASK || a->vlan.prio > 7)
		return npuep_fp_refuse(p,
				       "fast path pushes VLAN ids 0-4095 with priority 0-7");
	tci = htons(a->vlan.vid | (a->vlan.prio << NPUEP_FP_PRIO_SHIFT));
	if (!nth) {
		rw->flags |= NPU_RW_VLAN_PUSH;
		rw->vlan_tci = tci;
		rw->l2 |= ad ? NPU_RW_L2_AD1 : 0;
	} else {
		rw->l2 |= NPU_RW_L2_PUSH2 | (ad ? NPU_RW_L2_AD2 : 0);
		rw->vlan_tci2 = tci;
	}
	return 0;
}

/*
 * The pushes, innermost first: tc lists them so (each tag it pushes
 * becomes the outer one), a flowtable outermost first.  A session goes
 * innermost, inside up to two tags.
 */
static int npuep_fp_pushes(struct npuep_fp *p)
{
	bool outer_first = p->d->ft && !p->via_ppp;
	const struct npuep_fd_act *a;
	u32 i, n = p->npush, ntags = 0;
	int err;

	for (i = 0; i < n; i++) {
		a = p->push[outer_first ? n - 1 - i : i];
		if (a->id == NPUEP_FA_PPPOE_PUSH)
			err = npuep_fp_push_pppoe(p, a, i);
		else
			err = npuep_fp_push_tag(p, a, ntags++, i == n - 1);
		if (err)
			return err;
	}
	return 0;
}

/*
 * Into a ppp device: the frame's L2 is the session's, whatever the rule
 * made of it before (in software the ppp device sends the IP packet).
 * The rule pops the tags it matched and sets neither MACs nor tags; the
 * session is pushed, innermost first, inside the tags under it, with the
 * concentrator's MAC and the lower device's.
 */
static int npuep_fp_ppp_l2(struct npuep_fp *p)
{
	const struct npuep_fd_session *s = &p->sess;
	u32 i, tags = !!(p->d->keys & NPUEP_FD_VLAN) + !!(p->d->keys & NPUEP_FD_CVLAN);
	struct npuep_fd_act *a;

	if (p->eth_set)
		return npuep_fp_refuse(p,
				       "a session's MACs are the session's: no eth pedit into a ppp device");
	if (p->npush)
		return npuep_fp_refuse(p,
				       "a session's tags are the session's: no vlan push into a ppp device");
	if (p->npop < tags)
		return npuep_fp_refuse(p, "fast path pops the tags it matches before a ppp device");
	a = &p->sess_push[0];
	a->id = NPUEP_FA_PPPOE_PUSH;
	a->pppoe.sid = s->sid;
	p->push[p->npush++] = a;
	for (i = 0; i < s->ntags; i++) {
		a = &p->sess_push[1 + i];
		a->id = NPUEP_FA_VLAN_PUSH;
		a->vlan.proto = s->tag[s->ntags - 1 - i].tpid;
		a->vlan.vid = s->tag[s->ntags - 1 - i].vid;
		p->push[p->npush++] = a;
	}
	memcpy(p->eth + offsetof(struct ethhdr, h_dest), s->dmac, ETH_ALEN);
	memcpy(p->eth + offsetof(struct ethhdr, h_source), s->smac, ETH_ALEN);
	p->eth_set = BIT(2 * ETH_ALEN) - 1;
	return 0;
}

static int npuep_fp_actions(struct npuep_fp *p)
{
	const struct npuep_flow_desc *d = p->d;
	u32 i;
	int err;

	/* the glue describes no more than this many */
	if (d->nact > NPUEP_FD_ACT_MAX)
		return npuep_fp_refuse(p, "fast path takes at most "
				       NPUEP_FP_STR(NPUEP_FD_ACT_MAX) " actions");
	for (i = 0; i < d->nact; i++) {
		/* the redirect ends the rule: nothing may follow it */
		if (p->eport >= 0)
			return npuep_fp_refuse(p, d->act[i].id == NPUEP_FA_REDIRECT ?
					       "fast path redirects to one port only" :
					       NPUEP_FP_REDIR_LAST);
		err = npuep_fp_act(p, &d->act[i]);
		if (err)
			return err;
	}
	if (p->via_ppp) {
		err = npuep_fp_ppp_l2(p);
		if (err)
			return err;
	}
	err = npuep_fp_pushes(p);
	if (!err && p->eport < 0)
		err = npuep_fp_refuse(p,
				      "fast path needs a redirect to a port of this device");
	return err;
}

/* ---- the rewrite -------------------------------------------------- */

static int npuep_fp_mac(struct npuep_fp *p)
{
	if (!p->eth_set)
		return 0;
	if (p->eth_set != BIT(2 * ETH_ALEN) - 1)
		return npuep_fp_refuse(p,
				       "fast path rewrites both MAC addresses or none");
	p->rw->flags |= NPU_RW_MAC;
	memcpy(p->rw->dmac, p->eth + offsetof(struct ethhdr, h_dest), ETH_ALEN);
	memcpy(p->rw->smac, p->eth + offsetof(struct ethhdr, h_source), ETH_ALEN);
	return 0;
}

/* Source and destination NAT: the address and port images against the match. */
static void npuep_fp_nat(struct npuep_fp *p)
{
	u32 soff = p->v6 ? offsetof(struct ipv6hdr, saddr) :
			   offsetof(struct iphdr, saddr);
	u32 doff = p->v6 ? offsetof(struct ipv6hdr, daddr) :
			   offsetof(struct iphdr, daddr);
	u32 alen = p->v6 ? 16 : 4;
	u32 sp = offsetof(struct udphdr, source);
	u32 dp = offsetof(struct udphdr, dest);
	struct npu_rewrite *rw = p->rw;

	if (memcmp(p->l3 + soff, p->l3o + soff, alen) ||
	    memcmp(p->l4 + sp, p->l4o + sp, 2)) {
		rw->flags |= NPU_RW_SNAT;
		memcpy(rw->nat_saddr, p->l3 + soff, alen);
	}
	if (memcmp(p->l3 + doff, p->l3o + doff, alen) ||
	    memcmp(p->l4 + dp, p->l4o + dp, 2)) {
		rw->flags |= NPU_RW_DNAT;
		memcpy(rw->nat_daddr, p->l3 + doff, alen);
	}
	memcpy(&rw->nat_sport, p->l4 + sp, 2);
	memcpy(&rw->nat_dport, p->l4 + dp, 2);
}

/*
 * The egress's L3 MTU: the port's, a pushed session's header taken off
 * (1492 on a port of 1500), or a ppp device's session's (its path's).
 * Tags count outside it, as Linux counts them.
 */
static u16 npuep_fp_mtu(struct npuep_fp *p)
{
	u32 mtu = p->emtu;

	if (!p->via_ppp && (p->rw->l2 & NPU_RW_L2_PPPOE_PUSH) &&
	    mtu > NPUEP_FP_PPPOE_HLEN)
		mtu -= NPUEP_FP_PPPOE_HLEN;
	return mtu < 0xffff ? mtu : 0xffff;
}

static int npuep_fp_rewrite(struct npuep_fp *p)
{
	bool routed = p->ttl_dec || p->d->routed_ttl;
	int err;

	err = npuep_fp_mac(p);
	if (err)
		return err;
	/* a session matched is ended: popped, the packet routed on (the top) */
	if (p->d->keys & NPUEP_FD_PPPOE) {
		if (!routed)
			return npuep_fp_refuse(p,
					       "fast path ends the PPPoE sessions it routes; it does not bridge them");
		p->rw->l2 |= NPU_RW_L2_PPPOE_POP;
	}
	p->rw->egress_port = (u8)p->eport;
	p->rw->mtu = cpu_to_le16(npuep_fp_mtu(p));
	if (routed)
		p->rw->flags |= NPU_RW_TTL;
	npuep_fp_nat(p);
	return 0;
}

/**
 * npuep_flow_desc_parse() - a rule's description as one direction
 * @d: the rule, read by the glue (flow_parse.c)
 * @key: filled: the microflow it matches (zeroed first)
 * @rw: filled: what the direction does to a frame (zeroed first)
 * @msg: set on a refusal: why, for the extack (static storage, at most
 *	72 characters); NULL otherwise
 *
 * The fast path takes an exact IPv4 or IPv6 TCP/UDP 5-tuple, optionally in
 * one or two VLAN tags and a PPPoE session (NPU_CAP_L2_ENCAP; one 802.1Q
 * tag without), redirected (the last action) to one port of this device,
 * with both MACs set whole, address and port rewrites, one TTL decrement,
 * pops of up to two tags and then pushes of a session and up to two tags.
 *
 * Return: 0; -ENODEV for another port's rule (no message: it is not ours
 * to refuse); -EOPNOTSUPP for anything the fast path cannot do exactly.
 */
int npuep_flow_desc_parse(const struct npuep_flow_desc *d,
			  struct npu_mflow_key *key, struct npu_rewrite *rw,
			  const char **msg)
{
	struct npuep_fp p = { .d = d, .key = key, .rw = rw, .eport = -1 };
	int err;

	memset(key, 0, sizeof(*key));
	memset(rw, 0, sizeof(*rw));
	err = npuep_fp_matches(&p);
	if (!err) {
		memcpy(p.l3o, p.l3, sizeof(p.l3));
		memcpy(p.l4o, p.l4, sizeof(p.l4));
		err = npuep_fp_actions(&p);
	}
	if (!err)
		err = npuep_fp_rewrite(&p);
	*msg = err ? p.msg : NULL;
	return err;
}
