# Python, C, Python for test/live/python.sh: outer() sorts with a key function, which sleeps
# (sorted() is C: the key runs in an evaluator call of its own, under sorted's native frames).
import sys
import time


def key(x):
    time.sleep(0.005)
    return -x


def outer():
    return sorted(range(50), key=key)


if __name__ == "__main__":
    open(sys.argv[1], "w").write("ready\n")
    end = time.time() + float(sys.argv[2])
    while time.time() < end:
        outer()
