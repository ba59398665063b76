/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npuep ntuple steering: the pure part of an ethtool -N rule's insertion
 * (ntuple_pure.c), built into the module and natively into the cmocka unit
 * tests (selftests/unit/test_npuep_ntuple.c).
 *
 * The rule comes as the user gave it, a struct ethtool_rx_flow_spec: a UAPI
 * structure, the same in both builds, so the glue (ntuple.c) hands it over
 * as it is, with what it knows of the port (its active queue count, its
 * table's used locations), and logs the message of a refusal.
 */
#ifndef _NPUEP_NTUPLE_PURE_H
#define _NPUEP_NTUPLE_PURE_H

#include "npu_compat.h"

#ifdef __KERNEL__
#include <linux/bitops.h>
#include <linux/ethtool.h>
#include <linux/find.h>
#include <linux/sprintf.h>
#else
#include <stdio.h>
#include <linux/ethtool.h>

#define BITS_PER_LONG		(8 * sizeof(long))
#define BITS_TO_LONGS(n)	(((n) + BITS_PER_LONG - 1) / BITS_PER_LONG)
#define DECLARE_BITMAP(name, bits) unsigned long name[BITS_TO_LONGS(bits)]

static inline bool test_bit(unsigned long nr, const unsigned long *addr)
{
	return (addr[nr / BITS_PER_LONG] >> (nr % BITS_PER_LONG)) & 1;
}

static inline unsigned long find_first_zero_bit(const unsigned long *addr,
						unsigned long size)
{
	unsigned long i;

	for (i = 0; i < size; i++)
		if (!test_bit(i, addr))
			break;
	return i;
}
#endif /* __KERNEL__ */

#include "npu_hw.h"

/* Room for a refusal's message, the NUL included. */
#define NPUEP_NT_MSG_LEN	80

int npuep_ntuple_fs_to_rule(const struct ethtool_rx_flow_spec *fs, u32 nq,
			    struct npu_ntuple_rule *r,
			    char msg[NPUEP_NT_MSG_LEN]);
int npuep_ntuple_loc_find(u32 loc, const unsigned long *used,
			  char msg[NPUEP_NT_MSG_LEN]);

#endif /* _NPUEP_NTUPLE_PURE_H */
