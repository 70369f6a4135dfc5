// SPDX-License-Identifier: GPL-2.0
/* lib/base/bt_escape: what a traced-side name prints as, in every output. */
#include <stdlib.h>

#include "bt_escape.h"
#include "harness.h"

static char buf[BT_ESC_SIZE(256)];

static const char *esc(const char *s, unsigned int flags)
{
	bt_escape(buf, sizeof(buf), s, strlen(s), flags);
	return buf;
}

static void test_ordinary(void)
{
	/* BCC prints these as they are: so do we */
	CHECK_STR(esc("bash", 0), "bash");
	CHECK_STR(esc("kworker/u8:2", 0), "kworker/u8:2");
	CHECK_STR(esc("Web Content", 0), "Web Content");
	CHECK_STR(esc("std::vector<int>::push_back(int const&)", BT_ESC_FOLDED),
		  "std::vector<int>::push_back(int const&)");
	CHECK_STR(esc("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xa5", 0),
		  "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xa5");
	CHECK_STR(esc("C:\\dir", 0), "C:\\dir");
	CHECK(!bt_escape_needed("kworker/0:1", 11, BT_ESC_FOLDED));
}

static void test_hostile(void)
{
	/* the comm: clears the screen, retitles the terminal, forges a line and a frame */
	const char *comm = "\033[2J\033]0;PWN\a\nX;";

	CHECK_STR(esc(comm, 0), "\\x1b[2J\\x1b]0;PWN\\x07\\x0aX;");
	CHECK_STR(esc(comm, BT_ESC_FOLDED), "\\x1b[2J\\x1b]0\\x3bPWN\\x07\\x0aX\\x3b");
	CHECK(bt_escape_needed(comm, strlen(comm), 0));
	CHECK(bt_escape_needed("a;b", 3, BT_ESC_FOLDED));
	CHECK(!bt_escape_needed("a;b", 3, 0));
	CHECK_STR(esc("\r\t\x7f", 0), "\\x0d\\x09\\x7f");
	/* C1 controls as UTF-8 (CSI U+009B), lone and broken sequences, overlong and surrogates */
	CHECK_STR(esc("\xc2\x9b"
		      "2J",
		      0),
		  "\\xc2\\x9b2J");
	CHECK_STR(esc("\xc2\xa0", 0), "\xc2\xa0");
	CHECK_STR(esc("\x9b"
		      "2J",
		      0),
		  "\\x9b2J");
	CHECK_STR(esc("a\xe2\x82", 0), "a\\xe2\\x82");
	CHECK_STR(esc("\xc0\xaf", 0), "\\xc0\\xaf");
	CHECK_STR(esc("\xed\xa0\x80", 0), "\\xed\\xa0\\x80");
	CHECK_STR(esc("\xff", 0), "\\xff");
}

static void test_idempotent(void)
{
	/* escaped text escapes to itself: two layers may both escape */
	const char *s = "\033]0;x\a\n;\xff";
	char once[BT_ESC_SIZE(64)], twice[BT_ESC_SIZE(256)];

	bt_escape(once, sizeof(once), s, strlen(s), BT_ESC_FOLDED);
	bt_escape(twice, sizeof(twice), once, strlen(once), BT_ESC_FOLDED);
	CHECK_STR(twice, once);
	CHECK(!bt_escape_needed(once, strlen(once), BT_ESC_FOLDED));
}

static void test_bounds(void)
{
	char small[8];
	size_t n;

	/* at most len bytes, and a NUL ends it: a comm is a fixed array, maybe unterminated */
	CHECK_INT(bt_escape(small, sizeof(small), "abcdef", 3, 0), 3);
	CHECK_STR(small, "abc");
	CHECK_INT(bt_escape(small, sizeof(small), "ab\0cd", 5, 0), 2);
	/* an escape is never cut: "a\x01" needs 5 bytes and a NUL, 8 hold it; "ab\x01\x02" not */
	n = bt_escape(small, sizeof(small), "ab\x01\x02", 4, 0);
	CHECK_INT(n, 6);
	CHECK_STR(small, "ab\\x01");
	/* nor a UTF-8 character */
	n = bt_escape(small, 4, "a\xe2\x82\xac", 4, 0);
	CHECK_STR(small, "a");
	CHECK_INT(n, 1);
	CHECK_INT(bt_escape(small, 1, "abc", 3, 0), 0);
	CHECK_STR(small, "");
	/* BT_ESC_SIZE holds the worst case */
	{
		char all[BT_ESC_SIZE(16)];

		CHECK_INT(bt_escape(all, sizeof(all),
				    "\x01\x02\x03\x04\x05\x06\x07\x08"
				    "\x0b\x0c\x0e\x0f\x10\x11\x12\x13",
				    16, 0),
			  64);
	}
}

static void test_put(void)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	bt_escape_put(f, "x\ny;", 4, BT_ESC_FOLDED);
	fclose(f);
	CHECK_STR(out, "x\\x0ay\\x3b");
	free(out);
}

int main(void)
{
	BT_RUN(test_ordinary);
	BT_RUN(test_hostile);
	BT_RUN(test_idempotent);
	BT_RUN(test_bounds);
	BT_RUN(test_put);
	return bt_test_done();
}
