#!/usr/bin/env bash
# bench_oemp.sh - how fast heapfs mounts a big OpenEdge memory profiler
# recording, how fast a snapshot opens early and late in it, and how much
# memory the lifetime index takes.
#
# The recording is made by tests/programs/oemp_gen.py (version 2, 1,000 snapshots;
# each creates 400 objects, resizes 300 and deletes 300: about a million
# object events, 100,000 objects live at the end, 42 MB), cached as
# bench/out/oemp-<hash of the generator>.oemp.
# Printed (medians of BENCH_RUNS where a run is cheap):
#   heapfs --check (parse + index, no mount); index bytes per object event
#   (from info's "index bytes:"); mount until the mountpoint is live; the
#   daemon's RssAnon after mounting; for an early, a middle and the last
#   snapshot, first and second `ls objects | wc -l` (the first rebuilds the
#   live set from the nearest checkpoint, never from the start), `cat
#   histogram`, one object's info, heap.pprof; every snapshot's info; RssAnon
#   at the end and VmHWM; flame-diff.svg of the last snapshot, first read
#   (wall time and the daemon's CPU time: it builds both snapshots' stacks
#   and draws) and, after a remount, with both stacks built first (cat of
#   each stacks.folded; the CPU time of drawing alone); growth.svg (120 of
#   the snapshots tallied and drawn; wall and daemon CPU time).
#
# Figures on the development machine (2 shared vCPUs, other builds running;
# times vary up to 2x between runs):
#   heapfs --check (parse + index)           0.71 s  (1,028,845 events, 42 MB)
#   index bytes / object event               32.1 B  (31.5 MiB)
#   mount (until the mountpoint is live)     0.67 s
#   daemon RssAnon after mount               31 MiB
#   snapshot #10   ls objects 1st / 2nd      0.00 / 0.00 s  (1,300 objects)
#   snapshot #500  ls objects 1st / 2nd      0.03 / 0.03 s  (50,300 objects)
#   snapshot #1000 ls objects 1st / 2nd      0.06 / 0.11 s  (100,300 objects)
#   cat histogram, one object's info         <= 0.02 s at every snapshot
#   cat heap.pprof #500 / #1000              0.35 / 0.40 s  (~1 stack per object:
#                                            the generator's lines are random)
#   cat snapshots/*/info (1,000 files)       0.09 s
#   daemon RssAnon at end / VmHWM            96 / 139 MiB (view cache, live sets)
# (see the last run's table in bench/out/bench_oemp.txt)
#
# Environment: HEAPFS (default ./heapfs), BENCH_RUNS (default 3),
# OEMP_SNAPSHOTS (default 1000), OEMP_PER_SNAP (default 400 creations; the
# changes and deletions are 3/4 of it each).
# The mount is always undone on exit, pass or fail.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
RUNS=${BENCH_RUNS:-3}
NSNAP=${OEMP_SNAPSHOTS:-1000}
PER=${OEMP_PER_SNAP:-400}
OUT=$ROOT/bench/out
mkdir -p "$OUT"
source "$ROOT/bench/lib.sh"
[ -x "$HEAPFS" ] || die "$HEAPFS not found; run make first"

# ---- the recording ------------------------------------------------------------
CHG=$((PER * 3 / 4))
tag=$(cat tests/programs/oemp_gen.py | sha1sum | cut -c1-8)-$NSNAP-$PER
REC=$OUT/oemp-$tag.oemp
if [ ! -s "$REC" ]; then
  echo "making $REC (once; cached) ..." >&2
  TMPDUMP=$REC.tmp.oemp   # removed on exit if the generator is cut short
  python3 tests/programs/oemp_gen.py gen "$REC.tmp.oemp" --version 2 --snapshots "$NSNAP" --per-snap "$PER" \
    --chg-per-snap "$CHG" --del-per-snap "$CHG" --seed 7 --summary-only || die "generator failed"
  mv "$REC.tmp.oemp" "$REC"
  TMPDUMP=""
  mv "$REC.tmp.truth.json" "${REC%.oemp}.truth.json"
fi
SIZE=$(stat -c %s "$REC")

# ---- helpers -----------------------------------------------------------------
lsobj() { ls "$1" | wc -l; }
catall() { cat "$@"; }

# ---- --check -------------------------------------------------------------------
cat "$REC" >/dev/null
"$HEAPFS" --check "$REC" >"$OUT/oemp-check.out" 2>&1 || { cat "$OUT/oemp-check.out" >&2; die "heapfs --check failed"; }
T_CHECK=$(runs "$RUNS" "$HEAPFS" --check "$REC") || die "heapfs --check failed"
OBJS=$(kv objects <"$OUT/oemp-check.out")
CHGS=$(kv "size changes" <"$OUT/oemp-check.out")
DELS=$(kv deletions <"$OUT/oemp-check.out")
IDX=$(kv "index bytes" <"$OUT/oemp-check.out")
EVENTS=$((OBJS + CHGS + DELS))

# ---- the mount --------------------------------------------------------------------
bench_mount "$REC"
sleep 1
RSS0=$(rss_anon_kb "$DPID")

mapfile -t SEQS < <(ls "$MNT/snapshots" | sort -n)
N=${#SEQS[@]}
# flame-diff.svg of the last snapshot: first thing read, then after a
# remount with both snapshots' stacks built (the OEMP memo keeps them).
cpu_s() { awk '{ printf "%.2f\n", ($14 + $15) / 100 }' "/proc/$DPID/stat"; }
LAST=$MNT/snapshots/${SEQS[$((N - 1))]}
c0=$(cpu_s); TD=$(secs catall "$LAST/flame-diff.svg"); CD=$(echo "$(cpu_s) - $c0" | bc -l)
bench_umount
bench_mount "$REC"
sleep 1
RSS0=$(rss_anon_kb "$DPID")
LAST=$MNT/snapshots/${SEQS[$((N - 1))]}
catall "$MNT/snapshots/${SEQS[$((N - 2))]}/stacks.folded" "$LAST/stacks.folded" >/dev/null
c0=$(cpu_s); TD2=$(secs catall "$LAST/flame-diff.svg"); CD2=$(echo "$(cpu_s) - $c0" | bc -l)
c0=$(cpu_s); TG=$(secs catall "$MNT/growth.svg"); CG=$(echo "$(cpu_s) - $c0" | bc -l)
row() { printf '%-44s %24s   %s\n' "$1" "$2" "${3:-}"; }
{
echo "heapfs bench_oemp: $(basename "$REC"), $(f1 "$(echo "$SIZE / 1000000" | bc -l)") MB, $N snapshots, $EVENTS object events ($OBJS created, $CHGS resized, $DELS deleted); $(nproc) cpus; medians of $RUNS"
row "figure" "value"
row "heapfs --check (parse + index)" "$(f2 "$T_CHECK") s"
row "index bytes / object event" "$(f1 "$(echo "$IDX / $EVENTS" | bc -l)") B" "($(f1 "$(echo "$IDX / 1048576" | bc -l)") MiB)"
row "mount (until mountpoint)" "$(f2 "$T_MOUNT") s"
row "daemon RssAnon after mount" "$((RSS0 / 1024)) MiB"
for k in 10 $((N / 2)) "$N"; do
  s=${SEQS[$((k - 1))]}
  d=$MNT/snapshots/$s
  t1=$(secs lsobj "$d/objects")
  n=$(ls "$d/objects" | wc -l)
  t2=$(secs lsobj "$d/objects")
  th=$(secs catall "$d/histogram")
  first=$(ls "$d/objects" | head -1)
  to=$(secs catall "$d/objects/$first/info")
  tp=$(secs catall "$d/heap.pprof")
  row "snapshot #$k (seq $s): ls objects 1st / 2nd" "$(f2 "$t1") / $(f2 "$t2") s" "$n objects"
  row "  cat histogram; one object's info" "$(f2 "$th") s; $(f2 "$to") s"
  row "  cat heap.pprof" "$(f2 "$tp") s"
done
row "flame-diff.svg #$N, first read" "$(f2 "$TD") s" "(daemon CPU $(f2 "$CD") s)"
row "  with both stacks.folded read first" "$(f2 "$TD2") s" "(daemon CPU $(f2 "$CD2") s: the drawing)"
row "growth.svg" "$(f2 "$TG") s" "(daemon CPU $(f2 "$CG") s)"
row "cat snapshots/*/info ($N files)" "$(f2 "$(secs catall "$MNT"/snapshots/*/info)") s"
RSS1=$(rss_anon_kb "$DPID")
HWM=$(hwm_kb "$DPID")
row "daemon RssAnon at end / VmHWM" "$((RSS1 / 1024)) / $((HWM / 1024)) MiB"
} | tee "$OUT/bench_oemp.txt"
