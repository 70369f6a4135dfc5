// SPDX-License-Identifier: GPL-2.0
/* The attach progress line (lib/output/bt_progress.h). */
#include "bt_err.h"
#include "bt_progress.h"

static void draw(struct bt_progress *p)
{
	fprintf(p->out, "\r%s: attaching %zu/%zu probes...", bt_progname(), p->done, p->total);
	fflush(p->out);
	p->shown = p->done;
	p->drawn = true;
}

void bt_progress_begin(struct bt_progress *p, FILE *out, bool tty, size_t total)
{
	*p = (struct bt_progress){ .out = out, .total = total };
	p->on = tty && total > BT_PROGRESS_MIN;
	if (p->on)
		draw(p);
}

void bt_progress_add(struct bt_progress *p, size_t n)
{
	if (!p)
		return;
	p->done += n;
	if (p->done > p->total)
		p->done = p->total;
	/* every 2% (and the last one): a few dozen writes for any number of probes */
	if (p->on && (!p->drawn || p->done == p->total || (p->done - p->shown) * 50 >= p->total))
		draw(p);
}

void bt_progress_clear(struct bt_progress *p)
{
	if (!p || !p->drawn)
		return;
	fputs("\r\033[K", p->out);
	fflush(p->out);
	p->drawn = false;
}
