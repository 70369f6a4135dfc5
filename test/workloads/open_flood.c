// SPDX-License-Identifier: GPL-2.0
/*
 * Opens in flight at once, for the tables that hold them (opensnoop's, by thread): open_flood N
 * FIFO waits for SIGUSR1, then starts N threads that each open FIFO for reading, which blocks
 * until a writer comes. Once all N have been blocked for a while it opens FIFO for writing
 * itself (one more open), which lets every reader go, and waits for them. Exit 1 when the
 * threads cannot be had.
 */
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "wl_start.h"

static const char *fifo;
static int entered;

static void *reader(void *arg)
{
	int fd;

	__atomic_fetch_add(&entered, 1, __ATOMIC_SEQ_CST);
	fd = open(fifo, O_RDONLY);
	if (fd >= 0)
		close(fd);
	return arg;
}

int main(int argc, char **argv)
{
	long i, n = argc > 2 ? atol(argv[1]) : 0;
	pthread_t *t = calloc(n > 0 ? n : 1, sizeof(*t));
	pthread_attr_t attr;
	int fd, rc = 0;

	if (n <= 0 || !t) {
		fprintf(stderr, "usage: open_flood N FIFO\n");
		return 2;
	}
	fifo = argv[2];
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, PTHREAD_STACK_MIN > 65536 ? PTHREAD_STACK_MIN : 65536);
	wl_wait_start(-1);
	for (i = 0; i < n; i++) {
		if (pthread_create(&t[i], &attr, reader, NULL)) {
			fprintf(stderr, "open_flood: %ld threads only\n", i);
			n = i;
			rc = 1;
			break;
		}
	}
	while (__atomic_load_n(&entered, __ATOMIC_SEQ_CST) < n)
		usleep(1000);
	usleep(300 * 1000); /* each reader is in its open by now */
	fd = open(fifo, O_WRONLY);
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	if (fd >= 0)
		close(fd);
	free(t);
	return rc;
}
