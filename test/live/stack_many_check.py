#!/usr/bin/env python3
# Folded stackcount output of stack_many (test/workloads/stack_many.c) run as "call 11": every
# one of the 2048 paths printed once, path p with its count p % 3 + 1. Exit 1 saying why not.
import sys

counts = {}
for line in open(sys.argv[1]):
    frames, value = line.rsplit(" ", 1)
    frames = frames.split(";")
    path = frames[frames.index("main") + 2:frames.index("leaf")]  # after main;sm_a
    assert len(path) == 11 and frames[-1] == "sm_leaf", frames
    p = sum(1 << d for d, f in enumerate(path) if f == "sm_b")
    assert p not in counts, "path %d printed twice" % p
    counts[p] = int(value)
bad = [(p, counts.get(p)) for p in range(2048) if counts.get(p) != p % 3 + 1]
assert not bad, "wrong or missing counts: %s" % bad[:10]
