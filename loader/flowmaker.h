/* SPDX-License-Identifier: GPL-2.0 */
/*
 * flowmaker.h - the flow maker's policy core: which candidate becomes a
 * connection in hardware, when, and what happens to it afterwards.  Pure C:
 * no syscalls, no libbpf, no netlink; time is an input (now_ns), so every
 * decision is deterministic and unit-tested (selftests/unit/test_flowmaker.c).
 * npuflowd feeds it events (loader/npuflowd.c) and fmd.c carries out its
 * actions.
 *
 * Life of a connection (struct npuflow_conn.state):
 *
 *   threshold event ─► PENDING (bytes not reached: watched) ─► LOOKUP
 *   LOOKUP ─ conntrack + routes say no ─► REFUSED (reason; retried later, or
 *            never for helper/seqadj/IPsec/shaping/foreign egress until
 *            conntrack drops the entry)
 *   LOOKUP ─ written ─► MADE ─ revive events: counted, stays MADE (the driver
 *            revives in place)
 *   MADE ─ a direction crosses the threshold again as a flow miss / not
 *          active (new identity: given back) ─► HELD for a wait (first wait,
 *          doubling, capped; back to the first after a quiet period), its rules
 *          taken out ─► wait over: traffic seen while held ─► LOOKUP (made
 *          again); none ─► WAITING (remade at the next crossing, forgotten
 *          after the quiet period)
 *   any ─ conntrack DESTROY ─► taken out (rules deleted), forgotten
 *   MADE/HELD/WAITING ─ release ─► RELEASED (be-liberal, rules deleted) until
 *          conntrack drops it
 *   hardware table full ─► REFUSED (table_full), not an error: from then on a
 *          lookup goes ahead only for a slot that frees up, plus a probe
 *          (full_admit() in flowmaker.c); the rest wait, costing nothing
 *   MADE ─ a waiting connection at least twice as busy, looked up and about
 *          to be written (fm_evict.c) ─► HELD (NPUFLOW_CONN_F_EVICTED) for
 *          evict_hold_ns, its slot the busy one's; then as any hold:
 *          traffic seen ─► waits for a slot again
 */
#ifndef _FLOWMAKER_H
#define _FLOWMAKER_H

#include <stddef.h>
#include <stdint.h>
#include "../bpf/npuflow.h"
#include "../lib/npuflow_names.h"
#include "../lib/npuflow_time.h"

/* Defaults, see npuflowd --help (and the reasons there). */
#define FM_HOLD_MIN_NS_DEFAULT		(1000ull * 1000000)	/* seed 002: 1 s, measure */
#define FM_HOLD_MAX_NS_DEFAULT		(16000ull * 1000000)
#define FM_HOLD_QUIET_NS_DEFAULT	(30000ull * 1000000)
#define FM_RETRY_NS_DEFAULT		(1000ull * 1000000)	/* not established, no neigh, full */
/*
 * A connection refused again and again for a transient reason waits twice
 * as long each time, from cfg.retry_ns up to this: one that stays on the
 * host for minutes (no conntrack entry, a next hop unresolved, a rule the
 * driver refuses) costs a lookup every 32 s, not a lookup a second, and
 * one that becomes possible is made within twice the time it waited.
 */
#define FM_RETRY_MAX_NS			(32000ull * 1000000)
#define FM_NEVER_NS_DEFAULT		(60000ull * 1000000)	/* helper, seqadj, ...: re-checked */
#define FM_WATCH_NS_DEFAULT		(10000ull * 1000000)	/* byte threshold watch */
#define FM_FULL_PROBE_NS_DEFAULT	(5000ull * 1000000)	/* table full: a try without a slot */
/*
 * The busiest win (fm_evict.c): a connection waiting for a full table
 * displaces the made connection with the lowest rate when its own rate is
 * at least FM_EVICT_PPS_DEFAULT frames a second (MediaTek's PPE binds at 30
 * packets a second: mtk_ppe.c, MTK_PPE_BIND_RATE_BIND) and FM_EVICT_RATIO
 * times the other's; a connection is not displaced in its first
 * FM_EVICT_MIN_NS in hardware, and one displaced is held back
 * FM_EVICT_HOLD_NS (the hysteresis).
 */
#define FM_EVICT_PPS_DEFAULT		30
#define FM_EVICT_RATIO_DEFAULT		2
#define FM_EVICT_MIN_NS_DEFAULT		(10000ull * 1000000)
#define FM_EVICT_HOLD_NS_DEFAULT	(30000ull * 1000000)
/*
 * After a connection is made, misses the host processes are not a give-back
 * until the hardware has forwarded it (keepalive counters) or this long has
 * passed: the device punted them before the rules went in, NAPI ran late
 * (seen under TCG: 16 ACKs of the second direction processed after the
 * write).  One keepalive period of the default 1 s.
 */
#define FM_SETTLE_NS			(1000ull * 1000000)

struct fm_cfg {
	uint64_t thr_frames;	/* frames a direction must show (0 = not used) */
	uint64_t thr_bytes;	/* bytes a direction must show (0 = not used) */
	int thr_any;		/* 1: any threshold set suffices; 0: every one must be reached */
	uint64_t hold_min_ns;	/* first wait after a give-back */
	uint64_t hold_max_ns;	/* cap of the doubling */
	uint64_t hold_quiet_ns;	/* no give-back for this long: back to the first wait */
	uint64_t retry_ns;	/* REFUSED for a transient reason: look up again after */
	uint64_t never_ns;	/* REFUSED for a never reason: re-checked after */
	uint64_t watch_ns;	/* PENDING forgotten after */
	uint64_t full_probe_ns;	/* table full: a lookup admitted without a freed slot every */
	uint32_t evict_pps;	/* a waiting connection displaces from this rate on (0 = never) */
	uint32_t evict_ratio;	/* ... a made one this many times slower */
	uint64_t evict_min_ns;	/* ... made at least this long ago */
	uint64_t evict_hold_ns;	/* a displaced connection is held back this long */
	uint32_t max_conns;	/* entries (connections and watched candidates) */
};

/**
 * fm_cfg_init - set @c to the flow maker's defaults, npuflowd's too
 * (npuflowd_opts_init(); --help prints them)
 * @c: the settings
 */
void fm_cfg_init(struct fm_cfg *c);

/* What the daemon must do. */
enum fm_action {
	FM_A_NONE = 0,
	FM_A_WATCH,		/* under the byte threshold: keep the candidate, recheck later */
	FM_A_LOOKUP,		/* look the connection up (conntrack, routes), then fm_lookup_done */
	FM_A_WRITE,		/* write both directions, then fm_write_done */
	FM_A_REFUSE,		/* stays on the host (reason in the entry); keep the candidate */
	FM_A_HOLD,		/* take the rules out; held (wait in the entry) */
	FM_A_TAKEOUT,		/* conntrack dropped it: delete the rules, forget the entry */
	FM_A_FORGET,		/* forget the entry (nothing in hardware) */
	FM_A_RELEASE,		/* be-liberal on the conntrack entry, then delete the rules */
	FM_A_REARM,		/* delete the entry's candidates so a new crossing raises an event */
	FM_A_RECHECK,		/* refused, retry due: read the candidate, call fm_recheck */
	FM_A_MAX,
};

/* Per-direction egress facts from routes/neighbours/the port list. */
#define FM_EG_NO_ROUTE	0x01
#define FM_EG_NO_NEIGH	0x02
#define FM_EG_FOREIGN	0x04	/* not a port of the same coprocessor */
#define FM_EG_SHAPED	0x08	/* egress port has a shaping qdisc */
#define FM_EG_LOCAL	0x10	/* delivered to / sent by the host itself */
#define FM_EG_VLAN	0x20	/* tagged as npuflowd does not write (three tags, an inner
				 * 802.1ad one, no VLAN device of the host for the tags) */
#define FM_EG_UNPROVEN	0x40	/* the host has forwarded none of its frames since the last
				 * ruleset change (or ever): the firewall may drop it */
#define FM_EG_PPPOE	0x80	/* in or out of a PPPoE session npuflowd cannot resolve */

/* Conntrack facts. */
#define FM_CT_FOUND		0x01
#define FM_CT_ESTABLISHED	0x02	/* TCP ESTABLISHED, or UDP/other seen both ways */
#define FM_CT_ASSURED		0x04
#define FM_CT_HELPER		0x08
#define FM_CT_SEQADJ		0x10
#define FM_CT_IPSEC		0x20
#define FM_CT_DYING		0x40
#define FM_CT_NAT		0x80
#define FM_CT_ZONED		0x100	/* the tuple is in another conntrack zone too (ctzones.h) */
#define FM_CT_LIBERAL		0x200	/* TCP window tracking already relaxed (BE_LIBERAL) */

/* The result of a lookup, filled by the daemon. */
struct fm_lookup {
	uint32_t ct_flags;		/* FM_CT_* */
	uint32_t ct_id;
	uint32_t ct_mark;		/* conntrack's mark (policy routing by fwmark) */
	uint32_t ct_timeout;		/* the entry's timeout left, s (0: unknown) */
	uint32_t zone;
	struct npuflow_key key[2];	/* both directions as they arrive (ingress ifindex) */
	uint32_t eg_flags[2];		/* FM_EG_* per direction */
	uint32_t out_ifindex[2];	/* the port each leaves by */
	uint16_t out_vid[2];		/* the outer tag each leaves with, 0 = none */
	uint16_t out_vid_inner[2];	/* its inner tag, 0 = one tag or none */
	uint16_t out_sid[2];		/* the PPPoE session each leaves in, 0 = none */
	uint32_t out_port[2];		/* the port each leaves by (out_ifindex but for a
					 * session's ppp device) */
	uint8_t dmac[2][6];
	uint8_t smac[2][6];
	uint8_t nexthop[2][16];		/* each direction's next hop: gateway, or the
					 * destination on-link */
	int routed;			/* TTL/hop limit to decrement */
};

/*
 * One direction's rate (fm_rate_sample()): frames a second over the last
 * sample interval of at least FM_RATE_NS, the hardware's packets while the
 * connection is made, its candidate's frames while it waits.
 */
#define FM_RATE_NS	(1000ull * 1000000)
struct fm_rate {
	uint64_t base;		/* the count at @ns */
	uint64_t ns;		/* the last sample, 0 = none */
	uint32_t pps;
	uint32_t known;		/* @pps is a measured rate (two samples apart) */
};

struct fm_entry {
	struct npuflow_conn rec;	/* what the pinned map holds */
	uint32_t ix[3];			/* where the index holds its keys (internal) */
	uint8_t nkeys;			/* 1: candidate only; 2: both directions known */
	uint8_t has_ct;			/* ct key indexed */
	uint8_t dirty;			/* changed since the daemon last mirrored it */
	uint8_t probe;			/* admitted by the full table's probe (full_admit) */
	uint8_t retries;		/* transient refusals since last made (retry_wait) */
	uint8_t waits;			/* counted in fm.full.waiting */
	uint64_t ct_refresh_ns;		/* the daemon last refreshed its conntrack timeout */
	uint32_t ct_mark;		/* conntrack's mark when made (0 after a restore) */
	uint32_t ct_refresh_s;		/* the timeout (s) set then; at the make, what the
					 * lookup found left (TCP with data unacknowledged:
					 * 300 s, not 5 days) */
	uint8_t nexthop[2][16];		/* the lookup's next hops when made */
	uint8_t nh_known;		/* nexthop set (not after a restore) */
	uint8_t liberal;		/* conntrack's entry was BE_LIBERAL at the lookup */
	uint8_t reserved;		/* made, its slot promised to a busier lookup (fm_evict.c) */
	uint32_t victim;		/* in a lookup admitted by the eviction pass: the id + 1
					 * of the made connection whose slot it takes */
	struct fm_rate rate[2];		/* per direction */
};

/*
 * The hardware table as the flow maker knows it (full_admit()).
 * @gated: a write found it full (-ENOSPC) and connections wait for a slot
 * @now_full: the last write since then failed -ENOSPC (npuctl status)
 * @credit: lookups still to admit: slots made connections freed
 * @probe_ns: when a lookup is next admitted without a credit
 * @waiting: entries refused table_full, kept as states change
 */
struct fm_full {
	int gated;
	int now_full;
	uint32_t credit;
	uint64_t probe_ns;
	uint32_t waiting;
};

struct fm {
	struct fm_cfg cfg;
	struct fm_full full;
	uint64_t evict_ns;		/* the next eviction pass is not before */
	struct fm_entry *e;		/* cfg.max_conns entries; id = index */
	uint32_t *free;			/* stack of free ids */
	uint32_t nfree;
	uint32_t *index;		/* open addressing: id + 1, 0 = empty */
	uint32_t index_mask;
	uint32_t nused;
	uint32_t id_end;		/* every id from it on is free (fm_id_end) */
	int free_dirty;			/* restored: rebuild the stack */
	uint32_t nstate[NPUFLOW_CS_MAX];	/* entries a state, kept as they change (not FREE) */
	uint64_t evict_busy_ns;		/* a waiting connection last seen at evict_pps */
	uint64_t due_ns;		/* the next walk for a timer is not before */
	uint64_t stat[NPUFLOW_FM_SLOTS];
	uint64_t refused[NPUFLOW_FR_SLOTS];
};

/* Allocates; 0 or -1 (ENOMEM / bad config). */
int fm_init(struct fm *fm, const struct fm_cfg *cfg);
void fm_free(struct fm *fm);

/* The key conntrack's original tuple is indexed by (ifindex 0, zone in vlan_outer). */
void fm_ct_key(struct npuflow_key *out, const struct npuflow_key *orig_tuple, uint32_t zone);

/*
 * A threshold event (or a recheck of a watched candidate): @k with @frames and
 * @bytes, the punt @reason of its latest frame, @seen_ns the time of that
 * frame.  *id gets the entry.  FM_A_WATCH, FM_A_LOOKUP, FM_A_HOLD or FM_A_NONE.
 */
enum fm_action fm_candidate(struct fm *fm, const struct npuflow_key *k, uint64_t frames,
			    uint64_t bytes, unsigned int reason, uint64_t seen_ns,
			    uint64_t now, uint32_t *id);
/* After FM_A_LOOKUP: FM_A_WRITE, FM_A_REFUSE, or FM_A_NONE (stale id). */
enum fm_action fm_lookup_done(struct fm *fm, uint32_t id, const struct fm_lookup *l,
			      uint64_t now);
/*
 * fm_eg_session() - a direction's egress verdict (FM_EG_*) with its PPPoE
 * sessions: @eg, the direction arriving in session @in_sid and leaving in
 * session @out_sid (0 = none), its rules hardware-only when @skip_sw.  A
 * direction in or out of a session is the driver's only: its rule that
 * matches a session ends it (pops the header; flower's software path
 * forwards the frame still in it) and one redirected to a ppp device sends
 * in the device's session (software would hand the device an Ethernet
 * frame).  So with rules in software too it is FM_EG_PPPOE.
 *
 * Return: @eg, or @eg | FM_EG_PPPOE.
 */
uint32_t fm_eg_session(uint32_t eg, uint16_t in_sid, uint16_t out_sid, int skip_sw);
/* After FM_A_WRITE: rc 0 (both written), -ENOSPC (table full) or another -errno. */
enum fm_action fm_write_done(struct fm *fm, uint32_t id, int rc, uint64_t now);
/* A revive event for @k: counted on its connection. 0, or -1 if unknown. */
int fm_revive(struct fm *fm, const struct npuflow_key *k, uint64_t now);
/* Conntrack DESTROY of the entry whose ct key is @ctk: FM_A_TAKEOUT, FM_A_FORGET, FM_A_NONE. */
enum fm_action fm_destroy(struct fm *fm, const struct npuflow_key *ctk, uint64_t now,
			  uint32_t *id);
/*
 * A made connection's egress moved under it or cannot be made any more
 * (fmd_egress_check): FM_A_TAKEOUT - its rules deleted, its candidates
 * re-armed, the entry forgotten, so that its next frames make it again
 * with the new facts; FM_A_NONE if it is not made.
 */
enum fm_action fm_egress_moved(struct fm *fm, uint32_t id, uint64_t now);
/* Release on demand: FM_A_RELEASE (rules to delete), FM_A_NONE if nothing to do. */
enum fm_action fm_release(struct fm *fm, uint32_t id, uint64_t now);
/* Keepalive: hardware counters of direction @dir, last used at
 * @last_used_ns (0: not reported; then @now if they moved).  Returns 1
 * when traffic moved since the last report (refresh conntrack), else 0. */
int fm_hw_stats(struct fm *fm, uint32_t id, int dir, uint64_t packets, uint64_t bytes,
		uint64_t last_used_ns, uint64_t now);

/* A refused entry's retry is due (FM_A_RECHECK): the candidate of key[0] now
 * shows @frames/@bytes (0/0 if it is gone).  FM_A_LOOKUP if it moved since
 * it was refused; FM_A_FORGET if it stayed idle for watch_ns (the daemon
 * deletes the candidate so a later crossing raises an event, and forgets
 * the entry); else FM_A_NONE (retried again after retry_ns). */
enum fm_action fm_recheck(struct fm *fm, uint32_t id, uint64_t frames, uint64_t bytes,
			  uint64_t now);
/*
 * The daemon's walk of the candidates (while connections wait for a full
 * table) found candidate @k with @frames, counted since @first_ns: if it is
 * a direction of a waiting connection, that direction's rate is sampled
 * (the first sample is the candidate's average since @first_ns).  1 if it
 * was, else 0.
 */
int fm_waiting_seen(struct fm *fm, const struct npuflow_key *k, uint64_t frames,
		    uint64_t first_ns, uint64_t now);
/*
 * Both directions' rates of @e, frames a second: the last samples; a
 * waiting connection's sampled more than FM_RATE_STALE_NS before @now
 * counts 0 (its candidate went).
 */
#define FM_RATE_STALE_NS	(10000ull * 1000000)
uint32_t fm_rate_pps(const struct fm_entry *e, uint64_t now);
/*
 * fm_busy_waiting() - 1 while a connection waits for a full table and one
 * was seen at cfg.evict_pps or more within FM_RATE_STALE_NS of @now: the
 * eviction pass has someone to rank, and the made connections' rates
 * (keepalive's) matter.
 */
int fm_busy_waiting(const struct fm *fm, uint64_t now);
/* 1 while connections wait for a full table (the daemon then walks the
 * candidates for their rates: fm_waiting_seen). */
static inline int fm_waiting(const struct fm *fm)
{
	return fm->full.gated && fm->full.waiting;
}

/*
 * fm_quiet() - 1 when no entry has a timer or a step to come: none watched,
 * being looked up, held, waiting or refused, and nobody waiting for a full
 * table (the made and the released wait only for conntrack's events and
 * the daemon's own upkeep).  fm_tick() then has nothing to do until an
 * event changes that, and the daemon's loop may wake less often.
 */
int fm_quiet(const struct fm *fm);

/*
 * After FM_A_WRITE of @id: the made connection whose slot it takes, taken
 * out now (held back, NPUFLOW_CONN_F_EVICTED) - the daemon deletes its
 * rules (FM_A_HOLD) before it writes @id's; UINT32_MAX if none (@id was not
 * admitted by the eviction pass, or the other left meanwhile).
 */
uint32_t fm_evict_victim(struct fm *fm, uint32_t id, uint64_t now);

/* Timers: calls @cb for each action due at @now (hold over, watch/retry
 * expired; the eviction pass's FM_A_LOOKUP for a busy waiting connection,
 * whose write takes a slower connection's slot: fm_evict_victim()); returns
 * how many. */
typedef void (*fm_action_cb)(void *ctx, enum fm_action a, uint32_t id);
unsigned int fm_tick(struct fm *fm, uint64_t now, fm_action_cb cb, void *ctx);
/*
 * A port's or an 802.1Q device's facts that nothing announces moved (a
 * shaping qdisc, the tagged devices: fmd_recheck_made()): the connections
 * refused for a shaped port (NPUFLOW_FR_SHAPING) or a tag not written
 * (NPUFLOW_FR_VLAN) come due at @now, so the next fm_tick() rechecks them
 * and one with traffic since is looked up again, not cfg.never_ns after its
 * refusal.  Those refused for other reasons keep their timers.  A walk of
 * the table, once a move.  Returns how many came due.
 */
unsigned int fm_egress_facts_moved(struct fm *fm, uint64_t now);

/* Restart: put a pinned record back under its id (before any event).  -1 if
 * the id is out of range, taken, or a key is already indexed. */
int fm_restore(struct fm *fm, uint32_t id, const struct npuflow_conn *rec);
/* Forget an entry (the daemon found it had nothing behind it). */
void fm_forget(struct fm *fm, uint32_t id);

/*
 * The entry made for the conntrack entry whose original tuple is @orig and
 * reply tuple @reply (as conntrack gives them: ifindex ignored) in @zone,
 * with conntrack id @ct_id (0: not compared); NULL if none.  The same
 * original tuple with another reply tuple (another NAT) or another id (an
 * entry re-created at once) is another entry: what a resync after lost
 * events, the sweep and a restart find with it stays, the rest is taken out.
 */
struct fm_entry *fm_find_ct(struct fm *fm, const struct npuflow_key *orig,
			    const struct npuflow_key *reply, uint32_t zone, uint32_t ct_id);
/* Find by direction key / ct key; NULL if unknown. */
struct fm_entry *fm_find(struct fm *fm, const struct npuflow_key *k);
/*
 * One past the highest id in use: the walks of the table stop there (ids
 * are taken lowest first, so it stays near the number in use).
 */
static inline uint32_t fm_id_end(const struct fm *fm)
{
	return fm->id_end;
}
static inline struct fm_entry *fm_get(struct fm *fm, uint32_t id)
{
	return id < fm->cfg.max_conns && fm->e[id].rec.state != NPUFLOW_CS_FREE ?
	       &fm->e[id] : NULL;
}
/*
 * Lost threshold events.  A crossing the classifier could not put in the
 * full ring marks its candidate NPUFLOW_CF_EVENT_LOST (and counts
 * NPUFLOW_S_EVENT_LOST); when that count moves, the daemon walks the
 * candidates and hands each marked one to fm_candidate() as the event
 * would have been, once: a marked candidate (key and first_ns: one
 * candidate from its creation to its deletion crosses once) handed over in
 * the previous walk is not handed over again.  What a walk did not see is
 * forgotten, so memory follows the marked candidates present.
 */
struct fm_seen {
	struct npuflow_key key;
	uint64_t first_ns;
};

struct fm_rescan {
	struct fm_seen *prev;	/* handed over by the last complete walk, sorted */
	uint32_t nprev;
	uint32_t pcap;		/* prev's allocation */
	struct fm_seen *cur;	/* ... by this one so far */
	uint32_t ncur, cap;
};

/* 1 if candidate @v crossed the threshold and its event was lost. */
int fm_missed(const struct npuflow_cand *v);
/* A walk starts (what the last complete one handed over is kept). */
void fm_rescan_begin(struct fm_rescan *r);
/*
 * The walk found candidate @k / @v marked (fm_missed): 1 to hand it over
 * (remembered), 0 if the last walk did.  1 also when memory is short (then
 * the next walk may hand it over once more).
 */
int fm_rescan_take(struct fm_rescan *r, const struct npuflow_key *k,
		   const struct npuflow_cand *v);
/* The walk saw every candidate: it becomes the last complete walk. */
void fm_rescan_end(struct fm_rescan *r);
void fm_rescan_free(struct fm_rescan *r);

/* Connections per state into out[NPUFLOW_CS_MAX]: counted as states
 * change, no walk. */
void fm_count_states(const struct fm *fm, __u64 *out);

/*
 * The daemon's passes over every connection (keepalive's dump of the
 * rules, the conntrack sweep, the egress recheck) take at most
 * 1/FM_PACE_SHARE of the loop's time: a pass that grows with the
 * connections held comes less often, so that their upkeep stays 2 % of a
 * CPU at any table size (issue 31's budget for the driver's statistics
 * work and keepalive together).
 */
#define FM_PACE_SHARE	50
/*
 * Keepalive's share while the eviction pass has nobody to rank (no waiting
 * connection busy: fm_busy_waiting()): its counters then only refresh
 * conntrack (bounded by the timeouts) and feed npuctl, and the budget of
 * 2 % is the driver's statistics work (0.8 % of a vCPU at 16,384 under
 * TCG, docs/measurements.md) and keepalive's together.  While a busy one
 * waits, eviction reads the made ones' rates from it: FM_PACE_SHARE.
 */
#define FM_PACE_SHARE_QUIET	100
/*
 * fm_pace_next() - when the next pass starts, this one having ended at @now
 * (ns) and taken @took (ns): @period after it, or FM_PACE_SHARE times @took
 * when that is longer, but never more than @bound after it unless @period
 * itself is (the operator's).  @bound UINT64_MAX: none.
 */
uint64_t fm_pace_next(uint64_t now, uint64_t period, uint64_t took, uint64_t bound);
/* fm_pace_next() - with @share (a pass takes at most 1/@share of the loop) */
uint64_t fm_pace_next_share(uint64_t now, uint64_t period, uint64_t took, uint64_t bound,
			    uint32_t share);
/*
 * fm_pace_gap() - the pause (ns) after a step of a pass read in steps that
 * took @took (ns): (@share - 1) times it, so that the pass keeps to
 * 1/@share of the loop while it lasts; less when the whole pass, @whole
 * (its last time, ns; 0 unknown), so spread would outlast @bound (ns,
 * UINT64_MAX none): the gaps that fit it, none for a pass of more than
 * half its bound.
 */
uint64_t fm_pace_gap(uint64_t took, uint32_t share, uint64_t whole, uint64_t bound);
/* @a + @b, UINT64_MAX where that would wrap (a time plus a gap). */
static inline uint64_t fm_sat_add(uint64_t a, uint64_t b)
{
	return b > UINT64_MAX - a ? UINT64_MAX : a + b;
}

/* Connection classes with a conntrack timeout of their own (fm_keepalive_bound()). */
#define FM_CLASS_TCP	1	/* nf_conntrack_tcp_timeout_established */
#define FM_CLASS_UDP	2	/* nf_conntrack_udp_timeout_stream */
/*
 * fm_keepalive_bound() - the longest gap (ns) between two keepalives while
 * connections of @classes (FM_CLASS_*) are made, their conntrack timeouts
 * @tcp_s and @udp_s (s): a quarter of the shortest.  A moving connection is
 * refreshed at a pass once a quarter of its timeout has passed since the
 * last refresh, so two refreshes are at most half a timeout and one pass
 * apart.  UINT64_MAX when @classes is 0.
 */
uint64_t fm_keepalive_bound(uint32_t tcp_s, uint32_t udp_s, uint32_t classes);
/*
 * fm_ct_refresh_due() - whether made connection @e, whose hardware counters
 * moved, has its conntrack timeout (@timeout_s, s: what the host's own
 * frames would set) refreshed at @now (ns): once a quarter of the shorter of
 * @timeout_s and the timeout the entry holds since its last refresh
 * (e->ct_refresh_s: an operator's raise is set before the shorter one runs
 * out) has passed since that refresh (e->ct_refresh_ns), so that conntrack
 * never expires a moving connection and one that goes idle leaves within
 * 1.25 timeouts and a keepalive's pace.  Never before the last refresh or
 * make: a pass's @now is read before the writes it makes stamp theirs.
 */
int fm_ct_refresh_due(const struct fm_entry *e, uint32_t timeout_s, uint64_t now);

const char *fm_action_name(enum fm_action a);

#endif
