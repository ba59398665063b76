#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ethtool -N / -n on npuep, executed by the coprocessor model: a rule
# steering UDP to receive queue 1 (counted frame for frame in rx_q1_packets,
# hw_punt_ntuple, rx_punt_ntuple and the devlink trap npu_ntuple), a drop
# rule (the frames never reach the host; hw_rx_ntuple_drops), IPv6, -n
# listing, refusals (a queue beyond the count, a location beyond the table,
# a TOS match, ethtool -L under a rule's queue, ntuple off), rules that
# survive devlink reload and a firmware fault, delete, and -K ntuple off.
# timeout: 600
. "$(dirname "$0")/lib.sh"
ktap_plan 30

N=20
npu_load && npu_new 0 8 2 || { ktap_fail "setup"; ktap_finish; }
DL=auxiliary/npusim.npu.0
DBG=/sys/kernel/debug/npusim/0
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
topo_pc_far 0 >/dev/null 2>&1; ktap_result $? "topology pc <-> host <-> far"
ip netns exec pc ping -c 2 -i 0.2 -W 5 $FAR4 >/dev/null
ip netns exec pc ping -6 -c 2 -i 0.2 -W 5 $FAR6 >/dev/null

# Everything not steered goes to queue 0: queue 1 sees only the rules' frames.
ethtool -X "$P3" equal 1

# Count pc's UDP frames per destination port as the host stack sees them.
nft -f - <<NFT
table netdev nt {
	chain in {
		type filter hook ingress device "$P3" priority 0; policy accept;
		udp dport 7001 counter
		udp dport 7002 counter
		udp dport 7004 counter
	}
}
NFT
seen() { nft list chain netdev nt in | awk -v p="$1" '$0 ~ "dport " p " " { for (i = 1; i < NF; i++) if ($i == "packets") print $(i + 1) }'; }
# send4/send6 PORT: N datagrams from pc to far.
send4() { ip netns exec pc bash -c "for i in \$(seq $N); do echo x > /dev/udp/$FAR4/$1; done"; sleep 1; }
send6() { ip netns exec pc bash -c "for i in \$(seq $N); do echo x > /dev/udp/$FAR6/$1; done"; sleep 1; }
st() { eth_stat "$P3" "$1"; }
rules() { ethtool -n "$P3" | grep -c '^Filter:'; }
hw_rules() { awk '$1 == "rules" { split($2, a, "/"); print a[1] }' $DBG/p3/ntuple; }
hits() { awk -v l="$1" '$1 == "loc" && $2 == l { print $NF }' $DBG/p3/ntuple; }
eq() { [ "$1" = "$2" ] || { diag "got '$1', want '$2'"; return 1; }; }
# refused CMD...: ethtool 6.1 exits 0 when the driver refuses a rule (seen
# here), so a refusal is a non-zero exit or its "Cannot insert" message.
refused() {
	local out rc
	out=$("$@" 2>&1); rc=$?
	echo "$out" | sed 's/^/# /'
	[ $rc != 0 ] || echo "$out" | grep -q 'Cannot insert'
}
# snap / delta NAME: a counter's change since the last snap.
declare -A S
snap() { S[q1]=$(st rx_q1_packets); S[punt]=$(st hw_punt_ntuple); S[rxpunt]=$(st rx_punt_ntuple)
	S[drops]=$(st hw_rx_ntuple_drops); S[trap]=$(trap_pkts npu_ntuple); }
delta() {
	case $1 in
	q1) echo $(( $(st rx_q1_packets) - S[q1] )) ;;
	punt) echo $(( $(st hw_punt_ntuple) - S[punt] )) ;;
	rxpunt) echo $(( $(st rx_punt_ntuple) - S[rxpunt] )) ;;
	drops) echo $(( $(st hw_rx_ntuple_drops) - S[drops] )) ;;
	trap) echo $(( $(trap_pkts npu_ntuple) - S[trap] )) ;;
	esac
}

check "ethtool -k: ntuple-filters on" bash -c "ethtool -k $P3 | grep -q '^ntuple-filters: on'"
check "ethtool -n: no rule" bash -c "ethtool -n $P3 >/dev/null && [ \$(ethtool -n $P3 | grep -c '^Filter:') = 0 ]"

# ---- steer ------------------------------------------------------------------
check "ethtool -N udp4 dst-port 7001 action 1 loc 5" \
	ethtool -N "$P3" flow-type udp4 dst-port 7001 action 1 loc 5
snap; s0=$(seen 7001)
send4 7001
d_q1=$(delta q1) d_punt=$(delta punt) d_rxpunt=$(delta rxpunt) d_trap=$(delta trap)
d_seen=$(( $(seen 7001) - s0 ))
diag "sent $N: rx_q1_packets +$d_q1, hw_punt_ntuple +$d_punt, rx_punt_ntuple +$d_rxpunt, trap npu_ntuple +$d_trap, stack saw +$d_seen"
ktap_result $([ "$d_q1" = $N ] && [ "$d_seen" = $N ]; echo $?) "steered: rx_q1_packets +$d_q1 = $N frames sent, all reached the stack"
ktap_result $([ "$d_punt" = $N ] && [ "$d_rxpunt" = $N ]; echo $?) "hw_punt_ntuple +$d_punt and rx_punt_ntuple +$d_rxpunt = $N"
ktap_result $([ "$d_trap" = $N ]; echo $?) "devlink trap npu_ntuple +$d_trap = $N"

# ---- drop -------------------------------------------------------------------
out=$(ethtool -N "$P3" flow-type udp4 dst-port 7002 action -1 2>&1); rc=$?
DROP_LOC=$(echo "$out" | awk '/Added rule with ID/ { print $NF }')
diag "$out"
ktap_result $([ $rc = 0 ] && [ -n "$DROP_LOC" ]; echo $?) "ethtool -N udp4 dst-port 7002 action -1: location $DROP_LOC allocated"
snap; s0=$(seen 7002)
send4 7002
d_drops=$(delta drops) d_punt=$(delta punt) d_seen=$(( $(seen 7002) - s0 ))
diag "sent $N: hw_rx_ntuple_drops +$d_drops, hw_punt_ntuple +$d_punt, stack saw +$d_seen"
ktap_result $([ "$d_drops" = $N ] && [ "$d_seen" = 0 ] && [ "$d_punt" = 0 ]; echo $?) \
	"dropped in the coprocessor: hw_rx_ntuple_drops +$d_drops = $N, none reached the host"

# ---- IPv6 -------------------------------------------------------------------
check "ethtool -N udp6 dst-port 7004 action 1" ethtool -N "$P3" flow-type udp6 dst-port 7004 action 1
snap; s0=$(seen 7004)
send6 7004
d_q1=$(delta q1) d_punt=$(delta punt) d_seen=$(( $(seen 7004) - s0 ))
ktap_result $([ "$d_q1" = $N ] && [ "$d_punt" = $N ] && [ "$d_seen" = $N ]; echo $?) \
	"IPv6 steered: rx_q1_packets +$d_q1, hw_punt_ntuple +$d_punt, stack +$d_seen (= $N)"

# ---- -n ---------------------------------------------------------------------
ethtool -n "$P3" | sed 's/^/# /'
ktap_result $([ "$(rules)" = 3 ] && ethtool -n "$P3" | grep -q 'Total 3 rules' &&
	ethtool -n "$P3" rule 5 | grep -q 'Action: Direct to queue 1' &&
	ethtool -n "$P3" rule "$DROP_LOC" | grep -q 'Action: Drop' &&
	ethtool -n "$P3" rule 5 | grep -q 'Dest port: 7001'; echo $?) "ethtool -n lists the 3 rules with their matches and actions"
sed 's/^/# model: /' $DBG/p3/ntuple
check "the coprocessor holds 3 rules" eq "$(hw_rules)" 3

# ---- refusals ---------------------------------------------------------------
dmesg -C
check "a queue beyond the active count (action 2 of 2) refused" \
	refused ethtool -N "$P3" flow-type udp4 dst-port 7003 action 2
check "the refusal says why in the kernel log" bash -c "dmesg | grep -q 'queue 2 is beyond the 2 active queues'"
check "location 128 (beyond the table) refused" refused ethtool -N "$P3" flow-type udp4 dst-port 7003 action 0 loc 128
check "a TOS match refused" refused ethtool -N "$P3" flow-type udp4 dst-port 7003 tos 4 action 0
check_fail "ethtool -L combined 1 refused while a rule steers to queue 1" ethtool -L "$P3" combined 1
check "nothing was added by the refusals" eq "$(rules)/$(hw_rules)" 3/3

# ---- devlink reload and firmware recovery -----------------------------------
check "devlink dev reload" devlink dev reload $DL
h5=$(hits 5)
ktap_result $([ "$(rules)" = 3 ] && [ "$(hw_rules)" = 3 ] && [ "$h5" = 0 ]; echo $?) \
	"after reload: ethtool -n $(rules) rules, the coprocessor $(hw_rules), written again (rule 5 hits $h5)"
snap
send4 7001
d_q1=$(delta q1) d_punt=$(delta punt) d_trap=$(delta trap)
ktap_result $([ "$d_q1" = $N ] && [ "$d_punt" = $N ] && [ "$d_trap" = $N ]; echo $?) \
	"after reload steering works: rx_q1_packets +$d_q1, hw_punt_ntuple +$d_punt, trap +$d_trap (= $N)"
# A firmware fault empties the coprocessor's tables; the fw reporter's
# recovery writes the rules again (auto-recover off to see the empty table).
hstate() { devlink -j health show $DL reporter fw | jq -r '.. | objects | select(.reporter?) | .state'; }
devlink health set $DL reporter fw auto_recover false
inject fw_fault 1
for i in $(seq 50); do [ "$(hstate)" = error ] && break; sleep 0.1; done
emptied=$(hw_rules)
devlink health recover $DL reporter fw
devlink health set $DL reporter fw auto_recover true
diag "fw reporter $(hstate); the fault left $emptied rules, recovery $(hw_rules)"
snap
send4 7001
d_q1=$(delta q1)
ktap_result $([ "$emptied" = 0 ] && [ "$(hw_rules)" = 3 ] && [ "$d_q1" = $N ]; echo $?) \
	"a firmware fault empties the table, recovery writes the 3 rules again (rx_q1 +$d_q1)"

# ---- delete, ntuple off -----------------------------------------------------
check "ethtool -N delete 5" ethtool -N "$P3" delete 5
snap
send4 7001
d_q1=$(delta q1) d_punt=$(delta punt)
ktap_result $([ "$d_q1" = 0 ] && [ "$d_punt" = 0 ] && [ "$(rules)" = 2 ] && [ "$(hw_rules)" = 2 ]; echo $?) \
	"deleted: 7001 back to RSS (rx_q1 +$d_q1, hw_punt_ntuple +$d_punt), 2 rules left"
check_fail "deleting an empty location fails" ethtool -N "$P3" delete 5
check "ethtool -K ntuple off" ethtool -K "$P3" ntuple off
ktap_result $([ "$(rules)" = 0 ] && [ "$(hw_rules)" = 0 ]; echo $?) \
	"ntuple off removed every rule (driver $(rules), coprocessor $(hw_rules))"
check "a rule is refused while ntuple is off" refused ethtool -N "$P3" flow-type udp4 dst-port 7001 action 1
ethtool -K "$P3" ntuple on
check "ntuple on: a rule is accepted again" ethtool -N "$P3" flow-type tcp4 dst-port 5201 action 1 loc 0
nft delete table netdev nt
ktap_finish
