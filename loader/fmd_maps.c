// SPDX-License-Identifier: GPL-2.0
/*
 * fmd_maps.c - the flow maker's side of the pinned maps (fmd_int.h): each
 * connection's record mirrored into "connections" and the counters into
 * "fmstats" for npuctl; a candidate read with what the per-CPU cache holds
 * for it, and re-armed so that the classifier raises a new threshold
 * event.  It calls no other fmd file.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include "fmd_int.h"

void fmd_sync_id(struct fmd *d, uint32_t id)
{
	struct fm_entry *e = &d->fm.e[id];

	if (id >= d->fm.cfg.max_conns)
		return;
	if (e->rec.state == NPUFLOW_CS_FREE)
		bpf_map_delete_elem(d->conn_fd, &id);
	else if (bpf_map_update_elem(d->conn_fd, &id, &e->rec, BPF_ANY))
		d->log(L_WARN, "connections map: update %u: %s", id, strerror(errno));
	e->dirty = 0;
}

/* The counters are written again at least this often while only the time
 * spent moved (npuctl's "updated", the _US counters). */
#define FMD_STATS_MAX_AGE_NS	(1000ull * 1000000)

/* Whether @a and @b differ in anything but the time spent and written. */
static int stats_moved(const struct npuflow_fmstats *a, const struct npuflow_fmstats *b)
{
	struct npuflow_fmstats x = *a, y = *b;
	int i;

	for (i = NPUFLOW_FM_KEEPALIVE_US; i <= NPUFLOW_FM_TIMERS_US; i++)
		x.stat[i] = y.stat[i] = 0;
	x.updated_ns = y.updated_ns = 0;
	return memcmp(&x, &y, sizeof(x)) != 0;
}

/*
 * The counters into "fmstats" for npuctl: when a count or a state moved,
 * else once FMD_STATS_MAX_AGE_NS passed since the last write (a tick's
 * system call, twenty a second, was a tenth of an idle loop's time).
 */
void fmd_write_stats(struct fmd *d, uint64_t now)
{
	struct npuflow_fmstats st;
	uint32_t zero = 0;

	memset(&st, 0, sizeof(st));
	memcpy(st.stat, d->fm.stat, sizeof(st.stat));
	st.stat[NPUFLOW_FM_TABLE_FULL] = d->fm.full.now_full;
	st.stat[NPUFLOW_FM_FULL_WAITING] = d->fm.full.waiting;
	st.stat[NPUFLOW_FM_CT_RELIABLE] = d->ct.reliable;
	st.stat[NPUFLOW_FM_KEEPALIVE_US] = d->ka_total_ns / 1000;
	st.stat[NPUFLOW_FM_SWEEP_US] = d->sweep_ns / 1000;
	st.stat[NPUFLOW_FM_RECHECK_US] = d->egress_ns / 1000;
	st.stat[NPUFLOW_FM_RESCAN_US] = d->rescan_ns / 1000;
	st.stat[NPUFLOW_FM_TIMERS_US] = (d->fmtick_ns + d->busy_ns) / 1000;
	memcpy(st.refused, d->fm.refused, sizeof(st.refused));
	fm_count_states(&d->fm, st.state);
	st.start_ns = d->start_ns;
	st.updated_ns = now;
	if (d->stats_written.updated_ns && npuflow_since(now, d->stats_written.updated_ns) < FMD_STATS_MAX_AGE_NS &&
	    !stats_moved(&st, &d->stats_written))
		return;
	if (!bpf_map_update_elem(d->stats_fd, &zero, &st, BPF_ANY))
		d->stats_written = st;
}

/*
 * Let the classifier raise a new threshold event for @k: delete it, and bump
 * the cache generation so no CPU's cache entry keeps counting for it.
 */
static void rearm_key(struct fmd *d, const struct npuflow_key *k)
{
	bpf_map_delete_elem(d->cand_fd, k);
	if (d->cache_gen_bump)
		d->cache_gen_bump();
}

/* The candidate of @k with what the per-CPU cache holds for it (read once a tick). */
int fmd_read_cand(struct fmd *d, const struct npuflow_key *k, struct npuflow_cand *v)
{
	if (bpf_map_lookup_elem(d->cand_fd, k, v))
		return -1;
	if (d->cache_fd >= 0 && !d->cache_read) {
		free(d->cache);
		d->cache = NULL;
		d->ncache = 0;
		npuflow_cache_read(d->cache_fd, &d->cache, &d->ncache);
		d->cache_read = 1;
	}
	npuflow_cache_add(k, v, d->cache, d->ncache);
	return 0;
}

void fmd_rearm(struct fmd *d, const struct fm_entry *e)
{
	int i;

	for (i = 0; i < (e->nkeys ? e->nkeys : 1); i++)
		if (e->rec.key[i].ifindex)
			rearm_key(d, &e->rec.key[i]);
}
