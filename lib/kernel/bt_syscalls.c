// SPDX-License-Identifier: GPL-2.0
/*
 * Which number each syscalls:sys_enter_NAME tracepoint stands for. The kernel does not say
 * (the events' format files carry __syscall_nr as a field, not a value), so the numbers come
 * from the build's kernel headers (scripts/gen-syscall-names lists their __NR_ names; the
 * compiler evaluates them here), which may predate the running kernel, and from the table
 * below of the numbers every architecture shares since 5.1 (424 up; alpha differs). System
 * call numbers are ABI and never change, so a number known is right on every kernel; a name
 * not known here keeps its own tracepoint.
 */
#include <stddef.h>
#include <string.h>
#include <asm/unistd.h>

#include "bt_syscalls.h"

struct sc {
	const char *name;
	int nr;
};

#define BT_SYSCALL(n) { #n, __NR_##n },
static const struct sc from_headers[] = {
#include "bt_syscall_names.h"
};
#undef BT_SYSCALL

/* The numbers shared by all architectures since 5.1, for headers older than the kernel. */
static const struct sc shared[] = {
	{ "pidfd_send_signal", 424 },
	{ "io_uring_setup", 425 },
	{ "io_uring_enter", 426 },
	{ "io_uring_register", 427 },
	{ "open_tree", 428 },
	{ "move_mount", 429 },
	{ "fsopen", 430 },
	{ "fsconfig", 431 },
	{ "fsmount", 432 },
	{ "fspick", 433 },
	{ "pidfd_open", 434 },
	{ "clone3", 435 },
	{ "close_range", 436 },
	{ "openat2", 437 },
	{ "pidfd_getfd", 438 },
	{ "faccessat2", 439 },
	{ "process_madvise", 440 },
	{ "epoll_pwait2", 441 },
	{ "mount_setattr", 442 },
	{ "quotactl_fd", 443 },
	{ "landlock_create_ruleset", 444 },
	{ "landlock_add_rule", 445 },
	{ "landlock_restrict_self", 446 },
	{ "memfd_secret", 447 },
	{ "process_mrelease", 448 },
	{ "futex_waitv", 449 },
	{ "set_mempolicy_home_node", 450 },
	{ "cachestat", 451 },
	{ "fchmodat2", 452 },
	{ "map_shadow_stack", 453 },
	{ "futex_wake", 454 },
	{ "futex_wait", 455 },
	{ "futex_requeue", 456 },
	{ "statmount", 457 },
	{ "listmount", 458 },
	{ "lsm_get_self_attr", 459 },
	{ "lsm_set_self_attr", 460 },
	{ "lsm_list_modules", 461 },
	{ "mseal", 462 },
	{ "setxattrat", 463 },
	{ "getxattrat", 464 },
	{ "listxattrat", 465 },
	{ "removexattrat", 466 },
	{ "open_tree_attr", 467 },
	{ "file_getattr", 468 },
	{ "file_setattr", 469 },
	{ "listns", 470 },
#if defined(__x86_64__)
	/* x86-64 only, below 424 */
	{ "uretprobe", 335 },
	{ "uprobe", 336 },
#endif
};

/*
 * Tracepoints named after the kernel function (SYSCALL_DEFINE's name), where that differs from
 * the __NR_ name: event name, __NR_ name.
 */
static const struct sc_alias {
	const char *event, *nr_name;
} aliases[] = {
	{ "newstat", "stat" },		 { "newfstat", "fstat" }, { "newlstat", "lstat" },
	{ "newuname", "uname" },	 { "umount", "umount2" }, { "sendfile64", "sendfile" },
#if defined(__aarch64__)
	{ "fadvise64_64", "fadvise64" },
#endif
};

static int lookup(const struct sc *v, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(v[i].name, name))
			return v[i].nr;
	return -1;
}

int bt_syscall_nr(const char *name)
{
	size_t i;
	int nr;

	for (i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
		if (!strcmp(aliases[i].event, name))
			name = aliases[i].nr_name;
	nr = lookup(from_headers, sizeof(from_headers) / sizeof(from_headers[0]), name);
	if (nr < 0)
		nr = lookup(shared, sizeof(shared) / sizeof(shared[0]), name);
	return nr >= 0 && nr < BT_SYSCALL_NR_MAX ? nr : -1;
}
