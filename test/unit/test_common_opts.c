// SPDX-License-Identifier: GPL-2.0
/* lib/cli/bt_args: the shared option blocks (-p, -i, -d, --attach, --max-probes) as argp children. */
#include <argp.h>
#include <errno.h>

#include "bt_args.h"
#include "harness.h"

struct tool_opts {
	struct bt_common_opts c;
	int own; /* an option of the command's own, beside the shared ones */
};

static const struct argp_option own_options[] = {
	{ "own", 'o', NULL, 0, "The command's own option", 0 },
	{ NULL },
};

static const struct argp tool_argp;

static error_t parse_own(int key, char *arg, struct argp_state *state)
{
	struct tool_opts *o = state->input;

	(void)arg;
	switch (key) {
	case ARGP_KEY_INIT:
		bt_argp_common_init(state, &tool_argp, &o->c);
		return 0;
	case 'o':
		o->own++;
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

static const struct argp_child children[] = {
	{ &bt_argp_pid, 0, NULL, 0 },
	{ &bt_argp_interval, 0, NULL, 0 },
	{ &bt_argp_attach, 0, NULL, 0 },
	{ NULL },
};

static const struct argp tool_argp = {
	.options = own_options,
	.parser = parse_own,
	.children = children,
};

static int parse(struct tool_opts *o, int argc, char **argv)
{
	*o = (struct tool_opts){ .c = BT_COMMON_OPTS_INIT };
	return argp_parse(&tool_argp, argc, argv, ARGP_NO_EXIT | ARGP_NO_HELP, NULL, o);
}

static void test_all_set(void)
{
	char *argv[] = {
		"tool",		"-p", "42", "-o", "-i5", "--duration=10", "--attach=kprobe",
		"--max-probes", "7",  NULL
	};
	struct tool_opts o;

	CHECK_INT(parse(&o, 9, argv), 0);
	CHECK_INT(o.c.pid, 42);
	CHECK_INT(o.c.interval, 5);
	CHECK_INT(o.c.duration, 10);
	CHECK_INT(o.c.mode, BT_ATTACH_KPROBE);
	CHECK_INT(o.c.max_probes, 7);
	CHECK_INT(o.own, 1);
}

static void test_defaults(void)
{
	char *argv[] = { "tool", NULL };
	struct tool_opts o;

	CHECK_INT(parse(&o, 1, argv), 0);
	CHECK_INT(o.c.pid, 0);
	CHECK_INT(o.c.interval, 0);
	CHECK_INT(o.c.duration, 0);
	CHECK_INT(o.c.mode, BT_ATTACH_AUTO);
	CHECK_INT(o.c.max_probes, 1000);
}

static void test_bad_values(void)
{
	char *pid0[] = { "tool", "-p", "0", NULL };
	char *pidx[] = { "tool", "--pid=12x", NULL };
	char *iv0[] = { "tool", "-i", "0", NULL };
	char *dneg[] = { "tool", "-d", "-3", NULL };
	char *mode[] = { "tool", "--attach=uprobe", NULL };
	char *maxp[] = { "tool", "--max-probes=0", NULL };
	struct tool_opts o;

	CHECK_INT(parse(&o, 3, pid0), EINVAL);
	CHECK_INT(parse(&o, 2, pidx), EINVAL);
	CHECK_INT(parse(&o, 3, iv0), EINVAL);
	CHECK_INT(parse(&o, 3, dneg), EINVAL);
	CHECK_INT(parse(&o, 2, mode), EINVAL);
	CHECK_INT(parse(&o, 2, maxp), EINVAL);
}

/* bt_argp_duration is -d alone: -i stays unknown to a command that takes only a duration. */
static const struct argp_child duration_only[] = {
	{ &bt_argp_duration, 0, NULL, 0 },
	{ NULL },
};

static const struct argp dur_argp;

static error_t parse_dur(int key, char *arg, struct argp_state *state)
{
	(void)arg;
	if (key == ARGP_KEY_INIT) {
		bt_argp_common_init(state, &dur_argp, state->input);
		return 0;
	}
	return ARGP_ERR_UNKNOWN;
}

static const struct argp dur_argp = { .parser = parse_dur, .children = duration_only };

static void test_duration_alone(void)
{
	char *ok[] = { "tool", "-d", "3", NULL };
	char *bad[] = { "tool", "-i", "3", NULL };
	struct bt_common_opts c = BT_COMMON_OPTS_INIT;

	CHECK_INT(argp_parse(&dur_argp, 3, ok, ARGP_NO_EXIT | ARGP_NO_HELP, NULL, &c), 0);
	CHECK_INT(c.duration, 3);
	CHECK(argp_parse(&dur_argp, 3, bad, ARGP_NO_EXIT | ARGP_NO_HELP | ARGP_NO_ERRS, NULL, &c) !=
	      0);
}

int main(void)
{
	BT_RUN(test_all_set);
	BT_RUN(test_defaults);
	BT_RUN(test_bad_values);
	BT_RUN(test_duration_alone);
	return bt_test_done();
}
