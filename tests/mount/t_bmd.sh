#!/usr/bin/env bash
# t_bmd.sh - BMD dumps through a real mount.
#
# Every corpus BMD file mounts into the heap tree and its sizes are exact.
# The two BMD files converted from corpus HPROF dumps are compared with the
# HPROF mounts, class by class: the instance count and bytes of every class
# the BMD names in clear, and, once -o names= gives the HPROF's histogram
# as candidate names, of every class, hashed or not; and the snapshot
# totals of instances, object arrays and primitive arrays.  Records in any
# order: a corpus file shuffled mounts to the same tree.  Then -o names=
# and --check, and damaged files: cut, with garbage inside, with a class
# that never comes.
source "$(dirname "$0")/lib.sh"

bmds=("$CORPUS"/bmd/*.bmd)

# --- every corpus BMD mounts and its tree is coherent ---
for f in "${bmds[@]}"; do
  b=$(basename "$f")
  if ! hf_mount "$f"; then echo "not ok - $b mounts"; continue; fi
  echo "ok - $b mounts"
  check_eq "$b: info says format bmd" "format: bmd" "$(grep '^format:' "$MNT/info")"
  check_eq "$b: errors is empty" 0 "$(stat -c %s "$MNT/errors")"
  objs=$(sed -n 's/^objects: *//p' "$MNT/info")
  check_eq "$b: objects listed = objects in info" "$objs" "$(ls "$MNT/latest/objects" | wc -l)"
  bad=0
  while read -r p; do
    [ "$(stat -c %s "$p")" = "$(cat "$p" | wc -c)" ] || { bad=1; echo "# size mismatch: $p"; }
  done < <( { ls -d "$MNT"/info "$MNT"/errors "$MNT"/README "$MNT"/latest/*;
              find "$MNT/latest/classes" -maxdepth 2 -type f | head -40;
              find "$MNT/latest/objects" -maxdepth 2 -type f | head -60; } | grep -v '/classes$\|/objects$')
  check_eq "$b: st_size is exact for every sampled file" 0 "$bad"
  check "$b: hashed class names read hash.LEN.HASH" \
    bash -c "ls '$MNT/latest/classes' | grep -qE '^hash\.[0-9]+\.[0-9a-f]{8}$'"
  check "$b: strings holds the names kept as text" grep -q $'^[0-9]*\ttext\tjava.lang.String$' "$MNT/latest/strings"
  check "$b: a placeholder in the histogram is in strings too" bash -c \
    "h=\$(grep -o 'hash\.[0-9]*\.[0-9a-f]*' '$MNT/latest/histogram' | head -1); grep -q \"\$(printf '\\thashed\\t')\$h\$\" '$MNT/latest/strings'"
  o=$(ls "$MNT/latest/objects" | head -200 | tail -1)
  check "$b: an object has info and a class link" bash -c \
    "grep -q '^kind: ' '$MNT/latest/objects/$o/info' && [ -L '$MNT/latest/objects/$o/class' ] && [ -d '$MNT/latest/objects/$o/class/' ]"
  hf_umount
done

# "class<TAB>count<TAB>bytes" of a histogram, @0xID suffixes merged
hist() { awk -F'\t' 'NR > 1 { n = $3; sub(/@0x[0-9a-f]+$/, "", n); c[n] += $1; b[n] += $2 }
              END { for (k in c) print k "\t" c[k] "\t" b[k] }' "$1" | sort; }
kinds() { grep -E '^(instances|object arrays|primitive arrays):' "$1"; }

# --- converted from HPROF: the same counts, class by class ---
for pair in leakcanary_leak_service_binder.hprof:leakcanary_leak_service_binder.bmd \
            slurp_hprof-32.bin:slurp_hprof-32.bmd; do
  hp=$CORPUS/hprof/${pair%%:*}; bm=$CORPUS/bmd/${pair##*:}; b=$(basename "$bm")
  [ -f "$hp" ] && [ -f "$bm" ] || { echo "ok - $b vs HPROF # SKIP files absent"; continue; }
  hf_mount "$hp" || { echo "not ok - ${pair%%:*} mounts"; continue; }
  HM=$MNT
  hist "$HM/latest/histogram" > "$TESTTMP/h.txt"
  cp "$HM/latest/histogram" "$TESTTMP/names.txt"
  hf_mount "$bm" || { echo "not ok - $b mounts"; continue; }
  hist "$MNT/latest/histogram" | grep -v '^hash\.' > "$TESTTMP/b.txt"
  n=$(wc -l < "$TESTTMP/b.txt")
  diffs=$(join -t$'\t' -a2 -e MISSING -o 0,1.2,2.2,1.3,2.3 "$TESTTMP/h.txt" "$TESTTMP/b.txt" |
          awk -F'\t' '$2 != $3 || $4 != $5' | tee "$TESTTMP/diffs" | wc -l)
  sed 's/^/# /' "$TESTTMP/diffs" | head -5
  check_eq "$b: $n classes named in clear: count and bytes as in the HPROF" 0 "$diffs"
  check "$b: at least 40 classes named in clear" [ "$n" -ge 40 ]
  check_eq "$b: instances, object arrays, primitive arrays as in the HPROF" \
    "$(kinds "$HM/latest/info")" "$(kinds "$MNT/latest/info")"
  hf_umount
  hf_mount "$bm" -o names="$TESTTMP/names.txt" || { echo "not ok - $b mounts with names="; continue; }
  check "$b: info says how many names resolved" grep -qE '^names resolved: [1-9][0-9]* of ' "$MNT/info"
  hist "$MNT/latest/histogram" > "$TESTTMP/bn.txt"
  diffs=$(join -t$'\t' -a1 -a2 -e MISSING -o 0,1.2,2.2,1.3,2.3 "$TESTTMP/h.txt" "$TESTTMP/bn.txt" |
          awk -F'\t' '$2 != $3 || $4 != $5' | tee "$TESTTMP/diffs" | wc -l)
  sed 's/^/# /' "$TESTTMP/diffs" | head -5
  check_eq "$b: with names=, every class ($(wc -l < "$TESTTMP/h.txt")) as in the HPROF" 0 "$diffs"
  check_eq "$b: with names=, no class left hashed" 0 "$(grep -c '^hash\.' "$TESTTMP/bn.txt")"
  check "$b: with names=, resolved names are in strings" grep -q $'^[0-9]*\tresolved\t' "$MNT/latest/strings"
  hf_umount
  fusermount3 -u "$HM"
done

# --- records in any order: the same file shuffled, or with every class and
# string after every object, mounts to the same tree ---
f=$CORPUS/bmd/leakcanary_leak_service_binder.bmd
cat > "$TESTTMP/reorder.py" <<'EOF'
# reorder.py IN OUT MODE: rewrite a BMD file with its records reordered
# (MODE shuffle: at random, seed 1; last: classes and strings last).
import random, sys
data = open(sys.argv[1], 'rb').read()
pos = 0
def v():
    global pos
    r = s = 0
    while True:
        b = data[pos]; pos += 1
        r |= (b & 0x7f) << s; s += 7
        if not b & 0x80:
            return r
def value(t):  # BMD field types: raw widths, else a varint
    global pos
    w = {2: 1, 3: 1, 4: 2, 5: 4, 6: 8}.get(t)
    if w: pos += w
    else: v()
v(); n = v(); pos += n
header = data[:pos]
classes, recs = {}, []
while pos < len(data):
    start = pos; tag = v()
    if tag == 1: v(); n = v(); pos += n
    elif tag == 2: v(); v(); v()
    elif tag == 3:
        cid = v(); sup = v(); v()
        for _ in range(v()): v(); value(v())
        for _ in range(v()): v(); value(v())
        types = []
        for _ in range(v()): v(); types.append(v())
        v(); classes[cid] = (sup, types)
    elif tag == 4:
        v(); c = v()
        while c in classes:
            for t in classes[c][1]: value(t)
            c = classes[c][0]
    elif tag == 5: [v() for _ in range(v())]
    elif tag == 6: v(); v(); [v() for _ in range(v())]
    elif tag == 7: v(); v(); v()
    elif tag == 8: v(); n = v(); pos += n
    recs.append((tag, data[start:pos]))
if sys.argv[3] == 'shuffle':
    random.seed(1); random.shuffle(recs)
else:
    recs.sort(key=lambda r: r[0] in (1, 2, 3))
open(sys.argv[2], 'wb').write(header + b''.join(r for _, r in recs))
EOF
hf_mount "$f"; orig=$MNT
for mode in last shuffle; do
  python3 "$TESTTMP/reorder.py" "$f" "$TESTTMP/$mode.bmd" $mode
  if ! hf_mount "$TESTTMP/$mode.bmd"; then echo "not ok - records reordered ($mode) mount"; continue; fi
  check_eq "records reordered ($mode): errors is empty" 0 "$(stat -c %s "$MNT/errors")"
  check "records reordered ($mode): info says it took more than one pass" grep -q '^passes: [2-8]$' "$MNT/info"
  check "records reordered ($mode): the same histogram" diff "$orig/latest/histogram" "$MNT/latest/histogram"
  check "records reordered ($mode): the same strings" diff "$orig/latest/strings" "$MNT/latest/strings"
  check "records reordered ($mode): the same roots" diff <(sort "$orig/latest/roots") <(sort "$MNT/latest/roots")
  bad=0
  for o in $(ls "$orig/latest/objects" | awk 'NR % 97 == 1'); do
    for p in info fields; do
      [ -e "$orig/latest/objects/$o/$p" ] || continue
      cmp -s "$orig/latest/objects/$o/$p" "$MNT/latest/objects/$o/$p" || { bad=$((bad + 1)); echo "# differs: $o/$p"; }
    done
  done
  check_eq "records reordered ($mode): the same objects (every 97th compared)" 0 "$bad"
  hf_umount
done
fusermount3 -u "$orig"

f=$CORPUS/bmd/slurp_hprof-32.bmd

# --- legacy records: traces and threads ---
hf_mount "$f"
check_eq "slurp: traces as the legacy records hold them" 216 "$(ls "$MNT/traces" | wc -l)"
check "slurp: a trace reads in the agent's form" bash -c "head -1 '$MNT/traces/300003' | grep -q '^TRACE 300003: '"
check_eq "slurp: threads" 5 "$(ls "$MNT/threads" | wc -l)"
check_eq "slurp: stacks.folded adds up to the snapshot's bytes" \
  "$(sed -n 's/^bytes: //p' "$MNT/latest/info")" "$(awk '{s += $NF} END {print s}' "$MNT/latest/stacks.folded")"
if command -v google-pprof >/dev/null; then
  check "slurp: google-pprof reads heap.pprof without a binary" bash -c \
    "google-pprof --text '$MNT/latest/heap.pprof' 2>/dev/null | grep -q 'java.lang.String'"
fi
check "slurp: classes say how many field bytes the dump left out" \
  bash -c "grep -l '^fields left out of the dump: [1-9]' '$MNT'/latest/classes/*/info | grep -q ."
check_eq "slurp: java.lang.Thread (fields kept) as the HPROF sizes it" "instance size: 104 " \
  "$(grep -o '^instance size: [0-9]* ' "$MNT/latest/classes/java.lang.Thread/info")"
inos() { (cd "$MNT" && stat -c '%i %n' latest/classes latest/strings info traces/300003); }
ino1=$(inos)
first=$MNT
hf_mount "$f"
check_eq "inode numbers are the same on a second mount" "$ino1" "$(inos)"
check "two mounts diff clean (diff -r over classes)" diff -r "$first/latest/classes" "$MNT/latest/classes"
hf_umount
fusermount3 -u "$first"

# --- --check and -o names= ---
check "--check on a BMD exits 0 and prints info" bash -c "'$HEAPFS' --check '$f' | grep -q '^format: bmd'"
printf 'java.util.HashMap\njava/util/Vector\nno.such.Name\n' > "$TESTTMP/few.txt"
check "--check -o names= resolves names" bash -c \
  "'$HEAPFS' --check -o names='$TESTTMP/few.txt' '$f' | grep -q '^names resolved: 2 of '"
m=$(mktemp -d "$TESTTMP/bad.XXXXXX")
out=$(timeout 20 "$HEAPFS" -f -o names="$TESTTMP/nope.txt" "$f" "$m" 2>&1); rc=$?
if [ "$rc" -ne 0 ] && [ "$(echo "$out" | wc -l)" -eq 1 ] && [[ "$out" == *"names file"* ]] && ! mountpoint -q "$m"; then
  echo "ok - a missing names file is refused with one line"
else
  echo "not ok - a missing names file is refused with one line (rc=$rc, out=$out)"
  mountpoint -q "$m" && fusermount3 -u "$m"
fi
check "--help tells of names=" bash -c "'$HEAPFS' --help | grep -q 'names=FILE'"

# --- damaged files mount what can be read, and say what not in errors ---
check_cut_mounts "$f" "a BMD" "its errors say where the file was cut" \
  '^offset 0x[0-9a-f]*: .* cut off by the end of the file'
# 64 bytes of garbage in the middle, on a record boundary far from the start
python3 - "$f" "$TESTTMP/garbage.bmd" <<'EOF'
import sys, random
d = bytearray(open(sys.argv[1], 'rb').read())
random.seed(7)
at = len(d) // 2
d[at:at] = bytes([0x09]) + bytes(random.randrange(256) for _ in range(63))
open(sys.argv[2], 'wb').write(d)
EOF
if hf_mount "$TESTTMP/garbage.bmd"; then
  echo "ok - a BMD with garbage inside mounts"
  check "its errors name the offset and what was skipped" grep -q '^offset 0x[0-9a-f]*: .*bytes skipped' "$MNT/errors"
  hf_umount
else
  echo "not ok - a BMD with garbage inside mounts"
fi
# an instance of a class the file never defines, then good records
python3 - "$TESTTMP/orphan.bmd" <<'EOF'
import sys
def v(n):
    out = bytearray()
    while n >= 0x80:
        out.append(n & 0x7f | 0x80); n >>= 7
    out.append(n); return bytes(out)
meta = b'JAVA PROFILE 1.0.3'
d = v(1) + v(len(meta)) + meta
d += v(4) + v(60) + v(77) + v(61) + v(0)          # instance 60 of class 77: two values
d += v(1) + v(1) + v(16) + b'java.lang.Object'
d += v(3) + v(1) + v(0) + v(1) + v(0) + v(0) + v(0) + v(0)
d += v(4) + v(50) + v(1)                           # instance 50 of java.lang.Object
open(sys.argv[1], 'wb').write(d)
EOF
if hf_mount "$TESTTMP/orphan.bmd"; then
  echo "ok - a BMD with a class that never comes mounts"
  check "its errors name the class" grep -q 'need class 0x4d, which the file never defines' "$MNT/errors"
  check "the records after it are read" test -d "$MNT/latest/objects/0x32"
  check "the orphan shows its unknown class" grep -q '^class: unknown.0x4d$' "$MNT/latest/objects/0x3c/info"
  hf_umount
else
  echo "not ok - a BMD with a class that never comes mounts"
fi
