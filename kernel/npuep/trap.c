// SPDX-License-Identifier: GPL-2.0
/*
 * npuep devlink traps: one trap per punt reason, in three groups by kind,
 * each group bound to a trap policer the coprocessor executes (policer.c).
 *
 *  - npu_new_conn: frames of connections not in hardware (flow miss, fast
 *    path off, ntuple steered): what a flood of new connections is made of;
 *  - npu_conn_state: the punts that keep offloaded connections right (TCP
 *    SYN/FIN/RST, frames of a given-back connection): never starved by a
 *    flood in another group, or connections are stranded in hardware;
 *  - npu_host: exceptions and traffic to the host itself (ARP/ND, ICMP,
 *    multicast, MTU, malformed).
 *
 * The coprocessor punts a frame to the host with its reason; every punted
 * frame that reaches the stack as an skb is reported to devlink, so
 * "devlink -s trap show" counts them per reason.  Per-reason totals taken
 * by the coprocessor (including frames an XDP program or a policer dropped)
 * are in ethtool -S (hw_punt_<reason>).  None of these traps is a drop
 * trap: the devlink core keeps their action at "trap".
 */
#include "npuep.h"

#define NPUEP_TRAP_GROUP_NEW_CONN	(DEVLINK_TRAP_GROUP_GENERIC_ID_MAX + 1)
#define NPUEP_TRAP_GROUP_CONN_STATE	(DEVLINK_TRAP_GROUP_GENERIC_ID_MAX + 2)
#define NPUEP_TRAP_GROUP_HOST		(DEVLINK_TRAP_GROUP_GENERIC_ID_MAX + 3)
#define NPUEP_TRAP_ID(reason)	(DEVLINK_TRAP_GENERIC_ID_MAX + (reason))

/* At probe each group has the policer of the same number (policer.c). */
static const struct devlink_trap_group npuep_trap_groups[NPUEP_TRAP_GROUPS] = {
	{
		.name = "npu_new_conn",
		.id = NPUEP_TRAP_GROUP_NEW_CONN,
		.init_policer_id = 1,
	},
	{
		.name = "npu_conn_state",
		.id = NPUEP_TRAP_GROUP_CONN_STATE,
		.init_policer_id = 2,
	},
	{
		.name = "npu_host",
		.id = NPUEP_TRAP_GROUP_HOST,
		.init_policer_id = 3,
	},
};

#define NPUEP_TRAP(_type, _reason, _name, _group)			\
	DEVLINK_TRAP_DRIVER(_type, TRAP, NPUEP_TRAP_ID(_reason), _name,	\
			    NPUEP_TRAP_GROUP_##_group,			\
			    DEVLINK_TRAP_METADATA_TYPE_F_IN_PORT)

static const struct devlink_trap npuep_traps[] = {
	NPUEP_TRAP(CONTROL, NPU_PUNT_FLOW_MISS, "npu_flow_miss", NEW_CONN),
	NPUEP_TRAP(CONTROL, NPU_PUNT_NOT_ACTIVE, "npu_not_active", CONN_STATE),
	NPUEP_TRAP(CONTROL, NPU_PUNT_TCP_FLAGS, "npu_tcp_flags", CONN_STATE),
	NPUEP_TRAP(EXCEPTION, NPU_PUNT_EXCEPTION, "npu_exception", HOST),
	NPUEP_TRAP(EXCEPTION, NPU_PUNT_MTU, "npu_mtu", HOST),
	NPUEP_TRAP(CONTROL, NPU_PUNT_NON_IP, "npu_non_ip", HOST),
	NPUEP_TRAP(CONTROL, NPU_PUNT_MCAST, "npu_mcast", HOST),
	NPUEP_TRAP(CONTROL, NPU_PUNT_FASTPATH_OFF, "npu_fastpath_off", NEW_CONN),
	NPUEP_TRAP(CONTROL, NPU_PUNT_NTUPLE, "npu_ntuple", NEW_CONN),
	NPUEP_TRAP(EXCEPTION, NPU_PUNT_MALFORMED, "npu_malformed", HOST),
};

static int npuep_trap_reason(const struct devlink_trap *trap)
{
	int reason = trap->id - DEVLINK_TRAP_GENERIC_ID_MAX;

	return reason > NPU_PUNT_NONE && reason < NPU_PUNT_MAX ? reason : -1;
}

/**
 * npuep_trap_init() - devlink_ops.trap_init: remember the trap's context
 * @devlink: the instance
 * @trap: one of npuep_traps[]
 * @trap_ctx: devlink's context, for devlink_trap_report()
 *
 * Return: 0 or -EINVAL.
 */
int npuep_trap_init(struct devlink *devlink, const struct devlink_trap *trap,
		    void *trap_ctx)
{
	struct npuep_dev *ndev = devlink_priv(devlink);
	int reason = npuep_trap_reason(trap);

	if (reason < 0)
		return -EINVAL;
	WRITE_ONCE(ndev->dlx.trap_ctx[reason], trap_ctx);
	return 0;
}

/**
 * npuep_trap_fini() - devlink_ops.trap_fini
 * @devlink: the instance
 * @trap: the trap
 * @trap_ctx: its context
 */
void npuep_trap_fini(struct devlink *devlink, const struct devlink_trap *trap,
		     void *trap_ctx)
{
	struct npuep_dev *ndev = devlink_priv(devlink);
	int reason = npuep_trap_reason(trap);

	if (reason >= 0)
		WRITE_ONCE(ndev->dlx.trap_ctx[reason], NULL);
}

/**
 * npuep_trap_action_set() - devlink_ops.trap_action_set
 * @devlink: the instance
 * @trap: the trap
 * @action: the new action
 * @extack: error reporting
 *
 * Punts always reach the host: only "trap" is accepted (the core does not
 * even ask for non-drop traps).
 *
 * Return: 0 or -EOPNOTSUPP.
 */
int npuep_trap_action_set(struct devlink *devlink,
			  const struct devlink_trap *trap,
			  enum devlink_trap_action action,
			  struct netlink_ext_ack *extack)
{
	if (action == DEVLINK_TRAP_ACTION_TRAP)
		return 0;
	NL_SET_ERR_MSG_MOD(extack, "npu punts always reach the host");
	return -EOPNOTSUPP;
}

/**
 * npuep_trap_report() - count a punted frame that reached the stack
 * @port: the ingress port
 * @skb: the frame (skb->dev set)
 * @reason: its punt reason, not NPU_PUNT_NONE
 *
 * From NAPI; cheap: a per-CPU counter update in the devlink core.
 */
void npuep_trap_report(struct npuep_port *port, struct sk_buff *skb, u8 reason)
{
	struct npuep_dev *ndev = port->ndev;
	void *ctx;

	if (unlikely(reason >= NPU_PUNT_MAX))
		return;
	ctx = READ_ONCE(ndev->dlx.trap_ctx[reason]);
	if (ctx)
		devlink_trap_report(ndev->devlink, skb, ctx,
				    port->dl_registered ? &port->dl_port : NULL,
				    NULL);
}

/* The device's policer map of every reason of @group_id: @policer_id. */
static void npuep_trap_group_map(struct npuep_dev *ndev, u16 group_id,
				 u32 policer_id)
{
	unsigned int i;
	int reason;

	for (i = 0; i < ARRAY_SIZE(npuep_traps); i++) {
		reason = npuep_trap_reason(&npuep_traps[i]);
		if (npuep_traps[i].init_group_id == group_id && reason >= 0)
			npuep_wr32(ndev, NPU_REG_POLICER_MAP(reason), policer_id);
	}
}

static struct devlink_trap_group *
npuep_trap_group_cfg(struct npuep_dev *ndev, u16 id)
{
	unsigned int i;

	for (i = 0; i < NPUEP_TRAP_GROUPS; i++)
		if (ndev->dlx.trap_groups[i].id == id)
			return &ndev->dlx.trap_groups[i];
	return NULL;
}

/**
 * npuep_trap_group_init() - devlink_ops.trap_group_init: bind in the device
 * @devlink: the instance
 * @group: one of ndev->dlx.trap_groups[]
 *
 * Maps the group's punt reasons to its policer (init_policer_id, 0 = none).
 *
 * Return: 0.
 */
int npuep_trap_group_init(struct devlink *devlink,
			  const struct devlink_trap_group *group)
{
	npuep_trap_group_map(devlink_priv(devlink), group->id,
			     group->init_policer_id);
	return 0;
}

/**
 * npuep_trap_group_set() - devlink_ops.trap_group_set: bind to a policer
 * @devlink: the instance; its lock held
 * @group: the group
 * @policer: the policer, or NULL to unbind (policer 0)
 * @extack: error reporting
 *
 * The binding is kept in ndev->dlx.trap_groups[] for the next
 * registration (reload) and for npuep_policers_apply().
 *
 * Return: 0 or -EINVAL.
 */
int npuep_trap_group_set(struct devlink *devlink,
			 const struct devlink_trap_group *group,
			 const struct devlink_trap_policer *policer,
			 struct netlink_ext_ack *extack)
{
	struct npuep_dev *ndev = devlink_priv(devlink);
	struct devlink_trap_group *cfg = npuep_trap_group_cfg(ndev, group->id);
	u32 id = policer ? policer->id : 0;

	if (!cfg || id > NPU_POLICERS) {
		NL_SET_ERR_MSG_MOD(extack, "unknown trap group or policer");
		return -EINVAL;
	}
	WRITE_ONCE(cfg->init_policer_id, id);
	npuep_trap_group_map(ndev, group->id, id);
	return 0;
}

/**
 * npuep_trap_cfg_init() - the groups' and policers' configuration at probe
 * @ndev: the coprocessor, before the first npuep_traps_register()
 */
void npuep_trap_cfg_init(struct npuep_dev *ndev)
{
	BUILD_BUG_ON(sizeof(ndev->dlx.trap_groups) != sizeof(npuep_trap_groups));
	memcpy(ndev->dlx.trap_groups, npuep_trap_groups,
	       sizeof(npuep_trap_groups));
	npuep_policer_cfg_init(ndev);
}

/**
 * npuep_traps_register() - register the policers, trap groups and traps
 * @ndev: the coprocessor; instance lock held
 *
 * With the policers' rates and the groups' bindings in force (at probe the
 * defaults, after a reload what was set before it); registering them
 * programs the device (trap_policer_init, trap_group_init).
 *
 * Return: 0 or a negative errno.
 */
int npuep_traps_register(struct npuep_dev *ndev)
{
	int err;

	err = devl_trap_policers_register(ndev->devlink, ndev->dlx.policers,
					  NPUEP_POLICERS);
	if (err)
		return err;
	err = devl_trap_groups_register(ndev->devlink, ndev->dlx.trap_groups,
					NPUEP_TRAP_GROUPS);
	if (err)
		goto err_policers;
	err = devl_traps_register(ndev->devlink, npuep_traps,
				  ARRAY_SIZE(npuep_traps), ndev);
	if (err)
		goto err_groups;
	return 0;

err_groups:
	devl_trap_groups_unregister(ndev->devlink, ndev->dlx.trap_groups,
				    NPUEP_TRAP_GROUPS);
err_policers:
	devl_trap_policers_unregister(ndev->devlink, ndev->dlx.policers,
				      NPUEP_POLICERS);
	return err;
}

/**
 * npuep_traps_unregister() - unregister the traps, groups and policers
 * @ndev: the coprocessor; instance lock held
 *
 * The device keeps policing meanwhile (a reload is not a window for a
 * flood).
 */
void npuep_traps_unregister(struct npuep_dev *ndev)
{
	devl_traps_unregister(ndev->devlink, npuep_traps,
			      ARRAY_SIZE(npuep_traps));
	devl_trap_groups_unregister(ndev->devlink, ndev->dlx.trap_groups,
				    NPUEP_TRAP_GROUPS);
	devl_trap_policers_unregister(ndev->devlink, ndev->dlx.policers,
				      NPUEP_POLICERS);
}

/**
 * npuep_trap_groups_apply() - write every group's binding to the device
 * @ndev: the coprocessor
 *
 * Only maps that read back different are written.
 */
void npuep_trap_groups_apply(struct npuep_dev *ndev)
{
	unsigned int i;
	u32 id;
	int reason;

	for (i = 0; i < ARRAY_SIZE(npuep_traps); i++) {
		const struct devlink_trap_group *g;

		reason = npuep_trap_reason(&npuep_traps[i]);
		g = npuep_trap_group_cfg(ndev, npuep_traps[i].init_group_id);
		if (reason < 0 || !g)
			continue;
		id = READ_ONCE(g->init_policer_id);
		if (npuep_rd32(ndev, NPU_REG_POLICER_MAP(reason)) != id)
			npuep_wr32(ndev, NPU_REG_POLICER_MAP(reason), id);
	}
}
