// SPDX-License-Identifier: GPL-2.0
/*
 * Files, shared by every process that maps them: found again by dev+inode+mtime (cheap, from
 * fstat) or by build-id (the same library seen through two container roots). Opening is cheap
 * (headers, build-id); symbol tables are loaded on first lookup and live under an LRU, so
 * memory is bounded by max_loaded files however many processes come and go. Descriptors are
 * bounded too: see BT_DSO_MAX_OPEN.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bt_procfile.h"
#include "elf_internal.h"
#include "sym_internal.h"

#define BT_DSO_BUCKETS 1024
/*
 * Descriptors of mapped files held open at once, besides those of files with symbols loaded
 * (at most max_loaded, each with up to two more: its separate debug file and DWARF's). Past
 * it, the least recently used file's descriptor is closed (its headers stay) and the file is
 * reopened by its kept identity when a lookup needs it: through map_files while the process
 * that mapped it lives, else by its path inside that process's root, refused unless it is the
 * same dev, inode, size and mtime. 21,000 small ELFs mapped once held 19,938 descriptors
 * and then every open failed with EMFILE. Roots are held once each (struct bt_root).
 */
#define BT_DSO_MAX_OPEN 128

/* A process root (O_PATH), shared by every file seen through it: one descriptor per root. */
struct bt_root {
	int fd;
	dev_t dev;
	ino_t ino;
	int refs;
	char path[32]; /* "/proc/self/fd/N": reaches it after the process exits */
	struct bt_root *next;
};

struct bt_dso {
	struct bt_elf *elf;
	char *name;
	struct bt_root *root;
	/* how to reopen it once parked: map_files of pid, else name inside root */
	int src_pid;
	uint64_t src_start, src_end;
	int reopenable;
	int in_open; /* on the list of open descriptors */
	struct bt_dso *open_prev, *open_next;
	dev_t dev;
	ino_t ino;
	struct timespec mtime;
	off_t size;
	int refs;
	uint64_t idle_from; /* the cache's period when refs last fell to 0 */
	int loaded;
	size_t held;	 /* bytes of symbols loaded, counted in the cache's budget */
	int over_budget; /* refused once for the budget (counted once) */
	uint64_t gen;
	struct bt_dso *lru_prev, *lru_next; /* loaded ones, most recent first */
	struct bt_dso *hnext;		    /* hash chain by dev/inode */
	struct bt_dmcache dm;
	struct bt_dwarf *dw;
	int dw_tried;
};

struct bt_dso_cache {
	struct bt_dso_opts opts;
	struct bt_dso *buckets[BT_DSO_BUCKETS];
	struct bt_dso *lru_head, *lru_tail;
	struct bt_dso *open_head, *open_tail; /* reopenable, descriptor open, most recent first */
	struct bt_root *roots;
	size_t nfiles, nloaded, evictions, nopen, parked;
	size_t held; /* bytes of symbols loaded, all files: at most opts.budget */
	uint64_t over_files, over_bytes;
	uint64_t gen;
	uint64_t period; /* calls of bt_dso_cache__drop_unused() so far */
};

int bt_dso_cache__new(const struct bt_dso_opts *opts, struct bt_dso_cache **out)
{
	struct bt_dso_cache *c = calloc(1, sizeof(*c));

	if (!c)
		return -ENOMEM;
	c->opts = *opts;
	if (!c->opts.max_loaded)
		c->opts.max_loaded = 64;
	if (!c->opts.budget)
		c->opts.budget = BT_SYM_BUDGET;
	c->gen = 1;
	*out = c;
	return 0;
}

static size_t bucket(dev_t dev, ino_t ino)
{
	uint64_t v = (uint64_t)dev * 0x9e3779b97f4a7c15ULL ^ (uint64_t)ino;

	v ^= v >> 29;
	return (v * 0xbf58476d1ce4e5b9ULL >> 32) % BT_DSO_BUCKETS;
}

static void lru_unlink(struct bt_dso_cache *c, struct bt_dso *d)
{
	if (d->lru_prev)
		d->lru_prev->lru_next = d->lru_next;
	else
		c->lru_head = d->lru_next;
	if (d->lru_next)
		d->lru_next->lru_prev = d->lru_prev;
	else
		c->lru_tail = d->lru_prev;
	d->lru_prev = d->lru_next = NULL;
}

static void lru_push(struct bt_dso_cache *c, struct bt_dso *d)
{
	d->lru_prev = NULL;
	d->lru_next = c->lru_head;
	if (c->lru_head)
		c->lru_head->lru_prev = d;
	c->lru_head = d;
	if (!c->lru_tail)
		c->lru_tail = d;
}

static struct bt_root *root_get(struct bt_dso_cache *c, int rootfd)
{
	struct bt_root *r;
	struct stat st;

	if (rootfd < 0 || fstat(rootfd, &st))
		return NULL;
	for (r = c->roots; r; r = r->next) {
		if (r->dev == st.st_dev && r->ino == st.st_ino) {
			r->refs++;
			return r;
		}
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->fd = fcntl(rootfd, F_DUPFD_CLOEXEC, 3);
	if (r->fd < 0) {
		free(r);
		return NULL;
	}
	r->dev = st.st_dev;
	r->ino = st.st_ino;
	r->refs = 1;
	snprintf(r->path, sizeof(r->path), "/proc/self/fd/%d", r->fd);
	r->next = c->roots;
	c->roots = r;
	return r;
}

static void root_put(struct bt_dso_cache *c, struct bt_root *r)
{
	struct bt_root **pp = &c->roots;

	if (!r || --r->refs > 0)
		return;
	while (*pp && *pp != r)
		pp = &(*pp)->next;
	if (*pp)
		*pp = r->next;
	close(r->fd);
	free(r);
}

static void open_unlink(struct bt_dso_cache *c, struct bt_dso *d)
{
	if (!d->in_open)
		return;
	if (d->open_prev)
		d->open_prev->open_next = d->open_next;
	else
		c->open_head = d->open_next;
	if (d->open_next)
		d->open_next->open_prev = d->open_prev;
	else
		c->open_tail = d->open_prev;
	d->open_prev = d->open_next = NULL;
	d->in_open = 0;
	c->nopen--;
}

/* Close the descriptors of the least recently used files past the bound (not loaded ones). */
static void park_excess(struct bt_dso_cache *c)
{
	struct bt_dso *d = c->open_tail, *prev;

	while (d && c->nopen > BT_DSO_MAX_OPEN) {
		prev = d->open_prev;
		/* the head is the file about to be read */
		if (d != c->open_head && !d->loaded && !bt_elf__park(d->elf)) {
			open_unlink(c, d);
			c->parked++;
		}
		d = prev;
	}
}

/* d's descriptor is open and it was just used: first on the list, others parked past it. */
static void open_touch(struct bt_dso_cache *c, struct bt_dso *d)
{
	if (!d->reopenable)
		return;
	if (d->in_open && c->open_head == d)
		return;
	open_unlink(c, d);
	d->open_prev = NULL;
	d->open_next = c->open_head;
	if (c->open_head)
		c->open_head->open_prev = d;
	c->open_head = d;
	if (!c->open_tail)
		c->open_tail = d;
	d->in_open = 1;
	c->nopen++;
	park_excess(c);
}

static int same_stat(const struct bt_dso *d, const struct stat *st);

/* A parked file's descriptor again: the very file it was, or nothing. */
static int unpark(struct bt_dso_cache *c, struct bt_dso *d)
{
	struct bt_file_id id = { .dev = d->dev, .ino = d->ino };
	struct bt_procfile_want w = { .id = &id };
	struct stat st;
	int fd = -ENOENT, err;

	if (!bt_elf__parked(d->elf))
		return 0;
	if (d->src_pid > 0)
		fd = bt_procfile_open_mapped(d->src_pid, d->src_start, d->src_end, &w, &st);
	if (fd < 0 && d->name[0] == '/')
		fd = bt_procfile_open(d->root ? d->root->fd : -1, d->name, &w, &st);
	if (fd < 0) {
		bt_procfile_debug("cannot reopen %s: %s", d->name, strerror(-fd));
		return fd;
	}
	err = same_stat(d, &st) ? bt_elf__unpark(d->elf, fd) : -ESTALE;
	close(fd);
	if (err) {
		bt_procfile_debug("cannot reopen %s: %s", d->name, strerror(-err));
		return err;
	}
	c->parked--;
	open_touch(c, d);
	return 0;
}

static void dso_unload(struct bt_dso_cache *c, struct bt_dso *d)
{
	if (!d->loaded)
		return;
	lru_unlink(c, d);
	bt_dmcache__clear(&d->dm);
	bt_dwarf__free(d->dw);
	d->dw = NULL;
	d->dw_tried = 0;
	bt_elf__unload(d->elf);
	d->loaded = 0;
	c->nloaded--;
	c->held -= d->held;
	d->held = 0;
}

static void dso_destroy(struct bt_dso_cache *c, struct bt_dso *d)
{
	struct bt_dso **pp = &c->buckets[bucket(d->dev, d->ino)];

	dso_unload(c, d);
	while (*pp && *pp != d)
		pp = &(*pp)->hnext;
	if (*pp)
		*pp = d->hnext;
	open_unlink(c, d);
	if (bt_elf__parked(d->elf))
		c->parked--;
	bt_elf__close(d->elf);
	root_put(c, d->root);
	free(d->name);
	free(d);
	c->nfiles--;
}

void bt_dso_cache__free(struct bt_dso_cache *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < BT_DSO_BUCKETS; i++) {
		while (c->buckets[i])
			dso_destroy(c, c->buckets[i]);
	}
	free(c);
}

size_t bt_dso_cache__drop_unused(struct bt_dso_cache *c, bool all)
{
	struct bt_dso **pp, *d;
	size_t i, n = 0;

	c->period++;
	for (i = 0; i < BT_DSO_BUCKETS; i++) {
		pp = &c->buckets[i];
		while ((d = *pp)) {
			/* put in the period just ended: a loop's next process may want it still */
			if (d->refs || (!all && d->idle_from + 1 >= c->period)) {
				pp = &d->hnext;
				continue;
			}
			/* unlinks d from *pp: the next one is there now */
			dso_destroy(c, d);
			n++;
		}
	}
	return n;
}

void bt_dso_cache__next_generation(struct bt_dso_cache *c)
{
	c->gen++;
}

/*
 * Evict from the cold end until at most max_loaded files hold symbols and need more bytes fit
 * the budget; files used during the current resolve call are pinned.
 */
static void evict(struct bt_dso_cache *c, size_t need)
{
	struct bt_dso *d = c->lru_tail, *prev;

	while (d && (c->nloaded > c->opts.max_loaded || c->held + need > c->opts.budget)) {
		prev = d->lru_prev;
		if (d->gen != c->gen) {
			c->evictions++;
			if (d->refs)
				dso_unload(c, d);
			else
				dso_destroy(c, d);
		}
		d = prev;
	}
}

static int same_stat(const struct bt_dso *d, const struct stat *st)
{
	return d->dev == st->st_dev && d->ino == st->st_ino && d->size == st->st_size &&
	       d->mtime.tv_sec == st->st_mtim.tv_sec && d->mtime.tv_nsec == st->st_mtim.tv_nsec;
}

int bt_dso_cache__get(struct bt_dso_cache *c, int fd, const char *path,
		      const struct bt_dso_src *src, struct bt_dso **out)
{
	struct bt_dso *d;
	struct stat st;
	size_t i;
	int err;

	*out = NULL;
	if (fstat(fd, &st))
		return -errno;
	for (d = c->buckets[bucket(st.st_dev, st.st_ino)]; d; d = d->hnext) {
		if (same_stat(d, &st))
			goto found;
	}
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	if (src && src->rootfd >= 0) {
		/* its debug links resolve in it, even after the process exits */
		d->root = root_get(c, src->rootfd);
		if (!d->root) {
			err = -EMFILE;
			goto fail;
		}
	}
	err = bt_elf__open_fd(fd, path, d->root ? d->root->path : NULL, &d->elf);
	if (err)
		goto fail;
	if (bt_elf__build_id(d->elf)) {
		/* the same build seen through another path or root: share its symbols */
		struct bt_dso *o;

		for (i = 0; i < BT_DSO_BUCKETS; i++) {
			for (o = c->buckets[i]; o; o = o->hnext) {
				const char *id = bt_elf__build_id(o->elf);

				if (id && !strcmp(id, bt_elf__build_id(d->elf))) {
					bt_elf__close(d->elf);
					root_put(c, d->root);
					free(d);
					d = o;
					goto found;
				}
			}
		}
	}
	d->name = strdup(path ? path : "");
	if (!d->name) {
		err = -ENOMEM;
		goto fail;
	}
	d->dev = st.st_dev;
	d->ino = st.st_ino;
	d->size = st.st_size;
	d->mtime = st.st_mtim;
	if (src) {
		d->src_pid = src->pid;
		d->src_start = src->start;
		d->src_end = src->end;
		d->reopenable = 1;
	}
	d->hnext = c->buckets[bucket(d->dev, d->ino)];
	c->buckets[bucket(d->dev, d->ino)] = d;
	c->nfiles++;
	open_touch(c, d);
found:
	d->refs++;
	*out = d;
	return 0;
fail:
	bt_elf__close(d->elf);
	root_put(c, d->root);
	free(d);
	return err;
}

struct bt_dso *bt_dso_cache__find_id(struct bt_dso_cache *c, uint64_t dev, uint64_t ino)
{
	struct bt_dso *d;

	for (d = c->buckets[bucket(dev, ino)]; d; d = d->hnext) {
		/* open, the inode cannot have been freed and its number reused meanwhile */
		if (d->dev == dev && d->ino == ino && !bt_elf__parked(d->elf)) {
			d->refs++;
			return d;
		}
	}
	return NULL;
}

void bt_dso__put(struct bt_dso_cache *c, struct bt_dso *d)
{
	if (!d || --d->refs > 0)
		return;
	d->idle_from = c->period;
	/* a loaded file stays for the next process of the same binary until the LRU drops it */
	if (!d->loaded)
		dso_destroy(c, d);
}

void bt_dso__ref(struct bt_dso *d)
{
	d->refs++;
}

struct bt_elf *bt_dso__elf(struct bt_dso *d)
{
	return d ? d->elf : NULL;
}

const char *bt_dso__name(const struct bt_dso *d)
{
	return d ? d->name : NULL;
}

/*
 * d used now: to the front of the LRU, its descriptor reopened if it was parked (-errno when
 * the file is no longer the one it was). Not loaded yet: what its symbols will take (from its
 * section headers) must fit the budget, after evicting colder files, before anything is read;
 * -E2BIG when it does not (counted once per file).
 */
static int touch(struct bt_dso_cache *c, struct bt_dso *d)
{
	size_t cost;
	int err;

	d->gen = c->gen;
	err = unpark(c, d);
	if (err)
		return err;
	open_touch(c, d);
	if (d->loaded) {
		if (c->lru_head != d) {
			lru_unlink(c, d);
			lru_push(c, d);
		}
		return 0;
	}
	cost = bt_elf__symbols_cost(d->elf);
	evict(c, cost);
	if (c->held + cost > c->opts.budget) {
		if (!d->over_budget) {
			d->over_budget = 1;
			c->over_files++;
			c->over_bytes += cost;
		}
		return -E2BIG;
	}
	d->loaded = 1;
	c->nloaded++;
	lru_push(c, d);
	evict(c, 0);
	return 0;
}

/* Just loaded: what it holds now (debug files merged in included) joins the budget. */
static void account(struct bt_dso_cache *c, struct bt_dso *d)
{
	if (!d->loaded || d->held)
		return;
	d->held = bt_elf__held_bytes(d->elf);
	c->held += d->held;
	evict(c, 0);
}

int bt_dso__resolve(struct bt_dso_cache *c, struct bt_dso *d, uint64_t file_off, int is_ret,
		    struct bt_frame *frames, size_t cap)
{
	const struct bt_dwarf_frame *df = NULL;
	const struct bt_elf_sym *sym;
	struct bt_frame *f;
	uint64_t vaddr, off;
	int ndf = 0, i, n = 0, err;

	if (!cap)
		return 0;
	f = &frames[0];
	f->module = d->name;
	err = touch(c, d);
	if (err && err != -E2BIG) {
		f->reason = BT_SYM_BAD_FILE; /* parked, and no longer the file it was */
		return 1;
	}
	if (err || bt_elf__offset_to_vaddr(d->elf, file_off, &vaddr)) {
		f->reason = BT_SYM_NO_SYMBOL;
		return 1;
	}
	sym = bt_elf__lookup(d->elf, vaddr - (is_ret && vaddr ? 1 : 0), &off);
	account(c, d);
	if (c->opts.debuginfo) {
		if (!d->dw && !d->dw_tried) {
			d->dw_tried = 1;
			bt_dwarf__open(d->elf, c->opts.debuginfod, c->opts.demangle, &d->dw);
		}
		ndf = bt_dwarf__frames(d->dw, vaddr - (is_ret && vaddr ? 1 : 0), &df);
	}
	/* inlined calls first (innermost), then the function that contains them */
	for (i = 0; i + 1 < ndf && (size_t)n + 1 < cap; i++) {
		frames[n] = frames[0];
		frames[n].name = df[i].name;
		frames[n].file = df[i].file;
		frames[n].line = df[i].line;
		frames[n].inlined = 1;
		frames[n].offset = 0;
		frames[n].reason = df[i].name ? BT_SYM_OK : BT_SYM_NO_SYMBOL;
		n++;
	}
	f = &frames[n];
	*f = frames[0];
	f->inlined = 0;
	f->file = NULL;
	f->line = 0;
	if (ndf) {
		f->file = df[ndf - 1].file;
		f->line = df[ndf - 1].line;
	}
	if (sym) {
		f->name = c->opts.demangle ? bt_dmcache__get(&d->dm, sym->name) : sym->name;
		f->offset = off + (is_ret && vaddr ? 1 : 0);
		f->reason = BT_SYM_OK;
	} else if (ndf && df[ndf - 1].name) {
		f->name = df[ndf - 1].name; /* DWARF knows a function the symbol tables do not */
		f->offset = 0;
		f->reason = BT_SYM_OK;
	} else {
		int src = bt_elf__symbol_source(d->elf);

		f->name = NULL;
		f->reason = src == BT_ELF_SRC_NONE || src == BT_ELF_SRC_DYNSYM ? BT_SYM_STRIPPED
									       : BT_SYM_NO_SYMBOL;
	}
	return n + 1;
}

void bt_dso_cache__stats(const struct bt_dso_cache *c, size_t *files, size_t *loaded,
			 size_t *evictions, size_t *parked)
{
	*parked = c->parked;
	*files = c->nfiles;
	*loaded = c->nloaded;
	*evictions = c->evictions;
}

void bt_dso_cache__budget(const struct bt_dso_cache *c, size_t *held, uint64_t *over_files,
			  uint64_t *over_bytes)
{
	*held = c->held;
	*over_files = c->over_files;
	*over_bytes = c->over_bytes;
}

size_t bt_dso_cache__unused_bytes(const struct bt_dso_cache *c)
{
	const struct bt_dso *d;
	size_t n = 0;

	for (d = c->lru_head; d; d = d->lru_next)
		if (!d->refs)
			n += d->held;
	return n;
}
