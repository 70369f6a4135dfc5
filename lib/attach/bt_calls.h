/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Calls timed from entry to return (funcslower, funclatency): the specs of the probe grammar
 * that have a return (func, lib:func and the other user functions, syscall:NAME) into entry
 * targets and, after them, their returns, so that target n + i ends a call of entry target i.
 * The BPF side pairs them by that index (probes/bt_call.bpf.h: bt_call_enter(),
 * bt_call_return()), whatever attaches each half: fentry/fexit, kprobe/kretprobe, a uprobe and
 * its uretprobe or one uprobe.session, sys_enter_NAME/sys_exit_NAME.
 *
 *	struct bt_calls calls = { 0 };
 *	err = bt_calls__resolve(&calls, argv, argc, &ropts, max);
 *	...open the skeleton, set its read-only data...
 *	err = bt_calls__load(&calls, skel->skeleton, &filters, mode, &attach);
 *	...bt_attach__how(attach, i) and (attach, calls.n + i): how entry i and its return attached
 *	bt_attach__destroy(attach); NAME_bpf__destroy(skel); bt_calls__free(&calls);
 */
#ifndef BT_CALLS_H
#define BT_CALLS_H

#include <stddef.h>

#include "bt_attach.h"
#include "bt_skel.h"

struct bt_calls {
	struct bt_targets targets; /* the entries 0..n-1, then their returns n..2n-1 */
	size_t n;		   /* the entries */
	/*
	 * per entry: the spec as the user wrote it (as BCC prints it), or for a wildcard the
	 * function it matched in the spec's form ("c:strlen", "syscall:openat", "vfs_read")
	 */
	char **names;
};

/*
 * Parse and resolve the specs into c. A spec without a return (a tracepoint, a USDT probe, or
 * "r:" on a spec: the tool probes the return itself) is a usage error naming it; so are more
 * than max entries in all ("--max-probes"; 0: no limit but the resolver's, opts->max_probes).
 * 0 or -errno, printed; c is for bt_calls__free() either way.
 */
int bt_calls__resolve(struct bt_calls *c, const char *const *specs, size_t nspecs,
		      const struct bt_resolve_opts *opts, size_t max);
/*
 * bt_trace__load() of the calls: with the number of entries in the object's bt_call_entries
 * (probes/bt_call.bpf.h) first.
 */
int bt_calls__load(const struct bt_calls *c, struct bpf_object_skeleton *skel,
		   const struct bt_filters *filters, enum bt_attach_mode mode,
		   struct bt_attach **out);
void bt_calls__free(struct bt_calls *c); /* NULL is fine */

#endif
