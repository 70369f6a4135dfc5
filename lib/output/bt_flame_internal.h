/* SPDX-License-Identifier: GPL-2.0 */
/* The profile tree, shared by the SVG (bt_flame.c) and pprof (bt_pprof.c) writers. */
#ifndef BT_FLAME_INTERNAL_H
#define BT_FLAME_INTERNAL_H

#include "bt_flame.h"

struct bt_prof_node {
	char *name;
	char *module; /* NULL: none */
	enum bt_prof_kind kind;
	uint64_t total; /* this frame and everything above it */
	uint64_t self;	/* samples ending here */
	uint64_t cold;	/* of total, the samples through a BT_PROF_OFFCPU frame */
	struct bt_prof_node *parent, *child, *next;
	size_t nchild;
	uint64_t id; /* free for a writer's bookkeeping */
};

struct bt_profile {
	struct bt_profile_opts opts;
	struct bt_prof_node root;    /* "all" */
	struct bt_prof_node **slots; /* open addressing: (parent, name, module, kind) -> node */
	size_t nslots, nnodes;
	unsigned int depth; /* frames in the deepest sample */
};

/* The children of n sorted by name (then module, kind), in a new array; NULL for none/ENOMEM. */
struct bt_prof_node **bt_prof__children(const struct bt_prof_node *n, int *err);

#endif
