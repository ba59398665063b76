#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Every ethtool/devlink setting of the host datapath round-trips, and every
# bad value is refused.
# timeout: 300
. "$(dirname "$0")/lib.sh"
ktap_plan 49

npu_load && npu_new 0 8 2 || { ktap_fail "setup"; ktap_finish; }
DL=auxiliary/npusim.npu.0
D=$(npu_port_dev 0 3)
ip link set "$D" up

ring() { ethtool -g "$D" | awk -v k="$1:" '/Current hardware settings/ { c = 1 } c && $1 == k { print $2 }'; }
ringmax() { ethtool -g "$D" | awk -v k="$1:" '/Pre-set maximums/ { c = 1 } /Current/ { c = 0 } c && $1 == k { print $2 }'; }
coal() { ethtool -c "$D" | awk -v k="$1:" '$1 == k { print $2 }'; }
chan() { ethtool -l "$D" | awk -v k="$1:" '/Current hardware settings/ { c = 1 } c && $1 == k { print $2 }'; }
param() {
	devlink -j dev param show $DL name "$1" |
		jq -r --arg c "$2" '.param[][0].values[] | select(.cmode == $c) | .value | tostring'
}
eq() { [ "$1" = "$2" ] || { diag "got '$1', want '$2'"; return 1; }; }

# ethtool -i, devlink info, port identity
check "ethtool -i: driver npuep" bash -c "ethtool -i $D | grep -q '^driver: npuep'"
check "devlink dev info: driver, fw, serial" bash -c \
	"devlink dev info $DL | grep -q 'driver npuep' && devlink dev info $DL | grep -q serial_number && devlink dev info $DL | grep -q 'fw'"
check "phys_port_name p3" eq "$(cat /sys/class/net/$D/phys_port_name)" p3
sw3=$(cat /sys/class/net/$D/phys_switch_id)
sw8=$(cat /sys/class/net/$(npu_port_dev 0 8)/phys_switch_id)
check "one switch id per coprocessor" eq "$sw3" "$sw8"

# rings: default 1024 (seed 003), max 4096
check "ring default rx 1024" eq "$(ring RX)" 1024
check "ring max rx 4096" eq "$(ringmax RX)" 4096
check "ethtool -G rx 2048 tx 512" ethtool -G "$D" rx 2048 tx 512
check "rx ring reads back 2048" eq "$(ring RX)" 2048
check "tx ring reads back 512" eq "$(ring TX)" 512
check_fail "ethtool -G rx 8192 (over max) refused" ethtool -G "$D" rx 8192
check_fail "ethtool -G rx 16 (under min) refused" ethtool -G "$D" rx 16
check "rx ring unchanged after refusals" eq "$(ring RX)" 2048

# coalescing: each field alone changes only itself
base_frames=$(coal rx-frames)
check "ethtool -C rx-usecs 20" ethtool -C "$D" rx-usecs 20
check "rx-usecs reads 20, rx-frames unchanged" bash -c "[ $(coal rx-usecs) = 20 ] && [ $(coal rx-frames) = $base_frames ]"
check "ethtool -C rx-frames 8" ethtool -C "$D" rx-frames 8
check "rx-frames reads 8, rx-usecs unchanged" bash -c "[ $(coal rx-frames) = 8 ] && [ $(coal rx-usecs) = 20 ]"
check "ethtool -C rx-frames-irq 16" ethtool -C "$D" rx-frames-irq 16
check "rx-frames-irq reads 16" eq "$(coal rx-frames-irq)" 16
check_fail "rx-frames-irq 65 refused (NAPI weight caps a poll at 64)" ethtool -C "$D" rx-frames-irq 65
check_fail "rx-frames-irq 0 refused" ethtool -C "$D" rx-frames-irq 0
check "ethtool -C adaptive-rx on" ethtool -C "$D" adaptive-rx on
check "adaptive-rx reads on" bash -c "ethtool -c $D | grep -q 'Adaptive RX: on'"
check "ethtool -C adaptive-rx off" ethtool -C "$D" adaptive-rx off
check_fail "rx-usecs 1000000 refused" ethtool -C "$D" rx-usecs 1000000

# Each accepted field set alone to a new value: the one line of ethtool -c/-g
# that changes is that field's (after netdevsim's ethtool-coalesce.sh and
# ethtool-ring.sh).
alone() { # NAME SHOW-OPTION CHANGED-LINE-ERE COMMAND...
	local name=$1 opt=$2 re=$3 before after ch rc; shift 3
	before=$(ethtool "$opt" "$D")
	"$@" || { ktap_fail "$name (refused)"; return; }
	after=$(ethtool "$opt" "$D")
	ch=$(diff <(echo "$before") <(echo "$after") | sed -n 's/^> //p')
	[ "$(echo "$ch" | grep -c .)" = 1 ] && echo "$ch" | grep -qE "$re"
	rc=$?
	[ $rc = 0 ] || diag "changed: $(echo "$ch" | xargs)"
	ktap_result $rc "$name"
}
alone "ethtool -C rx-usecs 30 alone changes only rx-usecs" -c '^rx-usecs:\s+30$' ethtool -C "$D" rx-usecs 30
alone "ethtool -C rx-frames 12 alone changes only rx-frames" -c '^rx-frames:\s+12$' ethtool -C "$D" rx-frames 12
alone "ethtool -C rx-frames-irq 32 alone changes only rx-frames-irq" -c '^rx-frames-irq:\s+32$' ethtool -C "$D" rx-frames-irq 32
alone "ethtool -C adaptive-rx on alone changes only adaptive-rx" -c '^Adaptive RX:\s+on\b' ethtool -C "$D" adaptive-rx on
ethtool -C "$D" adaptive-rx off
alone "ethtool -G rx 1024 alone changes only the rx ring" -g '^RX:\s+1024$' ethtool -G "$D" rx 1024
alone "ethtool -G tx 256 alone changes only the tx ring" -g '^TX:\s+256$' ethtool -G "$D" tx 256

# channels
check "channels: combined 2 by default" eq "$(chan Combined)" 2
check "ethtool -L combined 1" ethtool -L "$D" combined 1
check "combined reads 1" eq "$(chan Combined)" 1
check_fail "ethtool -L combined 3 (over max) refused" ethtool -L "$D" combined 3
check "ethtool -L combined 2" ethtool -L "$D" combined 2

# RSS
check "ethtool -X equal 1" ethtool -X "$D" equal 1
check "indirection table all queue 0" bash -c "ethtool -x $D | awk '/^ *[0-9]+:/ { for (i = 2; i <= NF; i++) if (\$i != 0) bad = 1 } END { exit bad }'"
check "ethtool -X default" ethtool -X "$D" default

# MTU
check "MTU 1400" ip link set "$D" mtu 1400
check "MTU 9000 (jumbo: multi-page receive buffers)" ip link set "$D" mtu 9000
check "max_mtu 9194 (NPU_MAX_FRAME 9216 - 22)" eq "$(ip -j -d link show dev "$D" | jq '.[0].max_mtu')" 9194
check_fail "MTU 9195 (over max_mtu) refused" ip link set "$D" mtu 9195
check "MTU 1500 again" ip link set "$D" mtu 1500
check_fail "MTU 67 refused" ip link set "$D" mtu 67

# devlink params
check "poll_interval_us=5000 (runtime)" devlink dev param set $DL name poll_interval_us value 5000 cmode runtime
check "poll_interval_us reads 5000" eq "$(param poll_interval_us runtime)" 5000
check_fail "poll_interval_us=10000000 refused" devlink dev param set $DL name poll_interval_us value 10000000 cmode runtime
check "rx_doorbells=false (driverinit)" devlink dev param set $DL name rx_doorbells value false cmode driverinit
check "driverinit value shows at once" eq "$(param rx_doorbells driverinit)" false
ktap_finish
