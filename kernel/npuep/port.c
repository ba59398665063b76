// SPDX-License-Identifier: GPL-2.0
/*
 * npuep front ports: one netdev and one devlink port per front port, the
 * netdev's ops, and the port's configuration on the device (NPU_CMD_PORT_CFG:
 * the MTU, and whether the host side is up).
 *
 * A devlink reload closes every port's datapath and unregisters its devlink
 * port (npuep_port_close_all()), then reopens them (npuep_port_open_all()):
 * the netdevs stay registered, so their names, addresses, routes, XDP and tc
 * state survive it.
 */
#include <linux/etherdevice.h>
#include <linux/rtnetlink.h>

#include "npuep.h"

/**
 * npuep_port_update_link() - the carrier from the port's link register
 * @port: the port
 */
void npuep_port_update_link(struct npuep_port *port)
{
	u32 link = npuep_rd32(port->ndev, port->reg + NPU_PORT_LINK);

	if (link & NPU_LINK_UP)
		netif_carrier_on(port->netdev);
	else
		netif_carrier_off(port->netdev);
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
static int npuep_devlink_port_register(struct npuep_port *port)
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
 * npuep_devlink_port_unregister() - unregister a front port's devlink port
 * @port: the port; called with the instance lock held
 */
static void npuep_devlink_port_unregister(struct npuep_port *port)
{
	if (!port->dl_registered)
		return;
	port->dl_registered = false;
	devl_port_unregister(&port->dl_port);
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
static void npuep_devlink_port_detach(struct npuep_port *port)
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
static int npuep_devlink_port_reattach(struct npuep_port *port)
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

/*
 * Tell the device a port's MTU (the netdev's) and whether its host side
 * is up (wire carrier on), with NPU_CMD_PORT_CFG on the high ring.
 * Return: 0 or a negative errno from npuep_cmd_exec().
 */
static int npuep_port_cfg_push(struct npuep_port *port, bool up)
{
	struct npu_cmd_port_cfg cfg = {
		.port = cpu_to_le16(port->idx),
		.mtu = cpu_to_le16(READ_ONCE(port->netdev->mtu)),
		.up = up,
	};

	return npuep_cmd_exec(port->ndev, NPU_CMD_PORT_CFG, &cfg, sizeof(cfg),
			      NULL, 0);
}

static int npuep_open(struct net_device *netdev)
{
	struct npuep_port *port = netdev_priv(netdev);
	int err;

	if (port->ndev->reloading)
		return 0;	/* npuep_port_open_all() opens it */
	err = npuep_dp_open(port);
	if (err)
		return err;
	err = npuep_port_cfg_push(port, true);
	if (err) {
		netdev_err(netdev, "PORT_CFG up failed: %d\n", err);
		npuep_dp_close(port);
	}
	return err;
}

static int npuep_stop(struct net_device *netdev)
{
	struct npuep_port *port = netdev_priv(netdev);

	if (!port->ndev->reloading)
		npuep_port_cfg_push(port, false);
	npuep_dp_close(port);
	return 0;
}

/*
 * An MTU whose frames need receive buffers of another page order rebuilds a
 * running port's queues, as ethtool -G and -L do (npuep_port_reconfigure());
 * within the same order only the device is told.
 */
static int npuep_change_mtu(struct net_device *netdev, int new_mtu)
{
	struct npuep_port *port = netdev_priv(netdev);
	unsigned int old = netdev->mtu;
	bool rebuild;
	int err;

	if (READ_ONCE(port->xdp_prog) && new_mtu > NPUEP_XDP_MAX_MTU) {
		netdev_err(netdev, "MTU %d refused with an XDP program attached: one-page receive buffers hold MTU %d at most (no multi-buffer XDP)\n",
			   new_mtu, NPUEP_XDP_MAX_MTU);
		return -EINVAL;
	}
	rebuild = port->dp_open && npuep_rx_order(new_mtu) != port->rx_order;
	if (rebuild) {
		err = npuep_port_reconfigure(port, port->nq, port->rx_ring_size,
					     port->tx_ring_size, new_mtu, NULL);
		if (err)
			return err;
	} else {
		WRITE_ONCE(netdev->mtu, new_mtu);
	}
	err = npuep_port_cfg_push(port, netif_running(netdev));
	if (err) {
		netdev_err(netdev, "PORT_CFG mtu %d failed: %d\n", new_mtu, err);
		if (rebuild)
			npuep_port_reconfigure(port, port->nq,
					       port->rx_ring_size,
					       port->tx_ring_size, old, NULL);
		else
			WRITE_ONCE(netdev->mtu, old);
	}
	return err;
}

static void npuep_get_stats64(struct net_device *netdev,
			      struct rtnl_link_stats64 *stats)
{
	struct npuep_port *port = netdev_priv(netdev);
	struct npuep_qp_stats s;
	unsigned int q;

	for (q = 0; q < port->ndev->nqueues; q++) {
		npuep_qp_stats_read(&port->qps[q], &s);
		stats->rx_packets += s.rx_packets;
		stats->rx_bytes += s.rx_bytes;
		stats->rx_dropped += s.rx_drops;
		stats->rx_errors += s.rx_bad_desc;
		stats->tx_packets += s.tx_packets;
		stats->tx_bytes += s.tx_bytes;
		stats->tx_dropped += s.tx_drops;
	}
}

static int npuep_set_features(struct net_device *netdev,
			      netdev_features_t features)
{
	struct npuep_port *port = netdev_priv(netdev);
	u32 busy;

	if ((netdev->features & NETIF_F_HW_TC) && !(features & NETIF_F_HW_TC)) {
		busy = npuep_flow_tc_busy(port);
		if (busy) {
			netdev_err(netdev,
				   "hw-tc-offload: %u offloaded tc flower rules, delete them first\n",
				   busy);
			return -EBUSY;
		}
	}
	/* ntuple off: the rules go, from the device and the driver. */
	if ((netdev->features & NETIF_F_NTUPLE) && !(features & NETIF_F_NTUPLE))
		return npuep_ntuple_clear(port);
	return 0;
}

static const struct net_device_ops npuep_netdev_ops = {
	.ndo_open = npuep_open,
	.ndo_stop = npuep_stop,
	.ndo_start_xmit = npuep_start_xmit,
	.ndo_features_check = npuep_features_check,
	.ndo_change_mtu = npuep_change_mtu,
	.ndo_get_stats64 = npuep_get_stats64,
	.ndo_set_features = npuep_set_features,
	.ndo_validate_addr = eth_validate_addr,
	.ndo_setup_tc = npuep_setup_tc,
	.ndo_bpf = npuep_ndo_bpf,
	.ndo_xdp_xmit = npuep_xdp_xmit,
};

/**
 * npuep_port_close_all() - close every port's datapath for a reload
 * @ndev: the coprocessor
 *
 * The netdevs stay registered (names, addresses and other state survive);
 * ndo_open and ndo_stop leave the datapath alone until npuep_port_open_all().
 */
void npuep_port_close_all(struct npuep_dev *ndev)
{
	unsigned int p;

	rtnl_lock();
	ndev->reloading = true;
	for (p = 0; p < ndev->nports; p++) {
		if (!ndev->ports[p])
			continue;
		npuep_dp_close(ndev->ports[p]);
		npuep_devlink_port_detach(ndev->ports[p]);
	}
	rtnl_unlock();
}

/**
 * npuep_port_open_all() - reopen the datapath of every running port
 * @ndev: the coprocessor
 *
 * Return: 0, or the first error (other ports are still reopened).
 */
int npuep_port_open_all(struct npuep_dev *ndev)
{
	unsigned int p;
	int err, ret = 0;

	rtnl_lock();
	ndev->reloading = false;
	for (p = 0; p < ndev->nports; p++) {
		struct npuep_port *port = ndev->ports[p];

		if (!port)
			continue;
		err = npuep_devlink_port_reattach(port);
		if (err) {
			netdev_err(port->netdev, "devlink port: %d\n", err);
			if (!ret)
				ret = err;
			continue;
		}
		if (!netif_running(port->netdev)) {
			/* It may have been stopped during the reload. */
			npuep_port_cfg_push(port, false);
			continue;
		}
		err = npuep_dp_open(port);
		if (!err)
			err = npuep_port_cfg_push(port, true);
		if (err) {
			netdev_err(port->netdev, "reopen failed: %d\n", err);
			if (!ret)
				ret = err;
		}
	}
	rtnl_unlock();
	return ret;
}

/* A new port's ring, budget and moderation defaults. */
static void npuep_port_defaults(struct npuep_port *port)
{
	port->rx_ring_size = NPUEP_RING_DEFAULT;
	port->tx_ring_size = NPUEP_RING_DEFAULT;
	port->rx_budget = NPUEP_RX_BUDGET_MAX;
	/*
	 * A doorbell per frame: the device masks the vector until NAPI has
	 * finished its pass, so the interrupt rate is bounded by the passes.
	 * A coarser moderation delays single frames behind the safety-net
	 * poll (docs/measurements.md, "Doorbell moderation").
	 */
	port->coal_usecs = 0;
	port->coal_frames = 1;
}

static int npuep_port_qps_alloc(struct npuep_port *port)
{
	u32 q;

	port->qps = kcalloc(port->nq, sizeof(*port->qps), GFP_KERNEL);
	if (!port->qps)
		return -ENOMEM;
	for (q = 0; q < port->nq; q++) {
		struct npuep_qp *qp = &port->qps[q];

		qp->port = port;
		qp->idx = q;
		qp->reg = NPU_REG_QP(port->idx, q);
		qp->irq = -1;
		u64_stats_init(&qp->stats.syncp);
		u64_stats_init(&qp->stats.xsyncp);
	}
	return 0;
}

/* The port's MAC address from its registers, or a random one if invalid. */
static void npuep_port_mac(struct npuep_port *port)
{
	struct npuep_dev *ndev = port->ndev;
	u8 addr[ETH_ALEN];
	u32 lo, hi;

	lo = npuep_rd32(ndev, port->reg + NPU_PORT_MAC_LO);
	hi = npuep_rd32(ndev, port->reg + NPU_PORT_MAC_HI);
	addr[0] = lo & 0xff;
	addr[1] = (lo >> 8) & 0xff;
	addr[2] = (lo >> 16) & 0xff;
	addr[3] = (lo >> 24) & 0xff;
	addr[4] = hi & 0xff;
	addr[5] = (hi >> 8) & 0xff;
	if (is_valid_ether_addr(addr)) {
		eth_hw_addr_set(port->netdev, addr);
	} else {
		dev_warn(ndev->dev, "port %u: invalid MAC %pM, using a random one\n",
			 port->idx + 1, addr);
		eth_hw_addr_random(port->netdev);
	}
}

/* Operations and features, as the device's capabilities allow. */
static void npuep_port_features(struct npuep_port *port)
{
	struct net_device *netdev = port->netdev;
	u32 caps = port->ndev->caps;

	netdev->netdev_ops = &npuep_netdev_ops;
	netdev->ethtool_ops = &npuep_ethtool_ops;
	netdev->stat_ops = &npuep_stat_ops;
	/* a frag list is more buffers: npuep_features_check() bounds it */
	netdev->hw_features = NETIF_F_SG | NETIF_F_FRAGLIST | NETIF_F_HIGHDMA |
			      NETIF_F_GRO;
	if (caps & NPU_CAP_CSUM_TX) {
		netdev->hw_features |= NETIF_F_HW_CSUM;
		if (caps & NPU_CAP_TSO)
			netdev->hw_features |= NETIF_F_TSO | NETIF_F_TSO6;
	}
	if (caps & NPU_CAP_CSUM_RX)
		netdev->hw_features |= NETIF_F_RXCSUM;
	if (caps & NPU_CAP_RSS)
		netdev->hw_features |= NETIF_F_RXHASH;
	netdev->hw_features |= NETIF_F_HW_TC;
	if (caps & NPU_CAP_NTUPLE)
		netdev->hw_features |= NETIF_F_NTUPLE;
	netdev->features = netdev->hw_features;
	netdev->vlan_features = netdev->hw_features;
	netdev->min_mtu = ETH_MIN_MTU;
	netdev->max_mtu = NPUEP_MAX_MTU;
	netdev->xdp_features = NETDEV_XDP_ACT_BASIC | NETDEV_XDP_ACT_REDIRECT |
			       NETDEV_XDP_ACT_NDO_XMIT;
	netdev->xdp_metadata_ops = &npuep_xdp_metadata_ops;
}

static int npuep_port_create(struct npuep_dev *ndev, u32 idx)
{
	struct net_device *netdev;
	struct npuep_port *port;
	int err;

	netdev = alloc_etherdev_mqs(sizeof(*port), ndev->nqueues,
				    ndev->nqueues);
	if (!netdev)
		return -ENOMEM;
	SET_NETDEV_DEV(netdev, ndev->dev);
	port = netdev_priv(netdev);
	port->ndev = ndev;
	port->netdev = netdev;
	port->idx = idx;
	port->reg = NPU_REG_PORT(idx);
	port->nq = ndev->nqueues;
	npuep_port_defaults(port);
	err = npuep_port_qps_alloc(port);
	if (err)
		goto err_free_netdev;
	npuep_port_mac(port);
	npuep_port_features(port);

	devl_assert_locked(ndev->devlink);
	err = npuep_devlink_port_register(port);
	if (err)
		goto err_free_qps;
	SET_NETDEV_DEVLINK_PORT(netdev, &port->dl_port);

	npuep_ntuple_port_init(port);
	netif_carrier_off(netdev);
	err = register_netdev(netdev);
	if (err)
		goto err_dl_port;

	ndev->ports[idx] = port;
	npuep_port_update_link(port);
	/* The device starts with the ETH_DATA_LEN MTU and the host side down. */
	npuep_port_cfg_push(port, false);
	return 0;

err_dl_port:
	npuep_devlink_port_unregister(port);
err_free_qps:
	kfree(port->qps);
err_free_netdev:
	free_netdev(netdev);
	return err;
}

static void npuep_port_destroy(struct npuep_port *port)
{
	struct npuep_dev *ndev = port->ndev;
	struct net_device *netdev = port->netdev;
	unsigned long flags;

	unregister_netdev(netdev);	/* ndo_stop closes the datapath */
	spin_lock_irqsave(&ndev->poll_lock, flags);
	ndev->ports[port->idx] = NULL;
	spin_unlock_irqrestore(&ndev->poll_lock, flags);
	npuep_devlink_port_unregister(port);
	npuep_ntuple_free(port);
	kfree(port->qps);
	free_netdev(netdev);
}

/**
 * npuep_port_create_all() - create every front port: netdev, devlink port
 * @ndev: the coprocessor; instance lock held
 *
 * Each port's ntuple table is cleared before its netdev is registered, and
 * the device is told its MTU with the host side down once it is.
 *
 * Return: 0, or the error of the port that failed (logged; the ports made
 * before it are destroyed again).
 */
int npuep_port_create_all(struct npuep_dev *ndev)
{
	u32 p;
	int err;

	for (p = 0; p < ndev->nports; p++) {
		err = npuep_port_create(ndev, p);
		if (err) {
			dev_err(ndev->dev, "port %u: %d\n", p + 1, err);
			npuep_port_destroy_all(ndev);
			return err;
		}
	}
	return 0;
}

/**
 * npuep_port_destroy_all() - destroy every port, the last first
 * @ndev: the coprocessor; instance lock held
 *
 * Link events stop first: the link work reads the ports without a lock.
 * Each netdev's ndo_stop tells the device its host side is down.
 */
void npuep_port_destroy_all(struct npuep_dev *ndev)
{
	unsigned int p;

	npuep_link_events_stop(ndev);
	for (p = ndev->nports; p--;)
		if (ndev->ports[p])
			npuep_port_destroy(ndev->ports[p]);
}
