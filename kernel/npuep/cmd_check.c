// SPDX-License-Identifier: GPL-2.0
/*
 * npuep command channel: what the device writes back is checked before it
 * is believed.  A HEAD runs only from the last head read to the host's
 * tail; a waited completion carries its own sequence number and opcode; a
 * connection-stats answer holds only the entries asked for.  Each refusal
 * is counted (ethtool -S cmd_bad_*) and logged, and each check returns a
 * verdict (cmd_check.h) that the channel acts on: where the ring itself
 * can no longer be trusted, the channel tells its observer (the "cmd"
 * health reporter, whose recovery resets the rings).  The checks know the
 * rings only by the values they are given.  A completion's status becomes
 * an errno here too (npuep_cmd_status_errno()).
 */
#include <linux/device.h>
#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/string.h>

#include "cmd_check.h"

/**
 * npuep_cmdq_head_ok() - whether a HEAD read from a command ring can be true
 * @seen: the ring's last head read that passed
 * @tail: the host's tail
 * @head: the value read
 *
 * The device's head only moves on from the last head read, and never past
 * the host's tail.
 *
 * Return: true if @head lies in that window.
 */
bool npuep_cmdq_head_ok(u32 seen, u32 tail, u32 head)
{
	u32 mask = NPU_CMD_RING_SIZE - 1;

	BUILD_BUG_ON(!is_power_of_2(NPU_CMD_RING_SIZE));
	return head < NPU_CMD_RING_SIZE &&
	       ((head - seen) & mask) <= ((tail - seen) & mask);
}

/**
 * npuep_cmdq_head_check() - check a HEAD read from a command ring
 * @chk: the channel's checks; @chk->head_seen[@ring] moves to @head if it
 *	passes
 * @dev: for the log
 * @ring: enum npuep_cmd_ring
 * @tail: the host's tail
 * @head: the value read
 *
 * A head outside the window of npuep_cmdq_head_ok() (one that runs ahead
 * of the tail) is counted (bad_head): the host no longer knows which
 * slots the device has read.  The ring's slot_lock held; never sleeps.
 *
 * Return: NPUEP_CMD_PASS, or NPUEP_CMD_RING_LOST.
 */
enum npuep_cmd_verdict npuep_cmdq_head_check(struct npuep_cmd_checks *chk,
					     struct device *dev, u32 ring,
					     u32 tail, u32 head)
{
	if (unlikely(!npuep_cmdq_head_ok(chk->head_seen[ring], tail, head))) {
		atomic64_inc(&chk->bad_head);
		dev_err_ratelimited(dev,
				    "command ring %u: head %u outside %u..%u (last head..tail)\n",
				    ring, head, chk->head_seen[ring], tail);
		return NPUEP_CMD_RING_LOST;
	}
	chk->head_seen[ring] = head;
	return NPUEP_CMD_PASS;
}

/**
 * npuep_cmd_completion_check() - check a waited command's completion
 * @chk: the channel's checks
 * @dev: for the log
 * @ring: enum npuep_cmd_ring
 * @slot: the completed slot (NPU_CMD_F_DONE read, then dma_rmb())
 * @opcode: the command's opcode
 * @seq: the command's sequence number
 *
 * A completion carries its command's sequence number and opcode.  One that
 * does not is counted (bad_seq, bad_opcode): the ring is not in the state
 * the host thinks.
 *
 * Return: NPUEP_CMD_PASS, or NPUEP_CMD_RING_LOST.
 */
enum npuep_cmd_verdict npuep_cmd_completion_check(struct npuep_cmd_checks *chk,
						  struct device *dev, u32 ring,
						  const struct npu_cmd *slot,
						  u16 opcode, u16 seq)
{
	u16 got_seq = le16_to_cpu(slot->seq);
	u16 got_op = le16_to_cpu(slot->opcode);

	if (likely(got_seq == seq && got_op == opcode))
		return NPUEP_CMD_PASS;
	if (got_seq != seq)
		atomic64_inc(&chk->bad_seq);
	if (got_op != opcode)
		atomic64_inc(&chk->bad_opcode);
	dev_err_ratelimited(dev,
			    "command %u seq %u on ring %u completed as opcode %u seq %u\n",
			    opcode, seq, ring, got_op, got_seq);
	return NPUEP_CMD_RING_LOST;
}

/**
 * npuep_cmd_status_errno() - a completed command's status as an errno
 * @status: enum npu_cmd_status, as the device wrote it
 *
 * Return: 0 for NPU_ST_OK, the errno of a refusal the driver knows, or
 * -EIO for any other status (NPU_ST_FW_FAULT, or a value npu_hw.h does
 * not define).
 */
int npuep_cmd_status_errno(u16 status)
{
	switch (status) {
	case NPU_ST_OK:
		return 0;
	case NPU_ST_BAD_OPCODE:
		return -EOPNOTSUPP;
	case NPU_ST_BAD_PARAM:
		return -EINVAL;
	case NPU_ST_NO_SPACE:
		return -ENOSPC;
	case NPU_ST_BUSY:
		return -EBUSY;
	case NPU_ST_NOT_FOUND:
		return -ENOENT;
	default:
		return -EIO;
	}
}

/*
 * An NPU_CMD_CONN_STATS answer holds at most the entries asked for, all
 * within its @len bytes, each for an index asked for and in increasing
 * order: its reader (flow_stats.c) matches entries to connections by
 * index.  Return: 0, or -EIO for an answer that does not (counted).
 */
static int npuep_cmd_stats_check(struct npuep_cmd_checks *chk,
				 struct device *dev, const void *req,
				 u16 req_len, const void *resp, u16 resp_len,
				 u16 len)
{
	const struct npu_cmd_conn_stats *st = resp;
	const struct npu_cmd_conn_ref *ref = req;
	u32 first, asked, n, i, idx, next;

	if (req_len < sizeof(*ref) || resp_len < sizeof(*st))
		return 0;
	first = le32_to_cpu(ref->conn);
	asked = le16_to_cpu(ref->count);
	n = le16_to_cpu(st->count);
	if (n > asked || n > NPU_CONN_STATS_MAX ||
	    len < offsetof(struct npu_cmd_conn_stats, st) + n * sizeof(st->st[0])) {
		atomic64_inc(&chk->bad_stats_count);
		dev_err_ratelimited(dev,
				    "connection stats from %u: %u entries in %u bytes, %u asked for\n",
				    first, n, len, asked);
		return -EIO;
	}
	for (i = 0, next = first; i < n; i++, next = idx + 1) {
		idx = le32_to_cpu(st->st[i].conn);
		if (idx < next || idx - first >= asked) {
			atomic64_inc(&chk->bad_stats_conn);
			dev_err_ratelimited(dev,
					    "connection stats from %u (%u asked for): entry %u is for %u\n",
					    first, asked, i, idx);
			return -EIO;
		}
	}
	return 0;
}

/**
 * npuep_cmd_resp_copy() - copy a completed command's response and check it
 * @chk: the channel's checks
 * @dev: for the log
 * @slot: the completed slot
 * @opcode: the command's opcode
 * @req: its request, @req_len bytes
 * @req_len: request length
 * @resp: the caller's buffer, @resp_len bytes
 * @resp_len: its size; a shorter response is zero padded
 *
 * Copies what the device says it wrote (its len, bounded by @resp_len and
 * the slot) and checks what this driver relies on: an NPU_CMD_CONN_STATS
 * answer holds only entries it asked for.  A refused response leaves
 * @resp zeroed.
 *
 * Return: NPUEP_CMD_PASS, or NPUEP_CMD_REFUSED.
 */
enum npuep_cmd_verdict npuep_cmd_resp_copy(struct npuep_cmd_checks *chk,
					   struct device *dev,
					   const struct npu_cmd *slot,
					   u16 opcode, const void *req,
					   u16 req_len, void *resp,
					   u16 resp_len)
{
	u16 len = min3(le16_to_cpu(slot->len), resp_len, (u16)NPU_CMD_DATA_LEN);
	int err = 0;

	memcpy(resp, slot->data, len);
	memset(resp + len, 0, resp_len - len);
	if (opcode == NPU_CMD_CONN_STATS)
		err = npuep_cmd_stats_check(chk, dev, req, req_len, resp,
					    resp_len, len);
	if (!err)
		return NPUEP_CMD_PASS;
	memset(resp, 0, resp_len);
	return NPUEP_CMD_REFUSED;
}
