// SPDX-License-Identifier: GPL-2.0
/*
 * The model's trap policers (npu_hw.h, "Trap policers"): per punt reason
 * a map to one of NPU_POLICERS token buckets (tb_pure.c), executed on
 * the ingress path after the punt is counted and before the frame takes a
 * receive descriptor; the registers behind them; their drop counters.
 */
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/timekeeping.h>

#include "npusim.h"
#include "tb_pure.h"

/**
 * struct npusim_policer - one policer
 * @lock: @tb (ingress on any CPU, register writes)
 * @tb: the bucket, as last applied by a RATE write
 * @burst_reg: NPU_POLICER_BURST as written, applied by the next RATE write
 * @drops: NPU_POLICER_DROPS
 */
struct npusim_policer {
	spinlock_t lock;	/* see above */
	struct npusim_tb tb;
	u32 burst_reg;
	atomic64_t drops;
};

/**
 * struct npusim_pol - the policers of one model device
 * @map: NPU_REG_POLICER_MAP per punt reason: 0 or 1..NPU_POLICERS
 * @p: the policers, [0] unused
 * @port_drops: NPU_PORT_FP_PUNT_DROPS per port
 */
struct npusim_pol {
	u8 map[NPU_PUNT_MAX];
	struct npusim_policer p[NPU_POLICERS + 1];
	atomic64_t port_drops[NPU_MAX_PORTS];
};

/**
 * npusim_policer_init - the policers in their reset state (nothing policed)
 * @nd: model device
 *
 * Return: 0 or -ENOMEM.
 */
int npusim_policer_init(struct npusim_dev *nd)
{
	struct npusim_pol *pol;
	int i;

	pol = kzalloc(sizeof(*pol), GFP_KERNEL);
	if (!pol)
		return -ENOMEM;
	for (i = 1; i <= NPU_POLICERS; i++) {
		spin_lock_init(&pol->p[i].lock);
		pol->p[i].burst_reg = 1;
		atomic64_set(&pol->p[i].drops, 0);
		npusim_tb_set(&pol->p[i].tb, 0, 1, NPU_POLICER_RATE_MAX,
			      NPU_POLICER_BURST_MAX, 0);
	}
	for (i = 0; i < NPU_MAX_PORTS; i++)
		atomic64_set(&pol->port_drops[i], 0);
	nd->pol = pol;
	return 0;
}

/**
 * npusim_policer_fini - free the policers
 * @nd: model device; no ingress runs any more
 */
void npusim_policer_fini(struct npusim_dev *nd)
{
	kfree(nd->pol);
	nd->pol = NULL;
}

/**
 * npusim_policer_fault - a firmware fault: the configuration is lost
 * @nd: model device
 *
 * Every map and every rate back to 0 (npu_hw.h); the drop counters stay.
 */
void npusim_policer_fault(struct npusim_dev *nd)
{
	struct npusim_pol *pol = nd->pol;
	unsigned long flags;
	int i;

	for (i = 0; i < NPU_PUNT_MAX; i++)
		WRITE_ONCE(pol->map[i], 0);
	for (i = 1; i <= NPU_POLICERS; i++) {
		spin_lock_irqsave(&pol->p[i].lock, flags);
		pol->p[i].burst_reg = 1;
		npusim_tb_set(&pol->p[i].tb, 0, 1, NPU_POLICER_RATE_MAX,
			      NPU_POLICER_BURST_MAX, ktime_get_ns());
		spin_unlock_irqrestore(&pol->p[i].lock, flags);
	}
}

/**
 * npusim_policer_is_reg - whether a register is one of the policers'
 * @reg: register offset
 *
 * Return: true for NPU_REG_POLICER_MAP() and NPU_REG_POLICER() blocks.
 */
bool npusim_policer_is_reg(u32 reg)
{
	return (reg >= NPU_REG_POLICER_MAP(0) &&
		reg < NPU_REG_POLICER_MAP(NPU_PUNT_MAX)) ||
	       (reg >= NPU_REG_POLICER(1) &&
		reg < NPU_REG_POLICER(NPU_POLICERS + 1));
}

/* The policer of a register in a NPU_REG_POLICER() block, or NULL. */
static struct npusim_policer *npusim_policer_of(struct npusim_dev *nd,
						u32 reg, u32 *off)
{
	u32 n;

	if (reg < NPU_REG_POLICER(1) || reg >= NPU_REG_POLICER(NPU_POLICERS + 1))
		return NULL;
	n = (reg - NPU_REG_POLICER(0)) / 0x20;
	*off = (reg - NPU_REG_POLICER(0)) % 0x20;
	return &nd->pol->p[n];
}

/**
 * npusim_policer_read - read a policer register
 * @nd: model device
 * @reg: a register npusim_policer_is_reg() accepts
 *
 * Return: its value; 0 for a hole.
 */
u64 npusim_policer_read(struct npusim_dev *nd, u32 reg)
{
	struct npusim_policer *p;
	unsigned long flags;
	u64 v = 0;
	u32 off;

	if (reg < NPU_REG_POLICER_MAP(NPU_PUNT_MAX)) {
		if (reg & 3)
			return 0;
		return READ_ONCE(nd->pol->map[(reg - NPU_REG_POLICER_MAP(0)) / 4]);
	}
	p = npusim_policer_of(nd, reg, &off);
	if (!p)
		return 0;
	spin_lock_irqsave(&p->lock, flags);
	if (off == NPU_POLICER_RATE)
		v = p->tb.rate;
	else if (off == NPU_POLICER_BURST)
		v = p->burst_reg;
	spin_unlock_irqrestore(&p->lock, flags);
	if (off == NPU_POLICER_DROPS)
		v = atomic64_read(&p->drops);
	else if (off == NPU_POLICER_DROPS + 4)
		v = atomic64_read(&p->drops) >> 32;
	return v;
}

/**
 * npusim_policer_write - write a policer register
 * @nd: model device
 * @reg: a register npusim_policer_is_reg() accepts
 * @val: the value; a map value above NPU_POLICERS is ignored, a rate or
 *	burst out of range is clamped (npusim_tb_set())
 */
void npusim_policer_write(struct npusim_dev *nd, u32 reg, u32 val)
{
	struct npusim_policer *p;
	unsigned long flags;
	u32 off;

	if (reg < NPU_REG_POLICER_MAP(NPU_PUNT_MAX)) {
		if (!(reg & 3) && val <= NPU_POLICERS)
			WRITE_ONCE(nd->pol->map[(reg - NPU_REG_POLICER_MAP(0)) / 4],
				   val);
		return;
	}
	p = npusim_policer_of(nd, reg, &off);
	if (!p)
		return;
	spin_lock_irqsave(&p->lock, flags);
	if (off == NPU_POLICER_BURST)
		p->burst_reg = clamp_t(u32, val, 1, NPU_POLICER_BURST_MAX);
	else if (off == NPU_POLICER_RATE)
		npusim_tb_set(&p->tb, val, p->burst_reg, NPU_POLICER_RATE_MAX,
			      NPU_POLICER_BURST_MAX, ktime_get_ns());
	spin_unlock_irqrestore(&p->lock, flags);
}

/**
 * npusim_policer_port_drops - NPU_PORT_FP_PUNT_DROPS of a port
 * @port: the port
 *
 * Return: its punts the policers dropped.
 */
u64 npusim_policer_port_drops(struct npusim_port *port)
{
	return atomic64_read(&port->nd->pol->port_drops[port->idx]);
}

/**
 * npusim_policer_admit - a punted frame passes its reason's policer or not
 * @port: the ingress port
 * @reason: its punt reason (as counted), < NPU_PUNT_MAX
 *
 * Called on the ingress path before the frame takes a receive descriptor;
 * one lock per policer, held for the bucket's arithmetic only.
 *
 * Return: true if the frame goes on to the host, false if it is to be
 * dropped (counted here).
 */
bool npusim_policer_admit(struct npusim_port *port, u8 reason)
{
	struct npusim_pol *pol = port->nd->pol;
	struct npusim_policer *p;
	unsigned long flags;
	bool pass;
	u8 n;

	if (reason >= NPU_PUNT_MAX)
		return true;
	n = READ_ONCE(pol->map[reason]);
	if (!n || n > NPU_POLICERS)
		return true;
	p = &pol->p[n];
	spin_lock_irqsave(&p->lock, flags);
	pass = npusim_tb_take(&p->tb, ktime_get_ns());
	spin_unlock_irqrestore(&p->lock, flags);
	if (!pass) {
		atomic64_inc(&p->drops);
		atomic64_inc(&pol->port_drops[port->idx]);
	}
	return pass;
}
