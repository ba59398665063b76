// SPDX-License-Identifier: GPL-2.0
/*
 * npuep command channel (cmd.h): the rings seen from outside, for dumps
 * (npuep_cmd_state(), npuep_cmd_slot_state()), and their reset for the
 * health recovery (npuep_cmd_reset()), which tells the caller whether the
 * device's tables must be replayed.
 */
#include "npuep.h"

/**
 * npuep_cmd_state() - a command ring's state and counters
 * @ndev: the coprocessor
 * @ring: enum npuep_cmd_ring
 * @st: filled in; the counters are read without the ring's locks
 */
void npuep_cmd_state(struct npuep_dev *ndev, u32 ring,
		     struct npuep_cmd_ring_state *st)
{
	struct npuep_cmdq *q = &ndev->cmd.q[ring];

	st->head = npuep_rd32(ndev, NPU_REG_CMDQ(ring) + NPU_CMDQ_HEAD);
	st->tail = READ_ONCE(q->tail);
	st->seq = READ_ONCE(q->seq);
	st->posted = READ_ONCE(q->posted);
	st->posted_failed = READ_ONCE(q->posted_failed);
	st->timeouts = READ_ONCE(q->timeouts);
	st->read_timeouts = READ_ONCE(q->read_timeouts);
	st->backlog = READ_ONCE(q->backlog_len);
	st->backlogged = READ_ONCE(q->backlogged);
	st->backlog_waits = READ_ONCE(q->backlog_waits);
}

/**
 * npuep_cmd_slot_state() - one slot of a command ring, for a dump
 * @ndev: the coprocessor
 * @ring: enum npuep_cmd_ring
 * @slot: its index, below NPU_CMD_RING_SIZE
 * @st: filled in when the slot was used
 *
 * Return: true if the slot ever held a command (a sequence number).
 */
bool npuep_cmd_slot_state(struct npuep_dev *ndev, u32 ring, u32 slot,
			  struct npuep_cmd_slot_state *st)
{
	const struct npu_cmd *c = ndev->cmd.q[ring].ring;

	if (!c || slot >= NPU_CMD_RING_SIZE || !READ_ONCE(c[slot].seq))
		return false;
	c += slot;
	st->opcode = le16_to_cpu(READ_ONCE(c->opcode));
	st->seq = le16_to_cpu(READ_ONCE(c->seq));
	st->flags = le16_to_cpu(READ_ONCE(c->flags));
	st->status = le16_to_cpu(READ_ONCE(c->status));
	return true;
}

/*
 * Disable and re-program one ring; *@lost as npuep_cmd_reset() says.
 * Return: 0, or -ENODEV when the device is gone.
 */
static int npuep_cmdq_reset(struct npuep_dev *ndev, u32 ring, bool *lost)
{
	struct npuep_cmdq *q = &ndev->cmd.q[ring];
	u32 head, i;
	int err = 0;

	*lost = false;
	mutex_lock(&q->lock);
	spin_lock_bh(&q->slot_lock);
	if (ndev->cmd.dead) {
		err = -ENODEV;
	} else {
		head = npuep_rd32(ndev, NPU_REG_CMDQ(ring) + NPU_CMDQ_HEAD);
		if (!npuep_cmdq_head_ok(ndev->cmd_chk.head_seen[ring],
					q->tail, head)) {
			atomic64_inc(&ndev->cmd_chk.bad_head);
			*lost = true;	/* untrusted: assume the worst */
		}
		if (xchg(&ndev->cmd_chk.resync, false))
			*lost = true;
		if (npuep_cmdq_backlog_drop(q))
			*lost = true;
		for (i = head; !*lost && i != q->tail; i = (i + 1) % NPU_CMD_RING_SIZE) {
			const struct npu_cmd *slot = &q->ring[i];

			if (!(le16_to_cpu(READ_ONCE(slot->flags)) & NPU_CMD_F_DONE) &&
			    npu_cmd_changes_tables(le16_to_cpu(slot->opcode)))
				*lost = true;
		}
		npuep_cmdq_program(ndev, ring);
	}
	spin_unlock_bh(&q->slot_lock);
	mutex_unlock(&q->lock);
	return err;
}

/**
 * npuep_cmd_reset() - reset both command rings (health recovery)
 * @ndev: the coprocessor
 * @lost: set when a command that changes the device's tables (fast path,
 *	ntuple) was in a ring and not executed, or completed inconsistently:
 *	the caller must bring the device's tables back in step with the
 *	host's (npuep_flow_replay())
 *
 * Disables and re-programs each ring: the device restarts at slot 0 and
 * forgets what it had not executed; the driver's backlog behind the ring
 * goes too (counted in @lost like the ring's own).
 *
 * Return: 0, or -ENODEV when the device is gone.
 */
int npuep_cmd_reset(struct npuep_dev *ndev, bool *lost)
{
	bool l;
	int err;
	u32 r;

	*lost = false;
	for (r = 0; r < NPU_CMD_RINGS; r++) {
		err = npuep_cmdq_reset(ndev, r, &l);
		if (err)
			return err;
		*lost |= l;
	}
	return 0;
}
