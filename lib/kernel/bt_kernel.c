// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <sys/resource.h>
#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "bt_btf_ids.h"
#include "bt_env.h"
#include "bt_err.h"
#include "bt_kernel.h"
#include "bt_vmlinux_btf.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
#ifndef CAP_BPF
#define CAP_BPF 39
#endif
#define TRACEFS_MAGIC_NR 0x74726163

static bool has_cap(const struct __user_cap_data_struct *d, int cap)
{
	return d[cap / 32].effective & (1U << (cap % 32));
}

int bt_check_privileges(void)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2] = {};

	if (geteuid() == 0)
		return 0;
	if (syscall(SYS_capget, &hdr, data))
		return -errno;
	if (has_cap(data, CAP_SYS_ADMIN))
		return 0;
	if (has_cap(data, CAP_BPF) && has_cap(data, CAP_PERFMON))
		return 0;
	return -EPERM;
}

bool bt_kernel_has_btf(void)
{
	return access("/sys/kernel/btf/vmlinux", R_OK) == 0;
}

/* The smallest valid program: r0 = 0; exit. */
static const struct bpf_insn ret0[] = {
	{ .code = 0xb7, .dst_reg = 0, .imm = 0 }, /* BPF_MOV64_IMM(R0, 0) */
	{ .code = 0x95 },			  /* BPF_EXIT_INSN() */
};

bool bt_kernel_tp_btf_ok(const char *event)
{
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = BPF_TRACE_RAW_TP);
	char name[256];
	struct btf *btf;
	int id, fd;

	if (!bt_kernel_has_btf() || bt_env_flag("BPFTOOLS_NO_TP_BTF")) /* the tests' raw_tp path */
		return false;
	snprintf(name, sizeof(name), "btf_trace_%s", event);
	/* the id alone, without parsing the whole BTF (cached per kernel) */
	id = bt_btf_id(name, BTF_KIND_TYPEDEF, NULL);
	if (id < 0 && id != -ENOENT) { /* a layout the scan refuses */
		btf = bt_vmlinux_btf();
		id = btf ? btf__find_by_name_kind(btf, name, BTF_KIND_TYPEDEF) : -ENOENT;
	}
	if (id <= 0)
		return false;
	if (bt_btf_id_loads(name, BTF_KIND_TYPEDEF))
		return true;
	opts.attach_btf_id = id;
	fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, NULL, "GPL", ret0, 2, &opts);
	if (fd < 0) {
		bt_debug("tp_btf/%s unavailable: %s", event, strerror(errno));
		return false;
	}
	close(fd);
	bt_btf_id_note_loads(name, BTF_KIND_TYPEDEF);
	return true;
}

static bool is_tracefs(const char *path)
{
	struct statfs st;

	return statfs(path, &st) == 0 && st.f_type == TRACEFS_MAGIC_NR;
}

const char *bt_tracefs(void)
{
	static const char *cached;

	if (cached)
		return cached;
	if (is_tracefs("/sys/kernel/tracing"))
		return cached = "/sys/kernel/tracing";
	if (is_tracefs("/sys/kernel/debug/tracing"))
		return cached = "/sys/kernel/debug/tracing";
	/* Nothing mounted: tracepoint ids live there, so mount it as perf and bpftrace do. */
	if (mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL) == 0)
		return cached = "/sys/kernel/tracing";
	bt_debug("cannot mount tracefs: %s", strerror(errno));
	return NULL;
}

int bt_tracefs_denied(void)
{
	static bool said;
	const char *tfs = bt_tracefs();
	char path[PATH_MAX];
	DIR *d;
	int err;

	if (!tfs)
		return 0;
	snprintf(path, sizeof(path), "%s/events", tfs);
	d = opendir(path);
	if (d) {
		closedir(d);
		return 0;
	}
	if (errno != EACCES && errno != EPERM)
		return 0;
	err = -errno;
	if (!said)
		bt_err("cannot read the tracepoints in %s: %s (tracefs needs root or its mode "
		       "changed)",
		       tfs, strerror(-err));
	said = true;
	return err;
}

bool bt_kernel_has_kfunc(const char *name)
{
	struct btf *btf;
	int id;

	if (!bt_kernel_has_btf())
		return false;
	/* cached per kernel: opensnoop's libbpf load then parses the whole BTF once, not twice */
	id = bt_btf_id(name, BTF_KIND_FUNC, NULL);
	if (id < 0 && id != -ENOENT) { /* a layout the scan refuses */
		btf = bt_vmlinux_btf();
		id = btf ? btf__find_by_name_kind(btf, name, BTF_KIND_FUNC) : -ENOENT;
	}
	return id > 0;
}

bool bt_kernel_has_helper(enum bpf_prog_type type, enum bpf_func_id id)
{
	return libbpf_probe_bpf_helper(type, id, NULL) == 1;
}

void bt_raise_fd_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur >= rl.rlim_max)
		return;
	rl.rlim_cur = rl.rlim_max;
	setrlimit(RLIMIT_NOFILE, &rl);
}
