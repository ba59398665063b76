// SPDX-License-Identifier: GPL-2.0
/* read.c - npuctl's records read from npuflowd's pins (read.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "../../lib/npuflow_cache.h"
#include "../../lib/npuflow_map.h"
#include "pins.h"
#include "read.h"

/* the kernel strides per-CPU values by 8 bytes: arrays of these match it */
_Static_assert(sizeof(struct npuflow_counters) % 8 == 0, "per-CPU stride");
_Static_assert(sizeof(struct npuflow_cache) % 8 == 0, "per-CPU stride");

unsigned long long npuctl_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/*
 * The names already asked, one command's worth: the rows name the same
 * few ports over and over, and if_indextoname() costs a socket and an
 * ioctl each (four a connection in flows, 16,384 connections a table).
 */
#define IFNAME_CACHE 32
static struct { unsigned int ifindex; char name[IF_NAMESIZE]; } ifname_cache[IFNAME_CACHE];
static unsigned int ifname_cached;

const char *npuctl_ifname(unsigned int ifindex, char buf[IF_NAMESIZE])
{
	unsigned int i;

	for (i = 0; i < ifname_cached; i++)
		if (ifname_cache[i].ifindex == ifindex)
			return memcpy(buf, ifname_cache[i].name, IF_NAMESIZE);
	if (!ifindex || !if_indextoname(ifindex, buf))
		snprintf(buf, IF_NAMESIZE, "if%u", ifindex);
	if (ifname_cached < IFNAME_CACHE) {
		ifname_cache[ifname_cached].ifindex = ifindex;
		memcpy(ifname_cache[ifname_cached++].name, buf, IF_NAMESIZE);
	}
	return buf;
}

/* What the classifier's per-CPU cache holds (none: pins of an older npuflowd). */
static void read_cache(const char *pin_dir, struct npuflow_cache **ents, size_t *n)
{
	int fd = npuctl_open_optional(pin_dir, "candcache");

	*ents = NULL;
	*n = 0;
	if (fd < 0)
		return;
	if (npuflow_cache_read(fd, ents, n)) {
		*ents = NULL;
		*n = 0;
	}
	close(fd);
}

/* The candidates of map @fd as rows: *rows (malloc'd, *n of them).  0 or -errno. */
static int dump_candidates(int fd, struct npuflow_row **rows, size_t *n)
{
	struct npuflow_cand *vals;
	struct npuflow_key *keys;
	long cnt = npuflow_map_dump(fd, sizeof(*keys), sizeof(*vals), (void **)&keys,
				   (void **)&vals);
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

int npuctl_read_candidates(const char *pin_dir, struct npuflow_row **rows, size_t *n)
{
	struct npuflow_cache *ents;
	size_t nents;
	int fd, e;

	if (npuctl_need_pins_fs(pin_dir))
		return -1;
	fd = npuctl_open_map(pin_dir, "candidates", sizeof(struct npuflow_key),
			     sizeof(struct npuflow_cand));
	if (fd < 0)
		return -1;
	e = dump_candidates(fd, rows, n);
	close(fd);
	if (e) {
		fprintf(stderr, "npuctl: cannot read %s/candidates: %s\n", pin_dir, strerror(-e));
		return -1;
	}
	read_cache(pin_dir, &ents, &nents);
	npuflow_cache_fold(*rows, *n, ents, nents);
	free(ents);
	npuflow_rows_sort(*rows, *n);
	return 0;
}

/*
 * Slot @slot of counters map @fd into @p, with @pc room for @ncpu per-CPU
 * copies: 0, or -1 if the slot cannot be read.
 */
static int read_slot(int fd, __u32 slot, struct npuflow_counters *pc, int ncpu,
		     const struct npuflow_cache *ents, size_t nents, struct npuctl_port *p)
{
	if (bpf_map_lookup_elem(fd, &slot, pc))
		return -1;
	memset(p, 0, sizeof(*p));
	p->slot = slot;
	npuflow_counters_sum(pc, ncpu, &p->c);
	/* a cache hit counts in its per-CPU cache entry, not in the counters */
	npuflow_cache_count(&p->c, slot, ents, nents);
	if (p->c.ifindex)
		npuctl_ifname(p->c.ifindex, p->ifname);
	return 0;
}

int npuctl_read_ports(const char *pin_dir, int all, struct npuctl_port **ports, size_t *n)
{
	int ncpu = libbpf_num_possible_cpus(), fd;
	struct npuflow_counters *pc;
	struct npuflow_cache *ents;
	size_t nents;
	__u32 slot;

	*ports = NULL;
	*n = 0;
	if (ncpu <= 0) {
		fprintf(stderr, "npuctl: cannot count CPUs\n");
		return -1;
	}
	if (npuctl_need_pins_fs(pin_dir))
		return -1;
	fd = npuctl_open_map(pin_dir, "counters", sizeof(slot), sizeof(*pc));
	if (fd < 0)
		return -1;
	pc = calloc(ncpu, sizeof(*pc));
	*ports = calloc(NPUFLOW_PORT_SLOTS, sizeof(**ports));
	if (!pc || !*ports) {
		fprintf(stderr, "npuctl: %s\n", strerror(ENOMEM));
		free(pc);
		free(*ports);
		*ports = NULL;
		close(fd);
		return -1;
	}
	read_cache(pin_dir, &ents, &nents);
	for (slot = 0; slot < NPUFLOW_PORT_SLOTS; slot++) {
		struct npuctl_port *p = &(*ports)[*n];

		if (read_slot(fd, slot, pc, ncpu, ents, nents, p))
			continue;
		if (all || !npuflow_counters_empty(&p->c))
			(*n)++;
	}
	free(ents);
	free(pc);
	close(fd);
	return 0;
}

long npuctl_read_conns(const char *pin_dir, __u32 **ids, struct npuflow_conn **conns)
{
	long n;
	int fd;

	if (npuctl_need_pins_fs(pin_dir))
		return -1;
	fd = npuctl_open_map(pin_dir, "connections", sizeof(**ids), sizeof(**conns));
	if (fd < 0)
		return -1;
	n = npuflow_map_dump(fd, sizeof(**ids), sizeof(**conns), (void **)ids, (void **)conns);
	close(fd);
	if (n < 0) {
		fprintf(stderr, "npuctl: cannot read %s/connections: %s\n", pin_dir,
			strerror(-n));
		return -1;
	}
	return n;
}

/* @now - @then, 0 when @then is unset or ahead. */
static unsigned long long since(unsigned long long now, unsigned long long then)
{
	return then && now > then ? now - then : 0;
}

void npuctl_flow_of(struct npuctl_flow *f, __u32 id, const struct npuflow_conn *c,
		    unsigned long long now)
{
	int dir;

	memset(f, 0, sizeof(*f));
	f->id = id;
	f->c = c;
	for (dir = 0; dir < 2; dir++) {
		npuctl_ifname(c->key[dir].ifindex, f->in[dir]);
		if (c->out_ifindex[dir])
			npuctl_ifname(c->out_ifindex[dir], f->out[dir]);
	}
	f->age_ns = since(now, c->made_ns);
	f->idle_ns = since(now, c->last_used_ns);
}

int npuctl_read_fmstats(const char *pin_dir, struct npuflow_fmstats *st)
{
	__u32 zero = 0;
	int fd, rc;

	if (!npuctl_pinned(pin_dir, "fmstats"))
		return 1;
	fd = npuctl_open_pinned(pin_dir, "fmstats");
	if (fd < 0)
		return -1;
	rc = bpf_map_lookup_elem(fd, &zero, st);
	if (rc)
		fprintf(stderr, "npuctl: cannot read %s/fmstats: %s\n", pin_dir, strerror(errno));
	close(fd);
	return rc ? -1 : 0;
}

/* npuflowd's loop counters into @s when pinned and written (an older
 * npuflowd's pin set has none): s->have_loop set. */
static void read_loopstats(const char *pin_dir, struct npuctl_status *s, unsigned long long now)
{
	int fd = npuctl_open_optional(pin_dir, "loopstats");
	__u32 zero = 0;

	if (fd < 0)
		return;
	if (!bpf_map_lookup_elem(fd, &zero, &s->loop) && s->loop.updated_ns) {
		s->have_loop = 1;
		s->loop_updated_ns_ago = since(now, s->loop.updated_ns);
	}
	close(fd);
}

int npuctl_read_status(const char *pin_dir, const char *lock_file, struct npuctl_status *s)
{
	unsigned long long now = npuctl_mono_ns();
	char parent[512];
	int rc;

	memset(s, 0, sizeof(*s));
	s->pid = npuctl_daemon_pid(lock_file);
	s->bpffs = npuctl_pins_fs(pin_dir, parent, sizeof(parent));
	if (!s->bpffs) {
		if (!s->pid)
			return 3;
		fprintf(stderr, "npuctl: npuflowd runs (pid %d) but there is no BPF file "
			"system at %s here: its pins are in another mount namespace\n",
			s->pid, parent);
		return -1;
	}
	rc = npuctl_read_fmstats(pin_dir, &s->st);
	if (rc > 0 && !s->pid)
		return 3;	/* never ran here, or flushed (LSB: 3) */
	if (rc > 0)
		fprintf(stderr, "npuctl: cannot open %s/fmstats: %s (is npuflowd running, or "
			"has it run?)\n", pin_dir, strerror(ENOENT));
	if (rc)
		return -1;
	s->pinned = 1;
	s->uptime_ns = since(now, s->st.start_ns);
	s->updated_ns_ago = since(now, s->st.updated_ns);
	read_loopstats(pin_dir, s, now);
	return 0;
}
