#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# npuflowd on veth, natively (no VM): netns npft-a and npft-b talk through a
# router netns npft-r; npuflowd runs in npft-r (network namespace only)
# attached in native mode to both router ports, so each direction of a
# connection is seen at its ingress.  The script runs in a mount namespace of
# its own with no BPF file system at /sys/fs/bpf, as on a fresh machine:
# npuctl says what is missing and mounts nothing, npuflowd mounts bpffs
# there (and says so), and the machine's /sys/fs/bpf stays as it was.
# Pings (v4, v6) and a TCP transfer, then npuctl candidates and bpftool map
# dump must show both directions with the right counts; a second instance is
# refused; SIGTERM, SIGINT, SIGHUP and SIGQUIT each leave no XDP program; a
# restart reuses the pinned maps; under a service manager it sends READY=1,
# WATCHDOG=1 keepalives and STOPPING=1; a start that fails after pinning
# leaves what it found (no bpffs it mounted, no pin directory it made; a
# pinned set's maps kept, only those it pinned removed); without -f it exits
# 1 when it cannot attach and 0 once attached (then runs as a daemon);
# npuctl, built with ASan and UBSan, lists 1,500 candidates and a connections
# map exactly once each while entries go under it; a pin directory that is a
# symlink or another user's is refused (by --flush too); --flush removes the
# pins.  Prints TAP.
#
# Usage: veth-npuflowd.sh [BUILD_DIR]     (root; cleans up after itself)
set -u
SRC=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:-$SRC/build}
BIN=$BUILD/bin
PIN=/sys/fs/bpf/npuflow
A=npft-a B=npft-b R=npft-r
NR="nsenter --net=/run/netns/$R"
DPID=
. "$SRC/selftests/lib/tap.sh"

if [ "$(id -u)" != 0 ]; then
	echo "TAP version 13"
	echo "1..0 # SKIP needs root"
	exit 4
fi
# One run at a time on a machine: the namespaces' names are fixed, and a
# second run deletes the first's (/run/netns is shared by every mount
# namespace).  The lock is held by the run's processes, inherited.
if [ -z "${NPFT_OUTER:-}" ]; then
	exec 9>/run/npft-veth.lock
	if ! flock -w 900 9; then
		echo "TAP version 13"
		echo "1..0 # SKIP another veth-npuflowd.sh kept running for 15 minutes"
		exit 4
	fi
fi
# Into a mount namespace of its own, remembering the machine's /sys/fs/bpf
# (its mounts, as the calling process sees them) to compare at the end.
if [ -z "${NPFT_OUTER:-}" ]; then
	NPFT_OUTER=$$ NPFT_OUTER_MNT=$(grep -c ' /sys/fs/bpf ' /proc/self/mountinfo) \
		unshare -m --propagation private "$0" "$@"
	exit $?
fi
# a fresh machine: no BPF file system at /sys/fs/bpf (stacked ones too)
while [ "$(stat -f -c %T /sys/fs/bpf)" = bpf_fs ]; do umount /sys/fs/bpf || break; done
LOG=$(mktemp -t npft-npuflowd.XXXXXX)
WORK=$(mktemp -d -t npft-work.XXXXXX)

# the results (selftests/lib/tap.sh)
ok() { tap_result 0 "$1"; }
nok() { tap_fail "$@"; }
check() { tap_check "$@"; }

cleanup() {
	[ -n "$DPID" ] && kill -TERM "$DPID" 2>/dev/null && wait "$DPID" 2>/dev/null
	[ -n "${SPID:-}" ] && kill "$SPID" 2>/dev/null
	ip netns del $A 2>/dev/null
	ip netns del $B 2>/dev/null
	ip netns del $R 2>/dev/null
	rm -f "$LOG" "$LOG.2" "$LOG.3" "$LOG.json" "$LOG.json.s" "$LOG.json.s2"
	rm -rf "$WORK"
}
trap cleanup EXIT
[ -n "${NPFT_KEEP:-}" ] && trap - EXIT

echo "TAP version 13"
if ! flock -n /run/npuflowd.lock true 2>/dev/null; then
	echo "1..0 # SKIP an npuflowd is running on this machine"
	exit 4
fi
for ns in $A $B $R; do ip netns del $ns 2>/dev/null; done

# --- topology ---------------------------------------------------------------
set -e
. "$SRC/tools/lib/topo.sh"
topo_veth $A $R $B pc4=10.211.1 far4=10.211.2 pc6=fd00:211:1 far6=fd00:211:2 devs=a0,ra,b0,rb
set +e
# neighbours resolved before the daemon starts: no ARP/ND in the counts below
for i in 1 2 3 4 5; do
	ip netns exec $A ping -c1 -W1 10.211.2.2 >/dev/null &&
		ip netns exec $A ping -6 -c1 -W1 fd00:211:2::2 >/dev/null && break
	sleep 0.5
done
echo "1..59"

start_daemon() { # log, extra args...
	local log=$1 i
	shift
	# The loader half only: the flow maker would re-arm (delete) candidates
	# it watched and refused (ICMP here), which races with the dumps below.
	$NR "$BIN/npuflowd" -f -t 3 --no-flowmaker "$@" ra rb >"$log" 2>&1 &
	DPID=$!
	for i in $(seq 1 50); do
		grep -q "classifier on 2 port" "$log" && return 0
		kill -0 $DPID 2>/dev/null || return 1
		sleep 0.2
	done
	return 1
}

stop_daemon() {
	kill -TERM "$DPID" 2>/dev/null
	wait "$DPID"
	local rc=$?
	DPID=
	return $rc
}

bpffs() { [ "$(stat -f -c %T /sys/fs/bpf)" = bpf_fs ]; }
# rc $1 is $2, and the text $3 has $4 in it
rc_says() { [ "$1" = "$2" ] && [[ "$3" == *"$4"* ]]; }

# --- no BPF file system: npuctl says so, --flush has nothing to remove -----------
"$BIN/npuflowd" --flush >"$LOG.3" 2>&1; rc=$?
! bpffs; e=$?
check "--flush with no BPF file system: exit 0, mounts nothing (rc $rc)" test $rc$e = 00
out=$($NR "$BIN/npuctl" candidates 2>&1); rc=$?
rc_says $rc 1 "$out" "no BPF file system at /sys/fs/bpf: is npuflowd running?" && ! bpffs; e=$?
check "npuctl candidates with no BPF file system: says so, exit 1, mounts nothing (rc $rc: $out)" \
	test $e = 0
out=$($NR "$BIN/npuctl" status 2>&1); rc=$?
rc_says $rc 3 "$out" "npuflowd not running (no BPF file system at /sys/fs/bpf"; e=$?
check "npuctl status with no BPF file system: 'not running', exit 3 (rc $rc: $out)" test $e = 0

# --- unprivileged: npuflowd refuses before it touches anything -----------------
NOBODY="setpriv --reuid=65534 --regid=65534 --clear-groups"
out=$($NR $NOBODY "$BIN/npuflowd" -f ra rb 2>&1); rc=$?
rc_says $rc 1 "$out" "needs CAP_NET_ADMIN and CAP_BPF (or CAP_SYS_ADMIN): run it as root" &&
	! bpffs && ! ip -n $R link show ra | grep -q xdp; e=$?
check "unprivileged npuflowd: 'run it as root', exit 1, mounts and attaches nothing (rc $rc: $out)" \
	test $e = 0

if start_daemon "$LOG"; then ok "npuflowd attached to ra, rb"; else
	nok "npuflowd attached to ra, rb" "$(tr '\n' '|' <"$LOG")"
	exit 1
fi
grep -E "warn|error" "$LOG" | sed 's/^/# /'
# (bpffs keeps the sticky bit on its root: 1700)
m=$(stat -c %a /sys/fs/bpf)
bpffs && [ "${m: -3}" = 700 ] && [ "$(grep -c 'mounted bpffs at /sys/fs/bpf$' "$LOG")" = 1 ]; e=$?
check "npuflowd mounted bpffs at /sys/fs/bpf (mode $m) and said so once" test $e = 0
check "the pin directory is mode 0700 ($(stat -c %a $PIN 2>&1))" test "$(stat -c %a $PIN 2>&1)" = 700
# native mode: ip link says "xdp" (generic would be "xdpgeneric")
check "native XDP on ra and rb" bash -c "ip -n $R link show ra | grep -qw xdp && ip -n $R link show rb | grep -qw xdp && ! ip -n $R link show ra | grep -q xdpgeneric"
check "maps pinned with mode 0600" bash -c "[ \$(stat -c %a $PIN/candidates) = 600 ] && [ \$(stat -c %a $PIN/counters) = 600 ] && [ \$(stat -c %a $PIN/events) = 600 ]"

out=$($NOBODY "$BIN/npuctl" candidates 2>&1); rc=$?
rc_says $rc 1 "$out" "npuflowd's maps are root's: run npuctl as root"; e=$?
check "unprivileged npuctl: 'run npuctl as root', exit 1 (rc $rc: $out)" test $e = 0
out=$($NOBODY "$BIN/npuctl" status 2>&1); rc=$?
rc_says $rc 1 "$out" "npuflowd's maps are root's: run npuctl as root"; e=$?
check "unprivileged npuctl status: 'run npuctl as root', not 'not running' (rc $rc: $out)" test $e = 0
out=$($NR "$BIN/npuflowd" --flush --lock-file "$WORK/other.lock" 2>&1); rc=$?
rc_says $rc 1 "$out" "another npuflowd uses /sys/fs/bpf/npuflow (whatever its lock file)" &&
	test -e $PIN/candidates && ip -n $R link show ra | grep -q xdp; e=$?
check "--flush under another lock file refused while one runs: pins and classifier kept (rc $rc: $out)" \
	test $e = 0

"$BIN/npuflowd" -f ra >"$LOG.3" 2>&1; rc=$?
check "a second instance refuses to start" bash -c "[ $rc = 1 ] && grep -q 'another npuflowd is running' '$LOG.3'"

# --- traffic ----------------------------------------------------------------
ip netns exec $A ping -c 5 -i 0.2 -W 2 10.211.2.2 >/dev/null
ip netns exec $A ping -6 -c 4 -i 0.2 -W 2 -s 100 fd00:211:2::2 >/dev/null
ip netns exec $B socat -u TCP-LISTEN:5001,reuseaddr OPEN:/dev/null &
SPID=$!
sleep 0.3
head -c 300000 /dev/zero | ip netns exec $A socat -u STDIN TCP:10.211.2.2:5001
wait $SPID; SPID=
sleep 0.3

$NR "$BIN/npuctl" candidates --json >"$LOG.json"
$NR "$BIN/npuctl" candidates | sed 's/^/# /'

# jq filters over the candidates
q() { jq -r "$1" "$LOG.json"; }
icmp_req=$(q '[.[] | select(.ifname=="ra" and .proto==1 and .dport==2048 and .saddr=="10.211.1.2" and .daddr=="10.211.2.2")] | map("\(.frames) \(.bytes)") | join(",")')
icmp_rep=$(q '[.[] | select(.ifname=="rb" and .proto==1 and .dport==0 and .saddr=="10.211.2.2" and .daddr=="10.211.1.2")] | map("\(.frames) \(.bytes)") | join(",")')
check "ICMP echo requests: one candidate on ra, 5 frames, 490 bytes (got '$icmp_req')" [ "$icmp_req" = "5 490" ]
check "ICMP echo replies: one candidate on rb, 5 frames, 490 bytes (got '$icmp_rep')" [ "$icmp_rep" = "5 490" ]
v6_req=$(q '[.[] | select(.ifname=="ra" and .proto==58 and .dport==32768 and .saddr=="fd00:211:1::2")] | map("\(.frames) \(.bytes)") | join(",")')
v6_rep=$(q '[.[] | select(.ifname=="rb" and .proto==58 and .dport==33024 and .daddr=="fd00:211:1::2")] | map("\(.frames) \(.bytes)") | join(",")')
# 14 + 40 + 8 + 100 = 162 bytes a frame
check "ICMPv6 echo requests on ra: 4 frames, 648 bytes (got '$v6_req')" [ "$v6_req" = "4 648" ]
check "ICMPv6 echo replies on rb: 4 frames, 648 bytes (got '$v6_rep')" [ "$v6_rep" = "4 648" ]
tcp_fwd=$(q '[.[] | select(.ifname=="ra" and .proto==6 and .dport==5001 and .daddr=="10.211.2.2")] | map("\(.frames) \(.bytes) \(.tcp_flags)") | join(",")')
tcp_rev=$(q '[.[] | select(.ifname=="rb" and .proto==6 and .sport==5001 and .saddr=="10.211.2.2")] | map("\(.frames) \(.bytes) \(.tcp_flags)") | join(",")')
echo "# tcp forward: $tcp_fwd; reverse: $tcp_rev"
set -- $tcp_fwd
check "TCP client->server: one candidate on ra, >= 300000 bytes, SYN+ACK+FIN seen" \
	bash -c "[ -n '${1:-}' ] && [ '${2:-0}' -ge 300000 ] && [ \$(( ${3:-0} & 0x13 )) = 19 ] && [ '${tcp_fwd//[^,]/}' = '' ]"
fwd_frames=${1:-0}
set -- $tcp_rev
check "TCP server->client: one candidate on rb, SYN+ACK seen, fewer bytes" \
	bash -c "[ -n '${1:-}' ] && [ \$(( ${3:-0} & 0x12 )) = 18 ] && [ '${2:-0}' -lt 300000 ] && [ '${tcp_rev//[^,]/}' = '' ]"

# every frame XDP saw on an interface is one candidate frame or one counted
# outcome: the counters and the candidates agree exactly (a snapshot taken
# while no frame arrived: router solicitations or MLD may come any time)
for i in 1 2 3 4 5; do
	$NR "$BIN/npuctl" stats --json >"$LOG.json.s"
	$NR "$BIN/npuctl" candidates --json >"$LOG.json"
	$NR "$BIN/npuctl" stats --json >"$LOG.json.s2"
	cmp -s "$LOG.json.s" "$LOG.json.s2" && break
	sleep 0.2
done
rm -f "$LOG.json.s2"
for dev in ra rb; do
	seen=$(jq -r "[.[] | select(.ifname==\"$dev\") | .reasons.none.frames] | add" "$LOG.json.s")
	cand=$(jq -r "[.[] | select(.ifname==\"$dev\") | .frames] | add" "$LOG.json")
	stat=$(jq -r "[.[] | select(.ifname==\"$dev\") | .stats.candidate] | add" "$LOG.json.s")
	other=$(jq -r "[.[] | select(.ifname==\"$dev\") | .stats | .non_ip + .trunc_l2 + .trunc_l3 + .trunc_l4 + .malformed + .nonfirst_frag + .exthdr_limit + .vlan_depth] | add" "$LOG.json.s")
	check "$dev: frames seen ($seen) = candidate frames ($cand) + other outcomes ($other)" \
		bash -c "[ '$seen' = \$(( $cand + $other )) ] && [ '$stat' = '$cand' ]"
done
rm -f "$LOG.json.s"

dump=$($NR bpftool map dump pinned $PIN/candidates 2>/dev/null)
n=$(jq '[.[] | select(.key.proto==1 and .key.family==2 and .value.frames==5)] | length' <<<"$dump" 2>/dev/null)
check "bpftool map dump pinned $PIN/candidates: BTF fields, both ICMP directions with 5 frames" [ "${n:-0}" = 2 ]

thr=$(grep -c "event threshold .* icmp 10.211" "$LOG")
check "exactly one threshold event per ICMP direction (got $thr)" [ "$thr" = 2 ]

# --- stop, restart, flush -------------------------------------------------------
stop_daemon; rc=$?
check "SIGTERM: npuflowd exits 0 (rc $rc)" [ $rc = 0 ]
check "no XDP program left on ra, rb" bash -c "! ip -n $R link show ra | grep -q xdp && ! ip -n $R link show rb | grep -q xdp"
check "pinned maps kept" test -e $PIN/candidates -a -e $PIN/counters -a -e $PIN/events

if start_daemon "$LOG.2"; then ok "restart"; else nok "restart" "$(tr '\n' '|' <"$LOG.2")"; fi
check "restart reuses the pinned maps" grep -q "reusing pinned $PIN/candidates" "$LOG.2"
ip netns exec $A ping -c 2 -i 0.2 -W 2 10.211.2.2 >/dev/null
$NR "$BIN/npuctl" candidates --json >"$LOG.json"
# a new ping has a new id: the old candidates are still there with 5 frames
kept=$(q '[.[] | select(.ifname=="ra" and .proto==1 and .dport==2048 and .frames==5)] | length')
newc=$(q '[.[] | select(.ifname=="ra" and .proto==1 and .dport==2048 and .frames==2)] | length')
check "candidates survive the restart ($kept kept, $newc new)" [ "$kept" = 1 -a "$newc" = 1 ]
stop_daemon
check "no XDP program left after the second run" bash -c "! ip -n $R link show ra | grep -q xdp && ! ip -n $R link show rb | grep -q xdp"

# every terminating signal detaches as SIGTERM does (SIGINT and SIGQUIT come
# in ignored: bash starts background jobs so)
no_xdp() { ! ip -n $R link show ra | grep -q xdp && ! ip -n $R link show rb | grep -q xdp; }
for sig in HUP INT QUIT; do
	if ! start_daemon "$LOG.2"; then
		nok "SIG$sig: npuflowd started" "$(tr '\n' '|' <"$LOG.2")"
		continue
	fi
	kill -$sig "$DPID"
	for i in $(seq 1 100); do
		st=$(cut -d' ' -f3 /proc/$DPID/stat 2>/dev/null)
		[ -z "$st" ] || [ "$st" = Z ] && break
		sleep 0.1
	done
	kill -KILL "$DPID" 2>/dev/null	# still running after 10 s: 137
	wait "$DPID"; rc=$?; DPID=
	no_xdp; e=$?
	check "SIG$sig: npuflowd exits 0 and leaves no XDP program on ra, rb (rc $rc)" test $rc$e = 00
	# what a failure left must not fail the checks after it
	ip -n $R link set dev ra xdp off 2>/dev/null
	ip -n $R link set dev rb xdp off 2>/dev/null
done

# under a service manager (systemd, Type=notify): READY=1 once started,
# WATCHDOG=1 at half of $WATCHDOG_USEC (here 400 ms: every 200 ms), STOPPING=1
# at the stop; a datagram socket stands for systemd's
NOTIFY=$WORK/notify
python3 - "$NOTIFY" >"$WORK/notify.log" 2>&1 <<'EOF' &
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
s.settimeout(10)
t0 = time.monotonic()
try:
    while True:
        m = s.recv(256).decode()
        print("%.3f %s" % (time.monotonic() - t0, m.replace("\n", " ")), flush=True)
        if "STOPPING=1" in m:
            break
except socket.timeout:
    pass
EOF
NPID=$!
for i in $(seq 1 50); do [ -S "$NOTIFY" ] && break; sleep 0.1; done
if NOTIFY_SOCKET=$NOTIFY WATCHDOG_USEC=400000 start_daemon "$LOG.2"; then
	sleep 1.5
	stop_daemon
fi
wait $NPID
sed 's/^/# notify: /' "$WORK/notify.log" | head -3
first=$(head -1 "$WORK/notify.log" | cut -d' ' -f2-)
wd=$(grep -c ' WATCHDOG=1$' "$WORK/notify.log")
gap=$(awk '/WATCHDOG=1$/ { if (t != "") { g = $1 - t; if (g > m) m = g } t = $1 } END { printf "%d", m * 1000 }' "$WORK/notify.log")
last=$(tail -1 "$WORK/notify.log" | cut -d' ' -f2-)
[ "$first" = READY=1 ] && [ "$wd" -ge 5 ] && [ "$gap" -le 300 ] && [ "$last" = STOPPING=1 ]; e=$?
check "sd_notify: READY=1 first, WATCHDOG=1 every 200 ms ($wd, longest gap $gap ms), STOPPING=1 last" \
	test $e = 0

# a device without native XDP (a bridge): native mode fails loudly, skb mode is explicit
ip -n $R link add npft-d0 type bridge && ip -n $R link set npft-d0 up
$NR timeout 10 "$BIN/npuflowd" -f --mode native npft-d0 >"$LOG.3" 2>&1; rc=$?
sed 's/^/# /' "$LOG.3" | grep -v libbpf
check "native mode on a device without native XDP is refused (rc $rc)" \
	bash -c "[ $rc = 1 ] && grep -q 'cannot attach in native mode' '$LOG.3' && ! ip -n $R link show npft-d0 | grep -q xdp"
$NR "$BIN/npuflowd" -f --mode skb npft-d0 >"$LOG.2" 2>&1 &
DPID=$!
for i in $(seq 1 50); do grep -q "classifier on 1 port" "$LOG.2" && break; sleep 0.2; done
check "--mode skb attaches in generic mode" bash -c "ip -n $R link show npft-d0 | grep -q xdpgeneric"
stop_daemon
check "no XDP program left on the bridge" bash -c "! ip -n $R link show npft-d0 | grep -q xdp"

# --- a start that fails after pinning leaves what it found ----------------------
# Native mode on the bridge fails after libbpf pinned the maps (the first
# attach loads the classifier): in a mount namespace of its own, with no BPF
# file system at /sys/fs/bpf (as on a fresh machine) or an empty one of its
# own, npuflowd exits 1 and leaves the mounts, the pin directory and libxdp's
# directory as they were; where a pinned set was there, it keeps those maps
# and removes only what it pinned itself.
cat >"$WORK/failns.sh" <<'EOS'
# failns.sh none|empty NPUFLOWD LOG: the failed start and what it left
while grep -q ' /sys/fs/bpf ' /proc/self/mountinfo; do umount /sys/fs/bpf || exit 9; done
if [ "$1" = empty ]; then mount -t bpf bpf /sys/fs/bpf || exit 9; fi
m0=$(grep -c ' /sys/fs/bpf ' /proc/self/mountinfo)
nsenter --net=/run/netns/npft-r timeout 10 "$2" -f -l debug --mode native npft-d0 >"$3" 2>&1
rc=$?
m1=$(grep -c ' /sys/fs/bpf ' /proc/self/mountinfo)
echo "rc=$rc mounts=$m0,$m1 fs=$(stat -f -c %T /sys/fs/bpf)" \
	"pins=$(test -e /sys/fs/bpf/npuflow && echo yes || echo no)" \
	"xdp=$(test -e /sys/fs/bpf/xdp && echo yes || echo no)"
EOS
got=$(unshare -m --propagation private bash "$WORK/failns.sh" none "$BIN/npuflowd" "$LOG.3")
echo "# no BPF file system: $got"
grep -E "mounted bpffs|pinned map .*candidates'|cannot attach|start failed" "$LOG.3" | sed 's/^/# /'
check "no BPF file system: a start failing after its pins exits 1 (bpffs mounted, maps pinned)" \
	bash -c "[[ '$got' == 'rc=1 '* ]] && grep -q 'mounted bpffs at /sys/fs/bpf$' '$LOG.3' &&
		grep -q \"pinned map '.*/candidates'\" '$LOG.3' && grep -q 'cannot attach in native mode' '$LOG.3'"
check "... and leaves no BPF file system mounted, no pin directory, and says so in one line ($got)" \
	bash -c "[ '$got' = 'rc=1 mounts=0,0 fs=sysfs pins=no xdp=no' ] &&
		[ \$(grep -c 'info: start failed: removed what it made: .*the bpffs mounted at /sys/fs/bpf$' '$LOG.3') = 1 ]"
got=$(unshare -m --propagation private bash "$WORK/failns.sh" empty "$BIN/npuflowd" "$LOG.3")
grep -E "pinned map .*candidates'|start failed" "$LOG.3" | sed 's/^/# /'
check "an empty BPF file system: a failed start keeps it, removes the pin directory and libxdp's ($got)" \
	bash -c "[ '$got' = 'rc=1 mounts=1,1 fs=bpf_fs pins=no xdp=no' ] &&
		grep -q \"pinned map '.*/candidates'\" '$LOG.3'"
# a pinned set (the runs above stopped cleanly) without fmstats, as after an
# upgrade that adds a map: the five are kept, the one this start pinned goes
map_ids() {
	local m id
	for m in candidates counters events connections fmstats candcache; do
		id=$(bpftool map show pinned $PIN/$m 2>/dev/null | sed -n '1s/:.*//p')
		printf '%s ' "${id:--}"
	done
}
rm -f $PIN/fmstats
ids0=$(map_ids)
xdp0=$(test -e /sys/fs/bpf/xdp && echo yes || echo no)
$NR timeout 10 "$BIN/npuflowd" -f -l debug --mode native npft-d0 >"$LOG.3" 2>&1; rc=$?
ids1=$(map_ids)
gone=$(tr -cd - <<<"$ids0")
xdp1=$(test -e /sys/fs/bpf/xdp && echo yes || echo no)
grep -E "pinned map .*fmstats'|start failed" "$LOG.3" | sed 's/^/# /'
check "pins there: a failed start keeps them (ids $ids1), removes the one it pinned (rc $rc; xdp $xdp0 $xdp1)" \
	bash -c "[ $rc = 1 ] && [ '$ids0' = '$ids1' ] && [ '$gone' = - ] && [ -d $PIN ] &&
		[ $xdp0 = $xdp1 ] && grep -q \"pinned map '.*/fmstats'\" '$LOG.3'"

# without -f: everything that can fail at start runs before npuflowd
# daemonizes, so a failed attach is the exit status and a 0 means attached
$NR timeout 10 "$BIN/npuflowd" --mode native npft-d0 >"$LOG.3" 2>&1; rc=$?
check "without -f, a failed attach exits 1 with the reason on stderr (rc $rc)" \
	bash -c "[ $rc = 1 ] && grep -q 'cannot attach in native mode' '$LOG.3' && flock -n /run/npuflowd.lock true"
$NR timeout 20 "$BIN/npuflowd" -t 3 --no-flowmaker ra rb >"$LOG.3" 2>&1; rc=$?
dpid=
for i in $(seq 1 50); do
	dpid=$(cat /run/npuflowd.lock 2>/dev/null)
	[ -n "$dpid" ] && [ "$(cat /proc/$dpid/comm 2>/dev/null)" = npuflowd ] && break
	dpid=; sleep 0.1
done
check "without -f, exits 0 once attached to ra, rb; the lock names the daemon (rc $rc, pid ${dpid:-none})" \
	bash -c "[ $rc = 0 ] && [ -n '$dpid' ] && ip -n $R link show ra | grep -qw xdp && ip -n $R link show rb | grep -qw xdp"
if [ -n "$dpid" ]; then
	kill -TERM "$dpid"
	for i in $(seq 1 50); do kill -0 "$dpid" 2>/dev/null || break; sleep 0.1; done
fi
check "the daemon stops on SIGTERM and leaves no XDP program" \
	bash -c "! kill -0 '${dpid:-0}' 2>/dev/null && ! ip -n $R link show ra | grep -q xdp && ! ip -n $R link show rb | grep -q xdp"

# --- npuctl's map walks: memory-safe, each entry once -------------------------
# npuctl built with ASan and UBSan, its map calls wrapped (ld --wrap): each
# wrapper reads the key and writes the value buffer as the kernel does (so
# ASan checks them), and after the Nth entry read from a hash map it deletes
# the entry just read (NPFT_DEL_AT: churn) or makes its lookup fail as if it
# went between the walk and the lookup (NPFT_FAIL_AT).
cat >"$WORK/wrap.c" <<'EOF'
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

int __real_bpf_map_get_next_key(int fd, const void *key, void *next);
int __real_bpf_map_lookup_elem(int fd, const void *key, void *value);
int __real_bpf_map_lookup_batch(int fd, void *in, void *out, void *keys, void *values,
				__u32 *count, const struct bpf_map_batch_opts *opts);
static unsigned long seen;

static int info(int fd, struct bpf_map_info *i)
{
	__u32 len = sizeof(*i);

	memset(i, 0, len);
	return bpf_obj_get_info_by_fd(fd, i, &len);
}

static int is_hash(const struct bpf_map_info *i)
{
	return i->type == BPF_MAP_TYPE_HASH || i->type == BPF_MAP_TYPE_LRU_HASH;
}

static size_t value_bytes(const struct bpf_map_info *i)
{
	if (i->type == BPF_MAP_TYPE_PERCPU_ARRAY || i->type == BPF_MAP_TYPE_PERCPU_HASH ||
	    i->type == BPF_MAP_TYPE_LRU_PERCPU_HASH)
		return ((i->value_size + 7) & ~7u) * libbpf_num_possible_cpus();
	return i->value_size;
}

static unsigned long at(const char *name)
{
	const char *s = getenv(name);

	return s ? strtoul(s, NULL, 10) : 0;
}

static void kernel_reads(const void *p, size_t n)
{
	volatile unsigned char x = 0;
	size_t k;

	for (k = 0; k < n; k++)
		x ^= ((const unsigned char *)p)[k];
}

int __wrap_bpf_map_get_next_key(int fd, const void *key, void *next)
{
	struct bpf_map_info i;

	if (!info(fd, &i)) {
		if (key)
			kernel_reads(key, i.key_size);
		memset(next, 0, i.key_size);
	}
	return __real_bpf_map_get_next_key(fd, key, next);
}

int __wrap_bpf_map_lookup_elem(int fd, const void *key, void *value)
{
	struct bpf_map_info i;
	int rc;

	if (info(fd, &i))
		return __real_bpf_map_lookup_elem(fd, key, value);
	kernel_reads(key, i.key_size);
	memset(value, 0, value_bytes(&i));
	rc = __real_bpf_map_lookup_elem(fd, key, value);
	if (rc || !is_hash(&i))
		return rc;
	seen++;
	if (seen == at("NPFT_DEL_AT"))
		bpf_map_delete_elem(fd, key);
	if (seen == at("NPFT_FAIL_AT")) {
		bpf_map_delete_elem(fd, key);
		errno = ENOENT;
		return -ENOENT;
	}
	return rc;
}

int __wrap_bpf_map_lookup_batch(int fd, void *in, void *out, void *keys, void *values,
				__u32 *count, const struct bpf_map_batch_opts *opts)
{
	unsigned long del = at("NPFT_DEL_AT");
	struct bpf_map_info i;
	int rc;

	if (info(fd, &i))
		return __real_bpf_map_lookup_batch(fd, in, out, keys, values, count, opts);
	if (in)
		kernel_reads(in, sizeof(__u32));
	memset(out, 0, sizeof(__u32));
	memset(keys, 0, (size_t)*count * i.key_size);
	memset(values, 0, (size_t)*count * value_bytes(&i));
	rc = __real_bpf_map_lookup_batch(fd, in, out, keys, values, count, opts);
	if (is_hash(&i) && *count && seen < del && seen + *count >= del)
		bpf_map_delete_elem(fd, (char *)keys + (size_t)(*count - 1) * i.key_size);
	seen += *count;
	return rc;
}
EOF
# NCAND UDP candidates 198.51.100.7:1.. > 203.0.113.9:9 on an ifindex, and
# NCONN connection records (ids 1000..), written into the pinned maps
cat >"$WORK/mapfill.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <bpf/bpf.h>
#include "npuflow.h"

static void udp_key(struct npuflow_key *k, unsigned int ifindex, unsigned int i)
{
	static const unsigned char s[4] = { 198, 51, 100, 7 }, d[4] = { 203, 0, 113, 9 };

	memset(k, 0, sizeof(*k));
	k->ifindex = ifindex;
	k->family = 2;
	k->proto = 17;
	k->sport = htons(i + 1);
	k->dport = htons(9);
	memcpy(k->saddr, s, 4);
	memcpy(k->daddr, d, 4);
}

int main(int argc, char **argv)
{
	unsigned int ifindex, ncand, nconn, i;
	char path[512];
	int cfd, kfd;

	if (argc != 5)
		return 2;
	ifindex = atoi(argv[2]);
	ncand = atoi(argv[3]);
	nconn = atoi(argv[4]);
	snprintf(path, sizeof(path), "%s/candidates", argv[1]);
	cfd = bpf_obj_get(path);
	snprintf(path, sizeof(path), "%s/connections", argv[1]);
	kfd = bpf_obj_get(path);
	if (cfd < 0 || kfd < 0)
		return 1;
	for (i = 0; i < ncand; i++) {
		struct npuflow_cand c = { .frames = 7, .bytes = 700, .conn = NPUFLOW_CONN_NONE,
					  .port = NPUFLOW_PORT_NONE };
		struct npuflow_key k;

		udp_key(&k, ifindex, i);
		if (bpf_map_update_elem(cfd, &k, &c, BPF_ANY))
			return 1;
	}
	for (i = 0; i < nconn; i++) {
		struct npuflow_conn c;
		__u32 id = 1000 + i;

		memset(&c, 0, sizeof(c));
		udp_key(&c.key[0], ifindex, i);
		udp_key(&c.key[1], ifindex, i);
		c.state = NPUFLOW_CS_MADE;
		if (bpf_map_update_elem(kfd, &id, &c, BPF_ANY))
			return 1;
	}
	return 0;
}
EOF
ASAN_NPUCTL=$WORK/npuctl-asan
cc -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
	-Wl,--wrap=bpf_map_get_next_key,--wrap=bpf_map_lookup_elem,--wrap=bpf_map_lookup_batch \
	-o "$ASAN_NPUCTL" "$SRC"/tools/npuctl/*.c "$SRC"/lib/*.c "$WORK/wrap.c" -lbpf -lelf -lz -ljson-c \
	2>"$WORK/cc.log" &&
	cc -O2 -I"$SRC/bpf" -o "$WORK/mapfill" "$WORK/mapfill.c" -lbpf 2>>"$WORK/cc.log"
check "npuctl builds with ASan and UBSan, and the map filler" test $? = 0 -a -x "$ASAN_NPUCTL"
sed 's/^/# /' "$WORK/cc.log"
RAI=$(ip -n $R -o link show ra | cut -d: -f1)
export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
# npuctl (ASan) with the wrappers set by "$@": its status, no sanitizer report;
# then the filled entries listed: how many, how many distinct
asan_run() { # out, npuctl args...
	local out=$1
	shift
	$NR "$ASAN_NPUCTL" "$@" >"$out" 2>"$out.err"
	local rc=$?
	sed 's/^/# /' "$out.err" | head -20
	[ $rc = 0 ] && ! grep -qE 'AddressSanitizer|LeakSanitizer|runtime error' "$out.err"
}
filled_cands() { jq -r '[.[] | select(.saddr=="198.51.100.7") | .sport] | "\(length) \(unique | length)"' "$1"; }
filled_conns() { jq -r '[.[] | select(.id >= 1000 and .id < 1300) | .id] | "\(length) \(unique | length)"' "$1"; }

"$WORK/mapfill" $PIN "$RAI" 1500 300
NPFT_FAIL_AT=1025 asan_run "$WORK/c1" candidates --json; e=$?
got=$(filled_cands "$WORK/c1")
check "npuctl candidates (1,500; a lookup fails after the row buffer grew): no memory error, each once ($got)" \
	bash -c "[ $e = 0 ] && set -- $got && [ \$1 = \$2 ] && [ \$1 -ge 1499 ]"
"$WORK/mapfill" $PIN "$RAI" 1500 300
NPFT_DEL_AT=700 asan_run "$WORK/c2" candidates --json; e=$?
got=$(filled_cands "$WORK/c2")
check "npuctl candidates: the candidate just read is deleted: every other listed once ($got)" \
	bash -c "[ $e = 0 ] && set -- $got && [ \$1 = \$2 ] && [ \$1 -ge 1499 ]"
NPFT_DEL_AT=100 asan_run "$WORK/f1" flows --json; e=$?
got=$(filled_conns "$WORK/f1")
check "npuctl flows (300): the connection just read is deleted: every other listed once ($got)" \
	bash -c "[ $e = 0 ] && set -- $got && [ \$1 = \$2 ] && [ \$1 -ge 299 ]"
asan_run "$WORK/s1" stats --json; e=$?
check "npuctl stats and status under ASan: no memory error" \
	bash -c "[ $e = 0 ] && $NR '$ASAN_NPUCTL' status >/dev/null 2>'$WORK/s2.err'; ! grep -qE 'Sanitizer|runtime error' '$WORK/s2.err'"

xd_before=$(test -d /sys/fs/bpf/xdp && echo there || echo none)
$NR "$BIN/npuflowd" --flush >/dev/null 2>"$WORK/flush.err"
check "--flush removes the pins and libxdp's empty state directory (before: $xd_before)" \
	test ! -e $PIN/candidates -a ! -e $PIN -a ! -e /sys/fs/bpf/xdp
check "--flush over ports with no clsact: no libbpf warning ($(grep -c libbpf "$WORK/flush.err") lines)" \
	bash -c "! grep -q libbpf '$WORK/flush.err'"

# --- the pin directory: not a symlink, not another user's ---------------------------
DECOY=/sys/fs/bpf/npft-decoy
mkdir -m 0755 $DECOY && bpftool map create $DECOY/candidates type array key 4 value 4 \
	entries 1 name npft_decoy && ln -s $DECOY $PIN
$NR timeout 10 "$BIN/npuflowd" -f -t 3 --no-flowmaker ra rb >"$LOG.3" 2>&1; rc=$?
sed 's/^/# /' "$LOG.3"
rc_says $rc 1 "$(cat "$LOG.3")" "is a symbolic link" && no_xdp &&
	[ "$(stat -c %a $DECOY)" = 755 ] && [ -e $DECOY/candidates ]; e=$?
check "a pin directory that is a symlink: refused (rc $rc), nothing attached, its target untouched" \
	test $e = 0
"$BIN/npuflowd" --flush >"$LOG.3" 2>&1; rc=$?
rc_says $rc 1 "$(cat "$LOG.3")" "is a symbolic link" && [ -e $DECOY/candidates ] && [ -L $PIN ]; e=$?
check "--flush refuses the symlink too (rc $rc), removes nothing in its target" test $e = 0
rm -f $PIN
mkdir -m 0755 $PIN && chown 65534:65534 $PIN
$NR timeout 10 "$BIN/npuflowd" -f -t 3 --no-flowmaker ra rb >"$LOG.3" 2>&1; rc=$?
sed 's/^/# /' "$LOG.3"
rc_says $rc 1 "$(cat "$LOG.3")" "owned by uid 65534" && no_xdp && [ "$(stat -c %a $PIN)" = 755 ]; e=$?
check "a pin directory owned by another user: refused (rc $rc), its mode untouched" test $e = 0
"$BIN/npuflowd" --flush >"$LOG.3" 2>&1; rc=$?
rc_says $rc 1 "$(cat "$LOG.3")" "owned by uid 65534" && [ -d $PIN ]; e=$?
check "--flush refuses it too (rc $rc)" test $e = 0
rm -rf $PIN $DECOY
out=$("$BIN/npuctl" status 2>&1); rc=$?
check "npuctl status with nothing pinned: 'not running', exit 3 (rc $rc: $out)" \
	bash -c "[ $rc = 3 ] && [[ '$out' == 'npuflowd not running (nothing pinned in'* ]]"
out=$("$BIN/npuctl" release -1 2>&1); rc=$?
[ $rc = 2 ] && [[ "$out" == *"'-1' is not a connection id"* ]]; ok=$?
check "npuctl release -1: refused, not wrapped to a huge id (rc $rc)" test $ok = 0
out=$("$BIN/npuctl" stats --bogus 2>&1); rc=$?
[ $rc = 2 ] && [[ "$out" == *"unknown option or argument '--bogus'"* ]]; ok=$?
check "npuctl stats --bogus: exit 2, the option named (rc $rc)" test $ok = 0
out=$("$BIN/npuflowd" --bogus 2>&1); rc=$?
[ $rc = 2 ] && [[ "$out" == *"'--bogus'"* ]] && [[ "$out" == *"Try 'npuflowd --help'"* ]]; ok=$?
check "npuflowd --bogus: exit 2, the option named, where the help is (rc $rc)" test $ok = 0
n=$(grep -c ' /sys/fs/bpf ' /proc/$NPFT_OUTER/mountinfo)
check "the machine's /sys/fs/bpf is as it was ($NPFT_OUTER_MNT mount(s), now $n)" test "$n" = "$NPFT_OUTER_MNT"
echo "# npuflowd: $((KTAP_N - KTAP_FAIL)) passed, $KTAP_FAIL failed"
[ $KTAP_FAIL = 0 ]
