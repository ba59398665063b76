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
fw_ruleset() {
	local kv p flow=tcp,udp devs="$P3,$P8"
	local ft='' ftcounter='' invalid='' established='' nat='' nofw='' hasinv='' hasnat=''
	for kv in "$@"; do
		case $kv in
		ft=offload | ft=sw | flow=* | devs=*) local "$kv" ;;
		ftcounter | established | nofw) local "$kv=1" ;;
		invalid) hasinv=1 ;;
		invalid=*) hasinv=1 invalid=${kv#*=} ;;
		nat) hasnat=1 ;;
		nat=*) hasnat=1 nat=${kv#*=} ;;
		*) echo "fw_ruleset: unknown option $kv" >&2; return 1 ;;
		esac
	done
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
# fw_load [KEY[=VALUE]...]: the ruleset replaced by fw_ruleset's.
fw_load() {
	local r
	r=$(fw_ruleset "$@") || return 1
	nft flush ruleset
	nft -f - <<< "$r"
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
