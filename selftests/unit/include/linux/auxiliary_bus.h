/* SPDX-License-Identifier: GPL-2.0 */
/* Native stand-in for the kernel header, so npu_hw.h builds in unit tests. */
#ifndef _UNIT_LINUX_AUXILIARY_BUS_H
#define _UNIT_LINUX_AUXILIARY_BUS_H

struct auxiliary_device {
	const char *name;
	unsigned int id;
};

#endif
