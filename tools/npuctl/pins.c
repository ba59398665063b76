// SPDX-License-Identifier: GPL-2.0
/* pins.c - npuflowd's pinned maps and lock file, opened (pins.h). */
#define _GNU_SOURCE	/* F_OFD_GETLK */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "pins.h"

#ifndef BPF_FS_MAGIC
#define BPF_FS_MAGIC 0xcafe4a11
#endif

int npuctl_pins_fs(const char *pin_dir, char *parent, size_t len)
{
	char copy[512];
	struct statfs st;

	snprintf(copy, sizeof(copy), "%s", pin_dir);
	snprintf(parent, len, "%s", dirname(copy));
	return !statfs(parent, &st) && st.f_type == BPF_FS_MAGIC;
}

int npuctl_need_pins_fs(const char *pin_dir)
{
	char parent[512];

	if (npuctl_pins_fs(pin_dir, parent, sizeof(parent)))
		return 0;
	fprintf(stderr, "npuctl: no BPF file system at %s: is npuflowd running? (it mounts "
		"one when it starts; its maps would be in %s)\n", parent, pin_dir);
	return -1;
}

int npuctl_pinned(const char *pin_dir, const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", pin_dir, name);
	/* one behind a directory we may not search may be there: opening it
	 * says why not (npuctl_open_pinned) */
	return !access(path, F_OK) || errno == EACCES || errno == EPERM;
}

int npuctl_open_optional(const char *pin_dir, const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", pin_dir, name);
	return bpf_obj_get(path);
}

int npuctl_open_pinned(const char *pin_dir, const char *name)
{
	int fd = npuctl_open_optional(pin_dir, name);

	if (fd < 0)
		fprintf(stderr, "npuctl: cannot open %s/%s: %s%s\n", pin_dir, name,
			strerror(errno),
			errno == ENOENT ? " (is npuflowd running, or has it run?)" :
			errno == EACCES || errno == EPERM ? " (npuflowd's maps are root's: "
			"run npuctl as root)" : "");
	return fd;
}

int npuctl_open_map(const char *pin_dir, const char *name, size_t ksz, size_t vsz)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	int fd = npuctl_open_pinned(pin_dir, name);

	if (fd < 0)
		return -1;
	if (bpf_obj_get_info_by_fd(fd, &info, &len)) {
		fprintf(stderr, "npuctl: %s/%s: %s\n", pin_dir, name, strerror(errno));
		close(fd);
		return -1;
	}
	if (info.key_size != ksz || info.value_size != vsz) {
		fprintf(stderr, "npuctl: %s/%s has %u-byte keys and %u-byte values, this npuctl "
			"reads %zu and %zu: pinned by another npuflowd version?\n", pin_dir,
			name, info.key_size, info.value_size, ksz, vsz);
		close(fd);
		return -1;
	}
	return fd;
}

int npuctl_daemon_pid(const char *lock_file)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	int fd = open(lock_file, O_RDONLY | O_CLOEXEC | O_NOFOLLOW), pid = 0;
	char buf[32] = "";
	ssize_t n;

	if (fd < 0)
		return 0;
	/*
	 * The lock is held while npuflowd runs.  Tested, never taken: an
	 * npuflowd starting (or --flush) at this moment must not find it held.
	 */
	if (fcntl(fd, F_OFD_GETLK, &fl) || fl.l_type == F_UNLCK) {
		close(fd);
		return 0;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n > 0)
		pid = atoi(buf);
	if (pid > 0 && kill(pid, 0) && errno == ESRCH)
		pid = 0;
	return pid;
}
