// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel facility probes. Each one does the real thing once (load a two-instruction program,
 * attach it, create a perf event) rather than trusting config files or version numbers: a
 * kernel may have a facility compiled in and still refuse it (lockdown, an architecture
 * without trampolines), and only trying tells the two apart. Answers are cached per run.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "bt_err.h"
#include "bt_features.h"
#include "bt_kernel.h"
#include "bt_vmlinux_btf.h"

#ifndef ENOTSUPP
#define ENOTSUPP 524 /* the kernel's internal "not supported", seen from fentry on some arches */
#endif

static struct bt_feature feats[BT_FEAT__COUNT] = {
	[BT_FEAT_BTF] = { "btf", "BTF" },
	[BT_FEAT_KPROBES] = { "kprobes", "kprobes" },
	[BT_FEAT_KRETPROBES] = { "kretprobes", "kretprobes" },
	[BT_FEAT_FENTRY] = { "fentry", "fentry/fexit" },
	[BT_FEAT_FENTRY_COOKIE] = { "fentry_cookie", "fentry attach cookies" },
	[BT_FEAT_KPROBE_MULTI] = { "kprobe_multi", "kprobe.multi" },
	[BT_FEAT_UPROBES] = { "uprobes", "uprobes" },
	[BT_FEAT_UPROBE_MULTI] = { "uprobe_multi", "uprobe.multi" },
	[BT_FEAT_UPROBE_SESSION] = { "uprobe_session", "uprobe.session" },
	[BT_FEAT_USDT] = { "usdt", "USDT" },
	[BT_FEAT_TP_BTF] = { "tp_btf", "tp_btf" },
	[BT_FEAT_RAW_TP] = { "raw_tp", "raw_tp" },
	[BT_FEAT_RAW_TP_COOKIE] = { "raw_tp_cookie", "raw_tp attach cookies" },
	[BT_FEAT_TRACEPOINTS] = { "tracepoints", "tracepoints" },
	[BT_FEAT_RINGBUF] = { "ringbuf", "ring buffer" },
	[BT_FEAT_STACKS] = { "stack_maps", "stack maps" },
	[BT_FEAT_PERF_EVENTS] = { "perf_events", "perf events" },
};
static bool probed[BT_FEAT__COUNT];

/* r0 = 0; exit */
static const struct bpf_insn ret0[] = {
	{ .code = 0xb7, .dst_reg = 0, .imm = 0 },
	{ .code = 0x95 },
};

/* Functions the attach probes try, in order: always built, rarely called, traceable. */
static const char *const probe_funcs[] = { "bpf_fentry_test1", "do_nanosleep", "vfs_read" };

static void set_no(struct bt_feature *f, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void set_no(struct bt_feature *f, int err, const char *fmt, ...)
{
	va_list ap;

	f->ok = false;
	f->err = err;
	f->refused = err == EPERM || err == EACCES || err == ENOTSUPP || err == EINVAL;
	va_start(ap, fmt);
	vsnprintf(f->why, sizeof(f->why), fmt, ap);
	va_end(ap);
}

static int read_small(const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	if (n < 0) {
		n = -errno;
		close(fd);
		return n;
	}
	close(fd);
	buf[n] = '\0';
	return 0;
}

int bt_sysctl_int(const char *path, int *val)
{
	char buf[64];
	int err = read_small(path, buf, sizeof(buf));

	if (err)
		return err;
	if (sscanf(buf, "%d", val) != 1)
		return -EINVAL;
	return 0;
}

const char *bt_lockdown(void)
{
	static const char *const modes[] = { "none", "integrity", "confidentiality" };
	static const char *path = "/sys/kernel/security/lockdown";
	static bool done;
	static const char *mode;
	char buf[128], *open, *close;
	size_t i;

	if (done)
		return mode;
	done = true;
	/* securityfs is often not mounted; mount it (read-only, as systemd would) to ask. */
	if (access(path, F_OK) && access("/sys/kernel/security", F_OK) == 0 &&
	    mount("securityfs", "/sys/kernel/security", "securityfs", MS_RDONLY, NULL))
		bt_debug("cannot mount securityfs: %s", strerror(errno));
	if (read_small(path, buf, sizeof(buf)))
		return NULL;
	open = strchr(buf, '[');
	close = open ? strchr(open, ']') : NULL;
	if (!close)
		return NULL;
	*close = '\0';
	for (i = 0; i < 3; i++)
		if (!strcmp(open + 1, modes[i]))
			mode = modes[i];
	return mode;
}

/* "EPERM; lockdown: confidentiality" when lockdown may explain an EPERM, else "EPERM". */
void bt_errno_why(char *buf, size_t size, int err)
{
	const char *ld = bt_lockdown();
	const char *name = strerrorname_np(err);

	if (err == ENOTSUPP)
		name = "ENOTSUPP";
	if (!name)
		name = "error";
	if (err == EPERM && ld && strcmp(ld, "none"))
		snprintf(buf, size, "%s; lockdown: %s", name, ld);
	else
		snprintf(buf, size, "%s", name);
}

static int probe_func_btf_id(const char **name)
{
	struct btf *btf = bt_vmlinux_btf();
	size_t i;
	int id;

	for (i = 0; btf && i < sizeof(probe_funcs) / sizeof(probe_funcs[0]); i++) {
		id = btf__find_by_name_kind(btf, probe_funcs[i], BTF_KIND_FUNC);
		if (id > 0) {
			*name = probe_funcs[i];
			return id;
		}
	}
	return -ENOENT;
}

static void probe_fentry(struct bt_feature *f)
{
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = BPF_TRACE_FENTRY);
	const char *fn = NULL;
	char why[96];
	int fd, link, id;

	if (!bt_kernel_has_btf()) {
		set_no(f, ENOENT, "kernel has no BTF");
		return;
	}
	id = probe_func_btf_id(&fn);
	if (id < 0) {
		set_no(f, ENOENT, "no known kernel function in BTF to try");
		return;
	}
	opts.attach_btf_id = id;
	fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, NULL, "GPL", ret0, 2, &opts);
	if (fd < 0) {
		bt_errno_why(why, sizeof(why), errno);
		set_no(f, errno, "refused: %s", why);
		return;
	}
	/* Loading is not enough: arches without trampolines fail only here (ENOTSUPP). */
	link = bpf_raw_tracepoint_open(NULL, fd);
	if (link < 0) {
		bt_errno_why(why, sizeof(why), errno);
		set_no(f, errno, "attach to '%s' failed: %s", fn, why);
	} else {
		f->ok = true;
		close(link);
	}
	close(fd);
}

static bool btf_struct_has(const char *type, const char *member)
{
	struct btf *btf = bt_vmlinux_btf();
	const struct btf_member *m;
	const struct btf_type *t;
	int id, i;

	if (!btf)
		return false;
	id = btf__find_by_name_kind(btf, type, BTF_KIND_STRUCT);
	if (id <= 0)
		return false;
	if (!member)
		return true;
	t = btf__type_by_id(btf, id);
	m = btf_members(t);
	for (i = 0; i < btf_vlen(t); i++, m++)
		if (!strcmp(btf__name_by_offset(btf, m->name_off), member))
			return true;
	return false;
}

static void probe_fentry_cookie(struct bt_feature *f)
{
	const struct bt_feature *fe = bt_feature(BT_FEAT_FENTRY);

	if (!fe->ok) {
		set_no(f, fe->err, "no fentry");
		return;
	}
	/* Older kernels silently ignore the cookie field, so ask BTF instead (5.19+). */
	if (btf_struct_has("bpf_tramp_link", "cookie"))
		f->ok = true;
	else
		set_no(f, EOPNOTSUPP, "kernel older than 5.19");
}

static int pmu_type(const char *pmu)
{
	char path[128], buf[32];

	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/type", pmu);
	if (read_small(path, buf, sizeof(buf)))
		return -ENOENT;
	return atoi(buf);
}

static int pmu_retprobe_bit(const char *pmu)
{
	char path[128], buf[32];
	int bit;

	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/format/retprobe", pmu);
	if (read_small(path, buf, sizeof(buf)) || sscanf(buf, "config:%d", &bit) != 1)
		return 0;
	return bit;
}

static bool tracefs_has(const char *file)
{
	const char *tfs = bt_tracefs();
	char path[256];

	if (!tfs)
		return false;
	snprintf(path, sizeof(path), "%s/%s", tfs, file);
	return access(path, F_OK) == 0;
}

static int perf_open(struct perf_event_attr *attr)
{
	attr->size = sizeof(*attr);
	return syscall(SYS_perf_event_open, attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
}

/* Create (and drop) a kprobe through the PMU on a function every kernel has. */
static void probe_kprobe(struct bt_feature *f, bool ret)
{
	struct perf_event_attr attr = {};
	const char *fn = "do_nanosleep";
	char why[96];
	int type = pmu_type("kprobe"), fd;

	if (type < 0) {
		if (tracefs_has("kprobe_events")) {
			/* Only the legacy interface: libbpf falls back to it by itself. */
			f->ok = true;
			return;
		}
		set_no(f, ENOENT, "kernel built without kprobes");
		return;
	}
	probe_func_btf_id(&fn);
	attr.type = type;
	attr.config1 = (__u64)(unsigned long)fn;
	if (ret)
		attr.config |= 1ULL << pmu_retprobe_bit("kprobe");
	fd = perf_open(&attr);
	if (fd < 0) {
		bt_errno_why(why, sizeof(why), errno);
		set_no(f, errno, "refused: %s", why);
		return;
	}
	close(fd);
	f->ok = true;
}

static void probe_kprobe_multi(struct bt_feature *f)
{
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = BPF_TRACE_KPROBE_MULTI);
	LIBBPF_OPTS(bpf_link_create_opts, lopts);
	const char *fn = "do_nanosleep";
	char why[96];
	int fd, link;

	if (!bt_feature(BT_FEAT_KPROBES)->ok) {
		set_no(f, ENOENT, "no kprobes");
		return;
	}
	probe_func_btf_id(&fn);
	fd = bpf_prog_load(BPF_PROG_TYPE_KPROBE, NULL, "GPL", ret0, 2, &opts);
	if (fd < 0) {
		bt_errno_why(why, sizeof(why), errno);
		set_no(f, errno, "program refused: %s", why);
		return;
	}
	lopts.kprobe_multi.syms = &fn;
	lopts.kprobe_multi.cnt = 1;
	link = bpf_link_create(fd, 0, BPF_TRACE_KPROBE_MULTI, &lopts);
	if (link >= 0) {
		f->ok = true;
		close(link);
	} else if (errno == EOPNOTSUPP) {
		set_no(f, errno, "kernel built without CONFIG_FPROBE");
	} else if (errno == EINVAL) {
		set_no(f, errno, "kernel older than 5.18");
	} else {
		bt_errno_why(why, sizeof(why), errno);
		set_no(f, errno, "refused: %s", why);
	}
	close(fd);
}

static void probe_uprobes(struct bt_feature *f)
{
	if (pmu_type("uprobe") >= 0)
		f->ok = true;
	else if (tracefs_has("uprobe_events"))
		f->ok = true;
	else
		set_no(f, ENOENT, "kernel built without uprobes");
}

/* attach_type: BPF_TRACE_UPROBE_MULTI (48) or BPF_TRACE_UPROBE_SESSION (57), which libbpf
 * 1.1's headers predate */
static void probe_uprobe_link(struct bt_feature *f, unsigned int attach_type, const char *older)
{
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = attach_type);
	char why[96];
	int fd;

	struct { /* union bpf_attr's link_create with its uprobe_multi member (6.6) */
		__u32 prog_fd, target_fd, attach_type, flags;
		__aligned_u64 path, offsets, ref_ctr_offsets, cookies;
		__u32 cnt, umulti_flags, pid;
	} attr;
	__u64 offset = 0;
	int link;

	/*
	 * libbpf 1.1 has no uprobe.multi API (1.3 does): lib/attach/bt_attach_user.c makes the links
	 * with bpf(BPF_LINK_CREATE) itself. A program of that attach type must load, and a link
	 * on a directory be refused as not a regular file (EBADF), where older kernels do not
	 * know the attach type (EINVAL). Asking the kernel costs no parse of its BTF.
	 */
	fd = bpf_prog_load(BPF_PROG_TYPE_KPROBE, NULL, "GPL", ret0, 2, &opts);
	if (fd < 0) {
		bt_errno_why(why, sizeof(why), errno);
		set_no(f, errno, "refused: %s", why);
		return;
	}
	memset(&attr, 0, sizeof(attr));
	attr.prog_fd = fd;
	attr.attach_type = attach_type;
	attr.path = (__u64)(uintptr_t) "/";
	attr.offsets = (__u64)(uintptr_t)&offset;
	attr.cnt = 1;
	link = syscall(__NR_bpf, BPF_LINK_CREATE, &attr, sizeof(attr));
	if (link >= 0 || errno != EBADF) {
		if (link >= 0)
			close(link);
		set_no(f, EOPNOTSUPP, "kernel older than %s", older);
	} else {
		f->ok = true;
	}
	close(fd);
}

static void probe_raw_tp(struct bt_feature *f)
{
	char why[96];
	int fd, link;

	fd = bpf_prog_load(BPF_PROG_TYPE_RAW_TRACEPOINT, NULL, "GPL", ret0, 2, NULL);
	if (fd < 0) {
		bt_errno_why(why, sizeof(why), errno);
		set_no(f, errno, "program refused: %s", why);
		return;
	}
	link = bpf_raw_tracepoint_open("sched_switch", fd);
	if (link < 0) {
		bt_errno_why(why, sizeof(why), errno);
		set_no(f, errno, "attach to sched_switch failed: %s", why);
	} else {
		f->ok = true;
		close(link);
	}
	close(fd);
}

/*
 * raw_tp programs may read their link's cookie from 6.10, the kernel that also takes the
 * cookie when the link is made: a program calling bpf_get_attach_cookie() loads or not. (No
 * BTF lookup: a syscall-only run never parses the kernel's BTF.)
 */
static void probe_raw_tp_cookie(struct bt_feature *f)
{
	static const struct bpf_insn insns[] = {
		{ .code = 0x85, .imm = 174 }, /* call bpf_get_attach_cookie (r1: the context) */
		{ .code = 0xb7, .dst_reg = 0, .imm = 0 },
		{ .code = 0x95 },
	};
	int fd;

	fd = bpf_prog_load(BPF_PROG_TYPE_RAW_TRACEPOINT, NULL, "GPL", insns, 3, NULL);
	if (fd < 0) {
		set_no(f, errno, "kernel older than 6.10 (bpf_get_attach_cookie refused: %s)",
		       strerror(errno));
		return;
	}
	f->ok = true;
	close(fd);
}

/* A tracepoint program on sched:sched_switch through perf, as libbpf attaches them. */
static void probe_tracepoints(struct bt_feature *f)
{
	struct perf_event_attr attr = { .type = PERF_TYPE_TRACEPOINT, .sample_period = 1 };
	const char *tfs = bt_tracefs();
	char path[256], buf[32], why[96];
	int fd = -1, pfd = -1, err;

	if (!tfs) {
		set_no(f, ENOENT, "no tracefs");
		return;
	}
	snprintf(path, sizeof(path), "%s/events/sched/sched_switch/id", tfs);
	err = read_small(path, buf, sizeof(buf));
	if (err) {
		bt_errno_why(why, sizeof(why), -err);
		set_no(f, -err, "cannot read tracepoint ids: %s", why);
		return;
	}
	attr.config = strtoull(buf, NULL, 10);
	fd = bpf_prog_load(BPF_PROG_TYPE_TRACEPOINT, NULL, "GPL", ret0, 2, NULL);
	if (fd < 0) {
		bt_errno_why(why, sizeof(why), errno);
		set_no(f, errno, "program refused: %s", why);
		return;
	}
	pfd = perf_open(&attr);
	if (pfd < 0 || ioctl(pfd, PERF_EVENT_IOC_SET_BPF, fd)) {
		bt_errno_why(why, sizeof(why), errno);
		set_no(f, errno, "attach failed: %s", why);
	} else {
		f->ok = true;
	}
	if (pfd >= 0)
		close(pfd);
	close(fd);
}

static void probe_map(struct bt_feature *f, enum bpf_map_type type)
{
	int r = libbpf_probe_bpf_map_type(type, NULL);

	if (r == 1)
		f->ok = true;
	else if (r == 0)
		set_no(f, EOPNOTSUPP, "kernel too old");
	else
		set_no(f, -r, "probe failed: %s", strerror(-r));
}

static void probe_perf(struct bt_feature *f)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_freq = 99,
		.freq = 1,
	};
	char why[96];
	int fd = perf_open(&attr);

	if (fd < 0) {
		bt_errno_why(why, sizeof(why), errno);
		set_no(f, errno, "refused: %s", why);
		return;
	}
	close(fd);
	f->ok = true;
}

const struct bt_feature *bt_feature(enum bt_feat id)
{
	struct bt_feature *f = &feats[id];
	const struct bt_feature *dep;

	if (probed[id])
		return f;
	probed[id] = true;
	switch (id) {
	case BT_FEAT_BTF:
		if (bt_kernel_has_btf())
			f->ok = true;
		else
			set_no(f, ENOENT, "no /sys/kernel/btf/vmlinux");
		break;
	case BT_FEAT_KPROBES:
		probe_kprobe(f, false);
		break;
	case BT_FEAT_KRETPROBES:
		probe_kprobe(f, true);
		break;
	case BT_FEAT_FENTRY:
		probe_fentry(f);
		break;
	case BT_FEAT_FENTRY_COOKIE:
		probe_fentry_cookie(f);
		break;
	case BT_FEAT_KPROBE_MULTI:
		probe_kprobe_multi(f);
		break;
	case BT_FEAT_UPROBES:
		probe_uprobes(f);
		break;
	case BT_FEAT_UPROBE_MULTI:
		probe_uprobe_link(f, 48, "6.6");
		break;
	case BT_FEAT_UPROBE_SESSION:
		probe_uprobe_link(f, 57, "6.13");
		break;
	case BT_FEAT_USDT:
		dep = bt_feature(BT_FEAT_UPROBES);
		if (dep->ok)
			f->ok = true;
		else
			set_no(f, dep->err, "no uprobes");
		break;
	case BT_FEAT_TP_BTF:
		if (bt_kernel_tp_btf_ok("sched_switch"))
			f->ok = true;
		else if (!bt_kernel_has_btf())
			set_no(f, ENOENT, "kernel has no BTF");
		else
			set_no(f, EOPNOTSUPP, "refused (see --debug)");
		break;
	case BT_FEAT_RAW_TP:
		probe_raw_tp(f);
		break;
	case BT_FEAT_RAW_TP_COOKIE:
		dep = bt_feature(BT_FEAT_RAW_TP);
		if (dep->ok)
			probe_raw_tp_cookie(f);
		else
			set_no(f, dep->err, "no raw_tp");
		break;
	case BT_FEAT_TRACEPOINTS:
		probe_tracepoints(f);
		break;
	case BT_FEAT_RINGBUF:
		probe_map(f, BPF_MAP_TYPE_RINGBUF);
		break;
	case BT_FEAT_STACKS:
		probe_map(f, BPF_MAP_TYPE_STACK_TRACE);
		break;
	case BT_FEAT_PERF_EVENTS:
		probe_perf(f);
		break;
	default:
		set_no(f, EINVAL, "unknown facility");
		break;
	}
	bt_debug("feature %s: %s%s%s", f->key, f->ok ? "yes" : "no (", f->ok ? "" : f->why,
		 f->ok ? "" : ")");
	return f;
}
