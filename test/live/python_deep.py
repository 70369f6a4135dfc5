# Recursion 300 deep for test/live/python.sh, past the walker's cap of 32 Python frames:
# down() calls itself 300 times, then sleeps by turns at the bottom (events for offcputime),
# having written "ready" to argv[1].
import sys
import time


def down(n, out):
    if n:
        return down(n - 1, out)
    with open(out, "w") as f:
        f.write("ready\n")
    end = time.time() + float(sys.argv[2])
    while time.time() < end:
        time.sleep(0.05)


down(300, sys.argv[1])
