// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <bpf/libbpf.h>

#include "bt_mmap_log.h"

#define BUCKETS 1024
/* exited processes kept for a late announcement (a few hundred ms of churn) */
#define MAX_EXITED 512
#define RING_PAGES 16 /* per CPU: 64 KiB of records */
/* a fork's record follows the child's start by microseconds; /proc rounds to a tick */
#define SAME_START_NS 20000000ULL

struct proc_log {
	int pid;
	bool forked; /* born_ns is its fork; else its exec (forked before the log) */
	uint64_t born_ns;
	uint64_t exit_ns; /* 0 while it runs */
	struct bt_sym_mapping *maps;
	size_t n, cap;
	struct proc_log *next;
};

struct ring {
	int fd;
	void *base;
};

struct bt_mmap_log {
	int epfd;
	struct ring *rings;
	int nrings;
	size_t page, data_size;
	uint64_t opened_ns;
	struct proc_log *procs[BUCKETS];
	struct proc_log *exited[MAX_EXITED]; /* FIFO of exited processes, oldest freed first */
	size_t exited_head, nexited, nprocs;
	unsigned long long records, lost;
	/* one poll's records of every CPU, handled in time order: a child's first records may be
	 * on another CPU than its fork's */
	unsigned char *batch;
	size_t batch_len, batch_cap;
	struct rec_ref {
		uint64_t time;
		size_t off;
	} * refs;
	size_t nrefs, refs_cap;
};

static uint64_t boot_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_BOOTTIME, &t);
	return (uint64_t)t.tv_sec * 1000000000ULL + t.tv_nsec;
}

static struct proc_log **slot(struct bt_mmap_log *log, int pid)
{
	return &log->procs[(unsigned int)pid % BUCKETS];
}

static void proc_free(struct proc_log *p)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		free((char *)p->maps[i].path);
	free(p->maps);
	free(p);
}

static void unlink_proc(struct bt_mmap_log *log, struct proc_log *p)
{
	struct proc_log **pp;

	for (pp = slot(log, p->pid); *pp; pp = &(*pp)->next) {
		if (*pp == p) {
			*pp = p->next;
			log->nprocs--;
			return;
		}
	}
}

/* The running process of pid in the log, or NULL. */
static struct proc_log *live(struct bt_mmap_log *log, int pid)
{
	struct proc_log *p;

	for (p = *slot(log, pid); p; p = p->next)
		if (p->pid == pid && !p->exit_ns)
			return p;
	return NULL;
}

static void clear_maps(struct proc_log *p)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		free((char *)p->maps[i].path);
	p->n = 0;
}

static void mark_exited(struct bt_mmap_log *log, struct proc_log *p, uint64_t when)
{
	struct proc_log *old;

	p->exit_ns = when ? when : 1;
	if (log->nexited == MAX_EXITED) {
		old = log->exited[log->exited_head];
		unlink_proc(log, old);
		proc_free(old);
		log->nexited--;
		log->exited_head = (log->exited_head + 1) % MAX_EXITED;
	}
	log->exited[(log->exited_head + log->nexited++) % MAX_EXITED] = p;
}

static struct proc_log *new_proc(struct bt_mmap_log *log, int pid, uint64_t born, bool forked)
{
	struct proc_log *p, *old = live(log, pid);

	/* its fork's record came after its exec's (another CPU, another poll): one process */
	if (old && forked && !old->forked && old->born_ns + SAME_START_NS >= born) {
		old->forked = true;
		old->born_ns = born;
		return NULL;
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	/* its exit was lost: that process is over all the same */
	if (old)
		mark_exited(log, old, born);
	p->pid = pid;
	p->born_ns = born;
	p->forked = forked;
	p->next = *slot(log, pid);
	*slot(log, pid) = p;
	log->nprocs++;
	return p;
}

/* A new mapping replaces whatever it overlaps (the kernel unmapped that); sorted by start. */
static int add_map(struct proc_log *p, const struct bt_sym_mapping *m)
{
	size_t i, k = 0;
	char *path;

	for (i = 0; i < p->n; i++) {
		if (p->maps[i].start < m->end && m->start < p->maps[i].end)
			free((char *)p->maps[i].path);
		else
			p->maps[k++] = p->maps[i];
	}
	p->n = k;
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 8;
		struct bt_sym_mapping *v = realloc(p->maps, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		p->maps = v;
		p->cap = cap;
	}
	path = strdup(m->path);
	if (!path)
		return -ENOMEM;
	for (i = p->n; i > 0 && p->maps[i - 1].start > m->start; i--)
		p->maps[i] = p->maps[i - 1];
	p->maps[i] = *m;
	p->maps[i].path = path;
	p->n++;
	return 0;
}

static int copy_maps(struct proc_log *to, const struct proc_log *from)
{
	size_t i;
	int err = 0;

	for (i = 0; i < from->n && !err; i++)
		err = add_map(to, &from->maps[i]);
	return err;
}

/* Records as include/uapi/linux/perf_event.h lays them out (sample_id_all: TID, TIME last). */
struct rec_task {
	struct perf_event_header h;
	__u32 pid, ppid, tid, ptid;
	__u64 time;
};

struct rec_mmap2 {
	struct perf_event_header h;
	__u32 pid, tid;
	__u64 addr, len, pgoff;
	__u32 maj, min;
	__u64 ino, ino_generation;
	__u32 prot, flags;
	char filename[];
};

struct rec_comm {
	struct perf_event_header h;
	__u32 pid, tid;
	char comm[];
};

static void handle(struct bt_mmap_log *log, const struct perf_event_header *h)
{
	const struct rec_task *t = (const void *)h;
	struct proc_log *p, *parent;

	log->records++;
	switch (h->type) {
	case PERF_RECORD_FORK:
		if (h->size < sizeof(*t) || t->pid == t->ppid)
			return; /* a thread */
		p = new_proc(log, (int)t->pid, t->time, true);
		parent = live(log, (int)t->ppid);
		/* a child that does not exec runs its parent's code: no mmap records for that */
		if (p && parent)
			copy_maps(p, parent);
		return;
	case PERF_RECORD_EXIT:
		if (h->size < sizeof(*t) || t->pid != t->tid)
			return; /* a thread, or the process goes on */
		p = live(log, (int)t->pid);
		if (p)
			mark_exited(log, p, t->time);
		return;
	case PERF_RECORD_COMM: {
		const struct rec_comm *c = (const void *)h;
		uint64_t when;

		if (!(h->misc & PERF_RECORD_MISC_COMM_EXEC) || h->size < sizeof(*c) + 16)
			return;
		memcpy(&when, (const char *)h + h->size - sizeof(when), sizeof(when));
		p = live(log, (int)c->pid);
		if (p)
			clear_maps(p); /* the new image's mappings follow */
		else
			new_proc(log, (int)c->pid, when, false);
		return;
	}
	case PERF_RECORD_MMAP2: {
		const struct rec_mmap2 *m = (const void *)h;
		struct bt_sym_mapping map;
		size_t room;

		if (h->size < sizeof(*m) + 1 || (h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID))
			return;
		p = live(log, (int)m->pid);
		if (!p)
			return; /* started before the log: /proc/PID/maps was read for it */
		room = h->size - sizeof(*m);
		if (!memchr(m->filename, 0, room))
			return;
		map = (struct bt_sym_mapping){ .start = m->addr,
					       .end = m->addr + m->len,
					       .pgoff = m->pgoff,
					       .dev_major = m->maj,
					       .dev_minor = m->min,
					       .ino = m->ino,
					       .path = m->filename };
		/* anonymous code (a JIT) is "//anon" here, nameless in /proc/PID/maps */
		if (!strcmp(m->filename, "//anon"))
			map.path = "";
		add_map(p, &map);
		return;
	}
	case PERF_RECORD_LOST:
		log->lost++;
		return;
	default:
		return;
	}
}

/* Copy ring r's records into the batch. */
static void read_ring(struct bt_mmap_log *log, struct ring *r)
{
	struct perf_event_mmap_page *mp = r->base;
	unsigned char *data = (unsigned char *)r->base + log->page;
	uint64_t head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = mp->data_tail;

	while (tail < head) {
		size_t off = tail % log->data_size, first;
		struct perf_event_header h;
		unsigned char *to;

		memcpy(&h, data + off, sizeof(h)); /* a header never wraps: records are 8-aligned */
		if (h.size < sizeof(h) + sizeof(uint64_t))
			break; /* never: the kernel writes whole records, each with its sample id */
		if (log->batch_len + h.size > log->batch_cap) {
			size_t cap = log->batch_cap * 2 + h.size + 65536;
			unsigned char *b = realloc(log->batch, cap);

			if (!b)
				break;
			log->batch = b;
			log->batch_cap = cap;
		}
		if (log->nrefs == log->refs_cap) {
			size_t cap = log->refs_cap * 2 + 1024;
			struct rec_ref *v = realloc(log->refs, cap * sizeof(*v));

			if (!v)
				break;
			log->refs = v;
			log->refs_cap = cap;
		}
		to = log->batch + log->batch_len;
		first = off + h.size > log->data_size ? log->data_size - off : h.size;
		memcpy(to, data + off, first);
		memcpy(to + first, data, h.size - first);
		log->refs[log->nrefs].off = log->batch_len;
		/* the sample id closes every record: its time last */
		memcpy(&log->refs[log->nrefs].time, to + h.size - sizeof(uint64_t),
		       sizeof(uint64_t));
		log->nrefs++;
		log->batch_len += h.size;
		tail += h.size;
	}
	__atomic_store_n(&mp->data_tail, tail, __ATOMIC_RELEASE);
}

static int cmp_ref(const void *a, const void *b)
{
	const struct rec_ref *x = a, *y = b;

	return x->time < y->time ? -1 : x->time > y->time;
}

int bt_mmap_log__poll(struct bt_mmap_log *log)
{
	size_t i;
	int r;

	if (!log)
		return 0;
	log->batch_len = 0;
	log->nrefs = 0;
	for (r = 0; r < log->nrings; r++)
		read_ring(log, &log->rings[r]);
	/* stable enough: records of one CPU are in time order already (none yet: no array) */
	if (log->nrefs)
		qsort(log->refs, log->nrefs, sizeof(*log->refs), cmp_ref);
	for (i = 0; i < log->nrefs; i++)
		handle(log, (const void *)(log->batch + log->refs[i].off));
	return 0;
}

void bt_mmap_log__handle(struct bt_mmap_log *log, const void *record)
{
	if (log)
		handle(log, record);
}

int bt_mmap_log__fd(const struct bt_mmap_log *log)
{
	return log ? log->epfd : -1;
}

int bt_mmap_log__open(struct bt_mmap_log **out)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_DUMMY,
		.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME,
		.sample_id_all = 1,
		/* mmap too: the kernel counts mmap listeners by it alone; mmap2 makes them MMAP2 */
		.mmap = 1,
		.mmap2 = 1,
		.comm = 1,
		.comm_exec = 1,
		.task = 1,
		.use_clockid = 1,
		.clockid = CLOCK_BOOTTIME,
		/*
		 * Read when an announcement is (bt_stacks polls the log first): wake the loop only
		 * before the ring could fill, not at every mapping any process on the machine makes
		 */
		.watermark = 1,
		.wakeup_watermark = RING_PAGES * 4096 / 2,
	};
	int ncpus = libbpf_num_possible_cpus(), cpu, err = 0;
	struct bt_mmap_log *log;

	*out = NULL;
	if (ncpus <= 0)
		return ncpus ? ncpus : -EINVAL;
	log = calloc(1, sizeof(*log));
	if (!log)
		return -ENOMEM;
	log->page = (size_t)sysconf(_SC_PAGESIZE);
	log->data_size = RING_PAGES * log->page;
	log->rings = calloc(ncpus, sizeof(*log->rings));
	log->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (!log->rings || log->epfd < 0) {
		err = log->rings ? -errno : -ENOMEM;
		goto cleanup;
	}
	log->opened_ns = boot_ns();
	for (cpu = 0; cpu < ncpus; cpu++) {
		struct epoll_event ev = { .events = EPOLLIN };
		struct ring *r = &log->rings[log->nrings];
		int fd;

		fd = (int)syscall(SYS_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0) {
			if (errno == ENODEV)
				continue; /* offline */
			err = -errno;
			goto cleanup;
		}
		r->fd = fd;
		r->base = mmap(NULL, log->page + log->data_size, PROT_READ | PROT_WRITE, MAP_SHARED,
			       fd, 0);
		if (r->base == MAP_FAILED) {
			err = -errno;
			close(fd);
			goto cleanup;
		}
		log->nrings++;
		ev.data.u32 = cpu;
		if (epoll_ctl(log->epfd, EPOLL_CTL_ADD, fd, &ev)) {
			err = -errno;
			goto cleanup;
		}
	}
	*out = log;
	return 0;
cleanup:
	bt_mmap_log__free(log);
	return err;
}

void bt_mmap_log__free(struct bt_mmap_log *log)
{
	struct proc_log *p, *next;
	int i;

	if (!log)
		return;
	for (i = 0; i < log->nrings; i++) {
		munmap(log->rings[i].base, log->page + log->data_size);
		close(log->rings[i].fd);
	}
	for (i = 0; i < BUCKETS; i++) {
		for (p = log->procs[i]; p; p = next) {
			next = p->next;
			proc_free(p);
		}
	}
	if (log->epfd >= 0)
		close(log->epfd);
	free(log->rings);
	free(log->batch);
	free(log->refs);
	free(log);
}

/* Whether p is the process of pid that started at start_ns. */
static bool started_at(const struct bt_mmap_log *log, const struct proc_log *p, uint64_t start_ns)
{
	if (!start_ns)
		return !p->exit_ns;
	if (p->forked)
		return p->born_ns + SAME_START_NS >= start_ns &&
		       start_ns + SAME_START_NS >= p->born_ns;
	/* forked before the log, exec()ed since */
	return start_ns <= log->opened_ns + SAME_START_NS && p->born_ns + SAME_START_NS >= start_ns;
}

/* How far p's fork is from start_ns; a process forked before the log is farther than any. */
static uint64_t fork_distance(const struct proc_log *p, uint64_t start_ns)
{
	if (!p->forked)
		return UINT64_MAX;
	return p->born_ns > start_ns ? p->born_ns - start_ns : start_ns - p->born_ns;
}

int bt_mmap_log__maps(struct bt_mmap_log *log, int pid, uint64_t start_ns,
		      const struct bt_sym_mapping **maps)
{
	struct proc_log *p, *best = NULL;
	uint64_t d, best_d = UINT64_MAX;

	if (!log)
		return -ENOENT;
	bt_mmap_log__poll(log);
	/*
	 * A pid can be taken twice within the tolerance of a start time: a short process (a
	 * shell's readlink) forks, exits, and a fork 5 ms later has its pid. The fork closest to
	 * start_ns is the process; the first of them was named for it by mistake ([unknown]).
	 */
	for (p = *slot(log, pid); p; p = p->next) {
		if (p->pid != pid || !started_at(log, p, start_ns))
			continue;
		d = fork_distance(p, start_ns);
		if (!best || d < best_d || (d == best_d && p->born_ns < best->born_ns)) {
			best = p;
			best_d = d;
		}
	}
	if (!best || !best->n)
		return -ENOENT;
	*maps = best->maps;
	return (int)best->n;
}

void bt_mmap_log__stats(const struct bt_mmap_log *log, struct bt_mmap_log_stats *st)
{
	memset(st, 0, sizeof(*st));
	if (!log)
		return;
	st->records = log->records;
	st->lost = log->lost;
	st->procs = log->nprocs;
	st->exited = log->nexited;
}
