// SPDX-License-Identifier: GPL-2.0
/*
 * npuflowd's loop counters (loader/npuflowd_loop.c): a pass's wakeups by
 * cause, its time by part, how often they are written.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <string.h>
#include "../../loader/npuflowd_loop.c"
#include "../../lib/npuflow_names.c"

/* The loop's fds as a pass polls them, all open, none ready. */
static void fds(struct pollfd *pfd)
{
	int i;

	memset(pfd, 0, sizeof(*pfd) * LOOP_FD_MAX);
	for (i = 0; i < LOOP_FD_MAX; i++) {
		pfd[i].fd = 10 + i;
		pfd[i].events = POLLIN;
	}
}

/* A wait that ran out counts as the timeout, and only there. */
static void wake_timeout(void **state)
{
	struct npuflow_loopstats ls = { 0 };
	struct pollfd pfd[LOOP_FD_MAX];
	unsigned int i;

	(void)state;
	fds(pfd);
	loop_count_wakes(&ls, pfd, LOOP_FD_MAX, 0, 0);
	loop_count_wakes(&ls, pfd, LOOP_FD_MAX, 0, 0);
	assert_int_equal(ls.passes, 2);
	assert_int_equal(ls.wakes[NPUFLOW_LW_TIMEOUT], 2);
	for (i = 1; i < NPUFLOW_LW_SLOTS; i++)
		assert_int_equal(ls.wakes[i], 0);
}

/* Each ready fd counts in its own cause's slot; one wait, one pass. */
static void wake_by_fd(void **state)
{
	static const struct { int fd; unsigned int wake; } map[] = {
		{ LOOP_FD_RING, NPUFLOW_LW_RING },
		{ LOOP_FD_CT, NPUFLOW_LW_CT },
		{ LOOP_FD_CTL, NPUFLOW_LW_CTL },
		{ LOOP_FD_CT_CLOSING, NPUFLOW_LW_CT_CLOSING },
		{ LOOP_FD_MON + 0, NPUFLOW_LW_MON_RT },
		{ LOOP_FD_MON + 1, NPUFLOW_LW_MON_XFRM },
		{ LOOP_FD_MON + 2, NPUFLOW_LW_MON_NFT },
	};
	struct npuflow_loopstats ls = { 0 };
	struct pollfd pfd[LOOP_FD_MAX];
	unsigned int i, j;

	(void)state;
	assert_int_equal(sizeof(map) / sizeof(map[0]), LOOP_FD_MAX);
	for (i = 0; i < LOOP_FD_MAX; i++) {
		memset(&ls, 0, sizeof(ls));
		fds(pfd);
		pfd[map[i].fd].revents = POLLIN;
		loop_count_wakes(&ls, pfd, LOOP_FD_MAX, 1, 0);
		assert_int_equal(ls.passes, 1);
		for (j = 0; j < NPUFLOW_LW_SLOTS; j++)
			assert_int_equal(ls.wakes[j], j == map[i].wake);
	}
	/* two at once: each counted, still one pass */
	memset(&ls, 0, sizeof(ls));
	fds(pfd);
	pfd[LOOP_FD_RING].revents = POLLIN;
	pfd[LOOP_FD_MON + 0].revents = POLLIN | POLLERR;
	loop_count_wakes(&ls, pfd, LOOP_FD_MAX, 2, 0);
	assert_int_equal(ls.passes, 1);
	assert_int_equal(ls.wakes[NPUFLOW_LW_RING], 1);
	assert_int_equal(ls.wakes[NPUFLOW_LW_MON_RT], 1);
	assert_int_equal(ls.wakes[NPUFLOW_LW_TIMEOUT], 0);
}

/* A closed fd (-1) is never a cause; a signal is one; another error none. */
static void wake_signal_and_closed(void **state)
{
	struct npuflow_loopstats ls = { 0 };
	struct pollfd pfd[LOOP_FD_MAX];
	unsigned int i, sum = 0;

	(void)state;
	fds(pfd);
	pfd[LOOP_FD_CTL].fd = -1;
	pfd[LOOP_FD_CTL].revents = POLLNVAL;	/* not set by poll for -1: ignored anyway */
	pfd[LOOP_FD_CT].revents = POLLIN;
	loop_count_wakes(&ls, pfd, LOOP_FD_MAX, 1, 0);
	assert_int_equal(ls.wakes[NPUFLOW_LW_CTL], 0);
	assert_int_equal(ls.wakes[NPUFLOW_LW_CT], 1);
	loop_count_wakes(&ls, pfd, LOOP_FD_MAX, -1, EINTR);
	assert_int_equal(ls.wakes[NPUFLOW_LW_SIGNAL], 1);
	loop_count_wakes(&ls, pfd, LOOP_FD_MAX, -1, ENOMEM);
	assert_int_equal(ls.passes, 3);
	for (i = 0; i < NPUFLOW_LW_SLOTS; i++)
		sum += ls.wakes[i];
	assert_int_equal(sum, 2);
}

/* Time by part, the wait apart, an unknown part as "other". */
static void time_parts(void **state)
{
	struct npuflow_loopstats ls = { 0 };

	(void)state;
	loop_count_time(&ls, NPUFLOW_LP_TIMERS, 7);
	loop_count_time(&ls, NPUFLOW_LP_TIMERS, 3);
	loop_count_time(&ls, NPUFLOW_LP_EVENTS, 5);
	loop_count_time(&ls, NPUFLOW_LP_MAX, 1000);
	loop_count_time(&ls, NPUFLOW_LP_MAX + 1, 2);
	assert_int_equal(ls.busy_us[NPUFLOW_LP_TIMERS], 10);
	assert_int_equal(ls.busy_us[NPUFLOW_LP_EVENTS], 5);
	assert_int_equal(ls.busy_us[NPUFLOW_LP_OTHER], 2);
	assert_int_equal(ls.wait_us, 1000);
}

/* Written at the first pass, then once a second (a clock that went back: at once). */
static void due(void **state)
{
	struct npuflow_loopstats ls = { 0 };

	(void)state;
	assert_true(loop_stats_due(&ls, 5));
	ls.updated_ns = 1000000000ull;
	assert_false(loop_stats_due(&ls, 1000000000ull));
	assert_false(loop_stats_due(&ls, 1999999999ull));
	assert_true(loop_stats_due(&ls, 2000000000ull));
	assert_true(loop_stats_due(&ls, 999999999ull));
}

/* Every cause and part has a name; none past the end. */
static void names(void **state)
{
	unsigned int i;

	(void)state;
	for (i = 0; i < NPUFLOW_LW_MAX; i++)
		assert_non_null(loop_wake_name(i));
	assert_null(loop_wake_name(NPUFLOW_LW_MAX));
	for (i = 0; i < NPUFLOW_LP_MAX; i++)
		assert_non_null(loop_part_name(i));
	assert_null(loop_part_name(NPUFLOW_LP_MAX));
	assert_string_equal(loop_wake_name(NPUFLOW_LW_TIMEOUT), "timeout");
	assert_string_equal(loop_wake_name(NPUFLOW_LW_MON_RT), "rtnetlink");
	assert_string_equal(loop_part_name(NPUFLOW_LP_TIMERS), "timers");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(wake_timeout),
		cmocka_unit_test(wake_by_fd),
		cmocka_unit_test(wake_signal_and_closed),
		cmocka_unit_test(time_parts),
		cmocka_unit_test(due),
		cmocka_unit_test(names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
