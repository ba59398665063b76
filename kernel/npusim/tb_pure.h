/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The token bucket of the model's trap policers (policer.c).  Pure C (see
 * npu_compat.h); the caller serialises calls on one bucket and gives the
 * time.
 */
#ifndef _NPUSIM_TB_PURE_H
#define _NPUSIM_TB_PURE_H

#include "npu_compat.h"

#define NPUSIM_TB_NS_PER_S	1000000000ULL
#define NPUSIM_TB_SCALE		1024	/* credit units per nanosecond */

/**
 * struct npusim_tb - one token bucket, kept in time as act_police keeps it
 * @rate: frames per second; 0 = off (every frame passes)
 * @burst: the most frames the bucket holds, >= 1
 * @cost: the credit one frame takes: 1 s / @rate, in 1/NPUSIM_TB_SCALE ns,
 *	rounded up
 * @depth: the most credit the bucket holds: @burst * @cost
 * @toks: the credit now
 * @last_ns: when @toks was last brought up to date (ns)
 */
struct npusim_tb {
	u32 rate;
	u32 burst;
	u64 cost;
	u64 depth;
	u64 toks;
	u64 last_ns;
};

void npusim_tb_set(struct npusim_tb *tb, u32 rate, u32 burst, u32 rate_max,
		   u32 burst_max, u64 now_ns);
bool npusim_tb_take(struct npusim_tb *tb, u64 now_ns);

#endif /* _NPUSIM_TB_PURE_H */
