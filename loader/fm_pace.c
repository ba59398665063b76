// SPDX-License-Identifier: GPL-2.0
/*
 * fm_pace.c - when npuflowd's passes run and when a made connection's
 * conntrack timeout is refreshed (see flowmaker.h).  Pure C, no state: each
 * function answers from the times it is given.
 */
#include "flowmaker.h"

uint64_t fm_pace_next(uint64_t now, uint64_t period, uint64_t took, uint64_t bound)
{
	return fm_pace_next_share(now, period, took, bound, FM_PACE_SHARE);
}

uint64_t fm_pace_next_share(uint64_t now, uint64_t period, uint64_t took, uint64_t bound,
			    uint32_t share)
{
	uint64_t gap = took > UINT64_MAX / share ? UINT64_MAX : took * share;

	if (gap > bound)
		gap = bound;
	if (gap < period)
		gap = period;
	return gap > UINT64_MAX - now ? UINT64_MAX : now + gap;
}

uint64_t fm_pace_gap(uint64_t took, uint32_t share, uint64_t whole, uint64_t bound)
{
	uint64_t stretch = share > 1 ? share - 1 : 0;

	if (whole && bound != UINT64_MAX && bound / whole <= stretch)
		stretch = bound / whole > 1 ? bound / whole - 1 : 0;
	return took > UINT64_MAX / (stretch ? stretch : 1) ? UINT64_MAX : took * stretch;
}

uint64_t fm_keepalive_bound(uint32_t tcp_s, uint32_t udp_s, uint32_t classes)
{
	uint64_t s = UINT64_MAX;

	if ((classes & FM_CLASS_TCP) && tcp_s < s)
		s = tcp_s;
	if ((classes & FM_CLASS_UDP) && udp_s < s)
		s = udp_s;
	return s == UINT64_MAX ? s : s * 1000000000ull / 4;
}

int fm_ct_refresh_due(const struct fm_entry *e, uint32_t timeout_s, uint64_t now)
{
	uint32_t held = e->ct_refresh_s && e->ct_refresh_s < timeout_s ? e->ct_refresh_s : timeout_s;
	uint64_t every = (uint64_t)held * 1000000000ull / 4;

	return !e->ct_refresh_ns || npuflow_since(now, e->ct_refresh_ns) >= every;
}
