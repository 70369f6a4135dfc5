/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A command's part in `bpftools exporter`, declared: its own start kept running with the
 * exporter's option values, and what a scrape shows as a table of metric families over the
 * run's summary (lib/output/bt_summary, running totals), read by the one collector here. A
 * command writes only what its keys need: how a key names its series, and which keys are there
 * at 0 before their first event (a series born with its first events would already hold them,
 * and Prometheus sees no increase in a counter's first sample). softirqs' is the smallest:
 *
 *	static const struct bt_collector collector = {
 *		.help = "soft IRQ time and runs per vector",
 *		.flags = BT_COLLECT_DEFAULT,
 *		BT_COLLECTOR_RUN(struct state, sum, collector_start, stop),
 *		.labels = { "vector" }, .names = vec_names, .index_keys = SOFTIRQ_VECS,
 *		.families = {
 *			{ "bpftools_softirq_seconds", BT_PROM_COUNTER, "Time spent ...",
 *			  BT_FIELD(struct softirq_stat, total_ns), 1e9 },
 *		},
 *	};
 *
 * The exporter finds collectors through the registry (struct bt_cmd's collector) and drives
 * them with bt_collector_start(), bt_collector_collect() and bt_collector_stop().
 */
#ifndef BT_COLLECTOR_H
#define BT_COLLECTOR_H

#include <stdbool.h>
#include <stddef.h>

#include "bt_prom.h"
#include "bt_summary.h"

enum bt_collector_flags {
	BT_COLLECT_DEFAULT = 1 << 0, /* in the default set, where the kernel can run it */
	BT_COLLECT_SPEC = 1 << 1,    /* takes a probe spec (--NAME SPEC, repeatable); no default */
};

#define BT_LABELS_MAX 4
#define BT_FAMILIES_MAX 3

/* A u64 field of a row, as a family's field or slots. */
#define BT_FIELD(type, member) (offsetof(type, member) / 8)

/*
 * A histogram family's fields from field on: its sum and log2 slots, members of a row of type,
 * both counted in one unit, per_second of which make a second (1e9: nanoseconds).
 */
#define BT_LOG2_SECONDS(type, sum, slots, per_second)                       \
	BT_FIELD(type, sum), per_second, BT_FIELD(type, slots),             \
		sizeof(((type *)0)->slots) / sizeof(((type *)0)->slots[0]), \
		1 / (double)(per_second)

/* One metric family: a series per key, its value from the key's row (0 for a key at 0). */
struct bt_family {
	const char *name; /* bt_prom's: a counter without "_total" */
	enum bt_prom_type type;
	const char *help;
	size_t field; /* the value, a histogram's sum: a u64 of the row (BT_FIELD) */
	double div;   /* the field over div (1e9: nanoseconds as seconds); 0: as it is */
	/* histograms: the log2 slots (BT_FIELD of the first), and one slot's unit in base units */
	size_t slots;
	size_t nslots;
	double unit;
};

/* A series' label values, in the order of the collector's names; buf for those made here. */
struct bt_labels {
	const char *v[BT_LABELS_MAX];
	char buf[BT_LABELS_MAX][64];
	size_t key_size;
};

/* A label callback for keys that are a name (a char array, NUL-padded or full). */
void bt_label_key_string(void *run, const void *key, struct bt_labels *l);

/* Keys at 0, added by a collector's zeros(); 1 from bt_keys_add(): full, stop adding. */
struct bt_keys;
int bt_keys_add(struct bt_keys *k, const void *key);

struct bt_collector {
	const char *help;   /* one line: what it exposes, for --collect's list */
	unsigned int flags; /* enum bt_collector_flags */
	/*
	 * The command's run state (size bytes, zeroed), started by the command's own start with
	 * the exporter's option values (spec: the user's probe spec for BT_COLLECT_SPEC, else
	 * NULL). start returns 0, or -errno after one line on stderr; -EOPNOTSUPP where this
	 * kernel cannot run it (the default set then leaves it out, with a note). stop ends what
	 * start made, also after a failed start, and does not free run.
	 */
	size_t size;
	int (*start)(void *run, const char *spec);
	void (*stop)(void *run);
	size_t sum_off; /* offsetof the run's struct bt_summary *: made with .running */
	/*
	 * The labels' names (NULL-ended), and their values for a key: label(), or for u32 keys
	 * that index a table of names, names[key] (with index_keys, keys past it are left out).
	 * run is the ctx of every callback.
	 */
	const char *labels[BT_LABELS_MAX + 1];
	void (*label)(void *run, const void *key, struct bt_labels *l);
	const char *const *names;
	/*
	 * The order of the series: rows by key with cmp (NULL: bt_summary's key order), those cmp
	 * calls equal merged into one; or by sort, keys and values.
	 */
	bt_summary_cmp_fn cmp;
	bool merge;
	bt_summary_row_cmp_fn sort;
	/*
	 * Keys at 0 where no row has them, read at every scrape: u32 keys 0..index_keys-1, or
	 * what zeros() adds (at most max_zeros distinct ones; 0: no bound). They take their place
	 * in cmp's order, or with zeros_after, come after the rows in the order added.
	 */
	unsigned int index_keys;
	int (*zeros)(void *run, struct bt_keys *k);
	size_t max_zeros;
	bool zeros_after;
	struct bt_family families[BT_FAMILIES_MAX]; /* in the order written */
};

/* The run state and its summary, the start and the stop: one line of a declaration. */
#define BT_COLLECTOR_RUN(type, sum, start_fn, stop_fn) \
	.size = sizeof(type), .start = start_fn, .stop = stop_fn, .sum_off = offsetof(type, sum)

/*
 * A collector's start (name) where the command's own start needs only fixed arguments, the
 * exporter's defaults (and `spec`, a BT_COLLECT_SPEC collector's): call is that start called
 * on `run`, as BT_COLLECTOR_START(collector_start, start(run, 0, true)).
 */
#define BT_COLLECTOR_START(name, call)               \
	static int name(void *run, const char *spec) \
	{                                            \
		(void)spec;                          \
		return call;                         \
	}

/* *run: the started collector's state, or NULL with the error. */
int bt_collector_start(const struct bt_collector *c, const char *spec, void **run);
/*
 * Adds the collector's families to p, its counters the totals since the start. One scrape at
 * a time; no output to stdout. Returns 0 or -errno.
 */
int bt_collector_collect(const struct bt_collector *c, void *run, struct bt_prom *p);
void bt_collector_stop(const struct bt_collector *c, void *run); /* run may be NULL */

/*
 * Collectors running together (the exporter's), scraped in the order started: each one's
 * families, then the set's own, per collector label how long its collect took and whether its
 * maps were read (bpftools_exporter_collector_duration_seconds and _success).
 */
struct bt_collector_run {
	const struct bt_collector *c;
	void *run;	/* from bt_collector_start() */
	char label[96]; /* "biolatency", "funccount:vfs_*" */
	double seconds; /* the last scrape's */
	bool ok;
};
/* Every run's families into p, timed; one that fails is said under -D and the rest go on. */
void bt_collector_runs_collect(struct bt_collector_run *v, size_t n, struct bt_prom *p);
/* The set's own families, from the last bt_collector_runs_collect(). 0 or -errno. */
int bt_collector_runs_families(const struct bt_collector_run *v, size_t n, struct bt_prom *p);

#endif
