/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npuflow_fmt.h - pure helpers shared by npuflowd, npuctl and the tests:
 * names of reasons and counters, text formatting of candidates and events,
 * summing per-CPU counters.  No syscalls, no libbpf.  npuctl's JSON is
 * tools/npuctl/json.c.
 */
#ifndef _NPUFLOW_FMT_H
#define _NPUFLOW_FMT_H

#include <stddef.h>
#include <stdio.h>
#include "../bpf/npuflow.h"

/* "flow_miss", ... ; "reason11" style for out-of-range values. */
const char *npuflow_reason_name(unsigned int reason);
/* "candidate", "non_ip", ...; NULL past NPUFLOW_S_MAX. */
const char *npuflow_stat_name(unsigned int stat);
/* "tcp", "udp", "icmp", "ipv6-icmp", or the number. buf >= 8. */
const char *npuflow_proto_name(unsigned int proto, char *buf, size_t len);
/* TCP flags as "FSRPAUEC" letters, '.' for unset; buf >= 9. */
const char *npuflow_tcp_flags(unsigned int flags, char *buf, size_t len);

/* "10.0.0.1", "2001:db8::1": address of @family from a key. */
int npuflow_fmt_addr(unsigned int family, const __u8 addr[16], char *buf, size_t len);
/* "src:port" with IPv6 in brackets; ICMP as "addr id N". */
int npuflow_fmt_endpoint(const struct npuflow_key *k, int dst, char *buf, size_t len);
/* One-line description of a key: "if 3 vlan 100.200 tcp 10.0.0.1:1 > 10.0.0.2:80". */
int npuflow_fmt_key(const struct npuflow_key *k, char *buf, size_t len);
/* One log line for an event (no newline). */
int npuflow_fmt_event(const struct npuflow_event *e, char *buf, size_t len);

/* Sum @ncpu per-CPU copies of a counters slot. */
void npuflow_counters_sum(const struct npuflow_counters *percpu, int ncpu,
			  struct npuflow_counters *out);
/* True if nothing was counted in the slot. */
int npuflow_counters_empty(const struct npuflow_counters *c);

/* A candidate row for tables: key and value. */
struct npuflow_row {
	struct npuflow_key key;
	struct npuflow_cand val;
};
/* Sort rows by frames, descending, then by key bytes (stable output). */
void npuflow_rows_sort(struct npuflow_row *rows, size_t n);

void npuflow_print_cand_header(FILE *f);
void npuflow_print_cand(FILE *f, const struct npuflow_row *r, const char *ifname,
			unsigned long long now_ns);

#endif
