# Helpers for VM-tier guest tests (test/vm/tests/*.sh), sourced with `. "$BTVM_LIB"`.
# The guest has busybox only: POSIX sh, no bash-isms. See docs/testing-vm.md.
#
# Convention: a test exits 0 = pass, 1 = fail (`fail MSG`), 77 = skip (`skip REASON`); the
# first `fail`/`skip` reason (else the last `FAIL: ...`/`SKIP: ...` line) is shown on the host. Each test
# runs in its own empty directory under /tmp, in its own process group, with a time limit
# (120 s, or a `# vm-timeout: SECS` line in the test). After every test the runner itself
# fails it if a bpftools process, a kprobe/uprobe event, a /sys/fs/bpf pin or a kernel
# warning was left behind.
#
# Environment: BPFTOOLS (the binary), BT_WORKLOADS (test workload binaries), TRACEFS.

BPFTOOLS=${BPFTOOLS:-/usr/local/sbin/bpftools}
BT_WORKLOADS=${BT_WORKLOADS:-/opt/btvm/workloads}
TRACEFS=${TRACEFS:-/sys/kernel/tracing}
BT_RUN_N=0

log() { echo "# $*"; }
# fail MSG / skip REASON end the test. They also work inside $(...) and pipelines (e.g.
# `W=$(workload x)`, `for m in $(attach_modes)`): the first reason is recorded in
# $BTVM_FAILFILE / $BTVM_SKIPFILE, which the runner reads even if the test goes on and exits 0.
fail() {
  echo "FAIL: $*" >&2
  [ -z "${BTVM_FAILFILE:-}" ] || [ -s "$BTVM_FAILFILE" ] || echo "$*" >"$BTVM_FAILFILE"
  exit 1
}
skip() {
  echo "SKIP: $*" >&2
  [ -z "${BTVM_SKIPFILE:-}" ] || [ -s "$BTVM_SKIPFILE" ] || echo "$*" >"$BTVM_SKIPFILE"
  exit 77
}

# ---- the guest kernel --------------------------------------------------------------------

# The guest's architecture, and the kernel names that differ with it: the system call
# wrappers' prefix (__x64_sys_getppid, __arm64_sys_getppid) and the functions every system
# call's kernel stack passes through (do_syscall_64 / entry_SYSCALL_64 on x86-64; do_el0_svc /
# el0t_64_sync on arm64).
BT_ARCH=$(uname -m)
case $BT_ARCH in
  aarch64) SYS_PREFIX=__arm64_sys_ SYSCALL_DO=do_el0_svc SYSCALL_ENTRY=el0t_64_sync ;;
  *) SYS_PREFIX=__x64_sys_ SYSCALL_DO=do_syscall_64 SYSCALL_ENTRY=entry_SYSCALL_64 ;;
esac

# kconfig CONFIG_NAME: prints its value (y, m, a number, ...) from /boot/config-$(uname -r)
# (copied there from the kernel package); empty if unset.
kconfig() {
  sed -n "s/^$1=//p" "/boot/config-$(uname -r)" 2>/dev/null | head -n 1
}

# ksym_exists NAME: the kernel has symbol NAME (/proc/kallsyms).
ksym_exists() { grep -q " $1\$" /proc/kallsyms || grep -q " $1	" /proc/kallsyms; }

# kfunc_traceable NAME: NAME can be attached by fentry/kprobe through ftrace
# (listed in available_filter_functions).
kfunc_traceable() { grep -qE "^$1( |\$)" "$TRACEFS/available_filter_functions"; }

# kfuncs_matching GLOB: how many traceable kernel functions match GLOB (`*` wildcards only),
# i.e. how many links a wildcard attach of GLOB should make.
kfuncs_matching() {
  _re=$(echo "$1" | sed 's/[.[\^$+?(){}|]/\\&/g; s/\*/[^ ]*/g')
  awk '{ print $1 }' "$TRACEFS/available_filter_functions" | grep -E "^${_re}\$" | sort -u | wc -l
}

# has_facility NAME: 0 if the guest kernel has it. Names:
#   kprobes kretprobes uprobes kprobe_events uprobe_events tracefs btf fentry kprobe_multi
#   ftrace module:NAME (loads it) ksym:NAME kfunc:NAME
has_facility() {
  case $1 in
    kprobes|kretprobes) [ -r /sys/bus/event_source/devices/kprobe/type ] ;;
    uprobes) [ -r /sys/bus/event_source/devices/uprobe/type ] ;;
    kprobe_events|uprobe_events) [ -w "$TRACEFS/$1" ] ;;
    tracefs) [ -d "$TRACEFS/events" ] ;;
    btf) [ -r /sys/kernel/btf/vmlinux ] ;;
    ftrace) [ -r "$TRACEFS/available_filter_functions" ] ;;
    fentry) [ -r /sys/kernel/btf/vmlinux ] && [ "$(kconfig CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS)" = y ] &&
              [ "$(kconfig CONFIG_BPF_JIT)" = y ] ;;
    kprobe_multi) [ "$(kconfig CONFIG_FPROBE)" = y ] ;;
    module:*) modprobe "${1#module:}" 2>/dev/null || [ -d "/sys/module/${1#module:}" ] ;;
    ksym:*) ksym_exists "${1#ksym:}" ;;
    kfunc:*) kfunc_traceable "${1#kfunc:}" ;;
    *) echo "has_facility: unknown facility $1" >&2; return 2 ;;
  esac
}

# The first upstream kernel of each facility the tools choose between: what a guest of a given
# version must report and get, read from this table and not from the host (issue 21). Debian's
# stable kernels backport none of these. bpf_*: helpers the user-stack walker calls
# (docs/unwind.md). kretprobe_unwind: the kernel's unwinder steps through a pending
# kretprobe's trampoline (x86-64 ORC); before, a kernel stack taken inside a function with a
# kretprobe ends at the trampoline, which shows as kretprobe_trampoline.
KERNEL_SINCE='
fentry 5.5
arm64:fentry 6.4
fentry_cookies 5.19
kprobe_multi 5.18
bpf_loop 5.17
uprobe_multi 6.6
raw_tp_cookies 6.10
uprobe_session 6.13
bpf_find_vma 5.17
bpf_task_pt_regs 5.15
bpf_get_current_task_btf 5.11
kretprobe_unwind 5.14
csd_tracepoints 6.3
block_io_start 6.5
'

# since_version NAME: the first kernel of NAME in KERNEL_SINCE, or fail. A row `arm64:NAME`
# is arm64's where it came later there (fentry: arm64's ftrace direct calls, 6.4).
since_version() {
  _v=
  [ "$BT_ARCH" = aarch64 ] && _v=$(echo "$KERNEL_SINCE" | awk -v n="arm64:$1" '$1 == n { print $2 }')
  [ -n "$_v" ] || _v=$(echo "$KERNEL_SINCE" | awk -v n="$1" '$1 == n { print $2 }')
  [ -n "$_v" ] || fail "since_version: $1 is not in KERNEL_SINCE"
  echo "$_v"
}

# kernel_since NAME: 0 if the guest kernel is at least NAME's first version.
kernel_since() {
  _want=$(since_version "$1") || exit 1
  _have=$(uname -r | sed 's/^\([0-9]*\.[0-9]*\).*/\1/')
  [ "${_have%%.*}" -gt "${_want%%.*}" ] ||
    { [ "${_have%%.*}" -eq "${_want%%.*}" ] && [ "${_have#*.}" -ge "${_want#*.}" ]; }
}

# want_kprobe_multi: the guest should attach several kprobes through kprobe.multi: its version
# has it (KERNEL_SINCE) and its build has CONFIG_FPROBE (Debian 12's 6.1 has not).
want_kprobe_multi() { kernel_since kprobe_multi && has_facility kprobe_multi; }

# require_facility NAME...: skip the test (exit 77) unless the guest has all of them.
require_facility() {
  for _f in "$@"; do
    has_facility "$_f" || skip "the guest kernel $(uname -r) lacks $_f"
  done
}

# attach_modes: the --attach modes for kernel functions this guest supports, of
# "fentry kprobe". A tool test loops over them; skips if there is none.
attach_modes() {
  _m=
  has_facility fentry && _m="$_m fentry"
  has_facility kprobes && _m="$_m kprobe"
  [ -n "$_m" ] || skip "the guest kernel $(uname -r) has neither fentry nor kprobes"
  echo $_m
}

# workload NAME: path of a test workload binary (build/test/workloads), or fail.
workload() {
  [ -x "$BT_WORKLOADS/$1" ] || fail "workload $1 not in the guest (is it built in build/test/workloads?)"
  echo "$BT_WORKLOADS/$1"
}

# ---- running bpftools --------------------------------------------------------------------

# run_tool [-t SECS] [-s SIG] [-o FILE] ARGS...
#   Runs `bpftools ARGS` to completion (or until SECS, default 60, then sends SIG, default
#   TERM; SIGKILL 5 s later). stdout+stderr go to FILE (default ./runN.out); sets OUT (the
#   file) and RC (exit status; 128+N if killed by signal N). Echoes command and output.
#   Use -s INT to stop a tool that runs until Ctrl-C, as a user would.
run_tool() {
  _t=60 _s=TERM _o=
  while :; do
    case $1 in
      -t) _t=$2; shift 2 ;;
      -s) _s=$2; shift 2 ;;
      -o) _o=$2; shift 2 ;;
      --) shift; break ;;
      *) break ;;
    esac
  done
  BT_RUN_N=$((BT_RUN_N + 1))
  OUT=${_o:-$PWD/run$BT_RUN_N.out}
  echo "\$ bpftools $*"
  timeout -s "$_s" -k 5 "$_t" "$BPFTOOLS" "$@" >"$OUT" 2>&1
  RC=$?
  show "$OUT"
  echo "  (exit $RC)"
}

# start_tool [-o FILE] ARGS...: starts `bpftools ARGS` in the background (stdout+stderr to
#   FILE, default ./bgN.out); sets BG_PID and OUT. Stop it with stop_tool.
start_tool() {
  _o=
  [ "$1" = -o ] && { _o=$2; shift 2; }
  BT_RUN_N=$((BT_RUN_N + 1))
  OUT=${_o:-$PWD/bg$BT_RUN_N.out}
  echo "\$ bpftools $* &"
  # Emptied here, not only by the redirection below: that one runs in the forked child, maybe
  # after our caller's wait_for has found the last run's "Tracing" banner in a reused FILE
  # (vm/unwind signalled its workload at once and the tool found no process with its PID)
  : >"$OUT"
  "$BPFTOOLS" "$@" >"$OUT" 2>&1 &
  BG_PID=$!
}

# alive PID: the process exists and is not a zombie.
alive() {
  [ -r "/proc/$1/stat" ] || return 1
  _st=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  _st=${_st##*) }
  [ "${_st%% *}" != Z ]
}

# stop_tool [SIG [SECS]]: sends SIG (default INT, i.e. Ctrl-C) to the background tool, waits
#   up to SECS (default 20) for it to exit; sets RC. Fails the test if it does not exit.
stop_tool() {
  _sig=${1:-INT} _secs=${2:-20}
  kill "-$_sig" "$BG_PID" 2>/dev/null
  _i=0
  while alive "$BG_PID" && [ $_i -lt $((_secs * 10)) ]; do
    sleep 0.1
    _i=$((_i + 1))
  done
  if alive "$BG_PID"; then
    kill -KILL "$BG_PID" 2>/dev/null
    wait "$BG_PID" 2>/dev/null
    show "$OUT"
    fail "bpftools did not exit within ${_secs}s of SIG$_sig"
  fi
  wait "$BG_PID"
  RC=$?
  show "$OUT"
  echo "  (exit $RC after SIG$_sig)"
}

# wait_for FILE REGEX [SECS]: waits (default 30 s) until FILE has a line matching REGEX
#   (e.g. the tool's "Tracing ..." header, printed once it is attached). Fails on time-out,
#   or if the background tool (BG_PID) exits first.
wait_for() {
  _i=0 _n=$((${3:-30} * 10))
  while ! grep -qE "$2" "$1" 2>/dev/null; do
    if [ -n "${BG_PID:-}" ] && ! alive "$BG_PID"; then
      show "$1"
      fail "bpftools exited before printing /$2/"
    fi
    [ $_i -ge $_n ] && { show "$1"; fail "no /$2/ in $1 after ${3:-30}s"; }
    sleep 0.1
    _i=$((_i + 1))
  done
}

# wait_sigwait PID [SECS]: until the workload PID waits in sigwait() (rt_sigtimedwait in
# /proc/PID/syscall: 128 on x86-64, 137 on arm64): sent earlier, before its mask is set, the
# signal kills it (a loaded host's guest: exit 138). Not wchan (before 5.16 x86-64's ORC
# kernels print 0 there), nor SigBlk (the kernel unblocks the waited signals during the wait).
wait_sigwait() {
  _i=0 _n=$((${2:-30} * 10)) _nr=128
  [ "$(uname -m)" = aarch64 ] && _nr=137
  until read -r _s _rest <"/proc/$1/syscall" 2>/dev/null && [ "$_s" = $_nr ]; do
    alive "$1" || fail "workload $1 exited before waiting for its signal"
    [ $_i -ge $_n ] && fail "workload $1 not waiting for its signal after ${2:-30}s"
    sleep 0.1
    _i=$((_i + 1))
  done
}

# show FILE: the file's contents, indented (at most 200 lines).
show() {
  _l=$(wc -l <"$1")
  sed -n '1,200s/^/  | /p' "$1"
  [ "$_l" -le 200 ] || echo "  | ... ($_l lines)"
}

# ---- assertions (each fails the test with a message) ------------------------------------

# assert_rc [EXPECTED...]: RC is one of EXPECTED (default 0).
assert_rc() {
  [ $# -gt 0 ] || set -- 0
  for _e in "$@"; do [ "$RC" = "$_e" ] && return 0; done
  fail "exit status $RC, expected $*"
}

# assert_contains FILE REGEX [WHAT]: some line of FILE matches the extended REGEX.
assert_contains() {
  grep -qE -- "$2" "$1" || fail "${3:-output} has no line matching /$2/"
}

# assert_not_contains FILE REGEX [WHAT]
assert_not_contains() {
  ! grep -qE -- "$2" "$1" || fail "${3:-output} has a line matching /$2/: $(grep -E -- "$2" "$1" | head -n 1)"
}

# count_matching FILE REGEX: number of lines of FILE matching REGEX.
count_matching() { grep -cE -- "$2" "$1" || true; }

# assert_count_ge FILE REGEX N [WHAT]: at least N lines of FILE match REGEX.
assert_count_ge() {
  _c=$(count_matching "$1" "$2")
  [ "$_c" -ge "$3" ] || fail "${4:-output} has $_c lines matching /$2/, expected at least $3"
}

# field FILE REGEX COL: column COL (awk numbering) of the first line matching REGEX.
field() { awk -v re="$2" -v c="$3" '$0 ~ re { print $c; exit }' "$1"; }

# assert_ge VALUE MIN WHAT / assert_le VALUE MAX WHAT: integer comparisons.
assert_ge() {
  case $1 in ''|*[!0-9-]*) fail "${3:-value} is '$1', not a number" ;; esac
  [ "$1" -ge "$2" ] || fail "${3:-value} is $1, expected at least $2"
}
assert_le() {
  case $1 in ''|*[!0-9-]*) fail "${3:-value} is '$1', not a number" ;; esac
  [ "$1" -le "$2" ] || fail "${3:-value} is $1, expected at most $2"
}

# bpftools_pids: pids of processes running the bpftools binary, under any name.
bpftools_pids() {
  ls -l /proc/[0-9]*/exe 2>/dev/null |
    awk -v bt="$(readlink -f "$BPFTOOLS")" '$NF == bt { split($(NF - 2), a, "/"); print a[3] }'
}

# assert_no_probes [WHEN]: no bpftools process is running, kprobe_events and uprobe_events
# are empty, nothing is pinned in /sys/fs/bpf.
assert_no_probes() {
  _when=${1:-now}
  _p=$(bpftools_pids)
  [ -z "$_p" ] || fail "bpftools still running $_when: pid $_p"
  for _ev in kprobe_events uprobe_events; do
    [ -r "$TRACEFS/$_ev" ] || continue
    [ -z "$(cat "$TRACEFS/$_ev")" ] || fail "$_ev not empty $_when: $(head -n 1 "$TRACEFS/$_ev")"
  done
  [ -z "$(ls -A /sys/fs/bpf 2>/dev/null)" ] || fail "/sys/fs/bpf not empty $_when: $(ls -A /sys/fs/bpf)"
}
