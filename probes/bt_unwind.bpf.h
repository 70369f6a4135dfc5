/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The user-stack unwinder: walks the current task's user stack through the unwind tables
 * lib/stacks/bt_unwinder.c loads (layout: probes/bt_unwind_maps.h) and writes the frames, leaf first, as
 * bpf_get_stack(..., BPF_F_USER_STACK) would. Included by probes/bt_stack.bpf.h, whose
 * bt_get_stack() calls it for user stacks when bt_unwind_on is set before load.
 *
 * Each frame: find the mapping of the pc in the process's table (bt_unwind_procs), the row of
 * the pc in the mapping's file table, the canonical frame address from it, the return address
 * at CFA - 8 and the caller's rbp where the row says it was saved (aarch64: x30 and x29 where
 * the row says, bt_unwind_caller()). Where there is no table
 * (JIT code, a file without one, a process not indexed yet) the frame is stepped over with frame
 * pointers instead. The step runs under bpf_loop(), so the verifier checks it once however deep
 * the stack is (the only loops inside are the fixed-length binary searches).
 */
#ifndef BT_UNWIND_BPF_H
#define BT_UNWIND_BPF_H

#include "bt_arch.bpf.h"
#include "bt_unwind_maps.h"

#define BT_PF_KTHREAD 0x00200000 /* include/linux/sched.h */
#define BT_UNWIND_RETS 4	 /* pending uretprobes followed per stack */
/*
 * A process asks to be indexed again (lib/stacks/bt_unwinder.c re-reads its maps, and the symbolizer
 * its snapshot) first at once, then after 10 ms, 20, 40... at most once a second: a new
 * process maps its libraries in its first milliseconds, often after its first event.
 */
#define BT_UNWIND_ASK_NS 1000000000ULL
#define BT_UNWIND_ASK_FIRST_NS 10000000ULL

/*
 * Stacks of one process sent to user space before it is indexed (a few milliseconds for most):
 * each is a count of its own in the tool's maps until printed, so a process that stays
 * unindexed (its files have no table) must not fill them.
 */
#define BT_UNWIND_SAMPLES_MAX 64

const volatile bool bt_unwind_on = false;    /* user stacks through tables (--unwind) */
const volatile bool bt_unwind_marks = false; /* mark frames found by frame pointers (-v) */
/* a stack the walker cannot follow yet is sent to user space to unwind (bt_unwind_defer) */
const volatile bool bt_unwind_defer_on = false;
/* Python frames where the walk meets CPython's evaluator (docs/python.md); --no-python clears it */
const volatile bool bt_unwind_py_on = false;

__u64 bt_stack_deferred_last = 0; /* deferred stacks numbered so far */

struct bt_unwind_inner {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_INNER_MAP); /* each table's map is sized to the table */
	__uint(max_entries, 1);
	/* sizes, not types: clang 14 leaves a struct reached this deep a forward declaration */
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(struct bt_unwind_page));
};

/* sized by lib/stacks/bt_unwinder.c before load; one entry when the unwinder is off */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);
	__type(key, __u32);
	__array(values, struct bt_unwind_inner);
} bt_unwind_tables SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct bt_unwind_info);
} bt_unwind_info SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct bt_unwind_proc);
} bt_unwind_procs SEC(".maps");

/* lib/stacks/bt_unwinder.c: every file with a table (probes/bt_unwind_maps.h), sized before load */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, struct bt_unwind_file_key);
	__type(value, struct bt_unwind_file);
} bt_unwind_files SEC(".maps");

/*
 * CPython's addresses in each table's file that holds them (lib/stacks/bt_unwinder.c), at
 * link time, by table id: a process not indexed yet relocates them by the bias of the mapping
 * it found by file (bt_py_by_table), so a Python process started after the tool, whose
 * interpreter's table some other process brought in, has its Python frames from its first
 * event rather than from its indexing, milliseconds into its run.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY); /* a lookup per frame of such a walk: the cheapest kind */
	__uint(max_entries, 1);		  /* sized like the tables (bt_unwind_info) before load */
	__type(key, __u32);
	__type(value, struct bt_unwind_py);
} bt_unwind_py_tables SEC(".maps");

/* when each process last asked to be indexed again (bt_unwind_ask); sized like the procs */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct bt_unwind_ask_state);
} bt_unwind_asked SEC(".maps");

/*
 * The rows looked up last on this CPU, by table and file address: a process walks the same
 * few stacks again and again, and a row found here saves the table's map lookups and binary
 * searches (two of each for libc). Table ids are never reused within a run and a table never
 * changes once stored, so an entry stays right for the whole run.
 */
#define BT_UNWIND_ROWCACHE 1024
struct bt_unwind_rowcache {
	__u64 tag[BT_UNWIND_ROWCACHE];	/* table << 32 | file address, + 1 (0: empty) */
	__u64 rule[BT_UNWIND_ROWCACHE]; /* bt_unwind_lookup()'s answer */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct bt_unwind_rowcache);
} bt_unwind_rows SEC(".maps");

static __always_inline __u32 bt_unwind_row_slot(__u64 tag)
{
	return (__u32)((tag * 0x9e3779b97f4a7c15ULL) >> 54) & (BT_UNWIND_ROWCACHE - 1);
}

/*
 * Cache rule as tag's row (see above). A global function: inlined, its locals took
 * bt_unwind_lookup() over the stack 6.1 allows beside the bpf_find_vma() callback under it
 * (meta/bpf_stack). The lookup reads the cache itself, with the key it already has.
 */
__attribute__((noinline)) int bt_unwind_row_put(__u64 tag, __u64 rule)
{
	__u32 zero = 0, slot = bt_unwind_row_slot(tag);
	struct bt_unwind_rowcache *rc = bpf_map_lookup_elem(&bt_unwind_rows, &zero);

	if (!rc)
		return 0;
	/* a program that interrupts this one on this CPU at worst misses the slot */
	rc->tag[slot] = 0;
	rc->rule[slot] = rule;
	rc->tag[slot] = tag;
	return 0;
}

/* mappings found by file, per process (probes/bt_unwind_maps.h); sized like the procs */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct bt_unwind_found);
} bt_unwind_found SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, BT_UNWIND_STATS);
	__type(key, __u32);
	__type(value, __u64);
} bt_unwind_stats SEC(".maps");

/*
 * A thread that blocks, or is probed, where it was the time before has the same user stack:
 * the walk is a function of the registers it starts from, the stack words it reads (return
 * addresses, saved frame pointers) and the process's mappings. So each CPU keeps, for a few
 * threads, the last walk's start, the words it read and the stored stack's id; the next event
 * of the thread reads those words again in one read of its stack and, where the registers
 * and every word are the same, takes the id without walking, hashing or storing (a switch of
 * a pair that pings and pongs: ~0.6 us of walk and store down to ~0.1). A thread is its tid
 * and start time, and its exec count; the id is only taken within the stack generation it
 * was stored in (user space frees a generation's stacks after the flip). Mappings replaced
 * under an unchanged stack without an exec (munmap and a new mmap at the same address while
 * a thread waits in it) are not seen, as they are not by the walk's own mapping caches until
 * the process is indexed again.
 */
#define BT_UNWIND_MEMOS 16	/* threads per CPU */
#define BT_UNWIND_MEMO_WORDS 32 /* words a walk may read to be kept: 16 frames or so */

/* What a walk read, kept as it goes (bt_unwind_memo_note()) */
struct bt_unwind_memo_walk {
	__u64 pc, sp, bp; /* the registers it started from */
	__u32 n;	  /* words read */
	__u32 bad;	  /* a read it cannot repeat, or a walk that may come out otherwise */
	__u32 span;	  /* bytes from sp that hold every word read */
	__u16 frames_table, frames_fp;
	/*
	 * Whether the walk used bp while it was still the register's: where it did not (a
	 * program built without frame pointers keeps anything in rbp) any bp walks the same
	 */
	__u16 bp_regs, need_bp;
	/*
	 * The stack generation counter (bt_stack_gen) at the lookup before the walk, and whether
	 * it was still the caller's generation then (not flipped since): set by
	 * bt_unwind_memo_find(), for bt_unwind_stored()
	 */
	__u32 gen, gen_ok;
	__u16 off[BT_UNWIND_MEMO_WORDS]; /* each word's index from sp */
	__u64 val[BT_UNWIND_MEMO_WORDS];
};

struct bt_unwind_memo {
	__u64 seq; /* odd while it is written: a program that interrupts the writer misses */
	__u64 start_time, exec_id;
	__u32 tid;
	__u32 gen; /* the stack generation counter (bt_stack_gen) the id was stored under */
	__u64 id;
	struct bt_unwind_memo_walk walk;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, BT_UNWIND_MEMOS);
	__type(key, __u32);
	__type(value, struct bt_unwind_memo);
} bt_unwind_memos SEC(".maps");

/*
 * A walk's Python frames (docs/python.md), in map memory with the window: the program's stack
 * has no room left under the walk's calls (meta/bpf_stack). Each step of the walk writes one
 * word: where it meets the evaluator, the Python frame's two words take the evaluator frame's
 * place, one step each, and the native step past the evaluator follows the last frame's.
 */
enum bt_py_state {
	BT_PY_NONE = 0, /* no evaluator met yet: the thread's frame not looked for */
	BT_PY_BETWEEN,	/* past an evaluator: frame is the next one's first Python frame */
	BT_PY_INFO,	/* the code word is written: the info word next */
	BT_PY_CODE,	/* the next Python frame's code word next (code, info ready) */
	BT_PY_OFF,	/* not a Python process, or its chain ended or could not be read */
	BT_PY_FIND,	/* not indexed yet: each frame's mapping may be the interpreter's */
};

struct bt_unwind_pywalk {
	struct bt_unwind_py py; /* the process's (tss 0: none) */
	__u64 frame;		/* the next Python frame to read */
	__u64 code, info;	/* the words of the frame being written */
	__u64 word;		/* the word the step writes (map memory: no stack for it) */
	__u32 state;		/* enum bt_py_state */
	__u32 nframes;		/* Python frames written this walk */
	__u32 last;		/* the frame being written entered its evaluator */
	__u32 eval_n; /* the evaluator frame was the walk's first: its row at pc, not pc - 1 */
	__u32 met;    /* the walk met the evaluator: its stack is not kept (memo) */
	__u32 gap;    /* the unread marker is written (BT_PY_UNREAD_CODE): Python ends */
	__u64 buf[BT_PY_CODE_READ / 8]; /* a frame's or a code object's bytes, as read */
};

/*
 * The user stack, read a window at a time: a frame's return address and saved rbp are then
 * loads from map memory rather than a bpf_probe_read_user() each (~60 ns each here, where one
 * read of a window costs little more). A window starts at the sp of the frame that first needs
 * it, so it holds that frame's reads and those of the frames above it; one frame larger than a
 * window reads user memory as before. One per scratch buffer (bt_stack_scratch), for the same
 * reason.
 */
#define BT_UNWIND_WINDOW 2048
struct bt_unwind_window {
	__u64 base; /* the user address of words[0] */
	__u64 len;  /* bytes read; 0: none */
	__u64 top;  /* the main thread's stack ends a little above this (mm->start_stack) */
	__u64 word; /* bt_unwind_read()'s answer */
	/*
	 * The mapping the walk was in before the last (struct bt_unwind_cache): a stack crosses
	 * between a program and its libraries, and each crossing back finds its mapping here
	 * rather than in bt_unwind_procs again. Per walk: end 0 until one is found.
	 */
	__u64 prev_start, prev_end, prev_bias;
	__u32 prev_table;
	__u32 pad;
	struct bt_unwind_memo_walk memo; /* what the walk read, for bt_unwind_stored() */
	/*
	 * A uretprobe replaces the return address on the stack with its trampoline: the real
	 * ones, and the stack slots they were taken from, of the innermost pending uretprobes. Per
	 * walk, here rather than in struct bt_unwind_walk: that one is on the program's stack,
	 * which the walk's calls leave little of (meta/bpf_stack).
	 */
	__u64 tramp;
	__u64 ret_slot[BT_UNWIND_RETS], ret_addr[BT_UNWIND_RETS];
	struct bt_unwind_pywalk py;
	__u64 words[BT_UNWIND_WINDOW / 8];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, BT_STACK_SCRATCH);
	__type(key, __u32);
	__type(value, struct bt_unwind_window);
} bt_unwind_windows SEC(".maps");

/*
 * A stack sent to be unwound in user space is put together here and sent at the length read
 * (a ring record reserved is of a fixed size: 8 KiB for what is mostly one or two), so that a
 * smaller bt_new_pids holds as many (bt_unwind_defer). One per scratch slot, as the windows.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, BT_STACK_SCRATCH);
	__type(key, __u32);
	__type(value, struct bt_stack_sample);
} bt_unwind_sample_scratch SEC(".maps");

/*
 * Read win from base up: a window, but not past the main thread's stack (argv and the
 * environment lie just above its start), or where that faults (the top of a thread's stack),
 * the rest of base's page. 0 or a negative errno.
 */
static __always_inline long bt_unwind_window_fill(struct bt_unwind_window *win, __u64 base)
{
	__u64 len = BT_UNWIND_WINDOW, page;

	win->base = base;
	win->len = 0;
	if (win->top > base && win->top - base < BT_UNWIND_WINDOW - 64)
		len = (win->top - base + 64) & ~7ULL;
	if (len > BT_UNWIND_WINDOW)
		len = BT_UNWIND_WINDOW;
	if (!bpf_probe_read_user(win->words, len, (void *)base)) {
		win->len = len;
		return 0;
	}
	page = 4096 - (base & 4095);
	if (page >= len)
		return -BT_EFAULT;
	if (bpf_probe_read_user(win->words, page & (BT_UNWIND_WINDOW - 1), (void *)base))
		return -BT_EFAULT;
	win->len = page & (BT_UNWIND_WINDOW - 1);
	return 0;
}

/*
 * Read the word at user address addr into win->word: from the window, refilled from floor (the
 * sp of the frame being stepped: no read of it lies below) when addr is not in it; from user
 * memory when addr is too far above floor for a window, or not aligned. 0 or a negative errno.
 * The word is left in map memory so that no caller takes a local's address: the walk's calls
 * stay within the stack 6.1 allows (meta/bpf_stack).
 */
/* Keep the word a walk read at addr (struct bt_unwind_memo_walk). */
static __always_inline void bt_unwind_memo_note(struct bt_unwind_memo_walk *m, __u64 addr,
						__u64 word)
{
	__u64 off = addr - m->sp;
	__u32 i = m->n;

	if (off > BT_UNWIND_WINDOW - 8 || (off & 7) || i >= BT_UNWIND_MEMO_WORDS) {
		m->bad = 1;
		return;
	}
	m->off[i] = off >> 3;
	m->val[i] = word;
	m->n = i + 1;
	if (off + 8 > m->span)
		m->span = off + 8;
}

static __always_inline long bt_unwind_read(struct bt_unwind_window *win, __u64 floor, __u64 addr)
{
	__u64 off = addr - win->base;
	long err;

	/* len is a multiple of 8: an aligned word that starts in it ends in it */
	if (off >= win->len || (off & 7)) {
		off = addr - floor;
		/* the window read may be short (the main thread's top, a page's end): in it? */
		if (addr < floor || off > BT_UNWIND_WINDOW - 8 || ((addr | floor) & 7) ||
		    bt_unwind_window_fill(win, floor) || off >= win->len) {
			err = bpf_probe_read_user(&win->word, sizeof(win->word), (void *)addr);
			if (!err)
				bt_unwind_memo_note(&win->memo, addr, win->word);
			return err;
		}
	}
	win->word = win->words[(off >> 3) & (BT_UNWIND_WINDOW / 8 - 1)];
	bt_unwind_memo_note(&win->memo, addr, win->word);
	return 0;
}

/* The mapping the last pc was found in: frames cluster, most need no search. */
struct bt_unwind_cache {
	__u64 start, end, bias;
	__u32 table;
	__u32 tgid;
	__u32 miss;   /* a pc was in no mapping of the process's table: to be indexed again */
	__u32 noproc; /* the process has no table at all (not indexed yet, or evicted) */
};

struct bt_unwind_walk {
	__u64 pc, sp, bp; /* the frame about to be written: its pc and the registers there */
	struct bt_unwind_cache cache;
	__u32 slot; /* the scratch buffer of bt_stack_scratch being written */
	__u32 n;
	__u32 from_fp; /* the frame about to be written was found with frame pointers */
	__u32 done, truncated;
	__u32 frames_table, frames_fp;
	__u32 no_table; /* some frame had no table (stepped, or ended, by frame pointers) */
};

static __always_inline void bt_unwind_count(__u32 stat, __u64 n)
{
	__u64 *c = bpf_map_lookup_elem(&bt_unwind_stats, &stat);

	if (c && n)
		*c += n; /* per CPU, and programs on one CPU do not nest within one counter update */
}

/*
 * The last entry of pg whose pc is at most pc (-1 when none): a binary search of fixed length
 * without branches, so that the verifier follows one path through it rather than one per
 * outcome of each comparison.
 */
static __always_inline int bt_unwind_search(const struct bt_unwind_page *pg, __u64 pc)
{
	__u32 lo = 0, hi = pg->n, mid, k;
	__u64 gt;

	if (!hi || hi > BT_UNWIND_FANOUT || pg->pcs[0] > pc)
		return -1;
#pragma unroll
	for (k = 0; k < BT_UNWIND_SEARCH_STEPS; k++) {
		mid = (lo + hi) >> 1;
		/* all ones when pcs[mid] > pc; hidden from the compiler, which would branch on it */
		gt = (pc - pg->pcs[mid & (BT_UNWIND_FANOUT - 1)]) >> 63;
		gt = -gt;
		asm volatile("" : "+r"(gt));
		lo = (lo & gt) | (mid & ~gt);
		hi = (mid & gt) | (hi & ~gt);
	}
	return lo & (BT_UNWIND_FANOUT - 1);
}

#define BT_VM_EXEC 0x4 /* include/linux/mm.h */

struct bt_unwind_vma {
	struct bt_unwind_file_key key; /* the mapping's file */
	__u64 start, end, pgoff;
	__u32 found; /* 0: not yet; 1: anonymous code; 2: a file's code; 3: not code */
	__u32 tgid;  /* the key of bt_unwind_found: here, the stack is full (below) */
	struct bt_unwind_found fresh; /* a process's first bt_unwind_found entry, zeroed */
};

/*
 * bpf_find_vma()'s answer. Not on the stack: the verifier adds up the stacks of the program,
 * the walk's step, bt_unwind_lookup() and this callback (each rounded up to 32 bytes) against
 * its 512, and offcputime's program already takes 384 (6.1 refused it with the answer on the
 * stack: "combined stack size of 4 calls is 544").
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct bt_unwind_vma);
} bt_unwind_vma_found SEC(".maps");

static long bt_unwind_vma_cb(struct task_struct *task, struct vm_area_struct *vma, void *data)
{
	struct inode *inode = vma->vm_file ? vma->vm_file->f_inode : NULL;
	struct bt_unwind_vma *c;
	__u32 zero = 0;

	c = bpf_map_lookup_elem(&bt_unwind_vma_found, &zero);
	if (!c)
		return 0;
	c->start = vma->vm_start;
	c->end = vma->vm_end;
	/* data, not code: a word read as a return address that is none (BT_UNWIND_NO_VMA) */
	c->found = vma->vm_flags & BT_VM_EXEC ? 1 : 3;
	/* the vdso, the same image in every process: its table is under inode 0 (no file's) */
	if (c->found == 1 && c->start == (__u64)task->mm->context.vdso) {
		c->pgoff = 0;
		c->key.ino = 0;
		c->key.dev = 0;
		c->found = 2;
		return 0;
	}
	if (c->found == 3 || !inode)
		return 0; /* anonymous: JIT code */
	c->pgoff = vma->vm_pgoff;
	c->key.ino = inode->i_ino;
	c->key.dev = inode->i_sb->s_dev;
	c->found = 2;
	return 0;
}

static __always_inline __u64 bt_unwind_found_check(__u64 start, __u64 end, __u64 bias, __u32 table)
{
	return start ^ end ^ bias ^ table ^ BT_UNWIND_FOUND_CHECK;
}

/* pc in a mapping found by file for w's process before: into w. */
static __always_inline bool bt_unwind_found_again(struct bt_unwind_cache *w, __u64 pc,
						  struct bt_unwind_found *f)
{
	struct bt_unwind_found_slot *m;
	__u32 i;

#pragma unroll
	for (i = 0; i < BT_UNWIND_FOUND; i++) {
		m = &f->m[i];
		if (pc >= m->start && pc < m->end &&
		    m->check == bt_unwind_found_check(m->start, m->end, m->bias, m->table)) {
			w->start = m->start;
			w->end = m->end;
			w->bias = m->bias;
			w->table = m->table;
			return true;
		}
	}
	return false;
}

/* Remember [start, end) of w's process (table 0: none there) for its later walks. */
static __always_inline void bt_unwind_found_note(struct bt_unwind_found *f, __u64 start, __u64 end,
						 __u64 bias, __u32 table)
{
	struct bt_unwind_found_slot *m;
	__u32 i = __sync_fetch_and_add(&f->next, 1) & (BT_UNWIND_FOUND - 1);

	m = &f->m[i];
	m->check = 0; /* a reader meanwhile misses rather than takes half of it */
	m->start = start;
	m->end = end;
	m->bias = bias;
	m->table = table;
	m->check = bt_unwind_found_check(start, end, bias, table);
}

/*
 * pc's mapping found by its file rather than the process's table (not indexed yet, or mapped
 * since): first among those found so for the process before (bt_unwind_found), else the
 * kernel's vma, then the file's table if some process mapping it was indexed. What the
 * kernel said is kept for the process's later walks, a mapping without a table included.
 * 1: found, with a table; 0: in a mapping without one (or not known now); -1: in no mapping
 * at all (a frame-pointer step read a word that is no return address).
 */
static __always_inline int bt_unwind_by_file(struct bt_unwind_cache *w, __u64 pc, bool at_exec)
{
	struct bt_unwind_found *found;
	struct bt_unwind_file *f;
	struct bt_unwind_vma *c;
	__u64 off, o;
	__u32 i = 0;
	long err;

	c = bpf_map_lookup_elem(&bt_unwind_vma_found, &i);
	if (!c)
		return 0;
	c->tgid = w->tgid;
	found = bpf_map_lookup_elem(&bt_unwind_found, &c->tgid);
	if (found && bt_unwind_found_again(w, pc, found)) {
		bt_unwind_count(BT_UNWIND_STAT_BY_FILE, !!w->table);
		if (!w->table && w->bias == BT_UNWIND_NO_VMA)
			return -1;
		return w->table != 0;
	}
	if (!found) {
		/*
		 * A task past exit_mm() (its last switches) has no mappings to remember, and its
		 * entry would outlive the exit that cleared the others (bt_on_exit)
		 */
		if (!bpf_get_current_task_btf()->mm)
			return 0;
		/* zeroed in the callback's scratch, which is map memory: 6.1 takes no other */
		__builtin_memset(&c->fresh, 0, sizeof(c->fresh));
		bpf_map_update_elem(&bt_unwind_found, &c->tgid, &c->fresh, BPF_NOEXIST);
		found = bpf_map_lookup_elem(&bt_unwind_found, &c->tgid);
	}
	c->found = 0;
	err = bpf_find_vma(bpf_get_current_task_btf(), pc, bt_unwind_vma_cb, NULL, 0);
	bt_unwind_count(at_exec ? BT_UNWIND_STAT_AT_EXEC : BT_UNWIND_STAT_FIND_VMA, 1);
	if ((err == -BT_ENOENT || (!err && c->found == 3)) && found) {
		/* in no mapping (a return address that is not one): no table for its page */
		bt_unwind_found_note(found, pc & ~4095ULL, (pc & ~4095ULL) + 4096, BT_UNWIND_NO_VMA,
				     0);
		return -1;
	}
	if (err == -BT_ENOENT || (!err && c->found == 3))
		return -1;
	if (err || !c->found)
		return 0; /* busy (an earlier call's unlock is pending): ask again next time */
	f = c->found == 2 ? bpf_map_lookup_elem(&bt_unwind_files, &c->key) : NULL;
	if (f) {
		off = c->pgoff << 12;
#pragma unroll
		for (i = 0; i < BT_UNWIND_FILE_LOADS; i++) {
			o = f->loads[i].offset;
			if (i < f->nloads && (o & ~4095ULL) <= off &&
			    off < o + f->loads[i].filesz) {
				w->start = c->start;
				w->end = c->end;
				w->bias = c->start + o - f->loads[i].vaddr - off;
				w->table = f->table;
				bt_unwind_count(BT_UNWIND_STAT_BY_FILE, 1);
				if (found)
					bt_unwind_found_note(found, w->start, w->end, w->bias,
							     w->table);
				return 1;
			}
		}
	}
	if (found)
		bt_unwind_found_note(found, c->start, c->end, 0, 0);
	return 0;
}

/*
 * At exec, in the process's own context, where bpf_find_vma() answers at once (in the
 * scheduler and in a sample its unlock waits for an irq_work, and a walk learns one new
 * mapping at most): the new image's program, the loader it starts in and the vdso, found by
 * file before the first walk. A Python process started after the tool whose interpreter is
 * the program (Debian's python3.N) is then named from its first event (docs/python.md).
 */
static __always_inline void bt_unwind_find_at_exec(__u32 tgid)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct bt_unwind_cache w = { .tgid = tgid };
	struct mm_struct *mm = task->mm;
	struct pt_regs *regs;
	__u64 vdso = 0;

	if (!mm)
		return;
	regs = (struct pt_regs *)bpf_task_pt_regs(task);
	bt_unwind_by_file(&w, mm->start_code, true);
	bt_unwind_by_file(&w, PT_REGS_IP(regs), true);
	/* read, not taken: the verifier keeps a pointer field a pointer, not an address */
	bpf_probe_read_kernel(&vdso, sizeof(vdso), &mm->context.vdso);
	if (vdso)
		bt_unwind_by_file(&w, vdso, true);
}

/*
 * The interpreter's addresses where table (a mapping found by file, at bias) is CPython's,
 * for a walk that has none from its process's entry: Python frames from this walk's next
 * evaluator frame on. Relocated from the table's link-time ones, as user space would have.
 */
__attribute__((noinline)) int bt_py_by_table(struct bt_unwind_pywalk *py, __u32 table, __u64 bias)
{
	struct bt_unwind_py *f = bpf_map_lookup_elem(&bt_unwind_py_tables, &table);

	if (!py || !f || !f->tss)
		return 0;
	py->py = *f;
	/* an empty range ([bias, bias)) where the file has no cold part */
	py->py.tss += bias;
	py->py.code_type += bias;
	py->py.eval_start[0] += bias;
	py->py.eval_end[0] += bias;
	py->py.eval_start[1] += bias;
	py->py.eval_end[1] += bias;
	py->state = BT_PY_NONE;
	return 0;
}

/*
 * The mapping of pc in w's process, into w: true when pc is in one the process's table lists
 * (whose table may be 0, none), or failing that in a file with a table (bt_unwind_by_file);
 * false when neither. w->miss says the process's table lacked it (a mapping made after the
 * process was indexed, or a process not in bt_unwind_procs at all).
 */
static __always_inline bool bt_unwind_mapping(struct bt_unwind_cache *w,
					      struct bt_unwind_window *win, __u64 pc)
{
	struct bt_unwind_proc *p;
	struct bt_unwind_mapping *m;
	__u32 lo = 0, hi, mid, k, tgid;
	int found;
	__u64 gt;

	if (pc >= w->start && pc < w->end)
		return true;
	/* the mapping left before goes where the one found now will be */
	gt = win->prev_start;
	win->prev_start = w->start;
	w->start = gt;
	gt = win->prev_end;
	win->prev_end = w->end;
	w->end = gt;
	gt = win->prev_bias;
	win->prev_bias = w->bias;
	w->bias = gt;
	k = win->prev_table;
	win->prev_table = w->table;
	w->table = k;
	if (pc >= w->start && pc < w->end)
		return true;
	/* a key on the stack: 6.1 takes no other memory as a map key (w is a global function's) */
	tgid = w->tgid;
	p = bpf_map_lookup_elem(&bt_unwind_procs, &tgid);
	if (!p) {
		w->noproc = 1;
		goto by_file;
	}
	hi = p->nr;
	if (!hi || hi > BT_UNWIND_MAX_MAPPINGS)
		goto by_file;
#pragma unroll
	for (k = 0; k < BT_UNWIND_MAPPING_STEPS; k++) {
		mid = (lo + hi) >> 1;
		gt = -((pc - p->maps[mid & (BT_UNWIND_MAX_MAPPINGS - 1)].start) >> 63);
		asm volatile("" : "+r"(gt));
		lo = (lo & gt) | (mid & ~gt);
		hi = (mid & gt) | (hi & ~gt);
	}
	m = &p->maps[lo & (BT_UNWIND_MAX_MAPPINGS - 1)];
	if (pc < m->start || pc >= m->end)
		goto by_file;
	w->start = m->start;
	w->end = m->end;
	w->bias = m->bias;
	w->table = m->table;
	return true;
by_file:
	/*
	 * A mapping the table lacks asks for the process to be indexed again; a word that is in
	 * no mapping does not (the walk stepped by frame pointers through a frame without CFI:
	 * glibc's clone3 after its syscall, under posix_spawn's vfork wait). Indexing would find
	 * nothing new there, and each such stack, sent to be unwound later, took the process's
	 * quota of copies.
	 */
	found = bt_unwind_by_file(w, pc, false);
	if (found >= 0)
		w->miss = 1;
	return found > 0;
}

/*
 * The rule covering pc, packed (cfa_offset, rbp_offset << 32, cfa_rule << 48, rbp_rule << 56);
 * 0 where there is no table to follow. A global function: the verifier checks it once, on its own, rather
 * than in every state the walk's steps reach it in.
 */
__attribute__((noinline)) __u64 bt_unwind_lookup(struct bt_unwind_cache *w,
						 struct bt_unwind_window *win, __u64 pc)
{
	const struct bt_unwind_rowcache *rc;
	const struct bt_unwind_rule *r;
	const struct bt_unwind_page *pg;
	struct bt_unwind_info *info;
	__u32 page = 0, table, first;
	__u64 rel, rule;
	void *inner;
	int i;

	if (!w || !win)
		return 0;
	if (!bt_unwind_mapping(w, win, pc))
		return 0;
	rel = pc - w->bias;
	table = w->table;
	if ((rel >> 32) || !table)
		return 0;
	/* the row cache, without a call of its own per frame: page is 0 here, the cache's key */
	rule = ((__u64)table << 32 | rel) + 1;
	first = bt_unwind_row_slot(rule);
	rc = bpf_map_lookup_elem(&bt_unwind_rows, &page);
	if (rc && rc->tag[first] == rule)
		return rc->rule[first];
	info = bpf_map_lookup_elem(&bt_unwind_info, &table);
	inner = bpf_map_lookup_elem(&bt_unwind_tables, &table);
	if (!info || !inner || !info->levels || info->levels > BT_UNWIND_MAX_LEVELS)
		return 0;
	/* down the directory levels to the page of rows */
	if (info->levels > 1) {
		pg = bpf_map_lookup_elem(inner, &page);
		if (!pg)
			return 0;
		i = bt_unwind_search(pg, rel);
		if (i < 0)
			return 0;
		page = info->level_first[1] + i;
	}
	if (info->levels > 2) {
		first = info->level_first[1];
		pg = bpf_map_lookup_elem(inner, &page);
		if (!pg)
			return 0;
		i = bt_unwind_search(pg, rel);
		if (i < 0)
			return 0;
		page = info->level_first[2] + (page - first) * BT_UNWIND_FANOUT + i;
	}
	pg = bpf_map_lookup_elem(inner, &page);
	if (!pg)
		return 0;
	i = bt_unwind_search(pg, rel);
	if (i < 0)
		return 0;
	r = &pg->rules[i & (BT_UNWIND_FANOUT - 1)];
	rule = (__u32)r->cfa_offset | (__u64)(__u16)r->rbp_offset << 32 | (__u64)r->cfa_rule << 48 |
	       (__u64)r->rbp_rule << 56;
	bt_unwind_row_put(((__u64)table << 32 | rel) + 1, rule);
	return rule;
}

/*
 * The return address read from slot, or the real one where a uretprobe put its trampoline
 * (which a walk kept for later cannot tell: the trampoline's word is the same for any return).
 */
static __always_inline __u64 bt_unwind_real_ra(struct bt_unwind_window *w, __u64 ra, __u64 slot)
{
	__u32 k;

	if (ra != w->tramp || !ra)
		return ra;
	w->memo.bad = 1;
#pragma unroll
	for (k = 0; k < BT_UNWIND_RETS; k++)
		if (w->ret_slot[k] == slot)
			return w->ret_addr[k];
	return ra;
}

/*
 * The caller of frame n (at pc, frame pointer bp), into w (its pc, sp and frame pointer): 0,
 * or 1 when the walk is over. Per architecture; both step by frame pointers where there is no
 * rule.
 */
#if defined(__TARGET_ARCH_arm64)
/*
 * aarch64 (probes/bt_unwind.h): CFA = sp or x29 + offset; the return address saved at CFA +
 * offset, or for the frame interrupted still in x30 (a caller's was saved before its call);
 * x29 where the row says. A frame record is {caller's x29, return address} at x29, as on
 * x86-64, but it need not sit at the top of its frame (GCC puts it at the bottom): after a
 * step by frame pointers sp is not known, so an sp rule is not followed there. Every return
 * address is stripped of its pointer authentication code (bt_arch_strip_pac).
 */
static __always_inline int bt_unwind_caller(struct bt_unwind_walk *w, struct bt_unwind_window *win,
					    __u32 n, __u64 pc, __u64 bp)
{
	struct pt_regs *regs;
	__u64 cfa = 0, ra, row;

	/* a return address is just past its call, which may be a function's last instruction */
	row = bt_unwind_lookup(&w->cache, win, n ? pc - 1 : pc);
	switch (BT_A64_CFA_RULE(row)) {
	case BT_CFA_RSP:
		cfa = w->sp + BT_A64_CFA_OFF(row);
		if (w->from_fp)
			row = 0;
		break;
	case BT_CFA_RBP:
		cfa = w->bp + BT_A64_CFA_OFF(row);
		break;
	case BT_CFA_END:
	case BT_CFA_SIGNAL:
		w->done = 1;
		return 1;
	default:
		row = 0;
		break;
	}
	if (row && !BT_A64_RA_IS_SAVED(row) && n)
		row = 0; /* x30 is the interrupted frame's only */
	if (!row)
		w->no_table = 1; /* no rule we follow: frame pointers */
	if (row && BT_A64_RA_IS_SAVED(row)) {
		if (cfa <= w->sp || bt_unwind_read(win, w->sp, cfa + BT_A64_RA_OFF(row))) {
			w->truncated = 1;
			return 1;
		}
		/* a uretprobe took the return address at the function's entry, where sp was the CFA */
		ra = bt_unwind_real_ra(win, bt_arch_strip_pac(win->word), cfa);
	} else if (row) {
		if (cfa < w->sp) {
			w->truncated = 1;
			return 1;
		}
		regs = (struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf());
		ra = bt_unwind_real_ra(win, bt_arch_strip_pac(bt_arch_link_reg(regs)), cfa);
	}
	if (row) {
		if (BT_A64_FP_RULE(row) == BT_RBP_CFA) {
			bp = bt_unwind_read(win, w->sp, cfa + BT_A64_FP_OFF(row)) ? 0 : win->word;
		} else if (BT_A64_FP_RULE(row) == BT_RBP_UNDEFINED) {
			bp = 0;
		}
		w->sp = cfa;
		w->from_fp = 0;
		w->frames_table++;
	} else {
		/* the frame-pointer chain's end, or x29 holding something else */
		if (!bp || bp < w->sp) {
			w->done = 1;
			return 1;
		}
		if (bt_unwind_read(win, bp, bp + 8)) {
			w->truncated = 1;
			return 1;
		}
		ra = bt_arch_strip_pac(win->word);
		if (bt_unwind_read(win, bp, bp)) {
			w->truncated = 1;
			return 1;
		}
		w->sp = bp + 16; /* at least: the frame's end is not known */
		bp = win->word;
		w->from_fp = 1;
		w->frames_fp++;
	}
	w->bp = bp;
	w->pc = ra;
	if (!ra) {
		w->done = 1; /* the outermost frame */
		return 1;
	}
	return 0;
}
#else
/*
 * x86-64: CFA = rsp or rbp + offset (or the PLT's), the return address at CFA - 8, the caller's
 * rbp where the row says.
 */
static __always_inline int bt_unwind_caller(struct bt_unwind_walk *w, struct bt_unwind_window *win,
					    __u32 n, __u64 pc, __u64 bp)
{
	__u64 cfa, ra, row;

	/* a return address is just past its call, which may be a function's last instruction */
	row = bt_unwind_lookup(&w->cache, win, n ? pc - 1 : pc);
	switch (row >> 48 & 0xff) {
	case BT_CFA_RSP:
		cfa = w->sp + (__s32)row;
		break;
	case BT_CFA_RBP:
		cfa = w->bp + (__s32)row;
		win->memo.need_bp |= win->memo.bp_regs;
		break;
	case BT_CFA_PLT:
		cfa = w->sp + 8 + ((pc & 15) >= 11 ? 8 : 0);
		break;
	case BT_CFA_END:
	case BT_CFA_SIGNAL:
		w->done = 1;
		return 1;
	default:
		row = 0; /* no rule we follow: frame pointers */
		w->no_table = 1;
		break;
	}
	if (row) {
		if (cfa <= w->sp || bt_unwind_read(win, w->sp, cfa - 8)) {
			w->truncated = 1;
			return 1;
		}
		ra = bt_unwind_real_ra(win, win->word, cfa - 8);
		if ((row >> 56) == BT_RBP_CFA) {
			bp = bt_unwind_read(win, w->sp, cfa + (__s16)(row >> 32)) ? 0 : win->word;
			win->memo.bp_regs = 0;
		} else if ((row >> 56) == BT_RBP_UNDEFINED) {
			bp = 0;
			win->memo.bp_regs = 0;
		}
		w->sp = cfa;
		w->from_fp = 0;
		w->frames_table++;
	} else {
		/* the frame-pointer chain's end, or rbp holding something else */
		win->memo.need_bp |= win->memo.bp_regs;
		win->memo.bp_regs = 0;
		if (!bp || bp < w->sp) {
			w->done = 1;
			return 1;
		}
		if (bt_unwind_read(win, bp, bp + 8)) {
			w->truncated = 1;
			return 1;
		}
		ra = bt_unwind_real_ra(win, win->word, bp + 8);
		if (bt_unwind_read(win, bp, bp)) {
			w->truncated = 1;
			return 1;
		}
		w->sp = bp + 16;
		bp = win->word;
		w->from_fp = 1;
		w->frames_fp++;
	}
	w->bp = bp;
	w->pc = ra;
	if (!ra) {
		w->done = 1; /* the outermost frame */
		return 1;
	}
	return 0;
}
#endif

/*
 * The thread's current Python frame into p->frame, from its PyThreadState: the interpreter's
 * thread-state key (p->py.tss) names a pthread TLS slot, found from the thread pointer as
 * glibc lays it out (keys below 32 live in the thread's own struct pthread, at a signed offset
 * from the thread pointer: after it on x86-64, before it on aarch64; symbolize/bt_python.c).
 * The thread pointer is the one the kernel saved when the thread last left a CPU: x86-64's
 * fsbase, aarch64's tpidr_el0 (thread.uw.tp_value, saved at each switch: a thread that has
 * not left a CPU since its exec still has its parent's, whose reads fail or find no code
 * object, as any bad pointer here). The key's value is the sampled thread's own state, whether
 * it holds the GIL or not; 3.9 and 3.10's _PyRuntime.gilstate.tstate_current is the GIL
 * holder's, another thread's while this one sleeps or waits, so it is not used. Every read is
 * of the process's memory, checked: false ends the Python part.
 */
static __always_inline bool bt_py_enter(struct bt_unwind_pywalk *p)
{
#if defined(__TARGET_ARCH_arm64)
	__u64 base = bpf_get_current_task_btf()->thread.uw.tp_value, ptr;
#else
	__u64 base = bpf_get_current_task_btf()->thread.fsbase, ptr;
#endif
	__u32 key;

	if (!base || !p->py.tls_base || bpf_probe_read_user(p->buf, 8, (void *)p->py.tss))
		return false;
	/* Py_tss_t: an int saying it is set, then the pthread key */
	key = (__u32)(p->buf[0] >> 32);
	if (!(__u32)p->buf[0] || key >= 32)
		return false;
	if (bpf_probe_read_user(p->buf, 8, (void *)(base + (__s64)p->py.tls_base + key * 16 + 8)))
		return false;
	ptr = p->buf[0]; /* the PyThreadState */
	if (!ptr || bpf_probe_read_user(p->buf, 8, (void *)(ptr + p->py.tstate_frame)))
		return false;
	ptr = p->buf[0];
	if ((p->py.flags & BT_PY_TWO_STEPS) &&
	    (!ptr || bpf_probe_read_user(p->buf, 8, (void *)(ptr + p->py.cframe_frame))))
		return false;
	p->frame = p->buf[0];
	return true;
}

/*
 * Read the Python frame p->frame into p->code and p->info, and step p->frame to its caller.
 * 1: a frame to write; 2: the frame an evaluator call put on the chain for itself (3.12+),
 * which ends the call's frames and is not written; 0: none (the chain's end, the cap, a read
 * that failed, a code pointer that is not a code object). Three rules say which frame is an
 * evaluator call's last (p->last): 3.11 its is_entry, 3.12+ the next one's owner, and 3.9/3.10
 * (BT_PY_FRAME_OBJECT) every frame, a frame object per call: the n-th evaluator frame of the
 * native stack, innermost first, is the n-th frame object from the thread state's.
 */
static __always_inline int bt_py_frame(struct bt_unwind_pywalk *p)
{
	__u64 frame = p->frame, code, insn, first, fo, lasti;
	__u32 len = p->py.frame_read;
	__u8 entry;

	if (frame < 4096 || frame >= BT_USER_TOP || p->nframes >= BT_PY_MAX_FRAMES)
		return 0;
	if (len > BT_PY_CODE_READ)
		len = BT_PY_CODE_READ;
	if (len < 8)
		len = 8;
	if (bpf_probe_read_user(p->buf, len, (void *)frame))
		return 0;
	code = p->buf[(p->py.frame_code >> 3) & (BT_PY_CODE_READ / 8 - 1)];
	insn = p->buf[(p->py.frame_instr >> 3) & (BT_PY_CODE_READ / 8 - 1)];
	p->frame = p->buf[(p->py.frame_back >> 3) & (BT_PY_CODE_READ / 8 - 1)];
	entry = ((__u8 *)p->buf)[p->py.frame_entry & (BT_PY_CODE_READ - 1)];
	if (p->py.flags & BT_PY_ENTRY_OWNER) {
		if (entry == BT_PY_OWNED_BY_CSTACK)
			return 2;
		entry = 0; /* the next frame says whether this one is the call's last */
	}
	/* 3.9, 3.10: the call's one frame object is its last (no branch: fewer verifier paths) */
	p->last = (!p->frame || entry) | ((p->py.flags / BT_PY_FRAME_OBJECT) & 1);
	if (code < 4096 || code >= BT_USER_TOP ||
	    bpf_probe_read_user(p->buf, BT_PY_CODE_READ, (void *)code) ||
	    p->buf[1] != p->py.code_type)
		return 0;
	/* the instruction last begun, in 2-byte code units from the first; before it: 0 */
	first = code + p->py.code_insns;
	/*
	 * 3.9, 3.10 (fo all ones): f_lasti, an int, made the address of its instruction from first
	 * (3.10's code units doubled into bytes), so that -1, before the first instruction, is past
	 * any code: unknown. Masks, not branches: each branch here is another path through the
	 * rest for the verifier (~200 instructions more per program, docs/python.md).
	 */
	fo = 0 - (__u64)((p->py.flags / BT_PY_FRAME_OBJECT) & 1);
	lasti = first + ((__u64)(__u32)insn << (((p->py.flags / BT_PY_LASTI_BYTES) & 1) ^ 1));
	insn = (insn & ~fo) | (lasti & fo);
	insn = insn < first ? 0 : (insn - first) >> 1;
	if (insn >= BT_PY_INSN_UNKNOWN)
		insn = BT_PY_INSN_UNKNOWN;
	p->code = BT_PY_CODE_WORD(code, p->py.row);
	p->info = BT_PY_INFO_WORD(bt_py_check(p->buf, p->py.code_check), insn);
	p->nframes++;
	return 1;
}

/*
 * The Python part of this evaluator call could not be read whole: the marker frame's words
 * (a code word of no code object) are written next, the walk's last Python ones, so that the
 * stack says so rather than end its Python frames early without a word. Counted per stack.
 */
static __always_inline void bt_py_unread(struct bt_unwind_pywalk *p)
{
	bt_unwind_count(BT_UNWIND_STAT_PY_UNREAD, 1);
	p->code = BT_PY_UNREAD_CODE;
	p->info = BT_PY_UNREAD_INFO;
	p->last = 1;
	p->gap = 1;
}

static __always_inline bool bt_py_in_eval(const struct bt_unwind_py *py, __u64 pc)
{
	return (pc >= py->eval_start[0] && pc < py->eval_end[0]) ||
	       (pc >= py->eval_start[1] && pc < py->eval_end[1]);
}

/*
 * Step n of a walk at an evaluator frame, or inside the Python frames that stand for it: the
 * word to write at n into p->word, and whether the native step past the evaluator follows now
 * (1) or the next step writes Python words still (0); -1 when the frame is written natively
 * (not Python, nothing readable). A global function, checked once on its own: inlined, its
 * registers spilled to bt_unwind_frame()'s stack, which with the lookup's calls under it took
 * funcslower's uprobe.session program past 6.1's 512 bytes (meta/bpf_stack).
 */
__attribute__((noinline)) int bt_py_step(struct bt_unwind_pywalk *p, __u32 n, __u64 pc)
{
	int got;

	if (!p)
		return -1;
	switch (p->state) {
	case BT_PY_INFO:
		p->word = p->info;
		got = p->last ? 2 : bt_py_frame(p);
		if (got == 1 || (!got && !p->gap)) {
			/*
			 * none: the chain broke inside the call (the cap, a failed read, no code
			 * object): the marker next, then the evaluator's caller
			 */
			if (!got)
				bt_py_unread(p);
			p->state = BT_PY_CODE;
			return 0;
		}
		/* the call's frames written (or the chain ended): the evaluator's caller next */
		p->state = got == 2 && !p->gap ? BT_PY_BETWEEN : BT_PY_OFF;
		return 1;
	case BT_PY_CODE:
		p->word = p->code;
		p->state = BT_PY_INFO;
		return 0;
	case BT_PY_OFF:
	case BT_PY_FIND:
		return -1;
	}
	if (!p->py.tss || !bt_py_in_eval(&p->py, pc))
		return -1;
	/*
	 * Its Python frames may change under the same native stack, and one not read now (the
	 * runtime not set up yet) may be read next time: the walk is not kept for the thread
	 */
	p->met = 1;
	got = p->state == BT_PY_NONE && !bt_py_enter(p) ? 0 : bt_py_frame(p);
	if (got == 2) {
		p->state = BT_PY_BETWEEN; /* a call with no Python frame of its own yet */
		return -1;
	}
	if (!got)
		bt_py_unread(p); /* the marker in the evaluator's place */
	p->eval_n = n;
	p->word = p->code;
	p->state = BT_PY_INFO;
	return 0;
}

/*
 * Frame n: write w->pc, then find its caller. 0: go on; 1: the walk is over. A global
 * function, which the verifier checks once with w's fields unknown: inlined in the loop's
 * callback it was checked again for each state the walk's steps left (the callback is walked
 * until its states repeat), offcputime's program took ~70,000 instructions and 0.2 s to load.
 * n is the loop's index, never w->n, for the same reason.
 */
__attribute__((noinline)) int bt_unwind_frame(struct bt_unwind_walk *w, __u32 n)
{
	struct bt_unwind_window *win;
	struct bt_stack_value *v;
	__u64 pc, bp;
	__u32 k, slot;

	if (!w)
		return 1;
	pc = w->pc;
	bp = w->bp;
	slot = w->slot; /* a key on the stack: 6.1 takes no other memory as a map key */
	v = bpf_map_lookup_elem(&bt_stack_scratch, &slot);
	win = bpf_map_lookup_elem(&bt_unwind_windows, &slot);
	if (!v || !win || n >= BT_MAX_STACK_DEPTH) {
		w->truncated = 1;
		return 1;
	}
	if (pc < 4096 || pc >= BT_USER_TOP) {
		w->truncated = 1; /* not code: a corrupt stack */
		return 1;
	}
	/* frames past nr are zero (probes/bt_stack.h): clear each block as the walk enters it */
	if (!(n & (BT_STACK_BLOCK - 1))) {
#pragma unroll
		for (k = 0; k < BT_STACK_BLOCK; k++)
			v->ips[(n + k) & BT_MAX_STACK_DEPTH] = 0;
	}
	if (bt_unwind_py_on) {
		int py;

		/*
		 * A process not indexed yet learns it is Python where its walk finds the
		 * interpreter's mapping by file (bt_py_by_table): find pc's before its step, or
		 * an evaluator frame that is the walk's first in that mapping (a profile's sample
		 * in the evaluator) would be written natively. The step's own lookup then hits.
		 */
		if (win->py.state == BT_PY_FIND) {
			bt_unwind_lookup(&w->cache, win, n ? pc - 1 : pc);
			bt_py_by_table(&win->py, w->cache.table, w->cache.bias);
		}
		py = bt_py_step(&win->py, n, pc);

		if (py >= 0) {
			v->ips[n & BT_MAX_STACK_DEPTH] = win->py.word;
			w->n = n + 1;
			return py ? bt_unwind_caller(w, win, win->py.eval_n, pc, bp) : 0;
		}
	}
	v->ips[n & BT_MAX_STACK_DEPTH] =
		pc | (bt_unwind_marks && w->from_fp ? BT_UNWIND_MARK_FP : 0);
	w->n = n + 1;

	return bt_unwind_caller(w, win, n, pc, bp);
}

static long bt_unwind_step(__u64 index, void *ctx)
{
	return bt_unwind_frame(ctx, index) ? 1 : 0;
}

/*
 * Ask user space to index tgid (again): it is not in bt_unwind_procs (first seen mid-run, or
 * evicted from the LRU), or has mapped code since it was indexed (dlopen). At most once per
 * BT_UNWIND_ASK_NS per process: a pc that stays in no table (JIT code in a mapping made after
 * indexing, a frame-pointer walk into garbage) must not flood the ring.
 */
/* A call of its own: its note is not on the stack of the walk's deepest calls (512 bytes on 6.1) */
static __noinline void bt_unwind_ask(void *ctx, __u32 tgid)
{
	struct bt_pid_note note = { .tgid = tgid, .exec = BT_PID_NOTE_REINDEX };
	struct bt_unwind_ask_state *st, first = { bpf_ktime_get_ns(), BT_UNWIND_ASK_FIRST_NS };

	st = bpf_map_lookup_elem(&bt_unwind_asked, &tgid);
	if (st && first.at - st->at < st->gap)
		return;
	if (st) {
		st->at = first.at;
		st->gap = st->gap < BT_UNWIND_ASK_NS / 2 ? st->gap * 2 : BT_UNWIND_ASK_NS;
	} else {
		bpf_map_update_elem(&bt_unwind_asked, &tgid, &first, BPF_ANY);
	}
	bt_unwind_count(BT_UNWIND_STAT_ASKED, 1);
	bt_event_output_to(ctx, &bt_new_pids, BT_EVENTS_LOST_PIDS, &note, sizeof(note));
}

/*
 * The uretprobe trampoline's address (0: no uprobes in the process) and the real return
 * addresses of the task's innermost pending uretprobes, with the stack slots they were taken
 * from.
 */
static __always_inline __u64 bt_unwind_pending_rets(struct task_struct *task, __u64 *slot,
						    __u64 *addr)
{
	/* BTF pointer loads: a NULL on the way reads as 0 */
	__u64 tramp = task->mm->uprobes_state.xol_area->vaddr;
	struct return_instance *ri;
	__u32 k;

	if (!tramp)
		return 0;
	ri = task->utask ? task->utask->return_instances : NULL;
#pragma unroll
	for (k = 0; k < BT_UNWIND_RETS; k++) {
		if (ri) {
			slot[k] = ri->stack;
			addr[k] = ri->orig_ret_vaddr;
			ri = ri->next;
		} else {
			slot[k] = addr[k] = 0; /* the memory may hold an earlier walk's */
		}
	}
	return tramp;
}

/*
 * Send the current user stack to be unwound in user space once the process is indexed: its
 * registers and the top of its stack from sp, as perf's --call-graph dwarf does. fallback is
 * the stack the walk stored meanwhile (partly by frame pointers), used when user space cannot
 * unwind it. Returns the deferred id the counts carry in its place, or 0 when none was sent
 * (the ring half full: announcements and exits keep the other half; the process's quota
 * spent), and the stored walk stands, counted against the process. A global function, as
 * bt_stack_store is: checked once, on its own.
 */
__attribute__((noinline)) __u64 bt_unwind_defer(__u32 slot, __u64 fallback, __u32 gen, __u32 miss)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u32 tgid = bpf_get_current_pid_tgid() >> 32, k;
	struct bt_unwind_ask_state *st;
	struct bt_stack_sample *s;
	struct pt_regs *regs;
	__u64 top, len, id;
	__u32 why;

	if (!bt_unwind_defer_on || !bt_use_ringbuf)
		return 0;
	st = bpf_map_lookup_elem(&bt_unwind_asked, &tgid);
	why = BT_UNWIND_STAT_KEPT_QUOTA;
	if (st && st->samples >= BT_UNWIND_SAMPLES_MAX)
		goto partial;
	why = BT_UNWIND_STAT_KEPT_RING;
	if (bpf_ringbuf_query(&bt_new_pids, BPF_RB_AVAIL_DATA) >
	    bpf_ringbuf_query(&bt_new_pids, BPF_RB_RING_SIZE) / 2)
		goto partial;
	s = bpf_map_lookup_elem(&bt_unwind_sample_scratch, &slot);
	if (!s)
		goto partial;
	regs = (struct pt_regs *)bpf_task_pt_regs(task);
	s->ip = PT_REGS_IP(regs);
	s->sp = PT_REGS_SP(regs);
	s->bp = PT_REGS_FP(regs);
	s->lr = bt_arch_link_reg(regs);
	s->tramp = bt_unwind_pending_rets(task, s->ret_slot, s->ret_addr);
	/*
	 * The main thread's stack ends a little above where it started (argv and the environment
	 * are there): read no further. Else as much as there is, halving where the read faults
	 * (the end of a thread's stack mapping).
	 */
	top = task->mm->start_stack;
	len = BT_STACK_SAMPLE_BYTES;
	if (top > s->sp && top - s->sp < BT_STACK_SAMPLE_BYTES - 64)
		len = ((top - s->sp) + 64) & ~7ULL;
#pragma unroll
	for (k = 0; k < 4; k++) {
		len &= 2 * BT_STACK_SAMPLE_BYTES - 1;
		if (len > BT_STACK_SAMPLE_BYTES)
			len = BT_STACK_SAMPLE_BYTES;
		if (!bpf_probe_read_user(s->stack, len, (void *)s->sp))
			break;
		len >>= 1;
	}
	why = BT_UNWIND_STAT_KEPT_READ;
	if (k == 4)
		goto partial;
	s->len = len;
	s->miss = miss;
	s->at_ns = bpf_ktime_get_boot_ns();
	id = __sync_fetch_and_add(&bt_stack_deferred_last, 1) + 1;
	id = BT_STACK_DEFERRED_BIT | id << 4 | gen;
	s->id = id;
	s->fallback = fallback;
	s->note.tgid = tgid;
	s->note.exec = BT_PID_NOTE_SAMPLE;
	s->note.start_ns = task->group_leader->start_boottime;
	if (len > BT_STACK_SAMPLE_BYTES) /* it is not: said for the verifier */
		len = BT_STACK_SAMPLE_BYTES;
	/* woken as announcements are (bt_events.bpf.h): one left unwoken behind this would wait */
	why = BT_UNWIND_STAT_KEPT_RING;
	if (bpf_ringbuf_output(&bt_new_pids, s, offsetof(struct bt_stack_sample, stack) + len, 0))
		goto partial;
	if (st)
		st->samples++;
	return id;
partial:
	bt_unwind_count(why, 1);
	if (st)
		st->partial++;
	return 0;
}

/* Stacks of tgid left partly walked by frame pointers (bt_unwind_defer). */
static __always_inline __u32 bt_unwind_partial(__u32 tgid)
{
	struct bt_unwind_ask_state *st;

	if (!bt_unwind_on)
		return 0;
	st = bpf_map_lookup_elem(&bt_unwind_asked, &tgid);
	return st ? st->partial : 0;
}

/* Everything the walker keeps of tgid's image (exec, exit). */
static __always_inline void bt_unwind_forget(__u32 tgid)
{
	if (!bt_unwind_on)
		return;
	bpf_map_delete_elem(&bt_unwind_procs, &tgid);
	bpf_map_delete_elem(&bt_unwind_asked, &tgid);
	bpf_map_delete_elem(&bt_unwind_found, &tgid);
}

static __always_inline __u32 bt_unwind_memo_slot(__u32 tid)
{
	return (tid * 0x9e3779b9U) >> 28 & (BT_UNWIND_MEMOS - 1);
}

/*
 * The id of the current thread's user stack when it is the stack its last walk on this CPU
 * found, within the stack generation whose low bit the caller writes under (gen_bit; struct
 * bt_unwind_memo); 0 when it may not be. Uses scratch buffer slot's window. A global
 * function, checked once on its own; what the walk after it needs is left in the window, not
 * in the caller's locals, whose stack the walk's calls leave no room for (meta/bpf_stack).
 */
__attribute__((noinline)) __u64 bt_unwind_memo_find(__u32 slot, __u32 gen_bit)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u32 tid = task->pid, idx = bt_unwind_memo_slot(tid), i, span, gen, zero = 0, *g;
	struct bt_unwind_window *win;
	struct bt_unwind_memo *m;
	struct pt_regs *regs;
	__u64 seq, diff = 0;

	m = bpf_map_lookup_elem(&bt_unwind_memos, &idx);
	win = bpf_map_lookup_elem(&bt_unwind_windows, &slot);
	g = bpf_map_lookup_elem(&bt_stack_gen, &zero);
	if (!m || !win || !g)
		return 0;
	/* the whole counter: a walk kept is good for its own generation only */
	gen = *g;
	win->memo.gen = gen;
	win->memo.gen_ok = (gen & 1) == gen_bit; /* not flipped since the caller read it */
	if (!win->memo.gen_ok)
		return 0;
	seq = m->seq;
	if ((seq & 1) || m->tid != tid || m->gen != gen || m->start_time != task->start_time ||
	    m->exec_id != task->self_exec_id)
		return 0;
	regs = (struct pt_regs *)bpf_task_pt_regs(task);
	if (PT_REGS_IP(regs) != m->walk.pc || PT_REGS_SP(regs) != m->walk.sp ||
	    (m->walk.need_bp && PT_REGS_FP(regs) != m->walk.bp))
		return 0;
	span = m->walk.span;
	if (!span || span > BT_UNWIND_WINDOW)
		return 0;
	if (bpf_probe_read_user(win->words, span, (void *)m->walk.sp))
		return 0;
#pragma unroll
	for (i = 0; i < BT_UNWIND_MEMO_WORDS; i++) {
		if (i >= m->walk.n)
			break;
		diff |= win->words[m->walk.off[i] & (BT_UNWIND_WINDOW / 8 - 1)] ^ m->walk.val[i];
	}
	if (diff || m->seq != seq)
		return 0;
	bt_unwind_count(BT_UNWIND_STAT_STACKS, 1);
	bt_unwind_count(BT_UNWIND_STAT_MEMO, 1);
	bt_unwind_count(BT_UNWIND_STAT_FRAMES_TABLE, m->walk.frames_table);
	bt_unwind_count(BT_UNWIND_STAT_FRAMES_FP, m->walk.frames_fp);
	return m->id;
}

/*
 * The Python stacks each CPU sent last (struct bt_py_stack_note), by id and process: sent once,
 * and again only when another took its place (or after a generation flip, which changes ids),
 * not at every event. A per-CPU table rather than "stored now": marking new entries in
 * bt_stack_store() cost offcputime's program ~600 instructions of the verifier's budget.
 */
#define BT_PY_NOTED 1024
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, BT_PY_NOTED);
	__type(key, __u32);
	__type(value, __u64);
} bt_py_noted SEC(".maps");

/* Send the Python stack id to have its names read while the process lives, once. */
static __always_inline void bt_py_stack_note(__u64 id)
{
	struct bt_py_stack_note n = { .note.exec = BT_PID_NOTE_PYTHON, .id = id };
	__u32 tgid = bpf_get_current_pid_tgid() >> 32, *seen, slot;
	/* the process too: two running one script can store the same stack, each its own names */
	__u64 key = id ^ (tgid * 0x9e3779b97f4a7c15ULL), *noted, *lost;

	slot = (__u32)(key >> 4) % BT_PY_NOTED;
	noted = bpf_map_lookup_elem(&bt_py_noted, &slot);
	if (!bt_use_ringbuf || !noted || *noted == key)
		return;
	*noted = key;
	n.note.tgid = tgid;
	seen = bpf_map_lookup_elem(&bt_seen_pids, &n.note.tgid);
	if (seen)
		n.note.cookie = *seen;
	if (!bpf_ringbuf_output(&bt_new_pids, &n, sizeof(n), 0))
		return;
	slot = BT_EVENTS_LOST_PIDS;
	lost = bpf_map_lookup_elem(&bt_events_lost, &slot);
	if (lost)
		__sync_fetch_and_add(lost, 1);
}

/*
 * A user stack walked whole and stored as id (slot's): the walk is kept for the thread's next
 * event, or, with Python frames, their names are asked for now (once: bt_py_noted).
 */
__attribute__((noinline)) int bt_unwind_stored(__u32 slot, __u64 id)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u32 tid = task->pid, idx = bt_unwind_memo_slot(tid);
	struct bt_stack_value *v = bpf_map_lookup_elem(&bt_stack_scratch, &slot);
	struct bt_unwind_window *win;
	struct bt_unwind_memo *m;

	/* never kept (win->memo.bad): its Python frames change under the same registers */
	if (v && v->pad == BT_STACK_PAD_PYTHON) {
		bt_py_stack_note(id);
		return 0;
	}
	m = bpf_map_lookup_elem(&bt_unwind_memos, &idx);
	win = bpf_map_lookup_elem(&bt_unwind_windows, &slot);
	if (!m || !win || win->memo.bad || !win->memo.n || !win->memo.gen_ok)
		return 0;
	m->seq++;
	m->tid = tid;
	m->start_time = task->start_time;
	m->exec_id = task->self_exec_id;
	m->gen = win->memo.gen;
	m->id = id;
	m->walk = win->memo;
	m->seq++;
	return 0;
}

/*
 * The walk's frames, one per bpf_loop() step. A call of its own, like bt_unwind_ask() and
 * bt_unwind_defer(): the walker's only ways in from a program. Where the walker is off, the
 * loader drops these calls (lib/attach/bt_skel.c), and libbpf then links none of the walk's
 * subprograms into the program: 5.10 refuses the address of bpf_loop()'s callback (a
 * BPF_PSEUDO_FUNC load, 5.13) even in code that never runs. Only the loop: its frame is the
 * smallest the verifier counts (32 bytes), where the walk's state in it took 6.1's 512 bytes
 * of stack (meta/bpf_stack) from funcslower and offwaketime.
 */
static __noinline long bt_unwind_loop(struct bt_unwind_walk *w)
{
	return bpf_loop(BT_MAX_STACK_DEPTH + 1, bt_unwind_step, w, 0);
}

/*
 * Walk the current task's user stack into the scratch buffer slot; the number of frames
 * (0: none, a kernel thread). *defer says the walk met a frame it had no table for in a
 * process not indexed (1), or in a mapping its table lacks (2): worth sending to be unwound
 * later (bt_unwind_defer).
 */
static __always_inline __u32 bt_unwind_user(void *ctx, __u32 slot, __u32 *defer)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct bt_unwind_walk w = { .slot = slot };
	struct bt_unwind_window *win;
	struct bt_stack_value *v;
	struct pt_regs *regs;

	if (task->flags & BT_PF_KTHREAD) {
		bt_unwind_count(BT_UNWIND_STAT_KTHREAD, 1);
		return 0;
	}
	regs = (struct pt_regs *)bpf_task_pt_regs(task);
	w.pc = PT_REGS_IP(regs);
	w.sp = PT_REGS_SP(regs);
	w.bp = PT_REGS_FP(regs);
	/* whether the process has a table shows at the first frame's lookup (w.cache.noproc) */
	w.cache.tgid = task->tgid; /* a BTF load, not a helper call */
	if (!w.pc)
		return 0;
	win = bpf_map_lookup_elem(&bt_unwind_windows, &slot);
	if (!win)
		return 0;
	win->tramp = bt_unwind_pending_rets(task, win->ret_slot, win->ret_addr);
	win->len = 0; /* read when the first frame needs it */
	win->prev_end = 0;
	win->top = task->mm->start_stack;
	win->memo.pc = w.pc;
	win->memo.sp = w.sp;
	win->memo.bp = w.bp;
	win->memo.n = 0;
	win->memo.bad = 0;
	win->memo.span = 0;
	win->memo.bp_regs = 1;
	win->memo.need_bp = 0;
	win->py.state = BT_PY_OFF;
	win->py.nframes = 0;
	win->py.met = 0;
	win->py.gap = 0;
	if (bt_unwind_py_on) {
		struct bt_unwind_proc *p = bpf_map_lookup_elem(&bt_unwind_procs, &w.cache.tgid);

		if (p && p->py.tss) {
			win->py.py = p->py;
			win->py.state = BT_PY_NONE;
		} else if (!p) {
			win->py.state = BT_PY_FIND;
		}
	}
	bt_unwind_loop(&w);
	if (bt_unwind_py_on) {
		bt_unwind_count(BT_UNWIND_STAT_PY_FRAMES, win->py.nframes);
		/*
		 * Nor a walk of a process whose entry lacks a mapping, or is missing: once indexed
		 * (again) it may be Python, and the same native stack would then keep its evaluator
		 */
		if (win->py.met || w.cache.noproc || w.cache.miss)
			win->memo.bad = 1;
	}
	if (!w.done && !w.truncated)
		w.truncated = 1;
	/* a walk that may come out whole later (tables for its process) is walked again */
	if (w.truncated || ((w.cache.noproc || w.cache.miss) && w.no_table))
		win->memo.bad = 1;
	win->memo.frames_table = w.frames_table;
	win->memo.frames_fp = w.frames_fp;
	v = bpf_map_lookup_elem(&bt_stack_scratch, &slot);
	if (!v || !w.n || w.n > BT_MAX_STACK_DEPTH)
		return 0;
	v->nr = w.n;
	v->pad = win->py.nframes != 0; /* BT_STACK_PAD_PYTHON: names read while it lives */
	if (bt_unwind_marks && w.truncated)
		v->ips[(w.n - 1) & BT_MAX_STACK_DEPTH] |= BT_UNWIND_MARK_TRUNC;
	bt_unwind_count(BT_UNWIND_STAT_STACKS, 1);
	if (w.cache.noproc && w.no_table)
		bt_unwind_count(BT_UNWIND_STAT_NOT_INDEXED, 1);
	if (w.cache.noproc || w.cache.miss) {
		bt_unwind_ask(ctx, w.cache.tgid);
		/*
		 * Not a walk with Python frames: unwound again in user space, it would keep its
		 * native frames only (the frames by frame pointers here are the cost)
		 */
		*defer = w.no_table && !win->py.nframes ? 1 + !w.cache.noproc : 0;
	}
	bt_unwind_count(BT_UNWIND_STAT_FRAMES_TABLE, w.frames_table);
	bt_unwind_count(BT_UNWIND_STAT_FRAMES_FP, w.frames_fp);
	if (w.truncated)
		bt_unwind_count(BT_UNWIND_STAT_TRUNCATED, 1);
	return w.n;
}

#endif
