# SPDX-License-Identifier: GPL-2.0
# Helpers for the end-to-end tests: KTAP output, loading the modules,
# creating a coprocessor and finding a port's host netdev through devlink.
# Source it from a selftests/vm/NN-name.sh script; the guest runs scripts as
# root with the repository as the working directory.

# KTAP through selftests/lib/tap.sh: "ok N NAME", no dash
TAP_SEP=" "
. "$(dirname "${BASH_SOURCE[0]}")/../lib/tap.sh"

ktap_plan() { echo "1..$1"; }
# ok CONDITION-EXIT-STATUS NAME
ktap_result() { tap_result "$@"; }
ktap_ok() { tap_result 0 "$@"; }
ktap_fail() { tap_result 1 "$@"; }
ktap_skip() { tap_skip "$*"; }
# check NAME COMMAND...: run COMMAND, ok if it succeeds.
check() {
	local name=$1; shift
	local out
	if out=$("$@" 2>&1); then
		ktap_ok "$name"
	else
		echo "$out" | sed 's/^/# /' | tail -20
		ktap_fail "$name"
	fi
}
# check_fail NAME COMMAND...: ok if COMMAND fails.
check_fail() {
	local name=$1; shift
	if "$@" >/dev/null 2>&1; then ktap_fail "$name"; else ktap_ok "$name"; fi
}
diag() { tap_diag "$@"; }
ktap_finish() { [ "$KTAP_FAIL" = 0 ]; exit $?; }
# inject KNOB VALUE: write VALUE to the model's fault knob KNOB (a path, or a
# name under its debugfs directory), after a line in the kernel log (which
# the guest's console prints) saying so, so that the kernel's messages about
# the fault (timeouts, refused descriptors, recoveries) read as this test's,
# not as a bug.
inject() {
	local f=$1 what
	case $f in /*) ;; *) f=/sys/kernel/debug/npusim/0/$f ;; esac
	if [ "${2##* }" = 0 ]; then what="cleared"; else what="injected on purpose: the kernel's messages about it are expected"; fi
	echo "npuvm: $(basename "$0" .sh): fault $(basename "$f") $2 $what" > /dev/kmsg 2>/dev/null
	echo "$2" > "$f"
}

NPU_REPO=$(pwd)

# npu_pin_keys: turn on, once per boot, the static keys that tests and the
# tools they run flip, and keep them on from a netns of their own: nf hooks
# of every family and hook, tc ingress/egress, RPS, receive timestamps
# (every ping sets SO_TIMESTAMP: netstamp_needed_key) and the xdp_exception
# tracepoint (55 enables it).  Flipping a key patches kernel text, and
# QEMU's multi-threaded TCG has twice run a stale int3 from such a patch on
# the other vCPU ("Oops: int3" in __netif_receive_skb_core as a clsact qdisc
# was added under traffic, and in netif_receive_skb_list_internal).  A key
# that stays on is never patched again.
npu_pin_keys() {
	ip netns list | grep -qw npuvm-keys && return 0
	ip netns add npuvm-keys
	ip -n npuvm-keys link add k0 type dummy && ip -n npuvm-keys link set k0 up
	tc -n npuvm-keys qdisc add dev k0 clsact 2>/dev/null
	ip netns exec npuvm-keys nft -f - <<'NFT' 2>/dev/null
table inet keys {
	chain p { type filter hook prerouting priority 0; ct state new counter; }
	chain i { type filter hook input priority 0; }
	chain f { type filter hook forward priority 0; }
	chain o { type filter hook output priority 0; }
	chain q { type filter hook postrouting priority 0; }
}
table netdev keys {
	chain i { type filter hook ingress device k0 priority 0; }
	chain e { type filter hook egress device k0 priority 0; }
}
NFT
	ip netns exec npuvm-keys sh -c 'echo 1 > /sys/class/net/k0/queues/rx-0/rps_cpus' 2>/dev/null
	# SO_TIMESTAMP is 29 on x86; the socket lives as long as the guest.
	# Started from a subshell: no job of the test's shell, whose bare
	# "wait" (32) would otherwise wait for it forever.
	(ip netns exec npuvm-keys setsid perl -e 'use Socket;
		socket(my $s, PF_INET, SOCK_DGRAM, 0) or die;
		setsockopt($s, SOL_SOCKET, 29, 1) or die; sleep' </dev/null >/dev/null 2>&1 &)
	local t=/sys/kernel/tracing
	[ -d $t/instances ] || t=/sys/kernel/debug/tracing
	# record-cmd off: with it an event's enable also hooks the scheduler's
	# sched_switch and sched_wakeup tracepoints to record comms, patching
	# the hottest text there is (an int3 oops in ttwu_do_activate, 4 vCPUs)
	mkdir -p $t/instances/npuvm-keys 2>/dev/null && {
		echo 0 > $t/instances/npuvm-keys/options/record-cmd
		echo 1 > $t/instances/npuvm-keys/events/xdp/xdp_exception/enable
	} 2>/dev/null
	return 0
}

npu_load() {
	npu_pin_keys
	grep -q '^npusim ' /proc/modules || insmod "$NPU_REPO/kernel/npusim/npusim.ko" || return 1
	if [ "${1:-}" != nodriver ]; then
		grep -q '^npuep ' /proc/modules || insmod "$NPU_REPO/kernel/npuep/npuep.ko" || return 1
	fi
}

npu_unload() {
	grep -q '^npuep ' /proc/modules && rmmod npuep
	grep -q '^npusim ' /proc/modules && rmmod npusim
	return 0
}

# npu_new ID NPORTS NQUEUES: create a coprocessor and wait for its netdevs.
npu_new() {
	echo "$1 $2 $3" > /sys/bus/npusim/new_device || return 1
	udevadm settle 2>/dev/null
	local i
	for i in $(seq 50); do
		[ -n "$(npu_port_dev "$1" "$2" 2>/dev/null)" ] && return 0
		sleep 0.1
	done
	return 1
}

# npu_port_dev ID PORT: host netdev of panel port PORT of coprocessor ID:
# the one of the device's netdevs whose phys_port_name is pPORT (devlink
# port show says the same; sysfs with no fork, a test's setup asks often).
npu_port_dev() {
	local f n
	for f in /sys/bus/auxiliary/devices/npusim.npu.$1/net/*/phys_port_name; do
		read -r n < "$f" 2>/dev/null || continue
		[ "$n" = "p$2" ] || continue
		f=${f%/phys_port_name}
		echo "${f##*/}"
		return 0
	done
}

# npu_wire ID PORT: the wire netdev (far end of the cable) of a port.
npu_wire() { echo "npuw$1p$2"; }

# ethtool -S value of one counter.
eth_stat() { ethtool -S "$1" | awk -v k="$2:" '$1 == k { print $2 }'; }
# ynl ARG...: the kernel's netdev netlink family through its own ynl CLI,
# from Debian's linux-source-6.12 unpacked into build/ksft (tools/vm/ksft-prep,
# run by make vm-check before the guest boots)
KSRC=${KSRC:-$NPU_REPO/build/ksft/linux-source-6.12}
ynl() {
	python3 "$KSRC/tools/net/ynl/cli.py" --no-schema --output-json \
		--spec "$KSRC/Documentation/netlink/specs/netdev.yaml" "$@"
}
# qstat_dev NETDEV: its device-scope queue statistics, one JSON object
qstat_dev() {
	ynl --dump qstats-get --json "{\"ifindex\": $(cat "/sys/class/net/$1/ifindex")}" |
		jq -c '.[0] | del(.ifindex)'
}
# cmd_ring_sum KEY: KEY summed over coprocessor 0's command rings, as the
# devlink health reporter "cmd" diagnoses them (backlog, backlogged,
# read_timeouts, ...); null when no ring reports KEY
cmd_ring_sum() {
	devlink -j health diagnose auxiliary/npusim.npu.0 reporter cmd |
		jq --arg k "$1" '[.. | objects | select(has($k)) | .[$k]] | add'
}
# trap_pkts TRAP: frames devlink trap TRAP of coprocessor 0 has counted.
trap_pkts() {
	devlink -j -s trap show auxiliary/npusim.npu.0 trap "$1" |
		jq -r --arg n "$1" '.trap[][] | select(.name == $n) | .stats.rx.packets'
}

# topo_pc_far ID: netns "pc" on the wire of port 3 and "far" on the wire of
# port 8 of coprocessor ID, the host routing between the two port netdevs.
# Sets P3/P8 (host netdevs) and the addresses below.
PC4=198.51.100.2 H3_4=198.51.100.1 FAR4=203.0.113.2 H8_4=203.0.113.1
PC6=2001:db8:3::2 H3_6=2001:db8:3::1 FAR6=2001:db8:8::2 H8_6=2001:db8:8::1
topo_pc_far() {
	local id=$1
	P3=$(npu_port_dev "$id" 3) P8=$(npu_port_dev "$id" 8)
	[ -n "$P3" ] && [ -n "$P8" ] || { diag "no host netdev for port 3 or 8"; return 1; }
	ip netns add pc && ip netns add far || return 1
	ip link set "$(npu_wire "$id" 3)" netns pc || return 1
	ip link set "$(npu_wire "$id" 8)" netns far || return 1
	_topo_host pc "$(npu_wire "$id" 3)" $PC4 $H3_4 $PC6 $H3_6 || return 1
	_topo_host far "$(npu_wire "$id" 8)" $FAR4 $H8_4 $FAR6 $H8_6 || return 1
	ip addr add $H3_4/24 dev "$P3" && ip -6 addr add $H3_6/64 dev "$P3" nodad &&
	ip addr add $H8_4/24 dev "$P8" && ip -6 addr add $H8_6/64 dev "$P8" nodad &&
	ip link set "$P3" up && ip link set "$P8" up || return 1
	sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1
	wait_carrier "$P3" && wait_carrier "$P8"
}
_topo_host() {
	local ns=$1 dev=$2 a4=$3 gw4=$4 a6=$5 gw6=$6
	ip -n "$ns" link set lo up
	ip -n "$ns" addr add "$a4/24" dev "$dev"
	ip -n "$ns" -6 addr add "$a6/64" dev "$dev" nodad
	ip -n "$ns" link set "$dev" up
	ip -n "$ns" route add default via "$gw4"
	ip -n "$ns" -6 route add default via "$gw6"
}
wait_carrier() {
	local i
	for i in $(seq 100); do
		[ "$(cat /sys/class/net/$1/carrier 2>/dev/null)" = 1 ] && return 0
		sleep 0.1
	done
	diag "$1: no carrier"
	return 1
}

# iperf_bps NS_CLIENT SERVER_ADDR SECONDS [iperf3 args...]: received bit/s.
iperf_bps() {
	local ns=$1 addr=$2 secs=$3; shift 3
	ip netns exec "$ns" iperf3 -c "$addr" -t "$secs" -J "$@" 2>/dev/null |
		jq -r '.end.sum_received.bits_per_second // 0 | floor' 2>/dev/null
}

# link_stat [-n NS] DEV FIELD: a stats64 field (rx_packets, tx_packets, ...),
# as sysfs has it (dev_get_stats(), what ip -s shows); in NS through one
# ip netns exec, here with no fork (a fork and an exec cost tens of ms of
# the guest under TCG, jq's start more).
link_stat() {
	local v
	if [ "$1" = -n ]; then
		ip netns exec "$2" cat "/sys/class/net/$3/statistics/$4"
		return
	fi
	read -r v < "/sys/class/net/$1/statistics/$2" && echo "$v"
}

# ethtool -S: sum of the counters whose names match an extended regex.
eth_sum() {
	ethtool -S "$1" | awk -v re="$2" '{ k = $1; sub(":$", "", k) } k ~ re { s += $2 } END { print s + 0 }'
}
# eth_stats DEV COUNTER...: ethtool -S values, space separated, each summed
# over its queues; one ethtool (which takes the driver's flow-table mutex)
# for all of them.
eth_stats() {
	local dev=$1; shift
	ethtool -S "$dev" | awk -v keys="$*" '
		BEGIN { n = split(keys, k); for (i = 1; i <= n; i++) want[k[i] ":"] = i }
		($1 in want) { v[want[$1]] += $2 }
		END { for (i = 1; i <= n; i++) printf "%s%d", (i > 1 ? " " : ""), v[i]; print "" }'
}

# tasksnap FILE: /proc/stat and every task's stat, for what ran on the
# router's vCPU around a window (the demo's diag_router, the bench's
# stats.py cputasks).  A fork and a few hundred files read: taken before a
# window's traffic starts and after it closes, never at its edges.
tasksnap() { cat /proc/stat /proc/[0-9]*/task/[0-9]*/stat > "$1" 2>/dev/null; }

# Fork-free readers, for the bench's and the demo's measurement windows:
# under TCG a fork costs tens of ms of the guest's CPU, which a window
# would count as the router's.  They read procfs, sysfs and the model's
# debugfs with bash builtins and set the variables they name.
# cpu_now: CPU_TOT and CPU_BUSY, /proc/stat's all CPUs in USER_HZ ticks.
# shellcheck disable=SC2034 # set for the caller
cpu_now() {
	local c u n s i w q sq r
	read -r c u n s i w q sq r < /proc/stat
	CPU_BUSY=$((u + n + s + q + sq)) CPU_TOT=$((u + n + s + i + w + q + sq))
}
# fp_now [ID]: the model's fast-path tables (debugfs fp_stats of
# coprocessor ID, 0): HW_CONNS HW_MFLOWS HW_FWD HW_RECLAIMED.
# shellcheck disable=SC2034 # set for the caller
fp_now() {
	local k v
	while read -r k v; do
		case $k in
		conns) HW_CONNS=${v%%/*} ;;
		mflows) HW_MFLOWS=${v%%/*} ;;
		forwarded) HW_FWD=$v ;;
		reclaimed) HW_RECLAIMED=$v ;;
		esac
	done < "/sys/kernel/debug/npusim/${1:-0}/fp_stats"
}
# sysfs_stat VAR DEV FIELD: /sys/class/net/DEV/statistics/FIELD into VAR.
sysfs_stat() { read -r "$1" < "/sys/class/net/$2/statistics/$3"; }
# proc_net_dev VAR PID COLUMN DEV...: the sum of a /proc/net/dev column
# (2 = rx packets, 10 = tx packets) over DEVs in the netns of process PID.
proc_net_dev() {	# locals _-prefixed: VAR is the caller's
	local _var=$1 _pid=$2 _col=$3 _line _name _d _sum=0; local -a _f
	shift 3
	while IFS= read -r _line; do
		_name=${_line%%:*}; _name=${_name##* }
		for _d in "$@"; do
			[ "$_name" = "$_d" ] || continue
			# shellcheck disable=SC2206 # the columns, split on purpose
			_f=(${_line#*:}); _sum=$((_sum + _f[_col - 1]))
		done
	done < "/proc/$_pid/net/dev"
	printf -v "$_var" %s $_sum
}
# tracefs: where tracing is mounted (tracefs, or under debugfs).
tracefs() { if [ -d /sys/kernel/tracing/instances ]; then echo /sys/kernel/tracing; else echo /sys/kernel/debug/tracing; fi; }

# npuep's safety-net poll (an hrtimer, npuep_poll_timer_fn).
# poll_timer_cpus: the CPUs it is armed on now (/proc/timer_list).
poll_timer_cpus() {
	awk '$1 == "cpu:" { c = $2 } /npuep_poll_timer_fn/ { print c }' /proc/timer_list | sort -un | xargs
}
# poll_runs_start ... poll_runs_stop: the timer's runs in between, each
# a timer:hrtimer_expire_entry event in a tracing instance of its own
# (record-cmd off: see npu_pin_keys), filtered on its function.  Sets PR
# (runs), PR_CPUS (the CPUs they ran on) and PR_MS (the window, ms of the
# guest's clock: a timer of period P runs at most PR_MS / P + 1 times,
# and one more whose run its latency delayed into the window).
poll_runs_start() {
	local a
	PR_I=$(tracefs)/instances/npuep-poll
	a=$(awk '$3 == "npuep_poll_timer_fn" { print $1; exit }' /proc/kallsyms)
	[ -n "$a" ] && mkdir -p "$PR_I" || return 1
	echo 0 > "$PR_I/options/record-cmd" 2>/dev/null	# global only on some kernels
	echo 0 > "$PR_I/tracing_on"
	echo > "$PR_I/trace"
	echo "function == 0x$a" > "$PR_I/events/timer/hrtimer_expire_entry/filter" || return 1
	echo 1 > "$PR_I/events/timer/hrtimer_expire_entry/enable" || return 1
	PR_T0=$(date +%s%N)
	echo 1 > "$PR_I/tracing_on"
}
poll_runs_stop() {
	echo 0 > "$PR_I/tracing_on"
	PR_MS=$((($(date +%s%N) - PR_T0) / 1000000))
	echo 0 > "$PR_I/events/timer/hrtimer_expire_entry/enable"
	PR=$(grep -c 'hrtimer_expire_entry:' "$PR_I/trace")
	PR_CPUS=$(sed -nE 's/^[^[]*\[0*([0-9]+)\].*hrtimer_expire_entry:.*/\1/p' "$PR_I/trace" | sort -un | xargs)
}

# ft_offload_tcp: replace the ruleset with an nftables flowtable "flags
# offload" on P3 and P8 that offloads every forwarded TCP connection.
ft_offload_tcp() {
	nft flush ruleset
	nft -f - <<NFT
table inet fw {
	flowtable ft { hook ingress priority 0; devices = { $P3, $P8 }; flags offload; }
	chain forward { type filter hook forward priority 0; policy accept; meta l4proto tcp flow add @ft; }
}
NFT
}

# flower_ports: hw-tc-offload and a clsact qdisc on P3 and P8, for flower
# rules written by hand; sets pcmac/farmac (the wires' MACs in pc and far).
flower_ports() {
	local d
	for d in "$P3" "$P8"; do
		ethtool -K "$d" hw-tc-offload on
		tc qdisc add dev "$d" clsact
	done
	pcmac=$(ip -n pc link show npuw0p3 | awk '/ether/ { print $2 }')
	farmac=$(ip -n far link show npuw0p8 | awk '/ether/ { print $2 }')
}
mac() { cat /sys/class/net/$1/address; }
# udp_pc_far N [CPUS]: N datagrams "datagram-I\n" from pc:4000 to far:5000,
# one sendto each (a reader of a pipe may join two lines in one), 5 ms
# apart; the sender on CPUS (taskset -c) if given.
udp_pc_far() {
	# shellcheck disable=SC2086 # taskset's words, split on purpose
	ip netns exec pc ${2:+taskset -c $2} python3 -c "
import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(('', 4000))
for i in range(1, $1 + 1):
    s.sendto(b'datagram-%d\\n' % i, ('$FAR4', 5000))
    time.sleep(0.005)
"
}

# ---- the flow maker (npuflowd) on ports 3 and 8 -------------------------
# fm_firewall: conntrack on the host between the ports, invalid-state drops
# counted in the named counter "inv" (release must keep it at 0).
fm_firewall() {
	nft flush ruleset
	nft -f - <<'NFT'
table inet fw {
	counter inv { }
	chain forward {
		type filter hook forward priority 0; policy accept;
		ct state invalid counter name "inv" drop
		ct state established,related accept
	}
}
NFT
}
# udp_echo_far PORT [FILE]: a UDP server in far on PORT that answers each
# datagram with "ok" and, given FILE, appends each payload to it as a line;
# runs in the background, its pid in $! .
udp_echo_far() {
	ip netns exec far python3 -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("", int(sys.argv[1])))
f = open(sys.argv[2], "a", buffering=1) if len(sys.argv) > 2 else None
while True:
    b, a = s.recvfrom(2048)
    if f:
        f.write(b.decode(errors="replace") + "\n")
    s.sendto(b"ok", a)' "$@" &
}
# fm_setup: the flow-maker tests' start - modules, coprocessor 0 (8 ports,
# 2 queues), pc on port 3 and far on port 8 (result "topology"), the
# firewall, both families' neighbours resolved both ways.  Ends the test
# if the device or the firewall cannot be set up.
fm_setup() {
	npu_load && npu_new 0 8 2 || { ktap_fail "setup"; ktap_finish; }
	topo_pc_far 0; ktap_result $? "topology"
	fm_firewall || { ktap_fail "firewall (nft) loaded"; ktap_finish; }
	ip netns exec pc ping -c1 -W2 $FAR4 >/dev/null
	ip netns exec far ping -c1 -W2 $PC4 >/dev/null
	ip netns exec pc ping -6 -c1 -W2 $FAR6 >/dev/null
	ip netns exec far ping -6 -c1 -W2 $PC6 >/dev/null
}
# fm_setup_table T [NPUFLOWD OPTIONS...]: fm_setup with the coprocessor's
# connection table set to T (devlink resource set + reload), conntrack room
# for a big load, no give-back on TCG's retransmits, then npuflowd started
# (fm_start, with the options): the full-table tests' common start (three
# results).
fm_setup_table() {
	local dl=auxiliary/npusim.npu.0 t=$1
	shift
	fm_setup
	check "devlink resource set connections $t + reload" bash -c \
		"devlink resource set $dl path /fastpath/connections size $t && devlink dev reload $dl"
	sysctl -qw net.netfilter.nf_conntrack_max=65536 2>/dev/null
	echo 0 > /sys/kernel/debug/npusim/0/fp_retrans_max
	fm_start "$@"; ktap_result $? "npuflowd on $P3 $P8"
}
# fm_in_hw DEV: npuflowd's skip_sw rules on DEV's ingress that are in hardware.
fm_in_hw() {
	tc -j filter show dev "$1" ingress |
		jq '[.[] | select(.options.in_hw == true and .options.skip_sw == true)] | length'
}
# fm_share LABEL: true if, over 8 s, far received > 1,000 frames and the
# host took < 0.1 % of that in IP punts on ports 3 and 8.
fm_share() {
	local h0 w0 f0 h w
	h0=$(ip_punts); w0=$(link_stat -n far npuw0p8 rx_packets); f0=$(eth_sum "$P3" '^hw_fwd_frames$')
	sleep 8
	h=$(( $(ip_punts) - h0 )); w=$(( $(link_stat -n far npuw0p8 rx_packets) - w0 ))
	diag "$1: far received $w frames in 8 s (port 3 forwarded $(( $(eth_sum "$P3" '^hw_fwd_frames$') - f0 ))), the host took $h IP frames"
	[ "$w" -gt 1000 ] && [ $((h * 1000)) -lt "$w" ]
}
FM_PIN=/sys/fs/bpf/npfm-vm
FM_LOCK=/run/npfm-vm.lock
FM_CTL=/run/npfm-vm.sock
FM_LOG=/tmp/npfm-vm.log
FM_PID=
fm_ctl() { "$NPU_REPO/build/bin/npuctl" --pin-dir $FM_PIN --ctl-socket $FM_CTL --lock-file $FM_LOCK "$@"; }
fm_flows() { fm_ctl flows --json; }
# fm_start [NPUFLOWD OPTIONS...]: npuflowd on P3 P8, threshold 16 frames,
# keepalive every 500 ms; returns once its control socket is up.
fm_start() {
	local i
	ethtool -K "$P3" hw-tc-offload on; ethtool -K "$P8" hw-tc-offload on
	"$NPU_REPO/build/bin/npuflowd" -f -l debug -t 16 --keepalive-ms 500 --pin-dir $FM_PIN \
		--lock-file $FM_LOCK --ctl-socket $FM_CTL "$@" "$P3" "$P8" >>$FM_LOG 2>&1 &
	FM_PID=$!
	for i in $(seq 100); do [ -S $FM_CTL ] && return 0; sleep 0.1; done
	return 1
}
fm_stop() { [ -n "$FM_PID" ] && kill -TERM $FM_PID && wait $FM_PID; FM_PID=; }
fm_flush() { fm_stop; "$NPU_REPO/build/bin/npuflowd" --flush --pin-dir $FM_PIN --lock-file $FM_LOCK >/dev/null 2>&1; }
# fm_wait_jq SECONDS FILTER: until `npuctl flows --json | jq FILTER` is true.
fm_wait_jq() {
	local i
	for i in $(seq $(( $1 * 5 ))); do
		[ "$(fm_flows | jq -r "$2" 2>/dev/null)" = true ] && return 0
		sleep 0.2
	done
	return 1
}
# fm_rules DEV: our tc flower rules on DEV's ingress.
fm_rules() { tc -j filter show dev "$1" ingress | jq '[.[] | select(.options)] | length'; }
# wait_listen NETNS PORT: until a TCP socket listens on PORT in NETNS (a
# server started in the background is slow to bind under TCG).
wait_listen() {
	local i
	for i in $(seq 100); do
		ip netns exec "$1" ss -Hltn "sport = :$2" | grep -q . && return 0
		sleep 0.1
	done
	return 1
}
# ct_offloaded PORT: TCP connections to PORT that conntrack shows in
# hardware (HW_OFFLOAD: the flowtable's; such an entry shows no TCP state,
# so a state filter would miss it).  A finished stream's leave hardware
# once the flowtable sees their FIN.
ct_offloaded() { conntrack -L -p tcp --dport "$1" 2>/dev/null | grep -c HW_OFFLOAD; }
# wait_offloaded PORT N: until N connections to PORT are in hardware, at
# most 10 s; false if they were not.
wait_offloaded() {
	local i
	for i in $(seq 50); do [ "$(ct_offloaded "$1")" -ge "$2" ] && return 0; sleep 0.2; done
	return 1
}
# wait_unoffloaded PORT: until no connection to PORT is in hardware (the
# previous stream's are gone), at most 5 s.
wait_unoffloaded() {
	local i
	for i in $(seq 25); do [ "$(ct_offloaded "$1")" = 0 ] && return 0; sleep 0.2; done
	return 1
}
# iperf_server NS [PORT] [many]: iperf3's server in NS on PORT (5201), for
# one client (iperf3 -1) or, with "many", for every client that comes;
# returns once it listens (iperf3 -D detaches before it listens: a client
# started a fixed time after it is refused on a loaded guest).  A previous
# one-client server still listening there is let go first (its client has
# its results; the server exits after it), or the new one's bind fails.
iperf_server() {
	local port=${2:-5201} i

	for i in $(seq 50); do
		ip netns exec "$1" ss -Hltn "sport = :$port" | grep -q . || break
		sleep 0.1
	done
	ip netns exec "$1" iperf3 -s -D -p "$port" $([ "${3:-}" = many ] || echo -1) >/dev/null 2>&1
	wait_listen "$1" "$port"
}
# ip_punts: frames of IP unicast traffic the coprocessor punted to the host
# on ports 3 and 8 - not the ARP, neighbour discovery and multicast that
# share the host's ports.
ip_punts() {
	local r='^hw_punt_(flow_miss|not_active|tcp_flags|exception|mtu|fastpath_off)$'
	echo $(( $(eth_sum "$P3" "$r") + $(eth_sum "$P8" "$r") ))
}
# fm_stream ADDR [SECONDS]: one TCP connection pc -> ADDR:5201 at ~690
# frames/s (npuload, 1 MB/s) in the background; its pid in FM_CLI.
fm_stream() {
	ip netns exec pc "$NPU_REPO/build/bin/npuload" client -a "$1" -p 5201 -c 1 \
		-t "${2:-60}" -r 1000000 >/dev/null 2>&1 &
	FM_CLI=$!
}
# fm_cleanup: the flow-maker tests' EXIT trap - load stopped, npuflowd
# stopped, its rules and pinned maps gone, its log kept.
fm_cleanup() {
	[ -n "${FM_CLI:-}" ] && kill "$FM_CLI" 2>/dev/null
	ip netns pids pc 2>/dev/null | xargs -r kill 2>/dev/null
	ip netns pids far 2>/dev/null | xargs -r kill 2>/dev/null
	fm_flush
	# npuflowd's whole log (a failure prints only its tail) beside the
	# run's console log on the host: build/vm/last-K/npuflowd-TEST.log, K the
	# guest that ran TEST (tools/vm/suite)
	if [ -n "${NPUVM_OUT:-}" ] && [ -s $FM_LOG ]; then
		cp $FM_LOG "$NPUVM_OUT/npuflowd-$(basename "$0" .sh).log"
		: > $FM_LOG
	fi
}

# xfer FROM_NS TO_NS TO_ADDR PORT [MB]: MB (16) MB of seeded bytes over one
# TCP connection, sha256 at both ends (iperf3 checks no payload).  Prints
# "sent_bytes sent_sha recv_bytes recv_sha".
xfer() {
	local out mb=${5:-16}
	out=$(mktemp)
	ip netns exec "$2" python3 - "$4" > "$out" 2>&1 <<'PY' &
import hashlib, socket, sys
s = socket.create_server(("::", int(sys.argv[1])), family=socket.AF_INET6,
                         dualstack_ipv6=True)
s.settimeout(120)
c, _ = s.accept()
c.settimeout(120)
h, n = hashlib.sha256(), 0
while True:
    b = c.recv(1 << 16)
    if not b:
        break
    h.update(b)
    n += len(b)
print(n, h.hexdigest())
PY
	local srv=$!
	ip netns exec "$1" python3 - "$3" "$4" "$mb" <<'PY'
import hashlib, random, socket, sys, time
data = random.Random(30).randbytes(int(sys.argv[3]) << 20)
for _ in range(100):
    try:
        s = socket.create_connection((sys.argv[1], int(sys.argv[2])), 5)
        break
    except OSError:
        time.sleep(0.1)
s.sendall(data)
s.close()
print(len(data), hashlib.sha256(data).hexdigest(), end=" ")
PY
	wait $srv
	cat "$out"
	rm -f "$out"
}

# in_csum_errs NS: TCP segments NS's stack found with a bad checksum.
in_csum_errs() { ip netns exec "$1" nstat -asz TcpInCsumErrors | awk '$1 == "TcpInCsumErrors" { print $2 }'; }

# ---- a PPPoE session on port 8 (after topo_pc_far) -------------------------
# The ISP's concentrator is Debian's pppoe-server on far's wire (it relays
# each session through a user-space pppoe and a pty: correct, slow under
# TCG; its synchronous mode, -s, is not used: it reads the pty as if a read
# were a frame and under load sends two PPP frames in one session frame),
# the subscriber pppd's kernel-mode pppoe.so on P8 (ifname pppwan),
# MTU/MRU 1492, IPv4 from the server's pool and IPv6 (link-local ::1/::2,
# the global /64 and the routes by hand).  IP crosses only in the session:
# far's wire and P8 lose their addresses.  Options, logs and pid files go
# in DIR (the guest's root is read-only).
PPP_F4=10.64.0.1 PPP_F6=2001:db8:64::1 PPP_R6=2001:db8:64::2
# pppoe_up DIR [VID]: the concentrator, then pppwan_up DIR [VID].  With
# VID the session runs inside 802.1Q VLAN VID: on far's npuw0p8.VID and the
# router's P8.VID, which it makes.
pppoe_up() {
	local d=$1 vid=${2:-} wire=npuw0p8
	modprobe -a pppoe ppp_async || return 1
	ip -n far addr flush dev npuw0p8 && ip addr flush dev "$P8" || return 1
	if [ -n "$vid" ]; then
		wire=npuw0p8.$vid
		ip -n far link add link npuw0p8 name $wire type vlan id "$vid" &&
			ip -n far link set $wire up &&
			ip link add link "$P8" name "$P8.$vid" type vlan id "$vid" &&
			ip link set "$P8.$vid" up || return 1
	fi
	printf '%s\n' noauth noccp "lcp-echo-interval 0" "mtu 1492" "mru 1492" +ipv6 \
		"ip-up-script /bin/true" "ip-down-script /bin/true" > "$d/srv-opts"
	ip netns exec far pppoe-server -I $wire -L $PPP_F4 -R 10.64.0.2 -N 4 \
		-O "$d/srv-opts" -X "$d/srv.pid" || return 1
	pppwan_up "$d" "$vid"
}
# pppwan_up DIR [VID]: pppd on P8 (P8.VID with VID; again after it died),
# up to 60 s for IPCP and IPV6CP; sets PPP_PID (pppd), PPP_SID (the session
# id, from /proc/net/pppoe), PPP_R4 (the router's address), PPP_FAR (far's
# end).
pppwan_up() {
	local d=$1 i sid dev low=$P8${2:+.$2}
	pppd plugin pppoe.so "nic-$low" noauth noccp ifname pppwan mtu 1492 mru 1492 \
		lcp-echo-interval 0 noipdefault nodefaultroute +ipv6 ipv6 ::1,::2 \
		ip-up-script /bin/true ip-down-script /bin/true \
		logfile "$d/pppd.log" nodetach </dev/null >/dev/null 2>&1 &
	PPP_PID=$! PPP_R4= PPP_FAR=
	for i in $(seq 600); do
		PPP_R4=$(ip -4 -o addr show dev pppwan 2>/dev/null | awk '{ print $4 }')
		[ -n "$PPP_R4" ] && ip -6 addr show dev pppwan 2>/dev/null | grep -q fe80::1 && break
		sleep 0.1
	done
	[ -n "$PPP_R4" ] || { diag "pppwan: no session"; return 1; }
	# "%08X %pM %8s", the sid a __be16 read as a host integer
	read -r sid _ dev < <(awk -v d="$low" '$3 == d' /proc/net/pppoe)
	[ -n "$sid" ] || { diag "no session on $low in /proc/net/pppoe"; return 1; }
	PPP_SID=$(( (0x$sid & 0xff) << 8 | (0x$sid >> 8 & 0xff) ))
	for i in $(seq 100); do
		PPP_FAR=$(ip -n far -o -4 addr show | awk -v p="$PPP_R4/32" '$6 == p { print $2 }')
		[ -n "$PPP_FAR" ] && break
		sleep 0.1
	done
	[ -n "$PPP_FAR" ] || { diag "far has no device for $PPP_R4"; return 1; }
	ip -n far -6 addr flush scope global
	ip -n far -6 addr add $PPP_F6/64 dev "$PPP_FAR" nodad &&
		ip -n far -6 route replace 2001:db8:3::/64 dev "$PPP_FAR" &&
		ip -6 addr add $PPP_R6/64 dev pppwan nodad &&
		ip route replace default dev pppwan && ip -6 route replace default dev pppwan
}
# pppoe_down: pppd, the concentrator and its sessions' processes gone.
pppoe_down() {
	[ -n "${PPP_PID:-}" ] && kill "$PPP_PID" 2>/dev/null && wait "$PPP_PID" 2>/dev/null
	ip netns pids far 2>/dev/null | xargs -r kill 2>/dev/null
	PPP_PID=
}

# ft_router: the router of the PPPoE tests in flowtable mode and of the
# bench's PPPoE stream, after topo_pc_far: the flowtable on ports 3 and 8
# with counters, the LAN masqueraded out of pppwan (a PPPoE session's
# device, pppoe_up).
ft_router() {
	local pcmac r3
	ethtool -K "$P3" hw-tc-offload on; ethtool -K "$P8" hw-tc-offload on
	# Wires that check and fill in sums, as a real one carries them: far's
	# pppoe relay reads its frames raw.  far routes (no router solicitations).
	ip netns exec far ethtool -K npuw0p8 rx off; ip netns exec pc ethtool -K npuw0p3 rx off
	ip netns exec far sysctl -qw net.ipv6.conf.all.forwarding=1
	# pc and the router know each other's MACs: no neighbour discovery
	# (which the host takes) on port 3 while frames are counted
	pcmac=$(ip netns exec pc cat /sys/class/net/npuw0p3/address) r3=$(mac "$P3")
	ip neigh replace $PC4 lladdr "$pcmac" dev "$P3" nud permanent
	ip -6 neigh replace $PC6 lladdr "$pcmac" dev "$P3" nud permanent
	ip -n pc neigh replace $H3_4 lladdr "$r3" dev npuw0p3 nud permanent
	ip -n pc -6 neigh replace $H3_6 lladdr "$r3" dev npuw0p3 nud permanent
	nft -f - <<NFT
table inet fw {
	flowtable ft { hook ingress priority 0; devices = { $P3, $P8 }; flags offload; counter; }
	chain forward { type filter hook forward priority 0; policy accept; meta l4proto { tcp, udp } flow add @ft; }
}
table ip nat {
	chain postrouting { type nat hook postrouting priority 100; oifname "pppwan" masquerade; }
}
NFT
}
