// SPDX-License-Identifier: GPL-2.0
/*
 * Interrupt moderation decisions (pure C, unit tested).
 *
 * Protocol (npu_hw.h): a vector is raised once and then masked until the
 * host re-arms it; a re-arm with events pending raises again at once.  With
 * moderation, an unmasked vector is raised when @frames events are pending
 * or @usecs after the first pending one, whichever comes first.  The time
 * limit is checked at every event as well as by the caller's timer, so a
 * late timer (a loaded host, a VM) does not hold a busy vector back.
 */
#include "coal_pure.h"

/**
 * npusim_coal_init - reset moderation state
 * @c: state
 * @frames: frame threshold
 * @usecs: time threshold
 *
 * Starts disabled, unmasked, nothing pending.
 */
void npusim_coal_init(struct npusim_coal *c, u32 frames, u32 usecs)
{
	memset(c, 0, sizeof(*c));
	c->frames = frames;
	c->usecs = usecs;
}

static unsigned int npusim_coal_raise(struct npusim_coal *c)
{
	unsigned int act = NPUSIM_COAL_RAISE;

	c->pending = 0;
	c->masked = true;
	if (c->timer_armed) {
		c->timer_armed = false;
		act |= NPUSIM_COAL_CANCEL;
	}
	return act;
}

/* Decide for an unmasked, enabled vector with events pending. */
static unsigned int npusim_coal_check(struct npusim_coal *c, u64 now_ns)
{
	if (!c->enabled || c->masked || !c->pending)
		return 0;
	if (c->frames <= 1 || c->pending >= c->frames)
		return npusim_coal_raise(c);
	if (c->usecs && now_ns - c->first_ns >= (u64)c->usecs * 1000)
		return npusim_coal_raise(c);
	if (c->usecs && !c->timer_armed) {
		c->timer_armed = true;
		return NPUSIM_COAL_ARM;
	}
	return 0;
}

/**
 * npusim_coal_event - @n new events (frames received, frames completed)
 * @c: state
 * @n: number of events
 * @now_ns: current time
 *
 * Return: NPUSIM_COAL_* actions.
 */
unsigned int npusim_coal_event(struct npusim_coal *c, u32 n, u64 now_ns)
{
	if (!c->pending)
		c->first_ns = now_ns;
	if (n > 0xffffffffu - c->pending)
		c->pending = 0xffffffffu;
	else
		c->pending += n;
	return npusim_coal_check(c, now_ns);
}

/**
 * npusim_coal_kick - @n events that must not wait for moderation
 * @c: state
 * @n: number of events
 *
 * Transmit completions: the host frees buffers and restarts its queue on
 * them, so a pass of completions raises an unmasked vector at once
 * (counted as pending like any event while masked).
 *
 * Return: NPUSIM_COAL_* actions.
 */
unsigned int npusim_coal_kick(struct npusim_coal *c, u32 n)
{
	if (n > 0xffffffffu - c->pending)
		c->pending = 0xffffffffu;
	else
		c->pending += n;
	if (!c->enabled || c->masked || !c->pending)
		return 0;
	return npusim_coal_raise(c);
}

/**
 * npusim_coal_timer - the usecs timer expired
 * @c: state
 *
 * Return: NPUSIM_COAL_* actions.
 */
unsigned int npusim_coal_timer(struct npusim_coal *c)
{
	if (!c->timer_armed)
		return 0;
	c->timer_armed = false;
	if (!c->enabled || c->masked || !c->pending)
		return 0;
	return npusim_coal_raise(c);
}

/**
 * npusim_coal_unmask - the host re-armed the vector
 * @c: state
 *
 * After a raise, events that came while the vector was masked raise at
 * once, whatever the moderation: no lost wake-up.  A re-arm of a vector
 * that is not masked (the host's pass was started by its poll, not by the
 * vector) changes nothing: its pending events were judged as they came, and
 * raising for them would undo the moderation.
 *
 * Return: NPUSIM_COAL_* actions.
 */
unsigned int npusim_coal_unmask(struct npusim_coal *c)
{
	if (!c->masked)
		return 0;
	c->masked = false;
	if (c->enabled && c->pending)
		return npusim_coal_raise(c);
	return 0;
}

/**
 * npusim_coal_enable - the host turned interrupts on or off
 * @c: state
 * @enable: new state
 *
 * Turning them on starts unmasked and raises at once if events are pending.
 *
 * Return: NPUSIM_COAL_* actions.
 */
unsigned int npusim_coal_enable(struct npusim_coal *c, bool enable)
{
	unsigned int act = 0;

	if (enable == c->enabled)
		return 0;
	c->enabled = enable;
	if (!enable) {
		if (c->timer_armed) {
			c->timer_armed = false;
			act = NPUSIM_COAL_CANCEL;
		}
		return act;
	}
	c->masked = false;
	if (c->pending)
		return npusim_coal_raise(c);
	return 0;
}

/**
 * npusim_coal_set - new moderation parameters
 * @c: state
 * @frames: frame threshold
 * @usecs: time threshold
 *
 * Takes effect at once: pending events are re-judged.
 *
 * Return: NPUSIM_COAL_* actions.
 */
unsigned int npusim_coal_set(struct npusim_coal *c, u32 frames, u32 usecs)
{
	unsigned int act = 0;

	c->frames = frames;
	c->usecs = usecs;
	if (c->timer_armed) {
		c->timer_armed = false;
		act = NPUSIM_COAL_CANCEL;
	}
	return act | npusim_coal_check(c, c->first_ns);
}
