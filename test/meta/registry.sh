#!/bin/sh
# Every command in the registry has working help, a docs page that covers its options, a live
# test, and commands.def is sorted, unique and the same list --list prints.
. "$(dirname "$0")/lib.sh"

def=$(sed -n 's/^BT_CMD(\([a-z0-9_]*\)).*/\1/p' "$BT_SRC/cmd/commands.def")
[ -n "$def" ] || bad "no BT_CMD lines in cmd/commands.def"
[ "$def" = "$(printf '%s\n' "$def" | LC_ALL=C sort -u)" ] || bad "cmd/commands.def is not sorted and unique"
[ "$def" = "$(commands)" ] || bad "--list differs from cmd/commands.def"

for c in $(commands); do
	"$BPFTOOLS" "$c" --help >"$T/help" 2>"$T/err" || bad "$c --help exits non-zero"
	[ -s "$T/err" ] && bad "$c --help writes to stderr"
	grep -q "^Usage: $c " "$T/help" || bad "$c --help has no 'Usage: $c' line"
	[ -f "$BT_SRC/cmd/$c.c" ] || bad "no cmd/$c.c"
	[ -f "$BT_SRC/docs/$c.md" ] || { bad "no docs/$c.md"; continue; }
	[ -f "$BT_SRC/test/live/$c.sh" ] || bad "no live test test/live/$c.sh"
	for o in $(long_options "$c"); do
		grep -q -- "$o" "$BT_SRC/docs/$c.md" || bad "docs/$c.md does not mention $o"
	done
	grep -q "$c" "$BT_SRC/README.md" || bad "README.md does not list $c"
done
finish "registry, help, docs and live tests agree"
