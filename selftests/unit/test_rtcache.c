// SPDX-License-Identifier: GPL-2.0
/*
 * The flow maker's egress-facts cache (loader/rtcache.c): an entry answers
 * only for its exact key, only while no change was announced and only while
 * younger than the maximum age; a colliding key replaces it.  Routes and
 * neighbours, which rtnetlink announces, have a maximum age of their own.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <arpa/inet.h>
#include <cmocka.h>
#include "../../loader/rtcache.c"

#define MS	1000000ull

static struct rtc c;
static const uint8_t a4[16] = { 10, 0, 1, 2 }, b4[16] = { 10, 0, 2, 2 };
static const uint8_t a6[16] = { 0xfd, 0, [15] = 1 }, b6[16] = { 0xfd, 0, [15] = 2 };

static struct nls_route route(uint32_t oif)
{
	struct nls_route r = { .oif = oif, .type = 1 };

	memcpy(r.nexthop, b4, 4);
	return r;
}

static void test_route_exact_key(void **state)
{
	struct nls_route r = route(8), got;

	(void)state;
	rtc_init(&c, 1000 * MS, 1000 * MS);
	assert_int_equal(rtc_route_get(&c, AF_INET, a4, b4, 3, NULL, 0, &got), -ENOENT);
	rtc_route_put(&c, AF_INET, a4, b4, 3, NULL, 0, &r);
	assert_int_equal(rtc_route_get(&c, AF_INET, a4, b4, 3, NULL, 10 * MS, &got), 0);
	assert_int_equal(got.oif, 8);
	assert_memory_equal(got.nexthop, b4, 4);
	/* another arrival port, the reverse addresses, the other family */
	assert_int_equal(rtc_route_get(&c, AF_INET, a4, b4, 4, NULL, 10 * MS, &got), -ENOENT);
	assert_int_equal(rtc_route_get(&c, AF_INET, b4, a4, 3, NULL, 10 * MS, &got), -ENOENT);
	assert_int_equal(rtc_route_get(&c, AF_INET6, a4, b4, 3, NULL, 10 * MS, &got), -ENOENT);
	assert_int_equal(c.hits, 1);
	assert_int_equal(c.misses, 4);
}

/* The flow a route was asked for is part of its key: another mark or port
 * is another route (policy routing); NULL and a zero flow are the same. */
static void test_route_flow_key(void **state)
{
	struct nls_route r = route(8), r2 = route(5), got;
	struct nls_flow f = { .mark = 1 }, g = { .mark = 1, .proto = 6, .dport = htons(443) };
	struct nls_flow zero = { 0 };

	(void)state;
	rtc_init(&c, 1000 * MS, 1000 * MS);
	rtc_route_put(&c, AF_INET, a4, b4, 3, NULL, 0, &r);
	rtc_route_put(&c, AF_INET, a4, b4, 3, &f, 0, &r2);
	assert_int_equal(rtc_route_get(&c, AF_INET, a4, b4, 3, &zero, 1 * MS, &got), 0);
	assert_int_equal(got.oif, 8);
	assert_int_equal(rtc_route_get(&c, AF_INET, a4, b4, 3, &f, 1 * MS, &got), 0);
	assert_int_equal(got.oif, 5);
	assert_int_equal(rtc_route_get(&c, AF_INET, a4, b4, 3, &g, 1 * MS, &got), -ENOENT);
	rtc_route_put(&c, AF_INET, a4, b4, 3, &g, 1 * MS, &r);
	assert_int_equal(rtc_route_get(&c, AF_INET, a4, b4, 3, &g, 2 * MS, &got), 0);
	assert_int_equal(got.oif, 8);
	assert_int_equal(rtc_route_get(&c, AF_INET, a4, b4, 3, &f, 2 * MS, &got), 0);
	assert_int_equal(got.oif, 5);
}

static void test_stale(void **state)
{
	struct nls_route r = route(8), got;
	uint8_t mac[6] = { 2, 0, 0, 0, 8, 2 }, m[6];

	(void)state;
	rtc_init(&c, 1000 * MS, 1000 * MS);
	rtc_route_put(&c, AF_INET6, a6, b6, 3, NULL, 5 * MS, &r);
	rtc_neigh_put(&c, AF_INET6, 8, b6, 5 * MS, mac);
	assert_int_equal(rtc_neigh_get(&c, AF_INET6, 8, b6, 6 * MS, m), 0);
	assert_memory_equal(m, mac, 6);
	/* aged out: at max age exactly, and a clock that went backwards */
	assert_int_equal(rtc_route_get(&c, AF_INET6, a6, b6, 3, NULL, 1005 * MS, &got), -ENOENT);
	assert_int_equal(rtc_neigh_get(&c, AF_INET6, 8, b6, 4 * MS, m), -ENOENT);
	assert_int_equal(rtc_route_get(&c, AF_INET6, a6, b6, 3, NULL, 1004 * MS, &got), 0);
	/* an announced change makes everything stale, a new put serves again */
	rtc_invalidate(&c);
	assert_int_equal(rtc_route_get(&c, AF_INET6, a6, b6, 3, NULL, 6 * MS, &got), -ENOENT);
	assert_int_equal(rtc_neigh_get(&c, AF_INET6, 8, b6, 6 * MS, m), -ENOENT);
	rtc_neigh_put(&c, AF_INET6, 8, b6, 7 * MS, mac);
	assert_int_equal(rtc_neigh_get(&c, AF_INET6, 8, b6, 8 * MS, m), 0);
	/* max age 0 (no monitor): nothing is ever kept */
	rtc_init(&c, 0, 0);
	rtc_neigh_put(&c, AF_INET6, 8, b6, 7 * MS, mac);
	assert_int_equal(rtc_neigh_get(&c, AF_INET6, 8, b6, 7 * MS, m), -ENOENT);
}

/* Routes and neighbours (announced: an announcement invalidates them) serve
 * up to their own maximum age, longer than the facts' (rtc_fresh: what
 * rtnetlink does not announce, such as a port's qdisc). */
static void test_lookup_max_age(void **state)
{
	struct nls_route r = route(8), got;
	uint8_t mac[6] = { 2, 0, 0, 0, 8, 2 }, m[6];

	(void)state;
	rtc_init(&c, 1000 * MS, 30000 * MS);
	rtc_route_put(&c, AF_INET, a4, b4, 3, NULL, 0, &r);
	rtc_neigh_put(&c, AF_INET, 8, b4, 0, mac);
	assert_false(rtc_fresh(&c, c.gen, 0, 1500 * MS));
	assert_int_equal(rtc_route_get(&c, AF_INET, a4, b4, 3, NULL, 1500 * MS, &got), 0);
	assert_int_equal(rtc_neigh_get(&c, AF_INET, 8, b4, 29999 * MS, m), 0);
	assert_int_equal(rtc_route_get(&c, AF_INET, a4, b4, 3, NULL, 30000 * MS, &got), -ENOENT);
	assert_int_equal(rtc_neigh_get(&c, AF_INET, 8, b4, 30000 * MS, m), -ENOENT);
	/* an announcement still makes them stale at once */
	rtc_route_put(&c, AF_INET, a4, b4, 3, NULL, 0, &r);
	rtc_invalidate(&c);
	assert_int_equal(rtc_route_get(&c, AF_INET, a4, b4, 3, NULL, 1 * MS, &got), -ENOENT);
}

/* A neighbour not resolved now is kept as such for the facts' age only,
 * and its first MAC announced drops it (a move to check); a second
 * unusable note changes nothing. */
static void test_neigh_unresolved(void **state)
{
	uint8_t mac[6] = { 2, 0, 0, 0, 8, 2 }, m[6];

	(void)state;
	rtc_init(&c, 1000 * MS, 30000 * MS);
	rtc_neigh_put(&c, AF_INET, 8, b4, 0, NULL);
	assert_int_equal(rtc_neigh_get(&c, AF_INET, 8, b4, 999 * MS, m), -EAGAIN);
	assert_int_equal(rtc_neigh_get(&c, AF_INET, 8, b4, 1000 * MS, m), -ENOENT);
	rtc_neigh_put(&c, AF_INET, 8, b4, 0, NULL);
	assert_int_equal(rtc_neigh_seen(&c, AF_INET, 8, b4, NULL), 0);
	assert_int_equal(rtc_neigh_get(&c, AF_INET, 8, b4, 1 * MS, m), -EAGAIN);
	assert_int_equal(rtc_neigh_seen(&c, AF_INET, 8, b4, mac), 1);
	assert_int_equal(rtc_neigh_get(&c, AF_INET, 8, b4, 1 * MS, m), -ENOENT);
	/* resolved again: a MAC serves up to the lookups' age */
	rtc_neigh_put(&c, AF_INET, 8, b4, 0, mac);
	assert_int_equal(rtc_neigh_get(&c, AF_INET, 8, b4, 20000 * MS, m), 0);
	assert_memory_equal(m, mac, 6);
}

static void test_collision_replaces(void **state)
{
	uint8_t mac[6] = { 2, 0, 0, 0, 8, 2 }, m[6], addr[16] = { 10, 0, 2, 0 };
	uint32_t first = slot(AF_INET, 8, addr, NULL), i;

	(void)state;
	rtc_init(&c, 1000 * MS, 1000 * MS);
	rtc_neigh_put(&c, AF_INET, 8, addr, 0, mac);
	for (i = 0x201; i < 65536; i++) {	/* past 10.0.2.0 itself */
		addr[2] = i >> 8;
		addr[3] = i;
		if (slot(AF_INET, 8, addr, NULL) == first)
			break;
	}
	assert_true(i < 65536);
	mac[5] = 9;
	rtc_neigh_put(&c, AF_INET, 8, addr, 0, mac);
	assert_int_equal(rtc_neigh_get(&c, AF_INET, 8, addr, 1, m), 0);
	assert_int_equal(m[5], 9);
	addr[2] = 2;
	addr[3] = 0;
	assert_int_equal(rtc_neigh_get(&c, AF_INET, 8, addr, 1, m), -ENOENT);
}

/*
 * A neighbour announcement matters only if it may change a direction's
 * MAC: the cached neighbour, same MAC, still usable, changes nothing; its
 * MAC changed or gone drops its slot; one not cached may be a made
 * connection's whose slot was replaced, so it matters too.  Other slots
 * and the routes are kept.
 */
static void test_neigh_seen(void **state)
{
	uint8_t mac[6] = { 2, 0, 0, 0, 8, 2 }, other[6] = { 2, 0, 0, 0, 8, 3 }, m[6];
	struct nls_route r = route(8), got;

	(void)state;
	rtc_init(&c, 1000 * MS, 1000 * MS);
	rtc_route_put(&c, AF_INET, a4, b4, 3, NULL, 0, &r);
	rtc_neigh_put(&c, AF_INET, 8, b4, 0, mac);
	rtc_neigh_put(&c, AF_INET6, 8, b6, 0, mac);
	/* the same MAC, still usable (REACHABLE -> STALE, a refresh) */
	assert_int_equal(rtc_neigh_seen(&c, AF_INET, 8, b4, mac), 0);
	assert_int_equal(rtc_neigh_get(&c, AF_INET, 8, b4, 1 * MS, m), 0);
	/* a new MAC: the slot goes, the rest stays */
	assert_int_equal(rtc_neigh_seen(&c, AF_INET, 8, b4, other), 1);
	assert_int_equal(rtc_neigh_get(&c, AF_INET, 8, b4, 1 * MS, m), -ENOENT);
	assert_int_equal(rtc_neigh_get(&c, AF_INET6, 8, b6, 1 * MS, m), 0);
	assert_int_equal(rtc_route_get(&c, AF_INET, a4, b4, 3, NULL, 1 * MS, &got), 0);
	/* gone or unusable (FAILED, deleted) */
	assert_int_equal(rtc_neigh_seen(&c, AF_INET6, 8, b6, NULL), 1);
	assert_int_equal(rtc_neigh_get(&c, AF_INET6, 8, b6, 1 * MS, m), -ENOENT);
	/* not cached: a made connection may still use it */
	assert_int_equal(rtc_neigh_seen(&c, AF_INET, 9, b4, mac), 1);
	assert_int_equal(rtc_neigh_seen(&c, AF_INET, 8, a4, NULL), 1);
	/* a slot filled before the last invalidation is not the cache's */
	rtc_neigh_put(&c, AF_INET, 8, b4, 2 * MS, mac);
	rtc_invalidate(&c);
	assert_int_equal(rtc_neigh_seen(&c, AF_INET, 8, b4, mac), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_route_exact_key),
		cmocka_unit_test(test_route_flow_key),
		cmocka_unit_test(test_stale),
		cmocka_unit_test(test_lookup_max_age),
		cmocka_unit_test(test_neigh_unresolved),
		cmocka_unit_test(test_collision_replaces),
		cmocka_unit_test(test_neigh_seen),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
