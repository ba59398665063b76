#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The host datapath with real traffic: "pc" on the wire of port 3, "far" on
# the wire of port 8, the host routing between its port netdevs.  ping v4/v6,
# one iperf3 TCP stream each way, and the counters agree with the traffic;
# GRO's frag-list frames leave whole, 4 MB each way (and over IPv6) arrive
# intact (sha256);
# then MTU 9000 end to end (multi-page receive buffers): 8,000-byte pings
# with DF each way, frame for frame, and the host's TCP to pc in jumbo frames
# with TSO off (several descriptors per frame) and on.
# timeout: 600
. "$(dirname "$0")/lib.sh"
ktap_plan 21

npu_load && npu_new 0 8 2 || { ktap_fail "setup"; ktap_finish; }
topo_pc_far 0; ktap_result $? "topology pc <-> host <-> far"
check "ping IPv4 pc -> far" ip netns exec pc ping -c 3 -i 0.2 -W 5 $FAR4
check "ping IPv6 pc -> far" ip netns exec pc ping -6 -c 3 -i 0.2 -W 5 $FAR6

iperf_server far
wire_tx0=$(link_stat -n pc npuw0p3 tx_packets)
wire_drop0=$(link_stat -n pc npuw0p3 tx_dropped)
host_rx0=$(link_stat "$P3" rx_packets)
bps=$(iperf_bps pc $FAR4 5)
diag "iperf3 pc -> far: ${bps:-0} bit/s"
ktap_result $([ "${bps:-0}" -gt 1000000 ]; echo $?) "iperf3 TCP pc -> far through the host"

iperf_server far
bps=$(iperf_bps pc $FAR4 5 -R)
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
diag "host port 8 sent $host_tx, far received $far_rx (far's wire dropped $(link_stat -n far npuw0p8 rx_dropped); backlog drops per CPU: $(while read -r _ d _; do printf '%d ' "0x$d"; done < /proc/net/softnet_stat))"
ktap_result $([ $((host_tx - far_rx)) -le 5 ] && [ $((far_rx - host_tx)) -le 5 ]; echo $?) \
	"frames sent on port 8 arrive on far's wire"

# GRO chains a stream's frames past MAX_SKB_FRAGS on a frag list; such a
# frame leaves port 8 whole (NETIF_F_FRAGLIST: one TSO frame the model
# segments), not segmented by the stack on the way.  GRO merges what one
# NAPI poll finds, and how many frames that is follows the guest's pace
# under TCG: for a stream of its own, port 3's doorbells wait for 64 frames
# (or 20 ms) and the safety-net poll is off, so that a poll finds a burst
# longer than MAX_SKB_FRAGS however slowly the stream runs.
DL=auxiliary/npusim.npu.0
read -r ad us fr <<< "$(ethtool -c "$P3" | awk '/^Adaptive RX:/ { a = $3 }
	/^rx-usecs:/ { u = $2 } /^rx-frames:/ { f = $2 } END { print a, u, f }')"
pi=$(devlink -j dev param show $DL name poll_interval_us | jq '.. | .value? // empty' | head -1)
devlink dev param set $DL name poll_interval_us value 0 cmode runtime
ethtool -C "$P3" adaptive-rx off rx-usecs 20000 rx-frames 64
iperf_server far
diag "iperf3 pc -> far, port 3's doorbells every 64 frames: $(iperf_bps pc $FAR4 2) bit/s"
ethtool -C "$P3" adaptive-rx "$ad" rx-usecs "$us" rx-frames "$fr"
devlink dev param set $DL name poll_interval_us value "$pi" cmode runtime
fl=$(eth_sum "$P8" '^tx_q[0-9]+_fraglist$')
diag "port 8 sent ${fl:-0} frames with a frag list"
ktap_result $([ "${fl:-0}" -gt 0 ]; echo $?) "GRO frames with a frag list leave port 8 whole"

# The bytes themselves, each way: 4 MB of seeded bytes (about 2,900
# full-sized segments) over TCP through
# GRO, frag lists, forwarding and the model's TSO, sha256 at both ends.
# (iperf3 checks no payload; the far end takes the sums the host left to
# the device, CHECKSUM_PARTIAL, as verified, as over veth.)  xfer: lib.sh.
for dir in "pc far $FAR4 5301" "far pc $PC4 5302" "pc far $FAR6 5303"; do
	set -- $dir
	read -r sn ss rn rs <<< "$(xfer "$@" 4)"
	diag "$1 -> $2: sent $sn B sha256 $ss, received ${rn:-?} B sha256 ${rs:-?}"
	ktap_result $([ -n "$ss" ] && [ "$sn" = "$rn" ] && [ "$ss" = "$rs" ]; echo $?) \
		"4 MB $1 -> $2 ($3) arrive intact (sha256)"
done

# With rx-checksumming off on far's wire the model fills in every sum it
# carried partial (the TSO segments') and far's stack checks each frame.
ip netns exec far ethtool -K npuw0p8 rx off
ce0=$(in_csum_errs far)
read -r sn ss rn rs <<< "$(xfer pc far $FAR4 5304 4)"
ce1=$(in_csum_errs far)
ip netns exec far ethtool -K npuw0p8 rx on
diag "far checking sums: sent $sn B sha256 $ss, received ${rn:-?} B sha256 ${rs:-?}; TcpInCsumErrors ${ce0:-?} -> ${ce1:-?}"
ktap_result $([ -n "$ss" ] && [ "$sn" = "$rn" ] && [ "$ss" = "$rs" ] && [ -n "$ce0" ] && [ "$ce0" = "$ce1" ]; echo $?) \
	"4 MB pc -> far with far's wire checking every sum (rx off): intact, no checksum errors"

# The model's transmit passes inline in the host's doorbell (debugfs
# tx_defer N; the work item is the default): the same bytes.
DBG=/sys/kernel/debug/npusim/0
tx_inline() { cat $DBG/p8/q* | awk '$1 == "tx_inline" { s += $2 } END { print s + 0 }'; }
echo N > $DBG/tx_defer
ti0=$(tx_inline)
read -r sn ss rn rs <<< "$(xfer pc far $FAR4 5305 4)"
ti1=$(tx_inline)
echo Y > $DBG/tx_defer
diag "inline passes: sent $sn B sha256 $ss, received ${rn:-?} B sha256 ${rs:-?}; port 8's inline passes $ti0 -> $ti1"
ktap_result $([ -n "$ss" ] && [ "$sn" = "$rn" ] && [ "$ss" = "$rs" ] && [ "$ti1" -gt "$ti0" ]; echo $?) \
	"4 MB pc -> far with the model's transmit passes inline (tx_defer N): intact"

grep -E -e "$P3" /proc/interrupts | head -8 | sed 's/^/# /'
ktap_result $([ "$(grep -c -e "$P3" /proc/interrupts)" -ge 2 ]; echo $?) \
	"one interrupt vector per queue pair of port 3 in /proc/interrupts"

# --- jumbo frames: MTU 9000 on both wires and both host ports ----------------
ok=0
for d in "$P3" "$P8"; do ip link set dev "$d" mtu 9000 || ok=1; done
ip -n pc link set dev npuw0p3 mtu 9000 || ok=1
ip -n far link set dev npuw0p8 mtu 9000 || ok=1
wait_carrier "$P3" && wait_carrier "$P8" || ok=1
ktap_result $ok "MTU 9000 on ports 3 and 8 (running) and on their wires"

# near A B: equal but for a frame or two of background (ND, MLD) in flight.
near() { [ $(($1 - $2)) -le 2 ] && [ $(($2 - $1)) -le 2 ]; }
# jumbo_ping NS DST IN_WIRE IN_PORT OUT_PORT OUT_NS OUT_WIRE: 10 pings of
# 8,000 bytes with DF from NS; the 8,042-byte frames cross IN_WIRE ->
# IN_PORT -> the host -> OUT_PORT -> OUT_WIRE, counted alike at each step.
jumbo_ping() {
	local ns=$1 dst=$2 iw=$3 ip=$4 op=$5 ons=$6 ow=$7
	local c=(
		"link_stat -n $ns $iw tx_packets" "link_stat $ip rx_packets"
		"link_stat $op tx_packets" "link_stat -n $ons $ow rx_packets"
		"link_stat $ip rx_bytes" "link_stat -n $ons $ow rx_bytes"
		"eth_sum $ip ^hw_rx_oversize$")
	local b=() d=() i out rc
	for i in "${!c[@]}"; do b[i]=$(${c[i]}); done
	out=$(ip netns exec "$ns" ping -M do -s 8000 -c 10 -i 0.2 -W 3 "$dst" 2>&1)
	rc=$?
	for i in "${!c[@]}"; do d[i]=$(( $(${c[i]}) - b[i] )); done
	echo "$out" | tail -2 | sed 's/^/# /'
	diag "$iw sent ${d[0]}, $ip received ${d[1]} (${d[4]} B), $op sent ${d[2]}, $ow received ${d[3]} (${d[5]} B), oversize +${d[6]}"
	[ $rc = 0 ] && echo "$out" | grep -q ' 10 received' &&
		[ "${d[1]}" -ge 10 ] && near "${d[1]}" "${d[0]}" &&
		[ "${d[3]}" -ge 10 ] && near "${d[2]}" "${d[3]}" &&
		[ "${d[4]}" -ge $((10 * 8042)) ] && [ "${d[5]}" -ge $((10 * 8042)) ] &&
		[ "${d[6]}" = 0 ]
}
ip netns exec pc ping -c 1 -W 3 $FAR4 >/dev/null 2>&1	# neighbours resolved
jumbo_ping pc $FAR4 npuw0p3 "$P3" "$P8" far npuw0p8
ktap_result $? "ping -M do -s 8000 pc -> far: 8,042-byte frames, counted alike hop by hop"
jumbo_ping far $PC4 npuw0p8 "$P8" "$P3" pc npuw0p3
ktap_result $? "ping -M do -s 8000 far -> pc: 8,042-byte frames, counted alike hop by hop"
# The host's own TCP to pc at MTU 9000: with TSO off each 9,014-byte frame
# leaves as a head and page fragments (several descriptors); with TSO on the
# model cuts 64 KB sends at the 8,948-byte MSS.  pc's wire sees jumbo frames.
for tso in off on; do
	ethtool -K "$P3" tso $tso >/dev/null
	iperf_server pc
	p0=$(link_stat -n pc npuw0p3 rx_packets) b0=$(link_stat -n pc npuw0p3 rx_bytes)
	t0=$(eth_sum "$P3" '^hw_tx_bad$')
	bps=$(iperf3 -c $PC4 -t 3 -J 2>/dev/null | jq -r '.end.sum_received.bits_per_second // 0 | floor')
	p=$(( $(link_stat -n pc npuw0p3 rx_packets) - p0 )) b=$(( $(link_stat -n pc npuw0p3 rx_bytes) - b0 ))
	t=$(( $(eth_sum "$P3" '^hw_tx_bad$') - t0 ))
	diag "host -> pc, TSO $tso: ${bps:-0} bit/s, pc's wire got $p frames, $((b / (p ? p : 1))) B each on average, tx_bad +$t"
	ktap_result $([ "${bps:-0}" -gt 1000000 ] && [ $((b / (p ? p : 1))) -ge 8000 ] && [ "$t" = 0 ]; echo $?) \
		"TCP host -> pc at MTU 9000, TSO $tso: jumbo frames on pc's wire"
done
check "MTU 1500 again: ping pc -> far" bash -c "
	ip link set dev $P3 mtu 1500 && ip link set dev $P8 mtu 1500 &&
	ip -n pc link set dev npuw0p3 mtu 1500 && ip -n far link set dev npuw0p8 mtu 1500 &&
	ip netns exec pc ping -c 3 -i 0.2 -W 5 $FAR4"
ktap_finish
