// SPDX-License-Identifier: GPL-2.0
/*
 * npuep flow offload: debugfs ft_teardown, where a mass removal's time goes.
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>

#include "npuep.h"
#include "flow_priv.h"

static int npuep_ft_td_show(struct seq_file *m, void *v)
{
	struct npuep_ft *ft = m->private;
	struct npuep_ft_td td;
	u32 r;

	spin_lock(&ft->td.lock);
	td = ft->td;
	spin_unlock(&ft->td.lock);
	seq_printf(m, "destroys %llu\nfirst_ns %llu\nlast_entry_ns %llu\nlast_ns %llu\n",
		   td.n, td.first_ns, td.last_entry_ns, td.last_ns);
	seq_printf(m, "wait_ns %llu\nwait_max_ns %llu\nheld_ns %llu\nheld_max_ns %llu\n",
		   td.wait_ns, td.wait_max_ns, td.held_ns, td.held_max_ns);
	seq_printf(m, "inflight_max %u\nnoop %u\nmissed %lld\n", td.inflight_max,
		   td.noop, atomic64_read(&ft->destroy_missed));
	seq_printf(m, "queued %llu\nsync %llu\n", READ_ONCE(ft->destroy_queued),
		   READ_ONCE(ft->destroy_sync));
	for (r = 0; r < NPU_CMD_RINGS; r++) {
		struct npuep_cmdq *q = &ft->ndev->dlx.cmdq[r];

		seq_printf(m, "ring%u_posted %llu\nring%u_backlogged %llu\nring%u_backlog_max %u\nring%u_drained_ns %llu\n",
			   r, READ_ONCE(q->posted), r, READ_ONCE(q->backlogged),
			   r, READ_ONCE(q->backlog_max), r, READ_ONCE(q->drained_ns));
		seq_printf(m, "ring%u_drain_sleeps %llu\nring%u_drain_sleep_ns %llu\n",
			   r, READ_ONCE(q->drain_sleeps), r, READ_ONCE(q->drain_sleep_ns));
	}
	return 0;
}

static int npuep_ft_td_open(struct inode *inode, struct file *file)
{
	return single_open(file, npuep_ft_td_show, inode->i_private);
}

/* Any write resets the figures; "noop 1" / "noop 0" sets the bench knob. */
static ssize_t npuep_ft_td_write(struct file *file, const char __user *ubuf,
				 size_t len, loff_t *ppos)
{
	struct npuep_ft *ft = file_inode(file)->i_private;
	char buf[16] = {};
	u32 r;

	if (copy_from_user(buf, ubuf, min(len, sizeof(buf) - 1)))
		return -EFAULT;
	spin_lock(&ft->td.lock);
	ft->td.n = 0;
	ft->td.first_ns = 0;
	ft->td.last_entry_ns = 0;
	ft->td.last_ns = 0;
	ft->td.wait_ns = 0;
	ft->td.wait_max_ns = 0;
	ft->td.held_ns = 0;
	ft->td.held_max_ns = 0;
	ft->td.inflight_max = 0;
	if (!strncmp(buf, "noop ", 5))
		WRITE_ONCE(ft->td.noop, buf[5] == '1');
	spin_unlock(&ft->td.lock);
	for (r = 0; r < NPU_CMD_RINGS; r++) {
		struct npuep_cmdq *q = &ft->ndev->dlx.cmdq[r];

		spin_lock_bh(&q->slot_lock);
		q->backlog_max = 0;
		q->drained_ns = 0;
		q->drain_sleeps = 0;
		q->drain_sleep_ns = 0;
		spin_unlock_bh(&q->slot_lock);
	}
	return len;
}

static const struct file_operations npuep_ft_td_fops = {
	.owner = THIS_MODULE,
	.open = npuep_ft_td_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
	.write = npuep_ft_td_write,
};

/**
 * npuep_ft_debugfs_init() - the flow table's debugfs directory
 * @ft: the flow table; its directory is ft->dbg, removed by npuep_flow_fini()
 *
 * Makes <debugfs>/npuep/<device>/ft_teardown (read: the figures; write:
 * reset them, "noop 1"/"noop 0": the bench knob).
 */
void npuep_ft_debugfs_init(struct npuep_ft *ft)
{
	ft->dbg = debugfs_create_dir(dev_name(ft->ndev->dev), npuep_dbg_root);
	debugfs_create_file("ft_teardown", 0600, ft->dbg, ft, &npuep_ft_td_fops);
}
