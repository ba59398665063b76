#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bpf/npuflow.h mirrors values of kernel/include/npu_hw.h (which is
# kernel-only): punt reasons, NPU_MAX_PORTS, NPU_CONN_NONE.  They are ABI;
# fail if they drift apart.  Prints TAP.
set -u
TOP=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
HW=$TOP/kernel/include/npu_hw.h
NF=$TOP/bpf/npuflow.h
fail=0 n=0

val() { # file regex -> value of "#define NAME VALUE" or "NAME = VALUE,"
	sed -nE "s/^[[:space:]]*(#define[[:space:]]+)?$2[[:space:]=]+([0-9a-fA-Fx]+)u?.*/\\2/p" "$1" | head -1
}
same() { # hw-name npuflow-name
	local a b
	a=$(val "$HW" "$1") b=$(val "$NF" "$2")
	n=$((n + 1))
	if [ -n "$a" ] && [ "$((a))" = "$((b))" ] 2>/dev/null; then
		echo "ok $n - $2 = $1 ($a)"
	else
		echo "not ok $n - $2 ($b) != $1 ($a)"
		fail=1
	fi
}
echo "TAP version 13"
for r in NONE FLOW_MISS NOT_ACTIVE TCP_FLAGS EXCEPTION MTU NON_IP MCAST FASTPATH_OFF \
	 NTUPLE MALFORMED MAX; do
	same "NPU_PUNT_$r" "NPUFLOW_R_$r"
done
same NPU_MAX_PORTS NPUFLOW_MAX_PORTS
same NPU_CONN_NONE NPUFLOW_CONN_NONE
echo "1..$n"
echo "# abi: $([ $fail = 0 ] && echo "$n passed, 0 failed" || echo "mismatch")"
exit $fail
