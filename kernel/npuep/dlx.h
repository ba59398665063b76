/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npuep: state of the devlink objects beyond the basics (params of the fast
 * path, resources, traps, health, region).  The command channel is cmd.h's.
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
struct npuep_cmdq;
struct npuep_dev;

/* Trap groups and the trap policers, one per group at first (trap.c). */
#define NPUEP_TRAP_GROUPS	3
#define NPUEP_POLICERS		3

/* The driver's devlink params (devlink.c), driverinit ones read by dev.c. */
enum npuep_devlink_param_id {
	NPUEP_DL_PARAM_ID_BASE = DEVLINK_PARAM_GENERIC_ID_MAX,
	NPUEP_DL_PARAM_ID_POLL_INTERVAL,
	NPUEP_DL_PARAM_ID_RX_DOORBELLS,
	NPUEP_DL_PARAM_ID_FASTPATH,
	NPUEP_DL_PARAM_ID_REVIVE,
	NPUEP_DL_PARAM_ID_FLOW_CMD_RING,
	NPUEP_DL_PARAM_ID_FLOW_CMD_POSTED,
};

/* The devlink resources (devlink.c), whose sizes dev.c applies. */
enum npuep_dl_resource_id {
	NPUEP_RES_FASTPATH = 1,
	NPUEP_RES_CONNS,
	NPUEP_RES_MFLOWS,
};

/**
 * struct npuep_health_retry - an automatic recovery that failed, tried again
 * @due: jiffies of the next try (while @ms)
 * @ms: the wait before that try, doubling from NPUEP_HEALTH_RETRY_MS_MIN
 *	to NPUEP_HEALTH_RETRY_MS_MAX; 0 = nothing to try again
 */
struct npuep_health_retry {
	unsigned long due;
	u32 ms;
};

/**
 * struct npuep_dlx - devlink objects of one coprocessor
 * @cmdq: ndev->cmd.q, for the flow code's ethtool counters, which read
 *	the rings' counters there (npuep_cmd_state() is the API)
 * @fastpath: devlink param "fastpath"
 * @revive: devlink param "revive"
 * @flow_cmd_ring: devlink param "flow_cmd_ring" (enum npuep_cmd_ring)
 * @flow_cmd_posted: devlink param "flow_cmd_posted"
 * @trap_ctx: devlink's context of the trap of each punt reason
 * @policers: the trap policers as registered; init_rate and init_burst
 *	follow "devlink trap policer set", so that a reload registers them
 *	again with the values in force (trap.c)
 * @trap_groups: the trap groups as registered; init_policer_id follows
 *	"devlink trap group set ... policer"
 * @cmd_reporter: health reporter "cmd"
 * @fw_reporter: health reporter "fw"
 * @region: region "flow-table"
 * @region_entries: its size in struct npu_conn_stat
 * @health_work: polls NPU_REG_FW_STATUS, reports the command channel's
 *	faults
 * @stopping: no more health reports
 * @cmd_timeout_pending: a command channel fault to report
 * @fw_faulted: a firmware fault was reported and not yet cleared
 * @last_timeout: ring << 16 | opcode of the last command channel fault
 * @fw_recoveries: firmware recoveries done (connections replayed)
 * @fw_replayed: connections re-sent by the last firmware recovery
 * @cmd_resyncs: "cmd" recoveries that found table commands unexecuted and
 *	re-programmed the fast path and ntuple tables
 * @cmd_replayed: connections re-sent by the last of those
 * @cmd_retry: the "cmd" reporter's failed automatic recovery, tried again
 * @fw_retry: the "fw" reporter's
 * @retried: recoveries health_work tried again (both reporters)
 */
struct npuep_dlx {
	struct npuep_cmdq *cmdq;
	bool fastpath;
	bool revive;
	u8 flow_cmd_ring;
	bool flow_cmd_posted;
	void *trap_ctx[NPU_PUNT_MAX];
	struct devlink_trap_policer policers[NPUEP_POLICERS];
	struct devlink_trap_group trap_groups[NPUEP_TRAP_GROUPS];
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
	struct npuep_health_retry cmd_retry;
	struct npuep_health_retry fw_retry;
	u64 retried;
};

/* health.c */
int npuep_health_create(struct npuep_dev *ndev);
void npuep_health_stop(struct npuep_dev *ndev);
void npuep_health_destroy(struct npuep_dev *ndev);

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
void npuep_trap_cfg_init(struct npuep_dev *ndev);
int npuep_trap_group_init(struct devlink *devlink,
			  const struct devlink_trap_group *group);
int npuep_trap_group_set(struct devlink *devlink,
			 const struct devlink_trap_group *group,
			 const struct devlink_trap_policer *policer,
			 struct netlink_ext_ack *extack);
int npuep_trap_policer_init(struct devlink *devlink,
			    const struct devlink_trap_policer *policer);
int npuep_trap_policer_set(struct devlink *devlink,
			   const struct devlink_trap_policer *policer,
			   u64 rate, u64 burst, struct netlink_ext_ack *extack);
int npuep_trap_policer_counter_get(struct devlink *devlink,
				   const struct devlink_trap_policer *policer,
				   u64 *p_drops);
void npuep_policers_apply(struct npuep_dev *ndev);
int npuep_policer_sset_count(void);
void npuep_policer_get_strings(u8 **data);
void npuep_policer_get_stats(struct npuep_port *port, u64 **data);

/* devlink.c */
int npuep_dlx_register(struct npuep_dev *ndev);
void npuep_dlx_unregister(struct npuep_dev *ndev);

/* flow.c */
int npuep_flow_replay(struct npuep_dev *ndev);
int npuep_flow_region_create(struct npuep_dev *ndev);
void npuep_flow_region_destroy(struct npuep_dev *ndev);

#endif /* _NPUEP_DLX_H */
