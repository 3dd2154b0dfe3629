#!/usr/bin/env bash
# t_treemap.sh - snapshots/S/dominators.svg of heap dumps (HPROF, BMD,
# HPROF text):
# the dominator tree as a treemap (decoders/heap/treemap.c).
#
# Well-formed (xmllint); no reference outside but the relative links to
# objects/0xID/, each of which is a directory of the mount; the level-1
# boxes add up to the reachable bytes, each is the retained bytes the
# `dominators` view gives its object, and its area is that share of the
# picture.  Headless Chromium draws it: not blank, and the largest object
# of `dominators` is the box at the top left, in its colour.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/browser.sh"

cat >"$TESTTMP/tm.py" <<'PY'
import re, sys, xml.etree.ElementTree as ET
NS = '{http://www.w3.org/2000/svg}'
svg, dom, mode = sys.argv[1], sys.argv[2], sys.argv[3]
text = open(svg, encoding='utf-8').read()
root = ET.parse(svg).getroot()
want = {}
for ln in open(dom):
    if not ln.startswith('#'):
        f = ln.split()
        want[f[0]] = int(f[2])
bad = []
boxes = [g for g in root.iter(NS + 'g') if g.get('class') == 'b']
l1 = [g for g in boxes if g.get('data-d') == '1']
total = int(root.get('data-total'))
if mode == 'check':
    if text.count('http') != 1:
        bad.append('a reference other than the SVG namespace')
    for h in re.findall(r'href="([^"]*)"', text):
        if not re.fullmatch(r'objects/0x[0-9a-f]+/', h):
            bad.append('link %s' % h)
        else:
            print('LINK', h)
    if total != sum(want.values()):
        bad.append('total %d, dominators sums to %d' % (total, sum(want.values())))
    if sum(int(g.get('data-v')) for g in l1) != total:
        bad.append('level-1 boxes do not add up to the total')
    for g in l1:
        r = g.find(NS + 'rect')
        area = float(r.get('width')) * float(r.get('height')) / (1200 * 800)
        v = int(g.get('data-v'))
        if abs(area - v / total) > 0.005:
            bad.append('%s: area %.4f for share %.4f' % (g.get('data-id'), area, v / total))
        if g.get('data-m') != '1' and want.get(g.get('data-id')) != v:
            bad.append('%s: %d, dominators says %s' % (g.get('data-id'), v, want.get(g.get('data-id'))))
    print('# %d boxes, %d at level 1' % (len(boxes), len(l1)))
else:  # where: the largest object's box and the pixel to sample
    top = max(want, key=lambda k: want[k])
    g = [g for g in l1 if g.get('data-id') == top][0]
    r = g.find(NS + 'rect')
    print(r.get('x'), r.get('y'), r.get('width'), r.get('fill'))
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
PY

for f in "$CORPUS"/hprof/mat_oracle_jdk8_05_x64.hprof "$CORPUS"/bmd/leakcanary_leak_service_binder.bmd \
         "$CORPUS"/hprof-txt/Magnulas_ADKLabb3_heapdump_sites.java.hprof.txt; do
  b=$(basename "$f")
  if ! hf_mount "$f"; then echo "not ok - $b mounts"; continue; fi
  S=$MNT/snapshots/1
  check "$b: dominators.svg is well-formed" xmllint --noout "$S/dominators.svg"
  if python3 "$TESTTMP/tm.py" "$S/dominators.svg" "$S/dominators" check >"$TESTTMP/tm.out"; then
    echo "ok - $b: boxes add up to dominators' retained bytes, areas in proportion"
  else
    echo "not ok - $b: boxes add up to dominators' retained bytes, areas in proportion"
    grep -v '^LINK' "$TESTTMP/tm.out" | sed 's/^/# /' | head -5
  fi
  missing=0 links=0
  while read -r _ h; do
    links=$((links + 1)); [ -d "$S/$h" ] || missing=$((missing + 1))
  done < <(grep '^LINK' "$TESTTMP/tm.out")
  check_eq "$b: every link ($links) is an object directory" 0 "$missing"
  check "$b: boxes link to objects" test "$links" -gt 0
  [ "$b" = mat_oracle_jdk8_05_x64.hprof ] && cp "$S/dominators.svg" "$TESTTMP/d.svg" && cp "$S/dominators" "$TESTTMP/d.txt"
  hf_umount
done

if [ -z "$CHROMIUM" ] || [ ! -s "$TESTTMP/d.svg" ]; then
  echo "ok - dominators.svg in a browser # SKIP chromium is not installed"
  exit 0
fi
browser_shot "file://$TESTTMP/d.svg" "$TESTTMP/d.png" 1200 830
read -r x y w fill < <(python3 "$TESTTMP/tm.py" "$TESTTMP/d.svg" "$TESTTMP/d.txt" where)
if out=$(python3 - "$TESTTMP/d.png" "$x" "$y" "$w" "$fill" "$ROOT/tests/mount" <<'PY'
import re, sys
sys.path.insert(0, sys.argv[6])
from flame_check import png_pixels
w, h, px = png_pixels(sys.argv[1])
x, y, bw = float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
colours = {px(i, j) for j in range(0, h, 4) for i in range(0, w, 4)}
want = tuple(int(c) for c in re.findall(r'\d+', sys.argv[5]))
got = px(int(x + bw - 3), int(y + 2))  # the box's label strip, right end
ok = (x, y) == (0.0, 30.0) and len(colours) > 10 and max(abs(a - b) for a, b in zip(want, got)) <= 3
print('box at (%g,%g), pixel %s, its colour %s, %d colours' % (x, y, got, want, len(colours)))
sys.exit(0 if ok else 1)
PY
); then
  echo "ok - Chromium draws dominators.svg, the largest object at the top left ($out)"
else
  echo "not ok - Chromium draws dominators.svg, the largest object at the top left"
  echo "# $out"
fi
