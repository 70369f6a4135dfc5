/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The rows of a stack summary (stackcount, offcputime, offwaketime, profile): each row's printed
 * text and its value, merged and sorted as BCC prints them. Keys carry the process so that user
 * frames can be named; once named, the same text from several processes is one row.
 *
 * A tool that prints at the end keeps its rows for the whole run, however many processes come
 * and go, so a row costs what it says and no more: its text is cut into pieces (a frame each:
 * a folded line's "name;", a block's line, a JSON member) interned once for every row, and the
 * row holds their ids and its value. Rows that print alike are one as they come. Past
 * max_rows rows, or max_bytes held, a row unlike every row kept is added to one [other] row,
 * counted.
 *
 *	FILE *f = bt_stack_table__begin(&t);
 *	bt_stacks__print(st, f, ...);            // the row's text
 *	bt_stack_table__end(&t, value);          // 1: past the cap, in [other]
 *	...
 *	bt_stack_table__sort(&t);                // ascending by value, then by text
 *	for (i = 0; i < bt_stack_table__count(&t); i++) {
 *		bt_stack_table__row(&t, i, &r);
 *		printf("%s    %llu\n", r.text, r.value);
 *	}
 *	bt_stack_table__report(&t);              // what [other] holds, on stderr
 *	bt_stack_table__clear(&t);
 */
#ifndef BT_STACK_TABLE_H
#define BT_STACK_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * Rows a table keeps by default: BCC's and libbpf-tools' counts maps hold 10,240 stacks (and
 * lose the rest unsaid). Under churn most rows are a process's own (offcputime's tid, JSON's
 * addresses), and a folded row takes ~200 bytes: an hour of a /bin/true loop filled 32,768
 * rows and 6 MiB (scripts/bench's stack-soak --long; issue 36's bound is 2 MiB).
 */
#define BT_STACK_TABLE_MAX_ROWS 10240
/*
 * And the bytes they may hold (rows, pieces, hashes, as used): 1 MiB, or 100 a row where more
 * rows are asked for. A /bin/true loop's rows took ~96 bytes each with the arrays' room
 * (3,687 in 345 KiB), a build's ~200 (10,240 in 1,988 KiB, filled in the minute it ran beside
 * the tool: most of issue 36's 2 MiB over an hour; docs/offcputime.md, "Rows").
 */
#define BT_STACK_TABLE_MAX_BYTES (1U << 20)
#define BT_STACK_TABLE_ROW_BYTES 100

/* A row as printed: text valid until the next bt_stack_table__row() call. */
struct bt_stack_row {
	const char *text;
	unsigned long long value;
};

struct bt_stack_piece; /* an interned piece of text */
struct bt_stack_keep;  /* a row kept: its pieces and its value */

struct bt_stack_table {
	/* set before the first row; 0: BPFTOOLS_STACK_ROWS, else BT_STACK_TABLE_MAX_ROWS */
	size_t max_rows;
	/* set before the first row; 0: max_rows x BT_STACK_TABLE_ROW_BYTES, 1 MiB at least */
	size_t max_bytes;
	/* rows unlike every row kept, past max_rows, and their values: the [other] row */
	unsigned long long other_rows, other_value;
	char *other_text; /* the [other] row's text in the tool's form (bt_stack_table__other) */
	size_t n;	  /* rows kept */
	/* below: the table's own */
	struct bt_stack_keep *rows;
	size_t cap;
	uint32_t *ids; /* the row being ended: its piece ids */
	size_t ids_cap;
	/* every row's piece ids, one after another, each in 1-5 bytes (LEB128): most take 2 */
	uint8_t *codes;
	size_t ncodes, codes_cap;
	uint32_t *row_slots; /* a hash of rows by their pieces: index + 1, 0 empty */
	size_t row_nslots;
	struct bt_stack_piece *pieces; /* by id - 1 */
	size_t npieces, pieces_cap;
	uint32_t *piece_slots; /* a hash of pieces by text: id, 0 empty */
	size_t piece_nslots;
	char **chunks; /* the pieces' bytes */
	size_t nchunks, chunks_cap, chunk_bytes;
	char *chunk; /* the one being filled */
	size_t chunk_used;
	uint32_t *cut; /* the row being ended: where its pieces end */
	size_t cut_cap;
	size_t *order; /* after __sort: rows in print order ([other]: n) */
	size_t norder;
	FILE *cur; /* one stream for every row's text, rewound at each begin */
	char *cur_buf;
	size_t cur_len;
	bool begun;
	char *text; /* what __row() gives */
	size_t text_cap;
};

/* A stream for the next row's text, or NULL (out of memory). */
FILE *bt_stack_table__begin(struct bt_stack_table *t);
/*
 * Close the row begun last, with its value: added to the row of the same text, else a row of
 * its own (0), else, past max_rows, to [other] (1). -ENOMEM, -EINVAL (no row begun).
 */
int bt_stack_table__end(struct bt_stack_table *t, unsigned long long value);
/* The [other] row's text, as the tool prints a row (set once, when first needed). 0 or -ENOMEM. */
int bt_stack_table__other(struct bt_stack_table *t, const char *text);
/*
 * The rows in print order: ascending by value, then by text ([other] among them when it holds
 * any). Rows kept are merged already: two stacks that read alike (a stack walked partly by
 * frame pointers and then through tables, [unknown] frames at other addresses) are one row,
 * as in every output.
 */
int bt_stack_table__sort(struct bt_stack_table *t);
/* Rows in print order since the last __sort. */
size_t bt_stack_table__count(const struct bt_stack_table *t);
/* Row i of the print order into *r (its text valid until the next call). 0 or -errno. */
int bt_stack_table__row(struct bt_stack_table *t, size_t i, struct bt_stack_row *r);
/* "N rows past the cap of M rows or K KiB printed as one [other] row ..." on stderr. */
void bt_stack_table__report(const struct bt_stack_table *t);
/* Bytes the table holds (rows, pieces, hashes), for the debug line and tests. */
size_t bt_stack_table__bytes(const struct bt_stack_table *t);
/*
 * A row whose text is a JSON object without its value (nor a newline), printed as one line
 * with the value
 * first: {"name": value, ...}.
 */
void bt_stack_row__json(const struct bt_stack_row *r, const char *name, FILE *out);
/*
 * The rows in print order as one JSON line, an interval's: {"ts", "val_type": val_type,
 * member: [{"name": value, ...}]}, each row's text a JSON object without its value. 0 or
 * -errno.
 */
int bt_stack_table__json_line(struct bt_stack_table *t, FILE *out, const char *val_type,
			      const char *member, const char *name);
/* Drop every row, [other] too (keeps the allocations but the pieces'). */
void bt_stack_table__clear(struct bt_stack_table *t);
void bt_stack_table__free(struct bt_stack_table *t);

#endif
