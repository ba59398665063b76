# SPDX-License-Identifier: GPL-2.0
# Counter readers, in the guest: the ports' ethtool -S and stats64, the
# test hosts' /proc/net/dev, the CPU's ticks, the model's fast-path tables,
# the driver's command rings and traps, and snapshots of the tasks and the
# interrupts around a window.  Sourced by bash: by selftests/vm/lib.sh,
# tools/demo/run and tools/bench/run.
#
# Fork-free: cpu_now, fp_now, sysfs_stat, proc_net_dev, link_stat (without
# -n) and irqsnap read procfs, sysfs and debugfs with bash builtins only,
# for the demo's and the bench's measurement windows: under TCG a fork
# costs tens of ms of the guest's CPU, which a window would count as the
# router's.  Keep them so.  The others fork (ethtool, jq, devlink, cat):
# around a window, never inside it.

# eth_stat DEV COUNTER: ethtool -S value of one counter.
eth_stat() { ethtool -S "$1" | awk -v k="$2:" '$1 == k { print $2 }'; }
# eth_sum DEV REGEX: sum of the ethtool -S counters whose names match an
# extended regex.
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
# sysfs_stat VAR DEV FIELD: /sys/class/net/DEV/statistics/FIELD into VAR
# (fork-free).
sysfs_stat() { read -r "$1" < "/sys/class/net/$2/statistics/$3"; }
# proc_net_dev VAR PID COLUMN DEV...: the sum of a /proc/net/dev column
# (2 = rx packets, 10 = tx packets) over DEVs in the netns of process PID
# (fork-free).
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

# cpu_now: CPU_TOT and CPU_BUSY, /proc/stat's all CPUs in USER_HZ ticks
# (fork-free).
# shellcheck disable=SC2034 # set for the caller
cpu_now() {
	local c u n s i w q sq r
	read -r c u n s i w q sq r < /proc/stat
	CPU_BUSY=$((u + n + s + q + sq)) CPU_TOT=$((u + n + s + i + w + q + sq))
}
# fp_now [ID]: the model's fast-path tables (debugfs fp_stats of
# coprocessor ID, 0): HW_CONNS HW_MFLOWS HW_FWD HW_RECLAIMED (fork-free).
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

# tasksnap FILE: /proc/stat and every task's stat, for what ran on the
# router's vCPU around a window (the demo's diag_router, the bench's
# stats.py cputasks).  A fork and a few hundred files read: taken before a
# window's traffic starts and after it closes, never at its edges.
tasksnap() { cat /proc/stat /proc/[0-9]*/task/[0-9]*/stat > "$1" 2>/dev/null; }
# irqsnap FILE [ID]: interrupts and softirqs at a window's edges,
# fork-free (builtins only: a fork at the edge would open the window late
# and take the host's cores from the traffic): /proc/interrupts, a
# "-- softirqs" line and /proc/softirqs, a "-- core_work" line and the
# model's work CPU by CPU (debugfs core_work of coprocessor ID, 0), in
# FILE; /proc/stat (the guest's own view of each CPU) in FILE.stat.
irqsnap() {
	local i s c=() cw=/sys/kernel/debug/npusim/${2:-0}/core_work
	mapfile i < /proc/interrupts
	mapfile s < /proc/softirqs
	[ -r $cw ] && mapfile c < $cw
	printf %s "${i[@]}" $'-- softirqs\n' "${s[@]}" $'-- core_work\n' "${c[@]}" > "$1"
	mapfile s < /proc/stat
	printf %s "${s[@]}" > "$1.stat"
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
