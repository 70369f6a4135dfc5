// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target over the /proc/PID/maps reader (symbolize/procmaps.c): lines read through
 * the bounded line reader, each parsed in place. Whatever the bytes, a parsed line has
 * start <= end and a path inside the line, and no line over the bound is handed out.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sym_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* a small buffer as well as the real one: the over-long path is taken often */
	size_t len = size && (data[0] & 1) ? 64 : BT_PROC_MAX_LINE + 1;
	char *line = malloc(len);
	struct bt_map_line ml;
	FILE *f;
	int r;

	if (!line || !size || !(f = fmemopen((void *)data, size, "r"))) {
		free(line);
		return 0;
	}
	while ((r = bt_procmaps__read_line(f, line, len))) {
		if (r < 0)
			continue;
		if (strlen(line) >= len)
			abort();
		if (bt_procmaps__parse_line(line, &ml))
			continue;
		if (ml.start > ml.end || !ml.path || ml.path < line || ml.path > line + len ||
		    strchr(ml.path, '\n'))
			abort();
	}
	fclose(f);
	free(line);
	return 0;
}
