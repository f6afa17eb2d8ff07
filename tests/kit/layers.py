#!/usr/bin/env python3
"""The house's measures (tests/cli/layers.sh), one check a call:

  layers.py circles BUILD      no folder's objects call each other round: object
                               A uses a symbol B of the same folder defines and B,
                               through any chain inside the folder, uses one of A's
                               (strongly connected objects, by nm; Tarjan)
  layers.py includes SOURCE    no header includes itself through other headers
  layers.py lengths SOURCE     no function outside tests/ has more than 60 lines
                               between its braces (kernel style: a definition's
                               braces stand alone in column 0)

Each prints what it found, one line an offence, and exits 1 on any."""
import os
import re
import subprocess
import sys

MAX_FUNCTION_LINES = 60


def strongly_connected(nodes, edges):
    """Tarjan's components of more than one node, each sorted."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1 or v in edges.get(v, ()):
                found.append(sorted(component))

    sys.setrecursionlimit(10000)
    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return found


def object_symbols(path):
    """(defined, used) global symbols of one object file."""
    out = subprocess.run(['nm', path], capture_output=True, text=True, check=True).stdout
    defined, used = set(), set()
    for line in out.splitlines():
        fields = line.split()
        if len(fields) == 2 and fields[0] == 'U':
            used.add(fields[1])
        elif len(fields) == 3 and fields[1] in 'TDBRVWGS':
            defined.add(fields[2])
    return defined, used


def circles(build):
    offences, folders = [], 0
    for folder in sorted(os.listdir(build)):
        path = os.path.join(build, folder)
        objects = sorted(f for f in os.listdir(path) if f.endswith('.o')) if os.path.isdir(path) else []
        if not objects:
            continue
        folders += 1
        owner, uses = {}, {}
        for o in objects:
            defined, uses[o] = object_symbols(os.path.join(path, o))
            for symbol in defined:
                owner.setdefault(symbol, o)
        edges = {o: {owner[s] for s in uses[o] if s in owner and owner[s] != o} for o in objects}
        for component in strongly_connected(objects, edges):
            why = []
            for a in component:
                for b in sorted(edges[a] & set(component)):
                    symbol = sorted(s for s in uses[a] if owner.get(s) == b)[0]
                    why.append('%s->%s (%s)' % (a[:-2], b[:-2], symbol))
            offences.append('%s/: a circle of %s: %s' % (folder, ' '.join(c[:-2] for c in component), ', '.join(why)))
    if folders == 0:
        offences.append('%s: no folder of objects (build first)' % build)
    return offences


def source_files(root, suffixes, skip_tests):
    for directory, subdirectories, files in os.walk(root):
        relative = os.path.relpath(directory, root)
        if relative == '.':
            subdirectories[:] = [d for d in subdirectories
                                 if not d.startswith('.') and not d.startswith('build')
                                 and not (skip_tests and d == 'tests') and d != 'debian']
        for name in sorted(files):
            if name.endswith(suffixes):
                yield os.path.normpath(os.path.join(relative, name))


def includes(root):
    headers = list(source_files(root, ('.h',), False))
    known = set(headers)
    edges = {}
    for header in headers:
        with open(os.path.join(root, header), errors='replace') as f:
            text = f.read()
        edges[header] = set()
        for name in re.findall(r'^\s*#\s*include\s+"([^"]+)"', text, re.M):
            for candidate in (os.path.normpath(os.path.join(os.path.dirname(header), name)), os.path.normpath(name)):
                if candidate in known:
                    edges[header].add(candidate)
                    break
    return ['include circle: ' + ' '.join(c) for c in strongly_connected(headers, edges)]


def lengths(root):
    offences = []
    for path in source_files(root, ('.c',), True):
        with open(os.path.join(root, path), errors='replace') as f:
            lines = f.read().split('\n')
        start = None
        for number, line in enumerate(lines):
            if line == '{':
                start = number
            elif line == '}' and start is not None:
                body = number - start - 1
                if body > MAX_FUNCTION_LINES:
                    first = start - 1   # the definition's first line: back over its continuations
                    while first > 0 and lines[first][:1] in ('\t', ' '):
                        first -= 1
                    name = re.search(r'(\w+)\s*\(', lines[first])
                    offences.append('%s:%d: %s has %d lines (at most %d)' % (
                        path, start + 1, name.group(1) if name else '?', body, MAX_FUNCTION_LINES))
                start = None
    return offences


def main():
    checks = {'circles': circles, 'includes': includes, 'lengths': lengths}
    if len(sys.argv) != 3 or sys.argv[1] not in checks:
        sys.exit(__doc__)
    offences = checks[sys.argv[1]](sys.argv[2])
    for offence in offences:
        print(offence)
    sys.exit(1 if offences else 0)


if __name__ == '__main__':
    main()
