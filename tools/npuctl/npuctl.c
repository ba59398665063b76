// SPDX-License-Identifier: GPL-2.0
/*
 * npuctl - inspect npuflow: candidates and counters from the maps npuflowd
 * pins under /sys/fs/bpf/npuflow/ (per-CPU values summed over CPUs).
 *
 *   npuctl [--pin-dir DIR] candidates [--json] [--limit N]
 *   npuctl [--pin-dir DIR] stats [--json] [--all]
 *   npuctl [--pin-dir DIR] status [--json]
 *   npuctl [--pin-dir DIR] flows [--json]
 *   npuctl [--ctl-socket PATH] release ID|--all
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <net/if.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/vfs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "../../loader/npuflow_fmt.h"
#include "../../loader/npuflow_cache.h"
#include "../../loader/flowmaker.h"
#include "../../loader/npuflowd_opts.h"

#ifndef BPF_FS_MAGIC
#define BPF_FS_MAGIC 0xcafe4a11
#endif

/* the kernel strides per-CPU values by 8 bytes: arrays of these match it */
_Static_assert(sizeof(struct npuflow_counters) % 8 == 0, "per-CPU stride");
_Static_assert(sizeof(struct npuflow_cache) % 8 == 0, "per-CPU stride");

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
"  stats [--json] [--all]\n"
"      per-port frames and bytes per punt reason and the classifier's parse\n"
"      counters, summed over CPUs (--all: also empty slots); then the flow\n"
"      maker's counters (text only)\n"
"  status [--json]\n"
"      npuflowd running or not, connections per state, the flow maker's\n"
"      counters and its refusals by reason\n"
"  flows [--json]\n"
"      the connections: id, state, both directions (ingress, tuple as it\n"
"      arrives, so NAT shows), egress, hardware packets and bytes per\n"
"      direction, age, idle time, give-backs, remakes, revives, reason\n"
"  release ID|--all\n"
"      hand connections back to the host: npuflowd sets conntrack's\n"
"      be-liberal flags first, then removes the rules\n"
"\n"
"options: --pin-dir DIR (maps, default %s), --ctl-socket PATH (npuflowd's\n"
"  control socket, default %s), --lock-file PATH (npuflowd's lock, which\n"
"  names its pid, default %s); -j is --json\n"
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

/*
 * Whether the pin directory's parent is on a BPF file system, its path in
 * @parent (@len bytes).  npuctl mounts none: a new one would hold no pins.
 */
static int pins_fs(char *parent, size_t len)
{
	char copy[512];
	struct statfs st;

	snprintf(copy, sizeof(copy), "%s", pin_dir);
	snprintf(parent, len, "%s", dirname(copy));
	return !statfs(parent, &st) && st.f_type == BPF_FS_MAGIC;
}

/* 0 when the pins can be there; -1 saying what is missing when not. */
static int need_pins_fs(void)
{
	char parent[512];

	if (pins_fs(parent, sizeof(parent)))
		return 0;
	fprintf(stderr, "npuctl: no BPF file system at %s: is npuflowd running? (it mounts "
		"one when it starts; its maps would be in %s)\n", parent, pin_dir);
	return -1;
}

/* Whether @name is pinned in pin_dir. */
static int pinned(const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", pin_dir, name);
	return !access(path, F_OK);
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

/*
 * open_map - the pinned map @name, checked to have @ksz-byte keys and
 * @vsz-byte values (the structs this npuctl was built with: a map pinned by
 * another npuflowd version would overrun them).  The fd, or -1 (said).
 */
static int open_map(const char *name, size_t ksz, size_t vsz)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	int fd = open_pinned(name);

	if (fd < 0)
		return -1;
	if (bpf_obj_get_info_by_fd(fd, &info, &len)) {
		fprintf(stderr, "npuctl: %s/%s: %s\n", pin_dir, name, strerror(errno));
		close(fd);
		return -1;
	}
	if (info.key_size != ksz || info.value_size != vsz) {
		fprintf(stderr, "npuctl: %s/%s has %u-byte keys and %u-byte values, this npuctl "
			"reads %zu and %zu: pinned by another npuflowd version?\n", pin_dir,
			name, info.key_size, info.value_size, ksz, vsz);
		close(fd);
		return -1;
	}
	return fd;
}

/* Make room for @want entries of @ksz + @vsz bytes in *keys, *vals (capacity *cap). */
static int dump_room(char **keys, char **vals, size_t ksz, size_t vsz, size_t *cap,
		     size_t want)
{
	size_t c = *cap ? *cap : 1024;
	char *k, *v;

	if (want <= *cap)
		return 0;
	while (c < want)
		c *= 2;
	k = realloc(*keys, c * ksz);
	if (k)
		*keys = k;
	v = realloc(*vals, c * vsz);
	if (v)
		*vals = v;
	if (!k || !v)
		return -ENOMEM;
	*cap = c;
	return 0;
}

/*
 * map_dump - every entry of the hash map @fd (hash or LRU hash; a per-CPU
 * kind too, with @vsz its per-CPU size: round_up(value_size, 8) times the
 * possible CPUs), read with bpf_map_lookup_batch().  The kernel copies whole
 * buckets under their locks and resumes at the next bucket, so an entry
 * present for the whole walk comes exactly once, one added or deleted
 * meanwhile at most once (bpf_map_get_next_key() restarts from the first
 * bucket when the key it was given has gone).  @ksz: key size in bytes.
 * Returns the count with *keys and *vals (malloc'd, that many keys and
 * values; the caller frees both), or -errno (both NULL).
 */
static long map_dump(int fd, size_t ksz, size_t vsz, void **keys, void **vals)
{
	DECLARE_LIBBPF_OPTS(bpf_map_batch_opts, o);
	char *k = NULL, *v = NULL;
	size_t n = 0, cap = 0;
	__u32 chunk = 256, count, in = 0, out = 0;
	int first = 1, e;

	for (;;) {
		e = dump_room(&k, &v, ksz, vsz, &cap, n + chunk);
		if (e)
			goto fail;
		count = chunk;
		e = bpf_map_lookup_batch(fd, first ? NULL : &in, &out, k + n * ksz, v + n * vsz,
					 &count, &o);
		if (e == -ENOSPC && !count) {
			chunk *= 2;	/* a bucket longer than the chunk */
			continue;
		}
		if (e && e != -ENOENT)
			goto fail;
		n += count;
		if (e)		/* -ENOENT: the last bucket was read */
			break;
		in = out;
		first = 0;
	}
	*keys = k;
	*vals = v;
	return n;
fail:
	free(k);
	free(v);
	*keys = *vals = NULL;
	return e;
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

/* The candidates of map @fd as rows: *rows (malloc'd, *n of them).  0 or -errno. */
static int read_candidates(int fd, struct npuflow_row **rows, size_t *n)
{
	struct npuflow_cand *vals;
	struct npuflow_key *keys;
	long cnt = map_dump(fd, sizeof(*keys), sizeof(*vals), (void **)&keys, (void **)&vals);
	long i;

	*rows = NULL;
	*n = 0;
	if (cnt < 0)
		return cnt;
	*rows = malloc((cnt ? cnt : 1) * sizeof(**rows));
	if (*rows) {
		for (i = 0; i < cnt; i++) {
			(*rows)[i].key = keys[i];
			(*rows)[i].val = vals[i];
		}
		*n = cnt;
	}
	free(keys);
	free(vals);
	return *rows ? 0 : -ENOMEM;
}

static int cmd_candidates(int argc, char **argv)
{
	struct npuflow_row *rows = NULL;
	size_t n = 0, i, limit = (size_t)-1;
	struct timespec ts;
	int json = 0, fd, e;

	for (i = 1; i < (size_t)argc; i++) {
		if (!strcmp(argv[i], "--json") || !strcmp(argv[i], "-j"))
			json = 1;
		else if (!strcmp(argv[i], "--limit") && i + 1 < (size_t)argc) {
			char *end;

			errno = 0;
			limit = strtoul(argv[++i], &end, 10);
			if (errno || end == argv[i] || *end || argv[i][0] == '-') {
				fprintf(stderr, "npuctl: --limit: '%s' is not a count\n", argv[i]);
				return 2;
			}
		} else {
			return bad_arg(argv[0], argv[i]);
		}
	}
	if (need_pins_fs())
		return 1;
	fd = open_map("candidates", sizeof(struct npuflow_key), sizeof(struct npuflow_cand));
	if (fd < 0)
		return 1;
	e = read_candidates(fd, &rows, &n);
	close(fd);
	if (e) {
		fprintf(stderr, "npuctl: cannot read %s/candidates: %s\n", pin_dir, strerror(-e));
		return 1;
	}
	/*
	 * Frames and bytes the classifier's per-CPU cache has not written to
	 * the candidates yet (pins of an older npuflowd have no cache).
	 */
	{
		char path[512];

		snprintf(path, sizeof(path), "%s/candcache", pin_dir);
		fd = bpf_obj_get(path);
	}
	if (fd >= 0) {
		struct npuflow_cache *ents;
		size_t nents;

		if (!npuflow_cache_read(fd, &ents, &nents)) {
			npuflow_cache_fold(rows, n, ents, nents);
			free(ents);
		}
		close(fd);
	}
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

static void print_fmstats(const struct npuflow_fmstats *st);

static int cmd_stats(int argc, char **argv)
{
	int ncpu = libbpf_num_possible_cpus(), json = 0, all = 0, fd, i, first = 1;
	struct npuflow_cache *ents = NULL;
	struct npuflow_counters *pc;
	size_t nents = 0;
	__u32 slot;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json") || !strcmp(argv[i], "-j"))
			json = 1;
		else if (!strcmp(argv[i], "--all"))
			all = 1;
		else
			return bad_arg(argv[0], argv[i]);
	}
	if (ncpu <= 0) {
		fprintf(stderr, "npuctl: cannot count CPUs\n");
		return 1;
	}
	if (need_pins_fs())
		return 1;
	/*
	 * A cache hit of the classifier counts in its per-CPU cache entry,
	 * not in the counters: add what the entries hold (npuflow.h).
	 */
	{
		char path[512];
		int cfd;

		snprintf(path, sizeof(path), "%s/candcache", pin_dir);
		cfd = bpf_obj_get(path);
		if (cfd >= 0) {
			if (npuflow_cache_read(cfd, &ents, &nents))
				nents = 0;
			close(cfd);
		}
	}
	fd = open_map("counters", sizeof(slot), sizeof(*pc));
	if (fd < 0) {
		free(ents);
		return 1;
	}
	pc = calloc(ncpu, sizeof(*pc));
	if (!pc) {
		free(ents);
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
		npuflow_cache_count(&c, slot, ents, nents);
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
	free(ents);
	free(pc);
	close(fd);
	if (!json) {
		struct npuflow_fmstats st;
		__u32 zero = 0;
		char path[512];
		int sfd;

		snprintf(path, sizeof(path), "%s/fmstats", pin_dir);
		sfd = bpf_obj_get(path);
		if (sfd >= 0) {
			if (!bpf_map_lookup_elem(sfd, &zero, &st)) {
				printf("\n");
				print_fmstats(&st);
			}
			close(sfd);
		}
	}
	return 0;
}

static unsigned long long mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* The running npuflowd's pid from its lock, 0 if none runs. */
static int daemon_pid(void)
{
	char buf[32] = "";
	int fd = open(lock_file, O_RDONLY | O_CLOEXEC), pid = 0;
	ssize_t n;

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n > 0)
		pid = atoi(buf);
	if (pid > 0 && kill(pid, 0) && errno == ESRCH)
		pid = 0;
	/* the lock is held while it runs */
	fd = open(lock_file, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (!flock(fd, LOCK_EX | LOCK_NB)) {
			pid = 0;
			flock(fd, LOCK_UN);
		}
		close(fd);
	}
	return pid;
}

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

/* One connection, @key its id, as a JSON object (@first: no comma before it). */
static void print_flow_json(__u32 key, const struct npuflow_conn *c, int first,
			    unsigned long long now)
{
	int dir;

	printf("%s\n  {\"id\":%u,\"state\":\"%s\",\"reason\":\"%s\",\"proto\":%u,"
	       "\"family\":%u,\"ct_id\":%u,\"zone\":%u,\"nat\":%s,\"routed\":%s,"
	       "\"age_ns\":%llu,\"idle_ns\":%llu,\"givebacks\":%u,\"remakes\":%u,"
	       "\"revives\":%u,\"holds\":%u,\"wait_ns\":%llu,"
	       "\"made_ns\":%llu,\"first_ns\":%llu,\"cross_ns\":%llu,"
	       "\"hw_ns\":%llu,\"punted\":%llu,\"dirs\":[",
	       first ? "" : ",", key, fm_state_name(c->state), fm_reason_name(c->reason),
	       c->key[0].proto, c->key[0].family == 10 ? 6 : 4, c->ct_id, c->zone,
	       c->flags & NPUFLOW_CONN_F_NAT ? "true" : "false",
	       c->flags & NPUFLOW_CONN_F_ROUTED ? "true" : "false",
	       c->made_ns && now > c->made_ns ? now - c->made_ns : 0,
	       c->last_used_ns && now > c->last_used_ns ? now - c->last_used_ns : 0,
	       c->givebacks, c->remakes, c->revives, c->holds,
	       (unsigned long long)c->wait_ns, (unsigned long long)c->made_ns,
	       (unsigned long long)c->first_ns, (unsigned long long)c->cross_ns,
	       (unsigned long long)c->hw_ns, (unsigned long long)c->punted);
	for (dir = 0; dir < 2; dir++) {
		char ifa[IF_NAMESIZE], ifb[IF_NAMESIZE], s[48], d[48];
		int af = c->key[dir].family == 10 ? AF_INET6 : AF_INET;

		inet_ntop(af, c->key[dir].saddr, s, sizeof(s));
		inet_ntop(af, c->key[dir].daddr, d, sizeof(d));
		printf("%s{\"in\":", dir ? "," : "");
		json_str(ifname_of(c->key[dir].ifindex, ifa));
		printf(",\"out\":");
		json_str(c->out_ifindex[dir] ? ifname_of(c->out_ifindex[dir], ifb) : "");
		printf(",\"src\":\"%s\",\"sport\":%u,\"dst\":\"%s\",\"dport\":%u,"
		       "\"handle\":%u,\"in_hw\":%s,\"packets\":%llu,\"bytes\":%llu}",
		       s, ntohs(c->key[dir].sport), d, ntohs(c->key[dir].dport),
		       c->hw_handle[dir],
		       c->flags & (dir ? NPUFLOW_CONN_F_HW1 : NPUFLOW_CONN_F_HW0) ?
		       "true" : "false",
		       (unsigned long long)c->packets[dir],
		       (unsigned long long)c->bytes[dir]);
	}
	printf("]}");
}

/* One connection, @key its id, as two lines of text (one a direction). */
static void print_flow_text(__u32 key, const struct npuflow_conn *c, unsigned long long now)
{
	int dir;

	for (dir = 0; dir < 2; dir++) {
		char ifa[IF_NAMESIZE], ifb[IF_NAMESIZE], t[128], p[8];

		fmt_tuple(&c->key[dir], t, sizeof(t));
		if (!dir)
			printf("%-6u %-9s %-5s ", key, fm_state_name(c->state),
			       npuflow_proto_name(c->key[0].proto, p, sizeof(p)));
		else
			printf("%-6s %-9s %-5s ", "", "", "");
		printf("%-10s %-48s %-10s %12llu %14llu", ifname_of(c->key[dir].ifindex, ifa),
		       t, c->out_ifindex[dir] ? ifname_of(c->out_ifindex[dir], ifb) : "-",
		       (unsigned long long)c->packets[dir],
		       (unsigned long long)c->bytes[dir]);
		if (!dir)
			printf(" %8.1f %8.1f %u/%u/%u %s%s\n",
			       c->made_ns && now > c->made_ns ? (now - c->made_ns) / 1e9 : 0,
			       c->last_used_ns && now > c->last_used_ns ?
			       (now - c->last_used_ns) / 1e9 : 0,
			       c->givebacks, c->remakes, c->revives,
			       c->reason ? fm_reason_name(c->reason) : "-",
			       c->flags & NPUFLOW_CONN_F_NAT ? " nat" : "");
		else
			printf("\n");
	}
}

static int cmd_flows(int argc, char **argv)
{
	unsigned long long now = mono_ns();
	struct npuflow_conn *conns;
	__u32 *ids;
	long n, k;
	int json = 0, fd, i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json") || !strcmp(argv[i], "-j"))
			json = 1;
		else
			return bad_arg(argv[0], argv[i]);
	}
	if (need_pins_fs())
		return 1;
	fd = open_map("connections", sizeof(*ids), sizeof(*conns));
	if (fd < 0)
		return 1;
	n = map_dump(fd, sizeof(*ids), sizeof(*conns), (void **)&ids, (void **)&conns);
	close(fd);
	if (n < 0) {
		fprintf(stderr, "npuctl: cannot read %s/connections: %s\n", pin_dir, strerror(-n));
		return 1;
	}
	if (json)
		printf("[");
	else
		printf("%-6s %-9s %-5s %-10s %-48s %-10s %12s %14s %8s %8s %s\n", "id", "state",
		       "proto", "in", "tuple as it arrives", "out", "packets", "bytes", "age_s",
		       "idle_s", "gb/remade/revived reason");
	for (k = 0; k < n; k++) {
		if (json)
			print_flow_json(ids[k], &conns[k], !k, now);
		else
			print_flow_text(ids[k], &conns[k], now);
	}
	if (json)
		printf("%s]\n", n ? "\n" : "");
	else if (!n)
		printf("no connections\n");
	free(ids);
	free(conns);
	return 0;
}

static int read_fmstats(struct npuflow_fmstats *st)
{
	__u32 zero = 0;
	int fd = open_pinned("fmstats"), rc;

	if (fd < 0)
		return -1;
	rc = bpf_map_lookup_elem(fd, &zero, st);
	close(fd);
	return rc;
}

static void print_fmstats(const struct npuflow_fmstats *st)
{
	unsigned int i;

	printf("flow maker\n  %-20s %14s\n", "counter", "count");
	for (i = 0; i < NPUFLOW_FM_MAX; i++)
		printf("  %-20s %14llu\n", fm_stat_name(i), (unsigned long long)st->stat[i]);
	printf("  %-20s %14s\n", "refused: reason", "count");
	for (i = 1; i < NPUFLOW_FR_SLOTS; i++)
		if (st->refused[i])
			printf("  %-20s %14llu\n", fm_reason_name(i),
			       (unsigned long long)st->refused[i]);
}

static int cmd_status(int argc, char **argv)
{
	struct npuflow_fmstats st;
	int json = 0, pid = daemon_pid(), i;
	unsigned long long now = mono_ns();
	char parent[512];

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json") || !strcmp(argv[i], "-j"))
			json = 1;
		else
			return bad_arg(argv[0], argv[i]);
	}
	memset(&st, 0, sizeof(st));
	if (!pins_fs(parent, sizeof(parent))) {
		if (pid) {
			fprintf(stderr, "npuctl: npuflowd runs (pid %d) but there is no BPF file "
				"system at %s here: its pins are in another mount namespace\n",
				pid, parent);
			return 1;
		}
		if (json)
			printf("{\"running\":false,\"pid\":0,\"pinned\":false}\n");
		else
			printf("npuflowd not running (no BPF file system at %s)\n", parent);
		return 3;
	}
	if (!pid && !pinned("fmstats")) {
		/* never ran here, or flushed: an answer, not an error (LSB: 3) */
		if (json)
			printf("{\"running\":false,\"pid\":0,\"pinned\":false}\n");
		else
			printf("npuflowd not running (nothing pinned in %s)\n", pin_dir);
		return 3;
	}
	if (read_fmstats(&st))
		return 1;
	if (json) {
		printf("{\"running\":%s,\"pid\":%d,\"uptime_ns\":%llu,\"updated_ns_ago\":%llu,"
		       "\"states\":{", pid ? "true" : "false", pid,
		       st.start_ns && now > st.start_ns ? now - st.start_ns : 0,
		       st.updated_ns && now > st.updated_ns ? now - st.updated_ns : 0);
		for (i = 1; i < NPUFLOW_CS_MAX; i++)
			printf("%s\"%s\":%llu", i > 1 ? "," : "", fm_state_name(i),
			       (unsigned long long)st.state[i]);
		printf("},\"counters\":{");
		for (i = 0; i < NPUFLOW_FM_MAX; i++)
			printf("%s\"%s\":%llu", i ? "," : "", fm_stat_name(i),
			       (unsigned long long)st.stat[i]);
		printf("},\"refused\":{");
		for (i = 1; i < NPUFLOW_FR_SLOTS; i++)
			printf("%s\"%s\":%llu", i > 1 ? "," : "", fm_reason_name(i),
			       (unsigned long long)st.refused[i]);
		printf("}}\n");
		return 0;
	}
	if (pid)
		printf("npuflowd running (pid %d), up %.0f s\n", pid,
		       st.start_ns ? (now - st.start_ns) / 1e9 : 0.0);
	else
		printf("npuflowd not running (rules stay in hardware; maps in %s)\n", pin_dir);
	printf("connections:");
	for (i = 1; i < NPUFLOW_CS_MAX; i++)
		printf(" %s %llu", fm_state_name(i), (unsigned long long)st.state[i]);
	printf("\n");
	print_fmstats(&st);
	return 0;
}

static int cmd_release(int argc, char **argv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char req[64], rep[256];
	ssize_t n;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "npuctl: release: one connection id, or --all\n");
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--all") || !strcmp(argv[1], "all")) {
		snprintf(req, sizeof(req), "release all");
	} else {
		unsigned long id;
		char *end;

		/* strtoul() would take "-1" as ULONG_MAX: digits only, a u32 */
		errno = 0;
		id = strtoul(argv[1], &end, 10);
		if (!isdigit((unsigned char)argv[1][0]) || *end || errno ||
		    id > UINT32_MAX) {
			fprintf(stderr, "npuctl: release: '%s' is not a connection id\n", argv[1]);
			return 2;
		}
		snprintf(req, sizeof(req), "release %lu", id);
	}
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", ctl_socket);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		fprintf(stderr, "npuctl: cannot reach npuflowd at %s: %s\n", ctl_socket,
			strerror(errno));
		if (fd >= 0)
			close(fd);
		return 1;
	}
	if (send(fd, req, strlen(req), 0) < 0 || (n = recv(fd, rep, sizeof(rep) - 1, 0)) <= 0) {
		fprintf(stderr, "npuctl: no answer from npuflowd: %s\n", strerror(errno));
		close(fd);
		return 1;
	}
	close(fd);
	rep[n] = '\0';
	fputs(rep, stdout);
	return strncmp(rep, "error", 5) ? 0 : 1;
}

int main(int argc, char **argv)
{
	int i = 1;

	libbpf_set_print(NULL);
	while (i < argc && argv[i][0] == '-') {
		if (!strcmp(argv[i], "--pin-dir") && i + 1 < argc) {
			pin_dir = argv[i + 1];
			i += 2;
		} else if (!strcmp(argv[i], "--ctl-socket") && i + 1 < argc) {
			ctl_socket = argv[i + 1];
			i += 2;
		} else if (!strcmp(argv[i], "--lock-file") && i + 1 < argc) {
			lock_file = argv[i + 1];
			i += 2;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		} else {
			fprintf(stderr, "npuctl: unknown option '%s'\n", argv[i]);
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
	if (!strcmp(argv[i], "status"))
		return cmd_status(argc - i, argv + i);
	if (!strcmp(argv[i], "flows"))
		return cmd_flows(argc - i, argv + i);
	if (!strcmp(argv[i], "release"))
		return cmd_release(argc - i, argv + i);
	if (!strcmp(argv[i], "help")) {
		usage(stdout);
		return 0;
	}
	fprintf(stderr, "npuctl: unknown command '%s'\n", argv[i]);
	usage(stderr);
	return 2;
}
