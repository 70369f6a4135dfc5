/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A command to trace from its first instruction (opensnoop --exec CMD ARGS): forked and held
 * before exec while the tracer sets up (its pid goes into the filters), then released.
 *
 *	struct bt_child c;
 *
 *	err = bt_child__start(argv, &c);      // "cannot run 'foo': ..." when not runnable
 *	... filters.tgid = c.pid; load, attach ...
 *	err = bt_child__release(&c);          // exec now; -errno if exec failed
 *	bt_evloop__add_fd(loop, c.pidfd, ...); // readable once it has exited
 *	...
 *	bt_child__end(&c);                    // reaps it; kills it if never released
 */
#ifndef BT_EXEC_H
#define BT_EXEC_H

#include <stdbool.h>
#include <sys/types.h>

struct bt_child {
	const char *name; /* argv[0], for messages */
	pid_t pid;
	int pidfd;  /* readable once the child has exited; -1 when the kernel has no pidfd */
	int go_fd;  /* written to release the child */
	int err_fd; /* the child's exec errno, or EOF once exec succeeded */
	bool released, reaped;
	int status; /* waitpid() status once reaped */
};

/*
 * Check that argv[0] can be run ($PATH searched as execvp() does), then fork a child that
 * waits. The child gets the default signal dispositions and mask back before exec (the tracer
 * blocks SIGINT and ignores SIGPIPE). 0, or -errno after one line naming the program. argv
 * NULL (no --exec): 0, and c is no child (pid -1; bt_child__end() has nothing to do).
 */
int bt_child__start(char *const argv[], struct bt_child *c);
/* Let the child exec; 0 once it has, or -errno (printed) when exec failed. */
int bt_child__release(struct bt_child *c);
/* Reap the child if it has exited (without waiting); true when it has. */
bool bt_child__exited(struct bt_child *c);
/* Kill a child never released, reap an exited one, close the descriptors. */
void bt_child__end(struct bt_child *c);

#endif
