// SPDX-License-Identifier: GPL-2.0
/*
 * npuep trap policers: three devlink trap policers, one per trap group at
 * probe (trap.c), executed by the coprocessor (npu_hw.h, "Trap policers")
 * as token buckets before a punted frame takes a receive descriptor.
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

#define NPUEP_POLICER(_id, _rate, _burst)				\
	DEVLINK_TRAP_POLICER(_id, _rate, _burst, NPU_POLICER_RATE_MAX,	\
			     1, NPU_POLICER_BURST_MAX, 1)

static const struct devlink_trap_policer npuep_policers[NPUEP_POLICERS] = {
	NPUEP_POLICER(1, 100000, 8192),
	NPUEP_POLICER(2, 100000, 8192),
	NPUEP_POLICER(3, 20000, 2048),
};

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
 * npuep_policer_cfg_init() - the policers' defaults, at probe
 * @ndev: the coprocessor, before the first npuep_traps_register()
 */
void npuep_policer_cfg_init(struct npuep_dev *ndev)
{
	BUILD_BUG_ON(NPUEP_POLICERS > NPU_POLICERS);
	BUILD_BUG_ON(sizeof(ndev->dlx.policers) != sizeof(npuep_policers));
	memcpy(ndev->dlx.policers, npuep_policers, sizeof(npuep_policers));
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
