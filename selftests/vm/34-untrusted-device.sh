#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The device is untrusted, but the model cannot lie: its debugfs knob
# "corrupt" makes it write wrong values into real descriptors and command
# slots, one class at a time.  Per class the driver counts each in its own
# ethtool -S counter, uses nothing it did not post (the guest runs
# slub_debug and KFENCE; a wild access fails the run), and recovers:
#   rx_len, rx_port, rx_reason  receive descriptors: frame dropped, counted
#                               in rx_bad_<class> and rx_bad_desc
#   rx_conn                     an index beyond any table: the frame is
#                               delivered without it, rx_bad_conn
#   cmd_seq, cmd_opcode         a waited completion of another command:
#                               EIO, cmd_bad_<class>, and devlink health
#                               "cmd" reports and resets the rings
#   cmd_head                    a HEAD two past the tail (until the ring
#                               is reset): EIO, cmd_bad_head, health reset
#   area_rev, area_state,       a statistics-area entry of another
#   area_conn                   revision, an impossible state or another
#                               index, with a million frames more: refused,
#                               counted (fp_stats_stale, fp_stats_bad), the
#                               counters untouched; the next honest entry
#                               is taken
# After each, traffic flows (ping) and commands work.
# timeout: 600
. "$(dirname "$0")/lib.sh"
ktap_plan 27
DL=auxiliary/npusim.npu.0
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
CORRUPT=/sys/kernel/debug/npusim/0/corrupt

corrupt() { inject $CORRUPT "$1 $2"; }
done_of() { awk -v c="$1" '$1 == c { print $5 }' $CORRUPT; }
armed_of() { awk -v c="$1" '$1 == c { print $3 }' $CORRUPT; }
# counter summed over ports 3 and 8 (the only ports with traffic)
both() { echo $(( $(eth_sum "$P3" "$1") + $(eth_sum "$P8" "$1") )); }
hrep() { devlink -j health show $DL reporter "$1" 2>/dev/null |
	jq -r --arg f "$2" '[.. | objects | select(.reporter? != null)][0][$f]'; }
wait_until() { # SECONDS CMD...
	local t=$1 i; shift
	for i in $(seq $((t * 10))); do "$@" && return 0; sleep 0.1; done
	return 1
}
ping_ok() { ip netns exec pc ping -c 3 -i 0.2 -W 2 $FAR4 >/dev/null 2>&1; }

npu_load && npu_new 0 8 2 || { ktap_fail "setup"; ktap_finish; }
topo_pc_far 0; ktap_result $? "topology"
ping_ok

# ---- receive descriptors ------------------------------------------------
for c in len port reason; do
	b0=$(both "^rx_q[0-9]+_bad_${c}\$"); d0=$(both '^rx_q[0-9]+_bad_desc$')
	n0=$(done_of rx_$c)
	corrupt rx_$c 3
	ip netns exec pc ping -c 10 -i 0.2 -W 1 $FAR4 >/dev/null 2>&1
	b=$(( $(both "^rx_q[0-9]+_bad_${c}\$") - b0 )); d=$(( $(both '^rx_q[0-9]+_bad_desc$') - d0 ))
	n=$(( $(done_of rx_$c) - n0 ))
	diag "rx_$c: the model corrupted $n descriptors; rx_bad_$c +$b, rx_bad_desc +$d"
	ktap_result $([ "$n" = 3 ] && [ "$b" = 3 ] && [ "$d" = 3 ]; echo $?) \
		"rx_$c: each corrupt descriptor counted in rx_bad_$c and rx_bad_desc, its frame dropped"
	check "rx_$c: traffic flows afterwards (ping)" ping_ok
done

b0=$(both '^rx_q[0-9]+_bad_conn$'); d0=$(both '^rx_q[0-9]+_bad_desc$'); n0=$(done_of rx_conn)
corrupt rx_conn 3
out=$(ip netns exec pc ping -c 6 -i 0.2 -W 2 $FAR4 2>&1)
b=$(( $(both '^rx_q[0-9]+_bad_conn$') - b0 )); d=$(( $(both '^rx_q[0-9]+_bad_desc$') - d0 ))
n=$(( $(done_of rx_conn) - n0 ))
diag "rx_conn: the model corrupted $n descriptors; rx_bad_conn +$b, rx_bad_desc +$d; $(echo "$out" | grep -o '[0-9]* received')"
ktap_result $([ "$n" = 3 ] && [ "$b" = 3 ] && [ "$d" = 0 ] && echo "$out" | grep -q ' 0% packet loss'; echo $?) \
	"rx_conn: each bad index counted in rx_bad_conn, the frames delivered without it (no ping lost)"

# ---- command completions and the command head ---------------------------
# A waited command: ethtool -C sends NPU_CMD_COALESCE and waits for it.
cmd_case() { # CLASS ARM
	local c=$1 e0 r0 b0 rc ok
	e0=$(hrep cmd error); r0=$(hrep cmd recover); b0=$(eth_stat "$P3" cmd_bad_${c#cmd_})
	corrupt "$c" "$2"
	ethtool -C "$P3" rx-usecs 20 2>/dev/null; rc=$?
	ok=1; wait_until 10 bash -c "[ \"\$(devlink -j health show $DL reporter cmd |
		jq '.. | objects | select(.reporter?) | .recover')\" = $((r0 + 1)) ]" && ok=0
	b=$(( $(eth_stat "$P3" cmd_bad_${c#cmd_}) - b0 ))
	diag "$c: ethtool -C rc $rc; cmd_bad_${c#cmd_} +$b; health cmd error $e0 -> $(hrep cmd error), recover $r0 -> $(hrep cmd recover), $(hrep cmd state); armed $(armed_of "$c")"
	ktap_result $([ $rc != 0 ] && [ "$b" -ge 1 ] && [ $ok = 0 ] &&
		[ "$(hrep cmd error)" = $((e0 + 1)) ] && [ "$(hrep cmd state)" = healthy ] &&
		[ "$(armed_of "$c")" = 0 ]; echo $?) \
		"$c: the command fails (EIO), counted in cmd_bad_${c#cmd_}, devlink health cmd reports and resets the rings"
	check "$c: commands work after the reset (ethtool -C)" \
		bash -c "ethtool -C $P3 rx-usecs 20 && ethtool -C $P3 rx-usecs 0"
	check "$c: traffic flows afterwards (ping)" ping_ok
}
cmd_case cmd_seq 1
cmd_case cmd_opcode 1
# a head that stays two past the tail until the rings are reprogrammed
cmd_case cmd_head 1000

# ---- the statistics area ------------------------------------------------
# One UDP connection in hardware (two flower rules, paired), so the driver
# reads its entry of the statistics area every second (fp_stats_reads).
# Each lie is written over the entry of the next frame the fast path
# forwards: a million frames more, and another revision (fp_stats_stale),
# an impossible state or another index (fp_stats_bad).
flower_ports
check "a connection in hardware (flower skip_sw both ways)" bash -c "
	tc filter add dev $P3 ingress protocol ip prio 1 flower skip_sw \
		ip_proto udp src_ip $PC4 dst_ip $FAR4 src_port 4000 dst_port 5000 \
		action pedit ex munge eth dst set $farmac munge eth src set $(mac "$P8") \
		munge ip ttl add 255 pipe action csum ip udp pipe \
		action mirred egress redirect dev $P8 &&
	tc filter add dev $P8 ingress protocol ip prio 1 flower skip_sw \
		ip_proto udp src_ip $FAR4 dst_ip $PC4 src_port 5000 dst_port 4000 \
		action pedit ex munge eth dst set $pcmac munge eth src set $(mac "$P3") \
		munge ip ttl add 255 pipe action csum ip udp pipe \
		action mirred egress redirect dev $P3"
r0=$(eth_stat "$P3" fp_stats_reads)
ok=1; wait_until 5 bash -c "[ \$(ethtool -S $P3 | awk '\$1 == \"fp_stats_reads:\" { print \$2 }') -gt $r0 ]" && ok=0
ktap_result $ok "the driver reads the statistics area"
# one datagram pc:4000 -> far:5000, forwarded by the fast path
send1() {
	ip netns exec pc python3 -c "import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(('$PC4', 4000)); s.sendto(b'x' * 64, ('$FAR4', 5000))"
}
pkts() { tc -s -j filter show dev "$P3" ingress prio 1 |
	jq '[.. | objects | select(has("stats")) | .stats.packets // empty] | max // 0'; }
for c in rev state conn; do
	k=fp_stats_bad; [ $c = rev ] && k=fp_stats_stale
	b0=$(eth_stat "$P3" $k); p0=$(pkts); n0=$(done_of area_$c)
	corrupt area_$c 1
	send1
	sleep 2.5	# the next passes, one a second
	b=$(( $(eth_stat "$P3" $k) - b0 )); p1=$(pkts)
	diag "area_$c: corrupted $(( $(done_of area_$c) - n0 )); $k +$b; tc packets $p0 -> $p1"
	ktap_result $([ $(( $(done_of area_$c) - n0 )) = 1 ] && [ "$b" -ge 1 ] && [ "$p1" = "$p0" ]; echo $?) \
		"area_$c: the lying entry refused and counted in $k; the connection's counters do not take it"
	send1
	sleep 2.5
	p2=$(pkts)
	ktap_result $([ "$p2" = $((p0 + 2)) ]; echo $?) \
		"area_$c: the next honest entry is taken (tc packets $p0 -> $p2)"
done
for d in "$P3" "$P8"; do tc qdisc del dev "$d" clsact; done
check "traffic flows at the end (ping)" ping_ok
ktap_result $(awk '$3 != 0 { exit 1 }' $CORRUPT; echo $?) "nothing left armed"
ktap_finish
