#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Native XDP on npuep ports with real traffic ("pc" on the wire of port 3,
# "far" on port 8, the host routing between them).  Every attach is xdpdrv
# and asserted native ("xdp", never "xdpgeneric"):
#   XDP_DROP, XDP_ABORTED (traced), XDP_TX (ICMP echo answered in XDP),
#   XDP_REDIRECT port 3 -> port 8 (devmap, the far side sees pc's frames;
#   ndo_xdp_xmit of port 8), to a cpumap and to a veth, the rx hash kfunc
#   in a device-bound program (libbpf, prog ifindex), npuflowd natively on
#   ports 3 and 8 under iperf3 (candidates of both directions, metadata:
#   reason and port), attach/replace/detach rounds (never under traffic:
#   TCG, see there), ethtool -G/-L with
#   a program attached, the per-queue XDP counters, the MTU and XDP refusing
#   each other above one page.
# timeout: 600
. "$(dirname "$0")/lib.sh"
ktap_plan 28

B=$NPU_REPO/build
X=$B/selftests-bpf
if [ ! -x "$X/xdp_hash_load" ] || [ ! -e "$X/xdp_pass.bpf.o" ]; then
	make -C "$NPU_REPO/selftests/bpf" xdp >/dev/null 2>&1
fi

npu_load && npu_new 0 8 2 || { ktap_fail "setup"; ktap_finish; }
topo_pc_far 0; ktap_result $? "topology pc <-> host <-> far"
WIRE3=$(npu_wire 0 3) WIRE8=$(npu_wire 0 8)

# xdp_attach DEV OBJ: native attach (replaces), then assert native mode.
xdp_attach() {
	ip -force link set dev "$1" xdpdrv obj "$2" sec xdp || return 1
	xdp_native "$1"
}
xdp_native() {
	local l
	l=$(ip -d link show dev "$1")
	echo "$l" | grep -q 'xdpgeneric' && { diag "$1: generic XDP"; return 1; }
	echo "$l" | grep -qE '(^| )xdp( |/)|prog/xdp id' || { diag "$1: no native XDP: $l"; return 1; }
}
xdp_detach() { ip link set dev "$1" xdpdrv off; }
ping_pc() { ip netns exec pc ping -c "$1" -i 0.1 -W 2 "$2" >/dev/null 2>&1; }
# a /proc/net/snmp counter: snmp Icmp InEchos
snmp() { awk -v t="$1:" -v k="$2" '$1 == t { if (!h) { for (i = 2; i <= NF; i++) c[$i] = i; h = 1 } else print $c[k] }' /proc/net/snmp; }
le32() { printf '%d %d %d %d' $(($1 & 255)) $(($1 >> 8 & 255)) $(($1 >> 16 & 255)) $(($1 >> 24 & 255)); }

check "ping pc -> port 3 without a program" ping_pc 3 $H3_4

# --- the counters exist ------------------------------------------------------
names=$(ethtool -S "$P3" | awk '{ sub(":$", "", $1); print $1 }')
missing=
for n in rx_q0_xdp_pass rx_q0_xdp_drop rx_q0_xdp_tx rx_q0_xdp_redirect rx_q0_xdp_aborted \
	 rx_q0_xdp_tx_errors rx_q0_xdp_redirect_errors tx_q0_xdp_xmit tx_q1_xdp_xmit_errors; do
	echo "$names" | grep -qx "$n" || missing="$missing $n"
done
[ -z "$missing" ] || diag "missing:$missing"
ktap_result $([ -z "$missing" ]; echo $?) "ethtool -S per-queue XDP counters"

# --- XDP_DROP ----------------------------------------------------------------
d0=$(eth_sum "$P3" '^rx_q[0-9]+_xdp_drop$')
check "XDP_DROP attached natively" xdp_attach "$P3" "$X/xdp_drop.bpf.o"
check_fail "XDP_DROP: ping pc -> port 3 fails" ping_pc 5 $H3_4
d=$(( $(eth_sum "$P3" '^rx_q[0-9]+_xdp_drop$') - d0 ))
diag "xdp_drop +$d"
ktap_result $([ "$d" -ge 5 ]; echo $?) "XDP_DROP counted (rx_qN_xdp_drop)"

# --- XDP_ABORTED -------------------------------------------------------------
T=/sys/kernel/tracing
[ -d $T/events ] || mount -t tracefs tracefs $T 2>/dev/null
echo > $T/trace
echo 1 > $T/events/xdp/xdp_exception/enable
a0=$(eth_sum "$P3" '^rx_q[0-9]+_xdp_aborted$')
xdp_attach "$P3" "$X/xdp_abort.bpf.o" && ! ping_pc 3 $H3_4
rc=$?
echo 0 > $T/events/xdp/xdp_exception/enable
a=$(( $(eth_sum "$P3" '^rx_q[0-9]+_xdp_aborted$') - a0 ))
tr=$(grep -cE "xdp_exception: prog_id=[0-9]+ action=ABORTED ifindex=$(cat /sys/class/net/$P3/ifindex)\b" $T/trace)
diag "xdp_aborted +$a, xdp_exception events $tr"
ktap_result $([ $rc = 0 ] && [ "$a" -ge 3 ] && [ "$tr" -ge 3 ]; echo $?) \
	"XDP_ABORTED drops, counted and traced (xdp:xdp_exception)"

# --- XDP_TX ------------------------------------------------------------------
t0=$(eth_sum "$P3" '^rx_q[0-9]+_xdp_tx$')
e0=$(snmp Icmp InEchos)
xdp_attach "$P3" "$X/xdp_echo.bpf.o" && ping_pc 20 $H3_4
rc=$?
t=$(( $(eth_sum "$P3" '^rx_q[0-9]+_xdp_tx$') - t0 ))
e=$(( $(snmp Icmp InEchos) - e0 ))
diag "xdp_tx +$t, echo requests seen by the host stack +$e"
ktap_result $([ $rc = 0 ] && [ "$t" -ge 20 ] && [ "$e" -le 2 ]; echo $?) \
	"XDP_TX: pc's pings answered in XDP out of port 3"

# --- ring resize and queue count with a program attached --------------------
ok=0
ethtool -G "$P3" rx 512 tx 512 && ping_pc 10 $H3_4 || ok=1
ethtool -L "$P3" combined 1 && ping_pc 10 $H3_4 || ok=1
xdp_native "$P3" || ok=1
ethtool -G "$P3" rx 1024 tx 1024; ethtool -L "$P3" combined 2
ping_pc 5 $H3_4 || ok=1
ktap_result $ok "ethtool -G / -L with XDP_TX attached: still native and answering"

# --- MTU ---------------------------------------------------------------------
# Jumbo MTUs get multi-page receive buffers; XDP keeps one page per frame (no
# multi-buffer XDP), so each side refuses what would break the other.
ok=1
if ! ip link set dev "$P3" mtu 9000 2>/dev/null; then
	msg=$(dmesg | grep "$P3: MTU 9000 refused with an XDP program attached" | tail -1)
	diag "kernel log: ${msg#*] }"
	[ -n "$msg" ] && [ "$(cat /sys/class/net/$P3/mtu)" = 1500 ] && ok=0
fi
ktap_result $ok "MTU 9000 refused with a program attached, reason in the kernel log"
xdp_detach "$P3"
ok=1
if ip link set dev "$P3" mtu 9000; then
	out=$(ip link set dev "$P3" xdpdrv obj "$X/xdp_pass.bpf.o" sec xdp 2>&1) && out=
	echo "$out" | sed 's/^/# ip: /'
	echo "$out" | grep -q 'npuep: MTU 9000 too large for XDP' &&
		! ip link show dev "$P3" | grep -q 'xdp' && ok=0
fi
xmax=$(echo "$out" | sed -n 's/.* hold MTU \([0-9]*\) at most.*/\1/p')
ktap_result $ok "attach at MTU 9000 refused with an extack message"
ok=1
ip link set dev "$P3" mtu 1500 && xdp_attach "$P3" "$X/xdp_echo.bpf.o" && ping_pc 5 $H3_4 && ok=0
ktap_result $ok "MTU 1500 again: the program attaches (native) and answers"
ok=1
if [ -n "$xmax" ] && ip link set dev "$P3" mtu "$xmax" && ping_pc 3 $H3_4; then
	ip link set dev "$P3" mtu $((xmax + 1)) 2>/dev/null || ok=0
fi
ip link set dev "$P3" mtu 1500
ktap_result $ok "with a program: MTU ${xmax:-?} (one page) accepted, $((${xmax:-0} + 1)) refused"
xdp_detach "$P3"
check "detached: ping pc -> port 3 through the stack again" ping_pc 3 $H3_4

# --- XDP_REDIRECT port 3 -> port 8 (devmap) -----------------------------------
ip netns exec pc ping -c 1 -W 2 $FAR4 >/dev/null 2>&1	# neighbours resolved
f0=$(link_stat -n far "$WIRE8" rx_packets)
x0=$(eth_sum "$P8" '^tx_q[0-9]+_xdp_xmit$')
r0=$(eth_sum "$P3" '^rx_q[0-9]+_xdp_redirect$')
ok=1
if xdp_attach "$P3" "$X/xdp_redir.bpf.o" &&
   bpftool map update name redir_dev key 0 0 0 0 value $(le32 "$(cat /sys/class/net/$P8/ifindex)"); then
	ip netns exec pc ping -c 30 -i 0.05 -W 1 $FAR4 >/dev/null 2>&1
	ok=0
fi
f=$(( $(link_stat -n far "$WIRE8" rx_packets) - f0 ))
x=$(( $(eth_sum "$P8" '^tx_q[0-9]+_xdp_xmit$') - x0 ))
r=$(( $(eth_sum "$P3" '^rx_q[0-9]+_xdp_redirect$') - r0 ))
diag "port 3 xdp_redirect +$r, port 8 tx xdp_xmit +$x, far's wire rx +$f"
ktap_result $([ $ok = 0 ] && [ "$r" -ge 30 ] && [ "$x" -ge 30 ] && [ "$f" -ge 30 ]; echo $?) \
	"XDP_REDIRECT port 3 -> port 8 (devmap, ndo_xdp_xmit): pc's frames on far's wire"
xdp_detach "$P3"

# --- XDP_REDIRECT to a cpumap ---------------------------------------------------
r0=$(eth_sum "$P3" '^rx_q[0-9]+_xdp_redirect$')
ok=1
if xdp_attach "$P3" "$X/xdp_cpu.bpf.o" &&
   bpftool map update name redir_cpu key 0 0 0 0 value 192 0 0 0 0 0 0 0; then
	ping_pc 10 $H3_4 && ok=0
fi
r=$(( $(eth_sum "$P3" '^rx_q[0-9]+_xdp_redirect$') - r0 ))
diag "cpumap: xdp_redirect +$r"
ktap_result $([ $ok = 0 ] && [ "$r" -ge 10 ]; echo $?) "XDP_REDIRECT to a cpumap: the stack still answers pc"
xdp_detach "$P3"

# --- XDP_REDIRECT to a veth ------------------------------------------------------
ip netns add vn
ip link add vx0 type veth peer name vx1 netns vn
ip link set vx0 up
ip -n vn link set vx1 up
ip netns exec vn ethtool -K vx1 gro on >/dev/null 2>&1	# veth takes XDP frames with NAPI on
v0=$(link_stat -n vn vx1 rx_packets)
ok=1
if xdp_attach "$P3" "$X/xdp_redir.bpf.o" &&
   bpftool map update name redir_dev key 0 0 0 0 value $(le32 "$(cat /sys/class/net/vx0/ifindex)"); then
	ip netns exec pc ping -c 20 -i 0.05 -W 1 $FAR4 >/dev/null 2>&1
	ok=0
fi
v=$(( $(link_stat -n vn vx1 rx_packets) - v0 ))
diag "veth peer rx +$v"
ktap_result $([ $ok = 0 ] && [ "$v" -ge 20 ]; echo $?) "XDP_REDIRECT port 3 -> veth"
xdp_detach "$P3"
ip link del vx0
ip netns del vn

# --- the rx metadata kfuncs, device-bound ---------------------------------------
check_fail "kfunc program refused when not device-bound (ip link)" \
	ip link set dev "$P3" xdpdrv obj "$X/xdp_hash.bpf.o" sec xdp
iperf_server far
out=$(mktemp)
# The stream runs only between the attach and the detach (12 s after it):
# see "attach / replace / detach" below for why.
"$X/xdp_hash_load" "$X/xdp_hash.bpf.o" "$P3" 12 > "$out" 2>&1 &
lpid=$!
for i in $(seq 40); do ip -d link show dev "$P3" | grep -q 'prog/xdp' && break; sleep 0.25; done
ip netns exec pc iperf3 -c $FAR4 -t 3 >/dev/null 2>&1
wait $lpid
rc=$?
sed 's/^/# /' "$out"
kv() { tr ' ' '\n' < "$out" | sed -n "s/^$1=//p"; }
ktap_result $([ $rc = 0 ] && [ "$(kv hash_nonzero)" -gt 10 ] &&
	[ "$(kv hash_meta_match)" = "$(kv hash_ok)" ]; echo $?) \
	"bpf_xdp_metadata_rx_hash (device-bound, native): non-zero, equal to the npuflow_meta hash"
ktap_result $([ $rc = 0 ] && [ "$(kv vlan_nodata)" -gt 0 ]; echo $?) \
	"bpf_xdp_metadata_rx_vlan_tag: -ENODATA for untagged frames"
rm -f "$out"

# --- npuflowd natively on ports 3 and 8 under iperf3 ---------------------------
P3I=$(cat /sys/class/net/$P3/ifindex) P8I=$(cat /sys/class/net/$P8/ifindex)
"$B/bin/npuflowd" --flush >/dev/null 2>&1
"$B/bin/npuflowd" -f -m native --no-flowmaker "$P3" "$P8" > /tmp/55-npuflowd.log 2>&1 &
dpid=$!
native=1
for i in $(seq 60); do	# loading and verifying take a while under TCG
	ip -d link show dev "$P8" | grep -q 'prog/xdp' && { native=0; break; }
	sleep 0.5
done
[ $native = 0 ] && { xdp_native "$P3" && xdp_native "$P8" || native=1; }
iperf_server far
ip netns exec pc iperf3 -c $FAR4 -t 8 >/dev/null 2>&1 &
ipid=$!
sleep 5
cj=$("$B/bin/npuctl" candidates --json 2>&1)
wait $ipid
bpftool map dump pinned /sys/fs/bpf/npuflow/candidates > /tmp/55-cand.txt 2>&1
dump_rc=$?
# After the stream: port 3's candidate frames as npuctl reads them (the map
# plus the per-CPU cache) equal the frames the counters recorded as
# candidates there (no flow maker: nothing deleted).  A snapshot between two
# equal counter reads: ND/MLD frames may come any time.
for i in 1 2 3 4 5; do
	s1=$("$B/bin/npuctl" stats --json 2>/dev/null)
	cj2=$("$B/bin/npuctl" candidates --json 2>/dev/null)
	s2=$("$B/bin/npuctl" stats --json 2>/dev/null)
	[ "$s1" = "$s2" ] && break
	sleep 0.2
done
cstat=$(echo "$s1" | jq --arg d "$P3" '[.[] | select(.ifname == $d) | .stats.candidate] | add' 2>/dev/null)
# the per-CPU candidate cache took some of them (npuep gives the hash)
ccache=$(echo "$s1" | jq --arg d "$P3" '[.[] | select(.ifname == $d) | .stats.cached] | add' 2>/dev/null)
cfold=$(echo "$cj2" | jq --argjson i "$P3I" \
	'[(if type == "array" then . else .candidates end) | .[] | select(.ifindex == $i) | .frames] | add' 2>/dev/null)
craw=$(bpftool -j map dump pinned /sys/fs/bpf/npuflow/candidates 2>/dev/null | jq --argjson i "$P3I" \
	'[.[] | (.formatted // .) | select(.key.ifindex == $i) | .value.frames] | add' 2>/dev/null)
diag "port 3: counters $cstat candidate frames, npuctl $cfold, the map alone $craw"
ktap_result $([ "${ccache:-0}" != null ] && [ "${ccache:-0}" -gt 0 ] &&
	[ "${cstat:-0}" != null ] && [ "$ccache" -lt "$cstat" ]; echo $?) \
	"port 3: the per-CPU candidate cache took $ccache of the $cstat candidate frames"
ktap_result $([ -n "$cstat" ] && [ "$cstat" != null ] && [ "$cstat" = "$cfold" ]; echo $?) \
	"port 3: npuctl's candidate frames (map + per-CPU cache) = the counters' ($cstat)"
kill -TERM $dpid
wait $dpid
ktap_result $native "npuflowd attached natively to ports 3 and 8"
# pc -> far data enters port 3, the ACKs far -> pc enter port 8.
sel() {
	echo "$cj" | jq -c --argjson i "$1" --arg s "$2" --argjson p "$3" \
		'(if type == "array" then . else .candidates end) | .[] |
		 select(.ifindex == $i and .proto == 6 and .saddr == $s and .port == $p)' 2>/dev/null | head -1
}
c3=$(sel "$P3I" $PC4 3) c8=$(sel "$P8I" $FAR4 8)
diag "port 3: $c3"
diag "port 8: $c8"
ktap_result $([ -n "$c3" ] && [ -n "$c8" ] &&
	[ "$(echo "$c3" | jq .frames)" -gt 100 ] && [ "$(echo "$c8" | jq .frames)" -gt 100 ]; echo $?) \
	"candidates for both directions (pc -> far at port 3, far -> pc at port 8)"
ktap_result $([ "$(echo "$c3" | jq -r .reason)" = flow_miss ] &&
	[ "$(echo "$c8" | jq -r .reason)" = flow_miss ]; echo $?) \
	"metadata reached the classifier: last punt reason flow_miss, ports 3 and 8"
ktap_result $([ $dump_rc = 0 ] && grep -q '"frames"' /tmp/55-cand.txt; echo $?) \
	"bpftool map dump pinned /sys/fs/bpf/npuflow/candidates"
"$B/bin/npuflowd" --flush >/dev/null 2>&1

# --- attach / replace / detach between frames --------------------------------------
# No frame crosses the ports while a program is attached, replaced or
# detached: under TCG an attach patches kernel text (the XDP dispatcher's
# call site), and a vCPU running that text meanwhile can die of
# "Oops: int3" (cross-modifying code).  So the ports are idle at each
# change, and a ping after it shows the datapath carries on; the stream
# runs after the rounds.
ok=0
for i in 1 2 3 4 5; do
	xdp_attach "$P3" "$X/xdp_pass.bpf.o" && xdp_attach "$P8" "$X/xdp_echo.bpf.o" &&
		ping_pc 2 $FAR4 || ok=1
	xdp_attach "$P3" "$X/xdp_echo.bpf.o" && xdp_attach "$P8" "$X/xdp_pass.bpf.o" &&
		ping_pc 2 $FAR4 || ok=1
	xdp_detach "$P3" && xdp_detach "$P8" && ping_pc 2 $FAR4 || ok=1
done
iperf_server far
bps=$(iperf_bps pc $FAR4 4)
diag "iperf3 after 5 attach/replace/detach rounds: ${bps:-0} bit/s"
ktap_result $([ $ok = 0 ] && [ "${bps:-0}" -gt 1000000 ]; echo $?) \
	"attach/replace/detach on ports 3 and 8, 5 rounds, pinging after each; iperf3 after them"
check "ping pc -> far after the rounds" ip netns exec pc ping -c 3 -i 0.2 -W 2 $FAR4
ktap_finish
