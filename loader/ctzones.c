// SPDX-License-Identifier: GPL-2.0
/*
 * ctzones.c - the conntrack zones seen in use (see ctzones.h).
 */
#include "ctzones.h"
#include "../lib/npuflow_time.h"

void ctz_seen(struct ctzones *z, uint16_t zone, uint64_t now)
{
	int i, oldest = -1;

	if (!zone)
		return;
	for (i = 0; i < z->n; i++) {
		if (z->zone[i] == zone) {
			z->seen_ns[i] = now;
			return;
		}
		if (npuflow_since(now, z->seen_ns[i]) >= CTZ_TTL_NS && oldest < 0)
			oldest = i;
	}
	if (z->n < CTZ_MAX)
		oldest = z->n++;
	if (oldest < 0) {
		z->overflow_ns = now;
		return;
	}
	z->zone[oldest] = zone;
	z->seen_ns[oldest] = now;
}

int ctz_active(struct ctzones *z, uint64_t now, uint16_t *out)
{
	int i, n = 0;

	if (z->overflow_ns && npuflow_since(now, z->overflow_ns) < CTZ_TTL_NS)
		return -1;
	for (i = 0; i < z->n; i++)
		if (npuflow_since(now, z->seen_ns[i]) < CTZ_TTL_NS)
			out[n++] = z->zone[i];
	return n;
}
