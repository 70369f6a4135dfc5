// SPDX-License-Identifier: GPL-2.0
/* /proc/PID/maps lines: "start-end perms offset major:minor inode   path". */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sym_internal.h"

static int hexfield(char **p, char stop, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(*p, &end, 16);
	if (end == *p || *end != stop || errno)
		return -EINVAL;
	*p = end + 1;
	return 0;
}

int bt_procmaps__parse_line(char *line, struct bt_map_line *out)
{
	uint64_t maj, min;
	char *p = line, *end;
	size_t len;

	memset(out, 0, sizeof(*out));
	if (hexfield(&p, '-', &out->start) || hexfield(&p, ' ', &out->end) || out->end < out->start)
		return -EINVAL;
	if (strlen(p) < 5 || p[4] != ' ')
		return -EINVAL;
	memcpy(out->perms, p, 4);
	p += 5;
	if (hexfield(&p, ' ', &out->pgoff) || hexfield(&p, ':', &maj) || hexfield(&p, ' ', &min))
		return -EINVAL;
	out->dev_major = maj;
	out->dev_minor = min;
	errno = 0;
	out->ino = strtoull(p, &end, 10);
	if (end == p || errno)
		return -EINVAL;
	p = end + strspn(end, " \t");
	len = strcspn(p, "\n");
	p[len] = 0;
	if (len > 10 && !strcmp(p + len - 10, " (deleted)"))
		p[len - 10] = 0; /* map_files still reaches the deleted file */
	out->path = p;
	return 0;
}
