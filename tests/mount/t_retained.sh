#!/usr/bin/env bash
# t_retained.sh - what keeps memory alive, on a dump whose structure fixes
# the answers (tests/programs/java/RetainedShape.java, dumped with
# `jcmd GC.heap_dump -all`, so weakly held and unreachable objects are in
# it): retained sizes, dominators, referrers, paths from GC roots, the
# reference semantics (-o retained=), unreachable objects and suspects.
# Expected numbers come from the JVM's own class histogram (sizes per
# class) and, where Debian's visualvm is installed, from VisualVM's heap
# library (tests/programs/java/VvmRetained.java), which nobody here wrote.
source "$(dirname "$0")/lib.sh"

OUT=$TESTTMP/rs
if ! bash "$ROOT/tests/programs/java/mkdump_retained.sh" "$OUT" >"$TESTTMP/mk.log" 2>&1; then
  sed 's/^/# /' "$TESTTMP/mk.log" | tail -5
  echo "not ok - RetainedShape dumped (needs a JDK)"
  exit 0
fi
DUMP=$OUT/retained.hprof
HIST=$OUT/histogram.txt
# bytes per instance of a class, from `jcmd GC.class_histogram`
jsize() { awk -v c="$1" '$4 == c { print $3 / $2 }' "$HIST"; }
jbytes() { awk -v c="$1" '$4 == c { print $3 }' "$HIST"; }
field() { sed -n "s/^$2: \([0-9]*\).*/\1/p" "$1"; }

hf_mount "$DUMP" || { echo "not ok - mount RetainedShape dump"; exit 0; }
S=$MNT/latest
C=$S/classes

# nothing computed by listing or by the old views
ls "$S/objects" >/dev/null
H10=$(cat "$C/RetainedShape\$Holder10/instances")
cat "$S/objects/$H10/info" "$S/histogram" >/dev/null
ls "$S/objects/$H10" >/dev/null
check "listing and the old views compute no retained sizes" bash -c "! grep -q 'retained sizes' '$MNT/.stats'"

# an object holding ten unique 1 MB arrays retains them, the array and itself
arr=$(readlink "$S/objects/$H10/refs/arrays"); arr=${arr##*/}
elems=0
for e in "$S/objects/$arr/refs/"*; do elems=$((elems + $(field "$e/info" size))); done
# a byte[1 << 20] is 16 header bytes (compressed oops) + 1 MiB
check_eq "the ten arrays are 1 MiB byte arrays" "$((10 * (16 + 1048576)))" "$elems"
want=$(( $(jsize 'RetainedShape$Holder10') + $(field "$S/objects/$arr/info" size) + elems ))
check_eq "Holder10 retains itself, its Object[10] and ten byte[1 MiB]" "$want" "$(field "$S/objects/$H10/retained" retained)"
check ".stats says the retained sizes were computed" grep -q 'retained sizes, snapshot 1: computed' "$MNT/.stats"
check_eq "Holder10 dominates exactly its array" "1-$arr" "$(ls "$S/objects/$H10/dominated")"
check_eq "the array dominates the ten byte arrays" "10" "$(ls "$S/objects/$arr/dominated" | wc -l)"
check_eq "the array's dominator link leads to Holder10" "../$H10" "$(readlink "$S/objects/$arr/dominator")"

# two holders sharing one object: each retains only itself
SH=$(jsize 'RetainedShape$SharedHolder')
for h in $(cat "$C/RetainedShape\$SharedHolder/instances"); do
  check_eq "SharedHolder $h retains only itself" "$SH" "$(field "$S/objects/$h/retained" retained)"
done
SHARED=$(cat "$C/RetainedShape\$Shared/instances")
got=$(ls "$S/objects/$SHARED/referrers" | sed 's/\..*//' | sort | tr '\n' ' ')
check_eq "Shared's referrers are exactly the two holders" "$(sort "$C/RetainedShape\$SharedHolder/instances" | tr '\n' ' ')" "$got"
check "referrers are named by the field" bash -c "ls '$S/objects/$SHARED/referrers' | grep -qx '0x[0-9a-f]*\.shared'"
check "Shared is not dominated by either holder" bash -c "! grep -q SharedHolder '$S/objects/$SHARED/retained'"

# a deep chain: node i (index i, 0 at the head, held by RetainedShape.chain)
# retains itself and the nodes after it, (LENGTH - i) x 24 bytes, and its
# dominator is node i - 1 (the head's: the RetainedShape class).  Checked on
# the head and on every 500th node of classes/ChainNode/instances (200 nodes
# spread over the chain): reading the retained file of all 100000 nodes, one
# lookup each, took 3.5 minutes.
ffield() { awk -v f="$2" '$1 == f { print $3 }' "$S/objects/$1/fields"; }
LENGTH=$(awk '$1 == "CHAIN_LENGTH" { print $3 }' "$C/RetainedShape/statics")
CHAIN=$(awk '$1 == "chain" { print $3 }' "$C/RetainedShape/statics")
NODE=$(jsize 'RetainedShape$ChainNode')
check_eq "the chain has CHAIN_LENGTH nodes, all of its class's instances" "$LENGTH" \
  "$(wc -l <"$C/RetainedShape\$ChainNode/instances")"
check_eq "RetainedShape.chain is node 0" 0 "$(ffield "$CHAIN" index)"
check_eq "the chain's head retains the whole chain" "$(jbytes 'RetainedShape$ChainNode')" \
  "$(field "$S/objects/$CHAIN/retained" retained)"
check_eq "the head's dominator is the RetainedShape class" \
  "../$(sed -n 's/^id: //p' "$C/RetainedShape/info")" "$(readlink "$S/objects/$CHAIN/dominator")"
bad=0; n=0
while read -r o; do
  n=$((n + 1))
  i=$(ffield "$o" index)
  r=$(field "$S/objects/$o/retained" retained)
  d=$(readlink "$S/objects/$o/dominator")
  di=$([ "$i" -gt 0 ] && ffield "${d#../}" index)
  if [ "$r" != $(( (LENGTH - i) * NODE )) ] || { [ "$i" -gt 0 ] && [ "$di" != $((i - 1)) ]; }; then
    bad=$((bad + 1))
    [ $bad -le 3 ] && echo "# ChainNode $o, index $i: retained $r (want $(( (LENGTH - i) * NODE ))), dominator $d (index $di)"
  fi
done < <(awk 'NR % 500 == 1' "$C/RetainedShape\$ChainNode/instances")
check "every 500th chain node retains (LENGTH - index) x $NODE bytes and is dominated by the node before it ($n nodes)" \
  test "$n" -ge 200 -a "$bad" -eq 0
check_eq "classes/ChainNode/retained counts the chain once" "$(jbytes 'RetainedShape$ChainNode')" \
  "$(field "$C/RetainedShape\$ChainNode/retained" retained)"

# the shortest path from a root passes through the holders
T=$(cat "$C/RetainedShape\$PathTarget/instances")
check "path: the root first, with its kind" bash -c "head -1 '$S/objects/$T/path' | grep -q '(root: '"
check_eq "path: PathA via pathRoot, PathB via b, PathTarget via c" \
  "RetainedShape\$PathA via pathRoot|RetainedShape\$PathB via b|RetainedShape\$PathTarget via c" \
  "$(tail -3 "$S/objects/$T/path" | cut -d' ' -f2- | paste -sd'|')"

# reference semantics: by default soft and weak referents keep nothing alive
W=$(cat "$C/RetainedShape\$WeakHolder/instances")
SO=$(cat "$C/RetainedShape\$SoftHolder/instances")
weak_default=$(field "$S/objects/$W/retained" retained)
soft_default=$(field "$S/objects/$SO/retained" retained)
check "default: the weakly held 3 MiB array is not retained" test "$weak_default" -lt 3145728
check "default: the softly held 2 MiB array is not retained" test "$soft_default" -lt 2097152
check "default: the weakly held array is listed as unreachable" \
  bash -c "awk '\$3 == \"byte[]\" && \$2 >= 3145744' '$S/unreachable' | grep -q ."
check_eq "unreachable: the 1000 dropped Garbage objects" "1000" \
  "$(awk '$3 == "RetainedShape$Garbage" { print $1 }' "$S/unreachable")"
check "unreachable objects have no dominator" grep -q 'no GC root reaches' \
  "$S/objects/$(head -1 "$C/RetainedShape\$Garbage/instances")/retained"
check_eq "histogram-retained: Holder10 retains the same" "$want" \
  "$(awk '$4 == "RetainedShape$Holder10" { print $3 }' "$S/histogram-retained")"
check "dominators: largest retained first" bash -c "awk 'NR > 1 { print \$3 }' '$S/dominators' | sort -c -n -r"
check "dominators: no unreachable object among them" \
  bash -c "! grep -q \"^$(head -1 "$C/RetainedShape\$Garbage/instances")$(printf '\t')\" '$S/dominators'"
# a class object is "class NAME" there as in path and suspects (issue 22)
cls=$(awk -F'\t' 'NR > 1 && $5 ~ /^class / { print $1 "\t" $5; exit }' "$S/dominators")
check "dominators names a class object 'class NAME' ($(echo "$cls" | cut -f2))" test -n "$cls"
check_eq "... as its path does" "${cls%%$'\t'*} ${cls#*$'\t'}" \
  "$(tail -1 "$S/objects/${cls%%$'\t'*}/path" | sed 's/ (root: .*//; s/ via .*//')"
top=$(awk 'NR == 2 { print $1 }' "$S/dominators")
check "dominators: the top one's dominator link leads to the list" test "$(readlink "$S/objects/$top/dominator")" = ../../dominators
check "suspects: the accumulation point is the Object[] of Holder10" \
  bash -c "awk -F'\t' -v a='$arr' 'NR > 1 && \$5 == a' '$S/suspects' | grep -q ."
hf_umount

for level in soft phantom; do
  hf_mount "$DUMP" -o retained=$level || { echo "not ok - mount -o retained=$level"; continue; }
  S=$MNT/latest
  w=$(field "$S/objects/$W/retained" retained)
  s=$(field "$S/objects/$SO/retained" retained)
  if [ $level = soft ]; then
    check "-o retained=soft: the soft referent counts" test "$s" -ge $((soft_default + 2097152))
    check_eq "-o retained=soft: the weak referent still does not" "$weak_default" "$w"
  else
    check "-o retained=phantom (MAT's view): the weak referent counts" test "$w" -ge $((weak_default + 3145728))
    check "-o retained=phantom: the soft referent counts" test "$s" -ge $((soft_default + 2097152))
  fi
  hf_umount
done
check "-o retained=bogus is refused" bash -c "! '$HEAPFS' --check -o retained=bogus '$DUMP'"

# VisualVM's heap library as an independent oracle, where Debian's visualvm is installed
J=/usr/share/visualvm/visualvm/modules/org-graalvm-visualvm-lib-jfluid-heap.jar
if [ -f "$J" ] && javac -cp "$J" -d "$TESTTMP/vvm" "$ROOT/tests/programs/java/VvmRetained.java" 2>/dev/null; then
  hf_mount "$DUMP"
  S=$MNT/latest
  java -cp "$J:$TESTTMP/vvm" VvmRetained "$DUMP" 'RetainedShape$Holder10' 'RetainedShape$SharedHolder' \
    'RetainedShape$Shared' 'RetainedShape$PathA' 'RetainedShape$PathB' 'RetainedShape$PathTarget' \
    'RetainedShape$WeakHolder' 'RetainedShape$SoftHolder' >"$TESTTMP/vvm.txt" 2>"$TESTTMP/vvm.err"
  bad=0; n=0
  while read -r id shallow retained cls; do
    n=$((n + 1))
    got=$(field "$S/objects/$id/retained" retained)
    [ "$got" = "$retained" ] || { bad=$((bad + 1)); echo "# $cls $id: VisualVM $retained, heapfs $got"; }
  done <"$TESTTMP/vvm.txt"
  check "VisualVM's retained sizes equal heapfs's for $n objects" test "$n" -ge 8 -a "$bad" -eq 0
  hf_umount
else
  echo "ok - VisualVM comparison # SKIP visualvm is not installed"
fi
