/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The command descriptor. Every command is one `BT_COMMAND(name)` in cmd/NAME.c and one line
 * in cmd/commands.def; dispatch, --list, the install links, completion, the docs and the meta
 * tests are all derived from the list of descriptors, so nothing can drift.
 */
#ifndef BT_CMD_H
#define BT_CMD_H

#include <argp.h>
#include <stddef.h>
#include <stdio.h>

/* Preconditions main() checks before run() (help and usage never need them). */
enum bt_cmd_flags {
	BT_NEED_PRIV = 1 << 0, /* root, or CAP_BPF + CAP_PERFMON */
	/*
	 * Not one of BCC's tools ("features"): `bpftools --install DIR` makes no link of its
	 * name, which no tool should claim in a system directory (bpftools' own directory of
	 * links, lib/bpftools/bin, has it).
	 */
	BT_NO_LINK = 1 << 1,
};

/*
 * A BPF program a command wants attached, and the program to use instead when the kernel
 * cannot take it (tp_btf -> raw_tp, fentry -> kprobe). The attach layer picks one of the two
 * before the object is loaded; programs not named here are left as the skeleton has them.
 *
 * Where the probe point itself differs between kernels (a tracepoint whose arguments changed,
 * a tracepoint that only newer kernels have, a function instead), the command declares each
 * form as one entry: 'sig' is the kernel signature both programs were written for, checked
 * against the kernel's BTF, and BT_PROBE_ALT marks an entry as an alternative to the one
 * before. The first usable program of the group wins; the others do not load. docs/attach.md.
 */
enum bt_probe_flags {
	BT_PROBE_ALT = 1 << 0,	    /* an alternative to the entry before (same group) */
	BT_PROBE_OPTIONAL = 1 << 1, /* on a group's first entry: no usable form is no error */
	/*
	 * On a group's first entry: the group loads only together with the group before it (an
	 * entry and its return: one without the other times nothing), both or neither. Both
	 * groups are optional.
	 */
	BT_PROBE_PAIRED = 1 << 2,
	/*
	 * On optional groups: at least one of the groups so marked must load, else the table
	 * fails ("this kernel has none of WHAT", the first such group's 'what').
	 */
	BT_PROBE_ANY = 1 << 3,
};

/*
 * What a program calls beyond its probe point, which kernels offer or refuse apart from it.
 * An entry whose probe point the kernel has but not one of these does not fit; when no form
 * of a group fits and one of them failed so, the table fails even if the group is optional
 * ("WHAT needs bpf_loop() (Linux 5.17) and ..."): the point is there, the tool cannot use it.
 */
enum bt_probe_needs {
	BT_NEEDS_LOOP = 1 << 0,	       /* the bpf_loop() helper, for the program's type (5.17) */
	BT_NEEDS_RDONLY_CAST = 1 << 1, /* the bpf_rdonly_cast() kfunc (6.2) */
	BT_NEEDS_KERNEL_READS =
		1 << 2, /* bpf_probe_read_kernel(): lockdown=confidentiality refuses it */
};

struct bt_probe {
	const char *prog;
	const char *fallback;
	/*
	 * The probe point's parameters as C types, comma-separated ("struct request *" for
	 * block_rq_issue since 5.11, "struct request_queue *, struct request *" before; a
	 * tracepoint's leading 'void *' is not written), "?" for any one type, "..." last for any
	 * further parameters, "void" or "" for none. NULL: any signature.
	 */
	const char *sig;
	unsigned int flags; /* enum bt_probe_flags */
	unsigned int needs; /* enum bt_probe_needs, of prog and fallback alike */
	/*
	 * On a group's first entry: the group is considered only when this program of the table
	 * (an earlier group's) loads, the rest of a mechanism following its first probe; else it
	 * does not load, and that is no error.
	 */
	const char *with;
	const char *what; /* on a group's first entry: what it gives, in messages ("-F") */
	const char *note; /* a debug line when this entry's program is the one chosen */
};

/*
 * What a command traces with, for `bpftools features` (which reports, per command, whether
 * this kernel can run it and with which mechanism). Declarative only: the attach layer still
 * decides at run time. A command using several needs them all for all its features.
 */
enum bt_cmd_uses {
	BT_USES_KFUNC = 1 << 0,	     /* kernel functions: fentry/fexit, else kprobe/kretprobe */
	BT_USES_TP_BTF = 1 << 1,     /* BTF tracepoints: tp_btf, else raw_tp */
	BT_USES_TRACEPOINT = 1 << 2, /* classic tracepoints (perf event + tracefs id) */
	BT_USES_UPROBE = 1 << 3,     /* user functions and USDT probes */
	BT_USES_PERF = 1 << 4,	     /* perf_event sampling (profile) */
	BT_USES_STACKS = 1 << 5,     /* stack trace maps */
};

/* What a command's PATTERN (a probe spec) may name: the candidates completion offers for it. */
enum bt_cmd_pattern {
	BT_PATTERN_KFUNC = 1 << 0,	/* FUNC, p::FUNC */
	BT_PATTERN_UFUNC = 1 << 1,	/* LIB:FUNC, c:FUNC, /path:FUNC */
	BT_PATTERN_TRACEPOINT = 1 << 2, /* t:CATEGORY:EVENT */
	BT_PATTERN_SYSCALL = 1 << 3,	/* syscall:NAME */
	BT_PATTERN_USDT = 1 << 4,	/* u:LIB:PROBE */
	BT_PATTERN_ANY = (1 << 5) - 1,
};

/*
 * A command's part in `bpftools exporter` (lib/output/bt_collector.h): its probes kept
 * attached with the command's defaults, its summary read as Prometheus metrics at every scrape.
 * The exporter finds collectors through the registry; `--collect NAME` names them by command.
 */
struct bt_collector;
struct bt_opt_vals;
struct bt_offcpu_pprof;

struct bt_cmd {
	const char *name;    /* the command, and the name of its symlink */
	const char *summary; /* one line: --list, completion, docs index */
	const struct argp
		*argp; /* the only option table: help, usage and completion come from it */
	void *opts;    /* the command's option struct, handed to its argp parser */
	/* where its shared options and own flags go (lib/cli/bt_args.h, bt_argp_own()); or NULL */
	const struct bt_opt_vals *vals;
	const struct bt_probe *probes; /* { NULL }-terminated, or NULL */
	/* Runs with options parsed; returns 0 or a negative errno (-BT_EUSAGE for bad input). */
	int (*run)(const struct bt_cmd *cmd);
	/*
	 * A profile of the whole machine (the exporter's /debug/pprof endpoints); NULL: none.
	 * Opens the skeleton and says how its machine-wide run goes: lib/tools/bt_offcpu_kept.h
	 * runs it, once or kept loaded between profiles. 0 or -errno. Must not touch stdout,
	 * signals or the process-wide stop flag.
	 */
	int (*pprof)(struct bt_offcpu_pprof *p);
	unsigned int flags;
	unsigned int uses;		      /* enum bt_cmd_uses; 0: not declared */
	unsigned int pattern;		      /* enum bt_cmd_pattern; 0: takes no probe spec */
	const struct bt_collector *collector; /* NULL: not in the exporter */
};

#define BT_COMMAND(n) const struct bt_cmd bt_cmd_##n

/*
 * A tracing tool's descriptor: every one needs root and names its parts alike in its file
 * (its option table `argp`, its options `opts`, its `run`), so only what is its own is
 * written: the summary, then designated initializers for the rest (vals, probes, uses,
 * pattern, collector, pprof).
 */
#define BT_TOOL_COMMAND(n, sum, ...)             \
	BT_COMMAND(n) = { .name = #n,            \
			  .summary = sum,        \
			  .argp = &argp,         \
			  .opts = &opts,         \
			  .run = run,            \
			  .flags = BT_NEED_PRIV, \
			  __VA_ARGS__ }

/* The registry, NULL-terminated, in commands.def order. */
extern const struct bt_cmd *const bt_cmds[];
const struct bt_cmd *bt_cmd_find(const char *name);

#define bt_for_each_cmd(c, i) for ((i) = 0; ((c) = bt_cmds[(i)]) != NULL; (i)++)

#endif
