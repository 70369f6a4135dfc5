#!/bin/sh
# Issue 33, "Hang", another way: a stripped binary (its names only in a debug file, found by
# its .gnu_debuglink next to it) whose user, nobody, put a FIFO where the debug file is looked
# for. Every stack tool and the exporter must end within their bounds; the victim's frames may
# then be unnamed, but it must be traced (its comm in the output).
. "$(dirname "$0")/lib.sh"
command -v objcopy >/dev/null || skip "no objcopy (binutils) to strip the victim"
build_victim

mkdir "$T/dbg"
objcopy --only-keep-debug "$T/victim" "$T/dbg/victim.debug" || fail "objcopy --only-keep-debug"
objcopy --strip-all --add-gnu-debuglink="$T/dbg/victim.debug" "$T/victim" "$T/dbg/victim" ||
	fail "objcopy --strip-all"
rm "$T/dbg/victim.debug"
chown -R 65534:65534 "$T/dbg"
$NOBODY mkfifo "$T/dbg/victim.debug" || fail "nobody cannot make a FIFO"
VBIN=$T/dbg/victim victim dbg
echo "victim $VPID: $T/dbg/victim, stripped, its debug link a FIFO"

# stackcount -p prints no comm: libc's frame of the victim's sleep, named from libc's symbols
SC_EXPECT='__nanosleep' stack_tools "$VPID" 'victim'
exporter_profile "exporter"
hdone
