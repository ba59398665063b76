// SPDX-License-Identifier: GPL-2.0
/*
 * classify_bench - ns/frame of the XDP classifier by BPF_PROG_TEST_RUN
 * (repeat N, default 1e6), next to a bare XDP_PASS program in the same run:
 * IPv4 TCP, IPv6 TCP, VLAN-tagged (802.1ad + 802.1Q) IPv4 TCP, each for a
 * known candidate (the same frame again: counted in its per-CPU cache slot
 * only, written to the candidate and the counters once a tick) and a new one
 * (classify_new.bpf.c: the same program behind an entry that changes the
 * frame's ports every run, so every run inserts, and the LRU evicts once
 * full).  Frames carry driver metadata (reason flow_miss, a
 * hardware hash) as npuep would write it; "no hash" is the known candidate
 * without the hash (as on veth: lookup + in-place update every frame).
 * Each round runs every program once, one after the other on one CPU, so
 * machine noise hits all alike; each figure is the fastest of --rounds
 * rounds, as this thread's CPU time / repeat (sub-ns; --wall: wall time)
 * and as the kernel's duration (whole ns, truncated); ratios are to the
 * bare program's figure of the same kind.  Bare and known, the two the goal
 * compares, are loaded NINST times and each figure is the median of the
 * loads' (one load of the same program runs apart from another: where its
 * JIT image lands).  Prints a markdown table and JSON.
 *
 * Usage: classify_bench [--repeat N] [--repeat-fast N] [--rounds R]
 *                       [--json FILE] [--md FILE] [--wall]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "classify.skel.h"
#include "classify_new.skel.h"
#include "classify_naive.skel.h"
#include "xdp_pass.skel.h"
#include "../../bpf/npuflow.h"
#include "pktgen.h"

static unsigned int repeat = 1000000, repeat_fast = 5000000, rounds = 7;
static int wall;

/* bare, known, new, precise clock, straightforward, known without hash */
#define NCOL	6
/*
 * Loads of bare and known: the same program loaded again runs a little
 * faster or slower (where its JIT image lands; docs/measurements.md, "The
 * classifier per frame"); their figure is the median of the loads' figures.
 */
#define NINST	3

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_dbl);
	return v[n / 2];
}

/* Stay on one CPU: every round's programs and per-CPU entries on the same one. */
static void pin_cpu(void)
{
	int cpu = sched_getcpu();
	cpu_set_t set;

	if (cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

/* One timing of a program: sub-ns (--wall: wall, else thread CPU time) and the kernel's. */
struct timing {
	double ns;		/* CPU (or wall) time / repeat */
	double kns;		/* the kernel's duration: total / repeat, whole ns */
};

static double ts_ns(const struct timespec *a, const struct timespec *b)
{
	return (b->tv_sec - a->tv_sec) * 1e9 + (b->tv_nsec - a->tv_nsec);
}

/*
 * One run of @fd on @f with metadata (@n times) into @t (total time, and
 * the kernel's per-run figure), -1 on failure.
 * @hashed: the metadata carries the hardware hash (as npuep writes it);
 * otherwise none (as without metadata: the candidate cache is not used).
 *
 * The kernel's figure is total / repeat truncated to whole ns (at 4-5 ns
 * that is up to 25% off, always down); it leaves out the time the loop
 * was rescheduled.  This thread's CPU time over the syscall has the
 * decimals and also leaves out the time other tasks ran (the loop runs in
 * the syscall, on this thread), but adds the syscall's fixed cost: with
 * repeat > 1 the kernel puts the program into the XDP dispatcher and takes
 * it out again, about a ns a frame over 1e6 runs (docs/measurements.md,
 * "The classifier per frame").  So each
 * round also times @n = 2, and a figure is (fastest total at repeat -
 * fastest at 2) / (repeat - 2).  Wall time counts preemption as well.
 */
static int run_once(int fd, const struct frame *f, int hashed, unsigned int n, struct timing *t)
{
	struct npuflow_meta m = {
		.magic = NPUFLOW_META_MAGIC, .version = NPUFLOW_META_VERSION,
		.reason = NPUFLOW_R_FLOW_MISS, .port = 2,
		.flags = hashed ? NPUFLOW_META_F_HASH_L4 : 0,
		.hash = hashed ? 0x12345678 : 0,
		.conn = NPUFLOW_CONN_NONE,
	};
	unsigned char buf[2048];
	struct xdp_md ctx = { .data = sizeof(m), .data_end = sizeof(m) + f->len,
			      .ingress_ifindex = 1 };
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = buf,
		    .data_size_in = sizeof(m) + f->len, .ctx_in = &ctx,
		    .ctx_size_in = sizeof(ctx), .repeat = n);
	clockid_t clk = wall ? CLOCK_MONOTONIC : CLOCK_THREAD_CPUTIME_ID;
	struct timespec t0, t1;

	memcpy(buf, &m, sizeof(m));
	memcpy(buf + sizeof(m), f->b, f->len);
	clock_gettime(clk, &t0);
	if (bpf_prog_test_run_opts(fd, &o) || o.retval != XDP_PASS)
		return -1;
	clock_gettime(clk, &t1);
	t->ns = ts_ns(&t0, &t1);
	t->kns = o.duration;
	return 0;
}

/* The programs timed: NINST loads of bare and known, one of each other column. */
struct progs {
	struct xdp_pass *bares[NINST];
	struct classify *knowns[NINST], *precise;
	struct classify_new *fresh;
	struct classify_naive *naive;
	int fds[NCOL][NINST];
};

/* The frames: IPv4 TCP, IPv6 TCP, IPv4 TCP under 802.1ad + 802.1Q. */
#define NCASE	3
static struct fspec s4 = { .family = 4, .proto = IPPROTO_TCP, .src = "10.1.0.1",
			   .dst = "10.2.0.2", .sport = 40000, .dport = 80,
			   .tcp_flags = 0x10, .payload = 64 };
static struct fspec s6 = { .family = 6, .proto = IPPROTO_TCP, .src = "2001:db8:1::1",
			   .dst = "2001:db8:2::2", .sport = 40000, .dport = 80,
			   .tcp_flags = 0x10, .payload = 64 };
static struct fspec sv;
static const struct {
	const char *name;
	struct fspec *s;
} cases[NCASE] = { { "ipv4_tcp", &s4 }, { "ipv6_tcp", &s6 }, { "vlan_qinq_ipv4_tcp", &sv } };

/* The machine, for the report. */
static char cpu[256] = "unknown";
static struct utsname u;

static int parse_args(int argc, char **argv, const char **json, const char **md)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--repeat") && i + 1 < argc)
			repeat = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--repeat-fast") && i + 1 < argc)
			repeat_fast = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
			rounds = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--json") && i + 1 < argc)
			*json = argv[++i];
		else if (!strcmp(argv[i], "--md") && i + 1 < argc)
			*md = argv[++i];
		else if (!strcmp(argv[i], "--wall"))
			wall = 1;
		else
			return -1;
	}
	if (!rounds || rounds > 31)
		rounds = 7;
	if (repeat < 1000)
		repeat = 1000;
	if (repeat_fast < 1000)
		repeat_fast = 1000;
	return 0;
}

/* Bare and known, NINST loads each; no events in the loop (threshold 0). */
static int load_compared(struct progs *p)
{
	int i;

	for (i = 0; i < NINST; i++) {
		p->bares[i] = xdp_pass__open_and_load();
		p->knowns[i] = classify__open();
		if (!p->bares[i] || !p->knowns[i]) {
			fprintf(stderr, "classify_bench: cannot open programs: %s\n",
				strerror(errno));
			return -1;
		}
		p->knowns[i]->rodata->npuflow_threshold = 0;
		if (classify__load(p->knowns[i])) {
			fprintf(stderr, "classify_bench: cannot load: %s\n", strerror(errno));
			return -1;
		}
		p->fds[0][i] = bpf_program__fd(p->bares[i]->progs.xdp_pass);
		p->fds[1][i] = bpf_program__fd(p->knowns[i]->progs.npuflow_classify);
	}
	return 0;
}

/* The other columns: new, precise clock, straightforward, known without hash. */
static int load_others(struct progs *p)
{
	p->precise = classify__open();
	p->fresh = classify_new__open();
	p->naive = classify_naive__open();
	if (!p->precise || !p->fresh || !p->naive) {
		fprintf(stderr, "classify_bench: cannot open programs: %s\n", strerror(errno));
		return -1;
	}
	p->fresh->rodata->npuflow_threshold = 0;
	p->precise->rodata->npuflow_threshold = 0;
	p->precise->rodata->npuflow_coarse_clock = 0;	/* bpf_ktime_get_ns() */
	p->naive->rodata->npuflow_threshold = 0;
	p->naive->rodata->npuflow_coarse_clock = 0;
	if (classify__load(p->precise) || classify_new__load(p->fresh) ||
	    classify_naive__load(p->naive)) {
		fprintf(stderr, "classify_bench: cannot load: %s\n", strerror(errno));
		return -1;
	}
	p->fds[2][0] = bpf_program__fd(p->fresh->progs.npuflow_classify_new);
	p->fds[3][0] = bpf_program__fd(p->precise->progs.npuflow_classify);
	p->fds[4][0] = bpf_program__fd(p->naive->progs.npuflow_classify_naive);
	p->fds[5][0] = p->fds[1][0];
	return 0;
}

static void destroy_progs(struct progs *p)
{
	int i;

	for (i = 0; i < NINST; i++) {
		xdp_pass__destroy(p->bares[i]);
		classify__destroy(p->knowns[i]);
	}
	classify__destroy(p->precise);
	classify_new__destroy(p->fresh);
	classify_naive__destroy(p->naive);
}

/* Loads of column @j, and its runs per timing. */
static int loads_of(int j)
{
	return j < 2 ? NINST : 1;
}

static unsigned int repeat_of(int j)
{
	return j < 2 ? repeat_fast : repeat;
}

/*
 * Round by round, every program once, bare first: whatever else the
 * machine does hits all of them alike.  Preemption and cache misses only
 * add time: the fastest round of each is its estimate (@best at repeat,
 * @fix at 2).  Bare and known (the ones compared) run --repeat-fast
 * times, NINST loads of each, the slower ones --repeat times, one load.
 */
static int time_rounds(const struct progs *p, const struct frame *f,
		       struct timing best[NCOL][NINST], double fix[NCOL][NINST])
{
	unsigned int r;
	int j, k;

	for (j = 0; j < NCOL; j++)
		for (k = 0; k < NINST; k++)
			best[j][k].ns = best[j][k].kns = fix[j][k] = 1e300;
	for (r = 0; r < rounds; r++)
		for (j = 0; j < NCOL; j++)
			for (k = 0; k < loads_of(j); k++) {
				struct timing t, t2;

				if (run_once(p->fds[j][k], f, j != 5, 2, &t2) ||
				    run_once(p->fds[j][k], f, j != 5, repeat_of(j), &t)) {
					fprintf(stderr, "classify_bench: test run failed: %s\n",
						strerror(errno));
					return -1;
				}
				if (t2.ns < fix[j][k])
					fix[j][k] = t2.ns;
				if (t.ns < best[j][k].ns)
					best[j][k].ns = t.ns;
				if (t.kns < best[j][k].kns)
					best[j][k].kns = t.kns;
			}
	return 0;
}

/* Every column's figure for frame @f into @res: the median over its loads. */
static int measure_case(const struct progs *p, const struct frame *f, struct timing res[NCOL])
{
	struct timing best[NCOL][NINST];
	double fix[NCOL][NINST];
	int j, k;

	if (time_rounds(p, f, best, fix))
		return -1;
	for (j = 0; j < NCOL; j++) {
		double ns[NINST], kns[NINST];

		for (k = 0; k < loads_of(j); k++) {
			ns[k] = (best[j][k].ns - fix[j][k]) / (repeat_of(j) - 2);
			kns[k] = best[j][k].kns;
		}
		res[j].ns = median(ns, loads_of(j));
		res[j].kns = median(kns, loads_of(j));
	}
	if (res[0].ns <= 0 || res[0].kns <= 0) {
		fprintf(stderr, "classify_bench: bare program measured 0 ns\n");
		return -1;
	}
	return 0;
}

/* The CPU's model name (/proc/cpuinfo) and the kernel (uname). */
static void read_machine(void)
{
	FILE *c = fopen("/proc/cpuinfo", "r");
	char line[512], *p;

	while (c && fgets(line, sizeof(line), c)) {
		if (strncmp(line, "model name", 10))
			continue;
		p = strchr(line, ':');
		if (p) {
			snprintf(cpu, sizeof(cpu), "%s", p + 2);
			cpu[strcspn(cpu, "\n")] = '\0';
		}
		break;
	}
	if (c)
		fclose(c);
	uname(&u);
}

static FILE *open_out(const char *path)
{
	FILE *out = path ? fopen(path, "w") : stdout;

	return out ? out : stdout;
}

static void close_out(FILE *out)
{
	if (out != stdout)
		fclose(out);
}

static void write_md(const char *path, struct timing res[NCASE][NCOL])
{
	static const int col[] = { 1, 2, 5, 3, 4 };
	FILE *out = open_out(path);
	int i, j;

	fprintf(out, "## Classifier, ns/frame (BPF_PROG_TEST_RUN, repeat %u (bare and known %u), "
		"fastest of %u rounds, programs interleaved; bare and known: median of %d loads)\n\n",
		repeat, repeat_fast, rounds, NINST);
	fprintf(out, "Machine: %s, kernel %s, %ld CPUs.  Figures: %s / repeat, less the "
		"syscall's fixed cost (a run of 2 frames); in brackets the kernel's duration "
		"(whole ns, truncated).\n\n", cpu, u.release,
		sysconf(_SC_NPROCESSORS_ONLN), wall ? "wall time" : "this thread's CPU time");
	fprintf(out, "| frame | bare XDP_PASS | known candidate | ratio | new candidate | ratio "
		"| known, no hash | ratio | known, precise clock | ratio "
		"| known, straightforward | ratio |\n");
	fprintf(out, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
	for (i = 0; i < NCASE; i++) {
		fprintf(out, "| %s | %.2f [%.0f] ", cases[i].name, res[i][0].ns, res[i][0].kns);
		for (j = 0; j < 5; j++) {
			const struct timing *t = &res[i][col[j]];

			fprintf(out, "| %.2f [%.0f] | %.2fx [%.2fx] ", t->ns, t->kns,
				t->ns / res[i][0].ns, t->kns / res[i][0].kns);
		}
		fprintf(out, "|\n");
	}
	fprintf(out, "\nknown/new: the classifier as loaded by npuflowd (coarse clock), metadata "
		"with the hardware hash as npuep writes it (a known candidate hits the per-CPU "
		"candidate cache: only the cache entry is written, the candidate and the counters "
		"get its frames once a tick); no hash: metadata without one (as veth, no metadata: "
		"every frame looks the candidate up); precise clock: bpf_ktime_get_ns() (not cached); "
		"straightforward: the same parse with a value copy and bpf_map_update_elem() "
		"every frame and the precise clock (reference only).  Ratios are to the bare "
		"program's figure of the same kind.\n");
	close_out(out);
}

static void write_json(const char *path, struct timing res[NCASE][NCOL])
{
	static const char *const name[] = { "bare", "known", "new", "known_precise_clock",
					    "known_straightforward", "known_nohash" };
	FILE *out = open_out(path);
	int i, j;

	fprintf(out, "{\"bench\":\"classify\",\"repeat\":%u,\"repeat_fast\":%u,"
		"\"loads\":%d,\"rounds\":%u,\"timing\":\"%s\",\"cpu\":\"%s\","
		"\"kernel\":\"%s\",\"results\":[", repeat, repeat_fast, NINST, rounds,
		wall ? "wall" : "thread_cputime", cpu, u.release);
	for (i = 0; i < NCASE; i++) {
		fprintf(out, "%s{\"frame\":\"%s\"", i ? "," : "", cases[i].name);
		for (j = 0; j < NCOL; j++) {
			const struct timing *t = &res[i][j];

			fprintf(out, ",\"%s_ns\":%.3f,\"%s_kernel_ns\":%.0f", name[j], t->ns,
				name[j], t->kns);
			if (j)
				fprintf(out, ",\"%s_ratio\":%.3f,\"%s_kernel_ratio\":%.3f", name[j],
					t->ns / res[i][0].ns, name[j], t->kns / res[i][0].kns);
		}
		fprintf(out, "}");
	}
	fprintf(out, "]}\n");
	close_out(out);
}

int main(int argc, char **argv)
{
	const char *json = NULL, *md = NULL;
	struct timing res[NCASE][NCOL];
	struct progs p = {};
	struct frame f;
	int i, rc = 1;

	if (parse_args(argc, argv, &json, &md)) {
		fprintf(stderr, "usage: %s [--repeat N] [--repeat-fast N] [--rounds R] [--json FILE] [--md FILE] [--wall]\n",
			argv[0]);
		return 2;
	}
	sv = s4;
	sv.nvlan = 2;
	sv.vid[0] = 100;
	sv.vid[1] = 200;
	libbpf_set_print(NULL);
	if (load_compared(&p) || load_others(&p))
		goto out;
	pin_cpu();
	for (i = 0; i < NCASE; i++) {
		frame_build(cases[i].s, &f);
		if (measure_case(&p, &f, res[i]))
			goto out;
	}
	read_machine();
	write_md(md, res);
	write_json(json, res);
	rc = 0;
out:
	destroy_progs(&p);
	return rc;
}
