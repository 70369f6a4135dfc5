// SPDX-License-Identifier: GPL-2.0
/* Keyed summaries: running totals read as interval differences (see bt_summary.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bt_err.h"
#include "bt_hist.h"
#include "bt_summary.h"

/*
 * One key seen in the map: the totals read last time (prev), this interval's difference
 * (delta), and the key's bytes, in one allocation. Running summaries add two more: what every
 * interval gained (acc) and its copy the rows show (out), which sorting may merge into.
 */
struct entry {
	unsigned int gen; /* the collect that last saw the key in the map */
	bool dead;	  /* gone from the map: dropped at the next collect */
	bool retired;	  /* we deleted it: prev is minus what raced the delete */
	uint64_t data[];  /* prev[nv], delta[nv], (acc[nv], out[nv],) key */
};

struct bt_summary {
	struct bt_summary_opts o;
	struct bt_summary_map map;
	int fd;
	bool can_delete;
	size_t nv;     /* u64s per value */
	size_t nparts; /* u64 arrays of nv per entry: 2, running 4 */
	unsigned int gen;
	struct entry **ents; /* every key known, in the order first seen */
	size_t nents, cap;
	struct entry **index; /* open addressing over ents by key, size index_cap (power of 2) */
	size_t index_cap;
	struct entry **rows; /* this interval's rows */
	size_t nrows;
	uint64_t *buf; /* ncpu copies of a value */
	uint64_t *sum;
	unsigned char *key, *next; /* iteration */
};

static uint64_t *prev_of(struct entry *e)
{
	return e->data;
}

static uint64_t *delta_of(const struct bt_summary *s, const struct entry *e)
{
	return (uint64_t *)e->data + s->nv;
}

static uint64_t *acc_of(const struct bt_summary *s, const struct entry *e)
{
	return (uint64_t *)e->data + 2 * s->nv;
}

/* What a row shows: this interval, or everything since the start (running). */
static uint64_t *value_of(const struct bt_summary *s, const struct entry *e)
{
	return (uint64_t *)e->data + (s->o.running ? 3 : 1) * s->nv;
}

static unsigned char *key_of(const struct bt_summary *s, const struct entry *e)
{
	return (unsigned char *)(e->data + s->nparts * s->nv);
}

/* The bpf(2) half: a real map. */
static int map_next_key(void *ctx, const void *prev, void *next)
{
	struct bt_summary *s = ctx;

	return bpf_map_get_next_key(s->fd, prev, next) ? -errno : 0;
}

static int map_lookup(void *ctx, const void *key, uint64_t *vals)
{
	struct bt_summary *s = ctx;

	return bpf_map_lookup_elem(s->fd, key, vals) ? -errno : 0;
}

static int map_lookup_and_delete(void *ctx, const void *key, uint64_t *vals)
{
	struct bt_summary *s = ctx;
	int err;

	if (!bpf_map_lookup_and_delete_elem(s->fd, key, vals))
		return 0;
	err = -errno;
	/* kernels before 5.14: not on hash maps; two steps, the window documented in the header */
	if (err != -EINVAL && err != -ENOTSUP && err != -524 /* ENOTSUPP */)
		return err;
	if (bpf_map_lookup_elem(s->fd, key, vals))
		return -errno;
	if (bpf_map_delete_elem(s->fd, key))
		return -errno;
	return 0;
}

static struct bt_summary *summary_alloc(const struct bt_summary_opts *opts, int ncpu)
{
	struct bt_summary *s;

	if (!opts->key_size || !opts->value_size || opts->value_size % 8 || ncpu <= 0 ||
	    (opts->hist != BT_SUMMARY_NONE &&
	     (!opts->nslots || opts->hist_off + opts->nslots > opts->value_size / 8))) {
		errno = EINVAL;
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->o = *opts;
	s->nv = opts->value_size / 8;
	s->nparts = opts->running ? 4 : 2;
	s->fd = -1;
	s->buf = calloc((size_t)ncpu * s->nv, sizeof(uint64_t));
	s->sum = calloc(s->nv, sizeof(uint64_t));
	s->key = calloc(1, opts->key_size);
	s->next = calloc(1, opts->key_size);
	if (!s->buf || !s->sum || !s->key || !s->next) {
		bt_summary__free(s);
		errno = ENOMEM;
		return NULL;
	}
	return s;
}

struct bt_summary *bt_summary__new_map(const struct bt_summary_map *map,
				       const struct bt_summary_opts *opts)
{
	struct bt_summary *s = summary_alloc(opts, map->ncpu);

	if (!s)
		return NULL;
	s->map = *map;
	s->can_delete = opts->retire_idle && map->lookup_and_delete;
	return s;
}

struct bt_summary *bt_summary__new(int map_fd, const struct bt_summary_opts *opts)
{
	struct bpf_map_info info = { 0 };
	__u32 len = sizeof(info);
	struct bt_summary *s;
	bool percpu, array;
	int ncpu = 1;

	if (bpf_obj_get_info_by_fd(map_fd, &info, &len))
		return NULL;
	if (info.key_size != opts->key_size || info.value_size != opts->value_size) {
		errno = EINVAL;
		return NULL;
	}
	percpu = info.type == BPF_MAP_TYPE_PERCPU_HASH || info.type == BPF_MAP_TYPE_PERCPU_ARRAY ||
		 info.type == BPF_MAP_TYPE_LRU_PERCPU_HASH;
	array = info.type == BPF_MAP_TYPE_ARRAY || info.type == BPF_MAP_TYPE_PERCPU_ARRAY;
	if (percpu) {
		ncpu = libbpf_num_possible_cpus();
		if (ncpu <= 0) {
			errno = ncpu ? -ncpu : EINVAL;
			return NULL;
		}
	}
	s = summary_alloc(opts, ncpu);
	if (!s)
		return NULL;
	s->fd = map_fd;
	s->map = (struct bt_summary_map){
		.ncpu = ncpu,
		.next_key = map_next_key,
		.lookup = map_lookup,
		.lookup_and_delete = array ? NULL : map_lookup_and_delete,
		.ctx = s,
	};
	s->can_delete = opts->retire_idle && !array;
	return s;
}

int bt_summary__open(struct bt_summary **s, int map_fd, const struct bt_summary_opts *opts)
{
	int err;

	*s = bt_summary__new(map_fd, opts);
	if (*s)
		return 0;
	err = -errno;
	if (opts->what)
		bt_err("cannot read the %s: %s", opts->what, strerror(-err));
	return err;
}

void bt_summary__free(struct bt_summary *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->nents; i++)
		free(s->ents[i]);
	free(s->ents);
	free(s->index);
	free(s->rows);
	free(s->buf);
	free(s->sum);
	free(s->key);
	free(s->next);
	free(s);
}

static uint64_t hash_key(const unsigned char *k, size_t n)
{
	uint64_t h = 14695981039346656037ULL; /* FNV-1a */

	while (n--) {
		h ^= *k++;
		h *= 1099511628211ULL;
	}
	return h;
}

static void index_put(struct bt_summary *s, struct entry *e)
{
	size_t i = hash_key(key_of(s, e), s->o.key_size) & (s->index_cap - 1);

	while (s->index[i])
		i = (i + 1) & (s->index_cap - 1);
	s->index[i] = e;
}

/* Rebuild the index for the current entries, at most half full. */
static int index_rebuild(struct bt_summary *s, size_t want)
{
	size_t cap = 16, i;

	while (cap < 2 * want)
		cap *= 2;
	if (cap != s->index_cap) {
		struct entry **idx = calloc(cap, sizeof(*idx));

		if (!idx)
			return -ENOMEM;
		free(s->index);
		s->index = idx;
		s->index_cap = cap;
	} else {
		memset(s->index, 0, cap * sizeof(*s->index));
	}
	for (i = 0; i < s->nents; i++)
		index_put(s, s->ents[i]);
	return 0;
}

static struct entry *find(struct bt_summary *s, const void *key)
{
	size_t i;

	if (!s->index_cap)
		return NULL;
	i = hash_key(key, s->o.key_size) & (s->index_cap - 1);
	for (; s->index[i]; i = (i + 1) & (s->index_cap - 1))
		if (!memcmp(key_of(s, s->index[i]), key, s->o.key_size))
			return s->index[i];
	return NULL;
}

static struct entry *add(struct bt_summary *s, const void *key)
{
	size_t ksz = (s->o.key_size + 7) / 8 * 8;
	struct entry *e;

	if (s->nents == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 16;
		struct entry **v = realloc(s->ents, cap * sizeof(*v));

		if (!v)
			return NULL;
		s->ents = v;
		s->cap = cap;
	}
	if (2 * (s->nents + 1) > s->index_cap && index_rebuild(s, s->nents + 1))
		return NULL;
	e = calloc(1, sizeof(*e) + s->nparts * s->nv * sizeof(uint64_t) + ksz);
	if (!e)
		return NULL;
	memcpy(key_of(s, e), key, s->o.key_size);
	s->ents[s->nents++] = e;
	index_put(s, e);
	return e;
}

/* Drop the entries that left the map last time (their carried-over events were reported). */
static int compact(struct bt_summary *s)
{
	size_t i, j = 0;

	for (i = 0; i < s->nents; i++) {
		if (s->ents[i]->dead)
			free(s->ents[i]);
		else
			s->ents[j++] = s->ents[i];
	}
	if (j == s->nents)
		return 0;
	s->nents = j;
	return index_rebuild(s, j);
}

static void sum_cpus(const struct bt_summary *s)
{
	int cpu;
	size_t i;

	memcpy(s->sum, s->buf, s->nv * sizeof(uint64_t));
	for (cpu = 1; cpu < s->map.ncpu; cpu++)
		for (i = 0; i < s->nv; i++)
			s->sum[i] += s->buf[cpu * s->nv + i];
}

static bool is_zero(const uint64_t *v, size_t n)
{
	while (n--)
		if (*v++)
			return false;
	return true;
}

/*
 * Totals read: this interval is what they gained. A total below the last one read means the
 * entry was made afresh behind our back (an LRU map evicted it, and an event re-created it):
 * what it holds is all new. After our own delete (retired), prev is minus the carry instead.
 */
static void take(const struct bt_summary *s, struct entry *e, const uint64_t *now)
{
	uint64_t *prev = prev_of(e), *delta = delta_of(s, e);
	size_t i;

	for (i = 0; i < s->nv; i++) {
		delta[i] = !e->retired && now[i] < prev[i] ? now[i] : now[i] - prev[i];
		prev[i] = now[i];
	}
	e->retired = false;
}

/* Running summaries: the interval joins the total, and the rows show a copy of it. */
static void accumulate(const struct bt_summary *s, struct entry *e)
{
	uint64_t *acc = acc_of(s, e), *delta = delta_of(s, e);
	size_t i;

	for (i = 0; i < s->nv; i++)
		acc[i] += delta[i];
	memcpy(value_of(s, e), acc, s->nv * sizeof(uint64_t));
}

/*
 * The key had no event this interval: take it out of the map. The map's copy restarts from
 * zero, so the baseline becomes minus what arrived between our read and the delete: the next
 * interval reports it, whether or not the key comes back.
 */
static int retire(struct bt_summary *s, struct entry *e)
{
	uint64_t *prev = prev_of(e);
	size_t i;
	int err;

	err = s->map.lookup_and_delete(s->map.ctx, key_of(s, e), s->buf);
	if (err == -ENOENT)
		return 0;
	if (err)
		return err;
	sum_cpus(s);
	for (i = 0; i < s->nv; i++)
		prev[i] = prev[i] - s->sum[i];
	e->retired = true;
	return 0;
}

static int collect(struct bt_summary *s)
{
	void *prev = NULL;
	size_t i;
	int err;

	s->nrows = 0;
	err = compact(s);
	if (err)
		return err;
	s->gen++;
	for (;;) {
		struct entry *e;

		err = s->map.next_key(s->map.ctx, prev, s->next);
		if (err == -ENOENT)
			break;
		if (err)
			return err;
		memcpy(s->key, s->next, s->o.key_size);
		prev = s->key;
		e = find(s, s->key);
		/* a restarted walk (the map changed under it) must not count a key twice */
		if (e && e->gen == s->gen)
			continue;
		err = s->map.lookup(s->map.ctx, s->key, s->buf);
		if (err == -ENOENT)
			continue;
		if (err)
			return err;
		sum_cpus(s);
		if (!e && is_zero(s->sum, s->nv))
			continue; /* an array slot that never counted: no entry needed */
		if (!e) {
			e = add(s, s->key);
			if (!e)
				return -ENOMEM;
		}
		e->gen = s->gen;
		take(s, e, s->sum);
	}
	free(s->rows);
	s->rows = calloc(s->nents ? s->nents : 1, sizeof(*s->rows));
	if (!s->rows)
		return -ENOMEM;
	for (i = 0; i < s->nents; i++) {
		struct entry *e = s->ents[i];
		uint64_t *delta = delta_of(s, e);

		if (e->gen != s->gen) {
			/*
			 * Gone from the map: after our delete, report what was carried over;
			 * evicted by someone else (an LRU map), what it gained since the last
			 * read is unknown and nothing is reported. Then forget it.
			 */
			if (e->retired) {
				memset(s->sum, 0, s->nv * sizeof(uint64_t));
				take(s, e, s->sum);
			} else {
				memset(delta, 0, s->nv * sizeof(uint64_t));
				/* should an event re-create it, all it holds is new */
				memset(prev_of(e), 0, s->nv * sizeof(uint64_t));
			}
			/* a running total outlives the map's entry: its counter stays */
			e->dead = !s->o.running;
		} else if (s->can_delete && is_zero(delta, s->nv)) {
			err = retire(s, e);
			if (err)
				return err;
			if (!s->o.running)
				continue;
		}
		if (s->o.running)
			accumulate(s, e);
		if (!is_zero(value_of(s, e), s->nv))
			s->rows[s->nrows++] = e;
	}
	return 0;
}

int bt_summary__collect(struct bt_summary *s)
{
	int err = collect(s);

	if (err && s->o.what)
		bt_err("cannot read the %s: %s", s->o.what, strerror(-err));
	return err;
}

size_t bt_summary__len(const struct bt_summary *s)
{
	return s->nrows;
}

const void *bt_summary__key(const struct bt_summary *s, size_t row)
{
	return key_of(s, s->rows[row]);
}

const uint64_t *bt_summary__value(const struct bt_summary *s, size_t row)
{
	return value_of(s, s->rows[row]);
}

uint64_t bt_summary__total(const struct bt_summary *s, size_t field)
{
	uint64_t t = 0;
	size_t i;

	for (i = 0; i < s->nrows && field < s->nv; i++)
		t += value_of(s, s->rows[i])[field];
	return t;
}

static int default_cmp(const struct bt_summary *s, const void *a, const void *b)
{
	if (s->o.key_size == 4) {
		uint32_t x, y;

		memcpy(&x, a, 4);
		memcpy(&y, b, 4);
		return x < y ? -1 : x > y;
	}
	if (s->o.key_size == 8) {
		uint64_t x, y;

		memcpy(&x, a, 8);
		memcpy(&y, b, 8);
		return x < y ? -1 : x > y;
	}
	return memcmp(a, b, s->o.key_size);
}

int bt_summary__cmp_keys(const struct bt_summary *s, const void *a, const void *b)
{
	return default_cmp(s, a, b);
}

size_t bt_summary__key_size(const struct bt_summary *s)
{
	return s->o.key_size;
}

struct sort_ctx {
	const struct bt_summary *s;
	bt_summary_cmp_fn cmp;
	void *ctx;
	size_t field;
	bool descending;
};

static int cmp_keys(const struct sort_ctx *c, const struct entry *x, const struct entry *y)
{
	const void *a = key_of(c->s, x), *b = key_of(c->s, y);

	return c->cmp ? c->cmp(a, b, c->ctx) : default_cmp(c->s, a, b);
}

static int cmp_rows_key(const void *a, const void *b, void *arg)
{
	const struct entry *x = *(struct entry *const *)a, *y = *(struct entry *const *)b;

	return cmp_keys(arg, x, y);
}

static int cmp_rows_value(const void *a, const void *b, void *arg)
{
	const struct sort_ctx *c = arg;
	const struct entry *x = *(struct entry *const *)a, *y = *(struct entry *const *)b;
	uint64_t vx = value_of(c->s, x)[c->field], vy = value_of(c->s, y)[c->field];

	if (vx != vy)
		return (vx < vy) == c->descending ? 1 : -1;
	return cmp_keys(c, x, y);
}

void bt_summary__sort_by_key(struct bt_summary *s, bt_summary_cmp_fn cmp, void *ctx, bool merge)
{
	struct sort_ctx c = { .s = s, .cmp = cmp, .ctx = ctx };
	size_t i, j, k;

	if (!s->nrows)
		return;
	qsort_r(s->rows, s->nrows, sizeof(*s->rows), cmp_rows_key, &c);
	if (!merge)
		return;
	for (i = 1, j = 0; i < s->nrows; i++) {
		if (!cmp_keys(&c, s->rows[j], s->rows[i])) {
			uint64_t *to = value_of(s, s->rows[j]);
			const uint64_t *from = value_of(s, s->rows[i]);

			for (k = 0; k < s->nv; k++)
				to[k] += from[k];
			continue;
		}
		s->rows[++j] = s->rows[i];
	}
	s->nrows = j + 1;
}

void bt_summary__sort_by_value(struct bt_summary *s, size_t field, bool descending)
{
	struct sort_ctx c = { .s = s, .field = field, .descending = descending };

	if (field >= s->nv || !s->nrows)
		return;
	qsort_r(s->rows, s->nrows, sizeof(*s->rows), cmp_rows_value, &c);
}

struct row_sort_ctx {
	const struct bt_summary *s;
	bt_summary_row_cmp_fn cmp;
	void *ctx;
};

static int cmp_rows(const void *a, const void *b, void *arg)
{
	const struct row_sort_ctx *c = arg;
	const struct entry *x = *(struct entry *const *)a, *y = *(struct entry *const *)b;

	return c->cmp(key_of(c->s, x), value_of(c->s, x), key_of(c->s, y), value_of(c->s, y),
		      c->ctx);
}

void bt_summary__sort(struct bt_summary *s, bt_summary_row_cmp_fn cmp, void *ctx)
{
	struct row_sort_ctx c = { .s = s, .cmp = cmp, .ctx = ctx };

	if (s->nrows)
		qsort_r(s->rows, s->nrows, sizeof(*s->rows), cmp_rows, &c);
}

int bt_summary__print_hists(const struct bt_summary *s, FILE *out, const char *section,
			    bt_summary_name_fn name_fn, void *ctx, const char *val_type)
{
	size_t i;

	if (s->o.hist == BT_SUMMARY_NONE)
		return -EINVAL;
	for (i = 0; i < s->nrows; i++) {
		const uint64_t *slots = value_of(s, s->rows[i]) + s->o.hist_off;

		if (section) {
			fprintf(out, "\n%s = ", section);
			if (name_fn)
				name_fn(out, key_of(s, s->rows[i]), ctx);
			fputc('\n', out);
		} else if (name_fn) {
			name_fn(out, key_of(s, s->rows[i]), ctx);
		}
		if (s->o.hist == BT_SUMMARY_LOG2)
			bt_hist_print_log2(out, slots, s->o.nslots, val_type);
		else
			bt_hist_print_linear(out, slots, s->o.nslots, val_type);
	}
	return ferror(out) ? -EPIPE : 0;
}

int bt_summary__print_rows(const struct bt_summary *s, FILE *out, bt_summary_row_fn row_fn,
			   void *ctx)
{
	size_t i;

	for (i = 0; i < s->nrows; i++)
		row_fn(out, key_of(s, s->rows[i]), value_of(s, s->rows[i]), ctx);
	return ferror(out) ? -EPIPE : 0;
}

void bt_json_hist(struct bt_json *j, const char *member, enum bt_summary_hist kind,
		  const uint64_t *slots, size_t nslots)
{
	size_t i, last = 0, first = kind == BT_SUMMARY_LOG2 ? 1 : 0;
	bool any = false;

	for (i = first; i < nslots; i++) {
		if (slots[i]) {
			last = i;
			any = true;
		}
	}
	bt_json_begin_array(j, member);
	for (i = first; any && i <= last; i++) {
		uint64_t low = i, high = i;

		if (kind == BT_SUMMARY_LOG2)
			bt_hist_log2_range(i, &low, &high);
		bt_json_begin_object(j, NULL);
		bt_json_uint(j, "low", low);
		bt_json_uint(j, "high", high);
		bt_json_uint(j, "count", slots[i]);
		bt_json_end_object(j);
	}
	bt_json_end_array(j);
}

void bt_summary__json(const struct bt_summary *s, struct bt_json *j, const char *member,
		      bt_summary_json_fn row_fn, void *ctx)
{
	size_t i;

	bt_json_begin_array(j, member);
	for (i = 0; i < s->nrows; i++) {
		const uint64_t *val = value_of(s, s->rows[i]);

		bt_json_begin_object(j, NULL);
		if (row_fn)
			row_fn(j, key_of(s, s->rows[i]), val, ctx);
		if (s->o.hist != BT_SUMMARY_NONE)
			bt_json_hist(j, "hist", s->o.hist, val + s->o.hist_off, s->o.nslots);
		bt_json_end_object(j);
	}
	bt_json_end_array(j);
}

void bt_summary__json_hists_line(const struct bt_summary *s, FILE *out, const char *val_type,
				 const char *member, bt_summary_json_fn row_fn, void *ctx,
				 const uint64_t *totals)
{
	const uint64_t *first = s->nrows ? value_of(s, s->rows[0]) + s->o.hist_off : NULL;
	struct bt_json j;

	bt_summary_json_begin(&j, out, val_type);
	if (member)
		bt_summary__json(s, &j, member, row_fn, ctx);
	else /* no row: an empty histogram */
		bt_json_hist(&j, "hist", s->o.hist, first, first ? s->o.nslots : 0);
	if (totals) {
		bt_json_uint(&j, "total", totals[0]);
		bt_json_uint(&j, "count", totals[1]);
	}
	bt_summary_json_end(&j);
}

void bt_summary__json_line(const struct bt_summary *s, FILE *out, const char *val_type,
			   const char *member, bt_summary_json_fn row_fn, void *ctx)
{
	struct bt_json j;

	bt_summary_json_begin(&j, out, val_type);
	bt_summary__json(s, &j, member, row_fn, ctx);
	bt_summary_json_end(&j);
}

void bt_summary_json_begin(struct bt_json *j, FILE *out, const char *val_type)
{
	time_t now = time(NULL);
	char ts[32] = "";
	struct tm tm;

	if (localtime_r(&now, &tm))
		strftime(ts, sizeof(ts), "%Y-%m-%d %H:%M:%S", &tm);
	bt_json_line(j, out);
	bt_json_string(j, "ts", ts);
	if (val_type)
		bt_json_string(j, "val_type", val_type);
}

void bt_summary_json_end(struct bt_json *j)
{
	bt_json_end_object(j);
	bt_json_finish(j);
}
