/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pins.h - npuflowd's pinned maps and its lock file, as npuctl opens and
 * walks them.  Functions that fail say why on stderr ("npuctl: ...").
 */
#ifndef _NPUCTL_PINS_H
#define _NPUCTL_PINS_H

#include <stddef.h>

/*
 * npuctl_pins_fs - whether @pin_dir's parent is on a BPF file system, its
 * path in @parent (@len bytes).  npuctl mounts none: a new one would hold
 * no pins.
 */
int npuctl_pins_fs(const char *pin_dir, char *parent, size_t len);

/* 0 when the pins can be in @pin_dir; -1, said, when there is no BPF file system. */
int npuctl_need_pins_fs(const char *pin_dir);

/* Whether @name is pinned in @pin_dir (or may be: a directory we may not
 * search counts as holding it, and opening it says why not). */
int npuctl_pinned(const char *pin_dir, const char *name);

/* The pinned object @pin_dir/@name: an fd, or -1 (said, with a hint on ENOENT). */
int npuctl_open_pinned(const char *pin_dir, const char *name);

/* The same, -1 without a word when it is not there (an optional pin). */
int npuctl_open_optional(const char *pin_dir, const char *name);

/*
 * npuctl_open_map - the pinned map @name, checked to have @ksz-byte keys
 * and @vsz-byte values (the structs this npuctl was built with: a map
 * pinned by another npuflowd version would overrun them).  The fd, or -1
 * (said).
 */
int npuctl_open_map(const char *pin_dir, const char *name, size_t ksz, size_t vsz);

/*
 * npuctl_daemon_pid - the running npuflowd's pid, from the lock file
 * @lock_file it holds while it runs (and writes its pid in); 0 if none runs.
 */
int npuctl_daemon_pid(const char *lock_file);

#endif /* _NPUCTL_PINS_H */
