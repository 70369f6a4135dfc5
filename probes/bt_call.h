/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A call in flight, shared by probes/bt_call.bpf.h and the tools that time calls from entry to
 * return (funcslower, funclatency; lib/attach/bt_calls.h pairs their targets). A tool's value in its
 * table of calls in flight begins with struct bt_call.
 */
#ifndef BT_CALL_H
#define BT_CALL_H

struct bt_call {
	__u64 start_ns; /* bpf_ktime_get_ns() at the entry, taken last */
	__u32 index;	/* the entry target's index in struct bt_targets */
	__u32 cookie;	/* the tool's own (funcslower: the process's announcement) */
};

/*
 * The key of an idle task's calls: the idle tasks of all CPUs share pid 0, so theirs are kept
 * per CPU (this | the CPU), apart from every real thread's (tgid << 32 | pid, pid never 0).
 */
#define BT_CALL_IDLE 0xffffffff00000000ULL

#endif
