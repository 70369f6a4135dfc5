// SPDX-License-Identifier: GPL-2.0
/*
 * Compiles call frame information into struct bt_unwind_row tables (bt_unwind_table.h).
 *
 * Our own parser over libelf section data rather than libdw's CFI API: libdw answers one
 * address at a time (dwarf_cfi_addrframe re-runs the FDE's program per query), and a table
 * needs every rule change of every FDE, which one linear pass over the section gives.
 * libdw stays the reference the unit test compares against.
 *
 * Every read is checked against the end of its entry; the remember_state stack is bounded and
 * each instruction consumes at least one byte, so any input ends in a table or an error.
 */
#include <dwarf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bt_unwind_table.h"
#include "elf_internal.h"

#define REG_RBP 6
#define REG_RSP 7
#define REG_RIP 16 /* the x86-64 psABI's return address column */
#define REG_X29 29 /* aarch64's frame pointer */
#define REG_X30 30 /* aarch64's link register, its return address column */
#define REG_SP 31

/*
 * What the two architectures' call frame information differs in: the DWARF numbers of the
 * stack pointer, the frame pointer and the return address, and the rules before any CIE says
 * otherwise (state_abi_default). Rows are made by state_row() for x86-64 and state_row_a64()
 * for aarch64 (probes/bt_unwind.h).
 */
struct uw_arch {
	uint64_t sp, fp, ra;
	int a64;
};

static const struct uw_arch arch_x86_64 = { REG_RSP, REG_RBP, REG_RIP, 0 };
static const struct uw_arch arch_aarch64 = { REG_SP, REG_X29, REG_X30, 1 };

#define BT_UW_STACK 16			   /* remember_state depth; compilers use one or two */
#define BT_UW_MAX_ROWS (16u << 20)	   /* 192 MiB of rows: far beyond any real file */
#define BT_UW_CIE_CACHE 256		   /* direct-mapped; real files have a handful of CIEs */
#define BT_UW_MAX_DEBUG_FRAME (256u << 20) /* decompressed size we accept */
#define BT_UW_MAX_SEGS 64

/*
 * The PLT's CFA expression as binutils writes it for lazy 16-byte PLT entries:
 * rsp + 8 + ((rip & 15) >= 11) * 8, i.e. 8 more once the entry's push has run.
 */
static const unsigned char plt_expr[] = {
	DW_OP_breg7, 8,	       DW_OP_breg16, 0,		DW_OP_lit15, DW_OP_and,
	DW_OP_lit11, DW_OP_ge, DW_OP_lit3,   DW_OP_shl, DW_OP_plus,
};

enum rule_kind {
	R_UNSET = 0,
	R_UNDEF,
	R_SAME,
	R_OFFSET,
	R_VAL_OFFSET,
	R_REG,
	R_EXPR,
	R_VAL_EXPR,
};

enum cfa_kind {
	CFA_REG = 0,
	CFA_PLT,
	CFA_EXPR,
};

struct reg_rule {
	unsigned char kind;
	int64_t off;
};

struct cfa_state {
	unsigned char cfa_kind;
	uint64_t cfa_reg;
	int64_t cfa_off;
	struct reg_rule rbp, ra;
};

struct cie {
	const struct uw_arch *arch;
	size_t off; /* section offset: the cache key */
	int state;  /* 0 empty slot, 1 parsed, -1 unusable */
	uint64_t caf;
	int64_t daf;
	uint64_t ra_reg;
	unsigned char fde_enc, has_z, signal, addr_size;
	struct cfa_state init; /* after the initial instructions */
};

struct cursor {
	const unsigned char *p, *end;
};

/* One FDE's rows within the scratch array; sorted and stitched together at the end. */
struct fde_ent {
	uint64_t start, end;
	size_t first;
	uint32_t n;
	uint32_t seq;
	unsigned char prio;
};

struct seg {
	uint64_t start, end;
};

struct builder {
	const struct uw_arch *arch;   /* the file's (read_layout) */
	const struct bt_elf_lim *lim; /* what the file being read can back (elf_internal.h) */
	/* the section being parsed */
	const unsigned char *buf;
	size_t size;
	uint64_t sec_addr;
	int eh;
	unsigned char prio;
	unsigned char addr_size;
	uint64_t text_base, data_base;

	struct seg segs[BT_UW_MAX_SEGS];
	size_t nsegs;
	struct cie cies[BT_UW_CIE_CACHE];

	struct bt_unwind_row *rows;
	size_t nrows, rows_cap;
	struct fde_ent *fdes;
	size_t nfdes, fdes_cap;
	uint64_t covered;
	size_t cie_work; /* bytes of CIEs parsed in this section, re-parses included */
	struct bt_unwind_table *t;
};

/* Per-FDE interpreter context. */
struct run {
	const struct cie *cie;
	uint64_t loc, end;
	struct bt_unwind_row last;
	int have_last;
	size_t first; /* this FDE's first scratch row */
};

static int rd_u8(struct cursor *c, uint64_t *v)
{
	if (c->end - c->p < 1)
		return -1;
	*v = *c->p++;
	return 0;
}

static int rd_fixed(struct cursor *c, size_t n, uint64_t *v)
{
	uint64_t x = 0;
	size_t i;

	if ((size_t)(c->end - c->p) < n)
		return -1;
	for (i = 0; i < n; i++) /* little-endian: x86-64 only */
		x |= (uint64_t)c->p[i] << (8 * i);
	c->p += n;
	*v = x;
	return 0;
}

/* LEB128's bits into *v; *shift and *last say where it ended, for the sign */
static int rd_leb(struct cursor *c, uint64_t *v, unsigned int *shift, unsigned char *last)
{
	uint64_t x = 0;
	unsigned int n = 0;
	unsigned char b;

	do {
		if (c->p >= c->end)
			return -1;
		b = *c->p++;
		if (n < 64)
			x |= (uint64_t)(b & 0x7f) << n;
		n += 7;
	} while (b & 0x80);
	*v = x;
	*shift = n;
	*last = b;
	return 0;
}

static int rd_uleb(struct cursor *c, uint64_t *v)
{
	unsigned int shift;
	unsigned char last;

	return rd_leb(c, v, &shift, &last);
}

static int rd_sleb(struct cursor *c, int64_t *v)
{
	uint64_t x;
	unsigned int shift;
	unsigned char last;

	if (rd_leb(c, &x, &shift, &last))
		return -1;
	if (shift < 64 && (last & 0x40))
		x |= ~0ull << shift;
	*v = (int64_t)x;
	return 0;
}

static int64_t sext(uint64_t v, unsigned int bytes)
{
	unsigned int bits = 8 * bytes;

	if (bits >= 64)
		return (int64_t)v;
	return (int64_t)(v << (64 - bits)) >> (64 - bits);
}

/*
 * A DW_EH_PE_* encoded pointer. pcrel is relative to the field's own link-time address;
 * indirect is reported through *indirect (its value is an address of the pointer, which only
 * the running process can read).
 */
static int rd_encoded(const struct builder *b, struct cursor *c, unsigned char enc, uint64_t *v,
		      int *indirect)
{
	uint64_t field = b->sec_addr + (uint64_t)(c->p - b->buf), x, base = 0;
	int64_t s;

	if (enc == DW_EH_PE_omit)
		return -1;
	if ((enc & 0x70) == DW_EH_PE_aligned) {
		size_t pos = c->p - b->buf,
		       pad = (b->addr_size - pos % b->addr_size) % b->addr_size;

		if ((size_t)(c->end - c->p) < pad)
			return -1;
		c->p += pad;
		field += pad;
	}
	switch (enc & 0x0f) {
	case DW_EH_PE_absptr:
	case DW_EH_PE_signed:
		if (rd_fixed(c, b->addr_size, &x))
			return -1;
		break;
	case DW_EH_PE_uleb128:
		if (rd_uleb(c, &x))
			return -1;
		break;
	case DW_EH_PE_udata2:
		if (rd_fixed(c, 2, &x))
			return -1;
		break;
	case DW_EH_PE_udata4:
		if (rd_fixed(c, 4, &x))
			return -1;
		break;
	case DW_EH_PE_udata8:
		if (rd_fixed(c, 8, &x))
			return -1;
		break;
	case DW_EH_PE_sleb128:
		if (rd_sleb(c, &s))
			return -1;
		x = (uint64_t)s;
		break;
	case DW_EH_PE_sdata2:
		if (rd_fixed(c, 2, &x))
			return -1;
		x = (uint64_t)sext(x, 2);
		break;
	case DW_EH_PE_sdata4:
		if (rd_fixed(c, 4, &x))
			return -1;
		x = (uint64_t)sext(x, 4);
		break;
	case DW_EH_PE_sdata8:
		if (rd_fixed(c, 8, &x))
			return -1;
		break;
	default:
		return -1;
	}
	switch (enc & 0x70) {
	case DW_EH_PE_absptr:
	case DW_EH_PE_aligned:
		break;
	case DW_EH_PE_pcrel:
		base = field;
		break;
	case DW_EH_PE_textrel:
		base = b->text_base;
		break;
	case DW_EH_PE_datarel:
		base = b->data_base;
		break;
	default: /* funcrel means nothing for the pointers we read */
		return -1;
	}
	*v = x + base;
	if (indirect)
		*indirect = !!(enc & DW_EH_PE_indirect);
	return 0;
}

static void state_abi_default(const struct uw_arch *arch, struct cfa_state *st)
{
	/* the psABI's rules before any CIE says otherwise (libdw starts from the same) */
	memset(st, 0, sizeof(*st));
	st->cfa_kind = CFA_REG;
	st->cfa_reg = arch->sp;
	st->rbp.kind = R_SAME;
	if (arch->a64) {
		/* a bl leaves sp where it was and the return address in x30 */
		st->ra.kind = R_SAME;
		return;
	}
	st->cfa_off = 8;
	st->ra.kind = R_OFFSET;
	st->ra.off = -8;
}

static struct bt_unwind_row state_row(const struct cfa_state *st, int signal)
{
	struct bt_unwind_row r = { 0 };

	if (signal) {
		r.cfa_rule = BT_CFA_SIGNAL;
		return r;
	}
	if (st->ra.kind == R_UNDEF) {
		r.cfa_rule = BT_CFA_END;
		return r;
	}
	if (st->ra.kind != R_OFFSET || st->ra.off != -8) {
		r.cfa_rule = BT_CFA_UNSUPPORTED;
		return r;
	}
	if (st->cfa_kind == CFA_PLT) {
		r.cfa_rule = BT_CFA_PLT;
		r.cfa_offset = 8;
	} else if (st->cfa_kind != CFA_REG || (st->cfa_reg != REG_RSP && st->cfa_reg != REG_RBP) ||
		   st->cfa_off < INT32_MIN || st->cfa_off > INT32_MAX) {
		r.cfa_rule = BT_CFA_UNSUPPORTED;
		return r;
	} else {
		r.cfa_rule = st->cfa_reg == REG_RSP ? BT_CFA_RSP : BT_CFA_RBP;
		r.cfa_offset = (__s32)st->cfa_off;
	}
	switch (st->rbp.kind) {
	case R_UNSET:
	case R_SAME:
		r.rbp_rule = BT_RBP_SAME;
		break;
	case R_OFFSET:
		if (st->rbp.off >= INT16_MIN && st->rbp.off <= INT16_MAX) {
			r.rbp_rule = BT_RBP_CFA;
			r.rbp_offset = (__s16)st->rbp.off;
			break;
		}
		/* fall through */
	default:
		r.rbp_rule = BT_RBP_UNDEFINED;
	}
	return r;
}

/* off in whole 8-byte slots that fit 16 bits (probes/bt_unwind.h), into *slots */
static int a64_slots(int64_t off, __s16 *slots)
{
	if (off % BT_A64_SLOT || off / BT_A64_SLOT < INT16_MIN || off / BT_A64_SLOT > INT16_MAX)
		return 0;
	*slots = (__s16)(off / BT_A64_SLOT);
	return 1;
}

/* The aarch64 row of st (probes/bt_unwind.h): sp or x29 + offset, x30's rule, x29's. */
static struct bt_unwind_row state_row_a64(const struct cfa_state *st, int signal)
{
	struct bt_unwind_row r = { 0 };
	__s16 cfa = 0, ra = 0, fp;

	if (signal) {
		r.cfa_rule = BT_CFA_SIGNAL;
		return r;
	}
	switch (st->ra.kind) {
	case R_UNDEF:
		r.cfa_rule = BT_CFA_END;
		return r;
	case R_UNSET:
	case R_SAME:
		break; /* still in x30 */
	case R_OFFSET:
		if (a64_slots(st->ra.off, &ra)) {
			r.cfa_rule = BT_RA_SAVED;
			break;
		}
		/* fall through */
	default:
		r.cfa_rule = BT_CFA_UNSUPPORTED;
		return r;
	}
	if (st->cfa_kind != CFA_REG || (st->cfa_reg != REG_SP && st->cfa_reg != REG_X29) ||
	    !a64_slots(st->cfa_off, &cfa)) {
		r.cfa_rule = BT_CFA_UNSUPPORTED;
		return r;
	}
	r.cfa_rule |= st->cfa_reg == REG_SP ? BT_CFA_RSP : BT_CFA_RBP;
	r.cfa_offset = (__s32)((__u32)(__u16)cfa | (__u32)(__u16)ra << 16);
	switch (st->rbp.kind) {
	case R_UNSET:
	case R_SAME:
		r.rbp_rule = BT_RBP_SAME;
		break;
	case R_OFFSET:
		if (a64_slots(st->rbp.off, &fp)) {
			r.rbp_rule = BT_RBP_CFA;
			r.rbp_offset = fp;
			break;
		}
		/* fall through */
	default:
		r.rbp_rule = BT_RBP_UNDEFINED;
	}
	return r;
}

static int same_rule(const struct bt_unwind_row *a, const struct bt_unwind_row *b)
{
	return a->cfa_rule == b->cfa_rule && a->cfa_offset == b->cfa_offset &&
	       a->rbp_rule == b->rbp_rule && a->rbp_offset == b->rbp_offset;
}

static int push_row(struct builder *b, struct run *r, uint64_t pc, const struct cfa_state *st)
{
	struct bt_unwind_row row = r->cie->arch->a64 ? state_row_a64(st, r->cie->signal)
						     : state_row(st, r->cie->signal);

	if (r->have_last && same_rule(&row, &r->last))
		return 0;
	if (b->nrows == b->rows_cap) {
		size_t cap = b->rows_cap ? b->rows_cap * 2 : 4096;
		struct bt_unwind_row *n;

		if (cap > BT_UW_MAX_ROWS)
			return -E2BIG;
		n = realloc(b->rows, cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		b->rows = n;
		b->rows_cap = cap;
	}
	row.pc = (__u32)pc; /* the FDE was checked to lie below 4 GiB */
	b->rows[b->nrows++] = row;
	r->last = row;
	r->have_last = 1;
	return 0;
}

static void set_reg(const struct cie *cie, struct cfa_state *st, uint64_t reg, unsigned char kind,
		    int64_t off)
{
	struct reg_rule *rr = NULL;

	if (reg == cie->arch->fp)
		rr = &st->rbp;
	else if (reg == cie->ra_reg)
		rr = &st->ra;
	if (rr) {
		rr->kind = kind;
		rr->off = off;
	}
}

/* In an FDE's program to the CIE's rule, in a CIE's (fde 0) to the psABI's. */
static void restore_reg(const struct cie *cie, int fde, struct cfa_state *st, uint64_t reg)
{
	struct cfa_state def;
	const struct cfa_state *from = fde && cie->state > 0 ? &cie->init : &def;

	state_abi_default(cie->arch, &def);
	if (reg == cie->arch->fp)
		st->rbp = from->rbp;
	else if (reg == (fde ? cie->ra_reg : cie->arch->ra))
		st->ra = from->ra;
}

static int rd_block(struct cursor *c, const unsigned char **blk, uint64_t *len)
{
	if (rd_uleb(c, len) || *len > (uint64_t)(c->end - c->p))
		return -1;
	*blk = c->p;
	c->p += *len;
	return 0;
}

/*
 * A CFA expression: the PLT's, or a lone DW_OP_bregN (a register plus an offset written as an
 * expression, which is the plain rule), or one we do not evaluate.
 */
static void cfa_expression(const struct uw_arch *arch, struct cfa_state *st,
			   const unsigned char *blk, uint64_t len)
{
	struct cursor c = { blk + 1, blk + len };
	int64_t off;

	st->cfa_kind = CFA_EXPR;
	if (!arch->a64 && len == sizeof(plt_expr) && !memcmp(blk, plt_expr, len)) {
		st->cfa_kind = CFA_PLT;
	} else if (len >= 2 && blk[0] >= DW_OP_breg0 && blk[0] <= DW_OP_breg31 &&
		   !rd_sleb(&c, &off) && c.p == c.end) {
		st->cfa_kind = CFA_REG;
		st->cfa_reg = blk[0] - DW_OP_breg0;
		st->cfa_off = off;
	}
}

/*
 * Run a CFA program. For a CIE (r == NULL) only state changes; for an FDE, each advance
 * past the current location first emits the row in force there. Returns 0, 1 when the
 * program stopped at or beyond the FDE's end, -EINVAL on a malformed or unknown
 * instruction, or a push_row error.
 */
static int run_program(struct builder *b, const struct cie *cie, struct cfa_state *st,
		       struct cursor *c, struct run *r)
{
	struct cfa_state stack[BT_UW_STACK];
	unsigned int depth = 0;
	uint64_t reg, u, delta, loc;
	const unsigned char *blk;
	int64_t s;
	int err;

	while (c->p < c->end) {
		unsigned char op = *c->p++;

		delta = 0;
		switch (op & 0xc0) {
		case DW_CFA_advance_loc:
			delta = op & 0x3f;
			goto advance;
		case DW_CFA_offset:
			if (rd_uleb(c, &u))
				return -EINVAL;
			set_reg(cie, st, op & 0x3f, R_OFFSET, (int64_t)(u * (uint64_t)cie->daf));
			continue;
		case DW_CFA_restore:
			restore_reg(cie, r != NULL, st, op & 0x3f);
			continue;
		}
		switch (op) {
		case DW_CFA_nop:
			continue;
		case DW_CFA_set_loc:
			if (!r)
				return -EINVAL;
			if (b->eh) {
				int ind = 0;

				if (rd_encoded(b, c, cie->fde_enc, &loc, &ind) || ind)
					return -EINVAL;
			} else if (rd_fixed(c, cie->addr_size, &loc)) {
				return -EINVAL;
			}
			if (loc < r->loc)
				return -EINVAL;
			goto move;
		case DW_CFA_advance_loc1:
			if (rd_fixed(c, 1, &delta))
				return -EINVAL;
			goto advance;
		case DW_CFA_advance_loc2:
			if (rd_fixed(c, 2, &delta))
				return -EINVAL;
			goto advance;
		case DW_CFA_advance_loc4:
			if (rd_fixed(c, 4, &delta))
				return -EINVAL;
			goto advance;
		case DW_CFA_offset_extended:
			if (rd_uleb(c, &reg) || rd_uleb(c, &u))
				return -EINVAL;
			set_reg(cie, st, reg, R_OFFSET, (int64_t)(u * (uint64_t)cie->daf));
			continue;
		case DW_CFA_restore_extended:
			if (rd_uleb(c, &reg))
				return -EINVAL;
			restore_reg(cie, r != NULL, st, reg);
			continue;
		case DW_CFA_undefined:
			if (rd_uleb(c, &reg))
				return -EINVAL;
			set_reg(cie, st, reg, R_UNDEF, 0);
			continue;
		case DW_CFA_same_value:
			if (rd_uleb(c, &reg))
				return -EINVAL;
			set_reg(cie, st, reg, R_SAME, 0);
			continue;
		case DW_CFA_register:
			if (rd_uleb(c, &reg) || rd_uleb(c, &u))
				return -EINVAL;
			set_reg(cie, st, reg, R_REG, (int64_t)u);
			continue;
		case DW_CFA_remember_state:
			if (depth == BT_UW_STACK)
				return -EINVAL;
			stack[depth++] = *st;
			continue;
		case DW_CFA_restore_state:
			if (!depth)
				return -EINVAL;
			*st = stack[--depth];
			continue;
		case DW_CFA_def_cfa:
			if (rd_uleb(c, &reg) || rd_uleb(c, &u))
				return -EINVAL;
			st->cfa_kind = CFA_REG;
			st->cfa_reg = reg;
			st->cfa_off = (int64_t)u;
			continue;
		case DW_CFA_def_cfa_sf:
			if (rd_uleb(c, &reg) || rd_sleb(c, &s))
				return -EINVAL;
			st->cfa_kind = CFA_REG;
			st->cfa_reg = reg;
			st->cfa_off = (int64_t)((uint64_t)s * (uint64_t)cie->daf);
			continue;
		case DW_CFA_def_cfa_register:
			if (rd_uleb(c, &reg))
				return -EINVAL;
			st->cfa_kind = CFA_REG;
			st->cfa_reg = reg;
			continue;
		case DW_CFA_def_cfa_offset:
			if (rd_uleb(c, &u))
				return -EINVAL;
			st->cfa_off = (int64_t)u;
			continue;
		case DW_CFA_def_cfa_offset_sf:
			if (rd_sleb(c, &s))
				return -EINVAL;
			st->cfa_off = (int64_t)((uint64_t)s * (uint64_t)cie->daf);
			continue;
		case DW_CFA_def_cfa_expression:
			if (rd_block(c, &blk, &u))
				return -EINVAL;
			cfa_expression(cie->arch, st, blk, u);
			continue;
		case DW_CFA_expression:
		case DW_CFA_val_expression:
			if (rd_uleb(c, &reg) || rd_block(c, &blk, &u))
				return -EINVAL;
			set_reg(cie, st, reg, op == DW_CFA_expression ? R_EXPR : R_VAL_EXPR, 0);
			continue;
		case DW_CFA_offset_extended_sf:
			if (rd_uleb(c, &reg) || rd_sleb(c, &s))
				return -EINVAL;
			set_reg(cie, st, reg, R_OFFSET,
				(int64_t)((uint64_t)s * (uint64_t)cie->daf));
			continue;
		case DW_CFA_val_offset:
			if (rd_uleb(c, &reg) || rd_uleb(c, &u))
				return -EINVAL;
			set_reg(cie, st, reg, R_VAL_OFFSET, (int64_t)(u * (uint64_t)cie->daf));
			continue;
		case DW_CFA_val_offset_sf:
			if (rd_uleb(c, &reg) || rd_sleb(c, &s))
				return -EINVAL;
			set_reg(cie, st, reg, R_VAL_OFFSET,
				(int64_t)((uint64_t)s * (uint64_t)cie->daf));
			continue;
		case DW_CFA_GNU_args_size:
			if (rd_uleb(c, &u))
				return -EINVAL;
			continue;
		case DW_CFA_AARCH64_negate_ra_state:
			/*
			 * x30 is signed from here (pointer authentication) or no longer: the walker
			 * strips every aarch64 return address as the kernel does (xpaclri), so
			 * nothing here depends on it. DW_CFA_GNU_window_save elsewhere: not ours.
			 */
			if (!cie->arch->a64)
				return -EINVAL;
			continue;
		case DW_CFA_GNU_negative_offset_extended:
			if (rd_uleb(c, &reg) || rd_uleb(c, &u))
				return -EINVAL;
			set_reg(cie, st, reg, R_OFFSET, -(int64_t)(u * (uint64_t)cie->daf));
			continue;
		default:
			return -EINVAL;
		}
	advance:
		if (!r)
			return -EINVAL; /* a CIE has no location to advance */
		if (__builtin_mul_overflow(delta, cie->caf, &delta) ||
		    __builtin_add_overflow(r->loc, delta, &loc))
			return -EINVAL;
	move:
		if (loc > r->loc) {
			err = push_row(b, r, r->loc, st);
			if (err)
				return err;
			r->loc = loc;
		}
		if (r->loc >= r->end)
			return 1;
	}
	return 0;
}

/* Read an entry header: length (32 or 64-bit) and the id field. */
static int entry_header(const struct builder *b, size_t off, struct cursor *c, size_t *next,
			uint64_t *id, size_t *id_pos, int *is64)
{
	uint64_t len;

	c->p = b->buf + off;
	c->end = b->buf + b->size;
	if (rd_fixed(c, 4, &len))
		return -1;
	*is64 = len == 0xffffffffu;
	if (*is64 && rd_fixed(c, 8, &len))
		return -1;
	if (len == 0 || len > (uint64_t)(c->end - c->p))
		return -1;
	*next = (size_t)(c->p - b->buf) + len;
	c->end = c->p + len;
	*id_pos = c->p - b->buf;
	/* .eh_frame's CIE id / pointer is 4 bytes even in the 64-bit format */
	return rd_fixed(c, *is64 && !b->eh ? 8 : 4, id);
}

static int is_cie_id(const struct builder *b, uint64_t id, int is64)
{
	if (b->eh)
		return id == 0;
	return id == (is64 ? ~0ull : 0xffffffffu);
}

static int parse_cie(struct builder *b, size_t off, struct cie *cie)
{
	const unsigned char *aug, *aug_end = NULL;
	size_t next, id_pos;
	struct cursor c;
	uint64_t id, ver, u, auglen;
	int is64, ind;

	memset(cie, 0, sizeof(*cie));
	cie->arch = b->arch;
	cie->off = off;
	cie->state = -1;
	if (entry_header(b, off, &c, &next, &id, &id_pos, &is64) || !is_cie_id(b, id, is64))
		return -1;
	/*
	 * Large CIEs that keep evicting each other from the cache would make the parse quadratic;
	 * real CIEs are a few dozen bytes and few, so a budget of the section's size twice over
	 * only ever stops a crafted file.
	 */
	b->cie_work += next - off;
	if (b->cie_work > 2 * b->size + 65536)
		return -1;
	if (rd_u8(&c, &ver) || !(ver == 1 || ver == 3 || (!b->eh && ver == 4)))
		return -1;
	aug = c.p;
	while (c.p < c.end && *c.p)
		c.p++;
	if (c.p == c.end)
		return -1;
	c.p++;
	cie->addr_size = b->addr_size;
	cie->fde_enc = DW_EH_PE_absptr;
	if (ver == 4) {
		if (rd_u8(&c, &u) || (u != 4 && u != 8))
			return -1;
		cie->addr_size = u;
		if (rd_u8(&c, &u) || u != 0) /* segment selectors: not on x86-64 */
			return -1;
	}
	if (rd_uleb(&c, &cie->caf) || rd_sleb(&c, &cie->daf) || !cie->caf)
		return -1;
	if (ver == 1 ? rd_u8(&c, &cie->ra_reg) : rd_uleb(&c, &cie->ra_reg))
		return -1;
	if (*aug == 'z') {
		if (rd_uleb(&c, &auglen) || auglen > (uint64_t)(c.end - c.p))
			return -1;
		aug_end = c.p + auglen;
		c.end = aug_end; /* the augmentation data must stay within its declared length */
		cie->has_z = 1;
		for (aug++; *aug; aug++) {
			if (*aug == 'R') {
				if (rd_u8(&c, &u))
					return -1;
				cie->fde_enc = u;
			} else if (*aug == 'L') {
				if (rd_u8(&c, &u))
					return -1;
			} else if (*aug == 'P') {
				if (rd_u8(&c, &u) || rd_encoded(b, &c, u, &id, &ind))
					return -1;
			} else if (*aug == 'S') {
				cie->signal = 1;
			} else if (*aug != 'B' && *aug != 'G') {
				break; /* unknown: the length lets us skip the rest */
			}
		}
		c.p = aug_end;
		c.end = b->buf + next;
	} else if (*aug) {
		return -1; /* an augmentation without 'z' we cannot step over */
	}
	if ((cie->fde_enc & 0x70) == DW_EH_PE_funcrel || (cie->fde_enc & DW_EH_PE_indirect))
		return -1;
	state_abi_default(cie->arch, &cie->init);
	if (run_program(b, cie, &cie->init, &c, NULL))
		return -1;
	cie->state = 1;
	return 0;
}

static const struct cie *get_cie(struct builder *b, size_t off)
{
	struct cie *cie = &b->cies[(off * 0x9e3779b1u >> 8) % BT_UW_CIE_CACHE];

	if (cie->state && cie->off == off)
		return cie->state > 0 ? cie : NULL;
	if (!parse_cie(b, off, cie))
		b->t->nr_cies++;
	return cie->state > 0 ? cie : NULL;
}

static int in_exec_segment(const struct builder *b, uint64_t start, uint64_t end)
{
	size_t i;

	if (!b->nsegs)
		return 1; /* no program headers (a relocatable object, a test image): accept */
	for (i = 0; i < b->nsegs; i++) {
		if (start >= b->segs[i].start && start < b->segs[i].end)
			return end <= b->segs[i].end;
	}
	return 0;
}

static int add_fde(struct builder *b, uint64_t start, uint64_t end, size_t first)
{
	struct fde_ent *f;

	if (b->nfdes == b->fdes_cap) {
		size_t cap = b->fdes_cap ? b->fdes_cap * 2 : 1024;

		f = realloc(b->fdes, cap * sizeof(*f));
		if (!f)
			return -ENOMEM;
		b->fdes = f;
		b->fdes_cap = cap;
	}
	b->fdes[b->nfdes] = (struct fde_ent){
		.start = start,
		.end = end,
		.first = first,
		.n = (uint32_t)(b->nrows - first),
		.seq = (uint32_t)b->nfdes,
		.prio = b->prio,
	};
	b->nfdes++;
	b->covered += end - start;
	return 0;
}

/* One FDE: -errno only for what must stop the whole build (ENOMEM, E2BIG). */
static int parse_fde(struct builder *b, struct cursor *c, size_t cie_off)
{
	const struct cie *cie = get_cie(b, cie_off);
	struct cfa_state st;
	uint64_t start, range, u;
	struct run r = { 0 };
	int err, ind = 0;

	if (!cie)
		goto bad;
	if (b->eh) {
		if (rd_encoded(b, c, cie->fde_enc, &start, &ind) || ind ||
		    rd_encoded(b, c, cie->fde_enc & 0x0f, &range, NULL))
			goto bad;
	} else if (rd_fixed(c, cie->addr_size, &start) || rd_fixed(c, cie->addr_size, &range)) {
		goto bad;
	}
	if (cie->has_z) {
		if (rd_uleb(c, &u) || u > (uint64_t)(c->end - c->p))
			goto bad;
		c->p += u;
	}
	if (!range)
		return 0;
	if (start + range < start)
		goto bad;
	/* FDEs of discarded code (address 0 or a tombstone) and of no loaded code are dropped */
	if (!start || !in_exec_segment(b, start, start + range)) {
		b->t->nr_outside++;
		return 0;
	}
	if (start + range > 0xffffffffull)
		return -E2BIG;
	r.cie = cie;
	r.loc = start;
	r.end = start + range;
	r.first = b->nrows;
	st = cie->init;
	err = run_program(b, cie, &st, c, &r);
	if (err < 0 && err != -EINVAL)
		return err;
	if (err == -EINVAL) {
		/* keep what was decoded; the rest of the FDE is marked, not guessed */
		b->t->nr_bad++;
		st.ra.kind = R_REG;
	}
	if (r.loc < r.end) {
		err = push_row(b, &r, r.loc, &st);
		if (err)
			return err;
	}
	return add_fde(b, start, r.end, r.first);
bad:
	b->t->nr_bad++;
	return 0;
}

/*
 * Room for the rows a section of this size usually gives (about one per 5 bytes, one FDE per
 * 50), so that a large file is not copied by repeated reallocs; pages never written cost
 * nothing.
 */
static int reserve(struct builder *b)
{
	size_t rows = b->nrows + b->size / 4 + 64, fdes = b->nfdes + b->size / 32 + 16;
	void *n;

	if (rows > BT_UW_MAX_ROWS)
		rows = BT_UW_MAX_ROWS;
	if (rows > b->rows_cap) {
		n = realloc(b->rows, rows * sizeof(*b->rows));
		if (!n)
			return -ENOMEM;
		b->rows = n;
		b->rows_cap = rows;
	}
	if (fdes > b->fdes_cap) {
		n = realloc(b->fdes, fdes * sizeof(*b->fdes));
		if (!n)
			return -ENOMEM;
		b->fdes = n;
		b->fdes_cap = fdes;
	}
	return 0;
}

static int parse_section(struct builder *b)
{
	size_t off = 0, next, id_pos;
	struct cursor c;
	uint64_t id;
	int is64, err;

	err = reserve(b);
	if (err)
		return err;
	memset(b->cies, 0, sizeof(b->cies));
	b->cie_work = 0;
	while (off < b->size) {
		if (b->eh && b->size - off >= 4 && !memcmp(b->buf + off, "\0\0\0\0", 4))
			break; /* the .eh_frame terminator */
		if (entry_header(b, off, &c, &next, &id, &id_pos, &is64)) {
			b->t->nr_bad++;
			break; /* a broken length: nothing after it can be trusted */
		}
		if (!is_cie_id(b, id, is64)) {
			size_t cie_off;

			if (b->eh) {
				if (id > id_pos)
					goto bad;
				cie_off = id_pos - id;
			} else {
				if (id >= b->size)
					goto bad;
				cie_off = id;
			}
			err = parse_fde(b, &c, cie_off);
			if (err)
				return err;
		}
		off = next;
		continue;
	bad:
		b->t->nr_bad++;
		off = next;
	}
	return 0;
}

static int cmp_fde(const void *pa, const void *pb)
{
	const struct fde_ent *a = pa, *b = pb;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->prio != b->prio)
		return a->prio < b->prio ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static void out_row(struct bt_unwind_table *t, const struct bt_unwind_row *row, uint64_t pc)
{
	struct bt_unwind_row *o = t->rows;

	if (t->nr && same_rule(&o[t->nr - 1], row))
		return;
	if (t->nr && o[t->nr - 1].pc == pc) {
		t->nr--; /* an empty stretch: the later rule wins */
		if (t->nr && same_rule(&o[t->nr - 1], row))
			return;
	}
	o[t->nr] = *row;
	o[t->nr].pc = (__u32)pc;
	t->nr++;
}

/* Sort the FDEs, drop overlaps, put a NONE row in every gap, merge equal neighbours. */
static int finish(struct builder *b)
{
	struct bt_unwind_table *t = b->t;
	const struct bt_unwind_row none = { .cfa_rule = BT_CFA_NONE };
	uint64_t prev_end = 0;
	size_t i, j;
	int have = 0;

	if (!b->nfdes)
		return -ENODATA;
	/* linkers write .eh_frame in address order: sort only when it is not */
	for (i = 1; i < b->nfdes && cmp_fde(&b->fdes[i - 1], &b->fdes[i]) < 0; i++)
		;
	if (i < b->nfdes)
		qsort(b->fdes, b->nfdes, sizeof(*b->fdes), cmp_fde);
	t->rows = malloc((b->nrows + b->nfdes + 1) * sizeof(*t->rows));
	if (!t->rows)
		return -ENOMEM;
	for (i = 0; i < b->nfdes; i++) {
		const struct fde_ent *f = &b->fdes[i];

		if (have && f->start < prev_end) {
			t->nr_overlap++;
			continue;
		}
		if (have && f->start > prev_end)
			out_row(t, &none, prev_end);
		for (j = 0; j < f->n; j++)
			out_row(t, &b->rows[f->first + j], b->rows[f->first + j].pc);
		t->nr_fdes++;
		t->sources |= f->prio == 0   ? BT_UNWIND_SRC_EH_FRAME
			      : f->prio == 1 ? BT_UNWIND_SRC_DEBUG_FRAME
			      : f->prio == 2 ? BT_UNWIND_SRC_DEBUG_FILE
					     : 0; /* add_plt_a64()'s */
		prev_end = f->end;
		have = 1;
	}
	out_row(t, &none, prev_end);
	for (i = 0; i < t->nr; i++) {
		t->nr_unsupported += t->rows[i].cfa_rule == BT_CFA_UNSUPPORTED;
		t->nr_plt += t->rows[i].cfa_rule == BT_CFA_PLT;
	}
	/* give back the slack: tables are kept for the life of the tool */
	if (t->nr < b->nrows + b->nfdes + 1) {
		struct bt_unwind_row *n = realloc(t->rows, t->nr * sizeof(*n));

		if (n)
			t->rows = n;
	}
	return 0;
}

static Elf_Data *section_bytes(const struct builder *b, Elf_Scn *scn, const GElf_Shdr *sh)
{
	/* its bytes within the file's size and blocks, before libelf reads them */
	if (sh->sh_type == SHT_NOBITS || !bt_elf__scn_ok(b->lim, scn, sh, BT_UW_MAX_DEBUG_FRAME))
		return NULL;
	if (sh->sh_flags & SHF_COMPRESSED) {
		GElf_Chdr ch;

		if (!gelf_getchdr(scn, &ch) || ch.ch_size > BT_UW_MAX_DEBUG_FRAME ||
		    elf_compress(scn, 0, 0) < 0)
			return NULL;
		return elf_getdata(scn, NULL);
	}
	return elf_rawdata(scn, NULL);
}

static int parse_scn(struct builder *b, Elf *e, const char *name, int eh, unsigned char prio)
{
	GElf_Shdr sh;
	Elf_Scn *scn = bt_elf__find_scn(e, b->lim, name, &sh);
	Elf_Data *d;

	if (!scn || !(d = section_bytes(b, scn, &sh)) || !d->d_buf || !d->d_size)
		return -ENOENT;
	b->buf = d->d_buf;
	b->size = d->d_size;
	b->sec_addr = eh ? sh.sh_addr : 0;
	b->eh = eh;
	b->prio = prio;
	return parse_section(b);
}

/*
 * A file without section headers (sstrip, or a damaged header table): .eh_frame through
 * PT_GNU_EH_FRAME, whose .eh_frame_hdr points at it. Its size is unknown, so the parse runs
 * to the terminator or to the end of the segment holding it, whichever comes first.
 */
static int parse_eh_frame_by_phdr(struct builder *b, Elf *e)
{
	size_t nph, i;
	GElf_Phdr ph, hdr = { 0 };
	const unsigned char *h;
	uint64_t eh_addr;
	struct cursor c;
	Elf_Data *d;

	if (elf_getphdrnum(e, &nph))
		return -ENOENT;
	for (i = 0; i < nph && i < 4096; i++) {
		if (gelf_getphdr(e, i, &ph) && ph.p_type == PT_GNU_EH_FRAME)
			hdr = ph;
	}
	if (hdr.p_filesz < 8)
		return -ENOENT;
	d = bt_elf__rawchunk(b->lim, e, hdr.p_offset, hdr.p_filesz, BT_ELF_MAX_NOTE);
	if (!d || !d->d_buf || d->d_size < 8)
		return -ENOENT;
	h = d->d_buf;
	if (h[0] != 1)
		return -ENOENT;
	/* eh_frame_ptr, encoded relative to .eh_frame_hdr itself */
	b->buf = h;
	b->size = d->d_size;
	b->sec_addr = hdr.p_vaddr;
	c = (struct cursor){ h + 4, h + d->d_size };
	if (rd_encoded(b, &c, h[1], &eh_addr, NULL))
		return -ENOENT;
	for (i = 0; i < nph && i < 4096; i++) {
		if (!gelf_getphdr(e, i, &ph) || ph.p_type != PT_LOAD || eh_addr < ph.p_vaddr ||
		    eh_addr - ph.p_vaddr >= ph.p_filesz)
			continue;
		d = bt_elf__rawchunk(b->lim, e, ph.p_offset + (eh_addr - ph.p_vaddr),
				     ph.p_filesz - (eh_addr - ph.p_vaddr), BT_UW_MAX_DEBUG_FRAME);
		if (!d || !d->d_buf || !d->d_size)
			return -ENOENT;
		b->buf = d->d_buf;
		b->size = d->d_size;
		b->sec_addr = eh_addr;
		b->eh = 1;
		b->prio = 0;
		return parse_section(b);
	}
	return -ENOENT;
}

/* Executable PT_LOAD ranges and section bases of the file the addresses belong to. */
static int read_layout(struct builder *b, Elf *e, uint64_t *code_size, int *has_plt)
{
	size_t nph, i;
	GElf_Shdr sh;
	GElf_Ehdr eh;
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (!gelf_getehdr(e, &eh) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != ELFDATA2LSB ||
	    (eh.e_machine != EM_X86_64 && eh.e_machine != EM_AARCH64))
		return -ENOEXEC;
	b->arch = eh.e_machine == EM_AARCH64 ? &arch_aarch64 : &arch_x86_64;
	b->addr_size = 8;
	if (!elf_getphdrnum(e, &nph)) {
		for (i = 0; i < nph && b->nsegs < BT_UW_MAX_SEGS; i++) {
			GElf_Phdr ph;

			if (!gelf_getphdr(e, i, &ph) || ph.p_type != PT_LOAD ||
			    !(ph.p_flags & PF_X))
				continue;
			if (ph.p_vaddr + ph.p_memsz < ph.p_vaddr)
				continue;
			b->segs[b->nsegs++] = (struct seg){ ph.p_vaddr, ph.p_vaddr + ph.p_memsz };
		}
	}
	*code_size = 0;
	*has_plt = 0;
	if (elf_getshdrstrndx(e, &shstrndx) || !bt_elf__shstrtab_ok(e, b->lim))
		return 0;
	while ((scn = elf_nextscn(e, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, &sh))
			continue;
		n = elf_strptr(e, shstrndx, sh.sh_name);
		if ((sh.sh_flags & SHF_EXECINSTR) && sh.sh_type != SHT_NOBITS)
			*code_size += sh.sh_size;
		if (!n)
			continue;
		if (!strcmp(n, ".text"))
			b->text_base = sh.sh_addr;
		else if (!strcmp(n, ".got"))
			b->data_base = sh.sh_addr;
		else if ((!strcmp(n, ".plt") || !strcmp(n, ".plt.sec")) && sh.sh_size)
			*has_plt = 1;
	}
	return 0;
}

static int plt_covered(Elf *e, const struct bt_elf_lim *lim, const struct bt_unwind_table *t)
{
	static const char *const names[] = { ".plt", ".plt.sec" };
	GElf_Shdr sh;
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (bt_elf__find_scn(e, lim, names[i], &sh) && sh.sh_size &&
		    !bt_unwind_table_find(t, sh.sh_addr))
			return 0;
	}
	return 1;
}

/*
 * aarch64's .plt has no FDE (binutils writes none). Its entries move neither sp nor x29 and
 * jump on with the return address still in x30: the psABI's default row, given here to the
 * whole section, behind any FDE that covers it (the lowest priority).
 */
static int add_plt_a64(struct builder *b, Elf *e)
{
	struct cie cie = { .arch = b->arch, .state = 1 };
	struct run r = { .cie = &cie };
	size_t first = b->nrows;
	struct cfa_state st;
	GElf_Shdr sh;
	int err;

	if (!bt_elf__find_scn(e, b->lim, ".plt", &sh) || !sh.sh_size || !sh.sh_addr ||
	    sh.sh_addr + sh.sh_size > 0xffffffffull ||
	    !in_exec_segment(b, sh.sh_addr, sh.sh_addr + sh.sh_size))
		return 0;
	state_abi_default(b->arch, &st);
	err = push_row(b, &r, sh.sh_addr, &st);
	if (err)
		return err;
	b->prio = 3;
	return add_fde(b, sh.sh_addr, sh.sh_addr + sh.sh_size, first);
}

/* .debug_frame of the separate debug file, for code .eh_frame leaves out. */
static int parse_debug_file(struct builder *b, struct bt_elf *belf)
{
	char *path = bt_elf__find_debug_file(belf);
	const struct bt_elf_lim *own = b->lim;
	struct bt_elf_lim lim;
	Elf *e = NULL;
	int fd = -1, err = -ENOENT;

	if (!path)
		return -ENOENT;
	fd = bt_elf__open_in_root(belf, path);
	if (fd < 0 || bt_elf__precheck(fd, &lim))
		goto cleanup;
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF)
		goto cleanup;
	b->lim = &lim;
	err = parse_scn(b, e, ".debug_frame", 0, 2);
	b->lim = own;
cleanup:
	if (e)
		elf_end(e);
	if (fd >= 0)
		close(fd);
	free(path);
	return err;
}

static int build(Elf *e, struct bt_elf *belf, const struct bt_elf_lim *lim,
		 struct bt_unwind_table **out)
{
	struct builder *b;
	struct bt_unwind_table *t = NULL;
	uint64_t code_size;
	int err, has_plt, own_debug;

	*out = NULL;
	b = calloc(1, sizeof(*b));
	t = calloc(1, sizeof(*t));
	if (!b || !t) {
		err = -ENOMEM;
		goto cleanup;
	}
	b->t = t;
	b->lim = lim;
	err = read_layout(b, e, &code_size, &has_plt);
	if (err)
		goto cleanup;
	t->a64 = b->arch->a64;
	if (belf) {
		memcpy(t->build_id, belf->build_id_raw, belf->build_id_len);
		t->build_id_len = belf->build_id_len;
	} else {
		bt_elf__read_build_id(e, lim, t->build_id, sizeof(t->build_id), &t->build_id_len);
	}
	err = parse_scn(b, e, ".eh_frame", 1, 0);
	if (err == -ENOENT)
		err = parse_eh_frame_by_phdr(b, e);
	if (err && err != -ENOENT)
		goto cleanup;
	err = parse_scn(b, e, ".debug_frame", 0, 1);
	if (err && err != -ENOENT)
		goto cleanup;
	own_debug = !err;
	/*
	 * Code built without unwind tables (-fno-asynchronous-unwind-tables) has .eh_frame only
	 * for the C runtime's few functions; then its debug file's .debug_frame is worth a look.
	 */
	if (belf && !own_debug && b->covered < code_size / 2) {
		err = parse_debug_file(b, belf);
		if (err && err != -ENOENT)
			goto cleanup;
	}
	if (b->arch->a64) {
		err = add_plt_a64(b, e);
		if (err)
			goto cleanup;
	}
	err = finish(b);
	if (err)
		goto cleanup;
	t->plt_without_fde = has_plt && !plt_covered(e, lim, t);
	*out = t;
	t = NULL;
cleanup:
	if (b)
		free(b->rows);
	if (b)
		free(b->fdes);
	free(b);
	bt_unwind_table_free(t);
	return err;
}

int bt_unwind_table_build_fd(int fd, const char *path, const char *root,
			     struct bt_unwind_table **out)
{
	struct bt_elf *belf = NULL;
	int err;

	*out = NULL;
	err = bt_elf__open_fd(fd, path, root, &belf);
	if (err)
		return err;
	err = build(belf->elf, belf, &belf->lim, out);
	bt_elf__close(belf);
	return err;
}

int bt_unwind_table_build(const char *path, struct bt_unwind_table **out)
{
	struct bt_elf *belf = NULL;
	int err;

	*out = NULL;
	err = bt_elf__open(path, NULL, &belf);
	if (err)
		return err;
	err = build(belf->elf, belf, &belf->lim, out);
	bt_elf__close(belf);
	return err;
}

int bt_unwind_table_from_memory(const void *image, size_t size, struct bt_unwind_table **out)
{
	struct bt_elf_lim lim;
	void *copy = NULL;
	Elf *e = NULL;
	int err;

	*out = NULL;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ENOSYS;
	/* libelf may convert data in place; the caller's image stays untouched */
	copy = malloc(size ? size : 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, image, size);
	e = elf_memory(copy, size);
	if (!e || elf_kind(e) != ELF_K_ELF) {
		err = -ENOEXEC;
		goto cleanup;
	}
	bt_elf__lim_mem(size, &lim);
	err = build(e, NULL, &lim, out);
cleanup:
	if (e)
		elf_end(e);
	free(copy);
	return err;
}

const struct bt_unwind_row *bt_unwind_table_find(const struct bt_unwind_table *t, __u64 vaddr)
{
	size_t lo = 0, hi;
	const struct bt_unwind_row *r;

	if (!t || !t->nr || vaddr < t->rows[0].pc || vaddr > 0xffffffffull)
		return NULL;
	hi = t->nr; /* invariant: rows[lo].pc <= vaddr < rows[hi].pc */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->rows[mid].pc <= vaddr)
			lo = mid;
		else
			hi = mid;
	}
	r = &t->rows[lo];
	return r->cfa_rule == BT_CFA_NONE ? NULL : r;
}

void bt_unwind_table_free(struct bt_unwind_table *t)
{
	if (!t)
		return;
	free(t->rows);
	free(t);
}
