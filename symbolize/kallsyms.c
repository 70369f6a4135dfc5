// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/kallsyms, parsed once. Lines are read with getline(): kernel names reach
 * KSYM_NAME_LEN (512) since 6.1, and a fixed 256-byte buffer is how other tools crash.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "sym_internal.h"

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
	if (ks->map)
		munmap(ks->map, ks->map_len);
	else
		free(ks->strs);
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

const struct bt_ksym *bt_ksyms__lookup(const struct bt_ksyms *ks, uint64_t addr, uint64_t *off)
{
	size_t lo = 0, hi;
	const struct bt_ksym *s;

	if (!ks || ks->restricted || !addr)
		return NULL;
	hi = ks->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ks->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	s = lo ? &ks->syms[lo - 1] : NULL;
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

const struct bt_ksym *bt_ksyms__find(struct bt_ksyms *ks, const char *name, const char *module)
{
	size_t lo = 0, hi, i;

	if (!ks || !name)
		return NULL;
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
