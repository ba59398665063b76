// SPDX-License-Identifier: GPL-2.0
/*
 * fmd_keepalive.c - npuflowd's keepalive (see fmd_keepalive.h).
 *
 * The hardware forwards a made connection's frames without conntrack
 * seeing them, so conntrack would expire the entry a timeout after the
 * host's last frame.  Keepalive reads the rules' counters (one terse dump
 * of every port's rules: driver-side they come from the statistics area's
 * shadow, no command per rule) and sets the conntrack timeout of each
 * connection whose counters moved, as the host's own frames would.  Its
 * cost grows with what is held, so it is paced by it: at most
 * 1/FM_PACE_SHARE of the loop, never later than a quarter of the shortest
 * timeout of a class made (fm_keepalive_bound()); the refreshes and the
 * pinned map's records go in batches, not a system call each.  A run whose
 * dumps take longer than FMD_KA_STEP_NS (32,768 rules: 1.4-2.7 s under
 * TCG) is read in steps of about that, spread over the run's share of the
 * loop (struct fmd_ka_run), so that no second of the loop pays for it all
 * (a run whose last one, refreshes included, took FMD_KA_STEP_NS or more).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "fmd_int.h"
#include "fmd_keepalive.h"
#include "tcflower.h"

/* conntrack's timeouts are read again at most this often */
#define FMD_TIMEOUTS_NS		(1000ull * 1000000)
/* refresh requests per sendmsg (their acks, about 768 bytes of the socket's
 * receive buffer each, stay well within its default 208 KiB: 256 overran
 * it), records per bpf_map_update_batch() */
#define FMD_KA_CT_BATCH		64
#define FMD_KA_CT_BUF		(FMD_KA_CT_BATCH * 256 + 512)
#define FMD_KA_MAP_BATCH	1024
/* a stepped run reads its dumps for about this long a step */
#define FMD_KA_STEP_NS		(10ull * 1000000)

/* conntrack's TCP established and UDP stream timeouts, and their defaults */
static const char *const timeout_path[2] = {
	"/proc/sys/net/netfilter/nf_conntrack_tcp_timeout_established",
	"/proc/sys/net/netfilter/nf_conntrack_udp_timeout_stream",
};
static const uint32_t timeout_dflt[2] = { 432000, 120 };

/* Sysctl @i's value, read again through its file kept open (a pread: one
 * system call a read, not an open, a stat, a read and a close), opened when
 * it is not yet: its default when it cannot be read. */
static uint32_t read_sysctl(struct fmd *d, int i)
{
	char buf[24];
	unsigned long v;
	char *end;
	ssize_t n;

	if (d->timeout_fd[i] < 0)
		d->timeout_fd[i] = open(timeout_path[i], O_RDONLY | O_CLOEXEC);
	n = d->timeout_fd[i] < 0 ? -1 : pread(d->timeout_fd[i], buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return timeout_dflt[i];
	buf[n] = 0;
	v = strtoul(buf, &end, 10);
	return end == buf || v > UINT32_MAX ? timeout_dflt[i] : (uint32_t)v;
}

void fmd_read_timeouts(struct fmd *d)
{
	d->tcp_timeout = read_sysctl(d, 0);
	d->udp_timeout = read_sysctl(d, 1);
}

static uint32_t class_of(const struct npuflow_key *k)
{
	return k->proto == 6 ? FM_CLASS_TCP : FM_CLASS_UDP;
}

static uint32_t timeout_of(const struct fmd *d, const struct npuflow_key *k)
{
	return k->proto == 6 ? d->tcp_timeout : d->udp_timeout;
}

/* --- the dump of our rules ------------------------------------------------ */

static int push(uint32_t **arr, uint32_t *n, uint32_t *cap, uint32_t v)
{
	if (*n == *cap) {
		uint32_t nc = *cap ? *cap * 2 : 64, *p = realloc(*arr, nc * sizeof(*p));

		if (!p)
			return -1;
		*arr = p;
		*cap = nc;
	}
	(*arr)[(*n)++] = v;
	return 0;
}

static void push_orphan(struct fmd_ka_dump *c, const struct tcfl_info *in)
{
	if (c->norphans == c->cap) {
		uint32_t nc = c->cap ? c->cap * 2 : 64;
		struct fmd_ka_orphan *o = realloc(c->orph, nc * sizeof(*o));

		if (!o)
			return;
		c->orph = o;
		c->cap = nc;
	}
	c->orph[c->norphans].handle = in->handle;
	c->orph[c->norphans++].prio_proto = (uint32_t)in->prio << 16 | in->protocol;
}

/* The connection whose direction *@dir owns rule @handle at @prio on
 * @ifindex (made with that rule written), or NULL. */
static struct fm_entry *rule_owner(struct fmd *d, uint32_t ifindex, uint16_t prio,
				   uint32_t handle, int *dir)
{
	struct fm_entry *e;
	uint32_t id;

	tcfl_handle_split(handle, &id, dir);
	e = fm_get(&d->fm, id);
	if (!e || !(e->rec.flags & (*dir ? NPUFLOW_CONN_F_HW1 : NPUFLOW_CONN_F_HW0)) ||
	    e->rec.hw_handle[*dir] != handle || e->rec.key[*dir].ifindex != ifindex ||
	    tcfl_prio(&e->rec.key[*dir]) != prio)
		return NULL;
	return e;
}

static int dump_cb(const struct nlmsghdr *nlh, void *data)
{
	struct fmd_ka_dump *c = data;
	struct fmd *d = c->d;
	struct tcfl_info in;
	struct fm_entry *e;
	uint32_t id;
	int dir;

	if (tcfl_parse(nlh, &in) || !in.handle || !tcfl_prio_ours(in.prio))
		return MNL_CB_OK;
	c->nrules++;
	e = rule_owner(d, in.ifindex, in.prio, in.handle, &dir);
	if (e && c->filled_ns && e->rec.made_ns > c->filled_ns)
		return MNL_CB_OK;	/* its id's last holder's rule, gone since */
	id = e ? (uint32_t)(e - d->fm.e) : 0;
	if (!e || (c->present && (c->present[id] & (1 << dir)))) {
		push_orphan(c, &in);
		return MNL_CB_OK;
	}
	if (c->present)
		c->present[id] |= 1 << dir;
	if (in.have_stats) {
		uint64_t age = in.lastuse_ms * 1000000ull;

		if (fm_hw_stats(&d->fm, id, dir, in.packets, in.bytes,
				!in.have_lastuse ? 0 : c->now > age ? c->now - age : 0, c->now))
			push(&c->refresh, &c->nrefresh, &c->rcap, id);
	}
	return MNL_CB_OK;
}

/*
 * The rules of @ifindex's dump that no connection owned, deleted.  After a
 * stepped dump, one that a connection owns by now is kept (made between
 * the steps: its rule is not the orphan's, which a write would have met),
 * and one already gone is none (a datagram the kernel filled before a
 * connection was taken out between the steps still lists its rules).
 */
static void delete_orphans(struct fmd *d, struct fmd_ka_dump *c, uint32_t ifindex, int stepped)
{
	uint32_t i;
	int dir;

	for (i = 0; i < c->norphans; i++) {
		uint16_t prio = c->orph[i].prio_proto >> 16;

		if (stepped && rule_owner(d, ifindex, prio, c->orph[i].handle, &dir))
			continue;
		if (fmd_hw_del_found(d, ifindex, prio, c->orph[i].prio_proto & 0xffff,
				     c->orph[i].handle) > 0) {
			d->fm.stat[NPUFLOW_FM_HW_ORPHANS]++;
			d->log(L_WARN, "if%u: deleted orphan rule handle %u prio %u", ifindex,
			       c->orph[i].handle, prio);
		}
	}
	c->norphans = 0;
}

static void dump_error(struct fmd *d, uint32_t ifindex, int rc)
{
	if (rc && rc != -EINVAL && rc != -ENOENT)
		d->log(L_DBG, "if%u: filter dump: %s", ifindex, strerror(-rc));
}

/* @terse: keepalive's dump (counters, no matches: tcfl_build_dump). */
static void dump_port(struct fmd *d, struct fmd_ka_dump *c, uint32_t ifindex, int terse)
{
	char buf[512] __attribute__((aligned(8)));
	size_t n = tcfl_build_dump(buf, sizeof(buf), ifindex, nls_seq(&d->tc), terse);

	c->norphans = 0;
	dump_error(d, ifindex, nls_talk(&d->tc, buf, n, dump_cb, c));
	delete_orphans(d, c, ifindex, 0);
}

static void dump_all(struct fmd *d, struct fmd_ka_dump *c, int terse)
{
	int p;

	for (p = 0; p < d->nports; p++)
		dump_port(d, c, d->ports[p].ifindex, terse);
}

void fmd_rules_dump(struct fmd *d, uint8_t *present, uint64_t now)
{
	struct fmd_ka_dump c = { .d = d, .now = now, .present = present };

	dump_all(d, &c, 0);
	free(c.orph);
	free(c.refresh);
}

/* --- conntrack timeouts out ----------------------------------------------- */

/* One refresh, without the batch socket. */
static void refresh_one(struct fmd *d, struct fm_entry *e, uint64_t now)
{
	uint32_t to = timeout_of(d, &e->rec.key[0]);

	if (!ctc_set_timeout(&d->ct, &e->rec.key[0], e->rec.zone, to)) {
		d->fm.stat[NPUFLOW_FM_CT_REFRESH]++;
		d->ka_refreshed++;
		e->ct_refresh_ns = now;
		e->ct_refresh_s = to;
	}
}

/* The @n refreshes built in @buf (@len bytes, numbered from @seq0) for @ids, sent. */
static void refresh_send(struct fmd *d, void *buf, size_t len, uint32_t seq0,
			 const uint32_t *ids, int n, uint64_t now)
{
	int rcs[FMD_KA_CT_BATCH], i;

	nls_batch(&d->wq.ctb, buf, len, seq0, rcs, n);
	for (i = 0; i < n; i++) {
		if (rcs[i]) {	/* gone meanwhile: its DESTROY takes it out */
			d->log(L_DBG, "connection %u: conntrack refresh: %s", (unsigned int)ids[i],
			       strerror(rcs[i] > 0 ? EIO : -rcs[i]));
			continue;
		}
		d->fm.stat[NPUFLOW_FM_CT_REFRESH]++;
		d->ka_refreshed++;
		d->fm.e[ids[i]].ct_refresh_ns = now;
		d->fm.e[ids[i]].ct_refresh_s = timeout_of(d, &d->fm.e[ids[i]].rec.key[0]);
	}
}

/* The refreshes due among @c's moved connections, FMD_KA_CT_BATCH a sendmsg. */
static void refresh_moved(struct fmd *d, const struct fmd_ka_dump *c, uint64_t now)
{
	char *buf = d->wq.ctb.nl && c->nrefresh ? malloc(FMD_KA_CT_BUF) : NULL;
	uint32_t ids[FMD_KA_CT_BATCH], seq0 = 0, i;
	size_t off = 0, m;
	int k = 0;

	for (i = 0; i < c->nrefresh; i++) {
		struct fm_entry *e = fm_get(&d->fm, c->refresh[i]);

		if (!e || e->rec.state != NPUFLOW_CS_MADE ||
		    !fm_ct_refresh_due(e, timeout_of(d, &e->rec.key[0]), now))
			continue;
		if (!buf) {
			refresh_one(d, e, now);
			continue;
		}
		m = ctc_build_timeout(buf + off, FMD_KA_CT_BUF - off, &e->rec.key[0], e->rec.zone,
				      timeout_of(d, &e->rec.key[0]), nls_batch_seq(&d->wq.ctb));
		if (!nls_batch_take(&d->wq.ctb, m, &seq0, &k, &off)) {
			refresh_one(d, e, now);
			continue;
		}
		ids[k - 1] = c->refresh[i];
		if (k == FMD_KA_CT_BATCH || FMD_KA_CT_BUF - off < 512) {
			refresh_send(d, buf, off, seq0, ids, k, now);
			k = 0;
			off = 0;
		}
	}
	if (k)
		refresh_send(d, buf, off, seq0, ids, k, now);
	free(buf);
}

/* --- the pinned map's records, in batches ---------------------------------- */

static void sync_batch(struct fmd *d, uint32_t *ids, struct npuflow_conn *recs, uint32_t n)
{
	DECLARE_LIBBPF_OPTS(bpf_map_batch_opts, opts);
	uint32_t count = n, i;

	if (!d->ka_no_batch && !bpf_map_update_batch(d->conn_fd, ids, recs, &count, &opts)) {
		for (i = 0; i < n; i++)
			d->fm.e[ids[i]].dirty = 0;
		return;
	}
	if (!d->ka_no_batch && (errno == EINVAL || errno == ENOTSUP || errno == EOPNOTSUPP)) {
		d->ka_no_batch = 1;
		d->log(L_INFO, "connections map: no batch update (%s): a record at a time",
		       strerror(errno));
	}
	for (i = 0; i < n; i++)	/* what the batch left (count: done), or a kernel without */
		if (d->fm.e[ids[i]].dirty)
			fmd_sync_id(d, ids[i]);
}

/* Every made connection whose record changed into the pinned map, in
 * batches of at most as many records as are made; the classes made into
 * d->ka_classes. */
static void sync_made(struct fmd *d)
{
	uint32_t made = d->fm.nstate[NPUFLOW_CS_MADE];
	uint32_t cap = made < FMD_KA_MAP_BATCH ? made : FMD_KA_MAP_BATCH;
	struct npuflow_conn *recs = cap ? malloc(cap * sizeof(*recs)) : NULL;
	uint32_t ids[FMD_KA_MAP_BATCH], i, n = 0, classes = 0;

	for (i = 0; i < fm_id_end(&d->fm); i++) {
		struct fm_entry *e = &d->fm.e[i];

		if (e->rec.state != NPUFLOW_CS_MADE)
			continue;
		classes |= class_of(&e->rec.key[0]);
		if (!e->dirty)
			continue;
		if (!recs) {
			fmd_sync_id(d, i);
			continue;
		}
		ids[n] = i;
		recs[n++] = e->rec;
		if (n == cap) {
			sync_batch(d, ids, recs, n);
			n = 0;
		}
	}
	if (n)
		sync_batch(d, ids, recs, n);
	free(recs);
	d->ka_classes = classes;
}

/* --- the pass and its pace -------------------------------------------------- */

static void ka_account(struct fmd *d, uint64_t took)
{
	d->ka_ns += took;
	d->ka_total_ns += took;
}

/* The dumps read: the refreshes due, the records, the run counted. */
static void keepalive_end(struct fmd *d, struct fmd_ka_dump *c, uint64_t now)
{
	uint64_t t1 = fmd_now();

	refresh_moved(d, c, now);
	d->ka_ct_ns += fmd_now() - t1;
	sync_made(d);
	d->ka.rules_seen = c->nrules;
	c->nrefresh = 0;
	c->nrules = 0;
	d->ka_runs++;
	ka_account(d, fmd_now() - t1);
}

/* A run in one go (it took less than a step the last time). */
static void keepalive(struct fmd *d, uint64_t now)
{
	struct fmd_ka_dump *c = &d->ka.c;
	uint64_t t0 = fmd_now(), t1;

	c->d = d;
	c->now = now;
	dump_all(d, c, 1);
	t1 = fmd_now();
	d->ka_dump_ns += t1 - t0;
	ka_account(d, t1 - t0);
	keepalive_end(d, c, now);
	d->ka.last_ns = fmd_now() - t0;
}

static uint64_t bound_now(const struct fmd *d)
{
	return fm_keepalive_bound(d->tcp_timeout, d->udp_timeout, d->ka_classes);
}

/* A fiftieth of the loop while the eviction pass needs the made
 * connections' rates, a hundredth otherwise. */
static uint32_t pace_share(const struct fmd *d)
{
	return fm_busy_waiting(&d->fm, fmd_now()) ? FM_PACE_SHARE : FM_PACE_SHARE_QUIET;
}

/* --- a run in steps ----------------------------------------------------------- */

/* Port @p's terse dump asked on keepalive's socket: 0, or -errno. */
static int step_port_begin(struct fmd *d, struct fmd_ka_run *r, int p)
{
	char buf[512] __attribute__((aligned(8)));
	size_t n;

	r->port = p;
	r->c.norphans = 0;
	r->seq = nls_seq(&d->katc);
	n = tcfl_build_dump(buf, sizeof(buf), d->ports[p].ifindex, r->seq, 1);
	r->c.filled_ns = fmd_now();
	return nls_send(&d->katc, buf, n);
}

/* The next port's dump asked (a port whose request fails is passed over):
 * 1 when no port is left. */
static int step_next_port(struct fmd *d, struct fmd_ka_run *r)
{
	int p, rc;

	for (p = r->port + 1; p < d->nports; p++) {
		rc = step_port_begin(d, r, p);
		if (!rc)
			return 0;
		dump_error(d, d->ports[p].ifindex, rc);
	}
	r->port = d->nports;
	return 1;
}

/* The run's dumps read for about FMD_KA_STEP_NS: 1 once every port's is. */
static int step(struct fmd *d, struct fmd_ka_run *r, uint64_t now)
{
	uint64_t t0 = fmd_now();
	uint32_t ifindex;
	int rc;

	r->c.now = now;
	while (r->port < d->nports) {
		rc = nls_read_step(&d->katc, r->seq, dump_cb, &r->c);
		r->c.filled_ns = fmd_now();
		if (rc < 0 && fmd_nls_reset(d, &d->katc, NETLINK_ROUTE))
			return 1;	/* no socket: the run ends here */
		if (rc == 1) {
			if (fmd_now() - t0 >= FMD_KA_STEP_NS)
				return 0;
			continue;
		}
		ifindex = d->ports[r->port].ifindex;
		dump_error(d, ifindex, rc);
		delete_orphans(d, &r->c, ifindex, 1);
		if (step_next_port(d, r))
			break;
	}
	return 1;
}

/* The gap after a step that took @took: the run keeps to its share of the
 * loop, and ends within keepalive's bound (fm_pace_gap()). */
static uint64_t step_gap(const struct fmd *d, uint64_t took)
{
	return fm_pace_gap(took, pace_share(d), d->ka.last_ns, bound_now(d));
}

/*
 * The stepped run's next step, then its gap; steps in a row while the gap
 * is shorter than a tick (the loop cannot wait less: a run its bound leaves
 * no room to spread is read on, as keepalive_begin() would read it in one
 * go); the run's end when it is the last.
 */
static void step_run(struct fmd *d, uint64_t now)
{
	struct fmd_ka_run *r = &d->ka;
	uint64_t t0, took, gap;
	int done;

	do {
		t0 = fmd_now();
		done = step(d, r, now);
		took = fmd_now() - t0;
		d->ka_dump_ns += took;
		ka_account(d, took);
		r->spent_ns += took;
		gap = done ? 0 : step_gap(d, took);
	} while (!done && gap < FMD_TICK_NS);
	if (!done) {
		r->next_ns = fm_sat_add(fmd_now(), gap);
		return;
	}
	t0 = fmd_now();
	keepalive_end(d, &r->c, now);
	r->spent_ns += fmd_now() - t0;
	r->last_ns = r->spent_ns;
	r->port = -1;
}

/*
 * A run begins: in steps when the last one took a step or more, spread at
 * its share it would still end within keepalive's bound (a class with a
 * short timeout, a UDP stream's cut to seconds, is read in one go as
 * before: its refreshes come at the run's end), and keepalive's socket is
 * open; else in one go.
 */
static void keepalive_begin(struct fmd *d, uint64_t now)
{
	struct fmd_ka_run *r = &d->ka;

	r->writes_at = d->fm.stat[NPUFLOW_FM_HW_WRITES];
	r->c.nrules = 0;
	r->c.d = d;
	r->start_ns = now;
	r->spent_ns = 0;
	r->c.filled_ns = 0;
	if (!d->katc.nl || r->last_ns < FMD_KA_STEP_NS ||
	    bound_now(d) / r->last_ns < pace_share(d)) {
		keepalive(d, now);
		return;
	}
	r->port = -1;
	if (step_next_port(d, r))
		r->port = -1;	/* no port's dump could be asked: nothing to read */
	else
		step_run(d, now);
}

/* After a run: the next one's start, @took the run's time since @start; a
 * pace longer than --keepalive-ms is logged (debug) when it begins and
 * when it ends. */
static void keepalive_paced(struct fmd *d, uint64_t start, uint64_t took)
{
	uint64_t gap;
	int stretched;

	d->ka.paced_start = start;
	d->ka.paced_took = took;
	d->ka.paced_share = pace_share(d);
	d->next_keepalive_ns = fm_pace_next_share(start, d->o->keepalive_ns, took,
						  bound_now(d), d->ka.paced_share);
	gap = d->next_keepalive_ns - start;
	stretched = gap > d->o->keepalive_ns;
	if (stretched && !d->ka_stretched)
		d->log(L_DBG, "keepalive: its run took %.0f ms; every %.1f s from now on, at most "
		       "1/%u of the loop", took / 1e6, gap / 1e9, d->ka.paced_share);
	else if (!stretched && d->ka_stretched)
		d->log(L_DBG, "keepalive: every %.1f s again", d->o->keepalive_ns / 1e9);
	d->ka_stretched = stretched;
}

/*
 * Keepalive's bound fell to @bound at @now (a class with a shorter timeout
 * made, an operator's cut): the next run no later than @bound after @now,
 * and a run in steps goes on at once, its gaps from then on set by the new
 * bound (step_gap()): the gap it waits in was set under the old one (a
 * class of days: up to a hundred steps' time, seconds under load), and a
 * connection of the new class expires if the run's refreshes come after
 * its timeout.
 */
static void pull_in(struct fmd *d, uint64_t now, uint64_t bound)
{
	if (bound == UINT64_MAX)
		return;
	if (now + bound < d->next_keepalive_ns)
		d->next_keepalive_ns = now + bound;
	if (d->ka.port >= 0 && d->ka.next_ns > now)
		d->ka.next_ns = now;
}

void fmd_keepalive_restored(struct fmd *d, struct fm_entry *e, uint32_t left_s, uint64_t now)
{
	if (e->ct_refresh_ns || (uint64_t)left_s * 2 < timeout_of(d, &e->rec.key[0]))
		return;
	e->ct_refresh_ns = now;
	e->ct_refresh_s = left_s;
}

void fmd_keepalive_made(struct fmd *d, struct fm_entry *e, uint64_t now)
{
	uint32_t cl = class_of(&e->rec.key[0]);

	/* the host's frames up to the make set its timeout (the lookup read
	 * what was left of it: ct_refresh_s): the first refresh is due a
	 * quarter of that later, not at the next keepalive */
	e->ct_refresh_ns = now;

	if (d->ka_classes & cl)
		return;
	d->ka_classes |= cl;
	pull_in(d, now, bound_now(d));
}

/*
 * A waiting connection turned busy since the last run was paced at the
 * quiet share: the next run comes when the busy share would have put it
 * (the eviction pass ranks the made connections by the rates it reads).
 */
static void repace_busy(struct fmd *d)
{
	uint64_t next;

	if (d->ka.paced_share != FM_PACE_SHARE_QUIET || pace_share(d) == FM_PACE_SHARE_QUIET)
		return;
	d->ka.paced_share = FM_PACE_SHARE;
	next = fm_pace_next_share(d->ka.paced_start, d->o->keepalive_ns, d->ka.paced_took,
				  bound_now(d), FM_PACE_SHARE);
	if (next < d->next_keepalive_ns)
		d->next_keepalive_ns = next;
}

/*
 * Whether a run would read nothing: no connection is made, the last run
 * saw no rule of ours and none was written since (a rule only comes from
 * a write; an orphan a failed delete leaves was seen by the run that
 * followed its write, and keeps the runs going until one deletes it).  A
 * run then costs nothing, not a dump of every port each period.
 */
static int nothing_to_read(const struct fmd *d)
{
	return !d->fm.nstate[NPUFLOW_CS_MADE] && !d->ka.rules_seen &&
	       d->fm.stat[NPUFLOW_FM_HW_WRITES] == d->ka.writes_at;
}

void fmd_keepalive_tick(struct fmd *d, uint64_t now)
{
	if (now >= d->next_timeouts_ns) {
		uint32_t tcp = d->tcp_timeout, udp = d->udp_timeout;

		d->next_timeouts_ns = now + FMD_TIMEOUTS_NS;
		fmd_read_timeouts(d);
		if (d->tcp_timeout < tcp || d->udp_timeout < udp)
			pull_in(d, now, bound_now(d));
	}
	if (d->ka.port >= 0) {
		if (now < d->ka.next_ns)
			return;
		step_run(d, now);
		if (d->ka.port < 0)
			keepalive_paced(d, d->ka.start_ns, d->ka.spent_ns);
		return;
	}
	repace_busy(d);
	if (now < d->next_keepalive_ns)
		return;
	if (nothing_to_read(d)) {
		d->next_keepalive_ns = fm_sat_add(now, d->o->keepalive_ns);
		return;
	}
	keepalive_begin(d, now);
	if (d->ka.port < 0)
		keepalive_paced(d, now, d->ka.last_ns);
}

void fmd_keepalive_init(struct fmd *d)
{
	memset(&d->ka, 0, sizeof(d->ka));
	d->ka.port = -1;
	if (nls_open(&d->katc))
		d->log(L_WARN, "cannot open keepalive's rtnetlink socket (%s): each run in one go",
		       strerror(errno));
}

void fmd_keepalive_fini(struct fmd *d)
{
	int i;

	for (i = 0; i < 2; i++) {
		if (d->timeout_fd[i] >= 0)
			close(d->timeout_fd[i]);
		d->timeout_fd[i] = -1;
	}
	nls_close(&d->katc);
	free(d->ka.c.orph);
	free(d->ka.c.refresh);
	memset(&d->ka, 0, sizeof(d->ka));
	d->ka.port = -1;
}
