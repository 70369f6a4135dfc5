/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One reader of ELF files for the whole program: the symbolizer uses it to name addresses,
 * the attach layer to turn user function names into uprobe file offsets. Nothing outside
 * symbolize/ includes <libelf.h> or <elfutils/...>.
 *
 * A struct bt_elf is one file on disk plus, when the file itself has no .symtab, the symbols of
 * its separate debug information (.gnu_debugdata MiniDebugInfo, the .gnu_debuglink file, or
 * /usr/lib/debug/.build-id/xx/yyyy.debug), merged into one index. Addresses are the file's own
 * virtual addresses (st_value); load bias and file offsets go through the PT_LOAD segments.
 */
#ifndef BT_ELF_H
#define BT_ELF_H

#include <stddef.h>
#include <stdint.h>

struct bt_elf;

enum bt_elf_sym_kind {
	BT_ELF_FUNC = 1,  /* STT_FUNC */
	BT_ELF_IFUNC = 2, /* STT_GNU_IFUNC: the resolver, which is what a uprobe on it hits */
	BT_ELF_OBJECT = 3,
	BT_ELF_NOTYPE = 4, /* assembler entry points without a type */
};

struct bt_elf_sym {
	const char *name;    /* as in the symbol table, without any "@VERSION" suffix */
	const char *version; /* "GLIBC_2.2.5" from a versioned dynsym entry, or NULL */
	uint64_t vaddr;	     /* st_value */
	uint64_t size;	     /* st_size, 0 when unknown */
	enum bt_elf_sym_kind kind;
	unsigned char bind;	       /* STB_GLOBAL, STB_WEAK, STB_LOCAL */
	unsigned char from_debug_file; /* found only in the separate debug file */
};

/*
 * Open 'path' for reading. 'root' is a directory prefix to resolve debug links in (for files of
 * a process in another mount namespace, "/proc/PID/root"); NULL means "/". Returns 0 or -errno:
 * -ENOENT (no file), -EACCES, -ENOEXEC (not an ELF file, or a malformed one).
 */
int bt_elf__open(const char *path, const char *root, struct bt_elf **out);
/* The same for an already open descriptor (e.g. /proc/PID/map_files/...); the fd is dup'ed. */
int bt_elf__open_fd(int fd, const char *path, const char *root, struct bt_elf **out);
void bt_elf__close(struct bt_elf *elf); /* NULL is fine */

/* ET_EXEC, ET_DYN (PIE and shared libraries) */
int bt_elf__type(const struct bt_elf *elf);
/* Hex build-id string, or NULL when the file has none. */
const char *bt_elf__build_id(const struct bt_elf *elf);
/* Whether any symbol table (own or from debug info) was found; false for a fully stripped file. */
int bt_elf__has_symbols(const struct bt_elf *elf);

/*
 * Call cb for every defined function-like symbol (FUNC, IFUNC, NOTYPE in an executable
 * section), .symtab first, then .dynsym, then the debug file's. Undefined (SHN_UNDEF) entries
 * and zero addresses are skipped. cb returns 0 to go on, non-zero to stop (that value is then
 * returned).
 */
typedef int (*bt_elf_sym_cb)(const struct bt_elf_sym *sym, void *ctx);
int bt_elf__foreach_func(struct bt_elf *elf, bt_elf_sym_cb cb, void *ctx);

/* Map a virtual address to the file offset a uprobe wants, and back, through PT_LOAD. */
int bt_elf__vaddr_to_offset(const struct bt_elf *elf, uint64_t vaddr, uint64_t *offset);
int bt_elf__offset_to_vaddr(const struct bt_elf *elf, uint64_t offset, uint64_t *vaddr);

/*
 * The symbol covering vaddr (largest start <= vaddr, within its size when it has one), or NULL.
 * *off gets vaddr - start. O(log n) after the first call builds the sorted index.
 */
const struct bt_elf_sym *bt_elf__lookup(struct bt_elf *elf, uint64_t vaddr, uint64_t *off);

/*
 * Additions (not in the first version of this contract; nothing above changed).
 */

/* Where the symbols came from, for verbose reasons ("stripped" vs "no symbol"). */
enum bt_elf_source {
	BT_ELF_SRC_NONE = 0,
	BT_ELF_SRC_SYMTAB,    /* the file's own .symtab */
	BT_ELF_SRC_DYNSYM,    /* only .dynsym: a stripped file with no debug info found */
	BT_ELF_SRC_DEBUGDATA, /* .gnu_debugdata (MiniDebugInfo) */
	BT_ELF_SRC_DEBUGLINK, /* the .gnu_debuglink file */
	BT_ELF_SRC_BUILDID,   /* /usr/lib/debug/.build-id/xx/yyyy.debug */
};
int bt_elf__symbol_source(const struct bt_elf *elf);

/* The best definition of a function by name (global over local), or NULL. Linear. */
const struct bt_elf_sym *bt_elf__find_func(struct bt_elf *elf, const char *name);
/* Number of function symbols (loads them). */
size_t bt_elf__nsyms(struct bt_elf *elf);

/* The path given at open time, and the separate debug file used for symbols (or NULL). */
const char *bt_elf__path(const struct bt_elf *elf);
const char *bt_elf__debug_file(const struct bt_elf *elf);
/* The (dup'ed) descriptor the file is read through; valid until bt_elf__close(). */
int bt_elf__fd(const struct bt_elf *elf);

/*
 * Drop the symbol tables and index to bound memory (the symbolizer's LRU); the next lookup
 * reloads them through the still-open descriptor. Pointers from earlier lookups die here.
 */
void bt_elf__unload(struct bt_elf *elf);
/*
 * Close the descriptor of an unloaded file, keeping what was read at open (headers, PT_LOAD,
 * build-id), to bound the descriptors held (the symbolizer's LRU of open files); -EBUSY while
 * symbols are loaded. bt_elf__unpark() takes a descriptor of the same file again (dev and
 * inode checked, fd dup'ed): -ESTALE when it is another.
 */
int bt_elf__park(struct bt_elf *elf);
int bt_elf__unpark(struct bt_elf *elf, int fd);
int bt_elf__parked(const struct bt_elf *elf);

/*
 * Memory for symbols: what loading them will take at least, from the section headers alone
 * (the tables read and the index built over them), before anything is read; and what a
 * loaded file holds (debug information merged in included). The symbolizer's budget.
 */
size_t bt_elf__symbols_cost(struct bt_elf *elf);
size_t bt_elf__held_bytes(const struct bt_elf *elf);

/*
 * Sections and header tables refused, in this process so far, because they claimed more than
 * their file holds or a cap allows (elf_internal.h has the bounds): counted, never read.
 */
unsigned long bt_elf__refused(void);

#endif
