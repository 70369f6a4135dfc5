/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The exporter's own process_* metrics (process_cpu_seconds_total, process_resident_memory_bytes,
 * process_virtual_memory_bytes, process_open_fds, process_max_fds, process_start_time_seconds),
 * as every Prometheus client library exports them, from getrusage(), getrlimit() and /proc/self.
 */
#ifndef BT_PROM_PROCESS_H
#define BT_PROM_PROCESS_H

#include "bt_prom.h"

struct bt_proc_self {
	double cpu_seconds;	   /* user + system */
	double resident_bytes;	   /* /proc/self/stat rss, in bytes */
	double virtual_bytes;	   /* vsize */
	double open_fds;	   /* entries of /proc/self/fd */
	double max_fds;		   /* RLIMIT_NOFILE's soft limit; -1: none */
	double start_time_seconds; /* since the epoch: boot time + starttime */
};

/* 0 or -errno. */
int bt_proc_self_read(struct bt_proc_self *s);
/* The six families, one sample each. 0 or -errno. */
int bt_prom_process(struct bt_prom *p);

#endif
