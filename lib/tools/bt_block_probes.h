/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The block tools' shared probe set (probes/bt_block_progs.bpf.h): which forms of it this
 * kernel takes, which of them a run needs, and how the submitter of a request is found.
 */
#ifndef BT_BLOCK_PROBES_H
#define BT_BLOCK_PROBES_H

#include <stdbool.h>
#include <linux/types.h>

#include "bt_cmd.h"

struct bpf_object;

/* For struct bt_cmd.probes of a command built on probes/bt_block_progs.bpf.h. */
extern const struct bt_probe bt_block_probes[];

/* How the process that submitted a request is known. */
enum bt_block_submitter {
	BT_BLOCK_SUBMITTER_UNWANTED,
	BT_BLOCK_AT_CREATION, /* block_io_start or the accounting function: the submitter runs */
	BT_BLOCK_BY_BIO,      /* noted per bio at block_getrq, taken by the request's first bio */
	BT_BLOCK_AT_ISSUE,    /* the task running at insert/issue: a kworker for requests
				 dispatched later */
};

/*
 * After bt_skel_select(): switch off the programs a run does not need (insertion is wanted
 * for the queue start of -Q; creation for that and for the submitter) and say how the
 * submitter will be found on this kernel.
 */
int bt_block_choose(struct bpf_object *obj, bool queue_start, bool submitter,
		    enum bt_block_submitter *how);

/* What a block tool's run asks of the shared probes, for bt_block_prepare(). */
struct bt_block_run {
	__u32 dev;	    /* -d: the disk as the kernel numbers it (bt_block_disk_arg); 0: all */
	const char *cgroup; /* -c: requests made by tasks in this cgroup v2 (or below) only */
	bool queue_start;   /* -Q: timed from insertion */
	bool submitter;	    /* who made each request is wanted (-c needs it) */
	bool count_merges;  /* and the bios merged into others (bt_block_count_bio_merges) */
};

/*
 * Between the skeleton's open and load, for a tool whose object declares filter_dev,
 * require_task and task_from_bio (probes/biolatency.bpf.c, biosnoop.bpf.c): -d and -c in
 * read-only data and filters, the programs this kernel takes (probes) and those the run needs
 * (bt_block_choose), and how the submitter is found (task_from_bio; *how, may be NULL, for
 * the rest). 0 or -errno (said on stderr where the steps say it).
 */
int bt_block_prepare(struct bpf_object *obj, const struct bt_block_run *r,
		     const struct bt_probe *probes, enum bt_block_submitter *how);

/*
 * Requests whose completion was not seen: the larger of those found stale (an issued entry
 * met again at its address, counted by the probes) and the kernel's skips of the block
 * programs (a completion interrupting one on the same CPU), which also catch the last ones.
 */
unsigned long long bt_block_unseen(struct bpf_object *obj, unsigned long long stale);
/*
 * bt_block_unseen() as the warning every block tool gives when there are any: "N requests ended
 * unseen: the kernel ran no completion probe for them" (docs/biosnoop.md, "Unseen completions").
 */
void bt_block_warn_unseen(struct bpf_object *obj, unsigned long long stale);

/*
 * Also attach the bio-merge programs (bt_block_bio_merged): a bio that joins a request already
 * made makes none of its own, so a tool filtering by who made each request would lose it
 * silently. After bt_block_choose().
 */
void bt_block_count_bio_merges(struct bpf_object *obj);

/*
 * At exit, after the last output: set *draining (the probes then take no new request), give
 * the requests in flight up to BT_BLOCK_DRAIN_MS to complete, and count the entries of the
 * request map map_fd (u64 keys, values of value_size bytes) that lost() says were issued: their
 * completions were not seen. Those no later request at the same address revealed as stale.
 */
#define BT_BLOCK_DRAIN_MS 200
unsigned long long bt_block_left(volatile bool *draining, int map_fd, __u32 value_size,
				 bool (*lost)(const void *value, void *ctx), void *ctx);
/*
 * A block tool's end, both of the above: bt_block_left() over its request map, then the
 * warning for those and the probes' count of stale ones (*stale, read once the drain is over).
 */
void bt_block_end(struct bpf_object *obj, volatile bool *draining, const struct bpf_map *map,
		  __u32 value_size, bool (*lost)(const void *value, void *ctx), const __u64 *stale);

/* An enum bt_rq_op as a metric label: "read", "write", "flush", ..., "unknown". */
const char *bt_block_op_label(unsigned int op);

/*
 * The exporter's block collectors (lib/output/bt_collector.h), whose keys are { __u32 dev;
 * __u32 op; } (biolatency's with the op alone in its flags) and whose run state begins with
 * its struct bt_disk_cache *: a key's labels, disk ("?" for none) and op; and every disk's
 * reads and writes as keys at 0 (a failed sysfs read leaves only the rows).
 */
struct bt_labels;
struct bt_keys;
void bt_block_labels(void *run, const void *key, struct bt_labels *l);
int bt_block_zero_keys(void *run, struct bt_keys *k);
/* A block collector's series (struct bt_collector's fields): per disk and op, every disk's at 0. */
#define BT_BLOCK_SERIES                                                                    \
	.labels = { "disk", "op" }, .label = bt_block_labels, .zeros = bt_block_zero_keys, \
	.zeros_after = true

/*
 * -d DISK as the kernel numbers the disk (name NULL: no -d, *kdev 0); -BT_EUSAGE after one
 * line saying why not.
 */
int bt_block_disk_arg(const char *name, __u32 *kdev);

#endif
