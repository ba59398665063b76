// SPDX-License-Identifier: GPL-2.0
/*
 * npuep flow offload: the shadow of the coprocessor's connection table.
 *
 * The shadow table is keyed by match, not by cookie: a flower "replace"
 * sends REPLACE with a new cookie and then DESTROY of the old one.  Capacity
 * is checked in the shadow table before any command is sent, so a full
 * table is -ENOSPC (counted) and the flow stays on the host.  The kernel
 * offers a connection as one rule per direction; the table pairs them into
 * one connection block: the reply of a direction, with its rewrite applied,
 * is the other direction's match.  An unpaired direction works alone.
 *
 * Every flow command goes through the flow-table lock (flow_lock.c).
 */
#include <linux/etherdevice.h>
#include <linux/rhashtable.h>
#include <linux/sched.h>

#include "npuep.h"
#include "flow_priv.h"
#include "flow_pair.h"
#include "trace.h"

/* A purge drops the flow-table lock after this many removals. */
#define NPUEP_FLOW_PURGE_BATCH	16

struct npuep_conn *npuep_conn_at(struct npuep_ft *ft, u32 idx)
{
	return rcu_dereference_protected(ft->by_idx[idx],
					 lockdep_is_held(&ft->lock));
}

/* ------------------------------------------------------------------ */
/* Commands.                                                           */

/*
 * A posted table command that never reached the device (backlog full,
 * no memory): the caller has changed the shadow table already, so the
 * device and the driver disagree.  The "cmd" health recovery resets the
 * rings and writes the device's table again from the shadow.
 */
static void npuep_ft_cmd_lost(struct npuep_ft *ft, u32 ring, u16 op)
{
	if (!npu_cmd_changes_tables(op))
		return;
	ft->st.cmd_lost++;
	WRITE_ONCE(ft->ndev->cmd_chk.resync, true);
	npuep_cmd_fault(ft->ndev, ring, op);
}

/*
 * Every flow command goes through here: on @ring, posted (not waited for)
 * when @posted and no response is wanted.  Under ft->lock.  cmd_posted
 * counts the commands that reached the ring or its backlog; a post that
 * did not is counted in cmd_failed and cmd_lost, and resyncs the table.
 */
int npuep_ft_cmd_ring(struct npuep_ft *ft, u32 ring, bool posted, u16 op,
		      const void *req, u16 len, void *resp, u16 resp_len)
{
	int err;

	if (WARN_ON_ONCE(ft->bh_off && resp))
		return -EINVAL;		/* an answer cannot be waited for here */
	if (ft->bh_off || (posted && !resp)) {
		/* Softirqs off: never sleep, never wait for the device; a
		 * full ring queues the command in the driver behind it.
		 */
		err = npuep_cmd_post(ft->ndev, ring, op, req, len,
				     ft->bh_off ? NPUEP_CMD_POST_BACKLOG :
						  NPUEP_CMD_POST_WAIT);
		if (err == NPUEP_CMD_BACKLOGGED) {
			ft->st.cmd_ring_full++;
			err = 0;
		}
		if (!err)
			ft->st.cmd_posted++;
		else
			npuep_ft_cmd_lost(ft, ring, op);
	} else {
		err = npuep_cmd_exec_ring(ft->ndev, ring, op, req, len, resp,
					  resp_len);
		ft->st.cmd_waited++;
	}
	if (err)
		ft->st.cmd_failed++;
	return err;
}

/* A flow command as the devlink params flow_cmd_ring/flow_cmd_posted say. */
static int npuep_ft_cmd(struct npuep_ft *ft, u16 op, const void *req, u16 len,
			void *resp, u16 resp_len)
{
	struct npuep_dlx *dlx = &ft->ndev->dlx;

	return npuep_ft_cmd_ring(ft, READ_ONCE(dlx->flow_cmd_ring),
				 READ_ONCE(dlx->flow_cmd_posted), op, req, len,
				 resp, resp_len);
}

void npuep_conn_fill(struct npuep_conn *c,
		     struct npu_cmd_conn_create *cmd, bool mflows)
{
	u16 flags = 0;
	int d;

	memset(cmd, 0, sizeof(*cmd));
	cmd->conn = cpu_to_le32(c->idx);
	cmd->rev = cpu_to_le16(c->rev);
	for (d = 0; d < 2; d++) {
		if (!c->flow[d])
			continue;
		cmd->dir[d] = c->flow[d]->rw;
		flags |= NPU_CONN_F_DIR0 << d;
		if (mflows) {
			cmd->mflow[d] = c->flow[d]->key;
			flags |= NPU_CONN_F_MFLOW0 << d;
		}
	}
	if (!mflows)
		flags |= NPU_CONN_F_REVIVE;
	cmd->flags = cpu_to_le16(flags);
}

/*
 * Publish the connection's revive command (same index and revision, no
 * microflow) for the receive path.  Without memory the receive path falls
 * back to the revive work item.  Under ft->lock.
 */
static void npuep_conn_publish(struct npuep_ft *ft, struct npuep_conn *c)
{
	struct npuep_revive *r, *old;

	r = kmalloc(sizeof(*r), npuep_ft_gfp(ft));
	if (r)
		npuep_conn_fill(c, &r->cmd, false);
	old = rcu_replace_pointer(c->revive, r, lockdep_is_held(&ft->lock));
	if (old)
		kfree_rcu(old, rcu);
}

/* (Re)write a connection with both its microflows, under a new revision. */
int npuep_conn_write(struct npuep_ft *ft, struct npuep_conn *c)
{
	struct npu_cmd_conn_create cmd;

	c->rev++;
	npuep_conn_fill(c, &cmd, true);
	npuep_conn_publish(ft, c);
	return npuep_ft_cmd(ft, NPU_CMD_CONN_CREATE, &cmd, sizeof(cmd), NULL, 0);
}

/*
 * Rewrite connection @c in place, which the device holds valid: its
 * rewrites under the same revision (the revive command, which the device
 * takes as an update: the connection, its microflows and its counters
 * stay).  Under ft->lock.
 */
static int npuep_conn_update(struct npuep_ft *ft, struct npuep_conn *c)
{
	struct npu_cmd_conn_create cmd;

	npuep_conn_fill(c, &cmd, false);
	npuep_conn_publish(ft, c);
	return npuep_ft_cmd(ft, NPU_CMD_CONN_CREATE, &cmd, sizeof(cmd), NULL, 0);
}

/*
 * Direction @dir joins connection @c in place (npuep_conn_update()), its
 * microflow attached behind the rewrites on the same ring.  Under ft->lock.
 */
static int npuep_conn_join(struct npuep_ft *ft, struct npuep_conn *c, u8 dir)
{
	struct npu_cmd_mflow m = {
		.conn = cpu_to_le32(c->idx),
		.rev = cpu_to_le16(c->rev),
		.dir = dir,
		.key = c->flow[dir]->key,
	};
	int err;

	err = npuep_conn_update(ft, c);
	if (err)
		return err;
	return npuep_ft_cmd(ft, NPU_CMD_MFLOW_ATTACH, &m, sizeof(m), NULL, 0);
}

static int npuep_conn_reclaim(struct npuep_ft *ft, struct npuep_conn *c)
{
	struct npu_cmd_conn_ref ref = {
		.conn = cpu_to_le32(c->idx),
		.rev = cpu_to_le16(c->rev),
	};

	return npuep_ft_cmd(ft, NPU_CMD_CONN_RECLAIM, &ref, sizeof(ref), NULL, 0);
}

/* ------------------------------------------------------------------ */
/* The shadow table.                                                   */

static struct npuep_conn *npuep_conn_new(struct npuep_ft *ft)
{
	struct npuep_conn *c;
	int idx;

	idx = ida_alloc_max(&ft->conn_ida, ft->conn_max - 1, npuep_ft_gfp(ft));
	if (idx < 0)
		return NULL;
	c = kzalloc(sizeof(*c), npuep_ft_gfp(ft));
	if (!c) {
		ida_free(&ft->conn_ida, idx);
		return NULL;
	}
	c->idx = idx;
	/* A reused index continues its revisions: stale revives miss. */
	c->rev = ft->revs[idx];
	c->lastused = jiffies;
	rcu_assign_pointer(ft->by_idx[idx], c);
	ft->nconns++;
	return c;
}

static void npuep_conn_free(struct npuep_ft *ft, struct npuep_conn *c)
{
	struct npuep_revive *r;

	ft->revs[c->idx] = c->rev;
	RCU_INIT_POINTER(ft->by_idx[c->idx], NULL);
	ida_free(&ft->conn_ida, c->idx);
	ft->nconns--;
	r = rcu_replace_pointer(c->revive, NULL, lockdep_is_held(&ft->lock));
	if (r)
		kfree_rcu(r, rcu);
	kfree_rcu(c, rcu);
}

void npuep_flow_unhash(struct npuep_ft *ft, struct npuep_flow *f)
{
	rhashtable_remove_fast(&ft->by_key, &f->knode, npuep_flow_key_params);
	rhashtable_remove_fast(&ft->by_cookie, &f->cnode, npuep_flow_cookie_params);
	list_del(&f->pnode);
	ft->nflows--;
	ft->owner_flows[f->key.port]--;
	if (!ft->owner_flows[f->key.port])
		ft->owner[f->key.port] = NPUEP_OWNER_NONE;
}

/*
 * A write the device refused leaves it at the connection's previous
 * revision and contents: the driver goes back to them (the caller has
 * restored the contents), so that statistics and revives still match.
 */
static void npuep_conn_unwrite(struct npuep_ft *ft, struct npuep_conn *c)
{
	c->rev--;
	npuep_conn_publish(ft, c);
}

/**
 * npuep_flow_by_cookie() - the direction a port's callback accepted under a cookie
 * @ft: the flow table
 * @cookie: the kernel's cookie
 * @port: the port's index
 *
 * Under ft->lock, or in an RCU read-side section for a result used only
 * inside it (flows are freed after a grace period).
 *
 * Return: the direction, or NULL.
 */
struct npuep_flow *npuep_flow_by_cookie(struct npuep_ft *ft, unsigned long cookie,
					u32 port)
{
	struct npuep_flow_ck ck = { .cookie = cookie, .port = port };

	return rhashtable_lookup_fast(&ft->by_cookie, &ck, npuep_flow_cookie_params);
}

/* A REPLACE of a match the table holds: re-point its cookie, rewrite it. */
static int npuep_flow_update(struct npuep_ft *ft, struct npuep_flow *f,
			     const struct npuep_flow_spec *spec,
			     unsigned long cookie)
{
	struct npu_rewrite old = f->rw;
	int err;

	if (f->ck.cookie != cookie) {
		rhashtable_remove_fast(&ft->by_cookie, &f->cnode, npuep_flow_cookie_params);
		f->ck.cookie = cookie;
		err = rhashtable_lookup_insert_fast(&ft->by_cookie, &f->cnode,
						    npuep_flow_cookie_params);
		if (err) {
			/* Not reachable by cookie: its DESTROY would miss it. */
			npuep_flow_remove(ft, f);
			return err;
		}
	}
	if (memcmp(&f->rw, &spec->rw, sizeof(spec->rw))) {
		f->rw = spec->rw;
		if (f->conn->state == NPU_CONN_VALID) {
			err = npuep_conn_update(ft, f->conn);
			if (err) {
				f->rw = old;
				npuep_conn_publish(ft, f->conn);
			}
			return err;
		}
		npuep_conn_stats_sync(ft, f->conn);
		err = npuep_conn_write(ft, f->conn);
		if (err) {
			f->rw = old;
			npuep_conn_unwrite(ft, f->conn);
		}
		return err;
	}
	if (f->conn->state != NPU_CONN_NOT_ACTIVE)
		return 0;
	/*
	 * Given back and not revived: its microflows may have expired in the
	 * device, so nothing reaches the receive path's revive.  The kernel
	 * offering the flow again (nf_flow_table refreshes it about once a
	 * second while the host forwards it) makes it again, microflows and
	 * all, under a new revision.
	 */
	npuep_conn_stats_sync(ft, f->conn);
	err = npuep_conn_write(ft, f->conn);
	if (err) {
		npuep_conn_unwrite(ft, f->conn);
		return err;
	}
	f->conn->state = NPU_CONN_VALID;
	ft->st.remade++;
	return 0;
}

/*
 * Give @g, alone in its connection, the session @f pushes (a flowtable's
 * pair, g offered first): re-hash it under its new match.  Return: whether
 * it was re-keyed; unchanged otherwise.
 */
static bool npuep_flow_rekey(struct npuep_ft *ft, const struct npuep_flow *f,
			     struct npuep_flow *g)
{
	struct npu_mflow_key key = g->key;
	struct npu_rewrite rw = g->rw;

	if (!npuep_flow_complete(&f->key, &f->rw, &key, &rw))
		return false;
	rhashtable_remove_fast(&ft->by_key, &g->knode, npuep_flow_key_params);
	swap(g->key, key);
	swap(g->rw, rw);
	if (!rhashtable_lookup_insert_fast(&ft->by_key, &g->knode,
					   npuep_flow_key_params))
		return true;
	g->key = key;
	g->rw = rw;
	WARN_ON_ONCE(rhashtable_lookup_insert_fast(&ft->by_key, &g->knode,
						   npuep_flow_key_params));
	return false;
}

/* Undo npuep_flow_rekey(): @g back under the match the kernel gave. */
static void npuep_flow_unkey(struct npuep_ft *ft, struct npuep_flow *g)
{
	rhashtable_remove_fast(&ft->by_key, &g->knode, npuep_flow_key_params);
	g->key.pppoe_sid = 0;
	g->rw.l2 &= ~NPU_RW_L2_PPPOE_POP;
	WARN_ON_ONCE(rhashtable_lookup_insert_fast(&ft->by_key, &g->knode,
						   npuep_flow_key_params));
}

/* The direction alone in its connection under @key, or NULL. */
static struct npuep_flow *npuep_flow_alone(struct npuep_ft *ft,
					   const struct npu_mflow_key *key)
{
	struct npuep_flow *g;

	g = rhashtable_lookup_fast(&ft->by_key, key, npuep_flow_key_params);
	if (g && g->conn && !g->conn->flow[!g->dir])
		return g;
	return NULL;
}

/*
 * The connection a new direction joins: its reply's if alone, else a new
 * one.  Two flowtable directions of a PPPoE session pair whichever comes
 * first: the one arriving in the session takes its id from the other's
 * push, before it is hashed (@f, *@completed) or re-hashed (*@rekeyed, the
 * one found).
 */
static struct npuep_conn *npuep_flow_pair(struct npuep_ft *ft, struct npuep_flow *f,
					  struct npuep_flow **rekeyed, bool *completed)
{
	bool ft_owned = f->owner == NPUEP_OWNER_FT;
	struct npu_mflow_key reply;
	struct npuep_flow *g = NULL;

	*rekeyed = NULL;
	*completed = false;
	if (npuep_flow_reply_key(&f->key, &f->rw, &reply))
		g = npuep_flow_alone(ft, &reply);
	if (!g && ft_owned && reply.pppoe_sid) {
		reply.pppoe_sid = 0;
		g = npuep_flow_alone(ft, &reply);
		if (g && g->owner == NPUEP_OWNER_FT && npuep_flow_rekey(ft, f, g))
			*rekeyed = g;
		else
			g = NULL;
	}
	if (g) {
		if (ft_owned && g->owner == NPUEP_OWNER_FT)
			*completed = npuep_flow_complete(&g->key, &g->rw,
							 &f->key, &f->rw);
		f->dir = !g->dir;
		return g->conn;
	}
	f->dir = 0;
	return npuep_conn_new(ft);
}

/* Hash a new direction by match and by cookie, and list it on its port. */
static int npuep_flow_hash(struct npuep_ft *ft, struct npuep_flow *f)
{
	int err;

	err = rhashtable_lookup_insert_fast(&ft->by_key, &f->knode,
					    npuep_flow_key_params);
	if (err)
		return err;
	err = rhashtable_lookup_insert_fast(&ft->by_cookie, &f->cnode,
					    npuep_flow_cookie_params);
	if (err) {
		rhashtable_remove_fast(&ft->by_key, &f->knode, npuep_flow_key_params);
		return err;
	}
	list_add_tail(&f->pnode, &ft->port_flows[f->key.port]);
	ft->nflows++;
	ft->owner[f->key.port] = f->owner;
	ft->owner_flows[f->key.port]++;
	return 0;
}

/* A REPLACE of a match the table lacks: a new direction, paired if it can be. */
static int npuep_flow_add(struct npuep_ft *ft, const struct npuep_flow_spec *spec,
			  unsigned long cookie, u8 owner,
			  const struct npuep_ft_bind *bind,
			  struct netlink_ext_ack *extack)
{
	struct npuep_flow *f, *rekeyed;
	struct npuep_conn *c;
	bool paired, completed, join;
	int err;

	if (ft->nflows >= ft->mflow_max) {
		NL_SET_ERR_MSG_MOD(extack, "fast path microflow table full");
		ft->st.enospc++;
		return -ENOSPC;
	}
	f = kzalloc(sizeof(*f), npuep_ft_gfp(ft));
	if (!f)
		return -ENOMEM;
	f->key = spec->key;
	f->rw = spec->rw;
	f->ck.cookie = cookie;
	f->ck.port = spec->key.port;
	f->owner = owner;
	f->bind = bind;
	c = npuep_flow_pair(ft, f, &rekeyed, &completed);
	if (!c) {
		kfree(f);
		NL_SET_ERR_MSG_MOD(extack, "fast path connection table full");
		ft->st.enospc++;
		return -ENOSPC;
	}
	paired = c->flow[!f->dir];
	/*
	 * The device holds the other direction valid under this revision:
	 * joined in place.  Otherwise (not read valid yet, given back, or its
	 * partner re-keyed) the connection is written again, its counts read
	 * first.
	 */
	join = paired && !rekeyed && c->state == NPU_CONN_VALID;
	if (paired && !join)
		npuep_conn_stats_sync(ft, c);
	f->conn = c;
	c->flow[f->dir] = f;
	/* Its counts start at the connection's: the slot's earlier are not its. */
	f->rep_pkts = c->cnt.pkts[f->dir];
	f->rep_bytes = c->cnt.bytes[f->dir];

	err = npuep_flow_hash(ft, f);
	if (err)
		goto err_unlink;
	err = join ? npuep_conn_join(ft, c, f->dir) : npuep_conn_write(ft, c);
	if (err) {
		NL_SET_ERR_MSG_MOD(extack, "coprocessor refused the connection");
		npuep_flow_unhash(ft, f);
		c->flow[f->dir] = NULL;
		if (rekeyed)
			npuep_flow_unkey(ft, rekeyed);
		if (join)
			npuep_conn_publish(ft, c);
		else if (paired)
			npuep_conn_unwrite(ft, c);
		goto err_free;
	}
	ft->st.flows_added++;
	if (paired)
		ft->st.paired++;
	if (rekeyed || completed)
		ft->st.pppoe_paired++;
	return 0;

err_unlink:
	if (rekeyed)
		npuep_flow_unkey(ft, rekeyed);
	c->flow[f->dir] = NULL;
err_free:
	if (!paired)
		npuep_conn_free(ft, c);
	kfree_rcu(f, rcu);
	return err;
}

/*
 * A flowtable's refresh of a direction its pair completed with a session
 * (npuep_flow_complete()) comes as the kernel gave it first: complete it
 * again from the partner's push, so that it finds itself.
 */
static void npuep_flow_spec_complete(const struct npuep_flow *old,
				     struct npuep_flow_spec *spec)
{
	const struct npuep_flow *p;

	if (!old || old->owner != NPUEP_OWNER_FT || !old->conn)
		return;
	p = old->conn->flow[!old->dir];
	if (p && p->owner == NPUEP_OWNER_FT)
		npuep_flow_complete(&p->key, &p->rw, &spec->key, &spec->rw);
}

/**
 * npuep_flow_replace() - FLOW_CLS_REPLACE: one direction into the fast path
 * @ft: the flow table, locked (npuep_ft_lock_writes())
 * @port: the port whose block callback was called
 * @cls: the kernel's request
 * @owner: who offers it (enum npuep_flow_owner)
 * @bind: the flowtable's binding (NPUEP_OWNER_FT), or NULL
 *
 * Keyed by match: a replace of a match the table holds re-points the
 * cookie.  A cookie the port already holds under another match is that
 * rule replaced: the old direction goes first.
 *
 * Return: 0; -EOPNOTSUPP for another port's rule, an unsupported one or a
 * port no longer bound; -EBUSY when the other owner drives the port;
 * -ENOSPC when a table is full; or the device's error.
 */
int npuep_flow_replace(struct npuep_ft *ft, struct npuep_port *port,
		       struct flow_cls_offload *cls, u8 owner,
		       const struct npuep_ft_bind *bind)
{
	struct flow_rule *rule = flow_cls_offload_flow_rule(cls);
	struct netlink_ext_ack *extack = cls->common.extack;
	struct npuep_flow_spec spec;
	struct npuep_flow *f, *old;
	int err;

	err = npuep_flow_parse(port, rule, owner == NPUEP_OWNER_FT, &spec, extack);
	if (err == -ENODEV)
		return -EOPNOTSUPP;	/* another port's rule */
	if (err) {
		ft->st.unsupported++;
		return err;
	}
	if (ft->frozen) {
		NL_SET_ERR_MSG_MOD(extack, "flow table is being resized (devlink reload)");
		return -EBUSY;
	}
	/* Checked under the lock the unbind clears it under: npuep_ft_unbind(). */
	if (owner == NPUEP_OWNER_FT && !(bind && READ_ONCE(bind->live)))
		return -EOPNOTSUPP;
	if (ft->owner[port->idx] != NPUEP_OWNER_NONE && ft->owner[port->idx] != owner) {
		if (owner == NPUEP_OWNER_FT)
			NL_SET_ERR_MSG_MOD(extack, "port's offload is driven by tc flower rules");
		else
			NL_SET_ERR_MSG_MOD(extack,
					   "port's offload is driven by an nftables flowtable");
		ft->st.unsupported++;
		return -EBUSY;
	}

	old = npuep_flow_by_cookie(ft, cls->cookie, port->idx);
	if (owner == NPUEP_OWNER_FT)
		npuep_flow_spec_complete(old, &spec);
	f = rhashtable_lookup_fast(&ft->by_key, &spec.key, npuep_flow_key_params);
	if (old && old != f)
		npuep_flow_remove(ft, old);
	if (f)
		return npuep_flow_update(ft, f, &spec, cls->cookie);
	return npuep_flow_add(ft, &spec, cls->cookie, owner, bind, extack);
}

/* Remove one direction; its connection goes when it has none left. */
void npuep_flow_remove(struct npuep_ft *ft, struct npuep_flow *f)
{
	struct npuep_conn *c = f->conn;
	struct npu_cmd_mflow m = {};

	npuep_flow_unhash(ft, f);
	c->flow[f->dir] = NULL;
	if (c->flow[!f->dir]) {
		m.key = f->key;
		npuep_conn_publish(ft, c);
		npuep_ft_cmd(ft, NPU_CMD_MFLOW_INVALIDATE, &m, sizeof(m), NULL, 0);
	} else {
		npuep_conn_reclaim(ft, c);
		npuep_conn_free(ft, c);
	}
	ft->st.flows_deleted++;
	kfree_rcu(f, rcu);
}

/**
 * npuep_flow_remove_conn() - remove both directions of a connection
 * @ft: the table, its writes' lock held
 * @f: one direction; the other, if any, goes with it
 *
 * One RECLAIM takes the connection out with both microflows, where
 * removing the directions one by one would post an INVALIDATE, then a
 * RECLAIM.
 */
void npuep_flow_remove_conn(struct npuep_ft *ft, struct npuep_flow *f)
{
	struct npuep_flow *g = f->conn->flow[!f->dir];

	if (g) {
		npuep_flow_unhash(ft, g);
		g->conn->flow[g->dir] = NULL;
		ft->st.flows_deleted++;
		kfree_rcu(g, rcu);
	}
	npuep_flow_remove(ft, f);
}

int npuep_flow_destroy(struct npuep_ft *ft, struct npuep_port *port,
		       struct flow_cls_offload *cls)
{
	struct npuep_flow *f;

	f = npuep_flow_by_cookie(ft, cls->cookie, port->idx);
	if (!f)
		return 0;	/* replaced under a new cookie, or never offloaded */
	npuep_flow_remove(ft, f);
	return 0;
}

int npuep_flow_stats(struct npuep_ft *ft, struct npuep_port *port,
		     struct flow_cls_offload *cls)
{
	struct npuep_flow *f;
	struct npuep_conn *c;
	u64 pkts, bytes;

	f = npuep_flow_by_cookie(ft, cls->cookie, port->idx);
	if (!f)
		return -ENOENT;
	c = f->conn;
	pkts = c->cnt.pkts[f->dir] - f->rep_pkts;
	bytes = c->cnt.bytes[f->dir] - f->rep_bytes;
	f->rep_pkts = c->cnt.pkts[f->dir];
	f->rep_bytes = c->cnt.bytes[f->dir];
	flow_stats_update(&cls->stats, bytes, pkts, 0, c->lastused,
			  FLOW_ACTION_HW_STATS_DELAYED);
	return 0;
}

/*
 * Remove up to NPUEP_FLOW_PURGE_BATCH of the directions entering on @port
 * that @owner wrote, under ft->lock.  Return: how many.
 */
static u32 npuep_flow_purge_batch(struct npuep_ft *ft, u32 port, u8 owner,
				  const struct npuep_ft_bind *bind)
{
	struct npuep_flow *f, *tmp;
	u32 n = 0;

	list_for_each_entry_safe(f, tmp, &ft->port_flows[port], pnode) {
		if ((owner != NPUEP_OWNER_NONE && f->owner != owner) ||
		    (bind && f->bind != bind))
			continue;
		npuep_flow_remove(ft, f);
		if (++n == NPUEP_FLOW_PURGE_BATCH)
			break;
	}
	return n;
}

/**
 * npuep_flow_purge() - remove directions by port and owner
 * @ft: the flow table, unlocked
 * @port: where the directions enter (NPU_MAX_PORTS: any port)
 * @owner: who wrote them (NPUEP_OWNER_NONE: any owner)
 * @bind: the flowtable binding that offered them (NULL: any)
 *
 * Removes every matching direction with its connection, the queued
 * DESTROYs first.  The lock is dropped every NPUEP_FLOW_PURGE_BATCH
 * removals so that the receive path's revives and the kernel's own offload
 * requests are not held behind a mass removal (seed 004: the table lock is
 * the bottleneck); each batch starts again from the head of the port's
 * list, so what was there throughout is gone when it returns (a hash-table
 * walk that removes as it goes skips entries: rhashtable_walk_start()'s
 * contract).
 */
void npuep_flow_purge(struct npuep_ft *ft, u32 port, u8 owner,
		      const struct npuep_ft_bind *bind)
{
	u32 p, lo = port, hi = port + 1, n;

	if (port >= NPU_MAX_PORTS) {
		lo = 0;
		hi = NPU_MAX_PORTS;
	}
	npuep_ft_dq_flush(ft);
	for (p = lo; p < hi; p++) {
		do {
			npuep_ft_lock_writes(ft);
			n = npuep_flow_purge_batch(ft, p, owner, bind);
			npuep_ft_unlock(ft);
			cond_resched();
		} while (n == NPUEP_FLOW_PURGE_BATCH);
	}
}
