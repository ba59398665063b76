# SPDX-License-Identifier: GPL-2.0
# The topologies: two test hosts, "pc" and "far", with a router between
# them forwarding both families.  .2 is a host's address, .1 the router's
# (::2 and ::1), each host's default routes through the router.
#   topo_pc_far  over the model's wires: pc on the wire of port 3, far on
#                the wire of port 8 of a coprocessor, the host routing
#                between the two ports' netdevs (the tests, the demo, the
#                bench);
#   topo_veth    over veth pairs, the router in a namespace of its own
#                (the bench's baseline, selftests/bpf/veth-*.sh natively);
#   pppoe_up     a PPPoE session on port 8, after topo_pc_far.
# Sourced by bash, after tools/lib/knobs.sh (npu_port_dev, npu_wire): by
# selftests/vm/lib.sh, tools/demo/run, tools/bench/run and, topo_veth
# alone, by selftests/bpf/veth-*.sh.  diag TEXT: a "# " line, unless the
# sourcing script has its own (selftests/vm/lib.sh's KTAP).
declare -F diag >/dev/null || diag() { echo "# $*"; }

# The model topology's addresses: pc and the router on port 3's /24 and
# /64, far and the router on port 8's.
PC4=198.51.100.2 H3_4=198.51.100.1 FAR4=203.0.113.2 H8_4=203.0.113.1
PC6=2001:db8:3::2 H3_6=2001:db8:3::1 FAR6=2001:db8:8::2 H8_6=2001:db8:8::1

# topo_host NS DEV ADDR4 GW4 ADDR6 GW6: a test host's end: DEV in netns NS
# up with ADDR4/24 and ADDR6/64 (no DAD), default routes through GW4 and
# GW6.
topo_host() {
	local ns=$1 dev=$2 a4=$3 gw4=$4 a6=$5 gw6=$6
	ip -n "$ns" link set lo up
	ip -n "$ns" addr add "$a4/24" dev "$dev"
	ip -n "$ns" -6 addr add "$a6/64" dev "$dev" nodad
	ip -n "$ns" link set "$dev" up
	ip -n "$ns" route add default via "$gw4"
	ip -n "$ns" -6 route add default via "$gw6"
}

# topo_pc_far ID: netns "pc" on the wire of port 3 and "far" on the wire of
# port 8 of coprocessor ID, the host routing between the two port netdevs.
# Sets P3/P8 (host netdevs); the addresses are PC4, H3_4, FAR4, H8_4 and
# their IPv6 twins above.
topo_pc_far() {
	local id=$1
	P3=$(npu_port_dev "$id" 3) P8=$(npu_port_dev "$id" 8)
	[ -n "$P3" ] && [ -n "$P8" ] || { diag "no host netdev for port 3 or 8"; return 1; }
	ip netns add pc && ip netns add far || return 1
	ip link set "$(npu_wire "$id" 3)" netns pc || return 1
	ip link set "$(npu_wire "$id" 8)" netns far || return 1
	topo_host pc "$(npu_wire "$id" 3)" $PC4 $H3_4 $PC6 $H3_6 || return 1
	topo_host far "$(npu_wire "$id" 8)" $FAR4 $H8_4 $FAR6 $H8_6 || return 1
	ip addr add $H3_4/24 dev "$P3" && ip -6 addr add $H3_6/64 dev "$P3" nodad &&
	ip addr add $H8_4/24 dev "$P8" && ip -6 addr add $H8_6/64 dev "$P8" nodad &&
	ip link set "$P3" up && ip link set "$P8" up || return 1
	sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1
	wait_carrier "$P3" && wait_carrier "$P8"
}
# wait_carrier DEV: until DEV has carrier, at most 10 s.
wait_carrier() {
	local i
	for i in $(seq 100); do
		[ "$(cat /sys/class/net/$1/carrier 2>/dev/null)" = 1 ] && return 0
		sleep 0.1
	done
	diag "$1: no carrier"
	return 1
}
mac() { cat /sys/class/net/$1/address; }
# topo_pin_neigh: pc (on port 3's wire) and the router (P3) know each
# other's MACs in both families, permanently: no neighbour discovery, which
# the host takes, on port 3 while frames are counted.
topo_pin_neigh() {
	local pcmac r3
	pcmac=$(ip netns exec pc cat /sys/class/net/npuw0p3/address) r3=$(mac "$P3")
	ip neigh replace $PC4 lladdr "$pcmac" dev "$P3" nud permanent
	ip -6 neigh replace $PC6 lladdr "$pcmac" dev "$P3" nud permanent
	ip -n pc neigh replace $H3_4 lladdr "$r3" dev npuw0p3 nud permanent
	ip -n pc -6 neigh replace $H3_6 lladdr "$r3" dev npuw0p3 nud permanent
}

# topo_veth PC RT FAR [KEY=VALUE...]: netns PC and FAR, each on a veth pair
# to the router's netns RT, which forwards between them; no IPv6 DAD in any
# of the three (accept_dad 0 before the links exist, so the link-local
# addresses skip it too).  Stops at the first command that fails (status 1).
#   pc4=198.51.100 far4=203.0.113   the two /24s (their first three octets)
#   pc6=2001:db8:3 far6=2001:db8:8  the two /64s (the prefix before "::")
#   devs=vpc,vpc-h,vfar,vfar-h      the veth ends: pc's, the router's
#                                   towards pc, far's, the router's towards far
#   offloads=off                    TSO, GSO and GRO off at all four ends
#                                   (frame by frame, as a wire carries them)
topo_veth() {
	local pc=$1 rt=$2 far=$3 ns kv
	local pc4=198.51.100 far4=203.0.113 pc6=2001:db8:3 far6=2001:db8:8
	local devs=vpc,vpc-h,vfar,vfar-h offloads=on d
	shift 3
	for kv in "$@"; do
		case $kv in
		pc4=* | far4=* | pc6=* | far6=* | devs=* | offloads=*) local "$kv" ;;
		*) echo "topo_veth: unknown option $kv" >&2; return 1 ;;
		esac
	done
	local -a v
	IFS=, read -r -a v <<< "$devs"
	for ns in $pc $rt $far; do
		ip netns add $ns || return 1
		ip netns exec $ns sysctl -qw net.ipv6.conf.all.accept_dad=0 \
			net.ipv6.conf.default.accept_dad=0 || return 1
	done
	ip -n $rt link add ${v[1]} type veth peer name ${v[0]} netns $pc || return 1
	ip -n $rt link add ${v[3]} type veth peer name ${v[2]} netns $far || return 1
	topo_host $pc ${v[0]} $pc4.2 $pc4.1 $pc6::2 $pc6::1 &&
		topo_host $far ${v[2]} $far4.2 $far4.1 $far6::2 $far6::1 || return 1
	ip -n $rt link set lo up &&
		ip -n $rt addr add $pc4.1/24 dev ${v[1]} && ip -n $rt -6 addr add $pc6::1/64 dev ${v[1]} nodad &&
		ip -n $rt addr add $far4.1/24 dev ${v[3]} && ip -n $rt -6 addr add $far6::1/64 dev ${v[3]} nodad &&
		ip -n $rt link set ${v[1]} up && ip -n $rt link set ${v[3]} up || return 1
	ip netns exec $rt sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1 || return 1
	[ "$offloads" = off ] || return 0
	for d in "$pc ${v[0]}" "$rt ${v[1]}" "$rt ${v[3]}" "$far ${v[2]}"; do
		set -- $d
		ip netns exec $1 ethtool -K $2 tso off gso off gro off >/dev/null 2>&1
	done
	return 0
}

# wait_listen NETNS PORT: until a TCP socket listens on PORT in NETNS (a
# server started in the background is slow to bind under TCG).
wait_listen() {
	local i
	for i in $(seq 100); do
		ip netns exec "$1" ss -Hltn "sport = :$2" | grep -q . && return 0
		sleep 0.1
	done
	return 1
}
# iperf_bps NS_CLIENT SERVER_ADDR SECONDS [iperf3 args...]: received bit/s.
iperf_bps() {
	local ns=$1 addr=$2 secs=$3; shift 3
	ip netns exec "$ns" iperf3 -c "$addr" -t "$secs" -J "$@" 2>/dev/null |
		jq -r '.end.sum_received.bits_per_second // 0 | floor' 2>/dev/null
}

# ---- a PPPoE session on port 8 (after topo_pc_far) -------------------------
# The ISP's concentrator is Debian's pppoe-server on far's wire (it relays
# each session through a user-space pppoe and a pty: correct, slow under
# TCG; its synchronous mode, -s, is not used: it reads the pty as if a read
# were a frame and under load sends two PPP frames in one session frame),
# the subscriber pppd's kernel-mode pppoe.so on P8 (ifname pppwan),
# MTU/MRU 1492, IPv4 from the server's pool and IPv6 (link-local ::1/::2,
# the global /64 and the routes by hand).  IP crosses only in the session:
# far's wire and P8 lose their addresses.  Options, logs and pid files go
# in DIR (the guest's root is read-only).
PPP_F4=10.64.0.1 PPP_F6=2001:db8:64::1 PPP_R6=2001:db8:64::2
# pppoe_up DIR [VID]: the concentrator, then pppwan_up DIR [VID].  With
# VID the session runs inside 802.1Q VLAN VID: on far's npuw0p8.VID and the
# router's P8.VID, which it makes.
pppoe_up() {
	local d=$1 vid=${2:-} wire=npuw0p8
	modprobe -a pppoe ppp_async || return 1
	ip -n far addr flush dev npuw0p8 && ip addr flush dev "$P8" || return 1
	if [ -n "$vid" ]; then
		wire=npuw0p8.$vid
		ip -n far link add link npuw0p8 name $wire type vlan id "$vid" &&
			ip -n far link set $wire up &&
			ip link add link "$P8" name "$P8.$vid" type vlan id "$vid" &&
			ip link set "$P8.$vid" up || return 1
	fi
	printf '%s\n' noauth noccp "lcp-echo-interval 0" "mtu 1492" "mru 1492" +ipv6 \
		"ip-up-script /bin/true" "ip-down-script /bin/true" > "$d/srv-opts"
	ip netns exec far pppoe-server -I $wire -L $PPP_F4 -R 10.64.0.2 -N 4 \
		-O "$d/srv-opts" -X "$d/srv.pid" || return 1
	pppwan_up "$d" "$vid"
}
# pppwan_up DIR [VID]: pppd on P8 (P8.VID with VID; again after it died),
# up to 60 s for IPCP and IPV6CP; sets PPP_PID (pppd), PPP_SID (the session
# id, from /proc/net/pppoe), PPP_R4 (the router's address), PPP_FAR (far's
# end).
pppwan_up() {
	local d=$1 i sid dev low=$P8${2:+.$2}
	pppd plugin pppoe.so "nic-$low" noauth noccp ifname pppwan mtu 1492 mru 1492 \
		lcp-echo-interval 0 noipdefault nodefaultroute +ipv6 ipv6 ::1,::2 \
		ip-up-script /bin/true ip-down-script /bin/true \
		logfile "$d/pppd.log" nodetach </dev/null >/dev/null 2>&1 &
	PPP_PID=$! PPP_R4= PPP_FAR=
	for i in $(seq 600); do
		PPP_R4=$(ip -4 -o addr show dev pppwan 2>/dev/null | awk '{ print $4 }')
		[ -n "$PPP_R4" ] && ip -6 addr show dev pppwan 2>/dev/null | grep -q fe80::1 && break
		sleep 0.1
	done
	[ -n "$PPP_R4" ] || { diag "pppwan: no session"; return 1; }
	# "%08X %pM %8s", the sid a __be16 read as a host integer
	read -r sid _ dev < <(awk -v d="$low" '$3 == d' /proc/net/pppoe)
	[ -n "$sid" ] || { diag "no session on $low in /proc/net/pppoe"; return 1; }
	PPP_SID=$(( (0x$sid & 0xff) << 8 | (0x$sid >> 8 & 0xff) ))
	for i in $(seq 100); do
		PPP_FAR=$(ip -n far -o -4 addr show | awk -v p="$PPP_R4/32" '$6 == p { print $2 }')
		[ -n "$PPP_FAR" ] && break
		sleep 0.1
	done
	[ -n "$PPP_FAR" ] || { diag "far has no device for $PPP_R4"; return 1; }
	ip -n far -6 addr flush scope global
	ip -n far -6 addr add $PPP_F6/64 dev "$PPP_FAR" nodad &&
		ip -n far -6 route replace 2001:db8:3::/64 dev "$PPP_FAR" &&
		ip -6 addr add $PPP_R6/64 dev pppwan nodad &&
		ip route replace default dev pppwan && ip -6 route replace default dev pppwan
}
# pppoe_down: pppd, the concentrator and its sessions' processes gone.
pppoe_down() {
	[ -n "${PPP_PID:-}" ] && kill "$PPP_PID" 2>/dev/null && wait "$PPP_PID" 2>/dev/null
	ip netns pids far 2>/dev/null | xargs -r kill 2>/dev/null
	PPP_PID=
}
