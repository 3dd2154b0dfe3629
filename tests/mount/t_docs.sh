#!/usr/bin/env bash
# t_docs.sh - docs that cannot drift: every code name and repository path
# that docs/*.md, the man pages docs/*.[1-8] and README.md write must exist
# in the tree; the man pages render; the links between the docs resolve.
#   - names: every hf_/HF_ identifier (hf_open*, hf_mount_* name a family:
#     some identifier starts so), and every other snake_case name written
#     as code (`name` or `name(...)`), must occur in a source file (.c, .h,
#     .sh, .py, .mk, .proto, .java, .go, Makefile; the documents themselves
#     are not sources).  EXTERNAL below lists the few names of other
#     programs the documents write as code;
#   - paths: every path starting with a top-level folder of the repository
#     (fs/tree.c, tests/mount/, decoders/*/decoder.c) must name a file or
#     folder, or a build product by its source (tests/unit/helpers.o from
#     helpers.c, tests/fuzz/hf_walk from hf_walk.c); a shorter path or a
#     bare file name with a source extension (hprof/read.c, tree.c,
#     retained.md) must end the path of some file;
#   - placeholders: a capitalised part (NAME, FORMAT, X) or "foo" (the
#     example format of adding-a-format.md) stands for any name:
#     tests/unit/test_MODULE.c, hf_decoder_NAME, decoders/foo/decoder.c.
#   - man pages: `man -l` and groff (-ww, at the widths man uses) read every
#     docs/*.[1-8] without a warning; a page one of them names (heapfs(1),
#     heapfs-tree(7)) is a page of docs/; `make install` installs each;
#   - links: every [text](target) of README.md and docs/*.md that is not a
#     URL names a file of the repository, relative to the document, and its
#     #anchor a heading of that file; docs/README.md lists every docs/*.md
#     and man page.
# One "not ok" line per broken reference, with the document, the line
# number and the name, then the line itself; one "ok" line per document.
# bench/RESULTS.md is history and is not checked.
source "$(dirname "$0")/lib.sh"
cd "$ROOT" || exit 1

PAGES=(docs/*.[1-8])

python3 - README.md docs/*.md "${PAGES[@]}" <<'PY'
import fnmatch, os, re, sys

docs = sys.argv[1:]

SKIP_DIRS = {'.git', 'build', 'out', '.ci'}
files = []
for d, subs, names in os.walk('.'):
    subs[:] = sorted(s for s in subs if s not in SKIP_DIRS)
    for n in names:
        files.append(os.path.normpath(os.path.join(d, n)))
dirs = set()
for f in files:
    p = os.path.dirname(f)
    while p:
        dirs.add(p)
        p = os.path.dirname(p)
top = sorted(d for d in dirs if '/' not in d and not d.startswith('.'))

# Names: every hf_/HF_ identifier and every other identifier written in the
# sources (the documents themselves are not sources, nor is this script).
SRC_EXT = ('.c', '.h', '.sh', '.py', '.mk', '.proto', '.java', '.go')
docset = {os.path.normpath(d) for d in docs}
words = set()
for f in files:
    if f in docset or f == 'tests/mount/t_docs.sh' or f.startswith(('tests/corpus/', 'tests/fixtures/')):
        continue
    if not (f.endswith(SRC_EXT) or os.path.basename(f) == 'Makefile'):
        continue
    with open(f, encoding='utf-8', errors='replace') as fh:
        words.update(re.findall(r'[A-Za-z_][A-Za-z0-9_]*', fh.read()))
hfwords = sorted(w for w in words if w.startswith(('hf_', 'HF_')))

PLACEHOLDER = r'(?:[A-Z][A-Z0-9]*|foo)'   # NAME, FORMAT, X, foo: "any"

def name_ok(name):
    if name.endswith('*'):
        name = name[:-1]
        prefix = True
    else:
        prefix = name.endswith('_')
    if not prefix and name in words:
        return True
    # placeholders: a capitalised or "foo" part of a lower-case name
    parts = name.split('_')
    lower = name[:3] == 'hf_'
    pat = '_'.join('[A-Za-z0-9_]+' if lower and re.fullmatch(PLACEHOLDER, p) and i > 0
                   else re.escape(p) for i, p in enumerate(parts))
    rx = re.compile(pat + ('.*' if prefix else '') + r'\Z')
    return any(rx.match(w) for w in hfwords)

def glob_of(path):
    """path with placeholder parts (NAME, X, foo) as *"""
    return re.sub(r'(?<![A-Za-z0-9])' + PLACEHOLDER + r'(?![a-z0-9])', '*', path)

def path_ok(path):
    p = path.rstrip('/')
    if p in dirs or p in files:
        return True
    # a build product named by its source: tests/unit/helpers.o, tests/fuzz/hf_walk
    stem = p[:-2] if p.endswith('.o') else p
    if stem + '.c' in files and (p.endswith('.o') or '.' not in os.path.basename(p)):
        return True
    for pat in (p, glob_of(p)):
        if any(c in pat for c in '*?['):
            if any(fnmatch.fnmatchcase(f, pat) for f in files) or \
               any(fnmatch.fnmatchcase(d, pat) for d in dirs):
                return True
    return False

def tail_ok(path):
    """a path relative to some folder (hprof/read.c) or a bare name (tree.c)"""
    for pat in (path, glob_of(path)):
        for f in files:
            if f == pat or fnmatch.fnmatchcase(f, '*/' + pat) or fnmatch.fnmatchcase(f, pat):
                return True
    return False

NAME_RX = re.compile(r'(?<![A-Za-z0-9_$])((?:hf|HF)_[A-Za-z0-9_]*\*?)')
TOP_RX = re.compile(r'(?<![A-Za-z0-9_./~$-])((?:%s)/[A-Za-z0-9_.*\[\]+@%%-]*(?:/[A-Za-z0-9_.*\[\]+@%%-]*)*)'
                    % '|'.join(map(re.escape, top)))
FILE_RX = re.compile(r'(?<![A-Za-z0-9_./~$<\[-])((?:[A-Za-z0-9_-]+/)*[A-Za-z0-9_*-][A-Za-z0-9_*\[\]-]*'
                     r'\.(?:c|h|sh|py|java|proto|mk|md|go|\[ch\]))(?![A-Za-z0-9_])')
CODE_RX = re.compile(r'`([^`\n]+)`')
SNAKE_RX = re.compile(r'[a-z][a-z0-9]*(?:_[a-z0-9]+)+|[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+')

# Names of other programs that the documents write as code
EXTERNAL = {
    'user_allow_other',    # /etc/fuse.conf
}

def refs(line):
    """(kind, reference, exists) for each name and path the line writes, once"""
    seen = set()
    def first(x):
        if x in seen:
            return False
        seen.add(x)
        return True
    for m in NAME_RX.finditer(line):
        name = m.group(1)
        if name.rstrip('*') not in ('hf_', 'HF_') and first(name):
            yield 'name', name, name_ok(name)
    for m in CODE_RX.finditer(line):         # other code names, in `...`
        code = m.group(1)
        bare = re.fullmatch(r'[A-Za-z0-9_]+', code.strip('()*'))
        for w in SNAKE_RX.findall(code):
            if w.startswith(('hf_', 'HF_')) or not (bare or re.search(r'\b%s\(' % w, code)):
                continue                     # only a bare name or a call
            family = code.endswith('*') and code.rstrip('*').rstrip('_') == w  # th_bmd_*
            if first(w):
                yield 'name', w, (w in words or w in EXTERNAL or name_ok(w) or
                                  family and any(x.startswith(w + '_') for x in words))
    for m in TOP_RX.finditer(line):
        p = m.group(1).rstrip('.,:;)')
        if p.endswith(']') and '[' not in p:
            p = p[:-1]                       # [a link](...)
        if first(p):
            yield 'path', p, path_ok(p)
    for m in FILE_RX.finditer(line):
        p = m.group(1)
        if p.split('/')[0] in top:
            continue                         # TOP_RX's
        if p.endswith('.java') and re.search(r'\(%s:' % re.escape(p), line):
            continue                         # a Java stack frame: (ZipFile.java:123)
        if first(p):
            yield 'path', p, tail_ok(p)

WHY = {'name': 'no such name in the sources', 'path': 'no such file or directory in the repository'}
for doc in docs:
    count = {'name': 0, 'path': 0}
    n_bad = 0
    with open(doc, encoding='utf-8') as fh:
        lines = fh.read().split('\n')
    for ln, line in enumerate(lines, 1):
        for kind, what, exists in refs(line):
            count[kind] += 1
            if not exists:
                print('not ok - %s:%d: %s: %s' % (doc, ln, what, WHY[kind]))
                print('#   %s:%d: %s' % (doc, ln, line.strip()[:150]))
                n_bad += 1
    if not n_bad:
        print('ok - %s: the %d code names and %d repository paths it writes exist'
              % (doc, count['name'], count['path']))
PY

# ---- man pages -------------------------------------------------------------------
if command -v groff >/dev/null; then
  for page in "${PAGES[@]}"; do
    bad=""
    for args in "-z" "-Tutf8 -rLL=80n -z" "-Tutf8 -rLL=60n -z"; do
      # shellcheck disable=SC2086
      out=$(groff -man -ww $args "$page" 2>&1) && [ -z "$out" ] || bad="$bad$args: $out"$'\n'
    done
    if command -v man >/dev/null; then
      out=$(MANWIDTH=80 man -l "$page" 2>&1 >/dev/null)
      [ -z "$out" ] && MANWIDTH=80 man -l "$page" 2>/dev/null | grep -q '^NAME' || bad="${bad}man -l: $out"
    fi
    if [ -z "$bad" ]; then echo "ok - $page: groff -ww and man -l read it without a warning"
    else echo "not ok - $page: groff -ww and man -l read it without a warning"; printf '#   %s\n' "$bad" | head -20; fi
  done
else
  echo "not ok - groff is installed (bash contrib/install-deps.sh)"
fi
# pages named by the pages: heapfs*(N) must be docs/heapfs*.N
named=$(sed -n 's/^\.BR \(heapfs[^ ]*\) (\([1-8]\)).*/\1.\2/p' "${PAGES[@]}" | sed 's/\\-/-/g' | sort -u)
missing=$(for p in $named; do [ -f "docs/$p" ] || echo "$p"; done)
check_eq "the heapfs pages the man pages name are in docs/ ($(echo $named))" "" "$missing"
installs=$(make -s -n install DESTDIR=/nonexistent 2>/dev/null)
missing=$(for p in "${PAGES[@]}"; do grep -q "$p >" <<<"$installs" || echo "$p"; done)
check_eq "make install installs every man page" "" "$missing"

# ---- links between the docs -----------------------------------------------------
python3 - README.md docs/*.md <<'PY'
import os, re, sys

def slug(h):
    """GitHub's anchor of a heading"""
    h = re.sub(r'[`*_]', '', h.strip().lower())
    return re.sub(r'\s', '-', re.sub(r'[^\w\s-]', '', h))

def anchors(path):
    with open(path, encoding='utf-8') as fh:
        text = re.sub(r'```.*?```', '', fh.read(), flags=re.S)
    return {slug(m) for m in re.findall(r'^#+\s+(.*)$', text, re.M)}

LINK = re.compile(r'\[[^\]]*\]\(([^)\s]+)\)')
for doc in sys.argv[1:]:
    bad = 0
    with open(doc, encoding='utf-8') as fh:
        text = fh.read()
    for ln, line in enumerate(re.sub(r'```.*?```', lambda m: '\n' * m.group(0).count('\n'),
                                     text, flags=re.S).split('\n'), 1):
        for target in LINK.findall(line):
            if re.match(r'[a-z]+:', target):
                continue                     # https:, mailto:
            path, _, anchor = target.partition('#')
            path = os.path.normpath(os.path.join(os.path.dirname(doc), path)) if path else doc
            why = None
            if not os.path.exists(path):
                why = 'no such file'
            elif anchor and path.endswith('.md') and anchor not in anchors(path):
                why = 'no such heading'
            if why:
                print('not ok - %s:%d: link %s: %s' % (doc, ln, target, why))
                bad += 1
    if not bad:
        print('ok - %s: its links resolve' % doc)
PY
listed=$(grep -o '](\([^)#]*\))' docs/README.md | sed 's/^](//; s/)$//' | sort -u)
missing=$(cd docs && for f in *.md [a-z]*.[1-8]; do [ "$f" = README.md ] || grep -qx "$f" <<<"$listed" || echo "$f"; done)
check_eq "docs/README.md lists every page of docs/" "" "$(echo $missing)"
