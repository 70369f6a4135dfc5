// SPDX-License-Identifier: GPL-2.0
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "bt_clock.h"
#include "bt_err.h"
#include "bt_http.h"
#include "bt_http_libs.h"
#include "bt_input.h"

#define MAX_ROUTES 16
/*
 * token buckets; an address has two, each picked by a keyed hash: two addresses share both
 * about once in 8 million, not once in 1024 as with one of 1024. A request spends from both,
 * so the table is four times the old one: a flood rotating over 127.0.0.0/8 at 8,900-11,000
 * requests a second (its 503s come fast) put 8.7-10.7 spends a second on each of 1,024
 * buckets, which 10 a second refill (live/exporter_hostile); on 4,096, 4.3-5.4
 */
#define RATE_SLOTS 4096
#define AUTH_CACHE 16		    /* right passwords remembered (as keyed digests) */
#define AUTH_TTL_MS (5 * 60 * 1000) /* ... while used at least this often */
#define AUTH_BURST_MS 500	    /* bcrypt CPU time that may be spent at once */
#define AUTH_WAIT_MS 1000	    /* for the one bcrypt running; then 503 */
#define CALL_SLICE_MS 100	    /* how soon bt_http_call() sees the server stop */

struct route {
	const char *path;
	bt_http_handler fn;
	void *ctx;
};

struct bucket {
	double tokens;
	long long last_ms; /* 0: never used */
};

/*
 * A connection, from libmicrohttpd's "started" notification to its "closed" one (whose
 * socket is closed only after that: a shutdown() under the lock never meets a reused fd).
 */
enum conn_state {
	C_FREE,
	C_READING, /* a request line and headers (or a TLS handshake) due by since + header */
	C_BUSY,	   /* its handler runs: no deadline here */
	C_SENDING, /* an answer queued, due by since + send */
	C_CLOSING, /* shut down by a deadline or for a newer connection; not counted */
};

struct conn {
	enum conn_state state;
	int fd;
	unsigned char prefix[16]; /* IPv4 as ::ffff:a.b.c.d; IPv6 cut to its /64 */
	long long since_ms;
};

struct auth_entry {
	unsigned char digest[32]; /* HMAC-SHA256 of "user\0password" under auth_key */
	long long used_ms;	  /* 0: free */
};

struct bt_http {
	struct bt_http_opts opts;
	char *listen; /* as given, for messages */
	int fd;
	unsigned int port;
	struct MHD_Daemon *daemon;
	struct route routes[MAX_ROUTES];
	size_t nroutes;
	struct bt_web_config web;
	char *cert, *key;     /* the PEM files' contents */
	pthread_mutex_t lock; /* conns, buckets, the bcrypt budget, the cache */
	pthread_cond_t wake;  /* the reaper's: a deadline changed, or stop */
	pthread_t reaper;
	bool reaper_on;
	atomic_bool stopping;
	struct conn *conns; /* max_conns live, as many closing */
	size_t nconns;
	struct bucket buckets[RATE_SLOTS];
	uint64_t hash_key[4];
	unsigned char auth_key[32];
	char dummy[64]; /* a bcrypt setting of the users' highest cost, for unknown names */
	pthread_mutex_t auth_work; /* one bcrypt at a time */
	double auth_tokens;	   /* bcrypt CPU milliseconds that may still be spent */
	long long auth_last_ms;
	struct auth_entry cache[AUTH_CACHE];
};

struct bt_http_req {
	struct bt_http *h;
	struct MHD_Connection *conn;
	const char *path;
	bool head;
};

/* --- the web configuration file ------------------------------------------------------- */

void bt_web_config_free(struct bt_web_config *cfg)
{
	size_t i;

	if (!cfg)
		return;
	free(cfg->cert_file);
	free(cfg->key_file);
	for (i = 0; i < cfg->nusers; i++) {
		free(cfg->users[i].name);
		free(cfg->users[i].hash);
	}
	free(cfg->users);
	memset(cfg, 0, sizeof(*cfg));
}

struct yaml {
	const char *path;
	unsigned int line;
};

static int yaml_err(const struct yaml *y, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int yaml_err(const struct yaml *y, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return bt_usage_err("%s:%u: %s", y->path, y->line, msg);
}

/*
 * A scalar after "key:": plain (up to a " #" comment), 'single' ('' for a quote) or "double"
 * (\\ and \" only). *out is malloc'd; an empty value is NULL.
 */
static int yaml_scalar(const struct yaml *y, const char *s, char **out)
{
	char *v, *d;

	*out = NULL;
	while (*s == ' ')
		s++;
	if (*s == '\0' || *s == '#')
		return 0;
	v = d = malloc(strlen(s) + 1);
	if (!v)
		return -ENOMEM;
	if (*s == '\'' || *s == '"') {
		char q = *s++;

		for (;; s++) {
			if (*s == '\0') {
				free(v);
				return yaml_err(y, "unterminated quoted value");
			}
			if (*s == q && q == '\'' && s[1] == '\'') {
				*d++ = *s++;
				continue;
			}
			if (*s == q)
				break;
			if (q == '"' && *s == '\\') {
				if (s[1] != '\\' && s[1] != '"') {
					free(v);
					return yaml_err(y, "escape '\\%c' is not supported", s[1]);
				}
				s++;
			}
			*d++ = *s;
		}
		s++;
		while (*s == ' ')
			s++;
		if (*s != '\0' && *s != '#') {
			free(v);
			return yaml_err(y, "unexpected text after the quoted value");
		}
	} else {
		if (strchr("[{&*!|>%@`", *s)) {
			free(v);
			return yaml_err(y, "only plain or quoted values are supported");
		}
		while (*s && !(*s == '#' && d > v && d[-1] == ' '))
			*d++ = *s++;
		while (d > v && d[-1] == ' ')
			d--;
	}
	*d = '\0';
	if (*v == '\0') {
		free(v);
		return 0;
	}
	*out = v;
	return 0;
}

/* A relative path in the file is relative to the file's folder, as exporter-toolkit has it. */
static int yaml_path(const char *cfg_path, char *value, char **out)
{
	const char *slash = strrchr(cfg_path, '/');

	if (value[0] == '/' || !slash) {
		*out = value;
		return 0;
	}
	if (asprintf(out, "%.*s/%s", (int)(slash - cfg_path), cfg_path, value) < 0) {
		free(value);
		return -ENOMEM;
	}
	free(value);
	return 0;
}

static bool is_bcrypt(const char *h)
{
	return (!strncmp(h, "$2a$", 4) || !strncmp(h, "$2b$", 4) || !strncmp(h, "$2y$", 4)) &&
	       bt_http_libs.crypt_checksalt(h) == CRYPT_SALT_OK;
}

int bt_web_config_load(struct bt_web_config *cfg, const char *path)
{
	enum { NONE, TLS, USERS } section = NONE;
	struct yaml y = { .path = path };
	unsigned int indent = 0, tls_line = 0;
	char *line = NULL, *value = NULL;
	size_t len;
	bool seen_tls = false, seen_users = false;
	struct bt_lines f;
	int err = 0;

	memset(cfg, 0, sizeof(*cfg));
	err = bt_http_libs_load(); /* its password hashes are checked by libxcrypt */
	if (err)
		return err;
	/* a regular file (a FIFO or device refused unread), its lines and its whole bounded */
	err = bt_lines_open(&f, path, BT_CONFIG_LINE_MAX, BT_CONFIG_FILE_MAX);
	if (err)
		return err == -ENOENT ? -BT_EUSAGE : err;
	while ((err = bt_lines_next(&f, &line, &len)) > 0) {
		unsigned int sp = 0;
		char *key, *colon;

		err = 0;
		y.line++;
		line[strcspn(line, "\r\n")] = '\0';
		while (line[sp] == ' ')
			sp++;
		if (line[sp] == '\t') {
			err = yaml_err(&y, "tab in indentation");
			goto cleanup;
		}
		if (line[sp] == '\0' || line[sp] == '#')
			continue;
		if (y.line == 1 && !strcmp(line, "---"))
			continue;
		key = line + sp;
		colon = strchr(key, ':');
		if (!colon || (colon[1] != '\0' && colon[1] != ' ') || colon == key) {
			err = yaml_err(&y, "expected 'key: value'");
			goto cleanup;
		}
		*colon = '\0';
		err = yaml_scalar(&y, colon + 1, &value);
		if (err)
			goto cleanup;
		if (sp == 0) {
			if (value) {
				err = yaml_err(&y,
					       "'%s' takes a block of 'key: value' lines below it",
					       key);
				goto cleanup;
			}
			if (!strcmp(key, "tls_server_config") && !seen_tls) {
				section = TLS;
				seen_tls = true;
				tls_line = y.line;
			} else if (!strcmp(key, "basic_auth_users") && !seen_users) {
				section = USERS;
				seen_users = true;
			} else if (!strcmp(key, "tls_server_config") ||
				   !strcmp(key, "basic_auth_users")) {
				err = yaml_err(&y, "'%s' given twice", key);
				goto cleanup;
			} else {
				err = yaml_err(&y,
					       "'%s' is not supported (only tls_server_config with "
					       "cert_file and key_file, and basic_auth_users)",
					       key);
				goto cleanup;
			}
			indent = 0;
			continue;
		}
		if (section == NONE) {
			err = yaml_err(&y, "indented line outside a section");
			goto cleanup;
		}
		if (!indent)
			indent = sp;
		if (sp != indent) {
			err = yaml_err(&y,
				       "indentation differs from the line before (%u, not %u "
				       "spaces): nested blocks are not supported",
				       sp, indent);
			goto cleanup;
		}
		if (!value) {
			err = yaml_err(&y, "'%s' has no value", key);
			goto cleanup;
		}
		if (section == TLS) {
			char **slot = !strcmp(key, "cert_file")	 ? &cfg->cert_file
				      : !strcmp(key, "key_file") ? &cfg->key_file
								 : NULL;

			if (!slot) {
				err = yaml_err(&y,
					       "tls_server_config: '%s' is not supported (only "
					       "cert_file and key_file)",
					       key);
				goto cleanup;
			}
			if (*slot) {
				err = yaml_err(&y, "'%s' given twice", key);
				goto cleanup;
			}
			err = yaml_path(path, value, slot);
			value = NULL;
			if (err)
				goto cleanup;
		} else {
			struct bt_web_user *u;
			size_t i;

			for (i = 0; i < cfg->nusers; i++) {
				if (!strcmp(cfg->users[i].name, key)) {
					err = yaml_err(&y, "user '%s' given twice", key);
					goto cleanup;
				}
			}
			if (!is_bcrypt(value)) {
				err = yaml_err(
					&y, "user '%s': not a bcrypt hash ($2a$, $2b$, $2y$)", key);
				goto cleanup;
			}
			u = realloc(cfg->users, (cfg->nusers + 1) * sizeof(*u));
			if (!u) {
				err = -ENOMEM;
				goto cleanup;
			}
			cfg->users = u;
			u[cfg->nusers].hash = value;
			value = NULL;
			u[cfg->nusers].name = strdup(key);
			if (!u[cfg->nusers].name) {
				free(u[cfg->nusers].hash);
				err = -ENOMEM;
				goto cleanup;
			}
			cfg->nusers++;
		}
		free(value);
		value = NULL;
	}
	if (err < 0)
		goto cleanup; /* said */
	if (seen_tls && (!cfg->cert_file || !cfg->key_file)) {
		y.line = tls_line;
		err = yaml_err(&y, "tls_server_config needs both cert_file and key_file");
		goto cleanup;
	}
	if (seen_users && !cfg->nusers) {
		err = bt_usage_err("%s: basic_auth_users lists no user", path);
		goto cleanup;
	}
cleanup:
	free(value);
	bt_lines_close(&f);
	if (err)
		bt_web_config_free(cfg);
	return err;
}

bool bt_web_password_ok(const char *hash, const char *password)
{
	struct crypt_data *cd = calloc(1, sizeof(*cd));
	const char *got;
	unsigned char diff = 0;
	size_t i, n = strlen(hash);
	bool ok = false;

	if (!cd || bt_http_libs_load()) {
		free(cd);
		return false;
	}
	got = bt_http_libs.crypt_rn(password, hash, cd, sizeof(*cd));
	/* in time independent of where they differ */
	if (got && got[0] != '*' && strlen(got) == n) {
		for (i = 0; i < n; i++)
			diff |= (unsigned char)(got[i] ^ hash[i]);
		ok = diff == 0;
	}
	explicit_bzero(cd, sizeof(*cd));
	free(cd);
	return ok;
}

/* --- requests ---------------------------------------------------------------------------- */

const char *bt_http_req_path(const struct bt_http_req *req)
{
	return req->path;
}

bool bt_http_req_head(const struct bt_http_req *req)
{
	return req->head;
}

const char *bt_http_req_arg(const struct bt_http_req *req, const char *name)
{
	return bt_http_libs.lookup_connection_value(req->conn, MHD_GET_ARGUMENT_KIND, name);
}

const char *bt_http_req_header(const struct bt_http_req *req, const char *name)
{
	return bt_http_libs.lookup_connection_value(req->conn, MHD_HEADER_KIND, name);
}

/*
 * What the per-address bounds key on: an IPv4 address (as ::ffff:a.b.c.d, as a dual-stack
 * socket reports it too), or an IPv6 address's /64, which one host commonly holds whole.
 */
static void addr_prefix(const struct sockaddr *sa, unsigned char key[16])
{
	static const unsigned char mapped[12] = { [10] = 0xff, [11] = 0xff };

	memset(key, 0, 16);
	if (sa && sa->sa_family == AF_INET6) {
		memcpy(key, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
		if (memcmp(key, mapped, 12))
			memset(key + 8, 0, 8);
	} else if (sa && sa->sa_family == AF_INET) {
		memcpy(key, mapped, 12);
		memcpy(key + 12, &((const struct sockaddr_in *)sa)->sin_addr, 4);
	}
}

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* Adds what rate gave bk since its last use, up to burst. */
static void refill(struct bt_http *h, struct bucket *bk, long long now)
{
	if (!bk->last_ms)
		bk->tokens = h->opts.burst;
	else
		bk->tokens += (now - bk->last_ms) * (double)h->opts.rate / 1000;
	if (bk->tokens > h->opts.burst)
		bk->tokens = h->opts.burst;
	bk->last_ms = now ?: 1;
}

/*
 * Token buckets per client address: rate a second, up to burst at once. The table has a fixed
 * size and forgets no one: an address's buckets are picked by hashes under keys of this
 * process (a client cannot aim at another's), so a client rotating its address spreads its
 * requests over the buckets but never gets a full one back by pushing its own out. A request
 * spends a token from each of its two buckets that has one, and is refused when neither has:
 * a busy client empties both of its own, and a quiet one that shares one of them with it still
 * has its other (with one bucket each, two clients of a host shared it once in 1024 starts).
 */
static bool rate_ok(struct bt_http *h, const struct sockaddr *sa)
{
	unsigned char key[16];
	uint64_t a, b;
	size_t i, j;
	long long now = bt_now_ms();
	bool ok;

	addr_prefix(sa, key);
	memcpy(&a, key, 8);
	memcpy(&b, key + 8, 8);
	i = mix64(mix64(a ^ h->hash_key[0]) ^ b ^ h->hash_key[1]) % RATE_SLOTS;
	j = mix64(mix64(a ^ h->hash_key[2]) ^ b ^ h->hash_key[3]) % (RATE_SLOTS - 1);
	j += j >= i; /* two buckets, never the same one twice */
	pthread_mutex_lock(&h->lock);
	refill(h, &h->buckets[i], now);
	refill(h, &h->buckets[j], now);
	ok = h->buckets[i].tokens >= 1 || h->buckets[j].tokens >= 1;
	if (h->buckets[i].tokens >= 1)
		h->buckets[i].tokens -= 1;
	if (h->buckets[j].tokens >= 1)
		h->buckets[j].tokens -= 1;
	pthread_mutex_unlock(&h->lock);
	return ok;
}

#define LISTEN_BACKLOG 4096

/* --- connections and their deadlines -------------------------------------------------- */

static bool conn_live(const struct conn *c)
{
	return c->state != C_FREE && c->state != C_CLOSING;
}

/* Under h->lock. The fd is still open: it is closed only after the "closed" notification. */
static void conn_close(struct conn *c, const char *why)
{
	bt_debug("http: closing connection %d: %s", c->fd, why);
	shutdown(c->fd, SHUT_RDWR);
	c->state = C_CLOSING;
}

/*
 * Past a bound, the connection to close for a new one: one still reading its headers (a
 * client that has sent a request is never cut off for another), from the address with the
 * most connections, the oldest of those. Only from prefix when it is given. NULL: none.
 */
static struct conn *conn_victim(struct bt_http *h, const unsigned char *prefix)
{
	struct conn *best = NULL;
	size_t i, j, n, best_n = 0;

	for (i = 0; i < h->nconns; i++) {
		struct conn *c = &h->conns[i];

		if (c->state != C_READING || (prefix && memcmp(c->prefix, prefix, 16)))
			continue;
		for (j = n = 0; j < h->nconns; j++)
			n += conn_live(&h->conns[j]) && !memcmp(h->conns[j].prefix, c->prefix, 16);
		if (!best || n > best_n || (n == best_n && c->since_ms < best->since_ms)) {
			best = c;
			best_n = n;
		}
	}
	return best;
}

/* Under h->lock: a new connection, in its place; any over the bounds closed. */
static void conn_admit(struct bt_http *h, struct conn *c)
{
	struct conn *v;
	size_t i, all = 0, same = 0;

	for (i = 0; i < h->nconns; i++) {
		if (!conn_live(&h->conns[i]))
			continue;
		all++;
		same += !memcmp(h->conns[i].prefix, c->prefix, 16);
	}
	if (same > h->opts.max_per_ip) {
		v = conn_victim(h, c->prefix) ?: c;
		conn_close(v, "over the bound for one address");
		if (v == c)
			return;
		all--;
	}
	if (all > h->opts.max_conns)
		conn_close(conn_victim(h, NULL) ?: c, "over the bound for all");
}

static void on_connection(void *cls, struct MHD_Connection *mc, void **socket_context,
			  enum MHD_ConnectionNotificationCode code)
{
	struct bt_http *h = cls;
	const union MHD_ConnectionInfo *fd, *addr;
	struct conn *c = *socket_context;
	size_t i;

	if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
		if (c) {
			pthread_mutex_lock(&h->lock);
			c->state = C_FREE;
			pthread_mutex_unlock(&h->lock);
		}
		return;
	}
	fd = bt_http_libs.get_connection_info(mc, MHD_CONNECTION_INFO_CONNECTION_FD);
	addr = bt_http_libs.get_connection_info(mc, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	if (!fd)
		return;
	pthread_mutex_lock(&h->lock);
	/* libmicrohttpd holds no more than there are places (its connection limit) */
	for (i = 0; i < h->nconns && h->conns[i].state != C_FREE; i++)
		;
	if (i == h->nconns) {
		shutdown(fd->connect_fd, SHUT_RDWR);
	} else {
		c = &h->conns[i];
		c->fd = fd->connect_fd;
		c->state = C_READING;
		c->since_ms = bt_now_ms();
		addr_prefix(addr ? addr->client_addr : NULL, c->prefix);
		*socket_context = c;
		conn_admit(h, c);
		pthread_cond_signal(&h->wake);
	}
	pthread_mutex_unlock(&h->lock);
}

static void conn_set(struct bt_http *h, struct MHD_Connection *mc, enum conn_state state)
{
	const union MHD_ConnectionInfo *ci =
		bt_http_libs.get_connection_info(mc, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	struct conn *c = ci ? ci->socket_context : NULL;

	if (!c)
		return;
	pthread_mutex_lock(&h->lock);
	if (c->state != C_CLOSING && c->state != C_FREE) {
		c->state = state;
		c->since_ms = bt_now_ms();
		pthread_cond_signal(&h->wake);
	}
	pthread_mutex_unlock(&h->lock);
}

/* An answer sent (or given up): on a kept-alive connection, the next request's headers are due. */
static void on_completed(void *cls, struct MHD_Connection *mc, void **con_cls,
			 enum MHD_RequestTerminationCode code)
{
	(void)con_cls;
	(void)code;
	conn_set(cls, mc, C_READING);
}

/*
 * Closes every connection past its deadline, sleeping until the next one is due. The
 * deadlines are absolute: bytes arriving do not move them, as the idle timeout's do.
 */
static void *reaper(void *arg)
{
	struct bt_http *h = arg;
	long long header = h->opts.header_timeout_s * 1000LL,
		  send = h->opts.send_timeout_s * 1000LL;

	pthread_mutex_lock(&h->lock);
	while (!atomic_load(&h->stopping)) {
		long long now = bt_now_ms(), next = LLONG_MAX, due;
		struct timespec ts;
		size_t i;

		for (i = 0; i < h->nconns; i++) {
			struct conn *c = &h->conns[i];

			if (c->state == C_READING)
				due = c->since_ms + header;
			else if (c->state == C_SENDING)
				due = c->since_ms + send;
			else
				continue;
			if (due <= now)
				conn_close(c, c->state == C_READING ? "no request headers in time"
								    : "answer not taken in time");
			else if (due < next)
				next = due;
		}
		if (next == LLONG_MAX) {
			pthread_cond_wait(&h->wake, &h->lock);
		} else {
			ts = bt_abs_ms(next);
			pthread_cond_timedwait(&h->wake, &h->lock, &ts);
		}
	}
	pthread_mutex_unlock(&h->lock);
	return NULL;
}

static enum MHD_Result send_text(struct MHD_Connection *conn, unsigned int status, const char *text,
				 const char *hname, const char *hvalue)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = bt_http_libs.create_response_from_buffer(strlen(text), (void *)text,
						     MHD_RESPMEM_PERSISTENT);
	if (!r)
		return MHD_NO;
	bt_http_libs.add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
					 "text/plain; charset=utf-8");
	if (hname)
		bt_http_libs.add_response_header(r, hname, hvalue);
	ret = bt_http_libs.queue_response(conn, status, r);
	bt_http_libs.destroy_response(r);
	return ret;
}

/* Equal, in a time that depends on the lengths only. */
static bool same_ct(const void *a, const void *b, size_t n)
{
	const unsigned char *x = a, *y = b;
	unsigned char diff = 0;
	size_t i;

	for (i = 0; i < n; i++)
		diff |= x[i] ^ y[i];
	return diff == 0;
}

static bool same_name(const char *a, const char *b)
{
	size_t n = strlen(a);

	return n == strlen(b) && same_ct(a, b, n);
}

static double thread_cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

enum auth { AUTH_OK, AUTH_NO, AUTH_BUSY };

/* Under h->lock: a right password seen lately, by its digest. */
static bool cache_hit(struct bt_http *h, const unsigned char digest[32], long long now)
{
	bool hit = false;
	size_t i;

	for (i = 0; i < AUTH_CACHE; i++) {
		struct auth_entry *e = &h->cache[i];

		if (e->used_ms && now - e->used_ms > AUTH_TTL_MS)
			e->used_ms = 0;
		if (e->used_ms && same_ct(e->digest, digest, 32)) {
			e->used_ms = now;
			hit = true;
		}
	}
	return hit;
}

/* Under h->lock: remembered, in place of a free entry or the least recently used one. */
static void cache_add(struct bt_http *h, const unsigned char digest[32], long long now)
{
	struct auth_entry *e = &h->cache[0];
	size_t i;

	for (i = 1; i < AUTH_CACHE; i++) {
		if (h->cache[i].used_ms < e->used_ms)
			e = &h->cache[i];
	}
	memcpy(e->digest, digest, 32);
	e->used_ms = now;
}

/*
 * bcrypt, within the server's budget: one at a time, and no more CPU time a second than
 * opts.auth_ms (AUTH_BURST_MS at once), measured as the check spends it. false with *busy
 * set when the budget is spent: the caller answers 503 without the check.
 */
static bool bcrypt_budgeted(struct bt_http *h, const char *hash, const char *pass, bool *busy)
{
	struct timespec until = bt_abs_ms(bt_now_ms() + AUTH_WAIT_MS);
	long long now;
	double t0, cost;
	bool ok;

	*busy = true;
	if (pthread_mutex_clocklock(&h->auth_work, CLOCK_MONOTONIC, &until))
		return false;
	pthread_mutex_lock(&h->lock);
	now = bt_now_ms();
	h->auth_tokens += (now - h->auth_last_ms) * (double)h->opts.auth_ms / 1000;
	if (h->auth_tokens > AUTH_BURST_MS)
		h->auth_tokens = AUTH_BURST_MS;
	h->auth_last_ms = now;
	*busy = h->auth_tokens <= 0;
	pthread_mutex_unlock(&h->lock);
	if (*busy) {
		pthread_mutex_unlock(&h->auth_work);
		return false;
	}
	t0 = thread_cpu_ms();
	ok = bt_web_password_ok(hash, pass);
	cost = thread_cpu_ms() - t0;
	pthread_mutex_unlock(&h->auth_work);
	pthread_mutex_lock(&h->lock);
	h->auth_tokens -= cost;
	pthread_mutex_unlock(&h->lock);
	return ok;
}

/*
 * Basic auth. A name that is no user's costs what a user's costs (bcrypt of the dummy, of
 * the highest cost in the file), so the time of a 401 says nothing of which names exist; a
 * right password is remembered by an HMAC of the credentials under a key of this process,
 * for AUTH_TTL_MS after its last use, so a scraper pays bcrypt once, not every scrape.
 */
static enum auth user_ok(struct bt_http *h, struct MHD_Connection *conn)
{
	char *pass = NULL, *user, *cred = NULL;
	const char *hash = h->dummy;
	unsigned char digest[32];
	enum auth res = AUTH_NO;
	size_t i, ulen, plen;
	bool known = false, busy, ok;

	user = bt_http_libs.basic_auth_get_username_password(conn, &pass);
	if (!user || !pass)
		goto cleanup;
	ulen = strlen(user);
	plen = strlen(pass);
	cred = malloc(ulen + 1 + plen);
	if (!cred)
		goto cleanup;
	memcpy(cred, user, ulen + 1);
	memcpy(cred + ulen + 1, pass, plen);
	if (bt_http_libs.hmac_fast(GNUTLS_MAC_SHA256, h->auth_key, sizeof(h->auth_key), cred,
				   ulen + 1 + plen, digest))
		goto cleanup;
	pthread_mutex_lock(&h->lock);
	ok = cache_hit(h, digest, bt_now_ms());
	pthread_mutex_unlock(&h->lock);
	if (ok) {
		res = AUTH_OK;
		goto cleanup;
	}
	for (i = 0; i < h->web.nusers; i++) { /* every name compared: no early end */
		if (same_name(h->web.users[i].name, user) && !known) {
			hash = h->web.users[i].hash;
			known = true;
		}
	}
	ok = bcrypt_budgeted(h, hash, pass, &busy) && known;
	if (busy) {
		res = AUTH_BUSY;
		goto cleanup;
	}
	if (ok) {
		pthread_mutex_lock(&h->lock);
		cache_add(h, digest, bt_now_ms());
		pthread_mutex_unlock(&h->lock);
		res = AUTH_OK;
	}
cleanup:
	if (cred) {
		explicit_bzero(cred, ulen + 1 + plen);
		free(cred);
	}
	explicit_bzero(digest, sizeof(digest));
	if (pass) {
		explicit_bzero(pass, strlen(pass));
		bt_http_libs.free(pass);
	}
	bt_http_libs.free(user);
	return res;
}

struct stream {
	ssize_t (*fn)(void *ctx, uint64_t pos, char *buf, size_t max);
	void (*free)(void *ctx);
	void *ctx;
};

static ssize_t stream_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct stream *s = cls;
	ssize_t n = s->fn(s->ctx, pos, buf, max);

	if (n == 0)
		return MHD_CONTENT_READER_END_OF_STREAM;
	return n < 0 ? MHD_CONTENT_READER_END_WITH_ERROR : n;
}

static void stream_done(void *cls)
{
	struct stream *s = cls;

	if (s->free)
		s->free(s->ctx);
	free(s);
}

static enum MHD_Result run_handler(const struct route *rt, struct bt_http_req *req)
{
	struct bt_http_resp resp = { .status = MHD_HTTP_OK };
	struct MHD_Response *r = NULL;
	enum MHD_Result ret = MHD_NO;
	char *buf = NULL, msg[160];
	size_t len = 0, i;
	int err;

	resp.out = open_memstream(&buf, &len);
	if (!resp.out)
		return send_text(req->conn, 500, "internal error: out of memory\n", NULL, NULL);
	err = rt->fn(req, &resp, rt->ctx);
	if (fclose(resp.out) && !err)
		err = -ENOMEM;
	if (err) {
		if (resp.stream_free)
			resp.stream_free(resp.stream_ctx);
		free(buf);
		snprintf(msg, sizeof(msg), "internal error: %s\n", strerror(-err));
		/* a transient string: MHD copies it */
		r = bt_http_libs.create_response_from_buffer(strlen(msg), msg,
							     MHD_RESPMEM_MUST_COPY);
		if (!r)
			return MHD_NO;
		bt_http_libs.add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
						 "text/plain; charset=utf-8");
		ret = bt_http_libs.queue_response(req->conn, 500, r);
		bt_http_libs.destroy_response(r);
		return ret;
	}
	if (resp.stream) {
		struct stream *s = malloc(sizeof(*s));

		free(buf);
		if (!s) {
			if (resp.stream_free)
				resp.stream_free(resp.stream_ctx);
			return MHD_NO;
		}
		*s = (struct stream){ resp.stream, resp.stream_free, resp.stream_ctx };
		r = bt_http_libs.create_response_from_callback(MHD_SIZE_UNKNOWN, 16 * 1024,
							       stream_read, s, stream_done);
		if (!r) {
			stream_done(s);
			return MHD_NO;
		}
	} else {
		r = bt_http_libs.create_response_from_buffer(len, buf, MHD_RESPMEM_MUST_FREE);
		if (!r) {
			free(buf);
			return MHD_NO;
		}
	}
	bt_http_libs.add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
					 resp.type ? resp.type : "text/plain; charset=utf-8");
	for (i = 0; i < sizeof(resp.header) / sizeof(resp.header[0]) && resp.header[i][0]; i++)
		bt_http_libs.add_response_header(r, resp.header[i][0], resp.header[i][1]);
	ret = bt_http_libs.queue_response(req->conn, resp.status, r);
	bt_http_libs.destroy_response(r);
	return ret;
}

/*
 * Every request, once its headers are in. Answered at once, so a request body (a POST's) is
 * never read: MHD closes such a connection after the answer.
 */
static enum MHD_Result answer(struct bt_http *h, struct MHD_Connection *conn, const char *url,
			      const char *method)
{
	const union MHD_ConnectionInfo *ci;
	struct bt_http_req req = { .h = h, .conn = conn, .path = url };
	enum auth auth;
	size_t i;

	req.head = !strcmp(method, MHD_HTTP_METHOD_HEAD);
	if (strcmp(method, MHD_HTTP_METHOD_GET) && !req.head)
		return send_text(conn, MHD_HTTP_METHOD_NOT_ALLOWED, "only GET and HEAD\n",
				 MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	ci = bt_http_libs.get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	if (!rate_ok(h, ci ? ci->client_addr : NULL))
		return send_text(conn, MHD_HTTP_TOO_MANY_REQUESTS, "too many requests\n",
				 MHD_HTTP_HEADER_RETRY_AFTER, "1");
	auth = h->web.nusers ? user_ok(h, conn) : AUTH_OK;
	if (auth == AUTH_BUSY)
		return send_text(conn, MHD_HTTP_SERVICE_UNAVAILABLE,
				 "too many password checks; try again\n",
				 MHD_HTTP_HEADER_RETRY_AFTER, "1");
	if (auth == AUTH_NO) {
		struct MHD_Response *r;
		enum MHD_Result ret;
		static const char text[] = "unauthorized\n";

		r = bt_http_libs.create_response_from_buffer(sizeof(text) - 1, (void *)text,
							     MHD_RESPMEM_PERSISTENT);
		if (!r)
			return MHD_NO;
		ret = bt_http_libs.queue_basic_auth_fail_response(conn, "bpftools", r);
		bt_http_libs.destroy_response(r);
		return ret;
	}
	if (url && !strstr(url, "..")) {
		for (i = 0; i < h->nroutes; i++) {
			if (!strcmp(h->routes[i].path, url))
				return run_handler(&h->routes[i], &req);
		}
	}
	return send_text(conn, MHD_HTTP_NOT_FOUND, "not found\n", NULL, NULL);
}

/*
 * Every request, once its headers are in. Answered at once, so a request body (a POST's) is
 * never read: MHD closes such a connection after the answer.
 */
static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
				  const char *method, const char *version, const char *upload_data,
				  size_t *upload_data_size, void **con_cls)
{
	struct bt_http *h = cls;
	enum MHD_Result ret;

	(void)version;
	(void)upload_data;
	(void)upload_data_size;
	(void)con_cls;
	conn_set(h, conn, C_BUSY);
	ret = answer(h, conn, url, method);
	conn_set(h, conn, C_SENDING);
	return ret;
}

/* --- handlers that may block ------------------------------------------------------------ */

/* A call, owned by the handler waiting for it and by its thread: the last one frees it. */
struct call {
	pthread_mutex_t lock;
	pthread_cond_t done_cond;
	int refs;
	bool done, stuck;
	int err;
	char *buf;
	size_t len;
	int (*fn)(void *arg, FILE *out);
	void (*release)(void *arg);
	max_align_t arg[];
};

static atomic_uint stuck_calls; /* threads still running past their deadline */

static void call_put(struct call *c)
{
	bool last;

	pthread_mutex_lock(&c->lock);
	last = --c->refs == 0;
	pthread_mutex_unlock(&c->lock);
	if (!last)
		return;
	if (c->release)
		c->release(c->arg);
	pthread_cond_destroy(&c->done_cond);
	pthread_mutex_destroy(&c->lock);
	free(c->buf);
	free(c);
}

static void *call_thread(void *arg)
{
	struct call *c = arg;
	FILE *f;
	int err;

	pthread_setname_np(pthread_self(), "bt_http_call"); /* seen in /proc/PID/task/ if stuck */
	f = open_memstream(&c->buf, &c->len);
	err = f ? c->fn(c->arg, f) : -ENOMEM;

	if (f && fclose(f) && !err)
		err = -ENOMEM;
	pthread_mutex_lock(&c->lock);
	c->err = err;
	c->done = true;
	if (c->stuck)
		atomic_fetch_sub(&stuck_calls, 1);
	pthread_cond_signal(&c->done_cond);
	pthread_mutex_unlock(&c->lock);
	call_put(c);
	return NULL;
}

int bt_http_call(struct bt_http_req *req, int (*fn)(void *arg, FILE *out),
		 void (*release)(void *arg), const void *arg, size_t size, unsigned int timeout_ms,
		 FILE *out)
{
	long long deadline = bt_now_ms() + timeout_ms;
	pthread_attr_t ta;
	pthread_t t;
	struct call *c;
	int err;

	c = calloc(1, sizeof(*c) + size);
	if (!c) {
		if (release)
			release((void *)arg);
		return -ENOMEM;
	}
	pthread_mutex_init(&c->lock, NULL);
	bt_cond_init_monotonic(&c->done_cond);
	c->release = release;
	if (size)
		memcpy(c->arg, arg, size);
	if (atomic_load(&stuck_calls) >= BT_HTTP_MAX_STUCK) {
		c->refs = 1;
		call_put(c);
		return -EBUSY;
	}
	c->refs = 2;
	c->fn = fn;
	pthread_attr_init(&ta);
	pthread_attr_setdetachstate(&ta, PTHREAD_CREATE_DETACHED);
	err = -pthread_create(&t, &ta, call_thread, c);
	pthread_attr_destroy(&ta);
	if (err) {
		c->refs = 1;
		call_put(c);
		return err;
	}
	pthread_mutex_lock(&c->lock);
	while (!c->done) {
		long long now = bt_now_ms();
		struct timespec ts;

		if (atomic_load(&req->h->stopping)) {
			err = -ECANCELED;
			break;
		}
		if (now >= deadline) {
			err = -ETIMEDOUT;
			break;
		}
		ts = bt_abs_ms(deadline - now < CALL_SLICE_MS ? deadline : now + CALL_SLICE_MS);
		pthread_cond_timedwait(&c->done_cond, &c->lock, &ts);
	}
	if (c->done) {
		err = c->err;
		if (c->len && fwrite(c->buf, 1, c->len, out) != c->len && !err)
			err = -ENOMEM;
	} else {
		c->stuck = true;
		atomic_fetch_add(&stuck_calls, 1);
	}
	pthread_mutex_unlock(&c->lock);
	call_put(c);
	return err;
}

/* What libmicrohttpd reports (a client's bad request, a refused connection): debug only. */
static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	char msg[512];

	(void)cls;
	if (!bt_debug_enabled())
		return;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	msg[strcspn(msg, "\n")] = '\0';
	bt_debug("http: %s", msg);
}

/* --- the server ------------------------------------------------------------------------ */

/* "HOST:PORT", "[V6]:PORT", ":PORT" (every address, IPv6 and IPv4) into a bound socket. */
static int listen_on(struct bt_http *h)
{
	const char *s = h->listen, *colon, *port;
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_NUMERICSERV | AI_PASSIVE };
	struct addrinfo *ai = NULL;
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char host[256];
	int fd = -1, one = 1, zero = 0, rc, err;
	char *end;
	unsigned long p;

	if (s[0] == '[') {
		colon = strstr(s, "]:");
		if (!colon)
			return bt_usage_err("--listen '%s': expected [ADDRESS]:PORT", s);
		snprintf(host, sizeof(host), "%.*s", (int)(colon - s - 1), s + 1);
		port = colon + 2;
	} else {
		colon = strrchr(s, ':');
		if (!colon || strchr(s, ':') != colon)
			return bt_usage_err("--listen '%s': expected ADDRESS:PORT", s);
		snprintf(host, sizeof(host), "%.*s", (int)(colon - s), s);
		port = colon + 1;
	}
	errno = 0;
	p = strtoul(port, &end, 10);
	if (!*port || *end || errno || p > 65535)
		return bt_usage_err("--listen '%s': port '%s' is not 0..65535", s, port);
	if (!host[0]) {
		hints.ai_family = AF_INET6;
		snprintf(host, sizeof(host), "::");
	}
	rc = getaddrinfo(host, port, &hints, &ai);
	if (rc && !strcmp(host, "::")) {
		/* a kernel without IPv6: every IPv4 address */
		hints.ai_family = AF_INET;
		rc = getaddrinfo("0.0.0.0", port, &hints, &ai);
	}
	if (rc)
		return bt_usage_err("--listen '%s': %s", s, gai_strerror(rc));
	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		err = -errno;
		bt_err("cannot listen on %s: %s", s, strerror(errno));
		goto cleanup;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (ai->ai_family == AF_INET6 && !strcmp(host, "::"))
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
	/*
	 * The accept queue as long as the kernel allows (net.core.somaxconn, 4096 since 5.4): at
	 * 128, a thousand connections opened at once from one address overflowed it, the kernel
	 * dropped the SYNs past it, and for the next seconds their retries filled it again, so
	 * another client's SYN was dropped too and its connect took the 1 s of a retry.
	 */
	if (bind(fd, ai->ai_addr, ai->ai_addrlen) || listen(fd, LISTEN_BACKLOG)) {
		err = -errno;
		if (errno == EADDRINUSE)
			bt_err("cannot listen on %s: address in use (--listen picks another)", s);
		else
			bt_err("cannot listen on %s: %s", s, strerror(errno));
		goto cleanup;
	}
	if (getsockname(fd, (struct sockaddr *)&ss, &sl) == 0)
		h->port = ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
							 : ((struct sockaddr_in *)&ss)->sin_port);
	h->fd = fd;
	fd = -1;
	err = 0;
cleanup:
	if (fd >= 0)
		close(fd);
	freeaddrinfo(ai);
	return err;
}

/* A regular file (a FIFO or device refused unread) of at most 1 MiB: a PEM file is far less. */
static int read_pem(const char *path, char **out)
{
	size_t len;

	return bt_read_file(path, "", BT_CONFIG_FILE_MAX, out, &len);
}

/*
 * The bcrypt setting checked for a name that is no user's: of the highest cost any user's
 * hash has, so that a 401 for an unknown name takes as long as one for a known name with
 * that cost (users of lower costs answer sooner: give all the same cost).
 */
static int make_dummy(struct bt_http *h)
{
	const char *best = NULL;
	unsigned long cost, best_cost = 0;
	char prefix[5];
	size_t i;

	for (i = 0; i < h->web.nusers; i++) {
		cost = strtoul(h->web.users[i].hash + 4, NULL, 10);
		if (!best || cost > best_cost) {
			best = h->web.users[i].hash;
			best_cost = cost;
		}
	}
	if (!best)
		return 0;
	snprintf(prefix, sizeof(prefix), "%.4s", best);
	if (!bt_http_libs.crypt_gensalt_rn(prefix, best_cost, NULL, 0, h->dummy,
					   sizeof(h->dummy))) {
		bt_err("cannot make a bcrypt salt: %s", strerror(errno));
		return -errno ?: -EINVAL;
	}
	return 0;
}

int bt_http_new(struct bt_http **out, const struct bt_http_opts *opts)
{
	struct bt_http *h;
	size_t i;
	int err;

	*out = NULL;
	err = bt_http_libs_load();
	if (err)
		return err;
	h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	h->fd = -1;
	pthread_mutex_init(&h->lock, NULL);
	pthread_mutex_init(&h->auth_work, NULL);
	bt_cond_init_monotonic(&h->wake);
	h->opts = *opts;
	h->opts.max_conns = opts->max_conns ?: 64;
	h->opts.max_per_ip = opts->max_per_ip ?: 8;
	h->opts.timeout_s = opts->timeout_s ?: 10;
	h->opts.header_timeout_s = opts->header_timeout_s ?: 5;
	h->opts.send_timeout_s = opts->send_timeout_s ?: 30;
	h->opts.max_header = opts->max_header ?: 32 * 1024;
	h->opts.rate = opts->rate ?: 10;
	h->opts.burst = opts->burst ?: 20;
	/*
	 * every bucket full from the start, and its page written now: left to calloc, each new
	 * client's first request touched a page of the 64 KiB table, the RSS growing scrape by
	 * scrape
	 */
	for (i = 0; i < RATE_SLOTS; i++)
		h->buckets[i].tokens = h->opts.burst;
	h->opts.auth_ms = opts->auth_ms ?: 200;
	h->auth_tokens = AUTH_BURST_MS;
	h->auth_last_ms = bt_now_ms();
	/* as many again for those closed and not yet gone, so a new one always finds a place */
	h->nconns = 2 * (size_t)h->opts.max_conns;
	h->conns = calloc(h->nconns, sizeof(*h->conns));
	h->listen = strdup(opts->listen ?: BT_HTTP_DEFAULT_LISTEN);
	if (!h->listen || !h->conns) {
		err = -ENOMEM;
		goto cleanup;
	}
	h->opts.listen = h->listen;
	if (getrandom(h->hash_key, sizeof(h->hash_key), 0) != sizeof(h->hash_key) ||
	    getrandom(h->auth_key, sizeof(h->auth_key), 0) != sizeof(h->auth_key)) {
		err = -errno;
		bt_err("cannot get random bytes: %s", strerror(errno));
		goto cleanup;
	}
	if (opts->web_config) {
		err = bt_web_config_load(&h->web, opts->web_config);
		if (err)
			goto cleanup;
		err = make_dummy(h);
		if (err)
			goto cleanup;
		if (h->web.cert_file) {
			if (!bt_http_libs.is_feature_supported(MHD_FEATURE_TLS)) {
				err = -ENOTSUP;
				bt_err("%s: this libmicrohttpd has no TLS", opts->web_config);
				goto cleanup;
			}
			err = read_pem(h->web.cert_file, &h->cert)
				      ?: read_pem(h->web.key_file, &h->key);
			if (err)
				goto cleanup;
		}
	}
	err = listen_on(h);
	if (err)
		goto cleanup;
	*out = h;
	return 0;
cleanup:
	bt_http_free(h);
	return err;
}

int bt_http_route(struct bt_http *h, const char *path, bt_http_handler fn, void *ctx)
{
	if (h->daemon || h->nroutes == MAX_ROUTES)
		return -EINVAL;
	h->routes[h->nroutes++] = (struct route){ path, fn, ctx };
	return 0;
}

int bt_http_start(struct bt_http *h)
{
	/*
	 * A thread per connection, the listening socket polled by one more. The reason is the
	 * handlers: one may take a minute (a profile of N seconds), and in libmicrohttpd's
	 * single-threaded mode every other client would wait for it. A client that stops reading
	 * would be handled either way (the sends do not block the others; live/exporter passes
	 * in both modes): here it holds its own thread until a deadline. poll(), not select():
	 * descriptors past FD_SETSIZE are not refused. libmicrohttpd's connection limit is the
	 * table's size; on_connection() applies the bounds (its per-address limit would refuse
	 * a new connection where ours closes an old one that sent nothing).
	 */
	unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION |
			     MHD_USE_POLL | MHD_USE_ERROR_LOG;
	struct MHD_OptionItem tls[] = {
		{ MHD_OPTION_HTTPS_MEM_KEY, 0, h->key },
		{ MHD_OPTION_HTTPS_MEM_CERT, 0, h->cert },
		{ MHD_OPTION_END, 0, NULL },
	};

	int err;

	if (h->cert)
		flags |= MHD_USE_TLS;
	/*
	 * The memory limit is each connection's pool: the request line and headers are read
	 * into it, and a request larger than it gets 431 (or is closed) while the others go on.
	 */
	h->daemon = bt_http_libs.start_daemon(
		flags, 0, NULL, NULL, on_request, h, MHD_OPTION_LISTEN_SOCKET, h->fd,
		MHD_OPTION_CONNECTION_LIMIT, (unsigned int)h->nconns, MHD_OPTION_CONNECTION_TIMEOUT,
		h->opts.timeout_s, MHD_OPTION_CONNECTION_MEMORY_LIMIT, h->opts.max_header,
		MHD_OPTION_NOTIFY_CONNECTION, on_connection, h, MHD_OPTION_NOTIFY_COMPLETED,
		on_completed, h, MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL, MHD_OPTION_ARRAY,
		h->cert ? tls : tls + 2, MHD_OPTION_END);
	if (!h->daemon) {
		bt_err("cannot start the HTTP server on %s%s", h->listen,
		       h->cert ? ": are cert_file and key_file a PEM certificate and its key?"
			       : "");
		return -EINVAL;
	}
	h->fd = -1; /* the daemon's now */
	err = -pthread_create(&h->reaper, NULL, reaper, h);
	if (err) {
		bt_err("cannot start a thread: %s", strerror(-err));
		return err;
	}
	h->reaper_on = true;
	return 0;
}

unsigned int bt_http_port(const struct bt_http *h)
{
	return h->port;
}

bool bt_http_tls(const struct bt_http *h)
{
	return h->cert != NULL;
}

void bt_http_free(struct bt_http *h)
{
	if (!h)
		return;
	pthread_mutex_lock(&h->lock);
	atomic_store(&h->stopping, true); /* ends the waits in bt_http_call() */
	pthread_cond_signal(&h->wake);
	pthread_mutex_unlock(&h->lock);
	if (h->daemon)
		bt_http_libs.stop_daemon(h->daemon);
	if (h->reaper_on)
		pthread_join(h->reaper, NULL);
	if (h->fd >= 0)
		close(h->fd);
	bt_web_config_free(&h->web);
	if (h->key) {
		explicit_bzero(h->key, strlen(h->key));
		free(h->key);
	}
	free(h->cert);
	free(h->listen);
	free(h->conns);
	explicit_bzero(h->auth_key, sizeof(h->auth_key));
	explicit_bzero(h->cache, sizeof(h->cache));
	pthread_cond_destroy(&h->wake);
	pthread_mutex_destroy(&h->auth_work);
	pthread_mutex_destroy(&h->lock);
	free(h);
}
