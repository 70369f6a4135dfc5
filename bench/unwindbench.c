// SPDX-License-Identifier: GPL-2.0
/*
 * unwindbench: what building an unwind table (symbolize/unwind_table.c) costs per file:
 * wall time (best and median of -r runs, file cache warm after the first) and CPU time (the
 * machine may be shared), FDEs, rows and table bytes. Defaults to libc and the largest library the issue names (libLLVM, ~100 MB).
 * usage: unwindbench [-r RUNS] [-d] [file...]   (-d: print every row of the last file)
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bt_unwind_table.h"

static double now(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static const char *const rule_names[] = { "none", "rsp", "rbp", "plt", "end", "signal", "unsup" };
static const char *const a64_names[] = { "none", "sp", "x29", "plt", "end", "signal", "unsup" };

static void dump(const struct bt_unwind_table *t)
{
	size_t i;

	for (i = 0; i < t->nr; i++) {
		const struct bt_unwind_row *r = &t->rows[i];
		uint64_t rule = (__u32)r->cfa_offset | (uint64_t)(__u16)r->rbp_offset << 32 |
				(uint64_t)r->cfa_rule << 48 | (uint64_t)r->rbp_rule << 56;

		if (t->a64) {
			printf("%#10x %-6s %+6lld x30 %s%+lld x29 %s%+lld\n", r->pc,
			       BT_A64_CFA_RULE(rule) < 7 ? a64_names[BT_A64_CFA_RULE(rule)] : "?",
			       (long long)BT_A64_CFA_OFF(rule),
			       BT_A64_RA_IS_SAVED(rule) ? "cfa" : "same",
			       (long long)BT_A64_RA_OFF(rule),
			       r->rbp_rule == BT_RBP_SAME  ? "same"
			       : r->rbp_rule == BT_RBP_CFA ? "cfa"
							   : "undef",
			       (long long)BT_A64_FP_OFF(rule));
			continue;
		}
		printf("%#10x %-6s %+6d rbp %s%+d\n", r->pc,
		       r->cfa_rule < 7 ? rule_names[r->cfa_rule] : "?", r->cfa_offset,
		       r->rbp_rule == BT_RBP_SAME  ? "same"
		       : r->rbp_rule == BT_RBP_CFA ? "cfa"
						   : "undef",
		       r->rbp_offset);
	}
}

static int bench(const char *path, int runs, int rows)
{
	struct bt_unwind_table *t = NULL;
	double ms[64], cpu[64];
	int i, err = 0;

	for (i = 0; i < runs; i++) {
		double a = now(CLOCK_MONOTONIC), c = now(CLOCK_PROCESS_CPUTIME_ID);

		bt_unwind_table_free(t);
		t = NULL;
		err = bt_unwind_table_build(path, &t);
		ms[i] = (now(CLOCK_MONOTONIC) - a) * 1e3;
		cpu[i] = (now(CLOCK_PROCESS_CPUTIME_ID) - c) * 1e3;
		if (err) {
			printf("%s: %s\n", path, strerror(-err));
			return err;
		}
	}
	if (!t)
		return -EINVAL; /* runs < 1 */
	qsort(ms, runs, sizeof(ms[0]), cmp_double);
	qsort(cpu, runs, sizeof(cpu[0]), cmp_double);
	printf("%-44s wall best %7.2f median %7.2f ms, cpu median %7.2f ms  %7zu FDEs %8zu rows "
	       "%6zu unsupported %8.2f MiB\n",
	       path, ms[0], ms[runs / 2], cpu[runs / 2], t->nr_fdes, t->nr, t->nr_unsupported,
	       bt_unwind_table_bytes(t) / 1048576.0);
	if (rows)
		dump(t);
	bt_unwind_table_free(t);
	return 0;
}

int main(int argc, char **argv)
{
	static const char *const defaults[] = {
		"/lib/x86_64-linux-gnu/libc.so.6",
		"/usr/lib/x86_64-linux-gnu/libLLVM-14.so.1",
	};
	int opt, runs = 5, i, err = 0, rows = 0;

	while ((opt = getopt(argc, argv, "r:d")) != -1) {
		if (opt == 'd') {
			rows = 1;
		} else if (opt != 'r' || (runs = atoi(optarg)) < 1 || runs > 64) {
			fprintf(stderr, "usage: unwindbench [-r RUNS 1-64] [-d] [file...]\n");
			return 2;
		}
	}
	if (optind == argc) {
		for (i = 0; i < 2; i++) {
			if (!access(defaults[i], R_OK))
				err |= bench(defaults[i], runs, 0);
		}
	}
	for (i = optind; i < argc; i++)
		err |= bench(argv[i], runs, rows && i == argc - 1);
	return err ? 1 : 0;
}
