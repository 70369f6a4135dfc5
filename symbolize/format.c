// SPDX-License-Identifier: GPL-2.0
/* The printed forms of a frame: name, name+0xoff, raw address, [unknown] and why. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "bt_sym.h"

const char *bt_sym_reason__str(enum bt_sym_reason r)
{
	switch (r) {
	case BT_SYM_OK:
		return "ok";
	case BT_SYM_NO_SYMBOL:
		return "no symbol";
	case BT_SYM_STRIPPED:
		return "stripped";
	case BT_SYM_NO_MAPPING:
		return "not mapped";
	case BT_SYM_PROCESS_GONE:
		return "process gone";
	case BT_SYM_NO_PERMISSION:
		return "no permission";
	case BT_SYM_BAD_FILE:
		return "bad or changed file";
	case BT_SYM_NO_KSYMS:
		return "no kallsyms";
	}
	return "unknown";
}

struct out {
	char *buf;
	size_t len, pos;
};

static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(o->pos < o->len ? o->buf + o->pos : NULL,
		      o->pos < o->len ? o->len - o->pos : 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->pos += n;
}

const char bt_sym_python[] = "[python]";
const char bt_sym_python_unread[] = "[python: frames unread]";

int bt_frame__is_python(const struct bt_frame *f)
{
	/* the array itself, never a file's name that happens to read the same */
	return f && f->module == BT_SYM_PYTHON;
}

int bt_frame__format(const struct bt_frame *f, unsigned int flags, char *buf, size_t len)
{
	struct out o = { buf, len, 0 };

	if (buf && len)
		buf[0] = 0;
	if (!f)
		return 0;
	if (!buf)
		o.len = 0;
	if (flags & BT_FMT_ADDR)
		put(&o, "%#" PRIx64 " ", f->addr);
	if (bt_frame__is_python(f)) {
		/* "qualname (file.py:line)": where in the source is the point of such a frame */
		if (!f->name)
			put(&o, "[unknown python]");
		else if (f->name == bt_sym_python_unread)
			put(&o, "%s", f->name);
		else if (f->line)
			put(&o, "%s (%s:%u)", f->name, f->file ? f->file : "?", f->line);
		else
			put(&o, "%s (%s)", f->name, f->file ? f->file : "?");
		if ((flags & BT_FMT_REASON) && f->reason != BT_SYM_OK)
			put(&o, " (%s)", bt_sym_reason__str(f->reason));
		return o.pos;
	}
	if (f->name) {
		put(&o, "%s", f->name);
		if ((flags & BT_FMT_OFFSET) && !f->inlined)
			put(&o, "+0x%" PRIx64, f->offset); /* "+0x0", as BCC prints it */
	} else {
		put(&o, "[unknown]");
	}
	if ((flags & BT_FMT_MODULE) && f->module) {
		const char *base = strrchr(f->module, '/');

		put(&o, " [%s]", base ? base + 1 : f->module);
	}
	if (f->inlined)
		put(&o, " (inlined)");
	if ((flags & BT_FMT_SOURCE) && f->file)
		put(&o, f->line ? " at %s:%u" : " at %s", f->file, f->line);
	if ((flags & BT_FMT_REASON) && f->reason != BT_SYM_OK)
		put(&o, " (%s)", bt_sym_reason__str(f->reason));
	return o.pos;
}
