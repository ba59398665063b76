// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the driver's ntuple translation: the pure part that turns
 * an ethtool -N rule into the coprocessor's rule and chooses its location
 * (kernel/npuep/ntuple_pure.c, included directly).  Every refusal is
 * checked for its errno and its message, every accepted flow type and
 * action for the exact rule.  The rules are written as ethtool(8) writes
 * them: a mask bit set is a bit compared.  Most rules are a table of cases
 * (struct ncase), each a cmocka test of its own.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "../../kernel/npuep/ntuple_pure.c"
#include "case_table.h"

#define NQ	4

#define A4	0x0a000302	/* 10.0.3.2 */
#define B4	0x0a000802	/* 10.0.8.2 */
#define SPORT	40000
#define DPORT	5201

/* 2001:db8:0:3::2 and 2001:db8:0:8::2, as words in host order */
static const u32 a6[4] = { 0x20010db8, 0x00000003, 0, 2 };
static const u32 b6[4] = { 0x20010db8, 0x00000008, 0, 2 };
static const u32 ones[4] = { ~0u, ~0u, ~0u, ~0u };

static struct ethtool_rx_flow_spec fs;
static struct npu_ntuple_rule r, want;
static char msg[NPUEP_NT_MSG_LEN];

/* ---- a rule as ethtool writes it ----------------------------------- */

static void be32s(__be32 *to, const u32 *from)
{
	int i;

	for (i = 0; i < 4; i++)
		to[i] = htonl(from[i]);
}

/* No match yet; steer to queue 1; ethtool's default location. */
static void spec(u32 flow_type)
{
	memset(&fs, 0, sizeof(fs));
	fs.flow_type = flow_type;
	fs.ring_cookie = 1;
	fs.location = RX_CLS_LOC_ANY;
}

/* tcp4 or udp4: an exact 4-tuple */
static void l4_v4(u32 flow_type)
{
	struct ethtool_tcpip4_spec *h = &fs.h_u.tcp_ip4_spec;
	struct ethtool_tcpip4_spec *m = &fs.m_u.tcp_ip4_spec;

	spec(flow_type);
	h->ip4src = htonl(A4);
	h->ip4dst = htonl(B4);
	h->psrc = htons(SPORT);
	h->pdst = htons(DPORT);
	m->ip4src = 0xffffffff;
	m->ip4dst = 0xffffffff;
	m->psrc = 0xffff;
	m->pdst = 0xffff;
}

/* tcp6 or udp6: an exact 4-tuple */
static void l4_v6(u32 flow_type)
{
	struct ethtool_tcpip6_spec *h = &fs.h_u.tcp_ip6_spec;
	struct ethtool_tcpip6_spec *m = &fs.m_u.tcp_ip6_spec;

	spec(flow_type);
	be32s(h->ip6src, a6);
	be32s(h->ip6dst, b6);
	h->psrc = htons(SPORT);
	h->pdst = htons(DPORT);
	be32s(m->ip6src, ones);
	be32s(m->ip6dst, ones);
	m->psrc = 0xffff;
	m->pdst = 0xffff;
}

/* ip4: exact addresses and protocol, ip_ver as ethtool sets it */
static void user_v4(u8 proto)
{
	struct ethtool_usrip4_spec *h = &fs.h_u.usr_ip4_spec;
	struct ethtool_usrip4_spec *m = &fs.m_u.usr_ip4_spec;

	spec(IP_USER_FLOW);
	h->ip4src = htonl(A4);
	h->ip4dst = htonl(B4);
	h->ip_ver = ETH_RX_NFC_IP4;
	h->proto = proto;
	m->ip4src = 0xffffffff;
	m->ip4dst = 0xffffffff;
	m->proto = 0xff;
}

/* ip6: exact addresses and next header */
static void user_v6(u8 proto)
{
	struct ethtool_usrip6_spec *h = &fs.h_u.usr_ip6_spec;
	struct ethtool_usrip6_spec *m = &fs.m_u.usr_ip6_spec;

	spec(IPV6_USER_FLOW);
	be32s(h->ip6src, a6);
	be32s(h->ip6dst, b6);
	h->l4_proto = proto;
	be32s(m->ip6src, ones);
	be32s(m->ip6dst, ones);
	m->l4_proto = 0xff;
}

/* ---- what it must give --------------------------------------------- */

static int to_rule_nq(u32 nq)
{
	memset(&r, 0x5a, sizeof(r));
	memset(msg, 'x', sizeof(msg) - 1);
	msg[sizeof(msg) - 1] = '\0';
	return npuep_ntuple_fs_to_rule(&fs, nq, &r, msg);
}

static int to_rule(void)
{
	return to_rule_nq(NQ);
}

/* The rule of l4_v4() / l4_v6() / user_v4() / user_v6(), queue 1. */
static void want_v4(u8 proto, int ports)
{
	memset(&want, 0, sizeof(want));
	want.family = NPU_AF_INET;
	want.proto = proto;
	want.proto_mask = 0xff;
	want.action = NPU_NTUPLE_ACT_QUEUE;
	want.queue = htole16(1);
	want.saddr[0] = htonl(A4);
	want.saddr_mask[0] = 0xffffffff;
	want.daddr[0] = htonl(B4);
	want.daddr_mask[0] = 0xffffffff;
	if (ports) {
		want.sport = htons(SPORT);
		want.sport_mask = 0xffff;
		want.dport = htons(DPORT);
		want.dport_mask = 0xffff;
	}
}

static void want_v6(u8 proto, int ports)
{
	want_v4(proto, ports);
	want.family = NPU_AF_INET6;
	be32s(want.saddr, a6);
	be32s(want.saddr_mask, ones);
	be32s(want.daddr, b6);
	be32s(want.daddr_mask, ones);
}

static void accepted(void)
{
	assert_int_equal(to_rule(), 0);
	assert_string_equal(msg, "");
	assert_memory_equal(&r, &want, sizeof(r));
}

/* The refusal: @err, exactly @why (not cut short), and no rule. */
static void refused_nq(u32 nq, int err, const char *why)
{
	static const struct npu_ntuple_rule zero;

	assert_int_equal(to_rule_nq(nq), err);
	assert_string_equal(msg, why);
	assert_true(strlen(msg) < sizeof(msg) - 1);
	assert_memory_equal(&r, &zero, sizeof(r));
}

static void refused(int err, const char *why)
{
	refused_nq(NQ, err, why);
}

#define NO_EXT		"no VLAN, user-def or MAC match"
#define NO_TOS		"no TOS / traffic class match"
#define NO_L4		"no l4 data match (use tcp/udp flow types for ports)"
#define IP4_ONLY	"ip4 rules are IPv4 only"
#define PROTO		"the protocol matches exactly or not at all"
#define ACTION		"the action is a queue or drop (-1)"

/* ---- the table of cases ---------------------------------------------- */

/* Fields of the rule as ethtool writes it, and of the rule it must give. */
#define FS(f, v)	CASE_FIELD(struct ethtool_rx_flow_spec, f, CF_HOST, v)
#define FS_BE(f, v)	CASE_FIELD(struct ethtool_rx_flow_spec, f, CF_BE, v)
#define W(f, v)		CASE_FIELD(struct npu_ntuple_rule, f, CF_HOST, v)
#define W_LE(f, v)	CASE_FIELD(struct npu_ntuple_rule, f, CF_LE, v)

/**
 * struct ncase - a rule and what the translation must say of it
 * @name: the case, as cmocka names its test
 * @flow: the rule's flow type and flags: tcp4 and udp4 as l4_v4() writes
 *	them, tcp6 and udp6 as l4_v6(), ip4 and ip6 as user_v4() and
 *	user_v6(), any other as spec()
 * @proto: ip4 and ip6: the protocol
 * @set: fields of the rule set after those
 * @err: the errno of a refusal, or 0
 * @refusal: its message
 * @want: else the rule is accepted: fields of the rule it gives that are
 *	not want_v4()'s or want_v6()'s
 */
struct ncase {
	const char *name;
	u32 flow;
	u8 proto;
	struct case_field set[1];
	int err;
	const char *refusal;
	struct case_field want[2];
};

#define TCP4		.flow = TCP_V4_FLOW
#define UDP4		.flow = UDP_V4_FLOW
#define TCP6		.flow = TCP_V6_FLOW
#define UDP6		.flow = UDP_V6_FLOW
#define IP4(p)		.flow = IP_USER_FLOW, .proto = (p)
#define IP6(p)		.flow = IPV6_USER_FLOW, .proto = (p)
#define NOTSUPP(m)	.err = -EOPNOTSUPP, .refusal = (m)
#define INVAL(m)	.err = -EINVAL, .refusal = (m)
#define FLOW_TYPE(t)	"flow type " t " not supported (tcp4 udp4 ip4 tcp6 udp6 ip6)"
#define DROP		.want = { W(action, NPU_NTUPLE_ACT_DROP), W_LE(queue, 0) }
#define ANY_PROTO	.want = { W(proto, 0), W(proto_mask, 0) }

static const struct ncase cases[] = {
	/* ---- accepted: flow types and fields ---- */
	{ "tcp4", TCP4 },
	{ "udp4", UDP4 },
	{ "tcp6", TCP6 },
	{ "udp6", UDP6 },
	{ "ip4", IP4(IPPROTO_ICMP) },
	/* ip_ver left 0 is taken as IPv4 too */
	{ "ip4, ip_ver 0", IP4(IPPROTO_ICMP), .set = { FS(h_u.usr_ip4_spec.ip_ver, 0) } },
	{ "ip6", IP6(IPPROTO_ICMPV6) },
	/* the protocol of ip4 and ip6 under mask 0: any, the value dropped */
	{ "ip4, any protocol", IP4(IPPROTO_UDP),
	  .set = { FS(m_u.usr_ip4_spec.proto, 0) }, ANY_PROTO },
	{ "ip6, any protocol", IP6(IPPROTO_UDP),
	  .set = { FS(m_u.usr_ip6_spec.l4_proto, 0) }, ANY_PROTO },
	/* a TOS value under no mask is no match */
	{ "tcp4, a TOS value unmasked", TCP4, .set = { FS(h_u.tcp_ip4_spec.tos, 0x10) } },

	/* ---- accepted: actions ---- */
	{ "udp4, drop", UDP4, .set = { FS(ring_cookie, RX_CLS_FLOW_DISC) }, DROP },
	{ "ip6, drop", IP6(IPPROTO_TCP), .set = { FS(ring_cookie, RX_CLS_FLOW_DISC) }, DROP },
	{ "queue 0", TCP6, .set = { FS(ring_cookie, 0) }, .want = { W_LE(queue, 0) } },
	{ "the last queue", TCP6, .set = { FS(ring_cookie, NQ - 1) },
	  .want = { W_LE(queue, NQ - 1) } },
	/* the rule does not depend on where it goes */
	{ "location 7", TCP4, .set = { FS(location, 7) } },
	{ "location 0xdeadbeef", TCP4, .set = { FS(location, 0xdeadbeef) } },

	/* ---- refused ---- */
	{ "RSS context", .flow = TCP_V4_FLOW | FLOW_RSS,
	  NOTSUPP("RSS contexts are not supported") },
	{ "VLAN ethertype", .flow = TCP_V4_FLOW | FLOW_EXT,
	  .set = { FS_BE(m_ext.vlan_etype, 0x0001) }, NOTSUPP(NO_EXT) },
	{ "VLAN TCI", .flow = TCP_V4_FLOW | FLOW_EXT, .set = { FS_BE(m_ext.vlan_tci, 0x0fff) },
	  NOTSUPP(NO_EXT) },
	{ "user-def word 0", .flow = TCP_V4_FLOW | FLOW_EXT, .set = { FS_BE(m_ext.data[0], 1) },
	  NOTSUPP(NO_EXT) },
	{ "user-def word 1", .flow = TCP_V4_FLOW | FLOW_EXT,
	  .set = { FS_BE(m_ext.data[1], 0x80000000) }, NOTSUPP(NO_EXT) },
	{ "destination MAC, first byte", .flow = TCP_V4_FLOW | FLOW_MAC_EXT,
	  .set = { FS(m_ext.h_dest[0], 0x01) }, NOTSUPP(NO_EXT) },
	{ "destination MAC, last byte", .flow = TCP_V4_FLOW | FLOW_MAC_EXT,
	  .set = { FS(m_ext.h_dest[ETH_ALEN - 1], 0x80) }, NOTSUPP(NO_EXT) },
	{ "sctp4", .flow = SCTP_V4_FLOW, NOTSUPP(FLOW_TYPE("0x3")) },
	{ "ah4 / esp4", .flow = AH_ESP_V4_FLOW, NOTSUPP(FLOW_TYPE("0x4")) },
	{ "esp6", .flow = ESP_V6_FLOW, NOTSUPP(FLOW_TYPE("0xc")) },
	{ "IPV4_FLOW", .flow = IPV4_FLOW, NOTSUPP(FLOW_TYPE("0x10")) },
	{ "ether", .flow = ETHER_FLOW, NOTSUPP(FLOW_TYPE("0x12")) },
	{ "flow type 0", .flow = 0, NOTSUPP(FLOW_TYPE("0")) },
	/* the type is named without its flags */
	{ "sctp6 with both ext flags", .flow = SCTP_V6_FLOW | FLOW_EXT | FLOW_MAC_EXT,
	  NOTSUPP(FLOW_TYPE("0x7")) },
	{ "tcp4 TOS", TCP4, .set = { FS(m_u.tcp_ip4_spec.tos, 0xfc) }, NOTSUPP(NO_TOS) },
	{ "udp4 TOS", UDP4, .set = { FS(m_u.udp_ip4_spec.tos, 0x01) }, NOTSUPP(NO_TOS) },
	{ "ip4 TOS", IP4(IPPROTO_TCP), .set = { FS(m_u.usr_ip4_spec.tos, 0xff) },
	  NOTSUPP(NO_TOS) },
	{ "tcp6 traffic class", TCP6, .set = { FS(m_u.tcp_ip6_spec.tclass, 0x80) },
	  NOTSUPP(NO_TOS) },
	{ "udp6 traffic class", UDP6, .set = { FS(m_u.udp_ip6_spec.tclass, 0xff) },
	  NOTSUPP(NO_TOS) },
	{ "ip6 traffic class", IP6(IPPROTO_TCP),
	  .set = { FS(m_u.usr_ip6_spec.tclass, 0x04) }, NOTSUPP(NO_TOS) },
	{ "ip4 l4 data", IP4(IPPROTO_UDP),
	  .set = { FS_BE(m_u.usr_ip4_spec.l4_4_bytes, 0xffff0000) }, NOTSUPP(NO_L4) },
	{ "ip6 l4 data", IP6(IPPROTO_UDP),
	  .set = { FS_BE(m_u.usr_ip6_spec.l4_4_bytes, 1) }, NOTSUPP(NO_L4) },
	{ "ip4 ip_ver masked", IP4(IPPROTO_TCP),
	  .set = { FS(m_u.usr_ip4_spec.ip_ver, 0xff) }, INVAL(IP4_ONLY) },
	{ "ip4 ip_ver 6", IP4(IPPROTO_TCP), .set = { FS(h_u.usr_ip4_spec.ip_ver, 6) },
	  INVAL(IP4_ONLY) },
	{ "ip4 protocol masked in part", IP4(IPPROTO_TCP),
	  .set = { FS(m_u.usr_ip4_spec.proto, 0x0f) }, INVAL(PROTO) },
	{ "ip6 protocol masked in part", IP6(IPPROTO_TCP),
	  .set = { FS(m_u.usr_ip6_spec.l4_proto, 0x80) }, INVAL(PROTO) },
	{ "wake-on-LAN action", TCP4, .set = { FS(ring_cookie, RX_CLS_FLOW_WAKE) },
	  NOTSUPP(ACTION) },
	/* ethtool's "vf 0": VF field 1, queue 0 */
	{ "VF 0", TCP4, .set = { FS(ring_cookie, 1ULL << ETHTOOL_RX_FLOW_SPEC_RING_VF_OFF) },
	  NOTSUPP(ACTION) },
	{ "VF field, queue 1", TCP4,
	  .set = { FS(ring_cookie, ETHTOOL_RX_FLOW_SPEC_RING_VF | 1) }, NOTSUPP(ACTION) },
	{ "queue 4 of 4", TCP4, .set = { FS(ring_cookie, NQ) },
	  INVAL("queue 4 is beyond the 4 active queues (ethtool -L)") },
	{ "the largest queue", TCP4, .set = { FS(ring_cookie, ETHTOOL_RX_FLOW_SPEC_RING) },
	  INVAL("queue 4294967295 is beyond the 4 active queues (ethtool -L)") },
};

/* The rule of case @c, as ethtool writes its flow type. */
static void build(const struct ncase *c)
{
	switch (c->flow & ~(FLOW_EXT | FLOW_MAC_EXT | FLOW_RSS)) {
	case TCP_V4_FLOW:
	case UDP_V4_FLOW:
		l4_v4(c->flow);
		break;
	case TCP_V6_FLOW:
	case UDP_V6_FLOW:
		l4_v6(c->flow);
		break;
	case IP_USER_FLOW:
		user_v4(c->proto);
		break;
	case IPV6_USER_FLOW:
		user_v6(c->proto);
		break;
	default:
		spec(c->flow);
	}
	case_fields_set(&fs, c->set, ARRAY_SIZE(c->set));
}

/* What case @c, accepted, must give. */
static void want_case(const struct ncase *c)
{
	switch (c->flow) {
	case TCP_V4_FLOW:
		want_v4(IPPROTO_TCP, 1);
		break;
	case UDP_V4_FLOW:
		want_v4(IPPROTO_UDP, 1);
		break;
	case TCP_V6_FLOW:
		want_v6(IPPROTO_TCP, 1);
		break;
	case UDP_V6_FLOW:
		want_v6(IPPROTO_UDP, 1);
		break;
	case IP_USER_FLOW:
		want_v4(c->proto, 0);
		break;
	case IPV6_USER_FLOW:
		want_v6(c->proto, 0);
		break;
	default:
		fail_msg("flow type 0x%x accepted", c->flow);
	}
	case_fields_set(&want, c->want, ARRAY_SIZE(c->want));
}

static void test_case(void **state)
{
	const struct ncase *c = *state;

	build(c);
	if (c->err) {
		refused(c->err, c->refusal);
	} else {
		want_case(c);
		accepted();
	}
}

/* ---- rules the table does not describe -------------------------------- */

static void test_masks_v4(void **state)
{
	(void)state;
	l4_v4(UDP_V4_FLOW);
	fs.m_u.tcp_ip4_spec.ip4src = htonl(0xffffff00);
	fs.m_u.tcp_ip4_spec.ip4dst = htonl(0xffff0000);
	fs.m_u.tcp_ip4_spec.psrc = htons(0xff00);
	fs.m_u.tcp_ip4_spec.pdst = htons(0x00ff);
	want_v4(IPPROTO_UDP, 1);
	want.saddr[0] = htonl(0x0a000300);
	want.saddr_mask[0] = htonl(0xffffff00);
	want.daddr[0] = htonl(0x0a000000);
	want.daddr_mask[0] = htonl(0xffff0000);
	want.sport = htons(SPORT & 0xff00);
	want.sport_mask = htons(0xff00);
	want.dport = htons(DPORT & 0x00ff);
	want.dport_mask = htons(0x00ff);
	accepted();

	user_v4(IPPROTO_TCP);
	fs.m_u.usr_ip4_spec.ip4src = htonl(0xfff00000);
	fs.m_u.usr_ip4_spec.ip4dst = 0;
	want_v4(IPPROTO_TCP, 0);
	want.saddr[0] = htonl(0x0a000000);
	want.saddr_mask[0] = htonl(0xfff00000);
	want.daddr[0] = 0;
	want.daddr_mask[0] = 0;
	accepted();
}

static void test_masks_v6(void **state)
{
	static const u32 m64[4] = { ~0u, ~0u, 0, 0 };
	static const u32 m60[4] = { ~0u, 0xfffffff0, 0, 0 };
	static const u32 p64[4] = { 0x20010db8, 0x00000003, 0, 0 };
	static const u32 p60[4] = { 0x20010db8, 0, 0, 0 };

	(void)state;
	l4_v6(TCP_V6_FLOW);
	be32s(fs.m_u.tcp_ip6_spec.ip6src, m64);
	be32s(fs.m_u.tcp_ip6_spec.ip6dst, m60);
	fs.m_u.tcp_ip6_spec.psrc = 0;
	fs.m_u.tcp_ip6_spec.pdst = htons(0xfff0);
	want_v6(IPPROTO_TCP, 1);
	be32s(want.saddr, p64);
	be32s(want.saddr_mask, m64);
	be32s(want.daddr, p60);
	be32s(want.daddr_mask, m60);
	want.sport = 0;
	want.sport_mask = 0;
	want.dport = htons(DPORT & 0xfff0);
	want.dport_mask = htons(0xfff0);
	accepted();

	user_v6(IPPROTO_ICMPV6);
	be32s(fs.m_u.usr_ip6_spec.ip6src, m64);
	memset(fs.m_u.usr_ip6_spec.ip6dst, 0, 16);
	want_v6(IPPROTO_ICMPV6, 0);
	be32s(want.saddr, p64);
	be32s(want.saddr_mask, m64);
	memset(want.daddr, 0, 16);
	memset(want.daddr_mask, 0, 16);
	accepted();
}

/* Nothing masked: every TCP frame, every IPv6 frame. */
static void test_match_all(void **state)
{
	(void)state;
	l4_v4(TCP_V4_FLOW);
	memset(&fs.m_u, 0, sizeof(fs.m_u));
	memset(&want, 0, sizeof(want));
	want.family = NPU_AF_INET;
	want.proto = IPPROTO_TCP;
	want.proto_mask = 0xff;
	want.queue = htole16(1);
	accepted();

	user_v6(IPPROTO_TCP);
	memset(&fs.m_u, 0, sizeof(fs.m_u));
	memset(&want, 0, sizeof(want));
	want.family = NPU_AF_INET6;
	want.queue = htole16(1);
	accepted();
}

/*
 * An IPv4 rule reads only its spec: bytes of the union past it are not
 * fields, and words 1..3 of its addresses stay zero.
 */
static void test_v4_reads_its_spec(void **state)
{
	size_t end;

	(void)state;
	l4_v4(TCP_V4_FLOW);
	end = offsetof(struct ethtool_tcpip4_spec, tos) + 1;
	memset(fs.h_u.hdata + end, 0xee, sizeof(fs.h_u) - end);
	memset(fs.m_u.hdata + end, 0xff, sizeof(fs.m_u) - end);
	want_v4(IPPROTO_TCP, 1);
	accepted();

	user_v4(IPPROTO_UDP);
	end = offsetof(struct ethtool_usrip4_spec, proto) + 1;
	memset(fs.h_u.hdata + end, 0xee, sizeof(fs.h_u) - end);
	memset(fs.m_u.hdata + end, 0xff, sizeof(fs.m_u) - end);
	want_v4(IPPROTO_UDP, 0);
	accepted();
}

/* FLOW_EXT / FLOW_MAC_EXT with nothing masked, or masks without them. */
static void test_ext_unmatched(void **state)
{
	(void)state;
	l4_v4(TCP_V4_FLOW | FLOW_EXT | FLOW_MAC_EXT);
	fs.h_ext.vlan_tci = htons(5);
	fs.h_ext.vlan_etype = htons(0x8100);
	fs.h_ext.data[0] = htonl(1);
	fs.h_ext.data[1] = htonl(2);
	memset(fs.h_ext.h_dest, 0x02, ETH_ALEN);
	want_v4(IPPROTO_TCP, 1);
	accepted();

	l4_v4(TCP_V4_FLOW);
	fs.m_ext.vlan_tci = 0xffff;
	fs.m_ext.vlan_etype = 0xffff;
	fs.m_ext.data[0] = 0xffffffff;
	fs.m_ext.data[1] = 0xffffffff;
	memset(fs.m_ext.h_dest, 0xff, ETH_ALEN);
	accepted();

	/* FLOW_EXT's masks mean nothing for the MAC, FLOW_MAC_EXT's for the rest */
	l4_v4(TCP_V4_FLOW | FLOW_EXT);
	memset(fs.m_ext.h_dest, 0xff, ETH_ALEN);
	accepted();
	l4_v4(TCP_V4_FLOW | FLOW_MAC_EXT);
	fs.m_ext.vlan_tci = 0xffff;
	fs.m_ext.data[1] = 0xffffffff;
	accepted();
}

/* Drop needs no queue at all; a queue is below the count, up to the largest. */
static void test_queue_count(void **state)
{
	(void)state;
	user_v6(IPPROTO_TCP);
	fs.ring_cookie = RX_CLS_FLOW_DISC;
	want_v6(IPPROTO_TCP, 0);
	want.action = NPU_NTUPLE_ACT_DROP;
	want.queue = 0;
	assert_int_equal(to_rule_nq(0), 0);
	assert_memory_equal(&r, &want, sizeof(r));

	l4_v6(TCP_V6_FLOW);
	fs.ring_cookie = NPU_MAX_QUEUES - 1;
	want_v6(IPPROTO_TCP, 1);
	want.queue = htole16(NPU_MAX_QUEUES - 1);
	assert_int_equal(to_rule_nq(NPU_MAX_QUEUES), 0);
	assert_memory_equal(&r, &want, sizeof(r));

	l4_v4(TCP_V4_FLOW);
	fs.ring_cookie = 0;
	refused_nq(0, -EINVAL,
		   "queue 0 is beyond the 0 active queues (ethtool -L)");
}

static void test_refuse_order(void **state)
{
	(void)state;
	spec(ETHER_FLOW | FLOW_RSS | FLOW_EXT);
	fs.m_ext.vlan_tci = 0xffff;
	refused(-EOPNOTSUPP, "RSS contexts are not supported");

	spec(ETHER_FLOW | FLOW_EXT);
	fs.m_ext.vlan_tci = 0xffff;
	refused(-EOPNOTSUPP, NO_EXT);

	user_v4(IPPROTO_TCP);
	fs.m_u.usr_ip4_spec.tos = 0xff;
	fs.m_u.usr_ip4_spec.l4_4_bytes = 0xffffffff;
	fs.m_u.usr_ip4_spec.ip_ver = 0xff;
	fs.m_u.usr_ip4_spec.proto = 0x0f;
	fs.ring_cookie = RX_CLS_FLOW_WAKE;
	refused(-EOPNOTSUPP, NO_TOS);
	fs.m_u.usr_ip4_spec.tos = 0;
	refused(-EOPNOTSUPP, NO_L4);
	fs.m_u.usr_ip4_spec.l4_4_bytes = 0;
	refused(-EINVAL, IP4_ONLY);
	fs.m_u.usr_ip4_spec.ip_ver = 0;
	refused(-EINVAL, PROTO);
	fs.m_u.usr_ip4_spec.proto = 0xff;
	refused(-EOPNOTSUPP, ACTION);

	user_v6(IPPROTO_TCP);
	fs.m_u.usr_ip6_spec.tclass = 0xff;
	fs.m_u.usr_ip6_spec.l4_4_bytes = 0xffffffff;
	fs.m_u.usr_ip6_spec.l4_proto = 0x0f;
	fs.ring_cookie = NQ;
	refused(-EOPNOTSUPP, NO_TOS);
	fs.m_u.usr_ip6_spec.tclass = 0;
	refused(-EOPNOTSUPP, NO_L4);
	fs.m_u.usr_ip6_spec.l4_4_bytes = 0;
	refused(-EINVAL, PROTO);
	fs.m_u.usr_ip6_spec.l4_proto = 0xff;
	refused(-EINVAL, "queue 4 is beyond the 4 active queues (ethtool -L)");
}

/* ---- locations ------------------------------------------------------- */

static DECLARE_BITMAP(used, NPU_NTUPLE_RULES);

static void use(u32 from, u32 to)
{
	for (; from < to; from++)
		used[from / BITS_PER_LONG] |= 1UL << (from % BITS_PER_LONG);
}

static void use_all_but(u32 free_loc)
{
	memset(used, 0, sizeof(used));
	use(0, NPU_NTUPLE_RULES);
	used[free_loc / BITS_PER_LONG] &= ~(1UL << (free_loc % BITS_PER_LONG));
}

static int loc_find(u32 loc)
{
	memset(msg, 'x', sizeof(msg) - 1);
	msg[sizeof(msg) - 1] = '\0';
	return npuep_ntuple_loc_find(loc, used, msg);
}

static void loc_is(u32 loc, int want_loc)
{
	assert_int_equal(loc_find(loc), want_loc);
	assert_string_equal(msg, "");
}

static void loc_refused(u32 loc, int err, const char *why)
{
	assert_int_equal(loc_find(loc), err);
	assert_string_equal(msg, why);
}

/* A location given is the location, free or held (the rule is replaced). */
static void test_loc_given(void **state)
{
	(void)state;
	memset(used, 0, sizeof(used));
	loc_is(0, 0);
	loc_is(NPU_NTUPLE_RULES - 1, NPU_NTUPLE_RULES - 1);
	use(0, NPU_NTUPLE_RULES);
	loc_is(5, 5);
	loc_is(NPU_NTUPLE_RULES - 1, NPU_NTUPLE_RULES - 1);
}

static void test_loc_beyond(void **state)
{
	(void)state;
	memset(used, 0, sizeof(used));
	loc_refused(NPU_NTUPLE_RULES, -EINVAL, "location 128 is not below 128");
	loc_refused(RX_CLS_LOC_SPECIAL - 1, -EINVAL,
		    "location 2147483647 is not below 128");
}

static void test_loc_first(void **state)
{
	(void)state;
	memset(used, 0, sizeof(used));
	loc_is(RX_CLS_LOC_ANY, 0);
	loc_is(RX_CLS_LOC_FIRST, 0);

	use(0, 5);
	loc_is(RX_CLS_LOC_ANY, 5);
	loc_is(RX_CLS_LOC_FIRST, 5);

	/* across a word of the bitmap */
	use(0, BITS_PER_LONG);
	loc_is(RX_CLS_LOC_FIRST, BITS_PER_LONG);

	use_all_but(NPU_NTUPLE_RULES - 1);
	loc_is(RX_CLS_LOC_ANY, NPU_NTUPLE_RULES - 1);
	use_all_but(0);
	loc_is(RX_CLS_LOC_FIRST, 0);
}

static void test_loc_last(void **state)
{
	(void)state;
	memset(used, 0, sizeof(used));
	loc_is(RX_CLS_LOC_LAST, NPU_NTUPLE_RULES - 1);

	use(NPU_NTUPLE_RULES - 2, NPU_NTUPLE_RULES);
	loc_is(RX_CLS_LOC_LAST, NPU_NTUPLE_RULES - 3);

	use_all_but(BITS_PER_LONG);
	loc_is(RX_CLS_LOC_LAST, BITS_PER_LONG);
	use_all_but(BITS_PER_LONG - 1);
	loc_is(RX_CLS_LOC_LAST, BITS_PER_LONG - 1);
	use_all_but(0);
	loc_is(RX_CLS_LOC_LAST, 0);
}

static void test_loc_full(void **state)
{
	(void)state;
	memset(used, 0, sizeof(used));
	use(0, NPU_NTUPLE_RULES);
	loc_refused(RX_CLS_LOC_ANY, -ENOSPC, "the table is full (128 rules)");
	loc_refused(RX_CLS_LOC_FIRST, -ENOSPC, "the table is full (128 rules)");
	loc_refused(RX_CLS_LOC_LAST, -ENOSPC, "the table is full (128 rules)");
}

/* Of the special locations only these three: another is said so. */
static void test_loc_special_other(void **state)
{
	(void)state;
	memset(used, 0, sizeof(used));
	loc_refused(RX_CLS_LOC_SPECIAL, -EINVAL,
		    "special location 0x80000000 is not RX_CLS_LOC_ANY, FIRST or LAST");
	loc_refused(RX_CLS_LOC_LAST - 1, -EINVAL,
		    "special location 0xfffffffc is not RX_CLS_LOC_ANY, FIRST or LAST");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_masks_v4),
		cmocka_unit_test(test_masks_v6),
		cmocka_unit_test(test_match_all),
		cmocka_unit_test(test_v4_reads_its_spec),
		cmocka_unit_test(test_ext_unmatched),
		cmocka_unit_test(test_queue_count),
		cmocka_unit_test(test_refuse_order),
		cmocka_unit_test(test_loc_given),
		cmocka_unit_test(test_loc_beyond),
		cmocka_unit_test(test_loc_first),
		cmocka_unit_test(test_loc_last),
		cmocka_unit_test(test_loc_full),
		cmocka_unit_test(test_loc_special_other),
	};
	struct CMUnitTest table[ARRAY_SIZE(cases)];

	CASE_TESTS(table, cases, test_case);
	return cmocka_run_group_tests_name("npuep_ntuple cases", table, NULL, NULL) |
	       cmocka_run_group_tests(tests, NULL, NULL);
}
