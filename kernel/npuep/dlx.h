/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npuep: state of the command rings and of the devlink objects beyond the
 * basics (params of the fast path, resources, traps, health, region).
 */
#ifndef _NPUEP_DLX_H
#define _NPUEP_DLX_H

#include <linux/mutex.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <net/devlink.h>

#include "npu_hw.h"

struct devlink_health_reporter;
struct devlink_region;
struct npuep_dev;

enum npuep_cmd_ring {
	NPUEP_CMD_RING_NORMAL = 0,
	NPUEP_CMD_RING_HIGH = 1,
};

/**
 * struct npuep_cmdq - one command ring
 * @lock: one waited command at a time
 * @slot_lock: the tail, sequence, posted_slots and slot writes (taken in
 *	NAPI by npuep_cmd_post_atomic())
 * @held: slot whose response a waited command has yet to read, or
 *	NPU_CMD_RING_SIZE
 * @ring: the slots (coherent DMA)
 * @dma: their bus address
 * @tail: next slot the host fills
 * @seq: last sequence number used
 * @posted_slots: slots holding a posted command not yet checked
 * @posted: posted commands
 * @posted_failed: posted commands the device answered with an error
 * @timeouts: waited commands that timed out
 * @read_timeouts: of those, commands that change nothing (not reported)
 * @ndev: the coprocessor (for @drain_work)
 * @idx: this ring's number
 * @backlog: posted commands that found the ring full, in order, each a
 *	struct npuep_cmd_pending; under @slot_lock.  While it is not empty
 *	every command on this ring goes behind it
 * @backlog_len: entries in @backlog
 * @backlogged: commands that went through @backlog
 * @backlog_max: most commands in @backlog at once (debugfs ft_teardown)
 * @drained_ns: when the drain last emptied @backlog (ktime_get_ns)
 * @drain_sleeps: the drain's waits for ring space
 * @drain_sleep_ns: time in them
 * @drain_work: moves @backlog into the ring as the device frees slots
 */
struct npuep_cmdq {
	struct mutex lock;	/* see above */
	spinlock_t slot_lock;	/* see above */
	u32 held;
	struct npu_cmd *ring;
	dma_addr_t dma;
	u32 tail;
	u16 seq;
	u32 posted_slots;
	u64 posted;
	u64 posted_failed;
	u64 timeouts;
	u64 read_timeouts;
	struct npuep_dev *ndev;
	u32 idx;
	struct list_head backlog;
	u32 backlog_len;
	u64 backlogged;
	u32 backlog_max;
	u64 drained_ns;
	u64 drain_sleeps;
	u64 drain_sleep_ns;
	struct work_struct drain_work;
};

/**
 * struct npuep_dlx - command rings and devlink objects of one coprocessor
 * @cmdq: the normal and the high-priority command ring
 * @cmd_wq: woken by the command vector
 * @fastpath: devlink param "fastpath"
 * @revive: devlink param "revive"
 * @flow_cmd_ring: devlink param "flow_cmd_ring" (enum npuep_cmd_ring)
 * @flow_cmd_posted: devlink param "flow_cmd_posted"
 * @trap_ctx: devlink's context of the trap of each punt reason
 * @cmd_reporter: health reporter "cmd"
 * @fw_reporter: health reporter "fw"
 * @region: region "flow-table"
 * @region_entries: its size in struct npu_conn_stat
 * @health_work: polls NPU_REG_FW_STATUS, reports command timeouts
 * @stopping: no more health reports
 * @cmd_timeout_pending: a command timeout to report
 * @fw_faulted: a firmware fault was reported and not yet cleared
 * @last_timeout: ring << 16 | opcode of the last command timeout
 * @fw_recoveries: firmware recoveries done (connections replayed)
 * @fw_replayed: connections re-sent by the last firmware recovery
 * @cmd_resyncs: "cmd" recoveries that found table commands unexecuted and
 *	re-programmed the fast path and ntuple tables
 * @cmd_replayed: connections re-sent by the last of those
 */
struct npuep_dlx {
	struct npuep_cmdq cmdq[NPU_CMD_RINGS];
	wait_queue_head_t cmd_wq;
	bool fastpath;
	bool revive;
	u8 flow_cmd_ring;
	bool flow_cmd_posted;
	void *trap_ctx[NPU_PUNT_MAX];
	struct devlink_health_reporter *cmd_reporter;
	struct devlink_health_reporter *fw_reporter;
	struct devlink_region *region;
	u32 region_entries;
	struct delayed_work health_work;
	bool stopping;
	bool cmd_timeout_pending;
	bool fw_faulted;
	u32 last_timeout;
	u64 fw_recoveries;
	u32 fw_replayed;
	u64 cmd_resyncs;
	u32 cmd_replayed;
};

/* cmd.c */
int npuep_cmd_exec_ring(struct npuep_dev *ndev, u32 ring, u16 opcode,
			const void *req, u16 req_len, void *resp, u16 resp_len);
int npuep_cmd_post(struct npuep_dev *ndev, u32 ring, u16 opcode,
		   const void *req, u16 req_len);
int npuep_cmd_post_atomic(struct npuep_dev *ndev, u32 ring, u16 opcode,
			  const void *req, u16 req_len);
int npuep_cmd_post_queued(struct npuep_dev *ndev, u32 ring, u16 opcode,
			  const void *req, u16 req_len, bool *queued);
void npuep_cmd_ring_state(struct npuep_dev *ndev, u32 ring, u32 *head,
			  u32 *tail, u16 *seq);
int npuep_cmd_ring_reset(struct npuep_dev *ndev, u32 ring, bool *lost);

/* health.c */
int npuep_dlx_register(struct npuep_dev *ndev);
void npuep_dlx_unregister(struct npuep_dev *ndev);
int npuep_health_create(struct npuep_dev *ndev);
void npuep_health_stop(struct npuep_dev *ndev);
void npuep_health_destroy(struct npuep_dev *ndev);
void npuep_health_cmd_timeout(struct npuep_dev *ndev, u32 ring, u16 opcode);
int npuep_region_create(struct npuep_dev *ndev);
void npuep_region_destroy(struct npuep_dev *ndev);

/* trap.c */
int npuep_traps_register(struct npuep_dev *ndev);
void npuep_traps_unregister(struct npuep_dev *ndev);
struct npuep_port;
int npuep_trap_init(struct devlink *devlink, const struct devlink_trap *trap,
		    void *trap_ctx);
void npuep_trap_fini(struct devlink *devlink, const struct devlink_trap *trap,
		     void *trap_ctx);
int npuep_trap_action_set(struct devlink *devlink,
			  const struct devlink_trap *trap,
			  enum devlink_trap_action action,
			  struct netlink_ext_ack *extack);
void npuep_trap_report(struct npuep_port *port, struct sk_buff *skb, u8 reason);

/* devlink.c */
int npuep_devlink_resources_register(struct npuep_dev *ndev);
void npuep_devlink_fastpath_apply(struct npuep_dev *ndev);

/* flow.c */
int npuep_flow_replay(struct npuep_dev *ndev);
u32 npuep_flow_snapshot(struct npuep_dev *ndev, struct npu_conn_stat *out,
			u32 n);

#endif /* _NPUEP_DLX_H */
