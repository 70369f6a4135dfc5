/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The attach layer: one probe grammar for every tool, resolved into concrete targets, attached
 * with whatever the running kernel offers. Commands never pick fentry or kprobe, never read
 * tracefs or ELF files: they parse a spec, resolve it, and hand the targets plus a set of
 * generic BPF programs from their skeleton to bt_attach__prepare()/bt_attach__commit().
 *
 * Grammar (bcc-compatible):
 *   func, p:func, p::func         kernel function entry
 *   r:func, r::func               kernel function return (tools that need it)
 *   lib:func, p:lib:func, c:func  user function in a library (c = libc), found via
 *                                 /etc/ld.so.cache, or /proc/PID/maps with a pid
 *   r:lib:func                    user function return
 *   /path/bin:func, ./rel:func, prog:func   user function in an executable ($PATH lookup)
 *   t:cat:event, tracepoint:cat:event       tracepoint
 *   u:lib:probe                   USDT probe
 *   syscall:NAME                  sys_enter_NAME / sys_exit_NAME tracepoints
 * '*' and '?' glob everywhere a name is; with regex set, POSIX extended regular expressions
 * matched against the whole name.
 */
#ifndef BT_ATTACH_H
#define BT_ATTACH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <bpf/libbpf.h>

enum bt_spec_kind {
	BT_SPEC_KFUNC,	    /* kernel function */
	BT_SPEC_UFUNC,	    /* user function */
	BT_SPEC_TRACEPOINT, /* category:event */
	BT_SPEC_USDT,	    /* provider:probe in a binary */
	BT_SPEC_SYSCALL,    /* syscalls:sys_enter_NAME (+ sys_exit_NAME for return) */
};

struct bt_probe_spec {
	enum bt_spec_kind kind;
	bool retprobe; /* r: */
	char *module;  /* library or binary (UFUNC, USDT), category (TRACEPOINT); else NULL */
	char *pattern; /* function, event or probe name; may hold wildcards */
	char *text;    /* the spec as the user wrote it, for messages */
};

/* Parse; on bad input print one line naming it and return -BT_EUSAGE. */
int bt_probe_spec__parse(const char *text, struct bt_probe_spec *spec);
void bt_probe_spec__free(struct bt_probe_spec *spec); /* NULL is fine */

/* One concrete thing to attach to. */
struct bt_target {
	enum bt_spec_kind kind;
	bool retprobe;
	char *name; /* how the tool prints it: "vfs_read", "c:malloc" / "malloc", "block:block_rq_issue" */
	char *func; /* kernel symbol as in kallsyms (may carry .isra.N), user symbol name */
	char *path; /* UFUNC/USDT: the file to attach to (through /proc/PID/root when pid set) */
	uint64_t offset; /* UFUNC: file offset of the function */
	char *category;	 /* TRACEPOINT/SYSCALL: tracepoint category and event */
	char *event;
	char *usdt_provider; /* USDT */
	char *usdt_name;
	pid_t pid; /* UFUNC/USDT: the uprobe exists in this process only (-p); 0: everywhere */
	/*
	 * KFUNC named by a fixed list, not by bt_targets__resolve() (which gives an exact name
	 * every copy as a target of its own): the function's compiler copies ("vfs_rmdir.part.0")
	 * are attached too, under this target's index, since the callers the compiler split it
	 * for call the copy instead (bt_kfunc_copies()).
	 */
	bool copies;
};

struct bt_targets {
	struct bt_target *v;
	size_t n;
};

struct bt_resolve_opts {
	pid_t pid;	   /* 0: system-wide; else resolve libraries through /proc/PID/maps */
	bool regex;	   /* pattern is a POSIX ERE, not a glob */
	size_t max_probes; /* 0: default 1000 (--max-probes) */
};

/*
 * Expand a spec into targets (deduplicated: several symbols at one address attach once).
 * Returns the number of targets (> 0), or -errno after printing one line: -BT_EUSAGE for bad
 * input (bad regex, unknown library), -ENOENT for "nothing matched", -E2BIG over the limit.
 */
int bt_targets__resolve(const struct bt_probe_spec *spec, const struct bt_resolve_opts *opts,
			struct bt_targets *out);
void bt_targets__free(struct bt_targets *t); /* NULL is fine */
/*
 * Append a return copy (retprobe set) of each of the n targets, so that target n + i returns
 * from target i (lib/attach/bt_calls.h); a syscall's return is its sys_exit_NAME tracepoint. 0 or
 * -ENOMEM; the list stays valid for __free().
 */
int bt_targets__add_returns(struct bt_targets *t);

/*
 * Rows by name over the first n targets (funccount's and funclatency's): a kernel function and
 * its compiler copies ("foo.isra.0"), a user function defined twice, print as one row, named
 * by its lowest index: row_of[i]. by_name: rows in name order (funccount's), else in the order
 * of that index. init: 0 or -ENOMEM; free: also of a zeroed struct.
 */
struct bt_target_rows {
	const char *spec; /* as given: the exporter's label */
	const struct bt_targets *targets;
	size_t n;
	size_t *row_of;
	bool by_name;
};
int bt_target_rows__init(struct bt_target_rows *r, const struct bt_targets *t, size_t n);
void bt_target_rows__free(struct bt_target_rows *r);
const char *bt_target_rows__name(const struct bt_target_rows *r, size_t target);

/*
 * For a run state that begins with its struct bt_target_rows, whose keys begin with the
 * target's __u32 index: keys of one row equal (in the rows' order), as bt_summary's cmp and
 * the exporter's; and the exporter's collector labels (spec, function) and every row at 0
 * (lib/output/bt_collector.h).
 */
struct bt_labels;
struct bt_keys;
int bt_target_rows_cmp(const void *a, const void *b, void *run);
void bt_target_rows_label(void *run, const void *key, struct bt_labels *l);
int bt_target_rows_zeros(void *run, struct bt_keys *k);
/*
 * A pattern tool's collector's series (struct bt_collector's fields): a series per function of
 * the spec, labelled spec and function, its copies merged in the order cmp_fn gives, every
 * one at 0 from the start.
 */
#define BT_TARGET_ROWS_SERIES(cmp_fn)                                                   \
	.labels = { "spec", "function" }, .label = bt_target_rows_label, .cmp = cmp_fn, \
	.merge = true, .zeros = bt_target_rows_zeros

/* How kernel functions are attached: --attach=auto|fentry|kprobe on every such command. */
enum bt_attach_mode {
	BT_ATTACH_AUTO,
	BT_ATTACH_FENTRY,
	BT_ATTACH_KPROBE,
};
int bt_attach_mode_parse(const char *s, enum bt_attach_mode *mode); /* -BT_EUSAGE if bad */
const char *bt_attach_mode_name(enum bt_attach_mode mode);

/*
 * The generic programs a command's skeleton offers, one per mechanism; NULL where the command
 * does not support it. Declare them with SEC("?fentry/...") etc. ('?' = not autoloaded) so the
 * attach layer enables exactly the ones it uses. Each target gets an index (its position in
 * struct bt_targets); the program recovers it with bt_target_index() from
 * probes/bt_attach.bpf.h (the attach cookie). bt_attach_progs__find() (lib/attach/bt_trace.h)
 * fills this from a skeleton's '?' sections.
 */
struct bt_attach_progs {
	struct bpf_program *fentry, *fexit;
	struct bpf_program *kprobe, *kretprobe;
	struct bpf_program *kprobe_multi, *kretprobe_multi;
	struct bpf_program *uprobe, *uretprobe;
	struct bpf_program *tracepoint;
	/*
	 * SEC("?tracepoint/return"), optional: for sys_exit_NAME. A program reading the exit
	 * record's ret cannot attach to a sys_enter_NAME whose record is shorter (a syscall with
	 * no arguments): the kernel checks the program's furthest context read against each
	 * tracepoint's record size.
	 */
	struct bpf_program *tracepoint_ret;
	struct bpf_program *usdt;
	/*
	 * SEC("?tp_btf/sys_enter") and SEC("?tp_btf/sys_exit"), optional: every syscall: target
	 * (and t:syscalls:sys_enter_NAME) of a direction through one link on the raw tracepoint,
	 * the program finding its target by the system call's number (bt_syscall_enter_index()
	 * in probes/bt_attach.bpf.h). The kernel removes a perf-event tracepoint in ~75 ms, one
	 * at a time: 27 s for 360 syscalls.
	 */
	struct bpf_program *sys_enter, *sys_exit;
	/*
	 * SEC("?raw_tracepoint"), optional (libbpf's other name for raw_tp: SEC("?raw_tp") programs
	 * are the tools' own, bt_on_exec for one): each other tracepoint through a raw_tp link carrying the
	 * cookie (6.10+), removed in ~0.2 ms; tracepoints it cannot take fall back to
	 * the perf-event program above.
	 */
	struct bpf_program *raw_tp;
	/*
	 * SEC("?uprobe.session"), optional: one program for a user function's entry and return
	 * (6.13+), which then has one link instead of two. It runs with the entry target's index
	 * and tells the two apart itself (at the entry, PT_REGS_IP() == bpf_get_func_ip()); it
	 * returns 0 at the entry to be run at the return, 1 not to be. Used for an entry and a
	 * return target of the same function, file and pid; the return target has no link.
	 */
	struct bpf_program *usession;
};

struct bt_attach; /* the chosen modes and, after commit, every link */

/*
 * Before load: decide per target how it will be attached (trying fentry for real once per
 * run, then kprobe, then for syscall: names the syscalls tracepoints), enable the programs
 * that will be used and set fentry targets. On failure prints one line saying what was tried
 * and why each failed ("kernel built without kprobes", "fentry refused (EPERM; lockdown:
 * confidentiality)", "function is not traceable (inlined, notrace, or blacklisted)").
 */
int bt_attach__prepare(struct bpf_object *obj, const struct bt_attach_progs *progs,
		       const struct bt_targets *targets, enum bt_attach_mode mode,
		       struct bt_attach **out);
/* After load: attach every target; progress on a terminal past 100 links. */
int bt_attach__commit(struct bt_attach *a);
/*
 * How target i was attached: "fentry", "kprobe", "kprobe.multi", "uprobe", "tracepoint", "raw_tp",
 * "raw syscall tracepoint", "usdt";
 * a kernel return target by its return form ("fexit", "kretprobe", "kretprobe.multi").
 */
const char *bt_attach__how(const struct bt_attach *a, size_t i);
/* Detach everything (also removes legacy tracefs probe events). NULL is fine. */
void bt_attach__destroy(struct bt_attach *a);

#endif
