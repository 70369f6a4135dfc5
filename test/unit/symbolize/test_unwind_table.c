// SPDX-License-Identifier: GPL-2.0
/*
 * Unwind tables (bt_unwind_table.h) against libdw: every row of libc, the stack workloads, a
 * C++ binary and a .debug_frame-only file must give the rule libdw computes at the same pc,
 * and so must every row libdw has inside our rows (libdw splits where other registers
 * change; we merge). Then broken sections through bt_unwind_table_from_memory.
 */
#include <dlfcn.h>
#include <dwarf.h>
#include <elf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "bt_elf.h"
#include "bt_unwind_maps.h"
#include "bt_unwind_samples.h"
#include "bt_unwind_table.h"
#include "harness.h"

#define LIBC "/lib/x86_64-linux-gnu/libc.so.6"
#define LIBSTDCXX "/usr/lib/x86_64-linux-gnu/libstdc++.so.6"

static int verbose;
static int a64; /* compare() reads aarch64 rows (libdw_row_a64) */
/* the aarch64 file's .plt, which has the builder's default row and no FDE for libdw */
static uint64_t a64_plt, a64_plt_end;

/* What libdw says at one pc, reduced to our row's vocabulary. */
static int libdw_row(Dwarf_CFI *cfi, uint64_t pc, struct bt_unwind_row *out, uint64_t *end)
{
	Dwarf_Op ops_mem[3], *ops;
	Dwarf_Frame *fr = NULL;
	Dwarf_Addr start, fend;
	size_t nops;
	bool signal;
	int reg;

	memset(out, 0, sizeof(*out));
	if (dwarf_cfi_addrframe(cfi, pc, &fr))
		return -1; /* no FDE */
	dwarf_frame_info(fr, &start, &fend, &signal);
	*end = fend;
	if (signal) {
		out->cfa_rule = BT_CFA_SIGNAL;
		goto done;
	}
	if (dwarf_frame_register(fr, 16, ops_mem, &ops, &nops) < 0) {
		out->cfa_rule = BT_CFA_UNSUPPORTED;
		goto done;
	}
	if (nops == 0 && ops == ops_mem) {
		out->cfa_rule = BT_CFA_END; /* rip undefined */
		goto done;
	}
	/* saved at CFA - 8: DW_OP_call_frame_cfa, DW_OP_plus_uconst/consts -8 */
	if (!(nops == 2 && ops[0].atom == DW_OP_call_frame_cfa &&
	      (ops[1].atom == DW_OP_plus_uconst || ops[1].atom == DW_OP_consts) &&
	      (int64_t)ops[1].number == -8)) {
		out->cfa_rule = BT_CFA_UNSUPPORTED;
		goto done;
	}
	if (dwarf_frame_cfa(fr, &ops, &nops) || !nops) {
		out->cfa_rule = BT_CFA_UNSUPPORTED;
		goto done;
	}
	if (nops == 1 && (ops[0].atom == DW_OP_bregx ||
			  (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31))) {
		int64_t off;

		if (ops[0].atom == DW_OP_bregx) {
			reg = ops[0].number;
			off = (int64_t)ops[0].number2;
		} else {
			reg = ops[0].atom - DW_OP_breg0;
			off = (int64_t)ops[0].number;
		}
		if (reg != 6 && reg != 7) {
			out->cfa_rule = BT_CFA_UNSUPPORTED;
			goto done;
		}
		out->cfa_rule = reg == 7 ? BT_CFA_RSP : BT_CFA_RBP;
		out->cfa_offset = off;
	} else if (nops == 9 && ops[0].atom == DW_OP_breg7 && ops[0].number == 8 &&
		   ops[1].atom == DW_OP_breg16 && ops[1].number == 0 &&
		   ops[2].atom == DW_OP_lit15 && ops[3].atom == DW_OP_and &&
		   ops[4].atom == DW_OP_lit11 && ops[5].atom == DW_OP_ge &&
		   ops[6].atom == DW_OP_lit3 && ops[7].atom == DW_OP_shl &&
		   ops[8].atom == DW_OP_plus) {
		out->cfa_rule = BT_CFA_PLT;
		out->cfa_offset = 8;
	} else {
		out->cfa_rule = BT_CFA_UNSUPPORTED;
		goto done;
	}
	if (dwarf_frame_register(fr, 6, ops_mem, &ops, &nops) < 0) {
		out->rbp_rule = BT_RBP_UNDEFINED;
	} else if (nops == 0 && ops == NULL) {
		out->rbp_rule = BT_RBP_SAME;
	} else if (nops == 2 && ops[0].atom == DW_OP_call_frame_cfa &&
		   (ops[1].atom == DW_OP_plus_uconst || ops[1].atom == DW_OP_consts) &&
		   (int64_t)ops[1].number >= INT16_MIN && (int64_t)ops[1].number <= INT16_MAX) {
		out->rbp_rule = BT_RBP_CFA;
		out->rbp_offset = (int64_t)ops[1].number;
	} else if (nops == 1 && ops[0].atom == DW_OP_call_frame_cfa) {
		out->rbp_rule = BT_RBP_CFA; /* at the CFA itself */
	} else {
		out->rbp_rule = BT_RBP_UNDEFINED;
	}
done:
	free(fr);
	return 0;
}

/* A saved register's offset from libdw's ops, CFA + N, into *off; 0 when it is not that. */
static int cfa_plus(const Dwarf_Op *ops, size_t nops, int64_t *off)
{
	if (nops == 1 && ops[0].atom == DW_OP_call_frame_cfa) {
		*off = 0;
		return 1;
	}
	if (nops == 2 && ops[0].atom == DW_OP_call_frame_cfa &&
	    (ops[1].atom == DW_OP_plus_uconst || ops[1].atom == DW_OP_consts)) {
		*off = (int64_t)ops[1].number;
		return 1;
	}
	return 0;
}

/*
 * libdw's answer at one pc of an aarch64 file, packed as the builder packs aarch64 rows
 * (probes/bt_unwind.h): sp or x29 (31, 29) + offset, x30 in itself or at CFA + offset, x29's
 * rule; offsets in 8-byte slots.
 */
static int libdw_row_a64(Dwarf_CFI *cfi, uint64_t pc, struct bt_unwind_row *out, uint64_t *end)
{
	Dwarf_Op ops_mem[3], *ops;
	Dwarf_Frame *fr = NULL;
	Dwarf_Addr start, fend;
	int64_t off, cfa = 0, ra = 0;
	size_t nops;
	bool signal;
	int reg;

	memset(out, 0, sizeof(*out));
	if (dwarf_cfi_addrframe(cfi, pc, &fr))
		return -1;
	dwarf_frame_info(fr, &start, &fend, &signal);
	*end = fend;
	if (signal) {
		out->cfa_rule = BT_CFA_SIGNAL;
		goto done;
	}
	if (dwarf_frame_register(fr, 30, ops_mem, &ops, &nops) < 0)
		goto unsupported;
	if (nops == 0 && ops == ops_mem) {
		out->cfa_rule = BT_CFA_END;
		goto done;
	}
	if (nops == 0 && ops == NULL) {
		out->cfa_rule = 0; /* still in x30 */
	} else if (cfa_plus(ops, nops, &ra) && !(ra % 8) && ra / 8 >= INT16_MIN &&
		   ra / 8 <= INT16_MAX) {
		out->cfa_rule = BT_RA_SAVED;
	} else {
		goto unsupported;
	}
	if (dwarf_frame_cfa(fr, &ops, &nops) || nops != 1)
		goto unsupported;
	if (ops[0].atom == DW_OP_bregx) {
		reg = ops[0].number;
		off = (int64_t)ops[0].number2;
	} else if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31) {
		reg = ops[0].atom - DW_OP_breg0;
		off = (int64_t)ops[0].number;
	} else {
		goto unsupported;
	}
	if ((reg != 29 && reg != 31) || off % 8 || off / 8 < INT16_MIN || off / 8 > INT16_MAX)
		goto unsupported;
	cfa = off / 8;
	out->cfa_rule |= reg == 31 ? BT_CFA_RSP : BT_CFA_RBP;
	out->cfa_offset = (int32_t)((uint32_t)(uint16_t)cfa | (uint32_t)(uint16_t)(ra / 8) << 16);
	if (dwarf_frame_register(fr, 29, ops_mem, &ops, &nops) < 0) {
		out->rbp_rule = BT_RBP_UNDEFINED;
	} else if (nops == 0 && ops == NULL) {
		out->rbp_rule = BT_RBP_SAME;
	} else if (cfa_plus(ops, nops, &off) && !(off % 8) && off / 8 >= INT16_MIN &&
		   off / 8 <= INT16_MAX) {
		out->rbp_rule = BT_RBP_CFA;
		out->rbp_offset = off / 8;
	} else {
		out->rbp_rule = BT_RBP_UNDEFINED;
	}
	goto done;
unsupported:
	memset(out, 0, sizeof(*out));
	out->cfa_rule = BT_CFA_UNSUPPORTED;
done:
	free(fr);
	return 0;
}

static int dw_row(Dwarf_CFI *cfi, uint64_t pc, struct bt_unwind_row *out, uint64_t *end)
{
	return a64 ? libdw_row_a64(cfi, pc, out, end) : libdw_row(cfi, pc, out, end);
}

static int rule_eq(const struct bt_unwind_row *a, const struct bt_unwind_row *b)
{
	return a->cfa_rule == b->cfa_rule && a->cfa_offset == b->cfa_offset &&
	       a->rbp_rule == b->rbp_rule && a->rbp_offset == b->rbp_offset;
}

struct cmp_stats {
	size_t checked, mismatch, gaps;
};

static void report(const char *what, uint64_t pc, const struct bt_unwind_row *ours,
		   const struct bt_unwind_row *dw)
{
	fprintf(stderr, "  %s at 0x%llx: ours cfa %u%+d rbp %u%+d, libdw cfa %u%+d rbp %u%+d\n",
		what, (unsigned long long)pc, ours->cfa_rule, ours->cfa_offset, ours->rbp_rule,
		ours->rbp_offset, dw->cfa_rule, dw->cfa_offset, dw->rbp_rule, dw->rbp_offset);
}

static void check_pc(Dwarf_CFI **cfi, const struct bt_unwind_table *t, uint64_t pc,
		     struct cmp_stats *s, uint64_t *dw_end)
{
	const struct bt_unwind_row *r = bt_unwind_table_find(t, pc);
	struct bt_unwind_row dw, none = { 0 };

	*dw_end = 0;
	s->checked++;
	/* .eh_frame first, then .debug_frame, as the builder prefers them */
	if (dw_row(cfi[0], pc, &dw, dw_end) && (!cfi[1] || dw_row(cfi[1], pc, &dw, dw_end))) {
		if (r && pc >= a64_plt && pc < a64_plt_end && r->cfa_rule == BT_CFA_RSP &&
		    !r->cfa_offset && r->rbp_rule == BT_RBP_SAME)
			return;
		if (r) {
			if (s->mismatch++ < 10)
				report("no libdw FDE", pc, r, &none);
		}
		return;
	}
	if (!r) {
		/* FDEs we drop on purpose (overlaps, discarded code) may still be in libdw */
		s->gaps++;
		return;
	}
	if (!rule_eq(r, &dw) && s->mismatch++ < 10)
		report("mismatch", pc, r, &dw);
}

/*
 * Every row of ours at its first byte, one byte in, and its last byte; every libdw row start
 * inside it. Where libdw's row runs past ours, the next row of ours takes over.
 */
static void compare(Dwarf_CFI **cfi, const struct bt_unwind_table *t, const char *name)
{
	struct cmp_stats s = { 0 };
	uint64_t dw_end, pc, end;
	size_t i;

	for (i = 0; i + 1 < t->nr; i++) {
		pc = t->rows[i].pc;
		end = t->rows[i + 1].pc;
		if (t->rows[i].cfa_rule == BT_CFA_NONE) {
			check_pc(cfi, t, pc, &s, &dw_end);
			continue;
		}
		while (pc < end) {
			check_pc(cfi, t, pc, &s, &dw_end);
			if (pc + 1 < end)
				check_pc(cfi, t, pc + 1, &s, &dw_end);
			pc = dw_end > pc ? dw_end : end;
		}
		check_pc(cfi, t, end - 1, &s, &dw_end);
	}
	if (verbose || s.mismatch)
		fprintf(stderr,
			"# %s: %zu rows, %zu pcs checked, %zu mismatches, %zu only in libdw\n",
			name, t->nr, s.checked, s.mismatch, s.gaps);
	CHECK(s.checked > t->nr);
	CHECK_INT(s.mismatch, 0);
	/* a dropped FDE is rare: overlapping or discarded code */
	CHECK(s.gaps <= t->nr_overlap + t->nr_outside);
}

static void check_table_shape(const struct bt_unwind_table *t)
{
	size_t i, bad = 0;

	CHECK(t->nr > 1);
	CHECK_INT(t->rows[t->nr - 1].cfa_rule, BT_CFA_NONE);
	for (i = 1; i < t->nr; i++) {
		if (t->rows[i].pc <= t->rows[i - 1].pc || rule_eq(&t->rows[i], &t->rows[i - 1]))
			bad++;
	}
	CHECK_INT(bad, 0);
	CHECK_INT(sizeof(struct bt_unwind_row), 12);
}

/* Build a file's table and compare it with libdw's reading of the same file. */
static void compare_file(const char *path, int debug_frame, struct bt_unwind_table **keep)
{
	struct bt_unwind_table *t = NULL;
	Dwarf_CFI *cfi[2] = { NULL, NULL };
	Dwarf *dw = NULL;
	Elf *e = NULL;
	int fd, err;

	err = bt_unwind_table_build(path, &t);
	CHECK_INT(err, 0);
	if (err) {
		fprintf(stderr, "# %s: %s\n", path, strerror(-err));
		return;
	}
	check_table_shape(t);
	CHECK_INT(t->nr_bad, 0);
	if (verbose)
		fprintf(stderr,
			"# %s: %zu FDEs, %zu rows, %zu unsupported, %zu plt, plt_nofde %d\n", path,
			t->nr_fdes, t->nr, t->nr_unsupported, t->nr_plt, t->plt_without_fde);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	CHECK(fd >= 0);
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	cfi[0] = dwarf_getcfi_elf(e);
	CHECK(cfi[0] != NULL);
	a64_plt = a64_plt_end = 0;
	if (a64) {
		Elf_Scn *scn = NULL;
		size_t shstrndx;
		GElf_Shdr sh;
		const char *n;

		CHECK_INT(elf_getshdrstrndx(e, &shstrndx), 0);
		while ((scn = elf_nextscn(e, scn))) {
			n = gelf_getshdr(scn, &sh) ? elf_strptr(e, shstrndx, sh.sh_name) : NULL;
			if (n && !strcmp(n, ".plt")) {
				a64_plt = sh.sh_addr;
				a64_plt_end = sh.sh_addr + sh.sh_size;
			}
		}
		CHECK(a64_plt_end > a64_plt);
	}
	if (debug_frame) {
		dw = dwarf_begin_elf(e, DWARF_C_READ, NULL);
		cfi[1] = dw ? dwarf_getcfi(dw) : NULL;
		CHECK(cfi[1] != NULL);
	}
	if (cfi[0])
		compare(cfi, t, path);
	if (cfi[0])
		dwarf_cfi_end(cfi[0]);
	if (dw)
		dwarf_end(dw);
	elf_end(e);
	close(fd);
	if (keep)
		*keep = t;
	else
		bt_unwind_table_free(t);
}

static void test_libc(void)
{
	struct bt_unwind_table *t = NULL;
	const struct bt_unwind_row *r;
	size_t i, end = 0, signal = 0;

	compare_file(LIBC, 0, &t);
	if (!t)
		return;
	CHECK(t->nr > 10000);
	CHECK(t->build_id_len == 20);
	CHECK(t->sources == BT_UNWIND_SRC_EH_FRAME);
	for (i = 0; i < t->nr; i++) {
		end += t->rows[i].cfa_rule == BT_CFA_END;
		signal += t->rows[i].cfa_rule == BT_CFA_SIGNAL;
	}
	CHECK(end >= 1);    /* clone's child and __clone3 end the walk with .cfi_undefined rip */
	CHECK(signal >= 1); /* __restore_rt */
	CHECK(bt_unwind_table_find(t, 0) == NULL);
	CHECK(bt_unwind_table_find(t, 1ull << 40) == NULL);
	r = bt_unwind_table_find(t, t->rows[0].pc);
	CHECK(r == &t->rows[0]);
	bt_unwind_table_free(t);
}

static void test_workloads(void)
{
	compare_file(BT_TEST_BINDIR "/test/workloads/stack_paths", 0, NULL);
	compare_file(BT_TEST_BINDIR "/test/workloads/libbtstack.so", 0, NULL);
	compare_file(BT_TEST_BINDIR "/test/workloads/stack_paths_cxx", 0, NULL);
	compare_file(FX_DIR "/fx_cxx", 0, NULL);
	compare_file(FX_DIR "/fx_nopie", 0, NULL);
}

static void test_libstdcxx(void)
{
	compare_file(LIBSTDCXX, 0, NULL);
}

/*
 * BT_UNWIND_COMPARE=FILE:FILE...: sweep more files by hand (e.g. every mapped library).
 * Expect one known disagreement in such sweeps: after a CFA expression, def_cfa_register
 * keeps the last offset for us and libgcc, not for libdw (libgcrypt's assembly).
 */
static void test_more_files(void)
{
	char *list = getenv("BT_UNWIND_COMPARE") ? strdup(getenv("BT_UNWIND_COMPARE")) : NULL;
	char *f, *save = NULL;

	CHECK(1);
	for (f = list ? strtok_r(list, ":", &save) : NULL; f; f = strtok_r(NULL, ":", &save))
		compare_file(f, 0, NULL);
	free(list);
}

/* The lazy PLT of a non-PIE binary gets the PLT rule, from its first to its last byte. */
static void test_plt(void)
{
	struct bt_unwind_table *t = NULL;
	const struct bt_unwind_row *r;
	GElf_Shdr sh;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	uint64_t plt = 0, plt_size = 0;
	Elf *e;
	int fd;

	CHECK_INT(bt_unwind_table_build(FX_DIR "/fx_nopie", &t), 0);
	fd = open(FX_DIR "/fx_nopie", O_RDONLY);
	e = elf_begin(fd, ELF_C_READ, NULL);
	elf_getshdrstrndx(e, &shstrndx);
	while ((scn = elf_nextscn(e, scn))) {
		gelf_getshdr(scn, &sh);
		if (!strcmp(elf_strptr(e, shstrndx, sh.sh_name), ".plt")) {
			plt = sh.sh_addr;
			plt_size = sh.sh_size;
		}
	}
	elf_end(e);
	close(fd);
	CHECK(plt != 0 && plt_size >= 32);
	if (t && plt_size >= 32) {
		CHECK_INT(t->plt_without_fde, 0);
		r = bt_unwind_table_find(t, plt); /* PLT0: push, then jmp */
		CHECK(r && r->cfa_rule == BT_CFA_RSP && r->cfa_offset == 16);
		r = bt_unwind_table_find(t, plt + 16);
		CHECK(r && r->cfa_rule == BT_CFA_PLT);
		r = bt_unwind_table_find(t, plt + plt_size - 1);
		CHECK(r && r->cfa_rule == BT_CFA_PLT);
		CHECK(t->nr_plt >= 1);
	}
	bt_unwind_table_free(t);
}

static void test_errors(void)
{
	struct bt_unwind_table *t = (void *)1;

	CHECK_INT(bt_unwind_table_build("/nonexistent/file", &t), -ENOENT);
	CHECK(t == NULL);
	CHECK_INT(bt_unwind_table_build(BT_TEST_SRCDIR "/README.md", &t), -ENOEXEC);
	CHECK_INT(bt_unwind_table_from_memory("x", 1, &t), -ENOEXEC);
	CHECK(bt_unwind_table_find(NULL, 0) == NULL);
	bt_unwind_table_free(NULL);
}

static void *read_all(const char *path, size_t *size)
{
	struct stat st;
	void *buf;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st)) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	buf = malloc(st.st_size);
	if (buf && read(fd, buf, st.st_size) != st.st_size) {
		free(buf);
		buf = NULL;
	}
	close(fd);
	*size = st.st_size;
	return buf;
}

/* File offset and size of a section in an image. */
static int find_section(void *img, size_t size, const char *name, size_t *off, size_t *len)
{
	Elf *e = elf_memory(img, size);
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;
	int found = -1;

	if (!e || elf_getshdrstrndx(e, &shstrndx))
		goto out;
	while ((scn = elf_nextscn(e, scn))) {
		if (gelf_getshdr(scn, &sh) && !strcmp(elf_strptr(e, shstrndx, sh.sh_name), name)) {
			*off = sh.sh_offset;
			*len = sh.sh_size;
			found = 0;
			break;
		}
	}
out:
	if (e)
		elf_end(e);
	return found;
}

static uint32_t le32(const unsigned char *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The offset of the n-th FDE (not CIE) of at least min_len bytes in an .eh_frame. */
static size_t nth_fde(const unsigned char *sec, size_t len, int n, uint32_t min_len)
{
	size_t off = 0;

	while (off + 8 <= len && le32(sec + off)) {
		if (le32(sec + off + 4) && le32(sec + off) >= min_len && n-- == 0)
			return off;
		off += 4 + le32(sec + off);
	}
	return 0;
}

static void test_corrupt(void)
{
	struct bt_unwind_table *good = NULL, *t = NULL;
	size_t size, off, len, fde, i, prog;
	unsigned char *img, *sec;
	unsigned int seed = 1;
	int err;

	img = read_all(LIBC, &size);
	CHECK(img != NULL);
	if (!img)
		return;
	CHECK_INT(find_section(img, size, ".eh_frame", &off, &len), 0);
	CHECK_INT(bt_unwind_table_from_memory(img, size, &good), 0);
	CHECK(good && good->nr > 10000 && good->nr_bad == 0);
	sec = img + off;

	/* the 100th FDE's length runs past the section: the FDEs before it are kept */
	fde = nth_fde(sec, len, 100, 0);
	CHECK(fde > 0);
	memcpy(sec + fde, "\xf0\xff\xff\x7f", 4);
	err = bt_unwind_table_from_memory(img, size, &t);
	CHECK_INT(err, 0);
	CHECK(t && t->nr_bad == 1 && t->nr_fdes >= 99 && t->nr_fdes < good->nr_fdes);
	bt_unwind_table_free(t);
	t = NULL;
	free(img);

	/* the 10th FDE's program: remember_state far past the stack bound; the rest of it is
	 * marked unsupported, everything else is as before */
	img = read_all(LIBC, &size);
	sec = img + off;
	fde = nth_fde(sec, len, 10, 64);
	/* length, CIE pointer, pc_begin (sdata4), pc_range (4), augmentation length 0 */
	prog = fde + 4 + 4 + 4 + 4 + 1;
	for (i = prog; i < fde + 4 + le32(sec + fde); i++)
		sec[i] = DW_CFA_remember_state;
	err = bt_unwind_table_from_memory(img, size, &t);
	CHECK_INT(err, 0);
	CHECK(t && t->nr_bad == 1 && t->nr_fdes == good->nr_fdes);
	bt_unwind_table_free(t);
	t = NULL;

	/* cut inside .eh_frame: an error or a partial table, never a crash */
	err = bt_unwind_table_from_memory(img, off + len / 2, &t);
	CHECK(err != 0 || (t && t->nr_fdes < good->nr_fdes));
	bt_unwind_table_free(t);
	t = NULL;

	/* random bytes in random places of .eh_frame, many times: ASan/UBSan judge */
	for (i = 0; i < 200; i++) {
		size_t j, k;

		for (j = 0; j < 8; j++) {
			k = rand_r(&seed) % len;
			sec[k] = rand_r(&seed);
		}
		err = bt_unwind_table_from_memory(img, size, &t);
		CHECK(err == 0 || err == -ENODATA || err == -E2BIG);
		if (t)
			check_table_shape(t);
		bt_unwind_table_free(t);
		t = NULL;
	}
	bt_unwind_table_free(good);
	free(img);
}

/* -fno-asynchronous-unwind-tables -g: the code's rules are only in .debug_frame. */
static void test_debug_frame(void)
{
	struct bt_unwind_table *t = NULL, *s = NULL;
	size_t i;

	compare_file(FX_DIR "/fx_debugframe", 1, &t);
	if (!t)
		return;
	CHECK(t->sources & BT_UNWIND_SRC_DEBUG_FRAME);
	/* stripped, with a .gnu_debuglink: the debug file's .debug_frame gives the same rows */
	CHECK_INT(bt_unwind_table_build(FX_DIR "/fx_debugframe_stripped", &s), 0);
	if (s) {
		CHECK(s->sources & BT_UNWIND_SRC_DEBUG_FILE);
		CHECK_INT(s->nr, t->nr);
		for (i = 0; i < s->nr && i < t->nr; i++)
			CHECK(!memcmp(&s->rows[i], &t->rows[i], sizeof(s->rows[i])));
	}
	bt_unwind_table_free(s);
	/* a zlib-compressed .debug_frame (SHF_COMPRESSED): the same rows */
	s = NULL;
	CHECK_INT(bt_unwind_table_build(FX_DIR "/fx_debugframe_z", &s), 0);
	if (s) {
		CHECK(s->sources & BT_UNWIND_SRC_DEBUG_FRAME);
		CHECK_INT(s->nr, t->nr);
		for (i = 0; i < s->nr && i < t->nr; i++)
			CHECK(!memcmp(&s->rows[i], &t->rows[i], sizeof(s->rows[i])));
	}
	bt_unwind_table_free(s);
	/* without the debug file there is only the C runtime's .eh_frame */
	s = NULL;
	CHECK_INT(bt_unwind_table_build(FX_DIR "/fx_debugframe_nolink", &s), 0);
	if (s) {
		CHECK_INT(s->sources, BT_UNWIND_SRC_EH_FRAME);
		CHECK(s->nr < t->nr);
	}
	bt_unwind_table_free(s);
	bt_unwind_table_free(t);
}

struct want {
	const char *func;
	unsigned int off;
	int cfa_rule, cfa_offset, rbp_rule, rbp_offset;
};

/* fixtures/fx_cfi.S: hand-written CFI, with the rows its comments promise */
static void test_cfi_rules(void)
{
	static const struct want w[] = {
		{ "cfi_frame", 0, BT_CFA_RSP, 8, BT_RBP_SAME, 0 },
		{ "cfi_frame", 1, BT_CFA_RSP, 16, BT_RBP_CFA, -16 },
		{ "cfi_frame", 3, BT_CFA_RSP, 16, BT_RBP_CFA, -16 },
		{ "cfi_frame", 4, BT_CFA_RBP, 16, BT_RBP_CFA, -16 },
		{ "cfi_frame", 5, BT_CFA_RBP, 16, BT_RBP_CFA, -16 },
		{ "cfi_frame", 6, BT_CFA_RSP, 8, BT_RBP_SAME, 0 },
		{ "cfi_frame", 7, BT_CFA_RBP, 16, BT_RBP_CFA, -16 },
		{ "cfi_frame", 8, BT_CFA_RBP, 16, BT_RBP_CFA, -16 },
		{ "cfi_frame", 9, -1, 0, 0, 0 }, /* alignment padding: no FDE */
		{ "cfi_start", 0, BT_CFA_END, 0, 0, 0 },
		{ "cfi_start", 2, BT_CFA_END, 0, 0, 0 },
		{ "cfi_signal", 0, BT_CFA_SIGNAL, 0, 0, 0 },
		{ "cfi_signal", 6, BT_CFA_SIGNAL, 0, 0, 0 },
		{ "cfi_plt", 0, BT_CFA_PLT, 8, BT_RBP_SAME, 0 },
		{ "cfi_plt", 1, BT_CFA_PLT, 8, BT_RBP_SAME, 0 },
		{ "cfi_plt", 2, BT_CFA_UNSUPPORTED, 0, 0, 0 },
		{ "cfi_odd", 0, BT_CFA_RSP, 8, BT_RBP_SAME, 0 },
		{ "cfi_odd", 1, BT_CFA_UNSUPPORTED, 0, 0, 0 },
		{ "cfi_odd", 2, BT_CFA_UNSUPPORTED, 0, 0, 0 },
		{ "cfi_odd", 3, BT_CFA_UNSUPPORTED, 0, 0, 0 },
		{ "cfi_odd", 4, BT_CFA_RSP, 8, BT_RBP_UNDEFINED, 0 },
		{ "cfi_odd", 5, BT_CFA_RSP, 8, BT_RBP_SAME, 0 },
		{ "cfi_odd", 6, BT_CFA_RSP, 8, BT_RBP_UNDEFINED, 0 },
		{ "cfi_odd", 7, BT_CFA_RSP, 8, BT_RBP_UNDEFINED, 0 },
		{ "cfi_odd", 8, BT_CFA_RSP, 8, BT_RBP_CFA, -24 },
		{ "cfi_odd", 307, BT_CFA_RSP, 8, BT_RBP_CFA, -24 },
		{ "cfi_odd", 308, BT_CFA_RSP, 16, BT_RBP_CFA, -24 },
		{ "cfi_odd", 70307, BT_CFA_RSP, 16, BT_RBP_CFA, -24 },
		{ "cfi_odd", 70308, BT_CFA_RSP, 8, BT_RBP_CFA, -24 },
		{ "cfi_odd", 70309, BT_CFA_UNSUPPORTED, 0, 0, 0 },
		{ "cfi_odd", 70310, -1, 0, 0, 0 }, /* past the last FDE */
	};
	struct bt_unwind_table *t = NULL;
	const struct bt_unwind_row *r, *prev = NULL;
	const struct bt_elf_sym *sym;
	struct bt_elf *elf = NULL;
	size_t i;

	CHECK_INT(bt_unwind_table_build(FX_DIR "/fx_cfi.so", &t), 0);
	CHECK_INT(bt_elf__open(FX_DIR "/fx_cfi.so", NULL, &elf), 0);
	if (!t || !elf)
		goto out;
	check_table_shape(t);
	CHECK_INT(t->nr_bad, 0);
	CHECK_INT(t->nr_fdes, 5);
	CHECK_INT(t->nr_cies, 3);
	for (i = 0; i < sizeof(w) / sizeof(w[0]); i++) {
		sym = bt_elf__find_func(elf, w[i].func);
		CHECK(sym != NULL);
		if (!sym)
			continue;
		r = bt_unwind_table_find(t, sym->vaddr + w[i].off);
		if (w[i].cfa_rule < 0) {
			if (r)
				fprintf(stderr, "  %s+%u: a row, expected none\n", w[i].func,
					w[i].off);
			CHECK(r == NULL);
			continue;
		}
		CHECK(r != NULL);
		if (!r)
			continue;
		if (r->cfa_rule != w[i].cfa_rule || r->cfa_offset != w[i].cfa_offset ||
		    r->rbp_rule != w[i].rbp_rule || r->rbp_offset != w[i].rbp_offset) {
			fprintf(stderr,
				"  %s+%u: cfa %u%+d rbp %u%+d, expected cfa %d%+d rbp %d%+d\n",
				w[i].func, w[i].off, r->cfa_rule, r->cfa_offset, r->rbp_rule,
				r->rbp_offset, w[i].cfa_rule, w[i].cfa_offset, w[i].rbp_rule,
				w[i].rbp_offset);
			CHECK(0);
		}
		/* neighbours with the same rule are one row */
		if (prev && i && !strcmp(w[i - 1].func, w[i].func) &&
		    w[i - 1].cfa_rule == w[i].cfa_rule && w[i - 1].cfa_offset == w[i].cfa_offset &&
		    w[i - 1].rbp_rule == w[i].rbp_rule && w[i - 1].rbp_offset == w[i].rbp_offset)
			CHECK(r == prev);
		prev = r;
	}
out:
	bt_elf__close(elf);
	bt_unwind_table_free(t);
	compare_file(FX_DIR "/fx_cfi.so", 0, NULL);
}

/* Without section headers, .eh_frame is found through PT_GNU_EH_FRAME: the same rows. */
static void test_no_section_headers(void)
{
	struct bt_unwind_table *t = NULL, *s = NULL;
	Elf64_Ehdr *eh;
	size_t size, i;
	void *img;

	img = read_all(FX_DIR "/fx_cfi.so", &size);
	CHECK(img != NULL);
	if (!img)
		return;
	CHECK_INT(bt_unwind_table_from_memory(img, size, &t), 0);
	eh = img;
	eh->e_shoff = 0;
	eh->e_shnum = 0;
	eh->e_shstrndx = 0;
	CHECK_INT(bt_unwind_table_from_memory(img, size, &s), 0);
	if (s && t) {
		CHECK_INT(s->nr, t->nr);
		CHECK_INT(s->nr_fdes, t->nr_fdes);
		CHECK_INT(s->nr_bad, 0);
		for (i = 0; i < s->nr && i < t->nr; i++)
			CHECK(!memcmp(&s->rows[i], &t->rows[i], sizeof(s->rows[i])));
	}
	bt_unwind_table_free(s);
	bt_unwind_table_free(t);
	free(img);
}

/* Row pcs are 32 bits: a file linked above 4 GiB gets no table. */
static void test_high(void)
{
	struct bt_unwind_table *t = NULL;

	CHECK_INT(bt_unwind_table_build(FX_DIR "/fx_cfi_high.so", &t), -E2BIG);
	CHECK(t == NULL);
}

/*
 * Hand-made sections in a minimal ELF image (no program headers, so every FDE counts): the
 * encodings and entry formats compilers rarely produce, and broken entries.
 */
struct buf {
	unsigned char *d;
	size_t n, cap;
};

static void put(struct buf *b, const void *p, size_t n)
{
	if (b->n + n > b->cap) {
		b->cap = (b->n + n) * 2;
		b->d = realloc(b->d, b->cap);
	}
	memcpy(b->d + b->n, p, n);
	b->n += n;
}

static void put_int(struct buf *b, uint64_t v, int bytes)
{
	unsigned char x[8];
	int i;

	for (i = 0; i < bytes; i++)
		x[i] = v >> (8 * i);
	put(b, x, bytes);
}

static void put_uleb(struct buf *b, uint64_t v)
{
	do {
		unsigned char c = v & 0x7f;

		v >>= 7;
		if (v)
			c |= 0x80;
		put(b, &c, 1);
	} while (v);
}

static void put_sleb(struct buf *b, int64_t v)
{
	int more = 1;

	while (more) {
		unsigned char c = v & 0x7f;

		v >>= 7;
		more = !((v == 0 && !(c & 0x40)) || (v == -1 && (c & 0x40)));
		if (more)
			c |= 0x80;
		put(b, &c, 1);
	}
}

/* An entry's length field (32 or 64-bit); returns where its contents start. */
static size_t entry_begin(struct buf *b, int is64)
{
	if (is64) {
		put_int(b, 0xffffffff, 4);
		put_int(b, 0, 8);
	} else {
		put_int(b, 0, 4);
	}
	return b->n;
}

static void entry_end(struct buf *b, size_t start, int is64)
{
	uint64_t len = b->n - start;
	int i;

	for (i = 0; i < (is64 ? 8 : 4); i++)
		b->d[start - (is64 ? 8 : 4) + i] = len >> (8 * i);
}

#define EH_ADDR 0x2000

/* ELF64 x86-64 with .eh_frame at EH_ADDR and a .debug_frame, each possibly empty. */
static void *make_elf(const struct buf *eh, const struct buf *dbg, size_t *size)
{
	static const char shstr[] = "\0.eh_frame\0.debug_frame\0.shstrtab";
	size_t eh_off = sizeof(Elf64_Ehdr), dbg_off = eh_off + eh->n, str_off = dbg_off + dbg->n;
	size_t sh_off = (str_off + sizeof(shstr) + 7) & ~7ul;
	Elf64_Shdr sh[4] = { { 0 } };
	Elf64_Ehdr eh_hdr = { 0 };
	unsigned char *img;

	*size = sh_off + sizeof(sh);
	img = calloc(1, *size);
	memcpy(eh_hdr.e_ident, ELFMAG, SELFMAG);
	eh_hdr.e_ident[EI_CLASS] = ELFCLASS64;
	eh_hdr.e_ident[EI_DATA] = ELFDATA2LSB;
	eh_hdr.e_ident[EI_VERSION] = EV_CURRENT;
	eh_hdr.e_type = ET_DYN;
	eh_hdr.e_machine = EM_X86_64;
	eh_hdr.e_version = EV_CURRENT;
	eh_hdr.e_ehsize = sizeof(Elf64_Ehdr);
	eh_hdr.e_shentsize = sizeof(Elf64_Shdr);
	eh_hdr.e_shnum = 4;
	eh_hdr.e_shstrndx = 3;
	eh_hdr.e_shoff = sh_off;
	sh[1] = (Elf64_Shdr){ .sh_name = 1,
			      .sh_type = SHT_PROGBITS,
			      .sh_flags = SHF_ALLOC,
			      .sh_addr = EH_ADDR,
			      .sh_offset = eh_off,
			      .sh_size = eh->n,
			      .sh_addralign = 1 };
	sh[2] = (Elf64_Shdr){ .sh_name = 11,
			      .sh_type = SHT_PROGBITS,
			      .sh_offset = dbg_off,
			      .sh_size = dbg->n,
			      .sh_addralign = 1 };
	sh[3] = (Elf64_Shdr){ .sh_name = 24,
			      .sh_type = SHT_STRTAB,
			      .sh_offset = str_off,
			      .sh_size = sizeof(shstr),
			      .sh_addralign = 1 };
	memcpy(img, &eh_hdr, sizeof(eh_hdr));
	if (eh->n)
		memcpy(img + eh_off, eh->d, eh->n);
	if (dbg->n)
		memcpy(img + dbg_off, dbg->d, dbg->n);
	memcpy(img + str_off, shstr, sizeof(shstr));
	memcpy(img + sh_off, sh, sizeof(sh));
	return img;
}

/* A CIE: version 1, augmentation "zR" with the given FDE pointer encoding (or aug as is). */
static size_t eh_cie(struct buf *b, const char *aug, int enc, uint64_t caf, int is64)
{
	size_t at = b->n, start = entry_begin(b, is64), auglen;

	put_int(b, 0, 4); /* CIE id */
	put_int(b, 1, 1);
	put(b, aug, strlen(aug) + 1);
	put_uleb(b, caf);
	put_sleb(b, -8);
	put_int(b, 16, 1);
	if (aug[0] == 'z') {
		auglen = enc >= 0 ? 1 : 0;
		put_uleb(b, auglen);
		if (enc >= 0)
			put_int(b, enc, 1);
	}
	put(b, "\x0c\x07\x08\x90\x01", 5); /* def_cfa rsp 8; offset rip cfa-8 */
	entry_end(b, start, is64);
	return at;
}

/* An FDE's header up to its program; the caller writes pc and range in the CIE's encoding. */
static size_t eh_fde_begin(struct buf *b, size_t cie, int is64)
{
	size_t start = entry_begin(b, is64);

	put_int(b, b->n - cie, 4); /* CIE pointer: back from this field */
	return start;
}

static const struct bt_unwind_row *row_at(const struct bt_unwind_table *t, uint64_t pc)
{
	return t ? bt_unwind_table_find(t, pc) : NULL;
}

#define CHECK_ROW(t, pc, rule, off)                             \
	do {                                                    \
		const struct bt_unwind_row *_r = row_at(t, pc); \
		CHECK(_r != NULL);                              \
		if (_r) {                                       \
			CHECK_INT(_r->cfa_rule, rule);          \
			CHECK_INT(_r->cfa_offset, off);         \
		}                                               \
	} while (0)

static void test_handmade_eh(void)
{
	struct buf eh = { 0 }, dbg = { 0 };
	struct bt_unwind_table *t = NULL;
	size_t c, f, size, field;
	void *img;

	/* udata4 absolute */
	c = eh_cie(&eh, "zR", DW_EH_PE_udata4, 1, 0);
	f = eh_fde_begin(&eh, c, 0);
	put_int(&eh, 0x1000, 4);
	put_int(&eh, 0x10, 4);
	put_uleb(&eh, 0);
	put(&eh, "\x02\x04\x0e\x10", 4); /* advance_loc1 4; def_cfa_offset 16 */
	entry_end(&eh, f, 0);
	/* the 64-bit entry format, udata8 */
	c = eh_cie(&eh, "zR", DW_EH_PE_udata8, 1, 1);
	f = eh_fde_begin(&eh, c, 1);
	put_int(&eh, 0x1010, 8);
	put_int(&eh, 0x10, 8);
	put_uleb(&eh, 0);
	put(&eh, "\x0c\x06\x10", 3); /* def_cfa rbp 16 */
	entry_end(&eh, f, 1);
	/* uleb128, code alignment 4 */
	c = eh_cie(&eh, "zR", DW_EH_PE_uleb128, 4, 0);
	f = eh_fde_begin(&eh, c, 0);
	put_uleb(&eh, 0x1020);
	put_uleb(&eh, 0x20);
	put_uleb(&eh, 0);
	put(&eh, "\x42\x0e\x20", 3); /* advance_loc 2 (8 bytes); def_cfa_offset 32 */
	entry_end(&eh, f, 0);
	/* pcrel sdata2, and set_loc in the same encoding */
	c = eh_cie(&eh, "zR", DW_EH_PE_pcrel | DW_EH_PE_sdata2, 1, 0);
	f = eh_fde_begin(&eh, c, 0);
	field = EH_ADDR + eh.n;
	put_int(&eh, (uint16_t)(0x1040 - field), 2);
	put_int(&eh, 0x10, 2);
	put_uleb(&eh, 0);
	put_int(&eh, DW_CFA_set_loc, 1);
	field = EH_ADDR + eh.n;
	put_int(&eh, (uint16_t)(0x1048 - field), 2);
	put(&eh, "\x0e\x18", 2); /* def_cfa_offset 24 */
	entry_end(&eh, f, 0);
	/* bad: an augmentation without 'z' we cannot step over */
	c = eh_cie(&eh, "eh", -1, 1, 0);
	f = eh_fde_begin(&eh, c, 0);
	put_int(&eh, 0x1100, 8);
	put_int(&eh, 0x10, 8);
	entry_end(&eh, f, 0);
	/* bad: a CIE pointer to an FDE */
	c = f - 4;
	f = eh_fde_begin(&eh, c, 0);
	put_int(&eh, 0x1200, 8);
	put_int(&eh, 0x10, 8);
	entry_end(&eh, f, 0);
	/* bad: an indirect FDE address */
	c = eh_cie(&eh, "zR", DW_EH_PE_indirect | DW_EH_PE_udata4, 1, 0);
	f = eh_fde_begin(&eh, c, 0);
	put_int(&eh, 0x1300, 4);
	put_int(&eh, 0x10, 4);
	put_uleb(&eh, 0);
	entry_end(&eh, f, 0);
	put_int(&eh, 0, 4); /* terminator */

	img = make_elf(&eh, &dbg, &size);
	CHECK_INT(bt_unwind_table_from_memory(img, size, &t), 0);
	free(img);
	if (t) {
		check_table_shape(t);
		CHECK_INT(t->nr_fdes, 4);
		CHECK_INT(t->nr_bad, 3);
		CHECK_INT(t->sources, BT_UNWIND_SRC_EH_FRAME);
	}
	CHECK(row_at(t, 0xfff) == NULL);
	CHECK_ROW(t, 0x1000, BT_CFA_RSP, 8);
	CHECK_ROW(t, 0x1004, BT_CFA_RSP, 16);
	CHECK_ROW(t, 0x100f, BT_CFA_RSP, 16);
	CHECK_ROW(t, 0x1010, BT_CFA_RBP, 16);
	CHECK_ROW(t, 0x1020, BT_CFA_RSP, 8);
	CHECK_ROW(t, 0x1027, BT_CFA_RSP, 8);
	CHECK_ROW(t, 0x1028, BT_CFA_RSP, 32);
	CHECK_ROW(t, 0x1040, BT_CFA_RSP, 8);
	CHECK_ROW(t, 0x1048, BT_CFA_RSP, 24);
	CHECK(row_at(t, 0x1050) == NULL);
	CHECK(row_at(t, 0x1100) == NULL);
	CHECK(row_at(t, 0x1300) == NULL);
	bt_unwind_table_free(t);
	free(eh.d);
}

/* .debug_frame: a version 4 CIE in 64-bit DWARF, and a version 3 one in 32-bit. */
static void test_handmade_debug_frame(void)
{
	struct buf eh = { 0 }, dbg = { 0 };
	struct bt_unwind_table *t = NULL;
	size_t c, f, size;
	void *img;

	c = dbg.n;
	f = entry_begin(&dbg, 1);
	put_int(&dbg, ~0ull, 8);
	put_int(&dbg, 4, 1);
	put(&dbg, "", 1);
	put_int(&dbg, 8, 1); /* address size */
	put_int(&dbg, 0, 1); /* segment selector size */
	put_uleb(&dbg, 1);
	put_sleb(&dbg, -8);
	put_uleb(&dbg, 16);
	put(&dbg, "\x0c\x07\x08\x90\x01", 5);
	entry_end(&dbg, f, 1);
	f = entry_begin(&dbg, 1);
	put_int(&dbg, c, 8); /* CIE pointer: a section offset */
	put_int(&dbg, 0x3000, 8);
	put_int(&dbg, 0x20, 8);
	put(&dbg, "\x41\x0e\x10\x41\x07\x10", 6); /* +1: rsp+16; +2: rip undefined */
	entry_end(&dbg, f, 1);

	c = dbg.n;
	f = entry_begin(&dbg, 0);
	put_int(&dbg, 0xffffffff, 4);
	put_int(&dbg, 3, 1);
	put(&dbg, "", 1);
	put_uleb(&dbg, 1);
	put_sleb(&dbg, -8);
	put_uleb(&dbg, 16);
	put(&dbg, "\x0c\x07\x08\x90\x01", 5);
	entry_end(&dbg, f, 0);
	f = entry_begin(&dbg, 0);
	put_int(&dbg, c, 4);
	put_int(&dbg, 0x3100, 8);
	put_int(&dbg, 0x10, 8);
	put(&dbg, "\x41\x0c\x06\x10", 4); /* +1: rbp+16 */
	entry_end(&dbg, f, 0);
	/* an FDE of discarded code (address 0) is left out, not an error */
	f = entry_begin(&dbg, 0);
	put_int(&dbg, c, 4);
	put_int(&dbg, 0, 8);
	put_int(&dbg, 0x10, 8);
	entry_end(&dbg, f, 0);

	img = make_elf(&eh, &dbg, &size);
	CHECK_INT(bt_unwind_table_from_memory(img, size, &t), 0);
	free(img);
	if (t) {
		check_table_shape(t);
		CHECK_INT(t->nr_fdes, 2);
		CHECK_INT(t->nr_bad, 0);
		CHECK_INT(t->nr_outside, 1);
		CHECK_INT(t->sources, BT_UNWIND_SRC_DEBUG_FRAME);
	}
	CHECK_ROW(t, 0x3000, BT_CFA_RSP, 8);
	CHECK_ROW(t, 0x3001, BT_CFA_RSP, 16);
	CHECK_ROW(t, 0x3002, BT_CFA_END, 0);
	CHECK_ROW(t, 0x301f, BT_CFA_END, 0);
	CHECK(row_at(t, 0x3020) == NULL);
	CHECK_ROW(t, 0x3100, BT_CFA_RSP, 8);
	CHECK_ROW(t, 0x3101, BT_CFA_RBP, 16);
	CHECK(row_at(t, 0x3110) == NULL);
	CHECK(row_at(t, 0) == NULL);
	bt_unwind_table_free(t);
	free(dbg.d);
}

/*
 * 300 large CIEs and FDEs cycling through them: more CIEs than cache slots, so without a
 * bound every FDE would parse its CIE again. The bound stops that (the FDEs past it are
 * counted bad) instead of going quadratic.
 */
static void test_cie_thrash(void)
{
	struct buf eh = { 0 }, dbg = { 0 };
	struct bt_unwind_table *t = NULL;
	size_t cies[300], f, size, i;
	void *img;

	for (i = 0; i < 300; i++) {
		size_t start = entry_begin(&eh, 0), j;

		cies[i] = start - 4;
		put_int(&eh, 0, 4);
		put_int(&eh, 1, 1);
		put(&eh, "zR", 3);
		put_uleb(&eh, 1);
		put_sleb(&eh, -8);
		put_int(&eh, 16, 1);
		put_uleb(&eh, 1);
		put_int(&eh, DW_EH_PE_udata4, 1);
		put(&eh, "\x0c\x07\x08\x90\x01", 5);
		for (j = 0; j < 4096; j++)
			put_int(&eh, DW_CFA_nop, 1);
		entry_end(&eh, start, 0);
	}
	for (i = 0; i < 6000; i++) {
		f = eh_fde_begin(&eh, cies[i % 300], 0);
		put_int(&eh, 0x10000 + 16 * i, 4);
		put_int(&eh, 16, 4);
		put_uleb(&eh, 0);
		entry_end(&eh, f, 0);
	}
	img = make_elf(&eh, &dbg, &size);
	CHECK_INT(bt_unwind_table_from_memory(img, size, &t), 0);
	free(img);
	CHECK(t && t->nr_fdes >= 300 && t->nr_bad > 0);
	if (t)
		check_table_shape(t);
	bt_unwind_table_free(t);
	free(eh.d);
}

/*
 * The walker's arithmetic in user space, over this process's own stack: from the registers
 * fx_unwind_lib.c records at the bottom of an -O2 -fomit-frame-pointer chain that passes
 * through libc's lfind, through the test binary and libc's start-up to _start. Every return
 * address must be the one glibc's backtrace() (libgcc's unwinder) finds.
 */
struct fx_uw_capture {
	uint64_t ip, sp, bp;
	void *bt[64];
	int nbt;
	int done;
	void (*hook)(struct fx_uw_capture *c);
};

int fx_uw_level1(struct fx_uw_capture *out, int n);

struct uw_map {
	uint64_t start, end, bias;
	struct bt_unwind_table *t;
};

static size_t load_maps(struct uw_map *maps, size_t cap)
{
	char line[1024], path[512], perms[8];
	unsigned long long start, end, off;
	struct bt_elf *elf;
	uint64_t vaddr;
	size_t n = 0;
	FILE *f = fopen("/proc/self/maps", "r");

	while (f && n < cap && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %511s", &start, &end, perms, &off,
			   path) != 5 ||
		    perms[2] != 'x' || path[0] != '/')
			continue;
		maps[n] = (struct uw_map){ .start = start, .end = end };
		if (bt_unwind_table_build(path, &maps[n].t))
			continue;
		elf = NULL;
		if (!bt_elf__open(path, NULL, &elf) && !bt_elf__offset_to_vaddr(elf, off, &vaddr))
			maps[n].bias = start - vaddr;
		bt_elf__close(elf);
		n++;
	}
	if (f)
		fclose(f);
	return n;
}

static int walk_frames;
static enum bt_unwind_walk_end walk_end;
static uint64_t walk_pcs[BT_MAX_STACK_DEPTH];
static struct uw_map walk_maps[128];
static size_t walk_nmaps;
static struct bt_stack_sample walk_sample;

/* The rule at pc from the tables built here, packed as the kernel's lookup packs it. */
static uint64_t table_rule(void *ctx, uint64_t pc)
{
	const struct bt_unwind_row *row;
	size_t i;

	(void)ctx;
	for (i = 0; i < walk_nmaps; i++) {
		if (pc < walk_maps[i].start || pc >= walk_maps[i].end)
			continue;
		row = bt_unwind_table_find(walk_maps[i].t, pc - walk_maps[i].bias);
		if (!row)
			return 0;
		return (uint32_t)row->cfa_offset | (uint64_t)(uint16_t)row->rbp_offset << 32 |
		       (uint64_t)row->cfa_rule << 48 | (uint64_t)row->rbp_rule << 56;
	}
	return 0;
}

/*
 * Runs at the bottom of the chain, while the frames are live above it: copies the registers
 * and the top of the stack as the kernel sends them (struct bt_stack_sample) and walks the
 * copy with the library's walker (lib/stacks/bt_unwind_samples.c), the user-space twin of the BPF one.
 */
static void walk_hook(struct fx_uw_capture *cap)
{
	struct iovec local, remote;
	ssize_t got;

	walk_nmaps = load_maps(walk_maps, 128);
	walk_sample.ip = cap->ip;
	walk_sample.sp = cap->sp;
	walk_sample.bp = cap->bp;
	local = (struct iovec){ walk_sample.stack, sizeof(walk_sample.stack) };
	remote = (struct iovec){ (void *)(uintptr_t)cap->sp, sizeof(walk_sample.stack) };
	/* a read that meets the end of the stack stops there */
	got = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
	walk_sample.len = got > 0 ? (uint32_t)got & ~7U : 0;
	walk_frames =
		bt_unwind_walk_sample(&walk_sample, table_rule, NULL, true, walk_pcs, &walk_end);
}

static void test_walk_self(void)
{
	struct fx_uw_capture cap = { .hook = walk_hook };
	int n, j, k;

	CHECK(fx_uw_level1(&cap, 3) > 0);
	CHECK(cap.done && cap.nbt > 8);
	CHECK(walk_nmaps >= 3);
	/* at _start, by its undefined return address, every frame through a table (no mark) */
	CHECK_INT(walk_end, BT_UNWIND_WALK_DONE);
	n = walk_frames;
	/*
	 * The walk starts inside fx_uw_record, backtrace() at its own call site (and under ASan
	 * in the interceptor above it): line them up on our first return address.
	 */
	for (k = 0; k < cap.nbt && (uint64_t)(uintptr_t)cap.bt[k] != walk_pcs[1]; k++)
		;
	CHECK(k <= 2);
	CHECK_INT(n - 1, cap.nbt - k);
	for (j = 1; j < n && j - 1 + k < cap.nbt; j++)
		if (walk_pcs[j] != (uint64_t)(uintptr_t)cap.bt[j - 1 + k])
			break;
	CHECK_INT(j, n);
	if (verbose || j != n || n - 1 != cap.nbt - k) {
		fprintf(stderr, "# walk: %d frames, backtrace: %d\n", n, cap.nbt);
		for (j = 0; j < n || j < cap.nbt; j++) {
			Dl_info a = { 0 }, b = { 0 };

			if (j < n)
				dladdr((void *)(uintptr_t)walk_pcs[j], &a);
			if (j < cap.nbt)
				dladdr(cap.bt[j], &b);
			fprintf(stderr, "#  %2d %s+%#lx  %s+%#lx\n", j,
				a.dli_fname ? a.dli_fname : "-",
				j < n ? (unsigned long)(walk_pcs[j] - (uintptr_t)a.dli_fbase) : 0,
				b.dli_fname ? b.dli_fname : "-",
				j < cap.nbt ? (unsigned long)((uintptr_t)cap.bt[j] -
							      (uintptr_t)b.dli_fbase)
					    : 0);
		}
	}
	/* the same copy cut short: the walk says where the copy ended, not that it is whole */
	walk_sample.len = 64;
	n = bt_unwind_walk_sample(&walk_sample, table_rule, NULL, false, walk_pcs, &walk_end);
	CHECK(n >= 1 && n < walk_frames);
	CHECK_INT(walk_end, BT_UNWIND_WALK_COPY_END);
	for (j = 0; j < (int)walk_nmaps; j++)
		bt_unwind_table_free(walk_maps[j].t);
}

static uint64_t no_rule(void *ctx, uint64_t pc)
{
	(void)ctx;
	(void)pc;
	return 0;
}

/*
 * Where there is no rule the walker steps by frame pointers, marks those frames with -v, and
 * puts back the return address a uretprobe's trampoline took: a made-up stack of three frames
 * chained by rbp.
 */
static void test_walk_fp(void)
{
	static struct bt_stack_sample s;
	const uint64_t base = 0x7ffd00000000ULL, tramp = 0x7fff0000f000ULL;
	uint64_t ips[BT_MAX_STACK_DEPTH], *w = (uint64_t *)s.stack;
	enum bt_unwind_walk_end end;
	int n;

	memset(&s, 0, sizeof(s));
	s.ip = 0x401000;
	s.sp = base;
	s.bp = base + 32;
	s.len = 128;
	w[4] = base + 64; /* frame 1: saved rbp, return address */
	w[5] = 0x402000;
	w[8] = 0;     /* frame 2: the chain's end */
	w[9] = tramp; /* replaced by a uretprobe */
	s.tramp = tramp;
	s.ret_slot[1] = base + 72;
	s.ret_addr[1] = 0x403000;
	n = bt_unwind_walk_sample(&s, no_rule, NULL, true, ips, &end);
	CHECK_INT(n, 3);
	CHECK_INT(end, BT_UNWIND_WALK_DONE);
	CHECK(ips[0] == 0x401000);
	CHECK(ips[1] == (0x402000 | BT_UNWIND_MARK_FP));
	CHECK(ips[2] == (0x403000 | BT_UNWIND_MARK_FP));
	/* without marks, the same frames bare; the chain cut by the copy's end says so */
	s.len = 48;
	n = bt_unwind_walk_sample(&s, no_rule, NULL, false, ips, &end);
	CHECK_INT(n, 2);
	CHECK_INT(end, BT_UNWIND_WALK_COPY_END);
	CHECK(ips[1] == 0x402000);
	/* a frame pointer below sp is no frame: the walk ends as the kernel's does */
	s.len = 128;
	s.bp = base - 16;
	n = bt_unwind_walk_sample(&s, no_rule, NULL, false, ips, &end);
	CHECK_INT(n, 1);
	CHECK_INT(end, BT_UNWIND_WALK_DONE);
}

/* An aarch64 rule packed as the walker's lookup returns it (probes/bt_unwind.h), offsets in bytes */
static uint64_t a64_rule(unsigned int cfa_rule, int ra_saved, int cfa, int ra, unsigned int fp_rule,
			 int fp)
{
	return (uint64_t)(uint16_t)(cfa / 8) | (uint64_t)(uint16_t)(ra / 8) << 16 |
	       (uint64_t)(uint16_t)(fp / 8) << 32 |
	       (uint64_t)(cfa_rule | (ra_saved ? BT_RA_SAVED : 0)) << 48 | (uint64_t)fp_rule << 56;
}

/* The rows of a made-up aarch64 program: by the pc looked up (a return address - 1) */
static uint64_t a64_rules(void *ctx, uint64_t pc)
{
	(void)ctx;
	switch (pc) {
	case 0x401000: /* the leaf, at its entry: return address in x30 */
		return a64_rule(BT_CFA_RSP, 0, 0, 0, BT_RBP_SAME, 0);
	case 0x402003: /* sub sp, 32; stp x29, x30, [sp, 8] */
		return a64_rule(BT_CFA_RSP, 1, 32, -24, BT_RBP_CFA, -32);
	case 0x403007: /* a frame pointer: CFA = x29 + 16 */
		return a64_rule(BT_CFA_RBP, 1, 16, -8, BT_RBP_CFA, -16);
	case 0x404003: /* no table here: a frame record at x29 */
		return 0;
	case 0x405003: /* after a frame-pointer step sp is not known: an sp rule is not followed */
		return a64_rule(BT_CFA_RSP, 1, 16, -8, BT_RBP_SAME, 0);
	case 0x406003: /* x30 in itself is the interrupted frame's only: frame pointers */
		return a64_rule(BT_CFA_RBP, 0, 16, 0, BT_RBP_SAME, 0);
	case 0x407003: /* _start */
		return a64_rule(BT_CFA_END, 0, 0, 0, 0, 0);
	}
	return 0;
}

/*
 * The aarch64 walk of a copied stack (bt_unwind_walk_sample_a64, the walker's arithmetic): x30
 * for the first frame, return addresses saved at CFA - 24 and - 8 with pointer authentication
 * codes stripped, x29 restored and then followed, a uretprobe's return put back by the CFA,
 * frame records where there is no rule, and the two rules not followed.
 */
static void test_walk_a64(void)
{
	static struct bt_stack_sample s;
	const uint64_t base = 0xfffff0000000ULL, tramp = 0xffff0000f000ULL,
		       pac = 0x7f2a000000000000ULL;
	uint64_t ips[BT_MAX_STACK_DEPTH], *w = (uint64_t *)s.stack;
	enum bt_unwind_walk_end end;
	int n;

	memset(&s, 0, sizeof(s));
	s.ip = 0x401000;
	s.sp = base;
	s.bp = 0x1234; /* not a frame pointer: the leaf's caller saved x29 */
	s.lr = 0x402004 | pac;
	s.len = 256;
	/* frame 1, sp = base: CFA base + 32, x29 at base, x30 at base + 8 (signed) */
	w[0] = base + 64;
	w[1] = 0x403008 | pac;
	/* frame 2, sp = base + 32, x29 = base + 64: CFA base + 80, x29 and x30 at base + 64 */
	w[8] = base + 96;
	w[9] = tramp; /* a uretprobe's, whose entry's sp was the CFA */
	s.tramp = tramp;
	s.ret_slot[0] = base + 80;
	s.ret_addr[0] = 0x404004;
	/* frame 3: the frame record at x29 = base + 96 */
	w[12] = base + 128;
	w[13] = 0x405004 | pac;
	/* frame 4: an sp rule after a frame-pointer step: the record at base + 128 */
	w[16] = base + 160;
	w[17] = 0x406004;
	/* frame 5: x30's rule past the first frame: the record at base + 160 */
	w[20] = 0;
	w[21] = 0x407004;
	n = bt_unwind_walk_sample_a64(&s, a64_rules, NULL, true, ips, &end);
	CHECK_INT(n, 7);
	CHECK_INT(end, BT_UNWIND_WALK_DONE);
	CHECK(ips[0] == 0x401000);
	CHECK(ips[1] == 0x402004);
	CHECK(ips[2] == 0x403008);
	CHECK(ips[3] == 0x404004);
	CHECK(ips[4] == (0x405004 | BT_UNWIND_MARK_FP));
	CHECK(ips[5] == (0x406004 | BT_UNWIND_MARK_FP));
	CHECK(ips[6] == (0x407004 | BT_UNWIND_MARK_FP));
	/* the copy ends under frame 2's return address: said so */
	s.len = 64;
	n = bt_unwind_walk_sample_a64(&s, a64_rules, NULL, false, ips, &end);
	CHECK_INT(n, 3);
	CHECK_INT(end, BT_UNWIND_WALK_COPY_END);
}

#ifdef FX_A64
/* The C library of Debian's aarch64 cross toolchain (libc6-arm64-cross, scripts/deps --arm64) */
#define LIBC_A64 "/usr/aarch64-linux-gnu/lib/libc.so.6"

/* The offset of sym's first bl (a call) in an aarch64 image, or -1. */
static long a64_first_bl(const unsigned char *img, size_t size, const struct bt_elf_sym *sym)
{
	const Elf64_Ehdr *eh = (const void *)img;
	const Elf64_Phdr *ph;
	uint64_t off, i;
	uint32_t insn;
	int k;

	if (size < sizeof(*eh) || eh->e_phoff + eh->e_phnum * sizeof(*ph) > size)
		return -1;
	for (k = 0; k < eh->e_phnum; k++) {
		ph = (const void *)(img + eh->e_phoff + k * sizeof(*ph));
		if (ph->p_type != PT_LOAD || sym->vaddr < ph->p_vaddr ||
		    sym->vaddr + sym->size > ph->p_vaddr + ph->p_filesz)
			continue;
		off = ph->p_offset + sym->vaddr - ph->p_vaddr;
		for (i = 0; i + 4 <= sym->size && off + i + 4 <= size; i += 4) {
			memcpy(&insn, img + off + i, 4);
			if ((insn >> 26) == 0x25) /* BL imm26 */
				return (long)i;
		}
	}
	return -1;
}

/* The section called name of an ELF image: its address and size; 0 when found. */
static int img_section(const unsigned char *img, size_t size, const char *name, uint64_t *addr,
		       uint64_t *len)
{
	const Elf64_Ehdr *eh = (const void *)img;
	const Elf64_Shdr *sh, *str;
	int k;

	if (size < sizeof(*eh) || eh->e_shoff + eh->e_shnum * sizeof(*sh) > size ||
	    eh->e_shstrndx >= eh->e_shnum)
		return -1;
	sh = (const void *)(img + eh->e_shoff);
	str = &sh[eh->e_shstrndx];
	for (k = 0; k < eh->e_shnum; k++) {
		if (str->sh_offset + sh[k].sh_name + strlen(name) + 1 > size ||
		    strcmp((const char *)img + str->sh_offset + sh[k].sh_name, name))
			continue;
		*addr = sh[k].sh_addr;
		*len = sh[k].sh_size;
		return 0;
	}
	return -1;
}

/*
 * fixtures/fx_unwind_a64.c, cross-built -O2 -fomit-frame-pointer: the rows at each function's
 * entry and at its first call, as the walker reads them (BT_A64_*), with the offsets in bytes;
 * then the whole file and the aarch64 C library against libdw.
 */
static void test_a64(void)
{
	static const struct {
		const char *func;
		int at_call; /* 0: the entry; 1: the first bl */
		unsigned int cfa_rule, ra_saved;
		int64_t cfa, ra;
		unsigned int fp_rule;
		int64_t fp;
	} w[] = {
		/* the entry of any function: CFA = sp, return address in x30 */
		{ "a64_leaf", 0, BT_CFA_RSP, 0, 0, 0, BT_RBP_SAME, 0 },
		{ "a64_mid", 0, BT_CFA_RSP, 0, 0, 0, BT_RBP_SAME, 0 },
		/* str x30, [sp, #-16]! */
		{ "a64_mid", 1, BT_CFA_RSP, 1, 16, -16, BT_RBP_SAME, 0 },
		/* sub sp twice, stp x19, x30, [sp]: offsets beyond 16 bits of bytes */
		{ "a64_big", 1, BT_CFA_RSP, 1, 70016, -70008, BT_RBP_SAME, 0 },
		/* x30 after four other registers */
		{ "a64_saves", 1, BT_CFA_RSP, 1, 48, -16, BT_RBP_SAME, 0 },
		/* stp x29, x30, [sp, #-32]!; mov x29, sp: CFA = x29 + 32 */
		{ "a64_vla", 1, BT_CFA_RBP, 1, 32, -24, BT_RBP_CFA, -32 },
		/* paciasp (DW_CFA_AARCH64_negate_ra_state) before str x30 */
		{ "a64_pac", 0, BT_CFA_RSP, 0, 0, 0, BT_RBP_SAME, 0 },
		{ "a64_pac", 1, BT_CFA_RSP, 1, 16, -16, BT_RBP_SAME, 0 },
	};
	const char *path = FX_DIR "/fx_unwind_a64.so";
	struct bt_unwind_table *t = NULL;
	const struct bt_unwind_row *r;
	const struct bt_elf_sym *sym;
	struct bt_elf *elf = NULL;
	unsigned char *img = NULL;
	size_t i, size = 0;
	uint64_t rule, plt = 0, plt_size = 0;
	long at;

	CHECK_INT(bt_unwind_table_build(path, &t), 0);
	CHECK_INT(bt_elf__open(path, NULL, &elf), 0);
	img = read_all(path, &size);
	CHECK(img != NULL);
	if (!t || !elf || !img)
		goto out;
	check_table_shape(t);
	CHECK_INT(t->nr_bad, 0);
	CHECK_INT(t->nr_unsupported, 0);
	for (i = 0; i < sizeof(w) / sizeof(w[0]); i++) {
		sym = bt_elf__find_func(elf, w[i].func);
		CHECK(sym != NULL);
		if (!sym)
			continue;
		at = w[i].at_call ? a64_first_bl(img, size, sym) : 0;
		CHECK(at >= 0);
		r = bt_unwind_table_find(t, sym->vaddr + at);
		CHECK(r != NULL);
		if (!r || at < 0)
			continue;
		rule = (__u32)r->cfa_offset | (uint64_t)(__u16)r->rbp_offset << 32 |
		       (uint64_t)r->cfa_rule << 48 | (uint64_t)r->rbp_rule << 56;
		if (BT_A64_CFA_RULE(rule) != w[i].cfa_rule ||
		    !BT_A64_RA_IS_SAVED(rule) != !w[i].ra_saved ||
		    BT_A64_CFA_OFF(rule) != w[i].cfa || BT_A64_RA_OFF(rule) != w[i].ra ||
		    BT_A64_FP_RULE(rule) != w[i].fp_rule || BT_A64_FP_OFF(rule) != w[i].fp) {
			fprintf(stderr,
				"  %s+%ld: cfa %u%+lld ra %s%+lld x29 %u%+lld, expected cfa "
				"%u%+lld "
				"ra %s%+lld x29 %u%+lld\n",
				w[i].func, at, BT_A64_CFA_RULE(rule),
				(long long)BT_A64_CFA_OFF(rule),
				BT_A64_RA_IS_SAVED(rule) ? "cfa" : "x30",
				(long long)BT_A64_RA_OFF(rule), BT_A64_FP_RULE(rule),
				(long long)BT_A64_FP_OFF(rule), w[i].cfa_rule, (long long)w[i].cfa,
				w[i].ra_saved ? "cfa" : "x30", (long long)w[i].ra, w[i].fp_rule,
				(long long)w[i].fp);
			CHECK(0);
		}
	}
	/* binutils writes no FDE for aarch64's PLT: the default row covers it */
	CHECK_INT(img_section(img, size, ".plt", &plt, &plt_size), 0);
	CHECK(plt_size >= 32);
	r = bt_unwind_table_find(t, plt + plt_size - 4);
	CHECK(r != NULL);
	if (r) {
		CHECK_INT(r->cfa_rule, BT_CFA_RSP);
		CHECK_INT(r->cfa_offset, 0);
		CHECK_INT(r->rbp_rule, BT_RBP_SAME);
	}
	CHECK_INT(t->plt_without_fde, 0);
out:
	free(img);
	bt_elf__close(elf);
	bt_unwind_table_free(t);
	a64 = 1;
	compare_file(path, 0, NULL);
	if (!access(LIBC_A64, R_OK))
		compare_file(LIBC_A64, 0, NULL);
	else
		fprintf(stderr, "# %s: not installed, not compared\n", LIBC_A64);
	a64 = 0;
}
#else
static void test_a64(void)
{
	fprintf(stderr, "# aarch64 tables not tested: no aarch64-linux-gnu-gcc at configure time "
			"(scripts/deps --arm64)\n");
}
#endif

int main(void)
{
	verbose = !!getenv("BT_TEST_VERBOSE");
	BT_RUN(test_errors);
	BT_RUN(test_libc);
	BT_RUN(test_workloads);
	BT_RUN(test_libstdcxx);
	BT_RUN(test_more_files);
	BT_RUN(test_plt);
	BT_RUN(test_cfi_rules);
	BT_RUN(test_a64);
	BT_RUN(test_walk_self);
	BT_RUN(test_walk_fp);
	BT_RUN(test_walk_a64);
	BT_RUN(test_high);
	BT_RUN(test_no_section_headers);
	BT_RUN(test_corrupt);
	BT_RUN(test_handmade_eh);
	BT_RUN(test_handmade_debug_frame);
	BT_RUN(test_cie_thrash);
	BT_RUN(test_debug_frame);
	return bt_test_done();
}
