/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npuep command channel: the checks of what the device writes into the
 * command rings (cmd_check.c).  A check is given the values it checks,
 * counts what it refuses (struct npuep_cmd_checks, ethtool -S cmd_bad_*)
 * and returns a verdict; the channel (cmd.c) acts on it: the command
 * fails, and a ring the host can no longer trust is a fault for the
 * channel's observer.
 */
#ifndef _NPUEP_CMD_CHECK_H
#define _NPUEP_CMD_CHECK_H

#include <linux/atomic.h>
#include <linux/types.h>

#include "npu_hw.h"

struct device;

/**
 * struct npuep_cmd_checks - what the command channel refused from the device
 * @bad_seq: waited completions carrying another sequence number
 * @bad_opcode: waited completions carrying another opcode
 * @bad_head: HEAD reads outside the window from the last head read to the
 *	host's tail (a head that runs ahead of the tail)
 * @bad_stats_count: NPU_CMD_CONN_STATS answers with more entries than
 *	asked for, or than their length holds
 * @bad_stats_conn: NPU_CMD_CONN_STATS answers with an entry outside the
 *	indices asked for, or out of order
 * @head_seen: per ring, the last HEAD read that passed (under the ring's
 *	slot_lock)
 * @resync: a command that changes the device's tables completed
 *	inconsistently, or never reached the ring: the next ring reset
 *	reports the tables lost
 */
struct npuep_cmd_checks {
	atomic64_t bad_seq;
	atomic64_t bad_opcode;
	atomic64_t bad_head;
	atomic64_t bad_stats_count;
	atomic64_t bad_stats_conn;
	u32 head_seen[NPU_CMD_RINGS];
	bool resync;
};

/**
 * enum npuep_cmd_verdict - what a check made of what the device wrote
 * @NPUEP_CMD_PASS: believed
 * @NPUEP_CMD_REFUSED: refused and counted: the command fails (-EIO)
 * @NPUEP_CMD_RING_LOST: refused and counted, and the ring is not in the
 *	state the host thinks: the command fails (-EIO) and the rings want
 *	a reset
 */
enum npuep_cmd_verdict {
	NPUEP_CMD_PASS,
	NPUEP_CMD_REFUSED,
	NPUEP_CMD_RING_LOST,
};

bool npuep_cmdq_head_ok(u32 seen, u32 tail, u32 head);
enum npuep_cmd_verdict npuep_cmdq_head_check(struct npuep_cmd_checks *chk,
					     struct device *dev, u32 ring,
					     u32 tail, u32 head);
enum npuep_cmd_verdict npuep_cmd_completion_check(struct npuep_cmd_checks *chk,
						  struct device *dev, u32 ring,
						  const struct npu_cmd *slot,
						  u16 opcode, u16 seq);
int npuep_cmd_status_errno(u16 status);
enum npuep_cmd_verdict npuep_cmd_resp_copy(struct npuep_cmd_checks *chk,
					   struct device *dev,
					   const struct npu_cmd *slot,
					   u16 opcode, const void *req,
					   u16 req_len, void *resp,
					   u16 resp_len);

#endif /* _NPUEP_CMD_CHECK_H */
