#!/usr/bin/env bash
# bench_v8.sh - heapfs on a big V8 heap snapshot (about 500 MB), written by
# Node.js itself: V8_ITEMS (default 1500000) objects of a class Item, each
# with a unique string, a two-element array and a link to the one before
# (chains of 100), all in one global array, every tenth also in a Map.
#
# The snapshot is made once, as $BENCH_DIR/items-N.heapsnapshot (default
# /tmp/bench-v8), and reused while it is there.  Printed, in one table:
#   the snapshot: size, nodes, edges (its own info), and the time node took;
#   cat FILE > /dev/null, warm (median of V8_RUNS, default 3): the floor;
#   heapfs --check (parse, DevTools' derivations, the heap index; warm; median)
#   and its ratio to cat, its CPU time and peak RSS (/usr/bin/time: on this
#   shared machine wall times follow the load, CPU times much less);
#   the mount: time until live and the daemon's RssAnon;
#   the first `cat latest/dominators` (dominators and retained sizes of every
#   object), then the daemon's VmHWM (anonymous memory and the file's pages)
#   and RssAnon.
# Environment: HEAPFS (default ./heapfs), BENCH_DIR, V8_ITEMS, V8_RUNS.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 1
OUT=${BENCH_DIR:-/tmp/bench-v8}
RUNS=${V8_RUNS:-3}
ITEMS=${V8_ITEMS:-1500000}
mkdir -p "$OUT"
source "$ROOT/bench/lib.sh"
command -v node >/dev/null || die "node (package nodejs) needed to make the snapshot"

SNAP=$OUT/items-$ITEMS.heapsnapshot
T_GEN=cached
if [ ! -s "$SNAP" ]; then
  cat > "$OUT/items.js" <<'EOF'
'use strict'
const v8 = require('v8')
const n = Number(process.argv[3])
class Item {
  constructor (i, prev) { this.id = i; this.name = 'item-' + i; this.prev = prev; this.tags = [i, i + 1] }
}
globalThis.items = []
let prev = null
for (let i = 0; i < n; i++) { prev = new Item(i, i % 100 ? prev : null); globalThis.items.push(prev) }
globalThis.byName = new Map()
for (let i = 0; i < n; i += 10) globalThis.byName.set(globalThis.items[i].name, globalThis.items[i])
v8.writeHeapSnapshot(process.argv[2])
EOF
  TMPDUMP=$SNAP.tmp
  t0=$(now)
  node --max-old-space-size=16000 "$OUT/items.js" "$TMPDUMP" "$ITEMS" >&2 || die "node failed"
  T_GEN="$(f1 "$(echo "$(now) - $t0" | bc -l)") s"
  mv "$TMPDUMP" "$SNAP"
  TMPDUMP=""
fi
SIZE=$(stat -c %s "$SNAP")

T_CAT=$(runs "$RUNS" cat "$SNAP") || die "cat failed"
T_CHECK=$(runs "$RUNS" "$HEAPFS" --check "$SNAP") || die "heapfs --check failed"
read -r RSS_CHECK CPU_CHECK < <( { /usr/bin/time -f '%M %U %S' "$HEAPFS" --check "$SNAP" >"$OUT/check.out"; } 2>&1 |
  tail -1 | awk '{print $1, $2 + $3}')



bench_mount "$SNAP"
RSS_MOUNT=$(rss_anon_kb "$DPID")
EDGES=$(kv edges < "$MNT/latest/info")
NODES=$(kv nodes < "$MNT/latest/info")
T_DOM=$(secs cat "$MNT/latest/dominators")
HWM=$(hwm_kb "$DPID")
RSS_DOM=$(rss_anon_kb "$DPID")
bench_umount

mb() { echo "scale=1; $1 / 1048576" | bc -l; }
echo "| figure | value |"
echo "|---|---|"
echo "| snapshot | $(mb "$SIZE") MiB, $NODES nodes, $EDGES edges (node wrote it: $T_GEN) |"
echo "| cat (warm, median of $RUNS) | $(f2 "$T_CAT") s, $(f1 "$(echo "$SIZE / $T_CAT / 1048576" | bc -l)") MiB/s |"
echo "| heapfs --check (median of $RUNS) | $(f2 "$T_CHECK") s, $(f1 "$(echo "$T_CHECK / $T_CAT" | bc -l)") x cat, $(f1 "$(echo "$SIZE / $T_CHECK / 1048576" | bc -l)") MiB/s |"
echo "| heapfs --check CPU time (user + sys, one run) | $(f2 "$CPU_CHECK") s, $(f1 "$(echo "$SIZE / $CPU_CHECK / 1048576" | bc -l)") MiB/s of CPU |"
echo "| heapfs --check peak RSS | $(mb "$((RSS_CHECK * 1024))") MiB ($(f1 "$(echo "$RSS_CHECK * 1024 / $SIZE" | bc -l)") x the file; $(f1 "$(echo "$RSS_CHECK * 1024 / $NODES" | bc -l)") bytes a node) |"
echo "| mount: until live | $(f2 "$T_MOUNT") s, RssAnon $(mb "$((RSS_MOUNT * 1024))") MiB |"
echo "| first cat latest/dominators | $(f2 "$T_DOM") s |"
echo "| after it | VmHWM $(mb "$((HWM * 1024))") MiB, RssAnon $(mb "$((RSS_DOM * 1024))") MiB |"
