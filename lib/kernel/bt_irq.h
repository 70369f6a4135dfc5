/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Hard IRQ lines and their handlers (actions) as the kernel has them now, through sysfs
 * (/sys/kernel/irq/N/actions, on kernels built with CONFIG_SPARSE_IRQ, as every distribution's
 * is): what the exporter's hardirqs collector makes known at 0 before a handler first runs.
 */
#ifndef BT_IRQ_H
#define BT_IRQ_H

/*
 * The most IRQ lines one walk reads: each is a file read, and a walk runs at every scrape.
 * Machines with thousands of MSI-X vectors exist; past this, the rest are left out.
 */
#define BT_IRQ_MAX_LINES 4096

/*
 * fn(ctx, irq, name) for each handler name of each IRQ line (a line shared by several
 * handlers gives each; a line without one gives none), at most BT_IRQ_MAX_LINES lines, in no
 * particular order; a name may come from more than one line. The kernel joins a line's names
 * with ',', so a name holding one comes as two. Stops at fn's first non-zero, which it
 * returns. 0, or -errno when the list cannot be read.
 */
int bt_irq_each_action(int (*fn)(void *ctx, unsigned int irq, const char *name), void *ctx);

/* Read sysfs under root instead of "/sys" (unit tests); NULL: back to "/sys". */
void bt_irq_set_sysfs(const char *root);

#endif
