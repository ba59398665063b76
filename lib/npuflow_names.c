// SPDX-License-Identifier: GPL-2.0
/*
 * npuflow_names.c - the names of the connection states, refusal reasons and
 * flow-maker counters of bpf/npuflow.h, as npuflowd logs them and npuctl
 * prints them (npuflow_names.h): apart from the policy core, so npuctl
 * links these alone.
 */
#include <stddef.h>
#include "npuflow_names.h"

const char *fm_state_name(unsigned int s)
{
	static const char *const n[NPUFLOW_CS_MAX] = {
		"free", "pending", "lookup", "made", "held", "waiting", "refused", "released",
	};

	return s < NPUFLOW_CS_MAX ? n[s] : "?";
}

const char *fm_reason_name(unsigned int r)
{
	static const char *const n[NPUFLOW_FR_SLOTS] = {
		"none", "no_ct", "not_established", "helper", "seqadj", "ipsec", "shaping",
		"foreign_egress", "no_route", "no_neigh", "local", "proto", "table_full",
		"hw_error", "conflict", "vlan", "pppoe",
	};

	return r < NPUFLOW_FR_SLOTS ? n[r] : "?";
}

const char *fm_stat_name(unsigned int s)
{
	static const char *const n[NPUFLOW_FM_MAX] = {
		"events", "stale_events", "lookups", "made", "remade", "givebacks", "held",
		"held_events", "revives", "taken_out", "released", "refused", "punted_made",
		"core_full", "expired", "ct_refresh", "ct_resync", "hw_writes", "hw_deletes",
		"hw_orphans", "restored", "lookup_us", "write_us", "egress_cached",
		"egress_asked", "ct_us", "ct_swept", "rescans", "rescanned", "rescan_lost",
		"rerouted", "rulesets", "full_tries", "full_waits", "table_full",
		"full_waiting", "evicted", "busy_walks", "liberal_undone", "ct_destroys",
		"ct_reliable", "keepalive_us", "sweep_us", "recheck_us", "rescan_us",
		"timers_us", "table_walks", "evict_walks",
	};

	return s < NPUFLOW_FM_MAX ? n[s] : NULL;
}

const char *loop_wake_name(unsigned int w)
{
	static const char *const n[NPUFLOW_LW_MAX] = {
		"timeout", "ring", "conntrack", "control", "conntrack_closing", "rtnetlink",
		"xfrm", "nftables", "signal",
	};

	return w < NPUFLOW_LW_MAX ? n[w] : NULL;
}

const char *loop_part_name(unsigned int p)
{
	static const char *const n[NPUFLOW_LP_MAX] = {
		"events", "conntrack", "control", "timers", "log", "other",
	};

	return p < NPUFLOW_LP_MAX ? n[p] : NULL;
}
