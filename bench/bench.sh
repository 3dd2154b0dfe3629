#!/usr/bin/env bash
# bench.sh - how fast heapfs indexes a ~1 GB JVM heap dump, and how much
# memory the index takes.
#
# The dump is made by bench/MakeHeap.java (about 19 million objects, 1.0 GB)
# through the JVM's own HPROF writer, and cached as
# bench/out/bench-<hash of MakeHeap.java>.hprof, so reruns reuse it.
# Printed, in one table (medians of 3 runs where a run is cheap):
#   cat DUMP > /dev/null (page cache warm: one cat first), heapfs --check
#   (indexing, no mount), their ratio, indexing MB/s; index bytes per object
#   from --check's "index bytes:" and "objects:" lines, and the mounted
#   daemon's RssAnon (/proc/PID/status) per object; `ls latest/objects |
#   wc -l` (and `ls -f`, which does not sort, so it times heapfs rather than
#   ls's sort) with the daemon's RssAnon before and after (a listing that
#   streams leaves it flat); first and second `cat latest/histogram`; peak
#   RSS of --check (/usr/bin/time) and of the daemon (VmHWM), both of which
#   include the pages of the mapped dump.
# Targets, shown beside the figures: indexing <= 5x cat; index <= 16 bytes
# per object (goal 10).
#
# Environment: HEAPFS (default ./heapfs), BENCH_DUMP (use this dump instead),
# BENCH_SCALE (MakeHeap scale, default 1), BENCH_RUNS (default 3).
# The mount is always undone on exit, pass or fail.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 1
HEAPFS=${HEAPFS:-$ROOT/heapfs}
RUNS=${BENCH_RUNS:-3}
SCALE=${BENCH_SCALE:-1}
OUT=$ROOT/bench/out
mkdir -p "$OUT"

MNT=""
DPID=""
cleanup() {
  if [ -n "$MNT" ]; then
    mountpoint -q "$MNT" 2>/dev/null && { fusermount3 -u "$MNT" 2>/dev/null || fusermount3 -uz "$MNT" 2>/dev/null; }
  fi
  [ -n "$DPID" ] && kill "$DPID" 2>/dev/null && wait "$DPID" 2>/dev/null
  [ -n "$MNT" ] && rmdir "$MNT" 2>/dev/null
  rm -f "$OUT/bench.log.$$"
  [ -z "${TMPDUMP:-}" ] || rm -f "$TMPDUMP"   # a dump cut short by Ctrl-C
}
trap cleanup EXIT
trap 'exit 130' INT TERM

die() { echo "bench: $*" >&2; exit 1; }
[ -x "$HEAPFS" ] || die "$HEAPFS not found; run make first"

# ---- the dump ------------------------------------------------------------
if [ -n "${BENCH_DUMP:-}" ]; then
  DUMP=$BENCH_DUMP
else
  tag=$(cat bench/MakeHeap.java | sha1sum | cut -c1-8)
  [ "$SCALE" = 1 ] || tag=$tag-x$SCALE
  DUMP=$OUT/bench-$tag.hprof
  if [ ! -s "$DUMP" ]; then
    command -v javac >/dev/null && command -v java >/dev/null || die "java/javac needed to make the dump"
    echo "making $DUMP (once; cached) ..." >&2
    mkdir -p "$OUT/classes"
    javac -d "$OUT/classes" bench/MakeHeap.java || die "javac failed"
    # written under a temporary name and renamed when complete, so an
    # interrupted run leaves no half dump to reuse; the name must end in
    # .hprof (HotSpotDiagnosticMXBean.dumpHeap refuses any other), and
    # must not exist yet (dumpHeap will not overwrite)
    TMPDUMP=${DUMP%.hprof}.tmp.hprof
    rm -f "$TMPDUMP"
    timeout 1200 java -Xmx6g -XX:+UseParallelGC -cp "$OUT/classes" MakeHeap "$TMPDUMP" "$SCALE" >&2 ||
      { rm -f "$TMPDUMP"; die "MakeHeap failed"; }
    mv "$TMPDUMP" "$DUMP"
  fi
fi
[ -r "$DUMP" ] || die "cannot read $DUMP"
SIZE=$(stat -c %s "$DUMP")

# ---- helpers -----------------------------------------------------------------
source "$ROOT/bench/lib.sh"
catfile() { cat "$1"; }

# ---- cat vs --check ------------------------------------------------------------
cat "$DUMP" >/dev/null
T_CAT=$(runs $((RUNS < 5 ? 5 : RUNS)) catfile "$DUMP") || die "cat failed"
"$HEAPFS" --check "$DUMP" >"$OUT/check.out" 2>&1 || { cat "$OUT/check.out" >&2; die "heapfs --check failed"; }
T_CHECK=$(runs "$RUNS" "$HEAPFS" --check "$DUMP") || die "heapfs --check failed"
PEAK=""
if [ -x /usr/bin/time ]; then
  /usr/bin/time -f '%M' -o "$OUT/check.time" "$HEAPFS" --check "$DUMP" >/dev/null 2>&1 && PEAK=$(tail -1 "$OUT/check.time")
fi
OBJECTS=$(kv objects <"$OUT/check.out")
INDEX_BYTES=$(kv "index bytes" <"$OUT/check.out")
[ -n "$OBJECTS" ] && [ "$OBJECTS" -gt 0 ] 2>/dev/null || die "no 'objects:' line in --check output"

# ---- the mount ------------------------------------------------------------------
MNT=$(mktemp -d "${TMPDIR:-/tmp}/heapfs-bench.XXXXXX")
t0=$(now)
"$HEAPFS" -f "$DUMP" "$MNT" 2>"$OUT/mount.log" &
DPID=$!
up=0
for _ in $(seq 1 3000); do   # up to 5 minutes
  mountpoint -q "$MNT" && { up=1; break; }
  kill -0 "$DPID" 2>/dev/null || break
  sleep 0.1
done
[ "$up" = 1 ] || { cat "$OUT/mount.log" >&2; die "mount did not come up"; }
T_MOUNT=$(echo "$(now) - $t0" | bc -l)
sleep 1
RSS0=$(rss_anon_kb "$DPID")
t0=$(now)
NLS=$(ls "$MNT/latest/objects" | wc -l)
T_LS=$(echo "$(now) - $t0" | bc -l)
RSS1=$(rss_anon_kb "$DPID")
t0=$(now)
NLSF=$(ls -f "$MNT/latest/objects" | wc -l)
T_LSF=$(echo "$(now) - $t0" | bc -l)
t0=$(now); cat "$MNT/latest/histogram" >/dev/null; T_H1=$(echo "$(now) - $t0" | bc -l)
t0=$(now); cat "$MNT/latest/histogram" >/dev/null; T_H2=$(echo "$(now) - $t0" | bc -l)
RSS2=$(rss_anon_kb "$DPID")
HWM=$(hwm_kb "$DPID")
RSSF=$(awk '/^RssFile:/ { print $2 }' "/proc/$DPID/status")

# ---- report -----------------------------------------------------------------------
RATIO=$(echo "$T_CHECK / $T_CAT" | bc -l)
MBS=$(echo "$SIZE / 1000000 / $T_CHECK" | bc -l)
BPO=$(echo "${INDEX_BYTES:-0} / $OBJECTS" | bc -l)
RPO=$(echo "$RSS0 * 1024 / $OBJECTS" | bc -l)
verdict() { if [ "$(echo "$1" | bc -l)" = 1 ]; then echo "met"; else echo "MISSED"; fi; }
row() { printf '%-40s %22s   %s\n' "$1" "$2" "${3:-}"; }

echo "heapfs bench: $(basename "$DUMP"), $(f2 "$(echo "$SIZE / 1000000000" | bc -l)") GB, $OBJECTS objects; $(nproc) cpus; medians of $RUNS"
row "figure" "value" "target"
row "cat dump > /dev/null (warm)" "$(f2 "$T_CAT") s"
row "heapfs --check (indexing)" "$(f2 "$T_CHECK") s"
row "  indexing / cat" "$(f1 "$RATIO")x" "<= 5x: $(verdict "$RATIO <= 5")"
row "  indexing throughput" "$(f1 "$MBS") MB/s"
if [ -n "$INDEX_BYTES" ]; then
  row "index bytes / object (info)" "$(f1 "$BPO") B" "<= 16 (goal 10): $(verdict "$BPO <= 16")"
else
  row "index bytes / object (info)" "n/a (no 'index bytes:')" "<= 16 (goal 10)"
fi
row "daemon RssAnon / object after mount" "$(f1 "$RPO") B" "<= 16 (goal 10): $(verdict "$RPO <= 16")"
row "mount (until mountpoint)" "$(f2 "$T_MOUNT") s"
row "ls latest/objects | wc -l" "$(f2 "$T_LS") s" "$NLS entries ($( [ "$NLS" = "$OBJECTS" ] && echo "= objects" || echo "!= objects $OBJECTS"))"
row "ls -f latest/objects | wc -l (no sort)" "$(f2 "$T_LSF") s" "$((NLSF - 2)) entries + . and .."
row "  daemon RssAnon before / after ls" "$((RSS0 / 1024)) / $((RSS1 / 1024)) MiB" "growth $(((RSS1 - RSS0) / 1024)) MiB"
row "cat latest/histogram, 1st / 2nd" "$(f2 "$T_H1") / $(f2 "$T_H2") s"
row "daemon RssAnon / RssFile at end" "$((RSS2 / 1024)) / $((RSSF / 1024)) MiB" "RssFile: pages of the mapped dump"
row "daemon VmHWM (anon + mapped file)" "$((HWM / 1024)) MiB"
[ -n "$PEAK" ] && row "heapfs --check peak RSS (anon + file)" "$((PEAK / 1024)) MiB"
