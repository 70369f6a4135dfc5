/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-thread entries (a call in flight, its start time) outlive a thread that exits before the
 * event that ends them: a traced call that never returns (exit() inside it, a thread killed).
 * Left behind, they fill the map (a hash then takes no new entry: silent loss), and a thread
 * that reuses the id finds them. A tool names what its maps hold for a thread in
 * BT_THREAD_EXIT(statements using tid and id, the bpf_get_current_pid_tgid() value), whose
 * program deletes it as the thread exits; lib/bt_trace.c attaches it with the probes.
 */
#ifndef BT_THREAD_BPF_H
#define BT_THREAD_BPF_H

#define BT_THREAD_EXIT(...)                            \
	SEC("?raw_tp")                                 \
	int bt_thread_exit(void *ctx)                  \
	{                                              \
		__u64 id = bpf_get_current_pid_tgid(); \
		__u32 tid = (__u32)id;                 \
                                                       \
		(void)tid; /* or id alone */           \
		__VA_ARGS__;                           \
		return 0;                              \
	}

#endif
