/* SPDX-License-Identifier: GPL-2.0 */
/* Shared by probes/bt_stack.bpf.h and lib/stacks/bt_stacks.c. */
#ifndef BT_STACK_H
#define BT_STACK_H

#define BT_MAX_STACK_DEPTH 127 /* PERF_MAX_STACK_DEPTH */

/*
 * A stack id is the key of a stored stack: a 64-bit hash of its frames with the low bits
 * replaced by the generation (bit 0), the probe slot taken when two different stacks share a
 * hash (bits 1-2) and the map it is in (bit 3). Ids below 16 are never stored stacks:
 */
#define BT_STACK_NONE 0ULL /* not wanted, or nothing to take (a kernel thread's user stack) */
#define BT_STACK_LOST 1ULL /* taken, but not stored (the map was full) or not capturable */
#define BT_STACK_GEN(id) ((unsigned int)((id)&1))
#define BT_STACK_SLOTS 4
#define BT_STACK_DEEP_BIT 8ULL /* in bt_stacks_deep, not bt_stacks */
#define BT_STACK_STORED(id) ((id) >= 16)
/*
 * A deferred stack (bit 63; stored ids never have it): the walker could not follow a frame
 * of a process not indexed yet, so it sent a copy of the top of the user stack
 * (struct bt_stack_sample) that user space unwinds once the process's tables exist. Bits
 * 4-62 number the sample, bit 0 is the generation as for a stored stack.
 */
#define BT_STACK_DEFERRED_BIT (1ULL << 63)
#define BT_STACK_DEFERRED(id) (((id)&BT_STACK_DEFERRED_BIT) != 0)

/*
 * Stacks are kept in two preallocated maps (entries allocated on demand fail under bursts in
 * the scheduler's context): most stacks are short and take a short entry; deeper ones take a
 * full one. Frames past nr are zero (bpf_get_stack zeroes the rest of its buffer, and the last
 * slot is never written), so hashing and comparing whole blocks of BT_STACK_BLOCK frames gives
 * the same answer as going frame by frame. A short entry is a prefix of a full one.
 */
#define BT_STACK_BLOCK 8
#define BT_STACK_SHORT 31     /* frames a short entry holds (its last slot stays zero) */
#define BT_STACK_DEEP_SHARE 8 /* one full entry for every this many short ones */

struct bt_stack_value {
	__u32 nr;
	__u32 pad; /* in the scratch buffer, for the program that took it: BT_STACK_PAD_* */
	__u64 ips[BT_MAX_STACK_DEPTH + 1];
};

#define BT_STACK_PAD_PYTHON 1U /* the walk wrote Python frames */

struct bt_stack_short {
	__u32 nr;
	__u32 pad;
	__u64 ips[BT_STACK_SHORT + 1];
};

/* A process announcement (bt_new_pids): first seen, or its image replaced by exec. */
enum {
	BT_PID_NOTE_NEW = 0,	 /* first seen */
	BT_PID_NOTE_EXEC = 1,	 /* exec()ed: what was noted of it is stale */
	BT_PID_NOTE_REINDEX = 2, /* the unwinder met code its table lacks: index it again */
	BT_PID_NOTE_EXIT = 3,	 /* its main thread exited: what was noted of it may go */
	BT_PID_NOTE_SAMPLE = 4,	 /* a struct bt_stack_sample */
	BT_PID_NOTE_PYTHON = 5,	 /* a struct bt_py_stack_note */
};

struct bt_pid_note {
	__u32 tgid;
	__u32 exec;   /* BT_PID_NOTE_* */
	__u32 cookie; /* which process of that pid (bt_note_pid); 0: not known */
	/* BT_PID_NOTE_EXIT: its stacks the walker left partly walked by frame pointers */
	__u32 partial;
	/* when it started (boot time, ns), as /proc/PID/stat has it */
	__u64 start_ns;
};

/*
 * A user stack with Python frames, new to the CPU's record of those sent (bt_py_noted): user
 * space reads its code objects' names at once, while the process lives. A tool that prints at its end names its
 * rows after most short processes have exited, and their memory with them (docs/python.md).
 */
struct bt_py_stack_note {
	struct bt_pid_note note; /* exec BT_PID_NOTE_PYTHON */
	__u64 id;		 /* the stored stack */
};

/*
 * What user space needs to unwind a stack later (BT_STACK_DEFERRED): the user registers, the
 * uretprobe return addresses the walk would have put back, and the top of the stack from sp
 * up. Sent through bt_new_pids after the process's announcement, before any count that
 * carries its id.
 */
#define BT_STACK_SAMPLE_BYTES 8192
#define BT_STACK_SAMPLE_RETS 4

struct bt_stack_sample {
	struct bt_pid_note note; /* exec BT_PID_NOTE_SAMPLE */
	__u64 id;		 /* the deferred id the counts carry */
	__u64 fallback;		 /* the kernel's own walk, stored: used when this cannot be */
	__u64 ip, sp, bp;
	__u64 lr;    /* aarch64: x30, the interrupted frame's return address until saved */
	__u64 tramp; /* the uretprobe trampoline (0: none) */
	__u64 ret_slot[BT_STACK_SAMPLE_RETS], ret_addr[BT_STACK_SAMPLE_RETS];
	__u64 at_ns; /* when it was taken (boot time, ns) */
	__u32 len;   /* bytes of stack[] read from sp */
	/*
	 * The process was indexed, but a frame was in a mapping its table lacks (dlopen, or
	 * indexed while the loader was still mapping libraries): a table and names made before
	 * at_ns are stale for it
	 */
	__u32 miss;
	__u8 stack[BT_STACK_SAMPLE_BYTES];
};

/*
 * A pid names a process only while it lives; the kernel reuses it after. Counts that outlive
 * the process carry the cookie it was announced with (bt_note_pid), so that the right
 * process's mappings name them: user space takes both as one 64-bit process reference. A
 * cookie of 0 names whichever process has the pid now.
 */
#define BT_PROC(pid, cookie) ((__u64)(__u32)(cookie) << 32 | (__u32)(pid))

enum bt_stack_lost_kind {
	BT_STACK_LOST_FULL,    /* the stack map is full (--stack-storage-size) */
	BT_STACK_LOST_CAPTURE, /* bpf_get_stack failed, or scratch space was busy */
	BT_STACK_LOST_KINDS,
};

#endif
