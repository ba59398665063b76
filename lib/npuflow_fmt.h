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

/**
 * npuflow_reason_name - a punt reason's name
 * @reason: NPUFLOW_R_* (bpf/npuflow.h)
 *
 * Return: "flow_miss", "not_active", ...; "unknown" out of range.
 */
const char *npuflow_reason_name(unsigned int reason);

/**
 * npuflow_stat_name - a classifier counter's name
 * @stat: NPUFLOW_S_*
 *
 * Return: "candidate", "non_ip", ...; NULL from NPUFLOW_S_MAX on.
 */
const char *npuflow_stat_name(unsigned int stat);

/**
 * npuflow_proto_name - an IP protocol's name
 * @proto: the protocol number
 * @buf: where the number is written when it has no name (8 bytes hold any)
 * @len: @buf's size
 *
 * Return: "tcp", "udp", "icmp", "icmpv6", or @buf holding the number.
 */
const char *npuflow_proto_name(unsigned int proto, char *buf, size_t len);

/**
 * npuflow_tcp_flags - TCP flags as letters, FIN first
 * @flags: the flags byte (FIN bit 0 ... CWR bit 7)
 * @buf: where to write
 * @len: @buf's size: at least 9, else @buf gets "" (when @len is not 0)
 *
 * Return: @buf, "FSRPAUEC" with '.' for each flag not set.
 */
const char *npuflow_tcp_flags(unsigned int flags, char *buf, size_t len);

/**
 * npuflow_fmt_addr - an address of a key as text
 * @family: AF_INET or AF_INET6 ("family<N>" otherwise)
 * @addr: the address, as struct npuflow_key holds it
 * @buf: where to write: "10.0.0.1", "2001:db8::1"
 * @len: @buf's size
 *
 * Return: what snprintf() returns.
 */
int npuflow_fmt_addr(unsigned int family, const __u8 addr[16], char *buf, size_t len);

/**
 * npuflow_fmt_endpoint - one end of a key as text
 * @k: the key
 * @dst: 0 for the source, 1 for the destination
 * @buf: where to write: "addr:port" for TCP and UDP (IPv6 in brackets),
 *       "addr id N" (source) and "addr type T code C" (destination) for
 *       ICMP, the address alone for another protocol
 * @len: @buf's size
 *
 * Return: what snprintf() returns.
 */
int npuflow_fmt_endpoint(const struct npuflow_key *k, int dst, char *buf, size_t len);

/**
 * npuflow_fmt_tags - a key's VLAN tags and PPPoE session, short
 * @k: the key
 * @buf: where to write: "100", "100.200", "ad100.200" (an 802.1ad tag's VID
 *       after "ad"), then ":s5" for session 5 ("s5" untagged); "" when
 *       untagged outside a session
 * @len: @buf's size
 *
 * Return: what snprintf() returns.
 */
int npuflow_fmt_tags(const struct npuflow_key *k, char *buf, size_t len);

/**
 * npuflow_fmt_key - a key on one line
 * @k: the key
 * @buf: where to write: "if 3 vlan 100.200 tcp 10.0.0.1:1 > 10.0.0.2:80"
 *       (no vlan part when untagged; npuflow_fmt_tags()'s form)
 * @len: @buf's size
 *
 * Return: what snprintf() returns.
 */
int npuflow_fmt_key(const struct npuflow_key *k, char *buf, size_t len);

/**
 * npuflow_fmt_event - an event of the classifier's ring buffer as one log
 * line (no newline)
 * @e: the event
 * @buf: where to write: its type, key, frames, bytes, reason and connection
 * @len: @buf's size
 *
 * Return: what snprintf() returns.
 */
int npuflow_fmt_event(const struct npuflow_event *e, char *buf, size_t len);

/**
 * npuflow_counters_sum - sum the per-CPU copies of a counters slot
 * @percpu: @ncpu copies, as a lookup in the "counters" map gives them
 * @ncpu: how many
 * @out: the sum; its ifindex is the last non-zero one of the copies
 */
void npuflow_counters_sum(const struct npuflow_counters *percpu, int ncpu,
			  struct npuflow_counters *out);

/**
 * npuflow_counters_empty - whether a counters slot counted nothing
 * @c: the slot
 *
 * Return: 1 if no frame of any reason and no counter is counted, else 0.
 */
int npuflow_counters_empty(const struct npuflow_counters *c);

/* A candidate row for tables: key and value. */
struct npuflow_row {
	struct npuflow_key key;
	struct npuflow_cand val;
};

/**
 * npuflow_rows_sort - sort candidate rows for output
 * @rows: the rows
 * @n: how many
 *
 * By frames, descending, then by key bytes, so that the output is stable.
 */
void npuflow_rows_sort(struct npuflow_row *rows, size_t n);

/**
 * npuflow_print_cand_header - print the header line of the candidates'
 * table (npuctl candidates)
 * @f: where to
 */
void npuflow_print_cand_header(FILE *f);

/**
 * npuflow_print_cand - print one row of the candidates' table, in the
 * columns of npuflow_print_cand_header()
 * @f: where to
 * @r: the candidate
 * @ifname: the name of its ingress netdev
 * @now_ns: CLOCK_MONOTONIC now, for the idle column; 0, or a time before the
 *          candidate's last frame, prints "-" there
 */
void npuflow_print_cand(FILE *f, const struct npuflow_row *r, const char *ifname,
			unsigned long long now_ns);

#endif
