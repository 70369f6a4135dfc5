// SPDX-License-Identifier: GPL-2.0
/*
 * lib/run/bt_evrun: a batched ring buffer, whose writer wakes no one, is read on the loop's timer,
 * each event within the flush bound and every one of them; at the end the events still
 * buffered are printed before the final summary; an event's error ends the run with it. The
 * events come from a real ring buffer written by a tiny BPF program (run with
 * BPF_PROG_TEST_RUN, attached nowhere) with BPF_RB_NO_WAKEUP, as a batching tool's probes
 * write; skipped where this process may not load BPF programs.
 */
#include <errno.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <linux/bpf.h>

#include "bt_evrun.h"
#include "harness.h"

struct fixture {
	int map_fd, prog_fd;
	unsigned long long produced, delivered;
	unsigned long long max_delay_ns, last_ts;
	bool in_order;
	int fail_at; /* on_event returns -EIO at this event (1-based); 0: never */
	unsigned int per_tick;
	unsigned long long delivered_at_end;
	int end_err, ends;
	int headers;
	unsigned long long delivered_at_header;
};

static unsigned long long mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts); /* bpf_ktime_get_ns()'s clock */
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* r0 = ktime; *(r10 - 8) = r0; bpf_ringbuf_output(map, r10 - 8, 8, BPF_RB_NO_WAKEUP); 0 */
static int load_writer(int map_fd)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_JMP | BPF_CALL, .imm = BPF_FUNC_ktime_get_ns },
		{ .code = BPF_STX | BPF_MEM | BPF_DW,
		  .dst_reg = BPF_REG_10,
		  .src_reg = BPF_REG_0,
		  .off = -8 },
		{ .code = BPF_LD | BPF_DW | BPF_IMM,
		  .dst_reg = BPF_REG_1,
		  .src_reg = BPF_PSEUDO_MAP_FD,
		  .imm = map_fd },
		{ 0 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_X,
		  .dst_reg = BPF_REG_2,
		  .src_reg = BPF_REG_10 },
		{ .code = BPF_ALU64 | BPF_ADD | BPF_K, .dst_reg = BPF_REG_2, .imm = -8 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_3, .imm = 8 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K,
		  .dst_reg = BPF_REG_4,
		  .imm = BPF_RB_NO_WAKEUP },
		{ .code = BPF_JMP | BPF_CALL, .imm = BPF_FUNC_ringbuf_output },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};

	return bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, "bt_evrun_test", "GPL", insns,
			     sizeof(insns) / sizeof(insns[0]), NULL);
}

static bool setup(struct fixture *f)
{
	memset(f, 0, sizeof(*f));
	f->in_order = true;
	f->prog_fd = -1;
	f->map_fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "bt_evrun_test", 0, 0, 256 * 1024, NULL);
	if (f->map_fd >= 0)
		f->prog_fd = load_writer(f->map_fd);
	if (f->map_fd < 0 || f->prog_fd < 0) {
		printf("# skipped: cannot load BPF programs here (%s)\n", strerror(errno));
		if (f->map_fd >= 0)
			close(f->map_fd);
		return false;
	}
	return true;
}

static void teardown(struct fixture *f)
{
	close(f->prog_fd);
	close(f->map_fd);
}

/* n events into the ring, none of them waking a reader */
static int produce(struct fixture *f, unsigned int n)
{
	char pkt[64] = { 0 };
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = pkt, .data_size_in = sizeof(pkt),
		    .repeat = n);
	int err = bpf_prog_test_run_opts(f->prog_fd, &opts);

	if (!err)
		f->produced += n;
	return err;
}

static int on_event(void *ctx, const void *data, size_t size)
{
	struct fixture *f = ctx;
	unsigned long long ts, now = mono_ns();

	if (size != sizeof(ts))
		return -EINVAL;
	memcpy(&ts, data, sizeof(ts));
	if (ts < f->last_ts)
		f->in_order = false;
	f->last_ts = ts;
	if (now - ts > f->max_delay_ns)
		f->max_delay_ns = now - ts;
	if (++f->delivered == (unsigned long long)f->fail_at)
		return -EIO;
	return 0;
}

static int tick(void *ctx)
{
	struct fixture *f = ctx;

	return produce(f, f->per_tick);
}

static int end(void *ctx, int err)
{
	struct fixture *f = ctx;

	f->ends++;
	f->end_err = err;
	f->delivered_at_end = f->delivered;
	return err;
}

static void header(void *ctx)
{
	struct fixture *f = ctx;

	f->headers++;
	f->delivered_at_header = f->delivered;
}

/* Events nobody is woken for: read on the timer, within the bound, all of them, in order. */
static void test_batched_within_bound(void)
{
	struct fixture f;
	struct bt_evrun r = { .on_event = on_event,
			      .ctx = &f,
			      .tick_ms = 70,
			      .tick = tick,
			      .tick_ctx = &f,
			      .duration_ms = 700,
			      .end = end };

	if (!setup(&f))
		return;
	f.per_tick = 50;
	CHECK_INT(bt_evrun__open_fd(&r, f.map_fd, true), 0);
	CHECK_INT(bt_evrun__run(&r), 0);
	CHECK(f.produced >= 3 * 50);
	CHECK_INT(f.delivered, f.produced);
	CHECK(f.in_order);
	CHECK_INT(f.ends, 1);
	/*
	 * Each within one BT_EVENTS_BATCH_MS, plus what a busy machine adds to a timer; a reader
	 * that only drained at the end would see most of them hundreds of ms late.
	 */
	CHECK(f.max_delay_ns < (BT_EVENTS_BATCH_MS + 50) * 1000000ULL);
	printf("# %llu events, the slowest %llu ms after it was written\n", f.delivered,
	       f.max_delay_ns / 1000000);
	bt_evrun__free(&r);
	teardown(&f);
}

/*
 * The end: what is still buffered is printed, then the summary. The events are written by a
 * tick in the loop's last round (tick and duration both at 10 ms), before any flush timer.
 * The header comes once, before any event.
 */
static void test_drained_before_summary(void)
{
	struct fixture f;
	struct bt_evrun r = { .on_event = on_event,
			      .ctx = &f,
			      .tick_ms = 10,
			      .tick = tick,
			      .tick_ctx = &f,
			      .duration_ms = 10,
			      .header = header,
			      .end = end };

	if (!setup(&f))
		return;
	f.per_tick = 1000;
	CHECK_INT(bt_evrun__open_fd(&r, f.map_fd, true), 0);
	CHECK_INT(bt_evrun__run(&r), 0);
	CHECK_INT(f.produced, 1000);
	CHECK_INT(f.headers, 1);
	CHECK_INT(f.delivered_at_header, 0);
	CHECK_INT(f.ends, 1);
	CHECK_INT(f.end_err, 0);
	CHECK_INT(f.delivered_at_end, 1000);
	CHECK(f.in_order);
	bt_evrun__free(&r);
	teardown(&f);
}

/* An event's error ends the run with it; the events after it are not printed. */
static void test_event_error(void)
{
	struct fixture f;
	struct bt_evrun r = { .on_event = on_event, .ctx = &f, .duration_ms = 2000, .end = end };

	if (!setup(&f))
		return;
	f.fail_at = 3;
	CHECK_INT(produce(&f, 10), 0);
	CHECK_INT(bt_evrun__open_fd(&r, f.map_fd, true), 0);
	CHECK_INT(bt_evrun__run(&r), -EIO);
	CHECK_INT(f.delivered, 3);
	CHECK_INT(f.ends, 1);
	CHECK_INT(f.end_err, -EIO);
	bt_evrun__free(&r);
	bt_evrun__free(&r); /* twice is fine */
	teardown(&f);
}

/*
 * --exec: the command runs once the run starts, and its exit ends the run, through its pidfd
 * or, where the kernel has none (before 5.3), by looking every 100 ms beside the tool's tick.
 */
static void exec_ends_run(bool pidfd)
{
	char *argv[] = { "sh", "-c", "sleep 0.2", NULL };
	struct fixture f;
	struct bt_child c;
	struct bt_evrun r = { .on_event = on_event,
			      .ctx = &f,
			      .tick_ms = 30,
			      .tick = tick,
			      .tick_ctx = &f,
			      .duration_ms = 5000,
			      .child = &c,
			      .end = end };
	long long start, took;

	if (!setup(&f))
		return;
	f.per_tick = 1;
	CHECK_INT(bt_child__start(argv, &c), 0);
	if (!pidfd && c.pidfd >= 0) {
		close(c.pidfd);
		c.pidfd = -1;
	}
	CHECK_INT(bt_evrun__open_fd(&r, f.map_fd, true), 0);
	start = (long long)(mono_ns() / 1000000);
	CHECK_INT(bt_evrun__run(&r), 0);
	took = (long long)(mono_ns() / 1000000) - start;
	CHECK(c.released);
	CHECK(took >= 200 && took < 2000); /* the command's 0.2 s, not the 5 s duration */
	CHECK_INT(f.ends, 1);
	/*
	 * the tool's tick ran at its own 30 ms beside the look for the exit, not at the 100 ms of
	 * that look (a tick's wake may be late on a loaded machine: one every 90 ms at least)
	 */
	CHECK(f.produced >= 2 && (long long)f.produced * 90 >= took);
	if ((long long)f.produced * 90 < took)
		printf("# %u ticks in %lld ms\n", (unsigned)f.produced, took);
	CHECK_INT(f.delivered, f.produced);
	bt_evrun__free(&r);
	bt_child__end(&c);
	teardown(&f);
}

static void test_exec_pidfd(void)
{
	exec_ends_run(true);
}

static void test_exec_no_pidfd(void)
{
	exec_ends_run(false);
}

int main(void)
{
	alarm(20); /* a hung loop fails the test instead of stalling the tier */
	BT_RUN(test_batched_within_bound);
	BT_RUN(test_drained_before_summary);
	BT_RUN(test_event_error);
	BT_RUN(test_exec_pidfd);
	BT_RUN(test_exec_no_pidfd);
	return bt_test_done();
}
