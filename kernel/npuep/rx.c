// SPDX-License-Identifier: GPL-2.0
/*
 * npuep receive: buffers from the queue's page_pool posted on the receive
 * (punt) ring, completed descriptors checked and turned into skbs, or handed
 * to the port's XDP program first.
 *
 * Each buffer is one page_pool page of 2^order pages with
 * NPUEP_RX_HEADROOM in front of the frame, so it becomes an skb head
 * (napi_build_skb) or an xdp_buff without a copy.  The ring is refilled and
 * its doorbell rung once per NAPI pass; the given-back connections a pass
 * saw are revived once, at its end.
 */
#include <linux/etherdevice.h>
#include <linux/skbuff.h>
#include <net/page_pool/helpers.h>

#include "npuep.h"

/* Backoff of the refill retry: from 1 ms, doubling while it fails, to 1 s. */
#define NPUEP_RX_REFILL_MIN_MS	1
#define NPUEP_RX_REFILL_MAX_MS	1000

/* A buffer from the queue's pool, unless the debugfs fault fails it. */
static struct page *npuep_rx_alloc(struct npuep_qp *qp, gfp_t gfp)
{
	atomic_t *fail = &qp->port->fail_rx_alloc;

	if (unlikely(atomic_read(fail) > 0) && atomic_dec_if_positive(fail) >= 0)
		return NULL;
	return page_pool_alloc_pages(qp->pool, gfp | __GFP_NOWARN);
}

/* No buffer posted: the device cannot deliver, and rings no doorbell. */
static bool npuep_rx_ring_empty(const struct npuep_qp *qp)
{
	return qp->rx_ntu == qp->rx_ntc;
}

/*
 * The ring is empty and its refill failed: nothing will schedule this
 * NAPI again (with the safety-net poll off), so refill_work retries after
 * the backoff.  NAPI context.
 */
static void npuep_rx_refill_later(struct npuep_qp *qp)
{
	spin_lock(&qp->refill_lock);
	if (qp->refill_on)
		queue_delayed_work(system_wq, &qp->refill_work,
				   msecs_to_jiffies(qp->refill_delay_ms));
	spin_unlock(&qp->refill_lock);
}

/**
 * npuep_rx_refill() - post free buffers on a receive ring
 * @qp: the queue pair; its NAPI context, or NAPI not running
 * @gfp: allocation flags for the page_pool
 *
 * Fills every free slot but one (a full ring reads as empty), then rings
 * the RX_TAIL doorbell once.  An allocation failure ends the pass and
 * is counted in rx_alloc_fail.
 *
 * Return: true if at least one buffer was posted.
 */
bool npuep_rx_refill(struct npuep_qp *qp, gfp_t gfp)
{
	u32 mask = qp->rx_size - 1;
	u32 ntu = qp->rx_ntu;
	bool filled = false;

	while (((qp->rx_ntc - ntu - 1) & mask) != 0) {
		struct npu_rx_desc *desc = &qp->rx_ring[ntu];
		struct page *page;
		dma_addr_t dma;

		page = npuep_rx_alloc(qp, gfp);
		if (unlikely(!page)) {
			u64_stats_update_begin(&qp->stats.syncp);
			qp->stats.rx_alloc_fail++;
			u64_stats_update_end(&qp->stats.syncp);
			break;
		}
		dma = page_pool_get_dma_addr(page) + NPUEP_RX_HEADROOM;
		qp->rx_bufs[ntu].page = page;
		desc->addr = cpu_to_le64(dma);
		desc->buf_len = cpu_to_le16(qp->rx_buf_len);
		desc->len = 0;
		desc->reason = 0;
		desc->port = 0;
		desc->hash = 0;
		desc->conn = 0;
		desc->vlan_tci = 0;
		WRITE_ONCE(desc->flags, 0);
		ntu = (ntu + 1) & mask;
		filled = true;
	}
	if (filled) {
		qp->rx_ntu = ntu;
		/* Descriptors before the doorbell. */
		dma_wmb();
		npuep_wr32(qp->port->ndev, qp->reg + NPU_QP_RX_TAIL, ntu);
	}
	return filled;
}

/* One NAPI pass's receive counters, added to the queue's at its end. */
struct npuep_rx_pass {
	u64 packets;
	u64 bytes;
	u64 alloc_fail;
	u64 csum_ok;
	u64 bad_len;
	u64 bad_port;
	u64 bad_reason;
	u64 bad_conn;
	u64 punt[NPU_PUNT_MAX];
};

/* The connections of one pass's frames punted not active, in order. */
struct npuep_rx_revives {
	u32 n;
	u32 conn[NPUEP_RX_BUDGET_MAX];
};

/*
 * Note a frame punted not active: its connection is revived at the end of
 * the pass (npuep_flow_revive()), or now if a pass ever took more frames
 * than @rv holds.
 */
static void npuep_rx_revive_note(struct npuep_qp *qp,
				 struct npuep_rx_revives *rv, u32 conn)
{
	if (unlikely(rv->n == ARRAY_SIZE(rv->conn))) {
		npuep_flow_revive(qp->port->ndev, rv->conn, rv->n);
		rv->n = 0;
	}
	rv->conn[rv->n++] = conn;
}

/*
 * Read a completed descriptor once, into @d, and check what the device
 * wrote against what this queue posted: a length within the posted
 * buffer and at least an Ethernet header, this port, a known reason.  A
 * connection index beyond any table becomes NPU_CONN_NONE: it costs the
 * index, not the frame.  Each failure is counted in @pass.
 *
 * Return: true if the frame may be used.
 */
static bool npuep_rx_desc_read(const struct npuep_qp *qp,
			       const struct npu_rx_desc *desc,
			       struct npu_rx_desc *d, struct npuep_rx_pass *pass)
{
	u32 len, conn;

	memcpy(d, desc, sizeof(*d));
	/* What is checked is what is used: the ring is not read again. */
	barrier();
	len = le16_to_cpu(d->len);
	if (unlikely(len > qp->rx_buf_len || len < ETH_HLEN)) {
		pass->bad_len++;
		return false;
	}
	if (unlikely(d->port != qp->port->idx)) {
		pass->bad_port++;
		return false;
	}
	if (unlikely(d->reason >= NPU_PUNT_MAX)) {
		pass->bad_reason++;
		return false;
	}
	conn = le32_to_cpu(d->conn);
	if (unlikely(conn != NPU_CONN_NONE && conn >= NPU_FT_CONNS_MAX)) {
		pass->bad_conn++;
		d->conn = cpu_to_le32(NPU_CONN_NONE);
	}
	return true;
}

/*
 * Build an skb around a checked frame's buffer (no copy) and hand it to
 * GRO.  @offset, @len and @metasize: where the frame is in the page after
 * the XDP program, if one ran.
 */
static void npuep_rx_skb(struct npuep_qp *qp, const struct npu_rx_desc *d,
			 struct page *page, u32 offset, u32 len, u32 metasize,
			 struct npuep_rx_pass *pass)
{
	struct net_device *netdev = qp->port->netdev;
	u16 flags = le16_to_cpu(d->flags);
	struct sk_buff *skb;

	skb = napi_build_skb(page_address(page), qp->rx_truesize);
	if (unlikely(!skb)) {
		pass->alloc_fail++;
		page_pool_recycle_direct(qp->pool, page);
		return;
	}
	skb_mark_for_recycle(skb);
	skb_reserve(skb, offset);
	__skb_put(skb, len);
	if (metasize)
		skb_metadata_set(skb, metasize);
	skb->protocol = eth_type_trans(skb, netdev);

	if ((netdev->features & NETIF_F_RXCSUM) && (flags & NPU_RXD_CSUM_OK)) {
		skb->ip_summed = CHECKSUM_UNNECESSARY;
		pass->csum_ok++;
	}
	if (netdev->features & NETIF_F_RXHASH) {
		u32 hash = le32_to_cpu(d->hash);

		if (flags & NPU_RXD_HASH_L4)
			skb_set_hash(skb, hash, PKT_HASH_TYPE_L4);
		else if (flags & NPU_RXD_HASH_L3)
			skb_set_hash(skb, hash, PKT_HASH_TYPE_L3);
	}
	skb_record_rx_queue(skb, qp->idx);
	if (d->reason)
		npuep_trap_report(qp->port, skb, d->reason);
	napi_gro_receive(&qp->napi, skb);
}

static void npuep_rx_pass_add(struct npuep_qp *qp,
			      const struct npuep_rx_pass *pass, int done)
{
	u64 bad = pass->bad_len + pass->bad_port + pass->bad_reason;
	int i;

	u64_stats_update_begin(&qp->stats.syncp);
	qp->stats.rx_packets += pass->packets;
	qp->stats.rx_bytes += pass->bytes;
	qp->stats.rx_bad_desc += bad;
	qp->stats.rx_bad_len += pass->bad_len;
	qp->stats.rx_bad_port += pass->bad_port;
	qp->stats.rx_bad_reason += pass->bad_reason;
	qp->stats.rx_bad_conn += pass->bad_conn;
	qp->stats.rx_alloc_fail += pass->alloc_fail;
	qp->stats.rx_drops += bad + pass->alloc_fail;
	qp->stats.rx_csum_ok += pass->csum_ok;
	for (i = 0; i < NPU_PUNT_MAX; i++)
		qp->stats.rx_punt[i] += pass->punt[i];
	if (qp->sched_by_poll)
		qp->stats.rx_poll_frames += done;
	else
		qp->stats.rx_doorbell_frames += done;
	u64_stats_update_end(&qp->stats.syncp);
}

/**
 * npuep_rx_clean() - take completed receive descriptors, then refill
 * @qp: the queue pair, in its NAPI
 * @limit: at most this many descriptors
 *
 * Each descriptor is read once and checked (npuep_rx_desc_read()) before
 * its buffer is touched; one that fails is counted (rx_bad_len,
 * rx_bad_port, rx_bad_reason, all in rx_bad_desc) and its buffer
 * recycled.  Only buffers this queue posted are read: the slot's own page,
 * never an address from the descriptor.
 *
 * Return: descriptors taken (frames and bad descriptors).
 */
int npuep_rx_clean(struct npuep_qp *qp, int limit)
{
	struct npuep_port *port = qp->port;
	u32 mask = qp->rx_size - 1;
	struct npuep_rx_pass pass = {};
	struct npuep_xdp_ctx xc = {};
	struct npuep_rx_revives rv;
	int done = 0;

	rv.n = 0;
	xc.prog = READ_ONCE(port->xdp_prog);

	while (done < limit) {
		struct npu_rx_desc *desc = &qp->rx_ring[qp->rx_ntc];
		u32 len, offset, metasize;
		struct npu_rx_desc d;
		struct page *page;

		if (qp->rx_ntc == qp->rx_ntu)
			break;		/* nothing posted */
		if (!(le16_to_cpu(READ_ONCE(desc->flags)) & NPU_RXD_DONE))
			break;
		/* DONE is written last: read the rest after it. */
		dma_rmb();

		page = qp->rx_bufs[qp->rx_ntc].page;
		qp->rx_bufs[qp->rx_ntc].page = NULL;
		qp->rx_ntc = (qp->rx_ntc + 1) & mask;
		done++;

		if (unlikely(!page))
			continue;	/* cannot happen: every posted slot has one */
		if (unlikely(!npuep_rx_desc_read(qp, desc, &d, &pass))) {
			page_pool_recycle_direct(qp->pool, page);
			continue;
		}
		len = le16_to_cpu(d.len);

		page_pool_dma_sync_for_cpu(qp->pool, page, 0, len);
		net_prefetch(page_address(page) + NPUEP_RX_HEADROOM);

		/* Counted as received whatever the program decides. */
		pass.packets++;
		pass.bytes += len;
		pass.punt[d.reason]++;
		/* A given-back connection: revived in place after the loop. */
		if (unlikely(d.reason == NPU_PUNT_NOT_ACTIVE))
			npuep_rx_revive_note(qp, &rv, le32_to_cpu(d.conn));

		offset = NPUEP_RX_HEADROOM;
		metasize = 0;
		if (xc.prog && npuep_xdp_rx(qp, &xc, &d, page, len, &offset,
					    &len, &metasize))
			continue;
		npuep_rx_skb(qp, &d, page, offset, len, metasize, &pass);
	}

	if (done)
		npuep_rx_pass_add(qp, &pass, done);

	if (xc.prog)
		npuep_xdp_rx_done(qp, &xc);

	/* One revive post per pass, under one doorbell of the command ring. */
	if (unlikely(rv.n))
		npuep_flow_revive(port->ndev, rv.conn, rv.n);

	/* One doorbell per pass. */
	npuep_rx_refill(qp, GFP_ATOMIC);
	if (unlikely(npuep_rx_ring_empty(qp)))
		npuep_rx_refill_later(qp);
	else if (unlikely(qp->refill_delay_ms != NPUEP_RX_REFILL_MIN_MS))
		qp->refill_delay_ms = NPUEP_RX_REFILL_MIN_MS;
	return done;
}

/*
 * Refill an empty ring from process context, where the allocation may
 * sleep and reclaim (as virtio_net's refill_work).  NAPI is disabled
 * around it: the ring is NAPI's.
 */
static void npuep_rx_refill_work(struct work_struct *work)
{
	struct npuep_qp *qp = container_of(to_delayed_work(work),
					   struct npuep_qp, refill_work);

	napi_disable(&qp->napi);
	npuep_rx_refill(qp, GFP_KERNEL);
	u64_stats_update_begin(&qp->stats.syncp);
	qp->stats.rx_refill_retry++;
	u64_stats_update_end(&qp->stats.syncp);
	if (npuep_rx_ring_empty(qp))
		qp->refill_delay_ms = min(2 * qp->refill_delay_ms,
					  NPUEP_RX_REFILL_MAX_MS);
	napi_enable(&qp->napi);
	/*
	 * A doorbell raised meanwhile found NAPI disabled and was lost, and
	 * the device keeps the vector masked until a pass re-arms it: run a
	 * pass now.  If the ring is still empty, that pass queues this work
	 * again, after the longer delay.
	 */
	local_bh_disable();
	napi_schedule(&qp->napi);
	local_bh_enable();
}

/**
 * npuep_rx_refill_init() - set up a queue's refill retry, not yet armed
 * @qp: the queue pair, being opened (NAPI not enabled yet)
 */
void npuep_rx_refill_init(struct npuep_qp *qp)
{
	spin_lock_init(&qp->refill_lock);
	INIT_DELAYED_WORK(&qp->refill_work, npuep_rx_refill_work);
	qp->refill_on = false;
	qp->refill_delay_ms = NPUEP_RX_REFILL_MIN_MS;
}

/**
 * npuep_rx_refill_start() - arm the refill retry once NAPI is enabled
 * @qp: the queue pair
 *
 * A ring left empty by the first refill (npuep_qp_hw_start()) is retried
 * at once.  Process context.
 */
void npuep_rx_refill_start(struct npuep_qp *qp)
{
	spin_lock_bh(&qp->refill_lock);
	qp->refill_on = true;
	if (npuep_rx_ring_empty(qp))
		queue_delayed_work(system_wq, &qp->refill_work, 0);
	spin_unlock_bh(&qp->refill_lock);
}

/**
 * npuep_rx_refill_stop() - disarm the refill retry before NAPI is disabled
 * @qp: the queue pair
 *
 * Returns when the work is neither queued nor running, and no NAPI pass
 * can queue it again.  Process context; the caller disables NAPI next.
 */
void npuep_rx_refill_stop(struct npuep_qp *qp)
{
	spin_lock_bh(&qp->refill_lock);
	qp->refill_on = false;
	spin_unlock_bh(&qp->refill_lock);
	cancel_delayed_work_sync(&qp->refill_work);
}
