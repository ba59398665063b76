#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The coprocessor's cores (the model's debugfs "cores" and "core_work"): with
# the mask narrowed to one vCPU of the two, the model's work - ingress (and
# the fast path's forwarding in it), transmit passes, command passes,
# moderation timers - runs on that vCPU only: core_work's row of the other
# does not move while host-path traffic (pings, 2 MB of TCP, sha256) and a
# fast-path connection (tc flower skip_sw, 200 UDP datagrams) cross, and
# every frame of each counted exchange arrives, none dropped at the ports'
# ingress FIFOs.  Then the other vCPU; a burst the model is kept from
# taking at once (the wire's queue stops, nothing is lost); then
# every CPU again: ingress inline on the sender's CPU, as by default.  A list
# with no online CPU is refused.  The wires' NAPI runs threaded, pinned.
# Last, the device is deleted with frames waiting in a FIFO.
# timeout: 300
. "$(dirname "$0")/lib.sh"
ktap_plan 24
DBG=/sys/kernel/debug/npusim/0

[ "$(nproc)" = 2 ] || { ktap_skip "needs a guest of 2 vCPUs, not $(nproc)"; exit 4; }
npu_load && npu_new 0 8 2 || { ktap_fail "setup"; ktap_finish; }
topo_pc_far 0; ktap_result $? "topology pc <-> host <-> far"
flower_ports

# The test hosts' side of the cables: each wire's NAPI in a kthread of its
# own (napi/<wire>-<id>), pinned to CPU 0 with the test hosts' processes.
ok=0
for nw in "pc npuw0p3" "far npuw0p8"; do
	set -- $nw
	ip netns exec "$1" sh -c "echo 1 > /sys/class/net/$2/threaded" || ok=1
	pid=$(pgrep "^napi/$2-" | head -1)
	aff=$([ -n "$pid" ] && taskset -pc 0 "$pid" >/dev/null && taskset -pc "$pid" | awk '{ print $NF }')
	diag "$2: threaded NAPI kthread ${pid:-none}, affinity ${aff:-?}"
	[ -n "$pid" ] && [ "$aff" = 0 ] || ok=1
done
ktap_result $ok "threaded NAPI on both wires, each kthread pinned to CPU 0 by taskset"

poss=$(cat /sys/devices/system/cpu/possible)
cur=$(cat $DBG/cores 2>/dev/null)
diag "cores by default: ${cur:-none}; possible CPUs $poss"
ktap_result $([ "$cur" = "$poss" ]; echo $?) "cores holds every possible CPU by default"

# A connection in the fast path: pc:4000 <-> far:5000 over UDP, routed.
tc filter add dev "$P3" ingress protocol ip prio 1 flower skip_sw \
	ip_proto udp src_ip $PC4 dst_ip $FAR4 src_port 4000 dst_port 5000 \
	action pedit ex munge eth dst set "$farmac" munge eth src set "$(mac "$P8")" \
	munge ip ttl add 255 pipe action csum ip udp pipe \
	action mirred egress redirect dev "$P8" &&
tc filter add dev "$P8" ingress protocol ip prio 1 flower skip_sw \
	ip_proto udp src_ip $FAR4 dst_ip $PC4 src_port 5000 dst_port 4000 \
	action pedit ex munge eth dst set "$pcmac" munge eth src set "$(mac "$P3")" \
	munge ip ttl add 255 pipe action csum ip udp pipe \
	action mirred egress redirect dev "$P3"
ktap_result $? "a UDP connection pc <-> far in the fast path (flower skip_sw)"
ip netns exec pc ping -c 1 -W 2 $FAR4 >/dev/null
ip netns exec far ping -c 1 -W 2 $PC4 >/dev/null

# cw_read ARRAY: core_work into ARRAY[cpu,field] (ingress tx cmd timer).
cw_read() {
	local -n a=$1
	local cpu k1 v1 k2 v2 k3 v3 k4 v4
	a=()
	while read -r cpu k1 v1 k2 v2 k3 v3 k4 v4; do
		a[$cpu,$k1]=$v1 a[$cpu,$k2]=$v2 a[$cpu,$k3]=$v3 a[$cpu,$k4]=$v4
	done < $DBG/core_work
}
declare -A W0 W1
# cw CPU FIELD: its growth from W0 to W1.
cw() { echo $(( ${W1[$1,$2]:-0} - ${W0[$1,$2]:-0} )); }
cw_row() { echo "ingress $(cw "$1" ingress) tx $(cw "$1" tx) cmd $(cw "$1" cmd) timer $(cw "$1" timer)"; }
# fifo FIELD: a field of p<N>/stats summed over ports 3 and 8.
fifo() { cat $DBG/p3/stats $DBG/p8/stats | awk -v k="$1" '$1 == k { s += $2 } END { print s + 0 }'; }

# pings NS DST: 20 pings, the count received.
pings() {
	ip netns exec "$1" taskset -c 0 ping -c 20 -i 0.1 -W 3 "$2" 2>/dev/null |
		awk '/packets transmitted/ { print $4 }'
}
# datagrams: 200 datagrams pc:4000 -> far:5000 through the fast path; prints
# "received forwarded".
datagrams() {
	local fw0 pid
	rm -f /tmp/cores-udp.out
	ip netns exec far socat -u UDP-RECV:5000 OPEN:/tmp/cores-udp.out,create,trunc &
	pid=$!
	sleep 0.5
	fw0=$(eth_sum "$P3" '^hw_fwd_frames$')
	udp_pc_far 200 0
	sleep 1
	kill $pid 2>/dev/null; wait $pid 2>/dev/null
	echo "$(grep -c datagram /tmp/cores-udp.out) $(( $(eth_sum "$P3" '^hw_fwd_frames$') - fw0 ))"
}

# round CPU OTHER FROM TO ADDR PORT: the model on CPU alone, under pings,
# 2 MB of TCP FROM -> TO (with moderation on, so that timers arm, and
# ethtool -C as commands), the fast path's datagrams.
round() {
	local c=$1 o=$2 from=$3 to=$4 addr=$5 port=$6 rd p sn ss rn rs got fw st0 dr0 fq0
	echo "$c" > $DBG/cores
	rd=$(cat $DBG/cores)
	ktap_result $([ "$rd" = "$c" ]; echo $?) "cores=$c written and read back ($rd)"
	cw_read W0
	st0=$(fifo rx_fifo_stops) dr0=$(fifo rx_fifo_drops) fq0=$(fifo rx_fifo_frames)
	ethtool -C "$P3" rx-usecs $((40 + c * 10)) rx-frames 32 &&
		ethtool -C "$P8" rx-usecs $((40 + c * 10)) rx-frames 32
	p=$(pings pc $FAR4)
	read -r sn ss rn rs <<< "$(xfer "$from" "$to" "$addr" "$port" 2)"
	read -r got fw <<< "$(datagrams)"
	cw_read W1
	diag "cores=$c: pings $p/20; $from -> $to: sent $sn B sha256 $ss, received ${rn:-?} B sha256 ${rs:-?}; datagrams $got/200, forwarded by the coprocessor $fw"
	diag "cores=$c: through the ports' FIFOs $(( $(fifo rx_fifo_frames) - fq0 )) frames, queue stops $(( $(fifo rx_fifo_stops) - st0 )), drops $(( $(fifo rx_fifo_drops) - dr0 ))"
	diag "cores=$c: core_work on CPU $c: $(cw_row "$c"); on CPU $o: $(cw_row "$o")"
	ktap_result $([ "$p" = 20 ] && [ -n "$ss" ] && [ "$sn" = "$rn" ] && [ "$ss" = "$rs" ]; echo $?) \
		"cores=$c: 20 pings pc -> far answered, 2 MB $from -> $to intact (host path)"
	ktap_result $([ "$got" = 200 ] && [ "${fw:-0}" -ge 200 ]; echo $?) \
		"cores=$c: 200 datagrams pc -> far arrive, forwarded by the fast path"
	ktap_result $([ "$(cw "$c" ingress)" -gt 0 ] && [ "$(cw "$c" tx)" -gt 0 ] &&
		[ "$(cw "$c" cmd)" -gt 0 ] && [ "$(cw "$c" timer)" -gt 0 ]; echo $?) \
		"cores=$c: ingress, transmit passes, commands and timers ran on CPU $c"
	ktap_result $([ "$(cw "$o" ingress)" = 0 ] && [ "$(cw "$o" tx)" = 0 ] &&
		[ "$(cw "$o" cmd)" = 0 ] && [ "$(cw "$o" timer)" = 0 ]; echo $?) \
		"cores=$c: none of the model's work ran on CPU $o"
	ktap_result $([ $(( $(fifo rx_fifo_frames) - fq0 )) -gt 0 ] &&
		[ "$(fifo rx_fifo_drops)" = "$dr0" ]; echo $?) \
		"cores=$c: ingress went through the ports' FIFOs, none dropped there"
}
round 1 0 pc far $FAR4 5301
round 0 1 far pc $PC4 5302

# Backpressure, as a MAC's pause: the model on CPU 1, which a real-time
# loop holds (no RT throttling meanwhile) while pc sends 1,000 datagrams
# through the fast path in a burst from CPU 0 (pc's wire with a pfifo root:
# no AQM of its own to drop what waits).  Port 3's FIFO fills to its high
# mark, the wire's queue stops and the datagrams wait in pc's qdisc; once
# the loop ends the FIFO drains and the queue starts again: all arrive.
echo 1 > $DBG/cores
rt=$(sysctl -n kernel.sched_rt_runtime_us)
ip netns exec pc tc qdisc replace dev npuw0p3 root pfifo limit 1000
st0=$(fifo rx_fifo_stops) dr0=$(fifo rx_fifo_drops)
rm -f /tmp/cores-burst.out
ip netns exec far taskset -c 0 python3 -c "
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, 33, 8 << 20)	# SO_RCVBUFFORCE: room for all
s.bind(('', 5000))
f = open('/tmp/cores-burst.out', 'w', buffering=1)
while True:
    f.write(s.recv(2048).decode() + '\\n')
" &
rpid=$!
wait_udp() { ip netns exec far ss -Hlun "sport = :5000" | grep -q .; }
for i in $(seq 50); do wait_udp && break; sleep 0.1; done
# the loop running on CPU 1 (it says so) before the first datagram
sysctl -qw kernel.sched_rt_runtime_us=-1
ip netns exec pc taskset -c 0 python3 -c "
import socket, subprocess
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, 32, 4 << 20)	# SO_SNDBUFFORCE: all of them queued
s.bind(('', 4000))
hog = subprocess.Popen(['taskset', '-c', '1', 'chrt', '-f', '10',
                        'sh', '-c', 'echo go; while :; do :; done'], stdout=subprocess.PIPE)
try:
    hog.stdout.readline()
    for i in range(1, 1001):
        s.sendto(b'burst-%d\\n' % i, ('$FAR4', 5000))
finally:
    hog.kill()
    hog.wait()
"
sysctl -qw kernel.sched_rt_runtime_us="$rt"
for i in $(seq 50); do
	[ "$(grep -c burst /tmp/cores-burst.out)" -ge 1000 ] && break
	sleep 0.2
done
kill $rpid 2>/dev/null; wait $rpid 2>/dev/null
got=$(grep -c burst /tmp/cores-burst.out)
qd=$(ip netns exec pc tc -s qdisc show dev npuw0p3 | awk '/dropped/ { sub(",", "", $7); print $7; exit }')
ip netns exec pc tc qdisc del dev npuw0p3 root
diag "burst: far received $got of 1000; port 3's wire queue stopped $(( $(fifo rx_fifo_stops) - st0 )) times, FIFO drops $(( $(fifo rx_fifo_drops) - dr0 )), pc's qdisc dropped ${qd:-?}"
ktap_result $([ "$got" = 1000 ] && [ "$(fifo rx_fifo_stops)" -gt "$st0" ] &&
	[ "$(fifo rx_fifo_drops)" = "$dr0" ]; echo $?) \
	"backpressure: the wire's queue stops at the FIFO's high mark and restarts; all 1,000 datagrams arrive"

# Every CPU again: the default's behaviour, ingress inline in the wire's
# transmit, on the sender's CPU (the pings' and far's NAPI: CPU 0).
echo 0-1 > $DBG/cores
rd=$(cat $DBG/cores)
ktap_result $([ "$rd" = 0-1 ]; echo $?) "cores=0-1 written and read back ($rd)"
cw_read W0; fq0=$(fifo rx_fifo_frames)
p=$(pings pc $FAR4)
cw_read W1
diag "cores=0-1: pings $p/20; through the FIFOs $(( $(fifo rx_fifo_frames) - fq0 )); core_work on CPU 0: $(cw_row 0); on CPU 1: $(cw_row 1)"
ktap_result $([ "$p" = 20 ] && [ "$(fifo rx_fifo_frames)" = "$fq0" ] && [ "$(cw 0 ingress)" -ge 40 ]; echo $?) \
	"cores=0-1: 20 pings answered, ingress inline on the senders' CPU 0, no frame through a FIFO"

check_fail "an empty list is refused" sh -c "echo > $DBG/cores"
check_fail "a list with no online CPU (7) is refused" sh -c "echo 7 > $DBG/cores"
ktap_result $([ "$(cat $DBG/cores)" = 0-1 ]; echo $?) "the mask is unchanged after the refusals"

# Teardown with frames waiting in port 3's FIFO: the model on CPU 1, where a
# loop at nice -20 leaves its kworkers (nice 0) about 1 % of the CPU, pc
# sending from CPU 0 all along; del_device meanwhile.
echo 1 > $DBG/cores
ip netns exec pc taskset -c 0 python3 -c "
import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
t = time.time() + 15
while time.time() < t:
    try:
        s.sendto(b'x' * 64, ('$FAR4', 6000))
    except OSError:
        pass
" &
flood=$!
f0=$(awk '$1 == "rx_fifo_frames" { print $2 }' $DBG/p3/stats)
for i in $(seq 100); do
	[ "$(awk '$1 == "rx_fifo_frames" { print $2 }' $DBG/p3/stats)" -gt $((f0 + 100)) ] && break
	sleep 0.1
done
taskset -c 1 nice -n -20 timeout 20 sh -c 'while :; do :; done' &
hog=$!
for i in $(seq 50); do
	depth=$(awk '$1 == "rx_fifo" { print $2 }' $DBG/p3/stats)
	[ "$depth" -ge 128 ] && break
	sleep 0.1
done
echo 0 > /sys/bus/npusim/del_device; rc=$?
kill $hog $flood 2>/dev/null; wait $hog $flood 2>/dev/null
msg=$(dmesg | grep 'frames waiting in its ingress FIFO dropped' | tail -1)
diag "port 3's FIFO held ${depth:-?} frames before del_device (rc $rc): ${msg:-no message}"
ktap_result $([ $rc = 0 ] && [ ! -e $DBG ] && [ -n "$msg" ]; echo $?) \
	"del_device with frames in an ingress FIFO: the device is gone, the frames dropped"
check "rmmod npuep npusim" npu_unload
ktap_finish
