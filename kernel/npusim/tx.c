// SPDX-License-Identifier: GPL-2.0
/*
 * Host transmit: frames the host posts on a transmit ring leave on
 * the port's wire (the wire netdev receives them).
 *
 * The TX_TAIL doorbell queues the pair's work item on the device's unbound
 * workqueue: the model's transmit engine, which the scheduler runs on
 * whichever CPU is free, as a coprocessor's own cores run beside the
 * host's; while the model runs on cores of its own (debugfs cores,
 * cores.c), on a per-CPU workqueue, on the pair's core.  (With the debugfs
 * knob tx_defer cleared and every CPU in the mask, a pass runs inline in
 * the doorbell writer when its context allows: BH may be disabled, e.g.
 * ndo_start_xmit, interrupts enabled.  Inline, the sender's CPU carried the
 * whole chain; iperf3 through the host in a 2-vCPU TCG guest, make bench:
 * 412/465 Mbit/s inline vs 596/611 from the work item, both ways.)  A pass
 * takes at most NPUSIM_TX_BATCH frames under the ring lock: it copies each
 * frame out of host memory, marks its descriptors DONE and advances
 * TX_HEAD; then, without the lock, it applies TSO (skb_gso_segment(), so
 * every frame on the wire is wire sized) and hands the frames to the
 * wire's FIFO.  A sum the host left to the device stays CHECKSUM_PARTIAL
 * on the way to the far end, as veth carries it: its stack takes the data
 * as verified; with rx-checksumming off on the wire the sum is filled in
 * there (npusim_wire_poll()).  A pass's completions raise the pair's vector
 * at once (if unmasked), without rx moderation.  Nothing spins: an idle
 * ring costs nothing.
 */
#include <linux/etherdevice.h>
#include <linux/if_vlan.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/log2.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <net/gso.h>
#include <net/ip6_checksum.h>
#include <net/tcp.h>

#include "npusim.h"

/**
 * npusim_qp_tx_enable - set or clear NPU_QP_CTRL_TX_EN
 * @qp: queue pair
 * @enable: new state
 *
 * Like npusim_qp_rx_enable(): validated at enable; disabling returns when
 * no pass touches the ring (passes hold the ring lock while they do).
 *
 * Return: the ring's new enable state is what was asked.
 */
bool npusim_qp_tx_enable(struct npusim_qp *qp, bool enable)
{
	unsigned long flags;
	bool ok = true;

	spin_lock_irqsave(&qp->tx_lock, flags);
	if (!enable) {
		qp->tx_en = false;
		qp->tx_ring = NULL;
		goto out;
	}
	if (!is_power_of_2(qp->tx_size) || qp->tx_size < NPU_RING_MIN ||
	    qp->tx_size > NPU_RING_MAX ||
	    !IS_ALIGNED(qp->tx_base, sizeof(struct npu_tx_desc)) ||
	    !npusim_dma_ok(qp->tx_base,
			   (u64)qp->tx_size * sizeof(struct npu_tx_desc))) {
		dev_warn_ratelimited(qp->nd->bus_dev,
				     "p%u q%u: tx ring base %#llx size %u refused\n",
				     qp->port->idx + 1, qp->idx, qp->tx_base,
				     qp->tx_size);
		ok = false;
		goto out;
	}
	qp->tx_ring = npusim_dma_va(qp->tx_base);
	qp->tx_head = 0;
	qp->tx_tail = 0;
	qp->tx_en = true;
out:
	spin_unlock_irqrestore(&qp->tx_lock, flags);
	return ok;
}

static __be16 npusim_eth_proto(const struct sk_buff *skb)
{
	return ((const struct ethhdr *)skb->data)->h_proto;
}

/* Set up checksum offload (and TSO) on a frame copied from the ring. */
static int npusim_tx_offload(struct sk_buff *skb, const struct npu_tx_desc *d)
{
	u16 flags = le16_to_cpu(d->flags);
	u32 start = le16_to_cpu(d->csum_start);
	u32 off = le16_to_cpu(d->csum_offset);
	u32 mss = le16_to_cpu(d->mss);
	u8 hdr[NPUSIM_PARSE_HDR_MAX];
	struct npusim_pkt pkt;
	const u8 *data;
	u32 caplen, l4len;
	struct tcphdr *th;
	bool tso4 = flags & NPU_TXD_TSO4, tso6 = flags & NPU_TXD_TSO6;

	if (tso4 || tso6) {
		if (tso4 && tso6)
			return -EINVAL;
		caplen = min_t(u32, skb->len, NPUSIM_PARSE_HDR_MAX);
		data = skb_header_pointer(skb, 0, caplen, hdr);
		if (!data)
			return -EINVAL;
		npusim_parse(data, caplen, skb->len, &pkt);
		if (pkt.l4_proto != IPPROTO_TCP || !(pkt.flags & NPUSIM_PKT_L4) ||
		    (pkt.flags & NPUSIM_PKT_FRAG) ||
		    (tso4 && !(pkt.flags & NPUSIM_PKT_IPV4)) ||
		    (tso6 && !(pkt.flags & NPUSIM_PKT_IPV6)))
			return -EINVAL;
		if (!pskb_may_pull(skb, pkt.l4_off + sizeof(struct tcphdr)))
			return -EINVAL;
		th = (struct tcphdr *)(skb->data + pkt.l4_off);
		if (!pskb_may_pull(skb, pkt.l4_off + th->doff * 4))
			return -EINVAL;
		th = (struct tcphdr *)(skb->data + pkt.l4_off);
		l4len = skb->len - pkt.l4_off;
		if (mss < NPUSIM_TSO_MSS_MIN || l4len <= th->doff * 4u)
			return -EINVAL;

		skb->protocol = npusim_eth_proto(skb);
		skb_set_network_header(skb, pkt.l3_off);
		skb_set_transport_header(skb, pkt.l4_off);
		/* The device computes the sums itself: seed the pseudo header. */
		if (tso4) {
			struct iphdr *iph = ip_hdr(skb);

			th->check = ~tcp_v4_check(l4len, iph->saddr, iph->daddr, 0);
		} else {
			struct ipv6hdr *ip6h = ipv6_hdr(skb);

			th->check = ~tcp_v6_check(l4len, &ip6h->saddr,
						  &ip6h->daddr, 0);
		}
		skb->ip_summed = CHECKSUM_PARTIAL;
		skb->csum_start = skb_headroom(skb) + pkt.l4_off;
		skb->csum_offset = offsetof(struct tcphdr, check);
		skb_shinfo(skb)->gso_size = mss;
		skb_shinfo(skb)->gso_type = tso4 ? SKB_GSO_TCPV4 : SKB_GSO_TCPV6;
		skb_shinfo(skb)->gso_segs = 0;
		return 0;
	}

	if (!(flags & NPU_TXD_CSUM))
		return 0;
	if (start + off + sizeof(__sum16) > skb->len || start < ETH_HLEN)
		return -EINVAL;
	if (!pskb_may_pull(skb, start + off + sizeof(__sum16)))
		return -EINVAL;
	/* the wire carries it to the far end (npusim_wire_poll()) */
	skb->ip_summed = CHECKSUM_PARTIAL;
	skb->csum_start = skb_headroom(skb) + start;
	skb->csum_offset = off;
	return 0;
}

static void npusim_tx_deliver(struct npusim_port *port, struct sk_buff *skb)
{
	struct net_device *wire = port->wire;
	struct sk_buff *segs, *next;

	if (!skb_is_gso(skb)) {
		npusim_wire_rx(wire, skb);
		return;
	}
	/*
	 * Scatter-gather: the segments share the frame's pages (no copy of
	 * the payload).  Their sums stay partial (NETIF_F_HW_CSUM): summing
	 * each segment here read the payload once more, for a far end that
	 * takes CHECKSUM_PARTIAL as verified.
	 */
	segs = skb_gso_segment(skb, NETIF_F_SG | NETIF_F_HW_CSUM);
	if (IS_ERR_OR_NULL(segs)) {
		atomic64_inc(&port->tx_bad);
		kfree_skb(skb);
		return;
	}
	consume_skb(skb);
	skb_list_walk_safe(segs, skb, next) {
		skb_mark_not_on_list(skb);
		npusim_wire_rx(wire, skb);
	}
}

static struct sk_buff *npusim_tx_alloc(struct net_device *wire, u32 len)
{
	struct sk_buff *skb;
	int err;

	if (len <= SKB_WITH_OVERHEAD(PAGE_SIZE) - NET_SKB_PAD - NET_IP_ALIGN) {
		skb = netdev_alloc_skb_ip_align(wire, len);
		if (skb)
			skb_put(skb, len);
		return skb;
	}
	skb = alloc_skb_with_frags(NET_SKB_PAD + NPUSIM_TX_LINEAR,
				   len - NPUSIM_TX_LINEAR,
				   PAGE_ALLOC_COSTLY_ORDER, &err, GFP_ATOMIC);
	if (!skb)
		return NULL;
	skb_reserve(skb, NET_SKB_PAD);
	skb_put(skb, NPUSIM_TX_LINEAR);
	skb->data_len = len - NPUSIM_TX_LINEAR;
	skb->len = len;
	return skb;
}

/*
 * npusim_tx_gather - read the descriptors of one frame from @head up to its
 * EOP, each once, into qp->tx_frag.  Return: the index after the frame's
 * last descriptor (or @tail when no EOP comes before it); *@first is the
 * frame's first descriptor, *@nfrag and *@total its fragments and bytes,
 * *@bad whether it is malformed (too many descriptors, no EOP, a fragment
 * empty or outside DMA memory, a frame too short or too long).
 */
static u32 npusim_tx_gather(struct npusim_qp *qp, u32 head, u32 tail,
			    struct npu_tx_desc *first, u32 *nfrag, u32 *total,
			    bool *bad)
{
	struct npusim_tx_frag *frag = qp->tx_frag;
	u32 idx = head, mask = qp->tx_size - 1, n = 0;
	struct npu_tx_desc d;
	u16 f;

	*total = 0;
	*bad = false;
	for (;;) {
		memcpy(&d, &qp->tx_ring[idx], sizeof(d));
		f = le16_to_cpu(d.flags);
		if (!n)
			*first = d;
		if (n < NPU_TX_MAX_DESCS) {
			frag[n].addr = le64_to_cpu(d.addr);
			frag[n].len = le16_to_cpu(d.len);
			if (!frag[n].len ||
			    !npusim_dma_ok(frag[n].addr, frag[n].len))
				*bad = true;
			*total += frag[n].len;
		} else {
			*bad = true;	/* too many descriptors */
		}
		n++;
		idx = (idx + 1) & mask;
		if (f & NPU_TXD_EOP)
			break;
		if (idx == tail) {
			*bad = true;	/* no EOP before the tail */
			break;
		}
	}
	if (*total > NPUSIM_TX_MAX_BYTES || *total < NPU_MIN_FRAME)
		*bad = true;
	*nfrag = n;
	return idx;
}

/* The frame gathered in qp->tx_frag (@n fragments, @total bytes) as an skb, or NULL. */
static struct sk_buff *npusim_tx_copy(struct npusim_qp *qp, u32 n, u32 total)
{
	struct npusim_tx_frag *frag = qp->tx_frag;
	struct sk_buff *skb;
	u32 i, off;

	skb = npusim_tx_alloc(qp->port->wire, total);
	for (i = 0, off = 0; skb && i < n; i++) {
		skb_store_bits(skb, off, npusim_dma_va(frag[i].addr), frag[i].len);
		off += frag[i].len;
	}
	return skb;
}

/* Set DONE on the descriptors from @head up to @end; return @end. */
static u32 npusim_tx_done(struct npusim_qp *qp, u32 head, u32 end)
{
	u32 mask = qp->tx_size - 1;
	u16 f;

	for (; head != end; head = (head + 1) & mask) {
		struct npu_tx_desc *td = &qp->tx_ring[head];

		f = le16_to_cpu(READ_ONCE(td->flags));
		WRITE_ONCE(td->flags, cpu_to_le16(f | NPU_TXD_DONE));
	}
	return end;
}

/* Outside the ring's lock: each frame's offloads, then onto the wire. */
static void npusim_tx_send(struct npusim_port *port, struct sk_buff_head *q)
{
	struct npu_tx_desc first;
	struct sk_buff *skb;

	while ((skb = __skb_dequeue(q)) != NULL) {
		memcpy(&first, skb->cb, sizeof(first));
		memset(skb->cb, 0, sizeof(skb->cb));
		if (npusim_tx_offload(skb, &first)) {
			atomic64_inc(&port->tx_bad);
			kfree_skb(skb);
			continue;
		}
		npusim_tx_deliver(port, skb);
	}
}

/*
 * One pass over a transmit ring.  Called with BH disabled.  Return: true if
 * frames are left for another pass.
 */
static bool npusim_tx_pass(struct npusim_qp *qp)
{
	u32 head, tail, idx, n, total, frames = 0;
	struct npusim_port *port = qp->port;
	struct npu_tx_desc first;
	struct sk_buff_head q;
	unsigned long flags;
	struct sk_buff *skb;
	u64 bytes = 0;
	bool bad, more;

	npusim_cores_count(qp->nd, NPUSIM_CW_TX);
	__skb_queue_head_init(&q);
	if (!npusim_wire_tx_ok(port))
		return false;	/* the wire's NAPI restarts us */
	spin_lock_irqsave(&qp->tx_lock, flags);
	if (!qp->tx_en) {
		spin_unlock_irqrestore(&qp->tx_lock, flags);
		return false;
	}
	head = qp->tx_head;
	tail = READ_ONCE(qp->tx_tail);
	/* Descriptors were written before the tail. */
	dma_rmb();

	while (head != tail && frames < NPUSIM_TX_BATCH &&
	       bytes < NPUSIM_TX_PASS_BYTES) {
		idx = npusim_tx_gather(qp, head, tail, &first, &n, &total, &bad);
		skb = bad ? NULL : npusim_tx_copy(qp, n, total);
		/* Our reads of the buffers before the host sees DONE. */
		smp_mb();
		head = npusim_tx_done(qp, head, idx);
		frames++;
		if (bad) {
			atomic64_inc(&port->tx_bad);
			continue;
		}
		if (!skb) {
			dev_dstats_rx_dropped(port->wire);
			continue;
		}
		/* the first descriptor's offload fields go with the skb */
		memcpy(skb->cb, &first, sizeof(first));
		__skb_queue_tail(&q, skb);
		bytes += total;
	}
	/* DONE flags before the head that publishes them */
	smp_wmb();
	WRITE_ONCE(qp->tx_head, head);
	more = head != READ_ONCE(qp->tx_tail);
	WRITE_ONCE(qp->tx_frames, qp->tx_frames + skb_queue_len(&q));
	WRITE_ONCE(qp->tx_bytes, qp->tx_bytes + bytes);
	spin_unlock_irqrestore(&qp->tx_lock, flags);

	npusim_tx_send(port, &q);
	if (frames)
		npusim_qp_irq_kick(qp, frames);
	return more;
}

/* The queue pair's transmit passes; returns their time (ns). */
static u64 npusim_tx_run(struct npusim_qp *qp)
{
	int passes = 0;
	u64 t0, ns;

	local_bh_disable();
	t0 = npusim_dp_clock();
	while (npusim_tx_pass(qp)) {
		if (++passes >= 4) {
			/* Long queue: let the work item continue. */
			npusim_cores_queue_tx(qp);
			break;
		}
	}
	ns = npusim_dp_clock_end(qp->nd, t0, 0);
	local_bh_enable();
	return ns;
}

/**
 * npusim_tx_work - deferred transmit processing of one queue pair
 * @work: qp->tx_work
 *
 * Its passes' time also counts in dp_work_ns: the part of the model's
 * datapath that runs in kworkers (make bench tells the host's kworkers
 * apart from the model's by it).
 */
void npusim_tx_work(struct work_struct *work)
{
	struct npusim_qp *qp = container_of(work, struct npusim_qp, tx_work);

	if (READ_ONCE(qp->nd->dead))
		return;
	this_cpu_add(*qp->nd->dp_work_ns, npusim_tx_run(qp));
	cond_resched();
}

/**
 * npusim_qp_tx_doorbell - the host wrote NPU_QP_TX_TAIL
 * @qp: queue pair
 * @tail: descriptors posted up to (excluded)
 *
 * Any context.  An index outside the ring is ignored.  The pass runs
 * inline only while every CPU is the model's (cores.c), under an RCU read
 * lock: a narrower mask's write waits for it.
 */
void npusim_qp_tx_doorbell(struct npusim_qp *qp, u32 tail)
{
	struct npusim_dev *nd = qp->nd;
	unsigned long flags;
	bool ok;

	spin_lock_irqsave(&qp->tx_lock, flags);
	ok = qp->tx_en && tail < qp->tx_size;
	if (ok)
		WRITE_ONCE(qp->tx_tail, tail);
	spin_unlock_irqrestore(&qp->tx_lock, flags);
	if (!ok) {
		dev_warn_ratelimited(nd->bus_dev, "p%u q%u: tx tail %u ignored\n",
				     qp->port->idx + 1, qp->idx, tail);
		return;
	}
	if (READ_ONCE(nd->dead))
		return;

	rcu_read_lock();
	if (in_hardirq() || in_nmi() || irqs_disabled() ||
	    READ_ONCE(nd->tx_defer) || npusim_cores_narrow(nd)) {
		WRITE_ONCE(qp->tx_deferred, qp->tx_deferred + 1);
		npusim_cores_queue_tx(qp);
	} else {
		WRITE_ONCE(qp->tx_inline, qp->tx_inline + 1);
		npusim_tx_run(qp);
	}
	rcu_read_unlock();
}
