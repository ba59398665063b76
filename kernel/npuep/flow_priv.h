/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npuep flow offload: what the flow_*.c files share inside the driver.
 */
#ifndef _NPUEP_FLOW_PRIV_H
#define _NPUEP_FLOW_PRIV_H

#include <linux/rhashtable.h>
#include <linux/rcupdate.h>

#include "flow.h"
#include "flow_count.h"

struct flow_rule;
struct flow_cls_offload;
struct netlink_ext_ack;

/* The statistics area is read this often (conntrack keepalive). */
#define NPUEP_FLOW_STATS_MS	1000
/* Posted DESTROYs wait in a queue of this many (a teardown of the seed's
 * 1,000 connections queues 2,000).
 */
#define NPUEP_FLOW_DESTROY_QLEN	4096

struct npuep_conn;

/*
 * A connection's revive command as of its current revision: immutable,
 * replaced whole (RCU) when the connection is rewritten, so the receive
 * path can post it without the flow-table lock.
 */
struct npuep_revive {
	struct rcu_head rcu;
	struct npu_cmd_conn_create cmd;
};

/*
 * One nftables flowtable bound to a port: the block callback's private
 * data.  @live is cleared, under the table lock, by the unbind, which then
 * purges the directions this binding offered (and only those: two
 * flowtables may share a port); a REPLACE that comes after finds it clear.
 * Freed by the block callback's release, after the kernel took the
 * callback off the flowtable's list.
 */
struct npuep_ft_bind {
	struct npuep_port *port;
	bool live;
};

/*
 * One direction of a connection, as the kernel offered it.  Freed after a
 * grace period: DESTROY looks its cookie up without the lock first.
 */
struct npuep_flow {
	struct rcu_head rcu;
	struct rhash_head knode;	/* by key (the match) */
	struct rhash_head cnode;	/* by cookie and port */
	struct list_head pnode;		/* ft->port_flows[key.port] */
	struct npu_mflow_key key;
	struct npuep_flow_ck ck;
	struct npu_rewrite rw;
	struct npuep_conn *conn;
	u8 dir;				/* in the connection */
	u8 owner;			/* enum npuep_flow_owner */
	bool dying;			/* its DESTROY is queued */
	const struct npuep_ft_bind *bind; /* the flowtable's binding (FT), or NULL */
	u64 rep_pkts;			/* reported to the kernel so far */
	u64 rep_bytes;
};

struct npuep_conn {
	u32 idx;
	u16 rev;
	struct npuep_flow *flow[2];
	struct npuep_conn_count cnt;	/* cumulative, as last read */
	unsigned long lastused;		/* jiffies */
	unsigned long revive_next;	/* jiffies: rate limit */
	struct npuep_revive __rcu *revive;
	u8 state;			/* enum npu_conn_state, as last read */
	struct rcu_head rcu;
};

static const struct rhashtable_params npuep_flow_key_params __maybe_unused = {
	.head_offset = offsetof(struct npuep_flow, knode),
	.key_offset = offsetof(struct npuep_flow, key),
	.key_len = sizeof(struct npu_mflow_key),
	.automatic_shrinking = true,
};

static const struct rhashtable_params npuep_flow_cookie_params __maybe_unused = {
	.head_offset = offsetof(struct npuep_flow, cnode),
	.key_offset = offsetof(struct npuep_flow, ck),
	.key_len = sizeof(struct npuep_flow_ck),
	.automatic_shrinking = true,
};

struct npuep_flow_spec {
	struct npu_mflow_key key;
	struct npu_rewrite rw;
};

/* flow_path.c */
struct npuep_fd_hop;
struct npuep_fd_session;
struct net;
s32 npuep_flow_port_of(const struct npuep_dev *ndev, const struct net_device *dev);
u32 npuep_flow_path_read(const struct npuep_dev *ndev, const struct net_device *dev,
			 struct npuep_fd_hop *hop);
u32 npuep_flow_sessions(const struct npuep_dev *ndev, struct net *net,
			struct npuep_fd_session *s, u32 max);
int npuep_flow_session_up(struct npuep_port *port, struct npuep_flow_spec *spec,
			  struct netlink_ext_ack *extack);

/* flow_parse.c */
int npuep_flow_parse(struct npuep_port *port, struct flow_rule *rule,
		     bool ft, struct npuep_flow_spec *spec,
		     struct netlink_ext_ack *extack);

/* flow_table.c */
struct npuep_conn *npuep_conn_at(struct npuep_ft *ft, u32 idx);

/* flow_lock.c */
void npuep_ft_lock(struct npuep_ft *ft);
void npuep_ft_lock_bh(struct npuep_ft *ft);
void npuep_ft_lock_writes(struct npuep_ft *ft);
void npuep_ft_unlock(struct npuep_ft *ft);

/* Allocations under the lock: GFP_ATOMIC while softirqs are off. */
static inline gfp_t npuep_ft_gfp(struct npuep_ft *ft)
{
	return ft->bh_off ? GFP_ATOMIC : GFP_KERNEL;
}

/* flow_table.c: the commands */
int npuep_ft_cmd_ring(struct npuep_ft *ft, u32 ring, bool posted, u16 op,
		      const void *req, u16 len, void *resp, u16 resp_len);
void npuep_conn_fill(struct npuep_conn *c, struct npu_cmd_conn_create *cmd,
		     bool mflows);
int npuep_conn_write(struct npuep_ft *ft, struct npuep_conn *c);
void npuep_flow_unhash(struct npuep_ft *ft, struct npuep_flow *f);
int npuep_flow_replace(struct npuep_ft *ft, struct npuep_port *port,
		       struct flow_cls_offload *cls, u8 owner,
		       const struct npuep_ft_bind *bind);
void npuep_flow_remove(struct npuep_ft *ft, struct npuep_flow *f);
void npuep_flow_remove_conn(struct npuep_ft *ft, struct npuep_flow *f);
struct npuep_flow *npuep_flow_by_cookie(struct npuep_ft *ft, unsigned long cookie,
					u32 port);
int npuep_flow_destroy(struct npuep_ft *ft, struct npuep_port *port,
		       struct flow_cls_offload *cls);
int npuep_flow_stats(struct npuep_ft *ft, struct npuep_port *port,
		     struct flow_cls_offload *cls);
void npuep_flow_purge(struct npuep_ft *ft, u32 port, u8 owner,
		      const struct npuep_ft_bind *bind);

/* flow_destroy.c */
void npuep_ft_dq_flush(struct npuep_ft *ft);
void npuep_ft_destroy_work(struct work_struct *work);
int npuep_flow_destroy_cb(struct npuep_port *port, struct flow_cls_offload *cls);

/* flow_stats.c, flow_revive.c */
int npuep_ft_area_alloc(struct npuep_ft *ft);
void npuep_conn_stats_sync(struct npuep_ft *ft, struct npuep_conn *c);
void npuep_ft_area_free(struct npuep_ft *ft);
void npuep_ft_stats_work(struct work_struct *work);
void npuep_ft_revive_work(struct work_struct *work);

#endif /* _NPUEP_FLOW_PRIV_H */
