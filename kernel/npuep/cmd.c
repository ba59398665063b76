// SPDX-License-Identifier: GPL-2.0
/*
 * npuep command channel: ring 0 of the coprocessor's command rings.
 *
 * One command is in flight at a time (cmd_lock).  The slot is written, the
 * doorbell rung, and the caller sleeps until the device sets NPU_CMD_F_DONE
 * in the slot; the command vector (vector 0) wakes it.  The wait is sliced so
 * that a lost interrupt costs a few milliseconds, not the command, and it is
 * bounded: a device that never answers gives -ETIMEDOUT, never a hang.
 */
#include <linux/dma-mapping.h>
#include <linux/interrupt.h>
#include <linux/jiffies.h>

#include "npuep.h"

#define NPUEP_CMD_SLICE_MS	20

static irqreturn_t npuep_cmd_irq(int irq, void *data)
{
	struct npuep_dev *ndev = data;
	u32 events;

	events = npuep_rd32(ndev, NPU_REG_EVENTS);
	if (events & NPU_EVT_CMD_DONE)
		complete(&ndev->cmd_done);
	if ((events & NPU_EVT_LINK) && !READ_ONCE(ndev->removing))
		schedule_work(&ndev->link_work);
	npuep_wr32(ndev, NPU_REG_CMD_IRQ_UNMASK, 1);
	return IRQ_HANDLED;
}

static int npuep_cmd_status_to_errno(u16 status)
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

/**
 * npuep_cmd_exec() - run one command on the normal command ring and wait
 * @ndev: the coprocessor
 * @opcode: enum npu_cmd_opcode
 * @req: request payload, @req_len bytes (at most NPU_CMD_DATA_LEN)
 * @req_len: request length
 * @resp: buffer for the response payload or NULL
 * @resp_len: size of @resp; a shorter response is zero padded
 *
 * Sleeps; must not be called in atomic context.
 *
 * Return: 0, a negative errno from the device's status, -ETIMEDOUT when the
 * device did not complete the command in NPUEP_CMD_TIMEOUT_MS, or -EIO when
 * it completed it inconsistently.
 */
int npuep_cmd_exec(struct npuep_dev *ndev, u16 opcode, const void *req,
		   u16 req_len, void *resp, u16 resp_len)
{
	unsigned long deadline;
	struct npu_cmd *slot;
	u32 head, next;
	u16 seq, flags;
	int err;

	if (req_len > NPU_CMD_DATA_LEN)
		return -EINVAL;

	mutex_lock(&ndev->cmd_lock);
	if (ndev->cmd_dead) {
		err = -ENODEV;
		goto out;
	}

	next = (ndev->cmd_tail + 1) % NPU_CMD_RING_SIZE;
	head = npuep_rd32(ndev, NPU_REG_CMDQ(0) + NPU_CMDQ_HEAD);
	if (head >= NPU_CMD_RING_SIZE || next == head) {
		dev_err(ndev->dev, "command ring stuck (head %u tail %u)\n",
			head, ndev->cmd_tail);
		err = -EBUSY;
		goto out;
	}

	slot = &ndev->cmd_ring[ndev->cmd_tail];
	seq = ++ndev->cmd_seq;
	memset(slot, 0, sizeof(*slot));
	slot->opcode = cpu_to_le16(opcode);
	slot->seq = cpu_to_le16(seq);
	slot->len = cpu_to_le16(req_len);
	if (req_len)
		memcpy(slot->data, req, req_len);

	reinit_completion(&ndev->cmd_done);
	/* Slot contents before the doorbell. */
	dma_wmb();
	ndev->cmd_tail = next;
	npuep_wr32(ndev, NPU_REG_CMDQ(0) + NPU_CMDQ_TAIL, next);

	deadline = jiffies + msecs_to_jiffies(NPUEP_CMD_TIMEOUT_MS);
	for (;;) {
		flags = le16_to_cpu(READ_ONCE(slot->flags));
		if (flags & NPU_CMD_F_DONE)
			break;
		if (time_after(jiffies, deadline)) {
			dev_err(ndev->dev,
				"command %u seq %u timed out after %u ms (slot %u flags %#x head %u)\n",
				opcode, seq, NPUEP_CMD_TIMEOUT_MS,
				(u32)(slot - ndev->cmd_ring), flags,
				npuep_rd32(ndev, NPU_REG_CMDQ(0) + NPU_CMDQ_HEAD));
			err = -ETIMEDOUT;
			goto out;
		}
		wait_for_completion_timeout(&ndev->cmd_done,
					    msecs_to_jiffies(NPUEP_CMD_SLICE_MS));
	}
	/* DONE is written last: read the rest after it. */
	dma_rmb();

	if (le16_to_cpu(slot->seq) != seq ||
	    le16_to_cpu(slot->opcode) != opcode) {
		dev_err(ndev->dev,
			"command %u seq %u completed as opcode %u seq %u\n",
			opcode, seq, le16_to_cpu(slot->opcode),
			le16_to_cpu(slot->seq));
		err = -EIO;
		goto out;
	}

	err = npuep_cmd_status_to_errno(le16_to_cpu(slot->status));
	if (!err && resp) {
		u16 len = min3(le16_to_cpu(slot->len), resp_len,
			       (u16)NPU_CMD_DATA_LEN);

		memcpy(resp, slot->data, len);
		memset(resp + len, 0, resp_len - len);
	}
out:
	mutex_unlock(&ndev->cmd_lock);
	return err;
}

/**
 * npuep_cmd_port_cfg() - push a port's MTU and host-side state
 * @port: the port
 * @up: host side administratively up
 *
 * Return: 0 or a negative errno from npuep_cmd_exec().
 */
int npuep_cmd_port_cfg(struct npuep_port *port, bool up)
{
	struct npu_cmd_port_cfg cfg = {
		.port = cpu_to_le16(port->idx),
		.mtu = cpu_to_le16(READ_ONCE(port->netdev->mtu)),
		.up = up,
	};

	return npuep_cmd_exec(port->ndev, NPU_CMD_PORT_CFG, &cfg, sizeof(cfg),
			      NULL, 0);
}

/**
 * npuep_cmd_coalesce() - set receive doorbell moderation
 * @port: the port
 * @queue: queue pair or NPU_COALESCE_ALL_QUEUES
 * @usecs: time limit, 0 = none
 * @frames: frame limit, 0 or 1 = a doorbell per frame
 *
 * Return: 0 or a negative errno from npuep_cmd_exec().
 */
int npuep_cmd_coalesce(struct npuep_port *port, u16 queue, u32 usecs,
		       u32 frames)
{
	struct npu_cmd_coalesce c = {
		.port = cpu_to_le16(port->idx),
		.queue = cpu_to_le16(queue),
		.usecs = cpu_to_le32(usecs),
		.frames = cpu_to_le32(frames),
	};

	return npuep_cmd_exec(port->ndev, NPU_CMD_COALESCE, &c, sizeof(c),
			      NULL, 0);
}

/**
 * npuep_cmd_init() - set up command ring 0 and the command vector
 * @ndev: the coprocessor
 *
 * Return: 0 or a negative errno.
 */
int npuep_cmd_init(struct npuep_dev *ndev)
{
	struct npu_hw *hw = ndev->hw;
	size_t size = NPU_CMD_RING_SIZE * sizeof(struct npu_cmd);
	u32 base = NPU_REG_CMDQ(0);
	int irq, err;

	mutex_init(&ndev->cmd_lock);
	init_completion(&ndev->cmd_done);

	ndev->cmd_ring = dma_alloc_coherent(hw->dma_dev, size,
					    &ndev->cmd_ring_dma, GFP_KERNEL);
	if (!ndev->cmd_ring)
		return -ENOMEM;

	npuep_wr32(ndev, base + NPU_CMDQ_SIZE, 0);
	npuep_wr32(ndev, base + NPU_CMDQ_BASE, lower_32_bits(ndev->cmd_ring_dma));
	npuep_wr32(ndev, base + NPU_CMDQ_BASE_HI,
		   upper_32_bits(ndev->cmd_ring_dma));
	npuep_wr32(ndev, base + NPU_CMDQ_SIZE, NPU_CMD_RING_SIZE);
	ndev->cmd_tail = npuep_rd32(ndev, base + NPU_CMDQ_HEAD) %
			 NPU_CMD_RING_SIZE;

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
	ndev->cmd_irq = irq;
	npuep_wr32(ndev, NPU_REG_CMD_IRQ_UNMASK, 1);
	return 0;

err_free:
	npuep_wr32(ndev, base + NPU_CMDQ_SIZE, 0);
	dma_free_coherent(hw->dma_dev, size, ndev->cmd_ring,
			  ndev->cmd_ring_dma);
	ndev->cmd_ring = NULL;
	return err;
}

/**
 * npuep_link_events_stop() - stop handling link events before ports go
 * @ndev: the coprocessor
 */
void npuep_link_events_stop(struct npuep_dev *ndev)
{
	WRITE_ONCE(ndev->removing, true);
	synchronize_irq(ndev->cmd_irq);
	cancel_work_sync(&ndev->link_work);
}

/**
 * npuep_cmd_fini() - tear down command ring 0 and the command vector
 * @ndev: the coprocessor
 */
void npuep_cmd_fini(struct npuep_dev *ndev)
{
	size_t size = NPU_CMD_RING_SIZE * sizeof(struct npu_cmd);

	mutex_lock(&ndev->cmd_lock);
	ndev->cmd_dead = true;
	mutex_unlock(&ndev->cmd_lock);

	npuep_wr32(ndev, NPU_REG_CMDQ(0) + NPU_CMDQ_SIZE, 0);
	free_irq(ndev->cmd_irq, ndev);
	cancel_work_sync(&ndev->link_work);
	dma_free_coherent(ndev->hw->dma_dev, size, ndev->cmd_ring,
			  ndev->cmd_ring_dma);
	ndev->cmd_ring = NULL;
}
