// SPDX-License-Identifier: GPL-2.0
/*
 * The ELF reader: headers, PT_LOAD, build-id, and a sorted function index built from .symtab,
 * .dynsym and separate debug info. Files are read with ELF_C_READ (pread into malloc'ed
 * buffers), not mmap: a mapped file that is truncated under us would raise SIGBUS, a read
 * just fails. What libelf is asked to read is checked first (elf_internal.h: the bounds).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bt_procfile.h"
#include "elf_internal.h"

static int libelf_ready = -1;

static int elf_init(void)
{
	if (libelf_ready < 0)
		libelf_ready = elf_version(EV_CURRENT) != EV_NONE;
	return libelf_ready ? 0 : -ENOSYS;
}

static int read_loads(struct bt_elf *elf)
{
	size_t nph, i;

	if (elf_getphdrnum(elf->elf, &nph))
		return elf->type == ET_REL ? 0 : -ENOEXEC;
	if (nph > BT_ELF_MAX_LOADS)
		return -ENOEXEC;
	elf->loads = calloc(nph ? nph : 1, sizeof(*elf->loads));
	if (!elf->loads)
		return -ENOMEM;
	for (i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf->elf, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		elf->loads[elf->nloads++] = (struct bt_elf_load){
			.vaddr = ph.p_vaddr,
			.memsz = ph.p_memsz,
			.offset = ph.p_offset,
			.filesz = ph.p_filesz,
		};
	}
	return 0;
}

static void hexify(const unsigned char *raw, size_t len, char *out)
{
	static const char hex[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < len; i++) {
		out[2 * i] = hex[raw[i] >> 4];
		out[2 * i + 1] = hex[raw[i] & 15];
	}
	out[2 * len] = 0;
}

int bt_elf__open_fd(int fd, const char *path, const char *root, struct bt_elf **out)
{
	struct bt_elf *elf;
	struct stat st;
	GElf_Ehdr eh;
	int err;

	*out = NULL;
	err = elf_init();
	if (err)
		return err;
	elf = calloc(1, sizeof(*elf));
	if (!elf)
		return -ENOMEM;
	elf->fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	elf->aux.fd = -1;
	if (elf->fd < 0) {
		err = -errno;
		goto cleanup;
	}
	if (fstat(elf->fd, &st)) {
		err = -errno;
		goto cleanup;
	}
	if (!S_ISREG(st.st_mode)) {
		err = S_ISDIR(st.st_mode) ? -EISDIR : -ENOEXEC;
		goto cleanup;
	}
	err = bt_elf__precheck(elf->fd, &elf->lim);
	if (err)
		goto cleanup;
	elf->dev = st.st_dev;
	elf->ino = st.st_ino;
	elf->path = strdup(path ? path : "");
	elf->root = root && *root && strcmp(root, "/") ? strdup(root) : NULL;
	if (!elf->path || (root && *root && strcmp(root, "/") && !elf->root)) {
		err = -ENOMEM;
		goto cleanup;
	}
	elf->elf = elf_begin(elf->fd, ELF_C_READ, NULL);
	if (!elf->elf || elf_kind(elf->elf) != ELF_K_ELF || !gelf_getehdr(elf->elf, &eh)) {
		err = -ENOEXEC;
		goto cleanup;
	}
	elf->type = eh.e_type;
	err = read_loads(elf);
	if (err)
		goto cleanup;
	if (!bt_elf__read_build_id(elf->elf, &elf->lim, elf->build_id_raw,
				   sizeof(elf->build_id_raw), &elf->build_id_len))
		hexify(elf->build_id_raw, elf->build_id_len, elf->build_id);
	*out = elf;
	return 0;
cleanup:
	bt_elf__close(elf);
	return err;
}

int bt_elf__open(const char *path, const char *root, struct bt_elf **out)
{
	int fd, err;

	*out = NULL;
	fd = bt_procfile_open(-1, path, NULL, NULL);
	if (fd < 0)
		return fd;
	err = bt_elf__open_fd(fd, path, root, out);
	close(fd);
	return err;
}

static void aux_close(struct bt_elf_aux *aux)
{
	if (aux->elf)
		elf_end(aux->elf);
	if (aux->fd >= 0)
		close(aux->fd);
	free(aux->mem);
	aux->elf = NULL;
	aux->fd = -1;
	aux->mem = NULL;
}

void bt_elf__unload(struct bt_elf *elf)
{
	struct bt_elf_arena *a, *next;

	if (!elf || !elf->syms_state)
		return;
	free(elf->syms);
	free(elf->sym_ends);
	free(elf->index);
	for (a = elf->arena; a; a = next) {
		next = a->next;
		free(a);
	}
	aux_close(&elf->aux);
	free(elf->debug_path);
	elf->syms = NULL;
	elf->sym_ends = NULL;
	elf->index = NULL;
	elf->arena = NULL;
	elf->debug_path = NULL;
	elf->nsyms = elf->syms_cap = elf->nindex = 0;
	elf->table_bytes = 0;
	elf->index_built = 0;
	elf->sym_source = BT_ELF_SRC_NONE;
	elf->syms_state = 0;
	/* The section data libelf read for .symtab/.strtab stays until elf_end: start afresh. */
	if (elf->elf) {
		elf_end(elf->elf);
		/* the file may have been rewritten in place since: its headers are checked again */
		elf->elf = bt_elf__precheck(elf->fd, &elf->lim)
				   ? NULL
				   : elf_begin(elf->fd, ELF_C_READ, NULL);
	}
}

int bt_elf__park(struct bt_elf *elf)
{
	if (!elf || elf->syms_state || elf->fd < 0)
		return -EBUSY;
	if (elf->elf)
		elf_end(elf->elf);
	elf->elf = NULL;
	close(elf->fd);
	elf->fd = -1;
	return 0;
}

int bt_elf__unpark(struct bt_elf *elf, int fd)
{
	struct stat st;

	if (!elf || elf->fd >= 0)
		return elf ? 0 : -EINVAL;
	if (fstat(fd, &st))
		return -errno;
	if (st.st_dev != elf->dev || st.st_ino != elf->ino)
		return -ESTALE;
	elf->fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	if (elf->fd < 0)
		return -errno;
	elf->elf = elf_begin(elf->fd, ELF_C_READ, NULL);
	return elf->elf ? 0 : -ENOEXEC;
}

int bt_elf__parked(const struct bt_elf *elf)
{
	return elf && elf->fd < 0;
}

void bt_elf__close(struct bt_elf *elf)
{
	if (!elf)
		return;
	bt_elf__unload(elf);
	if (elf->elf)
		elf_end(elf->elf);
	if (elf->fd >= 0)
		close(elf->fd);
	free(elf->loads);
	free(elf->path);
	free(elf->root);
	free(elf);
}

int bt_elf__type(const struct bt_elf *elf)
{
	return elf ? elf->type : -EINVAL;
}

const char *bt_elf__build_id(const struct bt_elf *elf)
{
	return elf && elf->build_id_len ? elf->build_id : NULL;
}

const char *bt_elf__path(const struct bt_elf *elf)
{
	return elf ? elf->path : NULL;
}

int bt_elf__fd(const struct bt_elf *elf)
{
	return elf ? elf->fd : -EINVAL;
}

static int load_symbols(struct bt_elf *elf)
{
	GElf_Shdr sh;
	Elf_Scn *scn;
	int err = 0, own_symtab = 0;

	if (elf->syms_state)
		return elf->syms_state < 0 ? elf->syms_state : 0;
	if (elf->fd < 0)
		return -EBADF; /* parked: its owner reopens it first */
	if (!elf->elf) {
		err = -ENOEXEC;
		goto out;
	}
	scn = bt_elf__find_scn_type(elf->elf, SHT_SYMTAB, &sh);
	if (scn) {
		err = bt_elf__add_symtab(elf, elf->elf, &elf->lim, scn, 0, 0);
		if (err && err != -ENOEXEC)
			goto out;
		own_symtab = elf->nsyms > 0;
		if (own_symtab)
			elf->sym_source = BT_ELF_SRC_SYMTAB;
	}
	/*
	 * The linker's .symtab already holds every .dynsym definition (versioned ones as
	 * "name@@VERSION"): merging .dynsym again would cost a sort and a string compare per
	 * symbol for nothing, a third of the first lookup in a big binary.
	 */
	scn = own_symtab ? NULL : bt_elf__find_scn_type(elf->elf, SHT_DYNSYM, &sh);
	if (scn) {
		size_t before = elf->nsyms;

		err = bt_elf__add_symtab(elf, elf->elf, &elf->lim, scn, 0, 1);
		if (err && err != -ENOEXEC)
			goto out;
		if (!own_symtab && elf->nsyms > before)
			elf->sym_source = BT_ELF_SRC_DYNSYM;
	}
	err = 0;
	if (!own_symtab) {
		/* the order the issue asks for: MiniDebugInfo, then a debug file */
		if (bt_elf__load_debugdata(elf))
			bt_elf__load_debugfile(elf);
	}
out:
	elf->syms_state = err ? err : 1;
	return err;
}

int bt_elf__has_symbols(const struct bt_elf *celf)
{
	struct bt_elf *elf = (struct bt_elf *)celf; /* the symbol cache is filled on demand */

	if (!elf || load_symbols(elf))
		return 0;
	return elf->nsyms > 0;
}

int bt_elf__symbol_source(const struct bt_elf *celf)
{
	struct bt_elf *elf = (struct bt_elf *)celf;

	if (!elf || load_symbols(elf))
		return BT_ELF_SRC_NONE;
	return elf->sym_source;
}

const char *bt_elf__debug_file(const struct bt_elf *elf)
{
	return elf ? elf->debug_path : NULL;
}

int bt_elf__foreach_func(struct bt_elf *elf, bt_elf_sym_cb cb, void *ctx)
{
	size_t i;
	int err;

	if (!elf)
		return -EINVAL;
	err = load_symbols(elf);
	if (err)
		return err;
	for (i = 0; i < elf->nsyms; i++) {
		err = cb(&elf->syms[i], ctx);
		if (err)
			return err;
	}
	return 0;
}

const struct bt_elf_sym *bt_elf__find_func(struct bt_elf *elf, const char *name)
{
	const struct bt_elf_sym *best = NULL;
	size_t i;

	if (!elf || !name || load_symbols(elf))
		return NULL;
	for (i = 0; i < elf->nsyms; i++) {
		const struct bt_elf_sym *s = &elf->syms[i];

		if (strcmp(s->name, name))
			continue;
		/* a global definition wins over a local one of the same name */
		if (!best || (best->bind == STB_LOCAL && s->bind != STB_LOCAL))
			best = s;
	}
	return best;
}

int bt_elf__vaddr_to_offset(const struct bt_elf *elf, uint64_t vaddr, uint64_t *offset)
{
	size_t i;

	if (!elf)
		return -EINVAL;
	for (i = 0; i < elf->nloads; i++) {
		const struct bt_elf_load *l = &elf->loads[i];

		if (vaddr >= l->vaddr && vaddr - l->vaddr < l->filesz) {
			*offset = vaddr - l->vaddr + l->offset;
			return 0;
		}
	}
	return -ENOENT;
}

int bt_elf__offset_to_vaddr(const struct bt_elf *elf, uint64_t offset, uint64_t *vaddr)
{
	size_t i;

	if (!elf)
		return -EINVAL;
	for (i = 0; i < elf->nloads; i++) {
		const struct bt_elf_load *l = &elf->loads[i];

		if (offset >= l->offset && offset - l->offset < l->filesz) {
			*vaddr = offset - l->offset + l->vaddr;
			return 0;
		}
	}
	return -ENOENT;
}

/* Which of several symbols at one address names it best: lower is better. */
static unsigned int sym_rank(const struct bt_elf_sym *s)
{
	unsigned int r = 0;
	const char *p;

	r += s->bind == STB_GLOBAL ? 0 : s->bind == STB_WEAK ? 100 : 200;
	r += s->kind == BT_ELF_FUNC ? 0 : s->kind == BT_ELF_IFUNC ? 10 : 40;
	r += s->size ? 0 : 5;
	/* malloc over __libc_malloc */
	for (p = s->name; *p == '_' && p - s->name < 4; p++)
		r++;
	return r; /* < 256 */
}

/*
 * Stable LSD radix sort by (start, rank): no comparison callbacks, and byte positions that
 * are the same in every key (most high bytes of addresses) cost one histogram pass. For
 * 300,000 symbols this is several times faster than qsort().
 */
static int radix_sort(struct bt_elf_ent *v, unsigned char *rank, size_t n)
{
	struct bt_elf_ent *tmp = malloc(n * sizeof(*tmp));
	unsigned char *rtmp = malloc(n);
	size_t count[256], i, pass;
	int err = 0;

	if (!tmp || !rtmp) {
		err = -ENOMEM;
		goto cleanup;
	}
	for (pass = 0; pass < 9; pass++) {
		int shift = (int)(pass - 1) * 8;
		size_t sum = 0, c;

		memset(count, 0, sizeof(count));
		for (i = 0; i < n; i++)
			count[pass ? (v[i].start >> shift) & 0xff : rank[i]]++;
		for (c = 0; c < 256; c++) {
			size_t k = count[c];

			if (k == n)
				break; /* one value everywhere: nothing to reorder */
			count[c] = sum;
			sum += k;
		}
		if (c < 256)
			continue;
		for (i = 0; i < n; i++) {
			size_t d = count[pass ? (v[i].start >> shift) & 0xff : rank[i]]++;

			tmp[d] = v[i];
			rtmp[d] = rank[i];
		}
		memcpy(v, tmp, n * sizeof(*v));
		memcpy(rank, rtmp, n);
	}
cleanup:
	free(tmp);
	free(rtmp);
	return err;
}

static int build_index(struct bt_elf *elf)
{
	size_t i, n = 0;

	unsigned char *rank;
	int err;

	elf->index = malloc((elf->nsyms ? elf->nsyms : 1) * sizeof(*elf->index));
	rank = malloc(elf->nsyms ? elf->nsyms : 1);
	if (!elf->index || !rank) {
		free(rank);
		return -ENOMEM;
	}
	for (i = 0; i < elf->nsyms; i++) {
		elf->index[i] =
			(struct bt_elf_ent){ elf->syms[i].vaddr, elf->sym_ends[i], &elf->syms[i] };
		rank[i] = sym_rank(&elf->syms[i]);
	}
	err = radix_sort(elf->index, rank, elf->nsyms);
	free(rank);
	if (err) {
		free(elf->index);
		elf->index = NULL;
		return err;
	}
	for (i = 0; i < elf->nsyms; i++) {
		if (n && elf->index[n - 1].start == elf->index[i].start) {
			/* an alias: keep the best name, the longest extent */
			if (elf->index[i].sym->size && !elf->index[n - 1].sym->size)
				elf->index[n - 1].end = elf->index[i].end;
			continue;
		}
		elf->index[n++] = elf->index[i];
	}
	/* sizeless symbols end where the next one starts */
	for (i = 0; i + 1 < n; i++) {
		if (!elf->index[i].sym->size && elf->index[i].end > elf->index[i + 1].start)
			elf->index[i].end = elf->index[i + 1].start;
	}
	elf->nindex = n;
	elf->index_built = 1;
	return 0;
}

const struct bt_elf_sym *bt_elf__lookup(struct bt_elf *elf, uint64_t vaddr, uint64_t *off)
{
	size_t lo = 0, hi;
	const struct bt_elf_ent *e;

	if (!elf)
		return NULL;
	if (!elf->index_built) {
		if (load_symbols(elf) || build_index(elf))
			return NULL;
	}
	hi = elf->nindex;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (elf->index[mid].start <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	e = &elf->index[lo - 1];
	if (vaddr >= e->end)
		return NULL;
	if (off)
		*off = vaddr - e->start;
	return e->sym;
}

size_t bt_elf__nsyms(struct bt_elf *elf)
{
	if (!elf || load_symbols(elf))
		return 0;
	return elf->nsyms;
}

/* Per symbol: its entry, its end, its place in the index and the sort's rank byte. */
#define SYM_BYTES (sizeof(struct bt_elf_sym) + sizeof(uint64_t) + sizeof(struct bt_elf_ent) + 1)

size_t bt_elf__symbols_cost(struct bt_elf *elf)
{
	GElf_Shdr sh, str;
	Elf_Scn *scn, *s;

	if (!elf || !elf->elf)
		return 0;
	/* the table load_symbols() reads first: .symtab, else .dynsym */
	scn = bt_elf__find_scn_type(elf->elf, SHT_SYMTAB, &sh);
	if (!scn)
		scn = bt_elf__find_scn_type(elf->elf, SHT_DYNSYM, &sh);
	if (!scn || !sh.sh_entsize)
		return 0;
	s = elf_getscn(elf->elf, sh.sh_link);
	return sh.sh_size + (s && gelf_getshdr(s, &str) ? str.sh_size : 0) +
	       sh.sh_size / sh.sh_entsize * SYM_BYTES;
}

size_t bt_elf__held_bytes(const struct bt_elf *elf)
{
	const struct bt_elf_arena *a;
	size_t n;

	if (!elf || !elf->syms_state)
		return 0;
	n = elf->table_bytes + elf->syms_cap * (sizeof(*elf->syms) + sizeof(*elf->sym_ends));
	if (elf->index)
		n += elf->nsyms * sizeof(*elf->index);
	for (a = elf->arena; a; a = a->next)
		n += sizeof(*a) + a->cap;
	if (elf->aux.mem)
		n += elf->aux.lim.size; /* the decompressed MiniDebugInfo image */
	return n;
}
