// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target over the separate debug file lookup (symbolize/elf_debug.c): the
 * .gnu_debuglink name and CRC, the build-id note, and the paths they derive, under a root of
 * our own that holds the fixtures' debug file where fx_stripped's link names it. Whatever the
 * bytes, every path found is one inside the root (absolute, resolved in it by bt_procfile) and
 * names no "." or ".." component: the link's name cannot climb out of its directory.
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf_internal.h"

static char root[PATH_MAX];

static void copy_file(const char *from, const char *to)
{
	char buf[65536];
	FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
	size_t n;

	while (in && out && (n = fread(buf, 1, sizeof(buf), in)) > 0)
		fwrite(buf, 1, n, out);
	if (in)
		fclose(in);
	if (out)
		fclose(out);
}

/* the directory made for the run, gone with it (libFuzzer ends with exit()) */
static void remove_root(void)
{
	char p[PATH_MAX + 32];

	snprintf(p, sizeof(p), "%s/fuzz/fx_stripped.debug", root);
	unlink(p);
	snprintf(p, sizeof(p), "%s/fuzz", root);
	rmdir(p);
	rmdir(root);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *debug = getenv("BT_FUZZ_DEBUG_FILE");
	char dir[PATH_MAX + 32];

	(void)argc;
	(void)argv;
	snprintf(root, sizeof(root), "/tmp/bt-fuzz-root-XXXXXX");
	if (!mkdtemp(root))
		abort();
	atexit(remove_root);
	snprintf(dir, sizeof(dir), "%s/fuzz", root);
	mkdir(dir, 0755);
	if (debug) {
		snprintf(dir, sizeof(dir), "%s/fuzz/fx_stripped.debug", root);
		copy_file(debug, dir);
	}
	return 0;
}

static void check_path(const char *p)
{
	size_t n;

	if (!p)
		return;
	n = strlen(p);
	if (p[0] != '/' || strstr(p, "/../") || strstr(p, "/./") ||
	    (n >= 3 && !strcmp(p + n - 3, "/..")) || (n >= 2 && !strcmp(p + n - 2, "/.")))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bt_elf *elf = NULL;
	char *path;
	int fd = memfd_create("fuzz", MFD_CLOEXEC);

	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size ||
	    bt_elf__open_fd(fd, "/fuzz/input", root, &elf)) {
		close(fd);
		return 0;
	}
	close(fd);
	path = bt_elf__find_debug_file(elf);
	check_path(path);
	free(path);
	/* the symbols through whatever was found, then the path it kept */
	bt_elf__has_symbols(elf);
	check_path(bt_elf__debug_file(elf));
	bt_elf__lookup(elf, 0x1000, NULL);
	bt_elf__close(elf);
	return 0;
}
