#!/usr/bin/env bash
# bench_two.sh - two ~1 GB dumps in one mount (issue 14): they must cost the
# sum of their indexes, no more, and comparing them must be quick.
#
# The dump is bench.sh's (bench/MakeHeap.java, cached in bench/out; see
# bench/lib.sh), or BENCH_DUMP=PATH; the second dump is a copy of it
# (bench/out/bench-two-copy.hprof, removed at the end): two files, two
# mappings, two indexes.  Printed: for the dump alone and for the two
# together, the mount time and the daemon's RssAnon (/proc/PID/status) after
# mount, and the ratio two / (2 x one) (1.00: the sum, nothing more); then,
# on the two-dump mount, `cat snapshots/2/growth` (both histograms are
# already in the index) and `cat snapshots/2/strings-new` (a hash of every
# String's text of snapshot 1, then every String of snapshot 2 looked up),
# with the RssAnon after each.  One run each: the figures are memory, and
# times of one pass.
#
# Environment: HEAPFS (default ./heapfs), BENCH_DUMP, BENCH_SCALE.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 1
OUT=$ROOT/bench/out
mkdir -p "$OUT"
source "$ROOT/bench/lib.sh"
COPY=$OUT/bench-two-copy.hprof
bench_cleanup_extra() { rm -f "$COPY"; }

bench_dump
cp "$DUMP" "$COPY" || die "cannot copy $DUMP"
row() { printf '%-46s %14s  %s\n' "$1" "$2" "${3:-}"; }

# -o index=none: both indexes built in memory (an index file would be
# mapped instead and make the figures about page cache, not indexes)
bench_mount "$DUMP" -o index=none
T1=$T_MOUNT
R1=$(rss_anon_kb "$DPID")
IDX=$(kv "index bytes" <"$MNT/info")
bench_mount "$COPY" -o index=none "$DUMP"   # heapfs -f -o index=none DUMP COPY MNT
T2=$T_MOUNT
R2=$(rss_anon_kb "$DPID")
TG=$(secs cat "$MNT/snapshots/2/growth")
RG=$(rss_anon_kb "$DPID")
LINES=$(grep -vc '^#' "$MNT/snapshots/2/growth")
TS=$(secs cat "$MNT/snapshots/2/strings-new")
RS=$(rss_anon_kb "$DPID")
NEW=$(wc -l <"$MNT/snapshots/2/strings-new")
bench_umount

echo "dump: $DUMP ($SIZE bytes), and a copy of it"
row "index bytes of one dump (info)" "$((IDX / 1048576)) MiB"
row "one dump: mount, daemon RssAnon" "$(f2 "$T1") s" "$((R1 / 1024)) MiB"
row "two dumps: mount, daemon RssAnon" "$(f2 "$T2") s" "$((R2 / 1024)) MiB"
row "RssAnon two / (2 x one)" "$(f2 "$(echo "$R2 / (2 * $R1)" | bc -l)")" "1.00 = the sum of the two"
row "cat snapshots/2/growth, RssAnon after" "$(f2 "$TG") s" "$((RG / 1024)) MiB ($LINES lines: equal dumps)"
row "cat snapshots/2/strings-new, RssAnon after" "$(f2 "$TS") s" "$((RS / 1024)) MiB ($NEW lines; the set of texts stays)"
