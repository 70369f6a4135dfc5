#!/bin/sh
# lib/ in layers (lib/layers.txt, docs/design.md): every include and every call points down a
# layer or stays in one, no two files depend on each other through any path, symbolize/ uses
# nothing of lib/, and BPF-side code stays in probes/. test/meta/layers.py says which rule.
. "$(dirname "$0")/lib.sh"

python3 "$BT_SRC/test/meta/layers.py" "$BT_SRC" >"$T/out" 2>"$T/err" || {
	while read -r line; do bad "$line"; done <"$T/err"
}
# the reader must have seen the calls: a regex that finds no definition would pass every tree
python3 "$BT_SRC/test/meta/layers.py" "$BT_SRC" --graph 2>/dev/null >"$T/graph"
grep -q '^symbolizer (symbolize):.* ksyms_cache' "$T/graph" ||
	bad "symbolizer.c's calls into ksyms_cache.c were not found: $(grep '^symbolizer ' "$T/graph")"
finish "$(cat "$T/out")"
