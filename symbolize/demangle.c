// SPDX-License-Identifier: GPL-2.0
/*
 * With libiberty (binutils' and GCC's own demangler, Debian's libiberty-dev, found at build
 * time: BT_HAVE_LIBIBERTY): Rust's legacy (_ZN...17h<hash>E) and v0 (_R...) names, C++ and D,
 * the hashes left out as `nm -C` leaves them. Without it: C++ through the C++ runtime's
 * __cxa_demangle and legacy Rust by hand below (the C++ demangler would turn it into
 * "a::b::h0123456789abcdef" with the $LT$-style escapes left in); v0 names stay mangled.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include <stdint.h>

#ifdef BT_HAVE_LIBIBERTY
#include <libiberty/demangle.h>
#endif

#include "sym_internal.h"

/* a mangled name: C++ and legacy Rust "_Z...", Rust v0 "_R..." */
static int is_mangled(const char *name)
{
	return name && name[0] == '_' && (name[1] == 'Z' || name[1] == 'R');
}

#ifdef BT_HAVE_LIBIBERTY
char *bt_demangle(const char *name)
{
	if (!is_mangled(name))
		return NULL;
	/* DMGL_AUTO: Rust first (it refuses C++ names), then C++; no DMGL_VERBOSE: no hashes */
	return cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI | DMGL_AUTO);
}
#else
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

static int is_rust_hash(const char *p, size_t n)
{
	size_t i;

	if (n != 17 || p[0] != 'h')
		return 0;
	for (i = 1; i < n; i++) {
		if (!isxdigit((unsigned char)p[i]))
			return 0;
	}
	return 1;
}

static const struct {
	const char *esc, *repl;
} rust_esc[] = {
	{ "$SP$", "@" },  { "$BP$", "*" },  { "$RF$", "&" },   { "$LT$", "<" },	 { "$GT$", ">" },
	{ "$LP$", "(" },  { "$RP$", ")" },  { "$C$", "," },    { "$u7e$", "~" }, { "$u20$", " " },
	{ "$u27$", "'" }, { "$u5b$", "[" }, { "$u5d$", "]" },  { "$u7b$", "{" }, { "$u7d$", "}" },
	{ "$u3b$", ";" }, { "$u2b$", "+" }, { "$u22$", "\"" },
};

/* Append one identifier with its escapes decoded; 0 on success. */
static int rust_ident(const char *p, size_t n, char *out, size_t *o)
{
	size_t i = 0, k;

	if (n >= 2 && p[0] == '_' && p[1] == '$')
		i = 1;
	while (i < n) {
		if (p[i] == '$') {
			for (k = 0; k < sizeof(rust_esc) / sizeof(rust_esc[0]); k++) {
				size_t l = strlen(rust_esc[k].esc);

				if (l <= n - i && !memcmp(p + i, rust_esc[k].esc, l)) {
					out[(*o)++] = rust_esc[k].repl[0];
					i += l;
					break;
				}
			}
			if (k == sizeof(rust_esc) / sizeof(rust_esc[0]))
				return -1;
		} else if (p[i] == '.' && i + 1 < n && p[i + 1] == '.') {
			out[(*o)++] = ':';
			out[(*o)++] = ':';
			i += 2;
		} else {
			out[(*o)++] = p[i++];
		}
	}
	return 0;
}

static char *rust_legacy(const char *name)
{
	const char *p = name + 3, *elems[64];
	size_t lens[64], n = 0, i, o = 0;
	char *out;

	while (*p && *p != 'E') {
		char *end;
		unsigned long len = strtoul(p, &end, 10);

		if (end == p || !len || len > strlen(end) || n == 64)
			return NULL;
		elems[n] = end;
		lens[n++] = len;
		p = end + len;
	}
	if (*p != 'E' || n < 2 || !is_rust_hash(elems[n - 1], lens[n - 1]))
		return NULL;
	out = malloc(strlen(name) * 2 + 1); /* escapes only shrink; "::" per element */
	if (!out)
		return NULL;
	for (i = 0; i + 1 < n; i++) {
		if (i) {
			out[o++] = ':';
			out[o++] = ':';
		}
		if (rust_ident(elems[i], lens[i], out, &o)) {
			free(out);
			return NULL;
		}
	}
	out[o] = 0;
	return out;
}

char *bt_demangle(const char *name)
{
	int status = 0;
	char *r;

	if (!is_mangled(name) || name[1] != 'Z')
		return NULL;
	if (name[2] == 'N' && (r = rust_legacy(name)))
		return r;
	r = __cxa_demangle(name, NULL, NULL, &status);
	if (status) {
		free(r);
		return NULL;
	}
	return r;
}
#endif

struct bt_dm_slot {
	const char *mangled;
	char *demangled;
};

static size_t ptr_hash(const void *p)
{
	uint64_t v = (uintptr_t)p;

	v ^= v >> 33;
	v *= 0xff51afd7ed558ccdULL;
	v ^= v >> 33;
	return v;
}

static int dm_grow(struct bt_dmcache *c)
{
	size_t ncap = c->cap ? c->cap * 2 : 256, i, j;
	struct bt_dm_slot *nt = calloc(ncap, sizeof(*nt));

	if (!nt)
		return -1;
	for (i = 0; i < c->cap; i++) {
		if (!c->t[i].mangled)
			continue;
		for (j = ptr_hash(c->t[i].mangled) & (ncap - 1); nt[j].mangled;
		     j = (j + 1) & (ncap - 1))
			;
		nt[j] = c->t[i];
	}
	free(c->t);
	c->t = nt;
	c->cap = ncap;
	return 0;
}

const char *bt_dmcache__get(struct bt_dmcache *c, const char *name)
{
	size_t i, mask;

	/* the common case, a C name, costs two compares and no table */
	if (!is_mangled(name))
		return name;
	if (c->n * 2 >= c->cap && dm_grow(c))
		return name;
	mask = c->cap - 1;
	for (i = ptr_hash(name) & mask; c->t[i].mangled; i = (i + 1) & mask) {
		if (c->t[i].mangled == name)
			return c->t[i].demangled ? c->t[i].demangled : name;
	}
	c->t[i].mangled = name;
	c->t[i].demangled = bt_demangle(name);
	c->n++;
	return c->t[i].demangled ? c->t[i].demangled : name;
}

void bt_dmcache__clear(struct bt_dmcache *c)
{
	size_t i;

	for (i = 0; i < c->cap; i++)
		free(c->t[i].demangled);
	free(c->t);
	c->t = NULL;
	c->n = c->cap = 0;
}
