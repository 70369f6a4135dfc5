// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <bpf/bpf.h>

#include <bpf/libbpf.h>

#include "bt_block.h"
#include "bt_block_probes.h"
#include "bt_collector.h"
#include "bt_disk.h"
#include "bt_env.h"
#include "bt_err.h"
#include "bt_features.h"
#include "bt_skel.h"

const struct bt_probe bt_block_probes[] = {
	/* creation: block_io_start (6.5+), else the accounting function it replaced */
	{ "start_btf", "start_raw", "struct request *", BT_PROBE_OPTIONAL },
	{ "start_kp", NULL, "struct request *", BT_PROBE_ALT },
	{ "start_kp_old", NULL, "struct request *, ...", BT_PROBE_ALT },
	/* else the submitter of the bio that made the request (5.11+) */
	{ "getrq_btf", "getrq_raw", "struct bio *", BT_PROBE_OPTIONAL },
	/* (rq) since 5.11, (q, rq) before */
	{ "insert_btf", "insert_raw", "struct request *" },
	{ "insert_btf_q", "insert_raw_q", "struct request_queue *, struct request *",
	  BT_PROBE_ALT },
	{ "issue_btf", "issue_raw", "struct request *" },
	{ "issue_btf_q", "issue_raw_q", "struct request_queue *, struct request *", BT_PROBE_ALT },
	{ "complete_btf", "complete_raw", "struct request *, ..." },
	{ "merge_btf", "merge_raw", "struct request *", BT_PROBE_OPTIONAL },
	{ "merge_btf_q", "merge_raw_q", "struct request_queue *, struct request *, ...",
	  BT_PROBE_ALT },
	{ NULL },
};

static const char *const insert_progs[] = { "insert_btf", "insert_raw", "insert_btf_q",
					    "insert_raw_q", NULL };
static const char *const start_progs[] = { "start_btf", "start_raw", "start_kp", "start_kp_old",
					   NULL };
static const char *const getrq_progs[] = { "getrq_btf", "getrq_raw", NULL };

/* Each chosen tp_btf program gives way to its raw_tp fallback (the same signature). */
static void prefer_raw_tp(struct bpf_object *obj)
{
	const struct bt_probe *p;
	struct bpf_program *btf, *raw;

	for (p = bt_block_probes; p->prog; p++) {
		btf = bpf_object__find_program_by_name(obj, p->prog);
		raw = p->fallback ? bpf_object__find_program_by_name(obj, p->fallback) : NULL;
		if (!btf || !raw || !bpf_program__autoload(btf))
			continue;
		bpf_program__set_autoload(btf, false);
		bpf_program__set_autoload(raw, true);
		bt_debug("'%s' in place of '%s': probe reads are allowed", p->fallback, p->prog);
	}
}

/* Whether any of the programs still loads; with off, switch them all off first. */
static bool any_loads(struct bpf_object *obj, const char *const *names, bool off)
{
	struct bpf_program *p;
	bool loads = false;

	for (; *names; names++) {
		p = bpf_object__find_program_by_name(obj, *names);
		if (!p)
			continue;
		if (off)
			bpf_program__set_autoload(p, false);
		loads |= bpf_program__autoload(p);
	}
	return loads;
}

int bt_block_choose(struct bpf_object *obj, bool queue_start, bool submitter,
		    enum bt_block_submitter *how)
{
	struct bpf_map *notes = bpf_object__find_map_by_name(obj, "bt_bio_tasks");
	const char *lockdown = bt_lockdown();
	bool direct = (lockdown && !strcmp(lockdown, "confidentiality")) ||
		      bt_env_flag("BPFTOOLS_BLOCK_DIRECT");
	bool created;

	/*
	 * tp_btf programs only where probe reads are refused (BPFTOOLS_BLOCK_DIRECT=1 forces
	 * them, for the tests): elsewhere their raw_tp twins cost the verifier less (probes/
	 * bt_block.bpf.h), ~1.5 ms of biolatency's start-up here.
	 */
	if (direct)
		bt_debug("tp_btf programs read the request directly, not through probe reads");
	else
		prefer_raw_tp(obj);
	any_loads(obj, insert_progs, !queue_start);
	created = any_loads(obj, start_progs, !queue_start && !submitter);
	if (!submitter || created) {
		any_loads(obj, getrq_progs, true);
		*how = submitter ? BT_BLOCK_AT_CREATION : BT_BLOCK_SUBMITTER_UNWANTED;
	} else if (any_loads(obj, getrq_progs, false)) {
		*how = BT_BLOCK_BY_BIO;
		bt_debug("no block I/O creation probe: the issuing task is noted per bio");
	} else {
		*how = BT_BLOCK_AT_ISSUE;
		bt_debug("no block I/O creation probe: the issuing task is taken at insert/issue");
	}
	if (*how != BT_BLOCK_BY_BIO && notes)
		return bpf_map__set_max_entries(notes, 1); /* unused */
	return 0;
}

unsigned long long bt_block_unseen(struct bpf_object *obj, unsigned long long stale)
{
	unsigned long long skipped = bt_skel_recursion_misses(obj);

	if (skipped)
		bt_debug("the kernel skipped the block programs %llu times (already running on "
			 "the CPU); %llu requests found stale",
			 skipped, stale);
	return skipped > stale ? skipped : stale;
}

void bt_block_warn_unseen(struct bpf_object *obj, unsigned long long stale)
{
	unsigned long long unseen = bt_block_unseen(obj, stale);

	if (unseen)
		bt_warn("%llu requests ended unseen: the kernel ran no completion probe for them",
			unseen);
}

int bt_block_prepare(struct bpf_object *obj, const struct bt_block_run *r,
		     const struct bt_probe *probes, enum bt_block_submitter *how)
{
	struct bt_filters filters = { .cpu = -1, .cgroup = r->cgroup };
	bool require_task = r->cgroup != NULL, by_bio;
	enum bt_block_submitter found;
	int err;

	err = bt_rodata_set(obj, "filter_dev", &r->dev, sizeof(r->dev));
	if (!err)
		err = bt_rodata_set(obj, "require_task", &require_task, sizeof(bool));
	if (err)
		goto rodata;
	err = bt_filters_apply(obj, &filters) ?: bt_skel_select(obj, probes)
			?: bt_block_choose(obj, r->queue_start, r->submitter, &found);
	if (err)
		return err;
	by_bio = found == BT_BLOCK_BY_BIO;
	err = bt_rodata_set(obj, "task_from_bio", &by_bio, sizeof(bool));
	if (err)
		goto rodata;
	if (r->count_merges)
		bt_block_count_bio_merges(obj);
	if (how)
		*how = found;
	return 0;
rodata:
	bt_err("cannot set up the BPF programs: %s", strerror(-err));
	return err;
}

void bt_block_count_bio_merges(struct bpf_object *obj)
{
	static const char *const progs[] = { "bio_backmerge_raw", "bio_frontmerge_raw", NULL };
	const char *const *name;
	struct bpf_program *p;

	for (name = progs; *name; name++) {
		p = bpf_object__find_program_by_name(obj, *name);
		if (p)
			bpf_program__set_autoload(p, true);
	}
}

/* The entries of map_fd that lost() picks; -errno if the map cannot be read. */
static long long count_left(int map_fd, void *value, bool (*lost)(const void *value, void *ctx),
			    void *ctx)
{
	__u64 key, next, *prev = NULL;
	long long n = 0;
	int err;

	while (!(err = bpf_map_get_next_key(map_fd, prev, &next))) {
		key = next;
		prev = &key;
		if (!bpf_map_lookup_elem(map_fd, &key, value) && lost(value, ctx))
			n++;
	}
	return err == -ENOENT ? n : err;
}

unsigned long long bt_block_left(volatile bool *draining, int map_fd, __u32 value_size,
				 bool (*lost)(const void *value, void *ctx), void *ctx)
{
	const struct timespec tick = { 0, 10 * 1000 * 1000 };
	void *value = malloc(value_size);
	long long n = 0;
	int waited;

	if (!value)
		return 0;
	*draining = true;
	/* a request in flight completes within milliseconds; one lost never does */
	for (waited = 0; waited <= BT_BLOCK_DRAIN_MS; waited += 10) {
		n = count_left(map_fd, value, lost, ctx);
		if (n <= 0)
			break;
		nanosleep(&tick, NULL);
	}
	free(value);
	if (n < 0) {
		bt_debug("cannot count the requests left: %s", strerror((int)-n));
		return 0;
	}
	if (n)
		bt_debug("%lld requests issued and not completed %d ms after the end", n,
			 BT_BLOCK_DRAIN_MS);
	return (unsigned long long)n;
}

void bt_block_end(struct bpf_object *obj, volatile bool *draining, const struct bpf_map *map,
		  __u32 value_size, bool (*lost)(const void *value, void *ctx), const __u64 *stale)
{
	unsigned long long left = bt_block_left(draining, bpf_map__fd(map), value_size, lost, NULL);

	bt_block_warn_unseen(obj, *stale + left);
}

int bt_block_disk_arg(const char *name, __u32 *kdev)
{
	struct bt_disk d;
	int err;

	*kdev = 0;
	if (!name)
		return 0;
	err = bt_disk_by_name(name, &d);
	if (err == -ENOENT || err == -EINVAL)
		return bt_usage_err("no such disk '%s'", name);
	if (err) {
		bt_err("cannot look up disk '%s': %s", name, strerror(-err));
		return err;
	}
	if (d.partition)
		return bt_usage_err("'%s' is a partition: -d takes a whole disk ('%s')", name,
				    d.disk);
	*kdev = bt_kdev(d.major, d.minor);
	return 0;
}

const char *bt_block_op_label(unsigned int op)
{
	static const char *const names[] = {
		[BT_OP_READ] = "read",
		[BT_OP_WRITE] = "write",
		[BT_OP_FLUSH] = "flush",
		[BT_OP_DISCARD] = "discard",
		[BT_OP_SECURE_ERASE] = "secure_erase",
		[BT_OP_ZONE_RESET] = "zone_reset",
		[BT_OP_WRITE_SAME] = "write_same",
		[BT_OP_WRITE_ZEROES] = "write_zeroes",
		[BT_OP_ZONE_APPEND] = "zone_append",
	};

	return op < sizeof(names) / sizeof(names[0]) && names[op] ? names[op] : "unknown";
}

void bt_block_labels(void *run, const void *key, struct bt_labels *l)
{
	const __u32 *k = key;
	const struct bt_disk *d = bt_disk_cache__get(*(struct bt_disk_cache **)run, k[0]);

	l->v[0] = d ? d->name : "?";
	l->v[1] = bt_block_op_label(k[1] & 0xff);
}

static int add_disk(void *ctx, const struct bt_disk *disk)
{
	static const unsigned int ops[] = { BT_OP_READ, BT_OP_WRITE };
	size_t i;
	int err = 0;

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]) && !err; i++)
		err = bt_keys_add(ctx,
				  (const __u32[]){ bt_kdev(disk->major, disk->minor), ops[i] });
	return err;
}

int bt_block_zero_keys(void *run, struct bt_keys *k)
{
	int err;

	(void)run;
	err = bt_disk_each(add_disk, k);
	return err == -ENOMEM ? err : 0;
}
