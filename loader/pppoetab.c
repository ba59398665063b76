// SPDX-License-Identifier: GPL-2.0
/*
 * pppoetab.c - the host's PPPoE sessions (/proc/net/pppoe): pppoetab.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include "pppoetab.h"

/* /proc/net/pppoe is one page per read; a router has a few sessions. */
#define PPPOETAB_TEXT_MAX	65536

/* One line "%08X %pM %8s": 0, or -1 if it is none (the header). */
static int parse_line(const char *line, struct pppoe_sess *out)
{
	unsigned int v, m[6];
	char dev[IF_NAMESIZE + 1], end;
	int i;

	if (sscanf(line, "%8x %2x:%2x:%2x:%2x:%2x:%2x %16s %c", &v, &m[0], &m[1], &m[2],
		   &m[3], &m[4], &m[5], dev, &end) != 8)
		return -1;
	if (v > 0xffff || strlen(dev) >= IF_NAMESIZE)
		return -1;
	out->sid = ntohs((uint16_t)v);
	if (!out->sid || out->sid == 0xffff)
		return -1;
	for (i = 0; i < 6; i++)
		out->remote[i] = (uint8_t)m[i];
	memset(out->dev, 0, sizeof(out->dev));
	strcpy(out->dev, dev);
	return 0;
}

int pppoetab_parse(const char *text, struct pppoe_sess *s, int max)
{
	char line[128];
	struct pppoe_sess one;
	const char *p = text, *nl;
	int n = 0;
	size_t len;

	while (*p) {
		nl = strchr(p, '\n');
		len = nl ? (size_t)(nl - p) : strlen(p);
		if (len < sizeof(line)) {
			memcpy(line, p, len);
			line[len] = '\0';
			if (!parse_line(line, &one)) {
				if (n < max)
					s[n] = one;
				n++;
			}
		}
		p += len + (nl ? 1 : 0);
	}
	return n;
}

int pppoetab_read(const char *path, struct pppoe_sess *s, int max)
{
	char *text;
	size_t got = 0;
	ssize_t r;
	int fd, n;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	text = malloc(PPPOETAB_TEXT_MAX);
	if (!text) {
		close(fd);
		return -ENOMEM;
	}
	while (got < PPPOETAB_TEXT_MAX - 1) {
		r = read(fd, text + got, PPPOETAB_TEXT_MAX - 1 - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			n = -errno;
			goto out;
		}
		if (!r)
			break;
		got += r;
	}
	text[got] = '\0';
	n = pppoetab_parse(text, s, max);
out:
	free(text);
	close(fd);
	return n;
}

int pppoetab_find(const struct pppoe_sess *s, int n, const char *dev, uint16_t sid)
{
	int i, found = -ENOENT;

	for (i = 0; i < n; i++) {
		if (strcmp(s[i].dev, dev))
			continue;
		if (sid && s[i].sid == sid)
			return i;
		if (!sid) {
			if (found >= 0)
				return -EEXIST;
			found = i;
		}
	}
	return found;
}

int pppoetab_pass_get(struct pppoetab_pass *t, const char *path, uint64_t pass,
		      const struct pppoe_sess **s)
{
	if (!pass || t->pass != pass) {
		t->n = pppoetab_read(path, t->s, PPPOETAB_PASS_MAX);
		t->pass = pass;
		t->reads++;
	}
	*s = t->s;
	return t->n;
}
