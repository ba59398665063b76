#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Seed 004's thousand connections: 1,024 TCP connections from npuload,
# nftables flowtable offload on ports 3 and 8.  While the load runs all of
# them are in hardware and the host takes < 1 % of their frames; then
# `conntrack -F` empties the table in one pass.  Then a table made small
# with `devlink resource set` + reload: the overflow stays on the host
# path, counted, and the traffic does not notice.
# timeout: 600
# guest: alone (its counts are of a load the guest carries at full speed)
. "$(dirname "$0")/lib.sh"
ktap_plan 6
LOAD=$NPU_REPO/build/bin/npuload
N=1024

npu_load && npu_new 0 8 2 || { ktap_fail "setup"; ktap_finish; }
DL=auxiliary/npusim.npu.0
topo_pc_far 0; ktap_result $? "topology"
ethtool -K "$P3" hw-tc-offload on; ethtool -K "$P8" hw-tc-offload on
sysctl -qw net.netfilter.nf_conntrack_max=65536 2>/dev/null
ft_offload_tcp
fp() { ethtool -S "$P3" | awk -v k="$1:" '$1 == k { print $2 }'; }
# The retransmit give-back rule is 63-giveback-revive's subject; under TCG
# a thousand streams retransmit often, so it is off here (table scale only).
echo 0 > /sys/kernel/debug/npusim/0/fp_retrans_max

ip netns exec far "$LOAD" server -p 5300 -t 60 > /tmp/load-srv.json 2>/dev/null &
wait_listen far 5300
ip netns exec pc "$LOAD" client -a $FAR4 -p 5300 -c $N -t 45 > /tmp/load-cli.json 2>/dev/null &
cli=$!
# The connections reach hardware as nf_flowtable's offload work gets to
# them: the peak over seconds 6-22 is the figure.
peak=0 h0=0 w0=0 h1=0 w1=0
for t in $(seq 8); do
	sleep 2
	c=$(fp fp_conns)
	[ "${c:-0}" -gt $peak ] && peak=$c
	if [ $t = 4 ]; then
		h0=$(( $(link_stat "$P3" rx_packets) + $(link_stat "$P8" rx_packets) ))
		w0=$(( $(link_stat -n pc npuw0p3 tx_packets) + $(link_stat -n pc npuw0p3 rx_packets) ))
	fi
done
h1=$(( $(link_stat "$P3" rx_packets) + $(link_stat "$P8" rx_packets) ))
w1=$(( $(link_stat -n pc npuw0p3 tx_packets) + $(link_stat -n pc npuw0p3 rx_packets) ))
ethtool -S "$P3" | grep -E 'hw_punt|fp_revived|fp_enospc|fp_unsupp' | grep -v ': 0$' | sed 's/^ */# port 3 /'
diag "in hardware, peak over seconds 6-22: $peak of $N; seconds 14-22: stream frames $((w1 - w0)), host frames $((h1 - h0))"
ktap_result $([ "$peak" -ge $((N * 85 / 100)) ]; echo $?) \
	"at least 85 % of the $N connections in hardware at once ($peak)"
# Measured only if the load actually ran (a starved TCG guest can stall it).
if [ $((w1 - w0)) -lt 10000 ]; then
	ktap_skip "the host takes < 1 % of their frames (the load stalled: $((w1 - w0)) frames)"
else
	ktap_result $([ $(( (h1 - h0) * 100 )) -lt $((w1 - w0)) ]; echo $?) \
		"the host takes < 1 % of their frames ($((h1 - h0)) of $((w1 - w0)))"
fi

# Take them all out at once, the load still running.  conntrack would pick
# the running streams up again mid-stream (nf_conntrack_tcp_loose) and the
# flowtable offload them anew: once 199 were back a second after the table
# had read 0.  With loose pick-up off for the flush, nothing comes back and
# the table must stay empty.
loose=$(sysctl -n net.netfilter.nf_conntrack_tcp_loose)
sysctl -qw net.netfilter.nf_conntrack_tcp_loose=0
before=$(fp fp_conns); a0=$(fp fp_flows_added)
conntrack -F >/dev/null 2>&1
for i in $(seq 30); do [ "$(fp fp_conns)" = 0 ] && break; sleep 1; done
sleep 2
diag "taken out: $before -> $(fp fp_conns) in ~${i} s (nf_flowtable's gc notices within a second), $(( $(fp fp_flows_added) - a0 )) directions offloaded since; longest lock hold $(fp fp_lock_held_max_us) us"
ktap_result $([ "$before" -ge 1 ] && [ "$(fp fp_conns)" = 0 ]; echo $?) "conntrack -F empties the table ($before before)"
kill $cli 2>/dev/null; wait $cli 2>/dev/null
sysctl -qw net.netfilter.nf_conntrack_tcp_loose="$loose"

# A small table: the overflow stays on the host, counted.
nft flush ruleset
check "devlink resource set connections 64 + reload" bash -c \
	"devlink resource set $DL path /fastpath/connections size 64 && devlink dev reload $DL"
ft_offload_tcp
ip netns exec far "$LOAD" server -p 5301 -t 30 >/dev/null 2>&1 &
wait_listen far 5301
ip netns exec pc "$LOAD" client -a $FAR4 -p 5301 -c 256 -t 15 -r 20000 > /tmp/load-small.json 2>/dev/null
full=$(fp fp_enospc)
diag "small table: $(fp fp_conns) in hardware, refused as full $full; client $(cat /tmp/load-small.json)"
ktap_result $([ "${full:-0}" -gt 0 ] && [ "$(jq -r .established /tmp/load-small.json)" = 256 ] &&
	[ "$(jq -r .failed /tmp/load-small.json)" = 0 ]; echo $?) \
	"table full: overflow counted, every connection still carried by the host"
nft flush ruleset
ktap_finish
