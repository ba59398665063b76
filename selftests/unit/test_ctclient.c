// SPDX-License-Identifier: GPL-2.0
/*
 * The conntrack client's reading of an entry (loader/ctclient.c): both
 * tuples, exactly as libnetfilter_conntrack holds them, and an entry that
 * lacks a tuple's address or port (nfct_get_attr() NULL) refused, never
 * read through a NULL pointer nor taken as 0.0.0.0.  Its DESTROY socket
 * against the kernel's conntrack, in a network namespace of its own: every
 * DESTROY of a flush heard by a slow reader (reliable delivery), and what
 * is lost without it.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include "../../loader/ctclient.c"
#include "../../loader/nlsock.c"

/* 10.0.1.2:40000 > 10.0.2.2:5201 tcp, masqueraded to 198.51.100.1:61000 */
static struct nf_conntrack *ct4(void)
{
	struct nf_conntrack *ct = nfct_new();

	assert_non_null(ct);
	nfct_set_attr_u8(ct, ATTR_L3PROTO, AF_INET);
	nfct_set_attr_u8(ct, ATTR_L4PROTO, IPPROTO_TCP);
	nfct_set_attr_u32(ct, ATTR_ORIG_IPV4_SRC, htonl(0x0a000102));
	nfct_set_attr_u32(ct, ATTR_ORIG_IPV4_DST, htonl(0x0a000202));
	nfct_set_attr_u32(ct, ATTR_REPL_IPV4_SRC, htonl(0x0a000202));
	nfct_set_attr_u32(ct, ATTR_REPL_IPV4_DST, htonl(0xc6336401));
	nfct_set_attr_u16(ct, ATTR_ORIG_PORT_SRC, htons(40000));
	nfct_set_attr_u16(ct, ATTR_ORIG_PORT_DST, htons(5201));
	nfct_set_attr_u16(ct, ATTR_REPL_PORT_SRC, htons(5201));
	nfct_set_attr_u16(ct, ATTR_REPL_PORT_DST, htons(61000));
	nfct_set_attr_u32(ct, ATTR_ID, 1234);
	nfct_set_attr_u32(ct, ATTR_STATUS, IPS_ASSURED | IPS_SRC_NAT);
	nfct_set_attr_u8(ct, ATTR_TCP_STATE, TCP_CONNTRACK_ESTABLISHED);
	return ct;
}

static struct nf_conntrack *ct6(void)
{
	struct nf_conntrack *ct = nfct_new();
	uint8_t a[16], b[16];

	assert_non_null(ct);
	inet_pton(AF_INET6, "fd00:211:1::2", a);
	inet_pton(AF_INET6, "fd00:211:2::2", b);
	nfct_set_attr_u8(ct, ATTR_L3PROTO, AF_INET6);
	nfct_set_attr_u8(ct, ATTR_L4PROTO, IPPROTO_UDP);
	nfct_set_attr(ct, ATTR_ORIG_IPV6_SRC, a);
	nfct_set_attr(ct, ATTR_ORIG_IPV6_DST, b);
	nfct_set_attr(ct, ATTR_REPL_IPV6_SRC, b);
	nfct_set_attr(ct, ATTR_REPL_IPV6_DST, a);
	nfct_set_attr_u16(ct, ATTR_ORIG_PORT_SRC, htons(5000));
	nfct_set_attr_u16(ct, ATTR_ORIG_PORT_DST, htons(53));
	nfct_set_attr_u16(ct, ATTR_REPL_PORT_SRC, htons(53));
	nfct_set_attr_u16(ct, ATTR_REPL_PORT_DST, htons(5000));
	return ct;
}

static void test_complete_entries(void **st)
{
	struct nf_conntrack *ct = ct4();
	struct ct_info ci;
	uint32_t a;

	(void)st;
	assert_int_equal(from_ct(ct, &ci), 0);
	assert_int_equal(ci.orig.family, 2);
	assert_int_equal(ci.orig.proto, 6);
	memcpy(&a, ci.reply.daddr, 4);
	assert_int_equal(ntohl(a), 0xc6336401);
	assert_int_equal(ntohs(ci.reply.dport), 61000);
	assert_int_equal(ntohs(ci.orig.sport), 40000);
	assert_int_equal(ci.orig.dport, htons(5201));
	assert_true(ci.has_tcp);
	assert_int_equal(ctc_fm_flags(&ci) & (FM_CT_NAT | FM_CT_ESTABLISHED | FM_CT_LIBERAL),
			 FM_CT_NAT | FM_CT_ESTABLISHED);
	/* relaxed already (a connection made before): said, so a failed
	 * write leaves it as it was */
	nfct_set_attr_u8(ct, ATTR_TCP_FLAGS_REPL, IP_CT_TCP_FLAG_BE_LIBERAL);
	assert_int_equal(from_ct(ct, &ci), 0);
	assert_true(ctc_fm_flags(&ci) & FM_CT_LIBERAL);
	nfct_destroy(ct);

	ct = ct6();
	assert_int_equal(from_ct(ct, &ci), 0);
	assert_int_equal(ci.orig.family, 10);
	assert_memory_equal(ci.orig.saddr, nfct_get_attr(ct, ATTR_ORIG_IPV6_SRC), 16);
	assert_memory_equal(ci.reply.daddr, nfct_get_attr(ct, ATTR_REPL_IPV6_DST), 16);
	assert_int_equal(ntohs(ci.reply.sport), 53);
	nfct_destroy(ct);
}

/* @make's entry without attribute @drop: refused by from_ct and not handed
 * to a dump's callback or the DESTROY handler. */
static int destroys;

static void count_destroy(void *ctx, const struct ct_info *ci)
{
	(void)ctx;
	(void)ci;
	destroys++;
}

static void assert_refused_without(struct nf_conntrack *(*make)(void),
				   enum nf_conntrack_attr drop)
{
	struct nf_conntrack *ct = make();
	struct get_ctx g = { .cb = count_destroy };
	struct ctc c = { .on_destroy = count_destroy };
	struct ct_info ci;

	nfct_attr_unset(ct, drop);
	if (from_ct(ct, &ci) != -1)
		fail_msg("an entry without attribute %d read", drop);
	destroys = 0;
	get_cb(NFCT_T_UPDATE, ct, &g);
	ev_cb(NFCT_T_DESTROY, ct, &c);
	assert_int_equal(destroys, 0);
	assert_int_equal(c.destroys, 1);
	assert_int_equal(c.incomplete, 1);
	g.cb = NULL;
	g.out = &ci;
	get_cb(NFCT_T_UPDATE, ct, &g);
	assert_int_equal(g.got, 0);	/* a get: -ENOENT */
	nfct_destroy(ct);
}

static void test_incomplete_entries(void **st)
{
	(void)st;
	/* IPv6 without its addresses: memcpy from NULL before */
	assert_refused_without(ct6, ATTR_ORIG_IPV6_SRC);
	assert_refused_without(ct6, ATTR_ORIG_IPV6_DST);
	assert_refused_without(ct6, ATTR_REPL_IPV6_SRC);
	assert_refused_without(ct6, ATTR_REPL_IPV6_DST);
	assert_refused_without(ct6, ATTR_REPL_PORT_DST);
	/* IPv4 without an address or port: read as 0 before */
	assert_refused_without(ct4, ATTR_ORIG_IPV4_SRC);
	assert_refused_without(ct4, ATTR_REPL_IPV4_DST);
	assert_refused_without(ct4, ATTR_ORIG_PORT_SRC);
	assert_refused_without(ct4, ATTR_REPL_PORT_SRC);
	/* no family, no protocol */
	assert_refused_without(ct4, ATTR_L3PROTO);
	assert_refused_without(ct4, ATTR_L4PROTO);
}

static void test_other_family(void **st)
{
	struct nf_conntrack *ct = ct4();
	struct ct_info ci;

	(void)st;
	nfct_set_attr_u8(ct, ATTR_L3PROTO, AF_BRIDGE);
	assert_int_equal(from_ct(ct, &ci), -1);
	nfct_destroy(ct);
}

/* The be-liberal request built for a batch reads back (nfct_nlmsg_parse) as
 * an update of the original tuple, in its zone, with both directions'
 * BE_LIBERAL flag and mask; UDP and a buffer too small build nothing. */
/* ct4()'s original tuple as a key: 10.0.1.2:40000 > 10.0.2.2:5201 tcp */
static struct npuflow_key key4(void)
{
	struct npuflow_key k = { .family = 2, .proto = IPPROTO_TCP };

	memcpy(k.saddr, "\x0a\x00\x01\x02", 4);
	memcpy(k.daddr, "\x0a\x00\x02\x02", 4);
	k.sport = htons(40000);
	k.dport = htons(5201);
	return k;
}

/* A built request's header: @n bytes, sequence 42, ctnetlink's @type. */
static void assert_request(const struct nlmsghdr *nlh, size_t n, uint8_t type)
{
	assert_true(n > sizeof(*nlh));
	assert_int_equal(nlh->nlmsg_len, n);
	assert_int_equal(nlh->nlmsg_seq, 42);
	assert_int_equal(nlh->nlmsg_type, (NFNL_SUBSYS_CTNETLINK << 8) | type);
}

/* An update or a deletion (no NLM_F_CREATE) of @type read back into @ct. */
static void assert_update(const struct nlmsghdr *nlh, size_t n, uint8_t type,
			  struct nf_conntrack *ct)
{
	assert_request(nlh, n, type);
	assert_int_equal(nlh->nlmsg_flags & NLM_F_CREATE, 0);
	assert_int_equal(nfct_nlmsg_parse(nlh, ct), 0);
}

static void test_build_be_liberal(void **st)
{
	struct npuflow_key k = key4();
	char buf[1024] __attribute__((aligned(8)));
	struct nf_conntrack *ct = nfct_new();
	struct nlmsghdr *nlh = (struct nlmsghdr *)buf;
	size_t n;

	(void)st;
	assert_non_null(ct);
	n = ctc_build_be_liberal(buf, sizeof(buf), &k, 7, 42);
	assert_update(nlh, n, IPCTNL_MSG_CT_NEW, ct);
	assert_int_equal(nfct_get_attr_u32(ct, ATTR_ORIG_IPV4_SRC), htonl(0x0a000102));
	assert_int_equal(nfct_get_attr_u16(ct, ATTR_ORIG_PORT_DST), htons(5201));
	assert_int_equal(nfct_get_attr_u16(ct, ATTR_ZONE), 7);
	assert_int_equal(nfct_get_attr_u8(ct, ATTR_TCP_FLAGS_ORIG), IP_CT_TCP_FLAG_BE_LIBERAL);
	assert_int_equal(nfct_get_attr_u8(ct, ATTR_TCP_FLAGS_REPL), IP_CT_TCP_FLAG_BE_LIBERAL);
	nfct_destroy(ct);
	/* taken back: the flag cleared under the same mask */
	ct = be_liberal_ct(&k, 0, 0);
	assert_non_null(ct);
	assert_int_equal(nfct_get_attr_u8(ct, ATTR_TCP_FLAGS_ORIG), 0);
	assert_int_equal(nfct_get_attr_u8(ct, ATTR_TCP_MASK_ORIG), IP_CT_TCP_FLAG_BE_LIBERAL);
	assert_int_equal(nfct_get_attr_u8(ct, ATTR_TCP_FLAGS_REPL), 0);
	assert_int_equal(nfct_get_attr_u8(ct, ATTR_TCP_MASK_REPL), IP_CT_TCP_FLAG_BE_LIBERAL);
	nfct_destroy(ct);
	assert_int_equal(ctc_build_be_liberal(buf, 100, &k, 0, 1), 0);
	k.proto = IPPROTO_UDP;
	assert_int_equal(ctc_build_be_liberal(buf, sizeof(buf), &k, 0, 1), 0);
}

/* Keepalive's refresh (ctc_build_timeout): an update (CT_NEW without
 * CREATE) of the original tuple in its zone with the timeout; TCP and UDP
 * alike; no room: 0. */
static void test_build_timeout(void **st)
{
	struct npuflow_key k = key4();
	char buf[1024] __attribute__((aligned(8)));
	struct nf_conntrack *ct = nfct_new();
	struct nlmsghdr *nlh = (struct nlmsghdr *)buf;
	size_t n;

	(void)st;
	assert_non_null(ct);
	k.proto = IPPROTO_UDP;
	n = ctc_build_timeout(buf, sizeof(buf), &k, 7, 120, 42);
	assert_update(nlh, n, IPCTNL_MSG_CT_NEW, ct);
	assert_int_equal(nlh->nlmsg_seq, 42);
	assert_int_equal(nfct_get_attr_u32(ct, ATTR_ORIG_IPV4_SRC), htonl(0x0a000102));
	assert_int_equal(nfct_get_attr_u16(ct, ATTR_ORIG_PORT_DST), htons(5201));
	assert_int_equal(nfct_get_attr_u8(ct, ATTR_ORIG_L4PROTO), IPPROTO_UDP);
	assert_int_equal(nfct_get_attr_u16(ct, ATTR_ZONE), 7);
	assert_int_equal(nfct_get_attr_u32(ct, ATTR_TIMEOUT), 120);
	nfct_destroy(ct);
	assert_int_equal(ctc_build_timeout(buf, 100, &k, 0, 120, 1), 0);
}

/*
 * The warm-up's entry (ctc_build_create): CT_NEW that creates and refuses
 * an entry there already, both tuples (the reply the original reversed),
 * ESTABLISHED, seen both ways, its timeout and zone; its deletion
 * (ctc_build_delete) by the original tuple.  Not TCP or no room: 0.
 */
static void test_build_create_delete(void **st)
{
	struct npuflow_key k = key4();
	char buf[1024] __attribute__((aligned(8)));
	struct nlmsghdr *nlh = (struct nlmsghdr *)buf;
	struct nf_conntrack *ct = nfct_new();
	size_t n;

	(void)st;
	assert_non_null(ct);
	n = ctc_build_create(buf, sizeof(buf), &k, 7, 2, 42);
	assert_request(nlh, n, IPCTNL_MSG_CT_NEW);
	assert_int_equal(nlh->nlmsg_flags & (NLM_F_CREATE | NLM_F_EXCL),
			 NLM_F_CREATE | NLM_F_EXCL);
	assert_int_equal(nfct_nlmsg_parse(nlh, ct), 0);
	assert_int_equal(nfct_get_attr_u32(ct, ATTR_ORIG_IPV4_SRC), htonl(0x0a000102));
	assert_int_equal(nfct_get_attr_u32(ct, ATTR_ORIG_IPV4_DST), htonl(0x0a000202));
	assert_int_equal(nfct_get_attr_u32(ct, ATTR_REPL_IPV4_SRC), htonl(0x0a000202));
	assert_int_equal(nfct_get_attr_u32(ct, ATTR_REPL_IPV4_DST), htonl(0x0a000102));
	assert_int_equal(nfct_get_attr_u16(ct, ATTR_REPL_PORT_SRC), htons(5201));
	assert_int_equal(nfct_get_attr_u16(ct, ATTR_REPL_PORT_DST), htons(40000));
	assert_int_equal(nfct_get_attr_u8(ct, ATTR_REPL_L4PROTO), IPPROTO_TCP);
	assert_int_equal(nfct_get_attr_u8(ct, ATTR_TCP_STATE), TCP_CONNTRACK_ESTABLISHED);
	/* libnetfilter_conntrack adds IPS_CONFIRMED to a status it sends */
	assert_int_equal(nfct_get_attr_u32(ct, ATTR_STATUS),
			 IPS_SEEN_REPLY | IPS_ASSURED | IPS_CONFIRMED);
	assert_int_equal(nfct_get_attr_u32(ct, ATTR_TIMEOUT), 2);
	assert_int_equal(nfct_get_attr_u16(ct, ATTR_ZONE), 7);
	nfct_destroy(ct);
	assert_int_equal(ctc_build_create(buf, 100, &k, 0, 2, 1), 0);

	ct = nfct_new();
	assert_non_null(ct);
	n = ctc_build_delete(buf, sizeof(buf), &k, 7, 42);
	assert_update(nlh, n, IPCTNL_MSG_CT_DELETE, ct);
	assert_int_equal(nfct_get_attr_u16(ct, ATTR_ORIG_PORT_SRC), htons(40000));
	assert_int_equal(nfct_get_attr_u16(ct, ATTR_ZONE), 7);
	nfct_destroy(ct);
	assert_int_equal(ctc_build_delete(buf, 100, &k, 0, 1), 0);
	k.proto = IPPROTO_UDP;
	assert_int_equal(ctc_build_create(buf, sizeof(buf), &k, 0, 2, 1), 0);
}

/*
 * A GET for the batch (ctc_build_get): as nfct_query(NFCT_Q_GET) sends it,
 * the tuple as the original one, the zone; an answer (CT_NEW, as ctnetlink
 * replies) read back by ctc_parse into both tuples, and ctc_dir says which
 * direction the asked tuple was.
 */
static void test_build_get_parse(void **st)
{
	struct npuflow_key k = key4(), r;
	char buf[1024] __attribute__((aligned(8)));
	struct nlmsghdr *nlh = (struct nlmsghdr *)buf;
	struct nf_conntrack *ct = nfct_new(), *e;
	struct nfgenmsg *nfg;
	struct ct_info ci;
	int dir = -1;
	size_t n;

	(void)st;
	assert_non_null(ct);
	n = ctc_build_get(buf, sizeof(buf), &k, 7, 42);
	assert_request(nlh, n, IPCTNL_MSG_CT_GET);
	assert_int_equal(nlh->nlmsg_flags & NLM_F_REQUEST, NLM_F_REQUEST);
	assert_int_equal(nfct_nlmsg_parse(nlh, ct), 0);
	assert_int_equal(nfct_get_attr_u32(ct, ATTR_ORIG_IPV4_SRC), htonl(0x0a000102));
	assert_int_equal(nfct_get_attr_u16(ct, ATTR_ORIG_PORT_SRC), htons(40000));
	assert_int_equal(nfct_get_attr_u16(ct, ATTR_ZONE), 7);
	nfct_destroy(ct);
	assert_int_equal(ctc_build_get(buf, 100, &k, 0, 1), 0);

	/* the answer: ct4()'s entry as a CT_NEW message */
	e = ct4();
	/* what ctnetlink's answer carries for the reply tuple too */
	nfct_set_attr_u8(e, ATTR_REPL_L3PROTO, AF_INET);
	nfct_set_attr_u8(e, ATTR_REPL_L4PROTO, IPPROTO_TCP);
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = (NFNL_SUBSYS_CTNETLINK << 8) | IPCTNL_MSG_CT_NEW;
	nfg = mnl_nlmsg_put_extra_header(nlh, sizeof(*nfg));
	nfg->nfgen_family = AF_INET;
	assert_int_equal(nfct_nlmsg_build(nlh, e), 0);
	nfct_destroy(e);
	assert_int_equal(ctc_parse(nlh, &ci), 0);
	assert_int_equal(ci.orig.dport, htons(5201));
	assert_memory_equal(ci.orig.saddr, "\x0a\x00\x01\x02", 4);
	assert_memory_equal(ci.reply.daddr, "\xc6\x33\x64\x01", 4);
	assert_int_equal(ctc_dir(&ci, &k, &dir), 0);
	assert_int_equal(dir, 0);
	r = ci.reply;
	assert_int_equal(ctc_dir(&ci, &r, &dir), 0);
	assert_int_equal(dir, 1);
	r.sport = htons(1);
	assert_int_equal(ctc_dir(&ci, &r, &dir), -ENOENT);
	/* not an entry: another message, or one without a whole tuple */
	nlh->nlmsg_type = NLMSG_ERROR;
	assert_int_equal(ctc_parse(nlh, &ci), -EBADMSG);
}

/* ---- the kernel's conntrack, in a network namespace of the test's own ---- */

/*
 * Each test below runs in a new network namespace (its conntrack table
 * empty, the host's untouched) and goes back to the test's own at its
 * end, the namespace and what is left in it then freed.  Skipped where
 * that cannot be: not root, no conntrack, or events off in the kernel.
 */
static int home_ns = -1;
static const char *ns_skip;

static int enter_netns(void **st)
{
	char v[8] = "";
	FILE *f;

	(void)st;
	ns_skip = NULL;
	if (geteuid()) {
		ns_skip = "not root";
		return 0;
	}
	home_ns = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (home_ns < 0 || unshare(CLONE_NEWNET)) {
		ns_skip = "no network namespace of the test's own";
		return 0;
	}
	f = fopen("/proc/sys/net/netfilter/nf_conntrack_events", "re");
	if (!f || !fgets(v, sizeof(v), f))
		ns_skip = "no conntrack in this kernel";
	else if (v[0] == '0')
		ns_skip = "conntrack events off (nf_conntrack_events 0)";
	if (f)
		fclose(f);
	return 0;
}

static struct ctc tc;

static int leave_netns(void **st)
{
	(void)st;
	if (tc.q)
		ctc_close(&tc);
	memset(&tc, 0, sizeof(tc));
	if (home_ns >= 0) {
		if (setns(home_ns, CLONE_NEWNET))
			print_message("could not go back to the test's network namespace\n");
		close(home_ns);
	}
	home_ns = -1;
	return 0;
}

#define CT_N		2048	/* entries made, then flushed at once */
#define CT_RCVBUF	8192	/* the event socket's buffer: a dozen events */

/* Entry @i: 10.99.i/256.i%256:40000 > 10.98.0.1:80 TCP, ESTABLISHED, 600 s. */
static struct nf_conntrack *test_entry(int i)
{
	struct npuflow_key k = key4(), r;
	struct nf_conntrack *ct;

	k.saddr[1] = 99;
	k.saddr[2] = i / 256;
	k.saddr[3] = i % 256;
	memcpy(k.daddr, "\x0a\x62\x00\x01", 4);
	k.dport = htons(80);
	ct = to_ct(&k, 0, 0);
	assert_non_null(ct);
	r = k;
	memcpy(r.saddr, k.daddr, 4);
	memcpy(r.daddr, k.saddr, 4);
	r.sport = k.dport;
	r.dport = k.sport;
	nfct_set_attr_u8(ct, ATTR_REPL_L3PROTO, AF_INET);
	set_tuple(ct, &r, 1);
	nfct_set_attr_u32(ct, ATTR_TIMEOUT, 600);
	nfct_set_attr_u32(ct, ATTR_STATUS, IPS_SEEN_REPLY | IPS_ASSURED);
	nfct_set_attr_u8(ct, ATTR_TCP_STATE, TCP_CONNTRACK_ESTABLISHED);
	return ct;
}

/* CT_N entries made through ctnetlink (c->q): 0, or a reason to skip. */
static const char *make_entries(struct ctc *c)
{
	int i, rc;

	for (i = 0; i < CT_N; i++) {
		struct nf_conntrack *ct = test_entry(i);

		rc = nfct_query(c->q, NFCT_Q_CREATE, ct);
		nfct_destroy(ct);
		if (rc < 0 && !i)
			return "conntrack entries cannot be made through ctnetlink";
		assert_int_equal(rc, 0);
	}
	return NULL;
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/*
 * All of this namespace's entries flushed at once (one CT_DELETE: the
 * kernel deletes them in one go, far more DESTROYs than CT_RCVBUF holds),
 * then @c's events read as a slow reader does, a burst every 5 ms, until
 * every DESTROY came or @secs passed: how long it took.
 */
static double flush_and_read(struct ctc *c, double secs)
{
	uint32_t fam = AF_INET;
	double t0;

	assert_int_equal(nfct_query(c->q, NFCT_Q_FLUSH, &fam), 0);
	t0 = now_s();
	while (c->destroys < CT_N && now_s() - t0 < secs) {
		ctc_events(c);
		usleep(5000);
	}
	return now_s() - t0;
}

static int ns_destroys;

static void count_ns_destroy(void *ctx, const struct ct_info *ci)
{
	(void)ctx;
	(void)ci;
	ns_destroys++;
}

/* The event socket as npuflowd opens it (ctc_open), CT_N entries made:
 * skipped where that cannot be. */

static void open_with_entries(void)
{
	const char *why = ns_skip;

	if (!why) {
		assert_int_equal(ctc_open(&tc, CT_RCVBUF, count_ns_destroy, NULL), 0);
		why = make_entries(&tc);
	}
	if (why) {
		print_message("SKIP: %s\n", why);
		skip();
	}
	ns_destroys = 0;
}

/*
 * A reader slower than a flush of CT_N entries into a buffer of a dozen
 * still hears every DESTROY, within seconds (the kernel sends the ones the
 * socket could not take again, the first a second later, then every 10 ms
 * while it is full), and no overrun is reported: there is no loss to
 * resync for.
 */
static void test_destroys_reliable(void **st)
{
	double took;

	(void)st;
	open_with_entries();
	assert_int_equal(tc.reliable, 1);
	took = flush_and_read(&tc, 20);
	print_message("reliable: %d of %d DESTROYs in %.1f s, %llu overruns, buffer %u bytes\n",
		      ns_destroys, CT_N, took, (unsigned long long)tc.overruns, tc.rcvbuf);
	assert_int_equal(ns_destroys, CT_N);
	assert_int_equal(tc.destroys, CT_N);
	assert_int_equal(tc.overruns, 0);
}

/*
 * The same socket with delivery left unreliable (a kernel without the
 * options): the DESTROYs the buffer could not take are lost for good, and
 * the overrun (ENOBUFS) is what tells npuflowd to resync.
 */
static void test_destroys_unreliable(void **st)
{
	double took;

	(void)st;
	open_with_entries();
	assert_int_equal(ctc_reliable(&tc, 0), 0);
	assert_int_equal(tc.reliable, 0);
	took = flush_and_read(&tc, 3);
	print_message("unreliable: %d of %d DESTROYs in %.1f s, %llu overruns\n", ns_destroys,
		      CT_N, took, (unsigned long long)tc.overruns);
	assert_true(ns_destroys < CT_N);
	assert_true(tc.overruns >= 1);
}

static int count_entry(const struct nlmsghdr *nlh, void *data)
{
	struct ct_info ci;
	int *n = data;

	if (!ctc_parse(nlh, &ci) && ci.orig.saddr[0] == 10 && ci.orig.saddr[1] == 99)
		(*n)++;
	return MNL_CB_OK;
}

/*
 * The whole table's dump read a datagram at a time (ctc_build_dump(),
 * nls_read_step()), as npuflowd's sweep reads it in steps: every one of the
 * CT_N entries made is parsed once, over more than one step, and the
 * dump's end is seen.
 */
static void test_dump_in_steps(void **st)
{
	char req[64] __attribute__((aligned(8)));
	struct nlsock s;
	int n = 0, steps = 0, rc;
	uint32_t seq;
	size_t len;

	(void)st;
	open_with_entries();
	assert_int_equal(nls_open_bus(&s, NETLINK_NETFILTER), 0);
	seq = nls_seq(&s);
	len = ctc_build_dump(req, sizeof(req), seq);
	assert_true(len > 0);
	assert_int_equal(ctc_build_dump(req, 8, seq), 0);
	assert_int_equal(nls_send(&s, req, len), 0);
	do {
		rc = nls_read_step(&s, seq, count_entry, &n);
		steps++;
	} while (rc == 1 && steps < 10 * CT_N);
	print_message("dump in steps: %d of %d entries in %d reads\n", n, CT_N, steps);
	assert_int_equal(rc, 0);
	assert_int_equal(n, CT_N);
	assert_true(steps > 1);
	nls_close(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_complete_entries),
		cmocka_unit_test(test_incomplete_entries),
		cmocka_unit_test(test_other_family),
		cmocka_unit_test(test_build_be_liberal),
		cmocka_unit_test(test_build_get_parse),
		cmocka_unit_test(test_build_timeout),
		cmocka_unit_test(test_build_create_delete),
		cmocka_unit_test_setup_teardown(test_destroys_reliable, enter_netns, leave_netns),
		cmocka_unit_test_setup_teardown(test_destroys_unreliable, enter_netns, leave_netns),
		cmocka_unit_test_setup_teardown(test_dump_in_steps, enter_netns, leave_netns),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
