// SPDX-License-Identifier: GPL-2.0
/*
 * opensnoop: the open, openat and openat2 syscall tracepoints. The entry records what was
 * asked (path pointer, flags, mode, directory fd) per thread; the return reads the path, now
 * certainly paged in since the kernel has copied it, and sends one event. Filters run at the
 * entry, so a filtered-out open costs one tracepoint hit and no map update.
 *
 * With -F, the *_full return programs also resolve a relative path's directory in the kernel,
 * as BCC's -F does, but against the directory the path is really relative to: the directory
 * fd of openat/openat2 when there is one (BCC always takes the working directory), and up to
 * the task's root (a chrooted task sees its own paths), not the global one. Two forms: through
 * BTF pointers (*_full, 6.2+, allowed under lockdown) and through bpf_probe_read_kernel()
 * (*_fullr, 5.17+, refused by lockdown=confidentiality); user space loads one of them.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "bt_common.bpf.h"
#include "bt_events.bpf.h"
#include "bt_inflight.bpf.h"
#include "opensnoop.h"

#define AT_FDCWD -100
#define O_CREAT 0100
#define O_TMPFILE_MASK 020200000 /* __O_TMPFILE | O_DIRECTORY */

const volatile bool failed_only = false; /* -x */
const volatile __u32 flag_mask = 0;	 /* -f: any of these flags ... */
const volatile bool flag_rdonly = false; /* ... or -f O_RDONLY: opened read-only */

struct start {
	__u64 fname;
	__u32 flags;
	__u32 mode;
	__s32 dfd;
};

/* Opens in flight, by thread: in-flight table 0 (cmd/opensnoop.c). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 10240);
	__type(key, __u32);
	__type(value, struct start);
} starts SEC(".maps");

/* An event is too big for the BPF stack: one per CPU, filled in place. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct opensnoop_event);
} scratch SEC(".maps");

BT_EVENT_MAP(events, 256 * 1024); /* -b sets the size before load */

static __always_inline int enter(__u64 fname, __s32 dfd, __u32 flags, __u32 mode)
{
	struct start s = { .fname = fname, .flags = flags, .dfd = dfd };
	__u32 tid;

	if (bt_filtered_out())
		return 0;
	if ((flag_mask || flag_rdonly) && !(flags & flag_mask) &&
	    !(flag_rdonly && (flags & 3) == 0))
		return 0;
	/* open(2): mode is only an argument with O_CREAT or O_TMPFILE; else it is stack junk */
	if ((flags & O_CREAT) || (flags & O_TMPFILE_MASK) == O_TMPFILE_MASK)
		s.mode = mode;
	tid = (__u32)bpf_get_current_pid_tgid();
	bt_inflight_put(&starts, 0, &tid, &s, BPF_ANY);
	return 0;
}

SEC("tracepoint/syscalls/sys_enter_open")
int enter_open(struct trace_event_raw_sys_enter *ctx)
{
	return enter(ctx->args[0], AT_FDCWD, ctx->args[1], ctx->args[2]);
}

SEC("tracepoint/syscalls/sys_enter_openat")
int enter_openat(struct trace_event_raw_sys_enter *ctx)
{
	return enter(ctx->args[1], ctx->args[0], ctx->args[2], ctx->args[3]);
}

SEC("tracepoint/syscalls/sys_enter_openat2")
int enter_openat2(struct trace_event_raw_sys_enter *ctx)
{
	struct open_how how = {};

	bpf_probe_read_user(&how, sizeof(how), (void *)ctx->args[2]);
	return enter(ctx->args[1], ctx->args[0], how.flags, how.mode);
}

/*
 * -F: one component name, up to NAME_MAX bytes. bpf_probe_read_kernel_str() is what anyone
 * would use, but lockdown=confidentiality refuses it to every BPF program; loads through
 * BTF-typed pointers are allowed. bpf_rdonly_cast() makes such a pointer of any address, but
 * only to a struct type, and the verifier lets a program read only inside the members of
 * that struct: linux_binprm's buf[256] is a byte array of exactly the size wanted. Reading
 * past the name's own allocation cannot fault (BTF loads are fault-safe) and the bytes after
 * its NUL are ignored by user space.
 */
#ifndef BT_NO_KFUNCS
extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym __weak;

static __always_inline void copy_name(char *dst, const unsigned char *name)
{
	struct linux_binprm *window;
	__u64 *out = (__u64 *)dst;
	int i;

	window = bpf_rdonly_cast((void *)name - bpf_core_field_offset(struct linux_binprm, buf),
				 bpf_core_type_id_kernel(struct linux_binprm));
#pragma unroll
	for (i = 0; i < OPENSNOOP_NAME_LEN / 8; i++)
		out[i] = *(__u64 *)&window->buf[i * 8];
}

/* The struct mount around a vfsmount (the kernel's real_mount()). */
static __always_inline struct mount *real_mount(struct vfsmount *vm)
{
	return bpf_rdonly_cast((void *)vm - bpf_core_field_offset(struct mount, mnt),
			       bpf_core_type_id_kernel(struct mount));
}

/* The directory fd of openat(dfd, ...): files->fdt->fd[dfd], NULL when not open. */
static __always_inline struct file *dir_file(struct task_struct *task, __s32 dfd)
{
	struct fdtable *fdt = task->files->fdt;
	struct kiocb *slot;

	if (dfd < 0 || (__u32)dfd >= fdt->max_fds)
		return NULL;
	/* fd is a struct file ** the verifier sees as a number: kiocb starts with a file * */
	slot = bpf_rdonly_cast((void *)fdt->fd + (__u64)dfd * sizeof(void *) -
				       bpf_core_field_offset(struct kiocb, ki_filp),
			       bpf_core_type_id_kernel(struct kiocb));
	return slot->ki_filp;
}

/* One step of the walk from a relative path's directory up to the task's root. */
struct walk {
	struct opensnoop_event *e;
	struct dentry *d, *root;
	struct vfsmount *vm, *root_mnt;
	struct mount *mnt;
	__u32 depth;
	__u32 done;
};

static long walk_step(__u64 i, void *ctx)
{
	struct walk *w = ctx;
	struct dentry *d = w->d;

	if (d == w->root && w->vm == w->root_mnt) {
		w->done = 1;
		return 1;
	}
	if (d == w->vm->mnt_root || d == d->d_parent) {
		struct mount *parent = w->mnt->mnt_parent;

		if (parent == w->mnt) { /* the real root, above a chroot's */
			w->done = 1;
			return 1;
		}
		w->d = w->mnt->mnt_mountpoint;
		w->mnt = parent;
		w->vm = &parent->mnt;
		return 0;
	}
	if (w->depth >= OPENSNOOP_MAX_DEPTH)
		return 1;
	copy_name(w->e->dirs[w->depth & (OPENSNOOP_MAX_DEPTH - 1)], d->d_name.name);
	w->depth++;
	w->d = d->d_parent;
	return 0;
}

/*
 * dirs[], innermost first. bpf_loop() (5.17; -F needs 6.2 anyway): as a plain loop every
 * depth is verified apart and the program passes the verifier's limit.
 */
static __always_inline void walk_dirs(struct opensnoop_event *e, __s32 dfd)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct walk w = {
		.e = e,
		.root = task->fs->root.dentry,
		.root_mnt = task->fs->root.mnt,
	};

	if (dfd == AT_FDCWD) {
		w.d = task->fs->pwd.dentry;
		w.vm = task->fs->pwd.mnt;
	} else {
		struct file *f = dir_file(task, dfd);

		if (!f) {
			e->truncated = 1;
			return;
		}
		w.d = f->f_path.dentry;
		w.vm = f->f_path.mnt;
	}
	w.mnt = real_mount(w.vm);
	bpf_loop(2 * OPENSNOOP_MAX_DEPTH, walk_step, &w, 0);
	e->depth = w.depth;
	e->truncated = !w.done;
}
#else
/*
 * The build for kernels without BTF (BT_NO_KFUNCS, lib/attach/bt_skel.h): such a kernel has
 * no kfuncs, and a kfunc's extern alone has libbpf load the kernel's own BTF, which --btf
 * cannot stand in for. The *_full programs keep their names for the skeleton but never load
 * there (BT_NEEDS_RDONLY_CAST): no walk.
 */
static __always_inline void walk_dirs(struct opensnoop_event *e, __s32 dfd)
{
	e->truncated = 1;
}
#endif

/* -F through bpf_probe_read_kernel(): the same walk, every pointer a plain number. */
struct walk_read {
	struct opensnoop_event *e;
	__u64 d, root, vm, root_mnt, mnt;
	__u32 depth;
	__u32 done;
};

static long walk_read_step(__u64 i, void *ctx)
{
	struct walk_read *w = ctx;
	struct dentry *d = (struct dentry *)w->d;
	struct vfsmount *vm = (struct vfsmount *)w->vm;
	struct mount *mnt = (struct mount *)w->mnt;
	/* plain locals: BPF_CORE_READ() would relocate w->vm's access too, against no BTF */
	__u64 parent_d = (__u64)BPF_CORE_READ(d, d_parent);
	__u64 mnt_root = (__u64)BPF_CORE_READ(vm, mnt_root);
	const unsigned char *name;

	if (w->d == w->root && w->vm == w->root_mnt) {
		w->done = 1;
		return 1;
	}
	if (w->d == mnt_root || w->d == parent_d) {
		__u64 parent = (__u64)BPF_CORE_READ(mnt, mnt_parent);

		if (!parent || parent == w->mnt) {
			w->done = parent != 0;
			return 1;
		}
		w->d = (__u64)BPF_CORE_READ(mnt, mnt_mountpoint);
		w->mnt = parent;
		w->vm = parent + bpf_core_field_offset(struct mount, mnt);
		return 0;
	}
	if (w->depth >= OPENSNOOP_MAX_DEPTH || !parent_d)
		return 1;
	name = BPF_CORE_READ(d, d_name.name);
	bpf_probe_read_kernel_str(w->e->dirs[w->depth & (OPENSNOOP_MAX_DEPTH - 1)],
				  OPENSNOOP_NAME_LEN, name);
	w->depth++;
	w->d = parent_d;
	return 0;
}

static __always_inline void walk_dirs_read(struct opensnoop_event *e, __s32 dfd)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct walk_read w = {
		.e = e,
		.root = (__u64)BPF_CORE_READ(task, fs, root.dentry),
		.root_mnt = (__u64)BPF_CORE_READ(task, fs, root.mnt),
	};

	if (dfd == AT_FDCWD) {
		w.d = (__u64)BPF_CORE_READ(task, fs, pwd.dentry);
		w.vm = (__u64)BPF_CORE_READ(task, fs, pwd.mnt);
	} else {
		struct fdtable *fdt = BPF_CORE_READ(task, files, fdt);
		struct file **fds = BPF_CORE_READ(fdt, fd);
		struct file *f = NULL;

		if (dfd >= 0 && (__u32)dfd < BPF_CORE_READ(fdt, max_fds))
			bpf_probe_read_kernel(&f, sizeof(f), &fds[dfd]);
		if (!f) {
			e->truncated = 1;
			return;
		}
		w.d = (__u64)BPF_CORE_READ(f, f_path.dentry);
		w.vm = (__u64)BPF_CORE_READ(f, f_path.mnt);
	}
	w.mnt = w.vm - bpf_core_field_offset(struct mount, mnt);
	bpf_loop(2 * OPENSNOOP_MAX_DEPTH, walk_read_step, &w, 0);
	e->depth = w.depth;
	e->truncated = !w.done;
}

enum full_path {
	FULL_NONE,
	FULL_BTF,  /* walk_dirs() */
	FULL_READ, /* walk_dirs_read() */
};

static __always_inline int leave(void *ctx, long ret, enum full_path full)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)id, zero = 0;
	struct opensnoop_event *e;
	struct start *s;
	long len;
	__u64 size;

	s = bpf_map_lookup_elem(&starts, &tid);
	if (!s)
		return 0;
	if (failed_only && ret >= 0)
		goto cleanup;
	e = bpf_map_lookup_elem(&scratch, &zero);
	if (!e)
		goto cleanup;
	e->ts_ns = bpf_ktime_get_ns();
	e->pid = id >> 32;
	e->tid = tid;
	e->uid = (__u32)bpf_get_current_uid_gid();
	e->ret = ret;
	e->flags = s->flags;
	e->mode = s->mode;
	e->depth = 0;
	e->truncated = 0;
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	len = bpf_probe_read_user_str(e->path, sizeof(e->path), (void *)s->fname);
	if (len <= 0) {
		e->path[0] = '\0';
		len = 1;
	}
	e->path_len = len;
	size = offsetof(struct opensnoop_event, path) + (len & (OPENSNOOP_PATH_MAX - 1));
	if (full != FULL_NONE && e->path[0] != '/') {
		if (full == FULL_BTF)
			walk_dirs(e, s->dfd);
		else
			walk_dirs_read(e, s->dfd);
		size = sizeof(*e);
	}
	bt_event_output(ctx, &events, e, size);
cleanup:
	bpf_map_delete_elem(&starts, &tid);
	return 0;
}

/* Each return in three forms, of which cmd/opensnoop.c's tables load one (off until then). */
SEC("?tracepoint/syscalls/sys_exit_open")
int exit_open(struct trace_event_raw_sys_exit *ctx)
{
	return leave(ctx, ctx->ret, FULL_NONE);
}

SEC("?tracepoint/syscalls/sys_exit_openat")
int exit_openat(struct trace_event_raw_sys_exit *ctx)
{
	return leave(ctx, ctx->ret, FULL_NONE);
}

SEC("?tracepoint/syscalls/sys_exit_openat2")
int exit_openat2(struct trace_event_raw_sys_exit *ctx)
{
	return leave(ctx, ctx->ret, FULL_NONE);
}

/* -F: separate programs, so that without -F a kernel lacking bpf_rdonly_cast() (< 6.2) is fine */
SEC("?tracepoint/syscalls/sys_exit_open")
int exit_open_full(struct trace_event_raw_sys_exit *ctx)
{
	return leave(ctx, ctx->ret, FULL_BTF);
}

SEC("?tracepoint/syscalls/sys_exit_openat")
int exit_openat_full(struct trace_event_raw_sys_exit *ctx)
{
	return leave(ctx, ctx->ret, FULL_BTF);
}

SEC("?tracepoint/syscalls/sys_exit_openat2")
int exit_openat2_full(struct trace_event_raw_sys_exit *ctx)
{
	return leave(ctx, ctx->ret, FULL_BTF);
}

/* -F where lockdown allows kernel reads but bpf_rdonly_cast() is missing (5.17 to 6.1) */
SEC("?tracepoint/syscalls/sys_exit_open")
int exit_open_fullr(struct trace_event_raw_sys_exit *ctx)
{
	return leave(ctx, ctx->ret, FULL_READ);
}

SEC("?tracepoint/syscalls/sys_exit_openat")
int exit_openat_fullr(struct trace_event_raw_sys_exit *ctx)
{
	return leave(ctx, ctx->ret, FULL_READ);
}

SEC("?tracepoint/syscalls/sys_exit_openat2")
int exit_openat2_fullr(struct trace_event_raw_sys_exit *ctx)
{
	return leave(ctx, ctx->ret, FULL_READ);
}

char LICENSE[] SEC("license") = "GPL";
