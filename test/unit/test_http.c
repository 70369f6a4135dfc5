// SPDX-License-Identifier: GPL-2.0
/*
 * lib/run/bt_http: the web configuration's YAML subset (what it takes, and one error for
 * anything else), bcrypt hashes made by other programs, and the server on a loopback port of
 * its own: routes, HEAD, 405 for other methods, 404 for ".." and unknown paths, a 1 MiB
 * header refused while the next client is served, the per-client rate bound (429), basic
 * auth (401), query arguments and headers reaching the handler, a streamed body, a handler
 * that takes longer than the idle timeout still answered. And what hostile clients try:
 * headers dripped a byte at a time from many addresses (closed at the absolute deadline,
 * another client served meanwhile), an answer read a little at a time (closed at its
 * deadline), rotating addresses to get a fresh rate bucket, names told apart by the time of
 * their 401, bcrypt past the server's budget (503; a remembered password still served), and
 * a handler's work blocked in a FIFO's open (503 at its deadline, the server stopped at once).
 */
#include <arpa/inet.h>
#include <crypt.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bt_err.h"
#include "bt_http.h"
#include "harness.h"

/* htpasswd -nbB -C 5 alice wonderland (apache2-utils: $2y$) */
#define ALICE_HASH "$2y$05$j7Jy5YWf3rtK69K7zu.ndupr9Ph/joL/QWdEEvhnz.CqgJzz97XM."
/* python3 -c 'import bcrypt; print(bcrypt.hashpw(b"looking-glass", bcrypt.gensalt(5)))' */
#define BOB_HASH "$2b$05$.KXq.88k.j4fdfzUxgd/nO0MR1tgMUrir5wsFRHkhx2F8XSjxuAqm"

static char dir[] = "/tmp/bt_http_test.XXXXXX";

static const char *write_file(const char *name, const char *text)
{
	static char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
	return path;
}

static int load(const char *text, struct bt_web_config *cfg)
{
	return bt_web_config_load(cfg, write_file("web.yml", text));
}

static void test_config_ok(void)
{
	struct bt_web_config cfg;

	CHECK_INT(load("---\n# a comment\n"
		       "tls_server_config:\n"
		       "  cert_file: cert.pem   # relative: to the file's folder\n"
		       "  key_file: \"/etc/k.pem\"\n"
		       "\n"
		       "basic_auth_users:\n"
		       "    alice: " ALICE_HASH "\n"
		       "    bob: '" BOB_HASH "'\n",
		       &cfg),
		  0);
	CHECK(cfg.cert_file && !strncmp(cfg.cert_file, dir, strlen(dir)) &&
	      !strcmp(cfg.cert_file + strlen(dir), "/cert.pem"));
	CHECK_STR(cfg.key_file, "/etc/k.pem");
	CHECK_INT(cfg.nusers, 2);
	if (cfg.nusers == 2) {
		CHECK_STR(cfg.users[0].name, "alice");
		CHECK_STR(cfg.users[0].hash, ALICE_HASH);
		CHECK_STR(cfg.users[1].name, "bob");
		CHECK_STR(cfg.users[1].hash, BOB_HASH);
	}
	bt_web_config_free(&cfg);

	CHECK_INT(load("basic_auth_users:\n  alice: " ALICE_HASH "\n", &cfg), 0);
	CHECK(!cfg.cert_file);
	bt_web_config_free(&cfg);
}

static void test_config_errors(void)
{
	static const char *const bad[] = {
		"http_server_config:\n  http2: false\n",
		"tls_server_config:\n  cert_file: a\n  key_file: b\n  client_auth_type: x\n",
		"tls_server_config:\n  cert_file: a\n",
		"tls_server_config:\n\tcert_file: a\n",
		"tls_server_config:\n  cert_file: a\n    key_file: b\n",
		"tls_server_config: {cert_file: a}\n",
		"basic_auth_users:\n  alice: plain-text\n",
		"basic_auth_users:\n  alice: " ALICE_HASH "\n  alice: " BOB_HASH "\n",
		"basic_auth_users:\n",
		"basic_auth_users:\n  alice:\n",
		"  alice: x\n",
		"tls_server_config:\n  cert_file: 'a\n",
		"tls_server_config:\n  cert_file: \"a\\n\"\n",
		"just text\n",
		"basic_auth_users:\n  alice: " ALICE_HASH "\nbasic_auth_users:\n  b: " BOB_HASH
		"\n",
	};
	struct bt_web_config cfg;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int err = load(bad[i], &cfg);

		if (err != -BT_EUSAGE)
			fprintf(stderr, "case %zu: %d\n", i, err);
		CHECK_INT(err, -BT_EUSAGE);
		CHECK(!cfg.users && !cfg.cert_file);
	}
}

static void test_passwords(void)
{
	CHECK(bt_web_password_ok(ALICE_HASH, "wonderland"));
	CHECK(!bt_web_password_ok(ALICE_HASH, "wonderlanD"));
	CHECK(!bt_web_password_ok(ALICE_HASH, ""));
	CHECK(bt_web_password_ok(BOB_HASH, "looking-glass"));
	CHECK(!bt_web_password_ok(BOB_HASH, "wonderland"));
}

/* A connection to 127.0.0.1:port from 127.0.0.1 (from 0) or from another loopback address. */
static int connect_from(unsigned int port, uint32_t from)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port) };
	struct sockaddr_in src = { .sin_family = AF_INET };
	struct timeval tv = { .tv_sec = 5 };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	src.sin_addr.s_addr = htonl(from ?: INADDR_LOOPBACK);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (bind(fd, (struct sockaddr *)&src, sizeof(src)) ||
	    connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		close(fd);
		return -1;
	}
	return fd;
}

/* 127.0.a.b */
static uint32_t lo(unsigned int a, unsigned int b)
{
	return 0x7f000000u | a << 8 | b;
}

/* ask() from another loopback address (0: 127.0.0.1) */
static ssize_t ask_from(unsigned int port, uint32_t from, const char *req, char *out, size_t cap)
{
	int fd = connect_from(port, from);
	size_t got = 0;
	ssize_t n;

	out[0] = '\0';
	if (fd < 0)
		return -1;
	send(fd, req, strlen(req), MSG_NOSIGNAL);
	while (got < cap - 1 && (n = recv(fd, out + got, cap - 1 - got, 0)) > 0)
		got += n;
	out[got] = '\0';
	close(fd);
	return got;
}

/* One request on a new connection; the answer (up to cap - 1 bytes) in out. */
static ssize_t ask(unsigned int port, const char *req, size_t extra_header, char *out, size_t cap)
{
	int fd = connect_from(port, 0);
	size_t got = 0;
	ssize_t n;

	if (fd < 0)
		return -1;
	if (extra_header) {
		char *big = malloc(extra_header + 16);
		size_t head = strlen(req) - 2; /* before the blank line */

		send(fd, req, head, MSG_NOSIGNAL);
		memcpy(big, "X-Big: ", 7);
		memset(big + 7, 'a', extra_header);
		memcpy(big + 7 + extra_header, "\r\n\r\n", 4);
		send(fd, big, extra_header + 11, MSG_NOSIGNAL);
		free(big);
	} else {
		send(fd, req, strlen(req), MSG_NOSIGNAL);
	}
	while (got < cap - 1 && (n = recv(fd, out + got, cap - 1 - got, 0)) > 0)
		got += n;
	out[got] = '\0';
	close(fd);
	return got;
}

static int status_of(const char *resp)
{
	return !strncmp(resp, "HTTP/1.", 7) ? atoi(resp + 9) : -1;
}

static const char *body_of(const char *resp)
{
	const char *b = strstr(resp, "\r\n\r\n");

	return b ? b + 4 : "";
}

static int hello(struct bt_http_req *req, struct bt_http_resp *resp, void *ctx)
{
	const char *who = bt_http_req_arg(req, "who"), *accept = bt_http_req_header(req, "accept");

	(void)ctx;
	fprintf(resp->out, "hello %s %s", who ? who : "-", accept ? accept : "-");
	resp->type = "text/x-hello";
	resp->header[0][0] = "X-Test";
	resp->header[0][1] = "yes";
	return 0;
}

static int teapot(struct bt_http_req *req, struct bt_http_resp *resp, void *ctx)
{
	(void)req;
	(void)ctx;
	resp->status = 418;
	fputs("short and stout\n", resp->out);
	return 0;
}

static int failing(struct bt_http_req *req, struct bt_http_resp *resp, void *ctx)
{
	return -EIO;
}

static ssize_t count_up(void *ctx, uint64_t pos, char *buf, size_t max)
{
	int *left = ctx;

	if (*left == 0)
		return 0;
	(*left)--;
	return snprintf(buf, max, "%d;", *left);
}

static int streamed(struct bt_http_req *req, struct bt_http_resp *resp, void *ctx)
{
	static int left;

	(void)req;
	(void)ctx;
	left = 3;
	resp->stream = count_up;
	resp->stream_ctx = &left;
	return 0;
}

/* A handler that takes longer than the idle timeout (a profile of N seconds). */
static int slow(struct bt_http_req *req, struct bt_http_resp *resp, void *ctx)
{
	const struct timespec ts = { 2, 500 * 1000 * 1000 };

	nanosleep(&ts, NULL);
	fputs("done\n", resp->out);
	return 0;
}

static struct bt_http *serve(const struct bt_http_opts *o)
{
	struct bt_http *h = NULL;

	if (bt_http_new(&h, o))
		return NULL;
	bt_http_route(h, "/hello", hello, NULL);
	bt_http_route(h, "/teapot", teapot, NULL);
	bt_http_route(h, "/fail", failing, NULL);
	bt_http_route(h, "/stream", streamed, NULL);
	bt_http_route(h, "/slow", slow, NULL);
	if (bt_http_start(h)) {
		bt_http_free(h);
		return NULL;
	}
	return h;
}

static long long ms_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static void test_server(void)
{
	struct bt_http_opts o = { .listen = "127.0.0.1:0", .rate = 1000, .burst = 1000 };
	struct bt_http *h = serve(&o);
	static char r[64 * 1024];
	unsigned int port;
	long long t0;

	CHECK(h != NULL);
	if (!h)
		return;
	port = bt_http_port(h);
	CHECK(port > 0);
	CHECK(!bt_http_tls(h));

	ask(port,
	    "GET /hello?who=me HTTP/1.1\r\nHost: x\r\nAccept: text/plain\r\n"
	    "Connection: close\r\n\r\n",
	    0, r, sizeof(r));
	CHECK_INT(status_of(r), 200);
	CHECK_STR(body_of(r), "hello me text/plain");
	CHECK(strstr(r, "Content-Type: text/x-hello\r\n") != NULL);
	CHECK(strstr(r, "X-Test: yes\r\n") != NULL);

	ask(port, "HEAD /hello HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 0, r, sizeof(r));
	CHECK_INT(status_of(r), 200);
	CHECK_STR(body_of(r), "");

	ask(port,
	    "POST /hello HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nConnection: close\r\n\r\nabc",
	    0, r, sizeof(r));
	CHECK_INT(status_of(r), 405);
	CHECK(strstr(r, "Allow: GET, HEAD\r\n") != NULL);
	ask(port, "DELETE /hello HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 0, r,
	    sizeof(r));
	CHECK_INT(status_of(r), 405);

	ask(port, "GET /../hello HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 0, r,
	    sizeof(r));
	CHECK_INT(status_of(r), 404);
	ask(port, "GET /x/%2e%2e/hello HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 0, r,
	    sizeof(r));
	CHECK_INT(status_of(r), 404);
	ask(port, "GET /nothing HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 0, r, sizeof(r));
	CHECK_INT(status_of(r), 404);

	ask(port, "GET /teapot HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 0, r, sizeof(r));
	CHECK_INT(status_of(r), 418);
	CHECK_STR(body_of(r), "short and stout\n");
	ask(port, "GET /fail HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 0, r, sizeof(r));
	CHECK_INT(status_of(r), 500);
	CHECK(strstr(body_of(r), "Input/output error") != NULL);

	/* chunked: "2;" "1;" "0;" */
	ask(port, "GET /stream HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 0, r, sizeof(r));
	CHECK_INT(status_of(r), 200);
	CHECK(strstr(r, "Transfer-Encoding: chunked") != NULL);
	CHECK(strstr(body_of(r), "2;") && strstr(body_of(r), "1;") && strstr(body_of(r), "0;"));

	/* 1 MiB of header: refused (431, or the connection closed), and the next one served */
	ask(port, "GET /hello HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 1 << 20, r,
	    sizeof(r));
	CHECK(status_of(r) == 431 || status_of(r) == 413 || r[0] == '\0');
	CHECK(status_of(r) != 200);
	t0 = ms_now();
	ask(port, "GET /hello HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 0, r, sizeof(r));
	CHECK_INT(status_of(r), 200);
	CHECK(ms_now() - t0 < 1000);
	bt_http_free(h);
}

static char slow_resp[4096];

static void *ask_slow(void *arg)
{
	ask(*(unsigned int *)arg, "GET /slow HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 0,
	    slow_resp, sizeof(slow_resp));
	return NULL;
}

/* A slow handler (2.5 s, past the 1 s idle timeout) is answered, and holds up no other client. */
static void test_slow_handler(void)
{
	struct bt_http_opts o = { .listen = "127.0.0.1:0", .timeout_s = 1 };
	const struct timespec pause = { 0, 200 * 1000 * 1000 };
	struct bt_http *h = serve(&o);
	static char r[4096];
	unsigned int port;
	pthread_t t;
	long long t0;

	CHECK(h != NULL);
	if (!h)
		return;
	port = bt_http_port(h);
	CHECK_INT(pthread_create(&t, NULL, ask_slow, &port), 0);
	nanosleep(&pause, NULL);
	t0 = ms_now();
	ask(port, "GET /hello HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 0, r, sizeof(r));
	CHECK_INT(status_of(r), 200);
	CHECK(ms_now() - t0 < 1000);
	pthread_join(t, NULL);
	CHECK_INT(status_of(slow_resp), 200);
	CHECK_STR(body_of(slow_resp), "done\n");
	bt_http_free(h);
}

static void test_rate(void)
{
	struct bt_http_opts o = { .listen = "127.0.0.1:0", .rate = 1, .burst = 3 };
	struct bt_http *h = serve(&o);
	static char r[4096];
	int i, ok = 0, limited = 0;

	CHECK(h != NULL);
	if (!h)
		return;
	for (i = 0; i < 5; i++) {
		ask(bt_http_port(h), "GET /hello HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
		    0, r, sizeof(r));
		if (status_of(r) == 200)
			ok++;
		else if (status_of(r) == 429 && strstr(r, "Retry-After: 1\r\n"))
			limited++;
	}
	CHECK_INT(ok, 3);
	CHECK_INT(limited, 2);
	bt_http_free(h);
}

static void test_auth(void)
{
	struct bt_http_opts o = { .listen = "127.0.0.1:0" };
	struct bt_http *h;
	static char r[4096], req[512];
	const char *basic[] = {
		"YWxpY2U6d29uZGVybGFuZA==",	/* alice:wonderland */
		"Ym9iOmxvb2tpbmctZ2xhc3M=",	/* bob:looking-glass */
		"YWxpY2U6bG9va2luZy1nbGFzcw==", /* alice:looking-glass */
		"ZXZlOndvbmRlcmxhbmQ=",		/* eve:wonderland */
	};
	int i;

	o.web_config = write_file("auth.yml", "basic_auth_users:\n  alice: " ALICE_HASH
					      "\n  bob: " BOB_HASH "\n");
	h = serve(&o);
	CHECK(h != NULL);
	if (!h)
		return;
	ask(bt_http_port(h), "GET /hello HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 0, r,
	    sizeof(r));
	CHECK_INT(status_of(r), 401);
	CHECK(strstr(r, "WWW-Authenticate: Basic realm=\"bpftools\"") != NULL);
	for (i = 0; i < 4; i++) {
		snprintf(req, sizeof(req),
			 "GET /hello HTTP/1.1\r\nHost: x\r\nAuthorization: Basic %s\r\n"
			 "Connection: close\r\n\r\n",
			 basic[i]);
		ask(bt_http_port(h), req, 0, r, sizeof(r));
		CHECK_INT(status_of(r), i < 2 ? 200 : 401);
	}
	bt_http_free(h);
}

#define GET_HELLO "GET /hello HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"

struct slow {
	int fd;
	long long start, closed; /* ms; closed 0: still open */
};

/*
 * Drips a byte of a never-ending header into each connection every 200 ms, until each is
 * closed or until ms have passed; a close is seen as recv() ending or a send failing.
 */
static void drip(struct slow *sl, size_t n, long long ms)
{
	long long end = ms_now() + ms, next = 0;
	size_t i, open;

	for (;;) {
		long long now = ms_now();

		for (i = open = 0; i < n; i++) {
			struct pollfd p = { .fd = sl[i].fd, .events = POLLIN };
			char c;

			if (sl[i].closed)
				continue;
			if ((poll(&p, 1, 0) == 1 && recv(sl[i].fd, &c, 1, MSG_DONTWAIT) <= 0) ||
			    (now >= next && send(sl[i].fd, "a", 1, MSG_NOSIGNAL) != 1))
				sl[i].closed = now;
			else
				open++;
		}
		if (now >= next)
			next = now + 200;
		if (!open || now >= end)
			return;
		poll(NULL, 0, 20);
	}
}

/* The start of a request that is never finished. */
static struct slow slow_client(unsigned int port, uint32_t from)
{
	struct slow sl = { .fd = connect_from(port, from), .start = ms_now() };
	static const char head[] = "GET /hello HTTP/1.1\r\nHost: x\r\nX-Slow: ";

	if (sl.fd >= 0)
		send(sl.fd, head, sizeof(head) - 1, MSG_NOSIGNAL);
	else
		sl.closed = sl.start;
	return sl;
}

static struct bt_http *slow_server;
static char slow_good[2][4096];
static long long slow_good_ms[2];

/* Two other clients, while the slow ones drip: one from an address of its own, one from theirs. */
static void *ask_good(void *arg)
{
	unsigned int port = bt_http_port(slow_server);
	long long t0;

	(void)arg;
	poll(NULL, 0, 300);
	t0 = ms_now();
	ask_from(port, lo(0, 20), GET_HELLO, slow_good[0], sizeof(slow_good[0]));
	slow_good_ms[0] = ms_now() - t0;
	t0 = ms_now();
	ask_from(port, lo(0, 2), GET_HELLO, slow_good[1], sizeof(slow_good[1]));
	slow_good_ms[1] = ms_now() - t0;
	return NULL;
}

/*
 * 16 clients from 4 addresses fill every place, dripping a header byte every 200 ms (each
 * byte restarts the idle timeout, not the deadline): each is closed 1 s (the deadline) from
 * its start, not before (but for the two that make room), and two other clients are served
 * within a second meanwhile.
 */
static void test_header_deadline(void)
{
	struct bt_http_opts o = {
		.listen = "127.0.0.1:0", .max_conns = 16, .max_per_ip = 4, .header_timeout_s = 1
	};
	struct slow sl[16];
	pthread_t t;
	size_t i, early = 0, late = 0;

	slow_server = serve(&o);
	CHECK(slow_server != NULL);
	if (!slow_server)
		return;
	for (i = 0; i < 16; i++)
		sl[i] = slow_client(bt_http_port(slow_server), lo(0, 2 + i / 4));
	CHECK_INT(pthread_create(&t, NULL, ask_good, NULL), 0);
	drip(sl, 16, 4000);
	pthread_join(t, NULL);
	for (i = 0; i < 2; i++) {
		CHECK_INT(status_of(slow_good[i]), 200);
		CHECK(slow_good_ms[i] < 1000);
	}
	for (i = 0; i < 16; i++) {
		long long life = sl[i].closed - sl[i].start;

		CHECK(sl[i].closed != 0);
		if (life < 900)
			early++;
		else if (life <= 1700)
			late++;
		else
			fprintf(stderr, "slow client %zu: closed after %lld ms\n", i, life);
		close(sl[i].fd);
	}
	/* two made room for the others, and could have been any two */
	CHECK(early <= 2);
	CHECK_INT(early + late, 16);
	bt_http_free(slow_server);
}

/* Without end, 1 KiB a call: a client must read it. */
static ssize_t endless(void *ctx, uint64_t pos, char *buf, size_t max)
{
	(void)ctx;
	(void)pos;
	max = max < 1024 ? max : 1024;
	memset(buf, 'x', max);
	return max;
}

static int endless_page(struct bt_http_req *req, struct bt_http_resp *resp, void *ctx)
{
	(void)req;
	(void)ctx;
	resp->stream = endless;
	return 0;
}

/*
 * A client taking an endless answer slowly (a little every 100 ms, so never idle) is cut off
 * at the deadline (1 s): reading as fast as it can after 1.5 s, it meets the end.
 */
static void test_send_deadline(void)
{
	struct bt_http_opts o = { .listen = "127.0.0.1:0", .send_timeout_s = 1 };
	struct bt_http *h = NULL;
	long long t0;
	int fd;
	static char buf[64 * 1024];
	ssize_t n = 1;

	if (bt_http_new(&h, &o) == 0) {
		bt_http_route(h, "/endless", endless_page, NULL);
		if (bt_http_start(h)) {
			bt_http_free(h);
			h = NULL;
		}
	}
	CHECK(h != NULL);
	if (!h)
		return;
	fd = connect_from(bt_http_port(h), 0);
	CHECK(fd >= 0);
	if (fd < 0)
		goto cleanup;
	t0 = ms_now();
	send(fd, "GET /endless HTTP/1.1\r\nHost: x\r\n\r\n", 34, MSG_NOSIGNAL);
	while (ms_now() - t0 < 1500 && (n = recv(fd, buf, 256, 0)) > 0)
		poll(NULL, 0, 100);
	CHECK(n > 0); /* not cut off before the deadline */
	while (ms_now() - t0 < 4500 && (n = recv(fd, buf, sizeof(buf), 0)) > 0)
		;
	CHECK(n <= 0);
	close(fd);
cleanup:
	bt_http_free(h);
}

/*
 * A client at its rate bound gets no fresh bucket by others (or itself) asking from 300
 * other addresses: the table keeps every bucket (the old one forgot the least recent of 256).
 */
static void test_rate_rotation(void)
{
	struct bt_http_opts o = { .listen = "127.0.0.1:0", .rate = 1, .burst = 2 };
	struct bt_http *h = serve(&o);
	static char r[4096];
	long long t0;
	int i, ok = 0;

	CHECK(h != NULL);
	if (!h)
		return;
	for (i = 0; i < 3; i++) {
		ask_from(bt_http_port(h), lo(0, 2), GET_HELLO, r, sizeof(r));
		ok += status_of(r) == 200;
	}
	CHECK_INT(ok, 2);
	t0 = ms_now();
	for (i = 0; i < 300; i++)
		ask_from(bt_http_port(h), lo(1 + i / 200, 10 + i % 200), GET_HELLO, r, sizeof(r));
	ask_from(bt_http_port(h), lo(0, 2), GET_HELLO, r, sizeof(r));
	/* a second refills a token: only a quicker run says anything */
	if (ms_now() - t0 < 900)
		CHECK_INT(status_of(r), 429);
	else
		fprintf(stderr, "# 300 requests took %lld ms: no check\n", ms_now() - t0);
	bt_http_free(h);
}

/*
 * A client at its bound leaves other clients their requests: 5,000 of them asking once each
 * are all served. With one bucket an address in a table of 1,024, 3-7 of them shared the busy
 * one's and were refused; with two, a client is refused only when both of its are empty.
 */
static void test_rate_neighbours(void)
{
	struct bt_http_opts o = { .listen = "127.0.0.1:0", .rate = 1, .burst = 20 };
	struct bt_http *h = serve(&o);
	static char r[4096];
	int i, refused = 0;

	CHECK(h != NULL);
	if (!h)
		return;
	for (i = 0; i < 25; i++)
		ask_from(bt_http_port(h), lo(0, 2), GET_HELLO, r, sizeof(r));
	CHECK_INT(status_of(r), 429);
	for (i = 0; i < 5000; i++) {
		ask_from(bt_http_port(h), lo(1 + i / 250, 1 + i % 250), GET_HELLO, r, sizeof(r));
		refused += status_of(r) != 200;
	}
	CHECK_INT(refused, 0);
	bt_http_free(h);
}

static char *make_hash(unsigned long cost, const char *password)
{
	char setting[64];
	struct crypt_data *cd = calloc(1, sizeof(*cd));
	const char *h;
	char *out = NULL;

	if (cd && crypt_gensalt_rn("$2y$", cost, NULL, 0, setting, sizeof(setting)) &&
	    (h = crypt_rn(password, setting, cd, sizeof(*cd))) && h[0] == '$')
		out = strdup(h);
	free(cd);
	return out;
}

static int auth_status(unsigned int port, const char *basic, long long *ms)
{
	static char r[4096];
	char req[512];
	long long t0 = ms_now();

	snprintf(req, sizeof(req),
		 "GET /hello HTTP/1.1\r\nHost: x\r\nAuthorization: Basic %s\r\n"
		 "Connection: close\r\n\r\n",
		 basic);
	ask(port, req, 0, r, sizeof(r));
	if (ms)
		*ms = ms_now() - t0;
	if (status_of(r) == 503)
		CHECK(strstr(r, "Retry-After: 1\r\n") != NULL);
	return status_of(r);
}

#define ALICE_RIGHT "YWxpY2U6d29uZGVybGFuZA=="	   /* alice:wonderland */
#define ALICE_WRONG "YWxpY2U6bG9va2luZy1nbGFzcw==" /* alice:looking-glass */
#define EVE "ZXZlOndvbmRlcmxhbmQ="		   /* eve:wonderland */
#define BOB_RIGHT "Ym9iOmxvb2tpbmctZ2xhc3M="	   /* bob:looking-glass */

/* A 401 for a name that is no user's takes as long as one for a user's wrong password. */
static void test_auth_timing(void)
{
	struct bt_http_opts o = { .listen = "127.0.0.1:0", .rate = 1000, .burst = 1000 };
	char *hash = make_hash(9, "wonderland"), cfg[256];
	long long ms, known = LLONG_MAX, unknown = LLONG_MAX;
	struct bt_http *h;
	int i;

	CHECK(hash != NULL);
	if (!hash)
		return;
	snprintf(cfg, sizeof(cfg), "basic_auth_users:\n  alice: %s\n", hash);
	o.web_config = write_file("timing.yml", cfg);
	h = serve(&o);
	CHECK(h != NULL);
	for (i = 0; h && i < 5; i++) {
		CHECK_INT(auth_status(bt_http_port(h), ALICE_WRONG, &ms), 401);
		known = ms < known ? ms : known;
		CHECK_INT(auth_status(bt_http_port(h), EVE, &ms), 401);
		unknown = ms < unknown ? ms : unknown;
	}
	/* the fastest of five each: cost 9 is some 30 ms of bcrypt, a request without it < 1 ms */
	fprintf(stderr, "# 401 in %lld ms for a known name, %lld ms for an unknown one\n", known,
		unknown);
	CHECK(known >= 5 && unknown >= 5);
	CHECK(unknown * 3 >= known && known * 3 >= unknown);
	bt_http_free(h);
	free(hash);
}

/*
 * bcrypt past the budget (1 ms of CPU a second, 500 ms at once) is refused quickly with 503,
 * known name or not; a password found right before is remembered and still served, one
 * never checked is not; the CPU spent stays within the budget.
 */
static void test_auth_budget(void)
{
	struct bt_http_opts o = {
		.listen = "127.0.0.1:0", .rate = 1000, .burst = 1000, .auth_ms = 1
	};
	char *alice = make_hash(9, "wonderland"), *bob = make_hash(9, "looking-glass"), cfg[512];
	struct timespec c0, c1;
	struct bt_http *h;
	long long ms;
	int i, checked = 0, busy = 0;

	CHECK(alice && bob);
	if (!alice || !bob)
		goto cleanup;
	snprintf(cfg, sizeof(cfg), "basic_auth_users:\n  alice: %s\n  bob: %s\n", alice, bob);
	o.web_config = write_file("budget.yml", cfg);
	h = serve(&o);
	CHECK(h != NULL);
	if (!h)
		goto cleanup;
	CHECK_INT(auth_status(bt_http_port(h), ALICE_RIGHT, NULL), 200);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
	for (i = 0; i < 200 && busy < 5; i++) {
		int st = auth_status(bt_http_port(h), i % 2 ? EVE : ALICE_WRONG, &ms);

		checked += st == 401;
		if (st == 503) {
			busy++;
			CHECK(ms < 200);
		}
	}
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
	fprintf(stderr, "# %d password checks before 503s; %.0f ms of CPU\n", checked,
		(c1.tv_sec - c0.tv_sec) * 1e3 + (c1.tv_nsec - c0.tv_nsec) / 1e6);
	CHECK_INT(busy, 5);
	/* 500 ms at once: some 20 checks of cost 9, and not a hundred */
	CHECK(checked >= 3 && checked < 100);
	CHECK_INT(auth_status(bt_http_port(h), ALICE_RIGHT, &ms), 200);
	CHECK(ms < 200);
	CHECK_INT(auth_status(bt_http_port(h), BOB_RIGHT, NULL), 503);
	CHECK_INT(auth_status(bt_http_port(h), EVE, NULL), 503);
	bt_http_free(h);
cleanup:
	free(alice);
	free(bob);
}

/* --- bt_http_call() --- */

static char fifo[256];

/* Blocks in open() until a writer opens the FIFO: a profile's read of a FIFO perf map. */
static int open_fifo(void *arg, FILE *out)
{
	int fd = open(fifo, O_RDONLY | O_CLOEXEC);

	(void)arg;
	if (fd < 0)
		return -errno;
	close(fd);
	fputs("unblocked\n", out);
	return 0;
}

static int say(void *arg, FILE *out)
{
	fprintf(out, "said %d\n", *(int *)arg);
	return 0;
}

static int call_page(struct bt_http_req *req, struct bt_http_resp *resp, void *ctx)
{
	const char *what = bt_http_req_arg(req, "what");
	int n = 42, err;

	(void)ctx;
	if (what && !strcmp(what, "block"))
		err = bt_http_call(req, open_fifo, NULL, NULL, 0, 1000, resp->out);
	else
		err = bt_http_call(req, say, NULL, &n, sizeof(n), 1000, resp->out);
	if (err == -ETIMEDOUT || err == -ECANCELED || err == -EBUSY) {
		resp->status = 503;
		fprintf(resp->out, "%s\n", strerror(-err));
		return 0;
	}
	return err;
}

static unsigned int call_port;
static char call_resp[4096];

static void *ask_block(void *arg)
{
	(void)arg;
	ask(call_port, "GET /call?what=block HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 0,
	    call_resp, sizeof(call_resp));
	return NULL;
}

/*
 * Work blocked in a FIFO's open: 503 at the deadline (1 s), and the next request is not held
 * by it; past BT_HTTP_MAX_STUCK such threads, 503 at once; once they end, calls work again;
 * and a server stopping while a call waits stops at once.
 */
static void test_call_deadline(void)
{
	struct bt_http_opts o = { .listen = "127.0.0.1:0", .rate = 1000, .burst = 1000 };
	static const char block[] = "GET /call?what=block HTTP/1.1\r\nHost: x\r\nConnection: "
				    "close\r\n\r\n";
	static const char quick[] = "GET /call HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
	static char r[4096];
	struct bt_http *h = NULL;
	long long t0, ms;
	pthread_t t;
	int i, fd;

	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	CHECK_INT(mkfifo(fifo, 0600), 0);
	if (bt_http_new(&h, &o) == 0) {
		bt_http_route(h, "/call", call_page, NULL);
		if (bt_http_start(h)) {
			bt_http_free(h);
			h = NULL;
		}
	}
	CHECK(h != NULL);
	if (!h)
		goto cleanup;
	call_port = bt_http_port(h);
	ask(call_port, quick, 0, r, sizeof(r));
	CHECK_INT(status_of(r), 200);
	CHECK_STR(body_of(r), "said 42\n");
	for (i = 0; i < BT_HTTP_MAX_STUCK; i++) {
		t0 = ms_now();
		ask(call_port, block, 0, r, sizeof(r));
		ms = ms_now() - t0;
		CHECK_INT(status_of(r), 503);
		CHECK(strstr(body_of(r), "timed out") != NULL);
		CHECK(ms >= 900 && ms < 2000);
	}
	/* BT_HTTP_MAX_STUCK threads blocked: no more started */
	t0 = ms_now();
	ask(call_port, quick, 0, r, sizeof(r));
	CHECK_INT(status_of(r), 503);
	CHECK(strstr(body_of(r), "busy") != NULL);
	CHECK(ms_now() - t0 < 500);
	/* a writer ends their opens; they end, and calls are made again */
	fd = open(fifo, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
	CHECK(fd >= 0);
	poll(NULL, 0, 200);
	if (fd >= 0)
		close(fd);
	ask(call_port, quick, 0, r, sizeof(r));
	CHECK_INT(status_of(r), 200);
	CHECK_STR(body_of(r), "said 42\n");
	/* stopping while a call waits: at once, not at its deadline */
	CHECK_INT(pthread_create(&t, NULL, ask_block, NULL), 0);
	poll(NULL, 0, 300);
	t0 = ms_now();
	bt_http_free(h);
	ms = ms_now() - t0;
	pthread_join(t, NULL);
	CHECK(ms < 500);
	CHECK(status_of(call_resp) == 503 || call_resp[0] == '\0');
	fd = open(fifo, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd >= 0)
		close(fd);
cleanup:
	unlink(fifo);
}

static void test_listen_errors(void)
{
	struct bt_http_opts o = { 0 };
	struct bt_http *h = NULL, *h2 = NULL;
	static const char *const bad[] = { "127.0.0.1", "127.0.0.1:x", "127.0.0.1:70000",
					   "::1:80",	"[::1]80",     "nohost.invalid:80" };
	size_t i;
	char addr[64];

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		o.listen = bad[i];
		CHECK_INT(bt_http_new(&h, &o), -BT_EUSAGE);
		CHECK(h == NULL);
	}
	/* a port in use: said, and a runtime error */
	o.listen = "127.0.0.1:0";
	CHECK_INT(bt_http_new(&h, &o), 0);
	if (!h)
		return;
	snprintf(addr, sizeof(addr), "127.0.0.1:%u", bt_http_port(h));
	o.listen = addr;
	CHECK_INT(bt_http_new(&h2, &o), -EADDRINUSE);
	bt_http_free(h);
}

int main(void)
{
	if (!mkdtemp(dir))
		return 1;
	bt_set_progname("test_http");
	BT_RUN(test_config_ok);
	BT_RUN(test_config_errors);
	BT_RUN(test_passwords);
	BT_RUN(test_server);
	BT_RUN(test_slow_handler);
	BT_RUN(test_rate);
	BT_RUN(test_auth);
	BT_RUN(test_header_deadline);
	BT_RUN(test_send_deadline);
	BT_RUN(test_rate_rotation);
	BT_RUN(test_rate_neighbours);
	BT_RUN(test_auth_timing);
	BT_RUN(test_auth_budget);
	BT_RUN(test_call_deadline);
	BT_RUN(test_listen_errors);
	unlink(write_file("web.yml", ""));
	unlink(write_file("auth.yml", ""));
	unlink(write_file("timing.yml", ""));
	unlink(write_file("budget.yml", ""));
	rmdir(dir);
	return bt_test_done();
}
