// SPDX-License-Identifier: GPL-2.0
/*
 * npuep flow offload: the shadow table's life cycle (made with the device,
 * resized by devlink reload, replayed by firmware recovery), and its devlink
 * region.
 *
 * The pieces: flow_parse.c reads a flow_rule into one direction,
 * flow_table.c keeps the shadow table and sends the flow commands,
 * flow_offload.c binds flowtables and tc blocks (ndo_setup_tc),
 * flow_destroy.c queues posted DESTROYs, flow_stats.c reads statistics
 * back, flow_revive.c revives given-back connections from the receive
 * path, flow_path.c finds the PPPoE sessions under ppp devices,
 * flow_session.c takes out the connections whose session ended,
 * flow_ethtool.c shows them; trace.h traces them.
 *
 * Region "flow-table": a snapshot of the shadow table, one struct
 * npu_conn_stat per connection index (index, revision, state, packets and
 * bytes per direction as last read from the coprocessor, idle ms).
 */
#include <linux/rtnetlink.h>
#include <linux/rhashtable.h>
#include <linux/workqueue.h>

#include "npuep.h"
#include "flow_priv.h"

#define NPUEP_REGION_SNAPSHOTS	8

/**
 * npuep_flow_flush() - take every connection out of the coprocessor
 * @ndev: the coprocessor
 *
 * One pass over the shadow table; the kernel's offload state (flowtable,
 * flower) forgets nothing: the flows simply go back to the host path.
 */
void npuep_flow_flush(struct npuep_dev *ndev)
{
	if (ndev->ft)
		npuep_flow_purge(ndev->ft, NPU_MAX_PORTS, NPUEP_OWNER_NONE, NULL);
}

/**
 * npuep_flow_init() - set up the shadow table and tell the coprocessor its sizes
 * @ndev: the coprocessor
 * @conns: connection table size (devlink resource)
 * @mflows: microflow table size (devlink resource)
 *
 * Return: 0 or a negative errno.
 */
int npuep_flow_init(struct npuep_dev *ndev, u32 conns, u32 mflows)
{
	struct npu_cmd_ft_config cfg = {};
	struct npuep_ft *ft;
	int err, i;

	ft = kzalloc(sizeof(*ft), GFP_KERNEL);
	if (!ft)
		return -ENOMEM;
	ft->ndev = ndev;
	ft->conn_max = conns;
	ft->mflow_max = mflows;
	ft->revive = true;
	for (i = 0; i < NPU_MAX_PORTS; i++)
		INIT_LIST_HEAD(&ft->port_flows[i]);
	mutex_init(&ft->lock);
	spin_lock_init(&ft->dq_lock);
	INIT_DELAYED_WORK(&ft->destroy_work, npuep_ft_destroy_work);
	ida_init(&ft->conn_ida);
	INIT_DELAYED_WORK(&ft->stats_work, npuep_ft_stats_work);
	INIT_WORK(&ft->revive_work, npuep_ft_revive_work);
	ft->by_idx = kvcalloc(conns, sizeof(*ft->by_idx), GFP_KERNEL);
	ft->revs = kvcalloc(conns, sizeof(*ft->revs), GFP_KERNEL);
	ft->revive_map = bitmap_zalloc(conns, GFP_KERNEL);
	ft->dq = kvcalloc(NPUEP_FLOW_DESTROY_QLEN, sizeof(*ft->dq), GFP_KERNEL);
	if (!ft->by_idx || !ft->revs || !ft->revive_map || !ft->dq) {
		err = -ENOMEM;
		goto err_free;
	}
	err = rhashtable_init(&ft->by_key, &npuep_flow_key_params);
	if (err)
		goto err_free;
	err = rhashtable_init(&ft->by_cookie, &npuep_flow_cookie_params);
	if (err)
		goto err_key;

	cfg.conns = cpu_to_le32(conns);
	cfg.mflows = cpu_to_le32(mflows);
	cfg.fastpath = 1;
	err = npuep_cmd_exec(ndev, NPU_CMD_FT_CONFIG, &cfg, sizeof(cfg), NULL, 0);
	if (err)
		goto err_cookie;
	err = npuep_ft_area_alloc(ft);
	if (err)
		goto err_cookie;
	ndev->ft = ft;
	queue_delayed_work(system_unbound_wq, &ft->stats_work,
			   msecs_to_jiffies(NPUEP_FLOW_STATS_MS));
	return 0;

err_cookie:
	rhashtable_destroy(&ft->by_cookie);
err_key:
	rhashtable_destroy(&ft->by_key);
err_free:
	kvfree(ft->dq);
	bitmap_free(ft->revive_map);
	kvfree(ft->revs);
	kvfree(ft->by_idx);
	kfree(ft);
	return err;
}

/**
 * npuep_flow_fini() - take everything out and free the shadow table
 * @ndev: the coprocessor
 */
void npuep_flow_fini(struct npuep_dev *ndev)
{
	struct npuep_ft *ft = ndev->ft;

	if (!ft)
		return;
	ft->stopping = true;
	cancel_delayed_work_sync(&ft->stats_work);
	npuep_flow_flush(ndev);
	ndev->ft = NULL;
	cancel_delayed_work_sync(&ft->destroy_work);
	cancel_work_sync(&ft->revive_work);
	npuep_ft_area_free(ft);
	rhashtable_destroy(&ft->by_cookie);
	rhashtable_destroy(&ft->by_key);
	ida_destroy(&ft->conn_ida);
	synchronize_rcu();	/* npuep_flow_revive() readers */
	kvfree(ft->dq);
	bitmap_free(ft->revive_map);
	kvfree(ft->revs);
	kvfree(ft->by_idx);
	mutex_destroy(&ft->lock);
	kfree(ft);
}

/**
 * npuep_flow_resize_begin() - a devlink reload is to change the table's sizes
 * @ndev: the coprocessor
 * @conns: the new connection table size
 * @mflows: the new microflow table size
 * @extack: why not
 *
 * A resize is refused while directions are offloaded: the kernel believes
 * them in hardware (tc shows them in_hw, nf_flow_table stops forwarding
 * them itself), and a new table would hold none of them.  Otherwise the
 * table refuses REPLACE from now until npuep_flow_resize() replaces it.
 * devlink has already taken the new sizes as the resources' size (its
 * devl_resource_size_get() does): after a refusal they stay pending, and
 * the first reload without offloads applies them.
 *
 * Return: 0 (also when the sizes do not change) or -EBUSY.
 */
int npuep_flow_resize_begin(struct npuep_dev *ndev, u32 conns, u32 mflows,
			    struct netlink_ext_ack *extack)
{
	struct npuep_ft *ft;
	int err = 0;

	down_read(&ndev->ft_sem);
	ft = ndev->ft;
	if (ft && (ft->conn_max != conns || ft->mflow_max != mflows)) {
		npuep_ft_lock(ft);
		if (ft->nflows) {
			NL_SET_ERR_MSG_FMT_MOD(extack,
					       "resize refused while %u connections are offloaded",
					       ft->nconns);
			err = -EBUSY;
		} else {
			ft->frozen = true;
		}
		npuep_ft_unlock(ft);
	}
	up_read(&ndev->ft_sem);
	return err;
}

/**
 * npuep_flow_resize() - replace the shadow table by one of new sizes
 * @ndev: the coprocessor
 * @conns: connection table size
 * @mflows: microflow table size
 * @replaced: set when the table was replaced (by one of any size, or none)
 *
 * Under ndev->ft_sem for writing, so that no offload callback, unbind or
 * replay is inside the table while it goes, and under rtnl, so that
 * ethtool -S (which reads the table's counters without its lock) never
 * sees it freed.  Sizes that do not change only end the freeze of
 * npuep_flow_resize_begin().  When the new sizes cannot be applied the
 * table falls back to the defaults; when those fail too there is none
 * (the ports forward on the host path).
 *
 * Return: 0, or the error of the new sizes (the defaults may be in use).
 */
int npuep_flow_resize(struct npuep_dev *ndev, u32 conns, u32 mflows,
		      bool *replaced)
{
	struct npuep_ft *ft;
	int err = 0;

	rtnl_lock();
	down_write(&ndev->ft_sem);
	ft = ndev->ft;
	if (ft && ft->conn_max == conns && ft->mflow_max == mflows) {
		ft->frozen = false;
		goto out;
	}
	*replaced = true;
	npuep_flow_fini(ndev);
	err = npuep_flow_init(ndev, conns, mflows);
	if (err && (conns != NPUEP_FT_CONNS_DEFAULT ||
		    mflows != NPUEP_FT_MFLOWS_DEFAULT))
		npuep_flow_init(ndev, NPUEP_FT_CONNS_DEFAULT,
				NPUEP_FT_MFLOWS_DEFAULT);
out:
	up_write(&ndev->ft_sem);
	rtnl_unlock();
	return err;
}

static int npuep_flow_replay_locked(struct npuep_dev *ndev)
{
	struct npuep_ft *ft = ndev->ft;
	struct npu_cmd_ft_config cfg = {};
	struct npuep_conn *c;
	int err, n = 0;
	u32 i;

	if (!ft)
		return -ENODEV;
	npuep_ft_lock(ft);
	cfg.conns = cpu_to_le32(ft->conn_max);
	cfg.mflows = cpu_to_le32(ft->mflow_max);
	cfg.fastpath = READ_ONCE(ndev->dlx.fastpath);
	err = npuep_ft_cmd_ring(ft, NPUEP_CMD_RING_NORMAL, false,
				NPU_CMD_FT_CONFIG, &cfg, sizeof(cfg), NULL, 0);
	for (i = 0; !err && i < ft->conn_max; i++) {
		c = npuep_conn_at(ft, i);
		if (!c)
			continue;
		err = npuep_conn_write(ft, c);
		if (!err)
			n++;
	}
	npuep_ft_unlock(ft);
	return err ?: n;
}

/**
 * npuep_flow_replay() - reset the coprocessor's fast path and re-program it
 * @ndev: the coprocessor
 *
 * Firmware recovery: NPU_CMD_FT_CONFIG (empties the tables and clears a
 * fault) with the current sizes, waited for on the normal ring, then every
 * connection of the shadow table is created again with its microflows,
 * under a new revision, as every flow write goes (npuep_conn_write(): the
 * ring flow_cmd_ring names, posted while flow_cmd_posted is true, so a
 * device refusal of one is counted in fp_cmd_failed, not returned).
 *
 * Return: the number of connections sent again (the fw reporter's
 * "replayed"), or a negative errno.
 */
int npuep_flow_replay(struct npuep_dev *ndev)
{
	int ret;

	down_read(&ndev->ft_sem);
	ret = npuep_flow_replay_locked(ndev);
	up_read(&ndev->ft_sem);
	return ret;
}

static u32 npuep_flow_snapshot_locked(struct npuep_dev *ndev,
				      struct npu_conn_stat *out, u32 n)
{
	struct npuep_ft *ft = ndev->ft;
	struct npuep_conn *c;
	u32 i, used = 0;

	if (!ft)
		return 0;
	npuep_ft_lock(ft);
	for (i = 0; i < n && i < ft->conn_max; i++) {
		c = npuep_conn_at(ft, i);
		if (!c)
			continue;
		out[i].conn = cpu_to_le32(i);
		out[i].rev = cpu_to_le16(c->rev);
		out[i].state = c->state;
		out[i].packets[0] = cpu_to_le64(c->cnt.pkts[0]);
		out[i].packets[1] = cpu_to_le64(c->cnt.pkts[1]);
		out[i].bytes[0] = cpu_to_le64(c->cnt.bytes[0]);
		out[i].bytes[1] = cpu_to_le64(c->cnt.bytes[1]);
		out[i].idle_ms = cpu_to_le32(jiffies_to_msecs(jiffies -
							      c->lastused));
		used++;
	}
	npuep_ft_unlock(ft);
	return used;
}

/*
 * The shadow table as @n entries of npu_conn_stat (@out zeroed): entry i
 * describes connection index i, with the counters of the last pass over
 * the statistics area.  Return: connections in use.
 */
static u32 npuep_flow_snapshot(struct npuep_dev *ndev,
			       struct npu_conn_stat *out, u32 n)
{
	u32 used;

	down_read(&ndev->ft_sem);
	used = npuep_flow_snapshot_locked(ndev, out, n);
	up_read(&ndev->ft_sem);
	return used;
}

static void npuep_flow_region_free(const void *data)
{
	kvfree(data);
}

static int npuep_flow_region_snapshot(struct devlink *devlink,
				      const struct devlink_region_ops *ops,
				      struct netlink_ext_ack *extack, u8 **data)
{
	struct npuep_dev *ndev = devlink_priv(devlink);
	u32 n = ndev->dlx.region_entries;
	struct npu_conn_stat *buf;

	buf = kvcalloc(n, sizeof(*buf), GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	npuep_flow_snapshot(ndev, buf, n);
	*data = (u8 *)buf;
	return 0;
}

static const struct devlink_region_ops npuep_flow_region_ops = {
	.name = "flow-table",
	.destructor = npuep_flow_region_free,
	.snapshot = npuep_flow_region_snapshot,
};

/**
 * npuep_flow_region_create() - (re)create the "flow-table" region
 * @ndev: the coprocessor; instance lock held; sized by ndev->ft->conn_max
 *
 * Return: 0 or a negative errno.
 */
int npuep_flow_region_create(struct npuep_dev *ndev)
{
	struct devlink_region *region;
	u32 n = ndev->ft ? ndev->ft->conn_max : 0;

	npuep_flow_region_destroy(ndev);
	if (!n)
		return 0;
	region = devl_region_create(ndev->devlink, &npuep_flow_region_ops,
				    NPUEP_REGION_SNAPSHOTS,
				    (u64)n * sizeof(struct npu_conn_stat));
	if (IS_ERR(region))
		return PTR_ERR(region);
	ndev->dlx.region = region;
	ndev->dlx.region_entries = n;
	return 0;
}

/**
 * npuep_flow_region_destroy() - destroy the region and its snapshots
 * @ndev: the coprocessor; instance lock held
 */
void npuep_flow_region_destroy(struct npuep_dev *ndev)
{
	if (ndev->dlx.region)
		devl_region_destroy(ndev->dlx.region);
	ndev->dlx.region = NULL;
	ndev->dlx.region_entries = 0;
}
