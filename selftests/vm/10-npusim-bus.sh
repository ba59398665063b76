#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The coprocessor model's bus: new_device/del_device with good and bad
# input, the auxiliary device, interrupt vectors, wire netdevs (naming,
# carrier, a move into a netns and back), debugfs, and unloading the two
# modules in either order with devices present.
# timeout: 600
. "$(dirname "$0")/lib.sh"
ktap_plan 39

NEW=/sys/bus/npusim/new_device
DEL=/sys/bus/npusim/del_device
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
npu_unload

# the model's vectors: those of its irq chip, "npusim"
n_vec() { grep -lx npusim /sys/kernel/irq/*/chip_name 2>/dev/null | wc -l; }
vec0=$(n_vec)

check "insmod npusim" npu_load nodriver
check "bus registered" test -w $NEW -a -w $DEL

check "new_device \"1 2 3\"" sh -c "echo '1 2 3' > $NEW"
check "bus device npusim1" test -d /sys/bus/npusim/devices/npusim1
check "auxiliary device npusim.npu.1" test -d /sys/bus/auxiliary/devices/npusim.npu.1
check "wire netdevs npuw1p1 and npuw1p2" ip link show npuw1p2
check_fail "no wire npuw1p3" ip link show npuw1p3
ktap_result $([ $(( $(n_vec) - vec0 )) = 7 ]; echo $?) "7 vectors (1 + 2 ports x 3 queues) mapped"
check "debugfs per port and queue" test -r /sys/kernel/debug/npusim/1/p2/q2 -a -r /sys/kernel/debug/npusim/1/p1/stats

# Bad input: each refused with -EINVAL and a reason in the log.
# write FILE TEXT: print the errno name of the write, or "ok".
write_errno() {
	python3 -c '
import errno, os, sys
fd = os.open(sys.argv[1], os.O_WRONLY)
try:
    os.write(fd, sys.argv[2].encode())
    print("ok")
except OSError as e:
    print(errno.errorcode[e.errno])
' "$1" "$2"
}
bad() {
	local what=$1 input=$2 err
	dmesg -C
	err=$(write_errno $NEW "$input")
	[ "$err" = EINVAL ] || { diag "write gave $err"; ktap_fail "refused: $what"; return; }
	dmesg | grep -q "npusim.*new_device" || { diag "no reason logged"; ktap_fail "refused: $what"; return; }
	ktap_ok "refused with EINVAL and a reason: $what"
}
bad "duplicate id" "1 1 1"
bad "zero ports" "2 0 1"
bad "17 ports" "2 17 1"
bad "zero queues" "2 1 0"
bad "17 queues" "2 1 17"
bad "negative" "-2 1 1"
bad "garbage" "two 1 1"
bad "extra field" "2 1 1 1"
bad "empty" " "
bad "id above 65535" "65536 1 1"
check_fail "nothing created by bad input" test -d /sys/bus/npusim/devices/npusim2

check "defaults: new_device \"2\" is 1 port, 1 queue" sh -c "echo 2 > $NEW && ip link show npuw2p1 && ! ip link show npuw2p2"
check "max ports and queues: \"65535 16 16\"" sh -c "echo '65535 16 16' > $NEW && ip link show npuw65535p16"

# Wire: carrier follows the host side (down: no driver), link goes up.
ip link set npuw1p1 up
check "wire up, no carrier while the host port is down" \
	sh -c "[ \$(cat /sys/class/net/npuw1p1/operstate) != up ] && [ \$(cat /sys/class/net/npuw1p1/carrier) = 0 ]"
check "wire ethtool reports the npusim driver" sh -c "ethtool -i npuw1p1 | grep -q 'driver: npusim'"

# netns: move a wire, delete the device with it there, and refund on netns exit.
ip netns del t10 2>/dev/null
ip netns add t10
check "move npuw1p2 into a netns" ip link set npuw1p2 netns t10
check "npuw1p2 seen in the netns" ip -n t10 link show npuw1p2
check "ip link del of a wire is refused" sh -c "! ip -n t10 link del npuw1p2 2>/dev/null"
check "del_device 1 with a wire in a netns" sh -c "echo 1 > $DEL"
check "its wires are gone, also from the netns" sh -c "! ip link show npuw1p1 2>/dev/null && ! ip -n t10 link show npuw1p2 2>/dev/null"
check "its auxiliary device is gone" test ! -e /sys/bus/auxiliary/devices/npusim.npu.1
ip link set npuw2p1 netns t10
ip netns del t10
ok=1
for i in $(seq 50); do ip link show npuw2p1 >/dev/null 2>&1 && { ok=0; break; }; sleep 0.1; done
ktap_result $ok "a wire comes back to init_net when its netns is deleted"

check_fail "del_device of an unknown id fails" sh -c "echo 7 > $DEL"
check_fail "del_device garbage fails" sh -c "echo x > $DEL"

# Host driver bound; unload the model first, then the driver first.
if [ -r "$NPU_REPO/kernel/npuep/npuep.ko" ]; then
	check "npuep binds; the command vector fired (/proc/interrupts)" sh -c "
		echo '3 2 2' > $NEW && insmod $NPU_REPO/kernel/npuep/npuep.ko && sleep 1 &&
		awk '/npusim.npu.3\$/ { for (i = 2; i <= NF; i++) if (\$i ~ /^[0-9]+\$/) n += \$i } END { exit !(n > 0) }' /proc/interrupts"
	grep -w npusim /proc/interrupts | head -6 | sed 's/^/# /'
	check "rmmod npusim with npuep bound and devices present" rmmod npusim
	check "rmmod npuep with npusim devices present" sh -c "
		insmod $NPU_REPO/kernel/npusim/npusim.ko && echo '4 1 1' > $NEW && sleep 0.5 &&
		rmmod npuep && rmmod npusim"
else
	ktap_skip "npuep binds (npuep.ko not built)"
	ktap_skip "rmmod npusim with npuep bound"
	ktap_skip "rmmod npuep with npusim devices present"
	rmmod npusim
fi

# Teardown under traffic: del_device, then rmmod npusim, with iperf3 and a
# ping flood crossing the model (pc -> host -> far); the runner checks dmesg.
# The vectors alternate between CPU 0 and CPU 1 (smp_affinity_list), so
# that raises cross CPUs by IPI while the model goes.
traffic() {
	local i n=0
	for i in $(grep -lx npusim /sys/kernel/irq/*/chip_name); do
		i=${i%/chip_name}; i=/proc/irq/${i##*/}/smp_affinity_list
		[ -e "$i" ] && echo $((n++ % 2)) > "$i"	# a vector npuep requested
	done
	iperf_server far 5201 many
	ip netns exec pc iperf3 -c $FAR4 -t 30 >/dev/null 2>&1 &
	ip netns exec pc iperf3 -c $FAR4 -t 30 -R >/dev/null 2>&1 &
	ip netns exec pc ping -f -w 20 $FAR4 >/dev/null 2>&1 &
	sleep 4
	grep -w npusim /proc/interrupts | sed 's/^/# /'
}
untraffic() {
	kill $(jobs -p) 2>/dev/null; wait 2>/dev/null
	pkill iperf3; ip netns del pc 2>/dev/null; ip netns del far 2>/dev/null
}
if [ -r "$NPU_REPO/kernel/npuep/npuep.ko" ] && npu_load && npu_new 5 8 2 && topo_pc_far 5; then
	traffic
	check "del_device with traffic running" sh -c "echo 5 > $DEL"
	untraffic
	if npu_new 6 8 2 && topo_pc_far 6; then
		traffic
		check "rmmod npusim with traffic running" rmmod npusim
	else
		ktap_fail "rmmod npusim with traffic running (setup)"
	fi
	untraffic
	npu_unload
else
	ktap_skip "del_device with traffic running (no npuep or setup failed)"
	ktap_skip "rmmod npusim with traffic running"
	untraffic
	npu_unload
fi
ktap_result $([ "$(n_vec)" = "$vec0" ] && ! grep -q '^npusim ' /proc/modules; echo $?) \
	"everything gone after unload (vectors, module)"
ktap_finish
