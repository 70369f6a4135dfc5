// SPDX-License-Identifier: GPL-2.0
/*
 * Processes and the resolve call. A process is captured when it is first seen: its
 * executable mappings, the files behind them opened through /proc/PID/map_files (the exact
 * inode mapped, in whatever mount namespace), its root and its namespaced pid for the perf
 * map. Nothing of that needs the process later, so a process that exits before its stacks
 * are printed still gets names. Symbols are not kept per process: mappings point at shared
 * files (dso.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "bt_procfile.h"
#include "bt_python.h"
#include "sym_internal.h"

#define BT_PROC_BUCKETS 256
/*
 * A process's mappings are read again at most this often. A stack with addresses in no
 * mapping (frames of code built without frame pointers give garbage return addresses) asked
 * for a refresh on every resolve call: 2,465 reads of one process's maps, each reopening all
 * its files, in a 1 s system-wide offcputime. Only a mapping made in the last few ms before
 * the resolve call can be missed by this. And a process with many mappings is read again only
 * after ten times what its last read took: one that maps 5,000 files (hostile/many_elfs)
 * costs ~50 ms a read on a loaded machine, and forty reads held the summary 2.6 s past the
 * Ctrl-C; re-reading its maps takes at most a tenth of the symbolizer's time now.
 */
#define BT_REFRESH_NS (20 * 1000 * 1000ULL)
#define BT_REFRESH_COST_FACTOR 10

enum map_kind { BT_MAP_FILE, BT_MAP_VDSO, BT_MAP_ANON };

struct bt_map {
	uint64_t start, end, pgoff, ino;
	struct bt_dso *dso; /* NULL when the file could not be used: see reason */
	enum map_kind kind;
	enum bt_sym_reason reason;
	char *name;
};

struct bt_maps {
	struct bt_map *v;
	size_t n;
};

struct bt_proc {
	int pid, nspid;
	int rootfd; /* O_PATH of /proc/PID/root when it differs from ours, else -1 */
	struct bt_maps maps;
	struct bt_maps stale; /* replaced by a refresh; freed on the next call (names in use) */
	struct bt_perfmap *pm;
	struct bt_pycache *py; /* its Python code objects, once a stack names one */
	uint64_t refreshed_gen;
	uint64_t refreshed_ns;
	uint64_t refresh_cost_ns; /* what its last read of the maps took */
	enum bt_sym_reason gone;  /* not BT_SYM_OK: the snapshot failed, nothing else is kept */
	uint32_t cookie;	  /* which process of the pid (probes/bt_stack.h); 0: not known */
	uint64_t start_ns;	  /* when it started (bt_proc_start_ns); 0: not known */
	uint64_t exit_seq;	  /* 0 while it runs; then the order in which exits were noted */
	struct bt_proc *next;
};

struct bt_symbolizer {
	struct bt_sym_opts opts;
	char *kallsyms_path;
	struct bt_dso_cache *dsos;
	struct bt_proc *procs[BT_PROC_BUCKETS];
	size_t nprocs;
	/* exited, kept until the output that may name them is out; newest first per bucket */
	struct bt_proc *exited[BT_PROC_BUCKETS];
	size_t nexited;
	uint64_t exits; /* exits noted so far: the last exit_seq */
	uint64_t gen;
	struct bt_ksyms *ks;
	int ks_err; /* 0 not tried yet, 1 loaded, -errno */
	int ks_warned;
	struct bt_dso *vdso;
	int vdso_tried;
	struct bt_perfmap_stats pm_gone;  /* of processes freed already */
	uint64_t maps_long_lines;	  /* /proc lines over BT_PROC_MAX_LINE, skipped */
	uint64_t maps_left_out;		  /* executable mappings past BT_PROC_MAX_EXEC */
	unsigned long elf_refused_at_new; /* bt_elf__refused() when this symbolizer began */
};

int bt_symbolizer__new(const struct bt_sym_opts *opts, struct bt_symbolizer **out)
{
	struct bt_sym_opts none = { 0 };
	struct bt_dso_opts dopts;
	struct bt_symbolizer *s;
	int err;

	*out = NULL;
	if (!opts)
		opts = &none;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->opts = *opts;
	s->kallsyms_path = strdup(opts->kallsyms ? opts->kallsyms : "/proc/kallsyms");
	if (!s->kallsyms_path) {
		free(s);
		return -ENOMEM;
	}
	s->opts.kallsyms = s->kallsyms_path;
	s->elf_refused_at_new = bt_elf__refused();
	dopts = (struct bt_dso_opts){
		.max_loaded = opts->max_files ? opts->max_files : 64,
		.budget = opts->mem_budget,
		.demangle = !opts->no_demangle,
		.debuginfo = opts->debuginfo,
		.debuginfod = opts->debuginfod,
	};
	err = bt_dso_cache__new(&dopts, &s->dsos);
	if (err) {
		free(s->kallsyms_path);
		free(s);
		return err;
	}
	*out = s;
	return 0;
}

static void maps_free(struct bt_symbolizer *s, struct bt_maps *m)
{
	size_t i;

	for (i = 0; i < m->n; i++) {
		bt_dso__put(s->dsos, m->v[i].dso);
		free(m->v[i].name);
	}
	free(m->v);
	m->v = NULL;
	m->n = 0;
}

static void pm_add(struct bt_perfmap_stats *sum, const struct bt_perfmap *pm)
{
	struct bt_perfmap_stats st;

	bt_perfmap__stats(pm, &st);
	sum->long_lines += st.long_lines;
	sum->bytes_unread += st.bytes_unread;
	sum->reads_deferred += st.reads_deferred;
}

static void proc_free(struct bt_symbolizer *s, struct bt_proc *p)
{
	maps_free(s, &p->maps);
	maps_free(s, &p->stale);
	pm_add(&s->pm_gone, p->pm);
	bt_perfmap__free(p->pm);
	bt_pycache__free(p->py);
	if (p->rootfd >= 0)
		close(p->rootfd);
	free(p);
}

void bt_symbolizer__free(struct bt_symbolizer *s)
{
	size_t i;

	char line[512];

	if (!s)
		return;
	if (bt_symbolizer__left_out(s, line, sizeof(line))) {
		if (s->opts.warn)
			s->opts.warn(s->opts.warn_ctx, line);
		else
			fprintf(stderr, "warning: %s\n", line);
	}
	for (i = 0; i < BT_PROC_BUCKETS; i++) {
		while (s->procs[i]) {
			struct bt_proc *p = s->procs[i];

			s->procs[i] = p->next;
			proc_free(s, p);
		}
	}
	bt_symbolizer__release_exited(s, UINT64_MAX);
	bt_dso__put(s->dsos, s->vdso);
	bt_dso_cache__free(s->dsos);
	bt_ksyms__free(s->ks);
	free(s->kallsyms_path);
	free(s);
}

static struct bt_proc **proc_slot(struct bt_symbolizer *s, int pid)
{
	struct bt_proc **pp = &s->procs[(unsigned int)pid % BT_PROC_BUCKETS];

	while (*pp && (*pp)->pid != pid)
		pp = &(*pp)->next;
	return pp;
}

/* The vDSO is the same image in every process on this kernel: take ours. */
static struct bt_dso *vdso_dso(struct bt_symbolizer *s)
{
	uint64_t base = getauxval(AT_SYSINFO_EHDR), start = 0, end = 0;
	struct bt_map_line ml;
	char line[BT_PROC_MAX_LINE + 1];
	FILE *f;
	int fd, r;

	if (s->vdso_tried)
		return s->vdso;
	s->vdso_tried = 1;
	if (!base || !(f = fopen("/proc/self/maps", "re")))
		return NULL;
	while ((r = bt_procmaps__read_line(f, line, sizeof(line)))) {
		if (r > 0 && !bt_procmaps__parse_line(line, &ml) && ml.start == base) {
			start = ml.start;
			end = ml.end;
			break;
		}
	}
	fclose(f);
	if (!end)
		return NULL;
	fd = memfd_create("vdso", MFD_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (write(fd, (void *)(uintptr_t)start, end - start) == (ssize_t)(end - start))
		bt_dso_cache__get(s->dsos, fd, "[vdso]", NULL, &s->vdso);
	close(fd);
	return s->vdso;
}

static enum bt_sym_reason reason_of(int err)
{
	switch (err) {
	case -EACCES:
	case -EPERM:
		return BT_SYM_NO_PERMISSION;
	default:
		return BT_SYM_BAD_FILE;
	}
}

static void map_file(struct bt_symbolizer *s, struct bt_proc *p, const struct bt_map_line *ml,
		     struct bt_map *m)
{
	struct bt_file_id id = { .dev = makedev(ml->dev_major, ml->dev_minor), .ino = ml->ino };
	/* the inode mapped, not whatever its path names now (or on the host, once it is gone) */
	struct bt_procfile_want w = { .id = &id };
	struct bt_dso_src src;
	int fd, err;

	/* the checks below are once per file, not once per process that maps it */
	m->dso = bt_dso_cache__find_id(s->dsos, id.dev, id.ino);
	if (m->dso)
		return;
	fd = bt_procfile_open_mapped(p->pid, ml->start, ml->end, &w, NULL);
	/*
	 * map_files needs CAP_SYS_ADMIN and the process alive (its pid may be another's by now):
	 * the path inside its root then, held to the same inode
	 */
	if (fd < 0)
		fd = bt_procfile_open(p->rootfd, ml->path, &w, NULL);
	if (fd < 0) {
		m->reason = reason_of(fd);
		return;
	}
	src = (struct bt_dso_src){
		.pid = p->pid, .start = ml->start, .end = ml->end, .rootfd = p->rootfd
	};
	err = bt_dso_cache__get(s->dsos, fd, ml->path, &src, &m->dso);
	close(fd);
	if (err)
		m->reason = reason_of(err);
}

static const struct bt_map *find_map(const struct bt_maps *m, uint64_t addr);

/*
 * The same mapping in the previous snapshot (a refresh): its file is the one already open,
 * so a refresh costs one read of /proc/PID/maps, not an open and fstat per mapping.
 */
static bool reuse_old(const struct bt_maps *old, const struct bt_map_line *ml, struct bt_map *m)
{
	const struct bt_map *o = old ? find_map(old, ml->start) : NULL;

	if (!o || !o->dso || o->kind != BT_MAP_FILE || o->start != ml->start || o->end != ml->end ||
	    o->pgoff != ml->pgoff || o->ino != ml->ino || !m->name || strcmp(o->name, m->name))
		return false;
	m->dso = o->dso;
	bt_dso__ref(m->dso);
	return true;
}

/* The next executable mapping, from /proc/PID/maps (f) or from given[] (f NULL). */
static bool next_mapping(struct bt_symbolizer *s, FILE *f, char *line,
			 const struct bt_sym_mapping *given, size_t ngiven, size_t *i,
			 struct bt_map_line *ml)
{
	int r;

	const struct bt_sym_mapping *g;

	if (!f) {
		if (*i >= ngiven)
			return false;
		g = &given[(*i)++];
		*ml = (struct bt_map_line){ .start = g->start,
					    .end = g->end,
					    .pgoff = g->pgoff,
					    .dev_major = g->dev_major,
					    .dev_minor = g->dev_minor,
					    .ino = g->ino,
					    .perms = "r-xp",
					    .path = g->path ? g->path : "" };
		return true;
	}
	while ((r = bt_procmaps__read_line(f, line, BT_PROC_MAX_LINE + 1))) {
		if (r < 0)
			s->maps_long_lines++;
		else if (!bt_procmaps__parse_line(line, ml) && ml->perms[2] == 'x')
			return true;
	}
	return false;
}

/* p's mappings from /proc/PID/maps, or from given[0..ngiven) when given is not NULL. */
static int read_maps(struct bt_symbolizer *s, struct bt_proc *p, const struct bt_maps *old,
		     const struct bt_sym_mapping *given, size_t ngiven, struct bt_maps *out)
{
	struct bt_map *v = NULL, *nv;
	size_t n = 0, cap = 0, gi = 0;
	struct bt_map_line ml;
	char path[64], *line = NULL;
	FILE *f = NULL;

	if (!given) {
		snprintf(path, sizeof(path), "/proc/%d/maps", p->pid);
		line = malloc(BT_PROC_MAX_LINE + 1);
		f = line ? fopen(path, "re") : NULL;
		if (!f) {
			free(line);
			return !line ? -ENOMEM : errno == ENOENT ? -ESRCH : -errno;
		}
	}
	while (next_mapping(s, f, line, given, ngiven, &gi, &ml)) {
		struct bt_map *m;

		if (n == BT_PROC_MAX_EXEC) {
			s->maps_left_out++;
			continue;
		}
		if (n == cap) {
			cap = cap ? cap * 2 : 32;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv)
				break;
			v = nv;
		}
		m = &v[n++];
		*m = (struct bt_map){
			.start = ml.start, .end = ml.end, .pgoff = ml.pgoff, .ino = ml.ino
		};
		m->name = strdup(ml.path[0] ? ml.path : "[anon]");
		if (ml.path[0] == '/') {
			m->kind = BT_MAP_FILE;
			/* the same file as the previous mapping: share the open dso */
			if (reuse_old(old, &ml, m)) {
				/* unchanged since the last snapshot */
			} else if (n > 1 && v[n - 2].dso && v[n - 2].kind == BT_MAP_FILE &&
				   v[n - 2].name && m->name && !strcmp(v[n - 2].name, m->name)) {
				m->dso = v[n - 2].dso;
				bt_dso__ref(m->dso);
			} else {
				map_file(s, p, &ml, m);
			}
		} else if (!strcmp(ml.path, "[vdso]")) {
			struct bt_dso *vd = vdso_dso(s);

			m->kind = BT_MAP_VDSO;
			m->reason = BT_SYM_NO_SYMBOL;
			if (vd) {
				bt_dso__ref(vd);
				m->dso = vd;
				m->reason = BT_SYM_OK;
			}
		} else {
			m->kind = BT_MAP_ANON;
			m->reason = BT_SYM_NO_MAPPING;
		}
	}
	free(line);
	if (f)
		fclose(f);
	out->v = v;
	out->n = n;
	return n ? 0 : -ESRCH; /* a zombie or kernel thread: nothing to name */
}

static int read_nspid(int pid)
{
	char path[64], line[256];
	int ns = pid, r;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "re");
	if (!f)
		return pid;
	/* its lines are short (the name is escaped, 64 bytes at most); a long one is not NStgid */
	while ((r = bt_procmaps__read_line(f, line, sizeof(line)))) {
		if (r > 0 && !strncmp(line, "NStgid:", 7)) {
			char *p = strrchr(line, '\t');

			/* the last field is the pid in the innermost namespace */
			if (p)
				ns = atoi(p + 1);
			break;
		}
	}
	fclose(f);
	return ns > 0 ? ns : pid;
}

/* pid's root as an O_PATH descriptor; -1 when it is ours (plain paths are right), or -errno. */
static int open_root(int pid)
{
	struct stat a, b;
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/root", pid);
	fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : errno == EPERM ? -EACCES : -errno; /* not -1 */
	if (!fstat(fd, &a) && !stat("/", &b) && a.st_dev == b.st_dev && a.st_ino == b.st_ino) {
		close(fd);
		return -1;
	}
	return fd;
}

static void retire(struct bt_symbolizer *s, struct bt_proc **pp);

/* Whether p is the process cookie names (0 on either side: not known, so taken as it). */
static bool same_proc(const struct bt_proc *p, uint32_t cookie)
{
	return !cookie || !p->cookie || p->cookie == cookie;
}

/*
 * pid's slot for a new snapshot: a live one of another process retired (it still names the one
 * before), a failed one dropped (tried again when asked: a new process may reuse the pid).
 */
static struct bt_proc **make_room(struct bt_symbolizer *s, int pid)
{
	struct bt_proc **pp = proc_slot(s, pid), *p;

	if (*pp && !(*pp)->gone) {
		retire(s, pp);
		pp = proc_slot(s, pid);
	}
	if (*pp) {
		p = *pp;
		*pp = p->next;
		proc_free(s, p);
		pp = proc_slot(s, pid);
	}
	return pp;
}

int bt_symbolizer__note_pid(struct bt_symbolizer *s, int pid)
{
	return bt_symbolizer__note_proc(s, pid, 0, 0);
}

int bt_symbolizer__note_proc(struct bt_symbolizer *s, int pid, uint32_t cookie, uint64_t start_ns)
{
	struct bt_proc **pp, *p;
	uint64_t started = 0;
	size_t nuids;
	uid_t uids[4];
	int err;

	if (!s || pid <= 0)
		return -EINVAL;
	pp = proc_slot(s, pid);
	/* snapshotted before it was announced (at start, -p): the same process if it started then */
	if (*pp && !(*pp)->gone && same_proc(*pp, cookie) &&
	    (!start_ns || !(*pp)->start_ns || bt_proc_same_start((*pp)->start_ns, start_ns))) {
		if (cookie)
			(*pp)->cookie = cookie;
		return 0;
	}
	pp = make_room(s, pid);
	/*
	 * Announced some time ago: the process may have exited since and another taken the pid,
	 * whose mappings must not name the first one's stacks
	 */
	if (bt_proc_start_ns(pid, &started) == 0 && start_ns &&
	    !bt_proc_same_start(started, start_ns))
		return -ESRCH;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->pid = pid;
	p->cookie = cookie;
	p->start_ns = started;
	p->rootfd = open_root(pid);
	/* a root we cannot hold is never taken for ours: its paths would name host files */
	err = p->rootfd < -1 ? p->rootfd : read_maps(s, p, NULL, NULL, 0, &p->maps);
	if (err) {
		proc_free(s, p);
		return err;
	}
	p->nspid = read_nspid(pid);
	/* unknown users (status unreadable): a map owned by root only */
	nuids = bt_procfile_uids(pid, uids) ? 0 : 4;
	bt_perfmap__open(p->rootfd, p->nspid, uids, nuids, &p->pm);
	*pp = p;
	s->nprocs++;
	return 0;
}

int bt_symbolizer__note_proc_maps(struct bt_symbolizer *s, int pid, uint32_t cookie,
				  uint64_t start_ns, const struct bt_sym_mapping *maps, size_t n)
{
	struct bt_proc **pp, *p;
	int err;

	if (!s || pid <= 0 || !maps || !n)
		return -EINVAL;
	pp = proc_slot(s, pid);
	if (*pp && !(*pp)->gone && same_proc(*pp, cookie) &&
	    (!(*pp)->start_ns || bt_proc_same_start((*pp)->start_ns, start_ns))) {
		struct bt_maps fresh = { 0 };

		/*
		 * Read from /proc, maybe before the loader had mapped every library: the log has
		 * every mapping it made since, and the files still open are reused
		 */
		p = *pp;
		if (read_maps(s, p, &p->maps, maps, n, &fresh))
			return 0;
		maps_free(s, &p->stale);
		p->stale = p->maps;
		p->maps = fresh;
		return 0;
	}
	pp = make_room(s, pid);
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->pid = p->nspid = pid;
	p->cookie = cookie;
	p->start_ns = start_ns;
	p->rootfd = -1; /* gone with the process: files by path in ours, checked by inode */
	err = read_maps(s, p, NULL, maps, n, &p->maps);
	if (err) {
		proc_free(s, p);
		return err;
	}
	*pp = p;
	s->nprocs++;
	return 0;
}

void bt_symbolizer__forget_pid(struct bt_symbolizer *s, int pid)
{
	struct bt_proc **pp, *p;

	if (!s)
		return;
	pp = proc_slot(s, pid);
	p = *pp;
	if (!p)
		return;
	*pp = p->next;
	if (!p->gone)
		s->nprocs--;
	proc_free(s, p);
}

/* *pp's process is over: kept, by pid and cookie, until released. */
static void retire(struct bt_symbolizer *s, struct bt_proc **pp)
{
	struct bt_proc *p = *pp;
	unsigned int b = (unsigned int)p->pid % BT_PROC_BUCKETS;

	*pp = p->next;
	if (p->gone) {
		proc_free(s, p); /* nothing to name with: the pid is free for its next process */
		return;
	}
	s->nprocs--;
	p->exit_seq = ++s->exits;
	p->next = s->exited[b];
	s->exited[b] = p;
	s->nexited++;
}

void bt_symbolizer__exit_pid(struct bt_symbolizer *s, int pid, uint32_t cookie)
{
	struct bt_proc **pp;

	if (!s || pid <= 0)
		return;
	pp = proc_slot(s, pid);
	if (*pp && same_proc(*pp, cookie))
		retire(s, pp);
}

uint64_t bt_symbolizer__exits(const struct bt_symbolizer *s)
{
	return s ? s->exits : 0;
}

void bt_symbolizer__release_exited(struct bt_symbolizer *s, uint64_t upto)
{
	size_t i;

	if (!s || !s->nexited)
		return;
	for (i = 0; i < BT_PROC_BUCKETS; i++) {
		struct bt_proc **pp = &s->exited[i];

		while (*pp) {
			struct bt_proc *p = *pp;

			if (p->exit_seq > upto) {
				pp = &p->next;
				continue;
			}
			*pp = p->next;
			proc_free(s, p);
			s->nexited--;
		}
	}
}

size_t bt_symbolizer__drop_unused(struct bt_symbolizer *s, size_t min_bytes)
{
	if (!s)
		return 0;
	return bt_dso_cache__drop_unused(
		s->dsos, !min_bytes || bt_dso_cache__unused_bytes(s->dsos) >= min_bytes);
}

/* The exited snapshot of pid and cookie (cookie 0: the newest), for stacks printed later. */
static struct bt_proc *find_exited(struct bt_symbolizer *s, int pid, uint32_t cookie)
{
	struct bt_proc *p = s->exited[(unsigned int)pid % BT_PROC_BUCKETS];

	/* one noted without an announcement (0) never stands for an announced one */
	while (p && (p->pid != pid || (cookie && p->cookie != cookie)))
		p = p->next;
	return p;
}

/*
 * Remember that pid could not be snapshotted, so that each of its stacks does not try again
 * (two failed opens per stack of every process that exited before the output).
 */
static struct bt_proc *note_gone(struct bt_symbolizer *s, int pid, uint32_t cookie, int err)
{
	struct bt_proc **pp = proc_slot(s, pid), *p;

	if (*pp) /* another failed snapshot of the pid: this one stands in its place */
		retire(s, pp);
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->pid = pid;
	p->cookie = cookie;
	p->rootfd = -1;
	p->gone = err == -EACCES || err == -EPERM ? BT_SYM_NO_PERMISSION : BT_SYM_PROCESS_GONE;
	p->next = s->procs[(unsigned int)pid % BT_PROC_BUCKETS];
	s->procs[(unsigned int)pid % BT_PROC_BUCKETS] = p;
	return p;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static const struct bt_map *find_map(const struct bt_maps *m, uint64_t addr)
{
	size_t lo = 0, hi = m->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->v[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || addr >= m->v[lo - 1].end)
		return NULL;
	return &m->v[lo - 1];
}

/*
 * A mapping made after the snapshot (dlopen, a new JIT region): look again, once a call, or
 * at once when forced (the kernel met code the snapshot may lack); never sooner after the last
 * read than ten times what it took.
 */
static void refresh(struct bt_symbolizer *s, struct bt_proc *p, bool force)
{
	struct bt_maps fresh = { 0 };
	uint64_t now, started;
	int err;

	if (!force && p->refreshed_gen == s->gen)
		return;
	p->refreshed_gen = s->gen;
	now = now_ns();
	if (p->refreshed_ns &&
	    ((!force && now - p->refreshed_ns < BT_REFRESH_NS) ||
	     now - p->refreshed_ns < p->refresh_cost_ns * BT_REFRESH_COST_FACTOR))
		return;
	p->refreshed_ns = now;
	bt_perfmap__refresh(p->pm); /* the file opened when it was noted: its own */
	/* the pid may be another process's by now: its mappings are not this one's */
	if (p->start_ns &&
	    (bt_proc_start_ns(p->pid, &started) || !bt_proc_same_start(started, p->start_ns)))
		return;
	err = read_maps(s, p, &p->maps, NULL, 0, &fresh);
	p->refresh_cost_ns = now_ns() - now;
	if (err)
		return; /* gone: keep the snapshot */
	maps_free(s, &p->stale);
	p->stale = p->maps;
	p->maps = fresh;
}

int bt_symbolizer__refresh_pid(struct bt_symbolizer *s, int pid)
{
	struct bt_proc *p;

	if (!s || pid <= 0)
		return -EINVAL;
	p = *proc_slot(s, pid);
	/*
	 * Not noted, or its image is gone (exec): its announcement, which follows the walker's
	 * request, notes it under its cookie; noting it here, without one, would keep a second
	 * snapshot that no exit releases
	 */
	if (!p || p->gone)
		return -ENOENT;
	refresh(s, p, true);
	return 0;
}

static int resolve_user_one(struct bt_symbolizer *s, struct bt_proc *p, uint64_t addr, int is_ret,
			    struct bt_frame *fr, size_t cap)
{
	uint64_t look = addr - (is_ret && addr ? 1 : 0), off;
	const struct bt_map *m = find_map(&p->maps, look);
	const char *name;
	int again = 0;

retry:
	if (m && m->dso)
		return bt_dso__resolve(s->dsos, (struct bt_dso *)m->dso, addr - m->start + m->pgoff,
				       is_ret, fr, cap);
	if (p->pm && (!m || m->kind == BT_MAP_ANON)) {
		if (p->refreshed_gen != s->gen && !bt_perfmap__lookup(p->pm, look, NULL))
			refresh(s, p, false);
		name = bt_perfmap__lookup(p->pm, look, &off);
		if (name) {
			fr->name = name;
			fr->offset = off + (look != addr);
			fr->module = "[perf-map]";
			fr->reason = BT_SYM_OK;
			return 1;
		}
	}
	if (!m && !again) {
		again = 1;
		refresh(s, p, false);
		m = find_map(&p->maps, look);
		goto retry;
	}
	fr->module = m ? m->name : NULL;
	fr->reason = m ? m->reason : BT_SYM_NO_MAPPING;
	return 1;
}

static int load_ksyms(struct bt_symbolizer *s)
{
	if (!s->ks_err) {
		s->ks_err = s->opts.ksyms_cache
				    ? bt_ksyms__load_cached(s->opts.ksyms_cache, s->opts.kallsyms,
							    NULL, &s->ks)
				    : bt_ksyms__load(s->opts.kallsyms, &s->ks);
		if (!s->ks_err)
			s->ks_err = 1;
	}
	if (s->ks && bt_ksyms__restricted(s->ks) && !s->ks_warned) {
		const char *msg = "kernel addresses are hidden (kptr_restrict, or no CAP_SYSLOG): "
				  "kernel frames will show as [unknown]";

		s->ks_warned = 1;
		if (s->opts.warn)
			s->opts.warn(s->opts.warn_ctx, msg);
		else
			fprintf(stderr, "warning: %s\n", msg);
	}
	return s->ks_err == 1 ? 0 : s->ks_err;
}

struct bt_ksyms *bt_symbolizer__ksyms(struct bt_symbolizer *s)
{
	if (!s || load_ksyms(s))
		return NULL;
	return s->ks;
}

size_t bt_symbolizer__kernel_trim(struct bt_symbolizer *s, const uint64_t *addrs, size_t n)
{
	const struct bt_ksym *k;
	size_t i, trim = 0;

	if (!s || load_ksyms(s))
		return 0;
	for (i = 0; i < n; i++) {
		k = bt_ksyms__lookup(s->ks, addrs[i], NULL);
		/*
		 * Code with no symbol at the top (a BPF program or trampoline the kernel does not
		 * list, as arm64's below the kernel image) is ours only if an artefact follows
		 */
		if (!k)
			continue;
		if (!bt_ksym__is_trace_artefact(k->name, k->module))
			break;
		trim = i + 1;
	}
	/* never trim everything: a stack made only of artefacts is still worth printing */
	return trim == n ? 0 : trim;
}

static void resolve_kernel(struct bt_symbolizer *s, uint64_t addr, int is_ret, struct bt_frame *fr)
{
	const struct bt_ksym *k;
	uint64_t off, back = is_ret && addr ? 1 : 0;

	if (load_ksyms(s)) {
		fr->reason = BT_SYM_NO_KSYMS;
		return;
	}
	if (bt_ksyms__restricted(s->ks)) {
		fr->reason = BT_SYM_NO_PERMISSION;
		return;
	}
	/*
	 * A return address is looked up a byte back, inside the call; but a kretprobe's
	 * trampoline put in its place (5.10's stacks keep it) is its own first byte, which a
	 * byte back would name the end of whatever function precedes it.
	 */
	if (back) {
		k = bt_ksyms__lookup(s->ks, addr, &off);
		if (k && !off && bt_ksym__is_return_trampoline(k->name))
			back = 0;
	}
	k = bt_ksyms__lookup(s->ks, addr - back, &off);
	if (!k) {
		fr->reason = BT_SYM_NO_SYMBOL;
		return;
	}
	fr->name = k->name;
	fr->offset = off + back;
	fr->module = k->module;
	fr->reason = BT_SYM_OK;
}

/*
 * A Python frame (its two words, probes/bt_unwind_maps.h), named from the process's memory;
 * unnamed when that cannot be read or holds another object now (docs/python.md).
 */
static void resolve_python(struct bt_symbolizer *s, struct bt_proc *p, uint64_t code, uint64_t info,
			   enum bt_sym_reason gone, struct bt_frame *fr)
{
	(void)s;
	fr->addr = BT_PY_CODE_ADDR(code);
	fr->module = BT_SYM_PYTHON;
	if (BT_PY_IS_UNREAD(code)) {
		fr->name = bt_sym_python_unread;
		fr->reason = BT_SYM_OK;
		return;
	}
	fr->reason = p ? BT_SYM_NO_SYMBOL : gone;
	if (!p)
		return;
	if (!p->py) {
		p->py = bt_pycache__new(p->pid, NULL, NULL);
		bt_pycache__begin(p->py);
	}
	/* gone: its pid may be another process's now, whose memory names nothing of this one */
	if (p->exit_seq)
		bt_pycache__stop_reading(p->py);
	if (!bt_pycache__name(p->py, code, info, &fr->name, &fr->file, &fr->line, &fr->start_line))
		fr->reason = BT_SYM_OK;
}

int bt_symbolizer__read_python(struct bt_symbolizer *s, int pid, uint32_t cookie,
			       const uint64_t *addrs, size_t n)
{
	struct bt_proc *p;
	struct bt_frame fr;
	size_t i;
	int named = 0;

	if (!s || pid == BT_PID_KERNEL || (!addrs && n))
		return 0;
	p = *proc_slot(s, pid);
	if (!p || !same_proc(p, cookie) || p->gone)
		return 0;
	if (p->py)
		bt_pycache__begin(p->py);
	for (i = 0; i + 1 < n; i++) {
		if (!BT_PY_IS_CODE(addrs[i]) || !BT_PY_IS_INFO(addrs[i + 1]))
			continue;
		memset(&fr, 0, sizeof(fr));
		resolve_python(s, p, addrs[i], addrs[i + 1], BT_SYM_OK, &fr);
		named += fr.reason == BT_SYM_OK && fr.name != bt_sym_python_unread;
		i++;
	}
	return named;
}

int bt_symbolizer__resolve(struct bt_symbolizer *s, int pid, const uint64_t *addrs, size_t n,
			   unsigned int flags, struct bt_frame *frames, size_t cap)
{
	return bt_symbolizer__resolve_proc(s, pid, 0, addrs, n, flags, frames, cap);
}

int bt_symbolizer__resolve_proc(struct bt_symbolizer *s, int pid, uint32_t cookie,
				const uint64_t *addrs, size_t n, unsigned int flags,
				struct bt_frame *frames, size_t cap)
{
	struct bt_proc *p = NULL;
	enum bt_sym_reason gone = BT_SYM_OK;
	size_t i, start = 0, out = 0;

	if (!s || (!addrs && n) || (!frames && cap))
		return -EINVAL;
	s->gen++;
	bt_dso_cache__next_generation(s->dsos);
	if (pid == BT_PID_KERNEL) {
		if (flags & BT_RESOLVE_TRIM)
			start = bt_symbolizer__kernel_trim(s, addrs, n);
	} else {
		struct bt_proc *live = *proc_slot(s, pid);

		/* a failed snapshot stands for its own process only: not an exited one's */
		p = live && same_proc(live, cookie) && !(live->gone && cookie) ? live : NULL;
		if (!p)
			p = find_exited(s, pid, cookie);
		if (!p && live && same_proc(live, cookie)) {
			p = live; /* the failed snapshot of this very process */
		} else if (!p && live && !live->gone) {
			gone = BT_SYM_PROCESS_GONE; /* another process has the pid now */
		} else if (!p && cookie) {
			/*
			 * announced, and never noted: gone before it could be (another process
			 * may have its pid now)
			 */
			gone = BT_SYM_PROCESS_GONE;
		} else if (!p) {
			int err = bt_symbolizer__note_proc(s, pid, cookie, 0);

			p = err ? note_gone(s, pid, cookie, err) : *proc_slot(s, pid);
		}
		if (p && p->gone) {
			gone = p->gone;
			p = NULL;
		} else if (p) {
			maps_free(s, &p->stale);
		} else if (!gone) {
			gone = BT_SYM_PROCESS_GONE; /* out of memory */
		}
	}
	if (p && p->py)
		bt_pycache__begin(p->py);
	for (i = start; i < n && out < cap; i++) {
		int is_ret = (flags & BT_RESOLVE_STACK) && i > 0;
		struct bt_frame *fr = &frames[out];

		memset(fr, 0, sizeof(*fr));
		fr->addr = addrs[i];
		if (pid != BT_PID_KERNEL && BT_PY_IS_CODE(addrs[i]) && i + 1 < n &&
		    BT_PY_IS_INFO(addrs[i + 1])) {
			resolve_python(s, p, addrs[i], addrs[i + 1], gone, fr);
			i++;
			out++;
		} else if (pid == BT_PID_KERNEL) {
			resolve_kernel(s, addrs[i], is_ret, fr);
			out++;
		} else if (!p) {
			fr->reason = gone;
			out++;
		} else {
			/* keep room so that every later address still gets at least one frame */
			size_t room = cap - out - (n - i - 1 < cap - out ? n - i - 1 : 0);

			out += resolve_user_one(s, p, addrs[i], is_ret, fr, room ? room : 1);
		}
	}
	return out;
}

void bt_symbolizer__stats(const struct bt_symbolizer *s, struct bt_sym_stats *st)
{
	struct bt_perfmap_stats pm;
	size_t i;

	memset(st, 0, sizeof(*st));
	if (!s)
		return;
	pm = s->pm_gone;
	bt_dso_cache__stats(s->dsos, &st->files, &st->files_loaded, &st->evictions,
			    &st->files_parked);
	bt_dso_cache__budget(s->dsos, &st->sym_bytes, &st->budget_files, &st->budget_bytes);
	st->sym_bytes_unused = bt_dso_cache__unused_bytes(s->dsos);
	st->procs = s->nprocs;
	st->exited = s->nexited;
	for (i = 0; i < BT_PROC_BUCKETS; i++) {
		const struct bt_proc *p;

		for (p = s->procs[i]; p; p = p->next)
			pm_add(&pm, p->pm);
		for (p = s->exited[i]; p; p = p->next)
			pm_add(&pm, p->pm);
	}
	st->perfmap_long_lines = pm.long_lines;
	st->perfmap_bytes_unread = pm.bytes_unread;
	st->perfmap_reads_deferred = pm.reads_deferred;
	st->elf_refused = bt_elf__refused() - s->elf_refused_at_new;
	st->maps_long_lines = s->maps_long_lines;
	st->maps_left_out = s->maps_left_out;
}

int bt_symbolizer__left_out(const struct bt_symbolizer *s, char *buf, size_t len)
{
	struct bt_sym_stats st;
	int n;

	if (len)
		buf[0] = 0;
	bt_symbolizer__stats(s, &st);
	if (!st.perfmap_long_lines && !st.perfmap_bytes_unread && !st.elf_refused &&
	    !st.maps_long_lines && !st.maps_left_out && !st.budget_files)
		return 0; /* re-reads put off are read later: nothing is left out by them alone */
	n = snprintf(buf, len,
		     "left out by the bounds on traced files: perf maps: %" PRIu64
		     " lines over %u bytes, %" PRIu64
		     " bytes unread past %u entries or %u MiB per process, %" PRIu64
		     " re-reads put off; ELF: %" PRIu64
		     " sections or tables past their file's size, blocks or cap; /proc: %" PRIu64
		     " lines over %u bytes, %" PRIu64 " executable mappings past %u per process; "
		     "symbols: %" PRIu64 " files (%" PRIu64 " MiB) over the %zu MiB budget",
		     st.perfmap_long_lines, BT_PERFMAP_MAX_LINE, st.perfmap_bytes_unread,
		     BT_PERFMAP_MAX_ENTRIES, BT_PERFMAP_MAX_BYTES >> 20, st.perfmap_reads_deferred,
		     st.elf_refused, st.maps_long_lines, BT_PROC_MAX_LINE, st.maps_left_out,
		     BT_PROC_MAX_EXEC, st.budget_files, st.budget_bytes >> 20,
		     (s->opts.mem_budget ? s->opts.mem_budget : BT_SYM_BUDGET) >> 20);
	return n > 0 ? n : 0;
}
