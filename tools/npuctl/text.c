// SPDX-License-Identifier: GPL-2.0
/* text.c - npuctl's tables for people (text.h). */
#include <arpa/inet.h>
#include <libgen.h>
#include <sys/socket.h>
#include "../../lib/npuflow_names.h"
#include "text.h"

void npuctl_port_text(FILE *f, const struct npuctl_port *p, int all, int first)
{
	const struct npuflow_counters *c = &p->c;
	unsigned int r, s;
	char label[64];

	if (p->slot < NPUFLOW_MAX_PORTS)
		snprintf(label, sizeof(label), "port %d", npuctl_slot_port(p->slot));
	else
		snprintf(label, sizeof(label), "no metadata, slot %u",
			 p->slot - NPUFLOW_MAX_PORTS);
	fprintf(f, "%s%s (%s, ifindex %u)\n", first ? "" : "\n", label,
		c->ifindex ? p->ifname : "-", c->ifindex);
	fprintf(f, "  %-14s %14s %16s\n", "reason", "frames", "bytes");
	for (r = 0; r < NPUFLOW_R_SLOTS; r++)
		if (c->frames[r] || all)
			fprintf(f, "  %-14s %14llu %16llu\n", npuflow_reason_name(r),
				(unsigned long long)c->frames[r], (unsigned long long)c->bytes[r]);
	fprintf(f, "  %-20s %14s\n", "classifier", "count");
	for (s = 0; s < NPUFLOW_S_MAX; s++)
		if (c->stat[s] || all)
			fprintf(f, "  %-20s %14llu\n", npuflow_stat_name(s),
				(unsigned long long)c->stat[s]);
}

void npuctl_fmstats_text(FILE *f, const struct npuflow_fmstats *st)
{
	unsigned int i;

	fprintf(f, "flow maker\n  %-20s %14s\n", "counter", "count");
	for (i = 0; i < NPUFLOW_FM_MAX; i++)
		fprintf(f, "  %-20s %14llu\n", fm_stat_name(i), (unsigned long long)st->stat[i]);
	fprintf(f, "  %-20s %14s\n", "refused: reason", "count");
	for (i = 1; i < NPUFLOW_FR_SLOTS; i++)
		if (st->refused[i])
			fprintf(f, "  %-20s %14llu\n", fm_reason_name(i),
				(unsigned long long)st->refused[i]);
}

/* "a:p > b:q", IPv6 in brackets. */
static void fmt_tuple(const struct npuflow_key *k, char *buf, size_t len)
{
	char s[48], d[48];
	int af = k->family == 10 ? AF_INET6 : AF_INET;

	inet_ntop(af, k->saddr, s, sizeof(s));
	inet_ntop(af, k->daddr, d, sizeof(d));
	if (af == AF_INET6)
		snprintf(buf, len, "[%s]:%u > [%s]:%u", s, ntohs(k->sport), d, ntohs(k->dport));
	else
		snprintf(buf, len, "%s:%u > %s:%u", s, ntohs(k->sport), d, ntohs(k->dport));
}

void npuctl_flow_text_header(FILE *f)
{
	fprintf(f, "%-6s %-9s %-5s %-10s %-48s %-10s %12s %14s %8s %8s %s\n", "id", "state",
		"proto", "in", "tuple as it arrives", "out", "packets", "bytes", "age_s",
		"idle_s", "gb/remade/revived reason");
}

/*
 * @dev, then the tags and session @k names in npuflow_fmt_tags()'s form
 * after a dot ("eth7.ad100.200:s1"), into @buf (@len); "-" for no @dev.
 */
static void fmt_dev_tags(const char *dev, const struct npuflow_key *k, char *buf, size_t len)
{
	char tags[24];

	if (!dev[0])
		snprintf(buf, len, "-");
	else if (npuflow_fmt_tags(k, tags, sizeof(tags)) > 0)
		snprintf(buf, len, "%s.%s", dev, tags);
	else
		snprintf(buf, len, "%s", dev);
}

void npuctl_flow_text(FILE *f, const struct npuctl_flow *fl)
{
	const struct npuflow_conn *c = fl->c;
	int dir;

	for (dir = 0; dir < 2; dir++) {
		struct npuflow_key eg = { .vlan_outer = c->out_vid[dir],
					  .vlan_inner = c->out_vid_inner[dir],
					  .pppoe_sid = c->out_sid[dir] };
		char t[128], p[8], in[48], out[48];

		fmt_tuple(&c->key[dir], t, sizeof(t));
		fmt_dev_tags(fl->in[dir], &c->key[dir], in, sizeof(in));
		fmt_dev_tags(fl->out[dir], &eg, out, sizeof(out));
		if (!dir)
			fprintf(f, "%-6u %-9s %-5s ", fl->id, fm_state_name(c->state),
				npuflow_proto_name(c->key[0].proto, p, sizeof(p)));
		else
			fprintf(f, "%-6s %-9s %-5s ", "", "", "");
		fprintf(f, "%-10s %-48s %-10s %12llu %14llu", in, t, out,
			(unsigned long long)c->packets[dir], (unsigned long long)c->bytes[dir]);
		if (!dir)
			fprintf(f, " %8.1f %8.1f %u/%u/%u %s%s\n", fl->age_ns / 1e9,
				fl->idle_ns / 1e9, c->givebacks, c->remakes, c->revives,
				c->reason ? fm_reason_name(c->reason) : "-",
				c->flags & NPUFLOW_CONN_F_NAT ? " nat" : "");
		else
			fprintf(f, "\n");
	}
}

/*
 * npuflowd stopped with its maps pinned: the rules of the connections it
 * made stay in tc until it starts again or is flushed, said only when
 * there are (the coprocessor may have let some go meanwhile: a give-back,
 * a PPPoE session's end).
 */
static void status_stopped_text(FILE *f, unsigned long long made, const char *pin_dir)
{
	if (made)
		fprintf(f, "npuflowd not running (the rules of its %llu made connection%s stay in tc "
			"until it starts again; maps in %s)\n", made, made == 1 ? "" : "s", pin_dir);
	else
		fprintf(f, "npuflowd not running (maps in %s)\n", pin_dir);
}

/* npuflowd's loop: passes, what woke them, its time by part, its CPU. */
static void loop_text(FILE *f, const struct npuflow_loopstats *l)
{
	unsigned int i;

	fprintf(f, "loop: %llu passes, woken by", (unsigned long long)l->passes);
	for (i = 0; i < NPUFLOW_LW_MAX; i++)
		fprintf(f, " %s %llu", loop_wake_name(i), (unsigned long long)l->wakes[i]);
	fprintf(f, "\nloop busy (ms):");
	for (i = 0; i < NPUFLOW_LP_MAX; i++)
		fprintf(f, " %s %llu", loop_part_name(i),
			(unsigned long long)(l->busy_us[i] / 1000));
	fprintf(f, "; waiting %llu ms; cpu user %llu ms, system %llu ms\n",
		(unsigned long long)(l->wait_us / 1000), (unsigned long long)(l->cpu_user_us / 1000),
		(unsigned long long)(l->cpu_sys_us / 1000));
}

void npuctl_status_text(FILE *f, const struct npuctl_status *s, const char *pin_dir)
{
	char copy[512];
	int i;

	if (!s->bpffs) {
		snprintf(copy, sizeof(copy), "%s", pin_dir);
		fprintf(f, "npuflowd not running (no BPF file system at %s)\n", dirname(copy));
		return;
	}
	if (!s->pinned) {
		fprintf(f, "npuflowd not running (nothing pinned in %s)\n", pin_dir);
		return;
	}
	if (s->pid)
		fprintf(f, "npuflowd running (pid %d), up %.0f s\n", s->pid, s->uptime_ns / 1e9);
	else
		status_stopped_text(f, s->st.state[NPUFLOW_CS_MADE], pin_dir);
	fprintf(f, "connections:");
	for (i = 1; i < NPUFLOW_CS_MAX; i++)
		fprintf(f, " %s %llu", fm_state_name(i), (unsigned long long)s->st.state[i]);
	fprintf(f, "\n");
	if (s->st.stat[NPUFLOW_FM_TABLE_FULL] || s->st.stat[NPUFLOW_FM_FULL_WAITING])
		fprintf(f, "hardware table: %s, %llu connections wait for a slot, "
			"%llu displaced for busier ones so far\n",
			s->st.stat[NPUFLOW_FM_TABLE_FULL] ? "full" : "room again",
			(unsigned long long)s->st.stat[NPUFLOW_FM_FULL_WAITING],
			(unsigned long long)s->st.stat[NPUFLOW_FM_EVICTED]);
	npuctl_fmstats_text(f, &s->st);
	if (s->have_loop)
		loop_text(f, &s->loop);
}
