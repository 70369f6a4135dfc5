// SPDX-License-Identifier: GPL-2.0
/*
 * The probe grammar of lib/attach/bt_attach.h, parsed in one place for every tool. Only the shape is
 * checked here; whether a library, function or tracepoint exists is bt_targets__resolve()'s.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bt_attach.h"
#include "bt_err.h"

#define MAX_PARTS 4

void bt_probe_spec__free(struct bt_probe_spec *spec)
{
	if (!spec)
		return;
	free(spec->module);
	free(spec->pattern);
	free(spec->text);
	memset(spec, 0, sizeof(*spec));
}

static int set(struct bt_probe_spec *spec, enum bt_spec_kind kind, bool ret, const char *module,
	       const char *pattern)
{
	spec->kind = kind;
	spec->retprobe = ret;
	spec->module = module ? strdup(module) : NULL;
	spec->pattern = strdup(pattern);
	if ((module && !spec->module) || !spec->pattern)
		return -ENOMEM;
	return 0;
}

static bool is_type(const char *s, const char *a, const char *b)
{
	return !strcmp(s, a) || (b && !strcmp(s, b));
}

/* "p"/"r" with a module part: empty means the kernel ("p::func"), else a user function. */
static int parse_func(struct bt_probe_spec *spec, bool ret, const char *module, const char *fn)
{
	const char *what = ret ? "return probe" : "probe";

	if (!*fn)
		return bt_usage_err("invalid %s '%s': empty function name", what, spec->text);
	if (!*module)
		return set(spec, BT_SPEC_KFUNC, ret, NULL, fn);
	return set(spec, BT_SPEC_UFUNC, ret, module, fn);
}

/*
 * The end of the bracket expression opening at s ("[...]", as fnmatch and regcomp read it:
 * a leading '^' or '!' and ']' are members, "[:alpha:]", "[=a=]" and "[.-.]" nest), or NULL
 * when it does not close, in which case the '[' is an ordinary character.
 */
static const char *bracket_end(const char *s)
{
	const char *p = s + 1;

	if (*p == '^' || *p == '!')
		p++;
	if (*p == ']')
		p++;
	for (; *p; p++) {
		if (*p == ']')
			return p;
		if (*p == '[' && (p[1] == ':' || p[1] == '=' || p[1] == '.')) {
			const char *close = p + 2;
			char kind = p[1];

			while (*close && !(close[0] == kind && close[1] == ']'))
				close++;
			if (!*close)
				return NULL;
			p = close + 1;
		}
	}
	return NULL;
}

/* The next ':' that separates parts: a ':' inside "[[:alpha:]]" or "[a:b]" is the pattern's. */
static char *next_sep(char *s)
{
	for (; *s; s++) {
		if (*s == ':')
			return s;
		if (*s == '[') {
			const char *end = bracket_end(s);

			if (end)
				s += end - s;
		}
	}
	return NULL;
}

int bt_probe_spec__parse(const char *text, struct bt_probe_spec *spec)
{
	char *copy = NULL, *parts[MAX_PARTS];
	int n = 0, err = 0;
	char *p;

	memset(spec, 0, sizeof(*spec));
	if (!text)
		text = "";
	spec->text = strdup(text);
	copy = strdup(text);
	if (!spec->text || !copy) {
		err = -ENOMEM;
		goto cleanup;
	}
	if (!*text) {
		err = bt_usage_err("empty probe specification");
		goto cleanup;
	}
	for (p = copy;; p++) {
		char *colon = next_sep(p);

		if (n == MAX_PARTS) {
			err = bt_usage_err("invalid probe '%s': too many ':'-separated parts",
					   text);
			goto cleanup;
		}
		parts[n++] = p;
		if (!colon)
			break;
		*colon = '\0';
		p = colon;
	}

	switch (n) {
	case 1: /* func */
		err = set(spec, BT_SPEC_KFUNC, false, NULL, parts[0]);
		break;
	case 2:
		if (!strcmp(parts[0], "syscall")) {
			if (!*parts[1])
				err = bt_usage_err("invalid probe '%s': empty system call name",
						   text);
			else
				err = set(spec, BT_SPEC_SYSCALL, false, "syscalls", parts[1]);
		} else if (is_type(parts[0], "p", NULL) || is_type(parts[0], "r", NULL)) {
			/* p:func, r:func: the kernel (a library named "p" is not a thing) */
			err = parse_func(spec, parts[0][0] == 'r', "", parts[1]);
		} else if (is_type(parts[0], "t", "tracepoint")) {
			err = bt_usage_err("invalid tracepoint '%s': expected %s:CATEGORY:EVENT",
					   text, parts[0]);
		} else if (is_type(parts[0], "u", "usdt")) {
			err = bt_usage_err("invalid USDT probe '%s': expected %s:LIBRARY:PROBE",
					   text, parts[0]);
		} else if (!*parts[0]) {
			err = bt_usage_err("invalid probe '%s': empty library or program name",
					   text);
		} else {
			err = parse_func(spec, false, parts[0], parts[1]);
		}
		break;
	case 3:
	case 4:
		if (n == 3 && is_type(parts[0], "p", NULL)) {
			err = parse_func(spec, false, parts[1], parts[2]);
		} else if (n == 3 && is_type(parts[0], "r", NULL)) {
			err = parse_func(spec, true, parts[1], parts[2]);
		} else if (n == 3 && is_type(parts[0], "t", "tracepoint")) {
			if (!*parts[1] || !*parts[2])
				err = bt_usage_err("invalid tracepoint '%s': empty %s name", text,
						   *parts[1] ? "event" : "category");
			else
				err = set(spec, BT_SPEC_TRACEPOINT, false, parts[1], parts[2]);
		} else if (is_type(parts[0], "u", "usdt")) {
			/* u:lib:probe, or u:lib:provider:probe to pick one provider */
			if (!*parts[1])
				err = bt_usage_err("invalid USDT probe '%s': empty library name",
						   text);
			else if (!*parts[2] || (n == 4 && !*parts[3]))
				err = bt_usage_err("invalid USDT probe '%s': empty probe name",
						   text);
			else if (n == 4) {
				parts[3][-1] = ':';
				err = set(spec, BT_SPEC_USDT, false, parts[1], parts[2]);
			} else {
				err = set(spec, BT_SPEC_USDT, false, parts[1], parts[2]);
			}
		} else if (n == 4 || is_type(parts[0], "syscall", NULL)) {
			err = bt_usage_err("invalid probe '%s': too many ':'-separated parts",
					   text);
		} else {
			err = bt_usage_err(
				"invalid probe '%s': unknown probe type '%s' (expected p, "
				"r, t, u or syscall)",
				text, parts[0]);
		}
		break;
	}
cleanup:
	free(copy);
	if (err) {
		bt_probe_spec__free(spec);
		if (err == -ENOMEM)
			bt_err("out of memory");
	}
	return err;
}
