# SPDX-License-Identifier: GPL-2.0
# The model's device and its knobs, in the guest: the modules loaded, a
# coprocessor created and its ports' host netdevs and wires found, the
# model's debugfs knobs (/sys/kernel/debug/npusim/ID/) and the driver's
# devlink parameters read and set.  Sourced by bash, with the repository
# as the working directory: by selftests/vm/lib.sh (the tests),
# tools/demo/run and tools/bench/run (after tools/lib/counters.sh, before
# tools/lib/topo.sh).

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
	local t
	t=$(tracefs)
	# record-cmd off: with it an event's enable also hooks the scheduler's
	# sched_switch and sched_wakeup tracepoints to record comms, patching
	# the hottest text there is (an int3 oops in ttwu_do_activate, 4 vCPUs)
	mkdir -p $t/instances/npuvm-keys 2>/dev/null && {
		echo 0 > $t/instances/npuvm-keys/options/record-cmd
		echo 1 > $t/instances/npuvm-keys/events/xdp/xdp_exception/enable
	} 2>/dev/null
	return 0
}
# tracefs: where tracing is mounted (tracefs, or under debugfs).
tracefs() { if [ -d /sys/kernel/tracing/instances ]; then echo /sys/kernel/tracing; else echo /sys/kernel/debug/tracing; fi; }

# npu_load [nodriver]: the model's module and (unless nodriver) npuep's,
# each unless loaded; the static keys pinned first (npu_pin_keys).
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

# model_knob ID KNOB [VALUE]: VALUE written to the model's debugfs knob
# KNOB of coprocessor ID, if given; then the knob as the model reads it
# back.  Non-zero if it cannot be written or read.
model_knob() {
	local f=/sys/kernel/debug/npusim/$1/$2 v
	if [ $# -gt 2 ]; then echo "$3" > "$f" || return 1; fi
	read -r v < "$f" || return 1
	echo "$v"
}
# model_knobs "KNOB=VALUE ..." [ID]: each knob of coprocessor ID (0)
# written (model_knob); a "KNOB VALUE" line each, the value read back.
# Stops at the first that cannot be written, saying which on stderr.
model_knobs() {
	local id=${2:-0} kv v
	for kv in $1; do
		v=$(model_knob "$id" "${kv%%=*}" "${kv#*=}") || { echo "cannot set the model's $kv" >&2; return 1; }
		echo "${kv%%=*} $v"
	done
}
# dl_param NAME [DEV]: the devlink runtime value of the parameter NAME of
# device DEV (as devlink names it; auxiliary/npusim.npu.0).
dl_param() {
	devlink dev param show "${2:-auxiliary/npusim.npu.0}" name "$1" | awk '$1 == "cmode" { print $NF }'
}
