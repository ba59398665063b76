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

int main(int argc, char **argv)
{
	uint32_t n = 65536, rounds = 5, i, id;
	const char *json = NULL, *md = NULL;
	double best_make = 1e18, best_gb = 1e18, best_out = 1e18, best_ka = 1e18;
	struct npuflow_key *ko, *kr;
	struct fm_cfg cfg;
	struct fm fm;
	uint64_t cbs = 0, bad = 0;
	uint32_t r;
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
	ko = calloc(n, sizeof(*ko));
	kr = calloc(n, sizeof(*kr));
	fm_cfg_init(&cfg);
	cfg.max_conns = n;
	if (!ko || !kr || fm_init(&fm, &cfg))
		return 1;
	for (i = 0; i < n; i++)
		keys(i, &ko[i], &kr[i]);

	for (r = 0; r < rounds; r++) {
		uint64_t t0, t1, t = 1000000000ull * (r + 1) * 1000;
		struct fm_lookup l;

		memset(&l, 0, sizeof(l));
		l.ct_flags = FM_CT_FOUND | FM_CT_ESTABLISHED | FM_CT_ASSURED;
		l.out_ifindex[0] = 8;
		l.out_ifindex[1] = 3;
		l.routed = 1;

		/* make: 3 decisions per connection */
		t0 = now_ns();
		for (i = 0; i < n; i++) {
			l.key[0] = ko[i];
			l.key[1] = kr[i];
			l.ct_id = i;
			if (fm_candidate(&fm, &ko[i], 16, 24000, NPUFLOW_R_FLOW_MISS, t, t, &id) !=
			    FM_A_LOOKUP ||
			    fm_lookup_done(&fm, id, &l, t) != FM_A_WRITE ||
			    fm_write_done(&fm, id, 0, t) != FM_A_REARM)
				bad++;
		}
		t1 = now_ns();
		if ((double)(t1 - t0) / (3.0 * n) < best_make)
			best_make = (double)(t1 - t0) / (3.0 * n);

		/* keepalive + revive: 3 decisions per connection */
		t0 = now_ns();
		for (i = 0; i < n; i++) {
			id = fm_find(&fm, &ko[i]) - fm.e;
			fm_hw_stats(&fm, id, 0, 100 + r, 1000, t + 1, t + 2);
			fm_hw_stats(&fm, id, 1, 100 + r, 1000, t + 1, t + 2);
			fm_revive(&fm, &kr[i], t + 3);
		}
		t1 = now_ns();
		if ((double)(t1 - t0) / (3.0 * n) < best_ka)
			best_ka = (double)(t1 - t0) / (3.0 * n);

		/* give-back, hold over (tick), remake: 4 decisions + the tick's share */
		t0 = now_ns();
		t += 1000000000ull;
		for (i = 0; i < n; i++)
			if (fm_candidate(&fm, &kr[i], 16, 0, NPUFLOW_R_FLOW_MISS, t, t, &id) !=
			    FM_A_HOLD ||
			    fm_candidate(&fm, &ko[i], 16, 0, NPUFLOW_R_FLOW_MISS, t + 1, t + 1, &id) !=
			    FM_A_NONE)
				bad++;
		t += FM_HOLD_MIN_NS_DEFAULT;
		cbs = 0;
		fm_tick(&fm, t, nop_cb, &cbs);
		if (cbs != n)
			bad++;
		for (i = 0; i < n; i++) {
			id = fm_find(&fm, &ko[i]) - fm.e;
			l.key[0] = ko[i];
			l.key[1] = kr[i];
			if (fm_lookup_done(&fm, id, &l, t) != FM_A_WRITE ||
			    fm_write_done(&fm, id, 0, t) != FM_A_REARM)
				bad++;
		}
		t1 = now_ns();
		if ((double)(t1 - t0) / (5.0 * n) < best_gb)
			best_gb = (double)(t1 - t0) / (5.0 * n);

		/* takeout: DESTROY + forget */
		t0 = now_ns();
		for (i = 0; i < n; i++) {
			struct npuflow_key ctk;

			fm_ct_key(&ctk, &ko[i], 0);
			if (fm_destroy(&fm, &ctk, t, &id) != FM_A_TAKEOUT)
				bad++;
			fm_forget(&fm, id);
		}
		t1 = now_ns();
		if ((double)(t1 - t0) / (2.0 * n) < best_out)
			best_out = (double)(t1 - t0) / (2.0 * n);
		if (fm.nused)
			bad++;
	}
	printf("| flow maker core, %u connections, best of %u rounds | ns/decision |\n"
	       "|---|---|\n"
	       "| make (candidate, lookup result, write result) | %.1f |\n"
	       "| keepalive report / revive event | %.1f |\n"
	       "| give-back, hold, tick, remake | %.1f |\n"
	       "| takeout (DESTROY, forget) | %.1f |\n"
	       "| connections made per second by the core alone | %.0f |\n",
	       n, rounds, best_make, best_ka, best_gb, best_out, 1e9 / (3 * best_make));
	if (bad)
		printf("ERROR: %llu unexpected decisions\n", (unsigned long long)bad);
	if (md) {
		FILE *f = fopen(md, "w");

		if (f) {
			fprintf(f, "# Flow maker policy core (native)\n\n"
				"| %u connections, best of %u rounds | ns/decision |\n|---|---|\n"
				"| make (3 decisions per connection) | %.1f |\n"
				"| keepalive report / revive event | %.1f |\n"
				"| give-back, hold, tick, remake | %.1f |\n"
				"| takeout (DESTROY, forget) | %.1f |\n"
				"| connections/s (core alone) | %.0f |\n",
				n, rounds, best_make, best_ka, best_gb, best_out,
				1e9 / (3 * best_make));
			fclose(f);
		}
	}
	if (json) {
		FILE *f = fopen(json, "w");

		if (f) {
			fprintf(f, "{\"conns\":%u,\"rounds\":%u,\"make_ns\":%.1f,"
				"\"keepalive_ns\":%.1f,\"giveback_ns\":%.1f,\"takeout_ns\":%.1f,"
				"\"conns_per_s\":%.0f}\n", n, rounds, best_make, best_ka, best_gb,
				best_out, 1e9 / (3 * best_make));
			fclose(f);
		}
	}
	fm_free(&fm);
	return bad ? 1 : 0;
}
