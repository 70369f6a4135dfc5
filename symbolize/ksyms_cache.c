// SPDX-License-Identifier: GPL-2.0
/*
 * A copy of /proc/kallsyms kept for this boot: the kernel formats each of its ~200,000 lines
 * every time the file is read (~70 ms of CPU here), which was most of what printing kernel
 * stacks cost a short trace. The copy's key is the boot id, the kernel's version and the
 * whole of /proc/modules (names, sizes, states, addresses): loading or unloading a module
 * makes another key, and the copy of the old one is removed.
 *
 * Left out: BPF programs and the ftrace and kprobe trampolines, which come and go without any
 * such sign. Their holes stay: sizes are taken from the whole table, a module's symbols end
 * at its end (/proc/modules) and vmlinux's last one a page after it starts, so an address of
 * such code matches no symbol, and past vmlinux it is taken for what it can only be
 * (bt_ksyms__miss in kallsyms.c: a tracing artefact).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "sym_internal.h"

#define CACHE_MAGIC "BTKSYM01"
#define CACHE_PREFIX "ksyms-"
#define MAX_MODULES 4096
#define CHUNK 4096

struct cache_head {
	char magic[8];
	uint64_t key, n, strs_len, vmlinux_end;
};

struct module_range {
	char name[64];
	uint64_t start, end;
};

struct modules {
	struct module_range *r;
	size_t n;
};

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;

	while (n--)
		h = (h ^ *c++) * 0x100000001b3ULL;
	return h;
}

/* The key of this boot and module set, and the modules' ranges; 0 when unknown. */
static uint64_t cache_key(const char *modules, struct modules *mods)
{
	uint64_t h = fnv(0xcbf29ce484222325ULL, CACHE_MAGIC, 8);
	char line[512], boot[64] = "";
	struct utsname u;
	FILE *f;

	f = fopen("/proc/sys/kernel/random/boot_id", "re");
	if (!f || !fgets(boot, sizeof(boot), f)) {
		if (f)
			fclose(f);
		return 0;
	}
	fclose(f);
	h = fnv(h, boot, strlen(boot));
	if (!uname(&u)) {
		h = fnv(h, u.release, strlen(u.release));
		h = fnv(h, u.version, strlen(u.version));
	}
	f = fopen(modules ? modules : "/proc/modules", "re");
	if (!f)
		return errno == ENOENT ? h : 0; /* no modules at all: a kernel without them */
	while (fgets(line, sizeof(line), f)) {
		struct module_range m;
		unsigned long long size, addr;

		h = fnv(h, line, strlen(line));
		if (sscanf(line, "%63s %llu %*s %*s %*s %llx", m.name, &size, &addr) != 3 ||
		    mods->n == MAX_MODULES)
			continue;
		if (!mods->r && !(mods->r = calloc(MAX_MODULES, sizeof(*mods->r))))
			continue;
		m.start = addr;
		m.end = addr + size;
		mods->r[mods->n++] = m;
	}
	fclose(f);
	return h ? h : 1;
}

static const struct module_range *module_of(const struct modules *mods, const char *name)
{
	size_t i;

	for (i = 0; name && i < mods->n; i++)
		if (!strcmp(mods->r[i].name, name))
			return &mods->r[i];
	return NULL;
}

static int read_all(int fd, void *buf, size_t len)
{
	char *p = buf;

	while (len) {
		ssize_t n = read(fd, p, len);

		if (n <= 0)
			return n ? -errno : -EIO;
		p += n;
		len -= n;
	}
	return 0;
}

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n <= 0)
			return n ? -errno : -EIO;
		p += n;
		len -= n;
	}
	return 0;
}

/*
 * The copy at path, checked from end to end; -ENOENT when there is none. It is kept open and
 * read a block of records and a name at a time (kallsyms.c). (The file is never changed in
 * place: a new copy is a new file renamed over the name.)
 */
static int read_cache(const char *path, uint64_t key, struct bt_ksyms **out)
{
	struct bt_ksym_rec rec[CHUNK];
	struct cache_head h;
	struct bt_ksyms *ks = NULL;
	uint64_t last = 0;
	size_t i, k, got;
	struct stat st;
	char end;
	int err, fd;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	err = -EINVAL;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 077) || read_all(fd, &h, sizeof(h)) || memcmp(h.magic, CACHE_MAGIC, 8) ||
	    h.key != key || !h.n || !h.strs_len || h.n > SIZE_MAX / sizeof(rec[0]) ||
	    (uint64_t)st.st_size != sizeof(h) + h.n * sizeof(rec[0]) + h.strs_len)
		goto out;
	err = -ENOMEM;
	ks = calloc(1, sizeof(*ks));
	if (!ks || !(ks->seen = bt_ksym_seen__new()) ||
	    !(ks->block_addr = calloc(h.n / BT_KSYM_BLOCK + 1, sizeof(*ks->block_addr))))
		goto out;
	for (i = 0; i < h.n; i += got) {
		got = h.n - i < CHUNK ? h.n - i : CHUNK;
		err = read_all(fd, rec, got * sizeof(rec[0]));
		if (err)
			goto out;
		err = -EINVAL;
		for (k = 0; k < got; k++) {
			if (rec[k].name >= h.strs_len || rec[k].module > h.strs_len ||
			    (i + k && rec[k].addr <= last))
				goto out;
			last = rec[k].addr;
			if ((i + k) % BT_KSYM_BLOCK == 0)
				ks->block_addr[(i + k) / BT_KSYM_BLOCK] = last;
		}
	}
	/* the names end in a NUL: a name read from its offset on ends inside them */
	err = -EINVAL;
	if (pread(fd, &end, 1, st.st_size - 1) != 1 || end)
		goto out;
	ks->fd = fd;
	fd = -1;
	ks->recs_at = sizeof(h);
	ks->strs_at = sizeof(h) + h.n * sizeof(rec[0]);
	ks->strs_len = h.strs_len;
	ks->n = h.n;
	ks->from_cache = 1;
	ks->vmlinux_end = h.vmlinux_end;
	*out = ks;
	ks = NULL;
	err = 0;
out:
	bt_ksyms__free(ks);
	if (fd >= 0)
		close(fd);
	return err;
}

/* Write ks (read whole from kallsyms) as the copy at path: to a temporary file, renamed. */
static int write_cache(const char *path, uint64_t key, const struct bt_ksyms *ks,
		       const struct modules *mods)
{
	const struct module_range *mod = NULL;
	const char *last_module = NULL;
	struct cache_head h = { .key = key };
	struct bt_ksym_rec rec[CHUNK];
	char tmp[4200];
	size_t i, k = 0, strs_len = 0, last_vmlinux = 0;
	int err = 0, fd;

	for (i = 0; i < ks->n; i++) {
		if (!ks->syms[i].module)
			last_vmlinux = i;
		if (!bt_ksym__runtime_module(ks->syms[i].module))
			h.n++;
	}
	h.vmlinux_end = ks->syms[last_vmlinux].addr + 4096;
	/* the names and modules stay where the arena has them: one block to write */
	for (i = 0; i < ks->n; i++) {
		size_t end = ks->syms[i].name - ks->strs + strlen(ks->syms[i].name) + 1;

		if (end > strs_len)
			strs_len = end;
		if (ks->syms[i].module) {
			end = ks->syms[i].module - ks->strs + strlen(ks->syms[i].module) + 1;
			if (end > strs_len)
				strs_len = end;
		}
	}
	h.strs_len = strs_len;
	memcpy(h.magic, CACHE_MAGIC, 8);
	snprintf(tmp, sizeof(tmp), "%s.%d", path, (int)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	err = write_all(fd, &h, sizeof(h));
	for (i = 0; !err && i < ks->n; i++) {
		const struct bt_ksym *s = &ks->syms[i];
		const struct module_range *m;
		uint64_t size = s->size;

		if (bt_ksym__runtime_module(s->module))
			continue;
		/* a module's symbols come in one run, under one interned name */
		if (s->module != last_module) {
			mod = module_of(mods, s->module);
			last_module = s->module;
		}
		m = mod;
		if (m && s->addr >= m->start && s->addr < m->end &&
		    (!size || size > m->end - s->addr))
			size = m->end - s->addr;
		if ((i == last_vmlinux || !m) && (!size || size > 4096) && i + 1 < ks->n &&
		    ks->syms[i + 1].module != s->module)
			size = 4096; /* the last of its kind: what follows may be run-time code */
		if (!size)
			size = 4096;
		rec[k++] = (struct bt_ksym_rec){ .addr = s->addr,
						 .size = size,
						 .name = s->name - ks->strs,
						 .module = s->module ? s->module - ks->strs + 1 : 0,
						 .type = (unsigned char)s->type };
		if (k == CHUNK) {
			err = write_all(fd, rec, k * sizeof(rec[0]));
			k = 0;
		}
	}
	if (!err && k)
		err = write_all(fd, rec, k * sizeof(rec[0]));
	if (!err)
		err = write_all(fd, ks->strs, strs_len);
	if (close(fd) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}

/* Copies of other boots or module sets, left in dir: gone. */
static void remove_others(const char *dir, const char *keep)
{
	struct dirent *d;
	char path[4200];
	DIR *dh = opendir(dir);

	while (dh && (d = readdir(dh))) {
		if (strncmp(d->d_name, CACHE_PREFIX, strlen(CACHE_PREFIX)) ||
		    !strcmp(d->d_name, keep))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
		unlink(path);
	}
	if (dh)
		closedir(dh);
}

int bt_ksyms__load_cached(const char *dir, const char *kallsyms, const char *modules,
			  struct bt_ksyms **out)
{
	struct modules mods = { 0 };
	char name[64], path[4200];
	uint64_t key;
	int err;

	*out = NULL;
	key = dir ? cache_key(modules, &mods) : 0;
	if (!key) {
		free(mods.r);
		return bt_ksyms__load(kallsyms, out);
	}
	snprintf(name, sizeof(name), CACHE_PREFIX "%016llx", (unsigned long long)key);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (!read_cache(path, key, out))
		goto done;
	err = bt_ksyms__load(kallsyms, out);
	if (err || (*out)->restricted || !(*out)->n) {
		free(mods.r);
		return err;
	}
	remove_others(dir, name);
	if (write_cache(path, key, *out, &mods))
		unlink(path);
done:
	free(mods.r);
	return 0;
}
