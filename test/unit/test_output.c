// SPDX-License-Identifier: GPL-2.0
/*
 * lib/output/bt_output: bt_output_replace() puts the new file in place whole, mode 0644, and
 * leaves the old one and no temporary behind when the writer fails or the folder is not there.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bt_output.h"
#include "harness.h"

static char dir[] = "/tmp/bt_output_test.XXXXXX";

static int fill_text(FILE *f, void *ctx)
{
	fputs(ctx, f);
	return 0;
}

static int fill_fails(FILE *f, void *ctx)
{
	fputs("half", f);
	return -EIO;
}

static const char *read_all(const char *path)
{
	static char buf[256];
	FILE *f = fopen(path, "r");
	size_t n = 0;

	buf[0] = '\0';
	if (f) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		buf[n] = '\0';
		fclose(f);
	}
	return buf;
}

/* Entries of dir besides . and .. */
static int entries(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	if (d)
		closedir(d);
	return n;
}

static void test_replace(void)
{
	char path[128], missing[160];
	struct stat st;

	snprintf(path, sizeof(path), "%s/m.prom", dir);
	CHECK_INT(bt_output_replace(path, fill_text, "one\n"), 0);
	CHECK_STR(read_all(path), "one\n");
	CHECK_INT(stat(path, &st), 0);
	CHECK_INT(st.st_mode & 0777, 0644);
	CHECK_INT(bt_output_replace(path, fill_text, "two\n"), 0);
	CHECK_STR(read_all(path), "two\n");
	CHECK_INT(entries(), 1);

	/* the writer fails: the old file stays, no temporary is left */
	CHECK_INT(bt_output_replace(path, fill_fails, NULL), -EIO);
	CHECK_STR(read_all(path), "two\n");
	CHECK_INT(entries(), 1);

	snprintf(missing, sizeof(missing), "%s/none/m.prom", dir);
	CHECK_INT(bt_output_replace(missing, fill_text, "x"), -ENOENT);
	/* a bare name: the current folder */
	CHECK_INT(chdir(dir), 0);
	CHECK_INT(bt_output_replace("bare.prom", fill_text, "three\n"), 0);
	CHECK_STR(read_all("bare.prom"), "three\n");
	CHECK_INT(entries(), 2);
	unlink("bare.prom");
	unlink(path);
}

int main(void)
{
	if (!mkdtemp(dir))
		return 1;
	BT_RUN(test_replace);
	rmdir(dir);
	return bt_test_done();
}
