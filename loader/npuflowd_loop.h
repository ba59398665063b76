/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npuflowd_loop.h - the loop's own counters (struct npuflow_loopstats,
 * pinned as "loopstats" for npuctl status): each pass's wakeups by cause
 * and its time by part.  Pure: npuflowd.c takes the times and writes the
 * map, npuflowd_loop.c counts.
 */
#ifndef _NPUFLOWD_LOOP_H
#define _NPUFLOWD_LOOP_H

#include <poll.h>
#include <stdint.h>
#include <linux/types.h>
#include "../bpf/npuflow.h"

/* The loop's fds, in the order a pass polls them: the event ring,
 * conntrack's events, the control socket, closing TCP entries' events, then
 * the flow maker's announcement monitors (fmd.h's FMD_MON_*: rtnetlink,
 * xfrm, nftables). */
enum {
	LOOP_FD_RING, LOOP_FD_CT, LOOP_FD_CTL, LOOP_FD_CT_CLOSING, LOOP_FD_MON,
	LOOP_FD_MAX = LOOP_FD_MON + 3,
};

/*
 * loop_count_wakes - a pass's wait counted: @ls->passes, and the wakes[] slot
 * of each of the @n fds of @pfd (LOOP_FD_* order) that poll() found ready
 * (revents), of the timeout when @rc is 0, of a signal when @rc < 0 and
 * @err is EINTR.  A wait that several fds ended counts in each one's slot.
 */
void loop_count_wakes(struct npuflow_loopstats *ls, const struct pollfd *pfd, int n, int rc,
		      int err);

/* loop_count_time - @us of part @part (NPUFLOW_LP_*, or NPUFLOW_LP_MAX for
 * the wait) added; a part out of range is counted as NPUFLOW_LP_OTHER. */
void loop_count_time(struct npuflow_loopstats *ls, unsigned int part, uint64_t us);

/* The loop's counters are written at most this often (one bpf() a second). */
#define LOOP_STATS_EVERY_NS	(1000ull * 1000000)

/* loop_stats_due - whether @ls, last written at ls->updated_ns (0: never),
 * is due to be written at @now_ns. */
int loop_stats_due(const struct npuflow_loopstats *ls, uint64_t now_ns);

#endif
