// SPDX-License-Identifier: GPL-2.0
#include <arpa/inet.h>
#include <crypt.h>
#include <errno.h>
#include <limits.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "bt_err.h"
#include "bt_http.h"
#include "bt_input.h"

#define MAX_ROUTES 16
#define RATE_SLOTS 256 /* client addresses remembered; the least recent goes first */

struct route {
	const char *path;
	bt_http_handler fn;
	void *ctx;
};

struct bucket {
	unsigned char addr[16]; /* IPv6, or IPv4 as ::ffff:a.b.c.d */
	double tokens;
	long long last_ms;
	bool used;
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
	pthread_mutex_t lock; /* the buckets */
	struct bucket buckets[RATE_SLOTS];
};

struct bt_http_req {
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
	       crypt_checksalt(h) == CRYPT_SALT_OK;
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

	if (!cd)
		return false;
	got = crypt_rn(password, hash, cd, sizeof(*cd));
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
	return MHD_lookup_connection_value(req->conn, MHD_GET_ARGUMENT_KIND, name);
}

const char *bt_http_req_header(const struct bt_http_req *req, const char *name)
{
	return MHD_lookup_connection_value(req->conn, MHD_HEADER_KIND, name);
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static void addr_key(const struct sockaddr *sa, unsigned char key[16])
{
	memset(key, 0, 16);
	if (sa && sa->sa_family == AF_INET6) {
		memcpy(key, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
	} else if (sa && sa->sa_family == AF_INET) {
		key[10] = key[11] = 0xff;
		memcpy(key + 12, &((const struct sockaddr_in *)sa)->sin_addr, 4);
	}
}

/* A token bucket per client address: rate a second, up to burst at once. */
static bool rate_ok(struct bt_http *h, const struct sockaddr *sa)
{
	struct bucket *b = NULL, *oldest = NULL;
	unsigned char key[16];
	long long now = now_ms();
	bool ok;
	size_t i;

	addr_key(sa, key);
	pthread_mutex_lock(&h->lock);
	for (i = 0; i < RATE_SLOTS; i++) {
		struct bucket *c = &h->buckets[i];

		if (c->used && !memcmp(c->addr, key, 16)) {
			b = c;
			break;
		}
		if (!oldest || !c->used || (oldest->used && c->last_ms < oldest->last_ms))
			oldest = c;
	}
	if (!b) {
		b = oldest;
		memcpy(b->addr, key, 16);
		b->tokens = h->opts.burst;
		b->last_ms = now;
		b->used = true;
	}
	b->tokens += (now - b->last_ms) * (double)h->opts.rate / 1000;
	if (b->tokens > h->opts.burst)
		b->tokens = h->opts.burst;
	b->last_ms = now;
	ok = b->tokens >= 1;
	if (ok)
		b->tokens -= 1;
	pthread_mutex_unlock(&h->lock);
	return ok;
}

static enum MHD_Result send_text(struct MHD_Connection *conn, unsigned int status, const char *text,
				 const char *hname, const char *hvalue)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = MHD_create_response_from_buffer(strlen(text), (void *)text, MHD_RESPMEM_PERSISTENT);
	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8");
	if (hname)
		MHD_add_response_header(r, hname, hvalue);
	ret = MHD_queue_response(conn, status, r);
	MHD_destroy_response(r);
	return ret;
}

static bool user_ok(struct bt_http *h, struct MHD_Connection *conn)
{
	char *pass = NULL, *user;
	bool ok = false;
	size_t i;

	user = MHD_basic_auth_get_username_password(conn, &pass);
	if (user && pass) {
		for (i = 0; i < h->web.nusers; i++) {
			if (!strcmp(h->web.users[i].name, user)) {
				ok = bt_web_password_ok(h->web.users[i].hash, pass);
				break;
			}
		}
	}
	if (pass) {
		explicit_bzero(pass, strlen(pass));
		MHD_free(pass);
	}
	MHD_free(user);
	return ok;
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
		r = MHD_create_response_from_buffer(strlen(msg), msg, MHD_RESPMEM_MUST_COPY);
		if (!r)
			return MHD_NO;
		MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
					"text/plain; charset=utf-8");
		ret = MHD_queue_response(req->conn, 500, r);
		MHD_destroy_response(r);
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
		r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 16 * 1024, stream_read, s,
						      stream_done);
		if (!r) {
			stream_done(s);
			return MHD_NO;
		}
	} else {
		r = MHD_create_response_from_buffer(len, buf, MHD_RESPMEM_MUST_FREE);
		if (!r) {
			free(buf);
			return MHD_NO;
		}
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
				resp.type ? resp.type : "text/plain; charset=utf-8");
	for (i = 0; i < sizeof(resp.header) / sizeof(resp.header[0]) && resp.header[i][0]; i++)
		MHD_add_response_header(r, resp.header[i][0], resp.header[i][1]);
	ret = MHD_queue_response(req->conn, resp.status, r);
	MHD_destroy_response(r);
	return ret;
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
	const union MHD_ConnectionInfo *ci;
	struct bt_http_req req = { .conn = conn, .path = url };
	size_t i;

	(void)version;
	(void)upload_data;
	(void)upload_data_size;
	(void)con_cls;
	req.head = !strcmp(method, MHD_HTTP_METHOD_HEAD);
	if (strcmp(method, MHD_HTTP_METHOD_GET) && !req.head)
		return send_text(conn, MHD_HTTP_METHOD_NOT_ALLOWED, "only GET and HEAD\n",
				 MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	if (!rate_ok(h, ci ? ci->client_addr : NULL))
		return send_text(conn, MHD_HTTP_TOO_MANY_REQUESTS, "too many requests\n",
				 MHD_HTTP_HEADER_RETRY_AFTER, "1");
	if (h->web.nusers && !user_ok(h, conn)) {
		struct MHD_Response *r;
		enum MHD_Result ret;
		static const char text[] = "unauthorized\n";

		r = MHD_create_response_from_buffer(sizeof(text) - 1, (void *)text,
						    MHD_RESPMEM_PERSISTENT);
		if (!r)
			return MHD_NO;
		ret = MHD_queue_basic_auth_fail_response(conn, "bpftools", r);
		MHD_destroy_response(r);
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
	if (bind(fd, ai->ai_addr, ai->ai_addrlen) || listen(fd, 128)) {
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

int bt_http_new(struct bt_http **out, const struct bt_http_opts *opts)
{
	struct bt_http *h;
	int err;

	*out = NULL;
	h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	h->fd = -1;
	pthread_mutex_init(&h->lock, NULL);
	h->opts = *opts;
	h->opts.max_conns = opts->max_conns ?: 64;
	h->opts.max_per_ip = opts->max_per_ip ?: 8;
	h->opts.timeout_s = opts->timeout_s ?: 10;
	h->opts.max_header = opts->max_header ?: 32 * 1024;
	h->opts.rate = opts->rate ?: 10;
	h->opts.burst = opts->burst ?: 20;
	h->listen = strdup(opts->listen ?: BT_HTTP_DEFAULT_LISTEN);
	if (!h->listen) {
		err = -ENOMEM;
		goto cleanup;
	}
	h->opts.listen = h->listen;
	if (opts->web_config) {
		err = bt_web_config_load(&h->web, opts->web_config);
		if (err)
			goto cleanup;
		if (h->web.cert_file) {
			if (!MHD_is_feature_supported(MHD_FEATURE_TLS)) {
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
	 * in both modes): here it holds its own thread until the timeout. poll(), not select():
	 * descriptors past FD_SETSIZE are not refused.
	 */
	unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION |
			     MHD_USE_POLL | MHD_USE_ERROR_LOG;
	struct MHD_OptionItem tls[] = {
		{ MHD_OPTION_HTTPS_MEM_KEY, 0, h->key },
		{ MHD_OPTION_HTTPS_MEM_CERT, 0, h->cert },
		{ MHD_OPTION_END, 0, NULL },
	};

	if (h->cert)
		flags |= MHD_USE_TLS;
	/*
	 * The memory limit is each connection's pool: the request line and headers are read
	 * into it, and a request larger than it gets 431 (or is closed) while the others go on.
	 */
	h->daemon = MHD_start_daemon(
		flags, 0, NULL, NULL, on_request, h, MHD_OPTION_LISTEN_SOCKET, h->fd,
		MHD_OPTION_CONNECTION_LIMIT, h->opts.max_conns, MHD_OPTION_PER_IP_CONNECTION_LIMIT,
		h->opts.max_per_ip, MHD_OPTION_CONNECTION_TIMEOUT, h->opts.timeout_s,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, h->opts.max_header, MHD_OPTION_EXTERNAL_LOGGER,
		mhd_log, NULL, MHD_OPTION_ARRAY, h->cert ? tls : tls + 2, MHD_OPTION_END);
	if (!h->daemon) {
		bt_err("cannot start the HTTP server on %s%s", h->listen,
		       h->cert ? ": are cert_file and key_file a PEM certificate and its key?"
			       : "");
		return -EINVAL;
	}
	h->fd = -1; /* the daemon's now */
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
	if (h->daemon)
		MHD_stop_daemon(h->daemon);
	if (h->fd >= 0)
		close(h->fd);
	bt_web_config_free(&h->web);
	if (h->key) {
		explicit_bzero(h->key, strlen(h->key));
		free(h->key);
	}
	free(h->cert);
	free(h->listen);
	pthread_mutex_destroy(&h->lock);
	free(h);
}
