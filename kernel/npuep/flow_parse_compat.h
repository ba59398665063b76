/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npuep flow offload: the little the pure part of the rule parser
 * (flow_parse_pure.c) needs, so that the same .c builds in the module and
 * natively in the cmocka unit tests (selftests/unit/).
 *
 * The header layouts are the kernel's own (<linux/ip.h>, <linux/ipv6.h>,
 * <linux/udp.h>, <linux/if_ether.h>): in the module the kernel headers, in
 * a native build their UAPI copies, which lay the structures out the same.
 */
#ifndef _NPUEP_FLOW_PARSE_COMPAT_H
#define _NPUEP_FLOW_PARSE_COMPAT_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/bits.h>
#include <linux/errno.h>
#include <linux/stddef.h>
#include <linux/string.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <asm/byteorder.h>
#else
#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <errno.h>
#include <endian.h>
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>

typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
typedef __s32 s32;

#ifndef BIT
#define BIT(n)	(1UL << (n))
#endif
#ifndef container_of
#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))
#endif
#define cpu_to_le16(x)	htole16(x)
#endif /* __KERNEL__ */

#endif /* _NPUEP_FLOW_PARSE_COMPAT_H */
