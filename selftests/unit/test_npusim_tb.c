// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the model's trap-policer token bucket
 * (kernel/npusim/tb_pure.c, included directly).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../kernel/npusim/tb_pure.c"

#define S	NPUSIM_TB_NS_PER_S
#define RMAX	16000000
#define BMAX	65536

/* Frames of @n offered evenly over @ns from @t0 that pass. */
static u32 offer(struct npusim_tb *tb, u64 t0, u64 ns, u32 n)
{
	u32 i, pass = 0;

	for (i = 0; i < n; i++)
		pass += npusim_tb_take(tb, t0 + ns * i / n);
	return pass;
}

static void test_off_passes_all(void **state)
{
	struct npusim_tb tb;

	(void)state;
	npusim_tb_set(&tb, 0, 10, RMAX, BMAX, 0);
	assert_int_equal(offer(&tb, 0, 1000, 100000), 100000);
}

static void test_burst_then_rate(void **state)
{
	struct npusim_tb tb;
	u32 pass;

	(void)state;
	npusim_tb_set(&tb, 1000, 50, RMAX, BMAX, 5 * S);
	/* all at one instant: the burst, not one more */
	assert_int_equal(offer(&tb, 5 * S, 0, 500), 50);
	/* 1 s later the bucket holds 50 again (it is capped at the burst) */
	assert_int_equal(offer(&tb, 6 * S, 0, 500), 50);
	/* 10 x the rate for 2 s: rate x time, the bucket empty at the start */
	pass = offer(&tb, 6 * S, 2 * S, 20000);
	assert_true(pass <= 2000 && pass >= 1999);
}

static void test_bound_holds_for_odd_rates(void **state)
{
	static const u32 rates[] = { 1, 3, 7, 999, 33333, 999983, RMAX };
	struct npusim_tb tb;
	unsigned int i;
	u32 pass, max, n;

	(void)state;
	for (i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
		npusim_tb_set(&tb, rates[i], 16, RMAX, BMAX, 0);
		/* offered at 4 x the rate (at least 1,000 frames) for 1 s */
		n = rates[i] < 250 ? 1000 : 4 * rates[i];
		pass = offer(&tb, 0, S, n);
		max = 16 + rates[i];
		if (pass > max || pass + 1 + rates[i] / n < max)
			print_error("rate %u: %u of %u passed, max %u\n", rates[i], pass, n, max);
		assert_true(pass <= max);
		/* and not much below: the last frame comes 1 s / n early */
		assert_true(pass + 1 + rates[i] / n >= max);
	}
}

static void test_clamps(void **state)
{
	struct npusim_tb tb;

	(void)state;
	npusim_tb_set(&tb, 2000000000u, 0, RMAX, BMAX, 0);
	assert_int_equal(tb.rate, RMAX);
	assert_int_equal(tb.burst, 1);
	npusim_tb_set(&tb, 10, 1u << 30, RMAX, BMAX, 0);
	assert_int_equal(tb.burst, BMAX);
	/* the largest bucket does not overflow: 65,536 frames at 1/s */
	npusim_tb_set(&tb, 1, BMAX, RMAX, BMAX, 0);
	assert_int_equal(offer(&tb, 0, 0, BMAX + 5), BMAX);
	assert_true(npusim_tb_take(&tb, 1 * S));
	assert_false(npusim_tb_take(&tb, 1 * S));
}

static void test_time_backwards(void **state)
{
	struct npusim_tb tb;

	(void)state;
	npusim_tb_set(&tb, 10, 1, RMAX, BMAX, 100 * S);
	assert_true(npusim_tb_take(&tb, 100 * S));
	/* a clock read before the last one gains nothing */
	assert_false(npusim_tb_take(&tb, 50 * S));
	assert_false(npusim_tb_take(&tb, 100 * S + S / 20));
	assert_true(npusim_tb_take(&tb, 100 * S + S / 10));
	/* a long idle time only fills the bucket */
	assert_true(npusim_tb_take(&tb, 1000000 * S));
	assert_false(npusim_tb_take(&tb, 1000000 * S));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_off_passes_all),
		cmocka_unit_test(test_burst_then_rate),
		cmocka_unit_test(test_bound_holds_for_odd_rates),
		cmocka_unit_test(test_clamps),
		cmocka_unit_test(test_time_backwards),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
