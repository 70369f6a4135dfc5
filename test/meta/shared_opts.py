#!/usr/bin/env python3
"""Every option more than one command has is declared once (lib/cli/bt_args.h) and alike everywhere.

The shared options are the rows of the blocks: lib/cli/bt_args.c, lib/cli/bt_args.h's
BT_ARGP_STACK_STORAGE and lib/stacks/bt_stack_out.c (--flamegraph, --pprof). Two checks:

- source: no argp row of cmd/ or of another lib/ file names a shared long option; a command
  lists the option's block in its argp .children instead. A few rows share a name but are
  other options (another letter, argument or meaning, BCC's): they are listed in OWN, with the
  reason, and a listed row that went away is an error too (the list must not go stale).
- binary (with BPFTOOLS): in every command that has a shared option (its --help), the option
  has the same help text (--stack-storage-size: but for its default), a bad value is refused
  with the same message and exit 2, and a good one (or the flag) parses: "CMD OPT --help"
  exits 0 with nothing on stderr, which fails when a command lists a block without giving it
  a place (struct bt_opt_vals).

Usage: shared_opts.py SRC [BPFTOOLS]. Exits 1 when a rule is broken, a line per break on stderr.
"""
import os
import re
import subprocess
import sys

BLOCK_FILES = ('bt_args.c', 'bt_args.h', 'bt_stack_out.c')
ROW_RE = re.compile(r'\{\s*"([a-z][a-z0-9_-]*)"\s*,\s*([^,]+),\s*(NULL|"[^"]*")')
ARRAY_RE = re.compile(r'struct\s+argp_option\s+\w+\s*\[\s*\]\s*=\s*\{(.*?)\n\s*\}\s*;', re.S)
MACRO_ROW_RE = re.compile(r'\{\s*"([a-z][a-z0-9_-]*)"\s*,\s*BT_OPT_\w+')

# (file name, long option): a row of its own that shares a name with a shared option
OWN = {
    ('flamegraph.c', 'pprof'): 'a flag (write pprof, not SVG), not --pprof FILE',
    ('smpcalls.c', 'kernel-stack'): '-K keys the histograms by the stack, prints no stack',
    ('stackcount.c', 'interval'): '-i SECONDS, beside -D SECONDS (BCC: its -d is --delimited)',
    ('stackcount.c', 'duration'): '-D SECONDS (BCC\'s stackcount), not -d DURATION',
    ('biosnoop.c', 'timestamp'): '-t: wall-clock time (libbpf-tools\' biosnoop), not -T',
    ('funcslower.c', 'timestamp'): '-t: seconds (BCC\'s funcslower, whose -T is --time)',
    ('bt_offcpu_opts.c', 'pid'): '-p PIDS, a comma-separated list (BCC\'s offcputime)',
    ('profile.c', 'pid'): '-p PIDS, a comma-separated list (BCC\'s profile)',
    ('profile.c', 'cpu'): '-C CPU (BCC\'s profile: its -c is the sample period)',
}
# the commands whose options a lib/ file of OWN declares
OWN_USERS = {'bt_offcpu_opts.c': ('offcputime', 'offwaketime')}


def own(command, name):
    return any(n == name and command in OWN_USERS.get(f, (f[:-2],)) for f, n in OWN)

# option: (a good value, a bad one or None); FLAGS: no value
VALUES = {
    'pid': ('1', '0'),
    'interval': ('1', '0'),
    'duration': ('1', '0'),
    'cpu': ('0', '99999'),
    'attach': ('kprobe', 'nope'),
    'max-probes': ('5', '0'),
    'stack-storage-size': ('10', '0'),
    'unwind': ('fp', 'nope'),
    'flamegraph': ('x.svg', ''),
    'pprof': ('x.pb.gz', ''),
    'disk': ('sda', None),  # looked up when the tool starts, not while parsing
    'cgroup': ('/sys/fs/cgroup', None),
    'cgroupmap': ('/sys/fs/bpf/x', None),  # opened when the tool starts
    'mntnsmap': ('/sys/fs/bpf/x', None),
}


def rows(path):
    """[(line, long name)] of the argp option rows of a file."""
    text = open(path).read()
    found = []
    for m in ARRAY_RE.finditer(text):
        for r in ROW_RE.finditer(m.group(1)):
            line = text.count('\n', 0, m.start(1) + r.start()) + 1
            found.append((line, r.group(1)))
    return found


def lib_files(src):
    for root, _, files in os.walk(os.path.join(src, 'lib')):
        for f in sorted(files):
            if f.endswith(('.c', '.h')):
                yield os.path.join(root, f)


def shared_names(src):
    names = set()
    for path in lib_files(src):
        if os.path.basename(path) not in BLOCK_FILES:
            continue
        names.update(n for _, n in rows(path))
        names.update(MACRO_ROW_RE.findall(open(path).read()))
    return names


def check_source(src, names, errors):
    seen = set()
    cmd = os.path.join(src, 'cmd')
    files = [os.path.join(cmd, f) for f in sorted(os.listdir(cmd)) if f.endswith('.c')]
    files += [p for p in lib_files(src) if os.path.basename(p) not in BLOCK_FILES]
    for path in files:
        base = os.path.basename(path)
        for line, name in rows(path):
            if name not in names:
                continue
            if (base, name) in OWN:
                seen.add((base, name))
                continue
            errors.append(f'{os.path.relpath(path, src)}:{line}: declares --{name}, a shared '
                          f'option: list its block of lib/cli/bt_args.h in .children instead')
    for key in sorted(set(OWN) - seen):
        errors.append(f'{key[0]} no longer declares --{key[1]} of its own: drop it from '
                      f'OWN in test/meta/shared_opts.py')
    for name in sorted(names - set(VALUES) - FLAGS):
        errors.append(f'--{name} is shared but test/meta/shared_opts.py has no values for it')


# the shared options without an argument
FLAGS = {'json', 'debug', 'timestamp', 'regexp', 'milliseconds', 'user-stacks-only',
         'kernel-stacks-only', 'user-stack', 'kernel-stack', 'delimited', 'folded', 'offset',
         'annotations', 'no-python'}


def run(args):
    p = subprocess.run(args, capture_output=True, text=True, stdin=subprocess.DEVNULL,
                       timeout=30)
    return p.returncode, p.stdout, p.stderr


def help_entries(text):
    """{long name: (takes an argument, help text joined)} from argp's --help."""
    entries, last = {}, None
    for line in text.splitlines():
        m = re.match(r'^  (?:-\w, |    )--([a-z][a-z0-9_-]*)(=\S+)?\s*(.*)$', line)
        if m:
            last = m.group(1)
            entries[last] = (bool(m.group(2)), m.group(3).strip())
        elif last and re.match(r'^ {20,}\S', line):
            arg, doc = entries[last]
            entries[last] = (arg, (doc + ' ' + line.strip()).strip())
        else:
            last = None
    return entries


def check_binary(bpftools, names, errors):
    code, out, _ = run([bpftools, '--list'])
    cmds = [line.split()[0] for line in out.splitlines() if line.strip()]
    docs, refusals = {}, {}
    for c in cmds:
        code, out, err = run([bpftools, c, '--help'])
        entries = help_entries(out)
        for name in sorted(names & set(entries)):
            if own(c, name):
                continue
            arg, doc = entries[name]
            if name == 'stack-storage-size':
                doc = re.sub(r'default \d+', 'default N', doc)
            docs.setdefault(name, {}).setdefault(doc, []).append(c)
            values = VALUES.get(name)
            good = [f'--{name}={values[0]}'] if values else [f'--{name}']
            code, _, err = run([bpftools, c] + good + ['--help'])
            if code != 0 or err:
                errors.append(f'{c} {good[0]} --help: exit {code}, stderr '
                              f'{err.strip().splitlines()[:1]}')
            if not values or values[1] is None:
                continue
            code, _, err = run([bpftools, c, f'--{name}={values[1]}'])
            first = err.splitlines()[0] if err else ''
            msg = first[len(c) + 2:] if first.startswith(c + ': ') else None
            if code != 2 or not msg:
                errors.append(f'{c} --{name}={values[1]}: exit {code}, "{first}"; expected '
                              f'exit 2 and "{c}: ..."')
                continue
            refusals.setdefault(name, {}).setdefault(msg, []).append(c)
    for what, table in (('help texts', docs), ('refusals', refusals)):
        for name, variants in sorted(table.items()):
            if len(variants) > 1:
                errors.append(f'--{name} has {len(variants)} {what}: ' + '; '.join(
                    f'{" ".join(cs)}: "{v}"' for v, cs in variants.items()))
    return sum(len(cs) for v in docs.values() for cs in v.values())


def main():
    src = sys.argv[1]
    bpftools = sys.argv[2] if len(sys.argv) > 2 else None
    names = shared_names(src)
    errors = []
    if len(names) < 10:
        errors.append(f'found only {len(names)} shared options in lib/cli/bt_args.c: the reader '
                      'is broken')
    check_source(src, names, errors)
    checked = check_binary(bpftools, names, errors) if bpftools else 0
    for e in errors:
        print(e, file=sys.stderr)
    if not errors:
        print(f'{len(names)} shared options, each declared once; {checked} uses in commands '
              'parse and read alike')
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main())
