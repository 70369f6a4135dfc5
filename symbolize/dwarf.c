// SPDX-License-Identifier: GPL-2.0
/*
 * Source lines and inlined frames, only when asked for (--debuginfo): DWARF is loaded on the
 * first question about a file and answers are cached per address, because one
 * dwarf_getscopes() in a large C++ unit can take milliseconds. Plain libdw, not libdwfl:
 * libdwfl would open host paths, may ptrace, and asks debuginfod on its own.
 */
#include <dlfcn.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <unistd.h>

#include "elf_internal.h"
#include "sym_internal.h"

#define BT_DWARF_CACHE 4096 /* direct-mapped: bounded memory, no eviction bookkeeping */

struct dw_entry {
	uint64_t vaddr;
	int valid;
	int n;
	struct bt_dwarf_frame f[1 + BT_SYM_MAX_INLINE];
};

struct bt_dwarf {
	Elf *elf;
	int fd;
	Dwarf *dw;
	struct dw_entry *cache;
	struct bt_dmcache dm; /* names handed out outlive their cache slot */
	int demangle;
};

static Dwarf *try_fd(int fd, Elf **ep)
{
	struct bt_elf_lim lim;
	Dwarf *dw;
	Elf *e;

	/* libdw reads every .debug_* section whole: each is checked first (elf_internal.h) */
	if (bt_elf__precheck(fd, &lim))
		return NULL;
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e)
		return NULL;
	if (!bt_elf__debug_scns_ok(e, &lim)) {
		elf_end(e);
		return NULL;
	}
	dw = dwarf_begin_elf(e, DWARF_C_READ, NULL);
	if (!dw) {
		elf_end(e);
		return NULL;
	}
	*ep = e;
	return dw;
}

/* debuginfod is opt-in and optional at run time: dlopen, never a hard dependency. */
static int debuginfod_fetch(struct bt_elf *elf)
{
	typedef void *(*begin_fn)(void);
	typedef int (*find_fn)(void *, const unsigned char *, int, char **);
	typedef void (*end_fn)(void *);
	void *h, *client;
	begin_fn begin;
	find_fn find;
	end_fn end;
	int fd = -ENOENT;

	if (!elf->build_id_len || !getenv("DEBUGINFOD_URLS"))
		return -ENOENT;
	h = dlopen("libdebuginfod.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return -ENOENT;
	begin = (begin_fn)dlsym(h, "debuginfod_begin");
	find = (find_fn)dlsym(h, "debuginfod_find_debuginfo");
	end = (end_fn)dlsym(h, "debuginfod_end");
	if (begin && find && end && (client = begin())) {
		fd = find(client, elf->build_id_raw, elf->build_id_len, NULL);
		end(client);
	}
	dlclose(h);
	return fd;
}

int bt_dwarf__open(struct bt_elf *elf, int allow_debuginfod, int demangle, struct bt_dwarf **out)
{
	struct bt_dwarf *d;
	char *path;
	int fd;

	*out = NULL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->fd = -1;
	d->demangle = demangle;
	d->dw = try_fd(bt_elf__fd(elf), &d->elf);
	if (!d->dw && (path = bt_elf__find_debug_file(elf))) {
		fd = bt_elf__open_in_root(elf, path);
		free(path);
		if (fd >= 0) {
			d->dw = try_fd(fd, &d->elf);
			if (d->dw)
				d->fd = fd;
			else
				close(fd);
		}
	}
	if (!d->dw && allow_debuginfod && (fd = debuginfod_fetch(elf)) >= 0) {
		d->dw = try_fd(fd, &d->elf);
		if (d->dw)
			d->fd = fd;
		else
			close(fd);
	}
	if (!d->dw) {
		free(d);
		return -ENOENT;
	}
	d->cache = calloc(BT_DWARF_CACHE, sizeof(*d->cache));
	if (!d->cache) {
		bt_dwarf__free(d);
		return -ENOMEM;
	}
	*out = d;
	return 0;
}

static void entry_clear(struct dw_entry *e)
{
	e->n = 0;
	e->valid = 0;
}

void bt_dwarf__free(struct bt_dwarf *d)
{
	if (!d)
		return;
	free(d->cache);
	bt_dmcache__clear(&d->dm);
	if (d->dw)
		dwarf_end(d->dw);
	if (d->elf)
		elf_end(d->elf);
	if (d->fd >= 0)
		close(d->fd);
	free(d);
}

/* The name to show for a function DIE: the demangled linkage name, else DW_AT_name. */
static const char *die_name(struct bt_dwarf *d, Dwarf_Die *die)
{
	Dwarf_Attribute a;
	const char *ln = NULL;

	if (dwarf_attr_integrate(die, DW_AT_linkage_name, &a) ||
	    dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a))
		ln = dwarf_formstring(&a);
	if (ln)
		return d->demangle ? bt_dmcache__get(&d->dm, ln) : ln;
	return dwarf_diename(die);
}

static void lookup(struct bt_dwarf *d, uint64_t vaddr, struct dw_entry *e)
{
	Dwarf_Die cu, *scopes = NULL;
	Dwarf_Files *files = NULL;
	const char *file = NULL;
	unsigned int line = 0;
	Dwarf_Line *l;
	size_t nfiles = 0;
	int n, i;

	e->vaddr = vaddr;
	e->valid = 1;
	if (!dwarf_addrdie(d->dw, vaddr, &cu))
		return;
	l = dwarf_getsrc_die(&cu, vaddr);
	if (l) {
		int ln = 0;

		file = dwarf_linesrc(l, NULL, NULL);
		if (!dwarf_lineno(l, &ln) && ln > 0)
			line = ln;
	}
	dwarf_getsrcfiles(&cu, &files, &nfiles);
	/*
	 * dwarf_getscopes stops at the innermost inlined instance (its parents come from the
	 * abstract tree); the concrete chain of callers is that DIE's own parents.
	 */
	n = dwarf_getscopes(&cu, vaddr, &scopes);
	for (i = 0; i < n; i++) {
		int tag = dwarf_tag(&scopes[i]);

		if (tag == DW_TAG_inlined_subroutine || tag == DW_TAG_subprogram) {
			Dwarf_Die inner = scopes[i], *chain = NULL;
			int m = dwarf_getscopes_die(&inner, &chain);

			if (m > 0) {
				free(scopes);
				scopes = chain;
				n = m;
			} else {
				free(chain);
			}
			break;
		}
	}
	for (i = 0; i < n && e->n < 1 + BT_SYM_MAX_INLINE; i++) {
		int tag = dwarf_tag(&scopes[i]);
		Dwarf_Attribute a;
		Dwarf_Word w;

		if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram)
			continue;
		e->f[e->n].name = die_name(d, &scopes[i]);
		e->f[e->n].file = file;
		e->f[e->n].line = line;
		e->n++;
		if (tag == DW_TAG_subprogram)
			break;
		/* the caller's position is this inlined call's call site */
		file = NULL;
		line = 0;
		if (dwarf_attr(&scopes[i], DW_AT_call_file, &a) && !dwarf_formudata(&a, &w) &&
		    files && w < nfiles)
			file = dwarf_filesrc(files, w, NULL, NULL);
		if (dwarf_attr(&scopes[i], DW_AT_call_line, &a) && !dwarf_formudata(&a, &w))
			line = w;
	}
	if (!e->n && (file || line)) {
		/* line info without a scope chain (assembly, say): still useful */
		e->f[0] = (struct bt_dwarf_frame){ NULL, file, line };
		e->n = 1;
	}
	free(scopes);
}

int bt_dwarf__frames(struct bt_dwarf *d, uint64_t vaddr, const struct bt_dwarf_frame **out)
{
	struct dw_entry *e;

	if (!d)
		return 0;
	e = &d->cache[(vaddr ^ (vaddr >> 12)) % BT_DWARF_CACHE];
	if (!e->valid || e->vaddr != vaddr) {
		entry_clear(e);
		lookup(d, vaddr, e);
	}
	*out = e->f;
	return e->n;
}
