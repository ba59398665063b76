#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# npuflowd over a real PPPoE session (issue 33): Debian's pppoe-server on
# far's wire, pppd's kernel-mode pppoe.so on port 8 (pppwan), the router
# masquerading the LAN (port 3) to the session's IPv4 address, IPv6 routed.
# npuflowd makes each flow as the driver takes it - the direction into
# the session redirected to pppwan (the driver sends in its session), the
# one out of it keyed by the session id and routed (the driver pops the
# header) - for UDP flows that far echoes, IPv4 and IPv6: both ways in
# hardware, the host taking < 0.1 % of their frames (IP punts against the
# frames the ports forwarded).  pppd killed under the made flows: none of
# them left in hardware within a second (the driver's session notifier),
# npuflowd's records back to the host (its recheck: the routes through
# pppwan are gone; conntrack's masqueraded entries go with the device); a
# new session with another id carries the flows as their traffic goes on,
# made again in it.  Counts only.
# timeout: 300
. "$(dirname "$0")/lib.sh"
ktap_plan 14
T=$(mktemp -d /tmp/pppoe-fm.XXXXXX)
trap 'pppoe_down; fm_cleanup; nft flush ruleset
	[ -n "${NPUVM_OUT:-}" ] && cp "$T"/*.log "$NPUVM_OUT/" 2>/dev/null' EXIT

fm_setup
fw_ruleset nofw nat=pppwan | nft -f -
topo_pin_neigh
pppoe_up "$T"; up=$?
SID1=${PPP_SID:-0}
ktap_result $([ $up = 0 ] && ip netns exec pc ping -c2 -W5 $PPP_F4 >/dev/null &&
	ip netns exec pc ping -6 -c2 -W5 $PPP_F6 >/dev/null; echo $?) \
	"a PPPoE session (id $SID1) on $P8, pc pings far across it in both families"
[ $up = 0 ] || { sed 's/^/# /' "$T/pppd.log" 2>/dev/null | tail -20; ktap_finish; }
fm_start; ktap_result $? "npuflowd on $P3 $P8 (skip_sw rules)"

# far echoes every datagram to port 5000, both families
ip netns exec far python3 -c '
import select, socket
ss = [socket.socket(f, socket.SOCK_DGRAM) for f in (socket.AF_INET, socket.AF_INET6)]
ss[1].setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
for s in ss:
    s.bind(("", 5000))
while True:
    for s in select.select(ss, [], [])[0]:
        s.sendto(*s.recvfrom(2048))' &

# echo_pc ADDR SPORT N GAP: N datagrams pc:SPORT -> ADDR:5000, GAP s apart
# (0: each waits up to 2 s for its echo); prints how many far echoed.
echo_pc() {
	ip netns exec pc python3 - "$@" <<'PY'
import select, socket, sys, time
addr, sport, n, gap = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
data = b"u" * int(sys.argv[5]) if len(sys.argv) > 5 else b"npuflow-6u-" * 5
s = socket.socket(socket.AF_INET6 if ":" in addr else socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("", sport))
got = 0
for i in range(n):
    s.sendto(data, (addr, 5000))
    while select.select([s], [], [], 0 if gap else 2)[0]:
        s.recv(2048)
        got += 1
        if not gap:
            break
    time.sleep(gap)
while select.select([s], [], [], 1.5)[0]:
    s.recv(2048)
    got += 1
print(got)
PY
}
# made SPORT SID [SECONDS]: npuflowd's flow from pc's SPORT is made, both
# directions in hardware, into session SID and out of it as npuctl flows
# shows them, the rule on port 8 matching session SID
made() {
	fm_wait_jq "${3:-20}" "[.[] | select(.dirs[0].sport == $1 and .state == \"made\" and
		.dirs[0].in_hw and .dirs[1].in_hw and .dirs[0].out_pppoe_sid == $2 and
		.dirs[1].pppoe_sid == $2)] | length == 1" &&
		tc filter show dev "$P8" ingress | grep -qw "pppoe_sid $2"
}
# hw_counts: "FORWARDED PUNTED" of ports 3 and 8 together (IP punts)
hw_counts() { echo $(( $(eth_sum "$P3" '^hw_fwd_frames$') + $(eth_sum "$P8" '^hw_fwd_frames$') )) "$(ip_punts)"; }

# flow NAME ADDR SPORT: made by datagrams 0.1 s apart (conntrack assures a
# UDP flow 2 s after its first reply), then N 2 ms apart counted: two results
N=1500
flow() {
	local got f0 p0 f1 p1 i ok=1
	for i in $(seq 8); do
		echo_pc "$2" "$3" 10 0.1 >/dev/null
		made "$3" "$PPP_SID" 1 && { ok=0; break; }
	done
	ktap_result $ok "$1: made (after $((i * 10)) datagrams): into session $PPP_SID by pppwan, out of it keyed by the session"
	diag "$(fm_flows | jq -c ".[] | select(.dirs[0].sport == $3) | {id, state, reason, dirs: [.dirs[] | {in_hw, packets, pppoe_sid, out_pppoe_sid}]}")"
	read -r f0 p0 <<< "$(hw_counts)"
	got=$(echo_pc "$2" "$3" $N 0.002)
	read -r f1 p1 <<< "$(hw_counts)"
	diag "$1: $N datagrams, $got echoed: the ports forwarded $((f1 - f0)) frames, the host took $((p1 - p0)) IP frames; $SECONDS s"
	ktap_result $([ "$got" -ge $((N * 2 / 3)) ] && [ $((f1 - f0)) -ge $(((N + got) * 9 / 10)) ] &&
		[ $(((p1 - p0) * 1000)) -lt $((f1 - f0)) ]; echo $?) \
		"$1: both ways in hardware, the host takes < 0.1 % of the frames"
}
flow IPv4 $PPP_F4 4000
flow IPv6 $PPP_F6 4001
ktap_result $([ "$(fm_ctl status --json | jq ".refused.pppoe // 0")" = 0 ]; echo $?) \
	"no connection refused pppoe"

# pppd killed (no PADT): the made flows leave hardware within a second,
# npuflowd's records leave "made"
fp_now; c0=$HW_CONNS
kill -KILL "$PPP_PID"; wait "$PPP_PID" 2>/dev/null
for i in $(seq 10); do sleep 0.1; fp_now; [ "$HW_CONNS" = 0 ] && break; done
diag "pppd killed with $c0 connections in hardware: $HW_CONNS left after $((i * 100)) ms; $SECONDS s"
ktap_result $([ "$c0" = 2 ] && [ "$HW_CONNS" = 0 ]; echo $?) \
	"pppd killed: none of its connections left in hardware within a second"
fm_wait_jq 3 '[.[] | select(.state == "made")] | length == 0'; ok=$?
grep -E 'back to the host|destroy|forgot' $FM_LOG | tail -4 | sed 's/^/# npuflowd: /'
ktap_result $ok "npuflowd takes its records of them back"

# a new session; the flows' traffic goes on: made again in it
pppwan_up "$T"; up=$?
diag "new session ${PPP_SID:-none} (was $SID1), router ${PPP_R4:-none}; $SECONDS s"
N=300
flow "IPv4 again" $PPP_F4 4000
ktap_result $([ $up = 0 ] && [ "$PPP_SID" != "$SID1" ]; echo $?) \
	"the new session has another id"

# The session's MTU lowered under the made connection: no datagram over the
# new MTU leaves in hardware (its directions into the session are taken
# out of the coprocessor, fp_pppoe_reclaimed; a remake takes the new MTU,
# and the coprocessor punts what is over it: mtu)
r0=$(eth_sum "$P3" '^fp_pppoe_reclaimed$')
ip link set pppwan mtu 1400
for i in $(seq 20); do [ "$(eth_sum "$P3" '^fp_pppoe_reclaimed$')" -gt "$r0" ] && break; sleep 0.1; done
read -r a b <<< "$(eth_stats "$P3" hw_fwd_frames hw_punt_mtu)"
echo_pc $PPP_F4 4000 10 0.05 1464 >/dev/null
read -r c d <<< "$(eth_stats "$P3" hw_fwd_frames hw_punt_mtu)"
diag "pppwan's MTU 1492 -> 1400: $(( $(eth_sum "$P3" '^fp_pppoe_reclaimed$') - r0 )) connection(s) reclaimed; 10 datagrams of 1,492 bytes from pc: port 3 forwarded $((c - a)), punted $((d - b)) for mtu"
ktap_result $([ $((c - a)) = 0 ]; echo $?) \
	"pppwan's MTU lowered under a made connection: nothing over it forwarded in hardware"
[ "$KTAP_FAIL" = 0 ] || tail -30 $FM_LOG | sed 's/^/# /'
ktap_finish
