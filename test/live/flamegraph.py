"""Checks for bpftools flamegraph (test/live/flamegraph.sh): an SVG flame graph's frames, read
back by their geometry, and a pprof profile, decoded here by hand, both against the folded
input they were made from.

    python3 flamegraph.py svg FOLDED SVG [NAME=KIND...]   (NAME* matches names starting so)
    python3 flamegraph.py pprof FOLDED PROFILE.pb.gz TYPE UNIT [FUNCTION[@FILE]...]
    python3 flamegraph.py samples PROFILE.pb.gz TYPE/UNIT[,...] FUNCTION [KEY=VALUE...]
        (the samples through FUNCTION: some, each labelled so; VALUE * any, ! no such label;
        through=NAME: each goes through NAME too, none through [unknown])
    python3 flamegraph.py absent PROFILE.pb.gz KEY=VALUE  (no sample labelled so)

A tool's own --flamegraph/--pprof names each frame's module too: the SVG's tooltips say
"name [module] (...)", and one folded path may be several frames (the same name from two
files); their widths add up. TOLERANCE=N in the environment lets each stack's value differ
from the folded one by N (folded lines that print a rounded value). STATE_FRAMES=1: every
stack of the SVG and the profile has one "[off-cpu: X]" frame (offcputime's and offwaketime's
state) that the folded lines, BCC's, leave out: it is checked there and then left out too.
"""
import gzip
import os
import re
import sys
import xml.etree.ElementTree as ET

SVG = "{http://www.w3.org/2000/svg}"
TOL = int(os.environ.get("TOLERANCE", "0"))
STATE_FRAMES = os.environ.get("STATE_FRAMES") == "1"
STATE = re.compile(r"^\[off-cpu: [RSDITtP?]\]$")


def without_states(got):
    """STATE_FRAMES: the paths drawn with their state frame left out, merged. A path ending in
    one is its caller's again (drawn as the caller); what follows it joins its caller's."""
    if not STATE_FRAMES:
        return got
    if not any(STATE.match(p[-1]) for p in got):
        fail("STATE_FRAMES: no [off-cpu: X] frame drawn")
    merged = {}
    for path, fs in got.items():
        if STATE.match(path[-1]):
            continue
        states = [n for n in path if STATE.match(n)]
        if len(states) > 1:
            fail("a path with %d state frames: %r" % (len(states), path))
        merged.setdefault(tuple(n for n in path if not STATE.match(n)), []).extend(fs)
    return merged


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def folded(path):
    """Full stacks (root first, annotations removed) -> summed value."""
    stacks = {}
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line.strip():
                continue
            frames, _, value = line.rpartition(" ")
            names = []
            for n in frames.split(";"):
                if not n:
                    continue
                for mark in ("_[k]", "_[j]", "_[i]"):
                    if len(n) > 4 and n.endswith(mark):
                        n = n[:-4]
                names.append(n)
            if int(value):
                stacks[tuple(names)] = stacks.get(tuple(names), 0) + int(value)
    return stacks


def check_svg(folded_path, svg_path, kinds):
    stacks = folded(folded_path)
    total = sum(stacks.values())
    want = {}
    for path, v in stacks.items():
        for i in range(1, len(path) + 1):
            want[path[:i]] = want.get(path[:i], 0) + v
    tree = ET.parse(svg_path)  # well-formed XML, or this raises
    root_el = tree.getroot()
    if root_el.tag != SVG + "svg":
        fail("the root element is not <svg>")
    if root_el.find(SVG + "script") is None or root_el.find(SVG + "style") is None:
        fail("no embedded script or style")
    if "href" in open(svg_path, encoding="utf-8").read():
        fail("the SVG refers to something outside itself")
    frames = []
    for g in root_el.iter(SVG + "g"):
        cls = (g.get("class") or "").split()
        if not cls or cls[0] != "f":
            continue
        title = g.find(SVG + "title").text
        r = g.find(SVG + "rect")
        name = title[: title.rfind(" (")]
        if name.rfind(" [") > 0 and name.endswith("]"):
            name = name[: name.rfind(" [")]  # the module, as the SVG's script strips it
        frames.append({"name": name, "kind": cls[1], "title": title, "x": float(r.get("x")),
                       "w": float(r.get("width")), "y": int(r.get("y"))})
    if not frames:
        fail("no frames")
    rootf = max(frames, key=lambda f: f["y"])
    if rootf["name"] != "all":
        fail("the bottom frame is %r, not 'all'" % rootf["name"])
    width = float(root_el.get("width"))
    if abs(rootf["w"] - (width - 20)) > 0.01:
        fail("'all' is %.4f px wide, not the graph's %.4f" % (rootf["w"], width - 20))
    scale = rootf["w"] / total
    rootf["path"] = ()
    by_depth = {}
    for i, f in enumerate(frames):
        f["i"] = i  # document order: a frame's callees follow it
        by_depth.setdefault((rootf["y"] - f["y"]) // 16, []).append(f)
    got = {}
    for d in sorted(by_depth)[1:]:
        for f in by_depth[d]:
            parents = [p for p in by_depth.get(d - 1, [])
                       if p["x"] <= f["x"] + 1e-3 and p["x"] + p["w"] >= f["x"] + f["w"] - 1e-3]
            if len(parents) > 1:
                # a frame within the tolerance of two callers (where they meet): its caller is
                # the last one drawn before it
                parents = [max((p for p in parents if p["i"] < f["i"]), key=lambda p: p["i"])]
            if len(parents) != 1:
                fail("frame %r at depth %d lies on %d frames below it" % (f["name"], d, len(parents)))
            f["path"] = parents[0]["path"] + (f["name"],)
            if f["path"] in got and f["title"] == got[f["path"]][0]["title"]:
                fail("path drawn twice: %r" % (f["path"],))
            got.setdefault(f["path"], []).append(f)
    got = without_states(got)
    # --minwidth (0.1 px by default): a path narrower than that is left out, with its callees
    minw = float(os.environ.get("MINWIDTH", "0.1"))
    hidden = {p for p in want if want[p] * scale < minw}
    # The folded lines name a frame without its file, the SVG with it: one path of the lines
    # can be frames of two files (a process's _start in its executable and in ld.so), each
    # left out alone when narrower than minwidth: up to four files a path (what the SVG says
    # it left out bounds that too), each less than minwidth short.
    m = re.search(r"<!-- (\d+) frames narrower than", open(svg_path, encoding="utf-8").read())
    split_slack = minw * min(4, int(m.group(1)) if m else 0)
    hidden |= {p for p in want if p not in got and want[p] * scale < split_slack}
    want = {p: v for p, v in want.items()
            if not any(p[:i] in hidden for i in range(1, len(p) + 1))}
    if set(got) != set(want):
        fail("drawn paths differ from the folded input: missing %r, extra %r"
             % (sorted(set(want) - set(got))[:3], sorted(set(got) - set(want))[:3]))
    if TOL:
        # the graph's total is the true one: scale by it
        scale = rootf["w"] / int(rootf["title"].split(" (")[1].split()[0].replace(",", ""))
    for path, fs in got.items():
        value = sum(f["w"] for f in fs) / scale
        # widths are printed to 1e-4 px: with large totals that is more than one unit
        rounding = 0.5e-4 * len(fs) / scale
        slack = max(0.01, want[path] * 1e-6) + rounding + TOL * len(stacks)
        split = False
        # less by frames of other files on this path, each under minwidth
        if slack < want[path] - value < split_slack / scale:
            slack = want[path] - value
            split = True
        if abs(value - want[path]) > slack:
            fail("%r is %.4f px wide = %.3f, folded says %d"
                 % (path, sum(f["w"] for f in fs), value, want[path]))
        if len(fs) > 1 or TOL or split:
            continue  # each part's tooltip has its own share
        pct = "%.2f%%" % (100.0 * want[path] / total)
        if not fs[0]["title"].endswith(" %s)" % pct) or " (%s " % format(want[path], ",") not in fs[0]["title"]:
            fail("tooltip %r lacks %d and %s" % (fs[0]["title"], want[path], pct))
    for spec in kinds:
        name, kind = spec.rsplit("=", 1)
        # "name*": every frame whose name starts so (names with --debuginfo end in file:line)
        seen = {f["kind"] for fs in got.values() for f in fs
                if (f["name"].startswith(name[:-1]) if name.endswith("*") else f["name"] == name)}
        if seen != {kind}:
            fail("frames named %r are %r, not %s" % (name, sorted(seen), kind))
    print("svg: %d frames, widths match %d folded stacks (total %d)" % (len(got), len(stacks), total))


def varint(b, i):
    v = shift = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7F) << shift
        if not c & 0x80:
            return v, i
        shift += 7


def fields(b):
    """(field number, wire type, value or bytes) of one protobuf message."""
    i = 0
    while i < len(b):
        key, i = varint(b, i)
        num, wire = key >> 3, key & 7
        if wire == 0:
            v, i = varint(b, i)
        elif wire == 2:
            n, i = varint(b, i)
            v = b[i:i + n]
            i += n
        else:
            fail("unexpected wire type %d" % wire)
        yield num, wire, v


def ints(wire, v):
    if wire == 0:
        return [v]
    out, i = [], 0
    while i < len(v):
        x, i = varint(v, i)
        out.append(x)
    return out


def decode(pb_path):
    """A gzipped profile.proto: its string table, samples ({"loc": location ids leaf first,
    "val": values, "labels": {key: str or num}}), functions, files, mappings, locations."""
    data = open(pb_path, "rb").read()
    if data[:2] != b"\x1f\x8b":
        fail("not gzip")
    pb = gzip.decompress(data)
    strings, samples, functions, locations, sample_types, files = [], [], {}, {}, [], {}
    mappings, loc_maps = {}, {}
    for num, wire, v in fields(pb):
        if num == 6:
            strings.append(v.decode("utf-8", "surrogateescape"))
        elif num == 1:
            sample_types.append({n: x for n, _, x in fields(v)})
        elif num == 2:
            s = {"loc": [], "val": [], "labels": []}
            for n, w, x in fields(v):
                if n == 1:
                    s["loc"] += ints(w, x)
                elif n == 2:
                    s["val"] += ints(w, x)
                elif n == 3:
                    # Label: 1 key, 2 str (string table indexes), 3 num
                    s["labels"].append({m: y for m, _, y in fields(x)})
            samples.append(s)
        elif num == 5:
            f = {n: x for n, _, x in fields(v)}
            functions[f[1]] = f.get(2, 0)
            files[f[1]] = f.get(4, 0)
        elif num == 3:
            m = {n: x for n, _, x in fields(v)}
            mappings[m[1]] = m.get(5, 0)
        elif num == 4:
            loc = {"fn": [], "map": 0}
            for n, _, x in fields(v):
                if n == 1:
                    loc["id"] = x
                elif n == 2:
                    loc["map"] = x
                elif n == 4:
                    line = {m: y for m, _, y in fields(x)}
                    loc["fn"].append(line.get(1, 0))
                    loc["line"] = line.get(2, 0)
            locations[loc["id"]] = loc["fn"]
            loc_maps[loc["id"]] = loc["map"]
            LOC_LINES[loc["id"]] = loc.get("line", 0)
    for s in samples:
        labels = {}
        for l in s["labels"]:
            key = strings[l.get(1, 0)]
            if key in labels:
                fail("a sample with two labels %r" % key)
            labels[key] = strings[l[2]] if 2 in l else l.get(3, 0)
        s["labels"] = labels
        s["names"] = [strings[functions[fid]] for lid in s["loc"] for fid in locations[lid]]
    return strings, samples, functions, locations, sample_types, files, mappings, loc_maps


# location id -> the line its Line says (0: none), filled by decode()
LOC_LINES = {}


def folded_name(strings, functions, files, loc_maps, lid, fid):
    """A location's function as the folded output names it: a Python frame (a source file, no
    mapping: lib/output/bt_pprof.c) as 'qualname (file:line)', as symbolize/format.c does; a
    kernel function's file is '[kernel...]'."""
    name = strings[functions[fid]]
    src = strings[files[fid]] if files.get(fid) else ""
    if loc_maps.get(lid) or not src or src.startswith("["):
        return name
    line = LOC_LINES.get(lid, 0)
    return "%s (%s:%d)" % (name, src, line) if line else "%s (%s)" % (name, src)


def check_pprof(folded_path, pb_path, want_type, want_unit, want_funcs):
    stacks = folded(folded_path)
    strings, samples, functions, locations, sample_types, files, mappings, loc_maps = decode(pb_path)
    if not strings or strings[0] != "":
        fail("string_table[0] is not ''")
    if len(sample_types) != 1:
        fail("%d sample types" % len(sample_types))
    st = sample_types[0]
    if (strings[st.get(1, 0)], strings[st.get(2, 0)]) != (want_type, want_unit):
        fail("sample type %s/%s" % (strings[st.get(1, 0)], strings[st.get(2, 0)]))
    got = {}
    for s in samples:
        if len(s["val"]) != 1:
            fail("a sample with %d values" % len(s["val"]))
        names = []
        for lid in s["loc"]:
            for fid in locations[lid]:
                names.append(folded_name(strings, functions, files, loc_maps, lid, fid))
        path = tuple(reversed(names))  # location_id[0] is the leaf
        if STATE_FRAMES:
            if sum(1 for n in path if STATE.match(n)) != 1:
                fail("STATE_FRAMES: a sample without exactly one state frame: %r" % (path,))
            path = tuple(n for n in path if not STATE.match(n))
        got[path] = got.get(path, 0) + s["val"][0]
    if set(got) != set(stacks) or any(abs(got[p] - stacks[p]) > TOL for p in got):
        diff = [(p, got.get(p), stacks.get(p)) for p in set(got) | set(stacks) if got.get(p) != stacks.get(p)]
        fail("pprof stacks differ from the folded input: %r" % diff[:3])
    for spec in want_funcs:
        name, _, module = spec.partition("@")
        found = [strings[files[i]] for i, n in functions.items() if strings[n] == name]
        if not found:
            fail("no function %r in the profile" % name)
        if module and not any(module in f for f in found):
            fail("function %r is in %r, not in a file named like %r" % (name, found, module))
        if module and not module.startswith("[kernel"):
            # user code: its locations point at a Mapping of its file
            maps = {strings[mappings[loc_maps[lid]]] for lid, fns in locations.items()
                    if loc_maps[lid] in mappings
                    and any(strings[functions[f]] == name for f in fns)}
            if not any(module in m for m in maps):
                fail("the locations of %r have no mapping of a file like %r: %r" % (name, module, maps))
    print("pprof: %d samples, %d functions, %d locations match %d folded stacks"
          % (len(samples), len(functions), len(locations), len(stacks)))


def check_samples(pb_path, types, func, want_labels):
    """The sample types (TYPE/UNIT,...); the samples through func: some, each with every label
    KEY=VALUE (VALUE * for any value; KEY=! for none)."""
    strings, samples, _, _, sample_types, _, _, _ = decode(pb_path)
    got = ",".join("%s/%s" % (strings[t.get(1, 0)], strings[t.get(2, 0)]) for t in sample_types)
    if got != types:
        fail("sample types %s, not %s" % (got, types))
    mine = [s for s in samples if func in s["names"]]
    if not mine:
        fail("no sample through %r: functions %r" % (func, sorted({n for s in samples for n in s["names"]})[:40]))
    if any(len(s["val"]) != len(sample_types) or s["val"][0] <= 0 for s in mine):
        fail("a sample through %r with values %r" % (func, [s["val"] for s in mine][:3]))
    for spec in want_labels:
        key, _, value = spec.partition("=")
        for s in mine:
            if key == "through":
                if value not in s["names"] or "[unknown]" in s["names"]:
                    fail("a sample through %r not whole to %r: %r" % (func, value, s["names"]))
            elif value == "!":
                if key in s["labels"]:
                    fail("a sample through %r labelled %s=%r" % (func, key, s["labels"][key]))
            elif key not in s["labels"] or (value != "*" and str(s["labels"][key]) != value):
                fail("a sample through %r has labels %r, not %s" % (func, s["labels"], spec))
    print("pprof: %d of %d samples through %s (%s), labels %s" % (
        len(mine), len(samples), func, ", ".join(str(sum(s["val"][i] for s in mine)) for i in range(len(sample_types))),
        sorted({(k, v) for s in mine for k, v in s["labels"].items()})[:8]))


def check_absent(pb_path, spec):
    """No sample labelled KEY=VALUE."""
    key, _, value = spec.partition("=")
    _, samples, _, _, _, _, _, _ = decode(pb_path)
    there = [s for s in samples if str(s["labels"].get(key)) == value]
    if there:
        fail("%d samples labelled %s, through %r" % (len(there), spec, there[0]["names"]))
    print("pprof: none of %d samples labelled %s" % (len(samples), spec))


if __name__ == "__main__":
    if sys.argv[1] == "absent":
        check_absent(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "samples":
        check_samples(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:])
    elif sys.argv[1] == "svg":
        check_svg(sys.argv[2], sys.argv[3], sys.argv[4:])
    else:
        check_pprof(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6:])
