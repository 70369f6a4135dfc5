/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A profile (bt_flame.h) as Google's profile.proto, gzipped: what `go tool pprof`, Pyroscope,
 * Parca and Grafana read. The protobuf encoding is written here by hand (varints, tags and
 * lengths); zlib writes the gzip stream.
 */
#ifndef BT_PPROF_H
#define BT_PPROF_H

#include <stdio.h>

#include "bt_flame.h"

/*
 * One Sample per distinct stack and label set (locations leaf first, as profile.proto wants;
 * the labels as Label { key, str or num }), one Location per distinct (frame, module, kind), one
 * Function per (name, module; the file of kernel frames without one is "[kernel.kallsyms]"),
 * one Mapping per module given. The value type is the options' sample_type and unit. Returns 0
 * or -errno.
 */
int bt_pprof_write(const struct bt_profile *p, FILE *out);
/* Folded lines in, gzipped profile.proto out. */
int bt_pprof_from_folded(FILE *folded, FILE *out, const struct bt_profile_opts *opts);

#endif
