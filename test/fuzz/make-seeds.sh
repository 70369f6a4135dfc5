#!/bin/sh
# usage: make-seeds.sh DIR FILE...: each file whole, plus prefixes of it.
set -eu
dir=$1
shift
rm -rf "$dir"
mkdir -p "$dir"
for f in "$@"; do
	b=$(basename "$f")
	cp "$f" "$dir/$b"
	size=$(wc -c < "$f")
	for cut in 64 512 4096 $((size / 2)) $((size - 100)); do
		[ "$cut" -gt 0 ] && [ "$cut" -lt "$size" ] && head -c "$cut" "$f" > "$dir/$b.cut$cut"
	done
done
touch "$dir/.stamp"
