# A Python service of known structure for test/live/python.sh: serve -> handle_request ->
# parse_payload, which sleeps (time.sleep) and spins (a CPU loop) by turns. The first line
# written (to argv[1]) is its own view of the stack at the sleep: traceback.extract_stack().
import sys
import time
import traceback


def parse_payload(n, out):
    if out is not None:
        out.write(";".join("%s:%d" % (f.name, f.lineno) for f in traceback.extract_stack()) + "\n")
        out.close()
    time.sleep(0.02)
    t = 0
    for i in range(n):
        t += i * i
    return t


def handle_request(n, out):
    return parse_payload(n, out) + 1


def serve(seconds, out):
    end = time.time() + seconds
    while time.time() < end:
        handle_request(200000, out)
        out = None


if __name__ == "__main__":
    serve(float(sys.argv[2]) if len(sys.argv) > 2 else 5, open(sys.argv[1], "w") if len(sys.argv) > 1 else None)
