# SPDX-License-Identifier: GPL-2.0
# selftests/lib/veth-topo.sh - the native tests' router between two hosts
# over veth pairs, sourced by selftests/bpf/veth-npuflowd.sh and
# veth-flowmaker.sh.
#
#   veth_topo NET   namespaces $A, $B and $R (the caller names them): $A's
#                   a0 <-> $R's ra on 10.NET.1.0/24 and fd00:NET:1::/64,
#                   $B's b0 <-> $R's rb on 10.NET.2.0/24 and fd00:NET:2::/64,
#                   .1 the router, .2 the host, default routes through it,
#                   forwarding on in $R, no IPv6 DAD anywhere.  Stops at the
#                   first command that fails (status 1).
veth_topo() {
	local n=$1 ns l
	ip netns add $A && ip netns add $B && ip netns add $R || return 1
	for ns in $A $B $R; do
		# before the links exist, so their link-local addresses skip DAD too
		ip netns exec $ns sysctl -qw net.ipv6.conf.all.accept_dad=0 \
			net.ipv6.conf.default.accept_dad=0 || return 1
		ip -n $ns link set lo up || return 1
	done
	ip link add ra netns $R type veth peer name a0 netns $A || return 1
	ip link add rb netns $R type veth peer name b0 netns $B || return 1
	for l in "$A a0 1 2" "$B b0 2 2" "$R ra 1 1" "$R rb 2 1"; do
		set -- $l
		ip -n $1 addr add 10.$n.$3.$4/24 dev $2 &&
			ip -n $1 addr add fd00:$n:$3::$4/64 dev $2 nodad &&
			ip -n $1 link set $2 up || return 1
	done
	ip -n $A route add default via 10.$n.1.1 && ip -n $A -6 route add default via fd00:$n:1::1 &&
		ip -n $B route add default via 10.$n.2.1 &&
		ip -n $B -6 route add default via fd00:$n:2::1 || return 1
	ip netns exec $R sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1
}
