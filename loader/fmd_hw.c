// SPDX-License-Identifier: GPL-2.0
/*
 * fmd_hw.c - npuflowd's rules one at a time (fmd_int.h): the clsact qdisc,
 * a direction's rule added or deleted, and --flush.  The writes of a
 * connection's two rules go in batches from fmd_make.c.
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/pkt_cls.h>
#include <linux/rtnetlink.h>
#include "fmd_int.h"
#include "fmd_egress.h"

int fmd_hw_clsact(struct fmd *d, uint32_t ifindex)
{
	int p = fmd_port_of(d, ifindex), rc;
	size_t n;

	if (p >= 0 && d->ports[p].clsact)
		return 0;
	n = tcfl_build_qdisc(d->tc.buf, d->tc.buflen, ifindex, nls_seq(&d->tc));
	rc = nls_talk(&d->tc, d->tc.buf, n, NULL, NULL);
	if (rc == -EEXIST)
		rc = 0;
	if (rc) {
		char b[IF_NAMESIZE];

		d->log(L_WARN, "%s: cannot add clsact qdisc: %s%s%s", fmd_ifn(ifindex, b),
		       strerror(-rc), d->tc.ext_ack[0] ? ": " : "", d->tc.ext_ack);
	} else if (p >= 0) {
		d->ports[p].clsact = 1;
	}
	return rc;
}

int fmd_hw_del_found(struct fmd *d, uint32_t ifindex, uint16_t prio, uint16_t proto,
		     uint32_t handle)
{
	char buf[512] __attribute__((aligned(8)));
	size_t n;
	int rc;

	n = tcfl_build_del(buf, sizeof(buf), ifindex, prio, proto, handle, nls_seq(&d->tc));
	rc = nls_talk(&d->tc, buf, n, NULL, NULL);
	if (rc == -ENOENT || rc == -EINVAL)	/* not there (EINVAL: no such tp) */
		return 0;
	if (rc)
		return rc;
	d->fm.stat[NPUFLOW_FM_HW_DELETES]++;
	return 1;
}

int fmd_hw_del_rule(struct fmd *d, uint32_t ifindex, uint16_t prio, uint16_t proto,
		    uint32_t handle)
{
	int rc = fmd_hw_del_found(d, ifindex, prio, proto, handle);

	return rc > 0 ? 0 : rc;
}

int fmd_hw_del_dir(struct fmd *d, const struct npuflow_conn *c, int dir)
{
	if (!c->hw_handle[dir] || !c->key[dir].ifindex)
		return 0;
	return fmd_hw_del_rule(d, c->key[dir].ifindex, tcfl_prio(&c->key[dir]),
			   tcfl_proto(&c->key[dir]), c->hw_handle[dir]);
}

void fmd_hw_delete(struct fmd *d, struct fm_entry *e)
{
	int dir, rc;

	for (dir = 0; dir < 2; dir++) {
		rc = fmd_hw_del_dir(d, &e->rec, dir);
		if (rc)
			d->log(L_WARN, "connection %u: cannot delete direction %d: %s",
			       (unsigned int)(e - d->fm.e), dir, strerror(-rc));
	}
	e->rec.flags &= ~(NPUFLOW_CONN_F_HW0 | NPUFLOW_CONN_F_HW1);
	e->dirty = 1;
}

/* Rules a sendmsg of fmd_hw_delete_many() carries (their acks stay well
 * within the socket's receive buffer). */
#define FMD_HW_DEL_BATCH	64

/* The @k deletes built in @buf (@len bytes, numbered from @seq0) sent; the
 * answers counted and logged as fmd_hw_del_rule() does. */
static void del_send(struct fmd *d, void *buf, size_t len, uint32_t seq0, int k)
{
	int rcs[FMD_HW_DEL_BATCH], i;

	nls_batch(&d->tc, buf, len, seq0, rcs, k);
	for (i = 0; i < k; i++) {
		if (!rcs[i])
			d->fm.stat[NPUFLOW_FM_HW_DELETES]++;
		else if (rcs[i] != -ENOENT && rcs[i] != -EINVAL)
			d->log(L_WARN, "rule delete failed: %s", strerror(-rcs[i]));
	}
}

void fmd_hw_delete_many(struct fmd *d, struct fm_entry *const *es, int n)
{
	size_t cap = FMD_HW_DEL_BATCH * 512, off = 0, m;
	char *buf = malloc(cap);
	uint32_t seq0 = 0;
	int i, dir, k = 0;

	for (i = 0; i < n; i++) {
		struct fm_entry *e = es[i];

		for (dir = 0; dir < 2; dir++) {
			const struct npuflow_conn *c = &e->rec;

			if (!c->hw_handle[dir] || !c->key[dir].ifindex)
				continue;
			if (!buf) {
				fmd_hw_del_dir(d, c, dir);
				continue;
			}
			m = tcfl_build_del(buf + off, cap - off, c->key[dir].ifindex,
					   tcfl_prio(&c->key[dir]), tcfl_proto(&c->key[dir]),
					   c->hw_handle[dir], nls_batch_seq(&d->tc));
			if (!nls_batch_take(&d->tc, m, &seq0, &k, &off)) {
				fmd_hw_del_dir(d, c, dir);
				continue;
			}
			if (k == FMD_HW_DEL_BATCH) {
				del_send(d, buf, off, seq0, k);
				k = 0;
				off = 0;
			}
		}
		e->rec.flags &= ~(NPUFLOW_CONN_F_HW0 | NPUFLOW_CONN_F_HW1);
		e->dirty = 1;
	}
	if (k)
		del_send(d, buf, off, seq0, k);
	free(buf);
}

/* After rule @r of @e's direction @dir was answered @rc: counted, logged. */
void fmd_hw_write_done(struct fmd *d, const struct fm_entry *e, int dir,
		       const struct tcfl_rule *r, int rc)
{
	if (!rc) {
		d->fm.stat[NPUFLOW_FM_HW_WRITES]++;
		if (d->o->log_level >= L_DBG) {
			char line[1024], a[IF_NAMESIZE], b[IF_NAMESIZE];

			tcfl_fmt(r, fmd_ifn(r->ifindex, a), fmd_ifn(r->out_ifindex, b), line, sizeof(line));
			d->log(L_DBG, "%s", line);
		}
	} else {
		d->log(rc == -ENOSPC ? L_INFO : L_WARN,
		       "connection %u direction %d: rule refused: %s%s%s",
		       (unsigned int)(e - d->fm.e), dir, strerror(-rc),
		       d->tc.ext_ack[0] ? ": " : "", d->tc.ext_ack);
	}
}

int fmd_hw_write_dir(struct fmd *d, struct fm_entry *e, int dir)
{
	struct tcfl_rule r;
	size_t n;
	int rc;

	tcfl_rule_from_conn(&e->rec, dir, d->tc_flags, &r);
	rc = fmd_hw_clsact(d, r.ifindex);
	if (rc)
		return rc;
	n = tcfl_build_add(d->tc.buf, d->tc.buflen, &r, nls_seq(&d->tc));
	if (!n)
		return -EINVAL;
	rc = nls_talk(&d->tc, d->tc.buf, n, NULL, NULL);
	if (rc == -EEXIST) {
		/* a leftover with our handle: replace it */
		fmd_hw_del_dir(d, &e->rec, dir);
		n = tcfl_build_add(d->tc.buf, d->tc.buflen, &r, nls_seq(&d->tc));
		rc = nls_talk(&d->tc, d->tc.buf, n, NULL, NULL);
	}
	fmd_hw_write_done(d, e, dir, &r, rc);
	return rc;
}

struct flush_ctx {
	struct nlsock *s;
	struct { uint32_t ifindex, handle, pp; } *r;
	uint32_t n, cap;
};

static int flush_cb(const struct nlmsghdr *nlh, void *data)
{
	struct flush_ctx *c = data;
	struct tcfl_info in;

	if (tcfl_parse(nlh, &in) || !in.handle || !tcfl_prio_ours(in.prio))
		return MNL_CB_OK;
	if (c->n == c->cap) {
		uint32_t nc = c->cap ? c->cap * 2 : 64;
		void *p = realloc(c->r, nc * sizeof(*c->r));

		if (!p)
			return MNL_CB_OK;
		c->r = p;
		c->cap = nc;
	}
	c->r[c->n].ifindex = in.ifindex;
	c->r[c->n].handle = in.handle;
	c->r[c->n++].pp = (uint32_t)in.prio << 16 | in.protocol;
	return MNL_CB_OK;
}

int fmd_flush_rules(fmd_log_fn log)
{
	struct if_nameindex *ifs = if_nameindex(), *i;
	struct flush_ctx c = { 0 };
	struct nlsock s;
	char buf[512] __attribute__((aligned(8)));
	uint32_t k, n = 0;

	if (nls_open(&s)) {
		if (ifs)
			if_freenameindex(ifs);
		return -1;
	}
	c.s = &s;
	for (i = ifs; i && i->if_index; i++) {
		size_t len = tcfl_build_dump(buf, sizeof(buf), i->if_index, nls_seq(&s), 1);

		nls_talk(&s, buf, len, flush_cb, &c);
	}
	for (k = 0; k < c.n; k++) {
		size_t len = tcfl_build_del(buf, sizeof(buf), c.r[k].ifindex, c.r[k].pp >> 16,
					    c.r[k].pp & 0xffff, c.r[k].handle, nls_seq(&s));

		if (!nls_talk(&s, buf, len, NULL, NULL))
			n++;
	}
	if (n)
		log(L_INFO, "removed %u flow rule(s)", n);
	free(c.r);
	nls_close(&s);
	if (ifs)
		if_freenameindex(ifs);
	return 0;
}
