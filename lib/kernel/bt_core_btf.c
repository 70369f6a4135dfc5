// SPDX-License-Identifier: GPL-2.0
/*
 * A small BTF for an object's CO-RE relocations (lib/kernel/bt_core_btf.h). What libbpf 1.1 looks at
 * when it relocates, and so what the copy keeps:
 * - candidates: target types of the local type's kind (any enum for an enum) whose name
 *   without a ___flavor suffix is the local one's;
 * - field relocations: each named member on the access path, found by name in the target
 *   struct or union, through anonymous members; array steps need the array type; the last
 *   member's type (an integer's size and encoding, an enum's name, a bitfield's bits);
 * - type relocations (exists, size): the type's kind, name and size, not its members;
 * - enum value relocations: the enum's values.
 * Pointers keep no pointee: a field's pointer type only has to be a pointer. Typedefs and
 * modifiers inside members are resolved away; libbpf skips them anyway.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <sys/stat.h>

#include "bt_btf_ids.h"
#include "bt_core_btf.h"
#include "bt_env.h"
#include "bt_err.h"
#include "bt_kernel.h"
#include "bt_vmlinux_btf.h"

struct btf_ext_hdr { /* the .BTF.ext header up to its CO-RE part (libbpf's btf_ext_header) */
	__u16 magic;
	__u8 version;
	__u8 flags;
	__u32 hdr_len;
	__u32 func_info_off, func_info_len;
	__u32 line_info_off, line_info_len;
	__u32 core_relo_off, core_relo_len;
};

struct access {		  /* one named member or one array index of a local access path */
	const char *name; /* NULL: an array step */
};

struct reducer {
	const struct btf *local, *target;
	struct btf *out;
	__u32 ntarget;
	int *map;    /* target id -> id in out, 0 not yet */
	__u64 *keep; /* (target composite id << 16 | member index), sorted before emission */
	size_t nkeep, capkeep;
	__u32 *roots; /* target ids emitted whole-type (candidates of type/enum relocations) */
	size_t nroots, caproots;
};

static size_t essential_len(const char *name)
{
	size_t n = strlen(name);
	int i;

	for (i = (int)n - 5; i >= 0; i--)
		if (name[i] != '_' && name[i + 1] == '_' && name[i + 2] == '_' &&
		    name[i + 3] == '_' && name[i + 4] != '_')
			return i + 1;
	return n;
}

static bool same_essential(const char *a, const char *b)
{
	size_t n = essential_len(a);

	return n == essential_len(b) && !strncmp(a, b, n);
}

static __u32 skip_mods(const struct btf *btf, __u32 id)
{
	const struct btf_type *t = btf__type_by_id(btf, id);

	while (t && (btf_is_mod(t) || btf_is_typedef(t))) {
		id = t->type;
		t = btf__type_by_id(btf, id);
	}
	return id;
}

static int push(void **v, size_t *n, size_t *cap, size_t elem, const void *x)
{
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 64;
		void *p = realloc(*v, c * elem);

		if (!p)
			return -ENOMEM;
		*v = p;
		*cap = c;
	}
	memcpy((char *)*v + *n * elem, x, elem);
	(*n)++;
	return 0;
}

static int keep_member(struct reducer *r, __u32 id, __u32 idx)
{
	__u64 k = (__u64)id << 16 | idx;

	return push((void **)&r->keep, &r->nkeep, &r->capkeep, sizeof(k), &k);
}

static int keep_root(struct reducer *r, __u32 id)
{
	return push((void **)&r->roots, &r->nroots, &r->caproots, sizeof(id), &id);
}

/* Find member 'name' of composite id, through anonymous members, marking the way. 1 found. */
static int find_member(struct reducer *r, __u32 id, const char *name, __u32 *type)
{
	const struct btf_type *t = btf__type_by_id(r->target, id);
	const struct btf_member *m;
	int i, found, err;

	if (!t || !btf_is_composite(t))
		return 0;
	m = btf_members(t);
	for (i = 0; i < btf_vlen(t); i++, m++) {
		const char *mn = btf__name_by_offset(r->target, m->name_off);

		if (mn && *mn) {
			if (!same_essential(mn, name))
				continue;
			err = keep_member(r, id, i);
			if (err)
				return err;
			*type = m->type;
			return 1;
		}
		found = find_member(r, skip_mods(r->target, m->type), name, type);
		if (found < 0)
			return found;
		if (found) {
			err = keep_member(r, id, i);
			return err ? err : 1;
		}
	}
	return 0;
}

/* The named steps and array steps of a local access string ("0:2:1"), as libbpf parses it. */
static int parse_access(const struct btf *local, __u32 root, const char *spec, struct access *acc,
			int max)
{
	__u32 id = skip_mods(local, root);
	int n = 0;
	char *end;

	if (strtoul(spec, &end, 10), *end != ':' && *end) /* the first index: on the root */
		return -EINVAL;
	for (spec = end; *spec == ':'; spec = end) {
		const struct btf_type *t = btf__type_by_id(local, id);
		unsigned long idx = strtoul(spec + 1, &end, 10);

		if (!t || n == max)
			return -EINVAL;
		if (btf_is_composite(t)) {
			const struct btf_member *m = btf_members(t) + idx;
			const char *name;

			if (idx >= btf_vlen(t))
				return -EINVAL;
			name = btf__name_by_offset(local, m->name_off);
			if (name && *name)
				acc[n++].name = name;
			id = skip_mods(local, m->type);
		} else if (btf_is_array(t)) {
			acc[n++].name = NULL;
			id = skip_mods(local, btf_array(t)->type);
		} else {
			return -EINVAL;
		}
	}
	return *spec ? -EINVAL : n;
}

/* Walk the path in candidate cand; marks stay even when it does not match: harmless. */
static int walk(struct reducer *r, __u32 cand, const struct access *acc, int n)
{
	__u32 id = skip_mods(r->target, cand), type;
	int i, found;

	for (i = 0; i < n; i++) {
		const struct btf_type *t = btf__type_by_id(r->target, id);

		if (!acc[i].name) {
			if (!t || !btf_is_array(t))
				return 0;
			id = skip_mods(r->target, btf_array(t)->type);
			continue;
		}
		found = find_member(r, id, acc[i].name, &type);
		if (found <= 0)
			return found;
		id = skip_mods(r->target, type);
	}
	return 1;
}

static bool kinds_compatible(const struct btf_type *a, const struct btf_type *b)
{
	return btf_kind(a) == btf_kind(b) ||
	       ((btf_is_enum(a) || btf_is_enum64(a)) && (btf_is_enum(b) || btf_is_enum64(b)));
}

static int relocation(struct reducer *r, const struct bpf_core_relo *rel)
{
	const struct btf_type *lt = btf__type_by_id(r->local, rel->type_id);
	const char *spec = btf__name_by_offset(r->local, rel->access_str_off);
	const char *lname;
	struct access acc[64];
	int n = 0, err = 0;
	__u32 id;

	switch (rel->kind) {
	case BPF_CORE_TYPE_ID_LOCAL:
		return 0;	      /* the object's own BTF */
	case BPF_CORE_TYPE_ID_TARGET: /* the kernel's own ids: only the whole BTF has them */
	case BPF_CORE_TYPE_MATCHES:   /* whole layouts, recursively */
		return -EOPNOTSUPP;
	default:
		break;
	}
	if (!lt || !spec)
		return -EINVAL;
	lname = btf__name_by_offset(r->local, lt->name_off);
	if (!lname || !*lname)
		return -EINVAL; /* libbpf relocates named types only */
	if (rel->kind <= BPF_CORE_FIELD_RSHIFT_U64) {
		n = parse_access(r->local, rel->type_id, spec, acc, 64);
		if (n < 0)
			return n;
	}
	for (id = 1; id < r->ntarget && !err; id++) {
		const struct btf_type *t = btf__type_by_id(r->target, id);

		if (!kinds_compatible(lt, t) ||
		    !same_essential(lname, btf__name_by_offset(r->target, t->name_off)))
			continue;
		if (rel->kind <= BPF_CORE_FIELD_RSHIFT_U64) {
			err = walk(r, id, acc, n);
			if (err > 0)
				err = keep_root(r, id);
		} else {
			err = keep_root(r, id); /* type exists/size, enum values: the type itself */
		}
	}
	return err < 0 ? err : 0;
}

static int cmp_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

static int emit(struct reducer *r, __u32 id);

static int emit_composite(struct reducer *r, __u32 id, const struct btf_type *t)
{
	const char *name = btf__name_by_offset(r->target, t->name_off);
	__u64 key = (__u64)id << 16, *k;
	size_t first, i;
	int err, nid;

	/* the first kept member of id in the sorted marks */
	for (first = 0, i = r->nkeep; first < i;) {
		size_t mid = (first + i) / 2;

		if (r->keep[mid] < key)
			first = mid + 1;
		else
			i = mid;
	}
	/* members' types first: a struct's fields must follow it directly */
	for (k = r->keep + first; k < r->keep + r->nkeep && *k >> 16 == id; k++) {
		err = emit(r, btf_members(t)[*k & 0xffff].type);
		if (err < 0)
			return err;
	}
	nid = btf_is_struct(t) ? btf__add_struct(r->out, name, t->size)
			       : btf__add_union(r->out, name, t->size);
	if (nid < 0)
		return nid;
	for (k = r->keep + first; k < r->keep + r->nkeep && *k >> 16 == id; k++) {
		const struct btf_member *m = btf_members(t) + (*k & 0xffff);

		err = btf__add_field(r->out, btf__name_by_offset(r->target, m->name_off),
				     r->map[m->type], btf_member_bit_offset(t, *k & 0xffff),
				     btf_member_bitfield_size(t, *k & 0xffff));
		if (err)
			return err;
	}
	return nid;
}

static int emit_enum(struct reducer *r, const struct btf_type *t)
{
	const char *name = btf__name_by_offset(r->target, t->name_off);
	int i, nid, err = 0;

	if (btf_is_enum(t)) {
		const struct btf_enum *e = btf_enum(t);

		nid = btf__add_enum(r->out, name, t->size);
		for (i = 0; nid > 0 && !err && i < btf_vlen(t); i++, e++)
			err = btf__add_enum_value(
				r->out, btf__name_by_offset(r->target, e->name_off),
				btf_kflag(t) ? (__s64)e->val : (__s64)(__u32)e->val);
	} else {
		const struct btf_enum64 *e = btf_enum64(t);

		nid = btf__add_enum64(r->out, name, t->size, btf_kflag(t));
		for (i = 0; nid > 0 && !err && i < btf_vlen(t); i++, e++)
			err = btf__add_enum64_value(r->out,
						    btf__name_by_offset(r->target, e->name_off),
						    btf_enum64_value(e));
	}
	return err ? err : nid;
}

/* id's copy in out (its id there), made once. */
static int emit(struct reducer *r, __u32 id)
{
	const struct btf_type *t;
	const char *name;
	int nid, sub, idx;

	if (!id)
		return 0;
	if (id >= r->ntarget)
		return -EINVAL;
	if (r->map[id])
		return r->map[id];
	t = btf__type_by_id(r->target, id);
	name = btf__name_by_offset(r->target, t->name_off);
	switch (btf_kind(t)) {
	case BTF_KIND_INT:
		nid = btf__add_int(r->out, name, t->size, btf_int_encoding(t));
		break;
	case BTF_KIND_FLOAT:
		nid = btf__add_float(r->out, name, t->size);
		break;
	case BTF_KIND_PTR:
		nid = btf__add_ptr(r->out, 0);
		break;
	case BTF_KIND_ARRAY:
		sub = emit(r, btf_array(t)->type);
		idx = sub < 0 ? sub : emit(r, btf_array(t)->index_type);
		nid = idx < 0 ? idx : btf__add_array(r->out, idx, sub, btf_array(t)->nelems);
		break;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		nid = emit_composite(r, id, t);
		break;
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		nid = emit_enum(r, t);
		break;
	case BTF_KIND_FWD:
		nid = btf__add_fwd(r->out, name, btf_kflag(t) ? BTF_FWD_UNION : BTF_FWD_STRUCT);
		break;
	case BTF_KIND_TYPEDEF:
		sub = emit(r, t->type);
		nid = sub < 0 ? sub : btf__add_typedef(r->out, name, sub);
		break;
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_TYPE_TAG:
		nid = emit(r, t->type);
		break;
	default: /* functions, variables: no relocation reaches them */
		return -EOPNOTSUPP;
	}
	if (nid > 0)
		r->map[id] = nid;
	return nid;
}

struct btf *bt_core_btf_reduce(const struct btf *local, const void *ext, size_t ext_size,
			       const struct btf *target)
{
	const struct btf_ext_hdr *h = ext;
	struct reducer r = { .local = local, .target = target };
	const char *p, *end;
	__u32 rec_size = 0;
	size_t i, n;
	int err = -EINVAL;

	if (ext_size < sizeof(*h) || h->magic != 0xeB9F || h->hdr_len < sizeof(*h) ||
	    (size_t)h->hdr_len + h->core_relo_off + h->core_relo_len > ext_size)
		goto cleanup;
	p = (const char *)ext + h->hdr_len + h->core_relo_off;
	end = p + h->core_relo_len;
	r.ntarget = btf__type_cnt(target);
	r.map = calloc(r.ntarget, sizeof(*r.map));
	r.out = btf__new_empty();
	if (!r.map || !r.out) {
		err = -ENOMEM;
		goto cleanup;
	}
	if (h->core_relo_len) {
		if (h->core_relo_len < sizeof(rec_size))
			goto cleanup;
		memcpy(&rec_size, p, sizeof(rec_size));
		p += sizeof(rec_size);
		if (rec_size < sizeof(struct bpf_core_relo))
			goto cleanup;
	}
	/* per section: its name, the record count, the records */
	while (p < end) {
		__u32 sec[2], j;

		if ((size_t)(end - p) < sizeof(sec))
			goto cleanup;
		memcpy(sec, p, sizeof(sec));
		p += sizeof(sec);
		if ((size_t)(end - p) / rec_size < sec[1])
			goto cleanup;
		for (j = 0; j < sec[1]; j++, p += rec_size) {
			struct bpf_core_relo rel;

			memcpy(&rel, p, sizeof(rel));
			err = relocation(&r, &rel);
			if (err)
				goto cleanup;
		}
	}
	err = 0;
	if (r.nkeep)
		qsort(r.keep, r.nkeep, sizeof(*r.keep), cmp_u64);
	for (i = 1, n = r.nkeep ? 1 : 0; i < r.nkeep; i++) /* a member once, however often used */
		if (r.keep[i] != r.keep[n - 1])
			r.keep[n++] = r.keep[i];
	r.nkeep = n;
	for (i = 0; i < r.nroots && err >= 0; i++)
		err = emit(&r, r.roots[i]);
	err = err < 0 ? err : 0;
cleanup:
	free(r.map);
	free(r.keep);
	free(r.roots);
	if (err) {
		btf__free(r.out);
		errno = -err;
		return NULL;
	}
	return r.out;
}

/* ---- the cache: /run/bpftools/btf/OBJECT-KEY.btf --------------------------------------- */

#define CACHE_DIR BT_BTF_CACHE_DIR
#define CACHE_FORMAT 1 /* bump when the reduction changes what it keeps */

/* An ELF section of the object image by name, bounds-checked. */
static const void *elf_section(const void *elf, size_t size, const char *want, size_t *len)
{
	const Elf64_Ehdr *eh = elf;
	const Elf64_Shdr *sh, *strs;
	int i;

	if (size < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_shentsize != sizeof(*sh) ||
	    eh->e_shoff > size || (size - eh->e_shoff) / sizeof(*sh) < eh->e_shnum ||
	    eh->e_shstrndx >= eh->e_shnum)
		return NULL;
	sh = (const Elf64_Shdr *)((const char *)elf + eh->e_shoff);
	strs = sh + eh->e_shstrndx;
	if (strs->sh_offset > size || strs->sh_size > size - strs->sh_offset)
		return NULL;
	for (i = 0; i < eh->e_shnum; i++) {
		const char *name = (const char *)elf + strs->sh_offset + sh[i].sh_name;

		if (sh[i].sh_name >= strs->sh_size ||
		    strnlen(name, strs->sh_size - sh[i].sh_name) == strs->sh_size - sh[i].sh_name ||
		    strcmp(name, want))
			continue;
		if (sh[i].sh_offset > size || sh[i].sh_size > size - sh[i].sh_offset)
			return NULL;
		*len = sh[i].sh_size;
		return (const char *)elf + sh[i].sh_offset;
	}
	return NULL;
}

static int write_cache(const char *path, const struct btf *btf)
{
	const void *data;
	__u32 size;

	data = btf__raw_data(btf, &size);
	if (!data)
		return -ENOMEM;
	return bt_btf_cache_write(path, NULL, 0, data, size);
}

static int make_cache(const char *path, const void *elf, size_t size)
{
	const void *btf_data, *ext;
	size_t btf_len, ext_len;
	struct btf *local, *small;
	int err;

	btf_data = elf_section(elf, size, ".BTF", &btf_len);
	ext = elf_section(elf, size, ".BTF.ext", &ext_len);
	if (!btf_data || !ext)
		return -ENOENT;
	local = btf__new(btf_data, btf_len);
	if (!local)
		return -errno;
	if (!bt_vmlinux_btf()) {
		btf__free(local);
		return -ENOENT;
	}
	small = bt_core_btf_reduce(local, ext, ext_len, bt_vmlinux_btf());
	err = small ? write_cache(path, small) : -errno;
	btf__free(small);
	btf__free(local);
	bt_vmlinux_btf_release();
	return err;
}

/* Open options that point libbpf's CO-RE at 'path' (static: the caller opens right away). */
static const struct bpf_object_open_opts *custom_btf_opts(const char *path)
{
	static struct bpf_object_open_opts opts;

	memset(&opts, 0, sizeof(opts));
	opts.sz = sizeof(opts);
	opts.btf_custom_path = path;
	return &opts;
}

/* Without the small BTF: the whole file given (--btf), or libbpf's own search (NULL). */
static const struct bpf_object_open_opts *whole_btf_opts(const char *file)
{
	return file ? custom_btf_opts(file) : NULL;
}

const struct bpf_object_open_opts *bt_core_btf_whole_opts(void)
{
	return whole_btf_opts(bt_vmlinux_btf_file());
}

const struct bpf_object_open_opts *bt_core_btf_open_opts(const void *(*elf_bytes)(size_t *sz))
{
	static char path[PATH_MAX];
	const char *file = bt_vmlinux_btf_file();
	const void *elf;
	size_t size, len;
	const void *sec;
	__u64 key;
	int err;

	bt_btf_ids_tp_btf_handler(); /* before the open: libbpf picks a handler per program then */
	if (bt_env_flag("BPFTOOLS_NO_CORE_BTF") || (!bt_kernel_has_btf() && !file))
		return whole_btf_opts(file);
	elf = elf_bytes(&size);
	sec = elf_section(elf, size, ".BTF.ext", &len);
	if (!sec)
		return whole_btf_opts(file); /* no relocations: libbpf parses nothing either */
	key = bt_fnv(0xcbf29ce484222325ULL, "bpftools-core-btf", 17);
	key = bt_fnv(key, &(int){ CACHE_FORMAT }, sizeof(int));
	key = bt_fnv(key, sec, len);
	sec = elf_section(elf, size, ".BTF", &len);
	if (!sec)
		return whole_btf_opts(file);
	key = bt_btf_kernel_key(bt_fnv(key, sec, len));
	err = bt_btf_cache_dir();
	if (err) {
		bt_debug("no CO-RE BTF cache in %s: %s", CACHE_DIR, strerror(-err));
		return whole_btf_opts(file);
	}
	snprintf(path, sizeof(path), CACHE_DIR "/%016llx.none", (unsigned long long)key);
	if (!access(path, F_OK))
		return whole_btf_opts(file); /* a relocation the reduction cannot serve */
	snprintf(path, sizeof(path), CACHE_DIR "/%016llx.btf", (unsigned long long)key);
	if (access(path, R_OK)) {
		err = make_cache(path, elf, size);
		if (err == -EOPNOTSUPP) {
			snprintf(path, sizeof(path), CACHE_DIR "/%016llx.none",
				 (unsigned long long)key);
			close(open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600));
		}
		if (err) {
			bt_debug("no small BTF for CO-RE: %s", strerror(-err));
			return whole_btf_opts(file);
		}
		bt_debug("CO-RE BTF for this object written to %s", path);
	}
	return custom_btf_opts(path);
}
