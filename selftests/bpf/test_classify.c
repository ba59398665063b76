// SPDX-License-Identifier: GPL-2.0
/*
 * test_classify - BPF_PROG_TEST_RUN tests of bpf/classify.bpf.c.
 *
 * Crafted frames for every protocol the classifier parses, with and without
 * driver metadata (data_meta supplied through the xdp_md ctx_in: data_meta
 * 0, data = sizeof(struct npuflow_meta), data_end = total), truncated at
 * every byte and malformed in every length field.  After each case the
 * test asserts the exact contents of the maps: every candidate (all key
 * and value fields), the counters of the port slot summed over CPUs (all
 * other slots zero), and the ring-buffer events.  Prints TAP.
 *
 * Usage: test_classify [-v] [substring]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "classify.skel.h"
#include "../../bpf/npuflow.h"
#include "../../lib/npuflow_fmt.h"
#include "../../lib/npuflow_cache.h"
#include "pktgen.h"

#define THRESH		4
#define LO_IFINDEX	1
#define LO_SLOT		(NPUFLOW_MAX_PORTS + LO_IFINDEX % NPUFLOW_IF_SLOTS)

static struct classify *skel;
static struct ring_buffer *rb;
static int ncpu, verbose;
static char failmsg[512], casemsg[128];

#define MAX_EV 64
static struct npuflow_event evs[MAX_EV];
static int nev;

#define FAIL(...) do { snprintf(failmsg, sizeof(failmsg), __VA_ARGS__); return -1; } while (0)
#define CHECK(c, ...) do { if (!(c)) FAIL(__VA_ARGS__); } while (0)
#define TRY(x) do { if ((x)) return -1; } while (0)

static int on_event(void *ctx, void *data, size_t len)
{
	(void)ctx;
	if (len != sizeof(struct npuflow_event) || nev >= MAX_EV)
		return 0;
	memcpy(&evs[nev++], data, sizeof(struct npuflow_event));
	return 0;
}

/* ---- running frames ---------------------------------------------- */

static struct npuflow_meta mkmeta(int reason, int port, uint32_t conn)
{
	struct npuflow_meta m = {
		.magic = NPUFLOW_META_MAGIC, .version = NPUFLOW_META_VERSION,
		.reason = reason, .port = port, .flags = NPUFLOW_META_F_HASH_L4,
		.hash = 0xc0ffee00u + port, .conn = conn,
	};
	return m;
}

/*
 * Run @len bytes of @data through @prog_fd, with @meta (NULL: no ctx),
 * @repeat times in one BPF_PROG_TEST_RUN: the kernel loops on the frame
 * back to back (microseconds apart), where separate test runs under the
 * VM's TCG can each land in another jiffy.  A @repeat over 1 costs two
 * updates of the kernel's XDP dispatcher (bpf_prog_change_xdp() in
 * net/bpf/test_run.c: a text patch and an RCU grace period each, 16 ms on
 * the host): use it only where frames must share a tick.
 */
static int run_prog_n(int prog_fd, const void *data, size_t len,
		      const struct npuflow_meta *meta, int ifindex, int repeat)
{
	uint8_t buf[4096];
	struct xdp_md ctx = {};
	size_t ml = meta ? sizeof(*meta) : 0;
	LIBBPF_OPTS(bpf_test_run_opts, o);
	int err;

	if (meta)
		memcpy(buf, meta, ml);
	memcpy(buf + ml, data, len);
	o.data_in = buf;
	o.data_size_in = ml + len;
	o.repeat = repeat;
	if (meta || ifindex) {
		ctx.data = ml;
		ctx.data_end = ml + len;
		ctx.ingress_ifindex = ifindex ? ifindex : LO_IFINDEX;
		o.ctx_in = &ctx;
		o.ctx_size_in = sizeof(ctx);
	}
	err = bpf_prog_test_run_opts(prog_fd, &o);
	if (err)
		FAIL("test_run(len %zu, meta %d): %s", len, !!meta, strerror(errno));
	if (o.retval != XDP_PASS)
		FAIL("retval %u, want XDP_PASS", o.retval);
	return 0;
}

static int run_prog(int prog_fd, const void *data, size_t len,
		    const struct npuflow_meta *meta, int ifindex)
{
	return run_prog_n(prog_fd, data, len, meta, ifindex, 1);
}

/* The classifier on a frame @repeat times, its ring buffer events consumed. */
static int run_n(const void *data, size_t len, const struct npuflow_meta *meta, int repeat)
{
	int fd = bpf_program__fd(skel->progs.npuflow_classify);

	TRY(run_prog_n(fd, data, len, meta, 0, repeat));
	ring_buffer__consume(rb);
	return 0;
}

static int run(const void *data, size_t len, const struct npuflow_meta *meta)
{
	return run_n(data, len, meta, 1);
}

static int runf(const struct frame *f, const struct npuflow_meta *meta)
{
	return run(f->b, f->len, meta);
}

/* ---- map state ----------------------------------------------------- */

static void reset_maps(void)
{
	int cfd = bpf_map__fd(skel->maps.candidates);
	int sfd = bpf_map__fd(skel->maps.counters);
	struct npuflow_key k, next;
	struct npuflow_counters *zero = calloc((size_t)ncpu * NPUFLOW_PORT_SLOTS, sizeof(*zero));
	struct npuflow_cache *zc = calloc((size_t)ncpu * NPUFLOW_CACHE_SLOTS, sizeof(*zc));
	uint32_t keys[NPUFLOW_CACHE_SLOTS], i, n;

	while (!bpf_map_get_next_key(cfd, NULL, &next)) {
		k = next;
		bpf_map_delete_elem(cfd, &k);
	}
	skel->bss->npuflow_cache_gen++;		/* who deletes candidates bumps it */
	/* every slot zeroed in one system call a map, not one a slot */
	_Static_assert(NPUFLOW_PORT_SLOTS <= NPUFLOW_CACHE_SLOTS, "keys[] serves both maps");
	for (i = 0; i < NPUFLOW_CACHE_SLOTS; i++)
		keys[i] = i;
	n = NPUFLOW_PORT_SLOTS;
	bpf_map_update_batch(sfd, keys, zero, &n, NULL);
	n = NPUFLOW_CACHE_SLOTS;
	bpf_map_update_batch(bpf_map__fd(skel->maps.candcache), keys, zc, &n, NULL);
	free(zero);
	free(zc);
	ring_buffer__consume(rb);
	nev = 0;
}

static int read_cands(struct npuflow_row *rows, int max)
{
	int fd = bpf_map__fd(skel->maps.candidates), n = 0;
	struct npuflow_key k, *prev = NULL;

	struct npuflow_cache *ents;
	size_t nents;

	while (n < max && !bpf_map_get_next_key(fd, prev, &k)) {
		rows[n].key = k;
		if (bpf_map_lookup_elem(fd, &k, &rows[n].val))
			break;
		prev = &rows[n].key;
		n++;
	}
	/* as npuctl reads them: with what the per-CPU cache holds */
	if (npuflow_cache_read(bpf_map__fd(skel->maps.candcache), &ents, &nents))
		return -1;
	npuflow_cache_fold(rows, n, ents, nents);
	free(ents);
	return n;
}

/* A port slot's counters as npuctl reads them: with what the per-CPU cache holds. */
static void read_slot(uint32_t slot, struct npuflow_counters *out)
{
	struct npuflow_counters *pc = calloc(ncpu, sizeof(*pc));
	struct npuflow_cache *ents = NULL;
	size_t nents = 0;

	bpf_map_lookup_elem(bpf_map__fd(skel->maps.counters), &slot, pc);
	npuflow_counters_sum(pc, ncpu, out);
	if (!npuflow_cache_read(bpf_map__fd(skel->maps.candcache), &ents, &nents))
		npuflow_cache_count(out, slot, ents, nents);
	free(ents);
	free(pc);
}

/* Expected counters of one slot; every other slot must be empty. */
struct exp_cnt {
	uint32_t slot;
	int reason;
	uint64_t frames, bytes;
	uint64_t stat[NPUFLOW_S_SLOTS];
};

static int check_counters(const struct exp_cnt *e)
{
	struct npuflow_counters c;
	uint32_t s;
	int i;

	for (s = 0; s < NPUFLOW_PORT_SLOTS; s++) {
		read_slot(s, &c);
		if (s != e->slot) {
			CHECK(npuflow_counters_empty(&c), "slot %u not empty", s);
			continue;
		}
		for (i = 0; i < NPUFLOW_R_SLOTS; i++) {
			uint64_t wf = i == e->reason ? e->frames : 0;
			uint64_t wb = i == e->reason ? e->bytes : 0;

			CHECK(c.frames[i] == wf, "slot %u frames[%s] %llu want %llu", s,
			      npuflow_reason_name(i), (unsigned long long)c.frames[i],
			      (unsigned long long)wf);
			CHECK(c.bytes[i] == wb, "slot %u bytes[%s] %llu want %llu", s,
			      npuflow_reason_name(i), (unsigned long long)c.bytes[i],
			      (unsigned long long)wb);
		}
		/* how many of them the cache took depends on the clock's ticks
		 * (t_cache_counters counts it exactly) */
		CHECK(c.stat[NPUFLOW_S_CACHED] <= c.stat[NPUFLOW_S_CANDIDATE],
		      "slot %u: %llu cached of %llu candidate frames", s,
		      (unsigned long long)c.stat[NPUFLOW_S_CACHED],
		      (unsigned long long)c.stat[NPUFLOW_S_CANDIDATE]);
		c.stat[NPUFLOW_S_CACHED] = e->stat[NPUFLOW_S_CACHED];
		for (i = 0; i < NPUFLOW_S_SLOTS; i++)
			CHECK(c.stat[i] == e->stat[i], "slot %u stat %s = %llu want %llu", s,
			      npuflow_stat_name(i) ? npuflow_stat_name(i) : "?",
			      (unsigned long long)c.stat[i], (unsigned long long)e->stat[i]);
		CHECK(c.ifindex == LO_IFINDEX, "slot %u ifindex %u", s, c.ifindex);
	}
	return 0;
}

/* The key the classifier should build for @s (received on lo). */
static struct npuflow_key key_of(const struct fspec *s)
{
	struct npuflow_key k = { .ifindex = LO_IFINDEX };
	int i;

	for (i = 0; i < s->nvlan && i < 2; i++) {
		/* pktgen's TPIDs: 802.1ad outside another tag unless given */
		uint16_t tpid = s->tpid[i] ? s->tpid[i] :
				(i == 0 && s->nvlan > 1 ? ETH_P_8021AD_ : ETH_P_8021Q_);
		uint16_t v = s->vid[i] | (tpid == ETH_P_8021AD_ ? NPUFLOW_VLAN_AD : 0);

		if (i == 0)
			k.vlan_outer = v;
		else
			k.vlan_inner = v;
	}
	k.pppoe_sid = s->pppoe_sid;
	k.family = s->family == 4 ? 2 : 10;
	k.proto = s->proto;
	inet_pton(s->family == 4 ? AF_INET : AF_INET6, s->src, k.saddr);
	inet_pton(s->family == 4 ? AF_INET : AF_INET6, s->dst, k.daddr);
	switch (s->proto) {
	case IPPROTO_TCP:
	case IPPROTO_UDP:
		k.sport = htons(s->sport);
		k.dport = htons(s->dport);
		break;
	case IPPROTO_ICMP:
	case IPPROTO_ICMPV6:
		if (s->icmp_type == 8 || s->icmp_type == 0 || s->icmp_type == 128 ||
		    s->icmp_type == 129 || (s->proto == IPPROTO_ICMP &&
		    s->icmp_type >= 13 && s->icmp_type <= 18))
			k.sport = htons(s->icmp_id);
		k.dport = htons(s->icmp_type << 8 | s->icmp_code);
		break;
	}
	return k;
}

struct exp_cand {
	struct npuflow_key key;
	uint64_t frames, bytes;
	uint8_t tcp_flags, reason, port, flags;
	uint32_t conn;
};

/* The candidate map holds exactly @n entries, equal to @e. */
static int check_cands(const struct exp_cand *e, int n)
{
	struct npuflow_row rows[64];
	int got = read_cands(rows, 64), i, j;
	char kb[256];

	CHECK(got == n, "%d candidates, want %d", got, n);
	for (i = 0; i < n; i++) {
		const struct npuflow_cand *v = NULL;

		for (j = 0; j < got; j++)
			if (!memcmp(&rows[j].key, &e[i].key, sizeof(e[i].key)))
				v = &rows[j].val;
		npuflow_fmt_key(&e[i].key, kb, sizeof(kb));
		if (!v) {
			char gb[256] = "";

			if (got)
				npuflow_fmt_key(&rows[0].key, gb, sizeof(gb));
			FAIL("no candidate %s (have e.g. %s)", kb, gb);
		}
		CHECK(v->frames == e[i].frames, "%s: frames %llu want %llu", kb,
		      (unsigned long long)v->frames, (unsigned long long)e[i].frames);
		CHECK(v->bytes == e[i].bytes, "%s: bytes %llu want %llu", kb,
		      (unsigned long long)v->bytes, (unsigned long long)e[i].bytes);
		CHECK(v->tcp_flags == e[i].tcp_flags, "%s: tcp_flags %#x want %#x", kb,
		      v->tcp_flags, e[i].tcp_flags);
		CHECK(v->reason == e[i].reason, "%s: reason %u want %u", kb, v->reason,
		      e[i].reason);
		CHECK(v->port == e[i].port, "%s: port %u want %u", kb, v->port, e[i].port);
		CHECK(v->conn == e[i].conn, "%s: conn %u want %u", kb, v->conn, e[i].conn);
		CHECK(v->flags == e[i].flags, "%s: flags %#x want %#x", kb, v->flags,
		      e[i].flags);
		CHECK(v->first_ns && v->first_ns <= v->last_ns, "%s: first %llu last %llu",
		      kb, (unsigned long long)v->first_ns, (unsigned long long)v->last_ns);
	}
	return 0;
}

/* ---- frame specs ---------------------------------------------------- */

static struct fspec v4tcp(void)
{
	struct fspec s = { .family = 4, .proto = IPPROTO_TCP, .src = "10.1.0.1",
			   .dst = "10.2.0.2", .sport = 40000, .dport = 80,
			   .tcp_flags = 0x02, .payload = 0 };
	return s;
}

static struct fspec v6tcp(void)
{
	struct fspec s = { .family = 6, .proto = IPPROTO_TCP, .src = "2001:db8:1::1",
			   .dst = "2001:db8:2::2", .sport = 40001, .dport = 443,
			   .tcp_flags = 0x18, .payload = 100 };
	return s;
}

/*
 * One frame of @s with metadata (reason @r on port @port) or without
 * (@port < 0): exactly one candidate and the counters say so.
 */
static int one_frame(const struct fspec *s, int r, int port, uint8_t xflags,
		     int xstat1, int xstat2)
{
	struct npuflow_meta m = mkmeta(r, port < 0 ? 0 : port, NPUFLOW_CONN_NONE);
	struct frame f;
	struct exp_cand c = {};
	struct exp_cnt e = {};

	frame_build(s, &f);
	TRY(runf(&f, port < 0 ? NULL : &m));
	c.key = key_of(s);
	c.frames = 1;
	c.bytes = f.len;
	c.tcp_flags = s->proto == IPPROTO_TCP ? s->tcp_flags : 0;
	c.reason = port < 0 ? 0 : r;
	c.port = port < 0 ? NPUFLOW_PORT_NONE : port;
	c.conn = NPUFLOW_CONN_NONE;
	c.flags = xflags | (port < 0 ? 0 : NPUFLOW_CF_META);
	TRY(check_cands(&c, 1));
	e.slot = port < 0 ? LO_SLOT : (uint32_t)port;
	e.reason = c.reason;
	e.frames = 1;
	e.bytes = f.len;
	e.stat[NPUFLOW_S_CANDIDATE] = 1;
	e.stat[NPUFLOW_S_NEW] = 1;
	if (xstat1 >= 0)
		e.stat[xstat1]++;
	if (xstat2 >= 0)
		e.stat[xstat2]++;
	TRY(check_counters(&e));
	CHECK(nev == 0, "%d events, want none", nev);
	return 0;
}

/* A frame that is counted in @stat (and @stat2, @stat3) only: not a candidate. */
static int not_cand3(const void *data, size_t len, int stat, int stat2, int stat3)
{
	struct npuflow_meta m = mkmeta(NPUFLOW_R_EXCEPTION, 5, NPUFLOW_CONN_NONE);
	struct exp_cnt e = { .slot = 5, .reason = NPUFLOW_R_EXCEPTION, .frames = 1,
			     .bytes = len };

	TRY(run(data, len, &m));
	TRY(check_cands(NULL, 0));
	e.stat[stat]++;
	if (stat2 >= 0)
		e.stat[stat2]++;
	if (stat3 >= 0)
		e.stat[stat3]++;
	TRY(check_counters(&e));
	CHECK(nev == 0, "%d events, want none", nev);
	return 0;
}

static int not_cand(const void *data, size_t len, int stat, int stat2)
{
	return not_cand3(data, len, stat, stat2, -1);
}

/* ---- tests ---------------------------------------------------------- */

static int t_v4_tcp(void)
{
	struct fspec s = v4tcp();

	return one_frame(&s, NPUFLOW_R_FLOW_MISS, 3, 0, -1, -1);
}

static int t_v4_tcp_known(void)
{
	struct fspec s = v4tcp();
	struct npuflow_meta m = mkmeta(NPUFLOW_R_TCP_FLAGS, 3, NPUFLOW_CONN_NONE);
	struct frame f1, f2, f3;
	struct exp_cand c = {};
	struct exp_cnt e = { .slot = 3 };

	frame_build(&s, &f1);
	s.tcp_flags = 0x10;
	s.payload = 1000;
	frame_build(&s, &f2);
	s.tcp_flags = 0x19;
	s.payload = 7;
	frame_build(&s, &f3);
	TRY(runf(&f1, &m));
	m.reason = NPUFLOW_R_FLOW_MISS;
	TRY(runf(&f2, &m));
	TRY(runf(&f2, &m));
	TRY(runf(&f3, &m));
	c.key = key_of(&s);
	c.frames = 4;
	c.bytes = f1.len + 2 * f2.len + f3.len;
	c.tcp_flags = 0x02 | 0x10 | 0x19;
	c.reason = NPUFLOW_R_FLOW_MISS;		/* the latest frame's */
	c.port = 3;
	c.conn = NPUFLOW_CONN_NONE;
	c.flags = NPUFLOW_CF_META | NPUFLOW_CF_THRESHOLD;	/* 4th frame = threshold */
	TRY(check_cands(&c, 1));
	CHECK(nev == 1 && evs[0].type == NPUFLOW_EV_THRESHOLD, "events %d", nev);
	/* counters: reason of each frame */
	{
		struct npuflow_counters got;

		read_slot(3, &got);
		CHECK(got.frames[NPUFLOW_R_TCP_FLAGS] == 1 &&
		      got.frames[NPUFLOW_R_FLOW_MISS] == 3, "per-reason frames");
		CHECK(got.bytes[NPUFLOW_R_TCP_FLAGS] == f1.len &&
		      got.bytes[NPUFLOW_R_FLOW_MISS] == 2 * f2.len + f3.len, "per-reason bytes");
		CHECK(got.stat[NPUFLOW_S_CANDIDATE] == 4 && got.stat[NPUFLOW_S_NEW] == 1 &&
		      got.stat[NPUFLOW_S_THRESHOLD] == 1, "stats");
	}
	(void)e;
	return 0;
}

static int t_v4_udp(void)
{
	struct fspec s = { .family = 4, .proto = IPPROTO_UDP, .src = "192.0.2.1",
			   .dst = "198.51.100.7", .sport = 5353, .dport = 53, .payload = 33 };

	return one_frame(&s, NPUFLOW_R_FLOW_MISS, 0, 0, -1, -1);
}

static int t_v4_icmp_echo(void)
{
	struct fspec s = { .family = 4, .proto = IPPROTO_ICMP, .src = "10.0.0.1",
			   .dst = "10.0.0.2", .icmp_type = 8, .icmp_id = 0x4242,
			   .payload = 56 };

	return one_frame(&s, NPUFLOW_R_FLOW_MISS, 15, 0, -1, -1);
}

static int t_v4_icmp_error(void)
{
	struct fspec s = { .family = 4, .proto = IPPROTO_ICMP, .src = "10.0.0.1",
			   .dst = "10.0.0.2", .icmp_type = 3, .icmp_code = 3,
			   .icmp_id = 0x4242, .payload = 28 };
	struct npuflow_key k = key_of(&s);

	if (k.sport != 0 || k.dport != htons(0x0303))
		FAIL("expected key helper wrong");
	return one_frame(&s, NPUFLOW_R_EXCEPTION, 1, 0, -1, -1);
}

static int t_v4_options(void)
{
	struct fspec s = v4tcp();

	s.ip_opt_len = 12;
	return one_frame(&s, NPUFLOW_R_EXCEPTION, 2, NPUFLOW_CF_IP_OPTIONS,
			 NPUFLOW_S_IP_OPTIONS, -1);
}

static int t_v4_options_max(void)
{
	struct fspec s = { .family = 4, .proto = IPPROTO_UDP, .src = "10.0.0.1",
			   .dst = "10.0.0.2", .sport = 1, .dport = 2, .ip_opt_len = 40 };

	return one_frame(&s, NPUFLOW_R_EXCEPTION, 2, NPUFLOW_CF_IP_OPTIONS,
			 NPUFLOW_S_IP_OPTIONS, -1);
}

static int t_v4_first_fragment(void)
{
	struct fspec s = { .family = 4, .proto = IPPROTO_UDP, .src = "10.0.0.1",
			   .dst = "10.0.0.2", .sport = 7000, .dport = 7001, .payload = 64,
			   .frag_off = 0x2000 /* MF */ };
	struct frame f;

	frame_build(&s, &f);
	put16(f.b + f.l4 + 4, 3000);	/* the datagram is longer than this fragment */
	{
		struct npuflow_meta m = mkmeta(NPUFLOW_R_EXCEPTION, 4, NPUFLOW_CONN_NONE);
		struct exp_cand c = { .key = key_of(&s), .frames = 1, .bytes = f.len,
				      .reason = NPUFLOW_R_EXCEPTION, .port = 4,
				      .conn = NPUFLOW_CONN_NONE,
				      .flags = NPUFLOW_CF_META | NPUFLOW_CF_FRAGMENT };
		struct exp_cnt e = { .slot = 4, .reason = NPUFLOW_R_EXCEPTION, .frames = 1,
				     .bytes = f.len };

		TRY(runf(&f, &m));
		TRY(check_cands(&c, 1));
		e.stat[NPUFLOW_S_CANDIDATE] = e.stat[NPUFLOW_S_NEW] = 1;
		e.stat[NPUFLOW_S_FRAGMENT] = 1;
		return check_counters(&e);
	}
}

static int t_v4_later_fragment(void)
{
	struct fspec s = { .family = 4, .proto = IPPROTO_UDP, .src = "10.0.0.1",
			   .dst = "10.0.0.2", .sport = 7000, .dport = 7001, .payload = 64,
			   .frag_off = 0x2000 | 185 };
	struct frame f;

	frame_build(&s, &f);
	TRY(not_cand(f.b, f.len, NPUFLOW_S_FRAGMENT, NPUFLOW_S_NONFIRST_FRAG));
	/* the last fragment (MF clear, offset set) too */
	reset_maps();
	put16(f.b + f.l3 + 6, 370);
	return not_cand(f.b, f.len, NPUFLOW_S_FRAGMENT, NPUFLOW_S_NONFIRST_FRAG);
}

static int t_v6_tcp(void)
{
	struct fspec s = v6tcp();

	return one_frame(&s, NPUFLOW_R_FLOW_MISS, 7, 0, -1, -1);
}

static int t_v6_udp(void)
{
	struct fspec s = { .family = 6, .proto = IPPROTO_UDP, .src = "fe80::1",
			   .dst = "ff02::fb", .sport = 5353, .dport = 5353, .payload = 20 };

	return one_frame(&s, NPUFLOW_R_MCAST, 7, 0, -1, -1);
}

static int t_v6_icmp_echo(void)
{
	struct fspec s = { .family = 6, .proto = IPPROTO_ICMPV6, .src = "2001:db8::1",
			   .dst = "2001:db8::2", .icmp_type = 128, .icmp_id = 77,
			   .payload = 56 };

	return one_frame(&s, NPUFLOW_R_FLOW_MISS, 8, 0, -1, -1);
}

static int t_v6_icmp_ns(void)
{
	struct fspec s = { .family = 6, .proto = IPPROTO_ICMPV6, .src = "2001:db8::1",
			   .dst = "ff02::1:ff00:2", .icmp_type = 135, .icmp_id = 77,
			   .payload = 16 };
	struct npuflow_key k = key_of(&s);

	if (k.sport != 0)
		FAIL("expected key helper wrong");
	return one_frame(&s, NPUFLOW_R_MCAST, 8, 0, -1, -1);
}

static int t_v6_exthdrs(void)
{
	struct fspec s = v6tcp();

	s.next_n = 3;
	s.next[0] = IPPROTO_HOPOPTS;
	s.next[1] = IPPROTO_ROUTING;
	s.next[2] = IPPROTO_DSTOPTS;
	return one_frame(&s, NPUFLOW_R_EXCEPTION, 9, NPUFLOW_CF_EXTHDR, NPUFLOW_S_EXTHDR, -1);
}

static int t_v6_ah(void)
{
	struct fspec s = { .family = 6, .proto = IPPROTO_UDP, .src = "2001:db8::1",
			   .dst = "2001:db8::2", .sport = 500, .dport = 4500, .payload = 9,
			   .next_n = 2, .next = { IPPROTO_DSTOPTS, IPPROTO_AH } };

	return one_frame(&s, NPUFLOW_R_EXCEPTION, 9, NPUFLOW_CF_EXTHDR, NPUFLOW_S_EXTHDR, -1);
}

static int t_v6_first_fragment(void)
{
	struct fspec s = { .family = 6, .proto = IPPROTO_UDP, .src = "2001:db8::1",
			   .dst = "2001:db8::2", .sport = 9, .dport = 10, .payload = 100,
			   .next_n = 1, .next = { IPPROTO_FRAGMENT }, .frag6 = 1 };
	struct frame f;

	frame_build(&s, &f);
	put16(f.b + f.l4 + 4, 5000);	/* whole datagram's length */
	{
		struct npuflow_meta m = mkmeta(NPUFLOW_R_EXCEPTION, 9, NPUFLOW_CONN_NONE);
		struct exp_cand c = { .key = key_of(&s), .frames = 1, .bytes = f.len,
				      .reason = NPUFLOW_R_EXCEPTION, .port = 9,
				      .conn = NPUFLOW_CONN_NONE,
				      .flags = NPUFLOW_CF_META | NPUFLOW_CF_FRAGMENT |
					       NPUFLOW_CF_EXTHDR };
		struct exp_cnt e = { .slot = 9, .reason = NPUFLOW_R_EXCEPTION, .frames = 1,
				     .bytes = f.len };

		TRY(runf(&f, &m));
		TRY(check_cands(&c, 1));
		e.stat[NPUFLOW_S_CANDIDATE] = e.stat[NPUFLOW_S_NEW] = 1;
		e.stat[NPUFLOW_S_FRAGMENT] = e.stat[NPUFLOW_S_EXTHDR] = 1;
		return check_counters(&e);
	}
}

static int t_v6_later_fragment(void)
{
	struct fspec s = { .family = 6, .proto = IPPROTO_UDP, .src = "2001:db8::1",
			   .dst = "2001:db8::2", .sport = 9, .dport = 10, .payload = 100,
			   .next_n = 2, .next = { IPPROTO_HOPOPTS, IPPROTO_FRAGMENT },
			   .frag6 = (1448 / 8) << 3 };
	struct frame f;

	frame_build(&s, &f);
	return not_cand3(f.b, f.len, NPUFLOW_S_FRAGMENT, NPUFLOW_S_NONFIRST_FRAG,
			 NPUFLOW_S_EXTHDR);
}

static int t_v6_chain_at_bound(void)
{
	struct fspec s = v6tcp();
	int i;

	s.next_n = NPUFLOW_IPV6_EXT_MAX;
	for (i = 0; i < s.next_n; i++)
		s.next[i] = i == 2 ? IPPROTO_AH : IPPROTO_DSTOPTS;
	return one_frame(&s, NPUFLOW_R_EXCEPTION, 9, NPUFLOW_CF_EXTHDR, NPUFLOW_S_EXTHDR, -1);
}

static int t_v6_chain_too_long(void)
{
	struct fspec s = v6tcp();
	struct frame f;
	int i;

	s.next_n = NPUFLOW_IPV6_EXT_MAX + 1;
	for (i = 0; i < s.next_n; i++)
		s.next[i] = IPPROTO_DSTOPTS;
	frame_build(&s, &f);
	return not_cand(f.b, f.len, NPUFLOW_S_EXTHDR_LIMIT, NPUFLOW_S_EXTHDR);
}

static int t_vlan_single(void)
{
	struct fspec s = v4tcp();

	s.nvlan = 1;
	s.vid[0] = 100;
	return one_frame(&s, NPUFLOW_R_FLOW_MISS, 3, 0, -1, -1);
}

static int t_vlan_double(void)
{
	struct fspec s = v6tcp();

	s.nvlan = 2;
	s.vid[0] = 4000;
	s.vid[1] = 17;
	return one_frame(&s, NPUFLOW_R_FLOW_MISS, 3, 0, -1, -1);
}

static int t_vlan_double_8021q(void)
{
	struct fspec s = v4tcp();

	s.nvlan = 2;
	s.tpid[0] = ETH_P_8021Q_;
	s.tpid[1] = ETH_P_8021Q_;
	s.vid[0] = 1;
	s.vid[1] = 4094;
	return one_frame(&s, NPUFLOW_R_FLOW_MISS, 3, 0, -1, -1);
}

static int t_vlan_triple(void)
{
	struct fspec s = v4tcp();
	struct frame f;

	s.nvlan = 3;
	s.vid[0] = 1;
	s.vid[1] = 2;
	s.vid[2] = 3;
	frame_build(&s, &f);
	return not_cand(f.b, f.len, NPUFLOW_S_VLAN_DEPTH, -1);
}

/* 802.1ad alone, and inside an 802.1Q tag: the TPID in the key. */
static int t_vlan_8021ad(void)
{
	struct fspec s = v4tcp();

	s.nvlan = 1;
	s.tpid[0] = ETH_P_8021AD_;
	s.vid[0] = 100;
	TRY(one_frame(&s, NPUFLOW_R_FLOW_MISS, 3, 0, -1, -1));
	reset_maps();
	s.nvlan = 2;
	s.tpid[0] = ETH_P_8021Q_;
	s.tpid[1] = ETH_P_8021AD_;
	s.vid[1] = 200;
	return one_frame(&s, NPUFLOW_R_FLOW_MISS, 3, 0, -1, -1);
}

/* IPv4 and IPv6 in PPPoE sessions: the session id in the key. */
static int t_pppoe(void)
{
	struct fspec s4 = v4tcp(), s6 = v6tcp();

	s4.pppoe_sid = 5;
	TRY(one_frame(&s4, NPUFLOW_R_FLOW_MISS, 3, 0, -1, -1));
	reset_maps();
	s6.pppoe_sid = 0xfffe;
	return one_frame(&s6, NPUFLOW_R_FLOW_MISS, 3, 0, -1, -1);
}

/* Sessions inside VLAN 7, and inside 802.1ad 100 + 802.1Q 200. */
static int t_pppoe_vlan(void)
{
	struct fspec s = v4tcp();

	s.pppoe_sid = 1;
	s.nvlan = 1;
	s.vid[0] = 7;
	TRY(one_frame(&s, NPUFLOW_R_FLOW_MISS, 3, 0, -1, -1));
	reset_maps();
	s = v6tcp();
	s.pppoe_sid = 0x1234;
	s.nvlan = 2;
	s.vid[0] = 100;
	s.vid[1] = 200;
	return one_frame(&s, NPUFLOW_R_FLOW_MISS, 3, 0, -1, -1);
}

/*
 * Session frames that carry no IP, or are not a session's data: discovery,
 * LCP, IPCP, IPV6CP, another version, type or code, sessions 0 and 0xffff.
 */
static int t_pppoe_not_ip(void)
{
	struct fspec s = v4tcp(), lcp = { .family = 0, .pppoe_sid = 5, .ppp_proto = 0xc021 };
	struct frame f;
	int n = 0;

#define NOT_IP(spec, mutate) do {							frame_build(&(spec), &f);						mutate;									reset_maps();								snprintf(casemsg, sizeof(casemsg), "case %d (%s): ", n, #mutate); 		TRY(not_cand(f.b, f.len, NPUFLOW_S_NON_IP, -1));			n++;								} while (0)

	s.pppoe_sid = 5;
	NOT_IP(lcp, (void)0);						/* LCP echo */
	NOT_IP(lcp, put16(f.b + f.l3 - 2, 0x8021));			/* IPCP */
	NOT_IP(lcp, put16(f.b + f.l3 - 2, 0x8057));			/* IPV6CP */
	NOT_IP(s, put16(f.b + f.l3 - 10, 0x8863));			/* discovery */
	NOT_IP(s, f.b[f.l3 - 8] = 0x12);				/* type 2 */
	NOT_IP(s, f.b[f.l3 - 8] = 0x21);				/* version 2 */
	NOT_IP(s, f.b[f.l3 - 7] = 0x09);				/* code: PADI */
	NOT_IP(s, put16(f.b + f.l3 - 6, 0));				/* session 0 */
	NOT_IP(s, put16(f.b + f.l3 - 6, 0xffff));			/* session 0xffff */
	casemsg[0] = '\0';
#undef NOT_IP
	return 0;
}

/* A session's length field other than the IP packet's + 2: malformed. */
static int t_pppoe_length(void)
{
	struct fspec s4 = v4tcp(), s6 = v6tcp();
	struct frame f;
	int n = 0;

#define BADLEN(spec, delta, stat) do {							frame_build(&(spec), &f);						put16(f.b + f.l3 - 4, f.len - f.l3 + 2 + (delta));			reset_maps();								snprintf(casemsg, sizeof(casemsg), "case %d (%s %d): ", n, #spec, delta); 		TRY(not_cand(f.b, f.len, (stat), -1));					n++;								} while (0)

	s4.pppoe_sid = 5;
	s6.pppoe_sid = 5;
	BADLEN(s4, 1, NPUFLOW_S_MALFORMED);
	BADLEN(s4, -1, NPUFLOW_S_MALFORMED);
	BADLEN(s4, -2, NPUFLOW_S_MALFORMED);	/* the IP packet's own length */
	BADLEN(s4, 1000, NPUFLOW_S_MALFORMED);	/* past the frame */
	BADLEN(s6, 1, NPUFLOW_S_MALFORMED);
	BADLEN(s6, -42, NPUFLOW_S_MALFORMED);	/* IPv6's payload length */
	casemsg[0] = '\0';
#undef BADLEN
	/* an IPv4 packet the session says is IPv6 */
	frame_build(&s4, &f);
	put16(f.b + f.l3 - 2, 0x0057);
	reset_maps();
	TRY(not_cand(f.b, f.len, NPUFLOW_S_MALFORMED, -1));
	/* padding after the IP packet (a short frame) is fine */
	{
		struct fspec sp = v4tcp();
		struct frame g;
		struct npuflow_meta m = mkmeta(NPUFLOW_R_FLOW_MISS, 3, NPUFLOW_CONN_NONE);
		struct npuflow_row rows[2];

		sp.pppoe_sid = 5;
		frame_build(&sp, &g);
		memset(g.b + g.len, 0, 6);
		TRY(run(g.b, g.len + 6, &m));
		CHECK(read_cands(rows, 2) == 1, "a padded session frame is a candidate");
		CHECK(rows[0].key.pppoe_sid == 5, "session %u, want 5", rows[0].key.pppoe_sid);
	}
	return 0;
}

static int t_non_ip(void)
{
	struct fspec s = { .family = 0, .ethertype = ETH_P_ARP_ };
	struct frame f;

	frame_build(&s, &f);
	TRY(not_cand(f.b, f.len, NPUFLOW_S_NON_IP, -1));
	reset_maps();
	s.ethertype = 0x88cc;		/* LLDP behind a VLAN tag */
	s.nvlan = 1;
	s.vid[0] = 5;
	frame_build(&s, &f);
	return not_cand(f.b, f.len, NPUFLOW_S_NON_IP, -1);
}

static int t_other_l4(void)
{
	struct fspec s = { .family = 4, .proto = 47 /* GRE */, .src = "10.0.0.1",
			   .dst = "10.0.0.2", .payload = 24 };

	TRY(one_frame(&s, NPUFLOW_R_EXCEPTION, 6, 0, NPUFLOW_S_OTHER_L4, -1));
	reset_maps();
	s.family = 6;
	s.proto = 50;		/* ESP: the walk stops there */
	s.src = "2001:db8::1";
	s.dst = "2001:db8::2";
	return one_frame(&s, NPUFLOW_R_EXCEPTION, 6, 0, NPUFLOW_S_OTHER_L4, -1);
}

/*
 * Truncation, byte by byte: every prefix of a frame, with the IP length
 * left as it was (the frame ends early: L2, then L3) and, once the IP
 * header is whole, with the IP length cut to match (the datagram ends
 * inside the L4 header: L4).  Counters accumulate; checked at the end.
 */
static int trunc_sweep(const struct fspec *s)
{
	struct frame f;
	struct exp_cnt e = { .slot = 5, .reason = NPUFLOW_R_EXCEPTION };
	struct npuflow_meta m = mkmeta(NPUFLOW_R_EXCEPTION, 5, NPUFLOW_CONN_NONE);
	size_t cut, l4hdr = s->proto == IPPROTO_TCP ? 20 : 8;

	frame_build(s, &f);
	/*
	 * From 14 bytes: BPF_PROG_TEST_RUN refuses shorter XDP frames, as
	 * the coprocessor drops runts (NPU_MIN_FRAME); with VLAN tags the
	 * frame can still end inside L2.
	 */
	for (cut = 14; cut < f.len; cut++) {
		size_t l2 = f.l3;

		TRY(run(f.b, cut, &m));
		e.frames++;
		e.bytes += cut;
		if (cut < l2)
			e.stat[NPUFLOW_S_TRUNC_L2]++;
		else
			e.stat[NPUFLOW_S_TRUNC_L3]++;

		if (cut >= f.l4) {
			struct frame g = f;

			if (s->family == 4)
				put16(g.b + g.l3 + 2, cut - g.l3);
			else
				put16(g.b + g.l3 + 4, cut - g.l3 - 40);
			if (s->pppoe_sid)	/* the session's length agrees */
				put16(g.b + g.l3 - 4, cut - g.l3 + 2);
			TRY(run(g.b, cut, &m));
			e.frames++;
			e.bytes += cut;
			/* the IP header is whole and consistent: its extras are seen */
			if (s->family == 4 && s->ip_opt_len)
				e.stat[NPUFLOW_S_IP_OPTIONS]++;
			if (s->family == 6 && s->next_n)
				e.stat[NPUFLOW_S_EXTHDR]++;
			if (cut - f.l4 < l4hdr) {
				e.stat[NPUFLOW_S_TRUNC_L4]++;
			} else {
				/* a whole L4 header: a UDP length past it is malformed */
				e.stat[s->proto == IPPROTO_UDP ? NPUFLOW_S_MALFORMED :
							NPUFLOW_S_CANDIDATE]++;
			}
		}
	}
	if (e.stat[NPUFLOW_S_CANDIDATE])
		e.stat[NPUFLOW_S_NEW] = 1;
	if (e.stat[NPUFLOW_S_CANDIDATE] >= THRESH)
		e.stat[NPUFLOW_S_THRESHOLD] = 1;
	TRY(check_counters(&e));
	if (e.stat[NPUFLOW_S_CANDIDATE]) {
		struct npuflow_row rows[4];

		CHECK(read_cands(rows, 4) == 1, "one candidate from the whole-header cuts");
	} else {
		TRY(check_cands(NULL, 0));
	}
	return 0;
}

static int t_trunc_v4_tcp(void)
{
	struct fspec s = v4tcp();

	s.payload = 10;
	return trunc_sweep(&s);
}

static int t_trunc_v4_udp_vlan(void)
{
	struct fspec s = { .family = 4, .proto = IPPROTO_UDP, .src = "10.0.0.1",
			   .dst = "10.0.0.2", .sport = 1, .dport = 2, .payload = 4,
			   .nvlan = 2, .vid = { 10, 20 }, .ip_opt_len = 8 };

	return trunc_sweep(&s);
}

/*
 * The egress record of what the host forwarded (npuflow_forwarded): a
 * frame leaving in VLAN 7 and PPPoE session 5 is recorded as it leaves,
 * without its tag and session (npuflowd looks it up so).
 */
static int t_forwarded_pppoe(void)
{
	int fd = bpf_program__fd(skel->progs.npuflow_forwarded);
	int mfd = bpf_map__fd(skel->maps.forwarded);
	struct fspec s = v4tcp();
	struct npuflow_key k, want, next;
	struct __sk_buff ctx = {};
	LIBBPF_OPTS(bpf_test_run_opts, o);
	struct frame f;
	uint64_t t;
	int n = 0;

	while (!bpf_map_get_next_key(mfd, NULL, &next)) {
		k = next;
		bpf_map_delete_elem(mfd, &k);
	}
	s.pppoe_sid = 5;
	s.nvlan = 1;
	s.vid[0] = 7;
	frame_build(&s, &f);
	ctx.ifindex = LO_IFINDEX;
	o.data_in = f.b;
	o.data_size_in = f.len;
	o.ctx_in = &ctx;
	o.ctx_size_in = sizeof(ctx);
	CHECK(!bpf_prog_test_run_opts(fd, &o), "test_run: %s", strerror(errno));
	CHECK(o.retval == 0, "retval %u, want TC_ACT_OK", o.retval);
	want = key_of(&s);
	want.vlan_outer = 0;
	want.pppoe_sid = 0;
	while (!bpf_map_get_next_key(mfd, n ? &k : NULL, &next)) {
		k = next;
		n++;
	}
	CHECK(n == 1, "%d records, want 1", n);
	CHECK(!memcmp(&k, &want, sizeof(k)), "the record keeps a tag or the session "
	      "(vlan %u, session %u)", k.vlan_outer, k.pppoe_sid);
	CHECK(!bpf_map_lookup_elem(mfd, &k, &t) && t, "no time recorded");
	bpf_map_delete_elem(mfd, &k);
	return 0;
}

static int t_trunc_pppoe_vlan(void)
{
	struct fspec s = v4tcp();

	s.pppoe_sid = 5;
	s.nvlan = 1;
	s.vid[0] = 7;
	s.payload = 6;
	TRY(trunc_sweep(&s));
	reset_maps();
	s = v6tcp();
	s.pppoe_sid = 5;
	s.payload = 4;
	return trunc_sweep(&s);
}

static int t_trunc_v6_tcp_ext(void)
{
	struct fspec s = v6tcp();

	s.payload = 4;
	s.nvlan = 1;
	s.vid[0] = 9;
	s.next_n = 2;
	s.next[0] = IPPROTO_HOPOPTS;
	s.next[1] = IPPROTO_FRAGMENT;
	s.frag6 = 0;		/* atomic fragment: offset 0, M clear */
	return trunc_sweep(&s);
}

static int t_trunc_icmp(void)
{
	struct fspec s = { .family = 4, .proto = IPPROTO_ICMP, .src = "10.0.0.1",
			   .dst = "10.0.0.2", .icmp_type = 8, .icmp_id = 1, .payload = 0 };
	struct frame f;
	struct npuflow_meta m = mkmeta(NPUFLOW_R_EXCEPTION, 5, NPUFLOW_CONN_NONE);
	struct exp_cnt e = { .slot = 5, .reason = NPUFLOW_R_EXCEPTION };

	frame_build(&s, &f);
	/* the datagram ends 4 bytes into the ICMP header */
	put16(f.b + f.l3 + 2, 20 + 4);
	TRY(run(f.b, f.len, &m));
	e.frames = 1;
	e.bytes = f.len;
	e.stat[NPUFLOW_S_TRUNC_L4] = 1;
	TRY(check_counters(&e));
	return check_cands(NULL, 0);
}

/* Malformed headers: one field broken at a time. */
static int t_malformed(void)
{
	struct fspec s4 = v4tcp(), s6 = v6tcp();
	struct fspec su = { .family = 4, .proto = IPPROTO_UDP, .src = "10.0.0.1",
			    .dst = "10.0.0.2", .sport = 1, .dport = 2, .payload = 20 };
	struct frame f;
	int n = 0;

#define MAL(spec, mutate, stat) do {					\
		frame_build(&(spec), &f);				\
		mutate;							\
		reset_maps();						\
		snprintf(casemsg, sizeof(casemsg), "case %d (%s): ", n, #mutate); \
		TRY(not_cand(f.b, f.len, (stat), -1));			\
		n++;							\
	} while (0)

	MAL(s4, f.b[f.l3] = 0x55, NPUFLOW_S_MALFORMED);			/* version 5 */
	MAL(s4, f.b[f.l3] = 0x44, NPUFLOW_S_MALFORMED);			/* IHL 4 */
	MAL(s4, f.b[f.l3] = 0x40, NPUFLOW_S_MALFORMED);			/* IHL 0 */
	MAL(s4, f.b[f.l3] = 0x4f, NPUFLOW_S_TRUNC_L3);			/* IHL 15: past the frame */
	MAL(s4, put16(f.b + f.l3 + 2, 19), NPUFLOW_S_MALFORMED);	/* tot_len < IHL */
	MAL(s4, put16(f.b + f.l3 + 2, 0), NPUFLOW_S_MALFORMED);
	MAL(s4, put16(f.b + f.l3 + 2, 1500), NPUFLOW_S_TRUNC_L3);	/* longer than the frame */
	MAL(s4, f.b[f.l4 + 12] = 4 << 4, NPUFLOW_S_MALFORMED);		/* TCP doff 4 */
	MAL(s4, f.b[f.l4 + 12] = 0, NPUFLOW_S_MALFORMED);		/* TCP doff 0 */
	MAL(s4, f.b[f.l4 + 12] = 15 << 4, NPUFLOW_S_MALFORMED);	/* doff past the datagram */
	MAL(su, put16(f.b + f.l4 + 4, 7), NPUFLOW_S_MALFORMED);		/* UDP len < 8 */
	MAL(su, put16(f.b + f.l4 + 4, 0), NPUFLOW_S_MALFORMED);
	MAL(su, put16(f.b + f.l4 + 4, 29), NPUFLOW_S_MALFORMED);	/* past the datagram */
	MAL(s6, f.b[f.l3] = 0x40, NPUFLOW_S_MALFORMED);			/* version 4 in IPv6 */
	MAL(s6, put16(f.b + f.l3 + 4, 2000), NPUFLOW_S_TRUNC_L3);	/* payload_len past frame */
	MAL(s6, f.b[f.l4 + 12] = 2 << 4, NPUFLOW_S_MALFORMED);
	casemsg[0] = '\0';
	{
		/* extension headers longer than payload_len claims (frame holds them) */
		struct fspec sx = v6tcp();

		sx.next_n = 2;
		sx.next[0] = IPPROTO_HOPOPTS;
		sx.next[1] = IPPROTO_DSTOPTS;
		frame_build(&sx, &f);
		put16(f.b + f.l3 + 4, 16);
		reset_maps();
		TRY(not_cand(f.b, f.len, NPUFLOW_S_MALFORMED, NPUFLOW_S_EXTHDR));
		/* an extension header whose length runs past the frame */
		frame_build(&sx, &f);
		f.b[f.l3 + 40 + 16 + 1] = 255;	/* dest opts: 2048 bytes */
		reset_maps();
		TRY(not_cand(f.b, f.len, NPUFLOW_S_TRUNC_L3, NPUFLOW_S_EXTHDR));
	}
#undef MAL
	return 0;
}

static int t_no_meta(void)
{
	struct fspec s = v4tcp();

	/* no ctx at all: test_run's default rxq is lo's */
	TRY(one_frame(&s, 0, -1, 0, -1, -1));
	reset_maps();
	{
		/* ctx without metadata, explicit ifindex */
		struct frame f;
		struct exp_cnt e = { .slot = LO_SLOT, .reason = 0, .frames = 1 };

		frame_build(&s, &f);
		TRY(run_prog(bpf_program__fd(skel->progs.npuflow_classify), f.b, f.len,
			     NULL, LO_IFINDEX));
		e.bytes = f.len;
		e.stat[NPUFLOW_S_CANDIDATE] = e.stat[NPUFLOW_S_NEW] = 1;
		TRY(check_counters(&e));
	}
	return 0;
}

static int t_bad_meta(void)
{
	struct fspec s = v4tcp();
	struct frame f;
	struct npuflow_meta m = mkmeta(NPUFLOW_R_FLOW_MISS, 3, 42);
	struct exp_cand c = {};
	struct exp_cnt e = { .slot = LO_SLOT, .reason = 0, .frames = 2 };

	frame_build(&s, &f);
	m.version = 9;
	TRY(runf(&f, &m));
	m = mkmeta(NPUFLOW_R_FLOW_MISS, NPUFLOW_MAX_PORTS, 42);	/* port out of range */
	TRY(runf(&f, &m));
	c.key = key_of(&s);
	c.frames = 2;
	c.bytes = 2 * f.len;
	c.tcp_flags = 0x02;
	c.port = NPUFLOW_PORT_NONE;
	c.conn = NPUFLOW_CONN_NONE;
	TRY(check_cands(&c, 1));
	e.bytes = 2 * f.len;
	e.stat[NPUFLOW_S_CANDIDATE] = 2;
	e.stat[NPUFLOW_S_NEW] = 1;
	e.stat[NPUFLOW_S_BAD_META] = 2;
	TRY(check_counters(&e));
	/* wrong magic: not metadata at all (someone else's), not counted as bad */
	reset_maps();
	m = mkmeta(NPUFLOW_R_FLOW_MISS, 3, 42);
	m.magic = 0x1234;
	TRY(runf(&f, &m));
	e.frames = 1;
	e.bytes = f.len;
	e.stat[NPUFLOW_S_CANDIDATE] = 1;
	e.stat[NPUFLOW_S_BAD_META] = 0;
	return check_counters(&e);
}

static int t_reason_out_of_range(void)
{
	struct fspec s = v4tcp();
	struct frame f;
	struct npuflow_meta m = mkmeta(200, 2, NPUFLOW_CONN_NONE);
	struct exp_cnt e = { .slot = 2, .reason = NPUFLOW_R_UNKNOWN, .frames = 1 };

	frame_build(&s, &f);
	TRY(runf(&f, &m));
	e.bytes = f.len;
	e.stat[NPUFLOW_S_CANDIDATE] = e.stat[NPUFLOW_S_NEW] = 1;
	return check_counters(&e);
}

/* Both directions of one connection: two candidates. */
static int t_both_directions(void)
{
	struct fspec a = v4tcp(), b = v4tcp();
	struct frame fa, fb;
	struct npuflow_meta ma = mkmeta(NPUFLOW_R_FLOW_MISS, 2, NPUFLOW_CONN_NONE);
	struct npuflow_meta mb = mkmeta(NPUFLOW_R_FLOW_MISS, 7, NPUFLOW_CONN_NONE);
	struct exp_cand c[2] = {};

	b.src = a.dst;
	b.dst = a.src;
	b.sport = a.dport;
	b.dport = a.sport;
	b.tcp_flags = 0x12;
	frame_build(&a, &fa);
	frame_build(&b, &fb);
	TRY(runf(&fa, &ma));
	TRY(runf(&fb, &mb));
	TRY(runf(&fa, &ma));
	c[0] = (struct exp_cand){ .key = key_of(&a), .frames = 2, .bytes = 2 * fa.len,
				  .tcp_flags = 0x02, .reason = 1, .port = 2,
				  .conn = NPUFLOW_CONN_NONE, .flags = NPUFLOW_CF_META };
	c[1] = (struct exp_cand){ .key = key_of(&b), .frames = 1, .bytes = fb.len,
				  .tcp_flags = 0x12, .reason = 1, .port = 7,
				  .conn = NPUFLOW_CONN_NONE, .flags = NPUFLOW_CF_META };
	return check_cands(c, 2);
}

static int t_threshold_once(void)
{
	struct fspec s = v4tcp(), s2 = v6tcp();
	struct frame f, f2;
	struct npuflow_meta m = mkmeta(NPUFLOW_R_FLOW_MISS, 1, NPUFLOW_CONN_NONE);
	int i;

	frame_build(&s, &f);
	frame_build(&s2, &f2);
	for (i = 0; i < 3 * THRESH; i++) {
		TRY(runf(&f, &m));
		if (i < THRESH - 1)
			TRY(runf(&f2, &m));	/* stays below */
		if (i + 1 < THRESH)
			CHECK(nev == 0, "event before the threshold (frame %d)", i + 1);
	}
	CHECK(nev == 1, "%d events, want exactly 1", nev);
	CHECK(evs[0].type == NPUFLOW_EV_THRESHOLD, "type %u", evs[0].type);
	CHECK(evs[0].frames == THRESH, "event frames %llu",
	      (unsigned long long)evs[0].frames);
	CHECK(evs[0].bytes == THRESH * f.len, "event bytes %llu",
	      (unsigned long long)evs[0].bytes);
	{
		struct npuflow_key k = key_of(&s);

		CHECK(!memcmp(&evs[0].key, &k, sizeof(k)), "event key");
	}
	CHECK(evs[0].reason == NPUFLOW_R_FLOW_MISS && evs[0].port == 1 &&
	      evs[0].conn == NPUFLOW_CONN_NONE && evs[0].hash == 0xc0ffee01u,
	      "event fields reason %u port %u conn %u hash %#x", evs[0].reason,
	      evs[0].port, evs[0].conn, evs[0].hash);
	{
		struct npuflow_counters c;

		read_slot(1, &c);
		CHECK(c.stat[NPUFLOW_S_THRESHOLD] == 1, "threshold counter %llu",
		      (unsigned long long)c.stat[NPUFLOW_S_THRESHOLD]);
	}
	/*
	 * Deleted and seen again: a new crossing, one more event.  Whoever
	 * deletes a candidate bumps the cache generation (as npuflowd's
	 * re-arm does), or the frames of the rest of this tick would still
	 * count for the deleted one in the per-CPU cache.
	 */
	bpf_map_delete_elem(bpf_map__fd(skel->maps.candidates), &evs[0].key);
	skel->bss->npuflow_cache_gen++;
	for (i = 0; i < THRESH - 1; i++)
		TRY(runf(&f, &m));
	CHECK(nev == 1, "%d events before re-crossing, want 1", nev);
	TRY(runf(&f, &m));
	CHECK(nev == 2, "%d events after re-crossing, want 2", nev);
	CHECK(evs[1].frames == THRESH, "re-crossing event frames %llu",
	      (unsigned long long)evs[1].frames);
	for (i = 0; i < 2 * THRESH; i++)
		TRY(runf(&f, &m));
	CHECK(nev == 2, "%d events after re-crossing, want 2", nev);
	/*
	 * Deleted without a bump (LRU eviction, bpftool): the cached entry is
	 * written back at the next tick, finds its candidate gone and drops
	 * what it held; the candidate is made again from that frame.
	 */
	bpf_map_delete_elem(bpf_map__fd(skel->maps.candidates), &evs[0].key);
	usleep(25 * 1000);	/* > 1 tick at HZ >= 100 */
	for (i = 0; i < THRESH; i++)
		TRY(runf(&f, &m));
	CHECK(nev == 3 && evs[2].frames == THRESH,
	      "%d events after an unannounced deletion, want 3 (frames %llu)", nev,
	      (unsigned long long)evs[nev - 1].frames);
	return 0;
}

/* ---- the per-CPU candidate cache (npuflow.h) -------------------------- */

/* The candidate of @k as the map holds it, without the cache's share. */
static int raw_cand(const struct npuflow_key *k, struct npuflow_cand *v)
{
	memset(v, 0, sizeof(*v));
	return bpf_map_lookup_elem(bpf_map__fd(skel->maps.candidates), k, v);
}

/* Frames the cache holds, all CPUs, all slots. */
static uint64_t cache_frames(void)
{
	struct npuflow_cache *ents;
	size_t n, i;
	uint64_t sum = 0;

	if (npuflow_cache_read(bpf_map__fd(skel->maps.candcache), &ents, &n))
		return UINT64_MAX;
	for (i = 0; i < n; i++)
		sum += ents[i].frames;
	free(ents);
	return sum;
}

static struct exp_cand cand_of(const struct fspec *s, const struct frame *f, uint64_t frames,
			       int reason, int port)
{
	struct exp_cand c = { .key = key_of(s), .frames = frames, .bytes = frames * f->len,
			      .tcp_flags = s->tcp_flags, .reason = reason, .port = port,
			      .conn = NPUFLOW_CONN_NONE,
			      .flags = NPUFLOW_CF_META | NPUFLOW_CF_THRESHOLD };
	return c;
}

/*
 * Send @f until at least @min frames went and the cache holds some of them:
 * a frame in a new clock tick writes the entry back (the map then has every
 * frame).  Reading the cache (1,024 slots, a lookup each) takes longer than
 * a jiffy under the VM's TCG, so a frame sent after a read always starts a
 * new tick and leaves the cache empty (CI saw "never cached" that way).
 * After the first @min, frames go in pairs in one test run: the second of a
 * pair hits unless a tick ends between the two.  Returns the frames sent,
 * or -1.
 */
static int send_until_cached(const struct frame *f, const struct npuflow_meta *m, int min)
{
	int n = 0, k;

	while (n < min + 100) {
		k = n < min ? 1 : 2;
		if (run_n(f->b, f->len, m, k))
			return -1;
		n += k;
		if (n >= min) {
			uint64_t c = cache_frames();

			if (c > 0 && c != UINT64_MAX)
				return n;
		}
	}
	return -1;
}

/*
 * Known candidates after their crossing count in the cache; what the map
 * and the cache hold together is exact, and the map alone is behind.
 */
static int t_cache_known(void)
{
	struct fspec s = v4tcp();
	struct frame f;
	struct npuflow_meta m = mkmeta(NPUFLOW_R_FLOW_MISS, 3, NPUFLOW_CONN_NONE);
	struct npuflow_cand raw;
	struct exp_cand c;
	int i, n1, n2;

	s.tcp_flags = 0x10;
	frame_build(&s, &f);
	n1 = send_until_cached(&f, &m, 200);
	CHECK(n1 > 0, "the cache never held a frame of 300");
	c = cand_of(&s, &f, n1, NPUFLOW_R_FLOW_MISS, 3);
	TRY(check_cands(&c, 1));
	CHECK(!raw_cand(&c.key, &raw), "no candidate in the map");
	CHECK(raw.frames < (uint64_t)n1 && raw.frames + cache_frames() == (uint64_t)n1,
	      "map %llu + cache %llu frames, want %d with the cache used",
	      (unsigned long long)raw.frames, (unsigned long long)cache_frames(), n1);
	CHECK(raw.bytes == raw.frames * f.len, "map bytes %llu for %llu frames",
	      (unsigned long long)raw.bytes, (unsigned long long)raw.frames);
	/* a change is written to the candidate at once: new TCP flags, a reason */
	s.tcp_flags = 0x11;
	frame_build(&s, &f);
	TRY(runf(&f, &m));
	CHECK(!raw_cand(&c.key, &raw) && raw.tcp_flags == 0x11, "FIN not in the map: %#x",
	      raw.tcp_flags);
	m = mkmeta(NPUFLOW_R_TCP_FLAGS, 3, NPUFLOW_CONN_NONE);
	TRY(runf(&f, &m));
	CHECK(!raw_cand(&c.key, &raw) && raw.reason == NPUFLOW_R_TCP_FLAGS,
	      "reason %u in the map", raw.reason);
	m = mkmeta(NPUFLOW_R_FLOW_MISS, 3, NPUFLOW_CONN_NONE);
	TRY(runf(&f, &m));
	CHECK(!raw_cand(&c.key, &raw) && raw.reason == NPUFLOW_R_FLOW_MISS,
	      "reason %u in the map, want flow_miss back", raw.reason);
	for (i = 0; i < 10; i++)
		TRY(runf(&f, &m));
	c = cand_of(&s, &f, n1 + 13, NPUFLOW_R_FLOW_MISS, 3);
	TRY(check_cands(&c, 1));
	/* the next tick's frame writes what the cache held: the map is exact */
	usleep(25 * 1000);
	TRY(runf(&f, &m));
	CHECK(!raw_cand(&c.key, &raw) && raw.frames == (uint64_t)n1 + 14 &&
	      raw.bytes == (n1 + 14) * f.len,
	      "map %llu frames after a tick, want %d", (unsigned long long)raw.frames, n1 + 14);
	/*
	 * Deleted and made again under the same key (here by hand, first_ns
	 * 1) while the entry held frames: they are not the new candidate's.
	 */
	n2 = send_until_cached(&f, &m, 20);
	CHECK(n2 > 0, "nothing cached");
	raw_cand(&c.key, &raw);
	bpf_map_delete_elem(bpf_map__fd(skel->maps.candidates), &c.key);
	raw.frames = raw.bytes = 0;
	raw.first_ns = 1;
	CHECK(!bpf_map_update_elem(bpf_map__fd(skel->maps.candidates), &c.key, &raw, BPF_NOEXIST),
	      "insert");
	usleep(25 * 1000);
	TRY(runf(&f, &m));
	CHECK(!raw_cand(&c.key, &raw) && raw.frames == 1 && raw.bytes == f.len,
	      "the new candidate has %llu frames, want 1", (unsigned long long)raw.frames);
	{
		struct npuflow_counters cn;

		/* the counters count every frame, cached or not */
		read_slot(3, &cn);
		CHECK(cn.frames[NPUFLOW_R_FLOW_MISS] == (uint64_t)n1 + n2 + 14 &&
		      cn.frames[NPUFLOW_R_TCP_FLAGS] == 1 &&
		      cn.stat[NPUFLOW_S_CANDIDATE] == (uint64_t)n1 + n2 + 15 &&
		      cn.stat[NPUFLOW_S_NEW] == 1,
		      "counters: flow_miss %llu tcp_flags %llu candidate %llu new %llu (sent %d + %d)",
		      (unsigned long long)cn.frames[NPUFLOW_R_FLOW_MISS],
		      (unsigned long long)cn.frames[NPUFLOW_R_TCP_FLAGS],
		      (unsigned long long)cn.stat[NPUFLOW_S_CANDIDATE],
		      (unsigned long long)cn.stat[NPUFLOW_S_NEW], n1, n2);
	}
	return 0;
}

/*
 * Two flows on one slot (same hardware hash), interleaved and in runs:
 * each takes the slot from the other, and their counts never mix.
 */
static int t_cache_collision(void)
{
	struct fspec a = v4tcp(), b = v4tcp();
	struct frame fa, fb;
	struct npuflow_meta m = mkmeta(NPUFLOW_R_FLOW_MISS, 5, NPUFLOW_CONN_NONE);
	struct exp_cand c[2];
	struct npuflow_cand ra, rb_;
	int i, n;

	a.tcp_flags = b.tcp_flags = 0x10;
	b.sport = 40002;
	b.payload = 300;		/* other bytes per frame */
	frame_build(&a, &fa);
	frame_build(&b, &fb);
	for (i = 0; i < 100; i++) {
		TRY(runf(&fa, &m));
		TRY(runf(&fb, &m));
	}
	for (i = 0; i < 100; i++)
		TRY(runf(&fa, &m));
	for (i = 0; i < 50; i++)
		TRY(runf(&fb, &m));
	/* a's last run ends with frames in the slot (b's entry went to the map) */
	n = send_until_cached(&fa, &m, 30);
	CHECK(n > 0, "a's last run never cached");
	c[0] = cand_of(&a, &fa, 200 + n, NPUFLOW_R_FLOW_MISS, 5);
	c[1] = cand_of(&b, &fb, 150, NPUFLOW_R_FLOW_MISS, 5);
	TRY(check_cands(c, 2));
	CHECK(!raw_cand(&c[0].key, &ra) && !raw_cand(&c[1].key, &rb_), "candidates");
	CHECK(ra.bytes == ra.frames * fa.len && rb_.bytes == rb_.frames * fb.len,
	      "bytes mixed in the map: a %llu/%llu b %llu/%llu",
	      (unsigned long long)ra.frames, (unsigned long long)ra.bytes,
	      (unsigned long long)rb_.frames, (unsigned long long)rb_.bytes);
	CHECK(ra.frames < (uint64_t)(200 + n),
	      "the cache was not used (a: %llu of %d frames in the map)",
	      (unsigned long long)ra.frames, 200 + n);
	/* b's run was taken out of the slot by a's: all of it is in the map */
	CHECK(rb_.frames == 150, "b: %llu frames in the map, want 150",
	      (unsigned long long)rb_.frames);
	return 0;
}

/* Port @slot's counters, this CPU's copies summed, without the cache's share. */
static void raw_slot(uint32_t slot, struct npuflow_counters *out)
{
	struct npuflow_counters *pc = calloc(ncpu, sizeof(*pc));

	bpf_map_lookup_elem(bpf_map__fd(skel->maps.counters), &slot, pc);
	npuflow_counters_sum(pc, ncpu, out);
	free(pc);
}

/*
 * A cache hit counts in its entry only: the counters plus the entries are
 * exact (as npuctl reads them, per-frame parse stats included), the map's
 * counters alone are behind.  A frame of the same key and hash whose
 * metadata differs in anything else (here the connection index) is no hit:
 * the candidate gets it at once, and the entry's frames go to the counters
 * of the port they came from.
 */
static int t_cache_counters(void)
{
	struct fspec s = v4tcp();
	struct frame f;
	struct npuflow_meta m = mkmeta(NPUFLOW_R_FLOW_MISS, 4, NPUFLOW_CONN_NONE);
	struct npuflow_counters cn, rc;
	struct npuflow_cand raw;
	struct exp_cand c;
	uint64_t n, held, took;
	int i;

	s.tcp_flags = 0x10;
	s.ip_opt_len = 8;
	frame_build(&s, &f);
	i = send_until_cached(&f, &m, 100);
	CHECK(i > 0, "the cache never held a frame of 200");
	n = i;
	read_slot(4, &cn);
	raw_slot(4, &rc);
	CHECK(cn.frames[NPUFLOW_R_FLOW_MISS] == n && cn.bytes[NPUFLOW_R_FLOW_MISS] == n * f.len &&
	      cn.stat[NPUFLOW_S_CANDIDATE] == n && cn.stat[NPUFLOW_S_IP_OPTIONS] == n &&
	      cn.stat[NPUFLOW_S_NEW] == 1,
	      "counters + cache: flow_miss %llu candidate %llu options %llu new %llu",
	      (unsigned long long)cn.frames[NPUFLOW_R_FLOW_MISS],
	      (unsigned long long)cn.stat[NPUFLOW_S_CANDIDATE],
	      (unsigned long long)cn.stat[NPUFLOW_S_IP_OPTIONS],
	      (unsigned long long)cn.stat[NPUFLOW_S_NEW]);
	CHECK(rc.stat[NPUFLOW_S_CANDIDATE] < n &&
	      rc.stat[NPUFLOW_S_CANDIDATE] + cache_frames() == n &&
	      rc.stat[NPUFLOW_S_IP_OPTIONS] == rc.stat[NPUFLOW_S_CANDIDATE] &&
	      rc.frames[NPUFLOW_R_FLOW_MISS] == rc.stat[NPUFLOW_S_CANDIDATE],
	      "the map's counters %llu + cache %llu, want %llu with the cache used",
	      (unsigned long long)rc.stat[NPUFLOW_S_CANDIDATE], (unsigned long long)cache_frames(),
	      (unsigned long long)n);
	/* the cache's own count: what it took, held ones included; never the first frame */
	held = cache_frames();
	CHECK(cn.stat[NPUFLOW_S_CACHED] >= held && cn.stat[NPUFLOW_S_CACHED] < n &&
	      rc.stat[NPUFLOW_S_CACHED] + held == cn.stat[NPUFLOW_S_CACHED],
	      "cached: %llu as read (the map's counters %llu), %llu held, of %llu frames",
	      (unsigned long long)cn.stat[NPUFLOW_S_CACHED],
	      (unsigned long long)rc.stat[NPUFLOW_S_CACHED], (unsigned long long)held,
	      (unsigned long long)n);
	took = cn.stat[NPUFLOW_S_CACHED];
	/* same key and hash, another connection index: not a hit */
	m.conn = 7;
	TRY(runf(&f, &m));
	n++;
	c = cand_of(&s, &f, n, NPUFLOW_R_FLOW_MISS, 4);
	c.flags |= NPUFLOW_CF_IP_OPTIONS;
	c.conn = 7;
	CHECK(!raw_cand(&c.key, &raw) && raw.conn == 7 && raw.frames == n,
	      "map: conn %u frames %llu, want 7 and %llu (no hit)", raw.conn,
	      (unsigned long long)raw.frames, (unsigned long long)n);
	raw_slot(4, &rc);
	CHECK(rc.stat[NPUFLOW_S_CANDIDATE] == n && rc.stat[NPUFLOW_S_IP_OPTIONS] == n &&
	      rc.bytes[NPUFLOW_R_FLOW_MISS] == n * f.len,
	      "the map's counters: %llu candidate frames after the write-back, want %llu",
	      (unsigned long long)rc.stat[NPUFLOW_S_CANDIDATE], (unsigned long long)n);
	CHECK(rc.stat[NPUFLOW_S_CACHED] == took && !cache_frames(),
	      "the map's counters: %llu cached after the write-back, want %llu",
	      (unsigned long long)rc.stat[NPUFLOW_S_CACHED], (unsigned long long)took);
	/* the new metadata is cached: hits again, exact as read */
	i = send_until_cached(&f, &m, 50);
	CHECK(i > 0, "the new metadata never cached");
	n += i;
	c.frames = n;
	c.bytes = n * f.len;
	TRY(check_cands(&c, 1));
	read_slot(4, &cn);
	CHECK(cn.stat[NPUFLOW_S_CANDIDATE] == n && cn.stat[NPUFLOW_S_IP_OPTIONS] == n &&
	      cn.frames[NPUFLOW_R_FLOW_MISS] == n && cache_frames() > 0,
	      "counters + cache: %llu candidate frames, want %llu (cache %llu)",
	      (unsigned long long)cn.stat[NPUFLOW_S_CANDIDATE], (unsigned long long)n,
	      (unsigned long long)cache_frames());
	return 0;
}

/* No metadata (veth), metadata without a hash, and a hash of 0 classify the same. */
static int t_cache_no_hash(void)
{
	struct fspec s = v4tcp();
	struct frame f;
	struct npuflow_meta m = mkmeta(NPUFLOW_R_FLOW_MISS, 4, NPUFLOW_CONN_NONE);
	struct npuflow_cand raw;
	struct exp_cand c;
	int fd = bpf_program__fd(skel->progs.npuflow_classify), i, n;

	s.tcp_flags = 0x10;
	frame_build(&s, &f);
	for (i = 0; i < 50; i++)
		TRY(run_prog(fd, f.b, f.len, NULL, LO_IFINDEX));
	ring_buffer__consume(rb);
	c = cand_of(&s, &f, 50, NPUFLOW_R_NONE, NPUFLOW_PORT_NONE);
	c.flags = NPUFLOW_CF_THRESHOLD;
	TRY(check_cands(&c, 1));
	CHECK(!raw_cand(&c.key, &raw) && raw.frames == 50, "no metadata: map %llu frames",
	      (unsigned long long)raw.frames);
	CHECK(cache_frames() == 0, "no metadata, yet %llu frames in the cache",
	      (unsigned long long)cache_frames());
	CHECK(nev == 1 && evs[0].frames == THRESH, "no metadata: %d events", nev);

	reset_maps();
	m.flags = 0;			/* metadata, but no hash */
	for (i = 0; i < 50; i++)
		TRY(runf(&f, &m));
	c = cand_of(&s, &f, 50, NPUFLOW_R_FLOW_MISS, 4);
	TRY(check_cands(&c, 1));
	CHECK(!raw_cand(&c.key, &raw) && raw.frames == 50 && cache_frames() == 0,
	      "no hash: map %llu frames", (unsigned long long)raw.frames);

	reset_maps();
	m.flags = NPUFLOW_META_F_HASH_L4;
	m.hash = 0;			/* a hash of 0 is a hash: slot 0 */
	n = send_until_cached(&f, &m, 50);
	CHECK(n > 0, "hash 0: the cache never held a frame of 150");
	c.frames = n;
	c.bytes = n * f.len;
	TRY(check_cands(&c, 1));
	CHECK(!raw_cand(&c.key, &raw) && raw.frames < (uint64_t)n &&
	      raw.frames + cache_frames() == (uint64_t)n,
	      "hash 0: map %llu + cache %llu frames, want %d", (unsigned long long)raw.frames,
	      (unsigned long long)cache_frames(), n);
	{
		uint32_t zero = 0;
		struct npuflow_cache *pc = calloc(ncpu, sizeof(*pc));
		uint64_t in0 = 0;
		int cpu;

		bpf_map_lookup_elem(bpf_map__fd(skel->maps.candcache), &zero, pc);
		for (cpu = 0; cpu < ncpu; cpu++)
			in0 += pc[cpu].frames;
		free(pc);
		CHECK(in0 + raw.frames == (uint64_t)n, "hash 0: %llu frames in slot 0",
		      (unsigned long long)in0);
	}
	return 0;
}

/* A cached candidate given back: the first "not active" frame revives. */
static int t_cache_revive(void)
{
	struct fspec s = v4tcp();
	struct frame f;
	struct npuflow_meta m = mkmeta(NPUFLOW_R_FLOW_MISS, 6, NPUFLOW_CONN_NONE);
	int i;

	s.tcp_flags = 0x10;
	frame_build(&s, &f);
	for (i = 0; i < 40; i++)
		TRY(runf(&f, &m));
	CHECK(nev == 1 && evs[0].type == NPUFLOW_EV_THRESHOLD, "%d events", nev);
	m = mkmeta(NPUFLOW_R_NOT_ACTIVE, 6, 99);
	TRY(runf(&f, &m));
	CHECK(nev == 2 && evs[1].type == NPUFLOW_EV_REVIVE && evs[1].conn == 99,
	      "%d events, want the revive at the first frame", nev);
	/* this CPU's share is in the event's count (one CPU here: all of it) */
	CHECK(evs[1].frames >= 1 && evs[1].frames <= 41, "revive frames %llu",
	      (unsigned long long)evs[1].frames);
	for (i = 0; i < 5; i++)
		TRY(runf(&f, &m));
	CHECK(nev == 2, "%d events within the revive gap", nev);
	{
		struct exp_cand c = cand_of(&s, &f, 46, NPUFLOW_R_NOT_ACTIVE, 6);

		c.conn = 99;
		TRY(check_cands(&c, 1));
	}
	return 0;
}

static int t_revive(void)
{
	struct fspec s = v4tcp();
	struct frame f;
	struct npuflow_meta m = mkmeta(NPUFLOW_R_NOT_ACTIVE, 6, 1234);
	struct exp_cand c = {};

	s.tcp_flags = 0x10;
	frame_build(&s, &f);
	TRY(runf(&f, &m));
	TRY(runf(&f, &m));	/* within the gap: no second event */
	CHECK(nev == 1, "%d events, want 1", nev);
	CHECK(evs[0].type == NPUFLOW_EV_REVIVE && evs[0].conn == 1234 &&
	      evs[0].reason == NPUFLOW_R_NOT_ACTIVE && evs[0].port == 6 &&
	      evs[0].frames == 1, "revive event fields: type %u conn %u frames %llu",
	      evs[0].type, evs[0].conn, (unsigned long long)evs[0].frames);
	c.key = key_of(&s);
	c.frames = 2;
	c.bytes = 2 * f.len;
	c.tcp_flags = 0x10;
	c.reason = NPUFLOW_R_NOT_ACTIVE;
	c.port = 6;
	c.conn = 1234;
	c.flags = NPUFLOW_CF_META;
	TRY(check_cands(&c, 1));
	/* "not active" without a connection index: no revive */
	reset_maps();
	m = mkmeta(NPUFLOW_R_NOT_ACTIVE, 6, NPUFLOW_CONN_NONE);
	TRY(runf(&f, &m));
	CHECK(nev == 0, "revive without a connection index");
	/* a known candidate (flow miss first) gets given back: one event */
	reset_maps();
	m = mkmeta(NPUFLOW_R_FLOW_MISS, 6, NPUFLOW_CONN_NONE);
	TRY(runf(&f, &m));
	m = mkmeta(NPUFLOW_R_NOT_ACTIVE, 6, 77);
	TRY(runf(&f, &m));
	TRY(runf(&f, &m));
	CHECK(nev == 1 && evs[0].type == NPUFLOW_EV_REVIVE && evs[0].conn == 77 &&
	      evs[0].frames == 2, "revive on a known candidate: %d events", nev);
	{
		struct npuflow_counters cn;

		read_slot(6, &cn);
		CHECK(cn.stat[NPUFLOW_S_REVIVE] == 1, "revive counter");
	}
	return 0;
}

/* The record sizes and offsets userspace relies on (the values the driver
 * shares, npuflow_meta.h, are checked against npu_hw.h by the driver's build).
 */
static int t_layout(void)
{
	CHECK(sizeof(struct npuflow_meta) == 16, "meta size");
	CHECK(offsetof(struct npuflow_meta, conn) == 12, "meta conn offset");
	CHECK(offsetof(struct npuflow_key, saddr) == 16, "key saddr offset");
	CHECK(sizeof(struct npuflow_key) == 48, "key size");
	return 0;
}

/*
 * The verifier's work on each program, in instructions processed (its
 * log's statistics line): a count, bounded at about three times what
 * it is, so that a change that multiplies the paths it walks (an
 * inlined parse checked once for each L2 header length and each status
 * it leaves: 190,470 and 48,235 here) fails here, not as a slow
 * npuflowd start under emulation (docs/measurements.md, "npuflowd's
 * start and the verifier").
 */
#define VERIFIER_LOG_SIZE	(64 * 1024)

static long verifier_insns(const char *log)
{
	const char *s = strstr(log, "processed ");

	return s ? strtol(s + strlen("processed "), NULL, 10) : -1;
}

static int t_verifier_work(void)
{
	static char lc[VERIFIER_LOG_SIZE], lf[VERIFIER_LOG_SIZE];
	struct classify *s1 = classify__open();
	long nc, nf;

	if (!s1)
		FAIL("open");
	lc[0] = lf[0] = '\0';
	bpf_program__set_log_level(s1->progs.npuflow_classify, 4);
	bpf_program__set_log_buf(s1->progs.npuflow_classify, lc, sizeof(lc));
	bpf_program__set_log_level(s1->progs.npuflow_forwarded, 4);
	bpf_program__set_log_buf(s1->progs.npuflow_forwarded, lf, sizeof(lf));
	bpf_map__set_max_entries(s1->maps.candidates, 1024);
	if (classify__load(s1)) {
		classify__destroy(s1);
		FAIL("load");
	}
	classify__destroy(s1);
	nc = verifier_insns(lc);
	nf = verifier_insns(lf);
	CHECK(nc > 0 && nc <= 40000 && nf > 0 && nf <= 25000,
	      "instructions processed: classifier %ld (at most 40,000), egress watch %ld "
	      "(at most 25,000)", nc, nf);
	return 0;
}

struct test {
	const char *name;
	int (*fn)(void);
};

static int t_ring_full(void);
static int t_ring_full_threshold_one(void);

static const struct test tests[] = {
	{ "layout", t_layout },
	{ "ipv4_tcp", t_v4_tcp },
	{ "ipv4_tcp_known_candidate", t_v4_tcp_known },
	{ "ipv4_udp", t_v4_udp },
	{ "ipv4_icmp_echo", t_v4_icmp_echo },
	{ "ipv4_icmp_error", t_v4_icmp_error },
	{ "ipv4_options", t_v4_options },
	{ "ipv4_options_40_bytes", t_v4_options_max },
	{ "ipv4_first_fragment", t_v4_first_fragment },
	{ "ipv4_later_fragments", t_v4_later_fragment },
	{ "ipv6_tcp", t_v6_tcp },
	{ "ipv6_udp", t_v6_udp },
	{ "ipv6_icmpv6_echo", t_v6_icmp_echo },
	{ "ipv6_icmpv6_neighbour_solicit", t_v6_icmp_ns },
	{ "ipv6_exthdr_hop_routing_dest", t_v6_exthdrs },
	{ "ipv6_exthdr_ah", t_v6_ah },
	{ "ipv6_first_fragment", t_v6_first_fragment },
	{ "ipv6_later_fragment", t_v6_later_fragment },
	{ "ipv6_exthdr_chain_at_bound", t_v6_chain_at_bound },
	{ "ipv6_exthdr_chain_too_long", t_v6_chain_too_long },
	{ "vlan_8021q", t_vlan_single },
	{ "vlan_qinq_8021ad", t_vlan_double },
	{ "vlan_double_8021q", t_vlan_double_8021q },
	{ "vlan_three_tags", t_vlan_triple },
	{ "vlan_8021ad_tpid_in_key", t_vlan_8021ad },
	{ "pppoe_session_ipv4_ipv6", t_pppoe },
	{ "pppoe_session_in_vlan_and_qinq", t_pppoe_vlan },
	{ "pppoe_not_ip", t_pppoe_not_ip },
	{ "pppoe_length_field", t_pppoe_length },
	{ "forwarded_record_without_tags_and_session", t_forwarded_pppoe },
	{ "non_ip", t_non_ip },
	{ "other_l4", t_other_l4 },
	{ "truncated_ipv4_tcp_every_byte", t_trunc_v4_tcp },
	{ "truncated_ipv4_udp_qinq_options_every_byte", t_trunc_v4_udp_vlan },
	{ "truncated_ipv6_tcp_vlan_exthdr_every_byte", t_trunc_v6_tcp_ext },
	{ "truncated_pppoe_every_byte", t_trunc_pppoe_vlan },
	{ "truncated_icmp", t_trunc_icmp },
	{ "malformed", t_malformed },
	{ "no_metadata", t_no_meta },
	{ "bad_metadata", t_bad_meta },
	{ "reason_out_of_range", t_reason_out_of_range },
	{ "both_directions", t_both_directions },
	{ "threshold_event_once_per_crossing", t_threshold_once },
	{ "revive_event", t_revive },
	{ "cache_known_candidate", t_cache_known },
	{ "cache_collision_two_flows_one_slot", t_cache_collision },
	{ "cache_no_metadata_no_hash_hash_0", t_cache_no_hash },
	{ "cache_revive", t_cache_revive },
	{ "cache_counters_and_metadata", t_cache_counters },
	{ "ring_full_threshold_events_lost_marked", t_ring_full },
	{ "ring_full_threshold_one_lost_marked", t_ring_full_threshold_one },
	{ "verifier_work_bounded", t_verifier_work },
};

static int load(void)
{
	skel = classify__open();
	if (!skel)
		return -1;
	skel->rodata->npuflow_threshold = THRESH;
	skel->rodata->npuflow_revive_gap_ns = 10ull * 1000 * 1000 * 1000;
	bpf_map__set_max_entries(skel->maps.candidates, 1024);
	if (classify__load(skel))
		return -1;
	rb = ring_buffer__new(bpf_map__fd(skel->maps.events), on_event, NULL, NULL);
	return rb ? 0 : -1;
}

/* threshold 1: the first frame of a new candidate raises the event */
static int t_threshold_one(void)
{
	struct classify *s1 = classify__open();
	struct ring_buffer *r1;
	struct fspec s = v4tcp();
	struct frame f;
	int err = -1;

	if (!s1)
		FAIL("open");
	s1->rodata->npuflow_threshold = 1;
	if (classify__load(s1)) {
		classify__destroy(s1);
		FAIL("load");
	}
	nev = 0;
	r1 = ring_buffer__new(bpf_map__fd(s1->maps.events), on_event, NULL, NULL);
	frame_build(&s, &f);
	if (r1 && !run_prog(bpf_program__fd(s1->progs.npuflow_classify), f.b, f.len, NULL, 0) &&
	    !run_prog(bpf_program__fd(s1->progs.npuflow_classify), f.b, f.len, NULL, 0)) {
		ring_buffer__consume(r1);
		if (nev == 1 && evs[0].type == NPUFLOW_EV_THRESHOLD && evs[0].frames == 1)
			err = 0;
		else
			snprintf(failmsg, sizeof(failmsg), "%d events", nev);
	}
	ring_buffer__free(r1);
	classify__destroy(s1);
	nev = 0;
	return err;
}

/*
 * A ring too small for a burst: a 4 KiB ring (42 events) and 100 candidates
 * that cross threshold @thr, none consumed meanwhile.  Each crossing either
 * is in the ring or is counted lost and its candidate marked
 * NPUFLOW_CF_EVENT_LOST (npuflowd's rescan looks for the mark): exactly
 * one of the two, per candidate.  @thr 1: the first frame of a new
 * candidate raises it (the insert path).
 */
#define BURST 100
static int ring_full(uint64_t thr)
{
	struct classify *s1 = classify__open();
	struct ring_buffer *r1 = NULL;
	struct npuflow_counters *pc = NULL, sum;
	struct npuflow_key k, next, *prev = NULL;
	struct npuflow_cand v;
	struct fspec sp = v4tcp();
	struct frame f;
	int marked = 0, both = 0, cands = 0, i, j, fd, err = -1;
	uint32_t slot = LO_SLOT;

	if (!s1)
		FAIL("open");
	s1->rodata->npuflow_threshold = thr;
	bpf_map__set_max_entries(s1->maps.events, 4096);
	bpf_map__set_max_entries(s1->maps.candidates, 1024);
	if (classify__load(s1)) {
		classify__destroy(s1);
		FAIL("load");
	}
	nev = 0;
	fd = bpf_program__fd(s1->progs.npuflow_classify);
	for (i = 0; i < BURST; i++) {
		sp.sport = 20000 + i;
		frame_build(&sp, &f);
		for (j = 0; j < (int)thr + 2; j++)
			if (run_prog(fd, f.b, f.len, NULL, 0))
				goto out;
	}
	r1 = ring_buffer__new(bpf_map__fd(s1->maps.events), on_event, NULL, NULL);
	if (!r1) {
		snprintf(failmsg, sizeof(failmsg), "ring_buffer__new");
		goto out;
	}
	ring_buffer__consume(r1);
	pc = calloc(ncpu, sizeof(*pc));
	if (!pc || bpf_map_lookup_elem(bpf_map__fd(s1->maps.counters), &slot, pc)) {
		snprintf(failmsg, sizeof(failmsg), "counters");
		goto out;
	}
	npuflow_counters_sum(pc, ncpu, &sum);
	while (!bpf_map_get_next_key(bpf_map__fd(s1->maps.candidates), prev, &next)) {
		int in_ring = 0;

		k = next;
		prev = &k;
		if (bpf_map_lookup_elem(bpf_map__fd(s1->maps.candidates), &k, &v))
			break;
		cands++;
		for (j = 0; j < nev; j++)
			in_ring |= !memcmp(&evs[j].key, &k, sizeof(k));
		if (!(v.flags & NPUFLOW_CF_THRESHOLD)) {
			snprintf(failmsg, sizeof(failmsg), "sport %u: not over the threshold",
				 ntohs(k.sport));
			goto out;
		}
		marked += !!(v.flags & NPUFLOW_CF_EVENT_LOST);
		both += in_ring == !!(v.flags & NPUFLOW_CF_EVENT_LOST);
	}
	if (cands != BURST || nev < 1 || nev >= BURST || both ||
	    marked != BURST - nev || sum.stat[NPUFLOW_S_THRESHOLD] != (uint64_t)nev ||
	    sum.stat[NPUFLOW_S_EVENT_LOST] != (uint64_t)(BURST - nev)) {
		snprintf(failmsg, sizeof(failmsg), "%d candidates, %d events in the ring, "
			 "%d marked lost, %d both or neither; counted %llu raised, %llu lost "
			 "(want %d = events + marked, none both or neither)", cands, nev,
			 marked, both, (unsigned long long)sum.stat[NPUFLOW_S_THRESHOLD],
			 (unsigned long long)sum.stat[NPUFLOW_S_EVENT_LOST], BURST);
		goto out;
	}
	err = 0;
out:
	free(pc);
	ring_buffer__free(r1);
	classify__destroy(s1);
	nev = 0;
	return err;
}

static int t_ring_full(void)
{
	return ring_full(THRESH);
}

static int t_ring_full_threshold_one(void)
{
	return ring_full(1);
}

int main(int argc, char **argv)
{
	const char *filter = NULL;
	int i, pass = 0, fail = 0, n = 0, total;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-v"))
			verbose = 1;
		else
			filter = argv[i];
	}
	if (!verbose)
		libbpf_set_print(NULL);
	ncpu = libbpf_num_possible_cpus();
	{
		/*
		 * One CPU for the whole run: the cache tests look at what the
		 * map and this CPU's cache entry hold between frames.
		 */
		cpu_set_t set;
		int cpu = sched_getcpu();

		CPU_ZERO(&set);
		CPU_SET(cpu < 0 ? 0 : cpu, &set);
		sched_setaffinity(0, sizeof(set), &set);
	}
	if (ncpu <= 0 || load()) {
		printf("1..0 # SKIP cannot load classify.bpf.o (%s): need root and BPF\n",
		       strerror(errno));
		return 4;
	}
	total = sizeof(tests) / sizeof(tests[0]) + 1;
	printf("TAP version 13\n1..%d\n", total);
	for (i = 0; i < total; i++) {
		const char *name = i < total - 1 ? tests[i].name : "threshold_one";
		int r;

		if (filter && !strstr(name, filter))
			continue;
		n++;
		reset_maps();
		failmsg[0] = casemsg[0] = '\0';
		r = i < total - 1 ? tests[i].fn() : t_threshold_one();
		if (r) {
			printf("not ok %d %s # %s%s\n", i + 1, name, casemsg, failmsg);
			fail++;
		} else {
			printf("ok %d %s\n", i + 1, name);
			pass++;
		}
	}
	printf("# classify: %d passed, %d failed\n", pass, fail);
	ring_buffer__free(rb);
	classify__destroy(skel);
	return fail ? 1 : 0;
}
