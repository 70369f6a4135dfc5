#!/bin/sh
# Data on stdout, everything else on stderr (docs/design.md, "Output streams"): in --json and
# folded modes stdout is nothing but JSON values / "frames count" lines, and the banner, if
# any, is on stderr; in the default mode the banner stays on stdout, where BCC prints it.
. "$(dirname "$0")/lib.sh"
require root btf tracepoints syscalls
need python3

# a process that opens a file, sleeps (clock_nanosleep) and wakes 10 times a second, for -p:
# every run has events, and few; it stops by itself within 40 s
python3 -c 'import time
for i in range(400):
    open("/etc/hostname").close()
    time.sleep(0.1)' &
spid=$!
trap 'kill $spid 2>/dev/null; rm -rf "$T"' EXIT

# is_json FILE: the file is a sequence of JSON values (one per line, or pretty-printed)
is_json() {
	python3 -c '
import json, sys
t = open(sys.argv[1], errors="replace").read()  # the encoding is not the question here
d, i, n = json.JSONDecoder(), 0, 0
while True:
    while i < len(t) and t[i].isspace():
        i += 1
    if i == len(t):
        break
    try:
        _, i = d.raw_decode(t, i)
    except ValueError:
        sys.exit("not JSON at %r" % t[i:i + 60])
    n += 1
sys.exit(0 if n else "no JSON value at all")' "$1"
}

# bad WHY: fail, showing the first lines of the output only (a JSON run can be megabytes)
bad() {
	head -5 "$OUT" >"$T/head"
	OUT=$T/head
	fail "$*"
}

# check MODE ARGS...: run bpftools ARGS (stopped by SIGINT after 5 s if still running)
check() {
	mode=$1
	shift
	OUT=$T/out ERR=$T/err
	RC=0
	timeout -s INT -k 5 5 "$BPFTOOLS" "$@" >"$OUT" 2>"$ERR" || RC=$?
	[ "$RC" = 0 ] || [ "$RC" = 124 ] || bad "bpftools $* exited $RC"
	grep -Eq '^(Tracing|Detaching)' "$OUT" && bad "bpftools $*: a banner on stdout"
	case $mode in
	json) why=$(is_json "$OUT" 2>&1) || bad "bpftools $*: stdout is not only JSON: $why" ;;
	json-or-empty) [ -s "$OUT" ] && { why=$(is_json "$OUT" 2>&1) || bad "bpftools $*: stdout is not only JSON: $why"; } ;;
	folded)
		[ -s "$OUT" ] || bad "bpftools $*: no folded lines"
		grep -Evq '^.+ [0-9]+$' "$OUT" && bad "bpftools $*: stdout is not only folded lines: $(grep -Ev '^.+ [0-9]+$' "$OUT" | head -3)"
		;;
	esac
	n=$((n + 1))
}
n=0
check json features --json
check json softirqs --json -T 1 2
check json hardirqs --json 1 1
check json smpcalls --json 1 1
check json biolatency --json 1 1
check json-or-empty biosnoop --json 1 # a second may have no block I/O at all
check json opensnoop --json -p $spid -d 1
check json offcputime --json -p $spid 1
check json offwaketime --json -p $spid 1
check json funcslower --json -u 1 -p $spid syscall:clock_nanosleep
check folded stackcount -f -D 1 t:sched:sched_switch
check folded offcputime -f 1
check folded offwaketime -f -p $spid 1
grep -q '^Tracing blocked time' "$ERR" || fail "offwaketime -f: the banner is not on stderr"

# The default output keeps BCC's banner on stdout.
run softirqs 1 1
grep -q '^Tracing soft irq event time\.\.\. Hit Ctrl-C to end\.$' "$OUT" || fail "softirqs: BCC's banner is not on stdout"
[ -s "$ERR" ] && fail "softirqs 1 1 wrote to stderr: $(cat "$ERR")"
ok "$n machine-readable runs: stdout only data, banners on stderr; the default banner on stdout"
