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
#   the first mount (the JSON read; old index files removed first with
#   heapfs --forget): time until live and its ratio to cat, the daemon's
#   CPU time until then, its RssAnon (and bytes a node), the time until
#   the index file is written and its size; the first `cat latest/dominators` (dominators and retained
#   sizes of every object), then the daemon's VmHWM and RssAnon;
#   the second mount (the index file mapped, no JSON read): the same
#   figures, its `cat latest/dominators` mapping the results the first
#   kept.  The index files are removed at the end (heapfs --forget) unless
#   V8_KEEP_INDEX=1.
# Environment: HEAPFS (default ./heapfs), BENCH_DIR, V8_ITEMS, V8_RUNS,
# V8_KEEP_INDEX.
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



"$HEAPFS" --forget "$SNAP" >/dev/null 2>&1
bench_cleanup_extra() { [ "${V8_KEEP_INDEX:-0}" = 1 ] || "$HEAPFS" --forget "$SNAP" >/dev/null 2>&1; }
# stats_wait RE: seconds from now until a line of .stats matches RE (up
# to 5 minutes)
stats_wait() {
  local t0 i
  t0=$(now)
  for i in $(seq 1 6000); do
    grep -q "$1" "$MNT/.stats" && break
    sleep 0.05
  done
  echo "$(now) - $t0" | bc -l
}
# mount_figures N: mount number N, its figures as M<N>_* variables
TICK=$(getconf CLK_TCK)
cpu_secs() { awk -v t="$TICK" '{ print ($14 + $15) / t }' "/proc/$1/stat"; }
mount_figures() {
  bench_mount "$SNAP"
  eval "T_MOUNT$1=$T_MOUNT"
  eval "CPU_MOUNT$1=$(cpu_secs "$DPID")"
  eval "RSS_MOUNT$1=$(rss_anon_kb "$DPID")"
  eval "T_WRITE$1=$(stats_wait '^index: .*\(written to\|not written:\|not written (\|loaded from\)')"
  eval "STATS$1=\"$(grep '^index: ' "$MNT/.stats" | sed 's/"//g')\""
  EDGES=$(kv edges < "$MNT/latest/info")
  NODES=$(kv nodes < "$MNT/latest/info")
  eval "T_DOM$1=$(secs cat "$MNT/latest/dominators")"
  eval "HWM$1=$(hwm_kb "$DPID")"
  eval "RSS_DOM$1=$(rss_anon_kb "$DPID")"
  # the results file written before the unmount, for the next mount
  stats_wait 'retained sizes, snapshot 1: \(kept in\|not kept\|loaded from\|none\)' >/dev/null
  bench_umount
}
mount_figures 1
IX_SIZE=$(stat -c %s "$SNAP.heapfs-index" 2>/dev/null || echo 0)
mount_figures 2

mb() { f1 "$(echo "$1 / 1048576" | bc -l)"; }
x() { f1 "$(echo "$1 / $2" | bc -l)"; }
pernode() { f1 "$(echo "$1 * 1024 / $NODES" | bc -l)"; }
echo "| figure | value |"
echo "|---|---|"
echo "| snapshot | $(mb "$SIZE") MiB, $NODES nodes, $EDGES edges (node wrote it: $T_GEN) |"
echo "| cat (warm, median of $RUNS) | $(f2 "$T_CAT") s, $(f1 "$(echo "$SIZE / $T_CAT / 1048576" | bc -l)") MiB/s |"
echo "| heapfs --check (median of $RUNS) | $(f2 "$T_CHECK") s, $(x "$T_CHECK" "$T_CAT") x cat, $(f1 "$(echo "$SIZE / $T_CHECK / 1048576" | bc -l)") MiB/s |"
echo "| heapfs --check CPU time (user + sys, one run) | $(f2 "$CPU_CHECK") s, $(f1 "$(echo "$SIZE / $CPU_CHECK / 1048576" | bc -l)") MiB/s of CPU |"
echo "| heapfs --check peak RSS | $(mb "$((RSS_CHECK * 1024))") MiB ($(f1 "$(echo "$RSS_CHECK * 1024 / $SIZE" | bc -l)") x the file; $(pernode "$RSS_CHECK") bytes a node) |"
for n in 1 2; do
  eval "cpu=\$CPU_MOUNT$n tm=\$T_MOUNT$n rss=\$RSS_MOUNT$n tw=\$T_WRITE$n st=\$STATS$n td=\$T_DOM$n hwm=\$HWM$n rd=\$RSS_DOM$n"
  [ "$n" = 1 ] && what="first mount (JSON read)" || what="second mount (index file mapped)"
  echo "| $what: until live | $(f2 "$tm") s ($(x "$tm" "$T_CAT") x cat), daemon CPU $(f2 "$cpu") s, RssAnon $(mb "$((rss * 1024))") MiB ($(pernode "$rss") bytes a node) |"
  [ "$n" = 1 ] && echo "| first mount: index file written after live | $(f2 "$tw") s, $(mb "$IX_SIZE") MiB ($(f1 "$(echo "$IX_SIZE / $NODES" | bc -l)") bytes a node) |"
  echo "| $what: .stats | $st |"
  echo "| $what: first cat latest/dominators | $(f2 "$td") s |"
  echo "| $what: after it | VmHWM $(mb "$((hwm * 1024))") MiB, RssAnon $(mb "$((rd * 1024))") MiB ($(pernode "$rd") bytes a node) |"
done
echo "| second mount / first mount, until live | $(f2 "$(echo "$T_MOUNT2 / $T_MOUNT1" | bc -l)") |"
