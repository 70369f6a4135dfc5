// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>

#include "bt_err.h"
#include "bt_offcpu_kept.h"
#include "bt_stacks.h"

struct bt_offcpu_kept {
	bt_offcpu_pprof_fn hook;
	/* all below; between profiles also the run, which the keeper reads then */
	pthread_mutex_t lock;
	pthread_cond_t idle; /* busy went false, or stop */
	unsigned int refs;
	bool busy; /* a profile has the run (perhaps one past its caller's deadline) */
	bool stop; /* the keeper ends */
	struct bt_offcpu_pprof p; /* p.owner NULL: not built */
	struct bt_offcpu_run r;
	bool keeper_running;
	pthread_t keeper;
	int wake_fd; /* wakes the keeper to stop */
};

/*
 * Between profiles: the exit and exec programs' notes read as they come, or their ring fills
 * and exited processes' state stays (and a pid reused keeps the old process's names).
 */
static void *keeper(void *arg)
{
	struct bt_offcpu_kept *k = arg;
	struct pollfd fds[2] = { { .fd = k->wake_fd, .events = POLLIN },
				 { .fd = bt_offcpu_run__fd(&k->r), .events = POLLIN } };

	pthread_setname_np(pthread_self(), "bt_pprof_keep");
	pthread_mutex_lock(&k->lock);
	while (!k->stop) {
		if (k->busy) {
			pthread_cond_wait(&k->idle, &k->lock);
			continue;
		}
		pthread_mutex_unlock(&k->lock);
		poll(fds, 2, -1);
		pthread_mutex_lock(&k->lock);
		if (!k->stop && !k->busy)
			bt_offcpu_run__idle(&k->r);
	}
	pthread_mutex_unlock(&k->lock);
	return NULL;
}

/* The run and its keeper gone: the next profile builds it again. */
static void unload(struct bt_offcpu_kept *k)
{
	const struct bt_offcpu_tool *t = k->p.tool;
	uint64_t one = 1;

	if (k->keeper_running) {
		pthread_mutex_lock(&k->lock);
		k->stop = true;
		pthread_cond_broadcast(&k->idle);
		pthread_mutex_unlock(&k->lock);
		if (write(k->wake_fd, &one, sizeof(one)) < 0)
			bt_debug("pprof: cannot wake the keeper: %s", strerror(errno));
		pthread_join(k->keeper, NULL);
		k->keeper_running = false;
		k->stop = false;
	}
	/* probes first (the tool's own: profile's perf events), then the skeleton */
	if (t && t->stop)
		t->stop(t->ctx);
	bt_skel_destroy(k->p.obj, k->p.skel);
	free(k->p.owner);
	bt_offcpu_run__free(&k->r);
	memset(&k->p, 0, sizeof(k->p));
	memset(&k->r, 0, sizeof(k->r));
}

/* One profile of the run, which is built first if it is not. */
static int profile(struct bt_offcpu_kept *k, unsigned int seconds, FILE *out)
{
	struct bt_offcpu_pprof *p = &k->p;
	bool built = p->owner;
	int err = 0;

	if (!built)
		err = k->hook(p) ?: bt_offcpu_run__init(&k->r, p->tool, p->opts);
	if (!err)
		err = bt_offcpu_run_pprof(&k->r, p->skel, p->counts, p->probes, seconds, out);
	/*
	 * Written: what exited meanwhile is freed now, not when the keeper next runs, which a
	 * caller asking for profiles back to back never lets it do
	 */
	if (!err)
		bt_offcpu_run__idle(&k->r);
	if (!err && !k->keeper_running && k->wake_fd >= 0) {
		err = -pthread_create(&k->keeper, NULL, keeper, k);
		k->keeper_running = !err;
		if (err)
			bt_err("cannot keep the profile's programs: %s", strerror(-err));
	}
	bt_debug("pprof: %s run: %s", built ? "a kept" : "a new", err ? strerror(-err) : "done");
	return err;
}

int bt_offcpu_kept__new(bt_offcpu_pprof_fn hook, struct bt_offcpu_kept **out)
{
	struct bt_offcpu_kept *k = calloc(1, sizeof(*k));

	*out = NULL;
	if (!k)
		return -ENOMEM;
	k->wake_fd = eventfd(0, EFD_CLOEXEC);
	if (k->wake_fd < 0) {
		free(k);
		return -errno;
	}
	k->hook = hook;
	k->refs = 1;
	pthread_mutex_init(&k->lock, NULL);
	pthread_cond_init(&k->idle, NULL);
	*out = k;
	return 0;
}

int bt_offcpu_kept__profile(struct bt_offcpu_kept *k, unsigned int seconds, FILE *out)
{
	bool busy, worn;
	int err;

	pthread_mutex_lock(&k->lock);
	busy = k->busy;
	k->busy = true;
	pthread_mutex_unlock(&k->lock);
	/*
	 * A profile left running past its deadline has it: neither waited for (this one has a
	 * deadline too) nor shared (its counts would mix with these)
	 */
	if (busy) {
		bt_debug("pprof: the kept run is a late profile's; this one builds its own");
		return bt_offcpu_pprof_once(k->hook, seconds, out);
	}
	err = profile(k, seconds, out);
	/*
	 * A failure may leave it part attached or part read. A worn run would walk the files
	 * met from now on by frame pointers, which a fresh run never does (its table ids are
	 * not reused). Either is built again next time
	 */
	worn = !err && bt_offcpu_run__worn(&k->r);
	if (worn)
		bt_debug("pprof: the kept run's unwinder is half spent: built again next time");
	if (err || worn)
		unload(k);
	pthread_mutex_lock(&k->lock);
	k->busy = false;
	pthread_cond_broadcast(&k->idle);
	pthread_mutex_unlock(&k->lock);
	return err;
}

struct bt_offcpu_kept *bt_offcpu_kept__get(struct bt_offcpu_kept *k)
{
	pthread_mutex_lock(&k->lock);
	k->refs++;
	pthread_mutex_unlock(&k->lock);
	return k;
}

void bt_offcpu_kept__put(struct bt_offcpu_kept *k)
{
	bool last;

	if (!k)
		return;
	pthread_mutex_lock(&k->lock);
	last = --k->refs == 0;
	pthread_mutex_unlock(&k->lock);
	if (!last)
		return;
	unload(k);
	close(k->wake_fd);
	pthread_cond_destroy(&k->idle);
	pthread_mutex_destroy(&k->lock);
	free(k);
}

void bt_offcpu_kept__stats(struct bt_offcpu_kept *k, struct bt_sym_stats *st)
{
	memset(st, 0, sizeof(*st));
	pthread_mutex_lock(&k->lock);
	/* the keeper reads the run under the lock, a profile under busy */
	if (!k->busy && k->r.stacks)
		bt_symbolizer__stats(bt_stacks__symbolizer(k->r.stacks), st);
	pthread_mutex_unlock(&k->lock);
}

int bt_offcpu_pprof_once(bt_offcpu_pprof_fn hook, unsigned int seconds, FILE *out)
{
	/* no keeper: nothing is kept past the profile */
	struct bt_offcpu_kept k = { .hook = hook, .wake_fd = -1 };
	int err = profile(&k, seconds, out);

	unload(&k);
	return err;
}
