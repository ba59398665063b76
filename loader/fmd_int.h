/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fmd_int.h - what the flow maker's files (fmd*.c) call of each other.  The
 * state they share is struct fmd (fmd.h); the rest of npuflowd uses fmd.h
 * only.  One job a file:
 *
 *   fmd.c           the timers, restore, setup
 *   fmd_release.c   release to the host: one or all (the control requests),
 *                   all taken back
 *   fmd_make.c      a connection's lookups and writes, in batches
 *   fmd_hw.c        the rules one at a time: add, delete, --flush
 *   fmd_ct.c        conntrack's events and sweep: what conntrack drops goes;
 *                   be-liberal, in batches
 *   fmd_watch.c     what moves under made connections: the egress, the ruleset
 *   fmd_keepalive.c the hardware's counters in, conntrack's timeouts out
 *   fmd_egress.c    a direction's egress facts (routes, ports, VLANs, neighbours)
 *   fmd_walk.c      the bulk walks of the candidates
 *   fmd_warmup.c    the first connection's one-time work, done at start
 *   fmd_maps.c      the pinned maps: records and counters mirrored, candidates
 *   fmd_util.c      the clock, names for the log, a netlink socket made anew
 *
 * The calls go one way: npuflowd calls the flow maker through fmd.h and
 * nothing here calls npuflowd; fmd.c drives the files of the jobs, and
 * those call the jobs below theirs, down to fmd_maps.c and fmd_util.c,
 * which call none; no file calls fmd.c.
 */
#ifndef _FMD_INT_H
#define _FMD_INT_H

#include <stddef.h>
#include <stdint.h>
#include "fmd.h"
#include "tcflower.h"

/* fmd.c */
/* the timers' tick: the policy's walk, keepalive, sweeps run at most this often */
#define FMD_TICK_NS		(50ull * 1000000)

/* fmd_maps.c */
/* @id's record into the pinned connections map (deleted when free). */
void fmd_sync_id(struct fmd *d, uint32_t id);
/* The counters into "fmstats" when they moved, or after a while. */
void fmd_write_stats(struct fmd *d, uint64_t now);
/* @e's candidates deleted: the classifier raises a new threshold event. */
void fmd_rearm(struct fmd *d, const struct fm_entry *e);

/* fmd_util.c */
/* @ifindex's name into @buf (IF_NAMESIZE bytes), "ifN" if it has none. */
const char *fmd_ifn(uint32_t ifindex, char *buf);
/* @k as "ifN tcp A:P > B:Q" into @buf (@len bytes), for the log. */
void fmd_fmt_key(const struct npuflow_key *k, char *buf, size_t len);
/* A socket whose dump was left unread or failed midway, made anew on @bus:
 * 0, or -1 (closed: its reader falls back to one go, with a warning). */
int fmd_nls_reset(struct fmd *d, struct nlsock *s, int bus);

/* fmd_make.c */
/* @id looked up (queued for the pass's batch); @cross_ns: its crossing. */
void fmd_lookup(struct fmd *d, uint32_t id, uint64_t now, uint64_t cross_ns);
/* The queued lookups sent and answered, the writes they lead to queued. */
void fmd_lq_flush(struct fmd *d);
/* The queued writes sent and answered. */
void fmd_wq_flush(struct fmd *d);

/* fmd_hw.c */
/* The clsact qdisc on @ifindex (once a port): 0 or -errno. */
int fmd_hw_clsact(struct fmd *d, uint32_t ifindex);
/* Rule @handle filed under (@prio, @proto) on @ifindex's ingress deleted: 0
 * if it is gone (or was not there), -errno. */
int fmd_hw_del_rule(struct fmd *d, uint32_t ifindex, uint16_t prio, uint16_t proto,
		    uint32_t handle);
/* The same, 1 if the rule was there and went, 0 if it was not there. */
int fmd_hw_del_found(struct fmd *d, uint32_t ifindex, uint16_t prio, uint16_t proto,
		     uint32_t handle);
/* Direction @dir's rule of @c deleted (fmd_hw_del_rule()). */
int fmd_hw_del_dir(struct fmd *d, const struct npuflow_conn *c, int dir);
/* Both of @e's rules deleted, its HW flags cleared. */
void fmd_hw_delete(struct fmd *d, struct fm_entry *e);
/* The same for the @n entries @es, 64 rules a sendmsg. */
void fmd_hw_delete_many(struct fmd *d, struct fm_entry *const *es, int n);
/* After rule @r of @e's direction @dir was answered @rc: counted, logged. */
void fmd_hw_write_done(struct fmd *d, const struct fm_entry *e, int dir,
		       const struct tcfl_rule *r, int rc);
/* Direction @dir's rule of @e added alone (a leftover of its handle
 * replaced): 0 or -errno. */
int fmd_hw_write_dir(struct fmd *d, struct fm_entry *e, int dir);

/* fmd_ct.c */
#define FMD_SWEEP_NS		(10ull * 1000000000)
/* @id forgotten, its rules deleted first if @a is FM_A_TAKEOUT. */
void fmd_takeout(struct fmd *d, uint32_t id, enum fm_action a);
/* Everything whose conntrack entry is gone goes: how many, -1 if the dump
 * failed.  One dump in one go (a stepped sweep under way is given up). */
int fmd_ct_sweep(struct fmd *d);
/* @id's lookup found its conntrack entry: a stepped sweep under way does
 * not sweep it (the entry may be newer than the dump's place). */
void fmd_ct_looked_up(struct fmd *d, uint32_t id);
/* ctclient's callbacks: an entry destroyed; a TCP entry left ESTABLISHED. */
void fmd_ct_destroyed(void *ctx, const struct ct_info *ci);
void fmd_ct_closing(void *ctx, const struct ct_info *ci);
/* The periodic sweep, when due (paced by its cost). */
void fmd_sweep_tick(struct fmd *d, uint64_t now);
/* Whether DESTROY events can be lost (ctc_open() tried to make them
 * reliable): logged once, at the start. */
void fmd_ct_say_reliable(struct fmd *d);
/* Both directions of the TCP ones among @ids (at most FMD_WQ_MAX) made
 * be-liberal in conntrack, in one sendmsg; failures logged. */
void fmd_liberal_many(struct fmd *d, const uint32_t *ids, int n);

/* fmd_watch.c */
/* What rtnetlink and xfrm announced since the last call: facts made stale. */
void fmd_monitor_poll(struct fmd *d);
/* The made connections' egress checked again, when due. */
void fmd_recheck_made(struct fmd *d, uint64_t now);
/* nftables committed a new ruleset: the made connections released. */
void fmd_ruleset_poll(struct fmd *d, uint64_t now);
/* At start: a ruleset committed while npuflowd was down is a change. */
void fmd_ruleset_gen_check(struct fmd *d, uint64_t now);

#endif
