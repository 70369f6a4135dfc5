// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/PID/maps lines: "start-end perms offset major:minor inode   path", and when a process
 * started, from /proc/PID/stat.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bt_sym.h"
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

int bt_procmaps__read_line(FILE *f, char *buf, size_t len)
{
	size_t n;
	int c;

	if (!fgets(buf, len, f))
		return 0;
	n = strlen(buf);
	if (n && buf[n - 1] == '\n')
		return 1;
	if (feof(f))
		return 1; /* the last line, without its newline */
	/* longer than any line the kernel writes: the rest of it is read and dropped */
	while ((c = getc(f)) != EOF && c != '\n')
		;
	return -E2BIG;
}

int bt_proc_start_ns(int pid, uint64_t *ns)
{
	unsigned long long ticks;
	long hz = sysconf(_SC_CLK_TCK);
	char path[64], buf[1024], *p;
	ssize_t n;
	int fd, i;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0 || hz <= 0)
		return -ESRCH;
	buf[n] = 0;
	/* the name may hold spaces and parentheses: the fields count from its last ')' */
	p = strrchr(buf, ')');
	for (i = 2; p && i < 22; i++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p + 1, "%llu", &ticks) != 1)
		return -EINVAL;
	*ns = ticks * (1000000000ULL / hz);
	return 0;
}

int bt_proc_same_start(uint64_t a, uint64_t b)
{
	long hz = sysconf(_SC_CLK_TCK);
	uint64_t tick = 1000000000ULL / (hz > 0 ? hz : 100);

	return a + tick >= b && b + tick >= a;
}
