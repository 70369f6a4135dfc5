// SPDX-License-Identifier: GPL-2.0
/*
 * lib/bpf/bt_events' lost counting: the kernel's per-CPU counter, per kind of event (slot), summed
 * over CPUs; the perf buffer's lost-sample count only when that counter cannot be read, never
 * added to it (the same losses would count twice). The counter is a real per-CPU array where
 * this process may create one (root or CAP_BPF).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bt_event.h"
#include "bt_events.h"
#include "harness.h"

static void test_no_counter(void)
{
	CHECK_INT(bt_events_lost_count(-1, 0, 0), 0);
	CHECK_INT(bt_events_lost_count(-1, BT_EVENTS_LOST_PIDS, 42), 42);
}

static void test_counter(void)
{
	int ncpu = libbpf_num_possible_cpus(), fd, cpu;
	uint64_t *vals;
	uint32_t slot = BT_EVENTS_LOST_PIDS;

	CHECK(ncpu > 0);
	if (ncpu <= 0)
		return;
	fd = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, "bt_events_lost", sizeof(uint32_t),
			    sizeof(uint64_t), BT_EVENTS_LOST_SLOTS, NULL);
	if (fd < 0 && (errno == EPERM || errno == EACCES)) {
		printf("# skipped: cannot create BPF maps here (%s)\n", strerror(errno));
		return;
	}
	CHECK(fd >= 0);
	if (fd < 0)
		return;
	vals = calloc(ncpu, sizeof(*vals));
	CHECK(vals != NULL);
	if (!vals)
		goto out;
	/* nothing lost yet: 0, and the perf buffer's count is not added */
	CHECK_INT(bt_events_lost_count(fd, BT_EVENTS_LOST_TOOL, 5), 0);
	for (cpu = 0; cpu < ncpu; cpu++)
		vals[cpu] = 3;
	CHECK_INT(bpf_map_update_elem(fd, &slot, vals, BPF_ANY), 0);
	CHECK_INT(bt_events_lost_count(fd, BT_EVENTS_LOST_PIDS, 5), 3ULL * ncpu);
	/* each kind of event is reported as what it is: the tool's own slot is still 0 */
	CHECK_INT(bt_events_lost_count(fd, BT_EVENTS_LOST_TOOL, 5), 0);
	/* a slot the map does not have: unreadable, so the perf buffer's count stands in */
	CHECK_INT(bt_events_lost_count(fd, BT_EVENTS_LOST_SLOTS + 3, 5), 5);
	free(vals);
out:
	close(fd);
}

int main(void)
{
	BT_RUN(test_no_counter);
	BT_RUN(test_counter);
	return bt_test_done();
}
