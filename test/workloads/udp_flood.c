// SPDX-License-Identifier: GPL-2.0
/*
 * Send N small UDP datagrams over loopback: each one raises a NET_RX softirq.
 * Usage: udp_flood [N [DELAY_MS]] (DELAY_MS -1: wait for SIGUSR1 before sending).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "wl_start.h"

int main(int argc, char **argv)
{
	struct sockaddr_in addr = { .sin_family = AF_INET };
	socklen_t len = sizeof(addr);
	long n = argc > 1 ? atol(argv[1]) : 1000;
	int rx, tx;
	long delay = argc > 2 ? atol(argv[2]) : 0;
	char buf[64] = "bpftools";

	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	rx = socket(AF_INET, SOCK_DGRAM, 0);
	tx = socket(AF_INET, SOCK_DGRAM, 0);
	if (rx < 0 || tx < 0 || bind(rx, (struct sockaddr *)&addr, sizeof(addr)) ||
	    getsockname(rx, (struct sockaddr *)&addr, &len)) {
		perror("udp_flood");
		return 1;
	}
	if (wl_wait_start(delay))
		return 1;
	/* Spread over ~1 s so that a tracer started alongside sees most of it. */
	for (long i = 0; i < n; i++) {
		if (sendto(tx, buf, sizeof(buf), 0, (struct sockaddr *)&addr, sizeof(addr)) < 0)
			perror("sendto");
		recv(rx, buf, sizeof(buf), MSG_DONTWAIT);
		if (i % 100 == 99)
			usleep(5000);
	}
	return 0;
}
