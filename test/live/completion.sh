#!/bin/sh
# Completion of probe arguments, read from this kernel and this machine when TAB is pressed:
# the generated bash function (run non-interactively, as readline would call it) completes a
# tracepoint, a kernel function, a workload's own function and USDT probe, and the PID of a
# process started here; zsh and fish through the same binary; each answer within 200 ms.
. "$(dirname "$0")/lib.sh"
require root btf tracepoints syscalls

W=$BT_WORKLOADS/funclatency_work
[ -x "$W" ] || fail "no workload $W"
"$BPFTOOLS" completion bash >"$T/bash" || fail "completion bash"

# bcomp WORD...: COMPREPLY of the bash function for the command line WORD... (the last word is
# the one being completed), one a line. Without COMP_LINE, COMP_WORDS is taken as typed.
bcomp() {
	bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _bpftools
		printf "%s\n" "${COMPREPLY[@]}"' bcomp "$T/bash" "$@"
}
# bcomp_rl LINE: the same as readline calls it: COMP_LINE, and COMP_WORDS split at ':' and
# '=' too (COMP_WORDBREAKS), so the replies hold only what follows the last break.
bcomp_rl() {
	bash -c '. "$1"; COMP_LINE=$2; COMP_POINT=${#2}
		read -ra COMP_WORDS <<<"$(printf "%s" "$2" | sed "s/\([:=]\)/ \1 /g")"
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _bpftools; printf "%s\n" "${COMPREPLY[@]}"' \
		bcomp_rl "$T/bash" "$1"
}

# A tracepoint, under both spellings, through bpftools and through a link.
bcomp "$BPFTOOLS" funccount t:sched:sched_sw >"$T/r"
grep -qx 't:sched:sched_switch' "$T/r" || fail "t:sched:sched_sw does not complete to t:sched:sched_switch: $(cat "$T/r")"
grep -qv '^t:sched:sched_sw' "$T/r" && fail "t:sched:sched_sw offers a name not starting with it: $(cat "$T/r")"
bcomp "$BPFTOOLS" stackcount tracepoint:sched:sched_sw | grep -qx 'tracepoint:sched:sched_switch' ||
	fail "tracepoint:sched:sched_sw does not complete"
bcomp_rl "$BPFTOOLS funccount t:sched:sched_sw" | grep -qx 'sched_switch' ||
	fail "readline-split t:sched:sched_sw does not complete to sched_switch: $(bcomp_rl "$BPFTOOLS funccount t:sched:sched_sw")"
bcomp "$BPFTOOLS" funccount syscall:getpp | grep -qx 'syscall:getppid' || fail "syscall:getpp does not complete"
# funclatency takes no tracepoints: none offered; system calls, it does
[ -z "$(bcomp "$BPFTOOLS" funclatency t:sched:sched_sw)" ] || fail "funclatency offers tracepoints"
bcomp "$BPFTOOLS" funclatency syscall:getpp | grep -qx 'syscall:getppid' ||
	fail "funclatency: syscall:getpp does not complete"

# A tool's name on PATH may be another program's (libbpf-tools' /usr/sbin/biolatency): TAB
# must not run it (it would start tracing), nor offer bpftools' options and probes for it;
# a link of that name to bpftools first on PATH gets them, through bpftools.
mkdir "$T/other" "$T/self" "$T/link"
printf '#!/bin/sh\ntouch "%s/ran"\nsleep 5\n' "$T" >"$T/other/funccount"
chmod 755 "$T/other/funccount"
ln -s "$BPFTOOLS" "$T/self/bpftools"
ln -s "$BPFTOOLS" "$T/link/funccount"
PATH="$T/other:$T/self:$PATH" bcomp funccount t:sched:sched_sw >"$T/r"
[ -e "$T/ran" ] && fail "TAB after 'funccount' ran another program named funccount"
grep -q 't:sched:sched_switch' "$T/r" && fail "another program's funccount offered bpftools' probes"
PATH="$T/other:$T/self:$PATH" bcomp funccount --dur >"$T/r"
grep -q -- '--duration' "$T/r" && fail "another program's funccount offered bpftools' options"
PATH="$T/link:$T/other:$T/self:$PATH" bcomp funccount t:sched:sched_sw >"$T/r"
[ -e "$T/ran" ] && fail "TAB after 'funccount' ran another program named funccount"
grep -qx 't:sched:sched_switch' "$T/r" || fail "funccount (a link to bpftools) t:sched:sched_sw: $(cat "$T/r")"
if command -v fish >/dev/null; then
	"$BPFTOOLS" completion fish >"$T/fish"
	for d in other link; do
		PATH="$T/$d:$T/self:$PATH" HOME=$T fish -c "source $T/fish; complete -C 'funccount --dur'" \
			>"$T/f.$d" 2>&1
	done
	grep -q -- '--duration' "$T/f.other" && fail "fish: another program's funccount offered --duration"
	grep -q -- '--duration' "$T/f.link" || fail "fish: funccount (a link to bpftools) did not offer --duration"
fi
if command -v zsh >/dev/null; then
	"$BPFTOOLS" completion zsh >"$T/_bpftools"
	for d in other link; do
		PATH="$T/$d:$T/self:$PATH" HOME=$T zsh -fc "_files() { print FILES; }
			_describe() { print DESCRIBE; }; _bpftools_args() { print ARGS; }
			compadd() { print COMPADD \"\$@\"; }; source $T/_bpftools
			words=(funccount --dur); CURRENT=2; PREFIX=--dur; _bpftools" >"$T/z.$d" 2>&1
	done
	grep -qx FILES "$T/z.other" || fail "zsh: another program's funccount: not files: $(head -3 "$T/z.other")"
	grep -qx FILES "$T/z.link" && fail "zsh: funccount (a link to bpftools) completed as files"
fi
ok "a tool's name that is another program's: not run, not completed as bpftools'"

# A kernel function (from available_filter_functions, or kallsyms + BTF here).
bcomp "$BPFTOOLS" funccount vfs_rea >"$T/r"
grep -qx vfs_read "$T/r" || fail "vfs_rea does not complete to vfs_read: $(cat "$T/r")"
grep -qv '^vfs_rea' "$T/r" && fail "vfs_rea offers a name not starting with it"
bcomp "$BPFTOOLS" funcslower p::vfs_rea | grep -qx 'p::vfs_read' || fail "p::vfs_rea does not complete"
n=$(bcomp "$BPFTOOLS" funccount '' | wc -l)
[ "$n" -lt 20 ] || fail "an empty word lists $n words, not the spec types"

# A workload's own function, by path, and the PID of a process started here.
"$W" 0 0 0 0 &
wpid=$!
"$W" 0 0 0 0 &
other=$!
trap 'kill $wpid $other 2>/dev/null; rm -rf "$T"' EXIT
bcomp "$BPFTOOLS" funclatency "$W:fl_sleep_l" >"$T/r"
grep -qx "$W:fl_sleep_long" "$T/r" || fail "$W:fl_sleep_l does not complete: $(cat "$T/r")"
bcomp "$BPFTOOLS" stacksnoop "$W:" | grep -qx "$W:fl_nest" || fail "$W: does not list fl_nest"
bcomp "$BPFTOOLS" funccount c:mallo | grep -qx 'c:malloc' || fail "c:mallo does not complete to c:malloc"
bcomp "$BPFTOOLS" stackcount "u:$BT_WORKLOADS/fc_work:fc_work:ti" | grep -qx "u:$BT_WORKLOADS/fc_work:fc_work:tick" ||
	fail "u:fc_work:fc_work:ti does not complete to the USDT probe fc_work:tick"
bcomp "$BPFTOOLS" funccount -p "$wpid" >"$T/r"
grep -qx "$wpid" "$T/r" || fail "-p $wpid: not offered: $(cat "$T/r")"
grep -qv "^$wpid" "$T/r" && fail "-p $wpid offers a PID not starting with it (the other: $other)"
bcomp "$BPFTOOLS" funccount -p '' | grep -qx "$other" || fail "-p '': the second workload $other is not offered"
bcomp "$BPFTOOLS" offcputime "--pid=$wpid" | grep -qx -- "--pid=$wpid" || fail "--pid=$wpid not offered"
bcomp "$BPFTOOLS" offcputime -p "$other,$wpid" | grep -qx "$other,$wpid" || fail "-p A,B: B not offered"
# with -p, a library is the one that process maps
bcomp "$BPFTOOLS" funccount -p "$wpid" c:mallo | grep -qx 'c:malloc' || fail "-p PID c:mallo does not complete"

# Real readline: an interactive bash on a pty, TAB pressed after each line; what the terminal
# shows must be the completed word (readline splits at ':' itself here, not our emulation).
if command -v python3 >/dev/null; then
	python3 - "$T/bash" "$BPFTOOLS funccount t:sched:sched_swi" "$BPFTOOLS funclatency $W:fl_sleep_l" \
		>"$T/r" 2>&1 <<'PY' || fail "bash on a pty: $(cat "$T/r")"
import os, pty, select, sys, time

def read(fd, secs):
    out, end = b"", time.time() + secs
    while time.time() < end:
        if select.select([fd], [], [], 0.1)[0]:
            try:
                out += os.read(fd, 65536)
            except OSError:
                break
    return out

for line in sys.argv[2:]:
    pid, fd = pty.fork()
    if pid == 0:
        os.environ["PS1"] = "$ "
        os.execvp("bash", ["bash", "--norc", "--noprofile", "-i"])
    read(fd, 0.5)
    os.write(fd, b". " + sys.argv[1].encode() + b"\n")
    read(fd, 0.5)
    os.write(fd, line.encode() + b"\t")
    shown = read(fd, 3).decode(errors="replace").replace("\a", "").splitlines()
    os.write(fd, b"\x15exit\n")
    read(fd, 0.3)
    os.waitpid(pid, 0)
    print(shown[-1] if shown else "")
PY
	grep -qxF "$BPFTOOLS funccount t:sched:sched_switch " "$T/r" || fail "bash on a pty: t:sched:sched_swi<TAB>: $(cat "$T/r")"
	grep -qxF "$BPFTOOLS funclatency $W:fl_sleep_long " "$T/r" || fail "bash on a pty: $W:fl_sleep_l<TAB>: $(cat "$T/r")"
fi

# The same through zsh's function (its completion builtins stubbed to print what they get).
if command -v zsh >/dev/null; then
	"$BPFTOOLS" completion zsh >"$T/zsh"
	zsh -f -c '
		compdef() { :; }; _describe() { print -rl -- "${(@P)4}"; }; _files() { print FILES; }
		source "$1"
		words=("$2" funccount t:sched:sched_sw); CURRENT=3; PREFIX=t:sched:sched_sw; _bpftools
		words=("$2" funccount -p ""); CURRENT=4; PREFIX=$3; _bpftools' \
		zcomp "$T/zsh" "$BPFTOOLS" "$wpid" >"$T/r" 2>&1
	grep -qx 't\\:sched\\:sched_switch' "$T/r" || fail "zsh: no t:sched:sched_switch: $(cat "$T/r")"
	grep -qx "$wpid:funclatency_wor" "$T/r" || fail "zsh: -p $wpid not offered with its comm: $(cat "$T/r")"
	zsh_ok=", zsh"
else
	echo "note: zsh is not installed; its completion is not driven"
fi
# fish completes a command line by itself (complete -C), descriptions after a tab.
if command -v fish >/dev/null; then
	"$BPFTOOLS" completion fish >"$T/fish"
	fish -c 'source $argv[1]; complete -C"$argv[2] funccount t:sched:sched_sw"
		complete -C"$argv[2] funccount -p $argv[3]"' "$T/fish" "$BPFTOOLS" "$wpid" >"$T/r" 2>&1
	grep -q '^t:sched:sched_switch' "$T/r" || fail "fish: no t:sched:sched_switch: $(cat "$T/r")"
	printf '%s\tfunclatency_wor\n' "$wpid" >"$T/want"
	grep -qxF -f "$T/want" "$T/r" || fail "fish: -p $wpid not offered with its comm: $(cat "$T/r")"
	fish_ok=", fish"
else
	echo "note: fish is not installed; its completion is not driven"
fi

# Time per TAB: the binary reads the whole list each time (kernel functions: ~64k names from
# kallsyms, or available_filter_functions). The best of 5 runs, so that a busy machine's
# scheduling does not count; 200 ms is the budget.
best() {
	b=999999
	for i in 1 2 3 4 5; do
		s=$(date +%s%N)
		"$BPFTOOLS" __complete "$@" >/dev/null
		e=$(date +%s%N)
		d=$(((e - s) / 1000000))
		[ $d -lt $b ] && b=$d
	done
	echo $b
}
times=""
for w in vfs_rea s t:sched:sched_sw syscall: c:mallo "$W:fl_"; do
	ms=$(best funccount "$w")
	times="$times $w=${ms}ms"
	[ "$ms" -lt 200 ] || fail "completing '$w' takes $ms ms (budget 200 ms)"
done
ms=$(best funccount -p '')
[ "$ms" -lt 200 ] || fail "completing -p takes $ms ms"
kill $wpid $other 2>/dev/null
ok "bash$zsh_ok$fish_ok complete tracepoints, kernel and user functions, PIDs;$times -p=${ms}ms"
