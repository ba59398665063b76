// SPDX-License-Identifier: GPL-2.0
/*
 * ft_pure.c - the coprocessor model's fast path (see ft_pure.h).
 *
 * The decision for a frame the parser classified as a flow miss or a TCP
 * control frame, in this order:
 *   - no microflow matches                  -> punt FLOW_MISS (or TCP_FLAGS)
 *   - TCP SYN/FIN/RST                       -> punt TCP_FLAGS, with the index
 *   - the connection is not active (given
 *     back) and its microflows expired     -> microflows removed, FLOW_MISS
 *   - the connection is not active          -> punt NOT_ACTIVE, with the index
 *   - the fast path is off                  -> punt FASTPATH_OFF, with the index
 *   - larger than the egress MTU            -> punt MTU, with the index
 *   - TTL <= 1 on a routed direction, or a
 *     session pushed onto the one the frame
 *     keeps                                 -> punt EXCEPTION, with the index
 *   - a TCP retransmit past the threshold   -> give back, punt NOT_ACTIVE
 *   - otherwise forward: counters (the IP packets' bytes, npu_hw.h), last
 *     used, rewrite by the caller.
 *
 * The rewrite of a forwarded frame (npusim_ft_rewrite(), then
 * npusim_ft_l2_rewrite()) is in rewrite_pure.c.
 *
 * The give-back and expiry rules reproduce seed 004 (a connection that
 * retransmits is let go; its microflows' identities expire a few seconds
 * later; the same create command, sent again with no microflow, revives it).
 */
#include "ft_pure.h"

#define NPUSIM_IPPROTO_TCP	6
#define NPUSIM_IPPROTO_UDP	17

#define NPUSIM_FT_RW_L2		(NPU_RW_L2_POP2 | NPU_RW_L2_PPPOE_POP | \
				 NPU_RW_L2_PUSH2 | NPU_RW_L2_AD1 |      \
				 NPU_RW_L2_AD2 | NPU_RW_L2_PPPOE_PUSH)

static u32 npusim_ft_rol32(u32 w, unsigned int s)
{
	return (w << s) | (w >> (32 - s));
}

/* A 32-bit hash of the key's 48 bytes (murmur3's mixing of 32-bit words). */
static u32 npusim_ft_hash(const struct npu_mflow_key *key)
{
	const u8 *p = (const u8 *)key;
	u32 h = 0x9747b28c;
	u32 i;

	for (i = 0; i + 4 <= sizeof(*key); i += 4) {
		u32 k = (u32)p[i] | (u32)p[i + 1] << 8 | (u32)p[i + 2] << 16 |
			(u32)p[i + 3] << 24;

		k *= 0xcc9e2d51;
		k = npusim_ft_rol32(k, 15);
		k *= 0x1b873593;
		h ^= k;
		h = npusim_ft_rol32(h, 13);
		h = h * 5 + 0xe6546b64;
	}
	h ^= sizeof(*key);
	h ^= h >> 16;
	h *= 0x85ebca6b;
	h ^= h >> 13;
	h *= 0xc2b2ae35;
	h ^= h >> 16;
	return h;
}

static bool npusim_ft_key_eq(const struct npu_mflow_key *a,
			     const struct npu_mflow_key *b)
{
	return !memcmp(a, b, sizeof(*a));
}

/**
 * npusim_ft_clock_ms() - the device clock, as NPU_FT_STATS_CLOCK reads it
 * @now_ns: the model's clock, ns
 *
 * Return: @now_ns in ms, modulo 2^32 (struct npu_conn_stats_entry.last_ms).
 */
u32 npusim_ft_clock_ms(u64 now_ns)
{
	return (u32)(now_ns / 1000000);
}

static struct npu_conn_stats_entry *
npusim_ft_entry(struct npusim_ft *ft, u32 conn)
{
	return ft->area && conn < ft->area_n ? &ft->area[conn] : NULL;
}

/*
 * Write @conn's whole entry afresh (the connection made, or the area
 * enabled).  The entry reads FREE while it changes and takes its revision
 * last, so that a host reading it meanwhile sees the state or the revision
 * move and skips it (npu_hw.h).
 */
static void npusim_ft_area_fresh(struct npusim_ft *ft, u32 conn)
{
	struct npu_conn_stats_entry *e = npusim_ft_entry(ft, conn);
	const struct npusim_ft_conn *c = &ft->conns[conn];
	int d;

	if (!e)
		return;
	WRITE_ONCE(e->state, NPU_CONN_FREE);
	/* FREE is seen before anything of the new entry */
	smp_wmb();
	WRITE_ONCE(e->conn, cpu_to_le32(conn));
	WRITE_ONCE(e->giveback, c->giveback);
	for (d = 0; d < 2; d++) {
		WRITE_ONCE(e->packets[d], cpu_to_le64(c->packets[d]));
		WRITE_ONCE(e->bytes[d], cpu_to_le64(c->bytes[d]));
	}
	WRITE_ONCE(e->last_ms, cpu_to_le32(npusim_ft_clock_ms(c->last_used_ns)));
	WRITE_ONCE(e->rsvd, 0);
	/* the counters are seen before the revision they count for ... */
	smp_wmb();
	WRITE_ONCE(e->rev, cpu_to_le16(c->rev));
	/* ... and the revision before the state that validates it */
	smp_wmb();
	WRITE_ONCE(e->state, c->state);
}

/*
 * A frame of direction @d of @conn was forwarded: its counters and last
 * use, with the identity fields as they are (the entry is written back
 * whole, as a PPE writes its entry back).
 */
static void npusim_ft_area_count(struct npusim_ft *ft, u32 conn, u8 d)
{
	struct npu_conn_stats_entry *e = npusim_ft_entry(ft, conn);
	const struct npusim_ft_conn *c = &ft->conns[conn];

	if (!e)
		return;
	WRITE_ONCE(e->conn, cpu_to_le32(conn));
	WRITE_ONCE(e->rev, cpu_to_le16(c->rev));
	WRITE_ONCE(e->state, c->state);
	WRITE_ONCE(e->packets[d], cpu_to_le64(c->packets[d]));
	WRITE_ONCE(e->bytes[d], cpu_to_le64(c->bytes[d]));
	WRITE_ONCE(e->last_ms, cpu_to_le32(npusim_ft_clock_ms(c->last_used_ns)));
}

/* @conn's state became @state (given back, revived, taken out). */
static void npusim_ft_area_state(struct npusim_ft *ft, u32 conn, u8 state)
{
	struct npu_conn_stats_entry *e = npusim_ft_entry(ft, conn);

	if (!e)
		return;
	WRITE_ONCE(e->giveback, ft->conns[conn].giveback);
	/* the give-back count is seen with the state it came with */
	smp_wmb();
	WRITE_ONCE(e->state, state);
}

/**
 * npusim_ft_area_set() - keep the entries in a statistics area from now on
 * @ft: the tables
 * @area: @n entries of host memory (NPU_REG_FT_STATS), or NULL: none
 * @n: entries in @area
 *
 * Every entry below @n is written afresh: the connection at that index
 * (FREE and zero where there is none, or past the table's size).  The
 * table's own counters are kept.  Costs a write of each entry once, here;
 * afterwards only what changes is written.
 */
void npusim_ft_area_set(struct npusim_ft *ft,
			struct npu_conn_stats_entry *area, u32 n)
{
	u32 i;

	ft->area = area;
	ft->area_n = area ? n : 0;
	for (i = 0; i < ft->area_n; i++) {
		if (i < ft->nconns) {
			npusim_ft_area_fresh(ft, i);
			continue;
		}
		memset(&area[i], 0, sizeof(area[i]));
		area[i].conn = cpu_to_le32(i);
	}
}

/**
 * npusim_ft_reset() - empty both tables and zero the counters
 * @ft: the tables
 *
 * Knobs (@fastpath, @retrans_max, @expire_ns) are kept.
 */
void npusim_ft_reset(struct npusim_ft *ft)
{
	u32 i;

	memset(ft->conns, 0, sizeof(*ft->conns) * ft->nconns);
	for (i = 0; i < ft->nconns; i++) {
		ft->conns[i].mf[0] = NPUSIM_FT_NONE;
		ft->conns[i].mf[1] = NPUSIM_FT_NONE;
	}
	for (i = 0; i < ft->nbuckets; i++)
		ft->buckets[i] = NPUSIM_FT_NONE;
	for (i = 0; i < ft->nmflows; i++) {
		memset(&ft->mflows[i], 0, sizeof(ft->mflows[i]));
		ft->mflows[i].conn = NPUSIM_FT_NONE;
		ft->mflows[i].next = i + 1 < ft->nmflows ? i + 1 : NPUSIM_FT_NONE;
	}
	ft->free = ft->nmflows ? 0 : NPUSIM_FT_NONE;
	ft->used_conns = 0;
	ft->used_mflows = 0;
	memset(&ft->st, 0, sizeof(ft->st));
}

/**
 * npusim_ft_init() - set up empty tables in caller-provided memory
 * @ft: the tables
 * @nports: ports of the coprocessor
 * @conns: array of @nconns connection slots
 * @nconns: connection slots (index range of NPU_CMD_CONN_CREATE)
 * @mflows: array of @nmflows microflow slots
 * @nmflows: microflow slots
 * @buckets: array of @nbuckets chain heads
 * @nbuckets: hash buckets, a power of two (e.g. @nmflows rounded up)
 *
 * The fast path starts on, with the default give-back threshold and expiry.
 */
void npusim_ft_init(struct npusim_ft *ft, u32 nports,
		    struct npusim_ft_conn *conns, u32 nconns,
		    struct npusim_ft_mflow *mflows, u32 nmflows,
		    u32 *buckets, u32 nbuckets)
{
	memset(ft, 0, sizeof(*ft));
	ft->nports = nports;
	ft->conns = conns;
	ft->nconns = nconns;
	ft->mflows = mflows;
	ft->nmflows = nmflows;
	ft->buckets = buckets;
	ft->nbuckets = nbuckets;
	ft->fastpath = 1;
	ft->retrans_max = NPUSIM_FT_RETRANS_DEFAULT;
	ft->expire_ns = (u64)NPUSIM_FT_EXPIRE_MS_DEFAULT * 1000000;
	npusim_ft_reset(ft);
}

static u32 npusim_ft_find(struct npusim_ft *ft, const struct npu_mflow_key *key)
{
	u32 i = ft->buckets[npusim_ft_hash(key) & (ft->nbuckets - 1)];

	while (i != NPUSIM_FT_NONE) {
		if (npusim_ft_key_eq(&ft->mflows[i].key, key))
			return i;
		i = ft->mflows[i].next;
	}
	return NPUSIM_FT_NONE;
}

/* Unlink microflow slot @m from its bucket and free it. */
static void npusim_ft_mflow_free(struct npusim_ft *ft, u32 m)
{
	struct npusim_ft_mflow *mf = &ft->mflows[m];
	u32 *pp = &ft->buckets[npusim_ft_hash(&mf->key) & (ft->nbuckets - 1)];
	struct npusim_ft_conn *c;

	while (*pp != NPUSIM_FT_NONE && *pp != m)
		pp = &ft->mflows[*pp].next;
	if (*pp == m)
		*pp = mf->next;
	if (mf->conn < ft->nconns) {
		c = &ft->conns[mf->conn];
		if (c->mf[mf->dir & 1] == m)
			c->mf[mf->dir & 1] = NPUSIM_FT_NONE;
	}
	mf->conn = NPUSIM_FT_NONE;
	mf->next = ft->free;
	ft->free = m;
	ft->used_mflows--;
}

static void npusim_ft_conn_free(struct npusim_ft *ft, u32 conn)
{
	struct npusim_ft_conn *c = &ft->conns[conn];
	int d;

	if (c->state != NPU_CONN_FREE)
		npusim_ft_area_state(ft, conn, NPU_CONN_FREE);
	for (d = 0; d < 2; d++)
		if (c->mf[d] != NPUSIM_FT_NONE)
			npusim_ft_mflow_free(ft, c->mf[d]);
	if (c->state != NPU_CONN_FREE)
		ft->used_conns--;
	memset(c, 0, sizeof(*c));
	c->mf[0] = NPUSIM_FT_NONE;
	c->mf[1] = NPUSIM_FT_NONE;
}

/*
 * The L2 part of a key: what the parser keys (npu_hw.h).  An 802.1ad or an
 * inner tag needs an outer VID; session id 0xffff is reserved.
 */
static bool npusim_ft_key_l2_ok(const struct npu_mflow_key *key)
{
	if ((key->l2 & ~NPU_KEY_L2_AD) || key->pppoe_sid == cpu_to_be16(0xffff) ||
	    key->rsvd)
		return false;
	return key->vlan || (!(key->l2 & NPU_KEY_L2_AD) && !key->vlan_inner);
}

static bool npusim_ft_key_ok(const struct npusim_ft *ft,
			     const struct npu_mflow_key *key)
{
	if (key->port >= ft->nports || !npusim_ft_key_l2_ok(key))
		return false;
	if (key->family != NPU_AF_INET && key->family != NPU_AF_INET6)
		return false;
	return key->proto == NPUSIM_IPPROTO_TCP || key->proto == NPUSIM_IPPROTO_UDP;
}

/* A direction's rewrite: its egress port and the L2 the model writes. */
static bool npusim_ft_rw_ok(const struct npusim_ft *ft,
			    const struct npu_rewrite *rw)
{
	bool pop = rw->flags & NPU_RW_VLAN_POP, push = rw->flags & NPU_RW_VLAN_PUSH;
	u8 l2 = rw->l2;

	if (rw->egress_port >= ft->nports || rw->rsvd || (l2 & ~NPUSIM_FT_RW_L2))
		return false;
	/* a second pop or push with a first; 802.1ad outermost only */
	if (((l2 & NPU_RW_L2_POP2) && !pop) || ((l2 & NPU_RW_L2_PUSH2) && !push))
		return false;
	if ((l2 & NPU_RW_L2_AD1) && (!push || (l2 & NPU_RW_L2_PUSH2)))
		return false;
	if ((l2 & NPU_RW_L2_AD2) && !(l2 & NPU_RW_L2_PUSH2))
		return false;
	return !(l2 & NPU_RW_L2_PPPOE_PUSH) ||
	       (rw->pppoe_sid && rw->pppoe_sid != cpu_to_be16(0xffff));
}

/* Attach @key to direction @dir of @conn, taking it over from any other. */
static u16 npusim_ft_attach(struct npusim_ft *ft, u32 conn, u8 dir,
			    const struct npu_mflow_key *key)
{
	struct npusim_ft_conn *c = &ft->conns[conn];
	u32 m = npusim_ft_find(ft, key);
	u32 b;

	if (m != NPUSIM_FT_NONE)
		npusim_ft_mflow_free(ft, m);
	if (c->mf[dir] != NPUSIM_FT_NONE)
		npusim_ft_mflow_free(ft, c->mf[dir]);
	if (ft->free == NPUSIM_FT_NONE) {
		ft->st.mflow_full++;
		return NPU_ST_NO_SPACE;
	}
	m = ft->free;
	ft->free = ft->mflows[m].next;
	ft->mflows[m].key = *key;
	ft->mflows[m].conn = conn;
	ft->mflows[m].dir = dir;
	b = npusim_ft_hash(key) & (ft->nbuckets - 1);
	ft->mflows[m].next = ft->buckets[b];
	ft->buckets[b] = m;
	c->mf[dir] = m;
	c->seq_valid[dir] = 0;
	ft->used_mflows++;
	return NPU_ST_OK;
}

static void npusim_ft_revive(struct npusim_ft *ft, struct npusim_ft_conn *c)
{
	c->state = NPU_CONN_VALID;
	c->retrans[0] = 0;
	c->retrans[1] = 0;
	c->seq_valid[0] = 0;
	c->seq_valid[1] = 0;
	ft->st.revived++;
}

/**
 * npusim_ft_conn_create() - execute NPU_CMD_CONN_CREATE
 * @ft: the tables
 * @cmd: the command's payload
 * @now_ns: the model's clock, ns
 *
 * A new index, or a new revision of a used one, (re)makes the connection
 * with the given rewrites and microflows.  The same index and revision with
 * no microflow revives the connection in place (NOT ACTIVE -> VALID; the
 * rewrites are replaced when given).  NPU_CONN_F_REVIVE asks for the revive
 * only: a free index or another revision (the revive crossed a reclaim)
 * is NPU_ST_NOT_FOUND and nothing is made.
 *
 * Return: NPU_ST_OK, NPU_ST_BAD_PARAM (index, rewrite, key, a revive
 * with microflows), NPU_ST_NOT_FOUND (a revive of nothing) or
 * NPU_ST_NO_SPACE (microflow table full: the connection is not made).
 */
u16 npusim_ft_conn_create(struct npusim_ft *ft,
			  const struct npu_cmd_conn_create *cmd, u64 now_ns)
{
	u32 conn = le32_to_cpu(cmd->conn);
	u16 rev = le16_to_cpu(cmd->rev);
	u16 flags = le16_to_cpu(cmd->flags);
	struct npusim_ft_conn *c;
	int d;
	u16 st;

	if (conn >= ft->nconns)
		return NPU_ST_BAD_PARAM;
	for (d = 0; d < 2; d++) {
		if ((flags & (NPU_CONN_F_DIR0 << d)) &&
		    !npusim_ft_rw_ok(ft, &cmd->dir[d]))
			return NPU_ST_BAD_PARAM;
		if ((flags & (NPU_CONN_F_MFLOW0 << d)) &&
		    !npusim_ft_key_ok(ft, &cmd->mflow[d]))
			return NPU_ST_BAD_PARAM;
	}
	c = &ft->conns[conn];
	if ((flags & NPU_CONN_F_REVIVE) &&
	    ((flags & (NPU_CONN_F_MFLOW0 | NPU_CONN_F_MFLOW1)) ||
	     c->state == NPU_CONN_FREE || c->rev != rev))
		return (flags & (NPU_CONN_F_MFLOW0 | NPU_CONN_F_MFLOW1)) ?
		       NPU_ST_BAD_PARAM : NPU_ST_NOT_FOUND;
	if (c->state != NPU_CONN_FREE && c->rev == rev &&
	    !(flags & (NPU_CONN_F_MFLOW0 | NPU_CONN_F_MFLOW1))) {
		for (d = 0; d < 2; d++) {
			if (flags & (NPU_CONN_F_DIR0 << d)) {
				c->rw[d] = cmd->dir[d];
				c->dirs |= NPU_CONN_F_DIR0 << d;
			}
		}
		if (c->state == NPU_CONN_NOT_ACTIVE) {
			npusim_ft_revive(ft, c);
			npusim_ft_area_state(ft, conn, NPU_CONN_VALID);
		}
		return NPU_ST_OK;
	}

	npusim_ft_conn_free(ft, conn);
	c->rev = rev;
	c->state = NPU_CONN_VALID;
	c->last_used_ns = now_ns;
	ft->used_conns++;
	for (d = 0; d < 2; d++) {
		if (flags & (NPU_CONN_F_DIR0 << d)) {
			c->rw[d] = cmd->dir[d];
			c->dirs |= NPU_CONN_F_DIR0 << d;
		}
	}
	for (d = 0; d < 2; d++) {
		if (!(flags & (NPU_CONN_F_MFLOW0 << d)))
			continue;
		st = npusim_ft_attach(ft, conn, d, &cmd->mflow[d]);
		if (st != NPU_ST_OK) {
			npusim_ft_conn_free(ft, conn);
			return st;
		}
	}
	ft->st.created++;
	npusim_ft_area_fresh(ft, conn);
	return NPU_ST_OK;
}

/**
 * npusim_ft_mflow_attach() - execute NPU_CMD_MFLOW_ATTACH
 * @ft: the tables
 * @m: connection, revision, direction and key
 *
 * Return: NPU_ST_OK, NPU_ST_BAD_PARAM, NPU_ST_NOT_FOUND (no such connection
 * at that revision) or NPU_ST_NO_SPACE.
 */
u16 npusim_ft_mflow_attach(struct npusim_ft *ft, const struct npu_cmd_mflow *m)
{
	u32 conn = le32_to_cpu(m->conn);

	if (conn >= ft->nconns || m->dir > 1 || !npusim_ft_key_ok(ft, &m->key))
		return NPU_ST_BAD_PARAM;
	if (ft->conns[conn].state == NPU_CONN_FREE ||
	    ft->conns[conn].rev != le16_to_cpu(m->rev))
		return NPU_ST_NOT_FOUND;
	return npusim_ft_attach(ft, conn, m->dir, &m->key);
}

/**
 * npusim_ft_mflow_invalidate() - execute NPU_CMD_MFLOW_INVALIDATE
 * @ft: the tables
 * @key: the microflow's identity
 *
 * Return: NPU_ST_OK or NPU_ST_NOT_FOUND.
 */
u16 npusim_ft_mflow_invalidate(struct npusim_ft *ft,
			       const struct npu_mflow_key *key)
{
	u32 m = npusim_ft_find(ft, key);

	if (m == NPUSIM_FT_NONE)
		return NPU_ST_NOT_FOUND;
	npusim_ft_mflow_free(ft, m);
	return NPU_ST_OK;
}

/**
 * npusim_ft_conn_reclaim() - execute NPU_CMD_CONN_RECLAIM (take out)
 * @ft: the tables
 * @conn: connection index
 * @rev: its revision
 *
 * Return: NPU_ST_OK, NPU_ST_BAD_PARAM or NPU_ST_NOT_FOUND.
 */
u16 npusim_ft_conn_reclaim(struct npusim_ft *ft, u32 conn, u16 rev)
{
	if (conn >= ft->nconns)
		return NPU_ST_BAD_PARAM;
	if (ft->conns[conn].state == NPU_CONN_FREE || ft->conns[conn].rev != rev)
		return NPU_ST_NOT_FOUND;
	npusim_ft_conn_free(ft, conn);
	ft->st.reclaimed++;
	return NPU_ST_OK;
}

/**
 * npusim_ft_conn_stats() - execute NPU_CMD_CONN_STATS
 * @ft: the tables
 * @first: first connection index
 * @count: 1..NPU_CONN_STATS_MAX; clipped at the end of the table
 * @now_ns: the model's clock, ns
 * @out: the response
 *
 * Return: NPU_ST_OK or NPU_ST_BAD_PARAM.
 */
u16 npusim_ft_conn_stats(struct npusim_ft *ft, u32 first, u32 count,
			 u64 now_ns, struct npu_cmd_conn_stats *out)
{
	u32 i, n;

	memset(out, 0, sizeof(*out));
	if (first >= ft->nconns || !count || count > NPU_CONN_STATS_MAX)
		return NPU_ST_BAD_PARAM;
	n = ft->nconns - first < count ? ft->nconns - first : count;
	for (i = 0; i < n; i++) {
		const struct npusim_ft_conn *c = &ft->conns[first + i];
		struct npu_conn_stat *s = &out->st[i];
		u64 idle = now_ns > c->last_used_ns ? now_ns - c->last_used_ns : 0;

		idle /= 1000000;
		s->conn = cpu_to_le32(first + i);
		s->rev = cpu_to_le16(c->rev);
		s->state = c->state;
		s->giveback = c->giveback;
		s->packets[0] = cpu_to_le64(c->packets[0]);
		s->packets[1] = cpu_to_le64(c->packets[1]);
		s->bytes[0] = cpu_to_le64(c->bytes[0]);
		s->bytes[1] = cpu_to_le64(c->bytes[1]);
		s->idle_ms = cpu_to_le32(idle > 0xffffffffULL ? 0xffffffffU : (u32)idle);
	}
	out->count = cpu_to_le16(n);
	return NPU_ST_OK;
}

/**
 * npusim_ft_giveback() - give a connection back to the host (a model knob)
 * @ft: the tables
 * @conn: connection index
 * @now_ns: the model's clock, ns (starts the microflows' expiry)
 *
 * Return: NPU_ST_OK or NPU_ST_NOT_FOUND.
 */
u16 npusim_ft_giveback(struct npusim_ft *ft, u32 conn, u64 now_ns)
{
	struct npusim_ft_conn *c;

	if (conn >= ft->nconns || ft->conns[conn].state != NPU_CONN_VALID)
		return NPU_ST_NOT_FOUND;
	c = &ft->conns[conn];
	c->state = NPU_CONN_NOT_ACTIVE;
	c->given_back_ns = now_ns;
	if (c->giveback < 0xff)
		c->giveback++;
	npusim_ft_area_state(ft, conn, NPU_CONN_NOT_ACTIVE);
	ft->st.givebacks++;
	return NPU_ST_OK;
}

/**
 * npusim_ft_key_from_pkt() - a parsed frame's microflow identity
 * @pkt: the parser's result (addresses valid, ports valid for TCP/UDP, the
 *	tags a key holds)
 * @port: ingress port, 0-based
 * @key: filled: the port, the tags' VIDs and the outer one's TPID, the
 *	PPPoE session, the family, protocol, addresses and ports; the rest
 *	zero
 */
void npusim_ft_key_from_pkt(const struct npusim_pkt *pkt, u8 port,
			    struct npu_mflow_key *key)
{
	memset(key, 0, sizeof(*key));
	key->port = port;
	key->family = pkt->addr_len == 16 ? NPU_AF_INET6 : NPU_AF_INET;
	key->proto = pkt->l4_proto;
	if (pkt->flags & NPUSIM_PKT_VLAN) {
		key->vlan = cpu_to_be16(pkt->vlan_tci & NPUSIM_VLAN_VID_MASK);
		if (pkt->vlan_tpid == NPUSIM_ETH_P_8021AD)
			key->l2 |= NPU_KEY_L2_AD;
	}
	if (pkt->vlan_tags == 2)
		key->vlan_inner = cpu_to_be16(pkt->vlan2_tci & NPUSIM_VLAN_VID_MASK);
	if (pkt->flags & NPUSIM_PKT_PPPOE)
		key->pppoe_sid = cpu_to_be16(pkt->pppoe_sid);
	key->sport = cpu_to_be16(pkt->sport);
	key->dport = cpu_to_be16(pkt->dport);
	memcpy(key->saddr, pkt->saddr, pkt->addr_len);
	memcpy(key->daddr, pkt->daddr, pkt->addr_len);
}

static u32 npusim_ft_rd32(const u8 *p)
{
	return (u32)p[0] << 24 | (u32)p[1] << 16 | (u32)p[2] << 8 | p[3];
}

/* TCP: is this frame a retransmit in direction @d?  Tracks the highest end. */
static bool npusim_ft_retransmit(struct npusim_ft_conn *c, int d,
				 const struct npusim_pkt *pkt,
				 const u8 *data, u32 len)
{
	u32 doff, payload, seq, end;

	if (pkt->l4_proto != NPUSIM_IPPROTO_TCP || (u32)pkt->l4_off + 20 > len)
		return false;
	doff = (data[pkt->l4_off + 12] >> 4) * 4;
	if (pkt->l3_off + pkt->l3_len > len || doff < 20)
		return false;
	if (pkt->l4_off + doff > pkt->l3_off + pkt->l3_len)
		return false;
	payload = pkt->l3_off + pkt->l3_len - pkt->l4_off - doff;
	if (!payload)
		return false;
	seq = npusim_ft_rd32(data + pkt->l4_off + 4);
	end = seq + payload;
	if (!c->seq_valid[d]) {
		c->seq_valid[d] = 1;
		c->seq_end[d] = end;
		return false;
	}
	/* Sequence-space comparison: end not after the highest end seen. */
	if ((int32_t)(end - c->seq_end[d]) <= 0)
		return true;
	c->seq_end[d] = end;
	return false;
}

/**
 * npusim_ft_process() - the fast path's decision for one frame
 * @ft: the tables
 * @pkt: the parser's result for the frame
 * @port: ingress port, 0-based
 * @data: the frame
 * @len: its length in bytes
 * @now_ns: the model's clock, ns
 * @res: filled: the matched connection (or NPU_CONN_NONE) and, when the
 *	frame is forwarded, the direction's rewrite
 *
 * Only frames the parser classified NPU_PUNT_FLOW_MISS or NPU_PUNT_TCP_FLAGS
 * are looked up; every other reason is returned unchanged.
 *
 * Return: NPU_PUNT_NONE to forward (counters and last-used updated; the
 * caller rewrites with npusim_ft_rewrite() and npusim_ft_l2_rewrite() and
 * sends on @res->rw's egress port), else the punt reason.
 */
u8 npusim_ft_process(struct npusim_ft *ft, const struct npusim_pkt *pkt,
		     u8 port, const u8 *data, u32 len, u64 now_ns,
		     struct npusim_ft_result *res)
{
	struct npu_mflow_key key;
	struct npusim_ft_conn *c;
	u32 m, conn;
	u8 d;

	res->conn = NPU_CONN_NONE;
	res->dir = 0;
	res->rw = NULL;
	if (pkt->reason != NPU_PUNT_FLOW_MISS && pkt->reason != NPU_PUNT_TCP_FLAGS)
		return pkt->reason;
	if (!(pkt->flags & NPUSIM_PKT_L4) || !ft->used_mflows)
		return pkt->reason;
	npusim_ft_key_from_pkt(pkt, port, &key);
	m = npusim_ft_find(ft, &key);
	if (m == NPUSIM_FT_NONE)
		return pkt->reason;
	conn = ft->mflows[m].conn;
	d = ft->mflows[m].dir & 1;
	c = &ft->conns[conn];
	if (c->state == NPU_CONN_NOT_ACTIVE &&
	    now_ns - c->given_back_ns >= ft->expire_ns) {
		/* The identities of a given-back connection have expired. */
		if (c->mf[0] != NPUSIM_FT_NONE)
			npusim_ft_mflow_free(ft, c->mf[0]);
		if (c->mf[1] != NPUSIM_FT_NONE)
			npusim_ft_mflow_free(ft, c->mf[1]);
		ft->st.expired++;
		return pkt->reason;
	}
	res->conn = conn;
	res->dir = d;
	if (pkt->reason == NPU_PUNT_TCP_FLAGS)
		return NPU_PUNT_TCP_FLAGS;
	if (c->state != NPU_CONN_VALID)
		return NPU_PUNT_NOT_ACTIVE;
	if (!ft->fastpath)
		return NPU_PUNT_FASTPATH_OFF;
	if (!(c->dirs & (NPU_CONN_F_DIR0 << d)))
		return NPU_PUNT_FLOW_MISS;
	if (le16_to_cpu(c->rw[d].mtu) && pkt->l3_len > le16_to_cpu(c->rw[d].mtu))
		return NPU_PUNT_MTU;
	if ((c->rw[d].flags & NPU_RW_TTL) && pkt->ttl <= 1)
		return NPU_PUNT_EXCEPTION;
	if (!npusim_ft_l2_len(pkt, &c->rw[d]))
		return NPU_PUNT_EXCEPTION;
	if (npusim_ft_retransmit(c, d, pkt, data, len) && ft->retrans_max &&
	    ++c->retrans[d] >= ft->retrans_max) {
		npusim_ft_giveback(ft, conn, now_ns);
		return NPU_PUNT_NOT_ACTIVE;
	}
	c->packets[d]++;
	c->bytes[d] += pkt->l3_len;	/* the IP packet's: what the peers sent */
	c->last_used_ns = now_ns;
	npusim_ft_area_count(ft, conn, d);
	ft->st.forwarded++;
	res->rw = &c->rw[d];
	return NPU_PUNT_NONE;
}
