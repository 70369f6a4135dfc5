#!/bin/sh
# Every repository path named in a comment or a doc exists, and docs/design.md's table names
# every lib/ and symbolize/ file: the rules are in paths.py.
. "$(dirname "$0")/lib.sh"

python3 "$BT_SRC/test/meta/paths.py" "$BT_SRC" >"$T/out" 2>"$T/err" || {
	[ -s "$T/err" ] || echo "paths.py failed without a word" >"$T/err"
	while IFS= read -r line; do bad "$line"; done <"$T/err"
}
finish "$(cat "$T/out")"
