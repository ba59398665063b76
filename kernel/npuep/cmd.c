// SPDX-License-Identifier: GPL-2.0
/*
 * npuep command channel (cmd.h): the normal (0) and high-priority (1)
 * command rings.
 *
 * Per ring, one waited command is in flight at a time (the ring's mutex);
 * posted commands (NPU_CMD_F_POSTED) are not waited for and may be posted
 * from NAPI (npuep_cmd_batch_add()).  The slot_lock spinlock guards the
 * tail, the sequence and the slots themselves.  The slot is written, the
 * doorbell rung, and a waiting caller sleeps until the device sets
 * NPU_CMD_F_DONE in the slot; the command vector (vector 0) wakes it.  The
 * wait is sliced so that a lost interrupt costs a few milliseconds, not the
 * command, and it is bounded: a device that never answers gives
 * -ETIMEDOUT, never a hang.
 */
#include <linux/dma-mapping.h>
#include <linux/interrupt.h>
#include <linux/jiffies.h>

#include "npuep.h"
#include "trace.h"

#define NPUEP_CMD_SLICE_MS	20

static irqreturn_t npuep_cmd_irq(int irq, void *data)
{
	struct npuep_dev *ndev = data;
	u32 events;

	events = npuep_rd32(ndev, NPU_REG_EVENTS);
	if (events & NPU_EVT_CMD_DONE)
		wake_up_all(&ndev->cmd.wq);
	if ((events & NPU_EVT_LINK) && !READ_ONCE(ndev->removing))
		schedule_work(&ndev->link_work);
	npuep_wr32(ndev, NPU_REG_CMD_IRQ_UNMASK, 1);
	return IRQ_HANDLED;
}

/**
 * npuep_cmd_observe() - register the one observer of the channel's faults
 * @ndev: the coprocessor
 * @observer: its callbacks (they outlive the channel), or NULL for none
 *
 * Faults seen before an observer is registered, or after it is removed,
 * are counted and logged only.
 */
void npuep_cmd_observe(struct npuep_dev *ndev,
		       const struct npuep_cmd_observer *observer)
{
	WRITE_ONCE(ndev->cmd.observer, observer);
}

/**
 * npuep_cmd_fault() - tell the observer that the rings want a reset
 * @ndev: the coprocessor
 * @ring: the ring
 * @opcode: the command, or NPU_CMD_NOP for the ring itself
 *
 * Any context.
 */
void npuep_cmd_fault(struct npuep_dev *ndev, u32 ring, u16 opcode)
{
	const struct npuep_cmd_observer *obs = READ_ONCE(ndev->cmd.observer);

	if (obs)
		obs->fault(ndev, ring, opcode);
}

/*
 * Act on a check's verdict (cmd_check.h) about @ring and @opcode (the
 * command, or NPU_CMD_NOP for the ring itself).  A refusal fails the
 * command; a ring the host can no longer trust is a fault for the
 * observer, and where the command could have changed the device's tables,
 * the next reset reports them lost.  Any context.
 *
 * Return: 0 for NPUEP_CMD_PASS, else -EIO.
 */
static int npuep_cmd_verdict_act(struct npuep_dev *ndev, u32 ring, u16 opcode,
				 enum npuep_cmd_verdict verdict)
{
	if (likely(verdict == NPUEP_CMD_PASS))
		return 0;
	if (verdict == NPUEP_CMD_RING_LOST) {
		if (npu_cmd_changes_tables(opcode))
			WRITE_ONCE(ndev->cmd_chk.resync, true);
		npuep_cmd_fault(ndev, ring, opcode);
	}
	return -EIO;
}

/*
 * Read @ring's HEAD and check it (npuep_cmdq_head_check()): a head that
 * runs ahead of the tail is a fault, for the host no longer knows which
 * slots the device has read.  slot_lock held; never sleeps.
 *
 * Return: 0, or -EIO.
 */
static int npuep_cmdq_head_read(struct npuep_dev *ndev, u32 ring, u32 *headp)
{
	struct npuep_cmdq *q = &ndev->cmd.q[ring];
	enum npuep_cmd_verdict verdict;
	u32 head;
	int err;

	lockdep_assert_held(&q->slot_lock);
	head = npuep_rd32(ndev, NPU_REG_CMDQ(ring) + NPU_CMDQ_HEAD);
	verdict = npuep_cmdq_head_check(&ndev->cmd_chk, ndev->dev, ring,
					q->tail, head);
	err = npuep_cmd_verdict_act(ndev, ring, NPU_CMD_NOP, verdict);
	if (!err)
		*headp = head;
	return err;
}

static void npuep_cmd_fill(struct npuep_cmdq *q, struct npu_cmd *slot,
			   u16 opcode, u16 flags, const void *req, u16 req_len)
{
	memset(slot, 0, sizeof(*slot));
	slot->opcode = cpu_to_le16(opcode);
	slot->seq = cpu_to_le16(++q->seq);
	slot->flags = cpu_to_le16(flags);
	slot->len = cpu_to_le16(req_len);
	if (req_len)
		memcpy(slot->data, req, req_len);
}

/*
 * Take the slot at the ring's tail, slot_lock held; never sleeps.  The
 * slot taken was executed (DONE) since the device's head went past it,
 * and a posted command it held is checked for its status.  The slot a
 * waited command has not read its response from yet is not reused.
 *
 * Return: 0, -EAGAIN while the ring is full, -ENODEV or -EIO.
 */
static int npuep_cmdq_try_slot(struct npuep_dev *ndev, u32 ring,
			       struct npu_cmd **slotp)
{
	struct npuep_cmdq *q = &ndev->cmd.q[ring];
	struct npu_cmd *slot;
	u32 head, next;
	bool done;

	lockdep_assert_held(&q->slot_lock);
	if (ndev->cmd.dead)
		return -ENODEV;
	next = (q->tail + 1) % NPU_CMD_RING_SIZE;
	if (npuep_cmdq_head_read(ndev, ring, &head))
		return -EIO;
	if (next == head || q->held == q->tail)
		return -EAGAIN;
	slot = &q->ring[q->tail];
	if (q->posted_slots & BIT(q->tail)) {
		q->posted_slots &= ~BIT(q->tail);
		/* DONE is written last: read the status after it. */
		done = le16_to_cpu(READ_ONCE(slot->flags)) & NPU_CMD_F_DONE;
		dma_rmb();
		if (!done || le16_to_cpu(slot->status) != NPU_ST_OK)
			q->posted_failed++;
	}
	*slotp = slot;
	return 0;
}

/* A posted command waiting in a ring's backlog (NPUEP_CMD_POST_BACKLOG). */
struct npuep_cmd_pending {
	struct list_head node;
	u16 opcode;
	u16 len;
	u8 data[NPU_CMD_DATA_LEN];
};

/*
 * A backlog caps what a device that stopped answering can pin in host
 * memory: 4,096 commands of 248 bytes, about 1 MiB per ring.  Writers
 * wait for room from NPUEP_CMD_BACKLOG_HIGH on (npuep_cmd_backlog_wait())
 * until it falls under NPUEP_CMD_BACKLOG_LOW, so that a teardown of the
 * whole table (65,536 connections) goes at the device's pace; the half
 * above HIGH takes what the writers post in one hold of their lock.
 */
#define NPUEP_CMD_BACKLOG_MAX	4096
#define NPUEP_CMD_BACKLOG_HIGH	(NPUEP_CMD_BACKLOG_MAX / 2)
#define NPUEP_CMD_BACKLOG_LOW	(NPUEP_CMD_BACKLOG_MAX / 4)

/* As npuep_cmdq_try_slot(), but behind the backlog: commands keep ring order. */
static int npuep_cmdq_try_slot_ordered(struct npuep_dev *ndev, u32 ring,
				       struct npu_cmd **slotp)
{
	if (!list_empty(&ndev->cmd.q[ring].backlog))
		return ndev->cmd.dead ? -ENODEV : -EAGAIN;
	return npuep_cmdq_try_slot(ndev, ring, slotp);
}

/*
 * Take the slot at the ring's tail, waiting while the ring is full of
 * posted commands (they raise no event) or has a backlog, until the device
 * has moved its head on; -EBUSY once it has not moved for
 * NPUEP_CMD_TIMEOUT_MS.  Returns with slot_lock held on success; sleeps.
 */
static int npuep_cmdq_slot(struct npuep_dev *ndev, u32 ring,
			   struct npu_cmd **slotp)
{
	struct npuep_cmdq *q = &ndev->cmd.q[ring];
	u32 head, last = NPU_CMD_RING_SIZE;
	unsigned long deadline = 0;
	int err;

	for (;;) {
		spin_lock_bh(&q->slot_lock);
		err = npuep_cmdq_try_slot_ordered(ndev, ring, slotp);
		if (err != -EAGAIN)
			break;
		spin_unlock_bh(&q->slot_lock);
		/* Stuck is a device that stops moving, not a long backlog. */
		head = npuep_rd32(ndev, NPU_REG_CMDQ(ring) + NPU_CMDQ_HEAD);
		if (!deadline || head != last)
			deadline = jiffies + msecs_to_jiffies(NPUEP_CMD_TIMEOUT_MS);
		last = head;
		if (time_after(jiffies, deadline)) {
			dev_err_ratelimited(ndev->dev,
					    "command ring %u stuck (head %u tail %u)\n",
					    ring,
					    npuep_rd32(ndev, NPU_REG_CMDQ(ring) + NPU_CMDQ_HEAD),
					    READ_ONCE(q->tail));
			return -EBUSY;
		}
		usleep_range(20, 100);
	}
	if (err)
		spin_unlock_bh(&q->slot_lock);
	return err;
}

/* Tell the device of the slots filled up to the tail; slot_lock held. */
static void npuep_cmdq_doorbell(struct npuep_dev *ndev, u32 ring)
{
	/* Slot contents before the doorbell. */
	dma_wmb();
	npuep_wr32(ndev, NPU_REG_CMDQ(ring) + NPU_CMDQ_TAIL,
		   ndev->cmd.q[ring].tail);
}

/*
 * Fill @slot, the one at the tail, with a posted command and move the tail
 * on; the doorbell is the caller's.  slot_lock held.
 */
static void npuep_cmdq_fill_posted(struct npuep_cmdq *q, struct npu_cmd *slot,
				   u16 opcode, const void *req, u16 req_len)
{
	lockdep_assert_held(&q->slot_lock);
	npuep_cmd_fill(q, slot, opcode, NPU_CMD_F_POSTED, req, req_len);
	q->posted_slots |= BIT(q->tail);
	q->posted++;
	q->tail = (q->tail + 1) % NPU_CMD_RING_SIZE;
}

/* Fill @slot with a posted command and ring the doorbell; slot_lock held. */
static void npuep_cmdq_put_posted(struct npuep_dev *ndev, u32 ring,
				  struct npu_cmd *slot, u16 opcode,
				  const void *req, u16 req_len)
{
	npuep_cmdq_fill_posted(&ndev->cmd.q[ring], slot, opcode, req, req_len);
	npuep_cmdq_doorbell(ndev, ring);
}

static bool npuep_cmd_slot_done(struct npu_cmd *slot)
{
	return le16_to_cpu(READ_ONCE(slot->flags)) & NPU_CMD_F_DONE;
}

/*
 * A waited command on @q timed out.  One that changes the device is a fault
 * for the observer.  A read is counted only, unless it is the
 * NPUEP_CMD_READ_MISSES-th in a row on this ring with nothing completed in
 * between: a device that is slow answers some, one that stopped answers
 * none, and must be reported even where nothing but reads is waited for
 * (the flow writes are posted).
 */
static void npuep_cmd_timed_out(struct npuep_dev *ndev, struct npuep_cmdq *q, u16 opcode)
{
	if (npu_cmd_reads_only(opcode)) {
		q->read_timeouts++;
		if (++q->read_misses < NPUEP_CMD_READ_MISSES)
			return;
	}
	q->read_misses = 0;
	npuep_cmd_fault(ndev, q->idx, opcode);
}

/**
 * npuep_cmd_exec_ring() - run one command on a command ring and wait
 * @ndev: the coprocessor
 * @ring: enum npuep_cmd_ring
 * @opcode: enum npu_cmd_opcode
 * @req: request payload, @req_len bytes (at most NPU_CMD_DATA_LEN)
 * @req_len: request length
 * @resp: buffer for the response payload or NULL
 * @resp_len: size of @resp; a shorter response is zero padded
 *
 * Sleeps; must not be called in atomic context.  A timeout of a command
 * that changes the device (npu_cmd_reads_only() false) is a fault for the
 * observer (npuep_cmd_observe()), whose recovery resets the rings; a read's
 * is only counted (read_timeouts): the caller asks again later, and a
 * device that is slow, not stopped, costs no reset - unless it is the
 * NPUEP_CMD_READ_MISSES-th read in a row to time out on the ring.
 *
 * Return: 0, a negative errno from the device's status, -ETIMEDOUT when the
 * device did not complete the command in NPUEP_CMD_TIMEOUT_MS, or -EIO when
 * it completed it inconsistently (another sequence number or opcode, a
 * head past the tail, a malformed response: each counted in ndev->cmd_chk
 * and, where the ring must be reset, a fault like a timeout).
 */
int npuep_cmd_exec_ring(struct npuep_dev *ndev, u32 ring, u16 opcode,
			const void *req, u16 req_len, void *resp, u16 resp_len)
{
	enum npuep_cmd_verdict verdict;
	struct npuep_cmdq *q;
	unsigned long deadline;
	struct npu_cmd *slot;
	u16 seq;
	int err;

	if (req_len > NPU_CMD_DATA_LEN || ring >= NPU_CMD_RINGS)
		return -EINVAL;
	q = &ndev->cmd.q[ring];

	mutex_lock(&q->lock);
	err = npuep_cmdq_slot(ndev, ring, &slot);
	if (err)
		goto out_unlocked;
	npuep_cmd_fill(q, slot, opcode, 0, req, req_len);
	seq = q->seq;
	/* Posters skip this slot until its response is read. */
	q->held = q->tail;
	q->tail = (q->tail + 1) % NPU_CMD_RING_SIZE;
	npuep_cmdq_doorbell(ndev, ring);
	spin_unlock_bh(&q->slot_lock);

	deadline = jiffies + msecs_to_jiffies(NPUEP_CMD_TIMEOUT_MS);
	while (!npuep_cmd_slot_done(slot)) {
		if (time_after(jiffies, deadline)) {
			dev_err_ratelimited(ndev->dev,
					    "command %u seq %u on ring %u timed out after %u ms (slot %u flags %#x head %u)\n",
					    opcode, seq, ring, NPUEP_CMD_TIMEOUT_MS,
					    (u32)(slot - q->ring),
					    le16_to_cpu(READ_ONCE(slot->flags)),
					    npuep_rd32(ndev, NPU_REG_CMDQ(ring) + NPU_CMDQ_HEAD));
			q->timeouts++;
			npuep_cmd_timed_out(ndev, q, opcode);
			err = -ETIMEDOUT;
			goto out;
		}
		wait_event_timeout(ndev->cmd.wq, npuep_cmd_slot_done(slot),
				   msecs_to_jiffies(NPUEP_CMD_SLICE_MS));
	}
	q->read_misses = 0;
	/* DONE is written last: read the rest after it. */
	dma_rmb();

	verdict = npuep_cmd_completion_check(&ndev->cmd_chk, ndev->dev, ring,
					     slot, opcode, seq);
	err = npuep_cmd_verdict_act(ndev, ring, opcode, verdict);
	if (err)
		goto out;
	err = npuep_cmd_status_errno(le16_to_cpu(slot->status));
	if (!err && resp) {
		verdict = npuep_cmd_resp_copy(&ndev->cmd_chk, ndev->dev, slot,
					      opcode, req, req_len, resp,
					      resp_len);
		err = npuep_cmd_verdict_act(ndev, ring, opcode, verdict);
	}
out:
	WRITE_ONCE(q->held, NPU_CMD_RING_SIZE);
out_unlocked:
	mutex_unlock(&q->lock);
	return err;
}

/* Free the backlog; true when a command in it would have changed tables. */
bool npuep_cmdq_backlog_drop(struct npuep_cmdq *q)
{
	struct npuep_cmd_pending *p, *tmp;
	bool tables = false;

	lockdep_assert_held(&q->slot_lock);
	list_for_each_entry_safe(p, tmp, &q->backlog, node) {
		if (npu_cmd_changes_tables(p->opcode))
			tables = true;
		list_del(&p->node);
		kfree(p);
	}
	q->backlog_len = 0;
	wake_up_all(&q->room_wq);
	return tables;
}

/*
 * Move the backlog into the ring, in order, as the device frees slots.
 * Posted commands raise no event, so the device's head is polled, as
 * npuep_cmdq_slot() does; once the device has not moved for
 * NPUEP_CMD_TIMEOUT_MS the poll slows to 20 ms and rings the doorbell again
 * each time (a waited table command on the ring times out meanwhile and the
 * "cmd" health recovery resets the ring, which empties the backlog).
 */
static void npuep_cmdq_drain_work(struct work_struct *work)
{
	struct npuep_cmdq *q = container_of(work, struct npuep_cmdq, drain_work);
	unsigned long deadline = jiffies + msecs_to_jiffies(NPUEP_CMD_TIMEOUT_MS);
	struct npuep_dev *ndev = q->ndev;
	struct npuep_cmd_pending *p;
	u32 nmoved = 0, sleeps = 0;
	struct npu_cmd *slot;
	bool moved, empty;
	u64 sleep_ns = 0;
	int err = 0;

	for (;;) {
		moved = false;
		spin_lock_bh(&q->slot_lock);
		while ((p = list_first_entry_or_null(&q->backlog,
						     struct npuep_cmd_pending, node))) {
			err = npuep_cmdq_try_slot(ndev, q->idx, &slot);
			if (err)
				break;
			npuep_cmdq_put_posted(ndev, q->idx, slot, p->opcode,
					      p->data, p->len);
			list_del(&p->node);
			q->backlog_len--;
			kfree(p);
			moved = true;
			nmoved++;
		}
		if (moved && q->backlog_len < NPUEP_CMD_BACKLOG_LOW)
			wake_up_all(&q->room_wq);
		/*
		 * Device gone or broken: the backlog goes, and a table command
		 * in it leaves the tables for the "cmd" recovery to resync.
		 */
		if (err && err != -EAGAIN && npuep_cmdq_backlog_drop(q))
			WRITE_ONCE(ndev->cmd_chk.resync, true);
		empty = list_empty(&q->backlog);
		spin_unlock_bh(&q->slot_lock);
		if (empty) {
			trace_npuep_cmd_drained(ndev->dev, q->idx, nmoved,
						sleeps, sleep_ns);
			return;
		}
		if (moved)
			deadline = jiffies + msecs_to_jiffies(NPUEP_CMD_TIMEOUT_MS);
		if (time_after(jiffies, deadline)) {
			dev_err_ratelimited(ndev->dev,
					    "command ring %u not moving, %u commands queued behind it\n",
					    q->idx, READ_ONCE(q->backlog_len));
			/*
			 * Ring the doorbell again (the same tail): a device
			 * that lost the last one, or came back from a stall,
			 * sees the full ring; nothing else would ring it.
			 */
			spin_lock_bh(&q->slot_lock);
			if (!ndev->cmd.dead)
				npuep_wr32(ndev, NPU_REG_CMDQ(q->idx) + NPU_CMDQ_TAIL,
					   q->tail);
			spin_unlock_bh(&q->slot_lock);
			msleep(20);
		} else {
			u64 t0 = ktime_get_ns();

			usleep_range(20, 100);
			sleeps++;
			sleep_ns += ktime_get_ns() - t0;
		}
	}
}

/*
 * Queue a posted command behind @q's full ring, slot_lock held (GFP_ATOMIC).
 * Return: NPUEP_CMD_BACKLOGGED, -ENOBUFS with NPUEP_CMD_BACKLOG_MAX
 * commands queued, or -ENOMEM.
 */
static int npuep_cmdq_backlog_add(struct npuep_cmdq *q, u16 opcode,
				  const void *req, u16 req_len)
{
	struct npuep_cmd_pending *p;

	lockdep_assert_held(&q->slot_lock);
	if (q->backlog_len >= NPUEP_CMD_BACKLOG_MAX)
		return -ENOBUFS;
	p = kmalloc(sizeof(*p), GFP_ATOMIC);
	if (!p)
		return -ENOMEM;
	p->opcode = opcode;
	p->len = req_len;
	memcpy(p->data, req, req_len);
	list_add_tail(&p->node, &q->backlog);
	q->backlog_len++;
	q->backlogged++;
	trace_npuep_cmd_backlog(q->ndev->dev, q->idx, opcode, q->backlog_len);
	queue_work(system_unbound_wq, &q->drain_work);
	return NPUEP_CMD_BACKLOGGED;
}

/**
 * npuep_cmd_backlog_wait() - wait for room in a ring's backlog
 * @ndev: the coprocessor
 * @ring: enum npuep_cmd_ring
 *
 * Sleeps while @ring's backlog holds NPUEP_CMD_BACKLOG_HIGH commands or
 * more, until it falls under NPUEP_CMD_BACKLOG_LOW, for as long as the
 * device keeps moving its head: a burst of posted commands (a teardown of
 * the whole table behind a slow engine) goes at the device's pace instead
 * of overrunning the backlog, whose overrun costs a ring reset and a
 * replay of the table.  A device whose head has not moved for
 * NPUEP_CMD_TIMEOUT_MS has stopped: the wait ends, no writer waits again
 * until the head moves, and what the callers post meanwhile may be lost
 * and recovered (the "cmd" health recovery).  Call it before taking a
 * lock the device must not extend (the flow table's, seed 004), never
 * under it.  Sleeps.
 *
 * Return: 0 when there is room, -EBUSY when the device stopped moving,
 * -ENODEV when it is gone.
 */
int npuep_cmd_backlog_wait(struct npuep_dev *ndev, u32 ring)
{
	struct npuep_cmdq *q;
	unsigned long deadline;
	u32 head, last;

	if (ring >= NPU_CMD_RINGS)
		return -EINVAL;
	q = &ndev->cmd.q[ring];
	if (READ_ONCE(q->backlog_len) < NPUEP_CMD_BACKLOG_HIGH)
		return 0;
	last = npuep_rd32(ndev, NPU_REG_CMDQ(ring) + NPU_CMDQ_HEAD);
	if (last == READ_ONCE(q->stopped_head))
		return -EBUSY;
	WRITE_ONCE(q->stopped_head, U32_MAX);
	spin_lock_bh(&q->slot_lock);
	q->backlog_waits++;
	spin_unlock_bh(&q->slot_lock);
	deadline = jiffies + msecs_to_jiffies(NPUEP_CMD_TIMEOUT_MS);
	for (;;) {
		wait_event_timeout(q->room_wq,
				   READ_ONCE(q->backlog_len) < NPUEP_CMD_BACKLOG_LOW ||
				   READ_ONCE(ndev->cmd.dead),
				   msecs_to_jiffies(NPUEP_CMD_SLICE_MS));
		if (READ_ONCE(ndev->cmd.dead))
			return -ENODEV;
		if (READ_ONCE(q->backlog_len) < NPUEP_CMD_BACKLOG_LOW)
			return 0;
		head = npuep_rd32(ndev, NPU_REG_CMDQ(ring) + NPU_CMDQ_HEAD);
		if (head != last)
			deadline = jiffies + msecs_to_jiffies(NPUEP_CMD_TIMEOUT_MS);
		last = head;
		if (time_after(jiffies, deadline)) {
			WRITE_ONCE(q->stopped_head, head);
			return -EBUSY;
		}
	}
}

/**
 * npuep_cmd_post() - post one command without waiting for it
 * @ndev: the coprocessor
 * @ring: enum npuep_cmd_ring
 * @opcode: enum npu_cmd_opcode
 * @req: request payload
 * @req_len: request length (at most NPU_CMD_DATA_LEN)
 * @mode: what a full ring (or one with a backlog: commands keep ring
 *	order) does: NPUEP_CMD_POST_WAIT sleeps until the device frees a slot;
 *	NPUEP_CMD_POST_BACKLOG never sleeps and queues the command in the
 *	ring's backlog, which a work item moves into the ring in order as the
 *	device frees slots (for callers that hold a lock the device must not
 *	extend: the flow table's, seed 004)
 *
 * The device executes the command in ring order and raises no completion
 * event; its status is checked when its slot is reused (posted_failed).
 *
 * Return: 0 once the command is in the ring, NPUEP_CMD_BACKLOGGED once it
 * is in the backlog; -EBUSY (NPUEP_CMD_POST_WAIT) when the device has not
 * moved its head for NPUEP_CMD_TIMEOUT_MS; -ENOBUFS with
 * NPUEP_CMD_BACKLOG_MAX commands queued, -ENOMEM, or another negative
 * errno.
 */
int npuep_cmd_post(struct npuep_dev *ndev, u32 ring, u16 opcode,
		   const void *req, u16 req_len, enum npuep_cmd_post_mode mode)
{
	struct npuep_cmdq *q;
	struct npu_cmd *slot;
	int err;

	if (req_len > NPU_CMD_DATA_LEN || ring >= NPU_CMD_RINGS)
		return -EINVAL;
	q = &ndev->cmd.q[ring];
	if (mode == NPUEP_CMD_POST_WAIT) {
		err = npuep_cmdq_slot(ndev, ring, &slot);	/* locks on success */
		if (err)
			return err;
	} else {
		spin_lock_bh(&q->slot_lock);
		err = npuep_cmdq_try_slot_ordered(ndev, ring, &slot);
	}
	if (!err)
		npuep_cmdq_put_posted(ndev, ring, slot, opcode, req, req_len);
	else if (err == -EAGAIN)	/* NPUEP_CMD_POST_BACKLOG */
		err = npuep_cmdq_backlog_add(q, opcode, req, req_len);
	spin_unlock_bh(&q->slot_lock);
	return err;
}

/**
 * npuep_cmd_batch_add() - put one posted command into a batch's ring
 * @b: the batch (npuep_cmd_batch_init())
 * @opcode: enum npu_cmd_opcode
 * @req: request payload
 * @req_len: request length (at most NPU_CMD_DATA_LEN)
 *
 * Posts the command (as npuep_cmd_post()) without sleeping and without
 * queueing it behind a full ring, callable from NAPI; the doorbell waits
 * for npuep_cmd_batch_end(): the commands of a batch reach the device
 * with one doorbell.  The first add takes the ring's slot_lock, which the
 * batch holds until its end.
 *
 * Return: 0 once the command is in the ring, -EBUSY while the ring is full
 * (or has a backlog), or another negative errno.
 */
int npuep_cmd_batch_add(struct npuep_cmd_batch *b, u16 opcode,
			const void *req, u16 req_len)
{
	struct npuep_dev *ndev = b->ndev;
	struct npu_cmd *slot;
	struct npuep_cmdq *q;
	int err;

	if (req_len > NPU_CMD_DATA_LEN || b->ring >= NPU_CMD_RINGS)
		return -EINVAL;
	q = &ndev->cmd.q[b->ring];
	if (!b->locked) {
		spin_lock_bh(&q->slot_lock);
		b->locked = true;
	}
	err = npuep_cmdq_try_slot_ordered(ndev, b->ring, &slot);
	if (err)
		return err == -EAGAIN ? -EBUSY : err;
	npuep_cmdq_fill_posted(q, slot, opcode, req, req_len);
	b->n++;
	return 0;
}

/**
 * npuep_cmd_batch_end() - ring a batch's doorbell once, and let its ring go
 * @b: the batch; it may be used again, empty
 */
void npuep_cmd_batch_end(struct npuep_cmd_batch *b)
{
	struct npuep_cmdq *q;

	if (!b->locked)
		return;
	q = &b->ndev->cmd.q[b->ring];
	if (b->n)
		npuep_cmdq_doorbell(b->ndev, b->ring);
	spin_unlock_bh(&q->slot_lock);
	b->locked = false;
	b->n = 0;
}

/* Program @ring's slots into the device, emptied; its tail from the device's head. */
void npuep_cmdq_program(struct npuep_dev *ndev, u32 ring)
{
	struct npuep_cmdq *q = &ndev->cmd.q[ring];
	u32 base = NPU_REG_CMDQ(ring);

	npuep_wr32(ndev, base + NPU_CMDQ_SIZE, 0);
	memset(q->ring, 0, NPU_CMD_RING_SIZE * sizeof(struct npu_cmd));
	npuep_wr32(ndev, base + NPU_CMDQ_BASE, lower_32_bits(q->dma));
	npuep_wr32(ndev, base + NPU_CMDQ_BASE_HI, upper_32_bits(q->dma));
	npuep_wr32(ndev, base + NPU_CMDQ_SIZE, NPU_CMD_RING_SIZE);
	q->tail = npuep_rd32(ndev, base + NPU_CMDQ_HEAD) % NPU_CMD_RING_SIZE;
	ndev->cmd_chk.head_seen[ring] = q->tail;
	q->posted_slots = 0;
	WRITE_ONCE(q->stopped_head, U32_MAX);
}

static void npuep_cmdq_free(struct npuep_dev *ndev)
{
	size_t size = NPU_CMD_RING_SIZE * sizeof(struct npu_cmd);
	u32 r;

	for (r = 0; r < NPU_CMD_RINGS; r++) {
		struct npuep_cmdq *q = &ndev->cmd.q[r];

		npuep_wr32(ndev, NPU_REG_CMDQ(r) + NPU_CMDQ_SIZE, 0);
		if (q->ring)
			dma_free_coherent(ndev->hw->dma_dev, size, q->ring,
					  q->dma);
		q->ring = NULL;
	}
}

/**
 * npuep_cmd_init() - set up the command rings and the command vector
 * @ndev: the coprocessor
 *
 * Ring 0 (normal) and ring 1 (high priority: the device serves it first),
 * each with its own slots, sequence and lock.
 *
 * Return: 0 or a negative errno.
 */
int npuep_cmd_init(struct npuep_dev *ndev)
{
	struct npu_hw *hw = ndev->hw;
	size_t size = NPU_CMD_RING_SIZE * sizeof(struct npu_cmd);
	int irq, err;
	u32 r;

	init_waitqueue_head(&ndev->cmd.wq);
	/* for the flow code's counters (dlx.h) */
	ndev->dlx.cmdq = ndev->cmd.q;
	for (r = 0; r < NPU_CMD_RINGS; r++) {
		struct npuep_cmdq *q = &ndev->cmd.q[r];

		mutex_init(&q->lock);
		spin_lock_init(&q->slot_lock);
		q->ndev = ndev;
		q->idx = r;
		INIT_LIST_HEAD(&q->backlog);
		init_waitqueue_head(&q->room_wq);
		INIT_WORK(&q->drain_work, npuep_cmdq_drain_work);
		q->held = NPU_CMD_RING_SIZE;
		q->ring = dma_alloc_coherent(hw->dma_dev, size, &q->dma,
					     GFP_KERNEL);
		if (!q->ring) {
			err = -ENOMEM;
			goto err_free;
		}
		npuep_cmdq_program(ndev, r);
	}

	irq = hw->ops->irq(hw, NPU_VEC_CMD);
	if (irq < 0) {
		err = irq;
		dev_err(ndev->dev, "no command vector: %d\n", err);
		goto err_free;
	}
	err = request_irq(irq, npuep_cmd_irq, 0, dev_name(ndev->dev), ndev);
	if (err) {
		dev_err(ndev->dev, "request_irq(%d) for commands: %d\n",
			irq, err);
		goto err_free;
	}
	ndev->cmd.irq = irq;
	npuep_wr32(ndev, NPU_REG_CMD_IRQ_UNMASK, 1);
	return 0;

err_free:
	npuep_cmdq_free(ndev);
	return err;
}

/**
 * npuep_link_events_stop() - stop handling link events before ports go
 * @ndev: the coprocessor
 */
void npuep_link_events_stop(struct npuep_dev *ndev)
{
	WRITE_ONCE(ndev->removing, true);
	synchronize_irq(ndev->cmd.irq);
	cancel_work_sync(&ndev->link_work);
}

/**
 * npuep_cmd_fini() - tear down the command rings and the command vector
 * @ndev: the coprocessor
 */
void npuep_cmd_fini(struct npuep_dev *ndev)
{
	u32 r;

	for (r = 0; r < NPU_CMD_RINGS; r++) {
		struct npuep_cmdq *q = &ndev->cmd.q[r];

		mutex_lock(&q->lock);
		spin_lock_bh(&q->slot_lock);
		WRITE_ONCE(ndev->cmd.dead, true);
		spin_unlock_bh(&q->slot_lock);
		mutex_unlock(&q->lock);
		cancel_work_sync(&q->drain_work);
		spin_lock_bh(&q->slot_lock);
		npuep_cmdq_backlog_drop(q);
		spin_unlock_bh(&q->slot_lock);
	}

	free_irq(ndev->cmd.irq, ndev);
	cancel_work_sync(&ndev->link_work);
	npuep_cmdq_free(ndev);
}
