#!/bin/sh
# Every option more than one command has is declared once, in lib/cli/bt_args.h's blocks: no row of
# cmd/ names one, and each command that has one shows, takes and refuses it alike. The rules
# are in shared_opts.py.
. "$(dirname "$0")/lib.sh"

python3 "$BT_SRC/test/meta/shared_opts.py" "$BT_SRC" "$BPFTOOLS" >"$T/out" 2>"$T/err" || {
	[ -s "$T/err" ] || echo "shared_opts.py failed without a word" >"$T/err"
	while IFS= read -r line; do bad "$line"; done <"$T/err"
}
finish "$(cat "$T/out")"
