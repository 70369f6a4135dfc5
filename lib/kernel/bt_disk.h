/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Block devices by number and by name, through sysfs (/sys/dev/block/MAJ:MIN/uevent,
 * /sys/class/block/NAME/dev): no /proc/partitions parsing, no /dev lookup, and partitions
 * know their disk. Kernel probes see device numbers in the kernel's own encoding
 * (MKDEV: major << 20 | minor), which is what bt_kdev() makes.
 */
#ifndef BT_DISK_H
#define BT_DISK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BT_DISK_NAME_LEN 32 /* DISK_NAME_LEN */

static inline uint32_t bt_kdev(unsigned int major, unsigned int minor)
{
	return (major << 20) | (minor & 0xfffff);
}
#define BT_KDEV_MAJOR(d) ((unsigned int)((d) >> 20))
#define BT_KDEV_MINOR(d) ((unsigned int)((d)&0xfffff))

struct bt_disk {
	unsigned int major, minor;
	char name[BT_DISK_NAME_LEN]; /* "vda", "vda1", "nvme0n1p2", "cciss/c0d0" */
	bool partition;
	char disk[BT_DISK_NAME_LEN]; /* the whole disk: the name itself unless a partition */
	unsigned int disk_minor;     /* the whole disk's minor (its major is the same) */
};

/* The block device with this number. 0, or -ENOENT when there is none. */
int bt_disk_by_dev(unsigned int major, unsigned int minor, struct bt_disk *out);

/*
 * The block device of this name: "vda", "/dev/vda", "sda1", "cciss/c0d0". 0, -ENOENT when there
 * is none, -EINVAL for a name no device can have (empty, "..").
 */
int bt_disk_by_name(const char *name, struct bt_disk *out);

/*
 * Names of kernel device numbers for per-event output, each read from sysfs once: the cache
 * keeps misses too, so an unknown device costs one lookup. NULL when the number is unknown.
 */
struct bt_disk_cache;
struct bt_disk_cache *bt_disk_cache__new(void);
void bt_disk_cache__free(struct bt_disk_cache *c); /* NULL is fine */
const struct bt_disk *bt_disk_cache__get(struct bt_disk_cache *c, uint32_t kdev);

/*
 * fn(ctx, disk) for each whole disk the kernel has now (sysfs's block class) that holds data
 * (a size above 0: an unbound loop device does not), in no particular order; stops at fn's
 * first non-zero, which it returns. 0, or -errno when the list cannot be read.
 */
int bt_disk_each(int (*fn)(void *ctx, const struct bt_disk *disk), void *ctx);

/* Read sysfs under root instead of "/sys" (unit tests); NULL: back to "/sys". */
void bt_disk_set_sysfs(const char *root);

#endif
