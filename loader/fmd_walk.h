/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fmd_walk.h - npuflowd's walks of the classifier's candidates in bulk
 * (bpf_map_lookup_batch(), in slices across ticks): the rescan after lost
 * threshold events, and the rates of the connections that wait for a full
 * hardware table (the busiest win, fm_evict.c).
 */
#ifndef _FMD_WALK_H
#define _FMD_WALK_H

#include <stdint.h>
#include "flowmaker.h"

struct fmd;

/* One walk's position and its last batch. */
struct fmd_cwalk {
	uint32_t token;			/* bpf_map_lookup_batch's position: a bucket */
	int first, last;		/* no position yet; the last bucket is read */
	struct npuflow_key *keys;	/* the batch read, @n entries, @pos handled */
	struct npuflow_cand *vals;
	uint32_t cap, n, pos;
};

/* The rescan after lost threshold events (fmd_rescan()). */
struct fmd_rescan {
	int active;
	uint64_t lost;			/* the classifier's EVENT_LOST total when it began */
	uint64_t next_ns;		/* none begins (or is checked for) before */
	/* the ring's events handed over (fmd_event()) at the last look at
	 * EVENT_LOST, and whether there was one */
	uint64_t events_at;
	int looked;
	struct fmd_cwalk w;
	uint64_t walked, found;		/* this walk: candidates read, crossings handed over */
	struct fm_rescan seen;
};

/* The walk for the waiting connections' rates (fmd_busy_walk()). */
struct fmd_busy {
	int active;
	uint64_t next_ns;		/* none begins before */
	uint64_t spent_ns;		/* this walk's time so far, its slices' */
	struct fmd_cwalk w;
};

/*
 * After lost threshold events (NPUFLOW_S_EVENT_LOST moved past what the
 * last complete walk covered): walks the candidates and hands each one
 * marked NPUFLOW_CF_EVENT_LOST to fmd_event() as its event would have been,
 * once.  Call each tick.
 */
void fmd_rescan(struct fmd *d, uint64_t now);
/*
 * While connections wait for a full table (fm_waiting()): walks the
 * candidates every FMD_BUSY_GAP_NS (longer as its cost grows) and samples the waiting connections'
 * rates (fm_waiting_seen()).  Call each tick.
 */
void fmd_busy_walk(struct fmd *d, uint64_t now);
void fmd_walks_free(struct fmd *d);

#endif
