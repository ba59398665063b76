// SPDX-License-Identifier: GPL-2.0
/*
 * npuep ntuple steering: an ethtool -N rule (struct ethtool_rx_flow_spec)
 * checked and turned into the coprocessor's rule (struct npu_ntuple_rule,
 * npu_hw.h), and its location chosen in the port's table.
 *
 * Pure C (ntuple_pure.h): compiled into npuep.ko and, unchanged, into the
 * cmocka unit tests.  Every refusal returns its errno with a message
 * saying why, which the glue (ntuple.c) logs on the netdev: set_rxnfc has
 * no extack.
 *
 * Taken: flow types tcp4, udp4, ip4, tcp6, udp6, ip6; source and
 * destination addresses and ports under any mask (a value keeps only its
 * bits under the mask); the IP protocol of ip4 and ip6, exact or any; the
 * action drop (RX_CLS_FLOW_DISC) or a queue below the active count.
 */
#include "ntuple_pure.h"

#define NPUEP_NT_NO_TOS		"no TOS / traffic class match"
#define NPUEP_NT_NO_L4_BYTES	"no l4 data match (use tcp/udp flow types for ports)"

/* One rule's translation. */
struct npuep_nt {
	const struct ethtool_rx_flow_spec *fs;
	u32 nq;				/* the port's active queues */
	struct npu_ntuple_rule *r;
	char *msg;			/* NPUEP_NT_MSG_LEN bytes */
};

static int npuep_nt_refuse(char *msg, int err, const char *why)
{
	snprintf(msg, NPUEP_NT_MSG_LEN, "%s", why);
	return err;
}

static bool npuep_nt_any(const u8 *b, u32 len)
{
	u32 i;

	for (i = 0; i < len; i++)
		if (b[i])
			return true;
	return false;
}

/* ---- fields --------------------------------------------------------- */

/* An address of @words 32-bit words: the value keeps its masked bits. */
static void npuep_nt_addr(__be32 *v, __be32 *m, const __be32 *hv,
			  const __be32 *hm, u32 words)
{
	u32 i;

	for (i = 0; i < words; i++) {
		m[i] = hm[i];
		v[i] = hv[i] & hm[i];
	}
}

static void npuep_nt_ports(struct npu_ntuple_rule *r, __be16 psrc,
			   __be16 msrc, __be16 pdst, __be16 mdst)
{
	r->sport = psrc & msrc;
	r->sport_mask = msrc;
	r->dport = pdst & mdst;
	r->dport_mask = mdst;
}

/* The protocol the flow type names (tcp, udp): exact. */
static void npuep_nt_l4_proto(struct npu_ntuple_rule *r, u8 family, u8 proto)
{
	r->family = family;
	r->proto = proto;
	r->proto_mask = 0xff;
}

/* The protocol the rule gives (ip4, ip6): exact or any, nothing between. */
static int npuep_nt_user_proto(struct npuep_nt *p, u8 family, u8 proto,
			       u8 mask)
{
	if (mask && mask != 0xff)
		return npuep_nt_refuse(p->msg, -EINVAL,
				       "the protocol matches exactly or not at all");
	p->r->family = family;
	p->r->proto = proto & mask;
	p->r->proto_mask = mask;
	return 0;
}

/* ---- flow types ------------------------------------------------------ */

/* tcp4, udp4 */
static int npuep_nt_tcp_udp4(struct npuep_nt *p, u8 proto)
{
	const struct ethtool_tcpip4_spec *h = &p->fs->h_u.tcp_ip4_spec;
	const struct ethtool_tcpip4_spec *m = &p->fs->m_u.tcp_ip4_spec;
	struct npu_ntuple_rule *r = p->r;

	if (m->tos)
		return npuep_nt_refuse(p->msg, -EOPNOTSUPP, NPUEP_NT_NO_TOS);
	npuep_nt_l4_proto(r, NPU_AF_INET, proto);
	npuep_nt_addr(r->saddr, r->saddr_mask, &h->ip4src, &m->ip4src, 1);
	npuep_nt_addr(r->daddr, r->daddr_mask, &h->ip4dst, &m->ip4dst, 1);
	npuep_nt_ports(r, h->psrc, m->psrc, h->pdst, m->pdst);
	return 0;
}

/* ip4: ip_ver is ETH_RX_NFC_IP4 (or left 0) and not masked (the UAPI's) */
static int npuep_nt_ip4(struct npuep_nt *p)
{
	const struct ethtool_usrip4_spec *h = &p->fs->h_u.usr_ip4_spec;
	const struct ethtool_usrip4_spec *m = &p->fs->m_u.usr_ip4_spec;
	struct npu_ntuple_rule *r = p->r;
	int err;

	if (m->tos)
		return npuep_nt_refuse(p->msg, -EOPNOTSUPP, NPUEP_NT_NO_TOS);
	if (m->l4_4_bytes)
		return npuep_nt_refuse(p->msg, -EOPNOTSUPP,
				       NPUEP_NT_NO_L4_BYTES);
	if (m->ip_ver || (h->ip_ver && h->ip_ver != ETH_RX_NFC_IP4))
		return npuep_nt_refuse(p->msg, -EINVAL,
				       "ip4 rules are IPv4 only");
	err = npuep_nt_user_proto(p, NPU_AF_INET, h->proto, m->proto);
	if (err)
		return err;
	npuep_nt_addr(r->saddr, r->saddr_mask, &h->ip4src, &m->ip4src, 1);
	npuep_nt_addr(r->daddr, r->daddr_mask, &h->ip4dst, &m->ip4dst, 1);
	return 0;
}

/* tcp6, udp6 */
static int npuep_nt_tcp_udp6(struct npuep_nt *p, u8 proto)
{
	const struct ethtool_tcpip6_spec *h = &p->fs->h_u.tcp_ip6_spec;
	const struct ethtool_tcpip6_spec *m = &p->fs->m_u.tcp_ip6_spec;
	struct npu_ntuple_rule *r = p->r;

	if (m->tclass)
		return npuep_nt_refuse(p->msg, -EOPNOTSUPP, NPUEP_NT_NO_TOS);
	npuep_nt_l4_proto(r, NPU_AF_INET6, proto);
	npuep_nt_addr(r->saddr, r->saddr_mask, h->ip6src, m->ip6src, 4);
	npuep_nt_addr(r->daddr, r->daddr_mask, h->ip6dst, m->ip6dst, 4);
	npuep_nt_ports(r, h->psrc, m->psrc, h->pdst, m->pdst);
	return 0;
}

/* ip6 */
static int npuep_nt_ip6(struct npuep_nt *p)
{
	const struct ethtool_usrip6_spec *h = &p->fs->h_u.usr_ip6_spec;
	const struct ethtool_usrip6_spec *m = &p->fs->m_u.usr_ip6_spec;
	struct npu_ntuple_rule *r = p->r;
	int err;

	if (m->tclass)
		return npuep_nt_refuse(p->msg, -EOPNOTSUPP, NPUEP_NT_NO_TOS);
	if (m->l4_4_bytes)
		return npuep_nt_refuse(p->msg, -EOPNOTSUPP,
				       NPUEP_NT_NO_L4_BYTES);
	err = npuep_nt_user_proto(p, NPU_AF_INET6, h->l4_proto, m->l4_proto);
	if (err)
		return err;
	npuep_nt_addr(r->saddr, r->saddr_mask, h->ip6src, m->ip6src, 4);
	npuep_nt_addr(r->daddr, r->daddr_mask, h->ip6dst, m->ip6dst, 4);
	return 0;
}

/* ---- the rule -------------------------------------------------------- */

/* No RSS context, and of the extensions nothing matched on. */
static int npuep_nt_flags(struct npuep_nt *p)
{
	const struct ethtool_rx_flow_spec *fs = p->fs;
	const struct ethtool_flow_ext *m = &fs->m_ext;

	if (fs->flow_type & FLOW_RSS)
		return npuep_nt_refuse(p->msg, -EOPNOTSUPP,
				       "RSS contexts are not supported");
	if (((fs->flow_type & FLOW_EXT) &&
	     (m->vlan_etype || m->vlan_tci || m->data[0] || m->data[1])) ||
	    ((fs->flow_type & FLOW_MAC_EXT) &&
	     npuep_nt_any(m->h_dest, sizeof(m->h_dest))))
		return npuep_nt_refuse(p->msg, -EOPNOTSUPP,
				       "no VLAN, user-def or MAC match");
	return 0;
}

static int npuep_nt_match(struct npuep_nt *p)
{
	u32 type = p->fs->flow_type & ~(FLOW_EXT | FLOW_MAC_EXT | FLOW_RSS);

	switch (type) {
	case TCP_V4_FLOW:
		return npuep_nt_tcp_udp4(p, IPPROTO_TCP);
	case UDP_V4_FLOW:
		return npuep_nt_tcp_udp4(p, IPPROTO_UDP);
	case IP_USER_FLOW:
		return npuep_nt_ip4(p);
	case TCP_V6_FLOW:
		return npuep_nt_tcp_udp6(p, IPPROTO_TCP);
	case UDP_V6_FLOW:
		return npuep_nt_tcp_udp6(p, IPPROTO_UDP);
	case IPV6_USER_FLOW:
		return npuep_nt_ip6(p);
	default:
		snprintf(p->msg, NPUEP_NT_MSG_LEN,
			 "flow type %#x not supported (tcp4 udp4 ip4 tcp6 udp6 ip6)",
			 type);
		return -EOPNOTSUPP;
	}
}

/* Drop, or a queue of this function below the active count. */
static int npuep_nt_action(struct npuep_nt *p)
{
	u64 cookie = p->fs->ring_cookie;
	u32 q;

	if (cookie == RX_CLS_FLOW_DISC) {
		p->r->action = NPU_NTUPLE_ACT_DROP;
		return 0;
	}
	if (cookie == RX_CLS_FLOW_WAKE || ethtool_get_flow_spec_ring_vf(cookie))
		return npuep_nt_refuse(p->msg, -EOPNOTSUPP,
				       "the action is a queue or drop (-1)");
	q = (u32)ethtool_get_flow_spec_ring(cookie);
	if (q >= p->nq) {
		snprintf(p->msg, NPUEP_NT_MSG_LEN,
			 "queue %u is beyond the %u active queues (ethtool -L)",
			 q, p->nq);
		return -EINVAL;
	}
	p->r->action = NPU_NTUPLE_ACT_QUEUE;
	p->r->queue = cpu_to_le16((u16)q);
	return 0;
}

/**
 * npuep_ntuple_fs_to_rule() - an ethtool -N rule as the coprocessor's
 * @fs: the rule as the user gave it (its location is not read)
 * @nq: the port's active receive queues (ethtool -L)
 * @r: filled: the rule for NPU_CMD_NTUPLE_ADD (zeroed first; all zero
 *	after a refusal)
 * @msg: set: why a rule is refused, "" if it is not
 *
 * Return: 0; -EOPNOTSUPP for what the classifier does not do (RSS
 * contexts, VLAN, user-def and MAC matches, TOS and l4 data matches, flow
 * types other than tcp4 udp4 ip4 tcp6 udp6 ip6, Wake-on-LAN and VF
 * actions); -EINVAL for a rule that is wrong as given (an ip4 rule's IP
 * version, a protocol mask neither 0 nor 0xff, a queue at or beyond @nq).
 */
int npuep_ntuple_fs_to_rule(const struct ethtool_rx_flow_spec *fs, u32 nq,
			    struct npu_ntuple_rule *r,
			    char msg[NPUEP_NT_MSG_LEN])
{
	struct npuep_nt p = { .fs = fs, .nq = nq, .r = r, .msg = msg };
	int err;

	memset(r, 0, sizeof(*r));
	msg[0] = '\0';
	err = npuep_nt_flags(&p);
	if (!err)
		err = npuep_nt_match(&p);
	if (!err)
		err = npuep_nt_action(&p);
	if (err)
		memset(r, 0, sizeof(*r));
	return err;
}

/* ---- the location ----------------------------------------------------- */

/* The highest free location, or NPU_NTUPLE_RULES if there is none. */
static u32 npuep_nt_last_free(const unsigned long *used)
{
	u32 i;

	for (i = NPU_NTUPLE_RULES; i--;)
		if (!test_bit(i, used))
			return i;
	return NPU_NTUPLE_RULES;
}

/**
 * npuep_ntuple_loc_find() - where a new rule goes in a port's table
 * @loc: the rule's location as the user gave it: a location (a rule there
 *	is replaced), or RX_CLS_LOC_ANY, RX_CLS_LOC_FIRST (the lowest free
 *	one) or RX_CLS_LOC_LAST (the highest free one)
 * @used: the locations holding a rule, NPU_NTUPLE_RULES bits
 * @msg: set: why a location is refused, "" if it is not
 *
 * Return: the location, below NPU_NTUPLE_RULES; -EINVAL for a location
 * beyond the table or another special one; -ENOSPC when no location is
 * free for RX_CLS_LOC_ANY, FIRST or LAST.
 */
int npuep_ntuple_loc_find(u32 loc, const unsigned long *used,
			  char msg[NPUEP_NT_MSG_LEN])
{
	u32 i;

	msg[0] = '\0';
	if (!(loc & RX_CLS_LOC_SPECIAL)) {
		if (loc < NPU_NTUPLE_RULES)
			return loc;
		snprintf(msg, NPUEP_NT_MSG_LEN, "location %u is not below %u",
			 loc, NPU_NTUPLE_RULES);
		return -EINVAL;
	}
	switch (loc) {
	case RX_CLS_LOC_ANY:
	case RX_CLS_LOC_FIRST:
		i = find_first_zero_bit(used, NPU_NTUPLE_RULES);
		break;
	case RX_CLS_LOC_LAST:
		i = npuep_nt_last_free(used);
		break;
	default:
		snprintf(msg, NPUEP_NT_MSG_LEN,
			 "special location %#x is not RX_CLS_LOC_ANY, FIRST or LAST",
			 loc);
		return -EINVAL;
	}
	if (i < NPU_NTUPLE_RULES)
		return i;
	snprintf(msg, NPUEP_NT_MSG_LEN, "the table is full (%u rules)",
		 NPU_NTUPLE_RULES);
	return -ENOSPC;
}
