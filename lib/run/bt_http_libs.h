/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The HTTP server's libraries (libmicrohttpd; gnutls' HMAC and libxcrypt's bcrypt for its
 * basic auth), loaded when a server starts rather than linked: linked, every command mapped
 * them and ran their constructors at each start (gnutls, p11-kit, nettle, gmp and six more:
 * ~2.5 MiB of RSS, a sixth of offcputime's) for a server only the exporter runs.
 */
#ifndef BT_HTTP_LIBS_H
#define BT_HTTP_LIBS_H

#include <crypt.h>
#include <gnutls/crypto.h>
#include <microhttpd.h>

/* Each function as its header declares it; set by bt_http_libs_load(). */
struct bt_http_libs {
	__typeof__(MHD_start_daemon) *start_daemon;
	__typeof__(MHD_stop_daemon) *stop_daemon;
	__typeof__(MHD_is_feature_supported) *is_feature_supported;
	__typeof__(MHD_get_connection_info) *get_connection_info;
	__typeof__(MHD_lookup_connection_value) *lookup_connection_value;
	__typeof__(MHD_create_response_from_buffer) *create_response_from_buffer;
	__typeof__(MHD_create_response_from_callback) *create_response_from_callback;
	__typeof__(MHD_add_response_header) *add_response_header;
	__typeof__(MHD_queue_response) *queue_response;
	__typeof__(MHD_destroy_response) *destroy_response;
	__typeof__(MHD_basic_auth_get_username_password) *basic_auth_get_username_password;
	__typeof__(MHD_queue_basic_auth_fail_response) *queue_basic_auth_fail_response;
	__typeof__(MHD_free) *free;
	__typeof__(gnutls_hmac_fast) *hmac_fast;
	__typeof__(crypt_rn) *crypt_rn;
	__typeof__(crypt_checksalt) *crypt_checksalt;
	__typeof__(crypt_gensalt_rn) *crypt_gensalt_rn;
};
extern struct bt_http_libs bt_http_libs;

/* Load them, once: 0, or -ENOENT said on stderr (the library and its Debian package). */
int bt_http_libs_load(void);

#endif
