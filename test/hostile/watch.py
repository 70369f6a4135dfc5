#!/usr/bin/env python3
# watch.py PID BUDGET_KIB SECONDS STATE [REGEX FILE...]: watch a run of the hostile tier
# (lib.sh's watch_for) at 20 Hz, cheaply on a loaded machine: until PID ends (exit 1), SECONDS
# pass (2), or a line of some FILE matches REGEX (0). STATE, a file "PEAK_KIB PEAK_FDS", is
# kept up to date; past BUDGET_KIB the process is killed (exit 3), so that a run that would
# take GiBs fails early and leaves the machine alone.
import os
import re
import signal
import sys
import time

pid, budget, secs, state = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
rx = re.compile(sys.argv[5].encode()) if len(sys.argv) > 5 else None
files = sys.argv[6:]
try:
    peak, peakfd = (int(x) for x in open(state).read().split())
except (OSError, ValueError):
    peak = peakfd = 0
count_fds = os.environ.get("H_FDS")


def save():
    with open(state, "w") as f:
        f.write("%d %d\n" % (peak, peakfd))


end = time.monotonic() + secs
rc = 2
while time.monotonic() < end:
    try:
        with open("/proc/%d/status" % pid, "rb") as f:
            st = f.read()
        if b"\nState:\tZ" in st:
            rc = 1
            break
        m = re.search(rb"\nVmHWM:\s+(\d+)", st)
        if m:
            peak = max(peak, int(m.group(1)))
        if count_fds:
            peakfd = max(peakfd, len(os.listdir("/proc/%d/fd" % pid)))
    except (FileNotFoundError, ProcessLookupError):
        rc = 1
        break
    if peak > budget:
        os.kill(pid, signal.SIGKILL)
        rc = 3
        break
    if rx:
        hit = False
        for fn in files:
            try:
                with open(fn, "rb") as f:
                    if any(rx.search(line) for line in f):
                        hit = True
                        break
            except OSError:
                pass
        if hit:
            rc = 0
            break
    time.sleep(0.05)
save()
sys.exit(rc)
