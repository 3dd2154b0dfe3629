#!/usr/bin/env bash
# t_growthsvg.sh - MOUNT/growth.svg of a mount with several snapshots:
# bytes per snapshot, the total and what grew most (decoders/core/
# growthsvg.c).
#
# Well-formed (xmllint), nothing outside itself (no link, no script);
# every snapshot drawn; each line's steps are what the snapshots'
# `growth` files say (the total's: the sum of their byte changes; a
# line's: its row, 0 where it has none, and its bytes where it has one),
# the total is each snapshot's `histogram` summed where there is one, and
# the lines drawn are the names that grew most from the first snapshot to
# the last by the same files.  A mount of one snapshot has none.  Headless
# Chromium draws one: not blank, and black where the y axis' tick labels
# put the total's last value.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/browser.sh"

cat >"$TESTTMP/gc.py" <<'PY'
import os, re, sys, xml.etree.ElementTree as ET
NS = '{http://www.w3.org/2000/svg}'
svg, mnt = sys.argv[1], sys.argv[2]
norm = lambda s: ' '.join(s.split())
text = open(svg, encoding='utf-8').read()
root = ET.parse(svg).getroot()
bad = []
if text.count('http') != 1 or 'href' in text or '<script' in text:
    bad.append('a reference or script')
snaps = sorted(os.listdir(mnt + '/snapshots'), key=int)
drawn = root.get('data-snapshots').split()
if drawn != snaps:
    bad.append('snapshots drawn %s, the mount has %s' % (drawn, snaps))
lines = {norm(g.get('data-name')): [int(x) for x in g.get('data-v').split()]
         for g in root.iter(NS + 'g') if g.get('class') == 's'}
total = lines.pop('total')
cum = {}
for k in range(1, len(snaps)):
    rows = {}
    for ln in open('%s/snapshots/%s/growth' % (mnt, snaps[k]), encoding='utf-8', errors='replace'):
        if ln.startswith('#'):
            continue
        f = ln.rstrip('\n').split(' ', 5)
        rows[norm(f[5])] = (int(f[1]), int(f[3]))
    if total[k] - total[k - 1] != sum(d for d, _ in rows.values()):
        bad.append('total: step to %s is not the sum of its growth' % snaps[k])
    for n, (d, now) in rows.items():
        cum[n] = cum.get(n, 0) + d
    for n, v in lines.items():
        d, now = rows.get(n, (0, v[k]))
        if v[k] - v[k - 1] != d or v[k] != now:
            bad.append('%s: %d -> %d at %s, growth says %+d to %d' % (n, v[k - 1], v[k], snaps[k], d, now))
for k, s in enumerate(snaps):
    h = '%s/snapshots/%s/histogram' % (mnt, s)
    if os.path.exists(h):
        b = sum(int(ln.split()[1]) for ln in open(h, errors='replace') if not ln.startswith('#'))
        if b != total[k]:
            bad.append('total %d at %s, histogram sums to %d' % (total[k], s, b))
grew = sorted(n for n in cum if cum[n] > 0)
if len(lines) != min(8, len(grew)):
    bad.append('%d lines for %d names that grew' % (len(lines), len(grew)))
if lines and max([cum[n] for n in grew if n not in lines] or [0]) > min(cum.get(n, 0) for n in lines):
    bad.append('a name that grew more is not drawn')
if len(sys.argv) > 3:  # where the axis puts the total's last value: x y
    c = [c for g in root.iter(NS + 'g') if g.get('data-name') == 'total' for c in g.iter(NS + 'circle')][-1]
    unit = [t.text for t in root.iter(NS + 'text') if (t.text or '').startswith('bytes (')][0][7:-1]
    div = 1024 ** ['B', 'KiB', 'MiB', 'GiB', 'TiB'].index(unit)
    ticks = sorted((float(t.text) * div, float(t.get('y')) - 4) for t in root.iter(NS + 'text')
                   if t.get('text-anchor') == 'end' and re.fullmatch(r'[0-9.e+]+', t.text or ''))
    (v0, y0), (v1, y1) = ticks[0], ticks[-1]
    y = y0 + (y1 - y0) * (total[-1] - v0) / (v1 - v0)
    if abs(y - float(c.get('cy'))) > 1:
        bad.append('the last point is at y %s, the axis puts %d bytes at %.1f' % (c.get('cy'), total[-1], y))
    print(c.get('cx'), '%.1f' % y)
else:
    print('# %d snapshots, %d lines, total %d -> %d' % (len(snaps), len(lines), total[0], total[-1]))
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
PY

# check_chart LABEL: MNT/growth.svg is well-formed and adds up.
check_chart() {
  if [ ! -s "$MNT/growth.svg" ]; then echo "not ok - $1: growth.svg at the top"; return; fi
  check "$1: growth.svg is well-formed" xmllint --noout "$MNT/growth.svg"
  if python3 "$TESTTMP/gc.py" "$MNT/growth.svg" "$MNT" >"$TESTTMP/gc.out"; then
    echo "ok - $1: growth.svg's lines step as growth says, the total is the histogram's ($(head -1 "$TESTTMP/gc.out" | cut -c3-))"
  else
    echo "not ok - $1: growth.svg's lines step as growth says, the total is the histogram's"
    sed 's/^/# /' "$TESTTMP/gc.out" | head -5
  fi
}

if hf_mount "$ROOT/tests/fixtures/gen-v1.oemp"; then
  check_chart gen-v1.oemp
  cp "$MNT/growth.svg" "$TESTTMP/g.svg"
  mkdir -p "$TESTTMP/gmnt/snapshots"   # the snapshots' growth and histogram, for the browser check
  for s in "$MNT"/snapshots/*; do
    mkdir "$TESTTMP/gmnt/snapshots/${s##*/}"; cp "$s"/histogram "$TESTTMP/gmnt/snapshots/${s##*/}/"
    [ -e "$s/growth" ] && cp "$s/growth" "$TESTTMP/gmnt/snapshots/${s##*/}/"
  done
  hf_umount
else
  echo "not ok - gen-v1.oemp mounts"
fi
# several snapshots: a series of one format, several dumps of two
for set in "gperftools series|$CORPUS/pprof-heap/local_tcmalloc_hp.0001.heap $CORPUS/pprof-heap/local_tcmalloc_hp.0002.heap" \
           "three heap dump files (HPROF, BMD)|$CORPUS/hprof/mat_sun_jdk6_31_hprofagent_compressedOops.hprof $CORPUS/hprof/slurp_hprof-32.bin $CORPUS/bmd/slurp_hprof-32.bmd"; do
  # shellcheck disable=SC2086 # the file list splits on purpose
  if hf_mount_series ${set#*|}; then check_chart "${set%%|*}"; hf_umount; else echo "not ok - ${set%%|*} mount"; fi
done
if hf_mount "$CORPUS/hprof/mat_oracle_jdk8_05_x64.hprof"; then
  check "one snapshot: no growth.svg" test ! -e "$MNT/growth.svg"
  check "one snapshot: ls lists no growth.svg" bash -c "! ls '$MNT' | grep -q growth"
  hf_umount
fi

if [ -z "$CHROMIUM" ] || [ ! -s "$TESTTMP/g.svg" ]; then
  echo "ok - growth.svg in a browser # SKIP chromium is not installed"
  exit 0
fi
browser_shot "file://$TESTTMP/g.svg" "$TESTTMP/g.png" 1200 "$(svg_height "$TESTTMP/g.svg")"
read -r x y < <(python3 "$TESTTMP/gc.py" "$TESTTMP/g.svg" "$TESTTMP/gmnt" where)
if out=$(python3 - "$TESTTMP/g.png" "$x" "$y" "$ROOT/tests/mount" <<'PY'
import sys
sys.path.insert(0, sys.argv[4])
from flame_check import png_pixels
w, h, px = png_pixels(sys.argv[1])
x, y = float(sys.argv[2]), float(sys.argv[3])
colours = {px(i, j) for j in range(0, h, 4) for i in range(0, w, 4)}
dark = [px(int(x) + i, int(y) + j) for i in (-1, 0, 1) for j in (-1, 0, 1)]
ok = len(colours) > 10 and min(sum(c) for c in dark) < 120
print('total at (%g,%g): darkest %s, %d colours' % (x, y, min(dark, key=sum), len(colours)))
sys.exit(0 if ok else 1)
PY
); then
  echo "ok - Chromium draws growth.svg, the total's last point where its bytes put it ($out)"
else
  echo "not ok - Chromium draws growth.svg, the total's last point where its bytes put it"
  echo "# $out"
fi
