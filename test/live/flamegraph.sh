#!/bin/sh
# bpftools flamegraph: folded stacks to an SVG flame graph and to a gzipped pprof profile. The
# SVG must be well-formed XML whose frames (read back by their geometry) have exactly the
# folded counts as widths, with the right tooltips and kinds; the profile, decoded by hand in
# flamegraph.py, must hold exactly the folded stacks and values. First on a crafted input
# (names XML must escape, UTF-8, annotations, delimiters), then on offcputime's real output.
. "$(dirname "$0")/lib.sh"
CHECK="python3 $(dirname "$0")/flamegraph.py"
need python3 # to read the SVG and the profile back

fg() {
	RC=0
	"$BPFTOOLS" flamegraph "$@" >"$T/fg.out" 2>"$T/fg.err" || RC=$?
}

printf '%s\n' 'proc;main;a;b 10' 'proc;main;a 5' 'proc;main;c_[k] 7' \
	'proc;x<y&z;"q" 3' 'proc;operator new(unsigned long) 2' 'proc;main;a;b 1' \
	'other;-;do_sys;bpf_prog_12_x 4' 'proc;[Missed User Stack] 1' '' >"$T/in"
printf 'proc;\303\251t\303\251 6\n' >>"$T/in"
fg --comm --title 'A & B' "$T/in"
[ "$RC" = 0 ] || fail "flamegraph exits $RC: $(cat "$T/fg.err")"
[ -s "$T/fg.err" ] && fail "flamegraph writes to stderr: $(cat "$T/fg.err")"
$CHECK svg "$T/in" "$T/fg.out" proc=other main=user c=kernel do_sys=kernel -=other \
	bpf_prog_12_x=jit '[Missed User Stack]=missed' || fail "crafted input: SVG"
grep -q '>A &amp; B</text>' "$T/fg.out" || fail "the title is not in the SVG, escaped"
ok "SVG: widths, tooltips and kinds of a crafted input"
# Its script, run by node against a small DOM made from the SVG: zoom, reset, search, details.
if command -v node >/dev/null; then
	node "$(dirname "$0")/flamegraph-dom.js" "$T/fg.out" || fail "the SVG's script"
else
	echo "note: no node here (scripts/deps --test installs it): the SVG's script was not run"
fi

# The same SVG in a real browser (headless chromium over the DevTools protocol): load, hover,
# click-zoom, Esc, Ctrl-F search, ignore-case, the ?x=&y=&s= link, kinds' colours and the
# title read off a screenshot. SHOTS=DIR keeps the screenshots.
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
SHOTS=${SHOTS:-$T/shots}
mkdir -p "$SHOTS"
browser() {
	[ -n "$CHROMIUM" ] || return 0
	# served as image/svg+xml: the name must end in .svg
	cp "$1" "$T/in-browser.svg"
	shift
	timeout 180 python3 "$(dirname "$0")/flamegraph-browser.py" "$CHROMIUM" "$T/in-browser.svg" \
		"$@" "$SHOTS" || fail "in chromium: $*"
}
if [ -n "$CHROMIUM" ]; then
	browser "$T/fg.out" 'A & B'
	ok "chromium: the crafted graph's colours, title, hover, zoom, Esc, search, links"
else
	echo "note: no chromium here (scripts/deps --test installs it): the SVG was not opened in a browser"
fi

# Empty input: one line on stderr, exit 1, no SVG (it used to be a blank graph, exit 0).
# (an empty regular file: a device such as /dev/null is refused before it is read)
: >"$T/empty.folded"
fg -o "$T/empty.svg" "$T/empty.folded"
[ "$RC" = 1 ] || fail "empty input exits $RC, not 1"
[ "$(cat "$T/fg.err")" = "bpftools flamegraph: no samples in the folded input: no flame graph written" ] ||
	fail "empty input: $(cat "$T/fg.err")"
[ -e "$T/empty.svg" ] && fail "empty input left an SVG"
printf 'a;b 0\n' | "$BPFTOOLS" flamegraph >/dev/null 2>&1 && fail "counts of 0 make a graph"
ok "empty input: one line, exit 1, no SVG"

# Kinds without annotations: offcputime -f 5's lines (no "-") have their kernel frames from the
# entry point on; --offcpu draws them cool (blue user, violet kernel); --minwidth 0 keeps the
# hairline frames the default leaves out.
printf '%s\n' 'app;main;clock_nanosleep;entry_SYSCALL_64_after_hwframe;do_syscall_64;do_nanosleep;schedule 700000' \
	'app;main;read;entry_SYSCALL_64_after_hwframe;ksys_read;vfs_read 300000' 'app;main;hair 1' >"$T/cold"
fg --comm --offcpu --unit=microseconds --title 'Off-CPU' "$T/cold"
[ "$RC" = 0 ] || fail "--offcpu exits $RC"
cp "$T/fg.out" "$T/cold.svg"
$CHECK svg "$T/cold" "$T/cold.svg" app=other main=user clock_nanosleep=user \
	entry_SYSCALL_64_after_hwframe=kernel schedule=kernel vfs_read=kernel || fail "kinds by entry point"
grep -q '<title>hair (' "$T/cold.svg" && fail "a frame of 0.001 px is drawn (--minwidth's default 0.1)"
grep -q '<title>all (1,000,001 microseconds, 100.00%)' "$T/cold.svg" || fail "no thousands separators"
fg --comm --minwidth 0 "$T/cold"
grep -q '<title>hair (1 sample, ' "$T/fg.out" || fail "--minwidth 0 leaves out a frame"
browser "$T/cold.svg" 'Off-CPU'
ok "no annotations: kernel frames from the entry point on; --offcpu cool colours; --minwidth"

"$BPFTOOLS" flamegraph --pprof --sample-type=events --unit=count <"$T/in" >"$T/in.pb.gz" ||
	fail "flamegraph --pprof exits non-zero"
$CHECK pprof "$T/in" "$T/in.pb.gz" events count || fail "crafted input: pprof"
fg --pprof -o "$T/o.pb.gz" "$T/in"
[ "$RC" = 0 ] && [ ! -s "$T/fg.out" ] || fail "--pprof -o: exit $RC, or output on stdout"
cmp -s "$T/o.pb.gz" "$T/in.pb.gz" || zcat "$T/o.pb.gz" >/dev/null || fail "-o wrote no gzip"
ok "pprof: the crafted input's stacks and values, decoded"

# Bad input: a usage error naming the line, and no output file left behind.
printf 'a;b 1\nnot folded\n' >"$T/bad"
fg -o "$T/bad.svg" "$T/bad"
[ "$RC" = 2 ] || fail "a bad line exits $RC, not 2"
grep -q "^bpftools flamegraph: folded input line 2 is not" "$T/fg.err" || fail "bad line: $(cat "$T/fg.err")"
[ -e "$T/bad.svg" ] && fail "a bad input left an output file"
fg "$T/nonexistent"
[ "$RC" = 1 ] && grep -q "cannot open" "$T/fg.err" || fail "a missing file: exit $RC, $(cat "$T/fg.err")"
fg --width 5 "$T/in"
[ "$RC" = 2 ] || fail "--width 5 exits $RC, not 2"
ok "bad input: exit 2 naming the line, no output file"

# Counts that add up past int64 (pprof's values) are refused, naming the line; they used to
# wrap silently (18446744073709551615 + 2 drew a graph of 1). The line named is the first past
# the limit.
for big in '9223372036854775807' '18446744073709551615'; do
	printf 'a;b %s\na;c 2\n' "$big" >"$T/big"
	for fmt in "" --pprof; do
		fg $fmt -o "$T/big.out" "$T/big"
		[ "$RC" = 1 ] || fail "counts past 2^63-1 ($big + 2) ${fmt:-svg}: exit $RC, not 1"
		grep -Eqx "bpftools flamegraph: folded input line [12]: the counts add up to more than 9223372036854775807, the most a profile can hold" "$T/fg.err" ||
			fail "counts past 2^63-1: $(cat "$T/fg.err")"
		[ -e "$T/big.out" ] && fail "an overflowing input left an output file"
	done
done
ok "counts past 2^63-1: refused naming the line, exit 1"

# Real folded output: offcputime -f -d (the "-" between user and kernel frames gives the kinds)
# of a workload sleeping on four paths.
require root btf syscalls
W=$BT_WORKLOADS/stack_many
[ -x "$W" ] || fail "workloads not built"
BANNER_IN=err traced_workload "$W" sleep 2 20000 -- offcputime -f -d -p @PID
expect_rc 0 "offcputime -f -d -p"
cp "$OUT" "$T/off"
grep -q 'leaf;-;.*do_nanosleep' "$T/off" || fail "offcputime -f printed no sleeping stack"
fg --comm --unit=microseconds "$T/off"
[ "$RC" = 0 ] || fail "flamegraph of offcputime -f exits $RC"
$CHECK svg "$T/off" "$T/fg.out" stack_many=other sm_a=user do_nanosleep=kernel ||
	fail "offcputime -f: SVG"
fg --comm --pprof --sample-type=off_cpu --unit=microseconds -o "$T/off.pb.gz" "$T/off"
$CHECK pprof "$T/off" "$T/off.pb.gz" off_cpu microseconds || fail "offcputime -f: pprof"
if command -v go >/dev/null; then
	go tool pprof -top "$T/off.pb.gz" >"$T/top" 2>&1 || fail "go tool pprof cannot read it: $(cat "$T/top")"
	grep -q do_nanosleep "$T/top" || fail "go tool pprof -top shows no do_nanosleep"
fi
ok "offcputime -f: SVG and pprof match its folded stacks"

# A tool's --flamegraph of a run that saw nothing: a note on stderr, an SVG that says "No
# samples", and its script throws nothing in chromium (search used to throw "Cannot read
# properties of null (reading 'w')").
sleep 30 &
IDLE=$!
"$BPFTOOLS" stackcount -D 1 -p "$IDLE" --flamegraph "$T/none.svg" t:syscalls:sys_enter_getppid \
	>"$T/none.out" 2>"$T/none.err" || fail "stackcount of nothing exits non-zero: $(cat "$T/none.err")"
kill "$IDLE"
grep -q "no samples were recorded: '$T/none.svg' holds an empty flame graph" "$T/none.err" ||
	fail "no note of the empty graph: $(cat "$T/none.err")"
grep -q '>No samples</text>' "$T/none.svg" || fail "the empty graph does not say No samples"
browser "$T/none.svg" --empty
ok "a tool's empty --flamegraph: a note, 'No samples', a script that does not throw"
