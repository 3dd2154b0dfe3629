#!/usr/bin/env bash
# t_threadviews.sh - threads/T/retained, threads/T/locals and
# thread-overview (docs/inspect.md) on a dump of
# tests/programs/java/Collections.java, whose thread "parked-worker" is
# parked in Collections.work() with two locals: a byte[123456] and the
# String "parked-tag", which only its stack holds.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/jvm.sh"
source "$(dirname "$0")/collections.sh"

collections_dump
ls "$MNT/threads" >/dev/null
T=$MNT/threads/$(ls "$MNT/threads" | grep -- '-parked-worker$')
ls "$T" >/dev/null
check "listing threads computes no retained sizes" bash -c "! grep -q 'retained sizes' '$MNT/.stats'"
check_eq "a thread has retained and locals" "info locals retained stack" "$(ls "$T" | tr '\n' ' ' | sed 's/ $//')"

# the frame of Collections.work() in stack: frames are the lines with one TAB
FRAME=$(grep -P '^\t[^\t]' "$T/stack" | grep -n 'Collections\.work(' | cut -d: -f1)
FRAME=$((FRAME - 1))
ARR=$((16 + 123456))   # byte[123456]: 16-byte header under compressed oops
L=$T/locals
check_eq "locals header" "# frame	kind	id	shallow	retained	what" "$(head -1 "$L")"
check_eq "work()'s byte[123456]: a java-frame local retaining itself" \
  "$FRAME java-frame $ARR $ARR byte[123456]" \
  "$(awk -F '\t' -v f="$FRAME" '$1 == f && $6 == "byte[123456]" { print $1, $2, $4, $5, $6 }' "$L")"
check_eq "work()'s String local" "$FRAME java-frame \"parked-tag\"" \
  "$(awk -F '\t' -v f="$FRAME" '$1 == f && $6 ~ /parked-tag/ { print $1, $2, $6 }' "$L")"
ids=$(awk -F '\t' -v f="$FRAME" 'NR > 1 && $1 == f { print $3 }' "$L" | sort)
check_eq "locals list what stack lists under work()" \
  "$(awk '/^\t[^\t]/ { on = /Collections\.work\(/ } on && /^\t\t/ { print $2 }' "$T/stack" | sort)" "$ids"
check_eq "locals in frame order" "$(awk -F '\t' 'NR > 1 { print $1 }' "$L" | sort -n)" \
  "$(awk -F '\t' 'NR > 1 { print $1 }' "$L")"
check "each local's retained is its objects/ID/retained" bash -c "
  awk -F '\t' 'NR > 1 { print \$3, \$5 }' '$L' | while read -r id r; do
    grep -qx \"retained: \$r (.*\" '$S/objects/'\$id/retained || { echo \$id; exit 1; }; done"

OBJ=$(awk '$1 == "object:" { print $2 }' "$T/info")
R=$T/retained
check_eq "retained names the thread object" "object: $OBJ" "$(head -1 "$R")"
tret=$(sed -n 's/^retained: //p' "$R")
check_eq "the thread's retained is its object's" "$(sed -n 's/^retained: \([0-9]*\) .*/\1/p' "$S/objects/$OBJ/retained")" "$tret"
check "the thread retains what only its stack holds (the byte[123456])" bash -c "[ '$tret' -ge $((ARR + 24)) ]"
check_eq "locals: counts the rows of locals" "$(($(wc -l <"$L") - 1))" "$(sed -n 's/^locals: //p' "$R")"

O=$S/thread-overview
check_eq "thread-overview: one row per thread" "$(ls "$MNT/threads" | wc -l)" "$(($(wc -l <"$O") - 1))"
check_eq "thread-overview's parked-worker row" "$OBJ $tret parked-worker" \
  "$(awk -F '\t' '$6 == "parked-worker" { print $2, $4, $6 }' "$O")"
