#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A teardown larger than the driver's command backlog: 4,200 connections
# (one flower rule each) deleted behind a stalled command ring.  The first
# 4,128 reclaims fill the ring (32) and the backlog (4,096); the rest never
# reach the device.  Each of those is counted (fp_cmd_lost) and reports a
# cmd health error; its recovery writes the coprocessor's table again from
# the driver's, so neither keeps a connection the other has not: afterwards
# hw_fp_conns = fp_conns = 0.  First with auto-recover off, the recovery
# run by hand; then with auto-recover on (the default), the driver's own.
# First, a slow engine is not a stopped one: a teardown of 6,000 behind an
# engine that takes 1 ms a command (the writers post some 6,000 in the time
# it executes tens) loses nothing: they wait for room in the backlog while
# the device moves.  Counts only.
# timeout: 600
. "$(dirname "$0")/lib.sh"
ktap_plan 6
DL=auxiliary/npusim.npu.0
N=4200
NSLOW=6000

npu_load && npu_new 0 8 2 || { ktap_fail "setup"; ktap_finish; }
topo_pc_far 0; ktap_result $? "topology"
flower_ports
fp() { eth_stat "$P3" "$1"; }
state() { devlink -j health show $DL reporter cmd | jq -r '.. | objects | select(.reporter?) | .state'; }
resyncs() { devlink -j health diagnose $DL reporter cmd | jq '.. | objects | select(.resyncs?) | .resyncs'; }
wait_for() {	# wait_for SECONDS CMD...
	local end=$((SECONDS + $1)); shift
	until "$@"; do [ $SECONDS -lt $end ] || return 1; sleep 0.2; done
}
# add_rules [COUNT]: COUNT (N) one-rule UDP connections on P3, one tc batch
add_rules() {
	local i

	for i in $(seq 0 $((${1:-$N} - 1))); do
		echo "filter add dev $P3 ingress protocol ip prio 1 flower skip_sw ip_proto udp src_ip $PC4 dst_ip $FAR4 src_port $((10000 + i)) dst_port 5000 action mirred egress redirect dev $P8"
	done | tc -batch -
}
in_hw() { [ "$(fp fp_conns)" = "$1" ] && [ "$(fp hw_fp_conns)" = "$1" ]; }
# is STAT VALUE: the port's counter is VALUE now (wait_for runs it each time)
is() { [ "$(fp "$1")" = "$2" ]; }

devlink dev param set $DL name flow_cmd_posted value true cmode runtime
add_rules $NSLOW
wait_for 120 in_hw $NSLOW
diag "made: driver/coprocessor $(fp fp_conns)/$(fp hw_fp_conns)"
ktap_result $(in_hw $NSLOW; echo $?) "$NSLOW connections in the driver and the coprocessor"

r0=$(resyncs) l0=$(fp fp_cmd_lost)
inject cmd_delay_us 1000
tc filter del dev "$P3" ingress
wait_for 120 in_hw 0
inject cmd_delay_us 0
lost=$(( $(fp fp_cmd_lost) - ${l0:-0} ))
diag "slow engine: ${lost} reclaims lost, resyncs $r0 -> $(resyncs), driver/coprocessor $(fp fp_conns)/$(fp hw_fp_conns)"
ktap_result $([ "$lost" = 0 ] && [ "$(resyncs)" = "$r0" ] && in_hw 0; echo $?) \
	"a slow engine (1 ms a command): a teardown of $NSLOW loses no reclaim and costs no resync"
add_rules
wait_for 120 in_hw $N

devlink health set $DL reporter cmd auto_recover false
r0=$(resyncs) l0=$(fp fp_cmd_lost)
inject cmd_stall 1
tc filter del dev "$P3" ingress
wait_for 60 is fp_conns 0
lost=$(( $(fp fp_cmd_lost) - ${l0:-0} )) st=$(state)
inject cmd_stall 0
# drained: the coprocessor keeps exactly the connections whose reclaims were lost
wait_for 60 is hw_fp_conns "$lost"
diag "stalled delete: ${lost} reclaims lost, reporter $st; drained: driver/coprocessor $(fp fp_conns)/$(fp hw_fp_conns)"
ktap_result $([ "$lost" -ge $((N - 4128)) ] && [ "$st" = error ] && [ "$(fp hw_fp_conns)" = "$lost" ]; echo $?) \
	"the reclaims past the backlog are counted lost and reported to devlink health"

devlink health recover $DL reporter cmd
wait_for 60 in_hw 0
diag "after the recover: driver/coprocessor $(fp fp_conns)/$(fp hw_fp_conns), resyncs $r0 -> $(resyncs)"
ktap_result $(in_hw 0 && [ "$(resyncs)" = $((r0 + 1)) ]; echo $?) \
	"the recovery resynced the table: no connection left in the coprocessor"
devlink health set $DL reporter cmd auto_recover true

# auto-recover on: the same teardown resyncs the table with no hand on it.
# The recovery starts while the ring is still stalled (its own commands time
# out: it holds the table meanwhile, so the driver's count does not reach 0
# before the ring moves) and is tried again by the driver until it works;
# the reset it makes frees the backlog, so fewer reclaims may be lost than
# above.  The stall lasts 10 s.
add_rules
wait_for 120 in_hw $N
r0=$(resyncs) l0=$(fp fp_cmd_lost)
inject cmd_stall 1
tc filter del dev "$P3" ingress
sleep 10
inject cmd_stall 0
lost=$(( $(fp fp_cmd_lost) - ${l0:-0} ))
wait_for 90 in_hw 0
diag "auto-recover on: ${lost} reclaims lost; driver/coprocessor $(fp fp_conns)/$(fp hw_fp_conns), reporter $(state), resyncs $r0 -> $(resyncs)"
ktap_result $([ "$lost" -ge 1 ] && in_hw 0 && [ "$(resyncs)" -gt "$r0" ] &&
	[ "$(state)" = healthy ]; echo $?) \
	"auto-recover on: the driver resyncs the table itself, no connection left in the coprocessor"
ktap_finish
