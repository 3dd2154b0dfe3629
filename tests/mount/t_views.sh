#!/usr/bin/env bash
# t_views.sh - every table of every format follows docs/views.md.
#
# Each corpus file and fixture of each format is mounted; every table of
# its snapshots (the snapshot tables, and the fields and statics of a few
# classes and objects) must have: a first line "# " and TAB-separated
# column names, no other '#' line, every row exactly as many TAB-separated
# columns as the header, and in each column what its name says: counts and
# sizes plain integers (digits, a minus sign at most: no padding, '+' or
# separators), ids 0x-hex (or decimal, BMD and OEMP), percent a dot and two
# decimals; text columns anything without a TAB.  The same idea has the
# same column names across formats (sites of HPROF, HPROF text, gperftools
# and pprof).
. "$(dirname "$0")/lib.sh"

TABLES="histogram histogram-retained unreachable dominators suspects roots strings duplicates
biggest biggest-shallow dominators-by-class consumers-by-class consumers-by-loader consumers-by-package
sites cpu/samples cpu/times maps histogram-by-name platform created changed deleted"

# check_table FILE: nothing on stdout when FILE follows the rules, else the
# first problem.
check_table() {
  awk -F'\t' '
    function bad(why) { print FILENAME ": " why; exit }
    NR == 1 {
      if ($0 !~ /^# [a-z]/) bad("no \"# \" header: " $0)
      n = NF
      for (i = 1; i <= NF; i++) { c[i] = $i; if (c[i] !~ /^(# )?[a-z][a-z_]*$/) bad("column name \"" c[i] "\"") }
      sub(/^# /, "", c[1])
      next
    }
    /^#/ { bad("line " NR " starts with #") }
    NF != n { bad("line " NR " has " NF " columns, the header " n ": " $0) }
    {
      for (i = 1; i <= n; i++) {
        k = c[i]; v = $i
        if (k ~ /^(what|class|loader|package|frame|text|name|type|method|path|perms|kind|value)$/) continue
        if (k ~ /^(id|accumulation|ref|start|end|offset)$/) { if (v !~ /^(0x[0-9a-f]+|[0-9]+)$/) bad("line " NR " " k " \"" v "\"") ; continue }
        if (k == "percent") { if (v !~ /^[0-9]+\.[0-9][0-9]$/) bad("line " NR " percent \"" v "\""); continue }
        if (v !~ /^-?[0-9]+$/) bad("line " NR " " k " \"" v "\" is not a plain integer")
      }
    }' "$1"
}

# tables_of MNT: the table files of every snapshot (three at most) and of
# a few classes and objects of the last of them.
tables_of() {
  local m=$1 s t c o
  for s in $(ls "$m/snapshots" | head -3); do
    for t in $TABLES; do [ -f "$m/snapshots/$s/$t" ] && echo "$m/snapshots/$s/$t"; done
  done
  s=$m/snapshots/$(ls "$m/snapshots" | head -3 | tail -1)
  [ -d "$s/classes" ] || return 0
  for c in $(awk -F'\t' 'NR > 1 && NR <= 4 { print $3 }' "$s/histogram") java.lang.Thread; do
    [ -d "$s/classes/$c" ] || continue
    echo "$s/classes/$c/fields"
    [ -f "$s/classes/$c/statics" ] && echo "$s/classes/$c/statics"
    for o in $(head -3 "$s/classes/$c/instances"); do
      [ -f "$s/objects/$o/fields" ] && echo "$s/objects/$o/fields"
      [ -f "$s/objects/$o/dominated-by-class" ] && echo "$s/objects/$o/dominated-by-class"
    done
    o=$(awk -F'\t' -v c="class $c" '$NF == c { print $2; exit }' "$s/roots")
    [ -n "$o" ] && [ -f "$s/objects/$o/fields" ] && echo "$s/objects/$o/fields"
  done
  return 0
}

FILES=$(ls "$CORPUS"/hprof/*.hprof "$CORPUS"/hprof/*.bin "$CORPUS"/hprof-txt/*.txt "$CORPUS"/bmd/*.bmd \
           "$CORPUS"/pprof-heap/*.heap "$CORPUS"/pprof-heap/*.growth "$ROOT"/tests/fixtures/*.oemp)
for f in $FILES; do
  b=$(basename "$f")
  if ! hf_mount "$f"; then echo "not ok - $b mounts"; continue; fi
  list=$(tables_of "$MNT")
  n=$(echo "$list" | grep -c .)
  probs=$(for t in $list; do check_table "$t"; done | head -3)
  if [ "$n" -gt 0 ] && [ -z "$probs" ]; then
    echo "ok - $b: its $n tables follow docs/views.md"
  else
    echo "not ok - $b: its $n tables follow docs/views.md"
    echo "$probs" | sed "s|$MNT/||; s/^/# /"
  fi
  hf_umount
done

# One idea, one set of columns: sites of every format that has them.
want=$'# trace\tinuse_objects\tinuse_space\talloc_objects\talloc_space'
for f in "$CORPUS"/hprof/slurp_hprof-32.bin "$CORPUS"/hprof-txt/JoelStuart_COMP3702A1_sites.java.hprof.txt \
         "$CORPUS"/pprof-heap/local_tcmalloc_hp.0001.heap; do
  if hf_mount "$f"; then
    check_eq "$(basename "$f"): sites has the columns of every format's sites" \
      "$want" "$(head -1 "$MNT/latest/sites" | cut -f1-5)"
    hf_umount
  fi
done
# the agent's own block is kept beside the table, as it was
if hf_mount "$CORPUS/hprof-txt/Magnulas_ADKLabb3_heapdump_sites.java.hprof.txt"; then
  check "sites.agent is the SITES block as the file has it (decimal commas and all)" \
    grep -q '^    1  8,68%  8,68%    147600' "$MNT/latest/sites.agent"
  check_eq "sites: the same rows, the agent's numbers" $'300164\t9\t147600\t9\t147600\tchar[]' \
    "$(sed -n 2p "$MNT/latest/sites")"
  hf_umount
fi

# ---- hostile names (issue 21): a class, a field and a static whose names hold
# a newline, a TAB and an escape sequence forge no row and reach no terminal
python3 - "$ROOT/tests/fuzz" "$TESTTMP/hostile.hprof" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
from mkseeds import Hprof, be, value, T_OBJ, T_INT
h = Hprof()
obj, evil = h.string("java/lang/Object"), h.string("Evil\n1\t2\tForged\x1b[31m")
fld, st = h.string("f\n9\tint\t9"), h.string("s\x1b]0;pwn\x07")
h.record(0x02, be("I", 1) + h.id(0x100) + be("I", 1) + h.id(obj))
h.record(0x02, be("I", 2) + h.id(0x200) + be("I", 1) + h.id(evil))
def class_dump(cid, sup, statics, fields, size):
    b = be("B", 0x20) + h.id(cid) + be("I", 1) + h.id(sup) + h.id(0) * 5 + be("I", size) + be("H", 0)
    b += be("H", len(statics)) + b"".join(h.id(n) + be("B", t) + value(h, t, v) for n, t, v in statics)
    return b + be("H", len(fields)) + b"".join(h.id(n) + be("B", t) for n, t in fields)
sub = be("B", 0x05) + h.id(0x200) + be("B", 0x01) + h.id(0x1000) + h.id(0x77)
sub += class_dump(0x100, 0, [], [], 0) + class_dump(0x200, 0x100, [(st, T_INT, 5)], [(fld, T_OBJ)], 8)
sub += be("B", 0x21) + h.id(0x1000) + be("I", 1) + h.id(0x200) + be("I", 8) + h.id(0x1000)
h.record(0x0C, bytes(sub))
open(sys.argv[2], "wb").write(h.out)
PY
if hf_mount "$TESTTMP/hostile.hprof"; then
  S=$MNT/latest
  C=$(echo "$S"/classes/Evil*) # the directory name holds the raw bytes: a glob, not ls
  views=("$S/histogram" "$S/roots" "$S/dominators" "$S/histogram-retained" "$S/suspects"
         "$S/biggest" "$S/biggest-shallow" "$S/dominators-by-class" "$S/consumers-by-class"
         "$S/consumers-by-loader" "$S/consumers-by-package" "$S/objects/0x200/dominated-by-class"
         "$C/fields" "$C/statics" "$S/objects/0x1000/fields" "$S/objects/0x200/fields")
  probs=$(for t in "${views[@]}"; do check_table "$t"; done | head -3)
  check_eq "hostile names: every table keeps its columns" "" "$probs"
  check_eq "hostile names: no escape byte in any view" "0" \
    "$(cat "${views[@]}" "$C/info" "$S/objects/0x1000/info" "$S/objects/0x1000/path" "$C/paths" \
       "$S/suspects-report" | grep -c $'\x1b')"
  check "hostile names: histogram names the class escaped as strings escapes text" \
    grep -qF 'Evil\n1\t2\tForged\x1b[31m' "$S/histogram"
  check "hostile names: the field name escaped in fields" grep -qF 'f\n9\tint\t9' "$S/objects/0x1000/fields"
  check "hostile names: the static escaped in statics" grep -qF 's\x1b]0;pwn\x07' "$C/statics"
  check "hostile names: biggest and consumers-by-class name the class escaped" \
    bash -c "grep -qF 'Evil\\n1\\t2\\tForged\\x1b[31m' '$S/biggest' && grep -qF 'Evil\\n1\\t2\\tForged\\x1b[31m' '$S/consumers-by-class'"
  check "hostile names: dominators names the class object 'class NAME', escaped" \
    grep -qF $'\tclass Evil\\n1\\t2' "$S/dominators"
  hf_umount
else
  echo "not ok - a dump with hostile class and field names mounts"
fi
