/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A call's stacks as lines (funcslower -B and -S): the slots the kernel kept for one call, one
 * per pair of stack ids, merged by what their stacks print as, so that a stack is never split
 * over two lines (two slots can differ only in addresses within the same functions, or in the
 * generation of their ids); the stacks past the last slot, summed by the kernel, come last.
 *
 *	struct bt_stack_lines l = { .key = &key_rows };	// folded, user;-;kernel
 *	bt_stack_lines__clear(&l, BT_PROC(tgid, cookie));
 *	for each slot:	bt_stack_lines__add(&l, &(struct bt_stack_line){ k, u, count, ... });
 *	past them:	bt_stack_lines__add(&l, &(struct bt_stack_line){ .count = n, .other = true });
 *	bt_stack_lines__sort(&l, BT_LINES_BY_FIRST);
 *	...l.v[0..l.n)...
 *	bt_stack_lines__free(&l);
 */
#ifndef BT_STACK_LINES_H
#define BT_STACK_LINES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "bt_stack_row.h"

struct bt_stack_line {
	uint64_t kernel_stack, user_stack; /* stack ids (probes/bt_stack.h) */
	uint64_t count, first_ns, last_ns, total_ns;
	bool other; /* the stacks past the slots: no stacks of its own */
	char *key;  /* what its stacks print as (set by __add) */
};

enum bt_lines_order {
	BT_LINES_BY_FIRST, /* by first_ns, earliest first (B lines) */
	BT_LINES_BY_COUNT, /* by count, most first (S lines) */
};

struct bt_stack_lines {
	const struct bt_stack_rows *key; /* the form lines are merged by: one line per stack pair */
	/* the forms lines are written in: their stacks, and the stacks past the slots' mark */
	const struct bt_stack_rows *line, *other;
	struct bt_stack_rows own_key, own_other; /* bt_stack_lines__init()'s */
	uint64_t proc; /* BT_PROC(pid, cookie): whose mappings name user frames */
	struct bt_stack_line *v;
	size_t n, cap;
};

/*
 * Lines whose stacks print as line (a call's rows without the comm): merged by their folded
 * stacks, user;-;kernel, and the stacks past the slots marked "[other stacks]".
 */
void bt_stack_lines__init(struct bt_stack_lines *l, const struct bt_stack_rows *line);

/*
 * Add a slot: counts and times merged into the line that prints the same (count and total
 * added, the earliest first and the latest last kept), else a line of its own. 0 or -ENOMEM.
 */
int bt_stack_lines__add(struct bt_stack_lines *l, const struct bt_stack_line *slot);
/* The lines in order; the one of the stacks past the slots last whatever the order. */
void bt_stack_lines__sort(struct bt_stack_lines *l, enum bt_lines_order order);
/* Drop every line (keeps the allocation), for the next call, of process proc. */
void bt_stack_lines__clear(struct bt_stack_lines *l, uint64_t proc);
void bt_stack_lines__free(struct bt_stack_lines *l); /* NULL is fine */

/* A line's stacks after its text: below it, or folded after it with BCC's prototype's " 1". */
void bt_stack_lines__write(const struct bt_stack_lines *l, const struct bt_stack_line *line,
			   FILE *out, bool folded);
/*
 * The lines as a JSON array named member: {"count", with times "first_ns" (from base_ns),
 * "span_ns", "total_ns", and the stacks}.
 */
void bt_stack_lines__json(const struct bt_stack_lines *l, struct bt_json *j, const char *member,
			  bool times, uint64_t base_ns);
/* Each line's stacks into out, weighing its total time (by_time) or its count. 0 or -errno. */
int bt_stack_lines__profile(const struct bt_stack_lines *l, struct bt_stack_out *out, bool by_time);

#endif
