// SPDX-License-Identifier: GPL-2.0
/*
 * Completion candidates read from the system (lib/cli/bt_complete.h). Each source is one file or
 * directory read once per TAB, filtered by the word typed so far: the shell never receives the
 * 60k kernel function names, only those that start with what is on the command line.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bt_cmd.h"
#include "bt_complete.h"
#include "bt_elf.h"
#include "bt_kfuncs.h"
#include "bt_uprobe.h"

struct kfunc_ctx {
	bt_complete_cb cb;
	void *ctx;
};

static int kfunc_cb(const char *name, void *arg)
{
	struct kfunc_ctx *k = arg;

	return k->cb(name, NULL, k->ctx);
}

int bt_complete_kfuncs(const char *prefix, bt_complete_cb cb, void *ctx)
{
	struct kfunc_ctx k = { cb, ctx };

	return bt_kfuncs_foreach_prefix(prefix, kfunc_cb, &k);
}

/*
 * available_events of a tracefs that is already mounted: completion runs as whoever is typing
 * and must not mount anything (without root the file is unreadable anyway).
 */
static FILE *open_events(const char *events)
{
	static const char *const dflt[] = { "/sys/kernel/tracing/available_events",
					    "/sys/kernel/debug/tracing/available_events" };
	FILE *f;
	size_t i;

	if (events)
		return fopen(events, "re");
	for (i = 0; i < sizeof(dflt) / sizeof(dflt[0]); i++) {
		f = fopen(dflt[i], "re");
		if (f || errno != ENOENT)
			return f;
	}
	return NULL;
}

/* Each "category:event" line of available_events; strip removes a leading part. */
static int each_event(const char *events, const char *strip, const char *prefix, bt_complete_cb cb,
		      void *ctx)
{
	size_t slen = strip ? strlen(strip) : 0, plen = strlen(prefix);
	char line[512];
	FILE *f = open_events(events);
	int err = 0;

	if (!f)
		return -errno;
	while (!err && fgets(line, sizeof(line), f)) {
		const char *w = line;

		line[strcspn(line, "\n")] = '\0';
		if (slen) {
			if (strncmp(w, strip, slen))
				continue;
			w += slen;
		}
		if (!strncmp(w, prefix, plen))
			err = cb(w, NULL, ctx);
	}
	fclose(f);
	return err;
}

int bt_complete_tracepoints(const char *events, const char *prefix, bt_complete_cb cb, void *ctx)
{
	return each_event(events, NULL, prefix, cb, ctx);
}

int bt_complete_syscalls(const char *events, const char *prefix, bt_complete_cb cb, void *ctx)
{
	return each_event(events, "syscalls:sys_enter_", prefix, cb, ctx);
}

struct ufunc_ctx {
	const char *prefix;
	size_t plen;
	bt_complete_cb cb;
	void *ctx;
};

static int ufunc_cb(const struct bt_elf_sym *sym, void *arg)
{
	struct ufunc_ctx *u = arg;

	if (strncmp(sym->name, u->prefix, u->plen))
		return 0;
	return u->cb(sym->name, NULL, u->ctx);
}

int bt_complete_ufuncs(const char *module, pid_t pid, const char *prefix, bt_complete_cb cb,
		       void *ctx)
{
	struct ufunc_ctx u = { prefix, strlen(prefix), cb, ctx };
	struct bt_elf *elf = NULL;
	char root[64], *path = NULL;
	int err;

	err = bt_uprobe_find_module(module, pid, &path);
	if (err)
		return err;
	if (pid > 0)
		snprintf(root, sizeof(root), "/proc/%d/root", (int)pid);
	err = bt_uprobe_open_elf(path, pid > 0 ? root : NULL, &elf);
	if (!err)
		err = bt_elf__foreach_func(elf, ufunc_cb, &u);
	bt_elf__close(elf);
	free(path);
	return err;
}

struct usdt_ctx {
	const char *prefix;
	size_t plen;
	bt_complete_cb cb;
	void *ctx;
};

static int usdt_cb(const char *provider, const char *name, void *arg)
{
	struct usdt_ctx *u = arg;
	char word[512];

	snprintf(word, sizeof(word), "%s:%s", provider, name);
	if (strncmp(word, u->prefix, u->plen))
		return 0;
	return u->cb(word, NULL, u->ctx);
}

int bt_complete_usdt(const char *module, pid_t pid, const char *prefix, bt_complete_cb cb,
		     void *ctx)
{
	struct usdt_ctx u = { prefix, strlen(prefix), cb, ctx };
	char *path = NULL;
	int err;

	err = bt_uprobe_find_module(module, pid, &path);
	if (err)
		return err;
	err = bt_usdt_foreach(path, usdt_cb, &u);
	free(path);
	return err < 0 ? err : 0;
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

int bt_complete_pids(const char *proc, const char *prefix, bt_complete_cb cb, void *ctx)
{
	size_t plen = strlen(prefix);
	char path[512], comm[64];
	struct dirent *de;
	ssize_t n;
	DIR *d;
	int fd, err = 0;

	if (!proc)
		proc = "/proc";
	d = opendir(proc);
	if (!d)
		return -errno;
	while (!err && (de = readdir(d))) {
		if (!all_digits(de->d_name) || strncmp(de->d_name, prefix, plen))
			continue;
		/* the process asking is about to exit: not a useful answer */
		if (!strcmp(proc, "/proc") && atoi(de->d_name) == getpid())
			continue;
		snprintf(path, sizeof(path), "%s/%s/comm", proc, de->d_name);
		comm[0] = '\0';
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			n = read(fd, comm, sizeof(comm) - 1);
			comm[n > 0 ? n : 0] = '\0';
			comm[strcspn(comm, "\n")] = '\0';
			close(fd);
		}
		err = cb(de->d_name, comm[0] ? comm : NULL, ctx);
	}
	closedir(d);
	return err;
}

/* The spec prefixes offered before anything is typed, instead of every kernel function. */
static const struct {
	const char *word;
	unsigned int kind;
	const char *desc;
} spec_types[] = {
	{ "t:", BT_PATTERN_TRACEPOINT, "tracepoint: t:CATEGORY:EVENT" },
	{ "tracepoint:", BT_PATTERN_TRACEPOINT, "tracepoint: tracepoint:CATEGORY:EVENT" },
	{ "syscall:", BT_PATTERN_SYSCALL, "system call: syscall:NAME" },
	{ "u:", BT_PATTERN_USDT, "USDT probe: u:LIB:PROBE" },
	{ "c:", BT_PATTERN_UFUNC, "C library function: c:FUNC" },
	{ "p::", BT_PATTERN_KFUNC, "kernel function: p::FUNC, or FUNC" },
};

#define NSPEC_TYPES (sizeof(spec_types) / sizeof(spec_types[0]))

/* A source's words after the part of the spec already typed. */
struct spec_ctx {
	bt_complete_cb cb;
	void *ctx;
	const char *pre;
};

static int add_pre(const char *word, const char *desc, void *arg)
{
	struct spec_ctx *s = arg;
	char *w;
	int err;

	if (asprintf(&w, "%s%s", s->pre, word) < 0)
		return -ENOMEM;
	err = s->cb(w, desc, s->ctx);
	free(w);
	return err;
}

void bt_complete_spec(unsigned int kinds, const char *cur, pid_t pid, bt_complete_cb cb, void *ctx)
{
	char pre[4096], module[4096];
	struct spec_ctx s = { cb, ctx, pre };
	size_t i, type_len = 0;
	const char *rest, *colon;

	if (!*cur) {
		for (i = 0; i < NSPEC_TYPES; i++)
			if (kinds & spec_types[i].kind)
				cb(spec_types[i].word, spec_types[i].desc, ctx);
		return;
	}
	/* p:FUNC, p::FUNC, p:LIB:FUNC, r:...: what follows the type is completed alike */
	if ((cur[0] == 'p' || cur[0] == 'r') && cur[1] == ':')
		type_len = 2;
	rest = cur + type_len;
	if (type_len && rest[0] == ':') {
		snprintf(pre, sizeof(pre), "%.3s", cur);
		if (kinds & BT_PATTERN_KFUNC)
			bt_complete_kfuncs(rest + 1, add_pre, &s);
	} else if (!type_len && (kinds & BT_PATTERN_TRACEPOINT) && !strncmp(cur, "t:", 2)) {
		strcpy(pre, "t:");
		bt_complete_tracepoints(NULL, cur + 2, add_pre, &s);
	} else if (!type_len && (kinds & BT_PATTERN_TRACEPOINT) &&
		   !strncmp(cur, "tracepoint:", 11)) {
		strcpy(pre, "tracepoint:");
		bt_complete_tracepoints(NULL, cur + 11, add_pre, &s);
	} else if (!type_len && (kinds & BT_PATTERN_SYSCALL) && !strncmp(cur, "syscall:", 8)) {
		strcpy(pre, "syscall:");
		bt_complete_syscalls(NULL, cur + 8, add_pre, &s);
	} else if (!type_len && (kinds & BT_PATTERN_USDT) && !strncmp(cur, "u:", 2)) {
		/* u:LIB:PROVIDER:PROBE, once LIB is typed */
		colon = strchr(cur + 2, ':');
		if (colon) {
			snprintf(module, sizeof(module), "%.*s", (int)(colon - cur - 2), cur + 2);
			snprintf(pre, sizeof(pre), "%.*s", (int)(colon + 1 - cur), cur);
			bt_complete_usdt(module, pid, colon + 1, add_pre, &s);
		}
	} else if ((colon = strchr(rest, ':'))) {
		/* LIB:FUNC, /path/bin:FUNC: the module as the attach layer would find it */
		snprintf(pre, sizeof(pre), "%.*s", (int)(colon + 1 - cur), cur);
		snprintf(module, sizeof(module), "%.*s", (int)(colon - rest), rest);
		if (kinds & BT_PATTERN_UFUNC)
			bt_complete_ufuncs(module, pid, colon + 1, add_pre, &s);
	} else if (rest[0] != '/' && rest[0] != '.' && *rest && (kinds & BT_PATTERN_KFUNC)) {
		/* (a path is the shell's to complete, up to its ':') */
		snprintf(pre, sizeof(pre), "%.*s", (int)type_len, cur);
		bt_complete_kfuncs(rest, add_pre, &s);
	}
	if (type_len)
		return;
	for (i = 0; i < NSPEC_TYPES; i++)
		if ((kinds & spec_types[i].kind) && strlen(cur) < strlen(spec_types[i].word) &&
		    !strncmp(spec_types[i].word, cur, strlen(cur)))
			cb(spec_types[i].word, spec_types[i].desc, ctx);
}

int bt_cands__add(const char *word, const char *desc, void *arg)
{
	struct bt_cands *c = arg;
	struct bt_cand *nv;

	if (c->n == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 256;
		nv = realloc(c->v, c->cap * sizeof(*nv));
		if (!nv)
			return c->err = -ENOMEM;
		c->v = nv;
	}
	if (asprintf(&c->v[c->n].word, "%s%s", c->pre ? c->pre : "", word) < 0)
		return c->err = -ENOMEM;
	c->v[c->n].desc = desc ? strdup(desc) : NULL;
	c->n++;
	return 0;
}

static int cmp_cand(const void *a, const void *b)
{
	return strcmp(((const struct bt_cand *)a)->word, ((const struct bt_cand *)b)->word);
}

void bt_cands__print(FILE *out, struct bt_cands *c)
{
	size_t i;

	if (c->n)
		qsort(c->v, c->n, sizeof(*c->v), cmp_cand);
	for (i = 0; i < c->n; i++) {
		if (i && !strcmp(c->v[i].word, c->v[i - 1].word))
			continue;
		fputs(c->v[i].word, out);
		if (c->v[i].desc) {
			fputc('\t', out);
			fputs(c->v[i].desc, out);
		}
		fputc('\n', out);
	}
}

void bt_cands__free(struct bt_cands *c)
{
	size_t i;

	for (i = 0; i < c->n; i++) {
		free(c->v[i].word);
		free(c->v[i].desc);
	}
	free(c->v);
}

void bt_cands__pids(struct bt_cands *c, const char *cur, const char *before)
{
	const char *comma = strrchr(cur, ',');
	char pre[256];

	/* "-p 12,34" (PIDS): complete the last of the list */
	snprintf(pre, sizeof(pre), "%s%.*s", before, comma ? (int)(comma - cur + 1) : 0, cur);
	c->pre = pre;
	bt_complete_pids(NULL, comma ? comma + 1 : cur, bt_cands__add, c);
	c->pre = NULL;
}
