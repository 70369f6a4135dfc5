#!/bin/sh
# Issue 33, "Forged output": a victim names itself ESC[2J ESC]0;PWN BEL NL X; (15 bytes: clear
# the screen, set the terminal's title, a newline and a ';' to forge a line and a frame of folded
# output). In every output of every stack tool (text, folded, JSON, SVG, pprof, the exporter's
# metrics and profiles) no raw control byte may appear, each folded line must be one whole
# stack ("frames COUNT"), and the name must stay one frame: the victim's folded lines start
# with a first frame that holds both PWN and X.
. "$(dirname "$0")/lib.sh"
build_victim

COMM=$(printf '\033[2J\033]0;PWN\a\nX;')
victim comm -c "$COMM"
grep -q PWN /proc/"$VPID"/comm || fail "the victim's comm was not set"
echo "victim $VPID: comm $(od -An -c /proc/"$VPID"/comm | tr -s ' ')"
E='hv_spin|hv_nap|hv_round'

# folded_ok LABEL: every line of $OUT is "STACK COUNT", and the victim's lines keep its name as
# their first frame.
folded_ok() {
	bad=$(grep -cvE ' [0-9]+$' "$OUT")
	[ "$bad" = 0 ] || hfail "$1: $bad folded lines are not 'frames COUNT' (a name broke a line)"
	awk -F';' '/hv_/ && !($1 ~ /PWN/ && $1 ~ /X/) { bad++ } END { exit bad > 0 }' "$OUT" ||
		hfail "$1: the victim's name was split into frames (a ';' or newline of it started one)"
	grep -q 'hv_' "$OUT" || hfail "$1: no folded line of the victim"
}

# json_ok LABEL: every line of $OUT parses as JSON.
json_ok() {
	"$PY" -c 'import json, sys
for l in open(sys.argv[1]):
    json.loads(l)' "$OUT" 2>/dev/null || hfail "$1: a line of its output is not JSON"
}

hrun "profile -p" "$E" profile -F 199 -p "$VPID"
hrun "profile -f -p --flamegraph --pprof" "" profile -F 199 -f -p "$VPID" --flamegraph "$T/p.svg" --pprof "$T/p.pb.gz"
folded_ok "profile -f"
check_leaks "profile --flamegraph (the SVG)" "$T/p.svg"
if gzip -dc "$T/p.pb.gz" >"$T/p.pb" 2>/dev/null && "$PY" "$HDIR/pprof_strings.py" "$T/p.pb" >"$T/p.strings"; then
	check_leaks "profile --pprof (its strings)" "$T/p.strings"
else
	hfail "profile --pprof: no readable profile written"
fi
hrun "profile --json -p" "$E" profile -F 199 --json -p "$VPID"
json_ok "profile --json"
hrun "offcputime -p" "$E" offcputime -p "$VPID"
hrun "offcputime -f -p" "" offcputime -f -p "$VPID"
folded_ok "offcputime -f"
hrun "stackcount -f -p" "" stackcount -f -p "$VPID" t:syscalls:sys_enter_clock_nanosleep
folded_ok "stackcount -f"
hrun "stacksnoop -v -U -p" "$E" stacksnoop -v -U -p "$VPID" t:syscalls:sys_enter_clock_nanosleep
hrun "stacksnoop --json -v -U -p" "$E" stacksnoop --json -v -U -p "$VPID" t:syscalls:sys_enter_clock_nanosleep
json_ok "stacksnoop --json"
hrun "funcslower -U -p" "$E" funcslower -U -u 500 -p "$VPID" syscall:clock_nanosleep

# the exporter: the offcputime collector's comm label, and the profile
H_COLLECT=offcputime exporter_profile "exporter (offcputime collector, profile)"
hdone
