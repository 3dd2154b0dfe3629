#!/usr/bin/env bash
# bench_v8_series.sh - heapfs on a series of three V8 heap snapshots of one
# Node.js process (a few hundred MB each): V8_ITEMS (default 1000000)
# objects of a class Item before the first (as bench_v8.sh makes them: a
# unique string, a two-element array, a link to the one before), and
# V8_ITEMS / 5 more before each of the other two.
#
# The snapshots are made once, as $BENCH_DIR/series-N.{1,2,3}.heapsnapshot
# (default /tmp/bench-v8), and reused while they are there.  Printed, in
# one table: the files' sizes and nodes; `cat` of the three (warm, median
# of V8_RUNS, default 3); the first mount of the series (every JSON file
# read; old index files removed first with heapfs --forget): time until
# live, the daemon's CPU time until then, and the time until the three
# index files are written after it, and their size; the second mount (the
# three index files mapped, no JSON read): time until live and CPU time;
# in each, the time to read the three snapshots' dominators (computed in
# the first mount, the results files it kept loaded in the second).
# The index files are removed at the end (heapfs --forget) unless
# V8_KEEP_INDEX=1, the snapshots unless V8_KEEP_SNAPSHOTS=1.
# Environment: HEAPFS (default ./heapfs), BENCH_DIR, V8_ITEMS, V8_RUNS,
# V8_KEEP_INDEX, V8_KEEP_SNAPSHOTS.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 1
OUT=${BENCH_DIR:-/tmp/bench-v8}
RUNS=${V8_RUNS:-3}
ITEMS=${V8_ITEMS:-1000000}
mkdir -p "$OUT"
source "$ROOT/bench/lib.sh"
command -v node >/dev/null || die "node (package nodejs) needed to make the snapshots"

S=("$OUT/series-$ITEMS.1.heapsnapshot" "$OUT/series-$ITEMS.2.heapsnapshot" "$OUT/series-$ITEMS.3.heapsnapshot")
T_GEN=cached
if [ ! -s "${S[2]}" ]; then
  cat > "$OUT/series.js" <<'EOF'
'use strict'
const v8 = require('v8')
const prefix = process.argv[2]
const n = Number(process.argv[3])
class Item {
  constructor (i, prev) { this.id = i; this.name = 'item-' + i; this.prev = prev; this.tags = [i, i + 1] }
}
globalThis.items = []
let prev = null
function add (count) {
  for (let i = globalThis.items.length, end = i + count; i < end; i++) {
    prev = new Item(i, i % 100 ? prev : null)
    globalThis.items.push(prev)
  }
}
add(n)
for (let k = 1; k <= 3; k++) {
  if (k > 1) add(n / 5)
  v8.writeHeapSnapshot(prefix + '.' + k + '.tmp')
}
EOF
  t0=$(now)
  node --max-old-space-size=16000 "$OUT/series.js" "$OUT/series-$ITEMS" "$ITEMS" >&2 ||
    { rm -f "$OUT/series-$ITEMS".*.tmp; die "node failed"; }
  T_GEN="$(f1 "$(echo "$(now) - $t0" | bc -l)") s"
  for k in 1 2 3; do mv "$OUT/series-$ITEMS.$k.tmp" "${S[k - 1]}"; done
fi
SIZE=$(stat -c %s "${S[@]}" | awk '{ n += $1 } END { print n }')

T_CAT=$(runs "$RUNS" cat "${S[@]}") || die "cat failed"
"$HEAPFS" --forget "${S[@]}" >/dev/null 2>&1
bench_cleanup_extra() {
  [ "${V8_KEEP_INDEX:-0}" = 1 ] || "$HEAPFS" --forget "${S[@]}" >/dev/null 2>&1
  [ "${V8_KEEP_SNAPSHOTS:-0}" = 1 ] || rm -f "${S[@]}" "$OUT/series.js"
}
TICK=$(getconf CLK_TCK)
cpu_secs() { awk -v t="$TICK" '{ print ($14 + $15) / t }' "/proc/$1/stat"; }
# written_wait: seconds from now until .stats says each of the three index
# files was written, or loaded (up to 10 minutes)
written_wait() {
  local t0 i
  t0=$(now)
  for i in $(seq 1 12000); do
    [ "$(grep -c '^index: snapshot [123]: .*\(written to\|not written\|loaded from\)' "$MNT/.stats")" = 3 ] &&
      ! grep -q 'not written yet' "$MNT/.stats" && break
    sleep 0.05
  done
  echo "$(now) - $t0" | bc -l
}
# mount_figures N: mount number N of the series, its figures as M<N>_*
# (bench_mount puts its FILE last: the last snapshot goes there)
mount_figures() {
  bench_mount "${S[2]}" "${S[0]}" "${S[1]}"
  eval "T_MOUNT$1=$T_MOUNT"
  eval "CPU_MOUNT$1=$(cpu_secs "$DPID")"
  eval "T_WRITE$1=$(written_wait)"
  eval "STATS$1=\"$(grep '^index: ' "$MNT/.stats" | sed 's/"//g' | paste -sd ';' | sed 's/;/; /g')\""
  local t0 k i
  t0=$(now)
  for k in 1 2 3; do cat "$MNT/snapshots/$k/dominators" >/dev/null; done
  eval "T_DOM$1=$(echo "$(now) - $t0" | bc -l)"
  for i in $(seq 1 6000); do # the results files written before the unmount
    [ "$(grep -c '^retained sizes, snapshot [123]: \(kept in\|not kept\|loaded from\)' "$MNT/.stats")" = 3 ] && break
    sleep 0.05
  done
  eval "KEPT$1=\"$(grep '^retained sizes, snapshot [123]: \(kept\|not kept\|loaded\)' "$MNT/.stats" | sed 's/ in [0-9.]* s.*//; s/"//g' | paste -sd ';' | sed 's/;/; /g')\""
  NODES=$(for k in 1 2 3; do kv nodes < "$MNT/snapshots/$k/info"; done | tr '\n' ' ')
  bench_umount
}
mount_figures 1
IX_SIZE=$(stat -c %s "${S[@]/%/.heapfs-index}" 2>/dev/null | awk '{ n += $1 } END { print n + 0 }')
mount_figures 2

mb() { f1 "$(echo "$1 / 1048576" | bc -l)"; }
x() { f1 "$(echo "$1 / $2" | bc -l)"; }
echo "| figure | value |"
echo "|---|---|"
echo "| snapshots | 3, $(mb "$SIZE") MiB in all ($(stat -c %s "${S[@]}" | awk '{ printf "%.0f ", $1 / 1048576 }')MiB), nodes $NODES(node wrote them: $T_GEN) |"
echo "| cat of the three (warm, median of $RUNS) | $(f2 "$T_CAT") s |"
echo "| first mount (JSON read): until live | $(f2 "$T_MOUNT1") s ($(x "$T_MOUNT1" "$T_CAT") x cat), daemon CPU $(f2 "$CPU_MOUNT1") s |"
echo "| first mount: the three index files written after live | $(f2 "$T_WRITE1") s, $(mb "$IX_SIZE") MiB in all |"
echo "| second mount (index files mapped): until live | $(f2 "$T_MOUNT2") s ($(x "$T_MOUNT2" "$T_CAT") x cat), daemon CPU $(f2 "$CPU_MOUNT2") s |"
echo "| second mount: .stats | $STATS2 |"
echo "| dominators of the three: first mount (computed) / second (results files loaded) | $(f2 "$T_DOM1") s / $(f2 "$T_DOM2") s |"
echo "| second mount: retained sizes | $KEPT2 |"
echo "| second mount / first mount, until live; CPU | $(f2 "$(echo "$T_MOUNT2 / $T_MOUNT1" | bc -l)"); $(f2 "$(echo "$CPU_MOUNT2 / $CPU_MOUNT1" | bc -l)") |"
