// SPDX-License-Identifier: GPL-2.0
/* lib/base/bt_json: escaping, nesting, commas and indentation, non-finite numbers, null. */
#include <math.h>
#include <stdlib.h>

#include "bt_json.h"
#include "harness.h"

/* A memory stream per case; out() returns what was written so far. */
static char *buf;
static size_t len;

static FILE *open_mem(void)
{
	free(buf);
	buf = NULL;
	len = 0;
	return open_memstream(&buf, &len);
}

static const char *out(FILE *f)
{
	fflush(f);
	return buf ? buf : "";
}

static const char *quoted(const char *s)
{
	FILE *f = open_mem();

	bt_json_quote(f, s);
	fclose(f);
	return buf;
}

static void test_escaping(void)
{
	CHECK_STR(quoted(""), "\"\"");
	CHECK_STR(quoted("plain"), "\"plain\"");
	CHECK_STR(quoted("a\"b"), "\"a\\\"b\"");
	CHECK_STR(quoted("back\\slash"), "\"back\\\\slash\"");
	CHECK_STR(quoted("l1\nl2\tt\rr"), "\"l1\\nl2\\tt\\rr\"");
	CHECK_STR(quoted("\x01\x1f"), "\"\\u0001\\u001f\"");
	CHECK_STR(quoted("\x7f"), "\"\x7f\""); /* DEL needs no escape in JSON */
	/* C1 controls (U+009B is CSI) escaped as C0 ones are; U+00A0 on is text */
	CHECK_STR(quoted("\xc2\x9b"
			 "2J\xc2\x80\xc2\xa0"),
		  "\"\\u009b2J\\u0080\xc2\xa0\"");
	CHECK_STR(quoted("caf\xc3\xa9 \xe2\x82\xac"), "\"caf\xc3\xa9 \xe2\x82\xac\""); /* UTF-8 */
	CHECK_STR(quoted("</script>"), "\"</script>\"");
}

/* Bytes that are not UTF-8 (a file name from the fuzzers, a binary comm) stay valid JSON. */
static void test_invalid_utf8(void)
{
	CHECK_STR(quoted("a\xff"
			 "b"),
		  "\"a\\ufffdb\"");			     /* never a UTF-8 byte */
	CHECK_STR(quoted("\x80"), "\"\\ufffd\"");	     /* a lone continuation byte */
	CHECK_STR(quoted("\xc3"), "\"\\ufffd\"");	     /* cut short by the end */
	CHECK_STR(quoted("\xc3x"), "\"\\ufffdx\"");	     /* cut short by ASCII */
	CHECK_STR(quoted("\xc0\xaf"), "\"\\ufffd\\ufffd\""); /* overlong '/' */
	CHECK_STR(quoted("\xe0\x80\xaf"), "\"\\ufffd\\ufffd\\ufffd\"");		   /* overlong */
	CHECK_STR(quoted("\xed\xa0\x80"), "\"\\ufffd\\ufffd\\ufffd\"");		   /* a surrogate */
	CHECK_STR(quoted("\xf4\x90\x80\x80"), "\"\\ufffd\\ufffd\\ufffd\\ufffd\""); /* > U+10FFFF */
	CHECK_STR(quoted("\xf0\x9f\x98\x80!"), "\"\xf0\x9f\x98\x80!\"");	   /* U+1F600 */
	CHECK_STR(quoted("\xef\xbf\xbd"), "\"\xef\xbf\xbd\""); /* U+FFFD itself */
}

static void test_empty_containers(void)
{
	struct bt_json j;
	FILE *f = open_mem();

	bt_json_init(&j, f);
	bt_json_begin_object(&j, NULL);
	bt_json_begin_array(&j, "a");
	bt_json_end_array(&j);
	bt_json_begin_object(&j, "o");
	bt_json_end_object(&j);
	bt_json_end_object(&j);
	bt_json_finish(&j);
	CHECK_STR(out(f), "{\n  \"a\": [],\n  \"o\": {}\n}\n");
	fclose(f);
}

static void test_nesting_and_commas(void)
{
	struct bt_json j;
	FILE *f = open_mem();

	bt_json_init(&j, f);
	bt_json_begin_object(&j, NULL);
	bt_json_string(&j, "name", "vfs_read");
	bt_json_int(&j, "neg", -3);
	bt_json_uint(&j, "big", 18446744073709551615ULL);
	bt_json_begin_array(&j, "list");
	bt_json_int(&j, NULL, 1);
	bt_json_begin_object(&j, NULL);
	bt_json_bool(&j, "t", true);
	bt_json_bool(&j, "f", false);
	bt_json_end_object(&j);
	bt_json_null(&j, NULL);
	bt_json_string(&j, NULL, NULL);
	bt_json_end_array(&j);
	bt_json_double(&j, "half", 0.5);
	bt_json_end_object(&j);
	bt_json_finish(&j);
	CHECK_STR(out(f), "{\n"
			  "  \"name\": \"vfs_read\",\n"
			  "  \"neg\": -3,\n"
			  "  \"big\": 18446744073709551615,\n"
			  "  \"list\": [\n"
			  "    1,\n"
			  "    {\n"
			  "      \"t\": true,\n"
			  "      \"f\": false\n"
			  "    },\n"
			  "    null,\n"
			  "    null\n"
			  "  ],\n"
			  "  \"half\": 0.5\n"
			  "}\n");
	fclose(f);
}

/* JSON has no NaN or infinity: they print as null, never as "nan". */
static void test_non_finite(void)
{
	struct bt_json j;
	FILE *f = open_mem();

	bt_json_init(&j, f);
	bt_json_begin_array(&j, NULL);
	bt_json_double(&j, NULL, NAN);
	bt_json_double(&j, NULL, INFINITY);
	bt_json_double(&j, NULL, -INFINITY);
	bt_json_double(&j, NULL, 1e300);
	bt_json_end_array(&j);
	CHECK_STR(out(f), "[\n  null,\n  null,\n  null,\n  1e+300\n]");
	fclose(f);
}

/* Keys are escaped like values. */
static void test_key_escaping(void)
{
	struct bt_json j;
	FILE *f = open_mem();

	bt_json_init(&j, f);
	bt_json_begin_object(&j, NULL);
	bt_json_int(&j, "we\"ird\n", 1);
	bt_json_end_object(&j);
	CHECK_STR(out(f), "{\n  \"we\\\"ird\\n\": 1\n}");
	fclose(f);
}

/* Two documents with one writer each: no state leaks from the first. */
static void test_reinit(void)
{
	struct bt_json j;
	FILE *f = open_mem();

	bt_json_init(&j, f);
	bt_json_begin_object(&j, NULL);
	bt_json_int(&j, "a", 1);
	bt_json_end_object(&j);
	bt_json_init(&j, f);
	bt_json_begin_array(&j, NULL);
	bt_json_int(&j, NULL, 2);
	bt_json_end_array(&j);
	CHECK_STR(out(f), "{\n  \"a\": 1\n}[\n  2\n]");
	fclose(f);
}

/* One line per value (JSON Lines), as the per-event tools print. */
static void test_compact(void)
{
	FILE *f = open_mem();
	struct bt_json j;

	bt_json_init_compact(&j, f);
	bt_json_begin_object(&j, NULL);
	bt_json_string(&j, "comm", "dd \"x\"");
	bt_json_int(&j, "pid", -1);
	bt_json_begin_array(&j, "v");
	bt_json_uint(&j, NULL, 1);
	bt_json_null(&j, NULL);
	bt_json_end_array(&j);
	bt_json_begin_object(&j, "empty");
	bt_json_end_object(&j);
	bt_json_end_object(&j);
	bt_json_finish(&j);
	bt_json_begin_object(&j, NULL);
	bt_json_end_object(&j);
	bt_json_finish(&j);
	CHECK_STR(
		out(f),
		"{\"comm\": \"dd \\\"x\\\"\", \"pid\": -1, \"v\": [1, null], \"empty\": {}}\n{}\n");
	fclose(f);
}
/* A value serialized earlier goes in as one item, commas kept. */
static void test_raw(void)
{
	FILE *f = open_mem();
	struct bt_json j;

	bt_json_init_compact(&j, f);
	bt_json_begin_object(&j, NULL);
	bt_json_begin_array(&j, "rows");
	bt_json_raw(&j, NULL, "{\"a\": 1}");
	bt_json_raw(&j, NULL, "[2]");
	bt_json_end_array(&j);
	bt_json_raw(&j, "n", "3");
	bt_json_end_object(&j);
	bt_json_finish(&j);
	CHECK_STR(out(f), "{\"rows\": [{\"a\": 1}, [2]], \"n\": 3}\n");
	fclose(f);
}

/* A JSON Lines record begun at once; a fixed-size field, full (no NUL) or NUL-ended. */
static void test_line_and_fields(void)
{
	static const char full[16] = "0123456789abcdef", ended[16] = "dd\"x\"";
	FILE *f = open_mem();
	struct bt_json j;

	bt_json_line(&j, f);
	bt_json_stringn(&j, "full", full, sizeof(full));
	bt_json_stringn(&j, "ended", ended, sizeof(ended));
	bt_json_stringn(&j, "cut", full, 4);
	bt_json_end_object(&j);
	bt_json_finish(&j);
	bt_json_quoten(f, full, sizeof(full));
	CHECK_STR(out(f), "{\"full\": \"0123456789abcdef\", \"ended\": \"dd\\\"x\\\"\", "
			  "\"cut\": \"0123\"}\n\"0123456789abcdef\"");
	fclose(f);
}

int main(void)
{
	BT_RUN(test_escaping);
	BT_RUN(test_invalid_utf8);
	BT_RUN(test_empty_containers);
	BT_RUN(test_nesting_and_commas);
	BT_RUN(test_non_finite);
	BT_RUN(test_key_escaping);
	BT_RUN(test_reinit);
	BT_RUN(test_compact);
	BT_RUN(test_raw);
	BT_RUN(test_line_and_fields);
	free(buf);
	return bt_test_done();
}
