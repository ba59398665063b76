// SPDX-License-Identifier: GPL-2.0
/*
 * flowmaker.c - the flow maker's policy core (see flowmaker.h).  Pure C: no
 * syscalls after fm_init's allocations.
 *
 * Storage: a fixed array of entries (id = index, allocated lowest first from
 * a stack) and one open-addressing index (linear probing, backward-shift
 * deletion, at most 3/4 full) holding each entry's keys: its two direction
 * keys and its conntrack key (the original tuple with ifindex 0).  Every
 * decision is O(1).
 *
 * The busiest-win pass is fm_evict.c's: this file runs it and tells it of
 * state changes, and it calls back this file's transitions
 * (flowmaker_int.h says why).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "flowmaker.h"
#include "flowmaker_int.h"

/* index slot: ref = id * 3 + which + 1 (0 = empty); which 0/1 = key[which], 2 = ct key */
struct fm_slot {
	uint32_t ref;
	uint32_t hash;
};

void fm_cfg_init(struct fm_cfg *c)
{
	memset(c, 0, sizeof(*c));
	c->thr_frames = NPUFLOW_THRESHOLD_DEFAULT;
	c->thr_bytes = 0;
	c->thr_any = 0;
	c->hold_min_ns = FM_HOLD_MIN_NS_DEFAULT;
	c->hold_max_ns = FM_HOLD_MAX_NS_DEFAULT;
	c->hold_quiet_ns = FM_HOLD_QUIET_NS_DEFAULT;
	c->retry_ns = FM_RETRY_NS_DEFAULT;
	c->never_ns = FM_NEVER_NS_DEFAULT;
	c->watch_ns = FM_WATCH_NS_DEFAULT;
	c->full_probe_ns = FM_FULL_PROBE_NS_DEFAULT;
	c->evict_pps = FM_EVICT_PPS_DEFAULT;
	c->evict_ratio = FM_EVICT_RATIO_DEFAULT;
	c->evict_min_ns = FM_EVICT_MIN_NS_DEFAULT;
	c->evict_hold_ns = FM_EVICT_HOLD_NS_DEFAULT;
	c->max_conns = NPUFLOW_CONNECTIONS_DEFAULT;
}

static uint64_t entry_due(const struct fm_entry *e);

static struct fm_slot *slots(struct fm *fm)
{
	return (struct fm_slot *)fm->index;
}

int fm_init(struct fm *fm, const struct fm_cfg *cfg)
{
	uint64_t n = 4;
	uint32_t i;

	memset(fm, 0, sizeof(*fm));
	if (!cfg->max_conns || cfg->max_conns > (1u << 26) || !cfg->hold_min_ns ||
	    cfg->hold_max_ns < cfg->hold_min_ns || (cfg->evict_pps && !cfg->evict_ratio))
		return -1;
	fm->cfg = *cfg;
	while (n < 4ull * cfg->max_conns)
		n <<= 1;
	fm->e = calloc(cfg->max_conns, sizeof(*fm->e));
	fm->free = malloc(cfg->max_conns * sizeof(*fm->free));
	fm->index = calloc(n, sizeof(struct fm_slot));
	if (!fm->e || !fm->free || !fm->index) {
		fm_free(fm);
		return -1;
	}
	fm->index_mask = n - 1;
	for (i = 0; i < cfg->max_conns; i++)
		fm->free[i] = cfg->max_conns - 1 - i;
	fm->nfree = cfg->max_conns;
	return 0;
}

void fm_free(struct fm *fm)
{
	free(fm->e);
	free(fm->free);
	free(fm->index);
	fm->e = NULL;
	fm->free = NULL;
	fm->index = NULL;
}

void fm_ct_key(struct npuflow_key *out, const struct npuflow_key *t, uint32_t zone)
{
	*out = *t;
	out->ifindex = 0;
	out->vlan_outer = (uint16_t)zone;
	out->vlan_inner = 0;
	out->pppoe_sid = 0;
}

/* 48 bytes: six words, multiply-xorshift. */
static uint32_t key_hash(const struct npuflow_key *k)
{
	uint64_t w[6], h = 0x9e3779b97f4a7c15ull;
	int i;

	memcpy(w, k, sizeof(w));
	for (i = 0; i < 6; i++) {
		h ^= w[i];
		h *= 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 29;
	return (uint32_t)h;
}

static void ref_key(struct fm *fm, uint32_t ref, struct npuflow_key *out)
{
	uint32_t id = (ref - 1) / 3, which = (ref - 1) % 3;
	struct fm_entry *e = &fm->e[id];

	if (which == 2)
		fm_ct_key(out, &e->rec.key[0], e->rec.zone);
	else
		*out = e->rec.key[which];
}

static int64_t idx_find(struct fm *fm, const struct npuflow_key *k, uint32_t h)
{
	struct fm_slot *s = slots(fm);
	uint32_t i = h & fm->index_mask;
	struct npuflow_key tmp;

	for (;; i = (i + 1) & fm->index_mask) {
		if (!s[i].ref)
			return -1;
		if (s[i].hash != h)
			continue;
		ref_key(fm, s[i].ref, &tmp);
		if (!memcmp(&tmp, k, sizeof(tmp)))
			return i;
	}
}

/* 0, or -1 if @k is there already (*other = its id). */
static int idx_insert(struct fm *fm, uint32_t id, uint32_t which, uint32_t *other)
{
	struct npuflow_key k;
	uint32_t h;
	int64_t at;
	struct fm_slot *s = slots(fm);
	uint32_t i;

	ref_key(fm, id * 3 + which + 1, &k);
	h = key_hash(&k);
	at = idx_find(fm, &k, h);
	if (at >= 0) {
		if (other)
			*other = (s[at].ref - 1) / 3;
		return -1;
	}
	for (i = h & fm->index_mask; s[i].ref; i = (i + 1) & fm->index_mask)
		;
	s[i].ref = id * 3 + which + 1;
	s[i].hash = h;
	return 0;
}

static void idx_delete_at(struct fm *fm, uint32_t i)
{
	struct fm_slot *s = slots(fm);
	uint32_t j = i, home;

	for (;;) {
		s[i].ref = 0;
		for (;;) {
			j = (j + 1) & fm->index_mask;
			if (!s[j].ref)
				return;
			home = s[j].hash & fm->index_mask;
			/* s[j] may move to i if i lies cyclically in [home, j) */
			if (i <= j ? (home <= i || home > j) : (home <= i && home > j))
				break;
		}
		s[i] = s[j];
		i = j;
	}
}

static void idx_remove(struct fm *fm, uint32_t id, uint32_t which)
{
	struct npuflow_key k;
	int64_t at;

	ref_key(fm, id * 3 + which + 1, &k);
	at = idx_find(fm, &k, key_hash(&k));
	if (at >= 0 && slots(fm)[at].ref == id * 3 + which + 1)
		idx_delete_at(fm, at);
}

static void unindex(struct fm *fm, uint32_t id)
{
	struct fm_entry *e = &fm->e[id];

	if (e->has_ct)
		idx_remove(fm, id, 2);
	if (e->nkeys > 1)
		idx_remove(fm, id, 1);
	if (e->nkeys > 0)
		idx_remove(fm, id, 0);
	e->nkeys = 0;
	e->has_ct = 0;
}

struct fm_entry *fm_find(struct fm *fm, const struct npuflow_key *k)
{
	int64_t at = idx_find(fm, k, key_hash(k));

	return at < 0 ? NULL : &fm->e[(slots(fm)[at].ref - 1) / 3];
}

/*
 * 1 if @e, found by its original tuple in @zone, was made for the conntrack
 * entry whose reply tuple is @reply and id @ct_id: the reply tuple carries
 * the NAT, and an entry re-created with the same tuples has a new id (an
 * id of 0 on either side is not compared).
 */
static int same_ct(const struct fm_entry *e, const struct npuflow_key *reply, uint32_t zone,
		   uint32_t ct_id)
{
	struct npuflow_key mine, theirs;

	fm_ct_key(&mine, &e->rec.key[1], zone);
	fm_ct_key(&theirs, reply, zone);
	if (memcmp(&mine, &theirs, sizeof(mine)))
		return 0;
	return !ct_id || !e->rec.ct_id || ct_id == e->rec.ct_id;
}

struct fm_entry *fm_find_ct(struct fm *fm, const struct npuflow_key *orig,
			    const struct npuflow_key *reply, uint32_t zone, uint32_t ct_id)
{
	struct npuflow_key ctk;
	struct fm_entry *e;

	fm_ct_key(&ctk, orig, zone);
	e = fm_find(fm, &ctk);
	return e && same_ct(e, reply, zone, ct_id) ? e : NULL;
}

static void rebuild_free(struct fm *fm)
{
	uint32_t i;

	fm->nfree = 0;
	for (i = fm->cfg.max_conns; i-- > 0;)
		if (fm->e[i].rec.state == NPUFLOW_CS_FREE)
			fm->free[fm->nfree++] = i;
	fm->free_dirty = 0;
}

static struct fm_entry *alloc_entry(struct fm *fm, uint32_t *id)
{
	struct fm_entry *e;

	if (fm->free_dirty)
		rebuild_free(fm);
	if (!fm->nfree)
		return NULL;
	*id = fm->free[--fm->nfree];
	e = &fm->e[*id];
	memset(e, 0, sizeof(*e));
	fm->nused++;
	if (*id >= fm->id_end)
		fm->id_end = *id + 1;
	return e;
}

/* After @id was freed: the end comes down past the free ids below it. */
static void id_end_lower(struct fm *fm, uint32_t id)
{
	if (id + 1 != fm->id_end)
		return;
	while (fm->id_end && fm->e[fm->id_end - 1].rec.state == NPUFLOW_CS_FREE)
		fm->id_end--;
}

/* An entry goes from state @from to @to: the counts follow (FREE is what
 * the others leave of the table). */
static void count_state(struct fm *fm, uint32_t from, uint32_t to)
{
	if (from != NPUFLOW_CS_FREE && from < NPUFLOW_CS_MAX)
		fm->nstate[from]--;
	if (to != NPUFLOW_CS_FREE && to < NPUFLOW_CS_MAX)
		fm->nstate[to]++;
}

/*
 * A made connection leaves the hardware table: while it is full, that is a
 * slot for one waiting connection (full_admit()).
 */
static void slot_freed(struct fm *fm, const struct fm_entry *e)
{
	if (fm->full.gated && e->rec.state == NPUFLOW_CS_MADE)
		fm->full.credit++;	/* walk_due(): the next tick admits one */
}

void fm_forget(struct fm *fm, uint32_t id)
{
	struct fm_entry *e = fm_get(fm, id);

	if (!e)
		return;
	fm_evict_cancel(fm, e);
	slot_freed(fm, e);
	count_state(fm, e->rec.state, NPUFLOW_CS_FREE);
	if (e->waits)
		fm->full.waiting--;
	unindex(fm, id);
	memset(e, 0, sizeof(*e));
	e->dirty = 1;
	if (!fm->free_dirty)
		fm->free[fm->nfree++] = id;
	fm->nused--;
	id_end_lower(fm, id);
}

void fm_set_state(struct fm *fm, struct fm_entry *e, uint32_t st, uint64_t now)
{
	uint64_t due;

	if (st != NPUFLOW_CS_MADE)
		slot_freed(fm, e);
	else
		e->retries = 0;
	/* the rate counts the hardware's packets while made, the candidates'
	 * frames otherwise: a new base on each side of the boundary */
	if ((st == NPUFLOW_CS_MADE) != (e->rec.state == NPUFLOW_CS_MADE))
		memset(e->rate, 0, sizeof(e->rate));
	count_state(fm, e->rec.state, st);
	if (e->waits) {
		fm->full.waiting--;
		e->waits = 0;
	}
	e->rec.state = st;
	if (st == NPUFLOW_CS_REFUSED && e->rec.reason == NPUFLOW_FR_TABLE_FULL) {
		fm->full.waiting++;
		e->waits = 1;
	}
	due = entry_due(e);
	if (due < fm->due_ns)
		fm->due_ns = due;
	e->rec.state_ns = now;
	e->dirty = 1;
}

/* How long @e, refused for a transient reason, waits before it is looked
 * up again: cfg.retry_ns doubled for each refusal since it was last made,
 * at most FM_RETRY_MAX_NS (or cfg.retry_ns when that is longer). */
static uint64_t retry_wait(const struct fm *fm, const struct fm_entry *e)
{
	uint64_t w = fm->cfg.retry_ns;
	unsigned int i;

	for (i = 0; i < e->retries && w < FM_RETRY_MAX_NS; i++)
		w <<= 1;
	return w > FM_RETRY_MAX_NS && fm->cfg.retry_ns < FM_RETRY_MAX_NS ? FM_RETRY_MAX_NS : w;
}

static enum fm_action refuse(struct fm *fm, struct fm_entry *e, unsigned int reason,
			     int never, uint64_t now)
{
	fm_evict_cancel(fm, e);
	e->rec.reason = reason;
	if (never) {
		e->rec.until_ns = now + fm->cfg.never_ns;
	} else if (reason == NPUFLOW_FR_TABLE_FULL) {
		e->rec.until_ns = now + fm->cfg.retry_ns;	/* admitted by full_admit() */
	} else {
		e->rec.until_ns = now + retry_wait(fm, e);
		if (e->retries < UINT8_MAX)
			e->retries++;
	}
	e->rec.flags &= ~(NPUFLOW_CONN_F_HW0 | NPUFLOW_CONN_F_HW1);
	fm_set_state(fm, e, NPUFLOW_CS_REFUSED, now);
	fm->refused[reason < NPUFLOW_FR_SLOTS ? reason : 0]++;
	fm->stat[NPUFLOW_FM_REFUSED]++;
	return FM_A_REFUSE;
}

/*
 * Whether a lookup (and so a write) may go ahead.  Once a write has found
 * the hardware table full (-ENOSPC), a lookup for a write that would fail
 * costs a conntrack query, be-liberal and two rule adds for nothing, and
 * retrying each waiting connection every second turns a full table into a
 * retry storm.  So while the table is full an attempt is admitted for each
 * slot a made connection freed (@credit), and one probe every
 * cfg.full_probe_ns for slots others freed or a larger table; a probe that
 * finds room makes the next probe due at once.  The attempts are bounded
 * by the slots that free up plus one a probe period.  MediaTek's PPE
 * likewise binds only while the table has room for the entry's kind
 * (mtk_ppe.c, the MTK_PPE_BIND_LIMIT* registers); the kernel's flowtable
 * offers every flow again at each gc pass (nf_flow_table_core.c).
 */
static int full_admit(struct fm *fm, struct fm_entry *e, uint64_t now)
{
	e->probe = 0;
	if (!fm->full.gated)
		return 1;
	if (fm->full.credit) {
		fm->full.credit--;
	} else if (now >= fm->full.probe_ns) {
		fm->full.probe_ns = now + fm->cfg.full_probe_ns;
		e->probe = 1;
	} else {
		fm->stat[NPUFLOW_FM_FULL_WAITS]++;
		return 0;
	}
	fm->stat[NPUFLOW_FM_FULL_TRIES]++;
	return 1;
}

/* @e's write done with @rc while the table is full: room found by a probe
 * makes the next one due at once, and says the table is not full. */
static void full_written(struct fm *fm, struct fm_entry *e, int rc, uint64_t now)
{
	int probe = e->probe;

	e->probe = 0;
	if (!fm->full.gated)
		return;
	/* a freed slot's write took that slot: full again; only a probe's
	 * success shows room beyond */
	fm->full.now_full = rc == -ENOSPC || (!rc && !probe);
	if (!rc && probe)
		fm->full.probe_ns = now;
}

static int over_threshold(const struct fm_cfg *c, uint64_t frames, uint64_t bytes)
{
	int f = frames >= c->thr_frames, b = bytes >= c->thr_bytes;

	if (!c->thr_frames && !c->thr_bytes)
		return 1;
	if (!c->thr_frames)
		return b;
	if (!c->thr_bytes)
		return f;
	return c->thr_any ? f || b : f && b;
}

static int is_giveback_reason(unsigned int reason)
{
	return reason == NPUFLOW_R_FLOW_MISS || reason == NPUFLOW_R_NOT_ACTIVE;
}

/* The candidate's counts into @e, then to a lookup: FM_A_LOOKUP; or,
 * the hardware table full and no slot for it, refused table_full. */
enum fm_action fm_cand_lookup(struct fm *fm, struct fm_entry *e, uint64_t frames,
			      uint64_t bytes, uint64_t now)
{
	e->rec.cand_frames = frames;
	e->rec.cand_bytes = bytes;
	if (!full_admit(fm, e, now))
		return refuse(fm, e, NPUFLOW_FR_TABLE_FULL, 0, now);
	return fm_lookup_start(fm, e, now);
}

enum fm_action fm_lookup_start(struct fm *fm, struct fm_entry *e, uint64_t now)
{
	fm_set_state(fm, e, NPUFLOW_CS_LOOKUP, now);
	fm->stat[NPUFLOW_FM_LOOKUPS]++;
	return FM_A_LOOKUP;
}

void fm_hold(struct fm *fm, struct fm_entry *e, uint64_t until_ns, uint64_t now)
{
	e->rec.until_ns = until_ns;
	e->rec.holds++;
	e->rec.flags &= ~(NPUFLOW_CONN_F_SEEN | NPUFLOW_CONN_F_HW0 | NPUFLOW_CONN_F_HW1);
	fm_set_state(fm, e, NPUFLOW_CS_HELD, now);
	fm->stat[NPUFLOW_FM_HELD]++;
}

/* A key no entry has: a new pending entry, watched or looked up. */
static enum fm_action cand_new(struct fm *fm, const struct npuflow_key *k, uint64_t frames,
			       uint64_t bytes, uint64_t now, uint32_t *id)
{
	struct fm_entry *e = alloc_entry(fm, id);

	if (!e) {
		fm->stat[NPUFLOW_FM_CORE_FULL]++;
		return FM_A_NONE;
	}
	e->rec.key[0] = *k;
	e->nkeys = 1;
	count_state(fm, NPUFLOW_CS_FREE, NPUFLOW_CS_PENDING);
	e->rec.state = NPUFLOW_CS_PENDING;
	idx_insert(fm, *id, 0, NULL);
	if (over_threshold(&fm->cfg, frames, bytes))
		return fm_cand_lookup(fm, e, frames, bytes, now);
	e->rec.cand_frames = frames;
	e->rec.cand_bytes = bytes;
	fm_set_state(fm, e, NPUFLOW_CS_PENDING, now);
	e->rec.until_ns = now + fm->cfg.watch_ns;
	return FM_A_WATCH;
}

/* A made connection given back under a new identity: taken out and held,
 * the wait doubling while give-backs come closer than hold_quiet_ns. */
static enum fm_action cand_hold(struct fm *fm, struct fm_entry *e, uint64_t now)
{
	uint64_t wait;

	if (!e->rec.last_giveback_ns || !e->rec.wait_ns ||
	    npuflow_since(now, e->rec.last_giveback_ns) >= fm->cfg.hold_quiet_ns)
		wait = fm->cfg.hold_min_ns;
	else
		wait = e->rec.wait_ns >= fm->cfg.hold_max_ns / 2 ?
		       fm->cfg.hold_max_ns : e->rec.wait_ns * 2;
	e->rec.wait_ns = wait;
	e->rec.last_giveback_ns = now;
	e->rec.givebacks++;
	fm_hold(fm, e, now + wait, now);
	fm->stat[NPUFLOW_FM_GIVEBACKS]++;
	return FM_A_HOLD;
}

/* A crossing of a made connection's key. */
static enum fm_action cand_made(struct fm *fm, struct fm_entry *e, unsigned int reason,
				uint64_t seen_ns, uint64_t now)
{
	/*
	 * Measured from when the rules landed (hw_ns, the executor's), not
	 * when the make began: a write can take long (the first one loads
	 * tc's flower and action modules), and the other direction crossing
	 * meanwhile is no new identity.
	 */
	uint64_t landed = e->rec.hw_ns > e->rec.made_ns ? e->rec.hw_ns : e->rec.made_ns;

	if (seen_ns && seen_ns <= landed) {
		fm->stat[NPUFLOW_FM_STALE]++;
		return FM_A_NONE;
	}
	if (!is_giveback_reason(reason)) {
		fm->stat[NPUFLOW_FM_PUNTED_MADE]++;
		return FM_A_NONE;
	}
	if (!e->rec.packets[0] && !e->rec.packets[1] && npuflow_since(now, landed) < FM_SETTLE_NS) {
		/* punted before the write, processed after: re-arm */
		fm->stat[NPUFLOW_FM_STALE]++;
		return FM_A_REARM;
	}
	return cand_hold(fm, e, now);
}

enum fm_action fm_candidate(struct fm *fm, const struct npuflow_key *k, uint64_t frames,
			    uint64_t bytes, unsigned int reason, uint64_t seen_ns,
			    uint64_t now, uint32_t *id)
{
	struct fm_entry *e = fm_find(fm, k);

	fm->stat[NPUFLOW_FM_EVENTS]++;
	if (!e)
		return cand_new(fm, k, frames, bytes, now, id);
	*id = e - fm->e;
	switch (e->rec.state) {
	case NPUFLOW_CS_PENDING:
		if (!over_threshold(&fm->cfg, frames, bytes)) {
			e->rec.cand_frames = frames;
			e->rec.cand_bytes = bytes;
			return FM_A_WATCH;
		}
		return fm_cand_lookup(fm, e, frames, bytes, now);
	case NPUFLOW_CS_MADE:
		return cand_made(fm, e, reason, seen_ns, now);
	case NPUFLOW_CS_HELD:
		if (now < e->rec.until_ns) {
			e->rec.flags |= NPUFLOW_CONN_F_SEEN;
			e->dirty = 1;
			fm->stat[NPUFLOW_FM_HELD_EVENTS]++;
			return FM_A_NONE;
		}
		return fm_cand_lookup(fm, e, frames, bytes, now);	/* the wait is over */
	case NPUFLOW_CS_WAITING:
		return fm_cand_lookup(fm, e, frames, bytes, now);
	case NPUFLOW_CS_REFUSED:
		if (now < e->rec.until_ns)
			return FM_A_NONE;
		return fm_cand_lookup(fm, e, frames, bytes, now);
	default:	/* LOOKUP in progress, RELEASED */
		return FM_A_NONE;
	}
}

/* Re-index @id under the lookup's keys.  0, or -1 on a conflict. */
static int reindex(struct fm *fm, uint32_t id, const struct fm_lookup *l)
{
	struct fm_entry *e = &fm->e[id], *o;
	struct npuflow_key ctk;
	int w;

	/* another single-key entry holding one of the new keys merges into this one */
	fm_ct_key(&ctk, &l->key[0], l->zone);
	for (w = 0; w < 3; w++) {
		o = fm_find(fm, w < 2 ? &l->key[w] : &ctk);
		if (!o || o == e)
			continue;
		if (o->nkeys > 1 || o->rec.state == NPUFLOW_CS_MADE ||
		    o->rec.state == NPUFLOW_CS_RELEASED)
			return -1;
		fm_forget(fm, o - fm->e);
	}
	unindex(fm, id);
	e->rec.key[0] = l->key[0];
	e->rec.key[1] = l->key[1];
	e->rec.zone = l->zone;
	e->nkeys = 1;
	idx_insert(fm, id, 0, NULL);
	e->nkeys = 2;
	if (idx_insert(fm, id, 1, NULL))
		e->nkeys = 1;	/* key[1] == key[0]: cannot happen with two directions */
	e->has_ct = !idx_insert(fm, id, 2, NULL);
	return 0;
}

uint32_t fm_eg_session(uint32_t eg, uint16_t in_sid, uint16_t out_sid, int skip_sw)
{
	return (in_sid || out_sid) && !skip_sw ? eg | FM_EG_PPPOE : eg;
}

enum fm_action fm_lookup_done(struct fm *fm, uint32_t id, const struct fm_lookup *l,
			      uint64_t now)
{
	struct fm_entry *e = fm_get(fm, id);
	uint32_t f = l->ct_flags;
	int d;

	if (!e || e->rec.state != NPUFLOW_CS_LOOKUP)
		return FM_A_NONE;
	if (!(f & FM_CT_FOUND) || (f & FM_CT_DYING))
		return refuse(fm, e, NPUFLOW_FR_NO_CT, 0, now);
	/* the coprocessor has no zone: one tuple, two connections */
	if (f & FM_CT_ZONED)
		return refuse(fm, e, NPUFLOW_FR_CONFLICT, 0, now);
	if (reindex(fm, id, l))
		return refuse(fm, e, NPUFLOW_FR_CONFLICT, 0, now);
	e->rec.ct_id = l->ct_id;
	e->ct_mark = l->ct_mark;
	e->ct_refresh_s = l->ct_timeout;
	e->liberal = !!(f & FM_CT_LIBERAL);
	if (f & FM_CT_HELPER)
		return refuse(fm, e, NPUFLOW_FR_HELPER, 1, now);
	if (f & FM_CT_SEQADJ)
		return refuse(fm, e, NPUFLOW_FR_SEQADJ, 1, now);
	if (f & FM_CT_IPSEC)
		return refuse(fm, e, NPUFLOW_FR_IPSEC, 1, now);
	if (l->key[0].proto != 6 && l->key[0].proto != 17)
		return refuse(fm, e, NPUFLOW_FR_PROTO, 1, now);
	if (!(f & FM_CT_ESTABLISHED))
		return refuse(fm, e, NPUFLOW_FR_NOT_ESTABLISHED, 0, now);
	for (d = 0; d < 2; d++) {
		uint32_t g = l->eg_flags[d];

		if (g & FM_EG_LOCAL)
			return refuse(fm, e, NPUFLOW_FR_LOCAL, 1, now);
		if (g & FM_EG_NO_ROUTE)
			return refuse(fm, e, NPUFLOW_FR_NO_ROUTE, 0, now);
		if (g & FM_EG_FOREIGN)
			return refuse(fm, e, NPUFLOW_FR_FOREIGN, 1, now);
		if (g & FM_EG_SHAPED)
			return refuse(fm, e, NPUFLOW_FR_SHAPING, 1, now);
		if (g & FM_EG_VLAN)
			return refuse(fm, e, NPUFLOW_FR_VLAN, 1, now);
		/* retried: a session comes up, or its peer's lookup resolves it */
		if (g & FM_EG_PPPOE)
			return refuse(fm, e, NPUFLOW_FR_PPPOE, 0, now);
	}
	for (d = 0; d < 2; d++)
		if (l->eg_flags[d] & FM_EG_NO_NEIGH)
			return refuse(fm, e, NPUFLOW_FR_NO_NEIGH, 0, now);
	/* conntrack's state is set before the forward chain: only a frame the
	 * host forwarded shows that the ruleset passes the direction
	 */
	for (d = 0; d < 2; d++)
		if (l->eg_flags[d] & FM_EG_UNPROVEN)
			return refuse(fm, e, NPUFLOW_FR_NOT_ESTABLISHED, 0, now);
	memcpy(e->rec.out_ifindex, l->out_ifindex, sizeof(e->rec.out_ifindex));
	memcpy(e->rec.out_vid, l->out_vid, sizeof(e->rec.out_vid));
	memcpy(e->rec.out_vid_inner, l->out_vid_inner, sizeof(e->rec.out_vid_inner));
	memcpy(e->rec.out_sid, l->out_sid, sizeof(e->rec.out_sid));
	memcpy(e->rec.dmac, l->dmac, sizeof(e->rec.dmac));
	memcpy(e->rec.smac, l->smac, sizeof(e->rec.smac));
	memcpy(e->nexthop, l->nexthop, sizeof(e->nexthop));
	e->nh_known = 1;
	e->rec.flags &= ~(NPUFLOW_CONN_F_NAT | NPUFLOW_CONN_F_ROUTED);
	if (f & FM_CT_NAT)
		e->rec.flags |= NPUFLOW_CONN_F_NAT;
	if (l->routed)
		e->rec.flags |= NPUFLOW_CONN_F_ROUTED;
	for (d = 0; d < 2; d++)
		e->rec.hw_handle[d] = id * 2 + d + 1;
	e->rec.tc_prio = l->key[0].vlan_outer & NPUFLOW_VLAN_AD ? NPUFLOW_TC_PRIO_QINQ :
			 l->key[0].vlan_outer ? NPUFLOW_TC_PRIO_VLAN :
			 l->key[0].pppoe_sid ? NPUFLOW_TC_PRIO_PPPOE :
			 l->key[0].family == 10 ? NPUFLOW_TC_PRIO_IPV6 : NPUFLOW_TC_PRIO_IP;
	e->dirty = 1;
	return FM_A_WRITE;
}

enum fm_action fm_write_done(struct fm *fm, uint32_t id, int rc, uint64_t now)
{
	struct fm_entry *e = fm_get(fm, id);

	if (!e || e->rec.state != NPUFLOW_CS_LOOKUP)
		return FM_A_NONE;
	if (rc == -ENOSPC && !fm->full.gated) {
		fm->full.gated = 1;
		fm->full.probe_ns = now + fm->cfg.full_probe_ns;
	}
	full_written(fm, e, rc, now);
	if (rc == -ENOSPC)
		return refuse(fm, e, NPUFLOW_FR_TABLE_FULL, 0, now);
	if (rc)
		return refuse(fm, e, NPUFLOW_FR_HW_ERROR, 0, now);
	if (e->rec.holds) {
		e->rec.remakes++;
		fm->stat[NPUFLOW_FM_REMADE]++;
	} else {
		fm->stat[NPUFLOW_FM_MADE]++;
	}
	e->rec.made_ns = now;
	e->rec.reason = NPUFLOW_FR_NONE;
	e->rec.packets[0] = e->rec.packets[1] = 0;
	e->rec.bytes[0] = e->rec.bytes[1] = 0;
	e->rec.last_used_ns = now;
	e->rec.flags |= NPUFLOW_CONN_F_HW0 | NPUFLOW_CONN_F_HW1;
	e->rec.flags &= ~(NPUFLOW_CONN_F_SEEN | NPUFLOW_CONN_F_EVICTED);
	fm_set_state(fm, e, NPUFLOW_CS_MADE, now);
	return FM_A_REARM;
}

int fm_revive(struct fm *fm, const struct npuflow_key *k, uint64_t now)
{
	struct fm_entry *e = fm_find(fm, k);

	fm->stat[NPUFLOW_FM_REVIVES]++;
	if (!e || e->rec.state != NPUFLOW_CS_MADE)
		return -1;
	e->rec.revives++;
	e->rec.last_used_ns = now;
	e->dirty = 1;
	return 0;
}

enum fm_action fm_destroy(struct fm *fm, const struct npuflow_key *ctk, uint64_t now,
			  uint32_t *id)
{
	struct fm_entry *e = fm_find(fm, ctk);

	(void)now;
	if (!e)
		return FM_A_NONE;
	*id = e - fm->e;
	if (e->rec.state == NPUFLOW_CS_MADE ||
	    (e->rec.flags & (NPUFLOW_CONN_F_HW0 | NPUFLOW_CONN_F_HW1))) {
		fm->stat[NPUFLOW_FM_TAKEN_OUT]++;
		return FM_A_TAKEOUT;
	}
	return FM_A_FORGET;
}

enum fm_action fm_egress_moved(struct fm *fm, uint32_t id, uint64_t now)
{
	struct fm_entry *e = fm_get(fm, id);

	(void)now;
	if (!e || e->rec.state != NPUFLOW_CS_MADE)
		return FM_A_NONE;
	fm->stat[NPUFLOW_FM_REROUTED]++;
	return FM_A_TAKEOUT;
}

enum fm_action fm_release(struct fm *fm, uint32_t id, uint64_t now)
{
	struct fm_entry *e = fm_get(fm, id);

	if (!e)
		return FM_A_NONE;
	switch (e->rec.state) {
	case NPUFLOW_CS_MADE:
	case NPUFLOW_CS_HELD:
	case NPUFLOW_CS_WAITING:
		fm_set_state(fm, e, NPUFLOW_CS_RELEASED, now);
		fm->stat[NPUFLOW_FM_RELEASED]++;
		return FM_A_RELEASE;
	default:
		return FM_A_NONE;
	}
}

int fm_hw_stats(struct fm *fm, uint32_t id, int dir, uint64_t packets, uint64_t bytes,
		uint64_t last_used_ns, uint64_t now)
{
	struct fm_entry *e = fm_get(fm, id);
	int moved;

	if (!e || dir < 0 || dir > 1)
		return 0;
	moved = packets != e->rec.packets[dir];
	if (e->rec.state == NPUFLOW_CS_MADE)
		fm_rate_sample(&e->rate[dir], packets, now);
	e->rec.packets[dir] = packets;
	e->rec.bytes[dir] = bytes;
	/* no last use reported (a terse dump): the counters moved since the
	 * last report, so it was used by now */
	if (!last_used_ns && moved && packets)
		last_used_ns = now;
	if (last_used_ns > e->rec.last_used_ns)
		e->rec.last_used_ns = last_used_ns;
	if (moved)
		e->dirty = 1;
	return moved && packets;
}

enum fm_action fm_recheck(struct fm *fm, uint32_t id, uint64_t frames, uint64_t bytes,
			  uint64_t now)
{
	struct fm_entry *e = fm_get(fm, id);

	if (!e || e->rec.state != NPUFLOW_CS_REFUSED)
		return FM_A_NONE;
	if (frames > e->rec.cand_frames || bytes > e->rec.cand_bytes) {
		e->rec.cand_frames = frames;
		e->rec.cand_bytes = bytes;
		return fm_lookup_start(fm, e, now);
	}
	if (npuflow_since(now, e->rec.state_ns) >= fm->cfg.watch_ns) {
		fm->stat[NPUFLOW_FM_EXPIRED]++;
		return FM_A_FORGET;
	}
	return FM_A_NONE;
}

/*
 * When @e next needs the walk: a pending entry at every tick (its watch),
 * a held, waiting or refused one at its timer; one waiting for a slot of a
 * full table never by itself (full_admit() admits it for a freed slot or at
 * the probe: walk_due()); UINT64_MAX for the rest.
 */
static uint64_t entry_due(const struct fm_entry *e)
{
	switch (e->rec.state) {
	case NPUFLOW_CS_PENDING:
		return 0;
	case NPUFLOW_CS_REFUSED:
		if (e->waits)	/* only a full table has them */
			return UINT64_MAX;
		return e->rec.until_ns;
	case NPUFLOW_CS_HELD:
	case NPUFLOW_CS_WAITING:
		return e->rec.until_ns;
	default:
		return UINT64_MAX;
	}
}

/* Whether a tick at @now walks the table: a timer is due, or a full table
 * has a slot or a probe for a waiting connection. */
static int walk_due(const struct fm *fm, uint64_t now)
{
	if (fm->nstate[NPUFLOW_CS_PENDING] || now >= fm->due_ns)
		return 1;
	return fm->full.gated && fm->full.waiting &&
	       (fm->full.credit || now >= fm->full.probe_ns);
}

/* A full table's waiting @e at @now: admitted (a recheck), or passed over. */
static int full_turn(struct fm *fm, struct fm_entry *e, uint64_t now)
{
	if (!fm->full.credit && now < fm->full.probe_ns) {
		fm->stat[NPUFLOW_FM_FULL_WAITS]++;
		return 0;
	}
	return full_admit(fm, e, now);
}

unsigned int fm_egress_facts_moved(struct fm *fm, uint64_t now)
{
	unsigned int n = 0;
	uint32_t id;

	for (id = 0; id < fm->id_end; id++) {
		struct fm_entry *e = &fm->e[id];

		if (e->rec.state != NPUFLOW_CS_REFUSED ||
		    (e->rec.reason != NPUFLOW_FR_SHAPING && e->rec.reason != NPUFLOW_FR_VLAN) ||
		    e->rec.until_ns <= now)
			continue;
		e->rec.until_ns = now;
		n++;
	}
	if (n && now < fm->due_ns)
		fm->due_ns = now;
	return n;
}

int fm_quiet(const struct fm *fm)
{
	return !fm->nstate[NPUFLOW_CS_PENDING] && !fm->nstate[NPUFLOW_CS_LOOKUP] &&
	       !fm->nstate[NPUFLOW_CS_HELD] && !fm->nstate[NPUFLOW_CS_WAITING] &&
	       !fm->nstate[NPUFLOW_CS_REFUSED] && !fm->full.waiting;
}

unsigned int fm_tick(struct fm *fm, uint64_t now, fm_action_cb cb, void *ctx)
{
	uint64_t due = UINT64_MAX, t;
	unsigned int n = 0;
	uint32_t id;

	if (fm->full.gated && !fm->full.waiting)	/* nobody waits: the gate lifts */
		memset(&fm->full, 0, sizeof(fm->full));
	if (!walk_due(fm, now))
		return fm_evict_tick(fm, now, cb, ctx);
	fm->stat[NPUFLOW_FM_TABLE_WALKS]++;
	for (id = 0; id < fm->id_end; id++) {
		struct fm_entry *e = &fm->e[id];

		switch (e->rec.state) {
		case NPUFLOW_CS_PENDING:
			if (now >= e->rec.until_ns) {
				cb(ctx, FM_A_REARM, id);
				fm->stat[NPUFLOW_FM_EXPIRED]++;
				fm_forget(fm, id);
			} else {
				cb(ctx, FM_A_WATCH, id);
			}
			n++;
			break;
		case NPUFLOW_CS_HELD:
			if (now < e->rec.until_ns)
				break;
			if (e->rec.flags & NPUFLOW_CONN_F_SEEN) {
				cb(ctx, fm_cand_lookup(fm, e, e->rec.cand_frames,
						    e->rec.cand_bytes, now), id);
			} else {
				fm_set_state(fm, e, NPUFLOW_CS_WAITING, now);
				e->rec.until_ns = now + fm->cfg.hold_quiet_ns;
			}
			n++;
			break;
		case NPUFLOW_CS_WAITING:
			if (now < e->rec.until_ns)
				break;
			cb(ctx, FM_A_FORGET, id);
			fm->stat[NPUFLOW_FM_EXPIRED]++;
			fm_forget(fm, id);
			n++;
			break;
		case NPUFLOW_CS_REFUSED:
			/* only a full table has connections waiting for a slot */
			if (e->waits) {
				if (!full_turn(fm, e, now))
					break;
			} else {
				if (now < e->rec.until_ns)
					break;
				/* pushed out first so a tick asks once per retry period */
				e->rec.until_ns = now + retry_wait(fm, e);
			}
			cb(ctx, FM_A_RECHECK, id);
			n++;
			break;
		default:
			break;
		}
		t = entry_due(e);
		if (t < due)
			due = t;
	}
	fm->due_ns = due;
	return n + fm_evict_tick(fm, now, cb, ctx);
}

int fm_restore(struct fm *fm, uint32_t id, const struct npuflow_conn *rec)
{
	struct fm_entry *e;

	if (id >= fm->cfg.max_conns || fm->e[id].rec.state != NPUFLOW_CS_FREE ||
	    rec->state == NPUFLOW_CS_FREE || rec->state >= NPUFLOW_CS_MAX ||
	    rec->state == NPUFLOW_CS_PENDING || rec->state == NPUFLOW_CS_LOOKUP ||
	    rec->state == NPUFLOW_CS_REFUSED)
		return -1;	/* transient: looked up afresh at the next crossing */
	e = &fm->e[id];
	memset(e, 0, sizeof(*e));
	e->rec = *rec;
	e->nkeys = 1;
	if (idx_insert(fm, id, 0, NULL))
		goto bad;
	e->nkeys = 2;
	if (idx_insert(fm, id, 1, NULL)) {
		e->nkeys = 1;
		goto bad;
	}
	e->has_ct = !idx_insert(fm, id, 2, NULL);
	if (!e->has_ct)
		goto bad;
	fm->free_dirty = 1;
	fm->nused++;
	if (id >= fm->id_end)
		fm->id_end = id + 1;
	count_state(fm, NPUFLOW_CS_FREE, e->rec.state);
	fm->due_ns = 0;		/* its timer, if it has one, at the next tick */
	fm->stat[NPUFLOW_FM_RESTORED]++;
	return 0;
bad:
	unindex(fm, id);
	memset(e, 0, sizeof(*e));
	return -1;
}

int fm_missed(const struct npuflow_cand *v)
{
	const uint8_t m = NPUFLOW_CF_THRESHOLD | NPUFLOW_CF_EVENT_LOST;

	return (v->flags & m) == m;
}

static int seen_cmp(const void *a, const void *b)
{
	return memcmp(a, b, sizeof(struct fm_seen));
}

void fm_rescan_begin(struct fm_rescan *r)
{
	r->ncur = 0;
}

int fm_rescan_take(struct fm_rescan *r, const struct npuflow_key *k,
		   const struct npuflow_cand *v)
{
	struct fm_seen s;
	int fresh;

	memset(&s, 0, sizeof(s));
	s.key = *k;
	s.first_ns = v->first_ns;
	fresh = !r->nprev || !bsearch(&s, r->prev, r->nprev, sizeof(s), seen_cmp);
	if (r->ncur == r->cap) {
		uint32_t nc = r->cap ? r->cap * 2 : 64;
		struct fm_seen *p = nc > r->cap ? realloc(r->cur, (size_t)nc * sizeof(*p)) : NULL;

		if (!p)
			return 1;
		r->cur = p;
		r->cap = nc;
	}
	r->cur[r->ncur++] = s;
	return fresh;
}

void fm_rescan_end(struct fm_rescan *r)
{
	struct fm_seen *t = r->prev;
	uint32_t cap = r->cap;

	if (r->ncur > 1)
		qsort(r->cur, r->ncur, sizeof(*r->cur), seen_cmp);
	r->prev = r->cur;
	r->nprev = r->ncur;
	/* the old list's buffer is the next walk's */
	r->cur = t;
	r->ncur = 0;
	r->cap = t ? r->pcap : 0;
	r->pcap = cap;
}

void fm_rescan_free(struct fm_rescan *r)
{
	free(r->prev);
	free(r->cur);
	memset(r, 0, sizeof(*r));
}

void fm_count_states(const struct fm *fm, __u64 *out)
{
	uint32_t i;

	memset(out, 0, NPUFLOW_CS_MAX * sizeof(*out));
	out[NPUFLOW_CS_FREE] = fm->cfg.max_conns;
	for (i = 1; i < NPUFLOW_CS_MAX; i++) {
		out[i] = fm->nstate[i];
		out[NPUFLOW_CS_FREE] -= fm->nstate[i];
	}
}

const char *fm_action_name(enum fm_action a)
{
	static const char *const n[FM_A_MAX] = {
		"none", "watch", "lookup", "write", "refuse", "hold", "takeout",
		"forget", "release", "rearm", "recheck",
	};

	return (unsigned int)a < FM_A_MAX ? n[a] : "?";
}
