// SPDX-License-Identifier: GPL-2.0
/* The profile tree, folded input, the SVG writer and the pprof encoder (read back here). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "bt_flame.h"
#include "bt_pprof.h"
#include "harness.h"

static char *svg_of(struct bt_profile *p, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	CHECK_INT(bt_flame_write(p, f), 0);
	fclose(f);
	return buf;
}

static size_t count(const char *s, const char *needle)
{
	size_t n = 0;

	for (; (s = strstr(s, needle)); s += strlen(needle))
		n++;
	return n;
}

static void test_tree(void)
{
	struct bt_prof_frame a[] = { { "main", "/bin/x", BT_PROF_USER },
				     { "work", "/bin/x", BT_PROF_USER },
				     { "do_sys", NULL, BT_PROF_KERNEL } };
	struct bt_prof_frame b[] = { { "main", "/bin/x", BT_PROF_USER },
				     { "work", "/bin/x", BT_PROF_INLINED } };
	struct bt_profile *p = bt_profile_new(NULL);
	size_t len;
	char *svg;

	CHECK(p != NULL);
	CHECK_INT(bt_profile_add(p, a, 3, 10), 0);
	CHECK_INT(bt_profile_add(p, a, 3, 5), 0);
	CHECK_INT(bt_profile_add(p, a, 2, 7), 0);
	CHECK_INT(bt_profile_add(p, b, 2, 1), 0); /* same name, another kind: another frame */
	CHECK_INT(bt_profile_add(p, a, 3, 0), 0); /* nothing */
	CHECK_INT(bt_profile_total(p), 23);
	b[1].kind = (enum bt_prof_kind)99;
	CHECK_INT(bt_profile_add(p, b, 2, 1), -EINVAL);
	CHECK_INT(bt_profile_total(p), 23);

	svg = svg_of(p, &len);
	/* all, main, work (user), work (inlined), do_sys */
	CHECK_INT(count(svg, "<g class=\"f "), 5);
	CHECK(strstr(svg, "<title>all (23 samples, 100.00%)</title>") != NULL);
	CHECK(strstr(svg, "<title>main [/bin/x] (23 samples, 100.00%)</title>") != NULL);
	CHECK(strstr(svg, "<g class=\"f user\"><title>work [/bin/x] (22 samples, 95.65%)") != NULL);
	CHECK(strstr(svg, "<g class=\"f inlined\"><title>work [/bin/x] (1 sample, 4.35%)") != NULL);
	CHECK(strstr(svg, "<g class=\"f kernel\"><title>do_sys (15 samples, 65.22%)") != NULL);
	CHECK(len > 10 && !strcmp(svg + len - 7, "</svg>\n"));
	free(svg);
	bt_profile_free(p);
	bt_profile_free(NULL);
}

static void test_folded(void)
{
	struct bt_profile *p = bt_profile_new(&(struct bt_profile_opts){ .folded_comm = true });
	size_t len;
	char *svg;

	CHECK_INT(bt_profile_add_folded(p, "proc;main;f_[i];-;sys_read;vfs_read_[k] 3\n"), 0);
	CHECK_INT(bt_profile_add_folded(p, "proc;[Missed User Stack];-;bpf_prog_1234_x 2"), 0);
	CHECK_INT(bt_profile_add_folded(p, "proc;main;jitted_[j] 1"), 0);
	CHECK_INT(bt_profile_add_folded(p, "proc;operator new(unsigned long) 4"), 0);
	CHECK_INT(bt_profile_add_folded(p, "\n"), 0);
	CHECK_INT(bt_profile_add_folded(p, "proc;main 0"), 0);
	CHECK_INT(bt_profile_add_folded(p, "proc;main"), -EINVAL);
	CHECK_INT(bt_profile_add_folded(p, "proc;main x1"), -EINVAL);
	CHECK_INT(bt_profile_add_folded(p, "proc;main 12x"), -EINVAL);
	CHECK_INT(bt_profile_add_folded(p, "proc;main 99999999999999999999999"), -EINVAL);
	CHECK_INT(bt_profile_total(p), 10);
	/* a total past int64 is refused, and leaves the profile as it was (it used to wrap) */
	CHECK_INT(bt_profile_add_folded(p, "proc;main 9223372036854775800"), -EOVERFLOW);
	CHECK_INT(bt_profile_add_folded(p, "proc;main 18446744073709551615"), -EOVERFLOW);
	CHECK_INT(bt_profile_total(p), 10);
	CHECK_INT(bt_profile_add_folded(p, "proc;big 9223372036854775797"), 0);
	CHECK(bt_profile_total(p) == INT64_MAX);
	CHECK_INT(bt_profile_add_folded(p, "proc;big 1"), -EOVERFLOW);
	CHECK(bt_profile_total(p) == INT64_MAX);
	CHECK_INT(bt_profile_add_folded(p, "proc;big;-;x 0"), 0); /* nothing: still fine */
	bt_profile_free(p);
	p = bt_profile_new(&(struct bt_profile_opts){ .folded_comm = true });
	CHECK_INT(bt_profile_add_folded(p, "proc;main;f_[i];-;sys_read;vfs_read_[k] 3\n"), 0);
	CHECK_INT(bt_profile_add_folded(p, "proc;[Missed User Stack];-;bpf_prog_1234_x 2"), 0);
	CHECK_INT(bt_profile_add_folded(p, "proc;main;jitted_[j] 1"), 0);
	CHECK_INT(bt_profile_add_folded(p, "proc;operator new(unsigned long) 4"), 0);
	CHECK_INT(bt_profile_total(p), 10);

	svg = svg_of(p, &len);
	CHECK(strstr(svg, "<g class=\"f other\"><title>proc (10 ") != NULL);
	CHECK(strstr(svg, "<g class=\"f inlined\"><title>f (3 ") != NULL);
	CHECK(strstr(svg, "<g class=\"f other\"><title>- (3 ") != NULL);
	CHECK(strstr(svg, "<g class=\"f other\"><title>- (2 ") != NULL);
	CHECK(strstr(svg, "<g class=\"f kernel\"><title>sys_read (3 ") != NULL);
	CHECK(strstr(svg, "<g class=\"f kernel\"><title>vfs_read (3 ") != NULL);
	CHECK(strstr(svg, "<g class=\"f missed\"><title>[Missed User Stack] (2 ") != NULL);
	CHECK(strstr(svg, "<g class=\"f jit\"><title>bpf_prog_1234_x (2 ") != NULL);
	CHECK(strstr(svg, "<g class=\"f jit\"><title>jitted (1 ") != NULL);
	CHECK(strstr(svg, "<g class=\"f user\"><title>operator new(unsigned long) (4 ") != NULL);
	free(svg);
	bt_profile_free(p);

	/* Kernel-only tools: unmarked frames are kernel; offwaketime's "--" switches nothing. */
	p = bt_profile_new(&(struct bt_profile_opts){ .folded_kind = BT_PROF_KERNEL });
	CHECK_INT(bt_profile_add_folded(p, "schedule;--;try_to_wake_up 1"), 0);
	svg = svg_of(p, &len);
	CHECK(strstr(svg, "<g class=\"f kernel\"><title>schedule (1 ") != NULL);
	CHECK(strstr(svg, "<g class=\"f other\"><title>-- (1 ") != NULL);
	CHECK(strstr(svg, "<g class=\"f kernel\"><title>try_to_wake_up (1 ") != NULL);
	free(svg);
	bt_profile_free(p);
}

/* Names are XML-escaped, and what is not UTF-8 (or a control character) becomes '?'. */
static void test_escaping(void)
{
	struct bt_profile *p = bt_profile_new(&(struct bt_profile_opts){ .title = "a & b" });
	struct bt_prof_frame f[] = { { "std::vector<int>::at&\"x\"", NULL, BT_PROF_USER },
				     { "bad\xff\x01utf8 \xc3\xa9t\xc3", NULL, BT_PROF_USER } };
	size_t len;
	char *svg;

	CHECK_INT(bt_profile_add(p, f, 2, 1), 0);
	svg = svg_of(p, &len);
	CHECK(strstr(svg, ">a &amp; b</text>") != NULL);
	CHECK(strstr(svg, "<title>std::vector&lt;int&gt;::at&amp;&quot;x&quot; (1 ") != NULL);
	CHECK(strstr(svg, "<title>bad??utf8 \xc3\xa9t? (1 ") != NULL);
	CHECK(strchr(svg, '\x01') == NULL && strchr(svg, '\xff') == NULL);
	free(svg);
	bt_profile_free(p);
}

/* Labels are cut to fit, never in the middle of a UTF-8 character. */
static void test_labels(void)
{
	struct bt_profile *p = bt_profile_new(&(struct bt_profile_opts){ .width = 120 });
	struct bt_prof_frame f[] = { { "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
				       "\xc3\xa9\xc3\xa9\xc3\xa9",
				       NULL, BT_PROF_USER } };
	size_t len;
	char *svg, *t;

	CHECK_INT(bt_profile_add(p, f, 1, 1), 0);
	svg = svg_of(p, &len);
	/* 100 px wide: 13 characters' room, 11 bytes and "..", cut back to 10 (5 characters) */
	t = strstr(svg, "<text x=\"13.00\" y=\"");
	t = t ? strstr(t, "\">\xc3\xa9") : NULL;
	CHECK(t != NULL);
	if (t)
		CHECK(!strncmp(t + 2, "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9..</text>", 19));
	free(svg);
	bt_profile_free(p);
}

/* Many distinct paths: the node table grows and keeps every path apart. */
static void test_many(void)
{
	struct bt_profile *p = bt_profile_new(&(struct bt_profile_opts){ .minwidth = -1 });
	char a[16], b[16];
	size_t len;
	char *svg;
	int i;

	for (i = 0; i < 5000; i++) {
		struct bt_prof_frame f[] = { { "root", NULL, BT_PROF_USER },
					     { a, NULL, BT_PROF_USER },
					     { b, NULL, BT_PROF_KERNEL } };

		snprintf(a, sizeof(a), "a%d", i % 50);
		snprintf(b, sizeof(b), "b%d", i);
		CHECK_INT(bt_profile_add(p, f, 3, i + 1), 0);
	}
	CHECK_INT(bt_profile_total(p), 5000ULL * 5001 / 2);
	svg = svg_of(p, &len);
	CHECK_INT(count(svg, "<g class=\"f "), 1 + 1 + 50 + 5000);
	free(svg);
	bt_profile_free(p);
}

/* A minimal protobuf reader for the test: the fields of one message. */
struct field {
	unsigned int num, wire;
	uint64_t v;
	const uint8_t *data;
	size_t len;
};

static int varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	int shift = 0;

	*v = 0;
	while (*p < end && shift < 64) {
		uint8_t b = *(*p)++;

		*v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return 0;
		shift += 7;
	}
	return -1;
}

static int next_field(const uint8_t **p, const uint8_t *end, struct field *f)
{
	uint64_t key;

	if (*p >= end || varint(p, end, &key))
		return -1;
	f->num = key >> 3;
	f->wire = key & 7;
	if (f->wire == 0)
		return varint(p, end, &f->v);
	if (f->wire != 2 || varint(p, end, &f->v) || f->v > (uint64_t)(end - *p))
		return -1;
	f->data = *p;
	f->len = f->v;
	*p += f->len;
	return 0;
}

static uint8_t *gunzip(const char *in, size_t n, size_t *out_len)
{
	size_t cap = 1 << 16;
	uint8_t *out = malloc(cap);
	z_stream zs = { 0 };
	int r;

	CHECK_INT(inflateInit2(&zs, 15 + 16), Z_OK);
	zs.next_in = (uint8_t *)in;
	zs.avail_in = n;
	do {
		if (zs.total_out == cap)
			out = realloc(out, cap *= 2);
		zs.next_out = out + zs.total_out;
		zs.avail_out = cap - zs.total_out;
		r = inflate(&zs, Z_NO_FLUSH);
	} while (r == Z_OK);
	CHECK_INT(r, Z_STREAM_END);
	*out_len = zs.total_out;
	inflateEnd(&zs);
	return out;
}

static void test_pprof(void)
{
	struct bt_profile *p = bt_profile_new(
		&(struct bt_profile_opts){ .sample_type = "off_cpu", .unit = "microseconds" });
	struct bt_prof_frame a[] = { { "main", "/bin/x", BT_PROF_USER },
				     { "work", "/bin/x", BT_PROF_USER },
				     { "schedule", NULL, BT_PROF_KERNEL } };
	const char *strs[64];
	uint64_t total = 0, sample_ids[2][8], nids[2] = { 0 }, values[2];
	size_t glen, len, nstr = 0, nsamples = 0, nfunc = 0, nloc = 0, nmap = 0, i;
	const uint8_t *q, *end;
	struct field f, g, h;
	uint8_t *pb;
	char *gz = NULL;
	FILE *out;

	CHECK_INT(bt_profile_add(p, a, 3, 1000), 0);
	CHECK_INT(bt_profile_add(p, a, 2, 250), 0);
	out = open_memstream(&gz, &glen);
	CHECK_INT(bt_pprof_write(p, out), 0);
	fclose(out);
	CHECK(glen > 18 && (uint8_t)gz[0] == 0x1f && (uint8_t)gz[1] == 0x8b);
	pb = gunzip(gz, glen, &len);

	for (q = pb, end = pb + len; q < end;) {
		CHECK_INT(next_field(&q, end, &f), 0);
		if (f.num == 6 && nstr < 64)
			strs[nstr++] = strndup((const char *)f.data, f.len);
		if (f.num == 5)
			nfunc++;
		if (f.num == 4)
			nloc++;
		if (f.num == 3)
			nmap++;
		if (f.num != 2)
			continue;
		for (q = f.data, end = f.data + f.len; q < end;) {
			CHECK_INT(next_field(&q, end, &g), 0);
			if (g.num == 1 && nsamples < 2)
				for (const uint8_t *r = g.data; r < g.data + g.len;)
					varint(&r, g.data + g.len,
					       &sample_ids[nsamples][nids[nsamples]++]);
			if (g.num == 2 && nsamples < 2) {
				const uint8_t *r = g.data;

				varint(&r, g.data + g.len, &h.v);
				values[nsamples] = h.v;
				total += h.v;
			}
		}
		nsamples++;
		q = f.data + f.len;
		end = pb + len;
	}
	CHECK_INT(nsamples, 2);
	CHECK_INT(total, 1250);
	CHECK_INT(nfunc, 3);
	CHECK_INT(nloc, 3);
	CHECK_INT(nmap, 1); /* /bin/x; the kernel's frames name their file only */
	CHECK(nstr > 6 && strs[0][0] == '\0');
	for (i = 0; i < 2; i++) {
		/* leaf first: the 1000 sample is schedule <- work <- main */
		if (values[i] == 1000)
			CHECK_INT(nids[i], 3);
		else
			CHECK_INT(nids[i], 2);
	}
	{
		const char *want[] = { "off_cpu", "microseconds",     "main", "work", "schedule",
				       "/bin/x",  "[kernel.kallsyms]" };
		size_t j, k;

		for (j = 0; j < sizeof(want) / sizeof(want[0]); j++) {
			for (k = 0; k < nstr && strcmp(strs[k], want[j]); k++)
				;
			CHECK(k < nstr);
		}
	}
	for (i = 0; i < nstr; i++)
		free((void *)strs[i]);
	free(pb);
	free(gz);
	bt_profile_free(p);
}

/*
 * profile --wall: samples through an off-CPU frame are cold, and a frame whose time is mostly
 * cold is drawn blue; a frame mostly on-CPU keeps its warm colour. Folded "[off-cpu: S]" frames
 * are off-CPU frames too.
 */
static void test_hot_cold(void)
{
	struct bt_profile *p = bt_profile_new(&(struct bt_profile_opts){ .folded_comm = true });
	char *svg, *at;
	size_t len;
	int r, g, b;

	CHECK_INT(bt_profile_add_folded(p, "t;main;spin 30"), 0);
	CHECK_INT(bt_profile_add_folded(p, "t;main;nap;do_nanosleep_[k];[off-cpu: S] 70"), 0);
	CHECK_INT(bt_profile_add_folded(p, "t;main;spin;[off-cpu: R] 10"), 0);
	svg = svg_of(p, &len);
	CHECK_INT(count(svg, "<g class=\"f offcpu cold\">"), 2);
	/* nap: all of it off-CPU; main: 80 of 110; spin: 10 of 40, hot */
	at = strstr(svg, "<title>nap (70 samples");
	CHECK(at && sscanf(strstr(at, "fill=\"rgb("), "fill=\"rgb(%d,%d,%d)", &r, &g, &b) == 3);
	CHECK(b > r);
	at = strstr(svg, "<title>main (110 samples");
	CHECK(at && sscanf(strstr(at, "fill=\"rgb("), "fill=\"rgb(%d,%d,%d)", &r, &g, &b) == 3);
	CHECK(b > r);
	at = strstr(svg, "<title>spin (40 samples");
	CHECK(at && sscanf(strstr(at, "fill=\"rgb("), "fill=\"rgb(%d,%d,%d)", &r, &g, &b) == 3);
	CHECK(r > b);
	free(svg);
	bt_profile_free(p);
}

/* profile: a second sample type, each sample's value scaled (samples, then CPU ns). */
static void test_pprof_two_values(void)
{
	struct bt_profile *p =
		bt_profile_new(&(struct bt_profile_opts){ .sample_type = "samples",
							  .unit = "count",
							  .sample_type2 = "cpu",
							  .unit2 = "nanoseconds",
							  .value2_scale = 20408163 });
	struct bt_prof_frame a[] = { { "main", "/bin/x", BT_PROF_USER } };
	size_t glen, len, ntypes = 0, nvalues = 0;
	uint64_t v[4] = { 0 };
	const uint8_t *q, *end, *r;
	struct field f, g;
	uint8_t *pb;
	char *gz = NULL;
	FILE *out;

	CHECK_INT(bt_profile_add(p, a, 1, 3), 0);
	out = open_memstream(&gz, &glen);
	CHECK_INT(bt_pprof_write(p, out), 0);
	fclose(out);
	pb = gunzip(gz, glen, &len);
	for (q = pb, end = pb + len; q < end;) {
		CHECK_INT(next_field(&q, end, &f), 0);
		ntypes += f.num == 1;
		if (f.num != 2)
			continue;
		for (r = f.data; r < f.data + f.len;) {
			CHECK_INT(next_field(&r, f.data + f.len, &g), 0);
			if (g.num != 2)
				continue;
			for (const uint8_t *x = g.data; x < g.data + g.len && nvalues < 4;)
				varint(&x, g.data + g.len, &v[nvalues++]);
		}
	}
	CHECK_INT(ntypes, 2);
	CHECK_INT(nvalues, 2);
	CHECK(v[0] == 3 && v[1] == 3ULL * 20408163);
	free(pb);
	free(gz);
	bt_profile_free(p);
}

/*
 * Labels (profile's CPU and thread): samples of one stack with other labels stay apart in
 * pprof, as Label { key, str or num }; the same labels merge; the unlabelled rest is one sample
 * of its own; the flame graph merges them all.
 */
static void test_pprof_labels(void)
{
	struct bt_profile *p = bt_profile_new(&(struct bt_profile_opts){ .value_scale = 1000 });
	struct bt_prof_frame a[] = { { "main", "/bin/x", BT_PROF_USER } };
	struct bt_prof_label cpu1[] = { { "cpu", NULL, 1 }, { "thread_name", "w\x1fx", 0 } };
	struct bt_prof_label cpu0[] = { { "cpu", NULL, 0 }, { "thread_name", "w\x1fx", 0 } };
	const char *strs[64];
	struct {
		uint64_t value, nlabels, key[4], str[4], num[4];
	} got[4] = { { 0 } };
	size_t glen, len, nstr = 0, n = 0, i;
	const uint8_t *q, *end, *r;
	struct field f, g, h;
	uint8_t *pb;
	char *gz = NULL, *svg;
	FILE *out;

	CHECK_INT(bt_profile_add_labeled(p, a, 1, cpu1, 2, 3), 0);
	CHECK_INT(bt_profile_add_labeled(p, a, 1, cpu0, 2, 5), 0);
	CHECK_INT(bt_profile_add_labeled(p, a, 1, cpu1, 2, 4), 0);
	CHECK_INT(bt_profile_add(p, a, 1, 2), 0);
	svg = svg_of(p, &len);
	CHECK(strstr(svg, "<title>main [/bin/x] (14 samples") != NULL);
	free(svg);
	out = open_memstream(&gz, &glen);
	CHECK_INT(bt_pprof_write(p, out), 0);
	fclose(out);
	pb = gunzip(gz, glen, &len);
	for (q = pb, end = pb + len; q < end;) {
		CHECK_INT(next_field(&q, end, &f), 0);
		if (f.num == 6 && nstr < 64)
			strs[nstr++] = strndup((const char *)f.data, f.len);
		if (f.num != 2 || n == 4)
			continue;
		for (r = f.data; r < f.data + f.len;) {
			CHECK_INT(next_field(&r, f.data + f.len, &g), 0);
			if (g.num == 2) {
				const uint8_t *x = g.data;

				varint(&x, g.data + g.len, &got[n].value);
			}
			if (g.num != 3 || got[n].nlabels == 4)
				continue;
			for (const uint8_t *x = g.data; x < g.data + g.len;) {
				CHECK_INT(next_field(&x, g.data + g.len, &h), 0);
				if (h.num == 1)
					got[n].key[got[n].nlabels] = h.v;
				if (h.num == 2)
					got[n].str[got[n].nlabels] = h.v;
				if (h.num == 3)
					got[n].num[got[n].nlabels] = h.v;
			}
			got[n].nlabels++;
		}
		n++;
	}
	CHECK_INT(n, 3);
	/* in the order first seen, the unlabelled rest last; values in the unit scaled */
	CHECK_INT(got[0].value, 7000);
	CHECK_INT(got[1].value, 5000);
	CHECK_INT(got[2].value, 2000);
	CHECK_INT(got[2].nlabels, 0);
	for (i = 0; i < 2; i++) {
		CHECK_INT(got[i].nlabels, 2);
		CHECK_STR(strs[got[i].key[0]], "cpu");
		CHECK_INT(got[i].num[0], i == 0 ? 1 : 0);
		CHECK_INT(got[i].str[0], 0);
		CHECK_STR(strs[got[i].key[1]], "thread_name");
		/* a control byte in a name reaches no viewer: escaped as every output does */
		CHECK_STR(strs[got[i].str[1]], "w\\x1fx");
	}
	for (i = 0; i < nstr; i++)
		free((void *)strs[i]);
	free(pb);
	free(gz);
	bt_profile_free(p);
}

/* An empty profile still writes a valid (empty) graph and profile. */
static void test_empty(void)
{
	struct bt_profile *p = bt_profile_new(NULL);
	char *buf = NULL;
	size_t len, n;
	uint8_t *pb;
	FILE *f;

	buf = svg_of(p, &len);
	CHECK(strstr(buf, "</svg>") != NULL);
	CHECK_INT(count(buf, "<g class=\"f "), 0);
	CHECK(strstr(buf, ">No samples</text>") != NULL);
	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	CHECK_INT(bt_pprof_write(p, f), 0);
	fclose(f);
	pb = gunzip(buf, len, &n);
	CHECK(n > 0);
	free(pb);
	free(buf);
	bt_profile_free(p);
}

static void test_from_folded(void)
{
	const char in[] = "a;b 2\na;c 3\n\nbroken\n";
	char *out = NULL;
	size_t len;
	FILE *i = fmemopen((void *)in, 11, "r"), *o = open_memstream(&out, &len);

	CHECK_INT(bt_flame_from_folded(i, o, NULL), 0);
	fclose(o);
	fclose(i);
	CHECK(strstr(out, "<title>all (5 samples, 100.00%)</title>") != NULL);
	free(out);

	out = NULL;
	i = fmemopen((void *)in, sizeof(in) - 1, "r");
	o = open_memstream(&out, &len);
	CHECK_INT(bt_pprof_from_folded(i, o, NULL), -EINVAL);
	fclose(o);
	fclose(i);
	free(out);
}

/* The palette's colour of the frame with this title prefix. */
static bool fill_of(const char *svg, const char *title, int *r, int *g, int *b)
{
	const char *at = strstr(svg, title);

	return at && sscanf(strstr(at, "fill=\"rgb("), "fill=\"rgb(%d,%d,%d)", r, g, b) == 3;
}

/*
 * User red and kernel orange never meet, whatever the name (the old user range, red to
 * yellow, held the kernel's orange: libc's clock_nanosleep and entry_SYSCALL_64 looked
 * alike); off-CPU, user blue and kernel violet; JIT green.
 */
static void test_palette(void)
{
	struct bt_profile *p =
		bt_profile_new(&(struct bt_profile_opts){ .minwidth = -1, .folded_comm = true });
	struct bt_profile *off = bt_profile_new(
		&(struct bt_profile_opts){ .minwidth = -1, .folded_comm = true, .offcpu = true });
	char line[128], title[64], *svg, *osvg;
	int i, r, g, b, bad = 0;
	size_t len;

	for (i = 0; i < 200; i++) {
		snprintf(line, sizeof(line), "c;u%d;k%d_[k];j%d_[j] 1", i, i, i);
		CHECK_INT(bt_profile_add_folded(p, line), 0);
		CHECK_INT(bt_profile_add_folded(off, line), 0);
	}
	svg = svg_of(p, &len);
	osvg = svg_of(off, &len);
	for (i = 0; i < 200; i++) {
		snprintf(title, sizeof(title), "<title>u%d (", i);
		bad += !(fill_of(svg, title, &r, &g, &b) && r >= 200 && g <= 60 && b <= 60);
		bad += !(fill_of(osvg, title, &r, &g, &b) && b >= 205 && r <= 90 && g <= 160);
		snprintf(title, sizeof(title), "<title>k%d (", i);
		bad += !(fill_of(svg, title, &r, &g, &b) && r >= 225 && g >= 125 && g <= 180 &&
			 b <= 25);
		bad += !(fill_of(osvg, title, &r, &g, &b) && b >= 215 && r >= 145 && g <= 145);
		snprintf(title, sizeof(title), "<title>j%d (", i);
		bad += !(fill_of(svg, title, &r, &g, &b) && g >= 190 && r <= 110 && b <= 110);
	}
	CHECK_INT(bad, 0);
	CHECK_INT(count(osvg, " cold\"><title>"), count(osvg, "<g class=\"f "));
	CHECK_INT(count(svg, " cold\"><title>"), 0);
	free(svg);
	free(osvg);
	bt_profile_free(p);
	bt_profile_free(off);
}

/* Tooltips a person reads: thousands separators, "samples" for counts, one is singular. */
static void test_numbers(void)
{
	struct bt_profile *p = bt_profile_new(&(struct bt_profile_opts){ .unit = "microseconds" });
	struct bt_profile *c = bt_profile_new(NULL);
	char *svg;
	size_t len;

	CHECK_INT(bt_profile_add_folded(p, "a;b 4942257"), 0);
	CHECK_INT(bt_profile_add_folded(p, "a;c 1000000"), 0);
	svg = svg_of(p, &len);
	CHECK(strstr(svg, "<title>b (4,942,257 microseconds, 83.17%)</title>") != NULL);
	CHECK(strstr(svg, "<title>all (5,942,257 microseconds, 100.00%)</title>") != NULL);
	CHECK(strstr(svg, "a flame graph of 5,942,257 microseconds.") != NULL);
	free(svg);
	CHECK_INT(bt_profile_add_folded(c, "a;b 255"), 0);
	CHECK_INT(bt_profile_add_folded(c, "a;c 1"), 0);
	svg = svg_of(c, &len);
	CHECK(strstr(svg, "<title>b (255 samples, 99.61%)</title>") != NULL);
	CHECK(strstr(svg, "<title>c (1 sample, 0.39%)</title>") != NULL);
	free(svg);
	bt_profile_free(p);
	bt_profile_free(c);
}

/*
 * --minwidth: a frame narrower than 0.1 px is left out with everything above it, its time
 * drawn as its parent's (the parent as wide as before); minwidth -1 draws every frame.
 */
static void test_minwidth(void)
{
	struct bt_profile *p =
		bt_profile_new(&(struct bt_profile_opts){ .title = "T", .subtitle = "S & s" });
	struct bt_profile *all = bt_profile_new(&(struct bt_profile_opts){ .minwidth = -1 });
	char *svg;
	size_t len;

	/* 1180 px for 1,180,000: 1 px per 1000; tiny (50) is 0.05 px, small (200) 0.2 px */
	CHECK_INT(bt_profile_add_folded(p, "a;big 1179750"), 0);
	CHECK_INT(bt_profile_add_folded(p, "a;tiny;above 50"), 0);
	CHECK_INT(bt_profile_add_folded(p, "a;small 200"), 0);
	CHECK_INT(bt_profile_add_folded(all, "a;big 1179750"), 0);
	CHECK_INT(bt_profile_add_folded(all, "a;tiny;above 50"), 0);
	svg = svg_of(p, &len);
	CHECK(strstr(svg, "<title>tiny (") == NULL);
	CHECK(strstr(svg, "<title>above (") == NULL);
	CHECK(strstr(svg, "<title>small (200 samples") != NULL);
	CHECK(strstr(svg, "<title>a (1,180,000 samples, 100.00%)</title><rect x=\"10.0000\" "
			  "y=\"") != NULL);
	CHECK(strstr(svg, "width=\"1180.0000\"") != NULL);
	CHECK(strstr(svg, "<!-- 1 frames narrower than 0.1 px are left out") != NULL);
	CHECK(strstr(svg, "<text id=\"title\" x=\"600\" y=\"24\">T</text>") != NULL);
	CHECK(strstr(svg, "<text id=\"subtitle\" x=\"600\" y=\"44\">S &amp; s</text>") != NULL);
	/* the height is that of the frames drawn: all, a, big (3 rows), not above's 4 */
	CHECK(strstr(svg, "height=\"154\"") != NULL);
	free(svg);
	svg = svg_of(all, &len);
	CHECK(strstr(svg, "<title>tiny (50 samples") != NULL);
	CHECK(strstr(svg, "<title>above (50 samples") != NULL);
	free(svg);
	bt_profile_free(p);
	bt_profile_free(all);
}

/*
 * Folded lines without "-" (-f without -d, offcputime -f 5's): the kernel's entry point
 * starts the kernel frames; after offwaketime's "--" the waker's stack, leaf first, is kernel
 * up to its entry point and user after it. With "-", the delimiter decides as before.
 */
static void test_folded_entry(void)
{
	struct bt_profile *p =
		bt_profile_new(&(struct bt_profile_opts){ .minwidth = -1, .folded_comm = true });
	char *svg;
	size_t len;

	CHECK_INT(bt_profile_add_folded(p, "sleeper;main;clock_nanosleep;"
					   "entry_SYSCALL_64_after_hwframe;do_syscall_64;"
					   "do_nanosleep;schedule 10"),
		  0);
	CHECK_INT(bt_profile_add_folded(p, "kw;ret_from_fork_asm;kthread;worker_thread 3"), 0);
	CHECK_INT(bt_profile_add_folded(p, "d;dmain;-;__x64_sys_read;vfs_read 2"), 0);
	CHECK_INT(bt_profile_add_folded(p, "w;wmain;wsleep;asm_exc_page_fault;handle_mm_fault;--;"
					   "try_to_wake_up;__x64_sys_write;wwrite;wakermain 5"),
		  0);
	svg = svg_of(p, &len);
	CHECK(strstr(svg, "<g class=\"f user\"><title>clock_nanosleep (") != NULL);
	CHECK(strstr(svg, "<g class=\"f kernel\"><title>entry_SYSCALL_64_after_hwframe (") != NULL);
	CHECK(strstr(svg, "<g class=\"f kernel\"><title>schedule (") != NULL);
	CHECK(strstr(svg, "<g class=\"f kernel\"><title>ret_from_fork_asm (") != NULL);
	CHECK(strstr(svg, "<g class=\"f kernel\"><title>worker_thread (") != NULL);
	CHECK(strstr(svg, "<g class=\"f user\"><title>dmain (") != NULL);
	CHECK(strstr(svg, "<g class=\"f kernel\"><title>vfs_read (") != NULL);
	CHECK(strstr(svg, "<g class=\"f user\"><title>wsleep (") != NULL);
	CHECK(strstr(svg, "<g class=\"f kernel\"><title>handle_mm_fault (") != NULL);
	CHECK(strstr(svg, "<g class=\"f kernel\"><title>try_to_wake_up (") != NULL);
	CHECK(strstr(svg, "<g class=\"f kernel\"><title>__x64_sys_write (") != NULL);
	CHECK(strstr(svg, "<g class=\"f user\"><title>wwrite (") != NULL);
	free(svg);
	bt_profile_free(p);
}

int main(void)
{
	BT_RUN(test_tree);
	BT_RUN(test_folded);
	BT_RUN(test_escaping);
	BT_RUN(test_labels);
	BT_RUN(test_many);
	BT_RUN(test_pprof);
	BT_RUN(test_hot_cold);
	BT_RUN(test_pprof_two_values);
	BT_RUN(test_pprof_labels);
	BT_RUN(test_empty);
	BT_RUN(test_from_folded);
	BT_RUN(test_palette);
	BT_RUN(test_numbers);
	BT_RUN(test_minwidth);
	BT_RUN(test_folded_entry);
	return bt_test_done();
}
