/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User side of probes/bt_stack.bpf.h: sizing the stack map, generations (so a count is never
 * paired with a stack freed in between), reading stacks, printing one (multi-line, JSON; a
 * folded line is a row's, lib/stacks/bt_stack_row.h), the lost-stack report, and noting processes
 * as the kernel announces them so that their frames keep their names after they exit.
 *
 * One cycle of generations (bt_stacks__cycle()), an interval tool's at each output, a
 * per-event tool's on a tick:
 *	bt_stacks__flip(st);                        // programs now write the next generation
 *	hold(...);                                  // stacks still in use past it (calls in flight)
 *	consume(...);                               // bt_stacks__drain(st, counts_fd, ...) of the
 *	                                            // closed one's counts, or the queued events
 *	bt_stacks__release(st, held, n);            // free the closed generation's other stacks
 */
#ifndef BT_STACKS_H
#define BT_STACKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <bpf/libbpf.h>

#include "bt_json.h"
#include "bt_loop.h"
#include "bt_stack.h"
#include "bt_sym.h"
#include "bt_unwinder.h"

struct bt_stacks;

/*
 * Stacks are printed for a process reference: BT_PROC(pid, cookie) of probes/bt_stack.h for a
 * user stack (the cookie the count was recorded with tells a process from another that has
 * the pid before or after it; a plain pid means whichever has it), BT_PID_KERNEL for a kernel
 * stack.
 */
static inline int bt_proc_pid(uint64_t proc)
{
	return (int)(uint32_t)proc;
}

/*
 * The most --stack-storage-size takes. The kernel preallocates every entry when the map is
 * made (~0.5 KiB each, short and deep entries together), and that is what a run waits for
 * before tracing: offcputime 1 took 1.15 s at 16,384, 1.9 s at 1,048,576, 4.9 s at 4,194,304
 * and 4-20 s at 16,777,216 (the former limit, 8 GiB of kernel memory), saying nothing meanwhile.
 */
#define BT_STACK_STORAGE_MAX (1 << 20)

struct bt_stacks_opts {
	unsigned int storage_size; /* stacks stored at once (--stack-storage-size); 0: 1024 */
	bool generations;	   /* flipped while running (-i, per-event tools): room for two */
	bool user;		   /* user stacks will be symbolized: announce processes */
	bool note_running;	   /* system-wide: snapshot every running process at start */
	/*
	 * -v: user frames found by frame pointers rather than unwind tables print marked, and
	 * the unwinder's counts are reported at the end
	 */
	bool verbose;
	enum bt_unwind_mode unwind; /* --unwind (bt_argp_unwind); 0: auto */
	struct bt_sym_opts sym;
};

/*
 * Before load: size the stack map and switch process announcements on. -ECANCELED when it
 * has said why itself (--unwind=dwarf where the walker cannot run); other errors are the
 * caller's to report.
 */
int bt_stacks__configure(struct bpf_object *obj, const struct bt_stacks_opts *opts);
/* After load. */
int bt_stacks__new(struct bpf_object *obj, const struct bt_stacks_opts *opts,
		   struct bt_stacks **out);
void bt_stacks__free(struct bt_stacks *st); /* NULL is fine */

/* The descriptor to wait on for process announcements, and its handler for the loop. */
int bt_stacks__fd(const struct bt_stacks *st);
int bt_stacks__poll(void *st);

struct bt_symbolizer *bt_stacks__symbolizer(struct bt_stacks *st);

/*
 * Processes exit while a tool traces; their snapshots are kept until the output that may name
 * them is out. A tool that releases generations (bt_stacks__release) frees them there. A tool
 * that prints only at the end gives a collector: called from bt_stacks__poll() when many
 * exited processes wait, it drains what is counted so far into the tool's own summary (named
 * now), after which those processes are freed. It returns 0 or -errno.
 */
typedef int (*bt_stacks_collect_fn)(void *ctx);
void bt_stacks__set_collector(struct bt_stacks *st, bt_stacks_collect_fn fn, void *ctx);

/*
 * Snapshot a process known in advance (-p) now, rather than at its first event: a process
 * that exits within microseconds of that event would otherwise be gone before user space
 * reads the announcement.
 */
int bt_stacks__note_pid(struct bt_stacks *st, int pid);
/*
 * Build the unwind table of a file known in advance (a probe's file), so that a process
 * started later walks whole from its first event. 0 when user stacks go by frame pointers.
 */
int bt_stacks__index_file(struct bt_stacks *st, const char *path);
/*
 * Wait until the processes running at bt_stacks__new() (note_running) are indexed, so that
 * their user stacks walk whole from the first sample rather than partly by frame pointers:
 * for a one-shot profile, before its sampling starts. Nothing to wait for without the
 * unwinder. max_ms at most: -ETIMEDOUT, and the rest walk partly until indexed.
 */
int bt_stacks__wait_indexed(struct bt_stacks *st, unsigned int max_ms);
/*
 * Index the running processes the unwinder has no table of (started, or exec()ed, since the
 * last scan), in the background as at bt_stacks__new(): a kept profile's next seconds walk
 * them whole from the first sample too. bt_stacks__wait_indexed() waits for it.
 */
int bt_stacks__index_new(struct bt_stacks *st);
/*
 * Nothing names an exited process any more (a kept profile between its runs: its counts
 * are drained and written): their snapshots are freed now, not at a later collection, and
 * with them the files (and symbols) no running process maps.
 */
void bt_stacks__release_exited(struct bt_stacks *st);
/* The unwinder has used over half its table ids or bytes (bt_unwind__half_spent()). */
bool bt_stacks__unwind_half_spent(struct bt_stacks *st);
/* Every entry of the hash map fd (keys of key_size) deleted: a kept run's tables emptied. */
int bt_stacks__empty_map(int fd, size_t key_size);

/*
 * Close the current generation: programs write the other one from now on, and when this
 * returns no program still writes the closed one (an RCU grace period has passed). Returns
 * the closed generation (0 or 1), or -errno.
 */
int bt_stacks__flip(struct bt_stacks *st);

/*
 * Read and delete every entry of a tool's hash map whose key holds the closed generation
 * (a __u32 at gen_offset in the key), calling fn(ctx, key, value) for each. Values are read
 * whole (value_size bytes; a per-CPU map's value is value_size * possible CPUs).
 */
typedef int (*bt_stacks_entry_fn)(void *ctx, const void *key, const void *value);
int bt_stacks__drain(struct bt_stacks *st, int map_fd, size_t key_size, size_t value_size,
		     size_t gen_offset, bt_stacks_entry_fn fn, void *ctx);

/* Free the closed generation's stacks, except the ids in held[0..nheld) (still in use). */
int bt_stacks__release(struct bt_stacks *st, const uint64_t *held, size_t nheld);

/* Stack ids still in use past a release, a growing list (free ids when done). */
struct bt_stacks_held {
	uint64_t *ids;
	size_t n, cap;
};
/* Add id when it names a stored stack (none and lost ones hold nothing). 0 or -ENOMEM. */
int bt_stacks__hold(struct bt_stacks_held *held, uint64_t id);
/*
 * fn(ctx, key, value, held) for each entry of the hash map fd (keys of key_size, values of
 * value_size), to hold the stacks it names. 0, or the first error (fn's or -errno).
 */
typedef int (*bt_stacks_hold_entry_fn)(void *ctx, const void *key, const void *value,
				       struct bt_stacks_held *held);
int bt_stacks__hold_entries(struct bt_stacks_held *held, int fd, size_t key_size, size_t value_size,
			    bt_stacks_hold_entry_fn fn, void *ctx);

/*
 * One generation cycle: flip, then hold(hold_ctx, held) notes the stacks still in use (NULL:
 * none), consume(consume_ctx) reads everything that may name the closed generation's stacks,
 * and the closed generation's stacks but the held ones are released. Returns
 * 0, a positive value consume() returned (then nothing is released), or -errno.
 */
struct bt_stacks_cycle {
	int (*hold)(void *ctx, struct bt_stacks_held *held);
	void *hold_ctx;
	int (*consume)(void *ctx);
	void *consume_ctx;
};
int bt_stacks__cycle(struct bt_stacks *st, const struct bt_stacks_cycle *c);

/*
 * A per-event tool's stacks on its run (stacksnoop, funcslower; lib/run/bt_evrun.h), before
 * bt_evrun__open(): process announcements read before the events, woken by their own
 * descriptor too (a process is snapshotted before its event is printed), and every second a
 * generation cycle whose consume step prints every event queued; hold (NULL: none) notes the
 * stacks still in use past it (those of calls in flight).
 */
struct bt_evrun;
void bt_stacks__follow_run(struct bt_stacks *st, struct bt_evrun *r,
			   int (*hold)(void *ctx, struct bt_stacks_held *held), void *hold_ctx);
/*
 * An interval tool's loop (lib/run/bt_loop.h) with the process announcements read as they
 * come, between its outputs: bt_interval_loop_poll() on bt_stacks__fd().
 */
int bt_stacks__interval_loop(struct bt_stacks *st, const struct bt_interval *iv, bt_print_fn print,
			     void *ctx);

/*
 * Copy the stack id's addresses (leaf first) into ips[BT_MAX_STACK_DEPTH]; returns the count,
 * 0 for BT_STACK_NONE, -ENOENT for a lost or freed stack. entry_caller, when not 0, is the
 * return address read at a probe on a function's first instruction, where the frame-pointer
 * walk skips the immediate caller: it goes in second.
 */
int bt_stacks__get(struct bt_stacks *st, uint64_t id, uint64_t entry_caller, uint64_t *ips);

/*
 * Put caller, the return address read at a function's first instruction, second in ips[0..n)
 * (leaf first, room for BT_MAX_STACK_DEPTH): the frame-pointer walk cannot see it yet there.
 * Nothing changes when caller is 0 or already second; a full stack loses its outermost frame.
 * Returns the new count.
 */
int bt_stack_splice_caller(uint64_t *ips, int n, uint64_t caller);

/*
 * Resolve a stack (from bt_stacks__get) into frames, leaf first; pid BT_PID_KERNEL for kernel
 * stacks (tracing artefacts at the top trimmed). frames must hold
 * BT_MAX_STACK_DEPTH * (1 + BT_SYM_MAX_INLINE). Returns the number of frames.
 */
int bt_stacks__resolve(struct bt_stacks *st, uint64_t proc, const uint64_t *ips, int n,
		       struct bt_frame *frames);

/*
 * The resolved frames of a stack id, leaf first, in *frames until the next call on st.
 * Returns their number, 0 for BT_STACK_NONE, -ENOENT for a lost or freed stack.
 */
int bt_stacks__frames(struct bt_stacks *st, uint64_t proc, uint64_t id, uint64_t caller,
		      const struct bt_frame **frames);

/*
 * Printing one stack, kernel (pid BT_PID_KERNEL) or user. A lost stack prints as BCC prints
 * it, "[Missed Kernel Stack]" / "[Missed User Stack]"; BT_STACK_NONE prints nothing. Each
 * returns the number of frames printed (the placeholder counts as one).
 */
struct bt_stack_style {
	const char *indent; /* multi-line: before each frame ("  ", "    ", "\t") */
	unsigned int fmt;   /* BT_FMT_* of symbolize/bt_sym.h */
	bool addresses;	    /* multi-line: the raw address in a column before the name (-v) */
	bool root_first;    /* outermost caller first */
	bool annotate;	    /* kernel frames end in "_[k]" (BCC profile's -a) */
};
int bt_stacks__print(struct bt_stacks *st, FILE *out, const struct bt_stack_style *style,
		     uint64_t proc, uint64_t id, uint64_t caller);
/* An array member `key` of frames {name, offset, module, inlined, address}, leaf first. */
int bt_stacks__json(struct bt_stacks *st, struct bt_json *j, const char *key,
		    const struct bt_stack_style *style, uint64_t proc, uint64_t id,
		    uint64_t caller);

/* Print "N stacks lost; raise --stack-storage-size" (and why) to stderr when any were lost. */
void bt_stacks__report_lost(struct bt_stacks *st);
/*
 * What bt_stacks__report_lost() says back to nothing (stacks lost, freed early, processes
 * not announced in time, partly walked): a kept run's profiles each warn of their own, not
 * of all since the first.
 */
void bt_stacks__reset_counts(struct bt_stacks *st);
/* Stacks lost so far (full map or failed capture), for tests and JSON summaries. */
unsigned long long bt_stacks__lost(struct bt_stacks *st);

#endif
