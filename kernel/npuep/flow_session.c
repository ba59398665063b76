// SPDX-License-Identifier: GPL-2.0
/*
 * npuep flow offload: PPPoE sessions that end take their connections out.
 *
 * A direction that pushes a PPPoE session (a flowtable's PPPOE_PUSH, a
 * flower rule into a ppp device) keeps sending in it after pppd exits or
 * the link renegotiates: the kernel does not tear a flowtable's flow down
 * when its session ends (its NETDEV_DOWN cleanup matches the ingress
 * device, the port), and a flower rule stays until its writer removes it.
 *
 * The driver's netdev notifier watches what ends sessions or shrinks them:
 * a ppp device going down or away or changing its MTU, and one of this
 * device's ports or a VLAN device over one going down or changing its MTU
 * or address (pppoe flushes the sessions over a device then).  Each queues
 * session_work, which runs after the notifier chain (under rtnl): it
 * gathers the sessions up over the ports (npuep_flow_sessions()) and takes
 * out of the coprocessor every connection, the flowtable's and flower's
 * alike, with a direction whose session is not among them, or is but
 * carries less than the direction was written to send in it (its ppp
 * device's MTU lowered: the coprocessor checks a frame against the MTU
 * the direction holds), counted in fp_pppoe_reclaimed.  Their
 * directions leave the shadow table: the kernel's DESTROY then finds
 * nothing, its STATS no traffic, and a flowtable's flow ages out; a
 * flowtable's refresh of a push into a session that is gone is refused
 * (npuep_flow_session_up()).
 */
#include <linux/if_arp.h>
#include <linux/if_vlan.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "npuep.h"
#include "flow_priv.h"
#include "flow_pair.h"

/* A reclaim drops the flow-table lock after this many connections. */
#define NPUEP_SESSION_BATCH	16
/* session_work tries again this long (ms) after it found no memory. */
#define NPUEP_SESSION_RETRY_MS	100
/* Room for this many sessions first; more are gathered again. */
#define NPUEP_SESSION_MIN	8

/* Whether @dev is one of @ndev's ports or a VLAN device over one. */
static bool npuep_session_lower(const struct npuep_dev *ndev,
				const struct net_device *dev)
{
	while (is_vlan_dev(dev))
		dev = vlan_dev_real_dev(dev);
	return npuep_flow_port_of(ndev, dev) != NPUEP_FD_PORT_FOREIGN;
}

/* Whether @event on @dev may end a session over @ndev's ports. */
static bool npuep_session_event_ends(const struct npuep_dev *ndev,
				     const struct net_device *dev,
				     unsigned long event)
{
	if (dev->type == ARPHRD_PPP)
		return event == NETDEV_DOWN || event == NETDEV_UNREGISTER ||
		       event == NETDEV_CHANGEMTU;
	switch (event) {
	case NETDEV_DOWN:
	case NETDEV_CHANGEMTU:
	case NETDEV_CHANGEADDR:
		return npuep_session_lower(ndev, dev);
	default:
		return false;
	}
}

static int npuep_session_event(struct notifier_block *nb, unsigned long event,
			       void *ptr)
{
	struct npuep_dev *ndev = container_of(nb, struct npuep_dev, session_nb);
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);

	if (npuep_session_event_ends(ndev, dev, event))
		queue_delayed_work(system_unbound_wq, &ndev->session_work, 0);
	return NOTIFY_DONE;
}

/*
 * The sessions up over @ndev's ports, in every namespace a port is in,
 * into @live (@cap of room).  Under rtnl.  Return: how many there are.
 */
static u32 npuep_session_gather_nets(struct npuep_dev *ndev,
				     struct npuep_fd_session *live, u32 cap)
{
	struct net *net;
	u32 i, j, n = 0;

	for (i = 0; i < ndev->nports; i++) {
		if (!ndev->ports[i])
			continue;
		net = dev_net(ndev->ports[i]->netdev);
		for (j = 0; j < i; j++)
			if (ndev->ports[j] && net_eq(dev_net(ndev->ports[j]->netdev), net))
				break;
		if (j < i)
			continue;	/* a namespace walked already */
		n += npuep_flow_sessions(ndev, net, live + min(n, cap),
					 cap - min(n, cap));
	}
	return n;
}

/*
 * The sessions up over @ndev's ports, after every notifier of the event
 * that queued us (rtnl).  Return: an array of *@n (kfree()), or NULL
 * without memory.
 */
static struct npuep_fd_session *npuep_session_gather(struct npuep_dev *ndev, u32 *n)
{
	struct npuep_fd_session *live = NULL;
	u32 cap = NPUEP_SESSION_MIN;

	rtnl_lock();
	for (;;) {
		kfree(live);
		live = kcalloc(cap, sizeof(*live), GFP_KERNEL);
		if (!live)
			break;
		*n = npuep_session_gather_nets(ndev, live, cap);
		if (*n <= cap)
			break;
		cap = *n;
	}
	rtnl_unlock();
	return live;
}

/*
 * Whether direction @f, which sends in session @s, still may: @s is in
 * @live (@n) with an MTU no smaller than the one @f was written with.
 */
static bool npuep_session_holds(const struct npuep_flow *f, const struct npuep_fd_session *s,
				const struct npuep_fd_session *live, u32 n)
{
	int i = npuep_flow_session_find(s, live, n);

	return i >= 0 && le16_to_cpu(f->rw.mtu) <= live[i].mtu;
}

/*
 * Move the directions of every connection that sends in a session not in
 * @live (@n), or in one whose MTU fell under the direction's, from their
 * ports' lists to @gone, under ft->lock.  Return: the connections moved.
 */
static u32 npuep_session_sort(struct npuep_ft *ft, const struct npuep_fd_session *live,
			      u32 n, struct list_head *gone)
{
	struct npuep_flow *f, *tmp, *g;
	struct npuep_fd_session s;
	u32 p, nconns = 0;

	for (p = 0; p < NPU_MAX_PORTS; p++) {
		list_for_each_entry_safe(f, tmp, &ft->port_flows[p], pnode) {
			if (!npuep_flow_session(&f->key, &f->rw, &s) ||
			    npuep_session_holds(f, &s, live, n))
				continue;
			g = f->conn->flow[!f->dir];
			if (g) {
				/* the walk's next may be the other direction */
				if (g == tmp)
					tmp = list_next_entry(tmp, pnode);
				list_move_tail(&g->pnode, gone);
			}
			list_move_tail(&f->pnode, gone);
			nconns++;
		}
	}
	return nconns;
}

/*
 * Take out up to NPUEP_SESSION_BATCH connections of @gone, under
 * ft->lock: one RECLAIM each, both directions with it, as a teardown's
 * queued DESTROYs do (npuep_flow_remove_conn()).  Return: how many.
 */
static u32 npuep_session_reclaim_batch(struct npuep_ft *ft, struct list_head *gone)
{
	struct npuep_flow *f;
	u32 n;

	for (n = 0; n < NPUEP_SESSION_BATCH && !list_empty(gone); n++) {
		f = list_first_entry(gone, struct npuep_flow, pnode);
		npuep_flow_remove_conn(ft, f);
		ft->st.pppoe_reclaimed++;
	}
	return n;
}

/*
 * Take out every connection that sends in a session not in @live (@n):
 * sorted out in one hold of the lock, taken out NPUEP_SESSION_BATCH to a
 * hold, as a purge does.  A DESTROY meanwhile removes a direction from
 * @gone as from its port's list (npuep_flow_unhash()).
 */
static void npuep_session_reclaim(struct npuep_ft *ft,
				  const struct npuep_fd_session *live, u32 n)
{
	LIST_HEAD(gone);
	u32 moved;

	npuep_ft_lock(ft);
	moved = npuep_session_sort(ft, live, n, &gone);
	npuep_ft_unlock(ft);
	if (!moved)
		return;
	do {
		npuep_ft_lock_writes(ft);
		npuep_session_reclaim_batch(ft, &gone);
		moved = !list_empty(&gone);
		npuep_ft_unlock(ft);
		cond_resched();
	} while (moved);
}

static void npuep_session_work(struct work_struct *work)
{
	struct npuep_dev *ndev = container_of(to_delayed_work(work), struct npuep_dev,
					      session_work);
	struct npuep_fd_session *live;
	u32 n = 0;

	live = npuep_session_gather(ndev, &n);
	if (!live) {
		queue_delayed_work(system_unbound_wq, &ndev->session_work,
				   msecs_to_jiffies(NPUEP_SESSION_RETRY_MS));
		return;
	}
	down_read(&ndev->ft_sem);
	if (ndev->ft)
		npuep_session_reclaim(ndev->ft, live, n);
	up_read(&ndev->ft_sem);
	kfree(live);
}

/**
 * npuep_session_start() - watch the events that end PPPoE sessions
 * @ndev: the coprocessor, its ports registered
 *
 * Context: process; takes rtnl.
 * Return: 0 or a negative errno.
 */
int npuep_session_start(struct npuep_dev *ndev)
{
	INIT_DELAYED_WORK(&ndev->session_work, npuep_session_work);
	ndev->session_nb.notifier_call = npuep_session_event;
	return register_netdevice_notifier(&ndev->session_nb);
}

/**
 * npuep_session_stop() - stop watching, before the ports go
 * @ndev: the coprocessor
 *
 * The notifier's unregistration replays the devices' DOWN events; the
 * work they queue is cancelled after it.
 *
 * Context: process; takes rtnl.
 */
void npuep_session_stop(struct npuep_dev *ndev)
{
	unregister_netdevice_notifier(&ndev->session_nb);
	cancel_delayed_work_sync(&ndev->session_work);
}
