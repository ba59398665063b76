# SPDX-License-Identifier: GPL-2.0
# npuflow - a programmable datapath for a network coprocessor on Linux.
#
#   make deps       install build/test dependencies (Debian packages, idempotent)
#   make            build the kernel modules (KDIR= to override the headers), the
#                   programs and their manual pages (build/man/, help2man)
#   make check      native tests: unit (cmocka, under ASan/UBSan), fuzz (libFuzzer,
#                   10 s a target), BPF prog-test-run, the manual pages render,
#                   the bench's and demo's statistics (stats-check), and
#                   dkms-check: make install DESTDIR=, then dkms add, build
#                   and autoinstall from it, dkms's trees private to the run
#   make vm-check   end-to-end tests in a QEMU guest; TESTS="word ..." selects
#   make test       deps + build + check + vm-check
#   make demo       the main job on the built-in coprocessor model, in the VM;
#                   results/demo.md (+ .json, demo.png plotted on this host)
#   make bench      benchmarks (ratios measured side by side in one VM run)
#   make install    programs, manual pages, unit, the modules' DKMS source and
#                   (MODULES=built, the default) the modules built for the 6.12
#                   headers, into the running system (DESTDIR=, PREFIX=)
#   make clean

KDIR ?=
TESTS ?=
VM_TIMEOUT ?= 3600
# kbuild on every core unless make was given its own -j (the jobserver then
# shares those); W=1's warnings print as they come, interleaved
# (a recipe that runs $(KMAKE) says '+': make sees no $(MAKE) in it)
KJOBS = $(if $(filter -j%,$(MAKEFLAGS)),,-j$(shell nproc))
KMAKE = $(MAKE) -C kernel $(if $(KDIR),KDIR=$(KDIR)) W=1 $(KJOBS)
VERSION := $(file <VERSION)

.PHONY: all deps modules userspace man check unit bpf-check man-check stats-check dkms-check vm-check \
	test demo bench install install-modules install-dkms install-tools install-man \
	install-unit clean lint

all: modules userspace man

deps:
	@tools/deps.sh

modules:
	+$(KMAKE) modules

# a folder per program, each with its Makefile; lib/ is what npuflowd and
# npuctl share (build/lib/libnpuflow.a)
userspace:
	$(MAKE) -C bpf
	$(MAKE) -C lib
	$(MAKE) -C loader
	$(MAKE) -C tools/npuctl
	$(MAKE) -C tools/loadgen

# The unit tests and the fuzzers on one core, make install and DKMS on the
# other (-O: each one's output whole, as it ends); then the BPF tests, whose
# veth tests count frames on a host with nothing else to do.
check:
	$(MAKE) -O -j2 unit dkms-check
	$(MAKE) bpf-check man-check stats-check

unit:
	$(MAKE) -C selftests/unit check
	$(MAKE) -C selftests/fuzz check

bpf-check: userspace
	$(MAKE) -C selftests/bpf check

# npuflowd(8) and npuctl(8), from the programs' --help (man/Makefile)
man: userspace
	$(MAKE) -C man

man-check: man
	$(MAKE) -C man check

# tools/bench/stats.py and tools/lib/records.py (the arithmetic and the
# records of tools/bench/run and tools/demo/run) on fixed samples against
# what the scripts' awk and jq gave, tools/demo/report on a made-up run,
# tools/lib/partition.sh's parsing, tools/lib/firewall.sh's rulesets and
# npuflowd.sh's fm_start (a few seconds), and tools/demo/vcpu-watch
# on stand-in QEMUs (a guest booted twice; about 10 s)
stats-check:
	tools/bench/test-stats
	tools/demo/test-report
	tools/demo/test-vcpu-watch
	tools/lib/test-partition
	tools/lib/test-firewall
	tools/lib/test-npuflowd

# make install and DKMS, in a directory of its own (about 45 s, most of it
# dkms build; root, else skipped); its makes share make check's jobs (+)
dkms-check: all
	+tools/dkms-check

# The whole suite (no TESTS) first checks, on the host, that the bench report
# never shows a figure of a command that failed in the guest
# (tools/bench/test-report, a second), that tools/vm/suite retries only
# the emulator's int3 fault, and only once (tools/vm/test-suite, 20 s),
# that tools/vm/boot boots once more a guest that crashed before /init, or
# with --retry-emulator-fault (make demo, make bench) one that died of that
# fault after it, and only then (tools/vm/test-boot, a second), that make bench and make demo
# hand their BENCH_* and DEMO_* variables to the guest (tools/vm/test-guest-env,
# 15 s),
# and boots a clone of this checkout under /tmp once: the runner must work
# wherever a checkout lives (tools/vm/test-anywhere).  The tests run in two
# guests side by side, each on one host thread, then those marked
# "# guest: alone" in a guest of their own (tools/vm/suite; NPUVM_BOOTS=1:
# every test in one guest).
vm-check: all
	$(MAKE) -C selftests/bpf all
	tools/vm/ksft-prep >/dev/null
	$(if $(TESTS),,tools/bench/test-report)
	$(if $(TESTS),,tools/vm/test-suite)
	$(if $(TESTS),,tools/vm/test-boot)
	$(if $(TESTS),,tools/vm/test-guest-env)
	$(if $(TESTS),,tools/vm/test-anywhere)
	NPUVM_TIMEOUT=$(VM_TIMEOUT) tools/vm/suite $(TESTS)

test: deps
	$(MAKE) all
	$(MAKE) check
	$(MAKE) vm-check

# The variables named PREFIX* given to make (its command line or the
# environment: BENCH_ONLY="stream pppoe" make bench), as NAME=VALUE words
# for env in the guest, which sees none of the host's environment.
guest_env = $(foreach v,$(sort $(filter $(1)%,$(.VARIABLES))),$(v)='$(subst ','\'',$($(v)))')

demo: deps
	$(MAKE) all
	tools/demo/vcpu-watch & w=$$!; tools/vm/boot --bench --partition --retry-emulator-fault -t 2400 -- env $(call guest_env,DEMO_) tools/demo/run; rc=$$?; \
		kill $$w 2>/dev/null; wait $$w 2>/dev/null; [ $$rc = 0 ] && tools/demo/report > /dev/null
	tools/demo/plot
	@sed -n '3,/^$$/p' results/demo.md

bench: deps
	$(MAKE) all
	$(MAKE) -C selftests/bpf bench
	rm -f results/bench-vm.json
	tools/vm/boot --bench --partition --retry-emulator-fault -t 3000 -- env $(call guest_env,BENCH_) tools/bench/run
	tools/bench/report

lint:
	tools/checkpatch.sh

PREFIX ?= /usr/local
MANDIR ?= $(PREFIX)/share/man
# built: the modules made for the 6.12 headers go into /lib/modules/KVER/
# extra/npuflow; dkms: none, `dkms install` builds them for each kernel
# (docs/operator-guide.md, "Installing").  Both ways get the DKMS source.
MODULES ?= built
ifeq ($(filter built dkms,$(MODULES)),)
$(error MODULES=$(MODULES): built or dkms)
endif
DKMS_SRC := /usr/src/npuflow-$(VERSION)

# kbuild's modules_install and the systemd unit's ExecStart take paths
# without spaces: refused here, before anything is copied
ifneq ($(filter install%,$(MAKECMDGOALS)),)
ifneq ($(words x$(DESTDIR)x $(PREFIX) $(MANDIR)),3)
$(error make install: DESTDIR, PREFIX and MANDIR must not contain spaces (DESTDIR="$(DESTDIR)" PREFIX="$(PREFIX)" MANDIR="$(MANDIR)"))
endif
endif

# The programs into $(PREFIX)/bin, their manual pages into $(MANDIR)/man8,
# npuflowd.service into $(PREFIX)/lib/systemd/system and its settings into
# /etc/default/npuflowd (an existing one is kept), the modules' DKMS source
# into /usr/src/npuflow-VERSION, and the built modules (MODULES=built).
install: install-tools install-man install-unit install-dkms \
	$(if $(filter built,$(MODULES)),install-modules)

# depmod runs when DESTDIR is empty.  kbuild runs in the kernel's tree:
# a relative DESTDIR is made absolute here, or the modules would land there.
install-modules: modules
	+$(KMAKE) modules_install $(if $(DESTDIR),INSTALL_MOD_PATH=$(abspath $(DESTDIR)))

# What the build compiled and included, from its records (dist/dkms-source),
# and dkms.conf
install-dkms: modules
	rm -rf $(DESTDIR)$(DKMS_SRC)
	dist/dkms-source $(DESTDIR)$(DKMS_SRC)

# The classifier's object too, for bpftool and xdp-loader (npuflowd carries
# its own copy)
install-tools: userspace
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/npuflow
	install -m 0755 build/bin/npuflowd build/bin/npuctl build/bin/npuload $(DESTDIR)$(PREFIX)/bin/
	install -m 0644 build/bpf/classify.bpf.o $(DESTDIR)$(PREFIX)/lib/npuflow/

install-man: man
	install -d $(DESTDIR)$(MANDIR)/man8
	install -m 0644 build/man/npuflowd.8 build/man/npuctl.8 $(DESTDIR)$(MANDIR)/man8/

install-unit:
	install -d $(DESTDIR)$(PREFIX)/lib/systemd/system $(DESTDIR)/etc/default
	sed 's|@BINDIR@|$(PREFIX)/bin|g' dist/npuflowd.service > \
		$(DESTDIR)$(PREFIX)/lib/systemd/system/npuflowd.service
	chmod 0644 $(DESTDIR)$(PREFIX)/lib/systemd/system/npuflowd.service
	test -e $(DESTDIR)/etc/default/npuflowd || \
		install -m 0644 dist/npuflowd.default $(DESTDIR)/etc/default/npuflowd

clean:
	-+$(KMAKE) clean
	-$(MAKE) -C selftests/unit clean
	-$(MAKE) -C selftests/fuzz clean
	-$(MAKE) -C bpf clean
	-$(MAKE) -C lib clean
	-$(MAKE) -C loader clean
	-$(MAKE) -C tools/npuctl clean
	-$(MAKE) -C tools/loadgen clean
	-$(MAKE) -C selftests/bpf clean
	rm -rf build
