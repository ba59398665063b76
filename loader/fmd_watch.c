// SPDX-License-Identifier: GPL-2.0
/*
 * fmd_watch.c - what moves under made connections (fmd_int.h): rtnetlink's
 * and xfrm's announcements make the egress facts stale and the made
 * connections' egress is checked again; an nftables ruleset change
 * releases them to the host (fmd_takeback_all(), fmd_release.c).
 */
#include <errno.h>
#include <string.h>
#include <bpf/bpf.h>
#include "fmd_int.h"
#include "fmd_egress.h"

/* The egress of made connections is checked again at most this often after
 * rtnetlink announced changes, and every FMD_RECHECK_IDLE_NS when what it
 * does not announce (a qdisc) moved (idle_walk_needed()); each stretched by
 * the check's cost (fm_pace_next()) up to FMD_RECHECK_MAX_NS (a change is
 * obeyed within a second) and FMD_RECHECK_IDLE_MAX_NS, the backstop. */
#define FMD_RECHECK_NS		(200ull * 1000000)
#define FMD_RECHECK_MAX_NS	(1000ull * 1000000)
#define FMD_RECHECK_IDLE_NS	(5000ull * 1000000)
#define FMD_RECHECK_IDLE_MAX_NS	(60000ull * 1000000)

/* A neighbour announcement: the made connections are checked again only if
 * it may change a direction's MAC (rtc_neigh_seen()). */
static void neigh_seen(const struct nls_neigh_note *n, void *arg)
{
	struct fmd *d = arg;

	if (rtc_neigh_seen(d->rtc, n->family, n->ifindex, n->addr, n->usable ? n->mac : NULL))
		d->egress_dirty = 1;
}

/*
 * What rtnetlink announced since the last call.  A link, route or rule
 * change makes every egress fact looked up so far stale; a neighbour's
 * changes at most its own (a busy host's neighbours change state every
 * few seconds, and each full invalidation costs the next makes their
 * route, rules and link lookups again).  Either way the made connections'
 * egress is checked again.
 */
void fmd_monitor_poll(struct fmd *d)
{
	if (d->mon.nl && nls_monitor_read(&d->mon, neigh_seen, d)) {
		rtc_invalidate(d->rtc);
		d->egress_dirty = 1;
	}
	if (d->xmon.nl && nls_monitor_changed(&d->xmon)) {
		d->xfrm_stale = 1;
		d->egress_dirty = 1;
	}
}

/* --- the egress moves under made connections ------------------------------ */

/*
 * After rtnetlink announced a change (a neighbour's MAC, a route, a rule, a
 * link's state or MTU), at most every FMD_RECHECK_NS: every made
 * connection's egress is looked up again (from rtcache where it still
 * serves: the connections between two hosts share their lookups), and one
 * whose egress moved or cannot be made any more goes back to the host: its
 * rules deleted, its candidates re-armed, the entry forgotten.  A next hop
 * not resolved at the moment keeps its connections as they are (a probe
 * unanswered under load took 901 of 1,024 back to the host at once, and
 * they were made again); its next resolution says whether the MAC moved.  The host
 * forwards its frames with the new facts meanwhile, and they make it again
 * (or keep it on the host, refused) as any new connection.
 */
/* Why fmd_egress_check() took a made connection back, for the log. */
static const char *egress_why(uint32_t rc)
{
	return rc == FMD_EG_MOVED ? "its egress moved" :
	       rc == FMD_EG_IPSEC ? "an IPsec policy covers it" :
	       rc == FM_EG_NO_ROUTE ? "its egress cannot be made any more: no route" :
	       rc == FM_EG_FOREIGN ? "its egress cannot be made any more: another device's port" :
	       rc == FM_EG_SHAPED ? "its egress cannot be made any more: a shaped port" :
	       rc == FM_EG_LOCAL ? "its egress cannot be made any more: the host's own" :
	       rc == FM_EG_VLAN ? "its egress cannot be made any more: a tag not written" :
	       rc == FM_EG_PPPOE ? "its egress cannot be made any more: its PPPoE session" :
	       "its egress cannot be made any more";
}

/*
 * Whether the idle recheck walks the made connections: when what it can
 * find moved unannounced - a port's or an 802.1Q device's facts asked
 * again each second differ (a shaping qdisc, IPv6's forwarding) - or when
 * nothing announces routes or IPsec policies (no monitor), and at least
 * every FMD_RECHECK_IDLE_MAX_NS.  Otherwise a full table's idle period
 * costs no per-connection work.
 */
static int idle_walk_needed(const struct fmd *d, uint64_t now)
{
	return d->facts_moved != d->facts_checked || !d->mon.nl ||
	       (d->xfrm.nl && !d->xmon.nl) || now >= d->recheck_all_ns;
}

void fmd_recheck_made(struct fmd *d, uint64_t now)
{
	uint64_t t0 = fmd_now(), end;
	int n = 0, kept = 0;
	uint32_t id, rc;

	if (now >= d->egress_idle_ns && !d->egress_dirty) {
		/* what moved unannounced since the last look (the tick keeps
		 * the facts only while a make is in prospect), counted as the
		 * recheck's time */
		fmd_egress_keep(d, now);
		if (idle_walk_needed(d, now))
			d->egress_dirty = 1;
		else
			d->egress_idle_ns = now + FMD_RECHECK_IDLE_NS;
		end = fmd_now();
		d->egress_ns += end - t0;
		t0 = end;
	}
	if (!d->egress_dirty || now < d->next_recheck_ns)
		return;
	d->egress_dirty = 0;
	fmd_egress_pass(d);
	fmd_egress_recheck_ports(d, now);
	/* the ports just read included; a shaped port or a tag that went lets
	 * the connections refused for it be looked up again at once */
	if (d->facts_checked != d->facts_moved)
		fm_egress_facts_moved(&d->fm, now);
	d->facts_checked = d->facts_moved;
	for (id = 0; id < fm_id_end(&d->fm); id++) {
		struct fm_entry *e = &d->fm.e[id];

		if (e->rec.state != NPUFLOW_CS_MADE)
			continue;
		rc = fmd_egress_check(d, &e->rec, e->ct_mark, e->nh_known ? e->nexthop : NULL);
		if (rc == FM_EG_NO_NEIGH)
			kept++;
		if (!rc || rc == FM_EG_NO_NEIGH ||
		    fm_egress_moved(&d->fm, id, now) != FM_A_TAKEOUT)
			continue;
		fmd_hw_delete(d, e);
		fmd_rearm(d, e);
		d->log(L_INFO, "connection %u back to the host: %s", id, egress_why(rc));
		fm_forget(&d->fm, id);
		fmd_sync_id(d, id);
		n++;
	}
	/* paced by its cost (fm_pace_next()); without the monitor every lookup
	 * is a round trip: once an idle period */
	end = fmd_now();
	d->egress_ns += end - t0;
	d->next_recheck_ns = fm_pace_next(end, d->mon.nl ? FMD_RECHECK_NS : FMD_RECHECK_IDLE_NS,
					  end - t0, FMD_RECHECK_MAX_NS);
	d->egress_idle_ns = fm_pace_next(end, FMD_RECHECK_IDLE_NS, end - t0,
					 FMD_RECHECK_IDLE_MAX_NS);
	d->recheck_all_ns = end + FMD_RECHECK_IDLE_MAX_NS;
	if (n)
		d->log(L_INFO, "egress recheck: %d connection(s) back to the host", n);
	if (kept)
		d->log(L_INFO, "egress recheck: %d connection(s) kept, their next hop not "
		       "resolved now", kept);
}

/*
 * Keep nftables' generation now in "fmgen" (one round trip).  @changed,
 * when not NULL: set if it differs from the kept one, or if none was kept
 * while npuflowd holds connections.  0, or -1 when the generation cannot be
 * read (no nftables) or kept.
 */
static int ruleset_gen_keep(struct fmd *d, int *changed)
{
	uint64_t kept = 0, cur;
	uint32_t genid, zero = 0, id;

	if (d->gen_fd < 0 || !d->wq.ctb.nl || nls_nft_genid(&d->wq.ctb, &genid))
		return -1;
	cur = 1ull << 32 | genid;
	if (changed) {
		bpf_map_lookup_elem(d->gen_fd, &zero, &kept);
		*changed = kept != cur;
		if (!kept) {	/* never kept: a change only if something was restored */
			*changed = 0;
			for (id = 0; id < fm_id_end(&d->fm); id++)
				if (d->fm.e[id].rec.state != NPUFLOW_CS_FREE)
					*changed = 1;
		}
	}
	return bpf_map_update_elem(d->gen_fd, &zero, &cur, BPF_ANY) ? -1 : 0;
}

/*
 * nftables committed a new ruleset: a rule may now refuse what the made
 * connections carry, and conntrack keeps their entries whatever the
 * ruleset says.  Every made (held, waiting) connection is taken back to the
 * host, where the ruleset sees its frames (fmd_takeback_all()), and
 * nothing is made, whatever its state, until the host has forwarded both
 * its directions after the change (prove_forwarded()): conntrack's state
 * says nothing of the new rules.  Called first in each pass, so that no
 * lookup is judged against a ruleset older than what was announced.  (The
 * kernel's flowtable keeps forwarding the flows it holds past a ruleset
 * change: docs/operator-guide.md.)
 */
void fmd_ruleset_poll(struct fmd *d, uint64_t now)
{
	int gens, n;

	if (!d->nft.nl)
		return;
	gens = nls_nft_monitor_gens(&d->nft);
	if (gens <= 0)
		return;
	d->fm.stat[NPUFLOW_FM_RULESETS] += gens;
	/* from now on a direction is made only once the host forwarded it again */
	d->ruleset_ns = fmd_now();
	n = fmd_takeback_all(d, now);
	d->log(n ? L_INFO : L_DBG, "nftables ruleset changed: %d connection(s) taken back to the "
	       "host, to be made again once it forwards them", n);
	ruleset_gen_keep(d, NULL);
}

/*
 * At start, after the restore: a ruleset committed while npuflowd was not
 * running (the generation differs from the one kept in "fmgen", or none was
 * kept while connections were restored) is a change as fmd_ruleset_poll() sees
 * one: every made connection is taken back, and nothing is made before the
 * host forwards it again.
 */
void fmd_ruleset_gen_check(struct fmd *d, uint64_t now)
{
	int changed, n;

	if (ruleset_gen_keep(d, &changed) || !changed)
		return;
	d->fm.stat[NPUFLOW_FM_RULESETS]++;
	d->ruleset_ns = fmd_now();
	n = fmd_takeback_all(d, now);
	d->log(L_INFO, "nftables ruleset changed while npuflowd was not running: %d "
	       "connection(s) taken back to the host", n);
}
