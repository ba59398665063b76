// SPDX-License-Identifier: GPL-2.0
/*
 * npuep flow offload: the PPPoE sessions over this device's ports, as the
 * kernel's dev_fill_forward_path() finds them under the ppp devices.
 *
 * The glue of flow_path_pure.c's npuep_flow_path_session(): a ppp
 * device's path (its PPPoE session, the VLAN devices under it, the port
 * at the bottom) read into plain data.  A flower rule that redirects to a
 * ppp device is resolved so (npuep_flow_path_read()); a flowtable's PPPoE
 * push is checked against the sessions up, whose ppp device gives its MTU
 * (npuep_flow_session_up()); the reclaim of connections whose session
 * ended gathers them all (npuep_flow_sessions()).
 */
#include <linux/etherdevice.h>
#include <linux/if_arp.h>
#include <linux/netdevice.h>
#include <linux/rcupdate.h>
#include <net/flow_offload.h>

#include "npuep.h"
#include "flow_priv.h"
#include "flow_pair.h"

/**
 * npuep_flow_port_of() - the port of this device a netdev is
 * @ndev: the coprocessor
 * @dev: any netdev (may be NULL)
 *
 * Return: the port's index, or NPUEP_FD_PORT_FOREIGN.
 */
s32 npuep_flow_port_of(const struct npuep_dev *ndev, const struct net_device *dev)
{
	const struct npuep_port *port;

	if (!dev || !dev->netdev_ops || dev->netdev_ops->ndo_setup_tc != npuep_setup_tc)
		return NPUEP_FD_PORT_FOREIGN;
	port = netdev_priv(dev);
	return port->ndev == ndev ? port->idx : NPUEP_FD_PORT_FOREIGN;
}

/* One hop of the kernel's path as plain data. */
static void npuep_flow_hop(const struct npuep_dev *ndev,
			   const struct net_device_path *path,
			   struct npuep_fd_hop *hop)
{
	const struct net_device *dev = path->dev;

	memset(hop, 0, sizeof(*hop));
	hop->port = NPUEP_FD_PORT_FOREIGN;
	switch (path->type) {
	case DEV_PATH_ETHERNET:
		hop->type = NPUEP_FD_HOP_ETHERNET;
		hop->port = npuep_flow_port_of(ndev, dev);
		break;
	case DEV_PATH_VLAN:
		hop->type = NPUEP_FD_HOP_VLAN;
		hop->id = path->encap.id;
		hop->proto = path->encap.proto;
		break;
	case DEV_PATH_PPPOE:
		hop->type = NPUEP_FD_HOP_PPPOE;
		hop->id = path->encap.id;
		hop->proto = path->encap.proto;
		memcpy(hop->h_dest, path->encap.h_dest, ETH_ALEN);
		break;
	default:
		hop->type = NPUEP_FD_HOP_OTHER;
		break;
	}
	if (!dev)
		return;
	if (dev->addr_len == ETH_ALEN)
		memcpy(hop->addr, dev->dev_addr, ETH_ALEN);
	hop->mtu = READ_ONCE(dev->mtu);
}

/**
 * npuep_flow_path_read() - the devices under a ppp device, as plain data
 * @ndev: the coprocessor whose ports the path may end on
 * @dev: the ppp device
 * @hop: filled: NPUEP_FD_PATH_MAX hops at most, top first
 *
 * Context: under rcu_read_lock() (the ppp device's channels and the
 * PPPoE socket's device are read so, as nf_flow_table reads them).
 * Return: the hops filled; 0 when the kernel finds no path (the session
 * is not connected, the ppp device has no channel or is not PPPoE's).
 */
u32 npuep_flow_path_read(const struct npuep_dev *ndev, const struct net_device *dev,
			 struct npuep_fd_hop *hop)
{
	struct net_device_path_stack stack;
	static const u8 daddr[ETH_ALEN];
	int i;

	BUILD_BUG_ON(NPUEP_FD_PATH_MAX != NET_DEVICE_PATH_STACK_MAX);
	if (dev_fill_forward_path(dev, daddr, &stack) < 0)
		return 0;
	if (stack.num_paths < 0 || stack.num_paths > NPUEP_FD_PATH_MAX)
		return 0;
	for (i = 0; i < stack.num_paths; i++)
		npuep_flow_hop(ndev, &stack.path[i], &hop[i]);
	return stack.num_paths;
}

/*
 * The session @dev sends in, over a port of @ndev.  Under
 * rcu_read_lock().  Return: whether @dev is a ppp device that is up with
 * such a session.
 */
static bool npuep_flow_dev_session(const struct npuep_dev *ndev,
				   const struct net_device *dev,
				   struct npuep_fd_session *s)
{
	struct npuep_fd_hop hop[NPUEP_FD_PATH_MAX];
	const char *msg;
	u32 n;

	if (dev->type != ARPHRD_PPP || !(READ_ONCE(dev->flags) & IFF_UP))
		return false;
	n = npuep_flow_path_read(ndev, dev, hop);
	return !npuep_flow_path_session(hop, n, s, &msg);
}

/**
 * npuep_flow_sessions() - the PPPoE sessions up over this device's ports
 * @ndev: the coprocessor
 * @net: the namespace whose ppp devices are walked
 * @s: filled with the first @max of them
 * @max: room in @s
 *
 * A session is up while its ppp device is up and the kernel finds its
 * path (npuep_flow_path_read()) down to a port of @ndev.
 *
 * Return: how many there are (more than @max: only @max are in @s).
 */
u32 npuep_flow_sessions(const struct npuep_dev *ndev, struct net *net,
			struct npuep_fd_session *s, u32 max)
{
	struct npuep_fd_session one;
	struct net_device *dev;
	u32 n = 0;

	rcu_read_lock();
	for_each_netdev_rcu(net, dev) {
		if (!npuep_flow_dev_session(ndev, dev, &one))
			continue;
		if (n < max)
			s[n] = one;
		n++;
	}
	rcu_read_unlock();
	return n;
}

/**
 * npuep_flow_session_up() - the session a flowtable's PPPoE push sends in, if up
 * @port: the port whose callback was offered the rule
 * @spec: the direction (npuep_flow_desc_parse()'s); its MTU becomes the
 *	session's when it is up
 * @extack: why not
 *
 * nf_flow_table pushes the session of the ppp device the route leaves by,
 * as it found it when it made the flow: the direction is taken only while
 * a session of that port, tags, id and concentrator is up, with its ppp
 * device's MTU.
 *
 * Context: any; does not sleep or allocate.
 * Return: 0, or -EOPNOTSUPP with a message in @extack.
 */
int npuep_flow_session_up(struct npuep_port *port, struct npuep_flow_spec *spec,
			  struct netlink_ext_ack *extack)
{
	struct npuep_fd_session want, one;
	struct net_device *dev;
	bool up = false;

	if (!npuep_flow_session(&spec->key, &spec->rw, &want)) {
		NL_SET_ERR_MSG_MOD(extack, "fast path cannot describe the PPPoE session's tags");
		return -EOPNOTSUPP;
	}
	rcu_read_lock();
	for_each_netdev_rcu(dev_net(port->netdev), dev) {
		if (npuep_flow_dev_session(port->ndev, dev, &one) &&
		    !npuep_flow_session_find(&want, &one, 1)) {
			up = true;
			break;
		}
	}
	rcu_read_unlock();
	if (!up) {
		NL_SET_ERR_MSG_MOD(extack, "fast path finds no PPPoE session up for the push");
		return -EOPNOTSUPP;
	}
	spec->rw.mtu = cpu_to_le16(min_t(u32, one.mtu, 0xffff));
	return 0;
}
