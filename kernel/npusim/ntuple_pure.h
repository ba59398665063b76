/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ntuple_pure.h - the coprocessor model's ingress classifier: one port's
 * table of ntuple rules (ethtool -N), the checks of the host's commands and
 * the per-frame match (see the rules in npu_hw.h).
 *
 * Pure C (npu_compat.h): compiled into npusim.ko and, unchanged, into
 * the cmocka unit tests.  The caller owns the memory and the locking.
 */
#ifndef _NPUSIM_NTUPLE_PURE_H
#define _NPUSIM_NTUPLE_PURE_H

#include "npu_compat.h"
#include "npu_hw.h"
#include "parse_pure.h"

#define NPUSIM_NT_NONE		(-1)

/**
 * struct npusim_nt_tbl - one port's rules
 * @rule: the rules, by location
 * @used: @rule[i] holds a rule
 * @count: rules held
 * @top: one past the highest location held (the match stops there)
 */
struct npusim_nt_tbl {
	struct npu_ntuple_rule rule[NPU_NTUPLE_RULES];
	u8 used[NPU_NTUPLE_RULES];
	u32 count;
	u32 top;
};

void npusim_nt_tbl_init(struct npusim_nt_tbl *t);
u16 npusim_nt_rule_check(const struct npu_ntuple_rule *r, u32 nqueues);
u16 npusim_nt_add(struct npusim_nt_tbl *t, const struct npu_cmd_ntuple *c,
		  u32 nqueues);
u16 npusim_nt_del(struct npusim_nt_tbl *t, const struct npu_cmd_ntuple *c);
int npusim_nt_match(const struct npusim_nt_tbl *t,
		    const struct npusim_pkt *pkt);

#endif /* _NPUSIM_NTUPLE_PURE_H */
