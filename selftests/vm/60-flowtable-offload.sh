#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# nftables flowtable "flags offload" on ports 3 and 8: a TCP stream each
# way for 15 s is put into the coprocessor's fast path; read over seconds
# 5-15, the host's port counters move by < 0.1 % of the stream's frames
# (seed 004: "a connection in hardware sends the host nothing").
# Then the same with masquerade on the egress port (NAT both ways) and
# with IPv6.
# timeout: 600
. "$(dirname "$0")/lib.sh"
ktap_plan 11
SECS=15

npu_load && npu_new 0 8 2 || { ktap_fail "setup"; ktap_finish; }
topo_pc_far 0; ktap_result $? "topology"
DL=auxiliary/npusim.npu.0
ethtool -K "$P3" hw-tc-offload on; ethtool -K "$P8" hw-tc-offload on

ruleset() { # [masq]
	nft flush ruleset
	nft -f - <<NFT
table inet fw {
	flowtable ft {
		hook ingress priority 0
		devices = { $P3, $P8 }
		flags offload
	}
	chain forward {
		type filter hook forward priority 0; policy accept;
		ct state invalid counter name invalid drop
		meta l4proto { tcp, udp } flow add @ft
	}
	counter invalid { }
}
table ip nat {
	chain postrouting {
		type nat hook postrouting priority 100;
		$( [ "${1:-}" = masq ] && echo "oifname $P8 masquerade" )
	}
}
NFT
}

host_frames() { echo $(( $(link_stat "$P3" rx_packets) + $(link_stat "$P8" rx_packets) )); }
wire_frames() { echo $(( $(link_stat -n pc npuw0p3 rx_packets) + $(link_stat -n pc npuw0p3 tx_packets) )); }

# stream NAME ADDR [iperf3 args]: host share of the stream's frames, seconds 5-15
stream() {
	local name=$1 addr=$2; shift 2
	local h0 h1 w0 w1 share
	ip netns exec far iperf3 -s -D -1 >/dev/null 2>&1; sleep 0.5
	local out=/tmp/ft-stream-$RANDOM.json
	ip netns exec pc iperf3 -c "$addr" -t $SECS -J "$@" > "$out" 2>&1 &
	local pid=$!
	sleep 5
	h0=$(host_frames); w0=$(wire_frames)
	conntrack -L 2>/dev/null | grep -q HW_OFFLOAD && HWOFF_SEEN=$((HWOFF_SEEN + 1))
	sleep 10
	h1=$(host_frames); w1=$(wire_frames)
	wait $pid
	local bps
	bps=$(jq -r '.end.sum_received.bits_per_second // 0 | floor' "$out")
	# share in units of 0.01 %
	share=$(( (h1 - h0) * 10000 / (w1 - w0 + 1) ))
	diag "$name: ${bps} bit/s; seconds 5-15: stream frames $((w1 - w0)), host frames $((h1 - h0)) (${share} / 10000)"
	ktap_result $([ $((w1 - w0)) -gt 1000 ] && [ "$share" -lt 10 ]; echo $?) \
		"$name: the host takes < 0.1 % of the stream's frames"
}

HWOFF_SEEN=0
ruleset
stream "IPv4 routed pc -> far" $FAR4
stream "IPv4 routed far -> pc" $FAR4 -R
ethtool -S "$P3" | grep -E 'flow|fp_|punt' | sed 's/^/# /' | head -30
ruleset masq
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
sleep 3
fl=$(ethtool -S "$P3" | awk '$1 == "fp_conns:" { print $2 }')
diag "connections left after the flush: $fl"
ktap_result $([ "${fl:-1}" = 0 ]; echo $?) "flushing the ruleset takes every connection out"
ktap_finish
