/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npuflow_defaults.h - what npuflowd and npuctl agree on without asking
 * each other: where the lock file and the control socket are by default
 * (npuflowd's --lock-file and --ctl-socket, npuctl's options of the same
 * names), and the release the programs name in --version.  The pin
 * directory's default is bpf/npuflow.h's NPUFLOW_PIN_DIR, beside the maps
 * it holds.
 */
#ifndef _NPUFLOW_DEFAULTS_H
#define _NPUFLOW_DEFAULTS_H

#define NPUFLOWD_LOCK_DEFAULT	"/run/npuflowd.lock"
#define NPUFLOWD_CTL_DEFAULT	"/run/npuflowd.sock"

/* The release --version names: the top directory's VERSION, from the build. */
#ifndef NPUFLOW_VERSION
#define NPUFLOW_VERSION		"unknown"
#endif

#endif /* _NPUFLOW_DEFAULTS_H */
