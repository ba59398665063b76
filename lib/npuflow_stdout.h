/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npuflow_stdout.h - the end of a program's standard output, checked: what
 * it wrote there and could not (a full disk, /dev/full, a closed pipe) is
 * an error, as coreutils' close_stdout() has it.  npuflowd (--help,
 * --version), npuctl and npuload end with it.
 */
#ifndef _NPUFLOW_STDOUT_H
#define _NPUFLOW_STDOUT_H

/**
 * npuflow_close_stdout - flush and close stdout, and say if what was
 * written to it did not all get out
 * @prog: the program's name, which the message begins with
 *
 * Nothing is said when stdout was closed before the program ran and it
 * wrote nothing there.  stdout is closed either way: the caller exits next.
 *
 * Return: 0, or -1 when the output was not all written ("PROG: cannot
 * write the output: REASON" said on stderr); the program then exits 1.
 */
int npuflow_close_stdout(const char *prog);

#endif /* _NPUFLOW_STDOUT_H */
