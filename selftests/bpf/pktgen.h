/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pktgen.h - craft Ethernet frames for the classifier tests and the
 * benchmark: VLAN tags, a PPPoE session, IPv4 (options, fragments), IPv6
 * (extension header chains), TCP, UDP, ICMP, ICMPv6, with consistent
 * lengths.  Tests then
 * break single fields through the offsets returned in struct frame.
 */
#ifndef _NPUFLOW_PKTGEN_H
#define _NPUFLOW_PKTGEN_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <string.h>

#define ETH_P_IP_	0x0800
#define ETH_P_IPV6_	0x86dd
#define ETH_P_ARP_	0x0806
#define ETH_P_8021Q_	0x8100
#define ETH_P_8021AD_	0x88a8
#define ETH_P_PPP_SES_	0x8864
#define PPPOE_HLEN_	8		/* session header and PPP protocol */

struct fspec {
	int nvlan;			/* 0..3 tags */
	uint16_t tpid[3];		/* 0 -> 802.1ad outer / 802.1Q inner */
	uint16_t vid[3];
	int family;			/* 4, 6, or 0: raw @ethertype */
	uint16_t ethertype;
	uint8_t proto;			/* IPPROTO_* */
	const char *src, *dst;
	uint16_t sport, dport;		/* host order */
	uint8_t tcp_flags;
	uint8_t icmp_type, icmp_code;
	uint16_t icmp_id;
	int ip_opt_len;			/* IPv4 options, multiple of 4, <= 40 */
	uint16_t frag_off;		/* IPv4: raw host-order flags|offset */
	int next[10];			/* IPv6 extension headers in order */
	int next_n;
	uint16_t frag6;			/* IPv6 fragment header: offset<<3 | M */
	int payload;			/* L4 payload bytes */
	uint16_t pppoe_sid;		/* in this PPPoE session, 0: none */
	uint16_t ppp_proto;		/* its PPP protocol, 0: the family's */
};

struct frame {
	uint8_t b[2048];
	size_t len;
	size_t l3, l4;			/* offsets (a session's header: l3 - 8) */
};

static inline void put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v & 0xff;
}

/* Build @s into @f; returns the frame length. */
static inline size_t frame_build(const struct fspec *s, struct frame *f)
{
	static const uint8_t dmac[6] = { 0x02, 0, 0, 0, 0, 0x02 };
	static const uint8_t smac[6] = { 0x02, 0, 0, 0, 0, 0x01 };
	uint8_t *p = f->b;
	size_t off = 12, l4len = 0, i;
	uint16_t et;

	memset(f, 0, sizeof(*f));
	memcpy(p, dmac, 6);
	memcpy(p + 6, smac, 6);
	for (i = 0; i < (size_t)s->nvlan; i++) {
		uint16_t tpid = s->tpid[i] ? s->tpid[i] :
				(i == 0 && s->nvlan > 1 ? ETH_P_8021AD_ : ETH_P_8021Q_);

		put16(p + off, tpid);
		put16(p + off + 2, s->vid[i] | (3 << 13));	/* PCP 3 must not leak in */
		off += 4;
	}
	et = s->family == 4 ? ETH_P_IP_ : s->family == 6 ? ETH_P_IPV6_ : s->ethertype;
	if (s->pppoe_sid) {
		put16(p + off, ETH_P_PPP_SES_);
		p[off + 2] = 0x11;			/* version 1, type 1; code 0 */
		put16(p + off + 4, s->pppoe_sid);
		put16(p + off + 8, s->ppp_proto ? s->ppp_proto :
			       s->family == 4 ? 0x0021 : 0x0057);
		off += PPPOE_HLEN_;
	} else {
		put16(p + off, et);
	}
	off += 2;
	f->l3 = off;

	if (s->family == 0) {
		memset(p + off, 0xab, 28);		/* e.g. an ARP body */
		f->len = off + 28;
		f->l4 = f->len;
		goto done;
	}

	/* L4 first, at its offset, then the IP header around it. */
	if (s->family == 4) {
		f->l4 = off + 20 + s->ip_opt_len;
	} else {
		size_t x = off + 40;

		for (i = 0; i < (size_t)s->next_n; i++)
			x += s->next[i] == IPPROTO_FRAGMENT ? 8 :
			     s->next[i] == IPPROTO_AH ? 16 : 16;
		f->l4 = x;
	}
	{
		uint8_t *l4 = p + f->l4;

		switch (s->proto) {
		case IPPROTO_TCP:
			put16(l4, s->sport);
			put16(l4 + 2, s->dport);
			l4[4] = 0x11;			/* seq */
			l4[12] = 5 << 4;		/* doff */
			l4[13] = s->tcp_flags;
			put16(l4 + 14, 65535);
			l4len = 20;
			break;
		case IPPROTO_UDP:
			put16(l4, s->sport);
			put16(l4 + 2, s->dport);
			put16(l4 + 4, 8 + s->payload);
			l4len = 8;
			break;
		case IPPROTO_ICMP:
		case IPPROTO_ICMPV6:
			l4[0] = s->icmp_type;
			l4[1] = s->icmp_code;
			put16(l4 + 4, s->icmp_id);
			put16(l4 + 6, 1);
			l4len = 8;
			break;
		default:
			l4len = 0;
			break;
		}
		for (i = 0; i < (size_t)s->payload; i++)
			l4[l4len + i] = (uint8_t)i;
		l4len += s->payload;
	}

	if (s->family == 4) {
		uint8_t *ip = p + off;
		size_t hl = 20 + s->ip_opt_len;

		ip[0] = 0x40 | (hl / 4);
		put16(ip + 2, hl + l4len);
		put16(ip + 4, 0x1234);
		put16(ip + 6, s->frag_off);
		ip[8] = 64;
		ip[9] = s->proto;
		inet_pton(AF_INET, s->src, ip + 12);
		inet_pton(AF_INET, s->dst, ip + 16);
		for (i = 20; i < hl; i++)
			ip[i] = 1;			/* NOP options */
	} else {
		uint8_t *ip = p + off, *h = ip + 40;
		uint8_t nh;

		ip[0] = 0x60;
		put16(ip + 4, f->l4 - off - 40 + l4len);
		ip[7] = 64;
		inet_pton(AF_INET6, s->src, ip + 8);
		inet_pton(AF_INET6, s->dst, ip + 24);
		nh = s->next_n ? s->next[0] : s->proto;
		ip[6] = nh;
		for (i = 0; i < (size_t)s->next_n; i++) {
			uint8_t this = s->next[i];

			h[0] = i + 1 < (size_t)s->next_n ? s->next[i + 1] : s->proto;
			if (this == IPPROTO_FRAGMENT) {
				put16(h + 2, s->frag6);
				h += 8;
			} else if (this == IPPROTO_AH) {
				h[1] = 2;		/* (2 + 2) * 4 = 16 bytes */
				h += 16;
			} else {
				h[1] = 1;		/* (1 + 1) * 8 = 16 bytes */
				h[2] = 1;		/* PadN */
				h[3] = 12;
				h += 16;
			}
		}
	}
	f->len = f->l4 + l4len;
done:
	if (s->pppoe_sid)		/* the PPP payload: protocol and packet */
		put16(p + f->l3 - 4, f->len - f->l3 + 2);
	return f->len;
}

#endif
