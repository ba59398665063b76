/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rtcache.h - the egress facts the flow maker looks up for every connection
 * it makes (route, next hop's MAC), kept between connections.  Pure data, no
 * syscalls: fmd.c fills it from rtnetlink answers and invalidates it when
 * rtnetlink announces a change (nls_monitor_changed()).
 *
 * Why: making one connection asked rtnetlink 8 questions of this kind (both
 * directions: route, egress link, its qdiscs, neighbour), 4 of them the same
 * for every connection between the same two hosts; under the VM's TCG each
 * round trip costs a wake-up of npuflowd on a CPU the forwarding shares.
 *
 * An entry serves while the cache's generation is the one it was filled at
 * and it is younger than its maximum age.  Routes and neighbours, which
 * rtnetlink announces (a lost announcement is an ENOBUFS the monitor
 * counts as a change), serve up to @lookup_max_age_ns; the facts kept
 * beside them (rtc_fresh(): a port's link and shaping, the 802.1Q devices)
 * up to @max_age_ns, the bound on what rtnetlink does not announce to the
 * monitor, such as a qdisc change.  Direct-mapped: a colliding key
 * replaces the slot.
 */
#ifndef _RTCACHE_H
#define _RTCACHE_H

#include <stdint.h>
#include "nlsock.h"

#define RTC_SLOTS	1024	/* per kind; a power of two */

struct rtc_route_slot {
	uint8_t used, family;
	uint32_t iif;
	struct nls_flow f;
	uint8_t src[16], dst[16];
	struct nls_route r;
	uint64_t gen, at_ns;
};

struct rtc_neigh_slot {
	uint8_t used, family, unresolved;
	uint32_t ifindex;
	uint8_t addr[16];
	uint8_t mac[6];
	uint64_t gen, at_ns;
};

struct rtc {
	uint64_t gen;			/* bumped by rtc_invalidate() */
	uint64_t max_age_ns;		/* rtc_fresh()'s facts */
	uint64_t lookup_max_age_ns;	/* routes and neighbours */
	uint64_t hits, misses;
	struct rtc_route_slot route[RTC_SLOTS];
	struct rtc_neigh_slot neigh[RTC_SLOTS];
};

/* Empty: routes and neighbours serving at most @lookup_max_age_ns, the
 * facts of rtc_fresh() at most @max_age_ns (0: nothing is kept). */
void rtc_init(struct rtc *c, uint64_t max_age_ns, uint64_t lookup_max_age_ns);
/* Everything looked up so far is stale (rtnetlink announced a change). */
void rtc_invalidate(struct rtc *c);
/* Whether a fact filled at generation @gen and time @at_ns still serves
 * (@max_age_ns). */
int rtc_fresh(const struct rtc *c, uint64_t gen, uint64_t at_ns, uint64_t now_ns);

/*
 * The route of a frame of @family (AF_INET, AF_INET6) from @src to @dst
 * arriving on @iif (addresses 4 or 16 bytes), of flow @f as the route was
 * asked for (NULL: any): 0 and *@out if cached and fresh, -ENOENT if not
 * (a miss is counted).
 */
int rtc_route_get(struct rtc *c, int family, const uint8_t *src, const uint8_t *dst,
		  uint32_t iif, const struct nls_flow *f, uint64_t now_ns, struct nls_route *out);
void rtc_route_put(struct rtc *c, int family, const uint8_t *src, const uint8_t *dst,
		   uint32_t iif, const struct nls_flow *f, uint64_t now_ns,
		   const struct nls_route *r);

/*
 * The MAC of neighbour @addr on @ifindex, as rtc_route_get(); -EAGAIN
 * (counted a hit) while it is cached as not resolved, for at most the
 * facts' @max_age_ns: a probe's answer may come any moment.
 */
int rtc_neigh_get(struct rtc *c, int family, uint32_t ifindex, const uint8_t *addr,
		  uint64_t now_ns, uint8_t mac[6]);
/* Neighbour @addr on @ifindex has @mac, or is not resolved now (NULL: no
 * entry, or one incomplete or failed). */
void rtc_neigh_put(struct rtc *c, int family, uint32_t ifindex, const uint8_t *addr,
		   uint64_t now_ns, const uint8_t mac[6]);
/*
 * rtnetlink announced neighbour @addr on @ifindex with @mac (NULL: deleted,
 * or in a state without a usable MAC).  0 if that changes no direction's
 * MAC: the neighbour is cached at this generation with the same MAC, or
 * as not resolved and still without one; 1 if it may: the cached MAC
 * differs or is gone, or an unresolved one has a MAC now (the slot is
 * dropped), or the
 * neighbour is not cached (a made connection's may have lost its slot to
 * a colliding key).  Nothing else is touched: a neighbour's refresh
 * (REACHABLE to STALE and back) keeps the routes and the other neighbours.
 */
int rtc_neigh_seen(struct rtc *c, int family, uint32_t ifindex, const uint8_t *addr,
		   const uint8_t *mac);

#endif
