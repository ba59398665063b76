# SPDX-License-Identifier: GPL-2.0
# The router's firewall between ports 3 and 8, as one nftables ruleset
# generator: table inet fw (a forward chain; conntrack's invalid-state
# drops, established accepts, a flowtable on the ports with or without
# "flags offload") and table ip nat (masquerade out of a device).  The
# tests, the demo and the bench each ask it for theirs:
#   fm_firewall     the flow maker's: conntrack, invalid drops counted in
#                   "inv", established accepted, no flowtable;
#   ft_offload_tcp  every forwarded TCP connection into a flowtable
#                   "flags offload";
#   ft_router       the PPPoE router: flowtable with counters, TCP and UDP,
#                   the LAN masqueraded out of pppwan;
#   the demo's      conntrack and masquerade on port 8 in every mode, the
#                   flowtable in its flowtable mode (tools/demo/run).
# Sourced by bash, after tools/lib/topo.sh (P3, P8, topo_pin_neigh): by
# selftests/vm/lib.sh, tools/demo/run and tools/bench/run.

# _fw_names LIST: whether LIST is one or more comma-separated names (an
# interface's, a counter's, a protocol's: letters, digits, . _ : -), none
# empty.
_fw_names() {
	local n
	[ -n "$1" ] || return 1
	IFS=, read -ra n <<< "$1,"
	for n in "${n[@]}"; do
		[[ $n =~ ^[A-Za-z0-9._:-]+$ ]] || return 1
	done
	[[ $1 != *,,* && $1 != *, && $1 != ,* ]]
}

# fw_ruleset [KEY[=VALUE]...]: the ruleset on stdout, for nft -f -.
#   ft=offload|sw     a flowtable "ft" on the devices, "flags offload" or
#                     none (the software fast path)
#   ftcounter         the flowtable counts (conntrack's counters)
#   flow=PROTO[,...]  the forwarded connections of PROTOs (tcp, udp) added
#                     to the flowtable; default tcp,udp
#   devs=DEV[,...]    the flowtable's devices; default $P3,$P8
#   invalid[=NAME]    conntrack's invalid state counted and dropped, in the
#                     named counter NAME if given
#   established       conntrack's established and related accepted
#   nat[=OIF]         table ip nat with a postrouting chain, masquerading
#                     out of OIF if given
#   nofw              no table inet fw (table ip nat alone)
# The forward chain's policy is accept; its rules in the order above.
# Refused (1, a line on stderr): an unknown option, ftcounter or flow=
# without ft=, a flowtable with no devices or protocols, a name with
# other characters than letters, digits and . _ : -.
fw_ruleset() {
	local kv p flow=tcp,udp devs="$P3,$P8"
	local ft='' ftcounter='' invalid='' established='' nat='' nofw='' hasinv='' hasnat=''
	local flow_given=''
	for kv in "$@"; do
		case $kv in
		ft=offload | ft=sw | devs=*) local "$kv" ;;
		flow=*) local "$kv"; flow_given=1 ;;
		ftcounter | established | nofw) local "$kv=1" ;;
		invalid) hasinv=1 ;;
		invalid=*) hasinv=1 invalid=${kv#*=} ;;
		nat) hasnat=1 ;;
		nat=*) hasnat=1 nat=${kv#*=} ;;
		*) echo "fw_ruleset: unknown option $kv" >&2; return 1 ;;
		esac
	done
	if [ -z "$ft" ] && [ -n "$ftcounter$flow_given" ]; then
		echo "fw_ruleset: ftcounter and flow= need a flowtable (ft=offload or ft=sw)" >&2
		return 1
	fi
	if [ -n "$ft" ] && ! { _fw_names "$devs" && _fw_names "$flow"; }; then
		echo "fw_ruleset: a flowtable needs devices (devs=, or P3 and P8 set) and protocols" \
			"(flow=), each a name: devs=\"$devs\" flow=\"$flow\"" >&2
		return 1
	fi
	if { [ -n "$nat" ] && ! _fw_names "$nat"; } || { [ -n "$invalid" ] && ! _fw_names "$invalid"; }; then
		echo "fw_ruleset: nat= and invalid= take a name: \"$nat\" \"$invalid\"" >&2
		return 1
	fi
	p=${flow//,/, }
	[[ $flow == *,* ]] && p="{ $p }"
	if [ -z "$nofw" ]; then
		echo "table inet fw {"
		[ -n "$ft" ] && echo "	flowtable ft { hook ingress priority 0; devices = { ${devs//,/, } };$([ "$ft" = offload ] && echo " flags offload;")$([ -n "$ftcounter" ] && echo " counter;") }"
		[ -n "$invalid" ] && echo "	counter $invalid { }"
		echo "	chain forward {"
		echo "		type filter hook forward priority 0; policy accept;"
		[ -n "$hasinv" ] && echo "		ct state invalid counter${invalid:+ name \"$invalid\"} drop"
		[ -n "$established" ] && echo "		ct state established,related accept"
		[ -n "$ft" ] && echo "		meta l4proto $p flow add @ft"
		echo "	}"
		echo "}"
	fi
	if [ -n "$hasnat" ]; then
		echo "table ip nat {"
		echo "	chain postrouting { type nat hook postrouting priority 100;${nat:+ oifname \"$nat\" masquerade;} }"
		echo "}"
	fi
}
# fw_load [KEY[=VALUE]...]: the ruleset replaced by fw_ruleset's, in one
# transaction: a ruleset nft refuses leaves the old one in place.
fw_load() {
	local r
	r=$(fw_ruleset "$@") || return 1
	printf 'flush ruleset\n%s\n' "$r" | nft -f -
}

# fm_firewall: conntrack on the host between the ports, invalid-state drops
# counted in the named counter "inv" (release must keep it at 0).
fm_firewall() { fw_load invalid=inv established; }
# ft_offload_tcp: replace the ruleset with an nftables flowtable "flags
# offload" on P3 and P8 that offloads every forwarded TCP connection.
ft_offload_tcp() { fw_load ft=offload flow=tcp; }
# ft_router: the router of the PPPoE tests in flowtable mode and of the
# bench's PPPoE stream, after topo_pc_far: the flowtable on ports 3 and 8
# with counters, the LAN masqueraded out of pppwan (a PPPoE session's
# device, pppoe_up), added to the ruleset.
ft_router() {
	ethtool -K "$P3" hw-tc-offload on; ethtool -K "$P8" hw-tc-offload on
	# Wires that check and fill in sums, as a real one carries them: far's
	# pppoe relay reads its frames raw.  far routes (no router solicitations).
	ip netns exec far ethtool -K npuw0p8 rx off; ip netns exec pc ethtool -K npuw0p3 rx off
	ip netns exec far sysctl -qw net.ipv6.conf.all.forwarding=1
	topo_pin_neigh
	fw_ruleset ft=offload ftcounter nat=pppwan | nft -f -
}
