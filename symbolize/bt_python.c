// SPDX-License-Identifier: GPL-2.0
/* CPython's interpreters found in files, its code objects read from processes (docs/python.md). */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/uio.h>

#include "bt_python.h"
#include "elf_internal.h"

/*
 * x86-64 offsets, from CPython's headers and checked against the builds on the test machines
 * (/work/shared/reference/python-frames.md, and pyenv's 3.9.18 and 3.10.13 through their
 * DWARF; test/unit/symbolize/test_python.c reads the code objects of each running interpreter
 * it finds back through them). The index is the row the stacks carry: append, never reorder.
 *
 * The thread state, every version: the pthread TLS key kept in _PyRuntime (its Py_tss_t,
 * gilstate.autoTSSkey in 3.9-3.11), whose value in a thread is that thread's own
 * PyThreadState, set when the thread state is made for it (_PyThreadState_Init, threading's
 * threads included) and kept while the thread waits for the GIL or blocks without it. Not
 * 3.9/3.10's _PyRuntime.gilstate.tstate_current (at +568), read by some tools: that is the
 * GIL holder's, another thread's whenever the sampled one sleeps, waits for the GIL or runs
 * with it released (time.sleep, I/O), exactly the off-CPU stacks, and NULL while no thread
 * holds it: its frames would be another thread's.
 *
 * aarch64 (LP64, as x86-64): the same offsets but _PyRuntime's, whose two pthread_mutex_t
 * (the GIL's, ahead of gilstate) are 48 bytes there, 40 on x86-64: checked for Debian 12's
 * 3.11.2 arm64 binary only (PyGILState_GetThisThreadState reads _PyRuntime+608/+612 there,
 * +592/+596 on x86-64; PyCode_Type's member table, PyThreadState_GetFrame's offsets into the
 * thread state, cframe, frame and code object are x86-64's). Its other versions have no
 * aarch64 row yet (BT_PY_ARCH(x86-64, 0)): said once per file, their frames left native.
 *
 * 3.9, 3.10 (BT_PY_FRAME_OBJECT): PyFrameObject, a frame object per evaluator call; their
 * code objects have no co_qualname, so code_qualname is co_name there (a method is "meth",
 * not "K.meth"), and their line tables are co_lnotab (3.9) and co_linetable (3.10), not 3.11's
 * locations (lines_format).
 */
#if defined(__aarch64__)
#define BT_PY_ARCH(x86_64, aarch64) (aarch64)
#else
#define BT_PY_ARCH(x86_64, aarch64) (x86_64)
#endif

static const struct bt_py_version versions[] = {
	{
		.major = 3,
		.minor = 11,
		.runtime_tss = BT_PY_ARCH(592, 608),
		.tstate_frame = 56, /* tstate->cframe */
		.cframe_frame = 8,  /* cframe->current_frame */
		.flags = BT_PY_TWO_STEPS,
		.frame_code = 32,
		.frame_back = 48,
		.frame_instr = 56, /* prev_instr */
		.frame_entry = 68, /* is_entry */
		.frame_read = 72,
		.code_insns = 184, /* co_code_adaptive */
		.code_check = 56,  /* co_argcount .. co_nplaincellvars */
		.code_filename = 112,
		.code_qualname = 128,
		.code_linetable = 136,
		.code_firstlineno = 72,
		.str_length = 16,
		.str_state = 32,
		.str_ascii_data = 48,
		.str_compact_data = 72,
		.bytes_size = 16,
		.bytes_data = 32,
	},
	{
		.major = 3,
		.minor = 12,
		.runtime_tss = BT_PY_ARCH(1544, 0),
		.tstate_frame = 56, /* tstate->cframe */
		.cframe_frame = 0,  /* cframe->current_frame */
		.flags = BT_PY_TWO_STEPS | BT_PY_ENTRY_OWNER,
		.frame_code = 0,
		.frame_back = 8,
		.frame_instr = 56, /* prev_instr */
		.frame_entry = 70, /* owner */
		.frame_read = 72,
		.code_insns = 192,
		.code_check = 56, /* co_posonlyargcount .. co_ncellvars */
		.code_filename = 112,
		.code_qualname = 128,
		.code_linetable = 136,
		.code_firstlineno = 68,
		.str_length = 16,
		.str_state = 32,
		.str_ascii_data = 40, /* no wstr since 3.12 */
		.str_compact_data = 56,
		.bytes_size = 16,
		.bytes_data = 32,
	},
	{
		.major = 3,
		.minor = 13,
		.runtime_tss = BT_PY_ARCH(2160, 0),
		.tstate_frame = 72, /* tstate->current_frame */
		.flags = BT_PY_ENTRY_OWNER,
		.frame_code = 0, /* f_executable */
		.frame_back = 8,
		.frame_instr = 56, /* instr_ptr */
		.frame_entry = 70, /* owner */
		.frame_read = 72,
		.code_insns = 200,
		.code_check = 56,
		.code_filename = 112,
		.code_qualname = 128,
		.code_linetable = 136,
		.code_firstlineno = 68,
		.str_length = 16,
		.str_state = 32,
		.str_ascii_data = 40,
		.str_compact_data = 56,
		.bytes_size = 16,
		.bytes_data = 32,
	},
	{
		.major = 3,
		.minor = 9,
		.runtime_tss = BT_PY_ARCH(584, 0), /* gilstate.autoTSSkey */
		.tstate_frame = 24,		   /* tstate->frame */
		.flags = BT_PY_FRAME_OBJECT | BT_PY_LASTI_BYTES,
		.frame_code = 32,   /* f_code */
		.frame_back = 24,   /* f_back */
		.frame_instr = 104, /* f_lasti, in bytes */
		.frame_entry = 0,   /* none: every frame object is its call's */
		.frame_read = 112,
		.code_check = 24, /* co_kwonlyargcount .. co_firstlineno, co_code */
		.code_filename = 104,
		.code_qualname = 112,  /* co_name */
		.code_linetable = 120, /* co_lnotab */
		.code_firstlineno = 40,
		.lines_format = BT_PY_LINES_LNOTAB,
		.str_length = 16,
		.str_state = 32,
		.str_ascii_data = 48,
		.str_compact_data = 72,
		.bytes_size = 16,
		.bytes_data = 32,
	},
	{
		.major = 3,
		.minor = 10,
		.runtime_tss = BT_PY_ARCH(584, 0), /* gilstate.autoTSSkey */
		.tstate_frame = 24,		   /* tstate->frame */
		.flags = BT_PY_FRAME_OBJECT,
		.frame_code = 32,  /* f_code */
		.frame_back = 24,  /* f_back */
		.frame_instr = 96, /* f_lasti, in code units */
		.frame_entry = 0,
		.frame_read = 104,
		.code_check = 24, /* co_kwonlyargcount .. co_firstlineno, co_code */
		.code_filename = 104,
		.code_qualname = 112,  /* co_name */
		.code_linetable = 120, /* co_linetable */
		.code_firstlineno = 40,
		.lines_format = BT_PY_LINES_310,
		.str_length = 16,
		.str_state = 32,
		.str_ascii_data = 48,
		.str_compact_data = 72,
		.bytes_size = 16,
		.bytes_data = 32,
	},
};

const struct bt_py_version *bt_py_version_at(unsigned int row)
{
	return row < sizeof(versions) / sizeof(versions[0]) ? &versions[row] : NULL;
}

int bt_py_version_row(unsigned int major, unsigned int minor)
{
	unsigned int i;

	/* runtime_tss 0: a version not checked on this architecture */
	for (i = 0; i < sizeof(versions) / sizeof(versions[0]); i++)
		if (versions[i].major == major && versions[i].minor == minor &&
		    versions[i].runtime_tss)
			return (int)i;
	return -ENOENT;
}

int bt_py_walker_info(const struct bt_py_file *f, uint64_t bias, struct bt_unwind_py *out)
{
	const struct bt_py_version *v = f->row >= 0 ? bt_py_version_at(f->row) : NULL;
	unsigned int i;

	memset(out, 0, sizeof(*out));
	if (!v)
		return -ENOENT;
	out->tss = f->runtime + bias + v->runtime_tss;
	out->code_type = f->code_type + bias;
	for (i = 0; i < 2; i++) {
		if (!f->eval_end[i])
			continue;
		out->eval_start[i] = f->eval_start[i] + bias;
		out->eval_end[i] = f->eval_end[i] + bias;
	}
	out->tstate_frame = v->tstate_frame;
	out->cframe_frame = v->cframe_frame;
	out->flags = v->flags;
	out->frame_code = v->frame_code;
	out->frame_back = v->frame_back;
	out->frame_instr = v->frame_instr;
	out->frame_entry = v->frame_entry;
	out->frame_read = v->frame_read;
	out->code_insns = v->code_insns;
	out->code_check = v->code_check;
	out->row = (__u16)f->row;
	out->tls_base = BT_PY_GLIBC_TLS;
	return 0;
}

/* The file offset of link-time address vaddr with len bytes there, through PT_LOAD. */
static int vaddr_offset(Elf *e, uint64_t vaddr, uint64_t len, uint64_t *off)
{
	size_t n, i;
	GElf_Phdr ph;

	if (elf_getphdrnum(e, &n))
		return -ENOEXEC;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (vaddr >= ph.p_vaddr && vaddr - ph.p_vaddr <= ph.p_filesz &&
		    len <= ph.p_filesz - (vaddr - ph.p_vaddr)) {
			*off = ph.p_offset + (vaddr - ph.p_vaddr);
			return 0;
		}
	}
	return -ENOENT;
}

static int read_at(int fd, Elf *e, uint64_t vaddr, void *buf, size_t len)
{
	uint64_t off;

	if (vaddr_offset(e, vaddr, len, &off) || pread(fd, buf, len, (off_t)off) != (ssize_t)len)
		return -EIO;
	return 0;
}

static int32_t le32s(const unsigned char *p)
{
	return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
			 (uint32_t)p[3] << 24);
}

/*
 * The evaluator's cold part: GCC moves its unlikely paths to .text.unlikely under a symbol
 * (_PyEval_EvalFrameDefault.cold) that a stripped file does not keep, with an FDE of its own
 * written right after the function's, whose first rule is the function's frame size (it is
 * entered with the frame set up). Found through .eh_frame_hdr's table, sorted by address,
 * where both FDEs are: the one following the evaluator's in .eh_frame, if it starts outside the
 * function with def_cfa_offset > 8. Encodings other than GCC's usual ones: not looked for.
 */
static void find_cold(int fd, Elf *e, struct bt_py_file *f)
{
	unsigned char hdr[12], fde[24], *tab = NULL;
	uint64_t hvaddr = 0, hsize = 0, count, i, hot_fde = 0, next;
	uint32_t cfa;
	size_t n, k;
	GElf_Phdr ph;

	if (elf_getphdrnum(e, &n))
		return;
	for (k = 0; k < n; k++)
		if (gelf_getphdr(e, (int)k, &ph) && ph.p_type == PT_GNU_EH_FRAME) {
			hvaddr = ph.p_vaddr;
			hsize = ph.p_filesz;
		}
	/* version 1; eh_frame_ptr pcrel sdata4, count udata4, table datarel sdata4 */
	if (!hvaddr || read_at(fd, e, hvaddr, hdr, sizeof(hdr)) || hdr[0] != 1 || hdr[1] != 0x1b ||
	    hdr[2] != 0x03 || hdr[3] != 0x3b)
		return;
	/* as many entries as the segment holds, whatever the header claims */
	count = (uint32_t)le32s(hdr + 8);
	if (!count || count > (1u << 22) || 12 + count * 8 > hsize)
		return;
	tab = malloc(count * 8);
	if (!tab || read_at(fd, e, hvaddr + 12, tab, count * 8))
		goto out;
	for (i = 0; i < count; i++)
		if (hvaddr + le32s(tab + i * 8) == f->eval_start[0])
			hot_fde = hvaddr + le32s(tab + i * 8 + 4);
	if (!hot_fde || read_at(fd, e, hot_fde, fde, 4) || (uint32_t)le32s(fde) >= 0xfffffff0u)
		goto out;
	next = hot_fde + 4 + (uint32_t)le32s(fde);
	/* length, CIE pointer, pc_begin, pc_range, augmentation length 0, def_cfa_offset */
	if (read_at(fd, e, next, fde, 20) || !le32s(fde) || !le32s(fde + 4) || fde[16] != 0 ||
	    fde[17] != 0x0e)
		goto out;
	/* the offset, a ULEB128: two bytes for a frame of 128 bytes or more */
	cfa = fde[18] & 0x7f;
	if (fde[18] & 0x80)
		cfa |= (uint32_t)(fde[19] & 0x7f) << 7;
	if (cfa <= 8)
		goto out;
	for (i = 0; i < count; i++) {
		uint64_t start = hvaddr + le32s(tab + i * 8), len = (uint32_t)le32s(fde + 12);

		if (hvaddr + le32s(tab + i * 8 + 4) != next)
			continue;
		if (start + len <= f->eval_start[0] || start >= f->eval_end[0]) {
			f->eval_start[1] = start;
			f->eval_end[1] = start + len;
		}
		break;
	}
out:
	free(tab);
}

/* The version from a name like python3.11, libpython3.11.so.1.0 or python3.11d: 0 or -ENOENT. */
static int version_from_name(const char *path, unsigned int *major, unsigned int *minor)
{
	const char *base = path ? strrchr(path, '/') : NULL, *p;

	base = base ? base + 1 : path;
	p = base ? strstr(base, "python") : NULL;
	if (!p || sscanf(p, "python%u.%u", major, minor) != 2)
		return -ENOENT;
	return 0;
}

int bt_py_file_detect(int fd, const char *path, struct bt_py_file *out)
{
	struct bt_elf_lim lim;
	Elf_Data *syms, *strs;
	GElf_Shdr sh, strsh;
	uint64_t version = 0, version_at = 0;
	unsigned int found = 0;
	Elf_Scn *scn, *str;
	Elf *e = NULL;
	size_t i, nsyms;
	int err;

	memset(out, 0, sizeof(*out));
	out->row = -ENOENT;
	err = bt_elf__precheck(fd, &lim);
	if (err)
		return err;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF) {
		err = -ENOEXEC;
		goto out;
	}
	err = -ENOENT;
	scn = bt_elf__find_scn_type(e, SHT_DYNSYM, &sh);
	str = scn ? elf_getscn(e, sh.sh_link) : NULL;
	if (!str || !sh.sh_entsize || !gelf_getshdr(str, &strsh))
		goto out;
	strs = bt_elf__getdata(&lim, str, BT_ELF_MAX_SECTION);
	/* most files are not Python: their names alone say so, before any symbol is read */
	if (!strs || !strs->d_buf ||
	    !memmem(strs->d_buf, strs->d_size, "_PyEval_EvalFrameDefault", 25))
		goto out;
	syms = bt_elf__getdata(&lim, scn, BT_ELF_MAX_SECTION);
	if (!syms || !syms->d_buf)
		goto out;
	nsyms = syms->d_size / sh.sh_entsize;
	for (i = 1; i < nsyms; i++) {
		const char *name;
		GElf_Sym s;

		if (!gelf_getsym(syms, (int)i, &s) || s.st_shndx == SHN_UNDEF || !s.st_value ||
		    s.st_name >= strs->d_size)
			continue;
		name = (const char *)strs->d_buf + s.st_name;
		if (!memchr(name, 0, strs->d_size - s.st_name))
			continue;
		if (!strcmp(name, "_PyRuntime")) {
			out->runtime = s.st_value;
			found |= 1;
		} else if (!strcmp(name, "_PyEval_EvalFrameDefault") && s.st_size) {
			out->eval_start[0] = s.st_value;
			out->eval_end[0] = s.st_value + s.st_size;
			found |= 2;
		} else if (!strcmp(name, "PyCode_Type")) {
			out->code_type = s.st_value;
			found |= 4;
		} else if (!strcmp(name, "Py_Version") && s.st_size >= 4) {
			version_at = s.st_value;
		}
	}
	if (found != 7)
		goto out;
	err = 0;
	/* PY_VERSION_HEX: 0x030b02f0 is 3.11.2 final */
	if (version_at && !read_at(fd, e, version_at, &version, 4) && (version >> 24) == 3) {
		out->major = 3;
		out->minor = (version >> 16) & 0xff;
	} else if (version_from_name(path, &out->major, &out->minor)) {
		err = -ENOENT;
		goto out;
	}
	out->row = bt_py_version_row(out->major, out->minor);
	find_cold(fd, e, out);
out:
	if (e)
		elf_end(e);
	return err;
}

/* Code objects */

static int read_u64(bt_py_read_fn rd, void *ctx, uint64_t addr, uint64_t *v)
{
	return rd(ctx, addr, v, sizeof(*v));
}

/*
 * A str object into UTF-8 in out[BT_PY_STR_MAX + 4]: compact ones only (every name and file
 * name the compiler makes is), at most BT_PY_STR_MAX bytes of it (then "..."). NUL and code
 * points that are no character (surrogates, past U+10FFFF) become '?'.
 */
static int read_str(const struct bt_py_version *v, bt_py_read_fn rd, void *ctx, uint64_t addr,
		    char *out)
{
	unsigned char head[128], data[BT_PY_STR_MAX * 4];
	uint64_t len, want;
	uint32_t state, kind, cp;
	size_t i, o = 0;

	out[0] = 0;
	if (!addr || (size_t)v->str_compact_data + 8 > sizeof(head) ||
	    rd(ctx, addr, head, v->str_compact_data))
		return -EFAULT;
	memcpy(&len, head + v->str_length, 8);
	memcpy(&state, head + v->str_state, 4);
	kind = (state >> 2) & 7;
	/* compact (bit 5): the characters follow the object */
	if (!(state & 0x20) || (kind != 1 && kind != 2 && kind != 4) || len > (1ULL << 40))
		return -EINVAL;
	want = len < BT_PY_STR_MAX ? len : BT_PY_STR_MAX;
	if (want && rd(ctx, addr + ((state & 0x40) ? v->str_ascii_data : v->str_compact_data), data,
		       want * kind))
		return -EFAULT;
	for (i = 0; i < want; i++) {
		if (kind == 1)
			cp = data[i];
		else if (kind == 2)
			cp = data[2 * i] | (uint32_t)data[2 * i + 1] << 8;
		else
			cp = data[4 * i] | (uint32_t)data[4 * i + 1] << 8 |
			     (uint32_t)data[4 * i + 2] << 16 | (uint32_t)data[4 * i + 3] << 24;
		if (!cp || (cp >= 0xd800 && cp < 0xe000) || cp > 0x10ffff)
			cp = '?';
		if (o + (cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4) > BT_PY_STR_MAX)
			break;
		if (cp < 0x80) {
			out[o++] = (char)cp;
		} else if (cp < 0x800) {
			out[o++] = (char)(0xc0 | cp >> 6);
			out[o++] = (char)(0x80 | (cp & 0x3f));
		} else if (cp < 0x10000) {
			out[o++] = (char)(0xe0 | cp >> 12);
			out[o++] = (char)(0x80 | ((cp >> 6) & 0x3f));
			out[o++] = (char)(0x80 | (cp & 0x3f));
		} else {
			out[o++] = (char)(0xf0 | cp >> 18);
			out[o++] = (char)(0x80 | ((cp >> 12) & 0x3f));
			out[o++] = (char)(0x80 | ((cp >> 6) & 0x3f));
			out[o++] = (char)(0x80 | (cp & 0x3f));
		}
	}
	if (i < len)
		memcpy(out + o, "...", 3), o += 3;
	out[o] = 0;
	return 0;
}

int bt_py_code_read(const struct bt_py_version *v, bt_py_read_fn rd, void *ctx, uint64_t addr,
		    struct bt_py_code *out)
{
	__u64 words[BT_PY_CODE_READ / 8];
	uint64_t file, name, lines, size;
	int32_t first;
	int err;

	memset(out, 0, sizeof(*out));
	if (!v || !addr)
		return -EINVAL;
	if (rd(ctx, addr, words, sizeof(words)))
		return -EFAULT;
	out->check = bt_py_check(words, v->code_check);
	if (read_u64(rd, ctx, addr + v->code_filename, &file) ||
	    read_u64(rd, ctx, addr + v->code_qualname, &name) ||
	    read_u64(rd, ctx, addr + v->code_linetable, &lines) ||
	    rd(ctx, addr + v->code_firstlineno, &first, sizeof(first)))
		return -EFAULT;
	out->firstline = first;
	out->lines_format = v->lines_format;
	err = read_str(v, rd, ctx, name, out->name);
	if (!err)
		err = read_str(v, rd, ctx, file, out->file);
	if (err)
		return err;
	/* the line table, a bytes object: at most BT_PY_LINES_MAX of it */
	if (!lines || read_u64(rd, ctx, lines + v->bytes_size, &size))
		return 0; /* names without lines */
	if (size > (1ULL << 40))
		return -EINVAL;
	if (size > BT_PY_LINES_MAX)
		size = BT_PY_LINES_MAX;
	if (!size)
		return 0;
	out->lines = malloc(size);
	if (!out->lines)
		return -ENOMEM;
	if (rd(ctx, lines + v->bytes_data, out->lines, size)) {
		free(out->lines);
		out->lines = NULL;
		return 0;
	}
	out->nlines = size;
	return 0;
}

void bt_py_code__clear(struct bt_py_code *c)
{
	if (!c)
		return;
	free(c->lines);
	c->lines = NULL;
	c->nlines = 0;
}

/* A varint of the 3.11 location table: 6 bits a byte, bit 6 says more follow. */
static bool varint(const unsigned char *p, size_t n, size_t *i, uint32_t *out)
{
	uint32_t v = 0, shift = 0;

	while (*i < n && shift < 32) {
		unsigned char b = p[(*i)++];

		v |= (uint32_t)(b & 0x3f) << shift;
		shift += 6;
		if (!(b & 0x40)) {
			*out = v;
			return true;
		}
	}
	return false;
}

static unsigned int line_ok(int64_t line)
{
	return line > 0 && line < (1 << 30) ? (unsigned int)line : 0;
}

/*
 * 3.9's co_lnotab (Objects/lnotab_notes.txt in CPython 3.9, PyCode_Addr2Line): byte pairs, a
 * count of bytes of code and a signed line delta, which applies from the end of those bytes;
 * the first line is co_firstlineno. at is the instruction's offset in bytes.
 */
static unsigned int lnotab_line(const unsigned char *p, size_t n, int64_t line, uint64_t at)
{
	uint64_t addr = 0;
	size_t i;

	for (i = 0; i + 1 < n; i += 2) {
		addr += p[i];
		if (addr > at)
			break;
		line += (signed char)p[i + 1];
	}
	return line_ok(line);
}

/*
 * 3.10's co_linetable (Objects/lnotab_notes.txt in CPython 3.10, _PyCode_CheckLineNumber):
 * byte pairs, a range's length in bytes of code and its line's delta from the last (-128: the
 * range has no line, and the line is not moved). The range that holds at (bytes) says it;
 * empty ranges (a line delta too large for a byte, split) only move the line.
 */
static unsigned int linetable310_line(const unsigned char *p, size_t n, int64_t line, uint64_t at)
{
	uint64_t end = 0;
	size_t i;

	for (i = 0; i + 1 < n; i += 2) {
		int delta = (signed char)p[i + 1];

		end += p[i];
		if (delta != -128)
			line += delta;
		if (end > at)
			return delta == -128 ? 0 : line_ok(line);
	}
	return 0; /* past the table */
}

/*
 * 3.11's location table (Objects/locations.md in CPython): entries of a byte 1CCCCLLL (code C,
 * L + 1 code units), then what the code says. Lines are deltas from the first line. 3.9 and
 * 3.10's tables, in bytes of code, above.
 */
unsigned int bt_py_code_line(const struct bt_py_code *c, uint32_t insn)
{
	const unsigned char *p = c ? c->lines : NULL;
	size_t n = c ? c->nlines : 0, i = 0;
	int64_t line;
	uint32_t at = 0, v, k;

	if (!c)
		return 0;
	line = c->firstline;
	if (insn == BT_PY_INSN_UNKNOWN || !p)
		return line_ok(line);
	if (c->lines_format == BT_PY_LINES_LNOTAB)
		return lnotab_line(p, n, line, (uint64_t)insn * 2);
	if (c->lines_format == BT_PY_LINES_310)
		return linetable310_line(p, n, line, (uint64_t)insn * 2);
	if (c->lines_format != BT_PY_LINES_LOCATIONS)
		return 0;
	while (i < n) {
		unsigned char b = p[i++];
		unsigned int code = (b >> 3) & 15, len = (b & 7) + 1;
		bool has_line = true;

		if (!(b & 0x80))
			return 0; /* not an entry's first byte: not a table we know */
		switch (code) {
		case 15: /* no location */
			has_line = false;
			break;
		case 14: /* long form: line delta, end line delta, columns */
		case 13: /* no columns: line delta */
			if (!varint(p, n, &i, &v))
				return 0;
			line += (v & 1) ? -(int64_t)(v >> 1) : (int64_t)(v >> 1);
			for (k = 0; code == 14 && k < 3; k++)
				if (!varint(p, n, &i, &v))
					return 0;
			break;
		case 12:
		case 11:
		case 10: /* one line, delta code - 10, two bytes of columns */
			line += code - 10;
			i += 2;
			break;
		default: /* same line, a byte of columns */
			i += 1;
			break;
		}
		if (insn < at + len)
			return has_line ? line_ok(line) : 0;
		at += len;
	}
	return 0;
}

/* The per-process cache */

/* code NULL: the read failed (not named). Its own allocation: frames point into it. */
struct py_entry {
	uint64_t addr; /* 0: free */
	struct bt_py_code *code;
	/* code NULL: the read failed, for a frame of this check, in this begin; retried once */
	uint32_t failed_check, failed_gen;
	bool retried;
};

struct bt_pycache {
	int pid;
	bt_py_read_fn rd;
	void *ctx;
	struct py_entry *v;
	size_t n, cap; /* cap a power of two */
	/* read again under another check: still named by this resolve call's frames */
	struct bt_py_code **retired;
	size_t nretired;
	uint64_t read, failed;
	uint32_t gen; /* bt_pycache__begin() calls */
	bool stopped; /* the process is gone: what is kept names, nothing more is read */
};

/* pid's memory: no page it has not mapped is read, and nothing faults here */
static int read_pid(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct bt_pycache *c = ctx;
	struct iovec local = { buf, len }, remote = { (void *)(uintptr_t)addr, len };

	return process_vm_readv(c->pid, &local, 1, &remote, 1, 0) == (ssize_t)len ? 0 : -EFAULT;
}

struct bt_pycache *bt_pycache__new(int pid, bt_py_read_fn rd, void *ctx)
{
	struct bt_pycache *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->pid = pid;
	c->rd = rd ? rd : read_pid;
	c->ctx = rd ? ctx : c;
	return c;
}

static void code_free(struct bt_py_code *code)
{
	bt_py_code__clear(code);
	free(code);
}

static void drop_retired(struct bt_pycache *c)
{
	size_t i;

	for (i = 0; i < c->nretired; i++)
		code_free(c->retired[i]);
	free(c->retired);
	c->retired = NULL;
	c->nretired = 0;
}

static void drop_all(struct bt_pycache *c)
{
	size_t i;

	for (i = 0; i < c->cap; i++)
		code_free(c->v[i].code);
	free(c->v);
	c->v = NULL;
	c->n = c->cap = 0;
	drop_retired(c);
}

void bt_pycache__free(struct bt_pycache *c)
{
	if (!c)
		return;
	drop_all(c);
	free(c);
}

void bt_pycache__begin(struct bt_pycache *c)
{
	if (!c)
		return;
	c->gen++;
	drop_retired(c);
	if (c->n >= BT_PY_CACHE_MAX)
		drop_all(c);
}

static size_t slot_of(uint64_t addr, size_t cap)
{
	return (size_t)((addr * 0x9e3779b97f4a7c15ULL) >> 20) & (cap - 1);
}

static struct py_entry *find(struct bt_pycache *c, uint64_t addr, bool add)
{
	size_t i, k;

	if (!c->cap && !add)
		return NULL;
	/* at most half full; a full cache waits for the next bt_pycache__begin() */
	if (add && (c->n + 1) * 2 > c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 64;
		struct py_entry *v = calloc(cap, sizeof(*v));

		if (!v)
			return NULL;
		for (k = 0; k < c->cap; k++) {
			if (!c->v[k].addr)
				continue;
			for (i = slot_of(c->v[k].addr, cap); v[i].addr; i = (i + 1) & (cap - 1))
				;
			v[i] = c->v[k];
		}
		free(c->v);
		c->v = v;
		c->cap = cap;
	}
	for (i = slot_of(addr, c->cap); c->v[i].addr; i = (i + 1) & (c->cap - 1))
		if (c->v[i].addr == addr)
			return &c->v[i];
	if (!add)
		return NULL;
	c->v[i].addr = addr;
	c->n++;
	return &c->v[i];
}

/* e's code object read (again): false when it cannot be */
static bool fill(struct bt_pycache *c, struct py_entry *e, const struct bt_py_version *v)
{
	struct bt_py_code *code = calloc(1, sizeof(*code)), **r;

	c->read++;
	if (code && (c->stopped || bt_py_code_read(v, c->rd, c->ctx, e->addr, code))) {
		code_free(code);
		code = NULL;
	}
	c->failed += !code;
	if (e->code) {
		r = realloc(c->retired, (c->nretired + 1) * sizeof(*r));
		if (!r) {
			code_free(code);
			return false; /* the old one stays: not named by it, its check differs */
		}
		c->retired = r;
		c->retired[c->nretired++] = e->code;
	}
	e->code = code;
	return code != NULL;
}

int bt_pycache__name(struct bt_pycache *c, uint64_t code_word, uint64_t info_word,
		     const char **name, const char **file, unsigned int *line,
		     unsigned int *start_line)
{
	const struct bt_py_version *v = bt_py_version_at(BT_PY_CODE_ROW(code_word));
	uint64_t addr = BT_PY_CODE_ADDR(code_word);
	uint32_t check = BT_PY_INFO_CHECK(info_word);
	struct py_entry *e;

	*name = *file = NULL;
	*line = 0;
	if (start_line)
		*start_line = 0;
	if (!c || !v || !addr || !BT_PY_IS_CODE(code_word) || !BT_PY_IS_INFO(info_word))
		return -ENOENT;
	e = find(c, addr, false);
	if (!e) {
		e = find(c, addr, true);
		if (!e)
			return -ENOMEM;
		fill(c, e, v);
	} else if (e->code && e->code->check != check) {
		/* another object at the address since it was read: read it again */
		fill(c, e, v);
	} else if (!e->code &&
		   (e->failed_check != check || (!e->retried && e->failed_gen != c->gen))) {
		/*
		 * A read that failed: again for a frame of another object, and once in a later
		 * call for the same one (a page not readable yet, an object read as it was being
		 * made), rather than never while the cache lasts
		 */
		e->retried = e->failed_check == check;
		fill(c, e, v);
	}
	if (!e->code) {
		e->failed_check = check;
		e->failed_gen = c->gen;
	}
	if (!e->code || e->code->check != check)
		return -ENOENT;
	*name = e->code->name;
	*file = e->code->file;
	*line = bt_py_code_line(e->code, BT_PY_INFO_INSN(info_word));
	if (start_line)
		*start_line = bt_py_code_line(e->code, BT_PY_INSN_UNKNOWN);
	return 0;
}

void bt_pycache__stop_reading(struct bt_pycache *c)
{
	if (c)
		c->stopped = true;
}

void bt_pycache__stats(const struct bt_pycache *c, uint64_t *read, uint64_t *failed)
{
	*read = c ? c->read : 0;
	*failed = c ? c->failed : 0;
}
