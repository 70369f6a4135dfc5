/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private to symbolize/: the layout of struct bt_elf, shared by the ELF reader (bt_elf.c),
 * the section and symbol table primitives below it (elf_symtab.c) and the separate-debug-info
 * finder (elf_debug.c).
 */
#ifndef BT_ELF_INTERNAL_H
#define BT_ELF_INTERNAL_H

#include <gelf.h>
#include <libelf.h>
#include <sys/types.h>

#include "bt_elf.h"

/* A bogus header can claim billions of entries; nothing real comes close. */
#define BT_ELF_MAX_SYMS (64u << 20)
#define BT_ELF_MAX_LOADS 4096

/*
 * Files the traced processes control are read here, and libelf allocates and reads whatever
 * size a header claims (elf_getdata, elf_strptr, elf_getdata_rawchunk: a malloc of sh_size
 * and a pread into it). So every table and section is checked against what the file can hold
 * BEFORE libelf is asked for it:
 *  - its end within the file's size (st_size);
 *  - its size within BT_ELF_DISK_FACTOR times the bytes the file has on disk (st_blocks * 512)
 *    plus BT_ELF_DISK_SLACK: a sparse file's holes read as zeros, 6 GiB of them for 752 KiB
 *    on disk. The factor leaves room for file systems that compress (ZFS reports compressed
 *    blocks; code and symbol tables compress 2-4 times);
 *  - its size within BT_ELF_MAX_SECTION (per section), BT_ELF_MAX_NOTE for notes and
 *    the debug link, and a compressed section's declared size (ch_size) within the same cap;
 *  - the section and program header tables within BT_ELF_MAX_SHNUM / BT_ELF_MAX_LOADS entries,
 *    checked on the raw header before elf_begin() (which sizes its tables from them).
 * A section that fails is treated as absent (the file as malformed when it is a header table).
 * Files stay read with ELF_C_READ, not ELF_C_READ_MMAP: the traced process can truncate a
 * mapped file under us, and a read of the lost pages would be SIGBUS.
 */
#define BT_ELF_MAX_SECTION (256u << 20)
#define BT_ELF_MAX_NOTE (64u << 10)
#define BT_ELF_MAX_SHNUM 65536
#define BT_ELF_DISK_FACTOR 8
#define BT_ELF_DISK_SLACK (1u << 20)

/* What one file (or image in memory) can back. */
struct bt_elf_lim {
	uint64_t size; /* st_size, or the image's length */
	uint64_t disk; /* st_blocks * 512 (the image's length) */
};
/* fstat fd, and check its ELF header's tables before elf_begin(); -ENOEXEC when they do not fit. */
int bt_elf__precheck(int fd, struct bt_elf_lim *lim);
void bt_elf__lim_mem(size_t len, struct bt_elf_lim *lim);
/* Whether [off, off + size) fits the file and the caps (cap: the largest size accepted). */
int bt_elf__range_ok(const struct bt_elf_lim *lim, uint64_t off, uint64_t size, uint64_t cap);
/* Whether the section's bytes (and, compressed, its declared size) may be read. */
int bt_elf__scn_ok(const struct bt_elf_lim *lim, Elf_Scn *scn, const GElf_Shdr *sh, uint64_t cap);
/* elf_getdata / elf_rawdata after bt_elf__scn_ok(); NULL when refused. */
Elf_Data *bt_elf__getdata(const struct bt_elf_lim *lim, Elf_Scn *scn, uint64_t cap);
Elf_Data *bt_elf__rawdata(const struct bt_elf_lim *lim, Elf_Scn *scn, uint64_t cap);
/* The same for a range through elf_getdata_rawchunk (program headers' notes, .eh_frame). */
Elf_Data *bt_elf__rawchunk(const struct bt_elf_lim *lim, Elf *e, uint64_t off, uint64_t size,
			   uint64_t cap);
/* Whether every section libdw reads whole (.debug_*, .zdebug_*) fits. */
int bt_elf__debug_scns_ok(Elf *e, const struct bt_elf_lim *lim);

/* One PT_LOAD segment: how file offsets and virtual addresses relate. */
struct bt_elf_load {
	uint64_t vaddr, memsz, offset, filesz;
};

/* The lookup index: one entry per distinct start address, sorted, with its end resolved. */
struct bt_elf_ent {
	uint64_t start, end;
	const struct bt_elf_sym *sym;
};

/* Names that had to be rewritten (a "@VERSION" cut off) live in these blocks. */
struct bt_elf_arena {
	struct bt_elf_arena *next;
	size_t used, cap;
	char data[];
};

/* A separate file (or in-memory image) whose symbols were merged in. */
struct bt_elf_aux {
	Elf *elf;
	int fd;
	void *mem; /* decompressed .gnu_debugdata */
	struct bt_elf_lim lim;
};

struct bt_elf {
	int fd;
	Elf *elf;
	char *path;
	char *root;
	int type;
	dev_t dev;
	ino_t ino;
	struct bt_elf_lim lim;
	char build_id[129];
	unsigned char build_id_raw[64];
	size_t build_id_len;
	struct bt_elf_load *loads;
	size_t nloads;

	/* symbols, loaded on first use; everything below is dropped by bt_elf__unload() */
	int syms_state; /* 0 not loaded, 1 loaded, -errno failed */
	struct bt_elf_sym *syms;
	uint64_t *sym_ends; /* parallel to syms: end from st_size, or the section end */
	size_t nsyms, syms_cap;
	struct bt_elf_ent *index;
	size_t nindex;
	int index_built;
	struct bt_elf_arena *arena;
	struct bt_elf_aux aux;
	char *debug_path;   /* the separate debug file used, if any (DWARF wants it too) */
	size_t table_bytes; /* symbol and name tables libelf read for us (bt_elf__add_symtab) */
	int sym_source;	    /* enum bt_elf_source */
};

/* elf_symtab.c */
int bt_elf__add_symtab(struct bt_elf *elf, Elf *e, const struct bt_elf_lim *lim, Elf_Scn *scn,
		       int from_debug, int dedup);
/* By name: the section name table is checked against lim before it is read. */
Elf_Scn *bt_elf__find_scn(Elf *e, const struct bt_elf_lim *lim, const char *name, GElf_Shdr *shdr);
Elf_Scn *bt_elf__find_scn_type(Elf *e, Elf64_Word type, GElf_Shdr *shdr);
/* Whether the section name table may be read (elf_strptr on it reads it whole). */
int bt_elf__shstrtab_ok(Elf *e, const struct bt_elf_lim *lim);
int bt_elf__read_build_id(Elf *e, const struct bt_elf_lim *lim, unsigned char *out, size_t cap,
			  size_t *len);

/*
 * elf_debug.c: a file named by a path inside elf's root (its debug file), opened as every file
 * of a traced process is (bt_procfile.h): the descriptor, or -errno
 */
int bt_elf__open_in_root(const struct bt_elf *elf, const char *path);
/* elf_debug.c: merge the symbols of separate debug info; 0 when some were found. */
int bt_elf__load_debugdata(struct bt_elf *elf);
int bt_elf__load_debugfile(struct bt_elf *elf);
/*
 * Find the separate debug file path without loading symbols (for DWARF); NULL if none. The
 * path is inside elf's root: open it with bt_elf__open_in_root().
 */
char *bt_elf__find_debug_file(struct bt_elf *elf);

#endif
