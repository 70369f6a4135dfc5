/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A progress line while many probes attach: "funccount: attaching 120/370 probes...",
 * rewritten in place with '\r' and erased at the end. Only on a terminal: a log file or a
 * pipe never sees it, so stderr stays one line per message there.
 */
#ifndef BT_PROGRESS_H
#define BT_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define BT_PROGRESS_MIN 100 /* fewer probes attach too fast for a line to be worth it */

struct bt_progress {
	FILE *out;
	size_t done, total, shown;
	bool on;    /* a terminal, and more than BT_PROGRESS_MIN probes */
	bool drawn; /* the line is on the screen */
};

/* Start counting to total; tty says whether out is a terminal (isatty(STDERR_FILENO)). */
void bt_progress_begin(struct bt_progress *p, FILE *out, bool tty, size_t total);
/* n more probes attached (or tried): redrawn every few percent and at the last one. */
void bt_progress_add(struct bt_progress *p, size_t n);
/* Erase the line, before another message or at the end; the next add draws it again. */
void bt_progress_clear(struct bt_progress *p);

#endif
