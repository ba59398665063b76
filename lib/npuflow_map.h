/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npuflow_map.h - a BPF map's entries read in batches
 * (BPF_MAP_LOOKUP_BATCH), for npuctl's walks and the candidate cache's
 * reader: a system call a batch, not one an entry.
 */
#ifndef _NPUFLOW_MAP_H
#define _NPUFLOW_MAP_H

#include <stddef.h>

/*
 * npuflow_map_dump - every entry of the map @fd (an array, a hash or LRU
 * hash; a per-CPU kind too, with @vsz its per-CPU size: round_up(value_size,
 * 8) times the possible CPUs, each key's CPUs in a row), read with
 * bpf_map_lookup_batch().  An array resumes at the next index; in a hash
 * the kernel copies whole buckets under their locks and resumes at the next
 * bucket, so an entry present for the whole walk comes exactly once, one
 * added or deleted meanwhile at most once (bpf_map_get_next_key() restarts
 * from the first bucket when the key it was given has gone).  @ksz: key
 * size in bytes.  Returns the count with *keys and *vals (malloc'd, that
 * many keys and values; the caller frees both), or -errno (both NULL).
 */
long npuflow_map_dump(int fd, size_t ksz, size_t vsz, void **keys, void **vals);

#endif
