// SPDX-License-Identifier: GPL-2.0
/*
 * rewrite_pure.c - the coprocessor model's rewrite of a forwarded frame
 * (see ft_pure.h): npusim_ft_rewrite() changes addresses, ports and TTL
 * with incremental checksum updates (RFC 1624), then npusim_ft_l2_rewrite()
 * makes the L2 header again in the order of npu_hw.h: pops of tags, of the
 * session header, the push of a session header, of tags, the MACs.  A pop
 * of what the frame does not have pops nothing, as act_vlan's does; the
 * tags not popped stay, inside the pushed ones.
 */
#include "ft_pure.h"

#define NPUSIM_IPPROTO_TCP	6
#define NPUSIM_IPPROTO_UDP	17
#define NPUSIM_FT_MACS		12	/* destination and source */
#define NPUSIM_FT_TAG		4

/* Tags of the frame a rewrite pops: what it asks, of what the frame has. */
static u32 npusim_ft_l2_pops(const struct npusim_pkt *pkt,
			     const struct npu_rewrite *rw)
{
	u32 n = 0;

	if (rw->flags & NPU_RW_VLAN_POP)
		n = rw->l2 & NPU_RW_L2_POP2 ? 2 : 1;
	return n < pkt->vlan_tags ? n : pkt->vlan_tags;
}

/* The frame leaves in the session it arrived in. */
static bool npusim_ft_l2_keeps_session(const struct npusim_pkt *pkt,
				       const struct npu_rewrite *rw)
{
	return (pkt->flags & NPUSIM_PKT_PPPOE) && !(rw->l2 & NPU_RW_L2_PPPOE_POP);
}

/**
 * npusim_ft_l2_len() - the length of the L2 header a rewrite makes
 * @pkt: the parser's result for the frame (its tags, session, IP header)
 * @rw: the direction's rewrite
 *
 * Return: the bytes before the IP header once the frame is rewritten (at
 * most NPUSIM_FT_L2_MAX), or 0 if the rewrite cannot apply to the frame: it
 * pushes a session header onto the one the frame keeps.
 */
u32 npusim_ft_l2_len(const struct npusim_pkt *pkt, const struct npu_rewrite *rw)
{
	bool keep = npusim_ft_l2_keeps_session(pkt, rw);
	u32 n = NPUSIM_FT_MACS + 2;

	if (keep && (rw->l2 & NPU_RW_L2_PPPOE_PUSH))
		return 0;
	if (rw->flags & NPU_RW_VLAN_PUSH)
		n += rw->l2 & NPU_RW_L2_PUSH2 ? 2 * NPUSIM_FT_TAG : NPUSIM_FT_TAG;
	n += (pkt->vlan_tags - npusim_ft_l2_pops(pkt, rw)) * NPUSIM_FT_TAG;
	if (keep || (rw->l2 & NPU_RW_L2_PPPOE_PUSH))
		n += NPUSIM_PPPOE_HLEN;
	return n;
}

static u8 *npusim_ft_put_tag(u8 *p, u16 tpid, __be16 tci)
{
	p[0] = (u8)(tpid >> 8);
	p[1] = (u8)tpid;
	memcpy(p + 2, &tci, 2);
	return p + NPUSIM_FT_TAG;
}

/* The session header a rewrite pushes before the IP packet of @pkt. */
static u8 *npusim_ft_put_pppoe(u8 *p, const struct npusim_pkt *pkt,
			       const struct npu_rewrite *rw)
{
	u16 plen = pkt->l3_len + 2;
	u16 proto = pkt->addr_len == 16 ? NPUSIM_PPP_IPV6 : NPUSIM_PPP_IP;

	p[0] = NPUSIM_PPPOE_VERTYPE;
	p[1] = 0;
	memcpy(p + 2, &rw->pppoe_sid, 2);
	p[4] = (u8)(plen >> 8);
	p[5] = (u8)plen;
	p[6] = (u8)(proto >> 8);
	p[7] = (u8)proto;
	return p + NPUSIM_PPPOE_HLEN;
}

/**
 * npusim_ft_l2_rewrite() - make a frame's L2 header as its rewrite says
 * @data: the frame, writable; when the header grows, the
 *	npusim_ft_l2_len() - @pkt->l3_off bytes before @data too
 * @pkt: the parser's result for the frame
 * @rw: the direction's rewrite, one npusim_ft_l2_len() takes
 *
 * Pops the tags and the session header the rewrite pops, pushes its
 * session header (ver/type 0x11, code 0, length the IP packet's + 2, PPP
 * protocol 0x0021 or 0x0057) and its tags outside the tags that stay, and
 * sets the MACs (npu_hw.h).  The IP packet stays where it is.
 *
 * Return: the bytes the frame grew by (negative: shrank by): it starts at
 * @data minus that now.
 */
int npusim_ft_l2_rewrite(u8 *data, const struct npusim_pkt *pkt,
			 const struct npu_rewrite *rw)
{
	u32 pops = npusim_ft_l2_pops(pkt, rw), len = npusim_ft_l2_len(pkt, rw);
	bool pppoe = npusim_ft_l2_keeps_session(pkt, rw) ||
		     (rw->l2 & NPU_RW_L2_PPPOE_PUSH);
	u8 hdr[NPUSIM_FT_L2_MAX], *p = hdr + NPUSIM_FT_MACS;
	u16 type = pkt->addr_len == 16 ? NPUSIM_ETH_P_IPV6 : NPUSIM_ETH_P_IP;

	if (!len)
		return 0;
	if (rw->flags & NPU_RW_MAC) {
		memcpy(hdr, rw->dmac, 6);
		memcpy(hdr + 6, rw->smac, 6);
	} else {
		memcpy(hdr, data, NPUSIM_FT_MACS);
	}
	if ((rw->flags & NPU_RW_VLAN_PUSH) && (rw->l2 & NPU_RW_L2_PUSH2))
		p = npusim_ft_put_tag(p, rw->l2 & NPU_RW_L2_AD2 ? NPUSIM_ETH_P_8021AD :
				      NPUSIM_ETH_P_8021Q, rw->vlan_tci2);
	if (rw->flags & NPU_RW_VLAN_PUSH)
		p = npusim_ft_put_tag(p, rw->l2 & NPU_RW_L2_AD1 ? NPUSIM_ETH_P_8021AD :
				      NPUSIM_ETH_P_8021Q, rw->vlan_tci);
	/* each tag that stays: its TPID, its TCI */
	memcpy(p, data + NPUSIM_FT_MACS + pops * NPUSIM_FT_TAG,
	       (pkt->vlan_tags - pops) * NPUSIM_FT_TAG);
	p += (pkt->vlan_tags - pops) * NPUSIM_FT_TAG;
	if (pppoe)
		type = NPUSIM_ETH_P_PPP_SES;
	p[0] = (u8)(type >> 8);
	p[1] = (u8)type;
	p += 2;
	if (npusim_ft_l2_keeps_session(pkt, rw))
		memcpy(p, data + pkt->l3_off - NPUSIM_PPPOE_HLEN, NPUSIM_PPPOE_HLEN);
	else if (pppoe)
		npusim_ft_put_pppoe(p, pkt, rw);
	memcpy(data + pkt->l3_off - len, hdr, len);
	return (int)len - pkt->l3_off;
}

/* RFC 1624 incremental update of a ones' complement checksum field. */
static void npusim_csum_replace(u8 *field, const u8 *from, const u8 *to, u32 n)
{
	u32 sum = (u32)(~((u32)field[0] << 8 | field[1]) & 0xffff);
	u32 i;

	for (i = 0; i + 1 < n; i += 2) {
		sum += (~((u32)from[i] << 8 | from[i + 1])) & 0xffff;
		sum += (u32)to[i] << 8 | to[i + 1];
	}
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	sum = ~sum & 0xffff;
	field[0] = (u8)(sum >> 8);
	field[1] = (u8)sum;
}

/*
 * Replace @n bytes at @at with @to, updating the IPv4 header checksum
 * (@ip_csum, or NULL) and the L4 checksum (@l4_csum, or NULL).  For UDP
 * (@udp) a computed zero is sent as 0xffff (RFC 768; over IPv6 a zero is
 * dropped by the receiver, RFC 8200 section 8.1); over IPv4 (@udp4) a zero
 * on input means no checksum and stays zero.
 */
static void npusim_ft_set(u8 *at, const u8 *to, u32 n, u8 *ip_csum,
			  u8 *l4_csum, bool udp, bool udp4)
{
	if (ip_csum)
		npusim_csum_replace(ip_csum, at, to, n);
	if (l4_csum && !(udp4 && !l4_csum[0] && !l4_csum[1])) {
		npusim_csum_replace(l4_csum, at, to, n);
		if (udp && !l4_csum[0] && !l4_csum[1]) {
			l4_csum[0] = 0xff;
			l4_csum[1] = 0xff;
		}
	}
	memcpy(at, to, n);
}

/**
 * npusim_ft_rewrite() - apply a direction's L3/L4 rewrite to a frame
 * @data: the frame, writable
 * @len: its length
 * @pkt: the parser's result for it (offsets, family, protocol)
 * @rw: the rewrite: NAT of addresses and ports, TTL/hop-limit decrement
 *
 * Checksums are updated incrementally (RFC 1624): the IPv4 header checksum
 * for addresses and TTL, the TCP/UDP checksum for addresses (pseudo header)
 * and ports.  The L2 header is npusim_ft_l2_rewrite()'s, after this.
 * Nothing is written outside [0, @len).
 */
void npusim_ft_rewrite(u8 *data, u32 len, const struct npusim_pkt *pkt,
		       const struct npu_rewrite *rw)
{
	bool v6 = pkt->addr_len == 16;
	u32 alen = v6 ? 16 : 4;
	u32 l3 = pkt->l3_off, l4 = pkt->l4_off;
	u32 csum_off = pkt->l4_proto == NPUSIM_IPPROTO_TCP ? 16 : 6;
	bool udp = pkt->l4_proto == NPUSIM_IPPROTO_UDP, udp4 = udp && !v6;
	u8 *ip_csum, *l4_csum = NULL;

	if (!l3 || l3 + (v6 ? 40 : 20) > len)
		return;
	ip_csum = v6 ? NULL : data + l3 + 10;
	if (l4 && l4 + csum_off + 2 <= len && (pkt->flags & NPUSIM_PKT_L4))
		l4_csum = data + l4 + csum_off;

	if (rw->flags & NPU_RW_SNAT)
		npusim_ft_set(data + l3 + (v6 ? 8 : 12), (const u8 *)rw->nat_saddr,
			      alen, ip_csum, l4_csum, udp, udp4);
	if (rw->flags & NPU_RW_DNAT)
		npusim_ft_set(data + l3 + (v6 ? 24 : 16), (const u8 *)rw->nat_daddr,
			      alen, ip_csum, l4_csum, udp, udp4);
	if (l4_csum && (rw->flags & NPU_RW_SNAT))
		npusim_ft_set(data + l4, (const u8 *)&rw->nat_sport, 2, NULL,
			      l4_csum, udp, udp4);
	if (l4_csum && (rw->flags & NPU_RW_DNAT))
		npusim_ft_set(data + l4 + 2, (const u8 *)&rw->nat_dport, 2, NULL,
			      l4_csum, udp, udp4);
	if (rw->flags & NPU_RW_TTL) {
		if (v6) {
			if (data[l3 + 7])
				data[l3 + 7]--;
		} else if (data[l3 + 8]) {
			/* TTL shares a 16-bit word with the protocol. */
			u8 to[2] = { (u8)(data[l3 + 8] - 1), data[l3 + 9] };

			npusim_ft_set(data + l3 + 8, to, 2, ip_csum, NULL, false,
				      false);
		}
	}
}
