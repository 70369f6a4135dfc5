// SPDX-License-Identifier: GPL-2.0
/*
 * The process_* metrics every Prometheus client library exports for its own process (the
 * names, units and sources of client_golang's process collector), for the exporter itself:
 * dashboards and alerts on an exporter's CPU, memory and descriptors expect them.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "bt_prom_process.h"

int bt_proc_self_read(struct bt_proc_self *s)
{
	char buf[1024], *p;
	unsigned long long start = 0, vsize = 0, btime = 0;
	long long rss = 0;
	long tck = sysconf(_SC_CLK_TCK), page = sysconf(_SC_PAGESIZE);
	struct rusage ru;
	struct rlimit rl;
	struct dirent *d;
	FILE *f = NULL;
	DIR *dir = NULL;
	int err = 0, n;
	size_t len;

	*s = (struct bt_proc_self){ 0 };
	if (getrusage(RUSAGE_SELF, &ru))
		return -errno;
	s->cpu_seconds = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec +
			 ru.ru_stime.tv_usec / 1e6;
	if (!getrlimit(RLIMIT_NOFILE, &rl))
		s->max_fds = rl.rlim_cur == RLIM_INFINITY ? -1 : (double)rl.rlim_cur;
	f = fopen("/proc/self/stat", "r");
	if (!f) {
		err = -errno;
		goto cleanup;
	}
	len = fread(buf, 1, sizeof(buf) - 1, f);
	buf[len] = '\0';
	fclose(f);
	f = NULL;
	/* after the name, which may hold spaces and ')': the fields from the 3rd (state) on */
	p = strrchr(buf, ')');
	if (!p) {
		err = -EINVAL;
		goto cleanup;
	}
	n = sscanf(p + 1,
		   " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d "
		   "%llu %llu %lld",
		   &start, &vsize, &rss);
	if (n != 3) {
		err = -EINVAL;
		goto cleanup;
	}
	s->virtual_bytes = (double)vsize;
	s->resident_bytes = (double)rss * (page > 0 ? page : 4096);
	f = fopen("/proc/stat", "r");
	if (f) {
		while (fgets(buf, sizeof(buf), f))
			if (sscanf(buf, "btime %llu", &btime) == 1)
				break;
	}
	if (btime && tck > 0)
		s->start_time_seconds = btime + (double)start / tck;
	dir = opendir("/proc/self/fd");
	if (!dir) {
		err = -errno;
		goto cleanup;
	}
	while ((d = readdir(dir)))
		if (d->d_name[0] != '.')
			s->open_fds++;
	s->open_fds--; /* the one opendir() holds */
cleanup:
	if (f)
		fclose(f);
	if (dir)
		closedir(dir);
	return err;
}

int bt_prom_process(struct bt_prom *p)
{
	struct bt_proc_self s;
	int err = bt_proc_self_read(&s);

	if (err)
		return err;
	err = bt_prom_family(p, "process_cpu_seconds", BT_PROM_COUNTER,
			     "Total user and system CPU time spent in seconds.") ?:
	      bt_prom_counter(p, NULL, s.cpu_seconds) ?:
	      bt_prom_family(p, "process_resident_memory_bytes", BT_PROM_GAUGE,
			     "Resident memory size in bytes.") ?:
	      bt_prom_gauge(p, NULL, s.resident_bytes) ?:
	      bt_prom_family(p, "process_virtual_memory_bytes", BT_PROM_GAUGE,
			     "Virtual memory size in bytes.") ?:
	      bt_prom_gauge(p, NULL, s.virtual_bytes) ?:
	      bt_prom_family(p, "process_open_fds", BT_PROM_GAUGE,
			     "Number of open file descriptors.") ?:
	      bt_prom_gauge(p, NULL, s.open_fds) ?:
	      bt_prom_family(p, "process_max_fds", BT_PROM_GAUGE,
			     "Maximum number of open file descriptors.") ?:
	      bt_prom_gauge(p, NULL, s.max_fds) ?:
	      bt_prom_family(p, "process_start_time_seconds", BT_PROM_GAUGE,
			     "Start time of the process since unix epoch in seconds.") ?:
	      bt_prom_gauge(p, NULL, s.start_time_seconds);
	return err < 0 ? err : 0;
}
