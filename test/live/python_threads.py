# Two threads for test/live/python.sh: the main thread sleeps in main_sleep(), a second one
# waits in consumer_wait() on a queue.Queue (a lock's wait, the GIL released), each waking
# every few ms: each thread's stacks must name its own functions, never the other's (the
# thread state is the thread's own, not the GIL holder's: docs/python.md).
import queue
import sys
import threading
import time

q = queue.Queue()


def consumer_wait():
    try:
        return q.get(timeout=0.03)
    except queue.Empty:
        return None


def worker():
    while True:
        consumer_wait()


def main_sleep():
    time.sleep(0.05)


if __name__ == "__main__":
    threading.Thread(target=worker, daemon=True).start()
    open(sys.argv[1], "w").write("ready\n")
    end = time.time() + float(sys.argv[2])
    while time.time() < end:
        main_sleep()
