/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The life every tool that traces user-named targets shares (funccount, stackcount,
 * vfsstat, ...): a pattern into targets, then open skeleton -> filters -> attach decisions ->
 * load -> attach, and one teardown in the right order. The command keeps its skeleton and
 * its maps; this only removes the steps that would otherwise be written in every command.
 */
#ifndef BT_TRACE_H
#define BT_TRACE_H

#include <stddef.h>
#include <stdio.h>
#include <bpf/libbpf.h>

#include "bt_attach.h"
#include "bt_loop.h"
#include "bt_skel.h"
#include "bt_stacks.h"

/* Parse a probe spec and expand it; the number of targets (> 0), or -errno (printed). */
int bt_targets__from_pattern(const char *pattern, const struct bt_resolve_opts *opts,
			     struct bt_targets *out);

/*
 * With the skeleton opened and its own read-only data set: apply the filters, choose how
 * each target attaches, load, attach. The generic programs are found by their sections: every
 * program declared not autoloaded (SEC("?kprobe"), SEC("?fentry"), ... see
 * probes/bt_attach.bpf.h) serves the mechanism its section names. On failure everything it
 * made is undone, the error is printed, and the caller destroys its skeleton as usual. *out is
 * for bt_attach__destroy(), which must run before the skeleton is destroyed.
 */
int bt_trace__load(struct bpf_object_skeleton *skel, const struct bt_targets *targets,
		   const struct bt_filters *filters, enum bt_attach_mode mode,
		   struct bt_attach **out);

/*
 * The run of a tool printing what a pattern's n targets did every interval (funccount,
 * funclatency), once they are attached: "Tracing N functions for "PATTERN"... Hit Ctrl-C to
 * end.", print(ctx) as bt_interval_run() calls it, then BCC's "Detaching..." after a run that
 * ended well, on stdout when that holds text. 0 or -errno (-EPIPE: stdout failed before
 * tracing began).
 */
int bt_trace__run(size_t n, const char *pattern, const struct bt_interval *iv, bt_print_fn print,
		  void *ctx);

/*
 * The unwind tables of the files the targets probe, built now (before the tool says it is
 * tracing): a process of such a file that starts later gets whole user stacks from its first
 * event, before it is indexed itself. Nothing when st is NULL or walks by frame pointers.
 */
void bt_trace__index_targets(struct bt_stacks *st, const struct bt_targets *t);

/*
 * The stacks of a tool tracing targets (stackcount, stacksnoop, funcslower), either side of
 * its load: the stack maps sized and process announcements switched on before it; after it,
 * the user side made (*out, for bt_stacks__free()) and, when user stacks are symbolized, the
 * one process traced (pid, -p; 0: none) snapshotted at once (one that exits within
 * microseconds of its event would be gone before its announcement is read) and the targets'
 * files indexed. One line on failure ("cannot set up the stack maps: ...", "cannot set up
 * stack symbolization: ..."); 0 or -errno.
 */
int bt_trace__configure_stacks(struct bpf_object *obj, const struct bt_stacks_opts *o);
int bt_trace__new_stacks(struct bpf_object *obj, const struct bt_stacks_opts *o, int pid,
			 const struct bt_targets *t, struct bt_stacks **out);

/* "Tracing N functions for "PATTERN"... Hit Ctrl-C to end.", as bt_banner() prints it. */
void bt_trace__banner(FILE *out, size_t n, const char *pattern);
/* ... or, for a run of seconds (not 0), "Tracing N functions for "PATTERN" for S secs." */
void bt_trace__banner_for(FILE *out, size_t n, const char *pattern, unsigned long seconds);

/* The generic programs of obj, by their "?SECTION" kinds; -EINVAL if a kind appears twice. */
int bt_attach_progs__find(struct bpf_object *obj, struct bt_attach_progs *progs);

#endif
