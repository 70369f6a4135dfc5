// SPDX-License-Identifier: GPL-2.0
/*
 * lib/output/bt_summary.c against an in-memory per-CPU map whose callbacks can inject "BPF"
 * updates at the moments that matter: right after user space read a key, between its read and
 * its delete, in the middle of a key walk.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "bt_hist.h"
#include "bt_summary.h"
#include "harness.h"

#define NCPU 3
#define NKEYS 8
#define NV 4 /* u64s per value: total, count, slots[2] (for the histogram tests: see below) */

struct fake {
	size_t key_size;
	bool used[NKEYS];
	unsigned char keys[NKEYS][16];
	uint64_t v[NKEYS][NCPU][NV];
	/* injected updates */
	int bump_after_lookup; /* key slot to add 1 to (field 0, CPU 1) after each lookup, -1: none */
	int bump_before_delete; /* ... add 5 to before a lookup-and-delete copies it, -1: none */
	int restart_walk_once;	/* key walk: go back to the first key once after this many keys */
	int walked;
	int deletes;
};

static int slot_of(struct fake *f, const void *key)
{
	int i;

	for (i = 0; i < NKEYS; i++)
		if (f->used[i] && !memcmp(f->keys[i], key, f->key_size))
			return i;
	return -1;
}

static int fk_next_key(void *ctx, const void *prev, void *next)
{
	struct fake *f = ctx;
	int i = 0;

	if (prev) {
		i = slot_of(f, prev);
		i = i < 0 ? 0 : i + 1; /* a vanished key restarts the walk, as the kernel does */
	}
	if (prev && f->restart_walk_once && ++f->walked == f->restart_walk_once) {
		f->restart_walk_once = 0;
		i = 0;
	}
	for (; i < NKEYS; i++) {
		if (f->used[i]) {
			memcpy(next, f->keys[i], f->key_size);
			return 0;
		}
	}
	return -ENOENT;
}

static int fk_lookup(void *ctx, const void *key, uint64_t *vals)
{
	struct fake *f = ctx;
	int i = slot_of(f, key);

	if (i < 0)
		return -ENOENT;
	memcpy(vals, f->v[i], sizeof(f->v[i]));
	if (f->bump_after_lookup == i)
		f->v[i][1][0]++; /* an event right after the read: must show next time */
	return 0;
}

static int fk_lookup_and_delete(void *ctx, const void *key, uint64_t *vals)
{
	struct fake *f = ctx;
	int i = slot_of(f, key);

	if (i < 0)
		return -ENOENT;
	if (f->bump_before_delete == i)
		f->v[i][2][0] += 5; /* arrived between the interval's read and the delete */
	memcpy(vals, f->v[i], sizeof(f->v[i]));
	memset(f->v[i], 0, sizeof(f->v[i]));
	f->used[i] = false;
	f->deletes++;
	return 0;
}

static void fake_init(struct fake *f, size_t key_size)
{
	memset(f, 0, sizeof(*f));
	f->key_size = key_size;
	f->bump_after_lookup = -1;
	f->bump_before_delete = -1;
}

/* The BPF side: add n to field of key (u32) on cpu, creating the key. */
static void bpf_add(struct fake *f, uint32_t key, int cpu, int field, uint64_t n)
{
	int i = slot_of(f, &key);

	if (i < 0) {
		for (i = 0; f->used[i]; i++)
			;
		f->used[i] = true;
		memset(f->keys[i], 0, sizeof(f->keys[i]));
		memcpy(f->keys[i], &key, 4);
		memset(f->v[i], 0, sizeof(f->v[i]));
	}
	f->v[i][cpu][field] += n;
}

static struct bt_summary *new_summary(struct fake *f, bool retire, enum bt_summary_hist hist)
{
	struct bt_summary_map m = {
		.ncpu = NCPU,
		.next_key = fk_next_key,
		.lookup = fk_lookup,
		.lookup_and_delete = fk_lookup_and_delete,
		.ctx = f,
	};
	struct bt_summary_opts o = {
		.key_size = f->key_size,
		.value_size = NV * 8,
		.hist = hist,
		.hist_off = hist ? 1 : 0,
		.nslots = hist ? NV - 1 : 0,
		.retire_idle = retire,
	};

	return bt_summary__new_map(&m, &o);
}

static uint64_t value_of(struct bt_summary *s, uint32_t key, int field)
{
	size_t i;

	for (i = 0; i < bt_summary__len(s); i++)
		if (!memcmp(bt_summary__key(s, i), &key, 4))
			return bt_summary__value(s, i)[field];
	return 0;
}

static void test_cpus_summed_and_intervals(void)
{
	struct fake f;
	struct bt_summary *s;

	fake_init(&f, 4);
	s = new_summary(&f, false, BT_SUMMARY_NONE);
	CHECK(s != NULL);
	bpf_add(&f, 7, 0, 0, 10);
	bpf_add(&f, 7, 2, 0, 5);
	bpf_add(&f, 7, 1, 1, 2);
	bpf_add(&f, 3, 1, 0, 1);
	CHECK_INT(bt_summary__collect(s), 0);
	CHECK_INT(bt_summary__len(s), 2);
	CHECK_INT(value_of(s, 7, 0), 15);
	CHECK_INT(value_of(s, 7, 1), 2);
	CHECK_INT(value_of(s, 3, 0), 1);
	CHECK_INT(bt_summary__total(s, 0), 16);

	/* next interval: only what was added since; a key with nothing new is no row */
	bpf_add(&f, 7, 1, 0, 4);
	CHECK_INT(bt_summary__collect(s), 0);
	CHECK_INT(bt_summary__len(s), 1);
	CHECK_INT(value_of(s, 7, 0), 4);
	CHECK_INT(value_of(s, 7, 1), 0);
	CHECK_INT(f.deletes, 0); /* without retire_idle the map is never touched */

	CHECK_INT(bt_summary__collect(s), 0);
	CHECK_INT(bt_summary__len(s), 0);
	bt_summary__free(s);
}

/*
 * Read-then-zero (what softirqs did) drops an event that lands between the read and the zeroing
 * write; here one lands right after every read and each must show in the next interval.
 */
static void test_event_after_read_is_not_lost(void)
{
	uint64_t seen = 0, added = 0;
	struct fake f;
	struct bt_summary *s;
	int round;

	fake_init(&f, 4);
	s = new_summary(&f, false, BT_SUMMARY_NONE);
	bpf_add(&f, 1, 0, 0, 1);
	added = 1;
	f.bump_after_lookup = 0;
	for (round = 0; round < 5; round++) {
		CHECK_INT(bt_summary__collect(s), 0);
		seen += value_of(s, 1, 0);
		added++; /* the bump after this round's read */
	}
	f.bump_after_lookup = -1;
	CHECK_INT(bt_summary__collect(s), 0);
	seen += value_of(s, 1, 0);
	CHECK_INT(seen, added);
	bt_summary__free(s);
}

static void test_retire_idle_carries_racing_events(void)
{
	struct fake f;
	struct bt_summary *s;

	fake_init(&f, 4);
	s = new_summary(&f, true, BT_SUMMARY_NONE);
	bpf_add(&f, 9, 0, 0, 3);
	bpf_add(&f, 4, 0, 0, 1);
	CHECK_INT(bt_summary__collect(s), 0);
	CHECK_INT(value_of(s, 9, 0), 3);
	CHECK_INT(f.deletes, 0); /* both had events */

	/* key 9 idle; key 4 busy. 9 is taken out, and 5 events race the delete */
	bpf_add(&f, 4, 1, 0, 1);
	f.bump_before_delete = slot_of(&f, &(uint32_t){ 9 });
	CHECK_INT(bt_summary__collect(s), 0);
	CHECK_INT(f.deletes, 1);
	CHECK(slot_of(&f, &(uint32_t){ 9 }) < 0);
	CHECK_INT(bt_summary__len(s), 1);
	CHECK_INT(value_of(s, 4, 0), 1);
	f.bump_before_delete = -1;

	/* the raced events are reported though the key is gone from the map */
	CHECK_INT(bt_summary__collect(s), 0);
	CHECK_INT(value_of(s, 9, 0), 5);
	CHECK_INT(value_of(s, 4, 0), 0);
	CHECK_INT(f.deletes, 2); /* 4 was idle this time */

	/* a retired key that comes back counts from zero again */
	bpf_add(&f, 9, 2, 0, 2);
	CHECK_INT(bt_summary__collect(s), 0);
	CHECK_INT(value_of(s, 9, 0), 2);
	CHECK_INT(bt_summary__len(s), 1);
	bt_summary__free(s);
}

static void test_retired_key_back_with_carry(void)
{
	struct fake f;
	struct bt_summary *s;

	fake_init(&f, 4);
	s = new_summary(&f, true, BT_SUMMARY_NONE);
	bpf_add(&f, 9, 0, 0, 3);
	CHECK_INT(bt_summary__collect(s), 0);
	f.bump_before_delete = 0;
	CHECK_INT(bt_summary__collect(s), 0); /* idle: deleted, 5 raced */
	f.bump_before_delete = -1;
	CHECK_INT(bt_summary__len(s), 0);
	bpf_add(&f, 9, 1, 0, 7); /* and the key is back before the next read */
	CHECK_INT(bt_summary__collect(s), 0);
	CHECK_INT(value_of(s, 9, 0), 12);
	bt_summary__free(s);
}

/* An LRU map evicting a key on its own must not give a wrapped, negative difference. */
static void test_evicted_key(void)
{
	struct fake f;
	struct bt_summary *s;
	int i;

	fake_init(&f, 4);
	s = new_summary(&f, true, BT_SUMMARY_NONE);
	bpf_add(&f, 1, 0, 0, 10);
	bpf_add(&f, 2, 0, 0, 10);
	CHECK_INT(bt_summary__collect(s), 0);
	i = slot_of(&f, &(uint32_t){ 1 });
	f.used[i] = false; /* evicted */
	bpf_add(&f, 2, 0, 0, 1);
	CHECK_INT(bt_summary__collect(s), 0);
	CHECK_INT(bt_summary__len(s), 1);
	CHECK_INT(value_of(s, 2, 0), 1);
	/* evicted and made again with less than before: all of it is new */
	bpf_add(&f, 2, 0, 0, 5);
	CHECK_INT(bt_summary__collect(s), 0);
	i = slot_of(&f, &(uint32_t){ 2 });
	memset(f.v[i], 0, sizeof(f.v[i]));
	f.v[i][1][0] = 3;
	CHECK_INT(bt_summary__collect(s), 0);
	CHECK_INT(bt_summary__len(s), 1);
	CHECK_INT(value_of(s, 2, 0), 3);
	CHECK_INT(f.deletes, 0);
	bt_summary__free(s);
}

static int merge_all(const void *a, const void *b, void *ctx)
{
	(void)a, (void)b, (void)ctx;
	return 0;
}

/*
 * Running summaries (the exporter's counters): totals since the start, through retired keys
 * (with the events that raced the delete), evictions and re-created entries, and merges that
 * must not feed back into the totals.
 */
static void test_running_totals(void)
{
	struct bt_summary_map m = {
		.ncpu = NCPU,
		.next_key = fk_next_key,
		.lookup = fk_lookup,
		.lookup_and_delete = fk_lookup_and_delete,
	};
	struct bt_summary_opts o = {
		.key_size = 4,
		.value_size = NV * 8,
		.retire_idle = true,
		.running = true,
	};
	struct fake f;
	struct bt_summary *s;
	int i;

	fake_init(&f, 4);
	m.ctx = &f;
	s = bt_summary__new_map(&m, &o);
	CHECK(s != NULL);
	if (!s)
		return;
	bpf_add(&f, 9, 0, 0, 3);
	bpf_add(&f, 4, 1, 0, 1);
	CHECK_INT(bt_summary__collect(s), 0);
	CHECK_INT(value_of(s, 9, 0), 3);
	CHECK_INT(value_of(s, 4, 0), 1);

	/* 9 idle: retired from the map, 5 events race the delete; its counter stays */
	bpf_add(&f, 4, 0, 0, 2);
	f.bump_before_delete = slot_of(&f, &(uint32_t){ 9 });
	CHECK_INT(bt_summary__collect(s), 0);
	f.bump_before_delete = -1;
	CHECK_INT(f.deletes, 1);
	CHECK_INT(bt_summary__len(s), 2);
	CHECK_INT(value_of(s, 9, 0), 3);
	CHECK_INT(value_of(s, 4, 0), 3);
	CHECK_INT(bt_summary__total(s, 0), 6);

	/* the raced events join the total; then the key comes back */
	CHECK_INT(bt_summary__collect(s), 0);
	CHECK_INT(value_of(s, 9, 0), 8);
	bpf_add(&f, 9, 2, 0, 2);
	CHECK_INT(bt_summary__collect(s), 0);
	CHECK_INT(value_of(s, 9, 0), 10);
	CHECK_INT(value_of(s, 4, 0), 3);

	/* evicted behind our back, then made again: what it holds is new */
	bpf_add(&f, 4, 1, 0, 5);
	CHECK_INT(bt_summary__collect(s), 0);
	CHECK_INT(value_of(s, 4, 0), 8);
	bpf_add(&f, 4, 1, 0, 1);
	i = slot_of(&f, &(uint32_t){ 4 });
	CHECK(i >= 0);
	if (i >= 0)
		f.used[i] = false;
	CHECK_INT(bt_summary__collect(s), 0);
	CHECK_INT(value_of(s, 4, 0), 8);
	bpf_add(&f, 4, 0, 0, 6); /* more than the last total read: still all new */
	CHECK_INT(bt_summary__collect(s), 0);
	CHECK_INT(value_of(s, 4, 0), 14);

	/* merging rows for printing does not add into the totals kept */
	bt_summary__sort_by_key(s, merge_all, NULL, true);
	CHECK_INT(bt_summary__len(s), 1);
	CHECK_INT(bt_summary__value(s, 0)[0], 24);
	CHECK_INT(bt_summary__collect(s), 0);
	CHECK_INT(value_of(s, 9, 0), 10);
	CHECK_INT(value_of(s, 4, 0), 14);
	bt_summary__free(s);
}

static void test_restarted_walk_counts_once(void)
{
	struct fake f;
	struct bt_summary *s;

	fake_init(&f, 4);
	s = new_summary(&f, false, BT_SUMMARY_NONE);
	bpf_add(&f, 1, 0, 0, 1);
	bpf_add(&f, 2, 0, 0, 2);
	bpf_add(&f, 3, 0, 0, 3);
	f.restart_walk_once = 2;
	CHECK_INT(bt_summary__collect(s), 0);
	CHECK_INT(bt_summary__len(s), 3);
	CHECK_INT(bt_summary__total(s, 0), 6);
	bt_summary__free(s);
}

static int cmp_parity(const void *a, const void *b, void *ctx)
{
	uint32_t x, y;

	(void)ctx;
	memcpy(&x, a, 4);
	memcpy(&y, b, 4);
	return (int)(x % 2) - (int)(y % 2);
}

static void test_sorting_and_merging(void)
{
	struct fake f;
	struct bt_summary *s;
	uint32_t k;

	fake_init(&f, 4);
	s = new_summary(&f, false, BT_SUMMARY_NONE);
	bpf_add(&f, 300, 0, 0, 5); /* 300 > 255: numeric, not byte, order for 4-byte keys */
	bpf_add(&f, 2, 0, 0, 9);
	bpf_add(&f, 7, 0, 0, 5);
	bpf_add(&f, 4, 0, 0, 1);
	CHECK_INT(bt_summary__collect(s), 0);
	bt_summary__sort_by_value(s, 0, true);
	memcpy(&k, bt_summary__key(s, 0), 4);
	CHECK_INT(k, 2);
	memcpy(&k, bt_summary__key(s, 1), 4);
	CHECK_INT(k, 7); /* tie with 300: key order */
	memcpy(&k, bt_summary__key(s, 2), 4);
	CHECK_INT(k, 300);
	bt_summary__sort_by_value(s, 0, false);
	memcpy(&k, bt_summary__key(s, 0), 4);
	CHECK_INT(k, 4);
	bt_summary__sort_by_key(s, NULL, NULL, false);
	memcpy(&k, bt_summary__key(s, 3), 4);
	CHECK_INT(k, 300);

	/* merge: even keys and odd keys become one row each */
	bt_summary__sort_by_key(s, cmp_parity, NULL, true);
	CHECK_INT(bt_summary__len(s), 2);
	CHECK_INT(bt_summary__value(s, 0)[0], 15); /* 300, 2, 4 */
	CHECK_INT(bt_summary__value(s, 1)[0], 5);  /* 7 */
	bt_summary__free(s);
}

/* field 1 descending, then key descending */
static int cmp_rows_test(const void *ka, const uint64_t *va, const void *kb, const uint64_t *vb,
			 void *ctx)
{
	uint32_t x, y;

	(void)ctx;
	if (va[1] != vb[1])
		return va[1] < vb[1] ? 1 : -1;
	memcpy(&x, ka, 4);
	memcpy(&y, kb, 4);
	return x < y ? 1 : x > y ? -1 : 0;
}

static void test_sort_rows(void)
{
	struct fake f;
	struct bt_summary *s;
	uint32_t k;

	fake_init(&f, 4);
	s = new_summary(&f, false, BT_SUMMARY_NONE);
	bpf_add(&f, 1, 0, 1, 5);
	bpf_add(&f, 2, 0, 1, 7);
	bpf_add(&f, 3, 0, 1, 5);
	CHECK_INT(bt_summary__collect(s), 0);
	bt_summary__sort(s, cmp_rows_test, NULL);
	memcpy(&k, bt_summary__key(s, 0), 4);
	CHECK_INT(k, 2);
	memcpy(&k, bt_summary__key(s, 1), 4);
	CHECK_INT(k, 3);
	memcpy(&k, bt_summary__key(s, 2), 4);
	CHECK_INT(k, 1);
	bt_summary__free(s);
}

static void print_key(FILE *out, const void *key, void *ctx)
{
	uint32_t k;

	(void)ctx;
	memcpy(&k, key, 4);
	fprintf(out, "k%u", k);
}

static char *render_hists(struct bt_summary *s, const char *section)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	bt_summary__print_hists(s, f, section, print_key, NULL, "usecs");
	fclose(f);
	return buf;
}

static void test_log2_sections(void)
{
	struct fake f;
	struct bt_summary *s;
	char *out;

	fake_init(&f, 4);
	s = new_summary(&f, false, BT_SUMMARY_LOG2);
	/* value: field 0 a total, fields 1..3 the slots 0..2 */
	bpf_add(&f, 5, 0, 2, 2); /* slot 1 */
	bpf_add(&f, 5, 1, 3, 4); /* slot 2 */
	bpf_add(&f, 6, 0, 3, 1);
	CHECK_INT(bt_summary__collect(s), 0);
	bt_summary__sort_by_key(s, NULL, NULL, false);
	out = render_hists(s, "disk");
	CHECK_STR(
		out,
		"\ndisk = k5\n"
		"     usecs               : count     distribution\n"
		"         0 -> 1          : 2        |********************                    |\n"
		"         2 -> 3          : 4        |****************************************|\n"
		"\ndisk = k6\n"
		"     usecs               : count     distribution\n"
		"         0 -> 1          : 0        |                                        |\n"
		"         2 -> 3          : 1        |****************************************|\n");
	free(out);
	/* no section: name_fn prints the whole header */
	out = render_hists(s, NULL);
	CHECK(!strncmp(out, "k5     usecs ", 13));
	CHECK(strstr(out, "|\nk6     usecs ") != NULL);
	free(out);
	bt_summary__free(s);
}

static void test_linear_bcc_format(void)
{
	uint64_t vals[5] = { 0, 3, 0, 6, 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	bt_hist_print_linear(f, vals, 5, "runqlen");
	fclose(f);
	/* bcc/table.py _print_linear_hist: "     %-13s : count     distribution", then
	 * "        %-10d : %-8d |%-*s|" from slot 0 to the last non-empty one */
	CHECK_STR(buf,
		  "     runqlen       : count     distribution\n"
		  "        0          : 0        |                                        |\n"
		  "        1          : 3        |********************                    |\n"
		  "        2          : 0        |                                        |\n"
		  "        3          : 6        |****************************************|\n");
	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	memset(vals, 0, sizeof(vals));
	bt_hist_print_linear(f, vals, 5, "runqlen");
	fclose(f);
	CHECK_STR(buf, "");
	free(buf);
}

static void json_row(struct bt_json *j, const void *key, const uint64_t *val, void *ctx)
{
	uint32_t k;

	(void)ctx;
	memcpy(&k, key, 4);
	bt_json_uint(j, "key", k);
	bt_json_uint(j, "total", val[0]);
}

static void test_json(void)
{
	struct fake f;
	struct bt_summary *s;
	struct bt_json j;
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	fake_init(&f, 4);
	s = new_summary(&f, false, BT_SUMMARY_LOG2);
	bpf_add(&f, 5, 0, 0, 77);
	bpf_add(&f, 5, 0, 3, 2); /* slot 2 */
	CHECK_INT(bt_summary__collect(s), 0);
	bt_json_init(&j, out);
	bt_json_begin_object(&j, NULL);
	bt_summary__json(s, &j, "rows", json_row, NULL);
	bt_json_end_object(&j);
	bt_json_finish(&j);
	fclose(out);
	CHECK_STR(buf, "{\n"
		       "  \"rows\": [\n"
		       "    {\n"
		       "      \"key\": 5,\n"
		       "      \"total\": 77,\n"
		       "      \"hist\": [\n"
		       "        {\n"
		       "          \"low\": 0,\n"
		       "          \"high\": 1,\n"
		       "          \"count\": 0\n"
		       "        },\n"
		       "        {\n"
		       "          \"low\": 2,\n"
		       "          \"high\": 3,\n"
		       "          \"count\": 2\n"
		       "        }\n"
		       "      ]\n"
		       "    }\n"
		       "  ]\n"
		       "}\n");
	free(buf);
	bt_summary__free(s);
}

static void test_json_hist_top_slot(void)
{
	uint64_t slots[BT_HIST_SLOTS] = { 0 };
	struct bt_json j;
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	slots[64] = 1;
	bt_json_init(&j, out);
	bt_json_hist(&j, NULL, BT_SUMMARY_LOG2, slots, BT_HIST_SLOTS);
	fclose(out);
	CHECK(strstr(buf, "\"low\": 9223372036854775808,\n") != NULL);
	CHECK(strstr(buf, "\"high\": 18446744073709551615,\n") != NULL);
	free(buf);
}

static void row_line(FILE *out, const void *key, const uint64_t *val, void *ctx)
{
	uint32_t k;

	memcpy(&k, key, 4);
	fprintf(out, "%s%u=%llu\n", (const char *)ctx, k, (unsigned long long)val[0]);
}

static void test_print_rows(void)
{
	struct fake f;
	struct bt_summary *s;
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	fake_init(&f, 4);
	s = new_summary(&f, false, BT_SUMMARY_NONE);
	bpf_add(&f, 5, 0, 0, 3);
	bpf_add(&f, 6, 1, 0, 9);
	CHECK_INT(bt_summary__collect(s), 0);
	bt_summary__sort_by_value(s, 0, true);
	CHECK_INT(bt_summary__print_rows(s, out, row_line, "k"), 0);
	fclose(out);
	CHECK_STR(buf, "k6=9\nk5=3\n");
	free(buf);
	bt_summary__free(s);
}

static void test_json_lines(void)
{
	struct fake f;
	struct bt_summary *s;
	struct bt_json j;
	char *buf = NULL, *nl;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	fake_init(&f, 4);
	s = new_summary(&f, false, BT_SUMMARY_NONE);
	bpf_add(&f, 5, 0, 0, 77);
	CHECK_INT(bt_summary__collect(s), 0);
	bt_summary_json_begin(&j, out, "usecs");
	bt_summary__json(s, &j, "rows", json_row, NULL);
	bt_summary_json_end(&j);
	fclose(out);
	/* one line: {"ts": "YYYY-MM-DD HH:MM:SS", "val_type": ..., rows} */
	nl = strchr(buf, '\n');
	CHECK(nl != NULL && nl[1] == '\0');
	CHECK(!strncmp(buf, "{\"ts\": \"", 8));
	CHECK(strlen(buf) > 30 && buf[12] == '-' && buf[15] == '-' && buf[18] == ' ' &&
	      buf[21] == ':');
	CHECK(strstr(buf,
		     "\", \"val_type\": \"usecs\", \"rows\": [{\"key\": 5, \"total\": 77}]}\n") !=
	      NULL);
	free(buf);
	bt_summary__free(s);
}

static void test_bad_opts(void)
{
	struct bt_summary_map m = { .ncpu = 1, .next_key = fk_next_key, .lookup = fk_lookup };
	struct bt_summary_opts o = { .key_size = 4, .value_size = 12 };

	errno = 0;
	CHECK(bt_summary__new_map(&m, &o) == NULL);
	CHECK_INT(errno, EINVAL);
	o.value_size = 16;
	o.hist = BT_SUMMARY_LOG2;
	o.hist_off = 1;
	o.nslots = 2; /* past the value's end */
	CHECK(bt_summary__new_map(&m, &o) == NULL);
	bt_summary__free(NULL);
}

static int fk_lookup_eio(void *ctx, const void *key, uint64_t *vals)
{
	(void)ctx;
	(void)key;
	(void)vals;
	return -EIO;
}

/*
 * The one line a summary with .what says when it cannot be opened or read, and the silence of
 * one without (its caller says it).
 */
static void test_what_says_failures(void)
{
	char path[] = "/tmp/bt-summary-XXXXXX", buf[512] = "";
	int fd = mkstemp(path), saved = dup(STDERR_FILENO);
	struct fake f;
	struct bt_summary_map m = {
		.ncpu = NCPU, .next_key = fk_next_key, .lookup = fk_lookup_eio, .ctx = &f
	};
	struct bt_summary_opts o = { .key_size = 4, .value_size = NV * 8 };
	struct bt_summary *s, *quiet, *none = NULL;
	const char *second;
	ssize_t n;

	CHECK(fd >= 0 && saved >= 0);
	if (fd < 0 || saved < 0)
		return;
	fake_init(&f, 4);
	bpf_add(&f, 1, 0, 0, 1);
	quiet = bt_summary__new_map(&m, &o);
	o.what = "histograms";
	s = bt_summary__new_map(&m, &o);
	CHECK(s && quiet);
	fflush(stderr);
	dup2(fd, STDERR_FILENO);
	o.what = "counters";
	CHECK(bt_summary__open(&none, -1, &o) < 0); /* no such map */
	CHECK(none == NULL);
	CHECK_INT(s ? bt_summary__collect(s) : 0, -EIO);
	CHECK_INT(quiet ? bt_summary__collect(quiet) : 0, -EIO);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	CHECK(n > 0);
	/* the first line's reason is libbpf's word for a bad descriptor */
	CHECK(!strncmp(buf, "bpftools: cannot read the counters: ", 36));
	second = strchr(buf, '\n');
	CHECK_STR(second ? second + 1 : NULL,
		  "bpftools: cannot read the histograms: Input/output error\n");
	close(fd);
	unlink(path);
	bt_summary__free(s);
	bt_summary__free(quiet);
}

int main(void)
{
	BT_RUN(test_cpus_summed_and_intervals);
	BT_RUN(test_event_after_read_is_not_lost);
	BT_RUN(test_retire_idle_carries_racing_events);
	BT_RUN(test_retired_key_back_with_carry);
	BT_RUN(test_evicted_key);
	BT_RUN(test_restarted_walk_counts_once);
	BT_RUN(test_running_totals);
	BT_RUN(test_sorting_and_merging);
	BT_RUN(test_sort_rows);
	BT_RUN(test_log2_sections);
	BT_RUN(test_linear_bcc_format);
	BT_RUN(test_json);
	BT_RUN(test_json_hist_top_slot);
	BT_RUN(test_print_rows);
	BT_RUN(test_json_lines);
	BT_RUN(test_bad_opts);
	BT_RUN(test_what_says_failures);
	return bt_test_done();
}
