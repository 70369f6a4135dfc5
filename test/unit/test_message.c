// SPDX-License-Identifier: GPL-2.0
/*
 * lib/base/bt_err's one-line messages: what the user typed is quoted in them, so control
 * characters are escaped (never a second line, never an escape sequence for the terminal) and
 * a huge message is shortened in the middle, on a UTF-8 character boundary.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bt_err.h"
#include "harness.h"

static char got[8192];

/* Run fn with stderr captured into got[]. */
static void capture(void (*fn)(void))
{
	char path[] = "/tmp/bt-msg-XXXXXX";
	int fd = mkstemp(path), saved = dup(STDERR_FILENO);
	ssize_t n;

	got[0] = '\0';
	if (fd < 0 || saved < 0)
		return;
	fflush(stderr);
	dup2(fd, STDERR_FILENO);
	fn();
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	n = pread(fd, got, sizeof(got) - 1, 0);
	got[n > 0 ? n : 0] = '\0';
	close(fd);
	unlink(path);
}

static void say_plain(void)
{
	bt_err("cannot find '%s'", "x");
}

static void say_control(void)
{
	bt_err("no function matches '%s'", "a\nb\033[31mc\x7f");
}

static char *long_arg(size_t n, const char *fill)
{
	size_t k = strlen(fill), i;
	char *s = malloc(n * k + 1);

	if (!s)
		return NULL;
	for (i = 0; i < n; i++)
		memcpy(s + i * k, fill, k);
	s[n * k] = '\0';
	return s;
}

static void say_long(void)
{
	char *s = long_arg(5000, "a");

	if (s)
		bt_err("cannot find library or program '%s'", s);
	free(s);
}

/* Two-byte characters: the cut must not split one. */
static void say_long_utf8(void)
{
	char *s = long_arg(3000, "\xc3\xa9");

	if (s)
		bt_warn("'%s'", s);
	free(s);
}

static void test_plain(void)
{
	capture(say_plain);
	CHECK_STR(got, "bpftools: cannot find 'x'\n");
}

static void test_control_characters(void)
{
	capture(say_control);
	CHECK_STR(got, "bpftools: no function matches 'a\\x0ab\\x1b[31mc\\x7f'\n");
}

static void test_long(void)
{
	const char *mid;

	capture(say_long);
	CHECK(strlen(got) < 1200);
	CHECK(!strncmp(got, "bpftools: cannot find library or program 'aaaa", 46));
	mid = strstr(got, "[...");
	CHECK(mid != NULL);
	/* a message of 32 + 5000 + 1 bytes, 512 kept at each end */
	CHECK(mid && !strncmp(mid, "[...4009 bytes...]aaaa", 22));
	CHECK(strlen(got) > 2 && !strcmp(got + strlen(got) - 3, "a'\n"));
	CHECK(strchr(got, '\n') == got + strlen(got) - 1); /* one line */
}

static void test_long_utf8(void)
{
	const char *mid, *p;

	capture(say_long_utf8);
	mid = strstr(got, "[...");
	CHECK(mid != NULL);
	if (!mid)
		return;
	/* before the marker a whole character, and after it the start of one */
	CHECK((unsigned char)mid[-1] == 0xa9 && (unsigned char)mid[-2] == 0xc3);
	p = strstr(mid, "...]");
	CHECK(p && (unsigned char)p[4] == 0xc3);
}

static void say_json(void)
{
	bt_set_json_mode(true);
	bt_err("cannot find '%s'", "a\"b\nc");
	bt_warn("%d stacks lost", 3);
	bt_note("still detaching");
	bt_banner(stdout, "Tracing %s... Hit Ctrl-C to end.\n", "x");
	bt_set_json_mode(false);
}

static void say_banner_text(void)
{
	bt_banner(stderr, "Tracing %s...\n", "y");
	bt_note("a note");
}

/* JSON mode: one object a line, the level named, the message made safe and then quoted. */
static void test_json_mode(void)
{
	capture(say_json);
	CHECK_STR(got, "{\"level\": \"error\", \"command\": \"bpftools\", \"message\": "
		       "\"cannot find 'a\\\"b\\\\x0ac'\"}\n"
		       "{\"level\": \"warning\", \"command\": \"bpftools\", \"message\": "
		       "\"3 stacks lost\"}\n"
		       "{\"level\": \"info\", \"command\": \"bpftools\", \"message\": "
		       "\"still detaching\"}\n"
		       "{\"level\": \"info\", \"command\": \"bpftools\", \"message\": "
		       "\"Tracing x... Hit Ctrl-C to end.\"}\n");
	CHECK(!bt_json_mode());
}

static void test_banner_text(void)
{
	capture(say_banner_text);
	CHECK_STR(got, "Tracing y...\nbpftools: a note\n");
}

int main(void)
{
	BT_RUN(test_json_mode);
	BT_RUN(test_banner_text);
	BT_RUN(test_plain);
	BT_RUN(test_control_characters);
	BT_RUN(test_long);
	BT_RUN(test_long_utf8);
	return bt_test_done();
}
