// SPDX-License-Identifier: GPL-2.0
/*
 * lib/kernel/bt_core_btf: the small BTF keeps what each CO-RE relocation reaches (members by name,
 * through anonymous members and flavors, at their target offsets; enums whole; types asked
 * about by name) and nothing else, and refuses what it cannot serve.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/bpf.h>
#include <bpf/btf.h>

#include "bt_core_btf.h"
#include "harness.h"

/* The kernel's side: struct task { int pid; struct inner in; union { long x; int y; }; int unused; } */
static struct btf *target_btf(void)
{
	struct btf *b = btf__new_empty();
	int i32, i64, inner, anon;

	i32 = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
	i64 = btf__add_int(b, "long", 8, BTF_INT_SIGNED);
	inner = btf__add_struct(b, "inner", 16);
	btf__add_field(b, "a", i32, 0, 0);
	btf__add_field(b, "b", i64, 64, 0);
	anon = btf__add_union(b, NULL, 8);
	btf__add_field(b, "x", i64, 0, 0);
	btf__add_field(b, "y", i32, 0, 0);
	btf__add_struct(b, "task", 40);
	btf__add_field(b, "pid", i32, 32, 0);
	btf__add_field(b, "in", inner, 64, 0);
	btf__add_field(b, NULL, anon, 192, 0);
	btf__add_field(b, "unused", i32, 256, 0);
	btf__add_enum(b, "color", 4);
	btf__add_enum_value(b, "RED", 1);
	btf__add_enum_value(b, "GREEN", 2);
	btf__add_struct(b, "lonely", 24); /* named by no relocation */
	return b;
}

struct relos {
	struct btf *local;
	unsigned char ext[1024];
	size_t n;
};

/* The object's side, in another layout, and its .BTF.ext relocations. */
static void local_btf(struct relos *r)
{
	struct btf *b = btf__new_empty();
	int i32, i64, inner;

	i32 = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
	i64 = btf__add_int(b, "long", 8, BTF_INT_SIGNED);
	btf__add_struct(b, "task___v2", 4); /* [3]: pid, by its flavor */
	btf__add_field(b, "pid", i32, 0, 0);
	inner = btf__add_struct(b, "inner", 8); /* [4] */
	btf__add_field(b, "b", i64, 0, 0);
	btf__add_struct(b, "task", 16); /* [5]: in.b and x */
	btf__add_field(b, "in", inner, 0, 0);
	btf__add_field(b, "x", i64, 64, 0);
	btf__add_enum(b, "color", 4); /* [6] */
	btf__add_enum_value(b, "GREEN", 2);
	btf__add_struct(b, "gone", 4); /* [7]: in no kernel */
	r->local = b;
	r->n = 0;
}

static void add_relo(struct relos *r, __u32 type, const char *access, __u32 kind)
{
	struct bpf_core_relo rel = {
		.insn_off = r->n * 8,
		.type_id = type,
		.access_str_off = btf__add_str(r->local, access),
		.kind = kind,
	};
	__u32 hdr[8] = { 0 }, rec = sizeof(rel), sec[2];
	size_t body;

	/* header, record size, one section (name "x"), records */
	r->n++;
	body = 4 + 8 + r->n * sizeof(rel);
	hdr[0] = 0xeB9F | 1 << 16;
	hdr[1] = sizeof(hdr);
	hdr[7] = body;
	memcpy(r->ext, hdr, sizeof(hdr));
	memcpy(r->ext + sizeof(hdr), &rec, 4);
	sec[0] = btf__add_str(r->local, "x");
	sec[1] = r->n;
	memcpy(r->ext + sizeof(hdr) + 4, sec, 8);
	memcpy(r->ext + sizeof(hdr) + 12 + (r->n - 1) * sizeof(rel), &rel, sizeof(rel));
}

static size_t ext_size(const struct relos *r)
{
	return 32 + 12 + r->n * sizeof(struct bpf_core_relo);
}

static const struct btf_type *find(const struct btf *b, const char *name, int kind)
{
	int id = btf__find_by_name_kind(b, name, kind);

	return id > 0 ? btf__type_by_id(b, id) : NULL;
}

static const struct btf_member *member(const struct btf *b, const struct btf_type *t,
				       const char *name)
{
	const struct btf_member *m = btf_members(t);
	int i;

	for (i = 0; i < btf_vlen(t); i++, m++)
		if (!strcmp(btf__name_by_offset(b, m->name_off), name))
			return m;
	return NULL;
}

static void test_fields(void)
{
	struct btf *target = target_btf(), *out;
	const struct btf_type *t, *u;
	const struct btf_member *m;
	struct relos r;

	local_btf(&r);
	add_relo(&r, 3, "0:0", BPF_CORE_FIELD_BYTE_OFFSET);   /* task___v2.pid */
	add_relo(&r, 5, "0:0:0", BPF_CORE_FIELD_BYTE_OFFSET); /* task.in.b */
	add_relo(&r, 5, "0:1", BPF_CORE_FIELD_EXISTS);	      /* task.x, in an anonymous union */
	add_relo(&r, 5, "0:1", BPF_CORE_FIELD_BYTE_SIZE);     /* the same member again */
	add_relo(&r, 6, "0", BPF_CORE_ENUMVAL_VALUE);	      /* color's GREEN */
	add_relo(&r, 7, "0", BPF_CORE_TYPE_EXISTS);	      /* gone: nothing to keep */
	add_relo(&r, 5, "0", BPF_CORE_TYPE_ID_LOCAL);	      /* the object's own: nothing */
	out = bt_core_btf_reduce(r.local, r.ext, ext_size(&r), target);
	CHECK(out != NULL);
	if (!out)
		goto cleanup;
	t = find(out, "task", BTF_KIND_STRUCT);
	CHECK(t != NULL);
	if (t) {
		CHECK_INT(t->size, 40);
		CHECK_INT(btf_vlen(t), 3); /* pid, in, the union; never "unused" */
		m = member(out, t, "pid");
		CHECK(m && m->offset == 32);
		m = member(out, t, "in");
		CHECK(m && m->offset == 64);
		CHECK(!member(out, t, "unused"));
		u = btf__type_by_id(out, btf_members(t)[2].type);
		CHECK(u && btf_is_union(u) && btf_vlen(u) == 1 && u->size == 8);
		if (u && btf_is_union(u) && btf_vlen(u) == 1)
			CHECK_STR(btf__name_by_offset(out, btf_members(u)->name_off), "x");
	}
	t = find(out, "inner", BTF_KIND_STRUCT);
	CHECK(t && t->size == 16 && btf_vlen(t) == 1);
	m = t ? member(out, t, "b") : NULL;
	CHECK(m && m->offset == 64);
	if (m) {
		u = btf__type_by_id(out, m->type);
		CHECK(u && btf_is_int(u) && u->size == 8);
	}
	t = find(out, "color", BTF_KIND_ENUM);
	CHECK(t && btf_vlen(t) == 2); /* every value: libbpf looks them up by name */
	CHECK(!find(out, "lonely", BTF_KIND_STRUCT));
	CHECK(!find(out, "gone", BTF_KIND_STRUCT));
	btf__free(out);
cleanup:
	btf__free(r.local);
	btf__free(target);
}

/* A field no target has: the candidate is left out, so libbpf sees what the whole BTF says. */
static void test_missing_field(void)
{
	struct btf *target = target_btf(), *out;
	struct relos r;
	int id;

	local_btf(&r);
	id = btf__add_struct(r.local, "inner", 4);
	btf__add_field(r.local, "nope", 1, 0, 0);
	add_relo(&r, id, "0:0", BPF_CORE_FIELD_EXISTS);
	out = bt_core_btf_reduce(r.local, r.ext, ext_size(&r), target);
	CHECK(out != NULL);
	CHECK(out && !find(out, "inner", BTF_KIND_STRUCT));
	btf__free(out);
	btf__free(r.local);
	btf__free(target);
}

static void test_refused(void)
{
	struct btf *target = target_btf(), *out;
	struct relos r;

	/* the kernel's own type ids: only the whole BTF has them */
	local_btf(&r);
	add_relo(&r, 5, "0", BPF_CORE_TYPE_ID_TARGET);
	errno = 0;
	out = bt_core_btf_reduce(r.local, r.ext, ext_size(&r), target);
	CHECK(!out && errno == EOPNOTSUPP);
	btf__free(r.local);

	/* a bad access string, a truncated image, a wrong magic */
	local_btf(&r);
	add_relo(&r, 5, "0:9", BPF_CORE_FIELD_BYTE_OFFSET);
	out = bt_core_btf_reduce(r.local, r.ext, ext_size(&r), target);
	CHECK(!out && errno == EINVAL);
	out = bt_core_btf_reduce(r.local, r.ext, ext_size(&r) - 4, target);
	CHECK(!out && errno == EINVAL);
	r.ext[0] = 0;
	out = bt_core_btf_reduce(r.local, r.ext, ext_size(&r), target);
	CHECK(!out && errno == EINVAL);
	btf__free(r.local);
	btf__free(target);
}

int main(void)
{
	BT_RUN(test_fields);
	BT_RUN(test_missing_field);
	BT_RUN(test_refused);
	return bt_test_done();
}
