/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The traceable kernel functions, read once per run (see bt_kfuncs_match() in
 * bt_attach_internal.h and docs/attach.md). This header adds what features and the unit tests
 * need: where the list came from, and injectable source files.
 */
#ifndef BT_KFUNCS_H
#define BT_KFUNCS_H

#include <stdbool.h>
#include <stddef.h>

struct btf;

/*
 * Where the lists are read from. NULL fields take the defaults: /proc/kallsyms,
 * <tracefs>/available_filter_functions, /sys/kernel/debug/kprobes/blacklist and the vmlinux
 * BTF; "" means "there is no such file" (a test of the kallsyms path, say).
 */
struct bt_kfuncs_sources {
	const char *kallsyms;
	const char *filter_functions;
	const char *blacklist;
	const struct btf *btf; /* FUNC names that make a kallsyms text symbol a function */
};

/* Use these sources from now on (NULL: the defaults); drops what was read before. */
void bt_kfuncs_set_sources(const struct bt_kfuncs_sources *src);
/* Free the cached lists (the next call reads them again). */
void bt_kfuncs_reset(void);

enum bt_kfuncs_source {
	BT_KFUNCS_NONE,		    /* nothing readable */
	BT_KFUNCS_FILTER_FUNCTIONS, /* tracefs available_filter_functions */
	BT_KFUNCS_KALLSYMS_BTF,	    /* kallsyms text symbols that have a BTF FUNC */
};

struct bt_kfuncs_info {
	enum bt_kfuncs_source source;
	size_t count;	    /* traceable functions (copies with suffixes counted) */
	size_t blacklisted; /* of the candidates, dropped by kprobes/blacklist */
	int filter_err;	    /* errno reading available_filter_functions, 0 if read */
	int blacklist_err;  /* errno reading kprobes/blacklist, 0 if read */
	int err;	    /* 0, or why no list at all */
	double load_ms;	    /* time spent building the list */
};

/* Load the list if needed and describe it. Returns 0 or -errno (info->err). */
int bt_kfuncs_info(struct bt_kfuncs_info *info);

/*
 * The base name of a compiler copy: "foo.isra.0", "foo.constprop.0.isra.0", "foo.llvm.123",
 * "foo.part.1" -> "foo" (written to buf). Returns the length of the base, or 0 when name has
 * no such suffix. *cold is set for ".cold" parts (never an entry point).
 */
size_t bt_kfunc_base(const char *name, char *buf, size_t size, bool *cold);

/*
 * The traceable compiler copies of the kernel function name ("vfs_rmdir.part.0" of
 * "vfs_rmdir"): GCC splits a function's body into a ".part" copy and inlines the rest into the
 * callers in its own file, which then call the copy and never the function (Debian 11's
 * vfs_rmdir: do_rmdir calls vfs_rmdir.part.0). Up to max names go to out (valid until
 * bt_kfuncs_reset()); returns how many there are, 0 also when the list is unreadable.
 */
size_t bt_kfunc_copies(const char *name, const char **out, size_t max);

/*
 * For shell completion, fast: call cb with every kernel function name that starts with prefix.
 * From available_filter_functions when it is readable (a compiler copy gives its base name,
 * so a name may come more than once), else the FUNC names of the vmlinux BTF: reading
 * kallsyms costs the kernel 60-120 ms. Never mounts tracefs. cb returns 0 to go on, non-zero
 * to stop (returned). Returns 0 or -errno.
 */
int bt_kfuncs_foreach_prefix(const char *prefix, int (*cb)(const char *name, void *ctx), void *ctx);

/* Whether a wildcard leaves this function out (it would recurse or deadlock when probed). */
bool bt_kfunc_wildcard_denied(const char *name);

#endif
