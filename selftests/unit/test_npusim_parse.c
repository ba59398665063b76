// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the model's frame parser and Toeplitz hash
 * (kernel/npusim/parse_pure.c, included directly; the fast path's table,
 * ft_pure.c, for what the parse means to a microflow lookup).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "../../kernel/npusim/parse_pure.c"
#include "../../kernel/npusim/ft_pure.c"
#include "../../kernel/npusim/rewrite_pure.c"
#include "case_table.h"

/* The Microsoft RSS verification key. */
static const u8 ms_key[NPU_RSS_KEY_LEN] = {
	0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2,
	0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3, 0x8f, 0xb0,
	0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4,
	0x77, 0xcb, 0x2d, 0xa3, 0x80, 0x30, 0xf2, 0x0c,
	0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

/* ---- frame builder ------------------------------------------------ */

struct fb {
	u8 b[2048];
	u32 len;
	u32 l3;
};

static void put16(u8 *p, u16 v)
{
	p[0] = v >> 8;
	p[1] = v & 0xff;
}

static void fb_eth(struct fb *f, int mcast, u16 type)
{
	memset(f, 0, sizeof(*f));
	f->b[0] = mcast ? 0x01 : 0x02;
	f->b[5] = 1;
	f->b[6] = 0x02;
	f->b[11] = 2;
	put16(f->b + 12, type);
	f->len = 14;
}

static void fb_vlan(struct fb *f, u16 tpid, u16 tci, u16 type)
{
	/* replace the ethertype with a tag */
	put16(f->b + f->len - 2, tpid);
	put16(f->b + f->len, tci);
	put16(f->b + f->len + 2, type);
	f->len += 4;
}

static void ip4_csum(u8 *p, u32 ihl)
{
	u32 sum = 0, i;

	p[10] = 0;
	p[11] = 0;
	for (i = 0; i < ihl; i += 2)
		sum += (u32)(p[i] << 8 | p[i + 1]);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	put16(p + 10, (u16)~sum);
}

/* IPv4 header + L4 of @l4len bytes (zeroed); returns L4 pointer. */
static u8 *fb_ipv4(struct fb *f, const u8 s[4], const u8 d[4], u8 proto,
		   u32 optlen, u32 l4len, u8 ttl, u16 frag)
{
	u8 *p = f->b + f->len;
	u32 ihl = 20 + optlen;

	f->l3 = f->len;
	p[0] = 0x40 | (ihl / 4);
	put16(p + 2, (u16)(ihl + l4len));
	put16(p + 6, frag);
	p[8] = ttl;
	p[9] = proto;
	memcpy(p + 12, s, 4);
	memcpy(p + 16, d, 4);
	if (optlen)
		memset(p + 20, 1, optlen);	/* NOPs */
	ip4_csum(p, ihl);
	f->len += ihl + l4len;
	return p + ihl;
}

static u8 *fb_ipv6(struct fb *f, const u8 s[16], const u8 d[16], u8 nh,
		   u32 plen, u8 hop)
{
	u8 *p = f->b + f->len;

	f->l3 = f->len;
	p[0] = 0x60;
	put16(p + 4, (u16)plen);
	p[6] = nh;
	p[7] = hop;
	memcpy(p + 8, s, 16);
	memcpy(p + 24, d, 16);
	f->len += 40 + plen;
	return p + 40;
}

static void tcp_hdr(u8 *p, u16 sp, u16 dp, u8 flags)
{
	put16(p, sp);
	put16(p + 2, dp);
	p[12] = 5 << 4;
	p[13] = flags;
}

static void udp_hdr(u8 *p, u16 sp, u16 dp, u16 ulen)
{
	put16(p, sp);
	put16(p + 2, dp);
	put16(p + 4, ulen);
}

static const u8 a4[4] = { 10, 0, 0, 1 }, b4[4] = { 10, 0, 0, 2 };
static const u8 a6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
static const u8 b6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 };

static u8 parse(struct fb *f, struct npusim_pkt *pkt)
{
	return npusim_parse(f->b, f->len, f->len, pkt);
}

/* ---- IPv4 and IPv6 frames: a table ----------------------------------- */

#define L3	14		/* an untagged frame's IP header */
#define L4_4	(L3 + 20)	/* the L4 header behind an IPv4 header without options */
#define L4_6	(L3 + 40)	/* behind an IPv6 header */

enum { P_NONE, P_TCP, P_UDP };

/**
 * struct pcase - an untagged frame and what the parser makes of it
 * @name: the case
 * @type: the ethertype (the IP version's when 0)
 * @mcast: the destination MAC is a group's
 * @ip: 4 or 6: an IP header, fb_ipv4()'s or fb_ipv6()'s; 0: none
 * @proto: its protocol or next header
 * @optlen: IPv4: the options' bytes
 * @l4len: IPv4: the bytes after the header; IPv6: the payload length
 * @ttl: the TTL or hop limit
 * @frag: IPv4: flags and fragment offset
 * @dst: the destination address (b4 or b6 when NULL)
 * @chain: IPv6: this many 8-byte extension headers at the payload's
 *	start, each with next header 60 (destination options)
 * @l4: P_TCP or P_UDP: that header, @l4_at bytes into the L4 bytes
 * @l4_at: see @l4
 * @sport: its source port
 * @dport: its destination port
 * @tcp_flags: a TCP header's flags
 * @ulen: a UDP header's length
 * @edit: bytes then written into the frame (offsets from its start)
 * @fix_csum: the IPv4 header's checksum computed again after @edit
 * @bad_csum: the IPv4 header's checksum then flipped
 * @len: the frame cut or padded to this many bytes (0: as built)
 * @caplen: this many of them captured (0: all)
 * @reason: the parse's reason
 * @want: fields of the parse's struct npusim_pkt, and their values
 * @set: NPUSIM_PKT_* flags it sets
 * @clear: NPUSIM_PKT_* flags it leaves clear
 * @addrs: its addresses are a4 and b4
 */
struct pcase {
	const char *name;
	u16 type;
	bool mcast;
	u8 ip;
	u8 proto;
	u8 optlen;
	u16 l4len;
	u8 ttl;
	u16 frag;
	const u8 *dst;
	u8 chain;
	u8 l4;
	u8 l4_at;
	u16 sport, dport;
	u8 tcp_flags;
	u16 ulen;
	struct case_field edit[4];
	bool fix_csum, bad_csum;
	u32 len, caplen;
	u8 reason;
	struct case_field want[8];
	u8 set, clear;
	bool addrs;
};

#define V4(pr, opt, n, t, fr)	.ip = 4, .proto = (pr), .optlen = (opt), .l4len = (n), \
				.ttl = (t), .frag = (fr)
#define V6(nh, plen, hop)	.ip = 6, .proto = (nh), .l4len = (plen), .ttl = (hop)
#define TCPH(s, d, fl)		.l4 = P_TCP, .sport = (s), .dport = (d), .tcp_flags = (fl)
#define UDPH(s, d, ul)		.l4 = P_UDP, .sport = (s), .dport = (d), .ulen = (ul)
#define B8(off, v)		{ (off), 1, CF_HOST, (v) }
#define B16(off, v)		{ (off), 2, CF_BE, (v) }
#define PKT(f, v)		CASE_FIELD(struct npusim_pkt, f, CF_HOST, v)
#define MISS			.reason = NPU_PUNT_FLOW_MISS
#define EXCEPTION		.reason = NPU_PUNT_EXCEPTION
#define MALFORMED		.reason = NPU_PUNT_MALFORMED

static const u8 mc4[4] = { 224, 0, 0, 251 };
static const u8 bc4[4] = { 255, 255, 255, 255 };
static const u8 mc6[16] = { 0xff, 0x02, [15] = 1 };

static const struct pcase pcases[] = {
	{ "TCP over IPv4", V4(6, 0, 20 + 100, 64, 0x4000 /* DF */), TCPH(1234, 80, 0x10 /* ACK */),
	  MISS, .want = { PKT(l3_off, 14), PKT(l4_off, 34), PKT(l4_proto, 6), PKT(sport, 1234),
	  PKT(dport, 80), PKT(addr_len, 4), PKT(reason, NPU_PUNT_FLOW_MISS) },
	  .set = NPUSIM_PKT_IPV4 | NPUSIM_PKT_L4, .addrs = true },
	/* the TCP flags the host must see */
	{ "TCP SYN", V4(6, 0, 20, 64, 0), TCPH(1, 2, 0x02), .reason = NPU_PUNT_TCP_FLAGS },
	{ "TCP SYN ACK", V4(6, 0, 20, 64, 0), TCPH(1, 2, 0x12), .reason = NPU_PUNT_TCP_FLAGS },
	{ "TCP FIN ACK", V4(6, 0, 20, 64, 0), TCPH(1, 2, 0x11), .reason = NPU_PUNT_TCP_FLAGS },
	{ "TCP RST", V4(6, 0, 20, 64, 0), TCPH(1, 2, 0x04), .reason = NPU_PUNT_TCP_FLAGS },
	{ "TCP RST ACK", V4(6, 0, 20, 64, 0), TCPH(1, 2, 0x14), .reason = NPU_PUNT_TCP_FLAGS },
	{ "UDP over IPv4, padded to the minimum frame: the trailer is fine",
	  V4(17, 0, 8 + 10, 64, 0), UDPH(53, 5353, 18), .len = 60, MISS,
	  .want = { PKT(sport, 53), PKT(dport, 5353), PKT(l3_len, 20 + 18) } },
	{ "ARP broadcast: non-IP wins", .type = 0x0806, .mcast = true, .len = 42,
	  .reason = NPU_PUNT_NON_IP },
	{ "LLDP", .type = 0x88cc, .mcast = true, .len = 60, .reason = NPU_PUNT_NON_IP,
	  .want = { PKT(addr_len, 0) } },
	/* multicast, broadcast */
	{ "IPv4 to a group MAC", .mcast = true, V4(17, 0, 8, 64, 0), UDPH(1, 2, 8),
	  .reason = NPU_PUNT_MCAST },
	{ "IPv4 to a group", V4(17, 0, 8, 64, 0), .dst = mc4, UDPH(1, 2, 8),
	  .reason = NPU_PUNT_MCAST },
	{ "IPv4 broadcast", V4(17, 0, 8, 64, 0), .dst = bc4, UDPH(1, 2, 8),
	  .reason = NPU_PUNT_MCAST },
	{ "IPv6 to a group", V6(58, 8, 255), .dst = mc6, .reason = NPU_PUNT_MCAST },
	/* IPv4's exceptions */
	{ "fragment (MF)", V4(6, 0, 20, 64, 0x2000), TCPH(1, 2, 0x10), EXCEPTION,
	  .set = NPUSIM_PKT_FRAG },
	{ "non-first fragment: no L4 header at all", V4(6, 0, 4, 64, 0x0010), EXCEPTION,
	  .clear = NPUSIM_PKT_L4 },
	{ "options", V4(6, 4, 20, 64, 0), TCPH(1, 2, 0x10), EXCEPTION,
	  .want = { PKT(l4_off, 14 + 24) }, .set = NPUSIM_PKT_IPOPT },
	{ "TTL 1", V4(6, 0, 20, 1, 0), TCPH(1, 2, 0x10), EXCEPTION },
	{ "TTL 0", V4(6, 0, 20, 0, 0), TCPH(1, 2, 0x10), EXCEPTION },
	{ "TTL 2 is fine", V4(6, 0, 20, 2, 0), TCPH(1, 2, 0x10), MISS },
	{ "ICMP", V4(1, 0, 8, 64, 0), EXCEPTION, .want = { PKT(l4_proto, 1) } },
	{ "GRE", V4(47, 0, 8, 64, 0), EXCEPTION },
	/* malformed IPv4 */
	{ "bad version", V4(17, 0, 8, 64, 0), .edit = { B8(L3, 0x55) }, MALFORMED },
	{ "IHL < 5", V4(17, 0, 8, 64, 0), .edit = { B8(L3, 0x44) }, MALFORMED },
	{ "total length beyond the frame", V4(17, 0, 8, 64, 0), UDPH(1, 2, 8),
	  .edit = { B16(L3 + 2, 200) }, .fix_csum = true, MALFORMED },
	{ "total length shorter than the header", V4(17, 0, 8, 64, 0), UDPH(1, 2, 8),
	  .edit = { B16(L3 + 2, 19) }, .fix_csum = true, MALFORMED },
	{ "bad header checksum", V4(17, 0, 8, 64, 0), UDPH(1, 2, 8), .bad_csum = true,
	  MALFORMED },
	{ "truncated IP header", .type = 0x0800, .len = 14 + 19, MALFORMED },
	{ "options beyond the frame", V4(17, 0, 0, 64, 0), .edit = { B8(L3, 0x4f) },
	  MALFORMED },
	/* bytes after the IP packet do not count */
	{ "TCP header cut by the IP total length", V4(6, 0, 10, 64, 0), .len = 14 + 30 + 40,
	  MALFORMED },
	{ "TCP data offset < 5", V4(6, 0, 20, 64, 0), TCPH(1, 2, 0x10),
	  .edit = { B8(L4_4 + 12, 4 << 4) }, MALFORMED },
	{ "TCP data offset beyond the packet", V4(6, 0, 20, 64, 0), TCPH(1, 2, 0x10),
	  .edit = { B8(L4_4 + 12, 6 << 4) }, MALFORMED },
	{ "UDP length short", V4(17, 0, 8, 64, 0), UDPH(1, 2, 7), MALFORMED },
	{ "UDP length long", V4(17, 0, 8, 64, 0), UDPH(1, 2, 9), MALFORMED },
	{ "Ethernet header alone is short", V4(17, 0, 8, 64, 0), UDPH(1, 2, 9), .len = 13,
	  MALFORMED },
	/* IPv6 */
	{ "TCP over IPv6", V6(6, 20 + 5, 64), TCPH(443, 50000, 0x18), MISS,
	  .want = { PKT(l4_off, 54), PKT(addr_len, 16), PKT(sport, 443), PKT(l3_len, 40 + 25) },
	  .set = NPUSIM_PKT_IPV6 },
	{ "hop limit 1", V6(6, 20 + 5, 64), TCPH(443, 50000, 0x18), .edit = { B8(L3 + 7, 1) },
	  EXCEPTION },
	{ "payload beyond the frame", V6(6, 20 + 5, 64), TCPH(443, 50000, 0x18),
	  .edit = { B16(L3 + 4, 100) }, MALFORMED },
	{ "IPv6, bad version", V6(6, 20 + 5, 64), TCPH(443, 50000, 0x18),
	  .edit = { B8(L3, 0x40) }, MALFORMED },
	{ "truncated fixed header", .type = 0x86dd, .len = 14 + 39, MALFORMED },
	{ "ICMPv6 unicast", V6(58, 8, 64), EXCEPTION, .want = { PKT(l4_proto, 58) } },
	/* IPv6's extension headers */
	{ "hop-by-hop (8) + destination options (16) + UDP", V6(0, 8 + 16 + 8, 64),
	  .edit = { B8(L4_6, 60), B8(L4_6 + 1, 0), B8(L4_6 + 8, 17), B8(L4_6 + 9, 1) },
	  UDPH(1000, 2000, 8), .l4_at = 24, EXCEPTION,
	  .want = { PKT(l4_proto, 17), PKT(l4_off, 54 + 24), PKT(sport, 1000) },
	  .set = NPUSIM_PKT_IPOPT | NPUSIM_PKT_L4 },
	{ "fragment header, first fragment with M set", V6(44, 8 + 8, 64),
	  .edit = { B8(L4_6, 17), B16(L4_6 + 2, 0x0001) }, EXCEPTION,
	  .set = NPUSIM_PKT_FRAG, .clear = NPUSIM_PKT_L4 },
	{ "extension header running past the payload", V6(0, 8, 64),
	  .edit = { B8(L4_6, 17), B8(L4_6 + 1, 1 /* 16 bytes, the payload has 8 */) },
	  MALFORMED },
	{ "a chain longer than the walk: exception, not a hang", V6(60, 8 * 12, 64),
	  .chain = 12, EXCEPTION },
	{ "empty payload, no next header", V6(59, 0, 64), EXCEPTION },
	{ "empty payload otherwise: a jumbogram we do not carry", V6(6, 0, 64), MALFORMED },
	/* a header beyond the captured bytes but inside the frame: not inspected */
	{ "40 bytes captured", V4(6, 0, 20 + 1000, 64, 0), TCPH(1, 2, 0x10), .caplen = 40,
	  EXCEPTION },
	{ "54 bytes captured", V4(6, 0, 20 + 1000, 64, 0), TCPH(1, 2, 0x10), .caplen = 54,
	  MISS },
	{ "20 bytes captured", V4(6, 0, 20 + 1000, 64, 0), TCPH(1, 2, 0x10), .caplen = 20,
	  EXCEPTION },
	{ "10 bytes captured", V4(6, 0, 20 + 1000, 64, 0), TCPH(1, 2, 0x10), .caplen = 10,
	  EXCEPTION },
};

/* The frame of case @c. */
static void fb_pcase(struct fb *f, const struct pcase *c)
{
	u16 type = c->type ? c->type : c->ip == 6 ? 0x86dd : 0x0800;
	u8 *l4 = NULL;
	u32 i;

	fb_eth(f, c->mcast, type);
	if (c->ip == 4)
		l4 = fb_ipv4(f, a4, c->dst ? c->dst : b4, c->proto, c->optlen, c->l4len,
			     c->ttl, c->frag);
	else if (c->ip == 6)
		l4 = fb_ipv6(f, a6, c->dst ? c->dst : b6, c->proto, c->l4len, c->ttl);
	for (i = 0; i < c->chain; i++)
		l4[8 * i] = 60;
	if (c->l4 == P_TCP)
		tcp_hdr(l4 + c->l4_at, c->sport, c->dport, c->tcp_flags);
	else if (c->l4 == P_UDP)
		udp_hdr(l4 + c->l4_at, c->sport, c->dport, c->ulen);
	case_fields_set(f->b, c->edit, ARRAY_SIZE(c->edit));
	if (c->fix_csum)
		ip4_csum(f->b + f->l3, 20);
	if (c->bad_csum)
		f->b[f->l3 + 10] ^= 0x55;
	if (c->len)
		f->len = c->len;
}

static void test_pcase(void **state)
{
	const struct pcase *c = *state;
	struct npusim_pkt pkt;
	struct fb f;

	fb_pcase(&f, c);
	assert_int_equal(npusim_parse(f.b, c->caplen ? c->caplen : f.len, f.len, &pkt),
			 c->reason);
	case_fields_check(&pkt, c->want, ARRAY_SIZE(c->want));
	assert_int_equal(pkt.flags & c->set, c->set);
	assert_int_equal(pkt.flags & c->clear, 0);
	if (c->addrs) {
		assert_memory_equal(pkt.saddr, a4, 4);
		assert_memory_equal(pkt.daddr, b4, 4);
	}
}

/* ---- VLAN tags: a table of frames ----------------------------------- */

/*
 * struct vcase.l3: what the tags (and the session) carry: a TCP ACK 1 > 2
 * over IPv4, a UDP datagram 7 > 8 over IPv6, ARP (60 bytes), or 10 bytes
 * of a PPP control protocol (an LCP echo request).
 */
enum { L3_TCP4, L3_UDP6, L3_ARP, L3_CTRL };

/**
 * struct vkey - the microflow key's L2 of a frame the parser keys
 * @l2: NPU_KEY_L2_*
 * @vlan: the outer VID
 * @inner: the inner VID
 * @sid: the PPPoE session
 */
struct vkey {
	u8 l2;
	u16 vlan, inner, sid;
};

/**
 * struct ppp - a case's PPPoE header, right unless told otherwise
 * @sid: session id; the frame has a header when it or any field is set
 * @type: its ethertype (NPUSIM_ETH_P_PPP_SES when 0)
 * @vertype: version and type (0x11 when 0)
 * @code: code
 * @proto: PPP protocol (the packet's, or LCP's for L3_CTRL, when 0)
 * @dlen: added to the right length field
 * @cut: the header's bytes in the frame, when fewer than 8
 */
struct ppp {
	u16 sid;
	u16 type;
	u8 vertype;
	u8 code;
	u16 proto;
	int dlen;
	u8 cut;
};

/**
 * struct vcase - a frame behind VLAN tags and what the parser makes of it
 * @name: the case
 * @ntags: its tags (0 to 3), outer first
 * @tpid: their TPIDs
 * @tci: their TCIs
 * @ppp: the PPPoE header after the tags
 * @l3: L3_*
 * @bad_l4: the TCP header's data offset is 4 (malformed)
 * @syn: the TCP header's flags are SYN
 * @ttl: the IP TTL or hop limit (64 when 0)
 * @mcast: the destination MAC is a group's
 * @pad: this many bytes of Ethernet padding after the packet
 * @len: the frame cut to this many bytes (0: whole)
 * @caplen: this many bytes of it captured (0: all)
 * @reason: the parse's reason
 * @tags: pkt.vlan_tags, and the outer (and inner) tag's TPID and TCI as
 *	the frame's, when the parse got past the tags
 * @l3_off: pkt.l3_off of an IP frame parsed past the tags
 * @key: for NPU_PUNT_FLOW_MISS: the key's L2
 */
struct vcase {
	const char *name;
	u8 ntags;
	u16 tpid[3], tci[3];
	struct ppp ppp;
	u8 l3;
	bool bad_l4, syn;
	u8 ttl;
	bool mcast;
	u32 pad;
	u32 len, caplen;
	u8 reason;
	u8 tags;
	u16 l3_off;
	struct vkey key;
};

#define TAGS1(p, t)		.ntags = 1, .tpid = { p }, .tci = { t }
#define TAGS2(p, t, q, u)	.ntags = 2, .tpid = { p, q }, .tci = { t, u }
static const struct vcase vcases[] = {
	{ "untagged", MISS, .l3_off = 14 },
	{ "802.1Q VLAN 100, PCP 1", TAGS1(0x8100, 0x2064), MISS, .tags = 1, .l3_off = 18,
	  .key = { 0, 100 } },
	{ "802.1Q VLAN 1", TAGS1(0x8100, 1), MISS, .tags = 1, .l3_off = 18, .key = { 0, 1 } },
	{ "802.1Q VLAN 4095", TAGS1(0x8100, 0xfff), MISS, .tags = 1, .l3_off = 18,
	  .key = { 0, 4095 } },
	{ "802.1ad VLAN 5", TAGS1(0x88a8, 5), MISS, .tags = 1, .l3_off = 18,
	  .key = { NPU_KEY_L2_AD, 5 } },
	{ "802.1ad 5, 802.1Q 7, IPv6", TAGS2(0x88a8, 5, 0x8100, 7), .l3 = L3_UDP6, MISS,
	  .tags = 2, .l3_off = 22, .key = { NPU_KEY_L2_AD, 5, 7 } },
	{ "802.1Q 5, 802.1Q 9", TAGS2(0x8100, 5, 0x8100, 9), MISS, .tags = 2, .l3_off = 22,
	  .key = { 0, 5, 9 } },
	{ "802.1Q 4095, 802.1Q 1, PCPs", TAGS2(0x8100, 0xefff, 0x8100, 0x2001), MISS,
	  .tags = 2, .l3_off = 22, .key = { 0, 4095, 1 } },
	/* what no key stands for: a priority tag, an inner 802.1ad tag */
	{ "priority tag, PCP 5", TAGS1(0x8100, 0xa000), EXCEPTION, .tags = 1, .l3_off = 18 },
	{ "priority tag, PCP 0", TAGS1(0x8100, 0), EXCEPTION, .tags = 1, .l3_off = 18 },
	{ "802.1ad priority tag", TAGS1(0x88a8, 0x2000), EXCEPTION, .tags = 1, .l3_off = 18 },
	{ "outer priority tag, inner VLAN 9", TAGS2(0x8100, 0, 0x8100, 9), EXCEPTION,
	  .tags = 2, .l3_off = 22 },
	{ "VLAN 5, inner priority tag", TAGS2(0x8100, 5, 0x8100, 0x6000), EXCEPTION,
	  .tags = 2, .l3_off = 22 },
	{ "802.1Q 5, inner 802.1ad 9", TAGS2(0x8100, 5, 0x88a8, 9), EXCEPTION, .tags = 2,
	  .l3_off = 22 },
	{ "802.1ad 5, inner 802.1ad 9", TAGS2(0x88a8, 5, 0x88a8, 9), EXCEPTION, .tags = 2,
	  .l3_off = 22 },
	/* three tags: not inspected */
	{ "three tags", .ntags = 3, .tpid = { 0x88a8, 0x8100, 0x8100 }, .tci = { 1, 2, 3 },
	  EXCEPTION },
	/* still parsed: what outranks EXCEPTION still does, the ports for RSS */
	{ "priority tag, TCP data offset 4", TAGS1(0x8100, 0xa000), .bad_l4 = true, MALFORMED,
	  .tags = 1, .l3_off = 18 },
	{ "inner 802.1ad, TCP data offset 4", TAGS2(0x8100, 5, 0x88a8, 9), .bad_l4 = true,
	  MALFORMED, .tags = 2, .l3_off = 22 },
	{ "802.1ad 5, TCP data offset 4", TAGS1(0x88a8, 5), .bad_l4 = true, MALFORMED,
	  .tags = 1, .l3_off = 18 },
	{ "two tags, TCP data offset 4", TAGS2(0x88a8, 5, 0x8100, 9), .bad_l4 = true,
	  MALFORMED, .tags = 2, .l3_off = 22 },
	/* non-IP first */
	{ "802.1Q-tagged ARP", TAGS1(0x8100, 9), .l3 = L3_ARP, .reason = NPU_PUNT_NON_IP,
	  .tags = 1 },
	{ "802.1ad-tagged ARP", TAGS1(0x88a8, 9), .l3 = L3_ARP, .reason = NPU_PUNT_NON_IP,
	  .tags = 1 },
	{ "ARP under a priority tag", TAGS1(0x8100, 0), .l3 = L3_ARP,
	  .reason = NPU_PUNT_NON_IP, .tags = 1 },
	{ "ARP under two tags", TAGS2(0x88a8, 5, 0x8100, 9), .l3 = L3_ARP,
	  .reason = NPU_PUNT_NON_IP, .tags = 2 },
	/* tags cut by the frame's end (malformed) or the capture's (not inspected) */
	{ "tag cut", TAGS1(0x8100, 5), .len = 16, MALFORMED },
	{ "inner tag cut", TAGS2(0x88a8, 5, 0x8100, 9), .len = 20, MALFORMED },
	{ "inner tag not captured", TAGS2(0x88a8, 5, 0x8100, 9), .caplen = 20, EXCEPTION },
	{ "two tags captured, no IP header", TAGS2(0x88a8, 5, 0x8100, 9), .caplen = 22,
	  EXCEPTION, .tags = 2 },

	/* ---- PPPoE: IP in a session is keyed with its session id ---- */
	{ "IPv4 in session 1", .ppp = { 1 }, MISS, .l3_off = 22, .key = { .sid = 1 } },
	{ "IPv6 in session 0xfffe", .ppp = { 0xfffe }, .l3 = L3_UDP6, MISS, .l3_off = 22,
	  .key = { .sid = 0xfffe } },
	{ "session 5 in VLAN 7", TAGS1(0x8100, 7), .ppp = { 5 }, MISS, .tags = 1,
	  .l3_off = 26, .key = { 0, 7, 0, 5 } },
	{ "session 5 in 802.1ad 100 + 802.1Q 200", TAGS2(0x88a8, 100, 0x8100, 200),
	  .ppp = { 5 }, .l3 = L3_UDP6, MISS, .tags = 2, .l3_off = 30,
	  .key = { NPU_KEY_L2_AD, 100, 200, 5 } },
	{ "session padded to the minimum frame", .ppp = { 5 }, .pad = 6, MISS, .l3_off = 22,
	  .key = { .sid = 5 } },
	/* the IP packet's own reasons */
	{ "TCP SYN in a session", .ppp = { 5 }, .syn = true, .reason = NPU_PUNT_TCP_FLAGS,
	  .l3_off = 22, .key = { .sid = 5 } },
	{ "TTL 1 in a session", .ppp = { 5 }, .ttl = 1, EXCEPTION, .l3_off = 22,
	  .key = { .sid = 5 } },
	{ "IPv4 multicast in a session", .ppp = { 5 }, .mcast = true,
	  .reason = NPU_PUNT_MCAST, .l3_off = 22, .key = { .sid = 5 } },
	{ "TCP data offset 4 in a session", .ppp = { 5 }, .bad_l4 = true, MALFORMED,
	  .l3_off = 22, .key = { .sid = 5 } },
	{ "PPP protocol IPv4, an IPv6 packet", .ppp = { 5, .proto = NPUSIM_PPP_IP },
	  .l3 = L3_UDP6, MALFORMED, .key = { .sid = 5 } },
	{ "PPP protocol IPv6, an IPv4 packet", .ppp = { 5, .proto = NPUSIM_PPP_IPV6 },
	  MALFORMED, .key = { .sid = 5 } },
	/* the host's: discovery, control protocols, reserved sessions, other headers */
	{ "discovery (PADI, broadcast)", .ppp = { 0, .type = NPUSIM_ETH_P_PPP_DISC, .code = 9 },
	  .l3 = L3_CTRL, .mcast = true, EXCEPTION },
	{ "discovery in VLAN 7", TAGS1(0x8100, 7),
	  .ppp = { 1, .type = NPUSIM_ETH_P_PPP_DISC, .code = 0xa7 }, .l3 = L3_CTRL, EXCEPTION,
	  .tags = 1 },
	{ "LCP echo request", .ppp = { 5 }, .l3 = L3_CTRL, EXCEPTION, .key = { .sid = 5 } },
	{ "LCP to a group MAC", .ppp = { 5 }, .l3 = L3_CTRL, .mcast = true, EXCEPTION,
	  .key = { .sid = 5 } },
	{ "IPCP", .ppp = { 5, .proto = 0x8021 }, .l3 = L3_CTRL, EXCEPTION, .key = { .sid = 5 } },
	{ "IPV6CP", .ppp = { 5, .proto = 0x8057 }, .l3 = L3_CTRL, EXCEPTION,
	  .key = { .sid = 5 } },
	{ "PPP protocol 0x002b (IPX)", .ppp = { 5, .proto = 0x002b }, EXCEPTION,
	  .key = { .sid = 5 } },
	{ "session id 0", .ppp = { 0, .vertype = 0x11 }, EXCEPTION },
	{ "session id 0xffff", .ppp = { 0xffff }, EXCEPTION, .key = { .sid = 0xffff } },
	{ "session id 0xffff in VLAN 7", TAGS1(0x8100, 7), .ppp = { 0xffff }, EXCEPTION,
	  .tags = 1, .key = { .sid = 0xffff } },
	{ "version 2", .ppp = { 5, .vertype = 0x21 }, EXCEPTION, .key = { .sid = 5 } },
	{ "type 2", .ppp = { 5, .vertype = 0x12 }, EXCEPTION, .key = { .sid = 5 } },
	{ "code 0x09 (PADI's) in a session", .ppp = { 5, .code = 9 }, EXCEPTION,
	  .key = { .sid = 5 } },
	/* a length field that disagrees with the frame: malformed, first */
	{ "length 1 short", .ppp = { 5, .dlen = -1 }, MALFORMED, .key = { .sid = 5 } },
	{ "length 2 long, in the padding", .ppp = { 5, .dlen = 2 }, .pad = 2, MALFORMED,
	  .key = { .sid = 5 } },
	{ "length past the frame", .ppp = { 5, .dlen = 1 }, MALFORMED, .key = { .sid = 5 } },
	{ "IPv6, length 2 short", .ppp = { 5, .dlen = -2 }, .l3 = L3_UDP6, MALFORMED,
	  .key = { .sid = 5 } },
	{ "length 1: no PPP protocol", .ppp = { 5, .dlen = -41 }, MALFORMED,
	  .key = { .sid = 5 } },
	{ "length 0", .ppp = { 5, .dlen = -42 }, MALFORMED, .key = { .sid = 5 } },
	{ "LCP, length past the frame", .ppp = { 5, .dlen = 40 }, .l3 = L3_CTRL, MALFORMED,
	  .key = { .sid = 5 } },
	{ "session 0, length past the frame", .ppp = { 0, .vertype = 0x11, .dlen = 40 },
	  .l3 = L3_CTRL, MALFORMED },
	{ "length 1 short, TTL 1 (exception)", .ppp = { 5, .dlen = -1 }, .ttl = 1,
	  MALFORMED, .key = { .sid = 5 } },
	/* short frames and short captures */
	{ "session header cut", .ppp = { 5, .cut = 7 }, MALFORMED },
	{ "session header cut after the tag", TAGS1(0x8100, 7), .ppp = { 5, .cut = 1 },
	  MALFORMED, .tags = 1 },
	{ "session header not captured", .ppp = { 5 }, .caplen = 21, EXCEPTION },
	{ "IP header not captured", .ppp = { 5 }, .caplen = 22 + 19, EXCEPTION,
	  .key = { .sid = 5 } },
	{ "TCP header not captured", .ppp = { 5 }, .caplen = 22 + 20 + 19, EXCEPTION,
	  .l3_off = 22, .key = { .sid = 5 } },
	/* the length is known with the IP header: it still tells */
	{ "TCP header not captured, length 1 short", .ppp = { 5, .dlen = -1 },
	  .caplen = 22 + 20 + 19, MALFORMED, .l3_off = 22, .key = { .sid = 5 } },
	{ "IP packet cut, the length its", .ppp = { 5 }, .len = 22 + 30, MALFORMED,
	  .key = { .sid = 5 } },
};

/* Ethernet (a group destination if @mcast), @ntags tags, then @type. */
static void fb_tags(struct fb *f, int mcast, int ntags, const u16 *tpid,
		    const u16 *tci, u16 type)
{
	int i;

	fb_eth(f, mcast, ntags ? tpid[0] : type);
	for (i = 0; i < ntags; i++)
		fb_vlan(f, tpid[i], tci[i], i + 1 < ntags ? tpid[i + 1] : type);
}

/* A PPPoE session header of @sid and @proto; its length is fb_pppoe_len()'s. */
static u32 fb_pppoe(struct fb *f, u16 sid, u16 proto)
{
	u8 *p = f->b + f->len;

	p[0] = 0x11;
	p[1] = 0;
	put16(p + 2, sid);
	put16(p + 6, proto);
	f->len += 8;
	return f->len - 8;
}

/* The length field of the header at @hdr: to the frame's end, + @dlen. */
static void fb_pppoe_len(struct fb *f, u32 hdr, int dlen)
{
	put16(f->b + hdr + 4, (u16)((int)(f->len - hdr - 6) + dlen));
}

static bool vcase_ppp(const struct vcase *c)
{
	return c->ppp.sid || c->ppp.type || c->ppp.vertype || c->ppp.code ||
	       c->ppp.proto || c->ppp.dlen || c->ppp.cut;
}

/* The frame of case @c. */
static void fb_vcase(struct fb *f, const struct vcase *c)
{
	static const u8 echo[10] = { 9, 1, 0, 8, 0x12, 0x34, 0x56, 0x78 };
	u16 type = c->l3 == L3_ARP ? 0x0806 : c->l3 == L3_UDP6 ? 0x86dd : 0x0800;
	u16 proto = c->l3 == L3_UDP6 ? NPUSIM_PPP_IPV6 :
		    c->l3 == L3_CTRL ? 0xc021 : NPUSIM_PPP_IP;
	u8 ttl = c->ttl ? c->ttl : 64;
	u32 hdr = 0;
	u8 *l4;

	if (vcase_ppp(c))
		type = c->ppp.type ? c->ppp.type : NPUSIM_ETH_P_PPP_SES;
	fb_tags(f, c->mcast, c->ntags, c->tpid, c->tci, type);
	if (vcase_ppp(c)) {
		hdr = fb_pppoe(f, c->ppp.sid, c->ppp.proto ? c->ppp.proto : proto);
		f->b[hdr] = c->ppp.vertype ? c->ppp.vertype : 0x11;
		f->b[hdr + 1] = c->ppp.code;
	}
	if (c->l3 == L3_ARP) {
		f->len = 60;
	} else if (c->l3 == L3_CTRL) {
		memcpy(f->b + f->len, echo, sizeof(echo));
		f->len += sizeof(echo);
	} else if (c->l3 == L3_UDP6) {
		l4 = fb_ipv6(f, a6, b6, 17, 8, ttl);
		udp_hdr(l4, 7, 8, 8);
	} else {
		l4 = fb_ipv4(f, a4, c->mcast ? mc4 : b4, 6, 0, 20, ttl, 0);
		tcp_hdr(l4, 1, 2, c->syn ? 0x02 : 0x10);
		if (c->bad_l4)
			l4[12] = 4 << 4;
	}
	if (hdr)
		fb_pppoe_len(f, hdr, c->ppp.dlen);
	f->len += c->pad;
	if (f->len < 60 && c->l3 == L3_CTRL)
		f->len = 60;	/* Ethernet padding */
	if (c->ppp.cut)
		f->len = hdr + c->ppp.cut;
	if (c->len)
		f->len = c->len;
}

static void test_vcase(void **state)
{
	const struct vcase *c = *state;
	struct npu_mflow_key key;
	struct npusim_pkt pkt;
	struct fb f;

	fb_vcase(&f, c);
	assert_int_equal(npusim_parse(f.b, c->caplen ? c->caplen : f.len, f.len, &pkt),
			 c->reason);
	assert_int_equal(pkt.reason, c->reason);
	assert_int_equal(pkt.vlan_tags, c->tags);
	if (!c->ntags)
		assert_false(pkt.flags & NPUSIM_PKT_VLAN);
	if (c->tags) {
		assert_true(pkt.flags & NPUSIM_PKT_VLAN);
		assert_int_equal(pkt.vlan_tpid, c->tpid[0]);
		assert_int_equal(pkt.vlan_tci, c->tci[0]);
	}
	if (c->tags == 2) {
		assert_int_equal(pkt.vlan2_tpid, c->tpid[1]);
		assert_int_equal(pkt.vlan2_tci, c->tci[1]);
	}
	if (c->l3_off) {
		assert_int_equal(pkt.l3_off, c->l3_off);
		assert_true(pkt.flags & (NPUSIM_PKT_IPV4 | NPUSIM_PKT_IPV6));
	}
	if (c->l3_off && !c->bad_l4 && !c->caplen && c->reason != NPU_PUNT_MCAST) {
		/* the ports, for the host's RSS hash if not for a key */
		assert_true(pkt.flags & NPUSIM_PKT_L4);
		assert_int_equal(pkt.l4_off, c->l3_off + (c->l3 == L3_UDP6 ? 40 : 20));
		assert_int_equal(pkt.sport, c->l3 == L3_UDP6 ? 7 : 1);
	}
	if (c->key.sid) {
		assert_true(pkt.flags & NPUSIM_PKT_PPPOE);
		assert_int_equal(pkt.pppoe_sid, c->key.sid);
	}
	if (c->reason != NPU_PUNT_FLOW_MISS)
		return;
	npusim_ft_key_from_pkt(&pkt, 2, &key);
	assert_int_equal(key.l2, c->key.l2);
	assert_int_equal(ntohs(key.vlan), c->key.vlan);
	assert_int_equal(ntohs(key.vlan_inner), c->key.inner);
	assert_int_equal(ntohs(key.pppoe_sid), c->key.sid);
}

/* ---- what a parse means to the fast path's lookup ------------------- */

#define FT_CONNS	4
#define FT_MFLOWS	8

struct ft_tbl {
	struct npusim_ft ft;
	struct npusim_ft_conn conns[FT_CONNS];
	struct npusim_ft_mflow mflows[FT_MFLOWS];
	u32 buckets[FT_MFLOWS];
};

/* Connection @idx: direction 0 is @f's microflow on port 2, out of port 7. */
static void ft_conn(struct ft_tbl *t, u32 idx, struct fb *f)
{
	struct npu_cmd_conn_create c;
	struct npusim_pkt pkt;

	assert_int_equal(parse(f, &pkt), NPU_PUNT_FLOW_MISS);
	memset(&c, 0, sizeof(c));
	c.conn = htole32(idx);
	c.rev = htole16(1);
	c.flags = htole16(NPU_CONN_F_DIR0 | NPU_CONN_F_MFLOW0);
	c.dir[0].egress_port = 7;
	npusim_ft_key_from_pkt(&pkt, 2, &c.mflow[0]);
	assert_int_equal(npusim_ft_conn_create(&t->ft, &c, 0), NPU_ST_OK);
}

static u8 ft_proc(struct ft_tbl *t, struct fb *f, struct npusim_ft_result *r)
{
	struct npusim_pkt pkt;

	parse(f, &pkt);
	return npusim_ft_process(&t->ft, &pkt, 2, f->b, f->len, 0, r);
}

/**
 * struct lcase - a connection's tags and a frame looked up against it
 * @name: the case
 * @conn: the frame the connection is made from (its tags and session)
 * @frame: the frame looked up
 * @reason: its reason
 * @hit: whether it matched the connection
 */
struct lcase {
	const char *name;
	struct vcase conn, frame;
	u8 reason;
	bool hit;
};

#define Q(v)		TAGS1(0x8100, v)
#define AD(v)		TAGS1(0x88a8, v)
#define QQ(v, w)	TAGS2(0x8100, v, 0x8100, w)
#define ADQ(v, w)	TAGS2(0x88a8, v, 0x8100, w)
#define HIT		.reason = NPU_PUNT_NONE, .hit = true

static const struct lcase lcases[] = {
	{ "802.1Q 5: the same frame", { Q(5) }, { Q(5) }, HIT },
	{ "802.1Q 5: PCP 3", { Q(5) }, { Q(0x6005) }, HIT },
	{ "802.1Q 5: untagged", { Q(5) }, { }, MISS },
	{ "802.1Q 5: 802.1Q 6", { Q(5) }, { Q(6) }, MISS },
	{ "802.1Q 5: 802.1ad 5", { Q(5) }, { AD(5) }, MISS },
	{ "802.1Q 5: 802.1Q 5 + 9", { Q(5) }, { QQ(5, 9) }, MISS },
	{ "untagged: the same frame", { }, { }, HIT },
	{ "untagged: a priority tag", { }, { Q(0x6000) }, EXCEPTION },
	{ "untagged: 802.1Q 5", { }, { Q(5) }, MISS },
	{ "802.1ad 100 + 802.1Q 200: the same frame", { ADQ(100, 200) }, { ADQ(100, 200) },
	  HIT },
	{ "802.1ad 100 + 802.1Q 200: 802.1Q 100 + 200", { ADQ(100, 200) },
	  { QQ(100, 200) }, MISS },
	{ "802.1ad 100 + 802.1Q 200: 802.1ad 100 + 201", { ADQ(100, 200) },
	  { ADQ(100, 201) }, MISS },
	{ "802.1ad 100 + 802.1Q 200: 802.1ad 100 alone", { ADQ(100, 200) }, { AD(100) },
	  MISS },
	{ "802.1ad 100 + 802.1Q 200: 802.1ad 100 + a priority tag", { ADQ(100, 200) },
	  { ADQ(100, 0) }, EXCEPTION },
	{ "802.1ad 100 + 802.1Q 200: 802.1ad 200 + 100", { ADQ(100, 200) },
	  { ADQ(200, 100) }, MISS },
	{ "802.1Q 5 + 9: PCPs", { QQ(5, 9) }, { QQ(0xe005, 0x2009) }, HIT },
	{ "802.1ad 5: 802.1ad 5", { AD(5) }, { AD(5) }, HIT },
	{ "802.1ad 5: 802.1Q 5", { AD(5) }, { Q(5) }, MISS },
	/* a session's frames find its connection, and only they */
	{ "session 5: the same frame", { .ppp = { 5 } }, { .ppp = { 5 } }, HIT },
	{ "session 5: session 6", { .ppp = { 5 } }, { .ppp = { 6 } }, MISS },
	{ "session 5: outside a session", { .ppp = { 5 } }, { }, MISS },
	{ "untagged: session 5", { }, { .ppp = { 5 } }, MISS },
	{ "session 5: session 0xffff", { .ppp = { 5 } }, { .ppp = { 0xffff } }, EXCEPTION },
	{ "session 5: its LCP", { .ppp = { 5 } }, { .ppp = { 5 }, .l3 = L3_CTRL }, EXCEPTION },
	{ "session 5 in VLAN 7: the same frame", { Q(7), .ppp = { 5 } }, { Q(7), .ppp = { 5 } },
	  HIT },
	{ "session 5 in VLAN 7: session 5 untagged", { Q(7), .ppp = { 5 } }, { .ppp = { 5 } },
	  MISS },
	{ "session 5 in VLAN 7: VLAN 7 outside a session", { Q(7), .ppp = { 5 } }, { Q(7) },
	  MISS },
	{ "session 5 in 802.1ad 100 + 802.1Q 200: the same frame",
	  { ADQ(100, 200), .ppp = { 5 } }, { ADQ(100, 200), .ppp = { 5 } }, HIT },
	{ "session 5 in 802.1ad 100 + 802.1Q 200: 802.1Q 100 + 200",
	  { ADQ(100, 200), .ppp = { 5 } }, { QQ(100, 200), .ppp = { 5 } }, MISS },
};

static void test_lcase(void **state)
{
	const struct lcase *c = *state;
	struct npusim_ft_result r;
	struct ft_tbl *t;
	struct fb f;

	t = calloc(1, sizeof(*t));
	assert_non_null(t);
	npusim_ft_init(&t->ft, 8, t->conns, FT_CONNS, t->mflows, FT_MFLOWS,
		       t->buckets, FT_MFLOWS);
	fb_vcase(&f, &c->conn);
	ft_conn(t, 1, &f);
	fb_vcase(&f, &c->frame);
	assert_int_equal(ft_proc(t, &f, &r), c->reason);
	assert_int_equal(r.conn, c->hit ? 1 : NPU_CONN_NONE);
	free(t);
}

/* Every prefix of valid frames parses without reading past it. */
static void test_every_prefix(void **state)
{
	struct npusim_pkt pkt;
	struct fb f;
	u8 *copy, *l4;
	u32 n;

	(void)state;
	fb_eth(&f, 0, 0x8100);
	fb_vlan(&f, 0x8100, 3, 0x86dd);
	l4 = fb_ipv6(&f, a6, b6, 0, 8 + 20, 64);
	l4[0] = 6;
	tcp_hdr(l4 + 8, 1, 2, 0x10);
	for (n = 0; n <= f.len; n++) {
		copy = malloc(n ? n : 1);	/* exact size: ASan/valgrind catch overreads */
		memcpy(copy, f.b, n);
		npusim_parse(copy, n, n, &pkt);
		if (n < f.len)
			assert_int_not_equal(pkt.reason, NPU_PUNT_FLOW_MISS);
		free(copy);
	}
	assert_int_equal(pkt.reason, NPU_PUNT_EXCEPTION);	/* hop-by-hop */
}

/*
 * Every prefix of IPv6 in a PPPoE session in two tags: within the frame,
 * nothing past the prefix read; the session's length beyond each prefix.
 */
static void test_every_prefix_pppoe(void **state)
{
	static const struct vcase c = { "", TAGS2(0x88a8, 100, 0x8100, 200), .ppp = { 5 },
					.l3 = L3_UDP6 };
	struct npusim_pkt pkt;
	struct fb f;
	u8 *copy;
	u32 n;

	(void)state;
	fb_vcase(&f, &c);
	for (n = 0; n <= f.len; n++) {
		copy = malloc(n ? n : 1);	/* exact size: ASan catches overreads */
		memcpy(copy, f.b, n);
		npusim_parse(copy, n, n, &pkt);
		if (n < f.len)
			assert_int_equal(pkt.reason, NPU_PUNT_MALFORMED);
		free(copy);
		/* captured up to n of the whole frame: never malformed */
		npusim_parse(f.b, n, f.len, &pkt);
		assert_int_equal(pkt.reason, n < 30 + 40 + 8 ? NPU_PUNT_EXCEPTION :
				 NPU_PUNT_FLOW_MISS);
	}
	assert_int_equal(pkt.reason, NPU_PUNT_FLOW_MISS);
}

/* ---- Toeplitz: Microsoft's RSS verification suite ------------------ */

struct rss4_vec {
	u8 s[4], d[4];
	u16 sp, dp;
	u32 l4, l3;
};

static void test_toeplitz_ipv4(void **state)
{
	static const struct rss4_vec v[] = {
		{ { 66, 9, 149, 187 }, { 161, 142, 100, 80 }, 2794, 1766,
		  0x51ccc178, 0x323e8fc2 },
		{ { 199, 92, 111, 2 }, { 65, 69, 140, 83 }, 14230, 4739,
		  0xc626b0ea, 0xd718262a },
		{ { 24, 19, 198, 95 }, { 12, 22, 207, 184 }, 12898, 38024,
		  0x5c2b394a, 0xd2d0a5de },
		{ { 38, 27, 205, 30 }, { 209, 142, 163, 6 }, 48228, 2217,
		  0xafc7327f, 0x82989176 },
		{ { 153, 39, 163, 191 }, { 202, 188, 127, 2 }, 44251, 1303,
		  0x10e828a2, 0x5d1809c5 },
	};
	struct npusim_pkt pkt;
	unsigned int i;
	u16 fl;
	u8 in[12];

	(void)state;
	for (i = 0; i < ARRAY_SIZE(v); i++) {
		memcpy(in, v[i].s, 4);
		memcpy(in + 4, v[i].d, 4);
		put16(in + 8, v[i].sp);
		put16(in + 10, v[i].dp);
		assert_int_equal(npusim_toeplitz(ms_key, 40, in, 12), v[i].l4);
		assert_int_equal(npusim_toeplitz(ms_key, 40, in, 8), v[i].l3);

		/* through the parser and npusim_rss_hash */
		memset(&pkt, 0, sizeof(pkt));
		pkt.addr_len = 4;
		memcpy(pkt.saddr, v[i].s, 4);
		memcpy(pkt.daddr, v[i].d, 4);
		pkt.sport = v[i].sp;
		pkt.dport = v[i].dp;
		pkt.flags = NPUSIM_PKT_IPV4 | NPUSIM_PKT_L4;
		fl = 0;
		assert_int_equal(npusim_rss_hash(ms_key, &pkt, &fl), v[i].l4);
		assert_int_equal(fl, NPU_RXD_HASH_L4);
		pkt.flags |= NPUSIM_PKT_FRAG;
		fl = 0;
		assert_int_equal(npusim_rss_hash(ms_key, &pkt, &fl), v[i].l3);
		assert_int_equal(fl, NPU_RXD_HASH_L3);
	}
}

struct rss6_vec {
	u8 s[16], d[16];
	u16 sp, dp;
	u32 l4, l3;
};

static void test_toeplitz_ipv6(void **state)
{
	static const struct rss6_vec v[] = {
		{ /* 3ffe:2501:200:1fff::7 -> 3ffe:2501:200:3::1 */
		  { 0x3f, 0xfe, 0x25, 0x01, 0x02, 0x00, 0x1f, 0xff,
		    0, 0, 0, 0, 0, 0, 0, 0x07 },
		  { 0x3f, 0xfe, 0x25, 0x01, 0x02, 0x00, 0x00, 0x03,
		    0, 0, 0, 0, 0, 0, 0, 0x01 },
		  2794, 1766, 0x40207d3d, 0x2cc18cd5 },
		{ /* 3ffe:501:8::260:97ff:fe40:efab -> ff02::1 */
		  { 0x3f, 0xfe, 0x05, 0x01, 0x00, 0x08, 0x00, 0x00,
		    0x02, 0x60, 0x97, 0xff, 0xfe, 0x40, 0xef, 0xab },
		  { 0xff, 0x02, 0, 0, 0, 0, 0, 0,
		    0, 0, 0, 0, 0, 0, 0, 0x01 },
		  14230, 4739, 0xdde51bbf, 0x0f0c461c },
		{ /* 3ffe:1900:4545:3:200:f8ff:fe21:67cf -> fe80::200:f8ff:fe21:67cf */
		  { 0x3f, 0xfe, 0x19, 0x00, 0x45, 0x45, 0x00, 0x03,
		    0x02, 0x00, 0xf8, 0xff, 0xfe, 0x21, 0x67, 0xcf },
		  { 0xfe, 0x80, 0, 0, 0, 0, 0, 0,
		    0x02, 0x00, 0xf8, 0xff, 0xfe, 0x21, 0x67, 0xcf },
		  44251, 38024, 0x02d1feef, 0x4b61e985 },
	};
	unsigned int i;
	u8 in[36];

	(void)state;
	for (i = 0; i < ARRAY_SIZE(v); i++) {
		memcpy(in, v[i].s, 16);
		memcpy(in + 16, v[i].d, 16);
		put16(in + 32, v[i].sp);
		put16(in + 34, v[i].dp);
		assert_int_equal(npusim_toeplitz(ms_key, 40, in, 36), v[i].l4);
		assert_int_equal(npusim_toeplitz(ms_key, 40, in, 32), v[i].l3);
	}
}

/* End to end: a real TCP frame hashes like the reference vector. */
static void test_rss_from_frame(void **state)
{
	static const u8 s[4] = { 66, 9, 149, 187 }, d[4] = { 161, 142, 100, 80 };
	struct npusim_pkt pkt;
	struct fb f;
	u16 fl = 0;
	u8 *l4;

	(void)state;
	fb_eth(&f, 0, 0x0800);
	l4 = fb_ipv4(&f, s, d, 6, 0, 20, 64, 0);
	tcp_hdr(l4, 2794, 1766, 0x10);
	assert_int_equal(parse(&f, &pkt), NPU_PUNT_FLOW_MISS);
	assert_int_equal(npusim_rss_hash(ms_key, &pkt, &fl), 0x51ccc178);
	assert_int_equal(fl, NPU_RXD_HASH_L4);

	fb_eth(&f, 0, 0x0806);
	f.len = 60;
	parse(&f, &pkt);
	fl = 0;
	assert_int_equal(npusim_rss_hash(ms_key, &pkt, &fl), 0);
	assert_int_equal(fl, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_prefix),
		cmocka_unit_test(test_every_prefix_pppoe),
		cmocka_unit_test(test_toeplitz_ipv4),
		cmocka_unit_test(test_toeplitz_ipv6),
		cmocka_unit_test(test_rss_from_frame),
	};
	struct CMUnitTest ptests[ARRAY_SIZE(pcases)];
	struct CMUnitTest vtests[ARRAY_SIZE(vcases)];
	struct CMUnitTest ltests[ARRAY_SIZE(lcases)];

	CASE_TESTS(ptests, pcases, test_pcase);
	CASE_TESTS(vtests, vcases, test_vcase);
	CASE_TESTS(ltests, lcases, test_lcase);
	return cmocka_run_group_tests(tests, NULL, NULL) |
	       cmocka_run_group_tests_name("npusim_parse frames", ptests, NULL, NULL) |
	       cmocka_run_group_tests_name("npusim_parse tags", vtests, NULL, NULL) |
	       cmocka_run_group_tests_name("npusim_parse tags looked up", ltests, NULL, NULL);
}
