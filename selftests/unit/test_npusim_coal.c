// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the model's interrupt moderation decisions
 * (kernel/npusim/coal_pure.c, included directly).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../kernel/npusim/coal_pure.c"

static void test_defaults_are_seed_003(void **state)
{
	(void)state;
	assert_int_equal(NPUSIM_COAL_FRAMES_DEFAULT, 32);
	assert_int_equal(NPUSIM_COAL_USECS_DEFAULT, 50);
}

static void test_disabled_never_raises(void **state)
{
	struct npusim_coal c;

	(void)state;
	npusim_coal_init(&c, 1, 0);
	assert_int_equal(npusim_coal_event(&c, 5, 0), 0);
	assert_int_equal(npusim_coal_unmask(&c), 0);
	assert_int_equal(npusim_coal_timer(&c), 0);
	/* enabling with work pending raises at once */
	assert_int_equal(npusim_coal_enable(&c, true), NPUSIM_COAL_RAISE);
	assert_true(c.masked);
	assert_int_equal(c.pending, 0);
}

static void test_per_frame(void **state)
{
	struct npusim_coal c;

	(void)state;
	npusim_coal_init(&c, 0, 0);
	npusim_coal_enable(&c, true);
	assert_int_equal(npusim_coal_event(&c, 1, 0), NPUSIM_COAL_RAISE);
	/* masked: events accumulate, nothing raised */
	assert_int_equal(npusim_coal_event(&c, 1, 0), 0);
	assert_int_equal(npusim_coal_event(&c, 1, 0), 0);
	assert_int_equal(c.pending, 2);
	/* re-arm with work pending: raised again at once */
	assert_int_equal(npusim_coal_unmask(&c), NPUSIM_COAL_RAISE);
	/* re-arm with nothing pending: quiet */
	assert_int_equal(npusim_coal_unmask(&c), 0);
	assert_false(c.masked);
	assert_int_equal(npusim_coal_event(&c, 1, 0), NPUSIM_COAL_RAISE);
}

/* A re-arm that follows no raise (a pass the poll started) keeps moderating. */
static void test_unmask_unmasked_keeps_moderation(void **state)
{
	struct npusim_coal c;
	unsigned int i;

	(void)state;
	npusim_coal_init(&c, 32, 0);
	npusim_coal_enable(&c, true);
	for (i = 1; i < 32; i++) {
		assert_int_equal(npusim_coal_event(&c, 1, 0), 0);
		assert_int_equal(npusim_coal_unmask(&c), 0);
	}
	assert_int_equal(c.pending, 31);
	assert_int_equal(npusim_coal_event(&c, 1, 0), NPUSIM_COAL_RAISE);
	/* masked now: events while masked raise at the re-arm */
	assert_int_equal(npusim_coal_event(&c, 1, 0), 0);
	assert_int_equal(npusim_coal_unmask(&c), NPUSIM_COAL_RAISE);
}

static void test_frames_threshold(void **state)
{
	struct npusim_coal c;
	unsigned int i;

	(void)state;
	npusim_coal_init(&c, 32, 50);
	npusim_coal_enable(&c, true);
	/* first event starts the timer */
	assert_int_equal(npusim_coal_event(&c, 1, 0), NPUSIM_COAL_ARM);
	for (i = 2; i < 32; i++)
		assert_int_equal(npusim_coal_event(&c, 1, 0), 0);
	/* 32nd: raise, and stop the timer */
	assert_int_equal(npusim_coal_event(&c, 1, 0),
			 NPUSIM_COAL_RAISE | NPUSIM_COAL_CANCEL);
	assert_false(c.timer_armed);
	/* a late timer does nothing */
	assert_int_equal(npusim_coal_timer(&c), 0);
	/* a batch reaching the threshold at once */
	npusim_coal_unmask(&c);
	assert_int_equal(npusim_coal_event(&c, 40, 0), NPUSIM_COAL_RAISE);
}

static void test_usecs_threshold(void **state)
{
	struct npusim_coal c;

	(void)state;
	npusim_coal_init(&c, 32, 50);
	npusim_coal_enable(&c, true);
	assert_int_equal(npusim_coal_event(&c, 3, 0), NPUSIM_COAL_ARM);
	assert_int_equal(npusim_coal_event(&c, 3, 0), 0);
	assert_int_equal(npusim_coal_timer(&c), NPUSIM_COAL_RAISE);
	assert_true(c.masked);
	/* masked: no timer is started */
	assert_int_equal(npusim_coal_event(&c, 1, 0), 0);
	assert_false(c.timer_armed);
	assert_int_equal(npusim_coal_unmask(&c), NPUSIM_COAL_RAISE);
}

/* A late timer does not hold a busy vector: events check the time too. */
static void test_usecs_checked_at_events(void **state)
{
	struct npusim_coal c;

	(void)state;
	npusim_coal_init(&c, 32, 50);
	npusim_coal_enable(&c, true);
	assert_int_equal(npusim_coal_event(&c, 1, 1000000), NPUSIM_COAL_ARM);
	assert_int_equal(npusim_coal_event(&c, 1, 1049999), 0);
	assert_int_equal(npusim_coal_event(&c, 1, 1050000),
			 NPUSIM_COAL_RAISE | NPUSIM_COAL_CANCEL);
	/* the clock restarts with the next first event */
	npusim_coal_unmask(&c);
	assert_int_equal(npusim_coal_event(&c, 1, 2000000), NPUSIM_COAL_ARM);
	assert_int_equal(npusim_coal_event(&c, 1, 2000001), 0);
}

static void test_no_time_limit(void **state)
{
	struct npusim_coal c;

	(void)state;
	npusim_coal_init(&c, 4, 0);
	npusim_coal_enable(&c, true);
	assert_int_equal(npusim_coal_event(&c, 3, 0), 0);
	assert_false(c.timer_armed);
	assert_int_equal(npusim_coal_event(&c, 1, 0), NPUSIM_COAL_RAISE);
}

static void test_disable_cancels(void **state)
{
	struct npusim_coal c;

	(void)state;
	npusim_coal_init(&c, 32, 50);
	npusim_coal_enable(&c, true);
	assert_int_equal(npusim_coal_event(&c, 1, 0), NPUSIM_COAL_ARM);
	assert_int_equal(npusim_coal_enable(&c, false), NPUSIM_COAL_CANCEL);
	assert_int_equal(npusim_coal_timer(&c), 0);
}

static void test_set_rejudges(void **state)
{
	struct npusim_coal c;

	(void)state;
	npusim_coal_init(&c, 32, 50);
	npusim_coal_enable(&c, true);
	assert_int_equal(npusim_coal_event(&c, 5, 0), NPUSIM_COAL_ARM);
	/* lowering the threshold below what is pending raises now */
	assert_int_equal(npusim_coal_set(&c, 4, 50),
			 NPUSIM_COAL_CANCEL | NPUSIM_COAL_RAISE);
	npusim_coal_unmask(&c);
	assert_int_equal(npusim_coal_event(&c, 1, 0), NPUSIM_COAL_ARM);
	/* new time limit restarts the timer */
	assert_int_equal(npusim_coal_set(&c, 8, 100),
			 NPUSIM_COAL_CANCEL | NPUSIM_COAL_ARM);
	assert_int_equal(c.usecs, 100);
}

static void test_pending_saturates(void **state)
{
	struct npusim_coal c;

	(void)state;
	npusim_coal_init(&c, 4096, 0);
	npusim_coal_event(&c, 0xfffffff0u, 0);
	npusim_coal_event(&c, 0x100, 0);
	assert_int_equal(c.pending, 0xffffffffu);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults_are_seed_003),
		cmocka_unit_test(test_disabled_never_raises),
		cmocka_unit_test(test_per_frame),
		cmocka_unit_test(test_unmask_unmasked_keeps_moderation),
		cmocka_unit_test(test_frames_threshold),
		cmocka_unit_test(test_usecs_threshold),
		cmocka_unit_test(test_usecs_checked_at_events),
		cmocka_unit_test(test_no_time_limit),
		cmocka_unit_test(test_disable_cancels),
		cmocka_unit_test(test_set_rejudges),
		cmocka_unit_test(test_pending_saturates),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
