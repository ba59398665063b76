// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the driver's rule parser: the pure part that turns a rule's
 * description into a microflow key and a rewrite
 * (kernel/npuep/flow_parse_pure.c, included directly).  Every refusal is
 * checked for -EOPNOTSUPP and its message, every accepted action for the
 * exact key and rewrite.  Most rules are a table of cases (struct
 * pcase), each a cmocka test of its own.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "../../kernel/npuep/flow_parse_pure.c"
#include "../../kernel/npuep/flow_match_pure.c"
#include "../../kernel/npuep/flow_path_pure.c"
#include "case_table.h"

/* The extack's buffer is 80 bytes, "npuep: " and the NUL included. */
#define MSG_MAX		72

/* ---- a rule's description ---------------------------------------- */

static const u8 a4[4] = { 10, 0, 3, 2 }, b4[4] = { 10, 0, 8, 2 };
static const u8 n4[4] = { 192, 0, 2, 1 };
static const u8 a6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 3, [15] = 2 };
static const u8 b6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 8, [15] = 2 };
static const u8 n6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0x99, [14] = 0x12, [15] = 0x34 };
static const u8 dmac[6] = { 0x02, 0x11, 0x22, 0x33, 0x44, 0x55 };
static const u8 smac[6] = { 0x02, 0xaa, 0xbb, 0xcc, 0xdd, 0xee };

#define SPORT	40000
#define DPORT	5201
#define IN_PORT	2
#define IN_IF	12
#define OUT_PORT 7

static struct npuep_flow_desc d;
static struct npu_mflow_key key;
static struct npu_rewrite rw;
static const char *msg;

/* An exact TCP (or UDP) 5-tuple entering port 2, no actions yet. */
static void rule(int v6, u8 proto)
{
	memset(&d, 0, sizeof(d));
	d.port = IN_PORT;
	d.ifindex = IN_IF;
	d.keys = NPUEP_FD_CONTROL | NPUEP_FD_BASIC | NPUEP_FD_PORTS |
		 (v6 ? NPUEP_FD_IPV6 : NPUEP_FD_IPV4);
	d.control.key.addr_type = v6 ? NPUEP_FD_ADDR_IPV6 : NPUEP_FD_ADDR_IPV4;
	d.control.mask.addr_type = 0xffff;
	d.basic.key.n_proto = htons(v6 ? ETH_P_IPV6 : ETH_P_IP);
	d.basic.mask.n_proto = 0xffff;
	d.basic.key.ip_proto = proto;
	d.basic.mask.ip_proto = 0xff;
	if (v6) {
		memcpy(d.ipv6.key.src, a6, 16);
		memcpy(d.ipv6.key.dst, b6, 16);
		memset(d.ipv6.mask.src, 0xff, 16);
		memset(d.ipv6.mask.dst, 0xff, 16);
	} else {
		memcpy(&d.ipv4.key.src, a4, 4);
		memcpy(&d.ipv4.key.dst, b4, 4);
		d.ipv4.mask.src = 0xffffffff;
		d.ipv4.mask.dst = 0xffffffff;
	}
	d.ports.key.src = htons(SPORT);
	d.ports.key.dst = htons(DPORT);
	d.ports.mask.src = 0xffff;
	d.ports.mask.dst = 0xffff;
}

/* As nf_flow_table writes one: ingress ifindex, no FIN, no RST. */
static void rule_ft(int v6)
{
	rule(v6, IPPROTO_TCP);
	d.ft = true;
	d.keys |= NPUEP_FD_META | NPUEP_FD_TCP;
	d.meta.key.ingress_ifindex = IN_IF;
	d.meta.mask.ingress_ifindex = -1;
	d.tcp_flags.key = 0;
	d.tcp_flags.mask = htons(0x0005);
}

/* A tag's key and mask: an exact 802.1Q VLAN id. */
static void exact_tag(struct npuep_fd_vlan *key, struct npuep_fd_vlan *mask, u16 vid)
{
	key->id = vid;
	mask->id = 0xfff;
	key->tpid = htons(ETH_P_8021Q);
	mask->tpid = 0xffff;
}

/* The rule matches one exact 802.1Q VLAN id. */
static void tag(u16 vid)
{
	d.keys |= NPUEP_FD_VLAN;
	exact_tag(&d.vlan.key, &d.vlan.mask, vid);
}

/* ... and an exact inner 802.1Q VLAN id. */
static void ctag(u16 vid)
{
	d.keys |= NPUEP_FD_CVLAN;
	exact_tag(&d.cvlan.key, &d.cvlan.mask, vid);
}

/* The rule matches PPPoE session @sid of its addresses' IP version. */
static void session(u16 sid, int v6)
{
	d.keys |= NPUEP_FD_PPPOE;
	d.pppoe.key.type = htons(ETH_P_PPP_SES);
	d.pppoe.mask.type = 0xffff;
	d.pppoe.key.sid = htons(sid);
	d.pppoe.mask.sid = 0xffff;
	d.pppoe.key.ppp_proto = htons(v6 ? 0x0057 : 0x0021);
	d.pppoe.mask.ppp_proto = 0xffff;
}

static struct npuep_fd_act *act(u8 id)
{
	struct npuep_fd_act *a = &d.act[d.nact++];

	assert_true(d.nact <= NPUEP_FD_ACT_MAX);
	memset(a, 0, sizeof(*a));
	a->id = id;
	return a;
}

static void redirect(s32 port, u32 mtu)
{
	struct npuep_fd_act *a = act(NPUEP_FA_REDIRECT);

	a->redirect.port = port;
	a->redirect.mtu = mtu;
}

/* One pedit key: @mask and @val are the four bytes in frame order. */
static void pedit(u8 id, u8 htype, u32 off, const u8 mask[4], const u8 val[4])
{
	struct npuep_fd_act *a = act(id);

	a->mangle.htype = htype;
	a->mangle.offset = off;
	memcpy(&a->mangle.mask, mask, 4);
	memcpy(&a->mangle.val, val, 4);
}

/*
 * "pedit ex munge ... set": @len bytes at @off, one key per 32-bit word,
 * the rest of each word kept (iproute2's and npuflowd's keys).
 */
static void set_bytes(u8 htype, u32 off, const u8 *v, u32 len)
{
	u32 base = off & ~3u, i;

	while (len) {
		u8 mask[4] = { 0xff, 0xff, 0xff, 0xff }, val[4] = { 0 };

		for (i = off - base; i < 4 && len; i++, off++, len--, v++) {
			mask[i] = 0;
			val[i] = *v;
		}
		pedit(NPUEP_FA_MANGLE, htype, base, mask, val);
		base += 4;
	}
}

static int parse(void)
{
	memset(&key, 0x5a, sizeof(key));
	memset(&rw, 0x5a, sizeof(rw));
	msg = "unset";
	return npuep_flow_desc_parse(&d, &key, &rw, &msg);
}

/* The refusal: -EOPNOTSUPP and exactly @want. */
static void refused(const char *want)
{
	assert_int_equal(parse(), -EOPNOTSUPP);
	assert_non_null(msg);
	assert_string_equal(msg, want);
	assert_true(strlen(msg) <= MSG_MAX);
}

/* A rule for another port's ingress: not ours, no message. */
static void not_ours(void)
{
	assert_int_equal(parse(), -ENODEV);
	assert_null(msg);
}

/* ---- what an accepted rule must give ------------------------------ */

static struct npu_mflow_key want_key;
static struct npu_rewrite want_rw;

/* The key of rule(): and a rewrite that only forwards out of port 7. */
static void want(int v6, u8 proto, u32 mtu)
{
	memset(&want_key, 0, sizeof(want_key));
	want_key.port = IN_PORT;
	want_key.family = v6 ? NPU_AF_INET6 : NPU_AF_INET;
	want_key.proto = proto;
	want_key.sport = htons(SPORT);
	want_key.dport = htons(DPORT);
	memcpy(want_key.saddr, v6 ? a6 : a4, v6 ? 16 : 4);
	memcpy(want_key.daddr, v6 ? b6 : b4, v6 ? 16 : 4);
	memset(&want_rw, 0, sizeof(want_rw));
	want_rw.egress_port = OUT_PORT;
	want_rw.mtu = htole16(mtu);
	want_rw.nat_sport = htons(SPORT);
	want_rw.nat_dport = htons(DPORT);
}

static void accepted(void)
{
	assert_int_equal(parse(), 0);
	assert_null(msg);
	assert_memory_equal(&key, &want_key, sizeof(key));
	assert_memory_equal(&rw, &want_rw, sizeof(rw));
}

/* ---- the table of cases --------------------------------------------- */

/*
 * struct pstep.kind: an action of the rule (struct pstep.id), or a "pedit ex
 * munge ... set" of bytes, one or more actions (set_bytes()).
 */
enum { STEP_END, STEP_ACT, STEP_SET };

/**
 * struct pstep - one step of a case's actions
 * @kind: STEP_*; STEP_END ends the list
 * @id: STEP_ACT: NPUEP_FA_*
 * @htype: NPUEP_FA_MANGLE, NPUEP_FA_ADD and STEP_SET: NPUEP_FH_*
 * @off: NPUEP_FA_MANGLE, NPUEP_FA_ADD and STEP_SET: the byte offset
 * @mask: NPUEP_FA_MANGLE, NPUEP_FA_ADD: the four bytes in frame order, as
 *	one big-endian number (0x00ffffff: the first byte not kept)
 * @val: the same for the value
 * @bytes: STEP_SET: the bytes set
 * @len: STEP_SET: how many
 * @port: NPUEP_FA_REDIRECT: the target port, or NPUEP_FD_PORT_FOREIGN
 * @mtu: NPUEP_FA_REDIRECT: the target's MTU
 * @ppp: NPUEP_FA_REDIRECT: the target is a ppp device (the case's @path)
 * @tpid: NPUEP_FA_VLAN_PUSH: the tag's TPID
 * @vid: NPUEP_FA_VLAN_PUSH: its VLAN id
 * @prio: NPUEP_FA_VLAN_PUSH: its priority
 * @sid: NPUEP_FA_PPPOE_PUSH: the session id
 */
struct pstep {
	u8 kind;
	u8 id;
	u8 htype;
	u32 off;
	u32 mask, val;
	const u8 *bytes;
	u32 len;
	s32 port;
	u32 mtu;
	bool ppp;
	u16 tpid, vid;
	u8 prio;
	u16 sid;
};

#define ACT(i)			{ STEP_ACT, .id = (i) }
#define CSUM			ACT(NPUEP_FA_CSUM)
#define POP			ACT(NPUEP_FA_VLAN_POP)
#define PUSH(t, v, p)		{ STEP_ACT, .id = NPUEP_FA_VLAN_PUSH, .tpid = (t), \
				  .vid = (v), .prio = (p) }
#define PPPOE_PUSH(s)		{ STEP_ACT, .id = NPUEP_FA_PPPOE_PUSH, .sid = (s) }
#define REDIRECT(p, m)		{ STEP_ACT, .id = NPUEP_FA_REDIRECT, .port = (p), .mtu = (m) }
#define FWD			REDIRECT(OUT_PORT, 1500)
/* "mirred egress redirect dev ppp0": a device of no port, its path the case's */
#define PPP			{ STEP_ACT, .id = NPUEP_FA_REDIRECT, \
				  .port = NPUEP_FD_PORT_FOREIGN, .ppp = true }
#define PEDIT(i, h, o, m, v)	{ STEP_ACT, .id = (i), .htype = (h), .off = (o), \
				  .mask = (m), .val = (v) }
#define MANGLE(h, o, m, v)	PEDIT(NPUEP_FA_MANGLE, h, o, m, v)
#define ADD(h, o, m, v)		PEDIT(NPUEP_FA_ADD, h, o, m, v)
#define SET(h, o, b, n)		{ STEP_SET, .htype = (h), .off = (o), .bytes = (b), .len = (n) }
/* the MACs as iproute2 writes them (two words each) */
#define SET_DMAC		SET(NPUEP_FH_ETH, 0, dmac, 6)
#define SET_SMAC		SET(NPUEP_FH_ETH, 6, smac, 6)
/* iproute2's "ip ttl dec": add 0xff to byte 8, word 8 */
#define TTL_DEC4		ADD(NPUEP_FH_IP4, 8, 0x00ffffff, 0xff000000)
/* iproute2's "ip6 hoplimit dec": add 0xff to byte 7, word 4 */
#define TTL_DEC6		ADD(NPUEP_FH_IP6, 4, 0xffffff00, 0x000000ff)

#define IP4_SADDR	offsetof(struct iphdr, saddr)
#define IP4_DADDR	offsetof(struct iphdr, daddr)
#define IP6_SADDR	offsetof(struct ipv6hdr, saddr)
#define IP6_DADDR	offsetof(struct ipv6hdr, daddr)

static const u8 port_1024[2] = { 1024 >> 8, 1024 & 0xff };
static const u8 port_8080[2] = { 8080 >> 8, 8080 & 0xff };
static const u8 zero[2], ttl_64[1] = { 64 }, tclass[2] = { 0x0b, 0x80 };
static const u8 type_ipv6[2] = { 0x86, 0xdd };
/* b6 with its first word b4's: b4 set over the destination of an IPv6 rule */
static const u8 b4_b6[16] = { 10, 0, 8, 2, 0, 8, [15] = 2 };
/* a4 with the last bit flipped */
static const u8 a4_flip[4] = { 10, 0, 3, 3 };

/**
 * struct thop - one hop of a ppp device's path, as the glue reads it
 * @type: NPUEP_FD_HOP_*
 * @port: NPUEP_FD_HOP_ETHERNET: a port of this device, or NPUEP_FD_PORT_FOREIGN
 * @id: VLAN id or session id
 * @tpid: NPUEP_FD_HOP_VLAN: the TPID
 * @mac: the concentrator's MAC (PPPOE), else the device's (NULL: none)
 * @mtu: the device's MTU
 */
struct thop {
	u8 type;
	s32 port;
	u16 id, tpid;
	const u8 *mac;
	u32 mtu;
};

/* the port's own MAC, where a VLAN device over it has smac */
static const u8 pmac[6] = { 0x02, 0x77, 0x77, 0x77, 0x77, 0x07 };

#define H_PPPOE(s, m)	{ NPUEP_FD_HOP_PPPOE, .id = (s), .mac = dmac, .mtu = (m) }
#define H_VLAN(v, t, a)	{ NPUEP_FD_HOP_VLAN, .id = (v), .tpid = (t), .mac = (a), .mtu = 1500 }
#define H_PORT(a)	{ NPUEP_FD_HOP_ETHERNET, .port = OUT_PORT, .mac = (a), .mtu = 1500 }

/* pppoe.so on port 7: session 5, MTU 1492 */
static const struct thop p_port[] = { H_PPPOE(5, 1492), H_PORT(smac) };
static const struct thop p_mtu1400[] = { H_PPPOE(5, 1400), H_PORT(smac) };
static const struct thop p_mtu1500[] = { H_PPPOE(5, 1500), H_PORT(smac) };
static const struct thop p_vlan7[] = { H_PPPOE(0xfffe, 1492), H_VLAN(7, ETH_P_8021Q, smac),
				       H_PORT(pmac) };
/* over 802.1Q 200 over 802.1ad 100 over the port: inner first, as the kernel walks */
static const struct thop p_qinq[] = { H_PPPOE(5, 1492), H_VLAN(200, ETH_P_8021Q, smac),
				      H_VLAN(100, ETH_P_8021AD, pmac), H_PORT(pmac) };
static const struct thop p_3tags[] = { H_PPPOE(5, 1492), H_VLAN(3, ETH_P_8021Q, smac),
				       H_VLAN(2, ETH_P_8021Q, smac),
				       H_VLAN(1, ETH_P_8021Q, smac), H_PORT(pmac) };
static const struct thop p_ad_inner[] = { H_PPPOE(5, 1492), H_VLAN(200, ETH_P_8021AD, smac),
					  H_VLAN(100, ETH_P_8021Q, pmac), H_PORT(pmac) };
static const struct thop p_tpid9100[] = { H_PPPOE(5, 1492), H_VLAN(7, 0x9100, smac),
					  H_PORT(pmac) };
static const struct thop p_sid0[] = { H_PPPOE(0, 1492), H_PORT(smac) };
static const struct thop p_sidffff[] = { H_PPPOE(0xffff, 1492), H_PORT(smac) };
/* a ppp device over a VLAN device: not a PPPoE path (pppoe.so's is one) */
static const struct thop p_vlan_top[] = { H_VLAN(7, ETH_P_8021Q, smac), H_PORT(pmac) };
static const struct thop p_bridge[] = { H_PPPOE(5, 1492), { NPUEP_FD_HOP_OTHER, .mac = smac },
					H_PORT(pmac) };
static const struct thop p_no_port[] = { H_PPPOE(5, 1492), H_VLAN(7, ETH_P_8021Q, smac) };
static const struct thop p_foreign[] = { H_PPPOE(5, 1492),
					 { NPUEP_FD_HOP_ETHERNET, .port = NPUEP_FD_PORT_FOREIGN,
					   .mac = smac, .mtu = 1500 } };

/* Fields of the description: in host order, in network order. */
#define D(f, v)		CASE_FIELD(struct npuep_flow_desc, f, CF_HOST, v)
#define D_BE(f, v)	CASE_FIELD(struct npuep_flow_desc, f, CF_BE, v)

/**
 * struct pwant - what an accepted rule gives besides want()'s key and rewrite
 * @flags: the rewrite's NPU_RW_*; with NPU_RW_MAC its MACs are dmac, smac
 * @mtu: the rewrite's MTU, 1500 when 0
 * @tci: the rewrite's VLAN TCI
 * @l2: the rewrite's NPU_RW_L2_*
 * @tci2: the rewrite's second VLAN TCI
 * @sid: the rewrite's PPPoE session
 * @saddr: the rewrite's source address (v6: 16 bytes, else 4), or none
 * @daddr: the same for the destination
 * @sport: the rewrite's source port, the rule's when 0
 * @dport: the same for the destination
 */
struct pwant {
	u8 flags;
	u16 mtu;
	u16 tci;
	u8 l2;
	u16 tci2, sid;
	const u8 *saddr, *daddr;
	u16 sport, dport;
};

/**
 * struct pcase - a rule and what the parser must say of it
 * @name: the case, as cmocka names its test
 * @v6: the rule is IPv6 (else IPv4)
 * @proto: its IPPROTO_* (rule()); TCP for @ft
 * @ft: the rule is nf_flow_table's (rule_ft())
 * @cap: the coprocessor takes two tags and PPPoE sessions (NPU_CAP_L2_ENCAP)
 * @tagged: the rule matches VLAN id @vid (tag())
 * @vid: that VLAN id
 * @ad: of TPID 0x88a8
 * @ctagged: the rule matches inner VLAN id @cvid (ctag())
 * @cvid: that VLAN id
 * @sid: the rule matches this PPPoE session (session()), 0: none
 * @keys_on: NPUEP_FD_* keys added to the rule's
 * @keys_off: NPUEP_FD_* keys taken from the rule's
 * @set: fields of the description set after those
 * @steps: the rule's actions, in order
 * @path: the path under the ppp device a PPP step redirects to
 * @npath: its hops (0: the kernel finds none)
 * @refusal: the message of an -EOPNOTSUPP, or NULL
 * @not_ours: the rule is another port's (-ENODEV, no message)
 * @w: else the rule is accepted: what it gives
 */
struct pcase {
	const char *name;
	u8 v6;
	u8 proto;
	bool ft;
	bool cap;
	bool tagged;
	u16 vid;
	bool ad;
	bool ctagged;
	u16 cvid;
	u16 sid;
	u32 keys_on, keys_off;
	struct case_field set[5];
	struct pstep steps[10];
	const struct thop *path;
	u8 npath;
	const char *refusal;
	bool not_ours;
	struct pwant w;
};

#define TCP4		.proto = IPPROTO_TCP
#define UDP4		.proto = IPPROTO_UDP
#define TCP6		.v6 = 1, .proto = IPPROTO_TCP
#define UDP6		.v6 = 1, .proto = IPPROTO_UDP
#define FT4		.ft = true
#define FT6		.ft = true, .v6 = 1
#define TAG(v)		.tagged = true, .vid = (v)
#define AD_TAG(v)	TAG(v), .ad = true
#define CTAG(v)		.ctagged = true, .cvid = (v)
#define SES(s)		.sid = (s)
#define CAP		.cap = true
/* the ethertype after the outer (inner) tag, as flower matches it */
#define VLAN_ETYPE(t)	D_BE(vlan.key.eth_type, t), D(vlan.mask.eth_type, 0xffff)
#define CVLAN_ETYPE(t)	D_BE(cvlan.key.eth_type, t), D(cvlan.mask.eth_type, 0xffff)
#define ROUTED		D(routed_ttl, 1)
#define PATH(p)		.path = (p), .npath = ARRAY_SIZE(p)
/* a TCP/IPv4 rule that only redirects into a ppp device over path @p */
#define INTO_PPP(p)	TCP4, CAP, PATH(p), .steps = { PPP }

#define MATCHES		"fast path matches port, VLAN, addresses, protocol, ports only"
#define TUPLE		"fast path needs an exact 5-tuple (protocol, addresses, ports)"
#define PROTO		"fast path forwards TCP and UDP only (exact ip_proto)"
#define ADDRS4		"fast path needs exact IPv4 addresses"
#define ADDRS6		"fast path needs exact IPv6 addresses"
#define PORTS		"fast path needs exact L4 ports"
#define TCP_FLAGS	"fast path cannot match TCP flags (it punts SYN/FIN/RST)"
#define VLAN_ID		"fast path matches an exact 802.1Q VLAN id only"
#define BAD_MANGLE	"fast path rewrites MACs, addresses, ports and TTL only"
#define IP_FIELD	"fast path rewrites only IP addresses"
#define TTL_ADD		"fast path adds only 0xff to the TTL (pedit ttl/hoplimit dec)"
#define MAC_BOTH	"fast path rewrites both MAC addresses or none"
#define MAC_WHOLE	"fast path rewrites whole MAC addresses only"
#define PUSH_ONE	"fast path pushes one 802.1Q tag"
#define PUSH_RANGE	"fast path pushes VLAN ids 0-4095 with priority 0-7"
#define L2_MISS		"fast path cannot match l2_miss"
#define NOT_LAST	"fast path needs the redirect as the last action"
#define ETHERTYPE	"fast path needs the ethertype of its addresses (IPv4 or IPv6)"
#define PRIO_TAG	"fast path cannot match a priority tag (VLAN id 0)"
#define VLANS_ID	"fast path matches exact VLAN ids only"
#define AD_OUTER	"fast path pushes an 802.1ad tag as the outer one only"
#define SES_INSIDE	"fast path pushes one PPPoE session, inside the tags it pushes"
#define SES_PUSHED	"fast path pushes PPPoE sessions 1-65534 only"
#define SES_ID		"fast path needs an exact PPPoE session id of 1-65534"
#define PPP_PROTO	"fast path needs ppp_proto ip or ipv6"
#define PPP_DEAD	"redirect's ppp device carries no PPPoE session that is up"
#define PPP_TAGS	"fast path pushes a PPPoE session in two VLAN tags at most"
#define PPP_LOWER	"PPPoE session is over neither a port nor a VLAN of one"
#define PPP_FOREIGN	"PPPoE session is not over a port of this device"
#define PPP_MACS	"a session's MACs are the session's: no eth pedit into a ppp device"
#define PPP_PUSH	"a session's tags are the session's: no vlan push into a ppp device"
#define PPP_POPS	"fast path pops the tags it matches before a ppp device"

static const struct pcase cases[] = {
	/* ---- accepted rules ---- */
	{ "forward TCP/IPv4", TCP4, .steps = { FWD } },
	{ "forward UDP/IPv4 to MTU 9000", UDP4, .steps = { REDIRECT(OUT_PORT, 9000) },
	  .w = { .mtu = 9000 } },
	{ "forward UDP/IPv6", UDP6, .steps = { FWD } },
	/* nf_flow_table's rule: META ingress, TCP flags; routed: TTL decremented */
	{ "nf_flow_table's rule, routed", FT4, .set = { D(routed_ttl, 1) },
	  .steps = { FWD }, .w = { NPU_RW_TTL } },
	{ "another port's ingress", FT4, .set = { D(meta.key.ingress_ifindex, IN_IF + 1) },
	  .steps = { FWD }, .not_ours = true },
	{ "MTU capped at 0xffff", TCP4, .steps = { REDIRECT(OUT_PORT, 70000) },
	  .w = { .mtu = 0xffff } },
	{ "VLAN 100 matched", TCP4, TAG(100), .steps = { FWD } },
	/*
	 * The MACs as iproute2 writes them (two words each), as npuflowd does
	 * (three words: the one at 4 holds both halves) and as nf_flow_table
	 * does: dst at 0 and 4 (low half), src at 4 (high half) and 8.  The
	 * words are dmac's 02:11:22:33:44:55 and smac's 02:aa:bb:cc:dd:ee.
	 */
	{ "MACs as iproute2 sets them", TCP4, .steps = { SET_DMAC, SET_SMAC, FWD },
	  .w = { NPU_RW_MAC } },
	{ "MACs as npuflowd sets them", TCP4,
	  .steps = { MANGLE(NPUEP_FH_ETH, 0, 0, 0x02112233),
		     MANGLE(NPUEP_FH_ETH, 4, 0, 0x445502aa),
		     MANGLE(NPUEP_FH_ETH, 8, 0, 0xbbccddee), FWD },
	  .w = { NPU_RW_MAC } },
	{ "MACs as nf_flow_table sets them", FT6,
	  .steps = { MANGLE(NPUEP_FH_ETH, 4, 0xffff0000, 0x000002aa),
		     MANGLE(NPUEP_FH_ETH, 8, 0, 0xbbccddee),
		     MANGLE(NPUEP_FH_ETH, 0, 0, 0x02112233),
		     MANGLE(NPUEP_FH_ETH, 4, 0x0000ffff, 0x44550000), FWD },
	  .w = { NPU_RW_MAC } },
	{ "source NAT, IPv4", TCP4,
	  .steps = { SET(NPUEP_FH_IP4, IP4_SADDR, n4, 4), SET(NPUEP_FH_TCP, 0, port_1024, 2),
		     CSUM, FWD },
	  .w = { NPU_RW_SNAT, .saddr = n4, .sport = 1024 } },
	/* the port alone is source NAT too, to the same address */
	{ "source NAT, the port alone", UDP4,
	  .steps = { SET(NPUEP_FH_UDP, 0, port_1024, 2), FWD },
	  .w = { NPU_RW_SNAT, .saddr = a4, .sport = 1024 } },
	{ "destination NAT, IPv4", UDP4,
	  .steps = { SET(NPUEP_FH_IP4, IP4_DADDR, n4, 4), SET(NPUEP_FH_UDP, 2, port_8080, 2),
		     CSUM, FWD },
	  .w = { NPU_RW_DNAT, .daddr = n4, .dport = 8080 } },
	{ "source NAT, IPv6", TCP6,
	  .steps = { SET(NPUEP_FH_IP6, IP6_SADDR, n6, 16), SET(NPUEP_FH_TCP, 0, port_1024, 2),
		     CSUM, FWD },
	  .w = { NPU_RW_SNAT, .saddr = n6, .sport = 1024 } },
	{ "destination NAT, IPv6", UDP6,
	  .steps = { SET(NPUEP_FH_IP6, IP6_DADDR, n6, 16), SET(NPUEP_FH_UDP, 2, port_8080, 2),
		     CSUM, FWD },
	  .w = { NPU_RW_DNAT, .daddr = n6, .dport = 8080 } },
	/* both, with the MACs and the hop limit: everything npuflowd writes */
	{ "NAT both ways, MACs, hop limit: IPv6", TCP6,
	  .steps = { SET_DMAC, SET_SMAC, SET(NPUEP_FH_IP6, IP6_SADDR, n6, 16),
		     SET(NPUEP_FH_IP6, IP6_DADDR, b4, 4), SET(NPUEP_FH_TCP, 0, port_1024, 2),
		     SET(NPUEP_FH_TCP, 2, port_8080, 2), TTL_DEC6, CSUM, FWD },
	  .w = { NPU_RW_SNAT | NPU_RW_DNAT | NPU_RW_TTL | NPU_RW_MAC, .saddr = n6,
		 .daddr = b4_b6, .sport = 1024, .dport = 8080 } },
	{ "TTL decremented", TCP4, .steps = { TTL_DEC4, FWD }, .w = { NPU_RW_TTL } },
	{ "hop limit decremented", UDP6, .steps = { TTL_DEC6, FWD }, .w = { NPU_RW_TTL } },
	{ "VLAN pushed", TCP4, .steps = { PUSH(ETH_P_8021Q, 100, 5), FWD },
	  .w = { NPU_RW_VLAN_PUSH, .tci = 5 << 13 | 100 } },
	/* nf_flow_table from one VLAN to another: pop, then push */
	{ "VLAN popped and another pushed", FT4, TAG(7),
	  .steps = { POP, PUSH(ETH_P_8021Q, 4095, 7), FWD },
	  .w = { NPU_RW_VLAN_POP | NPU_RW_VLAN_PUSH, .tci = 0xefff } },
	{ "checksum action alone", UDP4, .steps = { CSUM, FWD } },
	/* pedit sets (old & mask) ^ val: value bits under the mask flip */
	{ "NAT by value bits under the mask: address", TCP4,
	  .steps = { MANGLE(NPUEP_FH_IP4, IP4_SADDR, 0xffffffff, 0x00000001), FWD },
	  .w = { NPU_RW_SNAT, .saddr = a4_flip } },
	{ "NAT by value bits under the mask: port", UDP4,
	  .steps = { MANGLE(NPUEP_FH_UDP, 0, 0xffffffff, 0x00000001), FWD },
	  .w = { NPU_RW_DNAT, .daddr = b4, .dport = DPORT ^ 1 } },

	/* ---- refusals: matches ---- */
	{ "a key beyond the tuple", TCP4, .keys_on = NPUEP_FD_OTHER, .steps = { FWD },
	  .refusal = MATCHES },
	{ "no CONTROL key", TCP4, .keys_off = NPUEP_FD_CONTROL, .steps = { FWD },
	  .refusal = TUPLE },
	{ "no BASIC key", TCP4, .keys_off = NPUEP_FD_BASIC, .steps = { FWD }, .refusal = TUPLE },
	{ "no PORTS key", TCP4, .keys_off = NPUEP_FD_PORTS, .steps = { FWD }, .refusal = TUPLE },
	{ "control flags (FLOW_DIS_IS_FRAGMENT)", TCP4, .set = { D(control.mask.flags, 1) },
	  .steps = { FWD }, .refusal = "Unsupported match on control.flags" },
	{ "ICMP", .proto = IPPROTO_ICMP, .steps = { FWD }, .refusal = PROTO },
	{ "ip_proto not exact", TCP4, .set = { D(basic.mask.ip_proto, 0xfe) },
	  .steps = { FWD }, .refusal = PROTO },
	{ "IPv4 source /24", TCP4, .set = { D_BE(ipv4.mask.src, 0xffffff00) },
	  .steps = { FWD }, .refusal = ADDRS4 },
	{ "IPv4 destination any", TCP4, .set = { D(ipv4.mask.dst, 0) },
	  .steps = { FWD }, .refusal = ADDRS4 },
	{ "IPv6 source /120", TCP6, .set = { D(ipv6.mask.src[15], 0) },
	  .steps = { FWD }, .refusal = ADDRS6 },
	{ "IPv6 destination's first bit", TCP6, .set = { D(ipv6.mask.dst[0], 0x7f) },
	  .steps = { FWD }, .refusal = ADDRS6 },
	{ "no addresses", TCP4, .set = { D(control.key.addr_type, NPUEP_FD_ADDR_NONE) },
	  .steps = { FWD }, .refusal = "fast path needs IPv4 or IPv6 addresses" },
	{ "source port masked", TCP4, .set = { D_BE(ports.mask.src, 0xff00) },
	  .steps = { FWD }, .refusal = PORTS },
	{ "destination port any", UDP4, .set = { D(ports.mask.dst, 0) },
	  .steps = { FWD }, .refusal = PORTS },
	{ "TCP SYN matched", FT4,
	  .set = { D_BE(tcp_flags.key, 0x0002), D_BE(tcp_flags.mask, 0x0002) },
	  .steps = { FWD }, .refusal = TCP_FLAGS },
	{ "TCP SYN, FIN, RST masked", FT4, .set = { D_BE(tcp_flags.mask, 0x0007) },
	  .steps = { FWD }, .refusal = TCP_FLAGS },
	{ "VLAN id masked", TCP4, TAG(10), .set = { D(vlan.mask.id, 0xff0) },
	  .steps = { FWD }, .refusal = VLAN_ID },
	{ "VLAN priority matched", TCP4, TAG(10), .set = { D(vlan.mask.priority, 7) },
	  .steps = { FWD }, .refusal = VLAN_ID },
	{ "802.1ad tag matched", TCP4, TAG(10), .set = { D_BE(vlan.key.tpid, 0x88a8) },
	  .steps = { FWD }, .refusal = VLAN_ID },
	{ "VLAN DEI matched", TCP4, TAG(10), .set = { D(vlan.mask.dei, 1) },
	  .steps = { FWD }, .refusal = VLAN_ID },
	{ "l2_miss masked", FT4, .set = { D(meta.mask.l2_miss, 1) },
	  .steps = { FWD }, .refusal = L2_MISS },
	{ "l2_miss matched", FT4, .set = { D(meta.key.l2_miss, 1), D(meta.mask.l2_miss, 0xff) },
	  .steps = { FWD }, .refusal = L2_MISS },
	{ "ingress interface type matched", FT4,
	  .set = { D(meta.key.ingress_iftype, 1 /* ARPHRD_ETHER */),
		     D(meta.mask.ingress_iftype, 0xffff) },
	  .steps = { FWD }, .refusal = "fast path cannot match the ingress interface type" },
	/* another port's rule stays another port's, whatever else it matches */
	{ "another port's ingress, l2_miss masked", FT4,
	  .set = { D(meta.key.ingress_ifindex, IN_IF + 1), D(meta.mask.l2_miss, 1) },
	  .steps = { FWD }, .not_ours = true },
	{ "ethertype IPv6, IPv4 addresses", TCP4, .set = { D_BE(basic.key.n_proto, ETH_P_IPV6) },
	  .steps = { FWD }, .refusal = ETHERTYPE },
	/* an outer tag matched alone: the frames carry a second one */
	{ "ethertype 802.1Q after the tag", TCP4, TAG(10),
	  .set = { D_BE(basic.key.n_proto, ETH_P_8021Q) }, .steps = { FWD },
	  .refusal = ETHERTYPE },
	{ "802.1ad after the tag", TCP4, TAG(10),
	  .set = { D_BE(vlan.key.eth_type, ETH_P_8021AD), D(vlan.mask.eth_type, 0xffff) },
	  .steps = { FWD }, .refusal = ETHERTYPE },
	{ "ethertype masked", TCP6, .set = { D_BE(basic.mask.n_proto, 0xff00) },
	  .steps = { FWD }, .refusal = ETHERTYPE },
	/* none at all is the addresses' */
	{ "no ethertype", TCP6, .set = { D(basic.key.n_proto, 0), D(basic.mask.n_proto, 0) },
	  .steps = { FWD } },
	{ "IPv4 after the tag", TCP4, TAG(10),
	  .set = { D_BE(vlan.key.eth_type, ETH_P_IP), D(vlan.mask.eth_type, 0xffff) },
	  .steps = { FWD } },
	/*
	 * VLAN id 0 is a priority tag: the microflow key's 0 is "untagged", and
	 * the coprocessor punts priority-tagged frames (npu_hw.h).
	 */
	{ "priority tag", TCP4, TAG(0), .steps = { FWD }, .refusal = PRIO_TAG },
	/* a tag of any TPID: 802.1Q's VLAN 0 all the same */
	{ "priority tag of any TPID", TCP4, TAG(0),
	  .set = { D(vlan.mask.tpid, 0), D(vlan.key.tpid, 0) }, .steps = { FWD },
	  .refusal = PRIO_TAG },
	/* VLAN 1 and 4095 are ids */
	{ "VLAN 1", TCP4, TAG(1), .steps = { FWD } },
	{ "VLAN 4095", TCP4, TAG(4095), .steps = { FWD } },

	/* ---- refusals: actions ---- */
	/* the Ethernet header is 14 bytes: the last word starts at 10 */
	{ "pedit at Ethernet byte 11", TCP4,
	  .steps = { MANGLE(NPUEP_FH_ETH, 11, 0, 0x01020304), FWD }, .refusal = BAD_MANGLE },
	/* an IPv4 pedit on an IPv6 rule and the other way round */
	{ "IPv4 pedit, IPv6 rule", TCP6,
	  .steps = { SET(NPUEP_FH_IP4, IP4_SADDR, n4, 4), FWD }, .refusal = BAD_MANGLE },
	{ "IPv6 pedit, IPv4 rule", TCP4,
	  .steps = { SET(NPUEP_FH_IP6, IP6_SADDR, n6, 16), FWD }, .refusal = BAD_MANGLE },
	{ "TCP sequence number", TCP4,
	  .steps = { MANGLE(NPUEP_FH_TCP, 4, 0, 0x01020304), FWD }, .refusal = BAD_MANGLE },
	/* beyond the IPv4 header (no options) and the IPv6 header */
	{ "past the IPv4 header", TCP4,
	  .steps = { MANGLE(NPUEP_FH_IP4, 20, 0, 0x01020304), FWD }, .refusal = BAD_MANGLE },
	{ "past the IPv6 header", TCP6,
	  .steps = { MANGLE(NPUEP_FH_IP6, 40, 0, 0x01020304), FWD }, .refusal = BAD_MANGLE },
	/* a header the fast path does not parse (pedit's raw network offset) */
	{ "a header not parsed", TCP4,
	  .steps = { MANGLE(NPUEP_FH_OTHER, 12, 0, 0x01020304), FWD }, .refusal = BAD_MANGLE },
	{ "IPv4 TTL set", TCP4,
	  .steps = { SET(NPUEP_FH_IP4, offsetof(struct iphdr, ttl), ttl_64, 1), FWD },
	  .refusal = IP_FIELD },
	{ "IPv6 traffic class set", TCP6, .steps = { SET(NPUEP_FH_IP6, 0, tclass, 2), FWD },
	  .refusal = IP_FIELD },
	/* a field set to the value the empty image holds is still a rewrite */
	{ "IPv4 TOS set to 0", TCP4,
	  .steps = { SET(NPUEP_FH_IP4, offsetof(struct iphdr, tos), zero, 1), FWD },
	  .refusal = IP_FIELD },
	{ "IPv6 flow label set to 0", TCP6, .steps = { SET(NPUEP_FH_IP6, 2, zero, 2), FWD },
	  .refusal = IP_FIELD },
	/* the value bits of a kept byte flip it */
	{ "IPv4 protocol flipped", TCP4,
	  .steps = { MANGLE(NPUEP_FH_IP4, 8, 0xffffffff, 0x00008000), FWD },
	  .refusal = IP_FIELD },
	{ "add to the TOS byte", TCP4,
	  .steps = { ADD(NPUEP_FH_IP4, 0, 0x00ffffff, 0xff000000), FWD }, .refusal = BAD_MANGLE },
	{ "TTL incremented", TCP4,
	  .steps = { ADD(NPUEP_FH_IP4, 8, 0x00ffffff, 0x01000000), FWD }, .refusal = TTL_ADD },
	/* add on a header that is neither IPv4 nor IPv6 */
	{ "add to TCP", TCP4,
	  .steps = { ADD(NPUEP_FH_TCP, 0, 0x00ffffff, 0xff000000), FWD }, .refusal = BAD_MANGLE },
	{ "add to Ethernet", TCP4,
	  .steps = { ADD(NPUEP_FH_ETH, 8, 0x00ffffff, 0xff000000), FWD }, .refusal = BAD_MANGLE },
	/* only the exact "ttl dec" / "hoplimit dec" word is a decrement */
	{ "TTL add reaching protocol and checksum", TCP4,
	  .steps = { ADD(NPUEP_FH_IP4, 8, 0, 0xff000000), FWD }, .refusal = TTL_ADD },
	{ "TTL add to the protocol too", TCP4,
	  .steps = { ADD(NPUEP_FH_IP4, 8, 0x00ffffff, 0xff010000), FWD }, .refusal = TTL_ADD },
	{ "hop limit add reaching next header", TCP6,
	  .steps = { ADD(NPUEP_FH_IP6, 4, 0xffff0000, 0x000000ff), FWD }, .refusal = TTL_ADD },
	{ "hop limit add to the payload length too", TCP6,
	  .steps = { ADD(NPUEP_FH_IP6, 4, 0xffffff00, 0x010000ff), FWD }, .refusal = TTL_ADD },
	{ "hop limit incremented", TCP6,
	  .steps = { ADD(NPUEP_FH_IP6, 4, 0xffffff00, 0x00000001), FWD }, .refusal = TTL_ADD },
	/* the IPv4 TTL word on an IPv6 rule is its flow label and payload length */
	{ "IPv4 TTL decrement, IPv6 rule", TCP6, .steps = { TTL_DEC4, FWD },
	  .refusal = BAD_MANGLE },
	{ "IPv6 hop limit decrement, IPv4 rule", TCP4, .steps = { TTL_DEC6, FWD },
	  .refusal = BAD_MANGLE },
	{ "TTL decremented twice", TCP4, .steps = { TTL_DEC4, TTL_DEC4, FWD },
	  .refusal = "fast path decrements the TTL once" },
	{ "destination MAC alone", TCP4, .steps = { SET_DMAC, FWD },
	  .refusal = MAC_BOTH },
	{ "source MAC short of a byte", TCP4,
	  .steps = { SET_DMAC, SET(NPUEP_FH_ETH, 6, smac, 5), FWD },
	  .refusal = MAC_BOTH },
	/* the Ethernet image starts empty: a byte not set whole would be made up */
	{ "MAC byte set in part", TCP4,
	  .steps = { SET_DMAC, SET_SMAC, MANGLE(NPUEP_FH_ETH, 0, 0x0fffffff, 0x20000000), FWD },
	  .refusal = MAC_WHOLE },
	/* a kept byte with value bits: pedit flips them in the frame */
	{ "MAC bit flipped", TCP4,
	  .steps = { SET_DMAC, SET_SMAC, MANGLE(NPUEP_FH_ETH, 8, 0xffffffff, 0x00000001), FWD },
	  .refusal = MAC_WHOLE },
	/* the same alone is not a MAC rewrite the fast path can make either */
	{ "MAC bit flipped alone", TCP4,
	  .steps = { MANGLE(NPUEP_FH_ETH, 0, 0xffffffff, 0x00000001), FWD },
	  .refusal = MAC_WHOLE },
	/* the word at 12 is past the header's end */
	{ "ethertype set at 12", TCP4,
	  .steps = { SET_DMAC, SET_SMAC, SET(NPUEP_FH_ETH, 12, type_ipv6, 2), FWD },
	  .refusal = BAD_MANGLE },
	/* the word at 10 holds the ethertype's two bytes */
	{ "ethertype set in the word at 10", TCP4,
	  .steps = { SET_DMAC, SET_SMAC, MANGLE(NPUEP_FH_ETH, 10, 0xffff0000, 0x000086dd), FWD },
	  .refusal = BAD_MANGLE },
	{ "redirect to a foreign device", TCP4, .steps = { REDIRECT(NPUEP_FD_PORT_FOREIGN, 0) },
	  .refusal = "redirect target is not a port of this device" },
	{ "no redirect", TCP4, .steps = { CSUM },
	  .refusal = "fast path needs a redirect to a port of this device" },
	{ "two redirects", TCP4, .steps = { FWD, REDIRECT(OUT_PORT - 1, 1500) },
	  .refusal = "fast path redirects to one port only" },
	{ "checksum after the redirect", TCP4, .steps = { FWD, CSUM }, .refusal = NOT_LAST },
	{ "MACs after the redirect", TCP4, .steps = { FWD, SET_DMAC, SET_SMAC },
	  .refusal = NOT_LAST },
	{ "pop after the redirect", TCP4, .steps = { FWD, POP }, .refusal = NOT_LAST },
	{ "802.1ad tag pushed", TCP4, .steps = { PUSH(0x88a8, 100, 0), FWD },
	  .refusal = PUSH_ONE },
	{ "two tags pushed", TCP4,
	  .steps = { PUSH(ETH_P_8021Q, 100, 0), PUSH(ETH_P_8021Q, 200, 0), FWD },
	  .refusal = PUSH_ONE },
	{ "two tags popped", TCP4, .steps = { POP, POP, FWD },
	  .refusal = "fast path pops one tag" },
	{ "pushed priority 8", TCP4, .steps = { PUSH(ETH_P_8021Q, 100, 8), FWD },
	  .refusal = PUSH_RANGE },
	{ "pushed VLAN 4096", TCP4, .steps = { PUSH(ETH_P_8021Q, 4096, 0), FWD },
	  .refusal = PUSH_RANGE },
	/* the coprocessor pops first: a pop after a push would pop the pushed tag */
	{ "pop after push", TCP4, TAG(10), .steps = { PUSH(ETH_P_8021Q, 20, 0), POP, FWD },
	  .refusal = "fast path pops a tag before it pushes one" },
	{ "another action", TCP4, .steps = { ACT(NPUEP_FA_OTHER), FWD },
	  .refusal = "action not supported by the fast path" },

	/*
	 * Two tags and PPPoE sessions, in the shapes nf_flow_table and flower
	 * give them, to a coprocessor without NPU_CAP_L2_ENCAP: the glue
	 * reads their keys (CVLAN, PPPOE) and actions (PPPOE_PUSH; ACCEPT,
	 * nf_flow_table's push of an 802.1ad tag), the parser refuses them.
	 * (The cases above are such a coprocessor's too.)
	 */
	{ "QinQ: the inner tag's CVLAN key", FT4, TAG(100), .keys_on = NPUEP_FD_CVLAN,
	  .set = { D(cvlan.key.id, 200), D(cvlan.mask.id, 0xfff), D_BE(cvlan.key.tpid, 0x8100) },
	  .steps = { POP, POP, FWD }, .refusal = MATCHES },
	{ "PPPoE session matched (flower pppoe_sid)", TCP4, .keys_on = NPUEP_FD_PPPOE,
	  .set = { D_BE(pppoe.key.sid, 5), D(pppoe.mask.sid, 0xffff),
		   D_BE(pppoe.key.type, 0x8864) },
	  .steps = { TTL_DEC4, FWD }, .refusal = MATCHES },
	{ "PPPoE session pushed (nf_flow_table, out of ppp0)", FT4, .set = { D(routed_ttl, 1) },
	  .steps = { SET_DMAC, SET_SMAC, PPPOE_PUSH(5), FWD },
	  .refusal = "action not supported by the fast path" },
	{ "PPPoE session pushed inside VLAN 7 (nf_flow_table)", FT4, .set = { D(routed_ttl, 1) },
	  .steps = { SET_DMAC, SET_SMAC, PUSH(ETH_P_8021Q, 7, 0), PPPOE_PUSH(5), FWD },
	  .refusal = "action not supported by the fast path" },
	/* nf_flow_table gives an 802.1ad push no id: an ACCEPT */
	{ "802.1ad push of nf_flow_table (an ACCEPT)", FT4,
	  .steps = { ACT(NPUEP_FA_ACCEPT), PUSH(ETH_P_8021Q, 200, 0), FWD },
	  .refusal = "802.1ad tags are not described by the kernel's flowtable (use npuflowd)" },
	{ "accept in a flower rule", TCP4, .steps = { ACT(NPUEP_FA_ACCEPT), FWD },
	  .refusal = "action not supported by the fast path" },
	/* the pushes are refused before a missing redirect, as they were */
	{ "two tags pushed, no redirect", TCP4,
	  .steps = { PUSH(ETH_P_8021Q, 100, 0), PUSH(ETH_P_8021Q, 200, 0) }, .refusal = PUSH_ONE },

	/* ---- a coprocessor with NPU_CAP_L2_ENCAP: two tags ---- */
	{ "802.1ad tag matched (L2 cap)", TCP4, CAP, AD_TAG(10), .steps = { FWD } },
	{ "QinQ of nf_flow_table: two 802.1Q tags popped", FT4, CAP, TAG(100), CTAG(200),
	  .set = { ROUTED }, .steps = { POP, POP, FWD },
	  .w = { NPU_RW_VLAN_POP | NPU_RW_TTL, .l2 = NPU_RW_L2_POP2 } },
	{ "QinQ of flower: 802.1ad 100 + 802.1Q 200 popped", TCP6, CAP, AD_TAG(100),
	  CTAG(200), .set = { VLAN_ETYPE(ETH_P_8021Q), CVLAN_ETYPE(ETH_P_IPV6) },
	  .steps = { POP, POP, TTL_DEC6, FWD },
	  .w = { NPU_RW_VLAN_POP | NPU_RW_TTL, .l2 = NPU_RW_L2_POP2 } },
	{ "QinQ, the outer tag popped", TCP4, CAP, TAG(100), CTAG(200), .steps = { POP, FWD },
	  .w = { NPU_RW_VLAN_POP } },
	/* a pop of nothing pops nothing, in software and in the coprocessor */
	{ "two pops of one tag", TCP4, CAP, TAG(7), .steps = { POP, POP, FWD },
	  .w = { NPU_RW_VLAN_POP, .l2 = NPU_RW_L2_POP2 } },
	/* tc pushes inside out: the first pushed is the inner tag */
	{ "802.1Q 200 then 802.1ad 100 pushed (tc)", TCP4, CAP,
	  .steps = { PUSH(ETH_P_8021Q, 200, 0), PUSH(ETH_P_8021AD, 100, 5), FWD },
	  .w = { NPU_RW_VLAN_PUSH, .l2 = NPU_RW_L2_PUSH2 | NPU_RW_L2_AD2, .tci = 200,
		 .tci2 = 5 << 13 | 100 } },
	/* nf_flow_table pushes outside in: the first pushed is the outer tag */
	{ "802.1Q 100 then 802.1Q 200 pushed (nf_flow_table)", FT4, CAP,
	  .steps = { PUSH(ETH_P_8021Q, 100, 0), PUSH(ETH_P_8021Q, 200, 0), FWD },
	  .w = { NPU_RW_VLAN_PUSH, .l2 = NPU_RW_L2_PUSH2, .tci = 200, .tci2 = 100 } },
	{ "802.1ad pushed alone", TCP4, CAP, .steps = { PUSH(ETH_P_8021AD, 100, 3), FWD },
	  .w = { NPU_RW_VLAN_PUSH, .l2 = NPU_RW_L2_AD1, .tci = 3 << 13 | 100 } },
	{ "from QinQ to QinQ", TCP4, CAP, AD_TAG(100), CTAG(200),
	  .set = { VLAN_ETYPE(ETH_P_8021Q), CVLAN_ETYPE(ETH_P_IP) },
	  .steps = { POP, POP, PUSH(ETH_P_8021Q, 4, 0), PUSH(ETH_P_8021AD, 3, 0), FWD },
	  .w = { NPU_RW_VLAN_POP | NPU_RW_VLAN_PUSH,
		 .l2 = NPU_RW_L2_POP2 | NPU_RW_L2_PUSH2 | NPU_RW_L2_AD2, .tci = 4, .tci2 = 3 } },
	{ "VLAN id masked (L2 cap)", TCP4, CAP, TAG(10), .set = { D(vlan.mask.id, 0xff0) },
	  .steps = { FWD }, .refusal = VLANS_ID },
	{ "a tag of TPID 0x9100 matched", TCP4, CAP, TAG(10), .set = { D_BE(vlan.key.tpid, 0x9100) },
	  .steps = { FWD }, .refusal = "fast path matches 802.1Q and 802.1ad tags only" },
	{ "an inner tag alone", TCP4, CAP, CTAG(200), .steps = { FWD },
	  .refusal = "fast path matches an inner tag under an outer one" },
	{ "inner VLAN id masked", TCP4, CAP, TAG(100), CTAG(200),
	  .set = { D(cvlan.mask.id, 0xf00) }, .steps = { FWD }, .refusal = VLANS_ID },
	{ "inner VLAN priority matched", TCP4, CAP, TAG(100), CTAG(200),
	  .set = { D(cvlan.mask.priority, 7) }, .steps = { FWD }, .refusal = VLANS_ID },
	{ "inner 802.1ad tag", TCP4, CAP, TAG(100), CTAG(200),
	  .set = { D_BE(cvlan.key.tpid, ETH_P_8021AD) }, .steps = { FWD },
	  .refusal = "fast path matches an inner 802.1Q tag only" },
	{ "inner priority tag", TCP4, CAP, TAG(100), CTAG(0), .steps = { FWD },
	  .refusal = PRIO_TAG },
	/* the ethertypes along the tags */
	{ "QinQ, IPv4 after the outer tag", TCP4, CAP, TAG(100), CTAG(200),
	  .set = { VLAN_ETYPE(ETH_P_IP) }, .steps = { FWD }, .refusal = ETHERTYPE },
	{ "QinQ, 802.1Q after the inner tag (a third)", TCP4, CAP, TAG(100), CTAG(200),
	  .set = { CVLAN_ETYPE(ETH_P_8021Q) }, .steps = { FWD }, .refusal = ETHERTYPE },
	{ "QinQ, IPv6 after the inner tag, IPv4 addresses", TCP4, CAP, TAG(100), CTAG(200),
	  .set = { CVLAN_ETYPE(ETH_P_IPV6) }, .steps = { FWD }, .refusal = ETHERTYPE },
	{ "three tags pushed", TCP4, CAP,
	  .steps = { PUSH(ETH_P_8021Q, 1, 0), PUSH(ETH_P_8021Q, 2, 0), PUSH(ETH_P_8021Q, 3, 0),
		     FWD }, .refusal = "fast path pushes two tags at most" },
	{ "four pushes", TCP4, CAP,
	  .steps = { PUSH(ETH_P_8021Q, 1, 0), PUSH(ETH_P_8021Q, 2, 0), PUSH(ETH_P_8021Q, 3, 0),
		     PUSH(ETH_P_8021Q, 4, 0), FWD }, .refusal = "fast path pushes two tags at most" },
	{ "802.1ad pushed inside 802.1Q (tc)", TCP4, CAP,
	  .steps = { PUSH(ETH_P_8021AD, 100, 0), PUSH(ETH_P_8021Q, 200, 0), FWD },
	  .refusal = AD_OUTER },
	{ "802.1ad pushed inside 802.1Q (nf_flow_table)", FT4, CAP,
	  .steps = { PUSH(ETH_P_8021Q, 100, 0), PUSH(ETH_P_8021AD, 200, 0), FWD },
	  .refusal = AD_OUTER },
	{ "a tag of TPID 0x9100 pushed", TCP4, CAP, .steps = { PUSH(0x9100, 100, 0), FWD },
	  .refusal = "fast path pushes 802.1Q and 802.1ad tags only" },
	{ "two tags pushed, VLAN 4096 outside", TCP4, CAP,
	  .steps = { PUSH(ETH_P_8021Q, 100, 0), PUSH(ETH_P_8021Q, 4096, 0), FWD },
	  .refusal = PUSH_RANGE },
	{ "three tags popped", TCP4, CAP, TAG(100), CTAG(200), .steps = { POP, POP, POP, FWD },
	  .refusal = "fast path pops two tags at most" },

	/* ---- a coprocessor with NPU_CAP_L2_ENCAP: PPPoE sessions ---- */
	/* nf_flow_table out of ppp0: the session inside the tags, MTU 8 less */
	{ "PPPoE session pushed (nf_flow_table, out of ppp0)", FT4, CAP, .set = { ROUTED },
	  .steps = { SET_DMAC, SET_SMAC, PPPOE_PUSH(5), FWD },
	  .w = { NPU_RW_MAC | NPU_RW_TTL, .l2 = NPU_RW_L2_PPPOE_PUSH, .sid = 5, .mtu = 1492 } },
	{ "PPPoE session pushed in VLAN 7 (nf_flow_table)", FT6, CAP, .set = { ROUTED },
	  .steps = { SET_DMAC, SET_SMAC, PUSH(ETH_P_8021Q, 7, 0), PPPOE_PUSH(0xfffe), FWD },
	  .w = { NPU_RW_MAC | NPU_RW_TTL | NPU_RW_VLAN_PUSH, .l2 = NPU_RW_L2_PPPOE_PUSH,
		 .tci = 7, .sid = 0xfffe, .mtu = 1492 } },
	{ "from VLAN 7 into a session in VLAN 8 (nf_flow_table)", FT4, CAP, TAG(7),
	  .set = { ROUTED }, .steps = { POP, PUSH(ETH_P_8021Q, 8, 0), PPPOE_PUSH(9), FWD },
	  .w = { NPU_RW_VLAN_POP | NPU_RW_VLAN_PUSH | NPU_RW_TTL, .l2 = NPU_RW_L2_PPPOE_PUSH,
		 .tci = 8, .sid = 9, .mtu = 1492 } },
	{ "PPPoE session pushed, a port of MTU 9000", FT4, CAP,
	  .steps = { PPPOE_PUSH(1), REDIRECT(OUT_PORT, 9000) },
	  .w = { .l2 = NPU_RW_L2_PPPOE_PUSH, .sid = 1, .mtu = 8992 } },
	{ "PPPoE session pushed, a port of MTU 70000", FT4, CAP,
	  .steps = { PPPOE_PUSH(1), REDIRECT(OUT_PORT, 70000) },
	  .w = { .l2 = NPU_RW_L2_PPPOE_PUSH, .sid = 1, .mtu = 0xffff } },
	{ "PPPoE session pushed outside a tag (nf_flow_table)", FT4, CAP,
	  .steps = { PPPOE_PUSH(5), PUSH(ETH_P_8021Q, 7, 0), FWD }, .refusal = SES_INSIDE },
	{ "two PPPoE sessions pushed", FT4, CAP, .steps = { PPPOE_PUSH(5), PPPOE_PUSH(6), FWD },
	  .refusal = SES_INSIDE },
	{ "PPPoE session 0 pushed", FT4, CAP, .steps = { PPPOE_PUSH(0), FWD },
	  .refusal = SES_PUSHED },
	{ "PPPoE session 0xffff pushed", FT4, CAP, .steps = { PPPOE_PUSH(0xffff), FWD },
	  .refusal = SES_PUSHED },
	{ "a pop after a PPPoE push", FT4, CAP, TAG(7), .steps = { PPPOE_PUSH(5), POP, FWD },
	  .refusal = "fast path pops a tag before it pushes one" },
	/* flower: a routed rule that matches a session ends it */
	{ "PPPoE session ended (flower, pppoe_sid 5 ppp_proto ip)", TCP4, CAP, SES(5),
	  .steps = { SET_DMAC, SET_SMAC, TTL_DEC4, FWD },
	  .w = { NPU_RW_MAC | NPU_RW_TTL, .l2 = NPU_RW_L2_PPPOE_POP } },
	{ "PPPoE session in VLAN 7 ended, the tag popped", TCP6, CAP, TAG(7), SES(0xfffe),
	  .set = { VLAN_ETYPE(ETH_P_PPP_SES) }, .steps = { POP, TTL_DEC6, FWD },
	  .w = { NPU_RW_VLAN_POP | NPU_RW_TTL, .l2 = NPU_RW_L2_PPPOE_POP } },
	{ "PPPoE session in VLAN 7 ended, the tag kept", TCP4, CAP, TAG(7), SES(1),
	  .steps = { TTL_DEC4, FWD }, .w = { NPU_RW_TTL, .l2 = NPU_RW_L2_PPPOE_POP } },
	{ "PPPoE session in 802.1ad 100 + 802.1Q 200 ended", UDP4, CAP, AD_TAG(100), CTAG(200),
	  SES(5), .set = { VLAN_ETYPE(ETH_P_8021Q), CVLAN_ETYPE(ETH_P_PPP_SES) },
	  .steps = { POP, POP, TTL_DEC4, FWD },
	  .w = { NPU_RW_VLAN_POP | NPU_RW_TTL, .l2 = NPU_RW_L2_POP2 | NPU_RW_L2_PPPOE_POP } },
	{ "PPPoE session bridged", TCP4, CAP, SES(5), .steps = { FWD },
	  .refusal = "fast path ends the PPPoE sessions it routes; it does not bridge them" },
	{ "PPPoE session of another ethertype", TCP4, CAP, SES(5),
	  .set = { D_BE(pppoe.key.type, ETH_P_PPP_DISC) }, .steps = { TTL_DEC4, FWD },
	  .refusal = "fast path matches PPPoE sessions (0x8864) only" },
	{ "PPPoE session id masked", TCP4, CAP, SES(5), .set = { D_BE(pppoe.mask.sid, 0xff00) },
	  .steps = { TTL_DEC4, FWD }, .refusal = SES_ID },
	{ "PPPoE session 0", TCP4, CAP, SES(5), .set = { D(pppoe.key.sid, 0) },
	  .steps = { TTL_DEC4, FWD }, .refusal = SES_ID },
	{ "PPPoE session 0xffff", TCP4, CAP, SES(0xffff), .steps = { TTL_DEC4, FWD },
	  .refusal = SES_ID },
	/* flower without ppp_proto: no n_proto either */
	{ "PPPoE session, no ppp_proto", TCP4, CAP, SES(5),
	  .set = { D(pppoe.mask.ppp_proto, 0), D(basic.key.n_proto, 0), D(basic.mask.n_proto, 0) },
	  .steps = { TTL_DEC4, FWD }, .refusal = PPP_PROTO },
	{ "PPPoE session, ppp_proto ipv6, IPv4 addresses", TCP4, CAP, SES(5),
	  .set = { D_BE(pppoe.key.ppp_proto, 0x0057) }, .steps = { TTL_DEC4, FWD },
	  .refusal = PPP_PROTO },
	{ "PPPoE in VLAN 7, IPv4 after the tag", TCP4, CAP, TAG(7), SES(5),
	  .set = { VLAN_ETYPE(ETH_P_IP) }, .steps = { TTL_DEC4, FWD }, .refusal = ETHERTYPE },
	{ "PPPoE in QinQ, IPv4 after the inner tag", TCP4, CAP, TAG(7), CTAG(8), SES(5),
	  .set = { CVLAN_ETYPE(ETH_P_IP) }, .steps = { TTL_DEC4, FWD }, .refusal = ETHERTYPE },
	/* an 802.1ad push stays nf_flow_table's hole with the cap too */
	{ "802.1ad push of nf_flow_table (an ACCEPT), L2 cap", FT4, CAP,
	  .steps = { ACT(NPUEP_FA_ACCEPT), PUSH(ETH_P_8021Q, 200, 0), FWD },
	  .refusal = "802.1ad tags are not described by the kernel's flowtable (use npuflowd)" },
	/*
	 * its other direction matches the 802.1Q tag alone: the glue finds
	 * no VLAN device of the port for it, or an 802.1ad one with it too
	 */
	{ "802.1Q 200 of nf_flow_table, no such VLAN device of the port", FT4, CAP, TAG(200),
	  .set = { D(ft_tags, NPUEP_FD_FT_TAGS_NODEV) }, .steps = { POP, FWD },
	  .refusal = "flowtable's tags are no VLAN device of the port: an 802.1ad tag lost?" },
	{ "802.1Q 200 of nf_flow_table, also under 802.1ad 100", FT4, CAP, TAG(200),
	  .set = { D(ft_tags, NPUEP_FD_FT_TAGS_UNDER_AD) }, .steps = { POP, FWD },
	  .refusal = "flowtable's tags are also under an 802.1ad device of the port" },
	{ "802.1Q 200 of flower, no such VLAN device (not the flowtable's)", TCP4, CAP,
	  TAG(200), .set = { D(ft_tags, NPUEP_FD_FT_TAGS_NODEV) },
	  .steps = { POP, TTL_DEC4, FWD }, .w = { NPU_RW_VLAN_POP | NPU_RW_TTL } },
	/*
	 * ---- flower into a ppp device: the session and its tags, MACs and
	 * MTU from the path under it (dev_fill_forward_path()) ----
	 */
	{ "into ppp0 over the port", TCP4, CAP, PATH(p_port), .steps = { TTL_DEC4, PPP },
	  .w = { NPU_RW_MAC | NPU_RW_TTL, .l2 = NPU_RW_L2_PPPOE_PUSH, .sid = 5, .mtu = 1492 } },
	/* what npuflowd writes: masquerade to ppp0's address */
	{ "into ppp0, source NAT", TCP4, CAP, PATH(p_port),
	  .steps = { SET(NPUEP_FH_IP4, IP4_SADDR, n4, 4), SET(NPUEP_FH_TCP, 0, port_1024, 2),
		     TTL_DEC4, PPP },
	  .w = { NPU_RW_MAC | NPU_RW_TTL | NPU_RW_SNAT, .l2 = NPU_RW_L2_PPPOE_PUSH, .sid = 5,
		 .mtu = 1492, .saddr = n4, .sport = 1024 } },
	/* the source MAC is the VLAN device's: the first under ppp0 */
	{ "into ppp0 over VLAN 7", TCP6, CAP, PATH(p_vlan7), .steps = { TTL_DEC6, PPP },
	  .w = { NPU_RW_MAC | NPU_RW_TTL | NPU_RW_VLAN_PUSH, .l2 = NPU_RW_L2_PPPOE_PUSH,
		 .tci = 7, .sid = 0xfffe, .mtu = 1492 } },
	{ "into ppp0 over 802.1ad 100 + 802.1Q 200", UDP4, CAP, PATH(p_qinq), .steps = { PPP },
	  .w = { NPU_RW_MAC | NPU_RW_VLAN_PUSH,
		 .l2 = NPU_RW_L2_PPPOE_PUSH | NPU_RW_L2_PUSH2 | NPU_RW_L2_AD2, .tci = 200,
		 .tci2 = 100, .sid = 5, .mtu = 1492 } },
	{ "into ppp0 of MTU 1400", TCP4, CAP, PATH(p_mtu1400), .steps = { PPP },
	  .w = { NPU_RW_MAC, .l2 = NPU_RW_L2_PPPOE_PUSH, .sid = 5, .mtu = 1400 } },
	/* what the port carries: its MTU less the session header */
	{ "into ppp0 of MTU 1500 on a port of 1500", TCP4, CAP, PATH(p_mtu1500),
	  .steps = { PPP },
	  .w = { NPU_RW_MAC, .l2 = NPU_RW_L2_PPPOE_PUSH, .sid = 5, .mtu = 1492 } },
	{ "from VLAN 7, popped, into ppp0", TCP4, CAP, TAG(7), PATH(p_port),
	  .steps = { POP, TTL_DEC4, PPP },
	  .w = { NPU_RW_MAC | NPU_RW_TTL | NPU_RW_VLAN_POP, .l2 = NPU_RW_L2_PPPOE_PUSH,
		 .sid = 5, .mtu = 1492 } },
	{ "from a session into ppp0's", TCP4, CAP, SES(9), PATH(p_port),
	  .steps = { TTL_DEC4, PPP },
	  .w = { NPU_RW_MAC | NPU_RW_TTL, .l2 = NPU_RW_L2_PPPOE_POP | NPU_RW_L2_PPPOE_PUSH,
		 .sid = 5, .mtu = 1492 } },
	/* without the cap ppp0 is a device of no port, as it always was */
	{ "into ppp0, no L2 cap", TCP4, PATH(p_port), .steps = { TTL_DEC4, PPP },
	  .refusal = "redirect target is not a port of this device" },
	{ "into ppp0 with no session up (no path)", TCP4, CAP, .steps = { PPP },
	  .refusal = PPP_DEAD },
	{ "into a ppp device over a VLAN device", INTO_PPP(p_vlan_top), .refusal = PPP_DEAD },
	{ "into ppp0 of session 0", INTO_PPP(p_sid0), .refusal = SES_PUSHED },
	{ "into ppp0 of session 0xffff", INTO_PPP(p_sidffff), .refusal = SES_PUSHED },
	{ "into ppp0 over three VLANs", INTO_PPP(p_3tags), .refusal = PPP_TAGS },
	{ "into ppp0 over a bridge", INTO_PPP(p_bridge), .refusal = PPP_LOWER },
	{ "into ppp0, the path ends in a VLAN", INTO_PPP(p_no_port), .refusal = PPP_LOWER },
	{ "into ppp0 over another device", INTO_PPP(p_foreign), .refusal = PPP_FOREIGN },
	{ "into ppp0 over 802.1ad inside 802.1Q", INTO_PPP(p_ad_inner), .refusal = AD_OUTER },
	{ "into ppp0 over a VLAN of TPID 0x9100", INTO_PPP(p_tpid9100),
	  .refusal = "fast path pushes 802.1Q and 802.1ad tags only" },
	{ "into ppp0 with the MACs set", TCP4, CAP, PATH(p_port),
	  .steps = { SET_DMAC, SET_SMAC, TTL_DEC4, PPP }, .refusal = PPP_MACS },
	{ "into ppp0 with a tag pushed", TCP4, CAP, PATH(p_port),
	  .steps = { PUSH(ETH_P_8021Q, 7, 0), PPP }, .refusal = PPP_PUSH },
	{ "from VLAN 7, kept, into ppp0", TCP4, CAP, TAG(7), PATH(p_port),
	  .steps = { TTL_DEC4, PPP }, .refusal = PPP_POPS },
	{ "from QinQ, one tag popped, into ppp0", TCP4, CAP, TAG(100), CTAG(200), PATH(p_port),
	  .steps = { POP, PPP }, .refusal = PPP_POPS },
	{ "into ppp0, then a port", TCP4, CAP, PATH(p_port), .steps = { PPP, FWD },
	  .refusal = "fast path redirects to one port only" },
};

/* Step @s of a case's actions, added to the rule. */
static void step(const struct pstep *s)
{
	u32 mask = htonl(s->mask), val = htonl(s->val);
	struct npuep_fd_act *a;

	if (s->kind == STEP_SET) {
		set_bytes(s->htype, s->off, s->bytes, s->len);
		return;
	}
	switch (s->id) {
	case NPUEP_FA_MANGLE:
	case NPUEP_FA_ADD:
		pedit(s->id, s->htype, s->off, (const u8 *)&mask, (const u8 *)&val);
		break;
	case NPUEP_FA_REDIRECT:
		redirect(s->port, s->mtu);
		d.act[d.nact - 1].redirect.via_ppp = s->ppp;
		break;
	case NPUEP_FA_VLAN_PUSH:
		a = act(s->id);
		a->vlan.proto = htons(s->tpid);
		a->vlan.vid = s->vid;
		a->vlan.prio = s->prio;
		break;
	case NPUEP_FA_PPPOE_PUSH:
		act(s->id)->pppoe.sid = s->sid;
		break;
	default:
		act(s->id);
	}
}

/* The path of case @c, as the glue reads it. */
static void build_path(const struct pcase *c)
{
	struct npuep_fd_hop *h;
	u32 i;

	assert_true(c->npath <= NPUEP_FD_PATH_MAX);
	d.npath = c->npath;
	for (i = 0; i < c->npath; i++) {
		h = &d.path[i];
		h->type = c->path[i].type;
		h->port = c->path[i].port;
		h->id = c->path[i].id;
		h->proto = htons(c->path[i].tpid);
		h->mtu = c->path[i].mtu;
		if (!c->path[i].mac)
			continue;
		if (h->type == NPUEP_FD_HOP_PPPOE) {
			h->proto = htons(ETH_P_PPP_SES);
			memcpy(h->h_dest, c->path[i].mac, 6);
		} else {
			memcpy(h->addr, c->path[i].mac, 6);
		}
	}
}

/* The description of case @c. */
static void build(const struct pcase *c)
{
	const struct pstep *s;

	if (c->ft)
		rule_ft(c->v6);
	else
		rule(c->v6, c->proto);
	d.l2_encap = c->cap;
	if (c->tagged)
		tag(c->vid);
	if (c->ad)
		d.vlan.key.tpid = htons(ETH_P_8021AD);
	if (c->ctagged)
		ctag(c->cvid);
	if (c->sid)
		session(c->sid, c->v6);
	d.keys |= c->keys_on;
	d.keys &= ~c->keys_off;
	case_fields_set(&d, c->set, ARRAY_SIZE(c->set));
	build_path(c);
	for (s = c->steps; s < c->steps + ARRAY_SIZE(c->steps) && s->kind != STEP_END; s++)
		step(s);
}

/* What case @c, accepted, must give. */
static void want_case(const struct pcase *c)
{
	const struct pwant *w = &c->w;
	u32 alen = c->v6 ? 16 : 4;

	want(c->v6, c->ft ? IPPROTO_TCP : c->proto, w->mtu ? w->mtu : 1500);
	if (c->tagged)
		want_key.vlan = htons(c->vid);
	if (c->ad)
		want_key.l2 = NPU_KEY_L2_AD;
	if (c->ctagged)
		want_key.vlan_inner = htons(c->cvid);
	want_key.pppoe_sid = htons(c->sid);
	want_rw.flags = w->flags;
	want_rw.l2 = w->l2;
	want_rw.vlan_tci2 = htons(w->tci2);
	want_rw.pppoe_sid = htons(w->sid);
	if (w->flags & NPU_RW_MAC) {
		memcpy(want_rw.dmac, dmac, 6);
		memcpy(want_rw.smac, smac, 6);
	}
	want_rw.vlan_tci = htons(w->tci);
	if (w->saddr)
		memcpy(want_rw.nat_saddr, w->saddr, alen);
	if (w->daddr)
		memcpy(want_rw.nat_daddr, w->daddr, alen);
	if (w->sport)
		want_rw.nat_sport = htons(w->sport);
	if (w->dport)
		want_rw.nat_dport = htons(w->dport);
}

static void test_case(void **state)
{
	const struct pcase *c = *state;

	build(c);
	if (c->refusal) {
		refused(c->refusal);
	} else if (c->not_ours) {
		not_ours();
	} else {
		want_case(c);
		accepted();
	}
}

/* ---- rules the table does not describe ------------------------------ */

/* More actions than the description holds: not all of them were read. */
static void test_refuse_too_many(void **state)
{
	int i;

	(void)state;
	rule(0, IPPROTO_TCP);
	for (i = 0; i < NPUEP_FD_ACT_MAX - 1; i++)
		act(NPUEP_FA_CSUM);
	redirect(OUT_PORT, 1500);
	want(0, IPPROTO_TCP, 1500);
	accepted();
	d.nact = NPUEP_FD_ACT_MAX + 1;
	refused("fast path takes at most 24 actions");
}

/* Offsets at the end of each image, and past it in 32-bit arithmetic. */
static void test_mangle_offsets(void **state)
{
	static const u8 keep[4] = { 0xff, 0xff, 0xff, 0xff };
	static const u8 none[4] = { 0, 0, 0, 0 };
	static const u32 past[] = { 0xfffffffc, 0xfffffffd, 0xffffffff, 0x80000000 };
	static const u8 h[] = { NPUEP_FH_ETH, NPUEP_FH_IP4, NPUEP_FH_IP6, NPUEP_FH_TCP };
	unsigned int i, j;

	(void)state;
	/* a word that keeps everything is nothing, where it fits */
	rule(0, IPPROTO_TCP);
	pedit(NPUEP_FA_MANGLE, NPUEP_FH_ETH, 10, keep, none);
	pedit(NPUEP_FA_MANGLE, NPUEP_FH_IP4, 16, keep, none);
	pedit(NPUEP_FA_MANGLE, NPUEP_FH_TCP, 0, keep, none);
	redirect(OUT_PORT, 1500);
	want(0, IPPROTO_TCP, 1500);
	accepted();

	rule(1, IPPROTO_TCP);
	pedit(NPUEP_FA_MANGLE, NPUEP_FH_IP6, 36, keep, none);
	redirect(OUT_PORT, 1500);
	want(1, IPPROTO_TCP, 1500);
	accepted();

	for (i = 0; i < sizeof(h); i++) {
		for (j = 0; j < ARRAY_SIZE(past); j++) {
			rule(h[i] == NPUEP_FH_IP6, IPPROTO_TCP);
			pedit(NPUEP_FA_MANGLE, h[i], past[j], keep, none);
			redirect(OUT_PORT, 1500);
			refused(BAD_MANGLE);
		}
	}
	rule(0, IPPROTO_TCP);
	pedit(NPUEP_FA_MANGLE, NPUEP_FH_TCP, 1, keep, none);
	redirect(OUT_PORT, 1500);
	refused(BAD_MANGLE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_refuse_too_many),
		cmocka_unit_test(test_mangle_offsets),
	};
	struct CMUnitTest table[ARRAY_SIZE(cases)];

	CASE_TESTS(table, cases, test_case);
	return cmocka_run_group_tests_name("npuep_flow_parse cases", table, NULL, NULL) |
	       cmocka_run_group_tests(tests, NULL, NULL);
}
