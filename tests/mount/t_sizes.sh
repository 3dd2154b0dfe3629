#!/usr/bin/env bash
# t_sizes.sh - instance sizes the object addresses prove (issue 22).
#
# In a JVM's dump an object's id is its address and the heap is written in
# address order, so the distance from an instance to the object after it
# is at least its size, and exactly its size when nothing lies between.
# On JDK 5 and 6 the size rule misses the JVM's field layout for a few
# classes (java.util.ArrayList 8 bytes short, sun.reflect.DelegatingClass-
# Loader 8 bytes long).  The oracle is the dump itself, read here with
# tests/fuzz/mkseeds.py's parser: per class, the least distance from an
# instance to the next object and how many instances lie at it.  heapfs
# must take that distance as the size where every instance (three or more)
# lies at it, and never a size larger than the least distance.
. "$(dirname "$0")/lib.sh"

DUMP=$CORPUS/hprof/mat_sun_jdk6_18_x64.hprof
# "NAME LEAST AT_LEAST SEEN" per class with instances followed by an object
python3 - "$ROOT/tests/fuzz" "$DUMP" >"$TESTTMP/gaps" <<'PY'
import collections, sys
sys.path.insert(0, sys.argv[1])
from mkseeds import hprof_records, sub_len
d = open(sys.argv[2], "rb").read()
hlen, idsz, recs = hprof_records(d)
num = lambda p: int.from_bytes(d[p:p + idsz], "big")
names, cls = {}, {}
for tag, start, b, e in recs:
    if tag == 0x01:
        names[num(b)] = d[b + idsz:e].decode("utf-8", "replace")
    elif tag == 0x02:
        cls[num(b + 4)] = num(b + 8 + idsz)
gaps = collections.defaultdict(list)
for tag, start, b, e in recs:
    if tag not in (0x0C, 0x1C):
        continue
    p, prev = b, None
    while p < e:
        n = sub_len(d[:e], p, idsz)
        if not n:
            break
        if d[p] in (0x21, 0x22, 0x23, 0xC3):
            oid = num(p + 1)
            if prev and oid > prev[0]:
                gaps[prev[1]].append(oid - prev[0])
            prev = (oid, num(p + 5 + idsz)) if d[p] == 0x21 else None
        p += n
for c, g in gaps.items():
    least = min(g)
    print(names[cls[c]].replace("/", "."), least, g.count(least), len(g))
PY
check "the dump's own gaps were read ($(wc -l <"$TESTTMP/gaps") classes)" test "$(wc -l <"$TESTTMP/gaps")" -gt 100

if hf_mount "$DUMP"; then
  S=$MNT/latest
  size() { sed -n 's/^instance size: \([0-9]*\) .*/\1/p' "$S/classes/$1/info"; }
  exact=0 bad=0 over=0
  while read -r name least at seen; do
    [ "$name" = java.lang.Class ] && continue
    [ -f "$S/classes/$name/info" ] || continue
    got=$(size "$name")
    if [ "$got" -gt "$least" ]; then
      over=$((over + 1)); echo "# $name: size $got, but an instance lies $least bytes before the next object"
    fi
    if [ "$at" = "$seen" ] && [ "$seen" -ge 3 ]; then
      exact=$((exact + 1))
      [ "$got" = "$least" ] || { bad=$((bad + 1)); echo "# $name: size $got, every one of $seen instances $least bytes apart"; }
    fi
  done <"$TESTTMP/gaps"
  check_eq "no class is sized larger than the room before the next object" 0 "$over"
  check_eq "classes whose instances all lie one distance apart ($exact) have that size" 0 "$bad"
  check_eq "java.util.ArrayList: 55 instances of 40 bytes (the rule: 32)" $'55\t2200' \
    "$(awk -F'\t' '$3 == "java.util.ArrayList" { print $1 "\t" $2 }' "$S/histogram")"
  check_eq "sun.reflect.DelegatingClassLoader: 104 bytes (the rule: 112)" 104 "$(size sun.reflect.DelegatingClassLoader)"
  check "class info says where the size comes from" \
    grep -q '^instance size: 40 (from the object addresses, the rule says 32;' "$S/classes/java.util.ArrayList/info"
  check_eq "info counts the classes sized so" \
    "$(grep -l '(from the object addresses' "$S"/classes/*/info | wc -l)" \
    "$(sed -n 's/^classes sized by their addresses: \([0-9]*\) .*/\1/p' "$MNT/info")"
  hf_umount
fi
