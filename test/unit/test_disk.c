// SPDX-License-Identifier: GPL-2.0
/* Disk names (lib/kernel/bt_disk.c) on a sysfs tree built in a temporary directory. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bt_disk.h"
#include "fake_tree.h"
#include "harness.h"

/* As the kernel lays it out: devices/.../block/DISK[/PART], linked from dev/block and class. */
static void make_tree(void)
{
	snprintf(root, sizeof(root), "/tmp/bt_disk_test.XXXXXX");
	if (!mkdtemp(root))
		abort();
	mk("devices");
	mk("devices/block");
	mk("devices/block/vda");
	put_file("devices/block/vda/uevent", "MAJOR=254\nMINOR=0\nDEVNAME=vda\nDEVTYPE=disk\n");
	put_file("devices/block/vda/dev", "254:0\n");
	mk("devices/block/vda/vda2");
	put_file("devices/block/vda/vda2/uevent",
		 "MAJOR=254\nMINOR=2\nDEVNAME=vda2\nDEVTYPE=partition\nPARTN=2\n");
	put_file("devices/block/vda/vda2/dev", "254:2\n");
	mk("devices/block/cciss!c0d0");
	put_file("devices/block/cciss!c0d0/uevent",
		 "MAJOR=104\nMINOR=0\nDEVNAME=cciss/c0d0\nDEVTYPE=disk\n");
	put_file("devices/block/cciss!c0d0/dev", "104:0\n");
	mk("dev");
	mk("dev/block");
	link_to("../../devices/block/vda", "dev/block/254:0");
	link_to("../../devices/block/vda/vda2", "dev/block/254:2");
	link_to("../../devices/block/cciss!c0d0", "dev/block/104:0");
	mk("class");
	mk("class/block");
	link_to("../../devices/block/vda", "class/block/vda");
	link_to("../../devices/block/vda/vda2", "class/block/vda2");
	link_to("../../devices/block/cciss!c0d0", "class/block/cciss!c0d0");
	/* block/: the whole disks, with their sizes (an unbound loop device's is 0) */
	put_file("devices/block/vda/size", "2097152\n");
	put_file("devices/block/cciss!c0d0/size", "8\n");
	mk("devices/block/loop0");
	put_file("devices/block/loop0/uevent", "MAJOR=7\nMINOR=0\nDEVNAME=loop0\nDEVTYPE=disk\n");
	put_file("devices/block/loop0/dev", "7:0\n");
	put_file("devices/block/loop0/size", "0\n");
	link_to("../../devices/block/loop0", "dev/block/7:0");
	mk("block");
	link_to("../devices/block/vda", "block/vda");
	link_to("../devices/block/cciss!c0d0", "block/cciss!c0d0");
	link_to("../devices/block/loop0", "block/loop0");
	bt_disk_set_sysfs(root);
}

static void remove_tree(void)
{
	char cmd[128];

	bt_disk_set_sysfs(NULL);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd))
		fprintf(stderr, "cannot remove %s\n", root);
}

static void test_by_dev(void)
{
	struct bt_disk d;

	CHECK_INT(bt_disk_by_dev(254, 0, &d), 0);
	CHECK_STR(d.name, "vda");
	CHECK_STR(d.disk, "vda");
	CHECK_INT(d.partition, false);
	CHECK_INT(bt_disk_by_dev(254, 2, &d), 0);
	CHECK_STR(d.name, "vda2");
	CHECK_INT(d.partition, true);
	CHECK_STR(d.disk, "vda");
	CHECK_INT(d.disk_minor, 0);
	CHECK_INT(bt_disk_by_dev(104, 0, &d), 0);
	CHECK_STR(d.name, "cciss/c0d0");
	CHECK_INT(bt_disk_by_dev(8, 0, &d), -ENOENT);
}

static void test_by_name(void)
{
	struct bt_disk d;

	CHECK_INT(bt_disk_by_name("vda", &d), 0);
	CHECK_INT(d.major, 254);
	CHECK_INT(d.minor, 0);
	CHECK_INT(bt_disk_by_name("/dev/vda2", &d), 0);
	CHECK_INT(d.minor, 2);
	CHECK_INT(d.partition, true);
	CHECK_STR(d.disk, "vda");
	CHECK_INT(bt_disk_by_name("cciss/c0d0", &d), 0);
	CHECK_INT(d.major, 104);
	CHECK_INT(bt_disk_by_name("sdz", &d), -ENOENT);
	CHECK_INT(bt_disk_by_name("", &d), -EINVAL);
	CHECK_INT(bt_disk_by_name("/dev/", &d), -EINVAL);
	CHECK_INT(bt_disk_by_name("../vda", &d), -EINVAL);
	CHECK_INT(bt_disk_by_name("..", &d), -EINVAL);
	CHECK_INT(bt_disk_by_name("a-name-longer-than-any-disk-name-can-be", &d), -EINVAL);
}

static void test_cache(void)
{
	struct bt_disk_cache *c = bt_disk_cache__new();
	const struct bt_disk *d;
	int i;

	CHECK(c != NULL);
	for (i = 0; i < 20; i++) { /* grows past its first allocation */
		CHECK(bt_disk_cache__get(c, bt_kdev(300, i)) == NULL);
	}
	d = bt_disk_cache__get(c, bt_kdev(254, 2));
	CHECK(d != NULL);
	CHECK_STR(d ? d->name : NULL, "vda2");
	CHECK(bt_disk_cache__get(c, bt_kdev(254, 2)) == d); /* read once */
	CHECK_INT(BT_KDEV_MAJOR(bt_kdev(259, 1048575)), 259);
	CHECK_INT(BT_KDEV_MINOR(bt_kdev(259, 1048575)), 1048575);
	bt_disk_cache__free(c);
	bt_disk_cache__free(NULL);
}

struct seen {
	char names[4][BT_DISK_NAME_LEN];
	int n, stop_at;
};

static int note_disk(void *ctx, const struct bt_disk *d)
{
	struct seen *s = ctx;

	if (s->n < 4)
		snprintf(s->names[s->n], sizeof(s->names[0]), "%s", d->name);
	return ++s->n == s->stop_at ? 7 : 0;
}

static void test_each(void)
{
	struct seen s = { .stop_at = -1 };
	int i, vda = 0, cciss = 0;

	CHECK_INT(bt_disk_each(note_disk, &s), 0);
	CHECK_INT(s.n, 2); /* not loop0: it holds nothing */
	for (i = 0; i < s.n && i < 4; i++) {
		vda += !strcmp(s.names[i], "vda");
		cciss += !strcmp(s.names[i], "cciss/c0d0");
	}
	CHECK_INT(vda, 1);
	CHECK_INT(cciss, 1);
	s = (struct seen){ .stop_at = 1 };
	CHECK_INT(bt_disk_each(note_disk, &s), 7); /* fn's value ends the walk */
	CHECK_INT(s.n, 1);
}

static void test_real_sysfs(void)
{
	struct bt_disk d, back;

	/* Whatever the machine has: each name maps to a number that maps back to it. */
	bt_disk_set_sysfs(NULL);
	if (bt_disk_by_name("loop0", &d) == 0) {
		CHECK_INT(d.major, 7);
		CHECK_INT(bt_disk_by_dev(d.major, d.minor, &back), 0);
		CHECK_STR(back.name, "loop0");
	}
	bt_disk_set_sysfs(root);
}

int main(void)
{
	make_tree();
	BT_RUN(test_by_dev);
	BT_RUN(test_by_name);
	BT_RUN(test_cache);
	BT_RUN(test_each);
	BT_RUN(test_real_sysfs);
	remove_tree();
	return bt_test_done();
}
