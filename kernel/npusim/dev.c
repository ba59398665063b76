// SPDX-License-Identifier: GPL-2.0
/*
 * One coprocessor: creation and teardown, the auxiliary device the
 * host driver binds to, and the register file behind struct npu_hw_ops.
 */
#include <linux/auxiliary_bus.h>
#include <linux/etherdevice.h>
#include <linux/slab.h>
#include <linux/wait.h>

#include "npusim.h"

/* The Microsoft RSS reference key: the default of every port. */
static const u8 npusim_default_rss_key[NPU_RSS_KEY_LEN] = {
	0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2,
	0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3, 0x8f, 0xb0,
	0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4,
	0x77, 0xcb, 0x2d, 0xa3, 0x80, 0x30, 0xf2, 0x0c,
	0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

/* Objects whose release callback (module text) has not run yet. */
static atomic_t npusim_objs = ATOMIC_INIT(0);
static DECLARE_WAIT_QUEUE_HEAD(npusim_objs_wq);

/**
 * npusim_obj_get - count an object whose release function is in this module
 */
void npusim_obj_get(void)
{
	atomic_inc(&npusim_objs);
}

/**
 * npusim_obj_put - such an object was released
 */
void npusim_obj_put(void)
{
	if (atomic_dec_and_test(&npusim_objs))
		wake_up_all(&npusim_objs_wq);
}

/**
 * npusim_objs_wait - wait until every counted object is released
 *
 * Module exit, once no object can be counted any more: the release
 * callbacks are module text.
 */
void npusim_objs_wait(void)
{
	wait_event(npusim_objs_wq, !atomic_read(&npusim_objs));
}

/* ------------------------------------------------------------------ */
/* Registers                                                           */

static u64 npusim_serial(struct npusim_dev *nd)
{
	return 0x4e50550000000000ULL | nd->id;	/* "NPU" + ID */
}

static struct npusim_port *npusim_reg_port(struct npusim_dev *nd, u32 reg,
					   u32 *off)
{
	u32 p;

	if (reg < NPU_REG_PORT(0) || reg >= NPU_REG_PORT(NPU_MAX_PORTS))
		return NULL;
	p = (reg - NPU_REG_PORT(0)) / 0x100;
	if (p >= nd->nports)
		return NULL;
	*off = (reg - NPU_REG_PORT(0)) % 0x100;
	return &nd->ports[p];
}

static struct npusim_qp *npusim_reg_qp(struct npusim_dev *nd, u32 reg,
				       u32 *off)
{
	u32 n, p, q;

	if (reg < NPU_REG_QP(0, 0) || reg >= NPU_REG_QP(NPU_MAX_PORTS, 0))
		return NULL;
	n = (reg - NPU_REG_QP(0, 0)) / 0x100;
	p = n / NPU_MAX_QUEUES;
	q = n % NPU_MAX_QUEUES;
	if (p >= nd->nports || q >= nd->nqueues)
		return NULL;
	*off = (reg - NPU_REG_QP(0, 0)) % 0x100;
	return &nd->ports[p].qps[q];
}

static u64 npusim_port_read(struct npusim_port *port, u32 off)
{
	unsigned long flags;
	u32 val = 0;
	int i;

	switch (off) {
	case NPU_PORT_MAC_LO:
		return port->mac[0] | port->mac[1] << 8 | port->mac[2] << 16 |
		       (u32)port->mac[3] << 24;
	case NPU_PORT_MAC_HI:
		return port->mac[4] | port->mac[5] << 8;
	case NPU_PORT_LINK:
		return npusim_port_link(port);
	case NPU_PORT_MTU:
		return READ_ONCE(port->mtu);
	case NPU_PORT_RX_RUNTS:
		return atomic64_read(&port->rx_runts);
	case NPU_PORT_RX_MALFORMED:
		return atomic64_read(&port->rx_malformed);
	case NPU_PORT_RX_OVERSIZE:
		return atomic64_read(&port->rx_oversize);
	case NPU_PORT_RX_NOQUEUE:
		return atomic64_read(&port->rx_noqueue);
	case NPU_PORT_TX_BAD:
		return atomic64_read(&port->tx_bad);
	case NPU_PORT_RX_NTUPLE_DROPS:
		return npusim_ntuple_drops(port);
	}
	if (off >= NPU_PORT_RSS_KEY && off < NPU_PORT_RSS_KEY + NPU_RSS_KEY_LEN &&
	    !(off & 3)) {
		i = off - NPU_PORT_RSS_KEY;
		spin_lock_irqsave(&port->rss_lock, flags);
		val = port->rss_key[i] | port->rss_key[i + 1] << 8 |
		      port->rss_key[i + 2] << 16 | (u32)port->rss_key[i + 3] << 24;
		spin_unlock_irqrestore(&port->rss_lock, flags);
	} else if (off >= NPU_PORT_RETA &&
		   off < NPU_PORT_RETA + NPU_RSS_RETA_SIZE && !(off & 3)) {
		i = off - NPU_PORT_RETA;
		spin_lock_irqsave(&port->rss_lock, flags);
		val = port->reta[i] | port->reta[i + 1] << 8 |
		      port->reta[i + 2] << 16 | (u32)port->reta[i + 3] << 24;
		spin_unlock_irqrestore(&port->rss_lock, flags);
	}
	return val;
}

static void npusim_port_write(struct npusim_port *port, u32 off, u32 val)
{
	unsigned long flags;
	u8 *dst = NULL;

	if (off >= NPU_PORT_RSS_KEY && off < NPU_PORT_RSS_KEY + NPU_RSS_KEY_LEN &&
	    !(off & 3))
		dst = &port->rss_key[off - NPU_PORT_RSS_KEY];
	else if (off >= NPU_PORT_RETA &&
		 off < NPU_PORT_RETA + NPU_RSS_RETA_SIZE && !(off & 3))
		dst = &port->reta[off - NPU_PORT_RETA];
	if (!dst)
		return;
	spin_lock_irqsave(&port->rss_lock, flags);
	dst[0] = val;
	dst[1] = val >> 8;
	dst[2] = val >> 16;
	dst[3] = val >> 24;
	spin_unlock_irqrestore(&port->rss_lock, flags);
}

static u64 npusim_qp_read(struct npusim_qp *qp, u32 off)
{
	switch (off) {
	case NPU_QP_RX_BASE:
		return lower_32_bits(READ_ONCE(qp->rx_base));
	case NPU_QP_RX_BASE_HI:
		return upper_32_bits(READ_ONCE(qp->rx_base));
	case NPU_QP_RX_SIZE:
		return READ_ONCE(qp->rx_size);
	case NPU_QP_RX_TAIL:
		return READ_ONCE(qp->rx_tail);
	case NPU_QP_RX_HEAD:
		return READ_ONCE(qp->rx_head);
	case NPU_QP_TX_BASE:
		return lower_32_bits(READ_ONCE(qp->tx_base));
	case NPU_QP_TX_BASE_HI:
		return upper_32_bits(READ_ONCE(qp->tx_base));
	case NPU_QP_TX_SIZE:
		return READ_ONCE(qp->tx_size);
	case NPU_QP_TX_TAIL:
		return READ_ONCE(qp->tx_tail);
	case NPU_QP_TX_HEAD:
		return READ_ONCE(qp->tx_head);
	case NPU_QP_CTRL:
		return READ_ONCE(qp->ctrl);
	case NPU_QP_RX_FRAMES:
		return READ_ONCE(qp->rx_frames);
	case NPU_QP_RX_BYTES:
		return READ_ONCE(qp->rx_bytes);
	case NPU_QP_RX_QFULL:
		return READ_ONCE(qp->rx_qfull);
	case NPU_QP_RX_IRQS:
		return READ_ONCE(qp->rx_irqs);
	case NPU_QP_TX_FRAMES:
		return READ_ONCE(qp->tx_frames);
	case NPU_QP_TX_BYTES:
		return READ_ONCE(qp->tx_bytes);
	case NPU_QP_RX_BADBUF:
		return READ_ONCE(qp->rx_badbuf);
	}
	return 0;
}

static void npusim_qp_ctrl_write(struct npusim_qp *qp, u32 val)
{
	unsigned long flags;
	u32 old;

	val &= NPU_QP_CTRL_RX_EN | NPU_QP_CTRL_TX_EN | NPU_QP_CTRL_IRQ_EN;
	spin_lock_irqsave(&qp->ctrl_lock, flags);
	old = qp->ctrl;
	if ((val ^ old) & NPU_QP_CTRL_RX_EN) {
		if (!npusim_qp_rx_enable(qp, val & NPU_QP_CTRL_RX_EN))
			val &= ~NPU_QP_CTRL_RX_EN;
	}
	if ((val ^ old) & NPU_QP_CTRL_TX_EN) {
		if (!npusim_qp_tx_enable(qp, val & NPU_QP_CTRL_TX_EN))
			val &= ~NPU_QP_CTRL_TX_EN;
	}
	WRITE_ONCE(qp->ctrl, val);
	spin_unlock_irqrestore(&qp->ctrl_lock, flags);

	if ((val ^ old) & NPU_QP_CTRL_IRQ_EN)
		npusim_qp_irq_enable(qp, val & NPU_QP_CTRL_IRQ_EN);
}

static void npusim_qp_write(struct npusim_qp *qp, u32 off, u32 val)
{
	unsigned long flags;

	switch (off) {
	case NPU_QP_RX_BASE:
	case NPU_QP_RX_BASE_HI:
	case NPU_QP_RX_SIZE:
		spin_lock_irqsave(&qp->rx_lock, flags);
		if (qp->rx_en) {
			/* written while disabled only */
		} else if (off == NPU_QP_RX_BASE) {
			qp->rx_base = (qp->rx_base & ~0xffffffffULL) | val;
		} else if (off == NPU_QP_RX_BASE_HI) {
			qp->rx_base = (qp->rx_base & 0xffffffffULL) |
				      (u64)val << 32;
		} else {
			qp->rx_size = val;
		}
		spin_unlock_irqrestore(&qp->rx_lock, flags);
		break;
	case NPU_QP_TX_BASE:
	case NPU_QP_TX_BASE_HI:
	case NPU_QP_TX_SIZE:
		spin_lock_irqsave(&qp->tx_lock, flags);
		if (qp->tx_en) {
			/* written while disabled only */
		} else if (off == NPU_QP_TX_BASE) {
			qp->tx_base = (qp->tx_base & ~0xffffffffULL) | val;
		} else if (off == NPU_QP_TX_BASE_HI) {
			qp->tx_base = (qp->tx_base & 0xffffffffULL) |
				      (u64)val << 32;
		} else {
			qp->tx_size = val;
		}
		spin_unlock_irqrestore(&qp->tx_lock, flags);
		break;
	case NPU_QP_RX_TAIL:
		npusim_qp_rx_tail(qp, val);
		break;
	case NPU_QP_TX_TAIL:
		npusim_qp_tx_doorbell(qp, val);
		break;
	case NPU_QP_CTRL:
		npusim_qp_ctrl_write(qp, val);
		break;
	case NPU_QP_IRQ_UNMASK:
		npusim_qp_irq_unmask(qp);
		break;
	}
}

static u64 npusim_reg_read(struct npusim_dev *nd, u32 reg)
{
	struct npusim_port *port;
	struct npusim_qp *qp;
	u32 off;

	switch (reg) {
	case NPU_REG_MAGIC:
		return NPU_HW_MAGIC;
	case NPU_REG_FW_VERSION:
		return NPUSIM_FW_MAJOR << 16 | NPUSIM_FW_MINOR << 8 |
		       NPUSIM_FW_PATCH;
	case NPU_REG_CAPS:
		return NPUSIM_CAPS;
	case NPU_REG_NPORTS:
		return nd->nports;
	case NPU_REG_NQUEUES:
		return nd->nqueues;
	case NPU_REG_SERIAL:
		return npusim_serial(nd);
	case NPU_REG_SERIAL + 4:
		return upper_32_bits(npusim_serial(nd));
	case NPU_REG_EVENTS:
		return atomic_xchg(&nd->events, 0);
	case NPU_REG_LINK_CHANGED:
		return atomic_xchg(&nd->link_changed, 0);
	case NPU_REG_FT_CONNS:
	case NPU_REG_FT_MFLOWS:
	case NPU_REG_FASTPATH:
	case NPU_REG_FW_STATUS:
		return npusim_fp_read64(nd, reg);
	}
	if ((reg >= NPU_REG_PORT_FP(0) && reg < NPU_REG_PORT_FP(NPU_MAX_PORTS)) ||
	    (reg >= NPU_REG_FT_STATS && reg < NPU_REG_FT_STATS + 0x10))
		return npusim_fp_read64(nd, reg);
	if (npusim_policer_is_reg(reg))
		return npusim_policer_read(nd, reg);
	if (reg >= NPU_REG_CMDQ(0) && reg < NPU_REG_CMDQ(NPU_CMD_RINGS))
		return npusim_cmdq_read(nd, (reg - NPU_REG_CMDQ(0)) / 0x20,
					(reg - NPU_REG_CMDQ(0)) % 0x20);
	port = npusim_reg_port(nd, reg, &off);
	if (port)
		return npusim_port_read(port, off);
	qp = npusim_reg_qp(nd, reg, &off);
	if (qp)
		return npusim_qp_read(qp, off);
	return 0;
}

static u32 npusim_read32(struct npu_hw *hw, u32 reg)
{
	return (u32)npusim_reg_read(npusim_from_hw(hw), reg);
}

static u64 npusim_read64(struct npu_hw *hw, u32 reg)
{
	return npusim_reg_read(npusim_from_hw(hw), reg);
}

static void npusim_write32(struct npu_hw *hw, u32 reg, u32 val)
{
	struct npusim_dev *nd = npusim_from_hw(hw);
	struct npusim_port *port;
	struct npusim_qp *qp;
	u32 off;

	if (reg == NPU_REG_CMD_IRQ_UNMASK) {
		npusim_cmd_irq_unmask(nd);
		return;
	}
	if (reg == NPU_REG_FASTPATH ||
	    (reg >= NPU_REG_FT_STATS && reg < NPU_REG_FT_STATS + 0x10)) {
		npusim_fp_write32(nd, reg, val);
		return;
	}
	if (npusim_policer_is_reg(reg)) {
		npusim_policer_write(nd, reg, val);
		return;
	}
	if (reg >= NPU_REG_CMDQ(0) && reg < NPU_REG_CMDQ(NPU_CMD_RINGS)) {
		npusim_cmdq_write(nd, (reg - NPU_REG_CMDQ(0)) / 0x20,
				  (reg - NPU_REG_CMDQ(0)) % 0x20, val);
		return;
	}
	port = npusim_reg_port(nd, reg, &off);
	if (port) {
		npusim_port_write(port, off, val);
		return;
	}
	qp = npusim_reg_qp(nd, reg, &off);
	if (qp)
		npusim_qp_write(qp, off, val);
}

static int npusim_irq(struct npu_hw *hw, unsigned int vec)
{
	struct npusim_dev *nd = npusim_from_hw(hw);

	if (vec >= nd->nvec || !nd->virq[vec])
		return -EINVAL;
	return nd->virq[vec];
}

static const struct npu_hw_ops npusim_hw_ops = {
	.read32		= npusim_read32,
	.read64		= npusim_read64,
	.write32	= npusim_write32,
	.irq		= npusim_irq,
};

/* ------------------------------------------------------------------ */
/* Life cycle                                                          */

static void npusim_free(struct npusim_dev *nd)
{
	u32 p;

	npusim_cores_fini(nd);		/* first: waits for its work items */
	npusim_ingress_fini(nd);
	if (nd->ports) {
		for (p = 0; p < nd->nports; p++)
			kfree(nd->ports[p].qps);
		kfree(nd->ports);
	}
	kfree(nd->virq);
	free_percpu(nd->datapath_ns);
	free_percpu(nd->dp_work_ns);
	npusim_fp_fini(nd);
	npusim_ntuple_fini(nd);
	npusim_policer_fini(nd);
	kfree(nd);
}

static void npusim_adev_release(struct device *dev)
{
	struct auxiliary_device *adev = to_auxiliary_dev(dev);

	npusim_free(npusim_from_hw(npu_hw_from_adev(adev)));
	npusim_obj_put();
}

static int npusim_ports_init(struct npusim_dev *nd)
{
	struct npusim_port *port;
	struct npusim_qp *qp;
	u32 p, q;
	int i;

	nd->ports = kcalloc(nd->nports, sizeof(*nd->ports), GFP_KERNEL);
	if (!nd->ports)
		return -ENOMEM;
	for (p = 0; p < nd->nports; p++) {
		port = &nd->ports[p];
		port->nd = nd;
		port->idx = p;
		port->mtu = ETH_DATA_LEN;
		spin_lock_init(&port->rss_lock);
		memcpy(port->rss_key, npusim_default_rss_key, NPU_RSS_KEY_LEN);
		for (i = 0; i < NPU_RSS_RETA_SIZE; i++)
			port->reta[i] = i % nd->nqueues;
		/* 02:6e:70:<id lo>:<id hi>:<panel port>, locally administered */
		port->mac[0] = 0x02;
		port->mac[1] = 0x6e;
		port->mac[2] = 0x70;
		port->mac[3] = nd->id & 0xff;
		port->mac[4] = nd->id >> 8;
		port->mac[5] = p + 1;
		atomic64_set(&port->rx_runts, 0);
		atomic64_set(&port->rx_malformed, 0);
		atomic64_set(&port->rx_oversize, 0);
		atomic64_set(&port->rx_noqueue, 0);
		atomic64_set(&port->tx_bad, 0);

		port->qps = kcalloc(nd->nqueues, sizeof(*port->qps), GFP_KERNEL);
		if (!port->qps)
			return -ENOMEM;
		for (q = 0; q < nd->nqueues; q++) {
			qp = &port->qps[q];
			qp->nd = nd;
			qp->port = port;
			qp->idx = q;
			qp->vec = NPU_VEC_QP(p, q, nd->nqueues);
			spin_lock_init(&qp->ctrl_lock);
			spin_lock_init(&qp->rx_lock);
			spin_lock_init(&qp->tx_lock);
			spin_lock_init(&qp->irq_lock);
			INIT_WORK(&qp->tx_work, npusim_tx_work);
			npusim_coal_init(&qp->coal, NPUSIM_COAL_FRAMES_DEFAULT,
					 NPUSIM_COAL_USECS_DEFAULT);
		}
	}
	return 0;
}

/* Stop every source of activity: rings, timers, work.  Idempotent. */
static void npusim_quiesce(struct npusim_dev *nd)
{
	struct npusim_qp *qp;
	unsigned long flags;
	u32 p, q;

	for (p = 0; p < nd->nports; p++) {
		for (q = 0; q < nd->nqueues; q++) {
			qp = &nd->ports[p].qps[q];
			spin_lock_irqsave(&qp->ctrl_lock, flags);
			npusim_qp_rx_enable(qp, false);
			npusim_qp_tx_enable(qp, false);
			qp->ctrl = 0;
			spin_unlock_irqrestore(&qp->ctrl_lock, flags);
		}
	}
	spin_lock_irqsave(&nd->cmd_lock, flags);
	for (p = 0; p < NPU_CMD_RINGS; p++) {
		nd->cmdq[p].size = 0;
		nd->cmdq[p].gen++;
	}
	spin_unlock_irqrestore(&nd->cmd_lock, flags);

	WRITE_ONCE(nd->dead, true);
	if (nd->wq) {
		cancel_work_sync(&nd->cmd_work);
		for (p = 0; p < nd->nports; p++)
			for (q = 0; q < nd->nqueues; q++)
				cancel_work_sync(&nd->ports[p].qps[q].tx_work);
	}
	for (p = 0; p < nd->nports; p++)
		for (q = 0; q < nd->nqueues; q++)
			npusim_qp_irq_stop(&nd->ports[p].qps[q]);
}

/**
 * npusim_dev_create - create one coprocessor on a bus device
 * @bus_dev: the device on the npusim bus (DMA device)
 * @id: ID
 * @nports: front ports, 1..NPU_MAX_PORTS
 * @nqueues: queue pairs per port, 1..NPU_MAX_QUEUES
 *
 * Creates the interrupt domain, the wire netdevs and debugfs, then
 * registers the auxiliary device "npusim.npu.<id>" last, so the host
 * driver finds a complete device when it probes.
 *
 * Return: the device or an ERR_PTR.
 */
struct npusim_dev *npusim_dev_create(struct device *bus_dev, u32 id,
				     u32 nports, u32 nqueues)
{
	struct auxiliary_device *adev;
	struct npusim_dev *nd;
	int err;

	nd = kzalloc(sizeof(*nd), GFP_KERNEL);
	if (!nd)
		return ERR_PTR(-ENOMEM);
	nd->bus_dev = bus_dev;
	nd->id = id;
	nd->nports = nports;
	nd->nqueues = nqueues;
	nd->nvec = 1 + nports * nqueues;
	spin_lock_init(&nd->cmd_lock);
	spin_lock_init(&nd->cmd_irq_lock);
	INIT_WORK(&nd->cmd_work, npusim_cmd_work);
	atomic_set(&nd->events, 0);
	atomic_set(&nd->link_changed, 0);
	npusim_coal_init(&nd->cmd_coal, 0, 0);
	npusim_coal_enable(&nd->cmd_coal, true);

	nd->virq = kcalloc(nd->nvec, sizeof(*nd->virq), GFP_KERNEL);
	nd->datapath_ns = alloc_percpu(u64);
	nd->dp_work_ns = alloc_percpu(u64);
	if (!nd->virq || !nd->datapath_ns || !nd->dp_work_ns) {
		err = -ENOMEM;
		goto err_free;
	}
	err = npusim_ports_init(nd);
	if (err)
		goto err_free;
	err = npusim_fp_init(nd);
	if (err)
		goto err_free;
	err = npusim_ntuple_init(nd);
	if (err)
		goto err_free;
	err = npusim_policer_init(nd);
	if (err)
		goto err_free;
	err = npusim_cores_init(nd);
	if (!err)
		err = npusim_ingress_init(nd);
	if (err)
		goto err_free;

	nd->wq = alloc_workqueue(DRV_NAME "%u", WQ_UNBOUND, 0, id);
	if (!nd->wq) {
		err = -ENOMEM;
		goto err_free;
	}
	nd->tx_defer = true;	/* transmit engine on its own (tx.c) */
	err = npusim_irq_init(nd);
	if (err)
		goto err_wq;
	err = npusim_wires_create(nd);
	if (err)
		goto err_irq;
	npusim_debugfs_create(nd);
	npusim_fp_debugfs(nd);
	npusim_cmd_debugfs(nd);
	npusim_ntuple_debugfs(nd);
	npusim_cores_debugfs(nd);

	nd->hw.ops = &npusim_hw_ops;
	nd->hw.dma_dev = bus_dev;
	nd->hw.id = id;
	adev = &nd->hw.adev;
	adev->name = NPU_HW_AUXDEV_NAME;
	adev->id = id;
	adev->dev.parent = bus_dev;
	adev->dev.release = npusim_adev_release;
	err = auxiliary_device_init(adev);
	if (err)
		goto err_debugfs;
	/* From here on the release callback frees @nd. */
	npusim_obj_get();
	err = auxiliary_device_add(adev);
	if (err) {
		dev_err(bus_dev, "auxiliary device: %d\n", err);
		npusim_quiesce(nd);
		npusim_debugfs_destroy(nd);
		npusim_wires_destroy(nd);
		npusim_irq_fini(nd);
		destroy_workqueue(nd->wq);
		auxiliary_device_uninit(adev);
		return ERR_PTR(err);
	}
	nd->aux_added = true;
	return nd;

err_debugfs:
	npusim_quiesce(nd);
	npusim_debugfs_destroy(nd);
	npusim_wires_destroy(nd);
err_irq:
	npusim_irq_fini(nd);
err_wq:
	destroy_workqueue(nd->wq);
err_free:
	npusim_free(nd);
	return ERR_PTR(err);
}

/**
 * npusim_dev_destroy - tear a coprocessor down
 * @nd: device
 *
 * The auxiliary device goes first: deleting it unbinds the host driver,
 * which disables its rings and frees its interrupts.  Then the model stops
 * (rings, timers, work), the wires go, the interrupt domain goes, and the
 * last reference to the auxiliary device frees @nd.
 */
void npusim_dev_destroy(struct npusim_dev *nd)
{
	if (nd->aux_added)
		auxiliary_device_delete(&nd->hw.adev);
	npusim_quiesce(nd);
	npusim_debugfs_destroy(nd);
	npusim_wires_destroy(nd);
	npusim_quiesce(nd);
	npusim_irq_fini(nd);
	destroy_workqueue(nd->wq);
	nd->wq = NULL;
	auxiliary_device_uninit(&nd->hw.adev);
}
