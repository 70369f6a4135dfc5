// SPDX-License-Identifier: GPL-2.0
/*
 * Type ids from the raw vmlinux BTF as a stream (lib/kernel/bt_btf_ids.h). The raw format: a header,
 * then the type section, a sequence of variable-size records whose id is their position
 * (from 1), and the string section, NUL-terminated names referred to by byte offset. A record's
 * size follows from its kind and vlen alone, so ids can be counted without keeping anything;
 * every 256th record's offset is noted (a few KiB) so that the records a prototype names can be
 * reached again by walking at most 255 headers.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/btf.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "bt_btf_ids.h"
#include "bt_env.h"
#include "bt_err.h"
#include "bt_vmlinux_btf.h"

#define WINDOW (64 * 1024) /* the part of the file held at once */
#define MARK_SHIFT 8	   /* a noted offset every 256 records */
#define NAME_MAX_LEN 512   /* the kernel's limit on a BTF name (KSYM_NAME_LEN) */
#define MAX_COPIED 64	   /* types in one excerpt: a prototype names a dozen at most */
#define MAX_PARAMS 64
#define MAX_DEPTH 32

struct scan {
	int fd;
	struct btf_header hdr;
	__u64 types, strs; /* file offsets of the two sections */
	char *buf;	   /* the window: file bytes [buf_off, buf_off + buf_len) */
	__u64 buf_off;
	size_t buf_len;
	__u32 *marks; /* marks[i]: offset in the type section of id max(i << MARK_SHIFT, 1) */
	size_t nmarks;
	__u32 ntypes; /* the last id + 1 */
	__u32 *offs;  /* where the wanted name is in the string section, ascending */
	size_t noffs, capoffs;
};

/* n bytes of the file at off, read into the window unless there already; NULL past the end. */
static const void *window(struct scan *s, __u64 off, size_t n)
{
	size_t got = 0;
	ssize_t r;

	if (n > WINDOW)
		return NULL;
	if (off >= s->buf_off && off + n <= s->buf_off + s->buf_len)
		return s->buf + (off - s->buf_off);
	s->buf_off = off;
	s->buf_len = 0;
	while (got < WINDOW) {
		r = pread(s->fd, s->buf + got, WINDOW - got, off + got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += r;
	}
	s->buf_len = got;
	return got >= n ? s->buf : NULL;
}

/* Bytes after a record's struct btf_type, from its kind and vlen; -EINVAL for an unknown kind. */
static int extra_size(const struct btf_type *t)
{
	__u32 vlen = btf_vlen(t);

	switch (btf_kind(t)) {
	case BTF_KIND_INT:
		return sizeof(__u32);
	case BTF_KIND_ARRAY:
		return sizeof(struct btf_array);
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		return vlen * sizeof(struct btf_member);
	case BTF_KIND_ENUM:
		return vlen * sizeof(struct btf_enum);
	case BTF_KIND_FUNC_PROTO:
		return vlen * sizeof(struct btf_param);
	case BTF_KIND_VAR:
		return sizeof(struct btf_var);
	case BTF_KIND_DATASEC:
		return vlen * sizeof(struct btf_var_secinfo);
	case BTF_KIND_DECL_TAG:
		return sizeof(struct btf_decl_tag);
	case BTF_KIND_ENUM64:
		return vlen * sizeof(struct btf_enum64);
	case BTF_KIND_PTR:
	case BTF_KIND_FWD:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_FUNC:
	case BTF_KIND_FLOAT:
	case BTF_KIND_TYPE_TAG:
		return 0;
	default:
		return -EINVAL;
	}
}

static int read_header(struct scan *s)
{
	const struct btf_header *h;
	struct stat st;

	if (fstat(s->fd, &st))
		return -errno;
	h = window(s, 0, sizeof(*h));
	if (!h)
		return -EINVAL;
	memcpy(&s->hdr, h, sizeof(*h));
	if (s->hdr.magic != BTF_MAGIC) /* the kernel's BTF is in its own byte order */
		return s->hdr.magic == __builtin_bswap16(BTF_MAGIC) ? -EOPNOTSUPP : -EINVAL;
	if (s->hdr.version != BTF_VERSION || s->hdr.hdr_len < sizeof(*h))
		return -EOPNOTSUPP;
	s->types = (__u64)s->hdr.hdr_len + s->hdr.type_off;
	s->strs = (__u64)s->hdr.hdr_len + s->hdr.str_off;
	/* sysfs gives the BTF's size; a regular file (the unit test's) its own */
	if (s->types + s->hdr.type_len > (__u64)st.st_size ||
	    s->strs + s->hdr.str_len > (__u64)st.st_size || !s->hdr.str_len)
		return -EINVAL;
	return 0;
}

static int add_off(struct scan *s, __u32 off)
{
	if (s->noffs == s->capoffs) {
		size_t cap = s->capoffs ? 2 * s->capoffs : 16;
		__u32 *p = realloc(s->offs, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		s->offs = p;
		s->capoffs = cap;
	}
	s->offs[s->noffs++] = off;
	return 0;
}

/*
 * Every offset in the string section where the NUL-terminated string is name: at a string's
 * start, or at the tail of a longer one ("cgroup_migrate" in "__cgroup_migrate": a writer may
 * share tails). Found in ascending order. Windows overlap by the name's length, so a string
 * ending in the next window is still whole in the one after.
 */
static int find_name(struct scan *s, const char *name)
{
	size_t len = strlen(name), pos = 0, chunk, i;
	const char *p, *nul;
	int err;

	if (!len || len >= NAME_MAX_LEN)
		return -EINVAL;
	for (;;) {
		chunk = s->hdr.str_len - pos < WINDOW ? s->hdr.str_len - pos : WINDOW;
		p = window(s, s->strs + pos, chunk);
		if (!p)
			return -EINVAL;
		for (i = len; i < chunk && (nul = memchr(p + i, '\0', chunk - i));
		     i = nul - p + 1) {
			if (memcmp(nul - len, name, len))
				continue;
			err = add_off(s, pos + (nul - len - p));
			if (err)
				return err;
		}
		if (pos + chunk >= s->hdr.str_len)
			return 0;
		pos += chunk - len;
	}
}

/* The name at off in the string section, into buf (NAME_MAX_LEN bytes). */
static int read_name(struct scan *s, __u32 off, char *buf)
{
	size_t n;
	const char *p, *nul;

	if (off >= s->hdr.str_len)
		return -EINVAL;
	n = s->hdr.str_len - off < NAME_MAX_LEN ? s->hdr.str_len - off : NAME_MAX_LEN;
	p = window(s, s->strs + off, n);
	nul = p ? memchr(p, '\0', n) : NULL;
	if (!nul)
		return -EINVAL;
	memcpy(buf, p, nul - p + 1);
	return 0;
}

static bool among(const struct scan *s, __u32 off)
{
	size_t lo = 0, hi = s->noffs;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (s->offs[mid] == off)
			return true;
		if (s->offs[mid] < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/* The first id of the kind whose name is at one of s->offs (0: none), noting offsets on the way. */
static int walk_types(struct scan *s, int kind)
{
	__u64 off = s->types, end = s->types + s->hdr.type_len;
	__u32 id = 1, found = 0;
	int extra;

	s->nmarks = (s->hdr.type_len / sizeof(struct btf_type) >> MARK_SHIFT) + 1;
	s->marks = calloc(s->nmarks, sizeof(*s->marks));
	if (!s->marks)
		return -ENOMEM;
	while (off < end) {
		const struct btf_type *t = window(s, off, sizeof(*t));

		if (!t)
			return -EINVAL;
		if (!(id & ((1U << MARK_SHIFT) - 1)) || id == 1) {
			if ((id >> MARK_SHIFT) >= s->nmarks)
				return -EINVAL;
			s->marks[id >> MARK_SHIFT] = off - s->types;
		}
		extra = extra_size(t);
		if (extra < 0)
			return extra;
		if (!found && (int)btf_kind(t) == kind && among(s, t->name_off))
			found = id;
		off += sizeof(*t) + extra;
		id++;
	}
	if (off != end)
		return -EINVAL;
	s->ntypes = id;
	return found;
}

/*
 * Record id: its struct btf_type and the first want bytes after it, copied to rec (which holds
 * sizeof(struct btf_type) + want). *extra receives the record's whole extra size.
 */
static int read_record(struct scan *s, __u32 id, void *rec, size_t want, int *extra)
{
	__u32 cur = (id >> MARK_SHIFT) << MARK_SHIFT;
	__u64 off;
	const struct btf_type *t;

	if (!id || id >= s->ntypes)
		return -EINVAL;
	if (!cur)
		cur = 1;
	off = s->types + s->marks[id >> MARK_SHIFT];
	for (;; cur++) {
		t = window(s, off, sizeof(*t));
		if (!t)
			return -EINVAL;
		*extra = extra_size(t);
		if (*extra < 0)
			return *extra;
		if (cur == id)
			break;
		off += sizeof(*t) + *extra;
	}
	if (want > (size_t)*extra)
		want = *extra;
	t = window(s, off, sizeof(*t) + want);
	if (!t)
		return -E2BIG;
	memcpy(rec, t, sizeof(*t) + want);
	return 0;
}

struct excerpt {
	struct scan *s;
	struct btf *out;
	__u32 from[MAX_COPIED], to[MAX_COPIED]; /* kernel id -> id in out */
	int n;
};

static int copy_type(struct excerpt *x, __u32 id, int depth);

/* A prototype's return and parameter types first: its parameters must follow it directly. */
static int copy_proto(struct excerpt *x, const struct btf_type *t, const struct btf_param *p,
		      int depth)
{
	int ret, types[MAX_PARAMS], names[MAX_PARAMS], i, n = btf_vlen(t), nid, err;
	char name[NAME_MAX_LEN];

	if (n > MAX_PARAMS)
		return -E2BIG;
	for (i = 0; i < n; i++)
		names[i] = p[i].name_off;
	ret = t->type;
	for (i = 0; i < n; i++) {
		types[i] = copy_type(x, p[i].type, depth + 1);
		if (types[i] < 0)
			return types[i];
	}
	ret = copy_type(x, ret, depth + 1);
	if (ret < 0)
		return ret;
	nid = btf__add_func_proto(x->out, ret);
	for (i = 0; nid > 0 && i < n; i++) {
		err = names[i] ? read_name(x->s, names[i], name) : 0;
		if (!err)
			err = btf__add_func_param(x->out, names[i] ? name : NULL, types[i]);
		if (err)
			return err;
	}
	return nid;
}

/* id's copy in the excerpt (its id there), made once; structs and enums without members. */
static int copy_type(struct excerpt *x, __u32 id, int depth)
{
	union {
		struct btf_type t;
		char bytes[sizeof(struct btf_type) + MAX_PARAMS * sizeof(struct btf_param)];
	} rec;
	const struct btf_type *t = &rec.t;
	char name[NAME_MAX_LEN];
	struct btf_array arr;
	__u32 enc;
	int i, extra, sub, idx, nid, err;

	if (!id)
		return 0;
	for (i = 0; i < x->n; i++)
		if (x->from[i] == id)
			return x->to[i];
	if (depth > MAX_DEPTH || x->n == MAX_COPIED)
		return -E2BIG;
	err = read_record(x->s, id, &rec, sizeof(rec) - sizeof(rec.t), &extra);
	if (!err && btf_is_func_proto(t) && (size_t)extra > sizeof(rec) - sizeof(rec.t))
		err = -E2BIG;
	if (!err)
		err = read_name(x->s, t->name_off, name);
	if (err)
		return err;
	switch (btf_kind(t)) {
	case BTF_KIND_INT:
		memcpy(&enc, t + 1, sizeof(enc));
		nid = btf__add_int(x->out, name, t->size, BTF_INT_ENCODING(enc));
		break;
	case BTF_KIND_FLOAT:
		nid = btf__add_float(x->out, name, t->size);
		break;
	case BTF_KIND_STRUCT:
		nid = btf__add_struct(x->out, name, t->size);
		break;
	case BTF_KIND_UNION:
		nid = btf__add_union(x->out, name, t->size);
		break;
	case BTF_KIND_ENUM:
		nid = btf__add_enum(x->out, name, t->size);
		break;
	case BTF_KIND_ENUM64:
		nid = btf__add_enum64(x->out, name, t->size, btf_kflag(t));
		break;
	case BTF_KIND_FWD:
		nid = btf__add_fwd(x->out, name, btf_kflag(t) ? BTF_FWD_UNION : BTF_FWD_STRUCT);
		break;
	case BTF_KIND_ARRAY:
		memcpy(&arr, t + 1, sizeof(arr));
		sub = copy_type(x, arr.type, depth + 1);
		idx = sub < 0 ? sub : copy_type(x, arr.index_type, depth + 1);
		nid = idx < 0 ? idx : btf__add_array(x->out, idx, sub, arr.nelems);
		break;
	case BTF_KIND_FUNC_PROTO:
		nid = copy_proto(x, t, (const struct btf_param *)(t + 1), depth);
		break;
	case BTF_KIND_PTR:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_CONST:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_TYPE_TAG:
	case BTF_KIND_FUNC:
		sub = copy_type(x, t->type, depth + 1);
		if (sub < 0)
			return sub;
		switch (btf_kind(t)) {
		case BTF_KIND_PTR:
			nid = btf__add_ptr(x->out, sub);
			break;
		case BTF_KIND_TYPEDEF:
			nid = btf__add_typedef(x->out, name, sub);
			break;
		case BTF_KIND_CONST:
			nid = btf__add_const(x->out, sub);
			break;
		case BTF_KIND_VOLATILE:
			nid = btf__add_volatile(x->out, sub);
			break;
		case BTF_KIND_RESTRICT:
			nid = btf__add_restrict(x->out, sub);
			break;
		case BTF_KIND_TYPE_TAG:
			nid = btf__add_type_tag(x->out, name, sub);
			break;
		default:
			nid = btf__add_func(x->out, name, btf_vlen(t), sub);
			break;
		}
		break;
	default: /* variables, sections, tags: no prototype names them */
		return -EINVAL;
	}
	if (nid <= 0)
		return nid < 0 ? nid : -EINVAL;
	if (x->n < MAX_COPIED) {
		x->from[x->n] = id;
		x->to[x->n++] = nid;
	}
	return nid;
}

int bt_btf_scan(int fd, const char *name, int kind, struct btf **excerpt)
{
	struct scan s = { .fd = fd };
	struct excerpt x = { .s = &s };
	int id, err;

	if (excerpt)
		*excerpt = NULL;
	s.buf = malloc(WINDOW);
	if (!s.buf)
		return -ENOMEM;
	err = read_header(&s);
	if (!err)
		err = find_name(&s, name);
	if (err || !s.noffs) {
		id = err ? err : -ENOENT;
		goto cleanup;
	}
	id = walk_types(&s, kind);
	if (id == 0)
		id = -ENOENT;
	if (id < 0 || !excerpt)
		goto cleanup;
	x.out = btf__new_empty();
	if (!x.out) {
		id = -ENOMEM;
		goto cleanup;
	}
	err = copy_type(&x, id, 0);
	if (err < 0) {
		btf__free(x.out);
		id = err;
		goto cleanup;
	}
	*excerpt = x.out;
cleanup:
	free(s.offs);
	free(s.marks);
	free(s.buf);
	return id;
}

/* ---- the cache: BT_BTF_CACHE_DIR/KEY-KIND-NAME.id ------------------------------------- */

#define CACHE_FORMAT 1 /* bump when what a file holds changes */

struct cache_hdr {
	char magic[4]; /* "BTID" */
	__u32 format;
	__s32 id; /* -ENOENT: the kernel has no such type */
	__u32 btf_size;
};

__u64 bt_fnv(__u64 h, const void *p, size_t n)
{
	const unsigned char *c = p;

	while (n--)
		h = (h ^ *c++) * 0x100000001b3ULL;
	return h;
}

__u64 bt_btf_kernel_key(__u64 h)
{
	const char *file;
	struct utsname u;
	struct stat st;
	char buf[512];
	ssize_t n;
	int fd;

	fd = open("/sys/kernel/notes", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		while ((n = read(fd, buf, sizeof(buf))) > 0)
			h = bt_fnv(h, buf, n);
		close(fd);
	}
	if (!uname(&u)) {
		h = bt_fnv(h, u.release, strlen(u.release));
		h = bt_fnv(h, u.version, strlen(u.version));
	}
	if (!stat("/sys/kernel/btf/vmlinux", &st))
		h = bt_fnv(h, &st.st_size, sizeof(st.st_size));
	file = bt_vmlinux_btf_file();
	if (file && !stat(file, &st)) { /* types from a file: that file, as it is now */
		h = bt_fnv(h, file, strlen(file));
		h = bt_fnv(h, &st.st_dev, sizeof(st.st_dev));
		h = bt_fnv(h, &st.st_ino, sizeof(st.st_ino));
		h = bt_fnv(h, &st.st_size, sizeof(st.st_size));
		h = bt_fnv(h, &st.st_mtim, sizeof(st.st_mtim));
	}
	return h;
}

int bt_btf_cache_dir(void)
{
	return bt_cache_subdir(BT_BTF_CACHE_DIR);
}

int bt_cache_subdir(const char *sub)
{
	const char *const dirs[] = { "/run/bpftools", sub };
	struct stat st;
	size_t i;

	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		/* lstat first: a mkdir that finds the directory still costs a path walk and a lock */
		if (lstat(dirs[i], &st)) {
			if (errno != ENOENT || (mkdir(dirs[i], 0700) && errno != EEXIST))
				return -errno;
			if (lstat(dirs[i], &st))
				return -errno;
		}
		if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 022))
			return -EPERM;
	}
	return 0;
}

const char *bt_ksyms_cache_dir(void)
{
	if (bt_env_flag("BPFTOOLS_NO_KSYMS_CACHE") || bt_btf_cache_dir())
		return NULL;
	return "/run/bpftools";
}

/* The cache file for name (an identifier), or false when it is not to be cached. */
static bool cache_path(const char *name, int kind, const char *suffix, char *path, size_t size)
{
	static __u64 key;
	static int dir_err = 1;
	const char *c;

	if (bt_env_flag("BPFTOOLS_NO_BTF_IDS_CACHE"))
		return false;
	for (c = name; *c; c++)
		if (!(*c == '_' || *c == '.' || (*c >= '0' && *c <= '9') ||
		      ((*c | 0x20) >= 'a' && (*c | 0x20) <= 'z')))
			return false;
	if (c - name > 200 || name[0] == '.')
		return false;
	if (dir_err > 0) {
		dir_err = bt_btf_cache_dir();
		if (dir_err)
			bt_debug("no BTF id cache in %s: %s", BT_BTF_CACHE_DIR, strerror(-dir_err));
		key = bt_btf_kernel_key(bt_fnv(0xcbf29ce484222325ULL, "bpftools-btf-ids", 16));
	}
	if (dir_err)
		return false;
	snprintf(path, size, BT_BTF_CACHE_DIR "/%016llx-%d-%s.%s", (unsigned long long)key, kind,
		 name, suffix);
	return true;
}

/* The cached answer: an id or -ENOENT; 1 when there is none to use. */
static int read_cache(const char *path, struct btf **excerpt)
{
	struct cache_hdr h;
	struct stat st;
	char *data = NULL;
	int fd, ret = 1;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return 1;
	if (fstat(fd, &st) || st.st_uid != geteuid() || st.st_size < (off_t)sizeof(h) ||
	    read(fd, &h, sizeof(h)) != sizeof(h) || memcmp(h.magic, "BTID", 4) ||
	    h.format != CACHE_FORMAT || (__u64)st.st_size != sizeof(h) + h.btf_size ||
	    (h.id <= 0 && h.id != -ENOENT) || (h.id > 0 && !h.btf_size))
		goto cleanup;
	if (h.id > 0 && excerpt) {
		data = malloc(h.btf_size);
		if (!data || read(fd, data, h.btf_size) != (ssize_t)h.btf_size)
			goto cleanup;
		*excerpt = btf__new(data, h.btf_size);
		if (!*excerpt) {
			*excerpt = NULL;
			goto cleanup;
		}
	}
	ret = h.id;
cleanup:
	free(data);
	close(fd);
	return ret;
}

int bt_btf_cache_write(const char *path, const void *head, size_t head_len, const void *data,
		       size_t len)
{
	char tmp[PATH_MAX + 8];
	int fd, err = 0;

	snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path);
	fd = mkstemp(tmp);
	if (fd < 0)
		return -errno;
	if ((head_len && write(fd, head, head_len) != (ssize_t)head_len) ||
	    (len && write(fd, data, len) != (ssize_t)len))
		err = errno ? -errno : -EIO;
	if (close(fd) && !err)
		err = -errno;
	/* whole or not at all: another run may be reading the same name */
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}

static int write_cache(const char *path, int id, const struct btf *excerpt)
{
	struct cache_hdr h = { .magic = "BTID", .format = CACHE_FORMAT, .id = id };
	const void *data = NULL;

	if (excerpt) {
		data = btf__raw_data(excerpt, &h.btf_size);
		if (!data)
			return -ENOMEM;
	}
	return bt_btf_cache_write(path, &h, sizeof(h), data, h.btf_size);
}

int bt_btf_id(const char *name, int kind, struct btf **excerpt)
{
	struct btf *x = NULL;
	char path[PATH_MAX];
	bool cached = cache_path(name, kind, "id", path, sizeof(path));
	int fd, id, err;

	if (excerpt)
		*excerpt = NULL;
	if (cached) {
		id = read_cache(path, excerpt);
		if (id != 1) {
			bt_debug("BTF id of %s: %d (cached)", name, id);
			return id;
		}
	}
	fd = open("/sys/kernel/btf/vmlinux", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* the excerpt is made even when not asked for: the cache keeps it for the next run */
	id = bt_btf_scan(fd, name, kind, cached || excerpt ? &x : NULL);
	close(fd);
	bt_debug("BTF id of %s: %d (read from /sys/kernel/btf/vmlinux)", name, id);
	if (cached && (id > 0 || id == -ENOENT)) {
		err = write_cache(path, id, x);
		if (err)
			bt_debug("cannot cache the BTF id in %s: %s", path, strerror(-err));
	}
	if (excerpt)
		*excerpt = x;
	else
		btf__free(x);
	return id;
}

bool bt_btf_id_loads(const char *name, int kind)
{
	char path[PATH_MAX];

	return cache_path(name, kind, "loads", path, sizeof(path)) && !access(path, F_OK);
}

void bt_btf_id_note_loads(const char *name, int kind)
{
	char path[PATH_MAX];
	int fd;

	if (!cache_path(name, kind, "loads", path, sizeof(path)))
		return;
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd >= 0)
		close(fd);
}

/* ---- tp_btf programs loaded with the id found here -------------------------------------- */

static int tp_btf_prepare(struct bpf_program *prog, struct bpf_prog_load_opts *opts, long cookie)
{
	const char *tp = strchr(bpf_program__section_name(prog), '/');
	char name[NAME_MAX_LEN];
	struct btf *btf;
	int id, err;

	(void)cookie;
	if (!tp || !tp[1])
		return -EINVAL;
	snprintf(name, sizeof(name), "btf_trace_%s", tp + 1);
	if (!opts->attach_btf_id) { /* else bpf_program__set_attach_target() chose */
		id = bt_btf_id(name, BTF_KIND_TYPEDEF, NULL);
		if (id < 0 && id != -ENOENT) { /* a layout the scan refuses: as libbpf would */
			btf = bt_vmlinux_btf();
			id = btf ? btf__find_by_name_kind(btf, name, BTF_KIND_TYPEDEF) : -ENOENT;
		}
		if (id <= 0) {
			bt_debug("program '%s': no '%s' in vmlinux BTF", bpf_program__name(prog),
				 name);
			return -ESRCH;
		}
		opts->attach_btf_id = id;
		opts->attach_btf_obj_fd = 0;
	}
	/*
	 * libbpf 1.1 reads prog->type after this callback (bpf_object_load_prog), permits the
	 * change while loading (obj->loaded is set after), and leaves the handler in place.
	 */
	err = bpf_program__set_type(prog, BPF_PROG_TYPE_TRACING);
	if (err)
		return err;
	opts->expected_attach_type = BPF_TRACE_RAW_TP;
	return 0;
}

static int tp_btf_attach(const struct bpf_program *prog, long cookie, struct bpf_link **link)
{
	(void)cookie;
	*link = bpf_program__attach_trace(prog);
	return libbpf_get_error(*link);
}

int bt_btf_ids_tp_btf_handler(void)
{
	LIBBPF_OPTS(libbpf_prog_handler_opts, hopts, .prog_prepare_load_fn = tp_btf_prepare,
		    .prog_attach_fn = tp_btf_attach);
	static int handler;

	/*
	 * Checked against libbpf 1.1 only: from 1.2 bpf_program__set_type() drops the program's
	 * section handler, and the skeleton would then skip attaching it without a word.
	 */
	if (handler || libbpf_major_version() != 1 || libbpf_minor_version() != 1 ||
	    bt_env_flag("BPFTOOLS_NO_TP_BTF_HANDLER"))
		return 0;
	/*
	 * Registered as a raw tracepoint, a type libbpf needs no kernel BTF for; the prepare
	 * callback makes it the BTF-typed tracepoint it is, with the attach id found here.
	 */
	handler = libbpf_register_prog_handler("tp_btf/", BPF_PROG_TYPE_RAW_TRACEPOINT,
					       BPF_TRACE_RAW_TP, &hopts);
	if (handler < 0) {
		bt_debug("cannot register the tp_btf handler: %s", strerror(-handler));
		handler = 0;
		return -errno;
	}
	return 0;
}
