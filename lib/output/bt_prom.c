// SPDX-License-Identifier: GPL-2.0
/* Prometheus and OpenMetrics exposition (see bt_prom.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bt_escape.h"
#include "bt_prom.h"

#define LE_CACHED 64

struct family {
	char *name;
	char *help;
	enum bt_prom_type type;
	size_t series;
	char *text; /* the samples' lines */
	size_t len;
	FILE *f;
	/*
	 * A histogram's le bounds as text, written once per family: every series has the same
	 * bounds, and the shortest text of each took most of a scrape's CPU when redone per line
	 */
	double le_unit;
	unsigned int le_known;
	char le_text[LE_CACHED][32];
};

struct bt_prom {
	size_t max_series;
	size_t dropped;
	/* each family where open_memstream() was told to keep its text: never moved */
	struct family **fams;
	size_t nfams, cap;
	struct family *cur;
};

struct bt_prom *bt_prom_new(size_t max_series)
{
	struct bt_prom *p = calloc(1, sizeof(*p));

	if (p)
		p->max_series = max_series;
	return p;
}

void bt_prom_free(struct bt_prom *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->nfams; i++) {
		if (p->fams[i]->f)
			fclose(p->fams[i]->f);
		free(p->fams[i]->text);
		free(p->fams[i]->name);
		free(p->fams[i]->help);
		free(p->fams[i]);
	}
	free(p->fams);
	free(p);
}

static bool valid_name(const char *s, bool colon)
{
	const char *c;

	if (!s || !*s || (*s >= '0' && *s <= '9'))
		return false;
	for (c = s; *c; c++) {
		if ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		    (*c >= '0' && *c <= '9') || *c == '_' || (colon && *c == ':'))
			continue;
		return false;
	}
	return true;
}

int bt_prom_family(struct bt_prom *p, const char *name, enum bt_prom_type type, const char *help)
{
	struct family *fam;
	size_t i;

	if (!valid_name(name, true) || type > BT_PROM_HISTOGRAM)
		return -EINVAL;
	for (i = 0; i < p->nfams; i++) {
		if (!strcmp(p->fams[i]->name, name)) {
			if (p->fams[i]->type != type)
				return -EINVAL;
			p->cur = p->fams[i];
			return 0;
		}
	}
	if (p->nfams == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 16;
		struct family **n = realloc(p->fams, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		p->fams = n;
		p->cap = cap;
	}
	/*
	 * A family of its own allocation: open_memstream() writes the text's address and length
	 * to &fam->text and &fam->len at every flush, so an array that realloc() moves would
	 * leave it writing into freed memory (the 17th family lost every earlier one's samples).
	 */
	fam = calloc(1, sizeof(*fam));
	if (!fam)
		return -ENOMEM;
	fam->type = type;
	fam->name = strdup(name);
	fam->help = strdup(help ? help : "");
	fam->f = open_memstream(&fam->text, &fam->len);
	if (!fam->name || !fam->help || !fam->f) {
		if (fam->f)
			fclose(fam->f);
		free(fam->text);
		free(fam->name);
		free(fam->help);
		free(fam);
		p->cur = NULL;
		return -ENOMEM;
	}
	p->fams[p->nfams++] = fam;
	p->cur = fam;
	return 0;
}

/* The shortest text that reads back as v (integers as integers) into buf[32]. */
static const char *number_text(char *buf, double v)
{
	int prec;

	if (isinf(v))
		return v > 0 ? "+Inf" : "-Inf";
	if (isnan(v))
		return "NaN";
	if (v == trunc(v) && fabs(v) < 0x1p63) {
		/* counts whole, as people read them (an integer's digits cost less than a double's) */
		snprintf(buf, 32, "%lld", (long long)v);
		return buf;
	}
	for (prec = 1; prec < 17; prec++) {
		snprintf(buf, 32, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			return buf;
	}
	snprintf(buf, 32, "%.17g", v);
	return buf;
}

static void put_number(FILE *f, double v)
{
	char buf[32];

	fputs(number_text(buf, v), f);
}

/*
 * The exposition format's escapes (backslash, newline, quote), and a control byte or a byte
 * that is not UTF-8 as the other outputs write it: the value then reads "\xNN" (a comm label
 * is the traced process's choice).
 */
static void put_escaped(FILE *f, const char *s, bool help)
{
	size_t len = strlen(s), i = 0, k;

	while (i < len) {
		if (s[i] == '\\') {
			fputs("\\\\", f);
		} else if (s[i] == '\n') {
			fputs("\\n", f);
		} else if (s[i] == '"' && !help) {
			fputs("\\\"", f);
		} else if ((k = bt_escape_keep(s + i, len - i, 0))) {
			fwrite(s + i, 1, k, f);
			i += k;
			continue;
		} else {
			fprintf(f, "\\\\x%02x", (unsigned char)s[i]);
		}
		i++;
	}
}

/*
 * One sample line: NAME SUFFIX {LABELS[,le="LE"]} VALUE. le NULL: no le label. Label names
 * were checked by the caller.
 */
static void put_sample(FILE *f, const char *name, const char *suffix, const char *const *labels,
		       const char *le, double value)
{
	bool any = false;

	fprintf(f, "%s%s", name, suffix);
	for (; labels && labels[0] && labels[1]; labels += 2) {
		fprintf(f, "%s%s=\"", any ? "," : "{", labels[0]);
		put_escaped(f, labels[1], false);
		fputc('"', f);
		any = true;
	}
	if (le) {
		fprintf(f, "%sle=\"%s\"", any ? "," : "{", le);
		any = true;
	}
	if (any)
		fputc('}', f);
	fputc(' ', f);
	put_number(f, value);
	fputc('\n', f);
}

/* The current family, if of type, with room for one more label set: 0, 1 (dropped), -errno. */
static int take_series(struct bt_prom *p, enum bt_prom_type type, const char *const *labels)
{
	const char *const *l;

	if (!p->cur || p->cur->type != type)
		return -EINVAL;
	for (l = labels; l && l[0]; l += 2)
		if (!l[1] || !valid_name(l[0], false) || !strcmp(l[0], "le"))
			return -EINVAL;
	if (p->max_series && p->cur->series >= p->max_series) {
		p->dropped++;
		return 1;
	}
	p->cur->series++;
	return 0;
}

int bt_prom_counter(struct bt_prom *p, const char *const *labels, double value)
{
	int err = take_series(p, BT_PROM_COUNTER, labels);

	if (!err)
		put_sample(p->cur->f, p->cur->name, "_total", labels, NULL, value);
	return err;
}

int bt_prom_gauge(struct bt_prom *p, const char *const *labels, double value)
{
	int err = take_series(p, BT_PROM_GAUGE, labels);

	if (!err)
		put_sample(p->cur->f, p->cur->name, "", labels, NULL, value);
	return err;
}

/* The text of bound 2^i units, from the family's cache (or buf[32] past it). */
static const char *le_text(struct family *fam, double unit, size_t i, char *buf)
{
	if (i >= LE_CACHED)
		return number_text(buf, ldexp(unit, (int)i));
	if (fam->le_unit != unit) {
		fam->le_unit = unit;
		fam->le_known = 0;
	}
	for (; fam->le_known <= i; fam->le_known++) {
		char *t = fam->le_text[fam->le_known];
		const char *s = number_text(t, ldexp(unit, (int)fam->le_known));

		if (s != t)
			snprintf(t, sizeof(fam->le_text[0]), "%s", s);
	}
	return fam->le_text[i];
}

int bt_prom_log2_hist(struct bt_prom *p, const char *const *labels, const uint64_t *slots,
		      size_t nslots, double unit, double sum)
{
	size_t i;
	uint64_t count = 0;
	char buf[32];
	int err = take_series(p, BT_PROM_HISTOGRAM, labels);

	if (err)
		return err;
	/*
	 * The same bounds for every series of the family, however each is filled: a sum by le
	 * across series (histogram_quantile(sum by (le) ...)) must be a histogram. Up to the
	 * first power of two at or above BT_PROM_LOG2_TOP; what is beyond is in +Inf only (the
	 * probes' last slot also holds everything past it, no bound of its own).
	 * Slot 0 is never filled by the BPF side; were it, it is below 2^1 units too.
	 */
	for (i = 0; i < nslots; i++) {
		count += slots[i];
		if (i >= 1 && i + 1 < nslots && ldexp(unit, (int)i - 1) < BT_PROM_LOG2_TOP)
			put_sample(p->cur->f, p->cur->name, "_bucket", labels,
				   le_text(p->cur, unit, i, buf), (double)count);
	}
	put_sample(p->cur->f, p->cur->name, "_bucket", labels, "+Inf", (double)count);
	put_sample(p->cur->f, p->cur->name, "_sum", labels, NULL, sum);
	put_sample(p->cur->f, p->cur->name, "_count", labels, NULL, (double)count);
	return 0;
}

size_t bt_prom_dropped(const struct bt_prom *p)
{
	return p->dropped;
}

static const char *type_name(enum bt_prom_type t)
{
	return t == BT_PROM_COUNTER ? "counter" : t == BT_PROM_GAUGE ? "gauge" : "histogram";
}

int bt_prom_write(const struct bt_prom *p, FILE *out, bool openmetrics)
{
	size_t i;

	for (i = 0; i < p->nfams; i++) {
		struct family *fam = p->fams[i];
		/* Prometheus' format names a counter's family as its samples; OpenMetrics not */
		const char *suffix = fam->type == BT_PROM_COUNTER && !openmetrics ? "_total" : "";

		if (fflush(fam->f) || !fam->series)
			continue;
		fprintf(out, "# HELP %s%s ", fam->name, suffix);
		put_escaped(out, fam->help, !openmetrics);
		fprintf(out, "\n# TYPE %s%s %s\n", fam->name, suffix, type_name(fam->type));
		fwrite(fam->text, 1, fam->len, out);
	}
	if (openmetrics)
		fputs("# EOF\n", out);
	return ferror(out) ? -EIO : 0;
}
