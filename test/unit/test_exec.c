// SPDX-License-Identifier: GPL-2.0
/* lib/run/bt_exec: a command held before exec, released, waited for. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bt_exec.h"
#include "harness.h"

/* Wait (at most 5 s) for the child to exit: through the pidfd when there is one. */
static bool wait_exit(struct bt_child *c)
{
	int i;

	for (i = 0; i < 500; i++) {
		if (bt_child__exited(c))
			return true;
		if (c->pidfd >= 0) {
			struct pollfd p = { .fd = c->pidfd, .events = POLLIN };

			poll(&p, 1, 10);
		} else {
			usleep(10000);
		}
	}
	return false;
}

static void test_runs_after_release(void)
{
	char *argv[] = { "sh", "-c", "exit 3", NULL };
	struct bt_child c;

	CHECK_INT(bt_child__start(argv, &c), 0);
	CHECK(c.pid > 0);
	usleep(50000);
	CHECK(!bt_child__exited(&c)); /* held until released */
	CHECK_INT(bt_child__release(&c), 0);
	CHECK(wait_exit(&c));
	CHECK(WIFEXITED(c.status) && WEXITSTATUS(c.status) == 3);
	bt_child__end(&c);
}

static void test_missing_program(void)
{
	char *argv[] = { "no-such-program-bt-unit", NULL };
	char *path[] = { "/no/such/dir/prog", NULL };
	char *dir[] = { "/", NULL };
	struct bt_child c;

	CHECK_INT(bt_child__start(argv, &c), -ENOENT);
	CHECK_INT(c.pid, -1);
	bt_child__end(&c);
	CHECK_INT(bt_child__start(path, &c), -ENOENT);
	bt_child__end(&c);
	CHECK_INT(bt_child__start(dir, &c), -EACCES);
	bt_child__end(&c);
}

static void test_never_released_is_killed(void)
{
	char *argv[] = { "true", NULL };
	struct bt_child c;

	CHECK_INT(bt_child__start(argv, &c), 0);
	bt_child__end(&c);
	CHECK(c.reaped);
	CHECK(WIFSIGNALED(c.status) && WTERMSIG(c.status) == SIGKILL);
}

/* No --exec: no child, nothing to end, whatever the struct held before. */
static void test_no_command(void)
{
	struct bt_child c;

	memset(&c, 0x5a, sizeof(c));
	CHECK_INT(bt_child__start(NULL, &c), 0);
	CHECK_INT(c.pid, -1);
	CHECK_INT(c.pidfd, -1);
	CHECK(!c.released && !c.reaped);
	bt_child__end(&c);
	CHECK(!c.reaped);
}

/* The tracer blocks SIGINT (its signalfd) and ignores SIGPIPE: the command must not inherit it. */
static void test_signals_restored(void)
{
	char *argv[] = { "sh", "-c", "kill -INT $$; exit 0", NULL };
	struct bt_child c;
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
	CHECK_INT(bt_child__start(argv, &c), 0);
	CHECK_INT(bt_child__release(&c), 0);
	CHECK(wait_exit(&c));
	CHECK(WIFSIGNALED(c.status) && WTERMSIG(c.status) == SIGINT);
	bt_child__end(&c);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
}

int main(void)
{
	alarm(30);
	BT_RUN(test_runs_after_release);
	BT_RUN(test_missing_program);
	BT_RUN(test_never_released_is_killed);
	BT_RUN(test_signals_restored);
	BT_RUN(test_no_command);
	return bt_test_done();
}
