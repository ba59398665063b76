// SPDX-License-Identifier: GPL-2.0
/*
 * npuep flow offload: the fast path's ethtool -S entries.
 */
#include <linux/ethtool.h>

#include "npuep.h"
#include "flow_priv.h"

static const char * const npuep_flow_stat_names[] = {
	"fp_conns", "fp_flows", "fp_flows_added", "fp_flows_deleted",
	"fp_paired", "fp_enospc", "fp_unsupported", "fp_revived",
	"fp_revive_deferred", "fp_remade", "fp_pppoe_paired", "fp_pppoe_reclaimed",
	"fp_cmd_waited", "fp_cmd_posted", "fp_cmd_ring_full", "fp_cmd_failed",
	"fp_cmd_lost", "fp_stats_reads", "fp_stats_bad",
	"fp_stats_stale",
	"fp_lock_held_max_us", "fp_lock_held_over_1ms", "fp_lock_held_over_5ms",
	"hw_fp_conns", "hw_fp_mflows",
	"hw_fwd_frames", "hw_fwd_bytes",
};

static const char * const npuep_flow_punt_names[NPU_PUNT_MAX] = {
	"none", "flow_miss", "not_active", "tcp_flags", "exception", "mtu",
	"non_ip", "mcast", "fastpath_off", "ntuple", "malformed",
};

/**
 * npuep_flow_sset_count() - ethtool -S entries of the fast path
 *
 * Return: the number of u64 npuep_flow_get_stats() writes.
 */
int npuep_flow_sset_count(void)
{
	return ARRAY_SIZE(npuep_flow_stat_names) + NPU_PUNT_MAX;
}

/**
 * npuep_flow_get_strings() - names of the fast path's ethtool -S entries
 * @data: cursor into the strings buffer, advanced
 *
 * fp_* are the driver's (device wide), hw_* the coprocessor's: hw_fwd_* and
 * hw_punt_<reason> count frames that arrived on this port, forwarded by the
 * fast path or punted to the host (including frames XDP dropped later).
 */
void npuep_flow_get_strings(u8 **data)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(npuep_flow_stat_names); i++)
		ethtool_puts(data, npuep_flow_stat_names[i]);
	for (i = 0; i < NPU_PUNT_MAX; i++)
		ethtool_sprintf(data, "hw_punt_%s", npuep_flow_punt_names[i]);
}

/**
 * npuep_flow_get_stats() - values of the fast path's ethtool -S entries
 * @port: the port asked about
 * @data: cursor into the values, advanced by npuep_flow_sset_count()
 */
void npuep_flow_get_stats(struct npuep_port *port, u64 **data)
{
	struct npuep_dev *ndev = port->ndev;
	struct npuep_ft *ft = ndev->ft;
	u32 base = NPU_REG_PORT_FP(port->idx);
	struct npuep_ft_stats st = {};
	u64 *d = *data;
	u32 nconns = 0, nflows = 0;
	unsigned int i;

	if (ft) {
		/*
		 * Counters only, no lock: ethtool -S must not wait behind
		 * a mass removal or a slow command (make bench saw 3 s).
		 */
		st = data_race(ft->st);
		/* a count, read without the lock as above */
		nconns = data_race(ft->nconns);
		/* a count, read without the lock as above */
		nflows = data_race(ft->nflows);
	}
	*d++ = nconns;
	*d++ = nflows;
	*d++ = st.flows_added;
	*d++ = st.flows_deleted;
	*d++ = st.paired;
	*d++ = st.enospc;
	*d++ = st.unsupported;
	*d++ = ft ? st.revived + atomic64_read(&ft->revived_rx) : 0;
	*d++ = ft ? atomic64_read(&ft->revive_deferred) : 0;
	*d++ = st.remade;
	*d++ = st.pppoe_paired;
	*d++ = st.pppoe_reclaimed;
	*d++ = st.cmd_waited;
	*d++ = st.cmd_posted;
	*d++ = st.cmd_ring_full;
	/* posted commands the device failed, seen when their slot is reused */
	*d++ = st.cmd_failed + READ_ONCE(ndev->dlx.cmdq[0].posted_failed) +
	       READ_ONCE(ndev->dlx.cmdq[1].posted_failed);
	*d++ = st.cmd_lost;
	*d++ = st.stats_reads;
	*d++ = st.stats_bad;
	*d++ = st.stats_stale;
	*d++ = div_u64(st.lock_held_max_ns, NSEC_PER_USEC);
	*d++ = st.lock_held_over_1ms;
	*d++ = st.lock_held_over_5ms;
	*d++ = npuep_rd32(ndev, NPU_REG_FT_CONNS);
	*d++ = npuep_rd32(ndev, NPU_REG_FT_MFLOWS);
	*d++ = npuep_rd64(ndev, base + NPU_PORT_FP_FWD_FRAMES);
	*d++ = npuep_rd64(ndev, base + NPU_PORT_FP_FWD_BYTES);
	for (i = 0; i < NPU_PUNT_MAX; i++)
		*d++ = npuep_rd64(ndev, base + NPU_PORT_FP_PUNT(i));
	*data = d;
}
