#!/usr/bin/env python3
"""Worst combined BPF stack of every program in a BPF object, the way Linux 6.1 counts it.

The verifier refuses a program whose deepest chain of BPF-to-BPF calls needs more than 512
bytes of stack, each frame rounded up to 32 bytes ("combined stack size of N calls is M. Too
large"). Kernels from 6.13 give tracing programs a private stack and accept more, so a
regression passes on this machine's kernel and fails only in the VM tier's 6.1 guest, minutes
later. This reads the frames from the object instead: each function's depth is the deepest
r10-relative slot it touches (directly, or through a register copied from r10), and its
callees are its pseudo calls plus the functions it hands to helpers as callbacks (bpf_loop,
bpf_find_vma run them on top of the caller's frame).

Usage: bpf_stack.py [--limit BYTES] OBJ...   prints 'OBJ PROGRAM BYTES CHAIN' per program,
exits 1 when one is over the limit.
"""
import re
import subprocess
import sys

MAX_STACK = 512

FUNC_RE = re.compile(r'^([0-9a-f]+) <([A-Za-z_][\w.]*)>:$')
INSN_RE = re.compile(r'^\s*(\d+):\t((?:[0-9a-f]{2} ?)+)\t(.*)$')
RELO_RE = re.compile(r'^\s*[0-9a-f]+:\s+(R_BPF_\w+)\s+(\S+)')
SECTION_RE = re.compile(r'^Disassembly of section (\S+):')
STACK_SLOT_RE = re.compile(r'\(r10 - (\d+)\)')
COPY_R10_RE = re.compile(r'^r(\d) = r10$')
ADD_NEG_RE = re.compile(r'^r(\d) \+= -(\d+)$')


def symbols(obj):
    """(section, value) -> name of every function symbol, and name -> (section, value)."""
    out = subprocess.run(['llvm-objdump', '-t', obj], check=True, capture_output=True,
                         text=True).stdout
    by_name = {}
    for line in out.splitlines():
        f = line.split()
        # 0000000000001d18 l     F .text	00000000000000f0 bt_unwind_vma_cb
        if len(f) >= 6 and f[2] == 'F':
            by_name[f[-1]] = (f[3], int(f[0], 16) // 8)
    return by_name


def parse(obj):
    """Per function: its deepest stack slot, and the functions it calls or passes on."""
    by_name = symbols(obj)
    text = subprocess.run(['llvm-objdump', '-d', '-r', obj], check=True, capture_output=True,
                          text=True).stdout
    code = {sec for sec, _ in by_name.values()}
    funcs = {}  # name -> {'depth': int, 'calls': set(), 'section': str}
    at = {}  # (section, insn index) -> function name
    for name, (sec, idx) in by_name.items():
        at[(sec, idx)] = name
        funcs[name] = {'depth': 0, 'calls': set(), 'section': sec, 'pending': []}
    section = None
    cur = None
    r10_copies = set()
    last = None  # the previous instruction: (index, bytes, text) awaiting a relocation
    for line in text.splitlines():
        m = SECTION_RE.match(line)
        if m:
            section, cur, last = m.group(1), None, None
            continue
        m = FUNC_RE.match(line)
        if m:
            idx = int(m.group(1), 16) // 8
            if (section, idx) in at:
                cur = funcs[at[(section, idx)]]
                r10_copies = set()
            continue
        m = RELO_RE.match(line)
        if m and cur is not None and last is not None:
            kind, target = m.group(1), m.group(2)
            lidx, lbytes, ltext = last
            src = lbytes[1] >> 4
            is_call = lbytes[0] == 0x85 and src == 1
            # before libbpf marks it BPF_PSEUDO_FUNC, a callback is an ld_imm64 whose
            # relocation names code rather than a map
            is_func_ptr = lbytes[0] == 0x18 and (target in by_name or target in code)
            if (is_call or is_func_ptr) and target in by_name:
                cur['calls'].add(target)
            elif (is_call or is_func_ptr) and target.startswith('.'):
                # a section symbol: the target is an offset into that section
                imm = int.from_bytes(bytes(lbytes[4:8]), 'little', signed=True)
                tidx = imm + 1 if is_call else imm // 8
                if (target, tidx) in at:
                    cur['calls'].add(at[(target, tidx)])
            last = None
            continue
        m = INSN_RE.match(line)
        if not m or cur is None:
            continue
        idx, raw, asm = int(m.group(1)), [int(b, 16) for b in m.group(2).split()], m.group(3)
        asm = asm.strip()
        last = (idx, raw, asm)
        for slot in STACK_SLOT_RE.findall(asm):
            cur['depth'] = max(cur['depth'], int(slot))
        c = COPY_R10_RE.match(asm)
        if c:
            r10_copies.add(c.group(1))
            continue
        a = ADD_NEG_RE.match(asm)
        if a and a.group(1) in r10_copies:
            cur['depth'] = max(cur['depth'], int(a.group(2)))
            r10_copies.discard(a.group(1))
            continue
        # any other write to a copied register ends the copy
        w = re.match(r'^w?r?(\d) ', asm)
        if w and w.group(1) in r10_copies and not asm.startswith('*'):
            r10_copies.discard(w.group(1))
        # a pseudo call resolved inside its own section (no relocation)
        if raw[0] == 0x85 and (raw[1] >> 4) == 1:
            imm = int.from_bytes(bytes(raw[4:8]), 'little', signed=True)
            if imm != -1 and (section, idx + imm + 1) in at:
                cur['calls'].add(at[(section, idx + imm + 1)])
    return funcs


def frame(depth):
    return (max(depth, 1) + 31) // 32 * 32


def worst(funcs, name, seen=()):
    """(bytes, chain) of the deepest call chain from name."""
    if name in seen:  # recursion is refused by the verifier anyway
        return 0, [name + '(recursion)']
    best, chain = 0, []
    for callee in sorted(funcs[name]['calls']):
        b, c = worst(funcs, callee, seen + (name,))
        if b > best:
            best, chain = b, c
    return frame(funcs[name]['depth']) + best, [name] + chain


def main(argv):
    limit = MAX_STACK
    if len(argv) > 2 and argv[1] == '--limit':
        limit, argv = int(argv[2]), argv[2:]
    over = 0
    for obj in argv[1:]:
        funcs = parse(obj)
        for name, f in sorted(funcs.items()):
            if f['section'] == '.text':
                continue  # subprograms: counted in their callers' chains
            total, chain = worst(funcs, name)
            print(f'{obj} {name} {total} {"->".join(chain)}')
            if total > limit:
                print(f'{obj}: {name} needs {total} bytes of stack through '
                      f'{" -> ".join(chain)}: Linux 6.1 refuses more than {limit}',
                      file=sys.stderr)
                over = 1
    return over


if __name__ == '__main__':
    sys.exit(main(sys.argv))
