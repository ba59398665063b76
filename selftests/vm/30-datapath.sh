#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The host datapath with real traffic: "pc" on the wire of port 3, "far" on
# the wire of port 8, the host routing between its port netdevs.  ping v4/v6,
# one iperf3 TCP stream each way, and the counters agree with the traffic.
# timeout: 600
. "$(dirname "$0")/lib.sh"
ktap_plan 9

npu_load && npu_new 0 8 2 || { ktap_fail "setup"; ktap_finish; }
topo_pc_far 0; ktap_result $? "topology pc <-> host <-> far"
check "ping IPv4 pc -> far" ip netns exec pc ping -c 3 -i 0.2 -W 5 $FAR4
check "ping IPv6 pc -> far" ip netns exec pc ping -6 -c 3 -i 0.2 -W 5 $FAR6

ip netns exec far iperf3 -s -D -1 >/dev/null 2>&1
sleep 0.5
wire_tx0=$(link_stat -n pc npuw0p3 tx_packets)
wire_drop0=$(link_stat -n pc npuw0p3 tx_dropped)
host_rx0=$(link_stat "$P3" rx_packets)
bps=$(iperf_bps pc $FAR4 10)
diag "iperf3 pc -> far: ${bps:-0} bit/s"
ktap_result $([ "${bps:-0}" -gt 1000000 ]; echo $?) "iperf3 TCP pc -> far through the host"

ip netns exec far iperf3 -s -D -1 >/dev/null 2>&1
sleep 0.5
bps=$(iperf_bps pc $FAR4 10 -R)
diag "iperf3 far -> pc: ${bps:-0} bit/s"
ktap_result $([ "${bps:-0}" -gt 1000000 ]; echo $?) "iperf3 TCP far -> pc through the host"

# Everything the wire of port 3 delivered to the model reached the host
# netdev of port 3, frame for frame.  A frame the model could not place
# (its receive ring full) is refused to the wire: counted there as
# tx_dropped and by the model as hw_rx_qN_qfull, and not in either rx count.
wire_tx=$(( $(link_stat -n pc npuw0p3 tx_packets) - wire_tx0 ))
wire_drop=$(( $(link_stat -n pc npuw0p3 tx_dropped) - wire_drop0 ))
host_rx=$(( $(link_stat "$P3" rx_packets) - host_rx0 ))
qfull=$(eth_sum "$P3" 'qfull')
diag "pc's wire delivered $wire_tx frames and had $wire_drop refused; host port 3 received $host_rx, ring-full drops $qfull"
ktap_result $([ $((wire_tx - host_rx)) -le 5 ] && [ $((wire_tx - host_rx)) -ge -5 ] &&
	[ "$wire_drop" -eq "$qfull" ]; echo $?) \
	"stats64 rx of port 3 matches the frames pc sent; every refusal is a counted ring-full drop"

# ethtool -S per-queue receive counters add up to stats64.
q_rx=$(eth_sum "$P3" '^rx[-_]?q?[0-9]+[-_]packets$|^rx_queue_[0-9]+_packets$')
all_rx=$(link_stat "$P3" rx_packets)
diag "ethtool -S per-queue rx packets $q_rx, stats64 $all_rx"
ktap_result $([ "$q_rx" -gt 0 ] && [ $((all_rx - q_rx)) -le 5 ] && [ $((q_rx - all_rx)) -le 5 ]; echo $?) \
	"ethtool -S per-queue rx packets agree with stats64"

# Transmit: what the host sent on port 8 arrived on far's wire.
far_rx=$(link_stat -n far npuw0p8 rx_packets)
host_tx=$(link_stat "$P8" tx_packets)
diag "host port 8 sent $host_tx, far received $far_rx"
ktap_result $([ $((host_tx - far_rx)) -le 5 ] && [ $((far_rx - host_tx)) -le 5 ]; echo $?) \
	"frames sent on port 8 arrive on far's wire"

grep -E -e "$P3" /proc/interrupts | head -8 | sed 's/^/# /'
ktap_result $([ "$(grep -c -e "$P3" /proc/interrupts)" -ge 2 ]; echo $?) \
	"one interrupt vector per queue pair of port 3 in /proc/interrupts"
ktap_finish
