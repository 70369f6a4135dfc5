/* SPDX-License-Identifier: GPL-2.0 */
/* The event probes/opensnoop.bpf.c sends and cmd/opensnoop.c prints, one per open. */
#ifndef BT_OPENSNOOP_H
#define BT_OPENSNOOP_H

#define OPENSNOOP_COMM_LEN 16
#define OPENSNOOP_PATH_MAX 4096 /* PATH_MAX: the path as the caller passed it */
/* -F: the working directory's components, innermost first, as BCC's -F walks them */
#define OPENSNOOP_NAME_LEN 256 /* NAME_MAX + 1 */
#define OPENSNOOP_MAX_DEPTH 32

struct opensnoop_event {
	__u64 ts_ns; /* bpf_ktime_get_ns() at the return */
	__u32 pid;
	__u32 tid;
	__u32 uid;
	__s32 ret; /* the fd, or -errno */
	__u32 flags;
	__u32 mode;
	__u32 path_len;	 /* bytes of path, NUL included */
	__u32 depth;	 /* -F, relative path: components in dirs[] */
	__u32 truncated; /* -F: the walk stopped before the root (too deep, or unreadable) */
	__u32 pad;
	char comm[OPENSNOOP_COMM_LEN];
	char path[OPENSNOOP_PATH_MAX];
	char dirs[OPENSNOOP_MAX_DEPTH][OPENSNOOP_NAME_LEN];
};

#endif
