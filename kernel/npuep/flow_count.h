/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npuep flow offload: a connection's counters, cumulative across the
 * revisions the device counts them under (flow_count_pure.c).
 */
#ifndef _NPUEP_FLOW_COUNT_H
#define _NPUEP_FLOW_COUNT_H

#include "npu_compat.h"

/*
 * What the device counted for one connection since the driver made it:
 * @pkts and @bytes per direction, cumulative; @dev_pkts and @dev_bytes the
 * device's own counts under revision @dev_rev, as last read.
 */
struct npuep_conn_count {
	u64 pkts[2];
	u64 bytes[2];
	u64 dev_pkts[2];
	u64 dev_bytes[2];
	u16 dev_rev;
};

bool npuep_conn_count(struct npuep_conn_count *n, u16 rev,
		      const u64 pkts[2], const u64 bytes[2]);

#endif /* _NPUEP_FLOW_COUNT_H */
