/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside the attach layer: finding the file behind a "lib:" or "prog:" of the probe grammar,
 * and turning user symbols into the file offsets uprobes want. Never runs a shell or a helper
 * program: ld.so.cache is parsed here, $PATH is walked here, /proc/PID/maps is read here.
 */
#ifndef BT_UPROBE_H
#define BT_UPROBE_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* A name pattern: glob ('*', '?', '[...]') or POSIX ERE, matched against the whole name. */
struct bt_match {
	bool regex;
	bool literal; /* a glob without wildcards: strcmp */
	char *pattern;
	regex_t re;
};

/* -BT_EUSAGE (printed, naming the pattern) for a bad regular expression. */
int bt_match__init(struct bt_match *m, const char *pattern, bool regex);
bool bt_match__test(const struct bt_match *m, const char *name);
/* Whether re (compiled without REG_NOSUB) matches all of name, not just a part of it. */
bool bt_regex_whole(const regex_t *re, const char *name);
void bt_match__fini(struct bt_match *m); /* after init, or zeroed */

/*
 * Look a library up in an ld.so.cache file (NULL: /etc/ld.so.cache) the way the dynamic
 * linker would: "c" and "libc" find "libc.so.6", "libc.so.6" itself too. Entries for another
 * architecture are skipped. *path is malloc'ed. -ENOENT when absent, -ENOEXEC for a file
 * that is not an ld.so.cache.
 */
int bt_ldcache_lookup(const char *cache, const char *name, char **path);

/* A program on $PATH (no shell involved): a regular executable file. -ENOENT when none. */
int bt_path_lookup(const char *prog, char **path);

/*
 * A file mapped by process pid whose base name is the library "name" (as above) or the
 * program "name"; as the process maps it when the process sees our file tree, else as
 * /proc/PID/root/<path>, so that it is reachable from our mount namespace. -ENOENT when
 * none, -ESRCH when the process does not exist.
 */
int bt_procmaps_lookup(pid_t pid, const char *name, char **path);

/*
 * The file behind the module of a spec: a path (has a '/'), else a library or program by
 * name, through the process's maps first when pid is set, then ld.so.cache, then $PATH.
 * With pid set, an absolute path is looked for in the process's own file tree first (through
 * /proc/PID/root, when that differs from ours).
 * Returns 0, or -BT_EUSAGE after printing "cannot find library or program 'NAME'".
 */
int bt_uprobe_find_module(const char *module, pid_t pid, char **path);

/*
 * Open the ELF file at 'path' as reached from here. When it lies under 'root' (a process's
 * "/proc/PID/root"), its debug files are looked for under that root by the path inside it;
 * otherwise on our own file tree.
 */
struct bt_elf;
int bt_uprobe_open_elf(const char *path, const char *root, struct bt_elf **elf);

/* One user function that matched. */
struct bt_usym {
	const char *name;    /* the symbol, without "@VERSION" */
	const char *version; /* or NULL */
	uint64_t vaddr;	     /* st_value (for IFUNCs: the resolved implementation) */
	uint64_t offset;     /* file offset for the uprobe */
};

/*
 * Every distinct address in the ELF file 'path' whose function symbol matches m (a pattern
 * with "@VER" or "@@VER" also matches the version). Several symbols at one address are
 * reported once, under the best name (global over weak over local, then fewest leading
 * underscores, then shortest). IFUNC symbols are resolved to the implementation this CPU
 * gets when the library is the one loaded in this process; otherwise skipped with a warning.
 * cb returns 0 to go on, non-zero to stop (returned). Returns the number reported or -errno
 * (-ENOEXEC not an ELF file).
 */
typedef int (*bt_usym_cb)(const struct bt_usym *sym, void *ctx);
int bt_uprobe_foreach_match(const char *path, const char *root, const struct bt_match *m,
			    bt_usym_cb cb, void *ctx);

/* USDT probes in an ELF file (.note.stapsdt), one call per distinct provider:name. */
typedef int (*bt_usdt_cb)(const char *provider, const char *name, void *ctx);
int bt_usdt_foreach(const char *path, bt_usdt_cb cb, void *ctx);

#endif
