// SPDX-License-Identifier: GPL-2.0
/*
 * promtext.c - the Prometheus text exposition format 0.0.4 (promtext.h):
 * escaping, HELP and TYPE lines, samples with exact decimal values.
 */
#include "promtext.h"

/* @s on @f, its backslashes and newlines escaped, and double quotes if @quote. */
static void put_escaped(FILE *f, const char *s, int quote)
{
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\\\", f);
		else if (*s == '\n')
			fputs("\\n", f);
		else if (*s == '"' && quote)
			fputs("\\\"", f);
		else
			putc(*s, f);
	}
}

void prom_family(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s ", name);
	put_escaped(f, help, 0);
	fprintf(f, "\n# TYPE %s %s\n", name, type);
}

/* @v / @unit in decimal, exactly: as many fraction digits as @unit has zeros. */
static void put_value(FILE *f, unsigned long long v, unsigned long long unit)
{
	int digits = 0;
	unsigned long long u;

	for (u = unit; u > 1; u /= 10)
		digits++;
	if (!digits)
		fprintf(f, "%llu", v);
	else
		fprintf(f, "%llu.%0*llu", v / unit, digits, v % unit);
}

void prom_sample(FILE *f, const char *name, const struct prom_label *l, size_t nl,
		 unsigned long long v, unsigned long long unit)
{
	size_t i;

	fputs(name, f);
	for (i = 0; i < nl; i++) {
		fprintf(f, "%s%s=\"", i ? "," : "{", l[i].name);
		put_escaped(f, l[i].value, 1);
		putc('"', f);
	}
	if (nl)
		putc('}', f);
	putc(' ', f);
	put_value(f, v, unit);
	putc('\n', f);
}
