/* SPDX-License-Identifier: GPL-2.0 */
/*
 * errno names as the kernel's headers spell them ("ENOENT" for 2), for tools that report a
 * traced call's error (opensnoop's --json). A table, not strerrorname_np(): that is glibc 2.32+
 * only, and the name of an error must not depend on the C library bpftools was built with.
 */
#ifndef BT_ERRNO_H
#define BT_ERRNO_H

/* The name of err (positive or negative), or NULL for 0 and numbers without one. */
const char *bt_errno_name(int err);

/*
 * strerror(), but also in words for the kernel's internal numbers that reach user space from
 * bpf() and perf_event_open() (512-531), which the C library calls "Unknown error 524":
 * "operation not supported by the kernel (ENOTSUPP)". err positive or negative.
 */
const char *bt_strerror(int err);

#endif
