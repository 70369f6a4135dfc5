// SPDX-License-Identifier: GPL-2.0
/*
 * lib/base/bt_input: bounds checked while reading, anything but a regular file refused unread
 * (a FIFO without blocking), a read of a pipe ended by a stop signal.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bt_input.h"
#include "harness.h"

static char dir[] = "/tmp/bt-input.XXXXXX";

static const char *file_of(const char *name, const char *text, size_t len)
{
	static char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	fwrite(text, 1, len, f);
	fclose(f);
	return path;
}

static void test_lines(void)
{
	const char *path = file_of("a", "one\n\ntwo\nlast", 14);
	struct bt_lines l;
	char *line;
	size_t len;

	CHECK_INT(bt_lines_open(&l, path, 16, 1024), 0);
	CHECK_INT(bt_lines_next(&l, &line, &len), 1);
	CHECK_STR(line, "one");
	CHECK_INT(bt_lines_next(&l, &line, &len), 1);
	CHECK_INT(len, 0);
	CHECK_INT(bt_lines_next(&l, &line, &len), 1);
	CHECK_STR(line, "two");
	CHECK_INT(bt_lines_next(&l, &line, &len), 1); /* no '\n' at the end: still a line */
	CHECK_STR(line, "last");
	CHECK_INT(l.lineno, 4);
	CHECK_INT(bt_lines_next(&l, &line, &len), 0);
	bt_lines_close(&l);
}

static void test_line_bound(void)
{
	char big[200000];
	struct bt_lines l;
	char *line;
	size_t len;

	/* a line of exactly the bound is fine, one byte more is not */
	memset(big, 'x', sizeof(big));
	big[16] = '\n';
	CHECK_INT(bt_lines_open(&l, file_of("b", big, 17), 16, 1024), 0);
	CHECK_INT(bt_lines_next(&l, &line, &len), 1);
	CHECK_INT(len, 16);
	bt_lines_close(&l);
	CHECK_INT(bt_lines_open(&l, file_of("c", big, 18), 16, 1024), 0);
	CHECK_INT(bt_lines_next(&l, &line, &len), 1);
	CHECK_INT(bt_lines_next(&l, &line, &len), 1); /* the rest: "x" */
	bt_lines_close(&l);
	big[16] = 'x';
	CHECK_INT(bt_lines_open(&l, file_of("d", big, 17), 16, 1 << 20), 0);
	CHECK_INT(bt_lines_next(&l, &line, &len), -EFBIG);
	bt_lines_close(&l);
	/* no newline in 200000 bytes: stopped with a buffer of the bound and a chunk, not all */
	CHECK_INT(bt_lines_open(&l, file_of("e", big, sizeof(big)), 1000, 1 << 20), 0);
	CHECK_INT(bt_lines_next(&l, &line, &len), -EFBIG);
	CHECK(l.cap <= 1000 + (64 << 10) + 2);
	bt_lines_close(&l);
}

static void test_total_bound(void)
{
	struct bt_lines l;
	char *line;
	size_t len;
	int i, err;

	CHECK_INT(bt_lines_open(&l, file_of("f", "a 1\nb 2\nc 3\nd 4\n", 16), 16, 10), 0);
	for (i = 0; (err = bt_lines_next(&l, &line, &len)) > 0; i++)
		;
	CHECK_INT(err, -EFBIG);
	CHECK_INT(i, 0); /* the whole is checked as it is read: nothing of it is taken */
	bt_lines_close(&l);
}

static void test_not_regular(void)
{
	char fifo[256];
	struct bt_lines l;
	char *text;
	size_t len;

	/* a FIFO without a writer: an open() that waited would hang here (alarm below) */
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	CHECK_INT(mkfifo(fifo, 0600), 0);
	alarm(5);
	CHECK_INT(bt_lines_open(&l, fifo, 16, 1024), -EINVAL);
	CHECK_INT(bt_read_file(fifo, "", 1024, &text, &len), -EINVAL);
	CHECK_INT(bt_lines_open(&l, "/dev/zero", 16, 1024), -EINVAL);
	CHECK_INT(bt_read_file("/dev/zero", "", 1024, &text, &len), -EINVAL);
	CHECK_INT(bt_read_file(dir, "", 1024, &text, &len), -EINVAL);
	CHECK_INT(bt_read_file("/nonexistent/x", "", 1024, &text, &len), -ENOENT);
	alarm(0);
	CHECK(text == NULL);
}

static void test_read_file(void)
{
	char *text;
	size_t len;

	CHECK_INT(bt_read_file(file_of("g", "0123456789", 10), "", 10, &text, &len), 0);
	CHECK_STR(text, "0123456789");
	CHECK_INT(len, 10);
	free(text);
	CHECK_INT(bt_read_file(file_of("h", "0123456789x", 11), "", 10, &text, &len), -EFBIG);
	CHECK(text == NULL);
	CHECK_INT(bt_read_file(file_of("i", "", 0), "", 10, &text, &len), 0);
	CHECK_STR(text, "");
	free(text);
}

static int stops;
static bool stop_now(bool pipe)
{
	char c;

	stops++;
	return read(STDIN_FILENO + 100, &c, 1) == 1 && pipe;
}

static void test_stop(void)
{
	int in[2], stop[2], saved = dup(STDIN_FILENO);
	struct bt_lines l;
	char *line;
	size_t len;

	/* standard input a pipe whose writer never writes: only the stop ends the read */
	CHECK_INT(pipe(in), 0);
	CHECK_INT(pipe(stop), 0);
	dup2(in[0], STDIN_FILENO);
	dup2(stop[0], STDIN_FILENO + 100);
	bt_input_set_stop(STDIN_FILENO + 100, stop_now);
	CHECK_INT(write(in[1], "a 1\n", 4), 4);
	CHECK_INT(write(stop[1], "s", 1), 1);
	alarm(5);
	CHECK_INT(bt_lines_open(&l, "-", 16, 1024), 0);
	CHECK(l.pipe);
	/* what was there is read first or not: either way the stop ends it, at once */
	while (bt_lines_next(&l, &line, &len) == 1)
		;
	alarm(0);
	CHECK_INT(stops, 1);
	bt_lines_close(&l);
	bt_input_set_stop(-1, NULL);
	dup2(saved, STDIN_FILENO);
	close(saved);
	close(STDIN_FILENO + 100);
	close(in[0]);
	close(in[1]);
	close(stop[0]);
	close(stop[1]);
}

static void test_size_str(void)
{
	char b[32];

	CHECK_STR(bt_size_str(b, sizeof(b), 1 << 20), "1 MiB");
	CHECK_STR(bt_size_str(b, sizeof(b), 64 << 10), "64 KiB");
	CHECK_STR(bt_size_str(b, sizeof(b), 1ULL << 30), "1 GiB");
	CHECK_STR(bt_size_str(b, sizeof(b), 1000), "1000 bytes");
}

int main(void)
{
	char cmd[64];

	if (!mkdtemp(dir))
		return 1;
	BT_RUN(test_lines);
	BT_RUN(test_line_bound);
	BT_RUN(test_total_bound);
	BT_RUN(test_not_regular);
	BT_RUN(test_read_file);
	BT_RUN(test_stop);
	BT_RUN(test_size_str);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		return 1;
	return bt_test_done();
}
