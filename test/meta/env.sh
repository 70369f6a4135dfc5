#!/bin/sh
# The boolean BPFTOOLS_* switches are read through bt_env_flag() only (lib/bt_env.c), so that
# "0", "no" and "false" mean off for every one of them, not just the one that checked for "0".
. "$(dirname "$0")/lib.sh"

# BPFTOOLS_SKIP_PROGS is a list, not a switch.
grep -rn 'getenv("BPFTOOLS_' "$BT_SRC/lib" "$BT_SRC/cmd" "$BT_SRC/symbolize" |
	grep -v 'getenv("BPFTOOLS_SKIP_PROGS")' >"$T/raw"
[ -s "$T/raw" ] && bad "BPFTOOLS_* switches read with getenv(), not bt_env_flag(): $(cat "$T/raw")"
finish "BPFTOOLS_* switches read through bt_env_flag()"
