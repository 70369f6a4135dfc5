#!/bin/sh
# The C sources follow .clang-format (kernel style, 100 columns): checked, not hoped for.
. "$(dirname "$0")/lib.sh"

command -v clang-format >/dev/null || { bad "clang-format is not installed (scripts/deps --test)"; finish x; }
cd "$BT_SRC" || exit 1
files=$(git ls-files '*.c' '*.h' 2>/dev/null | grep -v '^probes/vmlinux/')
[ -n "$files" ] || files=$(find cmd lib symbolize probes test bench -name '*.[ch]' ! -path '*/vmlinux/*')
# a few files to a clang-format, as many at once as there are CPUs: its start-up is most of
# its time (one a file took 35 s here for 320 files, fifty a process 1.3 s)
printf '%s\n' $files | xargs -P "$(nproc)" -n 50 clang-format --dry-run --Werror >"$T/log" 2>&1
sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: error: code should be clang-formatted.*/\1/p' "$T/log" |
	sort -u >"$T/unformatted"
# anything else it said is an error of its own (a file it could not read, a bad .clang-format)
if grep -i 'error' "$T/log" | grep -v 'error: code should be clang-formatted' | head -3 >"$T/other" &&
	[ -s "$T/other" ]; then
	bad "clang-format: $(head -1 "$T/other")"
fi
while read -r f; do
	bad "$f is not formatted (clang-format -i $f)"
done <"$T/unformatted"
finish "sources formatted per .clang-format"
