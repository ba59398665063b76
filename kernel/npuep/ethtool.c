// SPDX-License-Identifier: GPL-2.0
/*
 * npuep ethtool: driver info, link, rings, channels, coalescing, RSS and
 * statistics.
 */
#include <linux/ethtool.h>
#include <linux/rtnetlink.h>

#include "npuep.h"

#define NPUEP_COAL_USECS_MAX	100000
#define NPUEP_COAL_FRAMES_MAX	4096

/* Per queue pair: "<dir>_q<N>_<name>", e.g. rx_q0_packets, hw_rx_q1_qfull. */
static const struct {
	const char *dir;
	const char *name;
} npuep_qp_stat_names[] = {
	{ "rx", "packets" }, { "rx", "bytes" }, { "rx", "drops" },
	{ "rx", "bad_desc" }, { "rx", "alloc_fail" },
	{ "rx", "doorbell_frames" }, { "rx", "poll_frames" },
	{ "rx", "csum_ok" },
	{ "tx", "packets" }, { "tx", "bytes" }, { "tx", "drops" },
	{ "tx", "stop" }, { "tx", "wake" },
	{ "rx", "doorbell_irqs" },
	{ "rx", "xdp_pass" }, { "rx", "xdp_drop" }, { "rx", "xdp_tx" },
	{ "rx", "xdp_redirect" }, { "rx", "xdp_aborted" },
	{ "rx", "xdp_tx_errors" }, { "rx", "xdp_redirect_errors" },
	{ "tx", "xdp_xmit" }, { "tx", "xdp_xmit_errors" },
	{ "rx", "poll_runs" }, { "tx", "fraglist" },
	{ "rx", "refill_retry" },
	{ "rx", "bad_len" }, { "rx", "bad_port" }, { "rx", "bad_reason" },
	{ "rx", "bad_conn" }, { "rx", "repolls" },
	/* kept by the coprocessor */
	{ "hw_rx", "frames" }, { "hw_rx", "bytes" }, { "hw_rx", "qfull" },
	{ "hw_rx", "irqs" }, { "hw_rx", "badbuf" },
	{ "hw_tx", "frames" }, { "hw_tx", "bytes" },
};

static const u32 npuep_qp_hw_regs[] = {
	NPU_QP_RX_FRAMES, NPU_QP_RX_BYTES, NPU_QP_RX_QFULL, NPU_QP_RX_IRQS,
	NPU_QP_RX_BADBUF, NPU_QP_TX_FRAMES, NPU_QP_TX_BYTES,
};

static const char * const npuep_port_stat_names[] = {
	"hw_rx_runts", "hw_rx_malformed", "hw_rx_oversize", "hw_rx_noqueue",
	"hw_tx_bad", "hw_rx_ntuple_drops",
};

static const u32 npuep_port_hw_regs[] = {
	NPU_PORT_RX_RUNTS, NPU_PORT_RX_MALFORMED, NPU_PORT_RX_OVERSIZE,
	NPU_PORT_RX_NOQUEUE, NPU_PORT_TX_BAD, NPU_PORT_RX_NTUPLE_DROPS,
};

/* Device wide: what the command channel refused (cmd_check.c). */
static const char * const npuep_cmd_stat_names[] = {
	"cmd_bad_seq", "cmd_bad_opcode", "cmd_bad_head",
	"cmd_bad_stats_count", "cmd_bad_stats_conn",
};

static const char * const npuep_punt_names[NPU_PUNT_MAX] = {
	[NPU_PUNT_NONE] = "none",
	[NPU_PUNT_FLOW_MISS] = "flow_miss",
	[NPU_PUNT_NOT_ACTIVE] = "not_active",
	[NPU_PUNT_TCP_FLAGS] = "tcp_flags",
	[NPU_PUNT_EXCEPTION] = "exception",
	[NPU_PUNT_MTU] = "mtu",
	[NPU_PUNT_NON_IP] = "non_ip",
	[NPU_PUNT_MCAST] = "mcast",
	[NPU_PUNT_FASTPATH_OFF] = "fastpath_off",
	[NPU_PUNT_NTUPLE] = "ntuple",
	[NPU_PUNT_MALFORMED] = "malformed",
};

static struct npuep_port *npuep_port(struct net_device *netdev)
{
	return netdev_priv(netdev);
}

static void npuep_get_drvinfo(struct net_device *netdev,
			      struct ethtool_drvinfo *info)
{
	struct npuep_dev *ndev = npuep_port(netdev)->ndev;

	strscpy(info->driver, NPUEP_DRV_NAME, sizeof(info->driver));
	strscpy(info->fw_version, ndev->fw_ver, sizeof(info->fw_version));
	strscpy(info->bus_info, dev_name(ndev->dev), sizeof(info->bus_info));
}

static int npuep_get_link_ksettings(struct net_device *netdev,
				    struct ethtool_link_ksettings *cmd)
{
	struct npuep_port *port = npuep_port(netdev);
	u32 link = npuep_rd32(port->ndev, port->reg + NPU_PORT_LINK);

	ethtool_link_ksettings_zero_link_mode(cmd, supported);
	ethtool_link_ksettings_zero_link_mode(cmd, advertising);
	cmd->base.port = PORT_OTHER;
	cmd->base.autoneg = AUTONEG_DISABLE;
	if (link & NPU_LINK_UP) {
		u32 speed = link >> NPU_LINK_SPEED_SHIFT;

		cmd->base.speed = speed ? speed : SPEED_UNKNOWN;
		cmd->base.duplex = DUPLEX_FULL;
	} else {
		cmd->base.speed = SPEED_UNKNOWN;
		cmd->base.duplex = DUPLEX_UNKNOWN;
	}
	return 0;
}

/**
 * npuep_port_reconfigure() - change queue count, ring depths and MTU
 * @port: the port
 * @nq: active queue pairs
 * @rx_size: rx ring depth
 * @tx_size: tx ring depth
 * @mtu: the netdev's MTU (the receive buffers' size follows it)
 * @extack: for the error message, may be NULL
 *
 * Under rtnl.  A running datapath is closed and reopened with the new
 * values; if that fails it is reopened with the old ones.  The counters live
 * in the queue pairs, which outlive the datapath: they carry on.
 *
 * Return: 0 or a negative errno.
 */
int npuep_port_reconfigure(struct npuep_port *port, u32 nq, u32 rx_size,
			   u32 tx_size, unsigned int mtu,
			   struct netlink_ext_ack *extack)
{
	struct net_device *netdev = port->netdev;
	u32 old_nq = port->nq, old_rx = port->rx_ring_size;
	u32 old_tx = port->tx_ring_size;
	unsigned int old_mtu = netdev->mtu;
	bool was_open = port->dp_open;
	int err;

	ASSERT_RTNL();
	if (was_open)
		npuep_dp_close(port);
	port->nq = nq;
	port->rx_ring_size = rx_size;
	port->tx_ring_size = tx_size;
	WRITE_ONCE(netdev->mtu, mtu);

	if (!was_open) {
		err = netif_set_real_num_tx_queues(netdev, nq);
		if (!err)
			err = netif_set_real_num_rx_queues(netdev, nq);
		if (!err && !netif_is_rxfh_configured(netdev))
			npuep_rss_default(port);
		if (err)
			goto err_restore;
		return 0;
	}

	err = npuep_dp_open(port);
	if (!err)
		return 0;
err_restore:
	NL_SET_ERR_MSG_MOD(extack, "cannot apply the new queue configuration");
	netdev_err(netdev, "reconfiguration failed (%d), restoring\n", err);
	port->nq = old_nq;
	port->rx_ring_size = old_rx;
	port->tx_ring_size = old_tx;
	WRITE_ONCE(netdev->mtu, old_mtu);
	if (was_open && npuep_dp_open(port))
		netdev_err(netdev, "datapath could not be restored\n");
	return err;
}

static void npuep_get_ringparam(struct net_device *netdev,
				struct ethtool_ringparam *ring,
				struct kernel_ethtool_ringparam *kring,
				struct netlink_ext_ack *extack)
{
	struct npuep_port *port = npuep_port(netdev);

	ring->rx_max_pending = NPU_RING_MAX;
	ring->tx_max_pending = NPU_RING_MAX;
	ring->rx_pending = port->rx_ring_size;
	ring->tx_pending = port->tx_ring_size;
}

/*
 * Ring depths are powers of two from NPU_RING_MIN to NPU_RING_MAX.  Other
 * values are refused, not rounded: the depth is a tuning constant (seed 003:
 * 1,024 stopped the queue-full counter where 256 let it climb) and should be
 * exactly what the user asked for.
 */
static int npuep_set_ringparam(struct net_device *netdev,
			       struct ethtool_ringparam *ring,
			       struct kernel_ethtool_ringparam *kring,
			       struct netlink_ext_ack *extack)
{
	struct npuep_port *port = npuep_port(netdev);

	if (ring->rx_pending < NPU_RING_MIN || ring->tx_pending < NPU_RING_MIN ||
	    ring->rx_pending > NPU_RING_MAX || ring->tx_pending > NPU_RING_MAX) {
		NL_SET_ERR_MSG_FMT_MOD(extack, "ring depth must be %u to %u",
				       NPU_RING_MIN, NPU_RING_MAX);
		return -EINVAL;
	}
	if (!is_power_of_2(ring->rx_pending) ||
	    !is_power_of_2(ring->tx_pending)) {
		NL_SET_ERR_MSG_MOD(extack, "ring depth must be a power of two");
		return -EINVAL;
	}
	if (ring->rx_pending == port->rx_ring_size &&
	    ring->tx_pending == port->tx_ring_size)
		return 0;
	return npuep_port_reconfigure(port, port->nq, ring->rx_pending,
				      ring->tx_pending, netdev->mtu, extack);
}

static void npuep_get_channels(struct net_device *netdev,
			       struct ethtool_channels *ch)
{
	struct npuep_port *port = npuep_port(netdev);

	ch->max_combined = port->ndev->nqueues;
	ch->combined_count = port->nq;
}

static int npuep_set_channels(struct net_device *netdev,
			      struct ethtool_channels *ch)
{
	struct npuep_port *port = npuep_port(netdev);
	int loc;

	if (!ch->combined_count || ch->combined_count > port->ndev->nqueues ||
	    ch->rx_count || ch->tx_count || ch->other_count) {
		netdev_err(netdev, "combined channels must be 1 to %u\n",
			   port->ndev->nqueues);
		return -EINVAL;
	}
	if (ch->combined_count == port->nq)
		return 0;
	loc = npuep_ntuple_queue_user(port, ch->combined_count);
	if (loc >= 0) {
		netdev_err(netdev,
			   "ntuple rule %d steers to a queue beyond %u: delete it first (ethtool -N %s delete %d)\n",
			   loc, ch->combined_count, netdev->name, loc);
		return -EINVAL;
	}
	return npuep_port_reconfigure(port, ch->combined_count,
				      port->rx_ring_size, port->tx_ring_size,
				      netdev->mtu, NULL);
}

static int npuep_get_coalesce(struct net_device *netdev,
			      struct ethtool_coalesce *ec,
			      struct kernel_ethtool_coalesce *kec,
			      struct netlink_ext_ack *extack)
{
	struct npuep_port *port = npuep_port(netdev);

	ec->rx_coalesce_usecs = port->coal_usecs;
	ec->rx_max_coalesced_frames = port->coal_frames;
	ec->rx_max_coalesced_frames_irq = port->rx_budget;
	ec->use_adaptive_rx_coalesce = port->adaptive_rx;
	return 0;
}

static int npuep_set_coalesce(struct net_device *netdev,
			      struct ethtool_coalesce *ec,
			      struct kernel_ethtool_coalesce *kec,
			      struct netlink_ext_ack *extack)
{
	struct npuep_port *port = npuep_port(netdev);
	bool adaptive = ec->use_adaptive_rx_coalesce;
	int err;

	if (ec->rx_coalesce_usecs > NPUEP_COAL_USECS_MAX) {
		NL_SET_ERR_MSG_FMT_MOD(extack, "rx-usecs must be at most %u",
				       NPUEP_COAL_USECS_MAX);
		return -EINVAL;
	}
	if (ec->rx_max_coalesced_frames > NPUEP_COAL_FRAMES_MAX) {
		NL_SET_ERR_MSG_FMT_MOD(extack, "rx-frames must be at most %u",
				       NPUEP_COAL_FRAMES_MAX);
		return -EINVAL;
	}
	if (!ec->rx_max_coalesced_frames_irq ||
	    ec->rx_max_coalesced_frames_irq > NPUEP_RX_BUDGET_MAX) {
		NL_SET_ERR_MSG_FMT_MOD(extack,
				       "rx-frames-irq (per-queue NAPI budget) must be 1 to %u",
				       NPUEP_RX_BUDGET_MAX);
		return -EINVAL;
	}

	WRITE_ONCE(port->rx_budget, ec->rx_max_coalesced_frames_irq);
	if (!adaptive &&
	    (port->adaptive_rx || ec->rx_coalesce_usecs != port->coal_usecs ||
	     ec->rx_max_coalesced_frames != port->coal_frames)) {
		err = npuep_coalesce_push(port, NPU_COALESCE_ALL_QUEUES,
					  ec->rx_coalesce_usecs,
					  ec->rx_max_coalesced_frames);
		if (err) {
			NL_SET_ERR_MSG_MOD(extack,
					   "the coprocessor refused the moderation");
			return err;
		}
	}
	port->coal_usecs = ec->rx_coalesce_usecs;
	port->coal_frames = ec->rx_max_coalesced_frames;
	WRITE_ONCE(port->adaptive_rx, adaptive);
	return 0;
}

static u32 npuep_get_rxfh_key_size(struct net_device *netdev)
{
	return NPU_RSS_KEY_LEN;
}

static u32 npuep_get_rxfh_indir_size(struct net_device *netdev)
{
	return NPU_RSS_RETA_SIZE;
}

static int npuep_get_rxfh(struct net_device *netdev,
			  struct ethtool_rxfh_param *rxfh)
{
	struct npuep_port *port = npuep_port(netdev);
	u32 i, val;

	rxfh->hfunc = ETH_RSS_HASH_TOP;
	if (rxfh->indir) {
		for (i = 0; i < NPU_RSS_RETA_SIZE; i++) {
			if (!(i % 4))
				val = npuep_rd32(port->ndev, port->reg +
						 NPU_PORT_RETA + i);
			rxfh->indir[i] = (val >> (8 * (i % 4))) & 0xff;
		}
	}
	if (rxfh->key) {
		for (i = 0; i < NPU_RSS_KEY_LEN; i++) {
			if (!(i % 4))
				val = npuep_rd32(port->ndev, port->reg +
						 NPU_PORT_RSS_KEY + i);
			rxfh->key[i] = (val >> (8 * (i % 4))) & 0xff;
		}
	}
	return 0;
}

static int npuep_set_rxfh(struct net_device *netdev,
			  struct ethtool_rxfh_param *rxfh,
			  struct netlink_ext_ack *extack)
{
	struct npuep_port *port = npuep_port(netdev);
	u32 i, val;

	if (rxfh->hfunc != ETH_RSS_HASH_NO_CHANGE &&
	    rxfh->hfunc != ETH_RSS_HASH_TOP) {
		NL_SET_ERR_MSG_MOD(extack, "only the Toeplitz hash is supported");
		return -EOPNOTSUPP;
	}
	if (rxfh->indir) {
		for (i = 0; i < NPU_RSS_RETA_SIZE; i++) {
			if (rxfh->indir[i] >= port->nq) {
				NL_SET_ERR_MSG_MOD(extack,
						   "indirection entry beyond the active queues");
				return -EINVAL;
			}
		}
		for (i = 0; i < NPU_RSS_RETA_SIZE; i += 4) {
			val = rxfh->indir[i] | rxfh->indir[i + 1] << 8 |
			      rxfh->indir[i + 2] << 16 | rxfh->indir[i + 3] << 24;
			npuep_wr32(port->ndev, port->reg + NPU_PORT_RETA + i, val);
		}
	}
	if (rxfh->key) {
		for (i = 0; i < NPU_RSS_KEY_LEN; i += 4) {
			val = rxfh->key[i] | rxfh->key[i + 1] << 8 |
			      rxfh->key[i + 2] << 16 | (u32)rxfh->key[i + 3] << 24;
			npuep_wr32(port->ndev, port->reg + NPU_PORT_RSS_KEY + i,
				   val);
		}
	}
	return 0;
}

static int npuep_get_rxnfc(struct net_device *netdev,
			   struct ethtool_rxnfc *cmd, u32 *rule_locs)
{
	struct npuep_port *port = npuep_port(netdev);

	switch (cmd->cmd) {
	case ETHTOOL_GRXRINGS:
		cmd->data = port->nq;
		return 0;
	default:
		return npuep_ntuple_get_rxnfc(port, cmd, rule_locs);
	}
}

static int npuep_get_sset_count(struct net_device *netdev, int sset)
{
	struct npuep_port *port = npuep_port(netdev);

	if (sset != ETH_SS_STATS)
		return -EOPNOTSUPP;
	return port->ndev->nqueues * ARRAY_SIZE(npuep_qp_stat_names) +
	       ARRAY_SIZE(npuep_port_stat_names) + NPU_PUNT_MAX +
	       ARRAY_SIZE(npuep_cmd_stat_names) + npuep_flow_sset_count() +
	       npuep_policer_sset_count();
}

static void npuep_get_strings(struct net_device *netdev, u32 sset, u8 *data)
{
	struct npuep_port *port = npuep_port(netdev);
	unsigned int q, i;

	if (sset != ETH_SS_STATS)
		return;
	for (q = 0; q < port->ndev->nqueues; q++)
		for (i = 0; i < ARRAY_SIZE(npuep_qp_stat_names); i++)
			ethtool_sprintf(&data, "%s_q%u_%s",
					npuep_qp_stat_names[i].dir, q,
					npuep_qp_stat_names[i].name);
	for (i = 0; i < ARRAY_SIZE(npuep_port_stat_names); i++)
		ethtool_puts(&data, npuep_port_stat_names[i]);
	for (i = 0; i < NPU_PUNT_MAX; i++)
		ethtool_sprintf(&data, "rx_punt_%s", npuep_punt_names[i]);
	for (i = 0; i < ARRAY_SIZE(npuep_cmd_stat_names); i++)
		ethtool_puts(&data, npuep_cmd_stat_names[i]);
	npuep_flow_get_strings(&data);
	npuep_policer_get_strings(&data);
}

static void npuep_get_ethtool_stats(struct net_device *netdev,
				    struct ethtool_stats *stats, u64 *data)
{
	struct npuep_port *port = npuep_port(netdev);
	struct npuep_dev *ndev = port->ndev;
	u64 punt[NPU_PUNT_MAX] = {};
	struct npuep_qp_stats s;
	unsigned int q, i;

	for (q = 0; q < ndev->nqueues; q++) {
		struct npuep_qp *qp = &port->qps[q];

		npuep_qp_stats_read(qp, &s);
		*data++ = s.rx_packets;
		*data++ = s.rx_bytes;
		*data++ = s.rx_drops;
		*data++ = s.rx_bad_desc;
		*data++ = s.rx_alloc_fail;
		*data++ = s.rx_doorbell_frames;
		*data++ = s.rx_poll_frames;
		*data++ = s.rx_csum_ok;
		*data++ = s.tx_packets;
		*data++ = s.tx_bytes;
		*data++ = s.tx_drops;
		*data++ = s.tx_stop;
		*data++ = s.tx_wake;
		*data++ = s.irqs;
		*data++ = s.rx_xdp_pass;
		*data++ = s.rx_xdp_drop;
		*data++ = s.rx_xdp_tx;
		*data++ = s.rx_xdp_redirect;
		*data++ = s.rx_xdp_aborted;
		*data++ = s.rx_xdp_tx_errors;
		*data++ = s.rx_xdp_redirect_errors;
		*data++ = s.tx_xdp_xmit;
		*data++ = s.tx_xdp_xmit_errors;
		*data++ = READ_ONCE(qp->poll_runs);
		*data++ = s.tx_fraglist;
		*data++ = s.rx_refill_retry;
		*data++ = s.rx_bad_len;
		*data++ = s.rx_bad_port;
		*data++ = s.rx_bad_reason;
		*data++ = s.rx_bad_conn;
		*data++ = READ_ONCE(qp->repolls);
		for (i = 0; i < ARRAY_SIZE(npuep_qp_hw_regs); i++)
			*data++ = npuep_rd64(ndev, qp->reg + npuep_qp_hw_regs[i]);
		for (i = 0; i < NPU_PUNT_MAX; i++)
			punt[i] += s.rx_punt[i];
	}
	for (i = 0; i < ARRAY_SIZE(npuep_port_hw_regs); i++)
		*data++ = npuep_rd64(ndev, port->reg + npuep_port_hw_regs[i]);
	for (i = 0; i < NPU_PUNT_MAX; i++)
		*data++ = punt[i];
	*data++ = atomic64_read(&ndev->cmd_chk.bad_seq);
	*data++ = atomic64_read(&ndev->cmd_chk.bad_opcode);
	*data++ = atomic64_read(&ndev->cmd_chk.bad_head);
	*data++ = atomic64_read(&ndev->cmd_chk.bad_stats_count);
	*data++ = atomic64_read(&ndev->cmd_chk.bad_stats_conn);
	npuep_flow_get_stats(port, &data);
	npuep_policer_get_stats(port, &data);
}

const struct ethtool_ops npuep_ethtool_ops = {
	.supported_coalesce_params = ETHTOOL_COALESCE_RX_USECS |
				     ETHTOOL_COALESCE_RX_MAX_FRAMES |
				     ETHTOOL_COALESCE_RX_MAX_FRAMES_IRQ |
				     ETHTOOL_COALESCE_USE_ADAPTIVE_RX,
	.get_drvinfo = npuep_get_drvinfo,
	.get_link = ethtool_op_get_link,
	.get_link_ksettings = npuep_get_link_ksettings,
	.get_ringparam = npuep_get_ringparam,
	.set_ringparam = npuep_set_ringparam,
	.get_channels = npuep_get_channels,
	.set_channels = npuep_set_channels,
	.get_coalesce = npuep_get_coalesce,
	.set_coalesce = npuep_set_coalesce,
	.get_rxfh_key_size = npuep_get_rxfh_key_size,
	.get_rxfh_indir_size = npuep_get_rxfh_indir_size,
	.get_rxfh = npuep_get_rxfh,
	.set_rxfh = npuep_set_rxfh,
	.get_rxnfc = npuep_get_rxnfc,
	.set_rxnfc = npuep_set_rxnfc,
	.get_sset_count = npuep_get_sset_count,
	.get_strings = npuep_get_strings,
	.get_ethtool_stats = npuep_get_ethtool_stats,
};
