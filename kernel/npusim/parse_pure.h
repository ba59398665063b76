/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Frame parser and RSS (Toeplitz) hash of the coprocessor
 * model.  Pure C: no kernel dependency beyond npu_compat.h, so the same
 * file is compiled into npusim.ko and into the cmocka unit tests.
 */
#ifndef _NPUSIM_PARSE_PURE_H
#define _NPUSIM_PARSE_PURE_H

#include "npu_compat.h"
#include "npu_hw.h"

#define NPUSIM_ETH_HLEN		14
#define NPUSIM_ETH_P_IP		0x0800
#define NPUSIM_ETH_P_IPV6	0x86dd
#define NPUSIM_ETH_P_8021Q	0x8100
#define NPUSIM_ETH_P_8021AD	0x88a8
#define NPUSIM_VLAN_VID_MASK	0x0fff
#define NPUSIM_ETH_P_PPP_DISC	0x8863
#define NPUSIM_ETH_P_PPP_SES	0x8864
/* PPPoE session header (RFC 2516) and the PPP protocol after it. */
#define NPUSIM_PPPOE_HLEN	8
#define NPUSIM_PPPOE_VERTYPE	0x11
#define NPUSIM_PPP_IP		0x0021
#define NPUSIM_PPP_IPV6		0x0057

/* How many bytes of a frame the parser needs at most for its headers. */
#define NPUSIM_PARSE_HDR_MAX	256
/* IPv6 extension headers walked before giving up (punted as exception). */
#define NPUSIM_PARSE_MAX_EXTHDR	8

/* struct npusim_pkt.flags */
#define NPUSIM_PKT_VLAN		BIT(0)	/* at least one 802.1Q/802.1ad tag */
#define NPUSIM_PKT_IPV4		BIT(1)
#define NPUSIM_PKT_IPV6		BIT(2)
#define NPUSIM_PKT_L4		BIT(3)	/* TCP or UDP header parsed: ports valid */
#define NPUSIM_PKT_FRAG		BIT(4)	/* IP fragment */
#define NPUSIM_PKT_IPOPT	BIT(5)	/* IPv4 options or IPv6 extension headers */
#define NPUSIM_PKT_MCAST	BIT(6)	/* L2 (or L3) group destination */
#define NPUSIM_PKT_PPPOE	BIT(7)	/* a PPPoE session header after the tags */

/* TCP flag bits as in the header's byte 13. */
#define NPUSIM_TCP_FIN		0x01
#define NPUSIM_TCP_SYN		0x02
#define NPUSIM_TCP_RST		0x04

/**
 * struct npusim_pkt - what the parser found in a frame
 * @reason: punt reason (enum npu_punt_reason) the model would use
 * @flags: NPUSIM_PKT_*
 * @ethertype: ethertype after the VLAN tags (host order; a PPPoE session
 *	frame's is NPUSIM_ETH_P_PPP_SES)
 * @vlan_tci: outer VLAN TCI (host order) if NPUSIM_PKT_VLAN
 * @vlan_tpid: outer tag's TPID (host order: 0x8100 or 0x88a8) if
 *	NPUSIM_PKT_VLAN
 * @vlan2_tci: inner VLAN TCI (host order) if @vlan_tags is 2
 * @vlan2_tpid: inner tag's TPID (host order) if @vlan_tags is 2
 * @vlan_tags: VLAN tags before the ethertype (0 to 2)
 * @pppoe_sid: the session id (host order) if NPUSIM_PKT_PPPOE
 * @l3_off: offset of the IP header (0: none)
 * @l4_off: offset of the L4 header (0: none)
 * @l3_len: IPv4 total length / IPv6 payload length + 40 (host order)
 * @l4_proto: IP protocol / IPv6 next header of the L4 header
 * @ttl: IPv4 TTL or IPv6 hop limit
 * @tcp_flags: TCP flags byte if TCP
 * @addr_len: 4 or 16 when addresses are valid, else 0
 * @saddr: source address, network order (first @addr_len bytes)
 * @daddr: destination address, network order
 * @sport: L4 source port (host order) if NPUSIM_PKT_L4
 * @dport: L4 destination port (host order) if NPUSIM_PKT_L4
 */
struct npusim_pkt {
	u8 reason;
	u8 flags;
	u16 ethertype;
	u16 vlan_tci;
	u16 vlan_tpid;
	u16 vlan2_tci;
	u16 vlan2_tpid;
	u16 pppoe_sid;
	u16 l3_off;
	u16 l4_off;
	u16 l3_len;
	u8 l4_proto;
	u8 ttl;
	u8 tcp_flags;
	u8 addr_len;
	u8 vlan_tags;
	u8 saddr[16];
	u8 daddr[16];
	u16 sport;
	u16 dport;
};

u8 npusim_parse(const u8 *data, u32 caplen, u32 len, struct npusim_pkt *pkt);

u32 npusim_toeplitz(const u8 *key, u32 keylen, const u8 *in, u32 n);

u32 npusim_rss_hash(const u8 *key, const struct npusim_pkt *pkt, u16 *rxd_flags);

#endif /* _NPUSIM_PARSE_PURE_H */
