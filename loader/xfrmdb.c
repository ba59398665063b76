// SPDX-License-Identifier: GPL-2.0
/*
 * xfrmdb.c - the host's IPsec out and fwd policies and the match of a
 * connection's directions against them (see xfrmdb.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include <libmnl/libmnl.h>
#include "nlsock.h"
#include "xfrmdb.h"

/* One attribute after the policy: templates, mark, interface id. */
static int pol_attr(const struct nlattr *a, struct xfrmdb_pol *p)
{
	switch (mnl_attr_get_type(a)) {
	case XFRMA_TMPL:
		if (mnl_attr_get_payload_len(a) < sizeof(struct xfrm_user_tmpl))
			return -1;
		p->transforms = 1;
		break;
	case XFRMA_MARK:
		if (mnl_attr_get_payload_len(a) != sizeof(p->mark))
			return -1;
		memcpy(&p->mark, mnl_attr_get_payload(a), sizeof(p->mark));
		break;
	case XFRMA_IF_ID:
		if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
			return -1;
		p->if_id = mnl_attr_get_u32(a);
		break;
	}
	return 0;
}

int xfrmdb_parse(const struct nlmsghdr *nlh, struct xfrmdb_pol *out)
{
	struct xfrm_userpolicy_info pi;
	size_t off = MNL_NLMSG_HDRLEN + MNL_ALIGN(sizeof(pi)), len;
	const struct nlattr *a;
	const char *attrs;

	memset(out, 0, sizeof(*out));
	if (nlh->nlmsg_type != XFRM_MSG_NEWPOLICY && nlh->nlmsg_type != XFRM_MSG_UPDPOLICY)
		return 1;
	if (nlh->nlmsg_len < MNL_NLMSG_HDRLEN + sizeof(pi))
		return -1;
	/* copied out: its lifetimes are 64-bit, netlink aligns messages to 4 */
	memcpy(&pi, mnl_nlmsg_get_payload(nlh), sizeof(pi));
	if (pi.dir != XFRM_POLICY_OUT && pi.dir != XFRM_POLICY_FWD)
		return 1;
	out->sel = pi.sel;
	out->priority = pi.priority;
	out->dir = pi.dir;
	out->action = pi.action;
	/* the attributes within nlmsg_len exactly */
	len = nlh->nlmsg_len > off ? nlh->nlmsg_len - off : 0;
	attrs = (const char *)nlh + off;
	for (a = (const struct nlattr *)attrs; mnl_attr_ok(a, attrs + len - (const char *)a);
	     a = mnl_attr_next(a))
		if (pol_attr(a, out))
			return -1;
	return 0;
}

int xfrmdb_parse_default(const struct nlmsghdr *nlh, struct xfrmdb *db)
{
	struct xfrm_userpolicy_default up;

	if (nlh->nlmsg_type != XFRM_MSG_GETDEFAULT ||
	    nlh->nlmsg_len < MNL_NLMSG_HDRLEN + sizeof(up))
		return -1;
	memcpy(&up, mnl_nlmsg_get_payload(nlh), sizeof(up));
	db->block[XFRM_POLICY_IN] = up.in == XFRM_USERPOLICY_BLOCK;
	db->block[XFRM_POLICY_FWD] = up.fwd == XFRM_USERPOLICY_BLOCK;
	db->block[XFRM_POLICY_OUT] = up.out == XFRM_USERPOLICY_BLOCK;
	return 0;
}

int xfrmdb_add(struct xfrmdb *db, const struct xfrmdb_pol *p)
{
	if (db->n == db->cap) {
		int nc = db->cap ? db->cap * 2 : 16;
		struct xfrmdb_pol *np = realloc(db->p, nc * sizeof(*np));

		if (!np)
			return -ENOMEM;
		db->p = np;
		db->cap = nc;
	}
	db->p[db->n++] = *p;
	return 0;
}

void xfrmdb_clear(struct xfrmdb *db)
{
	db->n = 0;
}

void xfrmdb_free(struct xfrmdb *db)
{
	free(db->p);
	memset(db, 0, sizeof(*db));
}

/* The first @plen bits of @a and @b (@alen bytes each) are equal. */
static int prefix_eq(const uint8_t *a, const uint8_t *b, unsigned int plen, unsigned int alen)
{
	unsigned int whole = plen / 8, rest = plen % 8;

	if (plen > alen * 8)
		return 0;
	if (memcmp(a, b, whole))
		return 0;
	return !rest || !((a[whole] ^ b[whole]) & (0xff << (8 - rest)));
}

/* As the kernel's __xfrm4/6_selector_match(). */
static int sel_match(const struct xfrm_selector *s, const struct npuflow_key *k,
		     uint32_t ifindex)
{
	unsigned int alen = k->family == 10 ? 16 : 4;

	return prefix_eq(k->daddr, (const uint8_t *)&s->daddr, s->prefixlen_d, alen) &&
	       prefix_eq(k->saddr, (const uint8_t *)&s->saddr, s->prefixlen_s, alen) &&
	       !((k->dport ^ s->dport) & s->dport_mask) &&
	       !((k->sport ^ s->sport) & s->sport_mask) &&
	       (!s->proto || s->proto == k->proto) &&
	       (!s->ifindex || (uint32_t)s->ifindex == ifindex);
}

int xfrmdb_protects(const struct xfrmdb *db, const struct npuflow_key *k, uint32_t ifindex,
		    int dir)
{
	uint16_t af = k->family == 10 ? AF_INET6 : AF_INET;
	const struct xfrmdb_pol *best = NULL;
	int i;

	if (!db->loaded)
		return 1;
	for (i = 0; i < db->n; i++) {
		const struct xfrmdb_pol *p = &db->p[i];

		if (p->dir != dir || p->sel.family != af || p->if_id ||
		    (0 & p->mark.m) != p->mark.v || !sel_match(&p->sel, k, ifindex))
			continue;
		/* the lowest priority wins; of equals, the older: dumps come
		 * newest first, so the later listed
		 */
		if (!best || p->priority <= best->priority)
			best = p;
	}
	if (!best)
		return dir < XFRM_POLICY_MAX && db->block[dir];
	return best->transforms || best->action == XFRM_POLICY_BLOCK;
}

int xfrmdb_conn_protected(const struct xfrmdb *db, const struct npuflow_key *in,
			  const struct npuflow_key *out, uint32_t oif)
{
	return xfrmdb_protects(db, in, oif, XFRM_POLICY_FWD) ||
	       xfrmdb_protects(db, out, oif, XFRM_POLICY_FWD) ||
	       xfrmdb_protects(db, in, oif, XFRM_POLICY_OUT) ||
	       xfrmdb_protects(db, out, oif, XFRM_POLICY_OUT);
}

static int dump_cb(const struct nlmsghdr *nlh, void *data)
{
	struct xfrmdb_pol p;
	int rc = xfrmdb_parse(nlh, &p);

	if (rc < 0) {
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	if (!rc && xfrmdb_add(data, &p)) {
		errno = ENOMEM;
		return MNL_CB_ERROR;
	}
	return MNL_CB_OK;
}

static int default_cb(const struct nlmsghdr *nlh, void *data)
{
	if (xfrmdb_parse_default(nlh, data)) {
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	return MNL_CB_OK;
}

/* The default policies: accept where the kernel has no GETDEFAULT. */
static int load_defaults(struct xfrmdb *db, struct nlsock *s)
{
	char buf[64] __attribute__((aligned(8)));
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	int rc;

	memset(db->block, 0, sizeof(db->block));
	nlh->nlmsg_type = XFRM_MSG_GETDEFAULT;
	nlh->nlmsg_flags = NLM_F_REQUEST;
	nlh->nlmsg_seq = nls_seq(s);
	mnl_nlmsg_put_extra_header(nlh, sizeof(struct xfrm_userpolicy_default));
	rc = nls_talk(s, nlh, nlh->nlmsg_len, default_cb, db);
	return rc == -EOPNOTSUPP || rc == -EINVAL ? 0 : rc;
}

int xfrmdb_load(struct xfrmdb *db, struct nlsock *s)
{
	char buf[64] __attribute__((aligned(8)));
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	int rc;

	xfrmdb_clear(db);
	db->loaded = 0;
	nlh->nlmsg_type = XFRM_MSG_GETPOLICY;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	nlh->nlmsg_seq = nls_seq(s);
	rc = nls_talk(s, nlh, nlh->nlmsg_len, dump_cb, db);
	if (!rc)
		rc = load_defaults(db, s);
	if (rc)
		xfrmdb_clear(db);
	db->loaded = !rc;
	return rc;
}
