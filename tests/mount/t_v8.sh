#!/usr/bin/env bash
# t_v8.sh - V8 heap snapshots (.heapsnapshot) mounted.
#
# tests/programs/v8/heapshape.js runs under Debian's nodejs and writes three
# snapshots of itself (v8.writeHeapSnapshot) with a known heap: 1000 Foo,
# a closure keepBig over a 100000-double array, a Map of 500 Entry, a chain
# of 200 Link, and 300 more Leak objects before each snapshot but the first.
# The oracle is Chrome DevTools' own heap snapshot code (npm
# heap-snapshot-toolkit, installed by contrib/install-deps.sh), run by
# devtools_oracle.mjs: for every object of snapshot 3, and of a snapshot
# written by hand to reach DevTools' corners (mksnap.py: DOM nodes, a
# WeakMap, weak-only and cyclic garbage, interfaces), class, shallow size,
# retained size and dominator must equal heapfs's.
. "$(dirname "$0")/lib.sh"

if ! command -v node >/dev/null 2>&1; then
  echo "ok - V8 heap snapshots # SKIP node (package nodejs) is not installed"
  exit 0
fi
P=$ROOT/tests/programs/v8
(cd "$TESTTMP" && node "$P/heapshape.js" "$TESTTMP/h" 3) > "$TESTTMP/shape.out" 2>&1
check "heapshape.js writes three snapshots" test -s "$TESTTMP/h.3.heapsnapshot"
MARKER=$(awk '$1 == "marker" {print $2}' "$TESTTMP/shape.out")

# count of class NAME in a histogram
count() { awk -v c="$2" '$1 != "#" && $3 == c {print $1}' "$1/histogram"; }

if hf_mount "$TESTTMP/h.1.heapsnapshot"; then
  S=$MNT/latest
  check "info says v8, with the format's name" bash -c 'grep -qx "format: v8" "$1" && grep -qx "format name: V8 heap snapshot (.heapsnapshot)" "$1"' _ "$MNT/info"
  check_eq "1000 Foo in the histogram" 1000 "$(count "$S" Foo)"
  check_eq "500 Entry" 500 "$(count "$S" Entry)"
  check_eq "200 Link" 200 "$(count "$S" Link)"
  check_eq "no Leak yet" "" "$(count "$S" Leak)"
  check_eq "classes/Foo/instances lists 1000" 1000 "$(wc -l < "$S/classes/Foo/instances")"
  FOO=$(head -1 "$S/classes/Foo/instances")
  check "a Foo's edges name its fields" grep -qP '^property\t0x[0-9a-f]*\tlabel$' "$S/objects/$FOO/edges"
  check "refs/label of a Foo is a string foo-N" grep -qx 'foo-[0-9]*' "$S/objects/$FOO/refs/label/value"
  check "info gives the DevTools id" grep -qx "devtools: @$((FOO))" "$S/objects/$FOO/info"
  check "strings has the marker" grep -q "$(printf '\t')$MARKER\$" "$S/strings"
  check "strings has a Map key" grep -qP '\tk499$' "$S/strings"
  check "roots lists (GC roots) categories" grep -q $'\t(GC roots) / ' "$S/roots"
  G=$(awk -F'\t' '$3 == "(user roots)" {print $1; exit}' "$S/roots")
  check "roots lists the global object as a user root" test -n "$G"
  K=$(basename "$(readlink "$S/objects/$G/refs/keepBig")")
  check "global's refs/keepBig is a Function" grep -qx 'class: Function' "$S/objects/$K/info"
  RET=$(awk '$1 == "retained:" {print $2}' "$S/objects/$K/retained")
  check "keepBig retains its 100000 doubles (>= 800000 bytes, got $RET)" test "${RET:-0}" -ge 800000
  CTX=$(basename "$(readlink "$S/objects/$K/refs/context")")
  BIG=$(basename "$(readlink "$S/objects/$CTX/refs/big")")
  check_eq "the array's dominator is keepBig's context" "$CTX" \
    "$(basename "$(readlink "$S/objects/$BIG/dominator")")"
  check_eq "the context's dominator is keepBig" "$K" \
    "$(basename "$(readlink "$S/objects/$CTX/dominator")")"
  HEAD=$(basename "$(readlink "$S/objects/$G/refs/chain")")
  check_eq "the head Link dominates the next" "$HEAD" \
    "$(basename "$(readlink "$S/objects/$(basename "$(readlink "$S/objects/$HEAD/refs/next")")/dominator")")"
  check "histogram-retained lists Link" grep -qP "\tLink$" "$S/histogram-retained"
  check "detached: Node's own detached natives, classed Detached" \
    bash -c "awk -F'\t' '!/^#/ && \$3 !~ /^Detached /' '$S/detached' | grep -c . | grep -qx 0"
  check "no new file in the first snapshot" test ! -e "$S/new"
  check "tables/references.tsv has the edges" grep -q $'^0x[0-9a-f]*\tlabel\t0x' "$S/tables/references.tsv"
  hf_umount
else
  echo "not ok - h.1.heapsnapshot mounts"
fi

gzip -c "$TESTTMP/h.1.heapsnapshot" > "$TESTTMP/h1.gz"
if hf_mount "$TESTTMP/h1.gz"; then
  check_eq "gzipped: the same 1000 Foo" 1000 "$(count "$MNT/latest" Foo)"
  check "gzipped: info says so" grep -q 'gzip: yes' "$MNT/latest/info"
  hf_umount
else
  echo "not ok - a gzipped snapshot mounts"
fi

if hf_mount_series "$TESTTMP/h.1.heapsnapshot" "$TESTTMP/h.2.heapsnapshot" "$TESTTMP/h.3.heapsnapshot"; then
  check_eq "three snapshots" "1 2 3" "$(ls "$MNT/snapshots" | tr '\n' ' ' | sed 's/ $//')"
  check_eq "600 Leak in snapshot 3" 600 "$(count "$MNT/snapshots/3" Leak)"
  check "growth of snapshot 2: 300 new Leak" grep -Pq '^300\t[0-9]+\t300\t[0-9]+\tnew\tLeak$' "$MNT/snapshots/2/growth"
  # memlab: allocated between 1 and 2, alive in 3: exactly the first 300 Leak
  awk '{print $1}' "$MNT/snapshots/2/classes/Leak/instances" | sort > "$TESTTMP/leak2"
  awk -F'\t' '$3 == "Leak" {print $1}' "$MNT/snapshots/3/leaks" | sort > "$TESTTMP/leak3"
  check "snapshot 3's leaks: snapshot 2's 300 Leak objects" diff "$TESTTMP/leak2" "$TESTTMP/leak3"
  check_eq "snapshot 3's new: 300 Leak" 300 \
    "$(awk -F'\t' '$3 == "Leak"' "$MNT/snapshots/3/new" | wc -l)"
  check "no Temp among the leaks (dropped between snapshots)" \
    bash -c "! grep -q \$'\tTemp\$' '$MNT/snapshots/3/leaks'"
  if node "$P/devtools_oracle.mjs" "$TESTTMP/h.3.heapsnapshot" > "$TESTTMP/h3.oracle"; then
    python3 "$P/oracle_compare.py" "$MNT/snapshots/3" "$TESTTMP/h3.oracle" > "$TESTTMP/cmp3" 2>&1
    sed 's/^/# /' "$TESTTMP/cmp3"
    check "DevTools agrees on every object of snapshot 3 (class, shallow, retained, dominator)" \
      grep -q ', 0 differences$' "$TESTTMP/cmp3"
  else
    echo "not ok - DevTools' code (devtools_oracle.mjs) reads snapshot 3: run contrib/install-deps.sh"
  fi
  hf_umount
else
  echo "not ok - three snapshots mount together"
fi

python3 "$P/mksnap.py" "$TESTTMP/dom.heapsnapshot"
if hf_mount "$TESTTMP/dom.heapsnapshot"; then
  S=$MNT/latest
  if node "$P/devtools_oracle.mjs" "$TESTTMP/dom.heapsnapshot" > "$TESTTMP/dom.oracle"; then
    python3 "$P/oracle_compare.py" "$S" "$TESTTMP/dom.oracle" > "$TESTTMP/cmpd" 2>&1
    sed 's/^/# /' "$TESTTMP/cmpd"
    check "DevTools agrees on every object of the hand-made snapshot" \
      grep -q ', 0 differences$' "$TESTTMP/cmpd"
    check_eq "detached lists what DevTools calls Detached" \
      "$(awk -F'\t' '$2 ~ /^Detached / {print $1}' "$TESTTMP/dom.oracle" | sort | tr '\n' ' ')" \
      "$(awk -F'\t' '!/^#/ {print $1}' "$S/detached" | sort | tr '\n' ' ')"
  else
    echo "not ok - DevTools' code (devtools_oracle.mjs) reads the hand-made snapshot"
  fi
  hf_umount
else
  echo "not ok - the hand-made snapshot mounts"
fi

# ---- the index file: a remount maps it and reads no JSON ----
# (.stats says "index: loaded from FILE"; "built" means the JSON was read)
IXD=$TESTTMP/ix
mkdir -p "$IXD"
# same_views A B: what a user reads, byte for byte: the main views and
# tables, a recursive listing of classes/ and the files of four classes,
# every object's name, and the files of one object in 1499 (refs/ and
# referrers/ listed)
same_views() {
  local a=$1 b=$2 f o c
  cmp -s "$a/info" "$b/info" && cmp -s "$a/errors" "$b/errors" || return 1
  for f in info histogram histogram-retained roots strings detached heap.pprof stacks.folded \
           dominators suspects tables/classes.tsv tables/objects.tsv tables/references.tsv; do
    cmp -s <(cat "$a/latest/$f" 2>&1 | sed "s|$a|MNT|g") <(cat "$b/latest/$f" 2>&1 | sed "s|$b|MNT|g") || return 1
  done
  diff <(cd "$a/latest/classes" && ls -R) <(cd "$b/latest/classes" && ls -R) >/dev/null || return 1
  for c in Foo Entry Link '(string)'; do
    [ ! -e "$a/latest/classes/$c" ] || diff -r --no-dereference "$a/latest/classes/$c" "$b/latest/classes/$c" >/dev/null || return 1
  done
  cmp -s <(ls "$a/latest/objects") <(ls "$b/latest/objects") || return 1
  for o in $(ls "$a/latest/objects" | awk 'NR % 1499 == 1'); do
    for f in info edges value retained refs referrers; do
      cmp -s <(cd "$a/latest/objects/$o" && { cat $f || ls -l $f; } 2>&1 | sed 's/ [A-Z][a-z][a-z] .*->/ ->/') \
             <(cd "$b/latest/objects/$o" && { cat $f || ls -l $f; } 2>&1 | sed 's/ [A-Z][a-z][a-z] .*->/ ->/') || return 1
    done
  done
}
# first_then_second FILE LABEL: mounts FILE twice, the second time from
# the index file the first wrote; compares them; leaves both unmounted
first_then_second() {
  local f=$1 label=$2 m1
  hf_mount "$f" || { echo "not ok - $label: first mount"; return; }
  m1=$MNT
  check "$label: first mount builds the index and writes $(basename "$f").heapfs-index" \
    bash -c "$(declare -f wait_written); wait_written '$m1' && grep -q '^index: built in .*, written to $f.heapfs-index' '$m1/.stats'"
  hf_mount "$f" || { echo "not ok - $label: second mount"; fusermount3 -u "$m1"; return; }
  check "$label: second mount loads the index file" grep -q "^index: loaded from $f.heapfs-index" "$MNT/.stats"
  check "$label: every view the same on both mounts" same_views "$m1" "$MNT"
  hf_umount
  fusermount3 -u "$m1"
}
cp "$TESTTMP/h.1.heapsnapshot" "$IXD/a.heapsnapshot"
first_then_second "$IXD/a.heapsnapshot" "plain"
cp "$TESTTMP/h1.gz" "$IXD/g.heapsnapshot.gz"
first_then_second "$IXD/g.heapsnapshot.gz" "gzipped"
head -c $(($(stat -c %s "$TESTTMP/h.1.heapsnapshot") * 2 / 3)) "$TESTTMP/h.1.heapsnapshot" > "$IXD/cut.heapsnapshot"
first_then_second "$IXD/cut.heapsnapshot" "cut at 2/3"

IX=$IXD/a.heapsnapshot.heapfs-index
if hf_mount "$IXD/a.heapsnapshot" -o index=none; then
  REF=$MNT
  check "-o index=none: .stats says no index file" grep -q '^index: built in .*no index file (-o index=none)' "$REF/.stats"
  # the retained sizes' results (same_views read dominators) go beside
  # the index file; a remount maps them
  check "retained sizes kept in a.heapsnapshot.heapfs-index.retained-strong.1" \
    test -s "$IX.retained-strong.1"
  hf_mount "$IXD/a.heapsnapshot"
  cat "$MNT/latest/dominators" > /dev/null
  check "remount: the retained sizes loaded, not computed" \
    bash -c "grep -q 'retained sizes, snapshot 1: loaded from $IX.retained-strong.1' '$MNT/.stats' && ! grep -q 'snapshot 1: computed' '$MNT/.stats'"
  hf_umount
  # a damaged index file: a byte of a section checked whole (kind 2, CRC-32)
  python3 - "$IX" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
n = struct.unpack_from('<I', b, 16)[0]
for i in range(n):
    sid, kind, off, ln = struct.unpack_from('<IIQQ', b, 176 + 24 * i)
    if kind == 2 and ln > 64:
        b[off + ln // 2] ^= 0xff
        break
open(sys.argv[1], 'wb').write(b)
PY
  hf_mount "$IXD/a.heapsnapshot"
  check "a damaged index file is refused: .stats says why" \
    bash -c "$(declare -f wait_written); wait_written '$MNT' && grep -q '^index: built in .* ($IX: damaged (checksum)), written to $IX' '$MNT/.stats'"
  check "...and the views are the snapshot's" same_views "$REF" "$MNT"
  hf_umount
  hf_mount "$IXD/a.heapsnapshot"
  check "...and the rewritten file is loaded" grep -q "^index: loaded from $IX" "$MNT/.stats"
  hf_umount
  # another snapshot's index file in its place: refused (its key)
  cp "$IXD/g.heapsnapshot.gz.heapfs-index" "$IX"
  hf_mount "$IXD/a.heapsnapshot"
  check "another dump's index file is refused" grep -q "^index: built in .* ($IX: " "$MNT/.stats"
  check "...the views are the snapshot's" same_views "$REF" "$MNT"
  hf_umount
  fusermount3 -u "$REF"
else
  echo "not ok - mount -o index=none"
fi
cp "$TESTTMP/h.1.heapsnapshot" "$IXD/none.heapsnapshot"
if hf_mount "$IXD/none.heapsnapshot" -o index=none; then
  cat "$MNT/latest/dominators" > /dev/null
  sleep 0.5
  check "-o index=none writes nothing" test -z "$(ls "$IXD" | grep '^none\.heapsnapshot\.')"
  hf_umount
else
  echo "not ok - mount -o index=none"
fi
# the snapshot changed (another of the same size would do: the key has
# mtime, ctime and sampled contents): indexed anew
cp "$TESTTMP/h.2.heapsnapshot" "$IXD/a.heapsnapshot"
if hf_mount "$IXD/a.heapsnapshot"; then
  check "a changed snapshot is indexed anew" grep -q '^index: built in' "$MNT/.stats"
  check_eq "...and shows its own 300 Leak" 300 "$(count "$MNT/latest" Leak)"
  hf_umount
else
  echo "not ok - a changed snapshot mounts"
fi
out=$("$HEAPFS" --check "$IXD/a.heapsnapshot" 2>&1)
check "--check lists the kept index file" grep -q "^kept: [0-9]* $IX\$" <<< "$out"
"$HEAPFS" --forget "$IXD/a.heapsnapshot" > /dev/null 2>&1
check "--forget removes the index file and the results" test -z "$(ls "$IXD" | grep '^a\.heapsnapshot\.')"

# allocation traces (node --track-heap-objects): Tracked objects made in
# makeTracked(), called from the top level of the script
cat > "$TESTTMP/tracked.js" <<'JS'
class Tracked { constructor (i) { this.s = 'tracked-' + i } }
function makeTracked (n) { const a = []; for (let i = 0; i < n; i++) a.push(new Tracked(i)); return a }
globalThis.kept = makeTracked(400)
require('v8').writeHeapSnapshot(process.argv[2])
JS
node --track-heap-objects "$TESTTMP/tracked.js" "$TESTTMP/tracked.heapsnapshot" >/dev/null 2>&1
if hf_mount "$TESTTMP/tracked.heapsnapshot"; then
  S=$MNT/latest
  check "sites names makeTracked with its script and line" \
    grep -Pq "^[0-9]+\t[0-9]+\t[0-9]+\tmakeTracked \(.*tracked\.js:2:[0-9]+\)\$" "$S/sites"
  ONE=$(awk '$1 == "size:" {print $2}' "$S/objects/$(head -1 "$S/classes/Tracked/instances")/info")
  check_eq "stacks.folded: makeTracked allocated 400 Tracked" "$((400 * ONE))" \
    "$(awk '$1 ~ /;makeTracked;Tracked$/ {s += $2} END {print s + 0}' "$S/stacks.folded")"
  check "flame.svg draws makeTracked" grep -q 'makeTracked' "$S/flame.svg"
  hf_umount
else
  echo "not ok - a snapshot with allocation traces mounts"
fi

# hostile files: a huge string table, a cut, a wrong meta, edges past the
# nodes, deep nesting: a partial mount with errors, or one clear line
python3 - "$TESTTMP/dom.heapsnapshot" "$TESTTMP" <<'PY'
import sys
src, out = sys.argv[1], sys.argv[2]
t = open(src, encoding='utf-8').read()
i = t.rindex(']}')  # the end of the strings: the indices in use stay
open(out + '/huge.heapsnapshot', 'w').write(
    t[:i] + ',"' + 'x' * (32 << 20) + '"' + ',"s"' * 1000000 + t[i:])
open(out + '/meta.heapsnapshot', 'w').write(t.replace('"self_size"', '"size"', 1))
j = t.index('"edges":[') + len('"edges":[')  # the first edge's target: far away
e = t[j:].split(',', 3)
open(out + '/past.heapsnapshot', 'w').write(t[:j] + ','.join(e[:2] + ['700000', e[3]]))
k = t.index(',"trace_function_infos"')
open(out + '/deep.heapsnapshot', 'w').write(t[:k] + ',"deep":' + '[' * 200000 + t[k:])
PY
if hf_mount "$TESTTMP/huge.heapsnapshot"; then
  check "a 32 MiB string and a million more: the same classes" grep -qP "\tWeakMap$" "$MNT/latest/histogram"
  check "huge: nothing in errors" test ! -s "$MNT/errors"
  hf_umount
else
  echo "not ok - a snapshot with a huge string table mounts"
fi
check_cut_mounts "$TESTTMP/h.1.heapsnapshot" "h.1.heapsnapshot" "the cut is in errors" "ends here"
out=$("$HEAPFS" --check "$TESTTMP/meta.heapsnapshot" 2>&1); rc=$?
check_eq "a meta without self_size: refused, status 1" 1 "$rc"
check "... with one line naming the file and the fields" bash -c "[ \$(printf '%s\n' \"$out\" | wc -l) = 1 ] && printf '%s' \"$out\" | grep -q 'meta.heapsnapshot: the snapshot.s meta lacks'"
if hf_mount "$TESTTMP/past.heapsnapshot"; then
  check "an edge past the nodes is in errors" grep -q 'edges lead past the nodes array' "$MNT/errors"
  hf_umount
else
  echo "not ok - a snapshot with an edge past the nodes mounts"
fi
if hf_mount "$TESTTMP/deep.heapsnapshot"; then
  check "deep nesting: in errors, the nodes still there" grep -q 'nested more than 64 deep' "$MNT/errors"
  check "deep nesting: objects list" bash -c "ls '$MNT/latest/objects' | grep -q 0x"
  hf_umount
else
  echo "not ok - a snapshot with deep nesting mounts"
fi
