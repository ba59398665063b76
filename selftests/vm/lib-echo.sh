# SPDX-License-Identifier: GPL-2.0
# Flows of equal UDP datagrams from pc that far echoes, through the
# router's flowtable (after topo_pc_far and lib.sh): made, then counted on
# ports 3 and 8 while in hardware, the first frames on far's and pc's
# wires compared with the host path's.  Source it after lib.sh (its
# ft_router is the flowtable router); the tests of PPPoE and stacked tags
# in flowtable mode share it.  T is the test's directory for captures.

# echo_far: far echoes every datagram to port 5000 as it came, in the
# background.
echo_far() {
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
}

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
# receives in NS (FILTER may be empty), in the background; returns once it
# listens.  Adds its pid to CAPS.
cap() {
	# shellcheck disable=SC2086 # an empty filter is no argument
	ip netns exec "$1" tcpdump -i "$2" -Q in -U -s 200 -c "$5" -w "$4" ${3:+"$3"} 2>"$4.err" &
	CAPS+=" $!"
	for i in $(seq 50); do grep -q listening "$4.err" 2>/dev/null && return 0; sleep 0.1; done
}
# pcap_same FILE HOST L2...: for each FILE, its UDP datagrams of port 5000
# (whatever else the capture holds is left out), the first HOST the host
# path's, checked and compared whole with the first but for the IPv4 id
# (the sender's, one a datagram) and the header sum that covers it; prints
# a line "frames host same bad" each.  L2 is the encapsulation each must
# arrive in, outermost first, comma separated: TPID:VID for a tag
# (8100:7, 88a8:100, hex TPID), 8864:SID for a PPPoE session (its header,
# its length field the IP packet's + 2, the IP version's PPP protocol), "-"
# for none.  A frame in another is bad, so is an IPv4 header sum.
pcap_same() {
	python3 - "$@" <<'PY'
import struct, sys
def parse(x):
    o, l2 = 12, []
    et = struct.unpack_from("!H", x, o)[0]
    while et in (0x8100, 0x88a8):
        l2.append((et, struct.unpack_from("!H", x, o + 2)[0] & 0xfff))
        o += 4
        et = struct.unpack_from("!H", x, o)[0]
    o += 2
    ses = None
    if et == 0x8864:
        ses = struct.unpack_from("!BBHHH", x, o)
        l2.append((et, ses[2]))
        o += 8
    elif et not in (0x0800, 0x86dd):
        return None
    v = x[o] >> 4
    if v == 4:
        if x[o + 9] != 17:
            return None
        iplen, u = struct.unpack_from("!H", x, o + 2)[0], o + (x[o] & 15) * 4
    elif v == 6:
        if x[o + 6] != 17:
            return None
        iplen, u = 40 + struct.unpack_from("!H", x, o + 4)[0], o + 40
    else:
        return None
    if 5000 not in struct.unpack_from("!HH", x, u):
        return None
    good = ses is None or ses[:2] + ses[3:] == (0x11, 0, iplen + 2, 0x21 if v == 4 else 0x57)
    if v == 4:
        c = sum(struct.unpack("!10H", x[o:o + 20]))
        c = (c & 0xffff) + (c >> 16)
        good = good and (c & 0xffff) + (c >> 16) == 0xffff
    return l2, good, o, v
def masked(x, o, v):
    return x[:o + 4] + bytes(2) + x[o + 6:o + 10] + bytes(2) + x[o + 12:] if v == 4 else x
for i in range(1, len(sys.argv), 3):
    b, host = open(sys.argv[i], "rb").read(), int(sys.argv[i + 1])
    want = [] if sys.argv[i + 2] == "-" else \
        [tuple(int(p, 16) if j == 0 else int(p) for j, p in enumerate(t.split(":")))
         for t in sys.argv[i + 2].split(",")]
    off, fr = 24, []
    while off + 16 <= len(b):
        n = struct.unpack_from("<I", b, off + 8)[0]
        x = b[off + 16:off + 16 + n]
        off += 16 + n
        p = parse(x)
        if p:
            fr.append((x,) + p)
    first = masked(fr[0][0], fr[0][3], fr[0][4]) if fr else None
    print(len(fr), min(host, len(fr)), sum(masked(x, o, v) == first for x, _, _, o, v in fr),
          sum(l2 != want or not good for _, l2, good, _, _ in fr))
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

# flow NAME ADDR SPORT FAMILY L2: W datagrams and their echoes make it,
# then N datagrams once it is in hardware (none while the driver writes
# its directions: a connection's counters restart with each write); two
# results: both ways in hardware, the host taking < 0.1 % of the frames;
# the first frames on far's wire (in encapsulation L2, pcap_same's) and on
# pc's (untagged) the host path's.  Sets SENT and GOT (pc's totals).
flow() {
	local name=$1 addr=$2 sport=$3 fam=$4 l2=$5 s0 s1 s2 a b c d ws wg ns ng f3 p3 f8 p8 far pc ok r
	local filt="udp dst port 5000" nfar=$((W + 6))
	CAPS=
	# pcap_same picks the datagrams out of a tagged capture: a filter
	# through tags the kernel took out of the frame is libpcap's guess
	case $l2 in
	-) ;;
	8864:*) filt="pppoes and $filt" ;;
	*) filt= nfar=$((W + 30)) ;;
	esac
	cap far npuw0p8 "$filt" "$T/far-$sport.pcap" $nfar
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
	{ read -r far; read -r pc; } < <(pcap_same "$T/far-$sport.pcap" $((ws - (f3 - a))) "$l2" \
		"$T/pc-$sport.pcap" $((wg - (f8 - c))) -)
	diag "$name: far's wire ($l2): frames host-path identical bad $far; pc's wire: $pc"
	ok=0
	for r in "$far" "$pc"; do
		read -r a b c d <<< "$r"
		[ "${b:-0}" -ge 1 ] && [ "$a" -gt "$b" ] && [ "$c" = "$a" ] && [ "$d" = 0 ] || ok=1
	done
	ktap_result $ok "$name: the first frames pushed into $l2 and popped out of it are the host path's, byte for byte but the IPv4 id"
}
