// SPDX-License-Identifier: GPL-2.0
/*
 * npuflowd's pin directory (--pin-dir, default /sys/fs/bpf/npuflow): opened
 * and checked once, bpffs mounted at /sys/fs/bpf if none is there, libxdp
 * pointed at the same BPF file system, the maps' pins checked against the
 * classifier's before libbpf reuses them, and removed by --flush.  What a
 * start makes here (the mount, the directory, new pins, libxdp's state
 * directory) is noted, and removed again when the start fails.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "classify.skel.h"
#include "npuflowd_log.h"
#include "npuflowd_pins.h"

#ifndef BPF_FS_MAGIC
#define BPF_FS_MAGIC 0xcafe4a11
#endif

#define NPUFLOWD_BPFFS	"/sys/fs/bpf"

static const char *const pinned_maps[] = {
	"candidates", "counters", "events", "connections", "fmstats", "candcache", "forwarded",
	"fmgen", "loopstats",
};

#define NPUFLOWD_NMAPS	(sizeof(pinned_maps) / sizeof(pinned_maps[0]))

/*
 * The pin directory @dir (--pin-dir, as pins_open() was given it), opened
 * once and checked (not a symlink, a directory of root's or ours, on
 * bpffs): everything npuflowd does in it goes through @fd, so what was
 * checked is what is used.  @path is what libbpf pins through:
 * /proc/self/fd/N when /proc shows @fd there, else the name.
 *
 * What this start makes, for pins_undo(): @mounted when it mounted the BPF
 * file system at NPUFLOWD_BPFFS (@mnt_dev, its device; @bound when the
 * mount point is a bind mount of its own under it), @made_dir when it made
 * the pin directory, @new_maps a bit for each of pinned_maps[] that was not
 * pinned when the directory became ours, @new_xdp when libxdp's state
 * directory @xdp_dir was not there then.  Nothing is noted until the
 * directory is locked: what another instance makes is never ours.
 */
static struct pins {
	const char *dir;
	int parent_fd;
	int fd;
	char base[256];
	char path[64];
	int mounted, bound, made_dir, new_xdp;
	dev_t mnt_dev;
	unsigned int new_maps;
	char xdp_dir[300];
} pins = { .parent_fd = -1, .fd = -1 };

static int fd_on_bpffs(int fd)
{
	struct statfs st;

	return !fstatfs(fd, &st) && st.f_type == BPF_FS_MAGIC;
}

/*
 * Mount a BPF file system at @dir, mode 0700, as bpftool and libxdp do: the
 * mount point is made private first (bind-mounted on itself when it is no
 * mount point yet, *@bound then 1), so the new mount does not propagate.
 * 0 or -errno; on an error the bind mount is gone again.
 */
static int mount_bpffs(const char *dir, int *bound)
{
	int e = 0;

	*bound = 0;
	while (mount("", dir, "none", MS_PRIVATE | MS_REC, NULL)) {
		e = -errno;
		if (e != -EINVAL || *bound)
			break;
		if (mount(dir, dir, "none", MS_BIND, NULL))
			return -errno;
		*bound = 1;
		e = 0;
	}
	if (!e && mount("bpf", dir, "bpf", 0, "mode=0700"))
		e = -errno;
	if (e && *bound) {
		umount2(dir, UMOUNT_NOFOLLOW);
		*bound = 0;
	}
	return e;
}

/*
 * Open @parent, the pin directory's parent; with @mount, mount a BPF file
 * system there when it is not on one and it is /sys/fs/bpf (elsewhere the
 * operator mounts it).  The fd, or -1 (logged); with
 * !@mount, -2 when it is not on bpffs or not there (nothing is pinned).
 */

static int open_parent(const char *parent, int mount)
{
	int fd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC), e, bound;
	struct stat st;

	if (fd < 0 && !mount && errno == ENOENT)
		return -2;
	if (fd < 0) {
		err("cannot open %s (the pin directory's parent): %s", parent, strerror(errno));
		return -1;
	}
	if (fd_on_bpffs(fd))
		return fd;
	close(fd);
	if (!mount)
		return -2;
	/* only the BPF file system's own place: a mount over another directory
	 * (/run, /tmp) would hide everything in it from the whole system */
	if (strcmp(parent, NPUFLOWD_BPFFS)) {
		err("%s (the pin directory's parent) is not a BPF file system, and npuflowd mounts "
		    "one only at %s: pin under it, or under a BPF file system of your own",
		    parent, NPUFLOWD_BPFFS);
		return -1;
	}
	e = mount_bpffs(parent, &bound);
	if (e) {
		err("no BPF file system at %s, and cannot mount one: %s", parent, strerror(-e));
		return -1;
	}
	info("mounted bpffs at %s", parent);
	fd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || !fd_on_bpffs(fd) || fstat(fd, &st)) {
		err("%s: not a BPF file system after mounting one", parent);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	pins.mounted = 1;
	pins.bound = bound;
	pins.mnt_dev = st.st_dev;
	return fd;
}

/*
 * Point libxdp at the BPF file system the pins are on: it keeps its
 * dispatcher state in $LIBXDP_BPFFS/xdp (default /sys/fs/bpf/xdp) and reads
 * the variable once, at its first use.  @parent is on bpffs; its mount
 * point is found by walking up while the device stays the same.  An
 * operator's own $LIBXDP_BPFFS is kept, and libxdp mounts it if it must
 * (LIBXDP_BPFFS_AUTOMOUNT=1, unless set).
 */
static void tell_libxdp(const char *parent)
{
	const char *env = getenv("LIBXDP_BPFFS");
	char dir[256], up[256], *slash;
	struct stat st, ust;

	if (env && env[0]) {
		setenv("LIBXDP_BPFFS_AUTOMOUNT", "1", 0);
		dbg("libxdp state in %s/xdp ($LIBXDP_BPFFS)", env);
		return;
	}
	snprintf(dir, sizeof(dir), "%s", parent);
	if (stat(dir, &st))
		return;
	for (;;) {
		snprintf(up, sizeof(up), "%s", dir);
		slash = strrchr(up, '/');
		if (!slash || slash == up)
			break;
		*slash = '\0';
		if (stat(up, &ust) || ust.st_dev != st.st_dev)
			break;
		snprintf(dir, sizeof(dir), "%s", up);
	}
	setenv("LIBXDP_BPFFS", dir, 1);
	dbg("libxdp state in %s/xdp", dir);
}

/* Refuse a pin directory @fd that is not root's or ours (or not on bpffs). */
static int pins_trusted(int fd)
{
	struct stat st;

	if (fstat(fd, &st)) {
		err("%s: %s", pins.dir, strerror(errno));
		return -1;
	}
	if (st.st_uid != 0 && st.st_uid != geteuid()) {
		err("pin directory %s is owned by uid %u, not root: refusing it (remove it, "
		    "or choose another --pin-dir)", pins.dir, (unsigned int)st.st_uid);
		return -1;
	}
	if (!fd_on_bpffs(fd)) {
		err("pin directory %s is not on a BPF file system: refusing it", pins.dir);
		return -1;
	}
	return 0;
}

/* Why openat(O_NOFOLLOW | O_DIRECTORY) of the pin directory failed. */
static void pins_explain(int e)
{
	struct stat st;

	if (!fstatat(pins.parent_fd, pins.base, &st, AT_SYMLINK_NOFOLLOW) && S_ISLNK(st.st_mode))
		err("pin directory %s is a symbolic link: refusing it (remove it, or choose "
		    "another --pin-dir)", pins.dir);
	else if (e == ENOTDIR)
		err("pin directory %s is not a directory: refusing it", pins.dir);
	else
		err("cannot open the pin directory %s: %s", pins.dir, strerror(e));
}

/* The directory libbpf pins through: /proc/self/fd/N when it shows pins.fd. */
static void pins_path(void)
{
	struct stat a, b;

	snprintf(pins.path, sizeof(pins.path), "/proc/self/fd/%d", pins.fd);
	if (fstat(pins.fd, &a) || stat(pins.path, &b) || a.st_dev != b.st_dev ||
	    a.st_ino != b.st_ino) {
		dbg("no /proc/self/fd: pinning by name in %s", pins.dir);
		pins.path[0] = '\0';
	}
}

/* libxdp's state directory: $LIBXDP_BPFFS/xdp, as libxdp reads it. */
static void xdp_dir_of(char *buf, size_t len)
{
	const char *fs = getenv("LIBXDP_BPFFS");

	snprintf(buf, len, "%s/xdp", fs && fs[0] ? fs : NPUFLOWD_BPFFS);
}

/*
 * Note, once the pin directory is ours (locked), what a start may make and
 * pins_undo() removes: the directory if @made_dir, each map not pinned yet,
 * libxdp's state directory if it is not there yet.
 */
static void pins_note_new(int made_dir)
{
	struct stat st;
	size_t k;

	pins.made_dir = made_dir;
	for (k = 0; k < NPUFLOWD_NMAPS; k++)
		if (fstatat(pins.fd, pinned_maps[k], &st, AT_SYMLINK_NOFOLLOW) && errno == ENOENT)
			pins.new_maps |= 1u << k;
	xdp_dir_of(pins.xdp_dir, sizeof(pins.xdp_dir));
	pins.new_xdp = stat(pins.xdp_dir, &st) && errno == ENOENT;
}

/*
 * pins_open - open the pin directory @dir for a start (@start: mount bpffs
 * on its parent if none is there, create the directory 0700, chmod it 0700)
 * or for --flush (mount and create nothing).  0 with pins.fd open; 0 with pins.fd
 * -1 for a flush that finds nothing (no bpffs, no directory); -1 (logged)
 * when the directory is refused or cannot be had.  A start notes what it
 * makes, for pins_undo().
 */
int pins_open(const char *dir, int start)
{
	char parent[256];
	int made = 0;

	pins.dir = dir;
	if (npuflowd_pin_split(pins.dir, parent, sizeof(parent), pins.base,
			       sizeof(pins.base))) {
		err("pin directory %s: no parent directory", pins.dir);
		return -1;
	}
	pins.parent_fd = open_parent(parent, start);
	if (pins.parent_fd == -2) {
		info("no BPF file system at %s: nothing pinned in %s", parent, pins.dir);
		pins.parent_fd = -1;
		return 0;
	}
	if (pins.parent_fd < 0)
		return -1;
	tell_libxdp(parent);
	if (start && !mkdirat(pins.parent_fd, pins.base, 0700)) {
		made = 1;
	} else if (start && errno != EEXIST) {
		err("mkdir %s: %s", pins.dir, strerror(errno));
		return -1;
	}
	pins.fd = openat(pins.parent_fd, pins.base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
			 O_CLOEXEC);
	if (pins.fd < 0) {
		if (!start && errno == ENOENT)
			return 0;
		pins_explain(errno);
		return -1;
	}
	if (pins_trusted(pins.fd))
		return -1;
	/*
	 * The pins' own lock, held while the process lives: the lock file
	 * keeps one npuflowd per lock file, this one per pin directory, so
	 * that a second instance (or --flush) under another --lock-file does
	 * not take the running one's classifier and maps for leftovers.
	 */
	if (flock(pins.fd, LOCK_EX | LOCK_NB)) {
		if (errno == EWOULDBLOCK)
			err("another npuflowd uses %s (whatever its lock file): stop it first",
			    pins.dir);
		else
			err("cannot lock %s: %s", pins.dir, strerror(errno));
		return -1;
	}
	if (start)
		pins_note_new(made);
	if (start && fchmod(pins.fd, 0700))
		warn("chmod %s: %s", pins.dir, strerror(errno));
	pins_path();
	return 0;
}

/* libbpf's path of the pinned map @name (see struct pins). */
static void pin_path_of(const char *name, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", pins.path[0] ? pins.path : pins.dir, name);
}

/* --flush's part in the pin directory: the maps, then the directory. */
int pins_remove(void)
{
	size_t k;
	int rc = 0;

	if (pins.fd < 0)
		return 0;
	for (k = 0; k < NPUFLOWD_NMAPS; k++) {
		if (!unlinkat(pins.fd, pinned_maps[k], 0)) {
			info("removed %s/%s", pins.dir, pinned_maps[k]);
		} else if (errno != ENOENT) {
			err("cannot remove %s/%s: %s", pins.dir, pinned_maps[k],
			    strerror(errno));
			rc = 1;
		}
	}
	if (unlinkat(pins.parent_fd, pins.base, AT_REMOVEDIR) && errno != ENOENT) {
		err("cannot remove %s: %s (not empty?)", pins.dir, strerror(errno));
		rc = 1;
	}
	return rc;
}

/*
 * Pin @map at @name: a map pinned there already is reused by libbpf only if
 * it matches; say clearly why not before libbpf fails with a generic message.
 */
static int pin_check_one(struct bpf_map *map, const char *name)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	char path[512];
	int fd;

	pin_path_of(name, path, sizeof(path));
	if (bpf_map__set_pin_path(map, path)) {
		err("cannot set pin path %s", path);
		return -1;
	}
	fd = bpf_obj_get(path);
	if (fd < 0)
		return 0;
	if (bpf_obj_get_info_by_fd(fd, &info, &len)) {
		close(fd);
		return 0;
	}
	close(fd);
	if (info.type != bpf_map__type(map) ||
	    info.key_size != bpf_map__key_size(map) ||
	    info.value_size != bpf_map__value_size(map) ||
	    info.max_entries != bpf_map__max_entries(map)) {
		err("pinned map %s/%s does not match (type %u key %u value %u entries %u; "
		    "want type %u key %u value %u entries %u): run npuflowd --flush, "
		    "or start with the old size", pins.dir, name,
		    info.type, info.key_size,
		    info.value_size, info.max_entries, bpf_map__type(map),
		    bpf_map__key_size(map), bpf_map__value_size(map),
		    bpf_map__max_entries(map));
		return -1;
	}
	info("reusing pinned %s/%s (%u entries)", pins.dir, name, info.max_entries);
	return 0;
}

/* Set the classifier's maps' pin paths, checking what is pinned there. */
int pins_check(struct classify *skel)
{
	struct bpf_map *maps[] = { skel->maps.candidates, skel->maps.counters, skel->maps.events,
				   skel->maps.connections, skel->maps.fmstats, skel->maps.candcache,
				   skel->maps.forwarded, skel->maps.fmgen, skel->maps.loopstats };
	size_t k;

	for (k = 0; k < sizeof(maps) / sizeof(maps[0]); k++)
		if (pin_check_one(maps[k], pinned_maps[k]))
			return -1;
	return 0;
}

/* The pinned maps root's only. */
void pins_chmod(void)
{
	size_t k;

	for (k = 0; k < NPUFLOWD_NMAPS; k++)
		if (fchmodat(pins.fd, pinned_maps[k], 0600, 0))
			warn("chmod %s/%s: %s", pins.dir, pinned_maps[k], strerror(errno));
}

/* What pins_undo() removed, for its one line: items joined by ", ". */
struct undone {
	char text[512];
	size_t len;
};

__attribute__((format(printf, 2, 3)))
static void undone_add(struct undone *u, const char *fmt, ...)
{
	size_t room;
	va_list ap;
	int n;

	if (u->len && u->len + 2 < sizeof(u->text)) {
		memcpy(u->text + u->len, ", ", 3);
		u->len += 2;
	}
	room = sizeof(u->text) - u->len;
	va_start(ap, fmt);
	n = vsnprintf(u->text + u->len, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		u->len += (size_t)n < room ? (size_t)n : room - 1;
}

/* Unpin the maps this start pinned; those pinned before it stay. */
static void undo_maps(struct undone *u)
{
	char names[128] = "";
	size_t k, n = 0;

	for (k = 0; k < NPUFLOWD_NMAPS; k++) {
		if (!(pins.new_maps & 1u << k))
			continue;
		if (!unlinkat(pins.fd, pinned_maps[k], 0))
			n += snprintf(names + n, sizeof(names) - n, "%s%s", n ? " " : "",
				      pinned_maps[k]);
		else if (errno != ENOENT)
			warn("cannot remove %s/%s: %s", pins.dir, pinned_maps[k],
			     strerror(errno));
	}
	if (n)
		undone_add(u, "pinned maps %s", names);
}

/* The pin directory, if this start made it (kept if something else is in it). */
static void undo_dir(struct undone *u)
{
	if (!pins.made_dir)
		return;
	if (!unlinkat(pins.parent_fd, pins.base, AT_REMOVEDIR))
		undone_add(u, "%s", pins.dir);
	else
		warn("kept %s: %s", pins.dir, strerror(errno));
}

/* libxdp's state directory, if this start made it and it is empty, under libxdp's lock. */
static void undo_xdp_dir(struct undone *u)
{
	int fd;

	if (!pins.new_xdp)
		return;
	fd = open(pins.xdp_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (!flock(fd, LOCK_EX) && !rmdir(pins.xdp_dir))
		undone_add(u, "%s (libxdp's, empty)", pins.xdp_dir);
	close(fd);
}

/*
 * Whether the BPF file system this start mounted is still the one at
 * NPUFLOWD_BPFFS and holds nothing but what the kernel puts in each new
 * one (bpf_preload's maps.debug and progs.debug).
 */
static int bpffs_ours_and_empty(void)
{
	int fd = open(NPUFLOWD_BPFFS, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct dirent *de;
	struct stat st;
	int empty = 1;
	DIR *d;

	if (fd < 0)
		return 0;
	d = fstat(fd, &st) || st.st_dev != pins.mnt_dev ? NULL : fdopendir(fd);
	if (!d) {
		close(fd);
		return 0;
	}
	while (empty && (de = readdir(d)))
		empty = !strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
			!strcmp(de->d_name, "maps.debug") || !strcmp(de->d_name, "progs.debug");
	closedir(d);
	return empty;
}

/*
 * The BPF file system this start mounted, when nothing else is on it, and
 * the bind mount under it; one mounted over it is another's, and kept.
 */
static void undo_mount(struct undone *u)
{
	struct statfs st;

	if (!pins.mounted)
		return;
	if (!bpffs_ours_and_empty()) {
		dbg("kept the BPF file system at %s: not empty, or not the one mounted",
		    NPUFLOWD_BPFFS);
		return;
	}
	if (umount2(NPUFLOWD_BPFFS, UMOUNT_NOFOLLOW)) {
		warn("cannot unmount the BPF file system at %s: %s", NPUFLOWD_BPFFS,
		     strerror(errno));
		return;
	}
	pins.mounted = 0;
	if (pins.bound && !statfs(NPUFLOWD_BPFFS, &st) && st.f_type != BPF_FS_MAGIC &&
	    umount2(NPUFLOWD_BPFFS, UMOUNT_NOFOLLOW))
		warn("cannot unmount the bind mount at %s: %s", NPUFLOWD_BPFFS, strerror(errno));
	undone_add(u, "the bpffs mounted at %s", NPUFLOWD_BPFFS);
}

/*
 * pins_undo - after a start that failed, remove what it made (struct pins):
 * the maps it pinned, the pin directory, libxdp's state directory when
 * empty, and the BPF file system it mounted when nothing else is on it; one
 * info line says what went.  What was there before stays: a previous run's
 * pinned maps hold the state of connections whose rules stay in hardware.
 * The pin directory is closed (and its lock released).
 */
void pins_undo(void)
{
	struct undone u = { .len = 0 };

	if (pins.fd >= 0) {
		undo_maps(&u);
		undo_dir(&u);
		close(pins.fd);
		pins.fd = -1;
	}
	if (pins.parent_fd >= 0) {
		close(pins.parent_fd);
		pins.parent_fd = -1;
	}
	undo_xdp_dir(&u);
	undo_mount(&u);
	if (u.len)
		info("start failed: removed what it made: %s", u.text);
}
