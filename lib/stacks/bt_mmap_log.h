/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The executable mappings of every process as the kernel makes them: perf's mmap, fork, exec
 * and exit records (a software "dummy" event per CPU, which samples nothing). A process that
 * exits before user space has read /proc/PID/maps (a short one, on a loaded machine) can still
 * be named and unwound from them, as perf does.
 *
 *	bt_mmap_log__open(&log);
 *	loop: bt_mmap_log__poll(log) when bt_mmap_log__fd(log) is readable
 *	n = bt_mmap_log__maps(log, pid, start_ns, &maps);  // after /proc/PID/maps failed
 *	bt_mmap_log__free(log);
 */
#ifndef BT_MMAP_LOG_H
#define BT_MMAP_LOG_H

#include <stddef.h>
#include <stdint.h>

#include "bt_sym.h"

struct bt_mmap_log;

/* 0, or -errno (perf events refused: the caller goes on without). */
int bt_mmap_log__open(struct bt_mmap_log **out);
void bt_mmap_log__free(struct bt_mmap_log *log); /* NULL is fine */
/* An epoll descriptor, readable when records wait. */
int bt_mmap_log__fd(const struct bt_mmap_log *log);
/* Read every record waiting; 0 or -errno. */
int bt_mmap_log__poll(struct bt_mmap_log *log);
/*
 * One record as the rings hold them (a perf_event_header first, the sample id last), from
 * elsewhere: the unit tests' processes, whose pids and times no machine can be made to give.
 */
void bt_mmap_log__handle(struct bt_mmap_log *log, const void *record);

/*
 * The executable mappings of the process pid that started at start_ns (boot time, ns; 0: the
 * one that has the pid last), since its last exec, as /proc/PID/maps had them: *maps points
 * into the log until its next poll. The count, or -ENOENT when the log has none (it started
 * before the log, and has not exec()ed or mapped code since).
 */
int bt_mmap_log__maps(struct bt_mmap_log *log, int pid, uint64_t start_ns,
		      const struct bt_sym_mapping **maps);

struct bt_mmap_log_stats {
	unsigned long long records, lost; /* read, and lost by the kernel (ring full) */
	size_t procs, exited;		  /* processes in the log; of them exited, kept */
};
void bt_mmap_log__stats(const struct bt_mmap_log *log, struct bt_mmap_log_stats *st);

#endif
