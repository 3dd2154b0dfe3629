#!/usr/bin/env bash
# t_hprofgen.sh - heapfs against dumps written by build/hprofgen
# (tests/programs/hprofgen/hprofgen.c), whose every figure the generator
# knows: it writes the histogram heapfs must show and "facts" (snapshot info
# figures, sample objects with their fields as heapfs renders them, Strings
# and their text, a linked list and the bytes its head retains).
#
# Four dumps of different seeds, class counts (up to 20000), segment sizes
# and queue lengths (the last makes Object[]s take waiting objects, as big collections
# do): each must pass `heapfs --check` with no problems, have its layout
# inferred from the addresses, mount with an empty errors file and nothing
# unreachable, and show exactly the generator's histogram and info figures.
# The first is checked in depth: sample objects' class, size and fields,
# Strings read back, the chain walked through refs/next and by path,
# retained sizes of the chain's head and of its class, big arrays, the main
# thread and its stack, roots.  Generating with the same arguments twice
# gives the same bytes (also on stdout); another seed does not; --size
# stops near the size asked.
#
# Then the generated dump is compared with one the JVM wrote (jcmd
# GC.heap_dump of tests/programs/java/HeapShape.java; without a JDK, the
# corpus's JDK 8 dump): same top-level and snapshot files, same info keys,
# the same kind of size rule, so the generator's files look like the JVM's
# to heapfs.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/jvm.sh"

GEN=${HPROFGEN:-$ROOT/build/hprofgen}
if [ ! -x "$GEN" ]; then
  make -s -C "$ROOT" build/hprofgen >"$TESTTMP/make.log" 2>&1 ||
    { sed 's/^/# /' "$TESTTMP/make.log"; echo "not ok - build build/hprofgen"; exit 1; }
fi

G=$TESTTMP/gen
mkdir -p "$G"
# fact FILE KEY: the first word after KEY on KEY's line of the facts
fact() { awk -v k="$2" '$1 == k { print $2; exit }' "$1"; }
# info_keys FILE: the keys of "key: value" lines, in order
info_keys() { sed -n 's/^\([^:]*\): .*/\1/p' "$1"; }

# ---- generate, check and mount three dumps -------------------------------------------
# label|hprofgen arguments
# (a last: it stays mounted)
# e: two segments of about 1.25 M objects, each longer than a chunk of
# an index run (heap.h: HF_RUN_BITS), copied into the index on two threads
DUMPS=("e|-n 2500000 -c 300 -s 5 --segment 80M"
       "b|-n 60000 -c 500 -s 2 --segment 256K --queue 2048"
       "c|-n 20000 -c 3 -s 3"
       "d|-n 30000 -c 20000 -s 4"
       "a|-n 50000 -c 40 -s 1 --segment 1M")
for spec in "${DUMPS[@]}"; do
  IFS='|' read -r l args <<<"$spec"
  # shellcheck disable=SC2086  # args is words
  if ! "$GEN" $args -q -o "$G/$l.hprof" -H "$G/$l.hist" -F "$G/$l.facts" 2>"$G/$l.err"; then
    sed 's/^/# /' "$G/$l.err"
    echo "not ok - $l: hprofgen $args"
    continue
  fi
  echo "ok - $l: hprofgen $args wrote $(stat -c %s "$G/$l.hprof") bytes"
  "$HEAPFS" --check "$G/$l.hprof" >"$G/$l.check" 2>&1
  check_eq "$l: heapfs --check exits 0" "0" "$?"
  check_eq "$l: --check lists no problems" "problems: 0" "$(grep '^problems:' "$G/$l.check")"
  check "$l: the size rule is inferred from the addresses (compressed oops and class pointers)" \
    grep -q '^size rule: 64-bit JVM, layout from the object addresses: references 4 bytes (proven.*headers 12 bytes, array headers 16 (proven.*instance = align8(12 + fields), array = align8(16 + length' "$G/$l.check"
  check_eq "$l: --check counts the generator's segments" \
    "$(fact "$G/$l.facts" segments)" "$(sed -n 's/^records heap dump segment: //p' "$G/$l.check")"

  hf_mount "$G/$l.hprof" || { echo "not ok - $l: mount"; continue; }
  S=$MNT/latest
  check_eq "$l: errors is empty" "0" "$(stat -c %s "$MNT/errors" 2>&1)"
  if diff "$G/$l.hist" "$S/histogram" >"$G/$l.hdiff" 2>&1; then
    echo "ok - $l: histogram equals the generator's exactly ($(($(wc -l <"$G/$l.hist") - 1)) classes)"
  else
    head -10 "$G/$l.hdiff" | sed 's/^/# /'
    echo "not ok - $l: histogram equals the generator's exactly"
  fi
  for key in classes objects instances "object arrays" "primitive arrays" "class objects" bytes roots strings; do
    check_eq "$l: snapshot info '$key' is the generator's" \
      "$(grep "^$key: " "$G/$l.facts")" "$(grep "^$key: " "$S/info")"
  done
  check_eq "$l: nothing is unreachable (the header alone)" 1 "$(wc -l < "$S/unreachable")"
  check_eq "$l: the chain's head retains the whole chain ($(fact "$G/$l.facts" chain_length) nodes)" \
    "retained: $(fact "$G/$l.facts" chain_retained)" \
    "$(grep -o '^retained: [0-9]*' "$S/objects/$(fact "$G/$l.facts" chain_head)/retained" 2>&1)"
  if [ "$l" = e ]; then
    hf_umount
    HEAPFS_THREADS=1 hf_mount "$G/e.hprof" || echo "not ok - e: mount on one thread"
    check "e: histogram on one thread equals the generator's too" diff -q "$G/e.hist" "$MNT/latest/histogram"
  fi
  [ "$l" = a ] && break   # a stays mounted for the checks below
  hf_umount
done
[ -n "${MNT:-}" ] && mountpoint -q "$MNT" || { echo "not ok - dump a mounted"; exit 1; }
F=$G/a.facts

# ---- same arguments, same bytes ------------------------------------------------------------
"$GEN" -n 50000 -c 40 -s 1 --segment 1M -q -o "$G/a2.hprof" -H "$G/a2.hist" -F "$G/a2.facts"
check "the same arguments give the same bytes (cmp)" cmp "$G/a.hprof" "$G/a2.hprof"
check "... and the same histogram and facts" bash -c "cmp '$G/a.hist' '$G/a2.hist' && cmp '$G/a.facts' '$G/a2.facts'"
"$GEN" -n 50000 -c 40 -s 9 --segment 1M -q -o "$G/a9.hprof"
check "another seed gives other bytes" bash -c "! cmp -s '$G/a.hprof' '$G/a9.hprof'"
check "-o - writes the same bytes to stdout" \
  bash -c "'$GEN' -n 50000 -c 40 -s 1 --segment 1M -q -o - | cmp - '$G/a.hprof'"
"$GEN" --size 20M -q -o "$G/s.hprof"
s_size=$(stat -c %s "$G/s.hprof")
check "--size 20M: at least 20 MiB, less than one big array more ($s_size bytes)" \
  test "$s_size" -ge 20971520 -a "$s_size" -lt $((20971520 + 9 * 1048576))
check "--size 20M: heapfs --check finds no problem" bash -c "'$HEAPFS' --check '$G/s.hprof' | grep -qx 'problems: 0'"
rm -f "$G/a2.hprof" "$G/a9.hprof" "$G/s.hprof"

# ---- objects -------------------------------------------------------------------------------
n=0
while read -r _ id cls size; do
  n=$((n + 1))
  check_eq "object $id: class $cls" "class: $cls" "$(grep '^class: ' "$S/objects/$id/info" 2>&1)"
  check_eq "object $id: size $size" "size: $size" "$(grep '^size: ' "$S/objects/$id/info" 2>&1)"
  if diff <(grep "^field $id " "$F" | cut -d' ' -f3-) <(tail -n +2 "$S/objects/$id/fields" | tr '\t' ' ') >"$G/fdiff" 2>&1; then
    echo "ok - object $id: fields as generated ($(grep -c "^field $id " "$F") fields)"
  else
    sed 's/^/# /' "$G/fdiff" | head -8
    echo "not ok - object $id: fields as generated"
  fi
done < <(grep '^object 0x' "$F")
check "at least 5 sample objects (thread, 3 instances, chain tail)" test "$n" -ge 5

# Strings: their value reads back, and the strings view lists them
while read -r _ id coder text; do
  check_eq "String $id ($coder) value reads back" "$text" "$(cat "$S/objects/$id/value" 2>&1)"
  check_eq "strings lists $id with its text" "$id	$text" "$(grep "^$id	" "$S/strings" 2>&1)"
done < <(grep '^string 0x' "$F")
check_eq "a Latin-1 and a UTF-16 String sampled" "LATIN1 UTF16" "$(grep '^string 0x' "$F" | awk '{print $3}' | paste -sd' ')"

# ---- the chain -----------------------------------------------------------------------------
HEAD=$(fact "$F" chain_head); TAIL=$(fact "$F" chain_tail); LEN=$(fact "$F" chain_length)
check "the chain has at least 200 nodes" test "$LEN" -ge 200
o=$HEAD
for _ in $(seq 1 $((LEN - 1))); do
  nx=$(readlink "$S/objects/$o/refs/next") || break
  o=${nx##*/}
done
check_eq "refs/next leads from the head to the tail in $((LEN - 1)) hops" "$TAIL" "$o"
check "the tail has no refs/next (next is null)" bash -c "! test -e '$S/objects/$TAIL/refs/next'"
check_eq "the tail's path has one line per node" "$LEN" "$(wc -l <"$S/objects/$TAIL/path" 2>&1)"
check_eq "the path starts at the head, a JNI global root" "$HEAD hprofgen.ChainNode (root: jni-global)" \
  "$(head -1 "$S/objects/$TAIL/path" 2>&1)"
check_eq "every later hop is via next" "$((LEN - 1))" "$(grep -c 'hprofgen.ChainNode via next$' "$S/objects/$TAIL/path")"
check_eq "classes/hprofgen.ChainNode/retained counts the chain once" \
  "retained: $(fact "$F" chain_retained)" "$(grep -o '^retained: [0-9]*' "$S/classes/hprofgen.ChainNode/retained" 2>&1)"
check_eq "the head dominates exactly the next node" "1" "$(ls "$S/objects/$HEAD/dominated" | wc -l)"
check "the head is in dominators (held by the roots alone)" grep -q "^$HEAD	32	$(fact "$F" chain_retained)	" "$S/dominators"
check "histogram-retained lists hprofgen.ChainNode with the chain's bytes" \
  grep -q "^$LEN	$(fact "$F" chain_retained)	$(fact "$F" chain_retained)	hprofgen.ChainNode$" "$S/histogram-retained"

# ---- big arrays, the thread, roots -----------------------------------------------------------
BP=$(fact "$F" big_prim_array); BO=$(fact "$F" big_obj_array)
bp_size=$(sed -n 's/^size: //p' "$S/objects/$BP/info")
check "a primitive array of 1 MiB or more (slot 1000): $bp_size bytes" test "${bp_size:-0}" -ge 1048576
check_eq "hprofgen.Main.bigBuffer is that array" "$BP" \
  "$(awk '$1 == "bigBuffer" { print $3 }' "$S/classes/hprofgen.Main/statics")"
bo_len=$(sed -n 's/^length: //p' "$S/objects/$BO/info")
check "an Object[] of 100000 elements or more (slot 2000): $bo_len" test "${bo_len:-0}" -ge 100000
check_eq "its fields view lists every element" "$bo_len" "$(tail -n +2 "$S/objects/$BO/fields" | wc -l)"
TH=$(awk '$1 == "thread" { print $2 }' "$F")
check "threads/1-main is the main thread" test -d "$MNT/threads/1-main"
check "threads/1-main/stack has main's three frames" \
  bash -c "grep -c 'Main.java\|Native Method' '$MNT/threads/1-main/stack' | grep -qx 3"
check "roots: the thread object" grep -q "^thread-object	$TH	1	-1	2	0x0	java.lang.Thread$" "$S/roots"
check "roots: the chain's head and the last Object[] are JNI globals" \
  bash -c "grep -q '^jni-global	$HEAD	' '$S/roots' && grep -q '^jni-global	$(fact "$F" holder)	' '$S/roots'"
check_eq "roots: every class is a sticky class" "$(fact "$F" classes:)" "$(grep -c '^sticky-class	' "$S/roots")"
check "dominators lists its header and objects" bash -c "[ \$(wc -l <'$S/dominators') -gt 10 ]"

# ---- the generator's files look like the JVM's to heapfs ------------------------------------
JVM_DUMP=""
# HeapShape's dump (jvm.sh; the one t_jcmd.sh checks against jcmd, made once
# per run); its making is t_jcmd.sh's to report
if command -v javac >/dev/null && command -v java >/dev/null && command -v jcmd >/dev/null &&
   heapshape_dump jvm >"$TESTTMP/jvm.tap" 2>&1; then
  JVM_DUMP=$TESTTMP/jvm.hprof
fi
if [ -z "$JVM_DUMP" ]; then
  echo "# no JDK to make a dump: comparing with the corpus's JDK 8 dump"
  JVM_DUMP=$CORPUS/hprof/mat_oracle_jdk8_05_x64.hprof
fi
echo "# JVM dump: $JVM_DUMP"
GMNT=$MNT
hf_mount "$JVM_DUMP" || { echo "not ok - mount the JVM's dump"; exit 1; }
JMNT=$MNT
check_eq "same top-level files as the JVM's dump" "$(ls "$JMNT" | paste -sd' ')" "$(ls "$GMNT" | paste -sd' ')"
check_eq "same snapshot files as the JVM's dump" "$(ls "$JMNT/latest/" | paste -sd' ')" "$(ls "$GMNT/latest/" | paste -sd' ')"
check_eq "info has the JVM's dump's keys" "$(info_keys "$JMNT/info" | paste -sd' ')" "$(info_keys "$GMNT/info" | paste -sd' ')"
check_eq "snapshot info has the JVM's dump's keys" "$(info_keys "$JMNT/latest/info" | paste -sd' ')" \
  "$(info_keys "$GMNT/latest/info" | paste -sd' ')"
check_eq "info: the same version and identifier size" \
  "$(grep -E '^(version|identifier size):' "$JMNT/info")" "$(grep -E '^(version|identifier size):' "$GMNT/info")"
check_eq "the same kind of size rule (64-bit, from the addresses)" \
  "$(grep -o '^size rule: 64-bit JVM, [^:]*' "$JMNT/info")" "$(grep -o '^size rule: 64-bit JVM, [^:]*' "$GMNT/info")"
jo=$(sed -n 2p "$JMNT/latest/classes/java.lang.String/instances" 2>/dev/null)
go=$(sed -n 2p "$GMNT/latest/classes/java.lang.String/instances" 2>/dev/null)
check_eq "a String's object directory has the JVM's files" "$(ls "$JMNT/latest/objects/$jo" | paste -sd' ')" \
  "$(ls "$GMNT/latest/objects/$go" | paste -sd' ')"
check_eq "java.lang.String's fields include the JVM's" "" \
  "$(comm -23 <(awk '{print $1, $2}' "$JMNT/latest/classes/java.lang.String/fields" | sort) \
              <(awk '{print $1, $2}' "$GMNT/latest/classes/java.lang.String/fields" | sort) | paste -sd' ')"
