// SPDX-License-Identifier: GPL-2.0
/*
 * TLB shootdowns on demand: a second thread of this process stays running on CPU 1 (touching
 * memory, so its CPU holds the process's address space), while the main thread on CPU 0
 * maps, touches and unmaps a page N times. Each munmap must flush CPU 1's TLB too, through an
 * SMP cross call (flush_tlb_func) from CPU 0 to CPU 1.
 * Not every host makes those: arm64 flushes other CPUs' TLBs by broadcast TLBI instructions,
 * and a VM with paravirtual TLB flushes (or lazy TLB) may make none at all ("TLB: 0 0" since
 * boot). So each round also asks for an expedited memory barrier (membarrier(2)), which every
 * kernel makes with a cross call (ipi_mb) to every other CPU running a thread of the process,
 * i.e. CPU 1 while the spinner runs there: a cross call per round on any host. Only while it
 * runs: on a loaded machine the spinner may be preempted for all N rounds (a few ms), so the
 * rounds go on past N until the spinner was seen running across MIN_SEEN barriers (its count
 * moved during the call), for 5 s at most.
 * Usage: tlb_shootdown N [DELAY_MS [NAME]]   (DELAY_MS -1: wait for SIGUSR1 before starting;
 * NAME: the process's comm, so that tests can tell two of them apart)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "wl_start.h"

#define MIN_SEEN 20

static atomic_int done, spinning;
static atomic_long spins; /* the spinner's rounds: it is running while they move */
static volatile char shared[4096];

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static void *spinner(void *arg)
{
	(void)arg;
	if (pin(1))
		fprintf(stderr, "tlb_shootdown: cannot pin to CPU 1\n");
	atomic_store(&spinning, 1);
	/* runs only while the main thread works (a bounded number of munmaps) */
	while (!atomic_load(&done)) {
		shared[0]++;
		atomic_fetch_add_explicit(&spins, 1, memory_order_relaxed);
	}
	return NULL;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000, i, seen = 0, before;
	long delay = argc > 2 ? atol(argv[2]) : 0;
	double give_up;
	int failed = 0;
	pthread_t t;

	if (argc > 3 && prctl(PR_SET_NAME, argv[3]))
		return 1;
	if (wl_wait_start(delay))
		return 1;
	if (pin(0)) {
		fprintf(stderr, "tlb_shootdown: cannot pin to CPU 0\n");
		return 1;
	}
	if (pthread_create(&t, NULL, spinner, NULL))
		return 1;
	while (!atomic_load(&spinning))
		sched_yield();
	if (syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0)) {
		perror("tlb_shootdown: membarrier");
		return 1;
	}
	give_up = now() + 5;
	for (i = 0; i < n || (seen < MIN_SEEN && now() < give_up); i++) {
		char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
			       0);

		if (p == MAP_FAILED) {
			perror("tlb_shootdown: mmap");
			failed = 1;
			break;
		}
		p[0] = 1; /* in the TLB now, and CPU 1 may hold the mm: the unmap flushes both */
		munmap(p, 4096);
		before = atomic_load_explicit(&spins, memory_order_relaxed);
		syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0);
		seen += atomic_load_explicit(&spins, memory_order_relaxed) != before;
	}
	atomic_store(&done, 1);
	pthread_join(t, NULL);
	if (seen < MIN_SEEN)
		fprintf(stderr, "tlb_shootdown: the spinner ran across %ld of %ld barriers\n", seen,
			i);
	return failed;
}
