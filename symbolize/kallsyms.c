// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/kallsyms, parsed once. Lines are read with getline(): kernel names reach
 * KSYM_NAME_LEN (512) since 6.1, and a fixed 256-byte buffer is how other tools crash.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sym_internal.h"

static void seen_free(struct bt_ksym_seen *t);

/*
 * While loading, a bt_ksym holds offsets into the string arena, not pointers (the arena
 * moves as it grows): name as is, module + 1 (0 for vmlinux), and in size the line number,
 * which keeps the sort stable among aliases. One array serves from parsing to the end, so
 * the peak is that array, the names and the sort's index: ~11 MB for 122,000 symbols,
 * where a separate parsing array cost another 5 MB.
 */
#define KS_NAME(strs, s) ((strs) + (size_t)(s)->name)
#define KS_SEQ(s) ((s)->size)

static int ksym_rank(const struct bt_ksym *s, const char *strs)
{
	const char *p = KS_NAME(strs, s);
	int r = (s->type >= 'a' && s->type <= 'z') ? 10 : 0; /* global over local */

	if (s->type == 'W' || s->type == 'w' || s->type == 'V' || s->type == 'v')
		r += 5; /* a weak alias names the address worse than the strong symbol */
	/* x86-64 syscalls without arguments share one body with their 32-bit compat alias */
	if (!strncmp(p, "__ia32_", 7))
		r += 1;

	while (*p == '_' && r < 20) {
		r++;
		p++;
	}
	return r;
}

static const char *sort_strs; /* qsort has no context argument in C11 */

static int cmp_raw(const void *a, const void *b)
{
	const struct bt_ksym *x = a, *y = b;
	int rx, ry;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	rx = ksym_rank(x, sort_strs);
	ry = ksym_rank(y, sort_strs);
	if (rx != ry)
		return rx - ry;
	return KS_SEQ(x) < KS_SEQ(y) ? -1 : KS_SEQ(x) > KS_SEQ(y);
}

static int push_str(char **buf, size_t *len, size_t *cap, const char *s, size_t n, size_t *off)
{
	if (*len + n + 1 > *cap) {
		size_t ncap = *cap ? *cap * 2 : 1 << 20;
		char *nb;

		while (ncap < *len + n + 1)
			ncap *= 2;
		nb = realloc(*buf, ncap);
		if (!nb)
			return -ENOMEM;
		*buf = nb;
		*cap = ncap;
	}
	memcpy(*buf + *len, s, n);
	(*buf)[*len + n] = 0;
	*off = *len;
	*len += n + 1;
	return 0;
}

/* "ffffffff81000000 T _stext" or "ffffffffc0001000 t fn\t[module]" */
static int parse_line(char *line, struct bt_ksym *rs, char **name, size_t *name_len, char **mod,
		      size_t *mod_len)
{
	char *p = line, *end;

	rs->addr = strtoull(p, &end, 16);
	if (end == p || *end != ' ')
		return -EINVAL;
	p = end + 1;
	if (!*p || p[1] != ' ')
		return -EINVAL;
	rs->type = *p;
	p += 2;
	end = p + strcspn(p, "\t \n");
	if (end == p)
		return -EINVAL;
	*name = p;
	*name_len = end - p;
	*mod = NULL;
	*mod_len = 0;
	p = end + strspn(end, "\t ");
	if (*p == '[') {
		end = strchr(p, ']');
		if (end && end > p + 1) {
			*mod = p + 1;
			*mod_len = end - p - 1;
		}
	}
	return 0;
}

int bt_ksyms__load(const char *path, struct bt_ksyms **out)
{
	struct bt_ksym *syms = NULL, *grown;
	size_t nraw = 0, rcap = 0, slen = 0, scap = 0, i, n;
	size_t prev_mod = 0, prev_mod_len = 0, off;
	char *line = NULL, *strs = NULL, *shrunk;
	size_t lcap = 0;
	struct bt_ksyms *ks = NULL;
	int err = 0, nonzero = 0;
	FILE *f;

	*out = NULL;
	f = fopen(path ? path : "/proc/kallsyms", "re");
	if (!f)
		return -errno;
	while (getline(&line, &lcap, f) > 0) {
		struct bt_ksym rs = { 0 };
		char *name, *mod;
		size_t name_len, mod_len;

		if (parse_line(line, &rs, &name, &name_len, &mod, &mod_len))
			continue;
		if (rs.type == 'A' || rs.type == 'a')
			continue; /* absolute values (percpu offsets), not code */
		if (nraw == rcap) {
			rcap = rcap ? rcap * 2 : 65536;
			grown = realloc(syms, rcap * sizeof(*syms));
			if (!grown) {
				err = -ENOMEM;
				goto cleanup;
			}
			syms = grown;
		}
		err = push_str(&strs, &slen, &scap, name, name_len, &off);
		if (err)
			goto cleanup;
		rs.name = (const char *)off;
		if (mod) {
			/* a module's symbols come in one run: intern against the last one */
			if (prev_mod && prev_mod_len == mod_len &&
			    !memcmp(strs + prev_mod - 1, mod, mod_len)) {
				off = prev_mod - 1;
			} else {
				err = push_str(&strs, &slen, &scap, mod, mod_len, &off);
				if (err)
					goto cleanup;
				prev_mod = off + 1;
				prev_mod_len = mod_len;
			}
			rs.module = (const char *)(off + 1);
		}
		KS_SEQ(&rs) = nraw;
		nonzero |= rs.addr != 0;
		syms[nraw++] = rs;
	}
	ks = calloc(1, sizeof(*ks));
	if (!ks) {
		err = -ENOMEM;
		goto cleanup;
	}
	sort_strs = strs;
	qsort(syms, nraw, sizeof(*syms), cmp_raw);
	for (i = 0, n = 0; i < nraw; i++) {
		if (n && syms[i].addr == syms[n - 1].addr)
			continue; /* an alias; the best name sorted first */
		syms[n++] = syms[i];
	}
	/* give back what doubling left over: large blocks are mmap'ed, so this is real */
	if (n && (grown = realloc(syms, n * sizeof(*syms))))
		syms = grown;
	if (slen && (shrunk = realloc(strs, slen)))
		strs = shrunk;
	for (i = 0; i < n; i++) {
		syms[i].name = strs + (size_t)syms[i].name;
		if (syms[i].module)
			syms[i].module = strs + (size_t)syms[i].module - 1;
		syms[i].size = i + 1 < n ? syms[i + 1].addr - syms[i].addr : 0;
	}
	ks->syms = syms;
	ks->n = n;
	ks->strs = strs;
	ks->restricted = nraw > 0 && !nonzero;
	syms = NULL;
	strs = NULL;
	*out = ks;
	ks = NULL;
cleanup:
	free(ks);
	free(syms);
	free(strs);
	free(line);
	fclose(f);
	return err;
}

void bt_ksyms__free(struct bt_ksyms *ks)
{
	if (!ks)
		return;
	free(ks->syms);
	free(ks->strs);
	seen_free(ks->seen);
	free(ks->block_addr);
	if (ks->from_cache)
		close(ks->fd);
	free(ks->by_name);
	free(ks);
}

size_t bt_ksyms__count(const struct bt_ksyms *ks)
{
	return ks ? ks->n : 0;
}

int bt_ksyms__restricted(const struct bt_ksyms *ks)
{
	return ks ? ks->restricted : 0;
}

/*
 * An address matching no symbol of a table read from the cache (ksyms_cache.c): past vmlinux
 * it can only be code that comes and goes without a symbol (BPF programs, trampolines), named
 * "[jit]". Kept beside the lookup that asks it: the cache reader calls this file's loader, and
 * the two files would call each other.
 */
const struct bt_ksym *bt_ksyms__miss(const struct bt_ksyms *ks, uint64_t addr, uint64_t *off)
{
	static const struct bt_ksym jit = { .name = "[jit]", .module = "bpf", .type = 't' };

	if (!ks->from_cache || addr < ks->vmlinux_end)
		return NULL;
	if (off)
		*off = 0;
	return &jit;
}

/* addresses looked up, by a hash of the address: a stack tool names the same few again and again */
#define KSYM_HITS 4096

/*
 * The copy's symbols looked up so far, by index: an open-addressed table of pointers to
 * symbols made once (with their names), which stay where they are until bt_ksyms__free().
 */
struct bt_ksym_seen {
	size_t cap, n; /* cap a power of two */
	struct seen_slot {
		size_t idx;
		struct bt_ksym *sym; /* NULL: free */
	} * slots;
	/*
	 * Without it every frame named read a block: 72,761 reads in a 3 s offcputime beside a
	 * process churn, where the table held whole had cost none.
	 */
	struct ksym_hit {
		uint64_t addr; /* 0: empty (0 is never looked up) */
		const struct bt_ksym *sym;
	} hits[KSYM_HITS];
};

struct bt_ksym_seen *bt_ksym_seen__new(void)
{
	return calloc(1, sizeof(struct bt_ksym_seen));
}

static void seen_free(struct bt_ksym_seen *t)
{
	size_t i;

	for (i = 0; t && i < t->cap; i++)
		free(t->slots[i].sym);
	if (t)
		free(t->slots);
	free(t);
}

static int seen_grow(struct bt_ksym_seen *t)
{
	size_t cap = t->cap ? t->cap * 2 : 256, i, j;
	struct seen_slot *slots = calloc(cap, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (i = 0; i < t->cap; i++) {
		if (!t->slots[i].sym)
			continue;
		for (j = t->slots[i].idx & (cap - 1); slots[j].sym; j = (j + 1) & (cap - 1))
			;
		slots[j] = t->slots[i];
	}
	free(t->slots);
	t->slots = slots;
	t->cap = cap;
	return 0;
}

/* The copy's name at offset off into buf[len] (NUL-terminated, cut if longer): 0 or -1. */
static int copy_name(const struct bt_ksyms *ks, uint64_t off, char *buf, size_t len)
{
	size_t want = ks->strs_len - off < len - 1 ? ks->strs_len - off : len - 1;
	ssize_t got = pread(ks->fd, buf, want, ks->strs_at + off);

	if (got < 0)
		return -1;
	buf[got] = '\0';
	return 0;
}

/* The copy's symbol idx (its record r) as struct bt_ksym, made once; NULL without memory. */
static const struct bt_ksym *seen_sym(const struct bt_ksyms *ks, size_t idx,
				      const struct bt_ksym_rec *r)
{
	struct bt_ksym_seen *t = ks->seen;
	char name[BT_KSYM_NAME_MAX], module[BT_KSYM_NAME_MAX] = "";
	size_t j = 0, nlen, mlen;
	struct bt_ksym *sym;

	for (j = t->cap ? idx & (t->cap - 1) : 0; t->cap && t->slots[j].sym;
	     j = (j + 1) & (t->cap - 1))
		if (t->slots[j].idx == idx)
			return t->slots[j].sym;
	if ((t->n + 1) * 2 > t->cap) {
		if (seen_grow(t))
			return NULL;
		for (j = idx & (t->cap - 1); t->slots[j].sym; j = (j + 1) & (t->cap - 1))
			;
	}
	if (copy_name(ks, r->name, name, sizeof(name)) ||
	    (r->module && copy_name(ks, r->module - 1, module, sizeof(module))))
		return NULL;
	nlen = strlen(name) + 1;
	mlen = r->module ? strlen(module) + 1 : 0;
	/* the symbol and its names in one block */
	sym = malloc(sizeof(*sym) + nlen + mlen);
	if (!sym)
		return NULL;
	*sym = (struct bt_ksym){ .addr = r->addr, .size = r->size, .type = (char)r->type };
	sym->name = memcpy(sym + 1, name, nlen);
	sym->module = mlen ? memcpy((char *)(sym + 1) + nlen, module, mlen) : NULL;
	t->slots[j] = (struct seen_slot){ idx, sym };
	t->n++;
	return sym;
}

/* The copy's last symbol at or below addr: one block read. NULL when there is none. */
static const struct bt_ksym *cached_lookup(const struct bt_ksyms *ks, uint64_t addr)
{
	struct bt_ksym_rec recs[BT_KSYM_BLOCK];
	size_t lo = 0, hi = (ks->n + BT_KSYM_BLOCK - 1) / BT_KSYM_BLOCK, block, count;
	ssize_t want;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ks->block_addr[mid] <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	block = lo - 1;
	count = ks->n - block * BT_KSYM_BLOCK;
	if (count > BT_KSYM_BLOCK)
		count = BT_KSYM_BLOCK;
	want = (ssize_t)(count * sizeof(recs[0]));
	if (pread(ks->fd, recs, want, ks->recs_at + block * BT_KSYM_BLOCK * sizeof(recs[0])) !=
	    want)
		return NULL;
	/* the block's first address is block_addr[block], at or below addr */
	lo = 1;
	hi = count;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (recs[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return seen_sym(ks, block * BT_KSYM_BLOCK + lo - 1, &recs[lo - 1]);
}

const struct bt_ksym *bt_ksyms__lookup(const struct bt_ksyms *ks, uint64_t addr, uint64_t *off)
{
	size_t lo = 0, hi;
	const struct bt_ksym *s;

	if (!ks || ks->restricted || !addr)
		return NULL;
	if (ks->from_cache) {
		struct ksym_hit *hit = &ks->seen->hits[(addr * 0x9e3779b97f4a7c15ULL) >> 52];

		if (hit->addr == addr) {
			s = hit->sym;
		} else {
			s = cached_lookup(ks, addr);
			if (s)
				*hit = (struct ksym_hit){ addr, s };
		}
	} else {
		hi = ks->n;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (ks->syms[mid].addr <= addr)
				lo = mid + 1;
			else
				hi = mid;
		}
		s = lo ? &ks->syms[lo - 1] : NULL;
	}
	if (!s || (s->size && addr - s->addr >= s->size))
		return bt_ksyms__miss(ks, addr, off);
	if (off)
		*off = addr - s->addr;
	return s;
}

static const struct bt_ksym *name_sort_base;

static int cmp_by_name(const void *a, const void *b)
{
	const struct bt_ksym *x = &name_sort_base[*(const size_t *)a];
	const struct bt_ksym *y = &name_sort_base[*(const size_t *)b];
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	if (!x->module != !y->module)
		return x->module ? 1 : -1; /* vmlinux first */
	return x < y ? -1 : x > y;
}

/*
 * By name in the copy: every record looked at, a block at a time (attaching looks up a few
 * names, once; holding the copy's names sorted would cost every run their memory).
 */
static const struct bt_ksym *cached_find(const struct bt_ksyms *ks, const char *name,
					 const char *module)
{
	struct bt_ksym_rec recs[BT_KSYM_BLOCK];
	const struct bt_ksym *vmlinux = NULL, *s;
	char buf[BT_KSYM_NAME_MAX];
	size_t len = strlen(name), i, k, count;

	if (len + 1 >= sizeof(buf))
		return NULL;
	for (i = 0; i < ks->n; i += count) {
		count = ks->n - i < BT_KSYM_BLOCK ? ks->n - i : BT_KSYM_BLOCK;
		if (pread(ks->fd, recs, count * sizeof(recs[0]),
			  ks->recs_at + i * sizeof(recs[0])) != (ssize_t)(count * sizeof(recs[0])))
			return NULL;
		for (k = 0; k < count; k++) {
			if (copy_name(ks, recs[k].name, buf, len + 2) || strcmp(buf, name))
				continue;
			s = seen_sym(ks, i + k, &recs[k]);
			if (!s)
				return NULL;
			if (module ? s->module && !strcmp(s->module, module) : !s->module)
				return s;
			if (!module && !vmlinux)
				vmlinux = s; /* a module's, if vmlinux has none */
		}
	}
	return vmlinux;
}

const struct bt_ksym *bt_ksyms__find(struct bt_ksyms *ks, const char *name, const char *module)
{
	size_t lo = 0, hi, i;

	if (!ks || !name)
		return NULL;
	if (ks->from_cache)
		return cached_find(ks, name, module);
	if (!ks->by_name) {
		ks->by_name = malloc((ks->n ? ks->n : 1) * sizeof(*ks->by_name));
		if (!ks->by_name)
			return NULL;
		for (i = 0; i < ks->n; i++)
			ks->by_name[i] = i;
		name_sort_base = ks->syms;
		qsort(ks->by_name, ks->n, sizeof(*ks->by_name), cmp_by_name);
	}
	hi = ks->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(ks->syms[ks->by_name[mid]].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i < ks->n && !strcmp(ks->syms[ks->by_name[i]].name, name); i++) {
		const struct bt_ksym *s = &ks->syms[ks->by_name[i]];

		if (!module || (s->module && !strcmp(s->module, module)))
			return s;
	}
	return NULL;
}

/*
 * Frames that exist only because we trace: the BPF program itself, the trampoline that
 * called it, the tracepoint glue, and the return-probe trampolines.
 */
static const char *const artefact_prefix[] = {
	"bpf_prog_",
	"bpf_trampoline_",
	"__bpf_trace_",
	"__traceiter_", /* the tracepoint's caller of its BPF (and other) probes */
	"bpf_trace_run",
	"__bpf_prog_enter",
	"__bpf_prog_exit",
	"trace_call_bpf",
	"kprobe_perf_func",
	"kprobe_dispatcher",
	"kretprobe_dispatcher",
	"kprobe_ftrace_handler",
	"perf_trace_run_bpf_submit",
	"ftrace_trampoline",
	"ftrace_regs_caller",
	"ftrace_caller",
	"ftrace_call",
	"arch_ftrace_ops_list_func",
	"__kretprobe_trampoline",
	"kretprobe_trampoline",
	"arch_rethook_trampoline",
	"rethook_trampoline_handler",
	"fprobe_handler",
	/* classic tracepoints and uprobes reach BPF through their perf handlers */
	"perf_syscall_enter",
	"perf_syscall_exit",
	"perf_trace_",
	"uprobe_perf_func",
	"uprobe_dispatcher",
};

/*
 * The code a kretprobe (or rethook, or the function graph tracer) puts in place of a return
 * address. Kernels before 5.15 leave that address in stacks taken while the probe is armed:
 * it is the first byte of the trampoline, not a call's return into the function before it.
 */
static const char *const return_trampoline[] = {
	"kretprobe_trampoline",
	"__kretprobe_trampoline",
	"arch_rethook_trampoline",
	"return_to_handler",
};

int bt_ksym__is_return_trampoline(const char *name)
{
	size_t i;

	for (i = 0; name && i < sizeof(return_trampoline) / sizeof(return_trampoline[0]); i++)
		if (!strcmp(name, return_trampoline[i]))
			return 1;
	return 0;
}

int bt_ksym__runtime_module(const char *module)
{
	/* BPF programs ([bpf]), ftrace trampolines and optimized-kprobe detour buffers */
	return module && (!strcmp(module, "bpf") || !strcmp(module, "__builtin__ftrace") ||
			  !strcmp(module, "__builtin__kprobes"));
}

int bt_ksym__is_trace_artefact(const char *name, const char *module)
{
	size_t i;

	if (bt_ksym__runtime_module(module))
		return 1;
	if (!name)
		return 0;
	for (i = 0; i < sizeof(artefact_prefix) / sizeof(artefact_prefix[0]); i++) {
		if (!strncmp(name, artefact_prefix[i], strlen(artefact_prefix[i])))
			return 1;
	}
	return 0;
}
