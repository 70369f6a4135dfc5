// SPDX-License-Identifier: GPL-2.0
/* lib/attach/bt_skel: cgroup v2 ids and depths from paths, for the in-kernel cgroup filter. */
#include <errno.h>
#include <mntent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bt_skel.h"
#include "harness.h"

/* Where cgroup v2 is mounted, or NULL. */
static char *cgroup2_mount(void)
{
	FILE *f = setmntent("/proc/self/mounts", "r");
	struct mntent *m;
	char *dir = NULL;

	if (!f)
		return NULL;
	while (!dir && (m = getmntent(f)))
		if (!strcmp(m->mnt_type, "cgroup2"))
			dir = strdup(m->mnt_dir);
	endmntent(f);
	return dir;
}

static void test_not_cgroup(void)
{
	unsigned int level;
	uint64_t id;

	CHECK_INT(bt_cgroup_id("/no/such/cgroup/dir", &id, &level), -ENOENT);
	CHECK_INT(bt_cgroup_id("/", &id, &level), -ENOTDIR);
	CHECK_INT(bt_cgroup_id("/proc/self/status", &id, &level), -ENOTDIR);
}

static void test_root_and_child(void)
{
	char *root = cgroup2_mount(), child[4096], rel[4096];
	unsigned int level = 77;
	uint64_t id = 0, child_id = 0;
	struct stat st;

	if (!root) {
		printf("# no cgroup v2 mount: only the error paths are checked\n");
		CHECK(1);
		return;
	}
	CHECK_INT(bt_cgroup_id(root, &id, &level), 0);
	if (id != 1) {
		/* a cgroup namespace: the mount's root is not the root cgroup */
		CHECK_INT(level, BT_CGROUP_LEVEL_UNKNOWN);
		free(root);
		return;
	}
	CHECK_INT(level, 0);
	/* a child: deeper by one, its id is its inode number (cgroup v2 ids are kernfs ids) */
	snprintf(child, sizeof(child), "%s/bt-unit-%d", root, (int)getpid());
	if (mkdir(child, 0755)) {
		printf("# cannot make a cgroup (%s): the child case is skipped\n", strerror(errno));
		free(root);
		return;
	}
	CHECK_INT(bt_cgroup_id(child, &child_id, &level), 0);
	CHECK_INT(level, 1);
	CHECK(stat(child, &st) == 0);
	CHECK_INT(child_id, st.st_ino);
	/* the same directory through a relative path with a '..' in it */
	if (chdir(root) == 0) {
		snprintf(rel, sizeof(rel), "bt-unit-%d/../bt-unit-%d", (int)getpid(),
			 (int)getpid());
		CHECK_INT(bt_cgroup_id(rel, &id, &level), 0);
		CHECK_INT(id, child_id);
		CHECK_INT(level, 1);
		CHECK(chdir("/") == 0);
	}
	rmdir(child);
	free(root);
}

int main(void)
{
	BT_RUN(test_not_cgroup);
	BT_RUN(test_root_and_child);
	return bt_test_done();
}
