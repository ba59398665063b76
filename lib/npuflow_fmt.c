// SPDX-License-Identifier: GPL-2.0
/*
 * npuflow_fmt.c - names, formatting and per-CPU sums for npuflow records.
 * Pure: used by npuflowd and npuctl, unit-tested in selftests/unit.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include "npuflow_fmt.h"

static const char *const reason_names[NPUFLOW_R_MAX] = {
	[NPUFLOW_R_NONE] = "none",
	[NPUFLOW_R_FLOW_MISS] = "flow_miss",
	[NPUFLOW_R_NOT_ACTIVE] = "not_active",
	[NPUFLOW_R_TCP_FLAGS] = "tcp_flags",
	[NPUFLOW_R_EXCEPTION] = "exception",
	[NPUFLOW_R_MTU] = "mtu",
	[NPUFLOW_R_NON_IP] = "non_ip",
	[NPUFLOW_R_MCAST] = "mcast",
	[NPUFLOW_R_FASTPATH_OFF] = "fastpath_off",
	[NPUFLOW_R_NTUPLE] = "ntuple",
	[NPUFLOW_R_MALFORMED] = "malformed",
};

static const char *const stat_names[NPUFLOW_S_MAX] = {
	[NPUFLOW_S_CANDIDATE] = "candidate",
	[NPUFLOW_S_NEW] = "new",
	[NPUFLOW_S_NON_IP] = "non_ip",
	[NPUFLOW_S_TRUNC_L2] = "trunc_l2",
	[NPUFLOW_S_TRUNC_L3] = "trunc_l3",
	[NPUFLOW_S_TRUNC_L4] = "trunc_l4",
	[NPUFLOW_S_MALFORMED] = "malformed",
	[NPUFLOW_S_FRAGMENT] = "fragment",
	[NPUFLOW_S_NONFIRST_FRAG] = "nonfirst_frag",
	[NPUFLOW_S_IP_OPTIONS] = "ip_options",
	[NPUFLOW_S_EXTHDR] = "exthdr",
	[NPUFLOW_S_EXTHDR_LIMIT] = "exthdr_limit",
	[NPUFLOW_S_VLAN_DEPTH] = "vlan_depth",
	[NPUFLOW_S_OTHER_L4] = "other_l4",
	[NPUFLOW_S_BAD_META] = "bad_meta",
	[NPUFLOW_S_THRESHOLD] = "threshold_events",
	[NPUFLOW_S_REVIVE] = "revive_events",
	[NPUFLOW_S_EVENT_LOST] = "events_lost",
	[NPUFLOW_S_CAND_FAIL] = "candidate_fail",
	[NPUFLOW_S_CACHED] = "cached",
};

const char *npuflow_reason_name(unsigned int reason)
{
	if (reason < NPUFLOW_R_MAX)
		return reason_names[reason];
	return "unknown";
}

const char *npuflow_stat_name(unsigned int stat)
{
	return stat < NPUFLOW_S_MAX ? stat_names[stat] : NULL;
}

const char *npuflow_proto_name(unsigned int proto, char *buf, size_t len)
{
	switch (proto) {
	case IPPROTO_TCP:
		return "tcp";
	case IPPROTO_UDP:
		return "udp";
	case IPPROTO_ICMP:
		return "icmp";
	case IPPROTO_ICMPV6:
		return "icmpv6";
	default:
		snprintf(buf, len, "%u", proto);
		return buf;
	}
}

const char *npuflow_tcp_flags(unsigned int flags, char *buf, size_t len)
{
	static const char letters[] = "FSRPAUEC";
	size_t i;

	if (len < 9) {
		if (len)
			buf[0] = '\0';
		return buf;
	}
	for (i = 0; i < 8; i++)
		buf[i] = (flags & (1u << i)) ? letters[i] : '.';
	buf[8] = '\0';
	return buf;
}

int npuflow_fmt_addr(unsigned int family, const __u8 addr[16], char *buf, size_t len)
{
	char tmp[INET6_ADDRSTRLEN];

	if (family == AF_INET)
		inet_ntop(AF_INET, addr, tmp, sizeof(tmp));
	else if (family == AF_INET6)
		inet_ntop(AF_INET6, addr, tmp, sizeof(tmp));
	else
		snprintf(tmp, sizeof(tmp), "family%u", family);
	return snprintf(buf, len, "%s", tmp);
}

/* 1 if @k is ICMP or ICMPv6: its ports are an id and a type/code. */
static int is_icmp(const struct npuflow_key *k)
{
	return k->proto == IPPROTO_ICMP || k->proto == IPPROTO_ICMPV6;
}

int npuflow_fmt_endpoint(const struct npuflow_key *k, int dst, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN + 16];
	unsigned int port = ntohs(dst ? k->dport : k->sport);

	npuflow_fmt_addr(k->family, dst ? k->daddr : k->saddr, a, sizeof(a));
	if (is_icmp(k)) {
		if (dst)
			return snprintf(buf, len, "%s type %u code %u", a, port >> 8, port & 0xff);
		return snprintf(buf, len, "%s id %u", a, port);
	}
	if (k->proto != IPPROTO_TCP && k->proto != IPPROTO_UDP)
		return snprintf(buf, len, "%s", a);
	if (k->family == AF_INET6)
		return snprintf(buf, len, "[%s]:%u", a, port);
	return snprintf(buf, len, "%s:%u", a, port);
}

/* A tag's half of the key: "100", or "ad100" for 802.1ad. */
static int fmt_tag(uint16_t v, char *buf, size_t len)
{
	return snprintf(buf, len, "%s%u", v & NPUFLOW_VLAN_AD ? "ad" : "",
			v & NPUFLOW_VLAN_VID);
}

int npuflow_fmt_tags(const struct npuflow_key *k, char *buf, size_t len)
{
	char o[8] = "", i[8] = "", s[8] = "";

	if (k->vlan_outer)
		fmt_tag(k->vlan_outer, o, sizeof(o));
	if (k->vlan_inner)
		fmt_tag(k->vlan_inner, i, sizeof(i));
	if (k->pppoe_sid)
		snprintf(s, sizeof(s), "%u", k->pppoe_sid);
	return snprintf(buf, len, "%s%s%s%s%s", o, *i ? "." : "", i,
			!*s ? "" : *o ? ":s" : "s", s);
}

int npuflow_fmt_key(const struct npuflow_key *k, char *buf, size_t len)
{
	char s[96], d[96], tags[24], vlan[32] = "", pb[8];

	npuflow_fmt_endpoint(k, 0, s, sizeof(s));
	npuflow_fmt_endpoint(k, 1, d, sizeof(d));
	if (npuflow_fmt_tags(k, tags, sizeof(tags)) > 0)
		snprintf(vlan, sizeof(vlan), " vlan %s", tags);
	return snprintf(buf, len, "if %u%s %s %s > %s", k->ifindex, vlan,
			npuflow_proto_name(k->proto, pb, sizeof(pb)), s, d);
}

int npuflow_fmt_event(const struct npuflow_event *e, char *buf, size_t len)
{
	char kb[256], conn[16];
	const char *type = e->type == NPUFLOW_EV_THRESHOLD ? "threshold" :
			   e->type == NPUFLOW_EV_REVIVE ? "revive" : "event";

	npuflow_fmt_key(&e->key, kb, sizeof(kb));
	if (e->conn == NPUFLOW_CONN_NONE)
		snprintf(conn, sizeof(conn), "-");
	else
		snprintf(conn, sizeof(conn), "%u", e->conn);
	return snprintf(buf, len, "%s %s frames %llu bytes %llu reason %s conn %s",
			type, kb, (unsigned long long)e->frames,
			(unsigned long long)e->bytes, npuflow_reason_name(e->reason), conn);
}

void npuflow_counters_sum(const struct npuflow_counters *percpu, int ncpu,
			  struct npuflow_counters *out)
{
	int cpu;
	size_t i;

	memset(out, 0, sizeof(*out));
	for (cpu = 0; cpu < ncpu; cpu++) {
		const struct npuflow_counters *c = &percpu[cpu];

		if (c->ifindex)
			out->ifindex = c->ifindex;
		for (i = 0; i < NPUFLOW_R_SLOTS; i++) {
			out->frames[i] += c->frames[i];
			out->bytes[i] += c->bytes[i];
		}
		for (i = 0; i < NPUFLOW_S_SLOTS; i++)
			out->stat[i] += c->stat[i];
	}
}

int npuflow_counters_empty(const struct npuflow_counters *c)
{
	size_t i;

	for (i = 0; i < NPUFLOW_R_SLOTS; i++)
		if (c->frames[i])
			return 0;
	for (i = 0; i < NPUFLOW_S_SLOTS; i++)
		if (c->stat[i])
			return 0;
	return 1;
}

/* qsort() order of npuflow_rows_sort(): frames descending, then key bytes. */
static int row_cmp(const void *a, const void *b)
{
	const struct npuflow_row *x = a, *y = b;

	if (x->val.frames != y->val.frames)
		return x->val.frames > y->val.frames ? -1 : 1;
	return memcmp(&x->key, &y->key, sizeof(x->key));
}

void npuflow_rows_sort(struct npuflow_row *rows, size_t n)
{
	if (n > 1)
		qsort(rows, n, sizeof(*rows), row_cmp);
}

void npuflow_print_cand_header(FILE *f)
{
	fprintf(f, "%-10s %-9s %-6s %-44s %-44s %10s %12s %-8s %-10s %4s %10s %8s\n",
		"ifname", "vlan", "proto", "source", "destination", "frames", "bytes",
		"tcpflags", "reason", "port", "conn", "idle_ms");
}

void npuflow_print_cand(FILE *f, const struct npuflow_row *r, const char *ifname,
			unsigned long long now_ns)
{
	const struct npuflow_key *k = &r->key;
	const struct npuflow_cand *v = &r->val;
	char s[96], d[96], vlan[24], pb[8], fl[9], port[8], conn[16], idle[24];

	npuflow_fmt_endpoint(k, 0, s, sizeof(s));
	npuflow_fmt_endpoint(k, 1, d, sizeof(d));
	if (npuflow_fmt_tags(k, vlan, sizeof(vlan)) <= 0)
		snprintf(vlan, sizeof(vlan), "-");
	if (v->port == NPUFLOW_PORT_NONE)
		snprintf(port, sizeof(port), "-");
	else
		snprintf(port, sizeof(port), "%u", v->port + 1);	/* panel numbering */
	if (v->conn == NPUFLOW_CONN_NONE)
		snprintf(conn, sizeof(conn), "-");
	else
		snprintf(conn, sizeof(conn), "%u", v->conn);
	if (now_ns && now_ns >= v->last_ns)
		snprintf(idle, sizeof(idle), "%llu",
			 (unsigned long long)(now_ns - v->last_ns) / 1000000ull);
	else
		snprintf(idle, sizeof(idle), "-");
	fprintf(f, "%-10s %-9s %-6s %-44s %-44s %10llu %12llu %-8s %-10s %4s %10s %8s\n",
		ifname, vlan, npuflow_proto_name(k->proto, pb, sizeof(pb)), s, d,
		(unsigned long long)v->frames, (unsigned long long)v->bytes,
		k->proto == IPPROTO_TCP ? npuflow_tcp_flags(v->tcp_flags, fl, sizeof(fl)) : "-",
		npuflow_reason_name(v->reason), port, conn, idle);
}
