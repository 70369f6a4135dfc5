#!/bin/sh
# The boolean BPFTOOLS_* switches are read through bt_env_flag() only (lib/base/bt_env.c), so that
# "0", "no" and "false" mean off for every one of them, not just the one that checked for "0".
# And every BPFTOOLS_* name the code reads is in the table of docs/environment.md, which lists
# no name the code does not read: the one place a user or a test looks for them.
. "$(dirname "$0")/lib.sh"

# BPFTOOLS_SKIP_PROGS is a list, not a switch.
grep -rn 'getenv("BPFTOOLS_' "$BT_SRC/lib" "$BT_SRC/cmd" "$BT_SRC/symbolize" |
	grep -v 'getenv("BPFTOOLS_SKIP_PROGS")' >"$T/raw"
[ -s "$T/raw" ] && bad "BPFTOOLS_* switches read with getenv(), not bt_env_flag(): $(cat "$T/raw")"

# Read: a C string literal that is exactly a BPFTOOLS_* name (what bt_env_flag() and getenv()
# are given; a message naming a switch has more in its string). Listed: the first column of
# the table.
grep -rhoE --include='*.[ch]' '"BPFTOOLS_[A-Z0-9_]+"' "$BT_SRC/lib" "$BT_SRC/cmd" \
	"$BT_SRC/symbolize" | tr -d '"' | sort -u >"$T/read"
grep -oE '^\| `BPFTOOLS_[A-Z0-9_]+' "$BT_SRC/docs/environment.md" | tr -d '|` ' | sort -u \
	>"$T/listed"
n=$(wc -l <"$T/read")
# a pattern that stopped matching would find none, and then nothing to miss
[ "$n" -ge 10 ] || bad "only $n BPFTOOLS_* names found in the code"
for v in $(comm -23 "$T/read" "$T/listed"); do
	bad "$v is read by the code but not listed in docs/environment.md"
done
for v in $(comm -13 "$T/read" "$T/listed"); do
	bad "$v is listed in docs/environment.md but the code never reads it"
done
finish "BPFTOOLS_* switches read through bt_env_flag(), all $n in docs/environment.md"
