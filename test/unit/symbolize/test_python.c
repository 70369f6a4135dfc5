// SPDX-License-Identifier: GPL-2.0
/*
 * symbolize/bt_python.c: the version table, CPython found in its files (Debian's python3.11 and
 * pyenv's libpython3.8-3.13 where installed), and code objects decoded from a process's memory:
 * crafted bytes as a hostile process would lay them (lengths out of bounds, strings of every
 * kind, surrogates and NULs, line tables cut short, an address reused by another object), and
 * a real interpreter's, a child of this test, read back through process_vm_readv().
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include "bt_elf.h"
#include "bt_python.h"
#include "bt_sym.h"
#include "harness.h"

/* A made-up process: a few regions of bytes at addresses of their own. */
#define MEM_REGIONS 8
struct mem {
	struct {
		uint64_t addr;
		unsigned char *bytes;
		size_t len;
	} r[MEM_REGIONS];
	int n;
	int reads;
};

static unsigned char *mem_add(struct mem *m, uint64_t addr, size_t len)
{
	m->r[m->n].addr = addr;
	m->r[m->n].bytes = calloc(1, len);
	m->r[m->n].len = len;
	return m->r[m->n++].bytes;
}

static void mem_free(struct mem *m)
{
	int i;

	for (i = 0; i < m->n; i++)
		free(m->r[i].bytes);
	m->n = 0;
}

static int mem_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct mem *m = ctx;
	int i;

	m->reads++;
	for (i = 0; i < m->n; i++)
		if (addr >= m->r[i].addr && addr - m->r[i].addr <= m->r[i].len &&
		    len <= m->r[i].len - (addr - m->r[i].addr)) {
			memcpy(buf, m->r[i].bytes + (addr - m->r[i].addr), len);
			return 0;
		}
	return -EFAULT;
}

static void put64(unsigned char *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

static void put32(unsigned char *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

#define CODE 0x10000
#define NAME 0x20000
#define FILE_ 0x30000
#define LINES 0x40000
#define CODE_TYPE 0x959440

/* A str of kind (1, 2, 4), compact, ASCII when ascii: n characters from chars (of that width). */
static void make_str(struct mem *m, const struct bt_py_version *v, uint64_t addr, int kind,
		     int ascii, uint64_t n, const void *chars, size_t nbytes)
{
	unsigned char *s = mem_add(m, addr, 4096);

	put64(s + v->str_length, n);
	put32(s + v->str_state, (uint32_t)(kind << 2 | 0x20 | (ascii ? 0x40 : 0) | 0x80));
	memcpy(s + (ascii ? v->str_ascii_data : v->str_compact_data), chars, nbytes);
}

/*
 * A 3.11 code object "outer.<locals>.handle" in "svc.py", first line 10, with the line table
 * lines[0..nlines) (size claimed: size).
 */
static void make_code(struct mem *m, const struct bt_py_version *v, const unsigned char *lines,
		      size_t nlines, uint64_t size)
{
	unsigned char *c = mem_add(m, CODE, 256), *b;

	put64(c + 8, CODE_TYPE);
	put32(c + 56, 2); /* co_argcount */
	put32(c + v->code_firstlineno, 10);
	put64(c + v->code_filename, FILE_);
	put64(c + v->code_qualname, NAME);
	put64(c + v->code_linetable, LINES);
	make_str(m, v, NAME, 1, 1, 21, "outer.<locals>.handle", 21);
	make_str(m, v, FILE_, 1, 1, 6, "svc.py", 6);
	/* as much as it claims, when that is a size a process could have */
	b = mem_add(m, LINES, 64 + (size > nlines && size < (1 << 21) ? size : nlines));
	put64(b + v->bytes_size, size);
	if (nlines)
		memcpy(b + v->bytes_data, lines, nlines);
}

static void test_versions(void)
{
	const struct bt_py_version *v;

	CHECK_INT(bt_py_version_row(3, 11), 0);
	CHECK_INT(bt_py_version_row(3, 12), 1);
	CHECK_INT(bt_py_version_row(3, 13), 2);
	CHECK_INT(bt_py_version_row(3, 9), 3);
	CHECK_INT(bt_py_version_row(3, 10), 4);
	CHECK_INT(bt_py_version_row(3, 8), -ENOENT);
	CHECK_INT(bt_py_version_row(2, 7), -ENOENT);
	v = bt_py_version_at(0);
	CHECK(v && v->major == 3 && v->minor == 11);
	CHECK(!bt_py_version_at(200));
	/* 3.9, 3.10: a frame object per evaluator call, f_lasti in bytes (3.9) or code units */
	v = bt_py_version_at(3);
	CHECK(v && v->minor == 9 && (v->flags & BT_PY_FRAME_OBJECT) &&
	      (v->flags & BT_PY_LASTI_BYTES) && v->lines_format == BT_PY_LINES_LNOTAB);
	v = bt_py_version_at(4);
	CHECK(v && v->minor == 10 && (v->flags & BT_PY_FRAME_OBJECT) &&
	      !(v->flags & BT_PY_LASTI_BYTES) && v->lines_format == BT_PY_LINES_310);
	for (unsigned int i = 0; i < 3; i++)
		CHECK(!(bt_py_version_at(i)->flags & BT_PY_FRAME_OBJECT) &&
		      bt_py_version_at(i)->lines_format == BT_PY_LINES_LOCATIONS);
	/* what the walker reads must lie within what it reads of a frame and a code object */
	for (unsigned int i = 0; (v = bt_py_version_at(i)); i++) {
		CHECK(v->frame_code + 8 <= v->frame_read && v->frame_back + 8 <= v->frame_read);
		CHECK(v->frame_instr + 8 <= v->frame_read && v->frame_entry < v->frame_read);
		CHECK(v->frame_read <= BT_PY_CODE_READ);
		CHECK(v->code_check + 32 <= BT_PY_CODE_READ && !(v->code_check & 7));
	}
}

/* The symbol's address in path's .symtab, 0 when none (pyenv's build keeps it). */
static uint64_t symtab_addr(const char *path, const char *name)
{
	struct bt_elf *e = NULL;
	const struct bt_elf_sym *s;
	uint64_t a = 0;

	if (bt_elf__open(path, NULL, &e))
		return 0;
	s = bt_elf__find_func(e, name);
	if (s)
		a = s->vaddr;
	bt_elf__close(e);
	return a;
}

static void test_detect(void)
{
	const char *deb = "/usr/bin/python3.11";
	static const struct {
		const char *path;
		unsigned int minor;
		int row;
	} pyenv[] = {
		{ "/root/.pyenv/versions/3.8.18/lib/libpython3.8.so.1.0", 8, -ENOENT },
		{ "/root/.pyenv/versions/3.9.18/lib/libpython3.9.so.1.0", 9, 3 },
		{ "/root/.pyenv/versions/3.10.13/lib/libpython3.10.so.1.0", 10, 4 },
		{ "/root/.pyenv/versions/3.11.7/lib/libpython3.11.so.1.0", 11, 0 },
		{ "/root/.pyenv/versions/3.12.1/lib/libpython3.12.so.1.0", 12, 1 },
		{ "/root/.pyenv/versions/3.13.0/lib/libpython3.13.so.1.0", 13, 2 },
	};
	struct bt_unwind_py w;
	struct bt_py_file f;
	int fd;

	fd = open("/usr/lib/x86_64-linux-gnu/libc.so.6", O_RDONLY);
	if (fd >= 0) {
		CHECK_INT(bt_py_file_detect(fd, "libc.so.6", &f), -ENOENT);
		close(fd);
	}
	fd = open(deb, O_RDONLY);
	if (fd < 0) {
		printf("# %s: not installed, not checked\n", deb);
	} else {
		CHECK_INT(bt_py_file_detect(fd, deb, &f), 0);
		CHECK_INT(f.major, 3);
		CHECK_INT(f.minor, 11);
		CHECK_INT(f.row, 0);
		CHECK(f.runtime && f.code_type);
		CHECK(f.eval_end[0] - f.eval_start[0] > 10000);
		/* the cold part found without .symtab: outside the function, smaller than it */
		CHECK(f.eval_end[1] > f.eval_start[1]);
		CHECK(f.eval_end[1] <= f.eval_start[0] || f.eval_start[1] >= f.eval_end[0]);
		CHECK(f.eval_end[1] - f.eval_start[1] < f.eval_end[0] - f.eval_start[0]);
		printf("# %s: evaluator %#llx-%#llx, cold %#llx-%#llx\n", deb,
		       (unsigned long long)f.eval_start[0], (unsigned long long)f.eval_end[0],
		       (unsigned long long)f.eval_start[1], (unsigned long long)f.eval_end[1]);
		CHECK_INT(bt_py_walker_info(&f, 0x1000, &w), 0);
		CHECK_INT(w.tss, f.runtime + 0x1000 + bt_py_version_at(0)->runtime_tss);
		CHECK_INT(w.eval_start[1], f.eval_start[1] + 0x1000);
		CHECK_INT(w.code_type, f.code_type + 0x1000);
		CHECK_INT(w.tls_base, BT_PY_GLIBC_TLS);
		CHECK_INT(w.cframe_frame, 8);
		close(fd);
	}
	/*
	 * pyenv's builds (PIE, a shared libpython, .symtab kept; 3.8-3.10 without Py_Version, their
	 * version from the file's name): each version its row (3.8: none), and the
	 * cold part's FDE where .symtab says the cold part is (3.12's frame is 384 bytes: its
	 * def_cfa_offset takes two bytes)
	 */
	for (unsigned int k = 0; k < sizeof(pyenv) / sizeof(pyenv[0]); k++) {
		uint64_t cold = symtab_addr(pyenv[k].path, "_PyEval_EvalFrameDefault.cold");

		fd = open(pyenv[k].path, O_RDONLY);
		if (fd < 0) {
			printf("# %s: not installed, not checked\n", pyenv[k].path);
			continue;
		}
		CHECK_INT(bt_py_file_detect(fd, pyenv[k].path, &f), 0);
		CHECK_INT(f.minor, pyenv[k].minor);
		CHECK_INT(f.row, pyenv[k].row);
		if (cold)
			CHECK_INT(f.eval_start[1], cold);
		printf("# %s: 3.%u, row %d, cold part %#llx (.symtab: %#llx)\n", pyenv[k].path,
		       f.minor, f.row, (unsigned long long)f.eval_start[1],
		       (unsigned long long)cold);
		if (f.row < 0) {
			/* a version without a row: found, and said to have none */
			CHECK_INT(bt_py_walker_info(&f, 0, &w), -ENOENT);
			CHECK_INT(w.tss, 0);
		} else {
			CHECK_INT(bt_py_walker_info(&f, 0, &w), 0);
			CHECK_INT(w.tss, f.runtime + bt_py_version_at(f.row)->runtime_tss);
			CHECK_INT(w.row, f.row);
			CHECK_INT(w.flags, bt_py_version_at(f.row)->flags);
			CHECK_INT(w.tstate_frame, bt_py_version_at(f.row)->tstate_frame);
		}
		close(fd);
	}
}

/* The check the walker computes of the code object's bytes (probes/bt_unwind.h). */
static uint32_t check_of(struct mem *m, uint64_t code, const struct bt_py_version *v)
{
	__u64 words[BT_PY_CODE_READ / 8];

	if (mem_read(m, code, words, sizeof(words)))
		return 0;
	return bt_py_check(words, v->code_check);
}

static void test_code(void)
{
	const struct bt_py_version *v = bt_py_version_at(0);
	/*
	 * 3 units on the first line (code 13: line +0), 2 on line 12 (code 13: +2), 1 without a
	 * location (15), 2 on line 11 (code 14, long form: -1, then 3 column varints), 1 on line
	 * 13 (code 12: +2, two bytes of columns), 2 on the same line (short form, a byte)
	 */
	static const unsigned char lines[] = {
		0x80 | 13 << 3 | 2,
		0x00,
		0x80 | 13 << 3 | 1,
		0x04,
		0x80 | 15 << 3 | 0,
		0x80 | 14 << 3 | 1,
		0x03,
		0x00,
		0x01,
		0x02,
		0x80 | 12 << 3 | 0,
		0x01,
		0x05,
		0x80 | 3 << 3 | 1,
		0x07,
	};
	struct bt_py_code c;
	struct mem m = { 0 };

	make_code(&m, v, lines, sizeof(lines), sizeof(lines));
	CHECK_INT(bt_py_code_read(v, mem_read, &m, CODE, &c), 0);
	CHECK_STR(c.name, "outer.<locals>.handle");
	CHECK_STR(c.file, "svc.py");
	CHECK_INT(c.firstline, 10);
	CHECK_INT(c.check, check_of(&m, CODE, v));
	CHECK_INT(bt_py_code_line(&c, 0), 10);
	CHECK_INT(bt_py_code_line(&c, 2), 10);
	CHECK_INT(bt_py_code_line(&c, 3), 12);
	CHECK_INT(bt_py_code_line(&c, 4), 12);
	CHECK_INT(bt_py_code_line(&c, 5), 0); /* no location */
	CHECK_INT(bt_py_code_line(&c, 6), 11);
	CHECK_INT(bt_py_code_line(&c, 8), 13);
	CHECK_INT(bt_py_code_line(&c, 10), 13);
	CHECK_INT(bt_py_code_line(&c, 11), 0); /* past the table */
	CHECK_INT(bt_py_code_line(&c, BT_PY_INSN_UNKNOWN), 10);
	bt_py_code__clear(&c);

	/* cut inside the long form's varints, or a byte that starts no entry: no line */
	CHECK_INT(bt_py_code_read(v, mem_read, &m, CODE, &c), 0);
	c.nlines = 7;
	CHECK_INT(bt_py_code_line(&c, 0), 10);
	CHECK_INT(bt_py_code_line(&c, 6), 0);
	c.lines[0] = 0x13;
	CHECK_INT(bt_py_code_line(&c, 0), 0);
	bt_py_code__clear(&c);
	mem_free(&m);

	/* a line table that claims more than the cap reads the cap; an absurd one is refused */
	make_code(&m, v, lines, sizeof(lines), 1 << 20);
	CHECK_INT(bt_py_code_read(v, mem_read, &m, CODE, &c), 0);
	CHECK_INT(c.nlines, BT_PY_LINES_MAX);
	bt_py_code__clear(&c);
	mem_free(&m);
	make_code(&m, v, lines, sizeof(lines), 1ULL << 50);
	CHECK_INT(bt_py_code_read(v, mem_read, &m, CODE, &c), -EINVAL);
	bt_py_code__clear(&c);
	mem_free(&m);
}

/*
 * 3.9's co_lnotab and 3.10's co_linetable: byte pairs in bytes of code, the instruction asked
 * for in 2-byte code units; make_code()'s object at each row's offsets (its name where co_name
 * is), first line 10.
 */
static void test_code_old(void)
{
	/* bytes 0-5 on line 10, 6-9 on 11, 10-11 on 13, from 12 on 10 (a negative delta) */
	static const unsigned char lnotab[] = { 6, 1, 4, 2, 2, 0xfd };
	/*
	 * bytes 0-3 on line 10, 4-5 without a line, an empty range (+127), 6-9 on 140, 10-11 on
	 * 138, then past the table
	 */
	static const unsigned char linetable[] = { 4, 0, 2, 0x80, 0, 127, 4, 3, 2, 0xfe };
	const struct bt_py_version *v = bt_py_version_at(bt_py_version_row(3, 9));
	struct bt_py_code c;
	struct mem m = { 0 };

	make_code(&m, v, lnotab, sizeof(lnotab), sizeof(lnotab));
	CHECK_INT(bt_py_code_read(v, mem_read, &m, CODE, &c), 0);
	CHECK_STR(c.name, "outer.<locals>.handle"); /* what co_name holds here */
	CHECK_STR(c.file, "svc.py");
	CHECK_INT(c.firstline, 10);
	CHECK_INT(c.check, check_of(&m, CODE, v));
	CHECK_INT(bt_py_code_line(&c, 0), 10);
	CHECK_INT(bt_py_code_line(&c, 2), 10);
	CHECK_INT(bt_py_code_line(&c, 3), 11);
	CHECK_INT(bt_py_code_line(&c, 4), 11);
	CHECK_INT(bt_py_code_line(&c, 5), 13);
	CHECK_INT(bt_py_code_line(&c, 6), 10);
	CHECK_INT(bt_py_code_line(&c, 1000), 10); /* past the table: its last line */
	CHECK_INT(bt_py_code_line(&c, BT_PY_INSN_UNKNOWN), 10);
	/* a table cut inside a pair: the half pair is not read */
	c.nlines = 3;
	CHECK_INT(bt_py_code_line(&c, 5), 11);
	/* a delta taking the line below 1: no line */
	c.nlines = sizeof(lnotab);
	c.lines[5] = 0x80;
	CHECK_INT(bt_py_code_line(&c, 6), 0);
	bt_py_code__clear(&c);
	mem_free(&m);

	v = bt_py_version_at(bt_py_version_row(3, 10));
	make_code(&m, v, linetable, sizeof(linetable), sizeof(linetable));
	CHECK_INT(bt_py_code_read(v, mem_read, &m, CODE, &c), 0);
	CHECK_STR(c.name, "outer.<locals>.handle");
	CHECK_INT(c.check, check_of(&m, CODE, v));
	CHECK_INT(bt_py_code_line(&c, 0), 10);
	CHECK_INT(bt_py_code_line(&c, 1), 10);
	CHECK_INT(bt_py_code_line(&c, 2), 0); /* no line */
	CHECK_INT(bt_py_code_line(&c, 3), 140);
	CHECK_INT(bt_py_code_line(&c, 4), 140);
	CHECK_INT(bt_py_code_line(&c, 5), 138);
	CHECK_INT(bt_py_code_line(&c, 6), 0); /* past the table */
	CHECK_INT(bt_py_code_line(&c, BT_PY_INSN_UNKNOWN), 10);
	c.nlines = 7; /* cut inside the fourth pair */
	CHECK_INT(bt_py_code_line(&c, 3), 0);
	bt_py_code__clear(&c);
	/* the table's format is the row's the object was read with */
	CHECK_INT(
		bt_py_code_read(bt_py_version_at(bt_py_version_row(3, 9)), mem_read, &m, CODE, &c),
		0);
	CHECK_INT(c.lines_format, BT_PY_LINES_LNOTAB);
	bt_py_code__clear(&c);
	mem_free(&m);
}

static void test_strings(void)
{
	const struct bt_py_version *v = bt_py_version_at(0);
	static const uint16_t ucs2[] = { 'a', 0xd800, 0, 0x3b1, 'z' };
	static const uint32_t ucs4[] = { 0x1f40d, 0x110000, 0x1b };
	static const unsigned char latin1[] = { 'c', 0xe9 };
	struct bt_py_code c;
	struct mem m = { 0 };
	char big[1000];

	/* latin-1, UCS-2 and UCS-4 into UTF-8; a surrogate, NUL and past U+10FFFF as '?' */
	make_code(&m, v, NULL, 0, 0);
	make_str(&m, v, NAME + 0x1000, 1, 0, 2, latin1, sizeof(latin1));
	put64(m.r[0].bytes + v->code_qualname, NAME + 0x1000);
	CHECK_INT(bt_py_code_read(v, mem_read, &m, CODE, &c), 0);
	CHECK_STR(c.name, "c\xc3\xa9");
	CHECK_INT(c.nlines, 0);
	make_str(&m, v, NAME + 0x2000, 2, 0, 5, ucs2, sizeof(ucs2));
	put64(m.r[0].bytes + v->code_qualname, NAME + 0x2000);
	CHECK_INT(bt_py_code_read(v, mem_read, &m, CODE, &c), 0);
	CHECK_STR(c.name, "a??\xce\xb1z");
	/* a control byte is kept as such here: the output escapes it (lib/base/bt_escape.h) */
	make_str(&m, v, NAME + 0x3000, 4, 0, 3, ucs4, sizeof(ucs4));
	put64(m.r[0].bytes + v->code_qualname, NAME + 0x3000);
	CHECK_INT(bt_py_code_read(v, mem_read, &m, CODE, &c), 0);
	CHECK_STR(c.name, "\xf0\x9f\x90\x8d?\x1b");
	mem_free(&m);

	/* 1000 characters claimed and there: cut at BT_PY_STR_MAX bytes, marked */
	memset(big, 'x', sizeof(big));
	make_code(&m, v, NULL, 0, 0);
	make_str(&m, v, NAME + 0x1000, 1, 1, sizeof(big), big, sizeof(big));
	put64(m.r[0].bytes + v->code_qualname, NAME + 0x1000);
	CHECK_INT(bt_py_code_read(v, mem_read, &m, CODE, &c), 0);
	CHECK_INT(strlen(c.name), BT_PY_STR_MAX + 3);
	CHECK(!strcmp(c.name + BT_PY_STR_MAX, "..."));
	/* 900 characters of 4 bytes each: still at most BT_PY_STR_MAX read and written */
	{
		static uint32_t wide[900];

		for (unsigned int i = 0; i < 900; i++)
			wide[i] = 0x3b1;
		make_str(&m, v, NAME + 0x3000, 4, 0, 900, wide, sizeof(wide));
		put64(m.r[0].bytes + v->code_qualname, NAME + 0x3000);
		CHECK_INT(bt_py_code_read(v, mem_read, &m, CODE, &c), 0);
		CHECK_INT(strlen(c.name), BT_PY_STR_MAX + 3);
		CHECK(!strncmp(c.name, "\xce\xb1\xce\xb1", 4));
	}
	/* 2^50 claimed: no such string; a length past its bytes: the read fails */
	make_str(&m, v, NAME + 0x2000, 1, 1, 1ULL << 50, "x", 1);
	put64(m.r[0].bytes + v->code_qualname, NAME + 0x2000);
	CHECK_INT(bt_py_code_read(v, mem_read, &m, CODE, &c), -EINVAL);
	/* not compact, or a kind that is none */
	put32(m.r[m.n - 1].bytes + v->str_state, 1 << 2 | 0x40);
	CHECK_INT(bt_py_code_read(v, mem_read, &m, CODE, &c), -EINVAL);
	put32(m.r[m.n - 1].bytes + v->str_state, 3 << 2 | 0x60);
	CHECK_INT(bt_py_code_read(v, mem_read, &m, CODE, &c), -EINVAL);
	/* a pointer into nothing */
	put64(m.r[0].bytes + v->code_filename, 0xdead0000);
	put64(m.r[0].bytes + v->code_qualname, NAME);
	CHECK_INT(bt_py_code_read(v, mem_read, &m, CODE, &c), -EFAULT);
	CHECK_INT(bt_py_code_read(v, mem_read, &m, 0x7777000, &c), -EFAULT);
	mem_free(&m);
}

static void test_cache(void)
{
	const struct bt_py_version *v = bt_py_version_at(0);
	static const unsigned char lines[] = { 0x80 | 13 << 3 | 7, 0x04 };
	struct mem m = { 0 };
	struct bt_pycache *pc;
	const char *name, *file, *name2, *first;
	unsigned int line, start_line = 99;
	uint64_t code, info, read, failed;
	uint32_t check;
	int reads, i;

	make_code(&m, v, lines, sizeof(lines), sizeof(lines));
	check = check_of(&m, CODE, v);
	code = BT_PY_CODE_WORD(CODE, 0);
	info = BT_PY_INFO_WORD(check, 3);
	pc = bt_pycache__new(1, mem_read, &m);
	CHECK(pc != NULL);
	bt_pycache__begin(pc);
	CHECK_INT(bt_pycache__name(pc, code, info, &name, &file, &line, &start_line), 0);
	CHECK_STR(name, "outer.<locals>.handle");
	CHECK_STR(file, "svc.py");
	CHECK_INT(line, 12);
	CHECK_INT(start_line, 10); /* co_firstlineno: the def */
	first = name;
	/* read once: the second frame of it reads nothing */
	reads = m.reads;
	CHECK_INT(bt_pycache__name(pc, code, BT_PY_INFO_WORD(check, 0), &name2, &file, &line, NULL),
		  0);
	CHECK_INT(m.reads, reads);
	CHECK(name2 == name);
	CHECK_INT(line, 12);
	/* words that are not a pair, or of a row that does not exist: not named */
	CHECK_INT(bt_pycache__name(pc, info, code, &name, &file, &line, NULL), -ENOENT);
	CHECK_INT(bt_pycache__name(pc, BT_PY_CODE_WORD(CODE, 99), info, &name, &file, &line, NULL),
		  -ENOENT);
	/*
	 * Another code object at the address (the first freed): a frame of it has another check,
	 * and the address is read again for it. A frame of the first one, after that, is not
	 * named as the second: its check is not what the address holds now. The first name's
	 * memory stays valid until the next begin (frames of this call point into it).
	 */
	put32(m.r[0].bytes + v->code_firstlineno, 40);
	CHECK(check_of(&m, CODE, v) != check);
	CHECK_INT(bt_pycache__name(pc, code, BT_PY_INFO_WORD(check_of(&m, CODE, v), 0), &name2,
				   &file, &line, NULL),
		  0);
	CHECK_INT(line, 42);
	CHECK_INT(bt_pycache__name(pc, code, info, &name2, &file, &line, NULL), -ENOENT);
	CHECK(name2 == NULL);
	CHECK_STR(first, "outer.<locals>.handle");
	/*
	 * an unreadable address: not named, and not read again in this call for a frame of the
	 * same object (its check); for another object's, read again; in a later call, once more
	 * for the same (a read that failed as the object was being made, or its page was not
	 * readable yet), then no more
	 */
	CHECK_INT(bt_pycache__name(pc, BT_PY_CODE_WORD(0x5550000, 0), info, &name, &file, &line,
				   NULL),
		  -ENOENT);
	reads = m.reads;
	CHECK_INT(bt_pycache__name(pc, BT_PY_CODE_WORD(0x5550000, 0), info, &name, &file, &line,
				   NULL),
		  -ENOENT);
	CHECK_INT(m.reads, reads);
	CHECK_INT(bt_pycache__name(pc, BT_PY_CODE_WORD(0x5550000, 0), BT_PY_INFO_WORD(check + 1, 0),
				   &name, &file, &line, NULL),
		  -ENOENT);
	CHECK(m.reads > reads);
	reads = m.reads;
	CHECK_INT(bt_pycache__name(pc, BT_PY_CODE_WORD(0x5550000, 0), BT_PY_INFO_WORD(check + 1, 0),
				   &name, &file, &line, NULL),
		  -ENOENT);
	CHECK_INT(m.reads, reads);
	bt_pycache__begin(pc);
	CHECK_INT(bt_pycache__name(pc, BT_PY_CODE_WORD(0x5550000, 0), BT_PY_INFO_WORD(check + 1, 0),
				   &name, &file, &line, NULL),
		  -ENOENT);
	CHECK(m.reads > reads);
	reads = m.reads;
	bt_pycache__begin(pc);
	CHECK_INT(bt_pycache__name(pc, BT_PY_CODE_WORD(0x5550000, 0), BT_PY_INFO_WORD(check + 1, 0),
				   &name, &file, &line, NULL),
		  -ENOENT);
	CHECK_INT(m.reads, reads);
	bt_pycache__stats(pc, &read, &failed);
	CHECK(read >= 3 && failed >= 1);
	/* past the bound, the next resolve call starts empty */
	for (i = 0; i < BT_PY_CACHE_MAX + 10; i++)
		bt_pycache__name(pc, BT_PY_CODE_WORD(0x100000000ULL + i * 0x100ULL, 0), info, &name,
				 &file, &line, NULL);
	bt_pycache__begin(pc);
	reads = m.reads;
	CHECK_INT(bt_pycache__name(pc, code, BT_PY_INFO_WORD(check_of(&m, CODE, v), 0), &name,
				   &file, &line, NULL),
		  0);
	CHECK(m.reads > reads);
	/* gone: kept names stay, nothing new is read */
	bt_pycache__stop_reading(pc);
	CHECK_INT(bt_pycache__name(pc, code, BT_PY_INFO_WORD(check_of(&m, CODE, v), 0), &name,
				   &file, &line, NULL),
		  0);
	CHECK_INT(bt_pycache__name(pc, BT_PY_CODE_WORD(0x6660000, 0), info, &name, &file, &line,
				   NULL),
		  -ENOENT);
	bt_pycache__free(pc);
	bt_pycache__free(NULL);
	mem_free(&m);
}

/*
 * Real interpreters: Debian's python3.11 and pyenv's 3.9-3.13 where installed, each a child
 * that prints a method's code object's address and waits. Its bytes, read through
 * process_vm_readv() as for a traced process, must give the method's qualified name (3.9, 3.10: its name), file and
 * first line: each row's offsets, checked on the builds the live tests run; 3.9 and 3.10's frame
 * objects too (frame_objects()).
 */
static int read_child(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { buf, len }, remote = { (void *)(uintptr_t)addr, len };

	return process_vm_readv(pid, &local, 1, &remote, 1, 0) == (ssize_t)len ? 0 : -EFAULT;
}

/*
 * 3.9, 3.10 (BT_PY_FRAME_OBJECT): the child's frame object for wait(), blocked in its line 7,
 * read through the row's frame offsets as the walker reads it (probes/bt_unwind.bpf.h,
 * bt_py_frame()): its code object is wait's, its f_lasti is at line 7, and its f_back is the
 * module's frame, at the call of wait() on line 9 (each with a line after it: an instruction
 * index off by a factor of two is another line).
 */
/* Until pid blocks in read() (its sys.stdin.read(): its frames still then), at most 2 s. */
static void wait_in_read(pid_t pid)
{
	char path[64], buf[64];
	int i, fd;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/syscall", (int)pid);
	for (i = 0; i < 200; i++) {
		fd = open(path, O_RDONLY);
		n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
		if (fd >= 0)
			close(fd);
		if (n > 0) {
			buf[n] = 0;
			if (buf[0] >= '0' && buf[0] <= '9' && strtol(buf, NULL, 10) == SYS_read)
				return;
		}
		usleep(10000);
	}
	printf("# %d: not seen in read() in 2 s\n", (int)pid);
}

static void frame_objects(pid_t pid, const struct bt_py_version *v, int row, struct bt_pycache *pc,
			  uint64_t frame)
{
	static const char *const want_name[] = { "wait", "<module>" };
	static const unsigned int want_line[] = { 7, 9 };
	__u64 f[BT_PY_CODE_READ / 8], words[BT_PY_CODE_READ / 8];
	const char *name, *file;
	unsigned int line, k;
	uint64_t code, insn;

	/* printed before the read: its f_lasti may still be on the print's line */
	wait_in_read(pid);
	for (k = 0; k < 2; k++) {
		CHECK(frame != 0 && v->frame_read <= sizeof(f));
		if (!frame || read_child(pid, frame, f, v->frame_read))
			return;
		code = f[v->frame_code / 8];
		/* f_lasti: an int, in bytes (3.9) or code units (3.10); negative: not begun */
		insn = (uint32_t)f[v->frame_instr / 8];
		CHECK(!(insn & 0x80000000));
		if (v->flags & BT_PY_LASTI_BYTES)
			insn >>= 1;
		CHECK(!read_child(pid, code, words, sizeof(words)));
		CHECK_INT(bt_pycache__name(pc, BT_PY_CODE_WORD(code, row),
					   BT_PY_INFO_WORD(bt_py_check(words, v->code_check), insn),
					   &name, &file, &line, NULL),
			  0);
		CHECK_STR(name, want_name[k]);
		CHECK_INT(line, want_line[k]);
		frame = f[v->frame_back / 8];
	}
	/* the module's frame is the thread's outermost */
	CHECK_INT(frame, 0);
}

static void live_one(const char *py, int row, const char *name_want, unsigned int line0)
{
	const char *src = "import sys\n"
			  "class K:\n"
			  "    def meth(self):\n"
			  "        pass\n"
			  "def wait():\n"
			  "    print(id(K.meth.__code__), id(sys._getframe()), flush=True)\n"
			  "    sys.stdin.read()\n"
			  "    return len(sys.argv) + 1\n"
			  "wait()\n"
			  "print(len(sys.argv) * 2)\n";
	const struct bt_py_version *v = bt_py_version_at(row);
	int in[2], out[2];
	const char *name, *file;
	struct bt_pycache *pc;
	unsigned long long addr = 0, frame = 0;
	char *end = NULL;
	struct iovec local, remote;
	__u64 words[BT_PY_CODE_READ / 8];
	unsigned int line;
	uint32_t check;
	char buf[128];
	size_t got;
	ssize_t n;
	pid_t pid;

	if (access(py, X_OK)) {
		printf("# %s: not installed, not checked\n", py);
		return;
	}
	printf("# %s: row %d (3.%u)\n", py, row, v->minor);
	if (pipe(in) || pipe(out))
		return;
	pid = fork();
	if (!pid) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		execl(py, py, "-c", src, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	/* the whole line, however the child's writes arrive */
	for (got = 0; got < sizeof(buf) - 1 && !memchr(buf, '\n', got); got += (size_t)n) {
		n = read(out[0], buf + got, sizeof(buf) - 1 - got);
		if (n <= 0)
			break;
	}
	buf[got] = 0;
	addr = strtoull(buf, &end, 10);
	frame = strtoull(end, NULL, 10);
	CHECK(addr != 0);
	/* the check as the walker takes it, from the object's first bytes */
	local.iov_base = words;
	local.iov_len = remote.iov_len = sizeof(words);
	remote.iov_base = (void *)(uintptr_t)addr;
	CHECK(process_vm_readv(pid, &local, 1, &remote, 1, 0) == sizeof(words));
	check = bt_py_check(words, v->code_check);
	pc = bt_pycache__new(pid, NULL, NULL);
	bt_pycache__begin(pc);
	CHECK_INT(bt_pycache__name(pc, BT_PY_CODE_WORD(addr, row),
				   BT_PY_INFO_WORD(check, BT_PY_INSN_UNKNOWN), &name, &file, &line,
				   NULL),
		  0);
	CHECK_STR(name, name_want);
	CHECK_STR(file, "<string>");
	CHECK_INT(line, 3);
	/* its first instruction: RESUME on the def line (3.11+), 3.9/3.10's on the body's */
	CHECK_INT(bt_pycache__name(pc, BT_PY_CODE_WORD(addr, row), BT_PY_INFO_WORD(check, 0), &name,
				   &file, &line, NULL),
		  0);
	CHECK_INT(line, line0);
	/* a check that is not the object's: not named */
	CHECK_INT(bt_pycache__name(pc, BT_PY_CODE_WORD(addr, row), BT_PY_INFO_WORD(check + 1, 0),
				   &name, &file, &line, NULL),
		  -ENOENT);
	if (v->flags & BT_PY_FRAME_OBJECT)
		frame_objects(pid, v, row, pc, frame);
	bt_pycache__free(pc);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	close(in[1]);
	close(out[0]);
}

/*
 * The walker's marker for Python frames it could not read (probes/bt_unwind.h): one frame of
 * the marker's name, a Python one, printed as it is; never a code object read at address 0.
 */
static void test_unread_marker(void)
{
	uint64_t words[3] = { BT_PY_UNREAD_CODE, BT_PY_UNREAD_INFO, 0 };
	struct bt_sym_opts o = { 0 };
	struct bt_symbolizer *sym = NULL;
	struct bt_frame fr[4];
	char buf[64];

	CHECK(BT_PY_IS_CODE(words[0]) && BT_PY_IS_INFO(words[1]) && BT_PY_IS_UNREAD(words[0]));
	CHECK(!BT_PY_IS_UNREAD(BT_PY_CODE_WORD(0x7f0000001000ULL, 0)));
	CHECK_INT(bt_symbolizer__new(&o, &sym), 0);
	CHECK_INT(bt_symbolizer__resolve(sym, getpid(), words, 2, 0, fr, 4), 1);
	CHECK(fr[0].name == bt_sym_python_unread);
	CHECK(bt_frame__is_python(&fr[0]));
	CHECK(!fr[0].file && !fr[0].line);
	bt_frame__format(&fr[0], 0, buf, sizeof(buf));
	CHECK_STR(buf, "[python: frames unread]");
	bt_symbolizer__free(sym);
}

static void test_live_interpreters(void)
{
	live_one("/usr/bin/python3.11", 0, "K.meth", 3);
	live_one("/root/.pyenv/versions/3.11.7/bin/python3.11", 0, "K.meth", 3);
	live_one("/root/.pyenv/versions/3.12.1/bin/python3.12", 1, "K.meth", 3);
	live_one("/root/.pyenv/versions/3.13.0/bin/python3.13", 2, "K.meth", 3);
	/* no co_qualname: co_name */
	live_one("/root/.pyenv/versions/3.9.18/bin/python3.9", 3, "meth", 4);
	live_one("/root/.pyenv/versions/3.10.13/bin/python3.10", 4, "meth", 4);
}

int main(void)
{
	elf_version(EV_CURRENT);
	BT_RUN(test_versions);
	BT_RUN(test_detect);
	BT_RUN(test_code);
	BT_RUN(test_code_old);
	BT_RUN(test_strings);
	BT_RUN(test_cache);
	BT_RUN(test_unread_marker);
	BT_RUN(test_live_interpreters);
	return bt_test_done();
}
