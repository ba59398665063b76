// SPDX-License-Identifier: GPL-2.0
/* npuflow_stdout.c - stdout's end, checked (npuflow_stdout.h). */
#include <errno.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <string.h>
#include "npuflow_stdout.h"

int npuflow_close_stdout(const char *prog)
{
	int pending = __fpending(stdout) != 0, failed = ferror(stdout), e;

	errno = 0;
	e = fclose(stdout) ? errno : 0;
	/* stdout closed from the start (>&-), and nothing was meant for it */
	if (!failed && (!e || (e == EBADF && !pending)))
		return 0;
	/* an earlier write failed, its errno since lost: no reason to give */
	if (e)
		fprintf(stderr, "%s: cannot write the output: %s\n", prog, strerror(e));
	else
		fprintf(stderr, "%s: cannot write the output\n", prog);
	return -1;
}
