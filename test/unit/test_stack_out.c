// SPDX-License-Identifier: GPL-2.0
/* lib/stacks/bt_stack_out: the --flamegraph/--pprof block, frame kinds, rows and the files written. */
#include <argp.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bt_stack_out.h"
#include "harness.h"

struct tool_opts {
	struct bt_stack_out_opts out;
	int own;
};

static error_t parse_own(int key, char *arg, struct argp_state *state)
{
	struct tool_opts *o = state->input;

	(void)arg;
	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &o->out;
		return 0;
	case 'o':
		o->own++;
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

static const struct argp_option own_options[] = {
	{ "own", 'o', NULL, 0, "The command's own option", 0 },
	{ NULL },
};

static const struct argp_child children[] = {
	{ &bt_stack_out_argp, 0, NULL, 0 },
	{ NULL },
};

static const struct argp tool_argp = {
	.options = own_options,
	.parser = parse_own,
	.children = children,
};

static int parse(struct tool_opts *o, int argc, char **argv)
{
	*o = (struct tool_opts){ 0 };
	return argp_parse(&tool_argp, argc, argv, ARGP_NO_EXIT | ARGP_NO_HELP | ARGP_SILENT, NULL,
			  o);
}

static void test_options(void)
{
	char *both[] = { "tool", "--flamegraph=a.svg", "-o", "--pprof", "a.pb.gz", NULL };
	char *none[] = { "tool", "-o", NULL };
	char *same[] = { "tool", "--flamegraph=x", "--pprof=x", NULL };
	char *empty[] = { "tool", "--flamegraph=", NULL };
	struct tool_opts o;

	CHECK_INT(parse(&o, 5, both), 0);
	CHECK_STR(o.out.flamegraph, "a.svg");
	CHECK_STR(o.out.pprof, "a.pb.gz");
	CHECK_INT(o.own, 1);
	CHECK(bt_stack_out_wanted(&o.out));
	CHECK_INT(parse(&o, 2, none), 0);
	CHECK(!bt_stack_out_wanted(&o.out));
	CHECK(parse(&o, 3, same) != 0);
	CHECK(parse(&o, 2, empty) != 0);
}

static void test_kinds(void)
{
	struct bt_frame f = { .addr = 1, .name = "do_sys_poll" };

	CHECK_INT(bt_stack_out_kind(&f, BT_PID_KERNEL), BT_PROF_KERNEL);
	f.module = "bpf"; /* kallsyms' module of BPF programs */
	CHECK_INT(bt_stack_out_kind(&f, BT_PID_KERNEL), BT_PROF_JIT);
	f.module = "__builtin__ftrace";
	CHECK_INT(bt_stack_out_kind(&f, BT_PID_KERNEL), BT_PROF_JIT);
	f.module = "ext4";
	CHECK_INT(bt_stack_out_kind(&f, BT_PID_KERNEL), BT_PROF_KERNEL);
	f.module = "/usr/lib/libc.so.6";
	CHECK_INT(bt_stack_out_kind(&f, 42), BT_PROF_USER);
	f.module = "[perf-map]";
	CHECK_INT(bt_stack_out_kind(&f, 42), BT_PROF_JIT);
	f.module = "/bin/x";
	f.inlined = 1;
	CHECK_INT(bt_stack_out_kind(&f, 42), BT_PROF_INLINED);
	f.inlined = 0;
	/* a name that looks like JIT code is still what the symbolizer says it is */
	f.name = "bpf_prog_1234_x";
	CHECK_INT(bt_stack_out_kind(&f, 42), BT_PROF_USER);
	f.name = NULL;
	f.reason = BT_SYM_STRIPPED;
	CHECK_INT(bt_stack_out_kind(&f, 42), BT_PROF_MISSED);
	CHECK_INT(bt_stack_out_kind(&f, BT_PID_KERNEL), BT_PROF_MISSED);
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;

	*len = 0;
	if (!f)
		return NULL;
	buf = calloc(1, 1 << 20);
	if (buf)
		*len = fread(buf, 1, (1 << 20) - 1, f);
	fclose(f);
	return buf;
}

/* Rows of names only (no BPF here); the files are rewritten whole at each write. */
static void test_rows_and_files(void)
{
	char dir[] = "/tmp/test_stack_out.XXXXXX", svg[64], pb[64];
	struct bt_stack_out_opts o = { 0 };
	struct bt_stack_out *so = (struct bt_stack_out *)1;
	size_t len;
	char *text;

	CHECK_INT(bt_stack_out__new(&o, NULL, &so), 0);
	CHECK(so == NULL);
	/* nothing asked: every call is a no-op */
	bt_stack_out__name(so, "x", 1, BT_PROF_OTHER);
	CHECK_INT(bt_stack_out__add(so, 1), 0);
	CHECK_INT(bt_stack_out__write(so), 0);
	bt_stack_out__free(so);

	CHECK(mkdtemp(dir) != NULL);
	snprintf(svg, sizeof(svg), "%s/s.svg", dir);
	snprintf(pb, sizeof(pb), "%s/p.pb.gz", dir);
	o.flamegraph = svg;
	o.pprof = pb;
	CHECK_INT(bt_stack_out__new(&o, &(struct bt_profile_opts){ .unit = "microseconds" }, &so),
		  0);
	CHECK(so != NULL);
	if (!so)
		return;
	/* the comm is cut at its length, as "%.*s" prints it */
	bt_stack_out__name(so, "worker-thread-0123456789", 16, BT_PROF_OTHER);
	bt_stack_out__name(so, "-", 1, BT_PROF_OTHER);
	CHECK_INT(bt_stack_out__add(so, 300), 0);
	bt_stack_out__name(so, "worker-thread-01", 16, BT_PROF_OTHER);
	CHECK_INT(bt_stack_out__add(so, 200), 0);
	CHECK_INT(bt_stack_out__write(so), 0);
	text = slurp(svg, &len);
	CHECK(text && strstr(text, "<title>all (500 microseconds, 100.00%)</title>"));
	CHECK(text && strstr(text, "<title>worker-thread-01 (500 microseconds, 100.00%)</title>"));
	CHECK(text && strstr(text, "<title>- (300 microseconds, 60.00%)</title>"));
	free(text);
	text = slurp(pb, &len);
	CHECK(text && len > 20 && (unsigned char)text[0] == 0x1f && (unsigned char)text[1] == 0x8b);
	free(text);

	/* a second write holds everything, and nothing of the first file is left over */
	bt_stack_out__name(so, "b", 1, BT_PROF_OTHER);
	CHECK_INT(bt_stack_out__add(so, 7), 0);
	CHECK_INT(bt_stack_out__write(so), 0);
	text = slurp(svg, &len);
	CHECK(text && strstr(text, "<title>all (507 microseconds, 100.00%)</title>"));
	CHECK(text && len > 7 && !strcmp(text + len - 7, "</svg>\n"));
	CHECK(text && strstr(text, "</svg>") == text + len - 7);
	free(text);
	bt_stack_out__free(so);
	unlink(svg);
	unlink(pb);

	/* an unwritable path fails at once, naming it */
	o.pprof = NULL;
	snprintf(svg, sizeof(svg), "%s/no/such/dir.svg", dir);
	so = NULL;
	CHECK_INT(bt_stack_out__new(&o, NULL, &so), -ENOENT);
	CHECK(so == NULL);
	rmdir(dir);
}

int main(void)
{
	BT_RUN(test_options);
	BT_RUN(test_kinds);
	BT_RUN(test_rows_and_files);
	return bt_test_done();
}
