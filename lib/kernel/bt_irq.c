// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bt_irq.h"

static const char *sysfs_root = "/sys";

void bt_irq_set_sysfs(const char *root)
{
	sysfs_root = root ? root : "/sys";
}

/* The kernel writes at most a page: more than that is no actions file of a kernel. */
#define ACTIONS_MAX 4096

/*
 * The names of one line's actions file, through fn. A file that fills the buffer may end in a
 * cut name, which would be a label no handler has: the last one is then left out.
 */
static int each_name(unsigned int irq, const char *path, char *buf,
		     int (*fn)(void *ctx, unsigned int irq, const char *name), void *ctx)
{
	char *name, *next;
	size_t n;
	FILE *f;
	int err = 0;

	f = fopen(path, "re");
	if (!f)
		return 0; /* the line went away since the directory was read */
	n = fread(buf, 1, ACTIONS_MAX, f);
	fclose(f);
	buf[n] = '\0';
	if (n == ACTIONS_MAX) {
		name = strrchr(buf, ',');
		*(name ? name : buf) = '\0';
	} else if (n && buf[n - 1] == '\n') {
		buf[n - 1] = '\0';
	}
	for (name = buf; !err && name; name = next) {
		next = strchr(name, ',');
		if (next)
			*next++ = '\0';
		if (*name)
			err = fn(ctx, irq, name);
	}
	return err;
}

int bt_irq_each_action(int (*fn)(void *ctx, unsigned int irq, const char *name), void *ctx)
{
	char path[512], *buf, *end;
	unsigned int lines = 0;
	unsigned long irq;
	struct dirent *e;
	DIR *dir = NULL;
	int err = 0;

	buf = malloc(ACTIONS_MAX + 1);
	if (!buf)
		return -ENOMEM;
	snprintf(path, sizeof(path), "%s/kernel/irq", sysfs_root);
	dir = opendir(path);
	if (!dir) {
		err = -errno;
		goto cleanup;
	}
	while (!err && lines < BT_IRQ_MAX_LINES && (e = readdir(dir))) {
		irq = strtoul(e->d_name, &end, 10);
		if (e->d_name[0] < '0' || e->d_name[0] > '9' || *end || irq > 0xffffffffUL)
			continue;
		lines++;
		snprintf(path, sizeof(path), "%s/kernel/irq/%s/actions", sysfs_root, e->d_name);
		err = each_name(irq, path, buf, fn, ctx);
	}
cleanup:
	if (dir)
		closedir(dir);
	free(buf);
	return err;
}
