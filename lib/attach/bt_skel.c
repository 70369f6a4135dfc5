// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <gelf.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>

#include "bt_argp.h"
#include "bt_attach_internal.h"
#include "bt_btf_ids.h"
#include "bt_env.h"
#include "bt_err.h"
#include "bt_features.h"
#include "bt_kernel.h"
#include "bt_loop.h"
#include "bt_rodata.h"
#include "bt_skel.h"
#include "bt_variant.h"
#include "bt_vmlinux_btf.h"

/*
 * What the kernel's BTF says of the probe point: its typedef btf_trace_NAME or function and the
 * types their prototype names, and nothing else (lib/kernel/bt_btf_ids: no parse of the whole BTF,
 * cached per kernel). *owned: the caller frees it. NULL when the kernel has no BTF.
 */
static struct btf *point_btf(const struct bt_point *pt, bool *owned)
{
	bool func = pt->kind == BT_POINT_KPROBE || pt->kind == BT_POINT_FENTRY;
	struct btf *btf = NULL;
	char name[192];
	int id;

	*owned = true;
	if (!bt_kernel_has_btf())
		return NULL;
	snprintf(name, sizeof(name), "%s%s", func ? "" : "btf_trace_", pt->name);
	id = bt_btf_id(name, func ? BTF_KIND_FUNC : BTF_KIND_TYPEDEF, &btf);
	if (id > 0)
		return btf;
	if (id == -ENOENT)
		return btf__new_empty(); /* for bt_sig_match() to say there is no such point */
	*owned = false;
	return bt_vmlinux_btf(); /* a layout the scan refuses */
}

/* Whether the kernel can take this program, declared for the probe point signature sig. */
static int prog_fits(struct bpf_program *prog, const char *sig, char *why, size_t whysize)
{
	const struct bt_feature *f;
	struct bt_point pt;
	struct btf *btf;
	char path[512];
	bool owned, fits;

	bt_point_parse(bpf_program__section_name(prog), &pt);
	if (pt.kind == BT_POINT_OTHER)
		return 1;
	/*
	 * With no signature, only functions must exist in BTF: a tracepoint of a module has its
	 * btf_trace_ typedef in the module's BTF, not in vmlinux. Without any BTF a signature
	 * cannot be checked, and the first form whose probe point exists is taken.
	 */
	if (sig || pt.kind == BT_POINT_FENTRY) {
		btf = point_btf(&pt, &owned);
		fits = !btf || bt_sig_match(btf, &pt, sig, why, whysize) > 0;
		if (owned)
			btf__free(btf);
		if (!fits)
			return 0;
	}
	switch (pt.kind) {
	case BT_POINT_TP_BTF:
		if (!bt_kernel_tp_btf_ok(pt.name)) {
			snprintf(why, whysize, "tp_btf not available");
			return 0;
		}
		return 1;
	case BT_POINT_TRACEPOINT:
		snprintf(path, sizeof(path), "%s/events/%s/%s/id", bt_tracefs(), pt.category,
			 pt.name);
		/* AT_EACCESS: as the tool's own open will be, with its capabilities */
		if (faccessat(AT_FDCWD, path, R_OK, AT_EACCESS)) {
			snprintf(why, whysize, "no tracepoint %s:%s", pt.category, pt.name);
			/* not "this kernel has none": it has, they cannot be read */
			return errno == EACCES || errno == EPERM ? -EACCES : 0;
		}
		return 1;
	case BT_POINT_KPROBE:
		f = bt_feature(BT_FEAT_KPROBES);
		if (!f->ok) {
			snprintf(why, whysize, "%s", f->why);
			return 0;
		}
		if (bt_kfuncs_why_not(pt.name)) {
			snprintf(why, whysize, "%s", bt_kfuncs_why_not(pt.name));
			return 0;
		}
		return 1;
	case BT_POINT_FENTRY:
		f = bt_feature(BT_FEAT_FENTRY);
		if (!f->ok) {
			snprintf(why, whysize, "%s", f->why);
			return 0;
		}
		return bt_kernel_has_btf();
	default:
		return 1;
	}
}

bool bt_prog_usable(const struct bpf_program *prog)
{
	char why[192];

	return prog_fits((struct bpf_program *)prog, NULL, why, sizeof(why)) > 0;
}

/* BPFTOOLS_SKIP_PROGS=a,b: the tests' way to take the variants other kernels get. */
static bool skipped(const char *name)
{
	const char *list = getenv("BPFTOOLS_SKIP_PROGS"), *p;
	size_t n = strlen(name);

	for (p = list; p && *p; p += strcspn(p, ","), p += *p == ',')
		if (!strncmp(p, name, n) && (p[n] == ',' || !p[n]))
			return true;
	return false;
}

static int fits_by_name(void *ctx, const char *name, const char *sig, char *why, size_t whysize)
{
	struct bpf_program *prog = bpf_object__find_program_by_name(ctx, name);

	if (skipped(name)) {
		snprintf(why, whysize, "skipped (BPFTOOLS_SKIP_PROGS)");
		return 0;
	}

	return prog ? prog_fits(prog, sig, why, whysize) : 0;
}

/* Whether the kernel gives a program of this type one need (enum bt_probe_needs). */
static bool need_met(enum bpf_prog_type type, unsigned int need, char *why, size_t whysize)
{
	static signed char loop[64]; /* by program type: 0 not asked yet, 1 yes, -1 no */
	const char *lockdown;

	switch (need) {
	case BT_NEEDS_LOOP:
		/* a trial load: once per program type and run */
		if ((unsigned int)type >= sizeof(loop))
			return bt_kernel_has_helper(type, BPF_FUNC_loop);
		if (!loop[type])
			loop[type] = bt_kernel_has_helper(type, BPF_FUNC_loop) ? 1 : -1;
		return loop[type] > 0;
	case BT_NEEDS_RDONLY_CAST:
		return bt_kernel_has_kfunc("bpf_rdonly_cast");
	case BT_NEEDS_KERNEL_READS:
		lockdown = bt_lockdown();
		if (lockdown && !strcmp(lockdown, "confidentiality")) {
			snprintf(why, whysize, "which lockdown=confidentiality refuses");
			return false;
		}
		return true;
	default:
		return false;
	}
}

static bool has_need(void *ctx, const char *name, unsigned int need, char *why, size_t whysize)
{
	struct bpf_program *prog = bpf_object__find_program_by_name(ctx, name);

	return prog && need_met(bpf_program__type(prog), need, why, whysize);
}

static const char *section_by_name(void *ctx, const char *name)
{
	struct bpf_program *prog = bpf_object__find_program_by_name(ctx, name);

	return prog ? bpf_program__section_name(prog) : NULL;
}

static struct bpf_program *find_prog(struct bpf_object *obj, const char *name)
{
	struct bpf_program *prog = bpf_object__find_program_by_name(obj, name);

	if (!prog)
		bt_err("internal error: no BPF program '%s'", name);
	return prog;
}

/*
 * BPFTOOLS_VERIFIER_STATS=1 (with BPFTOOLS_DEBUG=1): the verifier's figures per program
 * loaded (time, instructions walked, states), which libbpf prints when a program that asked
 * for a log loads. What start-up spends in the kernel is mostly there (docs/performance.md).
 */
static void verifier_stats(struct bpf_object *obj)
{
	struct bpf_program *prog;

	if (!bt_env_flag("BPFTOOLS_VERIFIER_STATS"))
		return;
	bpf_object__for_each_program(prog, obj)
	{
		bpf_program__set_log_level(prog, 4); /* BPF_LOG_STATS */
	}
}

int bt_skel_opened(const void *skel)
{
	int err = errno ? -errno : -ENOMEM; /* what libbpf's open left */

	if (skel)
		return 0;
	bt_err("cannot open the BPF object: %s", strerror(-err));
	return err;
}

void *bt_skel_open_bytes(void *skel, int err, struct bpf_object_skeleton **s,
			 const void *(*elf_bytes)(size_t *size),
			 const struct bpf_object_open_opts *opts)
{
	if (!skel) {
		errno = ENOMEM;
		return NULL;
	}
	if (!err) {
		(*s)->data = (void *)elf_bytes(&(*s)->data_sz);
		err = bpf_object__open_skeleton(*s, opts);
	}
	if (!err)
		return skel;
	bpf_object__destroy_skeleton(*s); /* what NAME_bpf__destroy() does */
	free(skel);
	errno = -err;
	return NULL;
}

void bt_skel_destroy(void *skel, struct bpf_object_skeleton *s)
{
	if (skel && s)
		bpf_object__destroy_skeleton(s);
	free(skel);
}

unsigned long long bt_skel_recursion_misses(struct bpf_object *obj)
{
	unsigned long long misses = 0;
	struct bpf_program *prog;

	bpf_object__for_each_program(prog, obj)
	{
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);
		int fd = bpf_program__fd(prog);

		if (fd >= 0 && !bpf_obj_get_info_by_fd(fd, &info, &len))
			misses += info.recursion_misses;
	}
	return misses;
}

int bt_skel_select(struct bpf_object *obj, const struct bt_probe *probes)
{
	const struct bt_probe_ops ops = {
		.fits = fits_by_name,
		.has = has_need,
		.section = section_by_name,
		.ctx = obj,
	};
	size_t i, n = bt_probes_count(probes);
	struct bpf_program *prog;
	const char **chosen;
	char msg[512];
	int err = 0;

	verifier_stats(obj);
	/* every program named exists, before the kernel is asked of any */
	for (i = 0; i < n; i++)
		if (!find_prog(obj, probes[i].prog) ||
		    (probes[i].fallback && !find_prog(obj, probes[i].fallback)))
			return -ENOENT;
	chosen = calloc(n + 1, sizeof(*chosen));
	if (!chosen)
		return -ENOMEM;
	err = bt_probes_select(probes, &ops, chosen, msg, sizeof(msg));
	if (err == -EACCES && !msg[0]) {
		err = bt_tracefs_denied() ?: -EACCES;
		goto cleanup;
	}
	if (err) {
		if (msg[0])
			bt_err("%s", msg);
		goto cleanup;
	}
	/* Only the chosen program of each group loads; programs not named keep their setting. */
	for (i = 0; i < n; i++) {
		bpf_program__set_autoload(bpf_object__find_program_by_name(obj, probes[i].prog),
					  false);
		if (probes[i].fallback)
			bpf_program__set_autoload(
				bpf_object__find_program_by_name(obj, probes[i].fallback), false);
	}
	for (i = 0; i < n; i++) {
		prog = chosen[i] ? bpf_object__find_program_by_name(obj, chosen[i]) : NULL;
		if (prog)
			bpf_program__set_autoload(prog, true);
	}
	bt_vmlinux_btf_release();
cleanup:
	free(chosen);
	return err;
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

/* Like set_filter(), for any value: the caller has decided the filter is wanted. */
static int set_var(struct bpf_object *obj, const char *var, const void *val, size_t size)
{
	int err = bt_rodata_set(obj, var, val, size);

	if (err == -ENOENT) {
		bt_err("internal error: the BPF programs have no '%s' filter", var);
		return -EOPNOTSUPP;
	}
	return err;
}

static bool is_cgroup2(const char *path)
{
	struct statfs sf;

	return statfs(path, &sf) == 0 && sf.f_type == CGROUP2_SUPER_MAGIC;
}

/* A cgroup v2 directory's file handle is its 64-bit id (kernfs node id). */
static int handle_id(const char *path, uint64_t *id)
{
	union {
		struct file_handle fh;
		char buf[sizeof(struct file_handle) + sizeof(uint64_t)];
	} h = { .fh.handle_bytes = sizeof(uint64_t) };
	int mount_id;

	if (name_to_handle_at(AT_FDCWD, path, &h.fh, &mount_id, 0))
		return -errno;
	if (h.fh.handle_bytes != sizeof(uint64_t))
		return -EINVAL;
	memcpy(id, h.fh.f_handle, sizeof(*id));
	return 0;
}

int bt_cgroup_id(const char *path, uint64_t *id, unsigned int *level)
{
	char *real = realpath(path, NULL), *slash;
	unsigned int depth = 0;
	uint64_t up;
	struct stat st;
	int err;

	if (!real)
		return -errno;
	err = stat(real, &st) ? -errno : 0;
	if (!err && (!S_ISDIR(st.st_mode) || !is_cgroup2(real)))
		err = -ENOTDIR;
	if (!err)
		err = handle_id(real, id);
	if (err)
		goto cleanup;
	/* The root cgroup is id 1; its depth is what bpf_get_current_ancestor_cgroup_id wants. */
	*level = BT_CGROUP_LEVEL_UNKNOWN;
	for (up = *id;; depth++) {
		if (up == 1) {
			*level = depth;
			break;
		}
		slash = strrchr(real, '/');
		if (!slash || slash == real)
			break;
		*slash = '\0';
		if (!is_cgroup2(real) || handle_id(real, &up))
			break; /* past the mount's root, which is not the root cgroup */
	}
cleanup:
	free(real);
	return err;
}

static int apply_cgroup(struct bpf_object *obj, const char *path)
{
	unsigned int level;
	uint64_t id;
	int err;

	err = bt_cgroup_id(path, &id, &level);
	if (err == -ENOENT || err == -ENOTDIR)
		return bt_usage_err("cannot filter by cgroup '%s': %s", path,
				    err == -ENOTDIR ? "not a cgroup v2 directory" : strerror(-err));
	if (err) {
		bt_err("cannot filter by cgroup '%s': %s", path, strerror(-err));
		return err;
	}
	bt_debug("cgroup '%s': id %llu, level %d", path, (unsigned long long)id,
		 level == BT_CGROUP_LEVEL_UNKNOWN ? -1 : (int)level);
	err = set_var(obj, "bt_filter_cgroup_id", &id, sizeof(id));
	if (!err)
		err = set_var(obj, "bt_filter_cgroup_level", &level, sizeof(level));
	return err;
}

/* BCC's --cgroupmap / --mntnsmap: a pinned hash of 64-bit ids takes the place of map. */
static int apply_pinned(struct bpf_object *obj, const char *map_name, const char *flag,
			const char *opt, const char *path)
{
	struct bpf_map *map = bpf_object__find_map_by_name(obj, map_name);
	struct bpf_map_info info = { 0 };
	__u32 len = sizeof(info);
	struct statfs sf;
	bool on = true;
	int fd, err;

	if (!map) {
		bt_err("internal error: the BPF programs have no '%s' map", map_name);
		return -EOPNOTSUPP;
	}
	if (statfs(path, &sf) == 0 && sf.f_type != BPF_FS_MAGIC)
		return bt_usage_err("%s '%s': not a pinned BPF map (not on a BPF file system)", opt,
				    path);
	fd = bpf_obj_get(path);
	if (fd < 0) {
		err = -errno;
		if (err == -ENOENT || err == -ENOTDIR || err == -EINVAL)
			return bt_usage_err("%s '%s': %s", opt, path,
					    err == -EINVAL ? "not a pinned BPF object"
							   : strerror(-err));
		bt_err("%s '%s': %s", opt, path, strerror(-err));
		return err;
	}
	err = bpf_obj_get_info_by_fd(fd, &info, &len) ? -errno : 0;
	if (!err && (info.type != BPF_MAP_TYPE_HASH || info.key_size != sizeof(__u64))) {
		err = bt_usage_err("%s '%s': not a BPF hash map with 8-byte keys", opt, path);
		goto cleanup;
	}
	if (!err)
		err = bpf_map__reuse_fd(map, fd);
	if (err) {
		bt_err("%s '%s': %s", opt, path, strerror(-err));
		goto cleanup;
	}
	err = set_var(obj, flag, &on, sizeof(on));
cleanup:
	close(fd);
	return err;
}

static int apply_comm(struct bpf_object *obj, const char *comm, bool exact)
{
	char buf[16] = { 0 };
	__u32 len = strlen(comm);
	int err;

	if (len == 0 || len >= sizeof(buf))
		return bt_usage_err("invalid process name '%s': expected 1 to 15 characters", comm);
	memcpy(buf, comm, len);
	err = set_var(obj, "bt_filter_comm", buf, sizeof(buf));
	if (!err)
		err = set_var(obj, "bt_filter_comm_len", &len, sizeof(len));
	if (!err && exact)
		err = set_var(obj, "bt_filter_comm_exact", &exact, sizeof(exact));
	return err;
}

/*
 * Our pid as the kernel's filters see it (bpf_get_current_pid_tgid(): the initial PID
 * namespace), or 0. In a container's own PID namespace getpid() is another number, maybe some
 * other process's pid outside: left out, that process would vanish from the output.
 */
static int self_tgid(void)
{
	struct stat st;

	/* the initial PID namespace's inode number is fixed (PROC_PID_INIT_INO) */
	if (stat("/proc/self/ns/pid", &st) || st.st_ino != 0xeffffffcU) {
		bt_debug("in another PID namespace: our own events are traced too");
		return 0;
	}
	return getpid();
}

int bt_filters_apply(struct bpf_object *obj, const struct bt_filters *f)
{
	int err;

	/* every tool's -p/-t: a PID that does not exist would trace nothing, silently */
	err = bt_check_pid(f->tgid);
	if (!err)
		err = bt_check_tid(f->tid);
	if (!err)
		err = set_filter(obj, "bt_filter_cpu", f->cpu, -1);
	if (!err)
		err = set_filter(obj, "bt_filter_tgid", f->tgid, 0);
	if (!err)
		err = set_filter(obj, "bt_filter_tid", f->tid, 0);
	if (!err && f->not_self && !f->tgid && !f->tid)
		err = set_filter(obj, "bt_filter_not_tgid", self_tgid(), 0);
	if (!err && f->by_uid) {
		err = set_var(obj, "bt_filter_by_uid", &f->by_uid, sizeof(f->by_uid));
		if (!err)
			err = set_var(obj, "bt_filter_uid", &f->uid, sizeof(f->uid));
	}
	if (!err && f->comm)
		err = apply_comm(obj, f->comm, f->comm_exact);
	if (!err && f->cgroup)
		err = apply_cgroup(obj, f->cgroup);
	if (!err && f->cgroupmap)
		err = apply_pinned(obj, "bt_cgroupmap", "bt_filter_cgroupmap", "--cgroupmap",
				   f->cgroupmap);
	if (!err && f->mntnsmap)
		err = apply_pinned(obj, "bt_mntnsmap", "bt_filter_mntnsmap", "--mntnsmap",
				   f->mntnsmap);
	return err;
}

static void *destroy_link(void *link)
{
	bpf_link__destroy(link);
	return NULL;
}

/*
 * Whether tracing programs may use hash maps that allocate entries as keys appear: since 6.1 (the
 * BPF memory allocator). Before, 5.10 to 6.0 load them with a WARNING and a stack trace in the
 * kernel log, and refuse them for perf_event programs and on PREEMPT_RT. Trying it would be that
 * WARNING, so the probe is a helper of the same release, bpf_ktime_get_tai_ns().
 */
static bool runtime_alloc_ok(void)
{
	static int ok = -1;

	if (ok < 0)
		ok = libbpf_probe_bpf_helper(BPF_PROG_TYPE_TRACEPOINT, BPF_FUNC_ktime_get_tai_ns,
					     NULL) == 1;
	return ok;
}

/* Maps a command asked to allocate as keys appear are preallocated where that is unsafe. */
static void prealloc_where_needed(struct bpf_object *obj)
{
	struct bpf_map *m;

	bpf_object__for_each_map(m, obj)
	{
		enum bpf_map_type type = bpf_map__type(m);
		__u32 flags = bpf_map__map_flags(m);

		if ((type != BPF_MAP_TYPE_HASH && type != BPF_MAP_TYPE_PERCPU_HASH) ||
		    !(flags & BPF_F_NO_PREALLOC) || runtime_alloc_ok())
			continue;
		bpf_map__set_map_flags(m, flags & ~BPF_F_NO_PREALLOC);
		bt_debug("map %s preallocated: this kernel (before 6.1) lets tracing programs "
			 "allocate map entries only with a WARNING",
			 bpf_map__name(m));
	}
}

/*
 * Whether the kernel has atomic operations that return the old value (BPF_FETCH, 5.12+): a
 * five-instruction program adding to its stack with one is loaded or refused ("BPF_STX uses
 * reserved fields" on 5.10).
 */
static bool fetch_atomics_ok(void)
{
	static const struct bpf_insn prog[] = {
		{ .code = BPF_ST | BPF_MEM | BPF_DW, .dst_reg = BPF_REG_10, .off = -8 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_1, .imm = 1 },
		{ .code = BPF_STX | BPF_ATOMIC | BPF_DW,
		  .dst_reg = BPF_REG_10,
		  .src_reg = BPF_REG_1,
		  .off = -8,
		  .imm = BPF_ADD | BPF_FETCH },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	static int ok = -1;
	int fd;

	if (ok < 0) {
		fd = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, NULL, "GPL", prog,
				   sizeof(prog) / sizeof(prog[0]), NULL);
		/* only the verifier's EINVAL says no: an EPERM would refuse the tool's load too */
		ok = fd >= 0 || errno != EINVAL;
		if (fd >= 0)
			close(fd);
	}
	return ok;
}

/*
 * Without fetch atomics, 5.10's verifier refuses a program holding one before it looks at which
 * code runs ("BPF_STX uses reserved fields"): probes/bt_stack.bpf.h keeps them in an arm that
 * bt_fetch_atomics, cleared here, rules out, and each is made a call of helper 0 (never run;
 * one that were reached would be refused by name, "unknown func"). Only the programs' own
 * instructions: subprograms are out of reach before load and must not use them.
 */
static int blank_fetch_atomics(struct bpf_object *obj)
{
	struct bpf_program *prog;
	struct bpf_insn *insns;
	bool no = false;
	size_t i, n, found;
	int err = 0;

	if (bt_rodata_set(obj, "bt_fetch_atomics", &no, sizeof(no)))
		return 0;
	bpf_object__for_each_program(prog, obj)
	{
		n = bpf_program__insn_cnt(prog);
		insns = malloc(n * sizeof(*insns));
		if (!insns)
			return -ENOMEM;
		memcpy(insns, bpf_program__insns(prog), n * sizeof(*insns));
		for (i = found = 0; i < n; i++) {
			if (BPF_CLASS(insns[i].code) != BPF_STX ||
			    BPF_MODE(insns[i].code) != BPF_ATOMIC || insns[i].imm == BPF_ADD)
				continue;
			insns[i] = (struct bpf_insn){ .code = BPF_JMP | BPF_CALL };
			found++;
		}
		if (found)
			err = bpf_program__set_insns(prog, insns, n);
		free(insns);
		if (err)
			return err;
		if (found)
			bt_debug("%s: %zu fetch atomics blanked (kernel before 5.12)",
				 bpf_program__name(prog), found);
	}
	return 0;
}

/*
 * Subprograms only a feature switched off before load calls: by the .rodata switch, and the
 * prefix of their names. The walker (probes/bt_unwind.bpf.h) is the one: 5.10 refuses its
 * bpf_loop() callback's address (BPF_PSEUDO_FUNC, 5.13) and its fetch atomics wherever they
 * are, dead code included, and checks its global functions on their own, called or not.
 *
 * The calls are dropped here rather than the walker compiled out of a second object chosen at
 * open, or made a program of its own reached by tail call: one object and one load path for
 * every kernel, and where the walker runs (every kernel that can) not one instruction changes.
 * A dropped call leaves libbpf nothing to link (it appends only the subprograms a program still
 * calls), so where the walker is off a kernel that checks every global function, called or
 * not (before 6.8 by the kernel's history: 5.10, 6.1), also skips the walker's; 6.18 checks
 * only those called, and walks as many instructions either way.
 */
static const struct {
	const char *var;
	const char *prefix;
} guarded_calls[] = {
	{ "bt_unwind_on", "bt_unwind_" },
};

struct elf_syms {
	Elf *elf;
	Elf_Data *data;
	size_t n, strtab;
};

/*
 * The function a call goes to, by its relocation's symbol: the function's own (a global one),
 * or its section's, the call's immediate then counting from the section's start (a static one).
 */
static const char *callee_name(const struct elf_syms *syms, const GElf_Sym *sym,
			       const struct bpf_insn *call)
{
	GElf_Sym f;
	GElf_Addr at;
	size_t i;

	if (GELF_ST_TYPE(sym->st_info) != STT_SECTION)
		return elf_strptr(syms->elf, syms->strtab, sym->st_name);
	at = sym->st_value + ((GElf_Sxword)call->imm + 1) * sizeof(*call);
	for (i = 0; i < syms->n; i++)
		if (gelf_getsym(syms->data, (int)i, &f) && GELF_ST_TYPE(f.st_info) == STT_FUNC &&
		    f.st_shndx == sym->st_shndx && f.st_value == at)
			return elf_strptr(syms->elf, syms->strtab, f.st_name);
	return NULL;
}

/* The index of prog's section, and where prog starts in it in instructions; 0: not found. */
static size_t prog_section(const struct elf_syms *syms, size_t shstrndx,
			   const struct bpf_program *prog, size_t *start)
{
	const char *name = bpf_program__section_name(prog), *sn;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Sym f;
	size_t i, idx;

	while ((scn = elf_nextscn(syms->elf, scn))) {
		sn = gelf_getshdr(scn, &sh) ? elf_strptr(syms->elf, shstrndx, sh.sh_name) : NULL;
		/* libbpf names a program's section without the '?' of "not loaded unless chosen" */
		if (sn && *sn == '?')
			sn++;
		if (!sn || strcmp(sn, name))
			continue;
		idx = elf_ndxscn(scn);
		for (i = 0; i < syms->n; i++) {
			if (!gelf_getsym(syms->data, (int)i, &f) || f.st_shndx != idx ||
			    GELF_ST_TYPE(f.st_info) != STT_FUNC)
				continue;
			sn = elf_strptr(syms->elf, syms->strtab, f.st_name);
			if (sn && !strcmp(sn, bpf_program__name(prog))) {
				*start = f.st_value / sizeof(struct bpf_insn);
				return idx;
			}
		}
	}
	return 0;
}

/* Make prog's calls to functions named prefix* calls of helper 0 (see blank_fetch_atomics). */
static int drop_calls(const struct elf_syms *syms, size_t shstrndx, struct bpf_program *prog,
		      const char *prefix)
{
	size_t n = bpf_program__insn_cnt(prog), start = 0, sec, i, at, found = 0;
	struct bpf_insn *insns = NULL;
	Elf_Scn *scn = NULL;
	const char *name;
	Elf_Data *rels;
	GElf_Shdr sh;
	GElf_Rel rel;
	GElf_Sym sym;
	int err = 0;

	sec = prog_section(syms, shstrndx, prog, &start);
	if (!sec)
		return 0;
	while ((scn = elf_nextscn(syms->elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_REL || sh.sh_info != sec)
			continue;
		rels = elf_getdata(scn, NULL);
		for (i = 0; rels && i < sh.sh_size / sh.sh_entsize; i++) {
			if (!gelf_getrel(rels, (int)i, &rel))
				continue;
			at = rel.r_offset / sizeof(struct bpf_insn);
			if (at < start || at - start >= n)
				continue;
			if (!insns) {
				insns = malloc(n * sizeof(*insns));
				if (!insns) {
					err = -ENOMEM;
					goto cleanup;
				}
				memcpy(insns, bpf_program__insns(prog), n * sizeof(*insns));
			}
			at -= start;
			if (insns[at].code != (BPF_JMP | BPF_CALL) ||
			    insns[at].src_reg != BPF_PSEUDO_CALL ||
			    !gelf_getsym(syms->data, (int)GELF_R_SYM(rel.r_info), &sym))
				continue;
			name = callee_name(syms, &sym, &insns[at]);
			if (!name || strncmp(name, prefix, strlen(prefix)))
				continue;
			insns[at] = (struct bpf_insn){ .code = BPF_JMP | BPF_CALL };
			found++;
		}
	}
	if (found)
		err = bpf_program__set_insns(prog, insns, n);
	if (found && !err)
		bt_debug("%s: %zu calls of %s* dropped", bpf_program__name(prog), found, prefix);
cleanup:
	free(insns);
	return err;
}

int bt_skel_drop_calls(struct bpf_object_skeleton *s)
{
	struct elf_syms syms = { 0 };
	struct bpf_program *prog;
	size_t shstrndx, i;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	bool on;
	int err = 0;

	for (i = 0; i < sizeof(guarded_calls) / sizeof(guarded_calls[0]); i++) {
		if (bt_rodata_get(*s->obj, guarded_calls[i].var, &on, sizeof(on)) || on)
			continue;
		if (!syms.elf) {
			elf_version(EV_CURRENT);
			syms.elf = elf_memory((char *)s->data, s->data_sz);
			if (!syms.elf || elf_getshdrstrndx(syms.elf, &shstrndx))
				goto bad;
			while ((scn = elf_nextscn(syms.elf, scn)))
				if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB)
					break;
			if (!scn || !sh.sh_entsize)
				goto bad;
			syms.data = elf_getdata(scn, NULL);
			syms.n = sh.sh_size / sh.sh_entsize;
			syms.strtab = sh.sh_link;
			if (!syms.data)
				goto bad;
		}
		bpf_object__for_each_program(prog, *s->obj)
		{
			if (!bpf_program__autoload(prog))
				continue;
			err = drop_calls(&syms, shstrndx, prog, guarded_calls[i].prefix);
			if (err)
				goto cleanup;
		}
	}
	goto cleanup;
bad:
	/* the calls stay: a kernel that takes the walker loads the programs all the same */
	bt_debug("cannot read the BPF object's ELF: %s", elf_errmsg(-1));
cleanup:
	if (syms.elf)
		elf_end(syms.elf);
	return err;
}

int bt_skel_load(struct bpf_object_skeleton *s)
{
	int err;

	prealloc_where_needed(*s->obj);
	err = bt_skel_drop_calls(s);
	if (err) {
		bt_err("cannot prepare the BPF programs: %s", strerror(-err));
		return err;
	}
	if (!fetch_atomics_ok()) {
		err = blank_fetch_atomics(*s->obj);
		if (err) {
			bt_err("cannot prepare the BPF programs: %s", strerror(-err));
			return err;
		}
	}
	err = bpf_object__load_skeleton(s);
	if (err)
		bt_load_err(err);
	return err;
}

int bt_skel_load_attach(struct bpf_object_skeleton *s, const char *what)
{
	int err;

	/* a stop before tracing began (even one pending at exec): -EINTR, a quiet exit 0 */
	if (bt_stop_requested())
		return -EINTR;
	err = bt_skel_load(s);
	if (err)
		return err;
	if (bt_stop_requested())
		return -EINTR;
	err = bpf_object__attach_skeleton(s);
	if (err)
		bt_err("cannot attach to %s: %s", what, strerror(-err));
	return err;
}

int bt_skel_start(struct bpf_object_skeleton *s, const struct bt_filters *f,
		  const struct bt_probe *probes, const char *what)
{
	return bt_filters_apply(*s->obj, f) ?: bt_skel_select(*s->obj, probes)
						    ?: bt_skel_load_attach(s, what);
}

void bt_skel_detach(struct bpf_object_skeleton *s)
{
	pthread_t *threads;
	bool *started;
	int i;

	if (!s || s->prog_cnt <= 0)
		return;
	threads = calloc(s->prog_cnt, sizeof(*threads));
	started = calloc(s->prog_cnt, sizeof(*started));
	for (i = 0; threads && started && i < s->prog_cnt; i++) {
		struct bpf_prog_skeleton *p =
			(struct bpf_prog_skeleton *)((char *)s->progs +
						     (size_t)i * s->prog_skel_sz);
		struct bpf_link *link = p->link ? *p->link : NULL;

		if (!link)
			continue;
		/* no thread (out of resources): this one is closed here, in turn */
		if (pthread_create(&threads[i], NULL, destroy_link, link) == 0)
			started[i] = true;
		else
			bpf_link__destroy(link);
		*p->link = NULL;
	}
	for (i = 0; threads && started && i < s->prog_cnt; i++)
		if (started[i])
			pthread_join(threads[i], NULL);
	free(threads);
	free(started);
}
