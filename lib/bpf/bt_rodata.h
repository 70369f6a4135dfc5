/* SPDX-License-Identifier: GPL-2.0 */
/* Named .rodata variables of an opened BPF object (the skeleton's read-only data). */
#ifndef BT_RODATA_H
#define BT_RODATA_H

#include <stddef.h>
#include <bpf/libbpf.h>

/* Set a named .rodata variable before load. -ENOENT when there is none of that name and size. */
int bt_rodata_set(struct bpf_object *obj, const char *var, const void *val, size_t size);
/* Read it back (before or after load). */
int bt_rodata_get(struct bpf_object *obj, const char *var, void *val, size_t size);

#endif
