// SPDX-License-Identifier: GPL-2.0
/*
 * The profile tree and the SVG flame graph. Frames are merged by path (parent, name, module,
 * kind) through one hash table over all nodes, so a sample costs its depth in lookups however
 * wide the graph. The SVG leaves out frames under --minwidth (0.1 px: hairlines nobody can
 * point at), their time drawn as their callers', so the widths still add up to the values; the
 * embedded script does search, zoom and the details line.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bt_err.h"
#include "bt_escape.h"
#include "bt_flame_internal.h"
#include "bt_output.h"
#include "bt_input.h"

#define FRAME_H 16
#define FONT_SIZE 12
#define XPAD 10
#define TOP 56	  /* title, search and reset */
#define BOTTOM 34 /* the details line */

static const char *opt(const char *s, const char *def)
{
	return s && *s ? s : def;
}

struct bt_profile *bt_profile_new(const struct bt_profile_opts *opts)
{
	struct bt_profile *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	if (opts)
		p->opts = *opts;
	p->root.name = "all";
	p->root.kind = BT_PROF_OTHER;
	return p;
}

static void free_samples(struct bt_prof_node *n)
{
	struct bt_prof_sample *s, *next;

	for (s = n->samples; s; s = next) {
		next = s->next;
		free(s->labels);
		free(s);
	}
}

static void free_nodes(struct bt_prof_node *n)
{
	struct bt_prof_node *c, *next;

	for (c = n->child; c; c = next) {
		next = c->next;
		free_nodes(c);
		free_samples(c);
		free(c->name);
		free(c->module);
		free(c->func);
		free(c->file);
		free(c);
	}
}

void bt_profile_free(struct bt_profile *p)
{
	if (!p)
		return;
	free_nodes(&p->root);
	free_samples(&p->root);
	free(p->slots);
	free(p->lslots);
	free(p->lnodes);
	free(p);
}

uint64_t bt_profile_total(const struct bt_profile *p)
{
	return p ? p->root.total : 0;
}

/* FNV-1a, continued from h */
static uint64_t hash_str(uint64_t h, const char *s)
{
	for (; s && *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h * 0x100000001b3ULL;
}

static uint64_t node_hash(const struct bt_prof_node *parent, const char *name, const char *module,
			  enum bt_prof_kind kind)
{
	uint64_t h = 0xcbf29ce484222325ULL ^ ((uintptr_t)parent * 0x9e3779b97f4a7c15ULL);

	h = hash_str(h, name);
	h = hash_str(h, module);
	return h ^ (uint64_t)kind;
}

static bool same(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static int grow(struct bt_profile *p)
{
	size_t n = p->nslots ? p->nslots * 2 : 1024, i, j;
	struct bt_prof_node **s = calloc(n, sizeof(*s));

	if (!s)
		return -ENOMEM;
	for (i = 0; i < p->nslots; i++) {
		struct bt_prof_node *x = p->slots[i];

		if (!x)
			continue;
		j = node_hash(x->parent, x->name, x->module, x->kind) & (n - 1);
		while (s[j])
			j = (j + 1) & (n - 1);
		s[j] = x;
	}
	free(p->slots);
	p->slots = s;
	p->nslots = n;
	return 0;
}

static struct bt_prof_node *child_of(struct bt_profile *p, struct bt_prof_node *parent,
				     const struct bt_prof_frame *f)
{
	const char *name = f->name ? f->name : "[unknown]";
	struct bt_prof_node *n;
	size_t j;

	if ((p->nnodes + 1) * 2 > p->nslots && grow(p))
		return NULL;
	j = node_hash(parent, name, f->module, f->kind) & (p->nslots - 1);
	for (; (n = p->slots[j]); j = (j + 1) & (p->nslots - 1))
		if (n->parent == parent && n->kind == f->kind && !strcmp(n->name, name) &&
		    same(n->module, f->module))
			return n;
	n = calloc(1, sizeof(*n));
	if (!n)
		return NULL;
	n->name = strdup(name);
	n->module = f->module ? strdup(f->module) : NULL;
	if (f->file && f->func) {
		n->func = strdup(f->func);
		n->file = strdup(f->file);
		n->line = f->line;
		n->start_line = f->start_line;
	}
	if (!n->name || (f->module && !n->module) ||
	    (f->file && f->func && (!n->func || !n->file))) {
		free(n->name);
		free(n->module);
		free(n->func);
		free(n->file);
		free(n);
		return NULL;
	}
	n->kind = f->kind;
	n->parent = parent;
	n->next = parent->child;
	parent->child = n;
	parent->nchild++;
	p->slots[j] = n;
	p->nnodes++;
	return n;
}

/* labels as struct bt_prof_sample keeps them, in a new buffer of *len bytes; NULL: ENOMEM */
static char *encode_labels(const struct bt_prof_label *labels, size_t n, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	size_t i;

	if (!f)
		return NULL;
	for (i = 0; i < n; i++) {
		fputs(labels[i].key, f);
		fputc('\0', f);
		if (labels[i].str)
			fprintf(f, "s%s", labels[i].str);
		else
			fprintf(f, "n%lld", (long long)labels[i].num);
		fputc('\0', f);
	}
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

static uint64_t labels_hash(const struct bt_prof_node *node, const char *labels, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL ^ ((uintptr_t)node * 0x9e3779b97f4a7c15ULL);
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ (unsigned char)labels[i]) * 0x100000001b3ULL;
	return h;
}

static int grow_labelled(struct bt_profile *p)
{
	size_t n = p->nlslots ? p->nlslots * 2 : 256, i, j;
	struct bt_prof_sample **s = calloc(n, sizeof(*s));
	struct bt_prof_node **nodes = calloc(n, sizeof(*nodes));

	if (!s || !nodes) {
		free(s);
		free(nodes);
		return -ENOMEM;
	}
	for (i = 0; i < p->nlslots; i++) {
		struct bt_prof_sample *x = p->lslots[i];

		if (!x)
			continue;
		j = labels_hash(p->lnodes[i], x->labels, x->len) & (n - 1);
		while (s[j])
			j = (j + 1) & (n - 1);
		s[j] = x;
		nodes[j] = p->lnodes[i];
	}
	free(p->lslots);
	free(p->lnodes);
	p->lslots = s;
	p->lnodes = nodes;
	p->nlslots = n;
	return 0;
}

/* The labelled sample of node with these labels (encoded: len bytes, given over), or NULL. */
static struct bt_prof_sample *labelled(struct bt_profile *p, struct bt_prof_node *node,
				       char *labels, size_t len)
{
	struct bt_prof_sample *s;
	size_t j;

	if ((p->nlabelled + 1) * 2 > p->nlslots && grow_labelled(p)) {
		free(labels);
		return NULL;
	}
	j = labels_hash(node, labels, len) & (p->nlslots - 1);
	for (; (s = p->lslots[j]); j = (j + 1) & (p->nlslots - 1))
		if (p->lnodes[j] == node && s->len == len && !memcmp(s->labels, labels, len)) {
			free(labels);
			return s;
		}
	s = calloc(1, sizeof(*s));
	if (!s) {
		free(labels);
		return NULL;
	}
	s->labels = labels;
	s->len = len;
	if (!node->samples_tail)
		node->samples_tail = &node->samples;
	*node->samples_tail = s;
	node->samples_tail = &s->next;
	p->lslots[j] = s;
	p->lnodes[j] = node;
	p->nlabelled++;
	return s;
}

bool bt_prof__label(const struct bt_prof_sample *s, size_t *pos, const char **key, const char **str,
		    int64_t *num)
{
	const char *l = s->labels + *pos, *v;

	if (*pos >= s->len)
		return false;
	*key = l;
	v = l + strlen(l) + 1;
	*str = *v == 's' ? v + 1 : NULL;
	*num = *v == 's' ? 0 : strtoll(v + 1, NULL, 10);
	*pos += v + strlen(v) + 1 - l;
	return true;
}

int bt_profile_add_labeled(struct bt_profile *p, const struct bt_prof_frame *frames, size_t n,
			   const struct bt_prof_label *labels, size_t nlabels, uint64_t value)
{
	struct bt_prof_node *node = &p->root;
	struct bt_prof_sample *s = NULL;
	bool cold = false;
	size_t i, len;
	char *enc;

	if (!value)
		return 0;
	/* Every node's total is at most the root's: checking the root covers them all. */
	if (value > BT_PROF_MAX_TOTAL - p->root.total)
		return -EOVERFLOW;
	/* Find (or make) the whole path first: a failure leaves the totals as they were. */
	for (i = 0; i < n; i++) {
		if ((unsigned int)frames[i].kind >= BT_PROF_NKINDS)
			return -EINVAL;
		node = child_of(p, node, &frames[i]);
		if (!node)
			return -ENOMEM;
		cold |= frames[i].kind == BT_PROF_OFFCPU;
	}
	if (nlabels) {
		enc = encode_labels(labels, nlabels, &len);
		s = enc ? labelled(p, node, enc, len) : NULL;
		if (!s)
			return -ENOMEM;
		s->value += value;
	}
	node->self += value;
	for (; node; node = node->parent) {
		node->total += value;
		if (cold)
			node->cold += value;
	}
	if (n > p->depth)
		p->depth = n;
	return 0;
}

int bt_profile_add(struct bt_profile *p, const struct bt_prof_frame *frames, size_t n,
		   uint64_t value)
{
	return bt_profile_add_labeled(p, frames, n, NULL, 0, value);
}

/* The kind a folded frame name says, the annotation suffix removed (name is modified). */
static enum bt_prof_kind folded_kind(char *name, size_t len, enum bt_prof_kind dflt)
{
	static const struct {
		const char *suffix;
		enum bt_prof_kind kind;
	} marks[] = { { "_[k]", BT_PROF_KERNEL },
		      { "_[j]", BT_PROF_JIT },
		      { "_[i]", BT_PROF_INLINED } };
	size_t i;

	for (i = 0; i < sizeof(marks) / sizeof(marks[0]); i++)
		if (len > 4 && !strcmp(name + len - 4, marks[i].suffix)) {
			name[len - 4] = '\0';
			return marks[i].kind;
		}
	if (!strcmp(name, "[unknown]") || !strncmp(name, "[Missed ", 8))
		return BT_PROF_MISSED;
	if (!strncmp(name, "bpf_prog_", 9))
		return BT_PROF_JIT;
	if (!strncmp(name, "[off-cpu", 8))
		return BT_PROF_OFFCPU;
	return dflt;
}

/*
 * Where a stack printed root first goes from user into the kernel: the kernel's entry points
 * (system calls, exceptions, interrupts, a kernel thread's start, an idle CPU's), the first
 * kernel frame of a folded line that has no "-" between its user and kernel frames.
 */
static bool kernel_entry(const char *name)
{
	static const char *const prefixes[] = {
		"entry_",
		"asm_",
		"ret_from_fork",
		"do_syscall_",
		"x64_sys_call",
		"__x64_sys_",
		"__ia32_sys_",
		"__arm64_sys_",
		"__do_sys_",
		"el0t_",
		"el0_",
		"el1h_",
		"exc_",
		"sysvec_",
		"common_interrupt",
		"secondary_startup",
		"start_secondary",
		"x86_64_start_",
		"start_kernel",
		"rest_init",
	};
	size_t i;

	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

int bt_profile_add_folded(struct bt_profile *p, const char *line)
{
	enum bt_prof_kind side = p->opts.folded_kind;
	struct bt_prof_frame *frames = NULL;
	size_t len = strlen(line), n = 0, cap = 0;
	char *buf, *s, *sp, *end, *tok;
	unsigned long long value;
	bool by_entry, reversed = false;
	int err = 0;

	while (len && (line[len - 1] == '\n' || line[len - 1] == '\r' || line[len - 1] == ' '))
		len--;
	if (!len)
		return 0;
	buf = strndup(line, len);
	if (!buf)
		return -ENOMEM;
	sp = strrchr(buf, ' ');
	if (!sp || sp[1] < '0' || sp[1] > '9') {
		err = -EINVAL;
		goto cleanup;
	}
	errno = 0;
	value = strtoull(sp + 1, &end, 10);
	if (*end || errno) {
		err = -EINVAL;
		goto cleanup;
	}
	*sp = '\0';
	/*
	 * No "-" between user and kernel frames (-f without -d, BCC's default): the kernel's entry
	 * point says where they meet. After offwaketime's "--" the waker's stack is leaf first:
	 * kernel frames up to the entry point, user ones after it.
	 */
	by_entry = p->opts.folded_kind != BT_PROF_KERNEL && strcmp(buf, "-") &&
		   strncmp(buf, "-;", 2) && !strstr(buf, ";-;") &&
		   (len < 2 || strcmp(buf + strlen(buf) - 2, ";-"));
	for (s = buf; (tok = strsep(&s, ";"));) {
		struct bt_prof_frame f = { .name = tok };

		if (!*tok)
			continue;
		if (n == cap) {
			struct bt_prof_frame *v =
				realloc(frames, (cap = cap ? 2 * cap : 64) * sizeof(*v));

			if (!v) {
				err = -ENOMEM;
				goto cleanup;
			}
			frames = v;
		}
		if (!strcmp(tok, "-") || !strcmp(tok, "--")) {
			f.kind = BT_PROF_OTHER;
			if (tok[1] == '\0')
				side = side == BT_PROF_KERNEL ? p->opts.folded_kind
							      : BT_PROF_KERNEL;
			else if (by_entry)
				reversed = true, side = BT_PROF_KERNEL;
		} else if (n == 0 && p->opts.folded_comm) {
			f.kind = BT_PROF_OTHER;
		} else if (by_entry && !reversed && side != BT_PROF_KERNEL && kernel_entry(tok)) {
			side = BT_PROF_KERNEL;
			f.kind = folded_kind(tok, strlen(tok), side);
		} else {
			f.kind = folded_kind(tok, strlen(tok), side);
			if (by_entry && reversed && side == BT_PROF_KERNEL && kernel_entry(tok))
				side = p->opts.folded_kind; /* the waker's user frames follow */
		}
		frames[n++] = f;
	}
	err = bt_profile_add(p, frames, n, value);
cleanup:
	free(frames);
	free(buf);
	return err;
}

int bt_profile_read_lines(struct bt_profile *p, struct bt_lines *in)
{
	char *line;
	size_t len;
	int err, n = 0;

	while ((err = bt_lines_next(in, &line, &len)) > 0) {
		err = bt_profile_add_folded(p, line);
		if (err == -EINVAL)
			bt_err("folded input line %ld is not 'frame;...;frame COUNT': %.*s",
			       in->lineno, (int)(len < 200 ? len : 200), line);
		else if (err == -EOVERFLOW)
			bt_err("folded input line %ld: the counts add up to more than %lld, the "
			       "most a profile can hold",
			       in->lineno, (long long)BT_PROF_MAX_TOTAL);
		if (err)
			break;
		n++;
	}
	return err ? err : n;
}

int bt_profile_read_folded(struct bt_profile *p, FILE *in)
{
	struct bt_lines l;
	int err;

	bt_lines_from(&l, in, "the folded input", BT_FOLDED_LINE_MAX, BT_FOLDED_INPUT_MAX);
	err = bt_profile_read_lines(p, &l);
	bt_lines_close(&l);
	return err;
}

static int by_name(const void *a, const void *b)
{
	const struct bt_prof_node *x = *(const struct bt_prof_node *const *)a;
	const struct bt_prof_node *y = *(const struct bt_prof_node *const *)b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	c = strcmp(x->module ? x->module : "", y->module ? y->module : "");
	return c ? c : (int)x->kind - (int)y->kind;
}

struct bt_prof_node **bt_prof__children(const struct bt_prof_node *n, int *err)
{
	struct bt_prof_node **v, *c;
	size_t i = 0;

	*err = 0;
	if (!n->nchild)
		return NULL;
	v = malloc(n->nchild * sizeof(*v));
	if (!v) {
		*err = -ENOMEM;
		return NULL;
	}
	for (c = n->child; c; c = c->next)
		v[i++] = c;
	qsort(v, i, sizeof(*v), by_name);
	return v;
}

/*
 * Text for XML: escaped, control characters and bytes that are not UTF-8 as '?', at most max
 * bytes of the name (cut on a character boundary, ".." appended when cut; max 0: all).
 */
static void xml_text(FILE *out, const char *s, size_t max)
{
	size_t len = strlen(s), i = 0, cut = len;
	bool dots = false;

	if (max && len > max) {
		cut = max > 2 ? max - 2 : 0;
		while (cut && ((unsigned char)s[cut] & 0xc0) == 0x80)
			cut--;
		dots = true;
	}
	while (i < cut) {
		unsigned char c = s[i];
		size_t k, n = c < 0x80	       ? 1
			      : (c >> 5) == 6  ? 2
			      : (c >> 4) == 14 ? 3
			      : (c >> 3) == 30 ? 4
					       : 0;

		for (k = 1; k < n; k++)
			if (i + k >= len || ((unsigned char)s[i + k] & 0xc0) != 0x80)
				n = 0;
		if (n == 0 || (n == 1 && c < 0x20 && c != '\t')) {
			fputc('?', out);
			i++;
			continue;
		}
		if (i + n > cut) /* a character the cut point splits */
			break;
		if (bt_xml_entity(c))
			fputs(bt_xml_entity(c), out);
		else
			fwrite(s + i, 1, n, out);
		i += n;
	}
	if (dots)
		fputs("..", out);
}

/*
 * Colours by kind, varied by the name so that neighbours differ but a name keeps its colour
 * (docs/flamegraph.md). On-CPU: user red, kernel orange, JIT green, inlined aqua, interpreted
 * yellow, as flamegraph.pl's java palette; the red's green stays under 60 and the orange's over
 * 120, so the two never meet. Off-CPU (BT_PROF_OFFCPU frames, the frames whose time is mostly
 * through them, every frame of an off-CPU profile): the cool counterparts, user blue, kernel
 * violet, JIT, inlined and interpreted teal, so that user and kernel stay apart there too.
 */
static bool is_cold(const struct bt_profile *p, const struct bt_prof_node *n)
{
	return p->opts.offcpu || n->kind == BT_PROF_OFFCPU || (n->cold && n->cold * 2 > n->total);
}

static void colour(const struct bt_profile *p, const struct bt_prof_node *n, int rgb[3])
{
	uint64_t h = hash_str(0xcbf29ce484222325ULL, n->name);
	double v1 = (h & 0xff) / 255.0, v2 = ((h >> 8) & 0xff) / 255.0,
	       v3 = ((h >> 16) & 0xff) / 255.0;

	if (is_cold(p, n)) {
		switch (n->kind) {
		case BT_PROF_USER: /* blue */
			rgb[0] = 40 + 50 * v1, rgb[1] = 90 + 70 * v2, rgb[2] = 205 + 50 * v3;
			return;
		case BT_PROF_KERNEL: /* violet */
			rgb[0] = 145 + 45 * v1, rgb[1] = 105 + 40 * v2, rgb[2] = 215 + 40 * v3;
			return;
		case BT_PROF_JIT:
		case BT_PROF_INLINED:
		case BT_PROF_INTERP: /* teal */
			rgb[0] = 30 + 40 * v1, rgb[1] = 165 + 45 * v2, rgb[2] = 175 + 45 * v3;
			return;
		case BT_PROF_OFFCPU: /* deep blue: the state the thread waited in */
			rgb[0] = 30 + 30 * v1, rgb[1] = 60 + 40 * v2, rgb[2] = 180 + 40 * v3;
			return;
		default:
			break;
		}
	}
	switch (n->kind) {
	case BT_PROF_USER: /* red */
		rgb[0] = 200 + 55 * v1, rgb[1] = 60 * v2, rgb[2] = 60 * v2;
		break;
	case BT_PROF_KERNEL: /* orange */
		rgb[0] = 225 + 30 * v1, rgb[1] = 125 + 55 * v2, rgb[2] = 25 * v3;
		break;
	case BT_PROF_INLINED: /* aqua */
		rgb[0] = 50 + 60 * v1, rgb[1] = 165 + 55 * v2, rgb[2] = 165 + 55 * v2;
		break;
	case BT_PROF_JIT: /* green */
		rgb[0] = 50 + 60 * v1, rgb[1] = 190 + 60 * v2, rgb[2] = 50 + 60 * v3;
		break;
	case BT_PROF_INTERP: /* yellow */
		rgb[0] = 195 + 50 * v1, rgb[1] = 195 + 50 * v1, rgb[2] = 40 + 50 * v2;
		break;
	case BT_PROF_MISSED: /* grey */
		rgb[0] = rgb[1] = rgb[2] = 160 + 40 * v1;
		break;
	default: /* pale blue: names and delimiters, not code */
		rgb[0] = 190 + 20 * v1, rgb[1] = 200 + 20 * v1, rgb[2] = 235;
		break;
	}
}

static const char *const kind_names[BT_PROF_NKINDS] = {
	"user", "kernel", "inlined", "jit", "missed", "other", "offcpu", "interp",
};

/* v with thousands separators: 4,942,257 */
static void put_number(FILE *out, uint64_t v)
{
	char d[24];
	int n = snprintf(d, sizeof(d), "%llu", (unsigned long long)v), i;

	for (i = 0; i < n; i++) {
		if (i && (n - i) % 3 == 0)
			fputc(',', out);
		fputc(d[i], out);
	}
}

/* "1,234 samples", "1 microsecond": a count of samples says so, one is singular */
static void put_amount(FILE *out, const struct bt_profile *p, uint64_t v)
{
	const char *u = opt(p->opts.unit, "count");
	size_t len;

	if (!strcmp(u, "count"))
		u = "samples";
	len = strlen(u);
	put_number(out, v);
	fputc(' ', out);
	if (v == 1 && len > 1 && u[len - 1] == 's')
		len--;
	fprintf(out, "%.*s", (int)len, u);
}

struct svg {
	FILE *out;
	const struct bt_profile *p;
	double scale;	 /* pixels per unit of value */
	double minwidth; /* pixels: narrower frames are left out */
	int height;
	size_t hidden; /* frames left out */
	int err;
};

/* The depth of the deepest frame drawn above n (n's own, 0, when none is). */
static unsigned int drawn_depth(const struct svg *s, const struct bt_prof_node *n)
{
	const struct bt_prof_node *c;
	unsigned int d = 0, k;

	for (c = n->child; c; c = c->next) {
		if (c->total * s->scale < s->minwidth)
			continue;
		k = 1 + drawn_depth(s, c);
		if (k > d)
			d = k;
	}
	return d;
}

static void svg_frame(struct svg *s, const struct bt_prof_node *n, double x, unsigned int depth)
{
	struct bt_prof_node **kids;
	double w = n->total * s->scale, cx = x;
	int rgb[3], y = s->height - BOTTOM - (int)(depth + 1) * FRAME_H, fit;
	size_t i;

	colour(s->p, n, rgb);
	fprintf(s->out, "<g class=\"f %s%s\"><title>", kind_names[n->kind],
		is_cold(s->p, n) ? " cold" : "");
	xml_text(s->out, n->name, 0);
	if (n->module) {
		fputs(" [", s->out);
		xml_text(s->out, n->module, 0);
		fputc(']', s->out);
	}
	fputs(" (", s->out);
	put_amount(s->out, s->p, n->total);
	fprintf(s->out,
		", %.2f%%)</title><rect x=\"%.4f\" y=\"%d\" width=\"%.4f\" height=\"%d\" "
		"fill=\"rgb(%d,%d,%d)\"/><text x=\"%.2f\" y=\"%d\">",
		100.0 * n->total / s->p->root.total, x, y, w, FRAME_H - 1, rgb[0], rgb[1], rgb[2],
		x + 3, y + FRAME_H - 4);
	fit = (int)((w - 6) / (FONT_SIZE * 0.59));
	if (fit >= 3)
		xml_text(s->out, n->name, fit);
	fputs("</text></g>\n", s->out);

	kids = bt_prof__children(n, &s->err);
	for (i = 0; i < n->nchild && kids; i++) {
		/* too narrow to see: its time stays drawn as its parent's, the x of the next moves on */
		if (kids[i]->total * s->scale < s->minwidth)
			s->hidden++;
		else
			svg_frame(s, kids[i], cx, depth + 1);
		cx += kids[i]->total * s->scale;
	}
	free(kids);
}

/*
 * The interactive part, in the SVG's own script: no external file, no library. It must not
 * throw on any SVG written here (an empty one has no frames, no root). ?s=REGEX searches and
 * ?x=X&y=Y zooms on load, as flamegraph.pl's links; zoom and search keep the address so.
 */
static const char svg_script[] =
	"var W=%u,XPAD=%d,CW=%.3f,frames=[],root=null,details,matchedText,searchText,reset,icText,"
	"zoomed=null,term=\"\",ignorecase=false;\n"
	"function label(f,w){var n=Math.floor((w-6)/CW);if(n<3)return \"\";"
	"return f.name.length<=n?f.name:f.name.substring(0,n-2)+\"..\";}\n"
	"function params(){var r={};try{var q=window.location.search.substring(1).split(\"&\");"
	"for(var i=0;i<q.length;i++){var k=q[i].indexOf(\"=\");if(k>0)"
	"r[q[i].substring(0,k)]=decodeURIComponent(q[i].substring(k+1).replace(/\\+/g,\" \"));}}"
	"catch(x){}return r;}\n"
	"function keep(){try{var q=[];if(zoomed)q.push(\"x=\"+zoomed.x.toFixed(4),\"y=\"+zoomed.y);"
	"if(term)q.push(\"s=\"+encodeURIComponent(term));if(ignorecase)q.push(\"i=1\");"
	"window.history.replaceState(null,\"\",window.location.pathname+(q.length?\"?\"+q.join("
	"\"&\"):\"\"));}catch(x){}}\n"
	"function init(){details=document.getElementById(\"details\").firstChild;"
	"matchedText=document.getElementById(\"matched\");searchText=document.getElementById("
	"\"search\");reset=document.getElementById(\"reset\");icText=document.getElementById("
	"\"ic\");\n"
	" var gs=document.getElementsByTagName(\"g\");\n"
	" for(var i=0;i<gs.length;i++){var g=gs[i];if(!/(^| )f( "
	"|$)/.test(g.getAttribute(\"class\")))continue;\n"
	"  var r=g.getElementsByTagName(\"rect\")[0],t=g.getElementsByTagName(\"text\")[0],"
	"ti=g.getElementsByTagName(\"title\")[0].textContent;\n"
	"  var f={g:g,r:r,t:t,title:ti,name:ti.substring(0,ti.lastIndexOf(\" "
	"(\")),x:+r.getAttribute(\"x\"),"
	"w:+r.getAttribute(\"width\"),y:+r.getAttribute(\"y\"),fill:r.getAttribute(\"fill\")};\n"
	"  if(f.name.lastIndexOf(\" [\")>0&&f.name.charAt(f.name.length-1)==\"]\")"
	"f.name=f.name.substring(0,f.name.lastIndexOf(\" [\"));\n"
	"  frames.push(f);if(!root||f.y>root.y)root=f;\n"
	"  g.onclick=(function(f){return function(){zoom(f);};})(f);\n"
	"  g.onmouseover=(function(f){return function(){details.nodeValue=f.title;};})(f);\n"
	"  g.onmouseout=function(){details.nodeValue=\" \";};}\n"
	" searchText.onclick=function(){search();};reset.onclick=function(){unzoom();};\n"
	" if(icText)icText.onclick=function(){ignorecase=!ignorecase;"
	"icText.style.fill=ignorecase?\"rgb(0,0,200)\":\"\";if(term)find(term);else keep();};\n"
	" window.addEventListener(\"keydown\",function(e){if((e.ctrlKey||e.metaKey)&&e.keyCode==70)"
	"{e.preventDefault();search();}else if(e.keyCode==27){clearSearch();unzoom();}});\n"
	" var p=params();if(p.i==\"1\"&&icText)icText.onclick();\n"
	" if(p.x!==undefined&&p.y!==undefined)for(var i=0;i<frames.length;i++)"
	"if(Math.abs(frames[i].x-p.x)<1e-3&&frames[i].y==+p.y){zoom(frames[i]);break;}\n"
	" if(p.s)find(p.s);}\n"
	"function place(f,x,w){f.r.setAttribute(\"x\",x);f.r.setAttribute(\"width\",w);"
	"f.t.setAttribute(\"x\",x+3);f.t.textContent=label(f,w);f.g.style.display=\"\";}\n"
	"function zoom(z){var e=1e-6,s=(W-2*XPAD)/z.w;\n"
	" for(var i=0;i<frames.length;i++){var f=frames[i];\n"
	"  if(f.y>z.y&&f.x<=z.x+e&&f.x+f.w>=z.x+z.w-e){place(f,XPAD,W-2*XPAD);"
	"f.g.style.opacity=0.6;}\n"
	"  else if(f.y<=z.y&&f.x>=z.x-e&&f.x+f.w<=z.x+z.w+e){place(f,XPAD+(f.x-z.x)*s,f.w*s);"
	"f.g.style.opacity=1;}\n"
	"  else f.g.style.display=\"none\";}\n"
	" zoomed=z!==root?z:null;reset.style.opacity=zoomed?1:0;keep();}\n"
	"function unzoom(){for(var i=0;i<frames.length;i++){var f=frames[i];place(f,f.x,f.w);"
	"f.g.style.opacity=1;}zoomed=null;reset.style.opacity=0;keep();}\n"
	"function clearSearch(){for(var i=0;i<frames.length;i++)frames[i].r.setAttribute(\"fill\","
	"frames[i].fill);matchedText.textContent=\"\";term=\"\";keep();}\n"
	"function search(){var t=prompt(\"Search for (regular expression\"+(ignorecase?\", any "
	"case\":"
	"\"\")+\"):\",term);clearSearch();if(t)find(t);}\n"
	"function find(t){var re;for(var i=0;i<frames.length;i++)frames[i].r.setAttribute(\"fill\","
	"frames[i].fill);term=t;keep();\n"
	" try{re=new RegExp(t,ignorecase?\"i\":\"\");}catch(x){matchedText.textContent=\"bad "
	"expression\";return;}\n"
	" if(!root){matchedText.textContent=\"Matched: nothing (no samples)\";return;}\n"
	" var spans=[];for(var i=0;i<frames.length;i++){var "
	"f=frames[i];if(f!==root&&re.test(f.name)){"
	"f.r.setAttribute(\"fill\",\"rgb(230,0,230)\");spans.push([f.x,f.x+f.w]);}}\n"
	" spans.sort(function(a,b){return a[0]-b[0];});var sum=0,end=-1;\n"
	" for(var j=0;j<spans.length;j++){var a=Math.max(spans[j][0],end);"
	"if(spans[j][1]>a){sum+=spans[j][1]-a;end=spans[j][1];}}\n"
	" matchedText.textContent=\"Matched: \"+(100*sum/root.w).toFixed(2)+\"%%\";}\n";

int bt_flame_write(const struct bt_profile *p, FILE *out)
{
	unsigned int width = p->opts.width ? p->opts.width : 1200;
	struct svg s = { .out = out, .p = p };
	int top = p->opts.subtitle && *p->opts.subtitle ? TOP + 16 : TOP;

	s.scale = p->root.total ? (width - 2.0 * XPAD) / p->root.total : 0;
	s.minwidth = p->opts.minwidth ? p->opts.minwidth : 0.1;
	s.height = top + BOTTOM + (int)(drawn_depth(&s, &p->root) + 1) * FRAME_H;
	fprintf(out,
		"<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" width=\"%u\" height=\"%d\" viewBox=\"0 0 %u %d\" "
		"onload=\"init()\" xmlns=\"http://www.w3.org/2000/svg\">\n"
		"<!-- Written by bpftools: a flame graph of ",
		width, s.height, width, s.height);
	put_amount(out, p, p->root.total);
	fprintf(out,
		". Click a frame to zoom, Ctrl-F to search, Esc to reset. -->\n"
		"<style type=\"text/css\">\n"
		"text { font-family: Verdana, sans-serif; font-size: %dpx; fill: rgb(0,0,0); }\n"
		"g.f rect { rx: 2px; ry: 2px; stroke: rgb(255,255,255); stroke-width: 0.5; }\n"
		"g.f:hover rect { stroke: rgb(0,0,0); stroke-width: 0.5; cursor: pointer; }\n"
		"g.f text { pointer-events: none; }\n"
		"#title { font-size: 17px; text-anchor: middle; }\n"
		"#subtitle, #empty { text-anchor: middle; fill: rgb(80,80,80); }\n"
		"#search, #reset, #ic { cursor: pointer; }\n"
		"#search:hover, #reset:hover, #ic:hover { fill: rgb(0,0,200); }\n"
		"#matched { text-anchor: end; }\n"
		"</style>\n<script type=\"text/ecmascript\"><![CDATA[\n",
		FONT_SIZE);
	fprintf(out, svg_script, width, XPAD, FONT_SIZE * 0.59);
	fprintf(out,
		"]]></script>\n"
		"<rect x=\"0\" y=\"0\" width=\"%u\" height=\"%d\" fill=\"rgb(248,248,240)\"/>\n"
		"<text id=\"title\" x=\"%u\" y=\"24\">",
		width, s.height, width / 2);
	xml_text(out, opt(p->opts.title, "Flame Graph"), 0);
	fputs("</text>\n", out);
	if (top != TOP) {
		fprintf(out, "<text id=\"subtitle\" x=\"%u\" y=\"44\">", width / 2);
		xml_text(out, p->opts.subtitle, 0);
		fputs("</text>\n", out);
	}
	fprintf(out,
		"<text id=\"reset\" x=\"%d\" y=\"24\" style=\"opacity:0\">Reset Zoom</text>\n"
		"<text id=\"search\" x=\"%u\" y=\"24\">Search</text>\n"
		"<text id=\"ic\" x=\"%u\" y=\"24\">ic</text>\n"
		"<text id=\"matched\" x=\"%u\" y=\"%d\"> </text>\n"
		"<text id=\"details\" x=\"%d\" y=\"%d\"> </text>\n",
		XPAD, width - XPAD - 84, width - XPAD - 16, width - XPAD, s.height - 12, XPAD,
		s.height - 12);
	if (p->root.total) {
		fputs("<g id=\"frames\">\n", out);
		svg_frame(&s, &p->root, XPAD, 0);
		fputs("</g>\n", out);
		if (s.hidden)
			fprintf(out,
				"<!-- %zu frames narrower than %g px are left out: their time is "
				"drawn as their callers' -->\n",
				s.hidden, s.minwidth);
	} else {
		fprintf(out, "<text id=\"empty\" x=\"%u\" y=\"%d\">No samples</text>\n", width / 2,
			s.height - BOTTOM - FRAME_H / 2);
	}
	fputs("</svg>\n", out);
	if (s.err)
		return s.err;
	return bt_output_flush(out);
}

int bt_flame_from_folded(FILE *folded, FILE *svg, const struct bt_profile_opts *opts)
{
	struct bt_profile *p = bt_profile_new(opts);
	int err;

	if (!p)
		return -ENOMEM;
	err = bt_profile_read_folded(p, folded);
	if (err >= 0)
		err = bt_flame_write(p, svg);
	bt_profile_free(p);
	return err;
}
