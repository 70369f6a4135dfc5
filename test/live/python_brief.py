# A short-lived Python process (test/live/python.sh): four functions that each sleep 20 ms,
# then one that spins for 0.3 s, then exit, long before the tool tracing it prints. Its code
# objects are gone with it: only names read while it ran can name its stacks. First half a
# second of sleeps: a process started after the tool may not be indexed yet in its first tens
# of milliseconds (docs/python.md, "Not yet"), which is not what this tests.
import time


def warm_up():
    for _ in range(10):
        time.sleep(0.05)


def step_a():
    time.sleep(0.02)


def step_b():
    time.sleep(0.02)


def step_c():
    time.sleep(0.02)


def step_d():
    time.sleep(0.02)


def spin():
    end = time.monotonic() + 0.3
    n = 0
    while time.monotonic() < end:
        n += 1
    return n


warm_up()
for step in (step_a, step_b, step_c, step_d):
    step()
spin()
