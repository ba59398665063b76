// SPDX-License-Identifier: GPL-2.0
/*
 * A token bucket in time units, the classic policer of the kernel's
 * net/sched/act_police.c (tcf_police_act(): the bucket holds time; a
 * packet costs the time the rate gives it; the credit grows with the time
 * elapsed up to the burst's worth), counted in frames instead of bytes:
 * in any interval of T seconds at most @burst + @rate * T frames pass.
 * Integer only: the credit is in 1/NPUSIM_TB_SCALE nanoseconds, a frame's
 * cost rounded up so that rounding never lets a frame more through (and
 * costs less than a frame in 60,000 at NPU_POLICER_RATE_MAX).
 */
#include "tb_pure.h"

/**
 * npusim_tb_set - (re)configure a bucket and fill it
 * @tb: the bucket
 * @rate: frames per second, 0 = off; clamped to @rate_max
 * @burst: frames; clamped to 1..@burst_max
 * @rate_max: the largest rate (frames/s, at most 10^9)
 * @burst_max: the largest burst (frames, at most 2^24)
 * @now_ns: the time now (a monotonic clock, nanoseconds)
 */
void npusim_tb_set(struct npusim_tb *tb, u32 rate, u32 burst, u32 rate_max,
		   u32 burst_max, u64 now_ns)
{
	if (rate > rate_max)
		rate = rate_max;
	if (burst > burst_max)
		burst = burst_max;
	if (!burst)
		burst = 1;
	tb->rate = rate;
	tb->burst = burst;
	tb->cost = rate ? (NPUSIM_TB_NS_PER_S * NPUSIM_TB_SCALE + rate - 1) / rate : 0;
	tb->depth = (u64)burst * tb->cost;
	tb->toks = tb->depth;
	tb->last_ns = now_ns;
}

/**
 * npusim_tb_take - one frame asks the bucket to pass
 * @tb: the bucket
 * @now_ns: the time now, same clock as npusim_tb_set(); a time before the
 *	last one counts as no time elapsed
 *
 * Return: true if the frame passes (a token taken), false if it is to be
 * dropped.  A bucket that is off passes everything.
 */
bool npusim_tb_take(struct npusim_tb *tb, u64 now_ns)
{
	u64 elapsed, room;

	if (!tb->rate)
		return true;
	if (now_ns > tb->last_ns) {
		elapsed = now_ns - tb->last_ns;
		tb->last_ns = now_ns;
		room = tb->depth - tb->toks;
		/* elapsed * NPUSIM_TB_SCALE below cannot overflow */
		if (elapsed > room / NPUSIM_TB_SCALE)
			tb->toks = tb->depth;
		else
			tb->toks += elapsed * NPUSIM_TB_SCALE;
	}
	if (tb->toks < tb->cost)
		return false;
	tb->toks -= tb->cost;
	return true;
}
