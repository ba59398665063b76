# SPDX-License-Identifier: GPL-2.0
# Helpers for the end-to-end tests: KTAP output, faults injected on
# purpose, and the tests' own helpers (the flow maker's setup and waits,
# traffic with checks).  The device, the topologies, the counter readers,
# the firewall and npuflowd are the toolkit's (tools/lib/knobs.sh,
# counters.sh, topo.sh, firewall.sh, npuflowd.sh), sourced here, which the
# demo and the bench use too.  Source it from a selftests/vm/NN-name.sh
# script; the guest runs scripts as root with the repository as the working
# directory.

# KTAP through selftests/lib/tap.sh: "ok N NAME", no dash
TAP_SEP=" "
. "$(dirname "${BASH_SOURCE[0]}")/../lib/tap.sh"
diag() { tap_diag "$@"; }
for _f in knobs counters topo firewall npuflowd; do
	. "$(dirname "${BASH_SOURCE[0]}")/../../tools/lib/$_f.sh"
done
unset _f

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
	model_knob 0 fp_retrans_max 0 >/dev/null
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
# fm_wait_jq SECONDS FILTER: until `npuctl flows --json | jq FILTER` is true.
fm_wait_jq() {
	local i
	for i in $(seq $(( $1 * 5 ))); do
		[ "$(fm_flows | jq -r "$2" 2>/dev/null)" = true ] && return 0
		sleep 0.2
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

