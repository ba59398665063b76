#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The flow maker with 802.1Q VLANs: pc reaches the host through VLAN 10 on
# port 3, far through VLAN 20 on port 8 (the host's VLAN devices route
# between them).  An IPv4 connection tagged on both sides and an IPv6 one
# tagged on pc's side only are made by npuflowd: each direction's rule
# matches its tag (protocol 802.1Q), pops it and pushes the egress's, and
# the host takes < 0.1 % of each stream; the frames reach far's and pc's
# VLAN devices, so they left with the right tag.  When the IPv6 reply comes
# back another way (tagged 20) the connection is made again with the
# ingress the reply's frames show.  Behind 802.1ad 100 + 802.1Q 200 on
# port 8 (pc untagged), a connection's rules match and pop both tags and
# push them (0x88a8 outside 0x8100, as far's wire shows), in hardware.
# Counts only; times belong to the benchmark.
# timeout: 600
. "$(dirname "$0")/lib.sh"
ktap_plan 16
LOAD=$NPU_REPO/build/bin/npuload
V10_4=198.18.10 V20_4=198.18.20 V10_6=2001:db8:10: V20_6=2001:db8:20:
trap fm_cleanup EXIT

fm_setup
echo 0 > /sys/kernel/debug/npusim/0/fp_retrans_max	# 63's subject

# vlan_end NS DEV VID NET4 NET6 OTHER4 OTHER6: DEV.VID in NS at .2/::2 of
# its nets, routed to the other side's through the host's .1/::1; the
# host's VLAN device "vVID" on its port.
vlan_end() {
	local ns=$1 dev=$2 vid=$3 n4=$4 n6=$5 o4=$6 o6=$7 port=$8
	ip -n "$ns" link add link "$dev" name "$dev.$vid" type vlan id "$vid" &&
	ip -n "$ns" addr add "$n4.2/24" dev "$dev.$vid" &&
	ip -n "$ns" -6 addr add "$n6:2/64" dev "$dev.$vid" nodad &&
	ip -n "$ns" link set "$dev.$vid" up &&
	ip -n "$ns" route add "$o4.0/24" via "$n4.1" &&
	ip -n "$ns" -6 route add "$o6:/64" via "$n6:1" &&
	ip link add link "$port" name "v$vid" type vlan id "$vid" &&
	ip addr add "$n4.1/24" dev "v$vid" &&
	ip -6 addr add "$n6:1/64" dev "v$vid" nodad &&
	ip link set "v$vid" up
}
vlan_end pc npuw0p3 10 $V10_4 $V10_6 $V20_4 $V20_6 "$P3" &&
vlan_end far npuw0p8 20 $V20_4 $V20_6 $V10_4 $V10_6 "$P8" &&
ip netns exec pc ping -c1 -W3 $V20_4.2 >/dev/null &&
ip netns exec pc ping -6 -c1 -W3 $V20_6:2 >/dev/null &&
ip netns exec pc ping -6 -c1 -W3 $FAR6 >/dev/null
ktap_result $? "VLAN 10 on port 3, VLAN 20 on port 8: pc and far ping over them"

fm_start; ktap_result $? "npuflowd on $P3 $P8"
ip netns exec far "$LOAD" server -p 5201 -t 300 >/dev/null 2>&1 &
wait_listen far 5201

# vlan_rules DEV VID FAMILY: npuflowd's 802.1Q rules on DEV matching VID
# with vlan_ethtype FAMILY, in hardware.
vlan_rules() {
	tc -j filter show dev "$1" ingress | jq --argjson v "$2" --arg f "$3" \
		'[.[] | select(.protocol == "802.1Q" and .options.in_hw == true and
		  .options.keys.vlan_id == $v and .options.keys.vlan_ethtype == $f)] | length'
}
# pushes DEV VID: rules on DEV whose actions push VID.
pushes() {
	tc -j filter show dev "$1" ingress | jq --argjson v "$2" \
		'[.[] | select(.options.in_hw == true and
		  ([.options.actions[]? | select(.kind == "vlan" and .vlan_action == "push" and
		    .id == $v)] | length) == 1)] | length'
}
# tagged_rx LABEL NS DEV: > 1,000 frames reached DEV in NS over 4 s.
tagged_rx() {
	local r0 r
	r0=$(link_stat -n "$2" "$3" rx_packets)
	sleep 4
	r=$(( $(link_stat -n "$2" "$3" rx_packets) - r0 ))
	diag "$1: $3 in $2 received $r frames in 4 s"
	[ "$r" -gt 1000 ]
}

# IPv4, tagged 10 on port 3 and 20 on port 8
fm_stream $V20_4.2
ktap_result $(fm_wait_jq 30 '[.[] | select(.family == 4 and .state == "made")] | length == 1'; echo $?) \
	"IPv4 over VLAN 10 -> VLAN 20: the connection is made"
diag "$(fm_flows | jq -c '[.[] | select(.family == 4)][0] | {id, state, reason, dirs}')"
diag "$(tc -j filter show dev "$P3" ingress | jq -c '[.[] | select(.options.keys.vlan_id)][0] | {protocol, keys: .options.keys | {vlan_id, vlan_ethtype}, actions: [.options.actions[] | {kind: .kind, a: .vlan_action, id: .id}]}')"
ktap_result $([ "$(vlan_rules "$P3" 10 ip)" = 1 ] && [ "$(vlan_rules "$P8" 20 ip)" = 1 ] &&
	[ "$(pushes "$P3" 20)" = 1 ] && [ "$(pushes "$P8" 10)" = 1 ] &&
	[ "$(fm_flows | jq '[.[] | select(.family == 4)][0] | [.dirs[] | .vlan, .out_vlan] == [10, 20, 20, 10]')" = true ]; echo $?) \
	"its rules match tag 10 on $P3 and 20 on $P8, pop it and push the other's, in hardware (npuctl flows shows the tags)"
sleep 2
fm_share "IPv4 VLAN"; ktap_result $? "IPv4 VLAN: the host sees < 0.1 % of the stream"
tagged_rx "IPv4 VLAN" far npuw0p8.20; ktap_result $? "the stream reaches far's VLAN 20 device"
kill "$FM_CLI" 2>/dev/null; wait "$FM_CLI" 2>/dev/null

# IPv6, tagged 10 on port 3 only: far is untagged on port 8 (pc routes
# far's address through VLAN 10, so its source is pc.10's; far answers it
# through its default route, untagged: the path is symmetric)
ip -n pc -6 route add $FAR6/128 via $V10_6:1
ip -n far -6 route del $V10_6:/64
fm_stream $FAR6 120	# it outlasts both windows and both waits below (at most 80 s)
ktap_result $(fm_wait_jq 30 '[.[] | select(.family == 6 and .state == "made")] | length == 1'; echo $?) \
	"IPv6 over VLAN 10 -> untagged: the connection is made"
diag "$(fm_flows | jq -c '[.[] | select(.family == 6)][0] | {id, state, reason, dirs}')"
# (the IPv4 connection went with its stream's close: npuflowd takes a TCP
# connection out when conntrack leaves ESTABLISHED)
ktap_result $([ "$(vlan_rules "$P3" 10 ipv6)" = 1 ] && [ "$(pushes "$P8" 10)" = 1 ] &&
	[ "$(tc -j filter show dev "$P8" ingress | jq '[.[] | select(.protocol == "ipv6" and .options.in_hw == true)] | length')" = 1 ]; echo $?) \
	"its rules: tag 10 matched and popped on $P3; untagged IPv6 on $P8, tag 10 pushed"
sleep 2
fm_share "IPv6 VLAN"; ktap_result $? "IPv6 one side tagged: the host sees < 0.1 % of the stream"

# the reply comes back another way: far routes pc's VLAN 10 network through
# its VLAN 20 device, so the reply arrives on port 8 tagged 20, not untagged
# as the original leaves; the rule written for it never matches
ip -n far -6 route add $V10_6:/64 via $V20_6:1
ktap_result $(fm_wait_jq 30 '[.[] | select(.family == 6 and .state == "made" and .dirs[1].vlan == 20)] | length == 1'; echo $?) \
	"the reply tagged 20 on its way back: the connection is made again with that ingress (rerouted $(fm_ctl status --json | jq .counters.rerouted))"
diag "$(fm_flows | jq -c '[.[] | select(.family == 6 and .state == "made")][0] | {id, dirs: [.dirs[] | {in, vlan, out, out_vlan}]}')"
sleep 2
fm_share "IPv6 asymmetric"; ktap_result $? "asymmetric: the host sees < 0.1 % of the stream"
kill "$FM_CLI" 2>/dev/null; wait "$FM_CLI" 2>/dev/null

# 802.1ad 100 + 802.1Q 200: far behind a100.200 on port 8, pc untagged
ip link add link "$P8" name a100 type vlan proto 802.1ad id 100 &&
	ip link add link a100 name a100.200 type vlan id 200 &&
	ip -n far link add link npuw0p8 name a100 type vlan proto 802.1ad id 100 &&
	ip -n far link add link a100 name a100.200 type vlan id 200 &&
	ip addr add 198.18.201.1/24 dev a100.200 && ip -n far addr add 198.18.201.2/24 dev a100.200 &&
	ip link set a100 up && ip link set a100.200 up &&
	ip -n far link set a100 up && ip -n far link set a100.200 up &&
	ip -n far route add ${PC4%.*}.0/24 via 198.18.201.1 &&
	ip netns exec pc ping -c1 -W3 198.18.201.2 >/dev/null
ktap_result $? "802.1ad 100 + 802.1Q 200 on port 8: pc pings far through them"
fm_stream 198.18.201.2 40
# the rule on P8 matches both tags and pops them; the one on P3 pushes
# 802.1Q 200, then 802.1ad 100 outside it (tc's order)
qinq='[.[] | select(.options.in_hw == true and .protocol == "802.1ad" and
	.options.keys.vlan_id == 100 and .options.keys.cvlan_id == 200 and
	([.options.actions[] | select(.kind == "vlan") | .vlan_action] == ["pop", "pop"]))] | length'
push='[.[] | select(.options.in_hw == true and
	([.options.actions[] | select(.kind == "vlan") | [.vlan_action, .id, .protocol]] ==
	 [["push", 200, "802.1Q"], ["push", 100, "802.1ad"]]))] | length'
fm_wait_jq 30 '[.[] | select(.family == 4 and .state == "made")] | length == 1'
ktap_result $([ "$(tc -j filter show dev "$P8" ingress | jq "$qinq")" = 1 ] &&
	[ "$(tc -j filter show dev "$P3" ingress | jq "$push")" = 1 ]; echo $?) \
	"802.1ad 100 + 802.1Q 200: the connection is made, its rules match and pop both tags on $P8 and push them on $P3, in hardware"
diag "$(tc -j filter show dev "$P3" ingress | jq -c '[.[] | select(.options.in_hw)][0] | [.options.actions[] | {kind, a: .vlan_action, id, protocol}]')"
sleep 2
ip netns exec far tcpdump -i npuw0p8 -Q in -U -s 64 -c 40 -w "$FM_LOG.ad.pcap" 2>/dev/null &
cap=$!
fm_share "802.1ad + 802.1Q"; ktap_result $? "802.1ad 100 + 802.1Q 200: the host sees < 0.1 % of the stream"
kill $cap 2>/dev/null; wait $cap 2>/dev/null
# the capture's TCP segments: "segments in 88a8:100 8100:200, others"
read -r good bad < <(python3 - "$FM_LOG.ad.pcap" <<'PY'
import struct, sys
b, off, good, bad = open(sys.argv[1], "rb").read(), 24, 0, 0
while off + 16 <= len(b):
    n = struct.unpack_from("<I", b, off + 8)[0]
    x, off, o, l2 = b[off + 16:off + 16 + n], off + 16 + n, 12, []
    while struct.unpack_from("!H", x, o)[0] in (0x8100, 0x88a8):
        l2.append(struct.unpack_from("!HH", x, o))
        o += 4
    if struct.unpack_from("!H", x, o)[0] == 0x0800 and x[o + 11] == 6:
        good, bad = (good + 1, bad) if l2 == [(0x88a8, 100), (0x8100, 200)] else (good, bad + 1)
print(good, bad)
PY
)
diag "far's wire: $good TCP segments tagged 0x88a8 100 then 0x8100 200, $bad otherwise"
ktap_result $([ "${good:-0}" -ge 20 ] && [ "$bad" = 0 ]; echo $?) \
	"the segments pushed into far's wire carry 802.1ad 100, then 802.1Q 200"
[ "$KTAP_FAIL" = 0 ] || {
	tc -s filter show dev "$P3" ingress | sed 's/^/# /' | head -60
	tail -30 $FM_LOG | sed 's/^/# /'
}
ktap_finish
