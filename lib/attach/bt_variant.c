// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <bpf/btf.h>

#include "bt_err.h"
#include "bt_variant.h"

static const char *skip_prefix(const char *s, const char *prefix)
{
	size_t n = strlen(prefix);

	return strncmp(s, prefix, n) ? NULL : s + n;
}

void bt_point_parse(const char *section, struct bt_point *pt)
{
	static const struct {
		const char *prefix;
		enum bt_point_kind kind;
	} kinds[] = {
		{ "tp_btf/", BT_POINT_TP_BTF },		{ "raw_tp/", BT_POINT_RAW_TP },
		{ "raw_tracepoint/", BT_POINT_RAW_TP }, { "tracepoint/", BT_POINT_TRACEPOINT },
		{ "tp/", BT_POINT_TRACEPOINT },		{ "kprobe/", BT_POINT_KPROBE },
		{ "kretprobe/", BT_POINT_KPROBE },	{ "fentry/", BT_POINT_FENTRY },
		{ "fexit/", BT_POINT_FENTRY },
	};
	const char *rest = NULL;
	size_t i;

	memset(pt, 0, sizeof(*pt));
	if (section[0] == '?')
		section++;
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		rest = skip_prefix(section, kinds[i].prefix);
		if (rest) {
			pt->kind = kinds[i].kind;
			break;
		}
	}
	if (!rest || !*rest) {
		pt->kind = BT_POINT_OTHER;
		return;
	}
	if (pt->kind == BT_POINT_TRACEPOINT) {
		const char *slash = strchr(rest, '/');

		if (!slash || (size_t)(slash - rest) >= sizeof(pt->category)) {
			pt->kind = BT_POINT_OTHER;
			return;
		}
		memcpy(pt->category, rest, slash - rest);
		rest = slash + 1;
	}
	snprintf(pt->name, sizeof(pt->name), "%s", rest);
}

struct strbuf {
	char *p;
	size_t size, len;
	bool full;
};

static void put(struct strbuf *b, const char *s)
{
	size_t n = strlen(s);

	if (b->len + n + 1 > b->size) {
		b->full = true;
		return;
	}
	memcpy(b->p + b->len, s, n + 1);
	b->len += n;
}

static void type_str(const struct btf *btf, __u32 id, struct strbuf *b, int depth)
{
	const struct btf_type *t;
	const char *name;

	if (depth > 16) { /* a malformed loop; real types nest a few levels */
		b->full = true;
		return;
	}
	if (!id) {
		put(b, "void");
		return;
	}
	t = btf__type_by_id(btf, id);
	if (!t) {
		put(b, "?");
		return;
	}
	name = btf__name_by_offset(btf, t->name_off);
	if (!name)
		name = "";
	switch (btf_kind(t)) {
	case BTF_KIND_PTR:
		type_str(btf, t->type, b, depth + 1);
		put(b, b->len && b->p[b->len - 1] == '*' ? "*" : " *");
		return;
	case BTF_KIND_CONST:
		put(b, "const ");
		type_str(btf, t->type, b, depth + 1);
		return;
	case BTF_KIND_VOLATILE:
		put(b, "volatile ");
		type_str(btf, t->type, b, depth + 1);
		return;
	case BTF_KIND_RESTRICT:
	case BTF_KIND_TYPE_TAG:
		type_str(btf, t->type, b, depth + 1);
		return;
	case BTF_KIND_STRUCT:
		put(b, "struct ");
		break;
	case BTF_KIND_UNION:
		put(b, "union ");
		break;
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		put(b, "enum ");
		break;
	case BTF_KIND_FWD:
		put(b, btf_kflag(t) ? "union " : "struct ");
		break;
	case BTF_KIND_ARRAY:
		type_str(btf, btf_array(t)->type, b, depth + 1);
		put(b, "[]");
		return;
	case BTF_KIND_FUNC_PROTO:
		put(b, "fn");
		return;
	default: /* INT, FLOAT, TYPEDEF: the name says it */
		break;
	}
	put(b, name);
}

int bt_btf_type_str(const struct btf *btf, __u32 id, char *buf, size_t size)
{
	struct strbuf b = { .p = buf, .size = size };

	if (size)
		buf[0] = '\0';
	type_str(btf, id, &b, 0);
	return b.full ? -ENOSPC : 0;
}

/* Two C types are the same when they differ only in white space. */
static bool same_type(const char *a, const char *b)
{
	for (;; a++, b++) {
		while (isspace((unsigned char)*a))
			a++;
		while (isspace((unsigned char)*b))
			b++;
		if (*a != *b)
			return false;
		if (!*a)
			return true;
	}
}

/* The next comma-separated type of sig, spaces removed, into buf; NULL at the end. */
static const char *next_param(const char *s, char *buf, size_t size)
{
	size_t n = 0;

	while (*s && isspace((unsigned char)*s))
		s++;
	if (!*s)
		return NULL;
	for (; *s && *s != ','; s++)
		if (!isspace((unsigned char)*s) && n + 1 < size)
			buf[n++] = *s;
	buf[n] = '\0';
	return *s == ',' ? s + 1 : s;
}

/* The prototype a probe point has in btf, and how many leading parameters sig leaves out. */
static const struct btf_type *point_proto(const struct btf *btf, const struct bt_point *pt,
					  int *skip)
{
	const struct btf_type *t;
	char name[160];
	int id;

	*skip = 0;
	if (pt->kind == BT_POINT_KPROBE || pt->kind == BT_POINT_FENTRY) {
		id = btf__find_by_name_kind(btf, pt->name, BTF_KIND_FUNC);
		if (id <= 0)
			return NULL;
		t = btf__type_by_id(btf, id);
		return t ? btf__type_by_id(btf, t->type) : NULL;
	}
	/* Tracepoints: typedef void (*btf_trace_NAME)(void *__data, args...). */
	snprintf(name, sizeof(name), "btf_trace_%s", pt->name);
	id = btf__find_by_name_kind(btf, name, BTF_KIND_TYPEDEF);
	if (id <= 0)
		return NULL;
	t = btf__type_by_id(btf, id);
	t = t ? btf__type_by_id(btf, t->type) : NULL;
	if (!t || !btf_is_ptr(t))
		return NULL;
	*skip = 1;
	return btf__type_by_id(btf, t->type);
}

static void describe(const struct btf *btf, const struct btf_type *proto, int skip, char *why,
		     size_t whysize)
{
	const struct btf_param *p = btf_params(proto);
	struct strbuf b = { .p = why, .size = whysize };
	int i;

	if (!whysize)
		return;
	why[0] = '\0';
	put(&b, "takes (");
	for (i = skip; i < btf_vlen(proto); i++) {
		char ty[128];

		bt_btf_type_str(btf, p[i].type, ty, sizeof(ty));
		if (i > skip)
			put(&b, ", ");
		put(&b, ty);
	}
	put(&b, ")");
}

int bt_sig_match(const struct btf *btf, const struct bt_point *pt, const char *sig, char *why,
		 size_t whysize)
{
	const struct btf_type *proto;
	const struct btf_param *params;
	const char *s = sig;
	int skip, i, n;

	if (whysize)
		why[0] = '\0';
	if (pt->kind == BT_POINT_OTHER)
		return 1;
	proto = point_proto(btf, pt, &skip);
	if (!proto || !btf_is_func_proto(proto)) {
		snprintf(why, whysize, "no such %s in the kernel's BTF",
			 pt->kind == BT_POINT_KPROBE || pt->kind == BT_POINT_FENTRY ? "function"
										    : "tracepoint");
		return -ENOENT;
	}
	if (!sig)
		return 1;
	params = btf_params(proto);
	n = btf_vlen(proto);
	for (i = skip;; i++) {
		char want[128], have[128];

		s = next_param(s, want, sizeof(want));
		if (s && !strcmp(want, "void") && i == skip) /* "void": no parameters */
			s = next_param(s, want, sizeof(want));
		if (s && !strcmp(want, "...")) /* any further parameters, or none */
			return 1;
		if (!s || i >= n) {
			if (!s && i >= n)
				return 1;
			break;
		}
		if (!strcmp(want, "?"))
			continue;
		if (bt_btf_type_str(btf, params[i].type, have, sizeof(have)) ||
		    !same_type(want, have))
			break;
	}
	describe(btf, proto, skip, why, whysize);
	return 0;
}

static void append_why(struct bt_choice *out, const char *prog, const char *why)
{
	size_t len = strlen(out->why);

	snprintf(out->why + len, sizeof(out->why) - len, "%s'%s': %s", len ? "; " : "", prog,
		 why[0] ? why : "not usable");
}

/* For people, in the order of enum bt_probe_needs. */
static const char *const need_names[] = {
	"bpf_loop() (Linux 5.17)",
	"bpf_rdonly_cast() (6.2)",
	"kernel reads",
};

#define NNEEDS (sizeof(need_names) / sizeof(need_names[0]))

/* "A and B" of the needs in bits, after buf's len bytes. */
static void put_needs(char *buf, size_t size, unsigned int bits)
{
	size_t i, len;
	bool first = true;

	for (i = 0; i < NNEEDS; i++) {
		if (!(bits & (1u << i)))
			continue;
		len = strlen(buf);
		snprintf(buf + len, size - len, "%s%s", first ? "" : " and ", need_names[i]);
		first = false;
	}
}

/*
 * What the group's forms need, the needs they share first: "bpf_loop() (Linux 5.17) and
 * bpf_rdonly_cast() (6.2), or kernel reads", then why the last form tried lacks its need.
 */
static void describe_needs(const struct bt_probe *probes, int n, const char *last_why,
			   struct bt_choice *out)
{
	unsigned int common = ~0u, bits;
	bool first = true;
	size_t len;
	int i;

	for (i = 0; i < n; i++)
		if (probes[i].needs)
			common &= probes[i].needs;
	out->needs[0] = '\0';
	for (i = 0; i < n; i++) {
		if (!probes[i].needs)
			continue;
		bits = first ? probes[i].needs : probes[i].needs & ~common;
		if (!bits)
			continue;
		if (!first) {
			len = strlen(out->needs);
			snprintf(out->needs + len, sizeof(out->needs) - len, ", or ");
		}
		put_needs(out->needs, sizeof(out->needs), bits);
		first = false;
	}
	len = strlen(out->needs);
	if (last_why[0])
		snprintf(out->needs + len, sizeof(out->needs) - len, ", %s", last_why);
}

/* Whether prog (p's program or fallback) fits, with all of p's needs. */
static bool try_prog(const struct bt_probe *p, const char *prog, const struct bt_probe_ops *ops,
		     struct bt_choice *out, char *last_why, size_t last_size)
{
	char why[192] = "", need[128];
	size_t i;
	int r;

	r = ops->fits(ops->ctx, prog, p->sig, why, sizeof(why));
	if (r < 0 && !out->err)
		out->err = r;
	if (r <= 0) {
		append_why(out, prog, why);
		return false;
	}
	for (i = 0; i < NNEEDS && ops->has; i++) {
		if (!(p->needs & (1u << i)))
			continue;
		why[0] = '\0';
		if (ops->has(ops->ctx, prog, 1u << i, why, sizeof(why)))
			continue;
		out->unmet = true;
		snprintf(last_why, last_size, "%s", why);
		snprintf(need, sizeof(need), "needs %s%s%s", need_names[i], why[0] ? ", " : "",
			 why);
		append_why(out, prog, need);
		return false;
	}
	return true;
}

void bt_probe_choose(const struct bt_probe *probes, const struct bt_probe_ops *ops,
		     struct bt_choice *out)
{
	const struct bt_probe *p;
	char last_why[128] = "";

	memset(out, 0, sizeof(*out));
	out->optional = probes->flags & BT_PROBE_OPTIONAL;
	for (p = probes; p->prog && (p == probes || (p->flags & BT_PROBE_ALT)); p++) {
		out->n++;
		if (out->chosen)
			continue;
		if (try_prog(p, p->prog, ops, out, last_why, sizeof(last_why)))
			out->chosen = p->prog;
		else if (p->fallback &&
			 try_prog(p, p->fallback, ops, out, last_why, sizeof(last_why)))
			out->chosen = p->fallback;
	}
	if (out->chosen) {
		out->why[0] = '\0';
		out->unmet = false;
		out->err = 0;
	} else if (out->unmet) {
		describe_needs(probes, out->n, last_why, out);
	}
}

size_t bt_probes_count(const struct bt_probe *probes)
{
	size_t n = 0;

	while (probes && probes[n].prog)
		n++;
	return n;
}

/* The entries of the group starting at probes[0]. */
static int group_len(const struct bt_probe *probes)
{
	int n = 1;

	while (probes[n].prog && (probes[n].flags & BT_PROBE_ALT))
		n++;
	return n;
}

static bool loads(const char **chosen, size_t before, const char *prog)
{
	size_t i;

	for (i = 0; i < before; i++)
		if (chosen[i] && !strcmp(chosen[i], prog))
			return true;
	return false;
}

/* The note of the entry whose program was chosen. */
static const char *note_of(const struct bt_probe *probes, int n, const char *chosen)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(probes[i].prog, chosen) ||
		    (probes[i].fallback && !strcmp(probes[i].fallback, chosen)))
			return probes[i].note;
	return NULL;
}

int bt_probes_select(const struct bt_probe *probes, const struct bt_probe_ops *ops,
		     const char **chosen, char *msg, size_t msgsize)
{
	size_t i, n = bt_probes_count(probes), prev = (size_t)-1;
	const char *any = NULL, *section, *note;
	bool any_loads = false;
	struct bt_choice c;
	int len;

	if (msgsize)
		msg[0] = '\0';
	for (i = 0; i < n; i++)
		chosen[i] = NULL;
	for (i = 0; i < n; prev = i, i += len) {
		const struct bt_probe *p = &probes[i];

		len = group_len(p);
		if ((p->flags & BT_PROBE_ANY) && !any)
			any = p->what ? p->what : "the declared probes";
		/* the rest of another mechanism, or the half of a pair whose other half is not */
		if ((p->with && !loads(chosen, i, p->with)) ||
		    ((p->flags & BT_PROBE_PAIRED) && (prev == (size_t)-1 || !chosen[prev])))
			continue;
		bt_probe_choose(p, ops, &c);
		if (!c.chosen && c.err)
			return c.err;
		if (!c.chosen && c.unmet) {
			if (p->what)
				snprintf(msg, msgsize, "%s needs %s", p->what, c.needs);
			else
				snprintf(msg, msgsize, "'%s' needs %s", p->prog, c.needs);
			return -EOPNOTSUPP;
		}
		if (c.chosen) {
			chosen[i] = c.chosen;
			if (strcmp(c.chosen, p->prog))
				bt_debug("using '%s' instead of '%s'", c.chosen, p->prog);
			note = note_of(p, len, c.chosen);
			if (note)
				bt_debug("%s", note);
			continue;
		}
		if (c.optional) {
			bt_debug("not using '%s': %s", p->prog, c.why);
			if ((p->flags & BT_PROBE_PAIRED) && chosen[prev]) {
				bt_debug("not using '%s' either: it goes with '%s'", chosen[prev],
					 p->prog);
				chosen[prev] = NULL;
			}
			continue;
		}
		section = ops->section ? ops->section(ops->ctx, p->prog) : NULL;
		snprintf(msg, msgsize, "this kernel cannot attach '%s'%s%s%s: %s", p->prog,
			 section ? " (" : "", section ? section : "", section ? ")" : "", c.why);
		return -EOPNOTSUPP;
	}
	for (i = 0; i < n; i++)
		if (chosen[i] && (probes[i].flags & BT_PROBE_ANY))
			any_loads = true;
	if (any && !any_loads) {
		snprintf(msg, msgsize, "this kernel has none of %s", any);
		return -EOPNOTSUPP;
	}
	return 0;
}
