#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The flow maker when what it made a connection from changes under it
# (issue 15).  The egress: far's MAC changes (the host's neighbour entry
# follows, as a gratuitous ARP makes it), then port 8's MTU, then a shaping
# qdisc on port 8 (which rtnetlink's monitor does not announce): each time
# npuflowd takes the connection back to the host (counted "rerouted") and its
# next frames make it again with the new facts; the stream reaches far's TCP
# (a frame sent to far's old MAC is dropped by far's device, so frames on the
# wire would not tell).  Before that, far's neighbour entry deleted: an
# unresolved next hop keeps the connection in hardware.  The ruleset: a drop
# rule for the connection's port takes it back to the host (counted
# "rulesets", "released"), where the rule stops it and it is not made again;
# the rule gone, the host forwards it again and it is made again.  IPsec: an xfrm
# policy for the connection takes it back and its next frames are refused
# (ipsec).  Port 8 going down takes the last one back, and no rule is left.
# Counts only; the bounds below are timeouts, times belong to the benchmark.
# timeout: 600
. "$(dirname "$0")/lib.sh"
ktap_plan 25
LOAD=$NPU_REPO/build/bin/npuload
NEWMAC=02:00:00:00:08:99
trap fm_cleanup EXIT

fm_setup
echo 0 > /sys/kernel/debug/npusim/0/fp_retrans_max	# 63's subject
fm_start; ktap_result $? "npuflowd on $P3 $P8"
ip netns exec far "$LOAD" server -p 5201 -t 300 >/dev/null 2>&1 &
wait_listen far 5201

# within SECONDS CONDITION: until the shell CONDITION holds.
within() {
	local i
	for i in $(seq $(( $1 * 5 ))); do eval "$2" && return 0; sleep 0.2; done
	return 1
}
counter() { fm_ctl status --json | jq -r ".counters.$1 // -1"; }
in_state() { fm_flows | jq -r --arg s "$1" '[.[] | select(.state == $s)] | length'; }
made() { fm_wait_jq "$1" '[.[] | select(.family == 4 and .state == "made")] | length == 1'; }
# far_tcp LABEL: far's TCP took > 1,000 segments in 4 s.
far_tcp() {
	local a b
	a=$(ip netns exec far nstat -asz TcpInSegs | awk '$1 == "TcpInSegs" { print $2 }')
	sleep 4
	b=$(ip netns exec far nstat -asz TcpInSegs | awk '$1 == "TcpInSegs" { print $2 }')
	diag "$1: far's TCP took $((b - a)) segments in 4 s"
	[ $((b - a)) -gt 1000 ]
}

fm_stream $FAR4 200
made 30; ktap_result $? "the connection is made"

# 0. the host's neighbour entry for far goes (as a failed probe under load
# leaves it, the host seeing none of the stream): the connection stays in
# hardware with the MAC it was made with
ip neigh del $FAR4 dev "$P8"
within 5 'grep -q "egress recheck: 1 connection(s) kept, their next hop not resolved now" $FM_LOG'
ktap_result $([ $? = 0 ] && [ "$(counter rerouted)" = 0 ] && [ "$(in_state made)" = 1 ]; echo $?) \
	"far's neighbour entry gone: the connection stays made (rerouted $(counter rerouted))"
far_tcp "no neighbour entry"; ktap_result $? "the stream reaches far's TCP"

# 1. far's MAC changes; the host's neighbour entry follows
ip -n far link set npuw0p8 address $NEWMAC
ip neigh replace $FAR4 lladdr $NEWMAC dev "$P8" nud reachable
within 5 '[ "$(counter rerouted)" = 1 ]'
ktap_result $? "far's new MAC: the connection went back to the host (rerouted $(counter rerouted))"
made 30 && within 5 'tc filter show dev "$P3" ingress | grep -q "at eth+4: val 0899"'
ktap_result $? "made again: its rule on $P3 writes far's new MAC"
far_tcp "new MAC"; ktap_result $? "the stream reaches far's TCP"
fm_share "new MAC"; ktap_result $? "new MAC: the host sees < 0.1 % of the stream"

# 2. port 8's MTU changes
ip link set "$P8" mtu 1400
within 5 '[ "$(counter rerouted)" = 2 ]'
ktap_result $? "port 8's MTU 1400: the connection went back to the host (rerouted $(counter rerouted))"
made 30; ktap_result $? "made again"
far_tcp "MTU 1400"; ktap_result $? "the stream reaches far's TCP"

# 2b. a shaping qdisc on port 8's root: no announcement reaches npuflowd's
# monitor; the port's facts, asked again each second, show it, and the idle
# recheck takes the connection back (the hardware would not shape it)
t0=$SECONDS
tc qdisc add dev "$P8" root tbf rate 1gbit burst 128k latency 50ms
within 15 '[ "$(counter rerouted)" = 3 ]'
ktap_result $? "a shaping qdisc on port 8: the connection went back to the host (rerouted $(counter rerouted))"
t1=$SECONDS
tc qdisc del dev "$P8" root
# its refusals while shaped wait no never period: the facts' move lets
# them be looked up again (the recheck's walk, 5-6 s)
made 30; r=$?
diag "qdisc: taken back after $((t1 - t0)) s, made again $((SECONDS - t1)) s after its removal"
ktap_result $([ $r = 0 ] && [ $((SECONDS - t1)) -le 15 ]; echo $?) "the qdisc gone: made again within 15 s"

# 3. a drop rule for port 5201: the connection is taken back to the host,
# where the rule applies, and is not made again while the rule drops it;
# the rule gone, the host forwards it again and it is made again
nft insert rule inet fw forward tcp dport 5201 counter drop
within 5 '[ "$(counter rulesets)" -ge 1 ] && [ "$(in_state made)" = 0 ] && [ "$(counter released)" -ge 1 ]'
ktap_result $? "a drop rule: the connection is taken back to the host (rulesets $(counter rulesets), released $(counter released))"
within 5 '[ "$(fm_rules "$P3")" = 0 ] && [ "$(fm_rules "$P8")" = 0 ]'
ktap_result $? "its rules are gone"
far_tcp "drop rule"; ktap_result $((! $?)) "the drop rule stops the stream"
ktap_result $([ "$(in_state made)" = 0 ]; echo $?) "while the rule drops it, it is not made again"
diag "$(nft list chain inet fw forward | grep -m1 'dport 5201')"
fm_firewall
# TCP backed off its retransmits while the rule dropped them: up to 4
# windows of 4 s for it to come back
ok=1; for i in 1 2 3 4; do far_tcp "rule gone ($i)" && { ok=0; break; }; done
ktap_result $ok "without it the stream flows again, through the host"
made 30; ktap_result $? "forwarded by the host under the new ruleset, the connection is made again"

# 4. an IPsec policy (optional ESP, so plain frames still pass) covers the
# connection: it goes back to the host and is refused from then on
for dir in fwd out; do
	ip xfrm policy add src $PC4/32 dst $FAR4/32 proto tcp dport 5201 dir $dir \
		tmpl proto esp mode transport level use || break
done
within 5 '[ "$(counter rerouted)" = 4 ]'
ktap_result $? "an IPsec policy covers it: the connection went back to the host (rerouted $(counter rerouted))"
within 20 '[ "$(fm_ctl status --json | jq ".refused.ipsec // 0")" -ge 1 ]'
ktap_result $([ $? = 0 ] && [ "$(fm_rules "$P3")" = 0 ] && [ "$(in_state made)" = 0 ]; echo $?) \
	"its next frames are refused (ipsec $(fm_ctl status --json | jq ".refused.ipsec // 0")), nothing in hardware"
ip xfrm policy flush
ip netns exec pc "$LOAD" client -a $FAR4 -p 5201 -c 1 -t 200 -r 1000000 >/dev/null 2>&1 &
made 30; ktap_result $? "without the policy a new connection is made"

# 5. port 8 goes down: its routes go, nothing is left in hardware
ip link set "$P8" down
within 5 '[ "$(counter rerouted)" = 5 ]'
ktap_result $? "port 8 down: the new connection went back to the host (rerouted $(counter rerouted))"
within 5 '[ "$(fm_rules "$P3")" = 0 ] && [ "$(fm_rules "$P8")" = 0 ]'
ktap_result $? "no rule is left on $P3 or $P8"
ip link set "$P8" up
[ "$KTAP_FAIL" = 0 ] || tail -40 $FM_LOG | grep -v libxdp | sed 's/^/# /'
ktap_finish
