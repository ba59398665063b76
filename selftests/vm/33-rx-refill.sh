#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A receive ring the driver could not refill, with the safety-net poll off
# (poll_interval_us 0): the doorbells stop with the last buffer, so nothing
# but a retry of the refill brings receive back.  The driver's debugfs
# fault fail_rx_alloc fails port 3's buffer allocations while pc's pings
# drain its one 64-descriptor ring; once allocations work again, receive
# comes back by itself (pc's pings answered), with no frame sent by the
# host first (any would schedule the NAPI: its completion raises the
# vector), and ethtool -S counts the failures and the retries.  The host
# keeps quiet on port 3: pc's neighbour entry is permanent (no ARP probe)
# and IPv6 is off there (no ND, no MLD).
# timeout: 300
. "$(dirname "$0")/lib.sh"
ktap_plan 7
DL=auxiliary/npusim.npu.0
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
FAULT=/sys/kernel/debug/npuep/npusim.npu.0-p3/fail_rx_alloc

npu_load && npu_new 0 8 2 || { ktap_fail "setup"; ktap_finish; }
topo_pc_far 0; ktap_result $? "topology"
check "poll_interval_us=0 (runtime): doorbells only" \
	devlink dev param set $DL name poll_interval_us value 0 cmode runtime
check "port 3: one queue, a 64-descriptor receive ring" \
	bash -c "ethtool -L $P3 combined 1 && ethtool -G $P3 rx 64"
wait_carrier "$P3"
ip neigh replace $PC4 dev "$P3" nud permanent \
	lladdr "$(ip -n pc link show npuw0p3 | awk '/ether/ { print $2 }')"
sysctl -qw "net.ipv6.conf.$P3.disable_ipv6=1"
ip netns exec pc ping -c 2 -W 2 $H3_4 >/dev/null
check "ping pc -> host before the fault" ip netns exec pc ping -c 3 -i 0.2 -W 2 $H3_4
[ -e "$FAULT" ] || diag "no $FAULT"

fail0=$(eth_sum "$P3" '^rx_q[0-9]+_alloc_fail$')
retry0=$(eth_sum "$P3" '^rx_q[0-9]+_refill_retry$')
echo 1000000 > "$FAULT"
# 200 requests for 63 buffers: the ring runs dry, the rest find it full.
ip netns exec pc ping -c 200 -i 0.01 -W 1 $H3_4 >/dev/null 2>&1
qfull=$(eth_sum "$P3" '^hw_rx_q[0-9]+_qfull$')
diag "allocations failing: ring-full drops $qfull"
ktap_result $([ "${qfull:-0}" -gt 0 ]; echo $?) \
	"with allocations failing the receive ring runs dry (hw_rx_qfull moves)"

echo 0 > "$FAULT"
tx0=$(link_stat "$P3" tx_packets)
sleep 3
tx=$(( $(link_stat "$P3" tx_packets) - tx0 ))
diag "allocations work again; the host sent $tx frames on port 3 in 3 s"
out=$(ip netns exec pc ping -c 5 -i 0.5 -W 2 $H3_4 2>&1)
rc=$?
echo "$out" | tail -2 | sed 's/^/# /'
ktap_result $([ $rc = 0 ] && [ "$tx" = 0 ]; echo $?) \
	"receive comes back by itself: pc's pings answered, nothing sent by the host first"

fail=$(( $(eth_sum "$P3" '^rx_q[0-9]+_alloc_fail$') - fail0 ))
retry=$(( $(eth_sum "$P3" '^rx_q[0-9]+_refill_retry$') - retry0 ))
diag "rx_alloc_fail +$fail, rx_refill_retry +$retry"
ktap_result $([ "$fail" -gt 0 ] && [ "$retry" -gt 0 ]; echo $?) \
	"ethtool -S counts the failed allocations and the refill retries"
ktap_finish
