/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npuep flow offload: the shadow of the coprocessor's connection table.
 */
#ifndef _NPUEP_FLOW_H
#define _NPUEP_FLOW_H

#include <linux/idr.h>
#include <linux/list.h>
#include <linux/atomic.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/rhashtable-types.h>
#include <linux/workqueue.h>

#include "npu_hw.h"

struct npuep_dev;
struct npuep_port;
struct net_device;
struct npuep_conn;
struct netlink_ext_ack;

/**
 * struct npuep_flow_ck - a direction's key in the cookie table
 * @cookie: the kernel's cookie (flow_cls_offload.cookie)
 * @port: the port whose callback accepted it: a rule on a tc block shared
 *	by several ports reaches each port's callback with one cookie, and
 *	each port keeps its own direction
 * @rsvd: zero (the key is compared as bytes)
 */
struct npuep_flow_ck {
	unsigned long cookie;
	u32 port;
	u32 rsvd;
};

enum npuep_flow_owner {
	NPUEP_OWNER_NONE,
	NPUEP_OWNER_FT,		/* an nftables flowtable (TC_SETUP_FT) */
	NPUEP_OWNER_FLOWER,	/* tc flower rules (npuflowd or by hand) */
};

/**
 * struct npuep_ft_stats - flow offload counters (ethtool -S)
 * @flows_added: directions written into the fast path
 * @flows_deleted: directions removed
 * @paired: directions that joined the other direction's connection
 * @pppoe_paired: flowtable pairs whose direction arriving in a PPPoE
 *	session took its session from the other's push
 * @pppoe_reclaimed: connections taken out because a direction's PPPoE
 *	session ended (flow_session.c)
 * @enospc: refused: a table full (the flow stays on the host)
 * @unsupported: refused: a match or action the fast path lacks
 * @revived: revives sent by the revive work item (the receive path's own
 *	are counted in npuep_ft.revived_rx)
 * @remade: given-back connections made again (microflows and all) when
 *	the kernel offered them again
 * @cmd_waited: flow commands sent and waited for
 * @cmd_posted: flow commands posted (not waited for)
 * @cmd_ring_full: posts that found the command ring full (the device
 *	behind the host) and were queued in the driver behind it
 * @cmd_failed: flow commands that failed
 * @cmd_lost: table commands whose post failed (backlog full, no memory):
 *	each marks the table for the "cmd" health recovery's resync
 * @stats_reads: passes over the statistics area that read it whole
 * @stats_bad: statistics entries refused as impossible (another index, a
 *	state that does not exist)
 * @stats_stale: statistics entries of another revision than the shadow's
 *	(a rewrite the device has not executed yet, or a lie), skipped
 * @lock_held_max_ns: longest hold of the flow-table lock (seed 004)
 * @lock_held_over_1ms: holds of the flow-table lock longer than 1 ms
 * @lock_held_over_5ms: holds longer than 5 ms, the goal for the longest
 *	hold: a delta over an operation says whether any hold in it missed
 *	the goal, which the since-load maximum cannot
 */
struct npuep_ft_stats {
	u64 flows_added;
	u64 flows_deleted;
	u64 paired;
	u64 pppoe_paired;
	u64 pppoe_reclaimed;
	u64 enospc;
	u64 unsupported;
	u64 revived;
	u64 remade;
	u64 cmd_waited;
	u64 cmd_posted;
	u64 cmd_ring_full;
	u64 cmd_failed;
	u64 cmd_lost;
	u64 stats_reads;
	u64 stats_bad;
	u64 stats_stale;
	u64 lock_held_max_ns;
	u64 lock_held_over_1ms;
	u64 lock_held_over_5ms;
};

/**
 * struct npuep_ft - one coprocessor's flow-offload state
 * @ndev: the coprocessor
 * @lock: serialises the shadow table and flow commands
 * @bh_off: @lock is held with softirqs off (npuep_ft_lock_bh()): nothing
 *	under it may sleep
 * @lock_t0: when @lock was taken (ns), for @st.lock_held_max_ns
 * @lock_wait_ns: how long its taker waited for it, while the
 *	npuep_ft_lock_hold tracepoint is on (else 0)
 * @conn_max: connection table size (devlink resource)
 * @mflow_max: microflow table size (devlink resource)
 * @nconns: connections in use
 * @nflows: directions (microflows) in use
 * @by_key: directions by match
 * @by_cookie: directions by the kernel's cookie
 * @conn_ida: connection index allocator
 * @by_idx: connection by index (RCU: read by the receive path)
 * @revs: last revision used per index
 * @revive_map: indices to revive
 * @revive: devlink param "revive"
 * @stopping: no more stats reads
 * @frozen: a devlink reload is about to replace the table: REPLACE is
 *	refused (npuep_flow_resize_begin())
 * @owner: per port, who drives its offload (enum npuep_flow_owner)
 * @owner_flows: per port, directions offloaded
 * @port_flows: per port, the directions entering there (a purge walks
 *	these, never the hash tables)
 * @stats_work: periodic read of the statistics area
 * @area: the connection statistics area (npu_hw.h), @area_n entries of
 *	coherent DMA memory the device writes
 * @area_dma: its DMA address
 * @area_n: its entries, @conn_max
 * @revive_work: sends the revives the receive path could not post
 * @revived_rx: revives the receive path posted itself (at the end of a
 *	NAPI pass)
 * @revive_deferred: revives left to @revive_work (high ring full)
 * @dq_lock: guards @dq, @dq_head, @dq_len
 * @dq: posted DESTROYs' keys waiting for @destroy_work (a ring of
 *	NPUEP_FLOW_DESTROY_QLEN)
 * @dq_head: the oldest in @dq
 * @dq_len: cookies in @dq
 * @destroy_work: applies @dq in batches
 * @st: counters
 */
struct npuep_ft {
	struct npuep_dev *ndev;
	struct mutex lock;		/* the shadow table, flow commands */
	bool bh_off;
	u64 lock_t0;
	u64 lock_wait_ns;
	u32 conn_max;
	u32 mflow_max;
	u32 nconns;
	u32 nflows;
	struct rhashtable by_key;
	struct rhashtable by_cookie;
	struct ida conn_ida;
	struct npuep_conn __rcu **by_idx;
	u16 *revs;
	unsigned long *revive_map;
	bool revive;
	bool stopping;
	bool frozen;
	u8 owner[NPU_MAX_PORTS];
	u32 owner_flows[NPU_MAX_PORTS];
	struct list_head port_flows[NPU_MAX_PORTS];
	struct delayed_work stats_work;
	struct npu_conn_stats_entry *area;
	dma_addr_t area_dma;
	u32 area_n;
	struct work_struct revive_work;
	atomic64_t revived_rx;
	atomic64_t revive_deferred;
	spinlock_t dq_lock;		/* see above */
	struct npuep_flow_ck *dq;
	u32 dq_head;
	u32 dq_len;
	struct delayed_work destroy_work;
	struct npuep_ft_stats st;
};

int npuep_setup_tc(struct net_device *netdev, enum tc_setup_type type,
		   void *type_data);
u32 npuep_flow_tc_busy(struct npuep_port *port);
int npuep_flow_init(struct npuep_dev *ndev, u32 conns, u32 mflows);
void npuep_flow_fini(struct npuep_dev *ndev);
void npuep_flow_flush(struct npuep_dev *ndev);
int npuep_flow_resize_begin(struct npuep_dev *ndev, u32 conns, u32 mflows,
			    struct netlink_ext_ack *extack);
int npuep_flow_resize(struct npuep_dev *ndev, u32 conns, u32 mflows,
		      bool *replaced);
void npuep_flow_revive(struct npuep_dev *ndev, const u32 *conns, u32 n);
int npuep_flow_sset_count(void);
void npuep_flow_get_strings(u8 **data);
void npuep_flow_get_stats(struct npuep_port *port, u64 **data);
int npuep_session_start(struct npuep_dev *ndev);
void npuep_session_stop(struct npuep_dev *ndev);

#endif /* _NPUEP_FLOW_H */
