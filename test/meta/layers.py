#!/usr/bin/env python3
"""The layers of lib/ (its folders, ordered by lib/layers.txt) hold in the code: every dependency points down.

A unit is a file's name without .c or .h: bt_trace.c and bt_trace.h are the unit bt_trace. A
header with no .c of its name (bt_cmd.h, sym_internal.h) is a unit of its own. X_internal.h is
the private half of X.h, declarations shared by the files that implement X (bt_attach.c,
bt_attach_kernel.c, ...): it includes X.h for its types, and that include is no dependency of
X_internal on X's code (X.c includes X_internal.h, which would make every such pair a circle). Unit A depends on
unit B when a file of A includes a header of B, or when A's .c names a function or variable that
B's .c defines: headers shared by several .c files (bt_attach_internal.h, sym_internal.h) hide
who calls whom, so the calls are read too.

Rules (each broken one is a line naming the files):
- every file of lib/ is in the folder of its layer, and every folder is listed once in
  lib/layers.txt, which lists nothing else (symbolize/ is a layer of its own);
- no unit depends on a unit of a higher layer;
- no circle between units, even inside one layer (the order within a layer is free, but it
  must exist);
- symbolize/ includes nothing from lib/ (it is a library of its own, below the stacks);
- cmd/ includes lib/, symbolize/, probes/ headers shared with user space, the skeletons and
  its own headers (commands.def, flamegraph.h), but no private header of lib/ or symbolize/
  (*_internal.h), and nothing of lib/ or symbolize/ includes a header of cmd/;
- probes/: a BPF-side header (*.bpf.h) or program (*.bpf.c) is included only by probes/
  itself; the headers probes/ shares with user space (NAME.h: the layouts of events, maps and
  read-only data) are included by lib/, symbolize/ (bt_unwind_table.h: the table rows the BPF
  walker reads) and cmd/ (its own probes/NAME.h); and probes/ includes nothing outside probes/.

Usage: layers.py SRC [--graph]   --graph prints every unit's dependencies and the circles.
Exits 1 when a rule is broken.
"""
import os
import re
import sys

LIB_DIRS = ('lib', 'symbolize')
INCLUDE_RE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
COMMENT_RE = re.compile(r'/\*.*?\*/|//[^\n]*', re.S)
STRING_RE = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'')
IDENT_RE = re.compile(r'\b[A-Za-z_]\w*\b')
# a definition starts in column 0 and is not static: "int bt_foo(...)\n{", "const struct argp
# bt_argp_pid = {", "struct bt_x bt_table[] = {"
FUNC_DEF_RE = re.compile(r'^(?!static\b|extern\b|typedef\b)[A-Za-z_][^;{}=()\n]*?'
                         r'\b([A-Za-z_]\w*)\s*\([^;{}]*\)\s*\{', re.M)
VAR_DEF_RE = re.compile(r'^(?!static\b|extern\b|typedef\b)[A-Za-z_][^;{}=()\n]*?'
                        r'\b([A-Za-z_]\w*)\s*(?:\[[^\]\n]*\])?\s*=', re.M)


def strip(text):
    return STRING_RE.sub('""', COMMENT_RE.sub(' ', text))


def unit_of(name):
    return re.sub(r'\.(c|h)$', '', name)


def read_layers(path):
    """[layer] bottom first, from 'layer: what it holds' lines ('#' comments)."""
    layers = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.split('#', 1)[0].strip()
            if not line:
                continue
            if ':' not in line:
                sys.exit(f'{path}:{n}: expected "layer: what it holds"')
            layers.append(line.split(':', 1)[0].strip())
    return layers


def sources(src):
    """{unit: [relative paths]} of lib/*/ and symbolize/, {header name: unit}, {unit: folder}
    (the layer a unit is in is the folder it is in: lib/NAME/ is the layer NAME), and the
    files of lib/ that are in no folder."""
    units, headers, folder, loose = {}, {}, {}, []
    dirs = [('symbolize', 'symbolize')]
    for name in sorted(os.listdir(os.path.join(src, 'lib'))):
        if os.path.isdir(os.path.join(src, 'lib', name)):
            dirs.append((f'lib/{name}', name))
        elif name.endswith(('.c', '.h')):
            loose.append(f'lib/{name}')
    for d, layer in dirs:
        for name in sorted(os.listdir(os.path.join(src, d))):
            if not name.endswith(('.c', '.h')):
                continue
            u = unit_of(name)
            units.setdefault(u, []).append(f'{d}/{name}')
            folder[u] = layer
            if name.endswith('.h'):
                headers[name] = u
    return units, headers, folder, loose


def scc(nodes, edges):
    """Tarjan's strongly connected components of more than one node."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


def shortest_cycle(comp, edges):
    """The shortest path a -> ... -> a inside one strongly connected component."""
    members, best = set(comp), None
    for start in comp:
        prev, queue = {start: None}, [start]
        for v in queue:
            nxt = sorted(w for w in edges.get(v, ()) if w in members)
            if start in nxt:
                path = [start] + path_to(prev, v)[::-1] + [start]
                if best is None or len(path) < len(best):
                    best = path
                break
            for w in nxt:
                if w not in prev:
                    prev[w] = v
                    queue.append(w)
    return best


def path_to(prev, v):
    """v, prev[v], ... up to (not including) the start of the search."""
    out = []
    while prev[v] is not None:
        out.append(v)
        v = prev[v]
    return out


def main():
    args = [a for a in sys.argv[1:] if not a.startswith('--')]
    graph = '--graph' in sys.argv
    if len(args) != 1:
        sys.exit(__doc__.strip().splitlines()[-2])
    src = args[0]
    errors = []
    units, headers, folder, loose = sources(src)
    errors += [f'{p}: every file of lib/ is in the folder of its layer (lib/layers.txt)'
               for p in loose]
    text = {}
    for paths in units.values():
        for p in paths:
            with open(os.path.join(src, p), errors='replace') as f:
                text[p] = f.read()

    # who defines what: the non-static functions and variables of each .c
    defined = {}
    for p, t in text.items():
        if p.endswith('.c'):
            body = strip(t)
            for m in list(FUNC_DEF_RE.finditer(body)) + list(VAR_DEF_RE.finditer(body)):
                defined.setdefault(m.group(1), unit_of(os.path.basename(p)))

    # why A depends on B: {A: {B: [reasons]}}
    deps = {}

    def dep(a, b, why):
        if a != b:
            deps.setdefault(a, {}).setdefault(b, []).append(why)

    for p, t in sorted(text.items()):
        u = unit_of(os.path.basename(p))
        for inc in INCLUDE_RE.findall(t):
            if u.endswith('_internal') and inc in (u[:-9] + '.h', 'bt_' + u[:-9] + '.h'):
                continue  # the private half of a unit's header, on top of the public half
            if inc in headers:
                dep(u, headers[inc], f'{p} includes {inc}')
                if p.startswith('symbolize/') and not os.path.exists(
                        os.path.join(src, 'symbolize', inc)):
                    errors.append(f'{p} includes {inc}: symbolize/ uses nothing of lib/')
            elif inc.endswith('.bpf.h') or inc.endswith('.bpf.c'):
                errors.append(f'{p} includes {inc}: BPF-side code is for probes/ only')
            elif os.path.exists(os.path.join(src, 'cmd', inc)):
                errors.append(f'{p} includes cmd/{inc}: nothing below the commands uses them')
            elif os.path.exists(os.path.join(src, 'probes', inc)) and p.startswith('symbolize/') \
                    and inc != 'bt_unwind.h':
                errors.append(f'{p} includes probes/{inc}: symbolize/ reads only the '
                              'unwinder\'s table layout (bt_unwind.h)')
        if p.endswith('.c'):
            used = set(IDENT_RE.findall(strip(t)))
            for name in sorted(used):
                if name in defined and defined[name] != u:
                    dep(u, defined[name], f'{p} calls {name}')

    # the list
    layers = read_layers(os.path.join(src, 'lib', 'layers.txt'))
    rank = {name: i for i, name in enumerate(layers)}
    for name in sorted(set(layers)):
        if layers.count(name) > 1:
            errors.append(f'lib/layers.txt: {name} is listed twice')
    for name in sorted(set(folder.values())):
        if name not in rank:
            errors.append(f'lib/layers.txt: the folder {name} is no layer')
    for name in layers:
        if name not in folder.values():
            errors.append(f'lib/layers.txt: the layer {name} is no folder of lib/ with files')
    level = {u: rank[f] for u, f in folder.items() if f in rank}
    layer_of = dict(folder)

    # upward dependencies
    for a in sorted(deps):
        for b in sorted(deps[a]):
            if a in level and b in level and level[b] > level[a]:
                errors.append(f'{deps[a][b][0]}: {a} ({layer_of[a]}) depends on {b} of the '
                              f'higher layer {layer_of[b]}')

    # circles
    edges = {a: set(bs) for a, bs in deps.items()}
    for comp in scc(units, edges):
        cycle = shortest_cycle(comp, edges)
        why = [deps[a][b][0] for a, b in zip(cycle, cycle[1:])]
        more = f' ({len(comp)} units in all: {", ".join(comp)})' if len(comp) > len(cycle) - 1 \
            else ''
        errors.append(f'circle {" -> ".join(cycle)}: {"; ".join(why)}{more}')

    # cmd/ and probes/
    for d in ('cmd', 'probes'):
        for name in sorted(os.listdir(os.path.join(src, d))):
            p = f'{d}/{name}'
            if not name.endswith(('.c', '.h')):
                continue
            with open(os.path.join(src, p), errors='replace') as f:
                incs = INCLUDE_RE.findall(f.read())
            for inc in incs:
                in_probes = os.path.exists(os.path.join(src, 'probes', inc))
                if d == 'cmd' and inc.endswith('_internal.h'):
                    errors.append(f'{p} includes {inc}, a private header of lib/ or symbolize/')
                elif d == 'cmd' and (inc.endswith('.bpf.h') or inc.endswith('.bpf.c')):
                    errors.append(f'{p} includes {inc}: BPF-side code is for probes/ only')
                elif d == 'cmd' and not (inc in headers or in_probes or inc.endswith('.skel.h')
                                         or os.path.exists(os.path.join(src, 'cmd', inc))):
                    errors.append(f'{p} includes {inc}, which is none of lib/, symbolize/, '
                                  'probes/, cmd/ or a skeleton')
                elif d == 'probes' and not in_probes and inc != 'vmlinux.h':
                    errors.append(f'{p} includes {inc}, which is not in probes/')

    if graph:
        for a in sorted(units):
            print(f'{a} ({layer_of.get(a, "?")}): {" ".join(sorted(deps.get(a, {})))}')
        for comp in scc(units, edges):
            print(f'circle: {" ".join(comp)}')
    for e in errors:
        print(e, file=sys.stderr)
    if not errors:
        print(f'{len(units)} units in {len(layers)} layers, '
              f'{sum(len(b) for b in deps.values())} dependencies, all pointing down')
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main())
