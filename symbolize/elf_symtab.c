// SPDX-License-Identifier: GPL-2.0
/*
 * What the ELF reader (bt_elf.c) and the separate-debug-info finder (elf_debug.c) both read
 * with: sections by name or type, the build-id note, and a symbol table merged into the
 * sorted function list. Below both: bt_elf.c asks elf_debug.c for debug symbols, so these
 * cannot live in bt_elf.c without the two files calling each other.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf_internal.h"

static atomic_ulong refused; /* the unwinder's worker reads files too */

unsigned long bt_elf__refused(void)
{
	return atomic_load(&refused);
}

void bt_elf__lim_mem(size_t len, struct bt_elf_lim *lim)
{
	lim->size = len;
	lim->disk = len;
}

int bt_elf__range_ok(const struct bt_elf_lim *lim, uint64_t off, uint64_t size, uint64_t cap)
{
	uint64_t disk = lim->disk * BT_ELF_DISK_FACTOR + BT_ELF_DISK_SLACK;

	if (lim->disk > UINT64_MAX / BT_ELF_DISK_FACTOR - BT_ELF_DISK_SLACK)
		disk = UINT64_MAX;
	if (off > lim->size || size > lim->size - off || size > disk || size > cap) {
		atomic_fetch_add(&refused, 1);
		return 0;
	}
	return 1;
}

int bt_elf__scn_ok(const struct bt_elf_lim *lim, Elf_Scn *scn, const GElf_Shdr *sh, uint64_t cap)
{
	if (sh->sh_type == SHT_NOBITS)
		return 1; /* nothing is read: libelf gives no bytes */
	if (!bt_elf__range_ok(lim, sh->sh_offset, sh->sh_size, cap))
		return 0;
	if (sh->sh_flags & SHF_COMPRESSED) {
		GElf_Chdr ch;

		/* what decompressing it would allocate */
		if (!gelf_getchdr(scn, &ch) || ch.ch_size > cap) {
			atomic_fetch_add(&refused, 1);
			return 0;
		}
	}
	return 1;
}

Elf_Data *bt_elf__getdata(const struct bt_elf_lim *lim, Elf_Scn *scn, uint64_t cap)
{
	GElf_Shdr sh;

	if (!scn || !gelf_getshdr(scn, &sh) || !bt_elf__scn_ok(lim, scn, &sh, cap))
		return NULL;
	return elf_getdata(scn, NULL);
}

Elf_Data *bt_elf__rawdata(const struct bt_elf_lim *lim, Elf_Scn *scn, uint64_t cap)
{
	GElf_Shdr sh;

	if (!scn || !gelf_getshdr(scn, &sh) || !bt_elf__scn_ok(lim, scn, &sh, cap))
		return NULL;
	return elf_rawdata(scn, NULL);
}

Elf_Data *bt_elf__rawchunk(const struct bt_elf_lim *lim, Elf *e, uint64_t off, uint64_t size,
			   uint64_t cap)
{
	if (!bt_elf__range_ok(lim, off, size, cap))
		return NULL;
	return elf_getdata_rawchunk(e, off, size, ELF_T_BYTE);
}

int bt_elf__debug_scns_ok(Elf *e, const struct bt_elf_lim *lim)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(e, &shstrndx) || !bt_elf__shstrtab_ok(e, lim))
		return 0;
	while ((scn = elf_nextscn(e, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, &sh))
			return 0;
		n = elf_strptr(e, shstrndx, sh.sh_name);
		if (n && (!strncmp(n, ".debug", 6) || !strncmp(n, ".zdebug", 7)) &&
		    !bt_elf__scn_ok(lim, scn, &sh, BT_ELF_MAX_SECTION))
			return 0;
	}
	return 1;
}

/*
 * The header tables, from the raw ELF header: elf_begin() sizes its section array from the
 * section count, and the first section header (the extended counts) is read before any
 * check of ours could run on what libelf gives back.
 */
int bt_elf__precheck(int fd, struct bt_elf_lim *lim)
{
	union {
		Elf64_Ehdr e64;
		Elf32_Ehdr e32;
	} h;
	uint64_t shoff, shnum, phoff, phnum, shent, phent;
	struct stat st;
	int is64;

	if (fstat(fd, &st))
		return -errno;
	lim->size = st.st_size;
	lim->disk = (uint64_t)st.st_blocks * 512;
	if (pread(fd, &h, sizeof(h), 0) < (ssize_t)sizeof(h.e32) ||
	    memcmp(h.e64.e_ident, ELFMAG, SELFMAG))
		return 0; /* not ELF: libelf says so */
	is64 = h.e64.e_ident[EI_CLASS] == ELFCLASS64;
	if (is64) {
		shoff = h.e64.e_shoff;
		shnum = h.e64.e_shnum;
		shent = sizeof(Elf64_Shdr);
		phoff = h.e64.e_phoff;
		phnum = h.e64.e_phnum;
		phent = sizeof(Elf64_Phdr);
	} else {
		shoff = h.e32.e_shoff;
		shnum = h.e32.e_shnum;
		shent = sizeof(Elf32_Shdr);
		phoff = h.e32.e_phoff;
		phnum = h.e32.e_phnum;
		phent = sizeof(Elf32_Phdr);
	}
	if (shoff && (!shnum || phnum == PN_XNUM)) {
		/* the real counts live in the first section header */
		Elf64_Shdr s64;
		Elf32_Shdr s32;

		if (!bt_elf__range_ok(lim, shoff, shent, shent))
			return -ENOEXEC;
		if (is64 ? pread(fd, &s64, sizeof(s64), shoff) != sizeof(s64)
			 : pread(fd, &s32, sizeof(s32), shoff) != sizeof(s32))
			return -ENOEXEC;
		if (!shnum)
			shnum = is64 ? s64.sh_size : s32.sh_size;
		if (phnum == PN_XNUM)
			phnum = is64 ? s64.sh_info : s32.sh_info;
	}
	if (shnum > BT_ELF_MAX_SHNUM || phnum > BT_ELF_MAX_LOADS) {
		atomic_fetch_add(&refused, 1);
		return -ENOEXEC;
	}
	if ((shoff && !bt_elf__range_ok(lim, shoff, shnum * shent, BT_ELF_MAX_SECTION)) ||
	    (phoff && !bt_elf__range_ok(lim, phoff, phnum * phent, BT_ELF_MAX_SECTION)))
		return -ENOEXEC;
	return 0;
}

int bt_elf__shstrtab_ok(Elf *e, const struct bt_elf_lim *lim)
{
	size_t shstrndx;
	GElf_Shdr sh;
	Elf_Scn *scn;

	if (elf_getshdrstrndx(e, &shstrndx) || !(scn = elf_getscn(e, shstrndx)) ||
	    !gelf_getshdr(scn, &sh))
		return 0;
	return bt_elf__scn_ok(lim, scn, &sh, BT_ELF_MAX_SECTION);
}

Elf_Scn *bt_elf__find_scn(Elf *e, const struct bt_elf_lim *lim, const char *name, GElf_Shdr *shdr)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(e, &shstrndx) || !bt_elf__shstrtab_ok(e, lim))
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

int bt_elf__read_build_id(Elf *e, const struct bt_elf_lim *lim, unsigned char *out, size_t cap,
			  size_t *len)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t nph, i;

	while ((scn = elf_nextscn(e, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		if (!note_build_id(e, bt_elf__getdata(lim, scn, BT_ELF_MAX_NOTE), out, cap, len))
			return 0;
	}
	/* no section headers (stripped with sstrip, or a core-like image): try PT_NOTE */
	if (elf_getphdrnum(e, &nph))
		return -ENOENT;
	for (i = 0; i < nph && i < BT_ELF_MAX_LOADS; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(e, i, &ph) || ph.p_type != PT_NOTE)
			continue;
		if (!bt_elf__range_ok(lim, ph.p_offset, ph.p_filesz, BT_ELF_MAX_NOTE))
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

static void read_verdefs(Elf *e, const struct bt_elf_lim *lim, struct verdefs *vd)
{
	GElf_Shdr sh, strsh;
	Elf_Scn *scn = bt_elf__find_scn_type(e, SHT_GNU_verdef, &sh), *str;
	Elf_Data *d;
	size_t off = 0, n;

	memset(vd, 0, sizeof(*vd));
	if (!scn || !(d = bt_elf__getdata(lim, scn, BT_ELF_MAX_SECTION)))
		return;
	/* the names' table is read whole by elf_strptr */
	str = elf_getscn(e, sh.sh_link);
	if (!str || !gelf_getshdr(str, &strsh) ||
	    !bt_elf__scn_ok(lim, str, &strsh, BT_ELF_MAX_SECTION))
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
int bt_elf__add_symtab(struct bt_elf *elf, Elf *e, const struct bt_elf_lim *lim, Elf_Scn *scn,
		       int from_debug, int dedup)
{
	struct addr_idx *sorted = NULL;
	size_t nsorted = 0, shnum, i, n;
	struct verdefs vd;
	Elf_Data *data, *versym = NULL;
	GElf_Shdr sh, vsh, strsh;
	Elf_Scn *str;
	int err = 0;

	if (!gelf_getshdr(scn, &sh) || !sh.sh_entsize || elf_getshdrnum(e, &shnum))
		return -ENOEXEC;
	/* the names, which elf_strptr reads whole, and the symbols, before either is read */
	str = elf_getscn(e, sh.sh_link);
	if (!str || !gelf_getshdr(str, &strsh) ||
	    !bt_elf__scn_ok(lim, str, &strsh, BT_ELF_MAX_SECTION))
		return -ENOEXEC;
	data = bt_elf__getdata(lim, scn, BT_ELF_MAX_SECTION);
	if (!data || !data->d_buf)
		return -ENOEXEC;
	elf->table_bytes += data->d_size + strsh.sh_size; /* held until elf_end */
	n = data->d_size / sh.sh_entsize;
	if (n > BT_ELF_MAX_SYMS)
		return -E2BIG;
	if (sh.sh_type == SHT_DYNSYM) {
		Elf_Scn *vs = bt_elf__find_scn_type(e, SHT_GNU_versym, &vsh);

		read_verdefs(e, lim, &vd);
		if (vs)
			versym = bt_elf__getdata(lim, vs, BT_ELF_MAX_SECTION);
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
