/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fmd_keepalive.h - npuflowd's keepalive: the hardware's counters in (a
 * terse dump of our rules), conntrack timeouts out, paced by its own cost
 * and by conntrack's timeouts as they are now; and the full dump of the
 * rules that a restart reconciles against.
 */
#ifndef _FMD_KEEPALIVE_H
#define _FMD_KEEPALIVE_H

#include <stdint.h>

struct fmd;
struct fm_entry;
struct tcfl_info;

/* What a dump of our rules collects (fmd_keepalive.c). */
struct fmd_ka_dump {
	struct fmd *d;
	uint64_t now;
	struct fmd_ka_orphan { uint32_t handle, prio_proto; } *orph;
	uint32_t norphans, cap;
	uint32_t *refresh;
	uint32_t nrefresh, rcap;
	uint8_t *present;	/* restore: bit per direction */
	uint32_t nrules;	/* rules of ours seen, owned or not */
	/* a stepped run's: when the datagram being parsed was filled (the kernel
	 * fills the next as one is read); a rule of a connection made since is
	 * a rule gone under a reused id: neither counted nor an orphan */
	uint64_t filled_ns;
};

/*
 * A keepalive run that took 10 ms or more the last time, and that spread
 * at its share still ends within keepalive's bound, is read in steps, a
 * port's dump a datagram at a time on its own socket, each step followed by
 * a gap so that the run keeps to its share of the loop all along instead
 * of holding it for seconds at once (fmd_keepalive_tick()).
 */
struct fmd_ka_run {
	struct fmd_ka_dump c;
	int port;		/* the port whose dump is being read; -1: no run */
	uint32_t seq;		/* that dump's */
	uint64_t start_ns;	/* the run began */
	uint64_t spent_ns;	/* its steps' time so far */
	uint64_t next_ns;	/* its next step */
	uint64_t last_ns;	/* the last whole run's time (its steps'), 0: none yet */
	/* what the last whole run found: rules of ours, and the rules written
	 * by its start (NPUFLOW_FM_HW_WRITES); with no rule seen and none
	 * written since, and no connection made, a run has nothing to read */
	uint32_t rules_seen;
	uint64_t writes_at;
	uint64_t paced_start;	/* the last run's start and time, as paced */
	uint64_t paced_took;
	uint32_t paced_share;	/* the share it was paced at (pace_share()) */
};

/*
 * fmd_keepalive_tick() - call each tick: re-reads conntrack's timeouts once
 * a second (an operator's cut is obeyed within one) and runs a keepalive
 * when due (fm_pace_next(), fm_keepalive_bound()), or the next step of a
 * stepped run when its gap is over.
 */
void fmd_keepalive_tick(struct fmd *d, uint64_t now);
/* fmd_keepalive_init() opens keepalive's own rtnetlink socket (a stepped
 * run's dump waits on it between steps), fmd_keepalive_fini() closes it. */
void fmd_keepalive_init(struct fmd *d);
void fmd_keepalive_fini(struct fmd *d);
/*
 * fmd_keepalive_made() - @e was just made at @now: its class's timeout
 * bounds the next keepalive (conntrack expires it a timeout after the
 * host's last frame of it), and its first refresh is due a quarter of the
 * timeout its lookup found left after @now (the host's frames set it).
 */
void fmd_keepalive_made(struct fmd *d, struct fm_entry *e, uint64_t now);
/*
 * fmd_keepalive_restored() - @e, restored and never refreshed since, has
 * @left_s of its conntrack timeout left at @now (the restore's dump): with
 * at least half its class's timeout left, its first refresh is due a
 * quarter of @left_s later, as after a make; with less, at the next
 * keepalive (whose pace, a quarter of the class's timeout at most, could
 * otherwise come after @left_s).
 */
void fmd_keepalive_restored(struct fmd *d, struct fm_entry *e, uint32_t left_s, uint64_t now);
/*
 * fmd_rules_dump() - every port's rules of ours, in full: each one that
 * belongs to no connection (or to one already seen) deleted, and counted as
 * an orphan if its delete removed it, each one that does marked in @present (a byte per id, bit
 * 1 << direction).  Restore's reconciliation.
 */
void fmd_rules_dump(struct fmd *d, uint8_t *present, uint64_t now);
/* conntrack's TCP established and UDP stream timeouts into @d (s). */
void fmd_read_timeouts(struct fmd *d);

#endif
