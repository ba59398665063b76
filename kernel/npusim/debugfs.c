// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/debug/npusim/<ID>/
 *
 *   p<N>/stats       port N's counters (panel numbering, as the wires),
 *                    its ingress FIFO's (ingress.c)
 *   p<N>/q<Q>        queue pair Q's counters and ring state
 *   force_rx_full    every receive ring reads full: frames are dropped and
 *                    counted in rx_qfull (exercises the host's counters)
 *   tx_defer         transmit passes run from the work item (default Y);
 *                    N runs them inline in the doorbell writer when its
 *                    context allows and every CPU is the model's
 *   cores            the CPUs the model's work runs on, a cpulist
 *                    (cores.c)
 *   core_work        per CPU, the model's work done there (cores.c)
 *   cmd_stall        the command channel stops executing (a hung
 *                    firmware); clearing it resumes at the next doorbell
 *   cmd_delay_us     every command takes this much longer (a slow
 *                    command engine; cmd.c)
 *   corrupt          "CLASS N": the next N writes of a field are wrong (the
 *                    host must count and survive each); N 0 disarms.
 *                    Reading lists each class with the writes left
 *                    (armed) and those done.  Classes: rx_len, rx_port,
 *                    rx_reason, rx_conn (receive descriptors), cmd_seq,
 *                    cmd_opcode (waited completions), cmd_head (HEAD
 *                    reads, 2 past the tail, until the ring is
 *                    reprogrammed), stats_count, stats_conn
 *                    (NPU_CMD_CONN_STATS answers), area_rev, area_state,
 *                    area_conn (the statistics entry of a forwarded
 *                    frame's connection, with a million frames more);
 *                    see enum npusim_corrupt
 *   cmd_irqs, bad_cmds
 *   datapath_ns      CPU time the model's datapath took, all CPUs (ns):
 *                    ingress, transmit passes, wire NAPI less the stack
 *   dp_work_ns       of datapath_ns, the transmit passes and deferred
 *                    ingress run in the model's work items (kworkers), all
 *                    CPUs (ns)
 *
 * Counters are read through the same code as the registers.
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "npusim.h"

static int npusim_dbg_port_show(struct seq_file *m, void *v)
{
	struct npusim_port *port = m->private;

	seq_printf(m, "link %u\n", !!(npusim_port_link(port) & NPU_LINK_UP));
	seq_printf(m, "host_up %u\n", READ_ONCE(port->host_up));
	seq_printf(m, "mtu %u\n", READ_ONCE(port->mtu));
	seq_printf(m, "mac %pM\n", port->mac);
	seq_printf(m, "rx_runts %lld\n", atomic64_read(&port->rx_runts));
	seq_printf(m, "rx_malformed %lld\n",
		   atomic64_read(&port->rx_malformed));
	seq_printf(m, "rx_oversize %lld\n", atomic64_read(&port->rx_oversize));
	seq_printf(m, "rx_noqueue %lld\n", atomic64_read(&port->rx_noqueue));
	seq_printf(m, "tx_bad %lld\n", atomic64_read(&port->tx_bad));
	npusim_ingress_show(m, port);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(npusim_dbg_port);

static int npusim_dbg_qp_show(struct seq_file *m, void *v)
{
	struct npusim_qp *qp = m->private;
	struct npusim_coal c;
	unsigned long flags;

	spin_lock_irqsave(&qp->irq_lock, flags);
	c = qp->coal;
	spin_unlock_irqrestore(&qp->irq_lock, flags);

	seq_printf(m, "vector %u\n", qp->vec);
	seq_printf(m, "ctrl %#x\n", READ_ONCE(qp->ctrl));
	seq_printf(m, "rx_size %u\nrx_head %u\nrx_tail %u\n",
		   READ_ONCE(qp->rx_size), READ_ONCE(qp->rx_head),
		   READ_ONCE(qp->rx_tail));
	seq_printf(m, "tx_size %u\ntx_head %u\ntx_tail %u\n",
		   READ_ONCE(qp->tx_size), READ_ONCE(qp->tx_head),
		   READ_ONCE(qp->tx_tail));
	seq_printf(m, "rx_frames %llu\n", READ_ONCE(qp->rx_frames));
	seq_printf(m, "rx_bytes %llu\n", READ_ONCE(qp->rx_bytes));
	seq_printf(m, "rx_qfull %llu\n", READ_ONCE(qp->rx_qfull));
	seq_printf(m, "rx_irqs %llu\n", READ_ONCE(qp->rx_irqs));
	seq_printf(m, "rx_badbuf %llu\n", READ_ONCE(qp->rx_badbuf));
	seq_printf(m, "tx_frames %llu\n", READ_ONCE(qp->tx_frames));
	seq_printf(m, "tx_bytes %llu\n", READ_ONCE(qp->tx_bytes));
	seq_printf(m, "tx_inline %llu\n", READ_ONCE(qp->tx_inline));
	seq_printf(m, "tx_deferred %llu\n", READ_ONCE(qp->tx_deferred));
	seq_printf(m, "coal_frames %u\ncoal_usecs %u\n", c.frames, c.usecs);
	seq_printf(m, "irq_enabled %u\nirq_masked %u\nirq_pending %u\n",
		   c.enabled, c.masked, c.pending);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(npusim_dbg_qp);

static void npusim_dbg_percpu_sum(struct seq_file *m, u64 __percpu *ns)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += *per_cpu_ptr(ns, cpu);
	seq_printf(m, "%llu\n", sum);
}

static int npusim_dbg_datapath_ns_show(struct seq_file *m, void *v)
{
	struct npusim_dev *nd = m->private;

	npusim_dbg_percpu_sum(m, nd->datapath_ns);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(npusim_dbg_datapath_ns);

static int npusim_dbg_dp_work_ns_show(struct seq_file *m, void *v)
{
	struct npusim_dev *nd = m->private;

	npusim_dbg_percpu_sum(m, nd->dp_work_ns);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(npusim_dbg_dp_work_ns);

static const char * const npusim_corrupt_names[NPUSIM_CORRUPT_MAX] = {
	[NPUSIM_CORRUPT_RX_LEN] = "rx_len",
	[NPUSIM_CORRUPT_RX_PORT] = "rx_port",
	[NPUSIM_CORRUPT_RX_REASON] = "rx_reason",
	[NPUSIM_CORRUPT_RX_CONN] = "rx_conn",
	[NPUSIM_CORRUPT_CMD_SEQ] = "cmd_seq",
	[NPUSIM_CORRUPT_CMD_OPCODE] = "cmd_opcode",
	[NPUSIM_CORRUPT_CMD_HEAD] = "cmd_head",
	[NPUSIM_CORRUPT_STATS_COUNT] = "stats_count",
	[NPUSIM_CORRUPT_STATS_CONN] = "stats_conn",
	[NPUSIM_CORRUPT_AREA_REV] = "area_rev",
	[NPUSIM_CORRUPT_AREA_STATE] = "area_state",
	[NPUSIM_CORRUPT_AREA_CONN] = "area_conn",
};

static int npusim_dbg_corrupt_show(struct seq_file *m, void *v)
{
	struct npusim_dev *nd = m->private;
	int i;

	for (i = 0; i < NPUSIM_CORRUPT_MAX; i++)
		seq_printf(m, "%s armed %d done %lld\n", npusim_corrupt_names[i],
			   atomic_read(&nd->corrupt[i]),
			   atomic64_read(&nd->corrupted[i]));
	return 0;
}

static int npusim_dbg_corrupt_open(struct inode *inode, struct file *file)
{
	return single_open(file, npusim_dbg_corrupt_show, inode->i_private);
}

/* "CLASS [N]": arm N (default 1) corruptions of CLASS; N 0 disarms. */
static ssize_t npusim_dbg_corrupt_write(struct file *file,
					const char __user *ubuf, size_t len,
					loff_t *ppos)
{
	struct npusim_dev *nd = file_inode(file)->i_private;
	char buf[48], name[24];
	int n = 1, i;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	if (sscanf(buf, "%23s %d", name, &n) < 1 || n < 0)
		return -EINVAL;
	i = match_string(npusim_corrupt_names, NPUSIM_CORRUPT_MAX, name);
	if (i < 0)
		return i;
	atomic_set(&nd->corrupt[i], n);
	return len;
}

static const struct file_operations npusim_dbg_corrupt_fops = {
	.owner = THIS_MODULE,
	.open = npusim_dbg_corrupt_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
	.write = npusim_dbg_corrupt_write,
};

/* /sys/kernel/debug/npusim, the devices' directories' parent */
static struct dentry *npusim_dbg_root;

/**
 * npusim_debugfs_init - create the model's debugfs directory (module init)
 */
void npusim_debugfs_init(void)
{
	npusim_dbg_root = debugfs_create_dir(DRV_NAME, NULL);
}

/**
 * npusim_debugfs_exit - remove it (module exit, every device gone)
 */
void npusim_debugfs_exit(void)
{
	debugfs_remove_recursive(npusim_dbg_root);
}

/**
 * npusim_debugfs_create - create the device's debugfs directory
 * @nd: device
 */
void npusim_debugfs_create(struct npusim_dev *nd)
{
	struct npusim_port *port;
	char name[16];
	u32 p, q;

	snprintf(name, sizeof(name), "%u", nd->id);
	nd->dbg = debugfs_create_dir(name, npusim_dbg_root);
	debugfs_create_bool("force_rx_full", 0600, nd->dbg, &nd->force_rx_full);
	debugfs_create_bool("tx_defer", 0600, nd->dbg, &nd->tx_defer);
	debugfs_create_bool("cmd_stall", 0600, nd->dbg, &nd->cmd_stall);
	debugfs_create_u64("cmd_irqs", 0400, nd->dbg, &nd->cmd_irqs);
	debugfs_create_u64("bad_cmds", 0400, nd->dbg, &nd->bad_cmds);
	debugfs_create_file("corrupt", 0600, nd->dbg, nd,
			    &npusim_dbg_corrupt_fops);
	debugfs_create_file("datapath_ns", 0400, nd->dbg, nd,
			    &npusim_dbg_datapath_ns_fops);
	debugfs_create_file("dp_work_ns", 0400, nd->dbg, nd,
			    &npusim_dbg_dp_work_ns_fops);
	for (p = 0; p < nd->nports; p++) {
		port = &nd->ports[p];
		snprintf(name, sizeof(name), "p%u", p + 1);
		port->dbg = debugfs_create_dir(name, nd->dbg);
		debugfs_create_file("stats", 0400, port->dbg, port,
				    &npusim_dbg_port_fops);
		for (q = 0; q < nd->nqueues; q++) {
			snprintf(name, sizeof(name), "q%u", q);
			debugfs_create_file(name, 0400, port->dbg,
					    &port->qps[q], &npusim_dbg_qp_fops);
		}
	}
}

/**
 * npusim_debugfs_destroy - remove the device's debugfs directory
 * @nd: device
 */
void npusim_debugfs_destroy(struct npusim_dev *nd)
{
	debugfs_remove_recursive(nd->dbg);
	nd->dbg = NULL;
}
