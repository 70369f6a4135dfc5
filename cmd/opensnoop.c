// SPDX-License-Identifier: GPL-2.0
/* opensnoop: trace open(), openat() and openat2() calls, as BCC's opensnoop does. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bt_args.h"
#include "bt_cmd.h"
#include "bt_err.h"
#include "bt_errno.h"
#include "bt_evrun.h"
#include "bt_exec.h"
#include "bt_inflight.h"
#include "bt_json.h"
#include "bt_loop.h"
#include "bt_skel.h"
#include "bt_escape.h"
#include "opensnoop.h"
#include "opensnoop_probes.h"
#include "opensnoop.skel.h"
#include "opensnoop_nokfuncs.skel.h"

enum {
	OPT_EXEC = 0x100,
};

static struct opensnoop_opts {
	struct bt_common_opts c; /* -p, -d */
	bool timestamp, print_uid, failed, extended, full_path, json;
	long tid;
	bool by_uid;
	unsigned long uid;
	const char *name;
	const char *cgroupmap, *mntnsmap;
	unsigned int flag_mask;
	bool flag_rdonly;
	unsigned long buffer_pages;
	char **exec_argv;
	bool exec;
} opts = { .c = BT_COMMON_OPTS_INIT, .buffer_pages = 64 };

static const struct bt_opt_vals vals = {
	BT_COMMON_VALS(opts.c),
	.timestamp = &opts.timestamp,
	.json = &opts.json,
	.cgroupmap = &opts.cgroupmap,
	.mntnsmap = &opts.mntnsmap,
	.no_args = true,
	.flags = BT_ARGP_FLAGS({ 'U', &opts.print_uid }, { 'x', &opts.failed },
			       { 'e', &opts.extended }, { 'F', &opts.full_path }),
};

static const struct argp_option options[] = {
	{ "print-uid", 'U', NULL, 0, "Print UID column", 0 },
	{ "failed", 'x', NULL, 0, "Only show failed opens", 0 },
	{ "tid", 't', "TID", 0, "Trace this TID only", 0 },
	{ "uid", 'u', "UID", 0, "Trace this UID only", 0 },
	{ "name", 'n', "NAME", 0, "Only print process names containing this name", 0 },
	{ "extended_fields", 'e', NULL, 0, "Show extended fields", 0 },
	{ "extended-fields", 0, NULL, OPTION_ALIAS, NULL, 0 },
	{ "flag_filter", 'f', "FLAG", 0, "Filter on flags argument (e.g., O_WRONLY); repeatable",
	  0 },
	{ "flag-filter", 0, "FLAG", OPTION_ALIAS, NULL, 0 },
	{ "full-path", 'F', NULL, 0, "Show full path for an open file with relative path", 0 },
	{ "buffer-pages", 'b', "PAGES", 0,
	  "Size of the ring buffer in pages (a power of two; default 64, at most 256 MiB)", 0 },
	{ "exec", OPT_EXEC, NULL, 0,
	  "Run CMD [ARGS...] (the rest of the line) and trace it alone; exit when it exits", 0 },
	{ NULL },
};

/* The flags -f takes, as Python's os module names them, each name written once. */
#define OPEN_FLAG(f)                     \
	{                                \
		.name = #f, .value = (f) \
	}
static const struct {
	const char *name;
	unsigned int value;
} open_flags[] = {
	OPEN_FLAG(O_RDONLY),  OPEN_FLAG(O_WRONLY),    OPEN_FLAG(O_RDWR),      OPEN_FLAG(O_ACCMODE),
	OPEN_FLAG(O_CREAT),   OPEN_FLAG(O_EXCL),      OPEN_FLAG(O_NOCTTY),    OPEN_FLAG(O_TRUNC),
	OPEN_FLAG(O_APPEND),  OPEN_FLAG(O_NONBLOCK),  OPEN_FLAG(O_NDELAY),    OPEN_FLAG(O_DSYNC),
	OPEN_FLAG(O_SYNC),    OPEN_FLAG(O_FSYNC),     OPEN_FLAG(O_RSYNC),     OPEN_FLAG(O_ASYNC),
	OPEN_FLAG(O_DIRECT),  OPEN_FLAG(O_LARGEFILE), OPEN_FLAG(O_DIRECTORY), OPEN_FLAG(O_NOFOLLOW),
	OPEN_FLAG(O_NOATIME), OPEN_FLAG(O_CLOEXEC),   OPEN_FLAG(O_PATH),      OPEN_FLAG(O_TMPFILE),
};

static int parse_flag(struct argp_state *state, const char *arg, struct opensnoop_opts *o)
{
	size_t i;

	for (i = 0; i < sizeof(open_flags) / sizeof(open_flags[0]); i++) {
		if (strcmp(arg, open_flags[i].name))
			continue;
		/* BCC ORs O_RDONLY's 0 into the mask and then matches nothing */
		if (!strcmp(arg, "O_RDONLY"))
			o->flag_rdonly = true;
		else if (!open_flags[i].value)
			return bt_argp_error(state, "flag '%s' is not one callers pass here", arg);
		o->flag_mask |= open_flags[i].value;
		return 0;
	}
	return bt_argp_error(state, "bad flag '%s': expected O_RDONLY, O_WRONLY, O_CREAT, ...",
			     arg);
}

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct opensnoop_opts *o = state->input;

	switch (key) {
	case 't':
		return bt_argp_long(state, arg, "TID", 1, INT_MAX, &o->tid);
	case 'u':
		o->by_uid = true;
		return bt_argp_ulong(state, arg, "UID", 0, UINT_MAX - 1, &o->uid);
	case 'n':
		if (!*arg || strlen(arg) >= OPENSNOOP_COMM_LEN)
			return bt_argp_error(state,
					     "invalid name '%s': process names have 1 to 15 "
					     "characters",
					     arg);
		o->name = arg;
		break;
	case 'f':
		return parse_flag(state, arg, o);
	case 'b':
		/*
		 * 256 MiB at most (4096 times the default), made in ~0.45 s; the kernel takes up to
		 * 2 GiB (max_entries is 32 bits: 4 GiB came out as 0, "Invalid argument"), but a run
		 * then waits 1-4 s at 1 GiB and 3-5 s at 2 GiB for the pages
		 */
		if (bt_argp_ulong(state, arg, "buffer size", 1, (1UL << 28) / sysconf(_SC_PAGESIZE),
				  &o->buffer_pages))
			return EINVAL;
		if (o->buffer_pages & (o->buffer_pages - 1))
			return bt_argp_error(state,
					     "invalid buffer size '%s': expected a power of two "
					     "number of pages",
					     arg);
		break;
	case OPT_EXEC:
		/* the rest of the line is the command, options included (argparse's REMAINDER) */
		o->exec = true;
		o->exec_argv = state->argv + state->next;
		state->next = state->argc;
		break;
	case ARGP_KEY_END:
		if (o->exec && !o->exec_argv[0])
			return bt_argp_error(state, "--exec needs a command to run");
		if (o->exec && (o->c.pid || o->tid))
			return bt_argp_error(state, "-p/-t and --exec cannot be used together");
		break;
	default:
		return bt_argp_own(key, arg, state);
	}
	return 0;
}

static const struct argp argp = {
	.options = options,
	.parser = parse_opt,
	.children = BT_ARGP_CHILDREN(bt_argp_pid, bt_argp_duration, bt_argp_timestamp, bt_argp_json,
				     bt_argp_ns_maps),
	.doc = "Trace open() syscalls.\v"
	       "examples:\n"
	       "    opensnoop                        # trace all open() syscalls\n"
	       "    opensnoop -T                     # include timestamps\n"
	       "    opensnoop -U                     # include UID\n"
	       "    opensnoop -x                     # only show failed opens\n"
	       "    opensnoop -p 181                 # only trace PID 181\n"
	       "    opensnoop -t 123                 # only trace TID 123\n"
	       "    opensnoop -u 1000                # only trace UID 1000\n"
	       "    opensnoop -d 10                  # trace for 10 seconds only\n"
	       "    opensnoop -n main                # only print process names containing "
	       "\"main\"\n"
	       "    opensnoop -e                     # show extended fields\n"
	       "    opensnoop -f O_WRONLY -f O_RDWR  # only print calls for writing\n"
	       "    opensnoop -F                     # show full path for an open file with "
	       "relative path\n"
	       "    opensnoop --cgroupmap mappath    # only trace cgroups in this BPF map\n"
	       "    opensnoop --mntnsmap mappath     # only trace mount namespaces in the map\n"
	       "    opensnoop --exec ls -l /tmp      # run a command and trace it alone\n"
	       "    opensnoop --json                 # one JSON object per open",
};

struct state {
	bool have_base;
	unsigned long long base_us;
	struct bt_child child;
	char full[OPENSNOOP_MAX_DEPTH * OPENSNOOP_NAME_LEN + OPENSNOOP_PATH_MAX + 8];
};

/* PATH as printed, in s->full: as passed, or with -F after the directory it is relative to. */
static const char *print_path(struct state *s, const struct opensnoop_event *e, const char *data,
			      size_t size)
{
	size_t off = offsetof(struct opensnoop_event, path), n, len = 0;
	const char *path = data + off;
	int i;

	n = size > off ? strnlen(path, size - off < OPENSNOOP_PATH_MAX ? size - off
								       : OPENSNOOP_PATH_MAX - 1)
		       : 0;
	if (!opts.full_path || path[0] == '/' || size < sizeof(*e)) {
		memcpy(s->full, path, n);
		s->full[n] = '\0';
		return s->full;
	}
	/* BCC's join: '/' + outermost directory ... innermost + '/' + the path as passed */
	if (e->truncated)
		len += snprintf(s->full + len, sizeof(s->full) - len, "...");
	for (i = (int)e->depth - 1; i >= 0 && i < OPENSNOOP_MAX_DEPTH; i--) {
		const char *d = data + offsetof(struct opensnoop_event, dirs) +
				(size_t)i * OPENSNOOP_NAME_LEN;

		len += snprintf(s->full + len, sizeof(s->full) - len, "/%.*s",
				(int)strnlen(d, OPENSNOOP_NAME_LEN - 1), d);
	}
	snprintf(s->full + len, sizeof(s->full) - len, "/%.*s", (int)n, path);
	return s->full;
}

static void print_json(const struct opensnoop_event *e, double secs, const char *path)
{
	const char *errname = e->ret < 0 ? bt_errno_name(e->ret) : NULL;

	printf("{\"time\": %.6f, \"uid\": %u, \"pid\": %u, \"tid\": %u, \"comm\": ", secs, e->uid,
	       e->pid, e->tid);
	bt_json_quoten(stdout, e->comm, OPENSNOOP_COMM_LEN);
	printf(", \"fd\": %d, \"err\": %d, \"errno\": ", e->ret >= 0 ? e->ret : -1,
	       e->ret >= 0 ? 0 : -e->ret);
	if (errname)
		bt_json_quote(stdout, errname);
	else
		fputs("null", stdout);
	printf(", \"flags\": %u, \"mode\": %u, \"path\": ", e->flags, e->mode);
	bt_json_quote(stdout, path);
	fputs("}\n", stdout);
}

static int on_event(void *ctx, const void *data, size_t size)
{
	struct state *s = ctx;
	struct opensnoop_event e;
	char comm[BT_ESC_SIZE(OPENSNOOP_COMM_LEN)];
	unsigned long long us;
	const char *path;
	double secs;

	if (size < offsetof(struct opensnoop_event, path))
		return 0;
	memcpy(&e, data, offsetof(struct opensnoop_event, path));
	/* BCC keeps microseconds and prints them as seconds with 9 decimals */
	us = e.ts_ns / 1000;
	if (!s->have_base) {
		s->base_us = us;
		s->have_base = true;
	}
	secs = (double)(us - s->base_us) / 1e6;
	path = print_path(s, &e, data, size);
	if (opts.json) {
		print_json(&e, secs, path);
		return 0;
	}
	if (opts.timestamp)
		printf("%-14.9f", secs);
	if (opts.print_uid)
		printf("%-6u", e.uid);
	/* the comm and path are the traced process's: escaped, so one event is one line */
	printf("%-6u %-16s %4d %3d ", opts.tid ? e.tid : e.pid,
	       bt_esc(comm, sizeof(comm), e.comm, sizeof(e.comm)), e.ret >= 0 ? e.ret : -1,
	       e.ret >= 0 ? 0 : -e.ret);
	if (opts.extended) {
		/* open(2): without O_CREAT or O_TMPFILE there is no mode */
		if (e.mode == 0 && !(e.flags & O_CREAT) && (e.flags & O_TMPFILE) != O_TMPFILE)
			printf("%08o n/a  ", e.flags);
		else
			printf("%08o %04o ", e.flags, e.mode);
	}
	bt_escape_put(stdout, path, strlen(path), 0);
	putchar('\n');
	return 0;
}

static void print_header(void *ctx)
{
	(void)ctx;
	if (opts.timestamp)
		printf("%-14s", "TIME(s)");
	if (opts.print_uid)
		printf("%-6s", "UID");
	printf("%-6s %-16s %4s %3s ", opts.tid ? "TID" : "PID", "COMM", "FD", "ERR");
	if (opts.extended)
		printf("%-8s %-4s ", "FLAGS", "MODE");
	printf("PATH\n");
}

/* probes/opensnoop.bpf.c's in-flight tables, in slot order */
static const struct bt_inflight_table inflight[] = {
	{ "starts", "opens not traced", "opens in flight" },
	{ NULL },
};

/* What the kernel filters on: TID trumps PID, as in BCC; --exec's command is the PID. */
static struct bt_filters filters_of(const struct state *s)
{
	struct bt_filters f = BT_FILTERS_NONE;

	if (opts.tid)
		f.tid = opts.tid;
	else if (opts.exec)
		f.tgid = s->child.pid;
	else
		f.tgid = opts.c.pid;
	f.by_uid = opts.by_uid;
	f.uid = opts.uid;
	f.comm = opts.name;
	f.cgroupmap = opts.cgroupmap;
	f.mntnsmap = opts.mntnsmap;
	f.not_self = true; /* our own opens are not the system's */
	return f;
}

static int run(const struct bt_cmd *cmd)
{
	struct opensnoop_bpf *skel = NULL;
	struct bt_filters filters;
	struct bt_evrun ev = { 0 };
	struct state *s;
	int err;

	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	err = bt_child__start(opts.exec_argv, &s->child);
	/* not through bt_core_btf: bpf_core_type_id_kernel() needs the kernel's own type ids */
	if (!err)
		err = BT_SKEL_OPEN_WHOLE_BTF_NOKFUNCS(opensnoop, &skel);
	if (err)
		goto cleanup;
	skel->rodata->failed_only = opts.failed;
	skel->rodata->flag_mask = opts.flag_mask;
	skel->rodata->flag_rdonly = opts.flag_rdonly;
	filters = filters_of(s);
	ev = (struct bt_evrun){ .map = skel->maps.events,
				.on_event = on_event,
				.ctx = s,
				.duration_ms = opts.c.duration * 1000ULL,
				.child = opts.exec ? &s->child : NULL,
				.buffer_pages = opts.buffer_pages,
				.header = print_header,
				.banner = opts.json ? "Tracing open calls... Hit Ctrl-C to end.\n"
						    : NULL,
				.inflight = inflight };
	err = bt_filters_apply(skel->obj, &filters);
	if (!err)
		err = bt_evrun__configure(&ev, skel->obj);
	if (!err)
		err = bt_skel_select(skel->obj,
				     opts.full_path ? opensnoop_probes_full : cmd->probes);
	if (!err)
		err = bt_skel_load_attach(skel->skeleton, "the open syscall tracepoints");
	if (!err)
		err = bt_evrun__run(&ev);
cleanup:
	bt_evrun__free(&ev);
	if (skel)
		bt_skel_detach(skel->skeleton);
	opensnoop_bpf__destroy(skel);
	bt_child__end(&s->child);
	free(s);
	return err;
}

BT_TOOL_COMMAND(opensnoop, "Trace open(), openat() and openat2() calls", .vals = &vals,
		.probes = opensnoop_probes, .uses = BT_USES_TRACEPOINT);
