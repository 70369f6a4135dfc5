// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>

#include "bt_env.h"
#include "bt_err.h"
#include "bt_errno.h"
#include "bt_json.h"
#include "bt_escape.h"

static const char *progname = "bpftools";
static bool debug_on;
static bool json_mode;
/* While argp's own messages are held back (bt_err_hold_begin()): where ours go meanwhile. */
static FILE *real_stderr;
static FILE *held;
static char *held_buf;
static size_t held_len;

static FILE *err_out(void)
{
	return real_stderr ? real_stderr : stderr;
}

void bt_set_progname(const char *name)
{
	progname = name;
}

const char *bt_progname(void)
{
	return progname;
}

static char cmdline[256];

void bt_set_cmdline(int argc, char *const argv[])
{
	size_t len = 0;
	int i, n;

	cmdline[0] = '\0';
	for (i = 0; i < argc && len < sizeof(cmdline) - 1; i++) {
		n = snprintf(cmdline + len, sizeof(cmdline) - len, "%s%s", i ? " " : "", argv[i]);
		if (n < 0)
			break;
		len += (size_t)n;
	}
}

const char *bt_cmdline(void)
{
	return cmdline;
}

/* Past this, a message keeps its start and end and says how much of the middle it left out. */
#define BT_MSG_MAX 1024

static bool utf8_cont(char c)
{
	return ((unsigned char)c & 0xc0) == 0x80;
}

/*
 * Messages quote what the user typed, so they are made safe to print: always one line (a
 * newline or an escape sequence in an argument is shown as \xNN, never acted on by the
 * terminal), and of bounded length (a 5000-character argument does not fill the screen).
 */
static void put_line(FILE *out, const char *s, size_t n)
{
	size_t i, k, head = n, tail = n;

	if (n > BT_MSG_MAX) {
		head = BT_MSG_MAX / 2;
		tail = n - BT_MSG_MAX / 2;
		while (head > 0 && utf8_cont(s[head]))
			head--;
		while (tail < n && utf8_cont(s[tail]))
			tail++;
	}
	for (i = 0; i < n; i++) {
		unsigned char c = s[i];

		if (i == head && tail > head) {
			fprintf(out, "[...%zu bytes...]", tail - head);
			i = tail - 1;
			continue;
		}
		k = bt_escape_keep(s + i, (i < head ? head : n) - i, 0);
		if (!k) {
			fprintf(out, "\\x%02x", c);
		} else {
			fwrite(s + i, 1, k, out);
			i += k - 1;
		}
	}
}

void bt_set_json_mode(bool on)
{
	json_mode = on;
}

bool bt_json_mode(void)
{
	return json_mode;
}

static const char *level_of(const char *prefix)
{
	if (!strcmp(prefix, "warning: "))
		return "warning";
	if (!strcmp(prefix, "debug: "))
		return "debug";
	if (!strcmp(prefix, "info: "))
		return "info";
	return "error";
}

/*
 * {"level": ..., "command": ..., "message": ...} as one line, written at once so that lines
 * of a multi-threaded writer (libbpf's log) never interleave. The message is made safe as a
 * text line is (escapes, length), then quoted.
 */
static void json_line(const char *who, const char *level, const char *msg, size_t n)
{
	char *safe = NULL, *line = NULL;
	size_t safe_len = 0, line_len = 0;
	FILE *f = open_memstream(&safe, &safe_len);

	if (!f)
		return;
	put_line(f, msg, n);
	fclose(f);
	f = open_memstream(&line, &line_len);
	if (f) {
		fputs("{\"level\": ", f);
		bt_json_quote(f, level);
		fputs(", \"command\": ", f);
		bt_json_quote(f, who);
		fputs(", \"message\": ", f);
		bt_json_quote(f, safe ? safe : "");
		fputs("}\n", f);
		fclose(f);
		fputs(line, err_out());
	}
	free(line);
	free(safe);
}

static void message(const char *who, const char *prefix, const char *msg, size_t n)
{
	FILE *out = err_out();

	if (json_mode) {
		json_line(who, level_of(prefix), msg, n);
		return;
	}
	/* stderr is unbuffered: one write per piece, so hold it against the other threads'
	 * lines (the unwinder's worker) until this one is whole */
	flockfile(out);
	fprintf(out, "%s: %s", who, prefix);
	put_line(out, msg, n);
	fputc('\n', out);
	funlockfile(out);
}

void bt_vmessage(const char *who, const char *prefix, const char *fmt, va_list ap)
{
	char *msg = NULL;
	int n = vasprintf(&msg, fmt, ap);

	/* out of memory: the format at least says what failed */
	message(who, prefix, n >= 0 ? msg : fmt, n >= 0 ? (size_t)n : strlen(fmt));
	free(msg);
}

void bt_err_hold_begin(void)
{
	if (real_stderr)
		return;
	held = open_memstream(&held_buf, &held_len);
	if (!held)
		return; /* printed as they come, then: raw, but printed */
	real_stderr = stderr;
	stderr = held;
}

void bt_err_hold_end(void)
{
	char *line, *next;
	size_t plen = strlen(progname);

	if (!real_stderr)
		return;
	stderr = real_stderr;
	real_stderr = NULL;
	fclose(held);
	held = NULL;
	for (line = held_buf; line && *line; line = next) {
		size_t n;

		next = strchr(line, '\n');
		n = next ? (size_t)(next - line) : strlen(line);
		next = next ? next + 1 : line + n;
		if (!strncmp(line, progname, plen) && !strncmp(line + plen, ": ", 2)) {
			/* "funccount: unrecognized option '--x'": printed as our own messages are */
			message(progname, "", line + plen + 2, n - plen - 2);
		} else if (!json_mode) {
			/* the usage synopsis and the "Try `CMD --help'" hint: text only */
			flockfile(stderr);
			put_line(stderr, line, n);
			fputc('\n', stderr);
			funlockfile(stderr);
		}
	}
	free(held_buf);
	held_buf = NULL;
	held_len = 0;
}

static void vreport(const char *prefix, const char *fmt, va_list ap)
{
	bt_vmessage(progname, prefix, fmt, ap);
}

void bt_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("", fmt, ap);
	va_end(ap);
}

void bt_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("warning: ", fmt, ap);
	va_end(ap);
}

void bt_note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(json_mode ? "info: " : "", fmt, ap);
	va_end(ap);
}

void bt_banner(FILE *out, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (json_mode) {
		char *msg = NULL;
		int n = vasprintf(&msg, fmt, ap);

		/* the text's line ends are the writer's business, not the message's */
		while (n > 0 && msg[n - 1] == '\n')
			msg[--n] = '\0';
		if (n >= 0)
			json_line(progname, "info", msg, n);
		free(msg);
	} else {
		vfprintf(out, fmt, ap);
	}
	va_end(ap);
}

int bt_usage_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("", fmt, ap);
	va_end(ap);
	return -BT_EUSAGE;
}

/* The maps user options size (bt_map_sized_by), and the last one libbpf failed to create. */
#define BT_SIZED_MAPS 8
static struct {
	char map[64];
	char *what;
} sized[BT_SIZED_MAPS];
static char failed_map[64];
static int failed_err;

void bt_map_sized_by(const char *map, const char *fmt, ...)
{
	va_list ap;
	size_t i;

	for (i = 0; i < BT_SIZED_MAPS; i++)
		if (!sized[i].what || !strcmp(sized[i].map, map))
			break;
	if (i == BT_SIZED_MAPS)
		return;
	free(sized[i].what);
	sized[i].what = NULL;
	snprintf(sized[i].map, sizeof(sized[i].map), "%s", map);
	va_start(ap, fmt);
	if (vasprintf(&sized[i].what, fmt, ap) < 0)
		sized[i].what = NULL;
	va_end(ap);
}

void bt_load_err(int err)
{
	size_t i;

	for (i = 0; failed_map[0] && i < BT_SIZED_MAPS && sized[i].what; i++) {
		if (strcmp(sized[i].map, failed_map))
			continue;
		bt_err("the kernel refused %s: %s", sized[i].what,
		       bt_strerror(failed_err ? failed_err : -err));
		return;
	}
	bt_err("cannot load the BPF programs: %s", bt_strerror(-err));
}

/* libbpf's "map 'NAME': failed to create: WHY(-ERR)", noted for bt_load_err() */
static void note_map_failure(const char *fmt, va_list ap)
{
	char msg[256], name[64];
	int err;

	if (!strstr(fmt, "failed to create: "))
		return;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (sscanf(msg, "libbpf: map '%63[^']': failed to create: %*[^(](%d)", name, &err) == 2) {
		snprintf(failed_map, sizeof(failed_map), "%s", name);
		failed_err = err < 0 ? -err : err;
	}
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char *msg = NULL;
	va_list copy;
	int n;

	va_copy(copy, ap);
	note_map_failure(fmt, copy);
	va_end(copy);
	if (!debug_on)
		return 0;
	if (!json_mode)
		return vfprintf(err_out(), fmt, ap);
	n = vasprintf(&msg, fmt, ap);
	while (n > 0 && msg[n - 1] == '\n')
		msg[--n] = '\0';
	if (n >= 0)
		json_line("libbpf", "debug", msg, n);
	free(msg);
	return n;
}

void bt_set_debug(bool on)
{
	debug_on = on || bt_env_flag("BPFTOOLS_DEBUG");
	libbpf_set_print(libbpf_print);
}

bool bt_debug_enabled(void)
{
	return debug_on;
}

void bt_debug(const char *fmt, ...)
{
	va_list ap;

	if (!debug_on)
		return;
	va_start(ap, fmt);
	vreport("debug: ", fmt, ap);
	va_end(ap);
}

int bt_exit_code(int ret)
{
	if (ret == 0)
		return BT_EXIT_OK;
	return ret == -BT_EUSAGE ? BT_EXIT_USAGE : BT_EXIT_FAIL;
}
