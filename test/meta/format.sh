#!/bin/sh
# The C sources follow .clang-format (kernel style, 100 columns): checked, not hoped for.
. "$(dirname "$0")/lib.sh"

command -v clang-format >/dev/null || { bad "clang-format is not installed (scripts/deps --test)"; finish x; }
cd "$BT_SRC" || exit 1
files=$(git ls-files '*.c' '*.h' 2>/dev/null | grep -v '^probes/vmlinux/')
[ -n "$files" ] || files=$(find cmd lib symbolize probes test bench -name '*.[ch]' ! -path '*/vmlinux/*')
for f in $files; do
	clang-format "$f" | cmp -s - "$f" || bad "$f is not formatted (clang-format -i $f)"
done
finish "sources formatted per .clang-format"
