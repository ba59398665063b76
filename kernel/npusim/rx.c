// SPDX-License-Identifier: GPL-2.0
/*
 * Ingress: a frame arrives on a front port (the wire netdev
 * transmitted it) and is punted to the host through a receive ring.
 *
 * Runs inline in the wire's ndo_start_xmit (as veth does), on the sender's
 * CPU; while the model runs on cores of its own (debugfs cores, cores.c),
 * from the port's work item on the port's core instead, which takes the
 * frames the wire left in the port's FIFO (ingress.c).  Either way with BH
 * disabled, under the chosen ring's lock.  The model has no buffering of
 * its own between the port and the host: a frame the host ring has no
 * buffer for is dropped and counted in NPU_QP_RX_QFULL, which therefore
 * only moves when the host falls behind (seed 003).
 */
#include <linux/etherdevice.h>
#include <linux/log2.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <net/checksum.h>

#include "npusim.h"

/**
 * npusim_qp_rx_enable - set or clear NPU_QP_CTRL_RX_EN
 * @qp: queue pair
 * @enable: new state
 *
 * Enabling validates the ring (size a power of two within
 * NPU_RING_MIN..NPU_RING_MAX, base aligned and in memory) and resets head
 * and tail.  Disabling returns when no ingress touches the ring any more:
 * ingress holds the ring lock for as long as it does.  Called under
 * qp->ctrl_lock.
 *
 * Return: the ring's new enable state is what was asked.
 */
bool npusim_qp_rx_enable(struct npusim_qp *qp, bool enable)
{
	struct npusim_dev *nd = qp->nd;
	unsigned long flags;
	bool ok = true;

	spin_lock_irqsave(&qp->rx_lock, flags);
	if (!enable) {
		qp->rx_en = false;
		qp->rx_ring = NULL;
		goto out;
	}
	if (!is_power_of_2(qp->rx_size) || qp->rx_size < NPU_RING_MIN ||
	    qp->rx_size > NPU_RING_MAX ||
	    !IS_ALIGNED(qp->rx_base, sizeof(struct npu_rx_desc)) ||
	    !npusim_dma_ok(qp->rx_base,
			   (u64)qp->rx_size * sizeof(struct npu_rx_desc))) {
		dev_warn_ratelimited(nd->bus_dev,
				     "p%u q%u: rx ring base %#llx size %u refused\n",
				     qp->port->idx + 1, qp->idx, qp->rx_base,
				     qp->rx_size);
		ok = false;
		goto out;
	}
	qp->rx_ring = npusim_dma_va(qp->rx_base);
	qp->rx_head = 0;
	qp->rx_tail = 0;
	qp->rx_en = true;
out:
	spin_unlock_irqrestore(&qp->rx_lock, flags);
	return ok;
}

/**
 * npusim_qp_rx_tail - the host wrote NPU_QP_RX_TAIL
 * @qp: queue pair
 * @tail: descriptors filled up to (excluded)
 *
 * An index outside the ring is ignored.
 */
void npusim_qp_rx_tail(struct npusim_qp *qp, u32 tail)
{
	unsigned long flags;

	spin_lock_irqsave(&qp->rx_lock, flags);
	if (qp->rx_en && tail < qp->rx_size)
		WRITE_ONCE(qp->rx_tail, tail);
	else
		dev_warn_ratelimited(qp->nd->bus_dev,
				     "p%u q%u: rx tail %u ignored\n",
				     qp->port->idx + 1, qp->idx, tail);
	spin_unlock_irqrestore(&qp->rx_lock, flags);
}

enum npusim_rx_res {
	NPUSIM_RX_OK,
	NPUSIM_RX_NOQUEUE,
	NPUSIM_RX_QFULL,
	NPUSIM_RX_OVERSIZE,
	NPUSIM_RX_BADBUF,
};

/*
 * Copy @skb into a host buffer.  A sum left to the sender's device
 * (CHECKSUM_PARTIAL: the wire offered checksum offload) is completed on the
 * way, in the same pass as the copy, and stored in the copy: what the host
 * receives is what a wire carries.  (skb_checksum_help() then a copy
 * read every byte twice.)
 */
static int npusim_rx_copy(const struct sk_buff *skb, u8 *dst)
{
	int start, field;
	__wsum csum;

	if (skb->ip_summed != CHECKSUM_PARTIAL)
		return skb_copy_bits(skb, 0, dst, skb->len);
	start = skb_checksum_start_offset(skb);
	field = start + skb->csum_offset;
	/* checked by the ingress before: the sum lies within the frame */
	if (skb_copy_bits(skb, 0, dst, start))
		return -EFAULT;
	csum = skb_copy_and_csum_bits(skb, start, dst + start, skb->len - start);
	*(__sum16 *)(dst + field) = csum_fold(csum) ?: CSUM_MANGLED_0;
	return 0;
}

/* What the debugfs "corrupt" knob makes of a filled descriptor. */
static void npusim_rx_corrupt(struct npusim_qp *qp, struct npu_rx_desc *d,
			      u16 buf_len)
{
	struct npusim_dev *nd = qp->nd;

	if (npusim_corrupt_take(nd, NPUSIM_CORRUPT_RX_LEN))
		d->len = cpu_to_le16(buf_len + 1);
	if (npusim_corrupt_take(nd, NPUSIM_CORRUPT_RX_PORT))
		d->port = (qp->port->idx + 1) % max_t(u32, nd->nports, 2);
	if (npusim_corrupt_take(nd, NPUSIM_CORRUPT_RX_REASON))
		d->reason = NPU_PUNT_MAX;
	if (npusim_corrupt_take(nd, NPUSIM_CORRUPT_RX_CONN))
		d->conn = cpu_to_le32(NPU_FT_CONNS_MAX);
}

/* Put one frame into @qp's ring.  Called with qp->rx_lock held. */
static enum npusim_rx_res npusim_rx_put(struct npusim_qp *qp,
					struct sk_buff *skb,
					const struct npusim_pkt *pkt, u32 hash,
					u16 dflags, u32 conn)
{
	struct npu_rx_desc *d;
	u32 head = qp->rx_head;
	u16 buf_len;
	u64 addr;

	if (!qp->rx_en)
		return NPUSIM_RX_NOQUEUE;
	if (head == qp->rx_tail || READ_ONCE(qp->nd->force_rx_full))
		return NPUSIM_RX_QFULL;
	/* Descriptors were written before the tail. */
	dma_rmb();
	d = &qp->rx_ring[head];
	addr = le64_to_cpu(READ_ONCE(d->addr));
	buf_len = le16_to_cpu(READ_ONCE(d->buf_len));

	if (!buf_len || !npusim_dma_ok(addr, buf_len)) {
		/* Hand the unusable buffer back, empty; the frame is lost. */
		d->len = 0;
		d->reason = NPU_PUNT_NONE;
		d->port = qp->port->idx;
		d->hash = 0;
		d->conn = cpu_to_le32(NPU_CONN_NONE);
		d->vlan_tci = 0;
		dma_wmb();
		WRITE_ONCE(d->flags, cpu_to_le16(NPU_RXD_DONE));
		WRITE_ONCE(qp->rx_head, (head + 1) & (qp->rx_size - 1));
		WRITE_ONCE(qp->rx_badbuf, qp->rx_badbuf + 1);
		return NPUSIM_RX_BADBUF;
	}
	if (skb->len > buf_len)
		return NPUSIM_RX_OVERSIZE;

	if (npusim_rx_copy(skb, npusim_dma_va(addr)))
		return NPUSIM_RX_OVERSIZE;	/* cannot happen: len checked */

	d->len = cpu_to_le16(skb->len);
	d->reason = pkt->reason;
	d->port = qp->port->idx;
	d->hash = cpu_to_le32(hash);
	d->conn = cpu_to_le32(conn);
	d->vlan_tci = cpu_to_le16(pkt->vlan_tci);
	d->rsvd0 = 0;
	d->rsvd1 = 0;
	npusim_rx_corrupt(qp, d, buf_len);
	/* Frame and fields before DONE (release order). */
	dma_wmb();
	WRITE_ONCE(d->flags, cpu_to_le16(dflags | NPU_RXD_DONE));
	WRITE_ONCE(qp->rx_head, (head + 1) & (qp->rx_size - 1));
	WRITE_ONCE(qp->rx_frames, qp->rx_frames + 1);
	WRITE_ONCE(qp->rx_bytes, qp->rx_bytes + skb->len);
	return NPUSIM_RX_OK;
}

/**
 * npusim_port_ingress - a frame arrives on a front port from its wire
 * @port: port
 * @skb: the frame (consumed)
 *
 * Return: NETDEV_TX_OK if the frame reached a host ring, NET_XMIT_DROP if
 * it was dropped (and counted).
 */
netdev_tx_t npusim_port_ingress(struct npusim_port *port, struct sk_buff *skb)
{
	u8 hdr[NPUSIM_PARSE_HDR_MAX];
	enum npusim_nt_verdict nt;
	enum npusim_rx_res res;
	struct npusim_pkt pkt;
	u8 key[NPU_RSS_KEY_LEN];
	unsigned long flags;
	struct npusim_qp *qp;
	const u8 *data;
	u16 dflags = 0;
	u32 hash, caplen, conn;
	u8 q;

	npusim_cores_count(port->nd, NPUSIM_CW_INGRESS);
	if (skb->len < NPU_MIN_FRAME) {
		atomic64_inc(&port->rx_runts);
		goto drop;
	}
	if (skb->ip_summed == CHECKSUM_PARTIAL) {
		/* where the sender's device would write the sum: in the frame */
		if (skb_checksum_start_offset(skb) < ETH_HLEN ||
		    skb_checksum_start_offset(skb) + skb->csum_offset +
		    sizeof(__sum16) > skb->len)
			goto drop_malformed;
		dflags |= NPU_RXD_CSUM_OK;	/* completed by npusim_rx_copy() */
	}

	caplen = min_t(u32, skb->len, NPUSIM_PARSE_HDR_MAX);
	data = skb_header_pointer(skb, 0, caplen, hdr);
	if (!data)
		goto drop_malformed;
	npusim_parse(data, caplen, skb->len, &pkt);
	if (pkt.reason == NPU_PUNT_MALFORMED)
		atomic64_inc(&port->rx_malformed);
	/* The fast path forwards the frame, or says why it is punted. */
	if (npusim_fp_ingress(port, skb, &pkt, &conn))
		return NETDEV_TX_OK;
	/* The ingress classifier (ethtool -N) before RSS: steer or drop. */
	nt = npusim_ntuple_ingress(port, &pkt, &q);
	if (nt == NPUSIM_NT_DROP)
		goto drop;
	npusim_fp_count_punt(port, pkt.reason);
	/* The trap policer of the reason, before a receive descriptor. */
	if (!npusim_policer_admit(port, pkt.reason))
		goto drop;
	if (!(pkt.flags & NPUSIM_PKT_L4))
		dflags &= ~NPU_RXD_CSUM_OK;
	if (pkt.flags & NPUSIM_PKT_VLAN)
		dflags |= NPU_RXD_VLAN;
	if (pkt.flags & NPUSIM_PKT_IPV4)
		dflags |= NPU_RXD_IPV4;
	if (pkt.flags & NPUSIM_PKT_IPV6)
		dflags |= NPU_RXD_IPV6;

	spin_lock_irqsave(&port->rss_lock, flags);
	memcpy(key, port->rss_key, sizeof(key));
	spin_unlock_irqrestore(&port->rss_lock, flags);
	hash = npusim_rss_hash(key, &pkt, &dflags);
	if (nt == NPUSIM_NT_PASS)
		q = READ_ONCE(port->reta[hash & (NPU_RSS_RETA_SIZE - 1)]);

	if (!READ_ONCE(port->host_up) || q >= port->nd->nqueues) {
		atomic64_inc(&port->rx_noqueue);
		goto drop;
	}
	qp = &port->qps[q];

	spin_lock_irqsave(&qp->rx_lock, flags);
	res = npusim_rx_put(qp, skb, &pkt, hash, dflags, conn);
	if (res == NPUSIM_RX_QFULL)
		WRITE_ONCE(qp->rx_qfull, qp->rx_qfull + 1);
	spin_unlock_irqrestore(&qp->rx_lock, flags);

	switch (res) {
	case NPUSIM_RX_OK:
		npusim_qp_irq_event(qp, 1);
		consume_skb(skb);
		return NETDEV_TX_OK;
	case NPUSIM_RX_BADBUF:
		npusim_qp_irq_event(qp, 1);	/* the host gets its buffer back */
		break;
	case NPUSIM_RX_NOQUEUE:
		atomic64_inc(&port->rx_noqueue);
		break;
	case NPUSIM_RX_OVERSIZE:
		atomic64_inc(&port->rx_oversize);
		break;
	case NPUSIM_RX_QFULL:
		break;
	}
drop:
	kfree_skb(skb);
	return NET_XMIT_DROP;

drop_malformed:
	atomic64_inc(&port->rx_malformed);
	goto drop;
}
