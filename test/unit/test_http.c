// SPDX-License-Identifier: GPL-2.0
/*
 * lib/run/bt_http: the web configuration's YAML subset (what it takes, and one error for
 * anything else), bcrypt hashes made by other programs, and the server on a loopback port of
 * its own: routes, HEAD, 405 for other methods, 404 for ".." and unknown paths, a 1 MiB
 * header refused while the next client is served, the per-client rate bound (429), basic
 * auth (401), query arguments and headers reaching the handler, a streamed body, a handler
 * that takes longer than the idle timeout still answered.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
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

/* One request on a new connection; the answer (up to cap - 1 bytes) in out. */
static ssize_t ask(unsigned int port, const char *req, size_t extra_header, char *out, size_t cap)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port) };
	struct timeval tv = { .tv_sec = 5 };
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	size_t got = 0;
	ssize_t n;

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		close(fd);
		return -1;
	}
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

static void test_slow_handler(void)
{
	struct bt_http_opts o = { .listen = "127.0.0.1:0", .timeout_s = 1 };
	struct bt_http *h = serve(&o);
	static char r[4096];

	CHECK(h != NULL);
	if (!h)
		return;
	ask(bt_http_port(h), "GET /slow HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 0, r,
	    sizeof(r));
	CHECK_INT(status_of(r), 200);
	CHECK_STR(body_of(r), "done\n");
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
	BT_RUN(test_listen_errors);
	unlink(write_file("web.yml", ""));
	unlink(write_file("auth.yml", ""));
	rmdir(dir);
	return bt_test_done();
}
