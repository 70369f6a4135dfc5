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
};

struct bt_elf {
	int fd;
	Elf *elf;
	char *path;
	char *root;
	int type;
	dev_t dev;
	ino_t ino;
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
	char *debug_path; /* the separate debug file used, if any (DWARF wants it too) */
	int sym_source;	  /* enum bt_elf_source */
};

/* elf_symtab.c */
int bt_elf__add_symtab(struct bt_elf *elf, Elf *e, Elf_Scn *scn, int from_debug, int dedup);
Elf_Scn *bt_elf__find_scn(Elf *e, const char *name, GElf_Shdr *shdr);
Elf_Scn *bt_elf__find_scn_type(Elf *e, Elf64_Word type, GElf_Shdr *shdr);
int bt_elf__read_build_id(Elf *e, unsigned char *out, size_t cap, size_t *len);

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
