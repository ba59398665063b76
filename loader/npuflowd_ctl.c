// SPDX-License-Identifier: GPL-2.0
/*
 * npuflowd's control socket (npuctl release, ...): a SOCK_SEQPACKET Unix
 * socket, root only, a request and its reply a connection; the flow maker
 * answers (fmd_ctl()).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>
#include "fmd.h"
#include "npuflowd_ctl.h"
#include "npuflowd_log.h"

/* The listening socket at @path, or -1 (warned: npuctl release will not work). */
int ctl_open(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

	if (fd < 0)
		return -1;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	unlink(path);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || chmod(path, 0600) ||
	    listen(fd, 8)) {
		warn("control socket %s: %s (npuctl release will not work)", path,
		     strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/* Answer every connection waiting on @lfd, a request each. */
void ctl_serve(int lfd, struct fmd *fmd)
{
	char req[256], rep[256];
	ssize_t n;
	int fd;

	while ((fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC)) >= 0) {
		struct timeval tv = { .tv_sec = 1 };

		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		n = recv(fd, req, sizeof(req) - 1, 0);
		if (n > 0) {
			req[n] = '\0';
			req[strcspn(req, "\n")] = '\0';
			fmd_ctl(fmd, req, rep, sizeof(rep), fmd_now());
			if (send(fd, rep, strlen(rep), MSG_NOSIGNAL) < 0)
				dbg("control reply: %s", strerror(errno));
		}
		close(fd);
	}
}
