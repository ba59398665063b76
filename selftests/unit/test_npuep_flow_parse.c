// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the driver's rule parser: the pure part that turns a rule's
 * description into a microflow key and a rewrite
 * (kernel/npuep/flow_parse_pure.c, included directly).  Every refusal is
 * checked for -EOPNOTSUPP and its message, every accepted action for the
 * exact key and rewrite.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "../../kernel/npuep/flow_parse_pure.c"

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
	d.keys |= NPUEP_FD_META | NPUEP_FD_TCP;
	d.meta.key.ingress_ifindex = IN_IF;
	d.meta.mask.ingress_ifindex = -1;
	d.tcp_flags.key = 0;
	d.tcp_flags.mask = htons(0x0005);
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

static void set_macs(void)
{
	set_bytes(NPUEP_FH_ETH, 0, dmac, 6);
	set_bytes(NPUEP_FH_ETH, 6, smac, 6);
}

/* iproute2's "ip ttl dec": add 0xff to byte 8, word 8 */
static void ttl_dec4(void)
{
	static const u8 mask[4] = { 0x00, 0xff, 0xff, 0xff };
	static const u8 val[4] = { 0xff, 0, 0, 0 };

	pedit(NPUEP_FA_ADD, NPUEP_FH_IP4, 8, mask, val);
}

/* iproute2's "ip6 hoplimit dec": add 0xff to byte 7, word 4 */
static void ttl_dec6(void)
{
	static const u8 mask[4] = { 0xff, 0xff, 0xff, 0x00 };
	static const u8 val[4] = { 0, 0, 0, 0xff };

	pedit(NPUEP_FA_ADD, NPUEP_FH_IP6, 4, mask, val);
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

/* ---- accepted rules ---------------------------------------------- */

static void test_forward_v4(void **state)
{
	(void)state;
	rule(0, IPPROTO_TCP);
	redirect(OUT_PORT, 1500);
	want(0, IPPROTO_TCP, 1500);
	accepted();

	rule(0, IPPROTO_UDP);
	redirect(OUT_PORT, 9000);
	want(0, IPPROTO_UDP, 9000);
	accepted();
}

static void test_forward_v6(void **state)
{
	(void)state;
	rule(1, IPPROTO_UDP);
	redirect(OUT_PORT, 1500);
	want(1, IPPROTO_UDP, 1500);
	accepted();
}

/* nf_flow_table's rule: META ingress, TCP flags; routed: TTL decremented. */
static void test_flowtable(void **state)
{
	(void)state;
	rule_ft(0);
	d.routed_ttl = true;
	redirect(OUT_PORT, 1500);
	want(0, IPPROTO_TCP, 1500);
	want_rw.flags = NPU_RW_TTL;
	accepted();
}

/* A rule for another port's ingress: not ours, no message. */
static void test_other_port(void **state)
{
	(void)state;
	rule_ft(0);
	d.meta.key.ingress_ifindex = IN_IF + 1;
	redirect(OUT_PORT, 1500);
	assert_int_equal(parse(), -ENODEV);
	assert_null(msg);
}

static void test_mtu_capped(void **state)
{
	(void)state;
	rule(0, IPPROTO_TCP);
	redirect(OUT_PORT, 70000);
	want(0, IPPROTO_TCP, 0xffff);
	accepted();
}

static void test_vlan_match(void **state)
{
	(void)state;
	rule(0, IPPROTO_TCP);
	d.keys |= NPUEP_FD_VLAN;
	d.vlan.key.id = 100;
	d.vlan.mask.id = 0xfff;
	d.vlan.key.tpid = htons(ETH_P_8021Q);
	d.vlan.mask.tpid = 0xffff;
	redirect(OUT_PORT, 1500);
	want(0, IPPROTO_TCP, 1500);
	want_key.vlan = htons(100);
	accepted();
}

/*
 * The MACs as iproute2 writes them (two words each), as npuflowd does
 * (three words: the one at 4 holds both halves) and as nf_flow_table does.
 */
static void test_mac_rewrite(void **state)
{
	static const u8 keep_hi[4] = { 0xff, 0xff, 0, 0 }, keep_lo[4] = { 0, 0, 0xff, 0xff };
	static const u8 none[4] = { 0, 0, 0, 0 };
	u8 v[4];

	(void)state;
	rule(0, IPPROTO_TCP);
	set_macs();
	redirect(OUT_PORT, 1500);
	want(0, IPPROTO_TCP, 1500);
	want_rw.flags = NPU_RW_MAC;
	memcpy(want_rw.dmac, dmac, 6);
	memcpy(want_rw.smac, smac, 6);
	accepted();

	rule(0, IPPROTO_TCP);
	memcpy(v, dmac, 4);
	pedit(NPUEP_FA_MANGLE, NPUEP_FH_ETH, 0, none, v);
	memcpy(v, dmac + 4, 2);
	memcpy(v + 2, smac, 2);
	pedit(NPUEP_FA_MANGLE, NPUEP_FH_ETH, 4, none, v);
	memcpy(v, smac + 2, 4);
	pedit(NPUEP_FA_MANGLE, NPUEP_FH_ETH, 8, none, v);
	redirect(OUT_PORT, 1500);
	accepted();

	/* nf_flow_table: dst at 0 and 4 (low half), src at 4 (high half) and 8 */
	rule_ft(1);
	memset(v, 0, 2);
	memcpy(v + 2, smac, 2);
	pedit(NPUEP_FA_MANGLE, NPUEP_FH_ETH, 4, keep_hi, v);
	memcpy(v, smac + 2, 4);
	pedit(NPUEP_FA_MANGLE, NPUEP_FH_ETH, 8, none, v);
	memcpy(v, dmac, 4);
	pedit(NPUEP_FA_MANGLE, NPUEP_FH_ETH, 0, none, v);
	memset(v, 0, 4);
	memcpy(v, dmac + 4, 2);
	pedit(NPUEP_FA_MANGLE, NPUEP_FH_ETH, 4, keep_lo, v);
	redirect(OUT_PORT, 1500);
	want(1, IPPROTO_TCP, 1500);
	want_rw.flags = NPU_RW_MAC;
	memcpy(want_rw.dmac, dmac, 6);
	memcpy(want_rw.smac, smac, 6);
	accepted();
}

static void test_snat_v4(void **state)
{
	__be16 p = htons(1024);

	(void)state;
	rule(0, IPPROTO_TCP);
	set_bytes(NPUEP_FH_IP4, offsetof(struct iphdr, saddr), n4, 4);
	set_bytes(NPUEP_FH_TCP, 0, (const u8 *)&p, 2);
	act(NPUEP_FA_CSUM);
	redirect(OUT_PORT, 1500);
	want(0, IPPROTO_TCP, 1500);
	want_rw.flags = NPU_RW_SNAT;
	memcpy(want_rw.nat_saddr, n4, 4);
	want_rw.nat_sport = p;
	accepted();

	/* the port alone is source NAT too, to the same address */
	rule(0, IPPROTO_UDP);
	set_bytes(NPUEP_FH_UDP, 0, (const u8 *)&p, 2);
	redirect(OUT_PORT, 1500);
	want(0, IPPROTO_UDP, 1500);
	want_rw.flags = NPU_RW_SNAT;
	memcpy(want_rw.nat_saddr, a4, 4);
	want_rw.nat_sport = p;
	accepted();
}

static void test_dnat_v4(void **state)
{
	__be16 p = htons(8080);

	(void)state;
	rule(0, IPPROTO_UDP);
	set_bytes(NPUEP_FH_IP4, offsetof(struct iphdr, daddr), n4, 4);
	set_bytes(NPUEP_FH_UDP, 2, (const u8 *)&p, 2);
	act(NPUEP_FA_CSUM);
	redirect(OUT_PORT, 1500);
	want(0, IPPROTO_UDP, 1500);
	want_rw.flags = NPU_RW_DNAT;
	memcpy(want_rw.nat_daddr, n4, 4);
	want_rw.nat_dport = p;
	accepted();
}

static void test_nat_v6(void **state)
{
	__be16 sp = htons(1024), dp = htons(8080);

	(void)state;
	rule(1, IPPROTO_TCP);
	set_bytes(NPUEP_FH_IP6, offsetof(struct ipv6hdr, saddr), n6, 16);
	set_bytes(NPUEP_FH_TCP, 0, (const u8 *)&sp, 2);
	act(NPUEP_FA_CSUM);
	redirect(OUT_PORT, 1500);
	want(1, IPPROTO_TCP, 1500);
	want_rw.flags = NPU_RW_SNAT;
	memcpy(want_rw.nat_saddr, n6, 16);
	want_rw.nat_sport = sp;
	accepted();

	rule(1, IPPROTO_UDP);
	set_bytes(NPUEP_FH_IP6, offsetof(struct ipv6hdr, daddr), n6, 16);
	set_bytes(NPUEP_FH_UDP, 2, (const u8 *)&dp, 2);
	act(NPUEP_FA_CSUM);
	redirect(OUT_PORT, 1500);
	want(1, IPPROTO_UDP, 1500);
	want_rw.flags = NPU_RW_DNAT;
	memcpy(want_rw.nat_daddr, n6, 16);
	want_rw.nat_dport = dp;
	accepted();

	/* both, with the MACs and the hop limit: everything npuflowd writes */
	rule(1, IPPROTO_TCP);
	set_macs();
	set_bytes(NPUEP_FH_IP6, offsetof(struct ipv6hdr, saddr), n6, 16);
	set_bytes(NPUEP_FH_IP6, offsetof(struct ipv6hdr, daddr), b4, 4);
	set_bytes(NPUEP_FH_TCP, 0, (const u8 *)&sp, 2);
	set_bytes(NPUEP_FH_TCP, 2, (const u8 *)&dp, 2);
	ttl_dec6();
	act(NPUEP_FA_CSUM);
	redirect(OUT_PORT, 1500);
	want(1, IPPROTO_TCP, 1500);
	want_rw.flags = NPU_RW_SNAT | NPU_RW_DNAT | NPU_RW_TTL | NPU_RW_MAC;
	memcpy(want_rw.dmac, dmac, 6);
	memcpy(want_rw.smac, smac, 6);
	memcpy(want_rw.nat_saddr, n6, 16);
	memcpy(want_rw.nat_daddr, b4, 4);
	memcpy((u8 *)want_rw.nat_daddr + 4, b6 + 4, 12);
	want_rw.nat_sport = sp;
	want_rw.nat_dport = dp;
	accepted();
}

static void test_ttl_dec(void **state)
{
	(void)state;
	rule(0, IPPROTO_TCP);
	ttl_dec4();
	redirect(OUT_PORT, 1500);
	want(0, IPPROTO_TCP, 1500);
	want_rw.flags = NPU_RW_TTL;
	accepted();

	rule(1, IPPROTO_UDP);
	ttl_dec6();
	redirect(OUT_PORT, 1500);
	want(1, IPPROTO_UDP, 1500);
	want_rw.flags = NPU_RW_TTL;
	accepted();
}

static void test_vlan_push_pop(void **state)
{
	struct npuep_fd_act *a;

	(void)state;
	rule(0, IPPROTO_TCP);
	a = act(NPUEP_FA_VLAN_PUSH);
	a->vlan.proto = htons(ETH_P_8021Q);
	a->vlan.vid = 100;
	a->vlan.prio = 5;
	redirect(OUT_PORT, 1500);
	want(0, IPPROTO_TCP, 1500);
	want_rw.flags = NPU_RW_VLAN_PUSH;
	want_rw.vlan_tci = htons(5 << 13 | 100);
	accepted();

	/* nf_flow_table from one VLAN to another: pop, then push */
	rule_ft(0);
	d.keys |= NPUEP_FD_VLAN;
	d.vlan.key.id = 7;
	d.vlan.mask.id = 0xfff;
	d.vlan.key.tpid = htons(ETH_P_8021Q);
	d.vlan.mask.tpid = 0xffff;
	act(NPUEP_FA_VLAN_POP);
	a = act(NPUEP_FA_VLAN_PUSH);
	a->vlan.proto = htons(ETH_P_8021Q);
	a->vlan.vid = 4095;
	a->vlan.prio = 7;
	redirect(OUT_PORT, 1500);
	want(0, IPPROTO_TCP, 1500);
	want_key.vlan = htons(7);
	want_rw.flags = NPU_RW_VLAN_POP | NPU_RW_VLAN_PUSH;
	want_rw.vlan_tci = htons(0xefff);
	accepted();
}

static void test_csum_only(void **state)
{
	(void)state;
	rule(0, IPPROTO_UDP);
	act(NPUEP_FA_CSUM);
	redirect(OUT_PORT, 1500);
	want(0, IPPROTO_UDP, 1500);
	accepted();
}

/* ---- refusals: matches -------------------------------------------- */

static void test_refuse_keys(void **state)
{
	(void)state;
	rule(0, IPPROTO_TCP);
	redirect(OUT_PORT, 1500);
	d.keys |= NPUEP_FD_OTHER;
	refused("fast path matches port, VLAN, addresses, protocol, ports only");
}

static void test_refuse_no_tuple(void **state)
{
	static const u32 need[] = { NPUEP_FD_CONTROL, NPUEP_FD_BASIC, NPUEP_FD_PORTS };
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(need) / sizeof(need[0]); i++) {
		rule(0, IPPROTO_TCP);
		redirect(OUT_PORT, 1500);
		d.keys &= ~need[i];
		refused("fast path needs an exact 5-tuple (protocol, addresses, ports)");
	}
}

static void test_refuse_control_flags(void **state)
{
	(void)state;
	rule(0, IPPROTO_TCP);
	redirect(OUT_PORT, 1500);
	d.control.mask.flags = 1;	/* FLOW_DIS_IS_FRAGMENT */
	refused("Unsupported match on control.flags");
}

static void test_refuse_proto(void **state)
{
	(void)state;
	rule(0, IPPROTO_ICMP);
	redirect(OUT_PORT, 1500);
	refused("fast path forwards TCP and UDP only (exact ip_proto)");

	rule(0, IPPROTO_TCP);
	redirect(OUT_PORT, 1500);
	d.basic.mask.ip_proto = 0xfe;
	refused("fast path forwards TCP and UDP only (exact ip_proto)");
}

static void test_refuse_addrs(void **state)
{
	(void)state;
	rule(0, IPPROTO_TCP);
	redirect(OUT_PORT, 1500);
	d.ipv4.mask.src = htonl(0xffffff00);
	refused("fast path needs exact IPv4 addresses");

	rule(0, IPPROTO_TCP);
	redirect(OUT_PORT, 1500);
	d.ipv4.mask.dst = 0;
	refused("fast path needs exact IPv4 addresses");

	rule(1, IPPROTO_TCP);
	redirect(OUT_PORT, 1500);
	d.ipv6.mask.src[15] = 0;
	refused("fast path needs exact IPv6 addresses");

	rule(1, IPPROTO_TCP);
	redirect(OUT_PORT, 1500);
	d.ipv6.mask.dst[0] = 0x7f;
	refused("fast path needs exact IPv6 addresses");

	rule(0, IPPROTO_TCP);
	redirect(OUT_PORT, 1500);
	d.control.key.addr_type = NPUEP_FD_ADDR_NONE;
	refused("fast path needs IPv4 or IPv6 addresses");
}

static void test_refuse_ports(void **state)
{
	(void)state;
	rule(0, IPPROTO_TCP);
	redirect(OUT_PORT, 1500);
	d.ports.mask.src = htons(0xff00);
	refused("fast path needs exact L4 ports");

	rule(0, IPPROTO_UDP);
	redirect(OUT_PORT, 1500);
	d.ports.mask.dst = 0;
	refused("fast path needs exact L4 ports");
}

static void test_refuse_tcp_flags(void **state)
{
	(void)state;
	rule_ft(0);
	redirect(OUT_PORT, 1500);
	d.tcp_flags.key = htons(0x0002);
	d.tcp_flags.mask = htons(0x0002);
	refused("fast path cannot match TCP flags (it punts SYN/FIN/RST)");

	rule_ft(0);
	redirect(OUT_PORT, 1500);
	d.tcp_flags.mask = htons(0x0007);
	refused("fast path cannot match TCP flags (it punts SYN/FIN/RST)");
}

static void vlan_rule(u16 vid)
{
	rule(0, IPPROTO_TCP);
	redirect(OUT_PORT, 1500);
	d.keys |= NPUEP_FD_VLAN;
	d.vlan.key.id = vid;
	d.vlan.mask.id = 0xfff;
	d.vlan.key.tpid = htons(ETH_P_8021Q);
	d.vlan.mask.tpid = 0xffff;
}

static void test_refuse_vlan(void **state)
{
	(void)state;
	vlan_rule(10);
	d.vlan.mask.id = 0xff0;
	refused("fast path matches an exact 802.1Q VLAN id only");

	vlan_rule(10);
	d.vlan.mask.priority = 7;
	refused("fast path matches an exact 802.1Q VLAN id only");

	vlan_rule(10);
	d.vlan.key.tpid = htons(0x88a8);
	refused("fast path matches an exact 802.1Q VLAN id only");
}

/* ---- refusals: actions -------------------------------------------- */

#define BAD_MANGLE	"fast path rewrites MACs, addresses, ports and TTL only"

static void test_refuse_mangle(void **state)
{
	static const u8 set[4] = { 0, 0, 0, 0 }, v[4] = { 1, 2, 3, 4 };

	(void)state;
	/* the Ethernet header is 14 bytes: the last word starts at 10 */
	rule(0, IPPROTO_TCP);
	pedit(NPUEP_FA_MANGLE, NPUEP_FH_ETH, 11, set, v);
	redirect(OUT_PORT, 1500);
	refused(BAD_MANGLE);

	/* an IPv4 pedit on an IPv6 rule and the other way round */
	rule(1, IPPROTO_TCP);
	set_bytes(NPUEP_FH_IP4, offsetof(struct iphdr, saddr), n4, 4);
	redirect(OUT_PORT, 1500);
	refused(BAD_MANGLE);

	rule(0, IPPROTO_TCP);
	set_bytes(NPUEP_FH_IP6, offsetof(struct ipv6hdr, saddr), n6, 16);
	redirect(OUT_PORT, 1500);
	refused(BAD_MANGLE);

	/* beyond the ports: the sequence number */
	rule(0, IPPROTO_TCP);
	pedit(NPUEP_FA_MANGLE, NPUEP_FH_TCP, 4, set, v);
	redirect(OUT_PORT, 1500);
	refused(BAD_MANGLE);

	/* beyond the IPv4 header (no options) and the IPv6 header */
	rule(0, IPPROTO_TCP);
	pedit(NPUEP_FA_MANGLE, NPUEP_FH_IP4, 20, set, v);
	redirect(OUT_PORT, 1500);
	refused(BAD_MANGLE);

	rule(1, IPPROTO_TCP);
	pedit(NPUEP_FA_MANGLE, NPUEP_FH_IP6, 40, set, v);
	redirect(OUT_PORT, 1500);
	refused(BAD_MANGLE);

	/* a header the fast path does not parse (pedit's raw network offset) */
	rule(0, IPPROTO_TCP);
	pedit(NPUEP_FA_MANGLE, NPUEP_FH_OTHER, 12, set, v);
	redirect(OUT_PORT, 1500);
	refused(BAD_MANGLE);
}

static void test_refuse_ip_field(void **state)
{
	static const u8 ttl = 64, tc[2] = { 0x0b, 0x80 };

	(void)state;
	rule(0, IPPROTO_TCP);
	set_bytes(NPUEP_FH_IP4, offsetof(struct iphdr, ttl), &ttl, 1);
	redirect(OUT_PORT, 1500);
	refused("fast path rewrites only IP addresses");

	rule(1, IPPROTO_TCP);
	set_bytes(NPUEP_FH_IP6, 0, tc, 2);
	redirect(OUT_PORT, 1500);
	refused("fast path rewrites only IP addresses");
}

static void test_refuse_add(void **state)
{
	static const u8 mask[4] = { 0x00, 0xff, 0xff, 0xff }, one[4] = { 1, 0, 0, 0 };
	static const u8 ff[4] = { 0xff, 0, 0, 0 };

	(void)state;
	/* add to anything but the TTL: here the TOS byte */
	rule(0, IPPROTO_TCP);
	pedit(NPUEP_FA_ADD, NPUEP_FH_IP4, 0, mask, ff);
	redirect(OUT_PORT, 1500);
	refused(BAD_MANGLE);

	/* a TTL increment */
	rule(0, IPPROTO_TCP);
	pedit(NPUEP_FA_ADD, NPUEP_FH_IP4, 8, mask, one);
	redirect(OUT_PORT, 1500);
	refused("fast path adds only 0xff to the TTL (pedit ttl/hoplimit dec)");

	/* add on a header that is neither IPv4 nor IPv6 */
	rule(0, IPPROTO_TCP);
	pedit(NPUEP_FA_ADD, NPUEP_FH_TCP, 0, mask, ff);
	redirect(OUT_PORT, 1500);
	refused(BAD_MANGLE);

	rule(0, IPPROTO_TCP);
	pedit(NPUEP_FA_ADD, NPUEP_FH_ETH, 8, mask, ff);
	redirect(OUT_PORT, 1500);
	refused(BAD_MANGLE);
}

static void test_refuse_mac_half(void **state)
{
	(void)state;
	rule(0, IPPROTO_TCP);
	set_bytes(NPUEP_FH_ETH, 0, dmac, 6);
	redirect(OUT_PORT, 1500);
	refused("fast path rewrites both MAC addresses or none");

	rule(0, IPPROTO_TCP);
	set_bytes(NPUEP_FH_ETH, 0, dmac, 6);
	set_bytes(NPUEP_FH_ETH, 6, smac, 5);
	redirect(OUT_PORT, 1500);
	refused("fast path rewrites both MAC addresses or none");
}

static void test_refuse_redirect(void **state)
{
	(void)state;
	rule(0, IPPROTO_TCP);
	redirect(NPUEP_FD_PORT_FOREIGN, 0);
	refused("redirect target is not a port of this device");

	rule(0, IPPROTO_TCP);
	act(NPUEP_FA_CSUM);
	refused("fast path needs a redirect to a port of this device");
}

static void test_refuse_vlan_actions(void **state)
{
	struct npuep_fd_act *a;

	(void)state;
	rule(0, IPPROTO_TCP);
	a = act(NPUEP_FA_VLAN_PUSH);
	a->vlan.proto = htons(0x88a8);
	a->vlan.vid = 100;
	redirect(OUT_PORT, 1500);
	refused("fast path pushes one 802.1Q tag");

	rule(0, IPPROTO_TCP);
	a = act(NPUEP_FA_VLAN_PUSH);
	a->vlan.proto = htons(ETH_P_8021Q);
	a->vlan.vid = 100;
	a = act(NPUEP_FA_VLAN_PUSH);
	a->vlan.proto = htons(ETH_P_8021Q);
	a->vlan.vid = 200;
	redirect(OUT_PORT, 1500);
	refused("fast path pushes one 802.1Q tag");

	rule(0, IPPROTO_TCP);
	act(NPUEP_FA_VLAN_POP);
	act(NPUEP_FA_VLAN_POP);
	redirect(OUT_PORT, 1500);
	refused("fast path pops one tag");
}

static void test_refuse_other_action(void **state)
{
	(void)state;
	rule(0, IPPROTO_TCP);
	act(NPUEP_FA_OTHER);
	redirect(OUT_PORT, 1500);
	refused("action not supported by the fast path");
}

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

/* ---- refusals: what the parser took and did not mean -------------- */

#define TTL_ADD		"fast path adds only 0xff to the TTL (pedit ttl/hoplimit dec)"

/* Only the exact "ttl dec" / "hoplimit dec" word is a decrement. */
static void test_refuse_ttl_inexact(void **state)
{
	static const u8 none[4] = { 0, 0, 0, 0 }, ttl_keep[4] = { 0, 0xff, 0xff, 0xff };
	static const u8 hl_keep[4] = { 0xff, 0xff, 0xff, 0 }, half[4] = { 0xff, 0xff, 0, 0 };
	static const u8 ff4[4] = { 0xff, 0, 0, 0 }, ff4_more[4] = { 0xff, 1, 0, 0 };
	static const u8 ff6[4] = { 0, 0, 0, 0xff }, ff6_more[4] = { 1, 0, 0, 0xff };

	(void)state;
	/* the add reaches TTL, protocol and checksum */
	rule(0, IPPROTO_TCP);
	pedit(NPUEP_FA_ADD, NPUEP_FH_IP4, 8, none, ff4);
	redirect(OUT_PORT, 1500);
	refused(TTL_ADD);

	/* adds to the protocol byte as well */
	rule(0, IPPROTO_TCP);
	pedit(NPUEP_FA_ADD, NPUEP_FH_IP4, 8, ttl_keep, ff4_more);
	redirect(OUT_PORT, 1500);
	refused(TTL_ADD);

	rule(1, IPPROTO_TCP);
	pedit(NPUEP_FA_ADD, NPUEP_FH_IP6, 4, half, ff6);
	redirect(OUT_PORT, 1500);
	refused(TTL_ADD);

	rule(1, IPPROTO_TCP);
	pedit(NPUEP_FA_ADD, NPUEP_FH_IP6, 4, hl_keep, ff6_more);
	redirect(OUT_PORT, 1500);
	refused(TTL_ADD);

	/* an increment */
	rule(1, IPPROTO_TCP);
	pedit(NPUEP_FA_ADD, NPUEP_FH_IP6, 4, hl_keep, (const u8[4]){ 0, 0, 0, 1 });
	redirect(OUT_PORT, 1500);
	refused(TTL_ADD);
}

/* The IPv4 TTL word on an IPv6 rule is its flow label and payload length. */
static void test_refuse_ttl_family(void **state)
{
	(void)state;
	rule(1, IPPROTO_TCP);
	ttl_dec4();
	redirect(OUT_PORT, 1500);
	refused(BAD_MANGLE);

	rule(0, IPPROTO_TCP);
	ttl_dec6();
	redirect(OUT_PORT, 1500);
	refused(BAD_MANGLE);
}

static void test_refuse_ttl_twice(void **state)
{
	(void)state;
	rule(0, IPPROTO_TCP);
	ttl_dec4();
	ttl_dec4();
	redirect(OUT_PORT, 1500);
	refused("fast path decrements the TTL once");
}

static void test_refuse_meta(void **state)
{
	(void)state;
	rule_ft(0);
	d.meta.mask.l2_miss = 1;
	redirect(OUT_PORT, 1500);
	refused("fast path cannot match l2_miss");

	rule_ft(0);
	d.meta.key.l2_miss = 1;
	d.meta.mask.l2_miss = 0xff;
	redirect(OUT_PORT, 1500);
	refused("fast path cannot match l2_miss");

	rule_ft(0);
	d.meta.key.ingress_iftype = 1;	/* ARPHRD_ETHER */
	d.meta.mask.ingress_iftype = 0xffff;
	redirect(OUT_PORT, 1500);
	refused("fast path cannot match the ingress interface type");

	/* another port's rule stays another port's, whatever else it matches */
	rule_ft(0);
	d.meta.key.ingress_ifindex = IN_IF + 1;
	d.meta.mask.l2_miss = 1;
	redirect(OUT_PORT, 1500);
	assert_int_equal(parse(), -ENODEV);
	assert_null(msg);
}

#define MAC_WHOLE	"fast path rewrites whole MAC addresses only"

/* The Ethernet image starts empty: a byte not set whole would be made up. */
static void test_refuse_mac_partial(void **state)
{
	static const u8 low_nibble[4] = { 0x0f, 0xff, 0xff, 0xff }, keep[4] = { 0xff, 0xff, 0xff, 0xff };
	static const u8 v[4] = { 0x20, 0, 0, 0 }, flip[4] = { 0, 0, 0, 1 };

	(void)state;
	rule(0, IPPROTO_TCP);
	set_macs();
	pedit(NPUEP_FA_MANGLE, NPUEP_FH_ETH, 0, low_nibble, v);
	redirect(OUT_PORT, 1500);
	refused(MAC_WHOLE);

	/* a kept byte with value bits: pedit flips them in the frame */
	rule(0, IPPROTO_TCP);
	set_macs();
	pedit(NPUEP_FA_MANGLE, NPUEP_FH_ETH, 8, keep, flip);
	redirect(OUT_PORT, 1500);
	refused(MAC_WHOLE);

	/* the same alone is not a MAC rewrite the fast path can make either */
	rule(0, IPPROTO_TCP);
	pedit(NPUEP_FA_MANGLE, NPUEP_FH_ETH, 0, keep, flip);
	redirect(OUT_PORT, 1500);
	refused(MAC_WHOLE);
}

static void test_refuse_ethertype(void **state)
{
	static const u8 type[2] = { 0x86, 0xdd }, keep_mac[4] = { 0xff, 0xff, 0, 0 };
	static const u8 v[4] = { 0, 0, 0x86, 0xdd };

	(void)state;
	/* the word at 12 is past the header's end */
	rule(0, IPPROTO_TCP);
	set_macs();
	set_bytes(NPUEP_FH_ETH, 12, type, 2);
	redirect(OUT_PORT, 1500);
	refused(BAD_MANGLE);

	/* the word at 10 holds the ethertype's two bytes */
	rule(0, IPPROTO_TCP);
	set_macs();
	pedit(NPUEP_FA_MANGLE, NPUEP_FH_ETH, 10, keep_mac, v);
	redirect(OUT_PORT, 1500);
	refused(BAD_MANGLE);
}

static void test_refuse_redirect_not_last(void **state)
{
	(void)state;
	rule(0, IPPROTO_TCP);
	redirect(OUT_PORT, 1500);
	redirect(OUT_PORT - 1, 1500);
	refused("fast path redirects to one port only");

	rule(0, IPPROTO_TCP);
	redirect(OUT_PORT, 1500);
	act(NPUEP_FA_CSUM);
	refused("fast path needs the redirect as the last action");

	rule(0, IPPROTO_TCP);
	redirect(OUT_PORT, 1500);
	set_macs();
	refused("fast path needs the redirect as the last action");

	rule(0, IPPROTO_TCP);
	redirect(OUT_PORT, 1500);
	act(NPUEP_FA_VLAN_POP);
	refused("fast path needs the redirect as the last action");
}

/* A field set to the value the empty image holds is still a rewrite. */
static void test_refuse_ip_field_zero(void **state)
{
	static const u8 zero[2] = { 0, 0 };

	(void)state;
	rule(0, IPPROTO_TCP);
	set_bytes(NPUEP_FH_IP4, offsetof(struct iphdr, tos), zero, 1);
	redirect(OUT_PORT, 1500);
	refused("fast path rewrites only IP addresses");

	rule(1, IPPROTO_TCP);
	set_bytes(NPUEP_FH_IP6, 2, zero, 2);	/* flow label */
	redirect(OUT_PORT, 1500);
	refused("fast path rewrites only IP addresses");

	/* the value bits of a kept byte flip it */
	rule(0, IPPROTO_TCP);
	pedit(NPUEP_FA_MANGLE, NPUEP_FH_IP4, 8, (const u8[4]){ 0xff, 0xff, 0xff, 0xff },
	      (const u8[4]){ 0, 0, 0x80, 0 });
	redirect(OUT_PORT, 1500);
	refused("fast path rewrites only IP addresses");
}

/* pedit sets (old & mask) ^ val: value bits under the mask flip. */
static void test_nat_xor(void **state)
{
	static const u8 keep[4] = { 0xff, 0xff, 0xff, 0xff }, flip[4] = { 0, 0, 0, 0x01 };
	u8 s[4];

	(void)state;
	rule(0, IPPROTO_TCP);
	pedit(NPUEP_FA_MANGLE, NPUEP_FH_IP4, offsetof(struct iphdr, saddr), keep, flip);
	redirect(OUT_PORT, 1500);
	want(0, IPPROTO_TCP, 1500);
	memcpy(s, a4, 4);
	s[3] ^= 0x01;
	want_rw.flags = NPU_RW_SNAT;
	memcpy(want_rw.nat_saddr, s, 4);
	accepted();

	/* on the ports too */
	rule(0, IPPROTO_UDP);
	pedit(NPUEP_FA_MANGLE, NPUEP_FH_UDP, 0, keep, flip);
	redirect(OUT_PORT, 1500);
	want(0, IPPROTO_UDP, 1500);
	want_rw.flags = NPU_RW_DNAT;
	memcpy(want_rw.nat_daddr, b4, 4);
	want_rw.nat_dport = htons(DPORT ^ 1);
	accepted();
}

static void test_refuse_push_range(void **state)
{
	struct npuep_fd_act *a;

	(void)state;
	rule(0, IPPROTO_TCP);
	a = act(NPUEP_FA_VLAN_PUSH);
	a->vlan.proto = htons(ETH_P_8021Q);
	a->vlan.vid = 100;
	a->vlan.prio = 8;
	redirect(OUT_PORT, 1500);
	refused("fast path pushes VLAN ids 0-4095 with priority 0-7");

	rule(0, IPPROTO_TCP);
	a = act(NPUEP_FA_VLAN_PUSH);
	a->vlan.proto = htons(ETH_P_8021Q);
	a->vlan.vid = 4096;
	redirect(OUT_PORT, 1500);
	refused("fast path pushes VLAN ids 0-4095 with priority 0-7");
}

/* The coprocessor pops first: a pop after a push would pop the pushed tag. */
static void test_refuse_pop_after_push(void **state)
{
	struct npuep_fd_act *a;

	(void)state;
	vlan_rule(10);
	d.nact = 0;
	a = act(NPUEP_FA_VLAN_PUSH);
	a->vlan.proto = htons(ETH_P_8021Q);
	a->vlan.vid = 20;
	act(NPUEP_FA_VLAN_POP);
	redirect(OUT_PORT, 1500);
	refused("fast path pops a tag before it pushes one");
}

#define ETHERTYPE	"fast path needs the ethertype of its addresses (IPv4 or IPv6)"

static void test_refuse_ethertype_match(void **state)
{
	(void)state;
	rule(0, IPPROTO_TCP);
	d.basic.key.n_proto = htons(ETH_P_IPV6);
	redirect(OUT_PORT, 1500);
	refused(ETHERTYPE);

	/* an outer tag matched alone: the frames carry a second one */
	vlan_rule(10);
	d.basic.key.n_proto = htons(ETH_P_8021Q);
	refused(ETHERTYPE);

	vlan_rule(10);
	d.vlan.key.eth_type = htons(ETH_P_8021AD);
	d.vlan.mask.eth_type = 0xffff;
	refused(ETHERTYPE);

	rule(1, IPPROTO_TCP);
	d.basic.mask.n_proto = htons(0xff00);
	redirect(OUT_PORT, 1500);
	refused(ETHERTYPE);

	/* none at all is the addresses' */
	rule(1, IPPROTO_TCP);
	d.basic.key.n_proto = 0;
	d.basic.mask.n_proto = 0;
	redirect(OUT_PORT, 1500);
	want(1, IPPROTO_TCP, 1500);
	accepted();

	vlan_rule(10);
	d.vlan.key.eth_type = htons(ETH_P_IP);
	d.vlan.mask.eth_type = 0xffff;
	want(0, IPPROTO_TCP, 1500);
	want_key.vlan = htons(10);
	accepted();
}

/*
 * VLAN id 0 is a priority tag: the microflow key's 0 is "untagged", and the
 * coprocessor punts priority-tagged frames (npu_hw.h).
 */
static void test_refuse_priority_tag(void **state)
{
	(void)state;
	vlan_rule(0);
	refused("fast path cannot match a priority tag (VLAN id 0)");

	/* a tag of any TPID: 802.1Q's VLAN 0 all the same */
	vlan_rule(0);
	d.vlan.mask.tpid = 0;
	d.vlan.key.tpid = 0;
	refused("fast path cannot match a priority tag (VLAN id 0)");

	/* VLAN 1 and 4095 are ids */
	vlan_rule(1);
	want(0, IPPROTO_TCP, 1500);
	want_key.vlan = htons(1);
	accepted();
	vlan_rule(4095);
	want_key.vlan = htons(4095);
	accepted();
}

static void test_refuse_vlan_dei(void **state)
{
	(void)state;
	vlan_rule(10);
	d.vlan.mask.dei = 1;
	refused("fast path matches an exact 802.1Q VLAN id only");
}

/* Offsets at the end of each image, and past it in 32-bit arithmetic. */
static void test_mangle_offsets(void **state)
{
	static const u8 keep[4] = { 0xff, 0xff, 0xff, 0xff };
	static const u8 zero[4] = { 0, 0, 0, 0 };
	static const u32 past[] = { 0xfffffffc, 0xfffffffd, 0xffffffff, 0x80000000 };
	static const u8 h[] = { NPUEP_FH_ETH, NPUEP_FH_IP4, NPUEP_FH_IP6, NPUEP_FH_TCP };
	unsigned int i, j;

	(void)state;
	/* a word that keeps everything is nothing, where it fits */
	rule(0, IPPROTO_TCP);
	pedit(NPUEP_FA_MANGLE, NPUEP_FH_ETH, 10, keep, zero);
	pedit(NPUEP_FA_MANGLE, NPUEP_FH_IP4, 16, keep, zero);
	pedit(NPUEP_FA_MANGLE, NPUEP_FH_TCP, 0, keep, zero);
	redirect(OUT_PORT, 1500);
	want(0, IPPROTO_TCP, 1500);
	accepted();

	rule(1, IPPROTO_TCP);
	pedit(NPUEP_FA_MANGLE, NPUEP_FH_IP6, 36, keep, zero);
	redirect(OUT_PORT, 1500);
	want(1, IPPROTO_TCP, 1500);
	accepted();

	for (i = 0; i < sizeof(h); i++) {
		for (j = 0; j < sizeof(past) / sizeof(past[0]); j++) {
			rule(h[i] == NPUEP_FH_IP6, IPPROTO_TCP);
			pedit(NPUEP_FA_MANGLE, h[i], past[j], keep, zero);
			redirect(OUT_PORT, 1500);
			refused(BAD_MANGLE);
		}
	}
	rule(0, IPPROTO_TCP);
	pedit(NPUEP_FA_MANGLE, NPUEP_FH_TCP, 1, keep, zero);
	redirect(OUT_PORT, 1500);
	refused(BAD_MANGLE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_forward_v4),
		cmocka_unit_test(test_forward_v6),
		cmocka_unit_test(test_flowtable),
		cmocka_unit_test(test_other_port),
		cmocka_unit_test(test_mtu_capped),
		cmocka_unit_test(test_vlan_match),
		cmocka_unit_test(test_mac_rewrite),
		cmocka_unit_test(test_snat_v4),
		cmocka_unit_test(test_dnat_v4),
		cmocka_unit_test(test_nat_v6),
		cmocka_unit_test(test_ttl_dec),
		cmocka_unit_test(test_vlan_push_pop),
		cmocka_unit_test(test_csum_only),
		cmocka_unit_test(test_refuse_keys),
		cmocka_unit_test(test_refuse_no_tuple),
		cmocka_unit_test(test_refuse_control_flags),
		cmocka_unit_test(test_refuse_proto),
		cmocka_unit_test(test_refuse_addrs),
		cmocka_unit_test(test_refuse_ports),
		cmocka_unit_test(test_refuse_tcp_flags),
		cmocka_unit_test(test_refuse_vlan),
		cmocka_unit_test(test_refuse_mangle),
		cmocka_unit_test(test_refuse_ip_field),
		cmocka_unit_test(test_refuse_add),
		cmocka_unit_test(test_refuse_mac_half),
		cmocka_unit_test(test_refuse_redirect),
		cmocka_unit_test(test_refuse_vlan_actions),
		cmocka_unit_test(test_refuse_other_action),
		cmocka_unit_test(test_refuse_too_many),
		cmocka_unit_test(test_refuse_ttl_inexact),
		cmocka_unit_test(test_refuse_ttl_family),
		cmocka_unit_test(test_refuse_ttl_twice),
		cmocka_unit_test(test_refuse_meta),
		cmocka_unit_test(test_refuse_mac_partial),
		cmocka_unit_test(test_refuse_ethertype),
		cmocka_unit_test(test_refuse_redirect_not_last),
		cmocka_unit_test(test_refuse_ip_field_zero),
		cmocka_unit_test(test_nat_xor),
		cmocka_unit_test(test_refuse_push_range),
		cmocka_unit_test(test_refuse_pop_after_push),
		cmocka_unit_test(test_refuse_ethertype_match),
		cmocka_unit_test(test_refuse_vlan_dei),
		cmocka_unit_test(test_refuse_priority_tag),
		cmocka_unit_test(test_mangle_offsets),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
