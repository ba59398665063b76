/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Interrupt moderation decisions of the coprocessor model.
 * Pure C (see npu_compat.h); the caller holds the vector's lock and
 * carries out the returned actions (raise the vector, start/stop a timer).
 */
#ifndef _NPUSIM_COAL_PURE_H
#define _NPUSIM_COAL_PURE_H

#include "npu_compat.h"

/*
 * Default receive moderation of a queue pair, seed 003's values: an
 * interrupt per 8 frames / 2 us kept the host entering and leaving its
 * handler; 32 frames / 50 us, with a ring deep enough, left it 96 % idle.
 */
#define NPUSIM_COAL_FRAMES_DEFAULT	32
#define NPUSIM_COAL_USECS_DEFAULT	50
#define NPUSIM_COAL_FRAMES_MAX		4096
#define NPUSIM_COAL_USECS_MAX		100000

/* Actions, or-ed. */
#define NPUSIM_COAL_RAISE	BIT(0)	/* raise the vector now (it is now masked) */
#define NPUSIM_COAL_ARM		BIT(1)	/* start the timer for @usecs */
#define NPUSIM_COAL_CANCEL	BIT(2)	/* stop the timer if it runs */

/**
 * struct npusim_coal - moderation state of one vector
 * @frames: raise when this many events are pending (0 or 1: every event)
 * @usecs: or this long after the first pending event (0: no time limit)
 * @pending: events since the vector was last raised
 * @first_ns: when the first of them came (caller's clock, nanoseconds)
 * @masked: raised and not yet re-armed by the host
 * @timer_armed: the usecs timer runs
 * @enabled: the host wants interrupts (else it polls)
 */
struct npusim_coal {
	u32 frames;
	u32 usecs;
	u32 pending;
	u64 first_ns;
	bool masked;
	bool timer_armed;
	bool enabled;
};

void npusim_coal_init(struct npusim_coal *c, u32 frames, u32 usecs);
unsigned int npusim_coal_event(struct npusim_coal *c, u32 n, u64 now_ns);
unsigned int npusim_coal_timer(struct npusim_coal *c);
unsigned int npusim_coal_unmask(struct npusim_coal *c);
unsigned int npusim_coal_kick(struct npusim_coal *c, u32 n);
unsigned int npusim_coal_enable(struct npusim_coal *c, bool enable);
unsigned int npusim_coal_set(struct npusim_coal *c, u32 frames, u32 usecs);

#endif /* _NPUSIM_COAL_PURE_H */
