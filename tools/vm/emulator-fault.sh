# SPDX-License-Identifier: GPL-2.0
# The emulator's known fault, recognised here for tools/vm/suite (which
# boots once more for the tests a guest did not finish) and for
# tools/vm/boot --retry-emulator-fault (which boots the same job once
# more; make demo, make bench): a guest dying of an "Oops: int3" - a
# breakpoint that a kernel text patch (a static key, the BPF dispatcher)
# leaves for an instant, executed by another vCPU, since QEMU's
# multi-threaded TCG does not serialize cross-modifying code (see
# npu_pin_keys in tools/lib/knobs.sh).  Sourced by bash.

# emulator_fault CONSOLE: whether the guest console log CONSOLE shows the
# emulator's fault (for a guest that tools/vm/boot ended with 125).
emulator_fault() {
	grep -aq 'Oops: int3' "$1" 2>/dev/null
}
