// SPDX-License-Identifier: GPL-2.0
/*
 * Deferred ingress: while the model runs on cores of its own (cores.c), a
 * frame a wire transmits waits in its port's FIFO, and the port's work
 * item, on the port's core, takes the frames in batches through the same
 * ingress as the wire's transmit runs inline otherwise
 * (npusim_wire_ingress(), rx.c).
 *
 * Backpressure, as a MAC's pause frames: at NPUSIM_INGRESS_HIGH frames the
 * wire's transmit queue stops, and the sender's frames wait in the wire's
 * root qdisc, if it has one (wire.c); the work item wakes the queue once the
 * FIFO is down to NPUSIM_INGRESS_LOW, on the CPU that stopped it, so that
 * the sender's qdisc runs on the sender's CPU, not on the coprocessor's.  A
 * wire with no queue (noqueue, its default) cannot wait: past NPUSIM_INGRESS_MAX
 * frames are dropped, counted in the port's rx_fifo_drops and in the wire's
 * tx_dropped.
 */
#include <linux/netdevice.h>
#include <linux/seq_file.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <net/sch_generic.h>

#include "npusim.h"

#define NPUSIM_INGRESS_HIGH	256
#define NPUSIM_INGRESS_LOW	64
#define NPUSIM_INGRESS_MAX	1024
/* Frames a run of the work item takes before it queues itself again. */
#define NPUSIM_INGRESS_BATCH	64

/**
 * struct npusim_ingress - a port's ingress FIFO
 * @port: port
 * @fifo: frames the wire transmitted, not yet taken
 * @work: takes them, on the port's core
 * @stop_cpu: the CPU that last stopped the wire's queue
 * @frames: frames that went through @fifo
 * @stops: times the wire's queue was stopped
 * @drops: frames dropped at a full @fifo
 */
struct npusim_ingress {
	struct npusim_port *port;
	struct sk_buff_head fifo;
	struct work_struct work;
	int stop_cpu;
	atomic64_t frames;
	atomic64_t stops;
	atomic64_t drops;
};

static struct npusim_ingress *npusim_ingress_of(struct npusim_port *port)
{
	return &port->nd->ing[port->idx];
}

/*
 * Can the wire's transmit queue hold frames while it is stopped (noqueue
 * has no enqueue)?  BH off.
 */
static bool npusim_ingress_can_stop(struct net_device *wire)
{
	return rcu_dereference_bh(netdev_get_tx_queue(wire, 0)->qdisc)->enqueue;
}

/**
 * npusim_ingress_defer - a frame the wire transmits, for the port's core
 * @port: port
 * @skb: the frame (consumed)
 *
 * From the wire's ndo_start_xmit (BH disabled).
 *
 * Return: NETDEV_TX_OK, or NET_XMIT_DROP if the FIFO was full (counted).
 */
netdev_tx_t npusim_ingress_defer(struct npusim_port *port, struct sk_buff *skb)
{
	struct npusim_ingress *ing = npusim_ingress_of(port);
	struct net_device *wire = port->wire;

	if (skb_queue_len(&ing->fifo) >= NPUSIM_INGRESS_MAX) {
		atomic64_inc(&ing->drops);
		dev_dstats_tx_dropped(wire);
		kfree_skb(skb);
		return NET_XMIT_DROP;
	}
	skb_queue_tail(&ing->fifo, skb);
	atomic64_inc(&ing->frames);
	if (skb_queue_len(&ing->fifo) >= NPUSIM_INGRESS_HIGH &&
	    !netif_queue_stopped(wire) && npusim_ingress_can_stop(wire)) {
		WRITE_ONCE(ing->stop_cpu, smp_processor_id());
		atomic64_inc(&ing->stops);
		netif_stop_queue(wire);
		/* pairs with the barrier in npusim_ingress_wake() */
		smp_mb__after_atomic();
		if (skb_queue_len(&ing->fifo) <= NPUSIM_INGRESS_LOW)
			netif_wake_queue(wire);
	}
	npusim_cores_queue_ingress(port, &ing->work);
	return NETDEV_TX_OK;
}

static void npusim_ingress_wake_here(void *info)
{
	struct npusim_ingress *ing = info;

	netif_wake_queue(ing->port->wire);
}

/*
 * Wake the wire's queue if the FIFO is down to NPUSIM_INGRESS_LOW, on the
 * CPU that stopped it (its qdisc runs where it is woken).  Process context,
 * interrupts and BH enabled.
 */
static void npusim_ingress_wake(struct npusim_ingress *ing)
{
	struct net_device *wire = ing->port->wire;

	/* pairs with the barrier in npusim_ingress_defer(): one of us wakes */
	smp_mb();
	if (!netif_queue_stopped(wire) ||
	    skb_queue_len(&ing->fifo) > NPUSIM_INGRESS_LOW)
		return;
	if (smp_call_function_single(READ_ONCE(ing->stop_cpu),
				     npusim_ingress_wake_here, ing, 1))
		netif_wake_queue(wire);		/* that CPU went offline */
}

static void npusim_ingress_work(struct work_struct *work)
{
	struct npusim_ingress *ing = container_of(work, struct npusim_ingress,
						  work);
	struct npusim_port *port = ing->port;
	struct npusim_dev *nd = port->nd;
	struct sk_buff *skb;
	int n = 0;
	u64 t0;

	if (READ_ONCE(nd->dead))
		return;
	local_bh_disable();
	t0 = npusim_dp_clock();
	while (n < NPUSIM_INGRESS_BATCH && (skb = skb_dequeue(&ing->fifo))) {
		npusim_wire_ingress(port, skb);
		n++;
	}
	this_cpu_add(*nd->dp_work_ns, npusim_dp_clock_end(nd, t0, 0));
	local_bh_enable();
	npusim_ingress_wake(ing);
	if (!skb_queue_empty_lockless(&ing->fifo))
		npusim_cores_queue_ingress(port, work);
}

/**
 * npusim_ingress_move - the port's work item to where the placement puts it
 * @port: port
 *
 * Process context, under the mask's write (cores.c): cancelled, then queued
 * again, so that it runs where the mask now says and takes what waits.
 */
void npusim_ingress_move(struct npusim_port *port)
{
	struct npusim_ingress *ing = npusim_ingress_of(port);

	cancel_work_sync(&ing->work);
	npusim_cores_queue_ingress(port, &ing->work);
}

/**
 * npusim_ingress_stop - teardown: the work item stopped, the FIFO emptied
 * @port: port whose wire is unregistered (nothing transmits on it)
 *
 * Frames still waiting are dropped, and said so in the log.
 */
void npusim_ingress_stop(struct npusim_port *port)
{
	struct npusim_ingress *ing = npusim_ingress_of(port);
	u32 n;

	cancel_work_sync(&ing->work);
	n = skb_queue_len(&ing->fifo);
	if (n)
		dev_info(port->nd->bus_dev,
			 "p%u: %u frames waiting in its ingress FIFO dropped\n",
			 port->idx + 1, n);
	skb_queue_purge(&ing->fifo);
}

/**
 * npusim_ingress_show - the FIFO's counters, for the port's debugfs stats
 * @m: seq file
 * @port: port
 */
void npusim_ingress_show(struct seq_file *m, struct npusim_port *port)
{
	struct npusim_ingress *ing = npusim_ingress_of(port);

	seq_printf(m, "rx_fifo %u\n", skb_queue_len_lockless(&ing->fifo));
	seq_printf(m, "rx_fifo_frames %lld\n", atomic64_read(&ing->frames));
	seq_printf(m, "rx_fifo_stops %lld\n", atomic64_read(&ing->stops));
	seq_printf(m, "rx_fifo_drops %lld\n", atomic64_read(&ing->drops));
}

/**
 * npusim_ingress_init - one FIFO and work item per port
 * @nd: device (ports allocated)
 *
 * Return: 0 or -ENOMEM.
 */
int npusim_ingress_init(struct npusim_dev *nd)
{
	struct npusim_ingress *ing;
	u32 p;

	nd->ing = kcalloc(nd->nports, sizeof(*nd->ing), GFP_KERNEL);
	if (!nd->ing)
		return -ENOMEM;
	for (p = 0; p < nd->nports; p++) {
		ing = &nd->ing[p];
		ing->port = &nd->ports[p];
		skb_queue_head_init(&ing->fifo);
		INIT_WORK(&ing->work, npusim_ingress_work);
		atomic64_set(&ing->frames, 0);
		atomic64_set(&ing->stops, 0);
		atomic64_set(&ing->drops, 0);
	}
	return 0;
}

/**
 * npusim_ingress_fini - free the FIFOs
 * @nd: device; its wires are gone (npusim_ingress_stop() ran for each)
 */
void npusim_ingress_fini(struct npusim_dev *nd)
{
	u32 p;

	if (!nd->ing)
		return;
	for (p = 0; p < nd->nports; p++)
		skb_queue_purge(&nd->ing[p].fifo);
	kfree(nd->ing);
	nd->ing = NULL;
}
