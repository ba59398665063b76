/* SPDX-License-Identifier: GPL-2.0 */
/*
 * case_table.h - tables of test cases (include after cmocka.h and the
 * file under test, for the kernel's integer types).
 *
 * A case changes the fields of the input it built, and of the result it
 * expects, by a list of struct case_field: a field named by its offset
 * and size, its value written in host, network or little-endian order.
 * A case may check fields of a result the same way (case_fields_check()).
 * Each case of a table runs as a cmocka test of its own, named by the
 * case (case_tests()), so that a failure says which case failed.
 */
#ifndef _CASE_TABLE_H
#define _CASE_TABLE_H

#include <endian.h>
#include <stddef.h>
#include <string.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

enum case_order { CF_HOST, CF_BE, CF_LE };

/**
 * struct case_field - one field of a structure and the value it is set to
 * @off: offsetof() the field
 * @len: its size in bytes: 1, 2, 4 or 8 (0 ends a list)
 * @order: enum case_order, the byte order it holds @val in
 * @val: the value, as a number
 */
struct case_field {
	u16 off;
	u8 len;
	u8 order;
	u64 val;
};

/* Field @f of a struct @type set to @v, held in @order. */
#define CASE_FIELD(type, f, order, v) \
	{ offsetof(type, f), sizeof(((type *)0)->f), order, v }

/* The fields of @fields, up to @n or the first of length 0, set in @obj. */
static inline void case_fields_set(void *obj, const struct case_field *fields,
				   size_t n)
{
	const struct case_field *f;
	union { u8 b; u16 h; u32 w; u64 q; } v;

	for (f = fields; f < fields + n && f->len; f++) {
		switch (f->len) {
		case 1:
			v.b = (u8)f->val;
			break;
		case 2:
			v.h = f->order == CF_BE ? htobe16((u16)f->val) :
			      f->order == CF_LE ? htole16((u16)f->val) : (u16)f->val;
			break;
		case 4:
			v.w = f->order == CF_BE ? htobe32((u32)f->val) :
			      f->order == CF_LE ? htole32((u32)f->val) : (u32)f->val;
			break;
		case 8:
			v.q = f->order == CF_BE ? htobe64(f->val) :
			      f->order == CF_LE ? htole64(f->val) : f->val;
			break;
		default:
			fail_msg("a field of %u bytes at %u", f->len, f->off);
		}
		memcpy((u8 *)obj + f->off, &v, f->len);
	}
}

/*
 * Each field of @fields, up to @n or the first of length 0, holds its value
 * in @obj: a failure names the field by its offset.
 */
static inline void case_fields_check(const void *obj, const struct case_field *fields,
				     size_t n)
{
	const struct case_field *f;
	union { u8 b; u16 h; u32 w; u64 q; } v;
	u64 got;

	for (f = fields; f < fields + n && f->len; f++) {
		memcpy(&v, (const u8 *)obj + f->off, f->len);
		switch (f->len) {
		case 1:
			got = v.b;
			break;
		case 2:
			got = f->order == CF_BE ? be16toh(v.h) :
			      f->order == CF_LE ? le16toh(v.h) : v.h;
			break;
		case 4:
			got = f->order == CF_BE ? be32toh(v.w) :
			      f->order == CF_LE ? le32toh(v.w) : v.w;
			break;
		case 8:
			got = f->order == CF_BE ? be64toh(v.q) :
			      f->order == CF_LE ? le64toh(v.q) : v.q;
			break;
		default:
			fail_msg("a field of %u bytes at %u", f->len, f->off);
		}
		if (got != f->val)
			fail_msg("the field at %u (%u bytes) holds %llu, not %llu", f->off,
				 f->len, (unsigned long long)got, (unsigned long long)f->val);
	}
}

/*
 * The cases of @table (@n of @size bytes each) as cmocka tests in @tests,
 * each named by its case's name (the case's first member, a string) and
 * running @fn with the case as its state.  CASE_TESTS() for an array.
 */
static void case_tests(struct CMUnitTest *tests, const void *table, size_t n,
		       size_t size, CMUnitTestFunction fn)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const void *c = (const u8 *)table + i * size;

		memset(&tests[i], 0, sizeof(tests[i]));
		tests[i].name = *(const char *const *)c;
		tests[i].test_func = fn;
		tests[i].initial_state = (void *)c;
	}
}

#define CASE_TESTS(tests, table, fn) do {					\
		_Static_assert(offsetof(__typeof__((table)[0]), name) == 0,	\
			       "a case's name comes first");			\
		_Static_assert(ARRAY_SIZE(tests) == ARRAY_SIZE(table),		\
			       "a test a case");				\
		case_tests(tests, table, ARRAY_SIZE(table), sizeof((table)[0]), fn); \
	} while (0)

#endif /* _CASE_TABLE_H */
