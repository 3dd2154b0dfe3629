#!/usr/bin/env bash
# t_duplicates.sh - duplicates counts what the copies alone keep alive.
#
# On JDK 6 and Android dumps a String is an offset/count window into a
# char[] that other Strings may share; such an array is not a copy's waste
# (dropping the copy frees nothing of it).  For the top rows of duplicates
# of the corpus's JDK 6 and Android dumps, the wasted bytes are recomputed
# through the mount itself: the Strings of that text (strings), each copy
# beyond the first (the lowest id) costing its own size (objects/ID/info)
# plus its value array's size when no other String references that array
# (the array's referrers/ named .value from a java.lang.String).
. "$(dirname "$0")/lib.sh"

# size ID: the object's shallow size
size() { sed -n 's/^size: //p' "$S/objects/$1/info"; }

# strings_of ARRAY: how many Strings reference ARRAY through their value field
strings_of() {
  local r n=0
  for r in $(ls "$S/objects/$1/referrers" | grep '\.value$'); do
    grep -qx 'class: java.lang.String' "$S/objects/${r%.value}/info" && n=$((n + 1))
  done
  echo "$n"
}

# want TEXT: the wasted bytes of the Strings whose text is TEXT
want() {
  local ids id arr w=0 first=1 shared=0
  ids=$(T=$1 awk -F'\t' 'NR > 1 && $2 == ENVIRON["T"] { print $1 }' "$S/strings" |
        while read -r id; do printf '%d %s\n' "$id" "$id"; done | sort -n | cut -d' ' -f2)
  for id in $ids; do
    [ $first = 1 ] && { first=0; continue; }
    w=$((w + $(size "$id")))
    arr=$(basename "$(readlink "$S/objects/$id/refs/value")")
    if [ "$(strings_of "$arr")" = 1 ]; then w=$((w + $(size "$arr"))); else shared=$((shared + 1)); fi
  done
  echo "$w $shared"
}

# the top rows, and one known to share its array (the issue's example, "3 16512 UTC"
# before: the shared 16 KB char[] counted once per copy)
for fx in 'mat_sun_jdk6_18_x64.hprof|C:\\WINDOWS' 'leakcanary_leak_service_binder.hprof|UTC'; do
  f=${fx%%|*} known=${fx#*|}
  hf_mount "$CORPUS/hprof/$f" || { echo "not ok - $f mounts"; continue; }
  S=$MNT/latest
  any_shared=0
  while IFS=$'\t' read -r count wasted text; do
    read -r w shared <<<"$(want "$text")"
    any_shared=$((any_shared + shared))
    check_eq "$f: '$text' ($count copies, $shared sharing their array): wasted bytes" "$w" "$wasted"
  done < <(sed -n '2,4p' "$S/duplicates"; T=$known awk -F'\t' '$3 == ENVIRON["T"]' "$S/duplicates")
  check "$f: some of those copies share their array with another String" test "$any_shared" -gt 0
  hf_umount
done
