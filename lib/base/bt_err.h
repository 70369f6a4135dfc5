/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Errors and exit codes. Messages go to stderr as "CMD: what failed: why", lower-case, no full
 * stop, the subject in single quotes. Library code returns -errno; -BT_EUSAGE marks bad user
 * input so that main() can exit 2 instead of 1.
 */
#ifndef BT_ERR_H
#define BT_ERR_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

#define BT_EXIT_OK 0
#define BT_EXIT_FAIL 1
#define BT_EXIT_USAGE 2

/* Outside the errno range, so it never collides with a kernel error. */
#define BT_EUSAGE 4095

void bt_set_progname(const char *name);
const char *bt_progname(void);
/*
 * The command line as run ("offcputime -p 42 5"), words joined by spaces, at most 255 bytes:
 * what a flame graph's subtitle says was traced. "" until set.
 */
void bt_set_cmdline(int argc, char *const argv[]);
const char *bt_cmdline(void);

void bt_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * "WHO: PREFIXmessage\n" on stderr, as every error line is printed: control characters in
 * the message escaped (\xNN) and a message over 1 KiB shortened in the middle, so that what
 * the user typed can neither break the line nor flood the terminal.
 */
void bt_vmessage(const char *who, const char *prefix, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));
void bt_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Like bt_err(), and returns -BT_EUSAGE so callers can `return bt_usage_err(...)`. */
int bt_usage_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * JSON mode (--json, through the shared option handling): every message above and below, and
 * bt_note()/bt_banner(), becomes one JSON object on a line of stderr,
 *	{"level": "error", "command": "funccount", "message": "cannot find 'x'"}
 * with level "error", "warning", "info" or "debug", so that a consumer of the JSON on stdout
 * can read stderr the same way. bt_args_parse() turns JSON mode on before parsing when the
 * command line has --json, so that usage errors found before it are JSON too.
 */
void bt_set_json_mode(bool on);
bool bt_json_mode(void);
/*
 * Around argp_parse(): what argp and getopt print themselves ("CMD: unrecognized option
 * '--x'", "option requires an argument", the usage hint) is held back, then printed as ours
 * are: control characters escaped, and as JSON objects in JSON mode (without the hint).
 * Messages printed through this file meanwhile go out at once.
 */
void bt_err_hold_begin(void);
void bt_err_hold_end(void);
/* "CMD: message" on stderr: progress and facts that are neither data nor a problem. */
void bt_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * A tool's start-up banner ("Tracing ... Hit Ctrl-C to end."): text on out (stdout, or stderr
 * when stdout holds data only), or an info line on stderr in JSON mode.
 */
void bt_banner(FILE *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Debug output (-D/--debug, or BPFTOOLS_DEBUG=1 in the environment), libbpf's included. */
void bt_set_debug(bool on);
bool bt_debug_enabled(void);
void bt_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Maps whose size a user option sets (a ring buffer by -b, the stack maps by
 * --stack-storage-size): when the kernel refuses to create one, the load error names the option
 * rather than only saying "cannot load the BPF programs: Invalid argument". what is how the
 * refusal reads: "a ring buffer of 4096 MiB (-b 1048576)". Up to 8 maps; the strings are copied.
 */
void bt_map_sized_by(const char *map, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/*
 * The one line for a failed bpf_object__load(): "the kernel refused WHAT: why" when libbpf
 * reported that it could not create a map registered above, else "cannot load the BPF
 * programs: why".
 */
void bt_load_err(int err);

/* The exit status for a command's return value. */
int bt_exit_code(int ret);

#endif
