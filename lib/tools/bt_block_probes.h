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

/*
 * Requests whose completion was not seen: the larger of those found stale (an issued entry
 * met again at its address, counted by the probes) and the kernel's skips of the block
 * programs (a completion interrupting one on the same CPU), which also catch the last ones.
 */
unsigned long long bt_block_unseen(struct bpf_object *obj, unsigned long long stale);

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

/* -d DISK as the kernel numbers the disk; -BT_EUSAGE after one line saying why not. */
int bt_block_disk_arg(const char *name, __u32 *kdev);

#endif
