// SPDX-License-Identifier: GPL-2.0
/*
 * metrics.c - npuflow's counters as Prometheus metric families
 * (metrics.h): what each is, its type and unit.  A counter of npuflow.h
 * gets a metric of its own, named after the name npuctl's text and JSON
 * give it.
 */
#include <stdio.h>
#include "../../lib/npuflow_names.h"
#include "metrics.h"
#include "promtext.h"

#define PROM_NAME_MAX	96

/* HELP of npuflow_classifier_<name>_total per enum npuflow_stat. */
static const char *const stat_help[NPUFLOW_S_MAX] = {
	[NPUFLOW_S_CANDIDATE] = "Frames recorded as a candidate, known or new.",
	[NPUFLOW_S_NEW] = "Frames that created a new candidate.",
	[NPUFLOW_S_NON_IP] = "Frames neither IPv4 nor IPv6 (ARP, LLDP, ...).",
	[NPUFLOW_S_TRUNC_L2] = "Frames that end inside the Ethernet or a VLAN header.",
	[NPUFLOW_S_TRUNC_L3] = "Frames that end inside the IP header, its options or extension "
			       "headers, or before the datagram's announced length.",
	[NPUFLOW_S_TRUNC_L4] = "Frames whose datagram ends inside the TCP, UDP or ICMP header.",
	[NPUFLOW_S_MALFORMED] = "Frames with an IP, TCP or UDP header that contradicts itself "
				"or the datagram.",
	[NPUFLOW_S_FRAGMENT] = "IP fragments; first fragments are candidates too.",
	[NPUFLOW_S_NONFIRST_FRAG] = "IP fragments past the first: no ports, not candidates.",
	[NPUFLOW_S_IP_OPTIONS] = "IPv4 frames with options.",
	[NPUFLOW_S_EXTHDR] = "IPv6 frames with extension headers.",
	[NPUFLOW_S_EXTHDR_LIMIT] = "IPv6 frames with more extension headers than the "
				   "classifier walks.",
	[NPUFLOW_S_VLAN_DEPTH] = "Frames with more than two VLAN tags.",
	[NPUFLOW_S_OTHER_L4] = "Candidate frames neither TCP, UDP nor ICMP: no ports.",
	[NPUFLOW_S_BAD_META] = "Frames whose driver metadata has the magic but a wrong "
			       "version, port or reason.",
	[NPUFLOW_S_THRESHOLD] = "Threshold events raised.",
	[NPUFLOW_S_REVIVE] = "Revive events raised.",
	[NPUFLOW_S_EVENT_LOST] = "Threshold events not raised: the event ring was full "
				 "(npuflowd's rescan finds them).",
	[NPUFLOW_S_CAND_FAIL] = "Candidate map updates that failed.",
	[NPUFLOW_S_CACHED] = "Candidate frames the per-CPU candidate cache took instead of "
			     "the map (also counted as candidate).",
};

/* The metric of a flow-maker counter (enum npuflow_fm_stat). */
struct fm_metric {
	const char *type;	/* "counter" or "gauge" */
	const char *name;	/* past "npuflow_flowmaker_"; NULL: the counter's name + "_total" */
	unsigned long long unit; /* the counter counts 1/unit of the metric's unit */
	const char *help;
};

#define FM_COUNT(h)		{ "counter", NULL, 1, h }
#define FM_SECONDS(n, h)	{ "counter", n, 1000000, h }	/* a counter of microseconds */

static const struct fm_metric fm_metrics[NPUFLOW_FM_MAX] = {
	[NPUFLOW_FM_EVENTS] = FM_COUNT("Threshold events handled."),
	[NPUFLOW_FM_STALE] = FM_COUNT("Threshold events older than their connection, ignored."),
	[NPUFLOW_FM_LOOKUPS] = FM_COUNT("Conntrack lookups."),
	[NPUFLOW_FM_MADE] = FM_COUNT("Connections made in hardware, the first time."),
	[NPUFLOW_FM_REMADE] = FM_COUNT("Connections made again after a hold."),
	[NPUFLOW_FM_GIVEBACKS] = FM_COUNT("Made connections given back under a new identity."),
	[NPUFLOW_FM_HELD] = FM_COUNT("Holds started."),
	[NPUFLOW_FM_HELD_EVENTS] = FM_COUNT("Threshold crossings of held connections."),
	[NPUFLOW_FM_REVIVES] = FM_COUNT("Revive events (the driver revives in place)."),
	[NPUFLOW_FM_TAKEN_OUT] = FM_COUNT("Connections taken out on a conntrack DESTROY."),
	[NPUFLOW_FM_RELEASED] = FM_COUNT("Connections released to the host: on demand (npuctl "
					 "release), or taken back at a ruleset change to be "
					 "made again."),
	[NPUFLOW_FM_REFUSED] = FM_COUNT("Refusals, all reasons (npuflow_refusals_total by "
					"reason)."),
	[NPUFLOW_FM_PUNTED_MADE] = FM_COUNT("Crossings of a made connection punted for "
					    "another reason."),
	[NPUFLOW_FM_CORE_FULL] = FM_COUNT("Candidates not taken up: the flow maker's table "
					  "was full."),
	[NPUFLOW_FM_EXPIRED] = FM_COUNT("Watched, held or refused entries forgotten."),
	[NPUFLOW_FM_CT_REFRESH] = FM_COUNT("Conntrack timeouts refreshed from the hardware "
					   "counters (keepalive)."),
	[NPUFLOW_FM_CT_RESYNC] = FM_COUNT("Full conntrack resyncs after lost events (ENOBUFS)."),
	[NPUFLOW_FM_HW_WRITES] = FM_COUNT("TC flower rules written."),
	[NPUFLOW_FM_HW_DELETES] = FM_COUNT("TC flower rules deleted."),
	[NPUFLOW_FM_HW_ORPHANS] = FM_COUNT("Rules of npuflowd's found without a connection "
					   "at a start, deleted."),
	[NPUFLOW_FM_RESTORED] = FM_COUNT("Connections restored at a start."),
	[NPUFLOW_FM_LOOKUP_US] = FM_SECONDS("lookup_seconds_total",
					    "Time in lookups: conntrack, then route and "
					    "neighbour of each direction."),
	[NPUFLOW_FM_WRITE_US] = FM_SECONDS("write_seconds_total",
					   "Time in writes: conntrack's be-liberal flags, "
					   "then the TC flower rules."),
	[NPUFLOW_FM_EGRESS_CACHED] = FM_COUNT("Egress lookups answered from npuflowd's cache."),
	[NPUFLOW_FM_EGRESS_ASKED] = FM_COUNT("Egress lookups asked of rtnetlink (cache misses)."),
	[NPUFLOW_FM_CT_US] = FM_SECONDS("ct_lookup_seconds_total",
					"Of the time in lookups, the conntrack queries."),
	[NPUFLOW_FM_CT_SWEPT] = FM_COUNT("Connections taken out by the periodic conntrack "
					 "check: no DESTROY came."),
	[NPUFLOW_FM_RESCANS] = FM_COUNT("Walks of the candidates after threshold events "
					"were lost."),
	[NPUFLOW_FM_RESCANNED] = FM_COUNT("Lost crossings the walks found, handled as "
					  "threshold events."),
	[NPUFLOW_FM_RESCAN_LOST] = { "gauge", "rescan_lost", 1,
				     "The classifier's lost-event total the last complete walk "
				     "covered (npuflow_classifier_events_lost_total summed)." },
	[NPUFLOW_FM_REROUTED] = FM_COUNT("Made connections given back to the host because their "
					 "egress moved or went (next hop's MAC, route, port, "
					 "tag, MTU)."),
	[NPUFLOW_FM_RULESETS] = FM_COUNT("nftables rulesets committed: each took the made "
					 "connections back to the host, to be made again."),
	[NPUFLOW_FM_FULL_TRIES] = FM_COUNT("Lookups admitted while the hardware table was full: "
					   "one a slot freed, plus a probe."),
	[NPUFLOW_FM_FULL_WAITS] = FM_COUNT("Retries not made while the hardware table was full "
					   "(no slot freed): no lookup, no write."),
	[NPUFLOW_FM_TABLE_FULL] = { "gauge", "table_full", 1,
				    "1 while the last write found the hardware table full." },
	[NPUFLOW_FM_FULL_WAITING] = { "gauge", "full_waiting", 1,
				      "Connections waiting for a slot in the full hardware "
				      "table (refused table_full)." },
	[NPUFLOW_FM_EVICTED] = FM_COUNT("Made connections taken out for busier waiting ones "
					"(the busiest win), each held back before it waits "
					"again."),
	[NPUFLOW_FM_BUSY_WALKS] = FM_COUNT("Walks of the candidates for the rates of the "
					   "connections waiting for a slot."),
	[NPUFLOW_FM_LIBERAL_UNDONE] = FM_COUNT("TCP connections whose be-liberal was taken back "
					       "after their write failed (they stay on the "
					       "host, checked)."),
	[NPUFLOW_FM_CT_DESTROYS] = FM_COUNT("Conntrack DESTROY events read, of any entry."),
	[NPUFLOW_FM_CT_RELIABLE] = { "gauge", "ct_reliable", 1,
				     "1 while conntrack's DESTROY events are delivered "
				     "reliably (sent again until read): no overrun costs "
				     "a dump of conntrack." },
	[NPUFLOW_FM_KEEPALIVE_US] = FM_SECONDS("keepalive_seconds_total",
					       "Time in keepalive: the dumps of the rules' "
					       "counters, the conntrack refreshes."),
	[NPUFLOW_FM_SWEEP_US] = FM_SECONDS("sweep_seconds_total",
					   "Time in the periodic conntrack sweeps (a dump of "
					   "conntrack each)."),
	[NPUFLOW_FM_RECHECK_US] = FM_SECONDS("recheck_seconds_total",
					     "Time in the made connections' egress rechecks."),
	[NPUFLOW_FM_RESCAN_US] = FM_SECONDS("rescan_seconds_total",
					    "Time in the rescans of the candidates for lost "
					    "threshold events."),
	[NPUFLOW_FM_TABLE_WALKS] = FM_COUNT("The policy's walks of its table for its timers: "
					    "a watched entry, a timer due, a full table's "
					    "freed slot or probe."),
	[NPUFLOW_FM_EVICT_WALKS] = FM_COUNT("The eviction pass's walks of the policy's table "
					    "(only while a waiting connection is busy)."),
	[NPUFLOW_FM_TIMERS_US] = FM_SECONDS("timers_seconds_total",
					    "Time in the policy's timers and the walks for the "
					    "waiting connections' rates."),
};

/* npuflow_flowmaker_<...> of flow-maker counter @i in @buf. */
static void fm_metric_name(unsigned int i, char *buf, size_t len)
{
	if (fm_metrics[i].name)
		snprintf(buf, len, "npuflow_flowmaker_%s", fm_metrics[i].name);
	else
		snprintf(buf, len, "npuflow_flowmaker_%s_total", fm_stat_name(i));
}

/* The labels of a counters slot: slot, port (panel number or "none"), ifname. */
struct port_labels {
	char slot[12];
	char port[12];
	struct prom_label l[4];	/* the three, and room for one more */
};

static void port_labels(struct port_labels *pl, const struct npuctl_port *p)
{
	int port = npuctl_slot_port(p->slot);

	snprintf(pl->slot, sizeof(pl->slot), "%u", p->slot);
	if (port < 0)
		snprintf(pl->port, sizeof(pl->port), "none");
	else
		snprintf(pl->port, sizeof(pl->port), "%d", port);
	pl->l[0] = (struct prom_label){ "slot", pl->slot };
	pl->l[1] = (struct prom_label){ "port", pl->port };
	pl->l[2] = (struct prom_label){ "ifname", p->ifname };
}

/* npuflow_punt_<what>_total by slot and reason: frames (@bytes 0) or bytes. */
static void prom_punts(FILE *f, const struct npuctl_port *p, size_t n, int bytes)
{
	const char *name = bytes ? "npuflow_punt_bytes_total" : "npuflow_punt_frames_total";
	size_t i;
	unsigned int r;

	prom_family(f, name, "counter", bytes ?
		    "L2 bytes of the frames the classifier saw, by the coprocessor's punt "
		    "reason (none: frames without its metadata)." :
		    "Frames the classifier saw, by the coprocessor's punt reason (none: "
		    "frames without its metadata).");
	for (i = 0; i < n; i++) {
		struct port_labels pl;

		port_labels(&pl, &p[i]);
		for (r = 0; r < NPUFLOW_R_SLOTS; r++) {
			const struct npuflow_counters *c = &p[i].c;

			pl.l[3] = (struct prom_label){ "reason", npuflow_reason_name(r) };
			prom_sample(f, name, pl.l, 4, bytes ? c->bytes[r] : c->frames[r], 1);
		}
	}
}

/* npuflow_classifier_<counter>_total by slot, for classifier counter @s. */
static void prom_classifier(FILE *f, const struct npuctl_port *p, size_t n, unsigned int s)
{
	char name[PROM_NAME_MAX];
	size_t i;

	snprintf(name, sizeof(name), "npuflow_classifier_%s_total", npuflow_stat_name(s));
	prom_family(f, name, "counter", stat_help[s] ? stat_help[s] : npuflow_stat_name(s));
	for (i = 0; i < n; i++) {
		struct port_labels pl;

		port_labels(&pl, &p[i]);
		prom_sample(f, name, pl.l, 3, p[i].c.stat[s], 1);
	}
}

void npuctl_prom_ports(FILE *f, const struct npuctl_port *p, size_t n)
{
	unsigned int s;

	prom_punts(f, p, n, 0);
	prom_punts(f, p, n, 1);
	for (s = 0; s < NPUFLOW_S_MAX; s++)
		prom_classifier(f, p, n, s);
}

/* A family of one sample without labels. */
static void prom_one(FILE *f, const char *name, const char *type, const char *help,
		     unsigned long long v, unsigned long long unit)
{
	prom_family(f, name, type, help);
	prom_sample(f, name, NULL, 0, v, unit);
}

/* A family of @v[@from..@to), labelled @label by @name_of(i). */
static void prom_by(FILE *f, const char *name, const char *type, const char *help,
		    const char *label, const __u64 *v, unsigned int from, unsigned int to,
		    const char *(*name_of)(unsigned int))
{
	unsigned int i;

	prom_family(f, name, type, help);
	for (i = from; i < to; i++) {
		struct prom_label l = { label, name_of(i) };

		prom_sample(f, name, &l, 1, v[i], 1);
	}
}

/* The flow maker's counters, one family each, and the time of its makes. */
static void prom_flowmaker(FILE *f, const struct npuflow_fmstats *st)
{
	char name[PROM_NAME_MAX];
	unsigned int i;

	for (i = 0; i < NPUFLOW_FM_MAX; i++) {
		const struct fm_metric *m = &fm_metrics[i];

		if (!m->type)
			continue;
		fm_metric_name(i, name, sizeof(name));
		prom_one(f, name, m->type, m->help, st->stat[i], m->unit);
	}
	prom_one(f, "npuflow_flowmaker_make_seconds_total", "counter",
		 "Time in makes: the lookups and the writes "
		 "(npuflow_flowmaker_lookup_seconds_total plus "
		 "npuflow_flowmaker_write_seconds_total).",
		 st->stat[NPUFLOW_FM_LOOKUP_US] + st->stat[NPUFLOW_FM_WRITE_US], 1000000);
}

/* npuflowd's loop: its passes, their wakeups by cause, its time by part, its CPU. */
static void prom_loop(FILE *f, const struct npuflow_loopstats *l)
{
	unsigned int i;

	prom_one(f, "npuflow_loop_passes_total", "counter",
		 "Passes of npuflowd's loop: waits for its fds, each followed by its work.",
		 l->passes, 1);
	prom_by(f, "npuflow_loop_wakeups_total", "counter",
		"What ended the loop's waits: the timeout (its timers' tick), a signal, or an "
		"fd (a wait several fds ended counts for each).", "cause", l->wakes, 0,
		NPUFLOW_LW_MAX, loop_wake_name);
	prom_family(f, "npuflow_loop_busy_seconds_total", "counter",
		    "The loop's time outside its waits, by part (its monotonic clock).");
	for (i = 0; i < NPUFLOW_LP_MAX; i++) {
		struct prom_label lb = { "part", loop_part_name(i) };

		prom_sample(f, "npuflow_loop_busy_seconds_total", &lb, 1, l->busy_us[i], 1000000);
	}
	prom_one(f, "npuflow_loop_wait_seconds_total", "counter",
		 "The loop's time in its waits.", l->wait_us, 1000000);
	prom_family(f, "npuflow_daemon_cpu_seconds_total", "counter",
		    "npuflowd's own CPU time (getrusage), by mode.");
	{
		struct prom_label u = { "mode", "user" }, k = { "mode", "system" };

		prom_sample(f, "npuflow_daemon_cpu_seconds_total", &u, 1, l->cpu_user_us, 1000000);
		prom_sample(f, "npuflow_daemon_cpu_seconds_total", &k, 1, l->cpu_sys_us, 1000000);
	}
}

void npuctl_prom_status(FILE *f, const struct npuctl_status *s)
{
	prom_one(f, "npuflow_daemon_running", "gauge",
		 "Whether npuflowd runs: a live process holds its lock file.", !!s->pid, 1);
	prom_one(f, "npuflow_maps_pinned", "gauge",
		 "Whether npuflowd's maps are pinned: it runs, or ran and was not flushed.",
		 !!s->pinned, 1);
	if (!s->pinned)
		return;
	prom_one(f, "npuflow_daemon_uptime_seconds", "gauge",
		 "Seconds since npuflowd's last start.", s->uptime_ns, 1000000000);
	prom_one(f, "npuflow_stats_age_seconds", "gauge",
		 "Seconds since npuflowd last wrote these counters.", s->updated_ns_ago,
		 1000000000);
	prom_by(f, "npuflow_connections", "gauge", "The flow maker's connections by state.",
		"state", s->st.state, 1, NPUFLOW_CS_MAX, fm_state_name);
	prom_by(f, "npuflow_refusals_total", "counter",
		"Connections the flow maker left on the host, by reason.", "reason",
		s->st.refused, 1, NPUFLOW_FR_SLOTS, fm_reason_name);
	prom_flowmaker(f, &s->st);
	if (s->have_loop)
		prom_loop(f, &s->loop);
}
