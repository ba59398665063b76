/* SPDX-License-Identifier: GPL-2.0 */
/*
 * prom_check.h - a strict reader of the Prometheus text exposition format
 * 0.0.4 as npuctl writes it, for the tests: what `promtool check metrics`
 * (2.42) lets through and a Prometheus server or node_exporter's textfile
 * collector refuses - a family named twice, its samples apart, a series
 * twice - and the grammar: HELP then TYPE before a family's samples, label
 * names and escapes, values.  No histograms or summaries (npuctl writes
 * none), no timestamps.  And promtool itself, when it is installed.
 */
#ifndef _PROM_CHECK_H
#define _PROM_CHECK_H

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

struct prom_seen {
	char **v;
	size_t n;
};

/* Whether @s is in @set; adds it if not.  -1: out of memory. */
static int prom_seen_add(struct prom_seen *set, const char *s, size_t len)
{
	char **v;
	size_t i;

	for (i = 0; i < set->n; i++)
		if (strlen(set->v[i]) == len && !memcmp(set->v[i], s, len))
			return 1;
	v = realloc(set->v, (set->n + 1) * sizeof(*v));
	if (!v)
		return -1;
	set->v = v;
	v[set->n] = strndup(s, len);
	return v[set->n++] ? 0 : -1;
}

static void prom_seen_free(struct prom_seen *set)
{
	while (set->n)
		free(set->v[--set->n]);
	free(set->v);
}

/* Length of the metric or label name at @s (@colon: metric names may have ':'), 0 if none. */
static size_t prom_name_len(const char *s, int colon)
{
	size_t n = 0;

	if (!isalpha((unsigned char)s[0]) && s[0] != '_' && !(colon && s[0] == ':'))
		return 0;
	while (isalnum((unsigned char)s[n]) || s[n] == '_' || (colon && s[n] == ':'))
		n++;
	return n;
}

/* Past the label set at @p ('{' ... '}'), or NULL if it is malformed. */
static const char *prom_labels_end(const char *p)
{
	struct prom_seen names = { 0 };
	const char *bad = NULL;

	for (p++; *p != '}'; ) {
		size_t n = prom_name_len(p, 0);

		if (!n || (n >= 2 && p[0] == '_' && p[1] == '_') || prom_seen_add(&names, p, n) ||
		    p[n] != '=' || p[n + 1] != '"') {
			bad = p;
			break;
		}
		for (p += n + 2; *p != '"'; p++) {
			if (*p == '\n' || !*p || (*p == '\\' && !strchr("\\\"n", p[1]))) {
				bad = p;
				break;
			}
			if (*p == '\\')
				p++;
		}
		if (bad)
			break;
		p++;
		if (*p == ',')
			p++;
		else if (*p != '}')
			bad = p;
		if (bad)
			break;
	}
	prom_seen_free(&names);
	return bad ? NULL : p + 1;
}

struct prom_state {
	struct prom_seen fams, series;
	char help[128];		/* the family of the last HELP, until its TYPE */
	char fam[128];		/* the family samples belong to now */
	char type[16];		/* ... and its type */
};

/* A HELP or TYPE line: what is wrong with it, or NULL. */
static const char *prom_check_meta(struct prom_state *st, const char *p)
{
	size_t n = prom_name_len(p + 7, 1);

	if (!strncmp(p, "# HELP ", 7)) {
		if (!n || p[7 + n] != ' ' || n >= sizeof(st->help))
			return "HELP: no metric name";
		snprintf(st->help, sizeof(st->help), "%.*s", (int)n, p + 7);
		return NULL;
	}
	if (!n || n >= sizeof(st->fam) || strncmp(st->help, p + 7, n) || st->help[n])
		return "TYPE: not right after its family's HELP";
	if (sscanf(p + 7 + n, " %15[a-z]\n", st->type) != 1 ||
	    (strcmp(st->type, "counter") && strcmp(st->type, "gauge") &&
	     strcmp(st->type, "untyped")))
		return "TYPE: not counter, gauge or untyped";
	snprintf(st->fam, sizeof(st->fam), "%s", st->help);
	st->help[0] = '\0';
	return prom_seen_add(&st->fams, p + 7, n) ? "a family named twice" : NULL;
}

/* A sample line: what is wrong with it, or NULL. */
static const char *prom_check_sample(struct prom_state *st, const char *p)
{
	size_t n = prom_name_len(p, 1);
	const char *end;
	char *stop;
	double v;

	if (!n || strncmp(p, st->fam, n) || st->fam[n])
		return "a sample outside its family's lines";
	end = p[n] == '{' ? prom_labels_end(p + n) : p + n;
	if (!end || *end != ' ')
		return "labels malformed";
	if (prom_seen_add(&st->series, p, end - p))
		return "a series twice";
	v = strtod(end + 1, &stop);
	if (stop == end + 1 || *stop != '\n')
		return "value: not a number";
	if (!strcmp(st->type, "counter") && v < 0)
		return "value: a counter below zero";
	return NULL;
}

/*
 * prom_check - NULL if @text is well formed (above), else a message naming
 * the first line that is not, in @msg (@len bytes).
 */
static const char *prom_check(const char *text, char *msg, size_t len)
{
	struct prom_state st;
	const char *line = text, *why = NULL;
	int no = 0;

	memset(&st, 0, sizeof(st));
	if (!*text || text[strlen(text) - 1] != '\n')
		why = "does not end with a newline";
	while (!why && *line) {
		no++;
		if (!strncmp(line, "# HELP ", 7) || !strncmp(line, "# TYPE ", 7))
			why = prom_check_meta(&st, line);
		else if (*line == '#')
			why = "a comment npuctl does not write";
		else
			why = prom_check_sample(&st, line);
		if (!why)
			line = strchr(line, '\n') + 1;
	}
	prom_seen_free(&st.fams);
	prom_seen_free(&st.series);
	if (!why)
		return NULL;
	snprintf(msg, len, "line %d: %s: '%.*s'", no, why, (int)strcspn(line, "\n"), line);
	return msg;
}

/*
 * prom_promtool - `promtool check metrics` on @text: its exit status and
 * what it said (in @out, @len bytes); -1 when promtool is not installed
 * (Debian's prometheus package), -2 when it could not be run.
 */
static int prom_promtool(const char *text, char *out, size_t len)
{
	char path[] = "/tmp/npuctl-prom.XXXXXX", cmd[128];
	FILE *f, *p;
	int fd, st;
	size_t n;

	if (system("command -v promtool >/dev/null 2>&1"))
		return -1;
	fd = mkstemp(path);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f || fputs(text, f) < 0 || fclose(f)) {
		unlink(path);
		return -2;
	}
	snprintf(cmd, sizeof(cmd), "promtool check metrics < %s 2>&1", path);
	p = popen(cmd, "r");
	if (!p) {
		unlink(path);
		return -2;
	}
	n = fread(out, 1, len - 1, p);
	out[n] = '\0';
	st = pclose(p);
	unlink(path);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -2;
}

#endif /* _PROM_CHECK_H */
