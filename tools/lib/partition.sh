# SPDX-License-Identifier: GPL-2.0
# The guest's vCPUs in three groups, as the appliance has them in three
# kinds of silicon:
#   router  the host's cores: npuep's vectors and NAPI, the host's stack,
#           npuflowd, and what of the host's kernel cannot be pinned
#           (kworkers, RCU): on the appliance that is the host's too;
#   coproc  the coprocessor's cores: npusim's work (its ingress and fast
#           path, transmit passes, command loop, coalescing timers), set
#           with its debugfs knob "cores";
#   hosts   the machines at the cables' far ends: each test host's wire
#           NAPI (threaded, in its kthread) and every process in its
#           netns, on one vCPU of the group each (in order, round robin);
#           and the lab: the script that applied the partition, and the
#           interrupts of the guest's 9p shares and console.
# A partition is "router=LIST coproc=LIST hosts=LIST", each LIST a cpulist
# (0, 2-3, 1,4), the groups disjoint; the guest has as many vCPUs as its
# highest CPU + 1.  tools/vm/boot --partition boots such a guest and hands
# the partition to the job as $NPU_PARTITION; tools/demo/run and
# tools/bench/run apply it (part_apply) and state it (part_describe,
# part_json).  Each group's CPU time is then read on the host as its vCPU
# threads' (QEMU's debug-threads names them "CPU N/TCG";
# tools/demo/vcpu-watch).
# Sourced by bash (tools/vm/boot on the host; the demo and the bench in the
# guest); the part_* functions return non-zero and say why on stderr.

# the demo's and the bench's: one vCPU each for the router and the
# coprocessor, one for each of the two test hosts
PART_DEFAULT="router=0 coproc=1 hosts=2-3"
# The test hosts' processes and NAPI threads run at this nice value: the
# harness that applied the partition shares their vCPUs (the lab's, not
# the router's), and its windows open and close on time only if a busy
# test host yields to it at once.
PART_NICE=10
# The kernel threads that run on the test hosts' vCPUs, not the router's
# (an extended regex of their comm; _part_kthreads): RCU's grace-period
# kthreads, normal and expedited.
PART_LAB_KTHREADS='rcu_preempt|rcu_sched|rcu_exp_gp_kthread_worker|rcu_exp_par_gp_kthread_worker/[0-9]+'

# part_cpus LIST: the CPUs of a cpulist, space separated, ascending as
# written; non-zero for a malformed list.
part_cpus() {
	local r a b out=() IFS=,
	for r in $1; do
		case $r in
		'' | *[!0-9-]* | -* | *- | *-*-*) return 1 ;;
		*-*) a=${r%-*} b=${r#*-} ;;
		*) a=$r b=$r ;;
		esac
		a=$((10#$a)) b=$((10#$b))
		[ "$a" -le "$b" ] || return 1
		for ((; a <= b; a++)); do out+=("$a"); done
	done
	[ ${#out[@]} -gt 0 ] || return 1
	IFS=' '
	echo "${out[*]}"
}

# part_parse SPEC: sets PART_SPEC, PART_ROUTER, PART_COPROC, PART_HOSTS
# (cpulists as given) and PART_NCPUS (the vCPUs the guest needs).
part_parse() {
	local w k v c seen=" " max=-1
	PART_SPEC=$1 PART_ROUTER= PART_COPROC= PART_HOSTS=
	for w in $1; do
		k=${w%%=*} v=${w#*=}
		[ "$k" != "$w" ] || { echo "partition: \"$w\": not GROUP=CPULIST" >&2; return 1; }
		part_cpus "$v" >/dev/null || { echo "partition: \"$v\": not a cpulist" >&2; return 1; }
		case $k in
		router) PART_ROUTER=$v ;;
		coproc) PART_COPROC=$v ;;
		hosts) PART_HOSTS=$v ;;
		*) echo "partition: \"$k\": no such group (router, coproc, hosts)" >&2; return 1 ;;
		esac
		for c in $(part_cpus "$v"); do
			[[ $seen == *" $c "* ]] && { echo "partition: CPU $c is in two groups" >&2; return 1; }
			seen+="$c "
			[ "$c" -gt $max ] && max=$c
		done
	done
	[ -n "$PART_ROUTER" ] && [ -n "$PART_COPROC" ] && [ -n "$PART_HOSTS" ] ||
		{ echo "partition: \"$1\" lacks a group (router=, coproc=, hosts=)" >&2; return 1; }
	PART_NCPUS=$((max + 1))
}

# part_host_cpu I: the vCPU of the I-th test host (0-based): the hosts
# group's CPUs in turn.
part_host_cpu() {
	local -a h
	read -r -a h <<<"$(part_cpus "$PART_HOSTS")"
	echo "${h[$1 % ${#h[@]}]}"
}

# part_describe: the partition in one line (after part_apply: with the
# test hosts by name).
part_describe() {
	local i s=
	for ((i = 0; i < ${#PART_NS[@]}; i++)); do
		s+="${s:+, }${PART_NS[i]} on $(part_host_cpu "$i")"
	done
	[ -n "$s" ] && s=" ($s: each its wire's NAPI thread and its processes), the harness and the guest's other devices (9p, console)"
	echo "router vCPU $PART_ROUTER (npuep's vectors, the host's stack, npuflowd, the kernel's unpinned threads but RCU's grace-period ones);" \
		"coprocessor vCPU $PART_COPROC (npusim's cores); test hosts vCPU $PART_HOSTS$s"
}

# part_json: the partition as a JSON object: the spec, each group's CPUs,
# the test hosts' ("name": CPU).
part_json() {
	local i g v s='' h=''
	for g in router coproc hosts; do
		v=PART_${g^^}
		s+=", \"$g\": [$(part_cpus "${!v}" | sed 's/ /, /g')]"
	done
	for ((i = 0; i < ${#PART_NS[@]}; i++)); do
		h+="${h:+, }\"${PART_NS[i]}\": $(part_host_cpu "$i")"
	done
	echo "{\"spec\": \"$PART_SPEC\"$s, \"test_hosts\": {$h}}"
}

# part_cpu NS: the vCPU of test host NS (one of part_apply's).
part_cpu() {
	local i
	for ((i = 0; i < ${#PART_NS[@]}; i++)); do
		[ "${PART_NS[i]}" = "$1" ] && { part_host_cpu "$i"; return 0; }
	done
	echo "partition: no test host $1" >&2
	return 1
}

# part_prefix NS: the command words that run a program as test host NS:
# in its netns, on its vCPU, at PART_NICE.  Each execs the next, so a
# program started in the background through them is $!.
part_prefix() {
	local cpu
	cpu=$(part_cpu "$1") || return 1
	echo "ip netns exec $1 taskset -c $cpu nice -n $PART_NICE"
}

# part_ns NS COMMAND...: COMMAND as test host NS (part_prefix).  A
# function: in the background its $! is not COMMAND's.
part_ns() {
	local -a p
	read -r -a p <<<"$(part_prefix "$1")" && [ ${#p[@]} -gt 0 ] || return 1
	shift
	"${p[@]}" "$@"
}

# part_mask LIST: a cpulist as the hex mask /proc/irq/default_smp_affinity takes.
part_mask() {
	local c m=0
	for c in $(part_cpus "$1"); do m=$((m | 1 << c)); done
	printf '%x\n' $m
}

# _part_irqs ID: the vectors of coprocessor ID (its command channel,
# npusim.npu.ID, and its ports' queues, NETDEV-qN) on the router's vCPUs,
# and the new interrupts by default; each vector with a handler must then
# have its effective CPU among them.  The guest's other devices - the 9p
# shares and the console, the lab's plumbing, not the appliance's - go to
# the test hosts' vCPUs, with the harness and the test hosts that use
# them.
_part_irqs() {
	local id=$1 f a e n re="^(npusim\\.npu\\.$id"
	for f in /sys/bus/auxiliary/devices/npusim.npu.$id/net/*; do
		[ -e "$f" ] && re+="|${f##*/}-q[0-9]+"
	done
	re+=")\$"
	part_mask "$PART_ROUTER" > /proc/irq/default_smp_affinity
	# (the per-CPU and managed ones refuse: the local timer, virtio's queues)
	for f in /sys/kernel/irq/[0-9]*; do
		a=
		read -r a < "$f/actions" 2>/dev/null
		if [[ $a =~ $re ]]; then
			echo "$PART_ROUTER"
		else
			echo "$PART_HOSTS"
		fi 2>/dev/null > "/proc/irq/${f##*/}/smp_affinity_list"
	done
	for f in /sys/kernel/irq/[0-9]*; do
		read -r a < "$f/actions" 2>/dev/null || continue
		[[ $a =~ $re ]] || continue
		n=${f##*/} e=
		read -r e < "/proc/irq/$n/effective_affinity_list" 2>/dev/null
		if [ -z "$e" ] || [[ " $(part_cpus "$PART_ROUTER") " != *" $e "* ]]; then
			echo "partition: irq $n ($a) runs on CPU ${e:-?}, not on the router's $PART_ROUTER:" \
				"the model's irq chip must honour smp_affinity (issue 32)" >&2
			return 1
		fi
	done
}

# _part_wire NS WIRE CPU: the wire's NAPI in a kthread of its own
# (napi/WIRE-ID), pinned to CPU, at PART_NICE; and a root qdisc on the
# wire, a FIFO, that holds the sender's frames while the model's port
# pushes back (its ingress FIFO full: the wire's queue stopped, as a
# MAC's pause frames do) where the default noqueue would drop them.
_part_wire() {
	local ns=$1 w=$2 cpu=$3 p c n=0
	tc -n "$ns" qdisc replace dev "$w" root pfifo limit 1000 || {
		echo "partition: $w in $ns takes no queue" >&2
		return 1
	}
	ip netns exec "$ns" sh -c "echo 1 > /sys/class/net/$w/threaded" || {
		echo "partition: $w in $ns takes no threaded NAPI" >&2
		return 1
	}
	for p in /proc/[0-9]*; do
		read -r c < "$p/comm" 2>/dev/null || continue
		[[ $c == "napi/$w-"* ]] || continue
		taskset -pc "$cpu" "${p#/proc/}" >/dev/null && renice -n $PART_NICE -p "${p#/proc/}" >/dev/null || return 1
		n=$((n + 1))
	done
	[ $n -gt 0 ] || { echo "partition: no NAPI thread napi/$w-* after threaded=1" >&2; return 1; }
}

# _part_kthreads: the kernel's threads that may run anywhere (kswapd,
# kcompactd, khungtaskd...) and the unbound workqueues' on the router's
# vCPUs: on the appliance they are the host's.  The per-CPU ones refuse
# (the model's work items are on per-CPU workqueues of its cores); a NAPI
# thread is left where _part_wire put it.  RCU's grace-period kthreads
# (PART_LAB_KTHREADS) go to the test hosts' vCPUs: in the one kernel of
# the model they serve every vCPU, and a fast-path window's grace periods
# are the test hosts' and the model's (on the appliance, other machines'
# kernels); on the router's vCPU they were nearly all its busy time there
# and most of its wakeups (docs/measurements.md, "How the demo's CPU
# figures are taken").  Fork-free but for each move.
_part_kthreads() {
	local p l k v c all f
	part_mask "$PART_ROUTER" > /sys/devices/virtual/workqueue/cpumask || {
		echo "partition: the unbound workqueues would not move to the router's vCPU $PART_ROUTER" >&2
		return 1
	}
	all="0-$(($(getconf _NPROCESSORS_ONLN) - 1))"
	for p in /proc/[0-9]*; do
		read -r l < "$p/stat" 2>/dev/null || continue
		c=${l%%)*} c=${c#*(}
		[[ $c == napi/* ]] && continue
		read -r -a f <<<"${l##*) }"
		(( f[6] & 0x200000 )) || continue	# PF_KTHREAD
		v=
		while read -r k l; do
			[ "$k" = Cpus_allowed_list: ] && v=$l
		done < "$p/status"
		[ "$v" = "$all" ] || continue
		if [[ $c =~ ^($PART_LAB_KTHREADS)$ ]]; then
			taskset -pc "$PART_HOSTS" "${p#/proc/}" >/dev/null 2>&1
		else
			taskset -pc "$PART_ROUTER" "${p#/proc/}" >/dev/null 2>&1
		fi
	done
	return 0
}

# part_apply ID NS:WIRE...: in the guest, coprocessor ID and its test
# hosts' netns (each with its wire) set up, before any traffic: the
# model's work on the coprocessor's vCPUs (debugfs cores), every steerable
# interrupt on the router's (npuep's vectors must follow), each test host
# on its vCPU (its wire's NAPI thread and queue; its processes through
# part_prefix and part_ns), the kernel's free threads on the router's,
# and the caller - the harness, the lab's, not the router's - on the test
# hosts' group.  Sets PART_NS (the test hosts, in order).
part_apply() {
	local id=$1 i x knob=/sys/kernel/debug/npusim/$1/cores
	shift
	[ "$(getconf _NPROCESSORS_ONLN)" -ge "$PART_NCPUS" ] ||
		{ echo "partition: \"$PART_SPEC\" needs $PART_NCPUS vCPUs, the guest has $(getconf _NPROCESSORS_ONLN)" >&2; return 1; }
	[ -w "$knob" ] || { echo "partition: no $knob: the model cannot keep its work on cores of its own (issue 32)" >&2; return 1; }
	echo "$PART_COPROC" > "$knob" || return 1
	read -r x < "$knob"
	[ "$(part_cpus "$x")" = "$(part_cpus "$PART_COPROC")" ] ||
		{ echo "partition: $knob reads \"$x\" after writing $PART_COPROC" >&2; return 1; }
	_part_irqs "$id" || return 1
	PART_NS=()
	for x in "$@"; do
		i=${#PART_NS[@]}
		PART_NS+=("${x%%:*}")
		_part_wire "${x%%:*}" "${x#*:}" "$(part_host_cpu "$i")" || return 1
	done
	_part_kthreads || return 1
	taskset -pc "$PART_HOSTS" $$ >/dev/null
}
