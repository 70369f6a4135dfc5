// SPDX-License-Identifier: GPL-2.0
/*
 * The exporter's collectors, byte for byte: each command's collector scrapes fixed rows twice
 * (collectors/NAME_golden.c, through the command's own code) and the second scrape's exposition must
 * be collectors/NAME.prom exactly. A difference leaves the text made in BUILD/NAME.prom.actual.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bt_disk.h"
#include "bt_irq.h"
#include "fake_tree.h"
#include "harness.h"

int golden_biolatency(FILE *out);
int golden_biosnoop(FILE *out);
int golden_funccount(FILE *out);
int golden_funclatency(FILE *out);
int golden_hardirqs(FILE *out);
int golden_offcputime(FILE *out);
int golden_smpcalls(FILE *out);
int golden_softirqs(FILE *out);
int golden_vfsstat(FILE *out);

/* One disk, vda (254:0), and four IRQ handlers on three lines, as sysfs has them. */
static void make_tree(void)
{
	snprintf(root, sizeof(root), "/tmp/bt_collectors_test.XXXXXX");
	if (!mkdtemp(root))
		abort();
	mk("devices");
	mk("devices/block");
	mk("devices/block/vda");
	put_file("devices/block/vda/uevent", "MAJOR=254\nMINOR=0\nDEVNAME=vda\nDEVTYPE=disk\n");
	put_file("devices/block/vda/dev", "254:0\n");
	put_file("devices/block/vda/size", "2097152\n");
	mk("dev");
	mk("dev/block");
	link_to("../../devices/block/vda", "dev/block/254:0");
	mk("class");
	mk("class/block");
	link_to("../../devices/block/vda", "class/block/vda");
	mk("block");
	link_to("../devices/block/vda", "block/vda");
	mk("kernel");
	mk("kernel/irq");
	mk("kernel/irq/0");
	put_file("kernel/irq/0/actions", "timer\n");
	mk("kernel/irq/9");
	put_file("kernel/irq/9/actions", "acpi,ahci[0000:00:1f.2]\n");
	mk("kernel/irq/36");
	put_file("kernel/irq/36/actions", "virtio1-req.0\n");
	bt_disk_set_sysfs(root);
	bt_irq_set_sysfs(root);
}

static void remove_tree(void)
{
	char cmd[128];

	bt_disk_set_sysfs(NULL);
	bt_irq_set_sysfs(NULL);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd))
		fprintf(stderr, "cannot remove %s\n", root);
}

static char *read_all(const char *path)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = fopen(path, "r"), *m = open_memstream(&text, &len);
	int c;

	if (!m || !f) {
		if (f)
			fclose(f);
		if (m)
			fclose(m);
		free(text);
		return NULL;
	}
	while ((c = fgetc(f)) != EOF)
		fputc(c, m);
	fclose(f);
	fclose(m);
	return text;
}

static void golden(const char *name, int (*fn)(FILE *out))
{
	char path[512], *want, *got = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&got, &len);

	CHECK(out != NULL);
	if (!out)
		return;
	CHECK_INT(fn(out), 0);
	fclose(out);
	snprintf(path, sizeof(path), "%s/test/unit/collectors/%s.prom", BT_TEST_SRCDIR, name);
	want = read_all(path);
	CHECK_STR(got, want);
	if (!want || strcmp(got, want)) {
		snprintf(path, sizeof(path), "%s/%s.prom.actual", BT_TEST_BINDIR, name);
		out = fopen(path, "w");
		if (out) {
			fputs(got, out);
			fclose(out);
			fprintf(stderr, "%s: the text made is in %s\n", name, path);
		}
	}
	free(want);
	free(got);
}

#define GOLDEN(name)                          \
	static void test_##name(void)         \
	{                                     \
		golden(#name, golden_##name); \
	}
GOLDEN(biolatency)
GOLDEN(biosnoop)
GOLDEN(funccount)
GOLDEN(funclatency)
GOLDEN(hardirqs)
GOLDEN(offcputime)
GOLDEN(smpcalls)
GOLDEN(softirqs)
GOLDEN(vfsstat)

int main(void)
{
	make_tree();
	BT_RUN(test_biolatency);
	BT_RUN(test_biosnoop);
	BT_RUN(test_funccount);
	BT_RUN(test_funclatency);
	BT_RUN(test_hardirqs);
	BT_RUN(test_offcputime);
	BT_RUN(test_smpcalls);
	BT_RUN(test_softirqs);
	BT_RUN(test_vfsstat);
	remove_tree();
	return bt_test_done();
}
