/* SPDX-License-Identifier: GPL-2.0 */
/* Named .rodata variables of an opened BPF object (the skeleton's read-only data), and .bss ones. */
#ifndef BT_RODATA_H
#define BT_RODATA_H

#include <stddef.h>
#include <bpf/libbpf.h>

/* Set a named .rodata variable before load. -ENOENT when there is none of that name and size. */
int bt_rodata_set(struct bpf_object *obj, const char *var, const void *val, size_t size);
/* Read it back (before or after load). */
int bt_rodata_get(struct bpf_object *obj, const char *var, void *val, size_t size);
/*
 * After load: a named .bss variable in the memory the running programs read, so that a write
 * is seen by their next run; NULL when there is none of that name and size, or the kernel
 * cannot map it (before 5.5).
 */
void *bt_bss_var(struct bpf_object *obj, const char *var, size_t size);

#endif
