/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Keyed summaries: the interval output of BCC's summary tools (softirqs, hardirqs,
 * biolatency, funclatency ...) from one BPF map whose key is the command's struct (a name, a
 * disk, a function ...) and whose value is made of u64 fields only: counters/totals, and
 * optionally a log2 or linear histogram (an array of u64 slots) at some offset.
 *
 *	struct bt_summary_opts o = {
 *		.key_size = sizeof(struct irq_key), .value_size = sizeof(struct irq_val),
 *		.hist = BT_SUMMARY_LOG2, .hist_off = offsetof(struct irq_val, slots) / 8,
 *		.nslots = IRQ_SLOTS,
 *	};
 *	struct bt_summary *s = bt_summary__new(bpf_map__fd(skel->maps.dist), &o);
 *	// every interval:
 *	err = bt_summary__collect(s);        // this interval's events, CPUs merged
 *	bt_summary__sort_by_value(s, 0, true); // or bt_summary__sort_by_key(s, cmp, ctx, merge)
 *	bt_summary__print_hists(s, stdout, "hardirq", print_name, NULL, "usecs");
 *	// or a table: bt_summary__print_rows(s, stdout, print_row, NULL), or walk the rows
 *	// with bt_summary__len(s), bt_summary__key(s, i), bt_summary__value(s, i)
 *	bt_summary__json(s, &json, "irqs", json_row, NULL);
 *	bt_summary__free(s);
 *
 * Per-CPU maps (hash or array) have their CPUs' copies summed; ordinary maps are read as one
 * copy. Only keys with events in the interval are rows, as after BCC's table.clear().
 *
 * Nothing is lost between read and clear, because nothing is cleared: the map holds running
 * totals that only grow, user space keeps the totals it read last time per key, and an
 * interval is the difference. Each u64 is read whole (an aligned 8-byte load), so an event is
 * counted in the interval whose read first sees it, and in no other. (Within one interval the
 * fields of a value may be read a few instructions apart: a histogram's slots can be one event
 * ahead of its total, never lost.) The BPF side must therefore never zero or delete entries.
 *
 * Hash maps whose keys come and go (per process, per function) would fill up that way:
 * with .retire_idle, a key that had no event for a whole interval is taken out of the map
 * with one lookup-and-delete, and whatever arrived between the read and the delete is carried
 * into the next interval. What remains lossy is only an update to that idle key that found
 * the entry before the delete and writes after it (a few instructions wide); kernels before
 * 5.14 (no lookup-and-delete on hash maps) widen that to the two syscalls. Arrays and maps
 * without .retire_idle lose nothing.
 *
 * LRU maps can evict a key on their own: what it gained since the last read is then unknown
 * and not reported, and if an event re-creates it, its new total (below the last one read) is
 * counted from zero, never as a negative difference.
 */
#ifndef BT_SUMMARY_H
#define BT_SUMMARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "bt_json.h"

struct bt_summary;

enum bt_summary_hist {
	BT_SUMMARY_NONE = 0, /* counters/totals only */
	BT_SUMMARY_LOG2,     /* slot i >= 1 holds [2^(i-1), 2^i - 1] (lib/output/bt_hist.h) */
	BT_SUMMARY_LINEAR,   /* slot i holds the value i */
};

struct bt_summary_opts {
	size_t key_size;
	size_t value_size; /* bytes, a multiple of 8: u64 fields only */
	enum bt_summary_hist hist;
	size_t hist_off; /* the histogram's first slot, in u64s from the value's start */
	size_t nslots;
	bool retire_idle; /* hash maps: take idle keys out of the map (see above) */
	/*
	 * Rows are what each key gained since the summary was made, not since the last collect:
	 * monotonic counters (the exporter's), kept in user space across retired and evicted
	 * entries, so every key ever seen stays: for maps whose keys are bounded (disks, vectors,
	 * functions), or a caller that bounds what it shows.
	 */
	bool running;
	/*
	 * What the map holds, for the one line a command prints when it cannot be read:
	 * "cannot read the WHAT: ..." (bt_summary__open(), bt_summary__collect()). NULL: no line,
	 * the caller says it.
	 */
	const char *what;
	/* Ties of sort_by_value, and sort_by_key without cmp: 4- and 8-byte keys as numbers
	 * (array indexes), others by bytes. */
};

/* A summary's rows as its map declares them: the key's and the value's types. */
#define BT_SUMMARY_ROWS(key_type, value_type) \
	.key_size = sizeof(key_type), .value_size = sizeof(value_type)
/* Rows whose value holds a log2 histogram of n slots in its member slots[]. */
#define BT_SUMMARY_LOG2_ROWS(key_type, value_type, slots, n)                                \
	BT_SUMMARY_ROWS(key_type, value_type), .hist = BT_SUMMARY_LOG2,                     \
					       .hist_off = offsetof(value_type, slots) / 8, \
					       .nslots = (n)

/*
 * Summarize the BPF map map_fd. Checks the map's key and value sizes against opts. NULL with
 * errno set on failure (EINVAL: sizes differ or a bad opts).
 */
struct bt_summary *bt_summary__new(int map_fd, const struct bt_summary_opts *opts);
/* bt_summary__new() into *s: 0, or -errno after the line opts->what names. */
int bt_summary__open(struct bt_summary **s, int map_fd, const struct bt_summary_opts *opts);
void bt_summary__free(struct bt_summary *s);

/*
 * Read every key, merge the CPUs' copies and make the rows: what each key gained since the
 * previous call (or since the map was created), keys with no event left out, in map order.
 * Returns 0 or -errno (after the line opts->what names).
 */
int bt_summary__collect(struct bt_summary *s);

size_t bt_summary__len(const struct bt_summary *s);
const void *bt_summary__key(const struct bt_summary *s, size_t row);
/* This interval's value, CPUs summed: value_size / 8 u64s, valid until the next collect. */
const uint64_t *bt_summary__value(const struct bt_summary *s, size_t row);
/* The sum of one u64 field over every row. */
uint64_t bt_summary__total(const struct bt_summary *s, size_t field);

typedef int (*bt_summary_cmp_fn)(const void *key_a, const void *key_b, void *ctx);

/* The default order of keys (above), and their size: for a caller merging keys of its own. */
int bt_summary__cmp_keys(const struct bt_summary *s, const void *a, const void *b);
size_t bt_summary__key_size(const struct bt_summary *s);

/*
 * Sort rows by key with cmp (NULL: the default order above). With merge, rows whose keys
 * cmp calls equal become one (the first one's key, values added): several keys printing
 * under one name (a function and its compiler copies).
 */
void bt_summary__sort_by_key(struct bt_summary *s, bt_summary_cmp_fn cmp, void *ctx, bool merge);
/* Sort rows by one u64 field of the value; ties in key order. */
void bt_summary__sort_by_value(struct bt_summary *s, size_t field, bool descending);

/* Sort rows by keys and values together (any order a command needs). */
typedef int (*bt_summary_row_cmp_fn)(const void *key_a, const uint64_t *val_a, const void *key_b,
				     const uint64_t *val_b, void *ctx);
void bt_summary__sort(struct bt_summary *s, bt_summary_row_cmp_fn cmp, void *ctx);

/*
 * BCC's print_log2_hist/print_linear_hist with a section per key: "\n<section> = <name>\n"
 * (name printed by name_fn), then the histogram. With section NULL, name_fn (if any) prints
 * the whole header itself, newlines included; neither: no header (a map with one key).
 * Returns 0, or -EPIPE when out reported an error.
 */
typedef void (*bt_summary_name_fn)(FILE *out, const void *key, void *ctx);
int bt_summary__print_hists(const struct bt_summary *s, FILE *out, const char *section,
			    bt_summary_name_fn name_fn, void *ctx, const char *val_type);

/* A table: row_fn prints each row, in the current order. Returns 0, or -EPIPE as above. */
typedef void (*bt_summary_row_fn)(FILE *out, const void *key, const uint64_t *val, void *ctx);
int bt_summary__print_rows(const struct bt_summary *s, FILE *out, bt_summary_row_fn row_fn,
			   void *ctx);

/*
 * The rows as a JSON array named member (NULL inside an array): one object per row whose
 * members row_fn writes (key fields, totals), then, for histogram summaries, "hist": an array
 * of {"low", "high", "count"} from the first slot BCC prints to the last non-empty one.
 */
typedef void (*bt_summary_json_fn)(struct bt_json *j, const void *key, const uint64_t *val,
				   void *ctx);
void bt_summary__json(const struct bt_summary *s, struct bt_json *j, const char *member,
		      bt_summary_json_fn row_fn, void *ctx);

/*
 * One output of an interval tool's --json: JSON Lines, one compact object per output, opened
 * with "ts" (local time, "%Y-%m-%d %H:%M:%S" as BCC's JSON histograms) and "val_type" (the
 * unit: "usecs", "nsecs", "count" ...; NULL: none). The tool adds its members (rows through
 * bt_summary__json) and closes it with bt_summary_json_end(), which ends the line.
 */
void bt_summary_json_begin(struct bt_json *j, FILE *out, const char *val_type);
void bt_summary_json_end(struct bt_json *j);
/* Such an output holding only the rows (bt_summary__json() as member): the common case. */
void bt_summary__json_line(const struct bt_summary *s, FILE *out, const char *val_type,
			   const char *member, bt_summary_json_fn row_fn, void *ctx);

/*
 * A histogram tool's output of an interval as such a line (biolatency, funclatency): the rows
 * as member, or with member NULL its lone histogram (a map of one key) as "hist", empty before
 * the first event; then, with totals, "total" and "count" (totals[0] and [1]).
 */
void bt_summary__json_hists_line(const struct bt_summary *s, FILE *out, const char *val_type,
				 const char *member, bt_summary_json_fn row_fn, void *ctx,
				 const uint64_t *totals);

/* One histogram as such a JSON array (also for commands that print a lone histogram). */
void bt_json_hist(struct bt_json *j, const char *member, enum bt_summary_hist kind,
		  const uint64_t *slots, size_t nslots);

/*
 * For tests: the map behind a summary, as callbacks. lookup fills ncpu copies of the value
 * (ncpu 1: an ordinary map); next_key and the lookups return 0 or -errno (-ENOENT: no such
 * key / no more keys); lookup_and_delete may be NULL (the map is then never shrunk).
 */
struct bt_summary_map {
	int ncpu;
	int (*next_key)(void *ctx, const void *prev, void *next);
	int (*lookup)(void *ctx, const void *key, uint64_t *vals);
	int (*lookup_and_delete)(void *ctx, const void *key, uint64_t *vals);
	void *ctx;
};
struct bt_summary *bt_summary__new_map(const struct bt_summary_map *map,
				       const struct bt_summary_opts *opts);

#endif
