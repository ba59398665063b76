// SPDX-License-Identifier: GPL-2.0
/*
 * npuctl run on real maps: in a mount namespace of its own the test mounts
 * a BPF file system on a directory of /tmp, creates and pins the maps
 * npuflowd pins (the same types, key and value sizes), fills them with
 * known values and runs npuctl (build/npuctl: built here with the same
 * sanitizers) on them.  Every --json output is parsed with json-c and its
 * fields checked against what was written; every --prometheus output is
 * read strictly (prom_check.h) and through `promtool check metrics`.
 * Needs root (CAP_SYS_ADMIN for the mount and the maps): skipped without.
 * What only npuflowd and the classifier can write (real traffic) is the
 * VM tests' (55-xdp, 6x-flowmaker-*) and selftests/bpf/veth-*.sh's.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <arpa/inet.h>
#include <grp.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "../../bpf/npuflow.h"
#include "npuctl_check.h"
#include "run_check.h"

#define S_NS	1000000000ull
#define SLACK	(60 * S_NS)	/* npuctl under the sanitizers on a busy machine */

static struct env {
	const char *skip;	/* why the tests cannot run, NULL if they can */
	char dir[64];		/* /tmp/npuctl-run.XXXXXX */
	char bpffs[96];		/* dir/bpf: the BPF file system */
	char pins[128];		/* dir/bpf/npuflow: the pins */
	char empty[128];	/* dir/bpf/empty: a pin directory with nothing */
	char nocand[128];	/* dir/bpf/nocand: an empty candidates map */
	char nofs[128];		/* dir/nofs/npuflow: not on a BPF file system */
	char lock[128];		/* dir/lock: npuflowd's lock file */
	char npuctl[PATH_MAX];
	int lock_fd;		/* held: npuflowd "runs"; -1 */
	int ncpu;
	unsigned long long now;	/* CLOCK_MONOTONIC when the maps were filled */
} env;

static unsigned long long mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * S_NS + ts.tv_nsec;
}

/* ---------------------------------------------------------------- maps */

/* A new map, pinned as @name in @dir. */
static int pin_in(const char *dir, const char *name, enum bpf_map_type type, size_t ksz,
		  size_t vsz, unsigned int entries)
{
	char path[192];
	int fd = bpf_map_create(type, name, ksz, vsz, entries, NULL);

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (fd < 0 || bpf_obj_pin(fd, path))
		fail_msg("map %s: %s", name, strerror(errno));
	return fd;
}

static int pin_new(const char *name, enum bpf_map_type type, size_t ksz, size_t vsz,
		   unsigned int entries)
{
	return pin_in(env.pins, name, type, ksz, vsz, entries);
}

static struct npuflow_key key(unsigned int ifindex, int family, int proto, const char *s,
			      const char *d, unsigned int sport, unsigned int dport)
{
	struct npuflow_key k;

	memset(&k, 0, sizeof(k));
	k.ifindex = ifindex;
	k.family = family;
	k.proto = proto;
	inet_pton(family, s, k.saddr);
	inet_pton(family, d, k.daddr);
	k.sport = htons(sport);
	k.dport = htons(dport);
	return k;
}

/* candidates A (tcp, 100 frames), B (udp6, 50 + 5 in the cache), C (1 frame) */
#define CAND_A	key(1, AF_INET, IPPROTO_TCP, "10.0.0.1", "192.0.2.9", 40000, 80)
#define CAND_B	key(1, AF_INET6, IPPROTO_UDP, "2001:db8::1", "2001:db8::2", 5353, 53)
#define CAND_C	key(999999, AF_INET, IPPROTO_UDP, "10.0.0.3", "10.0.0.4", 1, 2)
#define NOIF	999999		/* an ifindex no netdev has: named "if999999" */

static void fill_candidates(void)
{
	struct npuflow_cand a = { .frames = 100, .bytes = 6400, .first_ns = 5, .last_ns = 7,
				  .tcp_flags = 0x12, .reason = NPUFLOW_R_FLOW_MISS, .port = 2,
				  .conn = NPUFLOW_CONN_NONE };
	struct npuflow_cand b = { .frames = 50, .bytes = 5000, .first_ns = 9, .last_ns = 10,
				  .reason = NPUFLOW_R_NOT_ACTIVE, .port = NPUFLOW_PORT_NONE,
				  .conn = 7, .flags = NPUFLOW_CF_META };
	struct npuflow_cand c = { .frames = 1, .bytes = 60, .port = NPUFLOW_PORT_NONE,
				  .conn = NPUFLOW_CONN_NONE };
	struct npuflow_key ka = CAND_A, kb = CAND_B, kc = CAND_C;
	int fd = pin_new("candidates", BPF_MAP_TYPE_LRU_HASH, sizeof(ka), sizeof(a), 1024);

	assert_int_equal(bpf_map_update_elem(fd, &ka, &a, BPF_ANY), 0);
	assert_int_equal(bpf_map_update_elem(fd, &kb, &b, BPF_ANY), 0);
	assert_int_equal(bpf_map_update_elem(fd, &kc, &c, BPF_ANY), 0);
	close(fd);
	/* and none in env.nocand */
	close(pin_in(env.nocand, "candidates", BPF_MAP_TYPE_LRU_HASH, sizeof(ka), sizeof(a),
		     1024));
}

/* candidate B's 5 frames, 500 bytes on the last CPU: of port 3 (slot 2), flow_miss */
static void fill_cache(void)
{
	struct npuflow_cache *pc = calloc(env.ncpu, sizeof(*pc));
	int fd = pin_new("candcache", BPF_MAP_TYPE_PERCPU_ARRAY, sizeof(__u32), sizeof(*pc),
			 NPUFLOW_CACHE_SLOTS);
	__u32 slot = 77;

	assert_non_null(pc);
	pc[env.ncpu - 1].key = CAND_B;
	pc[env.ncpu - 1].frames = 5;
	pc[env.ncpu - 1].bytes = 500;
	pc[env.ncpu - 1].first_ns = 9;
	pc[env.ncpu - 1].meta.port = 2;
	pc[env.ncpu - 1].meta.reason = NPUFLOW_R_FLOW_MISS;
	assert_int_equal(bpf_map_update_elem(fd, &slot, pc, BPF_ANY), 0);
	free(pc);
	close(fd);
}

/* sum over CPUs of (cpu + 1) * @unit */
static unsigned long long spread(unsigned long long unit)
{
	return unit * env.ncpu * (env.ncpu + 1) / 2;
}

/*
 * slot 2 (port 3, lo): flow_miss (cpu + 1) * 10 frames, * 1000 bytes, as
 * many candidate frames; slot NPUFLOW_MAX_PORTS + 1 (no metadata, NOIF):
 * 4 frames of reason none, 2 events lost.
 */
static void fill_counters(void)
{
	struct npuflow_counters *pc = calloc(env.ncpu, sizeof(*pc));
	int fd = pin_new("counters", BPF_MAP_TYPE_PERCPU_ARRAY, sizeof(__u32), sizeof(*pc),
			 NPUFLOW_PORT_SLOTS);
	__u32 slot = 2;
	int cpu;

	assert_non_null(pc);
	for (cpu = 0; cpu < env.ncpu; cpu++) {
		pc[cpu].frames[NPUFLOW_R_FLOW_MISS] = 10 * (cpu + 1);
		pc[cpu].bytes[NPUFLOW_R_FLOW_MISS] = 1000 * (cpu + 1);
		pc[cpu].stat[NPUFLOW_S_CANDIDATE] = 10 * (cpu + 1);
	}
	pc[0].ifindex = 1;
	assert_int_equal(bpf_map_update_elem(fd, &slot, pc, BPF_ANY), 0);
	memset(pc, 0, env.ncpu * sizeof(*pc));
	pc[0].ifindex = NOIF;
	pc[0].frames[NPUFLOW_R_NONE] = 4;
	pc[0].bytes[NPUFLOW_R_NONE] = 240;
	pc[env.ncpu - 1].stat[NPUFLOW_S_EVENT_LOST] = 2;
	slot = NPUFLOW_MAX_PORTS + 1;
	assert_int_equal(bpf_map_update_elem(fd, &slot, pc, BPF_ANY), 0);
	free(pc);
	close(fd);
}

/* connection 42: made 3 s ago, used 2 s ago; lo > NOIF, back on NOIF */
static void fill_connections(void)
{
	struct npuflow_conn c;
	int fd = pin_new("connections", BPF_MAP_TYPE_HASH, sizeof(__u32), sizeof(c), 1024);
	__u32 id = 42;

	memset(&c, 0, sizeof(c));
	c.key[0] = CAND_A;
	c.key[1] = key(NOIF, AF_INET, IPPROTO_TCP, "192.0.2.9", "10.0.0.1", 80, 40000);
	c.out_ifindex[0] = NOIF;
	c.state = NPUFLOW_CS_MADE;
	c.reason = NPUFLOW_FR_NO_NEIGH;
	c.ct_id = 77;
	c.zone = 2;
	c.flags = NPUFLOW_CONN_F_ROUTED | NPUFLOW_CONN_F_HW0 | NPUFLOW_CONN_F_HW1;
	c.hw_handle[0] = 85;
	c.hw_handle[1] = 86;
	c.packets[0] = 1234;
	c.bytes[1] = 56789;
	c.givebacks = 1;
	c.remakes = 2;
	c.made_ns = env.now - 3 * S_NS;
	c.last_used_ns = env.now - 2 * S_NS;
	c.first_ns = env.now - 4 * S_NS;
	c.hw_ns = c.made_ns + 1000;
	c.punted = 16;
	assert_int_equal(bpf_map_update_elem(fd, &id, &c, BPF_ANY), 0);
	close(fd);
}

/* started 5 s ago, written 1 s ago */
static void fill_fmstats(void)
{
	struct npuflow_fmstats st;
	int fd = pin_new("fmstats", BPF_MAP_TYPE_ARRAY, sizeof(__u32), sizeof(st), 1);
	__u32 zero = 0;

	memset(&st, 0, sizeof(st));
	st.state[NPUFLOW_CS_MADE] = 3;
	st.state[NPUFLOW_CS_REFUSED] = 1;
	st.stat[NPUFLOW_FM_MADE] = 9;
	st.stat[NPUFLOW_FM_LOOKUPS] = 12;
	st.stat[NPUFLOW_FM_LOOKUP_US] = 12000345;
	st.stat[NPUFLOW_FM_CT_US] = 2000001;
	st.stat[NPUFLOW_FM_WRITE_US] = 700;
	st.stat[NPUFLOW_FM_RESCAN_LOST] = 2;
	st.refused[NPUFLOW_FR_NO_CT] = 4;
	st.start_ns = env.now - 5 * S_NS;
	st.updated_ns = env.now - 1 * S_NS;
	assert_int_equal(bpf_map_update_elem(fd, &zero, &st, BPF_ANY), 0);
	close(fd);
}

/* "npuctl (npuflow) <the top directory's VERSION>\n", what --version prints. */
static const char *version_line(void)
{
	static char line[96];
	char path[PATH_MAX + 32], v[32] = "";
	FILE *f;

	snprintf(path, sizeof(path), "%s/../../../VERSION", dirname(strdupa(env.npuctl)));
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(v, sizeof(v), f));
	fclose(f);
	v[strcspn(v, "\n")] = '\0';
	snprintf(line, sizeof(line), "npuctl (npuflow) %s\n", v);
	return line;
}

/* ---------------------------------------------------------- the world */

static const char *make_world(void)
{
	static char why[256];
	char self[PATH_MAX];
	ssize_t n;

	if (geteuid())
		return "needs root: a BPF file system and maps";
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return "no /proc/self/exe";
	self[n] = '\0';
	snprintf(env.npuctl, sizeof(env.npuctl), "%s/npuctl", dirname(self));
	if (access(env.npuctl, X_OK))
		return "no build/npuctl next to the test (make -C selftests/unit)";
	if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL)) {
		snprintf(why, sizeof(why), "no mount namespace of its own: %s", strerror(errno));
		return why;
	}
	snprintf(env.dir, sizeof(env.dir), "/tmp/npuctl-run.XXXXXX");
	if (!mkdtemp(env.dir))
		return "mkdtemp failed";
	snprintf(env.bpffs, sizeof(env.bpffs), "%s/bpf", env.dir);
	snprintf(env.pins, sizeof(env.pins), "%s/npuflow", env.bpffs);
	snprintf(env.empty, sizeof(env.empty), "%s/empty", env.bpffs);
	snprintf(env.nocand, sizeof(env.nocand), "%s/nocand", env.bpffs);
	snprintf(env.nofs, sizeof(env.nofs), "%s/nofs/npuflow", env.dir);
	snprintf(env.lock, sizeof(env.lock), "%s/lock", env.dir);
	if (mkdir(env.bpffs, 0700) || mount("bpf", env.bpffs, "bpf", 0, "mode=0700")) {
		snprintf(why, sizeof(why), "cannot mount a BPF file system: %s", strerror(errno));
		return why;
	}
	if (mkdir(env.pins, 0700) || mkdir(env.empty, 0700) || mkdir(env.nocand, 0700))
		return "mkdir in the BPF file system failed";
	env.ncpu = libbpf_num_possible_cpus();
	return env.ncpu > 0 ? NULL : "cannot count CPUs";
}

static int setup(void **state)
{
	(void)state;
	libbpf_set_print(NULL);
	env.lock_fd = -1;
	env.skip = make_world();
	if (env.skip)
		return 0;
	env.now = mono_ns();
	fill_candidates();
	fill_cache();
	fill_counters();
	fill_connections();
	fill_fmstats();
	return 0;
}

static int teardown(void **state)
{
	char cmd[160];

	(void)state;
	if (env.dir[0]) {
		umount2(env.bpffs, MNT_DETACH);
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", env.dir);
		if (system(cmd))
			print_message("could not remove %s\n", env.dir);
	}
	return 0;
}

static void need_world(void)
{
	if (env.skip) {
		print_message("SKIP: %s\n", env.skip);
		skip();
	}
}

/* ---------------------------------------------------------- npuctl */

/*
 * How npuctl runs: its stdout into a file of the test's, or into @out (then
 * r.out is ""); as root, or as nobody (uid and gid 65534, no groups).
 */
struct as {
	const char *out;
	int nobody;
};

#define NOBODY	65534

/* Drop root for nobody's ids, as setpriv --reuid --regid --clear-groups does: 0 or -1. */
static int become_nobody(void)
{
	return setgroups(0, NULL) || setresgid(NOBODY, NOBODY, NOBODY) ||
	       setresuid(NOBODY, NOBODY, NOBODY) ? -1 : 0;
}

/* npuctl(), run as @as says, with the ARGS of @ap. */
static struct run vnpuctl(const struct as *as, const char *pins, va_list ap)
{
	char *argv[16] = { env.npuctl, "--pin-dir", (char *)pins, "--lock-file", env.lock };
	char path[2][160];
	struct run r;
	int argc = pins ? 5 : 1, st, fd[2], exe;
	pid_t pid;

	while ((argv[argc] = va_arg(ap, char *)))
		assert_true(++argc < 15);
	/* opened as root: nobody may not search the directories on its way */
	exe = open(env.npuctl, O_RDONLY | O_CLOEXEC);
	assert_true(exe >= 0);
	for (int i = 0; i < 2; i++) {
		snprintf(path[i], sizeof(path[i]), "%s/out%d.XXXXXX", env.dir, i);
		fd[i] = mkstemp(path[i]);
		assert_true(fd[i] >= 0);
	}
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		if (as->out) {
			close(fd[0]);
			fd[0] = open(as->out, O_WRONLY);
			if (fd[0] < 0)
				_exit(125);
		}
		dup2(fd[0], 1);
		dup2(fd[1], 2);
		if (as->nobody && become_nobody())
			_exit(126);
		fexecve(exe, argv, environ);
		_exit(127);
	}
	close(exe);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	r.rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	for (int i = 0; i < 2; i++) {
		*(i ? &r.err : &r.out) = slurp(fd[i]);
		close(fd[i]);
		unlink(path[i]);
	}
	return r;
}

/*
 * npuctl --pin-dir @pins --lock-file env.lock ARGS... (NULL-terminated);
 * without those two options when @pins is NULL.
 */
static struct run npuctl(const char *pins, ...)
{
	struct as as = { 0 };
	struct run r;
	va_list ap;

	va_start(ap, pins);
	r = vnpuctl(&as, pins, ap);
	va_end(ap);
	return r;
}

/* npuctl(), run as @as says. */
static struct run npuctl_as(struct as as, const char *pins, ...)
{
	struct run r;
	va_list ap;

	va_start(ap, pins);
	r = vnpuctl(&as, pins, ap);
	va_end(ap);
	return r;
}

/* @r exited @rc: else fail, showing what it said. */
static void exited(const struct run *r, int rc)
{
	if (r->rc != rc)
		fail_msg("npuctl exited %d, not %d; stderr:\n%s\nstdout:\n%s", r->rc, rc,
			 r->err, r->out);
}

/* @v in [@lo, @lo + SLACK] */
static void about(uint64_t v, uint64_t lo, const char *what)
{
	if (v < lo || v > lo + SLACK)
		fail_msg("%s: %llu, not %llu or a little more", what, (unsigned long long)v,
			 (unsigned long long)lo);
}

/* npuctl ... ARGS... exits 0 with one array, an element a line: parsed. */
#define JSON_LIST(r, ...) json_list(&(r), npuctl(__VA_ARGS__, NULL))
static struct json_object *json_list(struct run *keep, struct run r)
{
	size_t n = strlen(r.out);

	*keep = r;
	exited(&r, 0);
	assert_true(n >= 3 && r.out[0] == '[' && r.out[n - 1] == '\n');
	if (n > 3)
		assert_true(!strncmp(r.out, "[\n  {", 5) && !strcmp(r.out + n - 4, "}\n]\n"));
	return parse(r.out);
}

/* -------------------------------------------------- the tests: JSON */

static void candidates_json(void **state)
{
	struct json_object *o;
	struct run r;

	(void)state;
	need_world();
	o = JSON_LIST(r, env.pins, "candidates", "--json");
	assert_int_equal(length(o), 3);
	/* busiest first; B's frames are the map's and the cache's */
	assert_int_equal(u64(o, "0.frames"), 100);
	assert_int_equal(u64(o, "1.frames"), 55);
	assert_int_equal(u64(o, "1.bytes"), 5500);
	assert_int_equal(u64(o, "2.frames"), 1);
	assert_int_equal(u64(o, "0.ifindex"), 1);
	assert_string_equal(str(o, "0.ifname"), "lo");
	assert_int_equal(u64(o, "0.vlan_outer"), 0);
	assert_int_equal(u64(o, "0.vlan_inner"), 0);
	assert_int_equal(u64(o, "0.family"), AF_INET);
	assert_int_equal(u64(o, "0.proto"), IPPROTO_TCP);
	assert_string_equal(str(o, "0.saddr"), "10.0.0.1");
	assert_string_equal(str(o, "0.daddr"), "192.0.2.9");
	assert_int_equal(u64(o, "0.sport"), 40000);
	assert_int_equal(u64(o, "0.dport"), 80);
	assert_int_equal(u64(o, "0.bytes"), 6400);
	assert_int_equal(u64(o, "0.first_ns"), 5);
	assert_int_equal(u64(o, "0.last_ns"), 7);
	assert_int_equal(u64(o, "0.tcp_flags"), 0x12);
	assert_string_equal(str(o, "0.reason"), "flow_miss");
	assert_int_equal(i64(o, "0.port"), 3);
	assert_int_equal(i64(o, "0.conn"), -1);
	assert_int_equal(u64(o, "0.flags"), 0);
	assert_int_equal(u64(o, "1.family"), AF_INET6);
	assert_string_equal(str(o, "1.saddr"), "2001:db8::1");
	assert_string_equal(str(o, "1.reason"), "not_active");
	assert_int_equal(i64(o, "1.port"), -1);
	assert_int_equal(i64(o, "1.conn"), 7);
	assert_int_equal(u64(o, "1.flags"), NPUFLOW_CF_META);
	assert_string_equal(str(o, "2.ifname"), "if999999");
	json_object_put(o);
	run_free(&r);

	o = JSON_LIST(r, env.pins, "cand", "-j", "--limit", "1");
	assert_int_equal(length(o), 1);
	assert_int_equal(u64(o, "0.frames"), 100);
	json_object_put(o);
	run_free(&r);
}

/* No candidates: the header and a line that says so, as flows says it; JSON: []. */
static void candidates_none(void **state)
{
	struct json_object *o;
	struct run r;

	(void)state;
	need_world();
	r = npuctl(env.nocand, "candidates", NULL);
	exited(&r, 0);
	assert_true(!strncmp(r.out, "ifname ", 7));
	assert_string_equal(strchr(r.out, '\n') + 1, "no candidates\n");
	run_free(&r);
	o = JSON_LIST(r, env.nocand, "candidates", "--json");
	assert_string_equal(r.out, "[]\n");
	assert_int_equal(length(o), 0);
	json_object_put(o);
	run_free(&r);
	/* --limit 0 asks for none of those there are: the header alone */
	r = npuctl(env.pins, "candidates", "--limit", "0", NULL);
	exited(&r, 0);
	assert_true(!strncmp(r.out, "ifname ", 7));
	assert_string_equal(strchr(r.out, '\n') + 1, "");
	run_free(&r);
}

static void stats_json(void **state)
{
	struct json_object *o;
	struct run r;

	(void)state;
	need_world();
	o = JSON_LIST(r, env.pins, "stats", "--json");
	assert_int_equal(length(o), 2);
	assert_int_equal(u64(o, "0.slot"), 2);
	assert_int_equal(i64(o, "0.port"), 3);
	assert_int_equal(u64(o, "0.ifindex"), 1);
	assert_string_equal(str(o, "0.ifname"), "lo");
	/* the counters summed over CPUs, the cache's 5 frames added */
	assert_int_equal(u64(o, "0.reasons.flow_miss.frames"), spread(10) + 5);
	assert_int_equal(u64(o, "0.reasons.flow_miss.bytes"), spread(1000) + 500);
	assert_int_equal(u64(o, "0.reasons.none.frames"), 0);
	assert_int_equal(length(get(o, "0.reasons")), NPUFLOW_R_SLOTS);
	assert_int_equal(u64(o, "0.stats.candidate"), spread(10) + 5);
	assert_int_equal(u64(o, "0.stats.events_lost"), 0);
	assert_int_equal(length(get(o, "0.stats")), NPUFLOW_S_MAX);
	assert_int_equal(u64(o, "1.slot"), NPUFLOW_MAX_PORTS + 1);
	assert_int_equal(i64(o, "1.port"), -1);
	assert_int_equal(u64(o, "1.ifindex"), NOIF);
	assert_string_equal(str(o, "1.ifname"), "if999999");
	assert_int_equal(u64(o, "1.reasons.none.frames"), 4);
	assert_int_equal(u64(o, "1.reasons.none.bytes"), 240);
	assert_int_equal(u64(o, "1.stats.events_lost"), 2);
	json_object_put(o);
	run_free(&r);

	o = JSON_LIST(r, env.pins, "stats", "--all", "-j");
	assert_int_equal(length(o), NPUFLOW_PORT_SLOTS);
	assert_int_equal(u64(o, "0.slot"), 0);
	assert_string_equal(str(o, "0.ifname"), "");
	assert_int_equal(u64(o, "2.reasons.flow_miss.frames"), spread(10) + 5);
	json_object_put(o);
	run_free(&r);
}

static void flows_json(void **state)
{
	unsigned long long t0 = mono_ns() - env.now;
	struct json_object *o;
	struct run r;

	(void)state;
	need_world();
	o = JSON_LIST(r, env.pins, "flows", "--json");
	assert_int_equal(length(o), 1);
	assert_int_equal(u64(o, "0.id"), 42);
	assert_string_equal(str(o, "0.state"), "made");
	assert_string_equal(str(o, "0.reason"), "no_neigh");
	assert_int_equal(u64(o, "0.proto"), IPPROTO_TCP);
	assert_int_equal(u64(o, "0.family"), 4);
	assert_int_equal(u64(o, "0.ct_id"), 77);
	assert_int_equal(u64(o, "0.zone"), 2);
	assert_false(boolean(o, "0.nat"));
	assert_true(boolean(o, "0.routed"));
	about(u64(o, "0.age_ns"), 3 * S_NS + t0, "age_ns");
	about(u64(o, "0.idle_ns"), 2 * S_NS + t0, "idle_ns");
	assert_int_equal(u64(o, "0.givebacks"), 1);
	assert_int_equal(u64(o, "0.remakes"), 2);
	assert_int_equal(u64(o, "0.revives"), 0);
	assert_int_equal(u64(o, "0.holds"), 0);
	assert_int_equal(u64(o, "0.wait_ns"), 0);
	assert_int_equal(u64(o, "0.made_ns"), env.now - 3 * S_NS);
	assert_int_equal(u64(o, "0.first_ns"), env.now - 4 * S_NS);
	assert_int_equal(u64(o, "0.cross_ns"), 0);
	assert_int_equal(u64(o, "0.hw_ns"), env.now - 3 * S_NS + 1000);
	assert_int_equal(u64(o, "0.punted"), 16);
	assert_int_equal(length(get(o, "0.dirs")), 2);
	assert_string_equal(str(o, "0.dirs.0.in"), "lo");
	assert_string_equal(str(o, "0.dirs.0.out"), "if999999");
	assert_string_equal(str(o, "0.dirs.0.src"), "10.0.0.1");
	assert_int_equal(u64(o, "0.dirs.0.sport"), 40000);
	assert_string_equal(str(o, "0.dirs.0.dst"), "192.0.2.9");
	assert_int_equal(u64(o, "0.dirs.0.dport"), 80);
	assert_int_equal(u64(o, "0.dirs.0.handle"), 85);
	assert_true(boolean(o, "0.dirs.0.in_hw"));
	assert_int_equal(u64(o, "0.dirs.0.packets"), 1234);
	assert_int_equal(u64(o, "0.dirs.0.bytes"), 0);
	assert_string_equal(str(o, "0.dirs.1.in"), "if999999");
	assert_string_equal(str(o, "0.dirs.1.out"), "");
	assert_int_equal(u64(o, "0.dirs.1.sport"), 80);
	assert_int_equal(u64(o, "0.dirs.1.handle"), 86);
	assert_int_equal(u64(o, "0.dirs.1.bytes"), 56789);
	json_object_put(o);
	run_free(&r);
}

/*
 * Hold npuflowd's lock with our pid in it, as a running npuflowd does: an
 * open file description lock on the whole file (take_lock()), which npuctl
 * tests for with F_OFD_GETLK, taking none itself.
 */
static void hold_lock(void)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	char pid[16];
	int fd = open(env.lock, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	assert_true(fd >= 0);
	env.lock_fd = fd;
	assert_int_equal(fcntl(fd, F_OFD_SETLK, &fl), 0);
	snprintf(pid, sizeof(pid), "%d\n", getpid());
	assert_int_equal(write(fd, pid, strlen(pid)), (ssize_t)strlen(pid));
}

/* npuflowd "stops": the lock is let go (the pid stays in the file, as npuflowd leaves it). */
static void release_lock(void)
{
	if (env.lock_fd >= 0)
		close(env.lock_fd);
	env.lock_fd = -1;
}

/* After each test, passed or not: npuflowd does not run. */
static int each_teardown(void **state)
{
	(void)state;
	release_lock();
	return 0;
}

static void status_json(void **state)
{
	unsigned long long t0 = mono_ns() - env.now;
	struct json_object *o;
	struct run r;

	(void)state;
	need_world();
	hold_lock();
	r = npuctl(env.pins, "status", "--json", NULL);
	exited(&r, 0);
	o = parse(r.out);
	assert_true(boolean(o, "running"));
	assert_int_equal(i64(o, "pid"), getpid());
	about(u64(o, "uptime_ns"), 5 * S_NS + t0, "uptime_ns");
	about(u64(o, "updated_ns_ago"), 1 * S_NS + t0, "updated_ns_ago");
	assert_int_equal(u64(o, "states.made"), 3);
	assert_int_equal(u64(o, "states.refused"), 1);
	assert_int_equal(u64(o, "states.pending"), 0);
	assert_int_equal(length(get(o, "states")), NPUFLOW_CS_MAX - 1);
	assert_int_equal(u64(o, "counters.made"), 9);
	assert_int_equal(u64(o, "counters.lookups"), 12);
	assert_int_equal(u64(o, "counters.lookup_us"), 12000345);
	assert_int_equal(u64(o, "counters.ct_us"), 2000001);
	assert_int_equal(u64(o, "counters.write_us"), 700);
	assert_int_equal(u64(o, "counters.hw_orphans"), 0);
	assert_int_equal(length(get(o, "counters")), NPUFLOW_FM_MAX);
	assert_int_equal(u64(o, "refused.no_ct"), 4);
	assert_int_equal(u64(o, "refused.conflict"), 0);
	assert_int_equal(length(get(o, "refused")), NPUFLOW_FR_SLOTS - 1);
	json_object_put(o);
	run_free(&r);
	release_lock();

	/* stopped: the same counters, not running */
	r = npuctl(env.pins, "status", "-j", NULL);
	exited(&r, 0);
	o = parse(r.out);
	assert_false(boolean(o, "running"));
	assert_int_equal(i64(o, "pid"), 0);
	assert_int_equal(u64(o, "states.made"), 3);
	json_object_put(o);
	run_free(&r);
}

/* status where npuflowd never ran: exit 3 and the short answer, in JSON and text */
static void status_never_ran(void **state)
{
	const char *dirs[] = { env.empty, env.nofs };
	size_t i;

	(void)state;
	need_world();
	for (i = 0; i < 2; i++) {
		struct run r = npuctl(dirs[i], "status", "--json", NULL);

		exited(&r, 3);
		assert_string_equal(r.out, "{\"running\":false,\"pid\":0,\"pinned\":false}\n");
		run_free(&r);
		r = npuctl(dirs[i], "status", NULL);
		exited(&r, 3);
		assert_true(!strncmp(r.out, "npuflowd not running (", 22));
		run_free(&r);
	}
}

/* -------------------------------------------------- the tests: not root */

/* A listening control socket of root's at @path, mode 0600, as npuflowd makes it. */
static int root_ctl_socket(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(chmod(path, 0600), 0);
	assert_int_equal(listen(fd, 1), 0);
	return fd;
}

/*
 * npuctl as nobody: every command that meets npuflowd's things, which are
 * root's (its maps, its control socket), says to run npuctl as root.
 */
static void not_root(void **state)
{
	static const char hint[] = "root's: run npuctl as root)\n";
	struct as nobody = { .nobody = 1 };
	char sock[96], opt[128];
	struct run r;
	int lfd;

	(void)state;
	need_world();
	/* others may pass through the test's directory, as through /run and /sys/fs */
	assert_int_equal(chmod(env.dir, 0711), 0);
	snprintf(sock, sizeof(sock), "%s/npuflowd.sock", env.dir);
	snprintf(opt, sizeof(opt), "--ctl-socket=%s", sock);
	lfd = root_ctl_socket(sock);

	r = npuctl_as(nobody, env.pins, "candidates", NULL);
	exited(&r, 1);
	assert_non_null(strstr(r.err, "Permission denied (npuflowd's maps are root's: run npuctl "
				      "as root)\n"));
	run_free(&r);
	r = npuctl_as(nobody, env.pins, "status", NULL);
	exited(&r, 1);
	assert_non_null(strstr(r.err, hint));
	run_free(&r);
	r = npuctl_as(nobody, NULL, opt, "release", "--all", NULL);
	exited(&r, 1);
	assert_string_equal(r.out, "");
	assert_non_null(strstr(r.err, "npuctl: cannot reach npuflowd at "));
	assert_non_null(strstr(r.err, "Permission denied (npuflowd's control socket is root's: "
				      "run npuctl as root)\n"));
	run_free(&r);
	r = npuctl_as(nobody, NULL, opt, "release", "42", NULL);
	exited(&r, 1);
	assert_non_null(strstr(r.err, hint));
	run_free(&r);

	close(lfd);
	unlink(sock);
	assert_int_equal(chmod(env.dir, 0700), 0);
}

/* -------------------------------------------------- the tests: Prometheus */

static void stats_prometheus(void **state)
{
	char line[256];
	struct run r;

	(void)state;
	need_world();
	r = npuctl(env.pins, "stats", "--prometheus", NULL);
	exited(&r, 0);
	well_formed(r.out);
	snprintf(line, sizeof(line), "npuflow_punt_frames_total{slot=\"2\",port=\"3\","
		 "ifname=\"lo\",reason=\"flow_miss\"} %llu", spread(10) + 5);
	has_line(r.out, line);
	snprintf(line, sizeof(line), "npuflow_punt_bytes_total{slot=\"2\",port=\"3\","
		 "ifname=\"lo\",reason=\"flow_miss\"} %llu", spread(1000) + 500);
	has_line(r.out, line);
	has_line(r.out, "npuflow_punt_frames_total{slot=\"17\",port=\"none\","
			"ifname=\"if999999\",reason=\"none\"} 4");
	has_line(r.out, "npuflow_classifier_events_lost_total{slot=\"17\",port=\"none\","
			"ifname=\"if999999\"} 2");
	snprintf(line, sizeof(line), "npuflow_classifier_candidate_total{slot=\"2\",port=\"3\","
		 "ifname=\"lo\"} %llu", spread(10) + 5);
	has_line(r.out, line);
	assert_null(strstr(r.out, "slot=\"0\""));	/* an empty slot, without --all */
	run_free(&r);

	r = npuctl(env.pins, "stats", "--prometheus", "--all", NULL);
	exited(&r, 0);
	well_formed(r.out);
	has_line(r.out, "npuflow_punt_frames_total{slot=\"0\",port=\"1\",ifname=\"\","
			"reason=\"flow_miss\"} 0");
	run_free(&r);
}

static void status_prometheus(void **state)
{
	unsigned long long t0 = mono_ns() - env.now;
	const char *up;
	struct run r, s;
	char *both;

	(void)state;
	need_world();
	hold_lock();
	r = npuctl(env.pins, "status", "--prometheus", NULL);
	exited(&r, 0);
	well_formed(r.out);
	has_line(r.out, "npuflow_daemon_running 1");
	has_line(r.out, "npuflow_maps_pinned 1");
	has_line(r.out, "npuflow_connections{state=\"made\"} 3");
	has_line(r.out, "npuflow_connections{state=\"refused\"} 1");
	has_line(r.out, "npuflow_refusals_total{reason=\"no_ct\"} 4");
	has_line(r.out, "npuflow_flowmaker_made_total 9");
	has_line(r.out, "npuflow_flowmaker_lookup_seconds_total 12.000345");
	has_line(r.out, "npuflow_flowmaker_ct_lookup_seconds_total 2.000001");
	has_line(r.out, "npuflow_flowmaker_write_seconds_total 0.000700");
	has_line(r.out, "npuflow_flowmaker_make_seconds_total 12.001045");
	has_line(r.out, "npuflow_flowmaker_rescan_lost 2");
	/* 5 s at the world's start, and the time the tests before took since */
	up = strstr(r.out, "\nnpuflow_daemon_uptime_seconds ");
	assert_non_null(up);
	about((uint64_t)(strtod(up + strlen("\nnpuflow_daemon_uptime_seconds "), NULL) * 1e9),
	      5 * S_NS + t0 - S_NS / 1000, "npuflow_daemon_uptime_seconds");
	release_lock();

	/* stats and status in one file, as a textfile collector reads it */
	s = npuctl(env.pins, "stats", "--prometheus", NULL);
	exited(&s, 0);
	assert_true(asprintf(&both, "%s%s", s.out, r.out) > 0);
	well_formed(both);
	free(both);
	run_free(&s);
	run_free(&r);

	/* never ran: exit 3, and the answer is still metrics */
	r = npuctl(env.empty, "status", "--prometheus", NULL);
	exited(&r, 3);
	well_formed(r.out);
	has_line(r.out, "npuflow_daemon_running 0");
	has_line(r.out, "npuflow_maps_pinned 0");
	assert_null(strstr(r.out, "npuflow_connections"));
	run_free(&r);
}

/* -------------------------------------------------- the command line */

static void text_and_usage(void **state)
{
	struct run r;

	(void)state;
	need_world();
	r = npuctl(env.pins, "stats", NULL);
	exited(&r, 0);
	assert_true(!strncmp(r.out, "port 3 (lo, ifindex 1)\n", 23));
	assert_non_null(strstr(r.out, "\nno metadata, slot 1 (if999999, ifindex 999999)\n"));
	assert_non_null(strstr(r.out, "\nflow maker\n"));
	run_free(&r);
	r = npuctl(env.pins, "flows", NULL);
	exited(&r, 0);
	assert_non_null(strstr(r.out, "\n42     made      tcp   lo         10.0.0.1:40000 > "));
	run_free(&r);
	r = npuctl(env.pins, "candidates", NULL);
	exited(&r, 0);
	assert_true(!strncmp(r.out, "ifname ", 7));
	run_free(&r);

	/* no BPF file system: exit 1, nothing on stdout, whatever the output */
	r = npuctl(env.nofs, "stats", "--prometheus", NULL);
	exited(&r, 1);
	assert_string_equal(r.out, "");
	assert_non_null(strstr(r.err, "no BPF file system at"));
	run_free(&r);
	r = npuctl(env.nofs, "flows", "--json", NULL);
	exited(&r, 1);
	assert_string_equal(r.out, "");
	run_free(&r);

	r = npuctl(env.pins, "stats", "--json", "--prometheus", NULL);
	exited(&r, 2);
	assert_non_null(strstr(r.err, "one output at a time"));
	run_free(&r);
	r = npuctl(env.pins, "flows", "--prometheus", NULL);
	exited(&r, 2);
	run_free(&r);
	/* bad usage: what is wrong and where the help is, in two lines */
	r = npuctl(env.pins, "bogus", NULL);
	exited(&r, 2);
	assert_string_equal(r.out, "");
	assert_string_equal(r.err, "npuctl: unknown command 'bogus'\n"
			    "Try 'npuctl --help' for more information.\n");
	run_free(&r);
	r = npuctl(env.pins, "flows", "--bogus", NULL);
	exited(&r, 2);
	assert_null(strstr(r.err, "Usage:"));
	assert_non_null(strstr(r.err, "Try 'npuctl --help'"));
	run_free(&r);
	/* an option without its value: it requires one, as getopt says */
	r = npuctl(NULL, "--pin-dir", NULL);
	exited(&r, 2);
	assert_string_equal(r.out, "");
	assert_string_equal(r.err, "npuctl: option '--pin-dir' requires an argument\n"
			    "Try 'npuctl --help' for more information.\n");
	run_free(&r);
	r = npuctl(env.pins, "--ctl-socket", NULL);
	exited(&r, 2);
	assert_non_null(strstr(r.err, "npuctl: option '--ctl-socket' requires an argument\n"));
	run_free(&r);
	r = npuctl(env.pins, "candidates", "--limit", NULL);
	exited(&r, 2);
	assert_string_equal(r.out, "");
	assert_string_equal(r.err, "npuctl: candidates: option '--limit' requires an argument\n"
			    "Try 'npuctl --help' for more information.\n");
	run_free(&r);
	/* a global option after the command: says where it goes */
	r = npuctl(env.pins, "release", "--all", "--ctl-socket=/tmp/x.sock", NULL);
	exited(&r, 2);
	assert_non_null(strstr(r.err, "--ctl-socket goes before the command"));
	run_free(&r);
	r = npuctl(env.pins, "--help", NULL);
	exited(&r, 0);
	assert_true(!strncmp(r.out, "Usage: npuctl [OPTION]... COMMAND", 33));
	assert_non_null(strstr(r.out, "\n  stats [--json|--prometheus] [--all]\n"));
	assert_non_null(strstr(r.out, "\n  status [--json|--prometheus]\n"));
	assert_non_null(strstr(r.out, "\n      --prometheus            Write the Prometheus text "
				      "exposition format\n"));
	assert_non_null(strstr(r.out, "\n      --version               Print the version"));
	run_free(&r);
	r = npuctl(env.pins, "--version", NULL);
	exited(&r, 0);
	assert_string_equal(r.out, version_line());
	run_free(&r);
	/* what cannot be written is an error, as coreutils' close_stdout has it */
	{
		struct as full = { .out = "/dev/full" };
		static const char *const cmds[][3] = {
			{ "--help" }, { "--version" }, { "help" }, { "stats" },
			{ "candidates", "--json" }, { "status", "--prometheus" },
		};

		for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
			r = npuctl_as(full, env.pins, cmds[i][0], cmds[i][1], cmds[i][2], NULL);
			exited(&r, 1);
			assert_string_equal(r.out, "");
			if (!strstr(r.err, "npuctl: cannot write the output: No space left on "
				    "device\n"))
				fail_msg("npuctl %s >/dev/full said:\n%s", cmds[i][0], r.err);
			run_free(&r);
		}
	}

	/* --opt=VALUE as --opt VALUE */
	{
		char opt[160];
		struct json_object *o;

		snprintf(opt, sizeof(opt), "--pin-dir=%s", env.pins);
		r = npuctl(env.empty, opt, "candidates", "--json", "--limit=2", NULL);
		exited(&r, 0);
		o = parse(r.out);
		assert_int_equal(length(o), 2);
		json_object_put(o);
		run_free(&r);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(candidates_json, each_teardown),
		cmocka_unit_test_teardown(candidates_none, each_teardown),
		cmocka_unit_test_teardown(stats_json, each_teardown),
		cmocka_unit_test_teardown(flows_json, each_teardown),
		cmocka_unit_test_teardown(status_json, each_teardown),
		cmocka_unit_test_teardown(status_never_ran, each_teardown),
		cmocka_unit_test_teardown(not_root, each_teardown),
		cmocka_unit_test_teardown(stats_prometheus, each_teardown),
		cmocka_unit_test_teardown(status_prometheus, each_teardown),
		cmocka_unit_test_teardown(text_and_usage, each_teardown),
	};

	return cmocka_run_group_tests_name("npuctl_run", tests, setup, teardown);
}
