#!/usr/bin/env bash
# t_tables.sh - the tables (docs/tables.md) read as a user reads them: with
# awk, sqlite3, tail and dd, against the mount's own views and a live JVM.
#
#  1. Every corpus file (HPROF, BMD, HPROF text, gperftools) and OEMP
#     fixture: each tables/*.tsv and the table.tsv of a few classes has the
#     header's column count on every row, and its size (stat) is the bytes read;
#     the columns are named as the views name them (tables/sites.tsv: the
#     `sites` view's columns, in its order).
#  2. A JVM dump of the corpus: sqlite3 imports objects.tsv and its GROUP BY
#     class equals the histogram; classes.tsv's counts equal it too; rows of
#     classes/NAME/table.tsv equal the fields files of the same objects; reads
#     at offsets (dd, tail) give the bytes a whole read gives there.
#  3. A small dump: references.tsv equals the union of the refs/ directories
#     and, reversed, what the referrers/ directories say.
#  4. tests/programs/java/TableShape.java, dumped fresh with jcmd: awk finds
#     its objects by their known field values, Strings join by id, and the
#     hostile texts (tab, newline, backslash) stay in their column.
#     Skipped (said so) without java, javac and jcmd.
. "$(dirname "$0")/lib.sh"
TAB=$(printf '\t')

# cols_ok FILE: every row has the header's column count, the file ends in a newline
cols_ok() {
  awk -F '\t' 'NR == 1 { n = NF } NF != n { print FILENAME ": row " NR ": " NF " columns, not " n; bad = 1 }
               END { exit bad }' "$1" >&2 && [ "$(tail -c 1 "$1" | od -An -c | tr -d ' ')" = '\n' ]
}
# size_ok FILE: stat's size is what reading gives
size_ok() { [ "$(stat -c %s "$1")" = "$(cat "$1" | wc -c)" ]; }

# ---- 1. every corpus file --------------------------------------------------------
for dump in "$CORPUS"/hprof/*.hprof "$CORPUS"/hprof/*.bin "$CORPUS"/bmd/*.bmd "$CORPUS"/hprof-txt/*.txt \
            "$CORPUS"/pprof-heap/*.heap "$CORPUS"/pprof-heap/*.growth "$ROOT"/tests/fixtures/*.oemp; do
  name=$(basename "$dump")
  hf_mount "$dump" || { echo "not ok - $name: mount"; continue; }
  n=0 bad=0 badsize=0
  for t in "$MNT"/snapshots/*/tables/*.tsv; do
    [ -e "$t" ] || continue
    n=$((n + 1))
    cols_ok "$t" || bad=$((bad + 1))
    size_ok "$t" || { badsize=$((badsize + 1)); echo "# $t: size $(stat -c %s "$t"), read $(wc -c <"$t")"; }
  done
  for s in "$MNT"/snapshots/*; do
    [ -f "$s/histogram" ] || continue
    # the biggest classes, an array class and java.lang.String where there is one
    { grep -v '^#' "$s/histogram" | head -4 | cut -f3
      echo "java.lang.String"; echo "int[]"; echo "java.lang.Object[]"; } | while IFS= read -r c; do
      [ -f "$s/classes/$c/table.tsv" ] && echo "$s/classes/$c/table.tsv"
    done >"$TESTTMP/picked"
    while IFS= read -r t; do
      n=$((n + 1))
      cols_ok "$t" || bad=$((bad + 1))
      size_ok "$t" || badsize=$((badsize + 1))
    done <"$TESTTMP/picked"
  done
  check "$name: has tables" test "$n" -gt 0
  # one name for one idea: a sites table has the sites view's columns
  # (after HPROF's record and rank), and no table says instances, live_ or
  # *_bytes where the views say objects, inuse_space, alloc_space
  for s in "$MNT"/snapshots/*; do
    [ -f "$s/tables/sites.tsv" ] && [ -f "$s/sites" ] || continue
    check_eq "$name: $(basename "$s")/tables/sites.tsv has the columns of sites" \
      "$(head -1 "$s/sites" | sed 's/^# //')" "$(head -1 "$s/tables/sites.tsv" | sed 's/^record\trank\t//')"
  done
  odd=$(for t in "$MNT"/snapshots/*/tables/*.tsv; do
          [ -e "$t" ] && head -1 "$t" | tr '\t' '\n' | grep -xE 'instances|live_.*|(inuse|alloc)_bytes' | sed "s|^|$(basename "$t"): |"
        done | sort -u)
  check_eq "$name: the tables name columns as the views do (docs/views.md)" "" "$odd"
  check_eq "$name: $n tables have the header's column count on every row" 0 "$bad"
  check_eq "$name: sizes of the tables are the bytes read" 0 "$badsize"
  hf_umount
done

# ---- 2. a JVM dump: sqlite3, the histogram, the fields files ---------------------
hf_mount "$CORPUS/hprof/mat_oracle_jdk8_05_x64.hprof" || { echo "not ok - mount"; exit 1; }
S=$MNT/latest
T=$S/tables
check "the generated README states the tables' convention" grep -q "^Tables (tables/\*.tsv" "$MNT/README"
check_eq "objects.tsv's header" "id${TAB}class${TAB}shallow${TAB}length" "$(head -1 "$T/objects.tsv")"
check_eq "objects.tsv has one row per object" "$(sed -n 's/^objects: //p' "$MNT/info")" \
  "$(($(wc -l <"$T/objects.tsv") - 1))"
# the histogram as "count bytes class", sorted
grep -v '^#' "$S/histogram" | awk -F '\t' '{ print $1, $2, $3 }' |
  LC_ALL=C sort >"$TESTTMP/hist"
if command -v sqlite3 >/dev/null; then
  # ascii mode with TAB and newline: no CSV quoting, every byte as it is
  sqlite3 -batch "$TESTTMP/t.db" ".mode ascii" ".separator \"\\t\" \"\\n\"" ".import $T/objects.tsv objects" ".mode list" \
    "SELECT count(*) || ' ' || sum(shallow) || ' ' || class FROM objects GROUP BY class;" 2>"$TESTTMP/sqlite.err" |
    LC_ALL=C sort >"$TESTTMP/sql"
  check "sqlite3: objects.tsv's GROUP BY class equals the histogram" diff "$TESTTMP/hist" "$TESTTMP/sql"
  check_eq "sqlite3: objects.tsv imports without a message" "" "$(cat "$TESTTMP/sqlite.err")"
else
  echo "not ok - sqlite3 is installed (contrib/install-deps.sh)"
fi
awk -F '\t' 'NR > 1 && $6 > 0 { print $6, $7, $2 }' "$T/classes.tsv" | LC_ALL=C sort >"$TESTTMP/ctsv"
check "classes.tsv's objects and bytes equal the histogram" diff "$TESTTMP/hist" "$TESTTMP/ctsv"

# table.tsv against the fields files: booleans as 1/0, chars as their
# code, null empty; the columns are the fields in the fields file's order.
fields_row() {
  awk 'function hex(s,   i, n) { n = 0; for (i = 1; i <= length(s); i++) n = n * 16 + index("0123456789abcdef", tolower(substr(s, i, 1))) - 1; return n }
       BEGIN { for (i = 32; i < 127; i++) ord[sprintf("%c", i)] = i }
       NR > 1 { v = $3
         if ($2 == "boolean") v = (v == "true") ? 1 : 0
         else if ($2 == "char") v = (v ~ /^.\\u/) ? hex(substr(v, 4, 4)) : ord[substr(v, 2, 1)]
         else if (v == "null") v = ""
         row = row "\t" v }
       END { print row }' FS='\t' "$1"
}
nbad=0 n=0
for c in java.util.HashMap java.lang.Thread java.util.ArrayList java.lang.String; do
  tbl=$S/classes/$c/table.tsv
  while IFS= read -r id; do
    n=$((n + 1))
    want=$(fields_row "$S/objects/$id/fields")
    got=$(awk -F '\t' -v id="$id" -v drop="$([ "$c" = java.lang.String ] && echo 1 || echo 0)" \
      '$1 == id { row = ""; for (i = 3; i <= NF - drop; i++) row = row "\t" $i; print row }' "$tbl")
    [ "$want" = "$got" ] || { nbad=$((nbad + 1)); echo "# $c $id: fields '$want' table '$got'"; }
  done < <(awk 'NR % 7 == 1' "$S/classes/$c/instances" | head -8)
done
check_eq "rows of table.tsv equal the fields files ($n objects of 4 classes)" 0 "$nbad"
# the String text column: strings's text for the same ids
awk -F '\t' 'NR > 1 { print $1 " " $NF }' "$S/classes/java.lang.String/table.tsv" | LC_ALL=C sort >"$TESTTMP/stext"
# strings escapes TAB, newlines, CR, NUL and backslashes as the table does,
# and other control bytes (\xHH, C1 as \u00HH) that the table keeps: undone
python3 - "$S/strings" <<'PY' | LC_ALL=C sort >"$TESTTMP/strings"
import re, sys
def raw(m):
    s = m.group(0)
    if s[1:2] == b'x':
        return bytes([int(s[2:], 16)])
    return chr(int(s[2:], 16)).encode() if s[1:2] == b'u' else s
for line in open(sys.argv[1], 'rb').read().split(b'\n')[1:-1]:
    oid, text = line.split(b'\t', 1)
    text = re.sub(rb'\\x[0-9a-f]{2}|\\u00[0-9a-f]{2}|\\.', raw, text)
    sys.stdout.buffer.write(oid + b' ' + text + b'\n')
PY
check "java.lang.String/table.tsv's text column is the strings view's text" diff "$TESTTMP/strings" "$TESTTMP/stext"
# reads at offsets
cat "$T/references.tsv" >"$TESTTMP/refs.whole"
size=$(stat -c %s "$TESTTMP/refs.whole")
bad=0
for off in 1 4095 4096 65535 $((size / 3)) $((size / 2 + 17)) $((size - 5000)); do
  cmp -s <(dd if="$T/references.tsv" bs=1 skip="$off" count=3000 status=none) \
         <(dd if="$TESTTMP/refs.whole" bs=1 skip="$off" count=3000 status=none) || bad=$((bad + 1))
done
check_eq "references.tsv read at 7 offsets equals the whole read there" 0 "$bad"
check "tail -c of objects.tsv equals the end of a whole read" \
  cmp <(tail -c 100000 "$T/objects.tsv") <(cat "$T/objects.tsv" | tail -c 100000)
hf_umount

# ---- 3. references.tsv against refs/ and referrers/ -------------------------------
# retained=phantom: every referent is an edge of the graph referrers/ shows
hf_mount "$CORPUS/hprof/slurp_hprof-32.bin" -o retained=phantom || { echo "not ok - mount slurp"; exit 1; }
S=$MNT/latest
find "$S/objects" -mindepth 3 -maxdepth 3 -path '*/refs/*' -printf '%h\t%f\t%l\n' |
  sed -E 's|^.*/objects/([^/]*)/refs\t|\1\t|; s|\t\.\./\.\./([^/]*)$|\t\1|' | LC_ALL=C sort >"$TESTTMP/refs.dirs"
tail -n +2 "$S/tables/references.tsv" | LC_ALL=C sort >"$TESTTMP/refs.tsv"
check "references.tsv equals the union of the refs/ directories ($(wc -l <"$TESTTMP/refs.tsv") rows)" \
  diff "$TESTTMP/refs.dirs" "$TESTTMP/refs.tsv"
# referrers/0xTO/0xFROM.FIELD -> from: the same edges, but for those the
# graph adds (<class>, <loader>) and those to objects the dump lacks
find "$S/objects" -mindepth 3 -maxdepth 3 -path '*/referrers/*' -printf '%h\t%f\n' |
  sed -E 's|^.*/objects/([^/]*)/referrers\t([^.]*)\.(.*)$|\2\t\3\t\1|' | grep -v "$TAB<" |
  LC_ALL=C sort >"$TESTTMP/refs.back"
cut -f1 "$S/tables/objects.tsv" | tail -n +2 | LC_ALL=C sort >"$TESTTMP/ids"
LC_ALL=C join -t "$TAB" -1 3 -2 1 -o 1.1,1.2,1.3 <(LC_ALL=C sort -t "$TAB" -k3,3 "$TESTTMP/refs.tsv") "$TESTTMP/ids" |
  LC_ALL=C sort >"$TESTTMP/refs.in"
check "references.tsv (to objects in the dump) equals the referrers/ directories reversed" \
  diff "$TESTTMP/refs.back" "$TESTTMP/refs.in"
diff "$TESTTMP/refs.back" "$TESTTMP/refs.in" | head -5 | sed 's/^/# /'
hf_umount

# ---- 4. a live JVM's objects found by their values ---------------------------
for tool in java javac jcmd; do
  command -v "$tool" >/dev/null 2>&1 || { echo "ok - TableShape found by awk # SKIP $tool absent"; exit 0; }
done
. "$(dirname "$0")/jvm.sh"
JDIR=$TESTTMP/java
mkdir -p "$JDIR"
timeout 120 javac -encoding UTF-8 -d "$JDIR" "$ROOT/tests/programs/java/TableShape.java" ||
  { echo "not ok - javac TableShape.java"; exit 1; }
jvm_start "$TESTTMP/jvm.out" -XX:+UseSerialGC -Xmx128m -cp "$JDIR" TableShape ||
  { sed 's/^/# jvm: /' "$TESTTMP/jvm.out"; echo "not ok - TableShape printed READY"; exit 1; }
timeout 120 jcmd "$JPID" GC.heap_dump -all=false "$TESTTMP/shape.hprof" >"$TESTTMP/dump.out" 2>&1
kill "$JPID" 2>/dev/null
hf_mount "$TESTTMP/shape.hprof" || { echo "not ok - mount TableShape's dump"; exit 1; }
S=$MNT/latest
I=$S/classes/TableShape\$Item/table.tsv
check_eq "Item's table header: id, shallow, then the fields (in the dump's order)" \
  "id shallow big count flag letter name next ratio small" \
  "$({ head -1 "$I" | tr "\t" "\n" | sed -n 1,2p; head -1 "$I" | tr "\t" "\n" | tail -n +3 | LC_ALL=C sort; } | tr "\n" " " | sed "s/ $//")"
# columns by name, whatever order the JVM laid the fields out in
col() { head -1 "$I" | tr '\t' '\n' | grep -nx "$1" | cut -d: -f1; }
C=$(col count) B=$(col big) F=$(col flag) R=$(col ratio) L=$(col letter) M=$(col small) N=$(col name) X=$(col next)
check_eq "awk: 100 Items" 100 "$(awk -F '\t' 'NR > 1' "$I" | wc -l)"
check_eq "awk: 10 Items with count >= 90" 10 "$(awk -F '\t' -v c="$C" 'NR > 1 && $c >= 90' "$I" | wc -l)"
row=$(awk -F '\t' -v c="$C" 'NR > 1 && $c == 42' "$I")
field() { cut -f"$1" <<<"$row"; }
check_eq "Item 42: big" 1000000000042 "$(field "$B")"
check_eq "Item 42: flag (true) is 1" 1 "$(field "$F")"
check_eq "Item 42: ratio" 10.5 "$(field "$R")"
check_eq "Item 42: letter 'Q' is 81" 81 "$(field "$L")"
check_eq "Item 42: small" -42 "$(field "$M")"
check_eq "awk: 50 Items with flag 1" 50 "$(awk -F '\t' -v f="$F" 'NR > 1 && $f == 1' "$I" | wc -l)"
check_eq "awk: one Item with next empty (null)" 1 "$(awk -F '\t' -v x="$X" 'NR > 1 && $x == ""' "$I" | wc -l)"
check_eq "Item 42's name joins to the String \"item-42\"" "item-42" \
  "$(awk -F '\t' -v id="$(field "$N")" '$1 == id { print $NF }' "$S/classes/java.lang.String/table.tsv")"
check_eq "Item 42's next is Item 41" 41 \
  "$(awk -F '\t' -v id="$(field "$X")" -v c="$C" '$1 == id { print $c }' "$I")"
H=$S/classes/TableShape\$Hostile/table.tsv
hcol() { head -1 "$H" | tr '\t' '\n' | grep -nx "$1" | cut -d: -f1; }
ST=$S/classes/java.lang.String/table.tsv
text=$(awk -F '\t' -v id="$(tail -1 "$H" | cut -f"$(hcol text)")" -v n="$(head -1 "$ST" | awk -F '\t' '{ print NF }')" \
  '$1 == id { print (NF == n) " " $NF }' "$ST")
check_eq "the hostile String stays in its column, escaped" '1 tab\there\nnew\\line' "$text"
label=$(awk -F '\t' -v id="$(tail -1 "$H" | cut -f"$(hcol label)")" '$1 == id { print $NF }' "$ST")
check_eq "a Latin-1 String reads as UTF-8" "café" "$label"
