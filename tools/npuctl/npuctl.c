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
#include "../../lib/npuflow_defaults.h"
#include "../../lib/npuflow_stdout.h"
#include "ctl.h"
#include "json.h"
#include "metrics.h"
#include "read.h"
#include "text.h"

static const char *pin_dir = NPUFLOW_PIN_DIR;
static const char *ctl_socket = NPUFLOWD_CTL_DEFAULT;
static const char *lock_file = NPUFLOWD_LOCK_DEFAULT;

/* --help, in the form help2man reads: the manual page npuctl(8) is made from it. */
static void usage(FILE *f)
{
	fputs(
"Usage: npuctl [OPTION]... COMMAND [COMMAND OPTION]...\n"
"Inspect npuflow: the candidates, counters and connections in the maps\n"
"npuflowd pins (per-CPU values summed over CPUs), and hand connections back\n"
"to the host through npuflowd.\n"
"\n"
"Commands:\n"
"  candidates [--json] [--limit N]\n"
"                              The candidates, one per direction seen in\n"
"                              punted frames, busiest first: ingress, VLANs,\n"
"                              protocol, endpoints, frames, bytes, TCP flags,\n"
"                              last punt reason, front port (panel number),\n"
"                              hardware connection index, idle time.  Alias\n"
"                              cand.\n"
"  stats [--json|--prometheus] [--all]\n"
"                              Per port slot, frames and bytes per punt reason\n"
"                              and the classifier's parse counters; then the\n"
"                              flow maker's counters (text only).\n"
"  status [--json|--prometheus]\n"
"                              Whether npuflowd runs, its connections per\n"
"                              state, the flow maker's counters and its\n"
"                              refusals by reason.\n"
"  flows [--json]              The connections: id, state, both directions as\n"
"                              they arrive (NAT shows), egress, hardware\n"
"                              packets and bytes per direction, age, idle time,\n"
"                              give-backs, remakes, revives, reason.\n"
"  release ID|--all            Hand connections back to the host: npuflowd sets\n"
"                              conntrack's be-liberal flags, then removes the\n"
"                              rules.\n"
"  help                        Print this help and exit.\n"
"\n"
"Command options:\n"
"  -j, --json                  Write JSON: an array with one element a line\n"
"                              (candidates, stats, flows), one object (status).\n"
"      --prometheus            Write the Prometheus text exposition format\n"
"                              0.0.4, metrics named npuflow_*; stats and status\n"
"                              write different ones, so both can go in one\n"
"                              file for node_exporter's textfile collector.\n"
"      --all                   stats: empty port slots too.\n"
"      --limit=N               candidates: the N busiest only.\n"
"\n"
"Options:\n"
"      --pin-dir=DIR           The directory of npuflowd's maps.  Default\n"
"                              " NPUFLOW_PIN_DIR ".\n"
"      --ctl-socket=PATH       npuflowd's control socket (release).  Default\n"
"                              " NPUFLOWD_CTL_DEFAULT ".\n"
"      --lock-file=PATH        npuflowd's lock file, which names its pid.\n"
"                              Default " NPUFLOWD_LOCK_DEFAULT ".\n"
"  -h, --help                  Print this help and exit.\n"
"      --version               Print the version and exit.\n"
"\n"
"Exit status:\n"
"  0 done, 1 failed (said on stderr), 2 bad usage, 3 status: npuflowd never\n"
"  ran here (nothing pinned, or no BPF file system).\n", f);
}

/* After a usage error's own line: where the help is.  Exit status 2. */
static int try_help(void)
{
	fputs("Try 'npuctl --help' for more information.\n", stderr);
	return 2;
}

/*
 * Option @opt given without the value it takes (of command @cmd; NULL: a
 * global option): said as getopt says it.  Exit status 2.
 */
static int no_value(const char *cmd, const char *opt)
{
	if (cmd)
		fprintf(stderr, "npuctl: %s: option '%s' requires an argument\n", cmd, opt);
	else
		fprintf(stderr, "npuctl: option '%s' requires an argument\n", opt);
	return try_help();
}

/* 1 if @arg is a global option (they go before the command), said so. */
static int misplaced_global(const char *cmd, const char *arg)
{
	static const char *const g[] = { "--pin-dir", "--ctl-socket", "--lock-file" };
	size_t i, n;

	for (i = 0; i < sizeof(g) / sizeof(g[0]); i++) {
		n = strlen(g[i]);
		if (!strncmp(arg, g[i], n) && (!arg[n] || arg[n] == '=')) {
			fprintf(stderr, "npuctl: %s goes before the command (npuctl %s=... %s)\n",
				g[i], g[i], cmd);
			return 1;
		}
	}
	return 0;
}

/* An option or argument @cmd does not take: say which, and where the help is. */
static int bad_arg(const char *cmd, const char *arg)
{
	if (!misplaced_global(cmd, arg))
		fprintf(stderr, "npuctl: %s: unknown option or argument '%s'\n", cmd, arg);
	return try_help();
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
		else if ((takes & O_LIMIT) && !strncmp(a, "--limit=", 8))
			rc = parse_count("--limit", a + 8, &o->limit);
		else if ((takes & O_LIMIT) && !strcmp(a, "--limit") && i + 1 < argc)
			rc = parse_count(a, argv[++i], &o->limit);
		else if ((takes & O_LIMIT) && !strcmp(a, "--limit"))
			rc = no_value(argv[0], a);
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
	size_t n, i, all;
	int rc = parse_opts(argc, argv, O_JSON | O_LIMIT, &o);

	if (rc)
		return rc;
	if (npuctl_read_candidates(pin_dir, &rows, &all))
		return 1;
	n = all < o.limit ? all : o.limit;
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
	if (o.out == OUT_JSON)
		return json_rc(npuctl_jlist_end(&l));
	if (!all)	/* none at all, not none asked for (--limit 0) */
		printf("no candidates\n");
	return 0;
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

	if (argc > 2)
		return bad_arg("release", argv[2]);
	if (argc != 2) {
		fprintf(stderr, "npuctl: release: one connection id, or --all\n");
		return try_help();
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
	return try_help();
}

/*
 * Whether argv[*i] is option @name with a value, "--name VALUE" or
 * "--name=VALUE": 1, the value in *@val and *i past it; 0 when it is not
 * @name; -1 when it is "--name" with nothing after it.
 */
static int opt_value(int argc, char **argv, int *i, const char *name, const char **val)
{
	size_t n = strlen(name);

	if (strncmp(argv[*i], name, n))
		return 0;
	if (argv[*i][n] == '=') {
		*val = argv[(*i)++] + n + 1;
		return 1;
	}
	if (argv[*i][n])
		return 0;
	if (*i + 1 >= argc)
		return -1;
	*val = argv[*i + 1];
	*i += 2;
	return 1;
}

/*
 * The global options into the globals: the index of the command, or minus
 * the exit status when there is none to run (--help, --version: 0, bad
 * usage: -2).
 */
static int global_opts(int argc, char **argv)
{
	int i = 1, got;

	while (i < argc && argv[i][0] == '-') {
		got = opt_value(argc, argv, &i, "--pin-dir", &pin_dir);
		if (!got)
			got = opt_value(argc, argv, &i, "--ctl-socket", &ctl_socket);
		if (!got)
			got = opt_value(argc, argv, &i, "--lock-file", &lock_file);
		if (got < 0)
			return -no_value(NULL, argv[i]);
		if (got)
			continue;
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		}
		if (!strcmp(argv[i], "--version")) {
			printf("npuctl (npuflow) %s\n", NPUFLOW_VERSION);
			return 0;
		}
		fprintf(stderr, "npuctl: unknown option '%s'\n", argv[i]);
		return -try_help();
	}
	if (i >= argc) {
		fputs("npuctl: no command\n", stderr);
		return -try_help();
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
	return npuflow_close_stdout("npuctl") ? 1 : rc;
}
