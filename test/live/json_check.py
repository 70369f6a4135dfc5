#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Checks one `bpftools CMD --json` run for test/live/json.sh.

    json_check.py CMD OUT ERR [NAME=VALUE...]

Every line of OUT must be one JSON object and every line of ERR one JSON message
({"level", "command", "message"}); the shapes every command shares (docs/json.md) are checked
wherever they appear (histograms, stacks, the summaries' "ts"/"val_type"); then CMD's own
check asserts what the workload must have produced. NAME=VALUE are the facts it knows (pids,
counts, names). Exits 1 with the reason on a failed check.
"""
import json
import re
import sys

LEVELS = {"error", "warning", "info", "debug"}
FRAME_KEYS = {"name", "offset", "module", "inlined", "address"}


def fail(msg):
    print("json_check: " + msg, file=sys.stderr)
    sys.exit(1)


def expect(cond, msg):
    if not cond:
        fail(msg)


def lines_of(path, what):
    out = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            expect(line.endswith("\n"), "%s line %d does not end the line" % (what, n))
            try:
                out.append(json.loads(line))
            except ValueError as e:
                fail("%s line %d is not JSON (%s): %r" % (what, n, e, line[:200]))
            expect(isinstance(out[-1], dict), "%s line %d is not an object" % (what, n))
    return out


def check_frames(frames, where):
    if frames is None:  # a lost stack
        return
    expect(isinstance(frames, list), "%s: a stack is not an array" % where)
    for f in frames:
        expect(isinstance(f, dict) and FRAME_KEYS <= set(f), "%s: frame %r" % (where, f))
        expect(f["name"] is None or isinstance(f["name"], str), "%s: name %r" % (where, f))
        expect(isinstance(f["offset"], int) and isinstance(f["inlined"], bool),
               "%s: frame types %r" % (where, f))
        expect(re.fullmatch(r"0x[0-9a-f]+|0", f["address"]) is not None,
               "%s: address %r" % (where, f))


def check_hist(h, where):
    expect(isinstance(h, list), "%s: hist is not an array" % where)
    prev = -1
    for b in h:
        expect(set(b) == {"low", "high", "count"}, "%s: bucket %r" % (where, b))
        expect(b["low"] <= b["high"] and b["low"] > prev, "%s: bucket order %r" % (where, b))
        prev = b["high"]
    expect(not h or h[-1]["count"] > 0, "%s: hist does not end at a non-empty bucket" % where)


def walk(v, where):
    """The shared shapes, wherever they are."""
    if isinstance(v, dict):
        for k, x in v.items():
            if k in ("kernel_stack", "user_stack"):
                check_frames(x, where + "." + k)
            elif k == "hist":
                check_hist(x, where + ".hist")
            else:
                walk(x, where + "." + k)
    elif isinstance(v, list):
        for i, x in enumerate(v):
            walk(x, "%s[%d]" % (where, i))


def summary(objs, val_type=None):
    for o in objs:
        expect(re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", o.get("ts", "")) is not None,
               "summary without ts: %r" % o)
        if val_type:
            expect(o.get("val_type") == val_type, "val_type %r, expected %r" %
                   (o.get("val_type"), val_type))


def names(frames):
    return [f["name"] for f in frames or []]


def hist_total(h):
    return sum(b["count"] for b in h)


# ---- one check per command: what its workload must have produced -------------------------

def c_biolatency(objs, a):
    summary(objs, "usecs")
    rows = [d for o in objs for d in o["disks"] if d["disk"] == a["disk"]]
    n = sum(hist_total(d["hist"]) for d in rows)
    expect(n >= int(a["n"]), "%d requests on %s, expected at least %s" % (n, a["disk"], a["n"]))


def c_biosnoop(objs, a):
    mine = [o for o in objs if o["comm"] == a["comm"]]
    expect(len(mine) >= int(a["n"]), "%d of our reads, expected %s" % (len(mine), a["n"]))
    for o in mine:
        expect(o["op"] == "read" and o["bytes"] == 4096 and o["latency_ms"] >= 0, repr(o))


def c_features(objs, a):
    expect(len(objs) == 1, "features: %d objects" % len(objs))
    o = objs[0]
    expect(o["facilities"]["tracepoints"]["available"] is True, repr(o["facilities"]))
    expect("softirqs" in o["tools"] and o["tools"]["softirqs"]["can_run"] == "yes",
           repr(o["tools"].get("softirqs")))


def c_funccount(objs, a):
    summary(objs, "count")
    got = {}
    for o in objs:
        for r in o["functions"]:
            got[r["function"]] = got.get(r["function"], 0) + r["count"]
    want = dict(kv.split(":") for kv in a["counts"].split(","))
    for f, n in want.items():
        expect(got.get(f) == int(n), "%s counted %r times, expected %s" % (f, got.get(f), n))


def c_funclatency(objs, a):
    summary(objs)
    calls = int(a["calls"])
    count = sum(o["count"] for o in objs)
    if "functions" in objs[-1]:
        per = {}
        for o in objs:
            for r in o["functions"]:
                per[r["function"]] = per.get(r["function"], 0) + hist_total(r["hist"])
                expect(r["pid"] == int(a["pid"]), "pid %r" % r)
        want = dict(kv.split(":") for kv in a["per"].split(","))
        expect(per == {k: int(v) for k, v in want.items()}, "per function %r" % per)
        buckets = sum(per.values())
    else:
        buckets = sum(hist_total(o["hist"]) for o in objs)
    expect(count == calls and buckets == calls,
           "count %d, histogram total %d, expected %d calls" % (count, buckets, calls))
    total = sum(o["total"] for o in objs)
    expect(total >= int(a["min_total"]), "total %d < %s" % (total, a["min_total"]))


def c_funcslower(objs, a):
    expect(len(objs) == int(a["n"]), "%d slow calls, expected %s" % (len(objs), a["n"]))
    for o in objs:
        # (funcslower names a function as it was given: PATH:NAME for a user function)
        expect(o["pid"] == int(a["pid"]) and o["function"].split(":")[-1] == a["function"],
               repr(o)[:300])
        expect(o["latency_ns"] >= int(a["min_ns"]), "latency %r" % o["latency_ns"])
        expect(a["function"] in names(o["user_stack"]), "user stack %r" % names(o["user_stack"]))


def c_hardirqs(objs, a):
    summary(objs, "count")
    expect(len(objs) == int(a["outputs"]), "%d outputs" % len(objs))
    for o in objs:
        for r in o["irqs"]:
            expect(isinstance(r["name"], str) and r["count"] > 0, repr(r))


def c_offcputime(objs, a):
    mine = [o for o in objs if o["pid"] == int(a["pid"])]
    expect(mine, "no stack of pid %s" % a["pid"])
    o = max(mine, key=lambda o: o["off_cpu_us"])
    expect(o["off_cpu_us"] >= int(a["min_us"]), "off-CPU %d us" % o["off_cpu_us"])
    expect(a["user_fn"] in names(o["user_stack"]), "user stack %r" % names(o["user_stack"]))
    expect(a["kernel_fn"] in names(o["kernel_stack"]),
           "kernel stack %r" % names(o["kernel_stack"]))


def c_offwaketime(objs, a):
    mine = [o for o in objs if o["target"]["pid"] == int(a["pid"])]
    expect(mine, "no blocked stack of pid %s" % a["pid"])
    expect(sum(o["blocked_us"] for o in mine) >= int(a["min_us"]),
           "blocked %d us" % sum(o["blocked_us"] for o in mine))
    for o in mine:
        expect(set(o["waker"]) >= {"comm", "pid", "tid"}, repr(o["waker"]))


def c_profile(objs, a):
    mine = [o for o in objs if o["pid"] == int(a["pid"])]
    expect(mine, "no stack of pid %s" % a["pid"])
    expect(sum(o["samples"] for o in mine) >= int(a["min"]),
           "%d samples" % sum(o["samples"] for o in mine))
    expect(any(a["user_fn"] in names(o["user_stack"]) for o in mine),
           "no user stack names %s" % a["user_fn"])


def c_opensnoop(objs, a):
    mine = [o for o in objs if o["path"] == a["path"]]
    expect(len(mine) == int(a["n"]), "%d opens of %s, expected %s" % (len(mine), a["path"], a["n"]))
    for o in mine:
        expect(o["pid"] == int(a["pid"]) and o["fd"] == -1 and o["errno"] == "ENOENT", repr(o))


def c_smpcalls(objs, a):
    summary(objs, "nsecs")
    kinds = {c["kind"] for o in objs for c in o["calls"]}
    expect(kinds <= {"time", "queue", "local"}, "kinds %r" % kinds)

    def count(fn, kind):
        return sum(c["count"] for o in objs for c in o["calls"]
                   if c["function"] == fn and c["kind"] == kind)
    # membarrier's ipi_mb crosses CPUs on any host, while the workload's second thread runs on
    # the other CPU (under load, not every round); TLB shootdowns only where the host makes
    # remote TLB flushes (a=tlb: /proc/interrupts counted some), each also flushing locally
    n = count("ipi_mb", "time")
    expect(n >= int(a["min"]), "%d ipi_mb cross calls, expected at least %s" % (n, a["min"]))
    if int(a.get("tlb", 0)) > 0 and ("local" in kinds or "queue" in kinds):
        expect(count("flush_tlb_func", "time") >= 1, "no flush_tlb_func cross calls")
        expect(count("flush_tlb_func", "local") >= 1, "no local flush_tlb_func calls")


def c_softirqs(objs, a):
    summary(objs, "usecs")
    expect(len(objs) == int(a["outputs"]), "%d outputs" % len(objs))
    expect(any(r["name"] == "timer" and r["count"] > 0 for o in objs for r in o["softirqs"]),
           "no timer softirq in %r" % objs)


def c_stackcount(objs, a):
    summary(objs, "count")
    by_path = {}
    for o in objs:
        for s in o["stacks"]:
            expect(s["pid"] == int(a["pid"]) and "kernel_stack" not in s, repr(s)[:300])
            n = names(s["user_stack"])
            expect(n[:1] == ["bt_leaf"] and "main" in n, "stack %r" % n)
            by_path[n[1]] = by_path.get(n[1], 0) + s["count"]
    expect(by_path == {"bt_path_a": int(a["a"]), "bt_path_b": int(a["b"])},
           "counts by caller %r" % by_path)


def c_stacksnoop(objs, a):
    expect(len(objs) == int(a["a"]) + int(a["b"]), "%d calls" % len(objs))
    times = [o["time_ns"] for o in objs]
    expect(times == sorted(times) and times[0] > 0, "times %r" % times)
    seconds = [names(o["user_stack"])[1] for o in objs]
    expect(seconds.count("bt_path_a") == int(a["a"]) and seconds.count("bt_path_b") == int(a["b"]),
           "callers %r" % seconds)
    for o in objs:
        expect(o["pid"] == int(a["pid"]) and o["function"] == "bt_leaf", repr(o)[:300])


VFS_KEYS = {"read", "write", "fsync", "open", "create", "unlink", "mkdir", "rmdir"}


def c_vfsstat(objs, a):
    summary(objs, "per_second")
    expect(len(objs) == int(a["outputs"]), "%d outputs" % len(objs))
    for o in objs:
        expect(VFS_KEYS <= set(o) and o["interval"] == 1, repr(o))
    expect(sum(o["read"] for o in objs) >= int(a["min_reads"]), "reads %r" % objs)


def main():
    cmd, out, err = sys.argv[1:4]
    a = dict(kv.split("=", 1) for kv in sys.argv[4:])
    objs = lines_of(out, cmd + " stdout")
    msgs = lines_of(err, cmd + " stderr")
    for m in msgs:
        expect(set(m) == {"level", "command", "message"} and m["level"] in LEVELS and
               m["command"] in (cmd, "libbpf") and isinstance(m["message"], str),
               "stderr message %r" % m)
    if a.get("refused"):
        expect(not objs, "refused, but printed %r" % objs[:1])
        expect([m["level"] for m in msgs] == ["error"] and re.search(a["refused"], msgs[0]["message"]),
               "refusal %r" % msgs)
        return
    # the banner says the probes are in (features traces nothing; profile's is BCC's
    # "Sampling at ...")
    expect(cmd == "features" or any(m["level"] == "info" and
                                    m["message"].startswith(("Tracing", "Sampling"))
                                    for m in msgs), "no banner on stderr: %r" % msgs)
    expect(objs, "nothing on stdout")
    walk(objs, cmd)
    check = globals().get("c_" + cmd)
    expect(check is not None, "no check for %s" % cmd)
    check(objs, a)


if __name__ == "__main__":
    main()
