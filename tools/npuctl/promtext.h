/* SPDX-License-Identifier: GPL-2.0 */
/*
 * promtext.h - the Prometheus text exposition format, version 0.0.4 (what
 * node_exporter's textfile collector and `promtool check metrics` read):
 * a family's HELP and TYPE lines, then its samples, one a line.  The
 * caller writes a family's samples right after its header and names each
 * family once.
 */
#ifndef _NPUCTL_PROMTEXT_H
#define _NPUCTL_PROMTEXT_H

#include <stddef.h>
#include <stdio.h>

struct prom_label {
	const char *name;	/* [a-zA-Z_][a-zA-Z0-9_]*, not starting "__" */
	const char *value;	/* any UTF-8: escaped here */
};

/*
 * prom_family - "# HELP @name @help" (backslash and newline escaped) and
 * "# TYPE @name @type"; @type "counter", "gauge" or "untyped".
 */
void prom_family(FILE *f, const char *name, const char *type, const char *help);

/*
 * prom_sample - "@name{labels} value": @nl labels of @l (none: no braces),
 * values escaped (backslash, double quote, newline); the value is
 * @v / @unit written exactly in decimal, @unit a power of ten (1: an
 * integer, 1000000: microseconds as seconds, "12.000345").
 */
void prom_sample(FILE *f, const char *name, const struct prom_label *l, size_t nl,
		 unsigned long long v, unsigned long long unit);

#endif /* _NPUCTL_PROMTEXT_H */
