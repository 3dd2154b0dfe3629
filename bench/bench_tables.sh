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
#   the daemon's RssAnon before and after reading objects.tsv (the table
#   is never held: the growth is the checkpoints, within the cache bound);
#   once: `ls -l tables/` with retained.tsv (computes retained sizes) and
#   `wc -l tables/retained.tsv` after it.
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
mbs() { echo "$1 / $2 / 1000000" | bc -l; }

cat "$DUMP" >/dev/null
T_CAT=$(runs 5 catfile "$DUMP") || die "cat failed"
T=$MNT/latest/tables
A_LS=(); A_OBJ=(); A_REF=(); A_RSS0=(); A_RSS1=()
for ((r = 0; r < RUNS; r++)); do
  bench_mount "$DUMP"
  T=$MNT/latest/tables
  A_LS+=("$(secs lsl "$T/objects.tsv" "$T/references.tsv" "$T/classes.tsv")") || die "ls -l failed"
  A_RSS0+=("$(rss_anon_kb "$DPID")")
  A_OBJ+=("$(secs wcl "$T/objects.tsv")") || die "wc -l objects.tsv failed"
  A_RSS1+=("$(rss_anon_kb "$DPID")")
  A_REF+=("$(secs wcl "$T/references.tsv")") || die "wc -l references.tsv failed"
  S_OBJ=$(stat -c %s "$T/objects.tsv"); S_REF=$(stat -c %s "$T/references.tsv")
  ROWS=$(wc -l <"$T/objects.tsv")
  CACHE=$(kv "max bytes" <"$MNT/.stats" 2>/dev/null)
  if ((r == RUNS - 1)); then
    T_LSALL=$(secs lsl "$T/") || die "ls -l tables/ failed"
    T_RET=$(secs wcl "$T/retained.tsv") || die "wc -l retained.tsv failed"
    S_RET=$(stat -c %s "$T/retained.tsv")
  fi
  bench_umount
done
ls_t=$(median "${A_LS[@]}"); obj_t=$(median "${A_OBJ[@]}"); ref_t=$(median "${A_REF[@]}")
rss0=$(median "${A_RSS0[@]}"); rss1=$(median "${A_RSS1[@]}")

{
  echo "bench_tables: $(basename "$DUMP"), $(f2 "$(echo "$SIZE / 1000000000" | bc -l)") GB, $((ROWS - 1)) objects; medians of $RUNS mounts; load average $(cut -d' ' -f1-3 /proc/loadavg)"
  printf '| %s | %s | %s |\n' "figure" "value" "target"
  printf '|---|---|---|\n'
  printf '| cat DUMP >/dev/null (warm) | %s s, %s MB/s | |\n' "$(f2 "$T_CAT")" "$(printf %.0f "$(mbs "$SIZE" "$T_CAT")")"
  printf '| ls -l objects.tsv references.tsv classes.tsv, first after mount | %s s | < 1 s |\n' "$(f2 "$ls_t")"
  printf '| wc -l tables/objects.tsv (%s MB), first read | %s s, %s MB/s | >= 300 MB/s |\n' \
    "$(printf %.0f "$(echo "$S_OBJ / 1000000" | bc -l)")" "$(f2 "$obj_t")" "$(printf %.0f "$(mbs "$S_OBJ" "$obj_t")")"
  printf '| wc -l tables/references.tsv (%s MB), first read | %s s, %s MB/s | >= 300 MB/s |\n' \
    "$(printf %.0f "$(echo "$S_REF / 1000000" | bc -l)")" "$(f2 "$ref_t")" "$(printf %.0f "$(mbs "$S_REF" "$ref_t")")"
  printf '| daemon RssAnon before / after reading objects.tsv | %s / %s MiB | within the cache bound |\n' \
    "$((rss0 / 1024))" "$((rss1 / 1024))"
  printf '| ls -l tables/ with retained.tsv (computes retained sizes), once | %s s | |\n' "$(f2 "$T_LSALL")"
  printf '| wc -l tables/retained.tsv (%s MB) after it | %s s, %s MB/s | |\n' \
    "$(printf %.0f "$(echo "$S_RET / 1000000" | bc -l)")" "$(f2 "$T_RET")" "$(printf %.0f "$(mbs "$S_RET" "$T_RET")")"
} | tee "$OUT/bench_tables.txt"
