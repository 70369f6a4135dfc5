// SPDX-License-Identifier: GPL-2.0
/*
 * bpftools: one binary, many tracing tools. `bpftools CMD ARGS` and `CMD ARGS` through a link
 * named CMD are the same thing; this file only dispatches and handles the top-level options.
 */
#include <errno.h>
#include <malloc.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/libbpf.h>

#include "bt_args.h"
#include "bt_cmd.h"
#include "bt_err.h"
#include "bt_kernel.h"
#include "bt_loop.h"
#include "bt_output.h"
#include "bt_procfile.h"
#include "bt_vmlinux_btf.h"
#include "completion.h"
#include "flamegraph.h"

#ifndef BT_VERSION
#define BT_VERSION "0.0.0"
#endif

static void print_top_usage(FILE *out)
{
	fprintf(out, "Usage: bpftools COMMAND [ARGS...]\n"
		     "       bpftools --list | --version | --help\n"
		     "       bpftools --install DIR\n"
		     "       bpftools completion bash|zsh|fish\n"
		     "       bpftools flamegraph [--pprof] [OPTION...] < FOLDED > OUT\n"
		     "       COMMAND [ARGS...]    (through a link named COMMAND)\n");
}

/* Each command and its summary: --list's lines, indented under --help's "Commands:". */
static void print_list(const char *indent)
{
	const struct bt_cmd *c;
	int i;

	bt_for_each_cmd(c, i)
		printf("%s%-14s %s\n", indent, c->name, c->summary);
}

static void print_help(void)
{
	printf("bpftools: BCC's tracing tools on libbpf and CO-RE, in one binary.\n\n");
	print_top_usage(stdout);
	printf("\nCommands:\n");
	print_list("  ");
	printf("\nRun 'bpftools COMMAND --help' for a command's options.\n");
}

static int self_path(char *buf, size_t size, const char *argv0)
{
	ssize_t n = readlink("/proc/self/exe", buf, size - 1);

	if (n > 0) {
		buf[n] = '\0';
		return 0;
	}
	/* No /proc (a chroot): an absolute argv[0] is still a usable target. */
	if (argv0[0] == '/' && strlen(argv0) < size) {
		strcpy(buf, argv0);
		return 0;
	}
	return -ENOENT;
}

/* Whether path is this binary (a link to it, or the file itself). */
static bool is_self(const char *path, const char *self)
{
	char real[PATH_MAX];

	return realpath(path, real) && !strcmp(real, self);
}

/*
 * Another program of this name on PATH, beside DIR: said, since whichever directory comes
 * first in PATH decides which one runs (libbpf-tools' /usr/sbin/biolatency, say).
 */
static void note_shadowed(const char *name, const char *dir, const char *self)
{
	const char *path = getenv("PATH"), *p, *end;
	char cand[PATH_MAX], real_dir[PATH_MAX], d[PATH_MAX];

	if (!path || !realpath(dir, real_dir))
		return;
	for (p = path; *p; p = *end ? end + 1 : end) {
		end = strchrnul(p, ':');
		snprintf(d, sizeof(d), "%.*s", (int)(end - p), p);
		if (!*d || !realpath(d, cand) || !strcmp(cand, real_dir))
			continue;
		if (snprintf(cand, sizeof(cand), "%s/%s", d, name) >= (int)sizeof(cand))
			continue; /* longer than any path: nothing there */
		if (access(cand, X_OK) || is_self(cand, self))
			continue;
		bt_note("'%s/%s' and '%s', another program, are both on PATH: the one in the "
			"directory that comes first in PATH runs",
			dir, name, cand);
		return;
	}
}

/*
 * `bpftools --install DIR`: a link per command in DIR, the opt-in for the plain names in a
 * system directory. It replaces only links to a bpftools binary; another program of the name,
 * in DIR or elsewhere on PATH, is left alone and named.
 */
static int install_links(const char *dir, const char *argv0)
{
	char self[PATH_MAX], link[PATH_MAX], old[PATH_MAX];
	const struct bt_cmd *c;
	struct stat st;
	int i, err = 0;
	ssize_t n;

	if (self_path(self, sizeof(self), argv0)) {
		bt_err("cannot find the bpftools binary (no /proc/self/exe)");
		return -ENOENT;
	}
	if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
		bt_err("'%s' is not a directory", dir);
		return -BT_EUSAGE;
	}
	bt_for_each_cmd(c, i) {
		if (c->flags & BT_NO_LINK)
			continue;
		snprintf(link, sizeof(link), "%s/%s", dir, c->name);
		if (lstat(link, &st) == 0) {
			if (!S_ISLNK(st.st_mode)) {
				bt_err("'%s' exists and is not a link; left alone", link);
				err = -EEXIST;
				continue;
			}
			n = readlink(link, old, sizeof(old) - 1);
			old[n > 0 ? n : 0] = '\0';
			/* an older bpftools (its name, or gone) is replaced; other links are not */
			if (!is_self(link, self)) {
				const char *base = strrchr(old, '/');

				base = base ? base + 1 : old;
				if (strncmp(base, "bpftools", 8) && access(link, F_OK) == 0) {
					bt_err("'%s' is a link to '%s', not bpftools; left alone",
					       link, old);
					err = -EEXIST;
					continue;
				}
				bt_note("'%s' replaced (it was a link to '%s')", link, old);
			}
			unlink(link);
		}
		if (symlink(self, link)) {
			bt_err("cannot create '%s': %s", link, strerror(errno));
			err = -errno;
			continue;
		}
		note_shadowed(c->name, dir, self);
	}
	return err;
}

/*
 * The command's result once stdout is flushed: any write to it that failed (however early, by
 * whichever print path) is a failure, except a reader that went away (`| head`), which only
 * ends the output; the print paths' -EPIPE says the same.
 */
static int output_status(int err)
{
	int werr = bt_output_flush(stdout);

	if (err == -EPIPE) /* a print path saw stdout fail: judged here */
		err = 0;
	if (werr && werr != -EPIPE && !err) {
		bt_err("cannot write the output: %s", strerror(-werr));
		err = werr;
	}
	return err;
}

/* Files of traced processes refused or ignored (symbolize/bt_procfile.h), under -D. */
static void procfile_debug(const char *msg)
{
	bt_debug("%s", msg);
}

static int run_command(const struct bt_cmd *cmd, int argc, char **argv)
{
	int err;

	bt_set_progname(cmd->name);
	bt_set_debug(false);
	bt_procfile_set_debug(procfile_debug);
	bt_set_json_mode(false);
	argv[0] = (char *)cmd->name;
	bt_set_cmdline(argc, argv);
	err = bt_args_parse(cmd, argc, argv);
	if (err)
		return err > 0 ? 0 : err;
	bt_vmlinux_btf_set_file(bt_args_btf_file());
	if ((cmd->flags & BT_NEED_PRIV) && bt_check_privileges()) {
		bt_err("needs root, or the CAP_BPF and CAP_PERFMON capabilities");
		return -EPERM;
	}
	err = bt_signals_init();
	if (err) {
		bt_err("cannot set up signal handling: %s", strerror(-err));
		return err;
	}
	if (cmd->flags & BT_NEED_PRIV)
		bt_raise_fd_limit();
	err = cmd->run(cmd);
	/* Stopped by Ctrl-C/SIGTERM/SIGHUP before tracing began: asked for, not a failure. */
	if (err == -EINTR && bt_stop_requested())
		err = 0;
	return output_status(err);
}

static int unknown_command(const char *name)
{
	/* bt_err(): what was typed is shown with its control characters as \xNN */
	bt_err("'%s' is not a bpftools command; see 'bpftools --list'", name);
	return BT_EXIT_USAGE;
}

static int top_level(int argc, char **argv)
{
	const char *arg = argv[1];
	const struct bt_cmd *cmd;

	if (argc < 2) {
		print_top_usage(stderr);
		return BT_EXIT_USAGE;
	}
	if (!strcmp(arg, "--list"))
		print_list("");
	else if (!strcmp(arg, "--version"))
		printf("bpftools %s (libbpf %s)\n", BT_VERSION, libbpf_version_string());
	else if (!strcmp(arg, "--help") || !strcmp(arg, "-h"))
		print_help();
	else if (!strcmp(arg, "--install")) {
		if (argc != 3) {
			bt_err("--install needs one directory");
			print_top_usage(stderr);
			return BT_EXIT_USAGE;
		}
		return bt_exit_code(install_links(argv[2], argv[0]));
	} else if (!strcmp(arg, "completion")) {
		if (argc != 3) {
			bt_err("completion needs one shell: bash, zsh or fish");
			return BT_EXIT_USAGE;
		}
		return bt_exit_code(output_status(bt_completion_print(stdout, argv[2])));
	} else if (!strcmp(arg, "flamegraph")) {
		return bt_exit_code(run_command(&bt_flamegraph_cmd, argc - 1, argv + 1));
	} else if (arg[0] == '-') {
		bt_err("unknown option '%s'", arg);
		print_top_usage(stderr);
		return BT_EXIT_USAGE;
	} else {
		cmd = bt_cmd_find(arg);
		if (!cmd)
			return unknown_command(arg);
		return bt_exit_code(run_command(cmd, argc - 1, argv + 1));
	}
	return bt_exit_code(output_status(0));
}

int main(int argc, char **argv)
{
	const char *name = argc > 0 ? strrchr(argv[0], '/') : NULL;
	const struct bt_cmd *cmd;
	int err;

	/*
	 * Large blocks (a table of a 30 MB binary's .eh_frame in passing, a file read whole)
	 * mapped and unmapped on their own, always. glibc's default raises the threshold to the
	 * largest block freed so far, and the trim threshold to twice it: the next such block
	 * came from a thread's arena, whose top malloc_trim() does not give back, and a tool
	 * tracing every process kept 7-30 MiB for each big binary started beside it (one gcc).
	 */
	mallopt(M_MMAP_THRESHOLD, 128 << 10);
	name = name ? name + 1 : (argc > 0 ? argv[0] : "bpftools");
	if (name[0] == '-') /* login-shell style "-name" */
		name++;
	bt_set_progname("bpftools");
	err = bt_output_init();
	if (err) {
		bt_err("cannot set up the output: %s", strerror(-err));
		return BT_EXIT_FAIL;
	}
	/* Asked by a completion script through whichever name the user typed (a link too). */
	if (argc > 1 && !strcmp(argv[1], "__complete"))
		return bt_exit_code(
			output_status(bt_completion_complete(stdout, argc - 2, argv + 2)));
	/*
	 * A link named like a command runs it; any other name is bpftools itself, renamed or
	 * copied ("bpftools-static", "bpftools.new"), so that --list and "bpftools CMD" work
	 * whatever the file is called.
	 */
	cmd = bt_cmd_find(name);
	if (!cmd)
		return top_level(argc, argv);
	return bt_exit_code(run_command(cmd, argc, argv));
}
