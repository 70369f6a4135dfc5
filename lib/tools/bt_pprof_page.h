/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A run kept loaded for profiles (lib/tools/bt_offcpu_kept.h) served as Go's net/http/pprof
 * serves a profile: GET PATH?seconds=N (1 to 60, 30 by default) answers N seconds of it as a
 * gzipped pprof attachment; HEAD, the headers only. The exporter's /debug/pprof/profile and
 * /debug/pprof/offcpu. A file apart from bt_offcpu_kept, so that what links the kept run
 * without an HTTP server (test/live/pprof_hook) does not pull bt_http in.
 */
#ifndef BT_PPROF_PAGE_H
#define BT_PPROF_PAGE_H

#include <stdatomic.h>

#include "bt_http.h"
#include "bt_offcpu_kept.h"

struct bt_pprof_route {
	struct bt_offcpu_kept *kept; /* NULL: the build's cmd has no pprof hook (501) */
	const char *cmd;	     /* whose pprof hook */
	const char *file;	     /* its Content-Disposition */
	atomic_flag *busy;	     /* shared by the routes: one profile at a time (else 429) */
};

/*
 * A bt_http handler, ctx a struct bt_pprof_route. The profile runs on a thread of its own with
 * a deadline (bt_http_call()): past it, as the server stops, or while too many still run past
 * theirs, the answer is 503 and the profile is left to end on its own.
 */
int bt_pprof_page(struct bt_http_req *req, struct bt_http_resp *resp, void *ctx);

#endif
