// SPDX-License-Identifier: GPL-2.0
/*
 * The bounds on what traced processes' files can make the symbolizer read and keep: perf maps
 * (entries, bytes, line length, re-reads per second) and ELF sections whose headers claim
 * more than the file holds (sparse files). Heavy cases run in a child, whose peak RSS is
 * measured from its own start.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bt_elf.h"
#include "bt_sym.h"
#include "bt_unwind_table.h"
#include "fx_util.h"
#include "harness.h"
#include "sym_internal.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static long maxrss_kib(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

/* What a child measured: the peak RSS it grew by, its time, and its checks' verdict. */
struct measure {
	long rss_kib;
	double secs;
	int failed;
};

/* Run fn in a child: its peak RSS growth and time, and whether its CHECKs held. */
static struct measure in_child(void (*fn)(void *), void *arg)
{
	struct measure m = { .failed = 1 };
	int pfd[2], status;
	pid_t pid;

	if (pipe(pfd))
		return m;
	pid = fork();
	if (pid == 0) {
		long before = maxrss_kib();
		double t = now_s();

		close(pfd[0]);
		bt_test_case_failed = 0;
		fn(arg);
		m.secs = now_s() - t;
		m.rss_kib = maxrss_kib() - before;
		m.failed = bt_test_case_failed;
		if (write(pfd[1], &m, sizeof(m)) != sizeof(m))
			_exit(1);
		_exit(0);
	}
	close(pfd[1]);
	if (pid < 0 || read(pfd[0], &m, sizeof(m)) != sizeof(m))
		m.failed = 1;
	close(pfd[0]);
	if (pid > 0)
		waitpid(pid, &status, 0);
	return m;
}

static int tmpfile_path(char *path)
{
	strcpy(path, "/tmp/bt-bounds-XXXXXX");
	return mkstemp(path);
}

static void write_all(int fd, const char *buf, size_t len)
{
	ssize_t w;

	while (len && (w = write(fd, buf, len)) > 0) {
		buf += w;
		len -= w;
	}
}

static struct bt_perfmap *open_map(const char *path)
{
	struct bt_perfmap *pm = NULL;

	CHECK_INT(bt_perfmap__open_path(path, &pm), 0);
	return pm;
}

/* 3M lines of "ADDR 1 f": 1M kept, the rest unread and counted. */
#define TINY_LINES (3u << 20)

static void perfmap_tiny(void *arg)
{
	struct bt_perfmap_stats st;
	struct bt_perfmap *pm = open_map(arg);

	if (!pm)
		return;
	CHECK_INT(bt_perfmap__refresh(pm), 0);
	CHECK_STR(bt_perfmap__lookup(pm, 0x100000, NULL), "f");
	CHECK_STR(bt_perfmap__lookup(pm, 0x100000 + 16ull * (BT_PERFMAP_MAX_ENTRIES - 1), NULL),
		  "f");
	/* the first line past the cap, and the last line, are left out */
	CHECK(bt_perfmap__lookup(pm, 0x100000 + 16ull * BT_PERFMAP_MAX_ENTRIES, NULL) == NULL);
	CHECK(bt_perfmap__lookup(pm, 0x100000 + 16ull * (TINY_LINES - 1), NULL) == NULL);
	bt_perfmap__stats(pm, &st);
	CHECK(st.bytes_unread > 0);
	/* the cap holds on later refreshes too: nothing more is read */
	CHECK_INT(bt_perfmap__refresh_at(pm, 1ull << 50), 0);
	CHECK(bt_perfmap__lookup(pm, 0x100000 + 16ull * BT_PERFMAP_MAX_ENTRIES, NULL) == NULL);
	bt_perfmap__free(pm);
}

static void test_perfmap_tiny_lines(void)
{
	char path[32], *buf;
	size_t len = 0, i;
	struct measure m;
	int fd = tmpfile_path(path);

	buf = malloc((size_t)TINY_LINES * 16);
	CHECK(fd >= 0 && buf);
	if (fd < 0 || !buf)
		return;
	for (i = 0; i < TINY_LINES; i++)
		len += sprintf(buf + len, "%zx 1 f\n", 0x100000 + 16 * i);
	write_all(fd, buf, len);
	close(fd);
	free(buf);
	m = in_child(perfmap_tiny, path);
	printf("# %zu MiB of tiny lines: +%ld KiB peak RSS, %.2f s\n", len >> 20, m.rss_kib,
	       m.secs);
	CHECK_INT(m.failed, 0);
	/* 1M entries of 24 bytes and their names: 75 MiB under ASan; unbounded 250 MiB */
	CHECK(m.rss_kib < 128 * 1024);
	CHECK(m.secs < 10);
	unlink(path);
}

static void test_perfmap_long_lines(void)
{
	struct bt_perfmap_stats st;
	struct bt_perfmap *pm;
	char path[32], *long1 = malloc(10001), *long2 = malloc(200001);
	int fd = tmpfile_path(path);

	CHECK(fd >= 0 && long1 && long2);
	if (fd < 0 || !long1 || !long2)
		return;
	memset(long1, 'x', 10000);
	long1[10000] = 0;
	memset(long2, 'y', 200000);
	long2[200000] = 0;
	dprintf(fd, "1000 10 a\n2000 10 %s\n3000 10 b\n%s\n4000 10 c\n", long1, long2);
	/* an over-long line still being written at the end: skipped as it comes */
	dprintf(fd, "5000 10 %s", long1);
	pm = open_map(path);
	if (pm) {
		CHECK_INT(bt_perfmap__refresh_at(pm, 1000000000ull), 0);
		CHECK_STR(bt_perfmap__lookup(pm, 0x1005, NULL), "a");
		CHECK(bt_perfmap__lookup(pm, 0x2005, NULL) == NULL);
		CHECK_STR(bt_perfmap__lookup(pm, 0x3005, NULL), "b");
		CHECK_STR(bt_perfmap__lookup(pm, 0x4005, NULL), "c");
		bt_perfmap__stats(pm, &st);
		CHECK_INT(st.long_lines, 2);
		dprintf(fd, "yyy\n6000 10 d\n");
		CHECK_INT(bt_perfmap__refresh_at(pm, 3000000000ull), 0);
		CHECK(bt_perfmap__lookup(pm, 0x5005, NULL) == NULL);
		CHECK_STR(bt_perfmap__lookup(pm, 0x6005, NULL), "d");
		bt_perfmap__stats(pm, &st);
		CHECK_INT(st.long_lines, 3);
		CHECK_INT(st.bytes_unread, 0);
		bt_perfmap__free(pm);
	}
	close(fd);
	unlink(path);
	free(long1);
	free(long2);
}

/* 70 MiB of 256-byte lines: the first 64 MiB read, the rest counted unread. */
static void test_perfmap_bytes(void)
{
	size_t nlines = (70u << 20) / 256, i;
	struct bt_perfmap_stats st;
	struct bt_perfmap *pm;
	char path[32], line[257], name[240];
	char *buf = malloc(nlines * 256);
	int fd = tmpfile_path(path);

	CHECK(fd >= 0 && buf);
	if (fd < 0 || !buf)
		return;
	memset(name, 'n', sizeof(name) - 1);
	name[sizeof(name) - 1] = 0;
	for (i = 0; i < nlines; i++) {
		snprintf(line, sizeof(line), "%08zx 10 %s", 0x10000000 + 16 * i, name);
		memcpy(buf + 256 * i, line, 255);
		memset(buf + 256 * i + strlen(line), ' ', 255 - strlen(line));
		buf[256 * i + 255] = '\n';
	}
	write_all(fd, buf, nlines * 256);
	close(fd);
	free(buf);
	pm = open_map(path);
	if (pm) {
		CHECK_INT(bt_perfmap__refresh(pm), 0);
		CHECK(bt_perfmap__lookup(pm, 0x10000000, NULL) != NULL);
		CHECK(bt_perfmap__lookup(pm, 0x10000000 + 16 * ((BT_PERFMAP_MAX_BYTES >> 8) - 1),
					 NULL) != NULL);
		CHECK(bt_perfmap__lookup(pm, 0x10000000 + 16 * (nlines - 1), NULL) == NULL);
		bt_perfmap__stats(pm, &st);
		CHECK_INT(st.bytes_unread, nlines * 256 - BT_PERFMAP_MAX_BYTES);
		bt_perfmap__free(pm);
	}
	unlink(path);
}

/* A JIT appending: read incrementally, newer entries win, at most so many reads a second. */
static void test_perfmap_appends(void)
{
	uint64_t t = 5000000000ull;
	struct bt_perfmap_stats st;
	struct bt_perfmap *pm;
	char path[32];
	int fd = tmpfile_path(path), i;

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	dprintf(fd, "3000 10 c\n1000 10 a\n");
	pm = open_map(path);
	if (!pm)
		return;
	CHECK_INT(bt_perfmap__refresh_at(pm, t), 0);
	CHECK_STR(bt_perfmap__lookup(pm, 0x1005, NULL), "a");
	dprintf(fd, "1000 10 a2\n2000 10 b\n9000 10 z");
	CHECK_INT(bt_perfmap__refresh_at(pm, t + 1), 0);
	CHECK_STR(bt_perfmap__lookup(pm, 0x1005, NULL), "a2");
	CHECK_STR(bt_perfmap__lookup(pm, 0x2005, NULL), "b");
	CHECK_STR(bt_perfmap__lookup(pm, 0x3005, NULL), "c");
	CHECK(bt_perfmap__lookup(pm, 0x9005, NULL) == NULL); /* no newline yet */
	/* the rest of the reads this second, then one more is put off to the next */
	for (i = 2; i < BT_PERFMAP_READS_PER_SEC; i++) {
		if (i == 2)
			dprintf(fd, "\n");
		else
			dprintf(fd, "%x 10 x\n", 0x10000 + i * 16);
		CHECK_INT(bt_perfmap__refresh_at(pm, t + i), 0);
	}
	CHECK_STR(bt_perfmap__lookup(pm, 0x9005, NULL), "z");
	dprintf(fd, "a000 10 late\n");
	CHECK_INT(bt_perfmap__refresh_at(pm, t + 500000000ull), 0);
	CHECK(bt_perfmap__lookup(pm, 0xa005, NULL) == NULL);
	bt_perfmap__stats(pm, &st);
	CHECK_INT(st.reads_deferred, 1);
	CHECK_INT(bt_perfmap__refresh_at(pm, t + 1000000001ull), 0);
	CHECK_STR(bt_perfmap__lookup(pm, 0xa005, NULL), "late");
	/* rewritten shorter: read again from the start, the old entries gone */
	CHECK_INT(ftruncate(fd, 0), 0);
	CHECK_INT(pwrite(fd, "4000 10 new\n", 12, 0), 12);
	CHECK_INT(bt_perfmap__refresh_at(pm, t + 3000000000ull), 0);
	CHECK_STR(bt_perfmap__lookup(pm, 0x4005, NULL), "new");
	CHECK(bt_perfmap__lookup(pm, 0x1005, NULL) == NULL);
	bt_perfmap__free(pm);
	close(fd);
	unlink(path);
}

/*
 * A copy of an ELF file whose .eh_frame and .symtab headers point at `claim` bytes past its
 * end, the file extended sparsely to hold them: a few hundred KiB on disk.
 */
static int sparse_elf(const char *src, char *path, uint64_t claim)
{
	Elf64_Ehdr eh;
	Elf64_Shdr *sh = NULL;
	char *names = NULL, buf[65536];
	off_t end;
	ssize_t n;
	int in = open(src, O_RDONLY), out = tmpfile_path(path), i, patched = 0;

	if (in < 0 || out < 0)
		goto done;
	while ((n = read(in, buf, sizeof(buf))) > 0)
		write_all(out, buf, n);
	if (pread(in, &eh, sizeof(eh), 0) != sizeof(eh) || !eh.e_shnum)
		goto done;
	sh = calloc(eh.e_shnum, sizeof(*sh));
	if (!sh || pread(in, sh, eh.e_shnum * sizeof(*sh), eh.e_shoff) !=
			   (ssize_t)(eh.e_shnum * sizeof(*sh)))
		goto done;
	names = malloc(sh[eh.e_shstrndx].sh_size);
	if (!names || pread(in, names, sh[eh.e_shstrndx].sh_size, sh[eh.e_shstrndx].sh_offset) !=
			      (ssize_t)sh[eh.e_shstrndx].sh_size)
		goto done;
	end = (lseek(out, 0, SEEK_END) + 4095) & ~4095;
	for (i = 0; i < eh.e_shnum; i++) {
		const char *name = names + sh[i].sh_name;

		if (strcmp(name, ".eh_frame") && strcmp(name, ".symtab"))
			continue;
		sh[i].sh_offset = end;
		sh[i].sh_size = claim;
		patched++;
	}
	if (pwrite(out, sh, eh.e_shnum * sizeof(*sh), eh.e_shoff) !=
		    (ssize_t)(eh.e_shnum * sizeof(*sh)) ||
	    ftruncate(out, end + claim))
		patched = 0;
done:
	free(sh);
	free(names);
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return patched == 2 ? 0 : -1;
}

static void read_sparse(void *arg)
{
	struct bt_unwind_table *t = NULL;
	struct bt_elf *elf = NULL;
	unsigned long refused = bt_elf__refused();

	/* either a table from PT_GNU_EH_FRAME, or none: never the claimed section */
	if (!bt_unwind_table_build(arg, &t))
		CHECK(t->nr > 0);
	bt_unwind_table_free(t);
	CHECK_INT(bt_elf__open(arg, NULL, &elf), 0);
	if (elf) {
		/* .symtab refused: its static functions are not found (nor read) */
		CHECK(bt_elf__find_func(elf, "fx_leaf") == NULL);
		bt_elf__close(elf);
	}
	CHECK(bt_elf__refused() >= refused + 2);
}

static void test_elf_sparse(void)
{
	/* under the per-section cap and the file's size, far over its blocks */
	uint64_t claim = 200ull << 20;
	struct measure m;
	struct stat st;
	char path[32];

	CHECK_INT(sparse_elf(FX_DIR "/fx_pie", path, claim), 0);
	CHECK_INT(stat(path, &st), 0);
	CHECK((uint64_t)st.st_size > claim);
	CHECK((uint64_t)st.st_blocks * 512 < (4u << 20));
	m = in_child(read_sparse, path);
	printf("# sparse ELF claiming %llu MiB in %llu KiB on disk: +%ld KiB peak RSS, %.2f s\n",
	       (unsigned long long)(claim >> 20), (unsigned long long)st.st_blocks / 2, m.rss_kib,
	       m.secs);
	CHECK_INT(m.failed, 0);
	CHECK(m.rss_kib < 16 * 1024);
	CHECK(m.secs < 2);
	unlink(path);
}

/* The symbol tables' budget: a file whose tables do not fit is never read, and is counted. */
static void test_budget(void)
{
	struct bt_sym_opts small = { .mem_budget = 4096 }, ample = { 0 };
	struct bt_symbolizer *s = NULL;
	struct bt_sym_stats st;
	struct bt_frame fr[16];
	struct fx_run r;
	char line[512];
	int n, pass;

	for (pass = 0; pass < 2; pass++) {
		CHECK_INT(bt_symbolizer__new(pass ? &ample : &small, &s), 0);
		if (fx_start("fx_pie", &r)) {
			CHECK(0);
			fx_stop(&r);
			bt_symbolizer__free(s);
			return;
		}
		CHECK_INT(bt_symbolizer__note_pid(s, r.pid), 0);
		fx_stop(&r);
		n = bt_symbolizer__resolve(s, r.pid, r.addrs, r.n, BT_RESOLVE_STACK, fr, 16);
		CHECK(n >= 2);
		bt_symbolizer__stats(s, &st);
		if (pass) {
			/* fits: named, and what it holds is counted within the budget */
			CHECK_STR(fr[1].name, "fx_leaf");
			CHECK(st.sym_bytes > 4096 && st.sym_bytes <= BT_SYM_BUDGET);
			CHECK_INT(st.budget_files, 0);
			CHECK_INT(bt_symbolizer__left_out(s, line, sizeof(line)), 0);
		} else {
			/* its .symtab alone is more than 4 KiB: no names, nothing held, counted once */
			CHECK(fr[1].name == NULL);
			CHECK_INT(st.sym_bytes, 0);
			CHECK_INT(st.files_loaded, 0);
			CHECK_INT(st.budget_files, 1);
			CHECK(bt_symbolizer__left_out(s, line, sizeof(line)) > 0);
			CHECK(strstr(line, "symbols: 1 files") != NULL);
		}
		bt_symbolizer__free(s);
	}
}

/* /proc lines over the bound are dropped whole; the next line reads as it should. */
static void test_proc_line(void)
{
	char *text = malloc(20000), line[BT_PROC_MAX_LINE + 1];
	FILE *f;
	int n;

	if (!text)
		return;
	n = sprintf(text, "1000-2000 r-xp 0 0:0 1 /a\n1000-2000 r-xp 0 0:0 1 /");
	memset(text + n, 'x', 10000);
	n += 10000;
	n += sprintf(text + n, "\n3000-4000 r-xp 0 0:0 1 /b");
	f = fmemopen(text, n, "r");
	CHECK(f != NULL);
	if (f) {
		CHECK_INT(bt_procmaps__read_line(f, line, sizeof(line)), 1);
		CHECK(strstr(line, "/a") != NULL);
		CHECK_INT(bt_procmaps__read_line(f, line, sizeof(line)), -E2BIG);
		CHECK_INT(bt_procmaps__read_line(f, line, sizeof(line)), 1);
		CHECK_STR(line, "3000-4000 r-xp 0 0:0 1 /b");
		CHECK_INT(bt_procmaps__read_line(f, line, sizeof(line)), 0);
		fclose(f);
	}
	free(text);
}

/* A process with more executable mappings than the bound: the rest left out, counted. */
static void test_proc_many_maps(void)
{
	size_t n = BT_PROC_MAX_EXEC + 500, i, page = getpagesize();
	struct bt_symbolizer *s = NULL;
	struct bt_sym_stats st;
	int pfd[2];
	pid_t pid;
	char c;

	CHECK_INT(pipe(pfd), 0);
	pid = fork();
	if (pid == 0) {
		char *base =
			mmap(NULL, 2 * n * page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		/* every other page executable: as many mappings, none merged with the next */
		for (i = 0; base != MAP_FAILED && i < n; i++)
			mprotect(base + 2 * i * page, page, PROT_READ | PROT_EXEC);
		if (write(pfd[1], "r", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(pfd[1]);
	CHECK(read(pfd[0], &c, 1) == 1);
	close(pfd[0]);
	CHECK_INT(bt_symbolizer__new(NULL, &s), 0);
	CHECK_INT(bt_symbolizer__note_pid(s, pid), 0);
	bt_symbolizer__stats(s, &st);
	/* its own few file mappings come first; at least the 500 past the bound are left out */
	CHECK(st.maps_left_out >= 500 && st.maps_left_out < 600);
	bt_symbolizer__free(s);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

int main(void)
{
	BT_RUN(test_perfmap_tiny_lines);
	BT_RUN(test_perfmap_long_lines);
	BT_RUN(test_perfmap_bytes);
	BT_RUN(test_perfmap_appends);
	BT_RUN(test_elf_sparse);
	BT_RUN(test_budget);
	BT_RUN(test_proc_line);
	BT_RUN(test_proc_many_maps);
	return bt_test_done();
}
