// SPDX-License-Identifier: GPL-2.0
/*
 * npuep flow offload: the periodic read-back of connection statistics
 * (FLOW_CLS_STATS answers from it, so conntrack keeps offloaded
 * connections alive).
 */
#include <linux/workqueue.h>

#include "npuep.h"
#include "flow_priv.h"

/**
 * npuep_ft_stats_work() - read every connection's counters back, once a second
 * @work: ft->stats_work
 *
 * NPU_CMD_CONN_STATS for NPU_CONN_STATS_MAX connections at a time, waited
 * for outside the flow-table lock; the answers (untrusted: index and
 * revision checked) update the shadow's counters and last-used time, which
 * FLOW_CLS_STATS reports.  The lock is held with softirqs off around the
 * parts that touch the table (neither sleeps), so that the receive path
 * does not run inside the hold.  Requeues itself every NPUEP_FLOW_STATS_MS
 * until the table stops.
 */
void npuep_ft_stats_work(struct work_struct *work)
{
	struct npuep_ft *ft = container_of(to_delayed_work(work), struct npuep_ft,
					   stats_work);
	struct npu_cmd_conn_stats resp;
	struct npu_cmd_conn_ref ref;
	u32 i, j, n, more;

	for (i = 0; i < ft->conn_max; i += NPU_CONN_STATS_MAX) {
		npuep_ft_lock_bh(ft);
		for (j = 0; j < NPU_CONN_STATS_MAX && i + j < ft->conn_max; j++)
			if (npuep_conn_at(ft, i + j))
				break;
		more = ft->nconns;
		npuep_ft_unlock(ft);
		if (j == NPU_CONN_STATS_MAX || i + j >= ft->conn_max) {
			if (!more)
				break;
			continue;
		}
		/*
		 * The read is waited for outside the flow-table lock: the
		 * answers are matched to connections by index and revision
		 * below, so a connection replaced meanwhile is skipped.
		 */
		ref.conn = cpu_to_le32(i);
		ref.rev = 0;
		ref.count = cpu_to_le16(min_t(u32, NPU_CONN_STATS_MAX, ft->conn_max - i));
		if (npuep_cmd_exec_ring(ft->ndev, READ_ONCE(ft->ndev->dlx.flow_cmd_ring),
					NPU_CMD_CONN_STATS, &ref, sizeof(ref),
					&resp, sizeof(resp)))
			break;
		npuep_ft_lock_bh(ft);
		ft->st.stats_reads++;
		n = min_t(u32, le16_to_cpu(resp.count), NPU_CONN_STATS_MAX);
		for (j = 0; j < n; j++) {
			const struct npu_conn_stat *s = &resp.st[j];
			u32 idx = le32_to_cpu(s->conn);
			struct npuep_conn *c;
			u64 p0, p1;

			if (idx >= ft->conn_max)
				continue;	/* untrusted */
			c = npuep_conn_at(ft, idx);
			if (!c || le16_to_cpu(s->rev) != c->rev)
				continue;
			p0 = le64_to_cpu(s->packets[0]);
			p1 = le64_to_cpu(s->packets[1]);
			/* Counters restart with a new revision. */
			if (p0 < c->pkts[0] || p1 < c->pkts[1])
				npuep_conn_stats_reset(c);
			if (p0 != c->pkts[0] || p1 != c->pkts[1])
				c->lastused = jiffies - msecs_to_jiffies(le32_to_cpu(s->idle_ms));
			c->pkts[0] = p0;
			c->pkts[1] = p1;
			c->bytes[0] = le64_to_cpu(s->bytes[0]);
			c->bytes[1] = le64_to_cpu(s->bytes[1]);
			c->state = s->state;
		}
		npuep_ft_unlock(ft);
		cond_resched();
	}
	if (!ft->stopping)
		queue_delayed_work(system_unbound_wq, &ft->stats_work,
				   msecs_to_jiffies(NPUEP_FLOW_STATS_MS));
}
