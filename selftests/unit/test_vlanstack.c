// SPDX-License-Identifier: GPL-2.0
/*
 * VLAN devices as stacks of tags (loader/vlanstack.c): the device that
 * receives a frame of one or two tags on a port, and the tags a frame
 * routed out of a VLAN device leaves its port with.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>
#include "../../loader/vlanstack.c"

#define AD	NPUFLOW_VLAN_AD

/*
 * Port 3: 802.1Q 10 (dev 21); 802.1ad 100 (22) with 802.1Q 200 (23) on it;
 * 802.1Q 7 (24) with 802.1Q 8 (25) on it, and a third tag 9 (26) on 25;
 * 802.1Q 30 (27) with an 802.1ad 40 (28) on it.  Port 4: 802.1Q 10 (29).
 */
static const struct nls_vlan v[] = {
	{ 21, 3, 10, ETH_P_8021Q, { 0 }, 0 },
	{ 22, 3, 100, ETH_P_8021AD, { 0 }, 0 },
	{ 23, 22, 200, ETH_P_8021Q, { 0 }, 0 },
	{ 24, 3, 7, ETH_P_8021Q, { 0 }, 0 },
	{ 25, 24, 8, ETH_P_8021Q, { 0 }, 0 },
	{ 26, 25, 9, ETH_P_8021Q, { 0 }, 0 },
	{ 27, 3, 30, ETH_P_8021Q, { 0 }, 0 },
	{ 28, 27, 40, ETH_P_8021AD, { 0 }, 0 },
	{ 29, 4, 10, ETH_P_8021Q, { 0 }, 0 },
};
#define N	((int)(sizeof(v) / sizeof(v[0])))

static void stack_in(void **st)
{
	(void)st;
	assert_int_equal(vlanstack_in(v, N, 3, 10, 0), 0);
	assert_int_equal(vlanstack_in(v, N, 4, 10, 0), 8);
	assert_int_equal(vlanstack_in(v, N, 3, 100 | AD, 0), 1);
	assert_int_equal(vlanstack_in(v, N, 3, 100 | AD, 200), 2);
	assert_int_equal(vlanstack_in(v, N, 3, 7, 8), 4);
	/* the TPID is part of the tag */
	assert_int_equal(vlanstack_in(v, N, 3, 100, 200), -1);
	assert_int_equal(vlanstack_in(v, N, 3, 10 | AD, 0), -1);
	/* no device: the host would drop them */
	assert_int_equal(vlanstack_in(v, N, 3, 11, 0), -1);
	assert_int_equal(vlanstack_in(v, N, 3, 100 | AD, 201), -1);
	assert_int_equal(vlanstack_in(v, N, 5, 10, 0), -1);
	/* an inner 802.1ad tag: never keyed */
	assert_int_equal(vlanstack_in(v, N, 3, 30, 40 | AD), -1);
	assert_int_equal(vlanstack_in(v, 0, 3, 10, 0), -1);
}

static void stack_out(void **st)
{
	uint32_t lower;
	uint16_t o, i;

	(void)st;
	assert_int_equal(vlanstack_out(v, N, 3, &lower, &o, &i), 0);
	assert_int_equal(lower, 3);
	assert_int_equal(o, 0);
	assert_int_equal(i, 0);
	assert_int_equal(vlanstack_out(v, N, 21, &lower, &o, &i), 1);
	assert_int_equal(lower, 3);
	assert_int_equal(o, 10);
	assert_int_equal(i, 0);
	assert_int_equal(vlanstack_out(v, N, 22, &lower, &o, &i), 1);
	assert_int_equal(o, 100 | AD);
	assert_int_equal(vlanstack_out(v, N, 23, &lower, &o, &i), 2);
	assert_int_equal(lower, 3);
	assert_int_equal(o, 100 | AD);
	assert_int_equal(i, 200);
	assert_int_equal(vlanstack_out(v, N, 25, &lower, &o, &i), 2);
	assert_int_equal(lower, 3);
	assert_int_equal(o, 7);
	assert_int_equal(i, 8);
	/* three tags; 802.1ad inside a tag */
	assert_int_equal(vlanstack_out(v, N, 26, &lower, &o, &i), -1);
	assert_int_equal(vlanstack_out(v, N, 28, &lower, &o, &i), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(stack_in),
		cmocka_unit_test(stack_out),
	};

	return cmocka_run_group_tests_name("vlanstack", tests, NULL, NULL);
}
