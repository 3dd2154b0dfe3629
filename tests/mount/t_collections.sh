#!/usr/bin/env bash
# t_collections.sh - collections/instances, collections/classes,
# objects/ID/entries and waste/ (docs/inspect.md) on a dump of
# tests/programs/java/Collections.java, whose collections' sizes and
# capacities the JVM printed itself (by reflection), whose equal arrays,
# boxes and zeros are known, and on the JDK 6 and 8
# dumps of the corpus, whose HashMap, LinkedList and ConcurrentHashMap
# layouts differ: there every collection's entries number its size.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/jvm.sh"
source "$(dirname "$0")/collections.sh"

collections_dump
ls "$S" >/dev/null
cat "$S/collections/instances" "$S/collections/classes" "$S/waste/collections" >/dev/null
check "the collection views compute no retained sizes" bash -c "! grep -q 'retained sizes' '$MNT/.stats'"
check_eq "collections/instances header" "# id	size	capacity	fill_percent	wasted	bytes	class" \
  "$(head -1 "$S/collections/instances")"

# every collection the program printed: size, capacity, fill and waste
bad=0 n=0
while read -r _ field size cap; do
  n=$((n + 1))
  id=$(static_id "$field")
  row=$(awk -F '\t' -v id="$id" '$1 == id { print $2, $3, $4, $5 }' "$S/collections/instances")
  case $field in
  identityMap | mapOf) w=$(( $(arr_bytes $((2 * cap))) - $(arr_bytes $((2 * size))) )) ;;
  treeMap | linkedList | cowList | listOf) w=0 ;;
  *) w=$(( cap > size ? $(arr_bytes "$cap") - $(arr_bytes "$size") : 0 )) ;;
  esac
  fill=$(awk -v s="$size" -v c="$cap" 'BEGIN { printf "%.2f", c ? 100 * s / c : 0 }')
  [ "$row" = "$size $cap $fill $w" ] || { bad=$((bad + 1)); echo "# $field: want $size $cap $fill $w, got $row"; }
done < <(grep '^coll ' "$OUT")
check_eq "size, capacity, fill and waste of the program's $n collections" "0" "$bad"
[ "$n" -ge 23 ] || echo "not ok - the program printed 23 collections ($n)"

# entries: what the program put, in the collection's own order where it has one
what() { awk -F '\t' 'NR > 1 { print $3 }' "$S/objects/$(static_id "$1")/entries"; }
check_eq "hashMap's 100 entries are \"kI\" = Integer(1000 I)" \
  "$(for i in $(seq 0 99); do echo "\"k$i\" = Integer($((1000 * i)))"; done | sort)" "$(what hashMap | sort)"
check_eq "hashMap's entries: key and value ids are objects" "100" \
  "$(awk -F '\t' 'NR > 1 && $1 ~ /^0x[0-9a-f]+$/ && $2 ~ /^0x[0-9a-f]+$/' "$S/objects/$(static_id hashMap)/entries" | wc -l)"
check_eq "arrayList's elements in order" "$(for i in $(seq 0 10); do echo "Long($((1000000 + i)))"; done)" \
  "$(what arrayList)"
check_eq "arrayList's elements are indexed 0 to 10" "$(seq 0 10)" \
  "$(awk -F '\t' 'NR > 1 { print $1 }' "$S/objects/$(static_id arrayList)/entries")"
check_eq "treeMap's entries in key order" "$(for i in 0 1 2 3 4; do echo "\"k$i\" = \"k$i\""; done)" "$(what treeMap)"
check_eq "linkedList's elements in order" "$(for i in 0 1 2 3; do echo "\"k$i\""; done)" "$(what linkedList)"
check_eq "deque's elements from head to tail" "$(for i in 0 1 2 3 4; do echo "\"k$i\""; done)" "$(what deque)"
check_eq "hashSet's elements are its 20 keys" "$(for i in $(seq 0 19); do echo "\"k$i\""; done | sort)" "$(what hashSet | sort)"
check_eq "concurrentMap's 50 entries" "$(for i in $(seq 0 49); do echo "\"k$i\" = \"k$i\""; done | sort)" "$(what concurrentMap | sort)"
check_eq "identityMap's 4 entries" "$(for i in 0 1 2 3; do echo "\"k$i\" = \"k$i\""; done | sort)" "$(what identityMap | sort)"
check_eq "Set.of's 5 elements" "$(for i in 0 1 2 3 4; do echo "\"k$i\""; done)" "$(what setOf | sort)"
check_eq "Map.of's 3 entries" "$(for i in 0 2 4; do echo "\"k$i\" = \"k$((i + 1))\""; done)" "$(what mapOf | sort)"
check_eq "List.of's 4 elements in order" "$(for i in 0 1 2 3; do echo "\"k$i\""; done)" "$(what listOf)"
check_eq "an empty map's entries are its header" "# key	value	what" "$(cat "$S/objects/$(static_id emptyMap)/entries")"
check "a String has no entries file" bash -c "! ls '$S/objects/$(awk -F '\t' 'NR == 2 { print $1 }' "$S/objects/$(static_id hashMap)/entries")' | grep -qx entries"

# collections/classes: counts are the JVM's, and the two views agree
awk -F '\t' 'NR > 1 { print $12 "\t" $1 }' "$S/collections/classes" | LC_ALL=C sort >"$TESTTMP/cc"
LC_ALL=C join -t "$TAB" "$TESTTMP/cc" "$TESTTMP/coll.h1" | awk -F '\t' '$2 != $3' >"$TESTTMP/cc.diff"
check_eq "collections/classes: objects equal jcmd's instances for every class" "" "$(head -3 "$TESTTMP/cc.diff")"
check "collections/classes lists HashMap, ArrayList, ConcurrentHashMap, ArrayDeque" bash -c \
  "[ \$(grep -cE '	java\.util\.(HashMap|ArrayList|concurrent\.ConcurrentHashMap|ArrayDeque)$' '$S/collections/classes') = 4 ]"
check_eq "empty plus the four fill bands are all objects, every class" "" \
  "$(awk -F '\t' 'NR > 1 && $2 + $8 + $9 + $10 + $11 != $1' "$S/collections/classes")"
sumi=$(awk -F '\t' 'NR > 1 { n[$7]++; s[$7] += $2; c[$7] += $3; w[$7] += $5; e[$7] += ($2 == 0) }
  END { for (k in n) print n[k], e[k], s[k], c[k], w[k], k }' "$S/collections/instances" | sort)
sumc=$(awk -F '\t' 'NR > 1 { print $1, $2, $4, $5, $6, $12 }' "$S/collections/classes" | sort)
check_eq "collections/classes sums collections/instances" "$sumi" "$sumc"
check "ArrayList: the program's empty and one-element lists are counted" bash -c \
  "awk -F '\t' '\$5 == \"java.util.ArrayList\" && \$1 >= 1 && \$3 >= 1' '$S/waste/collections' | grep -q ."
check_eq "waste/collections agrees with collections/classes" \
  "$(awk -F '\t' 'NR > 1 && $2 + $3 { print $2, $3, $12 }' "$S/collections/classes" | sort)" \
  "$(awk -F '\t' 'NR > 1 { print $1, $3, $5 }' "$S/waste/collections" | sort)"

# waste/arrays: the program's equal arrays, and no String's value
elems() { awk '{ print $2 }' "$S/objects/$(static_id "$1")/fields" | sort | head -1; }
check_eq "waste/arrays: the five int[100], 4 copies beyond the first" \
  "5 $((4 * (16 + 400))) 100 $(elems dupInts) int[]" \
  "$(awk -F '\t' -v id="$(elems dupInts)" '$4 == id { print $1, $2, $3, $4, $5 }' "$S/waste/arrays")"
check_eq "waste/arrays: the three byte[1000]" "3 $((2 * 1016)) 1000 $(elems dupBytes) byte[]" \
  "$(awk -F '\t' -v id="$(elems dupBytes)" '$4 == id { print $1, $2, $3, $4, $5 }' "$S/waste/arrays")"
vals=$(for s in $(awk '{ print $2 }' "$S/objects/$(static_id dupStrings)/fields"); do
  awk '$1 == "value" { print $3 }' "$S/objects/$s/fields"; done)
check_eq "dupStrings: two Strings with arrays of their own" "2" "$(sort -u <<<"$vals" | grep -c 0x)"
check "waste/arrays leaves out the Strings' equal arrays" bash -c \
  "! awk -F '\t' 'NR > 1 { print \$4 }' '$S/waste/arrays' | grep -qxF '$(head -1 <<<"$vals")'"
check_eq "waste/arrays: rows of 2 copies or more, wasted a multiple of the copies" "" \
  "$(awk -F '\t' 'NR > 1 && ($1 < 2 || $2 % ($1 - 1))' "$S/waste/arrays" | head -3)"

# waste/boxed: counts and bytes are the JVM's; the program's 1000 distinct Longs
awk -F '\t' 'NR > 1 { print $5 "\t" $1 "\t" $2 }' "$S/waste/boxed" | LC_ALL=C sort >"$TESTTMP/boxed"
check_eq "waste/boxed: objects and bytes equal jcmd's for every box class" "" \
  "$(LC_ALL=C join -t "$TAB" "$TESTTMP/boxed" "$TESTTMP/coll.h1" | awk -F '\t' '$2 != $4 || $3 != $5')"
check "waste/boxed: Long and Integer rows" bash -c \
  "[ \$(grep -cE '	java\.lang\.(Long|Integer)\$' '$S/waste/boxed') = 2 ]"
check "waste/boxed: at least the program's 1000 distinct Longs" bash -c \
  "awk -F '\t' '\$5 == \"java.lang.Long\" && \$3 >= 1000 && \$4 == (\$1 - \$3) * 24' '$S/waste/boxed' | grep -q ."

# waste/zeros: the long[10000] of zeros, and nothing less than 90% zero
check_eq "waste/zeros: the program's long[10000]" "$(static_id zeros) 10000 10000 80016 long[]" \
  "$(awk -F '\t' -v id="$(static_id zeros)" '$1 == id { print $1, $2, $3, $4, $5 }' "$S/waste/zeros")"
check_eq "waste/zeros: every row 16 elements or more, 90% zero or more" "" \
  "$(awk -F '\t' 'NR > 1 && ($2 < 16 || $3 * 100 < $2 * 90)' "$S/waste/zeros" | head -3)"
check "waste/zeros: the program's arrays of equal non-zero contents are not there" bash -c \
  "! grep -q '$(elems dupInts)' '$S/waste/zeros'"
check "the waste views compute no retained sizes" bash -c "! grep -q 'retained sizes' '$MNT/.stats'"
check "the tables follow the views' convention (header, columns, numbers)" tables_ok "$S"
hf_umount

# the JDK 6 and 8 dumps of the corpus: every collection's entries number its size
for f in mat_sun_jdk6_18_x64 mat_oracle_jdk8_05_x64; do
  hf_mount "$CORPUS/hprof/$f.hprof" || { echo "not ok - mount $f"; continue; }
  C=$MNT/latest
  n=0 bad=0
  while IFS="$TAB" read -r id size _; do
    n=$((n + 1))
    e=$(($(wc -l <"$C/objects/$id/entries") - 1))
    [ "$e" = "$size" ] || { bad=$((bad + 1)); echo "# $f: $id: size $size, $e entries"; }
  done < <(tail -n +2 "$C/collections/instances")
  check_eq "$f: every one of $n collections has as many entries as its size" "0" "$bad"
  check "$f: the tables follow the views' convention" tables_ok "$C"
  for c in java.util.HashMap java.util.Hashtable java.util.concurrent.ConcurrentHashMap java.util.ArrayList; do
    check "$f: $c has non-empty instances" bash -c \
      "awk -F '\t' '\$7 == \"$c\" && \$2 > 0 && \$3 >= \$2' '$C/collections/instances' | grep -q ."
  done
  hf_umount
done
