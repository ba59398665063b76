/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npu_aux.h - how a coprocessor backend binds to the host driver.
 *
 * A backend (the npusim model, or a real-silicon PCI function) registers
 * one auxiliary device per coprocessor, named NPU_HW_AUXDEV_NAME, embedding
 * struct npu_hw: the operations that reach its registers (npu_hw.h) and its
 * interrupt vectors.  The auxiliary bus matches <module>.<name>: a backend
 * module "npusim" registers "npusim.npu.<id>", and the driver's device
 * table names each backend module it binds to.
 */
#ifndef _NPU_AUX_H
#define _NPU_AUX_H

#include <linux/auxiliary_bus.h>
#include <linux/container_of.h>
#include <linux/types.h>

#include "npu_hw.h"

#define NPU_HW_AUXDEV_NAME	"npu"

struct device;
struct npu_hw;

/**
 * struct npu_hw_ops - backend operations
 * @read32: read a 32-bit register at byte offset @reg
 * @read64: read a 64-bit register (counters, NPU_REG_SERIAL)
 * @write32: write a 32-bit register; a write to a doorbell (TAIL) register
 *	or an UNMASK register wakes the device.  May be called from any
 *	context, including hard IRQ and with spinlocks held.
 * @irq: Linux IRQ number of vector @vec (0..NPU_MAX_VECTORS-1, bounded by
 *	1 + nports * nqueues), or a negative errno.
 *
 * Unknown register offsets read as 0 and ignore writes.
 */
struct npu_hw_ops {
	u32 (*read32)(struct npu_hw *hw, u32 reg);
	u64 (*read64)(struct npu_hw *hw, u32 reg);
	void (*write32)(struct npu_hw *hw, u32 reg, u32 val);
	int (*irq)(struct npu_hw *hw, unsigned int vec);
};

/**
 * struct npu_hw - one coprocessor as the host sees it
 * @adev: the auxiliary device the host driver binds to
 * @ops: backend operations
 * @dma_dev: device to map DMA memory for (page_pool, coherent rings)
 * @id: coprocessor id (the model's ID; for PCI the function's index)
 */
struct npu_hw {
	struct auxiliary_device adev;
	const struct npu_hw_ops *ops;
	struct device *dma_dev;
	u32 id;
};

static inline struct npu_hw *npu_hw_from_adev(struct auxiliary_device *adev)
{
	return container_of(adev, struct npu_hw, adev);
}

static inline u32 npu_rd32(struct npu_hw *hw, u32 reg)
{
	return hw->ops->read32(hw, reg);
}

static inline u64 npu_rd64(struct npu_hw *hw, u32 reg)
{
	return hw->ops->read64(hw, reg);
}

static inline void npu_wr32(struct npu_hw *hw, u32 reg, u32 val)
{
	hw->ops->write32(hw, reg, val);
}

#endif /* _NPU_AUX_H */
