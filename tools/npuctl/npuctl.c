// SPDX-License-Identifier: GPL-2.0
/*
 * npuctl - inspect npuflow: candidates and counters from the maps npuflowd
 * pins under /sys/fs/bpf/npuflow/ (per-CPU values summed over CPUs).
 *
 *   npuctl [--pin-dir DIR] candidates [--json] [--limit N]
 *   npuctl [--pin-dir DIR] stats [--json|--prometheus] [--all]
 *   npuctl [--pin-dir DIR] status [--json|--prometheus]
 *   npuctl [--pin-dir DIR] flows [--json]
 *   npuctl [--ctl-socket PATH] release ID|--all
 *
 * This file is the command line; read.c reads the pins, text.c, json.c
 * and metrics.c write what was read.
 */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "../../loader/npuflowd_opts.h"
#include "ctl.h"
#include "json.h"
#include "metrics.h"
#include "read.h"
#include "text.h"

static const char *pin_dir = NPUFLOW_PIN_DIR;
static const char *ctl_socket = NPUFLOWD_CTL_DEFAULT;
static const char *lock_file = NPUFLOWD_LOCK_DEFAULT;

static void usage(FILE *f)
{
	fprintf(f,
"usage: npuctl [--pin-dir DIR] [--ctl-socket PATH] [--lock-file PATH] COMMAND [OPTIONS]\n"
"\n"
"commands:\n"
"  candidates|cand [--json] [--limit N]\n"
"      the candidates (one per direction seen in punted frames), busiest\n"
"      first: ingress interface, VLANs, protocol, endpoints, frames, bytes,\n"
"      TCP flags seen, last punt reason, front port (panel number), hardware\n"
"      connection index, idle time\n"
"  stats [--json|--prometheus] [--all]\n"
"      per-port frames and bytes per punt reason and the classifier's parse\n"
"      counters, summed over CPUs (--all: also empty slots); then the flow\n"
"      maker's counters (text only)\n"
"  status [--json|--prometheus]\n"
"      npuflowd running or not, connections per state, the flow maker's\n"
"      counters and its refusals by reason\n"
"  flows [--json]\n"
"      the connections: id, state, both directions (ingress, tuple as it\n"
"      arrives, so NAT shows), egress, hardware packets and bytes per\n"
"      direction, age, idle time, give-backs, remakes, revives, reason\n"
"  release ID|--all\n"
"      hand connections back to the host: npuflowd sets conntrack's\n"
"      be-liberal flags first, then removes the rules\n"
"  help\n"
"      this text\n"
"\n"
"output: text tables by default; --json (-j): JSON, one array element a\n"
"  line; --prometheus: the Prometheus text exposition format 0.0.4, metrics\n"
"  named npuflow_* (stats and status write different ones: both can go in\n"
"  one file for node_exporter's textfile collector)\n"
"options: --pin-dir DIR (maps, default %s), --ctl-socket PATH (npuflowd's\n"
"  control socket, default %s), --lock-file PATH (npuflowd's lock, which\n"
"  names its pid, default %s); -h, --help: this text\n"
"exit: 0 done, 1 failed, 2 bad usage, 3 status: npuflowd never ran here\n",
		pin_dir, ctl_socket, lock_file);
}

/* An option or argument @cmd does not take: say which, then the usage. */
static int bad_arg(const char *cmd, const char *arg)
{
	fprintf(stderr, "npuctl: %s: unknown option or argument '%s'\n", cmd, arg);
	usage(stderr);
	return 2;
}

enum out { OUT_TEXT, OUT_JSON, OUT_PROM };

/* A command's options; which it takes are O_* bits. */
struct cmd_opts {
	enum out out;
	int all;
	size_t limit;
};

#define O_JSON	0x1
#define O_PROM	0x2
#define O_ALL	0x4
#define O_LIMIT	0x8

/* @s as a count into *v: 0, or 2 (said: bad usage). */
static int parse_count(const char *opt, const char *s, size_t *v)
{
	unsigned long long n;
	char *end;

	errno = 0;
	n = strtoull(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-' || n > SIZE_MAX) {
		fprintf(stderr, "npuctl: %s: '%s' is not a count\n", opt, s);
		return 2;
	}
	*v = n;
	return 0;
}

/* The output argv[i] asks for, into @o: 0, or 2 when one was already asked for (said). */
static int set_out(const char *cmd, enum out out, struct cmd_opts *o)
{
	if (o->out != OUT_TEXT && o->out != out) {
		fprintf(stderr, "npuctl: %s: --json and --prometheus: one output at a time\n", cmd);
		return 2;
	}
	o->out = out;
	return 0;
}

/* The options of command argv[0] (@takes: O_* bits) into @o: 0, or 2 (said). */
static int parse_opts(int argc, char **argv, unsigned int takes, struct cmd_opts *o)
{
	int i, rc = 0;

	memset(o, 0, sizeof(*o));
	o->limit = SIZE_MAX;
	for (i = 1; i < argc && !rc; i++) {
		const char *a = argv[i];

		if ((takes & O_JSON) && (!strcmp(a, "--json") || !strcmp(a, "-j")))
			rc = set_out(argv[0], OUT_JSON, o);
		else if ((takes & O_PROM) && !strcmp(a, "--prometheus"))
			rc = set_out(argv[0], OUT_PROM, o);
		else if ((takes & O_ALL) && !strcmp(a, "--all"))
			o->all = 1;
		else if ((takes & O_LIMIT) && !strcmp(a, "--limit") && i + 1 < argc)
			rc = parse_count(a, argv[++i], &o->limit);
		else
			rc = bad_arg(argv[0], a);
	}
	return rc;
}

/* The exit status of a JSON writer's result @rc (said when it failed). */
static int json_rc(int rc)
{
	if (!rc)
		return 0;
	fprintf(stderr, "npuctl: cannot write the JSON: %s\n", strerror(-rc));
	return 1;
}

static int cmd_candidates(int argc, char **argv)
{
	unsigned long long now = npuctl_mono_ns();
	struct npuflow_row *rows;
	struct cmd_opts o;
	struct npuctl_jlist l;
	size_t n, i;
	int rc = parse_opts(argc, argv, O_JSON | O_LIMIT, &o);

	if (rc)
		return rc;
	if (npuctl_read_candidates(pin_dir, &rows, &n))
		return 1;
	if (n > o.limit)
		n = o.limit;
	if (o.out == OUT_JSON)
		npuctl_jlist_begin(&l, stdout);
	else
		npuflow_print_cand_header(stdout);
	for (i = 0; i < n; i++) {
		char ifn[IF_NAMESIZE];
		const char *name = npuctl_ifname(rows[i].key.ifindex, ifn);

		if (o.out == OUT_JSON)
			npuctl_jlist_add(&l, npuctl_cand_json(&rows[i], name));
		else
			npuflow_print_cand(stdout, &rows[i], name, now);
	}
	free(rows);
	return o.out == OUT_JSON ? json_rc(npuctl_jlist_end(&l)) : 0;
}

/* stats as text: the slots, then the flow maker's counters if they are pinned. */
static void stats_text(const struct npuctl_port *p, size_t n, int all)
{
	struct npuflow_fmstats st;
	size_t i;

	for (i = 0; i < n; i++)
		npuctl_port_text(stdout, &p[i], all, !i);
	if (!n)
		printf("no frames counted\n");
	if (!npuctl_read_fmstats(pin_dir, &st)) {
		printf("\n");
		npuctl_fmstats_text(stdout, &st);
	}
}

static int cmd_stats(int argc, char **argv)
{
	struct npuctl_port *p;
	struct npuctl_jlist l;
	struct cmd_opts o;
	size_t n, i;
	int rc = parse_opts(argc, argv, O_JSON | O_PROM | O_ALL, &o);

	if (rc)
		return rc;
	if (npuctl_read_ports(pin_dir, o.all, &p, &n))
		return 1;
	switch (o.out) {
	case OUT_TEXT:
		stats_text(p, n, o.all);
		break;
	case OUT_JSON:
		npuctl_jlist_begin(&l, stdout);
		for (i = 0; i < n; i++)
			npuctl_jlist_add(&l, npuctl_port_json(&p[i]));
		rc = json_rc(npuctl_jlist_end(&l));
		break;
	case OUT_PROM:
		npuctl_prom_ports(stdout, p, n);
		break;
	}
	free(p);
	return rc;
}

static int cmd_flows(int argc, char **argv)
{
	unsigned long long now = npuctl_mono_ns();
	struct npuflow_conn *conns;
	struct npuctl_jlist l;
	struct cmd_opts o;
	__u32 *ids;
	long n, k;
	int rc = parse_opts(argc, argv, O_JSON, &o);

	if (rc)
		return rc;
	n = npuctl_read_conns(pin_dir, &ids, &conns);
	if (n < 0)
		return 1;
	if (o.out == OUT_JSON)
		npuctl_jlist_begin(&l, stdout);
	else
		npuctl_flow_text_header(stdout);
	for (k = 0; k < n; k++) {
		struct npuctl_flow f;

		npuctl_flow_of(&f, ids[k], &conns[k], now);
		if (o.out == OUT_JSON)
			npuctl_jlist_add(&l, npuctl_flow_json(&f));
		else
			npuctl_flow_text(stdout, &f);
	}
	if (o.out == OUT_JSON)
		rc = json_rc(npuctl_jlist_end(&l));
	else if (!n)
		printf("no connections\n");
	free(ids);
	free(conns);
	return rc;
}

static int cmd_status(int argc, char **argv)
{
	struct npuctl_status s;
	struct cmd_opts o;
	int rc = parse_opts(argc, argv, O_JSON | O_PROM, &o), wrc = 0;

	if (rc)
		return rc;
	rc = npuctl_read_status(pin_dir, lock_file, &s);
	if (rc < 0)
		return 1;
	switch (o.out) {
	case OUT_TEXT:
		npuctl_status_text(stdout, &s, pin_dir);
		break;
	case OUT_JSON:
		wrc = json_rc(npuctl_json_print(stdout, npuctl_status_json(&s)));
		break;
	case OUT_PROM:
		npuctl_prom_status(stdout, &s);
		break;
	}
	return wrc ? wrc : rc;
}

static int cmd_release(int argc, char **argv)
{
	unsigned long id;
	char req[64];
	char *end;

	if (argc != 2) {
		fprintf(stderr, "npuctl: release: one connection id, or --all\n");
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--all") || !strcmp(argv[1], "all"))
		return npuctl_ctl_request(ctl_socket, "release all", stdout);
	/* strtoul() would take "-1" as ULONG_MAX: digits only, a u32 */
	errno = 0;
	id = strtoul(argv[1], &end, 10);
	if (!isdigit((unsigned char)argv[1][0]) || *end || errno || id > UINT32_MAX) {
		fprintf(stderr, "npuctl: release: '%s' is not a connection id\n", argv[1]);
		return 2;
	}
	snprintf(req, sizeof(req), "release %lu", id);
	return npuctl_ctl_request(ctl_socket, req, stdout);
}

/* Command argv[0]'s exit status (2 when there is no such command). */
static int run(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(int argc, char **argv);
	} cmds[] = {
		{ "candidates", cmd_candidates }, { "cand", cmd_candidates },
		{ "stats", cmd_stats }, { "status", cmd_status }, { "flows", cmd_flows },
		{ "release", cmd_release },
	};
	size_t i;

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(argv[0], cmds[i].name))
			return cmds[i].fn(argc, argv);
	if (!strcmp(argv[0], "help")) {
		usage(stdout);
		return 0;
	}
	fprintf(stderr, "npuctl: unknown command '%s'\n", argv[0]);
	usage(stderr);
	return 2;
}

/*
 * The global options into the globals: the index of the command, or minus
 * the exit status when there is none to run (--help: 0, bad usage: -2).
 */
static int global_opts(int argc, char **argv)
{
	int i = 1;

	while (i < argc && argv[i][0] == '-') {
		if (!strcmp(argv[i], "--pin-dir") && i + 1 < argc) {
			pin_dir = argv[i + 1];
		} else if (!strcmp(argv[i], "--ctl-socket") && i + 1 < argc) {
			ctl_socket = argv[i + 1];
		} else if (!strcmp(argv[i], "--lock-file") && i + 1 < argc) {
			lock_file = argv[i + 1];
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		} else {
			fprintf(stderr, "npuctl: unknown option '%s'\n", argv[i]);
			usage(stderr);
			return -2;
		}
		i += 2;
	}
	if (i >= argc) {
		usage(stderr);
		return -2;
	}
	return i;
}

int main(int argc, char **argv)
{
	int i, rc;

	libbpf_set_print(NULL);
	i = global_opts(argc, argv);
	if (i <= 0)
		rc = -i;
	else
		rc = run(argc - i, argv + i);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "npuctl: cannot write the output: %s\n", strerror(errno));
		return 1;
	}
	return rc;
}
