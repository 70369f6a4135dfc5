/* SPDX-License-Identifier: GPL-2.0 */
/* Private to symbolize/: the pieces the symbolizer is assembled from. */
#ifndef BT_SYM_INTERNAL_H
#define BT_SYM_INTERNAL_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "bt_elf.h"
#include "bt_sym.h"

/* kallsyms.c, ksyms_cache.c */
/* A symbol of the per-boot copy (ksyms_cache.c), as the file holds it. */
struct bt_ksym_rec {
	uint64_t addr, size;
	uint32_t name, module; /* offsets into the names; module + 1, 0 for vmlinux */
	uint32_t type;
	uint32_t pad;
};
struct bt_ksym_seen; /* kallsyms.c: the copy's symbols looked up so far */
struct bt_ksym_seen *bt_ksym_seen__new(void);
/* The copy's records are read in blocks of this many, one block a lookup. */
#define BT_KSYM_BLOCK 128
/* A name read back from the copy: KSYM_NAME_LEN is 512 since 6.1; a longer one is cut. */
#define BT_KSYM_NAME_MAX 1024
struct bt_ksyms {
	struct bt_ksym *syms; /* read from kallsyms: sorted by address, one per address */
	size_t n;
	char *strs;	 /* every name and module, NUL-separated */
	size_t *by_name; /* lazily: indexes into syms sorted by name */
	int restricted;
	/*
	 * Read from a per-boot copy (ksyms_cache.c), which leaves out code made at run time:
	 * an address past vmlinux in no symbol of the copy is such code.
	 */
	int from_cache;
	uint64_t vmlinux_end;
	/*
	 * The copy is not held whole (syms and strs NULL; it was 4.9 MB of every run's peak
	 * copied, and mapped a binary search's probes touched most of its pages): the first
	 * address of every block of records, and the file, read a block and a name at a time;
	 * the symbols looked up are made struct bt_ksym once, in seen.
	 */
	int fd;
	uint64_t recs_at, strs_at, strs_len;
	uint64_t *block_addr;
	struct bt_ksym_seen *seen;
};
/* The pseudo-modules kallsyms gives code made at run time: BPF, ftrace, kprobes. */
int bt_ksym__runtime_module(const char *module);
/* A lookup that found no symbol: NULL, or the stand-in for code made at run time. */
const struct bt_ksym *bt_ksyms__miss(const struct bt_ksyms *ks, uint64_t addr, uint64_t *off);

/* procmaps.c: one line of /proc/PID/maps */
struct bt_map_line {
	uint64_t start, end, pgoff;
	unsigned int dev_major, dev_minor;
	uint64_t ino;
	char perms[5];
	const char *path; /* points into the line; "" for anonymous */
};
/* Parse one line in place (the trailing newline and " (deleted)" are cut off). */
int bt_procmaps__parse_line(char *line, struct bt_map_line *out);
/*
 * The bounds on /proc/PID/maps and /proc/PID/status as read here: a line of at most
 * BT_PROC_MAX_LINE bytes (the kernel writes paths of up to PATH_MAX, escaped: a longer line
 * is not one of its own and is skipped, counted), and at most BT_PROC_MAX_EXEC executable
 * mappings per process (vm.max_map_count allows 65530; real processes have hundreds; the
 * ones past it are left out, counted: their addresses show as [unknown]).
 */
#define BT_PROC_MAX_LINE 8192
#define BT_PROC_MAX_EXEC 8192
/*
 * One line of f into buf[len] (len <= BT_PROC_MAX_LINE + 1): 1, 0 at the end, -E2BIG for a
 * line that did not fit (read to its end and dropped).
 */
int bt_procmaps__read_line(FILE *f, char *buf, size_t len);

/* perfmap.c: /tmp/perf-PID.map of a JIT, read inside the process's root */
struct bt_perfmap;
/*
 * The map is written by the traced process, so everything about it is bounded before it is
 * read: it is read incrementally (only what was appended since the last refresh, in chunks),
 * and per process at most these (what is left out is counted, bt_perfmap__stats()):
 */
#define BT_PERFMAP_MAX_ENTRIES (1u << 20) /* symbols kept: 24 MiB of entries */
#define BT_PERFMAP_MAX_BYTES (64u << 20)  /* bytes read over the map's life, re-reads included */
#define BT_PERFMAP_MAX_LINE 4096	  /* a longer line is skipped (V8's names: ~200 bytes) */
#define BT_PERFMAP_READS_PER_SEC 4	  /* refreshes that read, per second */
/*
 * rootfd: an O_PATH descriptor of the process root (-1: ours); nspid: its pid in its own
 * namespace; owners[0..nowners): its uids, one of which (or root) must own the map (NULL: any)
 */
int bt_perfmap__open(int rootfd, int nspid, const uid_t *owners, size_t nowners,
		     struct bt_perfmap **out);
int bt_perfmap__open_path(const char *path, struct bt_perfmap **out);
void bt_perfmap__free(struct bt_perfmap *pm);
/*
 * Read what was appended since the last refresh (JITs append); cheap when nothing was. Bounded
 * per map (perfmap.c): entries, bytes read, line length and reads per second; past a bound the
 * rest is left out and counted, never an error.
 */
int bt_perfmap__refresh(struct bt_perfmap *pm);
/* The same at a given CLOCK_MONOTONIC time (the tests' clock for the reads-per-second cap). */
int bt_perfmap__refresh_at(struct bt_perfmap *pm, uint64_t now_ns);
/* What a perf map's bounds left out. */
struct bt_perfmap_stats {
	uint64_t long_lines;	 /* lines over the length cap, skipped */
	uint64_t bytes_unread;	 /* left unread by the entry or byte cap, as of the last refresh */
	uint64_t reads_deferred; /* refreshes past the reads-per-second cap (read later) */
};
void bt_perfmap__stats(const struct bt_perfmap *pm, struct bt_perfmap_stats *st);
const char *bt_perfmap__lookup(const struct bt_perfmap *pm, uint64_t addr, uint64_t *off);

/*
 * demangle.c: demangled names interned by the address of the mangled string (which is stable
 * while its file is loaded), so that the hot path allocates only the first time.
 */
struct bt_dmcache {
	struct bt_dm_slot *t;
	size_t n, cap; /* cap is a power of two */
};
/* The demangled form, or name itself when it is not mangled (or memory ran out). */
const char *bt_dmcache__get(struct bt_dmcache *c, const char *name);
void bt_dmcache__clear(struct bt_dmcache *c);

/* dwarf.c: lines and inlined frames, one address at a time, cached */
struct bt_dwarf;
struct bt_dwarf_frame {
	const char *name; /* the function (inlined ones first); may be NULL */
	const char *file;
	unsigned int line;
};
int bt_dwarf__open(struct bt_elf *elf, int allow_debuginfod, int demangle, struct bt_dwarf **out);
void bt_dwarf__free(struct bt_dwarf *dw);
/*
 * Frames for vaddr, innermost inlined call first, the containing function last. Returns the
 * count (0 when no DWARF covers vaddr); *out stays valid until bt_dwarf__free().
 */
int bt_dwarf__frames(struct bt_dwarf *dw, uint64_t vaddr, const struct bt_dwarf_frame **out);

/* dso.c: one file, shared by every process mapping it, symbols under an LRU */
struct bt_dso_cache;
struct bt_dso;
struct bt_dso_opts {
	size_t max_loaded;
	size_t budget; /* bytes of symbols held, all files together; 0: BT_SYM_BUDGET */
	int demangle;
	int debuginfo;
	int debuginfod;
};
int bt_dso_cache__new(const struct bt_dso_opts *opts, struct bt_dso_cache **out);
void bt_dso_cache__free(struct bt_dso_cache *c);
/*
 * Where a file came from, to reopen it after its descriptor was closed (BT_DSO_MAX_OPEN in
 * dso.c): the mapping [start, end) of pid (map_files), else its path inside rootfd (an O_PATH
 * descriptor of the process root, -1 for ours), which also resolves its debug links.
 */
struct bt_dso_src {
	int pid;
	uint64_t start, end;
	int rootfd;
};
/*
 * The dso for an open file (fd is not kept: bt_elf dups it), found again by dev+inode+mtime
 * or build-id. path is how the process names it; src (NULL: a file that cannot be reopened,
 * always held open, such as the vDSO's copy) is where it came from. Takes a reference.
 * -ENOEXEC and friends when the file is not usable ELF.
 */
int bt_dso_cache__get(struct bt_dso_cache *c, int fd, const char *path,
		      const struct bt_dso_src *src, struct bt_dso **out);
/*
 * The dso of a file already open, by the (dev, inode) /proc/PID/maps gives for a mapping of
 * it, with a reference; NULL when there is none (or its descriptor is parked). Another
 * process's mapping of a known file then costs no open at all.
 */
struct bt_dso *bt_dso_cache__find_id(struct bt_dso_cache *c, uint64_t dev, uint64_t ino);
void bt_dso__put(struct bt_dso_cache *c, struct bt_dso *d);
/* Another reference to d, for a mapping known to be the same file (no fstat). */
void bt_dso__ref(struct bt_dso *d);
struct bt_elf *bt_dso__elf(struct bt_dso *d);
const char *bt_dso__name(const struct bt_dso *d);
/*
 * The files no snapshot holds freed, their symbols with them: every one (all), else those
 * no snapshot held since the call before this one (a whole period between two calls idle).
 * What a long-lived caller keeps is then bounded by the processes alive, not by those that
 * came and went. Returns how many.
 */
size_t bt_dso_cache__drop_unused(struct bt_dso_cache *c, bool all);
/* Pin for this resolve generation: a dso used in a call is never evicted during it. */
void bt_dso_cache__next_generation(struct bt_dso_cache *c);
/*
 * Resolve file offset -> frame(s). Returns frames written (>= 1), filling name/offset/
 * reason/module; DWARF frames when debuginfo was asked for.
 */
int bt_dso__resolve(struct bt_dso_cache *c, struct bt_dso *d, uint64_t file_off, int is_ret,
		    struct bt_frame *frames, size_t cap);
void bt_dso_cache__stats(const struct bt_dso_cache *c, size_t *files, size_t *loaded,
			 size_t *evictions, size_t *parked);
/* Bytes of symbols held, and the files (and bytes) left without symbols by the budget. */
void bt_dso_cache__budget(const struct bt_dso_cache *c, size_t *held, uint64_t *over_files,
			  uint64_t *over_bytes);
/* Of the bytes held, those of files no snapshot maps (kept for a next process of theirs). */
size_t bt_dso_cache__unused_bytes(const struct bt_dso_cache *c);

#endif
