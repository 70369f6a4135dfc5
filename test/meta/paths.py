#!/usr/bin/env python3
"""Every repository path named in a comment or a doc exists, and docs/design.md names every
lib/ and symbolize/ source file.

Files renamed or split leave comments behind that point at what is gone (seven did, naming
lib/ files by names they had before they were committed: issue 20), and a reader who follows
them finds nothing. What is read:
  - the comments of every tracked file under cmd/ lib/ symbolize/ probes/ test/ scripts/
    bench/ cmake/ and of the top CMakeLists.txt: /* */ and // in C, C++, assembly and
    JavaScript (string and character literals skipped), # in shell, Python, CMake and the
    extension-less scripts (a # at the start of a word, outside quotes), and Python's
    triple-quoted docstrings;
  - the whole text of README.md, docs/*.md and test fixtures' READMEs.
What counts as a path there:
  1. a token that starts with one of our top-level folders (cmd/ lib/ symbolize/ probes/
     test/ scripts/ bench/ docs/ cmake/) not glued to a preceding word, '/', '.' or '$' (so
     /usr/lib/... and $T/test/... are not ours). Trailing punctuation is dropped, and so is a
     ':LINE' suffix. It exists when it is a tracked file or folder, when a shell glob in it
     (lib/stacks/bt_unwind*.c, probes/bt_{stack,unwind}.h) matches a tracked file, or, for a name
     without an extension (lib/base/bt_env), when NAME.something is tracked; with braces, each
     name they make must exist. NAME, ARCH, CMD and TOOL are the docs' placeholders
     (cmd/NAME.c, probes/vmlinux/ARCH/vmlinux.h): when the literal path does not exist they
     stand for any name, and one tracked file must fit.
  2. a bare file name that starts with bt_ and ends in .c, .h, .bpf.c, .bpf.h, .sh or .py
     (bt_ is this project's prefix: no other project's file is named so) outside a path: a
     tracked file anywhere must have that name.
  3. in the docs, the target of a relative Markdown link ([text](json.md)), from the doc's
     own folder.
Bare names without bt_ (stacks.c, kallsyms.c, vmlinux.h) are not checked: the kernel, libbpf
and BCC have files of those names, and comments name them as often as ours.

Paths that are real but in no tracked file (what the build generates, the install tree) are
in ALLOWED, each with its reason. Fails naming file:line and every path that does not exist.

Also: a row of docs/design.md's table names every lib/ and symbolize/ .c and .h file (by its
stem: bt_env for lib/base/bt_env.c and lib/base/bt_env.h), so the table of what each file is for stays
whole.

Usage: paths.py [SRCDIR]   (default: the repository holding this script)
"""
import fnmatch
import os
import re
import subprocess
import sys

TOP = ('cmd', 'lib', 'symbolize', 'probes', 'test', 'scripts', 'bench', 'docs', 'cmake')
SCANNED = ('cmd/', 'lib/', 'symbolize/', 'probes/', 'test/', 'scripts/', 'bench/', 'cmake/')

# Paths that no tracked file holds, and why they are real anyway (a path under one is too).
ALLOWED = {
    'lib/bpftools/bin': 'the install tree\'s folder of command links, relative to the prefix '
                        '(cmake/Install.cmake: BT_TOOL_DIR)',
    'bt_syscall_names.h': 'written into the build by scripts/gen-syscall-names '
                          '(lib/CMakeLists.txt)',
}

PATH_RE = re.compile(r'(?<![\w./$-])((?:%s)/(?:[\w.*/-]|\{[\w.,/-]*\}|\[\w+\])*)' %
                     '|'.join(TOP))
BARE_RE = re.compile(r'(?<![\w./$-])(bt_[\w*-]*\.(?:bpf\.[ch]|[ch]|sh|py))(?![\w/])')
LINK_RE = re.compile(r'\]\(([^)\s#]+)(?:#[^)]*)?\)')
# the docs' stand-ins for any name: cmd/NAME.c, probes/vmlinux/ARCH/vmlinux.h
PLACEHOLDER_RE = re.compile(r'\b(?:NAME|ARCH|CMD|TOOL)\b')

C_LIKE = ('.c', '.h', '.cc', '.S', '.js', '.def')
HASH_LIKE = ('.sh', '.py', '.cmake', '.inc', '.txt')


def tracked(src):
    """The tree's files: tracked, or new and not ignored (a file not yet added counts)."""
    try:
        out = subprocess.run(['git', '-C', src, 'ls-files', '--cached', '--others',
                              '--exclude-standard'], check=True, capture_output=True,
                             text=True).stdout.split('\n')
    except (OSError, subprocess.CalledProcessError):
        # a source tree without git (an unpacked release): what is on disk
        out = []
        for root, dirs, names in os.walk(src):
            dirs[:] = [d for d in dirs if not d.startswith(('.', 'build'))]
            out += [os.path.relpath(os.path.join(root, n), src) for n in names]
    return sorted(f for f in out if f and os.path.exists(os.path.join(src, f)))


def c_comments(text):
    """(line, text) of each /* */ and // comment, skipping string and char literals."""
    i, n, line = 0, len(text), 1
    out = []
    while i < n:
        c = text[i]
        if c == '\n':
            line += 1
        elif c in '"\'':
            j = i + 1
            while j < n and text[j] != c and text[j] != '\n':
                j += 2 if text[j] == '\\' else 1
            line += text.count('\n', i, j)
            i = j
        elif text.startswith('//', i):
            j = text.find('\n', i)
            j = n if j < 0 else j
            out.append((line, text[i:j]))
            i = j
            continue
        elif text.startswith('/*', i):
            j = text.find('*/', i + 2)
            j = n if j < 0 else j + 2
            for k, part in enumerate(text[i:j].split('\n')):
                out.append((line + k, part))
            line += text.count('\n', i, j)
            i = j
            continue
        i += 1
    return out


def hash_comments(text, python):
    out = []
    lines = text.split('\n')
    in_doc = None
    for no, s in enumerate(lines, 1):
        if python:
            if in_doc:
                out.append((no, s))
                if in_doc in s:
                    in_doc = None
                continue
            m = re.match(r'\s*[rRbBuU]?("""|\'\'\')', s)
            if m:
                out.append((no, s))
                if s.count(m.group(1)) == 1:
                    in_doc = m.group(1)
                continue
        if no == 1 and s.startswith('#!'):
            continue
        quote = None
        for k, c in enumerate(s):
            if quote:
                if c == quote:
                    quote = None
                elif c == '\\' and quote == '"':
                    pass
            elif c in '"\'':
                quote = c
            elif c == '#' and (k == 0 or s[k - 1] in ' \t'):
                out.append((no, s[k:]))
                break
    return out


def comments(path, text):
    base = os.path.basename(path)
    if base.endswith(C_LIKE):
        return c_comments(text)
    if base.endswith(HASH_LIKE) or base == 'CMakeLists.txt':
        return hash_comments(text, base.endswith('.py'))
    if '.' not in base:
        if text.startswith('#!'):
            return hash_comments(text, 'python' in text.split('\n', 1)[0])
        if base.startswith('README'):
            return list(enumerate(text.split('\n'), 1))
    return []


class Tree:
    def __init__(self, src):
        self.src = src
        self.files = tracked(src)
        self.fileset = set(self.files)
        self.dirs = set()
        for f in self.files:
            d = os.path.dirname(f)
            while d:
                self.dirs.add(d)
                d = os.path.dirname(d)
        self.basenames = {os.path.basename(f) for f in self.files}

    def exists(self, p):
        p = p.rstrip('/')
        if p in self.fileset or p in self.dirs or allowed(p):
            return True
        # probes/bt_{stack,unwind}.h: each of the names
        if all(self.match(q) for q in expand_braces(p)):
            return True
        wild = PLACEHOLDER_RE.sub('*', p)
        return wild != p and all(self.match(q) for q in expand_braces(wild))

    def match(self, pat):
        if pat in self.fileset or pat in self.dirs:
            return True
        if any(c in pat for c in '*?['):
            if fnmatch.filter(self.files, pat) or fnmatch.filter(self.dirs, pat):
                return True
            return False
        # a stem: lib/base/bt_env names lib/base/bt_env.c and lib/base/bt_env.h
        if '.' not in os.path.basename(pat):
            return bool(fnmatch.filter(self.files, pat + '.*'))
        return False

    def bare_exists(self, name):
        if any(c in name for c in '*?['):
            return bool(fnmatch.filter(self.basenames, name))
        return name in self.basenames or allowed(name)


def allowed(p):
    return any(p == a or p.startswith(a + '/') for a in ALLOWED)


def expand_braces(p):
    m = re.search(r'\{([^{}]*)\}', p)
    if not m:
        return [p]
    out = []
    for alt in m.group(1).split(','):
        out += expand_braces(p[:m.start()] + alt + p[m.end():])
    return out


def clean(tok):
    tok = tok.rstrip('.,;:-')
    # a trailing '.' glued to a sentence's end, or an unmatched bracket from prose
    while tok.endswith(('.', ')', ']')) and not tok.endswith('.*'):
        if tok.endswith(']') and '[' in tok:
            break
        tok = tok[:-1]
    return tok


def check_text(tree, path, lines, doc, bad):
    for no, s in lines:
        for m in PATH_RE.finditer(s):
            tok = clean(m.group(1))
            if '/' not in tok or tok.split('/', 1)[1] in ('', '*'):
                continue  # "lib/" alone is the folder, always there
            if not tree.exists(tok):
                bad.append('%s:%d: %s does not exist' % (path, no, tok))
        for m in BARE_RE.finditer(s):
            if not tree.bare_exists(m.group(1)):
                bad.append('%s:%d: %s: no file of that name' % (path, no, m.group(1)))
        if doc:
            for m in LINK_RE.finditer(s):
                t = m.group(1)
                if re.match(r'[a-z]+:', t) or t.startswith('/'):
                    continue
                rel = os.path.normpath(os.path.join(os.path.dirname(path), t))
                if not tree.exists(rel):
                    bad.append('%s:%d: link %s leads nowhere' % (path, no, t))


def check_design(tree, bad):
    """docs/design.md's table has a row naming every lib/ and symbolize/ file by its stem."""
    try:
        with open(os.path.join(tree.src, 'docs/design.md')) as f:
            rows = [s for s in f if s.startswith('|')]
    except OSError as e:
        bad.append('docs/design.md: %s' % e)
        return
    words = set(re.findall(r'\w+', ''.join(rows)))
    for f in tree.files:
        if f.startswith(('lib/', 'symbolize/')) and f.endswith(('.c', '.h')):
            stem = os.path.basename(f)[:-2]
            if stem not in words:
                bad.append('docs/design.md: no row of its lib/ table names %s' % f)


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else \
        os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    tree = Tree(src)
    bad = []
    nfiles = npaths = 0
    for f in tree.files:
        doc = f == 'README.md' or (f.startswith('docs/') and f.endswith('.md'))
        if not doc and not (f.startswith(SCANNED) or f == 'CMakeLists.txt'):
            continue
        try:
            with open(os.path.join(src, f), encoding='utf-8', errors='replace') as fh:
                text = fh.read()
        except OSError:
            continue
        lines = list(enumerate(text.split('\n'), 1)) if doc else comments(f, text)
        if not lines:
            continue
        nfiles += 1
        npaths += sum(len(PATH_RE.findall(s)) + len(BARE_RE.findall(s)) for _, s in lines)
        check_text(tree, f, lines, doc, bad)
    check_design(tree, bad)
    for b in bad:
        print(b, file=sys.stderr)
    print('%d files, %d paths named, %d missing' % (nfiles, npaths, len(bad)))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
