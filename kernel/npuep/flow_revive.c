// SPDX-License-Identifier: GPL-2.0
/*
 * npuep flow offload: revive in place.  A frame punted "not active" with a
 * connection index makes the driver send that connection's create again
 * (rate limited per connection), from the receive path.
 */
#include <linux/workqueue.h>

#include "npuep.h"
#include "flow_priv.h"

/* At most one revive per connection in this many ms. */
#define NPUEP_FLOW_REVIVE_MS	20

/**
 * npuep_ft_revive_work() - send the revives the receive path could not post
 * @work: ft->revive_work
 *
 * For each index in ft->revive_map (set by npuep_flow_revive() when the
 * high-priority ring was full), posts the connection's revive command on
 * the high ring, under the flow-table lock with softirqs off (a full ring
 * queues it in the driver; nothing here sleeps).
 */
void npuep_ft_revive_work(struct work_struct *work)
{
	struct npuep_ft *ft = container_of(work, struct npuep_ft, revive_work);
	struct npu_cmd_conn_create cmd;
	struct npuep_conn *c;
	u32 idx;

	for_each_set_bit(idx, ft->revive_map, ft->conn_max) {
		clear_bit(idx, ft->revive_map);
		npuep_ft_lock_bh(ft);
		c = npuep_conn_at(ft, idx);
		if (c) {
			/* Same index and revision, no microflow: revive in place. */
			npuep_conn_fill(c, &cmd, false);
			if (!npuep_ft_cmd_ring(ft, NPUEP_CMD_RING_HIGH, true,
					       NPU_CMD_CONN_CREATE, &cmd,
					       sizeof(cmd), NULL, 0))
				ft->st.revived++;
		}
		npuep_ft_unlock(ft);
	}
}

/**
 * npuep_flow_revive() - a frame of a given-back connection reached the host
 * @ndev: the coprocessor
 * @conn: the connection index from the receive descriptor (untrusted)
 *
 * Called from NAPI for frames punted NPU_PUNT_NOT_ACTIVE.  Posts the
 * connection's create command again on the high-priority ring (same index
 * and revision, no microflow: revive in place) straight from the receive
 * path, at most once per NPUEP_FLOW_REVIVE_MS per connection; when that
 * ring is full the revive goes to a work item instead (counted in
 * fp_revive_deferred).  Lock free apart from the ring's slot lock; never
 * sleeps.
 */
void npuep_flow_revive(struct npuep_dev *ndev, u32 conn)
{
	struct npuep_ft *ft = ndev->ft;
	struct npuep_revive *r;
	struct npuep_conn *c;

	if (!ft || !READ_ONCE(ft->revive) || conn >= ft->conn_max)
		return;
	rcu_read_lock();
	c = rcu_dereference(ft->by_idx[conn]);
	if (c && !time_before(jiffies, READ_ONCE(c->revive_next))) {
		WRITE_ONCE(c->revive_next,
			   jiffies + msecs_to_jiffies(NPUEP_FLOW_REVIVE_MS));
		r = rcu_dereference(c->revive);
		if (r && !npuep_cmd_post_atomic(ndev, NPUEP_CMD_RING_HIGH,
						NPU_CMD_CONN_CREATE, &r->cmd,
						sizeof(r->cmd))) {
			atomic64_inc(&ft->revived_rx);
		} else if (!test_and_set_bit(conn, ft->revive_map)) {
			atomic64_inc(&ft->revive_deferred);
			queue_work(system_highpri_wq, &ft->revive_work);
		}
	}
	rcu_read_unlock();
}
