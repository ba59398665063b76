// SPDX-License-Identifier: GPL-2.0
/*
 * fmd_walk.c - npuflowd's walks of the classifier's candidates in bulk
 * (fmd_walk.h): the rescan after lost threshold events and the waiting
 * connections' rates.  Each reads at most FMD_WALK_SLICE candidates a tick,
 * FMD_WALK_BATCH a system call.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "fmd.h"
#include "fmd_walk.h"
#include "../lib/npuflow_fmt.h"

#define FMD_WALK_SLICE		8192
#define FMD_WALK_BATCH		256

/*
 * The classifier marks a candidate whose threshold event found the ring
 * full (NPUFLOW_CF_EVENT_LOST) and counts it (NPUFLOW_S_EVENT_LOST).  When
 * that count has moved past what the last complete walk covered
 * (NPUFLOW_FM_RESCAN_LOST, pinned with the other counters, so a restart
 * walks once after losses while it was down), the candidates are walked
 * with bpf_map_lookup_batch() - a candidate present for the whole walk is
 * read exactly once - and each marked one goes through fmd_event() as its
 * event would have, once (fm_rescan_take).  What was handed over is
 * remembered by the process only: the first walk after a restart hands
 * over again the marked candidates still there - the restart forgot the
 * refused and watched entries (fm_restore), which are looked up afresh,
 * and the restored ones' states take a crossing seen twice as the event
 * path does (stale, punted while made, seen while held).  Bounded: a walk
 * begins at most every FMD_RESCAN_GAP_NS; each tick reads at most
 * FMD_WALK_SLICE candidates and hands over at most FMD_RESCAN_FEED
 * crossings (as many as events a pass over the ring), the rest waits for
 * the next tick.  The count is looked at only when events were handed over
 * since the last look (and once after a start): an event is lost only
 * while the ring is full, and a full ring's events are all handed over
 * after the loss, so a look after them finds it; a quiet loop reads no
 * counters.
 */
#define FMD_RESCAN_GAP_NS	(200ull * 1000000)
#define FMD_RESCAN_FEED		64

/*
 * The counters of every port slot and CPU into d->counters_buf, in one
 * bpf_map_lookup_batch() (slot after slot, each its CPUs' values): the
 * slots read, or -1.  A kernel without batch lookups of arrays is read a
 * slot at a time from then on.
 */
static int read_counters(struct fmd *d, size_t vsz)
{
	DECLARE_LIBBPF_OPTS(bpf_map_batch_opts, o);
	uint32_t keys[NPUFLOW_PORT_SLOTS], count = NPUFLOW_PORT_SLOTS, next, slot;
	char *buf = d->counters_buf;
	int e;

	if (!d->counters_no_batch) {
		e = bpf_map_lookup_batch(d->counters_fd, NULL, &next, keys, buf, &count, &o);
		if (!e || e == -ENOENT)
			return count;
		if (e != -EINVAL && e != -ENOTSUP && e != -EOPNOTSUPP)
			return -1;
		d->counters_no_batch = 1;
	}
	for (slot = 0; slot < NPUFLOW_PORT_SLOTS; slot++)
		if (bpf_map_lookup_elem(d->counters_fd, &slot, buf + slot * d->ncpu * vsz))
			return -1;
	return NPUFLOW_PORT_SLOTS;
}

/* The classifier's NPUFLOW_S_EVENT_LOST, every port slot and CPU: 0, or -1. */
static int read_lost(struct fmd *d, uint64_t *out)
{
	size_t vsz = (sizeof(struct npuflow_counters) + 7) & ~(size_t)7;
	uint64_t sum = 0;
	int i, n;

	if (d->counters_fd < 0)
		return -1;
	if (!d->counters_buf) {
		d->ncpu = libbpf_num_possible_cpus();
		if (d->ncpu <= 0)
			return -1;
		d->counters_buf = calloc((size_t)NPUFLOW_PORT_SLOTS * d->ncpu, vsz);
		if (!d->counters_buf)
			return -1;
	}
	n = read_counters(d, vsz);
	if (n < 0)
		return -1;
	for (i = 0; i < n * d->ncpu; i++) {
		const struct npuflow_counters *pc =
			(const void *)((const char *)d->counters_buf + i * vsz);

		sum += pc->stat[NPUFLOW_S_EVENT_LOST];
	}
	*out = sum;
	return 0;
}

/* Room for @n candidates in @r's batch: 0, or -ENOMEM. */
static int walk_room(struct fmd_cwalk *r, uint32_t n)
{
	struct npuflow_key *k;
	struct npuflow_cand *v;

	if (r->cap >= n)
		return 0;
	k = realloc(r->keys, (size_t)n * sizeof(*k));
	if (!k)
		return -ENOMEM;
	r->keys = k;
	v = realloc(r->vals, (size_t)n * sizeof(*v));
	if (!v)
		return -ENOMEM;
	r->vals = v;
	r->cap = n;
	return 0;
}

/* Walk @r from the start. */
static void walk_begin(struct fmd_cwalk *r)
{
	r->first = 1;
	r->last = 0;
	r->n = r->pos = 0;
}

/* The next batch of candidates of map @fd into @r's keys/vals: 0, or -errno. */
static int walk_batch(struct fmd_cwalk *r, int fd)
{
	DECLARE_LIBBPF_OPTS(bpf_map_batch_opts, o);
	__u32 count = 0, out = 0;
	int e = walk_room(r, FMD_WALK_BATCH);

	r->n = r->pos = 0;
	while (!e) {
		count = r->cap;
		e = bpf_map_lookup_batch(fd, r->first ? NULL : &r->token, &out, r->keys,
					 r->vals, &count, &o);
		if (e != -ENOSPC || count || r->cap >= (1u << 20))
			break;
		e = walk_room(r, r->cap * 2);		/* a bucket longer than the batch */
	}
	if (e && e != -ENOENT)
		return e;
	r->n = count;
	if (e)
		r->last = 1;	/* -ENOENT: the last bucket was read */
	r->token = out;
	r->first = 0;
	return 0;
}

/* A marked candidate, as its threshold event would have been. */
static void rescan_feed(struct fmd *d, const struct npuflow_key *k, const struct npuflow_cand *v)
{
	struct npuflow_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.type = NPUFLOW_EV_THRESHOLD;
	ev.conn = v->conn;
	ev.ts_ns = v->last_ns;		/* its crossing's own time is not kept */
	ev.frames = v->frames;
	ev.bytes = v->bytes;
	ev.key = *k;
	ev.reason = v->reason;
	ev.port = v->port;
	ev.tcp_flags = v->tcp_flags;
	ev.flags = v->flags;
	if (d->o->log_level >= L_DBG) {
		char kb[160];

		npuflow_fmt_key(k, kb, sizeof(kb));
		d->log(L_DBG, "rescan: %s crossed the threshold, its event lost (%llu frames)",
		       kb, (unsigned long long)v->frames);
	}
	fmd_event(d, &ev, fmd_now());
}

void fmd_rescan(struct fmd *d, uint64_t now)
{
	struct fmd_rescan *r = &d->rs;
	struct fmd_cwalk *w = &r->w;
	uint32_t walked = 0, fed = 0;
	uint64_t lost;
	int e;

	if (!r->active) {
		if (now < r->next_ns || d->cand_fd < 0 ||
		    (r->looked && r->events_at == d->events_seen))
			return;
		r->next_ns = now + FMD_RESCAN_GAP_NS;
		r->looked = 1;
		r->events_at = d->events_seen;
		if (read_lost(d, &lost) || lost == d->fm.stat[NPUFLOW_FM_RESCAN_LOST])
			return;
		r->active = 1;
		r->lost = lost;
		walk_begin(w);
		r->walked = r->found = 0;
		fm_rescan_begin(&r->seen);
		d->fm.stat[NPUFLOW_FM_RESCANS]++;
	}
	while (fed < FMD_RESCAN_FEED) {
		struct npuflow_cand v;
		const struct npuflow_key *k;

		if (w->pos == w->n) {
			if (w->last || walked >= FMD_WALK_SLICE)
				break;
			e = walk_batch(w, d->cand_fd);
			if (e) {
				d->log(L_WARN, "rescan of the candidates: %s (again in %llu ms)",
				       strerror(-e),
				       (unsigned long long)(FMD_RESCAN_GAP_NS / 1000000));
				r->active = 0;
				return;
			}
			walked += w->n;
			r->walked += w->n;
			continue;
		}
		k = &w->keys[w->pos];
		if (!fm_missed(&w->vals[w->pos++]))
			continue;
		/* read again: the batch may be a tick old, the candidate gone or made again */
		if (fmd_read_cand(d, k, &v) || !fm_missed(&v) || !fm_rescan_take(&r->seen, k, &v))
			continue;
		rescan_feed(d, k, &v);
		fed++;
		r->found++;
		d->fm.stat[NPUFLOW_FM_RESCANNED]++;
	}
	if (w->pos < w->n || !w->last)
		return;		/* goes on at the next tick */
	fm_rescan_end(&r->seen);
	d->log(L_WARN, "threshold events lost (event ring full, %llu so far): rescanned %llu "
	       "candidates, %llu crossing(s) handed to the flow maker",
	       (unsigned long long)r->lost, (unsigned long long)r->walked,
	       (unsigned long long)r->found);
	d->fm.stat[NPUFLOW_FM_RESCAN_LOST] = r->lost;
	r->active = 0;
	r->next_ns = now + FMD_RESCAN_GAP_NS;
}

/*
 * The rates of the connections waiting for a full table come from their
 * candidates' frame counts: a walk every FMD_BUSY_GAP_NS while any wait
 * (fm_waiting()), in slices as the rescan's, each candidate handed to
 * fm_waiting_seen() (a lookup in the policy core's index; the candidates
 * of made and other connections are skipped there).  Two walks a slot
 * apart give a rate; the first gives the average since the candidate's
 * first frame, so a bulk stream that starts while the table is full can be
 * seen busy by the first walk (fm_evict.c).  A walk of 32,768 candidates
 * is 128 system calls; its cost grows with the candidates, so the gap is
 * stretched by it: to a fiftieth of the loop, up to FMD_BUSY_MAX_NS, while
 * a waiting connection is busy (fm_busy_waiting(): the eviction pass ranks
 * them), to a hundredth, up to FMD_BUSY_QUIET_MAX_NS, while none is (a
 * busy newcomer is then seen within that).
 */
#define FMD_BUSY_GAP_NS		(2000ull * 1000000)
#define FMD_BUSY_MAX_NS		(10000ull * 1000000)
#define FMD_BUSY_QUIET_MAX_NS	(30000ull * 1000000)

void fmd_busy_walk(struct fmd *d, uint64_t now)
{
	struct fmd_busy *b = &d->busy;
	struct fmd_cwalk *w = &b->w;
	uint64_t t0 = fmd_now(), end;
	uint32_t walked = 0;
	int e;

	if (!b->active) {
		if (now < b->next_ns || d->cand_fd < 0 || !fm_waiting(&d->fm))
			return;
		b->active = 1;
		b->spent_ns = 0;
		walk_begin(w);
		d->fm.stat[NPUFLOW_FM_BUSY_WALKS]++;
	}
	for (;;) {
		if (w->pos == w->n) {
			if (w->last || walked >= FMD_WALK_SLICE)
				break;
			e = walk_batch(w, d->cand_fd);
			if (e) {
				d->log(L_WARN, "walk of the candidates for the waiting connections' "
				       "rates: %s (again in %llu ms)", strerror(-e),
				       (unsigned long long)(FMD_BUSY_GAP_NS / 1000000));
				w->last = 1;
				break;
			}
			walked += w->n;
			continue;
		}
		fm_waiting_seen(&d->fm, &w->keys[w->pos], w->vals[w->pos].frames,
				w->vals[w->pos].first_ns, now);
		w->pos++;
	}
	end = fmd_now();
	b->spent_ns += end - t0;
	d->busy_ns += end - t0;
	if (!w->last)
		return;		/* goes on at the next tick */
	b->active = 0;
	b->next_ns = fm_busy_waiting(&d->fm, end) ?
		     fm_pace_next(end, FMD_BUSY_GAP_NS, b->spent_ns, FMD_BUSY_MAX_NS) :
		     fm_pace_next_share(end, FMD_BUSY_GAP_NS, b->spent_ns, FMD_BUSY_QUIET_MAX_NS,
					FM_PACE_SHARE_QUIET);
}

void fmd_walks_free(struct fmd *d)
{
	free(d->rs.w.keys);
	free(d->rs.w.vals);
	fm_rescan_free(&d->rs.seen);
	free(d->busy.w.keys);
	free(d->busy.w.vals);
}
