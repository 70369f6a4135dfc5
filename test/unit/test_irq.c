// SPDX-License-Identifier: GPL-2.0
/* IRQ handler names (lib/kernel/bt_irq.c) on a sysfs tree built in a temporary directory. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bt_irq.h"
#include "fake_tree.h"
#include "harness.h"

/* irq N with this actions file (NULL: a directory without one) */
static void line(unsigned int irq, const char *actions)
{
	char rel[64];

	snprintf(rel, sizeof(rel), "kernel/irq/%u", irq);
	mk(rel);
	if (!actions)
		return;
	snprintf(rel, sizeof(rel), "kernel/irq/%u/actions", irq);
	put_file(rel, actions);
}

/*
 * As the kernel writes it: the names joined by ',' and a newline; an empty file for a line
 * without handlers. Beside the lines, a file that is no line.
 */
static void make_tree(void)
{
	/* test_bound's 4,096 directories cost seconds on a busy disk, not on tmpfs */
	snprintf(root, sizeof(root), "/dev/shm/bt_irq_test.XXXXXX");
	if (!mkdtemp(root)) {
		snprintf(root, sizeof(root), "/tmp/bt_irq_test.XXXXXX");
		if (!mkdtemp(root))
			abort();
	}
	mk("kernel");
	mk("kernel/irq");
	line(0, "timer\n");
	line(9, "acpi,ahci[0000:00:1f.2],i801_smbus\n");
	line(24, "ACPI:Ged\n");
	line(25, "ACPI:Ged\n");
	line(27, "");
	line(36, "virtio1-req.0\n");
	line(40, NULL);
	line(41, "\"quoted\" \\name\n");
	put_file("kernel/irq/uevent", "x,y\n");
	mk("kernel/irq/x9");
	put_file("kernel/irq/x9/actions", "not-a-line\n");
	bt_irq_set_sysfs(root);
}

static void remove_tree(void)
{
	char cmd[128];

	bt_irq_set_sysfs(NULL);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd))
		fprintf(stderr, "cannot remove %s\n", root);
}

struct seen {
	char names[16][64];
	unsigned int irqs[16];
	int n, stop_at;
};

static int note(void *ctx, unsigned int irq, const char *name)
{
	struct seen *s = ctx;

	if (s->n < 16) {
		snprintf(s->names[s->n], sizeof(s->names[0]), "%s", name);
		s->irqs[s->n] = irq;
	}
	return ++s->n == s->stop_at ? 7 : 0;
}

/* How often (irq, name) came; irq -1: from any line. */
static int count(const struct seen *s, int irq, const char *name)
{
	int i, n = 0;

	for (i = 0; i < s->n && i < 16; i++)
		n += (irq < 0 || s->irqs[i] == (unsigned int)irq) && !strcmp(s->names[i], name);
	return n;
}

static void test_each(void)
{
	struct seen s = { .stop_at = -1 };

	CHECK_INT(bt_irq_each_action(note, &s), 0);
	CHECK_INT(s.n, 8);
	CHECK_INT(count(&s, 0, "timer"), 1);
	CHECK_INT(count(&s, 9, "acpi"), 1); /* a shared line: each of its handlers */
	CHECK_INT(count(&s, 9, "ahci[0000:00:1f.2]"), 1);
	CHECK_INT(count(&s, 9, "i801_smbus"), 1);
	CHECK_INT(count(&s, 24, "ACPI:Ged"), 1); /* one name, two lines: each says so */
	CHECK_INT(count(&s, 25, "ACPI:Ged"), 1);
	CHECK_INT(count(&s, 36, "virtio1-req.0"), 1);	  /* no newline kept */
	CHECK_INT(count(&s, 41, "\"quoted\" \\name"), 1); /* as the kernel has it */
	CHECK_INT(count(&s, -1, ""), 0);		  /* line 27 has no handler */
	CHECK_INT(count(&s, -1, "not-a-line"), 0);
	s = (struct seen){ .stop_at = 2 };
	CHECK_INT(bt_irq_each_action(note, &s), 7); /* fn's value ends the walk */
	CHECK_INT(s.n, 2);
}

/* A file as long as the buffer: its last name may be cut, so it is left out. */
static void test_long_file(void)
{
	char text[5000];
	struct seen s = { .stop_at = -1 };
	size_t n;

	n = (size_t)snprintf(text, sizeof(text), "first,");
	memset(text + n, 'x', sizeof(text) - n - 1);
	text[sizeof(text) - 1] = '\0';
	line(50, text);
	CHECK_INT(bt_irq_each_action(note, &s), 0);
	CHECK_INT(count(&s, 50, "first"), 1);
	CHECK_INT(s.n, 9); /* the 8 above and "first", not the cut x...x */
	line(50, "");
}

/* At most BT_IRQ_MAX_LINES lines, however many there are. */
static void test_bound(void)
{
	struct seen s = { .stop_at = -1 };
	unsigned int i;

	for (i = 1000; i < 1000 + BT_IRQ_MAX_LINES; i++)
		line(i, "many\n");
	CHECK_INT(bt_irq_each_action(note, &s), 0);
	/* 4,104 names in all; of the lines read, 3 have none and one has 3 */
	CHECK_INT(s.n <= BT_IRQ_MAX_LINES + 2, 1);
	CHECK_INT(s.n >= BT_IRQ_MAX_LINES - 3, 1);
}

static void test_missing(void)
{
	struct seen s = { .stop_at = -1 };

	bt_irq_set_sysfs("/nonexistent/bt_irq_test");
	CHECK(bt_irq_each_action(note, &s) < 0);
	CHECK_INT(s.n, 0);
	bt_irq_set_sysfs(root);
}

static void test_real_sysfs(void)
{
	struct seen s = { .stop_at = -1 };
	int err;

	/* Whatever the machine has: a walk that ends, and no empty name. */
	bt_irq_set_sysfs(NULL);
	err = bt_irq_each_action(note, &s);
	CHECK(err == 0 || s.n == 0);
	CHECK_INT(count(&s, -1, ""), 0);
	bt_irq_set_sysfs(root);
}

int main(void)
{
	make_tree();
	BT_RUN(test_each);
	BT_RUN(test_long_file);
	BT_RUN(test_bound);
	BT_RUN(test_missing);
	BT_RUN(test_real_sysfs);
	remove_tree();
	return bt_test_done();
}
