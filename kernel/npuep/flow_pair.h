/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npuep flow offload: how two directions pair into one connection, as
 * pure functions of their keys and rewrites (flow_pair_pure.c).
 */
#ifndef _NPUEP_FLOW_PAIR_H
#define _NPUEP_FLOW_PAIR_H

#include "npu_compat.h"
#include "npu_hw.h"
#include "flow_desc.h"

bool npuep_flow_reply_key(const struct npu_mflow_key *key,
			  const struct npu_rewrite *rw, struct npu_mflow_key *r);
bool npuep_flow_complete(const struct npu_mflow_key *fkey,
			 const struct npu_rewrite *frw,
			 struct npu_mflow_key *gkey, struct npu_rewrite *grw);
bool npuep_flow_session(const struct npu_mflow_key *key,
			const struct npu_rewrite *rw, struct npuep_fd_session *s);
int npuep_flow_session_find(const struct npuep_fd_session *s,
			    const struct npuep_fd_session *live, u32 n);

#endif /* _NPUEP_FLOW_PAIR_H */
