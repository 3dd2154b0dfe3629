# bench/lib.sh - what the bench scripts share (source it after setting ROOT,
# the project root, and OUT, the scratch directory; HEAPFS defaults to
# ROOT/heapfs).
#
#   die MSG...               "SCRIPT: MSG" on stderr, exit 1
#   bench_dump               sets DUMP and SIZE: $BENCH_DUMP, or the ~1 GB dump of
#                            bench/MakeHeap.java (BENCH_SCALE, default 1), made
#                            once and cached as OUT/bench-<hash of MakeHeap.java>.hprof
#   bench_mount FILE [heapfs options...]
#                            mounts FILE (heapfs -f, backgrounded) on a fresh
#                            directory; sets MNT, DPID (the daemon) and T_MOUNT
#                            (seconds until the mount point was live); dies
#                            when it does not come up within 5 minutes.  Undoes
#                            an earlier bench_mount first.
#   bench_umount             unmounts, waits for the daemon, removes MNT
#   secs CMD..., runs N CMD..., median, f1, f2, kv KEY, rss_anon_kb PID, hwm_kb PID
#
# Sourcing it sets the EXIT trap (INT and TERM exit 130): the mount is always
# undone, a dump cut short is removed, then bench_cleanup_extra runs if the
# script defines it.
HEAPFS=${HEAPFS:-$ROOT/heapfs}
MNT=""
DPID=""
TMPDUMP=""

die() { echo "$(basename "$0" .sh): $*" >&2; exit 1; }

bench_umount() {
  if [ -n "$MNT" ]; then
    mountpoint -q "$MNT" 2>/dev/null && { fusermount3 -u "$MNT" 2>/dev/null || fusermount3 -uz "$MNT" 2>/dev/null; }
  fi
  if [ -n "$DPID" ]; then
    kill "$DPID" 2>/dev/null
    wait "$DPID" 2>/dev/null
  fi
  [ -n "$MNT" ] && rmdir "$MNT" 2>/dev/null
  MNT=""; DPID=""
}

bench_cleanup() {
  bench_umount
  rm -f "$OUT/$(basename "$0" .sh).log.$$"
  [ -z "$TMPDUMP" ] || rm -f "$TMPDUMP"   # a dump cut short by Ctrl-C
  if declare -F bench_cleanup_extra >/dev/null; then bench_cleanup_extra; fi
}
trap bench_cleanup EXIT
trap 'exit 130' INT TERM

bench_mount() {
  local file=$1 t0 up=0 log
  shift
  bench_umount
  MNT=$(mktemp -d "${TMPDIR:-/tmp}/heapfs-bench.XXXXXX")
  log=$OUT/$(basename "$0" .sh).mount.log
  t0=$(now)
  "$HEAPFS" -f "$@" "$file" "$MNT" 2>"$log" &
  DPID=$!
  for _ in $(seq 1 6000); do   # up to 5 minutes
    mountpoint -q "$MNT" && { up=1; break; }
    kill -0 "$DPID" 2>/dev/null || break
    sleep 0.05
  done
  [ "$up" = 1 ] || { cat "$log" >&2; die "mount of $file did not come up"; }
  T_MOUNT=$(echo "$(now) - $t0" | bc -l)
}

bench_dump() {
  if [ -n "${BENCH_DUMP:-}" ]; then
    DUMP=$BENCH_DUMP
  else
    local tag scale=${BENCH_SCALE:-1}
    tag=$(sha1sum <"$ROOT/bench/MakeHeap.java" | cut -c1-8)
    [ "$scale" = 1 ] || tag=$tag-x$scale
    DUMP=$OUT/bench-$tag.hprof
    if [ ! -s "$DUMP" ]; then
      command -v javac >/dev/null && command -v java >/dev/null || die "java/javac needed to make the dump"
      echo "making $DUMP (once; cached) ..." >&2
      mkdir -p "$OUT/classes"
      javac -d "$OUT/classes" "$ROOT/bench/MakeHeap.java" || die "javac failed"
      # written under a temporary name and renamed when complete, so an
      # interrupted run leaves no half dump to reuse; the name must end in
      # .hprof (HotSpotDiagnosticMXBean.dumpHeap refuses any other), and
      # must not exist yet (dumpHeap will not overwrite)
      TMPDUMP=${DUMP%.hprof}.tmp.hprof
      rm -f "$TMPDUMP"
      timeout 1200 java -Xmx6g -XX:+UseParallelGC -cp "$OUT/classes" MakeHeap "$TMPDUMP" "$scale" >&2 ||
        { rm -f "$TMPDUMP"; die "MakeHeap failed"; }
      mv "$TMPDUMP" "$DUMP"
      TMPDUMP=""
    fi
  fi
  [ -r "$DUMP" ] || die "cannot read $DUMP"
  SIZE=$(stat -c %s "$DUMP")
}

# ---- timing and /proc -------------------------------------------------------
now() { date +%s.%N; }
# secs CMD...: run CMD (output discarded), print wall seconds; fail if CMD fails.
secs() {
  local t0 t1 log="$OUT/$(basename "$0" .sh).log.$$"
  t0=$(now)
  "$@" >/dev/null 2>"$log" || { cat "$log" >&2; return 1; }
  t1=$(now)
  echo "$t1 - $t0" | bc -l
}
median() { printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
# runs N CMD...: median wall time of N runs
runs() {
  local n=$1; shift
  local i t all=()
  for ((i = 0; i < n; i++)); do t=$(secs "$@") || return 1; all+=("$t"); done
  median "${all[@]}"
}
f2() { printf '%.2f' "$1"; }
f1() { printf '%.1f' "$1"; }
# kv KEY: the first word after "KEY:" in "key: value" lines on stdin
kv() { awk -v k="$1" 'index($0, k ":") == 1 { sub(/^[^:]*: */, ""); print $1; exit }'; }
rss_anon_kb() { awk '/^RssAnon:/ { print $2 }' "/proc/$1/status"; }
hwm_kb() { awk '/^VmHWM:/ { print $2 }' "/proc/$1/status"; }
