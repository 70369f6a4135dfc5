// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <bpf/libbpf.h>

#include "bt_err.h"

static const char *progname = "bpftools";
static bool debug_on;

void bt_set_progname(const char *name)
{
	progname = name;
}

const char *bt_progname(void)
{
	return progname;
}

static void vreport(const char *prefix, const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: %s", progname, prefix);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void bt_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("", fmt, ap);
	va_end(ap);
}

void bt_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("warning: ", fmt, ap);
	va_end(ap);
}

int bt_usage_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("", fmt, ap);
	va_end(ap);
	return -BT_EUSAGE;
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (!debug_on)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

void bt_set_debug(bool on)
{
	const char *env = getenv("BPFTOOLS_DEBUG");

	debug_on = on || (env && *env && *env != '0');
	libbpf_set_print(libbpf_print);
}

bool bt_debug_enabled(void)
{
	return debug_on;
}

void bt_debug(const char *fmt, ...)
{
	va_list ap;

	if (!debug_on)
		return;
	va_start(ap, fmt);
	vreport("debug: ", fmt, ap);
	va_end(ap);
}

int bt_exit_code(int ret)
{
	if (ret == 0)
		return BT_EXIT_OK;
	return ret == -BT_EUSAGE ? BT_EXIT_USAGE : BT_EXIT_FAIL;
}
