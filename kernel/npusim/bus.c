// SPDX-License-Identifier: GPL-2.0
/*
 * The npusim bus: /sys/bus/npusim/new_device and del_device
 * (netdevsim's convention), module init and exit.
 *
 *   echo "ID [NPORTS [NQUEUES]]" > /sys/bus/npusim/new_device
 *   echo ID > /sys/bus/npusim/del_device
 */
#include <linux/device.h>
#include <linux/dma-mapping.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "npusim.h"

/**
 * struct npusim_bus_dev - a device on the npusim bus
 * @dev: the device (DMA device of the coprocessor)
 * @list: npusim_bus_devs
 * @nd: the coprocessor model on it
 */
struct npusim_bus_dev {
	struct device dev;
	struct list_head list;
	struct npusim_dev *nd;
};

static LIST_HEAD(npusim_bus_devs);
static DEFINE_MUTEX(npusim_bus_lock);
static bool npusim_bus_enable;	/* under npusim_bus_lock */

static void npusim_bus_dev_release(struct device *dev)
{
	kfree(container_of(dev, struct npusim_bus_dev, dev));
	npusim_obj_put();
}

static const struct device_type npusim_bus_dev_type = {
	.release = npusim_bus_dev_release,
};

static const struct bus_type npusim_bus;

static struct npusim_bus_dev *npusim_bus_find(u32 id)
{
	struct npusim_bus_dev *bd;

	list_for_each_entry(bd, &npusim_bus_devs, list)
		if (bd->nd->id == id)
			return bd;
	return NULL;
}

/* Parse "ID [NPORTS [NQUEUES]]": decimal or 0x hex, nothing else. */
static int npusim_parse_args(const char *buf, size_t count, u32 *vals,
			     unsigned int max, unsigned int *n)
{
	char *s, *p, *tok;
	int err = 0;

	s = kstrndup(buf, count, GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	p = strim(s);
	*n = 0;
	while ((tok = strsep(&p, " \t\n")) != NULL) {
		if (!*tok)
			continue;
		if (*n == max) {
			err = -E2BIG;
			break;
		}
		err = kstrtou32(tok, 0, &vals[*n]);
		if (err)
			break;
		(*n)++;
	}
	kfree(s);
	if (!err && !*n)
		err = -ENODATA;
	return err;
}

static ssize_t new_device_store(const struct bus_type *bus, const char *buf,
				size_t count)
{
	u32 v[3] = { 0, 1, 1 };
	struct npusim_bus_dev *bd;
	struct npusim_dev *nd;
	unsigned int n;
	int err;

	err = npusim_parse_args(buf, count, v, 3, &n);
	if (err) {
		pr_err("npusim: new_device: expected \"ID [NPORTS [NQUEUES]]\" (unsigned integers)\n");
		return -EINVAL;
	}
	if (v[0] > NPUSIM_MAX_ID) {
		pr_err("npusim: new_device: ID %u above %u\n", v[0],
		       NPUSIM_MAX_ID);
		return -EINVAL;
	}
	if (!v[1] || v[1] > NPU_MAX_PORTS) {
		pr_err("npusim: new_device: NPORTS %u not in 1..%u\n", v[1],
		       NPU_MAX_PORTS);
		return -EINVAL;
	}
	if (!v[2] || v[2] > NPU_MAX_QUEUES) {
		pr_err("npusim: new_device: NQUEUES %u not in 1..%u\n", v[2],
		       NPU_MAX_QUEUES);
		return -EINVAL;
	}

	mutex_lock(&npusim_bus_lock);
	if (!npusim_bus_enable) {
		err = -EBUSY;
		goto out_unlock;
	}
	if (npusim_bus_find(v[0])) {
		pr_err("npusim: new_device: ID %u already exists\n", v[0]);
		err = -EINVAL;
		goto out_unlock;
	}

	bd = kzalloc(sizeof(*bd), GFP_KERNEL);
	if (!bd) {
		err = -ENOMEM;
		goto out_unlock;
	}
	npusim_obj_get();
	bd->dev.id = v[0];
	bd->dev.bus = &npusim_bus;
	bd->dev.type = &npusim_bus_dev_type;
	device_initialize(&bd->dev);
	err = dev_set_name(&bd->dev, DRV_NAME "%u", v[0]);
	if (err)
		goto err_put;
	/* The coprocessor masters DMA with 64-bit addresses, no IOMMU. */
	err = dma_coerce_mask_and_coherent(&bd->dev, DMA_BIT_MASK(64));
	if (err)
		goto err_put;
	err = device_add(&bd->dev);
	if (err)
		goto err_put;

	nd = npusim_dev_create(&bd->dev, v[0], v[1], v[2]);
	if (IS_ERR(nd)) {
		err = PTR_ERR(nd);
		dev_err(&bd->dev, "creating the model failed: %d\n", err);
		device_del(&bd->dev);
		goto err_put;
	}
	bd->nd = nd;
	list_add_tail(&bd->list, &npusim_bus_devs);
	mutex_unlock(&npusim_bus_lock);
	return count;

err_put:
	put_device(&bd->dev);
out_unlock:
	mutex_unlock(&npusim_bus_lock);
	return err;
}
static BUS_ATTR_WO(new_device);

static void npusim_bus_dev_del(struct npusim_bus_dev *bd)
{
	list_del(&bd->list);
	npusim_dev_destroy(bd->nd);
	device_unregister(&bd->dev);
}

static ssize_t del_device_store(const struct bus_type *bus, const char *buf,
				size_t count)
{
	struct npusim_bus_dev *bd;
	unsigned int n;
	u32 id;
	int err;

	err = npusim_parse_args(buf, count, &id, 1, &n);
	if (err) {
		pr_err("npusim: del_device: expected \"ID\" (unsigned integer)\n");
		return -EINVAL;
	}

	mutex_lock(&npusim_bus_lock);
	if (!npusim_bus_enable) {
		err = -EBUSY;
		goto out;
	}
	bd = npusim_bus_find(id);
	if (!bd) {
		pr_err("npusim: del_device: no device with ID %u\n", id);
		err = -ENOENT;
		goto out;
	}
	npusim_bus_dev_del(bd);
	err = 0;
out:
	mutex_unlock(&npusim_bus_lock);
	return err ? err : count;
}
static BUS_ATTR_WO(del_device);

static struct attribute *npusim_bus_attrs[] = {
	&bus_attr_new_device.attr,
	&bus_attr_del_device.attr,
	NULL
};
ATTRIBUTE_GROUPS(npusim_bus);

static const struct bus_type npusim_bus = {
	.name		= DRV_NAME,
	.dev_name	= DRV_NAME,
	.bus_groups	= npusim_bus_groups,
};

static int __init npusim_init(void)
{
	int err;

	npusim_debugfs_init();
	err = bus_register(&npusim_bus);
	if (err) {
		npusim_debugfs_exit();
		return err;
	}
	mutex_lock(&npusim_bus_lock);
	npusim_bus_enable = true;
	mutex_unlock(&npusim_bus_lock);
	return 0;
}

static void __exit npusim_exit(void)
{
	struct npusim_bus_dev *bd, *tmp;

	mutex_lock(&npusim_bus_lock);
	npusim_bus_enable = false;
	list_for_each_entry_safe_reverse(bd, tmp, &npusim_bus_devs, list)
		npusim_bus_dev_del(bd);
	mutex_unlock(&npusim_bus_lock);

	bus_unregister(&npusim_bus);
	/* Release callbacks live in this module: wait for all of them. */
	npusim_objs_wait();
	npusim_debugfs_exit();
}

module_init(npusim_init);
module_exit(npusim_exit);

MODULE_DESCRIPTION("npuflow coprocessor model (npusim)");
MODULE_LICENSE("GPL");
