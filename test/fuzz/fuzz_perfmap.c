// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target over the perf map reader (symbolize/perfmap.c): the input is a map written
 * in two appends and then rewritten shorter (the first byte says where the cuts are), read
 * after each step at clock times the input picks. Whatever the bytes, every lookup either
 * misses or gives a name of one line within the length bound and an offset no larger than
 * the address, without crashing, leaking or hanging.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sym_internal.h"

static void check_lookups(const struct bt_perfmap *pm, const char *text, size_t size)
{
	size_t i;

	for (i = 0; i < size && i < 4096; i += 7) {
		/* the input's own numbers (a line's start, as likely as not) and its raw bytes */
		uint64_t addrs[2] = { strtoull(text + i, NULL, 16), 0 }, off;
		size_t k;

		if (i + 8 <= size)
			memcpy(&addrs[1], text + i, 8);
		for (k = 0; k < 2; k++) {
			const char *name = bt_perfmap__lookup(pm, addrs[k], &off);

			if (name && (strchr(name, '\n') || strlen(name) > BT_PERFMAP_MAX_LINE ||
				     off > addrs[k]))
				abort();
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bt_perfmap *pm = NULL;
	struct bt_perfmap_stats st;
	char path[64], *text;
	size_t cut1, cut2;
	uint64_t t = 1000000000ull;
	int fd;

	if (size < 2)
		return 0;
	cut1 = (data[0] * size) / 256;
	cut2 = cut1 + (data[1] * (size - cut1)) / 256;
	fd = memfd_create("perfmap", MFD_CLOEXEC);
	if (fd < 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	/* the NUL-terminated copy lets the lookups above read hex digits safely */
	text = malloc(size + 1);
	if (!text || bt_perfmap__open_path(path, &pm))
		goto out;
	memcpy(text, data, size);
	text[size] = 0;
	if (write(fd, text, cut1) != (ssize_t)cut1)
		goto out;
	bt_perfmap__refresh_at(pm, t);
	check_lookups(pm, text, size);
	if (write(fd, text + cut1, cut2 - cut1) != (ssize_t)(cut2 - cut1))
		goto out;
	/* the same second as the first read when the input's third byte is odd */
	bt_perfmap__refresh_at(pm, t + (size > 2 && (data[2] & 1) ? 1 : 2000000000ull));
	check_lookups(pm, text, size);
	if (ftruncate(fd, cut2 / 2) || pwrite(fd, text + cut2, size - cut2, cut2 / 2) < 0)
		goto out;
	bt_perfmap__refresh_at(pm, t + 4000000000ull);
	check_lookups(pm, text, size);
	bt_perfmap__stats(pm, &st);
	if (st.long_lines > size)
		abort();
out:
	bt_perfmap__free(pm);
	free(text);
	close(fd);
	return 0;
}
