// SPDX-License-Identifier: GPL-2.0
/*
 * Linked into the static binary only (cmake/Static.cmake wraps dlopen with it). A static
 * executable has no dynamic loader: glibc's static dlopen loads a second, shared libc beside
 * the one linked in, which works only with the very glibc it was built with (the linker warns
 * about exactly that). Both uses of dlopen here are optional (debuginfod, and asking the
 * process's own loader which IFUNC implementation it chose), so they fail cleanly, as on a host
 * without the library.
 */
#include <stddef.h>

void *__wrap_dlopen(const char *file, int mode);

void *__wrap_dlopen(const char *file, int mode)
{
	return NULL;
}
