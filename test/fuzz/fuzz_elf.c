// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target over the ELF reader: whatever the bytes, bt_elf__open either refuses them
 * or gives a handle whose every call returns without crashing or leaking.
 */
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bt_elf.h"

static int cb(const struct bt_elf_sym *s, void *ctx)
{
	uint64_t *sum = ctx;

	/* touch every field, so that a dangling name is a crash here under ASan */
	*sum += s->vaddr + s->size + s->kind + s->bind + s->name[0] +
		(s->version ? s->version[0] : 0);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bt_elf *elf = NULL;
	const struct bt_elf_sym *s;
	uint64_t sum = 0, off, v;
	int fd = memfd_create("fuzz", MFD_CLOEXEC);

	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size ||
	    bt_elf__open_fd(fd, "/fuzz/input", NULL, &elf)) {
		close(fd);
		return 0;
	}
	close(fd);
	bt_elf__type(elf);
	bt_elf__build_id(elf);
	bt_elf__has_symbols(elf);
	bt_elf__foreach_func(elf, cb, &sum);
	s = bt_elf__find_func(elf, "main");
	for (off = 0; off < 0x4000; off += 0x3f1) {
		s = bt_elf__lookup(elf, off + (s ? s->vaddr : 0), &v);
		if (s)
			sum += s->name[0] + v;
		if (!bt_elf__offset_to_vaddr(elf, off, &v))
			bt_elf__vaddr_to_offset(elf, v, &v);
	}
	bt_elf__unload(elf);
	bt_elf__lookup(elf, 0x1000, NULL);
	bt_elf__close(elf);
	return sum == 42 ? 0 : 0;
}
