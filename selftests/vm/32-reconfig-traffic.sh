#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Changing rings, queues, coalescing and MTU with a stream running works
# (MTU 1500 <-> 9000 rebuilds the queues with larger receive buffers, and the
# counters carry on, never going backwards):
# the stream survives, nothing crashes; then the modules unload and the
# device goes away with traffic in flight, cleanly (the VM runner fails the
# run on any warning, leak report or stuck netdev in the console).
# timeout: 600
. "$(dirname "$0")/lib.sh"
ktap_plan 11

npu_load && npu_new 0 8 2 || { ktap_fail "setup"; ktap_finish; }
topo_pc_far 0; ktap_result $? "topology"
DL=auxiliary/npusim.npu.0

iperf_server far
ip netns exec pc iperf3 -c $FAR4 -t 20 -J > /tmp/iperf-reconf.json 2>&1 &
ipf=$!
sleep 3
ok=0
for d in "$P3" "$P8"; do
	ethtool -G "$d" rx 256 tx 256 || ok=1; sleep 1
	ethtool -L "$d" combined 1 || ok=1; sleep 1
	ethtool -C "$d" rx-usecs 10 rx-frames 4 || ok=1; sleep 1
	ethtool -G "$d" rx 4096 tx 1024 || ok=1; sleep 1
	ethtool -L "$d" combined 2 || ok=1; sleep 1
done
ktap_result $ok "ethtool -G/-L/-C accepted under traffic"
wait $ipf
bps=$(jq -r '.end.sum_received.bits_per_second // 0 | floor' /tmp/iperf-reconf.json 2>/dev/null)
diag "stream through the reconfiguration: ${bps:-0} bit/s"
ktap_result $([ "${bps:-0}" -gt 1000000 ]; echo $?) "the stream survived ring and queue changes"
check "ping after reconfiguration" ip netns exec pc ping -c 2 -W 5 $FAR4

# MTU 1500 <-> 9000 under a stream: each change of buffer size rebuilds the
# queues.  Every counter, sampled after each change, only grows.
snap() {
	local d k v
	for d in "$P3" "$P8"; do
		for k in rx_packets rx_bytes tx_packets tx_bytes; do sysfs_stat v "$d" $k; printf '%s ' "$v"; done
		ethtool -S "$d" | awk '$1 ~ /^rx_q[0-9]+_packets:$/ { r += $2 }
			$1 ~ /^tx_q[0-9]+_packets:$/ { t += $2 } END { printf "%d %d ", r, t }'
	done
}
iperf_server far
ip netns exec pc iperf3 -c $FAR4 -t 16 -J > /tmp/iperf-mtu.json 2>&1 &
ipf=$!
sleep 2
ok=0 back=0
prev=($(snap))
for m in 9000 1500 9000 1500; do
	for d in "$P3" "$P8"; do ip link set dev "$d" mtu $m || ok=1; done
	sleep 1.5
	cur=($(snap))
	for i in "${!cur[@]}"; do
		[ "${cur[i]}" -lt "${prev[i]}" ] && { back=1; diag "MTU $m: counter $i went back ${prev[i]} -> ${cur[i]}"; }
	done
	prev=("${cur[@]}")
done
ktap_result $ok "MTU 1500 -> 9000 -> 1500 (twice) on ports 3 and 8 under iperf3"
wait $ipf
bps=$(jq -r '.end.sum_received.bits_per_second // 0 | floor' /tmp/iperf-mtu.json 2>/dev/null)
diag "stream through the MTU changes: ${bps:-0} bit/s; last sample: ${cur[*]}"
ktap_result $([ $back = 0 ] && [ "${bps:-0}" -gt 1000000 ]; echo $?) \
	"the stream survived the MTU changes; stats64 and ethtool -S never went backwards"
check "devlink dev reload under traffic" bash -c "
	ip netns exec pc ping -f -w 4 $FAR4 >/dev/null 2>&1 &
	sleep 1; devlink dev reload $DL; r=\$?; wait; exit \$r"
check "ping after reload" bash -c "sleep 1; ip netns exec pc ping -c 2 -W 5 $FAR4"

# Unload the driver with a flood running, then bring it back.
ip netns exec pc ping -f -w 6 $FAR4 >/dev/null 2>&1 &
sleep 2
check "rmmod npuep with traffic running" rmmod npuep
wait
check "insmod npuep again binds the device" bash -c "insmod kernel/npuep/npuep.ko && sleep 1 && [ -n \"\$(. selftests/vm/lib.sh; npu_port_dev 0 3)\" ]"
# And the model goes away under the driver, with traffic running.
ip link set "$(npu_port_dev 0 3)" up 2>/dev/null
ip netns exec pc ping -f -w 6 $FAR4 >/dev/null 2>&1 &
sleep 2
check "rmmod npusim under npuep with traffic" bash -c "echo 0 > /sys/bus/npusim/del_device && rmmod npusim"
wait
ktap_finish
