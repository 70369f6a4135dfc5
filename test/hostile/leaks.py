#!/usr/bin/env python3
# leaks.py SECRET FILE...: what of a run's output a hostile tier check refuses, one line each:
# the host's secret (any symbol carrying it, named), raw control bytes (all but tab and
# newline: an escape, a bell, a carriage return, DEL), bytes that are not UTF-8 (raw bytes
# echoed from a binary input or a traced name). Exit 1 if anything was found.
import os
import re
import sys

secret = sys.argv[1].encode()
bad = 0
for fn in sys.argv[2:]:
    try:
        b = open(fn, "rb").read()
    except OSError:
        continue
    name = os.path.basename(fn)
    if secret in b:
        found = sorted(set(m.decode() for m in re.findall(re.escape(secret) + rb"[A-Za-z0-9_]*", b)))
        print("a host secret is in %s: %s" % (name, " ".join(found)))
        bad = 1
    ctl = len(re.findall(rb"[\x00-\x08\x0b-\x1f\x7f]", b))
    if ctl:
        print("%d raw control bytes in %s" % (ctl, name))
        bad = 1
    try:
        b.decode("utf-8")
    except UnicodeDecodeError as e:
        print("%s is not UTF-8 (a raw byte %#x at %d)" % (name, b[e.start], e.start))
        bad = 1
sys.exit(bad)
