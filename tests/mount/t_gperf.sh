#!/usr/bin/env bash
# t_gperf.sh - gperftools heap profiles mounted: every corpus profile, a
# series, fresh profiles made now by tests/programs/tcmalloc_prog.c (linked with
# -ltcmalloc, run with HEAPPROFILE), and a broken one.
#
# Oracles: Debian's google-pprof (`google-pprof --text`) on the original and
# on the mounted heap.pprof report the same totals; google/pprof's
# .heap.string files give the values sites must show; the header totals of
# gperftools' own files.  flamegraph.pl renders stacks.folded where it is
# installed (Debian bookworm has no package for it: then the folded lines
# are checked for form and sum only, and the test says so).
. "$(dirname "$0")/lib.sh"

PROF=$CORPUS/pprof-heap

# The four "Total:" lines of google-pprof --text (exact bytes).
pprof_totals() { # FILE [BINARY]
  local f=$1 bin=${2:-} o
  for o in --inuse_objects "--show_bytes --inuse_space" --alloc_objects "--show_bytes --alloc_space"; do
    # shellcheck disable=SC2086
    timeout 120 google-pprof --text $o $bin "$f" 2>/dev/null | grep -m1 '^Total'
  done | tr '\n' ';'
}

have_pprof=0
if command -v google-pprof >/dev/null 2>&1; then have_pprof=1
elif [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y google-perftools >/dev/null 2>&1 && have_pprof=1
fi
[ $have_pprof = 1 ] || echo "# google-pprof unavailable: pprof checks skipped"

FLAMEGRAPH=$(command -v flamegraph.pl || command -v flamegraph || true)
[ -n "$FLAMEGRAPH" ] || echo "# flamegraph.pl unavailable (no Debian bookworm package): folded lines checked for form and sum only"

# folded_ok FILE TOTAL: every line "frame;...;frame VALUE", values sum to TOTAL.
folded_ok() {
  awk -v want="$2" '!/^[^ ].* [0-9]+$/ {bad=1} {s+=$NF} END {exit !(bad==0 && s==want)}' "$1" || return 1
  if [ -n "$FLAMEGRAPH" ]; then
    "$FLAMEGRAPH" "$1" > "$TESTTMP/fg.svg" 2>/dev/null && grep -q '<svg' "$TESTTMP/fg.svg"
  fi
}

# --- every corpus profile ---
for f in googlepprof_cppbench.heap googlepprof_cppbench.growth googlepprof_gobench.heap \
         local_tcmalloc_hp.0001.heap local_tcmalloc_hp.0002.heap; do
  if ! hf_mount "$PROF/$f"; then echo "not ok - $f mounts"; continue; fi
  echo "ok - $f mounts"
  S=$MNT/snapshots/1
  check "$f: views present" test -s "$S/sites" -a -s "$S/heap.pprof" -a -s "$S/stacks.folded" -a -s "$S/info"
  check "$f: traces listed" test -s "$MNT/traces/1"
  inuse=$(sed -n 's/^in-use bytes: //p' "$S/info")
  check "$f: stacks.folded renders, sums to the in-use bytes" folded_ok "$S/stacks.folded" "$inuse"
  # sites columns 2..5 sum to the snapshot's totals
  got=$(awk -F'\t' '!/^#/ {a+=$2; b+=$3; c+=$4; d+=$5} END {print a, b, c, d}' "$S/sites")
  want=$(awk -F': ' '/^in-use objects/{a=$2} /^in-use bytes/{b=$2} /^allocated objects/{c=$2} /^allocated bytes/{d=$2} END {print a, b, c, d}' "$S/info")
  check_eq "$f: sites sum to the snapshot totals" "$want" "$got"
  case $f in
    googlepprof_gobench.heap)
      # Go's header holds MemStats totals and there is no memory map
      check_eq "$f: errors list the header and the missing trailer" 2 "$(wc -l < "$MNT/errors")" ;;
    *)
      check_eq "$f: no errors (header totals = sum of lines)" "" "$(cat "$MNT/errors")" ;;
  esac
  if [ -e "$PROF/$f.string" ]; then
    # google/pprof's decode: per line values; totals must match ours
    exp=$(awk '/^Samples:/{s=1;next} /^Locations/{s=0} s && /^ +[0-9]+ +[0-9]+.*:/ {
            sub(/:.*/, ""); n=NF; for (i=1;i<=NF;i++) t[i]+=$i } END {
            if (n==4) print t[3], t[4], t[1], t[2]; else print t[1], t[2] }' "$PROF/$f.string")
    if [ "$(echo "$exp" | wc -w)" = 4 ]; then ours="$want"; else ours=$(echo "$want" | cut -d' ' -f1,2); fi
    check_eq "$f: totals equal google/pprof's .heap.string" "$exp" "$ours"
  fi
  if [ $have_pprof = 1 ]; then
    cp "$S/heap.pprof" "$TESTTMP/m.pprof"
    mine=$(pprof_totals "$TESTTMP/m.pprof")
    if [ "$f" = googlepprof_gobench.heap ]; then
      # google-pprof cannot read the original (its old rule divides by
      # zero on a 0-object line); heap.pprof carries the scaled values.
      read -r a b c d <<<"$want"
      check_eq "$f: google-pprof reads heap.pprof with the snapshot totals" \
        "Total: $a objects;Total: $b B;Total: $c objects;Total: $d B;" "$mine"
    else
      check_eq "$f: google-pprof totals, original vs heap.pprof" "$(pprof_totals "$PROF/$f" /bin/true)" "$mine"
    fi
  fi
  hf_umount
done

# --- a series, by glob, in order ---
if hf_mount_series "$PROF"/local_tcmalloc_hp.*.heap; then
  echo "ok - series mounts"
  check_eq "series: two snapshots" "1 2" "$(ls "$MNT/snapshots" | tr '\n' ' ' | sed 's/ $//')"
  check_eq "series: latest is 2" "snapshots/2" "$(readlink "$MNT/latest")"
  d=$(diff "$MNT/snapshots/1/sites" "$MNT/snapshots/2/sites" | grep '^[<>]')
  check_eq "series: diff of sites shows only what grew" 1 "$(echo "$d" | grep -c '^>')"
  check "series: the new line is trace 4" sh -c "echo '$d' | grep -q '^> 4	1	4096	1	4096	'"
  hf_umount
else
  echo "not ok - series mounts"
fi

# --- fresh profiles of a program of our own ---
TC_OK=0
if [ ! -e /usr/include/gperftools/heap-profiler.h ] && [ "$(id -u)" = 0 ]; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y libgoogle-perftools-dev >/dev/null 2>&1
fi
if cc -g -O0 -fno-omit-frame-pointer -o "$TESTTMP/tcprog" "$ROOT/tests/programs/tcmalloc_prog.c" -ltcmalloc 2>"$TESTTMP/cc.log"; then
  (cd "$TESTTMP" && HEAPPROFILE="$TESTTMP/tc" ./tcprog >/dev/null 2>&1) && TC_OK=1
fi
if [ $TC_OK = 1 ] && [ -e "$TESTTMP/tc.0002.heap" ]; then
  echo "ok - tcmalloc_prog made two profiles"
  if hf_mount_series "$TESTTMP"/tc.0001.heap "$TESTTMP"/tc.0002.heap; then
    S1=$MNT/snapshots/1; S2=$MNT/snapshots/2
    check "tcmalloc: frames named by function and line" grep -q 'keep_big(tcmalloc_prog.c:[0-9]*)$' "$S1/sites"
    check "tcmalloc: traces name this program's file" grep -q "keep_small(tcmalloc_prog.c:[0-9]*) 0x[0-9a-f]* $TESTTMP/tcprog+0x" "$MNT"/traces/*
    # the program's own sites hold exactly what it keeps; the whole profile
    # may hold more (tcmalloc or libstdc++ may record allocations of their own)
    own() { awk -F'\t' '!/^#/ && $NF ~ /^(keep_small|keep_big|grow)\(tcmalloc_prog\.c/ { s += $3 } END { print s + 0 }' "$1"; }
    check_eq "tcmalloc: snapshot 1 in-use bytes of its sites" "9388608" "$(own "$S1/sites")"
    check_eq "tcmalloc: snapshot 2 in-use bytes of its sites" "10388608" "$(own "$S2/sites")"
    for s in 1 2; do
      check "tcmalloc: snapshot $s info counts at least its sites" test \
        "$(sed -n 's/^in-use bytes: //p' "$MNT/snapshots/$s/info")" -ge "$(own "$MNT/snapshots/$s/sites")"
    done
    check "tcmalloc: diff shows grow" sh -c "diff '$S1/sites' '$S2/sites' | grep -q '^>.*	500	.*grow(tcmalloc_prog.c'"
    check "tcmalloc: stacks.folded names functions" grep -q '^.*main;keep_big 8388608$' "$S1/stacks.folded"
    if [ $have_pprof = 1 ]; then
      for s in 1 2; do
        cp "$MNT/snapshots/$s/heap.pprof" "$TESTTMP/m.pprof"
        check_eq "tcmalloc: google-pprof totals, original vs heap.pprof ($s)" \
          "$(pprof_totals "$TESTTMP/tc.000$s.heap" "$TESTTMP/tcprog")" "$(pprof_totals "$TESTTMP/m.pprof")"
      done
      check "tcmalloc: google-pprof names frames from heap.pprof" sh -c \
        "google-pprof --text '$TESTTMP/m.pprof' 2>/dev/null | grep -q ' keep_big\$'"
    fi
    hf_umount
  else
    echo "not ok - tcmalloc profiles mount"
  fi
else
  echo "not ok - tcmalloc_prog made two profiles (needs libgoogle-perftools-dev: $(head -c 200 "$TESTTMP/cc.log"))"
fi

# --- broken input: listed in errors, the rest decoded, no crash ---
B=$TESTTMP/broken.heap
{
  echo "heap profile:    5:   500 [   9:   900] @ heapprofile"
  echo "     1:   100 [   2:   200] @ 0x10 0x20"
  echo "  this is not a line"
  echo "     1:   100 [   2:   200] @ 0x10 0xnothex"
  echo "     2:   300 [   3:   300] @ 0x30"
  printf '     1:   5'
} > "$B"
if hf_mount "$B"; then
  check_eq "broken: six problems listed" 6 "$(wc -l < "$MNT/errors")"
  check "broken: malformed line named" grep -q 'line 3: malformed line' "$MNT/errors"
  check "broken: header disagreement named" grep -q 'disagree with the sum of the lines' "$MNT/errors"
  check "broken: missing trailer named" grep -q 'no memory map trailer' "$MNT/errors"
  check_eq "broken: the good lines decoded" 2 "$(grep -vc '^#' "$MNT/snapshots/1/sites")"
  hf_umount
else
  echo "not ok - broken profile mounts"
fi
printf 'heap profile: garbage\n' > "$TESTTMP/g.heap"
check "header without totals still mounts" hf_mount "$TESTTMP/g.heap"
