/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npuep flow offload: what the pure parser's files share - the state of
 * one rule's parse (struct npuep_fp), its limits and its messages.
 * Private to flow_parse_pure.c, flow_match_pure.c and flow_path_pure.c.
 */
#ifndef NPUEP_FLOW_PARSE_INT_H
#define NPUEP_FLOW_PARSE_INT_H

#include "flow_desc.h"

#define NPUEP_FP_ETH_LEN	ETH_HLEN
#define NPUEP_FP_L3_MAX		sizeof(struct ipv6hdr)
/* The L4 image: source and destination port (the same in TCP and UDP). */
#define NPUEP_FP_L4_LEN		offsetof(struct udphdr, len)

#define NPUEP_FP_KEYS	(NPUEP_FD_META | NPUEP_FD_CONTROL | NPUEP_FD_BASIC | \
			 NPUEP_FD_IPV4 | NPUEP_FD_IPV6 | NPUEP_FD_PORTS |    \
			 NPUEP_FD_TCP | NPUEP_FD_VLAN)
/* ... and with NPU_CAP_L2_ENCAP */
#define NPUEP_FP_KEYS_L2	(NPUEP_FD_CVLAN | NPUEP_FD_PPPOE)
/* pushes: two tags and a PPPoE session */
#define NPUEP_FP_PUSH_MAX	3
#define NPUEP_FP_PPPOE_HLEN	8
#define NPUEP_FP_PPP_IP		0x0021
#define NPUEP_FP_PPP_IPV6	0x0057

#define NPUEP_FP_VID_MASK	0x0fff
#define NPUEP_FP_PRIO_SHIFT	13
/* The TCP flags nf_flow_table matches clear: FIN and RST. */
#define NPUEP_FP_TCP_FIN_RST	0x0005

#define NPUEP_FP_STR_(x)	#x
#define NPUEP_FP_STR(x)		NPUEP_FP_STR_(x)

#define NPUEP_FP_BAD_MANGLE	"fast path rewrites MACs, addresses, ports and TTL only"
#define NPUEP_FP_IP_ONLY	"fast path rewrites only IP addresses"
#define NPUEP_FP_ETHERTYPE	"fast path needs the ethertype of its addresses (IPv4 or IPv6)"
#define NPUEP_FP_VLAN_EXACT	"fast path matches an exact 802.1Q VLAN id only"
#define NPUEP_FP_VLANS_EXACT	"fast path matches exact VLAN ids only"
#define NPUEP_FP_PRIO_TAG	"fast path cannot match a priority tag (VLAN id 0)"
#define NPUEP_FP_PUSH_ONE	"fast path pushes one 802.1Q tag"
#define NPUEP_FP_REDIR_LAST	"fast path needs the redirect as the last action"
#define NPUEP_FP_NO_ACT		"action not supported by the fast path"
#define NPUEP_FP_FT_AD		"802.1ad tags are not described by the kernel's flowtable (use npuflowd)"
#define NPUEP_FP_FT_NODEV	"flowtable's tags are no VLAN device of the port: an 802.1ad tag lost?"
#define NPUEP_FP_FT_UNDER_AD	"flowtable's tags are also under an 802.1ad device of the port"
#define NPUEP_FP_SES_PUSHED	"fast path pushes PPPoE sessions 1-65534 only"

/* What the parse of one rule has found so far. */
struct npuep_fp {
	const struct npuep_flow_desc *d;
	struct npu_mflow_key *key;
	struct npu_rewrite *rw;
	const char *msg;
	bool v6;
	u32 l3len;			/* bytes of @l3 in use */
	u8 eth[NPUEP_FP_ETH_LEN];	/* Ethernet header image */
	u16 eth_set;			/* bit i: byte i of @eth set */
	u8 l3[NPUEP_FP_L3_MAX];		/* IP header image */
	u8 l3o[NPUEP_FP_L3_MAX];	/* ... as matched */
	u8 l4[NPUEP_FP_L4_LEN];		/* L4 ports image */
	u8 l4o[NPUEP_FP_L4_LEN];	/* ... as matched */
	s32 eport;			/* egress port, or -1 before a redirect */
	u32 emtu;
	bool ttl_dec;			/* a pedit decrements the TTL */
	u32 npop;			/* VLAN pops */
	u32 npush;			/* pushes of tags and sessions */
	const struct npuep_fd_act *push[NPUEP_FP_PUSH_MAX]; /* as listed */
	bool via_ppp;			/* the redirect is to a ppp device */
	struct npuep_fd_session sess;	/* ... whose session this is */
	struct npuep_fd_act sess_push[NPUEP_FP_PUSH_MAX]; /* its pushes */
};

static inline int npuep_fp_refuse(struct npuep_fp *p, const char *msg)
{
	p->msg = msg;
	return -EOPNOTSUPP;
}

int npuep_fp_matches(struct npuep_fp *p);

#endif /* NPUEP_FLOW_PARSE_INT_H */
