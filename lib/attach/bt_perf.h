/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Timer sampling for profile-like tools: a cpu-clock perf event on every online CPU, each
 * running one BPF program (SEC("perf_event")) at a given frequency. cpu-clock is a software
 * event (an hrtimer), so it works where no hardware PMU does (virtual machines).
 *
 *	struct bt_perf *perf = NULL;
 *
 *	err = bt_perf__attach_cpu_clock(skel->progs.on_sample, 49, &perf);
 *	...
 *	bt_perf__destroy(perf);    // before the skeleton is destroyed
 */
#ifndef BT_PERF_H
#define BT_PERF_H

#include <stdbool.h>
#include <bpf/libbpf.h>

struct bt_perf;

/*
 * Open a cpu-clock event sampling freq_hz times a second on each online CPU and attach prog
 * to each. 0, or -errno after printing what failed; nothing stays open on failure.
 */
int bt_perf__attach_cpu_clock(struct bpf_program *prog, unsigned long freq_hz,
			      struct bt_perf **out);
void bt_perf__destroy(struct bt_perf *perf); /* NULL is fine */
/* How many CPUs are sampled. */
int bt_perf__cpus(const struct bt_perf *perf);

/*
 * Parse a kernel CPU list ("0-3,8,10-11\n", as /sys/devices/system/cpu/online) into
 * mask[0..n): true for each CPU listed. The number of CPUs listed, or -EINVAL for a malformed
 * list or one naming a CPU >= n.
 */
int bt_cpulist_parse(const char *list, bool *mask, int n);

#endif
