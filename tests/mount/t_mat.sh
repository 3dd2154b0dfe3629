#!/usr/bin/env bash
# t_mat.sh - what Eclipse MAT answers in one click, as files, on a dump
# whose shape fixes the answers (tests/programs/java/MatViews.java, dumped
# with jcmd): a class holding a 45 MiB byte[] in a static field, 40000
# Sessions reached by three paths (20000, 15000, 5000), a holder of 100
# Items, 120000 Tiny objects.  Sizes come from the JVM's own class histogram (jvm.sh), the
# shape's numbers from the program.  Skips only without java, javac, jcmd.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/jvm.sh"

for tool in java javac jcmd; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "ok - MAT's views # SKIP $tool absent"
    exit 0
  fi
done

mkdir -p "$TESTTMP/classes"
if ! timeout 120 javac -d "$TESTTMP/classes" "$ROOT/tests/programs/java/MatViews.java" 2>"$TESTTMP/javac.err"; then
  sed 's/^/# /' "$TESTTMP/javac.err"
  echo "not ok - javac MatViews.java"
  exit 0
fi
if ! jvm_start "$TESTTMP/jvm.out" -XX:+UseSerialGC -Xmx256m -cp "$TESTTMP/classes" MatViews; then
  sed 's/^/# jvm: /' "$TESTTMP/jvm.out"
  echo "not ok - MatViews printed READY"
  exit 0
fi
jvm_stable_dump mv "$JPID" "$TESTTMP/mv.hprof" || exit 0
kill "$JPID" 2>/dev/null
# jcmd's count and bytes of a class (display name)
jcount() { awk -F '\t' -v c="$1" '$1 == c { print $2 }' "$TESTTMP/mv.h1"; }
jbytes() { awk -F '\t' -v c="$1" '$1 == c { print $3 }' "$TESTTMP/mv.h1"; }
field() { sed -n "s/^$2: \([0-9]*\).*/\1/p" "$1"; }
BIG=$((16 + 45 * 1048576)) # byte[45 MiB], compressed oops

hf_mount "$TESTTMP/mv.hprof" || { echo "not ok - mount the MatViews dump"; exit 0; }
S=$MNT/latest
C=$S/classes
MV=$(sed -n 's/^id: //p' "$C/MatViews/info")
BIGID=$(awk '$1 == "BIG" { print $3 }' "$C/MatViews/statics")
check_eq "BIG is a byte[45 MiB] of $BIG bytes" "$BIG" "$(field "$S/objects/$BIGID/info" size)"

# ---- biggest-shallow, biggest --------------------------------------------------
B=$S/biggest-shallow
check_eq "biggest-shallow: header" "# id${TAB}shallow${TAB}class${TAB}what" "$(head -1 "$B")"
check_eq "biggest-shallow: BIG first" "$BIGID${TAB}$BIG${TAB}byte[]${TAB}length=$((45 * 1048576))" "$(sed -n 2p "$B")"
SECOND=$(awk '$1 == "SECOND" { print $3 }' "$C/MatViews/statics")
check_eq "biggest-shallow: SECOND, an int[2000000], second" "$SECOND${TAB}$((16 + 4 * 2000000))${TAB}int[]${TAB}length=2000000" "$(sed -n 3p "$B")"
check_eq "biggest-shallow: TEXT's byte[600000] third" "$((16 + 600000))${TAB}byte[]${TAB}length=600000" "$(sed -n 4p "$B" | cut -f2-)"
check_eq "biggest-shallow: $((1000 + 1)) lines" 1001 "$(wc -l <"$B")"
check_eq "biggest-shallow: the 1000 largest shallow sizes of tables/objects.tsv" \
  "$(tail -n +2 "$S/tables/objects.tsv" | cut -f3 | sort -nr | head -1000 | md5sum)" "$(tail -n +2 "$B" | cut -f2 | md5sum)"
check "biggest-shallow computes no retained sizes" bash -c "! grep -q 'retained sizes' '$MNT/.stats'"

# ---- suspects, finished; classes/NAME/retained --------------------------------
check "listing computes no retained sizes" bash -c "ls '$S' '$C/MatViews' >/dev/null; ! grep -q 'retained sizes' '$MNT/.stats'"
statics=$(field "$C/MatViews/retained" statics)
check "classes/MatViews/retained: the class object retains BIG through its statics" test "$statics" -ge "$BIG"
check_eq "classes/MatViews/retained: statics is objects/ID/retained of the class object" \
  "$(field "$S/objects/$MV/retained" retained)" "$statics"
check_eq "classes/MatViews/retained: no instances retain anything" 0 "$(field "$C/MatViews/retained" retained)"
check_eq "classes/MatViews\$Session/retained: the instances retain jcmd's bytes" \
  "$(jbytes 'MatViews$Session')" "$(field "$C/MatViews\$Session/retained" retained)"
check_eq "suspects: class MatViews is suspect 1, its statics' bytes, BIG where they sit" \
  "$statics${TAB}1${TAB}$MV${TAB}$BIGID${TAB}class MatViews" "$(sed -n 2p "$S/suspects" | cut -f1,3-)"
check "suspects: no row for the instances of java.lang.Class" \
  bash -c "! awk -F '\t' 'NR > 1 && \$6 == \"java.lang.Class\"' '$S/suspects' | grep -q ."
check_eq "suspects and suspects-report list as many suspects" \
  "$(grep -c '^suspect [0-9]*:' "$S/suspects-report")" "$(tail -n +2 "$S/suspects" | wc -l)"
check "suspects-report: class MatViews is suspect 1, through its static fields" \
  grep -q "^suspect 1: $MV class MatViews retains $statics bytes .*through its static fields" "$S/suspects-report"
check "suspects-report: no suspect is all instances of java.lang.Class" \
  bash -c "! grep -q 'instances of java.lang.Class' '$S/suspects-report'"
sed -n '/^suspect 1:/,/^suspect 2:/p' "$S/suspects-report" >"$TESTTMP/s1"
check "suspects-report: the path reaches the accumulation point via BIG, the field" \
  grep -q "^    $BIGID byte\[\] via BIG$" "$TESTTMP/s1"
check "suspects-report: the path starts at a GC root" bash -c "grep -A1 'path from a GC root' '$TESTTMP/s1' | grep -q '(root: '"
check "suspects-report: every step below the root names its field" \
  bash -c "sed -n '/path from a GC root/,/accumulation point:/p' '$TESTTMP/s1' | sed '1,2d;\$d' | grep -v -q ' via ' && exit 1 || exit 0"
check "suspects-report: the accumulation point is BIG" grep -q "^  accumulation point: $BIGID byte\[\] retains $BIG bytes" "$TESTTMP/s1"

G=$S/biggest
check_eq "biggest: header" "# id${TAB}shallow${TAB}retained${TAB}percent${TAB}class${TAB}what" "$(head -1 "$G")"
check "biggest: largest retained first" bash -c "tail -n +2 '$G' | cut -f3 | sort -c -n -r"
check_eq "biggest: the class MatViews retains its statics" "$MV${TAB}$statics${TAB}java.lang.Class${TAB}class MatViews" \
  "$(awk -F '\t' -v id="$MV" '$1 == id' "$G" | cut -f1,3,5,6)"
check_eq "biggest: BIG retains itself" "$BIG${TAB}$BIG${TAB}byte[]${TAB}length=$((45 * 1048576))" \
  "$(awk -F '\t' -v id="$BIGID" '$1 == id' "$G" | cut -f2,3,5,6)"
LIST=$(awk '$1 == "LIST" { print $3 }' "$C/MatViews/statics")
MAP=$(awk '$1 == "MAP" { print $3 }' "$C/MatViews/statics")
TEXT=$(awk '$1 == "TEXT" { print $3 }' "$C/MatViews/statics")
check_eq "biggest: LIST is an ArrayList of size 20000" "java.util.ArrayList${TAB}size=20000" \
  "$(awk -F '\t' -v id="$LIST" '$1 == id' "$G" | cut -f5,6)"
check_eq "biggest: MAP is a HashMap of size 15000" "java.util.HashMap${TAB}size=15000" \
  "$(awk -F '\t' -v id="$MAP" '$1 == id' "$G" | cut -f5,6)"
check_eq "biggest: TEXT shows its first 80 characters" "java.lang.String${TAB}$(printf 'q%.0s' $(seq 80))..." \
  "$(awk -F '\t' -v id="$TEXT" '$1 == id' "$G" | cut -f5,6)"
check_eq "biggest: the 1000 largest of tables/retained.tsv" \
  "$(tail -n +2 "$S/tables/retained.tsv" | cut -f2 | sort -nr | head -1000 | md5sum)" "$(tail -n +2 "$G" | cut -f3 | md5sum)"

# ---- dominators-by-class, objects/ID/dominated-by-class ---------------------------
HOLDER=$(awk '$1 == "HOLDER" { print $3 }' "$C/MatViews/statics")
check_eq "HOLDER's dominated-by-class: 100 Items, jcmd's bytes, each with its byte[1000]" \
  "100${TAB}$(jbytes 'MatViews$Item')${TAB}$(( $(jbytes 'MatViews$Item') + 100 * (16 + 1000) ))${TAB}MatViews\$Item" \
  "$(tail -n +2 "$S/objects/$HOLDER/dominated-by-class" | cut -f1-3,5)"
check_eq "dominated-by-class: header" "# objects${TAB}shallow${TAB}retained${TAB}percent${TAB}class" \
  "$(head -1 "$S/objects/$HOLDER/dominated-by-class")"
# dominators names a class object "class NAME"; dominators-by-class groups them as java.lang.Class
awk -F '\t' 'NR > 1 { c = $5 ~ /^class / ? "java.lang.Class" : $5; n[c]++; s[c] += $2; r[c] += $3 }
  END { for (c in n) print n[c], s[c], r[c], c }' "$S/dominators" |
  sort >"$TESTTMP/dom.grouped"
tail -n +2 "$S/dominators-by-class" | awk -F '\t' '{ print $1, $2, $3, $5 }' | sort >"$TESTTMP/dbc"
check "dominators-by-class: the dominators view grouped by class" diff "$TESTTMP/dom.grouped" "$TESTTMP/dbc"
check "dominators-by-class: by retained bytes" bash -c "tail -n +2 '$S/dominators-by-class' | cut -f3 | sort -c -n -r"
check "dominators-by-class: class MatViews is among the java.lang.Class objects" \
  test "$(awk -F '\t' '$5 == "java.lang.Class" { print $3 }' "$S/dominators-by-class")" -ge "$statics"

# ---- consumers-by-class, -loader, -package ------------------------------------------
TOTAL=$(sed -n 's/.* the \([0-9]*\) reachable bytes$/\1/p' "$S/suspects-report")
crow() { awk -F '\t' -v c="$2" '$6 == c' "$S/consumers-by-$1" | cut -f1,2; }
check_eq "consumers-by-class: header" "# objects${TAB}retained${TAB}percent${TAB}top_objects${TAB}top_retained${TAB}class" \
  "$(head -1 "$S/consumers-by-class")"
check_eq "consumers-by-class: MatViews is its class object, retaining its statics" "1${TAB}$statics" "$(crow class MatViews)"
sstat=$(field "$C/MatViews\$Session/retained" statics)
check_eq "consumers-by-class: the 40000 Sessions with jcmd's bytes, and their class object" \
  "40001${TAB}$(( $(jbytes 'MatViews$Session') + sstat ))" "$(crow class 'MatViews$Session')"
istat=$(field "$C/MatViews\$Item/retained" statics)
check_eq "consumers-by-class: the 100 Items with their byte[1000], and their class object" \
  "101${TAB}$(( $(jbytes 'MatViews$Item') + 100 * (16 + 1000) + istat ))" "$(crow class 'MatViews$Item')"
check_eq "consumers-by-loader: top_retained adds up to the reachable bytes" "$TOTAL" \
  "$(awk -F '\t' 'NR > 1 { s += $5 } END { print s }' "$S/consumers-by-loader")"
check "consumers-by-class: top_retained adds up to at most the reachable bytes" \
  test "$(awk -F '\t' 'NR > 1 { s += $5 } END { print s }' "$S/consumers-by-class")" -le "$TOTAL"
# every class with reachable instances (retained bytes) has a row
awk -F '\t' 'NR > 1 && $3 > 0 { print $4 }' "$S/histogram-retained" | LC_ALL=C sort >"$TESTTMP/with"
tail -n +2 "$S/consumers-by-class" | cut -f6 | LC_ALL=C sort >"$TESTTMP/rows"
check_eq "consumers-by-class: a row for every class with reachable instances" "" "$(LC_ALL=C comm -23 "$TESTTMP/with" "$TESTTMP/rows" | head -3)"
check_eq "consumers-by-package: top_retained of the outermost packages adds up to the reachable bytes" "$TOTAL" \
  "$(awk -F '\t' 'NR > 1 && $6 !~ /\./ { s += $5 } END { print s }' "$S/consumers-by-package")"
app=$(awk -F '\t' '$6 ~ /AppClassLoader$/ { print $2 }' "$S/consumers-by-loader")
check "consumers-by-loader: the application's loader retains MatViews's statics" test "${app:-0}" -ge "$statics"
check "consumers-by-package: <default> (MatViews's package) retains its statics" \
  test "$(crow package '<default>' | cut -f2)" -ge "$statics"
check "consumers-by-package: java retains at least java.util" \
  test "$(crow package java | cut -f2)" -ge "$(crow package java.util | cut -f2)"
check "consumers-by-class: by retained bytes" bash -c "tail -n +2 '$S/consumers-by-class' | cut -f2 | sort -c -n -r"

# ---- classes/NAME/paths --------------------------------------------------------------
P=$C/MatViews\$Session/paths
prow() { awk -F '\t' -v p="$2" '{ t = $3; sub(/^ */, "", t) } t == p { print $1 "/" $2 }' "$1"; }
check_eq "paths: header" "# instances${TAB}objects${TAB}path" "$(head -1 "$P")"
check_eq "paths: the top rows hold all 40000 Sessions (jcmd's count)" "$(jcount 'MatViews$Session')" \
  "$(awk -F '\t' 'NR > 1 && $3 !~ /^ / { s += $1 } END { print s }' "$P")"
check_eq "paths: 20000 through LIST, 15000 through MAP, 5000 through CHAIN" "20000/1 15000/1 5000/5000" \
  "$(prow "$P" 'java.util.ArrayList via LIST') $(prow "$P" 'java.util.HashMap via MAP') $(prow "$P" 'MatViews$Link via CHAIN (a chain of up to 5000)')"
check_eq "paths: the Sessions themselves, by the field that holds them" "20000/20000 15000/15000 5000/5000" \
  "$(prow "$P" 'MatViews$Session via []') $(prow "$P" 'MatViews$Session via value') $(prow "$P" 'MatViews$Session via session')"
check "paths: the class MatViews on every path" grep -q "^40000${TAB}1${TAB} *class MatViews via " "$P"
check "paths: a class without instances has none" test ! -e "$C/MatViews/paths"
T=$C/MatViews\$Tiny/paths
check_eq "paths: the work is bounded to 100000 of the 120000 Tiny objects, said in a row" \
  "100000/100000 20000/0" "$(prow "$T" 'MatViews$Tiny via []') $(awk -F '\t' '$3 ~ /^\(not followed/ { print $1 "/" $2 }' "$T")"
