// SPDX-License-Identifier: GPL-2.0
/* funcslower: show kernel or user function calls slower than a threshold, as BCC's funcslower. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "bt_args.h"
#include "bt_attach.h"
#include "bt_cmd.h"
#include "bt_err.h"
#include "bt_events.h"
#include "bt_loop.h"
#include "bt_skel.h"
#include "bt_stacks.h"
#include "bt_trace.h"
#include "funcslower.h"
#include "funcslower.skel.h"

enum {
	OPT_ATTACH = 0x100,
	OPT_STORAGE,
	OPT_MAX_PROBES,
};

static struct funcslower_opts {
	long pid;
	double min_ms, min_us; /* < 0: not given */
	unsigned long nargs;
	bool time, timestamp, verbose, folded, user_stack, kernel_stack;
	unsigned long storage;
	unsigned long max_probes;
	enum bt_attach_mode mode;
	char **funcs;
	int nfuncs;
} opts = { .min_ms = -1, .min_us = -1, .storage = 2048, .max_probes = 1000 };

static const struct argp_option options[] = {
	{ "pid", 'p', "PID", 0, "Trace this PID only", 0 },
	{ "min-ms", 'm', "MIN_MS", 0,
	  "Minimum duration to trace (ms; default 1, fractions allowed)", 0 },
	{ "min-us", 'u', "MIN_US", 0, "Minimum duration to trace (us; fractions allowed)", 0 },
	{ "arguments", 'a', "N", 0, "Print this many entry arguments (at most 6), as hex", 0 },
	{ "time", 'T', NULL, 0, "Show HH:MM:SS timestamp", 0 },
	{ "timestamp", 't', NULL, 0, "Show timestamp in seconds at us resolution", 0 },
	{ "verbose", 'v', NULL, 0, "Print what each function resolved to and how it is attached",
	  0 },
	{ "folded", 'f', NULL, 0,
	  "Output folded format, one line per stack (for flame graphs); implies -U -K unless "
	  "one is given",
	  0 },
	{ "user-stack", 'U', NULL, 0, "Output user stack trace", 0 },
	{ "kernel-stack", 'K', NULL, 0, "Output kernel stack trace", 0 },
	{ "attach", OPT_ATTACH, "MODE", 0,
	  "How to attach kernel functions: auto, fentry or kprobe (default auto)", 0 },
	{ "stack-storage-size", OPT_STORAGE, "N", 0,
	  "Number of unique stacks to store (default 2048)", 0 },
	{ "max-probes", OPT_MAX_PROBES, "N", 0,
	  "Refuse to trace more than N functions (default 1000)", 0 },
	{ NULL },
};

/* A threshold: a number >= 0, fractions allowed, whose nanoseconds fit in 63 bits. */
static int parse_threshold(struct argp_state *state, const char *arg, const char *what,
			   double scale, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (!*arg || *end || errno || !isfinite(v) || v < 0 || v * scale >= 9e18)
		return bt_argp_error(state, "invalid %s '%s': expected a number of %s >= 0", what,
				     arg, scale == 1e6 ? "milliseconds" : "microseconds");
	*out = v;
	return 0;
}

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct funcslower_opts *o = state->input;

	switch (key) {
	case 'p':
		return bt_argp_long(state, arg, "PID", 1, INT_MAX, &o->pid);
	case 'm':
		return parse_threshold(state, arg, "minimum duration", 1e6, &o->min_ms);
	case 'u':
		return parse_threshold(state, arg, "minimum duration", 1e3, &o->min_us);
	case 'a':
		return bt_argp_ulong(state, arg, "argument count", 0, FUNCSLOWER_MAX_ARGS,
				     &o->nargs);
	case 'T':
		o->time = true;
		break;
	case 't':
		o->timestamp = true;
		break;
	case 'v':
		o->verbose = true;
		break;
	case 'f':
		o->folded = true;
		break;
	case 'U':
		o->user_stack = true;
		break;
	case 'K':
		o->kernel_stack = true;
		break;
	case OPT_ATTACH:
		return bt_argp_attach_mode(state, arg, &o->mode);
	case OPT_STORAGE:
		return bt_argp_ulong(state, arg, "stack storage size", 1, 1 << 24, &o->storage);
	case OPT_MAX_PROBES:
		return bt_argp_ulong(state, arg, "probe limit", 1, 1000000, &o->max_probes);
	case ARGP_KEY_ARGS:
		o->funcs = state->argv + state->next;
		o->nfuncs = state->argc - state->next;
		break;
	case ARGP_KEY_END:
		if (!o->nfuncs)
			return bt_argp_error(state, "missing the function(s) to trace");
		/* BCC takes -m then and prints the value in microseconds */
		if (o->min_ms >= 0 && o->min_us >= 0)
			return bt_argp_error(state, "-m and -u are mutually exclusive");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp argp = {
	.options = options,
	.parser = parse_opt,
	.args_doc = "FUNCTION...",
	.doc = "Trace slow kernel or user function calls.\v"
	       "FUNCTION: func (kernel), lib:func, c:func, /path:func, prog:func (user), "
	       "syscall:name; '*' wildcards.\n\n"
	       "examples:\n"
	       "    funcslower vfs_write        # trace vfs_write calls slower than 1ms\n"
	       "    funcslower -m 10 vfs_write  # same, but slower than 10ms\n"
	       "    funcslower -u 10 c:open     # trace open calls slower than 10us\n"
	       "    funcslower -p 135 c:open    # trace pid 135 only\n"
	       "    funcslower c:malloc c:free  # trace both malloc and free slower than 1ms\n"
	       "    funcslower -a 2 c:open      # show first two arguments to open\n"
	       "    funcslower -UK -m 10 c:open # Show user and kernel stack frame of open calls "
	       "slower than 10ms\n"
	       "    funcslower -f -UK c:open    # Output in folded format for flame graphs",
};

struct state {
	struct bt_events *events;
	struct bt_stacks *stacks;
	const struct bt_targets *targets;
	char **names; /* per entry target: FUNC as printed */
	double divisor;
	bool have_base;
	__u64 base_ns;
	bool closed;
	int entries_fd; /* calls in flight: their stacks stay stored */
};

static void print_stacks(struct state *s, const struct funcslower_event *e)
{
	static const struct bt_stack_style style = { .indent = "    " };
	int nu = 0;

	if (opts.folded) {
		/* comm;user outermost..innermost;-;kernel outermost..innermost 1 */
		printf("%.*s", FUNCSLOWER_COMM_LEN, e->comm);
		if (opts.user_stack)
			nu = bt_stacks__fold(s->stacks, stdout, &style, e->tgid, e->user_stack,
					     e->user_caller, false);
		if (opts.kernel_stack) {
			if (nu > 0 && e->kernel_stack != BT_STACK_NONE)
				fputs(";-", stdout);
			bt_stacks__fold(s->stacks, stdout, &style, BT_PID_KERNEL, e->kernel_stack,
					0, false);
		}
		printf(" 1\n");
		return;
	}
	if (opts.kernel_stack)
		bt_stacks__print(s->stacks, stdout, &style, BT_PID_KERNEL, e->kernel_stack, 0);
	if (opts.user_stack)
		bt_stacks__print(s->stacks, stdout, &style, e->tgid, e->user_stack, e->user_caller);
}

static int on_event(void *ctx, const void *data, size_t size)
{
	struct state *s = ctx;
	struct funcslower_event e;
	unsigned long i;

	if (s->closed || size < sizeof(e))
		return 0;
	memcpy(&e, data, sizeof(e));
	if (e.index >= s->targets->n / 2)
		return 0;
	if (s->stacks && opts.user_stack)
		bt_stacks__poll(s->stacks); /* a process announced since the last poll */
	if (!opts.folded) {
		if (opts.time) {
			bt_print_time(stdout, "%H:%M:%S");
			fputs("   ", stdout); /* "%-10s " of the 8-character time */
		} else if (opts.timestamp) {
			if (!s->have_base) {
				s->base_ns = e.start_ns;
				s->have_base = true;
			}
			printf("%-10.6f ", ((double)e.start_ns - (double)s->base_ns) / 1e9);
		}
		printf("%-14.14s %-6u %7.2f %16llx %s ", e.comm, e.tgid,
		       (double)e.duration_ns / s->divisor, (unsigned long long)e.retval,
		       s->names[e.index]);
		for (i = 0; i < opts.nargs; i++)
			printf("%s0x%llx", i ? " " : "", (unsigned long long)e.args[i]);
		putchar('\n');
	}
	if (s->stacks)
		print_stacks(s, &e);
	if (bt_output_closed()) {
		s->closed = true;
		return -EPIPE;
	}
	return 0;
}

/* Events and process announcements share one descriptor for the loop. */
static int ready(void *ctx)
{
	struct state *s = ctx;
	int err = 0;

	if (s->stacks)
		err = bt_stacks__poll(s->stacks);
	if (!err)
		err = bt_events__poll(s->events);
	return s->closed ? -EPIPE : err;
}

/* Stacks are held by calls in flight; everything else of the closed generation is printed. */
static int hold_in_flight(struct state *s, uint64_t **held, size_t *n)
{
	struct funcslower_inflight v;
	__u64 key, next, *prev = NULL;
	size_t cap = 0;

	*n = 0;
	while (bpf_map_get_next_key(s->entries_fd, prev, &next) == 0) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(s->entries_fd, &key, &v))
			continue;
		if (*n + 2 > cap) {
			uint64_t *h = realloc(*held, (cap = cap ? cap * 2 : 64) * sizeof(*h));

			if (!h)
				return -ENOMEM;
			*held = h;
		}
		(*held)[(*n)++] = v.kernel_stack;
		(*held)[(*n)++] = v.user_stack;
	}
	return 0;
}

/*
 * Once a second: close the stack generation, print every event queued (all that can refer
 * to the closed generation), and free its stacks but those of calls still in flight.
 */
static int recycle_stacks(void *ctx)
{
	struct state *s = ctx;
	uint64_t *held = NULL;
	size_t n = 0;
	int err;

	if (!s->stacks)
		return 0;
	err = bt_stacks__flip(s->stacks);
	if (err >= 0)
		err = ready(s);
	if (!err)
		err = hold_in_flight(s, &held, &n);
	if (!err)
		err = bt_stacks__release(s->stacks, held, n);
	free(held);
	return err;
}

static bool has_wildcard(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

/* FUNC as printed: the spec as given (BCC), or the function a wildcard matched. */
static char *print_name(const struct bt_probe_spec *spec, const struct bt_target *t)
{
	char *name = NULL;
	int n;

	if (!has_wildcard(spec->pattern))
		return strdup(spec->text);
	if (spec->kind == BT_SPEC_UFUNC)
		n = asprintf(&name, "%s:%s", spec->module, t->name);
	else if (spec->kind == BT_SPEC_SYSCALL)
		n = asprintf(&name, "syscall:%s", t->name);
	else
		n = asprintf(&name, "%s", t->name);
	return n < 0 ? NULL : name;
}

static int check_spec(const struct bt_probe_spec *spec)
{
	if (spec->retprobe)
		return bt_usage_err(
			"'%s': funcslower probes entry and return itself; drop the 'r:'",
			spec->text);
	if (spec->kind == BT_SPEC_TRACEPOINT || spec->kind == BT_SPEC_USDT)
		return bt_usage_err("cannot time '%s': a %s has no return; give a function or "
				    "syscall:NAME",
				    spec->text,
				    spec->kind == BT_SPEC_USDT ? "USDT probe" : "tracepoint");
	return 0;
}

static bool same_target(const struct bt_target *a, const struct bt_target *b)
{
	if (a->kind != b->kind || strcmp(a->name, b->name))
		return false;
	if (a->kind == BT_SPEC_KFUNC)
		return !strcmp(a->func, b->func);
	if (a->kind == BT_SPEC_UFUNC)
		return a->offset == b->offset && !strcmp(a->path, b->path);
	return true;
}

/*
 * Entry targets of every function first, then the return targets in the same order: return
 * target n + i belongs to entry target i, which is how the BPF side pairs them. Resolving a
 * spec with retprobe set is what turns syscall:NAME into sys_exit_NAME.
 */
static int resolve(struct bt_targets *targets, char ***names)
{
	struct bt_resolve_opts ropts = { .pid = opts.pid, .max_probes = 2 * opts.max_probes };
	struct bt_probe_spec *specs;
	size_t n_entries, i, first;
	int f, n, err = 0;

	specs = calloc(opts.nfuncs, sizeof(*specs));
	if (!specs)
		return -ENOMEM;
	for (f = 0; f < opts.nfuncs; f++) {
		err = bt_probe_spec__parse(opts.funcs[f], &specs[f]);
		if (!err)
			err = check_spec(&specs[f]);
		if (err)
			goto cleanup;
	}
	*names = calloc(2 * opts.max_probes, sizeof(**names));
	if (!*names) {
		err = -ENOMEM;
		goto cleanup;
	}
	for (f = 0; f < opts.nfuncs; f++) {
		first = targets->n;
		n = bt_targets__resolve(&specs[f], &ropts, targets);
		if (n < 0) {
			err = n;
			goto cleanup;
		}
		if (targets->n > opts.max_probes) {
			err = bt_usage_err("more than %lu functions to trace (--max-probes)",
					   opts.max_probes);
			goto cleanup;
		}
		for (i = first; i < targets->n; i++) {
			(*names)[i] = print_name(&specs[f], &targets->v[i]);
			if (!(*names)[i]) {
				err = -ENOMEM;
				goto cleanup;
			}
		}
	}
	n_entries = targets->n;
	for (f = 0; f < opts.nfuncs; f++) {
		specs[f].retprobe = true;
		n = bt_targets__resolve(&specs[f], &ropts, targets);
		if (n < 0) {
			err = n;
			goto cleanup;
		}
	}
	if (targets->n != 2 * n_entries)
		goto changed;
	for (i = 0; i < n_entries; i++)
		if (!same_target(&targets->v[i], &targets->v[n_entries + i]))
			goto changed;
	goto cleanup;
changed:
	/* A library replaced or a module loaded between the two lookups: nothing pairs up. */
	bt_err("the traced functions changed while resolving them; try again");
	err = -EAGAIN;
cleanup:
	for (f = 0; f < opts.nfuncs; f++)
		bt_probe_spec__free(&specs[f]);
	free(specs);
	return err;
}

/* The attach layer names a kernel return probe by its mechanism's entry form. */
static const char *return_how(const char *how)
{
	if (!strcmp(how, "fentry"))
		return "fexit";
	if (!strcmp(how, "kprobe"))
		return "kretprobe";
	if (!strcmp(how, "kprobe.multi"))
		return "kretprobe.multi";
	return how;
}

static void describe(const struct bt_targets *targets, char **names, const struct bt_attach *a)
{
	size_t n = targets->n / 2, i;

	for (i = 0; i < n; i++) {
		const struct bt_target *t = &targets->v[i], *r = &targets->v[n + i];

		if (t->kind == BT_SPEC_UFUNC)
			fprintf(stderr, "%s: '%s': %s in %s at offset 0x%llx: %s + %s\n",
				bt_progname(), names[i], t->func, t->path,
				(unsigned long long)t->offset, bt_attach__how(a, i),
				bt_attach__how(a, n + i));
		else if (t->kind == BT_SPEC_SYSCALL)
			fprintf(stderr, "%s: '%s': %s:%s + %s:%s: %s\n", bt_progname(), names[i],
				t->category, t->event, r->category, r->event, bt_attach__how(a, i));
		else
			fprintf(stderr, "%s: '%s': kernel function %s: %s + %s\n", bt_progname(),
				names[i], t->func, bt_attach__how(a, i),
				return_how(bt_attach__how(a, n + i)));
	}
}

static void print_header(void)
{
	const char *unit = opts.min_us >= 0 ? "us" : "ms";
	double value = opts.min_us >= 0 ? opts.min_us : opts.min_ms >= 0 ? opts.min_ms : 1;
	char lat[16];

	printf("Tracing function calls slower than %g %s... Ctrl+C to quit.\n", value, unit);
	if (opts.time || opts.timestamp)
		printf("%-10s ", "TIME");
	snprintf(lat, sizeof(lat), "LAT(%s)", unit);
	printf("%-14s %-6s %7s %16s %s\n", "COMM", "PID", lat, "RVAL",
	       opts.nargs ? "FUNC ARGS" : "FUNC");
}

/* One descriptor for the loop: the event buffer and, with user stacks, announcements. */
static int make_poll_fd(struct state *s)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int fds[2] = { bt_events__fd(s->events), s->stacks ? bt_stacks__fd(s->stacks) : -1 };
	int efd, i;

	efd = epoll_create1(EPOLL_CLOEXEC);
	if (efd < 0)
		return -errno;
	for (i = 0; i < 2; i++) {
		if (fds[i] < 0)
			continue;
		ev.data.fd = fds[i];
		if (epoll_ctl(efd, EPOLL_CTL_ADD, fds[i], &ev)) {
			int err = -errno;

			close(efd);
			return err;
		}
	}
	return efd;
}

static int run(const struct bt_cmd *cmd)
{
	struct bt_interval iv = { .interval = 1 };
	struct bt_filters filters = BT_FILTERS_NONE;
	struct bt_stacks_opts sopts = { 0 };
	struct bt_targets targets = { 0 };
	struct bt_attach *attach = NULL;
	struct funcslower_bpf *skel = NULL;
	struct state s = { 0 };
	struct bt_poll poll;
	char **names = NULL;
	bool stacks;
	int err, efd = -1;
	size_t i;

	(void)cmd;
	/* BCC prints nothing at all for -f alone; a flame graph of both stacks is what's meant */
	if (opts.folded && !opts.user_stack && !opts.kernel_stack)
		opts.user_stack = opts.kernel_stack = true;
	stacks = opts.user_stack || opts.kernel_stack;
	s.divisor = opts.min_us >= 0 ? 1e3 : 1e6;

	err = resolve(&targets, &names);
	if (err)
		goto cleanup;
	s.targets = &targets;
	s.names = names;

	skel = funcslower_bpf__open();
	if (!skel) {
		err = -errno;
		bt_err("cannot open the BPF object: %s", strerror(errno));
		goto cleanup;
	}
	skel->rodata->min_ns = opts.min_us >= 0	  ? (__u64)(opts.min_us * 1e3)
			       : opts.min_ms >= 0 ? (__u64)(opts.min_ms * 1e6)
						  : 1000000;
	skel->rodata->nr_entries = targets.n / 2;
	skel->rodata->want_args = opts.nargs > 0;
	skel->rodata->want_kernel = opts.kernel_stack;
	skel->rodata->want_user = opts.user_stack;
	filters.tgid = opts.pid;

	/* The stack maps exist either way; without -U/-K they stay minimal and unused. */
	sopts.storage_size = stacks ? opts.storage : 1;
	sopts.generations = true;
	sopts.user = opts.user_stack;
	sopts.note_running = opts.user_stack && !opts.pid;
	err = bt_stacks__configure(skel->obj, &sopts);
	if (!err)
		err = bt_events__configure(skel->obj, skel->maps.events);
	if (err) {
		bt_err("cannot set up the BPF maps: %s", strerror(-err));
		goto cleanup;
	}
	err = bt_trace__load(skel->skeleton, &targets, &filters, opts.mode, &attach);
	if (err)
		goto cleanup;
	if (opts.verbose)
		describe(&targets, names, attach);
	if (stacks) {
		err = bt_stacks__new(skel->obj, &sopts, &s.stacks);
		if (err) {
			bt_err("cannot set up stack symbolization: %s", strerror(-err));
			goto cleanup;
		}
		if (opts.pid && opts.user_stack)
			bt_stacks__note_pid(s.stacks, opts.pid);
		s.entries_fd = bpf_map__fd(skel->maps.entries);
	}
	err = bt_events__new(skel->obj, skel->maps.events, on_event, &s, &s.events);
	if (err) {
		bt_err("cannot open the event buffer: %s", strerror(-err));
		goto cleanup;
	}
	efd = make_poll_fd(&s);
	if (efd < 0) {
		err = efd;
		bt_err("cannot wait for events: %s", strerror(-err));
		goto cleanup;
	}

	if (!opts.folded)
		print_header();
	if (bt_output_closed())
		goto cleanup;
	poll = (struct bt_poll){ efd, ready, &s };
	err = bt_interval_loop_poll(&iv, recycle_stacks, &s, &poll);
	if (err == -EPIPE && s.closed)
		err = 0;
	else if (err)
		bt_err("cannot read events: %s", strerror(-err));
	bt_events__report_lost(s.events);
	if (s.stacks)
		bt_stacks__report_lost(s.stacks);
cleanup:
	if (efd >= 0)
		close(efd);
	bt_attach__destroy(attach);
	bt_events__free(s.events);
	funcslower_bpf__destroy(skel);
	bt_stacks__free(s.stacks);
	if (names)
		for (i = 0; i < targets.n; i++)
			free(names[i]);
	free(names);
	bt_targets__free(&targets);
	return err;
}

BT_COMMAND(funcslower) = {
	.name = "funcslower",
	.summary = "Show kernel or user function calls slower than a threshold",
	.argp = &argp,
	.opts = &opts,
	.run = run,
	.flags = BT_NEED_PRIV,
	.uses = BT_USES_KFUNC | BT_USES_UPROBE | BT_USES_TRACEPOINT | BT_USES_STACKS,
};
