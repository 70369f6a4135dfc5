// SPDX-License-Identifier: GPL-2.0
/*
 * JIT symbols from /tmp/perf-PID.map ("START SIZE name", hex). The file is the one inside
 * the process's mount namespace, named by its namespaced pid, as perf and bcc read it; the
 * descriptor is opened when the process is noted, so the map outlives the process. Opened
 * through bt_procfile: a FIFO or a symlink there is refused, and so is a map owned by neither
 * root nor the process.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bt_procfile.h"
#include "sym_internal.h"

#define BT_PERFMAP_CHUNK (64u << 10) /* one pread; more than a line */
#define BT_PERFMAP_BLOCK (64u << 10) /* names are kept in blocks of this size */

struct pm_ent {
	uint64_t start;
	const char *name; /* in a block of names: never moves while the map is kept */
	uint32_t size;	  /* JIT'ed code is never 4 GiB: a line saying so is dropped */
	uint32_t seq;	  /* file order: a JIT that reuses an address appends the newer entry */
};

struct pm_block {
	struct pm_block *next;
	size_t used, cap;
	char data[];
};

struct bt_perfmap {
	int fd;
	off_t consumed; /* the file offset after the last whole line read */
	int skipping;	/* inside an over-long line: everything to its newline is dropped */
	struct pm_ent *ents;
	size_t n, cap;
	uint32_t seq;
	struct pm_block *names;
	struct pm_block *stale; /* names of the map before it was truncated (freed on the next) */
	uint64_t bytes_read;
	uint64_t window_ns; /* the second the reads below were counted in */
	unsigned int window_reads;
	struct bt_perfmap_stats stats;
};

static void blocks_free(struct pm_block *b)
{
	while (b) {
		struct pm_block *next = b->next;

		free(b);
		b = next;
	}
}

static const char *keep_name(struct bt_perfmap *pm, const char *s, size_t len)
{
	struct pm_block *b = pm->names;
	char *p;

	if (!b || b->cap - b->used < len + 1) {
		size_t cap = len + 1 > BT_PERFMAP_BLOCK ? len + 1 : BT_PERFMAP_BLOCK;

		b = malloc(sizeof(*b) + cap);
		if (!b)
			return NULL;
		b->next = pm->names;
		b->used = 0;
		b->cap = cap;
		pm->names = b;
	}
	p = b->data + b->used;
	memcpy(p, s, len);
	p[len] = 0;
	b->used += len + 1;
	return p;
}

/* One line without its newline; 1 when it made an entry. */
static int parse_line(struct bt_perfmap *pm, const char *line, size_t len)
{
	char buf[BT_PERFMAP_MAX_LINE + 1], *p, *q;
	unsigned long long size;
	struct pm_ent e;

	if (len > BT_PERFMAP_MAX_LINE) {
		pm->stats.long_lines++;
		return 0;
	}
	memcpy(buf, line, len);
	buf[len] = 0;
	p = buf;
	e.start = strtoull(p, &q, 16);
	if (q == p || *q != ' ')
		return 0;
	p = q + 1;
	size = strtoull(p, &q, 16);
	if (q == p || *q != ' ' || !q[1] || !size || size > UINT32_MAX)
		return 0;
	e.size = size;
	if (pm->n == BT_PERFMAP_MAX_ENTRIES)
		return 0; /* parse_chunk() stops there: what follows is counted unread */
	if (pm->n == pm->cap) {
		size_t cap = pm->cap ? pm->cap * 2 : 1024;
		struct pm_ent *ne;

		if (cap > BT_PERFMAP_MAX_ENTRIES)
			cap = BT_PERFMAP_MAX_ENTRIES;
		ne = realloc(pm->ents, cap * sizeof(*ne));
		if (!ne)
			return -ENOMEM;
		pm->ents = ne;
		pm->cap = cap;
	}
	e.name = keep_name(pm, q + 1, buf + len - (q + 1));
	if (!e.name)
		return -ENOMEM;
	e.seq = pm->seq++;
	pm->ents[pm->n++] = e;
	return 1;
}

static int cmp_pm(const void *a, const void *b)
{
	const struct pm_ent *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	/* the newer entry of an address first: it is the one kept */
	return x->seq < y->seq ? 1 : x->seq > y->seq ? -1 : 0;
}

/* ents[0..old) is sorted and unique by start; sort what was appended and merge it in. */
static int merge_new(struct bt_perfmap *pm, size_t old)
{
	size_t i, j, out, add = pm->n - old;
	struct pm_ent *tail, *merged;

	if (!add)
		return 0;
	tail = pm->ents + old;
	qsort(tail, add, sizeof(*tail), cmp_pm);
	for (i = 0, out = 0; i < add; i++) {
		if (out && tail[out - 1].start == tail[i].start)
			continue;
		tail[out++] = tail[i];
	}
	add = out;
	if (!old || tail[0].start > pm->ents[old - 1].start) {
		pm->n = old + add; /* appended in address order, as JITs mostly do */
		return 0;
	}
	merged = malloc((old + add) * sizeof(*merged));
	if (!merged)
		return -ENOMEM;
	for (i = 0, j = 0, out = 0; i < old || j < add;) {
		if (j == add || (i < old && pm->ents[i].start < tail[j].start)) {
			merged[out++] = pm->ents[i++];
		} else {
			if (i < old && pm->ents[i].start == tail[j].start)
				i++; /* the newer one wins */
			merged[out++] = tail[j++];
		}
	}
	free(pm->ents);
	pm->ents = merged;
	pm->n = out;
	pm->cap = old + add;
	return 0;
}

/* Forget what was read: the file was truncated (rewritten) since. */
static void reset(struct bt_perfmap *pm)
{
	blocks_free(pm->stale);
	pm->stale = pm->names;
	pm->names = NULL;
	pm->n = 0;
	pm->consumed = 0;
	pm->skipping = 0;
}

/*
 * Parse whole lines of buf[0..len), read at pm->consumed; returns the bytes consumed. An
 * unfinished line at the end is left for the next read, unless it is over-long already.
 */
static ssize_t parse_chunk(struct bt_perfmap *pm, const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len, *nl;
	int r;

	while (p < end) {
		nl = memchr(p, '\n', end - p);
		if (pm->skipping) {
			if (!nl)
				return len;
			pm->skipping = 0;
			pm->stats.long_lines++;
			p = nl + 1;
			continue;
		}
		if (!nl) {
			if ((size_t)(end - p) > BT_PERFMAP_MAX_LINE) {
				pm->skipping = 1; /* counted when its newline comes */
				return len;
			}
			break; /* a line still being written, or cut by the chunk */
		}
		r = parse_line(pm, p, nl - p);
		if (r < 0)
			return r;
		p = nl + 1;
		if (pm->n == BT_PERFMAP_MAX_ENTRIES)
			break;
	}
	return p - buf;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

int bt_perfmap__refresh_at(struct bt_perfmap *pm, uint64_t now_ns)
{
	char *buf = NULL;
	struct stat st;
	size_t old;
	int err = 0;

	if (!pm || fstat(pm->fd, &st))
		return -EINVAL;
	if (st.st_size < pm->consumed)
		reset(pm);
	if (st.st_size == pm->consumed || pm->n == BT_PERFMAP_MAX_ENTRIES ||
	    pm->bytes_read >= BT_PERFMAP_MAX_BYTES)
		goto out;
	if (now_ns - pm->window_ns >= 1000000000ULL) {
		pm->window_ns = now_ns;
		pm->window_reads = 0;
	}
	if (pm->window_reads >= BT_PERFMAP_READS_PER_SEC) {
		pm->stats.reads_deferred++;
		goto out;
	}
	pm->window_reads++;
	buf = malloc(BT_PERFMAP_CHUNK);
	if (!buf)
		return -ENOMEM;
	old = pm->n;
	while (pm->consumed < st.st_size && pm->n < BT_PERFMAP_MAX_ENTRIES &&
	       pm->bytes_read < BT_PERFMAP_MAX_BYTES) {
		size_t want = BT_PERFMAP_CHUNK;
		ssize_t r, used;

		if (want > BT_PERFMAP_MAX_BYTES - pm->bytes_read)
			want = BT_PERFMAP_MAX_BYTES - pm->bytes_read;
		if ((uint64_t)want > (uint64_t)(st.st_size - pm->consumed))
			want = st.st_size - pm->consumed;
		r = pread(pm->fd, buf, want, pm->consumed);
		if (r <= 0)
			break;
		pm->bytes_read += r;
		used = parse_chunk(pm, buf, r);
		if (used < 0) {
			err = used;
			break;
		}
		pm->consumed += used;
		if (!used)
			break; /* only the unfinished last line */
	}
	free(buf);
	if (merge_new(pm, old) && !err)
		err = -ENOMEM;
out:
	/* what the caps leave unread, as of now */
	pm->stats.bytes_unread =
		pm->n == BT_PERFMAP_MAX_ENTRIES || pm->bytes_read >= BT_PERFMAP_MAX_BYTES
			? (uint64_t)(st.st_size - pm->consumed)
			: 0;
	return err;
}

int bt_perfmap__refresh(struct bt_perfmap *pm)
{
	return bt_perfmap__refresh_at(pm, mono_ns());
}

void bt_perfmap__stats(const struct bt_perfmap *pm, struct bt_perfmap_stats *st)
{
	if (pm)
		*st = pm->stats;
	else
		memset(st, 0, sizeof(*st));
}

static int from_fd(int fd, struct bt_perfmap **out)
{
	struct bt_perfmap *pm = calloc(1, sizeof(*pm));

	if (!pm) {
		close(fd);
		return -ENOMEM;
	}
	pm->fd = fd;
	*out = pm;
	return 0;
}

int bt_perfmap__open(int rootfd, int nspid, const uid_t *owners, size_t nowners,
		     struct bt_perfmap **out)
{
	/* perf's rule, with the traced process's users in place of the one running perf */
	struct bt_procfile_want w = { .owners = owners, .nowners = nowners, .nofollow = 1 };
	char name[64];
	int fd;

	*out = NULL;
	snprintf(name, sizeof(name), "/tmp/perf-%d.map", nspid);
	fd = bt_procfile_open(rootfd, name, &w, NULL);
	if (fd < 0)
		return fd;
	return from_fd(fd, out);
}

int bt_perfmap__open_path(const char *path, struct bt_perfmap **out)
{
	int fd = bt_procfile_open(-1, path, NULL, NULL);

	*out = NULL;
	if (fd < 0)
		return fd;
	return from_fd(fd, out);
}

void bt_perfmap__free(struct bt_perfmap *pm)
{
	if (!pm)
		return;
	close(pm->fd);
	free(pm->ents);
	blocks_free(pm->names);
	blocks_free(pm->stale);
	free(pm);
}

const char *bt_perfmap__lookup(const struct bt_perfmap *pm, uint64_t addr, uint64_t *off)
{
	size_t lo = 0, hi;
	const struct pm_ent *e;

	if (!pm)
		return NULL;
	hi = pm->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (pm->ents[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	e = &pm->ents[lo - 1];
	if (addr - e->start >= e->size)
		return NULL;
	if (off)
		*off = addr - e->start;
	return e->name;
}
