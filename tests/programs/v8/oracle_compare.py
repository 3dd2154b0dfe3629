#!/usr/bin/env python3
"""oracle_compare.py MOUNT_SNAPSHOT_DIR ORACLE_TSV

Compares heapfs's view of a V8 snapshot (tables/objects.tsv: class and
shallow size; tables/retained.tsv: retained size and dominator) with what
Chrome DevTools' own code says of the same file (devtools_oracle.mjs's
lines: id, class, shallow, retained, dominator), object by object.
Prints one line per kind of difference with the first few, then
"compared N objects, M differences"; exits 1 on any difference."""
import re
import sys


def unescape(name):
    # heapfs escapes '/' and '%' in directory names (names.h), and . / ..
    return name.replace('%2F', '/').replace('%2E', '.').replace('%25', '%')


def same_class(ours, theirs):
    # a long name is cut and ends in '~' (heap/build.c name_dirs), with
    # "@0xID" after it when another class was cut to the same name
    m = re.fullmatch(r'(.*)~(@0x[0-9a-f]+)?', ours or '')
    return ours == theirs or bool(m) and len(theirs) > len(m[1]) and theirs.startswith(m[1])


def main():
    snap, oracle = sys.argv[1], sys.argv[2]
    ours = {}
    with open(snap + '/tables/objects.tsv', encoding='utf-8') as f:
        next(f)
        for line in f:
            c = line.rstrip('\n').split('\t')
            ours[c[0]] = [unescape(c[1]), c[2]]
    with open(snap + '/tables/retained.tsv', encoding='utf-8') as f:
        next(f)
        for line in f:
            c = line.rstrip('\n').split('\t')
            if c[0] in ours:
                ours[c[0]] += [c[1], c[2]]
    bad, n = {}, 0
    with open(oracle, encoding='utf-8') as f:
        for line in f:
            c = line.rstrip('\n').split('\t')
            n += 1
            o = ours.pop(c[0], None)
            for k, what in enumerate(('class', 'shallow', 'retained', 'dominator')):
                if o is None or len(o) <= k or not (same_class(o[k], c[k + 1]) if k == 0
                                                    else o[k] == c[k + 1]):
                    bad.setdefault(what, []).append((c[0], o[k] if o and len(o) > k else None,
                                                     c[k + 1]))
    if ours:
        bad['only in heapfs'] = list(ours.items())
    for what, rows in bad.items():
        print(f'# {what}: {len(rows)}, e.g. {rows[:3]} (id, heapfs, devtools)')
    print(f'compared {n} objects, {sum(len(r) for r in bad.values())} differences')
    return 1 if bad or n == 0 else 0


if __name__ == '__main__':
    sys.exit(main())
