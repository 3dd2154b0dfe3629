#!/usr/bin/env bash
# bench_retained.sh - what retained sizes cost on the ~1 GB bench dump (issue
# 11), against Debian's VisualVM heap library on the same dump as baseline.
#
# The dump is bench.sh's (bench/MakeHeap.java, cached in bench/out; see
# bench/lib.sh), or BENCH_DUMP=PATH.  Printed, in one table (medians of
# BENCH_RUNS mounts, default 3; every figure is taken on a fresh mount):
#   the first `cat MNT/latest/dominators` after mount (the whole computation:
#   object graph, dominator tree, retained sizes, referrers, BFS parents) and
#   heapfs's own time for it (.stats); the daemon's RssAnon (/proc/PID/status)
#   before and after it, its peak while computing (RssAnon polled every 0.1 s),
#   and the extra anonymous bytes per object (objects from `heapfs --check`);
#   a second cat; `cat objects/TOP/path` (TOP: the first line of dominators),
#   `ls objects/TOP/dominated | head`, and `ls objects/ID/referrers` for the
#   class object of the histogram's first class (every instance refers to it;
#   a link directory lists at most 32768) and for that class's first instance.
# Then VisualVM: tests/programs/java/VvmRetained.java compiled against
# org-graalvm-visualvm-lib-jfluid-heap.jar (`apt-get install -y visualvm` when
# missing and run as root), run once as
#   timeout VVM_SECONDS java -Xmx10g -cp JAR:DIR VvmRetained --time DUMP --all-top 10
# (it needs every retained size to pick the top 10): its load and retained
# times, or "did not finish in N s", and its peak RSS (/usr/bin/time -v, else
# VmHWM polled); then the ratios to heapfs (mount + first cat, and peak RSS).
# Both peaks include the pages of the dump each maps.  VisualVM's "load" is
# short because HeapFactory.createHeap indexes lazily: its indexing is part of
# the retained time.
#
# Figures on the development machine (2 shared vCPUs, load average 4-5 from
# other builds; bench.hprof, 1.00 GB, 19,512,851 objects; medians of 3):
#   mount                                       1.19 s
#   cat latest/dominators, first after mount    17.39 s  (.stats: 17.37 s)
#   daemon RssAnon before / after               171 / 866 MiB: 37.4 B/object kept
#   daemon RssAnon peak while computing         1248 MiB (57.9 B/object over the index)
#   daemon VmHWM (anon + mapped dump)           2208 MiB
#   second cat; path; ls dominated | head; ls referrers   <= 0.03 s each
#   VisualVM --all-top 10                       did not finish in 600 s; 11500 MiB peak RSS
#   ratios VisualVM / heapfs                    time > 32x, peak RSS >= 5.2x
# (see the last run's table in bench/out/bench_retained.txt)
#
# Environment: HEAPFS (default ./heapfs), BENCH_DUMP, BENCH_SCALE, BENCH_RUNS
# (default 3), VVM_SECONDS (default 600), VVM=0 skips VisualVM.
# The mount and VisualVM are always undone on exit, pass or fail.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 1
RUNS=${BENCH_RUNS:-3}
VVM_SECONDS=${VVM_SECONDS:-600}
OUT=$ROOT/bench/out
mkdir -p "$OUT"
source "$ROOT/bench/lib.sh"
[ -x "$HEAPFS" ] || die "$HEAPFS not found; run make first"
bench_dump

POLL_PID=""
VVM_PID=""
bench_cleanup_extra() {
  [ -z "$POLL_PID" ] || kill "$POLL_PID" 2>/dev/null
  # /usr/bin/time and its timeout(1), which passes TERM on to java
  [ -z "$VVM_PID" ] || kill $(pgrep -P "$VVM_PID") "$VVM_PID" 2>/dev/null
  wait 2>/dev/null
}
# poll_anon PID FILE: keeps the largest RssAnon (kB) of PID in FILE, every 0.1 s
poll_anon() {
  local max=0 v
  while v=$(rss_anon_kb "$1" 2>/dev/null) && [ -n "$v" ]; do
    [ "$v" -gt "$max" ] && { max=$v; echo "$max" >"$2"; }
    sleep 0.1
  done
}
catfile() { cat "$1"; }
lshead() { ls "$1" | head; }
lsall() { ls "$1"; }

# ---- objects ----------------------------------------------------------------------
"$HEAPFS" --check "$DUMP" >"$OUT/retained-check.out" 2>&1 || { cat "$OUT/retained-check.out" >&2; die "heapfs --check failed"; }
OBJECTS=$(grep '^objects:' "$OUT/retained-check.out" | kv objects)
[ -n "$OBJECTS" ] && [ "$OBJECTS" -gt 0 ] 2>/dev/null || die "no 'objects:' line in --check output"

# ---- heapfs: RUNS fresh mounts ------------------------------------------------------
cat "$DUMP" >/dev/null   # the page cache warm, as for the JVM below
A_MOUNT=(); A_FIRST=(); A_SECOND=(); A_OWN=(); A_RSS0=(); A_RSS1=(); A_PEAK=(); A_HWM=()
A_PATH=(); A_DOM=(); A_REFC=(); A_REFI=()
for ((r = 0; r < RUNS; r++)); do
  # -o index=none: the computation is measured, not a results file mapped
  bench_mount "$DUMP" -o index=none
  sleep 1
  A_MOUNT+=("$T_MOUNT")
  rss0=$(rss_anon_kb "$DPID")
  echo "$rss0" >"$OUT/retained-peak"
  poll_anon "$DPID" "$OUT/retained-peak" & POLL_PID=$!
  t=$(secs catfile "$MNT/latest/dominators") || die "cat latest/dominators failed"
  kill "$POLL_PID" 2>/dev/null; wait "$POLL_PID" 2>/dev/null; POLL_PID=""
  A_FIRST+=("$t")
  A_RSS0+=("$rss0"); A_RSS1+=("$(rss_anon_kb "$DPID")"); A_PEAK+=("$(cat "$OUT/retained-peak")")
  A_OWN+=("$(sed -n 's/^retained sizes, snapshot .*: computed in \([0-9.]*\) s.*/\1/p' "$MNT/.stats" | head -1)")
  KEPT=$(sed -n 's/^retained sizes, snapshot .*, \([0-9]*\) bytes kept, \([0-9]*\) references.*/\1 \2/p' "$MNT/.stats" | head -1)
  A_SECOND+=("$(secs catfile "$MNT/latest/dominators")")
  TOP=$(grep -v '^#' "$MNT/latest/dominators" | head -1)
  top=${TOP%%$'\t'*}  # dominators: TAB between columns (docs/views.md)
  [ -n "$top" ] && [ -d "$MNT/latest/objects/$top" ] || die "no object in latest/dominators"
  A_PATH+=("$(secs catfile "$MNT/latest/objects/$top/path")")
  A_DOM+=("$(secs lshead "$MNT/latest/objects/$top/dominated")")
  # the class object of the histogram's first class, and its first instance
  cls=$(grep -v '^#' "$MNT/latest/histogram" | head -1 | awk '{ print $3 }')
  cdir=${cls//%/%25}; cdir=$MNT/latest/classes/${cdir//\//%2F}
  cid=$(kv id <"$cdir/info")
  iid=$(head -1 "$cdir/instances" | awk '{ print $1 }')
  A_REFC+=("$(secs lsall "$MNT/latest/objects/$cid/referrers")")
  A_REFI+=("$(secs lsall "$MNT/latest/objects/$iid/referrers")")
  if ((r == RUNS - 1)); then
    NDOM=$(ls -f "$MNT/latest/objects/$top/dominated" | wc -l)
    NREFC=$(ls -f "$MNT/latest/objects/$cid/referrers" | wc -l)
    NREFI=$(ls -f "$MNT/latest/objects/$iid/referrers" | wc -l)
    TOPRET=$(grep '^retained:' "$MNT/latest/objects/$top/retained" | awk '{ print $2 }')
    HTOP=$(grep -v '^#' "$MNT/latest/dominators" | head -10)
  fi
  A_HWM+=("$(hwm_kb "$DPID")")
  bench_umount
done

# ---- VisualVM ------------------------------------------------------------------------
JAR=/usr/share/visualvm/visualvm/modules/org-graalvm-visualvm-lib-jfluid-heap.jar
VVM_STATE="skipped (VVM=0)"
if [ "${VVM:-1}" != 0 ]; then
  if [ ! -r "$JAR" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "installing Debian's visualvm ..." >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y visualvm >"$OUT/vvm-install.log" 2>&1 ||
      { tail -5 "$OUT/vvm-install.log" >&2; }
  fi
  if [ ! -r "$JAR" ]; then
    VVM_STATE="not run: $JAR missing (apt-get install visualvm)"
  elif ! javac -cp "$JAR" -d "$OUT/vvm-classes" tests/programs/java/VvmRetained.java 2>"$OUT/vvm-javac.log"; then
    cat "$OUT/vvm-javac.log" >&2
    VVM_STATE="not run: VvmRetained.java does not compile"
  else
    echo "VisualVM: up to $VVM_SECONDS s ..." >&2
    vcmd=(timeout -k 30 "$VVM_SECONDS" java -Xmx10g -cp "$JAR:$OUT/vvm-classes" VvmRetained --time "$DUMP" --all-top 10)
    t0=$(now)
    if [ -x /usr/bin/time ]; then
      /usr/bin/time -v -o "$OUT/vvm.time" "${vcmd[@]}" >"$OUT/vvm.out" 2>"$OUT/vvm.err" & VVM_PID=$!
      wait "$VVM_PID"; VRC=$?; VVM_PID=""
      VPEAK=$(sed -n 's/.*Maximum resident set size (kbytes): *//p' "$OUT/vvm.time")
      VRC=$(sed -n 's/.*Exit status: *//p' "$OUT/vvm.time" | grep . || echo "$VRC")
    else
      # no /usr/bin/time: poll the JVM's VmHWM (timeout's child)
      "${vcmd[@]}" >"$OUT/vvm.out" 2>"$OUT/vvm.err" & VVM_PID=$!
      VPEAK=0
      while kill -0 "$VVM_PID" 2>/dev/null; do
        for c in $(pgrep -P "$VVM_PID"); do
          h=$(hwm_kb "$c" 2>/dev/null); [ -n "$h" ] && [ "$h" -gt "$VPEAK" ] && VPEAK=$h
        done
        sleep 0.5
      done
      wait "$VVM_PID"; VRC=$?; VVM_PID=""
    fi
    T_VVM=$(echo "$(now) - $t0" | bc -l)
    VLOAD=$(sed -n 's/^vvm load: *\([0-9.]*\).*/\1/p' "$OUT/vvm.err")
    VRET=$(sed -n 's/^vvm retained: *\([0-9.]*\).*/\1/p' "$OUT/vvm.err")
    if [ "$VRC" = 0 ] && [ -n "$VRET" ]; then VVM_STATE=done
    elif [ "$VRC" = 124 ] || [ "$VRC" = 137 ]; then VVM_STATE="did not finish in $VVM_SECONDS s"
    else VVM_STATE="failed (exit $VRC)"; tail -5 "$OUT/vvm.err" >&2
    fi
  fi
fi

# ---- report -----------------------------------------------------------------------------
m() { median "$@"; }
kb_mib() { echo "$(($1 / 1024))"; }
RSS0=$(m "${A_RSS0[@]}"); RSS1=$(m "${A_RSS1[@]}"); PEAK=$(m "${A_PEAK[@]}"); HWM=$(m "${A_HWM[@]}")
FIRST=$(m "${A_FIRST[@]}"); MOUNT=$(m "${A_MOUNT[@]}")
EXTRA=$(echo "($RSS1 - $RSS0) * 1024 / $OBJECTS" | bc -l)
PEXTRA=$(echo "($PEAK - $RSS0) * 1024 / $OBJECTS" | bc -l)
HF_TOTAL=$(echo "$MOUNT + $FIRST" | bc -l)
row() { printf '%-44s %24s   %s\n' "$1" "$2" "${3:-}"; }
{
echo "heapfs bench_retained: $(basename "$DUMP"), $(f2 "$(echo "$SIZE / 1000000000" | bc -l)") GB, $OBJECTS objects; $(nproc) cpus; medians of $RUNS mounts"
row "figure" "value" "note"
row "mount (until mountpoint)" "$(f2 "$MOUNT") s"
row "cat latest/dominators, first after mount" "$(f2 "$FIRST") s" "the whole computation; heapfs's own: $(f2 "$(m "${A_OWN[@]}")") s"
row "  daemon RssAnon before / after" "$(kb_mib "$RSS0") / $(kb_mib "$RSS1") MiB"
row "  extra anonymous bytes / object" "$(f1 "$EXTRA") B" "kept until unmount (.stats: ${KEPT% *} bytes kept, ${KEPT#* } references)"
row "  daemon RssAnon peak while computing" "$(kb_mib "$PEAK") MiB" "$(f1 "$PEXTRA") B/object over the index (polled every 0.1 s)"
row "  daemon VmHWM (anon + mapped dump)" "$(kb_mib "$HWM") MiB"
row "cat latest/dominators, second" "$(f2 "$(m "${A_SECOND[@]}")") s"
row "cat objects/TOP/path" "$(f2 "$(m "${A_PATH[@]}")") s" "TOP $top ($(echo "$TOP" | awk -F'\t' '{ print $NF }'), retained $TOPRET B)"
row "ls objects/TOP/dominated | head" "$(f2 "$(m "${A_DOM[@]}")") s" "$((NDOM - 2)) entries listed"
row "ls objects/CLASS/referrers" "$(f2 "$(m "${A_REFC[@]}")") s" "$cid, class object of $cls: $((NREFC - 2)) entries listed"
row "ls objects/INSTANCE/referrers" "$(f2 "$(m "${A_REFI[@]}")") s" "$iid, a $cls: $((NREFI - 2)) listed"
if [ "$VVM_STATE" = done ]; then
  VTOTAL=$(echo "$VLOAD + $VRET" | bc -l)
  row "VisualVM: load / retained (--all-top 10)" "$(f2 "$VLOAD") / $(f2 "$VRET") s" "java -Xmx10g, once; wall $(f1 "$T_VVM") s with the JVM's start"
  row "  peak RSS (heap + mapped dump)" "$(kb_mib "$VPEAK") MiB"
  row "  ratio VisualVM / heapfs, time" "$(f1 "$(echo "$VTOTAL / $HF_TOTAL" | bc -l)")x" "load + retained vs mount + first cat ($(f2 "$HF_TOTAL") s); retained alone $(f1 "$(echo "$VRET / $FIRST" | bc -l)")x"
  row "  ratio VisualVM / heapfs, peak RSS" "$(f1 "$(echo "$VPEAK / $HWM" | bc -l)")x" "vs the daemon's VmHWM"
  vtop=$(head -1 "$OUT/vvm.out")
  if [ "${vtop%% *}" = "$top" ]; then
    row "  largest retained object" "the same" "$top: heapfs $TOPRET B, VisualVM $(echo "$vtop" | awk '{ print $3 }') B"
  else
    row "  largest retained object" "DIFFERS" "heapfs: $top $TOPRET B; VisualVM: $vtop"
  fi
elif [ "${VVM:-1}" != 0 ] && [ -n "${VPEAK:-}" ] && [[ "$VVM_STATE" == "did not finish"* ]]; then
  row "VisualVM: load / retained (--all-top 10)" "$VVM_STATE" "load: ${VLOAD:-not finished either} s"
  row "  peak RSS (heap + mapped dump)" "$(kb_mib "$VPEAK") MiB" "until stopped"
  row "  ratio VisualVM / heapfs, time" "> $(f1 "$(echo "$VVM_SECONDS / $HF_TOTAL" | bc -l)")x" "vs mount + first cat ($(f2 "$HF_TOTAL") s)"
  row "  ratio VisualVM / heapfs, peak RSS" ">= $(f1 "$(echo "$VPEAK / $HWM" | bc -l)")x" "vs the daemon's VmHWM"
else
  row "VisualVM: load / retained (--all-top 10)" "$VVM_STATE"
fi
} | tee "$OUT/bench_retained.txt"
{ echo "# heapfs latest/dominators, first 10"; echo "$HTOP"
  [ -s "$OUT/vvm.out" ] && { echo "# VisualVM --all-top 10: 0xID SHALLOW RETAINED CLASS"; cat "$OUT/vvm.out"; }
} >"$OUT/bench_retained.top.txt"
