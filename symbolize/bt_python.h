/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CPython's frames (docs/python.md): which file holds an interpreter and of which version, what
 * the kernel's walker reads in it (a row per minor version), and the code objects its stacks
 * name, read from the process's memory once each and kept per process.
 *
 * Everything read from a process is the traced side's: strings are cut at BT_PY_STR_MAX bytes
 * and their code points turned into UTF-8 (the output escapes control bytes), a count or a
 * pointer that does not fit is a read that failed, and a failed read names no frame.
 */
#ifndef BT_PYTHON_H
#define BT_PYTHON_H

#include <stddef.h>
#include <stdint.h>

#include <linux/types.h>

#include "bt_unwind.h"

#define BT_PY_STR_MAX 256     /* bytes of a name or a file name, UTF-8; longer ones are cut */
#define BT_PY_LINES_MAX 16384 /* bytes of a line table read; lines past it are not known */
#define BT_PY_CACHE_MAX 8192  /* code objects kept per process; past it, all are dropped */

/*
 * One minor version: the walker's offsets (probes/bt_unwind_maps.h, struct bt_unwind_py), and
 * where user space finds a code object's names and lines.
 */
struct bt_py_version {
	unsigned int major, minor;
	/* _PyRuntime -> the thread state's Py_tss_t */
	uint16_t runtime_tss;
	uint16_t tstate_frame, cframe_frame, flags; /* flags: BT_PY_* (probes/bt_unwind.h) */
	uint16_t frame_code, frame_back, frame_instr, frame_entry, frame_read;
	uint16_t code_insns, code_check;
	/* the code object (3.9, 3.10: code_qualname is co_name, code_linetable co_lnotab) */
	uint16_t code_filename, code_qualname, code_linetable, code_firstlineno;
	uint16_t lines_format; /* BT_PY_LINES_*: how the line table says lines */
	/* str: length and state at ASCII's offsets, data of a compact ASCII / other compact one */
	uint16_t str_length, str_state, str_ascii_data, str_compact_data;
	/* bytes: size and data */
	uint16_t bytes_size, bytes_data;
};

/*
 * Line tables: 3.11+'s locations (Objects/locations.md), 3.10's co_linetable (byte pairs:
 * bytes of code, then a signed line delta, -128 for none), 3.9's co_lnotab (byte pairs: bytes
 * of code, then a signed line delta, applied at the end of those bytes).
 */
enum bt_py_lines {
	BT_PY_LINES_LOCATIONS = 0,
	BT_PY_LINES_310,
	BT_PY_LINES_LNOTAB,
};

/* The row of a version, or NULL; the row of major.minor, or -ENOENT when it has none. */
const struct bt_py_version *bt_py_version_at(unsigned int row);
int bt_py_version_row(unsigned int major, unsigned int minor);

/*
 * What an interpreter's file tells the walker, in the file's own (link-time) addresses. row is
 * its version's; eval_* the evaluator and its cold part (end 0: none found).
 */
struct bt_py_file {
	unsigned int major, minor;
	int row; /* -ENOENT: a version without a row */
	uint64_t runtime, code_type;
	uint64_t eval_start[2], eval_end[2];
};
/*
 * Whether the ELF file fd holds CPython (its dynamic symbols _PyRuntime,
 * _PyEval_EvalFrameDefault and PyCode_Type), and of which version (Py_Version, 3.11+; else the
 * file's name, path, as python3.X or libpython3.X). 0, -ENOENT when it is not CPython, another
 * -errno when it cannot be read.
 */
int bt_py_file_detect(int fd, const char *path, struct bt_py_file *out);
/*
 * glibc's struct pthread's specific_1stblock, where keys below 32 keep their values: the
 * value of key k is at the thread pointer + BT_PY_GLIBC_TLS + k * 16 + 8. Read off
 * pthread_getspecific in Debian 12's glibc 2.36 (objdump -d of libc.so.6): on x86-64
 * ((k + 0x31) << 4) + %fs:0x10 (the thread pointer, struct pthread itself), then +8; on
 * aarch64 tpidr_el0 + (k << 4) - 0x630, then +8: struct pthread sits below the thread pointer
 * there (TLS_PRE_TCB_SIZE; pthread_self is tpidr_el0 - 0x740), specific_1stblock at its +0x110.
 */
#if defined(__aarch64__)
#define BT_PY_GLIBC_TLS (-0x630)
#else
#define BT_PY_GLIBC_TLS 0x310
#endif

/*
 * The walker's bt_unwind_py for a file found by bt_py_file_detect() and mapped with load bias
 * bias (runtime address = link-time + bias); tls_base is glibc's (BT_PY_GLIBC_TLS).
 * -ENOENT when its version has no row.
 */
int bt_py_walker_info(const struct bt_py_file *f, uint64_t bias, struct bt_unwind_py *out);

/* Reads len bytes of the process at addr, all of them or none: 0 or -errno. */
typedef int (*bt_py_read_fn)(void *ctx, uint64_t addr, void *buf, size_t len);

/* A code object as read: its names (NUL-terminated, UTF-8) and its line table. */
struct bt_py_code {
	uint32_t check; /* bt_py_check() of the bytes read */
	int firstline;
	char name[BT_PY_STR_MAX + 4];
	char file[BT_PY_STR_MAX + 4];
	unsigned char *lines; /* malloc'ed: the line table's bytes (NULL: none) */
	size_t nlines;
	unsigned int lines_format; /* its version's enum bt_py_lines */
};
/*
 * Read the code object at addr of version v through rd: 0, -EFAULT (a read failed), -EINVAL
 * (bytes that are no code object of v: a string too long or of no known kind, a size out of
 * bounds). Free out->lines with bt_py_code__clear().
 */
int bt_py_code_read(const struct bt_py_version *v, bt_py_read_fn rd, void *ctx, uint64_t addr,
		    struct bt_py_code *out);
void bt_py_code__clear(struct bt_py_code *c); /* NULL is fine */
/*
 * The line of instruction insn (2-byte code units from the first), 0 when not known;
 * BT_PY_INSN_UNKNOWN (before the first instruction): the code object's first line.
 */
unsigned int bt_py_code_line(const struct bt_py_code *c, uint32_t insn);

/*
 * Code objects of one process, read once each (by address and check) and kept until the
 * process's names are dropped. Strings returned stay valid until the next
 * bt_pycache__begin() or bt_pycache__free().
 */
struct bt_pycache;
/* rd NULL: pid's memory through process_vm_readv() */
struct bt_pycache *bt_pycache__new(int pid, bt_py_read_fn rd, void *ctx);
void bt_pycache__free(struct bt_pycache *c); /* NULL is fine */
/* Before the frames of one resolve call: a full cache is emptied here, never between. */
void bt_pycache__begin(struct bt_pycache *c);
/*
 * The names of the Python frame of code word and info word (probes/bt_unwind_maps.h): 0 with
 * *name and *file set and *line (0: not known), and *start_line, the function's first line,
 * when start_line is not NULL; -ENOENT when it cannot be named (a failed read, a check that
 * differs: the address holds another object than the one sampled).
 */
int bt_pycache__name(struct bt_pycache *c, uint64_t code_word, uint64_t info_word,
		     const char **name, const char **file, unsigned int *line,
		     unsigned int *start_line);
/* The process is gone (its pid may be another's): names kept stay, no more reads. */
void bt_pycache__stop_reading(struct bt_pycache *c);
/* Code objects read, and reads that failed, for -v and the tests. */
void bt_pycache__stats(const struct bt_pycache *c, uint64_t *read, uint64_t *failed);

#endif
