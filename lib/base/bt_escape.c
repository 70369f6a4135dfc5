// SPDX-License-Identifier: GPL-2.0
#include <string.h>

#include "bt_escape.h"

size_t bt_utf8_len(const char *s, size_t avail)
{
	const unsigned char *p = (const unsigned char *)s;
	unsigned char lo = 0x80, hi = 0xbf; /* the range of the second byte */
	size_t n, i;

	if (!avail)
		return 0;
	if (*p >= 0xc2 && *p <= 0xdf)
		n = 2;
	else if (*p >= 0xe0 && *p <= 0xef)
		n = 3;
	else if (*p >= 0xf0 && *p <= 0xf4)
		n = 4;
	else
		return 0;
	if (n > avail)
		return 0;
	if (*p == 0xe0)
		lo = 0xa0;
	else if (*p == 0xed)
		hi = 0x9f;
	else if (*p == 0xf0)
		lo = 0x90;
	else if (*p == 0xf4)
		hi = 0x8f;
	if (p[1] < lo || p[1] > hi)
		return 0;
	for (i = 2; i < n; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0; /* also stops at a NUL */
	return n;
}

size_t bt_escape_keep(const char *s, size_t len, unsigned int flags)
{
	unsigned char c = s[0];
	size_t n;

	if (c < 0x20 || c == 0x7f || (c == ';' && (flags & BT_ESC_FOLDED)))
		return 0;
	if (c < 0x80)
		return 1;
	n = bt_utf8_len(s, len);
	/* U+0080-U+009F: C1 controls (CSI is U+009B), which some terminals act on */
	if (n == 2 && c == 0xc2 && (unsigned char)s[1] < 0xa0)
		return 0;
	return n;
}

static void classify(const char *s, size_t len, size_t i, unsigned int flags, size_t *n)
{
	*n = bt_escape_keep(s + i, len - i, flags);
}

size_t bt_escape(char *dst, size_t size, const char *s, size_t len, unsigned int flags)
{
	static const char hex[] = "0123456789abcdef";
	size_t i = 0, pos = 0, n;

	if (!size)
		return 0;
	while (i < len && s[i]) {
		classify(s, len, i, flags, &n);
		if (pos + (n ? n : 4) >= size)
			break;
		if (n) {
			memcpy(dst + pos, s + i, n);
			pos += n;
			i += n;
			continue;
		}
		dst[pos++] = '\\';
		dst[pos++] = 'x';
		dst[pos++] = hex[(unsigned char)s[i] >> 4];
		dst[pos++] = hex[(unsigned char)s[i] & 15];
		i++;
	}
	dst[pos] = '\0';
	return pos;
}

const char *bt_esc(char *buf, size_t size, const char *s, size_t len)
{
	bt_escape(buf, size, s, len, 0);
	return buf;
}

void bt_escape_put(FILE *f, const char *s, size_t len, unsigned int flags)
{
	size_t i = 0, n;

	while (i < len && s[i]) {
		classify(s, len, i, flags, &n);
		if (n) {
			fwrite(s + i, 1, n, f);
			i += n;
		} else {
			fprintf(f, "\\x%02x", (unsigned char)s[i++]);
		}
	}
}

bool bt_escape_needed(const char *s, size_t len, unsigned int flags)
{
	size_t i = 0, n;

	while (i < len && s[i]) {
		classify(s, len, i, flags, &n);
		if (!n)
			return true;
		i += n;
	}
	return false;
}

const char *bt_xml_entity(char c)
{
	switch (c) {
	case '&':
		return "&amp;";
	case '<':
		return "&lt;";
	case '>':
		return "&gt;";
	case '"':
		return "&quot;";
	default:
		return NULL;
	}
}

void bt_xml_put(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (bt_xml_entity(*s))
			fputs(bt_xml_entity(*s), out);
		else
			fputc(*s, out);
	}
}
