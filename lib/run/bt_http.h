/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small HTTP server for `bpftools exporter`, on libmicrohttpd (a parser kept by others, not
 * one of ours). Read-only and bounded by design: GET and HEAD only (405 otherwise), a handler
 * per exact path (404 for anything else, and for any path holding ".."), a bounded request
 * header (431), and bounds that hold against clients from many addresses:
 *
 * - a connection must deliver a request's headers within an absolute deadline from its start
 *   (or from the end of its previous answer), however slowly it drips them, and have an
 *   answer taken within another, or it is closed;
 * - connections at once are bounded in all and per client address (an IPv4 address, an IPv6
 *   /64); past either bound a new connection takes the place of the oldest one still reading
 *   its headers (from the address with the most connections), so clients that send nothing
 *   cannot hold every place;
 * - a token bucket per client address (429), in a table of fixed size that a client can
 *   share but never empty by rotating its address;
 * - bcrypt work for the whole server is bounded (CPU time per second, one at a time; 503
 *   past it), unknown users cost what known ones do, and a password that was right is
 *   remembered by a keyed digest for a while, so a regular scrape pays bcrypt once.
 *
 * One thread per connection: a client that stops reading holds only its own thread, until a
 * deadline closes it.
 *
 * TLS and basic auth come from a web configuration file in the format Prometheus' exporters
 * share (exporter-toolkit's web-config.yml), of which the subset below is read:
 *
 *	tls_server_config:
 *	  cert_file: /etc/bpftools/cert.pem
 *	  key_file: /etc/bpftools/key.pem
 *	basic_auth_users:
 *	  prometheus: $2y$10$...	# bcrypt, as htpasswd -B makes it
 *
 * The static binary has no server (lib/run/bt_http_static.c: Debian ships no static archive of
 * what gnutls needs); bt_http_new() then fails with -ENOTSUP, having said so.
 */
#ifndef BT_HTTP_H
#define BT_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* Prometheus' port registry is full; see docs/exporter.md for why this one. */
#define BT_HTTP_DEFAULT_LISTEN "127.0.0.1:9435"

struct bt_http;
struct bt_http_req;

struct bt_http_opts {
	const char *listen;	/* "HOST:PORT", "[V6]:PORT", ":PORT" (every address); port 0: any */
	const char *web_config; /* NULL: plain HTTP, no authentication */
	/* 0 for each: the default in brackets */
	unsigned int max_conns;	       /* connections at once [64] */
	unsigned int max_per_ip;       /* of those from one address (IPv6: one /64) [8] */
	unsigned int timeout_s;	       /* a connection idle this long is closed [10] */
	unsigned int header_timeout_s; /* request line and headers within this, absolute [5] */
	unsigned int send_timeout_s;   /* an answer taken by the client within this [30] */
	size_t max_header;    /* each connection's memory: request line and headers [32 KiB] */
	unsigned int rate;    /* requests per second per client address [10] */
	unsigned int burst;   /* the bucket's depth [20] */
	unsigned int auth_ms; /* bcrypt CPU milliseconds per second, whole server [200] */
};

/*
 * What a handler answers. Its body is written to out (a memory stream the server sends and
 * frees), unless it sets stream: then the server calls stream(stream_ctx, pos, buf, max) for
 * the body as the client reads it (chunked), until it returns 0 (end) or -1 (error: the
 * connection is closed), and stream_free(stream_ctx) after.
 */
struct bt_http_resp {
	int status;	  /* 200 unless set */
	const char *type; /* Content-Type; "text/plain; charset=utf-8" unless set */
	FILE *out;
	ssize_t (*stream)(void *ctx, uint64_t pos, char *buf, size_t max);
	void (*stream_free)(void *ctx);
	void *stream_ctx;
	const char *header[4][2]; /* further headers: { name, value }, up to 4 */
};

/*
 * Runs on the connection's thread, several at once: a handler shares nothing unlocked. It may
 * take longer than the idle timeout and the deadlines (which count only while the connection
 * waits on the client). Returns 0 with resp filled in (any status), or -errno for a 500
 * naming the error.
 */
typedef int (*bt_http_handler)(struct bt_http_req *req, struct bt_http_resp *resp, void *ctx);

/* The server, not yet listening: add routes, then start. Errors said (one line). */
int bt_http_new(struct bt_http **out, const struct bt_http_opts *opts);
/* path is matched exactly, without the query string; up to 16 routes. */
int bt_http_route(struct bt_http *h, const char *path, bt_http_handler fn, void *ctx);
int bt_http_start(struct bt_http *h);
/* The port it listens on (for port 0). */
unsigned int bt_http_port(const struct bt_http *h);
/* True when the web configuration turned TLS on. */
bool bt_http_tls(const struct bt_http *h);
/*
 * Stops listening, wakes the handlers waiting in bt_http_call() and waits for the handlers
 * running, frees; NULL-safe.
 */
void bt_http_free(struct bt_http *h);

const char *bt_http_req_path(const struct bt_http_req *req);
bool bt_http_req_head(const struct bt_http_req *req);
/* A query argument ("seconds" of ?seconds=5), or NULL. */
const char *bt_http_req_arg(const struct bt_http_req *req, const char *name);
/* A request header, by name in any case, or NULL. */
const char *bt_http_req_header(const struct bt_http_req *req, const char *name);

/*
 * For a handler whose work may block where the server cannot see it (a profile reads files
 * that traced processes control): runs fn(arg, out) on a thread of its own and waits for it
 * at most timeout_ms, less if the server stops. arg (size bytes) is copied, since the thread
 * may outlive the request. Returns fn's result with what it wrote appended to out; or, its
 * thread left to end alone and its output dropped: -ETIMEDOUT past the deadline, -ECANCELED
 * when the server is stopping. -EBUSY without starting fn while BT_HTTP_MAX_STUCK such
 * threads still run past their deadline: each holds what fn took (a profile's: some 12 MiB
 * and 100 descriptors here), and a process's exit pays for closing it. release(arg), when not
 * NULL, runs once, whether fn ran or not, when neither fn nor the caller needs arg any more:
 * what arg holds a reference to is let go then (the caller cannot tell when a thread left to
 * end alone starts or ends).
 */
#define BT_HTTP_MAX_STUCK 2
int bt_http_call(struct bt_http_req *req, int (*fn)(void *arg, FILE *out),
		 void (*release)(void *arg), const void *arg, size_t size, unsigned int timeout_ms,
		 FILE *out);

/* The web configuration file, parsed (exposed for the tests). */
struct bt_web_user {
	char *name;
	char *hash;
};
struct bt_web_config {
	char *cert_file;
	char *key_file;
	struct bt_web_user *users;
	size_t nusers;
};
/* Errors said as "FILE:LINE: what", -BT_EUSAGE. */
int bt_web_config_load(struct bt_web_config *cfg, const char *path);
void bt_web_config_free(struct bt_web_config *cfg);
/* True when password matches the bcrypt (or other crypt(3)) hash. */
bool bt_web_password_ok(const char *hash, const char *password);

#endif
