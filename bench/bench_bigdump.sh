#!/usr/bin/env bash
# bench_bigdump.sh - retained sizes of a generated dump larger than memory
# (issue 26): the working arrays past the RAM bound in mapped files
# (-o retained_mem=, docs/retained.md "Memory: RAM or files").
#
# Makes $BENCH_DIR/bigdump.hprof (default /tmp/bench-bigdump) with
# build/hprofgen -n $BIG_OBJECTS (default 600000000: ~30 GB) unless a dump
# of the same arguments is there, mounts it with -o $BIG_OPTS (default
# index=none,retained_mem=auto: indexing counts; BIG_OPTS=retained_mem=auto
# is a user's default, with the index file beside the dump and a results
# file where there is room), optionally inside a memory cgroup of $BIG_CGROUP bytes (made
# by hand under /sys/fs/cgroup, v2 or v1, which needs root; the daemon
# alone is in it), then reads dominators, suspects, histogram-retained and
# the path of the largest dominator.  Printed: generation, indexing (until
# the mount is live), retained time, the daemon's RssAnon peak (0.5 s
# polls) and after, its page faults (major / minor, /proc/PID/stat),
# the disk the working files took at the most (df polls), .stats's line
# and its phases one a line.
#
# Checks the free disk first (the dump, ~51 bytes per object, and the
# files, ~45 bytes per object) and refuses when short.  Removes the dump
# at the end unless BIG_KEEP=1.  Environment: HEAPFS, BENCH_DIR,
# BIG_OBJECTS, BIG_CLASSES (2000), BIG_SEED (1), BIG_OPTS, BIG_CGROUP
# (e.g. 1G), BIG_KEEP.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 1
OUT=${BENCH_DIR:-/tmp/bench-bigdump}
mkdir -p "$OUT"
source "$ROOT/bench/lib.sh"
[ -x "$HEAPFS" ] || die "$HEAPFS not found; run make first"
GEN=$ROOT/build/hprofgen
[ -x "$GEN" ] || make -s build/hprofgen >&2 || die "cannot build $GEN"
N=${BIG_OBJECTS:-600000000}
OPTS=${BIG_OPTS:-index=none,retained_mem=auto}
CG=""
POLL_PID=""
bench_cleanup_extra() {
  [ -z "$POLL_PID" ] || kill "$POLL_PID" 2>/dev/null
  wait 2>/dev/null
  [ -z "$CG" ] || rmdir "$CG" 2>/dev/null
  # what the mount kept beside the dump goes with it (the index file, whose
  # 9 bytes an object a run by default writes, is kept with BIG_KEEP=1)
  [ "${BIG_KEEP:-0}" = 1 ] || { "$HEAPFS" --forget "$OUT/bigdump.hprof" >/dev/null 2>&1
    rm -f "$OUT/bigdump.hprof" "$OUT/hprofgen.args"; }
}
avail_kb() { df -k --output=avail "$1" | tail -1; }

# ---- the dump, with the disk checked first --------------------------------------
DUMP=$OUT/bigdump.hprof
ARGS="-n $N -c ${BIG_CLASSES:-2000} -s ${BIG_SEED:-1}"
have=0
[ -s "$DUMP" ] && [ "$(cat "$OUT/hprofgen.args" 2>/dev/null)" = "$ARGS" ] && have=1
# the working files, the dump unless made already, the index file unless
# -o index=none (a results file is written only where it leaves 5% free)
case ",$OPTS," in *,index=none,*) ix=0 ;; *) ix=9 ;; esac
need_kb=$(( N * (45 + ix + (have ? 0 : 51)) / 1024 ))
[ "$(avail_kb "$OUT")" -gt "$need_kb" ] ||
  die "$OUT: $(( $(avail_kb "$OUT") / 1048576 )) GiB free, $(( need_kb / 1048576 )) GiB needed"
T_GEN="reused (made by an earlier run)"
if [ $have = 0 ]; then
  echo "generating $DUMP: hprofgen $ARGS ..." >&2
  rm -f "$DUMP"
  TMPDUMP=$OUT/bigdump.tmp.hprof
  # shellcheck disable=SC2086  # ARGS is words
  t=$(secs "$GEN" $ARGS -o "$TMPDUMP") || die "hprofgen failed"
  T_GEN="$(f1 "$t") s"
  mv "$TMPDUMP" "$DUMP"; TMPDUMP=""
  echo "$ARGS" >"$OUT/hprofgen.args"
fi
SIZE=$(stat -c %s "$DUMP")

# ---- a memory cgroup for the daemon alone, by hand -------------------------------
HEAPFS_RUN=("$HEAPFS")
if [ -n "${BIG_CGROUP:-}" ]; then
  limit=$(numfmt --from=iec "${BIG_CGROUP}")
  if [ -w /sys/fs/cgroup/cgroup.procs ] && [ -f /sys/fs/cgroup/cgroup.controllers ]; then
    CG=/sys/fs/cgroup/heapfs-bench.$$
    mkdir "$CG" && echo "$limit" >"$CG/memory.max" || die "cannot make cgroup v2 $CG"
  else
    base=/sys/fs/cgroup/memory$(awk -F: '$2 ~ /(^|,)memory(,|$)/ { print $3 }' /proc/self/cgroup)
    CG=${base%/}/heapfs-bench.$$
    mkdir "$CG" && echo "$limit" >"$CG/memory.limit_in_bytes" || die "cannot make cgroup v1 $CG"
  fi
  HEAPFS_RUN=(sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$CG" "$HEAPFS")
fi

# ---- mount (indexing), then the retained views ------------------------------------
HEAPFS_SAVED=$HEAPFS
HEAPFS_WRAP() { "${HEAPFS_RUN[@]}" "$@"; }
HEAPFS=HEAPFS_WRAP
AVAIL0=$(avail_kb "$OUT")
echo "$AVAIL0" >"$OUT/avail_min"; echo 0 >"$OUT/rss_peak"; rm -f "$OUT/pid"
# the poller finds the daemon itself, so the peak covers indexing too
( for _ in $(seq 1 600); do
    PID=$(pgrep -n -f -- "-o $OPTS $DUMP") && break
    sleep 0.1
  done
  [ -n "$PID" ] || exit 0
  echo "$PID" >"$OUT/pid"
  peak=0; low=$AVAIL0
  while kill -0 "$PID" 2>/dev/null; do
    r=$(rss_anon_kb "$PID" 2>/dev/null) || break
    [ -n "$r" ] && [ "$r" -gt "$peak" ] && { peak=$r; echo "$peak" >"$OUT/rss_peak"; }
    a=$(avail_kb "$OUT"); [ "$a" -lt "$low" ] && { low=$a; echo "$low" >"$OUT/avail_min"; }
    sleep 0.5
  done ) &
POLL_PID=$!
bench_mount "$DUMP" -o "$OPTS"
HEAPFS=$HEAPFS_SAVED
T_INDEX=$T_MOUNT
PID=$(cat "$OUT/pid" 2>/dev/null) || die "no daemon found"
RSS_MOUNT=$(rss_anon_kb "$PID")
t0=$(now)
MAJ=? MIN=? RSS_AFTER=0 T_REST=0
if cat "$MNT/latest/dominators" >"$OUT/dominators"; then
  T_DOM="$(f2 "$(echo "$(now) - $t0" | bc -l)") s"
  t0=$(now)
  cat "$MNT/latest/suspects" "$MNT/latest/histogram-retained" >"$OUT/suspects" || die "cat suspects failed"
  TOP=$(awk 'NR == 2 { print $1 }' "$OUT/dominators")
  cat "$MNT/latest/objects/$TOP/path" >>"$OUT/suspects" || die "cat path failed"
  T_REST=$(echo "$(now) - $t0" | bc -l)
  read -r MAJ MIN < <(awk '{ print $12, $10 }' "/proc/$PID/stat")
  RSS_AFTER=$(rss_anon_kb "$PID")
else   # a cgroup's OOM killer, most likely: say so in the table
  T_DOM="failed after $(f1 "$(echo "$(now) - $t0" | bc -l)") s"
  kill -0 "$PID" 2>/dev/null || T_DOM="$T_DOM, daemon gone"
fi
STATS=$(grep 'retained sizes' "$MNT/.stats" | head -1)
INDEX_LINE=$(grep '^index' "$MNT/.stats" | head -1)
kill "$POLL_PID" 2>/dev/null; wait "$POLL_PID" 2>/dev/null; POLL_PID=""
bench_umount

# ---- report -------------------------------------------------------------------------
OBJECTS=$N
row() { printf '%-44s %24s   %s\n' "$1" "$2" "${3:-}"; }
mib() { echo "$(($1 / 1024)) MiB"; }
bpo() { f1 "$(echo "$1 / $OBJECTS" | bc -l)"; }
RSS_PEAK=$(cat "$OUT/rss_peak")
DISK_KB=$(( AVAIL0 - $(cat "$OUT/avail_min") ))
echo "heapfs bigdump bench: $(f2 "$(echo "$SIZE / 1000000000" | bc -l)") GB, about $N objects; hprofgen $ARGS; -o $OPTS${BIG_CGROUP:+; memory cgroup of $BIG_CGROUP}; $(nproc) cpus"
row "figure" "value" "per object"
row "generation (hprofgen)" "$T_GEN"
row "indexing (mount until live)" "$(f2 "$T_INDEX") s"
row "daemon RssAnon after mount" "$(mib "$RSS_MOUNT")" "$(bpo "$((RSS_MOUNT * 1024))") B"
row "first cat latest/dominators" "$T_DOM"
row "suspects, histogram-retained, a path" "$(f2 "$T_REST") s"
row "daemon RssAnon peak (0.5 s polls)" "$(mib "$RSS_PEAK")" "$(bpo "$((RSS_PEAK * 1024))") B"
row "daemon RssAnon after" "$(mib "$RSS_AFTER")" "$(bpo "$((RSS_AFTER * 1024))") B"
row "page faults of the daemon, major / minor" "$MAJ / $MIN"
row "disk taken at the most (df polls)" "$(mib "$DISK_KB")" "$(bpo "$((DISK_KB * 1024))") B"
echo ".stats: ${STATS:-none}"
echo ".stats: ${INDEX_LINE:-no index line}"
# the phases of .stats one a line: name, seconds, CPU seconds, major faults, GiB read
PHASES=$(echo "$STATS" | sed -n 's/.*phases ([^)]*): \([^)]*\)).*/\1/p')
[ -z "$PHASES" ] || { printf '%-28s %8s %8s %10s %8s\n' phase s cpu_s major GiB_read
  echo "$PHASES" | tr ',' '\n' | awk 'NF >= 5 { n = ""; for (i = 1; i <= NF - 4; i++) n = n (i > 1 ? " " : "") $i
    printf "%-28s %8s %8s %10s %8s\n", n, $(NF-3), $(NF-2), $(NF-1), $NF }'; }
