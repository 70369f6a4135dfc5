// SPDX-License-Identifier: GPL-2.0
/*
 * The traceable kernel functions. Built once per run from, in order of preference:
 *
 *   1. <tracefs>/available_filter_functions: exactly what ftrace (and so fentry and kprobes on
 *      function entries) can patch. Lockdown in confidentiality mode makes it EPERM.
 *   2. /proc/kallsyms text symbols whose base name is a BTF FUNC of vmlinux: what a kernel
 *      without readable tracefs still tells us. Text ranges that can never be probed (init,
 *      entry, irqentry, noinstr, kprobes) are left out when kallsyms shows addresses.
 *
 * minus kprobes/blacklist (debugfs) when readable. Entries are sorted by base name so an exact
 * name or a glob with a literal prefix is a binary search, and only a regex scans everything.
 * The kallsyms table behind "no such function" is only read on that error path.
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <regex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/btf.h>

#include "bt_attach_internal.h"
#include "bt_err.h"
#include "bt_kernel.h"
#include "bt_kfuncs.h"
#include "bt_uprobe.h"
#include "bt_vmlinux_btf.h"

#define DEFAULT_KALLSYMS "/proc/kallsyms"
#define DEFAULT_BLACKLIST "/sys/kernel/debug/kprobes/blacklist"

enum kf_flags {
	KF_BLACKLIST = 1 << 0, /* kprobes/blacklist, by name or by range */
	KF_NOBTF = 1 << 1,     /* kallsyms path: no BTF FUNC of that name (asm, data, module) */
	KF_COLD = 1 << 2,      /* a ".cold" part: not an entry point */
	KF_RANGE = 1 << 3,     /* init/entry/noinstr text */
	KF_NOTFUNC = 1 << 4,   /* not a function: __pfx_ padding, data symbol, ... */
	KF_DUP = 1 << 5,       /* a repeat of an earlier (name, module): skipped */
};
#define KF_UNTRACEABLE (KF_BLACKLIST | KF_NOBTF | KF_COLD | KF_RANGE | KF_NOTFUNC)

struct kf {
	const char *name;   /* the real symbol, maybe with .isra.N etc. */
	const char *base;   /* name without compiler suffixes (== name when none) */
	const char *module; /* NULL: vmlinux */
	unsigned long long addr;
	unsigned int next; /* the next entry in this one's hash chain, NIL at the end */
	unsigned char flags;
};

#define NIL UINT32_MAX

/*
 * Entries in file order, hashed by base name: an exact name is one chain walk, a glob or a
 * regex one linear pass with a cheap literal-prefix test first. No sorting: sorting 100k
 * names costs more than the whole kallsyms read.
 */
struct kf_table {
	char *buf;   /* file contents, parsed in place */
	char *arena; /* base names */
	size_t arena_used;
	struct kf *v;
	size_t n;
	unsigned int *heads; /* hash buckets: first entry index, NIL if empty */
	size_t mask;
	bool loaded;
	int err;
};

struct range {
	unsigned long long start, end;
};

static struct {
	struct bt_kfuncs_sources src;
	char src_kallsyms[4096], src_filter[4096], src_blacklist[4096];
	bool loaded;
	struct bt_kfuncs_info info;
	struct kf_table funcs; /* the candidates, sorted (traceable: flags & KF_UNTRACEABLE == 0) */
	struct kf_table ksyms; /* filter path only: all kallsyms symbols, for why_not */
	char *blbuf;
	const char **bl; /* blacklisted names, sorted */
	size_t nbl;
	struct range *blr; /* blacklisted ranges ("[section]" lines) */
	size_t nblr;
} S;

/* Functions that recurse or deadlock when probed (the tracing path runs them): wildcards skip
 * them, an exact name still gets them. From retsnoop's enforced deny list and bcc. */
static const char *const wildcard_deny[] = {
	"__perf*",
	"perf_*", /* bcc: kprobes run through perf */
	"_kbl_addr_*",
	"__SCT__*",
	"__traceiter_*",
	"__probestub_*",
	"__ftrace_invalid_address__*",
	"bpf_get_smp_processor_id",
	"bpf_prog_*",
	"__bpf_prog_*",
	"bpf_*trampoline*",
	"__bpf_tramp_*",
	"bpf_trampoline_*",
	"bpf_dispatcher_*",
	"__bpf_call_base",
	"bpf_spin_*",
	"__bpf_spin_*",
	"bpf_rcu_read_*",
	"bpf_get_current_*",
	"bpf_ktime_*",
	"bpf_map_*",
	"__htab_map_*",
	"htab_map_*",
	"bpf_ringbuf_*",
	"bpf_perf_event_output",
	"rcu_read_lock*",
	"rcu_read_unlock*",
	"__rcu_read_*",
	"rcu_lockdep_*",
	"rcu_is_watching",
	"preempt_count_*",
	"migrate_enable",
	"migrate_disable",
	"__migrate_*able",
	"lock_acquire",
	"lock_release",
	"lock_is_held*",
	"trace_hardirqs_*",
	"__x86_indirect_*",
	"arch_rethook_*",
	"rethook_*",
	"fprobe_*",
	"kprobe_*",
	"kretprobe_*",
	"__kretprobe_*",
	"ftrace_*",
	"__ftrace_*",
	"native_sched_clock",
	"sched_clock*",
	"irq_enter*",
	"irq_exit*",
	"get_kprobe",
	"copy_from_kernel_nofault*",
	"__get_user_*",
	"__put_user_*",
	"memcpy",
	"memset",
	"__memcpy",
	"__memset",
	"mcount",
	"__fentry__",
};

bool bt_kfunc_wildcard_denied(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(wildcard_deny) / sizeof(wildcard_deny[0]); i++)
		if (!fnmatch(wildcard_deny[i], name, 0))
			return true;
	return false;
}

static bool all_digits(const char *s, size_t n, bool hex)
{
	size_t i;

	if (!n)
		return false;
	for (i = 0; i < n; i++)
		if (!(s[i] >= '0' && s[i] <= '9') &&
		    !(hex && ((s[i] >= 'a' && s[i] <= 'f') || (s[i] >= 'A' && s[i] <= 'F'))))
			return false;
	return true;
}

size_t bt_kfunc_base(const char *name, char *buf, size_t size, bool *cold)
{
	const char *dot = strchr(name, '.'), *p;
	size_t n;

	*cold = false;
	if (!dot || dot == name)
		return 0;
	/* Every component after the first dot must be a known compiler suffix. */
	for (p = dot; *p == '.';) {
		const char *w = p + 1, *e = w;
		const char *num, *ne;

		while (*e && *e != '.')
			e++;
		n = e - w;
		num = *e == '.' ? e + 1 : e;
		for (ne = num; *ne && *ne != '.'; ne++)
			;
		if (n == 4 && !strncmp(w, "cold", 4)) {
			*cold = true;
			p = all_digits(num, ne - num, false) ? ne : e;
		} else if ((n == 4 && !strncmp(w, "isra", 4)) ||
			   (n == 9 && !strncmp(w, "constprop", 9)) ||
			   (n == 4 && !strncmp(w, "part", 4)) ||
			   (n == 8 && !strncmp(w, "lto_priv", 8))) {
			if (!all_digits(num, ne - num, false))
				return 0;
			p = ne;
		} else if (n == 4 && !strncmp(w, "llvm", 4)) {
			if (!all_digits(num, ne - num, true))
				return 0;
			p = ne;
		} else {
			return 0;
		}
	}
	if (*p)
		return 0;
	n = dot - name;
	if (n >= size)
		return 0;
	memcpy(buf, name, n);
	buf[n] = '\0';
	return n;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* The whole file, NUL-terminated; /proc and tracefs files have no size, so read to EOF. */
static int read_all(const char *path, char **out, size_t *len)
{
	size_t cap = 1 << 20, n = 0;
	char *buf = NULL, *nb;
	ssize_t r;
	int fd, err = 0;

	*out = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	buf = malloc(cap);
	if (!buf) {
		err = -ENOMEM;
		goto cleanup;
	}
	for (;;) {
		if (cap - n < 65536) {
			nb = realloc(buf, cap * 2);
			if (!nb) {
				err = -ENOMEM;
				goto cleanup;
			}
			buf = nb;
			cap *= 2;
		}
		r = read(fd, buf + n, cap - n - 1);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			goto cleanup;
		}
		if (r == 0)
			break;
		n += r;
	}
	buf[n] = '\0';
	*out = buf;
	*len = n;
	buf = NULL;
cleanup:
	free(buf);
	close(fd);
	return err;
}

/* FNV-1a */
static unsigned int hash_str(const char *s)
{
	unsigned int h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

static size_t pow2_at_least(size_t n)
{
	size_t v = 64;

	while (v < n)
		v <<= 1;
	return v;
}

/* A set of strings (BTF FUNC names), open addressing. */
struct strset {
	const char **slots;
	size_t mask;
};

static int strset_init(struct strset *set, size_t n)
{
	size_t size = pow2_at_least(2 * n);

	set->slots = calloc(size, sizeof(*set->slots));
	set->mask = size - 1;
	return set->slots ? 0 : -ENOMEM;
}

static void strset_add(struct strset *set, const char *str)
{
	size_t i = hash_str(str) & set->mask;

	while (set->slots[i]) {
		if (!strcmp(set->slots[i], str))
			return;
		i = (i + 1) & set->mask;
	}
	set->slots[i] = str;
}

static bool strset_has(const struct strset *set, const char *str)
{
	size_t i = hash_str(str) & set->mask;

	while (set->slots[i]) {
		if (!strcmp(set->slots[i], str))
			return true;
		i = (i + 1) & set->mask;
	}
	return false;
}

static bool same_module(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* Hash every entry by base; a repeated (name, module) folds into the first (KF_DUP). */
static int table_index(struct kf_table *t)
{
	size_t i, size = pow2_at_least(t->n);

	free(t->heads);
	t->heads = malloc(size * sizeof(*t->heads));
	if (!t->heads)
		return -ENOMEM;
	memset(t->heads, 0xff, size * sizeof(*t->heads));
	t->mask = size - 1;
	for (i = 0; i < t->n; i++) {
		struct kf *f = &t->v[i];
		unsigned int *head = &t->heads[hash_str(f->base) & t->mask], j;

		for (j = *head; j != NIL; j = t->v[j].next) {
			struct kf *g = &t->v[j];

			if (!strcmp(g->name, f->name) && same_module(g->module, f->module)) {
				g->flags &= f->flags; /* traceable if any copy is */
				f->flags |= KF_DUP;
				break;
			}
		}
		if (j != NIL)
			continue;
		f->next = *head;
		*head = i;
	}
	return 0;
}

/* The first entry of base key in t's chain (follow with next_base()), or NIL. */
static unsigned int first_base(const struct kf_table *t, const char *key)
{
	unsigned int j;

	if (!t->heads)
		return NIL;
	for (j = t->heads[hash_str(key) & t->mask]; j != NIL; j = t->v[j].next)
		if (!strcmp(t->v[j].base, key))
			return j;
	return NIL;
}

static unsigned int next_base(const struct kf_table *t, unsigned int j)
{
	const char *key = t->v[j].base;

	for (j = t->v[j].next; j != NIL; j = t->v[j].next)
		if (!strcmp(t->v[j].base, key))
			return j;
	return NIL;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static bool in_sorted(const char **v, size_t n, const char *s)
{
	return n && bsearch(&s, v, n, sizeof(*v), cmp_str);
}

static void table_free(struct kf_table *t)
{
	free(t->heads);
	free(t->buf);
	free(t->arena);
	free(t->v);
	memset(t, 0, sizeof(*t));
}

static int table_add(struct kf_table *t, size_t *cap, const char *name, const char *module,
		     unsigned long long addr, unsigned char flags)
{
	char base[512];
	struct kf *nv;
	bool cold;
	size_t bn;

	if (t->n == *cap) {
		*cap = *cap ? *cap * 2 : 4096;
		nv = realloc(t->v, *cap * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		t->v = nv;
	}
	nv = &t->v[t->n++];
	nv->name = name;
	nv->base = name;
	nv->module = module;
	nv->addr = addr;
	nv->flags = flags;
	bn = bt_kfunc_base(name, base, sizeof(base), &cold);
	if (bn) {
		/* The arena is as large as the file, and a base is shorter than its line. */
		nv->base = t->arena + t->arena_used;
		memcpy(t->arena + t->arena_used, base, bn + 1);
		t->arena_used += bn + 1;
	}
	if (cold)
		nv->flags |= KF_COLD;
	if (!strncmp(name, "__pfx_", 6) || !strncmp(name, "__cfi_", 6) ||
	    !strncmp(name, "__ftrace_invalid_address__", 26) || !strncmp(name, "__SCT__", 7))
		nv->flags |= KF_NOTFUNC;
	return 0;
}

/* "name" or "name [module]" per line. */
static int parse_filter_functions(struct kf_table *t, size_t len)
{
	size_t cap = 0;
	char *line, *next, *sp;
	int err;

	t->arena = malloc(len + 1);
	if (!t->arena)
		return -ENOMEM;
	for (line = t->buf; *line; line = next) {
		const char *module = NULL;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		else
			next = line + strlen(line);
		sp = strchr(line, ' ');
		if (sp) {
			*sp++ = '\0';
			if (*sp == '[') {
				module = sp + 1;
				sp = strchr(sp, ']');
				if (sp)
					*sp = '\0';
			}
		}
		if (!*line)
			continue;
		err = table_add(t, &cap, line, module, 0, 0);
		if (err)
			return err;
	}
	return 0;
}

struct kallsyms_ranges {
	const char *start, *end;
	unsigned long long a, b;
};

/* "addr type name[\t[module]]" per line. Keeps every symbol; flags say which are functions. */
static int parse_kallsyms(struct kf_table *t, size_t len, struct range *ranges, size_t *nranges)
{
	static const char *const marks[][2] = {
		{ "_sinittext", "_einittext" },
		{ "__entry_text_start", "__entry_text_end" },
		{ "__irqentry_text_start", "__irqentry_text_end" },
		{ "__softirqentry_text_start", "__softirqentry_text_end" },
		{ "__noinstr_text_start", "__noinstr_text_end" },
		{ "__kprobes_text_start", "__kprobes_text_end" },
	};
	unsigned long long rs[6] = {}, re[6] = {};
	size_t cap = 0, i;
	char *line, *next;
	int err;

	t->arena = malloc(len + 1);
	if (!t->arena)
		return -ENOMEM;
	for (line = t->buf; *line; line = next) {
		unsigned long long addr;
		char *type, *name, *module = NULL, *end;
		unsigned char flags = 0;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		else
			next = line + strlen(line);
		addr = strtoull(line, &end, 16);
		if (*end != ' ')
			continue;
		type = end + 1;
		if (!type[0] || type[1] != ' ')
			continue;
		name = type + 2;
		end = strchr(name, '\t');
		if (end) {
			*end = '\0';
			module = strchr(end + 1, '[');
			if (module) {
				module++;
				end = strchr(module, ']');
				if (end)
					*end = '\0';
			}
		}
		if (!module && *type == 'T' && name[0] == '_') {
			for (i = 0; i < 6; i++) {
				if (!strcmp(name, marks[i][0]))
					rs[i] = addr;
				else if (!strcmp(name, marks[i][1]))
					re[i] = addr;
			}
		}
		/* Data symbols never become targets: not worth hashing (half of kallsyms). */
		if (!strchr("tTwW", *type))
			continue;
		err = table_add(t, &cap, name, module, addr, flags);
		if (err)
			return err;
	}
	*nranges = 0;
	for (i = 0; i < 6; i++)
		if (rs[i] && re[i] > rs[i])
			ranges[(*nranges)++] = (struct range){ rs[i], re[i] };
	return 0;
}

static bool in_ranges(const struct range *r, size_t n, unsigned long long addr)
{
	size_t i;

	for (i = 0; addr && i < n; i++)
		if (addr >= r[i].start && addr < r[i].end)
			return true;
	return false;
}

/* "0xstart-0xend\tname", where name may be "[section]" for a whole range. */
static int load_blacklist(const char *path)
{
	size_t len, cap = 0, rcap = 0;
	char *line, *next;
	int err;

	err = read_all(path, &S.blbuf, &len);
	if (err)
		return err;
	for (line = S.blbuf; *line; line = next) {
		unsigned long long a, b;
		char *tab;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		else
			next = line + strlen(line);
		tab = strchr(line, '\t');
		if (!tab)
			tab = strchr(line, ' ');
		if (!tab)
			continue;
		*tab++ = '\0';
		if (*tab == '[') {
			if (sscanf(line, "%llx-%llx", &a, &b) != 2 || !a)
				continue;
			if (S.nblr == rcap) {
				struct range *nr =
					realloc(S.blr, (rcap = rcap ? rcap * 2 : 16) * sizeof(*nr));

				if (!nr)
					return -ENOMEM;
				S.blr = nr;
			}
			S.blr[S.nblr++] = (struct range){ a, b };
			continue;
		}
		if (S.nbl == cap) {
			const char **nb = realloc(S.bl, (cap = cap ? cap * 2 : 1024) * sizeof(*nb));

			if (!nb)
				return -ENOMEM;
			S.bl = nb;
		}
		S.bl[S.nbl++] = tab;
	}
	qsort(S.bl, S.nbl, sizeof(*S.bl), cmp_str);
	return 0;
}

static const char *src_path(const char *set, const char *def)
{
	return set ? set : def;
}

static const char *filter_path(char *buf, size_t size)
{
	const char *tracefs;

	if (S.src.filter_functions)
		return S.src.filter_functions;
	tracefs = bt_tracefs();
	if (!tracefs)
		return "";
	snprintf(buf, size, "%s/available_filter_functions", tracefs);
	return buf;
}

static int btf_func_names(const struct btf *btf, struct strset *set)
{
	__u32 id, cnt = btf__type_cnt(btf);
	int err = strset_init(set, cnt);

	if (err)
		return err;
	for (id = 1; id < cnt; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);

		if (btf_is_func(t))
			strset_add(set, btf__name_by_offset(btf, t->name_off));
	}
	return 0;
}

static int load_kallsyms(struct kf_table *t, struct range *ranges, size_t *nranges)
{
	const char *path = src_path(S.src.kallsyms, DEFAULT_KALLSYMS);
	size_t len;
	int err;

	if (!*path)
		return -ENOENT;
	err = read_all(path, &t->buf, &len);
	if (!err)
		err = parse_kallsyms(t, len, ranges, nranges);
	return err;
}

static int load(void)
{
	struct bt_kfuncs_info *info = &S.info;
	struct range ranges[6];
	size_t len, nranges = 0, i;
	struct strset btf_names = {};
	const struct btf *btf;
	const char *path;
	char pbuf[4096];
	double t0 = now_ms();
	int err;

	if (S.loaded)
		return -info->err;
	S.loaded = true;
	memset(info, 0, sizeof(*info));

	path = src_path(S.src.blacklist, DEFAULT_BLACKLIST);
	info->blacklist_err = *path ? -load_blacklist(path) : ENOENT;

	path = filter_path(pbuf, sizeof(pbuf));
	err = *path ? read_all(path, &S.funcs.buf, &len) : -ENOENT;
	info->filter_err = -err;
	if (!err) {
		err = parse_filter_functions(&S.funcs, len);
		if (err)
			goto cleanup;
		info->source = BT_KFUNCS_FILTER_FUNCTIONS;
	} else {
		bt_debug("cannot read '%s': %s; using kallsyms and BTF", path, strerror(-err));
		table_free(&S.funcs);
		btf = S.src.btf ? S.src.btf : bt_vmlinux_btf();
		if (!btf) {
			err = -ENOENT;
			goto cleanup;
		}
		err = load_kallsyms(&S.funcs, ranges, &nranges);
		if (err)
			goto cleanup;
		err = btf_func_names(btf, &btf_names);
		if (err)
			goto cleanup;
		for (i = 0; i < S.funcs.n; i++) {
			struct kf *f = &S.funcs.v[i];

			/* Module functions would need their module's BTF: left out
			 * (docs/attach.md). */
			if (f->module || !strset_has(&btf_names, f->base))
				f->flags |= KF_NOBTF;
			if (in_ranges(ranges, nranges, f->addr))
				f->flags |= KF_RANGE;
		}
		info->source = BT_KFUNCS_KALLSYMS_BTF;
	}
	for (i = 0; i < S.funcs.n; i++) {
		struct kf *f = &S.funcs.v[i];

		if (in_sorted(S.bl, S.nbl, f->name) || in_ranges(S.blr, S.nblr, f->addr)) {
			if (!(f->flags & KF_UNTRACEABLE))
				info->blacklisted++;
			f->flags |= KF_BLACKLIST;
		}
	}
	err = table_index(&S.funcs);
	if (err)
		goto cleanup;
	for (i = 0; i < S.funcs.n; i++)
		if (!(S.funcs.v[i].flags & (KF_UNTRACEABLE | KF_DUP)))
			info->count++;
	if (info->source == BT_KFUNCS_KALLSYMS_BTF)
		S.funcs.loaded = true; /* the kallsyms table for why_not is this one */
	err = 0;
cleanup:
	free(btf_names.slots);
	info->err = -err;
	info->load_ms = now_ms() - t0;
	bt_debug("kernel functions: %zu traceable, from %s, in %.1f ms", info->count,
		 info->source == BT_KFUNCS_FILTER_FUNCTIONS ? "available_filter_functions"
							    : "kallsyms+BTF",
		 info->load_ms);
	return err;
}

int bt_kfuncs_info(struct bt_kfuncs_info *info)
{
	int err = load();

	*info = S.info;
	return err;
}

void bt_kfuncs_reset(void)
{
	table_free(&S.funcs);
	table_free(&S.ksyms);
	free(S.blbuf);
	free(S.bl);
	free(S.blr);
	S.blbuf = NULL;
	S.bl = NULL;
	S.blr = NULL;
	S.nbl = S.nblr = 0;
	S.loaded = false;
	memset(&S.info, 0, sizeof(S.info));
}

static const char *copy_src(char *buf, size_t size, const char *s)
{
	if (!s)
		return NULL;
	snprintf(buf, size, "%s", s);
	return buf;
}

void bt_kfuncs_set_sources(const struct bt_kfuncs_sources *src)
{
	bt_kfuncs_reset();
	memset(&S.src, 0, sizeof(S.src));
	if (!src)
		return;
	S.src.kallsyms = copy_src(S.src_kallsyms, sizeof(S.src_kallsyms), src->kallsyms);
	S.src.filter_functions =
		copy_src(S.src_filter, sizeof(S.src_filter), src->filter_functions);
	S.src.blacklist = copy_src(S.src_blacklist, sizeof(S.src_blacklist), src->blacklist);
	S.src.btf = src->btf;
}

static int add_target(struct bt_targets *out, const struct kf *f, bool retprobe)
{
	struct bt_target t = {
		.kind = BT_SPEC_KFUNC,
		.retprobe = retprobe,
		.name = (char *)f->base,
		.func = (char *)f->name,
	};

	return bt_targets__add(out, &t);
}

static bool has_glob(const char *s)
{
	return strpbrk(s, "*?[\\") != NULL;
}

/* Whether f matches: exact names, globs or regexes, on the base name or the real symbol. */
static bool matches(const struct kf *f, const char *pattern, size_t plen, const regex_t *re)
{
	if (re)
		return bt_regex_whole(re, f->base) ||
		       (f->base != f->name && bt_regex_whole(re, f->name));
	/* The literal prefix rejects most names before fnmatch() runs. */
	if (plen && strncmp(f->base, pattern, plen) && strncmp(f->name, pattern, plen))
		return false;
	return !fnmatch(pattern, f->base, 0) ||
	       (f->base != f->name && !fnmatch(pattern, f->name, 0));
}

int bt_kfuncs_match(const char *pattern, bool regex, bool retprobe, struct bt_targets *out)
{
	regex_t re;
	bool exact = !regex && !has_glob(pattern), has_re = false, cold;
	char base[512];
	const char *key;
	unsigned int j;
	size_t i, plen;
	int err, n = 0;

	if (regex) {
		/* As written: see bt_match__init() for why it is not wrapped in "^(...)$". */
		err = regcomp(&re, pattern, REG_EXTENDED);
		if (err) {
			char msg[256];

			regerror(err, &re, msg, sizeof(msg));
			return bt_usage_err("invalid regular expression '%s': %s", pattern, msg);
		}
		has_re = true;
	}
	err = load();
	if (err) {
		bt_err("cannot list the kernel functions: %s", strerror(-err));
		goto cleanup;
	}
	if (exact) {
		/* "foo" gets every copy of foo; the real "foo.isra.0" gets that one. */
		key = bt_kfunc_base(pattern, base, sizeof(base), &cold) ? base : pattern;
		for (j = first_base(&S.funcs, key); j != NIL; j = next_base(&S.funcs, j)) {
			const struct kf *f = &S.funcs.v[j];

			if (f->flags & KF_UNTRACEABLE || (key == base && strcmp(f->name, pattern)))
				continue;
			err = add_target(out, f, retprobe);
			if (err)
				goto cleanup;
			n++;
		}
		err = n;
		goto cleanup;
	}
	plen = regex ? 0 : strcspn(pattern, "*?[\\");
	for (i = 0; i < S.funcs.n; i++) {
		const struct kf *f = &S.funcs.v[i];

		if (f->flags & (KF_UNTRACEABLE | KF_DUP))
			continue;
		if (!matches(f, pattern, plen, has_re ? &re : NULL) ||
		    bt_kfunc_wildcard_denied(f->base))
			continue;
		err = add_target(out, f, retprobe);
		if (err)
			goto cleanup;
		n++;
	}
	err = n;
cleanup:
	if (has_re)
		regfree(&re);
	return err;
}

size_t bt_kfunc_copies(const char *name, const char **out, size_t max)
{
	unsigned int j;
	size_t n = 0;

	if (load())
		return 0;
	for (j = first_base(&S.funcs, name); j != NIL; j = next_base(&S.funcs, j)) {
		const struct kf *f = &S.funcs.v[j];

		/* the function itself has its name as its base; a copy has a suffix */
		if (f->flags & (KF_UNTRACEABLE | KF_DUP) || f->name == f->base)
			continue;
		if (n < max)
			out[n] = f->name;
		n++;
	}
	return n;
}

/* The kallsyms table: the candidates themselves on the kallsyms path, else read now. */
static struct kf_table *kallsyms_table(void)
{
	struct range ranges[6];
	size_t nranges;

	if (S.info.source == BT_KFUNCS_KALLSYMS_BTF)
		return &S.funcs;
	if (!S.ksyms.loaded) {
		S.ksyms.loaded = true;
		S.ksyms.err = load_kallsyms(&S.ksyms, ranges, &nranges);
		if (!S.ksyms.err)
			S.ksyms.err = table_index(&S.ksyms);
	}
	return S.ksyms.err ? NULL : &S.ksyms;
}

const char *bt_kfuncs_why_not(const char *name)
{
	const struct btf *btf;
	const struct kf *f = NULL;
	struct kf_table *k;
	unsigned char all = 0xff;
	char base[512];
	unsigned int j;
	bool cold;
	const char *key;

	if (load())
		return "the kernel's function list is unreadable";
	key = bt_kfunc_base(name, base, sizeof(base), &cold) ? base : name;
	if (cold)
		return "a '.cold' part is not a function entry";
	for (j = first_base(&S.funcs, key); j != NIL; j = next_base(&S.funcs, j)) {
		f = &S.funcs.v[j];
		if (!(f->flags & KF_UNTRACEABLE))
			return NULL; /* traceable */
		all &= f->flags;
	}
	if (f && (all & KF_BLACKLIST))
		return "function is not traceable (blacklisted for kprobes)";
	if (f && (all & KF_RANGE))
		return "function is not traceable (init, entry or noinstr code)";
	if (f && (all & KF_NOTFUNC))
		return "not a function";
	if (f && f->module && (all & KF_NOBTF))
		return "module functions can only be listed through available_filter_functions, "
		       "which is unreadable";
	if (f)
		return "function is not traceable (inlined, notrace, or blacklisted)";
	/* Not a candidate: does the kernel have it at all? */
	k = kallsyms_table();
	if (k && k != &S.funcs) {
		j = first_base(k, key);
		if (j != NIL && (k->v[j].flags & KF_NOTFUNC))
			return "not a function";
		if (j != NIL)
			return "function is not traceable (inlined, notrace, or blacklisted)";
	}
	/* In BTF but in no symbol table: inlined into every caller. */
	btf = S.src.btf ? S.src.btf : bt_vmlinux_btf();
	if (btf && btf__find_by_name_kind(btf, key, BTF_KIND_FUNC) > 0)
		return "function is not traceable (inlined, notrace, or blacklisted)";
	return "no such function";
}

/* available_filter_functions of a tracefs already mounted (completion mounts nothing), or "". */
static const char *mounted_filter_path(void)
{
	static const char *const dflt[] = {
		"/sys/kernel/tracing/available_filter_functions",
		"/sys/kernel/debug/tracing/available_filter_functions",
	};
	size_t i;
	int fd;

	if (S.src.filter_functions)
		return S.src.filter_functions;
	for (i = 0; i < sizeof(dflt) / sizeof(dflt[0]); i++) {
		fd = open(dflt[i], O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			close(fd);
			return dflt[i];
		}
	}
	return "";
}

int bt_kfuncs_foreach_prefix(const char *prefix, int (*cb)(const char *name, void *ctx), void *ctx)
{
	size_t i, plen = strlen(prefix);
	const struct btf *btf;
	const char *name;
	__u32 id, cnt;
	int fd, err;

	/*
	 * The exact list when ftrace's is readable. Otherwise not the kallsyms path of load():
	 * the kernel spends 60-120 ms formatting /proc/kallsyms, too long for every TAB; the BTF
	 * functions of vmlinux are read in a few ms and are the functions that path keeps, give
	 * or take the blacklisted and init ones, which the command then names in its error.
	 */
	name = mounted_filter_path();
	fd = *name ? open(name, O_RDONLY | O_CLOEXEC) : -1;
	if (fd >= 0) {
		close(fd);
		err = load();
		if (err)
			return err;
		for (i = 0; i < S.funcs.n; i++) {
			const struct kf *f = &S.funcs.v[i];

			if (f->flags & (KF_UNTRACEABLE | KF_DUP) || strncmp(f->base, prefix, plen))
				continue;
			err = cb(f->base, ctx);
			if (err)
				return err;
		}
		return 0;
	}
	btf = S.src.btf ? S.src.btf : bt_vmlinux_btf();
	if (!btf)
		return -ENOENT;
	for (id = 1, cnt = btf__type_cnt(btf); id < cnt; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);

		if (!btf_is_func(t))
			continue;
		name = btf__name_by_offset(btf, t->name_off);
		if (!name || strncmp(name, prefix, plen))
			continue;
		err = cb(name, ctx);
		if (err)
			return err;
	}
	return 0;
}
