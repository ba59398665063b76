// SPDX-License-Identifier: GPL-2.0
/*
 * flowmaker_bench - the policy core's cost per decision, natively.
 *
 *   flowmaker_bench [-n CONNS] [-r ROUNDS] [--json FILE] [--md FILE]
 *
 * Per round: CONNS connections made (candidate -> lookup_done -> write_done,
 * three decisions each), a give-back + hold + remake for each, revive
 * events, keepalive reports, then all taken out (DESTROY + forget), with a
 * table sized for CONNS.  Reports ns per decision and the connections/s the
 * core alone could make (the daemon adds conntrack and tc round trips).
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "flowmaker.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void keys(uint32_t i, struct npuflow_key *o, struct npuflow_key *r)
{
	uint32_t a = htonl(0x0a000000 | (i >> 16)), b = htonl(0x0a800001);

	memset(o, 0, sizeof(*o));
	o->ifindex = 3;
	o->family = 2;
	o->proto = 6;
	o->sport = htons(i & 0xffff);
	o->dport = htons(5201);
	memcpy(o->saddr, &a, 4);
	memcpy(o->daddr, &b, 4);
	*r = *o;
	r->ifindex = 8;
	r->sport = o->dport;
	r->dport = o->sport;
	memcpy(r->saddr, &b, 4);
	memcpy(r->daddr, &a, 4);
}

static void nop_cb(void *ctx, enum fm_action a, uint32_t id)
{
	(void)a;
	(void)id;
	++*(uint64_t *)ctx;
}

/* A run: the core, the connections' keys, and what went wrong. */
struct bench {
	struct fm fm;
	struct npuflow_key *ko, *kr;	/* each connection's original and reply key */
	struct fm_lookup l;		/* the lookup result every make gets */
	uint32_t n;
	uint64_t bad;			/* unexpected decisions */
};

/* The best (lowest) ns per decision of each phase over the rounds. */
struct best {
	double make, ka, gb, out;
};

static void keep_best(double *best, uint64_t t0, uint64_t t1, double decisions)
{
	double v = (double)(t1 - t0) / decisions;

	if (v < *best)
		*best = v;
}

/* make: candidate, lookup result, write result; 3 decisions per connection */
static void phase_make(struct bench *b, uint64_t t)
{
	uint32_t i, id;

	for (i = 0; i < b->n; i++) {
		b->l.key[0] = b->ko[i];
		b->l.key[1] = b->kr[i];
		b->l.ct_id = i;
		if (fm_candidate(&b->fm, &b->ko[i], 16, 24000, NPUFLOW_R_FLOW_MISS, t, t, &id) !=
		    FM_A_LOOKUP ||
		    fm_lookup_done(&b->fm, id, &b->l, t) != FM_A_WRITE ||
		    fm_write_done(&b->fm, id, 0, t) != FM_A_REARM)
			b->bad++;
	}
}

/* keepalive + revive: 3 decisions per connection */
static void phase_keepalive(struct bench *b, uint32_t r, uint64_t t)
{
	uint32_t i, id;

	for (i = 0; i < b->n; i++) {
		id = fm_find(&b->fm, &b->ko[i]) - b->fm.e;
		fm_hw_stats(&b->fm, id, 0, 100 + r, 1000, t + 1, t + 2);
		fm_hw_stats(&b->fm, id, 1, 100 + r, 1000, t + 1, t + 2);
		fm_revive(&b->fm, &b->kr[i], t + 3);
	}
}

/* give-back, hold over (tick), remake: 4 decisions + the tick's share; the new time */
static uint64_t phase_giveback(struct bench *b, uint64_t t)
{
	uint64_t cbs = 0;
	uint32_t i, id;

	t += 1000000000ull;
	for (i = 0; i < b->n; i++)
		if (fm_candidate(&b->fm, &b->kr[i], 16, 0, NPUFLOW_R_FLOW_MISS, t, t, &id) !=
		    FM_A_HOLD ||
		    fm_candidate(&b->fm, &b->ko[i], 16, 0, NPUFLOW_R_FLOW_MISS, t + 1, t + 1, &id) !=
		    FM_A_NONE)
			b->bad++;
	t += FM_HOLD_MIN_NS_DEFAULT;
	fm_tick(&b->fm, t, nop_cb, &cbs);
	if (cbs != b->n)
		b->bad++;
	for (i = 0; i < b->n; i++) {
		id = fm_find(&b->fm, &b->ko[i]) - b->fm.e;
		b->l.key[0] = b->ko[i];
		b->l.key[1] = b->kr[i];
		if (fm_lookup_done(&b->fm, id, &b->l, t) != FM_A_WRITE ||
		    fm_write_done(&b->fm, id, 0, t) != FM_A_REARM)
			b->bad++;
	}
	return t;
}

/* takeout: DESTROY + forget, 2 decisions per connection; the table ends empty */
static void phase_takeout(struct bench *b, uint64_t t)
{
	struct npuflow_key ctk;
	uint32_t i, id;

	for (i = 0; i < b->n; i++) {
		fm_ct_key(&ctk, &b->ko[i], 0);
		if (fm_destroy(&b->fm, &ctk, t, &id) != FM_A_TAKEOUT)
			b->bad++;
		fm_forget(&b->fm, id);
	}
}

/* A round at time @t of every phase, each timed. */
static void round_run(struct bench *b, uint32_t r, struct best *best)
{
	uint64_t t0, t = 1000000000ull * (r + 1) * 1000;
	double n = b->n;

	t0 = now_ns();
	phase_make(b, t);
	keep_best(&best->make, t0, now_ns(), 3.0 * n);
	t0 = now_ns();
	phase_keepalive(b, r, t);
	keep_best(&best->ka, t0, now_ns(), 3.0 * n);
	t0 = now_ns();
	t = phase_giveback(b, t);
	keep_best(&best->gb, t0, now_ns(), 5.0 * n);
	t0 = now_ns();
	phase_takeout(b, t);
	keep_best(&best->out, t0, now_ns(), 2.0 * n);
	if (b->fm.nused)
		b->bad++;
}

static int bench_init(struct bench *b, uint32_t n)
{
	struct fm_cfg cfg;
	uint32_t i;

	memset(b, 0, sizeof(*b));
	b->n = n;
	b->ko = calloc(n, sizeof(*b->ko));
	b->kr = calloc(n, sizeof(*b->kr));
	fm_cfg_init(&cfg);
	cfg.max_conns = n;
	if (!b->ko || !b->kr || fm_init(&b->fm, &cfg))
		return -1;
	for (i = 0; i < n; i++)
		keys(i, &b->ko[i], &b->kr[i]);
	b->l.ct_flags = FM_CT_FOUND | FM_CT_ESTABLISHED | FM_CT_ASSURED;
	b->l.out_ifindex[0] = 8;
	b->l.out_ifindex[1] = 3;
	b->l.routed = 1;
	return 0;
}

static void report(uint32_t n, uint32_t rounds, const struct best *b, const char *md,
		   const char *json)
{
	double cps = 1e9 / (3 * b->make);
	FILE *f;

	printf("| flow maker core, %u connections, best of %u rounds | ns/decision |\n"
	       "|---|---|\n"
	       "| make (candidate, lookup result, write result) | %.1f |\n"
	       "| keepalive report / revive event | %.1f |\n"
	       "| give-back, hold, tick, remake | %.1f |\n"
	       "| takeout (DESTROY, forget) | %.1f |\n"
	       "| connections made per second by the core alone | %.0f |\n",
	       n, rounds, b->make, b->ka, b->gb, b->out, cps);
	f = md ? fopen(md, "w") : NULL;
	if (f) {
		fprintf(f, "# Flow maker policy core (native)\n\n"
			"| %u connections, best of %u rounds | ns/decision |\n|---|---|\n"
			"| make (3 decisions per connection) | %.1f |\n"
			"| keepalive report / revive event | %.1f |\n"
			"| give-back, hold, tick, remake | %.1f |\n"
			"| takeout (DESTROY, forget) | %.1f |\n"
			"| connections/s (core alone) | %.0f |\n",
			n, rounds, b->make, b->ka, b->gb, b->out, cps);
		fclose(f);
	}
	f = json ? fopen(json, "w") : NULL;
	if (f) {
		fprintf(f, "{\"conns\":%u,\"rounds\":%u,\"make_ns\":%.1f,"
			"\"keepalive_ns\":%.1f,\"giveback_ns\":%.1f,\"takeout_ns\":%.1f,"
			"\"conns_per_s\":%.0f}\n", n, rounds, b->make, b->ka, b->gb, b->out, cps);
		fclose(f);
	}
}

int main(int argc, char **argv)
{
	struct best best = { 1e18, 1e18, 1e18, 1e18 };
	const char *json = NULL, *md = NULL;
	uint32_t n = 65536, rounds = 5, r;
	struct bench b;
	int a;

	for (a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "-n") && a + 1 < argc)
			n = strtoul(argv[++a], NULL, 0);
		else if (!strcmp(argv[a], "-r") && a + 1 < argc)
			rounds = strtoul(argv[++a], NULL, 0);
		else if (!strcmp(argv[a], "--json") && a + 1 < argc)
			json = argv[++a];
		else if (!strcmp(argv[a], "--md") && a + 1 < argc)
			md = argv[++a];
		else {
			fprintf(stderr, "usage: flowmaker_bench [-n CONNS] [-r ROUNDS] "
				"[--json FILE] [--md FILE]\n");
			return 2;
		}
	}
	if (bench_init(&b, n))
		return 1;
	for (r = 0; r < rounds; r++)
		round_run(&b, r, &best);
	report(n, rounds, &best, md, json);
	if (b.bad)
		printf("ERROR: %llu unexpected decisions\n", (unsigned long long)b.bad);
	fm_free(&b.fm);
	return b.bad ? 1 : 0;
}
