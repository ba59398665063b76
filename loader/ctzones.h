/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ctzones.h - the conntrack zones npuflowd has seen in use.  The
 * coprocessor's table has no zone: a tuple that conntrack holds in zone 0
 * and in another zone belongs to two connections, and npuflowd must not
 * write zone 0's NAT and state for the other's frames.  npuflowd looks
 * candidates up in zone 0 and learns the other zones in use from what
 * conntrack already tells it (its dumps, its DESTROY and closing events),
 * so that only where zones are in use does a lookup cost more: the tuple
 * asked again in each of them.  Pure C (selftests/unit/test_ctzones.c).
 */
#ifndef _CTZONES_H
#define _CTZONES_H

#include <stdint.h>

/* Zones remembered at most; more in use at once: every lookup refused. */
#define CTZ_MAX		16
/* A zone not seen again for this long is forgotten (ns). */
#define CTZ_TTL_NS	(600ull * 1000000000)

struct ctzones {
	uint16_t zone[CTZ_MAX];
	uint64_t seen_ns[CTZ_MAX];
	int n;
	uint64_t overflow_ns;		/* last time a zone found no room */
};

/* Zone @zone seen in use at @now (zone 0 is not recorded). */
void ctz_seen(struct ctzones *z, uint16_t zone, uint64_t now);
/*
 * The zones other than 0 seen within CTZ_TTL_NS of @now, into @out (room
 * for CTZ_MAX): how many, or -1 if more were in use than CTZ_MAX holds
 * (then nothing can be told apart).
 */
int ctz_active(struct ctzones *z, uint64_t now, uint16_t *out);

#endif
