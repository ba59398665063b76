#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Two nftables tables, each with a flowtable "flags offload" on ports 3 and
# 8; only table a's forward chain offloads (flow add @a).  A TCP stream is
# made in hardware through table a's flowtable.  Deleting table b unbinds
# its flowtable from the same ports: the driver purges what b offered -
# nothing - and a's connection stays in the driver and the coprocessor.
# Deleting table a then takes it out.  Counts only; the bounds are
# timeouts.
# timeout: 300
. "$(dirname "$0")/lib.sh"
ktap_plan 5
trap 'ip netns pids pc 2>/dev/null | xargs -r kill 2>/dev/null; ip netns pids far 2>/dev/null | xargs -r kill 2>/dev/null; nft flush ruleset' EXIT

npu_load && npu_new 0 8 2 || { ktap_fail "setup"; ktap_finish; }
topo_pc_far 0; ktap_result $? "topology"
ethtool -K "$P3" hw-tc-offload on; ethtool -K "$P8" hw-tc-offload on
nft flush ruleset
nft -f - <<NFT
table inet a {
	flowtable a { hook ingress priority 0; devices = { $P3, $P8 }; flags offload; }
	chain forward { type filter hook forward priority 0; policy accept; meta l4proto tcp flow add @a; }
}
table inet b {
	flowtable b { hook ingress priority 1; devices = { $P3, $P8 }; flags offload; }
	chain forward { type filter hook forward priority 1; policy accept; }
}
NFT
ktap_result $? "two tables, a flowtable each on $P3 and $P8"
conns() { echo "$(eth_stat "$P3" fp_conns)/$(eth_stat "$P3" hw_fp_conns)"; }
iperf_server far
ip netns exec pc iperf3 -c $FAR4 -t 60 -b 20M >/dev/null 2>&1 &
wait_offloaded 5201 1; ktap_result $? "a stream in hardware through table a's flowtable ($(conns))"
c0=$(conns)
nft delete table inet b
sleep 2
diag "driver/coprocessor connections: $c0 before, $(conns) after table b went; conntrack: $(ct_offloaded 5201) offloaded"
ktap_result $([ "$(conns)" = "$c0" ] && [ "${c0%/*}" -ge 1 ]; echo $?) \
	"table b's flowtable unbound: table a's connections stay in the driver and the coprocessor"
nft delete table inet a
for i in $(seq 25); do [ "$(conns)" = 0/0 ] && break; sleep 0.2; done
ktap_result $([ "$(conns)" = 0/0 ]; echo $?) "table a's flowtable unbound: its connections go ($(conns))"
ktap_finish
