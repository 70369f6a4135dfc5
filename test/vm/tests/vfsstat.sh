#!/bin/sh
# vm-timeout: 120
# vfsstat in each attach mode the guest has (fentry, kprobe): a workload makes known numbers of
# VFS calls and `vfsstat -p PID 1 4` must sum them, column by column, in BCC's layout; every
# function is attached by the mode asked for, a second copy running meanwhile is left out; Ctrl-C
# prints a last row and exits 0; --json gives the same rows as JSON Lines.
. "$BTVM_LIB"

"$BPFTOOLS" --list | grep -q '^vfsstat ' || fail "no vfsstat command in this build"
WORK=$(workload vfs_work)
HEADER='TIME         READ/s  WRITE/s  FSYNC/s   OPEN/s CREATE/s UNLINK/s  MKDIR/s  RMDIR/s'
# BCC's "%-8s: " and eight " %8d": 82 characters while the numbers have 8 digits or fewer
ROW='^[0-9]{2}:[0-9]{2}:[0-9]{2}: ( {1,8}[0-9]{1,8}){8}$'
R=500 W=300 O=200 M=30

# The columns, their function and what vfs_work makes of it (it removes its own file and
# directory at the end: one unlink and one rmdir more). A function this kernel cannot trace
# must leave its column at 0, with a warning.
COLS="2:vfs_read:$R 3:vfs_write:$W 4:vfs_fsync_range:$M 5:vfs_open:$O 6:vfs_create:$M
7:vfs_unlink:$((M + 1)) 8:vfs_mkdir:$M 9:vfs_rmdir:$((M + 1))"
# The traceable functions, read once: the kernel writes its 30,000-50,000 lines slowly under TCG.
awk '{ print $1 }' "$TRACEFS/available_filter_functions" | sort -u >funcs
traceable() { grep -qx "$1" funcs; }
# copies FUNC: how many compiler copies of FUNC the kernel can trace ("vfs_rmdir.part.0" on
# Debian 11's 5.10, where do_rmdir calls the copy and never vfs_rmdir): vfsstat attaches them
# too, by kprobe (a copy has no BTF of its own, so not by fentry), under FUNC's column.
copies() { grep -cE "^$1\.(isra|constprop|part|llvm)\.[0-9]" funcs || true; }
ntrace=0 ncopy=0
for c in $COLS; do
  f=${c#*:}
  f=${f%%:*}
  if traceable "$f"; then ntrace=$((ntrace + 1)); else log "$f is not traceable here"; fi
  n=$(copies "$f")
  [ "$n" = 0 ] || log "$f has $n compiler copies: $(grep -E "^$f\." funcs | tr '\n' ' ')"
  ncopy=$((ncopy + n))
done
[ $ntrace -gt 0 ] || skip "none of vfsstat's functions is traceable on $(uname -r)"

# sum COL: column COL summed over the rows.
sum() { awk -v c="$1" '/^[0-9][0-9]:/ { s += $c } END { print s + 0 }' "$OUT"; }

# sleeping PID: the workload waits in sigwait (its start-up opens and reads are over).
sleeping() {
  _st=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  _st=${_st##*) }
  [ "${_st%% *}" = S ]
}

for mode in $(attach_modes); do
  log "--attach=$mode"
  # how every function got attached: the layer's debug summary
  # (fentry cannot take the copies: they are among the failed)
  case $mode in
    fentry) want="$ntrace fentry, 0 kprobe, 0 kprobe.multi" nfail=$((8 - ntrace + ncopy)) ;;
    *) nk=$((ntrace + ncopy)) nfail=$((8 - ntrace))
       if want_kprobe_multi && [ $nk -gt 1 ]; then
         want="0 fentry, 0 kprobe, $nk kprobe.multi"
       else
         want="0 fentry, $nk kprobe, 0 kprobe.multi"
       fi ;;
  esac
  TMPDIR=$PWD "$WORK" $R $W $O $M &
  wpid=$!
  # a second copy, released with the traced one: -p must leave its calls out
  TMPDIR=$PWD "$WORK" $R $W $O $M &
  other=$!
  for p in $wpid $other; do
    i=0
    until sleeping $p; do
      i=$((i + 1))
      [ $i -lt 200 ] || fail "vfs_work did not reach its sigwait"
      sleep 0.05
    done
  done
  # as start_tool, with stderr apart: the layer's debug summary says how each was attached
  OUT=$PWD/vfsstat-$mode.out
  # eight rows of a second: the workload's calls took more than two on the arm64 guest beside
  # the x86-64 ones (28 of 30 fsyncs in the two rows once), and began past the third row of
  # four on a loaded host once
  echo "\$ BPFTOOLS_DEBUG=1 bpftools vfsstat -p $wpid --attach=$mode 1 8 &"
  BPFTOOLS_DEBUG=1 "$BPFTOOLS" vfsstat -p $wpid --attach=$mode 1 8 >"$OUT" 2>debug-$mode.err &
  BG_PID=$!
  wait_for "$OUT" '^TIME ' 60
  kill -USR1 $wpid $other
  wait $wpid || fail "vfs_work exited with $?"
  wait $other || fail "the other vfs_work exited with $?"
  # it stops by itself after 8 rows; stop_tool only collects the status
  i=0
  while alive $BG_PID && [ $i -lt 140 ]; do
    sleep 0.1
    i=$((i + 1))
  done
  alive $BG_PID && fail "vfsstat ... 1 8 did not stop after 8 rows"
  stop_tool INT 5
  assert_rc 0
  [ "$(head -n 1 "$OUT")" = "$HEADER" ] || fail "--attach=$mode: the header is not BCC's"
  [ "$(count_matching "$OUT" "$ROW")" = 8 ] || fail "--attach=$mode: expected 8 rows in BCC's layout"
  awk '/^[0-9][0-9]:/ && length($0) != 82 { exit 1 }' "$OUT" || fail "--attach=$mode: a row is not 82 wide"
  [ "$(wc -l <"$OUT")" = 9 ] || fail "--attach=$mode: output beyond the header and 8 rows"
  grep -q "kernel functions: $want, $nfail failed" debug-$mode.err ||
    fail "--attach=$mode: not '$want, $nfail failed': $(grep 'kernel functions:' debug-$mode.err)"
  if [ $ntrace = 8 ] && { [ $ncopy = 0 ] || [ $mode = kprobe ]; }; then
    assert_not_contains debug-$mode.err '^vfsstat: [^d]' "vfsstat's stderr (other than debug lines)"
  else
    assert_contains debug-$mode.err '^vfsstat: warning: ' "with a function missing, vfsstat's stderr"
  fi
  for c in $COLS; do
    col=${c%%:*} f=${c#*:}
    n=${f#*:} f=${f%%:*}
    s=$(sum "$col")
    if [ $mode = fentry ] && [ "$(copies "$f")" != 0 ]; then
      # the calls that go to the copy are not seen
      assert_le "$s" $((n + 2)) "$f (column $col) with -p, --attach=$mode, for $n calls"
      log "$f: $s of $n calls seen by fentry, whose callers mostly call its copies"
    elif traceable "$f" || [ "$(copies "$f")" != 0 ]; then
      assert_ge "$s" "$n" "$f (column $col) with --attach=$mode, for $n calls"
      assert_le "$s" $((n + 2)) "$f (column $col) with -p, --attach=$mode, for $n calls"
    else
      assert_le "$s" 0 "$f is not traceable, yet its column"
    fi
  done
  log "$mode: $(grep 'kernel functions:' debug-$mode.err)"
  assert_no_probes "after vfsstat --attach=$mode"
done

# --json: rows as JSON Lines (docs/vfsstat.md), a member per column, the reads counted as in
# the text; stderr holds JSON messages only (the banner says it is attached). No count: Ctrl-C
# once the workload is over prints the last row, so the window holds it however slow the guest
# (four rows missed its start on a loaded host once).
TMPDIR=$PWD "$WORK" $R $W $O $M &
wpid=$!
i=0
until sleeping $wpid; do
  i=$((i + 1))
  [ $i -lt 200 ] || fail "vfs_work did not reach its sigwait"
  sleep 0.05
done
OUT=$PWD/vfsstat-json.out
echo "\$ bpftools vfsstat --json -p $wpid 1 &"
"$BPFTOOLS" vfsstat --json -p $wpid 1 >"$OUT" 2>json.err &
BG_PID=$!
wait_for json.err '"message": "Tracing VFS calls' 60
kill -USR1 $wpid
wait $wpid || fail "vfs_work exited with $?"
stop_tool INT 5
assert_rc 0
JROW='^[{]"ts": "[0-9-]{10} [0-9:]{8}", "val_type": "per_second", "interval": 1, "read": [0-9]+, "write": [0-9]+, "fsync": [0-9]+, "open": [0-9]+, "create": [0-9]+, "unlink": [0-9]+, "mkdir": [0-9]+, "rmdir": [0-9]+[}]$'
rows=$(wc -l <"$OUT")
[ "$rows" -ge 1 ] && [ "$(count_matching "$OUT" "$JROW")" = "$rows" ] ||
  fail "--json: expected JSON rows only, at least the one Ctrl-C prints"
reads=$(sed 's/.*"read": \([0-9]*\),.*/\1/' "$OUT" | awk '{ s += $1 } END { print s + 0 }')
if traceable vfs_read; then
  assert_ge "$reads" "$R" "--json: reads for $R vfs_read calls"
  assert_le "$reads" $((R + 2)) "--json: reads with -p for $R vfs_read calls"
fi
# the default mode: fentry where it can, the copies (vfs_rmdir.part.0 on 5.10) by kprobe
rmdirs=$(sed 's/.*"rmdir": \([0-9]*\)}.*/\1/' "$OUT" | awk '{ s += $1 } END { print s + 0 }')
if traceable vfs_rmdir || [ "$(copies vfs_rmdir)" != 0 ]; then
  assert_ge "$rmdirs" $((M + 1)) "--json: rmdirs for $((M + 1)) rmdir calls"
  assert_le "$rmdirs" $((M + 3)) "--json: rmdirs with -p for $((M + 1)) rmdir calls"
fi
grep -qv '^[{]"level": "[a-z]*", "command": "vfsstat", "message": ".*"[}]$' json.err &&
  fail "--json: stderr is not JSON lines: $(grep -v '^[{]' json.err | head -2)"
log "--json: $rows rows, $reads reads, $rmdirs rmdirs"
assert_no_probes "after vfsstat --json"

# Ctrl-C (default interval 1, forever): a last row for the time so far, exit 0.
start_tool vfsstat
wait_for "$OUT" '^TIME ' 60
sleep 0.5
stop_tool INT 20
assert_rc 0
assert_count_ge "$OUT" "$ROW" 1 "vfsstat rows after SIGINT"
assert_no_probes "after SIGINT"
exit 0
