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

/**
 * npuflow_cache_read - read every CPU's entries of the candidate cache
 * @cache_fd: the "candcache" map
 * @out: a malloc'ed array of the entries that hold frames (NULL on error)
 * @n: how many
 *
 * Return: 0, or -errno (the map's lookup failed, no memory, the number of
 * CPUs unknown).
 */
int npuflow_cache_read(int cache_fd, struct npuflow_cache **out, size_t *n);

/**
 * npuflow_cache_fold - add cache entries to candidate rows
 * @rows: the candidates read from the "candidates" map; reordered (by key)
 * @n: how many
 * @ents: the entries (npuflow_cache_read())
 * @nents: how many
 *
 * An entry is added to the row of the same key and first_ns: an entry of
 * a candidate since deleted, or deleted and made again, is not added (the
 * classifier drops it too).
 */
void npuflow_cache_fold(struct npuflow_row *rows, size_t n,
			const struct npuflow_cache *ents, size_t nents);

/**
 * npuflow_cache_count - add cache entries to a port's counters
 * @c: port slot @slot's counters, summed over CPUs
 * @slot: the slot
 * @ents: the entries (npuflow_cache_read())
 * @nents: how many
 *
 * A cache hit counts in its entry only, not in the counters: the entries
 * of port @slot are added here.
 */
void npuflow_cache_count(struct npuflow_counters *c, __u32 slot,
			 const struct npuflow_cache *ents, size_t nents);

/**
 * npuflow_cache_add - add cache entries to one candidate
 * @k: the candidate's key
 * @v: its value, as the "candidates" map holds it
 * @ents: the entries (npuflow_cache_read())
 * @nents: how many
 *
 * As npuflow_cache_fold() for one candidate: the entries of key @k and
 * @v's first_ns are added.
 */
void npuflow_cache_add(const struct npuflow_key *k, struct npuflow_cand *v,
		       const struct npuflow_cache *ents, size_t nents);

#endif /* _NPUFLOW_CACHE_H */
