/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npuflow_time.h - times in ns (CLOCK_MONOTONIC) between stamps taken at
 * different moments of one pass.
 */
#ifndef NPUFLOW_TIME_H
#define NPUFLOW_TIME_H

#include <stdint.h>

/*
 * npuflow_since() - ns from @then to @now, 0 when @then is the later: a pass
 * reads its time once, at its start, and what it does meanwhile (a write
 * answered, an event read) stamps later times; an unsigned @now - @then
 * would wrap to centuries and make every "long enough ago" test true.
 */
static inline uint64_t npuflow_since(uint64_t now, uint64_t then)
{
	return now > then ? now - then : 0;
}

#endif
