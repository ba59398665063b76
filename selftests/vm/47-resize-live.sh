#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A flow-table resize (devlink resource set + reload) while connections are
# offloaded through a flowtable is refused with EBUSY and leaves them in
# hardware, with ethtool -S read all along; once the offloads are gone it
# applies.  A resize the device cannot take (the model's fp_mem_conns)
# falls back to the default sizes and the ports come back.
# timeout: 600
. "$(dirname "$0")/lib.sh"
ktap_plan 8
DL=auxiliary/npusim.npu.0
DBG=/sys/kernel/debug/npusim/0
LOAD=$NPU_REPO/build/bin/npuload

npu_load && npu_new 0 8 2 || { ktap_fail "setup"; ktap_finish; }
topo_pc_far 0; ktap_result $? "topology"
ethtool -K "$P3" hw-tc-offload on; ethtool -K "$P8" hw-tc-offload on
fp() { ethtool -S "$P3" | awk -v k="$1:" '$1 == k { print $2 }'; }
res() { devlink -j resource show $DL | jq -r --arg n "$1" \
	'[.. | objects | select(.name? == $n)][0].size // empty'; }
tsize() { awk '$1 == "conns" { print $2 }' $DBG/fp_stats | cut -d/ -f2; }
echo 0 > $DBG/fp_retrans_max

ft_offload_tcp
ip netns exec far "$LOAD" server -p 5300 -t 40 >/dev/null 2>&1 &
srv=$!
wait_listen far 5300
ip netns exec pc "$LOAD" client -a $FAR4 -p 5300 -c 8 -t 30 -r 1000000 >/dev/null 2>&1 &
cli=$!
for i in $(seq 30); do [ "$(fp fp_conns)" -ge 6 ] && break; sleep 1; done
before=$(fp fp_conns)
# ethtool -S all through the reload: it reads the table's counters.
( while :; do ethtool -S "$P3" >/dev/null 2>&1; ethtool -S "$P8" >/dev/null 2>&1; done ) &
reader=$!
devlink resource set $DL path /fastpath/connections size 1024
out=$(devlink dev reload $DL 2>&1); rc=$?
sleep 2
kill $reader; wait $reader 2>/dev/null
after=$(fp fp_conns); hw=$(fp hw_fp_conns)
diag "reload with $before offloaded: rc $rc ($out); then driver $after, coprocessor $hw, size $(res connections)"
ktap_result $([ "$before" -ge 6 ] && [ $rc != 0 ] && [[ $out == *"resize refused while"* ]]; echo $?) \
	"a resize with connections offloaded is refused with a reason"
# devlink applies a resource's new size when the driver reads it (reload
# does, to decide): it shows 1024 from now, pending until a reload takes it.
ktap_result $([ "$after" -ge 6 ] && [ "$hw" = "$after" ] && [ "$(tsize)" = 16384 ]; echo $?) \
	"the refused resize leaves the table ($(tsize) connections) and its connections as they were"
kill $cli $srv 2>/dev/null; wait $cli $srv 2>/dev/null

nft flush ruleset
check "with the offloads gone the resize applies" devlink dev reload $DL
ktap_result $([ "$(res connections)" = 1024 ] && [ "$(tsize)" = 1024 ] && [ "$(fp fp_conns)" = 0 ]; echo $?) \
	"size $(res connections), the table $(tsize), $(fp fp_conns) connections"

# The device cannot take 32768: the reload falls back to the defaults.
echo 16384 > $DBG/fp_mem_conns
devlink resource set $DL path /fastpath/connections size 32768
out=$(devlink dev reload $DL 2>&1); rc=$?
echo 0 > $DBG/fp_mem_conns
diag "resize the device refuses: rc $rc ($out)"
ktap_result $([ $rc != 0 ] && [[ $out == *"back to the default sizes"* ]]; echo $?) \
	"a resize the device refuses fails with a reason"
check "the ports come back after it: ping pc -> far through the host" \
	ip netns exec pc ping -c 2 -i 0.2 -W 5 $FAR4
ft_offload_tcp
ip netns exec far "$LOAD" server -p 5301 -t 20 >/dev/null 2>&1 &
srv=$!
wait_listen far 5301
ip netns exec pc "$LOAD" client -a $FAR4 -p 5301 -c 2 -t 10 -r 1000000 >/dev/null 2>&1 &
cli=$!
for i in $(seq 20); do [ "$(fp fp_conns)" -ge 1 ] && break; sleep 1; done
ktap_result $([ "$(fp fp_conns)" -ge 1 ] && [ "$(fp hw_fp_conns)" -ge 1 ]; echo $?) \
	"the fast path works at the default sizes ($(fp fp_conns) connections offloaded)"
kill $cli $srv 2>/dev/null; wait $cli $srv 2>/dev/null
nft flush ruleset
devlink resource set $DL path /fastpath/connections size 16384
devlink dev reload $DL
ktap_finish
