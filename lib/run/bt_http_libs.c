// SPDX-License-Identifier: GPL-2.0
#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "bt_err.h"
#include "bt_http_libs.h"

struct bt_http_libs bt_http_libs;

static const struct {
	const char *soname, *package;
} libs[] = {
	{ "libmicrohttpd.so.12", "libmicrohttpd12" },
	{ "libgnutls.so.30", "libgnutls30" },
	{ "libcrypt.so.1", "libcrypt1" },
};

#define SYM(lib, name, member)                                   \
	{                                                        \
		lib, name, offsetof(struct bt_http_libs, member) \
	}
static const struct {
	unsigned int lib; /* in libs[] */
	const char *name;
	size_t offset; /* of its pointer in struct bt_http_libs */
} syms[] = {
	SYM(0, "MHD_start_daemon", start_daemon),
	SYM(0, "MHD_stop_daemon", stop_daemon),
	SYM(0, "MHD_is_feature_supported", is_feature_supported),
	SYM(0, "MHD_get_connection_info", get_connection_info),
	SYM(0, "MHD_lookup_connection_value", lookup_connection_value),
	SYM(0, "MHD_create_response_from_buffer", create_response_from_buffer),
	SYM(0, "MHD_create_response_from_callback", create_response_from_callback),
	SYM(0, "MHD_add_response_header", add_response_header),
	SYM(0, "MHD_queue_response", queue_response),
	SYM(0, "MHD_destroy_response", destroy_response),
	SYM(0, "MHD_basic_auth_get_username_password", basic_auth_get_username_password),
	SYM(0, "MHD_queue_basic_auth_fail_response", queue_basic_auth_fail_response),
	SYM(0, "MHD_free", free),
	SYM(1, "gnutls_hmac_fast", hmac_fast),
	SYM(2, "crypt_rn", crypt_rn),
	SYM(2, "crypt_checksalt", crypt_checksalt),
	SYM(2, "crypt_gensalt_rn", crypt_gensalt_rn),
};

int bt_http_libs_load(void)
{
	static int loaded; /* 1: loaded; -errno: failed, said once */
	void *handles[sizeof(libs) / sizeof(libs[0])] = { NULL };
	size_t i;

	if (loaded)
		return loaded < 0 ? loaded : 0;
	loaded = -ENOENT;
	for (i = 0; i < sizeof(libs) / sizeof(libs[0]); i++) {
		/* kept for the process's life: the server's threads call into them until exit */
		handles[i] = dlopen(libs[i].soname, RTLD_NOW | RTLD_LOCAL);
		if (!handles[i]) {
			bt_err("the HTTP server needs %s (Debian package %s): %s", libs[i].soname,
			       libs[i].package, dlerror());
			return loaded;
		}
	}
	for (i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
		void *fn = dlsym(handles[syms[i].lib], syms[i].name);

		if (!fn) {
			bt_err("the HTTP server needs %s from %s: %s", syms[i].name,
			       libs[syms[i].lib].soname, dlerror());
			return loaded;
		}
		/* POSIX: a function's address as dlsym() gives it, into its typed pointer */
		memcpy((char *)&bt_http_libs + syms[i].offset, &fn, sizeof(fn));
	}
	loaded = 1;
	return 0;
}
