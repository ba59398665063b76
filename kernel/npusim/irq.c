// SPDX-License-Identifier: GPL-2.0
/*
 * The coprocessor's interrupt vectors.
 *
 * An irq domain of 1 + nports * nqueues vectors with a dummy chip and the
 * edge flow handler (MSI's); the model raises a vector with
 * generic_handle_irq_safe(), which runs the host's handler from any
 * context.  Vector 0 carries command completions and link events; each
 * queue pair's vector carries its receive frames, moderated (frames/usecs,
 * NPU_CMD_COALESCE), and its transmit completions, raised once per transmit
 * pass without moderation (the host's queue restarts on them; a delayed
 * completion stalls BQL and TCP).
 *
 * Locking: the decision is taken under the vector's lock, the raise happens
 * after it is dropped (the host's handler may write our registers).
 */
#include <linux/hrtimer.h>
#include <linux/interrupt.h>
#include <linux/irq.h>
#include <linux/irqdomain.h>
#include <linux/slab.h>

#include "npusim.h"

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
	irq_set_chip_and_handler(virq, &dummy_irq_chip, handle_edge_irq);
	irq_set_chip_data(virq, d->host_data);
	return 0;
}

static const struct irq_domain_ops npusim_irq_domain_ops = {
	.map	= npusim_irq_map,
	.xlate	= irq_domain_xlate_onecell,
};

static void npusim_raise(struct npusim_dev *nd, unsigned int vec)
{
	unsigned int virq = nd->virq[vec];

	if (virq && !READ_ONCE(nd->dead))
		generic_handle_irq_safe(virq);
}

static void npusim_qp_coal_act(struct npusim_qp *qp, unsigned int act)
{
	if (act & NPUSIM_COAL_CANCEL)
		hrtimer_try_to_cancel(&qp->timer);
	if ((act & NPUSIM_COAL_ARM) && !READ_ONCE(qp->nd->dead))
		hrtimer_start(&qp->timer, ns_to_ktime(qp->coal.usecs * NSEC_PER_USEC),
			      HRTIMER_MODE_REL);
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

	nd->fwnode = irq_domain_alloc_named_id_fwnode(DRV_NAME, nd->id);
	if (!nd->fwnode)
		return -ENOMEM;
	info.fwnode = nd->fwnode;
	nd->domain = irq_domain_instantiate(&info);
	if (IS_ERR(nd->domain)) {
		int err = PTR_ERR(nd->domain);

		nd->domain = NULL;
		irq_domain_free_fwnode(nd->fwnode);
		nd->fwnode = NULL;
		return err;
	}
	for (v = 0; v < nd->nvec; v++) {
		nd->virq[v] = irq_create_mapping(nd->domain, v);
		if (!nd->virq[v]) {
			npusim_irq_fini(nd);
			return -ENOSPC;
		}
	}
	return 0;
}

/**
 * npusim_irq_fini - dispose of the vectors and the domain
 * @nd: device
 *
 * The host driver has freed its interrupts (it is unbound).
 */
void npusim_irq_fini(struct npusim_dev *nd)
{
	unsigned int v;

	if (!nd->domain)
		return;
	for (v = 0; v < nd->nvec; v++) {
		if (nd->virq[v])
			irq_dispose_mapping(nd->virq[v]);
		nd->virq[v] = 0;
	}
	irq_domain_remove(nd->domain);
	nd->domain = NULL;
	irq_domain_free_fwnode(nd->fwnode);
	nd->fwnode = NULL;
}
