#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Statistics upkeep that does not grow with what the table holds (issue 31):
# with 256 and then 1,024 connections in hardware (one-direction UDP flower
# rules, skip_sw) and no change for 8 s, the commands the driver sends over
# the window (the "seq" of both command rings, devlink health diagnose cmd)
# stay under a small constant at both sizes: the device keeps counters and
# idle times in a statistics area the driver reads in bulk, not a command
# per 4 connections every second.  The counters still reach the kernel: a
# paired connection that forwards 40 datagrams shows 40 packets each way
# in `tc -s filter show`, and the driver kept reading (fp_stats_reads).
# Counts only.
# timeout: 600
. "$(dirname "$0")/lib.sh"
ktap_plan 7
WIN=8
MAXCMDS=16	# a heartbeat a second, and slack

# cmds: the commands sent on both command rings so far, modulo 2^16 per ring
cmds() {
	devlink -j health diagnose auxiliary/npusim.npu.0 reporter cmd |
		jq '[.. | objects | select(has("seq")) | .seq] | add'
}
in_hw() { [ "$(eth_stat "$P3" fp_conns)" = "$1" ] && [ "$(eth_stat "$P3" hw_fp_conns)" = "$1" ]; }
wait_in_hw() { local i; for i in $(seq 60); do in_hw "$1" && return 0; sleep 0.5; done; return 1; }
# rules FIRST COUNT: COUNT one-direction UDP rules on port 3, a connection each
rules() {
	local i
	for i in $(seq "$1" $(($1 + $2 - 1))); do
		echo "filter add dev $P3 ingress protocol ip prio 2 flower skip_sw ip_proto udp src_ip $PC4 dst_ip $FAR4 src_port $((10000 + i)) dst_port 6000 action mirred egress redirect dev $P8"
	done | tc -batch -
}
# idle_window N: commands sent over WIN seconds with N connections held
idle_window() {
	local c0 c1 r0 r1
	c0=$(cmds) r0=$(eth_stat "$P3" fp_stats_reads)
	sleep $WIN
	c1=$(cmds) r1=$(eth_stat "$P3" fp_stats_reads)
	diag "$1 connections, $WIN s idle: $((c1 - c0)) commands, $((r1 - r0)) statistics passes"
	ktap_result $([ $((c1 - c0)) -le $MAXCMDS ] && [ $((r1 - r0)) -ge 1 ]; echo $?) \
		"$1 connections held $WIN s: at most $MAXCMDS commands ($((c1 - c0))), statistics read ($((r1 - r0)) passes)"
}

npu_load && npu_new 0 8 2 || { ktap_fail "setup"; ktap_finish; }
topo_pc_far 0; ktap_result $? "topology"
flower_ports
echo 0 > /sys/kernel/debug/npusim/0/fp_retrans_max

# One paired connection that carries traffic: UDP 4000 <-> 5000.
check "a paired connection in hardware (flower skip_sw both ways)" bash -c "
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

rules 1 255
ok=1; wait_in_hw 256 && ok=0
[ $ok = 0 ] || diag "in hardware: $(eth_stat "$P3" fp_conns)/$(eth_stat "$P3" hw_fp_conns)"
idle_window 256
rules 256 768
ok=1; wait_in_hw 1024 && ok=0
ktap_result $ok "1,024 connections in hardware ($(eth_stat "$P3" fp_conns)/$(eth_stat "$P3" hw_fp_conns))"
idle_window 1024

# 40 datagrams each way over the paired connection, forwarded by the fast
# path; the counters reach tc through FLOW_CLS_STATS from the shadow.
f0=$(( $(link_stat "$P3" rx_packets) + $(link_stat "$P8" rx_packets) ))
ip netns exec far python3 -c "
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(('$FAR4', 5000)); s.settimeout(5)
n = 0
try:
    while n < 40:
        d, a = s.recvfrom(2048); s.sendto(d, a); n += 1
except OSError:
    pass
" &
srv=$!
sleep 1
ip netns exec pc python3 -c "
import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(('$PC4', 4000)); s.settimeout(2)
for i in range(40):
    s.sendto(b'x' * 64, ('$FAR4', 5000))
    try: s.recvfrom(2048)
    except OSError: pass
    time.sleep(0.02)
"
wait $srv
sleep 2.5	# the next statistics passes, one a second
hw_pkts() { tc -s -j filter show dev "$1" ingress prio 1 |
	jq '[.. | objects | select(has("stats")) | .stats.packets // empty] | max // 0'; }
p3=$(hw_pkts "$P3") p8=$(hw_pkts "$P8")
h=$(( $(link_stat "$P3" rx_packets) + $(link_stat "$P8" rx_packets) - f0 ))
diag "tc hw packets: port 3 $p3, port 8 $p8; frames to the host meanwhile $h; fp_stats_bad $(eth_stat "$P3" fp_stats_bad)"
ktap_result $([ "$p3" = 40 ] && [ "$p8" = 40 ]; echo $?) \
	"the paired connection's counters in tc -s match the datagrams sent (40 each way: $p3, $p8)"
ktap_result $([ "$(eth_stat "$P3" fp_stats_bad)" = 0 ]; echo $?) "no statistics entry refused (fp_stats_bad 0)"
for d in "$P3" "$P8"; do tc qdisc del dev "$d" clsact; done
wait_in_hw 0
ktap_finish
