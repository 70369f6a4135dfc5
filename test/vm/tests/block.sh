#!/bin/sh
# vm-timeout: 150
# biosnoop and biolatency on a stock kernel: direct reads of a blk-mq disk (null_blk, else a
# loop device over a file) are listed by biosnoop with the reader's pid and the disk's name,
# and counted by biolatency per disk, per flags and with -Q; through tp_btf and through raw_tp
# (no lockdown here, so raw_tp's probe reads work). On 6.1 (no block_io_start, accounting
# functions inlined) the submitter is noted per bio at block_getrq.
. "$BTVM_LIB"
require_facility btf tracefs

for t in biosnoop biolatency; do
  "$BPFTOOLS" --list | grep -q "^$t " || fail "no $t command in this build"
done

# A disk whose requests go through blk-mq (brd is bio-based: no block_rq_* events).
DEV= DISK=
if has_facility module:null_blk && [ -b /dev/nullb0 ]; then
  DEV=/dev/nullb0 DISK=nullb0
elif has_facility module:loop; then
  dd if=/dev/zero of=$PWD/img bs=1M count=8 2>/dev/null
  DEV=$(losetup -f)
  losetup "$DEV" $PWD/img || DEV=
  DISK=${DEV#/dev/}
fi
[ -n "$DEV" ] || skip "no null_blk or loop device in $(uname -r)"
log "disk: $DEV"
N=32

# reads COUNT: dd's direct reads of $DEV in the background; its pid in $DD.
reads() {
  dd if="$DEV" of=/dev/null bs=4k count="$1" iflag=direct 2>/dev/null &
  DD=$!
  wait $DD
}

for path in tp_btf raw_tp; do
  if [ $path = raw_tp ]; then export BPFTOOLS_NO_TP_BTF=1; fi
  export BPFTOOLS_DEBUG=1

  start_tool biosnoop
  wait_for "$OUT" '^TIME\(s\) ' 60
  reads $N
  sleep 0.5
  stop_tool INT 20
  assert_rc 0
  log "$path: $(grep -c "using '" "$OUT") fallbacks: $(grep "using '\|creation probe" "$OUT" | tr '\n' ' ')"
  n=$(awk -v p=$DD -v d=$DISK '$3 == p && $4 == d && $5 == "R" && $7 == 4096' "$OUT" | wc -l)
  [ "$n" -eq $N ] || fail "$path: biosnoop listed $n reads of pid $DD on $DISK, expected $N"
  # where the submitter was taken: block_io_start (6.5+, KERNEL_SINCE), else a kprobe (6.1)
  if kernel_since block_io_start; then
    [ -d "$TRACEFS/events/block/block_io_start" ] ||
      fail "no block_io_start tracepoint on $(uname -r), which should have it"
    assert_not_contains "$OUT" "using 'start_kp|no block I/O creation probe" "biosnoop, $path"
  else
    # 6.1: the accounting functions are inlined (no BTF FUNC): the submitter is noted per bio
    # at block_getrq, or taken by a kprobe where a kernel has the function
    assert_contains "$OUT" "using 'start_kp(_old)?' instead of 'start_btf'|noted per bio" "biosnoop, $path"
    assert_not_contains "$OUT" "taken at insert/issue" "biosnoop, $path"
  fi

  start_tool biolatency -D -Q -e
  wait_for "$OUT" '^Tracing block device I/O' 60
  reads 64
  sleep 0.5
  stop_tool INT 20
  assert_rc 0
  assert_contains "$OUT" "^disk = $DISK\$" "biolatency -D, $path"
  c=$(awk -v s="disk = $DISK" '$0 == s { on = 1; next } /^$/ { on = 0 }
	on && / -> / { split($0, a, ":"); n += a[2] } END { print n + 0 }' "$OUT")
  assert_ge "$c" 64 "biolatency -D -Q, $path: requests on $DISK for 64 reads"

  start_tool biolatency -F
  wait_for "$OUT" '^Tracing block device I/O' 60
  reads 16
  sleep 0.5
  stop_tool INT 20
  assert_rc 0
  assert_contains "$OUT" '^flags = ([A-Za-z]+-)*Read$' "biolatency -F, $path"
  unset BPFTOOLS_NO_TP_BTF BPFTOOLS_DEBUG
done
[ -z "${DEV#/dev/loop*}" ] && losetup -d "$DEV"
exit 0
