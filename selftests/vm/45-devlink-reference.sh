#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# devlink behaviours of npuep, after netdevsim's devlink.sh and
# devlink_trap.sh: the fast path's runtime params (fastpath, revive,
# flow_cmd_ring, flow_cmd_posted); a driverinit param shows its new value at
# once and applies only after reload; resources size_new -> reload ->
# enforced, with occupancy; traps registered, only drop traps change
# action, unknown trap/group refused, counters idle with the link down;
# health reporters cmd and fw: show/diagnose/dump/recover with error and
# recover counters and auto-recover, a firmware fault under flowtable
# offload recovered with traffic back in hardware; region flow-table
# new/show/read/dump/del with out-of-range reads refused.
# timeout: 600
. "$(dirname "$0")/lib.sh"
ktap_plan 58

npu_load && npu_new 0 8 2 || { ktap_fail "setup"; ktap_finish; }
DL=auxiliary/npusim.npu.0
DBG=/sys/kernel/debug/npusim/0
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
topo_pc_far 0 >/dev/null 2>&1; ktap_result $? "topology"

# JSON helpers: the object named $2 anywhere in devlink -j output.
dlj() { devlink -j "$@" 2>/dev/null; }
param_val() { dlj dev param show $DL name "$1" | jq -r --arg c "${2:-runtime}" \
	'.. | objects | select(.cmode? == $c) | .value' | head -1; }
fp_stat() { awk -v k="$1" '$1 == k { print $2 }' $DBG/fp_stats; }
res() { dlj resource show $DL | jq -r --arg n "$1" --arg f "$2" \
	'[.. | objects | select(.name? == $n)][0][$f] // empty'; }
trap_action() { dlj trap show $DL trap "$1" | jq -r --arg n "$1" '.trap[][] | select(.name == $n) | .action'; }
# all punt traps' packets / the model's punts on ports 3 and 8 but "none"
TRAPS="npu_flow_miss npu_not_active npu_tcp_flags npu_exception npu_mtu npu_non_ip npu_mcast npu_fastpath_off npu_ntuple npu_malformed"
# (the ten counters in one dump: one snapshot, one devlink and one jq)
trap_rows() { dlj -s trap show | jq -r --arg d $DL --arg t "$TRAPS" \
	'($t | split(" ")) as $w | .trap[$d][] | select(.name as $n | any($w[]; . == $n)) |
	 "\(.name) \(.stats.rx.packets)"'; }
trap_total() { trap_rows | awk '{ s += $2 } END { print s + 0 }'; }
hw_punts() { echo $(( $(eth_sum "$P3" '^hw_punt_') + $(eth_sum "$P8" '^hw_punt_') -
	$(eth_stat "$P3" hw_punt_none) - $(eth_stat "$P8" hw_punt_none) )); }
hrep() { dlj health show $DL reporter "$1" | jq -r --arg f "$2" '[.. | objects | select(.reporter? != null)][0][$f]'; }
wait_until() { # SECONDS CMD...
	local t=$1 i; shift
	for i in $(seq $((t * 10))); do "$@" && return 0; sleep 0.1; done
	return 1
}

# ---- params -------------------------------------------------------------
ktap_result $([ "$(param_val fastpath)" = true ] && [ "$(fp_stat fastpath)" = 1 ]; echo $?) \
	"param fastpath defaults to true (model fastpath $(fp_stat fastpath))"
devlink dev param set $DL name fastpath value false cmode runtime
ktap_result $([ "$(param_val fastpath)" = false ] && [ "$(fp_stat fastpath)" = 0 ]; echo $?) \
	"fastpath false reaches NPU_REG_FASTPATH (model fastpath $(fp_stat fastpath))"
devlink dev param set $DL name fastpath value true cmode runtime
ktap_result $([ "$(fp_stat fastpath)" = 1 ]; echo $?) "fastpath true again"
ktap_result $([ "$(param_val revive)" = true ]; echo $?) "param revive defaults to true"
devlink dev param set $DL name revive value false cmode runtime
ktap_result $([ "$(param_val revive)" = false ]; echo $?) "revive set to false reads back"
devlink dev param set $DL name revive value true cmode runtime
ktap_result $([ "$(param_val flow_cmd_ring)" = normal ] && [ "$(param_val flow_cmd_posted)" = true ]; echo $?) \
	"flow_cmd_ring defaults to normal, flow_cmd_posted to true"
check_fail "flow_cmd_ring bogus is refused" devlink dev param set $DL name flow_cmd_ring value bogus cmode runtime

# Flow writes through the params: flower rules, one connection each.
for d in "$P3" "$P8"; do ethtool -K "$d" hw-tc-offload on; tc qdisc add dev "$d" clsact; done
frule() { # SPORT: pc:SPORT -> far:5000/udp in hardware
	tc filter add dev "$P3" ingress protocol ip prio 1 flower skip_sw \
		ip_proto udp src_ip $PC4 dst_ip $FAR4 src_port "$1" dst_port 5000 \
		action mirred egress redirect dev "$P8"
}
w0=$(eth_stat "$P3" fp_cmd_waited); p0=$(eth_stat "$P3" fp_cmd_posted); c0=$(fp_stat created)
devlink dev param set $DL name flow_cmd_ring value high cmode runtime
devlink dev param set $DL name flow_cmd_posted value true cmode runtime
ktap_result $([ "$(param_val flow_cmd_ring)" = high ] && [ "$(param_val flow_cmd_posted)" = true ]; echo $?) \
	"flow_cmd_ring high, flow_cmd_posted true read back"
frule 4001 && frule 4002
sleep 0.5
w1=$(eth_stat "$P3" fp_cmd_waited); p1=$(eth_stat "$P3" fp_cmd_posted); c1=$(fp_stat created)
diag "posted $p0 -> $p1, waited $w0 -> $w1, model created $c0 -> $c1"
ktap_result $([ $((p1 - p0)) -ge 2 ] && [ $((c1 - c0)) -ge 2 ]; echo $?) \
	"posted on the high ring: counted in fp_cmd_posted, executed by the model"
devlink dev param set $DL name flow_cmd_ring value normal cmode runtime
devlink dev param set $DL name flow_cmd_posted value false cmode runtime
frule 4003
w2=$(eth_stat "$P3" fp_cmd_waited); p2=$(eth_stat "$P3" fp_cmd_posted); c2=$(fp_stat created)
diag "posted $p1 -> $p2, waited $w1 -> $w2, model created $c1 -> $c2"
ktap_result $([ "$p2" = "$p1" ] && [ $((w2 - w1)) -ge 1 ] && [ $((c2 - c1)) -ge 1 ]; echo $?) \
	"waited on the normal ring: counted in fp_cmd_waited"
ktap_result $([ "$(eth_stat "$P3" fp_cmd_failed)" = 0 ]; echo $?) "no flow command failed"
devlink dev param set $DL name flow_cmd_posted value true cmode runtime	# the default again

# driverinit: new value shown at once, applied by reload.
nv() { grep -c " $P3-q[0-9]" /proc/interrupts; }
n0=$(nv)
devlink dev param set $DL name rx_doorbells value false cmode driverinit
ktap_result $([ "$(param_val rx_doorbells driverinit)" = false ] && [ "$(nv)" = "$n0" ]; echo $?) \
	"driverinit rx_doorbells false shows at once, not yet applied ($(nv) vectors)"
devlink dev reload $DL
n1=$(nv)
ktap_result $([ "$n0" = 2 ] && [ "$n1" = 0 ]; echo $?) "applied by reload: vectors $n0 -> $n1"
devlink dev param set $DL name rx_doorbells value true cmode driverinit
devlink dev reload $DL
ktap_result $([ "$(nv)" = 2 ]; echo $?) "rx_doorbells true again after reload ($(nv) vectors)"

# ---- resources ------------------------------------------------------------
c=$(res connections size); m=$(res microflows size); o=$(res connections occ)
diag "connections size $c occ $o, microflows size $m occ $(res microflows occ)"
ktap_result $([ "$c" = 16384 ] && [ "$m" = 32768 ] && [ "$o" = 3 ]; echo $?) \
	"resources /fastpath/connections 16384 and /fastpath/microflows 32768, occupancy 3"
check_fail "size over the maximum is refused" bash -c \
	"devlink resource set $DL path /fastpath/connections size 65537 && devlink dev reload $DL"
devlink resource set $DL path /fastpath/connections size 2
ktap_result $([ "$(res connections size_new)" = 2 ] && [ "$(res connections size)" = 16384 ]; echo $?) \
	"size_new 2 shown, size still 16384 before reload"
# A resize empties the hardware tables: it waits until nothing is offloaded.
check_fail "the resize is refused while 3 connections are offloaded" devlink dev reload $DL
tc filter del dev "$P3" ingress 2>/dev/null
devlink dev reload $DL
ktap_result $([ "$(res connections size)" = 2 ] && [ "$(fp_stat conns | cut -d/ -f2)" = 2 ]; echo $?) \
	"reload applies it: size $(res connections size), model table $(fp_stat conns)"
tc filter del dev "$P3" ingress 2>/dev/null
e0=$(eth_stat "$P3" fp_enospc)
frule 5001; r1=$?; frule 5002; r2=$?; frule 5003; r3=$?
e1=$(eth_stat "$P3" fp_enospc)
diag "rules: $r1 $r2 $r3; enospc $e0 -> $e1; occ $(res connections occ)"
ktap_result $([ $r1 = 0 ] && [ $r2 = 0 ] && [ $r3 != 0 ] && [ $((e1 - e0)) = 1 ] && [ "$(res connections occ)" = 2 ]; echo $?) \
	"limit enforced with posted writes: the third connection is refused (ENOSPC counted), occupancy 2"
tc filter del dev "$P3" ingress 2>/dev/null
devlink resource set $DL path /fastpath/connections size 16384
devlink dev reload $DL
ktap_result $([ "$(res connections size)" = 16384 ] && [ "$(res connections occ)" = 0 ]; echo $?) \
	"back to 16384 after reload, occupancy 0"
for d in "$P3" "$P8"; do tc qdisc del dev "$d" clsact; done

# ---- traps ------------------------------------------------------------
nt=0; for t in $TRAPS; do
	case "$(dlj trap show $DL trap $t | jq -r '.trap[][] | .group')" in
	npu_new_conn|npu_conn_state|npu_host) nt=$((nt + 1)) ;;
	esac
done
ktap_result $([ "$nt" = 10 ]; echo $?) "10 traps in groups npu_new_conn, npu_conn_state, npu_host ($nt)"
ktap_result $(dlj trap group show $DL group npu_host | grep -q npu_host; echo $?) "trap group npu_host shown"
devlink trap set $DL trap npu_flow_miss action drop 2>/dev/null
ktap_result $([ "$(trap_action npu_flow_miss)" = trap ]; echo $?) "a non-drop trap keeps action trap"
devlink trap group set $DL group npu_host action drop 2>/dev/null
ktap_result $([ "$(trap_action npu_exception)" = trap ]; echo $?) "a group of non-drop traps keeps action trap"
check_fail "unknown trap refused" devlink trap set $DL trap npu_bogus action trap
check_fail "unknown trap group refused" devlink trap group set $DL group bogus action trap
# Background frames (neighbour probes, router solicitations) are punted
# while the ten trap counters are read one by one: each trap reading is
# bracketed by two readings of the model's punt counters.
h0a=$(hw_punts); t0=$(trap_total); h0b=$(hw_punts)
ip netns exec pc ping -c 5 -i 0.2 -W 2 $FAR4 >/dev/null
sleep 0.5
h1a=$(hw_punts); t1=$(trap_total); h1b=$(hw_punts)
diag "punt traps $t0 -> $t1, model punts on ports 3 and 8 $h0a..$h0b -> $h1a..$h1b"
trap_rows | while read -r t n; do [ "$n" != 0 ] && diag "$t $n"; done
ktap_result $([ $((t1 - t0)) -ge 10 ] && [ $((t1 - t0)) -ge $((h1a - h0b)) ] &&
	[ $((t1 - t0)) -le $((h1b - h0a)) ]; echo $?) \
	"traps count every punted frame that reached the stack ($((t1 - t0)) in model [$((h1a - h0b)), $((h1b - h0a))])"
ip link set "$P3" down; ip link set "$P8" down
sleep 0.5
a0=$(trap_total)
ip netns exec pc ping -c 3 -i 0.2 -W 1 $FAR4 >/dev/null 2>&1
sleep 1
a1=$(trap_total)
ktap_result $([ -n "$a0" ] && [ "$a0" = "$a1" ]; echo $?) "counters idle with the link down ($a0 -> $a1)"
ip link set "$P3" up; ip link set "$P8" up
wait_carrier "$P3"; wait_carrier "$P8"

# ---- health: cmd ---------------------------------------------------------
ktap_result $([ "$(hrep cmd state)" = healthy ] && [ "$(hrep cmd error)" = 0 ] && [ "$(hrep cmd recover)" = 0 ]; echo $?) \
	"reporter cmd: healthy, error 0, recover 0"
check "cmd diagnose shows head/tail/seq" bash -c \
	"devlink -j health diagnose $DL reporter cmd | jq -e '.. | objects | select(.ring? == \"normal\") | .head, .tail, .seq'"
inject cmd_stall 1
ip link set "$P8" mtu 1400 2>/dev/null; rc=$?
inject cmd_stall 0
ok=1; wait_until 5 bash -c "[ \"\$(devlink -j health show $DL reporter cmd | jq '.. | objects | select(.reporter?) | .recover')\" = 1 ]" && ok=0
diag "mtu rc $rc; cmd error $(hrep cmd error) recover $(hrep cmd recover) state $(hrep cmd state)"
ktap_result $([ $rc != 0 ] && [ $ok = 0 ] && [ "$(hrep cmd error)" = 1 ] && [ "$(hrep cmd state)" = healthy ]; echo $?) \
	"a command timeout: error 1, auto-recovered (recover 1)"
check "commands work after the ring reset" ip link set "$P8" mtu 1400
ip link set "$P8" mtu 1500
check "cmd dump names the timed-out command" bash -c \
	"devlink -j health dump show $DL reporter cmd | jq -e '.. | objects | select(.last_timeout_opcode?) | .last_timeout_opcode == 2'"
check "cmd dump clear" devlink health dump clear $DL reporter cmd
diag "before manual recover: error $(hrep cmd error) recover $(hrep cmd recover) state $(hrep cmd state)"
check "manual recover" devlink health recover $DL reporter cmd
ktap_result $([ "$(hrep cmd recover)" = 1 ]; echo $?) "a recover of a healthy reporter is a no-op (recover 1)"
devlink health set $DL reporter cmd auto_recover false
inject cmd_stall 1
ip link set "$P8" mtu 1400 2>/dev/null
inject cmd_stall 0
wait_until 5 bash -c "[ \"\$(devlink -j health show $DL reporter cmd | jq -r '.. | objects | select(.reporter?) | .state')\" = error ]"
ktap_result $([ "$(hrep cmd state)" = error ] && [ "$(hrep cmd error)" = 2 ] && [ "$(hrep cmd recover)" = 1 ]; echo $?) \
	"auto_recover false: state error, error 2, recover still 1"
devlink health recover $DL reporter cmd
ktap_result $([ "$(hrep cmd state)" = healthy ] && [ "$(hrep cmd recover)" = 2 ]; echo $?) \
	"manual recover: healthy, recover 2"
devlink health set $DL reporter cmd auto_recover true
# The stalled PORT_CFG ran when the channel resumed: set the MTU again.
ip link set "$P8" mtu 1400; ip link set "$P8" mtu 1500

# ---- health: fw, under flowtable offload ------------------------------
ktap_result $([ "$(hrep fw state)" = healthy ] && [ "$(hrep fw error)" = 0 ]; echo $?) "reporter fw: healthy, error 0"
fw_ruleset ft=offload | nft -f -
fwd() { echo $(( $(eth_stat "$P3" hw_fwd_frames) + $(eth_stat "$P8" hw_fwd_frames) )); }
iperf_server far
ip netns exec pc iperf3 -c $FAR4 -t 70 -i 2 > /tmp/fw-iperf.txt 2>&1 &
ipid=$!
# until the kernel's flowtable has offloaded the stream (its work queue runs
# late in a loaded guest): a second in which the hardware forwards it
carried() { local a; a=$(fwd); sleep 1; [ $(( $(fwd) - a )) -gt 250 ]; }
for i in $(seq 30); do carried && break; done
diag "offloaded after $i s"
f0=$(fwd); sleep 2; f1=$(fwd)
diag "in hardware before the fault: $((f1 - f0)) frames in 2 s, fp_conns $(eth_stat "$P3" fp_conns)"
ktap_result $([ $((f1 - f0)) -gt 500 ]; echo $?) "the stream is forwarded in hardware"
conntrack -L -p tcp 2>/dev/null | sed 's/^/# before the fault: /' | head -4
# The region snapshot of the table while the stream is in hardware (read below).
devlink region new $DL/flow-table snapshot 7; snap_rc=$?
inject fw_fault 1
ok=1; wait_until 5 bash -c "[ \"\$(devlink -j health show $DL reporter fw | jq '.. | objects | select(.reporter?) | .recover')\" = 1 ]" && ok=0
diag "fw error $(hrep fw error) recover $(hrep fw recover) fw_fault $(cat $DBG/fw_fault)"
ktap_result $([ $ok = 0 ] && [ "$(hrep fw error)" = 1 ] && [ "$(cat $DBG/fw_fault)" = 0 ]; echo $?) \
	"fw fault reported and auto-recovered (error 1, recover 1, fault cleared)"
rp=$(devlink -j health diagnose $DL reporter fw | jq '.. | objects | select(.replayed?) | .replayed')
ktap_result $([ "${rp:-0}" -ge 1 ]; echo $?) "recovery re-programmed the shadow table's connections ($rp)"
sleep 2
r2=$(link_stat "$P3" rx_packets); f2=$(fwd); sleep 3; f3=$(fwd); r3=$(link_stat "$P3" rx_packets)
diag "host rx on $P3 in those 3 s: $((r3 - r2)); $(tr '\n' ' ' < $DBG/fp_stats)"
conntrack -L -p tcp 2>/dev/null | sed 's/^/# /' | head -4
diag "in hardware after recovery: $((f3 - f2)) frames in 3 s"
if [ $((f3 - f2)) -gt 500 ]; then
	ktap_ok "traffic resumes in hardware after recovery"
elif [ $((r3 - r2)) -lt 50 ]; then
	# Neither the fast path nor the host carried the stream: it had stalled
	# or ended (flowtable streams under a loaded TCG host stall at times,
	# as in 60-flowtable-offload), so there is nothing to measure.
	ktap_skip "traffic resumes in hardware after recovery: the stream carried nothing in the window ($((r3 - r2)) host frames)"
else
	ktap_fail "traffic resumes in hardware after recovery ($((r3 - r2)) frames went through the host)"
fi
# the stream's part is done: the region below reads the snapshot taken with it
kill $ipid 2>/dev/null
check "fw dump taken at the fault shows it" bash -c "devlink -j health dump show $DL reporter fw | jq -e '.. | objects | select(.fw_status?) | .fw_status == \"fault\"'"
check "fw diagnose after recovery: ok" bash -c "devlink -j health diagnose $DL reporter fw | jq -e '.. | objects | select(.fw_status?) | .fw_status == \"ok\"'"

# ---- region ---------------------------------------------------------------
sz=$(dlj region show $DL/flow-table | jq -r '.. | objects | select(.size?) | .size' | head -1)
ktap_result $([ "$sz" = $((16384 * 48)) ]; echo $?) "region flow-table, size $sz (16384 x 48)"
ktap_result $snap_rc "region new snapshot 7 (taken with the stream in hardware)"
ktap_result $(dlj region show $DL/flow-table | jq -e '.. | objects | select(.snapshot?) | .snapshot | index(7)' >/dev/null; echo $?) \
	"snapshot 7 shown"
# struct npu_conn_stat (48 bytes): conn le32, rev le16, state, giveback,
# packets[2] le64, bytes[2] le64, idle_ms, rsvd.  The first used entry of 8.
hex=$(devlink region read $DL/flow-table snapshot 7 address 0 length 384 | cut -d' ' -f2- | tr -d ' \n')
le() { local h=$1 o=$2 n=$3 v="" i; for ((i = n - 1; i >= 0; i--)); do v+=${h:$(( (o + i) * 2 )):2}; done; echo $((16#${v:-0})); }
rev=0 p0=0 p1=0 e=-1
for i in 0 1 2 3 4 5 6 7; do
	rev=$(le "$hex" $((i * 48 + 4)) 2)
	[ "$rev" -ge 1 ] || continue
	e=$i; p0=$(le "$hex" $((i * 48 + 8)) 8); p1=$(le "$hex" $((i * 48 + 16)) 8)
	[ $((p0 + p1)) -gt 0 ] && break
done
diag "entry $e: rev $rev packets $p0/$p1; bytes read ${#hex}/2"
ktap_result $([ "${#hex}" = 768 ] && [ "$e" -ge 0 ] && [ $((p0 + p1)) -gt 0 ]; echo $?) \
	"read: entry $e is a live connection of the stream (rev $rev, packets $p0/$p1)"
nl=$(devlink region dump $DL/flow-table snapshot 7 | wc -l)
ktap_result $([ "$nl" = $((16384 * 48 / 16)) ]; echo $?) "dump: $nl lines of 16 bytes"
check_fail "read starting beyond the end refused" devlink region read $DL/flow-table snapshot 7 address $((sz + 16)) length 16
check_fail "read at 4 GiB refused" devlink region read $DL/flow-table snapshot 7 address $((1 << 32)) length 128
check "read of the last byte" devlink region read $DL/flow-table snapshot 7 address $((sz - 1)) length 1
check "oversized read is clamped" devlink region read $DL/flow-table snapshot 7 address $((sz - 64)) length $((1 << 32))
check "region del" devlink region del $DL/flow-table snapshot 7
check_fail "read of a deleted snapshot refused" devlink region read $DL/flow-table snapshot 7 address 0 length 16
wait $ipid
sed 's/^/# iperf3: /' /tmp/fw-iperf.txt | tail -25
nft flush ruleset
ktap_finish
