#!/bin/sh
# usage: make-text-seeds.sh DIR perfmap|maps: a few small inputs for the text parsers' fuzzers.
set -eu
dir=$1
rm -rf "$dir"
mkdir -p "$dir"
case $2 in
perfmap)
	printf '7f0000001000 100 jitted_fn_a\n7f0000002000 80 LazyCompile:*foo bar.js:1\n' >"$dir/v8"
	printf '3000 10 c\n1000 10 a\n1000 10 a2\n2000 10 b\n9000 10 half' >"$dir/reuse"
	printf 'zzzz\n1000 0 zero\n2000 10\n\n4000 100 huge\n%05000d\n5000 10 after\n' 0 >"$dir/garbage"
	i=0
	while [ $i -lt 200 ]; do
		printf '%x %x Interpreted:fn%d /app/main.js:%d\n' $((0x40000 + i * 64)) 64 $i $i
		i=$((i + 1))
	done >"$dir/many"
	;;
maps)
	cat /proc/self/maps >"$dir/self"
	printf '%s\n' \
		'55d0c2a00000-55d0c2a21000 r-xp 00001000 fd:01 1312345     /usr/bin/my app' \
		'7ffd1a3f0000-7ffd1a3f2000 r-xp 00000000 00:00 0                  [vdso]' \
		'7f0000000000-7f0000001000 rwxp 00000000 00:00 0 ' \
		'7f0000000000-7f0000001000 r-xp 00000000 08:02 77 /tmp/gone (deleted)' \
		'7f12-7f10 r-xp 0 0:0 0 /x' >"$dir/lines"
	printf '7f0000000000-7f0000001000 r-xp 00000000 08:02 77 /%09000d\n1-2 r-xp 0 0:0 0 /y' 0 >"$dir/long"
	;;
esac
touch "$dir/.stamp"
