/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npu_compat.h - the little the pure files need, so that the same .c builds
 * in a kernel module and natively in the cmocka unit tests (selftests/unit/).
 *
 * The pure files, each named NAME_pure.c, are the model's parser,
 * fast-path table, moderation, ntuple rules and trap policers' token
 * buckets (kernel/npusim/: parse, ft with rewrite, coal, ntuple, tb) and the driver's
 * rule parser, its pairing of directions and ntuple translation
 * (kernel/npuep/: flow_parse with flow_match and flow_path, flow_pair,
 * ntuple).
 * They use the kernel's names for integer types, byte order and bit
 * helpers, and the kernel's header layouts (<linux/ip.h>, <linux/ipv6.h>,
 * <linux/udp.h>, <linux/if_ether.h>): in a module the kernel headers, in a
 * native build their UAPI copies, which lay the structures out the same.
 */
#ifndef _NPU_COMPAT_H
#define _NPU_COMPAT_H

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
#include <linux/compiler.h>
#include <asm/barrier.h>
#include <asm/byteorder.h>
#else
#include <linux/types.h>
#include <assert.h>
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

#define le16_to_cpu(x)	le16toh(x)
#define le32_to_cpu(x)	le32toh(x)
#define le64_to_cpu(x)	le64toh(x)
#define cpu_to_le16(x)	htole16(x)
#define cpu_to_le32(x)	htole32(x)
#define cpu_to_le64(x)	htole64(x)
#define be16_to_cpu(x)	be16toh(x)
#define be32_to_cpu(x)	be32toh(x)
#define cpu_to_be16(x)	htobe16(x)
#define cpu_to_be32(x)	htobe32(x)

/* Stores another CPU (the host) reads while they happen: whole ... */
#define WRITE_ONCE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
/* ... and in order: the stores before it are seen before those after. */
#define smp_wmb()		__atomic_thread_fence(__ATOMIC_RELEASE)
#endif /* __KERNEL__ */

#endif /* _NPU_COMPAT_H */
