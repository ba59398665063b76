#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# npuep against the model: identity, per-queue vectors and counters, the
# command channel's timeout (a stalled firmware never hangs the host), the
# ring-full counter through ethtool -S and the netdev qstats, and removal.
# timeout: 600
. "$(dirname "$0")/lib.sh"
ktap_plan 11

npu_load && npu_new 0 8 2 || { ktap_fail "setup"; ktap_finish; }
DL=auxiliary/npusim.npu.0
DBG=/sys/kernel/debug/npusim/0
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug

# Not through check(): that runs its command in a subshell, and
# topo_pc_far sets P3/P8 for the rest of the script.
topo_pc_far 0 >/dev/null 2>&1; ktap_result $? "topology"
check "ping IPv4 pc -> far" ip netns exec pc ping -c 3 -i 0.2 -W 5 $FAR4

# One named vector per queue pair, counted by driver and model alike.
n=$(grep -c " $P3-q[0-9]" /proc/interrupts)
ktap_result $([ "$n" = 2 ]; echo $?) "two vectors named $P3-q0/q1 in /proc/interrupts"
# Background frames (neighbour discovery) raise interrupts while the two
# counters are read: the driver's reading is bracketed by two of the
# model's; an interrupt raised while one is pending is handled once.
dev0=$(eth_sum "$P3" '^hw_rx_q[0-9]+_irqs$')
drv=$(eth_sum "$P3" '^rx_q[0-9]+_doorbell_irqs$')
dev1=$(eth_sum "$P3" '^hw_rx_q[0-9]+_irqs$')
diag "doorbell interrupts: driver $drv, model $dev0..$dev1"
ktap_result $([ "$drv" -gt 0 ] && [ "$drv" -le "$dev1" ] && [ $((dev0 - drv)) -le 2 ]; echo $?) \
	"driver-counted doorbell interrupts match the model's"

# Every frame taken is attributed to the doorbell or to the poll.
rx=$(eth_sum "$P3" '^rx_q[0-9]+_packets$')
db=$(eth_sum "$P3" 'doorbell_frames')
pl=$(eth_sum "$P3" 'poll_frames')
diag "rx $rx = doorbell $db + poll $pl"
ktap_result $([ $((db + pl)) -ge "$rx" ] && [ "$rx" -gt 0 ]; echo $?) \
	"frames by doorbell + by poll account for every frame received"

# A ring that reads full: the model's qfull counter reaches ethtool -S.
if [ -e $DBG/force_rx_full ]; then
	q0=$(eth_sum "$P3" 'qfull')
	echo 1 > $DBG/force_rx_full
	ip netns exec pc ping -c 3 -i 0.2 -W 1 $FAR4 >/dev/null 2>&1
	echo 0 > $DBG/force_rx_full
	q1=$(eth_sum "$P3" 'qfull')
	diag "qfull $q0 -> $q1"
	ktap_result $([ "$q1" -ge $((q0 + 3)) ]; echo $?) "ring-full drops counted (ethtool -S hw_rx_q*_qfull)"
	check "ping after the ring drains" ip netns exec pc ping -c 2 -i 0.2 -W 5 $FAR4
else
	ktap_skip "ring-full drops counted (no force_rx_full knob)"
	ktap_skip "ping after the ring drains"
fi

# A hung command channel: commands fail with ETIMEDOUT, nothing hangs.
if [ -e $DBG/cmd_stall ]; then
	inject cmd_stall 1
	t0=$(date +%s)
	out=$(ip link set "$P8" mtu 1400 2>&1); rc=$?
	t=$(( $(date +%s) - t0 ))
	diag "mtu change with the channel stalled: rc $rc after ${t}s: $out"
	ktap_result $([ $rc != 0 ] && [ $t -le 10 ]; echo $?) "stalled command channel: MTU change fails in bounded time"
	ktap_result $(dmesg | grep -q 'npuep.*timed out'; echo $?) "the timeout is logged"
	inject cmd_stall 0
	check "channel resumes: MTU 1400 accepted" ip link set "$P8" mtu 1400
	ip link set "$P8" mtu 1500
else
	ktap_skip "stalled command channel (no cmd_stall knob)"
	ktap_skip "the timeout is logged"
	ktap_skip "channel resumes"
fi

# Deleting the coprocessor under the driver removes the netdevs cleanly.
iperf_server far
ip netns exec pc iperf3 -c $FAR4 -t 20 >/dev/null 2>&1 &
sleep 3
echo 0 > /sys/bus/npusim/del_device
kill %1 2>/dev/null; wait 2>/dev/null
ktap_result $([ -z "$(devlink port show 2>/dev/null | grep npusim.npu.0)" ]; echo $?) \
	"del_device under traffic: devlink ports and netdevs gone"
ip netns del pc 2>/dev/null; ip netns del far 2>/dev/null
npu_unload
ktap_finish
