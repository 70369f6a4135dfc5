/* SPDX-License-Identifier: GPL-2.0 */
#ifndef BT_COMPLETION_H
#define BT_COMPLETION_H

#include <stdio.h>

/* Print the completion script for "bash", "zsh" or "fish", generated from the registry. */
int bt_completion_print(FILE *out, const char *shell);

#endif
