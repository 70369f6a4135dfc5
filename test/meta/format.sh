#!/bin/sh
# The C sources follow .clang-format (kernel style, 100 columns): checked, not hoped for.
. "$(dirname "$0")/lib.sh"

command -v clang-format >/dev/null || { bad "clang-format is not installed (scripts/deps --test)"; finish x; }
cd "$BT_SRC" || exit 1
files=$(git ls-files '*.c' '*.h' 2>/dev/null | grep -v '^probes/vmlinux/')
[ -n "$files" ] || files=$(find cmd lib symbolize probes test bench -name '*.[ch]' ! -path '*/vmlinux/*')
# one clang-format per file, as many at once as there are CPUs (400 files took 44 s in a row)
printf '%s\n' $files | xargs -P "$(nproc)" -n 1 sh -c \
	'clang-format "$1" | cmp -s - "$1" || echo "$1"' sh >"$T/unformatted"
while read -r f; do
	bad "$f is not formatted (clang-format -i $f)"
done <"$T/unformatted"
finish "sources formatted per .clang-format"
