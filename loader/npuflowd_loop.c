// SPDX-License-Identifier: GPL-2.0
/*
 * npuflowd_loop.c - the loop's counters (see npuflowd_loop.h).
 */
#include <errno.h>
#include "npuflowd_loop.h"

/* the wakes[] slot of each LOOP_FD_* */
static const unsigned char wake_of[LOOP_FD_MAX] = {
	[LOOP_FD_RING] = NPUFLOW_LW_RING,
	[LOOP_FD_CT] = NPUFLOW_LW_CT,
	[LOOP_FD_CTL] = NPUFLOW_LW_CTL,
	[LOOP_FD_CT_CLOSING] = NPUFLOW_LW_CT_CLOSING,
	[LOOP_FD_MON + 0] = NPUFLOW_LW_MON_RT,
	[LOOP_FD_MON + 1] = NPUFLOW_LW_MON_XFRM,
	[LOOP_FD_MON + 2] = NPUFLOW_LW_MON_NFT,
};

void loop_count_wakes(struct npuflow_loopstats *ls, const struct pollfd *pfd, int n, int rc,
		      int err)
{
	int i;

	ls->passes++;
	if (rc == 0) {
		ls->wakes[NPUFLOW_LW_TIMEOUT]++;
		return;
	}
	if (rc < 0) {
		if (err == EINTR)
			ls->wakes[NPUFLOW_LW_SIGNAL]++;
		return;
	}
	for (i = 0; i < n && i < LOOP_FD_MAX; i++)
		if (pfd[i].fd >= 0 && pfd[i].revents)
			ls->wakes[wake_of[i]]++;
}

void loop_count_time(struct npuflow_loopstats *ls, unsigned int part, uint64_t us)
{
	if (part == NPUFLOW_LP_MAX)
		ls->wait_us += us;
	else
		ls->busy_us[part < NPUFLOW_LP_MAX ? part : NPUFLOW_LP_OTHER] += us;
}

int loop_stats_due(const struct npuflow_loopstats *ls, uint64_t now_ns)
{
	return !ls->updated_ns || now_ns < ls->updated_ns ||
	       now_ns - ls->updated_ns >= LOOP_STATS_EVERY_NS;
}
