/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The exporter's /debug/pprof profiles from a run kept loaded between them (issue 36: the
 * verifier was half of a request's CPU, map creation another eighth), over the off-CPU tools'
 * run (lib/tools/bt_offcpu_opts.h), which profile's pprof hook runs too:
 *
 *	bt_offcpu_kept__new(cmd->pprof, &k);          // nothing loaded yet
 *	each request: bt_offcpu_kept__profile(k, seconds, out);
 *	at exit: bt_offcpu_kept__put(k);           // the last reference frees it
 */
#ifndef BT_OFFCPU_KEPT_H
#define BT_OFFCPU_KEPT_H

#include <stdio.h>

#include "bt_offcpu_opts.h"
#include "bt_sym.h"

/*
 * A run kept loaded between profiles for a long-running caller (issue 36: the verifier was
 * half of a request's CPU). The first profile opens, loads and indexes; each one after only
 * indexes the processes started since, attaches for its seconds and detaches. Between
 * profiles the sampling and sched_switch programs are detached (nothing is counted), while
 * the exec and exit programs stay attached and a thread of its own reads what they say: an
 * exited process's state is freed, a pid reused is a new process. Every profile starts with
 * empty counts, stack maps and in-flight tables.
 *
 * bt_offcpu_kept__profile() writes seconds of it to out as gzipped pprof (tool->profile's
 * sample types), with a deadline of its own, no banner, nothing on stdout, no look at the stop
 * signals or flag. It may be left running past its caller's deadline (bt_http_call()): a
 * profile that finds the run still in use by one builds a fresh run for itself and frees it
 * after. A failed profile frees the run, and so does one that leaves its unwinder's table ids
 * or bytes over half used (they are never given back: bt_unwind__half_spent()); the next one
 * builds it again. 0 or -errno (said).
 */
struct bt_offcpu_kept;
int bt_offcpu_kept__new(bt_offcpu_pprof_fn hook, struct bt_offcpu_kept **out);
int bt_offcpu_kept__profile(struct bt_offcpu_kept *k, unsigned int seconds, FILE *out);
/*
 * References: one from bt_offcpu_kept__new(), one taken for each caller that may outlive its
 * request (a thread of bt_http_call(), whose release puts it). The last put frees all, so a
 * profile left running is never freed under it; NULL-safe.
 */
struct bt_offcpu_kept *bt_offcpu_kept__get(struct bt_offcpu_kept *k);
void bt_offcpu_kept__put(struct bt_offcpu_kept *k);
/*
 * What the run holds between profiles (the symbolizer's counts: running processes, files,
 * bytes of symbols), zeroed while a profile has it or none is built. Only the processes
 * running decide it: those that exited are freed with the files only they mapped.
 */
void bt_offcpu_kept__stats(struct bt_offcpu_kept *k, struct bt_sym_stats *st);
/* One profile from a run built for it and freed before it returns, all it opened closed. */
int bt_offcpu_pprof_once(bt_offcpu_pprof_fn hook, unsigned int seconds, FILE *out);

#endif
