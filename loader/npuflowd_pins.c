// SPDX-License-Identifier: GPL-2.0
/*
 * npuflowd's pin directory (--pin-dir, default /sys/fs/bpf/npuflow): opened
 * and checked once, bpffs mounted at /sys/fs/bpf if none is there, libxdp
 * pointed at the same BPF file system, the maps' pins checked against the
 * classifier's before libbpf reuses them, and removed by --flush.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
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
#include "npuflowd.h"

#ifndef BPF_FS_MAGIC
#define BPF_FS_MAGIC 0xcafe4a11
#endif

#define NPUFLOWD_BPFFS	"/sys/fs/bpf"

static const char *const pinned_maps[] = {
	"candidates", "counters", "events", "connections", "fmstats", "candcache",
};

/*
 * The pin directory, opened once and checked (not a symlink, a directory of
 * root's or ours, on bpffs): everything npuflowd does in it goes through
 * @fd, so what was checked is what is used.  @path is what libbpf pins
 * through: /proc/self/fd/N when /proc shows @fd there, else the name.
 */
static struct pins {
	int parent_fd;
	int fd;
	char base[256];
	char path[64];
} pins = { .parent_fd = -1, .fd = -1 };

static int fd_on_bpffs(int fd)
{
	struct statfs st;

	return !fstatfs(fd, &st) && st.f_type == BPF_FS_MAGIC;
}

/*
 * Mount a BPF file system at @dir, mode 0700, as bpftool and libxdp do: the
 * mount point is made private first (bind-mounted on itself when it is no
 * mount point yet), so the new mount does not propagate.  0 or -errno.
 */
static int mount_bpffs(const char *dir)
{
	int bound = 0;

	while (mount("", dir, "none", MS_PRIVATE | MS_REC, NULL)) {
		if (errno != EINVAL || bound)
			return -errno;
		if (mount(dir, dir, "none", MS_BIND, NULL))
			return -errno;
		bound = 1;
	}
	return mount("bpf", dir, "bpf", 0, "mode=0700") ? -errno : 0;
}

/*
 * Open @parent, the pin directory's parent; with @mount, mount a BPF file
 * system there when it is not on one and it is /sys/fs/bpf (elsewhere the
 * operator mounts it).  The fd, or -1 (logged); with
 * !@mount, -2 when it is not on bpffs or not there (nothing is pinned).
 */

static int open_parent(const char *parent, int mount)
{
	int fd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC), e;

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
	e = mount_bpffs(parent);
	if (e) {
		err("no BPF file system at %s, and cannot mount one: %s", parent, strerror(-e));
		return -1;
	}
	info("mounted bpffs at %s", parent);
	fd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || !fd_on_bpffs(fd)) {
		err("%s: not a BPF file system after mounting one", parent);
		if (fd >= 0)
			close(fd);
		return -1;
	}
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
		err("%s: %s", opts.pin_dir, strerror(errno));
		return -1;
	}
	if (st.st_uid != 0 && st.st_uid != geteuid()) {
		err("pin directory %s is owned by uid %u, not root: refusing it (remove it, "
		    "or choose another --pin-dir)", opts.pin_dir, (unsigned int)st.st_uid);
		return -1;
	}
	if (!fd_on_bpffs(fd)) {
		err("pin directory %s is not on a BPF file system: refusing it", opts.pin_dir);
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
		    "another --pin-dir)", opts.pin_dir);
	else if (e == ENOTDIR)
		err("pin directory %s is not a directory: refusing it", opts.pin_dir);
	else
		err("cannot open the pin directory %s: %s", opts.pin_dir, strerror(e));
}

/* The directory libbpf pins through: /proc/self/fd/N when it shows pins.fd. */
static void pins_path(void)
{
	struct stat a, b;

	snprintf(pins.path, sizeof(pins.path), "/proc/self/fd/%d", pins.fd);
	if (fstat(pins.fd, &a) || stat(pins.path, &b) || a.st_dev != b.st_dev ||
	    a.st_ino != b.st_ino) {
		dbg("no /proc/self/fd: pinning by name in %s", opts.pin_dir);
		pins.path[0] = '\0';
	}
}

/*
 * pins_open - open the pin directory for a start (@start: mount bpffs on its
 * parent if none is there, create the directory 0700, chmod it 0700) or for
 * --flush (mount and create nothing).  0 with pins.fd open; 0 with pins.fd
 * -1 for a flush that finds nothing (no bpffs, no directory); -1 (logged)
 * when the directory is refused or cannot be had.
 */
int pins_open(int start)
{
	char parent[256];

	if (npuflowd_pin_split(opts.pin_dir, parent, sizeof(parent), pins.base,
			       sizeof(pins.base))) {
		err("pin directory %s: no parent directory", opts.pin_dir);
		return -1;
	}
	pins.parent_fd = open_parent(parent, start);
	if (pins.parent_fd == -2) {
		info("no BPF file system at %s: nothing pinned in %s", parent, opts.pin_dir);
		pins.parent_fd = -1;
		return 0;
	}
	if (pins.parent_fd < 0)
		return -1;
	tell_libxdp(parent);
	if (start && mkdirat(pins.parent_fd, pins.base, 0700) && errno != EEXIST) {
		err("mkdir %s: %s", opts.pin_dir, strerror(errno));
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
			    opts.pin_dir);
		else
			err("cannot lock %s: %s", opts.pin_dir, strerror(errno));
		return -1;
	}
	if (start && fchmod(pins.fd, 0700))
		warn("chmod %s: %s", opts.pin_dir, strerror(errno));
	pins_path();
	return 0;
}

/* libbpf's path of the pinned map @name (see struct pins). */
static void pin_path_of(const char *name, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", pins.path[0] ? pins.path : opts.pin_dir, name);
}

/* --flush's part in the pin directory: the maps, then the directory. */
int pins_remove(void)
{
	size_t k;
	int rc = 0;

	if (pins.fd < 0)
		return 0;
	for (k = 0; k < sizeof(pinned_maps) / sizeof(pinned_maps[0]); k++) {
		if (!unlinkat(pins.fd, pinned_maps[k], 0)) {
			info("removed %s/%s", opts.pin_dir, pinned_maps[k]);
		} else if (errno != ENOENT) {
			err("cannot remove %s/%s: %s", opts.pin_dir, pinned_maps[k],
			    strerror(errno));
			rc = 1;
		}
	}
	if (unlinkat(pins.parent_fd, pins.base, AT_REMOVEDIR) && errno != ENOENT) {
		err("cannot remove %s: %s (not empty?)", opts.pin_dir, strerror(errno));
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
		    "or start with the old size", opts.pin_dir, name,
		    info.type, info.key_size,
		    info.value_size, info.max_entries, bpf_map__type(map),
		    bpf_map__key_size(map), bpf_map__value_size(map),
		    bpf_map__max_entries(map));
		return -1;
	}
	info("reusing pinned %s/%s (%u entries)", opts.pin_dir, name, info.max_entries);
	return 0;
}

/* Set the classifier's maps' pin paths, checking what is pinned there. */
int pins_check(struct classify *skel)
{
	struct bpf_map *maps[] = { skel->maps.candidates, skel->maps.counters, skel->maps.events,
				   skel->maps.connections, skel->maps.fmstats, skel->maps.candcache };
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

	for (k = 0; k < sizeof(pinned_maps) / sizeof(pinned_maps[0]); k++)
		if (fchmodat(pins.fd, pinned_maps[k], 0600, 0))
			warn("chmod %s/%s: %s", opts.pin_dir, pinned_maps[k], strerror(errno));
}
