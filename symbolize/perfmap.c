// SPDX-License-Identifier: GPL-2.0
/*
 * JIT symbols from /tmp/perf-PID.map ("START SIZE name", hex). The file is the one inside
 * the process's mount namespace, named by its namespaced pid, as perf and bcc read it; the
 * descriptor is opened when the process is noted, so the map outlives the process. Opened
 * through bt_procfile: a FIFO or a symlink there is refused, and so is a map owned by neither
 * root nor the process.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bt_procfile.h"
#include "sym_internal.h"

struct pm_ent {
	uint64_t start, size;
	size_t name; /* offset into strs */
};

struct bt_perfmap {
	int fd;
	off_t parsed_size;
	struct pm_ent *ents;
	size_t n;
	char *strs;
};

#define BT_PERFMAP_MAX (256u << 20)

static int cmp_pm(const void *a, const void *b)
{
	const struct pm_ent *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	/* a JIT that reuses an address appends the newer entry: keep file order stable */
	return x->name < y->name ? 1 : x->name > y->name ? -1 : 0;
}

static int parse(struct bt_perfmap *pm, char *buf, size_t len)
{
	struct pm_ent *ents = NULL, *ne;
	size_t n = 0, cap = 0, i, out;
	char *p = buf, *end = buf + len;

	while (p < end) {
		char *nl = memchr(p, '\n', end - p), *q;
		struct pm_ent e;

		if (!nl)
			break; /* a line still being written */
		*nl = 0;
		e.start = strtoull(p, &q, 16);
		if (q != p && *q == ' ') {
			p = q + 1;
			e.size = strtoull(p, &q, 16);
			if (q != p && *q == ' ' && q[1] && e.size) {
				e.name = q + 1 - buf;
				if (n == cap) {
					cap = cap ? cap * 2 : 1024;
					ne = realloc(ents, cap * sizeof(*ents));
					if (!ne) {
						free(ents);
						return -ENOMEM;
					}
					ents = ne;
				}
				ents[n++] = e;
			}
		}
		p = nl + 1;
	}
	qsort(ents, n, sizeof(*ents), cmp_pm);
	for (i = 0, out = 0; i < n; i++) {
		if (out && ents[out - 1].start == ents[i].start)
			continue;
		ents[out++] = ents[i];
	}
	free(pm->ents);
	free(pm->strs);
	pm->ents = ents;
	pm->n = out;
	pm->strs = buf;
	return 0;
}

int bt_perfmap__refresh(struct bt_perfmap *pm)
{
	struct stat st;
	char *buf;
	ssize_t r;
	size_t got = 0;
	int err;

	if (!pm || fstat(pm->fd, &st))
		return -EINVAL;
	if (st.st_size == pm->parsed_size)
		return 0;
	if (st.st_size > BT_PERFMAP_MAX)
		return -EFBIG;
	buf = malloc(st.st_size + 1);
	if (!buf)
		return -ENOMEM;
	while (got < (size_t)st.st_size &&
	       (r = pread(pm->fd, buf + got, st.st_size - got, got)) > 0)
		got += r;
	buf[got] = 0;
	err = parse(pm, buf, got);
	if (err) {
		free(buf);
		return err;
	}
	pm->parsed_size = st.st_size;
	return 0;
}

static int from_fd(int fd, struct bt_perfmap **out)
{
	struct bt_perfmap *pm = calloc(1, sizeof(*pm));

	if (!pm) {
		close(fd);
		return -ENOMEM;
	}
	pm->fd = fd;
	pm->parsed_size = -1;
	*out = pm;
	return 0;
}

int bt_perfmap__open(int rootfd, int nspid, const uid_t *owners, size_t nowners,
		     struct bt_perfmap **out)
{
	/* perf's rule, with the traced process's users in place of the one running perf */
	struct bt_procfile_want w = { .owners = owners, .nowners = nowners, .nofollow = 1 };
	char name[64];
	int fd;

	*out = NULL;
	snprintf(name, sizeof(name), "/tmp/perf-%d.map", nspid);
	fd = bt_procfile_open(rootfd, name, &w, NULL);
	if (fd < 0)
		return fd;
	return from_fd(fd, out);
}

int bt_perfmap__open_path(const char *path, struct bt_perfmap **out)
{
	int fd = bt_procfile_open(-1, path, NULL, NULL);

	*out = NULL;
	if (fd < 0)
		return fd;
	return from_fd(fd, out);
}

void bt_perfmap__free(struct bt_perfmap *pm)
{
	if (!pm)
		return;
	close(pm->fd);
	free(pm->ents);
	free(pm->strs);
	free(pm);
}

const char *bt_perfmap__lookup(const struct bt_perfmap *pm, uint64_t addr, uint64_t *off)
{
	size_t lo = 0, hi;
	const struct pm_ent *e;

	if (!pm)
		return NULL;
	hi = pm->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (pm->ents[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	e = &pm->ents[lo - 1];
	if (addr - e->start >= e->size)
		return NULL;
	if (off)
		*off = addr - e->start;
	return pm->strs + e->name;
}
