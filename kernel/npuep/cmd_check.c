// SPDX-License-Identifier: GPL-2.0
/*
 * npuep command channel: what the device writes back is checked before it
 * is believed.  A HEAD runs only from the last head read to the host's
 * tail; a waited completion carries its own sequence number and opcode; a
 * connection-stats answer holds only the entries asked for.  Each refusal
 * is counted (ethtool -S cmd_bad_*); where the ring itself can no longer
 * be trusted it is a fault for the channel's observer (npuep_cmd_fault():
 * the "cmd" health reporter, whose recovery resets the rings).
 */
#include <linux/log2.h>

#include "npuep.h"

/**
 * npuep_cmdq_head_ok() - whether a HEAD read from a command ring can be true
 * @ndev: the coprocessor
 * @ring: enum npuep_cmd_ring
 * @head: the value read
 *
 * The device's head only moves on from the last head read, and never past
 * the host's tail.  The ring's slot_lock held.
 *
 * Return: true if @head lies in that window.
 */
bool npuep_cmdq_head_ok(struct npuep_dev *ndev, u32 ring, u32 head)
{
	u32 seen = ndev->cmd_chk.head_seen[ring];
	u32 mask = NPU_CMD_RING_SIZE - 1;

	BUILD_BUG_ON(!is_power_of_2(NPU_CMD_RING_SIZE));
	return head < NPU_CMD_RING_SIZE &&
	       ((head - seen) & mask) <= ((ndev->cmd.q[ring].tail - seen) & mask);
}

/**
 * npuep_cmdq_head_read() - read a command ring's HEAD and check it
 * @ndev: the coprocessor
 * @ring: enum npuep_cmd_ring
 * @headp: the head, if it passed
 *
 * A head outside the window of npuep_cmdq_head_ok() (one that runs ahead
 * of the tail) is counted and is a fault (npuep_cmd_fault()): the rings
 * want a reset, for the host no longer knows which slots the device has
 * read.  The ring's slot_lock held; never sleeps.
 *
 * Return: 0, or -EIO.
 */
int npuep_cmdq_head_read(struct npuep_dev *ndev, u32 ring, u32 *headp)
{
	struct npuep_cmdq *q = &ndev->cmd.q[ring];
	u32 head;

	lockdep_assert_held(&q->slot_lock);
	head = npuep_rd32(ndev, NPU_REG_CMDQ(ring) + NPU_CMDQ_HEAD);
	if (unlikely(!npuep_cmdq_head_ok(ndev, ring, head))) {
		atomic64_inc(&ndev->cmd_chk.bad_head);
		dev_err_ratelimited(ndev->dev,
				    "command ring %u: head %u outside %u..%u (last head..tail)\n",
				    ring, head, ndev->cmd_chk.head_seen[ring],
				    q->tail);
		npuep_cmd_fault(ndev, ring, NPU_CMD_NOP);
		return -EIO;
	}
	ndev->cmd_chk.head_seen[ring] = head;
	*headp = head;
	return 0;
}

/**
 * npuep_cmd_completion_bad() - check a waited command's completion
 * @ndev: the coprocessor
 * @ring: enum npuep_cmd_ring
 * @slot: the completed slot (NPU_CMD_F_DONE read, then dma_rmb())
 * @opcode: the command's opcode
 * @seq: the command's sequence number
 *
 * A completion carries its command's sequence number and opcode.  One that
 * does not is counted and is a fault (npuep_cmd_fault()): the ring is not
 * in the state the host thinks, and the recovery resets it, bringing the
 * tables back in step when the command could have changed them.
 *
 * Return: true if the completion is refused.
 */
bool npuep_cmd_completion_bad(struct npuep_dev *ndev, u32 ring,
			      const struct npu_cmd *slot, u16 opcode, u16 seq)
{
	u16 got_seq = le16_to_cpu(slot->seq);
	u16 got_op = le16_to_cpu(slot->opcode);

	if (likely(got_seq == seq && got_op == opcode))
		return false;
	if (got_seq != seq)
		atomic64_inc(&ndev->cmd_chk.bad_seq);
	if (got_op != opcode)
		atomic64_inc(&ndev->cmd_chk.bad_opcode);
	dev_err_ratelimited(ndev->dev,
			    "command %u seq %u on ring %u completed as opcode %u seq %u\n",
			    opcode, seq, ring, got_op, got_seq);
	if (npu_cmd_changes_tables(opcode))
		WRITE_ONCE(ndev->cmd_chk.resync, true);
	npuep_cmd_fault(ndev, ring, opcode);
	return true;
}

/*
 * An NPU_CMD_CONN_STATS answer holds at most the entries asked for, all
 * within its @len bytes, each for an index asked for and in increasing
 * order: its reader (flow_stats.c) matches entries to connections by
 * index.  Return: 0, or -EIO for an answer that does not (counted).
 */
static int npuep_cmd_stats_check(struct npuep_dev *ndev, const void *req,
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
		atomic64_inc(&ndev->cmd_chk.bad_stats_count);
		dev_err_ratelimited(ndev->dev,
				    "connection stats from %u: %u entries in %u bytes, %u asked for\n",
				    first, n, len, asked);
		return -EIO;
	}
	for (i = 0, next = first; i < n; i++, next = idx + 1) {
		idx = le32_to_cpu(st->st[i].conn);
		if (idx < next || idx - first >= asked) {
			atomic64_inc(&ndev->cmd_chk.bad_stats_conn);
			dev_err_ratelimited(ndev->dev,
					    "connection stats from %u (%u asked for): entry %u is for %u\n",
					    first, asked, i, idx);
			return -EIO;
		}
	}
	return 0;
}

/**
 * npuep_cmd_resp_copy() - copy a completed command's response and check it
 * @ndev: the coprocessor
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
 * Return: 0, or -EIO.
 */
int npuep_cmd_resp_copy(struct npuep_dev *ndev, const struct npu_cmd *slot,
			u16 opcode, const void *req, u16 req_len, void *resp,
			u16 resp_len)
{
	u16 len = min3(le16_to_cpu(slot->len), resp_len, (u16)NPU_CMD_DATA_LEN);
	int err = 0;

	memcpy(resp, slot->data, len);
	memset(resp + len, 0, resp_len - len);
	if (opcode == NPU_CMD_CONN_STATS)
		err = npuep_cmd_stats_check(ndev, req, req_len, resp, resp_len,
					    len);
	if (err)
		memset(resp, 0, resp_len);
	return err;
}
