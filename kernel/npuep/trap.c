// SPDX-License-Identifier: GPL-2.0
/*
 * npuep devlink traps: one trap per punt reason, in the group "npu_punt".
 *
 * The coprocessor punts a frame to the host with its reason; every punted
 * frame that reaches the stack as an skb is reported to devlink, so
 * "devlink -s trap show" counts them per reason.  Per-reason totals taken
 * by the coprocessor (including frames an XDP program dropped) are in
 * ethtool -S (hw_punt_<reason>).  None of these traps is a drop trap: the
 * devlink core keeps their action at "trap".
 */
#include "npuep.h"

#define NPUEP_TRAP_GROUP_PUNT	(DEVLINK_TRAP_GROUP_GENERIC_ID_MAX + 1)
#define NPUEP_TRAP_ID(reason)	(DEVLINK_TRAP_GENERIC_ID_MAX + (reason))

static const struct devlink_trap_group npuep_trap_groups[] = {
	{
		.name = "npu_punt",
		.id = NPUEP_TRAP_GROUP_PUNT,
		.generic = false,
	},
};

#define NPUEP_TRAP(_type, _reason, _name)				\
	DEVLINK_TRAP_DRIVER(_type, TRAP, NPUEP_TRAP_ID(_reason), _name,	\
			    NPUEP_TRAP_GROUP_PUNT,			\
			    DEVLINK_TRAP_METADATA_TYPE_F_IN_PORT)

static const struct devlink_trap npuep_traps[] = {
	NPUEP_TRAP(CONTROL, NPU_PUNT_FLOW_MISS, "npu_flow_miss"),
	NPUEP_TRAP(CONTROL, NPU_PUNT_NOT_ACTIVE, "npu_not_active"),
	NPUEP_TRAP(CONTROL, NPU_PUNT_TCP_FLAGS, "npu_tcp_flags"),
	NPUEP_TRAP(EXCEPTION, NPU_PUNT_EXCEPTION, "npu_exception"),
	NPUEP_TRAP(EXCEPTION, NPU_PUNT_MTU, "npu_mtu"),
	NPUEP_TRAP(CONTROL, NPU_PUNT_NON_IP, "npu_non_ip"),
	NPUEP_TRAP(CONTROL, NPU_PUNT_MCAST, "npu_mcast"),
	NPUEP_TRAP(CONTROL, NPU_PUNT_FASTPATH_OFF, "npu_fastpath_off"),
	NPUEP_TRAP(CONTROL, NPU_PUNT_NTUPLE, "npu_ntuple"),
	NPUEP_TRAP(EXCEPTION, NPU_PUNT_MALFORMED, "npu_malformed"),
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

/**
 * npuep_traps_register() - register the trap group and the traps
 * @ndev: the coprocessor; instance lock held
 *
 * Return: 0 or a negative errno.
 */
int npuep_traps_register(struct npuep_dev *ndev)
{
	int err;

	err = devl_trap_groups_register(ndev->devlink, npuep_trap_groups,
					ARRAY_SIZE(npuep_trap_groups));
	if (err)
		return err;
	err = devl_traps_register(ndev->devlink, npuep_traps,
				  ARRAY_SIZE(npuep_traps), ndev);
	if (err)
		devl_trap_groups_unregister(ndev->devlink, npuep_trap_groups,
					    ARRAY_SIZE(npuep_trap_groups));
	return err;
}

/**
 * npuep_traps_unregister() - unregister the traps and the group
 * @ndev: the coprocessor; instance lock held
 */
void npuep_traps_unregister(struct npuep_dev *ndev)
{
	devl_traps_unregister(ndev->devlink, npuep_traps,
			      ARRAY_SIZE(npuep_traps));
	devl_trap_groups_unregister(ndev->devlink, npuep_trap_groups,
				    ARRAY_SIZE(npuep_trap_groups));
}
