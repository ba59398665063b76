// SPDX-License-Identifier: GPL-2.0
/* ctl.c - npuctl's requests to npuflowd over its control socket (ctl.h). */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include "ctl.h"

int npuctl_ctl_request(const char *ctl_socket, const char *req, FILE *out)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char rep[256];
	ssize_t n;
	int fd;

	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", ctl_socket);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		fprintf(stderr, "npuctl: cannot reach npuflowd at %s: %s%s\n", ctl_socket,
			strerror(errno), errno == EACCES || errno == EPERM ?
			" (npuflowd's control socket is root's: run npuctl as root)" : "");
		if (fd >= 0)
			close(fd);
		return 1;
	}
	n = send(fd, req, strlen(req), 0) < 0 ? -1 : recv(fd, rep, sizeof(rep) - 1, 0);
	close(fd);
	if (n <= 0) {
		fprintf(stderr, "npuctl: no answer from npuflowd: %s\n",
			n ? strerror(errno) : "it closed the connection");
		return 1;
	}
	rep[n] = '\0';
	if (!strncmp(rep, "error: ", 7)) {	/* npuflowd refused: said as npuctl says errors */
		fprintf(stderr, "npuctl: %s", rep + 7);
		return 1;
	}
	fputs(rep, out);
	return strncmp(rep, "error", 5) ? 0 : 1;
}
