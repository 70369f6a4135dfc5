// SPDX-License-Identifier: GPL-2.0
/*
 * symbench: the symbolizer's two performance numbers.
 *  1. first lookup in a new ~100 MB binary (open, read .symtab, sort, one lookup), on a
 *     binary generated here: NFUNCS functions of ~330 bytes each with a full .symtab, so
 *     the size and the symbol count are both realistic; plus the largest library found on
 *     the system (libLLVM, .dynsym only, C++ names) when there is one.
 *  2. cached lookups per second through the whole API: bt_symbolizer__resolve() of stacks
 *     of this process's addresses (libc and this binary), and bt_elf__lookup() alone on the
 *     big binary.
 * usage: symbench [-n NFUNCS] [-k] [extra binary...]   (-k keeps the generated files)
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bt_elf.h"
#include "bt_sym.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int gen_big(const char *dir, int nfuncs, char *out, size_t len)
{
	char src[512], cmd[2048];
	FILE *f;
	int i;

	snprintf(src, sizeof(src), "%s/big.s", dir);
	snprintf(out, len, "%s/big.so", dir);
	f = fopen(src, "w");
	if (!f)
		return -errno;
	fprintf(f, "\t.text\n");
	for (i = 0; i < nfuncs; i++) {
		/* mixed names: C, and C++-mangled like a large C++ code base */
		if (i % 3)
			fprintf(f,
				"\t.globl big_function_number_%d\n\t.type big_function_number_%d,"
				"@function\nbig_function_number_%d:\n\tret\n\t.skip 320, 0x90\n"
				"\t.size big_function_number_%d, .-big_function_number_%d\n",
				i, i, i, i, i);
		else
			fprintf(f,
				"\t.type _ZN5bench6module%dC7Widget4spinEi,@function\n"
				"_ZN5bench6module%dC7Widget4spinEi:\n\tret\n\t.skip 320, 0x90\n"
				"\t.size _ZN5bench6module%dC7Widget4spinEi, "
				".-_ZN5bench6module%dC7Widget4spinEi\n",
				i, i, i, i);
	}
	fclose(f);
	snprintf(cmd, sizeof(cmd), "cc -shared -nostdlib -Wl,--build-id -o %s %s", out, src);
	return system(cmd) ? -EIO : 0;
}

static volatile uint64_t sink;

static void first_lookup(const char *path)
{
	struct bt_elf *elf = NULL;
	const struct bt_elf_sym *s;
	struct stat st;
	double t0, t1, t2;
	uint64_t off, probe;
	size_t n;
	int err;

	if (stat(path, &st))
		return;
	t0 = now();
	err = bt_elf__open(path, NULL, &elf);
	if (err) {
		printf("%s: open failed: %s\n", path, strerror(-err));
		return;
	}
	t1 = now();
	/* the middle of the file, which is .text in a big binary */
	if (bt_elf__offset_to_vaddr(elf, st.st_size / 2, &probe))
		probe = 0;
	s = bt_elf__lookup(elf, probe, &off);
	t2 = now();
	n = bt_elf__nsyms(elf);
	printf("first lookup: %-48s %6.1f MB %8zu syms  open %6.2f ms  open+index+lookup %7.2f ms  "
	       "(%s)\n",
	       path, st.st_size / 1e6, n, (t1 - t0) * 1e3, (t2 - t0) * 1e3, s ? s->name : "-");

	/* cached: random addresses over the whole binary, bt_elf__lookup alone */
	{
		const int iters = 5000000;
		uint64_t x = 88172645463325252ull, span = st.st_size;
		double a, b;
		int i;

		a = now();
		for (i = 0; i < iters; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			s = bt_elf__lookup(elf, x % span, &off);
			sink += s ? off : 0;
		}
		b = now();
		printf("cached bt_elf__lookup on it: %.2f M lookups/s\n", iters / (b - a) / 1e6);
	}
	bt_elf__close(elf);
}

__attribute__((noinline)) static void resolve_bench(void)
{
	uint64_t stack[8] = {
		(uint64_t)(uintptr_t)resolve_bench + 4, (uint64_t)(uintptr_t)first_lookup + 8,
		(uint64_t)(uintptr_t)&printf + 3,	(uint64_t)(uintptr_t)&malloc + 5,
		(uint64_t)(uintptr_t)&fopen + 7,	(uint64_t)(uintptr_t)&qsort + 9,
		(uint64_t)(uintptr_t)&dlsym + 1,	(uint64_t)(uintptr_t)&strtoull + 2,
	};
	struct bt_symbolizer *sym = NULL;
	struct bt_frame fr[8];
	const int iters = 500000;
	double a, b;
	int i, n = 0;

	if (bt_symbolizer__new(NULL, &sym))
		return;
	bt_symbolizer__note_pid(sym, getpid());
	a = now();
	n = bt_symbolizer__resolve(sym, getpid(), stack, 8, BT_RESOLVE_STACK, fr, 8);
	b = now();
	printf("resolve: first stack of 8 in this process (libc, libbt): %.2f ms; e.g. %s, %s\n",
	       (b - a) * 1e3, n > 2 && fr[2].name ? fr[2].name : "?",
	       n > 3 && fr[3].name ? fr[3].name : "?");
	a = now();
	for (i = 0; i < iters; i++)
		sink += bt_symbolizer__resolve(sym, getpid(), stack, 8, BT_RESOLVE_STACK, fr, 8);
	b = now();
	printf("cached bt_symbolizer__resolve: %.2f M addresses/s (%.0f ns per address)\n",
	       iters * 8.0 / (b - a) / 1e6, (b - a) / (iters * 8.0) * 1e9);
	bt_symbolizer__free(sym);
}

int main(int argc, char **argv)
{
	char dir[] = "/tmp/symbench-XXXXXX", big[600];
	int nfuncs = 300000, keep = 0, i, opt;

	while ((opt = getopt(argc, argv, "n:k")) != -1) {
		if (opt == 'n')
			nfuncs = atoi(optarg);
		else if (opt == 'k')
			keep = 1;
	}
	resolve_bench();
	if (!mkdtemp(dir))
		return 1;
	printf("generating %d functions ...\n", nfuncs);
	if (!gen_big(dir, nfuncs, big, sizeof(big))) {
		/* the page cache is warm (we just wrote it): this measures our work, not the disk */
		first_lookup(big);
	}
	for (i = optind; i < argc; i++)
		first_lookup(argv[i]);
	if (optind == argc) {
		first_lookup("/usr/lib/x86_64-linux-gnu/libLLVM-15.so.1");
		first_lookup("/usr/lib/x86_64-linux-gnu/libLLVM-14.so.1");
	}
	if (!keep) {
		char cmd[700];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		if (system(cmd))
			return 1;
	}
	return 0;
}
