/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stacks the kernel's walker could not follow yet (a process not indexed yet: its first
 * milliseconds) and sent as a copy of the top of the user stack (struct bt_stack_sample,
 * probes/bt_stack.h), unwound here once the process's tables exist, through the very tables
 * and arithmetic the walker uses: a stack unwound here has the frames the walker would have
 * given, so it prints (and merges) as one. lib/stacks/bt_unwinder.c owns the store and feeds it as
 * it indexes processes; lib/stacks/bt_stacks.c asks it for a deferred id's frames.
 */
#ifndef BT_UNWIND_SAMPLES_H
#define BT_UNWIND_SAMPLES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/types.h>
#include "bt_stack.h"

struct bt_unwind_proc;

/* How a walk of a copied stack ended. */
enum bt_unwind_walk_end {
	BT_UNWIND_WALK_DONE,	  /* the outermost frame, as the walker ends */
	BT_UNWIND_WALK_TRUNCATED, /* where the walker would have stopped short too */
	BT_UNWIND_WALK_COPY_END,  /* the copy ended before the stack did */
};

/* The rule covering pc, packed as the walker's bt_unwind_lookup(); 0 where there is none. */
typedef uint64_t (*bt_unwind_rule_fn)(void *ctx, uint64_t pc);

/*
 * Walk the copied stack of s into ips[BT_MAX_STACK_DEPTH] (leaf first, with the walker's -v
 * marks when marks is set); the number of frames, and *end says how it ended.
 */
int bt_unwind_walk_sample(const struct bt_stack_sample *s, bt_unwind_rule_fn rule, void *ctx,
			  bool marks, uint64_t *ips, enum bt_unwind_walk_end *end);
/* The same with aarch64's rules (probes/bt_unwind.h), whatever this host is: its unit test. */
int bt_unwind_walk_sample_a64(const struct bt_stack_sample *s, bt_unwind_rule_fn rule, void *ctx,
			      bool marks, uint64_t *ips, enum bt_unwind_walk_end *end);

struct bt_unwind_samples;

/*
 * Bytes of the copies waiting for their process at once (each as long as the stack the kernel
 * read, at most 8 KiB): a process sends at most 64 before it is indexed (the kernel's quota),
 * so one that never is holds an eighth at most. A bound by count (64) once let one such
 * process (a shell loop forking hundreds) take every place, and a short process beside it had
 * all its stacks fall back.
 */
#define BT_UNWIND_WAITING_BYTES (4u << 20)

/* Tables as lib/stacks/bt_unwinder.c stores them: the outer map, the infos, the processes' tables. */
int bt_unwind_samples__new(int tables_fd, int info_fd, int procs_fd, bool marks,
			   struct bt_unwind_samples **out);
void bt_unwind_samples__free(struct bt_unwind_samples *ss); /* NULL is fine */

/*
 * A sample from the ring: unwound at once when its process is indexed already, else kept
 * until it is. Returns 1 when it waits (the caller sees that the process gets indexed), 0
 * when done, -errno on a malformed record.
 */
int bt_unwind_samples__add(struct bt_unwind_samples *ss, const void *data, size_t size);
/*
 * pid was indexed (proc: its table, read at read_ns, boot time; start_ns: its start time), or
 * could not be (proc NULL): its waiting samples are unwound, or fall back to the walker's own
 * stack. A table without mappings (read as the process exited) leaves them waiting.
 */
void bt_unwind_samples__indexed(struct bt_unwind_samples *ss, int pid, uint64_t start_ns,
				uint64_t read_ns, const struct bt_unwind_proc *proc);

/* Whether samples of pid wait for its process to be indexed. */
bool bt_unwind_samples__waiting_for(struct bt_unwind_samples *ss, int pid);
/*
 * The frames of deferred id into ips[BT_MAX_STACK_DEPTH]: their number, or 0 with *fallback
 * set to the stored stack to use instead (the walker's own), -EAGAIN while it waits for its
 * process (*pid and *start_ns say which), -ENOENT for an id not seen (yet).
 */
int bt_unwind_samples__get(struct bt_unwind_samples *ss, uint64_t id, uint64_t *ips,
			   uint64_t *fallback, int *pid, uint64_t *start_ns);
/*
 * Forget generation gen's samples but those in held[0..nheld) (sorted); the stored stacks
 * the held ones fall back on are added to *keep (malloc'ed, *nkeep entries) for the caller
 * to keep too.
 */
int bt_unwind_samples__release(struct bt_unwind_samples *ss, unsigned int gen, const uint64_t *held,
			       size_t nheld, uint64_t **keep, size_t *nkeep);

/*
 * n stacks of process pid stayed partly walked by frame pointers (the kernel's count, at its
 * exit); the store adds its own (samples that fell back).
 */
void bt_unwind_samples__partial(struct bt_unwind_samples *ss, int pid, unsigned long long n);
/* "pid P: N, pid Q: M, K more processes" of those, into buf ("" when none). */
void bt_unwind_samples__partial_report(struct bt_unwind_samples *ss, char *buf, size_t len);
/* The counts and the processes partly walked back to none: a kept run's next profile. */
void bt_unwind_samples__reset_counts(struct bt_unwind_samples *ss);

struct bt_unwind_sample_counts {
	unsigned long long received;  /* samples from the kernel */
	unsigned long long unwound;   /* unwound whole here */
	unsigned long long fell_back; /* the walker's partial stack stands */
	unsigned long long kept;      /* in memory now */
};
void bt_unwind_samples__counts(struct bt_unwind_samples *ss, struct bt_unwind_sample_counts *c);

#endif
