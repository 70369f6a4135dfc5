/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How unwind tables and process mappings are laid out in BPF maps: shared by
 * probes/bt_unwind.bpf.h (the walker) and lib/stacks/bt_unwinder.c (the loader).
 *
 * A table is an implicit B+tree of fixed-size pages in one inner ARRAY map of
 * bt_unwind_tables (indexed by table id): the last level holds the rows (probes/bt_unwind.h),
 * each level above holds the first pc of each page of the level below. Page 0 is the root; the
 * pages of level L start at bt_unwind_info.level_first[L], and entry i of page p of level L
 * leads to page level_first[L + 1] + (p - level_first[L]) * BT_UNWIND_FANOUT + i. A lookup is
 * then one map lookup per level (three for a file of up to 16M rows) and a branch-free binary
 * search of fixed length in each page.
 */
#ifndef BT_UNWIND_MAPS_H
#define BT_UNWIND_MAPS_H

#include "bt_unwind.h"

#define BT_UNWIND_FANOUT 256	 /* entries a page holds: first pcs, or rows */
#define BT_UNWIND_MAX_LEVELS 3	 /* 256^3 rows: more than any file has */
#define BT_UNWIND_SEARCH_STEPS 9 /* log2(BT_UNWIND_FANOUT) + 1 */

/* A row's rule without its pc (probes/bt_unwind.h) */
struct bt_unwind_rule {
	__s32 cfa_offset;
	__s16 rbp_offset;
	__u8 cfa_rule;
	__u8 rbp_rule;
};

/*
 * Pcs and rules apart, so that both kinds of page are searched by the same code over pcs[],
 * with a power-of-two mask as the verifier's bound. A directory page leaves rules[] unused.
 */
struct bt_unwind_page {
	__u32 n; /* entries used */
	__u32 pad;
	__u32 pcs[BT_UNWIND_FANOUT];
	struct bt_unwind_rule rules[BT_UNWIND_FANOUT];
};

struct bt_unwind_info {
	__u32 levels; /* 1: the root holds the rows; 0: no table under this id */
	__u32 level_first[BT_UNWIND_MAX_LEVELS];
};

/*
 * A process's executable mappings, sorted by start; table 0 for those without a table (JIT
 * code, a file without CFI), whose frames step by frame pointers. A pc in none of them (a
 * library mapped after the process was indexed) steps by frame pointers too, and makes the
 * walker ask for the process to be indexed again.
 */
#define BT_UNWIND_MAX_MAPPINGS 64
#define BT_UNWIND_MAPPING_STEPS 7 /* log2(BT_UNWIND_MAX_MAPPINGS) + 1 */

struct bt_unwind_mapping {
	__u64 start, end; /* [start, end) in the process */
	__u64 bias;	  /* subtracted from a pc to get the file's link-time address */
	__u32 table;	  /* id in bt_unwind_tables */
	__u32 pad;
};

struct bt_unwind_proc {
	__u32 nr;
	__u32 pad;
	struct bt_unwind_mapping maps[BT_UNWIND_MAX_MAPPINGS];
	struct bt_unwind_py py;
};

/*
 * Every file with a table, by the kernel's identity of its inode (s_dev as the kernel encodes
 * it: major << 20 | minor, and i_ino): a pc in no mapping of its process's table (or of a
 * process not indexed yet) is looked up here through bpf_find_vma(), so a process first seen
 * mid-run, or a library it dlopen()ed, walks through tables already built for other processes.
 */
#define BT_UNWIND_FILE_LOADS 8

struct bt_unwind_file_key {
	__u64 dev;
	__u64 ino;
};

struct bt_unwind_file {
	__u32 table;
	__u32 nloads;
	struct {
		__u64 offset, vaddr, filesz;
	} loads[BT_UNWIND_FILE_LOADS]; /* the executable PT_LOAD segments */
};

/*
 * Mappings the walker found by file for one process (bt_unwind_found, by tgid): bpf_find_vma()
 * takes the process's mmap lock, and in the scheduler's context (interrupts off) it can only
 * give it back through an irq_work, a self-interrupt per call (~5 us in a VM) that also makes
 * any second call before it runs fail. Asked once per mapping, not once per walk. A slot with
 * table 0 says "no table here" (an anonymous mapping, a file without one, no mapping at all).
 * check guards against two CPUs filling one slot at once: a torn slot does not check.
 */
#define BT_UNWIND_FOUND 8
#define BT_UNWIND_FOUND_CHECK 0x9e3779b97f4a7c15ULL
/* the bias of a table-0 slot for a page in no mapping at all (a mapping's table-0 slot has 0) */
#define BT_UNWIND_NO_VMA 1

struct bt_unwind_found_slot {
	__u64 start, end, bias;
	__u32 table;
	__u32 pad;
	__u64 check; /* start ^ end ^ bias ^ table ^ BT_UNWIND_FOUND_CHECK */
};

struct bt_unwind_found {
	__u32 next; /* the slot written next (round robin) */
	__u32 pad;
	struct bt_unwind_found_slot m[BT_UNWIND_FOUND];
};

/*
 * Per process (bt_unwind_asked, by tgid): when it last asked to be indexed (again) and how long
 * it waits before it may ask again; the stacks sent to be unwound in user space
 * (bt_unwind_defer), and those left partly walked by frame pointers, not sent.
 */
struct bt_unwind_ask_state {
	__u64 at;
	__u64 gap;
	__u32 samples;
	__u32 partial;
};

/* Per-CPU counters (lib/stacks/bt_unwinder.c reports them with -v). */
enum bt_unwind_stat {
	BT_UNWIND_STAT_STACKS,	    /* user stacks walked by the unwinder */
	BT_UNWIND_STAT_NOT_INDEXED, /* ... partly by frame pointers: the process was not indexed yet */
	BT_UNWIND_STAT_FRAMES_TABLE, /* frames found through a table */
	BT_UNWIND_STAT_FRAMES_FP,    /* frames found with frame pointers (no table there) */
	BT_UNWIND_STAT_TRUNCATED,    /* walks cut short: unreadable stack, bad pc, frame limit */
	BT_UNWIND_STAT_KTHREAD,	     /* events in kernel threads (no user stack) */
	BT_UNWIND_STAT_ASKED,	     /* requests to index a process (again), rate-limited */
	BT_UNWIND_STAT_BY_FILE, /* mappings found by file (bpf_find_vma), not in the process's table */
	BT_UNWIND_STAT_FIND_VMA, /* ... of which asked of the kernel (bpf_find_vma): new to the process */
	BT_UNWIND_STAT_AT_EXEC, /* mappings asked of the kernel at exec (bt_unwind_find_at_exec) */
	BT_UNWIND_STAT_MEMO, /* user stacks found unchanged since the thread's last walk (no walk) */
	/* stacks not sent to be unwound later (bt_unwind_defer), why: */
	BT_UNWIND_STAT_KEPT_QUOTA, /* the process had sent BT_UNWIND_SAMPLES_MAX */
	BT_UNWIND_STAT_KEPT_RING,  /* the ring was half full, or had no room */
	BT_UNWIND_STAT_KEPT_READ,  /* the stack could not be read */
	BT_UNWIND_STAT_PY_FRAMES,  /* Python frames written (docs/python.md) */
	BT_UNWIND_STAT_PY_UNREAD,  /* evaluator frames whose Python frames could not be read */
	BT_UNWIND_STATS,
};

/*
 * With marks on (-v), a frame found with frame pointers rather than a table has
 * BT_UNWIND_MARK_FP set in its address, and the last frame of a walk cut short has
 * BT_UNWIND_MARK_TRUNC: user addresses never reach bit 62. Marked stacks are stored apart from
 * unmarked ones with the same frames, so marks are off unless asked for.
 */
#define BT_UNWIND_MARK_FP (1ULL << 63)
#define BT_UNWIND_MARK_TRUNC (1ULL << 62)
#define BT_UNWIND_MARKS (BT_UNWIND_MARK_FP | BT_UNWIND_MARK_TRUNC)

#endif
