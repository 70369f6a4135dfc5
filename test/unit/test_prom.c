// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bt_prom.h"
#include "harness.h"

static char *render(const struct bt_prom *p, bool openmetrics)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	CHECK_INT(bt_prom_write(p, f, openmetrics), 0);
	fclose(f);
	return buf;
}

/* Two collectors adding to one family in turns: the family comes out whole, once. */
static void test_families_whole(void)
{
	struct bt_prom *p = bt_prom_new(0);
	char *text;

	CHECK_INT(bt_prom_family(p, "bt_calls", BT_PROM_COUNTER, "Calls."), 0);
	CHECK_INT(bt_prom_counter(p, (const char *[]){ "function", "a", NULL }, 3), 0);
	CHECK_INT(bt_prom_family(p, "bt_up", BT_PROM_GAUGE, "Up."), 0);
	CHECK_INT(bt_prom_gauge(p, NULL, 1), 0);
	CHECK_INT(bt_prom_family(p, "bt_calls", BT_PROM_COUNTER, "ignored"), 0);
	CHECK_INT(bt_prom_counter(p, (const char *[]){ "function", "b", NULL }, 1e15), 0);
	CHECK_INT(bt_prom_family(p, "bt_empty", BT_PROM_GAUGE, "No samples."), 0);
	text = render(p, false);
	CHECK_STR(text, "# HELP bt_calls_total Calls.\n"
			"# TYPE bt_calls_total counter\n"
			"bt_calls_total{function=\"a\"} 3\n"
			"bt_calls_total{function=\"b\"} 1000000000000000\n"
			"# HELP bt_up Up.\n"
			"# TYPE bt_up gauge\n"
			"bt_up 1\n");
	free(text);
	text = render(p, true);
	CHECK_STR(text, "# HELP bt_calls Calls.\n"
			"# TYPE bt_calls counter\n"
			"bt_calls_total{function=\"a\"} 3\n"
			"bt_calls_total{function=\"b\"} 1000000000000000\n"
			"# HELP bt_up Up.\n"
			"# TYPE bt_up gauge\n"
			"bt_up 1\n"
			"# EOF\n");
	free(text);
	bt_prom_free(p);
}

/*
 * More families than the first allocation holds (16), each with a sample, and the first family
 * added to again after the growth: every sample is written. The families' open_memstream()
 * buffers used to live in the array realloc() moved, and the 17th family lost the samples of
 * the 16 before it (the exporter's /metrics with every collector and the process_* families).
 */
static void test_many_families(void)
{
	struct bt_prom *p = bt_prom_new(0);
	char name[32], want[64], *text;
	int i;

	for (i = 0; i < 40; i++) {
		snprintf(name, sizeof(name), "bt_f%d", i);
		CHECK_INT(bt_prom_family(p, name, BT_PROM_GAUGE, "F."), 0);
		CHECK_INT(bt_prom_gauge(p, NULL, i), 0);
	}
	CHECK_INT(bt_prom_family(p, "bt_f0", BT_PROM_GAUGE, "F."), 0);
	CHECK_INT(bt_prom_gauge(p, (const char *[]){ "k", "v", NULL }, 7), 0);
	text = render(p, false);
	for (i = 0; i < 40; i++) {
		snprintf(want, sizeof(want), "\nbt_f%d %d\n", i, i);
		CHECK(strstr(text, want) != NULL);
	}
	CHECK(strstr(text, "\nbt_f0{k=\"v\"} 7\n") != NULL);
	free(text);
	bt_prom_free(p);
}

/* Log2 slots (slot i: below 2^i units) as cumulative le buckets in base units. */
/*
 * Every series of a family has the same bounds, filled or not: an empty series and one with
 * a single latency both run from 2 us to the first bound at or above 32 s (2^25 us), then +Inf.
 */
static void test_log2_hist_layout(void)
{
	uint64_t empty[65] = { 0 }, one[65] = { 0 };
	struct bt_prom *p = bt_prom_new(0);
	char *text, *a, *b;
	size_t n = 0;

	one[3] = 1;
	one[64] = 4; /* the catch-all slot: past every bound, in +Inf only */
	CHECK_INT(bt_prom_family(p, "bt_l_seconds", BT_PROM_HISTOGRAM, ""), 0);
	CHECK_INT(bt_prom_log2_hist(p, (const char *[]){ "op", "a", NULL }, empty, 65, 1e-6, 0), 0);
	CHECK_INT(bt_prom_log2_hist(p, (const char *[]){ "op", "b", NULL }, one, 65, 1e-6, 1), 0);
	text = render(p, false);
	for (a = text; (a = strstr(a, "op=\"a\",le=")); a++)
		n++;
	CHECK_INT((int)n, 26); /* 2^1 .. 2^25 us, +Inf */
	a = strstr(text, "bt_l_seconds_bucket{op=\"a\",le=\"33.554432\"} 0\n");
	b = strstr(text, "bt_l_seconds_bucket{op=\"b\",le=\"33.554432\"} 1\n");
	CHECK(a && b);
	CHECK(strstr(text, "bt_l_seconds_bucket{op=\"b\",le=\"+Inf\"} 5\n") != NULL);
	CHECK(strstr(text, "le=\"67.108864\"") == NULL);
	free(text);
	bt_prom_free(p);

	/* the bounds' text is kept per family and unit: another unit gets its own */
	p = bt_prom_new(0);
	CHECK_INT(bt_prom_family(p, "bt_m_seconds", BT_PROM_HISTOGRAM, ""), 0);
	CHECK_INT(bt_prom_log2_hist(p, (const char *[]){ "u", "us", NULL }, one, 65, 1e-6, 1), 0);
	CHECK_INT(bt_prom_log2_hist(p, (const char *[]){ "u", "ns", NULL }, one, 65, 1e-9, 1), 0);
	text = render(p, false);
	CHECK(strstr(text, "bt_m_seconds_bucket{u=\"us\",le=\"8e-06\"} 1\n") != NULL);
	CHECK(strstr(text, "bt_m_seconds_bucket{u=\"ns\",le=\"8e-09\"} 1\n") != NULL);
	CHECK(strstr(text, "bt_m_seconds_bucket{u=\"ns\",le=\"34.359738368\"} 1\n") != NULL);
	free(text);
	bt_prom_free(p);
}

static void test_log2_hist(void)
{
	/* usecs: slot 1 [0,1], slot 2 [2,3], slot 3 [4,7]; slot 4 empty, slot 5 [16,31] */
	uint64_t slots[8] = { 0, 2, 0, 5, 0, 1, 0, 0 };
	struct bt_prom *p = bt_prom_new(0);
	char *text;

	CHECK_INT(bt_prom_family(p, "bt_lat_seconds", BT_PROM_HISTOGRAM, "Latency."), 0);
	CHECK_INT(bt_prom_log2_hist(p, (const char *[]){ "disk", "loop0", NULL }, slots, 8, 1e-6,
				    0.000045),
		  0);
	text = render(p, false);
	CHECK_STR(text, "# HELP bt_lat_seconds Latency.\n"
			"# TYPE bt_lat_seconds histogram\n"
			"bt_lat_seconds_bucket{disk=\"loop0\",le=\"2e-06\"} 2\n"
			"bt_lat_seconds_bucket{disk=\"loop0\",le=\"4e-06\"} 2\n"
			"bt_lat_seconds_bucket{disk=\"loop0\",le=\"8e-06\"} 7\n"
			"bt_lat_seconds_bucket{disk=\"loop0\",le=\"1.6e-05\"} 7\n"
			"bt_lat_seconds_bucket{disk=\"loop0\",le=\"3.2e-05\"} 8\n"
			"bt_lat_seconds_bucket{disk=\"loop0\",le=\"6.4e-05\"} 8\n"
			"bt_lat_seconds_bucket{disk=\"loop0\",le=\"+Inf\"} 8\n"
			"bt_lat_seconds_sum{disk=\"loop0\"} 4.5e-05\n"
			"bt_lat_seconds_count{disk=\"loop0\"} 8\n");
	free(text);
	bt_prom_free(p);
}

static void test_escaping_and_checks(void)
{
	struct bt_prom *p = bt_prom_new(0);
	char *text;

	CHECK_INT(bt_prom_family(p, "9bad", BT_PROM_GAUGE, ""), -EINVAL);
	CHECK_INT(bt_prom_family(p, "bad-name", BT_PROM_GAUGE, ""), -EINVAL);
	CHECK_INT(bt_prom_gauge(p, NULL, 1), -EINVAL); /* no family chosen */
	CHECK_INT(bt_prom_family(p, "bt_g", BT_PROM_GAUGE, "a \\ b\nc \"q\""), 0);
	CHECK_INT(bt_prom_family(p, "bt_g", BT_PROM_COUNTER, ""), -EINVAL);
	CHECK_INT(bt_prom_counter(p, NULL, 1), -EINVAL); /* a gauge family */
	CHECK_INT(bt_prom_gauge(p, (const char *[]){ "le", "x", NULL }, 1), -EINVAL);
	CHECK_INT(bt_prom_gauge(p, (const char *[]){ "a:b", "x", NULL }, 1), -EINVAL);
	CHECK_INT(bt_prom_gauge(p, (const char *[]){ "comm", "a\"b\\c\nd", NULL }, 0.1), 0);
	/* a traced process's name: its control bytes read \xNN (the backslash escaped) */
	CHECK_INT(bt_prom_gauge(p, (const char *[]){ "comm", "\033[2J\a\377;", NULL }, 2), 0);
	text = render(p, false);
	CHECK_STR(text, "# HELP bt_g a \\\\ b\\nc \"q\"\n"
			"# TYPE bt_g gauge\n"
			"bt_g{comm=\"a\\\"b\\\\c\\nd\"} 0.1\n"
			"bt_g{comm=\"\\\\x1b[2J\\\\x07\\\\xff;\"} 2\n");
	free(text);
	bt_prom_free(p);
	bt_prom_free(NULL);
}

/* The cardinality bound: per family, the rest dropped and counted. */
static void test_bound(void)
{
	struct bt_prom *p = bt_prom_new(2);
	uint64_t slots[3] = { 0, 1, 1 };

	CHECK_INT(bt_prom_family(p, "bt_c", BT_PROM_COUNTER, ""), 0);
	CHECK_INT(bt_prom_counter(p, (const char *[]){ "k", "1", NULL }, 1), 0);
	CHECK_INT(bt_prom_counter(p, (const char *[]){ "k", "2", NULL }, 1), 0);
	CHECK_INT(bt_prom_counter(p, (const char *[]){ "k", "3", NULL }, 1), 1);
	CHECK_INT(bt_prom_family(p, "bt_h", BT_PROM_HISTOGRAM, ""), 0);
	CHECK_INT(bt_prom_log2_hist(p, NULL, slots, 3, 1, 3), 0);
	CHECK_INT(bt_prom_dropped(p), 1);
	bt_prom_free(p);
}

int main(void)
{
	BT_RUN(test_families_whole);
	BT_RUN(test_many_families);
	BT_RUN(test_log2_hist);
	BT_RUN(test_log2_hist_layout);
	BT_RUN(test_escaping_and_checks);
	BT_RUN(test_bound);
	return bt_test_done();
}
