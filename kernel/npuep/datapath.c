// SPDX-License-Identifier: GPL-2.0
/*
 * npuep datapath: the queue pairs' rings, page_pool, NAPI, doorbell vectors,
 * their moderation (NPU_CMD_COALESCE: ethtool -C, DIM) and the safety-net
 * poll; receive is in rx.c, transmit in tx.c.
 *
 * Each queue pair has its own NAPI instance, its own vector and its own
 * budget: a pass over one queue never shares a budget with another, and a
 * pass that reaches its limit (ethtool rx-frames-irq) reports the full NAPI
 * budget so the core polls it again at once while work remains.  Without
 * doorbells (devlink rx_doorbells false) the hrtimer poll alone schedules the
 * NAPIs: its ceiling is ring depth x poll rate (docs/measurements.md, "The
 * poll's ceiling without doorbells").
 */
#include <linux/debugfs.h>
#include <linux/dma-mapping.h>
#include <linux/interrupt.h>
#include <linux/irq.h>
#include <net/netdev_queues.h>
#include <net/page_pool/helpers.h>

#include "npuep.h"

/* ------------------------------------------------------------------ */
/* NAPI, vectors, poll                                                 */

/**
 * npuep_coalesce_push() - set a port's receive doorbell moderation
 * @port: the port
 * @queue: queue pair or NPU_COALESCE_ALL_QUEUES
 * @usecs: time limit, 0 = none
 * @frames: frame limit, 0 or 1 = a doorbell per frame
 *
 * Sends NPU_CMD_COALESCE on the high ring and waits for it (sleeps).
 *
 * Return: 0 or a negative errno from npuep_cmd_exec().
 */
int npuep_coalesce_push(struct npuep_port *port, u16 queue, u32 usecs,
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

static void npuep_dim_work(struct work_struct *work)
{
	struct dim *dim = container_of(work, struct dim, work);
	struct npuep_qp *qp = container_of(dim, struct npuep_qp, dim);
	struct dim_cq_moder m;

	m = net_dim_get_rx_moderation(dim->mode, dim->profile_ix);
	npuep_coalesce_push(qp->port, qp->idx, m.usec, m.pkts);
	dim->state = DIM_START_MEASURE;
}

/*
 * DIM's first profile again for a queue idle for NPUEP_DIM_IDLE_MS (the
 * poll timer asks, NAPI does it: net_dim's state is NAPI's), measured
 * afresh from the next completion.
 */
static void npuep_dim_idle_reset(struct npuep_qp *qp)
{
	if (!READ_ONCE(qp->port->adaptive_rx) || !qp->dim.profile_ix)
		return;
	qp->dim.profile_ix = 0;
	qp->dim.tune_state = DIM_PARKING_ON_TOP;
	qp->dim.steps_left = 0;
	qp->dim.steps_right = 0;
	qp->dim.state = DIM_APPLY_NEW_PROFILE;
	schedule_work(&qp->dim.work);
}

/* Poll timer: 1 if @qp is adaptive, moved by DIM and idle long enough. */
static bool npuep_dim_idle(struct npuep_qp *qp)
{
	u64 pkts = READ_ONCE(qp->stats.rx_packets);

	if (!READ_ONCE(qp->port->adaptive_rx) || !READ_ONCE(qp->dim.profile_ix))
		return false;
	if (pkts != qp->dim_idle_pkts) {
		qp->dim_idle_pkts = pkts;
		qp->dim_idle_since = jiffies;
		return false;
	}
	return time_after(jiffies, qp->dim_idle_since + msecs_to_jiffies(NPUEP_DIM_IDLE_MS));
}

static int npuep_napi_poll(struct napi_struct *napi, int budget)
{
	struct npuep_qp *qp = container_of(napi, struct npuep_qp, napi);
	struct npuep_port *port = qp->port;
	int limit, done;

	npuep_tx_clean(qp, budget);
	if (unlikely(!budget))
		return 0;

	limit = min_t(int, budget, READ_ONCE(port->rx_budget));
	done = npuep_rx_clean(qp, limit);
	/* Work may remain: have the core poll this queue again right away. */
	if (done >= limit) {
		/* Only this NAPI writes it. */
		WRITE_ONCE(qp->repolls, qp->repolls + 1);
		return budget;
	}

	if (napi_complete_done(napi, done)) {
		if (unlikely(READ_ONCE(qp->dim_reset))) {
			WRITE_ONCE(qp->dim_reset, false);
			npuep_dim_idle_reset(qp);
		} else if (READ_ONCE(port->adaptive_rx)) {
			struct dim_sample s;
			unsigned int start;
			u64 pkts, bytes;

			do {
				start = u64_stats_fetch_begin(&qp->stats.syncp);
				pkts = qp->stats.rx_packets;
				bytes = qp->stats.rx_bytes;
			} while (u64_stats_fetch_retry(&qp->stats.syncp, start));
			dim_update_sample(qp->dim_events++, pkts, bytes, &s);
			net_dim(&qp->dim, s);
		}
		if (qp->irq >= 0)
			npuep_wr32(port->ndev, qp->reg + NPU_QP_IRQ_UNMASK, 1);
	}
	return done;
}

static irqreturn_t npuep_qp_irq(int irq, void *data)
{
	struct npuep_qp *qp = data;

	WRITE_ONCE(qp->stats.irqs, qp->stats.irqs + 1);
	if (napi_schedule_prep(&qp->napi)) {
		qp->sched_by_poll = false;
		__napi_schedule_irqoff(&qp->napi);
	}
	return IRQ_HANDLED;
}

/* Called with poll_lock held and the datapath open. */
static bool npuep_qp_pending(struct npuep_qp *qp)
{
	u32 ntc = READ_ONCE(qp->rx_ntc) & (qp->rx_size - 1);
	u32 tntc;

	if (READ_ONCE(qp->rx_ntu) == ntc)
		return true;	/* ring empty: needs a refill */
	if (le16_to_cpu(READ_ONCE(qp->rx_ring[ntc].flags)) & NPU_RXD_DONE)
		return true;
	tntc = READ_ONCE(qp->tx_ntc) & (qp->tx_size - 1);
	if (READ_ONCE(qp->tx_ntu) != tntc &&
	    (le16_to_cpu(READ_ONCE(qp->tx_ring[tntc].flags)) & NPU_TXD_DONE))
		return true;
	return false;
}

static enum hrtimer_restart npuep_poll_timer_fn(struct hrtimer *timer)
{
	struct npuep_dev *ndev = container_of(timer, struct npuep_dev,
					      poll_timer);
	u64 period = READ_ONCE(ndev->poll_period_ns);
	unsigned int p, q;

	if (!period)
		return HRTIMER_NORESTART;

	spin_lock(&ndev->poll_lock);
	for (p = 0; p < ndev->nports; p++) {
		struct npuep_port *port = ndev->ports[p];

		if (!port || !port->dp_open)
			continue;
		for (q = 0; q < port->nq; q++) {
			struct npuep_qp *qp = &port->qps[q];
			bool idle = npuep_dim_idle(qp);

			if (!idle && !npuep_qp_pending(qp))
				continue;
			if (napi_schedule_prep(&qp->napi)) {
				if (idle)
					WRITE_ONCE(qp->dim_reset, true);
				qp->sched_by_poll = true;
				/* Only this timer writes it. */
				WRITE_ONCE(qp->poll_runs, qp->poll_runs + 1);
				__napi_schedule(&qp->napi);
			}
		}
	}
	spin_unlock(&ndev->poll_lock);

	/* Pinned: it fires again on this CPU. */
	hrtimer_forward_now(timer, ns_to_ktime(period));
	return HRTIMER_RESTART;
}

/* Runs on the CPU the poll goes to (a cross-call, or the caller's own). */
static void npuep_poll_arm_here(void *data)
{
	struct npuep_dev *ndev = data;

	hrtimer_start(&ndev->poll_timer, ns_to_ktime(ndev->poll_period_ns),
		      HRTIMER_MODE_REL_PINNED);
}

/*
 * The first online CPU of @irq's effective affinity (where its chip
 * delivers it), else of its requested affinity; -1 if none is online.
 */
static int npuep_irq_cpu(unsigned int irq)
{
	struct irq_data *d = irq_get_irq_data(irq);
	unsigned int cpu = nr_cpu_ids;

	if (d)
		cpu = cpumask_first_and(irq_data_get_effective_affinity_mask(d),
					cpu_online_mask);
	if (cpu >= nr_cpu_ids)
		cpu = cpumask_first_and(irq_get_affinity_mask(irq),
					cpu_online_mask);
	return cpu < nr_cpu_ids ? cpu : -1;
}

/*
 * The poll's period and CPU from the open ports, under poll_lock (their
 * queues' vectors are stable while dp_open is set).  Return: the period,
 * 0 when no datapath is open; *@cpu the first online CPU of the effective
 * affinity of the first open port's queue 0 vector, or -1 when it has no
 * vector.
 */
static u64 npuep_poll_plan(struct npuep_dev *ndev, u32 interval, int *cpu)
{
	u64 period = (u64)interval * NSEC_PER_USEC;
	bool open = false, vectors = true;
	unsigned long flags;
	unsigned int p, q;

	*cpu = -1;
	spin_lock_irqsave(&ndev->poll_lock, flags);
	for (p = 0; p < ndev->nports; p++) {
		struct npuep_port *port = ndev->ports[p];

		if (!port || !port->dp_open)
			continue;
		for (q = 0; q < port->nq; q++)
			vectors &= port->qps[q].irq >= 0;
		if (!open && port->qps[0].irq >= 0)
			*cpu = npuep_irq_cpu(port->qps[0].irq);
		open = true;
	}
	spin_unlock_irqrestore(&ndev->poll_lock, flags);

	if (!open)
		return 0;
	if (vectors)
		period = max_t(u64, period,
			       (u64)NPUEP_POLL_WATCHDOG_MS * NSEC_PER_MSEC);
	return period;
}

/**
 * npuep_poll_rearm() - (re)arm the safety-net poll for the open queues
 * @ndev: the coprocessor
 *
 * The poll runs while a port's datapath is open and poll_interval_us is
 * not 0.  While an open queue has no vector (devlink rx_doorbells false)
 * it alone drives the queues, every poll_interval_us; while every open
 * queue has its vector it is a watchdog, every NPUEP_POLL_WATCHDOG_MS or
 * poll_interval_us if longer.  It is armed pinned on the CPU of the first
 * open port's queue 0 vector (its effective affinity, where the operator
 * put the datapath), re-armed there by each run, and moved when that
 * vector's affinity changes; with no vector, on the CPU that calls this
 * (the process that opens the port or sets poll_interval_us).
 *
 * Called when a datapath opens or closes, when poll_interval_us is set and
 * when queue 0's vector moves.  Process context; sleeps.
 */
void npuep_poll_rearm(struct npuep_dev *ndev)
{
	u32 interval = READ_ONCE(ndev->poll_interval_us);
	u64 period = 0;
	int cpu = -1;

	mutex_lock(&ndev->poll_mutex);
	if (interval)
		period = npuep_poll_plan(ndev, interval, &cpu);
	WRITE_ONCE(ndev->poll_period_ns, 0);
	hrtimer_cancel(&ndev->poll_timer);
	if (period) {
		WRITE_ONCE(ndev->poll_period_ns, period);
		if (cpu < 0 || smp_call_function_single(cpu, npuep_poll_arm_here,
							ndev, true)) {
			/* no vector, or its CPU went offline: here */
			preempt_disable();
			npuep_poll_arm_here(ndev);
			preempt_enable();
		}
	}
	mutex_unlock(&ndev->poll_mutex);
}

/**
 * npuep_poll_stop() - stop the safety-net poll for good (remove)
 * @ndev: the coprocessor
 *
 * On return the timer neither runs nor is armed, and npuep_poll_rearm()
 * leaves it off.
 */
void npuep_poll_stop(struct npuep_dev *ndev)
{
	mutex_lock(&ndev->poll_mutex);
	WRITE_ONCE(ndev->poll_interval_us, 0);
	WRITE_ONCE(ndev->poll_period_ns, 0);
	hrtimer_cancel(&ndev->poll_timer);
	mutex_unlock(&ndev->poll_mutex);
}

/* Queue 0's vector moved (process context): the poll goes with it. */
static void npuep_poll_affinity_notify(struct irq_affinity_notify *notify,
				       const cpumask_t *mask)
{
	struct npuep_port *port = container_of(notify, struct npuep_port,
					       poll_notify);

	npuep_poll_rearm(port->ndev);
}

/* The notifier is the port's: nothing to free. */
static void npuep_poll_affinity_release(struct kref *ref)
{
}

/**
 * npuep_poll_init() - initialise the safety-net poll timer
 * @ndev: the coprocessor
 */
void npuep_poll_init(struct npuep_dev *ndev)
{
	spin_lock_init(&ndev->poll_lock);
	mutex_init(&ndev->poll_mutex);
	hrtimer_init(&ndev->poll_timer, CLOCK_MONOTONIC,
		     HRTIMER_MODE_REL_PINNED);
	ndev->poll_timer.function = npuep_poll_timer_fn;
}

/* ------------------------------------------------------------------ */
/* Queue pair set-up and tear-down                                     */

static void npuep_qp_free(struct npuep_qp *qp)
{
	struct npuep_port *port = qp->port;
	struct device *dma_dev = port->ndev->hw->dma_dev;
	u32 i;

	if (qp->rx_bufs) {
		for (i = 0; i < qp->rx_size; i++) {
			if (qp->rx_bufs[i].page)
				page_pool_put_full_page(qp->pool,
							qp->rx_bufs[i].page,
							false);
		}
		kvfree(qp->rx_bufs);
		qp->rx_bufs = NULL;
	}
	if (qp->tx_bufs) {
		for (i = 0; i < qp->tx_size; i++) {
			struct npuep_tx_buf *buf = &qp->tx_bufs[i];

			npuep_tx_unmap(qp, buf);
			if (buf->type != NPUEP_TX_SKB)
				xdp_return_frame(buf->xdpf);
			else
				dev_kfree_skb_any(buf->skb);
		}
		kvfree(qp->tx_bufs);
		qp->tx_bufs = NULL;
		netdev_tx_reset_queue(netdev_get_tx_queue(port->netdev,
							  qp->idx));
	}
	if (xdp_rxq_info_is_reg(&qp->xdp_rxq))
		xdp_rxq_info_unreg(&qp->xdp_rxq);
	if (qp->pool) {
		page_pool_destroy(qp->pool);
		qp->pool = NULL;
	}
	if (qp->rx_ring) {
		dma_free_coherent(dma_dev, qp->rx_size * sizeof(*qp->rx_ring),
				  qp->rx_ring, qp->rx_ring_dma);
		qp->rx_ring = NULL;
	}
	if (qp->tx_ring) {
		dma_free_coherent(dma_dev, qp->tx_size * sizeof(*qp->tx_ring),
				  qp->tx_ring, qp->tx_ring_dma);
		qp->tx_ring = NULL;
	}
}

static int npuep_qp_alloc(struct npuep_qp *qp)
{
	struct npuep_port *port = qp->port;
	struct npu_hw *hw = port->ndev->hw;
	unsigned int order = port->rx_order;
	struct page_pool_params pp = {
		.order = order,
		.flags = PP_FLAG_DMA_MAP | PP_FLAG_DMA_SYNC_DEV,
		.pool_size = port->rx_ring_size,
		.nid = NUMA_NO_NODE,
		.dev = hw->dma_dev,
		.napi = &qp->napi,
		.netdev = port->netdev,
		.queue_idx = qp->idx,
		.dma_dir = DMA_BIDIRECTIONAL,	/* XDP_TX reuses the page */
		.max_len = min_t(u32, NPUEP_RX_BUF_LEN(order), U16_MAX),
		.offset = NPUEP_RX_HEADROOM,
	};
	int err;

	qp->rx_order = order;
	qp->rx_truesize = PAGE_SIZE << order;
	qp->rx_buf_len = pp.max_len;	/* the descriptor's buf_len is 16 bits */
	qp->rx_size = port->rx_ring_size;
	qp->tx_size = port->tx_ring_size;
	qp->rx_ntc = 0;
	qp->rx_ntu = 0;
	qp->tx_ntc = 0;
	qp->tx_ntu = 0;

	qp->rx_ring = dma_alloc_coherent(hw->dma_dev,
					 qp->rx_size * sizeof(*qp->rx_ring),
					 &qp->rx_ring_dma, GFP_KERNEL);
	qp->tx_ring = dma_alloc_coherent(hw->dma_dev,
					 qp->tx_size * sizeof(*qp->tx_ring),
					 &qp->tx_ring_dma, GFP_KERNEL);
	qp->rx_bufs = kvcalloc(qp->rx_size, sizeof(*qp->rx_bufs), GFP_KERNEL);
	qp->tx_bufs = kvcalloc(qp->tx_size, sizeof(*qp->tx_bufs), GFP_KERNEL);
	if (!qp->rx_ring || !qp->tx_ring || !qp->rx_bufs || !qp->tx_bufs) {
		err = -ENOMEM;
		goto err_free;
	}

	qp->pool = page_pool_create(&pp);
	if (IS_ERR(qp->pool)) {
		err = PTR_ERR(qp->pool);
		qp->pool = NULL;
		goto err_free;
	}
	err = xdp_rxq_info_reg(&qp->xdp_rxq, port->netdev, qp->idx,
			       qp->napi.napi_id);
	if (err)
		goto err_free;
	err = xdp_rxq_info_reg_mem_model(&qp->xdp_rxq, MEM_TYPE_PAGE_POOL,
					 qp->pool);
	if (err)
		goto err_free;
	return 0;

err_free:
	npuep_qp_free(qp);
	return err;
}

static int npuep_qp_request_irq(struct npuep_qp *qp)
{
	struct npuep_port *port = qp->port;
	struct npuep_dev *ndev = port->ndev;
	int irq, err;

	qp->irq = -1;
	if (!ndev->rx_doorbells)
		return 0;

	irq = ndev->hw->ops->irq(ndev->hw,
				 NPU_VEC_QP(port->idx, qp->idx, ndev->nqueues));
	if (irq < 0) {
		netdev_err(port->netdev, "no vector for queue %u: %d\n",
			   qp->idx, irq);
		return irq;
	}
	snprintf(qp->irq_name, sizeof(qp->irq_name), "%s-q%u",
		 netdev_name(port->netdev), qp->idx);
	err = request_irq(irq, npuep_qp_irq, 0, qp->irq_name, qp);
	if (err) {
		netdev_err(port->netdev, "request_irq(%d) for queue %u: %d\n",
			   irq, qp->idx, err);
		return err;
	}
	if (!qp->idx) {
		/* The safety-net poll runs where queue 0's vector does. */
		port->poll_notify.notify = npuep_poll_affinity_notify;
		port->poll_notify.release = npuep_poll_affinity_release;
		err = irq_set_affinity_notifier(irq, &port->poll_notify);
		if (err) {
			netdev_err(port->netdev,
				   "affinity notifier of irq %d: %d\n", irq, err);
			free_irq(irq, qp);
			return err;
		}
	}
	qp->irq = irq;
	return 0;
}

static void npuep_qp_hw_stop(struct npuep_qp *qp)
{
	/* Returns when the device no longer touches the rings. */
	npuep_wr32(qp->port->ndev, qp->reg + NPU_QP_CTRL, 0);
}

static void npuep_qp_hw_start(struct npuep_qp *qp)
{
	struct npuep_dev *ndev = qp->port->ndev;
	u32 ctrl = NPU_QP_CTRL_RX_EN | NPU_QP_CTRL_TX_EN;

	npuep_wr32(ndev, qp->reg + NPU_QP_CTRL, 0);
	npuep_wr32(ndev, qp->reg + NPU_QP_RX_BASE,
		   lower_32_bits(qp->rx_ring_dma));
	npuep_wr32(ndev, qp->reg + NPU_QP_RX_BASE_HI,
		   upper_32_bits(qp->rx_ring_dma));
	npuep_wr32(ndev, qp->reg + NPU_QP_RX_SIZE, qp->rx_size);
	npuep_wr32(ndev, qp->reg + NPU_QP_TX_BASE,
		   lower_32_bits(qp->tx_ring_dma));
	npuep_wr32(ndev, qp->reg + NPU_QP_TX_BASE_HI,
		   upper_32_bits(qp->tx_ring_dma));
	npuep_wr32(ndev, qp->reg + NPU_QP_TX_SIZE, qp->tx_size);
	if (qp->irq >= 0)
		ctrl |= NPU_QP_CTRL_IRQ_EN;
	/* Enabling resets HEAD and TAIL to 0. */
	npuep_wr32(ndev, qp->reg + NPU_QP_CTRL, ctrl);
	npuep_rx_refill(qp, GFP_KERNEL);
}

/* The queue's NAPI must already be disabled. */
static void npuep_qp_close(struct npuep_qp *qp)
{
	struct net_device *netdev = qp->port->netdev;

	if (!qp->open)
		return;
	qp->open = false;
	npuep_qp_hw_stop(qp);
	if (qp->irq >= 0) {
		if (!qp->idx)
			irq_set_affinity_notifier(qp->irq, NULL);
		free_irq(qp->irq, qp);
		qp->irq = -1;
	}
	cancel_work_sync(&qp->dim.work);
	netif_queue_set_napi(netdev, qp->idx, NETDEV_QUEUE_TYPE_RX, NULL);
	netif_queue_set_napi(netdev, qp->idx, NETDEV_QUEUE_TYPE_TX, NULL);
	npuep_qp_free(qp);	/* page_pool goes while NAPI is disabled */
	netif_napi_del(&qp->napi);
}

static int npuep_qp_open(struct npuep_qp *qp)
{
	struct net_device *netdev = qp->port->netdev;
	int err;

	netif_napi_add(netdev, &qp->napi, npuep_napi_poll);
	err = npuep_qp_alloc(qp);
	if (err)
		goto err_napi;
	err = npuep_qp_request_irq(qp);
	if (err)
		goto err_free;
	if (qp->irq >= 0)
		netif_napi_set_irq(&qp->napi, qp->irq);

	INIT_WORK(&qp->dim.work, npuep_dim_work);
	qp->dim.mode = DIM_CQ_PERIOD_MODE_START_FROM_EQE;
	qp->dim.state = DIM_START_MEASURE;
	qp->sched_by_poll = false;
	npuep_rx_refill_init(qp);

	npuep_qp_hw_start(qp);
	napi_enable(&qp->napi);
	netif_queue_set_napi(netdev, qp->idx, NETDEV_QUEUE_TYPE_RX, &qp->napi);
	netif_queue_set_napi(netdev, qp->idx, NETDEV_QUEUE_TYPE_TX, &qp->napi);
	qp->open = true;
	npuep_rx_refill_start(qp);
	if (qp->irq >= 0)
		npuep_wr32(qp->port->ndev, qp->reg + NPU_QP_IRQ_UNMASK, 1);
	return 0;

err_free:
	npuep_qp_free(qp);
err_napi:
	netif_napi_del(&qp->napi);
	return err;
}

/**
 * npuep_rss_default() - spread the port's RETA over its active queues
 * @port: the port
 */
void npuep_rss_default(struct npuep_port *port)
{
	u32 i, j, val;

	for (i = 0; i < NPU_RSS_RETA_SIZE / 4; i++) {
		val = 0;
		for (j = 0; j < 4; j++)
			val |= ((4 * i + j) % port->nq) << (8 * j);
		npuep_wr32(port->ndev, port->reg + NPU_PORT_RETA + 4 * i, val);
	}
}

/*
 * debugfs npuep/<dev>-p<N>/, for as long as the datapath is open:
 *   fail_rx_alloc  the next N receive buffer allocations of the port's
 *                  queues fail, as when memory runs short (a test fault)
 */
static void npuep_dp_debugfs_create(struct npuep_port *port)
{
	char name[48];

	snprintf(name, sizeof(name), "%s-p%u", dev_name(port->ndev->dev),
		 port->idx + 1);
	port->dbg = debugfs_create_dir(name, npuep_dbg_root);
	debugfs_create_atomic_t("fail_rx_alloc", 0600, port->dbg,
				&port->fail_rx_alloc);
}

static void npuep_dp_debugfs_remove(struct npuep_port *port)
{
	debugfs_remove_recursive(port->dbg);
	port->dbg = NULL;
}

/**
 * npuep_dp_open() - set up rings, NAPIs and vectors of a port's queues
 * @port: the port
 *
 * Called under rtnl with the netdev's queues stopped.  The receive buffers
 * get the page order the netdev's MTU needs (npuep_rx_order()).
 *
 * Return: 0 or a negative errno (nothing left allocated).
 */
int npuep_dp_open(struct npuep_port *port)
{
	struct npuep_dev *ndev = port->ndev;
	struct net_device *netdev = port->netdev;
	unsigned long flags;
	unsigned int q;
	int err;

	ASSERT_RTNL();
	if (port->dp_open)
		return 0;

	err = netif_set_real_num_tx_queues(netdev, port->nq);
	if (!err)
		err = netif_set_real_num_rx_queues(netdev, port->nq);
	if (err)
		return err;
	if (!netif_is_rxfh_configured(netdev))
		npuep_rss_default(port);
	/* Buffers for the MTU in effect now (one page with XDP). */
	port->rx_order = npuep_rx_order(READ_ONCE(netdev->mtu));

	for (q = 0; q < port->nq; q++) {
		err = npuep_qp_open(&port->qps[q]);
		if (err)
			goto err_close;
	}

	if (!port->adaptive_rx)
		npuep_coalesce_push(port, NPU_COALESCE_ALL_QUEUES,
				    port->coal_usecs, port->coal_frames);

	spin_lock_irqsave(&ndev->poll_lock, flags);
	/* Pairs with the acquire in npuep_xdp_xmit(). */
	smp_store_release(&port->dp_open, true);
	spin_unlock_irqrestore(&ndev->poll_lock, flags);
	netif_tx_start_all_queues(netdev);
	npuep_dp_debugfs_create(port);
	npuep_poll_rearm(ndev);
	return 0;

err_close:
	while (q--) {
		npuep_rx_refill_stop(&port->qps[q]);
		napi_disable(&port->qps[q].napi);
		npuep_qp_close(&port->qps[q]);
	}
	return err;
}

/**
 * npuep_dp_close() - stop and free the datapath of a port
 * @port: the port
 *
 * Called under rtnl.  Traffic may be running: transmit is stopped first,
 * then each queue's NAPI, then the device's rings, and only then the memory.
 */
void npuep_dp_close(struct npuep_port *port)
{
	struct npuep_dev *ndev = port->ndev;
	unsigned long flags;
	unsigned int q;

	ASSERT_RTNL();
	if (!port->dp_open)
		return;

	npuep_dp_debugfs_remove(port);
	spin_lock_irqsave(&ndev->poll_lock, flags);
	port->dp_open = false;
	spin_unlock_irqrestore(&ndev->poll_lock, flags);
	/* No ndo_xdp_xmit caller still sees the rings. */
	synchronize_net();

	netif_tx_disable(port->netdev);
	for (q = 0; q < ndev->nqueues; q++) {
		if (!port->qps[q].open)
			continue;
		npuep_rx_refill_stop(&port->qps[q]);
		napi_disable(&port->qps[q].napi);
	}
	/* Again: a NAPI pass may have woken a queue before it was disabled. */
	netif_tx_disable(port->netdev);
	for (q = 0; q < ndev->nqueues; q++)
		npuep_qp_close(&port->qps[q]);
	/* Off with the last datapath; else where the first open one says. */
	npuep_poll_rearm(ndev);
}

/* ------------------------------------------------------------------ */
/* Statistics                                                          */

/**
 * npuep_qp_stats_read() - consistent snapshot of a queue pair's counters
 * @qp: the queue pair
 * @out: where to copy them
 */
void npuep_qp_stats_read(struct npuep_qp *qp, struct npuep_qp_stats *out)
{
	unsigned int start, xstart;

	do {
		start = u64_stats_fetch_begin(&qp->stats.syncp);
		xstart = u64_stats_fetch_begin(&qp->stats.xsyncp);
		memcpy(out, &qp->stats, sizeof(*out));
	} while (u64_stats_fetch_retry(&qp->stats.syncp, start) ||
		 u64_stats_fetch_retry(&qp->stats.xsyncp, xstart));
}

static void npuep_get_queue_stats_rx(struct net_device *netdev, int idx,
				     struct netdev_queue_stats_rx *rx)
{
	struct npuep_port *port = netdev_priv(netdev);
	struct npuep_qp *qp = &port->qps[idx];
	struct npuep_qp_stats s;

	npuep_qp_stats_read(qp, &s);
	rx->packets = s.rx_packets;
	rx->bytes = s.rx_bytes;
	rx->alloc_fail = s.rx_alloc_fail;
	rx->csum_unnecessary = s.rx_csum_ok;
	rx->hw_drop_overruns = npuep_rd64(port->ndev, qp->reg + NPU_QP_RX_QFULL);
	/* netdev.yaml: overruns are a part of hw-drops */
	rx->hw_drops = s.rx_bad_desc + rx->hw_drop_overruns;
}

static void npuep_get_queue_stats_tx(struct net_device *netdev, int idx,
				     struct netdev_queue_stats_tx *tx)
{
	struct npuep_port *port = netdev_priv(netdev);
	struct npuep_qp_stats s;

	npuep_qp_stats_read(&port->qps[idx], &s);
	tx->packets = s.tx_packets;
	tx->bytes = s.tx_bytes;
	tx->stop = s.tx_stop;
	tx->wake = s.tx_wake;
}

static void npuep_get_base_stats(struct net_device *netdev,
				 struct netdev_queue_stats_rx *rx,
				 struct netdev_queue_stats_tx *tx)
{
	struct npuep_port *port = netdev_priv(netdev);
	struct netdev_queue_stats_rx qrx;
	struct netdev_queue_stats_tx qtx;
	unsigned int q;

	rx->packets = 0;
	rx->bytes = 0;
	rx->alloc_fail = 0;
	rx->csum_unnecessary = 0;
	rx->hw_drop_overruns = 0;
	tx->packets = 0;
	tx->bytes = 0;
	tx->stop = 0;
	tx->wake = 0;
	/*
	 * The trap policers drop a punt before it takes a receive
	 * descriptor, so no queue owns those drops: they are the port's.
	 */
	rx->hw_drop_ratelimits = npuep_rd64(port->ndev,
					    NPU_REG_PORT_FP(port->idx) +
					    NPU_PORT_FP_PUNT_DROPS);
	/* netdev.yaml: ratelimits are a part of hw-drops */
	rx->hw_drops = rx->hw_drop_ratelimits;
	/* Queues beyond the active count keep their history here. */
	for (q = netdev->real_num_rx_queues; q < port->ndev->nqueues; q++) {
		npuep_get_queue_stats_rx(netdev, q, &qrx);
		npuep_get_queue_stats_tx(netdev, q, &qtx);
		rx->packets += qrx.packets;
		rx->bytes += qrx.bytes;
		rx->alloc_fail += qrx.alloc_fail;
		rx->csum_unnecessary += qrx.csum_unnecessary;
		rx->hw_drops += qrx.hw_drops;
		rx->hw_drop_overruns += qrx.hw_drop_overruns;
		tx->packets += qtx.packets;
		tx->bytes += qtx.bytes;
		tx->stop += qtx.stop;
		tx->wake += qtx.wake;
	}
}

const struct netdev_stat_ops npuep_stat_ops = {
	.get_queue_stats_rx = npuep_get_queue_stats_rx,
	.get_queue_stats_tx = npuep_get_queue_stats_tx,
	.get_base_stats = npuep_get_base_stats,
};
