/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one escaping of names from the traced side (comms, paths, symbol names, a perf map's
 * names): bytes a traced process chose. Printed as they are, an escape sequence clears or
 * retitles the terminal, and a newline or ';' forges lines and frames of folded output that
 * flame graphs and scripts trust. Every output path (text, folded, pprof, error messages) uses
 * bt_escape(): a control byte (0x00-0x1f, 0x7f), a C1 control written as UTF-8
 * (U+0080-U+009F, which some terminals obey) and a byte that starts no well-formed UTF-8
 * sequence become "\xNN"; with BT_ESC_FOLDED a ';' becomes "\x3b" too. Everything else, a
 * backslash included, is kept: an ordinary name prints as BCC prints it, and escaping escaped
 * text changes nothing, so a name may pass through two layers that both escape. (JSON has its
 * own escaping, in bt_json.)
 */
#ifndef BT_ESCAPE_H
#define BT_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define BT_ESC_FOLDED 1U /* ';' too: a frame of a folded line */

/* The most bt_escape() writes for len bytes, its NUL included. */
#define BT_ESC_SIZE(len) (4 * (len) + 1)

/*
 * The escaped form of s (at most len bytes; it ends at a NUL before) into dst (size bytes,
 * always NUL-terminated when size > 0; an escape or a UTF-8 sequence is never cut). Returns
 * the length written.
 */
size_t bt_escape(char *dst, size_t size, const char *s, size_t len, unsigned int flags);
/* bt_escape() into buf, returning buf: for a printf argument. */
const char *bt_esc(char *buf, size_t size, const char *s, size_t len);
/* bt_escape() to f, of any length. */
void bt_escape_put(FILE *f, const char *s, size_t len, unsigned int flags);
/*
 * What bt_escape() does with the first byte of s (len > 0): keeps that many bytes (a
 * character), or, 0, writes it as "\xNN".
 */
size_t bt_escape_keep(const char *s, size_t len, unsigned int flags);
/* True when bt_escape() would change s (at most len bytes). */
bool bt_escape_needed(const char *s, size_t len, unsigned int flags);

/* The entity that stands for c in XML and HTML text ("&amp;" for '&', also < > "), or NULL. */
const char *bt_xml_entity(char c);
/* s to out as XML or HTML text: each of those characters as its entity. */
void bt_xml_put(FILE *out, const char *s);

/*
 * Bytes of the well-formed UTF-8 sequence at p (RFC 3629: no overlong forms, no surrogates,
 * nothing past U+10FFFF; at most avail bytes of it looked at), or 0.
 */
size_t bt_utf8_len(const char *p, size_t avail);

#endif
