// SPDX-License-Identifier: GPL-2.0
/*
 * The model's fast path in the device: the tables of ft_pure.c behind a
 * lock, the fast-path commands of the command channel, the per-port
 * counters, the ingress hook that forwards a frame port to port without
 * the host, and the debugfs knobs of the give-back rules (seed 004).
 *
 * A forwarded frame whose rewrite changed what its L4 sum covers (NAT), or
 * that it pushes into a PPPoE session, leaves with CHECKSUM_NONE: the sums
 * are complete and the receiver checks them.  Otherwise (TTL and MACs
 * only, outside the L4 sum) a sum the sender left to its device stays
 * CHECKSUM_PARTIAL to the far end, as on the host path (tx.c), and the far
 * end's wire fills it in with rx off (wire.c): completing every sum here
 * costs the fast path a quarter of its rate (docs/measurements.md, "Fast
 * path and host path checksums").
 */
#include <linux/debugfs.h>
#include <linux/etherdevice.h>
#include <linux/skbuff.h>
#include <linux/slab.h>

#include "npusim.h"
#include "ft_pure.h"

struct npusim_fp_port {
	atomic64_t punt[NPU_PUNT_MAX];
	atomic64_t fwd_frames;
	atomic64_t fwd_bytes;
};

struct npusim_fp_tables {
	struct npusim_ft_conn *conns;
	struct npusim_ft_mflow *mflows;
	u32 *buckets;
};

/**
 * struct npusim_fp - the fast path of one model device
 * @lock: the tables (taken in the wires' xmit and in the command worker)
 * @ft: connection and microflow tables
 * @mem: their memory
 * @port: per-port counters
 * @fw_fault: debugfs fw_fault: the firmware has faulted (no forwarding, fast-path
 *	commands fail) until the host resets the tables with NPU_CMD_FT_CONFIG
 * @fw_faults: faults injected so far
 * @mem_conns: debugfs fp_mem_conns: the most connections the model's
 *	memory holds (0: no limit below NPU_FT_CONNS_MAX); an
 *	NPU_CMD_FT_CONFIG asking for more fails as an allocation would
 * @area_base: NPU_REG_FT_STATS BASE as written
 * @area_n: its SIZE as accepted (0: disabled)
 * @area: the area, reached through its DMA address, or NULL
 * @pppoe: PPPoE frames (discovery or session) the fast path punted as
 *	exceptions, as malformed, and as flow misses (debugfs fp_stats;
 *	zeroed with the tables)
 */
struct npusim_fp {
	spinlock_t lock;	/* @ft and @mem */
	struct npusim_ft ft;
	struct npusim_fp_tables mem;
	struct npusim_fp_port port[NPU_MAX_PORTS];
	bool fw_fault;
	u64 fw_faults;
	u32 mem_conns;
	u64 area_base;
	u32 area_n;
	struct npu_conn_stats_entry *area;
	struct {
		atomic64_t exception;
		atomic64_t malformed;
		atomic64_t miss;
	} pppoe;
};

static void npusim_fp_tables_free(struct npusim_fp_tables *t)
{
	kvfree(t->conns);
	kvfree(t->mflows);
	kvfree(t->buckets);
}

static int npusim_fp_tables_alloc(struct npusim_fp_tables *t, u32 conns,
				  u32 mflows, u32 *nbuckets)
{
	*nbuckets = roundup_pow_of_two(mflows);
	t->conns = kvcalloc(conns, sizeof(*t->conns), GFP_KERNEL);
	t->mflows = kvcalloc(mflows, sizeof(*t->mflows), GFP_KERNEL);
	t->buckets = kvcalloc(*nbuckets, sizeof(*t->buckets), GFP_KERNEL);
	if (!t->conns || !t->mflows || !t->buckets) {
		npusim_fp_tables_free(t);
		return -ENOMEM;
	}
	return 0;
}

/* Resize (and empty) the tables.  Process context. */
static int npusim_fp_resize(struct npusim_dev *nd, u32 conns, u32 mflows,
			    u8 fastpath)
{
	struct npusim_fp *fp = nd->fp;
	struct npusim_fp_tables t = {}, old;
	struct npusim_ft tmp;
	u32 nb;
	int err;

	err = npusim_fp_tables_alloc(&t, conns, mflows, &nb);
	if (err)
		return err;
	npusim_ft_init(&tmp, nd->nports, t.conns, conns, t.mflows, mflows,
		       t.buckets, nb);
	spin_lock_bh(&fp->lock);
	tmp.fastpath = fastpath;
	tmp.retrans_max = fp->ft.retrans_max;
	tmp.expire_ns = fp->ft.expire_ns;
	fp->ft = tmp;
	npusim_ft_area_set(&fp->ft, fp->area, fp->area_n);
	atomic64_set(&fp->pppoe.exception, 0);
	atomic64_set(&fp->pppoe.malformed, 0);
	atomic64_set(&fp->pppoe.miss, 0);
	old = fp->mem;
	fp->mem = t;
	spin_unlock_bh(&fp->lock);
	npusim_fp_tables_free(&old);
	return 0;
}

static int npusim_fp_retrans_set(void *data, u64 val)
{
	struct npusim_dev *nd = data;

	if (val > U32_MAX)
		return -EINVAL;
	spin_lock_bh(&nd->fp->lock);
	nd->fp->ft.retrans_max = val;
	spin_unlock_bh(&nd->fp->lock);
	return 0;
}

static int npusim_fp_retrans_get(void *data, u64 *val)
{
	struct npusim_dev *nd = data;

	*val = READ_ONCE(nd->fp->ft.retrans_max);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(npusim_fp_retrans_fops, npusim_fp_retrans_get,
			 npusim_fp_retrans_set, "%llu\n");

static int npusim_fp_expire_set(void *data, u64 val)
{
	struct npusim_dev *nd = data;

	if (val > 3600 * 1000)
		return -EINVAL;
	spin_lock_bh(&nd->fp->lock);
	nd->fp->ft.expire_ns = val * NSEC_PER_MSEC;
	spin_unlock_bh(&nd->fp->lock);
	return 0;
}

static int npusim_fp_expire_get(void *data, u64 *val)
{
	struct npusim_dev *nd = data;

	*val = div_u64(READ_ONCE(nd->fp->ft.expire_ns), NSEC_PER_MSEC);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(npusim_fp_expire_fops, npusim_fp_expire_get,
			 npusim_fp_expire_set, "%llu\n");

static int npusim_fp_giveback_set(void *data, u64 val)
{
	struct npusim_dev *nd = data;
	u16 st;

	if (val > U32_MAX)
		return -EINVAL;
	spin_lock_bh(&nd->fp->lock);
	st = npusim_ft_giveback(&nd->fp->ft, val, ktime_get_ns());
	spin_unlock_bh(&nd->fp->lock);
	return st == NPU_ST_OK ? 0 : -ENOENT;
}
DEFINE_DEBUGFS_ATTRIBUTE(npusim_fp_giveback_fops, NULL,
			 npusim_fp_giveback_set, "%llu\n");

static int npusim_fp_stats_show(struct seq_file *m, void *v)
{
	struct npusim_dev *nd = m->private;
	struct npusim_fp *fp = nd->fp;
	struct npusim_ft ft;

	spin_lock_bh(&fp->lock);
	ft = fp->ft;
	spin_unlock_bh(&fp->lock);
	seq_printf(m, "fastpath %u\nconns %u/%u\nmflows %u/%u\n",
		   ft.fastpath, ft.used_conns, ft.nconns, ft.used_mflows,
		   ft.nmflows);
	seq_printf(m, "forwarded %llu\ncreated %llu\nrevived %llu\nreclaimed %llu\n",
		   ft.st.forwarded, ft.st.created, ft.st.revived,
		   ft.st.reclaimed);
	seq_printf(m, "givebacks %llu\nexpired %llu\nmflow_full %llu\n",
		   ft.st.givebacks, ft.st.expired, ft.st.mflow_full);
	seq_printf(m, "pppoe_exception %lld\npppoe_malformed %lld\npppoe_miss %lld\n",
		   atomic64_read(&fp->pppoe.exception),
		   atomic64_read(&fp->pppoe.malformed),
		   atomic64_read(&fp->pppoe.miss));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(npusim_fp_stats);

static int npusim_fp_fault_set(void *data, u64 val)
{
	struct npusim_dev *nd = data;

	if (val > 1)
		return -EINVAL;
	spin_lock_bh(&nd->fp->lock);
	if (val && !nd->fp->fw_fault)
		nd->fp->fw_faults++;
	nd->fp->fw_fault = val;
	spin_unlock_bh(&nd->fp->lock);
	/* The firmware lost what the host had programmed (npu_hw.h). */
	if (val) {
		npusim_ntuple_flush(nd);
		npusim_policer_fault(nd);
	}
	return 0;
}

static int npusim_fp_fault_get(void *data, u64 *val)
{
	struct npusim_dev *nd = data;

	*val = READ_ONCE(nd->fp->fw_fault);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(npusim_fp_fault_fops, npusim_fp_fault_get,
			 npusim_fp_fault_set, "%llu\n");

/**
 * npusim_fp_init - set up the fast path with the default table sizes
 * @nd: model device
 *
 * Return: 0 or -ENOMEM.
 */
int npusim_fp_init(struct npusim_dev *nd)
{
	struct npusim_fp *fp;
	u32 nb;
	int i, r;

	fp = kzalloc(sizeof(*fp), GFP_KERNEL);
	if (!fp)
		return -ENOMEM;
	spin_lock_init(&fp->lock);
	if (npusim_fp_tables_alloc(&fp->mem, NPUSIM_FT_CONNS_RESET,
				   NPUSIM_FT_MFLOWS_RESET, &nb)) {
		kfree(fp);
		return -ENOMEM;
	}
	npusim_ft_init(&fp->ft, nd->nports, fp->mem.conns, NPUSIM_FT_CONNS_RESET,
		       fp->mem.mflows, NPUSIM_FT_MFLOWS_RESET, fp->mem.buckets, nb);
	for (i = 0; i < NPU_MAX_PORTS; i++) {
		for (r = 0; r < NPU_PUNT_MAX; r++)
			atomic64_set(&fp->port[i].punt[r], 0);
		atomic64_set(&fp->port[i].fwd_frames, 0);
		atomic64_set(&fp->port[i].fwd_bytes, 0);
	}
	nd->fp = fp;
	return 0;
}

/**
 * npusim_fp_debugfs - the fast path's debugfs files under the device's
 * @nd: model device (nd->dbg exists)
 *
 * fp_retrans_max (give back a TCP connection after this many retransmits
 * in one direction, 0 = never), fp_expire_ms (microflows of a given-back
 * connection expire after this), fp_giveback (write a connection index to
 * give it back now), fp_stats (the tables' use and counters; PPPoE frames
 * punted by reason), fw_fault (1 = the fast path's firmware
 * fails: nothing is forwarded, frames punt NPU_PUNT_FASTPATH_OFF, fast-path
 * commands other than NPU_CMD_FT_CONFIG answer NPU_ST_FW_FAULT, and
 * NPU_REG_FW_STATUS reads NPU_FW_STATUS_FAULT until an NPU_CMD_FT_CONFIG
 * resets it), fw_faults (faults injected), fp_mem_conns (the most
 * connections NPU_CMD_FT_CONFIG can have, 0 = NPU_FT_CONNS_MAX).
 */
void npusim_fp_debugfs(struct npusim_dev *nd)
{
	debugfs_create_file_unsafe("fp_retrans_max", 0600, nd->dbg, nd,
				   &npusim_fp_retrans_fops);
	debugfs_create_file_unsafe("fp_expire_ms", 0600, nd->dbg, nd,
				   &npusim_fp_expire_fops);
	debugfs_create_file_unsafe("fp_giveback", 0200, nd->dbg, nd,
				   &npusim_fp_giveback_fops);
	debugfs_create_file("fp_stats", 0400, nd->dbg, nd, &npusim_fp_stats_fops);
	debugfs_create_file_unsafe("fw_fault", 0600, nd->dbg, nd,
				   &npusim_fp_fault_fops);
	debugfs_create_u64("fw_faults", 0400, nd->dbg, &nd->fp->fw_faults);
	debugfs_create_u32("fp_mem_conns", 0600, nd->dbg, &nd->fp->mem_conns);
}

/**
 * npusim_fp_fini - free the fast path
 * @nd: model device; no ingress or command runs any more
 */
void npusim_fp_fini(struct npusim_dev *nd)
{
	if (!nd->fp)
		return;
	npusim_fp_tables_free(&nd->fp->mem);
	kfree(nd->fp);
	nd->fp = NULL;
}

/**
 * npusim_fp_read64 - the fast-path counter registers
 * @nd: model device
 * @reg: NPU_REG_FASTPATH, NPU_REG_FT_* or within NPU_REG_PORT_FP(p)
 *
 * Return: the counter; 0 for an unknown offset.
 */
u64 npusim_fp_read64(struct npusim_dev *nd, u32 reg)
{
	struct npusim_fp *fp = nd->fp;
	u32 p, off;
	u64 v;

	if (reg == NPU_REG_FASTPATH)
		return READ_ONCE(fp->ft.fastpath);
	if (reg == NPU_REG_FW_STATUS)
		return READ_ONCE(fp->fw_fault) ? NPU_FW_STATUS_FAULT : 0;
	if (reg == NPU_REG_FT_STATS + NPU_FT_STATS_CLOCK)
		return npusim_ft_clock_ms(ktime_get_ns());
	if (reg == NPU_REG_FT_STATS + NPU_FT_STATS_BASE ||
	    reg == NPU_REG_FT_STATS + NPU_FT_STATS_BASE_HI) {
		v = READ_ONCE(fp->area_base);
		return reg == NPU_REG_FT_STATS ? lower_32_bits(v) : upper_32_bits(v);
	}
	if (reg == NPU_REG_FT_STATS + NPU_FT_STATS_SIZE)
		return READ_ONCE(fp->area_n);
	if (reg == NPU_REG_FT_CONNS || reg == NPU_REG_FT_MFLOWS) {
		spin_lock_bh(&fp->lock);
		v = reg == NPU_REG_FT_CONNS ? fp->ft.used_conns : fp->ft.used_mflows;
		spin_unlock_bh(&fp->lock);
		return v;
	}
	if (reg < NPU_REG_PORT_FP(0) || reg >= NPU_REG_PORT_FP(nd->nports))
		return 0;
	p = (reg - NPU_REG_PORT_FP(0)) / 0x100;
	off = (reg - NPU_REG_PORT_FP(0)) % 0x100;
	if (off < NPU_PORT_FP_PUNT(NPU_PUNT_MAX) && !(off % 8))
		return atomic64_read(&fp->port[p].punt[off / 8]);
	if (off == NPU_PORT_FP_FWD_FRAMES)
		return atomic64_read(&fp->port[p].fwd_frames);
	if (off == NPU_PORT_FP_FWD_BYTES)
		return atomic64_read(&fp->port[p].fwd_bytes);
	if (off == NPU_PORT_FP_PUNT_DROPS)
		return npusim_policer_port_drops(&nd->ports[p]);
	return 0;
}

/*
 * A write to the statistics area's registers (npu_hw.h): BASE disables the
 * area, SIZE 0 disables it, another SIZE enables it when the area is
 * memory, aligned and at most NPU_FT_CONNS_MAX entries, and writes every
 * entry afresh.  Once this returns the model no longer writes a disabled
 * area: the host may free it.
 */
static void npusim_fp_area_write(struct npusim_dev *nd, u32 off, u32 val)
{
	struct npusim_fp *fp = nd->fp;
	u64 len = (u64)val * sizeof(struct npu_conn_stats_entry);

	spin_lock_bh(&fp->lock);
	switch (off) {
	case NPU_FT_STATS_BASE:
		fp->area_base = (fp->area_base & ~0xffffffffULL) | val;
		val = 0;
		break;
	case NPU_FT_STATS_BASE_HI:
		fp->area_base = (fp->area_base & 0xffffffffULL) | (u64)val << 32;
		val = 0;
		break;
	case NPU_FT_STATS_SIZE:
		if (val && (val > NPU_FT_CONNS_MAX || !IS_ALIGNED(fp->area_base, 8) ||
			    !npusim_dma_ok(fp->area_base, len))) {
			dev_warn_ratelimited(nd->bus_dev,
					     "statistics area: base %#llx size %u refused\n",
					     fp->area_base, val);
			val = 0;
		}
		break;
	default:
		spin_unlock_bh(&fp->lock);
		return;
	}
	fp->area_n = val;
	fp->area = val ? npusim_dma_va(fp->area_base) : NULL;
	npusim_ft_area_set(&fp->ft, fp->area, fp->area_n);
	spin_unlock_bh(&fp->lock);
}

/**
 * npusim_fp_write32 - a write to a fast-path register
 * @nd: model device
 * @reg: NPU_REG_FASTPATH (1 = forward, 0 = punt everything with
 *	NPU_PUNT_FASTPATH_OFF) or a register of NPU_REG_FT_STATS (others
 *	are ignored)
 * @val: the value
 */
void npusim_fp_write32(struct npusim_dev *nd, u32 reg, u32 val)
{
	if (reg >= NPU_REG_FT_STATS && reg < NPU_REG_FT_STATS + 0x10) {
		npusim_fp_area_write(nd, reg - NPU_REG_FT_STATS, val);
		return;
	}
	if (reg != NPU_REG_FASTPATH || val > 1)
		return;
	spin_lock_bh(&nd->fp->lock);
	nd->fp->ft.fastpath = val;
	spin_unlock_bh(&nd->fp->lock);
}

/**
 * npusim_fp_count_punt - count a frame punted to the host
 * @port: ingress port
 * @reason: enum npu_punt_reason
 */
void npusim_fp_count_punt(struct npusim_port *port, u8 reason)
{
	if (reason < NPU_PUNT_MAX)
		atomic64_inc(&port->nd->fp->port[port->idx].punt[reason]);
}

/*
 * What the debugfs "corrupt" knob makes of the statistics entry a forward
 * just wrote, under fp->lock: a million more frames in direction @d, seen
 * now, under another revision, an impossible state or another index.  The
 * host must refuse each and let no connection's last use move for it.
 */
static void npusim_fp_area_corrupt(struct npusim_dev *nd, u32 conn, u8 d)
{
	struct npusim_fp *fp = nd->fp;
	struct npu_conn_stats_entry *e;
	bool rev, state, idx;

	if (!fp->area || conn >= fp->area_n)
		return;
	rev = npusim_corrupt_take(nd, NPUSIM_CORRUPT_AREA_REV);
	state = npusim_corrupt_take(nd, NPUSIM_CORRUPT_AREA_STATE);
	idx = npusim_corrupt_take(nd, NPUSIM_CORRUPT_AREA_CONN);
	if (!rev && !state && !idx)
		return;
	e = &fp->area[conn];
	e->packets[d] = cpu_to_le64(le64_to_cpu(e->packets[d]) + 1000000);
	if (rev)
		e->rev = cpu_to_le16(le16_to_cpu(e->rev) ^ 0x8000);
	if (state)
		e->state = 0x7f;
	if (idx)
		e->conn = cpu_to_le32(conn + 1);
}

/* A PPPoE frame punted: counted apart, so that its reasons tell. */
static void npusim_fp_count_pppoe(struct npusim_fp *fp,
				  const struct npusim_pkt *pkt)
{
	if (likely(pkt->ethertype != ETH_P_PPP_SES &&
		   pkt->ethertype != ETH_P_PPP_DISC))
		return;
	switch (pkt->reason) {
	case NPU_PUNT_EXCEPTION:
		atomic64_inc(&fp->pppoe.exception);
		break;
	case NPU_PUNT_MALFORMED:
		atomic64_inc(&fp->pppoe.malformed);
		break;
	case NPU_PUNT_FLOW_MISS:
		atomic64_inc(&fp->pppoe.miss);
		break;
	}
}

/*
 * The L2 header of a linear, writable frame made again (ft_pure.c): room
 * made first where it grows; the IP packet does not move.
 */
static int npusim_fp_l2_rewrite(struct sk_buff *skb, const struct npusim_pkt *pkt,
				const struct npu_rewrite *rw)
{
	int grow = (int)npusim_ft_l2_len(pkt, rw) - pkt->l3_off;

	if (grow > 0 && skb_cow_head(skb, grow))
		return -ENOMEM;
	grow = npusim_ft_l2_rewrite(skb->data, pkt, rw);
	if (grow >= 0)
		skb_push(skb, grow);
	else
		skb_pull(skb, -grow);
	return 0;
}

/**
 * npusim_fp_ingress - the fast path's look at a frame arriving on a port
 * @port: ingress port
 * @skb: the frame (consumed only when forwarded; a CHECKSUM_PARTIAL sum
 *	is completed before the rewrite)
 * @pkt: the parser's result; on return its @reason is the punt reason
 * @conn: on return, the connection index for the punt descriptor
 *
 * Return: true if the frame was forwarded (or dropped) by the fast path,
 * false if it is to be punted to the host with @pkt->reason and @conn (the
 * caller counts the punt, after the ingress classifier had its say).
 */
bool npusim_fp_ingress(struct npusim_port *port, struct sk_buff *skb,
		       struct npusim_pkt *pkt, u32 *conn)
{
	struct npusim_dev *nd = port->nd;
	struct npusim_fp *fp = nd->fp;
	struct npusim_ft_result res;
	struct npusim_port *eport;
	struct npu_rewrite rw;
	bool partial;
	u8 reason;

	*conn = NPU_CONN_NONE;
	if (unlikely(READ_ONCE(fp->fw_fault)) &&
	    (pkt->reason == NPU_PUNT_FLOW_MISS ||
	     pkt->reason == NPU_PUNT_TCP_FLAGS)) {
		pkt->reason = NPU_PUNT_FASTPATH_OFF;
		goto punt;
	}
	if ((pkt->reason != NPU_PUNT_FLOW_MISS &&
	     pkt->reason != NPU_PUNT_TCP_FLAGS) || !READ_ONCE(fp->ft.used_mflows))
		goto punt;
	if (skb_linearize(skb))
		goto punt;

	spin_lock_bh(&fp->lock);
	reason = npusim_ft_process(&fp->ft, pkt, port->idx, skb->data, skb->len,
				   ktime_get_ns(), &res);
	if (reason == NPU_PUNT_NONE) {
		rw = *res.rw;
		npusim_fp_area_corrupt(nd, res.conn, res.dir);
	}
	spin_unlock_bh(&fp->lock);
	*conn = res.conn;
	if (reason != NPU_PUNT_NONE) {
		pkt->reason = reason;
		goto punt;
	}

	if (skb_ensure_writable(skb, skb->len))
		goto drop;
	/*
	 * The rewrite updates sums incrementally: a sum the sender left to
	 * the device must be complete first when NAT changes what the L4 sum
	 * covers.  TTL and MACs are outside it: there the sum stays partial
	 * to the far end, as on the host path (tx.c).  A frame pushed into a
	 * PPPoE session reaches a concentrator, which reads the frame whole
	 * rather than as a stack that takes a partial sum as verified: its
	 * sums are completed, as the host path's are (a ppp device offers no
	 * checksum offload).
	 */
	partial = skb->ip_summed == CHECKSUM_PARTIAL;
	if (partial && ((rw.flags & (NPU_RW_SNAT | NPU_RW_DNAT)) ||
			(rw.l2 & NPU_RW_L2_PPPOE_PUSH))) {
		if (skb_checksum_help(skb))
			goto drop;
		partial = false;
	}
	npusim_ft_rewrite(skb->data, skb->len, pkt, &rw);
	if (npusim_fp_l2_rewrite(skb, pkt, &rw))
		goto drop;
	atomic64_inc(&fp->port[port->idx].fwd_frames);
	atomic64_add(skb->len, &fp->port[port->idx].fwd_bytes);
	eport = &nd->ports[rw.egress_port];	/* checked at create */
	if (!partial)
		skb->ip_summed = CHECKSUM_NONE;
	skb_orphan(skb);
	skb_scrub_packet(skb, true);
	npusim_wire_rx(eport->wire, skb);
	return true;

drop:
	kfree_skb(skb);
	return true;
punt:
	npusim_fp_count_pppoe(fp, pkt);
	return false;
}

/**
 * npusim_fp_cmd - execute a fast-path command
 * @nd: model device
 * @c: the command (response written in place)
 * @len: request bytes in @c->data
 *
 * Return: an enum npu_cmd_status, or -1 if @c is not a fast-path command.
 */
int npusim_fp_cmd(struct npusim_dev *nd, struct npu_cmd *c, u16 len)
{
	struct npusim_fp *fp = nd->fp;
	u16 op = le16_to_cpu(c->opcode);
	u64 now = ktime_get_ns();
	u16 st;

	if (READ_ONCE(fp->fw_fault) && op >= NPU_CMD_CONN_CREATE &&
	    op < NPU_CMD_FT_CONFIG)
		return NPU_ST_FW_FAULT;
	switch (op) {
	case NPU_CMD_CONN_CREATE:
		if (len < sizeof(struct npu_cmd_conn_create))
			return NPU_ST_BAD_PARAM;
		spin_lock_bh(&fp->lock);
		st = npusim_ft_conn_create(&fp->ft, (const void *)c->data, now);
		spin_unlock_bh(&fp->lock);
		break;
	case NPU_CMD_MFLOW_ATTACH:
		if (len < sizeof(struct npu_cmd_mflow))
			return NPU_ST_BAD_PARAM;
		spin_lock_bh(&fp->lock);
		st = npusim_ft_mflow_attach(&fp->ft, (const void *)c->data);
		spin_unlock_bh(&fp->lock);
		break;
	case NPU_CMD_MFLOW_INVALIDATE: {
		const struct npu_cmd_mflow *m = (const void *)c->data;

		if (len < sizeof(*m))
			return NPU_ST_BAD_PARAM;
		spin_lock_bh(&fp->lock);
		st = npusim_ft_mflow_invalidate(&fp->ft, &m->key);
		spin_unlock_bh(&fp->lock);
		if (!nd->cmd_tm.first_ns)
			nd->cmd_tm.first_ns = now;
		nd->cmd_tm.last_ns = now;
		break;
	}
	case NPU_CMD_CONN_RECLAIM: {
		const struct npu_cmd_conn_ref *r = (const void *)c->data;

		if (len < sizeof(*r))
			return NPU_ST_BAD_PARAM;
		spin_lock_bh(&fp->lock);
		st = npusim_ft_conn_reclaim(&fp->ft, le32_to_cpu(r->conn),
					    le16_to_cpu(r->rev));
		if (!fp->ft.used_conns)
			nd->cmd_tm.zero_ns = ktime_get_ns();
		spin_unlock_bh(&fp->lock);
		if (!nd->cmd_tm.first_ns)
			nd->cmd_tm.first_ns = now;
		nd->cmd_tm.last_ns = now;
		break;
	}
	case NPU_CMD_CONN_STATS: {
		struct npu_cmd_conn_ref r;
		struct npu_cmd_conn_stats out;

		BUILD_BUG_ON(sizeof(out) > NPU_CMD_DATA_LEN);
		if (len < sizeof(r))
			return NPU_ST_BAD_PARAM;
		memcpy(&r, c->data, sizeof(r));
		spin_lock_bh(&fp->lock);
		st = npusim_ft_conn_stats(&fp->ft, le32_to_cpu(r.conn),
					  le16_to_cpu(r.count), now, &out);
		spin_unlock_bh(&fp->lock);
		if (st == NPU_ST_OK) {
			memcpy(c->data, &out, sizeof(out));
			c->len = cpu_to_le16(sizeof(out));
			return st;
		}
		break;
	}
	case NPU_CMD_FT_CONFIG: {
		const struct npu_cmd_ft_config *cfg = (const void *)c->data;
		u32 conns, mflows;

		if (len < sizeof(*cfg))
			return NPU_ST_BAD_PARAM;
		conns = le32_to_cpu(cfg->conns);
		mflows = le32_to_cpu(cfg->mflows);
		if (!conns || conns > NPU_FT_CONNS_MAX || !mflows ||
		    mflows > NPU_FT_MFLOWS_MAX || cfg->fastpath > 1)
			return NPU_ST_BAD_PARAM;
		if (READ_ONCE(fp->mem_conns) && conns > READ_ONCE(fp->mem_conns))
			return NPU_ST_NO_SPACE;
		st = npusim_fp_resize(nd, conns, mflows, cfg->fastpath) ?
		     NPU_ST_NO_SPACE : NPU_ST_OK;
		if (st == NPU_ST_OK)
			WRITE_ONCE(fp->fw_fault, false);	/* the reset */
		break;
	}
	default:
		return -1;
	}
	c->len = 0;
	return st;
}
