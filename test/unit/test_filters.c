// SPDX-License-Identifier: GPL-2.0
/*
 * lib/attach/bt_skel: the in-kernel filters land in the right read-only variables, and bad values are
 * one usage error each; a skeleton that does not open is one line and -errno. A command's skeleton (opensnoop's) is opened, never loaded: no
 * privileges needed.
 */
#include <errno.h>
#include <mntent.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bt_err.h"
#include "bt_skel.h"
#include "harness.h"
#include "opensnoop.skel.h"

static struct opensnoop_bpf *open_skel(void)
{
	struct opensnoop_bpf *skel = opensnoop_bpf__open();

	CHECK(skel != NULL);
	return skel;
}

static uint32_t get_u32(struct opensnoop_bpf *skel, const char *var)
{
	uint32_t v = 0xdeadbeef;

	CHECK_INT(bt_rodata_get(skel->obj, var, &v, sizeof(v)), 0);
	return v;
}

static bool get_bool(struct opensnoop_bpf *skel, const char *var)
{
	bool v = true;

	CHECK_INT(bt_rodata_get(skel->obj, var, &v, sizeof(v)), 0);
	return v;
}

static void test_none_changes_nothing(void)
{
	struct bt_filters f = BT_FILTERS_NONE;
	struct opensnoop_bpf *skel = open_skel();
	uint64_t cg = 1;

	if (!skel)
		return;
	CHECK_INT(bt_filters_apply(skel->obj, &f), 0);
	CHECK_INT((int32_t)get_u32(skel, "bt_filter_cpu"), -1);
	CHECK_INT(get_u32(skel, "bt_filter_tgid"), 0);
	CHECK(!get_bool(skel, "bt_filter_by_uid"));
	CHECK_INT(get_u32(skel, "bt_filter_comm_len"), 0);
	CHECK_INT(bt_rodata_get(skel->obj, "bt_filter_cgroup_id", &cg, sizeof(cg)), 0);
	CHECK_INT(cg, 0);
	CHECK(!get_bool(skel, "bt_filter_cgroupmap"));
	CHECK(!get_bool(skel, "bt_filter_mntnsmap"));
	/* a wrong size is refused, not half-read */
	CHECK_INT(bt_rodata_get(skel->obj, "bt_filter_cgroup_id", &cg, 4), -EINVAL);
	CHECK_INT(bt_rodata_get(skel->obj, "no_such_variable", &cg, sizeof(cg)), -ENOENT);
	opensnoop_bpf__destroy(skel);
}

static void test_values_set(void)
{
	struct bt_filters f = BT_FILTERS_NONE;
	struct opensnoop_bpf *skel = open_skel();
	char comm[16];

	if (!skel)
		return;
	f.tgid = 42;
	f.by_uid = true;
	f.uid = 0; /* root is a uid like any other: by_uid says it is set */
	f.comm = "bash";
	CHECK_INT(bt_filters_apply(skel->obj, &f), 0);
	CHECK_INT(get_u32(skel, "bt_filter_tgid"), 42);
	CHECK(get_bool(skel, "bt_filter_by_uid"));
	CHECK_INT(get_u32(skel, "bt_filter_uid"), 0);
	CHECK_INT(get_u32(skel, "bt_filter_comm_len"), 4);
	CHECK(!get_bool(skel, "bt_filter_comm_exact"));
	CHECK_INT(bt_rodata_get(skel->obj, "bt_filter_comm", comm, sizeof(comm)), 0);
	CHECK(!memcmp(comm, "bash\0\0\0\0\0\0\0\0\0\0\0\0", sizeof(comm)));
	opensnoop_bpf__destroy(skel);

	skel = open_skel();
	if (!skel)
		return;
	f = (struct bt_filters)BT_FILTERS_NONE;
	f.comm = "systemd-journal";
	f.comm_exact = true;
	CHECK_INT(bt_filters_apply(skel->obj, &f), 0);
	CHECK_INT(get_u32(skel, "bt_filter_comm_len"), 15);
	CHECK(get_bool(skel, "bt_filter_comm_exact"));
	opensnoop_bpf__destroy(skel);
}

static void test_bad_input(void)
{
	const char *bad_comm[] = { "", "0123456789abcdef" };
	struct bt_filters f;
	struct opensnoop_bpf *skel;
	size_t i;

	for (i = 0; i < 2; i++) {
		skel = open_skel();
		if (!skel)
			return;
		f = (struct bt_filters)BT_FILTERS_NONE;
		f.comm = bad_comm[i];
		CHECK_INT(bt_filters_apply(skel->obj, &f), -BT_EUSAGE);
		opensnoop_bpf__destroy(skel);
	}
	skel = open_skel();
	if (!skel)
		return;
	f = (struct bt_filters)BT_FILTERS_NONE;
	f.cgroup = "/no/such/cgroup";
	CHECK_INT(bt_filters_apply(skel->obj, &f), -BT_EUSAGE);
	f = (struct bt_filters)BT_FILTERS_NONE;
	f.cgroup = "/proc"; /* a directory, not cgroup v2 */
	CHECK_INT(bt_filters_apply(skel->obj, &f), -BT_EUSAGE);
	f = (struct bt_filters)BT_FILTERS_NONE;
	f.cgroupmap = "/tmp"; /* not on a BPF file system */
	CHECK_INT(bt_filters_apply(skel->obj, &f), -BT_EUSAGE);
	f = (struct bt_filters)BT_FILTERS_NONE;
	f.mntnsmap = "/no/such/map";
	CHECK_INT(bt_filters_apply(skel->obj, &f), -BT_EUSAGE);
	CHECK(!get_bool(skel, "bt_filter_mntnsmap"));
	opensnoop_bpf__destroy(skel);
}

/* The root cgroup of a cgroup v2 mount: id 1 at level 0 (or the cgroup itself, namespaced). */
static void test_cgroup_set(void)
{
	FILE *m = setmntent("/proc/self/mounts", "r");
	struct bt_filters f = BT_FILTERS_NONE;
	struct opensnoop_bpf *skel;
	struct mntent *e;
	char *root = NULL;
	uint64_t id = 0;

	while (m && !root && (e = getmntent(m)))
		if (!strcmp(e->mnt_type, "cgroup2"))
			root = strdup(e->mnt_dir);
	if (m)
		endmntent(m);
	if (!root) {
		printf("# no cgroup v2 mount: skipped\n");
		CHECK(1);
		return;
	}
	skel = open_skel();
	if (skel) {
		f.cgroup = root;
		CHECK_INT(bt_filters_apply(skel->obj, &f), 0);
		CHECK_INT(bt_rodata_get(skel->obj, "bt_filter_cgroup_id", &id, sizeof(id)), 0);
		CHECK(id != 0);
		if (id == 1)
			CHECK_INT(get_u32(skel, "bt_filter_cgroup_level"), 0);
		opensnoop_bpf__destroy(skel);
	}
	free(root);
}

/* bt_skel_opened(skel) with stderr captured into got[]: what it returns. */
static char got[512];

static int opened_msg(const void *skel, int errnum)
{
	char path[] = "/tmp/bt-skel-XXXXXX";
	int fd = mkstemp(path), saved = dup(STDERR_FILENO), err;
	ssize_t n;

	got[0] = '\0';
	fflush(stderr);
	if (fd >= 0)
		dup2(fd, STDERR_FILENO);
	errno = errnum;
	err = bt_skel_opened(skel);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	n = fd >= 0 ? pread(fd, got, sizeof(got) - 1, 0) : 0;
	got[n > 0 ? n : 0] = '\0';
	if (fd >= 0) {
		close(fd);
		unlink(path);
	}
	return err;
}

static void test_skel_opened(void)
{
	struct opensnoop_bpf *skel = open_skel();

	CHECK_INT(opened_msg(skel, 0), 0);
	CHECK_STR(got, "");
	CHECK_INT(opened_msg(NULL, ENOENT), -ENOENT);
	CHECK_STR(got, "test_filters: cannot open the BPF object: No such file or directory\n");
	/* libbpf left no errno: still an error, never 0 with no skeleton */
	CHECK_INT(opened_msg(NULL, 0), -ENOMEM);
	CHECK_STR(got, "test_filters: cannot open the BPF object: Cannot allocate memory\n");
	opensnoop_bpf__destroy(skel);
}

int main(void)
{
	bt_set_progname("test_filters");
	BT_RUN(test_none_changes_nothing);
	BT_RUN(test_values_set);
	BT_RUN(test_bad_input);
	BT_RUN(test_cgroup_set);
	BT_RUN(test_skel_opened);
	return bt_test_done();
}
