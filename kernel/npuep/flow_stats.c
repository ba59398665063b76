// SPDX-License-Identifier: GPL-2.0
/*
 * npuep flow offload: the connection statistics area (npu_hw.h,
 * NPU_REG_FT_STATS) and its periodic read into the shadow table, which
 * FLOW_CLS_STATS answers from (so conntrack keeps offloaded connections
 * alive).  The device keeps one entry per connection index up to date as
 * it forwards; the driver reads the area once a pass, with no command per
 * connection.
 */
#include <linux/dma-mapping.h>
#include <linux/jiffies.h>
#include <linux/sched.h>
#include <linux/workqueue.h>

#include "npuep.h"
#include "flow_priv.h"

/* Connection indices read per hold of the flow-table lock. */
#define NPUEP_FLOW_STATS_CHUNK	1024

/**
 * npuep_ft_area_alloc() - allocate the statistics area and give it to the device
 * @ft: the table; @ft->conn_max entries are allocated (up to
 *	NPU_FT_CONNS_MAX x 48 bytes = 3 MiB)
 *
 * Writes NPU_REG_FT_STATS: SIZE 0, BASE, then SIZE, and reads SIZE back:
 * a device that refused the area (SIZE 0) is an error.
 *
 * Return: 0, -ENOMEM or -EIO.
 */
int npuep_ft_area_alloc(struct npuep_ft *ft)
{
	struct npuep_dev *ndev = ft->ndev;
	size_t size = (size_t)ft->conn_max * sizeof(*ft->area);

	ft->area = dma_alloc_coherent(ndev->hw->dma_dev, size, &ft->area_dma,
				      GFP_KERNEL);
	if (!ft->area)
		return -ENOMEM;
	ft->area_n = ft->conn_max;
	npuep_wr32(ndev, NPU_REG_FT_STATS + NPU_FT_STATS_SIZE, 0);
	npuep_wr32(ndev, NPU_REG_FT_STATS + NPU_FT_STATS_BASE,
		   lower_32_bits(ft->area_dma));
	npuep_wr32(ndev, NPU_REG_FT_STATS + NPU_FT_STATS_BASE_HI,
		   upper_32_bits(ft->area_dma));
	npuep_wr32(ndev, NPU_REG_FT_STATS + NPU_FT_STATS_SIZE, ft->area_n);
	if (npuep_rd32(ndev, NPU_REG_FT_STATS + NPU_FT_STATS_SIZE) != ft->area_n) {
		npuep_ft_area_free(ft);
		return -EIO;
	}
	return 0;
}

/**
 * npuep_ft_area_free() - take the statistics area back from the device, free it
 * @ft: the table (no stats pass runs)
 *
 * SIZE 0 first: the device writes the area no more once the write is done
 * (the register read after it flushes a posted write).
 */
void npuep_ft_area_free(struct npuep_ft *ft)
{
	struct npuep_dev *ndev = ft->ndev;

	if (!ft->area)
		return;
	npuep_wr32(ndev, NPU_REG_FT_STATS + NPU_FT_STATS_SIZE, 0);
	npuep_rd32(ndev, NPU_REG_FT_STATS + NPU_FT_STATS_SIZE);
	dma_free_coherent(ndev->hw->dma_dev,
			  (size_t)ft->area_n * sizeof(*ft->area), ft->area,
			  ft->area_dma);
	ft->area = NULL;
	ft->area_n = 0;
}

/* A consistent entry as the device wrote it, converted to CPU order. */
struct npuep_area_read {
	u32 conn;
	u16 rev;
	u8 state;
	u64 packets[2];
	u64 bytes[2];
	u32 last_ms;
};

/*
 * Read entry @e: its revision and state before and after the rest, so that
 * an entry the device rewrote meanwhile (npu_hw.h) is not taken half old,
 * half new.  Return: false if it moved (read it the next pass).
 */
static bool npuep_area_read(const struct npu_conn_stats_entry *e,
			    struct npuep_area_read *r)
{
	int d;

	r->rev = le16_to_cpu(READ_ONCE(e->rev));
	r->state = READ_ONCE(e->state);
	dma_rmb();
	r->conn = le32_to_cpu(READ_ONCE(e->conn));
	for (d = 0; d < 2; d++) {
		r->packets[d] = le64_to_cpu(READ_ONCE(e->packets[d]));
		r->bytes[d] = le64_to_cpu(READ_ONCE(e->bytes[d]));
	}
	r->last_ms = le32_to_cpu(READ_ONCE(e->last_ms));
	dma_rmb();
	return le16_to_cpu(READ_ONCE(e->rev)) == r->rev &&
	       READ_ONCE(e->state) == r->state;
}

/* An entry's counters applied to its connection, under ft->lock. */
static void npuep_conn_stats_update(struct npuep_conn *c,
				    const struct npuep_area_read *r, u32 clock)
{
	u32 idle = clock - r->last_ms;

	/* Only a frame forwarded since the last pass moves last-used. */
	if (npuep_conn_count(&c->cnt, r->rev, r->packets, r->bytes))
		c->lastused = jiffies - min_t(unsigned long, msecs_to_jiffies(idle),
					      jiffies - c->lastused);
	c->state = r->state;
}

/*
 * Read connection @c's entry, under ft->lock.  The device is untrusted: an
 * entry of another index or with an impossible state is refused and
 * counted (fp_stats_bad); one of another revision (a rewrite the device
 * has not executed yet, or a lie) is skipped and counted (fp_stats_stale),
 * each counted only when @count (the pass's read, not a rewrite's);
 * either way no connection's counters or last-used move for it, so that a
 * lie never keeps a dead connection alive in conntrack.  A FREE entry (not
 * made yet, or taken out) changes nothing.
 */
static void npuep_conn_stats_read(struct npuep_ft *ft, struct npuep_conn *c,
				  u32 clock, bool count)
{
	struct npuep_area_read r;

	if (!npuep_area_read(&ft->area[c->idx], &r))
		return;
	if (r.conn != c->idx || r.state > NPU_CONN_NOT_ACTIVE) {
		if (count)
			ft->st.stats_bad++;
		return;
	}
	if (r.state == NPU_CONN_FREE)
		return;
	if (r.rev != c->rev) {
		if (count)
			ft->st.stats_stale++;
		return;
	}
	npuep_conn_stats_update(c, &r, clock);
}

/**
 * npuep_conn_stats_sync() - read a live connection's counters before a rewrite
 * @ft: the flow table, locked
 * @c: the connection, written before, about to be written under a new
 *     revision
 *
 * The device counts a new revision from zero: what it counted under the
 * current one since the last pass is read now, so that the connection's
 * totals keep it.  Frames the device forwards between this read and its
 * executing the rewrite are not counted.  An entry of another revision or
 * an impossible one is left to the next pass, which counts it.
 */
void npuep_conn_stats_sync(struct npuep_ft *ft, struct npuep_conn *c)
{
	if (!ft->area || c->idx >= ft->area_n)
		return;
	npuep_conn_stats_read(ft, c, npuep_rd32(ft->ndev, NPU_REG_FT_STATS +
						NPU_FT_STATS_CLOCK), false);
}

/*
 * Read the entries of every connection in the shadow table, a chunk of
 * indices per hold of the lock (softirqs off: nothing here sleeps, and the
 * receive path does not run inside the hold), with a reschedule point
 * between chunks.  Return: false if the table held nothing.
 */
static bool npuep_ft_area_scan(struct npuep_ft *ft)
{
	u32 clock = npuep_rd32(ft->ndev, NPU_REG_FT_STATS + NPU_FT_STATS_CLOCK);
	struct npuep_conn *c;
	u32 i, j, end;

	for (i = 0; i < ft->area_n; i = end) {
		end = min_t(u32, i + NPUEP_FLOW_STATS_CHUNK, ft->area_n);
		npuep_ft_lock_bh(ft);
		if (!ft->nconns) {
			npuep_ft_unlock(ft);
			return false;
		}
		for (j = i; j < end; j++) {
			c = npuep_conn_at(ft, j);
			if (c)
				npuep_conn_stats_read(ft, c, clock, true);
		}
		if (end == ft->area_n)
			ft->st.stats_reads++;
		npuep_ft_unlock(ft);
		cond_resched();
	}
	return true;
}

/**
 * npuep_ft_stats_work() - read every connection's counters back, once a second
 * @work: ft->stats_work
 *
 * While the table holds connections: one pass over the statistics area
 * (npuep_ft_area_scan(); a pass that completes counts in fp_stats_reads),
 * then one waited NPU_CMD_NOP on the high ring.  The NOP is the command
 * engine's heartbeat: the flow writes are posted, so without it a stopped
 * engine would go unnoticed while connections are held (a NOP that times
 * out is counted in read_timeouts, and the NPUEP_CMD_READ_MISSES-th in a
 * row is reported to the "cmd" health reporter).  Per pass: no command per
 * connection, one register read and one NOP.  An empty table costs a check
 * of its count.  The next pass starts NPUEP_FLOW_STATS_MS later, until the
 * table stops.
 */
void npuep_ft_stats_work(struct work_struct *work)
{
	struct npuep_ft *ft = container_of(to_delayed_work(work), struct npuep_ft,
					   stats_work);

	if (READ_ONCE(ft->nconns) && npuep_ft_area_scan(ft))
		npuep_cmd_exec(ft->ndev, NPU_CMD_NOP, NULL, 0, NULL, 0);
	if (!ft->stopping)
		queue_delayed_work(system_unbound_wq, &ft->stats_work,
				   msecs_to_jiffies(NPUEP_FLOW_STATS_MS));
}
