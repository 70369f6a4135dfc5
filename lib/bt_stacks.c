// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "bt_err.h"
#include "bt_events.h"
#include "bt_percpu.h"
#include "bt_skel.h"
#include "bt_stacks.h"

struct bt_stacks {
	int stack_fd;
	int lost_fd;
	struct bt_events *pids;
	struct bt_symbolizer *sym;
};

int bt_stacks__configure(struct bpf_object *obj, const struct bt_stacks_opts *opts)
{
	struct bpf_map *map = bpf_object__find_map_by_name(obj, "bt_stacks");
	struct bpf_map *pids = bpf_object__find_map_by_name(obj, "bt_new_pids");
	bool announce = opts->user;
	int err;

	if (!map || !pids)
		return -ENOENT;
	err = bt_events__configure(obj, pids);
	if (err)
		return err;
	err = bpf_map__set_max_entries(map, opts->storage_size ? opts->storage_size : 1024);
	if (err)
		return err;
	err = bt_rodata_set(obj, "bt_announce_pids", &announce, sizeof(announce));
	return err == -ENOENT ? 0 : err; /* folded away when the program never announces */
}

static int on_new_pid(void *ctx, const void *data, size_t size)
{
	struct bt_stacks *st = ctx;
	__u32 tgid;
	int err;

	if (size < sizeof(tgid))
		return 0;
	memcpy(&tgid, data, sizeof(tgid));
	/* A process that is already gone just gets [unknown] frames later. */
	err = bt_symbolizer__note_pid(st->sym, (int)tgid);
	bt_debug("process %u first seen: %s", tgid, err ? strerror(-err) : "mappings noted");
	return 0;
}

/*
 * Processes running at start are snapshotted right away: one that exits microseconds after its
 * first traced event would otherwise be gone before its announcement is read. New processes
 * still rely on the announcement.
 */
static void note_running(struct bt_stacks *st)
{
	struct dirent *d;
	DIR *dir = opendir("/proc");
	int self = getpid();

	if (!dir)
		return;
	while ((d = readdir(dir))) {
		int pid;

		if (!isdigit((unsigned char)d->d_name[0]))
			continue;
		pid = atoi(d->d_name);
		if (pid != self)
			bt_symbolizer__note_pid(st->sym, pid);
	}
	closedir(dir);
}

int bt_stacks__new(struct bpf_object *obj, const struct bt_stacks_opts *opts,
		   struct bt_stacks **out)
{
	struct bpf_map *stacks = bpf_object__find_map_by_name(obj, "bt_stacks");
	struct bpf_map *lost = bpf_object__find_map_by_name(obj, "bt_stack_lost");
	struct bpf_map *pids = bpf_object__find_map_by_name(obj, "bt_new_pids");
	struct bt_stacks *st;
	int err;

	if (!stacks || !lost)
		return -ENOENT;
	st = calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	st->stack_fd = bpf_map__fd(stacks);
	st->lost_fd = bpf_map__fd(lost);
	err = bt_symbolizer__new(&opts->sym, &st->sym);
	if (err)
		goto cleanup;
	if (opts->user && pids) {
		err = bt_events__new(obj, pids, on_new_pid, st, &st->pids);
		if (err)
			goto cleanup;
		bt_events__set_lost_slot(st->pids, BT_EVENTS_LOST_PIDS);
	}
	if (opts->user && opts->note_running)
		note_running(st);
	*out = st;
	return 0;
cleanup:
	bt_stacks__free(st);
	return err;
}

void bt_stacks__free(struct bt_stacks *st)
{
	if (!st)
		return;
	bt_events__free(st->pids);
	bt_symbolizer__free(st->sym);
	free(st);
}

int bt_stacks__fd(const struct bt_stacks *st)
{
	return st->pids ? bt_events__fd(st->pids) : -1;
}

int bt_stacks__poll(void *ctx)
{
	struct bt_stacks *st = ctx;

	return st->pids ? bt_events__poll(st->pids) : 0;
}

struct bt_symbolizer *bt_stacks__symbolizer(struct bt_stacks *st)
{
	return st->sym;
}

int bt_stacks__note_pid(struct bt_stacks *st, int pid)
{
	return bt_symbolizer__note_pid(st->sym, pid);
}

int bt_stacks__get(struct bt_stacks *st, int id, uint64_t entry_caller, uint64_t *ips)
{
	__u32 key = id;
	int n;

	if (id < 0)
		return 0;
	memset(ips, 0, BT_MAX_STACK_DEPTH * sizeof(*ips));
	if (bpf_map_lookup_elem(st->stack_fd, &key, ips))
		return 0;
	for (n = 0; n < BT_MAX_STACK_DEPTH && ips[n]; n++)
		;
	if (entry_caller && n > 0 && ips[1] != entry_caller) {
		if (n == BT_MAX_STACK_DEPTH)
			n--;
		memmove(&ips[2], &ips[1], (n - 1) * sizeof(*ips));
		ips[1] = entry_caller;
		n++;
	}
	return n;
}

void bt_stacks__release(struct bt_stacks *st, int id)
{
	__u32 key = id;

	if (id >= 0)
		bpf_map_delete_elem(st->stack_fd, &key);
}

int bt_stacks__resolve(struct bt_stacks *st, int pid, const uint64_t *ips, int n,
		       struct bt_frame *frames)
{
	unsigned int flags = BT_RESOLVE_STACK;

	if (pid == BT_PID_KERNEL)
		flags |= BT_RESOLVE_TRIM;
	return bt_symbolizer__resolve(st->sym, pid, ips, n, flags, frames,
				      BT_MAX_STACK_DEPTH * (1 + BT_SYM_MAX_INLINE));
}

void bt_stacks__report_lost(struct bt_stacks *st)
{
	uint64_t lost[BT_STACK_LOST_KINDS] = { 0 };
	int kind;

	for (kind = 0; kind < BT_STACK_LOST_KINDS; kind++)
		bt_percpu_sum(st->lost_fd, kind, &lost[kind], 1);
	if (lost[BT_STACK_LOST_FULL] + lost[BT_STACK_LOST_COLLISION])
		bt_warn("%llu stacks lost; raise --stack-storage-size (map full: %llu, "
			"hash collisions: %llu)",
			(unsigned long long)(lost[BT_STACK_LOST_FULL] +
					     lost[BT_STACK_LOST_COLLISION]),
			(unsigned long long)lost[BT_STACK_LOST_FULL],
			(unsigned long long)lost[BT_STACK_LOST_COLLISION]);
	if (st->pids && bt_events__lost(st->pids))
		bt_warn("%llu new processes not announced in time; their frames may be [unknown]",
			bt_events__lost(st->pids));
	if (lost[BT_STACK_LOST_OTHER])
		bt_warn("%llu stacks could not be captured",
			(unsigned long long)lost[BT_STACK_LOST_OTHER]);
}
