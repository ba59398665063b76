/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npuflowd's pin directory (npuflowd_pins.c): opened once, at @dir, and
 * every later call works in it.
 */
#ifndef NPUFLOWD_PINS_H
#define NPUFLOWD_PINS_H

struct classify;

int pins_open(const char *dir, int start);
int pins_check(struct classify *skel);
void pins_chmod(void);
int pins_remove(void);
/* after a start that failed: what it made removed, what was there kept */
void pins_undo(void);

#endif
