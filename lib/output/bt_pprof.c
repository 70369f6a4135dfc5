// SPDX-License-Identifier: GPL-2.0
/*
 * profile.proto by hand. Only the wire format's basics are needed: varints, keys
 * (field << 3 | wire type), length-delimited submessages and packed repeated integers. Each
 * table (strings, functions, locations, mappings) is deduplicated through one string-keyed map
 * and encoded as it grows; the profile is assembled at the end and gzipped in one go.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#include "bt_varint.h"
#include "bt_flame_internal.h"
#include "bt_output.h"
#include "bt_pprof.h"
#include "bt_escape.h"

enum { WIRE_VARINT = 0, WIRE_LEN = 2 };

static const char *opt_or(const char *s, const char *def)
{
	return s && *s ? s : def;
}

struct pb {
	uint8_t *b;
	size_t len, cap;
	int err;
};

static void pb_put(struct pb *pb, const void *data, size_t n)
{
	if (pb->err || !n)
		return;
	if (pb->len + n > pb->cap) {
		size_t cap = pb->cap ? pb->cap : 256;
		uint8_t *b;

		while (cap < pb->len + n)
			cap *= 2;
		b = realloc(pb->b, cap);
		if (!b) {
			pb->err = -ENOMEM;
			return;
		}
		pb->b = b;
		pb->cap = cap;
	}
	memcpy(pb->b + pb->len, data, n);
	pb->len += n;
}

static void pb_varint(struct pb *pb, uint64_t v)
{
	uint8_t b[BT_VARINT_MAX];

	pb_put(pb, b, bt_varint_put(v, b));
}

static void pb_key(struct pb *pb, unsigned int field, unsigned int wire)
{
	pb_varint(pb, (uint64_t)field << 3 | wire);
}

/* A varint field; zero is the default and is left out, as protobuf encoders do. */
static void pb_uint(struct pb *pb, unsigned int field, uint64_t v)
{
	if (!v)
		return;
	pb_key(pb, field, WIRE_VARINT);
	pb_varint(pb, v);
}

static void pb_bytes(struct pb *pb, unsigned int field, const void *data, size_t n)
{
	pb_key(pb, field, WIRE_LEN);
	pb_varint(pb, n);
	pb_put(pb, data, n);
}

/* A submessage: sub's bytes as a length-delimited field; sub is emptied for reuse. */
static void pb_msg(struct pb *pb, unsigned int field, struct pb *sub)
{
	if (sub->err && !pb->err)
		pb->err = sub->err;
	pb_bytes(pb, field, sub->b, sub->len);
	sub->len = 0;
}

/* String-keyed map to ids 1.. (0: none), in insertion order. */
struct idmap {
	char **keys;
	uint64_t *ids;
	size_t n, cap; /* slots */
};

static uint64_t str_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

/* The id of key; *fresh tells a new one (id n). 0 when out of memory. */
static uint64_t idmap_get(struct idmap *m, const char *key, bool *fresh)
{
	size_t j;

	*fresh = false;
	if ((m->n + 1) * 2 > m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 256, i;
		char **keys = calloc(cap, sizeof(*keys));
		uint64_t *ids = calloc(cap, sizeof(*ids));

		if (!keys || !ids) {
			free(keys);
			free(ids);
			return 0;
		}
		for (i = 0; i < m->cap; i++) {
			if (!m->keys[i])
				continue;
			j = str_hash(m->keys[i]) & (cap - 1);
			while (keys[j])
				j = (j + 1) & (cap - 1);
			keys[j] = m->keys[i];
			ids[j] = m->ids[i];
		}
		free(m->keys);
		free(m->ids);
		m->keys = keys;
		m->ids = ids;
		m->cap = cap;
	}
	for (j = str_hash(key) & (m->cap - 1); m->keys[j]; j = (j + 1) & (m->cap - 1))
		if (!strcmp(m->keys[j], key))
			return m->ids[j];
	m->keys[j] = strdup(key);
	if (!m->keys[j])
		return 0;
	m->ids[j] = ++m->n;
	*fresh = true;
	return m->ids[j];
}

static void idmap_free(struct idmap *m)
{
	size_t i;

	for (i = 0; i < m->cap; i++)
		free(m->keys[i]);
	free(m->keys);
	free(m->ids);
}

struct enc {
	struct idmap strs, funcs, locs, maps;
	struct pb strtab, functions, locations, mappings, samples, sub, sub2;
	uint64_t scale;	 /* the first value: the profile's times this */
	uint64_t scale2; /* a second value per sample, the profile's times this; 0: none */
	int err;
};

/* The string table index of s; the table starts with "" (index 0). */
static int64_t str_index(struct enc *e, const char *s)
{
	bool fresh;
	uint64_t id;

	if (!*s)
		return 0;
	id = idmap_get(&e->strs, s, &fresh);
	if (!id) {
		e->err = -ENOMEM;
		return 0;
	}
	if (fresh) {
		size_t len = strlen(s);
		char *esc;

		/* names from the traced side or a folded file: no control byte reaches a viewer */
		if (!bt_escape_needed(s, len, 0)) {
			pb_bytes(&e->strtab, 6, s, len);
		} else if ((esc = malloc(BT_ESC_SIZE(len)))) {
			pb_bytes(&e->strtab, 6, esc, bt_escape(esc, BT_ESC_SIZE(len), s, len, 0));
			free(esc);
		} else {
			e->err = -ENOMEM;
		}
	}
	return id; /* "" holds index 0, so the nth string added is index n */
}

static char *key3(const char *a, const char *b, unsigned int c)
{
	char *k;

	return asprintf(&k, "%s\x1f%s\x1f%u", a, b ? b : "", c) < 0 ? NULL : k;
}

static uint64_t mapping_id(struct enc *e, const char *module)
{
	uint64_t id;
	bool fresh;

	id = idmap_get(&e->maps, module, &fresh);
	if (!id) {
		e->err = -ENOMEM;
		return 0;
	}
	if (fresh) {
		/* Mapping: 1 id, 5 filename, 7 has_functions (names are already resolved) */
		pb_uint(&e->sub, 1, id);
		pb_uint(&e->sub, 5, str_index(e, module));
		pb_uint(&e->sub, 7, 1);
		pb_msg(&e->mappings, 3, &e->sub);
	}
	return id;
}

/*
 * A frame's Location and its Function, each written once. An interpreted function's frame (a
 * Python function, n->file set) is func in its source file, its Location a Line at n->line
 * with no Mapping (no binary holds it): one Location per function and line.
 */
static uint64_t location_id(struct enc *e, const struct bt_prof_node *n)
{
	bool src = n->file && n->func, fresh;
	const char *func = src ? n->func : n->name, *file = src ? n->file : n->module;
	uint64_t fid, lid, mid = 0;
	char *k;

	if (!file && n->kind == BT_PROF_KERNEL)
		file = "[kernel.kallsyms]";
	/* two functions of one name in one file (nested, redefined) differ by where they start */
	k = key3(func, file, src ? BT_PROF_NKINDS + n->start_line : 0);
	fid = k ? idmap_get(&e->funcs, k, &fresh) : 0;
	free(k);
	if (!fid) {
		e->err = -ENOMEM;
		return 0;
	}
	if (fresh) {
		/* Function: 1 id, 2 name, 3 system_name, 4 filename, 5 start_line */
		int64_t name = str_index(e, func);

		pb_uint(&e->sub, 1, fid);
		pb_uint(&e->sub, 2, name);
		pb_uint(&e->sub, 3, name);
		pb_uint(&e->sub, 4, file ? str_index(e, file) : 0);
		if (src)
			pb_uint(&e->sub, 5, n->start_line);
		pb_msg(&e->functions, 5, &e->sub);
	}
	k = key3(n->name, file, src ? BT_PROF_NKINDS + 1 + n->line : n->kind);
	lid = k ? idmap_get(&e->locs, k, &fresh) : 0;
	free(k);
	if (!lid) {
		e->err = -ENOMEM;
		return 0;
	}
	if (fresh) {
		/*
		 * pprof takes the first Mapping for the profiled binary: the kernel, named only
		 * for its functions' file, gets none; nor does a source file
		 */
		if (n->module && !src)
			mid = mapping_id(e, n->module);
		/* Location: 1 id, 2 mapping_id, 4 line { 1 function_id, 2 line } */
		pb_uint(&e->sub, 1, lid);
		pb_uint(&e->sub, 2, mid);
		pb_uint(&e->sub2, 1, fid);
		if (src)
			pb_uint(&e->sub2, 2, n->line);
		pb_msg(&e->sub, 4, &e->sub2);
		pb_msg(&e->locations, 4, &e->sub);
	}
	return lid;
}

/*
 * A Sample: 1 location_id (ids, packed, leaf first), 2 value (packed: value, and its scaled
 * twin), 3 label { 1 key, 2 str, 3 num } for each label of l (NULL: none).
 */
static void put_sample(struct enc *e, const struct pb *ids, uint64_t value,
		       const struct bt_prof_sample *l)
{
	struct pb v = { 0 };
	const char *key, *str;
	size_t pos = 0;
	int64_t num;

	pb_bytes(&e->sub, 1, ids->b, ids->len);
	pb_varint(&v, value * e->scale);
	if (e->scale2)
		pb_varint(&v, value * e->scale2);
	if (v.err)
		e->err = v.err;
	pb_bytes(&e->sub, 2, v.b, v.len);
	free(v.b);
	while (l && bt_prof__label(l, &pos, &key, &str, &num)) {
		pb_uint(&e->sub2, 1, str_index(e, key));
		if (str)
			pb_uint(&e->sub2, 2, str_index(e, str));
		else
			pb_uint(&e->sub2, 3, (uint64_t)num);
		pb_msg(&e->sub, 3, &e->sub2);
	}
	pb_msg(&e->samples, 2, &e->sub);
}

/*
 * Locations for n and its subtree, then Samples for each node where stacks end: one per label
 * set, and one without labels for the rest.
 */
static void encode_node(struct enc *e, struct bt_prof_node *n, bool root)
{
	struct bt_prof_node *c, *a;
	struct bt_prof_sample *l;

	if (!root)
		n->id = location_id(e, n);
	if (!root && n->self) {
		struct pb ids = { 0 };
		uint64_t rest = n->self;

		for (a = n; a->parent; a = a->parent)
			pb_varint(&ids, a->id);
		if (ids.err)
			e->err = ids.err;
		for (l = n->samples; l; l = l->next) {
			put_sample(e, &ids, l->value, l);
			rest -= l->value;
		}
		if (rest)
			put_sample(e, &ids, rest, NULL);
		free(ids.b);
	}
	for (c = n->child; c && !e->err; c = c->next)
		encode_node(e, c, false);
}

static int gzip_out(const struct pb *pb, FILE *out)
{
	uint8_t buf[16384];
	z_stream zs = { 0 };
	int err = 0, zr;

	/* windowBits 15 + 16: a gzip header and trailer instead of zlib's */
	if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
	    Z_OK)
		return -ENOMEM;
	zs.next_in = pb->b;
	zs.avail_in = pb->len;
	do {
		zs.next_out = buf;
		zs.avail_out = sizeof(buf);
		zr = deflate(&zs, Z_FINISH);
		if (zr == Z_STREAM_ERROR) {
			err = -EIO;
			break;
		}
		if (fwrite(buf, 1, sizeof(buf) - zs.avail_out, out) != sizeof(buf) - zs.avail_out) {
			err = bt_output_flush(out) ?: -EIO;
			break;
		}
	} while (zr != Z_STREAM_END);
	deflateEnd(&zs);
	if (!err)
		err = bt_output_flush(out);
	return err;
}

int bt_pprof_write(const struct bt_profile *p, FILE *out)
{
	struct enc e = { 0 };
	struct pb prof = { 0 };
	struct timespec now;
	int err;

	pb_bytes(&e.strtab, 6, "", 0);
	e.scale = p->opts.value_scale ? p->opts.value_scale : 1;
	/* sample_type { 1 type, 2 unit }, and period_type the same */
	pb_uint(&e.sub, 1, str_index(&e, opt_or(p->opts.sample_type, "samples")));
	pb_uint(&e.sub, 2, str_index(&e, opt_or(p->opts.unit, "count")));
	pb_msg(&prof, 1, &e.sub);
	if (p->opts.sample_type2) {
		pb_uint(&e.sub, 1, str_index(&e, p->opts.sample_type2));
		pb_uint(&e.sub, 2, str_index(&e, opt_or(p->opts.unit2, "count")));
		pb_msg(&prof, 1, &e.sub);
		e.scale2 = p->opts.value2_scale ? p->opts.value2_scale : 1;
	}
	/* The tree's own root is "all", not a frame: samples start at its children. */
	encode_node(&e, (struct bt_prof_node *)&p->root, true);
	pb_put(&prof, e.samples.b, e.samples.len);
	pb_put(&prof, e.mappings.b, e.mappings.len);
	pb_put(&prof, e.locations.b, e.locations.len);
	pb_put(&prof, e.functions.b, e.functions.len);
	pb_put(&prof, e.strtab.b, e.strtab.len);
	clock_gettime(CLOCK_REALTIME, &now);
	pb_uint(&prof, 9, (uint64_t)now.tv_sec * 1000000000ULL + now.tv_nsec); /* time_nanos */

	err = e.err;
	if (!err)
		err = e.strtab.err ?: e.functions.err ?: e.locations.err ?: e.mappings.err ?:
			e.samples.err ?: e.sub.err ?: e.sub2.err ?: prof.err;
	if (!err)
		err = gzip_out(&prof, out);
	idmap_free(&e.strs);
	idmap_free(&e.funcs);
	idmap_free(&e.locs);
	idmap_free(&e.maps);
	free(e.strtab.b);
	free(e.functions.b);
	free(e.locations.b);
	free(e.mappings.b);
	free(e.samples.b);
	free(e.sub.b);
	free(e.sub2.b);
	free(prof.b);
	return err;
}

int bt_pprof_from_folded(FILE *folded, FILE *out, const struct bt_profile_opts *opts)
{
	struct bt_profile *p = bt_profile_new(opts);
	int err;

	if (!p)
		return -ENOMEM;
	err = bt_profile_read_folded(p, folded);
	if (err >= 0)
		err = bt_pprof_write(p, out);
	bt_profile_free(p);
	return err;
}
