// SPDX-License-Identifier: GPL-2.0
/*
 * npuep transmit: ndo_start_xmit maps a frame's head, pages and frag list
 * into one descriptor each, the first carrying the checksum and TSO
 * fields; NAPI reaps what the device marked DONE (skbs, and the XDP frames
 * xdp.c queues on the same ring), with BQL and queue stop/wake.
 */
#include <linux/dma-mapping.h>
#include <linux/etherdevice.h>
#include <linux/skbuff.h>
#include <linux/tcp.h>
#include <net/netdev_queues.h>
#include <net/tcp.h>

#include "npuep.h"

/**
 * npuep_tx_free() - free descriptors on a transmit ring
 * @qp: the queue pair
 *
 * Return: descriptors the xmit path may fill (one always stays empty).
 */
u32 npuep_tx_free(const struct npuep_qp *qp)
{
	u32 used = (READ_ONCE(qp->tx_ntu) - READ_ONCE(qp->tx_ntc)) &
		   (qp->tx_size - 1);

	return qp->tx_size - 1 - used;
}

/**
 * npuep_tx_unmap() - unmap a transmit slot's buffer, if it mapped one
 * @qp: the queue pair
 * @buf: the slot
 */
void npuep_tx_unmap(struct npuep_qp *qp, struct npuep_tx_buf *buf)
{
	struct device *dma_dev = qp->port->ndev->hw->dma_dev;

	if (!buf->len)
		return;
	if (buf->head)
		dma_unmap_single(dma_dev, buf->dma, buf->len, DMA_TO_DEVICE);
	else
		dma_unmap_page(dma_dev, buf->dma, buf->len, DMA_TO_DEVICE);
	buf->len = 0;
}

/**
 * npuep_tx_clean() - reap transmit descriptors the device marked DONE
 * @qp: the queue pair, in its NAPI
 * @budget: the NAPI budget; 0 from netpoll (no page_pool direct recycling)
 *
 * Frees the skbs and XDP frames, reports BQL completions and wakes the
 * queue when enough room is back.
 */
void npuep_tx_clean(struct npuep_qp *qp, int budget)
{
	struct netdev_queue *txq = netdev_get_tx_queue(qp->port->netdev,
						       qp->idx);
	u32 mask = qp->tx_size - 1;
	u32 ntc = qp->tx_ntc;
	unsigned int pkts = 0, bytes = 0, xdp_pkts = 0, xdp_bytes = 0;
	u32 ntu;

	/* Pairs with the release in npuep_start_xmit(): buffers are set. */
	ntu = smp_load_acquire(&qp->tx_ntu);

	while (ntc != ntu) {
		struct npuep_tx_buf *buf = &qp->tx_bufs[ntc];
		u16 flags = le16_to_cpu(READ_ONCE(qp->tx_ring[ntc].flags));

		if (!(flags & NPU_TXD_DONE))
			break;
		npuep_tx_unmap(qp, buf);
		if (buf->type != NPUEP_TX_SKB) {
			xdp_pkts++;
			xdp_bytes += buf->bytes;
			/* XDP_TX pages go back to this NAPI's own pool. */
			if (buf->type == NPUEP_TX_XDP_TX && budget)
				xdp_return_frame_rx_napi(buf->xdpf);
			else
				xdp_return_frame(buf->xdpf);
			buf->xdpf = NULL;
			buf->type = NPUEP_TX_SKB;
		} else if (buf->skb) {
			pkts += buf->segs;
			bytes += buf->bytes;
			napi_consume_skb(buf->skb, budget);
			buf->skb = NULL;
		}
		ntc = (ntc + 1) & mask;
	}
	if (ntc == qp->tx_ntc)
		return;

	/* Slots are free once the xmit path sees the new index. */
	smp_store_release(&qp->tx_ntc, ntc);
	u64_stats_update_begin(&qp->stats.syncp);
	qp->stats.tx_packets += pkts + xdp_pkts;
	qp->stats.tx_bytes += bytes + xdp_bytes;
	u64_stats_update_end(&qp->stats.syncp);

	/* No wake while the datapath is being closed. */
	if (__netif_txq_completed_wake(txq, pkts, bytes, npuep_tx_free(qp),
				       NPUEP_TX_START_THRS(qp),
				       !READ_ONCE(qp->port->dp_open)) == 0) {
		u64_stats_update_begin(&qp->stats.syncp);
		qp->stats.tx_wake++;
		u64_stats_update_end(&qp->stats.syncp);
	}
}

static void npuep_tx_drop(struct npuep_qp *qp, struct sk_buff *skb)
{
	dev_kfree_skb_any(skb);
	u64_stats_update_begin(&qp->stats.xsyncp);
	qp->stats.tx_drops++;
	u64_stats_update_end(&qp->stats.xsyncp);
}

/* Descriptors @skb takes: its head and pages, and those of its frag list. */
static unsigned int npuep_tx_descs(struct sk_buff *skb)
{
	unsigned int n = !!skb_headlen(skb) + skb_shinfo(skb)->nr_frags;
	struct sk_buff *iter;

	skb_walk_frags(skb, iter)
		n += !!skb_headlen(iter) + skb_shinfo(iter)->nr_frags;
	return n;
}

/**
 * npuep_features_check() - ndo_features_check
 * @skb: a frame on its way to npuep_start_xmit()
 * @netdev: the port's netdev
 * @features: what the stack would use
 *
 * NETIF_F_FRAGLIST: a frame GRO chained past MAX_SKB_FRAGS (a frag list)
 * goes out whole, as one TSO frame, unless it takes more than
 * NPU_TX_MAX_DESCS descriptors; then the stack segments (or linearises) it
 * first.  Before, every such frame was segmented by the stack, whose
 * segments hold page references: 38 % of the receive pages left the page
 * pool (a new page allocated per 2.6 frames forwarded, 4-5 us each under
 * TCG, iperf3 through the host).
 *
 * Return: @features, less NETIF_F_FRAGLIST for a frame too long for it.
 */
netdev_features_t npuep_features_check(struct sk_buff *skb,
				       struct net_device *netdev,
				       netdev_features_t features)
{
	features = vlan_features_check(skb, features);
	if (skb_has_frag_list(skb) && npuep_tx_descs(skb) > NPU_TX_MAX_DESCS)
		features &= ~NETIF_F_FRAGLIST;
	return features;
}

/* Where npuep_tx_map() is in a frame: descriptors and first-only fields. */
struct npuep_tx_map {
	u32 first;
	u32 ntu;
	u32 last;
	u16 first_flags;
	u16 csum_start;
	u16 csum_offset;
	u16 mss;
};

/* Map @cur's head and pages into descriptors from m->ntu on. */
static int npuep_tx_map(struct npuep_qp *qp, struct sk_buff *cur,
			struct npuep_tx_map *m)
{
	struct device *dma_dev = qp->port->ndev->hw->dma_dev;
	unsigned int i, nfrags = skb_shinfo(cur)->nr_frags;
	u32 mask = qp->tx_size - 1;

	for (i = 0; i <= nfrags; i++) {
		struct npuep_tx_buf *buf = &qp->tx_bufs[m->ntu];
		struct npu_tx_desc *desc = &qp->tx_ring[m->ntu];
		dma_addr_t dma;
		u32 len;

		if (i == 0) {
			len = skb_headlen(cur);
			if (!len)
				continue;
			if (unlikely(len > U16_MAX))
				return -EMSGSIZE;
			dma = dma_map_single(dma_dev, cur->data, len,
					     DMA_TO_DEVICE);
			buf->head = true;
		} else {
			skb_frag_t *frag = &skb_shinfo(cur)->frags[i - 1];

			len = skb_frag_size(frag);
			if (!len)
				continue;
			if (unlikely(len > U16_MAX))
				return -EMSGSIZE;
			dma = skb_frag_dma_map(dma_dev, frag, 0, len,
					       DMA_TO_DEVICE);
			buf->head = false;
		}
		if (unlikely(dma_mapping_error(dma_dev, dma)))
			return -ENOMEM;
		buf->dma = dma;
		buf->len = len;
		buf->skb = NULL;

		desc->addr = cpu_to_le64(dma);
		desc->len = cpu_to_le16(len);
		desc->csum_start = cpu_to_le16(m->csum_start);
		desc->csum_offset = cpu_to_le16(m->csum_offset);
		desc->mss = cpu_to_le16(m->mss);
		desc->rsvd0 = 0;
		desc->rsvd1 = 0;
		desc->rsvd2 = 0;
		desc->flags = cpu_to_le16(m->ntu == m->first ?
					  m->first_flags : 0);
		m->last = m->ntu;
		m->ntu = (m->ntu + 1) & mask;
	}
	return 0;
}

/*
 * The first descriptor's offloads of @skb into @m (checksum, TSO), and
 * *@bytes and *@segs on the wire.  Return: 0, or -EPROTONOSUPPORT for a
 * GSO type other than TCP (dropped).
 */
static int npuep_tx_offloads(struct sk_buff *skb, struct npuep_tx_map *m,
			     u32 *bytes, u16 *segs)
{
	unsigned int gso_type;

	if (skb->ip_summed == CHECKSUM_PARTIAL) {
		m->first_flags |= NPU_TXD_CSUM;
		m->csum_start = skb_checksum_start_offset(skb);
		m->csum_offset = skb->csum_offset;
	}
	if (!skb_is_gso(skb))
		return 0;
	gso_type = skb_shinfo(skb)->gso_type;
	if (gso_type & SKB_GSO_TCPV4)
		m->first_flags |= NPU_TXD_TSO4;
	else if (gso_type & SKB_GSO_TCPV6)
		m->first_flags |= NPU_TXD_TSO6;
	else
		return -EPROTONOSUPPORT;
	m->mss = skb_shinfo(skb)->gso_size;
	*segs = skb_shinfo(skb)->gso_segs;
	*bytes += (*segs - 1) * skb_tcp_all_headers(skb);
	return 0;
}

/*
 * The frame mapped in @m is complete: mark its end, hand the descriptors
 * to the completion path, stop the queue if it is nearly full, and ring
 * the doorbell unless more frames follow.
 */
static void npuep_tx_publish(struct npuep_qp *qp, struct netdev_queue *txq,
			     struct sk_buff *skb, const struct npuep_tx_map *m,
			     u32 bytes, u16 segs)
{
	qp->tx_ring[m->last].flags |= cpu_to_le16(NPU_TXD_EOP);
	qp->tx_bufs[m->last].skb = skb;
	qp->tx_bufs[m->last].bytes = bytes;
	qp->tx_bufs[m->last].segs = segs;
	skb_tx_timestamp(skb);
	if (skb_has_frag_list(skb)) {
		u64_stats_update_begin(&qp->stats.xsyncp);
		qp->stats.tx_fraglist++;
		u64_stats_update_end(&qp->stats.xsyncp);
	}

	/* Descriptors before the index the completion path reads. */
	dma_wmb();
	/* Pairs with the acquire in npuep_tx_clean(). */
	smp_store_release(&qp->tx_ntu, m->ntu);

	if (!netif_txq_maybe_stop(txq, npuep_tx_free(qp), NPUEP_TX_STOP_THRS,
				  NPUEP_TX_START_THRS(qp))) {
		u64_stats_update_begin(&qp->stats.xsyncp);
		qp->stats.tx_stop++;
		u64_stats_update_end(&qp->stats.xsyncp);
	}
	if (__netdev_tx_sent_queue(txq, bytes, netdev_xmit_more()))
		npuep_wr32(qp->port->ndev, qp->reg + NPU_QP_TX_TAIL, m->ntu);
}

/**
 * npuep_start_xmit() - ndo_start_xmit: one descriptor per fragment
 * @skb: the frame; its frag list, if any, follows its own pages
 * @netdev: the port's netdev
 *
 * Return: NETDEV_TX_OK, or NETDEV_TX_BUSY if the queue was found full.
 */
netdev_tx_t npuep_start_xmit(struct sk_buff *skb, struct net_device *netdev)
{
	struct npuep_port *port = netdev_priv(netdev);
	u16 qidx = skb_get_queue_mapping(skb);
	struct npuep_qp *qp = &port->qps[qidx];
	struct netdev_queue *txq = netdev_get_tx_queue(netdev, qidx);
	struct npuep_tx_map m = {};
	u32 mask, bytes;
	struct sk_buff *cur;
	unsigned int descs;
	u16 segs = 1;

	if (unlikely(!qp->open || skb->len < ETH_HLEN)) {
		npuep_tx_drop(qp, skb);
		return NETDEV_TX_OK;
	}
	/*
	 * Without doorbell vectors completions are reaped only by the poll,
	 * every poll_interval_us: do not hold socket memory (TCP small
	 * queues) that long.
	 */
	if (qp->irq < 0)
		skb_orphan(skb);
	descs = npuep_tx_descs(skb);
	if (unlikely(descs > NPU_TX_MAX_DESCS)) {
		/* npuep_features_check() keeps frag lists within the bound */
		npuep_tx_drop(qp, skb);
		return NETDEV_TX_OK;
	}
	if (unlikely(npuep_tx_free(qp) < descs)) {
		netif_tx_stop_queue(txq);
		return NETDEV_TX_BUSY;
	}

	bytes = skb->len;
	if (npuep_tx_offloads(skb, &m, &bytes, &segs)) {
		npuep_tx_drop(qp, skb);
		return NETDEV_TX_OK;
	}

	mask = qp->tx_size - 1;
	m.first = qp->tx_ntu;
	m.ntu = m.first;
	m.last = m.first;
	/* @skb's head and pages, then each of its frag list's */
	for (cur = skb; cur;
	     cur = cur == skb ? skb_shinfo(skb)->frag_list : cur->next) {
		if (npuep_tx_map(qp, cur, &m))
			goto err_unmap;
	}
	if (unlikely(m.ntu == m.first)) {	/* a zero-length skb */
		npuep_tx_drop(qp, skb);
		return NETDEV_TX_OK;
	}

	npuep_tx_publish(qp, txq, skb, &m, bytes, segs);
	return NETDEV_TX_OK;

err_unmap:
	while (m.ntu != m.first) {
		m.ntu = (m.ntu - 1) & mask;
		npuep_tx_unmap(qp, &qp->tx_bufs[m.ntu]);
	}
	npuep_tx_drop(qp, skb);
	/* Earlier frames may still wait for their doorbell. */
	if (!netdev_xmit_more())
		npuep_wr32(port->ndev, qp->reg + NPU_QP_TX_TAIL, qp->tx_ntu);
	return NETDEV_TX_OK;
}
