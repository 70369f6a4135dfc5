/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A fake sysfs or procfs tree for the unit tier, under root (set by the test, a mkdtemp()
 * directory): files, directories and links by their path below it. Unused ones are fine.
 */
#ifndef BT_TEST_FAKE_TREE_H
#define BT_TEST_FAKE_TREE_H

#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

static char root[64];

static inline void put_file(const char *rel, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static inline void mk(const char *rel)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	mkdir(path, 0755);
}

static inline void link_to(const char *target, const char *rel)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	if (symlink(target, path))
		perror(path);
}

#endif
