// SPDX-License-Identifier: GPL-2.0
/*
 * Where "lib:func" and "prog:func" live, and which file offsets their functions start at.
 * Symbols come from symbolize/bt_elf (one ELF reader for the program: .symtab, .dynsym, and
 * the separate debug file of a stripped binary). Lookups never involve a shell.
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdarg.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bt_elf.h"
#include "bt_procfile.h"
#include "bt_err.h"
#include "bt_uprobe.h"

/* ---- name patterns ---------------------------------------------------------------------- */

int bt_match__init(struct bt_match *m, const char *pattern, bool regex)
{
	int rc;

	memset(m, 0, sizeof(*m));
	m->regex = regex;
	m->pattern = strdup(pattern);
	if (!m->pattern)
		return -ENOMEM;
	if (!regex) {
		m->literal = !strpbrk(pattern, "*?[");
		return 0;
	}
	/*
	 * Compiled as written, not wrapped in "^(...)$": a wrapper group would renumber the
	 * user's groups, so "(mem)\1" would name the wrong group. bt_match__test() asks for the
	 * whole name instead.
	 */
	rc = regcomp(&m->re, pattern, REG_EXTENDED);
	if (rc) {
		char msg[128];

		regerror(rc, &m->re, msg, sizeof(msg));
		free(m->pattern);
		m->pattern = NULL;
		return bt_usage_err("invalid regular expression '%s': %s", pattern, msg);
	}
	return 0;
}

bool bt_regex_whole(const regex_t *re, const char *name)
{
	regmatch_t pm[1];

	/*
	 * The whole name must match, not a substring (unlike grep, like fnmatch). POSIX picks
	 * the leftmost match and, of those, the longest, so a match that could span the name
	 * starts at 0 and ends at its end.
	 */
	if (regexec(re, name, 1, pm, 0))
		return false;
	return pm[0].rm_so == 0 && (size_t)pm[0].rm_eo == strlen(name);
}

bool bt_match__test(const struct bt_match *m, const char *name)
{
	if (m->regex)
		return bt_regex_whole(&m->re, name);
	if (m->literal)
		return strcmp(m->pattern, name) == 0;
	return fnmatch(m->pattern, name, 0) == 0;
}

void bt_match__fini(struct bt_match *m)
{
	if (!m || !m->pattern)
		return;
	if (m->regex)
		regfree(&m->re);
	free(m->pattern);
	m->pattern = NULL;
}

/* ---- library and program lookup ------------------------------------------------------- */

/*
 * Whether file name 'base' is library 'name': "c", "libc", "libc.so" and "libc.so.6" all name
 * "libc.so.6"; "foo" also names "libfoo-1.2.so" (versioned before the suffix). 'dash' allows
 * that last form, which only /proc/PID/maps needs (ld.so.cache keys are sonames).
 */
static bool lib_name_matches(const char *base, const char *name, bool dash)
{
	size_t n;

	if (!strcmp(base, name))
		return true;
	if (strncmp(base, "lib", 3))
		return false;
	base += 3;
	if (!strncmp(name, "lib", 3))
		name += 3;
	n = strlen(name);
	if (!n || strncmp(base, name, n))
		return false;
	base += n;
	if (strstr(name, ".so")) /* "libc.so" names "libc.so.6" */
		return *base == '\0' || *base == '.';
	if (dash && *base == '-')
		return strstr(base, ".so") != NULL;
	return !strncmp(base, ".so", 3) && (base[3] == '\0' || base[3] == '.');
}

#define LDCACHE_OLD_MAGIC "ld.so-1.7.0"
#define LDCACHE_NEW_MAGIC "glibc-ld.so.cache"
#define LDCACHE_NEW_VERSION "1.1"

/* glibc's sysdeps/generic/ldconfig.h and dl-cache.h */
#define FLAG_TYPE_MASK 0x00ff
#define FLAG_ELF_LIBC6 0x0003
#define FLAG_REQUIRED_MASK 0xff00
#if defined(__x86_64__)
#define FLAG_ARCH 0x0300 /* FLAG_X8664_LIB64 */
#elif defined(__aarch64__)
#define FLAG_ARCH 0x0a00 /* FLAG_AARCH64_LIB64 */
#else
#define FLAG_ARCH 0x0000
#endif

struct ldcache_old_entry {
	int32_t flags;
	uint32_t key, value;
};

struct ldcache_new_hdr {
	char magic[17];
	char version[3];
	uint32_t nlibs;
	uint32_t len_strings;
	uint8_t flags;
	uint8_t pad[3];
	uint32_t extension_offset;
	uint32_t unused[3];
};

struct ldcache_new_entry {
	int32_t flags;
	uint32_t key, value;
	uint32_t osversion;
	uint64_t hwcap;
};

static bool ldcache_flags_ok(int32_t flags)
{
	return (flags & FLAG_TYPE_MASK) == FLAG_ELF_LIBC6 &&
	       (flags & FLAG_REQUIRED_MASK) == FLAG_ARCH;
}

/* A NUL-terminated string at 'off' inside [0, size), or NULL. */
static const char *str_at(const char *buf, size_t size, uint64_t off)
{
	if (off >= size || !memchr(buf + off, '\0', size - off))
		return NULL;
	return buf + off;
}

static int ldcache_search(const char *buf, size_t size, const char *name, char **path)
{
	const struct ldcache_new_hdr *h = NULL;
	size_t base = 0, i;

	if (size >= sizeof(*h) && !memcmp(buf, LDCACHE_NEW_MAGIC, 17)) {
		h = (const void *)buf;
	} else if (size >= 16 && !memcmp(buf, LDCACHE_OLD_MAGIC, 11)) {
		uint32_t n;
		size_t strings;

		memcpy(&n, buf + 12, 4);
		strings = 16 + (size_t)n * sizeof(struct ldcache_old_entry);
		if (strings > size)
			return -ENOEXEC;
		/* Since glibc 2.32 the old table is usually followed by the new format. */
		base = (strings + 7) & ~(size_t)7;
		if (base + sizeof(*h) <= size && !memcmp(buf + base, LDCACHE_NEW_MAGIC, 17)) {
			h = (const void *)(buf + base);
		} else {
			const struct ldcache_old_entry *e = (const void *)(buf + 16);

			for (i = 0; i < n; i++) {
				const char *k = str_at(buf, size, strings + (uint64_t)e[i].key);
				const char *v = str_at(buf, size, strings + (uint64_t)e[i].value);

				if (k && v && ldcache_flags_ok(e[i].flags) &&
				    lib_name_matches(k, name, false))
					return (*path = strdup(v)) ? 0 : -ENOMEM;
			}
			return -ENOENT;
		}
	} else {
		return -ENOEXEC;
	}
	if (memcmp(h->version, LDCACHE_NEW_VERSION, 3))
		return -ENOEXEC;
	if ((size - base - sizeof(*h)) / sizeof(struct ldcache_new_entry) < h->nlibs)
		return -ENOEXEC;
	for (i = 0; i < h->nlibs; i++) {
		struct ldcache_new_entry e;
		const char *k, *v;

		memcpy(&e, buf + base + sizeof(*h) + i * sizeof(e), sizeof(e));
		/* new-format string offsets count from the start of the new header */
		k = str_at(buf, size, base + (uint64_t)e.key);
		v = str_at(buf, size, base + (uint64_t)e.value);
		if (k && v && ldcache_flags_ok(e.flags) && lib_name_matches(k, name, false))
			return (*path = strdup(v)) ? 0 : -ENOMEM;
	}
	return -ENOENT;
}

int bt_ldcache_lookup(const char *cache, const char *name, char **path)
{
	struct stat st;
	void *buf;
	int fd, err;

	fd = open(cache ? cache : "/etc/ld.so.cache", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		err = -errno;
		close(fd);
		return err;
	}
	if (st.st_size < 16) {
		close(fd);
		return -ENOEXEC;
	}
	buf = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (buf == MAP_FAILED)
		return -errno;
	err = ldcache_search(buf, st.st_size, name, path);
	munmap(buf, st.st_size);
	return err;
}

static bool is_exec_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

int bt_path_lookup(const char *prog, char **path)
{
	const char *env = getenv("PATH"), *p, *end;
	char buf[PATH_MAX];

	if (!env)
		env = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
	for (p = env;; p = end + 1) {
		int len;

		end = strchrnul(p, ':');
		/* an empty element means the current directory, as for execvp() */
		if (end == p)
			len = snprintf(buf, sizeof(buf), "./%s", prog);
		else
			len = snprintf(buf, sizeof(buf), "%.*s/%s", (int)(end - p), p, prog);
		if (len > 0 && (size_t)len < sizeof(buf) && is_exec_file(buf))
			return (*path = strdup(buf)) ? 0 : -ENOMEM;
		if (!*end)
			break;
	}
	return -ENOENT;
}

/* Whether process pid sees another file tree than we do: another mount namespace or root. */
static bool other_root(pid_t pid)
{
	char fn[64], theirs[64], ours[64];
	struct stat a, b;
	ssize_t n, m;

	snprintf(fn, sizeof(fn), "/proc/%d/ns/mnt", (int)pid);
	n = readlink(fn, theirs, sizeof(theirs) - 1);
	m = readlink("/proc/self/ns/mnt", ours, sizeof(ours) - 1);
	if (n > 0 && m > 0 && (n != m || memcmp(theirs, ours, n)))
		return true;
	snprintf(fn, sizeof(fn), "/proc/%d/root", (int)pid);
	return !stat(fn, &a) && !stat("/", &b) && (a.st_dev != b.st_dev || a.st_ino != b.st_ino);
}

int bt_procmaps_lookup(pid_t pid, const char *name, char **path)
{
	char fn[64], *line = NULL, *lib = NULL, *exact = NULL;
	size_t cap = 0;
	FILE *f;
	int err = -ENOENT;

	snprintf(fn, sizeof(fn), "/proc/%d/maps", (int)pid);
	f = fopen(fn, "re");
	if (!f)
		return errno == ENOENT ? -ESRCH : -errno;
	while (getline(&line, &cap, f) > 0) {
		char *file = strchr(line, '/'), *base;
		size_t n;

		if (!file)
			continue;
		n = strcspn(file, "\n");
		file[n] = '\0';
		if (n > 10 && !strcmp(file + n - 10, " (deleted)"))
			continue;
		base = strrchr(file, '/') + 1;
		if (!exact && !strcmp(base, name))
			exact = strdup(file);
		else if (!lib && lib_name_matches(base, name, true))
			lib = strdup(file);
	}
	free(line);
	fclose(f);
	if ((exact || lib) && !other_root(pid)) {
		/*
		 * Our own file tree: the path as the user knows it, which stays valid (and right
		 * in messages) should the process exit while we read and attach.
		 */
		*path = strdup(exact ? exact : lib);
		err = *path ? 0 : -ENOMEM;
	} else if (exact || lib) {
		/* another mount namespace or root (a container): go through its root */
		err = asprintf(path, "/proc/%d/root%s", (int)pid, exact ? exact : lib) < 0 ? -ENOMEM
											   : 0;
	}
	free(exact);
	free(lib);
	return err;
}

int bt_uprobe_find_module(const char *module, pid_t pid, char **path)
{
	char real[PATH_MAX];
	int err;

	*path = NULL;
	if (strchr(module, '/')) {
		struct stat st;

		/*
		 * With -p, an absolute path names a file of that process, which may exist only in
		 * its own mount namespace (a container): reach it through /proc/PID/root.
		 */
		if (pid > 0 && module[0] == '/' && other_root(pid)) {
			if (asprintf(path, "/proc/%d/root%s", (int)pid, module) < 0) {
				*path = NULL;
				return -ENOMEM;
			}
			if (!stat(*path, &st) && S_ISREG(st.st_mode))
				return 0;
			free(*path);
			*path = NULL;
		}
		if (stat(module, &st))
			return bt_usage_err("cannot find '%s': %s", module, strerror(errno));
		if (!S_ISREG(st.st_mode))
			return bt_usage_err("cannot trace '%s': not a regular file", module);
		/* canonical, so that debug output and messages say which file it really was */
		*path = strdup(realpath(module, real) ? real : module);
		return *path ? 0 : -ENOMEM;
	}
	if (pid > 0) {
		err = bt_procmaps_lookup(pid, module, path);
		if (err != -ENOENT)
			return err == -ESRCH ? bt_usage_err("no process with PID %d", (int)pid)
					     : err;
	}
	err = bt_ldcache_lookup(NULL, module, path);
	if (err == -ENOMEM)
		return err;
	if (err)
		err = bt_path_lookup(module, path);
	if (err == -ENOENT)
		return bt_usage_err("cannot find library or program '%s'", module);
	return err;
}

/* ---- user symbols ----------------------------------------------------------------------- */

struct cand {
	const char *name;
	const char *version;
	uint64_t vaddr;
	int rank;
};

struct collect {
	const struct bt_match *m;
	struct cand *v;
	size_t n, cap;
	const char *path;
	void *dl; /* the same library loaded in this process, for IFUNCs; or NULL */
	bool dl_tried;
	int err;
};

static int sym_rank(const struct bt_elf_sym *s)
{
	int r = s->bind == 1 /* STB_GLOBAL */ ? 0 : s->bind == 2 /* STB_WEAK */ ? 1000 : 2000;
	const char *p;

	for (p = s->name; *p == '_'; p++)
		r += 100;
	return r + (int)(strlen(s->name) > 99 ? 99 : strlen(s->name));
}

static bool sym_matches(const struct bt_match *m, const struct bt_elf_sym *s)
{
	char buf[512];

	if (!strchr(m->pattern, '@'))
		return bt_match__test(m, s->name);
	if (!s->version)
		return false;
	/* "func@VER" and "func@@VER" both name a versioned definition */
	snprintf(buf, sizeof(buf), "%s@%s", s->name, s->version);
	if (bt_match__test(m, buf))
		return true;
	snprintf(buf, sizeof(buf), "%s@@%s", s->name, s->version);
	return bt_match__test(m, buf);
}

/*
 * An IFUNC symbol's address is its resolver, which runs once per process at relocation time.
 * The implementation it picks depends on this CPU; when the library is loaded in this process
 * too (libc always is), the dynamic linker already made that choice here: ask it. Never load
 * a library for this (RTLD_NOLOAD): its constructors would run as root.
 */
static int ifunc_resolve(struct collect *c, const struct bt_elf_sym *s, uint64_t *vaddr)
{
	struct link_map *lm = NULL, *own = NULL;
	Dl_info info;
	void *addr;

	if (!c->dl_tried) {
		c->dl_tried = true;
		c->dl = dlopen(c->path, RTLD_LAZY | RTLD_NOLOAD);
	}
	if (!c->dl || dlinfo(c->dl, RTLD_DI_LINKMAP, &own))
		return -ENOENT;
	addr = s->version ? dlvsym(c->dl, s->name, s->version) : dlsym(c->dl, s->name);
	if (!addr || !dladdr1(addr, &info, (void **)&lm, RTLD_DL_LINKMAP) || lm != own)
		return -ENOENT;
	*vaddr = (uint64_t)(uintptr_t)addr - lm->l_addr;
	return 0;
}

/* A skipped symbol is worth a warning when asked for by name, noise in a wildcard. */
__attribute__((format(printf, 2, 3))) static void report_skip(const struct bt_match *m,
							      const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (m->literal)
		bt_warn("%s", buf);
	else
		bt_debug("%s", buf);
}

static int collect_cb(const struct bt_elf_sym *s, void *ctx)
{
	struct collect *c = ctx;
	uint64_t vaddr = s->vaddr;

	if (s->kind != BT_ELF_FUNC && s->kind != BT_ELF_IFUNC && s->kind != BT_ELF_NOTYPE)
		return 0;
	if (!sym_matches(c->m, s))
		return 0;
	if (s->kind == BT_ELF_IFUNC && ifunc_resolve(c, s, &vaddr)) {
		report_skip(c->m,
			    "skipping '%s' in '%s': an IFUNC whose implementation cannot be "
			    "found from here (not exported, or in the vDSO)",
			    s->name, c->path);
		return 0;
	}
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 64;
		struct cand *v = realloc(c->v, cap * sizeof(*v));

		if (!v)
			return c->err = -ENOMEM;
		c->v = v;
		c->cap = cap;
	}
	c->v[c->n++] = (struct cand){ s->name, s->version, vaddr, sym_rank(s) };
	return 0;
}

static int cmp_cand(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->vaddr != y->vaddr)
		return x->vaddr < y->vaddr ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank - y->rank;
	return strcmp(x->name, y->name);
}

/*
 * x86-64: an EVEX prefix (0x62) on the first instruction. The kernel single-steps the probed
 * instruction out of line; with EVEX-encoded AVX-512 instructions (glibc's *_evex string
 * functions, chosen by IFUNC on AVX-512 machines) the traced code computed wrong results, so
 * such a probe would corrupt every process using the function. Refuse it.
 */
static bool evex_first(const struct bt_elf *elf, uint64_t offset)
{
#if defined(__x86_64__)
	unsigned char b = 0;

	return pread(bt_elf__fd(elf), &b, 1, offset) == 1 && b == 0x62;
#else
	return false;
#endif
}

int bt_uprobe_open_elf(const char *path, const char *root, struct bt_elf **elf)
{
	size_t n = root ? strlen(root) : 0;
	struct stat st, kst;
	int fd, err;

	/*
	 * Debug files are looked up by the file's own path, under its root: that path is the one
	 * inside the process's namespace. Prefixing the root to "/proc/PID/root/usr/lib/x.so"
	 * again only worked while the process shared our /proc.
	 */
	if (!n || strncmp(path, root, n) || path[n] != '/')
		return bt_elf__open(path, NULL, elf);
	*elf = NULL;
	fd = bt_procfile_open_in(root, path + n, NULL, &st);
	if (fd < 0)
		return fd;
	/*
	 * The probe is attached by the whole path, which the kernel walks from our root: an
	 * absolute symlink in the container would take it to a host file, not this one
	 */
	if (stat(path, &kst) || kst.st_dev != st.st_dev || kst.st_ino != st.st_ino) {
		bt_debug("'%s' resolves outside the process's root", path);
		close(fd);
		return -EXDEV;
	}
	err = bt_elf__open_fd(fd, path + n, root, elf);
	close(fd);
	return err;
}

int bt_uprobe_foreach_match(const char *path, const char *root, const struct bt_match *m,
			    bt_usym_cb cb, void *ctx)
{
	struct collect c = { .m = m, .path = path };
	struct bt_elf *elf = NULL;
	size_t i;
	int err, n = 0;

	err = bt_uprobe_open_elf(path, root, &elf);
	if (err)
		return err;
	err = bt_elf__foreach_func(elf, collect_cb, &c);
	if (!err)
		err = c.err;
	if (err)
		goto cleanup;
	if (c.n)
		qsort(c.v, c.n, sizeof(*c.v), cmp_cand);
	for (i = 0; i < c.n; i++) {
		struct bt_usym u;

		/* aliases at one address: one uprobe, under the best-ranked name (sorted first) */
		if (i && c.v[i].vaddr == c.v[i - 1].vaddr)
			continue;
		u = (struct bt_usym){ c.v[i].name, c.v[i].version, c.v[i].vaddr, 0 };
		if (bt_elf__vaddr_to_offset(elf, u.vaddr, &u.offset)) {
			bt_debug("'%s' at 0x%llx in '%s' is outside every loadable segment", u.name,
				 (unsigned long long)u.vaddr, path);
			continue;
		}
		if (evex_first(elf, u.offset)) {
			report_skip(c.m,
				    "'%s' in '%s' starts with an EVEX (AVX-512) instruction, which "
				    "uprobes mis-execute (observed on 6.18: wrong results in every "
				    "traced process); skipped",
				    u.name, path);
			continue;
		}
		err = cb(&u, ctx);
		if (err)
			goto cleanup;
		n++;
	}
	err = n;
cleanup:
	if (c.dl)
		dlclose(c.dl);
	free(c.v);
	bt_elf__close(elf);
	return err;
}

/* ---- USDT notes ------------------------------------------------------------------------- */

struct usdt_seen {
	char **v;
	size_t n;
};

static bool seen_add(struct usdt_seen *s, const char *prov, const char *name, int *err)
{
	char *key, **v;
	size_t i;

	if (asprintf(&key, "%s:%s", prov, name) < 0) {
		*err = -ENOMEM;
		return false;
	}
	for (i = 0; i < s->n; i++) {
		if (!strcmp(s->v[i], key)) {
			free(key);
			return false;
		}
	}
	v = realloc(s->v, (s->n + 1) * sizeof(*v));
	if (!v) {
		free(key);
		*err = -ENOMEM;
		return false;
	}
	s->v = v;
	s->v[s->n++] = key;
	return true;
}

static int pread_all(int fd, void *buf, size_t n, uint64_t off)
{
	ssize_t r = pread(fd, buf, n, off);

	if (r < 0)
		return -errno;
	return (size_t)r == n ? 0 : -ENOEXEC;
}

/*
 * .note.stapsdt read with plain <elf.h> structures: libbpf finds the sites itself at attach
 * time, this only lists the provider:name pairs that wildcards expand over. 64-bit only.
 */
int bt_usdt_foreach(const char *path, bt_usdt_cb cb, void *ctx)
{
	struct usdt_seen seen = { 0 };
	Elf64_Shdr *sh = NULL;
	Elf64_Ehdr eh;
	char *names = NULL, *notes = NULL;
	size_t i;
	int fd, err, count = 0;

	fd = bt_procfile_open(-1, path, NULL, NULL);
	if (fd < 0)
		return fd;
	err = pread_all(fd, &eh, sizeof(eh), 0);
	if (err)
		goto cleanup;
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_shentsize != sizeof(Elf64_Shdr) || !eh.e_shnum || eh.e_shstrndx >= eh.e_shnum) {
		err = -ENOEXEC;
		goto cleanup;
	}
	sh = calloc(eh.e_shnum, sizeof(*sh));
	if (!sh) {
		err = -ENOMEM;
		goto cleanup;
	}
	err = pread_all(fd, sh, eh.e_shnum * sizeof(*sh), eh.e_shoff);
	if (err || sh[eh.e_shstrndx].sh_size > (1 << 24))
		goto cleanup;
	names = calloc(1, sh[eh.e_shstrndx].sh_size + 1);
	if (!names) {
		err = -ENOMEM;
		goto cleanup;
	}
	err = pread_all(fd, names, sh[eh.e_shstrndx].sh_size, sh[eh.e_shstrndx].sh_offset);
	if (err)
		goto cleanup;
	for (i = 0; i < eh.e_shnum; i++) {
		uint64_t off = 0, size = sh[i].sh_size;

		if (sh[i].sh_type != SHT_NOTE || sh[i].sh_name >= sh[eh.e_shstrndx].sh_size ||
		    strcmp(names + sh[i].sh_name, ".note.stapsdt") || size > (1 << 26))
			continue;
		free(notes);
		notes = malloc(size + 1);
		if (!notes) {
			err = -ENOMEM;
			goto cleanup;
		}
		err = pread_all(fd, notes, size, sh[i].sh_offset);
		if (err)
			goto cleanup;
		notes[size] = '\0';
		while (off + sizeof(Elf64_Nhdr) <= size) {
			Elf64_Nhdr nh;
			uint64_t name_off, desc_off, next;
			const char *prov, *pname;

			memcpy(&nh, notes + off, sizeof(nh));
			name_off = off + sizeof(nh);
			desc_off = name_off + ((nh.n_namesz + 3) & ~3U);
			next = desc_off + ((nh.n_descsz + 3) & ~3U);
			if (next > size)
				break;
			/* desc: pc, base, semaphore (3 x 8 bytes), provider\0name\0args\0 */
			if (nh.n_type == 3 && nh.n_namesz == 8 &&
			    !memcmp(notes + name_off, "stapsdt", 8) && nh.n_descsz > 24) {
				prov = notes + desc_off + 24;
				pname = memchr(prov, '\0', nh.n_descsz - 24);
				if (pname && pname + 1 < notes + desc_off + nh.n_descsz) {
					pname++;
					if (memchr(pname, '\0',
						   notes + desc_off + nh.n_descsz - pname) &&
					    seen_add(&seen, prov, pname, &err)) {
						err = cb(prov, pname, ctx);
						if (err)
							goto cleanup;
						count++;
					}
					if (err)
						goto cleanup;
				}
			}
			off = next;
		}
	}
	err = count;
cleanup:
	for (i = 0; i < seen.n; i++)
		free(seen.v[i]);
	free(seen.v);
	free(notes);
	free(names);
	free(sh);
	close(fd);
	return err;
}
