// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bt_disk.h"

static const char *sysfs_root = "/sys";

void bt_disk_set_sysfs(const char *root)
{
	sysfs_root = root ? root : "/sys";
}

/* The value of key in the KEY=value lines of a uevent file, into val; false when missing. */
static bool uevent_value(const char *text, const char *key, char *val, size_t size)
{
	size_t n = strlen(key);
	const char *line = text;

	while (line && *line) {
		if (!strncmp(line, key, n) && line[n] == '=') {
			const char *v = line + n + 1;

			snprintf(val, size, "%.*s", (int)strcspn(v, "\n"), v);
			return true;
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return false;
}

static int read_small(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "re");
	size_t n;

	if (!f)
		return -errno;
	n = fread(buf, 1, size - 1, f);
	fclose(f);
	buf[n] = '\0';
	return 0;
}

static int parse_devno(const char *s, unsigned int *major, unsigned int *minor)
{
	return sscanf(s, "%u:%u", major, minor) == 2 ? 0 : -EINVAL;
}

int bt_disk_by_dev(unsigned int major, unsigned int minor, struct bt_disk *out)
{
	char path[256], text[1024], val[64];
	int err;

	memset(out, 0, sizeof(*out));
	snprintf(path, sizeof(path), "%s/dev/block/%u:%u/uevent", sysfs_root, major, minor);
	err = read_small(path, text, sizeof(text));
	if (err)
		return err == -ENOENT || err == -ENOTDIR ? -ENOENT : err;
	if (!uevent_value(text, "DEVNAME", out->name, sizeof(out->name)) || !out->name[0])
		return -ENOENT;
	out->major = major;
	out->minor = minor;
	memcpy(out->disk, out->name, sizeof(out->disk));
	out->disk_minor = minor;
	if (!uevent_value(text, "DEVTYPE", val, sizeof(val)) || strcmp(val, "partition"))
		return 0;
	/* A partition's sysfs directory sits inside its disk's. */
	out->partition = true;
	snprintf(path, sizeof(path), "%s/dev/block/%u:%u/../uevent", sysfs_root, major, minor);
	if (read_small(path, text, sizeof(text)))
		return 0;
	uevent_value(text, "DEVNAME", out->disk, sizeof(out->disk));
	if (uevent_value(text, "MINOR", val, sizeof(val)))
		out->disk_minor = strtoul(val, NULL, 10);
	return 0;
}

int bt_disk_by_name(const char *name, struct bt_disk *out)
{
	char sysname[BT_DISK_NAME_LEN], path[256], text[64];
	unsigned int major, minor;
	size_t i;
	int err;

	memset(out, 0, sizeof(*out));
	if (!strncmp(name, "/dev/", 5))
		name += 5;
	if (!*name || strlen(name) >= sizeof(sysname) || strstr(name, "..") || name[0] == '.')
		return -EINVAL;
	/* sysfs spells a '/' in a device name as '!' (cciss/c0d0 is cciss!c0d0). */
	for (i = 0; name[i]; i++)
		sysname[i] = name[i] == '/' ? '!' : name[i];
	sysname[i] = '\0';
	snprintf(path, sizeof(path), "%s/class/block/%s/dev", sysfs_root, sysname);
	err = read_small(path, text, sizeof(text));
	if (err)
		return err == -ENOENT || err == -ENOTDIR ? -ENOENT : err;
	if (parse_devno(text, &major, &minor))
		return -ENOENT;
	return bt_disk_by_dev(major, minor, out);
}

int bt_disk_each(int (*fn)(void *ctx, const struct bt_disk *disk), void *ctx)
{
	char path[512], text[64];
	unsigned int major, minor;
	struct bt_disk disk;
	struct dirent *e;
	int err = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "%s/block", sysfs_root);
	dir = opendir(path);
	if (!dir)
		return -errno;
	while (!err && (e = readdir(dir))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/block/%s/size", sysfs_root, e->d_name);
		if (read_small(path, text, sizeof(text)) || !strtoull(text, NULL, 10))
			continue;
		snprintf(path, sizeof(path), "%s/block/%s/dev", sysfs_root, e->d_name);
		if (read_small(path, text, sizeof(text)) || parse_devno(text, &major, &minor) ||
		    bt_disk_by_dev(major, minor, &disk) || disk.partition)
			continue;
		err = fn(ctx, &disk);
	}
	closedir(dir);
	return err;
}

struct cache_entry {
	uint32_t kdev;
	bool known;
	struct bt_disk disk;
};

struct bt_disk_cache {
	struct cache_entry *v;
	size_t n, cap;
};

struct bt_disk_cache *bt_disk_cache__new(void)
{
	return calloc(1, sizeof(struct bt_disk_cache));
}

void bt_disk_cache__free(struct bt_disk_cache *c)
{
	if (!c)
		return;
	free(c->v);
	free(c);
}

const struct bt_disk *bt_disk_cache__get(struct bt_disk_cache *c, uint32_t kdev)
{
	struct cache_entry *e;
	size_t i;

	/* A machine has a handful of disks: a linear scan beats any hashing here. */
	for (i = 0; i < c->n; i++)
		if (c->v[i].kdev == kdev)
			return c->v[i].known ? &c->v[i].disk : NULL;
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 8;
		struct cache_entry *v = realloc(c->v, cap * sizeof(*v));

		if (!v)
			return NULL;
		c->v = v;
		c->cap = cap;
	}
	e = &c->v[c->n++];
	e->kdev = kdev;
	e->known = bt_disk_by_dev(BT_KDEV_MAJOR(kdev), BT_KDEV_MINOR(kdev), &e->disk) == 0;
	return e->known ? &e->disk : NULL;
}
