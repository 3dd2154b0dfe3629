#!/usr/bin/env bash
# bench.sh - how fast heapfs indexes a ~1 GB JVM heap dump, and how much
# memory the index takes.
#
# The dump is made by bench/MakeHeap.java (about 19 million objects, 1.0 GB)
# through the JVM's own HPROF writer, and cached as
# bench/out/bench-<hash of MakeHeap.java>.hprof, so reruns reuse it.
# Printed, in one table (medians of 3 runs where a run is cheap):
#   cat DUMP > /dev/null (page cache warm: one cat first), a plain read()
#   of it (dd, 1 MiB blocks), heapfs --check (indexing, no mount) with the
#   default threads (one per processor) and with HEAPFS_THREADS=1 and 2,
#   each one's ratio to the read, indexing MB/s; index bytes per object
#   from --check's "index bytes:" and "objects:" lines, and the mounted
#   daemon's RssAnon (/proc/PID/status) per object; `ls latest/objects |
#   wc -l` (and `ls -f`, which does not sort, so it times heapfs rather than
#   ls's sort) with the daemon's RssAnon before and after (a listing that
#   streams leaves it flat); first and second `cat latest/histogram`; peak
#   RSS of --check (/usr/bin/time) and of the daemon (VmHWM), both of which
#   include the pages of the mapped dump.  The mount above is -o index=none;
#   then the index file: the first mount that writes it (and how long the
#   writing after the mount took), its size per object, the remount that
#   maps it (median of RUNS) and the daemon's RssAnon after a remount.
# Targets, shown beside the figures: indexing <= 5x cat and <= 0.5 s; index
# <= 16 bytes per object (goal 10).
#
# Environment: HEAPFS (default ./heapfs), BENCH_DUMP (use this dump instead),
# BENCH_SCALE (MakeHeap scale, default 1), BENCH_RUNS (default 3).
# The mount is always undone on exit, pass or fail.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 1
RUNS=${BENCH_RUNS:-3}
OUT=$ROOT/bench/out
mkdir -p "$OUT"
source "$ROOT/bench/lib.sh"
[ -x "$HEAPFS" ] || die "$HEAPFS not found; run make first"
bench_dump
catfile() { cat "$1"; }
readfile() { dd if="$1" of=/dev/null bs=1M status=none; }
threads() { HEAPFS_THREADS=$1 "${@:2}"; }

# ---- cat vs --check ------------------------------------------------------------
cat "$DUMP" >/dev/null
T_CAT=$(runs $((RUNS < 5 ? 5 : RUNS)) catfile "$DUMP") || die "cat failed"
"$HEAPFS" --check "$DUMP" >"$OUT/check.out" 2>&1 || { cat "$OUT/check.out" >&2; die "heapfs --check failed"; }
T_READ=$(runs $((RUNS < 5 ? 5 : RUNS)) readfile "$DUMP") || die "dd failed"
T_CHECK=$(runs "$RUNS" "$HEAPFS" --check "$DUMP") || die "heapfs --check failed"
T_CHECK1=$(runs "$RUNS" threads 1 "$HEAPFS" --check "$DUMP") || die "heapfs --check failed"
T_CHECK2=$(runs "$RUNS" threads 2 "$HEAPFS" --check "$DUMP") || die "heapfs --check failed"
PEAK=""
if [ -x /usr/bin/time ]; then
  /usr/bin/time -f '%M' -o "$OUT/check.time" "$HEAPFS" --check "$DUMP" >/dev/null 2>&1 && PEAK=$(tail -1 "$OUT/check.time")
fi
OBJECTS=$(kv objects <"$OUT/check.out")
INDEX_BYTES=$(kv "index bytes" <"$OUT/check.out")
[ -n "$OBJECTS" ] && [ "$OBJECTS" -gt 0 ] 2>/dev/null || die "no 'objects:' line in --check output"

# ---- the mount ------------------------------------------------------------------
bench_mount "$DUMP" -o index=none   # indexing: no index file read or written
T_MOUNT0=$T_MOUNT
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

# ---- the index file: first mount writes it, remounts map it ---------------------
# medians of RUNS: mounts with -o index=none, and first mounts that write the file
IXF=$DUMP.heapfs-index
nones=(); writes=(); wtimes=()
for ((i = 0; i < RUNS; i++)); do
  bench_mount "$DUMP" -o index=none
  nones+=("$T_MOUNT")
  rm -f "$IXF" "$IXF".retained-*
  bench_mount "$DUMP"
  writes+=("$T_MOUNT")
  for _ in $(seq 1 600); do grep -q '^index: .*\(written to\|not written:\|not written (\)' "$MNT/.stats" && break; sleep 0.1; done
  wtimes+=("$(sed -n 's/^index: .*written to .* in \([0-9.]*\) s.*/\1/p' "$MNT/.stats")")
done
T_NONE=$(median "${nones[@]}")
T_MOUNT_W=$(median "${writes[@]}")
T_WRITE=$(median "${wtimes[@]}")
IX_SIZE=$(stat -c %s "$IXF" 2>/dev/null || echo 0)
remounts=()
for ((i = 0; i < RUNS; i++)); do
  bench_mount "$DUMP"
  grep -q '^index: loaded' "$MNT/.stats" || die "remount did not load $IXF"
  remounts+=("$T_MOUNT")
done
T_REMOUNT=$(median "${remounts[@]}")
RSS_RE=$(rss_anon_kb "$DPID")
bench_umount

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
row "read() of the dump (dd bs=1M, warm)" "$(f2 "$T_READ") s"
row "heapfs --check (indexing), $(grep -o '[0-9]* threads*$' "$OUT/check.out")" "$(f2 "$T_CHECK") s" "<= 0.5 s: $(verdict "$T_CHECK <= 0.5")"
row "  indexing / cat" "$(f1 "$RATIO")x" "<= 5x: $(verdict "$RATIO <= 5")"
row "  indexing / read()" "$(f1 "$(echo "$T_CHECK / $T_READ" | bc -l)")x"
row "  indexing throughput" "$(f1 "$MBS") MB/s"
row "  HEAPFS_THREADS=1: indexing, / read()" "$(f2 "$T_CHECK1") s, $(f1 "$(echo "$T_CHECK1 / $T_READ" | bc -l)")x"
row "  HEAPFS_THREADS=2: indexing, / read()" "$(f2 "$T_CHECK2") s, $(f1 "$(echo "$T_CHECK2 / $T_READ" | bc -l)")x"
if [ -n "$INDEX_BYTES" ]; then
  row "index bytes / object (info)" "$(f1 "$BPO") B" "<= 16 (goal 10): $(verdict "$BPO <= 16")"
else
  row "index bytes / object (info)" "n/a (no 'index bytes:')" "<= 16 (goal 10)"
fi
row "daemon RssAnon / object after mount" "$(f1 "$RPO") B" "<= 16 (goal 10): $(verdict "$RPO <= 16")"
row "mount, -o index=none (until mountpoint)" "$(f2 "$T_MOUNT0") s"
row "ls latest/objects | wc -l" "$(f2 "$T_LS") s" "$NLS entries ($( [ "$NLS" = "$OBJECTS" ] && echo "= objects" || echo "!= objects $OBJECTS"))"
row "ls -f latest/objects | wc -l (no sort)" "$(f2 "$T_LSF") s" "$((NLSF - 2)) entries + . and .."
row "  daemon RssAnon before / after ls" "$((RSS0 / 1024)) / $((RSS1 / 1024)) MiB" "growth $(((RSS1 - RSS0) / 1024)) MiB"
row "cat latest/histogram, 1st / 2nd" "$(f2 "$T_H1") / $(f2 "$T_H2") s"
row "daemon RssAnon / RssFile at end" "$((RSS2 / 1024)) / $((RSSF / 1024)) MiB" "RssFile: pages of the mapped dump"
row "daemon VmHWM (anon + mapped file)" "$((HWM / 1024)) MiB"
row "mount: -o index=none / writing the file" "$(f2 "$T_NONE") / $(f2 "$T_MOUNT_W") s" "the file written after the mount is live, in ${T_WRITE:-?} s"
row "index file size / object" "$(f1 "$(echo "$IX_SIZE / $OBJECTS" | bc -l)") B" "$((IX_SIZE / 1048576)) MiB"
row "remount (index file mapped)" "$(f2 "$T_REMOUNT") s" "<< 0.1 s: $(verdict "$T_REMOUNT < 0.1")"
row "  daemon RssAnon after remount" "$((RSS_RE / 1024)) MiB" "vs $((RSS0 / 1024)) MiB indexed"
[ -n "$PEAK" ] && row "heapfs --check peak RSS (anon + file)" "$((PEAK / 1024)) MiB"
