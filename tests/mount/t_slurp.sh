#!/usr/bin/env bash
# t_slurp.sh - heapfs against hprof-slurp's results for two corpus dumps.
#
# Oracle: $CORPUS/hprof/slurp_hprof-{32,64}-result.txt, written by
# agourlay/hprof-slurp (a peer tool, not this project) for the dumps beside
# them.  Checked here:
#   - per-class instance counts in MOUNT/latest/histogram equal the
#     "Instances" column of hprof-slurp's "Top 20 raw shallow heap classes"
#     (java.lang.Class: heapfs also counts the class objects, so its count
#     is slurp's plus the "..GC class dump" count)
#   - MOUNT/info's class count equals "Classes loaded", and its object count
#     equals primitive array + object array + class + instance dumps
#   - `ls objects | wc -l` equals that object count
#   - `stat` sizes equal bytes read (`wc -c`) for a sample of files
#
# hprof-slurp's naming of arrays (src/result_recorder.rs), worked out from
# its source and checked against these two results:
#   - primitive arrays are counted per element type: "int[]", "char[]"...
#     (one row for all arrays of that type, whatever the dimension: a
#     PRIMITIVE ARRAY DUMP is always 1-D; int[][] is an object array)
#   - object arrays are counted per array class id, labelled with the class
#     name ('/' -> '.') cleaned and then given "[]":
#       "[Lpkg.X;"  -> "pkg.X[]"     "[[Lpkg.X;" -> "pkg.X[]" (a dimension
#       is lost)    anything else -> NAME + "[]" ("[[I" -> "[[I[]")
#   - slurp_hprof-64.bin (a JDK 8 dump) names array classes in descriptor
#     form ("[Ljava/lang/Object;"), so slurp's "X[]" is heapfs's "X[]" plus
#     "X[][]" and slurp's "[[I[]" is heapfs's "int[][]".
#   - slurp_hprof-32.bin (jdk8u jhat test data from an old JVM) already names
#     them "java.lang.Object[]", which slurp turns into "java.lang.Object[][]":
#     there slurp's "X[][]" is heapfs's "X[]".
# So each heapfs display name is mapped to the label slurp would give it
# (function slurp_label below), both sides are summed by label, and the
# labels in slurp's top-20 table are compared.
. "$(dirname "$0")/lib.sh"

PRIMS=' boolean char float double byte short int long '

# heapfs histogram -> "slurp-label<TAB>instances", summed by label.
# $1 = desc (array class names in the dump are descriptors) or display.
slurp_counts() {
  awk -F'\t' -v mode="$1" -v prims="$PRIMS" '
    /^#/ { next }
    {
      n = $1; name = $3
      sub(/@0x[0-9a-fA-F]+$/, "", name)
      gsub(/%2F/, "/", name); gsub(/%2E/, ".", name); gsub(/%25/, "%", name)
      base = name; dims = 0
      while (base ~ /\[\]$/) { base = substr(base, 1, length(base) - 2); dims++ }
      label = name
      if (dims == 1 && index(prims, " " base " ")) label = name            # int[]
      else if (dims > 0 && mode == "display") label = name "[]"           # X[] -> X[][]
      else if (dims > 0) {
        prim = index(prims, " " base " ") > 0
        if (!prim && dims <= 2) label = base "[]"                          # [LX; [[LX;
        else {                                                             # [[I, [[[LX;
          d = ""; for (i = 0; i < dims; i++) d = d "["
          if (prim) {
            c = (base == "boolean") ? "Z" : (base == "long") ? "J" : toupper(substr(base, 1, 1))
            label = d c "[]"
          } else label = d "L" base ";[]"
        }
      }
      cnt[label] += n
    }
    END { for (k in cnt) printf "%s\t%d\n", k, cnt[k] }' | LC_ALL=C sort -t "$(printf '\t')" -k1,1
}

# hprof-slurp's top-20 table -> "label<TAB>instances", summed by label.
slurp_table() {
  awk -F '|' '
    /^Top 20 raw shallow heap classes:/ { on = 1; next }
    on && /^$/ && seen { exit }
    on && /^\| / && $3 !~ /Instances/ {
      seen = 1; name = $5; gsub(/^ +| +$/, "", name); n = $3; gsub(/ /, "", n)
      cnt[name] += n
    }
    END { for (k in cnt) printf "%s\t%d\n", k, cnt[k] }' "$1" | LC_ALL=C sort -t "$(printf '\t')" -k1,1
}

summary() { # value of "..NAME: N" / "NAME: N" in the result file
  awk -v k="$2" 'index($0, k ": ") == 1 { sub(/.*: /, ""); print; exit }' "$1"
}

info_val() { # value of "key: N" in an info file
  awk -v k="$2" 'index($0, k ":") == 1 { sub(/^[^:]*: */, ""); print $1; exit }' "$1"
}

for bits in 32 64; do
  dump=$CORPUS/hprof/slurp_hprof-$bits.bin
  result=$CORPUS/hprof/slurp_hprof-$bits-result.txt
  mode=desc; [ "$bits" = 32 ] && mode=display
  if ! hf_mount "$dump"; then
    sed 's/^/# /' "$MNT.log" | head -20
    echo "not ok - slurp-$bits: mount"
    continue
  fi
  echo "ok - slurp-$bits: mount"
  S=$MNT/latest

  slurp_table "$result" >"$TESTTMP/want.$bits"
  # heapfs counts class objects (CLASS DUMP records) as instances of
  # java.lang.Class; hprof-slurp counts only INSTANCE DUMPs of it.
  slurp_counts "$mode" <"$S/histogram" |
    awk -F '\t' -v OFS='\t' -v cd="$(summary "$result" "..GC class dump")" \
      '$1 == "java.lang.Class" { $2 -= cd } { print }' >"$TESTTMP/have.$bits"
  rows=$(wc -l <"$TESTTMP/want.$bits")
  LC_ALL=C join -t "$(printf '\t')" -a 1 -e MISSING -o 0,1.2,2.2 "$TESTTMP/want.$bits" "$TESTTMP/have.$bits" |
    awk -F '\t' '$2 != $3 { printf "# slurp-'"$bits"': %s: hprof-slurp %s, heapfs %s\n", $1, $2, $3 }' >"$TESTTMP/diff.$bits"
  cat "$TESTTMP/diff.$bits"
  if [ "$rows" -ge 15 ] && [ ! -s "$TESTTMP/diff.$bits" ]; then
    echo "ok - slurp-$bits: instance counts of hprof-slurp's top $rows classes"
  else
    echo "not ok - slurp-$bits: instance counts of hprof-slurp's top $rows classes"
  fi

  want_classes=$(summary "$result" "Classes loaded")
  want_objects=0
  for k in "..GC primitive array dump" "..GC object array dump" "..GC class dump" "..GC instance dump"; do
    want_objects=$((want_objects + $(summary "$result" "$k")))
  done
  check_eq "slurp-$bits: info classes = Classes loaded" "$want_classes" "$(info_val "$MNT/info" classes)"
  check_eq "slurp-$bits: info objects = instance + array + class dumps" "$want_objects" "$(info_val "$MNT/info" objects)"
  check_eq "slurp-$bits: ls objects | wc -l = objects in info" "$want_objects" "$(ls "$S/objects" | wc -l)"
  check_eq "slurp-$bits: ls classes | wc -l = classes in info" "$want_classes" "$(ls "$S/classes" | wc -l)"

  # Exact sizes on a sample: top-level and snapshot files, the first
  # classes' and objects' files, and every 97th object.
  {
    find "$MNT" -maxdepth 1 -type f
    find "$S/" -maxdepth 1 -type f
    ls "$S/classes" | head -15 | while read -r c; do find "$S/classes/$c" -maxdepth 1 -type f; done
    ls "$S/objects" | awk 'NR <= 15 || NR % 97 == 0' | while read -r o; do find "$S/objects/$o" -maxdepth 1 -type f; done
  } >"$TESTTMP/sample.$bits"
  bad=0; n=0
  while read -r f; do
    n=$((n + 1))
    s=$(stat -c %s "$f"); r=$(wc -c <"$f")
    if [ "$s" != "$r" ]; then
      bad=$((bad + 1))
      [ "$bad" -le 5 ] && echo "# slurp-$bits: ${f#$MNT/}: stat $s, read $r"
    fi
  done <"$TESTTMP/sample.$bits"
  if [ "$n" -ge 50 ] && [ "$bad" = 0 ]; then
    echo "ok - slurp-$bits: stat size = bytes read for $n files"
  else
    echo "not ok - slurp-$bits: stat size = bytes read ($bad of $n differ)"
  fi
  hf_umount
done
