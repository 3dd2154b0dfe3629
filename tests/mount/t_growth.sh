#!/usr/bin/env bash
# t_growth.sh - two dumps side by side: `heapfs BEFORE AFTER MNT`, growth,
# growth-retained, strings-new, and growth for the formats with snapshots.
#
# tests/programs/java/GrowthShape.java is dumped twice with jcmd (live
# objects only), growing by known numbers of objects of known classes in
# between; the JVM's class histogram taken with each dump is the oracle for
# each snapshot's histogram, and the program's known deltas for growth.
# Then: an HPROF and the BMD the cruncher made of it in one mount (mixed
# formats), a file that is no dump among the arguments (refused, naming it,
# nothing mounted), and growth of a gperftools series and of an OEMP
# recording, checked against their own sites and histogram files.  Last,
# tests/fuzz/hf_walk --together walks every node of such mounts (corpus
# files of every heap format together, series, several recordings) and
# checks the tree's contracts (walk.h): lookups, listings, links, sizes.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/jvm.sh"

# sorts_n LABEL FILE: every number column of a growth file is what sort -n
# reads: sort -k2 -n orders the lines as the file does, reversed (largest
# growth first), and no number has a '+' or padding
sorts_n() {
  check_eq "$1: sort -k2 -n gives the file's order of byte changes, reversed" \
    "$(grep -v '^#' "$2" | awk '{ print $2 }' | tac | tr '\n' ' ')" \
    "$(grep -v '^#' "$2" | sort -k2 -n -s | awk '{ print $2 }' | tr '\n' ' ')"
  check "$1: four plain integers, TAB apart, then state and name" \
    bash -c "! grep -v '^#' '$2' | grep -vqP '^-?[0-9]+\t-?[0-9]+\t[0-9]+\t[0-9]+\t(new|gone|changed)\t[^\t]'"
  check "$1: one '#' header naming the columns" \
    bash -c "[ \"\$(grep -c '^#' '$2')\" = 1 ] && head -1 '$2' | grep -qP '^# delta_objects\tdelta_(bytes|retained)\tobjects\t(bytes|retained)\tstate\tname$'"
}

# ---- the same heap growing, dumped twice --------------------------------
java_ok=1
for tool in java javac jcmd; do
  command -v "$tool" >/dev/null 2>&1 || java_ok=0
done
if [ "$java_ok" = 0 ]; then
  echo "ok - growth between two JVM dumps # SKIP java, javac or jcmd absent"
else
  JDIR=$TESTTMP/java
  mkdir -p "$JDIR"
  timeout 120 javac -d "$JDIR" "$ROOT/tests/programs/java/GrowthShape.java" 2>"$TESTTMP/javac.err" ||
    { sed 's/^/# /' "$TESTTMP/javac.err"; echo "not ok - javac GrowthShape.java"; exit 1; }
  mkfifo "$TESTTMP/ctl"
  java -XX:+UseSerialGC -Xmx256m -cp "$JDIR" GrowthShape <"$TESTTMP/ctl" >"$TESTTMP/jvm.out" 2>&1 &
  JPID=$!
  HF_PIDS+=("$JPID")
  exec 3>"$TESTTMP/ctl"
  jvm_wait_line "$TESTTMP/jvm.out" READY "$JPID" || { sed 's/^/# jvm: /' "$TESTTMP/jvm.out"; echo "not ok - GrowthShape printed READY"; exit 1; }
  jvm_stable_dump before "$JPID" "$TESTTMP/before.hprof" || exit 1
  echo grow >&3
  jvm_wait_line "$TESTTMP/jvm.out" GROWN "$JPID" || { echo "not ok - GrowthShape printed GROWN"; exit 1; }
  jvm_stable_dump after "$JPID" "$TESTTMP/after.hprof" || exit 1
  exec 3>&-
  kill "$JPID" 2>/dev/null
  wait "$JPID" 2>/dev/null

  hf_mount_series "$TESTTMP/before.hprof" "$TESTTMP/after.hprof" || { echo "not ok - mount two dumps"; exit 1; }
  echo "ok - heapfs BEFORE AFTER MNT mounts"
  check_eq "snapshots are 1 and 2" "1 2" "$(ls "$MNT/snapshots" | tr '\n' ' ' | sed 's/ $//')"
  check_eq "latest -> snapshots/2" "snapshots/2" "$(readlink "$MNT/latest")"
  check "info lists both files" grep -qF "file 2: $TESTTMP/after.hprof (HPROF heap dump, snapshot 2)" "$MNT/info"
  check "info has each file's own info" test "$(grep -c '^format: hprof$' "$MNT/info")" = 2
  check "snapshot 1 has no growth" test ! -e "$MNT/snapshots/1/growth"
  hist_equal before "$MNT/snapshots/1/histogram"
  hist_equal after "$MNT/snapshots/2/histogram"
  G=$MNT/snapshots/2/growth
  cp "$G" "$TESTTMP/growth.first"
  sed 's/^/# growth: /' "$G" | head -12
  # +objects +bytes objects bytes state name
  check_eq "growth: Grower 1000 more objects, 16000 more bytes, 1200 and 19200 now" \
    "1000 16000 1200 19200 changed" "$(awk '$6 == "Grower" { print $1, $2, $3, $4, $5 }' "$G")"
  check_eq "growth: Newcomer is new: 500 objects, 12000 bytes" \
    "500 12000 500 12000 new" "$(awk '$6 == "Newcomer" { print $1, $2, $3, $4, $5 }' "$G")"
  check_eq "growth: Leaver is gone: -300 objects, -4800 bytes" \
    "-300 -4800 0 0 gone" "$(awk '$6 == "Leaver" { print $1, $2, $3, $4, $5 }' "$G")"
  check_eq "growth: Leaver[] is gone" "gone" "$(awk '$6 == "Leaver[]" { print $5 }' "$G")"
  check "growth: unchanged Steady is left out" bash -c "! awk '\$6 == \"Steady\"' '$G' | grep -q ."
  check_eq "growth: largest growth first (Grower, Newcomer, ..., Leaver)" "Grower Newcomer Leaver" \
    "$(awk '$6 == "Grower" || $6 == "Newcomer" || $6 == "Leaver" { printf "%s ", $6 }' "$G" | sed 's/ $//')"
  check "growth: sorted by byte growth" bash -c "grep -v '^#' '$G' | awk '{ print \$2 + 0 }' | sort -n -r -c"
  sorts_n "growth" "$G"
  # Every line agrees with the two histograms (by name, summed over loaders).
  LC_ALL=C join -t "$TAB" -a 1 -a 2 -e 0 -o 0,1.2,1.3,2.2,2.3 "$TESTTMP/before.hf" "$TESTTMP/after.hf" |
    awk -F '\t' '$2 != $4 || $3 != $5 { printf "%s %d %d\n", $1, $4 - $2, $5 - $3 }' | LC_ALL=C sort >"$TESTTMP/want.growth"
  grep -v '^#' "$G" | awk '$6 != "java.lang.Class" { printf "%s %s %s\n", $6, $1, $2 }' |
    sed 's/%2F/\//g; s/%25/%/g' | LC_ALL=C sort >"$TESTTMP/got.growth"
  check "growth: every class equals the histograms' difference ($(wc -l <"$TESTTMP/want.growth") lines)" \
    diff "$TESTTMP/want.growth" "$TESTTMP/got.growth"
  GR=$MNT/snapshots/2/growth-retained
  sorts_n "growth-retained" "$GR"
  check_eq "growth-retained: Grower 16000 more retained (each retains itself)" \
    "1000 16000" "$(awk '$6 == "Grower" { print $1, $2 }' "$GR")"
  check "strings-new lists the strings made between the dumps" \
    test "$(grep -c -- $'\tafter-marker-[0-9]$' "$MNT/snapshots/2/strings-new")" = 10
  check "strings-new leaves out the strings both dumps have" \
    bash -c "! grep -q 'before-marker' '$MNT/snapshots/2/strings-new'"
  check_eq "strings-new's header is strings' (docs/views.md)" "$(head -1 "$MNT/snapshots/2/strings")" \
    "$(head -1 "$MNT/snapshots/2/strings-new")"
  check "strings-new rows are 'ID<TAB>text' like strings" \
    grep -Eq $'^0x[0-9a-f]+\tafter-marker-3$' "$MNT/snapshots/2/strings-new"
  check "strings-new's ids name objects of snapshot 2" \
    test -d "$MNT/snapshots/2/objects/$(grep -- $'\tafter-marker-3$' "$MNT/snapshots/2/strings-new" | cut -f1)"
  check "threads of each dump are in its snapshot" test -d "$MNT/snapshots/1/threads" -a -d "$MNT/snapshots/2/threads"
  check "no mount-wide threads/ with several dumps" test ! -e "$MNT/threads"
  check "diff of the two histograms shows Grower" \
    bash -c "diff '$MNT/snapshots/1/histogram' '$MNT/snapshots/2/histogram' | grep -q \"\$(printf '\\t')Grower\\\$\""
  check "stat size = bytes read: growth" test "$(stat -c %s "$G")" = "$(wc -c <"$G")"
  check "stat size = bytes read: strings-new" \
    test "$(stat -c %s "$MNT/snapshots/2/strings-new")" = "$(wc -c <"$MNT/snapshots/2/strings-new")"
  # Each dump writes its own index file once the mount is live; a remount
  # of the two maps both.
  for _ in $(seq 1 100); do
    [ "$(grep -c '^index: .*written to' "$MNT/.stats")" = 2 ] && break
    sleep 0.1
  done
  check "each dump's index file is written beside it" \
    test -s "$TESTTMP/before.hprof.heapfs-index" -a -s "$TESTTMP/after.hprof.heapfs-index"
  hf_umount
  if hf_mount_series "$TESTTMP/before.hprof" "$TESTTMP/after.hprof"; then
    check_eq "a remount of the two loads both index files" "2" "$(grep -c '^index: loaded from' "$MNT/.stats")"
    check "growth is the same from the index files" cmp -s "$MNT/snapshots/2/growth" "$TESTTMP/growth.first"
    hf_umount
  else
    echo "not ok - remount two dumps"
  fi
  check "-o index=PATH with two dumps is refused" \
    bash -c "! '$HEAPFS' -o index='$TESTTMP/one.ix' '$TESTTMP/before.hprof' '$TESTTMP/after.hprof' '$TESTTMP' 2>/dev/null"
  # Same dump twice: nothing grew.
  if hf_mount_series "$TESTTMP/after.hprof" "$TESTTMP/after.hprof"; then
    check_eq "a dump against itself: growth has only its header" "1" "$(wc -l <"$MNT/snapshots/2/growth")"
    check_eq "a dump against itself: strings-new has only its header" "1" "$(wc -l <"$MNT/snapshots/2/strings-new")"
    hf_umount
  else
    echo "not ok - mount a dump twice"
  fi
fi

# ---- mixed formats: an HPROF and the BMD made of it ---------------------
if hf_mount_series "$CORPUS/hprof/slurp_hprof-32.bin" "$CORPUS/bmd/slurp_hprof-32.bmd"; then
  check "mixed: info lists the hprof file" grep -q '^file 1: .*slurp_hprof-32.bin (HPROF heap dump, snapshot 1)$' "$MNT/info"
  check "mixed: info lists the bmd file" grep -q '^file 2: .*slurp_hprof-32.bmd (BMD, snapshot 2)$' "$MNT/info"
  check "mixed: each snapshot has its classes" test -d "$MNT/snapshots/1/classes" -a -d "$MNT/snapshots/2/classes"
  # The cruncher keeps names only as hashes; the names it kept compare.
  check "mixed: growth marks the BMD's hashed names new" grep -qP '\tnew\thash\.[0-9]*\.' "$MNT/snapshots/2/growth"
  check "mixed: a class named in both with equal counts is left out (java.lang.String)" \
    bash -c "! grep -qP '\tjava.lang.String\$' '$MNT/snapshots/2/growth'"
  check "mixed: no strings-new (BMD keeps no string text)" test ! -e "$MNT/snapshots/2/strings-new"
  check "mixed: errors names each file's problems or is empty" \
    bash -c "! grep -v '^$CORPUS/' '$MNT/errors' | grep -q ."
  hf_umount
else
  echo "not ok - mixed: mount an HPROF and a BMD together"
fi

# ---- a file that is no dump among the arguments -------------------------
M2=$(mktemp -d "$TESTTMP/mnt.XXXXXX")
printf 'not a dump\n' >"$TESTTMP/notes.txt"
"$HEAPFS" "$CORPUS/hprof/slurp_hprof-32.bin" "$TESTTMP/notes.txt" "$M2" 2>"$TESTTMP/bad.err"
rc=$?
check_eq "a non-dump among the files: exit status 1" "1" "$rc"
check "a non-dump among the files: the message names it" grep -qF "$TESTTMP/notes.txt" "$TESTTMP/bad.err"
check "a non-dump among the files: nothing mounted" bash -c "! mountpoint -q '$M2'"
"$HEAPFS" --check "$CORPUS/hprof/slurp_hprof-32.bin" "$CORPUS/pprof-heap/local_tcmalloc_hp.0001.heap" \
  >/dev/null 2>"$TESTTMP/mix.err"
check_eq "a heap dump with a gperftools profile: --check exit status 1" "1" "$?"
check "a heap dump with a gperftools profile: the message names the profile" \
  grep -qxF "heapfs: $CORPUS/pprof-heap/local_tcmalloc_hp.0001.heap: cannot be mounted with $CORPUS/hprof/slurp_hprof-32.bin (gperftools heap profile and HPROF heap dump: profiles mount only with profiles of their format)" "$TESTTMP/mix.err"

# ---- gperftools series: growth by site ---------------------------------
if hf_mount_series "$CORPUS"/pprof-heap/local_tcmalloc_hp.000[12].heap; then
  G=$MNT/snapshots/2/growth
  # sites: trace inuse_objects inuse_space alloc_objects alloc_space frame;
  # growth sums the stacks of one frame
  by_frame() {
    awk -F'\t' 'NR > 1 { n[$NF] += $2; s[$NF] += $3 } END { for (f in n) print f "\t" n[f] "\t" s[f] }' "$1" |
      LC_ALL=C sort -t "$TAB" -k1,1
  }
  LC_ALL=C join -t "$TAB" -a 1 -a 2 -e 0 -o 0,1.2,1.3,2.2,2.3 \
    <(by_frame "$MNT/snapshots/1/sites") <(by_frame "$MNT/snapshots/2/sites") |
    awk -F'\t' '$2 != $4 || $3 != $5 { printf "%s %d %d\n", $1, $4 - $2, $5 - $3 }' | LC_ALL=C sort >"$TESTTMP/want.gperf"
  growth_rows "$G" >"$TESTTMP/got.gperf"
  check "gperftools: growth has a line per changed site" test -s "$TESTTMP/got.gperf"
  check "gperftools: growth equals the difference of the two sites files" \
    diff "$TESTTMP/want.gperf" "$TESTTMP/got.gperf"
  check "gperftools: no growth-retained" test ! -e "$MNT/snapshots/2/growth-retained"
  sorts_n "gperftools growth" "$G"
  hf_umount
else
  echo "not ok - gperftools: mount a series"
fi

# ---- OEMP: growth by type and name --------------------------------------
if hf_mount "$ROOT/tests/fixtures/small-v2.oemp"; then
  S2=$(ls "$MNT/snapshots" | sort -n | sed -n 2p)
  S1=$(ls "$MNT/snapshots" | sort -n | sed -n 1p)
  if [ -n "$S2" ]; then
    G=$MNT/snapshots/$S2/growth
    total() { grep -v '^#' "$1" | awk '{ s += $2 } END { print s + 0 }'; }
    check_eq "oemp: growth's byte changes add up to the histograms' difference" \
      "$(($(total "$MNT/snapshots/$S2/histogram") - $(total "$MNT/snapshots/$S1/histogram")))" \
      "$(grep -v '^#' "$G" | awk '{ s += $2 } END { print s + 0 }')"
    check "oemp: snapshot $S1 has no growth" test ! -e "$MNT/snapshots/$S1/growth"
    sorts_n "oemp growth" "$G"
  else
    echo "ok - oemp: growth # SKIP the recording has one snapshot"
  fi
  hf_umount
else
  echo "not ok - oemp: mount a recording"
fi

# ---- every node of mounts of several files (walk.h's contracts) ---------
B=${B:-build/rel}
case "$B" in *san*) SAN=1 ;; *) SAN=0 ;; esac
if make -s -C "$ROOT" -f tests/fuzz/fuzz.mk hf_walk SANITIZE=$SAN >"$TESTTMP/build.log" 2>&1; then
  WALK=$ROOT/$B/tests/fuzz/hf_walk
  walk_together() { # LABEL FILE...
    local label=$1 out; shift
    out=$("$WALK" --repeat --together --timeout 300 "$@" 2>&1)
    local rc=$?
    echo "# $label: $(sed 's/^[^ ]*: //' <<<"$out")" | cut -c1-160
    check_eq "walk of $label together: every contract holds" "0 ok" "$rc $(sed 's/^.*: \(ok\).*$/\1/' <<<"$out")"
  }
  walk_together "every corpus heap dump (HPROF, BMD)" "$CORPUS"/hprof/*.bin "$CORPUS"/hprof/*.hprof "$CORPUS"/bmd/*.bmd
  walk_together "the HPROF text files (some without a heap dump)" "$CORPUS"/hprof-txt/*
  walk_together "a gperftools series" "$CORPUS"/pprof-heap/local_tcmalloc_hp.000[12].heap
  walk_together "two OEMP recordings" "$ROOT"/tests/fixtures/small-v1.oemp "$ROOT"/tests/fixtures/small-v2.oemp
  if [ "$java_ok" = 1 ]; then
    walk_together "the two JVM dumps" "$TESTTMP/before.hprof" "$TESTTMP/after.hprof"
  fi
else
  sed 's/^/# /' "$TESTTMP/build.log" | tail -20
  echo "not ok - build tests/fuzz/hf_walk"
fi
