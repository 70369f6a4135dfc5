/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stack capture shared by the tools that print stacks (lib/stacks/bt_stacks.c is the user side).
 *
 * Stacks are content-addressed: a stack is taken into per-CPU scratch, hashed, and stored in
 * an ordinary hash map under its hash. A stack seen again finds its entry (the frames are
 * compared, so two stacks that share a hash each get a slot of their own); the only way to
 * lose one is a full map, which is counted. BPF_MAP_TYPE_STACK_TRACE is not used: it is
 * direct-mapped, and a second stack hashing to a taken bucket is dropped for the whole run.
 *
 * Generations make interval output safe: every entry a program writes (stacks here, counts in
 * the tool's own maps) carries the generation it read from bt_stack_gen. User space flips the
 * generation and waits until no program still runs with the old one; the old generation's
 * entries are then quiescent, and are read and freed without racing any writer.
 *
 * Processes are announced the first time they are seen (and again after exec), so user space
 * can snapshot their mappings before they exit.
 */
#ifndef BT_STACK_BPF_H
#define BT_STACK_BPF_H

#include <bpf/bpf_core_read.h>

#include "bt_common.bpf.h"
#include "bt_events.bpf.h"
#include "bt_stack.h"

#define BT_PF_EXITING 0x00000004 /* include/linux/sched.h, set as do_exit() begins */

/* vmlinux.h has no errno values */
#define BT_ENOENT 2
#define BT_EFAULT 14
#define BT_EEXIST 17

/* --stack-storage-size, set before load (probes/bt_stack.h: why two maps) */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u64);
	__type(value, struct bt_stack_short);
} bt_stacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 128);
	__type(key, __u64);
	__type(value, struct bt_stack_value);
} bt_stacks_deep SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} bt_stack_gen SEC(".maps");

/* Two scratch buffers per CPU: a program preempted mid-capture keeps its own. */
#define BT_STACK_SCRATCH 2
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, BT_STACK_SCRATCH);
	__type(key, __u32);
	__type(value, struct bt_stack_value);
} bt_stack_scratch SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} bt_stack_busy SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, BT_STACK_LOST_KINDS);
	__type(key, __u32);
	__type(value, __u64);
} bt_stack_lost SEC(".maps");

/* Processes announced, by pid: the cookie each was announced with. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 8192);
	__type(key, __u32);
	__type(value, __u32);
} bt_seen_pids SEC(".maps");

/*
 * Whether the kernel has atomic operations that return the old value (5.12+). Where it has
 * none, the loader (lib/attach/bt_skel.c) clears this before load and blanks the fetch
 * instructions of the arm never taken, which 5.10 refuses wherever they are. Before 5.12 every
 * tracing program runs with preemption disabled (migrate_disable() was preempt_disable() until
 * 5.11), so a plain read and write of a per-CPU value is not interleaved with another program.
 */
const volatile bool bt_fetch_atomics = true;

/*
 * Process cookies, counted per CPU with the CPU in the low byte, so that no fetch atomic is
 * needed (bt_note_pid() is a subprogram, out of the loader's reach). A cookie only tells apart
 * processes of one pid, over time: read after its own add, it is larger than every cookie read
 * on that CPU before that add (a program preempting this one between the add and the read only
 * makes it skip a value), and other CPUs' cookies differ in the low byte.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} bt_pid_cookie_cpu SEC(".maps");

BT_EVENT_MAP(bt_new_pids, 64 * 1024);

#include "bt_unwind.bpf.h"

const volatile bool bt_announce_pids = false; /* set when user stacks are symbolized */

static __always_inline void bt_stack_count_lost(__u32 kind)
{
	__u64 *n = bpf_map_lookup_elem(&bt_stack_lost, &kind);

	if (n)
		__sync_fetch_and_add(n, 1);
}

/* The generation to write under; read it once per event and use it for every entry. */
static __always_inline __u32 bt_stack_generation(void)
{
	__u32 zero = 0, *g = bpf_map_lookup_elem(&bt_stack_gen, &zero);

	return g ? *g & 1 : 0;
}

/*
 * Whether block b of frames lies wholly past nr frames, computed so that the verifier learns
 * nothing of nr from the loops that stop on it. A compare of nr would narrow nr's range on each
 * exit, and states that differ in a range the later code tests are never pruned: the store of
 * one stack walked ~15,000 instructions that way, 600 this way.
 */
static __always_inline __u64 bt_stack_past(__u32 b, __u32 nr)
{
	__u64 past = ((__u64)nr - (__u64)b * BT_STACK_BLOCK - 1) >> 63;

	asm volatile("" : "+r"(past)); /* else the compiler branches on nr again */
	return past;
}

/* The loops go a block of frames at a time, frames past nr being zero. */
static __always_inline __u64 bt_stack_hash(const struct bt_stack_value *v, __u32 nr)
{
	__u64 h = 0x9e3779b97f4a7c15ULL ^ nr;
	__u32 b, i;

	for (b = 0; b < (BT_MAX_STACK_DEPTH + 1) / BT_STACK_BLOCK; b++) {
		if (bt_stack_past(b, nr))
			break;
#pragma unroll
		for (i = 0; i < BT_STACK_BLOCK; i++) {
			h = (h ^ v->ips[b * BT_STACK_BLOCK + i]) * 0xff51afd7ed558ccdULL;
			h ^= h >> 32;
		}
	}
	return h;
}

/* Whether the stored frames a[0..nr) are v's; a holds 'blocks' blocks. */
static __always_inline bool bt_stack_same(const __u64 *a, const struct bt_stack_value *v, __u32 nr,
					  const __u32 blocks)
{
	__u64 diff = 0;
	__u32 blk, i;

	for (blk = 0; blk < blocks; blk++) {
		if (bt_stack_past(blk, nr))
			break;
#pragma unroll
		for (i = 0; i < BT_STACK_BLOCK; i++)
			diff |= a[blk * BT_STACK_BLOCK + i] ^ v->ips[blk * BT_STACK_BLOCK + i];
	}
	return !diff;
}

/*
 * Find or store the stack in v in map (whose entries hold 'blocks' blocks of frames); its id,
 * or BT_STACK_LOST. Both entry types start with nr and then the frames.
 */
static __always_inline __u64 bt_stack_store_in(void *map, struct bt_stack_value *v, __u64 base,
					       const __u32 blocks)
{
	__u32 nr = v->nr;
	struct bt_stack_short *old;
	__u64 id;
	int slot;

	for (slot = 0; slot < BT_STACK_SLOTS; slot++) {
		id = base | ((__u64)slot << 1);
		old = bpf_map_lookup_elem(map, &id);
		if (!old) {
			long err = bpf_map_update_elem(map, &id, v, BPF_NOEXIST);

			if (!err)
				return id;
			if (err != -BT_EEXIST)
				break;
			/* another CPU stored something under this id first: compare with it */
			old = bpf_map_lookup_elem(map, &id);
			if (!old)
				continue;
		}
		if (old->nr == nr && bt_stack_same(old->ips, v, nr, blocks))
			return id;
	}
	bt_stack_count_lost(BT_STACK_LOST_FULL);
	return BT_STACK_LOST;
}

/*
 * Store the stack in scratch buffer slot; its id. A global function: the verifier checks it
 * once, on its own, rather than in every state of every caller (offcputime's program, which
 * stores two stacks, walked 170,000 instructions with it inlined). The buffer is looked up
 * here, not passed: 6.1 takes no pointer argument's memory as a map value to store.
 */
__attribute__((noinline)) __u64 bt_stack_store(__u32 slot, __u32 gen)
{
	struct bt_stack_value *v = bpf_map_lookup_elem(&bt_stack_scratch, &slot);
	__u64 base;

	if (!v)
		return BT_STACK_LOST;
	/* bit 63 marks deferred stacks (probes/bt_stack.h) */
	base = bt_stack_hash(v, v->nr) & ~(15ULL | BT_STACK_DEFERRED_BIT);
	if (!base)
		base = 1ULL << 62;
	if (v->nr <= BT_STACK_SHORT)
		return bt_stack_store_in(&bt_stacks, v, base | gen,
					 (BT_STACK_SHORT + 1) / BT_STACK_BLOCK);
	return bt_stack_store_in(&bt_stacks_deep, v, base | BT_STACK_DEEP_BIT | gen,
				 (BT_MAX_STACK_DEPTH + 1) / BT_STACK_BLOCK);
}

/*
 * Take the current stack (flags: 0 for the kernel's, BPF_F_USER_STACK for the user's) and
 * return its id: BT_STACK_NONE when there is none to take (a kernel thread has no user stack),
 * BT_STACK_LOST when it could not be taken or stored.
 */
static __always_inline __u64 bt_get_stack(void *ctx, __u64 flags, __u32 gen)
{
	__u32 zero = 0, depth, defer = 0, *busy = bpf_map_lookup_elem(&bt_stack_busy, &zero);
	struct bt_stack_value *v;
	__u64 id = BT_STACK_LOST;
	long len;

	if (!busy)
		return BT_STACK_LOST;
	/* uprobe and fentry programs can be preempted; the one that runs meanwhile on this CPU
	 * takes the next buffer */
	if (bt_fetch_atomics) {
		depth = __sync_fetch_and_add(busy, 1);
	} else {
		depth = *busy;
		*busy = depth + 1;
	}
	v = depth < BT_STACK_SCRATCH ? bpf_map_lookup_elem(&bt_stack_scratch, &depth) : NULL;
	if (!v) {
		bt_stack_count_lost(BT_STACK_LOST_CAPTURE);
		goto out;
	}
	if (bt_unwind_on && (flags & BPF_F_USER_STACK)) {
		id = bt_unwind_memo_find(depth, gen);
		if (id)
			goto out;
		id = BT_STACK_LOST;
		len = bt_unwind_user(ctx, depth, &defer) * sizeof(__u64); /* sets nr, clears past */
	} else
		len = bpf_get_stack(ctx, v->ips, BT_MAX_STACK_DEPTH * sizeof(__u64), flags);
	if (len <= 0) {
		if (len == 0 || len == -BT_EFAULT)
			id = BT_STACK_NONE;
		else
			bt_stack_count_lost(BT_STACK_LOST_CAPTURE);
		goto out;
	}
	v->nr = len / sizeof(__u64);
	id = bt_stack_store(depth, gen);
	if (bt_unwind_on && (flags & BPF_F_USER_STACK) && !defer && id != BT_STACK_LOST)
		bt_unwind_stored(depth, id);
	if (defer) {
		__u64 deferred = bt_unwind_defer(depth, id, gen, defer == 2);

		if (deferred)
			id = deferred;
	}
out:
	__sync_fetch_and_add(busy, -1);
	return id;
}

/*
 * The current task's PF_ flags and its process's start time: by the task's BTF pointer where
 * the kernel has bpf_get_current_task_btf() (5.11: plain loads, which lockdown=confidentiality
 * allows where it refuses bpf_probe_read_kernel), else read (5.10). The test is a CO-RE
 * constant, so the verifier walks only the arm this kernel takes.
 */
static __always_inline __u32 bt_current_flags(void)
{
	if (bpf_core_enum_value_exists(enum bpf_func_id, BPF_FUNC_get_current_task_btf))
		return bpf_get_current_task_btf()->flags;
	return BPF_CORE_READ((struct task_struct *)bpf_get_current_task(), flags);
}

static __always_inline __u64 bt_current_start_ns(void)
{
	if (bpf_core_enum_value_exists(enum bpf_func_id, BPF_FUNC_get_current_task_btf))
		return bpf_get_current_task_btf()->group_leader->start_boottime;
	return BPF_CORE_READ((struct task_struct *)bpf_get_current_task(), group_leader,
			     start_boottime);
}

/*
 * Announce tgid once (per LRU lifetime, and again after exec) through bt_new_pids. Returns its
 * cookie, for the keys of counts that may be printed after the process is gone (0 when
 * processes are not announced).
 */
static __noinline __u32 bt_note_pid(void *ctx, __u32 tgid)
{
	struct bt_pid_note note = { .tgid = tgid };
	__u32 *seen, *n, zero = 0;

	if (!bt_announce_pids || !tgid)
		return 0;
	seen = bpf_map_lookup_elem(&bt_seen_pids, &tgid);
	if (seen)
		return *seen;
	/*
	 * Past its exit's announcement (a last switch in do_exit): an entry made now would never
	 * be removed, and there is nothing left to snapshot
	 */
	if (bt_current_flags() & BT_PF_EXITING)
		return 0;
	n = bpf_map_lookup_elem(&bt_pid_cookie_cpu, &zero);
	if (!n)
		return 0;
	__sync_fetch_and_add(n, 1);
	note.cookie = *n << 8 | (bpf_get_smp_processor_id() & 0xff);
	/* user space reads the process some time later: this tells it whether it is this one */
	note.start_ns = bt_current_start_ns();
	if (bpf_map_update_elem(&bt_seen_pids, &tgid, &note.cookie, BPF_NOEXIST)) {
		/* announced by another CPU in between */
		seen = bpf_map_lookup_elem(&bt_seen_pids, &tgid);
		return seen ? *seen : 0;
	}
	bt_event_output_to(ctx, &bt_new_pids, BT_EVENTS_LOST_PIDS, &note, sizeof(note));
	return note.cookie;
}

/* What was announced of tgid is over (exec, exit): forget it, say so with its cookie. */
static __always_inline void bt_pid_over(void *ctx, __u32 tgid, __u32 how, __u32 partial)
{
	struct bt_pid_note note = { .tgid = tgid, .exec = how, .partial = partial };

	/* which process of the pid this was: user space may still need its logged mappings */
	note.start_ns = bt_current_start_ns();
	__u32 *seen = bpf_map_lookup_elem(&bt_seen_pids, &tgid);

	if (seen)
		note.cookie = *seen;
	bpf_map_delete_elem(&bt_seen_pids, &tgid);
	bt_event_output_to(ctx, &bt_new_pids, BT_EVENTS_LOST_PIDS, &note, sizeof(note));
}

/*
 * exec() replaces a process's mappings under the same pid: what user space noted is stale.
 * Say so at once, and let the next traced event announce the process again (its libraries are
 * mapped by then, which they are not yet here). Attached by lib/stacks/bt_stacks.c when user stacks are
 * named: a raw_tp without a target is never auto-attached by the skeleton.
 */
SEC("?raw_tp")
int bt_on_exec(void *ctx)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32, partial;

	if (!bt_announce_pids)
		return 0;
	/*
	 * The old image's mappings, at once: until user space has read the note the walk would
	 * look the new image's pcs up in them. Its last request to be indexed goes too, or the
	 * new image's first one (libraries mapped after it was indexed) waits out the second.
	 */
	partial = bt_unwind_partial(tgid);
	bt_unwind_forget(tgid);
	/* processes snapshotted at start were never announced, but are stale all the same */
	bt_pid_over(ctx, tgid, BT_PID_NOTE_EXEC, partial);
	return 0;
}

/*
 * With the walker on: the new image's program, loader and vdso found by file at exec
 * (bt_unwind_find_at_exec), for its first walks. A program of its own, loaded only then: 5.10
 * refuses to load a program that names bpf_find_vma()'s callback at all ("number of funcs in
 * func_info doesn't match number of subprogs"), reached or not. Attached after bt_on_exec,
 * which drops the old image's finds, so it runs after it.
 */
SEC("?raw_tp")
int bt_on_exec_find(void *ctx)
{
	if (bt_unwind_on && bt_announce_pids && !bt_filtered_out())
		bt_unwind_find_at_exec(bpf_get_current_pid_tgid() >> 32);
	return 0;
}

/*
 * A process's main thread exits: nothing of the pid may outlive it in the kernel, or a new
 * process that reuses the pid is never announced (bt_seen_pids) and is walked with the old
 * one's mapping table (bt_unwind_procs). User space is told, to free its snapshot once the
 * output that may still name the process is out. Attached with bt_on_exec. Other threads
 * exiting leave the process as it is; a main thread that exits before the others (rare:
 * pthread_exit in main) only makes the next event of the process announce it again.
 */
SEC("?raw_tp")
int bt_on_exit(void *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32, partial;

	if (!bt_announce_pids || (__u32)id != tgid)
		return 0;
	partial = bt_unwind_partial(tgid);
	bt_unwind_forget(tgid);
	bt_pid_over(ctx, tgid, BT_PID_NOTE_EXIT, partial);
	return 0;
}

#endif
