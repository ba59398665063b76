/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npusim_compat.h - the little the pure-logic files of the model need,
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
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;

#ifndef BIT
#define BIT(n)	(1UL << (n))
#endif
#ifndef container_of
#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))
#endif
#endif /* __KERNEL__ */

#endif /* _NPUSIM_COMPAT_H */
