// SPDX-License-Identifier: GPL-2.0
/*
 * The command channel: two rings of command slots (normal, high
 * priority) the firmware executes in order, high ring first.
 *
 * A TAIL doorbell queues the work item; the work item (process context)
 * copies a slot in under the ring lock, executes it without the lock, and
 * writes the result back only if the ring was not reconfigured meanwhile
 * (generation count), so disabling a ring (SIZE 0) from any context is
 * safe.  Every command completes: an unknown opcode gets
 * NPU_ST_BAD_OPCODE, bad lengths or parameters NPU_ST_BAD_PARAM.
 */
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/log2.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "npusim.h"

/**
 * npusim_cmdq_read - read a command ring register
 * @nd: device
 * @ring: ring index
 * @reg: register offset in the ring's block
 *
 * Return: the value, 0 for unknown registers.
 */
u32 npusim_cmdq_read(struct npusim_dev *nd, u32 ring, u32 reg)
{
	struct npusim_cmdq *cq = &nd->cmdq[ring];

	switch (reg) {
	case NPU_CMDQ_BASE:
		return lower_32_bits(READ_ONCE(cq->base));
	case NPU_CMDQ_BASE_HI:
		return upper_32_bits(READ_ONCE(cq->base));
	case NPU_CMDQ_SIZE:
		return READ_ONCE(cq->size);
	case NPU_CMDQ_TAIL:
		return READ_ONCE(cq->tail);
	case NPU_CMDQ_HEAD:
		if (READ_ONCE(cq->size) &&
		    npusim_corrupt_take(nd, NPUSIM_CORRUPT_CMD_HEAD))
			return (READ_ONCE(cq->tail) + 2) & (READ_ONCE(cq->size) - 1);
		return READ_ONCE(cq->head);
	}
	return 0;
}

/**
 * npusim_cmdq_write - write a command ring register
 * @nd: device
 * @ring: ring index
 * @reg: register offset in the ring's block
 * @val: value
 *
 * Any context.  Writing BASE or SIZE reconfigures the ring: HEAD and TAIL
 * restart at 0.  A SIZE that is not a power of two up to
 * NPU_CMD_RING_SIZE, or a ring not in memory, leaves the ring disabled.
 */
void npusim_cmdq_write(struct npusim_dev *nd, u32 ring, u32 reg, u32 val)
{
	struct npusim_cmdq *cq = &nd->cmdq[ring];
	unsigned long flags;
	bool kick = false;

	spin_lock_irqsave(&nd->cmd_lock, flags);
	switch (reg) {
	case NPU_CMDQ_BASE:
		cq->base = (cq->base & ~0xffffffffULL) | val;
		cq->size = 0;
		break;
	case NPU_CMDQ_BASE_HI:
		cq->base = (cq->base & 0xffffffffULL) | (u64)val << 32;
		cq->size = 0;
		break;
	case NPU_CMDQ_SIZE:
		if (val && (!is_power_of_2(val) || val > NPU_CMD_RING_SIZE ||
			    !IS_ALIGNED(cq->base, 8) ||
			    !npusim_dma_ok(cq->base,
					   (u64)val * sizeof(struct npu_cmd)))) {
			dev_warn_ratelimited(nd->bus_dev,
					     "command ring %u: base %#llx size %u refused\n",
					     ring, cq->base, val);
			val = 0;
		}
		cq->size = val;
		break;
	case NPU_CMDQ_TAIL:
		if (cq->size && val < cq->size) {
			WRITE_ONCE(cq->tail, val);
			nd->cmd_tm.doorbells++;
			kick = true;
		}
		goto out;
	default:
		goto out;
	}
	/* BASE or SIZE: the ring restarts, and its HEAD reads true again */
	atomic_set(&nd->corrupt[NPUSIM_CORRUPT_CMD_HEAD], 0);
	cq->gen++;
	WRITE_ONCE(cq->head, 0);
	WRITE_ONCE(cq->tail, 0);
out:
	spin_unlock_irqrestore(&nd->cmd_lock, flags);
	if (kick)
		npusim_cores_queue_cmd(nd);
}

static u16 npusim_cmd_fw_info(struct npusim_dev *nd, struct npu_cmd *c)
{
	struct npu_cmd_fw_info *fi = (struct npu_cmd_fw_info *)c->data;

	BUILD_BUG_ON(sizeof(*fi) > NPU_CMD_DATA_LEN);
	memset(fi, 0, sizeof(*fi));
	strscpy(fi->name, DRV_NAME, sizeof(fi->name));
	strscpy(fi->version, NPUSIM_FW_VERSION_STR, sizeof(fi->version));
	fi->serial = cpu_to_le64(0x4e50550000000000ULL | nd->id);
	fi->nports = cpu_to_le32(nd->nports);
	fi->nqueues = cpu_to_le32(nd->nqueues);
	fi->caps = cpu_to_le32(NPUSIM_CAPS);
	c->len = cpu_to_le16(sizeof(*fi));
	return NPU_ST_OK;
}

static u16 npusim_cmd_port_cfg(struct npusim_dev *nd, struct npu_cmd *c,
			       u16 len)
{
	const struct npu_cmd_port_cfg *pc = (const void *)c->data;
	u16 port = le16_to_cpu(pc->port), mtu = le16_to_cpu(pc->mtu);

	BUILD_BUG_ON(sizeof(*pc) > NPU_CMD_DATA_LEN);
	if (len < sizeof(*pc) || port >= nd->nports || mtu < NPUSIM_MTU_MIN ||
	    mtu > NPUSIM_MTU_MAX || pc->up > 1)
		return NPU_ST_BAD_PARAM;
	WRITE_ONCE(nd->ports[port].mtu, mtu);
	npusim_port_set_host_up(&nd->ports[port], pc->up);
	c->len = 0;
	return NPU_ST_OK;
}

static u16 npusim_cmd_coalesce(struct npusim_dev *nd, struct npu_cmd *c,
			       u16 len)
{
	const struct npu_cmd_coalesce *cc = (const void *)c->data;
	u16 port = le16_to_cpu(cc->port), queue = le16_to_cpu(cc->queue);
	u32 usecs = le32_to_cpu(cc->usecs), frames = le32_to_cpu(cc->frames);
	u32 q;

	BUILD_BUG_ON(sizeof(*cc) > NPU_CMD_DATA_LEN);
	if (len < sizeof(*cc) || port >= nd->nports ||
	    (queue >= nd->nqueues && queue != NPU_COALESCE_ALL_QUEUES) ||
	    usecs > NPUSIM_COAL_USECS_MAX || frames > NPUSIM_COAL_FRAMES_MAX)
		return NPU_ST_BAD_PARAM;
	for (q = 0; q < nd->nqueues; q++)
		if (queue == NPU_COALESCE_ALL_QUEUES || queue == q)
			npusim_qp_coal_set(&nd->ports[port].qps[q], frames,
					   usecs);
	c->len = 0;
	return NPU_ST_OK;
}

static u16 npusim_cmd_exec(struct npusim_dev *nd, struct npu_cmd *c)
{
	u16 len = le16_to_cpu(c->len);

	if (len > NPU_CMD_DATA_LEN)
		return NPU_ST_BAD_PARAM;
	switch (le16_to_cpu(c->opcode)) {
	case NPU_CMD_NOP:
		c->len = 0;
		return NPU_ST_OK;
	case NPU_CMD_FW_INFO:
		return npusim_cmd_fw_info(nd, c);
	case NPU_CMD_PORT_CFG:
		return npusim_cmd_port_cfg(nd, c, len);
	case NPU_CMD_COALESCE:
		return npusim_cmd_coalesce(nd, c, len);
	default: {
		int st = npusim_fp_cmd(nd, c, len);

		if (st < 0)
			st = npusim_ntuple_cmd(nd, c, len);
		if (st >= 0)
			return st;
	}
	}
	return NPU_ST_BAD_OPCODE;
}

/*
 * What the debugfs "corrupt" knob makes of a completion written back into
 * @slot from @c, before DONE: a connection-stats answer's count or first
 * index; a waited command's sequence number or opcode (the host matches
 * those only for what it waits for).
 */
static void npusim_cmd_corrupt(struct npusim_dev *nd, struct npu_cmd *slot,
			       const struct npu_cmd *c, u16 st)
{
	struct npu_cmd_conn_stats *cs = (struct npu_cmd_conn_stats *)slot->data;
	u16 op = le16_to_cpu(c->opcode);

	BUILD_BUG_ON(sizeof(*cs) > NPU_CMD_DATA_LEN);
	if (op == NPU_CMD_CONN_STATS && st == NPU_ST_OK) {
		if (npusim_corrupt_take(nd, NPUSIM_CORRUPT_STATS_COUNT))
			cs->count = cpu_to_le16(NPU_CONN_STATS_MAX + 1);
		if (npusim_corrupt_take(nd, NPUSIM_CORRUPT_STATS_CONN))
			cs->st[0].conn = cpu_to_le32(le32_to_cpu(cs->st[0].conn) +
						     NPU_CONN_STATS_MAX);
	}
	if (le16_to_cpu(c->flags) & NPU_CMD_F_POSTED)
		return;
	if (npusim_corrupt_take(nd, NPUSIM_CORRUPT_CMD_SEQ))
		slot->seq = cpu_to_le16(le16_to_cpu(c->seq) + 1);
	if (npusim_corrupt_take(nd, NPUSIM_CORRUPT_CMD_OPCODE))
		slot->opcode = cpu_to_le16(op + 1);
}

/* Execute the next slot of @ring.  Return: true if one was executed. */
static bool npusim_cmd_one(struct npusim_dev *nd, u32 ring,
			   struct npu_cmd *c, bool *raise)
{
	struct npusim_cmdq *cq = &nd->cmdq[ring];
	struct npu_cmd *slot;
	unsigned long flags;
	u32 head, gen, delay;
	u16 st;

	spin_lock_irqsave(&nd->cmd_lock, flags);
	head = cq->head;
	if (!cq->size || head == cq->tail) {
		spin_unlock_irqrestore(&nd->cmd_lock, flags);
		return false;
	}
	gen = cq->gen;
	/* The slot was written before the tail. */
	dma_rmb();
	slot = (struct npu_cmd *)npusim_dma_va(cq->base) + head;
	memcpy(c, slot, sizeof(*c));
	spin_unlock_irqrestore(&nd->cmd_lock, flags);

	delay = READ_ONCE(nd->cmd_delay_us);
	if (delay)
		fsleep(delay);
	st = npusim_cmd_exec(nd, c);
	if (st != NPU_ST_OK)
		nd->bad_cmds++;
	nd->cmd_tm.cmds++;

	spin_lock_irqsave(&nd->cmd_lock, flags);
	if (cq->gen == gen && cq->size) {
		slot = (struct npu_cmd *)npusim_dma_va(cq->base) + head;
		memcpy(slot->data, c->data, NPU_CMD_DATA_LEN);
		slot->len = st == NPU_ST_OK ? c->len : 0;
		slot->status = cpu_to_le16(st);
		npusim_cmd_corrupt(nd, slot, c, st);
		/* response before DONE (release order) */
		dma_wmb();
		WRITE_ONCE(slot->flags, cpu_to_le16(le16_to_cpu(c->flags) |
						    NPU_CMD_F_DONE));
		WRITE_ONCE(cq->head, (head + 1) & (cq->size - 1));
		if (!(le16_to_cpu(c->flags) & NPU_CMD_F_POSTED))
			*raise = true;
	}
	spin_unlock_irqrestore(&nd->cmd_lock, flags);
	return true;
}

/**
 * npusim_cmd_work - the firmware's command loop
 * @work: nd->cmd_work
 *
 * Drains the high ring before each slot of the normal ring; raises the
 * command vector once per pass if a waited command completed.  Runs on
 * system_highpri_wq, or on a high-priority per-CPU workqueue on the mask's
 * first CPU while the model runs on cores of its own (cores.c): the
 * firmware's command core is not the host's CPU, so it must not queue
 * behind the model's own transmit work and the guest's traffic (62 under
 * TCG: CONN_CREATE timed out after 2 s with the ring's head not moving
 * while 1,024 connections streamed).
 */
void npusim_cmd_work(struct work_struct *work)
{
	struct npusim_dev *nd = container_of(work, struct npusim_dev, cmd_work);
	bool raise = false, did;
	struct npu_cmd *c;
	u64 t0;

	if (READ_ONCE(nd->cmd_stall) || READ_ONCE(nd->dead))
		return;
	t0 = ktime_get_ns();
	nd->cmd_tm.runs++;
	npusim_cores_count(nd, NPUSIM_CW_CMD);
	c = kmalloc(sizeof(*c), GFP_KERNEL);
	if (!c) {
		npusim_cores_queue_cmd(nd);
		return;
	}
	do {
		did = false;
		while (npusim_cmd_one(nd, 1, c, &raise))
			did = true;
		if (npusim_cmd_one(nd, 0, c, &raise))
			did = true;
		cond_resched();
	} while (did && !READ_ONCE(nd->dead));
	kfree(c);
	if (raise)
		npusim_cmd_irq_event(nd, NPU_EVT_CMD_DONE);
	nd->cmd_tm.busy_ns += ktime_get_ns() - t0;
}

static int npusim_cmd_timing_show(struct seq_file *m, void *v)
{
	struct npusim_dev *nd = m->private;

	seq_printf(m, "doorbells %llu\nruns %llu\ncmds %llu\nbusy_ns %llu\n",
		   nd->cmd_tm.doorbells, nd->cmd_tm.runs, nd->cmd_tm.cmds,
		   nd->cmd_tm.busy_ns);
	seq_printf(m, "first_ns %llu\nlast_ns %llu\nzero_ns %llu\n",
		   nd->cmd_tm.first_ns, nd->cmd_tm.last_ns, nd->cmd_tm.zero_ns);
	return 0;
}

static int npusim_cmd_timing_open(struct inode *inode, struct file *file)
{
	return single_open(file, npusim_cmd_timing_show, inode->i_private);
}

static ssize_t npusim_cmd_timing_write(struct file *file,
				       const char __user *ubuf, size_t len,
				       loff_t *ppos)
{
	struct npusim_dev *nd = file_inode(file)->i_private;

	memset(&nd->cmd_tm, 0, sizeof(nd->cmd_tm));
	return len;
}

static const struct file_operations npusim_cmd_timing_fops = {
	.owner = THIS_MODULE,
	.open = npusim_cmd_timing_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
	.write = npusim_cmd_timing_write,
};

/* A slow command engine takes at most a second a command. */
#define NPUSIM_CMD_DELAY_MAX_US	USEC_PER_SEC

static int npusim_cmd_delay_set(void *data, u64 val)
{
	struct npusim_dev *nd = data;

	if (val > NPUSIM_CMD_DELAY_MAX_US)
		return -EINVAL;
	WRITE_ONCE(nd->cmd_delay_us, val);
	return 0;
}

static int npusim_cmd_delay_get(void *data, u64 *val)
{
	struct npusim_dev *nd = data;

	*val = READ_ONCE(nd->cmd_delay_us);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(npusim_cmd_delay_fops, npusim_cmd_delay_get,
			 npusim_cmd_delay_set, "%llu\n");

/**
 * npusim_cmd_debugfs - the command loop's debugfs files
 * @nd: model device (nd->dbg exists)
 *
 * cmd_timing (make bench): doorbells, passes of the loop, commands
 * executed, time in the loop; the first and last reclaim or invalidate
 * executed and when a reclaim left no connection (ktime_get_ns).  A write
 * resets them.
 *
 * cmd_delay_us: every command, on either ring, takes this much longer to
 * execute (a command engine slowed down by load), up to
 * NPUSIM_CMD_DELAY_MAX_US; 0 (the default) adds nothing.
 */
void npusim_cmd_debugfs(struct npusim_dev *nd)
{
	debugfs_create_file("cmd_timing", 0600, nd->dbg, nd,
			    &npusim_cmd_timing_fops);
	debugfs_create_file_unsafe("cmd_delay_us", 0600, nd->dbg, nd,
				   &npusim_cmd_delay_fops);
}
