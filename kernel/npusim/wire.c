// SPDX-License-Identifier: GPL-2.0
/*
 * The wire netdevs: npuw<ID>p<N> is the far end of front port N's
 * cable.  What it transmits enters the coprocessor's port (ingress, rx.c);
 * what the host transmits on the port arrives on it (tx.c).
 *
 * Carrier of the wire: on while the host has configured the port up
 * (NPU_CMD_PORT_CFG up=1).  Link of the port (NPU_PORT_LINK): up while the
 * wire netdev is up; every change sets the port in NPU_REG_LINK_CHANGED and
 * NPU_EVT_LINK, and signals the command vector.  A wire may be moved into
 * another network namespace (it is not netns-local); it cannot be deleted
 * with "ip link del" (no rtnl_link_ops), and a namespace that goes away
 * hands it back to init_net, like a physical NIC.
 *
 * A wire has no queue by default (IFF_NO_QUEUE, as veth): a frame goes to
 * ingress inline in the wire's transmit, on the sender's CPU.  While the
 * model runs on cores of its own, its port stops the wire's transmit queue
 * when its ingress FIFO fills (ingress.c): a root qdisc given to the wire
 * ("tc qdisc replace dev npuw0p3 root pfifo") holds the sender's frames
 * meanwhile; without one they are dropped past the FIFO's limit.
 *
 * The datapath's files call each other in the circle a forwarded frame
 * makes: a wire's transmit enters its port (rx.c, or ingress.c's FIFO,
 * which hands it back to npusim_wire_ingress()), the fast path forwards it
 * (fastpath.c) and it leaves on another wire (npusim_wire_rx()).
 */
#include <linux/etherdevice.h>
#include <linux/ethtool.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>

#include "npusim.h"

/**
 * struct npusim_wire - private data of a wire netdev
 * @port: the coprocessor port at the other end of the cable
 * @napi: takes the frames the port sent, from @fifo
 * @fifo: frames on their way to this end (NPUSIM_WIRE_* in npusim.h)
 */
struct npusim_wire {
	struct npusim_port *port;
	struct napi_struct napi;
	struct sk_buff_head fifo;
};

/**
 * npusim_wire_rx - a frame the port sent reaches the far end of its cable
 * @wire: the wire netdev
 * @skb: the frame (consumed)
 *
 * Queued for the wire's NAPI; dropped and counted (rx_dropped) when the
 * wire is down or its FIFO holds NPUSIM_WIRE_MAX frames.
 */
void npusim_wire_rx(struct net_device *wire, struct sk_buff *skb)
{
	struct npusim_wire *w = netdev_priv(wire);

	if (!netif_running(wire) || !netif_carrier_ok(wire) ||
	    skb_queue_len(&w->fifo) >= NPUSIM_WIRE_MAX) {
		dev_dstats_rx_dropped(wire);
		kfree_skb(skb);
		return;
	}
	skb_queue_tail(&w->fifo, skb);
	napi_schedule(&w->napi);
}

/**
 * npusim_wire_tx_ok - may a transmit pass of @port start
 * @port: port
 *
 * Return: true while the wire's FIFO is below NPUSIM_WIRE_HIGH; false marks
 * the port blocked, and the wire's NAPI restarts its transmit work once
 * the FIFO is below NPUSIM_WIRE_LOW.
 */
bool npusim_wire_tx_ok(struct npusim_port *port)
{
	struct npusim_wire *w = netdev_priv(port->wire);

	if (skb_queue_len(&w->fifo) < NPUSIM_WIRE_HIGH)
		return true;
	WRITE_ONCE(port->wire_blocked, true);
	/* pairs with the barrier in npusim_wire_poll(): one of us sees it */
	smp_mb();
	if (skb_queue_len(&w->fifo) < NPUSIM_WIRE_HIGH) {
		WRITE_ONCE(port->wire_blocked, false);
		return true;
	}
	return false;
}

/* Restart the port's transmit passes (from their work items). */
static void npusim_wire_unblock(struct npusim_wire *w)
{
	struct npusim_port *port = w->port;
	u32 q;

	WRITE_ONCE(port->wire_blocked, false);
	for (q = 0; q < port->nd->nqueues; q++)
		npusim_cores_queue_tx(&port->qps[q]);
}

/*
 * A sum the host left to the device (CHECKSUM_PARTIAL, tx.c) reaches the
 * far end's stack as it is, which takes the data as verified (as veth
 * delivers it).  With rx-checksumming off on the wire ("ethtool -K <wire>
 * rx off": a NIC that checks nothing), the sum is filled in and the far
 * end's stack verifies every frame itself.  Return: false if the frame
 * cannot be summed (dropped).
 */
static bool npusim_wire_csum(const struct net_device *dev,
			     struct sk_buff *skb)
{
	if (dev->features & NETIF_F_RXCSUM)
		return true;
	if (skb->ip_summed == CHECKSUM_PARTIAL && skb_checksum_help(skb))
		return false;
	skb->ip_summed = CHECKSUM_NONE;
	return true;
}

static int npusim_wire_poll(struct napi_struct *napi, int budget)
{
	struct npusim_wire *w = container_of(napi, struct npusim_wire, napi);
	struct net_device *dev = napi->dev;
	u64 t0 = npusim_dp_clock(), t1, stack_ns = 0;
	struct sk_buff *skb;
	int done = 0;

	while (done < budget && (skb = skb_dequeue(&w->fifo))) {
		done++;
		if (!npusim_wire_csum(dev, skb)) {
			dev_dstats_rx_dropped(dev);
			kfree_skb(skb);
			continue;
		}
		dev_dstats_rx_add(dev, skb->len);
		skb->dev = dev;
		skb->protocol = eth_type_trans(skb, dev);
		t1 = npusim_dp_clock();
		netif_receive_skb(skb);
		stack_ns += npusim_dp_clock() - t1;
	}
	/* pairs with the barrier in npusim_wire_tx_ok() */
	smp_mb();
	if (READ_ONCE(w->port->wire_blocked) &&
	    skb_queue_len(&w->fifo) <= NPUSIM_WIRE_LOW)
		npusim_wire_unblock(w);
	if (done < budget)
		napi_complete_done(napi, done);
	npusim_dp_clock_end(w->port->nd, t0, stack_ns);
	return done;
}

static void npusim_link_event(struct npusim_port *port, bool up)
{
	struct npusim_dev *nd = port->nd;

	if (READ_ONCE(port->link_up) == up)
		return;
	WRITE_ONCE(port->link_up, up);
	atomic_or(BIT(port->idx), &nd->link_changed);
	npusim_cmd_irq_event(nd, NPU_EVT_LINK);
}

/**
 * npusim_port_link - value of NPU_PORT_LINK
 * @port: port
 *
 * Return: NPU_LINK_UP if the wire is up, and the speed.
 */
u32 npusim_port_link(struct npusim_port *port)
{
	return (READ_ONCE(port->link_up) ? NPU_LINK_UP : 0) |
	       NPUSIM_LINK_SPEED << NPU_LINK_SPEED_SHIFT;
}

/**
 * npusim_port_set_host_up - the host configured the port up or down
 * @port: port
 * @up: host side up
 *
 * The wire's carrier follows.
 */
void npusim_port_set_host_up(struct npusim_port *port, bool up)
{
	WRITE_ONCE(port->host_up, up);
	if (up)
		netif_carrier_on(port->wire);
	else
		netif_carrier_off(port->wire);
}

static int npusim_wire_open(struct net_device *dev)
{
	struct npusim_wire *w = netdev_priv(dev);

	napi_enable(&w->napi);
	if (READ_ONCE(w->port->host_up))
		netif_carrier_on(dev);
	else
		netif_carrier_off(dev);
	npusim_link_event(w->port, true);
	return 0;
}

static int npusim_wire_stop(struct net_device *dev)
{
	struct npusim_wire *w = netdev_priv(dev);

	npusim_link_event(w->port, false);
	napi_disable(&w->napi);
	/* what was on its way is lost with the link; the port may go on */
	skb_queue_purge(&w->fifo);
	if (READ_ONCE(w->port->wire_blocked))
		npusim_wire_unblock(w);
	return 0;
}

/**
 * npusim_wire_ingress - a frame the wire transmitted enters its port
 * @port: port
 * @skb: the frame (consumed)
 *
 * Counted on the wire: sent, or dropped by the port.  BH disabled.
 *
 * Return: npusim_port_ingress()'s.
 */
netdev_tx_t npusim_wire_ingress(struct npusim_port *port, struct sk_buff *skb)
{
	struct net_device *dev = port->wire;
	unsigned int len = skb->len;
	netdev_tx_t ret;

	ret = npusim_port_ingress(port, skb);
	if (ret == NETDEV_TX_OK)
		dev_dstats_tx_add(dev, len);
	else
		dev_dstats_tx_dropped(dev);
	return ret;
}

static netdev_tx_t npusim_wire_xmit(struct sk_buff *skb,
				    struct net_device *dev)
{
	struct npusim_wire *w = netdev_priv(dev);
	netdev_tx_t ret;
	u64 t0;

	skb_tx_timestamp(skb);
	/* BH off: an RCU read-side section, as npusim_cores_narrow() asks */
	if (npusim_cores_narrow(w->port->nd))
		return npusim_ingress_defer(w->port, skb);
	t0 = npusim_dp_clock();
	ret = npusim_wire_ingress(w->port, skb);
	npusim_dp_clock_end(w->port->nd, t0, 0);
	return ret;
}

static const struct net_device_ops npusim_wire_ops = {
	.ndo_open		= npusim_wire_open,
	.ndo_stop		= npusim_wire_stop,
	.ndo_start_xmit		= npusim_wire_xmit,
	.ndo_set_mac_address	= eth_mac_addr,
	.ndo_validate_addr	= eth_validate_addr,
};

static void npusim_wire_get_drvinfo(struct net_device *dev,
				    struct ethtool_drvinfo *info)
{
	struct npusim_wire *w = netdev_priv(dev);

	strscpy(info->driver, DRV_NAME, sizeof(info->driver));
	strscpy(info->bus_info, dev_name(w->port->nd->bus_dev),
		sizeof(info->bus_info));
}

static int npusim_wire_get_link_ksettings(struct net_device *dev,
					  struct ethtool_link_ksettings *cmd)
{
	ethtool_link_ksettings_zero_link_mode(cmd, supported);
	ethtool_link_ksettings_zero_link_mode(cmd, advertising);
	cmd->base.speed = netif_carrier_ok(dev) ? NPUSIM_LINK_SPEED :
						  SPEED_UNKNOWN;
	cmd->base.duplex = netif_carrier_ok(dev) ? DUPLEX_FULL :
						   DUPLEX_UNKNOWN;
	cmd->base.port = PORT_OTHER;
	cmd->base.autoneg = AUTONEG_DISABLE;
	return 0;
}

static const struct ethtool_ops npusim_wire_ethtool_ops = {
	.get_drvinfo		= npusim_wire_get_drvinfo,
	.get_link		= ethtool_op_get_link,
	.get_link_ksettings	= npusim_wire_get_link_ksettings,
};

#define NPUSIM_WIRE_FEATURES	(NETIF_F_SG | NETIF_F_HW_CSUM | NETIF_F_HIGHDMA)

static void npusim_wire_setup(struct net_device *dev)
{
	ether_setup(dev);
	dev->netdev_ops = &npusim_wire_ops;
	dev->ethtool_ops = &npusim_wire_ethtool_ops;
	dev->priv_flags &= ~IFF_TX_SKB_SHARING;
	dev->priv_flags |= IFF_LIVE_ADDR_CHANGE | IFF_NO_QUEUE;
	dev->lltx = true;
	dev->features |= NPUSIM_WIRE_FEATURES | NETIF_F_RXCSUM;
	dev->hw_features |= NPUSIM_WIRE_FEATURES | NETIF_F_RXCSUM;
	dev->vlan_features |= NPUSIM_WIRE_FEATURES;
	dev->pcpu_stat_type = NETDEV_PCPU_STAT_DSTATS;
	dev->min_mtu = NPUSIM_MTU_MIN;
	dev->max_mtu = NPUSIM_MTU_MAX;
}

/**
 * npusim_wires_create - register one wire netdev per port
 * @nd: device
 *
 * Return: 0 or a negative errno (no wire left registered).
 */
int npusim_wires_create(struct npusim_dev *nd)
{
	struct npusim_port *port;
	struct net_device *dev;
	struct npusim_wire *w;
	char name[IFNAMSIZ];
	int err;
	u32 p;

	for (p = 0; p < nd->nports; p++) {
		port = &nd->ports[p];
		snprintf(name, sizeof(name), "npuw%up%u", (u16)nd->id,
			 (u8)(p + 1));
		dev = alloc_netdev(sizeof(*w), name, NET_NAME_PREDICTABLE,
				   npusim_wire_setup);
		if (!dev) {
			err = -ENOMEM;
			goto err;
		}
		w = netdev_priv(dev);
		w->port = port;
		skb_queue_head_init(&w->fifo);
		netif_napi_add(dev, &w->napi, npusim_wire_poll);
		eth_hw_addr_random(dev);
		SET_NETDEV_DEV(dev, nd->bus_dev);
		netif_carrier_off(dev);
		port->wire = dev;
		err = register_netdev(dev);
		if (err) {
			dev_err(nd->bus_dev, "registering %s: %d\n", name, err);
			port->wire = NULL;
			free_netdev(dev);
			goto err;
		}
	}
	return 0;
err:
	npusim_wires_destroy(nd);
	return err;
}

/**
 * npusim_wires_destroy - unregister the wire netdevs, wherever they are
 * @nd: device
 */
void npusim_wires_destroy(struct npusim_dev *nd)
{
	struct npusim_wire *w;
	struct npusim_port *port;
	u32 p;

	for (p = 0; p < nd->nports; p++) {
		port = &nd->ports[p];
		if (!port->wire)
			continue;
		w = netdev_priv(port->wire);
		unregister_netdev(port->wire);	/* stops it: NAPI disabled */
		npusim_ingress_stop(port);
		skb_queue_purge(&w->fifo);
		netif_napi_del(&w->napi);
		free_netdev(port->wire);
		port->wire = NULL;
	}
}
