// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "bt_env.h"
#include "bt_err.h"
#include "bt_json.h"
#include "bt_stack_table.h"
#include "bt_varint.h"
#include "bt_summary.h"

/* The pieces' bytes come in chunks of this size; a longer piece has a chunk of its own. */
#define CHUNK (64 * 1024)

struct bt_stack_piece {
	const char *s;
	uint32_t len, hash;
};

/* 16 bytes: the row's hash is its codes', computed again where the row hash grows */
struct bt_stack_keep {
	unsigned long long value;
	uint32_t first, len; /* its ids' codes: t->codes[first .. first + len) */
};

/* FNV-1a, folded to 32 bits: of a piece's bytes, and of a row's piece ids' codes. */
static uint32_t fold(uint64_t h)
{
	return (uint32_t)(h ^ (h >> 32));
}

static uint32_t hash_text(const char *s, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	while (n--) {
		h ^= (unsigned char)*s++;
		h *= 0x100000001b3ULL;
	}
	return fold(h);
}

/* Room for want elements of size in *v (capacity *cap, doubled). 0 or -ENOMEM. */
static int reserve(void **v, size_t *cap, size_t want, size_t size, size_t first)
{
	size_t c = *cap ? *cap : first;
	void *nv;

	if (want <= *cap)
		return 0;
	while (c < want)
		c *= 2;
	nv = realloc(*v, c * size);
	if (!nv)
		return -ENOMEM;
	*v = nv;
	*cap = c;
	return 0;
}

/* The cap of a table that has none of its own: BPFTOOLS_STACK_ROWS, else the default. */
static size_t max_rows(void)
{
	static bool warned;
	const char *v = bt_env_value("BPFTOOLS_STACK_ROWS");
	char *end = NULL;
	unsigned long n;

	if (!v)
		return BT_STACK_TABLE_MAX_ROWS;
	errno = 0;
	n = strtoul(v, &end, 10);
	if (!errno && end != v && !*end && *v != '-' && n && n <= UINT32_MAX - 1)
		return n;
	/* a typo must not pass for the default unseen; said once, not per table */
	if (!warned)
		bt_warn("BPFTOOLS_STACK_ROWS='%s' is not a number of rows from 1 to %u: %d kept", v,
			UINT32_MAX - 1, BT_STACK_TABLE_MAX_ROWS);
	warned = true;
	return BT_STACK_TABLE_MAX_ROWS;
}

/*
 * What the rows kept take, as they are used (not the arrays' room, whose pages past the used
 * part are never touched): the cap of bytes is measured against it.
 */
static size_t held_bytes(const struct bt_stack_table *t)
{
	return t->n * sizeof(*t->rows) + t->ncodes + t->row_nslots * sizeof(*t->row_slots) +
	       t->npieces * sizeof(*t->pieces) + t->piece_nslots * sizeof(*t->piece_slots) +
	       t->chunk_bytes - (t->chunk ? CHUNK - t->chunk_used : 0);
}

FILE *bt_stack_table__begin(struct bt_stack_table *t)
{
	if (!t->max_rows)
		t->max_rows = max_rows();
	if (!t->max_bytes) {
		t->max_bytes = BT_STACK_TABLE_MAX_BYTES;
		if (t->max_rows > t->max_bytes / BT_STACK_TABLE_ROW_BYTES)
			t->max_bytes = t->max_rows > SIZE_MAX / BT_STACK_TABLE_ROW_BYTES
					       ? SIZE_MAX
					       : t->max_rows * BT_STACK_TABLE_ROW_BYTES;
	}
	/*
	 * One stream for every row, rewound: a stream per row (open_memstream) starts with an
	 * 8 KiB buffer cut to the text at close, and each row kept left a hole of ~8 KiB beside it
	 * that no later buffer fitted: 144 MiB after 14,000 rows of a 30-minute soak.
	 */
	if (!t->cur) {
		t->cur = open_memstream(&t->cur_buf, &t->cur_len);
		if (!t->cur)
			return NULL;
	} else if (fseeko(t->cur, 0, SEEK_SET)) {
		return NULL;
	}
	clearerr(t->cur);
	t->begun = true;
	return t->cur;
}

/* A piece's id, 0 when it is not interned. */
static uint32_t piece_find(const struct bt_stack_table *t, const char *s, uint32_t len,
			   uint32_t hash)
{
	size_t mask = t->piece_nslots - 1, i;

	if (!t->piece_nslots)
		return 0;
	for (i = hash & mask; t->piece_slots[i]; i = (i + 1) & mask) {
		const struct bt_stack_piece *p = &t->pieces[t->piece_slots[i] - 1];

		if (p->hash == hash && p->len == len && !memcmp(p->s, s, len))
			return t->piece_slots[i];
	}
	return 0;
}

/* Slots of 32-bit ids, 0 empty, rehashed to twice the count, by each id's hash. */
static int rehash(uint32_t **slots, size_t *nslots, size_t count, const void *ctx,
		  uint32_t (*hash_of)(const void *ctx, uint32_t id))
{
	size_t n = *nslots ? *nslots : 256, i, mask;
	uint32_t *s;

	/* at most half full: probes stay short */
	if (2 * (count + 1) <= *nslots)
		return 0;
	while (2 * (count + 1) > n)
		n *= 2;
	s = calloc(n, sizeof(*s));
	if (!s)
		return -ENOMEM;
	mask = n - 1;
	for (i = 0; i < *nslots; i++) {
		uint32_t id = (*slots)[i];
		size_t j;

		if (!id)
			continue;
		for (j = hash_of(ctx, id) & mask; s[j]; j = (j + 1) & mask)
			;
		s[j] = id;
	}
	free(*slots);
	*slots = s;
	*nslots = n;
	return 0;
}

static uint32_t piece_hash(const void *ctx, uint32_t id)
{
	return ((const struct bt_stack_table *)ctx)->pieces[id - 1].hash;
}

static uint32_t row_hash(const void *ctx, uint32_t idx)
{
	const struct bt_stack_table *t = ctx;
	const struct bt_stack_keep *r = &t->rows[idx - 1];

	return hash_text((const char *)t->codes + r->first, r->len);
}

/* len bytes kept for good: in the current chunk, a new one, or one of their own. */
static char *chunk_alloc(struct bt_stack_table *t, size_t len)
{
	size_t size = len > CHUNK / 4 ? len : CHUNK;
	char *c;

	if (t->chunk && len <= CHUNK - t->chunk_used) {
		c = t->chunk + t->chunk_used;
		t->chunk_used += len;
		return c;
	}
	if (reserve((void **)&t->chunks, &t->chunks_cap, t->nchunks + 1, sizeof(*t->chunks), 16))
		return NULL;
	c = malloc(size ? size : 1);
	if (!c)
		return NULL;
	t->chunks[t->nchunks++] = c;
	t->chunk_bytes += size;
	if (size == CHUNK) {
		t->chunk = c;
		t->chunk_used = len;
	}
	return c;
}

/* The id of a piece, interned now if it was not. 0: out of memory. */
static uint32_t piece_add(struct bt_stack_table *t, const char *s, uint32_t len, uint32_t hash)
{
	uint32_t id = piece_find(t, s, len, hash);
	struct bt_stack_piece *p;
	size_t mask, i;
	char *copy;

	if (id)
		return id;
	if (t->npieces >= UINT32_MAX - 1 ||
	    reserve((void **)&t->pieces, &t->pieces_cap, t->npieces + 1, sizeof(*t->pieces), 256) ||
	    rehash(&t->piece_slots, &t->piece_nslots, t->npieces, t, piece_hash))
		return 0;
	copy = chunk_alloc(t, len);
	if (!copy)
		return 0;
	memcpy(copy, s, len);
	p = &t->pieces[t->npieces++];
	*p = (struct bt_stack_piece){ copy, len, hash };
	id = (uint32_t)t->npieces;
	mask = t->piece_nslots - 1;
	for (i = hash & mask; t->piece_slots[i]; i = (i + 1) & mask)
		;
	t->piece_slots[i] = id;
	return id;
}

/*
 * Where text's pieces end, into t->cut: after each ';' (a folded frame), '\n' (a block's
 * line) and ',' (a JSON member), so that a frame is a piece whatever the form. The count,
 * or -ENOMEM.
 */
static long cut(struct bt_stack_table *t, const char *text, size_t len)
{
	size_t i, n = 0;

	for (i = 0; i < len; i++) {
		if (text[i] != ';' && text[i] != '\n' && text[i] != ',' && i + 1 < len)
			continue;
		if (reserve((void **)&t->cut, &t->cut_cap, n + 1, sizeof(*t->cut), 64))
			return -ENOMEM;
		t->cut[n++] = (uint32_t)(i + 1);
	}
	return (long)n;
}

/* The row of these pieces (their codes: len bytes), as index + 1; 0 when none. */
static uint32_t row_find(const struct bt_stack_table *t, const uint8_t *code, uint32_t len,
			 uint32_t hash)
{
	size_t mask = t->row_nslots - 1, i;

	if (!t->row_nslots)
		return 0;
	for (i = hash & mask; t->row_slots[i]; i = (i + 1) & mask) {
		const struct bt_stack_keep *r = &t->rows[t->row_slots[i] - 1];

		if (r->len == len && !memcmp(&t->codes[r->first], code, len))
			return t->row_slots[i];
	}
	return 0;
}

/*
 * ids[0..n) as codes after the rows' (not kept until the row is): their bytes, or -ENOMEM.
 * A varint each: a table of a few thousand pieces takes 2 bytes an id where 32-bit ids took
 * 4, and the ids were most of what a kept row cost under churn (docs/offcputime.md, "Rows").
 */
static long encode_row(struct bt_stack_table *t, const uint32_t *ids, size_t n)
{
	size_t i, len = 0;

	if (reserve((void **)&t->codes, &t->codes_cap, t->ncodes + 5 * n, 1, 4096))
		return -ENOMEM;
	for (i = 0; i < n; i++)
		len += bt_varint_put(ids[i], t->codes + t->ncodes + len);
	return (long)len;
}

int bt_stack_table__end(struct bt_stack_table *t, unsigned long long value)
{
	size_t mask, i;
	bool known = true;
	uint32_t *ids, hash, idx;
	off_t len;
	long n, clen;

	if (!t->cur || !t->begun)
		return -EINVAL;
	t->begun = false;
	/* the row's bytes are the stream's from its start up to where it is now */
	if (fflush(t->cur) || ferror(t->cur) || (len = ftello(t->cur)) < 0 || len > UINT32_MAX)
		return -ENOMEM;
	n = cut(t, t->cur_buf, (size_t)len);
	if (n < 0 || reserve((void **)&t->ids, &t->ids_cap, n, sizeof(*t->ids), 256))
		return -ENOMEM;
	/* looked up first, interning nothing: a row past the cap leaves no piece behind */
	ids = t->ids;
	for (i = 0; i < (size_t)n; i++) {
		uint32_t from = i ? t->cut[i - 1] : 0, plen = t->cut[i] - from;

		ids[i] = piece_find(t, t->cur_buf + from, plen, hash_text(t->cur_buf + from, plen));
		known &= ids[i] != 0;
	}
	/* a row of known pieces is encoded and hashed once: found, or kept as it is */
	clen = known ? encode_row(t, ids, n) : 0;
	if (clen < 0)
		return -ENOMEM;
	hash = known ? hash_text((const char *)t->codes + t->ncodes, (size_t)clen) : 0;
	idx = known ? row_find(t, t->codes + t->ncodes, (uint32_t)clen, hash) : 0;
	if (idx) {
		t->rows[idx - 1].value += value;
		return 0;
	}
	/* past the cap of rows or of bytes, or past the 4 GiB a row's offset reaches */
	if (t->n >= t->max_rows || held_bytes(t) >= t->max_bytes ||
	    t->ncodes + 5 * (size_t)n > UINT32_MAX) {
		t->other_rows++;
		t->other_value += value;
		return 1;
	}
	for (i = 0; !known && i < (size_t)n; i++) {
		uint32_t from = i ? t->cut[i - 1] : 0, plen = t->cut[i] - from;

		if (!ids[i])
			ids[i] = piece_add(t, t->cur_buf + from, plen,
					   hash_text(t->cur_buf + from, plen));
		if (!ids[i])
			return -ENOMEM;
	}
	if (!known) {
		clen = encode_row(t, ids, n);
		if (clen < 0)
			return -ENOMEM;
		hash = hash_text((const char *)t->codes + t->ncodes, (size_t)clen);
	}
	if (reserve((void **)&t->rows, &t->cap, t->n + 1, sizeof(*t->rows), 256) ||
	    rehash(&t->row_slots, &t->row_nslots, t->n, t, row_hash))
		return -ENOMEM;
	t->rows[t->n++] = (struct bt_stack_keep){ value, (uint32_t)t->ncodes, (uint32_t)clen };
	t->ncodes += clen;
	mask = t->row_nslots - 1;
	for (i = hash & mask; t->row_slots[i]; i = (i + 1) & mask)
		;
	t->row_slots[i] = (uint32_t)t->n;
	return 0;
}

int bt_stack_table__other(struct bt_stack_table *t, const char *text)
{
	char *copy = strdup(text);

	if (!copy)
		return -ENOMEM;
	free(t->other_text);
	t->other_text = copy;
	return 0;
}

/* A row's text read a byte at a time, across its pieces ([other]: one string). */
struct cursor {
	const struct bt_stack_table *t;
	const uint8_t *code, *end; /* the codes of the pieces not read yet */
	const char *p;
	size_t left;
};

static struct cursor cursor_of(const struct bt_stack_table *t, size_t row)
{
	struct cursor c = { t, NULL, NULL, "", 0 };

	if (row < t->n) {
		c.code = t->codes + t->rows[row].first;
		c.end = c.code + t->rows[row].len;
	} else if (t->other_text) {
		c.p = t->other_text;
		c.left = strlen(c.p);
	}
	return c;
}

/* The next byte, or -1 at the end. */
static int cursor_next(struct cursor *c)
{
	while (!c->left && c->code < c->end) {
		uint64_t id = bt_varint_get(&c->code, c->end);
		const struct bt_stack_piece *p;

		if (!id || id > c->t->npieces)
			return -1; /* not written by bt_varint_put: never */
		p = &c->t->pieces[id - 1];
		c->p = p->s;
		c->left = p->len;
	}
	if (!c->left)
		return -1;
	c->left--;
	return (unsigned char)*c->p++;
}

/* strcmp() of two rows' texts, a piece shared at the same place skipped whole. */
static int cmp_text(const struct bt_stack_table *t, size_t a, size_t b)
{
	struct cursor x = cursor_of(t, a), y = cursor_of(t, b);
	const uint8_t *xn, *yn;
	int cx, cy;

	for (;;) {
		xn = x.code;
		yn = y.code;
		/* alike codes are alike ids: the same piece, skipped whole */
		if (!x.left && !y.left && xn < x.end && yn < y.end &&
		    bt_varint_get(&xn, x.end) == bt_varint_get(&yn, y.end) &&
		    xn - x.code == yn - y.code) {
			x.code = xn;
			y.code = yn;
			continue;
		}
		cx = cursor_next(&x);
		cy = cursor_next(&y);
		if (cx != cy)
			return cx < cy ? -1 : 1;
		if (cx < 0)
			return 0;
	}
}

struct sort_ent {
	const struct bt_stack_table *t;
	unsigned long long value;
	size_t row;
};

static int cmp_value(const void *a, const void *b)
{
	const struct sort_ent *x = a, *y = b;

	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	return cmp_text(x->t, x->row, y->row);
}

int bt_stack_table__sort(struct bt_stack_table *t)
{
	size_t i, n = t->n + (t->other_rows && t->other_text);
	struct sort_ent *e;
	size_t *order;

	t->norder = 0;
	if (!n)
		return 0; /* no rows yet: qsort() must not be handed their NULL */
	e = malloc(n * sizeof(*e));
	order = realloc(t->order, n * sizeof(*order));
	if (!e || !order) {
		free(e);
		if (order)
			t->order = order;
		return -ENOMEM;
	}
	t->order = order;
	for (i = 0; i < n; i++)
		e[i] = (struct sort_ent){ t, i < t->n ? t->rows[i].value : t->other_value, i };
	qsort(e, n, sizeof(*e), cmp_value);
	for (i = 0; i < n; i++)
		t->order[i] = e[i].row;
	t->norder = n;
	free(e);
	return 0;
}

size_t bt_stack_table__count(const struct bt_stack_table *t)
{
	return t->norder;
}

int bt_stack_table__row(struct bt_stack_table *t, size_t i, struct bt_stack_row *r)
{
	struct cursor c;
	size_t len = 0, row;
	int ch;

	if (i >= t->norder)
		return -ENOENT;
	row = t->order[i];
	if (row >= t->n) {
		*r = (struct bt_stack_row){ t->other_text, t->other_value };
		return 0;
	}
	/* a piece at a time: its first byte read, the rest skipped */
	for (c = cursor_of(t, row); cursor_next(&c) >= 0; c.left = 0)
		len += c.left + 1;
	if (reserve((void **)&t->text, &t->text_cap, len + 1, 1, 256))
		return -ENOMEM;
	len = 0;
	for (c = cursor_of(t, row); (ch = cursor_next(&c)) >= 0;)
		t->text[len++] = (char)ch;
	t->text[len] = '\0';
	*r = (struct bt_stack_row){ t->text, t->rows[row].value };
	return 0;
}

void bt_stack_table__report(const struct bt_stack_table *t)
{
	if (t->other_rows)
		bt_warn("%llu rows past the cap of %zu rows or %zu KiB printed as one [other] "
			"row (BPFTOOLS_STACK_ROWS raises it)",
			t->other_rows, t->max_rows, t->max_bytes >> 10);
}

size_t bt_stack_table__bytes(const struct bt_stack_table *t)
{
	return t->cap * sizeof(*t->rows) + t->ids_cap * sizeof(*t->ids) + t->codes_cap +
	       t->row_nslots * sizeof(*t->row_slots) + t->pieces_cap * sizeof(*t->pieces) +
	       t->piece_nslots * sizeof(*t->piece_slots) + t->chunk_bytes;
}

void bt_stack_table__clear(struct bt_stack_table *t)
{
	size_t i;

	t->n = t->ncodes = t->npieces = t->norder = 0;
	t->other_rows = t->other_value = 0;
	if (t->row_slots)
		memset(t->row_slots, 0, t->row_nslots * sizeof(*t->row_slots));
	if (t->piece_slots)
		memset(t->piece_slots, 0, t->piece_nslots * sizeof(*t->piece_slots));
	/* the pieces of the next interval's rows are not this one's */
	for (i = 0; i < t->nchunks; i++)
		free(t->chunks[i]);
	t->nchunks = t->chunk_bytes = t->chunk_used = 0;
	t->chunk = NULL;
}

void bt_stack_table__free(struct bt_stack_table *t)
{
	if (!t)
		return;
	bt_stack_table__clear(t);
	if (t->cur)
		fclose(t->cur);
	free(t->cur_buf);
	free(t->rows);
	free(t->ids);
	free(t->codes);
	free(t->row_slots);
	free(t->pieces);
	free(t->piece_slots);
	free(t->chunks);
	free(t->cut);
	free(t->order);
	free(t->text);
	free(t->other_text);
	memset(t, 0, sizeof(*t));
}

void bt_stack_row__json(const struct bt_stack_row *r, const char *name, FILE *out)
{
	const char *rest = r->text[0] == '{' ? r->text + 1 : r->text;

	/* the object's other members follow, "}" included */
	fprintf(out, "{\"%s\": %llu%s%s\n", name, r->value, rest[0] == '}' ? "" : ", ", rest);
}

int bt_stack_table__json_line(struct bt_stack_table *t, FILE *out, const char *val_type,
			      const char *member, const char *name)
{
	struct bt_stack_row r;
	struct bt_json j;
	int err = 0;
	size_t i;

	bt_summary_json_begin(&j, out, val_type);
	bt_json_begin_array(&j, member);
	for (i = 0; i < bt_stack_table__count(t) && !err; i++) {
		char *obj = NULL;

		err = bt_stack_table__row(t, i, &r);
		/* the row's text is a whole object: the value goes in as its first member */
		if (!err && asprintf(&obj, "{\"%s\": %llu, %s", name, r.value, r.text + 1) < 0)
			err = -ENOMEM;
		if (!err)
			bt_json_raw(&j, NULL, obj);
		free(obj);
	}
	bt_json_end_array(&j);
	bt_summary_json_end(&j);
	return err;
}
