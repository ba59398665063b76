// SPDX-License-Identifier: GPL-2.0
/*
 * npuep ntuple steering (ethtool -N / -n): rules the coprocessor's ingress
 * classifier executes on the frames a port punts, before RSS (npu_hw.h).
 *
 * The driver keeps every port's rules as the user gave them (struct
 * ethtool_rx_flow_spec, by location) and writes each to the device with
 * NPU_CMD_NTUPLE_ADD.  That copy is the truth: after a devlink reload and
 * after a firmware recovery (whose fault emptied the device's tables) every
 * port's table is cleared and written again (npuep_ntuple_replay()).
 *
 * This file is the glue: the tables, the commands and the replay.  What a
 * rule may be and where it goes are decided in ntuple_pure.c (tcp4, udp4,
 * ip4, tcp6, udp6, ip6 rules of addresses, ports and protocol; a queue
 * below the active count or drop; a location below NPU_NTUPLE_RULES or
 * RX_CLS_LOC_ANY/FIRST/LAST), which says why it refuses anything else: the
 * reason is logged on the netdev, as set_rxnfc has no extack.  All under
 * rtnl.
 */
#include <linux/ethtool.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>

#include "npuep.h"
#include "ntuple_pure.h"

/**
 * struct npuep_ntuple - one port's rules
 * @fs: the rules as inserted, by location
 * @used: locations holding a rule
 * @count: rules held
 */
struct npuep_ntuple {
	struct ethtool_rx_flow_spec fs[NPU_NTUPLE_RULES];
	DECLARE_BITMAP(used, NPU_NTUPLE_RULES);
	u32 count;
};

static int npuep_ntuple_cmd(struct npuep_port *port, u16 opcode, u32 loc,
			    const struct npu_ntuple_rule *rule)
{
	struct npu_cmd_ntuple nc = {};

	nc.port = cpu_to_le16(port->idx);
	nc.loc = cpu_to_le16(loc);
	if (rule)
		nc.rule = *rule;
	return npuep_cmd_exec(port->ndev, opcode, &nc, sizeof(nc), NULL, 0);
}

/*
 * The rule as the device's (ntuple_pure.c decides).  Return: 0, or
 * -EINVAL / -EOPNOTSUPP with the reason logged on the netdev.
 */
static int npuep_ntuple_to_hw(struct npuep_port *port,
			      const struct ethtool_rx_flow_spec *fs,
			      struct npu_ntuple_rule *r)
{
	char msg[NPUEP_NT_MSG_LEN];
	int err;

	err = npuep_ntuple_fs_to_rule(fs, port->nq, r, msg);
	if (err)
		netdev_err(port->netdev, "ntuple: %s\n", msg);
	return err;
}

/* Where the rule goes.  Return: the location, or a negative errno. */
static int npuep_ntuple_loc(struct npuep_port *port, struct npuep_ntuple *nt,
			    u32 loc)
{
	char msg[NPUEP_NT_MSG_LEN];
	int ret;

	ret = npuep_ntuple_loc_find(loc, nt->used, msg);
	if (ret < 0)
		netdev_err(port->netdev, "ntuple: %s\n", msg);
	return ret;
}

static int npuep_ntuple_insert(struct npuep_port *port,
			       struct ethtool_rx_flow_spec *fs)
{
	struct npu_ntuple_rule r;
	struct npuep_ntuple *nt;
	int loc, err;

	if (!(port->netdev->features & NETIF_F_NTUPLE)) {
		netdev_err(port->netdev,
			   "ntuple: filters are off (ethtool -K %s ntuple on)\n",
			   port->netdev->name);
		return -EOPNOTSUPP;
	}
	err = npuep_ntuple_to_hw(port, fs, &r);
	if (err)
		return err;
	if (!port->ntuple) {
		port->ntuple = kzalloc(sizeof(*port->ntuple), GFP_KERNEL);
		if (!port->ntuple)
			return -ENOMEM;
	}
	nt = port->ntuple;
	loc = npuep_ntuple_loc(port, nt, fs->location);
	if (loc < 0)
		return loc;
	err = npuep_ntuple_cmd(port, NPU_CMD_NTUPLE_ADD, loc, &r);
	if (err) {
		netdev_err(port->netdev,
			   "ntuple: the coprocessor refused the rule at %d: %d\n",
			   loc, err);
		return err;
	}
	fs->location = loc;
	nt->fs[loc] = *fs;
	if (!__test_and_set_bit(loc, nt->used))
		nt->count++;
	return 0;
}

static int npuep_ntuple_delete(struct npuep_port *port, u32 loc)
{
	struct npuep_ntuple *nt = port->ntuple;
	int err;

	if (loc >= NPU_NTUPLE_RULES)
		return -EINVAL;
	if (!nt || !test_bit(loc, nt->used))
		return -ENOENT;
	err = npuep_ntuple_cmd(port, NPU_CMD_NTUPLE_DEL, loc, NULL);
	/* Gone from the device already (a fault emptied it): fine. */
	if (err && err != -ENOENT) {
		netdev_err(port->netdev,
			   "ntuple: the coprocessor did not delete rule %u: %d\n",
			   loc, err);
		return err;
	}
	__clear_bit(loc, nt->used);
	nt->count--;
	return 0;
}

/**
 * npuep_ntuple_get_rxnfc() - ETHTOOL_GRXCLSRLCNT, GRXCLSRULE, GRXCLSRLALL
 * @port: the port
 * @cmd: the request
 * @rule_locs: GRXCLSRLALL: room for @cmd->rule_cnt locations
 *
 * Return: 0, -EOPNOTSUPP for another command, or a negative errno.
 */
int npuep_ntuple_get_rxnfc(struct npuep_port *port, struct ethtool_rxnfc *cmd,
			   u32 *rule_locs)
{
	struct npuep_ntuple *nt = port->ntuple;
	u32 n = 0, loc;

	switch (cmd->cmd) {
	case ETHTOOL_GRXCLSRLCNT:
		cmd->rule_cnt = nt ? nt->count : 0;
		cmd->data = NPU_NTUPLE_RULES | RX_CLS_LOC_SPECIAL;
		return 0;
	case ETHTOOL_GRXCLSRULE:
		loc = cmd->fs.location;
		if (loc >= NPU_NTUPLE_RULES)
			return -EINVAL;
		if (!nt || !test_bit(loc, nt->used))
			return -ENOENT;
		cmd->fs = nt->fs[loc];
		return 0;
	case ETHTOOL_GRXCLSRLALL:
		cmd->data = NPU_NTUPLE_RULES;
		if (nt) {
			for_each_set_bit(loc, nt->used, NPU_NTUPLE_RULES) {
				if (n == cmd->rule_cnt)
					return -EMSGSIZE;
				rule_locs[n++] = loc;
			}
		}
		cmd->rule_cnt = n;
		return 0;
	default:
		return -EOPNOTSUPP;
	}
}

/**
 * npuep_set_rxnfc() - ethtool_ops.set_rxnfc: insert or delete a rule
 * @netdev: the port's netdev
 * @cmd: ETHTOOL_SRXCLSRLINS (@cmd->fs.location set to the location used)
 *	or ETHTOOL_SRXCLSRLDEL
 *
 * Return: 0 or a negative errno (the reason is logged on the netdev).
 */
int npuep_set_rxnfc(struct net_device *netdev, struct ethtool_rxnfc *cmd)
{
	struct npuep_port *port = netdev_priv(netdev);

	ASSERT_RTNL();
	switch (cmd->cmd) {
	case ETHTOOL_SRXCLSRLINS:
		return npuep_ntuple_insert(port, &cmd->fs);
	case ETHTOOL_SRXCLSRLDEL:
		return npuep_ntuple_delete(port, cmd->fs.location);
	default:
		return -EOPNOTSUPP;
	}
}

/**
 * npuep_ntuple_queue_user() - a rule that steers to a queue at or past @nq
 * @port: the port
 * @nq: a queue count about to be set
 *
 * Return: the rule's location, or -1 if no rule would lose its queue.
 */
int npuep_ntuple_queue_user(struct npuep_port *port, u32 nq)
{
	struct npuep_ntuple *nt = port->ntuple;
	u32 loc;

	if (!nt)
		return -1;
	for_each_set_bit(loc, nt->used, NPU_NTUPLE_RULES) {
		u64 c = nt->fs[loc].ring_cookie;

		if (c != RX_CLS_FLOW_DISC && ethtool_get_flow_spec_ring(c) >= nq)
			return loc;
	}
	return -1;
}

/**
 * npuep_ntuple_clear() - remove every rule of a port (ethtool -K ntuple off)
 * @port: the port
 *
 * Return: 0, or the device's error (the rules are then kept).
 */
int npuep_ntuple_clear(struct npuep_port *port)
{
	struct npuep_ntuple *nt = port->ntuple;
	int err;

	ASSERT_RTNL();
	err = npuep_ntuple_cmd(port, NPU_CMD_NTUPLE_DEL, NPU_NTUPLE_LOC_ALL,
			       NULL);
	if (err == -EOPNOTSUPP && !(port->ndev->caps & NPU_CAP_NTUPLE))
		err = 0;
	if (err) {
		netdev_err(port->netdev,
			   "ntuple: the coprocessor did not clear the rules: %d\n",
			   err);
		return err;
	}
	if (nt) {
		bitmap_zero(nt->used, NPU_NTUPLE_RULES);
		nt->count = 0;
	}
	return 0;
}

/**
 * npuep_ntuple_replay() - write every port's rules to the device again
 * @ndev: the coprocessor
 *
 * After a devlink reload and a firmware recovery: each port's table on the
 * device is cleared, then the driver's rules are written in location order.
 * A rule the device refuses stays in the driver's table and is logged.
 *
 * Return: the number of rules written, or the first negative errno.
 */
int npuep_ntuple_replay(struct npuep_dev *ndev)
{
	struct npu_ntuple_rule r;
	int err, ret = 0, n = 0;
	u32 p, loc;

	if (!(ndev->caps & NPU_CAP_NTUPLE))
		return 0;
	rtnl_lock();
	for (p = 0; p < ndev->nports; p++) {
		struct npuep_port *port = ndev->ports[p];

		if (!port || !port->ntuple)
			continue;
		err = npuep_ntuple_cmd(port, NPU_CMD_NTUPLE_DEL,
				       NPU_NTUPLE_LOC_ALL, NULL);
		if (err) {
			netdev_err(port->netdev,
				   "ntuple: table not cleared for the replay: %d\n",
				   err);
			ret = ret ?: err;
			continue;
		}
		for_each_set_bit(loc, port->ntuple->used, NPU_NTUPLE_RULES) {
			err = npuep_ntuple_to_hw(port, &port->ntuple->fs[loc],
						 &r);
			if (!err)
				err = npuep_ntuple_cmd(port, NPU_CMD_NTUPLE_ADD,
						       loc, &r);
			if (err) {
				netdev_err(port->netdev,
					   "ntuple: rule %u not replayed: %d\n",
					   loc, err);
				ret = ret ?: err;
				continue;
			}
			n++;
		}
	}
	rtnl_unlock();
	return ret ?: n;
}

/**
 * npuep_ntuple_port_init() - a port starts with an empty table
 * @port: the port, before its netdev is registered
 *
 * The device keeps its tables across a driver unbind; rules left by a
 * previous binding must not steer this one's traffic.
 */
void npuep_ntuple_port_init(struct npuep_port *port)
{
	if (!(port->ndev->caps & NPU_CAP_NTUPLE))
		return;
	if (npuep_ntuple_cmd(port, NPU_CMD_NTUPLE_DEL, NPU_NTUPLE_LOC_ALL, NULL))
		dev_warn(port->ndev->dev,
			 "port %u: ntuple table not cleared\n", port->idx + 1);
}

/**
 * npuep_ntuple_free() - free a port's rules (the netdev is unregistered)
 * @port: the port
 */
void npuep_ntuple_free(struct npuep_port *port)
{
	kfree(port->ntuple);
	port->ntuple = NULL;
}
