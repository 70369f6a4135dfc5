/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Metrics in the Prometheus text exposition format (0.0.4) or OpenMetrics 1.0, for the
 * exporter's /metrics and its textfile mode. Samples are kept per family and written at the
 * end, so several collectors (two funccount specs) may add to one family in any order and the
 * family still comes out whole, with one HELP and one TYPE line, as the formats require.
 *
 *	struct bt_prom *p = bt_prom_new(max_series);
 *	bt_prom_family(p, "bpftools_softirq_seconds", BT_PROM_COUNTER, "Time in softirqs.");
 *	bt_prom_counter(p, (const char *[]){ "vector", "net_rx", NULL }, 1.25);
 *	bt_prom_family(p, "bpftools_bio_latency_seconds", BT_PROM_HISTOGRAM, "...");
 *	bt_prom_log2_hist(p, labels, slots, nslots, 1e-6, sum_seconds);
 *	bt_prom_write(p, out, openmetrics);
 *	bt_prom_free(p);
 *
 * Counters are named without "_total": the writer adds it to their samples (and, in the
 * Prometheus format, to their TYPE and HELP lines, as promtool wants). Metric and label names
 * are checked ([a-zA-Z_:][a-zA-Z0-9_:]*, labels without ':'); label values are escaped.
 */
#ifndef BT_PROM_H
#define BT_PROM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum bt_prom_type {
	BT_PROM_COUNTER,
	BT_PROM_GAUGE,
	BT_PROM_HISTOGRAM,
};

struct bt_prom;

/*
 * max_series: the most label sets one family takes (the cardinality bound; 0: none); the
 * rest are dropped and counted (bt_prom_dropped()). NULL on ENOMEM.
 */
struct bt_prom *bt_prom_new(size_t max_series);
void bt_prom_free(struct bt_prom *p);

/*
 * Makes name the family later samples go to (created on first use; the first call's type and
 * help stay). Returns 0, -EINVAL for a bad name or a type other than the family's, -ENOMEM.
 */
int bt_prom_family(struct bt_prom *p, const char *name, enum bt_prom_type type, const char *help);

/*
 * One sample of the current counter or gauge family. labels: name, value pairs, NULL-ended
 * (NULL: none). Returns 0, 1 when the bound dropped it, -EINVAL (no such family of that type,
 * a bad label name), -ENOMEM.
 */
int bt_prom_counter(struct bt_prom *p, const char *const *labels, double value);
int bt_prom_gauge(struct bt_prom *p, const char *const *labels, double value);

/*
 * One histogram of the current histogram family from log2 slots (lib/output/bt_hist.h: slot
 * i >= 1 holds [2^(i-1), 2^i - 1] units, slot 1 also 0; the BPF side truncates to units), so
 * everything in slots 0..i is below 2^i units: bucket le="2^i * unit" (unit: the slot unit in
 * base units, 1e-6 for microseconds as seconds) for every i from 1 to the first at or above
 * BT_PROM_LOG2_TOP base units, whether filled or not, so that every series of a family has the
 * same bounds; then "+Inf", "_sum" (given, in base units) and "_count". Returns as
 * bt_prom_counter().
 */
#define BT_PROM_LOG2_TOP 32.0 /* seconds, for latencies */
int bt_prom_log2_hist(struct bt_prom *p, const char *const *labels, const uint64_t *slots,
		      size_t nslots, double unit, double sum);

/* Label sets the bound dropped since bt_prom_new(). */
size_t bt_prom_dropped(const struct bt_prom *p);

/*
 * Every family in the order first named: the Prometheus text format, or OpenMetrics (with its
 * "# EOF"). Families without samples are left out. Returns 0, or -EIO when out failed.
 */
int bt_prom_write(const struct bt_prom *p, FILE *out, bool openmetrics);

/* The content types of the two formats, for HTTP. */
#define BT_PROM_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"
#define BT_OPENMETRICS_CONTENT_TYPE "application/openmetrics-text; version=1.0.0; charset=utf-8"

#endif
