#!/bin/sh
# Issue 33, "Host files read through the container": a container whose /tmp is an absolute
# symlink to a root-only host directory that holds a perf map for the container's pid (a
# symbol carrying a secret over the victim's JIT stub), and whose stripped binary's debug file
# is an absolute symlink to a root-only host debug file (its function names carrying the
# secret; the same build-id, so it would be taken). A symlink must resolve inside the
# container's root (RESOLVE_IN_ROOT): no tool may print the secret; they must still trace the
# victim (its comm).
. "$(dirname "$0")/lib.sh"
command -v objcopy >/dev/null || skip "no objcopy (binutils)"
build_victim

mkdir -m 700 "$T/secret"
# the debug link names victim.debug; its CRC does not matter: the build-id decides
objcopy --only-keep-debug "$T/victim" "$T/victim.debug" || fail "objcopy --only-keep-debug"
objcopy --strip-all --add-gnu-debuglink="$T/victim.debug" "$T/victim" "$T/victim.stripped" ||
	fail "objcopy --strip-all"
r=""
for f in hv_spin hv_nap hv_round main; do
	r="$r --redefine-sym $f=${SECRET}_debug_$f"
done
# shellcheck disable=SC2086
objcopy $r "$T/victim.debug" "$T/secret/victim.debug" || fail "objcopy --redefine-sym"
chmod 600 "$T/secret/victim.debug"
SETUP='cp "$T/victim.stripped" hv/victim; ln -s "$T/secret/victim.debug" hv/victim.debug; ln -s "$T/secret" tmp'
container ctr "$SETUP" -j
[ "$VSTUB" != 0 ] || skip "no JIT stub on this machine (x86-64 only)"
printf '%x 40 %s_perfmap\n' "$VSTUB" "$SECRET" >"$T/secret/perf-$VNSPID.map"
chmod 600 "$T/secret/perf-$VNSPID.map"
[ -L "/proc/$VPID/root/tmp" ] || fail "the container's /tmp is not a symlink"
$NOBODY cat "$T/secret/perf-$VNSPID.map" >/dev/null 2>&1 && fail "nobody can read the host's secret perf map"
echo "container $VPID (its pid $VNSPID): /tmp -> $T/secret (root-only perf map), /hv/victim.debug -> $T/secret/victim.debug"

# stackcount -p prints no comm: libc's frame of the victim's sleep, named from libc's symbols
SC_EXPECT='__nanosleep' stack_tools "$VPID" 'victim'
exporter_profile "exporter"
hdone
