// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdbool.h>
#include <malloc.h>
#include <string.h>
#include <bpf/btf.h>

#include "bt_err.h"
#include "bt_vmlinux_btf.h"

static struct btf *vmlinux_btf;
static bool vmlinux_btf_tried;

struct btf *bt_vmlinux_btf(void)
{
	if (!vmlinux_btf_tried) {
		vmlinux_btf_tried = true;
		vmlinux_btf = btf__load_vmlinux_btf();
		if (!vmlinux_btf)
			bt_debug("no vmlinux BTF: %s", strerror(errno));
	}
	return vmlinux_btf;
}

void bt_vmlinux_btf_release(void)
{
	btf__free(vmlinux_btf);
	vmlinux_btf = NULL;
	vmlinux_btf_tried = false;
	malloc_trim(0); /* hand the pages back now, not at exit */
}
