// SPDX-License-Identifier: GPL-2.0
/*
 * npuep flow offload: ndo_setup_tc for nftables flowtables (TC_SETUP_FT)
 * and TC flower blocks, the block callbacks and their binding.
 */
#include <linux/mutex.h>
#include <net/flow_offload.h>
#include <net/pkt_cls.h>

#include "npuep.h"
#include "flow_priv.h"
#include "trace.h"

static int npuep_flow_cls_locked(struct npuep_port *port, struct flow_cls_offload *cls,
				 u8 owner, const struct npuep_ft_bind *bind)
{
	struct npuep_ft *ft = port->ndev->ft;
	int err;

	if (!ft)
		return -EOPNOTSUPP;
	if (cls->common.chain_index) {
		NL_SET_ERR_MSG_MOD(cls->common.extack, "only chain 0 is offloaded");
		return -EOPNOTSUPP;
	}
	if (cls->command == FLOW_CLS_DESTROY)
		return npuep_flow_destroy_cb(port, cls);
	if (cls->command == FLOW_CLS_REPLACE)
		npuep_ft_dq_flush(ft);
	npuep_ft_lock_writes(ft);
	switch (cls->command) {
	case FLOW_CLS_REPLACE:
		err = npuep_flow_replace(ft, port, cls, owner, bind);
		break;
	case FLOW_CLS_STATS:
		err = npuep_flow_stats(ft, port, cls);
		break;
	default:
		err = -EOPNOTSUPP;
	}
	npuep_ft_unlock(ft);
	return err;
}

/*
 * Under ft_sem: a devlink reload does not replace the table meanwhile.
 * The tracepoints frame the whole call, the wait for ft_sem included.
 */
static int npuep_flow_cls(struct npuep_port *port, struct flow_cls_offload *cls,
			  u8 owner, const struct npuep_ft_bind *bind)
{
	struct npuep_dev *ndev = port->ndev;
	int err;

	trace_npuep_flow_cls(ndev->dev, port->idx, cls->command, cls->cookie, 0);
	down_read(&ndev->ft_sem);
	err = npuep_flow_cls_locked(port, cls, owner, bind);
	up_read(&ndev->ft_sem);
	trace_npuep_flow_cls_done(ndev->dev, port->idx, cls->command,
				  cls->cookie, err);
	return err;
}

static int npuep_ft_block_cb(enum tc_setup_type type, void *type_data,
			     void *cb_priv)
{
	struct npuep_ft_bind *bind = cb_priv;

	if (type != TC_SETUP_CLSFLOWER)
		return -EOPNOTSUPP;
	return npuep_flow_cls(bind->port, type_data, NPUEP_OWNER_FT, bind);
}

static int npuep_tc_block_cb(enum tc_setup_type type, void *type_data,
			     void *cb_priv)
{
	struct flow_cls_offload *cls = type_data;
	struct npuep_port *port = cb_priv;

	if (type != TC_SETUP_CLSFLOWER)
		return -EOPNOTSUPP;
	/*
	 * hw-tc-offload gates new rules only.  A DESTROY or STATS of a rule
	 * in hardware is always taken: refused, it would leave the
	 * connection forwarding in the coprocessor after tc dropped the rule.
	 */
	if (cls->command == FLOW_CLS_REPLACE &&
	    !tc_cls_can_offload_and_chain0(port->netdev, &cls->common))
		return -EOPNOTSUPP;
	return npuep_flow_cls(port, cls, NPUEP_OWNER_FLOWER, NULL);
}

/**
 * npuep_flow_tc_busy() - how many tc flower directions enter a port
 * @port: the port
 *
 * ndo_set_features refuses to clear hw-tc-offload while this is not 0, as
 * mlx5e does (mlx5e_handle_feature(): "Active offloaded tc filters, can't
 * turn hw_tc_offload off").  Process context; takes ft_sem and the table
 * lock.
 *
 * Return: the directions entering @port offloaded by flower rules.
 */
u32 npuep_flow_tc_busy(struct npuep_port *port)
{
	struct npuep_dev *ndev = port->ndev;
	struct npuep_ft *ft;
	u32 n = 0;

	down_read(&ndev->ft_sem);
	ft = ndev->ft;
	if (ft) {
		npuep_ft_lock(ft);
		if (ft->owner[port->idx] == NPUEP_OWNER_FLOWER)
			n = ft->owner_flows[port->idx];
		npuep_ft_unlock(ft);
	}
	up_read(&ndev->ft_sem);
	return n;
}

/*
 * A flowtable leaves @port.  nftables unbinds a flowtable's devices before
 * it flushes the flowtable: those DESTROYs reach no driver, so the
 * connections this flowtable offered entering here go now, and only those:
 * another table's flowtable may be bound to the same port.  And
 * nf_flow_table_offload_setup() calls us before it takes our callback off
 * the flowtable's list (under its flow_block_lock): an add work item
 * walking that list can still post a REPLACE after the purge.  The binding
 * stops being live first, under the table lock that npuep_flow_replace()
 * tests it under, so that REPLACE finds it gone (else an orphan stays in
 * the driver and the coprocessor).  tc replays DESTROY for every filter
 * before an unbind: flower needs none of this.
 */
static void npuep_ft_unbind(struct npuep_ft_bind *bind)
{
	struct npuep_dev *ndev = bind->port->ndev;
	struct npuep_ft *ft;

	down_read(&ndev->ft_sem);
	ft = ndev->ft;
	if (ft) {
		npuep_ft_lock_writes(ft);
		WRITE_ONCE(bind->live, false);
		npuep_ft_unlock(ft);
		npuep_flow_purge(ft, bind->port->idx, NPUEP_OWNER_FT, bind);
	} else {
		WRITE_ONCE(bind->live, false);
	}
	up_read(&ndev->ft_sem);
}

static void npuep_ft_bind_release(void *cb_priv)
{
	kfree(cb_priv);
}

/*
 * Every block callback of every npuep device, one list per binder, each
 * changed under the lock its binder holds: tc binds under rtnl, and
 * tcf_block_bind()'s unroll of a failed shared-block bind deletes from the
 * list it was given under rtnl only; nf_tables binds under its own mutex
 * and never touches the list.  npuep_block_cb_lock serialises our binds and
 * unbinds besides; it is taken before the flow-table lock and never under it.
 */
static LIST_HEAD(npuep_tc_block_cb_list);	/* rtnl */
static LIST_HEAD(npuep_ft_block_cb_list);	/* npuep_block_cb_lock */
static DEFINE_MUTEX(npuep_block_cb_lock);

/* Whether @port's offload is driven by flower rules; under ft_sem, which
 * keeps a reload's resize from freeing the table meanwhile.
 */
static bool npuep_port_flower_owned(struct npuep_port *port)
{
	struct npuep_dev *ndev = port->ndev;
	bool owned;

	down_read(&ndev->ft_sem);
	owned = ndev->ft &&
		READ_ONCE(ndev->ft->owner[port->idx]) == NPUEP_OWNER_FLOWER;
	up_read(&ndev->ft_sem);
	return owned;
}

static int npuep_block_bind(struct npuep_port *port, struct flow_block_offload *f,
			    flow_setup_cb_t *cb)
{
	struct flow_block_cb *block_cb;

	if (cb == npuep_ft_block_cb && npuep_port_flower_owned(port)) {
		NL_SET_ERR_MSG_MOD(f->extack,
				   "port's offload is driven by tc flower rules");
		return -EBUSY;
	}
	block_cb = flow_block_cb_lookup(f->block, cb, port);
	if (block_cb) {
		flow_block_cb_incref(block_cb);
		return 0;
	}
	if (cb == npuep_ft_block_cb) {
		struct npuep_ft_bind *bind = kzalloc(sizeof(*bind), GFP_KERNEL);

		if (!bind)
			return -ENOMEM;
		bind->port = port;
		bind->live = true;
		block_cb = flow_block_cb_alloc(cb, port, bind, npuep_ft_bind_release);
		if (IS_ERR(block_cb))
			kfree(bind);
	} else {
		block_cb = flow_block_cb_alloc(cb, port, port, NULL);
	}
	if (IS_ERR(block_cb))
		return PTR_ERR(block_cb);
	flow_block_cb_incref(block_cb);
	flow_block_cb_add(block_cb, f);
	list_add_tail(&block_cb->driver_list, f->driver_block_list);
	return 0;
}

static int npuep_block_unbind(struct npuep_port *port, struct flow_block_offload *f,
			      flow_setup_cb_t *cb)
{
	struct flow_block_cb *block_cb;

	block_cb = flow_block_cb_lookup(f->block, cb, port);
	if (!block_cb)
		return -ENOENT;
	if (flow_block_cb_decref(block_cb))
		return 0;
	flow_block_cb_remove(block_cb, f);
	list_del(&block_cb->driver_list);
	if (cb == npuep_ft_block_cb)
		npuep_ft_unbind(flow_block_cb_priv(block_cb));
	return 0;
}

static int npuep_setup_block(struct npuep_port *port, struct flow_block_offload *f,
			     flow_setup_cb_t *cb)
{
	int err;

	if (f->binder_type != FLOW_BLOCK_BINDER_TYPE_CLSACT_INGRESS)
		return -EOPNOTSUPP;
	if (cb == npuep_tc_block_cb) {
		ASSERT_RTNL();
		f->driver_block_list = &npuep_tc_block_cb_list;
	} else {
		f->driver_block_list = &npuep_ft_block_cb_list;
	}

	mutex_lock(&npuep_block_cb_lock);
	switch (f->command) {
	case FLOW_BLOCK_BIND:
		err = npuep_block_bind(port, f, cb);
		break;
	case FLOW_BLOCK_UNBIND:
		err = npuep_block_unbind(port, f, cb);
		break;
	default:
		err = -EOPNOTSUPP;
	}
	mutex_unlock(&npuep_block_cb_lock);
	return err;
}

/**
 * npuep_setup_tc() - ndo_setup_tc: flowtable and flower offload
 * @netdev: a port's netdev
 * @type: TC_SETUP_FT (nftables flowtable) or TC_SETUP_BLOCK (clsact ingress)
 * @type_data: struct flow_block_offload
 *
 * Return: 0, -EOPNOTSUPP for other types or when hw-tc-offload is off.
 */
int npuep_setup_tc(struct net_device *netdev, enum tc_setup_type type,
		   void *type_data)
{
	struct npuep_port *port = netdev_priv(netdev);
	struct flow_block_offload *f = type_data;

	switch (type) {
	case TC_SETUP_FT:
		return npuep_setup_block(port, f, npuep_ft_block_cb);
	case TC_SETUP_BLOCK:
		/*
		 * The callback takes ft_sem and the flow-table lock and
		 * nothing rtnl guards, as the flowtable's callback (called
		 * from nf_flow_table's work, without rtnl) does: tc need not
		 * take rtnl for an offloaded rule, so rules written from
		 * more than one socket are added side by side.
		 */
		f->unlocked_driver_cb = true;
		return npuep_setup_block(port, f, npuep_tc_block_cb);
	default:
		return -EOPNOTSUPP;
	}
}
