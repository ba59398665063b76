/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npuep flow offload: how two directions pair into one connection, as
 * pure functions of their keys and rewrites (flow_pair_pure.c).
 */
#ifndef _NPUEP_FLOW_PAIR_H
#define _NPUEP_FLOW_PAIR_H

#include "npu_compat.h"
#include "npu_hw.h"

bool npuep_flow_reply_key(const struct npu_mflow_key *key,
			  const struct npu_rewrite *rw, struct npu_mflow_key *r);
bool npuep_flow_complete(const struct npu_mflow_key *fkey,
			 const struct npu_rewrite *frw,
			 struct npu_mflow_key *gkey, struct npu_rewrite *grw);

#endif /* _NPUEP_FLOW_PAIR_H */
