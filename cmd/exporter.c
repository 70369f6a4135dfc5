// SPDX-License-Identifier: GPL-2.0
/*
 * exporter: the summary tools kept attached, their running totals served to Prometheus at
 * /metrics (and written for node_exporter's textfile collector with --textfile). The
 * collectors are the commands' own (struct bt_collector); the server is lib/run/bt_http.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bt_args.h"
#include "bt_argp.h"
#include "bt_clock.h"
#include "bt_cmd.h"
#include "bt_collector.h"
#include "bt_err.h"
#include "bt_http.h"
#include "bt_loop.h"
#include "bt_offcpu_kept.h"
#include "bt_pprof_page.h"
#include "bt_output.h"
#include "bt_prom.h"
#include "bt_prom_process.h"
#include "bt_escape.h"
#include "bt_input.h"

#define MAX_SPECS 32

struct spec {
	const char *cmd; /* "funccount", "funclatency" */
	const char *arg;
};

static struct exporter_opts {
	const char *listen;
	const char *collect;
	const char *web_config;
	const char *textfile;
	const char *args_file;
	unsigned long interval;
	unsigned long max_series;
	struct spec specs[MAX_SPECS];
	unsigned int nspecs;
	unsigned int others; /* options besides --args-file */
} opts;

static const struct exporter_opts defaults = { .interval = 15, .max_series = 2000 };

enum {
	OPT_LISTEN = 0x100,
	OPT_COLLECT,
	OPT_WEB_CONFIG,
	OPT_TEXTFILE,
	OPT_MAX_SERIES,
	OPT_FUNCCOUNT,
	OPT_FUNCLATENCY,
	OPT_ARGS_FILE,
};

static const struct argp_option options[] = {
	{ "listen", OPT_LISTEN, "ADDR:PORT", 0,
	  "Serve HTTP on this address (default " BT_HTTP_DEFAULT_LISTEN
	  "; :PORT for every address)",
	  0 },
	{ "collect", OPT_COLLECT, "LIST", 0,
	  "Collectors to run, comma-separated (default: every one this kernel can run)", 0 },
	{ "web-config", OPT_WEB_CONFIG, "FILE", 0,
	  "TLS and basic auth from this exporter-toolkit web configuration file", 0 },
	{ "textfile", OPT_TEXTFILE, "DIR", 0,
	  "Write DIR/bpftools.prom every interval for node_exporter's textfile collector (no "
	  "HTTP server unless --listen is given too)",
	  0 },
	{ "max-series", OPT_MAX_SERIES, "N", 0,
	  "At most N label sets per metric; the rest are dropped and counted (default 2000)", 0 },
	{ "funccount", OPT_FUNCCOUNT, "SPEC", 0, "Also count calls of these functions (repeatable)",
	  0 },
	{ "funclatency", OPT_FUNCLATENCY, "SPEC", 0,
	  "Also time calls of these functions (repeatable)", 0 },
	{ "args-file", OPT_ARGS_FILE, "FILE", 0,
	  "Take the arguments from FILE instead (re-read on SIGHUP)", 0 },
	{ NULL },
};

/* -i/--interval: seconds between textfile writes */
static const struct bt_opt_vals vals = { .interval = &opts.interval };

/* The command with a collector of this name, or NULL after a usage error. */
static const struct bt_cmd *find_collector(struct argp_state *state, const char *name, size_t len)
{
	const struct bt_cmd *c;
	char buf[64];

	snprintf(buf, sizeof(buf), "%.*s", (int)len, name);
	c = bt_cmd_find(buf);
	if (!c || !c->collector) {
		char names[512] = "";
		size_t i, n = 0;
		const struct bt_cmd *k;

		bt_for_each_cmd(k, i)
			if (k->collector && !(k->collector->flags & BT_COLLECT_SPEC) &&
			    n < sizeof(names))
				n += snprintf(names + n, sizeof(names) - n, "%s%s", n ? ", " : "",
					      k->name);
		bt_argp_error(state, "--collect: no collector '%s'; the collectors: %s", buf,
			      names);
		return NULL;
	}
	if (c->collector->flags & BT_COLLECT_SPEC) {
		bt_argp_error(state, "--collect: '%s' takes a probe spec: --%s SPEC", buf, buf);
		return NULL;
	}
	return c;
}

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct exporter_opts *o = state->input;
	const char *p, *comma;

	if (key >= OPT_LISTEN && key < OPT_ARGS_FILE)
		o->others++;
	switch (key) {
	case OPT_LISTEN:
		o->listen = arg;
		break;
	case OPT_COLLECT:
		for (p = arg; *p; p = *comma ? comma + 1 : comma) {
			comma = strchrnul(p, ',');
			if (!find_collector(state, p, comma - p))
				return EINVAL;
		}
		o->collect = arg;
		break;
	case OPT_WEB_CONFIG:
		o->web_config = arg;
		break;
	case OPT_TEXTFILE:
		o->textfile = arg;
		break;
	case OPT_MAX_SERIES:
		return bt_argp_ulong(state, arg, "max-series", 1, 10000000, &o->max_series);
	case OPT_FUNCCOUNT:
	case OPT_FUNCLATENCY:
		if (o->nspecs == MAX_SPECS)
			return bt_argp_error(state, "at most %d --funccount/--funclatency specs",
					     MAX_SPECS);
		o->specs[o->nspecs].cmd = key == OPT_FUNCCOUNT ? "funccount" : "funclatency";
		o->specs[o->nspecs++].arg = arg;
		break;
	case OPT_ARGS_FILE:
		o->args_file = arg;
		break;
	case ARGP_KEY_ARG:
		return bt_argp_error(state, "takes no positional arguments ('%s')", arg);
	default:
		return bt_argp_own(key, arg, state);
	}
	return 0;
}

static const struct argp argp = {
	.options = options,
	.parser = parse_opt,
	.children = BT_ARGP_CHILDREN(bt_argp_interval),
	.doc = "Serve the summary tools' running totals as Prometheus metrics.\v"
	       "Collectors: those of the summary commands (docs/exporter.md lists them), and\n"
	       "--funccount and --funclatency specs; endpoints: /metrics,\n"
	       "/debug/pprof/profile?seconds=N and /debug/pprof/offcpu?seconds=N; / lists them.\n"
	       "-i: seconds between --textfile writes (default 15).\n"
	       "examples:\n"
	       "    exporter                          # every collector, on 127.0.0.1:9435\n"
	       "    exporter --collect biolatency     # block I/O latency histograms only\n"
	       "    exporter --listen :9435 --web-config /etc/bpftools/web.yml  # TLS, auth\n"
	       "    exporter --textfile /var/lib/prometheus/node-exporter   # for node_exporter\n"
	       "    exporter --funccount 'vfs_*'      # also count calls of vfs_*",
};

struct exporter {
	pthread_mutex_t lock; /* one scrape at a time: every scraper sees whole totals */
	struct bt_collector_run *act;
	size_t nact;
	struct bt_http *http;
	atomic_flag profiling; /* one profile at a time */
	struct bt_pprof_route pprof[2];
};

/* Every collector's families and the exporter's own, written in one format. */
static int scrape(struct exporter *x, FILE *out, bool openmetrics)
{
	struct bt_prom *p;
	int err = 0;

	pthread_mutex_lock(&x->lock);
	p = bt_prom_new(opts.max_series);
	if (!p) {
		err = -ENOMEM;
		goto cleanup;
	}
	bt_collector_runs_collect(x->act, x->nact, p);
	err = bt_prom_family(p, "bpftools_exporter_build_info", BT_PROM_GAUGE,
			     "The bpftools version serving these metrics (value 1).") ?:
	      bt_prom_gauge(p, (const char *[]){ "version", BT_VERSION, NULL }, 1) ?:
	      bt_collector_runs_families(x->act, x->nact, p);
	if (err >= 0)
		err = bt_prom_process(p);
	if (err >= 0)
		err = bt_prom_family(p, "bpftools_exporter_series_dropped", BT_PROM_GAUGE,
				     "Label sets left out of this scrape by --max-series.")
			      ?: bt_prom_gauge(p, NULL, (double)bt_prom_dropped(p));
	if (err >= 0)
		err = bt_prom_write(p, out, openmetrics);
cleanup:
	pthread_mutex_unlock(&x->lock);
	bt_prom_free(p);
	return err < 0 ? err : 0;
}

static int metrics_page(struct bt_http_req *req, struct bt_http_resp *resp, void *ctx)
{
	const char *accept = bt_http_req_header(req, "Accept");
	bool om = accept && strstr(accept, "application/openmetrics-text");

	resp->type = om ? BT_OPENMETRICS_CONTENT_TYPE : BT_PROM_CONTENT_TYPE;
	return scrape(ctx, resp->out, om);
}

/*
 * What a person opening the address sees: the version, each collector and how its last scrape
 * went, and the profiles as forms that say what they do: a link that starts a machine-wide
 * profile on a click (as the plain ?seconds=30 one did) is not one to leave lying around.
 */
static int index_page(struct bt_http_req *req, struct bt_http_resp *resp, void *ctx)
{
	struct exporter *x = ctx;
	size_t i;

	resp->type = "text/html; charset=utf-8";
	fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
	      "<title>bpftools exporter</title>\n<style>\n"
	      "body { font-family: sans-serif; margin: 2em auto; max-width: 52em; color: #222; }\n"
	      "table { border-collapse: collapse; } td, th { padding: .2em .8em; "
	      "border-bottom: 1px solid #ddd; text-align: left; }\n"
	      ".ok { color: #060; } .failed { color: #a00; } .muted { color: #777; }\n"
	      "form { margin: .5em 0; }\n</style></head><body>\n",
	      resp->out);
	fprintf(resp->out,
		"<h1>bpftools exporter</h1>\n<p>Version %s: BCC's summary tools' running totals "
		"as Prometheus metrics.</p>\n<p><a href=\"/metrics\">/metrics</a>: every "
		"collector's metrics, the exporter's own (bpftools_exporter_*, process_*).</p>\n",
		BT_VERSION);
	pthread_mutex_lock(&x->lock);
	fprintf(resp->out,
		"<h2>Collectors (%zu)</h2>\n<table><tr><th>collector</th>"
		"<th>last scrape</th></tr>\n",
		x->nact);
	for (i = 0; i < x->nact; i++) {
		const struct bt_collector_run *a = &x->act[i];

		fputs("<tr><td>", resp->out);
		bt_xml_put(resp->out, a->label); /* a probe spec may hold any character */
		if (a->seconds == 0 && !a->ok)
			fputs("</td><td class=\"muted\">not scraped yet</td></tr>\n", resp->out);
		else
			fprintf(resp->out, "</td><td class=\"%s\">%s, %.1f ms</td></tr>\n",
				a->ok ? "ok" : "failed", a->ok ? "read" : "failed",
				a->seconds * 1e3);
	}
	pthread_mutex_unlock(&x->lock);
	fputs("</table>\n<h2>Profiles</h2>\n<p>Each samples every CPU of this machine for the "
	      "seconds given (1 to 60), one at a time, and answers a gzipped pprof profile "
	      "(<code>go tool pprof</code>).</p>\n",
	      resp->out);
	for (i = 0; i < 2; i++) {
		const struct bt_cmd *c = bt_cmd_find(x->pprof[i].cmd);
		const char *path = i ? "/debug/pprof/offcpu" : "/debug/pprof/profile";
		const char *what = i ? "Off-CPU stacks: where threads wait, by stack"
				     : "On-CPU stacks: where the CPUs spend their time, by stack";

		if (c && c->pprof)
			fprintf(resp->out,
				"<form method=\"get\" action=\"%s\"><b>%s</b>: %s, for "
				"<input type=\"number\" name=\"seconds\" min=\"1\" max=\"60\" "
				"value=\"10\" size=\"3\"> seconds <input type=\"submit\" "
				"value=\"Download profile\"></form>\n",
				path, path, what);
		else
			fprintf(resp->out, "<p><b>%s</b>: not in this build</p>\n", path);
	}
	fputs("</body></html>\n", resp->out);
	return 0;
}

static void stop_all(struct exporter *x)
{
	size_t i;

	for (i = x->nact; i-- > 0;)
		bt_collector_stop(x->act[i].c, x->act[i].run);
	free(x->act);
	x->act = NULL;
	x->nact = 0;
}

static int start_one(struct exporter *x, const struct bt_cmd *c, const char *spec, bool optional)
{
	struct bt_collector_run *a = &x->act[x->nact];
	int err;

	if (!c || !c->collector) {
		bt_err("this build has no %s collector", spec ? "probe-spec" : "such");
		return -ENOTSUP;
	}
	err = bt_collector_start(c->collector, spec, &a->run);
	if (err && optional && err != -EINTR) { /* a stop is no reason to leave it out */
		bt_note("collector '%s' left out%s", c->name,
			err == -EOPNOTSUPP ? ": this kernel cannot run it" : " (see above)");
		return 0;
	}
	if (err)
		return err;
	a->c = c->collector;
	if (spec)
		snprintf(a->label, sizeof(a->label), "%s:%s", c->name, spec);
	else
		snprintf(a->label, sizeof(a->label), "%s", c->name);
	x->nact++;
	return 0;
}

static int start_all(struct exporter *x)
{
	const struct bt_cmd *c;
	const char *p, *comma;
	size_t i, max = opts.nspecs;
	char name[64];
	int err = 0;

	bt_for_each_cmd(c, i)
		max++;
	x->act = calloc(max, sizeof(*x->act));
	if (!x->act)
		return -ENOMEM;
	if (opts.collect) {
		for (p = opts.collect; !err && *p; p = *comma ? comma + 1 : comma) {
			comma = strchrnul(p, ',');
			snprintf(name, sizeof(name), "%.*s", (int)(comma - p), p);
			err = start_one(x, bt_cmd_find(name), NULL, false);
		}
	} else {
		bt_for_each_cmd(c, i) {
			if (err || !c->collector || !(c->collector->flags & BT_COLLECT_DEFAULT))
				continue;
			err = start_one(x, c, NULL, true);
		}
	}
	for (i = 0; !err && i < opts.nspecs; i++)
		err = start_one(x, bt_cmd_find(opts.specs[i].cmd), opts.specs[i].arg, false);
	if (!err && bt_stop_requested())
		err = -EINTR;
	if (err)
		stop_all(x);
	return err;
}

static int scrape_text(FILE *f, void *ctx)
{
	return scrape(ctx, f, false);
}

/*
 * DIR/bpftools.prom, replaced whole: node_exporter reads only *.prom, and never half of one.
 * A failed write is said; the next one may work.
 */
static int write_textfile(struct exporter *x)
{
	char path[4096];
	int err;

	snprintf(path, sizeof(path), "%s/bpftools.prom", opts.textfile);
	err = bt_output_replace(path, scrape_text, x);
	if (err)
		bt_err("cannot write '%s': %s", path, strerror(-err));
	return err;
}

/* The profiles' runs, each freed once no profile has it (a late one frees it as it ends). */
static void pprof_free(struct exporter *x)
{
	size_t i;

	for (i = 0; i < 2; i++) {
		bt_offcpu_kept__put(x->pprof[i].kept);
		x->pprof[i].kept = NULL;
	}
}

static void teardown(struct exporter *x)
{
	bt_http_free(x->http); /* first: no scrape runs while the collectors go */
	x->http = NULL;
	pprof_free(x);
	stop_all(x);
}

static int setup(struct exporter *x, const struct bt_cmd *cmd)
{
	struct bt_http_opts ho = { .listen = opts.listen, .web_config = opts.web_config };
	const char *listen, *colon;
	size_t i;
	int err;

	/* before anything is attached */
	if (opts.textfile && access(opts.textfile, W_OK | X_OK)) {
		err = -errno;
		bt_err("cannot write in '%s': %s", opts.textfile, strerror(errno));
		return err;
	}
	if (!opts.textfile || opts.listen) {
		err = bt_http_new(&x->http, &ho);
		if (err)
			return err;
	}
	err = start_all(x);
	if (err)
		goto cleanup;
	if (x->http) {
		x->pprof[0] = (struct bt_pprof_route){ NULL, "profile",
						       "attachment; filename=\"profile.pb.gz\"",
						       &x->profiling };
		x->pprof[1] = (struct bt_pprof_route){ NULL, "offcputime",
						       "attachment; filename=\"offcpu.pb.gz\"",
						       &x->profiling };
		for (i = 0; i < 2; i++) {
			const struct bt_cmd *c = bt_cmd_find(x->pprof[i].cmd);

			if (!err && c && c->pprof)
				err = bt_offcpu_kept__new(c->pprof, &x->pprof[i].kept);
		}
		err = err ?: bt_http_route(x->http, "/metrics", metrics_page, x) ?:
		      bt_http_route(x->http, "/", index_page, x) ?:
		      bt_http_route(x->http, "/debug/pprof/profile", bt_pprof_page, &x->pprof[0]) ?:
		      bt_http_route(x->http, "/debug/pprof/offcpu", bt_pprof_page, &x->pprof[1]) ?:
		      bt_http_start(x->http);
		if (err)
			goto cleanup;
		/* the port as bound: --listen may ask for 0 (any) */
		listen = opts.listen ?: BT_HTTP_DEFAULT_LISTEN;
		colon = strrchr(listen, ':');
		bt_note("serving %d collectors at http%s://%.*s:%u/metrics", (int)x->nact,
			bt_http_tls(x->http) ? "s" : "",
			colon == listen ? 7 : (int)(colon - listen),
			colon == listen ? "0.0.0.0" : listen, bt_http_port(x->http));
	}
	for (i = 0; i < x->nact; i++)
		bt_debug("collector %s", x->act[i].label);
	if (opts.textfile) {
		err = write_textfile(x);
		if (err)
			goto cleanup;
		bt_note("writing %s/bpftools.prom every %lu s", opts.textfile, opts.interval);
	}
	return 0;
cleanup:
	teardown(x);
	return err;
}

/* The arguments file's words (lib/base/bt_input.h), parsed as the command line. */
static int load_args_file(const struct bt_cmd *cmd, const char *path, char **words_out)
{
	char *text = NULL, **argv = NULL;
	int argc, i, err;

	*words_out = NULL;
	err = bt_read_args_file(path, cmd->name, &text, &argv, &argc);
	if (err)
		return err == -ENOENT ? -BT_EUSAGE : err;
	for (i = 1; i < argc; i++) {
		if (!strncmp(argv[i], "--args-file", 11)) {
			err = bt_usage_err("%s: --args-file cannot be in the file", path);
			goto cleanup;
		}
	}
	opts = defaults;
	err = bt_args_parse(cmd, argc, argv);
	if (err) {
		bt_err("%s: bad arguments (above)", path);
		err = err < 0 ? err : -BT_EUSAGE;
		goto cleanup;
	}
	opts.args_file = path;
	*words_out = text;
	text = NULL;
cleanup:
	free(argv);
	free(text);
	return err;
}

static int run(const struct bt_cmd *cmd)
{
	struct exporter x = { .lock = PTHREAD_MUTEX_INITIALIZER, .profiling = ATOMIC_FLAG_INIT };
	char *words = NULL;
	const char *args_file = opts.args_file;
	long long next = 0;
	int err;

	if (args_file && (opts.others || opts.interval))
		return bt_usage_err("with --args-file, every other option goes in the file");
	if (!opts.interval)
		opts.interval = defaults.interval;
	if (!opts.max_series)
		opts.max_series = defaults.max_series;
	if (args_file) {
		err = load_args_file(cmd, args_file, &words);
		if (err)
			return err;
	}
	bt_signals_hup_reloads(true);
	err = setup(&x, cmd);
	if (err)
		goto cleanup;
	for (;;) {
		long timeout = -1;
		int wake;

		if (opts.textfile) {
			long long now = bt_now_ms();

			if (!next)
				next = now + opts.interval * 1000;
			timeout = next > now ? next - now : 0;
		}
		wake = bt_wait(-1, timeout);
		if (wake < 0) {
			err = wake;
			break;
		}
		if (wake == BT_WAKE_SIGNAL)
			break;
		if (wake == BT_WAKE_RELOAD) {
			struct exporter_opts old = opts;
			char *nwords;

			if (!args_file) {
				bt_note("SIGHUP: no --args-file to re-read");
				continue;
			}
			err = load_args_file(cmd, args_file, &nwords);
			if (err) {
				opts = old;
				bt_warn("%s: not reloaded; the arguments stay as they were",
					args_file);
				err = 0;
				continue;
			}
			teardown(&x);
			free(words);
			words = nwords;
			next = 0;
			err = setup(&x, cmd);
			if (err)
				goto cleanup;
			bt_note("%s: reloaded", args_file);
			continue;
		}
		if (opts.textfile && wake == BT_WAKE_TIMEOUT) {
			next += opts.interval * 1000;
			write_textfile(&x);
		}
	}
	teardown(&x);
cleanup:
	free(words);
	return err;
}

BT_TOOL_COMMAND(exporter, "Serve the summary tools' totals as Prometheus metrics", .vals = &vals,
		.uses = BT_USES_TP_BTF);
