// SPDX-License-Identifier: GPL-2.0
/*
 * npuep flow offload: the flow-table lock.
 *
 * Every flow command goes through it: its longest hold and the holds over
 * 1 and 5 ms are counters (ethtool -S, seed 004), and each hold is a
 * tracepoint (npuep_ft_lock_hold).
 */
#include <linux/sched.h>

#include "npuep.h"
#include "flow_priv.h"
#include "trace.h"

void npuep_ft_lock(struct npuep_ft *ft)
{
	/* the wait is measured only for the tracepoint */
	u64 t0 = trace_npuep_ft_lock_hold_enabled() ? ktime_get_ns() : 0;

	mutex_lock(&ft->lock);
	ft->lock_t0 = ktime_get_ns();
	ft->lock_wait_ns = t0 ? ft->lock_t0 - t0 : 0;
	ft->bh_off = false;
}

/*
 * The flow-table lock for work that posts and never waits (the kernel's
 * REPLACE/DESTROY/STATS with flow_cmd_posted, a purge's batch): the mutex,
 * plus softirqs and preemption off on this CPU while it is held, so that
 * the receive softirq and the model's firmware work (on the same CPUs
 * under the model) do not run inside the hold (docs/measurements.md,
 * "Flow-table lock").  Under it nothing sleeps or waits for the device:
 * allocations are GFP_ATOMIC (npuep_ft_gfp()) and a full command ring
 * queues the command in the driver behind it (NPUEP_CMD_POST_BACKLOG).
 */
void npuep_ft_lock_bh(struct npuep_ft *ft)
{
	npuep_ft_lock(ft);
	local_bh_disable();
	ft->bh_off = true;
}

/*
 * The lock for flow writes: softirqs off when they are posted (never
 * wait).  Posted writes wait for room in the ring's backlog first, outside
 * the lock, so that a burst goes at the device's pace (the wait ends when
 * the device stops moving: what is posted then is lost and recovered).
 */
void npuep_ft_lock_writes(struct npuep_ft *ft)
{
	struct npuep_dev *ndev = ft->ndev;

	if (READ_ONCE(ndev->dlx.flow_cmd_posted)) {
		npuep_cmd_backlog_wait(ndev, READ_ONCE(ndev->dlx.flow_cmd_ring));
		npuep_ft_lock_bh(ft);
	} else {
		npuep_ft_lock(ft);
	}
}

/*
 * Release the lock; the hold counts in the longest-hold and over-1/5-ms
 * counters, and is traced with the function that releases it.
 */
void npuep_ft_unlock(struct npuep_ft *ft)
{
	u64 held = ktime_get_ns() - ft->lock_t0;

	trace_npuep_ft_lock_hold(ft->ndev->dev, ft->lock_wait_ns, held,
				 ft->bh_off, _RET_IP_);
	if (ft->bh_off) {
		ft->bh_off = false;
		local_bh_enable();
	}
	if (held > ft->st.lock_held_max_ns)
		ft->st.lock_held_max_ns = held;
	if (held > NSEC_PER_MSEC)
		ft->st.lock_held_over_1ms++;
	if (held > 5 * NSEC_PER_MSEC)
		ft->st.lock_held_over_5ms++;
	mutex_unlock(&ft->lock);
}
