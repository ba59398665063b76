/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npuctl_check.h - what the npuctl tests ask of an output, as cmocka
 * checks (include after cmocka.h): JSON parsed with json-c and read by
 * member paths, Prometheus text read strictly (prom_check.h) and by
 * promtool when it is installed.
 */
#ifndef _NPUCTL_CHECK_H
#define _NPUCTL_CHECK_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include "prom_check.h"

/* @s parsed: it must be one JSON value and nothing else. */
static struct json_object *parse(const char *s)
{
	enum json_tokener_error e;
	struct json_object *o = json_tokener_parse_verbose(s, &e);

	if (!o)
		fail_msg("not JSON (%s): %s", json_tokener_error_desc(e), s);
	return o;
}

/* Member path "a.b.c" of @o (a number: an array index), which must be there. */
static struct json_object *get(struct json_object *o, const char *path)
{
	char copy[128], *save = NULL, *part;

	snprintf(copy, sizeof(copy), "%s", path);
	for (part = strtok_r(copy, ".", &save); part; part = strtok_r(NULL, ".", &save)) {
		struct json_object *m = NULL;

		if (json_object_is_type(o, json_type_array))
			m = json_object_array_get_idx(o, atoi(part));
		else
			json_object_object_get_ex(o, part, &m);
		if (!m)
			fail_msg("no '%s' (of '%s') in %s", part, path,
				 json_object_to_json_string(o));
		o = m;
	}
	return o;
}

static uint64_t u64(struct json_object *o, const char *path)
{
	struct json_object *m = get(o, path);

	if (!json_object_is_type(m, json_type_int))
		fail_msg("%s is not an integer: %s", path, json_object_to_json_string(m));
	return json_object_get_uint64(m);
}

static int64_t i64(struct json_object *o, const char *path)
{
	struct json_object *m = get(o, path);

	if (!json_object_is_type(m, json_type_int))
		fail_msg("%s is not an integer: %s", path, json_object_to_json_string(m));
	return json_object_get_int64(m);
}

static const char *str(struct json_object *o, const char *path)
{
	struct json_object *m = get(o, path);

	if (!json_object_is_type(m, json_type_string))
		fail_msg("%s is not a string: %s", path, json_object_to_json_string(m));
	return json_object_get_string(m);
}

static int boolean(struct json_object *o, const char *path)
{
	struct json_object *m = get(o, path);

	if (!json_object_is_type(m, json_type_boolean))
		fail_msg("%s is not a boolean: %s", path, json_object_to_json_string(m));
	return json_object_get_boolean(m);
}

/* Elements of an array, members of an object. */
static size_t length(struct json_object *o)
{
	if (json_object_is_type(o, json_type_array))
		return json_object_array_length(o);
	assert_true(json_object_is_type(o, json_type_object));
	return json_object_object_length(o);
}

/* @text has the line @line. */
static void has_line(const char *text, const char *line)
{
	size_t n = strlen(line);
	const char *p;

	for (p = text; (p = strstr(p, line)); p += n)
		if ((p == text || p[-1] == '\n') && p[n] == '\n')
			return;
	fail_msg("no line '%s' in:\n%s", line, text);
}

/* @text is well formed, strictly and for promtool (when it is installed). */
static void well_formed(const char *text)
{
	char msg[4096];
	int rc;

	if (prom_check(text, msg, sizeof(msg)))
		fail_msg("%s, in:\n%s", msg, text);
	rc = prom_promtool(text, msg, sizeof(msg));
	if (rc == -1)
		print_message("no promtool (Debian package prometheus): not asked\n");
	else if (rc)
		fail_msg("promtool check metrics: exit %d: %s\non:\n%s", rc, msg, text);
}

#endif /* _NPUCTL_CHECK_H */
