// SPDX-License-Identifier: GPL-2.0
/*
 * The attach progress line (lib/output/bt_progress.c): drawn only on a terminal and past
 * BT_PROGRESS_MIN probes, redrawn a bounded number of times, ending at M/M, erased by clear.
 */
#include <stdio.h>
#include <stdlib.h>

#include "bt_err.h"
#include "bt_progress.h"
#include "harness.h"

static char buf[65536];

/* What p wrote to its FILE, as a string. */
static const char *written(FILE *f)
{
	size_t n;

	fflush(f);
	rewind(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	return buf;
}

static size_t count(const char *s, const char *what)
{
	size_t n = 0;

	while ((s = strstr(s, what))) {
		n++;
		s++;
	}
	return n;
}

static void test_terminal(void)
{
	struct bt_progress p;
	FILE *f = tmpfile();
	size_t i;

	bt_set_progname("funccount");
	bt_progress_begin(&p, f, true, 370);
	for (i = 0; i < 370; i++)
		bt_progress_add(&p, 1);
	bt_progress_clear(&p);
	written(f);
	CHECK(!strncmp(buf, "\rfunccount: attaching 0/370 probes...", 37));
	CHECK(strstr(buf, "\rfunccount: attaching 370/370 probes...\r\033[K") != NULL);
	/* every 2%: about 50 draws for any total, not one per probe */
	CHECK(count(buf, "attaching") <= 52);
	CHECK(count(buf, "attaching") >= 40);
	fclose(f);
}

static void test_batches(void)
{
	struct bt_progress p;
	FILE *f = tmpfile();

	/* a uprobe.multi link attaches a whole file at once */
	bt_progress_begin(&p, f, true, 200);
	bt_progress_add(&p, 150);
	bt_progress_add(&p, 100); /* never past the total */
	bt_progress_clear(&p);
	CHECK_STR(written(f), "\rfunccount: attaching 0/200 probes..."
			      "\rfunccount: attaching 150/200 probes..."
			      "\rfunccount: attaching 200/200 probes...\r\033[K");
	fclose(f);
}

static void test_clear_redraws(void)
{
	struct bt_progress p;
	FILE *f = tmpfile();

	/* a warning in the middle: erased first, drawn again at the next probe */
	bt_progress_begin(&p, f, true, 101);
	bt_progress_clear(&p);
	bt_progress_clear(&p); /* twice: nothing more */
	bt_progress_add(&p, 1);
	bt_progress_clear(&p);
	CHECK_STR(written(f), "\rfunccount: attaching 0/101 probes...\r\033[K"
			      "\rfunccount: attaching 1/101 probes...\r\033[K");
	fclose(f);
}

static void test_silent(void)
{
	struct bt_progress p;
	FILE *f = tmpfile();
	size_t i;

	bt_progress_begin(&p, f, false, 5000); /* not a terminal */
	for (i = 0; i < 5000; i++)
		bt_progress_add(&p, 1);
	bt_progress_clear(&p);
	bt_progress_begin(&p, f, true, BT_PROGRESS_MIN); /* too few to bother */
	for (i = 0; i < BT_PROGRESS_MIN; i++)
		bt_progress_add(&p, 1);
	bt_progress_clear(&p);
	bt_progress_add(NULL, 1);
	bt_progress_clear(NULL);
	CHECK_STR(written(f), "");
	fclose(f);
}

int main(void)
{
	BT_RUN(test_terminal);
	BT_RUN(test_batches);
	BT_RUN(test_clear_redraws);
	BT_RUN(test_silent);
	return bt_test_done();
}
