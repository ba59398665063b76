#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Each direction's next hop as the host would route it (issue 15): far's
# wire on port 8 carries a second host ("fb", a macvlan of far's with its
# own MAC, 203.0.113.3; far answers ARP only for its interfaces' own
# addresses, arp_ignore 1) and far routes 10.99.0.0/24 (its own 10.99.0.1).
#   A  pc -> 203.0.113.3:5201, an on-link peer that is not far: its MAC;
#   B  pc -> 10.99.0.1:5202, behind the router far: far's MAC;
#   C  pc -> 10.99.0.1:5203, marked 1 by the ruleset (kept in conntrack,
#      connmark) and routed by `ip rule fwmark 1` through fb: fb's MAC.
# Each rule of direction 0 on port 3 writes that MAC, and each stream
# reaches far's TCP while the host takes < 0.1 % of the frames.
# Counts only; times belong to the benchmark.
# timeout: 600
. "$(dirname "$0")/lib.sh"
ktap_plan 6
LOAD=$NPU_REPO/build/bin/npuload
FBMAC=02:00:00:00:08:bb
trap 'ip rule del fwmark 1 table 100 2>/dev/null; fm_cleanup' EXIT

fm_setup
echo 0 > /sys/kernel/debug/npusim/0/fp_retrans_max	# 63's subject
ip -n far link add link npuw0p8 name fb address $FBMAC type macvlan mode bridge &&
ip -n far addr add 203.0.113.3/24 dev fb && ip -n far link set fb up &&
ip -n far addr add 10.99.0.1/32 dev lo &&
ip netns exec far sysctl -qw net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.fb.rp_filter=0 \
	net.ipv4.conf.npuw0p8.rp_filter=0 net.ipv4.conf.all.arp_ignore=1 \
	net.ipv4.conf.all.arp_announce=2 &&
ip neigh flush dev "$P8" &&
ip route add 10.99.0.0/24 via $FAR4 &&
ip route add 10.99.0.0/24 via 203.0.113.3 table 100 && ip rule add fwmark 1 table 100 &&
nft -f - <<'NFT'
table inet pbr {
	chain pre {
		type filter hook prerouting priority mangle; policy accept;
		tcp dport 5203 ct mark set 1
		meta mark set ct mark
	}
}
NFT
ktap_result $? "a second host on port 8's wire, a network behind far, a fwmark route through the second"
for p in 5201 5202 5203; do
	ip netns exec far "$LOAD" server -p $p -t 300 >/dev/null 2>&1 &
done
wait_listen far 5201 && wait_listen far 5202 && wait_listen far 5203

fm_start; ktap_result $? "npuflowd on $P3 $P8"
ip netns exec pc "$LOAD" client -a 203.0.113.3 -p 5201 -c 1 -t 200 -r 1000000 >/dev/null 2>&1 &
ip netns exec pc "$LOAD" client -a 10.99.0.1 -p 5202 -c 1 -t 200 -r 1000000 >/dev/null 2>&1 &
ip netns exec pc "$LOAD" client -a 10.99.0.1 -p 5203 -c 1 -t 200 -r 1000000 >/dev/null 2>&1 &
ktap_result $(fm_wait_jq 40 '[.[] | select(.family == 4 and .state == "made")] | length == 3'; echo $?) \
	"the three connections are made"

# dmac_of DPORT: the MAC direction 0's rule of the connection to DPORT
# writes (its pedit keys at eth+0 and the first half of eth+4)
dmac_of() {
	local h
	h=$(fm_flows | jq -r --argjson p "$1" '[.[] | select(.dirs[0].dport == $p)][0].dirs[0].handle')
	tc filter show dev "$P3" ingress | awk -v h="$(printf 'handle 0x%x' "$h")" '
		/^filter/ { on = index($0, h " ") > 0 || substr($0, length($0) - length(h)) == h }
		on && /at eth\+0:/ { a = $6 }
		on && /at eth\+4:/ { b = substr($6, 1, 4) }
		END { print a b }' | sed 's/../&:/g; s/:$//'
}
FARMAC=$(ip -n far link show npuw0p8 | awk '/ether/ { print $2 }')
A=$(dmac_of 5201) B=$(dmac_of 5202) C=$(dmac_of 5203)
diag "far $FARMAC, fb $FBMAC; rules write A $A, B $B, C $C"
ktap_result $([ "$A" = $FBMAC ] && [ "$B" = "$FARMAC" ] && [ "$C" = $FBMAC ]; echo $?) \
	"the on-link peer gets its MAC, behind the router the router's, the fwmark route its next hop's"
a=$(ip netns exec far nstat -asz TcpInSegs | awk '$1 == "TcpInSegs" { print $2 }')
fm_share "three streams"; ok=$?
b=$(ip netns exec far nstat -asz TcpInSegs | awk '$1 == "TcpInSegs" { print $2 }')
diag "far's TCP took $((b - a)) segments in 8 s"
ktap_result $ok "the host sees < 0.1 % of the streams"
ktap_result $([ $((b - a)) -gt 3000 ]; echo $?) "far's TCP takes all three"
[ "$KTAP_FAIL" = 0 ] || {
	tc filter show dev "$P3" ingress | grep -E "handle|eth\+" | sed 's/^/# /'
	tail -30 $FM_LOG | grep -v libxdp | sed 's/^/# /'
}
ktap_finish
