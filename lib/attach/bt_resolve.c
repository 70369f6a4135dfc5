// SPDX-License-Identifier: GPL-2.0
/*
 * A parsed probe spec becomes concrete targets here: kernel functions through
 * bt_kfuncs_match() (lib/attach/bt_kfuncs.c), user functions and USDT probes through
 * lib/attach/bt_uprobe.c, tracepoints and syscalls from tracefs' events/ directory.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bt_argp.h"
#include "bt_attach_internal.h"
#include "bt_elf.h"
#include "bt_err.h"
#include "bt_kernel.h"
#include "bt_loop.h"
#include "bt_uprobe.h"

#define BT_DEFAULT_MAX_PROBES 1000

struct ctx {
	const struct bt_probe_spec *spec;
	const struct bt_resolve_opts *opts;
	struct bt_targets *out;
	size_t limit;
	size_t before;
	const char *path;
	struct bt_match prov; /* USDT "provider:name" patterns */
	bool has_prov;
};

static int over_limit(struct ctx *c)
{
	/* every target found is a moment to notice a Ctrl-C during a long resolve */
	if (bt_stop_requested())
		return -EINTR;
	if (c->out->n <= c->limit)
		return 0;
	bt_err("'%s' matches more than %zu probes; narrow the pattern or raise --max-probes",
	       c->spec->text, c->limit);
	return -E2BIG;
}

/*
 * With -p, a file of a process in another mount namespace is read through /proc/PID/root,
 * which goes with the process: when it exited meanwhile, say so rather than what the read saw.
 */
static bool exited(const struct ctx *c)
{
	if (c->opts->pid <= 0 || bt_pid_alive(c->opts->pid))
		return false;
	bt_err("process %d exited", (int)c->opts->pid);
	return true;
}

/* ---- user functions --------------------------------------------------------------------- */

static int add_usym(const struct bt_usym *s, void *arg)
{
	struct ctx *c = arg;
	struct bt_target t = {
		.kind = BT_SPEC_UFUNC,
		.retprobe = c->spec->retprobe,
		.name = (char *)s->name,
		.func = (char *)s->name,
		.path = (char *)c->path,
		.offset = s->offset,
		.pid = c->opts->pid,
	};
	int err = bt_targets__add(c->out, &t);

	if (err)
		return err;
	bt_debug("'%s' matches %s at offset 0x%llx in '%s'", c->spec->text, s->name,
		 (unsigned long long)s->offset, c->path);
	/* stop early: "c:*" should fail at the limit, not after listing libc */
	return over_limit(c);
}

static const char *symbols_hint(const char *path, const char *root)
{
	struct bt_elf *elf = NULL;
	const char *hint = "";

	if (bt_uprobe_open_elf(path, root, &elf))
		return hint;
	switch (bt_elf__symbol_source(elf)) {
	case BT_ELF_SRC_NONE:
		hint = " (the file has no symbols and no debug file was found)";
		break;
	case BT_ELF_SRC_DYNSYM:
		hint = " (stripped, no debug file found: only exported functions are visible)";
		break;
	}
	bt_elf__close(elf);
	return hint;
}

static int resolve_ufunc(struct ctx *c, const struct bt_match *m)
{
	char root[64], *path = NULL;
	int err;

	err = bt_uprobe_find_module(c->spec->module, c->opts->pid, &path);
	if (err)
		return err;
	c->path = path;
	if (c->opts->pid > 0)
		snprintf(root, sizeof(root), "/proc/%d/root", (int)c->opts->pid);
	err = bt_uprobe_foreach_match(path, c->opts->pid > 0 ? root : NULL, m, add_usym, c);
	if (err == 0) {
		bt_err("no function matches '%s' in '%s'%s", c->spec->pattern, path,
		       symbols_hint(path, c->opts->pid > 0 ? root : NULL));
		err = -ENOENT;
	} else if (err == -ENOEXEC) {
		err = bt_usage_err("cannot trace '%s': not an ELF file", path);
	} else if (err == -EXDEV) {
		bt_err("cannot trace '%s': it leads out of the process's root (an absolute "
		       "symlink)",
		       path);
	} else if (err < 0 && err != -E2BIG && err != -ENOMEM && err != -EINTR && !exited(c)) {
		bt_err("cannot read the symbols of '%s': %s", path, strerror(-err));
	}
	free(path);
	c->path = NULL;
	return err < 0 ? err : 0;
}

/* ---- USDT ------------------------------------------------------------------------------- */

static int add_usdt(const char *provider, const char *name, void *arg)
{
	struct ctx *c = arg;
	char both[256];
	struct bt_target t = {
		.kind = BT_SPEC_USDT,
		.path = (char *)c->path,
		.usdt_provider = (char *)provider,
		.usdt_name = (char *)name,
		.pid = c->opts->pid,
	};
	int err;

	if (c->has_prov && !bt_match__test(&c->prov, provider))
		return 0;
	snprintf(both, sizeof(both), "%s:%s", provider, name);
	/* BCC prints the probe name alone; with a provider in the spec, both */
	t.name = c->has_prov ? both : (char *)name;
	t.func = both;
	err = bt_targets__add(c->out, &t);
	return err ? err : over_limit(c);
}

struct usdt_filter {
	struct ctx *c;
	const struct bt_match *m;
};

static int usdt_filter_cb(const char *provider, const char *name, void *arg)
{
	struct usdt_filter *f = arg;

	if (!bt_match__test(f->m, name))
		return 0;
	return add_usdt(provider, name, f->c);
}

static int resolve_usdt(struct ctx *c)
{
	const char *pattern = c->spec->pattern, *colon = strchr(pattern, ':');
	struct bt_match m = { 0 };
	struct usdt_filter f = { c, &m };
	char *path = NULL, *prov = NULL;
	int err;

	err = bt_uprobe_find_module(c->spec->module, c->opts->pid, &path);
	if (err)
		return err;
	if (colon) {
		prov = strndup(pattern, colon - pattern);
		if (!prov) {
			err = -ENOMEM;
			goto cleanup;
		}
		err = bt_match__init(&c->prov, prov, c->opts->regex);
		if (err)
			goto cleanup;
		c->has_prov = true;
		pattern = colon + 1;
	}
	err = bt_match__init(&m, pattern, c->opts->regex);
	if (err)
		goto cleanup;
	c->path = path;
	/* a count of the file's probes, not of those that matched */
	err = bt_usdt_foreach(path, usdt_filter_cb, &f);
	if (err >= 0 && c->out->n == c->before) {
		bt_err("no USDT probe matches '%s' in '%s'", c->spec->pattern, path);
		err = -ENOENT;
	} else if (err == -ENOEXEC) {
		err = bt_usage_err("cannot trace '%s': not an ELF file", path);
	} else if (err == -EXDEV) {
		bt_err("cannot trace '%s': it leads out of the process's root (an absolute "
		       "symlink)",
		       path);
	} else if (err < 0 && err != -E2BIG && err != -ENOMEM && err != -EINTR && !exited(c)) {
		bt_err("cannot read the USDT notes of '%s': %s", path, strerror(-err));
	}
cleanup:
	bt_match__fini(&m);
	bt_match__fini(&c->prov);
	c->has_prov = false;
	c->path = NULL;
	free(prov);
	free(path);
	return err < 0 ? err : 0;
}

/* ---- tracepoints and syscalls ------------------------------------------------------------ */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The subdirectories of dir, sorted (readdir order would make output order random). */
static int list_dirs(const char *dir, char ***out, size_t *n)
{
	struct dirent *de;
	char **v = NULL;
	size_t cnt = 0;
	DIR *d;

	*out = NULL;
	*n = 0;
	d = opendir(dir);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		char **nv;

		if (de->d_name[0] == '.' || (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN))
			continue;
		nv = realloc(v, (cnt + 1) * sizeof(*v));
		if (!nv || !(nv[cnt] = strdup(de->d_name))) {
			v = nv ? nv : v;
			while (cnt)
				free(v[--cnt]);
			free(v);
			closedir(d);
			return -ENOMEM;
		}
		v = nv;
		cnt++;
	}
	closedir(d);
	if (cnt)
		qsort(v, cnt, sizeof(*v), cmp_str);
	*out = v;
	*n = cnt;
	return 0;
}

static void free_list(char **v, size_t n)
{
	while (n)
		free(v[--n]);
	free(v);
}

static int add_tp(struct ctx *c, const char *cat, const char *event, const char *name)
{
	struct bt_target t = {
		.kind = c->spec->kind,
		.retprobe = c->spec->retprobe,
		.name = (char *)name,
		.func = (char *)name,
		.category = (char *)cat,
		.event = (char *)event,
	};
	int err = bt_targets__add(c->out, &t);

	return err ? err : over_limit(c);
}

/* Tracepoints and syscalls are found in tracefs: 0, or -errno after one line. */
static int tracefs_usable(const struct ctx *c, const char *tracefs)
{
	if (!tracefs) {
		bt_err("cannot trace '%s': tracefs is not mounted and cannot be mounted",
		       c->spec->text);
		return -ENOENT;
	}
	return bt_tracefs_denied();
}

static int resolve_tracepoint(struct ctx *c)
{
	struct bt_match mc = { 0 }, me = { 0 };
	const char *tracefs = bt_tracefs();
	char **cats = NULL, **evs = NULL, dir[4096], name[512];
	size_t ncats = 0, nevs = 0, i, j;
	int err;

	err = tracefs_usable(c, tracefs);
	if (err)
		return err;
	err = bt_match__init(&mc, c->spec->module, c->opts->regex);
	if (!err)
		err = bt_match__init(&me, c->spec->pattern, c->opts->regex);
	if (err)
		goto cleanup;
	snprintf(dir, sizeof(dir), "%s/events", tracefs);
	err = list_dirs(dir, &cats, &ncats);
	if (err) {
		bt_err("cannot list tracepoints in '%s': %s", dir, strerror(-err));
		goto cleanup;
	}
	for (i = 0; i < ncats && !err; i++) {
		if (!bt_match__test(&mc, cats[i]))
			continue;
		snprintf(dir, sizeof(dir), "%s/events/%s", tracefs, cats[i]);
		if (list_dirs(dir, &evs, &nevs))
			continue;
		for (j = 0; j < nevs && !err; j++) {
			if (!bt_match__test(&me, evs[j]))
				continue;
			snprintf(name, sizeof(name), "%s:%s", cats[i], evs[j]);
			err = add_tp(c, cats[i], evs[j], name);
		}
		free_list(evs, nevs);
	}
	if (!err && c->out->n == c->before) {
		bt_err("no tracepoint matches '%s:%s' (see %s/events)", c->spec->module,
		       c->spec->pattern, tracefs);
		err = -ENOENT;
	}
cleanup:
	free_list(cats, ncats);
	bt_match__fini(&mc);
	bt_match__fini(&me);
	return err;
}

static int resolve_syscall(struct ctx *c)
{
	const char *tracefs = bt_tracefs();
	const char *prefix = c->spec->retprobe ? "sys_exit_" : "sys_enter_";
	size_t plen = strlen(prefix), n = 0, i;
	struct bt_match m = { 0 };
	char **evs = NULL, dir[4096];
	int err;

	err = tracefs_usable(c, tracefs);
	if (err)
		return err;
	err = bt_match__init(&m, c->spec->pattern, c->opts->regex);
	if (err)
		return err;
	snprintf(dir, sizeof(dir), "%s/events/syscalls", tracefs);
	err = list_dirs(dir, &evs, &n);
	if (err) {
		bt_err("cannot trace '%s': no syscall tracepoints in '%s' (kernel built without "
		       "CONFIG_FTRACE_SYSCALLS?)",
		       c->spec->text, dir);
		err = -ENOENT;
		goto cleanup;
	}
	for (i = 0; i < n && !err; i++) {
		if (strncmp(evs[i], prefix, plen) || !bt_match__test(&m, evs[i] + plen))
			continue;
		err = add_tp(c, "syscalls", evs[i], evs[i] + plen);
	}
	if (!err && c->out->n == c->before) {
		bt_err("no system call matches '%s' (no syscalls:%s%s tracepoint)",
		       c->spec->pattern, prefix, c->spec->pattern);
		err = -ENOENT;
	}
cleanup:
	free_list(evs, n);
	bt_match__fini(&m);
	return err;
}

/* ---- entry point ------------------------------------------------------------------------- */

static int resolve_kfunc(struct ctx *c)
{
	int n = bt_kfuncs_match(c->spec->pattern, c->opts->regex, c->spec->retprobe, c->out);

	if (n < 0)
		return n;
	if (n == 0) {
		if (!c->opts->regex && !strpbrk(c->spec->pattern, "*?["))
			bt_err("cannot trace kernel function '%s': %s", c->spec->pattern,
			       bt_kfuncs_why_not(c->spec->pattern));
		else
			bt_err("no traceable kernel function matches '%s'", c->spec->pattern);
		return -ENOENT;
	}
	return over_limit(c);
}

int bt_targets__resolve(const struct bt_probe_spec *spec, const struct bt_resolve_opts *opts,
			struct bt_targets *out)
{
	struct bt_resolve_opts none = { 0 };
	struct ctx c = { .spec = spec, .opts = opts ? opts : &none, .out = out };
	struct bt_match m = { 0 };
	int err;

	c.limit = c.opts->max_probes ? c.opts->max_probes : BT_DEFAULT_MAX_PROBES;
	c.before = out->n;
	if (c.opts->pid < 0)
		return bt_usage_err("invalid PID %d", (int)c.opts->pid);
	err = bt_check_pid(c.opts->pid);
	if (err)
		return err;
	switch (spec->kind) {
	case BT_SPEC_KFUNC:
		err = resolve_kfunc(&c);
		break;
	case BT_SPEC_UFUNC:
		err = bt_match__init(&m, spec->pattern, c.opts->regex);
		if (!err)
			err = resolve_ufunc(&c, &m);
		bt_match__fini(&m);
		break;
	case BT_SPEC_TRACEPOINT:
		err = resolve_tracepoint(&c);
		break;
	case BT_SPEC_SYSCALL:
		err = resolve_syscall(&c);
		break;
	case BT_SPEC_USDT:
		err = resolve_usdt(&c);
		break;
	default:
		err = -EINVAL;
	}
	if (err == -ENOMEM)
		bt_err("out of memory");
	if (!err && out->n == c.before) {
		/* each resolver names its own misses; callers index the first target */
		bt_err("'%s' matches no probe", spec->text);
		err = -ENOENT;
	}
	if (err) {
		/* leave the list as it was: callers may go on with other specs */
		bt_targets__truncate(out, c.before);
		return err;
	}
	return (int)(out->n - c.before);
}
