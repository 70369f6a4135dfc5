// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stddef.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "bt_err.h"
#include "bt_sym.h"
#include "bt_unwind_maps.h"
#include "bt_unwind_samples.h"

#define USER_TOP 0x800000000000ULL
#define USER_TOP_A64 0x1000000000000ULL /* 48 bits, as probes/bt_arch.bpf.h has it */
/* inner table maps kept open (a process's stacks run through a handful of files) */
#define TABLE_FDS 16
/* processes named in the report of stacks left partly walked (the most such stacks first) */
#define PARTIAL_NAMED 4

struct sample {
	uint64_t id;
	uint64_t fallback;
	uint64_t start_ns;
	int tgid;
	struct bt_stack_sample *raw; /* waiting for its process's tables */
	uint64_t *ips;		     /* unwound: nr frames; NULL and no raw: fall back */
	int nr;
};

struct bt_unwind_samples {
	int tables_fd, info_fd, procs_fd;
	bool marks;
	pthread_mutex_t lock;
	struct sample *v; /* sorted by id */
	size_t n, cap, waiting, waiting_bytes;
	struct {
		__u32 table;
		int fd;
	} fds[TABLE_FDS];
	unsigned int next_fd;
	struct bt_unwind_page page; /* 3 KiB: not on a stack */
	struct bt_unwind_proc proc;
	bool missed; /* the walk met a pc in none of proc's mappings */
	unsigned long long received, unwound, fell_back;
	/* stacks left partly walked, by process: the processes with most of them */
	struct {
		int pid;
		unsigned long long n;
	} partial[PARTIAL_NAMED];
	unsigned long long partial_procs;
};

/* n more stacks of pid left partly walked (locked). */
static void partial_add(struct bt_unwind_samples *ss, int pid, unsigned long long n, bool new_proc)
{
	unsigned int i, low = 0;

	ss->partial_procs += new_proc;
	for (i = 0; i < PARTIAL_NAMED; i++) {
		if (ss->partial[i].n && ss->partial[i].pid == pid) {
			ss->partial[i].n += n;
			return;
		}
		if (ss->partial[i].n < ss->partial[low].n)
			low = i;
	}
	if (ss->partial[low].n < n) {
		ss->partial[low].pid = pid;
		ss->partial[low].n = n;
	}
}

/* A read of 8 bytes at addr from the copy of a stack below top; 0, or how the copy fails it. */
static int read_copy_below(const struct bt_stack_sample *s, uint64_t addr, uint64_t *val,
			   uint64_t top)
{
	if (addr >= s->sp && addr - s->sp <= (uint64_t)s->len - 8 && s->len >= 8) {
		memcpy(val, s->stack + (addr - s->sp), sizeof(*val));
		return 0;
	}
	/* above the copy: the live stack goes on there, unlike a read below sp or off the map */
	return addr >= s->sp && addr < top ? BT_UNWIND_WALK_COPY_END : BT_UNWIND_WALK_TRUNCATED;
}

static int read_copy(const struct bt_stack_sample *s, uint64_t addr, uint64_t *val)
{
	return read_copy_below(s, addr, val, USER_TOP);
}

static uint64_t real_ra(const struct bt_stack_sample *s, uint64_t ra, uint64_t slot)
{
	int k;

	if (ra != s->tramp || !ra)
		return ra;
	for (k = 0; k < BT_STACK_SAMPLE_RETS; k++)
		if (s->ret_slot[k] == slot)
			return s->ret_addr[k];
	return ra;
}

/*
 * The aarch64 walker's step (probes/bt_unwind.bpf.h, its bt_unwind_caller()) over the copy:
 * the same rules, the same frame-pointer steps where there is none, the same ends. Built on
 * every host, for the unit tests; bt_unwind_walk_sample() on aarch64.
 */
int bt_unwind_walk_sample_a64(const struct bt_stack_sample *s, bt_unwind_rule_fn rule, void *ctx,
			      bool marks, uint64_t *ips, enum bt_unwind_walk_end *end)
{
	uint64_t pc = s->ip, sp = s->sp, fp = s->bp, cfa = 0, ra, row, frame[2];
	bool from_fp = false;
	int n = 0, err;

	*end = BT_UNWIND_WALK_TRUNCATED;
	if (!pc)
		return 0;
	for (;;) {
		if (n >= BT_MAX_STACK_DEPTH || pc < 4096 || pc >= USER_TOP_A64)
			break; /* truncated */
		ips[n] = pc | (marks && from_fp ? BT_UNWIND_MARK_FP : 0);
		row = rule(ctx, n ? pc - 1 : pc);
		n++;
		switch (BT_A64_CFA_RULE(row)) {
		case BT_CFA_RSP:
			cfa = sp + BT_A64_CFA_OFF(row);
			if (from_fp)
				row = 0; /* sp is not known after a frame-pointer step */
			break;
		case BT_CFA_RBP:
			cfa = fp + BT_A64_CFA_OFF(row);
			break;
		case BT_CFA_END:
		case BT_CFA_SIGNAL:
			*end = BT_UNWIND_WALK_DONE;
			return n;
		default:
			row = 0;
			break;
		}
		if (row && !BT_A64_RA_IS_SAVED(row) && n > 1)
			row = 0; /* x30 is the interrupted frame's only */
		if (row) {
			if (BT_A64_RA_IS_SAVED(row)) {
				if (cfa <= sp)
					break;
				err = read_copy_below(s, cfa + BT_A64_RA_OFF(row), &ra,
						      USER_TOP_A64);
				if (err) {
					*end = err;
					break;
				}
			} else {
				if (cfa < sp)
					break;
				ra = s->lr;
			}
			ra = real_ra(s, ra & (USER_TOP_A64 - 1), cfa);
			if (BT_A64_FP_RULE(row) == BT_RBP_CFA) {
				err = read_copy_below(s, cfa + BT_A64_FP_OFF(row), &fp,
						      USER_TOP_A64);
				if (err == BT_UNWIND_WALK_COPY_END) {
					*end = err;
					break;
				}
				if (err)
					fp = 0;
			} else if (BT_A64_FP_RULE(row) == BT_RBP_UNDEFINED) {
				fp = 0;
			}
			sp = cfa;
			from_fp = false;
		} else {
			if (!fp || fp < sp) {
				*end = BT_UNWIND_WALK_DONE;
				return n;
			}
			err = read_copy_below(s, fp, &frame[0], USER_TOP_A64);
			if (!err)
				err = read_copy_below(s, fp + 8, &frame[1], USER_TOP_A64);
			if (err) {
				*end = err;
				break;
			}
			ra = frame[1] & (USER_TOP_A64 - 1);
			sp = fp + 16; /* at least: the frame's end is not known */
			fp = frame[0];
			from_fp = true;
		}
		pc = ra;
		if (!ra) {
			*end = BT_UNWIND_WALK_DONE;
			return n;
		}
	}
	if (marks && n)
		ips[n - 1] |= BT_UNWIND_MARK_TRUNC;
	return n;
}

/*
 * The walker's step (probes/bt_unwind.bpf.h, bt_unwind_frame()) over the copy: the same rules,
 * the same frame-pointer steps where there is no rule, the same ends. A change there is a
 * change here.
 */
int bt_unwind_walk_sample(const struct bt_stack_sample *s, bt_unwind_rule_fn rule, void *ctx,
			  bool marks, uint64_t *ips, enum bt_unwind_walk_end *end)
{
	uint64_t pc = s->ip, sp = s->sp, bp = s->bp, cfa = 0, ra, row, frame[2];
	bool from_fp = false;
	int n = 0, err;

#if defined(__aarch64__)
	return bt_unwind_walk_sample_a64(s, rule, ctx, marks, ips, end);
#endif
	*end = BT_UNWIND_WALK_TRUNCATED;
	if (!pc)
		return 0;
	for (;;) {
		if (n >= BT_MAX_STACK_DEPTH || pc < 4096 || pc >= USER_TOP)
			break; /* truncated */
		ips[n] = pc | (marks && from_fp ? BT_UNWIND_MARK_FP : 0);
		row = rule(ctx, n ? pc - 1 : pc);
		n++;
		switch (row >> 48 & 0xff) {
		case BT_CFA_RSP:
			cfa = sp + (int32_t)row;
			break;
		case BT_CFA_RBP:
			cfa = bp + (int32_t)row;
			break;
		case BT_CFA_PLT:
			cfa = sp + 8 + ((pc & 15) >= 11 ? 8 : 0);
			break;
		case BT_CFA_END:
		case BT_CFA_SIGNAL:
			*end = BT_UNWIND_WALK_DONE;
			return n;
		default:
			row = 0;
			break;
		}
		if (row) {
			if (cfa <= sp)
				break;
			err = read_copy(s, cfa - 8, &ra);
			if (err) {
				*end = err;
				break;
			}
			ra = real_ra(s, ra, cfa - 8);
			if ((row >> 56) == BT_RBP_CFA) {
				err = read_copy(s, cfa + (int16_t)(row >> 32), &bp);
				if (err == BT_UNWIND_WALK_COPY_END) {
					*end = err;
					break;
				}
				if (err)
					bp = 0;
			} else if ((row >> 56) == BT_RBP_UNDEFINED) {
				bp = 0;
			}
			sp = cfa;
			from_fp = false;
		} else {
			if (!bp || bp < sp) {
				*end = BT_UNWIND_WALK_DONE;
				return n;
			}
			err = read_copy(s, bp, &frame[0]);
			if (!err)
				err = read_copy(s, bp + 8, &frame[1]);
			if (err) {
				*end = err;
				break;
			}
			ra = real_ra(s, frame[1], bp + 8);
			sp = bp + 16;
			bp = frame[0];
			from_fp = true;
		}
		pc = ra;
		if (!ra) {
			*end = BT_UNWIND_WALK_DONE;
			return n;
		}
	}
	if (marks && n)
		ips[n - 1] |= BT_UNWIND_MARK_TRUNC;
	return n;
}

/* The inner map of table (a descriptor kept open), or -1. */
static int table_fd(struct bt_unwind_samples *ss, __u32 table)
{
	__u32 inner_id;
	unsigned int i;
	int fd;

	for (i = 0; i < TABLE_FDS; i++)
		if (ss->fds[i].table == table && ss->fds[i].fd >= 0)
			return ss->fds[i].fd;
	/* a map of maps answers a lookup from user space with the inner map's id */
	if (bpf_map_lookup_elem(ss->tables_fd, &table, &inner_id))
		return -1;
	fd = bpf_map_get_fd_by_id(inner_id);
	if (fd < 0)
		return -1;
	i = ss->next_fd++ % TABLE_FDS;
	if (ss->fds[i].fd >= 0)
		close(ss->fds[i].fd);
	ss->fds[i].table = table;
	ss->fds[i].fd = fd;
	return fd;
}

/* The last entry of the page whose pc is at most pc, or -1: what bt_unwind_search() finds. */
static int search_page(const struct bt_unwind_page *pg, uint64_t pc)
{
	int lo = 0, hi = (int)pg->n - 1, mid, best = -1;

	if (!pg->n || pg->n > BT_UNWIND_FANOUT)
		return -1;
	while (lo <= hi) {
		mid = (lo + hi) / 2;
		if (pg->pcs[mid] <= pc) {
			best = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	return best;
}

/* bt_unwind_lookup() from user space, over ss->proc (its mappings) and the table maps. */
static uint64_t rule_of(void *ctx, uint64_t pc)
{
	struct bt_unwind_samples *ss = ctx;
	const struct bt_unwind_mapping *m = NULL;
	struct bt_unwind_info info;
	const struct bt_unwind_rule *r;
	__u32 page = 0, first, i;
	uint64_t rel;
	int fd, k;

	for (i = 0; i < ss->proc.nr && i < BT_UNWIND_MAX_MAPPINGS; i++)
		if (pc >= ss->proc.maps[i].start && pc < ss->proc.maps[i].end)
			m = &ss->proc.maps[i];
	if (!m)
		ss->missed = true;
	if (!m || !m->table)
		return 0;
	rel = pc - m->bias;
	if (rel >> 32)
		return 0;
	if (bpf_map_lookup_elem(ss->info_fd, &m->table, &info) || !info.levels ||
	    info.levels > BT_UNWIND_MAX_LEVELS)
		return 0;
	fd = table_fd(ss, m->table);
	if (fd < 0)
		return 0;
	if (info.levels > 1) {
		if (bpf_map_lookup_elem(fd, &page, &ss->page))
			return 0;
		k = search_page(&ss->page, rel);
		if (k < 0)
			return 0;
		page = info.level_first[1] + k;
	}
	if (info.levels > 2) {
		first = info.level_first[1];
		if (bpf_map_lookup_elem(fd, &page, &ss->page))
			return 0;
		k = search_page(&ss->page, rel);
		if (k < 0)
			return 0;
		page = info.level_first[2] + (page - first) * BT_UNWIND_FANOUT + k;
	}
	if (bpf_map_lookup_elem(fd, &page, &ss->page))
		return 0;
	k = search_page(&ss->page, rel);
	if (k < 0)
		return 0;
	r = &ss->page.rules[k];
	return (__u32)r->cfa_offset | (uint64_t)(__u16)r->rbp_offset << 32 |
	       (uint64_t)r->cfa_rule << 48 | (uint64_t)r->rbp_rule << 56;
}

static size_t raw_size(const struct bt_stack_sample *raw)
{
	return offsetof(struct bt_stack_sample, stack) + raw->len;
}

/* s's copy is done with: unwound, fallen back or released */
static void drop_raw(struct bt_unwind_samples *ss, struct sample *s)
{
	if (!s->raw)
		return;
	ss->waiting--;
	ss->waiting_bytes -= raw_size(s->raw);
	free(s->raw);
	s->raw = NULL;
}

/*
 * Unwind s's raw copy through ss->proc (locked), or let it fall back; fresh says proc was read
 * after the stack was taken. False when it waits on: the walk met a pc in none of the
 * mappings of a table read before, which a table read now will have (a library mapped since).
 */
static bool unwind_one(struct bt_unwind_samples *ss, struct sample *s, bool have_proc, bool fresh)
{
	uint64_t ips[BT_MAX_STACK_DEPTH];
	enum bt_unwind_walk_end end = BT_UNWIND_WALK_TRUNCATED;
	int n = 0;

	ss->missed = false;
	if (have_proc)
		n = bt_unwind_walk_sample(s->raw, rule_of, ss, ss->marks, ips, &end);
	if (have_proc && ss->missed && !fresh)
		return false;
	/*
	 * A walk the live stack would have taken further than the copy: the walker's own stack
	 * has those frames, if by frame pointers
	 */
	if (n > 0 && end != BT_UNWIND_WALK_COPY_END)
		s->ips = malloc(n * sizeof(*ips));
	if (s->ips) {
		memcpy(s->ips, ips, n * sizeof(*ips));
		s->nr = n;
		ss->unwound++;
	} else {
		ss->fell_back++;
		partial_add(ss, s->tgid, 1, false);
		bt_debug("unwind: a stack of process %d falls back (%s)", s->tgid,
			 !have_proc			  ? "not indexed"
			 : end == BT_UNWIND_WALK_COPY_END ? "its copy ends first"
							  : "no frame");
	}
	drop_raw(ss, s);
	return true;
}

int bt_unwind_samples__new(int tables_fd, int info_fd, int procs_fd, bool marks,
			   struct bt_unwind_samples **out)
{
	struct bt_unwind_samples *ss = calloc(1, sizeof(*ss));
	unsigned int i;

	if (!ss)
		return -ENOMEM;
	ss->tables_fd = tables_fd;
	ss->info_fd = info_fd;
	ss->procs_fd = procs_fd;
	ss->marks = marks;
	for (i = 0; i < TABLE_FDS; i++)
		ss->fds[i].fd = -1;
	pthread_mutex_init(&ss->lock, NULL);
	*out = ss;
	return 0;
}

void bt_unwind_samples__free(struct bt_unwind_samples *ss)
{
	size_t i;

	if (!ss)
		return;
	for (i = 0; i < ss->n; i++) {
		free(ss->v[i].raw);
		free(ss->v[i].ips);
	}
	for (i = 0; i < TABLE_FDS; i++)
		if (ss->fds[i].fd >= 0)
			close(ss->fds[i].fd);
	pthread_mutex_destroy(&ss->lock);
	free(ss->v);
	free(ss);
}

/* The index of id in ss->v, or where it goes (*found false). */
static size_t find(const struct bt_unwind_samples *ss, uint64_t id, bool *found)
{
	size_t lo = 0, hi = ss->n, mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (ss->v[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = lo < ss->n && ss->v[lo].id == id;
	return lo;
}

int bt_unwind_samples__add(struct bt_unwind_samples *ss, const void *data, size_t size)
{
	const struct bt_stack_sample *in = data;
	uint64_t now;
	struct sample *s;
	bool found, indexed;
	size_t at;
	int ret = 0;

	/* a record is as long as the stack read (bt_unwind_defer) */
	if (size < offsetof(struct bt_stack_sample, stack) || in->len > BT_STACK_SAMPLE_BYTES ||
	    size < raw_size(in) || !BT_STACK_DEFERRED(in->id))
		return -EINVAL;
	pthread_mutex_lock(&ss->lock);
	ss->received++;
	at = find(ss, in->id, &found);
	if (found)
		goto out; /* the kernel numbers each once */
	if (ss->n == ss->cap) {
		size_t cap = ss->cap ? ss->cap * 2 : 256;
		struct sample *v = realloc(ss->v, cap * sizeof(*v));

		if (!v) {
			ret = -ENOMEM;
			goto out;
		}
		ss->v = v;
		ss->cap = cap;
	}
	memmove(&ss->v[at + 1], &ss->v[at], (ss->n - at) * sizeof(*ss->v));
	ss->n++;
	s = &ss->v[at];
	*s = (struct sample){ .id = in->id,
			      .fallback = in->fallback,
			      .start_ns = in->note.start_ns,
			      .tgid = (int)in->note.tgid };
	/* past the bound the walker's stack stands: memory stays bounded whatever comes */
	if (ss->waiting_bytes + raw_size(in) > BT_UNWIND_WAITING_BYTES) {
		ss->fell_back++;
		goto out;
	}
	/* the stack read, not the 8 KiB the struct has room for */
	s->raw = malloc(raw_size(in));
	if (!s->raw) {
		ss->fell_back++;
		goto out;
	}
	memcpy(s->raw, in, raw_size(in));
	ss->waiting++;
	ss->waiting_bytes += raw_size(in);
	/*
	 * Indexed since the kernel sent it (the worker wrote its table meanwhile): unwind it now,
	 * if the process that has the pid is still the one that sent it
	 */
	indexed = !bpf_map_lookup_elem(ss->procs_fd, &in->note.tgid, &ss->proc) &&
		  !bt_proc_start_ns(s->tgid, &now) && bt_proc_same_start(now, s->start_ns);
	if (!indexed || !unwind_one(ss, s, true, false))
		ret = 1;
out:
	pthread_mutex_unlock(&ss->lock);
	return ret;
}

void bt_unwind_samples__indexed(struct bt_unwind_samples *ss, int pid, uint64_t start_ns,
				uint64_t read_ns, const struct bt_unwind_proc *proc)
{
	size_t i;

	/*
	 * A table with no mapping is no answer: a process that sent a user stack has code
	 * mapped, so it was read as it exited (a zombie keeps its pid and start time, and no
	 * mappings) or between two images. Its stacks wait on for its exit's note (then its
	 * logged mappings); unwound through the empty table they fell back (uwl_leaf;uwl_4
	 * for a 20 ms process, 1 run in 12)
	 */
	if (!ss || (proc && !proc->nr))
		return;
	pthread_mutex_lock(&ss->lock);
	if (proc)
		ss->proc = *proc;
	for (i = 0; ss->waiting && i < ss->n; i++) {
		struct sample *s = &ss->v[i];

		if (!s->raw || s->tgid != pid)
			continue;
		/* a process that took the pid since is not the one whose stack this is */
		unwind_one(ss, s, proc && bt_proc_same_start(start_ns, s->start_ns),
			   read_ns >= s->raw->at_ns);
	}
	pthread_mutex_unlock(&ss->lock);
}

bool bt_unwind_samples__waiting_for(struct bt_unwind_samples *ss, int pid)
{
	bool yes = false;
	size_t i;

	if (!ss)
		return false;
	pthread_mutex_lock(&ss->lock);
	for (i = 0; ss->waiting && i < ss->n && !yes; i++)
		yes = ss->v[i].raw && ss->v[i].tgid == pid;
	pthread_mutex_unlock(&ss->lock);
	return yes;
}

int bt_unwind_samples__get(struct bt_unwind_samples *ss, uint64_t id, uint64_t *ips,
			   uint64_t *fallback, int *pid, uint64_t *start_ns)
{
	struct sample *s;
	bool found;
	size_t at;
	int ret;

	pthread_mutex_lock(&ss->lock);
	at = find(ss, id, &found);
	if (!found) {
		ret = -ENOENT;
		goto out;
	}
	s = &ss->v[at];
	*pid = s->tgid;
	*start_ns = s->start_ns;
	*fallback = s->fallback;
	if (s->raw) {
		ret = -EAGAIN;
		goto out;
	}
	ret = s->nr;
	if (ret)
		memcpy(ips, s->ips, ret * sizeof(*ips));
out:
	pthread_mutex_unlock(&ss->lock);
	return ret;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int bt_unwind_samples__release(struct bt_unwind_samples *ss, unsigned int gen, const uint64_t *held,
			       size_t nheld, uint64_t **keep, size_t *nkeep)
{
	size_t i, k = 0, nk = 0;
	int err = 0;

	*keep = NULL;
	*nkeep = 0;
	if (!ss)
		return 0;
	pthread_mutex_lock(&ss->lock);
	for (i = 0; i < ss->n; i++) {
		struct sample *s = &ss->v[i];

		if (BT_STACK_GEN(s->id) != gen ||
		    (nheld && bsearch(&s->id, held, nheld, sizeof(*held), cmp_u64))) {
			if (BT_STACK_GEN(s->id) == gen && BT_STACK_STORED(s->fallback)) {
				uint64_t *kp = realloc(*keep, (nk + 1) * sizeof(*kp));

				if (!kp) {
					err = -ENOMEM;
				} else {
					*keep = kp;
					kp[nk++] = s->fallback;
				}
			}
			ss->v[k++] = *s;
			continue;
		}
		drop_raw(ss, s);
		free(s->ips);
	}
	ss->n = k;
	pthread_mutex_unlock(&ss->lock);
	*nkeep = nk;
	return err;
}

void bt_unwind_samples__partial(struct bt_unwind_samples *ss, int pid, unsigned long long n)
{
	if (!ss || !n)
		return;
	pthread_mutex_lock(&ss->lock);
	partial_add(ss, pid, n, true);
	pthread_mutex_unlock(&ss->lock);
}

void bt_unwind_samples__partial_report(struct bt_unwind_samples *ss, char *buf, size_t len)
{
	unsigned int i, named = 0;
	size_t at = 0;
	int w;

	buf[0] = 0;
	if (!ss)
		return;
	pthread_mutex_lock(&ss->lock);
	for (i = 0; i < PARTIAL_NAMED && at < len; i++) {
		if (!ss->partial[i].n)
			continue;
		w = snprintf(buf + at, len - at, "%spid %d: %llu", named ? ", " : "",
			     ss->partial[i].pid, ss->partial[i].n);
		at += w > 0 ? (size_t)w : 0;
		named++;
	}
	if (at < len && ss->partial_procs > named)
		snprintf(buf + at, len - at, "%s%llu more processes", named ? ", " : "",
			 ss->partial_procs - named);
	pthread_mutex_unlock(&ss->lock);
}

void bt_unwind_samples__reset_counts(struct bt_unwind_samples *ss)
{
	if (!ss)
		return;
	pthread_mutex_lock(&ss->lock);
	ss->received = ss->unwound = ss->fell_back = 0;
	memset(ss->partial, 0, sizeof(ss->partial));
	ss->partial_procs = 0;
	pthread_mutex_unlock(&ss->lock);
}

void bt_unwind_samples__counts(struct bt_unwind_samples *ss, struct bt_unwind_sample_counts *c)
{
	memset(c, 0, sizeof(*c));
	if (!ss)
		return;
	pthread_mutex_lock(&ss->lock);
	c->received = ss->received;
	c->unwound = ss->unwound;
	c->fell_back = ss->fell_back;
	c->kept = ss->n;
	pthread_mutex_unlock(&ss->lock);
}
