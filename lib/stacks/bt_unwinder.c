// SPDX-License-Identifier: GPL-2.0
#include <elf.h>
#include <errno.h>
#include <malloc.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <dirent.h>
#include <ctype.h>
#include <bpf/bpf.h>

#include "bt_clock.h"
#include "bt_core_btf.h"
#include "bt_env.h"
#include "bt_err.h"
#include "bt_features.h"
#include "bt_percpu.h"
#include "bt_procfile.h"
#include "bt_python.h"
#include "bt_rodata.h"
#include "bt_sym.h"
#include "bt_unwinder.h"
#include "bt_unwind_maps.h"
#include "bt_btf_ids.h"
#include "bt_unwind_probe.skel.h"
#include "bt_unwind_table.h"
#include "bt_unwind_cache.h"
#include "bt_unwind_samples.h"

/* The code this build runs: the walker's rules are its architecture's */
#if defined(__aarch64__)
#define BT_ELF_MACHINE EM_AARCH64
#else
#define BT_ELF_MACHINE EM_X86_64
#endif

/* Load the walker with everything on, never attached: does this kernel's verifier take it? */
static int probe_load(char *why, size_t len)
{
	struct bt_unwind_probe_bpf *skel = bt_unwind_probe_bpf__open_opts(
		bt_core_btf_open_opts(bt_unwind_probe_bpf__elf_bytes));
	struct bt_unwind_opts o = {
		.mode = BT_UNWIND_DWARF, .marks = true, .max_procs = 1, .max_tables = 1
	};
	bool on = true;
	int err;

	if (!skel) {
		snprintf(why, len, "cannot open the unwinder's object: %s", strerror(errno));
		return -errno;
	}
	err = bt_rodata_set(skel->obj, "bt_unwind_on", &on, sizeof(on));
	if (!err)
		err = bt_rodata_set(skel->obj, "bt_unwind_marks", &o.marks, sizeof(o.marks));
	if (!err)
		err = bt_rodata_set(skel->obj, "bt_unwind_defer_on", &on, sizeof(on));
	if (!err)
		err = bt_rodata_set(skel->obj, "bt_unwind_py_on", &on, sizeof(on));
	if (!err)
		err = bpf_map__set_max_entries(skel->maps.bt_unwind_tables, 2);
	if (!err)
		err = bt_unwind_probe_bpf__load(skel);
	if (err)
		snprintf(why, len, "the verifier refused the unwinder: %s (see --debug)",
			 strerror(-err));
	bt_unwind_probe_bpf__destroy(skel);
	return err;
}

/*
 * The name under which a successful probe load is noted per kernel (bt_btf_id_note_loads):
 * the probe object's own hash is in it, so a rebuilt walker is checked again.
 */
static const char *probe_note_name(void)
{
	static char name[64];
	const void *elf;
	size_t size;

	if (!name[0]) {
		elf = bt_unwind_probe_bpf__elf_bytes(&size);
		snprintf(name, sizeof(name), "bt_unwind_probe_%016llx",
			 (unsigned long long)bt_fnv(0xcbf29ce484222325ULL, elf, size));
	}
	return name;
}

/* The helpers the walker needs that this kernel lacks, for --unwind=auto's notice */
static char kernel_lacks[160];

int bt_unwind_kernel_ok(char *why, size_t len)
{
	static const struct {
		enum bpf_func_id id;
		const char *name;
	} helpers[] = {
		{ BPF_FUNC_loop, "bpf_loop (5.17)" },
		{ BPF_FUNC_task_pt_regs, "bpf_task_pt_regs (5.15)" },
		{ BPF_FUNC_get_current_task_btf, "bpf_get_current_task_btf (5.11)" },
		{ BPF_FUNC_probe_read_user, "bpf_probe_read_user (5.5)" },
		{ BPF_FUNC_find_vma, "bpf_find_vma (5.17)" },
	};
	static char reason[192];
	static int cached = 1;
	size_t i, used;

	if (cached <= 0)
		goto out;
	cached = 0;
	/*
	 * The verifier gives the same answer for the same program on the same kernel: a load
	 * that passed once here is not repeated (~85 ms of CPU and ~5 MiB per run). Only
	 * successes are noted; a refusal may be passing (memory, limits) and is asked again.
	 */
	if (bt_btf_id_loads(probe_note_name(), 0)) {
		bt_debug("the unwinder loaded on this kernel before (%s)", probe_note_name());
		goto out;
	}
	if (libbpf_probe_bpf_map_type(BPF_MAP_TYPE_ARRAY_OF_MAPS, NULL) != 1) {
		snprintf(reason, sizeof(reason), "no array-of-maps");
		cached = -EOPNOTSUPP;
		goto out;
	}
	/*
	 * Named first, all of them: a missing helper says more than the verifier's refusal, and
	 * 5.10 lacks four (docs/unwind.md). -ENOSYS tells this apart from other reasons.
	 */
	for (i = 0; i < sizeof(helpers) / sizeof(helpers[0]); i++) {
		if (libbpf_probe_bpf_helper(BPF_PROG_TYPE_TRACEPOINT, helpers[i].id, NULL) == 1)
			continue;
		used = strlen(kernel_lacks);
		snprintf(kernel_lacks + used, sizeof(kernel_lacks) - used, "%s%s", used ? ", " : "",
			 helpers[i].name);
		cached = -ENOSYS;
	}
	if (cached) {
		snprintf(reason, sizeof(reason), "no %s", kernel_lacks);
		goto out;
	}
	cached = probe_load(reason, sizeof(reason));
	if (!cached)
		bt_btf_id_note_loads(probe_note_name(), 0);
out:
	snprintf(why, len, "%s", cached ? reason : "ok");
	return cached;
}

const struct bt_feature *bt_unwind_feature(void)
{
	static struct bt_feature f = { "unwinder", "unwinder" };
	static bool probed;

	if (probed)
		return &f;
	probed = true;
	f.err = -bt_unwind_kernel_ok(f.why, sizeof(f.why));
	f.ok = !f.err;
	if (f.ok)
		f.why[0] = 0;
	bt_debug("feature %s: %s%s%s", f.key, f.ok ? "yes" : "no (", f.ok ? "" : f.why,
		 f.ok ? "" : ")");
	return &f;
}

unsigned int bt_unwind_layout(size_t nr, struct bt_unwind_info *info)
{
	size_t pages, mid;

	memset(info, 0, sizeof(*info));
	if (!nr)
		return 0;
	pages = (nr + BT_UNWIND_FANOUT - 1) / BT_UNWIND_FANOUT;
	if (pages == 1) {
		info->levels = 1;
		return 1;
	}
	if (pages <= BT_UNWIND_FANOUT) {
		info->levels = 2;
		info->level_first[1] = 1;
		return 1 + pages;
	}
	mid = (pages + BT_UNWIND_FANOUT - 1) / BT_UNWIND_FANOUT;
	if (mid > BT_UNWIND_FANOUT)
		return 0;
	info->levels = 3;
	info->level_first[1] = 1;
	info->level_first[2] = 1 + mid;
	return 1 + mid + pages;
}

void bt_unwind_fill(const struct bt_unwind_row *rows, size_t nr, const struct bt_unwind_info *info,
		    struct bt_unwind_page *pages, unsigned int count)
{
	unsigned int leaf = info->level_first[info->levels - 1], p, i;

	/* the rows */
	for (p = leaf; p < count; p++) {
		size_t first = (size_t)(p - leaf) * BT_UNWIND_FANOUT, j;
		size_t n = nr - first < BT_UNWIND_FANOUT ? nr - first : BT_UNWIND_FANOUT;

		pages[p].n = n;
		for (j = 0; j < n; j++) {
			const struct bt_unwind_row *r = &rows[first + j];

			pages[p].pcs[j] = r->pc;
			pages[p].rules[j].cfa_offset = r->cfa_offset;
			pages[p].rules[j].rbp_offset = r->rbp_offset;
			pages[p].rules[j].cfa_rule = r->cfa_rule;
			pages[p].rules[j].rbp_rule = r->rbp_rule;
		}
	}
	/* each directory level from the bottom up: the first pc of each child */
	for (i = info->levels - 1; i > 0; i--) {
		unsigned int lo = info->level_first[i - 1], child = info->level_first[i];
		unsigned int end = i + 1 < info->levels ? info->level_first[i + 1] : count;

		for (p = child; p < end; p++) {
			struct bt_unwind_page *parent = &pages[lo + (p - child) / BT_UNWIND_FANOUT];
			parent->pcs[parent->n++] = pages[p].pcs[0];
		}
	}
}

#define BT_UNWIND_ALL_MAPPINGS 512
/*
 * bt_new_pids with the walker on: half of it for stacks sent to be unwound here, half kept
 * for announcements and exits. A stack is sent at the length read (most of a new process's
 * are one or two KiB, 8 at most), and the kernel maps the ring's pages twice into this
 * process, all at once: its size is twice that in RSS. Beside ~100 new processes a second
 * (offcputime -f 10, three trials each), 1 MiB of such records left 0-2,313 stacks unsent
 * for its room where 2 MiB of 8 KiB records left 12,235-19,482 (docs/unwind.md).
 */
#define BT_UNWIND_SAMPLE_RING (1024 * 1024)

/* A file seen in some process: its table (0: none) and where its code is in the file. */
#define MAX_LOADS BT_UNWIND_FILE_LOADS
struct file_entry {
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
	__u32 table;
	unsigned int nloads;
	struct {
		__u64 offset, vaddr, filesz;
	} loads[MAX_LOADS];
	unsigned char build_id[20];
	unsigned int build_id_len;
	bool is_py; /* CPython's interpreter is in it (symbolize/bt_python.h) */
	struct bt_py_file py;
};

#define PENDING_TABLES 64

struct bt_unwind {
	int tables_fd, info_fd, procs_fd, stats_fd, files_fd, found_fd, asked_fd, py_tables_fd;
	unsigned int max_tables;
	unsigned long max_bytes, bytes;
	__u32 next_table;
	/*
	 * Tables built for the process being indexed, not yet in bt_unwind_tables: each update
	 * of a map of maps waits for an RCU grace period (~10 ms here), one batch waits once
	 * (6.8+; older kernels take them one at a time).
	 */
	__u32 pending_ids[PENDING_TABLES];
	int pending_fds[PENDING_TABLES];
	unsigned int npending;
	unsigned long long files_without, procs;
	/* tables left out by max_bytes (built and not loaded, or not built: full already) */
	unsigned long long over_budget, over_budget_bytes;
	struct file_entry *files;
	size_t nfiles, cap;
	pthread_mutex_t lock; /* the cache, the counters and the procs map's writes */
	/*
	 * The worker indexes processes off the event loop: a table can take 100 ms to build,
	 * and the loop must not stall behind it (the symbolizer notes new processes there,
	 * before they exit). Announced processes go first, then the scan of /proc at start.
	 */
	pthread_mutex_t qlock;
	pthread_cond_t qcond;
	int queue[256];
	unsigned int qhead, qtail; /* free-running; qtail - qhead queued */
	unsigned long long dropped;
	bool stop, scan, busy;
	bool scan_new;	      /* the scan skips processes that have a mapping table */
	unsigned int waiters; /* in bt_unwind__wait_indexed(): the scan is no background work */
	pthread_t thread;
	bool thread_running;
	struct bt_unwind_proc proc; /* built here: 2 KiB is too much for a stack frame */
	/* every executable mapping of the process being indexed, before the cut to 64 */
	struct bt_unwind_mapping all[BT_UNWIND_ALL_MAPPINGS];
	/*
	 * The vdso is the same image in every process of this kernel: its table is built from
	 * ours (it has .eh_frame), and used for every process's [vdso] of the same size.
	 */
	pid_t worker_tid;
	int worker_nice; /* what the worker last set (boost_worker() lowers it) */
	/*
	 * The tests' stand-in for a worker far behind (BPFTOOLS_UNWIND_SCAN_ONLY): only the
	 * processes running at start are indexed, so a process started since walks as one not
	 * indexed yet (by file) for its whole life, where a quiet machine leaves it so a few ms.
	 * scanned: the start-up scan is over, and with it any indexing
	 */
	bool scan_only, scanned;
	bool interpreters; /* the machine's Python interpreters indexed (index_interpreters) */
	bool vdso_tried;
	struct file_entry vdso;
	unsigned long vdso_size;
	struct bt_unwind_samples *samples; /* stacks sent to be unwound here */
	bool python;			   /* Python frames (bt_unwind_opts.python) */
	struct bt_unwind_py py;		   /* of the process being indexed */
};

/*
 * opts' limits, else BPFTOOLS_UNWIND_TABLES and BPFTOOLS_UNWIND_TABLES_MB (the tests reach or
 * avoid them in seconds), else 1024 files and 64 MiB.
 */
static unsigned int max_tables(const struct bt_unwind_opts *opts)
{
	const char *v = bt_env_value("BPFTOOLS_UNWIND_TABLES");
	unsigned long n = v ? strtoul(v, NULL, 10) : 0;

	if (opts->max_tables)
		return opts->max_tables;
	return n && n <= 65536 ? n : 1024;
}

static unsigned long max_bytes(const struct bt_unwind_opts *opts)
{
	const char *v = bt_env_value("BPFTOOLS_UNWIND_TABLES_MB");
	unsigned long mb = v ? strtoul(v, NULL, 10) : 0;

	if (opts->max_bytes)
		return opts->max_bytes;
	return (mb && mb <= 65536 ? mb : 64) << 20;
}

static int map_fd(struct bpf_object *obj, const char *name)
{
	struct bpf_map *m = bpf_object__find_map_by_name(obj, name);

	return m ? bpf_map__fd(m) : -ENOENT;
}

int bt_unwind__configure(struct bpf_object *obj, const struct bt_unwind_opts *opts, bool *on)
{
	struct bpf_map *tables = bpf_object__find_map_by_name(obj, "bt_unwind_tables");
	struct bpf_map *info = bpf_object__find_map_by_name(obj, "bt_unwind_info");
	struct bpf_map *procs = bpf_object__find_map_by_name(obj, "bt_unwind_procs");
	struct bpf_map *asked = bpf_object__find_map_by_name(obj, "bt_unwind_asked");
	struct bpf_map *files = bpf_object__find_map_by_name(obj, "bt_unwind_files");
	struct bpf_map *found = bpf_object__find_map_by_name(obj, "bt_unwind_found");
	struct bpf_map *py_tables = bpf_object__find_map_by_name(obj, "bt_unwind_py_tables");
	struct bpf_map *pids = bpf_object__find_map_by_name(obj, "bt_new_pids");
	unsigned int nprocs = opts->max_procs ? opts->max_procs : 4096;
	unsigned int ntables = max_tables(opts);
	bool yes = false;
	char why[192];
	int err;

	*on = false;
	if (!tables || !info || !procs || !asked || !files || !found || !py_tables)
		return opts->mode == BT_UNWIND_DWARF ? -ENOENT : 0;
	if (opts->mode != BT_UNWIND_FP) {
		err = bt_unwind_kernel_ok(why, sizeof(why));
		if (err && opts->mode == BT_UNWIND_DWARF) {
			bt_err("--unwind=dwarf: this kernel cannot run the unwinder: %s", why);
			return -ECANCELED; /* said: the callers add no line of their own */
		}
		/*
		 * Said once, at start: the stacks are not what this tool gives elsewhere. Not where
		 * the reason is this build's (arm64) or a refusal --debug shows.
		 */
		if (err == -ENOSYS)
			bt_note("user stacks are walked by frame pointers: this kernel lacks %s "
				"(docs/unwind.md)",
				kernel_lacks);
		else if (err)
			bt_debug("unwinding user stacks with frame pointers: %s", why);
		yes = !err;
	}
	err = bt_rodata_set(obj, "bt_unwind_on", &yes, sizeof(yes));
	if (!err && yes)
		err = bt_rodata_set(obj, "bt_unwind_marks", &opts->marks, sizeof(opts->marks));
	/* the walker's kernels all have ring buffers (5.17+), where samples go */
	if (!err && yes)
		err = bt_rodata_set(obj, "bt_unwind_defer_on", &yes, sizeof(yes));
	if (!err && yes && opts->python)
		err = bt_rodata_set(obj, "bt_unwind_py_on", &yes, sizeof(yes));
	if (!err && yes && pids)
		err = bpf_map__set_max_entries(pids, BT_UNWIND_SAMPLE_RING);
	if (err)
		return err;
	if (yes) {
		err = bpf_map__set_max_entries(tables, ntables + 1); /* id 0 is "no table" */
		if (!err)
			err = bpf_map__set_max_entries(info, ntables + 1);
		if (!err && opts->python)
			err = bpf_map__set_max_entries(py_tables, ntables + 1);
		if (!err)
			err = bpf_map__set_max_entries(procs, nprocs);
		if (!err)
			err = bpf_map__set_max_entries(asked, nprocs);
		if (!err)
			err = bpf_map__set_max_entries(found, nprocs);
		if (!err)
			err = bpf_map__set_max_entries(files, ntables);
		if (err)
			return err;
	}
	*on = yes;
	return 0;
}

int bt_unwind__new(struct bpf_object *obj, const struct bt_unwind_opts *opts,
		   struct bt_unwind **out)
{
	struct bt_unwind *u = calloc(1, sizeof(*u));

	if (!u)
		return -ENOMEM;
	pthread_mutex_init(&u->lock, NULL);
	pthread_mutex_init(&u->qlock, NULL);
	bt_cond_init_monotonic(&u->qcond);
	u->tables_fd = map_fd(obj, "bt_unwind_tables");
	u->info_fd = map_fd(obj, "bt_unwind_info");
	u->procs_fd = map_fd(obj, "bt_unwind_procs");
	u->stats_fd = map_fd(obj, "bt_unwind_stats");
	u->files_fd = map_fd(obj, "bt_unwind_files");
	u->found_fd = map_fd(obj, "bt_unwind_found");
	u->asked_fd = map_fd(obj, "bt_unwind_asked");
	u->py_tables_fd = map_fd(obj, "bt_unwind_py_tables");
	u->max_tables = max_tables(opts);
	u->max_bytes = max_bytes(opts);
	u->scan_only = bt_env_flag("BPFTOOLS_UNWIND_SCAN_ONLY");
	u->python = opts->python;
	u->next_table = 1;
	if (u->tables_fd < 0 || u->info_fd < 0 || u->procs_fd < 0 || u->stats_fd < 0 ||
	    u->files_fd < 0 || u->found_fd < 0 || u->asked_fd < 0 || u->py_tables_fd < 0 ||
	    bt_unwind_samples__new(u->tables_fd, u->info_fd, u->procs_fd, opts->marks,
				   &u->samples)) {
		bt_unwind__free(u);
		return -ENOENT;
	}
	*out = u;
	return 0;
}

void bt_unwind__free(struct bt_unwind *u)
{
	if (!u)
		return;
	if (u->thread_running) {
		pthread_mutex_lock(&u->qlock);
		__atomic_store_n(&u->stop, true, __ATOMIC_RELAXED);
		pthread_cond_broadcast(&u->qcond);
		pthread_mutex_unlock(&u->qlock);
		pthread_join(u->thread, NULL);
	}
	if (u->over_budget)
		bt_warn("unwind: %llu files' tables (%llu KiB known) left out past the %u tables "
			"or %lu MiB for them: their code is walked by frame pointers",
			u->over_budget, u->over_budget_bytes >> 10, u->max_tables,
			u->max_bytes >> 20);
	bt_unwind_samples__free(u->samples);
	pthread_cond_destroy(&u->qcond);
	pthread_mutex_destroy(&u->qlock);
	pthread_mutex_destroy(&u->lock);
	free(u->files);
	free(u);
}

/* Put the pending tables' maps in bt_unwind_tables, at once where the kernel can. */
static void flush_tables(struct bt_unwind *u)
{
	LIBBPF_OPTS(bpf_map_batch_opts, o);
	__u32 count = u->npending, i;

	if (!count)
		return;
	if (bpf_map_update_batch(u->tables_fd, u->pending_ids, u->pending_fds, &count, &o)) {
		bt_debug("unwind: %u tables stored one at a time (%s)", u->npending,
			 strerror(errno));
		for (i = count; i < u->npending; i++)
			if (bpf_map_update_elem(u->tables_fd, &u->pending_ids[i],
						&u->pending_fds[i], BPF_ANY))
				bt_debug("unwind: cannot store table %u: %s", u->pending_ids[i],
					 strerror(errno));
	}
	for (i = 0; i < u->npending; i++)
		close(u->pending_fds[i]);
	u->npending = 0;
}

/* Copy a table into a new inner map under a new id; 0 when it does not fit. */
static __u32 load_table(struct bt_unwind *u, const struct bt_unwind_table *t)
{
	LIBBPF_OPTS(bpf_map_create_opts, o, .map_flags = BPF_F_INNER_MAP);
	struct bt_unwind_page *pages = NULL;
	struct bt_unwind_info info;
	unsigned int count, p;
	unsigned long bytes;
	__u32 id = 0;
	int fd = -1;

	count = bt_unwind_layout(t->nr, &info);
	bytes = (unsigned long)count * sizeof(*pages);
	if (!count || u->next_table > u->max_tables || u->bytes + bytes > u->max_bytes) {
		bt_debug("unwind: no room for a table of %zu rows", t->nr);
		u->over_budget++;
		u->over_budget_bytes += bytes;
		return 0;
	}
	pages = calloc(count, sizeof(*pages));
	if (!pages)
		return 0;
	bt_unwind_fill(t->rows, t->nr, &info, pages, count);
	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "bt_unwind_t", sizeof(__u32), sizeof(*pages), count,
			    &o);
	if (fd < 0) {
		bt_debug("unwind: cannot create a table map of %u pages: %s", count,
			 strerror(errno));
		goto out;
	}
	for (p = 0; p < count; p++)
		if (bpf_map_update_elem(fd, &p, &pages[p], BPF_ANY))
			goto out;
	/*
	 * the info first: the walker looks at both, and an id without a map finds nothing;
	 * the map goes in with the process's others (flush_tables)
	 */
	if (bpf_map_update_elem(u->info_fd, &u->next_table, &info, BPF_ANY)) {
		bt_debug("unwind: cannot store table %u: %s", u->next_table, strerror(errno));
		goto out;
	}
	if (u->npending == PENDING_TABLES)
		flush_tables(u);
	u->pending_ids[u->npending] = u->next_table;
	u->pending_fds[u->npending++] = fd;
	fd = -1;
	id = u->next_table++;
	u->bytes += bytes;
out:
	if (fd >= 0)
		close(fd);
	free(pages);
	return id;
}

/* The PT_LOAD segments and the GNU build-id of the ELF file fd. */
static int read_elf_layout(int fd, struct file_entry *f)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph[64];
	unsigned int i, n;

	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_machine != BT_ELF_MACHINE ||
	    eh.e_phentsize != sizeof(Elf64_Phdr))
		return -ENOEXEC;
	n = eh.e_phnum < 64 ? eh.e_phnum : 64;
	if (pread(fd, ph, n * sizeof(*ph), eh.e_phoff) != (ssize_t)(n * sizeof(*ph)))
		return -ENOEXEC;
	for (i = 0; i < n; i++) {
		if (ph[i].p_type == PT_LOAD && (ph[i].p_flags & PF_X) && f->nloads < MAX_LOADS) {
			f->loads[f->nloads].offset = ph[i].p_offset;
			f->loads[f->nloads].vaddr = ph[i].p_vaddr;
			f->loads[f->nloads].filesz = ph[i].p_filesz;
			f->nloads++;
		} else if (ph[i].p_type == PT_NOTE && ph[i].p_filesz <= 4096 && !f->build_id_len) {
			unsigned char buf[4096];
			size_t off = 0, len = ph[i].p_filesz;

			if (pread(fd, buf, len, ph[i].p_offset) != (ssize_t)len)
				continue;
			while (off + sizeof(Elf64_Nhdr) <= len) {
				Elf64_Nhdr nh;
				size_t name, desc;

				memcpy(&nh, buf + off, sizeof(nh));
				name = off + sizeof(nh);
				desc = name + ((nh.n_namesz + 3) & ~3u);
				if (desc + nh.n_descsz > len)
					break;
				if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
				    !memcmp(buf + name, "GNU", 4) && nh.n_descsz &&
				    nh.n_descsz <= sizeof(f->build_id)) {
					memcpy(f->build_id, buf + desc, nh.n_descsz);
					f->build_id_len = nh.n_descsz;
					break;
				}
				off = desc + ((nh.n_descsz + 3) & ~3u);
			}
		}
	}
	return f->nloads ? 0 : -ENOEXEC;
}

/* The cached entry of the file open as fd (path for debug links), building its table. */
/*
 * The file mapped (s) is the one at its path in our own root: not a container's, whose root
 * (with no user namespace) may own a file that claims a host library's build-id.
 */
static bool in_our_root(const char *path, const struct stat *s)
{
	struct stat o;

	return !stat(path, &o) && o.st_dev == s->st_dev && o.st_ino == s->st_ino;
}

/*
 * fd's table: kept from an earlier run (lib/stacks/bt_unwind_cache.h), else built, and kept
 * for the next when the file is root's alone, in our root, and has a build-id.
 */
static int build_table(int fd, const char *path, const char *root, const struct stat *s,
		       const struct file_entry *f, struct bt_unwind_table **t)
{
	struct bt_unwind_cache_key key = { .size = (unsigned long long)s->st_size,
					   .a64 = BT_ELF_MACHINE == EM_AARCH64 };
	int err;

	if (f->build_id_len <= sizeof(key.build_id) && bt_unwind_cache__eligible(s) &&
	    in_our_root(path, s)) {
		key.build_id_len = f->build_id_len;
		memcpy(key.build_id, f->build_id, f->build_id_len);
	}
	if (!bt_unwind_cache__load(&key, t)) {
		bt_debug("unwind: %s: table read from the cache (%zu rows)", path, (*t)->nr);
		return 0;
	}
	err = bt_unwind_table_build_fd(fd, path, root, t);
	if (!err)
		bt_debug("unwind: %s: table built (%zu rows)%s", path, (*t)->nr,
			 bt_unwind_cache__store(&key, *t) > 0 ? ", kept for the next run" : "");
	return err;
}

/* f's table and segments for the walker's lookups by file (bt_unwind_files), by (dev, ino) */
static void note_by_inode(struct bt_unwind *u, const struct file_entry *f, __u64 dev, __u64 ino,
			  const char *path)
{
	struct bt_unwind_file_key key = { .dev = dev, .ino = ino };
	struct bt_unwind_file val = { .table = f->table, .nloads = f->nloads };
	unsigned int i;

	for (i = 0; i < f->nloads && i < BT_UNWIND_FILE_LOADS; i++) {
		val.loads[i].offset = f->loads[i].offset;
		val.loads[i].vaddr = f->loads[i].vaddr;
		val.loads[i].filesz = f->loads[i].filesz;
	}
	if (bpf_map_update_elem(u->files_fd, &key, &val, BPF_ANY))
		bt_debug("unwind: cannot note %s by its inode: %s", path, strerror(errno));
}

/*
 * The interpreter's link-time addresses under f's table: a process not indexed yet finds them
 * by the mapping its walk finds by file (probes/bt_unwind.bpf.h, bt_py_by_table).
 */
static void note_interpreter(struct bt_unwind *u, const struct file_entry *f, const char *path)
{
	struct bt_unwind_py py;
	__u32 key = f->table;

	if (bt_py_walker_info(&f->py, 0, &py))
		return; /* a version without a row: said once, above */
	if (bpf_map_update_elem(u->py_tables_fd, &key, &py, BPF_ANY))
		bt_debug("python: %s: its processes not indexed yet have no Python frames: %s",
			 path, strerror(errno));
}

static struct file_entry *file_of(struct bt_unwind *u, int fd, const char *path, const char *root)
{
	struct bt_unwind_table *t = NULL;
	struct file_entry f = { 0 }, *e;
	struct stat s;
	size_t i;
	int err;

	if (fstat(fd, &s))
		return NULL;
	for (i = 0; i < u->nfiles; i++) {
		e = &u->files[i];
		if (e->dev == s.st_dev && e->ino == s.st_ino && e->size == s.st_size &&
		    e->mtime.tv_sec == s.st_mtim.tv_sec && e->mtime.tv_nsec == s.st_mtim.tv_nsec)
			return e;
	}
	f.dev = s.st_dev;
	f.ino = s.st_ino;
	f.size = s.st_size;
	f.mtime = s.st_mtim;
	if (read_elf_layout(fd, &f))
		f.nloads = 0;
	if (u->python && f.nloads && !bt_py_file_detect(fd, path, &f.py)) {
		f.is_py = true;
		/* said once per file: its processes keep the evaluator's native frames */
		if (f.py.row < 0)
			bt_warn("python: %s is CPython %u.%u, whose frames bpftools cannot read "
				"yet "
				"(docs/python.md): its stacks show the interpreter's native frames",
				path, f.py.major, f.py.minor);
		else
			bt_debug("python: %s is CPython %u.%u (evaluator %#llx-%#llx, cold part "
				 "%#llx-%#llx)",
				 path, f.py.major, f.py.minor,
				 (unsigned long long)f.py.eval_start[0],
				 (unsigned long long)f.py.eval_end[0],
				 (unsigned long long)f.py.eval_start[1],
				 (unsigned long long)f.py.eval_end[1]);
	}
	/* the same file elsewhere (another container's copy): its table */
	for (i = 0; f.build_id_len && i < u->nfiles; i++) {
		e = &u->files[i];
		if (e->build_id_len == f.build_id_len &&
		    !memcmp(e->build_id, f.build_id, f.build_id_len)) {
			f.table = e->table;
			goto add;
		}
	}
	if (f.nloads && u->bytes >= u->max_bytes) {
		/* the tables' budget is spent: nothing is read or built for this file */
		u->over_budget++;
	} else if (f.nloads) {
		err = build_table(fd, path, root, &s, &f, &t);
		if (!err)
			f.table = load_table(u, t);
		else
			bt_debug("unwind: no table for %s: %s", path, strerror(-err));
		bt_unwind_table_free(t);
		/*
		 * A build takes many times the table's size in passing (node's: tens of MiB):
		 * give it back, or the worker's arena keeps the peak of every build for good
		 */
		malloc_trim(0);
	}
	if (!f.table)
		u->files_without++;
add:
	/* the kernel's encoding of the device: the walker reads it from the inode */
	if (f.table)
		note_by_inode(u, &f, (__u64)major(f.dev) << 20 | minor(f.dev), f.ino, path);
	if (f.table && f.is_py)
		note_interpreter(u, &f, path);
	if (u->nfiles == u->cap) {
		size_t cap = u->cap ? 2 * u->cap : 64;
		struct file_entry *n = realloc(u->files, cap * sizeof(*n));

		if (!n)
			return NULL;
		u->files = n;
		u->cap = cap;
	}
	u->files[u->nfiles] = f;
	return &u->files[u->nfiles++];
}

/* The layout of an ELF image in memory (the vdso), as read_elf_layout() reads a file's. */
static int image_layout(const unsigned char *img, size_t size, struct file_entry *f)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	unsigned int i;

	if (size < sizeof(eh))
		return -ENOEXEC;
	memcpy(&eh, img, sizeof(eh));
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_phentsize != sizeof(ph) || eh.e_phoff > size ||
	    eh.e_phnum > (size - eh.e_phoff) / sizeof(ph))
		return -ENOEXEC;
	for (i = 0; i < eh.e_phnum && f->nloads < MAX_LOADS; i++) {
		memcpy(&ph, img + eh.e_phoff + i * sizeof(ph), sizeof(ph));
		if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X)) {
			f->loads[f->nloads].offset = ph.p_offset;
			f->loads[f->nloads].vaddr = ph.p_vaddr;
			f->loads[f->nloads].filesz = ph.p_filesz;
			f->nloads++;
		}
	}
	return f->nloads ? 0 : -ENOEXEC;
}

/* Our own vdso's table, built once (u->vdso.table 0: none). */
static void vdso_table(struct bt_unwind *u)
{
	const unsigned char *img = (const unsigned char *)getauxval(AT_SYSINFO_EHDR);
	struct bt_unwind_table *t = NULL;
	unsigned long long start, end;
	char line[256];
	FILE *maps;
	int err;

	if (u->vdso_tried)
		return;
	u->vdso_tried = true;
	maps = fopen("/proc/self/maps", "re");
	if (!img || !maps)
		goto out;
	while (fgets(line, sizeof(line), maps)) {
		if (strstr(line, "[vdso]") && sscanf(line, "%llx-%llx", &start, &end) == 2 &&
		    start == (uintptr_t)img) {
			u->vdso_size = end - start;
			break;
		}
	}
	if (!u->vdso_size || image_layout(img, u->vdso_size, &u->vdso))
		goto out;
	err = bt_unwind_table_from_memory(img, u->vdso_size, &t);
	if (!err)
		u->vdso.table = load_table(u, t);
	/*
	 * Under the key no file has (inode 0): the walker takes a process's vdso for it, so a
	 * walk from the vdso (clock_gettime) of a process not indexed yet follows its table too
	 */
	if (u->vdso.table)
		note_by_inode(u, &u->vdso, 0, 0, "[vdso]");
	bt_debug("unwind: [vdso] (%lu bytes): %s", u->vdso_size,
		 err		 ? strerror(-err)
		 : u->vdso.table ? "table loaded"
				 : "no room");
	bt_unwind_table_free(t);
out:
	if (maps)
		fclose(maps);
}

static int cmp_mapping(const void *a, const void *b)
{
	const struct bt_unwind_mapping *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* [start, end) at file offset off of f, as a mapping into m; false when f's code is not there */
static bool map_file(const struct file_entry *f, unsigned long long start, unsigned long long end,
		     unsigned long long off, struct bt_unwind_mapping *m)
{
	unsigned int i;

	for (i = 0; i < f->nloads; i++) {
		__u64 o = f->loads[i].offset, v = f->loads[i].vaddr;

		if ((o & ~4095ULL) <= off && off < o + f->loads[i].filesz) {
			m->start = start;
			m->end = end;
			m->bias = start + o - v - off;
			m->table = f->table;
			return true;
		}
	}
	return false;
}

/*
 * Fit all[0..n) (sorted) into proc: neighbours without a table merge, and when more than
 * BT_UNWIND_MAX_MAPPINGS remain, those without a table go first (a pc there then asks for the
 * process to be indexed again, at most once a second, and steps by frame pointers all the same).
 */
void bt_unwind_fit_mappings(struct bt_unwind_mapping *all, unsigned int n,
			    struct bt_unwind_proc *proc)
{
	unsigned int i, k = 0, with = 0, room;

	for (i = 0; i < n; i++) {
		if (k && !all[i].table && !all[k - 1].table && all[k - 1].end == all[i].start) {
			all[k - 1].end = all[i].end;
			continue;
		}
		all[k++] = all[i];
		with += !!all[i].table;
	}
	room = with < BT_UNWIND_MAX_MAPPINGS ? BT_UNWIND_MAX_MAPPINGS - with : 0;
	for (i = 0; i < k && proc->nr < BT_UNWIND_MAX_MAPPINGS; i++) {
		if (all[i].table)
			proc->maps[proc->nr++] = all[i];
		else if (room && room--)
			proc->maps[proc->nr++] = all[i];
	}
}

/*
 * One executable mapping of pid into u->all[*n]: its file's table found or built. id is the
 * file as the kernel reported it mapped; rootfd pid's root (-1: unknown when live, else the
 * process is gone and the path is looked up in ours).
 */
static void index_mapping(struct bt_unwind *u, int pid, int rootfd, unsigned long long start,
			  unsigned long long end, unsigned long long off, const char *file,
			  const struct bt_file_id *id, bool live, unsigned int *n,
			  unsigned int *with)
{
	struct bt_unwind_mapping *m = &u->all[*n];
	/* the inode mapped, never a FIFO or a device put at its path, never a host file */
	struct bt_procfile_want w = { .id = id };
	struct file_entry *f;
	char root[64];
	int fd = -1;

	/* known, without a table: frame pointers there, and no asking to be indexed again */
	*m = (struct bt_unwind_mapping){ .start = start, .end = end };
	(*n)++;
	if (!strcmp(file, "[vdso]")) {
		vdso_table(u);
		if (u->vdso.table && end - start == u->vdso_size)
			map_file(&u->vdso, start, end, 0, m);
		*with += !!m->table;
		return;
	}
	if (file[0] != '/')
		return; /* JIT code, or another anonymous mapping */
	/*
	 * map_files reaches the very file mapped: another mount namespace, or a file replaced on
	 * disk since (then the path says "(deleted)" or names the new one). Without it (no
	 * CAP_SYS_ADMIN), the path inside the process's root; gone, the path in ours
	 */
	if (live)
		fd = bt_procfile_open_mapped(pid, start, end, &w, NULL);
	if (fd < 0 && (!live || rootfd >= 0))
		fd = bt_procfile_open(rootfd, file, &w, NULL);
	if (fd < 0)
		return;
	snprintf(root, sizeof(root), "/proc/%d/root", pid);
	f = file_of(u, fd, file, live ? root : "/proc/self/root");
	close(fd);
	if (f && f->table)
		map_file(f, start, end, off, m);
	*with += !!m->table;
	/* the interpreter's addresses, by the load bias of its code (the same for its data) */
	if (f && f->is_py && !u->py.tss) {
		struct bt_unwind_mapping code;

		if (map_file(f, start, end, off, &code))
			bt_py_walker_info(&f->py, code.bias, &u->py);
	}
}

/*
 * Build pid's mapping table in u->proc from /proc/PID/maps, or from given[0..ngiven) (the
 * mappings logged for a process gone since). The number of mappings with a table.
 */
static int build_proc(struct bt_unwind *u, int pid, const struct bt_sym_mapping *given,
		      size_t ngiven, unsigned int *nmaps)
{
	char path[64], line[4096], file[4096];
	unsigned int n = 0, with = 0;
	unsigned long long start, end, off, ino;
	unsigned int maj, min;
	struct bt_file_id id;
	char perms[8];
	size_t i;
	FILE *maps = NULL;
	int rootfd = -1;

	if (!given) {
		snprintf(path, sizeof(path), "/proc/%d/maps", pid);
		maps = fopen(path, "re");
		if (!maps)
			return -errno;
		snprintf(path, sizeof(path), "/proc/%d/root", pid);
		rootfd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	}
	memset(&u->proc, 0, sizeof(u->proc));
	memset(&u->py, 0, sizeof(u->py));
	for (i = 0; n < BT_UNWIND_ALL_MAPPINGS; i++) {
		/* a process of 5,000 files takes seconds: the tool's exit does not wait for them */
		if (__atomic_load_n(&u->stop, __ATOMIC_RELAXED))
			break;
		if (given) {
			if (i >= ngiven)
				break;
			if (given[i].start >= BT_UNWIND_USER_TOP)
				continue;
			id = (struct bt_file_id){
				.dev = makedev(given[i].dev_major, given[i].dev_minor),
				.ino = given[i].ino,
			};
			index_mapping(u, pid, -1, given[i].start, given[i].end, given[i].pgoff,
				      given[i].path, &id, false, &n, &with);
			continue;
		}
		if (!fgets(line, sizeof(line), maps))
			break;
		file[0] = 0;
		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %4095[^\n]", &start, &end, perms,
			   &off, &maj, &min, &ino, file) < 7)
			continue;
		if (perms[2] != 'x' || start >= BT_UNWIND_USER_TOP)
			continue;
		id = (struct bt_file_id){ .dev = makedev(maj, min), .ino = ino };
		index_mapping(u, pid, rootfd, start, end, off, file, &id, true, &n, &with);
	}
	if (maps)
		fclose(maps);
	if (rootfd >= 0)
		close(rootfd);
	flush_tables(u);
	qsort(u->all, n, sizeof(u->all[0]), cmp_mapping);
	bt_unwind_fit_mappings(u->all, n, &u->proc);
	u->proc.py = u->py;
	*nmaps = n;
	return (int)with;
}

/* Index pid; *startp: its start time (0: not known). */
static int note_pid_locked(struct bt_unwind *u, int pid, uint64_t *startp)
{
	uint64_t start = 0, now;
	unsigned int n = 0;
	bool have_start;
	__u32 key = pid;
	int with;

	have_start = !bt_proc_start_ns(pid, &start);
	*startp = start;
	with = build_proc(u, pid, NULL, 0, &n);
	if (with < 0)
		return with;
	/* written even when empty: the walker then knows the process was looked at */
	if (bpf_map_update_elem(u->procs_fd, &key, &u->proc, BPF_ANY))
		return -errno;
	/* what the walker found by file meanwhile is in the table now, or no longer mapped */
	bpf_map_delete_elem(u->found_fd, &key);
	/*
	 * Exited meanwhile (its exit forgot the pid before this wrote it), or its pid taken by
	 * another process: the entry is no one's
	 */
	if (have_start && (bt_proc_start_ns(pid, &now) || !bt_proc_same_start(now, start))) {
		bpf_map_delete_elem(u->procs_fd, &key);
		return -ESRCH;
	}
	u->procs++;
	if (bt_debug_enabled()) {
		struct timespec ts;

		clock_gettime(CLOCK_BOOTTIME, &ts);
		bt_debug("unwind: process %d: %d mappings with tables (of %u executable), %.1f ms "
			 "after it started",
			 pid, with, n,
			 ((double)ts.tv_sec * 1e9 + ts.tv_nsec - (double)start) / 1e6);
	}
	return 0;
}

/*
 * The caller is about to wait for u->lock, which the worker may hold through a table build of
 * the start-up scan at nice 19: on a busy machine that wait is as long as the build is
 * starved. The worker runs at the caller's priority until it next picks its work.
 */
static void boost_worker(struct bt_unwind *u)
{
	pid_t tid = __atomic_load_n(&u->worker_tid, __ATOMIC_RELAXED);

	if (tid && __atomic_load_n(&u->worker_nice, __ATOMIC_RELAXED) > 0 && tid != gettid()) {
		__atomic_store_n(&u->worker_nice, 0, __ATOMIC_RELAXED);
		setpriority(PRIO_PROCESS, (id_t)tid, 0);
	}
}

/* u->lock for a caller other than the worker, which it may wait for: boosted first. */
static void lock_tables(struct bt_unwind *u)
{
	boost_worker(u);
	pthread_mutex_lock(&u->lock);
}

int bt_unwind__index_file(struct bt_unwind *u, const char *path)
{
	struct file_entry *f;
	int fd;

	if (!u)
		return 0;
	fd = bt_procfile_open(-1, path, NULL, NULL);
	if (fd < 0)
		return fd;
	lock_tables(u);
	f = file_of(u, fd, path, "/proc/self/root");
	flush_tables(u);
	pthread_mutex_unlock(&u->lock);
	close(fd);
	return f && f->table ? 0 : -ENOENT;
}

int bt_unwind__note_pid(struct bt_unwind *u, int pid)
{
	uint64_t start = 0;
	struct timespec now;
	int err;

	if (!u)
		return 0;
	if (u->scan_only && __atomic_load_n(&u->scanned, __ATOMIC_RELAXED))
		return -EAGAIN;
	lock_tables(u);
	clock_gettime(CLOCK_BOOTTIME, &now);
	err = note_pid_locked(u, pid, &start);
	/*
	 * Its stacks sent meanwhile, with the table just written. Gone already, they wait for
	 * its exit's note, which follows them: then its logged mappings, or they fall back.
	 */
	if (!err)
		bt_unwind_samples__indexed(u->samples, pid, start,
					   (uint64_t)now.tv_sec * 1000000000ULL + now.tv_nsec,
					   &u->proc);
	pthread_mutex_unlock(&u->lock);
	return err;
}

static int queue_pid(struct bt_unwind *u, int pid, bool first);

int bt_unwind__sample(struct bt_unwind *u, const void *data, size_t size)
{
	const struct bt_pid_note *note = data;
	int err;

	if (!u)
		return 0;
	err = bt_unwind_samples__add(u->samples, data, size);
	/* waits for its process: announced, so queued (unless the queue was full then): first now */
	if (err == 1)
		return queue_pid(u, (int)note->tgid, true);
	return err;
}

int bt_unwind__sample_frames(struct bt_unwind *u, uint64_t id, uint64_t *ips, uint64_t *fallback,
			     int *pid, uint64_t *start_ns)
{
	int n;

	if (!u)
		return -ENOENT;
	n = bt_unwind_samples__get(u->samples, id, ips, fallback, pid, start_ns);
	if (n != -EAGAIN)
		return n;
	/*
	 * Printed before the worker got to its process (a per-event tool, a collection while the
	 * worker is busy): index it here and now, at the cost of one table build at most, rather
	 * than wait for the queue. A process gone meanwhile fails at once.
	 */
	bt_unwind__note_pid(u, *pid);
	return bt_unwind_samples__get(u->samples, id, ips, fallback, pid, start_ns);
}

void bt_unwind__note_gone(struct bt_unwind *u, int pid, uint64_t start_ns,
			  const struct bt_sym_mapping *maps, size_t n)
{
	unsigned int nmaps = 0;
	int with;

	if (!u || !maps || !n)
		return;
	lock_tables(u); /* the event loop waits for the lock here */
	/* for its samples only: the kernel's table by pid is the next process's to have */
	with = build_proc(u, pid, maps, n, &nmaps);
	bt_debug("unwind: process %d, gone: %d mappings with tables (of %u logged)", pid, with,
		 nmaps);
	if (with >= 0)
		bt_unwind_samples__indexed(u->samples, pid, start_ns, UINT64_MAX, &u->proc);
	pthread_mutex_unlock(&u->lock);
}

bool bt_unwind__waiting_for(struct bt_unwind *u, int pid)
{
	return u && bt_unwind_samples__waiting_for(u->samples, pid);
}

void bt_unwind__exited(struct bt_unwind *u, int pid, unsigned int partial)
{
	if (!u)
		return;
	if (partial)
		bt_debug("unwind: process %d exited with %u user stacks walked partly by frame "
			 "pointers",
			 pid, partial);
	bt_unwind_samples__partial(u->samples, pid, partial);
	/*
	 * Its stacks still waiting were taken in the image that is gone now (the ring keeps them
	 * before this note): indexed after this, the pid would name the next image's mappings
	 */
	bt_unwind_samples__indexed(u->samples, pid, 0, 0, NULL);
}

int bt_unwind__release_samples(struct bt_unwind *u, unsigned int gen, const uint64_t *held,
			       size_t nheld, uint64_t **keep, size_t *nkeep)
{
	*keep = NULL;
	*nkeep = 0;
	return u ? bt_unwind_samples__release(u->samples, gen, held, nheld, keep, nkeep) : 0;
}

void bt_unwind__forget_pid(struct bt_unwind *u, int pid, bool exited)
{
	__u32 key = pid;

	/*
	 * Not under u->lock: the worker holds it while it builds a table (100 ms for a large
	 * file), and the event loop must go on noting processes. An indexing under way writes
	 * the entry again only for a process that still lives (note_pid_locked).
	 */
	if (!u)
		return;
	bpf_map_delete_elem(u->procs_fd, &key);
	/*
	 * The kernel forgot the mappings found by file at the exec or exit already, and after
	 * an exec found the new image's program, loader and vdso (bt_unwind_find_at_exec):
	 * deleted here after an exec, those would be asked again from the scheduler, one a walk.
	 * After an exit, a thread that outlived the main one may have found some since.
	 */
	if (exited)
		bpf_map_delete_elem(u->found_fd, &key);
}

/* Whether the kernel has pid's mapping table (indexed, and no exec or exit since). */
static bool has_table(struct bt_unwind *u, int pid)
{
	/* not u->proc: other threads build tables there under u->lock */
	struct bt_unwind_proc *p = malloc(sizeof(*p));
	__u32 key = pid;
	bool has;

	has = p && !bpf_map_lookup_elem(u->procs_fd, &key, p);
	free(p);
	return has;
}

/* The worker: queued processes first, then the next running process of the scan. */
/*
 * The machine's CPython interpreters (python3.N in /usr/bin and /usr/local/bin), after the scan
 * of a system-wide start: their tables and addresses in before a first process of one starts,
 * which is then Python from its first event rather than from its indexing (docs/python.md,
 * "Started after the tool"). One a running process maps is in already: a lookup by inode.
 */
static void index_interpreters(struct bt_unwind *u)
{
	static const char *const dirs[] = { "/usr/bin", "/usr/local/bin" };
	char path[320];
	unsigned int i, n = 0;
	struct dirent *d;
	size_t len;
	DIR *dir;

	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		dir = opendir(dirs[i]);
		while (dir && n < 16 && (d = readdir(dir))) {
			len = strspn(d->d_name + 8, "0123456789");
			if (strncmp(d->d_name, "python3.", 8) || !len || d->d_name[8 + len])
				continue;
			if (__atomic_load_n(&u->stop, __ATOMIC_RELAXED))
				break;
			snprintf(path, sizeof(path), "%s/%s", dirs[i], d->d_name);
			/* a symlink is another name of one found (python3 -> python3.11) */
			if (d->d_type == DT_REG && !bt_unwind__index_file(u, path))
				n++;
		}
		if (dir)
			closedir(dir);
	}
	bt_debug("unwind: %u Python interpreters of the machine indexed", n);
}

static void *worker(void *arg)
{
	struct bt_unwind *u = arg;
	struct timespec t0, t1;
	unsigned int scanned = 0;
	DIR *dir = NULL;
	int self = getpid(), nice;
	id_t tid = (id_t)syscall(SYS_gettid);

	/*
	 * Its own name, not its starter's: a kept profile's worker outlives the request thread
	 * (bt_http_call) that started it, and a thread of that name is a request still running
	 */
	pthread_setname_np(pthread_self(), "bt_unwind");

	__atomic_store_n(&u->worker_tid, (pid_t)tid, __ATOMIC_RELAXED);
	pthread_mutex_lock(&u->qlock);
	for (;;) {
		struct dirent *d = NULL;
		int pid = 0;

		while (!u->stop && u->qtail == u->qhead && !u->scan)
			pthread_cond_wait(&u->qcond, &u->qlock);
		if (u->stop)
			break;
		/*
		 * The scan of a system-wide start runs below the event loop: it builds tables for
		 * every file mapped, seconds of CPU that must not delay the loop noting new
		 * processes before they exit. Queued processes are the ones being traced now, at
		 * the loop's own priority: their stacks walk by frame pointers until indexed. So
		 * is a scan that someone waits for: at nice 19 on a machine busy at nice 0, it
		 * is starved for as long as the machine stays busy.
		 */
		nice = u->qtail != u->qhead || u->waiters ? 0 : 19;
		if (nice != __atomic_load_n(&u->worker_nice, __ATOMIC_RELAXED)) {
			__atomic_store_n(&u->worker_nice, nice, __ATOMIC_RELAXED);
			setpriority(PRIO_PROCESS, tid, nice);
		}
		if (u->qtail != u->qhead) {
			pid = u->queue[u->qhead++ % 256];
		} else {
			if (!dir) {
				clock_gettime(CLOCK_MONOTONIC, &t0);
				dir = opendir("/proc");
			}
			while (dir && (d = readdir(dir)) && !isdigit((unsigned char)d->d_name[0]))
				;
			if (d) {
				pid = atoi(d->d_name);
				if (u->scan_new && has_table(u, pid))
					continue;
			} else {
				if (dir)
					closedir(dir);
				dir = NULL;
				if (u->python && !u->interpreters) {
					u->interpreters = true;
					pthread_mutex_unlock(&u->qlock);
					index_interpreters(u);
					pthread_mutex_lock(&u->qlock);
				}
				u->scan = u->scan_new = false;
				__atomic_store_n(&u->scanned, true, __ATOMIC_RELAXED);
				clock_gettime(CLOCK_MONOTONIC, &t1);
				bt_debug("unwind: indexed %u running processes in %.0f ms", scanned,
					 (t1.tv_sec - t0.tv_sec) * 1e3 +
						 (t1.tv_nsec - t0.tv_nsec) / 1e6);
				pthread_cond_broadcast(&u->qcond);
				continue;
			}
		}
		u->busy = true;
		pthread_mutex_unlock(&u->qlock);
		if (pid != self && !bt_unwind__note_pid(u, pid) && d)
			scanned++;
		pthread_mutex_lock(&u->qlock);
		u->busy = false;
		pthread_cond_broadcast(&u->qcond);
	}
	pthread_mutex_unlock(&u->qlock);
	if (dir)
		closedir(dir);
	return NULL;
}

static int start_worker(struct bt_unwind *u)
{
	int err;

	if (u->thread_running)
		return 0;
	err = pthread_create(&u->thread, NULL, worker, u);
	if (err)
		return -err;
	u->thread_running = true;
	return 0;
}

/*
 * Queue pid to be indexed; first: ahead of every process queued (a stack of its waits for
 * it), else behind them. Under a churn the queue holds hundreds of processes, most of them
 * gone by the time the worker gets to them; a stack waiting must not wait behind them too.
 */
static int queue_pid(struct bt_unwind *u, int pid, bool first)
{
	unsigned int i;
	int err;

	pthread_mutex_lock(&u->qlock);
	err = start_worker(u);
	/* the announcement and the walker's first request come together: index once */
	for (i = u->qhead; !err && i != u->qtail; i++) {
		if (u->queue[i % 256] != pid)
			continue;
		if (first) {
			u->queue[i % 256] = u->queue[u->qhead % 256];
			u->queue[u->qhead % 256] = pid;
		}
		goto out;
	}
	if (!err && u->qtail - u->qhead < 256) {
		if (first)
			u->queue[--u->qhead % 256] = pid;
		else
			u->queue[u->qtail++ % 256] = pid;
		/* a table build of the scan at nice 19 is under way: it waits for none of it */
		boost_worker(u);
	} else
		u->dropped++; /* its stacks keep walking by frame pointers */
out:
	pthread_cond_broadcast(&u->qcond);
	pthread_mutex_unlock(&u->qlock);
	return err;
}

int bt_unwind__queue_pid(struct bt_unwind *u, int pid)
{
	return u ? queue_pid(u, pid, false) : 0;
}

int bt_unwind__index_running(struct bt_unwind *u)
{
	int err;

	if (!u)
		return 0;
	/*
	 * Our own files first, before tracing starts: libc, ld.so and the vdso are those of most
	 * processes, and with their tables loaded a process not indexed yet walks through them
	 * by file (bpf_find_vma) from its first event. Milliseconds.
	 */
	bt_unwind__note_pid(u, getpid());
	pthread_mutex_lock(&u->qlock);
	err = start_worker(u);
	if (!err)
		u->scan = true;
	pthread_cond_broadcast(&u->qcond);
	pthread_mutex_unlock(&u->qlock);
	return err;
}

int bt_unwind__index_new(struct bt_unwind *u)
{
	int err;

	if (!u)
		return 0;
	pthread_mutex_lock(&u->qlock);
	err = start_worker(u);
	if (!err && !u->scan)
		u->scan = u->scan_new = true;
	pthread_cond_broadcast(&u->qcond);
	pthread_mutex_unlock(&u->qlock);
	return err;
}

int bt_unwind__wait_indexed(struct bt_unwind *u, unsigned int max_ms)
{
	struct timespec end;
	int err = 0;

	if (!u)
		return 0;
	end = bt_abs_ms(bt_now_ms() + max_ms);
	pthread_mutex_lock(&u->qlock);
	u->waiters++;
	boost_worker(u); /* a build under way at nice 19 */
	while (!err && u->thread_running && (u->scan || u->busy || u->qtail != u->qhead))
		err = -pthread_cond_timedwait(&u->qcond, &u->qlock, &end);
	u->waiters--;
	pthread_mutex_unlock(&u->qlock);
	return err;
}

void bt_unwind__counts(struct bt_unwind *u, struct bt_unwind_counts *c)
{
	struct bt_unwind_sample_counts sc;
	uint64_t s[BT_UNWIND_STATS] = { 0 };
	unsigned int i;

	memset(c, 0, sizeof(*c));
	if (!u)
		return;
	for (i = 0; i < BT_UNWIND_STATS; i++)
		bt_percpu_sum(u->stats_fd, i, &s[i], 1);
	c->stacks = s[BT_UNWIND_STAT_STACKS];
	c->not_indexed = s[BT_UNWIND_STAT_NOT_INDEXED];
	c->frames_table = s[BT_UNWIND_STAT_FRAMES_TABLE];
	c->frames_fp = s[BT_UNWIND_STAT_FRAMES_FP];
	c->truncated = s[BT_UNWIND_STAT_TRUNCATED];
	c->asked = s[BT_UNWIND_STAT_ASKED];
	c->by_file = s[BT_UNWIND_STAT_BY_FILE];
	c->find_vma = s[BT_UNWIND_STAT_FIND_VMA];
	c->at_exec = s[BT_UNWIND_STAT_AT_EXEC];
	c->memo = s[BT_UNWIND_STAT_MEMO];
	c->kept_quota = s[BT_UNWIND_STAT_KEPT_QUOTA];
	c->kept_ring = s[BT_UNWIND_STAT_KEPT_RING];
	c->kept_read = s[BT_UNWIND_STAT_KEPT_READ];
	c->py_frames = s[BT_UNWIND_STAT_PY_FRAMES];
	c->py_unread = s[BT_UNWIND_STAT_PY_UNREAD];
	lock_tables(u);
	c->tables = u->next_table - 1;
	c->table_bytes = u->bytes;
	c->files_without = u->files_without;
	c->procs = u->procs;
	pthread_mutex_unlock(&u->lock);
	bt_unwind_samples__counts(u->samples, &sc);
	c->deferred = sc.received;
	c->deferred_unwound = sc.unwound;
	/* what was sent and unwound whole here is not partly walked after all */
	c->partial = c->not_indexed > sc.unwound ? c->not_indexed - sc.unwound : 0;
}

void bt_unwind__partial_report(struct bt_unwind *u, char *buf, size_t len)
{
	struct bt_unwind_ask_state st;
	__u32 key, next, *prev = NULL;

	if (!u) {
		buf[0] = 0;
		return;
	}
	/* the processes still running: their exits have not told yet */
	while (!bpf_map_get_next_key(u->asked_fd, prev, &next)) {
		key = next;
		prev = &key;
		if (!bpf_map_lookup_elem(u->asked_fd, &key, &st) && st.partial)
			bt_unwind_samples__partial(u->samples, (int)key, st.partial);
	}
	bt_unwind_samples__partial_report(u->samples, buf, len);
}

bool bt_unwind__half_spent(struct bt_unwind *u)
{
	bool spent;

	if (!u)
		return false;
	lock_tables(u);
	spent = (u->next_table - 1) * 2ULL > u->max_tables || u->bytes > u->max_bytes / 2;
	pthread_mutex_unlock(&u->lock);
	return spent;
}

void bt_unwind__reset_counts(struct bt_unwind *u)
{
	struct bt_unwind_ask_state st;
	__u32 key, next, *prev = NULL;
	unsigned int i;

	if (!u)
		return;
	for (i = 0; i < BT_UNWIND_STATS; i++)
		bt_percpu_zero(u->stats_fd, i, 1);
	/* a running process's count is added at its exit or report: from now on only */
	while (!bpf_map_get_next_key(u->asked_fd, prev, &next)) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(u->asked_fd, &key, &st) || !st.partial)
			continue;
		st.partial = 0;
		bpf_map_update_elem(u->asked_fd, &key, &st, BPF_EXIST);
	}
	bt_unwind_samples__reset_counts(u->samples);
}

void bt_unwind__report(struct bt_unwind *u, FILE *out)
{
	struct bt_unwind_counts c;
	char line[896];
	int n;

	if (!u)
		return;
	bt_unwind__counts(u, &c);
	n = snprintf(
		line, sizeof(line),
		"unwind: %llu user stacks, %llu frames through tables, %llu by frame pointers, "
		"%llu stacks truncated, %llu from processes not indexed yet (%llu of them sent to "
		"be unwound later, %llu unwound whole; not sent: %llu past the process's quota, "
		"%llu for the ring's room, %llu unreadable); %llu tables "
		"(%llu KiB), %llu files without one, %llu processes indexed, %llu requests to "
		"index one, %llu mappings asked of the kernel, %llu mappings found by file, "
		"%llu stacks found unchanged since the thread's last walk, %llu mappings found "
		"at an exec",
		c.stacks, c.frames_table, c.frames_fp, c.truncated, c.not_indexed, c.deferred,
		c.deferred_unwound, c.kept_quota, c.kept_ring, c.kept_read, c.tables,
		c.table_bytes >> 10, c.files_without, c.procs, c.asked, c.find_vma, c.by_file,
		c.memo, c.at_exec);
	/* only where a Python process was met: the line stays as it was for the others */
	if ((c.py_frames || c.py_unread) && n > 0 && (size_t)n < sizeof(line))
		snprintf(line + n, sizeof(line) - n,
			 "; %llu Python frames, %llu stacks whose Python frames could not all be "
			 "read (marked)",
			 c.py_frames, c.py_unread);
	/* with --json, stderr is JSON Lines too (docs/json.md) */
	if (bt_json_mode())
		bt_note("%s", line);
	else
		fprintf(out, "%s\n", line);
}
