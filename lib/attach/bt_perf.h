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

/* What to sample on, and how often (profile's -F, -c, -C, --event). */
struct bt_perf_opts {
	/*
	 * Period mode: a sample every this many units of the event (cpu-clock: nanoseconds;
	 * cycles: cycles). Frequency mode when 0: the kernel adjusts the period to give freq_hz
	 * samples a second, which on some virtual machines gives a cpu-clock event no samples at
	 * all for a busy task (perf record -F 99 on this project's VM), so callers that know the
	 * event's unit (cpu-clock) pass a period.
	 */
	unsigned long period;
	unsigned long freq_hz;
	bool cycles; /* the hardware cycles event rather than cpu-clock */
	int cpu;     /* one CPU; -1: every online CPU */
};

/*
 * Open the event o describes on its CPUs and attach prog to each. 0, or -errno after one
 * line: -ENOENT when the hardware cycles event does not exist here (no PMU: most virtual
 * machines), -BT_EUSAGE when o->cpu is not online.
 */
int bt_perf__attach(struct bpf_program *prog, const struct bt_perf_opts *o, struct bt_perf **out);
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
