// SPDX-License-Identifier: GPL-2.0
/*
 * The coprocessor's cores: the CPUs a device's work runs on (debugfs
 * <ID>/cores, a cpulist, every possible CPU by default), and what ran on
 * each CPU (debugfs <ID>/core_work).
 *
 * While the mask holds every online CPU, the model runs as it always has:
 * ingress inline in the wire's transmit (the sender's CPU), transmit passes
 * on the device's unbound workqueue, the command loop on
 * system_highpri_wq.  A narrower mask puts all of it on the mask's CPUs,
 * each item on one CPU (a coprocessor core owns its rings): a frame the wire
 * transmits waits in its port's FIFO for the port's work item (ingress.c),
 * and the ports' ingress, each queue pair's transmit passes and the command
 * loop run from per-CPU workqueues through queue_work_on().  The moderation
 * timers are armed pinned from those contexts (irq.c), so they fire there.
 * (A module cannot give an unbound workqueue a cpumask:
 * apply_workqueue_attrs() is not exported.)
 *
 * Placement, from the mask's CPUs online when it is written, c[0..k-1]: the
 * command loop on c[0], port P's ingress on c[P % k], queue pair Q of port P
 * on c[(P * nqueues + Q) % k].  Until the next write, a CPU that comes
 * online is not used, and the work of one that goes offline runs where the
 * kernel moves its workqueues' workers.
 *
 * A write sets the placement and then the mode, and waits for an RCU grace
 * period: every queuer reads them in a read-side section, and so is every
 * pass that runs inline (the wire's transmit and the transmit doorbell run
 * their ingress or pass in one), so afterwards none runs or queues by the
 * old ones.  Then each work item is cancelled and queued again by the new
 * ones: a work item queued while it runs is queued where it runs, so a busy
 * item would never leave its old CPU.  A work item finds what is left to do
 * (a ring's tail, a FIFO's frames) when it runs, so a queueing the cancel
 * swallowed is made good by the one after it.  An armed timer is cancelled
 * and restarted at once on its pair's CPU: the vector is raised there at most
 * its delay early, not lost.  When the mask widens again, the frames still in
 * the FIFOs are taken by the work items while new ones go inline: a change
 * may reorder the frames in flight at that moment; it loses none.
 *
 * This file and ingress.c call each other: a port's FIFO queues its work
 * item where the placement says (npusim_cores_queue_ingress()), and a new
 * placement moves that item (npusim_ingress_move()).  The placement is
 * this file's and the FIFO is ingress.c's; either alone would hold the
 * other's state.
 */
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>

#include "npusim.h"

/**
 * struct npusim_cores - where one device's work runs
 * @lock: serialises writes of the mask
 * @mask: the mask as last written (under @lock)
 * @narrow: the mask left out an online CPU when written: the work runs by
 *	the placement below
 * @wq: per-CPU workqueue of the ports' ingress and the transmit passes
 * @wq_hi: per-CPU, high-priority workqueue of the command loop (it must not
 *	queue behind the datapath's work: cmd.c)
 * @cmd_cpu: the command loop's CPU
 * @port_cpu: each port's ingress CPU
 * @qp_cpu: each queue pair's CPU, by port * nqueues + queue
 *
 * What ran where is counted in the device's core_work.
 */
struct npusim_cores {
	struct mutex lock;	/* see above */
	cpumask_var_t mask;
	bool narrow;
	struct workqueue_struct *wq;
	struct workqueue_struct *wq_hi;
	unsigned int cmd_cpu;
	unsigned int *port_cpu;
	unsigned int *qp_cpu;
};

static const char * const npusim_cw_names[NPUSIM_CW_MAX] = {
	[NPUSIM_CW_INGRESS] = "ingress",
	[NPUSIM_CW_TX] = "tx",
	[NPUSIM_CW_CMD] = "cmd",
	[NPUSIM_CW_TIMER] = "timer",
};

/**
 * npusim_cores_narrow - does the model run on cores of its own
 * @nd: device
 *
 * Call in an RCU read-side section (BH disabled is one) that also covers
 * what is done by the answer: a mask's write waits for it.
 *
 * Return: true while the mask leaves out an online CPU.
 */
bool npusim_cores_narrow(struct npusim_dev *nd)
{
	return READ_ONCE(nd->cores->narrow);
}

/*
 * Queue @work where the placement puts it: on the CPU in *@cpu through the
 * per-CPU @wq while the mask is narrow, else on @wide.  The mode and the
 * placement are read in one RCU read-side section, which a mask's write
 * waits for.  Nothing once the device is dead.
 */
static void npusim_cores_queue(struct npusim_dev *nd, const unsigned int *cpu,
			       struct workqueue_struct *wq,
			       struct workqueue_struct *wide,
			       struct work_struct *work)
{
	if (READ_ONCE(nd->dead))
		return;
	rcu_read_lock();
	if (READ_ONCE(nd->cores->narrow))
		queue_work_on(READ_ONCE(*cpu), wq, work);
	else
		queue_work(wide, work);
	rcu_read_unlock();
}

/**
 * npusim_cores_queue_tx - queue a pair's transmit work where it runs
 * @qp: queue pair
 *
 * Any context.  Nothing once the device is dead.
 */
void npusim_cores_queue_tx(struct npusim_qp *qp)
{
	struct npusim_dev *nd = qp->nd;
	struct npusim_cores *c = nd->cores;
	unsigned int i = qp->port->idx * nd->nqueues + qp->idx;

	npusim_cores_queue(nd, &c->qp_cpu[i], c->wq, nd->wq, &qp->tx_work);
}

/**
 * npusim_cores_queue_cmd - queue the command loop where it runs
 * @nd: device
 *
 * Any context.  Nothing once the device is dead.
 */
void npusim_cores_queue_cmd(struct npusim_dev *nd)
{
	struct npusim_cores *c = nd->cores;

	npusim_cores_queue(nd, &c->cmd_cpu, c->wq_hi, system_highpri_wq,
			   &nd->cmd_work);
}

/**
 * npusim_cores_queue_ingress - queue a port's ingress work where it runs
 * @port: port
 * @work: its work item (ingress.c)
 *
 * Any context.  Nothing once the device is dead.
 */
void npusim_cores_queue_ingress(struct npusim_port *port,
				struct work_struct *work)
{
	struct npusim_dev *nd = port->nd;
	struct npusim_cores *c = nd->cores;

	npusim_cores_queue(nd, &c->port_cpu[port->idx], c->wq, nd->wq, work);
}

/* On the pair's CPU: its timer, cancelled elsewhere, expires here now. */
static void npusim_cores_timer_fire(void *info)
{
	struct npusim_qp *qp = info;

	if (!READ_ONCE(qp->nd->dead))
		hrtimer_start(&qp->timer, 0, HRTIMER_MODE_REL_PINNED);
}

/* Every work item and armed timer to where the placement now puts it. */
static void npusim_cores_move(struct npusim_dev *nd, bool narrow)
{
	struct npusim_cores *c = nd->cores;
	struct npusim_qp *qp;
	unsigned int cpu;
	u32 p, q;

	cancel_work_sync(&nd->cmd_work);
	npusim_cores_queue_cmd(nd);
	for (p = 0; p < nd->nports; p++) {
		npusim_ingress_move(&nd->ports[p]);
		for (q = 0; q < nd->nqueues; q++) {
			qp = &nd->ports[p].qps[q];
			cancel_work_sync(&qp->tx_work);
			npusim_cores_queue_tx(qp);
			if (!narrow || !hrtimer_cancel(&qp->timer))
				continue;
			cpu = c->qp_cpu[p * nd->nqueues + q];
			if (smp_call_function_single(cpu, npusim_cores_timer_fire,
						     qp, 1))
				npusim_cores_timer_fire(qp);	/* went offline */
		}
	}
}

/* Each item's CPU among @on's (online, not empty). */
static void npusim_cores_place(struct npusim_dev *nd, const struct cpumask *on)
{
	struct npusim_cores *c = nd->cores;
	unsigned int k = cpumask_weight(on), i;

	WRITE_ONCE(c->cmd_cpu, cpumask_first(on));
	for (i = 0; i < nd->nports; i++)
		WRITE_ONCE(c->port_cpu[i], cpumask_nth(i % k, on));
	for (i = 0; i < nd->nports * nd->nqueues; i++)
		WRITE_ONCE(c->qp_cpu[i], cpumask_nth(i % k, on));
}

/**
 * npusim_cores_set - run the model's work on @mask's CPUs
 * @nd: device
 * @mask: the CPUs
 *
 * Process context; returns once no work of the device runs or is queued by
 * the old mask (see the file's comment).
 *
 * Return: 0, -EINVAL if @mask holds no online CPU, -ENOMEM.
 */
static int npusim_cores_set(struct npusim_dev *nd, const struct cpumask *mask)
{
	struct npusim_cores *c = nd->cores;
	cpumask_var_t on;
	bool narrow;
	int err = 0;

	if (!alloc_cpumask_var(&on, GFP_KERNEL))
		return -ENOMEM;
	mutex_lock(&c->lock);
	cpus_read_lock();
	cpumask_and(on, mask, cpu_online_mask);
	narrow = !cpumask_subset(cpu_online_mask, mask);
	if (cpumask_empty(on))
		err = -EINVAL;
	else
		npusim_cores_place(nd, on);
	cpus_read_unlock();
	if (err)
		goto out;
	cpumask_copy(c->mask, mask);
	WRITE_ONCE(c->narrow, narrow);
	synchronize_rcu();
	npusim_cores_move(nd, narrow);
out:
	mutex_unlock(&c->lock);
	free_cpumask_var(on);
	return err;
}

static int npusim_cores_show(struct seq_file *m, void *v)
{
	struct npusim_dev *nd = m->private;
	struct npusim_cores *c = nd->cores;

	mutex_lock(&c->lock);
	seq_printf(m, "%*pbl\n", cpumask_pr_args(c->mask));
	mutex_unlock(&c->lock);
	return 0;
}

static int npusim_cores_open(struct inode *inode, struct file *file)
{
	return single_open(file, npusim_cores_show, inode->i_private);
}

static ssize_t npusim_cores_write(struct file *file, const char __user *ubuf,
				  size_t len, loff_t *ppos)
{
	struct npusim_dev *nd = file_inode(file)->i_private;
	cpumask_var_t mask;
	char *buf;
	int err;

	if (len >= PAGE_SIZE)
		return -EINVAL;
	buf = memdup_user_nul(ubuf, len);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	if (!zalloc_cpumask_var(&mask, GFP_KERNEL)) {
		kfree(buf);
		return -ENOMEM;
	}
	err = cpulist_parse(strim(buf), mask);
	if (!err)
		err = npusim_cores_set(nd, mask);
	free_cpumask_var(mask);
	kfree(buf);
	return err ?: len;
}

static const struct file_operations npusim_cores_fops = {
	.owner = THIS_MODULE,
	.open = npusim_cores_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
	.write = npusim_cores_write,
};

static int npusim_core_work_show(struct seq_file *m, void *v)
{
	struct npusim_dev *nd = m->private;
	const struct npusim_core_work *w;
	u64 n[NPUSIM_CW_MAX], any;
	unsigned int cpu;
	int i;

	for_each_possible_cpu(cpu) {
		w = per_cpu_ptr(nd->core_work, cpu);
		for (i = 0, any = 0; i < NPUSIM_CW_MAX; i++) {
			n[i] = READ_ONCE(w->n[i]);
			any |= n[i];
		}
		if (!any)
			continue;
		seq_printf(m, "%u", cpu);
		for (i = 0; i < NPUSIM_CW_MAX; i++)
			seq_printf(m, " %s %llu", npusim_cw_names[i], n[i]);
		seq_putc(m, '\n');
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(npusim_core_work);

/**
 * npusim_cores_debugfs - the device's cores and core_work files
 * @nd: device (nd->dbg exists)
 *
 * cores (rw): the mask, a cpulist ("0-1,3"); a list with no online CPU is
 * refused (-EINVAL).  core_work (ro): one line per CPU that did any of the
 * model's work, "CPU ingress N tx N cmd N timer N": frames taken by
 * ingress (the fast path's included), transmit passes, command passes and
 * moderation timer expiries on that CPU since the device was created.
 */
void npusim_cores_debugfs(struct npusim_dev *nd)
{
	debugfs_create_file("cores", 0600, nd->dbg, nd, &npusim_cores_fops);
	debugfs_create_file("core_work", 0400, nd->dbg, nd,
			    &npusim_core_work_fops);
}

/**
 * npusim_cores_init - every possible CPU, and the workqueues of a narrower mask
 * @nd: device (ports allocated)
 *
 * Return: 0 or -ENOMEM; npusim_cores_fini() frees what was allocated.
 */
int npusim_cores_init(struct npusim_dev *nd)
{
	struct npusim_cores *c;

	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	nd->cores = c;
	mutex_init(&c->lock);
	c->port_cpu = kcalloc(nd->nports, sizeof(*c->port_cpu), GFP_KERNEL);
	c->qp_cpu = kcalloc(nd->nports * nd->nqueues, sizeof(*c->qp_cpu),
			    GFP_KERNEL);
	nd->core_work = alloc_percpu(struct npusim_core_work);
	if (!c->port_cpu || !c->qp_cpu || !nd->core_work ||
	    !alloc_cpumask_var(&c->mask, GFP_KERNEL))
		return -ENOMEM;
	cpumask_copy(c->mask, cpu_possible_mask);
	c->wq = alloc_workqueue(DRV_NAME "%u_cores", 0, 0, nd->id);
	c->wq_hi = alloc_workqueue(DRV_NAME "%u_cmd", WQ_HIGHPRI, 0, nd->id);
	if (!c->wq || !c->wq_hi)
		return -ENOMEM;
	return 0;
}

/**
 * npusim_cores_fini - free what npusim_cores_init() made
 * @nd: device, quiesced: nothing queues work any more
 *
 * Destroying the workqueues waits for what is still on them.
 */
void npusim_cores_fini(struct npusim_dev *nd)
{
	struct npusim_cores *c = nd->cores;

	if (!c)
		return;
	if (c->wq)
		destroy_workqueue(c->wq);
	if (c->wq_hi)
		destroy_workqueue(c->wq_hi);
	free_percpu(nd->core_work);
	nd->core_work = NULL;
	free_cpumask_var(c->mask);
	kfree(c->qp_cpu);
	kfree(c->port_cpu);
	mutex_destroy(&c->lock);
	kfree(c);
	nd->cores = NULL;
}
