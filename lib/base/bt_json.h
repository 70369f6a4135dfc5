/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A tiny streaming JSON writer for --json outputs: objects, arrays, strings (escaped),
 * numbers, booleans, null. The writer tracks commas and indentation; nesting is limited to
 * BT_JSON_MAX_DEPTH. Keys are given for members of objects and NULL inside arrays.
 *
 *	struct bt_json j;
 *	bt_json_init(&j, stdout);
 *	bt_json_begin_object(&j, NULL);
 *	bt_json_bool(&j, "kprobes", false);
 *	bt_json_end_object(&j);
 *	bt_json_finish(&j);       // the closing newline
 */
#ifndef BT_JSON_H
#define BT_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define BT_JSON_MAX_DEPTH 16

struct bt_json {
	FILE *out;
	int depth;
	bool has_items[BT_JSON_MAX_DEPTH];
	bool compact; /* everything on one line: JSON Lines, one value per event */
};

void bt_json_init(struct bt_json *j, FILE *out);
/* The same, writing each top-level value on one line ({"a": 1, "b": [1, 2]}). */
void bt_json_init_compact(struct bt_json *j, FILE *out);
/* A record of JSON Lines begun: the compact writer, its top-level object open. */
void bt_json_line(struct bt_json *j, FILE *out);
void bt_json_begin_object(struct bt_json *j, const char *key);
void bt_json_end_object(struct bt_json *j);
void bt_json_begin_array(struct bt_json *j, const char *key);
void bt_json_end_array(struct bt_json *j);
void bt_json_string(struct bt_json *j, const char *key, const char *val); /* NULL: null */
/* A fixed-size field the kernel filled (a comm, a handler's name): at most n bytes, NUL or not. */
void bt_json_stringn(struct bt_json *j, const char *key, const char *val, size_t n);
void bt_json_int(struct bt_json *j, const char *key, long long val);
void bt_json_uint(struct bt_json *j, const char *key, unsigned long long val);
void bt_json_double(struct bt_json *j, const char *key, double val);
void bt_json_bool(struct bt_json *j, const char *key, bool val);
void bt_json_null(struct bt_json *j, const char *key);
/* A value already serialized as JSON (one compact line), e.g. kept from an earlier writer. */
void bt_json_raw(struct bt_json *j, const char *key, const char *json);
void bt_json_finish(struct bt_json *j);

/* A JSON string literal (quotes included) of s, escaped. */
void bt_json_quote(FILE *out, const char *s);
/* ... of at most n bytes of s, as bt_json_stringn() (BT_JSON_FIELD_MAX at most). */
#define BT_JSON_FIELD_MAX 64
void bt_json_quoten(FILE *out, const char *s, size_t n);

#endif
