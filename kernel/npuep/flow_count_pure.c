// SPDX-License-Identifier: GPL-2.0
/*
 * npuep flow offload: a connection's counters across its revisions.
 *
 * The device counts a connection's frames and bytes per direction in its
 * statistics area, from zero at each revision (npu_hw.h: a rewrite under a
 * new revision is a new connection to the device).  The driver rewrites a
 * connection under a new revision when a direction is re-keyed, when a
 * given-back connection is made again and when firmware recovery replays
 * the table; the kernel's counters (FLOW_CLS_STATS, conntrack's) run on
 * across all of them.  So the driver keeps the connection's own totals and
 * adds to them what the device counted since the last read, under the
 * revision it read last, or from zero under a new one.
 *
 * Pure C (npu_compat.h): compiled into npuep.ko and, unchanged, into the
 * cmocka unit tests.
 */
#include "flow_count.h"

/* What a device counter moved by since @seen: from zero if it went back. */
static u64 npuep_count_delta(u64 now, u64 seen)
{
	return now >= seen ? now - seen : now;
}

/**
 * npuep_conn_count() - add a read of the device's counters to a connection's
 * @n: the connection's totals and the device's counts as last read
 * @rev: the revision the device counted under, as read with the counters
 * @pkts: the device's frames per direction under @rev
 * @bytes: the device's bytes per direction under @rev
 *
 * Under the revision read last, what each counter moved since that read is
 * added; under another, the device started again from zero, and all of
 * what it counted is.  A counter that went back under the same revision
 * (the device lost its area) counts from zero too: the totals never go
 * back, so what the kernel was told stays told.
 *
 * Return: whether either direction's frames moved.
 */
bool npuep_conn_count(struct npuep_conn_count *n, u16 rev,
		      const u64 pkts[2], const u64 bytes[2])
{
	bool moved = false;
	u64 dp, db;
	int d;

	if (rev != n->dev_rev) {
		for (d = 0; d < 2; d++) {
			n->dev_pkts[d] = 0;
			n->dev_bytes[d] = 0;
		}
		n->dev_rev = rev;
	}
	for (d = 0; d < 2; d++) {
		dp = npuep_count_delta(pkts[d], n->dev_pkts[d]);
		db = npuep_count_delta(bytes[d], n->dev_bytes[d]);
		n->pkts[d] += dp;
		n->bytes[d] += db;
		n->dev_pkts[d] = pkts[d];
		n->dev_bytes[d] = bytes[d];
		moved |= dp != 0;
	}
	return moved;
}
