// SPDX-License-Identifier: GPL-2.0
/*
 * npuctl - inspect npuflow: candidates and counters from the maps npuflowd
 * pins under /sys/fs/bpf/npuflow/ (per-CPU values summed over CPUs).
 *
 *   npuctl [--pin-dir DIR] candidates [--json] [--limit N]
 *   npuctl [--pin-dir DIR] stats [--json] [--all]
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "../../loader/npuflow_fmt.h"

static const char *pin_dir = NPUFLOW_PIN_DIR;

static void usage(FILE *f)
{
	fprintf(f,
"usage: npuctl [--pin-dir DIR] COMMAND [OPTIONS]\n"
"\n"
"commands:\n"
"  candidates [--json] [--limit N]\n"
"      the candidates (one per direction seen in punted frames), busiest\n"
"      first: ingress interface, VLANs, protocol, endpoints, frames, bytes,\n"
"      TCP flags seen, last punt reason, front port (panel number), hardware\n"
"      connection index, idle time\n"
"  stats [--json] [--all]\n"
"      per-port frames and bytes per punt reason and the classifier's parse\n"
"      counters, summed over CPUs (--all: also empty slots)\n"
"\n"
"maps are read from %s (npuflowd pins them)\n", pin_dir);
}

static int open_pinned(const char *name)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", pin_dir, name);
	fd = bpf_obj_get(path);
	if (fd < 0)
		fprintf(stderr, "npuctl: cannot open %s: %s%s\n", path, strerror(errno),
			errno == ENOENT ? " (is npuflowd running, or has it run?)" : "");
	return fd;
}

static const char *ifname_of(unsigned int ifindex, char *buf)
{
	if (!ifindex || !if_indextoname(ifindex, buf))
		snprintf(buf, IF_NAMESIZE, "if%u", ifindex);
	return buf;
}

static void json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", *s);
		else
			putchar(*s);
	}
	putchar('"');
}

static int cmd_candidates(int argc, char **argv)
{
	struct npuflow_row *rows = NULL;
	size_t n = 0, cap = 0, i, limit = (size_t)-1;
	struct npuflow_key k, *prev = NULL;
	struct timespec ts;
	int json = 0, fd;

	for (i = 1; i < (size_t)argc; i++) {
		if (!strcmp(argv[i], "--json") || !strcmp(argv[i], "-j"))
			json = 1;
		else if (!strcmp(argv[i], "--limit") && i + 1 < (size_t)argc)
			limit = strtoul(argv[++i], NULL, 10);
		else {
			usage(stderr);
			return 2;
		}
	}
	fd = open_pinned("candidates");
	if (fd < 0)
		return 1;
	while (!bpf_map_get_next_key(fd, prev, &k)) {
		if (n == cap) {
			struct npuflow_row *r;

			cap = cap ? cap * 2 : 1024;
			r = realloc(rows, cap * sizeof(*rows));
			if (!r) {
				fprintf(stderr, "npuctl: out of memory\n");
				free(rows);
				return 1;
			}
			rows = r;
		}
		rows[n].key = k;
		if (bpf_map_lookup_elem(fd, &k, &rows[n].val)) {
			/* evicted meanwhile: continue from the last good key */
			if (!n)
				prev = NULL;
			continue;
		}
		prev = &rows[n].key;
		n++;
	}
	close(fd);
	npuflow_rows_sort(rows, n);
	if (n > limit)
		n = limit;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	if (json) {
		printf("[");
		for (i = 0; i < n; i++) {
			char ifn[IF_NAMESIZE];
			char esc[64];
			const char *name = ifname_of(rows[i].key.ifindex, ifn);
			size_t j, o = 0;

			for (j = 0; name[j] && o < sizeof(esc) - 3; j++) {
				if (name[j] == '"' || name[j] == '\\')
					esc[o++] = '\\';
				esc[o++] = name[j];
			}
			esc[o] = '\0';
			printf("%s\n  ", i ? "," : "");
			npuflow_print_cand_json(stdout, &rows[i], esc);
		}
		printf("%s]\n", n ? "\n" : "");
	} else {
		npuflow_print_cand_header(stdout);
		for (i = 0; i < n; i++) {
			char ifn[IF_NAMESIZE];

			npuflow_print_cand(stdout, &rows[i], ifname_of(rows[i].key.ifindex, ifn),
					   ts.tv_sec * 1000000000ull + ts.tv_nsec);
		}
	}
	free(rows);
	return 0;
}

static int cmd_stats(int argc, char **argv)
{
	int ncpu = libbpf_num_possible_cpus(), json = 0, all = 0, fd, i, first = 1;
	struct npuflow_counters *pc;
	__u32 slot;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json") || !strcmp(argv[i], "-j"))
			json = 1;
		else if (!strcmp(argv[i], "--all"))
			all = 1;
		else {
			usage(stderr);
			return 2;
		}
	}
	if (ncpu <= 0) {
		fprintf(stderr, "npuctl: cannot count CPUs\n");
		return 1;
	}
	fd = open_pinned("counters");
	if (fd < 0)
		return 1;
	pc = calloc(ncpu, sizeof(*pc));
	if (!pc) {
		close(fd);
		return 1;
	}
	if (json)
		printf("[");
	for (slot = 0; slot < NPUFLOW_PORT_SLOTS; slot++) {
		struct npuflow_counters c;
		char ifn[IF_NAMESIZE], label[64];
		unsigned int r, s;

		if (bpf_map_lookup_elem(fd, &slot, pc))
			continue;
		npuflow_counters_sum(pc, ncpu, &c);
		if (!all && npuflow_counters_empty(&c))
			continue;
		if (slot < NPUFLOW_MAX_PORTS)
			snprintf(label, sizeof(label), "port %u", slot + 1);
		else
			snprintf(label, sizeof(label), "no metadata, slot %u",
				 slot - NPUFLOW_MAX_PORTS);
		if (json) {
			printf("%s\n  {\"slot\":%u,\"port\":%d,\"ifindex\":%u,\"ifname\":",
			       first ? "" : ",", slot,
			       slot < NPUFLOW_MAX_PORTS ? (int)slot + 1 : -1, c.ifindex);
			json_str(c.ifindex ? ifname_of(c.ifindex, ifn) : "");
			printf(",\"reasons\":{");
			for (r = 0; r < NPUFLOW_R_SLOTS; r++)
				printf("%s\"%s\":{\"frames\":%llu,\"bytes\":%llu}", r ? "," : "",
				       npuflow_reason_name(r), (unsigned long long)c.frames[r],
				       (unsigned long long)c.bytes[r]);
			printf("},\"stats\":{");
			for (s = 0; s < NPUFLOW_S_MAX; s++)
				printf("%s\"%s\":%llu", s ? "," : "", npuflow_stat_name(s),
				       (unsigned long long)c.stat[s]);
			printf("}}");
		} else {
			printf("%s%s (%s, ifindex %u)\n", first ? "" : "\n", label,
			       c.ifindex ? ifname_of(c.ifindex, ifn) : "-", c.ifindex);
			printf("  %-14s %14s %16s\n", "reason", "frames", "bytes");
			for (r = 0; r < NPUFLOW_R_SLOTS; r++)
				if (c.frames[r] || all)
					printf("  %-14s %14llu %16llu\n", npuflow_reason_name(r),
					       (unsigned long long)c.frames[r],
					       (unsigned long long)c.bytes[r]);
			printf("  %-20s %14s\n", "classifier", "count");
			for (s = 0; s < NPUFLOW_S_MAX; s++)
				if (c.stat[s] || all)
					printf("  %-20s %14llu\n", npuflow_stat_name(s),
					       (unsigned long long)c.stat[s]);
		}
		first = 0;
	}
	if (json)
		printf("%s]\n", first ? "" : "\n");
	else if (first)
		printf("no frames counted\n");
	free(pc);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	int i = 1;

	libbpf_set_print(NULL);
	while (i < argc && argv[i][0] == '-') {
		if (!strcmp(argv[i], "--pin-dir") && i + 1 < argc) {
			pin_dir = argv[i + 1];
			i += 2;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		} else {
			usage(stderr);
			return 2;
		}
	}
	if (i >= argc) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[i], "candidates") || !strcmp(argv[i], "cand"))
		return cmd_candidates(argc - i, argv + i);
	if (!strcmp(argv[i], "stats"))
		return cmd_stats(argc - i, argv + i);
	if (!strcmp(argv[i], "help")) {
		usage(stdout);
		return 0;
	}
	fprintf(stderr, "npuctl: unknown command '%s'\n", argv[i]);
	usage(stderr);
	return 2;
}
