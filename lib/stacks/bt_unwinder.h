/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User stacks without frame pointers (docs/unwind.md): loads the unwind tables of
 * symbolize/bt_unwind_table.h into the maps of probes/bt_unwind.bpf.h and keeps, per traced
 * process, the kernel's table of its executable mappings. Tables are cached by file and by
 * build-id, built once and shared by every process that maps the file.
 *
 * lib/stacks/bt_stacks.c drives it: a tool adds --unwind (bt_argp_unwind, lib/cli/bt_args.h) to its
 * options and passes the choice in struct bt_stacks_opts.unwind.
 */
#ifndef BT_UNWINDER_H
#define BT_UNWINDER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <bpf/libbpf.h>

/* The end of user address space: probes/bt_arch.bpf.h's BT_USER_TOP (47 bits, arm64 48) */
#if defined(__aarch64__)
#define BT_UNWIND_USER_TOP 0x1000000000000ULL
#else
#define BT_UNWIND_USER_TOP 0x800000000000ULL
#endif

enum bt_unwind_mode {
	BT_UNWIND_AUTO,	 /* tables where the kernel and the binary allow, else frame pointers */
	BT_UNWIND_FP,	 /* frame pointers only (bpf_get_stack) */
	BT_UNWIND_DWARF, /* tables; an error when the kernel cannot run the unwinder */
	/*
	 * A flag beside the mode, --no-python: the evaluator's frames stay native (docs/python.md).
	 * With the mode in one variable, every tool that has --unwind has it, and no command
	 * declares more
	 */
	BT_UNWIND_NO_PYTHON = 0x10,
};
#define BT_UNWIND_MODE(m) ((enum bt_unwind_mode)((m)&0xf))

struct bt_feature;
/*
 * 0 when this kernel can run the unwinder, else -errno with why[] saying what is missing:
 * -ENOSYS when it lacks helpers the walker calls (all of them named), -EOPNOTSUPP for this
 * build's architecture or no array-of-maps, the load's error when the verifier refuses it.
 */
int bt_unwind_kernel_ok(char *why, size_t len);
/*
 * The same as a facility of `bpftools features` ("unwinder"), checked on first call. Kept here
 * rather than in lib/kernel/bt_features.h, which knows the kernel only: the check loads the walker.
 */
const struct bt_feature *bt_unwind_feature(void);

struct bt_unwind;

struct bt_unwind_opts {
	enum bt_unwind_mode mode;
	bool marks;		 /* mark frames found by frame pointers (-v) */
	bool python;		 /* Python frames where CPython's evaluator runs */
	unsigned int max_procs;	 /* processes with a mapping table at once; 0: 4096 */
	unsigned int max_tables; /* files with a table; 0: 1024 */
	unsigned long max_bytes; /* all tables together; 0: 64 MiB */
};

/*
 * Before load: switch the walker on or off and size its maps. *on says whether it is on (off
 * for --unwind=fp, or auto on a kernel without what it needs, which it says once when the
 * kernel lacks helpers). -ECANCELED for dwarf on such a kernel, the reason printed: the
 * caller says nothing more.
 */
int bt_unwind__configure(struct bpf_object *obj, const struct bt_unwind_opts *opts, bool *on);
/* After load, when it is on. */
int bt_unwind__new(struct bpf_object *obj, const struct bt_unwind_opts *opts,
		   struct bt_unwind **out);
void bt_unwind__free(struct bt_unwind *u); /* NULL is fine; waits for the indexing thread */

/*
 * Build the table of a file before processes that map it are seen: the walker finds it by the
 * file (bpf_find_vma) in a process not indexed yet. 0, or -errno (-ENOENT: no table).
 */
int bt_unwind__index_file(struct bt_unwind *u, const char *path);
/* Give the kernel pid's mapping table (tables built or found in the cache). */
int bt_unwind__note_pid(struct bt_unwind *u, int pid);
/* The same in the background (for the event loop: no wait for a table to be built). */
int bt_unwind__queue_pid(struct bt_unwind *u, int pid);
/*
 * A stack the walker sent to be unwound here (struct bt_stack_sample of probes/bt_stack.h,
 * from bt_new_pids): unwound once its process is indexed. 0 or -errno.
 */
int bt_unwind__sample(struct bt_unwind *u, const void *data, size_t size);
/*
 * The frames of a deferred stack id into ips[BT_MAX_STACK_DEPTH]: their number, or 0 with
 * *fallback the stored stack to print instead (the walker's own, partly by frame pointers),
 * -ENOENT for an id not received. A process the worker has not indexed yet is indexed on the
 * spot; -EAGAIN (*fallback set) when that fails: the process (*pid, started at *start_ns) is
 * gone, bt_unwind__note_gone() may still unwind it.
 */
int bt_unwind__sample_frames(struct bt_unwind *u, uint64_t id, uint64_t *ips, uint64_t *fallback,
			     int *pid, uint64_t *start_ns);
/*
 * Forget generation gen's deferred stacks but held[0..nheld) (sorted); *keep (malloc'ed) lists
 * the stored stacks the held ones fall back on, to be kept as well.
 */
int bt_unwind__release_samples(struct bt_unwind *u, unsigned int gen, const uint64_t *held,
			       size_t nheld, uint64_t **keep, size_t *nkeep);
/*
 * pid (started at start_ns) is gone before it could be indexed: its stacks waiting are unwound
 * through maps[0..n), its executable mappings as logged when they were made (lib/stacks/bt_mmap_log.h).
 */
struct bt_sym_mapping;
/* Whether stacks of pid wait for it to be indexed. */
bool bt_unwind__waiting_for(struct bt_unwind *u, int pid);
void bt_unwind__note_gone(struct bt_unwind *u, int pid, uint64_t start_ns,
			  const struct bt_sym_mapping *maps, size_t n);
/*
 * pid exited or exec()ed, partial of its stacks left partly walked by frame pointers (the
 * kernel's count of those it did not send): for the report at the end.
 */
void bt_unwind__exited(struct bt_unwind *u, int pid, unsigned int partial);
/* "pid P: N, ..., K more processes": the processes whose stacks stayed partly walked. */
void bt_unwind__partial_report(struct bt_unwind *u, char *buf, size_t len);
/*
 * The walker's counters, the running processes' stacks partly walked and the store's counts
 * back to 0: a kept run reports each profile's own (the tables and their figures stay).
 */
void bt_unwind__reset_counts(struct bt_unwind *u);
/*
 * Whether over half of the table ids (max_tables) or of the bytes (max_bytes) are used. An id
 * is never reused and a table never freed, however long ago its file's last process exited:
 * a caller that keeps one walker for long (the exporter's kept profiles) builds a new one
 * past this, or files met later would be walked by frame pointers only.
 */
bool bt_unwind__half_spent(struct bt_unwind *u);
/* pid exec()ed or exited (exited): its mapping table is stale. */
void bt_unwind__forget_pid(struct bt_unwind *u, int pid, bool exited);
/*
 * Index every running process in a background thread: start-up stays fast, and until a
 * process is indexed its stacks are walked with frame pointers (and counted).
 */
int bt_unwind__index_running(struct bt_unwind *u);
/*
 * The same scan for the processes without a mapping table only (the kernel drops a process's
 * at its exec and exit): those started since the last scan, for a walker kept loaded.
 */
int bt_unwind__index_new(struct bt_unwind *u);
/*
 * Wait until the background indexing has nothing left to do, max_ms at most (then
 * -ETIMEDOUT). While someone waits, the scan runs at the caller's priority, not below it.
 */
int bt_unwind__wait_indexed(struct bt_unwind *u, unsigned int max_ms);

struct bt_unwind_counts {
	unsigned long long stacks, not_indexed, frames_table, frames_fp, truncated;
	unsigned long long asked;   /* requests from the walker to index a process (again) */
	unsigned long long by_file; /* mappings the walker found by file (bpf_find_vma) */
	unsigned long long
		find_vma;	    /* of the walker's lookups by file, those asked of the kernel */
	unsigned long long at_exec; /* mappings found by file at an exec, before any walk */
	unsigned long long tables, table_bytes, files_without, procs;
	/* stacks sent to be unwound in user space (not indexed yet), and those unwound whole */
	unsigned long long deferred, deferred_unwound;
	unsigned long long partial; /* stacks left partly walked after all */
	unsigned long long memo;    /* stacks the same as the thread's walk before: not walked */
	/* stacks not sent to be unwound later: the process's quota, the ring's room, unreadable */
	unsigned long long kept_quota, kept_ring, kept_read;
	/* Python frames written, and evaluator frames whose Python frames could not be read */
	unsigned long long py_frames, py_unread;
};
void bt_unwind__counts(struct bt_unwind *u, struct bt_unwind_counts *c);
/* One "unwind: ..." line of the counts (for -v). */
void bt_unwind__report(struct bt_unwind *u, FILE *out);

/*
 * The pages of a table of nr rows laid out as probes/bt_unwind_maps.h says: fills levels and
 * level_first of info and returns the page count, or 0 when nr is 0 or too large. Exposed for
 * the unit tests.
 */
struct bt_unwind_info;
struct bt_unwind_page;
struct bt_unwind_row;
unsigned int bt_unwind_layout(size_t nr, struct bt_unwind_info *info);
/* Fill pages[0..count) (zeroed by the caller) from rows[0..nr). */
void bt_unwind_fill(const struct bt_unwind_row *rows, size_t nr, const struct bt_unwind_info *info,
		    struct bt_unwind_page *pages, unsigned int count);

/*
 * A process's executable mappings all[0..n) (sorted by start; table 0: none) into proc, at most
 * BT_UNWIND_MAX_MAPPINGS: neighbours without a table merge, and those without a table are left
 * out first. all[] is rewritten. Exposed for the unit tests.
 */
struct bt_unwind_mapping;
struct bt_unwind_proc;
void bt_unwind_fit_mappings(struct bt_unwind_mapping *all, unsigned int n,
			    struct bt_unwind_proc *proc);

#endif
