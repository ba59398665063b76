// SPDX-License-Identifier: GPL-2.0
/*
 * npuep devlink traps and trap policers: one trap per punt reason, in three
 * groups by kind, each group bound to a trap policer the coprocessor
 * executes.
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
 *
 * The trap policers: three devlink trap policers, one per trap group at
 * probe, executed by the coprocessor (npu_hw.h, "Trap policers") as token
 * buckets before a punted frame takes a receive descriptor.
 * "devlink trap policer set" writes rate and burst to the device,
 * "devlink -s trap policer show" and ethtool -S read its drop counters.
 * The values in force live in ndev->dlx.policers[], registered again at a
 * reload and written again by a firmware recovery (npuep_policers_apply()).
 *
 * Defaults, in frames per second and frames (a frame the policer passes
 * costs the host one receive descriptor and one trip through its stack):
 *
 *  - 1 (npu_new_conn) 100,000/s, burst 8,192: the flow maker needs the
 *    first NPUFLOW_THRESHOLD_DEFAULT (16) frames of each new connection,
 *    so 6,250 new connections a second are made at full speed, and 512
 *    connections starting at once lose none of theirs; connections that
 *    stay on the host (never offloaded) share it: ~1.2 Gbit/s of
 *    1,500-byte frames;
 *  - 2 (npu_conn_state) 100,000/s, burst 8,192: SYN/FIN/RST and a given-back
 *    connection's frames until its revive; its own bucket, so a flood of
 *    new connections cannot starve it;
 *  - 3 (npu_host) 20,000/s, burst 2,048: ARP/ND, ICMP, multicast and the
 *    exceptions, the host's own traffic.
 *
 * Together at most 220,000 punts a second reach the host, against 14.9
 * million 64-byte frames a second on one 10G port: a small host keeps its
 * CPU, and a flood in one group leaves the others their share.  The burst
 * sizes are those of the receive rings (1,024 descriptors a queue, up to
 * 16 queues a port).
 */
#include "npuep.h"

#define NPUEP_TRAP_GROUP_NEW_CONN	(DEVLINK_TRAP_GROUP_GENERIC_ID_MAX + 1)
#define NPUEP_TRAP_GROUP_CONN_STATE	(DEVLINK_TRAP_GROUP_GENERIC_ID_MAX + 2)
#define NPUEP_TRAP_GROUP_HOST		(DEVLINK_TRAP_GROUP_GENERIC_ID_MAX + 3)
#define NPUEP_TRAP_ID(reason)	(DEVLINK_TRAP_GENERIC_ID_MAX + (reason))

/* At probe each group has the policer of the same number (below). */
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

#define NPUEP_POLICER(_id, _rate, _burst)				\
	DEVLINK_TRAP_POLICER(_id, _rate, _burst, NPU_POLICER_RATE_MAX,	\
			     1, NPU_POLICER_BURST_MAX, 1)

static const struct devlink_trap_policer npuep_policers[NPUEP_POLICERS] = {
	NPUEP_POLICER(1, 100000, 8192),
	NPUEP_POLICER(2, 100000, 8192),
	NPUEP_POLICER(3, 20000, 2048),
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

static struct devlink_trap_policer *
npuep_policer_cfg(struct npuep_dev *ndev, u32 id)
{
	if (!id || id > NPUEP_POLICERS)
		return NULL;
	return &ndev->dlx.policers[id - 1];
}

/* Burst first: the rate write applies both (npu_hw.h). */
static void npuep_policer_write(struct npuep_dev *ndev, u32 id, u64 rate,
				u64 burst)
{
	npuep_wr32(ndev, NPU_REG_POLICER(id) + NPU_POLICER_BURST, burst);
	npuep_wr32(ndev, NPU_REG_POLICER(id) + NPU_POLICER_RATE, rate);
}

/**
 * npuep_trap_policer_init() - devlink_ops.trap_policer_init
 * @devlink: the instance
 * @policer: one of ndev->dlx.policers[], with the values in force
 *
 * Writes the policer's rate (frames/s) and burst (frames) to the device.
 *
 * Return: 0 or -EINVAL.
 */
int npuep_trap_policer_init(struct devlink *devlink,
			    const struct devlink_trap_policer *policer)
{
	struct npuep_dev *ndev = devlink_priv(devlink);

	if (!npuep_policer_cfg(ndev, policer->id))
		return -EINVAL;
	npuep_policer_write(ndev, policer->id, policer->init_rate,
			    policer->init_burst);
	return 0;
}

/**
 * npuep_trap_policer_set() - devlink_ops.trap_policer_set
 * @devlink: the instance; its lock held
 * @policer: the policer
 * @rate: frames per second, within the policer's bounds (devlink checked)
 * @burst: frames, within the bounds
 * @extack: error reporting
 *
 * The bucket restarts full.  The values are kept for the next registration
 * (reload) and for npuep_policers_apply().
 *
 * Return: 0 or -EINVAL.
 */
int npuep_trap_policer_set(struct devlink *devlink,
			   const struct devlink_trap_policer *policer,
			   u64 rate, u64 burst, struct netlink_ext_ack *extack)
{
	struct npuep_dev *ndev = devlink_priv(devlink);
	struct devlink_trap_policer *cfg = npuep_policer_cfg(ndev, policer->id);

	if (!cfg || !rate || rate > NPU_POLICER_RATE_MAX || !burst ||
	    burst > NPU_POLICER_BURST_MAX) {
		NL_SET_ERR_MSG_MOD(extack, "policer rate or burst out of range");
		return -EINVAL;
	}
	WRITE_ONCE(cfg->init_rate, rate);
	WRITE_ONCE(cfg->init_burst, burst);
	npuep_policer_write(ndev, policer->id, rate, burst);
	return 0;
}

/**
 * npuep_trap_policer_counter_get() - devlink_ops.trap_policer_counter_get
 * @devlink: the instance
 * @policer: the policer
 * @p_drops: frames the device's policer dropped, all ports, since the
 *	device was created
 *
 * Return: 0 or -EINVAL.
 */
int npuep_trap_policer_counter_get(struct devlink *devlink,
				   const struct devlink_trap_policer *policer,
				   u64 *p_drops)
{
	struct npuep_dev *ndev = devlink_priv(devlink);

	if (!npuep_policer_cfg(ndev, policer->id))
		return -EINVAL;
	*p_drops = npuep_rd64(ndev, NPU_REG_POLICER(policer->id) +
			      NPU_POLICER_DROPS);
	return 0;
}

/**
 * npuep_trap_cfg_init() - the groups' and policers' configuration at probe
 * @ndev: the coprocessor, before the first npuep_traps_register()
 */
void npuep_trap_cfg_init(struct npuep_dev *ndev)
{
	BUILD_BUG_ON(NPUEP_POLICERS > NPU_POLICERS);
	BUILD_BUG_ON(sizeof(ndev->dlx.policers) != sizeof(npuep_policers));
	BUILD_BUG_ON(sizeof(ndev->dlx.trap_groups) != sizeof(npuep_trap_groups));
	memcpy(ndev->dlx.trap_groups, npuep_trap_groups,
	       sizeof(npuep_trap_groups));
	memcpy(ndev->dlx.policers, npuep_policers, sizeof(npuep_policers));
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

/* Write every group's binding where the device reads back another. */
static void npuep_trap_groups_apply(struct npuep_dev *ndev)
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

/**
 * npuep_policers_apply() - write the policers and group bindings in force
 * @ndev: the coprocessor
 *
 * After a firmware fault, which resets them in the device (npu_hw.h), and
 * wherever the fast-path parameters are re-applied.  A policer or map that
 * reads back as configured is not written again (a rate write refills the
 * bucket).
 */
void npuep_policers_apply(struct npuep_dev *ndev)
{
	const struct devlink_trap_policer *cfg;
	u64 rate, burst;
	u32 id, reg;

	for (id = 1; id <= NPUEP_POLICERS; id++) {
		cfg = npuep_policer_cfg(ndev, id);
		rate = READ_ONCE(cfg->init_rate);
		burst = READ_ONCE(cfg->init_burst);
		reg = NPU_REG_POLICER(id);
		if (npuep_rd32(ndev, reg + NPU_POLICER_RATE) != rate ||
		    npuep_rd32(ndev, reg + NPU_POLICER_BURST) != burst)
			npuep_policer_write(ndev, id, rate, burst);
	}
	npuep_trap_groups_apply(ndev);
}

/**
 * npuep_policer_sset_count() - ethtool -S entries of the policers
 *
 * Return: the number npuep_policer_get_strings() writes.
 */
int npuep_policer_sset_count(void)
{
	return 1 + NPUEP_POLICERS;
}

/**
 * npuep_policer_get_strings() - names of the policers' ethtool -S entries
 * @data: cursor into the strings buffer, advanced
 *
 * hw_rx_policer_drops: this port's punts a policer dropped;
 * hw_trap_policer<N>_drops: device wide, policer N's drops (as devlink).
 */
void npuep_policer_get_strings(u8 **data)
{
	unsigned int id;

	ethtool_puts(data, "hw_rx_policer_drops");
	for (id = 1; id <= NPUEP_POLICERS; id++)
		ethtool_sprintf(data, "hw_trap_policer%u_drops", id);
}

/**
 * npuep_policer_get_stats() - values of the policers' ethtool -S entries
 * @port: the port asked about
 * @data: cursor into the values, advanced by npuep_policer_sset_count()
 */
void npuep_policer_get_stats(struct npuep_port *port, u64 **data)
{
	struct npuep_dev *ndev = port->ndev;
	unsigned int id;

	*(*data)++ = npuep_rd64(ndev, NPU_REG_PORT_FP(port->idx) +
				NPU_PORT_FP_PUNT_DROPS);
	for (id = 1; id <= NPUEP_POLICERS; id++)
		*(*data)++ = npuep_rd64(ndev, NPU_REG_POLICER(id) +
					NPU_POLICER_DROPS);
}
