#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# XDP coexistence through libxdp's dispatcher on an npuep port: a second
# program (xdp_count, loaded with xdp-loader) on port 3 before npuflowd
# starts and another after it; all of them run, in priority order (a program
# that drops a UDP port hides those frames from the programs after it and
# from no program before it); xdp-loader status lists them; npuflowd's exit
# leaves the others attached; a program attached directly (not through the
# dispatcher) makes npuflowd refuse to start, saying why, and stays.
#
# No frame is sent while a program is attached, replaced or detached: under
# TCG an attach patches kernel text (the XDP dispatcher), and a vCPU running
# that text meanwhile can die of "Oops: int3" (cross-modifying code).  Every
# send below is finished before the next attach starts.
# timeout: 300
. "$(dirname "$0")/lib.sh"
ktap_plan 12

B=$NPU_REPO/build
X=$B/selftests-bpf
OBJ=$X/xdp_count.bpf.o
[ -e "$OBJ" ] || make -C "$NPU_REPO/selftests/bpf" xdp >/dev/null 2>&1
PA=/sys/fs/bpf/t56-first PB=/sys/fs/bpf/t56-last

npu_load && npu_new 0 8 2 || { ktap_fail "setup"; ktap_finish; }
topo_pc_far 0; ktap_result $? "topology"
mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf
ip netns exec pc ping -c 1 -W 2 $FAR4 >/dev/null
ip netns exec far ping -c 1 -W 2 $PC4 >/dev/null

# progs DEV: "prio name" of each program xdp-loader status lists on DEV, in
# its order (the dispatcher's own line has no priority).
progs() { xdp-loader status "$1" 2>/dev/null | awk '$1 == "=>" { print $2, $3 }'; }
# cnt PIN: "frames dropped" of the xdp_count instance whose maps are in PIN.
cnt() { bpftool -j map dump pinned "$1/cnt" | jq -r '.[0] | (.formatted // .) | .value | "\(.frames) \(.dropped)"'; }
# drop_port PIN PORT: that instance drops UDP to PORT.
drop_port() { bpftool map update pinned "$1/cfg" key 0 0 0 0 value $(( $2 & 255 )) $(( $2 >> 8 )) 0 0; }
# send N DPORT: N datagrams pc -> far:DPORT.
send() {
	ip netns exec pc python3 - "$FAR4" "$@" <<'PY'
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(int(sys.argv[2])):
    s.sendto(b"datagram-%d" % i, (sys.argv[1], int(sys.argv[3])))
    time.sleep(0.005)
PY
}
# cand DPORT: frames of the classifier's candidate pc -> far:DPORT (0: none).
cand() {
	fm_ctl candidates --json 2>/dev/null | jq --argjson p "$1" \
		'[.[] | select(.proto == 17 and .dport == $p) | .frames] | add // 0'
}
# npuflowd's classifier alone (no flow maker); started when its log says so.
NFD_LOG=/tmp/56-npuflowd.log
nfd_start() {
	local i
	: > $NFD_LOG
	"$B/bin/npuflowd" -f -m native --no-flowmaker --pin-dir $FM_PIN --lock-file $FM_LOCK \
		"$P3" "$P8" >> $NFD_LOG 2>&1 &
	NFD=$!
	for i in $(seq 120); do
		grep -q 'classifier on 2 port' $NFD_LOG && return 0
		kill -0 $NFD 2>/dev/null || return 1
		sleep 0.5
	done
	return 1
}
"$B/bin/npuflowd" --flush --pin-dir $FM_PIN --lock-file $FM_LOCK >/dev/null 2>&1
mkdir -p $PA $PB

# ---- a program before npuflowd starts ---------------------------------------
out=$(xdp-loader load -m native -P 1 -p $PA "$P3" "$OBJ" 2>&1)
ktap_result $([ "$(progs "$P3")" = "1 xdp_count" ] &&
	xdp-loader status "$P3" | grep -q 'xdp_dispatcher.*native'; echo $?) \
	"xdp-loader: xdp_count at priority 1 on port 3, through the dispatcher, native"
[ -n "$out" ] && diag "xdp-loader: $out"
nfd_start; rc=$?
grep -E "$P3|warn|error" $NFD_LOG | sed 's/^/# npuflowd: /'
ktap_result $([ $rc = 0 ] && grep -q "$P3: attached in native mode through the dispatcher (2 program(s))" $NFD_LOG; echo $?) \
	"npuflowd joins it through the dispatcher (2 programs on port 3)"
ktap_result $([ "$(progs "$P3" | tr '\n' ' ')" = "1 xdp_count 5 npuflow_classify " ]; echo $?) \
	"xdp-loader status: xdp_count (1), then npuflow_classify (5)"

drop_port $PA 7000
a0=$(cnt $PA)
send 50 7000
a1=$(cnt $PA)
diag "xdp_count first: $a0 -> $a1 (frames dropped); classifier's candidate for 7000: $(cand 7000) frames"
ktap_result $([ $(( ${a1% *} - ${a0% *} )) -ge 50 ] && [ $(( ${a1#* } - ${a0#* } )) = 50 ] &&
	[ "$(cand 7000)" = 0 ]; echo $?) \
	"priority 1 runs first: its 50 drops never reach the classifier"

# ---- a program after npuflowd started --------------------------------------
out=$(xdp-loader load -m native -P 10 -p $PB "$P3" "$OBJ" 2>&1)
[ -n "$out" ] && diag "xdp-loader: $out"
ktap_result $([ "$(progs "$P3" | tr '\n' ' ')" = "1 xdp_count 5 npuflow_classify 10 xdp_count " ]; echo $?) \
	"a third program at priority 10 joins with npuflowd running: status lists 1, 5, 10"
drop_port $PB 7001
a0=$(cnt $PA) b0=$(cnt $PB)
send 50 7001; send 30 7002
a1=$(cnt $PA) b1=$(cnt $PB)
diag "first $a0 -> $a1, last $b0 -> $b1; classifier: 7001 $(cand 7001) frames, 7002 $(cand 7002)"
ktap_result $([ $(( ${a1% *} - ${a0% *} )) -ge 80 ] && [ $(( ${a1#* } - ${a0#* } )) = 0 ] &&
	[ "$(cand 7001)" = 50 ] && [ "$(cand 7002)" = 30 ] &&
	[ $(( ${b1% *} - ${b0% *} )) -ge 80 ] && [ $(( ${b1#* } - ${b0#* } )) = 50 ]; echo $?) \
	"all three run, in order: the classifier counts the 50 frames priority 10 then drops"

# ---- npuflowd's exit leaves the others ---------------------------------------
kill -TERM $NFD; wait $NFD; rc=$?
ktap_result $([ $rc = 0 ] && [ "$(progs "$P3" | tr '\n' ' ')" = "1 xdp_count 10 xdp_count " ] &&
	[ -z "$(progs "$P8")" ]; echo $?) \
	"npuflowd exits 0 and leaves port 3's two other programs attached (rc $rc)"
a0=$(cnt $PA)
send 20 7000
a1=$(cnt $PA)
ktap_result $([ $(( ${a1#* } - ${a0#* } )) = 20 ]; echo $?) "they still run: 20 more drops ($a0 -> $a1)"
xdp-loader unload "$P3" --all
ktap_result $([ -z "$(ip -d link show dev "$P3" | grep -o 'prog/xdp.*')" ]; echo $?) \
	"xdp-loader unload --all leaves port 3 without XDP"

# ---- a program attached directly: npuflowd refuses, it stays -----------------
ip link set dev "$P3" xdpdrv obj "$OBJ" sec xdp
id0=$(ip -j -d link show dev "$P3" | jq '.[0].xdp.prog.id // .[0].xdp.attached[0].prog.id // 0')
nfd_start; rc=$?
[ $rc = 0 ] && { kill -TERM $NFD; wait $NFD; }
wait $NFD 2>/dev/null; rc2=$?
grep -E "error|warn" $NFD_LOG | sed 's/^/# npuflowd: /'
id1=$(ip -j -d link show dev "$P3" | jq '.[0].xdp.prog.id // .[0].xdp.attached[0].prog.id // 0')
ktap_result $([ $rc = 1 ] && [ $rc2 = 1 ] && grep -q "$P3: .*attached directly, not through the libxdp dispatcher" $NFD_LOG; echo $?) \
	"npuflowd refuses a port with a program attached directly, exit 1, and says so"
ktap_result $([ "$id0" != 0 ] && [ "$id1" = "$id0" ] && [ -z "$(progs "$P8")" ] &&
	! ip -d link show dev "$P8" | grep -q 'prog/xdp'; echo $?) \
	"the direct program stays (id $id0, now $id1); npuflowd left nothing on port 8"
ip link set dev "$P3" xdpdrv off
rm -rf $PA $PB /sys/fs/bpf/xdp/globals/cnt /sys/fs/bpf/xdp/globals/cfg
"$B/bin/npuflowd" --flush --pin-dir $FM_PIN --lock-file $FM_LOCK >/dev/null 2>&1
ktap_finish
