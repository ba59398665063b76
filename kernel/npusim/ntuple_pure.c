// SPDX-License-Identifier: GPL-2.0
/*
 * ntuple_pure.c - the model's ingress classifier (see ntuple_pure.h).
 *
 * Every field of a command comes from the host and is checked before the
 * table changes: a rule the device cannot execute exactly as written is
 * refused with NPU_ST_BAD_PARAM, never trimmed.
 */
#include "ntuple_pure.h"

#define NPUSIM_NT_TCP	6
#define NPUSIM_NT_UDP	17

/**
 * npusim_nt_tbl_init - empty a table
 * @t: the table
 */
void npusim_nt_tbl_init(struct npusim_nt_tbl *t)
{
	memset(t, 0, sizeof(*t));
}

/* Value bits outside the mask, in @n big-endian words. */
static bool npusim_nt_outside(const __be32 *v, const __be32 *m, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++)
		if (v[i] & ~m[i])
			return true;
	return false;
}

static bool npusim_nt_nonzero(const __be32 *v, u32 from, u32 to)
{
	for (; from < to; from++)
		if (v[from])
			return true;
	return false;
}

/**
 * npusim_nt_rule_check - can the device execute this rule as written
 * @r: the rule, as the host wrote it
 * @nqueues: receive queues of the port
 *
 * Return: NPU_ST_OK or NPU_ST_BAD_PARAM.
 */
u16 npusim_nt_rule_check(const struct npu_ntuple_rule *r, u32 nqueues)
{
	u32 words = r->family == NPU_AF_INET ? 1 : 4;

	if (r->family != NPU_AF_INET && r->family != NPU_AF_INET6)
		return NPU_ST_BAD_PARAM;
	if (r->rsvd)
		return NPU_ST_BAD_PARAM;
	if (r->proto_mask != 0 && r->proto_mask != 0xff)
		return NPU_ST_BAD_PARAM;
	if (r->proto & ~r->proto_mask)
		return NPU_ST_BAD_PARAM;
	if ((r->sport & ~r->sport_mask) || (r->dport & ~r->dport_mask))
		return NPU_ST_BAD_PARAM;
	/* Ports exist only in the TCP and UDP frames the parser reads. */
	if ((r->sport_mask || r->dport_mask) &&
	    (r->proto_mask != 0xff ||
	     (r->proto != NPUSIM_NT_TCP && r->proto != NPUSIM_NT_UDP)))
		return NPU_ST_BAD_PARAM;
	if (npusim_nt_outside(r->saddr, r->saddr_mask, 4) ||
	    npusim_nt_outside(r->daddr, r->daddr_mask, 4))
		return NPU_ST_BAD_PARAM;
	if (npusim_nt_nonzero(r->saddr_mask, words, 4) ||
	    npusim_nt_nonzero(r->daddr_mask, words, 4))
		return NPU_ST_BAD_PARAM;
	switch (r->action) {
	case NPU_NTUPLE_ACT_QUEUE:
		if (le16_to_cpu(r->queue) >= nqueues)
			return NPU_ST_BAD_PARAM;
		break;
	case NPU_NTUPLE_ACT_DROP:
		if (r->queue)
			return NPU_ST_BAD_PARAM;
		break;
	default:
		return NPU_ST_BAD_PARAM;
	}
	return NPU_ST_OK;
}

static void npusim_nt_retop(struct npusim_nt_tbl *t)
{
	while (t->top && !t->used[t->top - 1])
		t->top--;
}

/**
 * npusim_nt_add - NPU_CMD_NTUPLE_ADD: write a rule at a location
 * @t: the port's table
 * @c: the command (its port already checked by the caller)
 * @nqueues: receive queues of the port
 *
 * A rule already at the location is replaced.
 *
 * Return: NPU_ST_OK or NPU_ST_BAD_PARAM (the table is unchanged).
 */
u16 npusim_nt_add(struct npusim_nt_tbl *t, const struct npu_cmd_ntuple *c,
		  u32 nqueues)
{
	u32 loc = le16_to_cpu(c->loc);
	u16 st;

	if (loc >= NPU_NTUPLE_RULES || c->rsvd)
		return NPU_ST_BAD_PARAM;
	st = npusim_nt_rule_check(&c->rule, nqueues);
	if (st != NPU_ST_OK)
		return st;
	t->rule[loc] = c->rule;
	if (!t->used[loc]) {
		t->used[loc] = 1;
		t->count++;
	}
	if (loc >= t->top)
		t->top = loc + 1;
	return NPU_ST_OK;
}

/**
 * npusim_nt_del - NPU_CMD_NTUPLE_DEL: remove one rule or all of them
 * @t: the port's table
 * @c: the command: @loc or NPU_NTUPLE_LOC_ALL, @rule zero
 *
 * Return: NPU_ST_OK, NPU_ST_NOT_FOUND (no rule at @loc) or
 * NPU_ST_BAD_PARAM.
 */
u16 npusim_nt_del(struct npusim_nt_tbl *t, const struct npu_cmd_ntuple *c)
{
	static const struct npu_ntuple_rule zero;
	u32 loc = le16_to_cpu(c->loc);

	if (c->rsvd || memcmp(&c->rule, &zero, sizeof(zero)))
		return NPU_ST_BAD_PARAM;
	if (loc == NPU_NTUPLE_LOC_ALL) {
		npusim_nt_tbl_init(t);
		return NPU_ST_OK;
	}
	if (loc >= NPU_NTUPLE_RULES)
		return NPU_ST_BAD_PARAM;
	if (!t->used[loc])
		return NPU_ST_NOT_FOUND;
	t->used[loc] = 0;
	memset(&t->rule[loc], 0, sizeof(t->rule[loc]));
	t->count--;
	npusim_nt_retop(t);
	return NPU_ST_OK;
}

static bool npusim_nt_addr_match(const u8 *a, const __be32 *v,
				 const __be32 *m, u32 words)
{
	u32 i;
	__be32 w;

	for (i = 0; i < words; i++) {
		memcpy(&w, a + 4 * i, 4);
		if ((w & m[i]) != v[i])
			return false;
	}
	return true;
}

static bool npusim_nt_rule_match(const struct npu_ntuple_rule *r,
				 const struct npusim_pkt *pkt)
{
	u32 words;

	if (r->family == NPU_AF_INET) {
		if (!(pkt->flags & NPUSIM_PKT_IPV4) || pkt->addr_len != 4)
			return false;
		words = 1;
	} else {
		if (!(pkt->flags & NPUSIM_PKT_IPV6) || pkt->addr_len != 16)
			return false;
		words = 4;
	}
	if (r->proto_mask && pkt->l4_proto != r->proto)
		return false;
	if (!npusim_nt_addr_match(pkt->saddr, r->saddr, r->saddr_mask, words) ||
	    !npusim_nt_addr_match(pkt->daddr, r->daddr, r->daddr_mask, words))
		return false;
	if (r->sport_mask || r->dport_mask) {
		/* A fragment without its L4 header has no ports to match. */
		if (!(pkt->flags & NPUSIM_PKT_L4))
			return false;
		if ((pkt->sport & be16_to_cpu(r->sport_mask)) !=
		    be16_to_cpu(r->sport) ||
		    (pkt->dport & be16_to_cpu(r->dport_mask)) !=
		    be16_to_cpu(r->dport))
			return false;
	}
	return true;
}

/**
 * npusim_nt_match - the rule that decides a punted frame
 * @t: the ingress port's table
 * @pkt: the parser's result, with the punt reason
 *
 * Return: the lowest location whose rule matches, or NPUSIM_NT_NONE
 * (also for a malformed frame, whose headers are not trusted).
 */
int npusim_nt_match(const struct npusim_nt_tbl *t,
		    const struct npusim_pkt *pkt)
{
	u32 i;

	if (!t->count || pkt->reason == NPU_PUNT_MALFORMED ||
	    !(pkt->flags & (NPUSIM_PKT_IPV4 | NPUSIM_PKT_IPV6)))
		return NPUSIM_NT_NONE;
	for (i = 0; i < t->top; i++)
		if (t->used[i] && npusim_nt_rule_match(&t->rule[i], pkt))
			return (int)i;
	return NPUSIM_NT_NONE;
}
