#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# nftables flowtable "flags offload" on ports 3 and 8: a TCP stream each
# way for 8 s is put into the coprocessor's fast path; read over seconds
# 3-7, the host's port counters move by < 0.1 % of the stream's frames
# (seed 004: "a connection in hardware sends the host nothing").
# Then the same with masquerade on the egress port (NAT both ways) and
# with IPv6.  8 MB each through the fast path arrive intact (sha256) with
# the receiver's wire checking every sum (rx off) and taking the sums the
# fast path left partial as verified (rx on, the default).
# timeout: 600
# guest: alone (a stream window timed in seconds)
. "$(dirname "$0")/lib.sh"
ktap_plan 15
SECS=8

npu_load && npu_new 0 8 2 || { ktap_fail "setup"; ktap_finish; }
topo_pc_far 0; ktap_result $? "topology"
DL=auxiliary/npusim.npu.0
ethtool -K "$P3" hw-tc-offload on gro off; ethtool -K "$P8" hw-tc-offload on gro off

ruleset() { # [masq]
	local nat=nat
	[ "${1:-}" = masq ] && nat=nat=$P8
	nft flush ruleset
	{ fw_ruleset ft=offload invalid=invalid $nat; cat <<NFT; } | nft -f -
table netdev stream {
	counter frames { }
	chain in {
		type filter hook ingress devices = { $P3, $P8 } priority -500; policy accept;
		tcp dport 5201 counter name frames
		tcp sport 5201 counter name frames
	}
}
NFT
}

# The stream's frames that reached the host (iperf3's two connections, port
# 5201), counted at the ports' ingress before the flowtable's hook, GRO off:
# one frame a packet.  The host's own frames beside them (neighbour
# discovery, multicast) are not the stream's.
host_frames() { nft -j list counter netdev stream frames | jq '[.. | objects | .packets? // empty] | add'; }
wire_frames() { echo $(( $(link_stat -n pc npuw0p3 rx_packets) + $(link_stat -n pc npuw0p3 tx_packets) )); }

# stream NAME ADDR [iperf3 args]: host share of the stream's frames over 4 s,
# from a second after both of iperf3's connections are in hardware (a
# window timed from the client's start misses the stream when a loaded
# guest takes seconds to connect)
stream() {
	local name=$1 addr=$2; shift 2
	local h0 h1 w0 w1 share t0 t1
	iperf_server far
	local out=/tmp/ft-stream-$RANDOM.json
	wait_unoffloaded 5201	# the previous stream's connections are not counted
	ip netns exec pc iperf3 -c "$addr" -t $SECS -J "$@" > "$out" 2>&1 &
	local pid=$!
	t0=$SECONDS
	wait_offloaded 5201 2 && HWOFF_SEEN=$((HWOFF_SEEN + 1))
	t1=$SECONDS
	sleep 1
	h0=$(host_frames); w0=$(wire_frames); local g0; g0=$(fp_stat givebacks)
	sleep 4
	h1=$(host_frames); w1=$(wire_frames); local g1; g1=$(fp_stat givebacks)
	wait $pid
	local bps rtx
	bps=$(jq -r '.end.sum_received.bits_per_second // 0 | floor' "$out")
	rtx=$(jq -r '.end.sum_sent.retransmits // "?"' "$out")
	# share in units of 0.01 %
	share=$(( (h1 - h0) * 10000 / (w1 - w0 + 1) ))
	diag "$name: ${bps} bit/s, $rtx retransmitted; 4 s from 1 s after the offload (~$((t1 - t0)) s after the start): stream frames $((w1 - w0)), host frames $((h1 - h0)) (${share} / 10000), give-backs $((g1 - g0))"
	ktap_result $([ $((w1 - w0)) -gt 1000 ] && [ "$share" -lt 10 ]; echo $?) \
		"$name: the host takes < 0.1 % of the stream's frames"
}

# fp_xfer NAME FROM TO ADDR PORT on|off: 8 MB (about 8,700 frames with the
# ACKs, of which > 5,000 asserted in hardware) FROM -> TO through the
# fast path with rx-checksumming on|off on TO's wire.  Without NAT the fast
# path leaves a sum the sender left to its device partial (as the host
# path does); with rx off the model's wire fills it in and TO's stack
# checks every frame.  With NAT the sum is completed before the rewrite.
fp_xfer() {
	local name=$1 from=$2 to=$3 addr=$4 port=$5 rx=$6 w f0 f1 ce0 ce1 sn ss rn rs
	w=$([ "$to" = far ] && echo npuw0p8 || echo npuw0p3)
	ip netns exec "$to" ethtool -K $w rx "$rx"
	f0=$(fp_fwd); ce0=$(in_csum_errs "$to")
	read -r sn ss rn rs <<< "$(xfer "$from" "$to" "$addr" "$port" 8)"
	f1=$(fp_fwd); ce1=$(in_csum_errs "$to")
	ip netns exec "$to" ethtool -K $w rx on
	diag "$name, $to's wire rx $rx: sent $sn B sha256 $ss, received ${rn:-?} B sha256 ${rs:-?}; forwarded by the coprocessor $((f1 - f0)); $to's TcpInCsumErrors ${ce0:-?} -> ${ce1:-?}"
	ktap_result $([ -n "$ss" ] && [ "$sn" = "$rn" ] && [ "$ss" = "$rs" ] && [ -n "$ce0" ] &&
		[ "$ce0" = "$ce1" ] && [ $((f1 - f0)) -gt 5000 ]; echo $?) \
		"8 MB $name through the fast path, $to's wire rx $rx: intact, no checksum errors"
}
fp_stat() { awk -v k="$1" '$1 == k { print $2 }' /sys/kernel/debug/npusim/0/fp_stats; }
fp_fwd() { fp_stat forwarded; }

HWOFF_SEEN=0
ruleset
fp_xfer "IPv4 routed pc -> far" pc far $FAR4 5301 off
fp_xfer "IPv4 routed far -> pc" far pc $PC4 5302 off
fp_xfer "IPv4 routed pc -> far" pc far $FAR4 5303 on
stream "IPv4 routed pc -> far" $FAR4
stream "IPv4 routed far -> pc" $FAR4 -R
ethtool -S "$P3" | grep -E 'flow|fp_|punt' | sed 's/^/# /' | head -30
ruleset masq
fp_xfer "IPv4 masquerade pc -> far" pc far $FAR4 5304 off
stream "IPv4 masquerade pc -> far" $FAR4
stream "IPv4 masquerade far -> pc" $FAR4 -R
ktap_result $(conntrack -L -p tcp --dport 5201 2>/dev/null | grep -q "src=$FAR4 dst=$H8_4"; echo $?) \
	"masquerade: the reply tuple goes to the host's address on port 8"
ruleset
stream "IPv6 pc -> far" $FAR6
stream "IPv6 far -> pc" $FAR6 -R
inv=$(nft -j list counter inet fw invalid | jq -r '.nftables[] | select(.counter) | .counter.packets')
ktap_result $([ "${inv:-1}" = 0 ]; echo $?) "no invalid-state drops in the firewall (counter $inv)"
ktap_result $([ $HWOFF_SEEN = 6 ]; echo $?) "conntrack shows each stream [HW_OFFLOAD] while it runs ($HWOFF_SEEN of 6)"
nft flush ruleset
# read until none is left, the last read at 3 s as before (nothing comes
# back once the flowtable is gone)
t3=$(( $(date +%s%N) + 3000000000 ))
while :; do
	late=$(( $(date +%s%N) >= t3 ))
	fl=$(ethtool -S "$P3" | awk '$1 == "fp_conns:" { print $2 }')
	if [ "$fl" = 0 ] || [ $late = 1 ]; then break; fi
	sleep 0.1
done
diag "connections left after the flush: $fl"
ktap_result $([ "${fl:-1}" = 0 ]; echo $?) "flushing the ruleset takes every connection out"
ktap_finish
