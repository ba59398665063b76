#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# An offload's end leaves nothing in hardware.  Flower rules on a tc block
# shared by two ports (each port's callback takes its own direction under
# one cookie): deleting them leaves nothing in the driver or the
# coprocessor.  Then `nft flush ruleset` with 64 connections of a live load
# offloaded through a flowtable, three rounds: the driver and the
# coprocessor hold no connection afterwards and the ports are free for tc
# flower.
# timeout: 600
. "$(dirname "$0")/lib.sh"
ROUNDS=3
N=64
ktap_plan $((1 + 2 + ROUNDS * 2))
LOAD=$NPU_REPO/build/bin/npuload

npu_load && npu_new 0 8 2 || { ktap_fail "setup"; ktap_finish; }
topo_pc_far 0; ktap_result $? "topology"
ethtool -K "$P3" hw-tc-offload on; ethtool -K "$P8" hw-tc-offload on
fp() { ethtool -S "$P3" | awk -v k="$1:" '$1 == k { print $2 }'; }
# Give-backs are 63's subject: under TCG the streams retransmit.
echo 0 > /sys/kernel/debug/npusim/0/fp_retrans_max

# A block shared by ports 3 and 8: a rule reaches both callbacks.
R=8
for d in "$P3" "$P8"; do tc qdisc add dev "$d" ingress_block 22 clsact; done
ok=0
for i in $(seq $R); do
	tc filter add block 22 protocol ip prio 1 flower skip_sw ip_proto udp \
		src_ip $PC4 dst_ip $FAR4 src_port $((4000 + i)) dst_port 5000 \
		action mirred egress redirect dev "$P8" && ok=$((ok + 1))
done
flows=$(fp fp_flows)
diag "shared block: $ok rules added, $flows directions in the driver"
ktap_result $([ $ok = $R ] && [ "$flows" = $((2 * R)) ]; echo $?) \
	"a rule on a shared block is offloaded on each of its ports ($flows directions for $R rules)"
tc filter del block 22 protocol ip prio 1 flower
left=$(fp fp_flows); conns=$(fp fp_conns); hw=$(fp hw_fp_conns)
diag "after the delete: driver $conns connections ($left directions), coprocessor $hw"
ktap_result $([ "$left" = 0 ] && [ "$conns" = 0 ] && [ "$hw" = 0 ]; echo $?) \
	"deleting them leaves nothing in the driver or the coprocessor"
for d in "$P3" "$P8"; do tc qdisc del dev "$d" clsact; done

for r in $(seq $ROUNDS); do
	ft_offload_tcp
	ip netns exec far "$LOAD" server -p 5300 -t 40 >/dev/null 2>&1 &
	srv=$!
	wait_listen far 5300
	ip netns exec pc "$LOAD" client -a $FAR4 -p 5300 -c $N -t 30 -r 2000000 >/dev/null 2>&1 &
	cli=$!
	for i in $(seq 30); do [ "$(fp fp_conns)" -ge $((N * 3 / 4)) ] && break; sleep 1; done
	before=$(fp fp_conns)
	# The load still runs: REPLACEs, STATS and DESTROYs are in flight.
	nft flush ruleset
	for i in $(seq 10); do [ "$(fp fp_conns)" = 0 ] && [ "$(fp hw_fp_conns)" = 0 ] && break; sleep 1; done
	left=$(fp fp_conns); hw=$(fp hw_fp_conns); flows=$(fp fp_flows)
	diag "round $r: $before in hardware; after the flush driver $left connections ($flows directions), coprocessor $hw"
	ktap_result $([ "$before" -ge $((N / 2)) ] && [ "$left" = 0 ] && [ "$flows" = 0 ] && [ "$hw" = 0 ]; echo $?) \
		"round $r: nft flush ruleset under load leaves no connection in the driver or the coprocessor"
	tc qdisc add dev "$P3" clsact
	err=$(tc filter add dev "$P3" ingress protocol ip prio 1 flower skip_sw ip_proto udp \
		src_ip $PC4 dst_ip $FAR4 src_port 4000 dst_port 5000 \
		action mirred egress redirect dev "$P8" 2>&1)
	ktap_result $? "round $r: the ports are free for tc flower afterwards${err:+ ($err)}"
	tc qdisc del dev "$P3" clsact
	kill $cli $srv 2>/dev/null; wait $cli $srv 2>/dev/null
done

nft flush ruleset
ktap_finish
