// SPDX-License-Identifier: GPL-2.0
/*
 * The coprocessor's interrupt vectors.
 *
 * An irq domain of 1 + nports * nqueues vectors with the model's own chip
 * and the edge flow handler (MSI's).  Vector 0 carries command completions
 * and link events; each queue pair's vector carries its receive frames,
 * moderated (frames/usecs, NPU_CMD_COALESCE), and its transmit
 * completions, raised once per transmit pass without moderation (the
 * host's queue restarts on them; a delayed completion stalls BQL and TCP).
 *
 * A vector is delivered where its affinity says, as an MSI controller
 * delivers it: the chip records the CPUs /proc/irq/N/smp_affinity asks for
 * as the effective affinity, and a raise on a CPU of that mask is handled
 * there (generic_handle_irq_safe()), one on another CPU goes to the first
 * online CPU of the mask by cross-call (npusim_vec_ipi()).  The default
 * mask holds every CPU, so by default each raise is handled where the model
 * raised it, as x86's lowest-priority delivery may pick any CPU of the set.
 * handle_edge_irq counts each vector in /proc/interrupts on the CPU that
 * handles it.
 *
 * Locking: the decision is taken under the vector's lock, the raise happens
 * after it is dropped (the host's handler may write our registers).
 */
#include <linux/cpumask.h>
#include <linux/hrtimer.h>
#include <linux/interrupt.h>
#include <linux/irq.h>
#include <linux/irqdomain.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/wait_bit.h>

#include "npusim.h"

/**
 * struct npusim_vec - how one vector reaches its CPU
 * @csd: the cross-call that handles it on another CPU
 * @data: its irq_data (the effective affinity)
 * @virq: its Linux IRQ
 * @inflight: raises on their way through @csd; npusim_irq_fini() waits
 *	for none
 */
struct npusim_vec {
	call_single_data_t csd;
	struct irq_data *data;
	unsigned int virq;
	atomic_t inflight;
};

static void npusim_irq_noop(struct irq_data *d)
{
}

/*
 * The CPUs asked for that are online become the effective affinity, read
 * by npusim_raise().  The core hands only online CPUs in unless it forces
 * (then the mask as given): with none online there is nowhere to deliver.
 */
static int npusim_irq_set_affinity(struct irq_data *d,
				   const struct cpumask *mask, bool force)
{
	static DEFINE_RAW_SPINLOCK(lock);	/* for @online */
	static struct cpumask online;
	int ret = IRQ_SET_MASK_OK;

	raw_spin_lock(&lock);
	if (cpumask_and(&online, mask, cpu_online_mask))
		irq_data_update_effective_affinity(d, &online);
	else
		ret = -EINVAL;
	raw_spin_unlock(&lock);
	return ret;
}

/* handle_edge_irq acks and masks: the model keeps no such state. */
static const struct irq_chip npusim_irq_chip = {
	.name			= DRV_NAME,
	.irq_ack		= npusim_irq_noop,
	.irq_mask		= npusim_irq_noop,
	.irq_unmask		= npusim_irq_noop,
	.irq_set_affinity	= npusim_irq_set_affinity,
	.flags			= IRQCHIP_SKIP_SET_WAKE,
};

static int npusim_irq_map(struct irq_domain *d, unsigned int virq,
			  irq_hw_number_t hw)
{
	/*
	 * Edge, as MSI: handle_simple_irq drops a raise that finds the
	 * handler running on another CPU, and with the vector masked by that
	 * raise nothing raised it again until the host's safety-net poll (a
	 * 10 s iperf3 through the host: 12 such stalls, 287 frames dropped
	 * at a full ring, 284 TCP retransmissions).  handle_edge_irq marks it
	 * pending and the running CPU replays the handler.
	 */
	irq_set_chip_and_handler(virq, &npusim_irq_chip, handle_edge_irq);
	irq_set_chip_data(virq, d->host_data);
	/*
	 * Its affinity changes at once, from process context: without this
	 * the core (GENERIC_PENDING_IRQ, x86) keeps a new mask pending until
	 * the chip moves it in its ack, which this chip has no reason to do.
	 */
	irq_set_status_flags(virq, IRQ_MOVE_PCNTXT);
	return 0;
}

static const struct irq_domain_ops npusim_irq_domain_ops = {
	.map	= npusim_irq_map,
	.xlate	= irq_domain_xlate_onecell,
};

static void npusim_vec_put(struct npusim_vec *v)
{
	if (atomic_dec_and_test(&v->inflight))
		wake_up_var(&v->inflight);
}

/* The cross-call, on the vector's CPU, interrupts off. */
static void npusim_vec_csd(void *info)
{
	struct npusim_vec *v = info;

	/* pairs with npusim_vec_ipi()'s: the raiser's writes are seen */
	smp_mb();
	generic_handle_irq_safe(v->virq);
	npusim_vec_put(v);
}

/*
 * Handle @v on @cpu (not this one) by cross-call.  Return: false when
 * @cpu is offline: the caller handles it itself.
 */
static bool npusim_vec_ipi(struct npusim_vec *v, unsigned int cpu)
{
	int err;

	atomic_inc(&v->inflight);
	/*
	 * What the model wrote before raising (descriptors, NPU_REG_EVENTS)
	 * is ordered before the csd's lock test: either the call queued
	 * earlier has not yet unlocked the csd and its smp_mb() comes after
	 * our writes, or we queue it anew.
	 */
	smp_mb__after_atomic();
	err = smp_call_function_single_async(cpu, &v->csd);
	if (!err)
		return true;	/* npusim_vec_csd() drops the count */
	npusim_vec_put(v);
	/*
	 * -EBUSY: the call queued earlier has not started.  The core unlocks
	 * an async csd before it calls the function (kernel/smp.c,
	 * __flush_smp_call_function_queue()), so that call runs the handler
	 * after this raise: the raise is covered.  A raise while the handler
	 * runs finds the csd unlocked and queues it again.
	 */
	return err == -EBUSY;
}

/*
 * The CPU to handle @v on: this one if it is in the vector's effective
 * mask (or the mask is empty: no one requested the vector yet), else the
 * first online CPU of the mask.
 */
static unsigned int npusim_vec_cpu(struct npusim_vec *v)
{
	const struct cpumask *m = irq_data_get_effective_affinity_mask(v->data);
	unsigned int self = smp_processor_id();
	unsigned int cpu;

	if (cpumask_test_cpu(self, m))
		return self;
	cpu = cpumask_first_and(m, cpu_online_mask);
	return cpu < nr_cpu_ids ? cpu : self;
}

static void npusim_raise(struct npusim_dev *nd, unsigned int vec)
{
	struct npusim_vec *v = &nd->vecs[vec];
	unsigned int cpu;

	if (!v->virq || READ_ONCE(nd->dead))
		return;
	preempt_disable();
	cpu = npusim_vec_cpu(v);
	if (cpu == smp_processor_id() || !npusim_vec_ipi(v, cpu))
		generic_handle_irq_safe(v->virq);
	preempt_enable();
}

static void npusim_qp_coal_act(struct npusim_qp *qp, unsigned int act)
{
	if (act & NPUSIM_COAL_CANCEL)
		hrtimer_try_to_cancel(&qp->timer);
	if ((act & NPUSIM_COAL_ARM) && !READ_ONCE(qp->nd->dead))
		hrtimer_start(&qp->timer, ns_to_ktime(qp->coal.usecs * NSEC_PER_USEC),
			      HRTIMER_MODE_REL_PINNED);	/* on the model's core */
	if (act & NPUSIM_COAL_RAISE)
		WRITE_ONCE(qp->rx_irqs, qp->rx_irqs + 1);
}

static void npusim_qp_raise(struct npusim_qp *qp, unsigned int act)
{
	if (act & NPUSIM_COAL_RAISE)
		npusim_raise(qp->nd, qp->vec);
}

static enum hrtimer_restart npusim_qp_timer(struct hrtimer *t)
{
	struct npusim_qp *qp = container_of(t, struct npusim_qp, timer);
	unsigned long flags;
	unsigned int act;

	npusim_cores_count(qp->nd, NPUSIM_CW_TIMER);
	spin_lock_irqsave(&qp->irq_lock, flags);
	act = npusim_coal_timer(&qp->coal);
	npusim_qp_coal_act(qp, act & ~(NPUSIM_COAL_CANCEL | NPUSIM_COAL_ARM));
	spin_unlock_irqrestore(&qp->irq_lock, flags);
	npusim_qp_raise(qp, act);
	return HRTIMER_NORESTART;
}

/**
 * npusim_qp_irq_event - @n events (frames received or completed) on a pair
 * @qp: queue pair
 * @n: events
 */
void npusim_qp_irq_event(struct npusim_qp *qp, u32 n)
{
	unsigned long flags;
	unsigned int act;

	spin_lock_irqsave(&qp->irq_lock, flags);
	/* the time matters only with a time threshold (rx-usecs) */
	act = npusim_coal_event(&qp->coal, n,
				qp->coal.usecs ? ktime_get_ns() : 0);
	npusim_qp_coal_act(qp, act);
	spin_unlock_irqrestore(&qp->irq_lock, flags);
	npusim_qp_raise(qp, act);
}

/**
 * npusim_qp_irq_kick - @n transmit completions on a pair: raise at once
 * @qp: queue pair
 * @n: completed frames
 */
void npusim_qp_irq_kick(struct npusim_qp *qp, u32 n)
{
	unsigned long flags;
	unsigned int act;

	spin_lock_irqsave(&qp->irq_lock, flags);
	act = npusim_coal_kick(&qp->coal, n);
	npusim_qp_coal_act(qp, act);
	spin_unlock_irqrestore(&qp->irq_lock, flags);
	npusim_qp_raise(qp, act);
}

/**
 * npusim_qp_irq_unmask - the host re-armed a pair's vector
 * @qp: queue pair
 */
void npusim_qp_irq_unmask(struct npusim_qp *qp)
{
	unsigned long flags;
	unsigned int act;

	spin_lock_irqsave(&qp->irq_lock, flags);
	act = npusim_coal_unmask(&qp->coal);
	npusim_qp_coal_act(qp, act);
	spin_unlock_irqrestore(&qp->irq_lock, flags);
	npusim_qp_raise(qp, act);
}

/**
 * npusim_qp_irq_enable - NPU_QP_CTRL_IRQ_EN changed
 * @qp: queue pair
 * @enable: new value
 */
void npusim_qp_irq_enable(struct npusim_qp *qp, bool enable)
{
	unsigned long flags;
	unsigned int act;

	spin_lock_irqsave(&qp->irq_lock, flags);
	act = npusim_coal_enable(&qp->coal, enable);
	npusim_qp_coal_act(qp, act);
	spin_unlock_irqrestore(&qp->irq_lock, flags);
	npusim_qp_raise(qp, act);
}

/**
 * npusim_qp_coal_set - NPU_CMD_COALESCE for one pair
 * @qp: queue pair
 * @frames: frame threshold
 * @usecs: time threshold
 */
void npusim_qp_coal_set(struct npusim_qp *qp, u32 frames, u32 usecs)
{
	unsigned long flags;
	unsigned int act;

	spin_lock_irqsave(&qp->irq_lock, flags);
	act = npusim_coal_set(&qp->coal, frames, usecs);
	npusim_qp_coal_act(qp, act);
	spin_unlock_irqrestore(&qp->irq_lock, flags);
	npusim_qp_raise(qp, act);
}

/**
 * npusim_qp_irq_stop - teardown: no timer runs or starts afterwards
 * @qp: queue pair
 *
 * Call with nd->dead set.
 */
void npusim_qp_irq_stop(struct npusim_qp *qp)
{
	hrtimer_cancel(&qp->timer);
}

/**
 * npusim_cmd_irq_event - signal events on the command vector
 * @nd: device
 * @events: NPU_EVT_* to set in NPU_REG_EVENTS
 */
void npusim_cmd_irq_event(struct npusim_dev *nd, u32 events)
{
	unsigned long flags;
	unsigned int act;

	atomic_or(events, &nd->events);
	spin_lock_irqsave(&nd->cmd_irq_lock, flags);
	act = npusim_coal_event(&nd->cmd_coal, 1, 0);
	if (act & NPUSIM_COAL_RAISE)
		nd->cmd_irqs++;
	spin_unlock_irqrestore(&nd->cmd_irq_lock, flags);
	if (act & NPUSIM_COAL_RAISE)
		npusim_raise(nd, NPU_VEC_CMD);
}

/**
 * npusim_cmd_irq_unmask - the host re-armed the command vector
 * @nd: device
 */
void npusim_cmd_irq_unmask(struct npusim_dev *nd)
{
	unsigned long flags;
	unsigned int act;

	spin_lock_irqsave(&nd->cmd_irq_lock, flags);
	act = npusim_coal_unmask(&nd->cmd_coal);
	if (act & NPUSIM_COAL_RAISE)
		nd->cmd_irqs++;
	spin_unlock_irqrestore(&nd->cmd_irq_lock, flags);
	if (act & NPUSIM_COAL_RAISE)
		npusim_raise(nd, NPU_VEC_CMD);
}

/**
 * npusim_irq_init - create the interrupt domain and map every vector
 * @nd: device
 *
 * Return: 0 or a negative errno.
 */
int npusim_irq_init(struct npusim_dev *nd)
{
	struct irq_domain_info info = {
		.size		= nd->nvec,
		.hwirq_max	= nd->nvec,
		.ops		= &npusim_irq_domain_ops,
		.host_data	= nd,
	};
	struct npusim_qp *qp;
	unsigned int v;
	u32 p, q;

	for (p = 0; p < nd->nports; p++) {
		for (q = 0; q < nd->nqueues; q++) {
			qp = &nd->ports[p].qps[q];
			hrtimer_init(&qp->timer, CLOCK_MONOTONIC,
				     HRTIMER_MODE_REL);
			qp->timer.function = npusim_qp_timer;
		}
	}

	nd->vecs = kcalloc(nd->nvec, sizeof(*nd->vecs), GFP_KERNEL);
	if (!nd->vecs)
		return -ENOMEM;
	nd->fwnode = irq_domain_alloc_named_id_fwnode(DRV_NAME, nd->id);
	if (!nd->fwnode) {
		kfree(nd->vecs);
		nd->vecs = NULL;
		return -ENOMEM;
	}
	info.fwnode = nd->fwnode;
	nd->domain = irq_domain_instantiate(&info);
	if (IS_ERR(nd->domain)) {
		int err = PTR_ERR(nd->domain);

		nd->domain = NULL;
		irq_domain_free_fwnode(nd->fwnode);
		nd->fwnode = NULL;
		kfree(nd->vecs);
		nd->vecs = NULL;
		return err;
	}
	for (v = 0; v < nd->nvec; v++) {
		nd->virq[v] = irq_create_mapping(nd->domain, v);
		if (!nd->virq[v]) {
			npusim_irq_fini(nd);
			return -ENOSPC;
		}
		INIT_CSD(&nd->vecs[v].csd, npusim_vec_csd, &nd->vecs[v]);
		nd->vecs[v].data = irq_get_irq_data(nd->virq[v]);
		nd->vecs[v].virq = nd->virq[v];
	}
	return 0;
}

/**
 * npusim_irq_fini - dispose of the vectors and the domain
 * @nd: device
 *
 * The host driver has freed its interrupts (it is unbound) and the model
 * has stopped (nd->dead set; wires, work and timers gone): no raise
 * starts.  Cross-calls still queued run before the vectors go.
 */
void npusim_irq_fini(struct npusim_dev *nd)
{
	unsigned int v;

	if (!nd->domain)
		return;
	for (v = 0; v < nd->nvec; v++)
		wait_var_event(&nd->vecs[v].inflight,
			       !atomic_read(&nd->vecs[v].inflight));
	for (v = 0; v < nd->nvec; v++) {
		if (nd->virq[v])
			irq_dispose_mapping(nd->virq[v]);
		nd->virq[v] = 0;
	}
	irq_domain_remove(nd->domain);
	nd->domain = NULL;
	irq_domain_free_fwnode(nd->fwnode);
	nd->fwnode = NULL;
	kfree(nd->vecs);
	nd->vecs = NULL;
}
