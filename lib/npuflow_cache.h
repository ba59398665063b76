/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npuflow_cache.h - read the classifier's per-CPU candidate cache
 * ("candcache", bpf/npuflow.h) and add what it holds to candidates read
 * from the "candidates" map and to the "counters": the frames and bytes of
 * a busy candidate, and of its port, are the map's plus those (npuctl,
 * npuflowd and the tests read them so).
 */
#ifndef _NPUFLOW_CACHE_H
#define _NPUFLOW_CACHE_H

#include <stddef.h>
#include "npuflow_fmt.h"

/* Entries of every CPU that hold frames: a malloc'ed array in *@out, count in *@n. */
int npuflow_cache_read(int cache_fd, struct npuflow_cache **out, size_t *n);

/*
 * Add @ents to the rows with the same key and first_ns (an entry of a
 * candidate since deleted, or deleted and made again, is not added: the
 * classifier drops it too).  Reorders @rows (by key).
 */
void npuflow_cache_fold(struct npuflow_row *rows, size_t n,
			const struct npuflow_cache *ents, size_t nents);

/*
 * Add @ents of port slot @slot to @c (the slot's counters summed over
 * CPUs): a cache hit counts in its entry only, not in the counters.
 */
void npuflow_cache_count(struct npuflow_counters *c, __u32 slot,
			 const struct npuflow_cache *ents, size_t nents);

/* The same for one candidate @v of key @k. */
void npuflow_cache_add(const struct npuflow_key *k, struct npuflow_cand *v,
		       const struct npuflow_cache *ents, size_t nents);

#endif /* _NPUFLOW_CACHE_H */
