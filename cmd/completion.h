/* SPDX-License-Identifier: GPL-2.0 */
#ifndef BT_COMPLETION_H
#define BT_COMPLETION_H

#include <stdio.h>

/* Print the completion script for "bash", "zsh" or "fish", generated from the registry. */
int bt_completion_print(FILE *out, const char *shell);

/*
 * The candidates for the last of the n words of a command line (the word under the cursor,
 * maybe empty), one a line, "word" or "word<TAB>description": `bpftools __complete WORDS...`.
 */
int bt_completion_complete(FILE *out, int n, char **w);

#endif
