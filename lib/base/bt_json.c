// SPDX-License-Identifier: GPL-2.0
#include <math.h>
#include <string.h>

#include "bt_json.h"
#include "bt_escape.h"

void bt_json_init(struct bt_json *j, FILE *out)
{
	j->out = out;
	j->depth = 0;
	j->has_items[0] = false;
	j->compact = false;
}

void bt_json_init_compact(struct bt_json *j, FILE *out)
{
	bt_json_init(j, out);
	j->compact = true;
}

void bt_json_line(struct bt_json *j, FILE *out)
{
	bt_json_init_compact(j, out);
	bt_json_begin_object(j, NULL);
}

void bt_json_quoten(FILE *out, const char *s, size_t n)
{
	char buf[BT_JSON_FIELD_MAX + 1];

	n = strnlen(s, n < BT_JSON_FIELD_MAX ? n : BT_JSON_FIELD_MAX);
	memcpy(buf, s, n);
	buf[n] = '\0';
	bt_json_quote(out, buf);
}

void bt_json_quote(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n;

	fputc('"', out);
	for (; *p; p++) {
		if (*p >= 0x80) {
			/*
			 * Kernel strings (paths, comms, symbol names) are bytes, JSON text is
			 * Unicode: a byte that starts no valid sequence becomes U+FFFD, as a
			 * decoder would show it, so the line stays parseable.
			 */
			n = bt_utf8_len((const char *)p, 4);
			if (!n) {
				fputs("\\ufffd", out);
				continue;
			}
			/* U+0080-U+009F, C1 controls: escaped as the C0 ones are */
			if (p[0] == 0xc2 && p[1] < 0xa0) {
				fprintf(out, "\\u%04x", p[1]);
				p++;
				continue;
			}
			fwrite(p, 1, n, out);
			p += n - 1;
			continue;
		}
		switch (*p) {
		case '"':
			fputs("\\\"", out);
			break;
		case '\\':
			fputs("\\\\", out);
			break;
		case '\n':
			fputs("\\n", out);
			break;
		case '\t':
			fputs("\\t", out);
			break;
		case '\r':
			fputs("\\r", out);
			break;
		default:
			if (*p < 0x20)
				fprintf(out, "\\u%04x", *p);
			else
				fputc(*p, out);
		}
	}
	fputc('"', out);
}

/* The comma, newline and indentation before a value, then its key. */
static void item(struct bt_json *j, const char *key)
{
	if (j->depth > 0) {
		if (j->has_items[j->depth])
			fputs(j->compact ? ", " : ",", j->out);
		if (!j->compact)
			fprintf(j->out, "\n%*s", 2 * j->depth, "");
		j->has_items[j->depth] = true;
	}
	if (key) {
		bt_json_quote(j->out, key);
		fputs(": ", j->out);
	}
}

static void begin(struct bt_json *j, const char *key, char c)
{
	item(j, key);
	fputc(c, j->out);
	if (j->depth + 1 < BT_JSON_MAX_DEPTH)
		j->depth++;
	j->has_items[j->depth] = false;
}

static void end(struct bt_json *j, char c)
{
	bool items = j->has_items[j->depth];

	if (j->depth > 0)
		j->depth--;
	if (items && !j->compact)
		fprintf(j->out, "\n%*s", 2 * j->depth, "");
	fputc(c, j->out);
}

void bt_json_begin_object(struct bt_json *j, const char *key)
{
	begin(j, key, '{');
}

void bt_json_end_object(struct bt_json *j)
{
	end(j, '}');
}

void bt_json_begin_array(struct bt_json *j, const char *key)
{
	begin(j, key, '[');
}

void bt_json_end_array(struct bt_json *j)
{
	end(j, ']');
}

void bt_json_string(struct bt_json *j, const char *key, const char *val)
{
	item(j, key);
	if (val)
		bt_json_quote(j->out, val);
	else
		fputs("null", j->out);
}

void bt_json_stringn(struct bt_json *j, const char *key, const char *val, size_t n)
{
	item(j, key);
	bt_json_quoten(j->out, val, n);
}

void bt_json_int(struct bt_json *j, const char *key, long long val)
{
	item(j, key);
	fprintf(j->out, "%lld", val);
}

void bt_json_uint(struct bt_json *j, const char *key, unsigned long long val)
{
	item(j, key);
	fprintf(j->out, "%llu", val);
}

void bt_json_double(struct bt_json *j, const char *key, double val)
{
	item(j, key);
	if (isfinite(val))
		fprintf(j->out, "%.6g", val);
	else
		fputs("null", j->out); /* JSON has no NaN or infinity */
}

void bt_json_bool(struct bt_json *j, const char *key, bool val)
{
	item(j, key);
	fputs(val ? "true" : "false", j->out);
}

void bt_json_null(struct bt_json *j, const char *key)
{
	item(j, key);
	fputs("null", j->out);
}

void bt_json_raw(struct bt_json *j, const char *key, const char *json)
{
	item(j, key);
	fputs(json, j->out);
}

void bt_json_finish(struct bt_json *j)
{
	fputc('\n', j->out);
}
