/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npuep - host netdev driver for the npuflow network coprocessor.
 */
#ifndef _NPUEP_H
#define _NPUEP_H

#include <linux/auxiliary_bus.h>
#include <linux/completion.h>
#include <linux/dim.h>
#include <linux/ethtool.h>
#include <linux/hrtimer.h>
#include <linux/if_vlan.h>
#include <linux/interrupt.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/rwsem.h>
#include <linux/spinlock.h>
#include <linux/u64_stats_sync.h>
#include <linux/workqueue.h>
#include <net/devlink.h>
#include <net/xdp.h>

#include "npu_aux.h"
#include "npuep_config.h"
#include "cmd.h"
#include "flow.h"
#include "dlx.h"

#define NPUEP_DRV_NAME		"npuep"

/*
 * Receive buffers: one page_pool page of 2^order pages each,
 * XDP_PACKET_HEADROOM in front of the frame and room for struct
 * skb_shared_info behind it, so the buffer can become an skb head
 * (napi_build_skb) or an xdp_buff without a copy.  The order is the smallest
 * whose buffer holds an MTU-sized frame (npuep_rx_order()): 0 up to
 * NPUEP_XDP_MAX_MTU, more for jumbo frames.  It is chosen when the queues
 * are built, so an MTU change that needs another order rebuilds them.
 */
#define NPUEP_RX_HEADROOM	XDP_PACKET_HEADROOM
#define NPUEP_RX_TAILROOM	SKB_DATA_ALIGN(sizeof(struct skb_shared_info))
#define NPUEP_RX_BUF_LEN(order)	((PAGE_SIZE << (order)) - NPUEP_RX_HEADROOM - \
				 NPUEP_RX_TAILROOM)
/* Frame bytes beyond the MTU a buffer must hold: Ethernet + two VLAN tags. */
#define NPUEP_RX_L2_MAX		(ETH_HLEN + 2 * VLAN_HLEN)
/* L2 overhead the device adds to an L3 MTU (npu_cmd_port_cfg: 9216 - 22). */
#define NPUEP_L2_OVERHEAD	(ETH_HLEN + VLAN_HLEN + ETH_FCS_LEN)
#define NPUEP_MAX_MTU		(NPU_MAX_FRAME - NPUEP_L2_OVERHEAD)

/*
 * With an XDP program the whole frame must sit in one page (no multi-buffer
 * XDP): MTU + Ethernet header + two VLAN tags (Q-in-Q stays in the frame).
 * Every MTU up to this one has order-0 buffers.
 */
#define NPUEP_XDP_MAX_MTU	((int)NPUEP_RX_BUF_LEN(0) - NPUEP_RX_L2_MAX)

/**
 * npuep_rx_order() - page order of the receive buffers for an MTU
 * @mtu: the port's L3 MTU
 *
 * Return: the smallest order whose buffer holds @mtu + NPUEP_RX_L2_MAX
 * bytes; 0 for every MTU up to NPUEP_XDP_MAX_MTU.
 */
static inline unsigned int npuep_rx_order(unsigned int mtu)
{
	unsigned int order = 0;

	while (NPUEP_RX_BUF_LEN(order) < mtu + NPUEP_RX_L2_MAX)
		order++;
	return order;
}

/* Per-queue NAPI budget (ethtool rx-frames-irq). */
#define NPUEP_RX_BUDGET_MAX	NAPI_POLL_WEIGHT

/* Stop a tx queue when a worst-case skb might not fit. */
#define NPUEP_TX_STOP_THRS	NPU_TX_MAX_DESCS
/* restart at twice that, or at an empty ring when the ring is smaller */
#define NPUEP_TX_START_THRS(qp)	min(2 * NPUEP_TX_STOP_THRS, (qp)->tx_size - 1)

struct npuep_dev;
struct npuep_port;
struct npuep_ntuple;

struct npuep_rx_buf {
	struct page *page;
};

/* What a transmit slot holds; XDP frames are not counted by BQL. */
enum npuep_tx_type {
	NPUEP_TX_SKB = 0,
	NPUEP_TX_XDP_TX,	/* XDP_TX: a page of this queue's page_pool */
	NPUEP_TX_XDP_XMIT,	/* ndo_xdp_xmit: mapped here, unmapped on completion */
};

struct npuep_tx_buf {
	union {
		struct sk_buff *skb;	/* NPUEP_TX_SKB: on the EOP entry only */
		struct xdp_frame *xdpf;	/* NPUEP_TX_XDP_* */
	};
	dma_addr_t dma;
	u32 len;		/* mapped bytes, 0 = nothing to unmap */
	u32 bytes;		/* EOP: bytes on the wire, for BQL */
	u16 segs;		/* EOP: gso segments */
	bool head;		/* mapped with dma_map_single */
	u8 type;		/* enum npuep_tx_type */
};

/*
 * Writers: syncp covers what the queue's NAPI updates, xsyncp what the
 * transmit path updates (under the tx queue lock); irqs has a single writer,
 * the vector's handler.
 */
struct npuep_qp_stats {
	struct u64_stats_sync syncp;
	struct u64_stats_sync xsyncp;
	u64 rx_packets;
	u64 rx_bytes;
	u64 rx_drops;		/* bad descriptors + allocation failures */
	u64 rx_bad_desc;	/* dropped: rx_bad_len + rx_bad_port + rx_bad_reason */
	u64 rx_bad_len;		/* length beyond the buffer or below ETH_HLEN */
	u64 rx_bad_port;	/* another port's */
	u64 rx_bad_reason;	/* reason >= NPU_PUNT_MAX */
	u64 rx_bad_conn;	/* index beyond any table: delivered without it */
	u64 rx_alloc_fail;
	u64 rx_doorbell_frames;
	u64 rx_poll_frames;
	u64 rx_csum_ok;
	u64 rx_punt[NPU_PUNT_MAX];
	u64 tx_packets;
	u64 tx_bytes;
	u64 tx_drops;
	u64 tx_stop;
	u64 tx_wake;
	u64 tx_fraglist;	/* xsyncp: frames sent with their frag list */
	u64 rx_xdp_pass;
	u64 rx_xdp_drop;
	u64 rx_xdp_tx;
	u64 rx_xdp_redirect;
	u64 rx_xdp_aborted;
	u64 rx_xdp_tx_errors;	/* XDP_TX frames the tx ring could not take */
	u64 rx_xdp_redirect_errors;
	u64 tx_xdp_xmit;	/* xsyncp: frames taken by ndo_xdp_xmit */
	u64 tx_xdp_xmit_errors;	/* xsyncp: frames ndo_xdp_xmit refused */
	u64 rx_refill_retry;	/* refill_work passes over an empty ring */
	u64 irqs;		/* doorbell interrupts taken by the driver */
	u64 poll_scheds;	/* NAPI runs started by the safety-net poll */
};

/*
 * struct npuep_qp - one queue pair (ethtool combined channel)
 *
 * The structure lives as long as the netdev (so do its counters); the rings,
 * page_pool, NAPI and IRQ exist only while the datapath is open.
 */
struct npuep_qp {
	struct npuep_port *port;
	u16 idx;
	u32 reg;			/* NPU_REG_QP(port, idx) */
	bool open;

	struct napi_struct napi;
	bool sched_by_poll;		/* cause of the current NAPI run */
	u64 poll_runs;			/* NAPI runs the safety-net poll started */
	u64 repolls;			/* NAPI polls that took their whole budget */
	int irq;			/* < 0: no vector requested */
	char irq_name[IFNAMSIZ + 16];

	/* rx */
	struct npu_rx_desc *rx_ring;
	dma_addr_t rx_ring_dma;
	struct npuep_rx_buf *rx_bufs;
	struct page_pool *pool;
	struct xdp_rxq_info xdp_rxq;
	u32 rx_size;
	u32 rx_buf_len;			/* frame bytes a posted buffer holds */
	u32 rx_truesize;		/* PAGE_SIZE << rx_order */
	u8 rx_order;			/* page order of the buffers */
	u32 rx_ntc;			/* next to clean */
	u32 rx_ntu;			/* next to use (== tail written) */
	/*
	 * An empty ring whose refill failed gets no doorbell: refill_work
	 * retries it, with NAPI disabled, after refill_delay_ms (doubling
	 * while it fails).  refill_on (under refill_lock) says whether it may
	 * be queued.
	 */
	struct delayed_work refill_work;
	spinlock_t refill_lock;		/* see above */
	bool refill_on;
	u32 refill_delay_ms;		/* NAPI's, or refill_work's with NAPI off */

	/* tx */
	struct npu_tx_desc *tx_ring;
	dma_addr_t tx_ring_dma;
	struct npuep_tx_buf *tx_bufs;
	u32 tx_size;
	u32 tx_ntc;
	u32 tx_ntu;

	/* adaptive rx moderation; the poll timer's idle check (its own fields) */
	struct dim dim;
	u16 dim_events;
	bool dim_reset;			/* NAPI: back to DIM's first profile */
	u64 dim_idle_pkts;		/* rx_packets at the last check */
	unsigned long dim_idle_since;	/* jiffies: rx_packets unchanged since */

	struct npuep_qp_stats stats;
};

/*
 * struct npuep_port - one front port and its host netdev
 */
struct npuep_port {
	struct npuep_dev *ndev;
	struct net_device *netdev;
	struct devlink_port dl_port;
	bool dl_registered;
	u32 idx;			/* 0-based */
	u32 reg;			/* NPU_REG_PORT(idx) */

	bool dp_open;			/* rings, NAPI and vectors set up */
	u8 rx_order;			/* buffer order of the open datapath */
	u32 nq;				/* active queue pairs */
	u32 rx_ring_size;
	u32 tx_ring_size;
	u32 rx_budget;			/* ethtool rx-frames-irq */
	u32 coal_usecs;
	u32 coal_frames;
	bool adaptive_rx;
	struct bpf_prog *xdp_prog;	/* READ_ONCE in NAPI, xchg under rtnl */

	struct npuep_qp *qps;		/* ndev->nqueues entries */
	struct npuep_ntuple *ntuple;	/* ethtool -N rules (ntuple.c), rtnl */

	/* queue 0's vector moved: the poll follows it (datapath.c) */
	struct irq_affinity_notify poll_notify;

	/* debugfs <dev>-p<N>/ while the datapath is open (datapath.c) */
	struct dentry *dbg;
	atomic_t fail_rx_alloc;		/* fault: receive allocations to fail */
};

/*
 * struct npuep_dev - one coprocessor; the devlink instance's private data
 */
struct npuep_dev {
	struct npuep_ft *ft;		/* flow offload (flow.c) */
	/*
	 * Protects @ft itself (the pointer and the table's life): held for
	 * reading by every reader of @ft outside rtnl and the devlink
	 * instance lock (the offload callbacks, a bind's owner check, an
	 * unbind, a replay, the fw reporter's auto-dump), for writing while
	 * a devlink reload replaces @ft (npuep_flow_resize(), which also
	 * holds rtnl: ethtool -S reads the table's counters under rtnl only).
	 */
	struct rw_semaphore ft_sem;
	struct npuep_cmd cmd;		/* command channel (cmd.h) */
	/* what the command channel refused (cmd_check.c); ethtool -S reads it */
	struct npuep_cmd_checks cmd_chk;
	struct npuep_dlx dlx;		/* devlink objects, health */
	struct auxiliary_device *adev;
	struct npu_hw *hw;
	struct device *dev;
	struct devlink *devlink;

	u32 fw_version;
	u32 caps;
	u32 nports;
	u32 nqueues;
	u64 serial;
	char fw_name[16];
	char fw_ver[32];
	struct netdev_phys_item_id switch_id;

	bool removing;			/* no more link events */

	struct work_struct link_work;

	/* PPPoE sessions that end take their connections out (flow_session.c) */
	struct notifier_block session_nb;
	struct delayed_work session_work;

	/*
	 * Safety-net poll and doorbell mode.  The timer runs while a port's
	 * datapath is open, every poll_period_ns, pinned to the first online
	 * CPU of the effective affinity of the first open port's queue 0
	 * vector, or, with no vectors, to the CPU that armed it (datapath.c,
	 * npuep_poll_rearm()).
	 */
	struct hrtimer poll_timer;
	spinlock_t poll_lock;		/* ports' dp_open vs the poll timer */
	struct mutex poll_mutex;	/* serialises npuep_poll_rearm() */
	u32 poll_interval_us;
	u64 poll_period_ns;		/* the timer's; 0 while it is off */
	bool rx_doorbells;		/* in effect (driverinit value at load) */
	bool reloading;

	struct npuep_port *ports[NPU_MAX_PORTS];
};

static inline u32 npuep_rd32(struct npuep_dev *ndev, u32 reg)
{
	return npu_rd32(ndev->hw, reg);
}

static inline u64 npuep_rd64(struct npuep_dev *ndev, u32 reg)
{
	return npu_rd64(ndev->hw, reg);
}

static inline void npuep_wr32(struct npuep_dev *ndev, u32 reg, u32 val)
{
	npu_wr32(ndev->hw, reg, val);
}

/* datapath.c */
int npuep_dp_open(struct npuep_port *port);
void npuep_dp_close(struct npuep_port *port);
void npuep_poll_rearm(struct npuep_dev *ndev);
void npuep_poll_stop(struct npuep_dev *ndev);
void npuep_poll_init(struct npuep_dev *ndev);
void npuep_qp_stats_read(struct npuep_qp *qp, struct npuep_qp_stats *out);
void npuep_rss_default(struct npuep_port *port);
int npuep_coalesce_push(struct npuep_port *port, u16 queue, u32 usecs,
			u32 frames);
extern const struct netdev_stat_ops npuep_stat_ops;

/* rx.c */
bool npuep_rx_refill(struct npuep_qp *qp, gfp_t gfp);
int npuep_rx_clean(struct npuep_qp *qp, int limit);
void npuep_rx_refill_init(struct npuep_qp *qp);
void npuep_rx_refill_start(struct npuep_qp *qp);
void npuep_rx_refill_stop(struct npuep_qp *qp);

/* tx.c */
netdev_tx_t npuep_start_xmit(struct sk_buff *skb, struct net_device *dev);
netdev_features_t npuep_features_check(struct sk_buff *skb,
				       struct net_device *netdev,
				       netdev_features_t features);
u32 npuep_tx_free(const struct npuep_qp *qp);
void npuep_tx_unmap(struct npuep_qp *qp, struct npuep_tx_buf *buf);
void npuep_tx_clean(struct npuep_qp *qp, int budget);
extern struct dentry *npuep_dbg_root;

/* xdp.c */
struct npuep_xdp_ctx {
	struct bpf_prog *prog;
	u32 pass, drop, tx, redirect, aborted, tx_err, redirect_err;
	bool tx_pending;		/* XDP_TX descriptors wait for a doorbell */
	bool redirect_pending;		/* xdp_do_flush() at the end of the pass */
};

bool npuep_xdp_rx(struct npuep_qp *qp, struct npuep_xdp_ctx *xc,
		  const struct npu_rx_desc *desc, struct page *page, u32 len,
		  u32 *offset, u32 *data_len, u32 *metasize);
void npuep_xdp_rx_done(struct npuep_qp *qp, struct npuep_xdp_ctx *xc);
int npuep_ndo_bpf(struct net_device *netdev, struct netdev_bpf *bpf);
int npuep_xdp_xmit(struct net_device *netdev, int n, struct xdp_frame **frames,
		   u32 flags);
extern const struct xdp_metadata_ops npuep_xdp_metadata_ops;

/* ethtool.c */
extern const struct ethtool_ops npuep_ethtool_ops;
int npuep_port_reconfigure(struct npuep_port *port, u32 nq, u32 rx_size,
			   u32 tx_size, unsigned int mtu,
			   struct netlink_ext_ack *extack);

/* ntuple.c */
int npuep_ntuple_get_rxnfc(struct npuep_port *port, struct ethtool_rxnfc *cmd,
			   u32 *rule_locs);
int npuep_set_rxnfc(struct net_device *netdev, struct ethtool_rxnfc *cmd);
int npuep_ntuple_queue_user(struct npuep_port *port, u32 nq);
int npuep_ntuple_clear(struct npuep_port *port);
int npuep_ntuple_replay(struct npuep_dev *ndev);
void npuep_ntuple_port_init(struct npuep_port *port);
void npuep_ntuple_free(struct npuep_port *port);

/* devlink.c */
struct devlink *npuep_devlink_alloc(struct device *dev);
int npuep_devlink_params_register(struct npuep_dev *ndev);
void npuep_devlink_params_unregister(struct npuep_dev *ndev);

/* dev.c */

/**
 * enum npuep_dev_event - why the device's state goes up or down (dev.c)
 * @NPUEP_DEV_PROBE: up: a new binding, nothing of the driver's made yet
 * @NPUEP_DEV_RELOAD: down, then up: a devlink reload (DRIVER_REINIT)
 * @NPUEP_DEV_RECOVER: up: a health recovery, the device's tables lost
 * @NPUEP_DEV_REMOVE: down: the binding ends
 */
enum npuep_dev_event {
	NPUEP_DEV_PROBE,
	NPUEP_DEV_RELOAD,
	NPUEP_DEV_RECOVER,
	NPUEP_DEV_REMOVE,
};

int npuep_dev_up(struct npuep_dev *ndev, enum npuep_dev_event ev,
		 struct netlink_ext_ack *extack);
int npuep_dev_down(struct npuep_dev *ndev, enum npuep_dev_event ev,
		   struct netlink_ext_ack *extack);
void npuep_dev_fastpath_apply(struct npuep_dev *ndev);

/* port.c */
void npuep_port_update_link(struct npuep_port *port);
int npuep_port_create_all(struct npuep_dev *ndev);
void npuep_port_destroy_all(struct npuep_dev *ndev);
int npuep_port_open_all(struct npuep_dev *ndev);
void npuep_port_close_all(struct npuep_dev *ndev);

#endif /* _NPUEP_H */
