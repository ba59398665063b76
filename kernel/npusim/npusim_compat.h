/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The little the pure-logic files of the model need,
 * so that the same .c builds in the kernel module and natively (cmocka).
 */
#ifndef _NPUSIM_COMPAT_H
#define _NPUSIM_COMPAT_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/bits.h>
#include <linux/string.h>
#include <linux/stddef.h>
#else
#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;

#ifndef BIT
#define BIT(n)	(1UL << (n))
#endif
#ifndef container_of
#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))
#endif
#endif /* __KERNEL__ */

#endif /* _NPUSIM_COMPAT_H */
