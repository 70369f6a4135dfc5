#!/bin/sh
# Issue 33, "Hang", another way: a victim (nobody) maps a library executable, removes it and
# puts a symlink to a FIFO at its path; /proc/PID/maps then names "PATH (deleted)". The tools
# run without CAP_SYS_ADMIN and CAP_CHECKPOINT_RESTORE (CAP_BPF and CAP_PERFMON suffice for
# them), so /proc/PID/map_files is refused and the path is what is left to open. Each must end
# within its bounds and name the victim's own frames (from its binary, still there).
. "$(dirname "$0")/lib.sh"
build_victim

mkdir "$T/del"
cp "$T/libhv.so" "$T/del/libhv.so"
chown -R 65534:65534 "$T/del"
$NOBODY mkfifo "$T/del/fifo" || fail "nobody cannot make a FIFO"
victim del -D "$T/del/libhv.so:$T/del/fifo"
grep -q "$T/del/libhv.so (deleted)" /proc/"$VPID"/maps || fail "no '(deleted)' mapping in the victim's maps"
[ -p "$T/del/libhv.so" ] || fail "the deleted library's path is not a symlink to a FIFO"
HPREFIX="setpriv --bounding-set -sys_admin,-checkpoint_restore --inh-caps -sys_admin,-checkpoint_restore --"
range=$(awk -v p="$T/del/libhv.so" 'index($0, p) { print $1; exit }' /proc/"$VPID"/maps)
$HPREFIX head -c 1 "/proc/$VPID/map_files/$range" >/dev/null 2>&1 &&
	skip "map_files is readable without CAP_SYS_ADMIN and CAP_CHECKPOINT_RESTORE here: the fallback is not reached"
echo "victim $VPID: maps $T/del/libhv.so (deleted), now a symlink to a FIFO; tools without CAP_SYS_ADMIN"

stack_tools "$VPID" 'hv_spin|hv_nap|hv_round'
exporter_profile "exporter"
hdone
