// SPDX-License-Identifier: GPL-2.0
/*
 * Named .rodata variables of an opened object, set before load: the lowest step between open
 * and load, used by the filters, the event buffers, the stacks and the unwinder alike.
 */
#include <errno.h>
#include <string.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "bt_rodata.h"

/* The internal map of section sec (".rodata", ".bss"): libbpf names it "<object>.rodata" */
static struct bpf_map *section_map(struct bpf_object *obj, const char *sec)
{
	size_t len = strlen(sec);
	struct bpf_map *map;

	bpf_object__for_each_map(map, obj)
	{
		const char *name = bpf_map__name(map);
		size_t n = strlen(name);

		if (n >= len && !strcmp(name + n - len, sec))
			return map;
	}
	return NULL;
}

/*
 * The bytes of the variable var of section sec in its image: before load what the skeleton
 * writes; after load, for a writable section, the map's memory the programs read.
 */
static char *section_var(struct bpf_object *obj, const char *secname, const char *var, size_t size,
			 int *err)
{
	struct btf *btf = bpf_object__btf(obj);
	struct bpf_map *map = section_map(obj, secname);
	const struct btf_var_secinfo *vs;
	const struct btf_type *sec;
	size_t data_sz;
	char *data;
	int id, i;

	*err = -ENOENT;
	if (!btf || !map)
		return NULL;
	id = btf__find_by_name_kind(btf, secname, BTF_KIND_DATASEC);
	if (id <= 0)
		return NULL;
	sec = btf__type_by_id(btf, id);
	/* Before load this is the mmaped image the skeleton also writes through. */
	data = (char *)bpf_map__initial_value(map, &data_sz);
	if (!data)
		return NULL;
	vs = btf_var_secinfos(sec);
	for (i = 0; i < btf_vlen(sec); i++, vs++) {
		const struct btf_type *t = btf__type_by_id(btf, vs->type);

		if (strcmp(btf__name_by_offset(btf, t->name_off), var))
			continue;
		if (vs->size != size || vs->offset + size > data_sz) {
			*err = -EINVAL;
			return NULL;
		}
		*err = 0;
		return data + vs->offset;
	}
	return NULL;
}

int bt_rodata_set(struct bpf_object *obj, const char *var, const void *val, size_t size)
{
	int err;
	char *p = section_var(obj, ".rodata", var, size, &err);

	if (p)
		memcpy(p, val, size);
	return err;
}

int bt_rodata_get(struct bpf_object *obj, const char *var, void *val, size_t size)
{
	int err;
	char *p = section_var(obj, ".rodata", var, size, &err);

	if (p)
		memcpy(val, p, size);
	return err;
}

void *bt_bss_var(struct bpf_object *obj, const char *var, size_t size)
{
	int err;

	return section_var(obj, ".bss", var, size, &err);
}
