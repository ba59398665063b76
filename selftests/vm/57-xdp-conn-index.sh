#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The connection index in the XDP metadata, end to end: two UDP flows in
# hardware (tc flower skip_sw on port 3), one given back by the model with
# devlink revive off.  Its frames reach a program attached to port 3
# (xdp_meta_rec, which reads data_meta and counts frames per reason and
# index) with reason not_active and the index the driver's table holds for
# that connection (the devlink region flow-table), and no other frame
# carries an index; the other flow stays in hardware.
# timeout: 300
. "$(dirname "$0")/lib.sh"
ktap_plan 8

X=$NPU_REPO/build/selftests-bpf
[ -e "$X/xdp_meta_rec.bpf.o" ] || make -C "$NPU_REPO/selftests/bpf" xdp >/dev/null 2>&1
DL=auxiliary/npusim.npu.0
DBG=/sys/kernel/debug/npusim/0

npu_load && npu_new 0 8 2 || { ktap_fail "setup"; ktap_finish; }
topo_pc_far 0; ktap_result $? "topology"
flower_ports
ip netns exec pc ping -c 1 -W 2 $FAR4 >/dev/null

# flow SPORT DPORT: pc:SPORT -> far:DPORT in hardware, routed.
flow() {
	tc filter add dev "$P3" ingress protocol ip prio 1 flower skip_sw \
		ip_proto udp src_ip $PC4 dst_ip $FAR4 src_port "$1" dst_port "$2" \
		action pedit ex munge eth dst set "$farmac" munge eth src set "$(mac "$P8")" \
		munge ip ttl add 255 pipe action csum ip udp pipe \
		action mirred egress redirect dev "$P8"
}
# send N SPORT DPORT: N datagrams pc:SPORT -> far:DPORT, one at a time.
send() {
	ip netns exec pc python3 - "$FAR4" "$@" <<'PY'
import socket, sys, time
addr, n, sport, dport = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("", sport))
for i in range(n):
    s.sendto(b"datagram-%d" % i, (addr, dport))
    time.sleep(0.005)
PY
}
# region: "index state packets0" of each used entry of the driver's table
# (struct npu_conn_stat, 48 bytes: conn le32, rev le16, state, giveback,
# packets[2] le64, ...), the first 16 entries.
le() { local h=$1 o=$2 n=$3 v="" i; for ((i = n - 1; i >= 0; i--)); do v+=${h:$(( (o + i) * 2 )):2}; done; echo $((16#${v:-0})); }
region() {
	local hex i
	devlink region new $DL/flow-table snapshot 57 >/dev/null || return 1
	hex=$(devlink region read $DL/flow-table snapshot 57 address 0 length $((16 * 48)) |
		cut -d' ' -f2- | tr -d ' \n')
	devlink region del $DL/flow-table snapshot 57
	for i in $(seq 0 15); do
		[ "$(le "$hex" $((i * 48 + 4)) 2)" -ge 1 ] || continue
		echo "$(le "$hex" $((i * 48)) 4) $(le "$hex" $((i * 48 + 6)) 1) $(le "$hex" $((i * 48 + 8)) 8)"
	done
}
# recs: the program's map as "reason conn frames" lines.
recs() {
	local id
	id=$(bpftool -j map show name meta_recs | jq -r 'if type == "array" then .[0].id else .id end')
	bpftool -j map dump id "$id" | jq -r '.[] | (.formatted // .) | "\(.key.reason) \(.key.conn) \(.value)"'
}

flow 4000 5000 && flow 4001 5001
ktap_result $? "two UDP flows offloaded (flower skip_sw on port 3)"
# Attached with nothing flowing: under TCG an attach patches kernel text
# (the XDP dispatcher), and a vCPU running that text meanwhile can die of
# "Oops: int3" (cross-modifying code).  The sends below start after it.
check "xdp_meta_rec attached natively to port 3" \
	ip link set dev "$P3" xdpdrv obj "$X/xdp_meta_rec.bpf.o" sec xdp
send 30 4000 5000; send 50 4001 5001
sleep 2.5	# the driver reads the connections' statistics every second
reg=$(region)
diag "the driver's table (index state packets): $(echo "$reg" | tr '\n' ';')"
ia=$(echo "$reg" | awk '$3 == 30 { print $1 }'); ib=$(echo "$reg" | awk '$3 == 50 { print $1 }')
ktap_result $([ -n "$ia" ] && [ -n "$ib" ] && [ "$ia" != "$ib" ]; echo $?) \
	"the region holds both connections: 30 frames at index ${ia:-?}, 50 at ${ib:-?}"

# Give back the second flow's connection; nothing revives it, and its
# microflows stay (they would expire after fp_expire_ms, 3 s, and its frames
# then miss: flow_miss, no index).
devlink dev param set $DL name revive value false cmode runtime
echo 60000 > $DBG/fp_expire_ms
echo "$ib" > $DBG/fp_giveback
na0=$(eth_stat "$P3" hw_punt_not_active); rna0=$(eth_stat "$P3" rx_punt_not_active)
fw0=$(eth_stat "$P3" hw_fwd_frames)
ip netns exec far socat -u UDP-RECV:5001 OPEN:/tmp/57-far.out,create,trunc &
rpid=$!
sleep 1
send 40 4000 5000; send 70 4001 5001
sleep 1
kill $rpid 2>/dev/null; wait $rpid 2>/dev/null
na=$(( $(eth_stat "$P3" hw_punt_not_active) - na0 )); rna=$(( $(eth_stat "$P3" rx_punt_not_active) - rna0 ))
fw=$(( $(eth_stat "$P3" hw_fwd_frames) - fw0 ))
sleep 1.5
reg2=$(region)
diag "after the give-back: punted not_active $na (driver $rna), forwarded $fw; table: $(echo "$reg2" | tr '\n' ';')"
ktap_result $([ "$na" = 70 ] && [ "$rna" = 70 ] && [ "$fw" -ge 40 ]; echo $?) \
	"the given-back flow's 70 frames punted not_active, the other's 40 forwarded"
ktap_result $(echo "$reg2" | awk -v b="$ib" -v a="$ia" '$1 == b && $2 == 2 { nb++ } $1 == a && $2 == 1 { na++ } END { exit !(nb == 1 && na == 1) }'; echo $?) \
	"the driver's table: index $ib not active (state 2), index $ia valid"

sleep 0.5
rec=$(recs)
diag "the program's records (reason conn frames): $(echo "$rec" | tr '\n' ';')"
nab=$(echo "$rec" | awk -v b="$ib" '$1 == 2 && $2 == b { print $3 }')
ktap_result $([ "${nab:-0}" = 70 ]; echo $?) \
	"the program read reason not_active and index $ib in data_meta, 70 frames"
ktap_result $(echo "$rec" | awk -v b="$ib" '$2 != 4294967295 && !($1 == 2 && $2 == b) { bad++ } $1 == 255 { bad++ } END { exit bad > 0 }'; echo $?) \
	"no other frame carried a connection index; every frame had the metadata"
ip link set dev "$P3" xdpdrv off
devlink dev param set $DL name revive value true cmode runtime
echo 3000 > $DBG/fp_expire_ms
ktap_finish
