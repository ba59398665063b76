#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A real PPPoE session through an nftables flowtable "flags offload"
# (issue 33): Debian's pppoe-server on far's wire as the ISP's
# concentrator, pppd's kernel-mode pppoe.so on port 8 (pppwan), the router
# masquerading the LAN (port 3) to the session's address, a flowtable with
# counters on ports 3 and 8.  Flows of equal UDP datagrams that far echoes,
# IPv4 and IPv6, once made: in hardware both ways, the host taking < 0.1 %
# of their frames; the first frames the fast path pushed into the session
# (far's wire) and popped out of it (pc's wire) byte-identical to the host
# path's but for the IPv4 id, which the sender gives each datagram;
# conntrack's packets and bytes what pc sent and got back (L3).
# A TCP transfer finds the session's MTU (path MTU discovery), a datagram
# over it is punted "mtu".  Bad session frames from far (a wrong length
# field, an unknown session id, an LCP echo request) are punted and
# counted, never forwarded.  pppd killed: its connections leave hardware
# within a second (the driver's session notifier, issue 33 §4.5), and a
# new session with another id carries the next connection.  Counts only.
# timeout: 300
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-echo.sh"
ktap_plan 13
T=$(mktemp -d /tmp/pppoe.XXXXXX)
trap 'pppoe_down; ip netns pids pc 2>/dev/null | xargs -r kill 2>/dev/null; nft flush ruleset
	sysctl -qw net.netfilter.nf_conntrack_acct=0
	[ -n "${NPUVM_OUT:-}" ] && cp "$T"/*.pcap "$T"/*.log "$NPUVM_OUT/" 2>/dev/null' EXIT

npu_load && npu_new 0 8 2 || { ktap_fail "setup"; ktap_finish; }
topo_pc_far 0; ktap_result $? "topology"
ft_router
sysctl -qw net.netfilter.nf_conntrack_acct=1

# ---- (a) the session ---------------------------------------------------------
pppoe_up "$T"; up=$?
SID1=${PPP_SID:-0}
diag "session ${PPP_SID:-none} on $P8, router ${PPP_R4:-none}, far's end ${PPP_FAR:-none}"
ktap_result $([ $up = 0 ] && ip netns exec pc ping -c2 -W5 $PPP_F4 >/dev/null &&
	ip netns exec pc ping -6 -c2 -W5 $PPP_F6 >/dev/null; echo $?) \
	"a PPPoE session comes up (session id $SID1 from /proc/net/pppoe), pc pings far across it in both families"
if [ $up != 0 ]; then
	sed 's/^/# /' "$T/pppd.log" 2>/dev/null | tail -20
	ktap_finish
fi

echo_far

# ---- (b), (c), (d) a flow each family, both ways in hardware ------------
N=1500 W=1
flow IPv4 $PPP_F4 4000 ipv4 "8864:$PPP_SID"; SENT4=$SENT GOT4=$GOT
flow IPv6 $PPP_F6 4001 ipv6 "8864:$PPP_SID"; SENT6=$SENT GOT6=$GOT

# ---- (f) conntrack's counters: the flowtable's "counter", at L3 ------------
# The datagrams' IP packets are 92 B (IPv4) and 112 B (IPv6).  The driver
# reads the device's counters once a second: up to 6 s for the last read.
want="$SENT4 $((SENT4 * 92)) $GOT4 $((GOT4 * 92)) $SENT6 $((SENT6 * 112)) $GOT6 $((GOT6 * 112))"
for i in $(seq 30); do
	ct=$( (conntrack -L -p udp --sport 4000; conntrack -L -f ipv6 -p udp --sport 4001) 2>/dev/null |
		grep -o 'packets=[0-9]* bytes=[0-9]*' | sed 's/packets=\([0-9]*\) bytes=/\1 /' | tr '\n' ' ')
	[ "${ct% }" = "$want" ] && break
	sleep 0.2
done
read -r -a v <<< "$ct"
diag "conntrack (packets bytes: IPv4 original, reply, IPv6 original, reply): $ct; pc sent and got back: $SENT4 $GOT4 $SENT6 $GOT6 datagrams"
ktap_result $([ "${#v[@]}" = 8 ] && [ $((v[0] * 92)) = "${v[1]}" ] && [ $((v[2] * 92)) = "${v[3]}" ] &&
	[ $((v[4] * 112)) = "${v[5]}" ] && [ $((v[6] * 112)) = "${v[7]}" ]; echo $?) \
	"conntrack counts the flows' IP packets' bytes (L3), whatever the session added"
ktap_result $([ "${ct% }" = "$want" ]; echo $?) \
	"conntrack's packets of both flows are what pc sent and got back"

# ---- (e) the session's MTU -----------------------------------------------
# far offers an MSS of 1460: pc's segments of 1500 B meet pppwan's 1492
ip -n far route replace "$PPP_R4/32" dev "$PPP_FAR" src $PPP_F4 advmss 1460
read -r sn ss rn rs <<< "$(xfer pc far $PPP_F4 5301 1)"
mtu=$(ip -n pc route get $PPP_F4 | grep -o 'mtu [0-9]*')
diag "1 MB pc -> far: sent $sn B sha256 $ss, received ${rn:-?} B sha256 ${rs:-?}; pc's route: ${mtu:-no mtu}"
ktap_result $([ -n "$ss" ] && [ "$sn" = "$rn" ] && [ "$ss" = "$rs" ] && [ "$mtu" = "mtu 1492" ]; echo $?) \
	"path MTU discovery: a TCP transfer pc -> far arrives intact, pc learns the session's MTU 1492"
udp_pc $PPP_F4 4000 1 0 >/dev/null; wait_hw 4000
icmp() { ip netns exec pc nstat -asz IcmpInDestUnreachs | awk '$1 == "IcmpInDestUnreachs" { print $2 }'; }
read -r a b <<< "$(eth_stats "$P3" hw_fwd_frames hw_punt_mtu)"; i0=$(icmp)
udp_pc $PPP_F4 4000 0 1 1464 probe >/dev/null
read -r c d <<< "$(eth_stats "$P3" hw_fwd_frames hw_punt_mtu)"
udp_pc $PPP_F4 4000 0 1 1472 probe >/dev/null
read -r e f <<< "$(eth_stats "$P3" hw_fwd_frames hw_punt_mtu)"; i1=$(icmp)
diag "IP 1492 B: forwarded $((c - a)), punted mtu $((d - b)); IP 1500 B: forwarded $((e - c)), punted mtu $((f - d)); pc's ICMP destination unreachable $i0 -> $i1"
ktap_result $([ $((c - a)) = 1 ] && [ $((d - b)) = 0 ] && [ $((e - c)) = 0 ] && [ $((f - d)) = 1 ] &&
	[ "$i1" -gt "$i0" ]; echo $?) \
	"a datagram of 1492 B in the session is forwarded, one of 1500 B punted mtu and answered with ICMP"

# ---- (h) bad session frames from far ---------------------------------------
fps() { awk '$1 ~ /^pppoe_/ { printf "%s ", $2 }' /sys/kernel/debug/npusim/0/fp_stats; }
dport=$(conntrack -L -p udp --sport 4000 2>/dev/null | grep -o 'dport=[0-9]*' | tail -1)
udp_pc $PPP_F4 4000 1 0 >/dev/null; wait_hw 4000
read -r e0 m0 x0 <<< "$(fps)"; read -r f0 p0 <<< "$(eth_stats "$P8" hw_fwd_frames hw_punt_malformed)"
ip netns exec far python3 - "$(mac "$P8")" "$(ip netns exec far cat /sys/class/net/npuw0p8/address)" \
	"$PPP_SID" $PPP_F4 "$PPP_R4" "${dport#dport=}" <<'PY'
import socket, struct, sys
mb = lambda m: bytes(int(x, 16) for x in m.split(":"))
eth = mb(sys.argv[1]) + mb(sys.argv[2]) + b"\x88\x64"
sid, dport, pay = int(sys.argv[3]), int(sys.argv[6]), b"npuflow-pppoe-" * 4
ip = bytearray(struct.pack("!BBHHHBBH4s4s", 0x45, 0, 28 + len(pay), 0, 0x4000, 64, 17, 0,
                           socket.inet_aton(sys.argv[4]), socket.inet_aton(sys.argv[5])))
c = sum(struct.unpack("!10H", ip))
c = (c & 0xffff) + (c >> 16)
struct.pack_into("!H", ip, 10, ~((c & 0xffff) + (c >> 16)) & 0xffff)
ip = bytes(ip) + struct.pack("!HHHH", 5000, dport, 8 + len(pay), 0) + pay
ses = lambda s, ln, proto, body: eth + struct.pack("!BBHHH", 0x11, 0, s, ln, proto) + body
frames = [ses(sid, len(ip) + 12, 0x21, ip),           # length field 10 B beyond the frame
          ses(sid + 7, len(ip) + 2, 0x21, ip),        # a session the router has not
          ses(sid, 10, 0xc021, b"\x09\x01\x00\x08\x00\x00\x00\x00")]  # LCP echo request
so = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
so.bind(("npuw0p8", 0))
for f in frames:
    for i in range(5):
        so.send(f)
PY
sleep 0.5
read -r e1 m1 x1 <<< "$(fps)"; read -r f1 p1 <<< "$(eth_stats "$P8" hw_fwd_frames hw_punt_malformed)"
diag "5 each: model's pppoe_exception +$((e1 - e0)) pppoe_malformed +$((m1 - m0)) pppoe_miss +$((x1 - x0)); port 8 hw_punt_malformed +$((p1 - p0)), forwarded +$((f1 - f0))"
ktap_result $([ $((e1 - e0)) = 5 ] && [ $((m1 - m0)) = 5 ] && [ $((x1 - x0)) = 5 ] &&
	[ $((p1 - p0)) = 5 ] && [ "$f1" = "$f0" ]; echo $?) \
	"a wrong length field, an unknown session id, LCP echo requests: punted and counted, never forwarded"

# ---- (g) pppd killed ---------------------------------------------------------
# Needs the driver's session notifier (issue 33 §4.5): without it the
# fast path keeps pushing the dead session's id.
udp_pc $PPP_F4 4000 1 0 >/dev/null; udp_pc $PPP_F6 4001 1 0 >/dev/null
wait_hw 4000; wait_hw 4001 ipv6
fp_now; c0=$HW_CONNS
kill -KILL "$PPP_PID"; wait "$PPP_PID" 2>/dev/null
for i in $(seq 10); do sleep 0.1; fp_now; [ "$HW_CONNS" = 0 ] && break; done
diag "pppd killed with $c0 connections in hardware: $HW_CONNS left after $((i * 100)) ms"
ktap_result $([ "$c0" -ge 2 ] && [ "$HW_CONNS" = 0 ]; echo $?) \
	"pppd killed: its connections leave hardware within a second (needs the driver's session notifier)"
pppwan_up "$T"; up=$?
N=300
read -r ws wg <<< "$(udp_pc $PPP_F4 4002 $W 0)"; wait_hw 4002
read -r a _ b _ <<< "$(fwd_punts "$P3") $(fwd_punts "$P8")"
read -r ns ng <<< "$(udp_pc $PPP_F4 4002 0 $N)"
read -r c _ d _ <<< "$(fwd_punts "$P3") $(fwd_punts "$P8")"
diag "new session ${PPP_SID:-none} (was $SID1), router ${PPP_R4:-none}: $ns datagrams ($ng echoed), port 3 forwarded $((c - a)), port 8 $((d - b))"
ktap_result $([ $up = 0 ] && [ "$PPP_SID" != "$SID1" ] && [ $((c - a)) -ge $((N * 9 / 10)) ] &&
	[ "$ng" -ge $((N / 2)) ] && [ $((d - b)) -ge "$ng" ]; echo $?) \
	"a new session with another id carries the next connection in hardware both ways"
ktap_finish
