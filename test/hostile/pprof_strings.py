#!/usr/bin/env python3
# The string table of a pprof profile (profile.proto, field 6), one string a line; a newline
# inside a string is written as \x01, so that the caller's control-byte count sees it.
import sys


def varint(b, i):
    v = s = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7F) << s
        s += 7
        if c < 0x80:
            return v, i


b = open(sys.argv[1], "rb").read()
i = 0
out = sys.stdout.buffer
while i < len(b):
    key, i = varint(b, i)
    field, wire = key >> 3, key & 7
    if wire == 0:
        _, i = varint(b, i)
    elif wire == 1:
        i += 8
    elif wire == 5:
        i += 4
    elif wire == 2:
        n, i = varint(b, i)
        if field == 6:
            out.write(b[i:i + n].replace(b"\n", b"\x01") + b"\n")
        i += n
    else:
        sys.exit("pprof_strings: wire type %d at %d" % (wire, i))
