// SPDX-License-Identifier: GPL-2.0
/*
 * What the ELF reader (bt_elf.c) and the separate-debug-info finder (elf_debug.c) both read
 * with: sections by name or type, the build-id note, and a symbol table merged into the
 * sorted function list. Below both: bt_elf.c asks elf_debug.c for debug symbols, so these
 * cannot live in bt_elf.c without the two files calling each other.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "elf_internal.h"

Elf_Scn *bt_elf__find_scn(Elf *e, const char *name, GElf_Shdr *shdr)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(e, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(e, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, shdr))
			continue;
		n = elf_strptr(e, shstrndx, shdr->sh_name);
		if (n && !strcmp(n, name))
			return scn;
	}
	return NULL;
}

Elf_Scn *bt_elf__find_scn_type(Elf *e, Elf64_Word type, GElf_Shdr *shdr)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(e, scn))) {
		if (gelf_getshdr(scn, shdr) && shdr->sh_type == type)
			return scn;
	}
	return NULL;
}

static int note_build_id(Elf *e, Elf_Data *data, unsigned char *out, size_t cap, size_t *len)
{
	size_t off = 0, name_off, desc_off;
	GElf_Nhdr nh;

	while (data && off < data->d_size &&
	       (off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    !memcmp((char *)data->d_buf + name_off, "GNU", 4) && nh.n_descsz > 0 &&
		    nh.n_descsz <= cap) {
			memcpy(out, (char *)data->d_buf + desc_off, nh.n_descsz);
			*len = nh.n_descsz;
			return 0;
		}
	}
	return -ENOENT;
}

int bt_elf__read_build_id(Elf *e, unsigned char *out, size_t cap, size_t *len)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t nph, i;

	while ((scn = elf_nextscn(e, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		if (!note_build_id(e, elf_getdata(scn, NULL), out, cap, len))
			return 0;
	}
	/* no section headers (stripped with sstrip, or a core-like image): try PT_NOTE */
	if (elf_getphdrnum(e, &nph))
		return -ENOENT;
	for (i = 0; i < nph && i < BT_ELF_MAX_LOADS; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(e, i, &ph) || ph.p_type != PT_NOTE)
			continue;
		if (!note_build_id(e, elf_getdata_rawchunk(e, ph.p_offset, ph.p_filesz, ELF_T_NHDR),
				   out, cap, len))
			return 0;
	}
	return -ENOENT;
}

static char *arena_strndup(struct bt_elf *elf, const char *s, size_t n)
{
	struct bt_elf_arena *a = elf->arena;
	char *p;

	if (!a || a->cap - a->used < n + 1) {
		size_t cap = n + 1 > 16384 ? n + 1 : 16384;

		a = malloc(sizeof(*a) + cap);
		if (!a)
			return NULL;
		a->cap = cap;
		a->used = 0;
		a->next = elf->arena;
		elf->arena = a;
	}
	p = a->data + a->used;
	memcpy(p, s, n);
	p[n] = 0;
	a->used += n + 1;
	return p;
}

static int sym_kind(Elf *e, const GElf_Sym *s, size_t shnum, enum bt_elf_sym_kind *kind)
{
	switch (GELF_ST_TYPE(s->st_info)) {
	case STT_FUNC:
		*kind = BT_ELF_FUNC;
		return 1;
	case STT_GNU_IFUNC:
		*kind = BT_ELF_IFUNC;
		return 1;
	case STT_NOTYPE: {
		/* only assembler labels in code, not linker markers like _end or __bss_start */
		GElf_Shdr sh;
		Elf_Scn *scn;

		if (s->st_shndx >= shnum || s->st_shndx >= SHN_LORESERVE)
			return 0;
		scn = elf_getscn(e, s->st_shndx);
		if (!scn || !gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_EXECINSTR))
			return 0;
		*kind = BT_ELF_NOTYPE;
		return 1;
	}
	default:
		return 0;
	}
}

static uint64_t section_end(Elf *e, const GElf_Sym *s, size_t shnum)
{
	GElf_Shdr sh;
	Elf_Scn *scn;

	if (s->st_shndx >= shnum || s->st_shndx >= SHN_LORESERVE)
		return UINT64_MAX;
	scn = elf_getscn(e, s->st_shndx);
	if (!scn || !gelf_getshdr(scn, &sh) || sh.sh_addr + sh.sh_size <= s->st_value)
		return UINT64_MAX;
	return sh.sh_addr + sh.sh_size;
}

/* Version names of defined dynamic symbols, by index into .gnu.version_d. */
struct verdefs {
	const char *name[64];
};

static void read_verdefs(Elf *e, struct verdefs *vd)
{
	GElf_Shdr sh;
	Elf_Scn *scn = bt_elf__find_scn_type(e, SHT_GNU_verdef, &sh);
	Elf_Data *d;
	size_t off = 0, n;

	memset(vd, 0, sizeof(*vd));
	if (!scn || !(d = elf_getdata(scn, NULL)))
		return;
	for (n = 0; n < sh.sh_info && n < 1024; n++) {
		GElf_Verdef def;
		GElf_Verdaux aux;

		if (!gelf_getverdef(d, off, &def))
			break;
		if (def.vd_ndx < 64 && !(def.vd_flags & VER_FLG_BASE) &&
		    gelf_getverdaux(d, off + def.vd_aux, &aux))
			vd->name[def.vd_ndx] = elf_strptr(e, sh.sh_link, aux.vda_name);
		if (!def.vd_next)
			break;
		off += def.vd_next;
	}
}

/* Indexes, not pointers: elf->syms moves while a table is appended. */
struct addr_idx {
	uint64_t start;
	size_t idx;
};

static int cmp_addr_idx(const void *a, const void *b)
{
	const struct addr_idx *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* A dynsym entry that merely repeats a .symtab one only contributes its version. */
static struct bt_elf_sym *find_dup(struct bt_elf *elf, struct addr_idx *sorted, size_t n,
				   uint64_t vaddr, const char *name)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (sorted[mid].start < vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < n && sorted[lo].start == vaddr; lo++) {
		if (!strcmp(elf->syms[sorted[lo].idx].name, name))
			return &elf->syms[sorted[lo].idx];
	}
	return NULL;
}

static int grow_syms(struct bt_elf *elf, size_t need)
{
	struct bt_elf_sym *s;
	uint64_t *e;
	size_t cap = elf->syms_cap ? elf->syms_cap : 256;

	if (need <= elf->syms_cap)
		return 0;
	if (need > BT_ELF_MAX_SYMS)
		return -E2BIG;
	while (cap < need)
		cap *= 2;
	s = realloc(elf->syms, cap * sizeof(*s));
	if (!s)
		return -ENOMEM;
	elf->syms = s;
	e = realloc(elf->sym_ends, cap * sizeof(*e));
	if (!e)
		return -ENOMEM;
	elf->sym_ends = e;
	elf->syms_cap = cap;
	return 0;
}

/*
 * Append the function symbols of one table. With 'dedup', entries that already exist with the
 * same address and name are not added again (a later table only fills in the version).
 */
int bt_elf__add_symtab(struct bt_elf *elf, Elf *e, Elf_Scn *scn, int from_debug, int dedup)
{
	struct addr_idx *sorted = NULL;
	size_t nsorted = 0, shnum, i, n;
	struct verdefs vd;
	Elf_Data *data, *versym = NULL;
	GElf_Shdr sh, vsh;
	int err = 0;

	if (!gelf_getshdr(scn, &sh) || !sh.sh_entsize || elf_getshdrnum(e, &shnum))
		return -ENOEXEC;
	data = elf_getdata(scn, NULL);
	if (!data || !data->d_buf)
		return -ENOEXEC;
	n = data->d_size / sh.sh_entsize;
	if (n > BT_ELF_MAX_SYMS)
		return -E2BIG;
	if (sh.sh_type == SHT_DYNSYM) {
		Elf_Scn *vs = bt_elf__find_scn_type(e, SHT_GNU_versym, &vsh);

		read_verdefs(e, &vd);
		if (vs)
			versym = elf_getdata(vs, NULL);
	}
	if (dedup && elf->nsyms) {
		sorted = malloc(elf->nsyms * sizeof(*sorted));
		if (!sorted)
			return -ENOMEM;
		for (i = 0; i < elf->nsyms; i++)
			sorted[i] = (struct addr_idx){ elf->syms[i].vaddr, i };
		nsorted = elf->nsyms;
		qsort(sorted, nsorted, sizeof(*sorted), cmp_addr_idx);
	}
	for (i = 1; i < n; i++) {
		enum bt_elf_sym_kind kind;
		const char *name, *version = NULL, *at;
		struct bt_elf_sym *dup;
		GElf_Sym s;

		if (!gelf_getsym(data, i, &s) || s.st_shndx == SHN_UNDEF || !s.st_value)
			continue;
		if (!sym_kind(e, &s, shnum, &kind))
			continue;
		name = elf_strptr(e, sh.sh_link, s.st_name);
		if (!name || !*name)
			continue;
		if (versym) {
			GElf_Versym v;

			if (gelf_getversym(versym, i, &v) && (v & 0x7fff) < 64)
				version = vd.name[v & 0x7fff];
		}
		at = strchr(name, '@');
		if (at) {
			/* "memcpy@@GLIBC_2.14" as written into .symtab by the linker */
			const char *v = at + 1 + (at[1] == '@');

			if (!version && *v)
				version = v;
			name = arena_strndup(elf, name, at - name);
			if (!name) {
				err = -ENOMEM;
				goto cleanup;
			}
		}
		if (sorted && (dup = find_dup(elf, sorted, nsorted, s.st_value, name))) {
			if (!dup->version)
				dup->version = version;
			continue;
		}
		err = grow_syms(elf, elf->nsyms + 1);
		if (err)
			goto cleanup;
		elf->syms[elf->nsyms] = (struct bt_elf_sym){
			.name = name,
			.version = version,
			.vaddr = s.st_value,
			.size = s.st_size,
			.kind = kind,
			.bind = GELF_ST_BIND(s.st_info),
			.from_debug_file = from_debug,
		};
		elf->sym_ends[elf->nsyms] =
			s.st_size ? s.st_value + s.st_size : section_end(e, &s, shnum);
		if (elf->sym_ends[elf->nsyms] < s.st_value) /* wrapped: a bogus size */
			elf->sym_ends[elf->nsyms] = UINT64_MAX;
		elf->nsyms++;
	}
cleanup:
	free(sorted);
	return err;
}
