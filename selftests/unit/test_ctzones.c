// SPDX-License-Identifier: GPL-2.0
/*
 * The conntrack zones seen in use (loader/ctzones.c): zone 0 not recorded,
 * a zone seen again refreshed, forgotten after CTZ_TTL_NS, its slot reused,
 * and more zones at once than CTZ_MAX told as -1 until they age out.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "../../loader/ctzones.c"

#define S	1000000000ull

static void test_seen_and_aged(void **st)
{
	struct ctzones z;
	uint16_t out[CTZ_MAX];

	(void)st;
	memset(&z, 0, sizeof(z));
	ctz_seen(&z, 0, 1 * S);
	assert_int_equal(ctz_active(&z, 1 * S, out), 0);
	ctz_seen(&z, 5, 1 * S);
	ctz_seen(&z, 7, 2 * S);
	ctz_seen(&z, 5, 300 * S);
	assert_int_equal(ctz_active(&z, 300 * S, out), 2);
	assert_int_equal(out[0], 5);
	assert_int_equal(out[1], 7);
	/* 7 ages out; 5, seen again at 300 s, stays */
	assert_int_equal(ctz_active(&z, 2 * S + CTZ_TTL_NS, out), 1);
	assert_int_equal(out[0], 5);
	assert_int_equal(ctz_active(&z, 300 * S + CTZ_TTL_NS, out), 0);
}

static void test_overflow(void **st)
{
	struct ctzones z;
	uint16_t out[CTZ_MAX];
	int i;

	(void)st;
	memset(&z, 0, sizeof(z));
	for (i = 1; i <= CTZ_MAX; i++)
		ctz_seen(&z, i, 10 * S);
	assert_int_equal(ctz_active(&z, 10 * S, out), CTZ_MAX);
	ctz_seen(&z, 100, 11 * S);			/* no room */
	assert_int_equal(ctz_active(&z, 11 * S, out), -1);
	/* all age out: the next zone takes a slot, the overflow is over */
	ctz_seen(&z, 100, 12 * S + CTZ_TTL_NS);
	assert_int_equal(ctz_active(&z, 12 * S + CTZ_TTL_NS, out), 1);
	assert_int_equal(out[0], 100);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seen_and_aged),
		cmocka_unit_test(test_overflow),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
