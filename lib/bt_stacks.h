/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User side of probes/bt_stack.bpf.h: stack map sizing, reading and freeing stacks, the
 * lost-stack report, and noting processes as the kernel announces them so that their frames
 * keep their names after they exit. Symbol names come from symbolize/ (bt_sym.h).
 */
#ifndef BT_STACKS_H
#define BT_STACKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <bpf/libbpf.h>

#include "bt_stack.h"
#include "bt_sym.h"

struct bt_stacks;

struct bt_stacks_opts {
	unsigned int storage_size; /* stack map entries (--stack-storage-size); 0: 1024 */
	bool user;		   /* user stacks will be symbolized: announce processes */
	bool note_running;	   /* system-wide: snapshot every running process at start */
	struct bt_sym_opts sym;
};

/* Before load: size the stack map and switch process announcements on. */
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
 * Snapshot a process known in advance (-p) now, rather than at its first event: a process
 * that exits within microseconds of that event would otherwise be gone before user space
 * reads the announcement.
 */
int bt_stacks__note_pid(struct bt_stacks *st, int pid);

/*
 * Copy stack id's addresses (leaf first) into ips[BT_MAX_STACK_DEPTH]; returns the count.
 * entry_caller, when not 0, is the return address read at a probe on a function's first
 * instruction, where the frame-pointer walk skips the immediate caller: it goes in second.
 */
int bt_stacks__get(struct bt_stacks *st, int id, uint64_t entry_caller, uint64_t *ips);
/* Free the stack map slot of id after printing it, so long runs do not fill the map. */
void bt_stacks__release(struct bt_stacks *st, int id);

/*
 * Resolve a stack (from bt_stacks__get) into frames, leaf first; pid BT_PID_KERNEL for kernel
 * stacks (tracing artefacts at the top trimmed). frames must hold
 * BT_MAX_STACK_DEPTH * (1 + BT_SYM_MAX_INLINE). Returns the number of frames.
 */
int bt_stacks__resolve(struct bt_stacks *st, int pid, const uint64_t *ips, int n,
		       struct bt_frame *frames);

/* Print "N stacks lost; raise --stack-storage-size" (and why) to stderr when any were lost. */
void bt_stacks__report_lost(struct bt_stacks *st);

#endif
