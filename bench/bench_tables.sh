#!/usr/bin/env bash
# bench_tables.sh - how fast the tables (issue 23, docs/tables.md) are read
# on the ~1 GB bench dump, beside `cat` of the dump in the same run.
#
# The dump is bench.sh's (bench/MakeHeap.java, cached in bench/out; see
# bench/lib.sh), or BENCH_DUMP=PATH.  Printed, in one table (medians of
# BENCH_RUNS fresh mounts, default 3; a fresh mount each time, since the
# kernel keeps a file's pages once read):
#   cat DUMP >/dev/null, warm (the page cache's speed, for scale);
#   `ls -l tables/objects.tsv tables/references.tsv tables/classes.tsv`, the
#   first after the mount (heapfs measures the tables: exact sizes, nothing
#   written), target < 1 s;
#   `wc -l tables/objects.tsv` and `wc -l tables/references.tsv`, the first
#   read after the mount: seconds and MB/s of table text, target >= 300;
#   `tail -c 1000000 tables/objects.tsv` before anything else is read (a
#   read at the end costs what its bytes cost, not the table before them);
#   the daemon's RssAnon before and after reading objects.tsv (the table
#   is never held: the growth is the checkpoints, within the cache bound);
#   once: `ls -l tables/` with retained.tsv (computes retained sizes) and
#   `wc -l tables/retained.tsv` after it.
# Beside each time, the daemon's CPU seconds for it (utime + stime of
# /proc/PID/stat, all threads): on a busy machine the wall times stretch
# with the load, the CPU seconds much less, so MB per CPU second shows what
# a quiet machine gives (with one thread; the block sums use every core).
# The mounts use the index file (bench/out/..heapfs-index, written by the
# first), so each mount is quick and the figures are the tables'.
#
# Environment: HEAPFS (default ./heapfs), BENCH_DUMP, BENCH_SCALE, BENCH_RUNS.
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
wcl() { wc -l "$1"; }
lsl() { ls -l "$@"; }
tailc() { tail -c 1000000 "$1"; }
mbs() { echo "$1 / $2 / 1000000" | bc -l; }
dcpu() { awk '{ print ($14 + $15) / 100 }' "/proc/$DPID/stat"; }
# timed VAR-PREFIX CMD...: wall seconds to A_<prefix>, daemon CPU seconds to C_<prefix>
timed() {
  local p=$1 c0 t; shift
  c0=$(dcpu)
  t=$(secs "$@") || die "$* failed"
  eval "A_$p+=(\"$t\"); C_$p+=(\"$(echo "$(dcpu) - $c0" | bc -l)\")"
}

cat "$DUMP" >/dev/null
T_CAT=$(runs 5 catfile "$DUMP") || die "cat failed"
T=$MNT/latest/tables
A_LS=(); A_OBJ=(); A_REF=(); A_RSS0=(); A_RSS1=(); A_TAIL=(); C_LS=(); C_OBJ=(); C_REF=(); C_TAIL=()
for ((r = 0; r < RUNS; r++)); do
  bench_mount "$DUMP"
  T=$MNT/latest/tables
  timed LS lsl "$T/objects.tsv" "$T/references.tsv" "$T/classes.tsv"
  timed TAIL tailc "$T/objects.tsv"
  A_RSS0+=("$(rss_anon_kb "$DPID")")
  timed OBJ wcl "$T/objects.tsv"
  A_RSS1+=("$(rss_anon_kb "$DPID")")
  timed REF wcl "$T/references.tsv"
  S_OBJ=$(stat -c %s "$T/objects.tsv"); S_REF=$(stat -c %s "$T/references.tsv")
  ROWS=$(wc -l <"$T/objects.tsv")
  if ((r == RUNS - 1)); then
    T_LSALL=$(secs lsl "$T/") || die "ls -l tables/ failed"
    T_RET=$(secs wcl "$T/retained.tsv") || die "wc -l retained.tsv failed"
    S_RET=$(stat -c %s "$T/retained.tsv")
  fi
  bench_umount
done
ls_t=$(median "${A_LS[@]}"); obj_t=$(median "${A_OBJ[@]}"); ref_t=$(median "${A_REF[@]}")
ls_c=$(median "${C_LS[@]}"); obj_c=$(median "${C_OBJ[@]}"); ref_c=$(median "${C_REF[@]}")
rss0=$(median "${A_RSS0[@]}"); rss1=$(median "${A_RSS1[@]}"); tail_t=$(median "${A_TAIL[@]}")

{
  echo "bench_tables: $(basename "$DUMP"), $(f2 "$(echo "$SIZE / 1000000000" | bc -l)") GB, $((ROWS - 1)) objects; medians of $RUNS mounts; load average $(cut -d' ' -f1-3 /proc/loadavg)"
  printf '| %s | %s | %s |\n' "figure" "value" "target"
  printf '|---|---|---|\n'
  printf '| cat DUMP >/dev/null (warm) | %s s, %s MB/s | |\n' "$(f2 "$T_CAT")" "$(printf %.0f "$(mbs "$SIZE" "$T_CAT")")"
  printf '| ls -l objects.tsv references.tsv classes.tsv, first after mount | %s s (daemon CPU %s s, on %s threads) | < 1 s |\n' \
    "$(f2 "$ls_t")" "$(f2 "$ls_c")" "$(nproc)"
  printf '| wc -l tables/objects.tsv (%s MB), first read | %s s, %s MB/s; daemon CPU %s s: %s MB per CPU second | >= 300 MB/s |\n' \
    "$(printf %.0f "$(echo "$S_OBJ / 1000000" | bc -l)")" "$(f2 "$obj_t")" "$(printf %.0f "$(mbs "$S_OBJ" "$obj_t")")" \
    "$(f2 "$obj_c")" "$(printf %.0f "$(mbs "$S_OBJ" "$obj_c")")"
  printf '| wc -l tables/references.tsv (%s MB), first read | %s s, %s MB/s; daemon CPU %s s: %s MB per CPU second | >= 300 MB/s |\n' \
    "$(printf %.0f "$(echo "$S_REF / 1000000" | bc -l)")" "$(f2 "$ref_t")" "$(printf %.0f "$(mbs "$S_REF" "$ref_t")")" \
    "$(f2 "$ref_c")" "$(printf %.0f "$(mbs "$S_REF" "$ref_c")")"
  printf '| tail -c 1000000 tables/objects.tsv, first read | %s s | about 1 MB of the table |\n' "$(f2 "$tail_t")"
  printf '| daemon RssAnon before / after reading objects.tsv | %s / %s MiB | within the cache bound |\n' \
    "$((rss0 / 1024))" "$((rss1 / 1024))"
  printf '| ls -l tables/ with retained.tsv (computes retained sizes), once | %s s | |\n' "$(f2 "$T_LSALL")"
  printf '| wc -l tables/retained.tsv (%s MB) after it | %s s, %s MB/s | |\n' \
    "$(printf %.0f "$(echo "$S_RET / 1000000" | bc -l)")" "$(f2 "$T_RET")" "$(printf %.0f "$(mbs "$S_RET" "$T_RET")")"
} | tee "$OUT/bench_tables.txt"
