/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Bounded input. A file the user names (folded stacks, --web-config, --args-file, a PEM file)
 * or standard input is read with a cap on a line and on the whole, checked while reading, so
 * /dev/zero or a runaway writer ends in one clear line rather than in memory without end. A
 * path that names anything but a regular file (a FIFO, a device, a directory) is refused
 * before a byte is read, and without blocking in open(). Standard input may be a pipe: then a
 * read waits in poll() beside the stop signals (bt_input_set_stop()), so Ctrl-C ends it.
 */
#ifndef BT_INPUT_H
#define BT_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* The bounds of the inputs read here (each in the security documentation with its value). */
#define BT_FOLDED_LINE_MAX (1U << 20)	 /* a folded line: 1 MiB */
#define BT_FOLDED_INPUT_MAX (1ULL << 30) /* a whole folded input: 1 GiB */
#define BT_CONFIG_LINE_MAX (64U << 10)	 /* a line of --web-config: 64 KiB */
#define BT_CONFIG_FILE_MAX (1U << 20)	 /* --web-config, a PEM file: 1 MiB */
#define BT_ARGS_FILE_MAX (64U << 10)	 /* --args-file: 64 KiB */

/*
 * lib/run's stop signals, for the reads here: fd polls readable when one has arrived, and
 * stopped(pipe) reads it and says whether to stop (pipe: the input is a pipe, whose writer
 * may be ending on the same Ctrl-C). Unset (unit tests): reads are never stopped.
 */
void bt_input_set_stop(int fd, bool (*stopped)(bool pipe));

/* Lines of a file or of standard input, within bounds. */
struct bt_lines {
	const char *name; /* for messages: the path, or "standard input" */
	int fd;
	FILE *f; /* read through this instead (bt_lines_from()): no poll, no stop */
	bool own, pipe;
	size_t max_line;
	unsigned long long max_total, total;
	long lineno;
	char *buf;
	size_t cap, start, end;
	bool eof;
};

/*
 * Open path ("-" or NULL: standard input, of any kind) for bt_lines_next(): a path must name
 * a regular file. 0, or -errno said on stderr ("cannot read 'x': not a regular file (a
 * FIFO)").
 */
int bt_lines_open(struct bt_lines *l, const char *path, size_t max_line,
		  unsigned long long max_total);
/* The lines of an open stream (name for messages). */
void bt_lines_from(struct bt_lines *l, FILE *f, const char *name, size_t max_line,
		   unsigned long long max_total);
/*
 * The next line, without its '\n', NUL-terminated (a NUL inside it ends it for C; *len says
 * all), valid until the next call. 1, 0 at the end, or -errno said on stderr: -EFBIG for a
 * line or an input past its bound, -EINTR (not said) when a stop signal ended the read.
 */
int bt_lines_next(struct bt_lines *l, char **line, size_t *len);
void bt_lines_close(struct bt_lines *l);

/*
 * A whole regular file of at most max bytes, NUL-terminated, into *text (the caller frees it)
 * and *len. 0, or -errno said on stderr (-EFBIG past max; what names the file in the
 * messages: "web configuration 'x'").
 */
int bt_read_file(const char *path, const char *what, size_t max, char **text, size_t *len);

/*
 * An arguments file (--args-file) as a command line's words: a regular file of at most
 * BT_ARGS_FILE_MAX bytes, text only (no NUL, no control byte but a tab or line end, UTF-8:
 * anything else, a binary or /dev/urandom's bytes in a file, is refused quoting its line
 * escaped), # comments to the end of a line, words between blanks. *argv (name first, then the
 * words, NULL-ended; *argc of them) points into *text: the caller frees both. 0, or -errno said
 * on stderr (-BT_EUSAGE: not text).
 */
int bt_read_args_file(const char *path, const char *name, char **text, char ***argv, int *argc);

/* "1 MiB", "64 KiB": a bound as the messages say it. */
const char *bt_size_str(char *buf, size_t size, unsigned long long bytes);

#endif
