// SPDX-License-Identifier: GPL-2.0
/*
 * The model's ingress classifier in the device: each port's table of
 * ntuple rules (ntuple_pure.c) behind a lock, the NPU_CMD_NTUPLE_*
 * commands, the drop counter, the ingress hook and the debugfs view
 * p<N>/ntuple.
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "npusim.h"
#include "ntuple_pure.h"

/**
 * struct npusim_nt_port - one port's classifier
 * @lock: @tbl (taken in the wire's xmit and in the command worker)
 * @tbl: the rules
 * @drops: NPU_PORT_RX_NTUPLE_DROPS
 * @hits: frames each location decided (debugfs)
 */
struct npusim_nt_port {
	spinlock_t lock;	/* see above */
	struct npusim_nt_tbl tbl;
	atomic64_t drops;
	u64 hits[NPU_NTUPLE_RULES];
};

/**
 * npusim_ntuple_init - an empty classifier for every port
 * @nd: model device (nd->nports set)
 *
 * Return: 0 or -ENOMEM.
 */
int npusim_ntuple_init(struct npusim_dev *nd)
{
	u32 p;

	nd->nt = kvcalloc(nd->nports, sizeof(*nd->nt), GFP_KERNEL);
	if (!nd->nt)
		return -ENOMEM;
	for (p = 0; p < nd->nports; p++) {
		spin_lock_init(&nd->nt[p].lock);
		npusim_nt_tbl_init(&nd->nt[p].tbl);
		atomic64_set(&nd->nt[p].drops, 0);
	}
	return 0;
}

/**
 * npusim_ntuple_fini - free the classifiers
 * @nd: model device; no ingress or command runs any more
 */
void npusim_ntuple_fini(struct npusim_dev *nd)
{
	kvfree(nd->nt);
	nd->nt = NULL;
}

/**
 * npusim_ntuple_flush - empty every port's table (a firmware fault)
 * @nd: model device
 */
void npusim_ntuple_flush(struct npusim_dev *nd)
{
	u32 p;

	for (p = 0; p < nd->nports; p++) {
		spin_lock_bh(&nd->nt[p].lock);
		npusim_nt_tbl_init(&nd->nt[p].tbl);
		memset(nd->nt[p].hits, 0, sizeof(nd->nt[p].hits));
		spin_unlock_bh(&nd->nt[p].lock);
	}
}

/**
 * npusim_ntuple_drops - NPU_PORT_RX_NTUPLE_DROPS
 * @port: the port
 *
 * Return: frames a drop rule of @port dropped.
 */
u64 npusim_ntuple_drops(struct npusim_port *port)
{
	return atomic64_read(&port->nd->nt[port->idx].drops);
}

/**
 * npusim_ntuple_ingress - the classifier's look at a frame to be punted
 * @port: ingress port
 * @pkt: the parser's result with the punt reason; a steered frame's
 *	reason becomes NPU_PUNT_NTUPLE
 * @queue: on NPUSIM_NT_STEER, the receive queue
 *
 * Called in the wire's xmit.
 *
 * Return: NPUSIM_NT_PASS (RSS decides), NPUSIM_NT_STEER or NPUSIM_NT_DROP
 * (counted; the caller frees the frame).
 */
enum npusim_nt_verdict npusim_ntuple_ingress(struct npusim_port *port,
					     struct npusim_pkt *pkt, u8 *queue)
{
	struct npusim_nt_port *np = &port->nd->nt[port->idx];
	enum npusim_nt_verdict v = NPUSIM_NT_PASS;
	int loc;

	if (!READ_ONCE(np->tbl.count))
		return NPUSIM_NT_PASS;
	spin_lock_bh(&np->lock);
	loc = npusim_nt_match(&np->tbl, pkt);
	if (loc != NPUSIM_NT_NONE) {
		const struct npu_ntuple_rule *r = &np->tbl.rule[loc];

		np->hits[loc]++;
		if (r->action == NPU_NTUPLE_ACT_DROP) {
			v = NPUSIM_NT_DROP;
		} else {
			v = NPUSIM_NT_STEER;
			*queue = le16_to_cpu(r->queue);	/* checked at add */
			pkt->reason = NPU_PUNT_NTUPLE;
		}
	}
	spin_unlock_bh(&np->lock);
	if (v == NPUSIM_NT_DROP)
		atomic64_inc(&np->drops);
	return v;
}

/**
 * npusim_ntuple_cmd - execute an NPU_CMD_NTUPLE_* command
 * @nd: model device
 * @c: the command (response written in place: none)
 * @len: request bytes in @c->data
 *
 * Return: an enum npu_cmd_status, or -1 if @c is not a classifier command.
 */
int npusim_ntuple_cmd(struct npusim_dev *nd, struct npu_cmd *c, u16 len)
{
	u16 op = le16_to_cpu(c->opcode);
	struct npu_cmd_ntuple nc;
	struct npusim_nt_port *np;
	u16 port, st;

	BUILD_BUG_ON(sizeof(nc) > NPU_CMD_DATA_LEN);
	BUILD_BUG_ON(sizeof(struct npu_ntuple_rule) != 80);
	if (op != NPU_CMD_NTUPLE_ADD && op != NPU_CMD_NTUPLE_DEL)
		return -1;
	if (len < sizeof(nc))
		return NPU_ST_BAD_PARAM;
	memcpy(&nc, c->data, sizeof(nc));
	port = le16_to_cpu(nc.port);
	if (port >= nd->nports)
		return NPU_ST_BAD_PARAM;
	np = &nd->nt[port];
	spin_lock_bh(&np->lock);
	if (op == NPU_CMD_NTUPLE_ADD) {
		st = npusim_nt_add(&np->tbl, &nc, nd->nqueues);
		if (st == NPU_ST_OK)
			np->hits[le16_to_cpu(nc.loc)] = 0;
	} else {
		st = npusim_nt_del(&np->tbl, &nc);
	}
	spin_unlock_bh(&np->lock);
	c->len = 0;
	return st;
}

static int npusim_ntuple_show(struct seq_file *m, void *v)
{
	struct npusim_port *port = m->private;
	struct npusim_nt_port *np = &port->nd->nt[port->idx];
	struct npusim_nt_tbl *t;
	u64 *hits;
	u32 i;

	t = kmalloc(sizeof(*t), GFP_KERNEL);
	hits = kmalloc_array(NPU_NTUPLE_RULES, sizeof(*hits), GFP_KERNEL);
	if (!t || !hits) {
		kfree(t);
		kfree(hits);
		return -ENOMEM;
	}
	spin_lock_bh(&np->lock);
	*t = np->tbl;
	memcpy(hits, np->hits, NPU_NTUPLE_RULES * sizeof(*hits));
	spin_unlock_bh(&np->lock);

	seq_printf(m, "rules %u/%u\ndrops %lld\n", t->count, NPU_NTUPLE_RULES,
		   atomic64_read(&np->drops));
	for (i = 0; i < t->top; i++) {
		const struct npu_ntuple_rule *r = &t->rule[i];

		if (!t->used[i])
			continue;
		seq_printf(m, "loc %u family %u proto %u/%#x", i, r->family,
			   r->proto, r->proto_mask);
		if (r->family == NPU_AF_INET)
			seq_printf(m, " src %pI4/%pI4 dst %pI4/%pI4",
				   &r->saddr[0], &r->saddr_mask[0],
				   &r->daddr[0], &r->daddr_mask[0]);
		else
			seq_printf(m, " src %pI6c/%pI6c dst %pI6c/%pI6c",
				   r->saddr, r->saddr_mask, r->daddr,
				   r->daddr_mask);
		seq_printf(m, " sport %u/%#x dport %u/%#x", be16_to_cpu(r->sport),
			   be16_to_cpu(r->sport_mask), be16_to_cpu(r->dport),
			   be16_to_cpu(r->dport_mask));
		if (r->action == NPU_NTUPLE_ACT_DROP)
			seq_puts(m, " action drop");
		else
			seq_printf(m, " action queue %u", le16_to_cpu(r->queue));
		seq_printf(m, " hits %llu\n", hits[i]);
	}
	kfree(hits);
	kfree(t);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(npusim_ntuple);

/**
 * npusim_ntuple_debugfs - p<N>/ntuple: the rules the device holds
 * @nd: model device (the ports' debugfs directories exist)
 */
void npusim_ntuple_debugfs(struct npusim_dev *nd)
{
	u32 p;

	for (p = 0; p < nd->nports; p++)
		debugfs_create_file("ntuple", 0400, nd->ports[p].dbg,
				    &nd->ports[p], &npusim_ntuple_fops);
}
