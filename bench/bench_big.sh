#!/usr/bin/env bash
# bench_big.sh - heapfs on a generated HPROF dump of about 10 GB (issue 13:
# dumps of tens of gigabytes), where bench.sh's 1 GB JVM dump would need a
# JVM heap this machine cannot give.
#
# The dump is written by build/hprofgen (tests/programs/hprofgen/hprofgen.c)
# as $BENCH_DIR/big.hprof (default /tmp/bench-big), once: its command line is
# kept in $BENCH_DIR/hprofgen.args and its size in hprofgen.size, and a later
# run reuses the file when both match (delete big.hprof to free the space; the
# args file says how to make it again).  hprofgen.log keeps the generation's
# time, from the run that made it.
# Printed, in one table:
#   generation: time, size, objects (the generator's own summary);
#   cat DUMP > /dev/null with this file's pages evicted first
#   (posix_fadvise DONTNEED on the file only: the machine's other page cache
#   is left alone; /proc/sys/vm/drop_caches needs root) and then warm;
#   heapfs --check (indexing, warm cache; median of BIG_RUNS, default 3) and
#   its ratio to the warm cat, its peak RSS (/usr/bin/time: anon + mapped
#   dump pages); index bytes and bytes per object (info's "index bytes:");
#   the mount: time until live, the daemon's RssAnon (/proc/PID/status);
#   the first `cat latest/dominators` (dominator tree and retained sizes of
#   every object), the daemon's RssAnon polled every 0.2 s during it (peak),
#   after it, and its VmHWM (anon + mapped dump pages); .stats's own line;
#   then the index file and the dominator results file that first mount
#   wrote (sizes), and a remount that maps them: time until live, RssAnon,
#   the first `cat latest/dominators` (loaded, not computed).
#
# Environment: HEAPFS (default ./heapfs), BENCH_DIR, BIG_OBJECTS (default
# 200000000), BIG_CLASSES (default 2000), BIG_SEED (default 1), BIG_RUNS;
# BIG_GENERATE_ONLY=1 makes (or checks) the dump and stops.
# Needs about 20 GB of disk in BENCH_DIR (the dump, its index file and the
# dominator results file) and, for the dominators, about 60 bytes of memory
# per object.  The mount is always undone on exit.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 1
OUT=${BENCH_DIR:-/tmp/bench-big}
RUNS=${BIG_RUNS:-3}
mkdir -p "$OUT"
source "$ROOT/bench/lib.sh"
[ -x "$HEAPFS" ] || die "$HEAPFS not found; run make first"
GEN=$ROOT/build/hprofgen
[ -x "$GEN" ] || make -s build/hprofgen >&2 || die "cannot build $GEN"

POLL_PID=""
bench_cleanup_extra() {
  [ -z "$POLL_PID" ] || kill "$POLL_PID" 2>/dev/null
  wait 2>/dev/null
}

# ---- the dump -------------------------------------------------------------------
DUMP=$OUT/big.hprof
ARGS="-n ${BIG_OBJECTS:-200000000} -c ${BIG_CLASSES:-2000} -s ${BIG_SEED:-1}"
if [ -s "$DUMP" ] && [ "$(cat "$OUT/hprofgen.args" 2>/dev/null)" = "$ARGS" ] &&
   [ "$(stat -c %s "$DUMP")" = "$(cat "$OUT/hprofgen.size" 2>/dev/null)" ]; then
  echo "reusing $DUMP ($ARGS)" >&2
else
  echo "generating $DUMP: hprofgen $ARGS ..." >&2
  rm -f "$DUMP" "$OUT/hprofgen.size"
  echo "$ARGS" >"$OUT/hprofgen.args"
  TMPDUMP=$OUT/big.tmp.hprof   # removed by lib.sh's cleanup if cut short
  # shellcheck disable=SC2086  # ARGS is words
  "$GEN" $ARGS -o "$TMPDUMP" -F "$OUT/facts" -H "$OUT/histogram" 2>"$OUT/hprofgen.log" ||
    { cat "$OUT/hprofgen.log" >&2; die "hprofgen failed"; }
  mv "$TMPDUMP" "$DUMP"
  TMPDUMP=""
  stat -c %s "$DUMP" >"$OUT/hprofgen.size"
fi
SIZE=$(stat -c %s "$DUMP")
[ "${BIG_GENERATE_ONLY:-0}" = 1 ] && exit 0
GENLINE=$(tail -1 "$OUT/hprofgen.log" 2>/dev/null | sed 's/^hprofgen: [^:]*: //')
T_GEN=$(sed -n 's/.*, \([0-9.]*\) s (.*/\1/p' <<<"$GENLINE")

# ---- cat: this file's pages evicted, then warm --------------------------------------
evict() { python3 -c 'import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)' "$1"; }
T_COLD=""
if evict "$DUMP" 2>/dev/null; then
  T_COLD=$(secs cat "$DUMP") || die "cat failed"
fi
cat "$DUMP" >/dev/null
T_CAT=$(runs 3 cat "$DUMP") || die "cat failed"

# ---- indexing -------------------------------------------------------------------------
"$HEAPFS" --check "$DUMP" >"$OUT/check.out" 2>&1 || { cat "$OUT/check.out" >&2; die "heapfs --check failed"; }
T_CHECK=$(runs "$RUNS" "$HEAPFS" --check "$DUMP") || die "heapfs --check failed"
PEAK=""
if [ -x /usr/bin/time ]; then
  /usr/bin/time -f '%M' -o "$OUT/check.time" "$HEAPFS" --check "$DUMP" >/dev/null 2>&1 &&
    PEAK=$(tail -1 "$OUT/check.time")
fi
OBJECTS=$(kv objects <"$OUT/check.out")
INDEX_BYTES=$(kv "index bytes" <"$OUT/check.out")
[ -n "$OBJECTS" ] && [ "$OBJECTS" -gt 0 ] 2>/dev/null || die "no 'objects:' line in --check output"
grep -q '^size rule: 64-bit JVM, layout from the object addresses' "$OUT/check.out" ||
  echo "warning: the size rule was not inferred from the addresses" >&2

# ---- the mount and the dominators -------------------------------------------------------
# A first mount builds the index (no index file of an earlier run is used)
# and writes the index file and, after the dominators, their results file.
rm -f "$DUMP".heapfs-index "$DUMP".heapfs-index.*
bench_mount "$DUMP"
T_MOUNT1=$T_MOUNT
sleep 1
RSS_MOUNT=$(rss_anon_kb "$DPID")
echo 0 >"$OUT/rss_peak"
( peak=0
  while kill -0 "$DPID" 2>/dev/null; do
    r=$(rss_anon_kb "$DPID" 2>/dev/null) || break
    [ -n "$r" ] && [ "$r" -gt "$peak" ] && { peak=$r; echo "$peak" >"$OUT/rss_peak"; }
    sleep 0.2
  done ) &
POLL_PID=$!
t0=$(now)
cat "$MNT/latest/dominators" >"$OUT/dominators" || die "cat dominators failed"
T_DOM=$(echo "$(now) - $t0" | bc -l)
kill "$POLL_PID" 2>/dev/null; wait "$POLL_PID" 2>/dev/null; POLL_PID=""
RSS_PEAK=$(cat "$OUT/rss_peak")
RSS_AFTER=$(rss_anon_kb "$DPID")
HWM=$(hwm_kb "$DPID")
STATS=$(grep 'retained sizes' "$MNT/.stats" | head -1)
t0=$(now); cat "$MNT/latest/dominators" >/dev/null; T_DOM2=$(echo "$(now) - $t0" | bc -l)
# wait (10 minutes at most) until both files are written, then remount
for _ in $(seq 1 3000); do
  grep -q '^index: .*\(written to\|not written\)' "$MNT/.stats" &&
    grep -q 'kept in\|not kept' "$MNT/.stats" && break
  sleep 0.2
done
KEPT=$(grep -o 'kept in [^ ]* ([0-9.]* s)\|not kept.*' "$MNT/.stats" | head -1)
bench_umount
IX_BYTES=$(stat -c %s "$DUMP".heapfs-index 2>/dev/null || echo 0)
RES_BYTES=$(cat "$DUMP".heapfs-index.retained-* 2>/dev/null | wc -c)
bench_mount "$DUMP"
T_REMOUNT=$T_MOUNT
RSS_REMOUNT=$(rss_anon_kb "$DPID")
IX_LINE=$(grep '^index: ' "$MNT/.stats" | head -1)
t0=$(now); cat "$MNT/latest/dominators" >/dev/null; T_DOM3=$(echo "$(now) - $t0" | bc -l)
RSS_REMOUNT2=$(rss_anon_kb "$DPID")
bench_umount
bench_mount "$DUMP"   # again: the index file's pages now cached
T_REMOUNT2=$T_MOUNT
IX_LINE2=$(grep '^index: ' "$MNT/.stats" | head -1)
bench_umount

# ---- report ---------------------------------------------------------------------------
row() { printf '%-44s %24s   %s\n' "$1" "$2" "${3:-}"; }
mib() { echo "$(($1 / 1024)) MiB"; }
bpo() { f1 "$(echo "$1 / $OBJECTS" | bc -l)"; }
echo "heapfs big bench: $DUMP, $(f2 "$(echo "$SIZE / 1000000000" | bc -l)") GB, $OBJECTS objects; hprofgen $ARGS; $(nproc) cpus"
row "figure" "value" "per object / ratio"
row "generation (hprofgen, when it was made)" "${T_GEN:-?} s" "$GENLINE"
if [ -n "$T_COLD" ]; then
  row "cat dump > /dev/null, its pages evicted" "$(f2 "$T_COLD") s" "$(f1 "$(echo "$SIZE / 1000000 / $T_COLD" | bc -l)") MB/s"
else
  row "cat dump > /dev/null, its pages evicted" "n/a" "posix_fadvise failed"
fi
row "cat dump > /dev/null, warm (median of 3)" "$(f2 "$T_CAT") s" "$(f1 "$(echo "$SIZE / 1000000 / $T_CAT" | bc -l)") MB/s"
row "heapfs --check (indexing, median of $RUNS)" "$(f2 "$T_CHECK") s" "$(f1 "$(echo "$SIZE / 1000000 / $T_CHECK" | bc -l)") MB/s"
row "  indexing / warm cat" "$(f1 "$(echo "$T_CHECK / $T_CAT" | bc -l)")x"
[ -n "$T_COLD" ] && row "  indexing / cat with pages evicted" "$(f1 "$(echo "$T_CHECK / $T_COLD" | bc -l)")x"
[ -n "$PEAK" ] && row "  --check peak RSS (anon + mapped dump)" "$(mib "$PEAK")"
row "index bytes (info)" "${INDEX_BYTES:-n/a}" "${INDEX_BYTES:+$(bpo "$INDEX_BYTES") B}"
row "mount (until the mount point is live)" "$(f2 "$T_MOUNT1") s"
row "daemon RssAnon after mount" "$(mib "$RSS_MOUNT")" "$(bpo "$((RSS_MOUNT * 1024))") B"
row "first cat latest/dominators" "$(f2 "$T_DOM") s" "$(wc -l <"$OUT/dominators") lines"
row "  daemon RssAnon peak during it (0.2 s polls)" "$(mib "$RSS_PEAK")" "$(bpo "$((RSS_PEAK * 1024))") B"
row "  daemon RssAnon after it" "$(mib "$RSS_AFTER")" "$(bpo "$((RSS_AFTER * 1024))") B"
row "  daemon VmHWM (anon + mapped dump)" "$(mib "$HWM")"
row "second cat latest/dominators" "$(f2 "$T_DOM2") s"
row "  dominator results written after it" "${KEPT:-?}"
row "index file; dominator results file" "$(mib "$((IX_BYTES / 1024))")" "$(mib "$((RES_BYTES / 1024))")"
row "remount (index file mapped; 0.05 s polls)" "$(f2 "$T_REMOUNT") s" "${IX_LINE:-}"
row "  daemon RssAnon after the remount" "$(mib "$RSS_REMOUNT")"
row "a second remount" "$(f2 "$T_REMOUNT2") s" "${IX_LINE2:-}"
row "  first cat latest/dominators (results mapped)" "$(f2 "$T_DOM3") s" "RssAnon after: $(mib "$RSS_REMOUNT2")"
echo ".stats: ${STATS:-none}"
