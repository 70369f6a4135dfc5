/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Between a skeleton's open and load: choose which declared programs load (struct bt_probe),
 * and set the filters every probe shares (probes/bt_common.bpf.h) in read-only data.
 */
#ifndef BT_SKEL_H
#define BT_SKEL_H

#include <stdbool.h>
#include <bpf/libbpf.h>

#include "bt_cmd.h"

/*
 * For each probe, keep 'prog' when the kernel can take it, else its fallback. Returns 0, or
 * -EOPNOTSUPP after printing which probe has no usable form.
 */
int bt_skel_select(struct bpf_object *obj, const struct bt_probe *probes);

/* Whether the kernel can load this program as declared (tp_btf, fentry, ...). */
bool bt_prog_usable(const struct bpf_program *prog);

/* Filters applied in the kernel; -1 / 0 mean "none". */
struct bt_filters {
	int cpu;  /* -1: all CPUs */
	int tgid; /* 0: all processes */
	int tid;  /* 0: all threads */
};
#define BT_FILTERS_NONE   \
	{                 \
		.cpu = -1 \
	}

/*
 * Write the set filters into the object's .rodata variables (bt_filter_cpu, ...). Returns
 * -EOPNOTSUPP when a filter is set but the program has no such variable.
 */
int bt_filters_apply(struct bpf_object *obj, const struct bt_filters *f);

/* Set a named .rodata variable before load. -ENOENT when there is none of that name and size. */
int bt_rodata_set(struct bpf_object *obj, const char *var, const void *val, size_t size);

#endif
