// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bt_args.h"
#include "bt_err.h"

enum { OPT_USAGE = 0x1000 };

static bool help_printed;

static const struct argp_option common_options[] = {
	{ "help", 'h', NULL, 0, "Show this help and exit", -1 },
	{ "usage", OPT_USAGE, NULL, 0, "Show a short usage message and exit", -1 },
	{ NULL },
};

static error_t parse_common(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case 'h':
		argp_state_help(state, stdout, ARGP_HELP_STD_HELP);
		help_printed = true;
		return 0;
	case OPT_USAGE:
		argp_state_help(state, stdout, ARGP_HELP_USAGE);
		help_printed = true;
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

static const struct argp common_argp = { .options = common_options, .parser = parse_common };

int bt_args_parse(const struct bt_cmd *cmd, int argc, char **argv)
{
	struct argp_child children[] = {
		{ cmd->argp, 0, NULL, 0 },
		{ &common_argp, 0, NULL, 0 },
		{ NULL },
	};
	/* The command's argp is a child, so its args_doc and doc are printed from there. */
	struct argp top = { .children = children };
	int err;

	help_printed = false;
	/* ARGP_NO_EXIT: only main() exits; ARGP_NO_HELP: our own -h, as BCC has it. */
	err = argp_parse(&top, argc, argv, ARGP_NO_EXIT | ARGP_NO_HELP, NULL, cmd->opts);
	if (err)
		return -BT_EUSAGE;
	return help_printed ? 1 : 0;
}

int bt_argp_error(struct argp_state *state, const char *fmt, ...)
{
	va_list ap;

	/*
	 * ARGP_NO_EXIT lets argp run the ARGP_KEY_END checks after --help too; a "missing
	 * pattern" under the help text would be noise, and help exits 0.
	 */
	if (help_printed)
		return 0;
	fprintf(stderr, "%s: ", state->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	argp_state_help(state, stderr, ARGP_HELP_USAGE);
	return EINVAL;
}

static int parse_number(const char *s, bool is_signed, long long min, unsigned long long max,
			unsigned long long *out)
{
	char *end;

	if (!s || !*s)
		return -1;
	errno = 0;
	if (is_signed) {
		long long v = strtoll(s, &end, 10);

		if (errno || *end || v < min || (v > 0 && (unsigned long long)v > max))
			return -1;
		*out = (unsigned long long)v;
	} else {
		unsigned long long v;

		/* strtoull accepts "-1" and wraps it; a sign is never a valid unsigned input. */
		if (strchr(s, '-'))
			return -1;
		v = strtoull(s, &end, 10);
		if (errno || *end || v < (unsigned long long)min || v > max)
			return -1;
		*out = v;
	}
	return 0;
}

static void range_err(const char *s, const char *what, long long min, unsigned long long max,
		      bool is_signed)
{
	if (is_signed)
		bt_err("invalid %s '%s': expected an integer from %lld to %llu", what, s ? s : "",
		       min, max);
	else if (max >= ULONG_MAX)
		bt_err("invalid %s '%s': expected an integer >= %lld", what, s ? s : "", min);
	else
		bt_err("invalid %s '%s': expected an integer from %lld to %llu", what, s ? s : "",
		       min, max);
}

int bt_parse_ulong(const char *s, const char *what, unsigned long min, unsigned long max,
		   unsigned long *out)
{
	unsigned long long v;

	if (parse_number(s, false, min, max, &v)) {
		range_err(s, what, min, max, false);
		return -BT_EUSAGE;
	}
	*out = v;
	return 0;
}

int bt_parse_long(const char *s, const char *what, long min, long max, long *out)
{
	unsigned long long v;

	if (parse_number(s, true, min, max, &v)) {
		range_err(s, what, min, max, true);
		return -BT_EUSAGE;
	}
	*out = (long)v;
	return 0;
}

int bt_argp_ulong(struct argp_state *state, const char *s, const char *what, unsigned long min,
		  unsigned long max, unsigned long *out)
{
	if (bt_parse_ulong(s, what, min, max, out)) {
		argp_state_help(state, stderr, ARGP_HELP_USAGE);
		return EINVAL;
	}
	return 0;
}

int bt_argp_long(struct argp_state *state, const char *s, const char *what, long min, long max,
		 long *out)
{
	if (bt_parse_long(s, what, min, max, out)) {
		argp_state_help(state, stderr, ARGP_HELP_USAGE);
		return EINVAL;
	}
	return 0;
}

int bt_argp_interval_arg(struct argp_state *state, const char *arg, struct bt_interval *iv)
{
	switch (iv->nargs++) {
	case 0:
		return bt_argp_ulong(state, arg, "interval", 1, BT_FOREVER, &iv->interval);
	case 1:
		return bt_argp_ulong(state, arg, "count", 1, ULONG_MAX, &iv->count);
	default:
		return bt_argp_error(state, "unexpected argument '%s'", arg);
	}
}
