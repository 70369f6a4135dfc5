#!/bin/sh
# Every tracing command declares what it traces with (.uses), so that `bpftools features`
# reports it: a command missing from the TOOL table is one whose kernel needs nobody checks.
. "$(dirname "$0")/lib.sh"

"$BPFTOOLS" features >"$T/out" 2>"$T/err" || bad "features exits non-zero: $(head -1 "$T/err")"
sed -n '/^TOOL /,$p' "$T/out" | awk 'NR > 1 { print $1 }' >"$T/tools"
[ -s "$T/tools" ] || bad "features prints no TOOL table"
for c in $(commands); do
	[ "$c" = features ] && continue # reports on the others; traces nothing itself
	grep -qx "$c" "$T/tools" || bad "$c is missing from the features TOOL table (no .uses in cmd/$c.c)"
done
finish "every tracing command is in the features table"
