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
