// SPDX-License-Identifier: GPL-2.0
/*
 * npuep XDP: native programs on the receive path, XDP_TX out of the same
 * queue pair's transmit ring, redirect and ndo_xdp_xmit, the npuflow
 * metadata in front of every frame and the rx metadata kfuncs.
 *
 * The receive buffers always have XDP_PACKET_HEADROOM in front of the frame,
 * and up to NPUEP_XDP_MAX_MTU they are one page each.  A program is attached
 * only at such an MTU, and the MTU cannot grow past it while one is (no
 * multi-buffer XDP), so attaching or detaching never changes the ring
 * layout: the program pointer is swapped with xchg() and NAPI reads it once
 * per pass with READ_ONCE() (the old program is freed after an RCU grace
 * period by bpf_prog_put()).
 */
#include <linux/bpf.h>
#include <linux/bpf_trace.h>
#include <linux/filter.h>
#include <net/page_pool/helpers.h>
#include <net/xdp.h>

#include "npuep.h"
#include "npuflow_meta.h"

/* The metadata carries the device's values: npuflow_meta.h's are npu_hw.h's. */
static_assert(sizeof(struct npuflow_meta) == 16);
static_assert(NPUFLOW_MAX_PORTS == NPU_MAX_PORTS);
static_assert(NPUFLOW_CONN_NONE == NPU_CONN_NONE);
static_assert(NPUFLOW_R_NONE == NPU_PUNT_NONE);
static_assert(NPUFLOW_R_FLOW_MISS == NPU_PUNT_FLOW_MISS);
static_assert(NPUFLOW_R_NOT_ACTIVE == NPU_PUNT_NOT_ACTIVE);
static_assert(NPUFLOW_R_TCP_FLAGS == NPU_PUNT_TCP_FLAGS);
static_assert(NPUFLOW_R_EXCEPTION == NPU_PUNT_EXCEPTION);
static_assert(NPUFLOW_R_MTU == NPU_PUNT_MTU);
static_assert(NPUFLOW_R_NON_IP == NPU_PUNT_NON_IP);
static_assert(NPUFLOW_R_MCAST == NPU_PUNT_MCAST);
static_assert(NPUFLOW_R_FASTPATH_OFF == NPU_PUNT_FASTPATH_OFF);
static_assert(NPUFLOW_R_NTUPLE == NPU_PUNT_NTUPLE);
static_assert(NPUFLOW_R_MALFORMED == NPU_PUNT_MALFORMED);
static_assert(NPUFLOW_R_MAX == NPU_PUNT_MAX);

/* What the kfuncs see: the xdp_buff and the descriptor fields they report. */
struct npuep_xdp_buff {
	struct xdp_buff xdp;
	u32 hash;
	u16 flags;		/* NPU_RXD_* */
	u16 vlan_tci;
	__be16 vlan_proto;
};

static void npuep_xdp_meta_fill(struct npuflow_meta *meta,
				const struct npu_rx_desc *desc, u16 flags)
{
	meta->magic = NPUFLOW_META_MAGIC;
	meta->version = NPUFLOW_META_VERSION;
	meta->reason = desc->reason;
	meta->port = desc->port;
	meta->flags = 0;
	if (flags & NPU_RXD_HASH_L4)
		meta->flags |= NPUFLOW_META_F_HASH_L4;
	else if (flags & NPU_RXD_HASH_L3)
		meta->flags |= NPUFLOW_META_F_HASH_L3;
	if (flags & NPU_RXD_VLAN)
		meta->flags |= NPUFLOW_META_F_VLAN;
	if (flags & NPU_RXD_CSUM_OK)
		meta->flags |= NPUFLOW_META_F_CSUM_OK;
	meta->vlan_tci = (flags & NPU_RXD_VLAN) ? le16_to_cpu(desc->vlan_tci) : 0;
	meta->hash = (flags & (NPU_RXD_HASH_L4 | NPU_RXD_HASH_L3)) ?
		     le32_to_cpu(desc->hash) : 0;
	meta->conn = le32_to_cpu(desc->conn);
}

/*
 * Queue one XDP frame on @qp's transmit ring.  The caller holds the tx
 * queue's lock and rings the doorbell.  @xmit: a frame from ndo_xdp_xmit
 * (mapped here); otherwise an XDP_TX frame in a page of @qp's page_pool.
 */
static int npuep_xdp_queue(struct npuep_qp *qp, struct xdp_frame *xdpf,
			   bool xmit)
{
	struct device *dma_dev = qp->port->ndev->hw->dma_dev;
	u32 ntu = qp->tx_ntu;
	struct npuep_tx_buf *buf = &qp->tx_bufs[ntu];
	struct npu_tx_desc *desc = &qp->tx_ring[ntu];
	dma_addr_t dma;

	if (unlikely(xdpf->len < ETH_HLEN || xdpf->len > NPU_MAX_FRAME ||
		     xdp_frame_has_frags(xdpf)))
		return -EINVAL;
	if (unlikely(npuep_tx_free(qp) < 1))
		return -ENOSPC;

	if (xmit) {
		dma = dma_map_single(dma_dev, xdpf->data, xdpf->len,
				     DMA_TO_DEVICE);
		if (unlikely(dma_mapping_error(dma_dev, dma)))
			return -ENOMEM;
		buf->len = xdpf->len;
		buf->head = true;
		buf->type = NPUEP_TX_XDP_XMIT;
	} else {
		struct page *page = virt_to_page(xdpf->data);

		dma = page_pool_get_dma_addr(page) +
		      offset_in_page(xdpf->data);
		dma_sync_single_for_device(dma_dev, dma, xdpf->len,
					   DMA_BIDIRECTIONAL);
		buf->len = 0;		/* the page_pool owns the mapping */
		buf->head = false;
		buf->type = NPUEP_TX_XDP_TX;
	}
	buf->xdpf = xdpf;
	buf->dma = dma;
	buf->bytes = xdpf->len;
	buf->segs = 1;

	desc->addr = cpu_to_le64(dma);
	desc->len = cpu_to_le16(xdpf->len);
	desc->csum_start = 0;
	desc->csum_offset = 0;
	desc->mss = 0;
	desc->rsvd0 = 0;
	desc->rsvd1 = 0;
	desc->rsvd2 = 0;
	desc->flags = cpu_to_le16(NPU_TXD_EOP);

	/* Descriptor before the index the completion path reads. */
	dma_wmb();
	/* Pairs with the acquire in npuep_tx_clean(). */
	smp_store_release(&qp->tx_ntu, (ntu + 1) & (qp->tx_size - 1));
	return 0;
}

/**
 * npuep_xdp_rx() - run the port's program on one received frame
 * @qp: the receiving queue pair (in its NAPI)
 * @xc: this pass's program and counters
 * @desc: the frame's completed descriptor
 * @page: the frame's buffer
 * @len: frame bytes at NPUEP_RX_HEADROOM
 * @offset: out (XDP_PASS): frame start in the page
 * @data_len: out (XDP_PASS): frame bytes
 * @metasize: out (XDP_PASS): metadata bytes in front of the frame
 *
 * Return: true if the frame was consumed (dropped, sent, redirected), false
 * for XDP_PASS: build the skb from @offset, @data_len and @metasize.
 */
bool npuep_xdp_rx(struct npuep_qp *qp, struct npuep_xdp_ctx *xc,
		  const struct npu_rx_desc *desc, struct page *page, u32 len,
		  u32 *offset, u32 *data_len, u32 *metasize)
{
	struct net_device *netdev = qp->port->netdev;
	u16 flags = le16_to_cpu(desc->flags);
	struct npuep_xdp_buff xb;
	struct npuflow_meta *meta;
	struct xdp_frame *xdpf;
	void *va = page_address(page);
	u32 act;
	int err;

	xdp_init_buff(&xb.xdp, qp->rx_truesize, &qp->xdp_rxq);
	xdp_prepare_buff(&xb.xdp, va, NPUEP_RX_HEADROOM, len, true);
	meta = xb.xdp.data - sizeof(*meta);
	npuep_xdp_meta_fill(meta, desc, flags);
	xb.xdp.data_meta = meta;
	xb.flags = flags;
	xb.hash = le32_to_cpu(desc->hash);
	xb.vlan_tci = le16_to_cpu(desc->vlan_tci);
	xb.vlan_proto = *(__be16 *)(xb.xdp.data + 2 * ETH_ALEN);

	act = bpf_prog_run_xdp(xc->prog, &xb.xdp);
	switch (act) {
	case XDP_PASS:
		xc->pass++;
		*offset = xb.xdp.data - va;
		*data_len = xb.xdp.data_end - xb.xdp.data;
		*metasize = xb.xdp.data - xb.xdp.data_meta;
		return false;
	case XDP_TX:
		xdpf = xdp_convert_buff_to_frame(&xb.xdp);
		if (unlikely(!xdpf))
			goto tx_err;
		__netif_tx_lock(netdev_get_tx_queue(netdev, qp->idx),
				smp_processor_id());
		err = npuep_xdp_queue(qp, xdpf, false);
		__netif_tx_unlock(netdev_get_tx_queue(netdev, qp->idx));
		if (unlikely(err))
			goto tx_err;
		xc->tx++;
		xc->tx_pending = true;
		return true;
	case XDP_REDIRECT:
		err = xdp_do_redirect(netdev, &xb.xdp, xc->prog);
		if (unlikely(err)) {
			xc->redirect_err++;
			trace_xdp_exception(netdev, xc->prog, act);
			goto drop;
		}
		xc->redirect++;
		xc->redirect_pending = true;
		return true;
	default:
		bpf_warn_invalid_xdp_action(netdev, xc->prog, act);
		fallthrough;
	case XDP_ABORTED:
		xc->aborted++;
		trace_xdp_exception(netdev, xc->prog, act);
		goto drop;
	case XDP_DROP:
		xc->drop++;
		goto drop;
	}

tx_err:
	xc->tx_err++;
	trace_xdp_exception(netdev, xc->prog, act);
drop:
	page_pool_put_full_page(qp->pool, page, true);
	return true;
}

/**
 * npuep_xdp_rx_done() - end of a receive pass that ran a program
 * @qp: the queue pair
 * @xc: the pass's verdicts
 *
 * Rings the transmit doorbell once for the pass's XDP_TX frames, flushes
 * redirects and adds up the counters.
 */
void npuep_xdp_rx_done(struct npuep_qp *qp, struct npuep_xdp_ctx *xc)
{
	struct net_device *netdev = qp->port->netdev;

	if (xc->tx_pending) {
		struct netdev_queue *txq = netdev_get_tx_queue(netdev, qp->idx);

		__netif_tx_lock(txq, smp_processor_id());
		npuep_wr32(qp->port->ndev, qp->reg + NPU_QP_TX_TAIL,
			   qp->tx_ntu);
		__netif_tx_unlock(txq);
	}
	if (xc->redirect_pending)
		xdp_do_flush();

	u64_stats_update_begin(&qp->stats.syncp);
	qp->stats.rx_xdp_pass += xc->pass;
	qp->stats.rx_xdp_drop += xc->drop;
	qp->stats.rx_xdp_tx += xc->tx;
	qp->stats.rx_xdp_redirect += xc->redirect;
	qp->stats.rx_xdp_aborted += xc->aborted;
	qp->stats.rx_xdp_tx_errors += xc->tx_err;
	qp->stats.rx_xdp_redirect_errors += xc->redirect_err;
	u64_stats_update_end(&qp->stats.syncp);
}

/**
 * npuep_xdp_xmit() - ndo_xdp_xmit: frames redirected to this port
 * @netdev: the port's netdev
 * @n: number of frames
 * @frames: the frames
 * @flags: XDP_XMIT_FLUSH rings the doorbell
 *
 * Runs in the redirecting device's NAPI, under RCU; npuep_dp_close() waits
 * for it (synchronize_net()) before it frees the rings.
 *
 * Return: frames queued (the caller frees the rest), or a negative errno.
 */
int npuep_xdp_xmit(struct net_device *netdev, int n, struct xdp_frame **frames,
		   u32 flags)
{
	struct npuep_port *port = netdev_priv(netdev);
	struct netdev_queue *txq;
	struct npuep_qp *qp;
	int i, sent = 0;

	if (unlikely(flags & ~XDP_XMIT_FLAGS_MASK))
		return -EINVAL;
	/* Pairs with the store in npuep_dp_open(): rings and nq are set. */
	if (unlikely(!smp_load_acquire(&port->dp_open)))
		return -ENETDOWN;
	qp = &port->qps[smp_processor_id() % port->nq];
	if (unlikely(!qp->open))
		return -ENETDOWN;

	txq = netdev_get_tx_queue(netdev, qp->idx);
	__netif_tx_lock(txq, smp_processor_id());
	for (i = 0; i < n; i++) {
		if (npuep_xdp_queue(qp, frames[i], true))
			break;
		sent++;
	}
	if (sent && (flags & XDP_XMIT_FLUSH))
		npuep_wr32(port->ndev, qp->reg + NPU_QP_TX_TAIL, qp->tx_ntu);
	u64_stats_update_begin(&qp->stats.xsyncp);
	qp->stats.tx_xdp_xmit += sent;
	qp->stats.tx_xdp_xmit_errors += n - sent;
	u64_stats_update_end(&qp->stats.xsyncp);
	__netif_tx_unlock(txq);
	return sent;
}

static int npuep_xdp_setup(struct npuep_port *port, struct bpf_prog *prog,
			   struct netlink_ext_ack *extack)
{
	struct net_device *netdev = port->netdev;
	struct bpf_prog *old;

	ASSERT_RTNL();
	/* port->rx_order follows the MTU: checked too, XDP_TX needs order 0. */
	if (prog && (netdev->mtu > NPUEP_XDP_MAX_MTU ||
		     (port->dp_open && port->rx_order))) {
		NL_SET_ERR_MSG_FMT_MOD(extack,
				       "MTU %u too large for XDP: one-page buffers hold MTU %d at most",
				       netdev->mtu, NPUEP_XDP_MAX_MTU);
		return -EINVAL;
	}
	if (prog && prog->aux->xdp_has_frags) {
		NL_SET_ERR_MSG_MOD(extack, "multi-buffer XDP is not supported");
		return -EOPNOTSUPP;
	}
	/* The buffers already have the XDP layout: no ring reconfiguration. */
	old = xchg(&port->xdp_prog, prog);
	if (old)
		bpf_prog_put(old);
	return 0;
}

/**
 * npuep_ndo_bpf() - ndo_bpf: attach, replace or detach the XDP program
 * @netdev: the port's netdev
 * @bpf: the command
 *
 * Return: 0 or a negative errno.
 */
int npuep_ndo_bpf(struct net_device *netdev, struct netdev_bpf *bpf)
{
	struct npuep_port *port = netdev_priv(netdev);

	switch (bpf->command) {
	case XDP_SETUP_PROG:
		return npuep_xdp_setup(port, bpf->prog, bpf->extack);
	default:
		return -EINVAL;
	}
}

static int npuep_xdp_rx_hash(const struct xdp_md *ctx, u32 *hash,
			     enum xdp_rss_hash_type *rss_type)
{
	const struct npuep_xdp_buff *xb = (const void *)ctx;
	enum xdp_rss_hash_type t = XDP_RSS_TYPE_NONE;

	if (!(xb->flags & (NPU_RXD_HASH_L4 | NPU_RXD_HASH_L3)))
		return -ENODATA;
	if (xb->flags & NPU_RXD_IPV4)
		t = XDP_RSS_TYPE_L3_IPV4;
	else if (xb->flags & NPU_RXD_IPV6)
		t = XDP_RSS_TYPE_L3_IPV6;
	if (xb->flags & NPU_RXD_HASH_L4)
		t |= XDP_RSS_L4;
	*hash = xb->hash;
	*rss_type = t;
	return 0;
}

static int npuep_xdp_rx_vlan_tag(const struct xdp_md *ctx, __be16 *vlan_proto,
				 u16 *vlan_tci)
{
	const struct npuep_xdp_buff *xb = (const void *)ctx;

	if (!(xb->flags & NPU_RXD_VLAN))
		return -ENODATA;
	/* The tag stays in the frame; report its TPID as received. */
	*vlan_proto = xb->vlan_proto;
	*vlan_tci = xb->vlan_tci;
	return 0;
}

const struct xdp_metadata_ops npuep_xdp_metadata_ops = {
	.xmo_rx_hash = npuep_xdp_rx_hash,
	.xmo_rx_vlan_tag = npuep_xdp_rx_vlan_tag,
};
