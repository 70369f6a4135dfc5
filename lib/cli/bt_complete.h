/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What shell completion offers for probe arguments and PIDs, read from the running system at
 * the moment the user presses TAB (`bpftools __complete`, cmd/completion.c). cmd/ never reads
 * tracefs, kallsyms, ELF files or /proc itself: it asks here.
 *
 * Every function calls cb(word, desc, ctx) once per candidate that starts with prefix, in no
 * particular order and possibly more than once (the caller sorts and removes repeats); desc is
 * a short description or NULL. cb returns 0 to go on, non-zero to stop (that value is then
 * returned). They return 0 or -errno; nothing is printed.
 */
#ifndef BT_COMPLETE_H
#define BT_COMPLETE_H

#include <stdio.h>
#include <sys/types.h>

typedef int (*bt_complete_cb)(const char *word, const char *desc, void *ctx);

/* Traceable kernel functions (the list the attach layer uses, docs/attach.md). */
int bt_complete_kfuncs(const char *prefix, bt_complete_cb cb, void *ctx);

/*
 * Tracepoints as "category:event", from <tracefs>/available_events ('events' overrides the
 * file, for tests; NULL: the mounted tracefs, which is never mounted just for this).
 */
int bt_complete_tracepoints(const char *events, const char *prefix, bt_complete_cb cb, void *ctx);

/* System call names NAME, of the syscalls:sys_enter_NAME tracepoints (the syscall: spec). */
int bt_complete_syscalls(const char *events, const char *prefix, bt_complete_cb cb, void *ctx);

/*
 * Functions of a library or program, found as the attach layer finds the module of a
 * "lib:func" spec (a path, or a name through the maps of pid when pid > 0, ld.so.cache, $PATH),
 * read through the symbolizer's ELF reader.
 */
int bt_complete_ufuncs(const char *module, pid_t pid, const char *prefix, bt_complete_cb cb,
		       void *ctx);

/* USDT probes of a library or program (found as above), as "provider:probe". */
int bt_complete_usdt(const char *module, pid_t pid, const char *prefix, bt_complete_cb cb,
		     void *ctx);

/* Process ids, with the process's comm as description ('proc' overrides /proc, for tests). */
int bt_complete_pids(const char *proc, const char *prefix, bt_complete_cb cb, void *ctx);

/*
 * The candidates for a probe spec of those kinds (enum bt_cmd_pattern) being typed (cur), as the attach layer reads
 * the grammar (docs/attach.md): with nothing typed, the type prefixes ("t:", "syscall:", "u:",
 * "c:", "p::"), not every kernel function; else what follows the prefix typed (p:/r: FUNC or
 * LIB:FUNC, t:CATEGORY:EVENT, syscall:NAME, u:LIB:PROBE once LIB is typed, LIB:FUNC, FUNC) and
 * the prefixes cur starts. Each word whole, the typed prefix with it; pid finds LIB through its
 * maps (0: none). What a source cannot read offers nothing.
 */
void bt_complete_spec(unsigned int kinds, const char *cur, pid_t pid, bt_complete_cb cb, void *ctx);

/*
 * The candidates of one TAB, gathered from the functions above (bt_cands__add is their cb, c
 * its ctx) and printed sorted, each word once, one a line: "word" or "word<TAB>description".
 * pre, when set, goes before every word added (the part of the spec already typed). The first
 * failure stays in err.
 */
struct bt_cands {
	struct bt_cand {
		char *word;
		char *desc;
	} * v;
	size_t n, cap;
	const char *pre;
	int err;
};
int bt_cands__add(const char *word, const char *desc, void *c);
void bt_cands__print(FILE *out, struct bt_cands *c);
void bt_cands__free(struct bt_cands *c);

/*
 * The PIDs for a PIDS list being typed (cur: "12,34" completes the last of the list), each
 * word after before (what the shell replaces, such as "--pid=").
 */
void bt_cands__pids(struct bt_cands *c, const char *cur, const char *before);

#endif
