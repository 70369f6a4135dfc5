// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "bt_argp.h"
#include "bt_err.h"

enum { OPT_USAGE = 0x1000, OPT_BTF };

static bool help_printed;
static const char *btf_file;

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

/* Every command that loads BPF: its CO-RE and BTF lookups need the kernel's types. */
static const struct argp_option btf_options[] = {
	{ "btf", OPT_BTF, "FILE", 0,
	  "Read the kernel's types from FILE, for kernels built without BTF (BTFHub has them)",
	  -1 },
	{ NULL },
};

static error_t parse_btf(int key, char *arg, struct argp_state *state)
{
	if (key != OPT_BTF)
		return ARGP_ERR_UNKNOWN;
	if (access(arg, R_OK))
		return bt_argp_error(state, "--btf %s: %s", arg, strerror(errno));
	btf_file = arg;
	return 0;
}

const struct argp bt_argp_btf = { .options = btf_options, .parser = parse_btf };

const char *bt_args_btf_file(void)
{
	return btf_file;
}

bool bt_argp_short_key(int key)
{
	return key > 0 && key < 0x80 && isalnum(key);
}

static bool option_end(const struct argp_option *o)
{
	return !o->name && !o->key && !o->doc && !o->group;
}

static size_t add_options(const struct argp *a, const struct argp_option **v, size_t n)
{
	const struct argp_option *o;
	const struct argp_child *ch;

	for (o = a->options; o && !option_end(o); o++)
		if (n < BT_ARGP_OPTIONS_MAX)
			v[n++] = o;
	for (ch = a->children; ch && ch->argp; ch++)
		n = add_options(ch->argp, v, n);
	return n;
}

/* As bt_args_parse() reads them: the command's argp and its children, then --btf. */
size_t bt_argp_options(const struct bt_cmd *cmd, const struct argp_option **v)
{
	size_t n = add_options(cmd->argp, v, 0);

	return cmd->flags & BT_NEED_PRIV ? add_options(&bt_argp_btf, v, n) : n;
}

const struct argp_option *bt_argp_find_option(const struct bt_cmd *cmd, const char *w,
					      const char **arg)
{
	const struct argp_option *o, *real = NULL, *v[BT_ARGP_OPTIONS_MAX];
	size_t k, nv, len;
	const char *eq;

	*arg = NULL;
	if (w[0] != '-' || !w[1])
		return NULL;
	for (k = 0, nv = bt_argp_options(cmd, v); k < nv; k++) {
		o = v[k];
		/* an alias takes its argument from the option it follows */
		if (!(o->flags & OPTION_ALIAS))
			real = o;
		if (w[1] == '-' && o->name) {
			eq = strchr(w, '=');
			len = eq ? (size_t)(eq - w - 2) : strlen(w + 2);
			if (strlen(o->name) == len && !strncmp(o->name, w + 2, len)) {
				*arg = eq ? eq + 1 : NULL;
				return real;
			}
		} else if (w[1] != '-' && bt_argp_short_key(o->key) && o->key == w[strlen(w) - 1]) {
			return real;
		}
	}
	return NULL;
}

/*
 * Whether the command line asks for --json (as getopt reads it: "--json", or an unambiguous
 * start of it such as "--js", before any "--"), so that JSON mode covers the errors argp finds
 * before it reaches the option.
 */
static bool wants_json(const struct bt_cmd *cmd, int argc, char **argv)
{
	const char *arg;
	int i;

	for (i = 1; i < argc; i++) {
		size_t n = strlen(argv[i]);

		if (!strcmp(argv[i], "--"))
			break;
		if (n >= 3 && !strncmp(argv[i], "--json", n))
			return bt_argp_find_option(cmd, "--json", &arg) != NULL;
	}
	return false;
}

static const struct bt_cmd *args_cmd;

const struct bt_cmd *bt_args_cmd(void)
{
	return args_cmd;
}

int bt_args_parse(const struct bt_cmd *cmd, int argc, char **argv)
{
	struct argp_child children[] = {
		{ cmd->argp, 0, NULL, 0 },
		{ &common_argp, 0, NULL, 0 },
		{ cmd->flags & BT_NEED_PRIV ? &bt_argp_btf : NULL, 0, NULL, 0 },
		{ NULL },
	};
	/* The command's argp is a child, so its args_doc and doc are printed from there. */
	struct argp top = { .children = children };
	int err;

	help_printed = false;
	btf_file = NULL;
	args_cmd = cmd;
	if (wants_json(cmd, argc, argv))
		bt_set_json_mode(true);
	/* ARGP_NO_EXIT: only main() exits; ARGP_NO_HELP: our own -h, as BCC has it. */
	bt_err_hold_begin();
	err = argp_parse(&top, argc, argv, ARGP_NO_EXIT | ARGP_NO_HELP, NULL, cmd->opts);
	bt_err_hold_end();
	if (err)
		return -BT_EUSAGE;
	return help_printed ? 1 : 0;
}

void bt_argp_usage_hint(struct argp_state *state)
{
	if (!bt_json_mode())
		argp_state_help(state, stderr, ARGP_HELP_USAGE);
}

error_t bt_argp_to_child(int key, char *arg, struct argp_state *state)
{
	(void)arg;
	if (key != ARGP_KEY_INIT)
		return ARGP_ERR_UNKNOWN;
	state->child_inputs[0] = state->input;
	return 0;
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
	va_start(ap, fmt);
	bt_vmessage(state->name, "", fmt, ap);
	va_end(ap);
	bt_argp_usage_hint(state);
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

int bt_argp_fraction(struct argp_state *state, const char *s, const char *what, const char *unit,
		     double scale, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (!*s || *end || errno || !isfinite(v) || v < 0 || v * scale >= 9e18)
		return bt_argp_error(state, "invalid %s '%s': expected a number of %s >= 0", what,
				     s, unit);
	*out = v;
	return 0;
}

int bt_argp_ulong(struct argp_state *state, const char *s, const char *what, unsigned long min,
		  unsigned long max, unsigned long *out)
{
	if (bt_parse_ulong(s, what, min, max, out)) {
		bt_argp_usage_hint(state);
		return EINVAL;
	}
	return 0;
}

int bt_argp_long(struct argp_state *state, const char *s, const char *what, long min, long max,
		 long *out)
{
	if (bt_parse_long(s, what, min, max, out)) {
		bt_argp_usage_hint(state);
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

static bool proc_exists(long id)
{
	char proc[32];
	struct stat st;

	/* a thread's /proc/TID is there too, though no listing shows it */
	snprintf(proc, sizeof(proc), "/proc/%ld", id);
	return stat(proc, &st) == 0;
}

int bt_check_pid(long pid)
{
	if (pid && !proc_exists(pid))
		return bt_usage_err("no process with PID %ld", pid);
	return 0;
}

int bt_check_tid(long tid)
{
	if (tid && !proc_exists(tid))
		return bt_usage_err("no thread with TID %ld", tid);
	return 0;
}

bool bt_pid_alive(long id)
{
	char fn[32], buf[256], *end;
	ssize_t n;
	int fd;

	snprintf(fn, sizeof(fn), "/proc/%ld/stat", id);
	fd = open(fn, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	/* "PID (COMM) STATE ...": COMM may hold anything, ')' too; the state follows the last */
	end = strrchr(buf, ')');
	return !end || (end[1] == ' ' && end[2] != 'Z' && end[2] != 'X');
}

int bt_argp_id_list(struct argp_state *state, const char *s, const char *what, unsigned int *ids,
		    unsigned int max, unsigned int *n)
{
	char *copy = strdup(s), *tok, *save = NULL;
	unsigned long v;
	int err = 0;

	if (!copy)
		return ENOMEM;
	*n = 0;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (*n == max) {
			err = bt_argp_error(state, "too many %ss in '%s' (at most %u)", what, s,
					    max);
			goto out;
		}
		err = bt_argp_ulong(state, tok, what, 1, INT_MAX, &v);
		if (err)
			goto out;
		ids[(*n)++] = v;
	}
	if (!*n)
		err = bt_argp_error(state, "invalid %s list '%s'", what, s);
out:
	free(copy);
	return err;
}
