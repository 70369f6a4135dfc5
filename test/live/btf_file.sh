#!/bin/sh
# Kernels built without BTF (issue 21): with /sys/kernel/btf hidden (a tmpfs over it in a mount
# namespace of its own, as on such a kernel), a tool says in one line how to give the kernel's
# types and exits 1; given them with --btf FILE or BPFTOOLS_BTF=FILE (a copy of this kernel's
# BTF, as BTFHub ships one per kernel), it runs and counts; a --btf that is missing is a usage
# error, one that is not BTF a runtime error, each one line. opensnoop, whose programs include a
# kfunc's call, runs there too.
. "$(dirname "$0")/lib.sh"
require root btf tracepoints
command -v unshare >/dev/null || skip "no unshare (util-linux)"
unshare -m true 2>/dev/null || skip "no mount namespaces here (unshare -m refused)"

cp /sys/kernel/btf/vmlinux "$T/vmlinux.btf" || fail "cannot copy /sys/kernel/btf/vmlinux"

# hidden ENV... -- ARGS...: bpftools ARGS with /sys/kernel/btf empty, ENV set; $OUT $ERR $RC.
hidden() {
	envs=""
	while [ "$1" != -- ]; do
		envs="$envs $1"
		shift
	done
	shift
	OUT=$T/out ERR=$T/err RC=0
	# shellcheck disable=SC2086
	env $envs unshare -m sh -c 'mount -t tmpfs none /sys/kernel/btf && exec "$@"' sh \
		timeout -s INT -k 5 30 "$BPFTOOLS" "$@" >"$OUT" 2>"$ERR" || RC=$?
}

one_line() { # one_line REGEX WHAT: stderr is one line, matching REGEX
	[ "$(wc -l <"$ERR")" = 1 ] || fail "$2: $(wc -l <"$ERR") lines on stderr: $(head -3 "$ERR")"
	grep -Eq -- "$1" "$ERR" || fail "$2: stderr is not /$1/: $(cat "$ERR")"
}

# counts: softirqs' table has a timer row with a positive count (timer softirqs run every tick)
counts() {
	n=$(awk '$1 == "timer" { print $2 }' "$OUT")
	[ "${n:-0}" -gt 0 ] || fail "$1: no timer softirqs counted: $(head -5 "$OUT") $(head -3 "$ERR")"
}

hidden -- softirqs 1 1
[ "$RC" = 1 ] || fail "no BTF, no --btf: exit $RC, expected 1: $(head -3 "$ERR")"
one_line '^softirqs: this kernel has no BTF .*--btf FILE or BPFTOOLS_BTF=FILE' "no BTF, no --btf"
ok "no BTF and no --btf: one line naming --btf, exit 1"

hidden -- softirqs --btf "$T/vmlinux.btf" 1 1
[ "$RC" = 0 ] || fail "--btf FILE: exit $RC: $(head -3 "$ERR")"
counts "--btf FILE"
ok "--btf FILE: softirqs runs on the types of the file ($n timer softirqs)"

hidden BPFTOOLS_BTF="$T/vmlinux.btf" -- stackcount -D 1 t:sched:sched_switch
[ "$RC" = 0 ] || fail "BPFTOOLS_BTF: stackcount exit $RC: $(grep -v warning "$ERR" | head -3)"
grep -q 'schedule' "$OUT" || fail "BPFTOOLS_BTF: stackcount printed no stack through schedule"
ok "BPFTOOLS_BTF=FILE: stackcount counts kernel stacks"

# opensnoop: its -F programs call a kfunc, whose extern alone had libbpf load the kernel's own
# BTF ("failed to find valid kernel BTF", --btf or not); without BTF it opens its build without
# kfuncs. --exec's child opens a file that exists and one that does not, 3 times each: 3 rows of
# each, FD and ERR right (open_work: test/workloads/open_work.c).
echo x >"$T/exists"
hidden -- opensnoop --btf "$T/vmlinux.btf" --exec "$BT_WORKLOADS/open_work" -c bt_btf_open 3 \
	"$T/exists" "$T/missing"
[ "$RC" = 0 ] || fail "--btf FILE: opensnoop exit $RC: $(head -3 "$ERR")"
n=$(grep -Ec -- "^[0-9]+ +bt_btf_open +[0-9]+   0 $T/exists\$" "$OUT")
[ "$n" = 3 ] || fail "--btf FILE: opensnoop: $n rows of $T/exists with an fd and ERR 0, expected 3"
n=$(grep -Ec -- "^[0-9]+ +bt_btf_open +-1   2 $T/missing\$" "$OUT")
[ "$n" = 3 ] || fail "--btf FILE: opensnoop: $n rows of $T/missing with FD -1 ERR 2, expected 3"
ok "--btf FILE: opensnoop (a kfunc among its programs) sees the child's 6 opens, FD and ERR right"

# -F there: no kfuncs, so its walk through kernel reads (the build without kfuncs keeps it), a
# relative path's directory resolved; or one line where lockdown refuses kernel reads.
mkdir "$T/sub"
lockdown=$(grep -o '\[[a-z]*\]' /sys/kernel/security/lockdown 2>/dev/null || echo unknown)
hidden -- opensnoop -F --btf "$T/vmlinux.btf" --exec "$BT_WORKLOADS/open_work" -c bt_btf_open \
	-C "$T/sub" 1 ../exists
if [ "$lockdown" = "[confidentiality]" ]; then
	[ "$RC" = 1 ] || fail "--btf FILE: opensnoop -F under lockdown: exit $RC, expected 1"
	one_line "^opensnoop: -F needs .*, or kernel reads, which lockdown=confidentiality refuses" \
		"--btf FILE: opensnoop -F under lockdown"
	ok "--btf FILE: opensnoop -F under lockdown=confidentiality: one line saying what it needs"
else
	[ "$RC" = 0 ] || fail "--btf FILE: opensnoop -F exit $RC (lockdown $lockdown): $(head -3 "$ERR")"
	grep -Eq -- "^[0-9]+ +bt_btf_open +[0-9]+   0 $T/sub/\.\./exists\$" "$OUT" ||
		fail "--btf FILE: opensnoop -F: no row of $T/sub/../exists"
	ok "--btf FILE: opensnoop -F through kernel reads (lockdown $lockdown): $T/sub/../exists"
fi

hidden -- softirqs --btf "$T/missing.btf" 1 1
[ "$RC" = 2 ] || fail "--btf of a missing file: exit $RC, expected 2"
grep -q "missing.btf" "$ERR" || fail "--btf of a missing file: the file is not named: $(cat "$ERR")"
ok "--btf of a missing file: a usage error naming it"

printf 'not BTF\n' >"$T/junk.btf"
hidden -- softirqs --btf "$T/junk.btf" 1 1
[ "$RC" = 1 ] || fail "--btf of a file that is not BTF: exit $RC, expected 1: $(cat "$ERR")"
one_line "cannot read the kernel's types from .*junk.btf" "--btf of a file that is not BTF"
ok "--btf of a file that is not BTF: one line, exit 1"
