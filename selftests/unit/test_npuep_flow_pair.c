// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the driver's pairing of a connection's directions
 * (kernel/npuep/flow_pair_pure.c, included directly): the key a
 * direction's reply arrives with, through tags and PPPoE sessions, and
 * the completion of a flowtable direction that arrives in a session from
 * the other direction's push, in either order the kernel offers them.
 *
 * The keys and rewrites are the parser's for nf_flow_table's rules
 * (test_npuep_flow_parse has them): a LAN port 2 untagged, a WAN port 7,
 * the WAN side in PPPoE session 5 inside VLAN 7 or untagged, masquerade.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "../../kernel/npuep/flow_pair_pure.c"
#include "case_table.h"

#define LAN	2
#define WAN	7
#define SID	5
#define CPORT	40000	/* the client's port */
#define SPORT	443	/* the server's */
#define NPORT	1024	/* the client's port after SNAT */

#define client	htonl(0x0a000302)	/* 10.0.3.2 */
#define server	htonl(0xc6336401)	/* 198.51.100.1 */
#define pppaddr	htonl(0xcb007101)	/* 203.0.113.1 */

/* LAN -> WAN (f): the client's packets, SNAT, pushed into the session. */
static void lan_to_wan(struct npu_mflow_key *k, struct npu_rewrite *rw, u16 vid)
{
	memset(k, 0, sizeof(*k));
	k->port = LAN;
	k->family = NPU_AF_INET;
	k->proto = IPPROTO_TCP;
	k->saddr[0] = client;
	k->daddr[0] = server;
	k->sport = htons(CPORT);
	k->dport = htons(SPORT);
	memset(rw, 0, sizeof(*rw));
	rw->egress_port = WAN;
	rw->flags = NPU_RW_SNAT | NPU_RW_TTL | NPU_RW_MAC;
	rw->mtu = htole16(1492);
	rw->nat_saddr[0] = pppaddr;
	rw->nat_daddr[0] = server;
	rw->nat_sport = htons(NPORT);
	rw->nat_dport = htons(SPORT);
	rw->l2 = NPU_RW_L2_PPPOE_PUSH;
	rw->pppoe_sid = htons(SID);
	if (vid) {
		rw->flags |= NPU_RW_VLAN_PUSH;
		rw->vlan_tci = htons(vid);
	}
}

/* WAN -> LAN (g) as nf_flow_table gives it: the tag, no session. */
static void wan_to_lan(struct npu_mflow_key *k, struct npu_rewrite *rw, u16 vid)
{
	memset(k, 0, sizeof(*k));
	k->port = WAN;
	k->family = NPU_AF_INET;
	k->proto = IPPROTO_TCP;
	k->vlan = htons(vid);
	k->saddr[0] = server;
	k->daddr[0] = pppaddr;
	k->sport = htons(SPORT);
	k->dport = htons(NPORT);
	memset(rw, 0, sizeof(*rw));
	rw->egress_port = LAN;
	rw->flags = NPU_RW_DNAT | NPU_RW_TTL | NPU_RW_MAC;
	rw->mtu = htole16(1500);
	rw->nat_saddr[0] = server;
	rw->nat_daddr[0] = client;
	rw->nat_sport = htons(SPORT);
	rw->nat_dport = htons(CPORT);
	if (vid)
		rw->flags |= NPU_RW_VLAN_POP;
}

/* ---- the reply key ------------------------------------------------- */

/**
 * struct rcase - a direction's L2 and what its reply's key holds
 * @name: the case
 * @vid: the direction's outer VLAN id, 0 untagged
 * @ad: of TPID 0x88a8
 * @cvid: its inner VLAN id
 * @sid: its PPPoE session
 * @flags: the rewrite's NPU_RW_VLAN_* (and the rest: NAT as lan_to_wan())
 * @l2: the rewrite's NPU_RW_L2_*
 * @tci: its vlan_tci
 * @tci2: its vlan_tci2
 * @psid: its pppoe_sid
 * @keyed: the reply has a key
 * @r_vid: the reply key's outer VLAN id
 * @r_ad: its NPU_KEY_L2_AD
 * @r_cvid: its inner VLAN id
 * @r_sid: its session
 */
struct rcase {
	const char *name;
	u16 vid;
	u8 ad;
	u16 cvid, sid;
	u8 flags, l2;
	u16 tci, tci2, psid;
	u8 keyed;
	u16 r_vid;
	u8 r_ad;
	u16 r_cvid, r_sid;
};

#define PUSH	NPU_RW_VLAN_PUSH
#define POP	NPU_RW_VLAN_POP

static const struct rcase rcases[] = {
	{ "untagged", .keyed = 1 },
	{ "tag kept", .vid = 7, .keyed = 1, .r_vid = 7 },
	{ "tag pushed (priority bits dropped)", .flags = PUSH, .tci = 0xa007, .keyed = 1,
	  .r_vid = 7 },
	{ "tag popped", .vid = 7, .flags = POP, .keyed = 1 },
	{ "pop of an untagged frame pops nothing", .flags = POP, .keyed = 1 },
	{ "tag swapped", .vid = 7, .flags = POP | PUSH, .tci = 8, .keyed = 1, .r_vid = 8 },
	{ "tag pushed onto a tag", .vid = 7, .flags = PUSH, .tci = 8, .keyed = 1,
	  .r_vid = 8, .r_cvid = 7 },
	{ "two tags kept", .vid = 100, .ad = 1, .cvid = 200, .keyed = 1, .r_vid = 100,
	  .r_ad = 1, .r_cvid = 200 },
	{ "two tags popped", .vid = 100, .ad = 1, .cvid = 200, .flags = POP,
	  .l2 = NPU_RW_L2_POP2, .keyed = 1 },
	{ "outer tag of two popped", .vid = 100, .ad = 1, .cvid = 200, .flags = POP,
	  .keyed = 1, .r_vid = 200 },
	{ "802.1ad 100 + 802.1Q 200 pushed", .flags = PUSH,
	  .l2 = NPU_RW_L2_PUSH2 | NPU_RW_L2_AD2, .tci = 200, .tci2 = 100, .keyed = 1,
	  .r_vid = 100, .r_ad = 1, .r_cvid = 200 },
	{ "802.1ad pushed alone", .flags = PUSH, .l2 = NPU_RW_L2_AD1, .tci = 100,
	  .keyed = 1, .r_vid = 100, .r_ad = 1 },
	{ "session pushed", .l2 = NPU_RW_L2_PPPOE_PUSH, .psid = 5, .keyed = 1, .r_sid = 5 },
	{ "session pushed in a tag", .flags = PUSH, .l2 = NPU_RW_L2_PPPOE_PUSH, .tci = 7,
	  .psid = 5, .keyed = 1, .r_vid = 7, .r_sid = 5 },
	{ "session pushed in two tags", .flags = PUSH,
	  .l2 = NPU_RW_L2_PUSH2 | NPU_RW_L2_PPPOE_PUSH, .tci = 200, .tci2 = 100,
	  .psid = 5, .keyed = 1, .r_vid = 100, .r_cvid = 200, .r_sid = 5 },
	{ "session kept", .sid = 5, .keyed = 1, .r_sid = 5 },
	{ "session and tag popped", .vid = 7, .sid = 5, .flags = POP,
	  .l2 = NPU_RW_L2_PPPOE_POP, .keyed = 1 },
	{ "session popped, tag kept", .vid = 7, .sid = 5, .l2 = NPU_RW_L2_PPPOE_POP,
	  .keyed = 1, .r_vid = 7 },
	{ "three tags: no key", .vid = 100, .ad = 1, .cvid = 200, .flags = PUSH,
	  .tci = 300 },
	{ "802.1ad inside a tag: no key", .vid = 100, .ad = 1, .flags = PUSH, .tci = 300 },
};

static void test_reply(void **state)
{
	const struct rcase *c = *state;
	struct npu_mflow_key k, r, want;
	struct npu_rewrite rw;

	lan_to_wan(&k, &rw, 0);
	k.vlan = htons(c->vid);
	k.l2 = c->ad ? NPU_KEY_L2_AD : 0;
	k.vlan_inner = htons(c->cvid);
	k.pppoe_sid = htons(c->sid);
	rw.flags = NPU_RW_SNAT | c->flags;
	rw.l2 = c->l2;
	rw.vlan_tci = htons(c->tci);
	rw.vlan_tci2 = htons(c->tci2);
	rw.pppoe_sid = htons(c->psid);
	memset(&r, 0x5a, sizeof(r));
	assert_int_equal(npuep_flow_reply_key(&k, &rw, &r), c->keyed);
	if (!c->keyed)
		return;
	/* The reply of an SNAT'd connection: server -> the translated client. */
	memset(&want, 0, sizeof(want));
	want.port = WAN;
	want.family = NPU_AF_INET;
	want.proto = IPPROTO_TCP;
	want.saddr[0] = server;
	want.daddr[0] = pppaddr;
	want.sport = htons(SPORT);
	want.dport = htons(NPORT);
	want.vlan = htons(c->r_vid);
	want.l2 = c->r_ad ? NPU_KEY_L2_AD : 0;
	want.vlan_inner = htons(c->r_cvid);
	want.pppoe_sid = htons(c->r_sid);
	assert_memory_equal(&r, &want, sizeof(r));
}

/* An IPv6 direction's reply swaps all 16 bytes of its addresses. */
static void test_reply_v6(void **state)
{
	struct npu_mflow_key k = { .port = LAN, .family = NPU_AF_INET6,
				   .proto = IPPROTO_UDP, .sport = htons(1), .dport = htons(2) };
	struct npu_rewrite rw = { .egress_port = WAN, .nat_sport = htons(1),
				  .nat_dport = htons(2), .l2 = NPU_RW_L2_PPPOE_PUSH,
				  .pppoe_sid = htons(9) };
	struct npu_mflow_key r;

	(void)state;
	memset(k.saddr, 0x11, 16);
	memset(k.daddr, 0x22, 16);
	assert_true(npuep_flow_reply_key(&k, &rw, &r));
	assert_memory_equal(r.saddr, k.daddr, 16);
	assert_memory_equal(r.daddr, k.saddr, 16);
	assert_int_equal(r.sport, htons(2));
	assert_int_equal(r.dport, htons(1));
	assert_int_equal(r.pppoe_sid, htons(9));
	assert_int_equal(r.port, WAN);
}

/* ---- a flowtable's PPPoE pair ---------------------------------------- */

/* What the WAN direction is once completed: in session 5, popped. */
static void completed(u16 vid, struct npu_mflow_key *k, struct npu_rewrite *rw)
{
	wan_to_lan(k, rw, vid);
	k->pppoe_sid = htons(SID);
	rw->l2 |= NPU_RW_L2_PPPOE_POP;
}

/* Both directions' keys are each other's replies once g is completed. */
static void assert_paired(const struct npu_mflow_key *fk, const struct npu_rewrite *frw,
			  const struct npu_mflow_key *gk, const struct npu_rewrite *grw)
{
	struct npu_mflow_key r;

	assert_true(npuep_flow_reply_key(fk, frw, &r));
	assert_memory_equal(&r, gk, sizeof(r));
	assert_true(npuep_flow_reply_key(gk, grw, &r));
	assert_memory_equal(&r, fk, sizeof(r));
}

/*
 * LAN first (the usual order): g's reply key finds f exactly, and g is
 * completed from f's push before it is hashed.
 */
static void pair_lan_first(u16 vid)
{
	struct npu_mflow_key fk, gk, wk, r;
	struct npu_rewrite frw, grw, wrw;

	lan_to_wan(&fk, &frw, vid);
	wan_to_lan(&gk, &grw, vid);
	assert_true(npuep_flow_reply_key(&gk, &grw, &r));
	assert_memory_equal(&r, &fk, sizeof(r));
	assert_true(npuep_flow_complete(&fk, &frw, &gk, &grw));
	completed(vid, &wk, &wrw);
	assert_memory_equal(&gk, &wk, sizeof(gk));
	assert_memory_equal(&grw, &wrw, sizeof(grw));
	assert_paired(&fk, &frw, &gk, &grw);
	/* The kernel's refresh of g, completed again, finds it. */
	wan_to_lan(&wk, &wrw, vid);
	assert_true(npuep_flow_complete(&fk, &frw, &wk, &wrw));
	assert_memory_equal(&wk, &gk, sizeof(wk));
	/* Completed once: not again. */
	assert_false(npuep_flow_complete(&fk, &frw, &gk, &grw));
}

/*
 * WAN first (DNAT): g is held under the flowtable's key; f's reply key
 * misses it by the session only, and g is completed (re-keyed) from f.
 */
static void pair_wan_first(u16 vid)
{
	struct npu_mflow_key fk, gk, wk, r;
	struct npu_rewrite frw, grw, wrw;

	wan_to_lan(&gk, &grw, vid);
	lan_to_wan(&fk, &frw, vid);
	assert_true(npuep_flow_reply_key(&fk, &frw, &r));
	assert_int_equal(r.pppoe_sid, htons(SID));
	assert_memory_not_equal(&r, &gk, sizeof(r));
	r.pppoe_sid = 0;
	assert_memory_equal(&r, &gk, sizeof(r));
	assert_true(npuep_flow_complete(&fk, &frw, &gk, &grw));
	completed(vid, &wk, &wrw);
	assert_memory_equal(&gk, &wk, sizeof(gk));
	assert_memory_equal(&grw, &wrw, sizeof(grw));
	assert_paired(&fk, &frw, &gk, &grw);
}

/**
 * struct pcase - one pairing: which direction the kernel offers first
 * @name: the case
 * @wan_first: the WAN direction (in the session) first, else the LAN one
 * @vid: the session's VLAN on the WAN port, 0 untagged
 */
struct pcase {
	const char *name;
	int wan_first;
	u16 vid;
};

static const struct pcase pcases[] = {
	{ "LAN direction first, untagged session", 0, 0 },
	{ "LAN direction first, session in VLAN 7", 0, 7 },
	{ "WAN direction first, untagged session", 1, 0 },
	{ "WAN direction first, session in VLAN 7", 1, 7 },
};

static void test_pair(void **state)
{
	const struct pcase *c = *state;

	if (c->wan_first)
		pair_wan_first(c->vid);
	else
		pair_lan_first(c->vid);
}

/* Nothing completes what is not f's reply but for the session. */
static void test_complete_refused(void **state)
{
	struct npu_mflow_key fk, gk, k0;
	struct npu_rewrite frw, grw, rw0;

	(void)state;
	lan_to_wan(&fk, &frw, 7);

	/* another tag */
	wan_to_lan(&gk, &grw, 8);
	k0 = gk;
	rw0 = grw;
	assert_false(npuep_flow_complete(&fk, &frw, &gk, &grw));
	assert_memory_equal(&gk, &k0, sizeof(gk));
	assert_memory_equal(&grw, &rw0, sizeof(grw));

	/* untagged, where f pushes a tag */
	wan_to_lan(&gk, &grw, 0);
	assert_false(npuep_flow_complete(&fk, &frw, &gk, &grw));

	/* another port */
	wan_to_lan(&gk, &grw, 7);
	gk.port = WAN + 1;
	assert_false(npuep_flow_complete(&fk, &frw, &gk, &grw));

	/* another connection (port) */
	wan_to_lan(&gk, &grw, 7);
	gk.sport = htons(SPORT + 1);
	assert_false(npuep_flow_complete(&fk, &frw, &gk, &grw));

	/* g keys a session already (a flower rule's) */
	wan_to_lan(&gk, &grw, 7);
	gk.pppoe_sid = htons(6);
	assert_false(npuep_flow_complete(&fk, &frw, &gk, &grw));
	assert_int_equal(gk.pppoe_sid, htons(6));

	/* g pushes a session itself */
	wan_to_lan(&gk, &grw, 7);
	grw.l2 = NPU_RW_L2_PPPOE_PUSH;
	grw.pppoe_sid = htons(6);
	assert_false(npuep_flow_complete(&fk, &frw, &gk, &grw));

	/* f pushes no session: a plain VLAN pair, nothing to complete */
	wan_to_lan(&gk, &grw, 7);
	frw.l2 = 0;
	frw.pppoe_sid = 0;
	assert_false(npuep_flow_complete(&fk, &frw, &gk, &grw));
	assert_int_equal(gk.pppoe_sid, 0);
	assert_int_equal(grw.l2, 0);
}

/* ---- the session a direction leaves in --------------------------------- */

static const u8 cmac[6] = { 0x02, 0xc0, 0, 0, 0, 0x01 };	/* the concentrator */

/* The session lan_to_wan() leaves in, over its tags (outermost first). */
static void want_session(struct npuep_fd_session *s, u8 ntags, u16 vid0, u16 tpid0,
			 u16 vid1)
{
	memset(s, 0, sizeof(*s));
	s->port = WAN;
	s->ntags = ntags;
	s->tag[0].vid = vid0;
	s->tag[0].tpid = htons(tpid0);
	if (ntags > 1) {
		s->tag[1].vid = vid1;
		s->tag[1].tpid = htons(ETH_P_8021Q);
	}
	s->sid = SID;
	memcpy(s->dmac, cmac, 6);
}

static void assert_session(const struct npu_mflow_key *k, const struct npu_rewrite *rw,
			   const struct npuep_fd_session *want)
{
	struct npuep_fd_session s;

	memset(&s, 0x5a, sizeof(s));
	assert_true(npuep_flow_session(k, rw, &s));
	assert_memory_equal(&s, want, sizeof(s));
}

static void test_session(void **state)
{
	struct npuep_fd_session want;
	struct npu_mflow_key k;
	struct npu_rewrite rw;

	(void)state;
	lan_to_wan(&k, &rw, 0);
	memcpy(rw.dmac, cmac, 6);
	want_session(&want, 0, 0, 0, 0);
	assert_session(&k, &rw, &want);

	/* in VLAN 7: the tag's id without its priority bits */
	lan_to_wan(&k, &rw, 0xa007);
	memcpy(rw.dmac, cmac, 6);
	want_session(&want, 1, 7, ETH_P_8021Q, 0);
	assert_session(&k, &rw, &want);

	/* in 802.1ad 100 + 802.1Q 200 */
	lan_to_wan(&k, &rw, 200);
	rw.l2 |= NPU_RW_L2_PUSH2 | NPU_RW_L2_AD2;
	rw.vlan_tci2 = htons(100);
	memcpy(rw.dmac, cmac, 6);
	want_session(&want, 2, 100, ETH_P_8021AD, 200);
	assert_session(&k, &rw, &want);

	/* a tag the frame arrived in, kept, stays outside the session's */
	lan_to_wan(&k, &rw, 200);
	k.vlan = htons(9);
	memcpy(rw.dmac, cmac, 6);
	want_session(&want, 2, 200, ETH_P_8021Q, 9);
	assert_session(&k, &rw, &want);

	/* no MACs rewritten: no concentrator's */
	lan_to_wan(&k, &rw, 0);
	rw.flags &= ~NPU_RW_MAC;
	memcpy(rw.dmac, cmac, 6);
	want_session(&want, 0, 0, 0, 0);
	memset(want.dmac, 0, 6);
	assert_session(&k, &rw, &want);

	/* the direction that arrives in the session pushes none */
	wan_to_lan(&k, &rw, 7);
	assert_false(npuep_flow_session(&k, &rw, &want));
	completed(7, &k, &rw);
	assert_false(npuep_flow_session(&k, &rw, &want));
}

/* A session is found by its port, tags, id and concentrator, not its MTU or smac. */
static void test_session_find(void **state)
{
	struct npuep_fd_session live[3], s;

	(void)state;
	want_session(&live[0], 0, 0, 0, 0);
	live[0].sid = SID + 1;
	want_session(&live[1], 1, 7, ETH_P_8021Q, 0);
	want_session(&live[2], 0, 0, 0, 0);
	live[2].mtu = 1492;
	live[2].smac[0] = 2;

	want_session(&s, 0, 0, 0, 0);
	assert_int_equal(npuep_flow_session_find(&s, live, 3), 2);
	assert_int_equal(npuep_flow_session_find(&s, live, 2), -1);
	assert_int_equal(npuep_flow_session_find(&s, live, 0), -1);
	want_session(&s, 1, 7, ETH_P_8021Q, 0);
	assert_int_equal(npuep_flow_session_find(&s, live, 3), 1);

	/* each field of the identity */
	want_session(&s, 0, 0, 0, 0);
	s.port = LAN;
	assert_int_equal(npuep_flow_session_find(&s, live, 3), -1);
	want_session(&s, 0, 0, 0, 0);
	s.dmac[5] ^= 1;
	assert_int_equal(npuep_flow_session_find(&s, live, 3), -1);
	want_session(&s, 0, 0, 0, 0);
	s.sid = SID + 2;
	assert_int_equal(npuep_flow_session_find(&s, live, 3), -1);
	want_session(&s, 1, 8, ETH_P_8021Q, 0);
	assert_int_equal(npuep_flow_session_find(&s, live, 3), -1);
	want_session(&s, 1, 7, ETH_P_8021AD, 0);
	assert_int_equal(npuep_flow_session_find(&s, live, 3), -1);
	want_session(&s, 2, 7, ETH_P_8021Q, 7);
	assert_int_equal(npuep_flow_session_find(&s, live, 3), -1);
	/* an unused tag's bytes are not compared */
	want_session(&s, 0, 0, 0, 0);
	s.tag[1].vid = 99;
	assert_int_equal(npuep_flow_session_find(&s, live, 3), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reply_v6),
		cmocka_unit_test(test_complete_refused),
		cmocka_unit_test(test_session),
		cmocka_unit_test(test_session_find),
	};
	struct CMUnitTest rtests[ARRAY_SIZE(rcases)], ptests[ARRAY_SIZE(pcases)];

	CASE_TESTS(rtests, rcases, test_reply);
	CASE_TESTS(ptests, pcases, test_pair);
	return cmocka_run_group_tests(tests, NULL, NULL) |
	       cmocka_run_group_tests_name("npuep_flow_pair reply keys", rtests, NULL, NULL) |
	       cmocka_run_group_tests_name("npuep_flow_pair PPPoE pairs", ptests, NULL, NULL);
}
