// SPDX-License-Identifier: GPL-2.0
/*
 * lib/stacks/bt_stack_row: one declaration printed as BCC's block, a folded line and JSON, and the
 * flame graph's frames the folded lines' (rows of names and stacks not taken: no BPF here).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "bt_stack_row.h"
#include "harness.h"

/* offwaketime's row: sleeper;user;-;kernel;--;waker's kernel;-;waker's user;waker */
static const struct bt_row_part row[] = {
	{ BT_ROW_COMM, .proc = 0, .line = "  target: %.*s %u\n", .tid = true, .json = true },
	{ BT_ROW_USER, .proc = 0 },
	{ BT_ROW_DELIM, .proc = 0, .line = "  -\n" },
	{ BT_ROW_KERNEL, .proc = 0 },
	{ BT_ROW_MARK, .proc = 0, .word = "--", .line = "  --\n" },
	{ BT_ROW_KERNEL, .proc = 1, .reversed = true },
	{ BT_ROW_DELIM, .proc = 1, .line = "  -\n" },
	{ BT_ROW_USER, .proc = 1, .reversed = true },
	{ BT_ROW_COMM, .proc = 1, .line = "  waker: %.*s %u\n", .tid = true, .json = true,
	  .word = "[unknown]" },
	{ BT_ROW_END },
};

static const struct bt_row_proc procs[] = {
	{ .comm = "sleeper-0123456789", .comm_len = 16, .pid = 10, .tid = 11 },
	{ .comm = "", .comm_len = 16, .pid = 20, .tid = 21 },
};

static char *written(const struct bt_stack_rows *r, uint64_t value)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	CHECK(f != NULL);
	if (!f)
		return NULL;
	CHECK_INT(bt_stack_rows__write(r, f, procs, value), 0);
	fclose(f);
	return buf;
}

static void check_written(const struct bt_stack_rows *r, const char *expected)
{
	char *s = written(r, 1);

	CHECK_STR(s, expected);
	free(s);
}

static void test_forms(void)
{
	struct bt_stack_rows r = { .parts = row, .style = { .indent = "  " } };

	/* folded: in order, the comm cut at its length, an empty one's stand-in */
	r.form = BT_ROW_FOLDED;
	check_written(&r, "sleeper-01234567;-;--;-;[unknown]");
	/* text: the other way round, each part's line */
	r.form = BT_ROW_TEXT;
	check_written(&r, "  waker: [unknown] 21\n  -\n  --\n  -\n  target: sleeper-01234567 11\n");
	/* parts left out of every form, or of the text form only */
	r.hide = BT_ROW_HIDE(BT_ROW_DELIM);
	r.text_hide = BT_ROW_HIDE(BT_ROW_COMM);
	check_written(&r, "  --\n");
	r.form = BT_ROW_FOLDED;
	check_written(&r, "sleeper-01234567;--;[unknown]");
	/* JSON: each process's comm, pid and tid, in an object of its own when named */
	r.hide = BT_ROW_HIDE(BT_ROW_USER) | BT_ROW_HIDE(BT_ROW_KERNEL);
	r.form = BT_ROW_JSON;
	check_written(&r,
		      "{\"comm\": \"sleeper-01234567\", \"pid\": 10, \"tid\": 11, \"comm\": \"\", "
		      "\"pid\": 20, \"tid\": 21}");
	r.objects[0] = "target";
	r.objects[1] = "waker";
	check_written(&r,
		      "{\"target\": {\"comm\": \"sleeper-01234567\", \"pid\": 10, \"tid\": 11}, "
		      "\"waker\": {\"comm\": \"\", \"pid\": 20, \"tid\": 21}}");
}

/* profile --wall's row: a state word of the row's own, last in the folded line, first in text. */
static void test_state(void)
{
	static const struct bt_row_part wall[] = {
		{ BT_ROW_COMM, .line = "  %.*s (%u)\n", .tid = true, .json = true },
		{ BT_ROW_USER },
		{ BT_ROW_KERNEL },
		{ BT_ROW_STATE, .line = "  %s\n", .json = true, .json_member = "state" },
		{ BT_ROW_END },
	};
	struct bt_row_proc p[2] = {
		{ .comm = "w", .comm_len = 16, .pid = 7, .tid = 8, .state = "[off-cpu: S]" }
	};
	struct bt_stack_rows r = { .parts = wall, .style = { .indent = "  " } };
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	r.form = BT_ROW_FOLDED;
	f = open_memstream(&buf, &len);
	CHECK_INT(bt_stack_rows__write(&r, f, p, 1), 0);
	fclose(f);
	CHECK_STR(buf, "w;[off-cpu: S]");
	free(buf);
	r.form = BT_ROW_TEXT;
	f = open_memstream(&buf, &len);
	CHECK_INT(bt_stack_rows__write(&r, f, p, 1), 0);
	fclose(f);
	CHECK_STR(buf, "  [off-cpu: S]\n  w (8)\n");
	free(buf);
	r.form = BT_ROW_JSON;
	r.hide = BT_ROW_HIDE(BT_ROW_USER) | BT_ROW_HIDE(BT_ROW_KERNEL);
	f = open_memstream(&buf, &len);
	CHECK_INT(bt_stack_rows__write(&r, f, p, 1), 0);
	fclose(f);
	CHECK_STR(buf, "{\"comm\": \"w\", \"pid\": 7, \"tid\": 8, \"state\": \"[off-cpu: S]\"}");
	free(buf);
	/* an on-CPU row has none: nothing shows */
	p[0].state = NULL;
	r.form = BT_ROW_FOLDED;
	r.hide = 0;
	f = open_memstream(&buf, &len);
	CHECK_INT(bt_stack_rows__write(&r, f, p, 1), 0);
	fclose(f);
	CHECK_STR(buf, "w");
	free(buf);
}

/* The raw bytes of a gzipped stream (the test's own inflate). */
static char *gunzipped(const char *gz, size_t n, size_t *len)
{
	char *out = malloc(1 << 16);
	z_stream zs = { 0 };

	CHECK_INT(inflateInit2(&zs, 15 + 16), Z_OK);
	zs.next_in = (Bytef *)gz;
	zs.avail_in = n;
	zs.next_out = (Bytef *)out;
	zs.avail_out = 1 << 16;
	CHECK_INT(inflate(&zs, Z_FINISH), Z_STREAM_END);
	*len = zs.total_out;
	inflateEnd(&zs);
	return out;
}

/*
 * profile --json/--pprof: a thread's row. The text form is the process's, as without; JSON adds
 * the tid and the CPU (none for off-CPU time, -1); the profile's sample is labelled.
 */
static void test_thread(void)
{
	static const struct bt_row_part prow[] = {
		{ BT_ROW_COMM, .line = "  %.*s (%u)\n", .json = true },
		{ BT_ROW_END },
	};
	struct bt_row_proc p[2] = {
		{ .comm = "thr-spin", .comm_len = 16, .pid = 7, .tid = 8, .cpu = 1 }
	};
	struct bt_stack_rows r = { .parts = prow, .thread = true, .form = BT_ROW_TEXT };
	char *buf = NULL, *pb;
	size_t len = 0, n;
	unsigned int i;
	FILE *f;

	CHECK_INT(bt_stack_out__new_profile(NULL, &r.out), 0);
	for (i = 0; i < 3; i++) {
		static const char *const want[] = {
			"  thr-spin (7)\n",
			"{\"comm\": \"thr-spin\", \"pid\": 7, \"tid\": 8, \"cpu\": 1}",
			"{\"comm\": \"thr-spin\", \"pid\": 7, \"tid\": 8}",
		};

		r.form = i ? BT_ROW_JSON : BT_ROW_TEXT;
		p[0].cpu = i == 2 ? -1 : 1;
		buf = NULL;
		f = open_memstream(&buf, &len);
		CHECK_INT(bt_stack_rows__write(&r, f, p, 1), 0);
		fclose(f);
		CHECK_STR(buf, want[i]);
		free(buf);
	}
	buf = NULL;
	f = open_memstream(&buf, &len);
	CHECK_INT(bt_stack_out__pprof(r.out, f), 0);
	fclose(f);
	pb = gunzipped(buf, len, &n);
	CHECK(memmem(pb, n, "thread_id", 9) && memmem(pb, n, "thread_name", 11) &&
	      memmem(pb, n, "thr-spin", 8) && memmem(pb, n, "pid", 3) && memmem(pb, n, "cpu", 3));
	free(pb);
	free(buf);
	bt_stack_out__free(r.out);
}

/* A delimiter shows between two stacks that are both shown, and by its rule. */
static void test_delimiters(void)
{
	static const struct bt_row_part frames[] = {
		{ BT_ROW_USER },
		{ BT_ROW_DELIM, .delim = BT_ROW_DELIM_FRAMES },
		{ BT_ROW_KERNEL },
		{ BT_ROW_END },
	};
	static const struct bt_row_part stored[] = {
		{ BT_ROW_COMM },
		{ BT_ROW_USER },
		{ BT_ROW_DELIM, .delim = BT_ROW_DELIM_STORED, .line = "  -\n" },
		{ BT_ROW_KERNEL },
		{ BT_ROW_END },
	};
	struct bt_stack_rows r = { .parts = stored, .form = BT_ROW_FOLDED };

	/* stacks not taken: no "-" where it must be between stored ones, or after frames */
	check_written(&r, "sleeper-01234567");
	r.parts = frames;
	check_written(&r, "");
	r.parts = row; /* BT_ROW_DELIM_ALWAYS, unless a stack is left out */
	r.hide = BT_ROW_HIDE(BT_ROW_USER);
	check_written(&r, "sleeper-01234567;--;[unknown]");
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = calloc(1, 1 << 20);

	if (f && buf)
		buf[fread(buf, 1, (1 << 20) - 1, f)] = '\0';
	if (f)
		fclose(f);
	return buf;
}

static int by_text(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The "<title>" lines of an SVG, sorted: its frames, their values and shares. */
static char *titles(const char *svg)
{
	char *out = NULL, *lines[4096];
	const char *p = svg;
	size_t n = 0, len = 0, i;
	FILE *f = open_memstream(&out, &len);

	while (p && (p = strstr(p, "<title>")) && n < 4096) {
		const char *end = strstr(p, "</title>");

		if (!end)
			break;
		lines[n++] = strndup(p, end - p);
		p = end;
	}
	qsort(lines, n, sizeof(*lines), by_text);
	for (i = 0; i < n; i++) {
		fprintf(f, "%s\n", lines[i]);
		free(lines[i]);
	}
	fclose(f);
	return out;
}

/*
 * The flame graph of rows printed in any form holds what `bpftools flamegraph` makes of their
 * folded lines: the same frames with the same values.
 */
static void test_profile_is_folded(void)
{
	char dir[] = "/tmp/test_stack_row.XXXXXX", svg[64], folded_svg[64];
	struct bt_stack_out_opts o = { 0 };
	struct bt_profile_opts popts = { .unit = "microseconds", .folded_comm = true };
	struct bt_stack_rows r = { .parts = row, .form = BT_ROW_TEXT };
	char *text = NULL, *lines = NULL, *a, *b;
	size_t tlen = 0, llen = 0;
	FILE *t, *l, *in, *out;
	unsigned int i;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(svg, sizeof(svg), "%s/rows.svg", dir);
	snprintf(folded_svg, sizeof(folded_svg), "%s/folded.svg", dir);
	o.flamegraph = svg;
	CHECK_INT(bt_stack_out__new(&o, &popts, &r.out), 0);
	t = open_memstream(&text, &tlen);
	l = open_memstream(&lines, &llen);
	for (i = 0; i < 6; i++) {
		struct bt_stack_rows folded;

		/* rows of several shapes: with and without delimiters and comm */
		r.hide = i & 1 ? BT_ROW_HIDE(BT_ROW_DELIM) : 0;
		r.text_hide = i & 2 ? BT_ROW_HIDE(BT_ROW_COMM) : 0;
		CHECK_INT(bt_stack_rows__write(&r, t, procs, 100 + i), 0);
		folded = r;
		folded.form = BT_ROW_FOLDED;
		folded.out = NULL;
		CHECK_INT(bt_stack_rows__write(&folded, l, procs, 0), 0);
		fprintf(l, " %u\n", 100 + i);
	}
	fclose(t);
	fclose(l);
	CHECK_INT(bt_stack_out__write(r.out), 0);
	bt_stack_out__free(r.out);
	in = fmemopen(lines, llen, "r");
	out = fopen(folded_svg, "w");
	CHECK(in && out);
	if (in && out)
		CHECK_INT(bt_flame_from_folded(in, out, &popts), 0);
	if (in)
		fclose(in);
	if (out)
		fclose(out);
	a = slurp(svg);
	b = slurp(folded_svg);
	CHECK(a && strstr(a, "<title>all (615 microseconds, 100.00%)</title>"));
	free(text);
	text = titles(a);
	free(lines);
	lines = titles(b);
	CHECK(text && strstr(text, "--"));
	CHECK_STR(text, lines);
	free(a);
	free(b);
	free(text);
	free(lines);
	unlink(svg);
	unlink(folded_svg);
	rmdir(dir);
}

/*
 * offcputime's state: a frame of the flame graph (and pprof) only, not of the folded line,
 * which stays BCC's; rows that differ only by it print as one line.
 */
static void test_state_profile_only(void)
{
	static const struct bt_row_part part[] = {
		{ BT_ROW_COMM, .tid = true },
		{ BT_ROW_STATE, .profile_only = true },
		{ BT_ROW_END },
	};
	struct bt_row_proc p[2] = {
		{ .comm = "w", .comm_len = 16, .pid = 7, .tid = 8, .state = "[off-cpu: D]" }
	};
	char dir[] = "/tmp/test_stack_row.XXXXXX", svg[64];
	struct bt_stack_out_opts o = { 0 };
	struct bt_profile_opts popts = { .unit = "microseconds" };
	struct bt_stack_rows r = { .parts = part, .form = BT_ROW_FOLDED };
	char *buf = NULL, *a;
	size_t len = 0;
	FILE *f;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(svg, sizeof(svg), "%s/state.svg", dir);
	o.flamegraph = svg;
	CHECK_INT(bt_stack_out__new(&o, &popts, &r.out), 0);
	f = open_memstream(&buf, &len);
	CHECK_INT(bt_stack_rows__write(&r, f, p, 30), 0);
	fclose(f);
	CHECK_STR(buf, "w");
	free(buf);
	CHECK_INT(bt_stack_out__write(r.out), 0);
	bt_stack_out__free(r.out);
	a = slurp(svg);
	CHECK(a && strstr(a, "<title>[off-cpu: D] (30 microseconds, 100.00%)</title>"));
	free(a);
	unlink(svg);
	rmdir(dir);
}

int main(void)
{
	BT_RUN(test_forms);
	BT_RUN(test_delimiters);
	BT_RUN(test_state);
	BT_RUN(test_thread);
	BT_RUN(test_profile_is_folded);
	BT_RUN(test_state_profile_only);
	return bt_test_done();
}
