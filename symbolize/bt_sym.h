/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one symbolizer: kernel and user addresses to names, for every tool that prints one.
 * Tools never call libelf or libdw; they note processes when they first see them, resolve
 * whole stacks, and format frames.
 *
 *	struct bt_symbolizer *sym;
 *	struct bt_sym_opts o = { .debuginfo = env.debuginfo };
 *	bt_symbolizer__new(&o, &sym);
 *	bt_symbolizer__note_pid(sym, pid);             // on the first event from pid
 *	n = bt_symbolizer__resolve(sym, pid, ips, nips, BT_RESOLVE_STACK, frames, cap);
 *	for (i = 0; i < n; i++)
 *		bt_frame__format(&frames[i], BT_FMT_OFFSET, buf, sizeof(buf));
 *	bt_symbolizer__free(sym);
 *
 * Strings in frames stay valid until the next resolve call on the same symbolizer.
 * Not thread-safe: one symbolizer per thread.
 */
#ifndef BT_SYM_H
#define BT_SYM_H

#include <stddef.h>
#include <stdint.h>

#define BT_PID_KERNEL (-1)
/* The default memory budget for symbol tables (bt_sym_opts.mem_budget). */
#define BT_SYM_BUDGET (256ul << 20)
/* At most this many inlined frames are added in front of one address. */
#define BT_SYM_MAX_INLINE 8

struct bt_symbolizer;

enum bt_sym_reason {
	BT_SYM_OK = 0,
	BT_SYM_NO_SYMBOL,     /* the file has symbols, none covers this address */
	BT_SYM_STRIPPED,      /* the file has no symbols and no debug info was found */
	BT_SYM_NO_MAPPING,    /* no mapping of the process (nor a perf map) covers it */
	BT_SYM_PROCESS_GONE,  /* the process exited before it was first noted */
	BT_SYM_NO_PERMISSION, /* /proc/PID/... unreadable, or kernel addresses hidden */
	BT_SYM_BAD_FILE,      /* not ELF, malformed, unreadable, or changed since mapped */
	BT_SYM_NO_KSYMS,      /* kallsyms unavailable */
};

struct bt_frame {
	uint64_t addr;
	const char *name; /* demangled; NULL when unknown (see reason) */
	uint64_t offset;  /* addr - start of the symbol */
	const char *
		module; /* file path, "[vdso]", "[perf-map]", kernel module, "[bpf]"; NULL: vmlinux */
	const char *file;	 /* source file (debuginfo), or NULL */
	unsigned int line;	 /* 0 when unknown */
	unsigned int inlined;	 /* 1: an inlined call inside the next frame (same addr) */
	unsigned int start_line; /* a Python frame's function: its first line (def); 0: unknown */
	enum bt_sym_reason reason;
};

/*
 * A Python frame's module (docs/python.md): name is its function's qualified name, file and
 * line where it is in the source; name NULL when its code object could not be read.
 */
extern const char bt_sym_python[]; /* "[python]" */
#define BT_SYM_PYTHON bt_sym_python
int bt_frame__is_python(const struct bt_frame *f);
/*
 * The name of the marker frame where an evaluator call's Python frames could not all be read
 * (past the walker's cap, paged out, changing as read): a Python frame without file or line.
 */
extern const char bt_sym_python_unread[]; /* "[python: frames unread]" */

struct bt_sym_opts {
	int debuginfo;		 /* source lines and inlined frames from DWARF (libdw), lazily */
	int debuginfod;		 /* allow libdw to ask debuginfod servers; never silently */
	int no_demangle;	 /* print C++/Rust names as they are in the symbol table */
	size_t max_files;	 /* LRU bound on files with loaded symbols; 0 means 64 */
	const char *kallsyms;	 /* default "/proc/kallsyms" (tests pass fixtures) */
	const char *ksyms_cache; /* a directory for bt_ksyms__load_cached(); NULL: none */
	/* where warnings go (kptr_restrict, said once); NULL prints to stderr */
	void (*warn)(void *ctx, const char *msg);
	void *warn_ctx;
	/*
	 * Bytes of symbol tables held, all files together (the LRU evicts to stay within it; a
	 * file that does not fit even then gets no names, counted); 0 means BT_SYM_BUDGET
	 */
	size_t mem_budget;
};

int bt_symbolizer__new(const struct bt_sym_opts *opts, struct bt_symbolizer **out);
void bt_symbolizer__free(struct bt_symbolizer *sym); /* NULL is fine */

/*
 * Snapshot /proc/PID/maps, open every executable file mapping through
 * /proc/PID/map_files/ (or /proc/PID/root/PATH), remember the root and the namespaced pid for
 * /tmp/perf-PID.map. Call on the first event from a pid: names then survive its exit.
 * Idempotent. -ESRCH: gone already; -EACCES: /proc/PID unreadable.
 */
int bt_symbolizer__note_pid(struct bt_symbolizer *sym, int pid);
/*
 * The same for one process of the pid, told from others that have it before or after by a
 * cookie (the tools' announcements, probes/bt_stack.h; 0: whichever has it). A live snapshot
 * of another cookie is retired first, as at exit. start_ns, when not 0, is when the announced
 * process started (boot time): -ESRCH when the pid is another process's by now.
 */
int bt_symbolizer__note_proc(struct bt_symbolizer *sym, int pid, uint32_t cookie,
			     uint64_t start_ns);
/*
 * An executable mapping as a line of /proc/PID/maps gives it: for a process read too late,
 * its mappings as the kernel reported them when they were made (lib/stacks/bt_mmap_log.h).
 */
struct bt_sym_mapping {
	uint64_t start, end, pgoff;
	unsigned int dev_major, dev_minor;
	uint64_t ino;
	const char *path; /* "" for anonymous code, "[vdso]" */
};
/*
 * bt_symbolizer__note_proc() from maps[0..n) rather than /proc/PID/maps, for a process that
 * exited before it was read: files are opened by path in our own root and must still be the
 * inode that was mapped. A snapshot of the same process read earlier is replaced by maps (its
 * open files reused): read early, it may lack libraries mapped since.
 */
int bt_symbolizer__note_proc_maps(struct bt_symbolizer *sym, int pid, uint32_t cookie,
				  uint64_t start_ns, const struct bt_sym_mapping *maps, size_t n);
/*
 * Snapshot pid's mappings again now (it mapped code since: the unwinder met a pc outside its
 * table). Frames resolved before stay valid. -ENOENT when pid has no live snapshot (not
 * noted yet, or exec()ed since): its announcement notes it.
 */
int bt_symbolizer__refresh_pid(struct bt_symbolizer *sym, int pid);
/* Drop what was noted for pid (a tool calls this after the exit event has been printed). */
void bt_symbolizer__forget_pid(struct bt_symbolizer *sym, int pid);
/*
 * pid's process (cookie: 0 for whichever) exited, or exec()ed: its snapshot still names its
 * stacks (by pid and cookie; by pid alone while no other process is noted under it) until
 * bt_symbolizer__release_exited() is given a count of exits taken at or after this one, once
 * the output that may name it is out.
 */
void bt_symbolizer__exit_pid(struct bt_symbolizer *sym, int pid, uint32_t cookie);
/* Exits noted so far (retired snapshots, a new process under a known pid included). */
uint64_t bt_symbolizer__exits(const struct bt_symbolizer *sym);
/* Free the snapshots of the first upto exits. */
void bt_symbolizer__release_exited(struct bt_symbolizer *sym, uint64_t upto);
/*
 * Free the files no snapshot maps, with their symbols: all of them once their symbols take at
 * least min_bytes (0: always), else those no snapshot mapped since the call before this one
 * (idle a whole period between two calls: a binary that ran once). A caller kept running
 * between outputs (the exporter's kept profiles) holds only what the processes alive map, a
 * tool tracing for hours a little more: a shell loop's /bin/true stays for its next process.
 * Otherwise a file loaded stays until the LRU drops it, which may be never under its budget
 * (256 MiB). Returns how many were freed.
 */
size_t bt_symbolizer__drop_unused(struct bt_symbolizer *sym, size_t min_bytes);

enum bt_resolve_flags {
	/* addrs[0] is an instruction pointer, the rest are return addresses: look those up at
	 * addr - 1 so that a call at the very end of a function keeps its name and line */
	BT_RESOLVE_STACK = 1 << 0,
	/* kernel stacks: drop BPF/trampoline/kretprobe frames at the top (tracing artefacts) */
	BT_RESOLVE_TRIM = 1 << 1,
};

/*
 * Resolve n addresses of pid (BT_PID_KERNEL for kernel addresses) into frames, leaf first.
 * With opts.debuginfo one address may give up to 1 + BT_SYM_MAX_INLINE frames; a cap of
 * n * (1 + BT_SYM_MAX_INLINE) always suffices, n always suffices without it. Returns the
 * number of frames written, or -errno (-EINVAL). Unknown addresses still give a frame.
 */
int bt_symbolizer__resolve(struct bt_symbolizer *sym, int pid, const uint64_t *addrs, size_t n,
			   unsigned int flags, struct bt_frame *frames, size_t cap);
/*
 * Read now the names of the Python frames among addrs (a user stack of the running process
 * pid and cookie, as the kernel stored it), which only its memory holds: they stay with its
 * snapshot for a resolve after it exits. Returns how many were named (0: not running).
 */
int bt_symbolizer__read_python(struct bt_symbolizer *sym, int pid, uint32_t cookie,
			       const uint64_t *addrs, size_t n);
/* The same for one process of the pid (bt_symbolizer__note_proc): another gets no names. */
int bt_symbolizer__resolve_proc(struct bt_symbolizer *sym, int pid, uint32_t cookie,
				const uint64_t *addrs, size_t n, unsigned int flags,
				struct bt_frame *frames, size_t cap);

/*
 * When pid started (boot time, ns), to the clock tick /proc/PID/stat has it in: with the pid,
 * what tells a process from the one that has the pid after it. -ESRCH when there is none.
 */
int bt_proc_start_ns(int pid, uint64_t *ns);
/* Whether two start times are one within that precision. */
int bt_proc_same_start(uint64_t a, uint64_t b);

/* Statistics, for the bench and tests. */
struct bt_sym_stats {
	size_t files;	     /* files known */
	size_t files_parked; /* of them with their descriptor closed (at most 128 kept open) */
	size_t files_loaded; /* files with symbols in memory (bounded by max_files) */
	size_t evictions;    /* symbol tables dropped by the LRU */
	size_t procs;	     /* processes noted, running */
	size_t exited;	     /* processes exited, kept for the output still to come */
	/* what the bounds on traced processes' files left out (symbolize/perfmap.c, elf_internal.h) */
	uint64_t perfmap_long_lines;	 /* perf map lines over the length cap */
	uint64_t perfmap_bytes_unread;	 /* perf map bytes left unread by the caps */
	uint64_t perfmap_reads_deferred; /* perf map re-reads past the per-second cap */
	uint64_t elf_refused;	  /* ELF sections/tables past their file's size, blocks or cap */
	uint64_t maps_long_lines; /* /proc/PID/maps lines over the length cap, skipped */
	uint64_t maps_left_out;	  /* executable mappings past the per-process cap */
	size_t sym_bytes;	  /* bytes of symbol tables held now */
	size_t sym_bytes_unused;  /* of them, files no process noted maps (a cache) */
	uint64_t budget_files;	  /* files left without symbols by the memory budget */
	uint64_t budget_bytes;	  /* what they would have taken */
};
void bt_symbolizer__stats(const struct bt_symbolizer *sym, struct bt_sym_stats *st);
/*
 * One line saying what the bounds left out, or 0 (buf empty) when nothing was; the
 * symbolizer says it through opts.warn when it is freed.
 */
int bt_symbolizer__left_out(const struct bt_symbolizer *sym, char *buf, size_t len);

/* Forms: "name" by default; flags add to it. */
enum bt_fmt_flags {
	BT_FMT_OFFSET = 1 << 0, /* name+0x1f  (-s) */
	BT_FMT_ADDR = 1 << 1,	/* raw address first (-v) */
	BT_FMT_REASON = 1 << 2, /* "[unknown] (stripped)" instead of "[unknown]" (-v) */
	BT_FMT_MODULE = 1 << 3, /* " [module]" / " (libc.so.6)" after the name */
	BT_FMT_SOURCE = 1 << 4, /* " at file:line" when known; inlined frames marked */
	BT_FMT_VERBOSE = BT_FMT_ADDR | BT_FMT_REASON | BT_FMT_MODULE | BT_FMT_OFFSET,
};
/* snprintf-like: returns the length the full string has; buf is always terminated. */
int bt_frame__format(const struct bt_frame *f, unsigned int flags, char *buf, size_t len);
const char *bt_sym_reason__str(enum bt_sym_reason r);

/*
 * Kernel symbols: /proc/kallsyms parsed once into an address-sorted array (modules, BPF
 * programs), sizes up to the next symbol, names up to the kernel's 512 bytes.
 */
struct bt_ksyms;
struct bt_ksym {
	uint64_t addr;
	uint64_t size; /* to the next symbol */
	const char *name;
	const char *module; /* NULL for vmlinux, "bpf" for BPF programs, else the module */
	char type;	    /* 't', 'T', 'd', ... */
};
int bt_ksyms__load(const char *path, struct bt_ksyms **out); /* NULL: /proc/kallsyms */
/*
 * The same through a copy kept in dir for this boot and this set of modules (the kernel
 * prints its ~200,000 lines in ~70 ms of CPU each time they are read). The copy leaves out
 * code made at run time (BPF programs, ftrace and kprobe trampolines), which changes without
 * notice: such an address resolves to "[jit]" in module "bpf", a tracing artefact
 * (docs/symbolize.md). NULL paths: /proc/kallsyms, /proc/modules. Falls back to reading
 * kallsyms when no copy can be read or written.
 */
int bt_ksyms__load_cached(const char *dir, const char *kallsyms, const char *modules,
			  struct bt_ksyms **out);
void bt_ksyms__free(struct bt_ksyms *ks);
size_t bt_ksyms__count(const struct bt_ksyms *ks);
/* All addresses were 0: kptr_restrict or no CAP_SYSLOG; lookups then fail. */
int bt_ksyms__restricted(const struct bt_ksyms *ks);
/*
 * The symbol holding addr (its offset in *off), valid until bt_ksyms__free(). One thread at a
 * time per ks: a lookup in the per-boot copy keeps the symbols it meets (ksyms_cache.c).
 */
const struct bt_ksym *bt_ksyms__lookup(const struct bt_ksyms *ks, uint64_t addr, uint64_t *off);
/* By name (for the attach layer); module NULL matches any, vmlinux first. */
const struct bt_ksym *bt_ksyms__find(struct bt_ksyms *ks, const char *name, const char *module);
/* The symbolizer's own copy, loaded on first use (NULL if kallsyms is unreadable). */
struct bt_ksyms *bt_symbolizer__ksyms(struct bt_symbolizer *sym);

/* Is this kernel function an artefact of tracing (BPF program, trampoline, kretprobe)? */
int bt_ksym__is_trace_artefact(const char *name, const char *module);
/* Is it code that stands in for a return address (kretprobe_trampoline, ...)? */
int bt_ksym__is_return_trampoline(const char *name);
/* How many leading frames of a kernel stack are tracing artefacts. */
size_t bt_symbolizer__kernel_trim(struct bt_symbolizer *sym, const uint64_t *addrs, size_t n);

/* Demangle C++ (Itanium) and legacy Rust names; malloc'ed, or NULL when not mangled. */
char *bt_demangle(const char *name);

#endif
