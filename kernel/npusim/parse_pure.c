// SPDX-License-Identifier: GPL-2.0
/*
 * Frame parser and Toeplitz hash of the coprocessor model.
 *
 * Pure C (see npu_compat.h): compiled into npusim.ko and, unchanged, into
 * the cmocka unit tests under selftests/unit/.  The parser never reads at or
 * past @caplen bytes of the buffer it is given.
 *
 * Punt reason priority, highest first: MALFORMED headers (Ethernet/VLAN
 * truncated, a PPPoE session's length beyond the frame or other than its IP
 * packet's, bad IPv4 version/IHL/total length/header checksum, IPv6 payload
 * length beyond the frame, truncated L4 header), NON_IP ethertype, MCAST
 * (group MAC or IP multicast/broadcast destination), EXCEPTION (fragment, IP
 * options or IPv6 extension headers, TTL/hop limit <= 1, neither TCP nor UDP,
 * headers deeper than the captured part, more than two VLAN tags, a tagging
 * no microflow key stands for, PPPoE other than an IP packet in a session),
 * TCP_FLAGS (SYN, FIN or RST), and FLOW_MISS for everything else (the fast
 * path looks those up: ft_pure.c).
 *
 * PPPoE (RFC 2516) after the tags: a session frame (0x8864) of version and
 * type 1, code 0 and a session id other than 0 and 0xffff (reserved) that
 * carries IPv4 (PPP protocol 0x0021) or IPv6 (0x0057) is parsed on, and
 * keyed with its session id.  Discovery (0x8863), LCP, IPCP, IPV6CP and
 * any other PPP protocol are the host's: EXCEPTION, without a lookup,
 * whatever their destination MAC.
 *
 * A microflow key (npu_hw.h) holds the VLAN ids of up to two tags: the
 * outer one's TPID 0x8100 or 0x88a8, the inner one's 0x8100.  A frame with
 * a priority tag (VID 0) or an inner 802.1ad tag is none of those: were it
 * looked up, it would match the connection of its other tag's VID, or an
 * untagged one.  It is punted EXCEPTION.
 */
#include "parse_pure.h"

#define NPUSIM_MAX_VLAN_TAGS	2

#define NPUSIM_IPPROTO_HOPOPTS	0
#define NPUSIM_IPPROTO_ICMP	1
#define NPUSIM_IPPROTO_TCP	6
#define NPUSIM_IPPROTO_UDP	17
#define NPUSIM_IPPROTO_ROUTING	43
#define NPUSIM_IPPROTO_FRAGMENT	44
#define NPUSIM_IPPROTO_AH	51
#define NPUSIM_IPPROTO_ICMPV6	58
#define NPUSIM_IPPROTO_NONE	59
#define NPUSIM_IPPROTO_DSTOPTS	60
#define NPUSIM_IPPROTO_MH	135

static u16 npusim_rd16(const u8 *p)
{
	return (u16)(p[0] << 8 | p[1]);
}

/* A header ending at @end does not fit: malformed if the frame is too short,
 * merely not inspectable if only the captured part is.
 */
static u8 npusim_short(u32 end, u32 len)
{
	return end > len ? NPU_PUNT_MALFORMED : NPU_PUNT_EXCEPTION;
}

/* Ones' complement sum of @n bytes (n even), folded. */
static u16 npusim_csum16(const u8 *p, u32 n)
{
	u32 sum = 0;
	u32 i;

	for (i = 0; i + 1 < n; i += 2)
		sum += npusim_rd16(p + i);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (u16)sum;
}

/* Parse the L4 header at @off; the IP payload ends at @end (<= len). */
static u8 npusim_parse_l4(const u8 *data, u32 off, u32 end, u32 caplen,
			  struct npusim_pkt *pkt)
{
	const u8 *p = data + off;
	u32 hlen;

	pkt->l4_off = (u16)off;
	switch (pkt->l4_proto) {
	case NPUSIM_IPPROTO_TCP:
		if (off + 20 > end)
			return NPU_PUNT_MALFORMED;
		if (off + 20 > caplen)
			return NPU_PUNT_EXCEPTION;
		hlen = (u32)(p[12] >> 4) * 4;
		if (hlen < 20 || off + hlen > end)
			return NPU_PUNT_MALFORMED;
		pkt->sport = npusim_rd16(p);
		pkt->dport = npusim_rd16(p + 2);
		pkt->tcp_flags = p[13];
		pkt->flags |= NPUSIM_PKT_L4;
		return 0;
	case NPUSIM_IPPROTO_UDP:
		if (off + 8 > end)
			return NPU_PUNT_MALFORMED;
		if (off + 8 > caplen)
			return NPU_PUNT_EXCEPTION;
		hlen = npusim_rd16(p + 4);
		if (hlen < 8 || off + hlen > end)
			return NPU_PUNT_MALFORMED;
		pkt->sport = npusim_rd16(p);
		pkt->dport = npusim_rd16(p + 2);
		pkt->flags |= NPUSIM_PKT_L4;
		return 0;
	case NPUSIM_IPPROTO_ICMP:
	case NPUSIM_IPPROTO_ICMPV6:
		if (off + 4 > end)
			return NPU_PUNT_MALFORMED;
		return 0;
	default:
		return 0;
	}
}

/* The frame's tagging is one a microflow key can hold (see the top). */
static bool npusim_vlan_keyed(const struct npusim_pkt *pkt)
{
	if (!(pkt->flags & NPUSIM_PKT_VLAN))
		return true;
	if (!(pkt->vlan_tci & NPUSIM_VLAN_VID_MASK))
		return false;
	return pkt->vlan_tags == 1 ||
	       (pkt->vlan2_tpid == NPUSIM_ETH_P_8021Q &&
		(pkt->vlan2_tci & NPUSIM_VLAN_VID_MASK));
}

/* Common tail of IPv4 and IPv6 once L4 is known. */
static u8 npusim_parse_tail(const u8 *data, u32 off, u32 end, u32 caplen,
			    struct npusim_pkt *pkt)
{
	u8 r;

	if (pkt->flags & NPUSIM_PKT_MCAST)
		return NPU_PUNT_MCAST;
	if (pkt->flags & NPUSIM_PKT_FRAG)
		return NPU_PUNT_EXCEPTION;
	r = npusim_parse_l4(data, off, end, caplen, pkt);
	if (r)
		return r;
	if ((pkt->flags & NPUSIM_PKT_IPOPT) || pkt->ttl <= 1 ||
	    !npusim_vlan_keyed(pkt))
		return NPU_PUNT_EXCEPTION;
	if (pkt->l4_proto == NPUSIM_IPPROTO_TCP) {
		if (pkt->tcp_flags & (NPUSIM_TCP_SYN | NPUSIM_TCP_FIN |
				      NPUSIM_TCP_RST))
			return NPU_PUNT_TCP_FLAGS;
		return NPU_PUNT_FLOW_MISS;
	}
	if (pkt->l4_proto == NPUSIM_IPPROTO_UDP)
		return NPU_PUNT_FLOW_MISS;
	return NPU_PUNT_EXCEPTION;
}

static u8 npusim_parse_ipv4(const u8 *data, u32 off, u32 caplen, u32 len,
			    struct npusim_pkt *pkt)
{
	const u8 *p = data + off;
	u32 ihl, tot;

	if (off + 20 > caplen)
		return npusim_short(off + 20, len);
	if ((p[0] >> 4) != 4)
		return NPU_PUNT_MALFORMED;
	ihl = (u32)(p[0] & 0xf) * 4;
	if (ihl < 20)
		return NPU_PUNT_MALFORMED;
	if (off + ihl > caplen)
		return npusim_short(off + ihl, len);
	tot = npusim_rd16(p + 2);
	if (tot < ihl || off + tot > len)
		return NPU_PUNT_MALFORMED;
	if (npusim_csum16(p, ihl) != 0xffff)
		return NPU_PUNT_MALFORMED;

	pkt->flags |= NPUSIM_PKT_IPV4;
	pkt->l3_off = (u16)off;
	pkt->l3_len = (u16)tot;
	pkt->ttl = p[8];
	pkt->l4_proto = p[9];
	pkt->addr_len = 4;
	memcpy(pkt->saddr, p + 12, 4);
	memcpy(pkt->daddr, p + 16, 4);
	if (npusim_rd16(p + 6) & 0x3fff)	/* MF or fragment offset */
		pkt->flags |= NPUSIM_PKT_FRAG;
	if (ihl > 20)
		pkt->flags |= NPUSIM_PKT_IPOPT;
	if ((p[16] & 0xf0) == 0xe0 ||
	    (p[16] == 0xff && p[17] == 0xff && p[18] == 0xff && p[19] == 0xff))
		pkt->flags |= NPUSIM_PKT_MCAST;

	return npusim_parse_tail(data, off + ihl, off + tot, caplen, pkt);
}

static u8 npusim_parse_ipv6(const u8 *data, u32 off, u32 caplen, u32 len,
			    struct npusim_pkt *pkt)
{
	const u8 *p = data + off;
	u32 plen, end, cur, hlen, i;
	u8 nh;

	if (off + 40 > caplen)
		return npusim_short(off + 40, len);
	if ((p[0] >> 4) != 6)
		return NPU_PUNT_MALFORMED;
	plen = npusim_rd16(p + 4);
	/* no jumbograms on ports that carry at most NPU_MAX_FRAME */
	if (!plen && p[6] != NPUSIM_IPPROTO_NONE)
		return NPU_PUNT_MALFORMED;
	end = off + 40 + plen;
	if (end > len)
		return NPU_PUNT_MALFORMED;

	pkt->flags |= NPUSIM_PKT_IPV6;
	pkt->l3_off = (u16)off;
	pkt->l3_len = (u16)(40 + plen);
	pkt->ttl = p[7];
	pkt->addr_len = 16;
	memcpy(pkt->saddr, p + 8, 16);
	memcpy(pkt->daddr, p + 24, 16);
	if (p[24] == 0xff)
		pkt->flags |= NPUSIM_PKT_MCAST;

	nh = p[6];
	cur = off + 40;
	for (i = 0; ; i++) {
		if (nh != NPUSIM_IPPROTO_HOPOPTS && nh != NPUSIM_IPPROTO_ROUTING &&
		    nh != NPUSIM_IPPROTO_DSTOPTS && nh != NPUSIM_IPPROTO_AH &&
		    nh != NPUSIM_IPPROTO_MH && nh != NPUSIM_IPPROTO_FRAGMENT)
			break;
		if (i == NPUSIM_PARSE_MAX_EXTHDR) {
			pkt->l4_proto = nh;
			return pkt->flags & NPUSIM_PKT_MCAST ?
			       NPU_PUNT_MCAST : NPU_PUNT_EXCEPTION;
		}
		if (cur + 8 > end)
			return NPU_PUNT_MALFORMED;
		if (cur + 8 > caplen)
			return npusim_short(cur + 8, len);
		p = data + cur;
		pkt->flags |= NPUSIM_PKT_IPOPT;
		if (nh == NPUSIM_IPPROTO_FRAGMENT) {
			hlen = 8;
			if (npusim_rd16(p + 2) & 0xfff9)	/* offset or M */
				pkt->flags |= NPUSIM_PKT_FRAG;
		} else if (nh == NPUSIM_IPPROTO_AH) {
			hlen = ((u32)p[1] + 2) * 4;
		} else {
			hlen = ((u32)p[1] + 1) * 8;
		}
		if (cur + hlen > end)
			return NPU_PUNT_MALFORMED;
		nh = p[0];
		cur += hlen;
		if (pkt->flags & NPUSIM_PKT_FRAG)
			break;
	}
	pkt->l4_proto = nh;

	return npusim_parse_tail(data, cur, end, caplen, pkt);
}

/*
 * The PPPoE session header at @off and the IP packet it carries: its
 * length field counts the PPP protocol and the packet, and stays within
 * the frame (Ethernet padding may follow).
 */
static u8 npusim_parse_pppoe(const u8 *data, u32 off, u32 caplen, u32 len,
			     struct npusim_pkt *pkt)
{
	const u8 *p = data + off;
	u32 plen;
	u16 proto;
	u8 r;

	if (off + NPUSIM_PPPOE_HLEN > caplen)
		return npusim_short(off + NPUSIM_PPPOE_HLEN, len);
	pkt->flags |= NPUSIM_PKT_PPPOE;
	pkt->pppoe_sid = npusim_rd16(p + 2);
	if (p[0] != NPUSIM_PPPOE_VERTYPE || p[1])
		return NPU_PUNT_EXCEPTION;
	plen = npusim_rd16(p + 4);
	if (plen < 2 || off + 6 + plen > len)
		return NPU_PUNT_MALFORMED;
	if (!pkt->pppoe_sid || pkt->pppoe_sid == 0xffff)
		return NPU_PUNT_EXCEPTION;
	proto = npusim_rd16(p + 6);
	if (proto == NPUSIM_PPP_IP)
		r = npusim_parse_ipv4(data, off + NPUSIM_PPPOE_HLEN, caplen, len, pkt);
	else if (proto == NPUSIM_PPP_IPV6)
		r = npusim_parse_ipv6(data, off + NPUSIM_PPPOE_HLEN, caplen, len, pkt);
	else
		return NPU_PUNT_EXCEPTION;
	/* the packet's own length, where the parse got to it */
	if (pkt->l3_len && plen != pkt->l3_len + 2u)
		return NPU_PUNT_MALFORMED;
	return r;
}

/**
 * npusim_parse - parse a frame's headers the way the coprocessor does
 * @data: frame, starting at the destination MAC
 * @caplen: bytes readable at @data (the parser never reads beyond)
 * @len: length of the whole frame (>= @caplen)
 * @pkt: result; zeroed first
 *
 * Return: the punt reason (enum npu_punt_reason), also in @pkt->reason.
 */
u8 npusim_parse(const u8 *data, u32 caplen, u32 len, struct npusim_pkt *pkt)
{
	u32 off = NPUSIM_ETH_HLEN;
	unsigned int tags = 0;
	u16 type;
	u8 r;

	memset(pkt, 0, sizeof(*pkt));
	if (caplen > len)
		caplen = len;
	if (len < NPUSIM_ETH_HLEN) {
		r = NPU_PUNT_MALFORMED;
		goto out;
	}
	if (caplen < NPUSIM_ETH_HLEN) {
		r = NPU_PUNT_EXCEPTION;
		goto out;
	}
	if (data[0] & 1)
		pkt->flags |= NPUSIM_PKT_MCAST;
	type = npusim_rd16(data + 12);
	while (type == NPUSIM_ETH_P_8021Q || type == NPUSIM_ETH_P_8021AD) {
		if (tags == NPUSIM_MAX_VLAN_TAGS) {
			r = NPU_PUNT_EXCEPTION;
			goto out;
		}
		if (off + 4 > caplen) {
			r = npusim_short(off + 4, len);
			goto out;
		}
		if (!tags) {
			pkt->vlan_tci = npusim_rd16(data + off);
			pkt->vlan_tpid = type;
			pkt->flags |= NPUSIM_PKT_VLAN;
		} else {
			pkt->vlan2_tci = npusim_rd16(data + off);
			pkt->vlan2_tpid = type;
		}
		type = npusim_rd16(data + off + 2);
		off += 4;
		tags++;
	}
	pkt->vlan_tags = (u8)tags;
	pkt->ethertype = type;
	if (type == NPUSIM_ETH_P_IP)
		r = npusim_parse_ipv4(data, off, caplen, len, pkt);
	else if (type == NPUSIM_ETH_P_IPV6)
		r = npusim_parse_ipv6(data, off, caplen, len, pkt);
	else if (type == NPUSIM_ETH_P_PPP_SES)
		r = npusim_parse_pppoe(data, off, caplen, len, pkt);
	else if (type == NPUSIM_ETH_P_PPP_DISC)
		r = NPU_PUNT_EXCEPTION;
	else
		r = NPU_PUNT_NON_IP;
out:
	pkt->reason = r;
	return r;
}

/**
 * npusim_toeplitz - Toeplitz hash (Microsoft RSS)
 * @key: secret key
 * @keylen: bytes of @key; must be at least @n + 4
 * @in: input bytes
 * @n: input length
 *
 * Return: the 32-bit hash.
 */
u32 npusim_toeplitz(const u8 *key, u32 keylen, const u8 *in, u32 n)
{
	u32 v = (u32)key[0] << 24 | (u32)key[1] << 16 | (u32)key[2] << 8 |
		key[3];
	u32 hash = 0;
	u32 i;
	int b;

	for (i = 0; i < n; i++) {
		for (b = 7; b >= 0; b--) {
			if (in[i] & (1u << b))
				hash ^= v;
			v <<= 1;
			if (i + 4 < keylen && (key[i + 4] & (1u << b)))
				v |= 1;
		}
	}
	return hash;
}

/**
 * npusim_rss_hash - RSS hash of a parsed frame
 * @key: NPU_RSS_KEY_LEN byte key
 * @pkt: parser result
 * @rxd_flags: NPU_RXD_HASH_L4 or NPU_RXD_HASH_L3 is or-ed in (nothing when
 *	the frame is not IP)
 *
 * Source and destination address, then source and destination port when
 * the frame has a TCP or UDP header and is not a fragment.
 *
 * Return: the hash, 0 for non-IP frames.
 */
u32 npusim_rss_hash(const u8 *key, const struct npusim_pkt *pkt, u16 *rxd_flags)
{
	u8 in[36];
	u32 n;

	if (pkt->addr_len != 4 && pkt->addr_len != 16)
		return 0;
	memcpy(in, pkt->saddr, pkt->addr_len);
	memcpy(in + pkt->addr_len, pkt->daddr, pkt->addr_len);
	n = 2u * pkt->addr_len;
	if ((pkt->flags & NPUSIM_PKT_L4) && !(pkt->flags & NPUSIM_PKT_FRAG)) {
		in[n++] = (u8)(pkt->sport >> 8);
		in[n++] = (u8)pkt->sport;
		in[n++] = (u8)(pkt->dport >> 8);
		in[n++] = (u8)pkt->dport;
		*rxd_flags |= NPU_RXD_HASH_L4;
	} else {
		*rxd_flags |= NPU_RXD_HASH_L3;
	}
	return npusim_toeplitz(key, NPU_RSS_KEY_LEN, in, n);
}
