// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdbool.h>
#include <malloc.h>
#include <string.h>
#include <bpf/btf.h>

#include <sys/stat.h>
#include <unistd.h>

#include "bt_env.h"
#include "bt_err.h"
#include "bt_vmlinux_btf.h"

static struct btf *vmlinux_btf;
static bool vmlinux_btf_tried;
static int vmlinux_btf_err; /* why the load failed: -errno */
static const char *btf_file;

const char *bt_vmlinux_btf_file(void)
{
	return btf_file ? btf_file : bt_env_value("BPFTOOLS_BTF");
}

void bt_vmlinux_btf_set_file(const char *path)
{
	btf_file = path;
}

/* ENXIO stands for "not a regular file" here: libbpf's open of a FIFO would block for good */
static struct btf *load(void)
{
	const char *file = bt_vmlinux_btf_file();
	struct stat st;

	if (file) {
		if (stat(file, &st))
			return NULL; /* errno says why */
		if (!S_ISREG(st.st_mode)) {
			errno = S_ISDIR(st.st_mode) ? EISDIR : ENXIO;
			return NULL;
		}
	}
	return file ? btf__parse(file, NULL) : btf__load_vmlinux_btf();
}

int bt_vmlinux_btf_check(void)
{
	const char *file = bt_vmlinux_btf_file();
	struct btf *btf;
	int err;

	if (!file && !access("/sys/kernel/btf/vmlinux", R_OK))
		return 0;
	if (vmlinux_btf)
		return 0;
	/* the rare path (no BTF in sysfs, or a file given): parsed once, kept for what asks next */
	btf = bt_vmlinux_btf();
	err = btf ? 0 : vmlinux_btf_err;
	if (!err)
		return 0;
	if (file)
		bt_err("cannot read the kernel's types from %s (--btf, BPFTOOLS_BTF): %s", file,
		       err == -EINVAL || err == -EPROTO ? "not a BTF or ELF file with .BTF"
		       : err == -ENXIO			? "not a regular file"
							: strerror(-err));
	else
		bt_err("this kernel has no BTF (no /sys/kernel/btf/vmlinux): give its types with "
		       "--btf FILE or BPFTOOLS_BTF=FILE (BTFHub has them for most distribution "
		       "kernels)");
	return err == -EINVAL || err == -EPROTO ? -EINVAL : -ENOENT;
}

struct btf *bt_vmlinux_btf(void)
{
	if (!vmlinux_btf_tried) {
		vmlinux_btf_tried = true;
		vmlinux_btf = load();
		vmlinux_btf_err = vmlinux_btf ? 0 : -(errno ? errno : ENOENT);
		if (!vmlinux_btf)
			bt_debug("no vmlinux BTF: %s", strerror(-vmlinux_btf_err));
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
