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
ktap_plan 13
T=$(mktemp -d /tmp/pppoe.XXXXXX)
trap 'pppoe_down; ip netns pids pc 2>/dev/null | xargs -r kill 2>/dev/null; nft flush ruleset
	sysctl -qw net.netfilter.nf_conntrack_acct=0
	[ -n "${NPUVM_OUT:-}" ] && cp "$T"/*.pcap "$T"/*.log "$NPUVM_OUT/" 2>/dev/null' EXIT

npu_load && npu_new 0 8 2 || { ktap_fail "setup"; ktap_finish; }
topo_pc_far 0; ktap_result $? "topology"
ethtool -K "$P3" hw-tc-offload on; ethtool -K "$P8" hw-tc-offload on
# Wires that check and fill in sums, as a real one carries them: far's
# pppoe relay reads its frames raw.  far routes (no router solicitations).
ip netns exec far ethtool -K npuw0p8 rx off; ip netns exec pc ethtool -K npuw0p3 rx off
ip netns exec far sysctl -qw net.ipv6.conf.all.forwarding=1
# pc and the router know each other's MACs: no neighbour discovery (which
# the host takes) on port 3 while frames are counted
pcmac=$(ip netns exec pc cat /sys/class/net/npuw0p3/address) r3=$(mac "$P3")
ip neigh replace $PC4 lladdr "$pcmac" dev "$P3" nud permanent
ip -6 neigh replace $PC6 lladdr "$pcmac" dev "$P3" nud permanent
ip -n pc neigh replace $H3_4 lladdr "$r3" dev npuw0p3 nud permanent
ip -n pc -6 neigh replace $H3_6 lladdr "$r3" dev npuw0p3 nud permanent
nft -f - <<NFT
table inet fw {
	flowtable ft { hook ingress priority 0; devices = { $P3, $P8 }; flags offload; counter; }
	chain forward { type filter hook forward priority 0; policy accept; meta l4proto { tcp, udp } flow add @ft; }
}
table ip nat {
	chain postrouting { type nat hook postrouting priority 100; oifname "pppwan" masquerade; }
}
NFT
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

# far echoes every datagram to port 5000 as it came
ip netns exec far python3 -c '
import select, socket
a = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
a.bind(("", 5000))
b = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
b.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
b.bind(("", 5000))
while True:
    for s in select.select([a, b], [], [])[0]:
        d, p = s.recvfrom(4096)
        s.sendto(d, p)' &

# udp_pc ADDR SPORT WARM N [SIZE [probe]]: from pc:SPORT to ADDR:5000, WARM
# datagrams each waiting (3 s at most) for its echo, then N of them 2 ms
# apart, SIZE (64) bytes each (probe: DF whatever the path's MTU); prints
# "sent echoed".
udp_pc() {
	ip netns exec pc python3 - "$@" <<'PY'
import select, socket, sys, time
addr, sport, warm, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
size = int(sys.argv[5]) if len(sys.argv) > 5 else 64
s = socket.socket(socket.AF_INET6 if ":" in addr else socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
if len(sys.argv) > 6:
    s.setsockopt(socket.IPPROTO_IP, 10, 3)  # IP_MTU_DISCOVER: IP_PMTUDISC_PROBE
s.bind(("", sport))
data, dst, got = (b"npuflow-pppoe-" * 200)[:size], (addr, 5000), 0
def take(t):
    global got
    while select.select([s], [], [], t)[0]:
        s.recv(4096)
        got += 1
        t = min(t, 1.5)
for i in range(warm):
    s.sendto(data, dst)
    if select.select([s], [], [], 3)[0]:
        s.recv(4096)
        got += 1
for i in range(n):
    s.sendto(data, dst)
    take(0)
    time.sleep(0.002)
take(1.5 if n else 0)
print(warm + n, got)
PY
}
# cap NS WIRE FILTER FILE COUNT: tcpdump of the first COUNT frames WIRE
# receives in NS, in the background; returns once it listens.
cap() {
	ip netns exec "$1" tcpdump -i "$2" -Q in -U -s 200 -c "$5" -w "$4" "$3" 2>"$4.err" &
	CAPS+=" $!"
	for i in $(seq 50); do grep -q listening "$4.err" 2>/dev/null && return 0; sleep 0.1; done
}
# pcap_same FILE HOST SID...: for each FILE, its frames, the first HOST the
# host path's, checked (session SID's header and length field, PPP
# protocol; IPv4 header sum) and compared whole with the first but for the
# IPv4 id (the sender's, one a datagram) and the header sum that covers
# it; prints a line "frames host same bad" each.
pcap_same() {
	python3 - "$@" <<'PY'
import struct, sys
def ok(x, sid):
    o = 14
    if sid:
        et, vt, code, s, ln, proto = struct.unpack_from("!HBBHHH", x, 12)
        o = 22
    v = x[o] >> 4
    iplen = struct.unpack_from("!H", x, o + 2)[0] if v == 4 else 40 + struct.unpack_from("!H", x, o + 4)[0]
    if sid and (et, vt, code, s, ln, proto) != (0x8864, 0x11, 0, sid, iplen + 2, 0x21 if v == 4 else 0x57):
        return False
    if v == 4:
        c = sum(struct.unpack("!10H", x[o:o + 20]))
        c = (c & 0xffff) + (c >> 16)
        return (c & 0xffff) + (c >> 16) == 0xffff
    return True
def masked(x, sid):
    o = 22 if sid else 14
    return x[:o + 4] + bytes(2) + x[o + 6:o + 10] + bytes(2) + x[o + 12:] if x[o] >> 4 == 4 else x
for i in range(1, len(sys.argv), 3):
    b, host, sid = open(sys.argv[i], "rb").read(), int(sys.argv[i + 1]), int(sys.argv[i + 2])
    off, fr = 24, []
    while off + 16 <= len(b):
        n = struct.unpack_from("<I", b, off + 8)[0]
        fr.append(b[off + 16:off + 16 + n])
        off += 16 + n
    print(len(fr), min(host, len(fr)), sum(masked(x, sid) == masked(fr[0], sid) for x in fr) if fr else 0,
          sum(not ok(x, sid) for x in fr))
PY
}
# fwd_punts DEV: "FORWARDED PUNTED" frames that arrived on DEV, the punts
# of IP unicast (lib.sh's ip_punts) and malformed frames
fwd_punts() {
	eth_stats "$1" hw_fwd_frames hw_punt_flow_miss hw_punt_not_active hw_punt_tcp_flags \
		hw_punt_exception hw_punt_mtu hw_punt_fastpath_off hw_punt_malformed |
		awk '{ print $1, $2 + $3 + $4 + $5 + $6 + $7 + $8 }'
}
# snapf FILE: ports 3 and 8's ethtool -S and the model's fp_stats into FILE
snapf() {
	{ ethtool -S "$P3" | awk '{ print "p3." $1, $2 }'; ethtool -S "$P8" | awk '{ print "p8." $1, $2 }'
	  awk '{ print "fp." $1, $2 }' /sys/kernel/debug/npusim/0/fp_stats; } > "$1"
}
# deltas BEFORE AFTER: the punt counters that moved
deltas() {
	awk 'NR == FNR { a[$1] = $2; next } $1 ~ /punt|pppoe/ && $2 != a[$1] { printf "%s+%d ", $1, $2 - a[$1] }' "$1" "$2"
}
# wait_hw SPORT [FAMILY]: until conntrack shows pc's flow from SPORT in
# hardware, then half a second for the driver's pairing.
wait_hw() {
	for i in $(seq 50); do
		conntrack -L -f "${2:-ipv4}" -p udp --sport "$1" 2>/dev/null | grep -q HW_OFFLOAD && break
		sleep 0.2
	done
	sleep 0.5
}

# ---- (b), (c), (d) a flow each family, both ways in hardware ------------
N=1500 W=1
# flow NAME ADDR SPORT FAMILY: W datagrams and their echoes make it, then N
# datagrams once it is in hardware (none while the driver writes its
# directions: a connection's counters restart with each write); sets SENT
# and GOT (pc's totals).
flow() {
	local name=$1 addr=$2 sport=$3 fam=$4 s0 s1 s2 a b c d ws wg ns ng f3 p3 f8 p8 far pc ok r
	CAPS=
	cap far npuw0p8 "pppoes and udp dst port 5000" "$T/far-$sport.pcap" $((W + 6))
	cap pc npuw0p3 "udp src port 5000" "$T/pc-$sport.pcap" $((W + 6))
	s0="$(fwd_punts "$P3") $(fwd_punts "$P8")"
	read -r ws wg <<< "$(udp_pc "$addr" "$sport" $W 0)"
	s1="$(fwd_punts "$P3") $(fwd_punts "$P8")"
	wait_hw "$sport" "$fam"
	s2="$(fwd_punts "$P3") $(fwd_punts "$P8")"
	snapf "$T/before"
	read -r ns ng <<< "$(udp_pc "$addr" "$sport" 0 $N)"
	snapf "$T/after"
	read -r a b c d <<< "$s2"
	read -r f3 p3 f8 p8 <<< "$(fwd_punts "$P3") $(fwd_punts "$P8")"
	f3=$((f3 - a)) p3=$((p3 - b)) f8=$((f8 - c)) p8=$((p8 - d))
	SENT=$((ws + ns)) GOT=$((wg + ng))
	diag "$name: made with $ws datagrams ($wg echoed), then $ns ($ng echoed): port 3 forwarded $f3 and punted $p3, port 8 forwarded $f8 and punted $p8 ($(deltas "$T/before" "$T/after")); $SECONDS s"
	ktap_result $([ "$f3" -ge $((N * 9 / 10)) ] && [ "$f8" -ge $((N * 2 / 3)) ] &&
		[ $(((p3 + p8) * 1000)) -lt $((f3 + f8)) ]; echo $?) \
		"$name: LAN -> far and far -> LAN in hardware, the host takes < 0.1 % of the frames"
	sleep 1
	# shellcheck disable=SC2086 # the pids, split on purpose
	kill $CAPS 2>/dev/null; wait $CAPS 2>/dev/null
	# the warm-up's frames the fast path did not forward are the host path's
	read -r a b c d <<< "$s0"
	read -r f3 _ f8 _ <<< "$s1"
	{ read -r far; read -r pc; } < <(pcap_same "$T/far-$sport.pcap" $((ws - (f3 - a))) "$PPP_SID" \
		"$T/pc-$sport.pcap" $((wg - (f8 - c))) 0)
	diag "$name: far's wire: frames host-path identical bad $far; pc's wire: $pc"
	ok=0
	for r in "$far" "$pc"; do
		read -r a b c d <<< "$r"
		[ "${b:-0}" -ge 1 ] && [ "$a" -gt "$b" ] && [ "$c" = "$a" ] && [ "$d" = 0 ] || ok=1
	done
	ktap_result $ok "$name: the first frames pushed into session $PPP_SID and popped out of it are the host path's, byte for byte but the IPv4 id"
}
flow IPv4 $PPP_F4 4000 ipv4; SENT4=$SENT GOT4=$GOT
flow IPv6 $PPP_F6 4001 ipv6; SENT6=$SENT GOT6=$GOT

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
