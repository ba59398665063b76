// SPDX-License-Identifier: GPL-2.0
/*
 * The flow maker's policy core (loader/flowmaker.c): exact states, actions
 * and counts for each path of a connection's life, with time as an input.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include "../../loader/flowmaker.c"
#include "../../loader/fm_evict.c"
#include "../../loader/fm_pace.c"
#include "../../lib/npuflow_names.c"
#include "../../loader/tcflower.c"

#define MS 1000000ull
#define S  (1000 * MS)

/* 10.0.1.2:40000 > 10.0.2.2:5201 tcp, arriving on ifindex 3; reply on 8 */
static struct npuflow_key mk(uint32_t ifindex, uint8_t proto, uint32_t sa, uint32_t da,
			     uint16_t sp, uint16_t dp)
{
	struct npuflow_key k;

	memset(&k, 0, sizeof(k));
	k.ifindex = ifindex;
	k.family = 2;
	k.proto = proto;
	k.sport = htons(sp);
	k.dport = htons(dp);
	sa = htonl(sa);
	da = htonl(da);
	memcpy(k.saddr, &sa, 4);
	memcpy(k.daddr, &da, 4);
	return k;
}

static struct npuflow_key korig(int n)
{
	return mk(3, 6, 0x0a000102, 0x0a000202, 40000 + n, 5201);
}

static struct npuflow_key kreply(int n)
{
	return mk(8, 6, 0x0a000202, 0x0a000102, 5201, 40000 + n);
}

static struct fm_lookup lk_ok(int n)
{
	struct fm_lookup l;

	memset(&l, 0, sizeof(l));
	l.ct_flags = FM_CT_FOUND | FM_CT_ESTABLISHED | FM_CT_ASSURED;
	l.ct_id = 1000 + n;
	l.key[0] = korig(n);
	l.key[1] = kreply(n);
	l.out_ifindex[0] = 8;
	l.out_ifindex[1] = 3;
	l.dmac[0][5] = 0x22;
	l.dmac[1][5] = 0x11;
	l.routed = 1;
	return l;
}

static struct fm *new_fm(uint32_t max)
{
	static struct fm fm;
	struct fm_cfg c;

	fm_cfg_init(&c);
	c.max_conns = max;
	assert_int_equal(fm_init(&fm, &c), 0);
	return &fm;
}

/* candidate n over the threshold at @t, made at @t. Returns id. */
static uint32_t make_conn(struct fm *fm, int n, uint64_t t)
{
	struct npuflow_key k = korig(n);
	struct fm_lookup l = lk_ok(n);
	uint32_t id = ~0u;

	assert_int_equal(fm_candidate(fm, &k, 16, 16 * 1500, NPUFLOW_R_FLOW_MISS, t, t, &id),
			 FM_A_LOOKUP);
	assert_int_equal(fm_lookup_done(fm, id, &l, t), FM_A_WRITE);
	assert_int_equal(fm_write_done(fm, id, 0, t), FM_A_REARM);
	assert_int_equal(fm->e[id].rec.state, NPUFLOW_CS_MADE);
	return id;
}

static void test_threshold_frames(void **st)
{
	struct fm *fm = new_fm(64);
	struct npuflow_key k = korig(0);
	uint32_t id;

	(void)st;
	assert_int_equal(fm_candidate(fm, &k, 15, 999999, 1, 0, 10, &id), FM_A_WATCH);
	assert_int_equal(fm->e[id].rec.state, NPUFLOW_CS_PENDING);
	assert_int_equal(fm->e[id].rec.until_ns, 10 + FM_WATCH_NS_DEFAULT);
	assert_int_equal(fm_candidate(fm, &k, 16, 100, 1, 0, 20, &id), FM_A_LOOKUP);
	assert_int_equal(fm->e[id].rec.state, NPUFLOW_CS_LOOKUP);
	assert_int_equal(fm->stat[NPUFLOW_FM_EVENTS], 2);
	assert_int_equal(fm->stat[NPUFLOW_FM_LOOKUPS], 1);
	/* a second event while looking up: nothing */
	assert_int_equal(fm_candidate(fm, &k, 17, 100, 1, 0, 21, &id), FM_A_NONE);
	fm_free(fm);
}

static void test_threshold_bytes(void **st)
{
	struct fm fm;
	struct fm_cfg c;
	struct npuflow_key k = korig(0), k2 = korig(1);
	uint32_t id;

	(void)st;
	fm_cfg_init(&c);
	c.max_conns = 16;
	c.thr_frames = 16;
	c.thr_bytes = 10000;
	c.thr_any = 0;	/* both */
	assert_int_equal(fm_init(&fm, &c), 0);
	assert_int_equal(fm_candidate(&fm, &k, 16, 9999, 1, 0, 1, &id), FM_A_WATCH);
	assert_int_equal(fm_candidate(&fm, &k, 100, 9999, 1, 0, 2, &id), FM_A_WATCH);
	assert_int_equal(fm_candidate(&fm, &k, 100, 10000, 1, 0, 3, &id), FM_A_LOOKUP);
	fm_free(&fm);

	c.thr_any = 1;	/* either */
	assert_int_equal(fm_init(&fm, &c), 0);
	assert_int_equal(fm_candidate(&fm, &k, 2, 10000, 1, 0, 1, &id), FM_A_LOOKUP);
	assert_int_equal(fm_candidate(&fm, &k2, 16, 0, 1, 0, 1, &id), FM_A_LOOKUP);
	fm_free(&fm);

	c.thr_frames = 0;	/* bytes only */
	assert_int_equal(fm_init(&fm, &c), 0);
	assert_int_equal(fm_candidate(&fm, &k, 1000, 9999, 1, 0, 1, &id), FM_A_WATCH);
	assert_int_equal(fm_candidate(&fm, &k2, 1, 10000, 1, 0, 1, &id), FM_A_LOOKUP);
	fm_free(&fm);
}

static void test_made(void **st)
{
	struct fm *fm = new_fm(64);
	struct npuflow_key o = korig(0), r = kreply(0), ctk;
	uint32_t id = make_conn(fm, 0, 5 * S);
	struct fm_entry *e = &fm->e[id];

	(void)st;
	assert_int_equal(id, 0);
	assert_ptr_equal(fm_find(fm, &o), e);
	assert_ptr_equal(fm_find(fm, &r), e);
	fm_ct_key(&ctk, &o, 0);
	assert_ptr_equal(fm_find(fm, &ctk), e);
	assert_int_equal(e->rec.ct_id, 1000);
	assert_int_equal(e->rec.made_ns, 5 * S);
	assert_int_equal(e->rec.hw_handle[0], 1);
	assert_int_equal(e->rec.hw_handle[1], 2);
	assert_int_equal(e->rec.tc_prio, NPUFLOW_TC_PRIO_IP);
	assert_int_equal(e->rec.out_ifindex[0], 8);
	assert_int_equal(e->rec.out_ifindex[1], 3);
	assert_int_equal(e->rec.dmac[0][5], 0x22);
	assert_int_equal(e->rec.flags, NPUFLOW_CONN_F_ROUTED | NPUFLOW_CONN_F_HW0 |
			 NPUFLOW_CONN_F_HW1);
	assert_int_equal(fm->stat[NPUFLOW_FM_MADE], 1);
	assert_int_equal(fm->stat[NPUFLOW_FM_REMADE], 0);
	assert_int_equal(fm->stat[NPUFLOW_FM_REFUSED], 0);
	assert_int_equal(fm->nused, 1);
	/* the second id is 1 */
	assert_int_equal(make_conn(fm, 1, 6 * S), 1);
	assert_int_equal(fm->e[1].rec.hw_handle[0], 3);
	fm_free(fm);
}

static void test_made_from_reply_and_nat(void **st)
{
	struct fm *fm = new_fm(64);
	/* masquerade: 10.0.1.2:40000 > 192.0.2.1:80 leaves as 198.51.100.1:61000 */
	struct npuflow_key o = mk(3, 6, 0x0a000102, 0xc0000201, 40000, 80);
	struct npuflow_key r = mk(8, 6, 0xc0000201, 0xc6336401, 80, 61000);
	struct fm_lookup l;
	uint32_t id, id2;

	(void)st;
	/* the reply direction crosses first, then the original (already pending) */
	assert_int_equal(fm_candidate(fm, &o, 3, 300, 1, 0, 1, &id2), FM_A_WATCH);
	assert_int_equal(fm_candidate(fm, &r, 16, 1600, 1, 0, 2, &id), FM_A_LOOKUP);
	memset(&l, 0, sizeof(l));
	l.ct_flags = FM_CT_FOUND | FM_CT_ESTABLISHED | FM_CT_NAT;
	l.key[0] = o;
	l.key[1] = r;
	assert_int_equal(fm_lookup_done(fm, id, &l, 3), FM_A_WRITE);
	/* the pending original merged into the connection */
	assert_int_equal(fm->e[id2].rec.state, NPUFLOW_CS_FREE);
	assert_int_equal(fm->nused, 1);
	assert_ptr_equal(fm_find(fm, &o), &fm->e[id]);
	assert_ptr_equal(fm_find(fm, &r), &fm->e[id]);
	assert_true(fm->e[id].rec.flags & NPUFLOW_CONN_F_NAT);
	assert_false(fm->e[id].rec.flags & NPUFLOW_CONN_F_ROUTED);
	assert_int_equal(fm_write_done(fm, id, 0, 4), FM_A_REARM);
	fm_free(fm);
}

/* @k as conntrack gives a tuple: no ifindex */
static struct npuflow_key ct_tuple(struct npuflow_key k)
{
	k.ifindex = 0;
	return k;
}

/*
 * A resync's dump after an ENOBUFS gap finds the connection's entry only if
 * it is the same conntrack entry: original and reply tuples (the reply
 * carries the NAT) and the id.  A tuple reused in the gap - the old entry
 * destroyed unseen, a new one with another NAT, or re-created at once with
 * the same tuples (and a new id) - is not the connection's: the daemon takes
 * the old rules out.
 */
static void test_ct_match_after_gap(void **st)
{
	struct fm *fm = new_fm(64);
	/* masquerade: 10.0.1.2:40000 > 192.0.2.1:80 leaves as 198.51.100.1:61000 */
	struct npuflow_key o = mk(3, 6, 0x0a000102, 0xc0000201, 40000, 80);
	struct npuflow_key r = mk(8, 6, 0xc0000201, 0xc6336401, 80, 61000);
	struct npuflow_key co = ct_tuple(o), cr = ct_tuple(r), other_nat, no_nat;
	struct fm_lookup l;
	uint32_t id;

	(void)st;
	assert_int_equal(fm_candidate(fm, &o, 16, 1600, 1, 0, 1, &id), FM_A_LOOKUP);
	memset(&l, 0, sizeof(l));
	l.ct_flags = FM_CT_FOUND | FM_CT_ESTABLISHED | FM_CT_NAT;
	l.ct_id = 7001;
	l.zone = 3;
	l.key[0] = o;
	l.key[1] = r;
	assert_int_equal(fm_lookup_done(fm, id, &l, 2), FM_A_WRITE);
	assert_int_equal(fm_write_done(fm, id, 0, 3), FM_A_REARM);

	/* the same entry */
	assert_ptr_equal(fm_find_ct(fm, &co, &cr, 3, 7001), &fm->e[id]);
	/* an id not known on one side: the tuples decide */
	assert_ptr_equal(fm_find_ct(fm, &co, &cr, 3, 0), &fm->e[id]);
	/* the tuple reused with another NAT (even under the same id) */
	other_nat = mk(0, 6, 0xc0000201, 0xc6336402, 80, 61000);
	assert_null(fm_find_ct(fm, &co, &other_nat, 3, 7001));
	other_nat = mk(0, 6, 0xc0000201, 0xc6336401, 80, 61001);
	assert_null(fm_find_ct(fm, &co, &other_nat, 3, 7001));
	/* ... without NAT */
	no_nat = mk(0, 6, 0xc0000201, 0x0a000102, 80, 40000);
	assert_null(fm_find_ct(fm, &co, &no_nat, 3, 7002));
	/* re-created at once with the same tuples: a new id */
	assert_null(fm_find_ct(fm, &co, &cr, 3, 7002));
	/* another zone, another tuple */
	assert_null(fm_find_ct(fm, &co, &cr, 4, 7001));
	assert_null(fm_find_ct(fm, &cr, &co, 3, 7001));
	fm_free(fm);
}

struct refcase {
	uint32_t ct_flags;
	uint32_t eg0, eg1;
	uint8_t proto;
	unsigned int reason;
	int never;
};

static void test_refusals(void **st)
{
	static const struct refcase cases[] = {
		{ 0, 0, 0, 6, NPUFLOW_FR_NO_CT, 0 },
		{ FM_CT_FOUND | FM_CT_ESTABLISHED | FM_CT_DYING, 0, 0, 6, NPUFLOW_FR_NO_CT, 0 },
		{ FM_CT_FOUND, 0, 0, 6, NPUFLOW_FR_NOT_ESTABLISHED, 0 },
		{ FM_CT_FOUND | FM_CT_ESTABLISHED | FM_CT_HELPER, 0, 0, 6, NPUFLOW_FR_HELPER, 1 },
		{ FM_CT_FOUND | FM_CT_ESTABLISHED | FM_CT_SEQADJ, 0, 0, 6, NPUFLOW_FR_SEQADJ, 1 },
		{ FM_CT_FOUND | FM_CT_ESTABLISHED | FM_CT_IPSEC, 0, 0, 6, NPUFLOW_FR_IPSEC, 1 },
		{ FM_CT_FOUND | FM_CT_ESTABLISHED, 0, FM_EG_SHAPED, 6, NPUFLOW_FR_SHAPING, 1 },
		{ FM_CT_FOUND | FM_CT_ESTABLISHED, FM_EG_FOREIGN, 0, 17, NPUFLOW_FR_FOREIGN, 1 },
		{ FM_CT_FOUND | FM_CT_ESTABLISHED, FM_EG_NO_ROUTE, 0, 6, NPUFLOW_FR_NO_ROUTE, 0 },
		{ FM_CT_FOUND | FM_CT_ESTABLISHED, 0, FM_EG_NO_NEIGH, 6, NPUFLOW_FR_NO_NEIGH, 0 },
		/* no neighbour yet, but a never reason on the other side wins */
		{ FM_CT_FOUND | FM_CT_ESTABLISHED, FM_EG_NO_NEIGH, FM_EG_LOCAL, 6,
		  NPUFLOW_FR_LOCAL, 1 },
		{ FM_CT_FOUND | FM_CT_ESTABLISHED, 0, 0, 1, NPUFLOW_FR_PROTO, 1 },
		{ FM_CT_FOUND | FM_CT_ESTABLISHED, FM_EG_VLAN, 0, 6, NPUFLOW_FR_VLAN, 1 },
		/* the tuple is another zone's too: retried, the zone may go */
		{ FM_CT_FOUND | FM_CT_ESTABLISHED | FM_CT_ZONED, 0, 0, 6, NPUFLOW_FR_CONFLICT, 0 },
	};
	struct fm *fm = new_fm(64);
	size_t i;

	(void)st;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct refcase *c = &cases[i];
		struct fm_lookup l = lk_ok(i);
		struct npuflow_key k = korig(i);
		uint32_t id;

		k.proto = c->proto;
		l.key[0].proto = l.key[1].proto = c->proto;
		l.ct_flags = c->ct_flags;
		l.eg_flags[0] = c->eg0;
		l.eg_flags[1] = c->eg1;
		assert_int_equal(fm_candidate(fm, &k, 16, 0, 1, 0, 100, &id), FM_A_LOOKUP);
		assert_int_equal(fm_lookup_done(fm, id, &l, 100), FM_A_REFUSE);
		assert_int_equal(fm->e[id].rec.state, NPUFLOW_CS_REFUSED);
		assert_int_equal(fm->e[id].rec.reason, c->reason);
		assert_int_equal(fm->e[id].rec.until_ns,
				 100 + (c->never ? FM_NEVER_NS_DEFAULT : FM_RETRY_NS_DEFAULT));
		/* refused: a crossing before the retry does nothing */
		assert_int_equal(fm_candidate(fm, &k, 32, 0, 1, 0, 200, &id), FM_A_NONE);
	}
	assert_int_equal(fm->stat[NPUFLOW_FM_REFUSED], 14);
	assert_int_equal(fm->refused[NPUFLOW_FR_CONFLICT], 1);
	assert_int_equal(fm->refused[NPUFLOW_FR_NO_CT], 2);
	for (i = NPUFLOW_FR_NOT_ESTABLISHED; i <= NPUFLOW_FR_PROTO; i++)
		assert_int_equal(fm->refused[i], 1);
	assert_int_equal(fm->refused[NPUFLOW_FR_VLAN], 1);
	assert_int_equal(fm->refused[NPUFLOW_FR_TABLE_FULL], 0);
	assert_int_equal(fm->stat[NPUFLOW_FM_MADE], 0);
	fm_free(fm);
}

/* A made connection keeps the tags each direction leaves with: outer and inner. */
static void test_made_two_tags(void **st)
{
	struct fm *fm = new_fm(64);
	struct fm_lookup l = lk_ok(0);
	struct npuflow_key k = korig(0);
	uint32_t id;

	(void)st;
	l.out_vid[0] = 100 | NPUFLOW_VLAN_AD;
	l.out_vid_inner[0] = 200;
	l.out_vid[1] = 7;
	assert_int_equal(fm_candidate(fm, &k, 16, 0, 1, 0, 100, &id), FM_A_LOOKUP);
	assert_int_equal(fm_lookup_done(fm, id, &l, 100), FM_A_WRITE);
	assert_int_equal(fm->e[id].rec.out_vid[0], 100 | NPUFLOW_VLAN_AD);
	assert_int_equal(fm->e[id].rec.out_vid_inner[0], 200);
	assert_int_equal(fm->e[id].rec.out_vid[1], 7);
	assert_int_equal(fm->e[id].rec.out_vid_inner[1], 0);
	assert_int_equal(fm->e[id].rec.out_sid[0], 0);
	fm_free(fm);
}

/* A session npuflowd cannot resolve: refused pppoe, retried like no_route. */
static void test_refuse_pppoe(void **st)
{
	struct fm *fm = new_fm(64);
	struct fm_lookup l = lk_ok(0);
	struct npuflow_key k = korig(0);
	uint32_t id;
	int d;

	(void)st;
	for (d = 0; d < 2; d++) {
		l.eg_flags[0] = d ? 0 : FM_EG_PPPOE;
		l.eg_flags[1] = d ? FM_EG_PPPOE | FM_EG_NO_NEIGH : 0;
		assert_int_equal(fm_candidate(fm, &k, 16, 0, 1, 0, 100, &id), FM_A_LOOKUP);
		assert_int_equal(fm_lookup_done(fm, id, &l, 100), FM_A_REFUSE);
		assert_int_equal(fm->e[id].rec.reason, NPUFLOW_FR_PPPOE);
		assert_int_equal(fm->e[id].rec.until_ns, 100 + FM_RETRY_NS_DEFAULT);
		k = korig(1);
		l = lk_ok(1);
	}
	assert_int_equal(fm->refused[NPUFLOW_FR_PPPOE], 2);
	assert_string_equal(fm_reason_name(NPUFLOW_FR_PPPOE), "pppoe");
	fm_free(fm);
}

/*
 * A direction in or out of a PPPoE session is made with hardware-only
 * rules: its egress verdict stands; with rules in software too it is
 * pppoe.  A direction with no session keeps its verdict either way.
 */
static void test_eg_session(void **st)
{
	(void)st;
	assert_int_equal(fm_eg_session(0, 0, 5, 1), 0);
	assert_int_equal(fm_eg_session(0, 5, 0, 1), 0);
	assert_int_equal(fm_eg_session(FM_EG_NO_NEIGH, 0, 5, 1), FM_EG_NO_NEIGH);
	assert_int_equal(fm_eg_session(0, 0, 0, 0), 0);
	assert_int_equal(fm_eg_session(FM_EG_SHAPED, 0, 0, 0), FM_EG_SHAPED);
	assert_int_equal(fm_eg_session(0, 0, 5, 0), FM_EG_PPPOE);
	assert_int_equal(fm_eg_session(0, 5, 0, 0), FM_EG_PPPOE);
	assert_int_equal(fm_eg_session(FM_EG_NO_NEIGH, 5, 5, 0), FM_EG_NO_NEIGH | FM_EG_PPPOE);
}

/*
 * A connection whose original leaves in session 5 by ppp device 30 (port
 * 8) and whose reply arrives in it is made as npuep takes it: redirected
 * to the ppp device, the reply keyed by the session, both routed (a rule
 * that matches a session must decrement the TTL for the driver to end it).
 */
static void test_made_pppoe(void **st)
{
	struct fm *fm = new_fm(64);
	struct fm_lookup l = lk_ok(0);
	struct npuflow_key k = korig(0);
	uint32_t id;

	(void)st;
	l.key[1].pppoe_sid = 5;
	l.out_ifindex[0] = 30;
	l.out_port[0] = 8;
	l.out_sid[0] = 5;
	l.eg_flags[0] = fm_eg_session(0, l.key[0].pppoe_sid, l.out_sid[0], 1);
	l.eg_flags[1] = fm_eg_session(0, l.key[1].pppoe_sid, l.out_sid[1], 1);
	assert_int_equal(fm_candidate(fm, &k, 16, 0, 1, 0, 100, &id), FM_A_LOOKUP);
	assert_int_equal(fm_lookup_done(fm, id, &l, 100), FM_A_WRITE);
	assert_int_equal(fm->e[id].rec.out_ifindex[0], 30);
	assert_int_equal(fm->e[id].rec.out_sid[0], 5);
	assert_int_equal(fm->e[id].rec.out_sid[1], 0);
	assert_int_equal(fm->e[id].rec.key[1].pppoe_sid, 5);
	assert_true(fm->e[id].rec.flags & NPUFLOW_CONN_F_ROUTED);
	assert_int_equal(fm->e[id].rec.tc_prio, NPUFLOW_TC_PRIO_IP);
	assert_int_equal(fm->refused[NPUFLOW_FR_PPPOE], 0);
	fm_free(fm);
}

/*
 * A direction the host has not forwarded since the last ruleset change
 * (FM_EG_UNPROVEN: its frames may be dropped by the new ruleset, though
 * conntrack still calls the entry established) is not made: refused as not
 * established, retried; a never reason still wins.  Once forwarded, made.
 */
static void test_unproven(void **st)
{
	struct fm *fm = new_fm(64);
	struct npuflow_key k = korig(1);
	struct fm_lookup l = lk_ok(1);
	uint32_t id;

	(void)st;
	l.eg_flags[1] = FM_EG_UNPROVEN;
	assert_int_equal(fm_candidate(fm, &k, 16, 0, 1, 0, 100, &id), FM_A_LOOKUP);
	assert_int_equal(fm_lookup_done(fm, id, &l, 100), FM_A_REFUSE);
	assert_int_equal(fm->e[id].rec.reason, NPUFLOW_FR_NOT_ESTABLISHED);
	assert_int_equal(fm->e[id].rec.until_ns, 100 + FM_RETRY_NS_DEFAULT);
	assert_int_equal(fm->stat[NPUFLOW_FM_MADE], 0);
	l.eg_flags[0] = FM_EG_LOCAL;
	k = korig(2);
	l = lk_ok(2);
	l.eg_flags[0] = FM_EG_UNPROVEN | FM_EG_LOCAL;
	assert_int_equal(fm_candidate(fm, &k, 16, 0, 1, 0, 100, &id), FM_A_LOOKUP);
	assert_int_equal(fm_lookup_done(fm, id, &l, 100), FM_A_REFUSE);
	assert_int_equal(fm->e[id].rec.reason, NPUFLOW_FR_LOCAL);
	/* the retry, forwarded since: made */
	k = korig(1);
	l = lk_ok(1);
	assert_int_equal(fm_candidate(fm, &k, 48, 0, 1, 0, 100 + FM_RETRY_NS_DEFAULT, &id),
			 FM_A_LOOKUP);
	assert_int_equal(fm_lookup_done(fm, id, &l, 100 + FM_RETRY_NS_DEFAULT), FM_A_WRITE);
	fm_free(fm);
}

/*
 * A made connection keeps each direction's next-hop address (the gateway,
 * or the destination on-link): the egress recheck compares it, since a new
 * gateway that nobody has resolved yet has no MAC to compare.  A restored
 * one does not know it (nh_known 0).
 */
static void test_nexthop_kept(void **st)
{
	struct fm *fm = new_fm(64);
	struct npuflow_key k = korig(1);
	struct fm_lookup l = lk_ok(1);
	struct npuflow_conn rec;
	uint32_t id;

	(void)st;
	l.nexthop[0][0] = 10;
	l.nexthop[0][3] = 9;
	l.nexthop[1][0] = 10;
	l.nexthop[1][3] = 1;
	assert_int_equal(fm_candidate(fm, &k, 16, 0, 1, 0, 100, &id), FM_A_LOOKUP);
	assert_int_equal(fm_lookup_done(fm, id, &l, 100), FM_A_WRITE);
	assert_true(fm->e[id].nh_known);
	assert_memory_equal(fm->e[id].nexthop, l.nexthop, sizeof(l.nexthop));
	rec = fm->e[id].rec;
	fm_free(fm);
	fm = new_fm(64);
	rec.state = NPUFLOW_CS_MADE;
	assert_int_equal(fm_restore(fm, 3, &rec), 0);
	assert_false(fm->e[3].nh_known);
	fm_free(fm);
}

static void test_table_full(void **st)
{
	struct fm *fm = new_fm(64);
	struct npuflow_key k = korig(0);
	struct fm_lookup l = lk_ok(0);
	uint32_t id;
	uint64_t t = 10 * S;

	(void)st;
	assert_int_equal(fm_candidate(fm, &k, 16, 0, 1, 0, t, &id), FM_A_LOOKUP);
	assert_int_equal(fm_lookup_done(fm, id, &l, t), FM_A_WRITE);
	assert_int_equal(fm_write_done(fm, id, -ENOSPC, t), FM_A_REFUSE);
	assert_int_equal(fm->e[id].rec.state, NPUFLOW_CS_REFUSED);
	assert_int_equal(fm->e[id].rec.reason, NPUFLOW_FR_TABLE_FULL);
	assert_int_equal(fm->e[id].rec.flags & (NPUFLOW_CONN_F_HW0 | NPUFLOW_CONN_F_HW1), 0);
	assert_int_equal(fm->refused[NPUFLOW_FR_TABLE_FULL], 1);
	assert_true(fm->full.gated && fm->full.now_full);
	/* not an error: tried again after retry_ns, if a slot freed, or at the probe */
	assert_int_equal(fm_candidate(fm, &k, 16, 0, 1, 0, t + FM_RETRY_NS_DEFAULT - 1, &id),
			 FM_A_NONE);
	assert_int_equal(fm_candidate(fm, &k, 16, 0, 1, 0, t + FM_RETRY_NS_DEFAULT, &id),
			 FM_A_REFUSE);
	assert_int_equal(fm->stat[NPUFLOW_FM_FULL_WAITS], 1);
	t += FM_FULL_PROBE_NS_DEFAULT;
	assert_int_equal(fm_candidate(fm, &k, 16, 0, 1, 0, t, &id), FM_A_LOOKUP);
	assert_int_equal(fm->stat[NPUFLOW_FM_FULL_TRIES], 1);
	assert_int_equal(fm_lookup_done(fm, id, &l, t), FM_A_WRITE);
	assert_int_equal(fm_write_done(fm, id, -EOPNOTSUPP, t), FM_A_REFUSE);
	assert_int_equal(fm->refused[NPUFLOW_FR_HW_ERROR], 1);
	fm_free(fm);
}

/* Connection n of up to 65,536 (distinct ports and addresses). */
static struct npuflow_key kbig(uint32_t n, int reply)
{
	uint32_t a = 0x0a010000 + (n >> 12), b = 0x0a020000;
	uint16_t p = 1024 + (n & 0xfff);

	return reply ? mk(8, 6, b, a, 5201, p) : mk(3, 6, a, b, p, 5201);
}

static struct fm_lookup lk_big(uint32_t n)
{
	struct fm_lookup l = lk_ok(0);

	l.ct_id = 1000 + n;
	l.key[0] = kbig(n, 0);
	l.key[1] = kbig(n, 1);
	return l;
}

/* Offer connection n at @t to a table holding @room more: its action. */
static enum fm_action offer(struct fm *fm, uint32_t n, uint64_t t, uint32_t *room,
			    uint32_t *id)
{
	struct npuflow_key k = kbig(n, 0);
	struct fm_lookup l = lk_big(n);
	enum fm_action a = fm_candidate(fm, &k, 16, 0, 1, t, t, id);

	if (a != FM_A_LOOKUP)
		return a;
	assert_int_equal(fm_lookup_done(fm, *id, &l, t), FM_A_WRITE);
	if (!*room)
		return fm_write_done(fm, *id, -ENOSPC, t);
	--*room;
	return fm_write_done(fm, *id, 0, t);
}

struct count_cb {
	uint32_t n[FM_A_MAX];
	uint32_t *ids;
	uint32_t nids;
};

static void count_cb(void *ctx, enum fm_action a, uint32_t id)
{
	struct count_cb *c = ctx;

	c->n[a]++;
	if (a == FM_A_RECHECK)
		c->ids[c->nids++] = id;
}

/* fm_tick at @t into @c, its counts zeroed first. */
static void tick_count(struct fm *fm, uint64_t t, struct count_cb *c)
{
	memset(c->n, 0, sizeof(c->n));
	c->nids = 0;
	fm_tick(fm, t, count_cb, c);
}

/* A due retry of refused entry @id at @t whose candidate moved, written with @rc. */
static enum fm_action retry_write(struct fm *fm, uint32_t id, uint64_t t, int rc)
{
	const struct npuflow_key *k = &fm->e[id].rec.key[0];
	uint32_t n = ((ntohl(*(const uint32_t *)k->saddr) - 0x0a010000) << 12) |
		     (ntohs(k->sport) - 1024);
	struct fm_lookup l = lk_big(n);

	assert_int_equal(fm_recheck(fm, id, fm->e[id].rec.cand_frames + 1, 0, t), FM_A_LOOKUP);
	assert_int_equal(fm_lookup_done(fm, id, &l, t), FM_A_WRITE);
	return fm_write_done(fm, id, rc, t);
}

/*
 * A 16,384-connection table offered 32,768, in a flow maker of 65,536: the
 * first refusal gates the rest (no lookup, no write); ticks over 10 s ask
 * again only at the probes; 100 slots freed by takeouts admit exactly 100
 * retries; a probe that finds room makes the next one due at once; the
 * gate lifts when nobody waits any more.
 */
static void test_full_table_admission(void **st)
{
	const uint32_t table = 16384, offered = 32768;
	struct fm *fm = new_fm(65536);
	struct count_cb c = { .ids = calloc(offered, sizeof(uint32_t)) };
	uint32_t room = table, n, id, lookups, gone, i, made_id[100];
	uint64_t t = 10 * S;

	(void)st;
	for (n = 0; n < offered; n++) {
		enum fm_action a = offer(fm, n, t, &room, &id);

		assert_int_equal(a, n < table ? FM_A_REARM : FM_A_REFUSE);
		if (n < 100)
			made_id[n] = id;
	}
	lookups = fm->stat[NPUFLOW_FM_LOOKUPS];
	assert_int_equal(lookups, table + 1);	/* one write found the table full */
	assert_int_equal(fm->refused[NPUFLOW_FR_TABLE_FULL], offered - table);
	assert_int_equal(fm->stat[NPUFLOW_FM_FULL_WAITS], offered - table - 1);

	/* 10 s of ticks, every 100 ms: retries only at the probes (5 s apart) */
	for (i = 1, lookups = 0, gone = 0; i <= 100; i++) {
		uint64_t now = t + i * 100 * MS;
		enum fm_action a;

		tick_count(fm, now, &c);
		lookups += c.n[FM_A_RECHECK];
		if (!c.nids)
			continue;
		/* the probe's candidate did not move: no write; idle 10 s: forgotten */
		a = fm_recheck(fm, c.ids[0], fm->e[c.ids[0]].rec.cand_frames, 0, now);
		assert_int_equal(a, now - t < FM_WATCH_NS_DEFAULT ? FM_A_NONE : FM_A_FORGET);
		if (a == FM_A_FORGET) {
			fm_forget(fm, c.ids[0]);
			gone++;
		}
	}
	assert_int_equal(lookups, 2);
	assert_int_equal(fm->full.waiting, offered - table - gone);	/* kept exact */
	assert_true(fm->full.now_full);

	/* 100 connections taken out: 100 retries, no more */
	t += 10 * S;
	for (i = 0; i < 100; i++) {
		struct npuflow_key ctk;

		fm_ct_key(&ctk, &fm->e[made_id[i]].rec.key[0], 0);
		assert_int_equal(fm_destroy(fm, &ctk, t, &id), FM_A_TAKEOUT);
		fm_forget(fm, id);
	}
	assert_int_equal(fm->full.credit, 100);
	tick_count(fm, t + S, &c);
	assert_int_equal(c.n[FM_A_RECHECK], 100);
	for (i = 0; i < c.nids; i++)
		assert_int_equal(retry_write(fm, c.ids[i], t + S, 0), FM_A_REARM);
	assert_int_equal(fm->full.credit, 0);
	assert_true(fm->full.now_full);		/* the freed slots taken: full again */
	tick_count(fm, t + 2 * S, &c);
	assert_int_equal(c.n[FM_A_RECHECK], 0);
	assert_int_equal(fm->full.waiting, offered - table - 100 - gone);

	/*
	 * A probe that finds room makes the next due at once: the next waiting
	 * connection to come due (a second later: a waiting one is due once a
	 * retry period) is tried; one that finds the table full, 5 s later.
	 */
	tick_count(fm, t + 20 * S, &c);
	assert_int_equal(c.n[FM_A_RECHECK], 1);
	assert_int_equal(retry_write(fm, c.ids[0], t + 20 * S, 0), FM_A_REARM);
	assert_false(fm->full.now_full);
	tick_count(fm, t + 21 * S, &c);
	assert_int_equal(c.n[FM_A_RECHECK], 1);
	assert_int_equal(retry_write(fm, c.ids[0], t + 21 * S, -ENOSPC), FM_A_REFUSE);
	assert_true(fm->full.now_full);
	for (i = 22; i < 26; i++) {
		tick_count(fm, t + i * S, &c);
		assert_int_equal(c.n[FM_A_RECHECK], 0);
	}
	tick_count(fm, t + 26 * S, &c);
	assert_int_equal(c.n[FM_A_RECHECK], 1);

	/* every waiting connection gone (conntrack forgot them): the gate lifts */
	for (id = 0; id < fm_id_end(fm); id++)
		if (fm->e[id].rec.state == NPUFLOW_CS_REFUSED)
			fm_forget(fm, id);
	tick_count(fm, t + 40 * S, &c);
	assert_false(fm->full.gated);
	assert_int_equal(fm->full.waiting, 0);
	free(c.ids);
	fm_free(fm);
}

/* Made @id's hardware counters, @pps a direction, reported at @t0 and @t1. */
static void hw_rate(struct fm *fm, uint32_t id, uint32_t pps, uint64_t t0, uint64_t t1)
{
	int d;

	for (d = 0; d < 2; d++) {
		fm_hw_stats(fm, id, d, pps * (t0 / S), pps * (t0 / S) * 100, 0, t0);
		fm_hw_stats(fm, id, d, pps * (t1 / S), pps * (t1 / S) * 100, 0, t1);
	}
}

/* Waiting @id's candidate first seen by the walk at @t: @pps since @t - 10 s. */
static void cand_rate(struct fm *fm, uint32_t id, uint32_t pps, uint64_t t)
{
	assert_int_equal(fm_waiting_seen(fm, &fm->e[id].rec.key[0], pps * 10ull, t - 10 * S, t),
			 1);
}

struct evict_cb {
	uint32_t n[FM_A_MAX];
	uint32_t held[64], looked[64];
	uint32_t nheld, nlooked;
};

static void evict_cb(void *ctx, enum fm_action a, uint32_t id)
{
	struct evict_cb *c = ctx;

	c->n[a]++;
	if (a == FM_A_HOLD && c->nheld < 64)
		c->held[c->nheld++] = id;
	if (a == FM_A_LOOKUP && c->nlooked < 64)
		c->looked[c->nlooked++] = id;
}

static void tick_evict(struct fm *fm, uint64_t t, struct evict_cb *c)
{
	memset(c, 0, sizeof(*c));
	fm_tick(fm, t, evict_cb, c);
}

/*
 * The admitted lookup of @id (connection @n) done, the promised slot's
 * holder taken out (fm_evict_victim(): its id, UINT32_MAX if none), the
 * write answered @rc.
 */
static uint32_t evict_write_rc(struct fm *fm, uint32_t id, uint32_t n, uint64_t t, int rc)
{
	struct fm_lookup l = lk_big(n);
	uint32_t v;

	assert_int_equal(fm->e[id].rec.state, NPUFLOW_CS_LOOKUP);
	assert_int_equal(fm_lookup_done(fm, id, &l, t), FM_A_WRITE);
	v = fm_evict_victim(fm, id, t);
	assert_int_equal(fm_write_done(fm, id, rc, t), rc ? FM_A_REFUSE : FM_A_REARM);
	return v;
}

static uint32_t evict_write(struct fm *fm, uint32_t id, uint32_t n, uint64_t t)
{
	return evict_write_rc(fm, id, n, t, 0);
}

/*
 * The busiest win, in a flow maker of 65,536 with a 16,384 table: 16,384
 * made connections at 20 frames a second but eight idle ones, then 16,000
 * waiting at 5 frames a second and eight at 10,000: one pass looks the
 * eight busy ones up, and each write takes exactly one idle connection's
 * slot; the slow waiting ones (under cfg.evict_pps) displace nobody; a
 * displaced connection is held back for cfg.evict_hold_ns and then waits
 * its turn.
 */
static void test_busiest_win(void **st)
{
	const uint32_t table = 16384, slow = 16000, busy = 8;
	struct fm *fm = new_fm(65536);
	struct evict_cb c;
	uint32_t room = table, n, id, i, j, v, made[16384], busy_id[8], slow_id0 = 0;
	uint64_t t = 10 * S, t1 = 21 * S, t2 = 22 * S;

	(void)st;
	for (n = 0; n < table + busy + slow; n++) {
		enum fm_action a = offer(fm, n, t, &room, &id);

		assert_int_equal(a, n < table ? FM_A_REARM : FM_A_REFUSE);
		if (n < table)
			made[n] = id;
		else if (n < table + busy)
			busy_id[n - table] = id;
		else if (n == table + busy)
			slow_id0 = id;
	}
	for (n = 0; n < table; n++)
		hw_rate(fm, made[n], n >= 100 && n < 108 ? 0 : 10, t1, t2);
	for (i = 0; i < busy; i++)
		assert_int_equal(fm_waiting_seen(fm, &fm->e[busy_id[i]].rec.key[0], 20000,
						 t2 - 2 * S, t2), 1);
	for (id = 0; id < fm_id_end(fm); id++)
		if (fm->e[id].rec.state == NPUFLOW_CS_REFUSED && !fm->e[id].rate[0].ns)
			cand_rate(fm, id, 5, t2);
	assert_int_equal(fm_rate_pps(&fm->e[busy_id[0]], t2), 10000);
	assert_int_equal(fm_rate_pps(&fm->e[slow_id0], t2), 5);
	assert_int_equal(fm_rate_pps(&fm->e[made[0]], t2), 20);
	assert_int_equal(fm_rate_pps(&fm->e[made[100]], t2), 0);

	tick_evict(fm, t2, &c);
	assert_int_equal(c.n[FM_A_LOOKUP], busy);
	assert_int_equal(c.n[FM_A_HOLD] + c.n[FM_A_REFUSE], 0);
	assert_int_equal(fm->stat[NPUFLOW_FM_EVICTED], 0);	/* not before the writes */
	for (i = 0; i < busy; i++) {
		assert_int_equal(c.looked[i], busy_id[i]);
		v = evict_write(fm, busy_id[i], table + i, t2);
		/* an idle one, and only they */
		for (j = 100; j < 108 && made[j] != v; j++)
			;
		assert_true(j < 108);
		assert_int_equal(fm->e[v].rec.state, NPUFLOW_CS_HELD);
		assert_true(fm->e[v].rec.flags & NPUFLOW_CONN_F_EVICTED);
		assert_int_equal(fm->e[v].rec.until_ns, t2 + FM_EVICT_HOLD_NS_DEFAULT);
		assert_int_equal(fm->e[busy_id[i]].rec.state, NPUFLOW_CS_MADE);
	}
	assert_int_equal(fm->stat[NPUFLOW_FM_EVICTED], busy);
	assert_int_equal(fm->full.credit, 0);

	/* the next passes: nobody waiting is busy enough */
	for (i = 1; i <= 5; i++) {
		tick_evict(fm, t2 + i * S, &c);
		assert_int_equal(c.n[FM_A_LOOKUP], 0);
	}
	assert_int_equal(fm->stat[NPUFLOW_FM_EVICTED], busy);

	/* a displaced one's traffic while held back: seen, no lookup */
	id = made[100];
	assert_int_equal(fm_candidate(fm, &fm->e[id].rec.key[0], 16, 0, NPUFLOW_R_FLOW_MISS,
				      t2 + 10 * S, t2 + 10 * S, &j), FM_A_NONE);
	assert_true(fm->e[id].rec.flags & NPUFLOW_CONN_F_SEEN);
	/* held back over: it waits for a slot like the others (this one is
	 * the probe's, which finds the table full) */
	tick_evict(fm, t2 + FM_EVICT_HOLD_NS_DEFAULT, &c);
	assert_int_equal(fm->e[id].rec.state, NPUFLOW_CS_LOOKUP);
	assert_true(fm->e[id].probe);
	assert_int_equal(evict_write_rc(fm, id, 100, t2 + FM_EVICT_HOLD_NS_DEFAULT, -ENOSPC),
			 UINT32_MAX);
	assert_int_equal(fm->e[id].rec.state, NPUFLOW_CS_REFUSED);
	assert_int_equal(fm->e[id].rec.reason, NPUFLOW_FR_TABLE_FULL);
	tick_evict(fm, t2 + FM_EVICT_HOLD_NS_DEFAULT + S, &c);
	assert_int_equal(c.n[FM_A_LOOKUP] + c.n[FM_A_RECHECK] + c.n[FM_A_HOLD], 0);
	fm_free(fm);
}

/* A table of 4 with @pps a direction on each made connection, made at 10 s. */
static struct fm *small_table(uint32_t pps, uint32_t *made)
{
	struct fm *fm = new_fm(64);
	uint32_t room = 4, n, id;

	for (n = 0; n < 5; n++) {
		assert_int_equal(offer(fm, n, 10 * S, &room, &id), n < 4 ? FM_A_REARM : FM_A_REFUSE);
		if (n < 4)
			made[n] = id;
	}
	for (n = 0; n < 4; n++)
		hw_rate(fm, made[n], pps, 20 * S, 21 * S);
	return fm;
}

/*
 * Retry pacing: 65,536 connections refused for a transient reason (no
 * conntrack entry) whose traffic goes on are looked up again after 1, 2, 4,
 * 8, 16 s (the wait doubling from cfg.retry_ns), then every
 * FM_RETRY_MAX_NS: 5 lookups each in their first minute, not 60.  A
 * connection made at last starts again from cfg.retry_ns at its next
 * refusal.
 */
static void test_retry_backoff(void **st)
{
	const uint32_t n = 65536;
	struct fm *fm = new_fm(n);
	struct count_cb c = { .ids = calloc(n, sizeof(uint32_t)) };
	uint64_t lookups = 0, t;
	uint32_t i, id;

	(void)st;
	assert_non_null(c.ids);
	for (i = 0; i < n; i++) {
		struct npuflow_key k = kbig(i, 0);
		struct fm_lookup l = lk_big(i);

		assert_int_equal(fm_candidate(fm, &k, 16, 0, 1, 0, 0, &id), FM_A_LOOKUP);
		assert_int_equal(id, i);
		l.ct_flags = 0;
		assert_int_equal(fm_lookup_done(fm, id, &l, 0), FM_A_REFUSE);
	}
	for (t = 1; t <= 60; t++) {
		tick_count(fm, t * S, &c);
		for (i = 0; i < c.nids; i++) {
			struct fm_lookup l = lk_big(c.ids[i]);

			assert_int_equal(fm_recheck(fm, c.ids[i], 16 + t, 0, t * S), FM_A_LOOKUP);
			l.ct_flags = 0;
			assert_int_equal(fm_lookup_done(fm, c.ids[i], &l, t * S), FM_A_REFUSE);
			lookups++;
		}
	}
	assert_int_equal(lookups, 5ull * n);
	/* from then on every FM_RETRY_MAX_NS, no longer */
	for (i = 0; i < n; i++)
		assert_true(fm->e[i].rec.until_ns <= 60 * S + FM_RETRY_MAX_NS);
	/* the first one made: its next refusal waits cfg.retry_ns again */
	t = 64;
	assert_int_equal(retry_write(fm, 0, t * S, 0), FM_A_REARM);
	assert_int_equal(fm->e[0].rec.state, NPUFLOW_CS_MADE);
	fm_set_state(fm, &fm->e[0], NPUFLOW_CS_LOOKUP, t * S);
	{
		struct fm_lookup l = lk_big(0);

		l.ct_flags = 0;
		assert_int_equal(fm_lookup_done(fm, 0, &l, t * S), FM_A_REFUSE);
	}
	assert_int_equal(fm->e[0].rec.until_ns, t * S + FM_RETRY_NS_DEFAULT);
	free(c.ids);
	fm_free(fm);
}

/*
 * A made connection whose rate keepalive has sampled once is not known to be
 * slow: it is not displaced until a second sample gives it a rate (with
 * keepalive paced by its cost, the second sample can come a minute later).
 */
static void test_busiest_unmeasured(void **st)
{
	struct fm *fm = new_fm(64);
	struct evict_cb c;
	uint32_t room = 4, n, id, made[4], busy = 0, v;
	uint64_t t = 10 * S, t1 = 21 * S, t2 = 22 * S;
	int d;

	(void)st;
	for (n = 0; n < 5; n++) {
		assert_int_equal(offer(fm, n, t, &room, &id), n < 4 ? FM_A_REARM : FM_A_REFUSE);
		if (n < 4)
			made[n] = id;
		else
			busy = id;
	}
	/* made[0..2]: one sample each, idle; made[3]: two, 10 a second */
	for (n = 0; n < 3; n++)
		for (d = 0; d < 2; d++)
			fm_hw_stats(fm, made[n], d, 7, 700, 0, t2);
	hw_rate(fm, made[3], 10, t1, t2);
	cand_rate(fm, busy, 1000, t2);
	tick_evict(fm, t2, &c);
	assert_int_equal(c.n[FM_A_LOOKUP], 1);
	v = evict_write(fm, busy, 4, t2);
	assert_int_equal(v, made[3]);
	for (n = 0; n < 3; n++)
		assert_int_equal(fm->e[made[n]].rec.state, NPUFLOW_CS_MADE);
	fm_free(fm);
}

/*
 * A port's facts that nothing announces moved (a shaping qdisc removed, the
 * 802.1Q devices changed): the connections refused for a shaped port or a
 * tag not written come due at once (fm_egress_facts_moved()) and are looked
 * up again at the next tick if they had traffic, not a never period later;
 * those refused for another reason keep their timers.
 */
static void test_facts_moved_retry(void **st)
{
	static const uint32_t eg[] = { FM_EG_SHAPED, FM_EG_VLAN, FM_EG_FOREIGN };
	struct fm *fm = new_fm(64);
	struct evict_cb c;
	uint32_t id[3], i;

	(void)st;
	for (i = 0; i < 3; i++) {
		struct fm_lookup l = lk_ok(i);
		struct npuflow_key k = korig(i);

		l.eg_flags[1] = eg[i];
		assert_int_equal(fm_candidate(fm, &k, 16, 0, 1, 0, S, &id[i]), FM_A_LOOKUP);
		assert_int_equal(fm_lookup_done(fm, id[i], &l, S), FM_A_REFUSE);
	}
	tick_evict(fm, 2 * S, &c);
	assert_int_equal(c.n[FM_A_RECHECK], 0);
	assert_int_equal(fm_egress_facts_moved(fm, 3 * S), 2);
	tick_evict(fm, 3 * S, &c);
	assert_int_equal(c.n[FM_A_RECHECK], 2);
	assert_true(c.nlooked == 0);
	/* the shaped one had traffic since: looked up; the other not */
	assert_int_equal(fm_recheck(fm, id[0], 64, 0, 3 * S), FM_A_LOOKUP);
	assert_int_equal(fm_recheck(fm, id[1], 16, 0, 3 * S), FM_A_NONE);
	assert_int_equal(fm->e[id[2]].rec.until_ns, S + FM_NEVER_NS_DEFAULT);
	fm_free(fm);
}

/*
 * The eviction pass walks the table only while a waiting connection has
 * been seen at cfg.evict_pps or more within FM_RATE_STALE_NS: slow waiting
 * ones (5 frames a second) cost no walk a second, a busy one's sample
 * starts the walks, and they stop once its rate is stale.
 */
static void test_busiest_pass_gated(void **st)
{
	uint32_t made[4], w = 4, i;
	struct evict_cb c;
	struct fm *fm;

	(void)st;
	fm = small_table(10, made);
	cand_rate(fm, w, 5, 21 * S);
	for (i = 21; i < 25; i++) {
		tick_evict(fm, i * S, &c);
		assert_int_equal(c.n[FM_A_LOOKUP], 0);
	}
	assert_int_equal(fm->stat[NPUFLOW_FM_EVICT_WALKS], 0);
	/* 400 frames in the next 4 s: busy */
	assert_int_equal(fm_waiting_seen(fm, &fm->e[w].rec.key[0], 50 + 400, 11 * S, 25 * S), 1);
	assert_int_equal(fm_rate_pps(&fm->e[w], 25 * S), 100);
	tick_evict(fm, 25 * S, &c);
	assert_int_equal(fm->stat[NPUFLOW_FM_EVICT_WALKS], 1);
	assert_int_equal(c.n[FM_A_LOOKUP], 1);
	/* no busy sample since 25 s: no walk once that one is stale */
	tick_evict(fm, 25 * S + FM_RATE_STALE_NS + S, &c);
	assert_int_equal(fm->stat[NPUFLOW_FM_EVICT_WALKS], 1);
	fm_free(fm);
}

/*
 * The hysteresis: a waiting connection displaces a made one only at
 * cfg.evict_ratio times its rate (39 against 2 x 20: no; 60: yes), and one
 * made less than cfg.evict_min_ns ago not at all.  A lookup that refuses
 * the busy connection takes nobody out.
 */
static void test_busiest_hysteresis(void **st)
{
	struct fm_lookup l = lk_big(4);
	uint32_t made[4], w = 4;
	struct evict_cb c;
	struct fm *fm;

	(void)st;
	fm = small_table(10, made);	/* 20 frames a second each */
	cand_rate(fm, w, 39, 21 * S);
	tick_evict(fm, 21 * S, &c);
	assert_int_equal(c.n[FM_A_LOOKUP], 0);
	/* samples a second apart: 60 frames in the next second */
	assert_int_equal(fm_waiting_seen(fm, &fm->e[w].rec.key[0], 390 + 30, 11 * S, 21 * S + 500 * MS), 1);
	assert_int_equal(fm_rate_pps(&fm->e[w], 22 * S), 39);
	assert_int_equal(fm_waiting_seen(fm, &fm->e[w].rec.key[0], 390 + 60, 11 * S, 22 * S), 1);
	assert_int_equal(fm_rate_pps(&fm->e[w], 22 * S), 60);
	tick_evict(fm, 22 * S, &c);
	assert_int_equal(c.n[FM_A_LOOKUP], 1);
	assert_int_equal(evict_write(fm, w, 4, 22 * S), made[0]);	/* the first of equals */
	fm_free(fm);

	/* made at 10 s, the pass at 19 s: too young to be displaced */
	fm = small_table(0, made);
	cand_rate(fm, w, 1000, 19 * S);
	tick_evict(fm, 19 * S, &c);
	assert_int_equal(c.n[FM_A_LOOKUP], 0);
	tick_evict(fm, 20 * S, &c);
	assert_int_equal(c.n[FM_A_LOOKUP], 1);
	/* ... whose lookup finds it closing: refused, the slot stays */
	l.ct_flags &= ~FM_CT_ESTABLISHED;
	assert_int_equal(fm_lookup_done(fm, w, &l, 20 * S), FM_A_REFUSE);
	assert_int_equal(fm_evict_victim(fm, w, 20 * S), UINT32_MAX);
	assert_int_equal(fm->e[made[0]].rec.state, NPUFLOW_CS_MADE);
	assert_false(fm->e[made[0]].reserved);
	assert_int_equal(fm->stat[NPUFLOW_FM_EVICTED], 0);
	fm_free(fm);
}

/*
 * One connection, both directions waiting as entries of one key each (each
 * refused before its lookup): the pass looks both up, the first lookup
 * merges the other into it, and one slot changes hands, not two.
 */
static void test_busiest_two_directions(void **st)
{
	struct npuflow_key k = kbig(5, 0), r = kbig(5, 1);
	struct fm_lookup l = lk_big(5);
	uint32_t made[4], w = 0, w2 = 0, v;
	struct evict_cb c;
	struct fm *fm;

	(void)st;
	fm = small_table(0, made);
	assert_int_equal(fm_candidate(fm, &k, 16, 0, 1, 12 * S, 12 * S, &w), FM_A_REFUSE);
	assert_int_equal(fm_candidate(fm, &r, 16, 0, 1, 12 * S, 12 * S, &w2), FM_A_REFUSE);
	assert_int_not_equal(w2, w);
	assert_int_equal(fm->e[w].nkeys, 1);
	cand_rate(fm, w, 1000, 21 * S);
	cand_rate(fm, w2, 900, 21 * S);
	tick_evict(fm, 21 * S, &c);
	assert_int_equal(c.n[FM_A_LOOKUP], 2);
	assert_int_equal(fm_lookup_done(fm, w, &l, 21 * S), FM_A_WRITE);
	assert_null(fm_get(fm, w2));			/* merged */
	v = fm_evict_victim(fm, w, 21 * S);
	assert_int_not_equal(v, UINT32_MAX);
	assert_int_equal(fm_write_done(fm, w, 0, 21 * S), FM_A_REARM);
	assert_int_equal(fm->stat[NPUFLOW_FM_EVICTED], 1);
	for (v = 0; v < 4; v++)
		assert_false(fm->e[made[v]].reserved);
	fm_free(fm);
}

/*
 * Bounded: 100 busy waiting against 100 idle made, in a 65,536 flow
 * maker: FM_EVICT_MAX lookups a pass, one pass a second.
 */
static void test_busiest_bounded(void **st)
{
	struct fm *fm = new_fm(65536);
	uint32_t room = 100, n, id, busy_id[100], k = 0;
	struct evict_cb c;

	(void)st;
	for (n = 0; n < 200; n++) {
		assert_int_equal(offer(fm, n, 10 * S, &room, &id), n < 100 ? FM_A_REARM : FM_A_REFUSE);
		if (n < 100)
			hw_rate(fm, id, 0, 20 * S, 21 * S);
		else
			busy_id[k++] = id;
	}
	for (n = 0; n < 100; n++)
		cand_rate(fm, busy_id[n], 1000 + n, 21 * S);
	tick_evict(fm, 21 * S, &c);
	assert_int_equal(c.n[FM_A_LOOKUP], FM_EVICT_MAX);
	assert_int_equal(c.looked[0], busy_id[99]);	/* the busiest first */
	tick_evict(fm, 21 * S + 500 * MS, &c);
	assert_int_equal(c.n[FM_A_LOOKUP], 0);
	tick_evict(fm, 22 * S, &c);
	/* the first pass's promised slots are not promised again */
	assert_int_equal(c.n[FM_A_LOOKUP], FM_EVICT_MAX);
	fm_free(fm);
}

struct cbrec {
	int n;
	enum fm_action a[16];
	uint32_t id[16];
};

static void rec_cb(void *ctx, enum fm_action a, uint32_t id)
{
	struct cbrec *r = ctx;

	if (r->n < 16) {
		r->a[r->n] = a;
		r->id[r->n] = id;
	}
	r->n++;
}

static void test_giveback_hold_doubling(void **st)
{
	struct fm *fm = new_fm(64);
	struct npuflow_key k = korig(0), r = kreply(0);
	struct fm_lookup l = lk_ok(0);
	uint64_t t = 100 * S, want = FM_HOLD_MIN_NS_DEFAULT;
	uint32_t id = make_conn(fm, 0, t), id2;
	struct fm_entry *e = &fm->e[id];
	struct cbrec cr = { 0 };
	int round;

	(void)st;
	/* a stale event (frames from before the connection was made) is ignored */
	assert_int_equal(fm_candidate(fm, &r, 16, 0, NPUFLOW_R_FLOW_MISS, t, t + 1, &id2),
			 FM_A_NONE);
	assert_int_equal(fm->stat[NPUFLOW_FM_STALE], 1);
	/* a crossing for another reason (over MTU, exceptions) is not a give-back */
	assert_int_equal(fm_candidate(fm, &r, 16, 0, NPUFLOW_R_EXCEPTION, t + 2, t + 2, &id2),
			 FM_A_NONE);
	assert_int_equal(fm->stat[NPUFLOW_FM_PUNTED_MADE], 1);
	assert_int_equal(e->rec.state, NPUFLOW_CS_MADE);

	for (round = 0; round < 7; round++) {
		t += S;	/* given back a second after it was (re)made */
		assert_int_equal(fm_candidate(fm, &r, 16, 0, NPUFLOW_R_FLOW_MISS, t, t, &id2),
				 FM_A_HOLD);
		assert_int_equal(id2, id);
		assert_int_equal(e->rec.state, NPUFLOW_CS_HELD);
		assert_int_equal(e->rec.wait_ns, want);
		assert_int_equal(e->rec.until_ns, t + want);
		assert_int_equal(e->rec.flags & (NPUFLOW_CONN_F_HW0 | NPUFLOW_CONN_F_HW1), 0);
		/* traffic during the hold: counted, nothing done */
		assert_int_equal(fm_candidate(fm, &k, 16, 0, NPUFLOW_R_FLOW_MISS, t + 1, t + 1,
					      &id2), FM_A_NONE);
		assert_true(e->rec.flags & NPUFLOW_CONN_F_SEEN);
		cr.n = 0;
		assert_int_equal(fm_tick(fm, t + want - 1, rec_cb, &cr), 0);
		assert_int_equal(cr.n, 0);
		t += want;
		assert_int_equal(fm_tick(fm, t, rec_cb, &cr), 1);
		assert_int_equal(cr.n, 1);
		assert_int_equal(cr.a[0], FM_A_LOOKUP);
		assert_int_equal(cr.id[0], id);
		assert_int_equal(fm_lookup_done(fm, id, &l, t), FM_A_WRITE);
		assert_int_equal(fm_write_done(fm, id, 0, t), FM_A_REARM);
		assert_int_equal(e->rec.state, NPUFLOW_CS_MADE);
		assert_int_equal(e->rec.remakes, round + 1);
		want = want * 2 > FM_HOLD_MAX_NS_DEFAULT ? FM_HOLD_MAX_NS_DEFAULT : want * 2;
	}
	/* 1, 2, 4, 8, 16, 16, 16 s */
	assert_int_equal(e->rec.wait_ns, FM_HOLD_MAX_NS_DEFAULT);
	assert_int_equal(e->rec.givebacks, 7);
	assert_int_equal(fm->stat[NPUFLOW_FM_GIVEBACKS], 7);
	assert_int_equal(fm->stat[NPUFLOW_FM_HELD], 7);
	assert_int_equal(fm->stat[NPUFLOW_FM_HELD_EVENTS], 7);
	assert_int_equal(fm->stat[NPUFLOW_FM_REMADE], 7);
	assert_int_equal(fm->stat[NPUFLOW_FM_MADE], 1);

	/* a quiet period: back to the first wait */
	t += FM_HOLD_QUIET_NS_DEFAULT;
	assert_int_equal(fm_candidate(fm, &r, 16, 0, NPUFLOW_R_NOT_ACTIVE, t, t, &id2),
			 FM_A_HOLD);
	assert_int_equal(e->rec.wait_ns, FM_HOLD_MIN_NS_DEFAULT);
	fm_free(fm);
}

/*
 * Misses processed just after the write (the device punted them before the
 * rules went in; NAPI ran late) re-arm the candidate; once the hardware has
 * forwarded the connection, or FM_SETTLE_NS has passed, a miss is a
 * give-back.
 */
static void test_misses_right_after_make(void **st)
{
	struct fm *fm = new_fm(64);
	struct npuflow_key r = kreply(0);
	uint64_t t = 100 * S;
	uint32_t id = make_conn(fm, 0, t), id2;
	struct fm_entry *e = &fm->e[id];

	(void)st;
	assert_int_equal(fm_candidate(fm, &r, 16, 0, NPUFLOW_R_FLOW_MISS, t + 5 * MS, t + 6 * MS,
				      &id2), FM_A_REARM);
	assert_int_equal(id2, id);
	assert_int_equal(e->rec.state, NPUFLOW_CS_MADE);
	assert_int_equal(fm->stat[NPUFLOW_FM_STALE], 1);
	assert_int_equal(fm->stat[NPUFLOW_FM_GIVEBACKS], 0);
	/* the hardware forwarded it: the next miss is a give-back at once */
	assert_int_equal(fm_hw_stats(fm, id, 0, 10, 15000, t + 50 * MS, t + 50 * MS), 1);
	assert_int_equal(fm_candidate(fm, &r, 16, 0, NPUFLOW_R_FLOW_MISS, t + 60 * MS,
				      t + 60 * MS, &id2), FM_A_HOLD);
	assert_int_equal(fm->stat[NPUFLOW_FM_GIVEBACKS], 1);
	fm_free(fm);

	/* never forwarded: a give-back once the settle time is over */
	fm = new_fm(64);
	id = make_conn(fm, 0, t);
	assert_int_equal(fm_candidate(fm, &r, 16, 0, NPUFLOW_R_NOT_ACTIVE, t + FM_SETTLE_NS - 1,
				      t + FM_SETTLE_NS - 1, &id2), FM_A_REARM);
	assert_int_equal(fm_candidate(fm, &r, 16, 0, NPUFLOW_R_NOT_ACTIVE, t + FM_SETTLE_NS,
				      t + FM_SETTLE_NS, &id2), FM_A_HOLD);
	fm_free(fm);
}

/*
 * A write that takes long (npuflowd's first loads tc's modules: 1.6 s in
 * the VM): the other direction crossing before the rules landed, processed
 * after, is stale, and the settle time runs from the landing.
 */
static void test_slow_write(void **st)
{
	struct fm *fm = new_fm(64);
	struct npuflow_key r = kreply(0);
	uint64_t t = 100 * S, landed = t + 1600 * MS;
	uint32_t id = make_conn(fm, 0, t), id2;
	struct fm_entry *e = &fm->e[id];

	(void)st;
	e->rec.hw_ns = landed;		/* as fmd records it */
	assert_int_equal(fm_candidate(fm, &r, 16, 0, NPUFLOW_R_FLOW_MISS, t + 1200 * MS,
				      landed + 5 * MS, &id2), FM_A_NONE);
	assert_int_equal(fm->stat[NPUFLOW_FM_STALE], 1);
	/* crossed after the landing, nothing forwarded yet, within the settle time */
	assert_int_equal(fm_candidate(fm, &r, 16, 0, NPUFLOW_R_FLOW_MISS, landed + 10 * MS,
				      landed + FM_SETTLE_NS - 1, &id2), FM_A_REARM);
	assert_int_equal(fm->stat[NPUFLOW_FM_STALE], 2);
	assert_int_equal(fm->stat[NPUFLOW_FM_GIVEBACKS], 0);
	assert_int_equal(e->rec.state, NPUFLOW_CS_MADE);
	/* and past it: a give-back */
	assert_int_equal(fm_candidate(fm, &r, 16, 0, NPUFLOW_R_FLOW_MISS, landed + FM_SETTLE_NS,
				      landed + FM_SETTLE_NS, &id2), FM_A_HOLD);
	fm_free(fm);
}

static void test_hold_idle_waiting(void **st)
{
	struct fm *fm = new_fm(64);
	struct npuflow_key k = korig(0);
	struct fm_lookup l = lk_ok(0);
	uint64_t t = 50 * S;
	uint32_t id = make_conn(fm, 0, t), id2;
	struct fm_entry *e = &fm->e[id];
	struct cbrec cr = { 0 };

	(void)st;
	t += S;
	assert_int_equal(fm_candidate(fm, &k, 16, 0, NPUFLOW_R_FLOW_MISS, t, t, &id2),
			 FM_A_HOLD);
	/* no traffic during the hold: WAITING, nothing to do */
	t += FM_HOLD_MIN_NS_DEFAULT;
	assert_int_equal(fm_tick(fm, t, rec_cb, &cr), 1);
	assert_int_equal(cr.n, 0);
	assert_int_equal(e->rec.state, NPUFLOW_CS_WAITING);
	/* the next crossing makes it again at once */
	assert_int_equal(fm_candidate(fm, &k, 16, 0, NPUFLOW_R_FLOW_MISS, t + 5, t + 5, &id2),
			 FM_A_LOOKUP);
	assert_int_equal(fm_lookup_done(fm, id, &l, t + 5), FM_A_WRITE);
	assert_int_equal(fm_write_done(fm, id, 0, t + 5), FM_A_REARM);
	assert_int_equal(e->rec.remakes, 1);
	/* held again, idle, and forgotten after the quiet period */
	t += 2 * S;
	assert_int_equal(fm_candidate(fm, &k, 16, 0, NPUFLOW_R_FLOW_MISS, t, t, &id2),
			 FM_A_HOLD);
	assert_int_equal(e->rec.wait_ns, 2 * FM_HOLD_MIN_NS_DEFAULT);
	t += e->rec.wait_ns;
	assert_int_equal(fm_tick(fm, t, rec_cb, &cr), 1);
	assert_int_equal(e->rec.state, NPUFLOW_CS_WAITING);
	assert_int_equal(fm_tick(fm, t + FM_HOLD_QUIET_NS_DEFAULT, rec_cb, &cr), 1);
	assert_int_equal(cr.n, 1);
	assert_int_equal(cr.a[0], FM_A_FORGET);
	assert_int_equal(e->rec.state, NPUFLOW_CS_FREE);
	assert_null(fm_find(fm, &k));
	assert_int_equal(fm->nused, 0);
	fm_free(fm);
}

static void test_destroy_release_revive(void **st)
{
	struct fm *fm = new_fm(64);
	struct npuflow_key o0 = korig(0), o1 = korig(1), r1 = kreply(1), ctk;
	uint32_t a = make_conn(fm, 0, S), b = make_conn(fm, 1, S), id;

	(void)st;
	/* revive events are counted on the connection */
	assert_int_equal(fm_revive(fm, &r1, 2 * S), 0);
	assert_int_equal(fm_revive(fm, &r1, 3 * S), 0);
	assert_int_equal(fm->e[b].rec.revives, 2);
	assert_int_equal(fm->e[b].rec.state, NPUFLOW_CS_MADE);
	assert_int_equal(fm->stat[NPUFLOW_FM_REVIVES], 2);

	/* DESTROY of a made connection: take out */
	fm_ct_key(&ctk, &o0, 0);
	assert_int_equal(fm_destroy(fm, &ctk, 4 * S, &id), FM_A_TAKEOUT);
	assert_int_equal(id, a);
	fm_forget(fm, id);
	assert_null(fm_find(fm, &o0));
	assert_null(fm_find(fm, &ctk));
	assert_int_equal(fm->stat[NPUFLOW_FM_TAKEN_OUT], 1);
	assert_int_equal(fm_destroy(fm, &ctk, 4 * S, &id), FM_A_NONE);

	/* release: rules out, stays released until conntrack drops it */
	assert_int_equal(fm_release(fm, b, 5 * S), FM_A_RELEASE);
	assert_int_equal(fm->e[b].rec.state, NPUFLOW_CS_RELEASED);
	assert_int_equal(fm_release(fm, b, 5 * S), FM_A_NONE);
	assert_int_equal(fm_candidate(fm, &o1, 16, 0, NPUFLOW_R_FLOW_MISS, 6 * S, 6 * S, &id),
			 FM_A_NONE);
	assert_int_equal(fm->stat[NPUFLOW_FM_RELEASED], 1);
	fm_ct_key(&ctk, &o1, 0);
	fm->e[b].rec.flags &= ~(NPUFLOW_CONN_F_HW0 | NPUFLOW_CONN_F_HW1);	/* daemon did */
	assert_int_equal(fm_destroy(fm, &ctk, 7 * S, &id), FM_A_FORGET);
	fm_forget(fm, id);
	assert_int_equal(fm->nused, 0);
	/* the freed ids are reused, lowest last freed first */
	assert_int_equal(make_conn(fm, 2, 8 * S), b);
	fm_free(fm);
}

static void test_hw_stats(void **st)
{
	struct fm *fm = new_fm(64);
	uint32_t id = make_conn(fm, 0, S);

	(void)st;
	assert_int_equal(fm_hw_stats(fm, id, 0, 0, 0, 0, 2 * S), 0);
	assert_int_equal(fm_hw_stats(fm, id, 0, 100, 150000, 2 * S, 2 * S), 1);
	assert_int_equal(fm_hw_stats(fm, id, 0, 100, 150000, 2 * S, 3 * S), 0);
	assert_int_equal(fm_hw_stats(fm, id, 1, 50, 3000, 3 * S, 3 * S), 1);
	assert_int_equal(fm->e[id].rec.packets[0], 100);
	assert_int_equal(fm->e[id].rec.bytes[1], 3000);
	assert_int_equal(fm->e[id].rec.last_used_ns, 3 * S);
	/* no last use reported (a terse dump): now if the counters moved */
	assert_int_equal(fm_hw_stats(fm, id, 0, 100, 150000, 0, 4 * S), 0);
	assert_int_equal(fm->e[id].rec.last_used_ns, 3 * S);
	assert_int_equal(fm_hw_stats(fm, id, 0, 120, 180000, 0, 5 * S), 1);
	assert_int_equal(fm->e[id].rec.last_used_ns, 5 * S);
	assert_int_equal(fm_hw_stats(fm, 63, 0, 1, 1, 1, 1), 0);
	fm_free(fm);
}

static void test_watch_and_refused_expiry(void **st)
{
	struct fm *fm = new_fm(64);
	struct fm_cfg c = fm->cfg;
	struct npuflow_key k = korig(0), k2 = korig(1);
	struct fm_lookup l = lk_ok(1);
	struct cbrec cr = { 0 };
	uint32_t id, id2;
	uint64_t t;

	(void)st;
	assert_int_equal(fm_candidate(fm, &k, 1, 0, 1, 0, 0, &id), FM_A_WATCH);
	assert_int_equal(fm_candidate(fm, &k2, 16, 0, 1, 0, 0, &id2), FM_A_LOOKUP);
	l.ct_flags = FM_CT_FOUND;	/* not established */
	assert_int_equal(fm_lookup_done(fm, id2, &l, 0), FM_A_REFUSE);
	assert_int_equal(fm_tick(fm, 1, rec_cb, &cr), 1);
	assert_int_equal(cr.a[0], FM_A_WATCH);	/* daemon re-reads the candidate */
	cr.n = 0;
	/* the retry is due: recheck once, then not before the next wait */
	assert_int_equal(fm_tick(fm, c.retry_ns, rec_cb, &cr), 2);
	assert_int_equal(cr.n, 2);
	assert_int_equal(cr.a[0], FM_A_WATCH);
	assert_int_equal(cr.a[1], FM_A_RECHECK);
	assert_int_equal(cr.id[1], id2);
	/* the next one after the doubled wait (one refusal so far) */
	assert_int_equal(fm->e[id2].rec.until_ns, 3 * c.retry_ns);
	cr.n = 0;
	assert_int_equal(fm_tick(fm, c.retry_ns + 1, rec_cb, &cr), 1);	/* only the watch */
	/* the candidate did not move: nothing; it moved: looked up again */
	assert_int_equal(fm_recheck(fm, id2, 16, 0, c.retry_ns), FM_A_NONE);
	assert_int_equal(fm->e[id2].rec.state, NPUFLOW_CS_REFUSED);
	assert_int_equal(fm_recheck(fm, id2, 20, 0, c.retry_ns), FM_A_LOOKUP);
	assert_int_equal(fm->e[id2].rec.state, NPUFLOW_CS_LOOKUP);
	assert_int_equal(fm_lookup_done(fm, id2, &l, c.retry_ns), FM_A_REFUSE);
	/* idle for watch_ns after the refusal: forgotten (the daemon rearms) */
	t = c.retry_ns + c.watch_ns;
	assert_int_equal(fm_recheck(fm, id2, 20, 0, t - 1), FM_A_NONE);
	assert_int_equal(fm_recheck(fm, id2, 20, 0, t), FM_A_FORGET);
	fm_forget(fm, id2);
	assert_null(fm_find(fm, &k2));
	assert_int_equal(fm->refused[NPUFLOW_FR_NOT_ESTABLISHED], 2);
	cr.n = 0;
	assert_int_equal(fm_tick(fm, c.watch_ns, rec_cb, &cr), 1);
	assert_int_equal(cr.a[0], FM_A_REARM);
	assert_null(fm_find(fm, &k));
	assert_int_equal(fm->nused, 0);
	assert_int_equal(fm->stat[NPUFLOW_FM_EXPIRED], 2);
	fm_free(fm);
}

static void test_core_full(void **st)
{
	struct fm *fm = new_fm(2);
	struct npuflow_key k0 = korig(0), k1 = korig(1), k2 = korig(2);
	uint32_t id;

	(void)st;
	assert_int_equal(fm_candidate(fm, &k0, 16, 0, 1, 0, 1, &id), FM_A_LOOKUP);
	assert_int_equal(fm_candidate(fm, &k1, 16, 0, 1, 0, 1, &id), FM_A_LOOKUP);
	assert_int_equal(fm_candidate(fm, &k2, 16, 0, 1, 0, 1, &id), FM_A_NONE);
	assert_int_equal(fm->stat[NPUFLOW_FM_CORE_FULL], 1);
	fm_free(fm);
}

static void test_restore(void **st)
{
	struct fm *fm = new_fm(64);
	struct npuflow_conn recs[3];
	struct npuflow_key ctk;
	int i;

	(void)st;
	for (i = 0; i < 3; i++) {
		uint32_t id = make_conn(fm, i, S);

		recs[i] = fm->e[id].rec;
	}
	fm_free(fm);
	fm = new_fm(64);
	/* ids 5, 0, 7 as found pinned */
	assert_int_equal(fm_restore(fm, 5, &recs[0]), 0);
	assert_int_equal(fm_restore(fm, 0, &recs[1]), 0);
	assert_int_equal(fm_restore(fm, 7, &recs[2]), 0);
	assert_int_equal(fm_restore(fm, 7, &recs[2]), -1);	/* taken */
	assert_int_equal(fm_restore(fm, 8, &recs[2]), -1);	/* duplicate keys */
	assert_int_equal(fm_restore(fm, 64, &recs[2]), -1);
	assert_int_equal(fm->stat[NPUFLOW_FM_RESTORED], 3);
	assert_int_equal(fm->nused, 3);
	{
		struct npuflow_key o = korig(1), r = kreply(2);

		assert_ptr_equal(fm_find(fm, &o), &fm->e[0]);
		assert_ptr_equal(fm_find(fm, &r), &fm->e[7]);
		fm_ct_key(&ctk, &recs[0].key[0], 0);
		assert_ptr_equal(fm_find(fm, &ctk), &fm->e[5]);
	}
	/* new connections get the free ids 1, 2, 3, 4, 6 */
	assert_int_equal(make_conn(fm, 10, 2 * S), 1);
	assert_int_equal(make_conn(fm, 11, 2 * S), 2);
	assert_int_equal(make_conn(fm, 12, 2 * S), 3);
	assert_int_equal(make_conn(fm, 13, 2 * S), 4);
	assert_int_equal(make_conn(fm, 14, 2 * S), 6);
	assert_int_equal(make_conn(fm, 15, 2 * S), 8);
	fm_free(fm);
}

/* fm_count_states() against a walk of every entry. */
static void assert_counts(const struct fm *fm)
{
	__u64 got[NPUFLOW_CS_MAX], want[NPUFLOW_CS_MAX] = { 0 };
	uint32_t i;

	for (i = 0; i < fm->cfg.max_conns; i++)
		want[fm->e[i].rec.state]++;
	fm_count_states(fm, got);
	for (i = 0; i < NPUFLOW_CS_MAX; i++)
		assert_int_equal(got[i], want[i]);
}

/*
 * The states are counted as they change, not by a walk a tick
 * (fm_count_states()); and a tick walks the table only while an entry has
 * a timer (pending, held, waiting, refused): 65,000 made connections and
 * nothing else cost a tick no walk.
 */
static void test_state_counts(void **st)
{
	struct fm *fm = new_fm(65536);
	struct count_cb c = { .ids = calloc(65536, sizeof(uint32_t)) };
	uint32_t room = 65000, n, id, made0 = 0, refused0 = 0;
	struct npuflow_conn rec;
	uint64_t w;

	(void)st;
	assert_non_null(c.ids);
	for (n = 0; n < 65536; n++) {
		enum fm_action a = offer(fm, n, S, &room, &id);

		if (a == FM_A_REARM && !n)
			made0 = id;
		if (a == FM_A_REFUSE && n == 65000)
			refused0 = id;
	}
	assert_counts(fm);
	w = fm->stat[NPUFLOW_FM_TABLE_WALKS];
	tick_count(fm, 2 * S, &c);		/* the refused ones' timers */
	assert_int_equal(fm->stat[NPUFLOW_FM_TABLE_WALKS], w + 1);
	for (id = 0; id < fm_id_end(fm); id++)
		if (fm->e[id].rec.state == NPUFLOW_CS_REFUSED)
			fm_forget(fm, id);
	assert_counts(fm);
	w = fm->stat[NPUFLOW_FM_TABLE_WALKS];
	tick_count(fm, 3 * S, &c);		/* made ones only: no walk */
	tick_count(fm, 4 * S, &c);
	assert_int_equal(fm->stat[NPUFLOW_FM_TABLE_WALKS], w);
	/* a hold, a forget, a restore: counted, and the hold's timer walked for */
	fm_hold(fm, &fm->e[made0], 10 * S, 5 * S);
	rec = fm->e[made0 + 1].rec;
	fm_forget(fm, made0 + 1);
	assert_int_equal(fm_restore(fm, made0 + 1, &rec), 0);
	assert_counts(fm);
	tick_count(fm, 6 * S, &c);
	assert_int_equal(fm->stat[NPUFLOW_FM_TABLE_WALKS], w + 1);
	(void)refused0;
	free(c.ids);
	fm_free(fm);
}

/*
 * fm_quiet(): an empty table and one whose connections are all made or
 * released have nothing due (the daemon's loop may wake less often); a
 * watched candidate, a lookup under way or a held connection has.
 */
static void test_quiet(void **st)
{
	struct fm *fm = new_fm(64);
	struct npuflow_key k = korig(5);
	uint32_t id, made;

	(void)st;
	assert_int_equal(fm_quiet(fm), 1);
	made = make_conn(fm, 0, S);
	assert_int_equal(fm_quiet(fm), 1);
	assert_int_equal(fm_candidate(fm, &k, 16, 16 * 1500, NPUFLOW_R_FLOW_MISS, 2 * S, 2 * S, &id),
			 FM_A_LOOKUP);
	assert_int_equal(fm_quiet(fm), 0);	/* its lookup under way */
	fm_forget(fm, id);
	assert_int_equal(fm_quiet(fm), 1);
	assert_int_equal(fm_release(fm, made, 3 * S), FM_A_RELEASE);
	assert_int_equal(fm_quiet(fm), 1);
	id = make_conn(fm, 1, 4 * S);
	fm_hold(fm, &fm->e[id], 10 * S, 5 * S);
	assert_int_equal(fm_quiet(fm), 0);	/* the hold's timer */
	fm_free(fm);
}

/*
 * A full table's waiting connections have no timer of their own: they are
 * admitted for a freed slot or at the probe (full_admit()), so while they
 * wait a tick walks the table only when a timer is due, a slot frees up or
 * the probe comes - not twenty times a second.  16,384 made, 16,384 waiting:
 * a minute of ticks walks the table about once per probe period, the
 * waiting count stays exact without a walk, and a freed slot still admits
 * one at the next tick.
 */
static void test_full_walks(void **st)
{
	struct fm *fm = new_fm(65536);
	struct count_cb c = { .ids = calloc(65536, sizeof(uint32_t)) };
	uint32_t room = 16384, n, id, made0 = 0;
	uint64_t w, t;

	(void)st;
	assert_non_null(c.ids);
	for (n = 0; n < 32768; n++)
		if (offer(fm, n, S, &room, &id) == FM_A_REARM && !n)
			made0 = id;
	assert_int_equal(fm->full.waiting, 16384);
	assert_true(fm_waiting(fm));
	w = fm->stat[NPUFLOW_FM_TABLE_WALKS];
	for (t = 2 * S; t <= 62 * S; t += S / 20)
		tick_count(fm, t, &c);
	assert_true(fm->stat[NPUFLOW_FM_TABLE_WALKS] - w <= 60 * S / FM_FULL_PROBE_NS_DEFAULT + 2);
	assert_int_equal(fm->full.waiting, 16384);
	/* a slot frees up: the next tick walks and admits one */
	fm_forget(fm, made0);
	w = fm->stat[NPUFLOW_FM_TABLE_WALKS];
	tick_count(fm, 62 * S + S / 20, &c);
	assert_int_equal(fm->stat[NPUFLOW_FM_TABLE_WALKS], w + 1);
	assert_int_equal(c.nids, 1);
	/* the admitted one leaves the waiting count when its lookup starts */
	assert_int_equal(fm_recheck(fm, c.ids[0], 100, 0, 62 * S + S / 20), FM_A_LOOKUP);
	assert_int_equal(fm->full.waiting, 16383);
	free(c.ids);
	fm_free(fm);
}

/*
 * The walks of the table (fm_tick, fm_count_states, the daemon's) end at
 * fm_id_end(): past it every entry is free.  It follows the highest id in
 * use as entries are allocated, forgotten and restored, whatever the
 * table's size, so that a table of 65,536 with 3 in use is not walked
 * whole twice a tick.
 */
static void test_id_end(void **st)
{
	struct fm *fm = new_fm(65536);
	struct npuflow_conn rec;
	__u64 states[NPUFLOW_CS_MAX];
	uint32_t a, b, c;

	(void)st;
	assert_int_equal(fm_id_end(fm), 0);
	a = make_conn(fm, 0, S);
	b = make_conn(fm, 1, S);
	c = make_conn(fm, 2, S);
	assert_int_equal(a, 0);
	assert_int_equal(c, 2);
	assert_int_equal(fm_id_end(fm), 3);
	fm_forget(fm, b);			/* a hole: the end stays */
	assert_int_equal(fm_id_end(fm), 3);
	rec = fm->e[c].rec;
	fm_forget(fm, c);			/* the last: the end comes down past the hole */
	assert_int_equal(fm_id_end(fm), 1);
	assert_int_equal(fm_restore(fm, 40000, &rec), 0);
	assert_int_equal(fm_id_end(fm), 40001);
	fm_count_states(fm, states);
	assert_int_equal(states[NPUFLOW_CS_MADE], 2);
	assert_int_equal(states[NPUFLOW_CS_FREE], 65536 - 2);	/* the table's, walked or not */
	fm_forget(fm, 40000);
	fm_forget(fm, a);
	assert_int_equal(fm_id_end(fm), 0);
	fm_free(fm);
}

/* index integrity under many inserts and deletes (backward-shift deletion) */
static void test_index_churn(void **st)
{
	enum { N = 4000 };
	struct fm *fm = new_fm(N);
	static uint32_t ids[N];
	static uint8_t alive[N];
	uint32_t x = 12345, i, id = 0;
	int round;

	(void)st;
	for (i = 0; i < N; i++) {
		ids[i] = make_conn(fm, i, S);
		alive[i] = 1;
	}
	for (round = 0; round < 3; round++) {
		for (i = 0; i < N; i++) {
			struct npuflow_key ctk, o = korig(i);

			x = x * 1103515245 + 12345;
			if (!alive[i] || (x >> 16) % 2)
				continue;
			fm_ct_key(&ctk, &o, 0);
			assert_int_equal(fm_destroy(fm, &ctk, 2 * S, &id), FM_A_TAKEOUT);
			assert_int_equal(id, ids[i]);
			fm_forget(fm, id);
			alive[i] = 0;
		}
		for (i = 0; i < N; i++) {
			struct npuflow_key o = korig(i), r = kreply(i);

			if (alive[i]) {
				assert_ptr_equal(fm_find(fm, &o), &fm->e[ids[i]]);
				assert_ptr_equal(fm_find(fm, &r), &fm->e[ids[i]]);
			} else {
				assert_null(fm_find(fm, &o));
				assert_null(fm_find(fm, &r));
				ids[i] = make_conn(fm, i, 3 * S);
				alive[i] = 1;
			}
		}
	}
	assert_int_equal(fm->nused, N);
	fm_free(fm);
}

static struct npuflow_cand cand(uint64_t frames, uint64_t first_ns, uint8_t flags)
{
	struct npuflow_cand v;

	memset(&v, 0, sizeof(v));
	v.frames = frames;
	v.first_ns = first_ns;
	v.last_ns = first_ns + 5 * MS;
	v.flags = flags;
	v.reason = NPUFLOW_R_FLOW_MISS;
	v.conn = NPUFLOW_CONN_NONE;
	return v;
}

/*
 * The rescan after lost threshold events: which candidates a walk hands
 * to the flow maker - marked ones, each once, a new candidate under an
 * old key again - and what that does (as the event would have).
 */
static void test_rescan(void **st)
{
	enum { N = 1000 };
	const uint8_t lost = NPUFLOW_CF_THRESHOLD | NPUFLOW_CF_EVENT_LOST;
	struct fm_rescan r;
	struct npuflow_key a = korig(1), b = korig(2), c = korig(3), rep = kreply(0);
	struct npuflow_cand va = cand(16, S, lost), vb = cand(20, S, lost | NPUFLOW_CF_META);
	struct npuflow_cand vc = cand(16, 2 * S, lost), v;
	struct fm *fm;
	uint32_t id, i;

	(void)st;
	memset(&r, 0, sizeof(r));
	/* marked: over the threshold and its event lost; nothing else is */
	v = cand(16, S, NPUFLOW_CF_THRESHOLD);
	assert_false(fm_missed(&v));
	v = cand(3, S, NPUFLOW_CF_EVENT_LOST);
	assert_false(fm_missed(&v));
	assert_true(fm_missed(&va));
	assert_true(fm_missed(&vb));

	/* walk 1: a and b handed over */
	fm_rescan_begin(&r);
	assert_int_equal(fm_rescan_take(&r, &a, &va), 1);
	assert_int_equal(fm_rescan_take(&r, &b, &vb), 1);
	fm_rescan_end(&r);
	/* walk 2: a again (still there, frames moved: the same candidate), not
	 * handed over; b gone; c new; then a walk that fails half way */
	fm_rescan_begin(&r);
	va.frames = 40;
	assert_int_equal(fm_rescan_take(&r, &a, &va), 0);
	assert_int_equal(fm_rescan_take(&r, &c, &vc), 1);
	fm_rescan_end(&r);
	fm_rescan_begin(&r);
	assert_int_equal(fm_rescan_take(&r, &c, &vc), 0);
	/* (abandoned: begin again) */
	fm_rescan_begin(&r);
	/* a deleted and made again meanwhile (another first_ns): a new crossing */
	va.first_ns = 3 * S;
	assert_int_equal(fm_rescan_take(&r, &a, &va), 1);
	assert_int_equal(fm_rescan_take(&r, &c, &vc), 0);
	/* b back with its old first_ns: walk 2 did not see it, so forgotten */
	assert_int_equal(fm_rescan_take(&r, &b, &vb), 1);
	fm_rescan_end(&r);
	/* many: each once across walks, whatever the order */
	for (int w = 0; w < 3; w++) {
		fm_rescan_begin(&r);
		for (i = 0; i < N; i++) {
			uint32_t j = w == 1 ? N - 1 - i : i;
			struct npuflow_key k = korig(100 + j);

			v = cand(16, S + j, lost);
			assert_int_equal(fm_rescan_take(&r, &k, &v), w == 0);
		}
		fm_rescan_end(&r);
	}
	assert_int_equal(r.nprev, N);
	fm_rescan_free(&r);
	assert_null(r.prev);
	assert_int_equal(r.nprev, 0);

	/* what a handed-over crossing does: as the event would have */
	fm = new_fm(64);
	assert_int_equal(fm_candidate(fm, &c, vc.frames, vc.bytes, vc.reason, vc.last_ns, 3 * S,
				      &id), FM_A_LOOKUP);
	/* a made connection's reply direction given back, its crossing lost */
	id = make_conn(fm, 0, S);
	fm->e[id].rec.hw_ns = S;
	v = cand(16, 2 * S, lost);
	assert_int_equal(fm_candidate(fm, &rep, v.frames, v.bytes, v.reason, v.last_ns, 3 * S,
				      &i), FM_A_HOLD);
	assert_int_equal(i, id);
	assert_int_equal(fm->e[id].rec.state, NPUFLOW_CS_HELD);
	fm_free(fm);
}

/*
 * A made connection whose egress moved goes back to the host whole
 * (FM_A_TAKEOUT, counted rerouted); one not made is left alone; the ids
 * the daemon forgets make again from the next crossing.
 */
static void test_egress_moved(void **st)
{
	struct fm *fm = new_fm(64);
	struct npuflow_key k = korig(1);
	uint32_t id = make_conn(fm, 0, 5 * S), nid = ~0u;

	(void)st;
	assert_int_equal(fm_candidate(fm, &k, 1, 1500, NPUFLOW_R_FLOW_MISS, 6 * S, 6 * S, &nid),
			 FM_A_WATCH);
	assert_int_equal(fm_egress_moved(fm, nid, 6 * S), FM_A_NONE);
	assert_int_equal(fm_egress_moved(fm, id, 6 * S), FM_A_TAKEOUT);
	assert_int_equal(fm->stat[NPUFLOW_FM_REROUTED], 1);
	fm_forget(fm, id);
	assert_int_equal(fm_egress_moved(fm, id, 6 * S), FM_A_NONE);
	assert_int_equal(make_conn(fm, 0, 7 * S), id);
	assert_int_equal(fm->stat[NPUFLOW_FM_MADE], 2);
	assert_string_equal(fm_stat_name(NPUFLOW_FM_REROUTED), "rerouted");
	fm_free(fm);
}

/* The pace of a periodic pass over every connection (keepalive's dump, the
 * conntrack sweep, the egress recheck): its period, stretched so that the
 * pass takes at most 1/FM_PACE_SHARE of the loop, never past its bound. */
static void test_pace_next(void **st)
{
	const uint64_t s = 1000000000ull, ms = 1000000ull;

	(void)st;
	assert_int_equal(FM_PACE_SHARE, 50);
	/* a quick pass: the period */
	assert_int_equal(fm_pace_next(10 * s, 1 * s, 10 * ms, 15 * s), 11 * s);
	/* 20 ms is a fiftieth of 1 s exactly: still the period */
	assert_int_equal(fm_pace_next(10 * s, 1 * s, 20 * ms, 15 * s), 11 * s);
	/* 300 ms: fifty times it after its end */
	assert_int_equal(fm_pace_next(10 * s, 1 * s, 300 * ms, 30 * s), 25 * s);
	/* a pass of 3 s (65,536 connections): the bound, not 150 s */
	assert_int_equal(fm_pace_next(10 * s, 1 * s, 3 * s, 30 * s), 40 * s);
	/* a period longer than the bound is the operator's: kept */
	assert_int_equal(fm_pace_next(10 * s, 20 * s, 50 * ms, 15 * s), 30 * s);
	/* no bound: the share alone */
	assert_int_equal(fm_pace_next(10 * s, 1 * s, 3 * s, UINT64_MAX), 160 * s);
	/* keepalive with no connection waiting: a hundredth of the loop */
	assert_int_equal(FM_PACE_SHARE_QUIET, 100);
	assert_int_equal(fm_pace_next_share(10 * s, 1 * s, 300 * ms, 60 * s, 100), 40 * s);
	assert_int_equal(fm_pace_next_share(10 * s, 1 * s, 1 * s, 60 * s, 100), 70 * s);
	assert_int_equal(fm_pace_next_share(10 * s, 1 * s, 300 * ms, 60 * s, 50), 25 * s);
}

/* A long pass in steps (keepalive's dumps at 32,768 rules): each step of
 * 10 ms followed by 49 times it, so the pass keeps to a fiftieth of the
 * loop while it lasts; when the whole pass (2 s) so spread would outlast
 * its bound (30 s: 16,384 UDP connections), the gaps shrink to fit it;
 * a pass longer than its bound has no gap. */
static void test_pace_gap(void **st)
{
	const uint64_t s = 1000000000ull, ms = 1000000ull;

	(void)st;
	assert_int_equal(fm_pace_gap(10 * ms, 50, 2 * s, UINT64_MAX), 490 * ms);
	assert_int_equal(fm_pace_gap(10 * ms, 50, 0, 30 * s), 490 * ms);
	assert_int_equal(fm_pace_gap(10 * ms, 50, 200 * ms, 30 * s), 490 * ms);
	assert_int_equal(fm_pace_gap(10 * ms, 50, 2 * s, 30 * s), 140 * ms);
	assert_int_equal(fm_pace_gap(10 * ms, 100, 2 * s, 30 * s), 140 * ms);
	assert_int_equal(fm_pace_gap(10 * ms, 50, 40 * s, 30 * s), 0);
	assert_int_equal(fm_pace_gap(10 * ms, 50, 20 * s, 30 * s), 0);
}

/* Keepalive's bound: a quarter of the shortest conntrack timeout among the
 * classes made (fm_ct_refresh_due() refreshes a moving one at every pass then). */
static void test_keepalive_bound(void **st)
{
	const uint64_t s = 1000000000ull;

	(void)st;
	assert_int_equal(fm_keepalive_bound(432000, 120, 0), UINT64_MAX);
	assert_int_equal(fm_keepalive_bound(432000, 120, FM_CLASS_TCP), 108000 * s);
	assert_int_equal(fm_keepalive_bound(432000, 120, FM_CLASS_UDP), 30 * s);
	assert_int_equal(fm_keepalive_bound(432000, 120, FM_CLASS_TCP | FM_CLASS_UDP), 30 * s);
	/* an operator's cut: 12 s for UDP streams */
	assert_int_equal(fm_keepalive_bound(432000, 12, FM_CLASS_TCP | FM_CLASS_UDP), 3 * s);
	assert_int_equal(fm_keepalive_bound(0, 0, FM_CLASS_UDP), 0);
}

/*
 * A moving connection's refresh: a quarter of the shorter of its class's
 * timeout and the one its entry holds after the last refresh, counted from
 * that refresh; never due at a pass whose time was read before the make
 * stamped its own (the pass writes, then keeps alive: VM 64 saw a refresh
 * seconds after a make).
 */
static void test_ct_refresh_due(void **st)
{
	const uint64_t s = 1000000000ull;
	struct fm_entry e = { 0 };

	(void)st;
	assert_true(fm_ct_refresh_due(&e, 432000, 5 * s));
	e.ct_refresh_ns = 100 * s;
	e.ct_refresh_s = 432000;
	assert_false(fm_ct_refresh_due(&e, 432000, 100 * s - 1));
	assert_false(fm_ct_refresh_due(&e, 432000, 100 * s));
	assert_false(fm_ct_refresh_due(&e, 432000, 108099 * s));
	assert_true(fm_ct_refresh_due(&e, 432000, 108100 * s));
	/* made holding 300 s (unacknowledged data): a quarter of that */
	e.ct_refresh_s = 300;
	assert_false(fm_ct_refresh_due(&e, 432000, 174 * s));
	assert_true(fm_ct_refresh_due(&e, 432000, 175 * s));
	/* the operator cut the class's timeout to 8 s */
	assert_true(fm_ct_refresh_due(&e, 8, 102 * s));
}

static void test_names(void **st)
{
	unsigned int i;

	(void)st;
	for (i = 0; i < NPUFLOW_FM_MAX; i++)
		assert_non_null(fm_stat_name(i));
	assert_null(fm_stat_name(NPUFLOW_FM_MAX));
	assert_string_equal(fm_state_name(NPUFLOW_CS_HELD), "held");
	assert_string_equal(fm_reason_name(NPUFLOW_FR_TABLE_FULL), "table_full");
	assert_string_equal(fm_reason_name(NPUFLOW_FR_FOREIGN), "foreign_egress");
	assert_string_equal(fm_action_name(FM_A_REARM), "rearm");
	assert_string_equal(fm_action_name(FM_A_RECHECK), "recheck");
}

/*
 * npuflowd's warm-up rule (fmd_warmup): a software-only IPv4 flower rule of
 * our prio and a handle no connection has, matching nothing forwarded, with
 * one action of each module the rules load.
 */
static void test_warmup_rule(void **st)
{
	char buf[MNL_SOCKET_BUFFER_SIZE] __attribute__((aligned(8)));
	const struct nlmsghdr *nlh = (const struct nlmsghdr *)buf;
	struct tcfl_info in;
	uint32_t id;
	int dir;

	(void)st;
	assert_int_equal(tcfl_build_warmup(buf, 512, 7, NPUFLOW_TC_PRIO_IP, 0xfffffff0u, 1), 0);
	assert_true(tcfl_build_warmup(buf, sizeof(buf), 7, NPUFLOW_TC_PRIO_IP, 0xfffffff0u, 1) > 0);
	assert_int_equal(nlh->nlmsg_type, RTM_NEWTFILTER);
	assert_int_equal(tcfl_parse(nlh, &in), 0);
	assert_string_equal(in.kind, "flower");
	assert_int_equal(in.ifindex, 7);
	assert_int_equal(in.prio, NPUFLOW_TC_PRIO_IP);
	assert_int_equal(in.protocol, ETH_P_IP);
	assert_int_equal(in.handle, 0xfffffff0u);
	assert_int_equal(in.flags & (TCA_CLS_FLAGS_SKIP_HW | TCA_CLS_FLAGS_SKIP_SW),
			 TCA_CLS_FLAGS_SKIP_HW);
	assert_int_equal(in.match.proto, 6);
	assert_int_equal(in.match.sport, 0);
	assert_int_equal(in.match.dport, 0);
	assert_int_equal(in.nactions, 4);
	assert_string_equal(in.actions[0], "pedit");
	assert_string_equal(in.actions[1], "csum");
	assert_string_equal(in.actions[2], "vlan");
	assert_string_equal(in.actions[3], "mirred");
	assert_int_equal(in.out_ifindex, 7);
	/* no connection's: a leftover is an orphan at restore */
	tcfl_handle_split(in.handle, &id, &dir);
	assert_true(id >= 1u << 24);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_warmup_rule),
		cmocka_unit_test(test_threshold_frames),
		cmocka_unit_test(test_threshold_bytes),
		cmocka_unit_test(test_made),
		cmocka_unit_test(test_made_from_reply_and_nat),
		cmocka_unit_test(test_ct_match_after_gap),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_refuse_pppoe),
		cmocka_unit_test(test_made_two_tags),
		cmocka_unit_test(test_unproven),
		cmocka_unit_test(test_nexthop_kept),
		cmocka_unit_test(test_table_full),
		cmocka_unit_test(test_full_table_admission),
		cmocka_unit_test(test_busiest_win),
		cmocka_unit_test(test_retry_backoff),
		cmocka_unit_test(test_busiest_hysteresis),
		cmocka_unit_test(test_busiest_pass_gated),
		cmocka_unit_test(test_facts_moved_retry),
		cmocka_unit_test(test_busiest_unmeasured),
		cmocka_unit_test(test_busiest_two_directions),
		cmocka_unit_test(test_busiest_bounded),
		cmocka_unit_test(test_giveback_hold_doubling),
		cmocka_unit_test(test_misses_right_after_make),
		cmocka_unit_test(test_slow_write),
		cmocka_unit_test(test_hold_idle_waiting),
		cmocka_unit_test(test_destroy_release_revive),
		cmocka_unit_test(test_hw_stats),
		cmocka_unit_test(test_watch_and_refused_expiry),
		cmocka_unit_test(test_core_full),
		cmocka_unit_test(test_restore),
		cmocka_unit_test(test_id_end),
		cmocka_unit_test(test_state_counts),
		cmocka_unit_test(test_full_walks),
		cmocka_unit_test(test_index_churn),
		cmocka_unit_test(test_rescan),
		cmocka_unit_test(test_egress_moved),
		cmocka_unit_test(test_quiet),
		cmocka_unit_test(test_pace_next),
		cmocka_unit_test(test_pace_gap),
		cmocka_unit_test(test_keepalive_bound),
		cmocka_unit_test(test_ct_refresh_due),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_eg_session),
		cmocka_unit_test(test_made_pppoe),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
