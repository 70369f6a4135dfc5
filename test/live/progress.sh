#!/bin/sh
# The attach progress line: on a terminal, while more than 100 probes attach, stderr shows
# "CMD: attaching N/M probes..." rewritten with '\r' and erased at the end; with stderr on a
# file or a pipe it never appears. 200 uprobes on libbtmany.so, a library nothing else loads.
. "$(dirname "$0")/lib.sh"
require root uprobes
command -v script >/dev/null || skip "no script(1) (util-linux) to give the tool a terminal"

LIB=$BT_WORKLOADS/libbtmany.so
[ -f "$LIB" ] || fail "no $LIB"
SPEC="$LIB:bt_many_[12]*"

# On a terminal: script(1) runs the tool on a pty and copies what it writes to our stdout;
# the tool's own stdout goes to a file, so the pty holds stderr only.
script -qec "timeout -s INT 30 '$BPFTOOLS' funccount -d 1 '$SPEC' >'$T/out'" /dev/null >"$T/tty" 2>&1 ||
	fail "funccount on a terminal failed: $(cat "$T/tty")"
OUT=$T/out
expect_line '^Tracing 200 functions for '
tr '\r' '\n' <"$T/tty" >"$T/lines"
grep -qx 'funccount: attaching 0/200 probes\.\.\.' "$T/lines" || fail "no progress line on a terminal: $(cat -A "$T/tty")"
grep -qx 'funccount: attaching 200/200 probes\.\.\.' "$T/lines" || fail "the progress line never reached 200/200: $(cat -A "$T/tty")"
# erased (\r, erase to end of line) before anything else is written
printf '\r\033[K' >"$T/erase"
grep -qF "$(cat "$T/erase")" "$T/tty" || fail "the progress line is not erased: $(cat -A "$T/tty")"
tail -c +"$(($(grep -boF "$(cat "$T/erase")" "$T/tty" | tail -1 | cut -d: -f1) + 1))" "$T/tty" |
	grep -q 'attaching' && fail "a progress line after the erase: $(cat -A "$T/tty")"

# Not a terminal: stderr to a file, and through a pipe.
run funccount -d 1 "$SPEC"
expect_rc 0 "funccount -d 1 (stderr to a file)"
grep -q 'attaching' "$ERR" && fail "progress line written to a file: $(cat -A "$ERR")"
timeout -s INT 30 "$BPFTOOLS" funccount -d 1 "$SPEC" 2>&1 >/dev/null | cat >"$T/pipe"
grep -q 'attaching' "$T/pipe" && fail "progress line written to a pipe: $(cat -A "$T/pipe")"
# Under 100 probes: no line even on a terminal.
script -qec "timeout -s INT 30 '$BPFTOOLS' funccount -d 1 '$LIB:bt_many_1[0-4]*' >/dev/null" /dev/null >"$T/tty2" 2>&1
grep -q 'attaching' "$T/tty2" && fail "progress line for 50 probes: $(cat -A "$T/tty2")"
ok "progress line on a terminal for 200 probes, erased; none in a file, a pipe, or for 50 probes"
