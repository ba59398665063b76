// SPDX-License-Identifier: GPL-2.0
/*
 * npuep devlink: instance, ports, info, parameters and reload.
 */
#include <linux/rtnetlink.h>

#include "npuep.h"

#define NPUEP_POLL_INTERVAL_MAX	1000000	/* 1 s */

enum npuep_devlink_param_id {
	NPUEP_DL_PARAM_ID_BASE = DEVLINK_PARAM_GENERIC_ID_MAX,
	NPUEP_DL_PARAM_ID_POLL_INTERVAL,
	NPUEP_DL_PARAM_ID_RX_DOORBELLS,
};

static int npuep_dl_info_get(struct devlink *devlink,
			     struct devlink_info_req *req,
			     struct netlink_ext_ack *extack)
{
	struct npuep_dev *ndev = devlink_priv(devlink);
	char serial[20];
	int err;

	snprintf(serial, sizeof(serial), "%016llx", ndev->serial);
	err = devlink_info_serial_number_put(req, serial);
	if (err)
		return err;
	return devlink_info_version_running_put(req, "fw", ndev->fw_ver);
}

static int npuep_dl_reload_down(struct devlink *devlink, bool netns_change,
				enum devlink_reload_action action,
				enum devlink_reload_limit limit,
				struct netlink_ext_ack *extack)
{
	struct npuep_dev *ndev = devlink_priv(devlink);

	if (netns_change) {
		NL_SET_ERR_MSG_MOD(extack,
				   "npuep cannot move its netdevs by reload");
		return -EOPNOTSUPP;
	}
	npuep_port_close_all(ndev);
	return 0;
}

static int npuep_dl_reload_up(struct devlink *devlink,
			      enum devlink_reload_action action,
			      enum devlink_reload_limit limit,
			      u32 *actions_performed,
			      struct netlink_ext_ack *extack)
{
	struct npuep_dev *ndev = devlink_priv(devlink);
	union devlink_param_value val;
	int err;

	*actions_performed = BIT(DEVLINK_RELOAD_ACTION_DRIVER_REINIT);
	err = devl_param_driverinit_value_get(devlink,
					      NPUEP_DL_PARAM_ID_RX_DOORBELLS,
					      &val);
	if (!err)
		ndev->rx_doorbells = val.vbool;
	err = npuep_port_open_all(ndev);
	if (err)
		NL_SET_ERR_MSG_MOD(extack, "failed to reopen a port's datapath");
	return err;
}

static const struct devlink_ops npuep_devlink_ops = {
	.reload_actions = BIT(DEVLINK_RELOAD_ACTION_DRIVER_REINIT),
	.reload_down = npuep_dl_reload_down,
	.reload_up = npuep_dl_reload_up,
	.info_get = npuep_dl_info_get,
};

static int npuep_dl_poll_interval_get(struct devlink *devlink, u32 id,
				      struct devlink_param_gset_ctx *ctx)
{
	struct npuep_dev *ndev = devlink_priv(devlink);

	ctx->val.vu32 = READ_ONCE(ndev->poll_interval_us);
	return 0;
}

static int npuep_dl_poll_interval_set(struct devlink *devlink, u32 id,
				      struct devlink_param_gset_ctx *ctx,
				      struct netlink_ext_ack *extack)
{
	struct npuep_dev *ndev = devlink_priv(devlink);

	WRITE_ONCE(ndev->poll_interval_us, ctx->val.vu32);
	npuep_poll_timer_start(ndev);
	return 0;
}

static int npuep_dl_poll_interval_validate(struct devlink *devlink, u32 id,
					   union devlink_param_value val,
					   struct netlink_ext_ack *extack)
{
	if (val.vu32 > NPUEP_POLL_INTERVAL_MAX) {
		NL_SET_ERR_MSG_FMT_MOD(extack,
				       "poll_interval_us is 0 (off) or at most %u",
				       NPUEP_POLL_INTERVAL_MAX);
		return -ERANGE;
	}
	return 0;
}

static const struct devlink_param npuep_devlink_params[] = {
	DEVLINK_PARAM_DRIVER(NPUEP_DL_PARAM_ID_POLL_INTERVAL,
			     "poll_interval_us", DEVLINK_PARAM_TYPE_U32,
			     BIT(DEVLINK_PARAM_CMODE_RUNTIME),
			     npuep_dl_poll_interval_get,
			     npuep_dl_poll_interval_set,
			     npuep_dl_poll_interval_validate),
	DEVLINK_PARAM_DRIVER(NPUEP_DL_PARAM_ID_RX_DOORBELLS,
			     "rx_doorbells", DEVLINK_PARAM_TYPE_BOOL,
			     BIT(DEVLINK_PARAM_CMODE_DRIVERINIT),
			     NULL, NULL, NULL),
};

/**
 * npuep_devlink_alloc() - allocate the devlink instance of a coprocessor
 * @dev: the auxiliary device's struct device
 *
 * Return: the instance (private data: struct npuep_dev) or NULL.
 */
struct devlink *npuep_devlink_alloc(struct device *dev)
{
	return devlink_alloc(&npuep_devlink_ops, sizeof(struct npuep_dev), dev);
}

/**
 * npuep_devlink_params_register() - register parameters, load init values
 * @ndev: the coprocessor; called with the instance lock held
 *
 * Return: 0 or a negative errno.
 */
int npuep_devlink_params_register(struct npuep_dev *ndev)
{
	union devlink_param_value val;
	int err;

	err = devl_params_register(ndev->devlink, npuep_devlink_params,
				   ARRAY_SIZE(npuep_devlink_params));
	if (err)
		return err;
	val.vbool = true;
	devl_param_driverinit_value_set(ndev->devlink,
					NPUEP_DL_PARAM_ID_RX_DOORBELLS, val);
	ndev->rx_doorbells = true;
	return 0;
}

/**
 * npuep_devlink_params_unregister() - unregister the parameters
 * @ndev: the coprocessor; called with the instance lock held
 */
void npuep_devlink_params_unregister(struct npuep_dev *ndev)
{
	devl_params_unregister(ndev->devlink, npuep_devlink_params,
			       ARRAY_SIZE(npuep_devlink_params));
}

/**
 * npuep_devlink_port_register() - register a front port's devlink port
 * @port: the port; called with the instance lock held
 *
 * Flavour physical, number = panel number (port index + 1), one switch id
 * per coprocessor.
 *
 * Return: 0 or a negative errno.
 */
int npuep_devlink_port_register(struct npuep_port *port)
{
	struct npuep_dev *ndev = port->ndev;
	struct devlink_port_attrs attrs = {};
	int err;

	attrs.flavour = DEVLINK_PORT_FLAVOUR_PHYSICAL;
	attrs.phys.port_number = port->idx + 1;
	attrs.switch_id = ndev->switch_id;
	devlink_port_attrs_set(&port->dl_port, &attrs);
	err = devl_port_register(ndev->devlink, &port->dl_port, port->idx);
	port->dl_registered = !err;
	return err;
}

/**
 * npuep_devlink_port_detach() - unregister a port's devlink port for a reload
 * @port: the port; called with the instance lock and rtnl held
 *
 * A DRIVER_REINIT reload must leave no devlink port registered, but the
 * port's netdev stays registered through the reload so that its name,
 * addresses, routes, XDP and tc state survive.  The devlink core ties a
 * port's type to its netdev through the netdev notifier events of
 * register_netdevice() and unregister_netdevice(); NETDEV_PRE_UNINIT, which
 * only devlink acts on, clears the type here as unregistering would.
 */
void npuep_devlink_port_detach(struct npuep_port *port)
{
	ASSERT_RTNL();
	if (!port->dl_registered)
		return;
	call_netdevice_notifiers(NETDEV_PRE_UNINIT, port->netdev);
	npuep_devlink_port_unregister(port);
}

/**
 * npuep_devlink_port_reattach() - register a port's devlink port again
 * @port: the port; called with the instance lock and rtnl held
 *
 * The reverse of npuep_devlink_port_detach(): NETDEV_POST_INIT (again only
 * acted on by devlink) sets the type to Ethernet, then the netdev reference
 * that NETDEV_REGISTER would have set is filled in, so that "devlink port
 * show" names the netdev as before the reload.
 *
 * Return: 0 or a negative errno.
 */
int npuep_devlink_port_reattach(struct npuep_port *port)
{
	struct devlink_port *dl = &port->dl_port;
	struct net_device *netdev = port->netdev;
	int err;

	ASSERT_RTNL();
	err = npuep_devlink_port_register(port);
	if (err)
		return err;
	call_netdevice_notifiers(NETDEV_POST_INIT, netdev);
	if (net_eq(devlink_net(port->ndev->devlink), dev_net(netdev))) {
		spin_lock_bh(&dl->type_lock);
		dl->type_eth.netdev = netdev;
		dl->type_eth.ifindex = netdev->ifindex;
		strscpy(dl->type_eth.ifname, netdev->name,
			sizeof(dl->type_eth.ifname));
		spin_unlock_bh(&dl->type_lock);
	}
	return 0;
}

/**
 * npuep_devlink_port_unregister() - unregister a front port's devlink port
 * @port: the port; called with the instance lock held
 */
void npuep_devlink_port_unregister(struct npuep_port *port)
{
	if (!port->dl_registered)
		return;
	port->dl_registered = false;
	devl_port_unregister(&port->dl_port);
}
