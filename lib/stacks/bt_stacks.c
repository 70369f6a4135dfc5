// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <malloc.h>
#include <dirent.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <bpf/bpf.h>

#include "bt_btf_ids.h"
#include "bt_env.h"
#include "bt_err.h"
#include "bt_events.h"
#include "bt_evrun.h"
#include "bt_mmap_log.h"
#include "bt_percpu.h"
#include "bt_rodata.h"
#include "bt_stacks.h"
#include "bt_escape.h"
#include "bt_unwinder.h"
#include "bt_unwind_maps.h"

struct bt_stacks {
	int stack_fd, deep_fd; /* short and full-depth entries */
	int lost_fd;
	int gen_fd;
	unsigned int gen; /* the generation counter: programs write under its low bit */
	/* updating a map-in-map slot makes the kernel wait out every running program */
	int sync_outer_fd, sync_inner_fd;
	unsigned long long missing; /* ids printed after their stack was freed (a bug if > 0) */
	struct bt_events *pids;
	/*
	 * System-wide: the kernel's record of every mapping made, for a process that exits
	 * before its announcement is read (lib/stacks/bt_mmap_log.h); epfd waits on it and on pids
	 */
	struct bt_mmap_log *mmaps;
	int epfd;
	struct bpf_link *exec_link;	 /* probes/bt_stack.bpf.h: bt_on_exec */
	struct bpf_link *exit_link;	 /* and bt_on_exit */
	struct bpf_link *exec_find_link; /* and bt_on_exec_find, after bt_on_exec */
	/*
	 * Exited processes: their snapshots are freed once the output that may name them is
	 * out. A flip or a collection records how many exits were noted before it
	 * (bt_symbolizer__exits), and those noted before the one before are freed at the next.
	 */
	uint64_t exits_at_flip[2], exits_at_collect[2];
	bt_stacks_collect_fn collect;
	void *collect_ctx;
	/* in epfd: a collection due while fewer exited than make one (-1: none, with -p) */
	int collect_timer_fd;
	bool collect_timer_armed;
	struct bt_stacks_cycle run_cycle; /* bt_stacks__follow_run()'s */
	struct bt_evrun *run;		  /* its run: a cycle due sooner than its tick */
	struct bt_symbolizer *sym;
	struct bt_unwind *unwind; /* NULL: user stacks by frame pointers */
	bool verbose;
	struct bt_stack_value buf;
	uint64_t ips[BT_MAX_STACK_DEPTH];
	unsigned char marks[BT_MAX_STACK_DEPTH]; /* of ips: BT_UNWIND_MARK_* >> 56 */
	struct bt_frame *frames;
};

int bt_stacks__configure(struct bpf_object *obj, const struct bt_stacks_opts *opts)
{
	struct bpf_map *map = bpf_object__find_map_by_name(obj, "bt_stacks");
	struct bpf_map *deep = bpf_object__find_map_by_name(obj, "bt_stacks_deep");
	struct bpf_map *pids = bpf_object__find_map_by_name(obj, "bt_new_pids");
	unsigned int n = opts->storage_size ? opts->storage_size : 1024;
	struct bpf_program *exec_prog;
	bool announce = opts->user;
	int err;

	if (!map || !deep || !pids)
		return -ENOENT;
	err = bt_events__configure(obj, pids);
	if (err)
		return err;
	/* a tool that flips while running holds two generations at once for a moment */
	if (opts->generations)
		n *= 2;
	err = bpf_map__set_max_entries(map, n);
	if (!err)
		err = bpf_map__set_max_entries(
			deep, n / BT_STACK_DEEP_SHARE > 16 ? n / BT_STACK_DEEP_SHARE : 16);
	if (err)
		return err;
	/* a refusal (memory) names the option that sized them */
	bt_map_sized_by("bt_stacks", "room for %u stacks (--stack-storage-size=%u)", n,
			opts->storage_size ? opts->storage_size : 1024);
	bt_map_sized_by("bt_stacks_deep", "room for %u deep stacks (--stack-storage-size=%u)",
			bpf_map__max_entries(deep), opts->storage_size ? opts->storage_size : 1024);
	if (opts->user) {
		struct bt_unwind_opts uo = { .mode = BT_UNWIND_MODE(opts->unwind),
					     .marks = opts->verbose,
					     .python = !(opts->unwind & BT_UNWIND_NO_PYTHON) };
		bool on;

		err = bt_unwind__configure(obj, &uo, &on);
		if (err)
			return err;
		exec_prog = bpf_object__find_program_by_name(obj, "bt_on_exec_find");
		if (exec_prog)
			bpf_program__set_autoload(exec_prog, announce && on);
	}
	exec_prog = bpf_object__find_program_by_name(obj, "bt_on_exec");
	if (exec_prog)
		bpf_program__set_autoload(exec_prog, announce);
	exec_prog = bpf_object__find_program_by_name(obj, "bt_on_exit");
	if (exec_prog)
		bpf_program__set_autoload(exec_prog, announce);
	err = bt_rodata_set(obj, "bt_announce_pids", &announce, sizeof(announce));
	return err == -ENOENT ? 0 : err; /* folded away when the program never announces */
}

/*
 * A process gone before it was read: name it (symbols too) and unwind its stacks waiting from
 * the mappings the kernel logged as it made them. 0, or -ENOENT when none were logged.
 */
static int note_gone(struct bt_stacks *st, const struct bt_pid_note *note, bool names)
{
	const struct bt_sym_mapping *maps;
	int n, err = 0;

	n = bt_mmap_log__maps(st->mmaps, (int)note->tgid, note->start_ns, &maps);
	if (n <= 0)
		return -ENOENT;
	if (names)
		err = bt_symbolizer__note_proc_maps(st->sym, (int)note->tgid, note->cookie,
						    note->start_ns, maps, (size_t)n);
	bt_debug("process %u (%u) gone: %d logged mappings%s", note->tgid, note->cookie, n,
		 names && err ? ", not named" : "");
	if (bt_unwind__waiting_for(st->unwind, (int)note->tgid))
		bt_unwind__note_gone(st->unwind, (int)note->tgid, note->start_ns, maps, (size_t)n);
	return 0;
}

/*
 * A stack with Python frames, new to the kernel's table: their names while the process lives
 * (a local copy: st->buf may hold a stack being printed, which polls the announcements).
 */
static void read_python(struct bt_stacks *st, const struct bt_py_stack_note *n)
{
	struct bt_stack_value v;
	uint64_t id = n->id;

	if (!BT_STACK_STORED(id) ||
	    bpf_map_lookup_elem(id & BT_STACK_DEEP_BIT ? st->deep_fd : st->stack_fd, &id, &v))
		return;
	bt_symbolizer__read_python(st->sym, (int)n->note.tgid, n->note.cookie,
				   (const uint64_t *)v.ips,
				   v.nr < BT_MAX_STACK_DEPTH ? v.nr : BT_MAX_STACK_DEPTH);
}

static int on_new_pid(void *ctx, const void *data, size_t size)
{
	struct bt_stacks *st = ctx;
	struct bt_pid_note note;
	int err;

	if (size < sizeof(note))
		return 0;
	memcpy(&note, data, sizeof(note));
	if (note.exec == BT_PID_NOTE_SAMPLE) {
		const struct bt_stack_sample *s = data;

		/*
		 * A frame in a mapping made after the process was noted (indexed while the loader
		 * was mapping its libraries, or a dlopen): its names too, while it lives
		 */
		if (size >= offsetof(struct bt_stack_sample, stack) && s->miss)
			bt_symbolizer__refresh_pid(st->sym, (int)note.tgid);
		err = bt_unwind__sample(st->unwind, data, size);
		if (err < 0)
			bt_debug("a stack sent to be unwound was dropped: %s", strerror(-err));
		return 0;
	}
	if (note.exec == BT_PID_NOTE_PYTHON) {
		if (size >= sizeof(struct bt_py_stack_note))
			read_python(st, data);
		return 0;
	}
	if (note.exec == BT_PID_NOTE_REINDEX) {
		/*
		 * Code its table lacks (dlopen), or not in the table at all (evicted): the names
		 * of the new code too, while the process lives
		 */
		bt_symbolizer__refresh_pid(st->sym, (int)note.tgid);
		bt_unwind__queue_pid(st->unwind, (int)note.tgid);
		return 0;
	}
	if (note.exec) {
		/*
		 * Exit or exec: the kernel forgot the pid already; the old image's names stay
		 * until its stacks are printed. After an exec the next traced event announces
		 * the process again, with the new image's libraries.
		 */
		bt_unwind__forget_pid(st->unwind, (int)note.tgid, note.exec == BT_PID_NOTE_EXIT);
		/*
		 * Named, and its stacks still waiting unwound, by every mapping it made, as the
		 * kernel logged them: read early, its snapshot may lack libraries mapped since
		 */
		if (note.exec == BT_PID_NOTE_EXIT)
			note_gone(st, &note, true);
		bt_unwind__exited(st->unwind, (int)note.tgid, note.partial);
		bt_symbolizer__exit_pid(st->sym, (int)note.tgid, note.cookie);
		bt_debug("process %u (%u) %s", note.tgid, note.cookie,
			 note.exec == BT_PID_NOTE_EXIT ? "exited" : "exec()ed");
		return 0;
	}
	err = bt_symbolizer__note_proc(st->sym, (int)note.tgid, note.cookie, note.start_ns);
	/* gone already (a short process, a busy machine): from its logged mappings */
	if (err == -ESRCH && !note_gone(st, &note, true))
		err = 0;
	if (bt_debug_enabled()) {
		struct timespec now;

		clock_gettime(CLOCK_BOOTTIME, &now);
		bt_debug("process %u (%u, started %llu, %.1f ms ago) first seen: %s", note.tgid,
			 note.cookie, (unsigned long long)note.start_ns,
			 ((double)now.tv_sec * 1e9 + now.tv_nsec - (double)note.start_ns) / 1e6,
			 err ? strerror(-err) : "mappings noted");
	}
	/* its stacks walk by frame pointers until the unwinder's worker has indexed it */
	bt_unwind__queue_pid(st->unwind, (int)note.tgid);
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

static int sync_maps_create(struct bt_stacks *st)
{
	LIBBPF_OPTS(bpf_map_create_opts, o);

	st->sync_inner_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "bt_sync_in", 4, 4, 1, NULL);
	if (st->sync_inner_fd < 0)
		return -errno;
	o.inner_map_fd = st->sync_inner_fd;
	st->sync_outer_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY_OF_MAPS, "bt_sync", 4, 4, 1, &o);
	return st->sync_outer_fd < 0 ? -errno : 0;
}

static void sym_warn(void *ctx, const char *msg)
{
	(void)ctx;
	bt_warn("%s", msg);
}

/*
 * The mapping log and one descriptor for the loop to wait on it and the announcements. Without
 * perf events (refused), processes gone before they are read stay unnamed, as before.
 */
static int open_mmap_log(struct bt_stacks *st)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int err;

	err = bt_mmap_log__open(&st->mmaps);
	if (err) {
		bt_debug("no log of mappings (%s): a process gone before it is read stays unnamed",
			 strerror(-err));
		return 0;
	}
	st->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (st->epfd < 0)
		return -errno;
	if (epoll_ctl(st->epfd, EPOLL_CTL_ADD, bt_events__fd(st->pids), &ev) ||
	    epoll_ctl(st->epfd, EPOLL_CTL_ADD, bt_mmap_log__fd(st->mmaps), &ev))
		return -errno;
	return 0;
}

int bt_stacks__new(struct bpf_object *obj, const struct bt_stacks_opts *opts,
		   struct bt_stacks **out)
{
	struct bt_sym_opts sym;
	struct bpf_map *stacks = bpf_object__find_map_by_name(obj, "bt_stacks");
	struct bpf_map *deep = bpf_object__find_map_by_name(obj, "bt_stacks_deep");
	struct bpf_map *lost = bpf_object__find_map_by_name(obj, "bt_stack_lost");
	struct bpf_map *gen = bpf_object__find_map_by_name(obj, "bt_stack_gen");
	struct bpf_map *pids = bpf_object__find_map_by_name(obj, "bt_new_pids");
	struct bt_stacks *st;
	int err;

	if (!stacks || !deep || !lost || !gen)
		return -ENOENT;
	st = calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	st->sync_outer_fd = st->sync_inner_fd = -1;
	st->epfd = st->collect_timer_fd = -1;
	st->stack_fd = bpf_map__fd(stacks);
	st->deep_fd = bpf_map__fd(deep);
	st->lost_fd = bpf_map__fd(lost);
	st->gen_fd = bpf_map__fd(gen);
	st->frames = calloc(BT_MAX_STACK_DEPTH * (1 + BT_SYM_MAX_INLINE), sizeof(*st->frames));
	if (!st->frames) {
		err = -ENOMEM;
		goto cleanup;
	}
	err = sync_maps_create(st);
	if (err)
		bt_debug("no map-in-map to wait for running programs (%s): sleeping instead",
			 strerror(-err));
	sym = opts->sym;
	if (!sym.warn)
		sym.warn = sym_warn; /* "CMD: warning: ...", a JSON line in JSON mode */
	if (!sym.mem_budget && bt_env_value("BPFTOOLS_SYM_BUDGET_MB")) {
		/* the symbol tables' budget raised (or lowered) for a host with huge binaries */
		unsigned long mb = strtoul(bt_env_value("BPFTOOLS_SYM_BUDGET_MB"), NULL, 10);

		if (mb && mb < (1ul << 20))
			sym.mem_budget = mb << 20;
	}
	/* kallsyms formatted by the kernel once per boot, not per run (symbolize/ksyms_cache.c) */
	if (!sym.kallsyms && !sym.ksyms_cache)
		sym.ksyms_cache = bt_ksyms_cache_dir();
	err = bt_symbolizer__new(&sym, &st->sym);
	if (err)
		goto cleanup;
	if (opts->user && pids) {
		err = bt_events__new(obj, pids, on_new_pid, st, &st->pids);
		if (err)
			goto cleanup;
		bt_events__set_lost_slot(st->pids, BT_EVENTS_LOST_PIDS);
	}
	if (opts->user) {
		struct bpf_map *tables = bpf_object__find_map_by_name(obj, "bt_unwind_tables");
		struct bt_unwind_opts uo = { .mode = BT_UNWIND_MODE(opts->unwind),
					     .marks = opts->verbose,
					     .python = !(opts->unwind & BT_UNWIND_NO_PYTHON) };

		/* bt_unwind__configure() sized it when the walker is on */
		if (tables && bpf_map__max_entries(tables) > 1) {
			err = bt_unwind__new(obj, &uo, &st->unwind);
			if (err)
				goto cleanup;
		}
	}
	st->verbose = opts->verbose;
	if (opts->user && opts->note_running && st->pids) {
		err = open_mmap_log(st);
		if (err)
			goto cleanup;
	}
	if (opts->user && opts->note_running) {
		bt_unwind__index_running(st->unwind);
		note_running(st);
	}
	if (opts->user) {
		struct bpf_program *prog = bpf_object__find_program_by_name(obj, "bt_on_exec");

		/* without it names after an exec are the old image's: worth a warning, no more */
		st->exec_link =
			prog ? bpf_program__attach_raw_tracepoint(prog, "sched_process_exec")
			     : NULL;
		if (!st->exec_link)
			bt_warn("cannot follow exec(): a process that execs keeps its old names "
				"(%s)",
				strerror(errno));
		/* after bt_on_exec: a tracepoint runs its programs in the order they came */
		prog = bpf_object__find_program_by_name(obj, "bt_on_exec_find");
		if (st->exec_link && prog && bpf_program__fd(prog) >= 0) {
			st->exec_find_link =
				bpf_program__attach_raw_tracepoint(prog, "sched_process_exec");
			if (!st->exec_find_link)
				bt_debug("the mappings of a new image are not found at its exec: "
					 "its first walks find them (%s)",
					 strerror(errno));
		}
		prog = bpf_object__find_program_by_name(obj, "bt_on_exit");
		st->exit_link =
			prog ? bpf_program__attach_raw_tracepoint(prog, "sched_process_exit")
			     : NULL;
		if (prog && !st->exit_link)
			bt_warn("cannot follow process exits: memory grows with every process "
				"traced, and a reused pid keeps the old process's names (%s)",
				strerror(errno));
	}
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
	if (st->epfd >= 0)
		close(st->epfd);
	if (st->collect_timer_fd >= 0)
		close(st->collect_timer_fd);
	if (st->mmaps && bt_debug_enabled()) {
		struct bt_mmap_log_stats ls;

		bt_mmap_log__stats(st->mmaps, &ls);
		bt_debug("mapping log: %llu records (%llu lost), %zu processes (%zu exited)",
			 ls.records, ls.lost, ls.procs, ls.exited);
	}
	bt_mmap_log__free(st->mmaps);
	if (st->sync_outer_fd >= 0)
		close(st->sync_outer_fd);
	if (st->sync_inner_fd >= 0)
		close(st->sync_inner_fd);
	bpf_link__destroy(st->exec_find_link);
	bpf_link__destroy(st->exec_link);
	bpf_link__destroy(st->exit_link);
	bt_unwind__free(st->unwind);
	bt_events__free(st->pids);
	bt_symbolizer__free(st->sym);
	free(st->frames);
	free(st);
}

int bt_stacks__fd(const struct bt_stacks *st)
{
	if (st->epfd >= 0)
		return st->epfd;
	return st->pids ? bt_events__fd(st->pids) : -1;
}

/* Exited processes kept at most, past the last collection, before the tool collects. */
#define BT_STACKS_EXITED_MAX 128
/* How long fewer of them wait for a collection: a quiet machine's too are freed in seconds. */
#define BT_STACKS_COLLECT_S 5
/*
 * Symbols of files no running process maps, kept for the next process of the same binary
 * (a shell loop's /bin/true); past this, freed at the release that follows: a tool tracing
 * for hours beside compilers and interpreters that ran once holds the rows' names, not
 * every symbol table it read for them.
 */
#define BT_STACKS_UNUSED_BYTES (1U << 20)

static void release_exited(struct bt_stacks *st, uint64_t upto)
{
	bt_symbolizer__release_exited(st->sym, upto);
	/* large tables went back to the heap, which keeps the pages without a trim */
	if (bt_symbolizer__drop_unused(st->sym, BT_STACKS_UNUSED_BYTES))
		malloc_trim(0);
}

/* Whether the collection timer expired since the last poll (reading it re-arms the wait). */
static bool collect_timer_fired(struct bt_stacks *st)
{
	uint64_t expirations;

	if (st->collect_timer_fd < 0 ||
	    read(st->collect_timer_fd, &expirations, sizeof(expirations)) != sizeof(expirations))
		return false;
	st->collect_timer_armed = false;
	return true;
}

/* A collection in BT_STACKS_COLLECT_S for exited processes still kept, once. */
static void arm_collect_timer(struct bt_stacks *st)
{
	struct itimerspec when = { .it_value = { .tv_sec = BT_STACKS_COLLECT_S } };

	if (st->collect_timer_fd < 0 || st->collect_timer_armed ||
	    bt_symbolizer__exits(st->sym) == st->exits_at_collect[0])
		return;
	if (!timerfd_settime(st->collect_timer_fd, 0, &when, NULL))
		st->collect_timer_armed = true;
}

int bt_stacks__poll(void *ctx)
{
	struct bt_stacks *st = ctx;
	bool fired = collect_timer_fired(st);
	uint64_t exits;
	int err;

	/* the mappings first: an announcement may need those of a process gone since */
	bt_mmap_log__poll(st->mmaps);
	err = st->pids ? bt_events__poll(st->pids) : 0;
	exits = bt_symbolizer__exits(st->sym);
	/*
	 * A per-event tool frees the snapshots of exited processes at its cycles, once a second:
	 * under a churn of 800 processes a second they took 3 MiB of heap at the peak (1 KiB
	 * each), which the heap kept. Sooner when that many exited: at most two cycles' worth.
	 */
	if (err >= 0 && st->run && exits - st->exits_at_flip[1] >= BT_STACKS_EXITED_MAX)
		st->run->tick_now = true;
	if (err < 0 || !st->collect)
		return err;
	if (exits - st->exits_at_collect[1] < BT_STACKS_EXITED_MAX &&
	    (!fired || exits == st->exits_at_collect[0])) {
		arm_collect_timer(st);
		return 0;
	}
	/*
	 * The tool names what it has counted so far while the snapshots are here; what exited
	 * before the collection before this one is named by now, late writes included.
	 */
	st->exits_at_collect[0] = st->exits_at_collect[1];
	st->exits_at_collect[1] = exits;
	err = st->collect(st->collect_ctx);
	if (err < 0)
		return err;
	release_exited(st, st->exits_at_collect[0]);
	arm_collect_timer(st); /* those of this collection, freed at the next */
	if (bt_debug_enabled()) {
		struct bt_sym_stats ss;

		bt_symbolizer__stats(st->sym, &ss);
		bt_debug("counts named while %llu exited processes waited: %zu running and %zu "
			 "exited processes kept, %zu files (%zu with symbols, %zu KiB, %zu KiB "
			 "unused), heap %zu KiB",
			 (unsigned long long)(st->exits_at_collect[1] - st->exits_at_collect[0]),
			 ss.procs, ss.exited, ss.files, ss.files_loaded, ss.sym_bytes >> 10,
			 ss.sym_bytes_unused >> 10, mallinfo2().uordblks >> 10);
	}
	return 0;
}

/*
 * A timer in the descriptor the loop waits on, for the collections of a quiet machine. Only
 * system-wide (epfd waits on the mapping log there): with -p few processes exit.
 */
static void open_collect_timer(struct bt_stacks *st)
{
	struct epoll_event ev = { .events = EPOLLIN };

	if (st->epfd < 0 || st->collect_timer_fd >= 0)
		return;
	st->collect_timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (st->collect_timer_fd >= 0 &&
	    !epoll_ctl(st->epfd, EPOLL_CTL_ADD, st->collect_timer_fd, &ev))
		return;
	bt_debug("no collection timer (%s): exited processes wait for %d more to exit",
		 strerror(errno), BT_STACKS_EXITED_MAX);
	if (st->collect_timer_fd >= 0)
		close(st->collect_timer_fd);
	st->collect_timer_fd = -1;
}

void bt_stacks__set_collector(struct bt_stacks *st, bt_stacks_collect_fn fn, void *ctx)
{
	st->collect = fn;
	st->collect_ctx = ctx;
	if (fn)
		open_collect_timer(st);
}

struct bt_symbolizer *bt_stacks__symbolizer(struct bt_stacks *st)
{
	return st->sym;
}

int bt_stacks__index_file(struct bt_stacks *st, const char *path)
{
	return bt_unwind__index_file(st->unwind, path);
}

int bt_stacks__wait_indexed(struct bt_stacks *st, unsigned int max_ms)
{
	return bt_unwind__wait_indexed(st->unwind, max_ms);
}

int bt_stacks__index_new(struct bt_stacks *st)
{
	return bt_unwind__index_new(st->unwind);
}

bool bt_stacks__unwind_half_spent(struct bt_stacks *st)
{
	return bt_unwind__half_spent(st->unwind);
}

void bt_stacks__release_exited(struct bt_stacks *st)
{
	uint64_t exits = bt_symbolizer__exits(st->sym);
	size_t dropped;

	bt_symbolizer__release_exited(st->sym, exits);
	st->exits_at_collect[0] = st->exits_at_collect[1] = exits;
	st->exits_at_flip[0] = st->exits_at_flip[1] = exits;
	/*
	 * The files only they mapped too: kept for a next process of the same binary, they
	 * would fill the cache's budget with binaries that ran once between two profiles
	 */
	dropped = bt_symbolizer__drop_unused(st->sym, 0);
	if (dropped)
		bt_debug("pprof: %zu files no running process maps freed", dropped);
}

int bt_stacks__note_pid(struct bt_stacks *st, int pid)
{
	bt_unwind__note_pid(st->unwind, pid);
	return bt_symbolizer__note_pid(st->sym, pid);
}

/* Wait until every BPF program that started before now has returned. */
static void wait_for_programs(struct bt_stacks *st)
{
	__u32 zero = 0;
	struct timespec ts = { 0, 20 * 1000 * 1000 };

	/* the kernel runs synchronize_rcu() on a map-in-map update: non-sleepable programs
	 * (every kind this project loads) run inside RCU read-side sections */
	if (st->sync_outer_fd >= 0 &&
	    !bpf_map_update_elem(st->sync_outer_fd, &zero, &st->sync_inner_fd, BPF_ANY))
		return;
	nanosleep(&ts, NULL); /* tracing programs run for microseconds */
}

int bt_stacks__flip(struct bt_stacks *st)
{
	/* a counter, of which programs write under the low bit: a stack walk kept in the
	 * kernel for later (probes/bt_unwind.bpf.h) is good for the one generation only */
	__u32 zero = 0, next = st->gen + 1;

	if (bpf_map_update_elem(st->gen_fd, &zero, &next, BPF_ANY))
		return -errno;
	st->gen = next;
	wait_for_programs(st);
	st->exits_at_flip[0] = st->exits_at_flip[1];
	st->exits_at_flip[1] = bt_symbolizer__exits(st->sym);
	return (next & 1) ^ 1;
}

/* Every key of a hash map; *out is malloc'ed. Keys are collected first: deleting while
 * walking makes get_next_key start over. */
static int collect_keys(int fd, size_t key_size, void **out, size_t *count)
{
	size_t n = 0, cap = 256;
	char *keys = malloc(cap * key_size), *prev = NULL;

	if (!keys)
		return -ENOMEM;
	while (bpf_map_get_next_key(fd, prev, keys + n * key_size) == 0) {
		prev = keys + n * key_size;
		if (++n == cap) {
			char *k = realloc(keys, 2 * cap * key_size);

			if (!k) {
				free(keys);
				return -ENOMEM;
			}
			keys = k;
			cap *= 2;
			prev = keys + (n - 1) * key_size;
		}
	}
	*out = keys;
	*count = n;
	return 0;
}

int bt_stacks__drain(struct bt_stacks *st, int map_fd, size_t key_size, size_t value_size,
		     size_t gen_offset, bt_stacks_entry_fn fn, void *ctx)
{
	unsigned int closed = (st->gen & 1) ^ 1;
	void *keys = NULL, *value;
	size_t n = 0, i;
	int err;

	value = malloc(value_size);
	if (!value)
		return -ENOMEM;
	err = collect_keys(map_fd, key_size, &keys, &n);
	for (i = 0; !err && i < n; i++) {
		const char *key = (const char *)keys + i * key_size;
		__u32 gen;

		/*
		 * Every process a row may name was announced before the row was written: noted
		 * first. Naming thousands of rows takes a while: processes starting meanwhile
		 * are noted as it goes, or one that lives a few ms would be gone before its turn.
		 */
		if (st->pids && i % 8 == 0)
			bt_events__poll(st->pids);

		memcpy(&gen, key + gen_offset, sizeof(gen));
		if ((gen & 1) != closed)
			continue;
		/* no program writes the closed generation any more: read, then delete */
		if (bpf_map_lookup_elem(map_fd, key, value))
			continue;
		bpf_map_delete_elem(map_fd, key);
		err = fn(ctx, key, value);
	}
	free(keys);
	free(value);
	return err;
}

int bt_stacks__empty_map(int fd, size_t key_size)
{
	void *keys = NULL;
	size_t n = 0, i;
	int err;

	if (fd < 0)
		return 0;
	err = collect_keys(fd, key_size, &keys, &n);
	for (i = 0; !err && i < n; i++)
		bpf_map_delete_elem(fd, (const char *)keys + i * key_size);
	free(keys);
	return err;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int release_in(int fd, unsigned int closed, const uint64_t *sorted, size_t nheld)
{
	uint64_t *keys = NULL;
	size_t n = 0, i;
	int err;

	err = collect_keys(fd, sizeof(*keys), (void **)&keys, &n);
	for (i = 0; !err && i < n; i++) {
		if (BT_STACK_GEN(keys[i]) != closed)
			continue;
		if (nheld && bsearch(&keys[i], sorted, nheld, sizeof(*sorted), cmp_u64))
			continue;
		bpf_map_delete_elem(fd, &keys[i]);
	}
	free(keys);
	return err;
}

int bt_stacks__release(struct bt_stacks *st, const uint64_t *held, size_t nheld)
{
	unsigned int closed = (st->gen & 1) ^ 1;
	uint64_t *sorted = NULL, *keep = NULL;
	size_t nkeep = 0;
	int err;

	if (nheld) {
		sorted = malloc(nheld * sizeof(*sorted));
		if (!sorted)
			return -ENOMEM;
		memcpy(sorted, held, nheld * sizeof(*sorted));
		qsort(sorted, nheld, sizeof(*sorted), cmp_u64);
	}
	/* a deferred stack still held keeps the stored one it falls back on */
	err = bt_unwind__release_samples(st->unwind, closed, sorted, nheld, &keep, &nkeep);
	if (!err && nkeep) {
		uint64_t *all = realloc(sorted, (nheld + nkeep) * sizeof(*all));

		if (!all) {
			err = -ENOMEM;
		} else {
			sorted = all;
			memcpy(&sorted[nheld], keep, nkeep * sizeof(*keep));
			nheld += nkeep;
			qsort(sorted, nheld, sizeof(*sorted), cmp_u64);
		}
	}
	free(keep);
	if (err) {
		free(sorted);
		return err;
	}
	err = release_in(st->stack_fd, closed, sorted, nheld);
	if (!err)
		err = release_in(st->deep_fd, closed, sorted, nheld);
	free(sorted);
	/* the closed generation is printed: so is every process that exited before the flip
	 * before it (a count written late, a waker's stack, lands at most one flip later); a
	 * tool with a collector frees them past its collections instead (bt_stacks__poll) */
	if (!st->collect)
		release_exited(st, st->exits_at_flip[0]);
	return err;
}

int bt_stacks__hold(struct bt_stacks_held *held, uint64_t id)
{
	if (!BT_STACK_STORED(id))
		return 0;
	if (held->n == held->cap) {
		size_t cap = held->cap ? held->cap * 2 : 64;
		uint64_t *ids = realloc(held->ids, cap * sizeof(*ids));

		if (!ids)
			return -ENOMEM;
		held->ids = ids;
		held->cap = cap;
	}
	held->ids[held->n++] = id;
	return 0;
}

int bt_stacks__hold_entries(struct bt_stacks_held *held, int fd, size_t key_size, size_t value_size,
			    bt_stacks_hold_entry_fn fn, void *ctx)
{
	void *keys = NULL, *value = malloc(value_size);
	size_t n = 0, i;
	int err;

	if (!value)
		return -ENOMEM;
	err = collect_keys(fd, key_size, &keys, &n);
	for (i = 0; !err && i < n; i++) {
		const char *key = (const char *)keys + i * key_size;

		/* gone meanwhile: what it held is in a count now, or nowhere */
		if (!bpf_map_lookup_elem(fd, key, value))
			err = fn(ctx, key, value, held);
	}
	free(keys);
	free(value);
	return err;
}

int bt_stacks__cycle(struct bt_stacks *st, const struct bt_stacks_cycle *c)
{
	struct bt_stacks_held held = { 0 };
	int err;

	err = bt_stacks__flip(st);
	if (err >= 0)
		err = c->hold ? c->hold(c->hold_ctx, &held) : 0;
	if (!err)
		err = c->consume(c->consume_ctx);
	if (!err)
		err = bt_stacks__release(st, held.ids, held.n);
	free(held.ids);
	return err;
}

static int run_tick(void *ctx)
{
	struct bt_stacks *st = ctx;

	return bt_stacks__cycle(st, &st->run_cycle);
}

void bt_stacks__follow_run(struct bt_stacks *st, struct bt_evrun *r,
			   int (*hold)(void *ctx, struct bt_stacks_held *held), void *hold_ctx)
{
	st->run_cycle = (struct bt_stacks_cycle){
		.hold = hold, .hold_ctx = hold_ctx, .consume = bt_evrun__consume, .consume_ctx = r
	};
	r->before = bt_stacks__poll;
	r->before_ctx = st;
	r->before_fd = bt_stacks__fd(st);
	r->tick_ms = 1000;
	r->tick = run_tick;
	r->tick_ctx = st;
	st->run = r;
}

int bt_stacks__interval_loop(struct bt_stacks *st, const struct bt_interval *iv, bt_print_fn print,
			     void *ctx)
{
	struct bt_poll poll = { bt_stacks__fd(st), bt_stacks__poll, st };

	return bt_interval_loop_poll(iv, print, ctx, &poll);
}

/*
 * A deferred stack's frames (lib/stacks/bt_unwind_samples.h) into st->buf: 1 when there, 0 with *id
 * the stored stack it falls back on, -ENOENT when unknown.
 */
static int deferred_frames(struct bt_stacks *st, uint64_t *id)
{
	uint64_t fallback = BT_STACK_LOST, start_ns = 0;
	int n, pid = 0;

	n = bt_unwind__sample_frames(st->unwind, *id, (uint64_t *)st->buf.ips, &fallback, &pid,
				     &start_ns);
	if (n == -ENOENT && st->pids) {
		/* sent before the count or event that names it, and not read yet (not
		 * bt_stacks__poll(): its collector may be what prints this) */
		bt_mmap_log__poll(st->mmaps);
		bt_events__poll(st->pids);
		n = bt_unwind__sample_frames(st->unwind, *id, (uint64_t *)st->buf.ips, &fallback,
					     &pid, &start_ns);
	}
	if (n == -EAGAIN) {
		/* gone before it could be indexed (a per-event tool prints before its exit) */
		struct bt_pid_note note = { .tgid = (__u32)pid, .start_ns = start_ns };

		bt_mmap_log__poll(st->mmaps);
		if (!note_gone(st, &note, false))
			n = bt_unwind__sample_frames(st->unwind, *id, (uint64_t *)st->buf.ips,
						     &fallback, &pid, &start_ns);
		if (n == -EAGAIN)
			n = 0; /* the walker's own, for now (its exit may unwind it for a later print) */
	}
	if (n < 0)
		return n;
	st->buf.nr = n;
	*id = fallback;
	return n > 0;
}

int bt_stacks__get(struct bt_stacks *st, uint64_t id, uint64_t entry_caller, uint64_t *ips)
{
	int n, m, i;

	if (id == BT_STACK_NONE)
		return 0;
	if (BT_STACK_DEFERRED(id)) {
		n = deferred_frames(st, &id);
		if (n < 0) {
			st->missing++;
			return n;
		}
		if (n > 0)
			goto copy;
	}
	if (!BT_STACK_STORED(id))
		return -ENOENT;
	if (bpf_map_lookup_elem(id & BT_STACK_DEEP_BIT ? st->deep_fd : st->stack_fd, &id,
				&st->buf)) {
		st->missing++;
		return -ENOENT;
	}
copy:
	n = st->buf.nr < BT_MAX_STACK_DEPTH ? (int)st->buf.nr : BT_MAX_STACK_DEPTH;
	memcpy(ips, st->buf.ips, n * sizeof(*ips));
	/* the unwinder's marks (-v) are kept apart: bits 62-63 are no user address */
	for (i = 0; i < n; i++) {
		/* a kernel address has every bit from 47 (48) up set; a marked user one only 62-63 */
		bool user = st->unwind && (ips[i] & ~BT_UNWIND_MARKS) < BT_UNWIND_USER_TOP;

		st->marks[i] = user ? (ips[i] & BT_UNWIND_MARKS) >> 56 : 0;
		if (user)
			ips[i] &= ~BT_UNWIND_MARKS;
	}
	m = bt_stack_splice_caller(ips, n, entry_caller);
	if (m > n && n >= 1) {
		memmove(&st->marks[2], &st->marks[1], (m - 2) * sizeof(st->marks[0]));
		st->marks[1] = 0;
	}
	return m;
}

int bt_stack_splice_caller(uint64_t *ips, int n, uint64_t caller)
{
	/*
	 * the walk saw the caller after all (a probe past the prologue): nothing to add; nor
	 * between a Python frame's two words (a probe on the evaluator's first instruction)
	 */
	if (!caller || n <= 0 || (n >= 2 && ips[1] == caller) || BT_PY_IS_CODE(ips[0]))
		return n;
	if (n == BT_MAX_STACK_DEPTH)
		n--; /* the outermost frame makes room */
	memmove(&ips[2], &ips[1], (n - 1) * sizeof(*ips));
	ips[1] = caller;
	return n + 1;
}

int bt_stacks__resolve(struct bt_stacks *st, uint64_t proc, const uint64_t *ips, int n,
		       struct bt_frame *frames)
{
	unsigned int flags = BT_RESOLVE_STACK;
	int pid = bt_proc_pid(proc);

	if (pid == BT_PID_KERNEL)
		flags |= BT_RESOLVE_TRIM;
	return bt_symbolizer__resolve_proc(st->sym, pid, pid == BT_PID_KERNEL ? 0 : proc >> 32, ips,
					   n, flags, frames,
					   BT_MAX_STACK_DEPTH * (1 + BT_SYM_MAX_INLINE));
}

/* Frames of id into st->frames; 0 for none, -ENOENT for lost. */
static int frames_of(struct bt_stacks *st, uint64_t proc, uint64_t id, uint64_t caller)
{
	int n = bt_stacks__get(st, id, caller, st->ips);

	if (n <= 0)
		return n;
	return bt_stacks__resolve(st, proc, st->ips, n, st->frames);
}

int bt_stacks__frames(struct bt_stacks *st, uint64_t proc, uint64_t id, uint64_t caller,
		      const struct bt_frame **frames)
{
	*frames = st->frames;
	return frames_of(st, proc, id, caller);
}

/*
 * The unwinder's mark of each resolved frame: inlined frames take the mark of the address
 * they were expanded from (the next frame that is not inlined).
 */
static void frame_marks(struct bt_stacks *st, uint64_t proc, int n, unsigned char *marks)
{
	int i, ip = 0;

	for (i = 0; i < n; i++) {
		marks[i] = bt_proc_pid(proc) != BT_PID_KERNEL && ip < BT_MAX_STACK_DEPTH
				   ? st->marks[ip]
				   : 0;
		/* a Python frame is two words of the stack (docs/python.md) */
		if (bt_frame__is_python(&st->frames[i]))
			ip += 2;
		else if (!st->frames[i].inlined)
			ip++;
	}
}

static const char *missed(uint64_t proc)
{
	return bt_proc_pid(proc) == BT_PID_KERNEL ? "[Missed Kernel Stack]" : "[Missed User Stack]";
}

/* BCC profile's -a: "_[k]" after a kernel frame's name, as the flame graph scripts mark them */
static void annotate(char *name, size_t size)
{
	size_t len = strlen(name);

	if (len + sizeof("_[k]") <= size)
		memcpy(name + len, "_[k]", sizeof("_[k]"));
}

int bt_stacks__print(struct bt_stacks *st, FILE *out, const struct bt_stack_style *style,
		     uint64_t proc, uint64_t id, uint64_t caller)
{
	int n = frames_of(st, proc, id, caller), i;
	unsigned char marks[BT_MAX_STACK_DEPTH * (1 + BT_SYM_MAX_INLINE)];
	char raw[1024], name[BT_ESC_SIZE(1024)];

	if (n < 0) {
		fprintf(out, "%s%s\n", style->indent, missed(proc));
		return 1;
	}
	if (style->addresses)
		frame_marks(st, proc, n, marks);
	for (i = 0; i < n; i++) {
		int k = style->root_first ? n - 1 - i : i;
		const struct bt_frame *f = &st->frames[k];

		bt_frame__format(f, style->fmt, raw, sizeof(raw));
		/* a symbol or file name is the traced side's: no control byte reaches the output */
		bt_escape(name, sizeof(name), raw, sizeof(raw), 0);
		if (style->annotate && bt_proc_pid(proc) == BT_PID_KERNEL)
			annotate(name, sizeof(name));
		if (style->addresses)
			fprintf(out, "%s%-16llx %s%s%s\n", style->indent,
				(unsigned long long)f->addr, name,
				marks[k] & (BT_UNWIND_MARK_FP >> 56) ? " [fp]" : "",
				marks[k] & (BT_UNWIND_MARK_TRUNC >> 56) ? " [truncated]" : "");
		else
			fprintf(out, "%s%s\n", style->indent, name);
	}
	return n;
}

int bt_stacks__json(struct bt_stacks *st, struct bt_json *j, const char *key,
		    const struct bt_stack_style *style, uint64_t proc, uint64_t id, uint64_t caller)
{
	int n = frames_of(st, proc, id, caller), i;
	unsigned char marks[BT_MAX_STACK_DEPTH * (1 + BT_SYM_MAX_INLINE)];
	/* the unwinder's marks exist with -v (probes/bt_unwind_maps.h): as in the text output */
	bool marked = st->verbose && st->unwind && bt_proc_pid(proc) != BT_PID_KERNEL;
	bool truncated = false;
	char name[1024];

	if (n < 0) {
		bt_json_null(j, key); /* lost: distinct from an empty stack */
		return 0;
	}
	if (marked)
		frame_marks(st, proc, n, marks);
	bt_json_begin_array(j, key);
	for (i = 0; i < n; i++) {
		const struct bt_frame *f = &st->frames[i];

		bt_json_begin_object(j, NULL);
		bt_json_string(j, "name", f->name);
		bt_json_int(j, "offset", (long long)f->offset);
		bt_json_string(j, "module", f->module);
		bt_json_bool(j, "inlined", f->inlined);
		/* a string: 64-bit addresses do not survive JSON readers that use doubles */
		snprintf(name, sizeof(name), "%#llx", (unsigned long long)f->addr);
		bt_json_string(j, "address", name);
		/* a Python frame's place in its source is what names it (docs/python.md) */
		if (((style && (style->fmt & BT_FMT_SOURCE)) || bt_frame__is_python(f)) &&
		    f->file) {
			bt_json_string(j, "file", f->file);
			bt_json_int(j, "line", f->line);
		}
		if (marked) {
			bt_json_bool(j, "fp", marks[i] & (BT_UNWIND_MARK_FP >> 56));
			truncated |= !!(marks[i] & (BT_UNWIND_MARK_TRUNC >> 56));
		}
		bt_json_end_object(j);
	}
	bt_json_end_array(j);
	if (marked) {
		/* an array has no room for it: a member of its own next to the stack */
		snprintf(name, sizeof(name), "%s_truncated", key);
		bt_json_bool(j, name, truncated);
	}
	return n;
}

unsigned long long bt_stacks__lost(struct bt_stacks *st)
{
	uint64_t lost[BT_STACK_LOST_KINDS] = { 0 };
	int kind;

	for (kind = 0; kind < BT_STACK_LOST_KINDS; kind++)
		bt_percpu_sum(st->lost_fd, kind, &lost[kind], 1);
	return lost[BT_STACK_LOST_FULL] + lost[BT_STACK_LOST_CAPTURE];
}

void bt_stacks__reset_counts(struct bt_stacks *st)
{
	int kind;

	for (kind = 0; kind < BT_STACK_LOST_KINDS; kind++)
		bt_percpu_zero(st->lost_fd, kind, 1);
	st->missing = 0;
	bt_events__reset_lost(st->pids);
	bt_unwind__reset_counts(st->unwind);
}

void bt_stacks__report_lost(struct bt_stacks *st)
{
	uint64_t lost[BT_STACK_LOST_KINDS] = { 0 };
	int kind;

	for (kind = 0; kind < BT_STACK_LOST_KINDS; kind++)
		bt_percpu_sum(st->lost_fd, kind, &lost[kind], 1);
	if (lost[BT_STACK_LOST_FULL])
		bt_warn("%llu stacks lost: the stack map was full; raise --stack-storage-size",
			(unsigned long long)lost[BT_STACK_LOST_FULL]);
	if (lost[BT_STACK_LOST_CAPTURE])
		bt_warn("%llu stacks could not be captured",
			(unsigned long long)lost[BT_STACK_LOST_CAPTURE]);
	if (st->pids && bt_events__lost(st->pids))
		bt_warn("%llu new processes not announced in time; their frames may be [unknown]",
			bt_events__lost(st->pids));
	if (st->missing)
		bt_warn("%llu stacks were freed before they were printed", st->missing);
	if (st->verbose || bt_debug_enabled()) {
		bt_unwind__report(st->unwind, stderr);
	} else if (st->unwind) {
		struct bt_unwind_counts c;

		char who[160];

		bt_unwind__counts(st->unwind, &c);
		bt_unwind__partial_report(st->unwind, who, sizeof(who));
		/*
		 * What to do about it, not only that it happened: a machine-wide run meets
		 * hundreds of processes it has not indexed, and the line must say what helps.
		 */
		if (c.partial)
			bt_warn("%llu user stacks walked partly by frame pointers, so they may end "
				"early: their process was not indexed yet%s%s%s. -p PID indexes a "
				"process before tracing starts; --unwind fp walks frame pointers "
				"only",
				c.partial, who[0] ? " (" : "", who, who[0] ? ")" : "");
		if (c.py_unread)
			bt_warn("%llu user stacks with Python frames that could not all be read (a "
				"chain past %d frames, memory paged out or changing as it was "
				"read): "
				"each is marked %s",
				c.py_unread, BT_PY_MAX_FRAMES, bt_sym_python_unread);
	}
}
