/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Between a skeleton's open and load: choose which declared programs load (struct bt_probe),
 * and set the filters every probe shares (probes/bt_common.bpf.h) in read-only data.
 */
#ifndef BT_SKEL_H
#define BT_SKEL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <bpf/libbpf.h>

#include "bt_cmd.h"
#include "bt_core_btf.h"
#include "bt_kernel.h"
#include "bt_rodata.h"
#include "bt_vmlinux_btf.h"

/*
 * After NAME_bpf__open*(): 0 when skel is open, else -errno after the one line every command
 * prints ("cannot open the BPF object: ...").
 */
int bt_skel_opened(const void *skel);

/*
 * Open command NAME's skeleton (build/gen/NAME.skel.h) into *skelp, CO-RE against the small
 * BTF cached per kernel (lib/kernel/bt_core_btf): 0, or -errno after one line. A kernel
 * without BTF and no --btf file is that line (bt_vmlinux_btf_check), before libbpf tries.
 */
#define BT_SKEL_OPEN(name, skelp)                                    \
	(*(skelp) = NULL,                                            \
	 bt_vmlinux_btf_check()                                      \
		 ?: bt_skel_opened(*(skelp) = name##_bpf__open_opts( \
					   bt_core_btf_open_opts(name##_bpf__elf_bytes))))
/* The same, CO-RE against the kernel's whole BTF: for bpf_core_type_id_kernel()'s own ids. */
#define BT_SKEL_OPEN_WHOLE_BTF(name, skelp) \
	(*(skelp) = NULL,                   \
	 bt_vmlinux_btf_check()             \
		 ?: bt_skel_opened(*(skelp) = name##_bpf__open_opts(bt_core_btf_whole_opts())))
/*
 * The same for an object built twice (cmake: bt_bpf_skeleton_nokfuncs(NAME)): on a kernel
 * without BTF, the build without kfuncs (BT_NO_KFUNCS, gen/NAME_nokfuncs.skel.h) opened into
 * NAME's skeleton. A kfunc's extern alone has libbpf load the kernel's own BTF at load, where
 * --btf cannot stand in ("failed to find valid kernel BTF"); such a kernel has no kfuncs to
 * call anyway. The build checks that both skeletons have the same programs, maps and data.
 */
#define BT_SKEL_OPEN_WHOLE_BTF_NOKFUNCS(name, skelp)                                             \
	(*(skelp) = NULL,                                                                        \
	 bt_vmlinux_btf_check()                                                                  \
		 ?: bt_kernel_has_btf()                                                          \
		    ? bt_skel_opened(*(skelp) = name##_bpf__open_opts(bt_core_btf_whole_opts())) \
		    : (*(skelp) = calloc(1, sizeof(**(skelp))),                                  \
		       bt_skel_opened(                                                           \
			       *(skelp) = bt_skel_open_bytes(                                    \
				       *(skelp),                                                 \
				       *(skelp) ? name##_bpf__create_skeleton(*(skelp)) : 0,     \
				       *(skelp) ? &(*(skelp))->skeleton : NULL,                  \
				       name##_nokfuncs_bpf__elf_bytes,                           \
				       bt_core_btf_whole_opts()))))

/*
 * NAME_bpf__open_opts() from other bytes than the skeleton's own: skel is NAME's struct (NULL:
 * out of memory), err what NAME_bpf__create_skeleton(skel) returned, *s the skeleton it made.
 * Returns skel opened from elf_bytes' object, else NULL with errno set and skel freed.
 */
void *bt_skel_open_bytes(void *skel, int err, struct bpf_object_skeleton **s,
			 const void *(*elf_bytes)(size_t *size),
			 const struct bpf_object_open_opts *opts);
/*
 * What NAME_bpf__destroy(skel) does, for a caller holding a skeleton of any command's: s is its
 * ->skeleton. skel may be NULL.
 */
void bt_skel_destroy(void *skel, struct bpf_object_skeleton *s);

/*
 * For each probe, keep 'prog' when the kernel can take it, else its fallback. Returns 0, or
 * -EOPNOTSUPP after printing which probe has no usable form.
 */
int bt_skel_select(struct bpf_object *obj, const struct bt_probe *probes);

/* Whether the kernel can load this program as declared (tp_btf, fentry, ...). */
bool bt_prog_usable(const struct bpf_program *prog);

/*
 * Filters applied in the kernel; -1 / 0 / false / NULL mean "none", so an unset field (and
 * every field BT_FILTERS_NONE does not name) filters nothing.
 */
struct bt_filters {
	int cpu;     /* -1: all CPUs */
	int tgid;    /* 0: all processes */
	int tid;     /* 0: all threads */
	bool by_uid; /* only tasks whose real uid is uid */
	unsigned int uid;
	const char *comm;      /* 1 to 15 bytes: tasks whose comm contains it (BCC's -n) ... */
	bool comm_exact;       /* ... or is exactly it */
	const char *cgroup;    /* a cgroup v2 directory: tasks in it or below it */
	const char *cgroupmap; /* a pinned BPF hash keyed by cgroup v2 id (BCC --cgroupmap) */
	const char *mntnsmap;  /* a pinned BPF hash keyed by mount namespace id (--mntnsmap) */
	/*
	 * Leave out our own process (all its threads): set by the tools that print each event,
	 * whose output's write()s would be traced and print more rows, without end. Nothing
	 * to do with tgid or tid set (they already leave us out, unless they name us).
	 */
	bool not_self;
};
#define BT_FILTERS_NONE   \
	{                 \
		.cpu = -1 \
	}

/*
 * Before load: write the set filters into the object's .rodata variables (bt_filter_cpu, ...,
 * probes/bt_common.bpf.h) and put the pinned maps in place of bt_cgroupmap / bt_mntnsmap.
 * Returns -EOPNOTSUPP when a filter is set but the program has no such variable, -BT_EUSAGE
 * after one line when a path names no cgroup v2 directory or no suitable pinned map.
 */
int bt_filters_apply(struct bpf_object *obj, const struct bt_filters *f);

/*
 * Load the skeleton's programs, maps made to fit this kernel first (a map asked to allocate as
 * keys appear is preallocated before 6.1). One line on failure; 0 or -errno.
 */
int bt_skel_load(struct bpf_object_skeleton *s);
/*
 * Part of bt_skel_load(), before it: where a .rodata switch turns a feature off (the
 * user-stack walker, bt_unwind_on), the programs to load call none of its functions
 * (lib/attach/bt_skel.c says why). 0 or -errno.
 */
int bt_skel_drop_calls(struct bpf_object_skeleton *s);

/*
 * Load the skeleton's programs and attach them: what every command does once its options
 * are in the object. One line on failure ("cannot load the BPF programs", "cannot attach to
 * WHAT"); 0 or -errno.
 */
int bt_skel_load_attach(struct bpf_object_skeleton *s, const char *what);

/*
 * From an opened skeleton whose own read-only data is set to tracing, for a command with no
 * step of its own between choosing its programs and loading them: the filters written
 * (bt_filters_apply), the programs chosen (bt_skel_select, probes), loaded and attached
 * (bt_skel_load_attach, what for the message). 0 or -errno, said on stderr where those say it.
 */
int bt_skel_start(struct bpf_object_skeleton *s, const struct bt_filters *f,
		  const struct bt_probe *probes, const char *what);

/*
 * How many times the kernel skipped a loaded program of the object because it was already
 * running on that CPU (bpf_prog_info.recursion_misses, 5.12+; 0 before): a completion
 * interrupting a completion in process context, for one. Each skip is an event not seen.
 */
unsigned long long bt_skel_recursion_misses(struct bpf_object *obj);

/*
 * Detach every link of an attached skeleton, all at once: closing a classic tracepoint's perf
 * event waits for an RCU grace period (~50 ms here), and closes in parallel share one. Call
 * before NAME_bpf__destroy(), which then has nothing left to detach.
 */
void bt_skel_detach(struct bpf_object_skeleton *s);

/*
 * A cgroup v2 directory's id (what bpf_get_current_cgroup_id() returns in it) and its depth
 * below the root cgroup (for bpf_get_current_ancestor_cgroup_id()); *level is
 * BT_CGROUP_LEVEL_UNKNOWN when the root is out of sight (a cgroup namespace). 0 or -errno;
 * -ENOTDIR for a path outside cgroup v2.
 */
#define BT_CGROUP_LEVEL_UNKNOWN 0xffffffffu
int bt_cgroup_id(const char *path, uint64_t *id, unsigned int *level);

#endif
