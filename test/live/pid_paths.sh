#!/bin/sh
# -p PID and the files of that process: a process that sees our own file tree has its files
# named as the user knows them (/usr/lib/..., not /proc/PID/root/usr/lib/...), and a process
# that exits while the tool attaches is reported as exited, not as a probe or a file the
# kernel could not find.
. "$(dirname "$0")/lib.sh"
require root btf uprobes
need python3

LIB=$BT_WORKLOADS/libbtmany.so
[ -f "$LIB" ] || fail "workload $LIB not built"
P=
trap '[ -n "$P" ] && kill $P 2>/dev/null; rm -rf "$T"' EXIT

# 1. Messages name the library by its own path.
sleep 60 &
P=$!
for tool in funccount stackcount funclatency; do
	run "$tool" -p "$P" c:no_such_function_xyz
	expect_rc 1 "$tool -p $P c:no_such_function_xyz"
	first=$(head -n 1 "$ERR")
	case $first in
	"$tool: no function matches 'no_such_function_xyz' in '/proc/"*)
		fail "$tool -p: the path goes through /proc/PID/root: $first" ;;
	"$tool: no function matches 'no_such_function_xyz' in '/"*libc.so.6\') ;;
	*) fail "$tool -p: unexpected message: $first" ;;
	esac
done
kill $P
wait $P 2>/dev/null
P=
ok "-p messages name libc as the process maps it: $(head -n 1 "$ERR" | sed 's/.* in //')"

# 2. The process exits while the tool loads and attaches. Perf-event uprobes, one at a time
# (the kernel refuses them for a process that is gone; a uprobe.multi link is made in one
# step). The tool's stderr is a pipe of one page: once the debug output shows the programs
# loading, the driver fills the pipe so that the tool blocks at its next line, kills and reaps
# the target, then reads on; the tool's next attach finds the process gone.
n=0
while [ $n -lt 3 ]; do
	RC=0
	BPFTOOLS_NO_UPROBE_MULTI=1 BPFTOOLS_DEBUG=1 python3 - "$BPFTOOLS" "$LIB" >"$T/got" 2>&1 <<'PY' || RC=$?
import errno, fcntl, os, subprocess, sys
bpftools, lib = sys.argv[1:3]
target = subprocess.Popen(["sleep", "60"])
r, w = os.pipe()
fcntl.fcntl(w, 1031, 4096)  # F_SETPIPE_SZ: one page, so a few lines fill it
tool = subprocess.Popen([bpftools, "funccount", "-d", "1", "-p", str(target.pid),
                         lib + ":bt_many_1[0-3]?"], stdout=subprocess.DEVNULL, stderr=w)
# a write end of our own, non-blocking without making the tool's so
fill = os.open("/proc/self/fd/%d" % w, os.O_WRONLY | os.O_NONBLOCK)
os.close(w)
data = b""
# a line of libbpf's load, after the -p check and ~3 KB before the first attach; the tool is
# at most a pipe (4 KB) ahead, so it cannot have attached all 40 (~116 bytes of debug output
# each). The whole line: a message may reach the pipe in more than one write.
while b"\n" not in data.partition(b"created successfully")[2]:
    chunk = os.read(r, 65536)
    if not chunk:
        sys.exit("the tool ended before attaching: " + data.decode(errors="replace")[-300:])
    data += chunk
# to the last byte (a write of up to a page goes in whole or not at all); \x01 never comes
# from the tool, which escapes control characters
for size in (1024, 256, 64, 16, 4, 1):
    try:
        while True:
            os.write(fill, b"\x01" * size)
    except BlockingIOError:
        pass
target.kill()
target.wait()  # reaped: a zombie is still a task perf events attach to
os.close(fill)
while True:
    chunk = os.read(r, 65536)
    if not chunk:
        break
    data += chunk
rc = tool.wait(timeout=60)
# the first line that is not debug output, without the filler
first = next((l for l in data.replace(b"\x01", b"").decode(errors="replace").splitlines()
              if not l.startswith("libbpf") and ": debug: " not in l), "")
print("%d:%s" % (rc, first.replace(str(target.pid), "PID")))
PY
	got=$(cat "$T/got")
	[ "$RC" = 0 ] || fail "the race driver failed: $got"
	case $got in
	"1:funccount: process PID exited") ;;
	*) fail "funccount -p of a process that exited while attaching: '$got' (exit:first line)" ;;
	esac
	n=$((n + 1))
done
ok "a process that exits while funccount attaches: '$got', $n times of $n"
