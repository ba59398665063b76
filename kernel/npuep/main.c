// SPDX-License-Identifier: GPL-2.0
/*
 * npuep - host netdev driver for the npuflow network coprocessor.
 *
 * Binds to auxiliary devices carrying struct npu_hw (kernel/include/npu_hw.h):
 * one devlink instance per coprocessor, one devlink port and one netdev per
 * front port (port.c).
 */
#include <linux/debugfs.h>
#include <linux/module.h>
#include <linux/unaligned.h>

#include "npuep.h"

static void npuep_link_work(struct work_struct *work)
{
	struct npuep_dev *ndev = container_of(work, struct npuep_dev,
					      link_work);
	unsigned int p;

	/* Read to clear; every port is re-read, so a lost bit costs nothing. */
	npuep_rd32(ndev, NPU_REG_LINK_CHANGED);
	if (READ_ONCE(ndev->removing))
		return;
	for (p = 0; p < ndev->nports; p++)
		if (ndev->ports[p])
			npuep_port_update_link(ndev->ports[p]);
}

static int npuep_fw_info(struct npuep_dev *ndev)
{
	struct npu_cmd_fw_info info;
	int err;

	err = npuep_cmd_exec(ndev, NPU_CMD_FW_INFO, NULL, 0, &info,
			     sizeof(info));
	if (err == -EOPNOTSUPP) {
		snprintf(ndev->fw_ver, sizeof(ndev->fw_ver), "%u.%u.%u",
			 ndev->fw_version >> 16, (ndev->fw_version >> 8) & 0xff,
			 ndev->fw_version & 0xff);
		return 0;
	}
	if (err) {
		dev_err(ndev->dev, "FW_INFO failed: %d\n", err);
		return err;
	}
	info.name[sizeof(info.name) - 1] = '\0';
	info.version[sizeof(info.version) - 1] = '\0';
	strscpy(ndev->fw_name, info.name, sizeof(ndev->fw_name));
	strscpy(ndev->fw_ver, info.version, sizeof(ndev->fw_ver));
	if (le32_to_cpu(info.nports) != ndev->nports ||
	    le32_to_cpu(info.nqueues) != ndev->nqueues)
		dev_warn(ndev->dev,
			 "FW_INFO reports %u ports x %u queues, registers %u x %u\n",
			 le32_to_cpu(info.nports), le32_to_cpu(info.nqueues),
			 ndev->nports, ndev->nqueues);
	if (le64_to_cpu(info.serial))
		ndev->serial = le64_to_cpu(info.serial);
	return 0;
}

/* The backend's ops are complete and its registers are an NPU's. */
static int npuep_hw_check(struct auxiliary_device *adev, struct npu_hw *hw)
{
	u32 magic;

	if (!hw->ops || !hw->ops->read32 || !hw->ops->read64 ||
	    !hw->ops->write32 || !hw->ops->irq || !hw->dma_dev)
		return -EINVAL;
	magic = npu_rd32(hw, NPU_REG_MAGIC);
	if (magic != NPU_HW_MAGIC) {
		dev_err(&adev->dev, "bad magic %#x\n", magic);
		return -ENODEV;
	}
	return 0;
}

/*
 * The device's identity and geometry from its registers, and the driver's
 * defaults.  Return: 0, or -EINVAL for a geometry it cannot drive.
 */
static int npuep_dev_setup(struct npuep_dev *ndev, struct devlink *devlink,
			   struct auxiliary_device *adev, struct npu_hw *hw)
{
	init_rwsem(&ndev->ft_sem);
	ndev->devlink = devlink;
	ndev->adev = adev;
	ndev->hw = hw;
	ndev->dev = &adev->dev;
	ndev->nports = npuep_rd32(ndev, NPU_REG_NPORTS);
	ndev->nqueues = npuep_rd32(ndev, NPU_REG_NQUEUES);
	ndev->caps = npuep_rd32(ndev, NPU_REG_CAPS);
	ndev->fw_version = npuep_rd32(ndev, NPU_REG_FW_VERSION);
	ndev->serial = npuep_rd64(ndev, NPU_REG_SERIAL);
	if (!ndev->nports || ndev->nports > NPU_MAX_PORTS ||
	    !ndev->nqueues || ndev->nqueues > NPU_MAX_QUEUES) {
		dev_err(ndev->dev, "unsupported geometry: %u ports x %u queues\n",
			ndev->nports, ndev->nqueues);
		return -EINVAL;
	}
	INIT_WORK(&ndev->link_work, npuep_link_work);
	npuep_poll_init(ndev);
	ndev->poll_interval_us = NPUEP_POLL_INTERVAL_US;
	ndev->rx_doorbells = true;
	return 0;
}

static int npuep_probe(struct auxiliary_device *adev,
		       const struct auxiliary_device_id *id)
{
	struct npu_hw *hw = npu_hw_from_adev(adev);
	struct npuep_dev *ndev;
	struct devlink *devlink;
	int err;

	err = npuep_hw_check(adev, hw);
	if (err)
		return err;
	devlink = npuep_devlink_alloc(&adev->dev);
	if (!devlink)
		return -ENOMEM;
	ndev = devlink_priv(devlink);
	err = npuep_dev_setup(ndev, devlink, adev, hw);
	if (err)
		goto err_free;

	err = npuep_cmd_init(ndev);
	if (err)
		goto err_free;
	err = npuep_fw_info(ndev);
	if (err)
		goto err_cmd;

	ndev->switch_id.id_len = sizeof(u64);
	put_unaligned_be64(ndev->serial ?: ((u64)0x4e5055 << 32 | hw->id),
			   ndev->switch_id.id);

	devl_lock(devlink);
	err = devl_register(devlink);
	if (err)
		goto err_unlock;
	err = npuep_devlink_params_register(ndev);
	if (err)
		goto err_dl_unregister;
	err = npuep_dlx_register(ndev);
	if (err)
		goto err_params;
	err = npuep_dev_up(ndev, NPUEP_DEV_PROBE, NULL);
	if (err)
		goto err_dlx;
	devl_unlock(devlink);

	auxiliary_set_drvdata(adev, ndev);
	dev_info(ndev->dev, "%u ports x %u queues, fw %s, serial %016llx\n",
		 ndev->nports, ndev->nqueues, ndev->fw_ver, ndev->serial);
	return 0;

err_dlx:
	devl_unlock(devlink);
	npuep_health_stop(ndev);
	devl_lock(devlink);
	npuep_dlx_unregister(ndev);
err_params:
	npuep_devlink_params_unregister(ndev);
err_dl_unregister:
	devl_unregister(devlink);
err_unlock:
	devl_unlock(devlink);
err_cmd:
	npuep_cmd_fini(ndev);
err_free:
	devlink_free(devlink);
	return err;
}

static void npuep_remove(struct auxiliary_device *adev)
{
	struct npuep_dev *ndev = auxiliary_get_drvdata(adev);
	struct devlink *devlink = ndev->devlink;

	npuep_health_stop(ndev);
	devl_lock(devlink);
	npuep_poll_stop(ndev);
	npuep_dev_down(ndev, NPUEP_DEV_REMOVE, NULL);
	npuep_dlx_unregister(ndev);
	npuep_devlink_params_unregister(ndev);
	devl_unregister(devlink);
	devl_unlock(devlink);
	npuep_cmd_fini(ndev);
	devlink_free(devlink);
}

static const struct auxiliary_device_id npuep_id_table[] = {
	{ .name = "npusim." NPU_HW_AUXDEV_NAME },
	{}
};
MODULE_DEVICE_TABLE(auxiliary, npuep_id_table);

static struct auxiliary_driver npuep_driver = {
	.probe = npuep_probe,
	.remove = npuep_remove,
	.id_table = npuep_id_table,
};

/* debugfs: npuep/<device>/ (flow.c) */
struct dentry *npuep_dbg_root;

static int __init npuep_init(void)
{
	int err;

	npuep_dbg_root = debugfs_create_dir(KBUILD_MODNAME, NULL);
	err = auxiliary_driver_register(&npuep_driver);
	if (err)
		debugfs_remove_recursive(npuep_dbg_root);
	return err;
}
module_init(npuep_init);

static void __exit npuep_exit(void)
{
	auxiliary_driver_unregister(&npuep_driver);
	debugfs_remove_recursive(npuep_dbg_root);
}
module_exit(npuep_exit);

MODULE_DESCRIPTION("npuflow network coprocessor host driver");
MODULE_LICENSE("GPL");
