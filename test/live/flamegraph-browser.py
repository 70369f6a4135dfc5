"""The SVG flame graph in a real browser: Debian's chromium, headless, driven over the DevTools
protocol through --remote-debugging-pipe (NUL-separated JSON on fds 3 and 4: no WebSocket
library). The SVG is served over HTTP on 127.0.0.1 so that its links (?s=, ?x=&y=) are real.

    python3 flamegraph-browser.py CHROMIUM SVG TITLE SHOTDIR   a graph with frames
    python3 flamegraph-browser.py CHROMIUM SVG --empty SHOTDIR an empty one ("No samples")

What it checks, as a reader would see it: the page loads with no script error; the title is
the one given and is drawn (dark pixels in its box on the screenshot); each frame kind's widest
frame is drawn in its kind's colour family (read from the screenshot, not the SVG: user red,
kernel orange, JIT green; off-CPU ("cold") user blue, kernel violet); the mouse over a frame
fills the details line with its tooltip; a click zooms it to full width and puts ?x=&y= in the
address; Esc undoes it; Ctrl-F's prompt searches (the matches magenta, their share shown,
?s= in the address); "ic" makes the search ignore case; the address with ?s=&x=&y= opened
again zooms and searches. The empty graph says "No samples" and its search and Esc throw
nothing. Screenshots are left in SHOTDIR. Exit 0, or 1 with "FAIL: ..." on stderr.
"""
import base64
import functools
import http.server
import json
import os
import select
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import zlib

failed = False


def fail(msg):
    global failed
    print("FAIL: " + msg, file=sys.stderr)
    failed = True


class Browser:
    def __init__(self, chromium):
        to_b_r, self.to_b = os.pipe()
        self.from_b, from_b_w = os.pipe()
        self.profile = tempfile.mkdtemp(prefix="bt-chromium-")

        def fds():
            os.dup2(to_b_r, 3)
            os.dup2(from_b_w, 4)

        self.proc = subprocess.Popen(
            [chromium, "--headless=new", "--no-sandbox", "--disable-gpu",
             "--remote-debugging-pipe", "--no-first-run", "--hide-scrollbars",
             "--user-data-dir=" + self.profile, "about:blank"],
            preexec_fn=fds, close_fds=False, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL)
        os.close(to_b_r)
        os.close(from_b_w)
        self.buf = b""
        self.next_id = 0
        self.events = []
        self.session = None

    def close(self):
        try:
            self.send("Browser.close", session=False, wait=False)
        except OSError:
            pass
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        subprocess.run(["rm", "-rf", self.profile])

    def _read(self, deadline):
        while b"\0" not in self.buf:
            if time.time() > deadline:
                raise TimeoutError("chromium said nothing for 30 s")
            if not select.select([self.from_b], [], [], max(deadline - time.time(), 0))[0]:
                continue
            chunk = os.read(self.from_b, 1 << 16)
            if not chunk:
                raise EOFError("chromium closed its pipe")
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def send(self, method, params=None, session=True, wait=True):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            msg["sessionId"] = self.session
        os.write(self.to_b, json.dumps(msg).encode() + b"\0")
        if not wait:
            return None
        deadline = time.time() + 30
        while True:
            m = self._read(deadline)
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise RuntimeError(method + ": " + json.dumps(m["error"]))
                return m.get("result", {})
            self.events.append(m)

    def wait_event(self, method, timeout=15):
        deadline = time.time() + timeout
        while True:
            for i, e in enumerate(self.events):
                if e.get("method") == method:
                    return self.events.pop(i)
            self.events.append(self._read(deadline))

    def eval(self, expr):
        r = self.send("Runtime.evaluate", {"expression": expr, "returnByValue": True})
        if "exceptionDetails" in r:
            raise RuntimeError("evaluating " + expr + ": " + json.dumps(r["exceptionDetails"]))
        return r["result"].get("value")

    def exceptions(self):
        """Script errors thrown so far (Runtime.exceptionThrown), drained."""
        self.pump()
        out = [e for e in self.events if e.get("method") == "Runtime.exceptionThrown"]
        self.events = [e for e in self.events if e.get("method") != "Runtime.exceptionThrown"]
        return [e["params"]["exceptionDetails"].get("exception", {}).get("description", "?")
                for e in out]

    def pump(self):
        self.eval("1")  # a round trip: every event sent before it has arrived

    def mouse(self, kind, x, y):
        self.send("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y,
                                               "button": "left", "clickCount": 1})

    def click(self, x, y):
        self.mouse("mouseMoved", x, y)
        self.mouse("mousePressed", x, y)
        self.mouse("mouseReleased", x, y)

    def key(self, key, code, mods=0):
        for t in ("rawKeyDown", "keyUp"):
            self.send("Input.dispatchKeyEvent", {"type": t, "key": key,
                                                 "windowsVirtualKeyCode": code,
                                                 "modifiers": mods})

    def search_key(self, text):
        """Ctrl-F, and text typed into the prompt it opens (the key's answer waits for it)."""
        self.send("Input.dispatchKeyEvent", {"type": "rawKeyDown", "key": "f",
                                             "windowsVirtualKeyCode": 70, "modifiers": 2},
                  wait=False)
        self.wait_event("Page.javascriptDialogOpening")
        self.send("Page.handleJavaScriptDialog", {"accept": True, "promptText": text})
        self.send("Input.dispatchKeyEvent", {"type": "keyUp", "key": "f",
                                             "windowsVirtualKeyCode": 70, "modifiers": 2})

    def open(self, url):
        self.events = []
        self.send("Page.navigate", {"url": url})
        self.wait_event("Page.loadEventFired")

    def screenshot(self, path):
        png = base64.b64decode(self.send("Page.captureScreenshot", {"format": "png"})["data"])
        with open(path, "wb") as f:
            f.write(png)
        return decode_png(png)


def decode_png(data):
    """8-bit RGB or RGBA, not interlaced (what chromium writes) -> (width, rows of RGB)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat = 8, b""
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and ctype in (2, 6) and not interlace, "unexpected PNG layout"
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[x * bpp:x * bpp + 3]) for x in range(w)])
        prev = line
    return w, rows


# A kind's colour family as drawn (bt_flame.c's palettes), on the pixel at a frame's centre.
FAMILIES = {
    ("user", False): ("red", lambda r, g, b: r >= 190 and g <= 70 and b <= 70),
    ("kernel", False): ("orange", lambda r, g, b: r >= 215 and 115 <= g <= 190 and b <= 35),
    ("jit", False): ("green", lambda r, g, b: g >= 180 and r <= 120 and b <= 120),
    ("user", True): ("blue", lambda r, g, b: b >= 195 and r <= 100 and g <= 170),
    ("kernel", True): ("violet", lambda r, g, b: b >= 205 and 135 <= r <= 200 and g <= 155),
    ("offcpu", True): ("deep blue", lambda r, g, b: b >= 170 and r <= 70 and g <= 110),
}

FRAMES_JS = """(function(){var out=[];var gs=document.querySelectorAll('g.f');
for(var i=0;i<gs.length;i++){var g=gs[i],r=g.querySelector('rect'),b=r.getBoundingClientRect();
out.push({cls:g.getAttribute('class'),title:g.querySelector('title').textContent,
x:b.left,y:b.top,w:b.width,h:b.height,rw:+r.getAttribute('width'),fill:r.getAttribute('fill')});}
return out;})()"""


def serve(directory):
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    handler = functools.partial(Quiet, directory=directory)
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv


def main():
    chromium, svg, title, shots = sys.argv[1:5]
    empty = title == "--empty"
    srv = serve(os.path.dirname(os.path.abspath(svg)))
    url = "http://127.0.0.1:%d/%s" % (srv.server_address[1], os.path.basename(svg))
    b = Browser(chromium)
    try:
        target = b.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        b.session = b.send("Target.attachToTarget",
                           {"targetId": target, "flatten": True})["sessionId"]
        b.send("Page.enable")
        b.send("Runtime.enable")
        width = 1300
        b.send("Emulation.setDeviceMetricsOverride",
               {"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": False})
        b.open(url)
        errs = b.exceptions()
        if errs:
            fail("script errors on load: %s" % errs)
        if empty:
            check_empty(b, shots)
        else:
            check_graph(b, url, title, shots)
        errs = b.exceptions()
        if errs:
            fail("script errors: %s" % errs)
    finally:
        b.close()
        srv.shutdown()
    sys.exit(1 if failed else 0)


def check_empty(b, shots):
    if b.eval("document.querySelectorAll('g.f').length") != 0:
        fail("the empty graph has frames")
    if b.eval("(document.getElementById('empty')||{}).textContent") != "No samples":
        fail("the empty graph does not say 'No samples'")
    _, rows = b.screenshot(os.path.join(shots, "empty.png"))
    box = b.eval("(function(){var r=document.getElementById('empty').getBoundingClientRect();"
                 "return [r.left,r.top,r.width,r.height];})()")
    if not dark_in(rows, box):
        fail("'No samples' is not drawn on the screenshot")
    b.search_key("main")
    b.key("Escape", 27)
    b.click(600, 60)
    b.pump()
    print("ok: empty graph: 'No samples' shown; Ctrl-F, a search and Esc throw nothing")


def dark_in(rows, box):
    x0, y0, w, h = (int(v) for v in box)
    return any(sum(rows[y][x]) < 400 for y in range(max(y0, 0), min(y0 + h + 1, len(rows)))
               for x in range(max(x0, 0), min(x0 + w + 1, len(rows[0]))))


def center(f):
    return f["x"] + f["w"] / 2, f["y"] + f["h"] / 2


def check_graph(b, url, title, shots):
    frames = b.eval(FRAMES_JS)
    if not frames:
        fail("no frames drawn")
        return
    shown = b.eval("document.getElementById('title').textContent")
    if shown != title:
        fail("the title is %r, not %r" % (shown, title))
    _, rows = b.screenshot(os.path.join(shots, "graph.png"))
    box = b.eval("(function(){var r=document.getElementById('title').getBoundingClientRect();"
                 "return [r.left,r.top,r.width,r.height];})()")
    if not dark_in(rows, box):
        fail("the title is not drawn on the screenshot")
    seen = []
    for (kind, cold), (name, ok) in FAMILIES.items():
        of = [f for f in frames if f["cls"].split()[1] == kind and ("cold" in f["cls"]) == cold
              and f["w"] >= 4]
        if not of:
            continue
        f = max(of, key=lambda f: f["w"])
        x, y = center(f)
        px = rows[int(y)][int(x)]
        if not ok(*px):
            fail("%s%s frame %r is drawn rgb%s on the screenshot, not %s" %
                 ("cold " if cold else "", kind, f["title"], px, name))
        seen.append("%s%s %s" % ("cold " if cold else "", kind, name))
    if not seen:
        fail("no frame of a known kind wide enough to check its colour")
    print("ok: colours on the screenshot: " + ", ".join(seen))

    root = max(frames, key=lambda f: f["y"])
    full = root["rw"]
    pick = [f for f in frames if f["y"] < root["y"] and 20 <= f["w"] < full - 1]
    if not pick:
        fail("no frame to hover and click")
        return
    f = max(pick, key=lambda f: (f["y"], f["w"]))
    x, y = center(f)
    b.mouse("mouseMoved", x, y)
    details = b.eval("document.getElementById('details').textContent")
    if details != f["title"]:
        fail("hovering %r shows %r in the details line" % (f["title"], details))
    b.click(x, y)
    w = b.eval("(function(){var gs=document.querySelectorAll('g.f');for(var i=0;i<gs.length;"
               "i++)if(gs[i].querySelector('title').textContent==%s)return +gs[i]."
               "querySelector('rect').getAttribute('width');})()" % json.dumps(f["title"]))
    if w is None or abs(w - full) > 1e-3:
        fail("a click on %r makes it %s wide, not %s" % (f["title"], w, full))
    if b.eval("getComputedStyle(document.getElementById('reset')).opacity") != "1":
        fail("zoomed, but Reset Zoom is not shown")
    link = b.eval("location.search")
    if "x=" not in link or "y=" not in link:
        fail("zoomed, but the address says %r (no ?x=&y=)" % link)
    b.screenshot(os.path.join(shots, "zoomed.png"))
    b.key("Escape", 27)
    back = b.eval(FRAMES_JS)
    if any(abs(a["rw"] - c["rw"]) > 1e-3 for a, c in zip(frames, back)):
        fail("Esc does not restore the widths")
    print("ok: hover fills the details line, a click zooms (%s), Esc resets" % link)

    name = f["title"][:f["title"].rfind(" (")]
    if name.rfind(" [") > 0 and name.endswith("]"):
        name = name[:name.rfind(" [")]
    term = "^" + "".join("\\" + c if c in "\\^$.|?*+()[]{}" else c for c in name) + "$"
    b.search_key(term)  # Ctrl-F opens the prompt
    matched = b.eval("document.getElementById('matched').textContent")
    magenta = b.eval("document.querySelectorAll('rect[fill=\"rgb(230,0,230)\"]').length")
    if not matched.startswith("Matched: ") or not magenta:
        fail("searching %r: %r, %d frames coloured" % (term, matched, magenta))
    if "s=" not in b.eval("location.search"):
        fail("searched, but the address has no ?s=")
    b.screenshot(os.path.join(shots, "search.png"))
    b.key("Escape", 27)
    upper = term.upper() if term.upper() != term else term.lower()
    b.click(*center(b.eval("(function(){var r=document.getElementById('ic')."
                           "getBoundingClientRect();return {x:r.left,y:r.top,w:r.width,"
                           "h:r.height};})()")))
    b.search_key(upper)
    again = b.eval("document.getElementById('matched').textContent")
    if again != matched:
        fail("with ic, searching %r gives %r, not %r" % (upper, again, matched))
    b.key("Escape", 27)
    print("ok: Ctrl-F searches (%s), 'ic' ignores case" % matched)

    # the frame's own SVG coordinates, as the script writes them into the address
    xy = b.eval("(function(){var gs=document.querySelectorAll('g.f');for(var i=0;i<gs.length;"
                "i++)if(gs[i].querySelector('title').textContent==%s){var r=gs[i]."
                "querySelector('rect');return [r.getAttribute('x'),r.getAttribute('y')];}})()"
                % json.dumps(f["title"]))
    link = "%s?x=%s&y=%s&s=%s" % (url, xy[0], xy[1], urllib.parse.quote(term))
    b.open(link)
    w = b.eval("(function(){var gs=document.querySelectorAll('g.f');for(var i=0;i<gs.length;"
               "i++)if(gs[i].querySelector('title').textContent==%s)return +gs[i]."
               "querySelector('rect').getAttribute('width');})()" % json.dumps(f["title"]))
    m = b.eval("document.getElementById('matched').textContent")
    if w is None or abs(w - full) > 1e-3 or not m.startswith("Matched: "):
        fail("the link %s: the frame %s wide (want %s), %r" % (link, w, full, m))
    b.screenshot(os.path.join(shots, "link.png"))
    print("ok: the link ?x=&y=&s= zooms and searches on load")


if __name__ == "__main__":
    main()
