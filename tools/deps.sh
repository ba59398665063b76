#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install what npuflow needs to build and test, from Debian's packages only.
# Idempotent: installs only what is missing, and runs apt-get update only then.
set -euo pipefail
pkgs=(
	# the guest kernel (Debian's 6.12) and the headers the modules build against
	linux-image-6.12-amd64 linux-headers-6.12-amd64 linux-source-6.12
	# the VM
	qemu-system-x86 busybox-static cpio xz-utils kmod
	# build
	make gcc libc6-dev clang llvm pkg-config libelf-dev zlib1g-dev
	libbpf-dev libxdp-dev bpftool xdp-tools libmnl-dev libnetfilter-conntrack-dev
	libcmocka-dev libjson-c-dev
	# install: manual pages from --help, the modules as DKMS source
	help2man man-db dkms
	# the fuzz targets' libFuzzer runtime for clang 14 (selftests/fuzz)
	libclang-rt-14-dev
	# the standard tools the tests drive, and traffic
	iproute2 ethtool iperf3 iputils-ping socat netcat-openbsd tcpdump nftables
	conntrack python3 python3-yaml procps udev gnuplot-nox jq
	# a PPPoE concentrator (pppoe-server) and client (pppd's pppoe.so)
	pppoe ppp
	# promtool, which checks npuctl's Prometheus output
	prometheus
)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
	echo "deps: all ${#pkgs[@]} packages present"
	exit 0
fi
echo "deps: installing ${missing[*]}"
if [ "$(id -u)" != 0 ]; then
	echo "deps: need root to install packages" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${missing[@]}"
