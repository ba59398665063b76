// SPDX-License-Identifier: GPL-2.0
/*
 * npuep flow offload: the queue of posted FLOW_CLS_DESTROYs and its work.
 */
#include <linux/rhashtable.h>
#include <linux/workqueue.h>

#include "npuep.h"
#include "flow_priv.h"
#include "trace.h"

/*
 * Posted DESTROYs wait in a queue of NPUEP_FLOW_DESTROY_QLEN for the
 * destroy work, which applies them this many to a hold of the lock.
 */
#define NPUEP_FLOW_DESTROY_BATCH	8
/* The destroy work waits this long (jiffies) for more to batch and pair. */
#define NPUEP_FLOW_DESTROY_DELAY	1

/*
 * Apply up to @max queued DESTROYs (npuep_flow_destroy_cb()), oldest
 * first, under ft->lock.  Return: how many were taken from the queue.
 */
static u32 npuep_ft_dq_apply(struct npuep_ft *ft, u32 max)
{
	struct npuep_flow *f, *g;
	struct npuep_flow_ck ck;
	u32 n;

	for (n = 0; n < max; n++) {
		spin_lock(&ft->dq_lock);
		if (!ft->dq_len) {
			spin_unlock(&ft->dq_lock);
			break;
		}
		ck = ft->dq[ft->dq_head];
		ft->dq_head = (ft->dq_head + 1) % NPUEP_FLOW_DESTROY_QLEN;
		ft->dq_len--;
		spin_unlock(&ft->dq_lock);
		f = npuep_flow_by_cookie(ft, ck.cookie, ck.port);
		if (!f)
			continue;	/* went with its other direction */
		g = f->conn->flow[!f->dir];
		/*
		 * Both directions going (nf_flow_table destroys a
		 * connection's two back to back): one RECLAIM for both.
		 * The device's backlog is a teardown's tail: half the
		 * commands, half the tail.
		 */
		if (g && READ_ONCE(g->dying))
			npuep_flow_remove_conn(ft, f);
		else
			npuep_flow_remove(ft, f);
	}
	return n;
}

/*
 * Apply every queued DESTROY, NPUEP_FLOW_DESTROY_BATCH to a hold of the
 * lock.  Called by destroy_work, and before anything that must come after
 * them: a REPLACE (the kernel may offer a new flow under a destroyed
 * flow's cookie once it freed that flow), a purge.
 */
void npuep_ft_dq_flush(struct npuep_ft *ft)
{
	u32 n;

	/* a hint: a DESTROY queued before our caller was called is seen */
	while (data_race(ft->dq_len)) {
		npuep_ft_lock_writes(ft);
		n = npuep_ft_dq_apply(ft, NPUEP_FLOW_DESTROY_BATCH);
		npuep_ft_unlock(ft);
		if (!n)
			break;
		cond_resched();
	}
}

void npuep_ft_destroy_work(struct work_struct *work)
{
	npuep_ft_dq_flush(container_of(to_delayed_work(work), struct npuep_ft,
				       destroy_work));
}

/*
 * FLOW_CLS_DESTROY.  With posted writes the removal is queued for
 * destroy_work and the call returns: the kernel sends a teardown's
 * DESTROYs one per flow and direction from as many kworkers as it likes
 * (nf_flow_table's gc: one work item per flow), and each taking the
 * flow-table lock in turn spends more time waiting and handing it over
 * than removing (docs/measurements.md, "Teardown").  The queue is applied in
 * batches, in order, before any REPLACE; when it is full the caller
 * removes the flow itself.  Waited writes remove in the call.
 */
int npuep_flow_destroy_cb(struct npuep_port *port,
			  struct flow_cls_offload *cls)
{
	struct npuep_ft *ft = port->ndev->ft;
	struct npuep_flow *f;
	bool queued = false;

	/*
	 * Each direction of a flowtable's connection reaches the callback
	 * of every port of the flowtable's block; the callback of the port
	 * it enters on removes it, the others return.  That port's callback
	 * is on the same block (its REPLACE was accepted there), or its
	 * unbind purged the port's flows.  No lock for this: rhashtable lookups
	 * are RCU safe and flows are freed after a grace period; the
	 * kernel does not offer and destroy one cookie at once, so a miss
	 * here is a miss under the lock.
	 */
	rcu_read_lock();
	f = npuep_flow_by_cookie(ft, cls->cookie, port->idx);
	if (!f) {
		rcu_read_unlock();
		trace_npuep_flow_destroy(port->ndev->dev, port->idx, cls->cookie,
					 NPUEP_TRACE_DESTROY_MISS);
		return 0;
	}
	if (READ_ONCE(ft->ndev->dlx.flow_cmd_posted)) {
		spin_lock(&ft->dq_lock);
		if (ft->dq_len < NPUEP_FLOW_DESTROY_QLEN) {
			ft->dq[(ft->dq_head + ft->dq_len) % NPUEP_FLOW_DESTROY_QLEN] =
				(struct npuep_flow_ck){ .cookie = cls->cookie,
							.port = port->idx };
			ft->dq_len++;
			WRITE_ONCE(f->dying, true);
			queued = true;
		}
		spin_unlock(&ft->dq_lock);
	}
	rcu_read_unlock();
	trace_npuep_flow_destroy(port->ndev->dev, port->idx, cls->cookie,
				 queued ? NPUEP_TRACE_DESTROY_QUEUED :
					  NPUEP_TRACE_DESTROY_SYNC);
	if (queued) {
		/*
		 * A tick's wait gathers what follows (the other direction,
		 * the rest of a teardown) into batches and pairs.
		 */
		queue_delayed_work(system_highpri_wq, &ft->destroy_work,
				   NPUEP_FLOW_DESTROY_DELAY);
	} else {
		npuep_ft_lock_writes(ft);
		npuep_flow_destroy(ft, port, cls);
		npuep_ft_unlock(ft);
	}
	return 0;
}
