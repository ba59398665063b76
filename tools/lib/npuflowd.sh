# SPDX-License-Identifier: GPL-2.0
# The flow maker (npuflowd) on ports 3 and 8, in the guest: started, asked
# (npuctl), stopped and flushed, with a pin directory, lock, control socket
# and log of its own (FM_PIN, FM_LOCK, FM_CTL, FM_LOG: the tests'; the demo
# sets its own after sourcing).  Sourced by bash, after tools/lib/knobs.sh
# (NPU_REPO): by selftests/vm/lib.sh, tools/demo/run and tools/bench/run.

FM_PIN=/sys/fs/bpf/npfm-vm
FM_LOCK=/run/npfm-vm.lock
FM_CTL=/run/npfm-vm.sock
FM_LOG=/tmp/npfm-vm.log
FM_PID=
fm_ctl() { "$NPU_REPO/build/bin/npuctl" --pin-dir $FM_PIN --ctl-socket $FM_CTL --lock-file $FM_LOCK "$@"; }
fm_flows() { fm_ctl flows --json; }
# fm_start [NPUFLOWD OPTIONS...]: npuflowd on P3 P8, threshold 16 frames,
# keepalive every 500 ms; 0 once its control socket is up, 1 at once if it
# exits first (its log: FM_LOG), or after 10 s.  A socket no npuflowd
# answers on (one killed) is removed first, so that it is not taken for
# the new one's.
fm_start() {
	local i
	ethtool -K "$P3" hw-tc-offload on; ethtool -K "$P8" hw-tc-offload on
	if [ -e $FM_CTL ] && ! fm_ctl status >/dev/null 2>&1; then rm -f $FM_CTL; fi
	"$NPU_REPO/build/bin/npuflowd" -f -l debug -t 16 --keepalive-ms 500 --pin-dir $FM_PIN \
		--lock-file $FM_LOCK --ctl-socket $FM_CTL "$@" "$P3" "$P8" >>$FM_LOG 2>&1 &
	FM_PID=$!
	for i in $(seq 100); do
		[ -S $FM_CTL ] && return 0
		kill -0 $FM_PID 2>/dev/null || { wait $FM_PID; FM_PID=; return 1; }
		sleep 0.1
	done
	return 1
}
fm_stop() { [ -n "$FM_PID" ] && kill -TERM $FM_PID && wait $FM_PID; FM_PID=; }
fm_flush() { fm_stop; "$NPU_REPO/build/bin/npuflowd" --flush --pin-dir $FM_PIN --lock-file $FM_LOCK >/dev/null 2>&1; }
# fm_rules DEV: our tc flower rules on DEV's ingress.
fm_rules() { tc -j filter show dev "$1" ingress | jq '[.[] | select(.options)] | length'; }
