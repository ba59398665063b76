// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the driver's totals of a connection's counters
 * (kernel/npuep/flow_count_pure.c, included directly): reads of the
 * device's statistics area, each under the revision the device counted
 * under, added to totals that run on across the connection's rewrites.
 * Each case is a sequence of reads of one connection; the second
 * direction's counts are a tenth of the first's and its bytes 100 a frame.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "../../kernel/npuep/flow_count_pure.c"
#include "case_table.h"

#define READS_MAX	4

/* One read of the area: the revision and direction 0's frames. */
struct read {
	u16 rev;
	u64 pkts;
	bool moved;	/* what npuep_conn_count() returns */
};

/*
 * struct ccase - reads of one connection, from a fresh one
 * @name: the case
 * @reads: the reads, in order (a rev of 0 ends them)
 * @total: direction 0's total frames after them
 */
struct ccase {
	const char *name;
	struct read reads[READS_MAX];
	u64 total;
};

static const struct ccase ccases[] = {
	{ "one revision: each read adds what moved",
	  { { 1, 10, true }, { 1, 15, true }, { 1, 15, false } }, 15 },
	/* the bug this file exists for: the second direction's write */
	{ "a new revision starts from zero: what the old one counted stays",
	  { { 1, 100, true }, { 2, 7, true } }, 107 },
	{ "a new revision read before it counted a frame",
	  { { 1, 100, true }, { 2, 0, false }, { 2, 30, true } }, 130 },
	{ "a refused write: the device counts on under the old revision",
	  { { 1, 100, true }, { 1, 120, true } }, 120 },
	{ "a counter that went back under one revision counts from zero",
	  { { 1, 100, true }, { 1, 30, true } }, 130 },
	{ "two rewrites, each read",
	  { { 3, 40, true }, { 4, 10, true }, { 5, 20, true }, { 5, 25, true } }, 75 },
};

static void test_count(void **state)
{
	const struct ccase *c = *state;
	struct npuep_conn_count n = {};
	u64 pkts[2], bytes[2];
	int i;

	for (i = 0; i < READS_MAX && c->reads[i].rev; i++) {
		pkts[0] = c->reads[i].pkts;
		pkts[1] = c->reads[i].pkts / 10;
		bytes[0] = pkts[0] * 100;
		bytes[1] = pkts[1] * 100;
		assert_int_equal(npuep_conn_count(&n, c->reads[i].rev, pkts, bytes),
				 c->reads[i].moved);
		assert_int_equal(n.dev_rev, c->reads[i].rev);
	}
	assert_int_equal(n.pkts[0], c->total);
	assert_int_equal(n.bytes[0], c->total * 100);
}

/* The second direction joins: its frames from its write on, the first's kept. */
static void test_join(void **state)
{
	struct npuep_conn_count n = {};
	u64 p1[2] = { 100, 0 }, b1[2] = { 9200, 0 };
	u64 p2[2] = { 5, 50 }, b2[2] = { 460, 4600 };

	(void)state;
	assert_true(npuep_conn_count(&n, 1, p1, b1));
	assert_true(npuep_conn_count(&n, 2, p2, b2));
	assert_int_equal(n.pkts[0], 105);
	assert_int_equal(n.pkts[1], 50);
	assert_int_equal(n.bytes[0], 9660);
	assert_int_equal(n.bytes[1], 4600);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_join),
	};
	struct CMUnitTest ctests[ARRAY_SIZE(ccases)];

	CASE_TESTS(ctests, ccases, test_count);
	return cmocka_run_group_tests(tests, NULL, NULL) |
	       cmocka_run_group_tests_name("npuep_conn_count reads", ctests, NULL, NULL);
}
