// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <string.h>
#include <bpf/btf.h>

#include "bt_err.h"
#include "bt_kernel.h"
#include "bt_skel.h"

static const char *section_target(const struct bpf_program *prog, const char *prefix)
{
	const char *sec = bpf_program__section_name(prog);
	size_t n = strlen(prefix);

	if (sec[0] == '?')
		sec++;
	if (strncmp(sec, prefix, n) || sec[n] != '/')
		return NULL;
	return sec + n + 1;
}

bool bt_prog_usable(const struct bpf_program *prog)
{
	const char *target;

	target = section_target(prog, "tp_btf");
	if (target)
		return bt_kernel_tp_btf_ok(target);
	return true;
}

int bt_skel_select(struct bpf_object *obj, const struct bt_probe *probes)
{
	const struct bt_probe *p;

	for (p = probes; p && p->prog; p++) {
		struct bpf_program *prog = bpf_object__find_program_by_name(obj, p->prog);
		struct bpf_program *fb = NULL;

		if (!prog) {
			bt_err("internal error: no BPF program '%s'", p->prog);
			return -ENOENT;
		}
		if (p->fallback) {
			fb = bpf_object__find_program_by_name(obj, p->fallback);
			if (!fb) {
				bt_err("internal error: no BPF program '%s'", p->fallback);
				return -ENOENT;
			}
		}
		if (bt_prog_usable(prog)) {
			bpf_program__set_autoload(prog, true);
			if (fb)
				bpf_program__set_autoload(fb, false);
			continue;
		}
		if (!fb || !bt_prog_usable(fb)) {
			bt_err("this kernel cannot attach '%s' (%s)", p->prog,
			       bpf_program__section_name(prog));
			return -EOPNOTSUPP;
		}
		bt_debug("using '%s' instead of '%s'", p->fallback, p->prog);
		bpf_program__set_autoload(prog, false);
		bpf_program__set_autoload(fb, true);
	}
	bt_vmlinux_btf_release();
	return 0;
}

static struct bpf_map *rodata_map(struct bpf_object *obj)
{
	struct bpf_map *map;

	bpf_object__for_each_map(map, obj)
	{
		const char *name = bpf_map__name(map);
		size_t n = strlen(name);

		if (n >= 7 && !strcmp(name + n - 7, ".rodata"))
			return map;
	}
	return NULL;
}

int bt_rodata_set(struct bpf_object *obj, const char *var, const void *val, size_t size)
{
	struct btf *btf = bpf_object__btf(obj);
	struct bpf_map *map = rodata_map(obj);
	const struct btf_var_secinfo *vs;
	const struct btf_type *sec;
	size_t data_sz;
	char *data;
	int id, i;

	if (!btf || !map)
		return -ENOENT;
	id = btf__find_by_name_kind(btf, ".rodata", BTF_KIND_DATASEC);
	if (id <= 0)
		return -ENOENT;
	sec = btf__type_by_id(btf, id);
	/* Before load this is the mmaped image the skeleton also writes through. */
	data = (char *)bpf_map__initial_value(map, &data_sz);
	if (!data)
		return -ENOENT;
	vs = btf_var_secinfos(sec);
	for (i = 0; i < btf_vlen(sec); i++, vs++) {
		const struct btf_type *t = btf__type_by_id(btf, vs->type);

		if (strcmp(btf__name_by_offset(btf, t->name_off), var))
			continue;
		if (vs->size != size || vs->offset + size > data_sz)
			return -EINVAL;
		memcpy(data + vs->offset, val, size);
		return 0;
	}
	return -ENOENT;
}

static int set_filter(struct bpf_object *obj, const char *var, int val, int none)
{
	int err;

	if (val == none)
		return 0;
	err = bt_rodata_set(obj, var, &val, sizeof(val));
	if (err == -ENOENT) {
		bt_err("internal error: the BPF programs have no '%s' filter", var);
		return -EOPNOTSUPP;
	}
	return err;
}

int bt_filters_apply(struct bpf_object *obj, const struct bt_filters *f)
{
	int err;

	err = set_filter(obj, "bt_filter_cpu", f->cpu, -1);
	if (!err)
		err = set_filter(obj, "bt_filter_tgid", f->tgid, 0);
	if (!err)
		err = set_filter(obj, "bt_filter_tid", f->tid, 0);
	return err;
}
