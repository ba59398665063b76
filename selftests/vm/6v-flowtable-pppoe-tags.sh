#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Stacked encapsulations through an nftables flowtable "flags offload"
# (issue 33), the flowtable on ports 3 and 8 (vlan and ppp devices take
# no offload: the kernel offers their lowest device's rules):
#  - a real PPPoE session inside 802.1Q VLAN 7 on port 8 (pppoe-server on
#    far's npuw0p8.7, pppd's pppoe.so on P8.7), the LAN masqueraded to it:
#    a flow of UDP datagrams far echoes, IPv4 and IPv6, in hardware both
#    ways (the host taking < 0.1 % of their frames), the first frames the
#    fast path pushed (tag 7, the session's header and length field, the
#    PPP protocol) and popped byte-identical to the host path's;
#  - 802.1Q 100 + 802.1Q 200 subinterfaces: the same, two tags;
#  - 802.1ad 100 + 802.1Q 200 subinterfaces: the kernel's flowtable cannot
#    describe an 802.1ad tag (no match key, its push an entry without an
#    id): the driver refuses the rule that pushes it ("802.1ad tags are not
#    described by the kernel's flowtable", counted in fp_unsupported) and
#    the one whose match lost it (a frame with the inner tag alone is not
#    the connection's); the flow runs through the host.
# Counts only.
# timeout: 240
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-echo.sh"
ktap_plan 12
T=$(mktemp -d /tmp/pppoe.XXXXXX)
trap 'pppoe_down; ip netns pids pc 2>/dev/null | xargs -r kill 2>/dev/null; nft flush ruleset
	[ -n "${NPUVM_OUT:-}" ] && cp "$T"/*.pcap "$T"/*.log "$NPUVM_OUT/" 2>/dev/null' EXIT

npu_load && npu_new 0 8 2 || { ktap_fail "setup"; ktap_finish; }
topo_pc_far 0; ktap_result $? "topology"
ft_router

# ---- a PPPoE session inside VLAN 7 -------------------------------------------
pppoe_up "$T" 7; up=$?
diag "session ${PPP_SID:-none} on $P8.7, router ${PPP_R4:-none}, far's end ${PPP_FAR:-none}"
ktap_result $([ $up = 0 ] && ip netns exec pc ping -c2 -W5 $PPP_F4 >/dev/null &&
	ip netns exec pc ping -6 -c2 -W5 $PPP_F6 >/dev/null; echo $?) \
	"a PPPoE session inside VLAN 7 comes up (session id ${PPP_SID:-none}), pc pings far across it in both families"
[ $up = 0 ] || { sed 's/^/# /' "$T/pppd.log" 2>/dev/null | tail -20; ktap_finish; }
echo_far
# fp_diag: the driver's table and its refusals, device wide
fp_diag() {
	diag "$(eth_stats "$P3" fp_flows fp_flows_added fp_paired fp_pppoe_paired fp_unsupported \
		fp_cmd_failed hw_fp_conns hw_fp_mflows | awk '{ printf "fp_flows %s added %s paired %s pppoe_paired %s unsupported %s cmd_failed %s; hw conns %s mflows %s", $1, $2, $3, $4, $5, $6, $7, $8 }')"
}
N=1500 W=1
flow "IPv4 in VLAN 7's session" $PPP_F4 4000 ipv4 "8100:7,8864:$PPP_SID"; fp_diag
flow "IPv6 in VLAN 7's session" $PPP_F6 4001 ipv6 "8100:7,8864:$PPP_SID"; fp_diag

# ---- stacked subinterfaces --------------------------------------------------
# stack TPID NET: the router's and far's OUTER.200 over OUTER (TPID's tag
# 100 on P8 and on far's wire), at NET.1 and NET.2, neighbours known (no
# resolution in the host while frames are counted); far answers pc's
# network through it.
stack() {
	local o=q100 proto=$1 n=$2 fmac
	[ "$proto" = 802.1ad ] && o=a100
	ip link add link "$P8" name $o type vlan proto "$proto" id 100 &&
	ip link add link $o name $o.200 type vlan id 200 &&
	ip -n far link add link npuw0p8 name $o type vlan proto "$proto" id 100 &&
	ip -n far link add link $o name $o.200 type vlan id 200 &&
	ip addr add "$n.1/24" dev $o.200 && ip -n far addr add "$n.2/24" dev $o.200 &&
	ip link set $o up && ip link set $o.200 up &&
	ip -n far link set $o up && ip -n far link set $o.200 up || return 1
	fmac=$(ip netns exec far cat /sys/class/net/npuw0p8/address)
	ip neigh replace "$n.2" lladdr "$fmac" dev $o.200 nud permanent &&
	ip -n far neigh replace "$n.1" lladdr "$(mac "$P8")" dev $o.200 nud permanent &&
	ip -n far route replace ${PC4%.*}.0/24 via "$n.1" &&
	ip netns exec pc ping -c1 -W5 "$n.2" >/dev/null
}
stack 802.1Q 198.18.200; ktap_result $? "802.1Q 100 + 802.1Q 200 subinterfaces on $P8: pc pings far through them"
flow "IPv4 in 802.1Q 100 + 802.1Q 200" 198.18.200.2 4002 ipv4 "8100:100,8100:200"; fp_diag

stack 802.1ad 198.18.201; ktap_result $? "802.1ad 100 + 802.1Q 200 subinterfaces on $P8: pc pings far through them"
read -r u0 < <(eth_stats "$P3" fp_unsupported)
read -r a b c d <<< "$(fwd_punts "$P3") $(fwd_punts "$P8")"
read -r ws wg <<< "$(udp_pc 198.18.201.2 4003 $W 0)"
for i in $(seq 25); do
	conntrack -L -p udp --sport 4003 2>/dev/null | grep -q OFFLOAD && break
	sleep 0.2
done
ct=$(conntrack -L -p udp --sport 4003 2>/dev/null | grep -o '\[[A-Z_]*OFFLOAD\]')
read -r ns ng <<< "$(udp_pc 198.18.201.2 4003 0 300)"
read -r f3 p3 f8 p8 <<< "$(fwd_punts "$P3") $(fwd_punts "$P8")"
read -r u1 < <(eth_stats "$P3" fp_unsupported)
f3=$((f3 - a)) p3=$((p3 - b)) f8=$((f8 - c)) p8=$((p8 - d))
fp_diag
diag "802.1ad: conntrack ${ct:-not in the flowtable}; $((ws + ns)) datagrams ($((wg + ng)) echoed): port 3 forwarded $f3 punted $p3, port 8 forwarded $f8 punted $p8; fp_unsupported +$((u1 - u0))"
ktap_result $([ -n "$ct" ] && [ $((u1 - u0)) -ge 1 ] && [ $f3 = 0 ] && [ $f8 = 0 ] &&
	[ $p3 -ge $((ws + ns)) ] && [ $p8 -ge $((wg + ng)) ] && [ $((wg + ng)) -ge $(((ws + ns) * 2 / 3)) ]; echo $?) \
	"802.1ad 100 + 802.1Q 200: the flowtable's rule pushing 802.1ad is refused (fp_unsupported), the flow goes through the host both ways"

# A frame from far with the inner tag 200 alone and the reply's addresses
# and ports is not the connection's (the host drops it: no 802.1Q 200 on
# P8); the fast path must not forward it either.
read -r f0 < <(eth_stats "$P8" hw_fwd_frames)
ip netns exec far python3 - "$(mac "$P8")" "$(ip netns exec far cat /sys/class/net/npuw0p8/address)" \
	198.18.201.2 $PC4 <<'PY'
import socket, struct, sys
mb = lambda m: bytes(int(x, 16) for x in m.split(":"))
pay = b"npuflow-pppoe-" * 4
ip = bytearray(struct.pack("!BBHHHBBH4s4s", 0x45, 0, 28 + len(pay), 0, 0x4000, 64, 17, 0,
                           socket.inet_aton(sys.argv[3]), socket.inet_aton(sys.argv[4])))
c = sum(struct.unpack("!10H", ip))
c = (c & 0xffff) + (c >> 16)
struct.pack_into("!H", ip, 10, ~((c & 0xffff) + (c >> 16)) & 0xffff)
f = mb(sys.argv[1]) + mb(sys.argv[2]) + struct.pack("!HHH", 0x8100, 200, 0x0800) + bytes(ip) + \
    struct.pack("!HHHH", 5000, 4003, 8 + len(pay), 0) + pay
so = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
so.bind(("npuw0p8", 0))
for i in range(5):
    so.send(f)
PY
sleep 0.5
read -r f1 < <(eth_stats "$P8" hw_fwd_frames)
diag "5 frames tagged 802.1Q 200 alone, the reply's 5-tuple: port 8 forwarded $((f1 - f0))"
ktap_result $([ "$f1" = "$f0" ]; echo $?) \
	"802.1ad 100 + 802.1Q 200: a frame with the inner tag alone is not forwarded in hardware"
ktap_finish
