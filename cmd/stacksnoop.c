// SPDX-License-Identifier: GPL-2.0
/* stacksnoop: print the stack of every call of a function, as BCC's stacksnoop did. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/bpf.h>

#include "bt_args.h"
#include "bt_attach.h"
#include "bt_cmd.h"
#include "bt_err.h"
#include "bt_events.h"
#include "bt_loop.h"
#include "bt_percpu.h"
#include "bt_skel.h"
#include "bt_stacks.h"
#include "bt_trace.h"
#include "stacksnoop.h"
#include "stacksnoop.skel.h"

enum {
	OPT_DEBUG = 0x100,
	OPT_STORAGE,
	OPT_MAX_PROBES,
	OPT_ATTACH,
};

#define NSEC_PER_SEC 1000000000ULL
/*
 * A stack id is freed once no printed event has used it for this long. Freeing it at once
 * would break the next queued event with the same stack: the kernel hands identical stacks
 * the same id, so an id can be in flight again before the first event using it is printed.
 */
#define RELEASE_AFTER_NS NSEC_PER_SEC
#define SWEEP_EVERY_NS (NSEC_PER_SEC / 10)
#define ADOPT_EVERY_NS (5 * NSEC_PER_SEC)
/* Look for Ctrl-C this often while draining a ring buffer that keeps refilling. */
#define SIGNAL_CHECK_EVERY 256

static struct stacksnoop_opts {
	long pid;
	bool offset, verbose, kernel, user, regex;
	unsigned long storage;
	unsigned long max_probes;
	enum bt_attach_mode mode;
	const char *pattern;
} opts = { .storage = 1024, .max_probes = 1000 };

static const struct argp_option options[] = {
	{ "pid", 'p', "PID", 0, "Trace this PID only", 0 },
	{ "offset", 's', NULL, 0, "Show address offsets", 0 },
	{ "verbose", 'v', NULL, 0, "Print more fields", 0 },
	{ "kernel-stack", 'K', NULL, 0,
	  "Print the kernel stack (the default for kernel functions and tracepoints)", 0 },
	{ "user-stack", 'U', NULL, 0,
	  "Print the user stack (the default for user functions and USDT probes)", 0 },
	{ "regexp", 'r', NULL, 0, "Use regular expressions. Default is \"*\" wildcards only.", 0 },
	{ "debug", OPT_DEBUG, NULL, 0, "Print what is attached, and how (and libbpf's log)", 0 },
	{ "stack-storage-size", OPT_STORAGE, "N", 0,
	  "Number of unique stacks to store (default 1024)", 0 },
	{ "max-probes", OPT_MAX_PROBES, "N", 0, "Refuse to attach more probes (default 1000)", 0 },
	{ "attach", OPT_ATTACH, "MODE", 0,
	  "How to attach kernel functions: auto, fentry or kprobe (default auto)", 0 },
	{ NULL },
};

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct stacksnoop_opts *o = state->input;

	switch (key) {
	case 'p':
		return bt_argp_long(state, arg, "PID", 1, INT_MAX, &o->pid);
	case 's':
		o->offset = true;
		break;
	case 'v':
		o->verbose = true;
		break;
	case 'K':
		o->kernel = true;
		break;
	case 'U':
		o->user = true;
		break;
	case 'r':
		o->regex = true;
		break;
	case OPT_DEBUG:
		bt_set_debug(true);
		break;
	case OPT_STORAGE:
		/* user space keeps one timestamp per possible id: bounded to 8 MiB */
		return bt_argp_ulong(state, arg, "stack storage size", 1, 1 << 20, &o->storage);
	case OPT_MAX_PROBES:
		return bt_argp_ulong(state, arg, "probe limit", 1, 1000000, &o->max_probes);
	case OPT_ATTACH:
		return bt_argp_attach_mode(state, arg, &o->mode);
	case ARGP_KEY_ARG:
		if (o->pattern)
			return bt_argp_error(state, "unexpected argument '%s'", arg);
		o->pattern = arg;
		break;
	case ARGP_KEY_END:
		if (!o->pattern)
			return bt_argp_error(state, "missing the function to trace");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp argp = {
	.options = options,
	.parser = parse_opt,
	.args_doc = "FUNCTION",
	.doc = "Trace and print kernel stack traces for a kernel function.\v"
	       "FUNCTION: a kernel function, or any pattern of the attach layer: p:lib:func, "
	       "lib:func, /path:func, t:cat:event, u:lib:probe, syscall:name; '*' wildcards, or "
	       "regular expressions with -r.\n\n"
	       "examples:\n"
	       "    stacksnoop ext4_sync_fs       # print kernel stack traces for ext4_sync_fs\n"
	       "    stacksnoop -s ext4_sync_fs    # ... also show symbol offsets\n"
	       "    stacksnoop -v ext4_sync_fs    # ... show extra columns\n"
	       "    stacksnoop -p 185 ext4_sync_fs    # ... only for PID 185\n"
	       "    stacksnoop t:sched:sched_process_fork   # stacks of a tracepoint\n"
	       "    stacksnoop -p 185 c:malloc    # user stacks of malloc in PID 185\n"
	       "    stacksnoop -KU -p 185 syscall:write   # kernel and user stacks",
};

struct state {
	const struct bt_targets *targets;
	struct bt_stacks *stacks;
	struct bt_events *events;
	unsigned int fmt;
	bool kernel, user;
	unsigned long long start_ns;
	struct bt_frame *frames;
	uint64_t ips[BT_MAX_STACK_DEPTH];
	/* last_seen[id]: ts of the latest printed event using stack id; 0: not held */
	unsigned long long *last_seen;
	unsigned int *held; /* the ids with last_seen set */
	size_t nheld, nids;
	int stack_fd;
	unsigned long long last_sweep, last_adopt;
	unsigned long long missing; /* ids gone before their event was printed */
	unsigned long events_seen;
};

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts); /* the clock of bpf_ktime_get_ns() */
	return ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

static void hold(struct state *s, int id, unsigned long long ts)
{
	if (id < 0 || (size_t)id >= s->nids)
		return;
	if (!s->last_seen[id])
		s->held[s->nheld++] = id;
	if (ts > s->last_seen[id])
		s->last_seen[id] = ts;
}

/*
 * Hold the ids in the map that no printed event holds: those of lost events would otherwise
 * stay forever. One still in flight gets printed within the grace period, which renews it.
 */
static void adopt(struct state *s, unsigned long long now)
{
	__u32 key, next;
	bool first = true;

	s->last_adopt = now;
	while (bpf_map_get_next_key(s->stack_fd, first ? NULL : &key, &next) == 0) {
		if (next < s->nids && !s->last_seen[next])
			hold(s, next, now);
		key = next;
		first = false;
	}
}

/*
 * Free the stack ids no event has used since before `now - RELEASE_AFTER_NS`. `now` was read
 * before the buffer was drained, so every event from before it has been printed already.
 */
static void sweep(struct state *s, unsigned long long now)
{
	size_t i = 0;

	if (now - s->last_sweep < SWEEP_EVERY_NS)
		return;
	s->last_sweep = now;
	if (now - s->last_adopt >= ADOPT_EVERY_NS)
		adopt(s, now);
	while (i < s->nheld) {
		unsigned int id = s->held[i];

		if (s->last_seen[id] + RELEASE_AFTER_NS > now) {
			i++;
			continue;
		}
		bt_stacks__release(s->stacks, id);
		s->last_seen[id] = 0;
		s->held[i] = s->held[--s->nheld];
	}
}

static void print_stack(struct state *s, int pid, int id, uint64_t caller, const char *missed)
{
	char name[1024];
	int n, i;

	n = bt_stacks__get(s->stacks, id, caller, s->ips);
	if (n <= 0) {
		if (id >= 0)
			s->missing++;
		printf("\t[Missed %s Stack]\n", missed);
		return;
	}
	n = bt_stacks__resolve(s->stacks, pid, s->ips, n, s->frames);
	for (i = 0; i < n; i++) {
		bt_frame__format(&s->frames[i], s->fmt, name, sizeof(name));
		printf("\t%s\n", name);
	}
}

/* "%-18.9f" of seconds, from integer nanoseconds so no digit is lost to rounding. */
static void format_time(char *buf, size_t len, long long ns)
{
	unsigned long long a = ns < 0 ? -(unsigned long long)ns : (unsigned long long)ns;

	snprintf(buf, len, "%s%llu.%09llu", ns < 0 ? "-" : "", a / NSEC_PER_SEC, a % NSEC_PER_SEC);
}

static int on_event(void *ctx, const void *data, size_t size)
{
	struct state *s = ctx;
	struct stacksnoop_event e;
	char comm[STACKSNOOP_COMM_LEN + 1];
	char when[32];
	const char *fn = "[unknown]";

	if (size < sizeof(e))
		return 0;
	memcpy(&e, data, sizeof(e));
	memcpy(comm, e.comm, sizeof(e.comm));
	comm[sizeof(e.comm)] = '\0';
	if (e.index < s->targets->n)
		fn = s->targets->v[e.index].name;
	format_time(when, sizeof(when), (long long)(e.ts - s->start_ns));
	if (opts.verbose)
		printf("%-18s %-12.12s %-6u %-3u %s\n", when, comm, e.tgid, e.cpu, fn);
	else
		printf("%-18s %s\n", when, fn);
	if (s->kernel) {
		print_stack(s, BT_PID_KERNEL, e.kernel_stack_id, 0, "Kernel");
		hold(s, e.kernel_stack_id, e.ts);
	}
	if (s->kernel && s->user)
		printf("\t--\n");
	if (s->user) {
		/* noted on its first event (idempotent): its frames keep names after it exits */
		bt_stacks__note_pid(s->stacks, e.tgid);
		print_stack(s, e.tgid, e.user_stack_id, e.user_caller, "User");
		hold(s, e.user_stack_id, e.ts);
	}
	printf("\n");
	/* a probe that fires faster than we print would keep us here forever */
	if (++s->events_seen % SIGNAL_CHECK_EVERY == 0 &&
	    (bt_wait(-1, 0) == BT_WAKE_SIGNAL || bt_output_closed()))
		return -EINTR;
	return 0;
}

static int snoop_loop(struct state *s)
{
	int fd = bt_events__fd(s->events);
	int wake, err;

	for (;;) {
		unsigned long long now;

		/* wake at least every sweep interval, so quiet stacks are freed too */
		wake = bt_wait(fd, SWEEP_EVERY_NS / 1000000);
		if (wake < 0)
			return wake;
		now = now_ns();
		err = bt_events__poll(s->events);
		if (err == -EINTR || bt_output_closed())
			return 0;
		if (err)
			return err;
		sweep(s, now);
		if (wake == BT_WAKE_SIGNAL)
			return 0;
	}
}

/* Stack map ids are hash buckets: below max_entries rounded up to a power of two. */
static size_t stack_ids(unsigned long storage)
{
	size_t n = 1;

	while (n < storage)
		n <<= 1;
	return n;
}

static int run(const struct bt_cmd *cmd)
{
	struct bt_resolve_opts ropts = { .pid = opts.pid,
					 .regex = opts.regex,
					 .max_probes = opts.max_probes };
	/* processes are noted on their first event, which is printed at once: no announcements */
	struct bt_stacks_opts sopts = { .storage_size = opts.storage };
	struct bt_filters filters = BT_FILTERS_NONE;
	struct bt_targets targets = { 0 };
	struct bt_attach *attach = NULL;
	struct stacksnoop_bpf *skel = NULL;
	struct state s = { .targets = &targets };
	int err, n;

	s.fmt = opts.offset ? BT_FMT_OFFSET : 0;
	n = bt_targets__from_pattern(opts.pattern, &ropts, &targets);
	if (n < 0) {
		err = n;
		goto cleanup;
	}
	s.kernel = opts.kernel;
	s.user = opts.user;
	if (!s.kernel && !s.user) {
		/* a uprobe or USDT probe fires in user mode: it has no kernel stack to show */
		enum bt_spec_kind kind = targets.v[0].kind;

		s.user = kind == BT_SPEC_UFUNC || kind == BT_SPEC_USDT;
		s.kernel = !s.user;
	}
	s.nids = stack_ids(opts.storage);
	s.last_seen = calloc(s.nids, sizeof(*s.last_seen));
	s.held = calloc(s.nids, sizeof(*s.held));
	s.frames = calloc(BT_MAX_STACK_DEPTH * (1 + BT_SYM_MAX_INLINE), sizeof(*s.frames));
	if (!s.last_seen || !s.held || !s.frames) {
		err = -ENOMEM;
		goto cleanup;
	}

	skel = stacksnoop_bpf__open();
	if (!skel) {
		err = -errno;
		bt_err("cannot open the BPF object: %s", strerror(errno));
		goto cleanup;
	}
	skel->rodata->want_kernel = s.kernel;
	skel->rodata->want_user = s.user;
	filters.tgid = opts.pid;
	err = bt_stacks__configure(skel->obj, &sopts);
	if (!err)
		err = bt_events__configure(skel->obj, skel->maps.events);
	if (err) {
		bt_err("cannot set up the event and stack maps: %s", strerror(-err));
		goto cleanup;
	}
	err = bt_trace__load(skel->skeleton, &targets, &filters, opts.mode, &attach);
	if (err)
		goto cleanup;
	/* BCC counts from when tracing started; the kernel's clock times each call exactly */
	s.start_ns = now_ns();
	s.last_sweep = s.last_adopt = s.start_ns;
	s.stack_fd = bpf_map__fd(skel->maps.bt_stacks);
	err = bt_stacks__new(skel->obj, &sopts, &s.stacks);
	if (err) {
		bt_err("cannot set up stack symbolization: %s", strerror(-err));
		goto cleanup;
	}
	if (opts.pid && s.user)
		bt_stacks__note_pid(s.stacks, opts.pid);
	err = bt_events__new(skel->obj, skel->maps.events, on_event, &s, &s.events);
	if (err) {
		bt_err("cannot read events: %s", strerror(-err));
		goto cleanup;
	}

	if (opts.verbose)
		printf("%-18s %-12s %-6s %-3s %s\n", "TIME(s)", "COMM", "PID", "CPU", "FUNCTION");
	else
		printf("%-18s %s\n", "TIME(s)", "FUNCTION");
	if (bt_output_closed())
		goto cleanup;
	err = snoop_loop(&s);
	bt_events__report_lost(s.events);
	bt_stacks__report_lost(s.stacks);
	if (s.missing)
		bt_warn("%llu stacks were freed before their event was printed", s.missing);
cleanup:
	bt_attach__destroy(attach);
	bt_events__free(s.events);
	stacksnoop_bpf__destroy(skel);
	bt_stacks__free(s.stacks);
	free(s.frames);
	free(s.held);
	free(s.last_seen);
	bt_targets__free(&targets);
	return err;
}

BT_COMMAND(stacksnoop) = {
	.name = "stacksnoop",
	.summary = "Trace a function and print the stack of each call",
	.argp = &argp,
	.opts = &opts,
	.run = run,
	.flags = BT_NEED_PRIV,
	.uses = BT_USES_KFUNC | BT_USES_TRACEPOINT | BT_USES_UPROBE | BT_USES_STACKS,
};
