// SPDX-License-Identifier: GPL-2.0
/* A kept off-CPU run served over HTTP as Go serves its profiles (lib/tools/bt_pprof_page.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "bt_err.h"
#include "bt_pprof_page.h"

/*
 * How long past its N seconds a profile may take (attaching, then symbolizing every stack)
 * before its request is answered 503: a 3 s profile took 9 s on a 2-CPU machine at load 15.
 */
#define PPROF_GRACE_S 20

struct pprof_call {
	struct bt_offcpu_kept *kept; /* a reference of the call's own */
	unsigned int seconds;
};

static int pprof_run(void *arg, FILE *out)
{
	const struct pprof_call *call = arg;

	return bt_offcpu_kept__profile(call->kept, call->seconds, out);
}

static void pprof_release(void *arg)
{
	bt_offcpu_kept__put(((struct pprof_call *)arg)->kept);
}

int bt_pprof_page(struct bt_http_req *req, struct bt_http_resp *resp, void *ctx)
{
	const struct bt_pprof_route *r = ctx;
	const char *arg = bt_http_req_arg(req, "seconds");
	unsigned long seconds = 30; /* Go's net/http/pprof default */
	struct pprof_call call;
	char *end;
	int err;

	if (arg) {
		errno = 0;
		seconds = strtoul(arg, &end, 10);
		if (!*arg || *end || errno || seconds < 1 || seconds > 60) {
			resp->status = 400;
			fputs("seconds: a whole number from 1 to 60\n", resp->out);
			return 0;
		}
	}
	if (!r->kept) {
		resp->status = 501;
		fprintf(resp->out, "this build's %s has no pprof hook\n", r->cmd);
		return 0;
	}
	resp->type = "application/octet-stream";
	resp->header[0][0] = "Content-Disposition";
	resp->header[0][1] = r->file;
	resp->header[1][0] = "X-Content-Type-Options";
	resp->header[1][1] = "nosniff";
	if (bt_http_req_head(req))
		return 0;
	/* one at a time: a profile attaches machine-wide, and two would sample each other */
	if (atomic_flag_test_and_set(r->busy)) {
		resp->status = 429;
		resp->type = NULL;
		resp->header[0][0] = "Retry-After";
		resp->header[0][1] = "10";
		resp->header[1][0] = NULL;
		fputs("a profile is running; one at a time\n", resp->out);
		return 0;
	}
	/*
	 * On a thread of its own, with a deadline: the hook reads files that traced processes
	 * control, and one that blocks it (a FIFO where a perf map should be) must not hold this
	 * request, the next profile or a SIGTERM past it.
	 */
	call = (struct pprof_call){ bt_offcpu_kept__get(r->kept), (unsigned int)seconds };
	err = bt_http_call(req, pprof_run, pprof_release, &call, sizeof(call),
			   (seconds + PPROF_GRACE_S) * 1000, resp->out);
	atomic_flag_clear(r->busy);
	if (err == -ETIMEDOUT || err == -ECANCELED || err == -EBUSY) {
		resp->status = 503;
		resp->type = NULL;
		resp->header[0][0] = NULL;
		if (err == -ETIMEDOUT)
			fprintf(resp->out,
				"the profile did not end within %lu s (%lu + %d): something it "
				"read blocked it, or the machine is too busy; left to end on its "
				"own\n",
				seconds + PPROF_GRACE_S, seconds, PPROF_GRACE_S);
		else if (err == -ECANCELED)
			fputs("the exporter is stopping\n", resp->out);
		else
			fprintf(resp->out,
				"%d profiles are still running past their deadline; none started "
				"until one ends (or the exporter restarts)\n",
				BT_HTTP_MAX_STUCK);
		if (err == -ETIMEDOUT)
			bt_warn("%s: no end within %lu s; answered 503 and left running",
				bt_http_req_path(req), seconds + PPROF_GRACE_S);
		return 0;
	}
	return err;
}
