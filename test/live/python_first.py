# A Python process's first calls (test/live/python.sh): a function that sleeps 10 ms once,
# then one that spins for 0.4 s, before anything else runs, in a process started after a
# system-wide tool. Named only where the process's Python frames are found before it is
# indexed (docs/python.md, "Started after the tool"), and the one sleep only where the
# interpreter's mapping was found at the exec, before the first walk (a walk in the scheduler
# finds one new mapping at most). The module sleeps at its end: its own code object is freed at
# once when it returns, before its last stack's names could be read (docs/python.md, "Not yet").
import time


def first_call():
    time.sleep(0.01)


def first_spin():
    end = time.monotonic() + 0.4
    n = 0
    while time.monotonic() < end:
        n += 1
    return n


first_call()
first_spin()
time.sleep(0.1)
