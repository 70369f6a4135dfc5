#!/bin/sh
# Issue 33, "Memory and CPU without bound": one victim maps 5,000 small ELFs (distinct files,
# distinct build-ids). On 55df65c the symbolizer kept a descriptor for each (19,938 of 21,000,
# then EMFILE, and [unknown] frames for every other process). The tools run with a descriptor
# limit of 4096 (a service's LimitNOFILE), below the files' count: the symbolizer's cap on
# open files must keep them well under it, and another process traced alongside ("other")
# must still be named.
. "$(dirname "$0")/lib.sh"
command -v prlimit >/dev/null || skip "no prlimit (util-linux)"
need readelf # the build-id to rewrite in each copy
build_victim
N=5000

mkdir "$T/many"
printf 'int tiny_fn(void) { return 1; }\n' >"$T/tiny.c"
cc -shared -fPIC -nostdlib -Wl,--build-id=sha1 -o "$T/tiny.so" "$T/tiny.c" || fail "cannot build tiny.so"
"$PY" - "$T/tiny.so" "$T/many" $N <<'PYEOF' || fail "cannot write the ELFs"
import hashlib, subprocess, sys
src, d, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
b = open(src, "rb").read()
out = subprocess.run(["readelf", "-n", src], capture_output=True, text=True).stdout
bid = bytes.fromhex(out.split("Build ID:")[1].split()[0])
assert b.count(bid) == 1
with open(d + "/list", "w") as lst:
    for i in range(n):
        p = "%s/e%05d.so" % (d, i)
        open(p, "wb").write(b.replace(bid, hashlib.sha1(b"%d" % i).digest()[:len(bid)]))
        lst.write(p + "\n")
PYEOF
chmod -R a+rX "$T/many"
victim many -M "$T/many/list"
[ "$(grep -c "$T/many/" /proc/"$VPID"/maps)" -ge $N ] || fail "the victim did not map $N ELFs"
MANY=$VPID
victim other -c other
OTHER=$VPID
echo "victims: $MANY maps $N ELFs; $OTHER (comm other) maps none"

export H_FDS=1
HPREFIX="prlimit --nofile=4096:4096 --"
E='^other;.*hv_(spin|nap|round)'
for t in "profile -F 199 -f" "offcputime -f"; do
	# shellcheck disable=SC2086
	hrun "$t -p many,other" "$E" $t -p "$MANY,$OTHER"
	[ "$PEAKFD" -lt 2048 ] || hfail "$t: $PEAKFD descriptors open at once (a cap far below the limit of 4096 expected)"
	grep -q 'Too many open files' "$ERR" && hfail "$t: EMFILE: $(grep -m1 'Too many open files' "$ERR")"
done
hdone
