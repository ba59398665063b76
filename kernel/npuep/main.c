// SPDX-License-Identifier: GPL-2.0
/*
 * npuep - host netdev driver for the npuflow network coprocessor.
 *
 * Binds to auxiliary devices carrying struct npu_hw (kernel/include/npu_hw.h):
 * one devlink instance per coprocessor, one devlink port and one netdev per
 * front port.
 */
#include <linux/debugfs.h>
#include <linux/etherdevice.h>
#include <linux/module.h>
#include <linux/unaligned.h>
#include <linux/rtnetlink.h>

#include "npuep.h"

static void npuep_port_update_link(struct npuep_port *port)
{
	u32 link = npuep_rd32(port->ndev, port->reg + NPU_PORT_LINK);

	if (link & NPU_LINK_UP)
		netif_carrier_on(port->netdev);
	else
		netif_carrier_off(port->netdev);
}

static void npuep_link_work(struct work_struct *work)
{
	struct npuep_dev *ndev = container_of(work, struct npuep_dev,
					      link_work);
	unsigned int p;

	/* Read to clear; every port is re-read, so a lost bit costs nothing. */
	npuep_rd32(ndev, NPU_REG_LINK_CHANGED);
	if (READ_ONCE(ndev->removing))
		return;
	for (p = 0; p < ndev->nports; p++)
		if (ndev->ports[p])
			npuep_port_update_link(ndev->ports[p]);
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
		return 0;	/* reload_up opens the datapath */
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

static int npuep_fw_info(struct npuep_dev *ndev)
{
	struct npu_cmd_fw_info info;
	int err;

	err = npuep_cmd_exec(ndev, NPU_CMD_FW_INFO, NULL, 0, &info,
			     sizeof(info));
	if (err == -EOPNOTSUPP) {
		snprintf(ndev->fw_ver, sizeof(ndev->fw_ver), "%u.%u.%u",
			 ndev->fw_version >> 16, (ndev->fw_version >> 8) & 0xff,
			 ndev->fw_version & 0xff);
		return 0;
	}
	if (err) {
		dev_err(ndev->dev, "FW_INFO failed: %d\n", err);
		return err;
	}
	info.name[sizeof(info.name) - 1] = '\0';
	info.version[sizeof(info.version) - 1] = '\0';
	strscpy(ndev->fw_name, info.name, sizeof(ndev->fw_name));
	strscpy(ndev->fw_ver, info.version, sizeof(ndev->fw_ver));
	if (le32_to_cpu(info.nports) != ndev->nports ||
	    le32_to_cpu(info.nqueues) != ndev->nqueues)
		dev_warn(ndev->dev,
			 "FW_INFO reports %u ports x %u queues, registers %u x %u\n",
			 le32_to_cpu(info.nports), le32_to_cpu(info.nqueues),
			 ndev->nports, ndev->nqueues);
	if (le64_to_cpu(info.serial))
		ndev->serial = le64_to_cpu(info.serial);
	return 0;
}

/* The backend's ops are complete and its registers are an NPU's. */
static int npuep_hw_check(struct auxiliary_device *adev, struct npu_hw *hw)
{
	u32 magic;

	if (!hw->ops || !hw->ops->read32 || !hw->ops->read64 ||
	    !hw->ops->write32 || !hw->ops->irq || !hw->dma_dev)
		return -EINVAL;
	magic = npu_rd32(hw, NPU_REG_MAGIC);
	if (magic != NPU_HW_MAGIC) {
		dev_err(&adev->dev, "bad magic %#x\n", magic);
		return -ENODEV;
	}
	return 0;
}

/*
 * The device's identity and geometry from its registers, and the driver's
 * defaults.  Return: 0, or -EINVAL for a geometry it cannot drive.
 */
static int npuep_dev_setup(struct npuep_dev *ndev, struct devlink *devlink,
			   struct auxiliary_device *adev, struct npu_hw *hw)
{
	init_rwsem(&ndev->ft_sem);
	ndev->devlink = devlink;
	ndev->adev = adev;
	ndev->hw = hw;
	ndev->dev = &adev->dev;
	ndev->nports = npuep_rd32(ndev, NPU_REG_NPORTS);
	ndev->nqueues = npuep_rd32(ndev, NPU_REG_NQUEUES);
	ndev->caps = npuep_rd32(ndev, NPU_REG_CAPS);
	ndev->fw_version = npuep_rd32(ndev, NPU_REG_FW_VERSION);
	ndev->serial = npuep_rd64(ndev, NPU_REG_SERIAL);
	if (!ndev->nports || ndev->nports > NPU_MAX_PORTS ||
	    !ndev->nqueues || ndev->nqueues > NPU_MAX_QUEUES) {
		dev_err(ndev->dev, "unsupported geometry: %u ports x %u queues\n",
			ndev->nports, ndev->nqueues);
		return -EINVAL;
	}
	INIT_WORK(&ndev->link_work, npuep_link_work);
	npuep_poll_init(ndev);
	ndev->poll_interval_us = NPUEP_POLL_INTERVAL_US;
	ndev->rx_doorbells = true;
	return 0;
}

static int npuep_probe(struct auxiliary_device *adev,
		       const struct auxiliary_device_id *id)
{
	struct npu_hw *hw = npu_hw_from_adev(adev);
	struct npuep_dev *ndev;
	struct devlink *devlink;
	u32 p;
	int err;

	err = npuep_hw_check(adev, hw);
	if (err)
		return err;
	devlink = npuep_devlink_alloc(&adev->dev);
	if (!devlink)
		return -ENOMEM;
	ndev = devlink_priv(devlink);
	err = npuep_dev_setup(ndev, devlink, adev, hw);
	if (err)
		goto err_free;

	err = npuep_cmd_init(ndev);
	if (err)
		goto err_free;
	err = npuep_fw_info(ndev);
	if (err)
		goto err_cmd;
	err = npuep_flow_init(ndev, NPUEP_FT_CONNS_DEFAULT,
			      NPUEP_FT_MFLOWS_DEFAULT);
	if (err)
		goto err_cmd;

	ndev->switch_id.id_len = sizeof(u64);
	put_unaligned_be64(ndev->serial ?: ((u64)0x4e5055 << 32 | hw->id),
			   ndev->switch_id.id);

	devl_lock(devlink);
	err = devl_register(devlink);
	if (err)
		goto err_unlock;
	err = npuep_devlink_params_register(ndev);
	if (err)
		goto err_dl_unregister;
	err = npuep_dlx_register(ndev);
	if (err)
		goto err_params;
	for (p = 0; p < ndev->nports; p++) {
		err = npuep_port_create(ndev, p);
		if (err) {
			dev_err(ndev->dev, "port %u: %d\n", p + 1, err);
			goto err_ports;
		}
	}
	devl_unlock(devlink);

	auxiliary_set_drvdata(adev, ndev);
	npuep_poll_timer_start(ndev);
	dev_info(ndev->dev, "%u ports x %u queues, fw %s, serial %016llx\n",
		 ndev->nports, ndev->nqueues, ndev->fw_ver, ndev->serial);
	return 0;

err_ports:
	npuep_link_events_stop(ndev);
	while (p--)
		npuep_port_destroy(ndev->ports[p]);
	devl_unlock(devlink);
	npuep_health_stop(ndev);
	devl_lock(devlink);
	npuep_dlx_unregister(ndev);
err_params:
	npuep_devlink_params_unregister(ndev);
err_dl_unregister:
	devl_unregister(devlink);
err_unlock:
	devl_unlock(devlink);
	npuep_flow_fini(ndev);
err_cmd:
	npuep_cmd_fini(ndev);
err_free:
	devlink_free(devlink);
	return err;
}

static void npuep_remove(struct auxiliary_device *adev)
{
	struct npuep_dev *ndev = auxiliary_get_drvdata(adev);
	struct devlink *devlink = ndev->devlink;
	unsigned int p;

	npuep_health_stop(ndev);
	devl_lock(devlink);
	WRITE_ONCE(ndev->poll_interval_us, 0);
	hrtimer_cancel(&ndev->poll_timer);
	npuep_link_events_stop(ndev);
	for (p = ndev->nports; p--;)
		if (ndev->ports[p])
			npuep_port_destroy(ndev->ports[p]);
	npuep_dlx_unregister(ndev);
	npuep_devlink_params_unregister(ndev);
	devl_unregister(devlink);
	devl_unlock(devlink);
	npuep_flow_fini(ndev);
	npuep_cmd_fini(ndev);
	devlink_free(devlink);
}

static const struct auxiliary_device_id npuep_id_table[] = {
	{ .name = "npusim." NPU_HW_AUXDEV_NAME },
	{}
};
MODULE_DEVICE_TABLE(auxiliary, npuep_id_table);

static struct auxiliary_driver npuep_driver = {
	.probe = npuep_probe,
	.remove = npuep_remove,
	.id_table = npuep_id_table,
};

/* debugfs: npuep/<device>/ (flow.c) */
struct dentry *npuep_dbg_root;

static int __init npuep_init(void)
{
	int err;

	npuep_dbg_root = debugfs_create_dir(KBUILD_MODNAME, NULL);
	err = auxiliary_driver_register(&npuep_driver);
	if (err)
		debugfs_remove_recursive(npuep_dbg_root);
	return err;
}
module_init(npuep_init);

static void __exit npuep_exit(void)
{
	auxiliary_driver_unregister(&npuep_driver);
	debugfs_remove_recursive(npuep_dbg_root);
}
module_exit(npuep_exit);

MODULE_DESCRIPTION("npuflow network coprocessor host driver");
MODULE_LICENSE("GPL");
