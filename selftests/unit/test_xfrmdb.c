// SPDX-License-Identifier: GPL-2.0
/*
 * The IPsec policy database (loader/xfrmdb.c): policies parsed from
 * XFRM_MSG_NEWPOLICY, and a connection's frames matched against their
 * selectors as the kernel does (prefixes, port masks, protocol, device,
 * priority, bypass and block policies, marks, xfrm interfaces).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <arpa/inet.h>
#include <cmocka.h>
#include "../../loader/xfrmdb.c"

/* nls_seq and nls_talk, which xfrmdb_load needs, are not under test here */
uint32_t nls_seq(struct nlsock *s)
{
	(void)s;
	return 1;
}

int nls_talk(struct nlsock *s, const void *msg, size_t len, mnl_cb_t cb, void *data)
{
	(void)s; (void)msg; (void)len; (void)cb; (void)data;
	return -EOPNOTSUPP;
}

static char buf[1024] __attribute__((aligned(8)));

/* An XFRM_MSG_NEWPOLICY in buf: @dir, @src/@sp -> @dst/@dp (prefix lengths
 * @sl, @dl; ports exact if non-zero), TCP, priority @prio, with a template
 * if @tmpl. */
static struct nlmsghdr *policy(uint8_t dir, const char *src, int sl, const char *dst, int dl,
			       uint16_t dp, uint32_t prio, int tmpl)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct xfrm_userpolicy_info *pi;

	memset(buf, 0, sizeof(buf));
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = XFRM_MSG_NEWPOLICY;
	pi = mnl_nlmsg_put_extra_header(nlh, sizeof(*pi));
	pi->dir = dir;
	pi->priority = prio;
	pi->sel.family = AF_INET;
	inet_pton(AF_INET, src, &pi->sel.saddr);
	inet_pton(AF_INET, dst, &pi->sel.daddr);
	pi->sel.prefixlen_s = sl;
	pi->sel.prefixlen_d = dl;
	pi->sel.proto = IPPROTO_TCP;
	if (dp) {
		pi->sel.dport = htons(dp);
		pi->sel.dport_mask = 0xffff;
	}
	if (tmpl) {
		struct xfrm_user_tmpl t;

		memset(&t, 0, sizeof(t));
		t.id.proto = IPPROTO_ESP;
		mnl_attr_put(nlh, XFRMA_TMPL, sizeof(t), &t);
	}
	return nlh;
}

static struct npuflow_key key4(const char *s, uint16_t sp, const char *d, uint16_t dp)
{
	struct npuflow_key k;

	memset(&k, 0, sizeof(k));
	k.family = 2;
	k.proto = IPPROTO_TCP;
	inet_pton(AF_INET, s, k.saddr);
	inet_pton(AF_INET, d, k.daddr);
	k.sport = htons(sp);
	k.dport = htons(dp);
	return k;
}

static void add(struct xfrmdb *db, const struct nlmsghdr *nlh)
{
	struct xfrmdb_pol p;

	assert_int_equal(xfrmdb_parse(nlh, &p), 0);
	assert_int_equal(xfrmdb_add(db, &p), 0);
}

static void test_parse(void **st)
{
	struct xfrmdb_pol p;
	struct nlmsghdr *nlh;
	struct xfrm_mark m = { .v = 1, .m = 0xff };

	(void)st;
	nlh = policy(XFRM_POLICY_FWD, "10.0.0.0", 24, "192.0.2.0", 24, 443, 7, 1);
	mnl_attr_put(nlh, XFRMA_MARK, sizeof(m), &m);
	mnl_attr_put_u32(nlh, XFRMA_IF_ID, 9);
	assert_int_equal(xfrmdb_parse(nlh, &p), 0);
	assert_int_equal(p.dir, XFRM_POLICY_FWD);
	assert_int_equal(p.priority, 7);
	assert_true(p.transforms);
	assert_int_equal(p.mark.v, 1);
	assert_int_equal(p.mark.m, 0xff);
	assert_int_equal(p.if_id, 9);
	assert_int_equal(p.sel.prefixlen_d, 24);
	/* an in policy, another message: not kept */
	assert_int_equal(xfrmdb_parse(policy(XFRM_POLICY_IN, "0.0.0.0", 0, "0.0.0.0", 0, 0, 0, 1),
				      &p), 1);
	nlh = policy(XFRM_POLICY_OUT, "0.0.0.0", 0, "0.0.0.0", 0, 0, 0, 0);
	nlh->nlmsg_type = XFRM_MSG_NEWSA;
	assert_int_equal(xfrmdb_parse(nlh, &p), 1);
	/* malformed: a template too short, an interface id of 2 bytes, no room */
	nlh = policy(XFRM_POLICY_OUT, "0.0.0.0", 0, "0.0.0.0", 0, 0, 0, 0);
	mnl_attr_put(nlh, XFRMA_TMPL, 8, "12345678");
	assert_int_equal(xfrmdb_parse(nlh, &p), -1);
	nlh = policy(XFRM_POLICY_OUT, "0.0.0.0", 0, "0.0.0.0", 0, 0, 0, 0);
	mnl_attr_put_u16(nlh, XFRMA_IF_ID, 9);
	assert_int_equal(xfrmdb_parse(nlh, &p), -1);
	nlh = policy(XFRM_POLICY_OUT, "0.0.0.0", 0, "0.0.0.0", 0, 0, 0, 0);
	nlh->nlmsg_len = MNL_NLMSG_HDRLEN + 8;
	assert_int_equal(xfrmdb_parse(nlh, &p), -1);
}

/* Selectors: prefixes to the bit, a destination port, the protocol, the
 * direction, the family. */
static void test_match(void **st)
{
	struct xfrmdb db = { .loaded = 1 };
	struct npuflow_key k = key4("10.0.0.5", 40000, "192.0.2.130", 443);

	(void)st;
	add(&db, policy(XFRM_POLICY_FWD, "10.0.0.0", 29, "192.0.2.128", 25, 443, 0, 1));
	assert_true(xfrmdb_protects(&db, &k, 3, XFRM_POLICY_FWD));
	assert_false(xfrmdb_protects(&db, &k, 3, XFRM_POLICY_OUT));
	k = key4("10.0.0.8", 40000, "192.0.2.130", 443);	/* outside /29 */
	assert_false(xfrmdb_protects(&db, &k, 3, XFRM_POLICY_FWD));
	k = key4("10.0.0.5", 40000, "192.0.2.1", 443);		/* outside /25 */
	assert_false(xfrmdb_protects(&db, &k, 3, XFRM_POLICY_FWD));
	k = key4("10.0.0.5", 40000, "192.0.2.130", 80);		/* another port */
	assert_false(xfrmdb_protects(&db, &k, 3, XFRM_POLICY_FWD));
	k = key4("10.0.0.5", 40000, "192.0.2.130", 443);
	k.proto = IPPROTO_UDP;
	assert_false(xfrmdb_protects(&db, &k, 3, XFRM_POLICY_FWD));
	k.proto = IPPROTO_TCP;
	k.family = 10;
	assert_false(xfrmdb_protects(&db, &k, 3, XFRM_POLICY_FWD));
	/* a selector bound to device 5 */
	k.family = 2;
	db.p[0].sel.ifindex = 5;
	assert_false(xfrmdb_protects(&db, &k, 3, XFRM_POLICY_FWD));
	assert_true(xfrmdb_protects(&db, &k, 5, XFRM_POLICY_FWD));
	xfrmdb_free(&db);
}

/* The lowest priority wins: a bypass (allow, no template) above a transform
 * leaves the frame plain, below it does not; a block policy protects. */
static void test_priority_bypass_block(void **st)
{
	struct xfrmdb db = { .loaded = 1 };
	struct npuflow_key k = key4("10.0.0.5", 40000, "192.0.2.130", 443);

	(void)st;
	add(&db, policy(XFRM_POLICY_OUT, "0.0.0.0", 0, "0.0.0.0", 0, 0, 100, 1));
	assert_true(xfrmdb_protects(&db, &k, 8, XFRM_POLICY_OUT));
	add(&db, policy(XFRM_POLICY_OUT, "10.0.0.0", 24, "0.0.0.0", 0, 0, 50, 0));
	assert_false(xfrmdb_protects(&db, &k, 8, XFRM_POLICY_OUT));
	db.p[1].priority = 200;
	assert_true(xfrmdb_protects(&db, &k, 8, XFRM_POLICY_OUT));
	xfrmdb_clear(&db);
	add(&db, policy(XFRM_POLICY_OUT, "0.0.0.0", 0, "0.0.0.0", 0, 0, 0, 0));
	assert_false(xfrmdb_protects(&db, &k, 8, XFRM_POLICY_OUT));
	db.p[0].action = XFRM_POLICY_BLOCK;
	assert_true(xfrmdb_protects(&db, &k, 8, XFRM_POLICY_OUT));
	xfrmdb_free(&db);
}

/* An xfrm interface's policy (if_id) does not match traffic out of a port;
 * a marked policy matches a frame of mark 0 only if its value is 0. */
static void test_if_id_and_mark(void **st)
{
	struct xfrmdb db = { .loaded = 1 };
	struct npuflow_key k = key4("10.0.0.5", 40000, "192.0.2.130", 443);

	(void)st;
	add(&db, policy(XFRM_POLICY_OUT, "0.0.0.0", 0, "0.0.0.0", 0, 0, 0, 1));
	db.p[0].if_id = 7;
	assert_false(xfrmdb_protects(&db, &k, 8, XFRM_POLICY_OUT));
	db.p[0].if_id = 0;
	db.p[0].mark.v = 1;
	db.p[0].mark.m = 1;
	assert_false(xfrmdb_protects(&db, &k, 8, XFRM_POLICY_OUT));
	db.p[0].mark.v = 0;
	db.p[0].mark.m = 0xff00;
	assert_true(xfrmdb_protects(&db, &k, 8, XFRM_POLICY_OUT));
	xfrmdb_free(&db);
}

/*
 * Equal priorities: the kernel keeps the older policy first in its lists
 * (xfrm_policy_insert_list() puts a new one after those of its priority)
 * and __xfrm_policy_eval_candidates() prefers the older (pos); a dump walks
 * policy_all newest first.  So of equals, the last one dumped wins.
 */
static void test_equal_priority_older_wins(void **st)
{
	struct xfrmdb db = { .loaded = 1 };
	struct npuflow_key k = key4("10.0.0.5", 40000, "192.0.2.130", 443);

	(void)st;
	add(&db, policy(XFRM_POLICY_OUT, "10.0.0.0", 24, "0.0.0.0", 0, 0, 10, 0));	/* newer */
	add(&db, policy(XFRM_POLICY_OUT, "0.0.0.0", 0, "0.0.0.0", 0, 0, 10, 1));	/* older */
	assert_true(xfrmdb_protects(&db, &k, 8, XFRM_POLICY_OUT));
	xfrmdb_clear(&db);
	add(&db, policy(XFRM_POLICY_OUT, "0.0.0.0", 0, "0.0.0.0", 0, 0, 10, 1));	/* newer */
	add(&db, policy(XFRM_POLICY_OUT, "10.0.0.0", 24, "0.0.0.0", 0, 0, 10, 0));	/* older */
	assert_false(xfrmdb_protects(&db, &k, 8, XFRM_POLICY_OUT));
	xfrmdb_free(&db);
}

/* An XFRM_MSG_GETDEFAULT answer in buf: in, fwd, out. */
static struct nlmsghdr *defaults(uint8_t in, uint8_t fwd, uint8_t out)
{
	struct nlmsghdr *nlh;
	struct xfrm_userpolicy_default *up;

	memset(buf, 0, sizeof(buf));
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = XFRM_MSG_GETDEFAULT;
	up = mnl_nlmsg_put_extra_header(nlh, sizeof(*up));
	up->in = in;
	up->fwd = fwd;
	up->out = out;
	return nlh;
}

/*
 * `ip xfrm policy setdefault fwd block`: a forwarded frame that no policy
 * matches is dropped (__xfrm_policy_check(): XFRMINNOPOLS), so it is
 * protected; so is one that leaves with out block (xfrm_lookup_with_ifid():
 * -EPERM).  A matching bypass policy lets it through.
 */
static void test_default_block(void **st)
{
	struct xfrmdb db = { .loaded = 1 };
	struct npuflow_key k = key4("10.0.0.5", 40000, "192.0.2.130", 443);

	(void)st;
	assert_int_equal(xfrmdb_parse_default(defaults(XFRM_USERPOLICY_ACCEPT,
						       XFRM_USERPOLICY_BLOCK,
						       XFRM_USERPOLICY_ACCEPT), &db), 0);
	assert_true(xfrmdb_protects(&db, &k, 8, XFRM_POLICY_FWD));
	assert_false(xfrmdb_protects(&db, &k, 8, XFRM_POLICY_OUT));
	add(&db, policy(XFRM_POLICY_FWD, "10.0.0.0", 24, "0.0.0.0", 0, 0, 0, 0));
	assert_false(xfrmdb_protects(&db, &k, 8, XFRM_POLICY_FWD));
	assert_int_equal(xfrmdb_parse_default(defaults(XFRM_USERPOLICY_ACCEPT,
						       XFRM_USERPOLICY_ACCEPT,
						       XFRM_USERPOLICY_BLOCK), &db), 0);
	assert_true(xfrmdb_protects(&db, &k, 8, XFRM_POLICY_OUT));
	/* another message, or too short: refused */
	assert_int_equal(xfrmdb_parse_default(policy(XFRM_POLICY_OUT, "0.0.0.0", 0, "0.0.0.0",
						     0, 0, 0, 0), &db), -1);
	xfrmdb_free(&db);
}

/*
 * A forwarded connection's check: the kernel matches a selector's device
 * against the flow's output device, the route's (decode_session4():
 * flowi4_oif from skb_dst()), in the fwd check as in the out lookup.
 */
static void test_conn_egress_device(void **st)
{
	struct xfrmdb db = { .loaded = 1 };
	struct npuflow_key in = key4("10.0.0.5", 40000, "192.0.2.130", 443), out = in;

	(void)st;
	in.ifindex = 3;
	add(&db, policy(XFRM_POLICY_FWD, "0.0.0.0", 0, "0.0.0.0", 0, 0, 0, 1));
	db.p[0].sel.ifindex = 8;
	assert_true(xfrmdb_conn_protected(&db, &in, &out, 8));
	db.p[0].sel.ifindex = 3;
	assert_false(xfrmdb_conn_protected(&db, &in, &out, 8));
	xfrmdb_free(&db);
}

/* No policy database (never loaded, or its last load failed): every
 * connection is protected until a load succeeds. */
static void test_not_loaded(void **st)
{
	struct xfrmdb db = { 0 };
	struct npuflow_key k = key4("10.0.0.5", 40000, "192.0.2.130", 443);

	(void)st;
	assert_true(xfrmdb_protects(&db, &k, 8, XFRM_POLICY_OUT));
	assert_true(xfrmdb_conn_protected(&db, &k, &k, 8));
	assert_int_equal(xfrmdb_load(&db, NULL), -EOPNOTSUPP);	/* nls_talk fails */
	assert_false(db.loaded);
	assert_true(xfrmdb_protects(&db, &k, 8, XFRM_POLICY_FWD));
	xfrmdb_free(&db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_match),
		cmocka_unit_test(test_priority_bypass_block),
		cmocka_unit_test(test_if_id_and_mark),
		cmocka_unit_test(test_equal_priority_older_wins),
		cmocka_unit_test(test_default_block),
		cmocka_unit_test(test_conn_egress_device),
		cmocka_unit_test(test_not_loaded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
