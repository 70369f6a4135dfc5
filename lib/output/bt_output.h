/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Output streams that remember why a write failed. stdio keeps only a sticky flag (ferror):
 * the errno of a write that failed inside a printf() is gone by the time anyone looks, and
 * glibc drops the buffer it could not write, so a final fflush() succeeds and a full disk,
 * /dev/full or a closed stdout would end with exit 0 and no output. A stream from here writes
 * through a cookie that keeps the first write error, for main() (stdout) and for the files
 * the tools write (--flamegraph, --pprof, bpftools flamegraph -o).
 */
#ifndef BT_OUTPUT_H
#define BT_OUTPUT_H

#include <stdio.h>

/*
 * Make stdout such a stream (line-buffered on a terminal, as before), and keep descriptors
 * 0-2 taken when they came closed: the first descriptor the tool opens would otherwise become
 * its stdout. A closed stdout is held by /dev/null opened read-only, so writes fail with EBADF
 * as they would have. 0, or -errno (stdout is left as it was).
 */
int bt_output_init(void);

/* fopen(path, "w") through such a stream; NULL with errno set. */
FILE *bt_output_open(const char *path);

/* The descriptor under f, for streams from here as for any other (fileno()). */
int bt_output_fd(FILE *f);

/*
 * Flush f; 0, or the -errno of the first write to it that failed. For a stream not from here
 * that reported an error whose cause is lost, -EIO.
 */
int bt_output_flush(FILE *f);

/* bt_output_flush(), then fclose(); the first error of the two. */
int bt_output_close(FILE *f);

/*
 * Replace the file at path whole: fill(f, ctx) writes into a temporary ".NAME.XXXXXX" beside it
 * (such a stream), synced, then renamed over path, so that a reader (node_exporter's textfile
 * collector) sees the old file or the new one, never half of one. Mode 0644. 0, or the -errno
 * of the first step that failed, or fill()'s negative return; the temporary is removed then.
 */
int bt_output_replace(const char *path, int (*fill)(FILE *f, void *ctx), void *ctx);

#endif
