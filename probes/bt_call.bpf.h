/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Calls timed from entry to return, the BPF side of lib/attach/bt_calls.h (funcslower, funclatency).
 * The targets are laid out as the entries 0..n-1 and then their returns: target n + i ends a
 * call of entry i. The index in the attach cookie says which fired, whatever the program (an
 * fexit, a uretprobe, a sys_exit_NAME tracepoint); lib/attach/bt_calls.c sets n (bt_call_entries)
 * before load.
 *
 * A tool keeps each thread's call in flight in a hash keyed by bt_call_thread(), its value
 * beginning with struct bt_call (probes/bt_call.h). One per thread: a nested call of a traced
 * function replaces the outer one, so the innermost call is timed (as BCC). A return checks
 * that the call is its own function's: a thread that last entered another function missed
 * that function's return (the kretprobe instance limit, longjmp), and that entry is dropped,
 * not timed against this return.
 *
 *	entry:  struct my_call c = { ...what the return needs... };
 *		bt_call_enter(&calls, 0, bt_call_thread(), &c.call, index);
 *	return: struct my_call *c = bt_call_return(&calls, key, index);
 *		if (c) { ...now - c->call.start_ns...; bt_call_done(&calls, key); }
 */
#ifndef BT_CALL_BPF_H
#define BT_CALL_BPF_H

#include "bt_call.h"
#include "bt_inflight.bpf.h"

/* The entry targets (set before load: lib/attach/bt_calls.c); the returns follow them. */
const volatile __u32 bt_call_entries = 1;

static __always_inline bool bt_call_is_return(__u32 index)
{
	return index >= bt_call_entries;
}

/* The key of the current thread's call in flight. */
static __always_inline __u64 bt_call_thread(void)
{
	__u64 id = bpf_get_current_pid_tgid();

	return (__u32)id ? id : BT_CALL_IDLE | bpf_get_smp_processor_id();
}

/* A thread's key from its ids, for a thread other than current (next at sched_switch). */
static __always_inline __u64 bt_call_key(__u32 tgid, __u32 pid)
{
	return pid ? (__u64)tgid << 32 | pid : BT_CALL_IDLE | bpf_get_smp_processor_id();
}

/*
 * At entry target index: call (the head of the tool's value, whose rest is filled) into the
 * table map under key, replacing the thread's call in flight. The start time is taken last, so
 * that the tool's bookkeeping before it is not part of the latency. A full table refuses the
 * call, counted as in-flight table number table (probes/bt_inflight.bpf.h).
 */
static __always_inline long bt_call_enter(void *map, __u32 table, __u64 key, struct bt_call *call,
					  __u32 index)
{
	call->index = index;
	call->start_ns = bpf_ktime_get_ns();
	return bt_inflight_put(map, table, &key, call, BPF_ANY);
}

/*
 * At return target index: the call it ends, or NULL: none in flight (it began before tracing,
 * the table refused it, a nested call took its place), or another function's, which is deleted.
 * The caller takes what it needs, then deletes it with bt_call_done().
 */
static __always_inline void *bt_call_return(void *map, __u64 key, __u32 index)
{
	struct bt_call *call;

	if (index < bt_call_entries)
		return NULL;
	call = bpf_map_lookup_elem(map, &key);
	if (call && call->index != index - bt_call_entries) {
		bpf_map_delete_elem(map, &key);
		return NULL;
	}
	return call;
}

static __always_inline void bt_call_done(void *map, __u64 key)
{
	bpf_map_delete_elem(map, &key);
}

#endif
