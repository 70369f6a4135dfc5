// SPDX-License-Identifier: GPL-2.0
/*
 * Adjacent direct reads submitted together: one io_submit() of N 4 KiB reads of FILE from
 * offset 0, which the kernel submits under one plug, so that each read after the first joins
 * the request the first made (a bio merge) instead of making its own. The block tools' filters
 * by request maker must not lose those silently.
 * Usage: plug_reads FILE N   (N <= 64)
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/aio_abi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAXN 64
#define BS 4096

int main(int argc, char **argv)
{
	struct iocb cbs[MAXN], *cbp[MAXN];
	struct io_event ev[MAXN];
	aio_context_t ctx = 0;
	long n = argc > 2 ? atol(argv[2]) : 8, i, done = 0, r;
	char *buf;
	int fd;

	if (argc < 3 || n < 1 || n > MAXN) {
		fprintf(stderr, "usage: plug_reads FILE N (1..%d)\n", MAXN);
		return 2;
	}
	fd = open(argv[1], O_RDONLY | O_DIRECT);
	if (fd < 0 || posix_memalign((void **)&buf, BS, BS * MAXN) ||
	    syscall(SYS_io_setup, MAXN, &ctx)) {
		perror("plug_reads");
		return 1;
	}
	memset(cbs, 0, sizeof(cbs));
	for (i = 0; i < n; i++) {
		cbs[i].aio_fildes = fd;
		cbs[i].aio_lio_opcode = IOCB_CMD_PREAD;
		cbs[i].aio_buf = (uint64_t)(uintptr_t)(buf + i * BS);
		cbs[i].aio_nbytes = BS;
		cbs[i].aio_offset = i * BS;
		cbp[i] = &cbs[i];
	}
	if (syscall(SYS_io_submit, ctx, n, cbp) != n) {
		perror("plug_reads: io_submit");
		return 1;
	}
	while (done < n) {
		r = syscall(SYS_io_getevents, ctx, 1, n - done, ev, NULL);
		if (r < 0) {
			perror("plug_reads: io_getevents");
			return 1;
		}
		for (i = 0; i < r; i++)
			if (ev[i].res != BS) {
				fprintf(stderr, "plug_reads: a read returned %lld\n",
					(long long)ev[i].res);
				return 1;
			}
		done += r;
	}
	syscall(SYS_io_destroy, ctx);
	return 0;
}
