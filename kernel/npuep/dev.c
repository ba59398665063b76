// SPDX-License-Identifier: GPL-2.0
/*
 * npuep: the device's state, brought up and taken down in one order.
 *
 * The state the driver keeps the coprocessor in: the fast path's tables
 * (the connections of the shadow table, flow.c, and its region), the fast
 * path's settings (the devlink params fastpath and revive), the trap
 * policers and their groups' bindings (trap.c), the ports and their
 * configuration (port.c) and the ntuple rules (ntuple.c).  Probe, a devlink
 * reload and a health recovery bring it up with npuep_dev_up(); remove and
 * a reload take it down with npuep_dev_down().  Each does what its event
 * needs, in the one order: the tables first (a table reset empties what the
 * later steps write into), then the settings and policers, the traps, the
 * ports, and the rules last:
 *
 *   up       tables           settings, policers  traps       ports     rules
 *   probe    made             (by the two after)  registered  created   cleared
 *   reload   resized          if replaced         registered  reopened  replayed
 *   recover  reset, replayed  written again       -           -         replayed
 *
 * Down goes the other way: the ports first (a reload closes them, remove
 * destroys them, link events stopped before), then the traps, then the
 * region and the table (remove frees them).  A reload freezes the table
 * before anything else: a resize is refused while connections are
 * offloaded, and then nothing is taken down.
 *
 * Probe ends by watching the netdev events that end PPPoE sessions
 * (flow_session.c); remove stops that first.
 *
 * What lives as long as the binding stays with the caller (main.c,
 * devlink.c): the command channel, the devlink instance, its params,
 * resources and health reporters, the safety-net poll.  A reload keeps the
 * netdevs registered (port.c); a recovery keeps every driver object.
 */
#include "npuep.h"

/* The flow table's sizes in the devlink resources; false when unknown. */
static bool npuep_dev_ft_size(struct npuep_dev *ndev, u64 *conns,
			      u64 *mflows)
{
	return !devl_resource_size_get(ndev->devlink, NPUEP_RES_CONNS, conns) &&
	       !devl_resource_size_get(ndev->devlink, NPUEP_RES_MFLOWS, mflows);
}

/* The driverinit params a reload applies: rx_doorbells. */
static void npuep_dev_driverinit_load(struct npuep_dev *ndev)
{
	union devlink_param_value val;
	int err;

	err = devl_param_driverinit_value_get(ndev->devlink,
					      NPUEP_DL_PARAM_ID_RX_DOORBELLS,
					      &val);
	if (!err)
		ndev->rx_doorbells = val.vbool;
}

/**
 * npuep_dev_fastpath_apply() - push the fast-path params to the device
 * @ndev: the coprocessor (after a flow-table reset or re-creation)
 *
 * And the trap policers and their bindings, which a firmware fault resets
 * (npuep_policers_apply()).
 */
void npuep_dev_fastpath_apply(struct npuep_dev *ndev)
{
	npuep_wr32(ndev, NPU_REG_FASTPATH, READ_ONCE(ndev->dlx.fastpath));
	if (ndev->ft)
		WRITE_ONCE(ndev->ft->revive, READ_ONCE(ndev->dlx.revive));
	npuep_policers_apply(ndev);
}

/*
 * A reload's tables: the flow-table sizes of the devlink resources
 * applied, a new shadow table and NPU_CMD_FT_CONFIG with the new sizes
 * (npuep_dev_down() made sure no connection is offloaded); a table
 * replaced gets the fast-path params and its region again.  A failure falls
 * back to the default sizes, or to no fast path; either way the bring-up
 * goes on.
 */
static int npuep_dev_resize(struct npuep_dev *ndev,
			    struct netlink_ext_ack *extack)
{
	bool replaced = false;
	u64 conns, mflows;
	int err;

	if (!npuep_dev_ft_size(ndev, &conns, &mflows))
		return 0;
	err = npuep_flow_resize(ndev, conns, mflows, &replaced);
	if (err && ndev->ft)
		NL_SET_ERR_MSG_MOD(extack, "flow table resize failed, back to the default sizes");
	else if (err)
		NL_SET_ERR_MSG_MOD(extack,
				   "flow table resize failed: no fast path until the next reload");
	if (replaced) {
		if (ndev->ft)
			npuep_dev_fastpath_apply(ndev);
		npuep_flow_region_create(ndev);
	}
	return err;
}

/*
 * Probe: a table of the default sizes (the resources' at first) and its
 * region, the traps, whose registration writes the policers and bindings,
 * and the ports, each with its ntuple table cleared and told its MTU.
 * Return: 0 or a negative errno, with nothing of it left.
 */
static int npuep_dev_up_probe(struct npuep_dev *ndev)
{
	int err;

	err = npuep_flow_init(ndev, NPUEP_FT_CONNS_DEFAULT,
			      NPUEP_FT_MFLOWS_DEFAULT);
	if (err)
		return err;
	err = npuep_flow_region_create(ndev);
	if (err)
		goto err_flow;
	npuep_trap_cfg_init(ndev);
	err = npuep_traps_register(ndev);
	if (err)
		goto err_region;
	err = npuep_port_create_all(ndev);
	if (err)
		goto err_traps;
	err = npuep_session_start(ndev);
	if (err)
		goto err_ports;
	return 0;

err_ports:
	npuep_port_destroy_all(ndev);
err_traps:
	npuep_traps_unregister(ndev);
err_region:
	npuep_flow_region_destroy(ndev);
err_flow:
	npuep_flow_fini(ndev);
	return err;
}

/*
 * Reload: the table resized, the traps registered again with the values in
 * force, the driverinit params loaded, the ports reopened, the ntuple rules
 * written again.  Return: the resize's error, else the ports', else 0; a
 * trap registration that fails ends it at once.
 */
static int npuep_dev_up_reload(struct npuep_dev *ndev,
			       struct netlink_ext_ack *extack)
{
	int err, rerr;

	/* The table is replaced (or its freeze ended) whatever else fails. */
	rerr = npuep_dev_resize(ndev, extack);
	err = npuep_traps_register(ndev);
	if (err) {
		NL_SET_ERR_MSG_MOD(extack, "failed to register the traps");
		return err;
	}
	npuep_dev_driverinit_load(ndev);
	err = npuep_port_open_all(ndev);
	if (err)
		NL_SET_ERR_MSG_MOD(extack, "failed to reopen a port's datapath");
	/* A reinit starts from clean tables: the ntuple rules are written again. */
	if (npuep_ntuple_replay(ndev) < 0 && !err)
		NL_SET_ERR_MSG_MOD(extack,
				   "an ntuple rule could not be written again (see the kernel log)");
	return rerr ?: err;
}

/*
 * Recovery: bring the device's tables back in step with the host's: the
 * fast path emptied and every shadow connection written again,
 * fastpath/revive and the policers re-applied, the ntuple rules replayed.
 * Return: connections written or a negative errno.
 */
static int npuep_dev_up_recover(struct npuep_dev *ndev,
				struct netlink_ext_ack *extack)
{
	int n, err;

	n = npuep_flow_replay(ndev);
	if (n < 0) {
		NL_SET_ERR_MSG_MOD(extack, "fast path reset or replay failed");
		return n;
	}
	npuep_dev_fastpath_apply(ndev);
	err = npuep_ntuple_replay(ndev);
	if (err < 0) {
		NL_SET_ERR_MSG_MOD(extack, "ntuple rules replay failed");
		return err;
	}
	return n;
}

/**
 * npuep_dev_up() - bring the device's state up
 * @ndev: the coprocessor; devlink instance lock held
 * @ev: NPUEP_DEV_PROBE, NPUEP_DEV_RELOAD or NPUEP_DEV_RECOVER
 * @extack: what failed, for a reload or a recovery (may be NULL)
 *
 * The steps of @ev in the order the head of this file gives.
 *
 * Return: for a recovery, the connections written again (the reporters'
 * "replayed"), else 0; or a negative errno: a probe that fails leaves
 * nothing of it; a reload whose resize fails still reopens the ports; a
 * recovery stops at its first failure.
 */
int npuep_dev_up(struct npuep_dev *ndev, enum npuep_dev_event ev,
		 struct netlink_ext_ack *extack)
{
	devl_assert_locked(ndev->devlink);
	switch (ev) {
	case NPUEP_DEV_PROBE:
		return npuep_dev_up_probe(ndev);
	case NPUEP_DEV_RELOAD:
		return npuep_dev_up_reload(ndev, extack);
	case NPUEP_DEV_RECOVER:
		return npuep_dev_up_recover(ndev, extack);
	default:
		return -EINVAL;
	}
}

/*
 * Reload: the table frozen when the resources' sizes change it (refused
 * while connections are offloaded), every port's datapath closed and its
 * devlink port unregistered, the traps unregistered.
 */
static int npuep_dev_down_reload(struct npuep_dev *ndev,
				 struct netlink_ext_ack *extack)
{
	u64 conns, mflows;
	int err;

	if (npuep_dev_ft_size(ndev, &conns, &mflows)) {
		err = npuep_flow_resize_begin(ndev, conns, mflows, extack);
		if (err)
			return err;
	}
	npuep_port_close_all(ndev);
	/*
	 * A DRIVER_REINIT reload leaves no trap, group or policer registered;
	 * their configuration stays in ndev->dlx for the bring-up.
	 */
	npuep_traps_unregister(ndev);
	return 0;
}

/*
 * Remove: the sessions no longer watched, the ports destroyed, the traps
 * unregistered, the table freed.
 */
static void npuep_dev_down_remove(struct npuep_dev *ndev)
{
	npuep_session_stop(ndev);
	npuep_port_destroy_all(ndev);
	npuep_traps_unregister(ndev);
	npuep_flow_region_destroy(ndev);
	npuep_flow_fini(ndev);
}

/**
 * npuep_dev_down() - take the device's state down
 * @ndev: the coprocessor; devlink instance lock held
 * @ev: NPUEP_DEV_RELOAD or NPUEP_DEV_REMOVE
 * @extack: why a reload is refused (may be NULL)
 *
 * Return: 0, or a negative errno when a reload is refused (-EBUSY: a resize
 * while connections are offloaded); nothing was taken down then.
 */
int npuep_dev_down(struct npuep_dev *ndev, enum npuep_dev_event ev,
		   struct netlink_ext_ack *extack)
{
	devl_assert_locked(ndev->devlink);
	switch (ev) {
	case NPUEP_DEV_RELOAD:
		return npuep_dev_down_reload(ndev, extack);
	case NPUEP_DEV_REMOVE:
		npuep_dev_down_remove(ndev);
		return 0;
	default:
		return -EINVAL;
	}
}
