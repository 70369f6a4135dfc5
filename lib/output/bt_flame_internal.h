/* SPDX-License-Identifier: GPL-2.0 */
/* The profile tree, shared by the SVG (bt_flame.c) and pprof (bt_pprof.c) writers. */
#ifndef BT_FLAME_INTERNAL_H
#define BT_FLAME_INTERNAL_H

#include "bt_flame.h"

/*
 * The labelled part of a node's self: one per distinct label set, in the order first seen.
 * labels: each label as its key, NUL, 's' and the string or 'n' and the number in decimal, NUL.
 */
struct bt_prof_sample {
	struct bt_prof_sample *next;
	char *labels;
	size_t len;
	uint64_t value;
};

struct bt_prof_node {
	char *name;
	char *module; /* NULL: none */
	enum bt_prof_kind kind;
	char *func, *file; /* an interpreted function's source (NULL: none), at line */
	unsigned int line, start_line;
	uint64_t total; /* this frame and everything above it */
	uint64_t self;	/* samples ending here */
	uint64_t cold;	/* of total, the samples through a BT_PROF_OFFCPU frame */
	struct bt_prof_node *parent, *child, *next;
	size_t nchild;
	struct bt_prof_sample *samples, **samples_tail; /* of self, those with labels */
	uint64_t id;					/* free for a writer's bookkeeping */
};

struct bt_profile {
	struct bt_profile_opts opts;
	struct bt_prof_node root;    /* "all" */
	struct bt_prof_node **slots; /* open addressing: (parent, name, module, kind) -> node */
	size_t nslots, nnodes;
	/* open addressing: (node, labels) -> its labelled sample */
	struct bt_prof_sample **lslots;
	struct bt_prof_node **lnodes; /* each labelled sample's node, slot for slot */
	size_t nlslots, nlabelled;
	unsigned int depth; /* frames in the deepest sample */
};

/* The children of n sorted by name (then module, kind), in a new array; NULL for none/ENOMEM. */
struct bt_prof_node **bt_prof__children(const struct bt_prof_node *n, int *err);

/*
 * The next label of a bt_prof_sample's labels (at *pos, which advances), or false at the end:
 * *key, and *str (NULL for a number) or *num.
 */
bool bt_prof__label(const struct bt_prof_sample *s, size_t *pos, const char **key, const char **str,
		    int64_t *num);

#endif
