// SPDX-License-Identifier: GPL-2.0
/*
 * fm_evict.c - the busiest win: which connections hold the hardware table
 * when it is full.  Part of the policy core (flowmaker.h): pure C, time an
 * input.
 *
 * A full table admits a lookup only for a slot that frees up (full_admit()
 * in flowmaker.c), so by itself the first connections to cross the
 * threshold keep the table until conntrack forgets them.  MediaTek's and
 * Airoha's PPEs bind a flow once the hardware has seen it reach a rate
 * (mtk_ppe.c: MTK_PPE_BIND_RATE, 30 packets a second) and leave the rest to
 * the host; neither takes a slow flow out for a busy one.  Here, while
 * connections wait, an eviction pass at most every FM_EVICT_GAP_NS ranks the
 * FM_EVICT_MAX busiest waiting connections (at least cfg.evict_pps) against
 * the FM_EVICT_MAX slowest made ones and pairs them off, busiest with
 * slowest, while the waiting one's rate is at least cfg.evict_ratio times
 * the made one's: the made one is taken out and held back for
 * cfg.evict_hold_ns (NPUFLOW_CONN_F_EVICTED), its slot given to the waiting
 * one's lookup.  A connection made less than cfg.evict_min_ns ago, or
 * whose rate keepalive has not measured yet (two samples, which its pace
 * can put a minute apart), is not displaced (what was just written stays
 * long enough to pay for its write); the ratio and the hold-back keep two
 * connections of about the same rate from trading the slot back and forth.
 *
 * The rates are those of counters read anyway: a made connection's
 * hardware packets, as keepalive reads them (fm_hw_stats()), and a waiting
 * connection's candidate frames, from the daemon's bulk walk of the
 * candidates while connections wait (fm_waiting_seen()).  The pass looks at
 * each entry once: no system call, no per-connection work but a compare.
 *
 * flowmaker.c runs this pass, and the pass moves entries through
 * flowmaker.c's own transitions (flowmaker_int.h says why).
 */
#include <string.h>
#include "flowmaker_int.h"

#define FM_EVICT_GAP_NS		(1000ull * 1000000)
#define FM_EVICT_MAX		16
/* a first sample of a waiting connection's candidate averages over at least */
#define FM_RATE_FIRST_NS	(100ull * 1000000)

static uint32_t per_second(uint64_t count, uint64_t ns)
{
	uint64_t r;

	if (!ns)
		return 0;
	if (count >= UINT64_MAX / 1000000000ull)
		return UINT32_MAX;
	r = count * 1000000000ull / ns;
	return r > UINT32_MAX ? UINT32_MAX : (uint32_t)r;
}

void fm_rate_sample(struct fm_rate *r, uint64_t count, uint64_t now)
{
	if (!r->ns || count < r->base) {	/* the first, or the count began again */
		r->base = count;
		r->ns = now;
		return;
	}
	if (npuflow_since(now, r->ns) < FM_RATE_NS)
		return;
	r->pps = per_second(count - r->base, npuflow_since(now, r->ns));
	r->known = 1;
	r->base = count;
	r->ns = now;
}

uint32_t fm_rate_pps(const struct fm_entry *e, uint64_t now)
{
	uint64_t sum = 0;
	int d;

	for (d = 0; d < 2; d++) {
		const struct fm_rate *r = &e->rate[d];

		if (!r->ns)
			continue;
		if (e->rec.state != NPUFLOW_CS_MADE && npuflow_since(now, r->ns) > FM_RATE_STALE_NS)
			continue;
		sum += r->pps;
	}
	return sum > UINT32_MAX ? UINT32_MAX : (uint32_t)sum;
}

static int waits_for_slot(const struct fm_entry *e)
{
	return e->rec.state == NPUFLOW_CS_REFUSED && e->rec.reason == NPUFLOW_FR_TABLE_FULL;
}

/*
 * A waiting connection's rate comes only from fm_waiting_seen() (it starts
 * again at 0 when the connection leaves MADE), so when none has been seen
 * at cfg.evict_pps or more for FM_RATE_STALE_NS, every waiting one's
 * fm_rate_pps() is under it (a stale sample counts 0) and the eviction
 * pass has nobody to rank: it skips its walk of the table.  (Within that
 * time the pass may walk for nobody: the busy one made or gone.)
 */
static void busy_seen(struct fm *fm, const struct fm_entry *e, uint64_t now)
{
	if (fm->cfg.evict_pps && fm_rate_pps(e, now) >= fm->cfg.evict_pps)
		fm->evict_busy_ns = now;
}

int fm_busy_waiting(const struct fm *fm, uint64_t now)
{
	return fm->cfg.evict_pps && fm_waiting(fm) && now <= fm->evict_busy_ns + FM_RATE_STALE_NS;
}

int fm_waiting_seen(struct fm *fm, const struct npuflow_key *k, uint64_t frames,
		    uint64_t first_ns, uint64_t now)
{
	struct fm_entry *e = fm_find(fm, k);
	struct fm_rate *r;

	if (!e || !waits_for_slot(e))
		return 0;
	r = &e->rate[e->nkeys > 1 && !memcmp(k, &e->rec.key[1], sizeof(*k))];
	if (!r->ns && first_ns && now > first_ns + FM_RATE_FIRST_NS) {
		r->pps = per_second(frames, now - first_ns);
		r->known = 1;
		r->base = frames;
		r->ns = now;
		busy_seen(fm, e, now);
		return 1;
	}
	fm_rate_sample(r, frames, now);
	busy_seen(fm, e, now);
	return 1;
}

struct pick {
	uint32_t id;
	uint32_t pps;
};

/*
 * (@id, @pps) into @p, which holds *@n picks (at most FM_EVICT_MAX) in
 * order: ascending rates if @low, else descending; dropped if it ranks
 * below all of a full @p.
 */
static void rank(struct pick *p, unsigned int *n, uint32_t id, uint32_t pps, int low)
{
	unsigned int i = *n;

	if (i == FM_EVICT_MAX) {
		if (low ? pps >= p[i - 1].pps : pps <= p[i - 1].pps)
			return;
		i--;
	} else {
		(*n)++;
	}
	while (i && (low ? pps < p[i - 1].pps : pps > p[i - 1].pps)) {
		p[i] = p[i - 1];
		i--;
	}
	p[i].id = id;
	p[i].pps = pps;
}

/* Made @e gives its slot up: held back, its rules to be taken out. */
static void evict(struct fm *fm, struct fm_entry *e, uint64_t now)
{
	e->reserved = 0;
	e->rec.flags |= NPUFLOW_CONN_F_EVICTED;
	fm_hold(fm, e, now + fm->cfg.evict_hold_ns, now);
	fm->stat[NPUFLOW_FM_EVICTED]++;
}

/* @w's promised slot: its holder, still made and promised, or NULL. */
static struct fm_entry *victim_of(struct fm *fm, const struct fm_entry *w)
{
	struct fm_entry *v;

	if (!w->victim || w->victim > fm->cfg.max_conns)
		return NULL;
	v = &fm->e[w->victim - 1];
	return v->rec.state == NPUFLOW_CS_MADE && v->reserved ? v : NULL;
}

void fm_evict_cancel(struct fm *fm, struct fm_entry *e)
{
	struct fm_entry *v = victim_of(fm, e);

	if (v)
		v->reserved = 0;
	e->victim = 0;
}

uint32_t fm_evict_victim(struct fm *fm, uint32_t id, uint64_t now)
{
	struct fm_entry *w = fm_get(fm, id), *v;

	if (!w)
		return UINT32_MAX;
	v = victim_of(fm, w);
	w->victim = 0;
	if (!v)
		return UINT32_MAX;
	/* the slot goes to @w's write, not to the next waiting one */
	evict(fm, v, now);
	if (fm->full.credit)
		fm->full.credit--;
	return v - fm->e;
}

/*
 * The eviction pass.  A busy waiting connection is looked up first and
 * the slower one taken out only when that lookup leads to a write
 * (fm_evict_victim()): the waiting entry may be one direction of a
 * connection whose other direction waits too (an entry refused before its
 * lookup knows one key), and the lookup that finds both merges them, so a
 * connection costs one slot, never two; a lookup that refuses it takes
 * nobody out.  The lookup goes ahead without full_admit(): the slot is
 * promised.
 */
unsigned int fm_evict_tick(struct fm *fm, uint64_t now, fm_action_cb cb, void *ctx)
{
	struct pick slow[FM_EVICT_MAX], busy[FM_EVICT_MAX];
	const struct fm_cfg *c = &fm->cfg;
	unsigned int ns = 0, nb = 0, i, n = 0;
	uint32_t id;

	if (!fm_busy_waiting(fm, now) || now < fm->evict_ns)
		return 0;
	fm->evict_ns = now + FM_EVICT_GAP_NS;
	fm->stat[NPUFLOW_FM_EVICT_WALKS]++;
	for (id = 0; id < fm->id_end; id++) {
		const struct fm_entry *e = &fm->e[id];
		uint32_t pps;

		if (e->rec.state == NPUFLOW_CS_MADE) {
			if (!e->reserved && npuflow_since(now, e->rec.made_ns) >= c->evict_min_ns &&
			    (e->rate[0].known || e->rate[1].known))
				rank(slow, &ns, id, fm_rate_pps(e, now), 1);
		} else if (waits_for_slot(e)) {
			pps = fm_rate_pps(e, now);
			if (pps >= c->evict_pps)
				rank(busy, &nb, id, pps, 0);
		}
	}
	for (i = 0; i < nb && i < ns; i++) {
		struct fm_entry *w = &fm->e[busy[i].id];

		if (busy[i].pps / c->evict_ratio < slow[i].pps ||
		    busy[i].pps == slow[i].pps)
			break;
		fm->e[slow[i].id].reserved = 1;
		w->victim = slow[i].id + 1;
		cb(ctx, fm_lookup_start(fm, w, now), busy[i].id);
		n++;
	}
	return n;
}
