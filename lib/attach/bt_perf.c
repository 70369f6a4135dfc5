// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>

#include "bt_err.h"
#include "bt_perf.h"

#define ONLINE_PATH "/sys/devices/system/cpu/online"

struct bt_perf {
	struct bpf_link **links;
	int n;
};

int bt_cpulist_parse(const char *list, bool *mask, int n)
{
	const char *p = list;
	int count = 0, i;

	memset(mask, 0, n * sizeof(*mask));
	while (*p && *p != '\n') {
		unsigned long lo, hi;
		char *end;

		if (!isdigit((unsigned char)*p))
			return -EINVAL;
		lo = strtoul(p, &end, 10);
		hi = lo;
		p = end;
		if (*p == '-') {
			if (!isdigit((unsigned char)p[1]))
				return -EINVAL;
			hi = strtoul(p + 1, &end, 10);
			p = end;
		}
		if (hi < lo || hi >= (unsigned long)n)
			return -EINVAL;
		for (i = (int)lo; i <= (int)hi; i++) {
			count += !mask[i];
			mask[i] = true;
		}
		if (*p == ',')
			p++;
		else if (*p && *p != '\n')
			return -EINVAL;
	}
	return count ? count : -EINVAL;
}

/* Online CPUs into *mask (libbpf_num_possible_cpus() entries); the count or -errno. */
static int online_cpus(bool **mask, int *n)
{
	char buf[4096];
	size_t len;
	FILE *f;
	int err;

	*n = libbpf_num_possible_cpus();
	if (*n <= 0)
		return *n < 0 ? *n : -EINVAL;
	*mask = calloc(*n, sizeof(**mask));
	if (!*mask)
		return -ENOMEM;
	f = fopen(ONLINE_PATH, "re");
	if (!f)
		return -errno;
	len = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[len] = '\0';
	err = bt_cpulist_parse(buf, *mask, *n);
	return err;
}

/* The event's name, for messages. */
static const char *event_name(const struct bt_perf_opts *o)
{
	return o->cycles ? "cycles" : "cpu-clock";
}

/* Open the event on one CPU and attach prog: 0, or -errno after one line. */
static int attach_cpu(struct bt_perf *perf, struct bpf_program *prog, struct perf_event_attr *attr,
		      const struct bt_perf_opts *o, int cpu)
{
	struct bpf_link *link;
	int fd, err;

	fd = syscall(SYS_perf_event_open, attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		/* the kernel's answers for an event this machine has no counter for */
		if (o->cycles && (err == -ENOENT || err == -EOPNOTSUPP || err == -ENODEV)) {
			bt_err("no hardware cycles event on this machine (no PMU, as in most "
			       "virtual "
			       "machines): leave out --event to sample with cpu-clock");
			return -ENOENT;
		}
		bt_err("cannot open a %s sampling event on CPU %d: %s", event_name(o), cpu,
		       strerror(-err));
		return err;
	}
	link = bpf_program__attach_perf_event(prog, fd);
	if (!link) {
		err = -errno;
		close(fd);
		bt_err("cannot attach '%s' to CPU %d's sampling event: %s", bpf_program__name(prog),
		       cpu, strerror(-err));
		return err;
	}
	perf->links[perf->n++] = link; /* the link closes fd when destroyed */
	return 0;
}

int bt_perf__attach(struct bpf_program *prog, const struct bt_perf_opts *o, struct bt_perf **out)
{
	struct perf_event_attr attr = {
		.type = o->cycles ? PERF_TYPE_HARDWARE : PERF_TYPE_SOFTWARE,
		.config = o->cycles ? PERF_COUNT_HW_CPU_CYCLES : PERF_COUNT_SW_CPU_CLOCK,
		.size = sizeof(attr),
	};
	struct bt_perf *perf;
	bool *mask = NULL;
	int ncpu = 0, cpu, err;

	if (o->period) {
		attr.sample_period = o->period;
	} else {
		attr.freq = 1;
		attr.sample_freq = o->freq_hz;
	}
	perf = calloc(1, sizeof(*perf));
	if (!perf)
		return -ENOMEM;
	err = online_cpus(&mask, &ncpu);
	if (err < 0) {
		bt_err("cannot read the online CPUs (%s): %s", ONLINE_PATH, strerror(-err));
		goto fail;
	}
	err = 0;
	if (o->cpu >= 0 && (o->cpu >= ncpu || !mask[o->cpu])) {
		bt_err("CPU %d is not online", o->cpu);
		err = -BT_EUSAGE;
		goto fail;
	}
	perf->links = calloc(ncpu, sizeof(*perf->links));
	if (!perf->links) {
		err = -ENOMEM;
		goto fail;
	}
	for (cpu = 0; cpu < ncpu && !err; cpu++)
		if (mask[cpu] && (o->cpu < 0 || cpu == o->cpu))
			err = attach_cpu(perf, prog, &attr, o, cpu);
	if (err)
		goto fail;
	free(mask);
	*out = perf;
	return 0;
fail:
	free(mask);
	bt_perf__destroy(perf);
	return err;
}

int bt_perf__attach_cpu_clock(struct bpf_program *prog, unsigned long freq_hz, struct bt_perf **out)
{
	struct bt_perf_opts o = { .freq_hz = freq_hz, .cpu = -1 };

	return bt_perf__attach(prog, &o, out);
}

void bt_perf__destroy(struct bt_perf *perf)
{
	int i;

	if (!perf)
		return;
	for (i = 0; i < perf->n; i++)
		bpf_link__destroy(perf->links[i]);
	free(perf->links);
	free(perf);
}

int bt_perf__cpus(const struct bt_perf *perf)
{
	return perf ? perf->n : 0;
}
