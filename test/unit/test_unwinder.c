// SPDX-License-Identifier: GPL-2.0
/*
 * lib/stacks/bt_unwinder.c's page layout of unwind tables (probes/bt_unwind_maps.h), searched here
 * exactly as probes/bt_unwind.bpf.h searches it: every pc of tables of one, two and three
 * levels finds the row a linear scan finds. And how a process's mappings are fitted into its
 * entry of 64.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "bt_unwinder.h"
#include "bt_unwind_maps.h"
#include "bt_unwind_samples.h"
#include "harness.h"

/* probes/bt_unwind.bpf.h's bt_unwind_search, in C */
static int search(const struct bt_unwind_page *pg, uint64_t pc)
{
	uint32_t lo = 0, hi = pg->n, mid, k;
	uint64_t gt;

	if (!hi || hi > BT_UNWIND_FANOUT || pg->pcs[0] > pc)
		return -1;
	for (k = 0; k < BT_UNWIND_SEARCH_STEPS; k++) {
		mid = (lo + hi) >> 1;
		gt = -((pc - pg->pcs[mid & (BT_UNWIND_FANOUT - 1)]) >> 63);
		lo = (lo & gt) | (mid & ~gt);
		hi = (mid & gt) | (hi & ~gt);
	}
	return lo & (BT_UNWIND_FANOUT - 1);
}

/* probes/bt_unwind.bpf.h's bt_unwind_rule_of, past the mapping */
static const struct bt_unwind_rule *rule_of(const struct bt_unwind_page *pages, unsigned int count,
					    const struct bt_unwind_info *info, uint64_t rel)
{
	uint32_t page = 0, first;
	int i;

	if (info->levels > 1) {
		i = search(&pages[page], rel);
		if (i < 0)
			return NULL;
		page = info->level_first[1] + i;
	}
	if (info->levels > 2) {
		first = info->level_first[1];
		if (page >= count)
			return NULL;
		i = search(&pages[page], rel);
		if (i < 0)
			return NULL;
		page = info->level_first[2] + (page - first) * BT_UNWIND_FANOUT + i;
	}
	if (page >= count)
		return NULL;
	i = search(&pages[page], rel);
	return i < 0 ? NULL : &pages[page].rules[i];
}

static void check_table(size_t nr, unsigned int levels)
{
	struct bt_unwind_row *rows = calloc(nr, sizeof(*rows));
	struct bt_unwind_page *pages;
	struct bt_unwind_info info;
	unsigned int count;
	size_t i, bad = 0;

	/* rows 4 bytes apart from 0x1000, the rule numbering the row */
	for (i = 0; i < nr; i++) {
		rows[i].pc = 0x1000 + 4 * i;
		rows[i].cfa_offset = (int32_t)i;
		rows[i].cfa_rule = BT_CFA_RSP;
	}
	count = bt_unwind_layout(nr, &info);
	CHECK_INT(info.levels, levels);
	pages = calloc(count, sizeof(*pages));
	bt_unwind_fill(rows, nr, &info, pages, count);
	CHECK(rule_of(pages, count, &info, 0xfff) == NULL);
	for (i = 0; i < nr; i++) {
		uint64_t pc = rows[i].pc + (i & 3); /* the row's first byte and inside it */
		const struct bt_unwind_rule *r = rule_of(pages, count, &info, pc);

		if (!r || r->cfa_offset != (int32_t)i)
			bad++;
	}
	CHECK_INT(bad, 0);
	/* past the last row: still the last row (the builder ends tables with a NONE row) */
	CHECK(rule_of(pages, count, &info, 0x1000 + 4 * nr + 100) != NULL);
	free(pages);
	free(rows);
}

static void test_one_level(void)
{
	check_table(1, 1);
	check_table(BT_UNWIND_FANOUT, 1);
}

static void test_two_levels(void)
{
	check_table(BT_UNWIND_FANOUT + 1, 2);
	check_table(30000, 2);
	check_table((size_t)BT_UNWIND_FANOUT * BT_UNWIND_FANOUT, 2);
}

static void test_three_levels(void)
{
	check_table((size_t)BT_UNWIND_FANOUT * BT_UNWIND_FANOUT + 1, 3);
	check_table(200000, 3);
}

static void test_layout_limits(void)
{
	struct bt_unwind_info info;

	CHECK_INT(bt_unwind_layout(0, &info), 0);
	CHECK_INT(bt_unwind_layout(1, &info), 1);
	CHECK_INT(bt_unwind_layout(257, &info), 3);
	/* more rows than three levels hold: no table rather than a wrong one */
	CHECK_INT(
		bt_unwind_layout((size_t)BT_UNWIND_FANOUT * BT_UNWIND_FANOUT * BT_UNWIND_FANOUT + 1,
				 &info),
		0);
}

static struct bt_unwind_mapping all[512];
static struct bt_unwind_proc proc;

/* n mappings of one page each, from 0x10000 on; every k-th has a table, the others none */
static void fit(unsigned int n, unsigned int k, unsigned int gap)
{
	unsigned int i;

	memset(&proc, 0, sizeof(proc));
	for (i = 0; i < n; i++) {
		all[i].start = 0x10000 + (uint64_t)i * (0x1000 + gap);
		all[i].end = all[i].start + 0x1000;
		all[i].table = i % k ? 0 : i + 1;
	}
	bt_unwind_fit_mappings(all, n, &proc);
}

static void test_fit_mappings(void)
{
	unsigned int i, with;

	/* contiguous neighbours without a table merge: [T][0 0 0][T][0 0 0]... */
	fit(8, 4, 0);
	CHECK_INT(proc.nr, 4);
	CHECK(proc.maps[0].table == 1 && proc.maps[1].table == 0);
	CHECK(proc.maps[1].start == 0x11000 && proc.maps[1].end == 0x14000);
	CHECK(proc.maps[2].table == 5 && proc.maps[3].end == 0x18000);
	/* with gaps nothing merges (a gap may be a library mapped later) */
	fit(8, 4, 0x1000);
	CHECK_INT(proc.nr, 8);
	/* 200 apart, 50 with a table: all 50 kept, 14 without, in order */
	fit(200, 4, 0x1000);
	CHECK_INT(proc.nr, BT_UNWIND_MAX_MAPPINGS);
	for (i = with = 0; i < proc.nr; i++) {
		with += !!proc.maps[i].table;
		CHECK(!i || proc.maps[i].start > proc.maps[i - 1].start);
	}
	CHECK_INT(with, 50);
	/* 100 with a table: the first 64 */
	fit(100, 1, 0x1000);
	CHECK_INT(proc.nr, BT_UNWIND_MAX_MAPPINGS);
	CHECK(proc.maps[63].table == 64);
}

static uint64_t deferred_id(uint64_t n, unsigned int gen)
{
	return BT_STACK_DEFERRED_BIT | n << 4 | gen;
}

/*
 * The store of stacks sent to be unwound in user space (lib/stacks/bt_unwind_samples.c): a stack
 * waits for its process, is unwound when the process is indexed, falls back to the walker's
 * own stack when it cannot be (gone, or another process has the pid), is freed with its
 * generation unless held (and then keeps its fallback), and memory stays bounded.
 */
static void test_samples_store(void)
{
	static struct bt_stack_sample s;
	struct bt_unwind_samples *ss = NULL;
	struct bt_unwind_sample_counts c;
	/* one mapping without a table, away from the samples' pc: every walk misses it */
	struct bt_unwind_proc proc = { .nr = 1, .maps[0] = { .start = 0x100000, .end = 0x101000 } };
	struct bt_unwind_proc empty = { 0 };
	uint64_t ips[BT_MAX_STACK_DEPTH], fb = 0, held, *keep = NULL;
	size_t nkeep = 0;
	char who[128];
	uint64_t started = 0;
	size_t whole, kept;
	int pid = 0, i;

	/* no maps: no process is found indexed at once, every sample waits */
	CHECK_INT(bt_unwind_samples__new(-1, -1, -1, false, &ss), 0);
	memset(&s, 0, sizeof(s));
	s.note.tgid = 4242;
	s.note.exec = BT_PID_NOTE_SAMPLE;
	s.note.start_ns = 5000000000ULL;
	s.id = deferred_id(1, 1);
	s.fallback = 0x1230 | 1;
	s.ip = 0x401000;
	s.sp = 0x7ffd00000000ULL;
	s.len = 64;
	CHECK_INT(bt_unwind_samples__add(ss, &s, 10), -EINVAL);
	/* a record is as long as its stack: one that ends before its len does is refused */
	whole = offsetof(struct bt_stack_sample, stack) + 64;
	CHECK_INT(bt_unwind_samples__add(ss, &s, whole - 1), -EINVAL);
	CHECK_INT(bt_unwind_samples__add(ss, &s, whole), 1);
	CHECK_INT(bt_unwind_samples__get(ss, s.id, ips, &fb, &pid, &started), -EAGAIN);
	CHECK_INT(pid, 4242);
	CHECK_INT(bt_unwind_samples__get(ss, deferred_id(9, 1), ips, &fb, &pid, &started), -ENOENT);
	s.id = deferred_id(2, 0);
	s.fallback = 0x4560;
	CHECK_INT(bt_unwind_samples__add(ss, &s, sizeof(s)), 1);
	/*
	 * read as it exited (a zombie: no mappings) after both were taken: no answer, they
	 * wait on
	 */
	bt_unwind_samples__indexed(ss, 4242, 5000000000ULL, UINT64_MAX, &empty);
	CHECK_INT(bt_unwind_samples__get(ss, deferred_id(1, 1), ips, &fb, &pid, &started), -EAGAIN);
	CHECK_INT(bt_unwind_samples__get(ss, deferred_id(2, 0), ips, &fb, &pid, &started), -EAGAIN);
	/* its process gone before it was indexed: both fall back to the walker's stacks */
	bt_unwind_samples__indexed(ss, 4242, 0, 0, NULL);
	CHECK_INT(bt_unwind_samples__get(ss, deferred_id(1, 1), ips, &fb, &pid, &started), 0);
	CHECK(fb == (0x1230 | 1));
	CHECK_INT(bt_unwind_samples__get(ss, deferred_id(2, 0), ips, &fb, &pid, &started), 0);
	CHECK(fb == 0x4560);
	/* said per process: these two, and what the kernel counted at another's exit */
	bt_unwind_samples__partial(ss, 77, 5);
	bt_unwind_samples__partial_report(ss, who, sizeof(who));
	CHECK(strstr(who, "pid 4242: 2") && strstr(who, "pid 77: 5") && !strstr(who, "more"));
	/* a kept run's next profile: its own only, none of these */
	bt_unwind_samples__counts(ss, &c);
	CHECK(c.received == 2 && c.fell_back == 2);
	kept = c.kept;
	bt_unwind_samples__reset_counts(ss);
	bt_unwind_samples__partial_report(ss, who, sizeof(who));
	CHECK_STR(who, "");
	/* the samples themselves stay until their output is out */
	bt_unwind_samples__counts(ss, &c);
	CHECK(!c.received && !c.unwound && !c.fell_back && c.kept == kept);
	bt_unwind_samples__partial(ss, 77, 1);
	bt_unwind_samples__partial_report(ss, who, sizeof(who));
	CHECK_STR(who, "pid 77: 1");

	/* indexed, by the process that sent it: unwound (no table here: one frame, by rbp 0) */
	s.id = deferred_id(3, 0);
	CHECK_INT(bt_unwind_samples__add(ss, &s, sizeof(s)), 1);
	bt_unwind_samples__indexed(ss, 4242, s.note.start_ns, 1, &proc);
	CHECK_INT(bt_unwind_samples__get(ss, s.id, ips, &fb, &pid, &started), 1);
	CHECK(ips[0] == 0x401000);
	/*
	 * A pc in none of the table's mappings, the table read before the stack was taken (a
	 * library mapped since): it waits for a table read after; then it is unwound
	 */
	s.id = deferred_id(5, 0);
	s.at_ns = 100;
	CHECK_INT(bt_unwind_samples__add(ss, &s, sizeof(s)), 1);
	bt_unwind_samples__indexed(ss, 4242, s.note.start_ns, 50, &proc);
	CHECK_INT(bt_unwind_samples__get(ss, s.id, ips, &fb, &pid, &started), -EAGAIN);
	bt_unwind_samples__indexed(ss, 4242, s.note.start_ns, 200, &proc);
	CHECK_INT(bt_unwind_samples__get(ss, s.id, ips, &fb, &pid, &started), 1);
	/* indexed, but another process has the pid now (another start): not with its table */
	s.id = deferred_id(4, 0);
	CHECK_INT(bt_unwind_samples__add(ss, &s, sizeof(s)), 1);
	bt_unwind_samples__indexed(ss, 4242, s.note.start_ns + 1000000000ULL, 1, &proc);
	CHECK_INT(bt_unwind_samples__get(ss, s.id, ips, &fb, &pid, &started), 0);

	/* generation 1 printed: its sample goes, generation 0's stay */
	CHECK_INT(bt_unwind_samples__release(ss, 1, NULL, 0, &keep, &nkeep), 0);
	CHECK(nkeep == 0);
	CHECK_INT(bt_unwind_samples__get(ss, deferred_id(1, 1), ips, &fb, &pid, &started), -ENOENT);
	CHECK_INT(bt_unwind_samples__get(ss, deferred_id(2, 0), ips, &fb, &pid, &started), 0);
	/* generation 0, one still held (an event not printed yet): it stays, with its fallback */
	held = deferred_id(2, 0);
	CHECK_INT(bt_unwind_samples__release(ss, 0, &held, 1, &keep, &nkeep), 0);
	CHECK(nkeep == 1 && keep && keep[0] == 0x4560);
	free(keep);
	CHECK_INT(bt_unwind_samples__get(ss, deferred_id(2, 0), ips, &fb, &pid, &started), 0);
	CHECK_INT(bt_unwind_samples__get(ss, deferred_id(3, 0), ips, &fb, &pid, &started), -ENOENT);

	/*
	 * bounded by bytes: one process's 64 whole copies (its quota) leave room for the next
	 * process's; at the bound a sample falls back at once; a short copy takes its length
	 */
	s.len = BT_STACK_SAMPLE_BYTES;
	s.note.tgid = 99;
	for (i = 0; i < 64; i++) {
		s.id = deferred_id(100 + i, 0);
		CHECK_INT(bt_unwind_samples__add(ss, &s, sizeof(s)), 1);
	}
	s.note.tgid = 100;
	s.id = deferred_id(200, 0);
	CHECK_INT(bt_unwind_samples__add(ss, &s, sizeof(s)), 1);
	whole = offsetof(struct bt_stack_sample, stack) + BT_STACK_SAMPLE_BYTES;
	for (i = 65; (i + 1) * whole <= BT_UNWIND_WAITING_BYTES; i++) {
		s.id = deferred_id(200 + i, 0);
		CHECK_INT(bt_unwind_samples__add(ss, &s, sizeof(s)), 1);
	}
	s.id = deferred_id(200 + i, 0);
	CHECK_INT(bt_unwind_samples__add(ss, &s, sizeof(s)), 0);
	CHECK_INT(bt_unwind_samples__get(ss, s.id, ips, &fb, &pid, &started), 0);
	s.len = 64;
	s.id = deferred_id(201 + i, 0);
	CHECK_INT(bt_unwind_samples__add(ss, &s, sizeof(s)), 1);
	bt_unwind_samples__counts(ss, &c);
	/* since the reset: the first two samples and their falls back are not in these */
	CHECK(c.received == (unsigned long long)i + 5 && c.unwound == 2 && c.fell_back == 2);
	bt_unwind_samples__free(ss);
}

int main(void)
{
	BT_RUN(test_one_level);
	BT_RUN(test_two_levels);
	BT_RUN(test_three_levels);
	BT_RUN(test_layout_limits);
	BT_RUN(test_fit_mappings);
	BT_RUN(test_samples_store);
	return bt_test_done();
}
