#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Trap policers: three trap groups (new connections, connection state,
# traffic to the host), each bound to a devlink trap policer the model
# executes before a frame takes a receive descriptor.  A flood of new UDP
# flows into port 3 at several times the new-connection policer's rate:
# the host takes at most rate x time + burst of them, every other one is a
# policer drop counted in devlink -s trap policer show, ethtool -S and the
# netdev's qstat rx-hw-drop-ratelimits, a TCP connection in hardware keeps
# forwarding and a ping to the host still answers.  The policer's rate and burst and the group bindings survive
# devlink dev reload and a firmware recovery, and are enforced after both.
. "$(dirname "$0")/lib.sh"
ktap_plan 19

npu_load && npu_new 0 8 2 || { ktap_fail "setup"; ktap_finish; }
topo_pc_far 0; ktap_result $? "topology"
DL=auxiliary/npusim.npu.0
DBG=/sys/kernel/debug/npusim/0
RATE=200 BURST=50

dlj() { devlink -j "$@" 2>/dev/null; }
grp_of() { dlj trap show $DL trap "$1" | jq -r '.trap[][] | .group'; }
grp_pol() { dlj trap group show $DL group "$1" | jq -r '.trap_group[][] | .policer // 0'; }
pol() { dlj -s trap policer show $DL policer "$1" | jq -r --arg f "$2" '.trap_policer[][] | if $f == "drops" then .stats.rx.dropped else .[$f] end'; }
hrep() { dlj health show $DL reporter "$1" | jq -r --arg f "$2" '[.. | objects | select(.reporter? != null)][0][$f]'; }

# ---- groups and defaults -------------------------------------------------
ok=0
for t in npu_flow_miss npu_fastpath_off npu_ntuple; do [ "$(grp_of $t)" = npu_new_conn ] || ok=1; done
for t in npu_tcp_flags npu_not_active; do [ "$(grp_of $t)" = npu_conn_state ] || ok=1; done
for t in npu_exception npu_mtu npu_non_ip npu_mcast npu_malformed; do [ "$(grp_of $t)" = npu_host ] || ok=1; done
ktap_result $ok "traps in three groups: npu_new_conn, npu_conn_state, npu_host"
diag "policers (rate/burst): 1 $(pol 1 rate)/$(pol 1 burst), 2 $(pol 2 rate)/$(pol 2 burst), 3 $(pol 3 rate)/$(pol 3 burst)"
ktap_result $([ "$(grp_pol npu_new_conn)" = 1 ] && [ "$(grp_pol npu_conn_state)" = 2 ] &&
	[ "$(grp_pol npu_host)" = 3 ] && [ "$(pol 1 rate)" = 100000 ] && [ "$(pol 1 burst)" = 8192 ] &&
	[ "$(pol 2 rate)" = 100000 ] && [ "$(pol 3 rate)" = 20000 ]; echo $?) \
	"each group bound to its own policer (1, 2, 3), the documented defaults"
check_fail "a rate of 0 is refused" devlink trap policer set $DL policer 1 rate 0 burst 64
devlink trap policer set $DL policer 1 rate $RATE burst $BURST
ktap_result $([ "$(pol 1 rate)" = $RATE ] && [ "$(pol 1 burst)" = $BURST ]; echo $?) \
	"policer 1 set to rate $RATE burst $BURST"

# ---- a TCP connection in hardware --------------------------------------
ethtool -K "$P3" hw-tc-offload on; ethtool -K "$P8" hw-tc-offload on
ft_offload_tcp
iperf_server far
ip netns exec pc iperf3 -c $FAR4 -t 60 -b 4M >/dev/null 2>&1 &
IPERF=$!
trap 'kill $IPERF 2>/dev/null; ip netns pids far | xargs -r kill 2>/dev/null' EXIT
for i in $(seq 100); do conntrack -L 2>/dev/null | grep -q HW_OFFLOAD && break; sleep 0.1; done
sleep 1
ktap_result $(conntrack -L 2>/dev/null | grep -q HW_OFFLOAD; echo $?) "a TCP connection in hardware"

# ---- the flood -------------------------------------------------------------
# flood COUNT: COUNT frames of new UDP flows (one source port each, the
# port pair never repeats) from pc into port 3, as fast as python sends;
# prints "offered seconds" (a frame the model drops is still offered: the
# wire's transmit returns the drop to the sender as an error).
P3MAC=$(mac "$P3")
flood() {
	ip netns exec pc python3 - "$1" "$P3MAC" "$(ip netns exec pc cat /sys/class/net/npuw0p3/address)" \
		$PC4 $H3_4 <<'PY'
import socket, struct, sys, time
n, dmac, smac, sa, da = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]
mb = lambda m: bytes(int(x, 16) for x in m.split(":"))
ip = bytearray(struct.pack("!BBHHHBBH4s4s", 0x45, 0, 28, 0, 0, 64, 17, 0,
                           socket.inet_aton(sa), socket.inet_aton(da)))
s = sum(struct.unpack("!10H", ip))
s = (s & 0xffff) + (s >> 16)
struct.pack_into("!H", ip, 10, ~((s & 0xffff) + (s >> 16)) & 0xffff)
hdr = mb(dmac) + mb(smac) + b"\x08\x00" + bytes(ip)
frames = [hdr + struct.pack("!HHHH", 1024 + i % 60000, 7000 + i // 60000, 8, 0) + bytes(18)
          for i in range(n)]
so = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
so.bind(("npuw0p3", 0))
t0 = time.monotonic()
for f in frames:
    try:
        so.send(f)
    except OSError:
        pass  # the wire's xmit reports the model's drop: still offered
print(len(frames), "%.3f" % (time.monotonic() - t0))
PY
}
fwd() { eth_stat "$P3" hw_fwd_frames; }
taken() { eth_stat "$P3" rx_punt_flow_miss; }
punts() { eth_stat "$P3" hw_punt_flow_miss; }
pdrops() { eth_stat "$P3" hw_rx_policer_drops; }

# run_flood COUNT: flood, then the deltas in S (offered) T (seconds) TK
# (taken by the host) PU (punted by the model) DD (devlink policer 1
# drops) ED (ethtool per-port policer drops) FW (fast-path forwarded).
run_flood() {
	local tk0 pu0 dd0 ed0 fw0 out
	tk0=$(taken) pu0=$(punts) dd0=$(pol 1 drops) ed0=$(pdrops) fw0=$(fwd)
	out=$(flood "$1")
	sleep 0.5
	S=${out% *} T=${out#* }
	TK=$(($(taken) - tk0)) PU=$(($(punts) - pu0)) DD=$(($(pol 1 drops) - dd0))
	ED=$(($(pdrops) - ed0)) FW=$(($(fwd) - fw0))
	# the most the policer lets through in T seconds, rounded up
	MAXP=$(awk -v r=$RATE -v t="$T" -v b=$BURST 'BEGIN { printf "%d", r * t + b + 1 }')
	diag "flood: offered $S in $T s ($(awk -v s="$S" -v t="$T" 'BEGIN { printf "%d", s / t }') frames/s); model punted $PU, host took $TK (at most $MAXP), policer drops devlink $DD ethtool $ED; fast path forwarded $FW"
}

PING=$(mktemp)
ip netns exec pc ping -c 10 -i 0.2 -W 2 $H3_4 > "$PING" 2>&1 &
PPID_=$!
run_flood 30000
wait $PPID_
RX=$(awk '/packets transmitted/ { print $4 }' "$PING")
ktap_result $([ "$S" -ge $((4 * RATE)) ] && awk -v s="$S" -v t="$T" -v r=$RATE 'BEGIN { exit !(s / t >= 4 * r) }'; echo $?) \
	"the flood runs at more than 4 x the policer's rate ($S frames in $T s)"
ktap_result $([ "$TK" -le "$MAXP" ] && [ "$TK" -ge "$BURST" ]; echo $?) \
	"the host takes at most rate x time + burst of them ($TK <= $MAXP), at least the burst"
ktap_result $([ "$DD" -gt 0 ] && [ "$DD" = "$ED" ] && [ $((DD + TK)) = "$PU" ] && [ "$PU" -ge "$S" ]; echo $?) \
	"every other one is a counted policer drop: devlink $DD = ethtool $ED, drops + taken = punted ($((DD + TK)) = $PU)"
ktap_result $([ "$FW" -gt 50 ] && conntrack -L 2>/dev/null | grep -q HW_OFFLOAD; echo $?) \
	"the connection in hardware keeps forwarding under the flood ($FW frames)"
# A policer drops a punt before it takes a receive descriptor, so no queue
# owns the drop: the port's drops are its netdev's qstat (device scope)
# rx-hw-drop-ratelimits, read through the kernel's ynl.
QS=$(qstat_dev "$P3") ED=$(pdrops)
QD=$(echo "$QS" | jq '."rx-hw-drop-ratelimits" // -1')
ktap_result $([ "$QD" = "$ED" ] && [ "$ED" -gt 0 ]; echo $?) \
	"qstat rx-hw-drop-ratelimits is the port's policer drops ($QD, ethtool $ED)"
# netdev.yaml: overruns and ratelimits are parts of rx-hw-drops (no bad
# descriptor here, so they are all of it)
HD=$(echo "$QS" | jq '."rx-hw-drops" // -1') HO=$(echo "$QS" | jq '."rx-hw-drop-overruns" // 0')
ktap_result $([ "$HD" = $((QD + HO)) ]; echo $?) \
	"qstat rx-hw-drops counts them: $HD = ratelimits $QD + overruns $HO"
ktap_result $([ "$RX" = 10 ]; echo $?) "a ping to the host answers under the flood ($RX/10)"
rm -f "$PING"

# ---- kept across reload and firmware recovery -------------------------------
devlink trap group set $DL group npu_host policer 2
kill $IPERF 2>/dev/null; wait $IPERF 2>/dev/null
nft flush ruleset
for i in $(seq 50); do conntrack -L 2>/dev/null | grep -q HW_OFFLOAD || break; sleep 0.1; done
devlink dev reload $DL
ktap_result $([ "$(pol 1 rate)" = $RATE ] && [ "$(pol 1 burst)" = $BURST ] &&
	[ "$(grp_pol npu_host)" = 2 ] && [ "$(grp_pol npu_new_conn)" = 1 ]; echo $?) \
	"rate, burst and group bindings kept across devlink dev reload"
wait_carrier "$P3"
run_flood 5000
ktap_result $([ "$DD" -gt 0 ] && [ "$TK" -le "$MAXP" ]; echo $?) \
	"enforced after the reload ($TK <= $MAXP taken, $DD dropped)"

r0=$(hrep fw recover)
inject fw_fault 1
for i in $(seq 50); do [ "$(hrep fw recover)" != "$r0" ] && [ "$(cat $DBG/fw_fault)" = 0 ] && break; sleep 0.1; done
ktap_result $([ "$(hrep fw recover)" != "$r0" ]; echo $?) "firmware fault recovered"
run_flood 5000
ktap_result $([ "$DD" -gt 0 ] && [ "$TK" -le "$MAXP" ] && [ "$(pol 1 rate)" = $RATE ]; echo $?) \
	"enforced after the firmware recovery ($TK <= $MAXP taken, $DD dropped)"

devlink trap group set $DL group npu_new_conn policer 0
run_flood 2000
ktap_result $([ "$DD" = 0 ] && [ "$TK" -gt "$MAXP" ]; echo $?) \
	"unbound (policer 0): nothing dropped, the host takes $TK of $PU (more than the policer allowed, $MAXP)"
devlink trap group set $DL group npu_new_conn policer 1
devlink trap group set $DL group npu_host policer 3

npu_unload; ktap_result $? "modules unload"
ktap_finish
