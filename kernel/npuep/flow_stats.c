// SPDX-License-Identifier: GPL-2.0
/*
 * npuep flow offload: the periodic read-back of connection statistics
 * (FLOW_CLS_STATS answers from it, so conntrack keeps offloaded
 * connections alive).
 */
#include <linux/workqueue.h>

#include "npuep.h"
#include "flow_priv.h"

/* One entry of an answer applied to its connection, under ft->lock. */
static void npuep_conn_stats_update(struct npuep_conn *c,
				    const struct npu_conn_stat *s)
{
	u64 p0 = le64_to_cpu(s->packets[0]);
	u64 p1 = le64_to_cpu(s->packets[1]);

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

/*
 * Apply an answer for the @asked connections from index @first, under
 * ft->lock.  The device is untrusted: an answer with more entries than
 * asked for is refused whole; an entry outside the asked range or with no
 * connection state is skipped and counted (fp_stats_bad), so that a lie
 * never refreshes another connection's last-used time (conntrack would
 * keep a dead connection alive).  A connection replaced since the read
 * went out has another revision and is skipped.
 */
static void npuep_ft_stats_apply(struct npuep_ft *ft,
				 const struct npu_cmd_conn_stats *resp,
				 u32 first, u32 asked)
{
	u32 j, n = le16_to_cpu(resp->count);

	ft->st.stats_reads++;
	if (n > asked) {
		ft->st.stats_bad++;
		return;
	}
	for (j = 0; j < n; j++) {
		const struct npu_conn_stat *s = &resp->st[j];
		u32 idx = le32_to_cpu(s->conn);
		struct npuep_conn *c;

		if (idx < first || idx - first >= asked ||
		    s->state > NPU_CONN_NOT_ACTIVE) {
			ft->st.stats_bad++;
			continue;
		}
		c = npuep_conn_at(ft, idx);
		if (c && le16_to_cpu(s->rev) == c->rev)
			npuep_conn_stats_update(c, s);
	}
}

/* Whether [first, first + @asked) holds a connection; *@any: the table holds one. */
static bool npuep_ft_stats_wanted(struct npuep_ft *ft, u32 first, u32 asked,
				  bool *any)
{
	u32 j;

	npuep_ft_lock_bh(ft);
	for (j = 0; j < asked; j++)
		if (npuep_conn_at(ft, first + j))
			break;
	*any = ft->nconns;
	npuep_ft_unlock(ft);
	return j < asked;
}

/**
 * npuep_ft_stats_work() - read every connection's counters back, once a second
 * @work: ft->stats_work
 *
 * NPU_CMD_CONN_STATS for NPU_CONN_STATS_MAX connections at a time, waited
 * for outside the flow-table lock on the high ring (npuep_cmd_exec()), so
 * that a read never queues behind the table writes posted on the normal
 * one; a read that times out costs no ring reset.  The answers (untrusted: count, index,
 * state and revision checked) update the shadow's counters and last-used
 * time, which FLOW_CLS_STATS reports.  The lock is held with softirqs off
 * around the parts that touch the table (neither sleeps), so that the
 * receive path does not run inside the hold.  A failed read ends the
 * round; the next starts NPUEP_FLOW_STATS_MS later, until the table stops.
 */
void npuep_ft_stats_work(struct work_struct *work)
{
	struct npuep_ft *ft = container_of(to_delayed_work(work), struct npuep_ft,
					   stats_work);
	struct npu_cmd_conn_stats resp;
	struct npu_cmd_conn_ref ref;
	u32 i, asked;
	bool any;

	for (i = 0; i < ft->conn_max; i += NPU_CONN_STATS_MAX) {
		asked = min_t(u32, NPU_CONN_STATS_MAX, ft->conn_max - i);
		if (!npuep_ft_stats_wanted(ft, i, asked, &any)) {
			if (!any)
				break;
			continue;
		}
		ref.conn = cpu_to_le32(i);
		ref.rev = 0;
		ref.count = cpu_to_le16(asked);
		if (npuep_cmd_exec(ft->ndev, NPU_CMD_CONN_STATS, &ref,
				   sizeof(ref), &resp, sizeof(resp)))
			break;
		npuep_ft_lock_bh(ft);
		npuep_ft_stats_apply(ft, &resp, i, asked);
		npuep_ft_unlock(ft);
		cond_resched();
	}
	if (!ft->stopping)
		queue_delayed_work(system_unbound_wq, &ft->stats_work,
				   msecs_to_jiffies(NPUEP_FLOW_STATS_MS));
}
