// SPDX-License-Identifier: GPL-2.0
/*
 * npuep flow offload: revive in place.  A frame punted "not active" with a
 * connection index makes the driver send that connection's create again
 * (rate limited per connection), from the receive path: the connections
 * of one NAPI pass's frames are posted together at its end, under one
 * doorbell.
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

/*
 * Revive @conn (untrusted) into @b, at most once per NPUEP_FLOW_REVIVE_MS;
 * when its revive command cannot go into the ring it goes to the work
 * item (fp_revive_deferred).  rcu_read_lock held.
 */
static void npuep_flow_revive_one(struct npuep_ft *ft, struct npuep_cmd_batch *b,
				  u32 conn)
{
	struct npuep_revive *r;
	struct npuep_conn *c;

	if (conn >= ft->conn_max)
		return;
	c = rcu_dereference(ft->by_idx[conn]);
	if (!c || time_before(jiffies, READ_ONCE(c->revive_next)))
		return;
	WRITE_ONCE(c->revive_next,
		   jiffies + msecs_to_jiffies(NPUEP_FLOW_REVIVE_MS));
	r = rcu_dereference(c->revive);
	if (r && !npuep_cmd_batch_add(b, NPU_CMD_CONN_CREATE, &r->cmd,
				      sizeof(r->cmd))) {
		atomic64_inc(&ft->revived_rx);
	} else if (!test_and_set_bit(conn, ft->revive_map)) {
		atomic64_inc(&ft->revive_deferred);
		queue_work(system_highpri_wq, &ft->revive_work);
	}
}

/**
 * npuep_flow_revive() - frames of given-back connections reached the host
 * @ndev: the coprocessor
 * @conns: the connection indices from their receive descriptors
 *	(untrusted), in the order the frames came
 * @n: entries in @conns
 *
 * Called from NAPI at the end of a pass, with the frames it took punted
 * NPU_PUNT_NOT_ACTIVE.  Posts each connection's create command again on
 * the high-priority ring (same index and revision, no microflow: revive
 * in place) straight from the receive path, at most once per
 * NPUEP_FLOW_REVIVE_MS per connection, all under one doorbell; one the
 * ring has no room for goes to a work item instead (counted in
 * fp_revive_deferred).  Lock free apart from the ring's slot lock; never
 * sleeps.
 */
void npuep_flow_revive(struct npuep_dev *ndev, const u32 *conns, u32 n)
{
	struct npuep_ft *ft = ndev->ft;
	struct npuep_cmd_batch b;
	u32 i;

	if (!ft || !READ_ONCE(ft->revive))
		return;
	npuep_cmd_batch_init(&b, ndev, NPUEP_CMD_RING_HIGH);
	rcu_read_lock();
	for (i = 0; i < n; i++)
		npuep_flow_revive_one(ft, &b, conns[i]);
	npuep_cmd_batch_end(&b);
	rcu_read_unlock();
}
