// SPDX-License-Identifier: GPL-2.0
/*
 * bt_http.h in the static binary, which has no HTTP server (cmake/Static.cmake links this in
 * place of lib/run/bt_http.c). libmicrohttpd's archive needs gnutls', and that needs
 * libp11-kit and libunistring, of which Debian ships no static archive; linking the server
 * without TLS would mean stubbing some 40 gnutls functions that libmicrohttpd's start-up calls.
 * So the static binary says what it lacks, once, and the exporter's --textfile mode, which
 * needs no server, still works.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "bt_err.h"
#include "bt_http.h"

int bt_http_new(struct bt_http **out, const struct bt_http_opts *opts)
{
	(void)opts;
	*out = NULL;
	bt_err("this static binary has no HTTP server (libmicrohttpd's TLS library cannot be "
	       "linked statically): use --textfile DIR, or the dynamic build (the .deb)");
	return -ENOTSUP;
}

int bt_http_route(struct bt_http *h, const char *path, bt_http_handler fn, void *ctx)
{
	return -ENOTSUP;
}

int bt_http_start(struct bt_http *h)
{
	return -ENOTSUP;
}

unsigned int bt_http_port(const struct bt_http *h)
{
	return 0;
}

bool bt_http_tls(const struct bt_http *h)
{
	return false;
}

void bt_http_free(struct bt_http *h)
{
}

const char *bt_http_req_path(const struct bt_http_req *req)
{
	return NULL;
}

bool bt_http_req_head(const struct bt_http_req *req)
{
	return false;
}

const char *bt_http_req_arg(const struct bt_http_req *req, const char *name)
{
	return NULL;
}

const char *bt_http_req_header(const struct bt_http_req *req, const char *name)
{
	return NULL;
}

int bt_http_call(struct bt_http_req *req, int (*fn)(void *arg, FILE *out),
		 void (*release)(void *arg), const void *arg, size_t size, unsigned int timeout_ms,
		 FILE *out)
{
	if (release)
		release((void *)arg);
	return -ENOTSUP;
}

int bt_web_config_load(struct bt_web_config *cfg, const char *path)
{
	memset(cfg, 0, sizeof(*cfg));
	bt_err("%s: this static binary has no HTTP server to configure", path);
	return -ENOTSUP;
}

void bt_web_config_free(struct bt_web_config *cfg)
{
}

bool bt_web_password_ok(const char *hash, const char *password)
{
	return false;
}
