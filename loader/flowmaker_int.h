/* SPDX-License-Identifier: GPL-2.0 */
/*
 * flowmaker_int.h - what the policy core's files share (flowmaker.c,
 * fm_evict.c); the daemon uses flowmaker.h only.
 *
 * The two files are one policy core, the busiest-win pass in a file of its
 * own, so they call each other: the core runs the pass and tells it of its
 * state changes (fm_evict_tick() from fm_tick(), a promise given up,
 * a rate sampled), and the pass moves entries through the core's own
 * lookups and transitions (fm_find(), fm_lookup_start(), fm_hold()) rather
 * than a copy of them.
 */
#ifndef _FLOWMAKER_INT_H
#define _FLOWMAKER_INT_H

#include "flowmaker.h"

/* @e enters state @st at @now (a made connection leaving frees a slot). */
void fm_set_state(struct fm *fm, struct fm_entry *e, uint32_t st, uint64_t now);
/*
 * @e's candidate counts @frames/@bytes, then a lookup: FM_A_LOOKUP, or
 * FM_A_REFUSE (table_full) when the full table admits none (full_admit()).
 */
enum fm_action fm_cand_lookup(struct fm *fm, struct fm_entry *e, uint64_t frames,
			      uint64_t bytes, uint64_t now);
/* @e goes to a lookup (admitted, or its slot promised): FM_A_LOOKUP. */
enum fm_action fm_lookup_start(struct fm *fm, struct fm_entry *e, uint64_t now);
/* Made @e held until @until_ns, its rules to be taken out (a give-back, an
 * eviction): traffic seen meanwhile (NPUFLOW_CONN_F_SEEN) remakes it after. */
void fm_hold(struct fm *fm, struct fm_entry *e, uint64_t until_ns, uint64_t now);
/* Samples @count (a running total) into @r at @now (fm_evict.c). */
void fm_rate_sample(struct fm_rate *r, uint64_t count, uint64_t now);
/*
 * The eviction pass, from fm_tick(): busy waiting connections looked up
 * (@cb with FM_A_LOOKUP), each with a slower made connection's slot
 * promised to it.  How many.
 */
unsigned int fm_evict_tick(struct fm *fm, uint64_t now, fm_action_cb cb, void *ctx);
/* @e leaves its lookup without a write (refused, forgotten): the slot
 * promised to it stays with its holder. */
void fm_evict_cancel(struct fm *fm, struct fm_entry *e);

#endif
