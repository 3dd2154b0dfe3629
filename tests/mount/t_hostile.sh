#!/usr/bin/env bash
# t_hostile.sh - crafted dumps that ask for what no real one does
# (tests/fuzz/hostile.py makes them here): the daemon answers or refuses
# with one clear line, and stays up.
#   - an instance with fewer bytes than its class's fields: no reference is
#     read past its end, inside the file (a reference it does not have) or
#     past the file's end (a crash in the dominator computation);
#   - a deep chain of classes with many fields (40 x 65535, the deepest
#     class's instance 21 MB of fields): --check in bounded memory and
#     time (a copy of the inherited fields in every class took 2.2 GB and
#     26 s), an instance's fields, refs/ and path read; a chain of 70 such
#     classes is cut at 4 Mi fields and the problem listed;
#   - a pprof gzip bomb (empty string table entries: 1000 times smaller
#     gzipped, 32 times bigger unpacked): refused with one line, in
#     bounded memory and time, whether it stops inflating (over 512 times
#     the file) or stops unpacking (protobuf-c's structures over budget).
source "$(dirname "$0")/lib.sh"

HOSTILE="python3 $ROOT/tests/fuzz/hostile.py"
TAB=$(printf '\t')

# ---- an instance shorter than its class's fields ----
$HOSTILE short-last "$TESTTMP/short-last.hprof"
if hf_mount "$TESTTMP/short-last.hprof" -o index=none; then
  check "short instance last in the file: dominators are computed" \
    grep -q "^0x300$TAB" "$MNT/latest/dominators"
  check "short instance last in the file: the daemon is still up" ls "$MNT/latest/objects/0x300"
  check_eq "short instance last in the file: no refs" "" "$(ls "$MNT/latest/objects/0x300/refs")"
  hf_umount
else
  echo "not ok - mount a short instance last in the file"
fi
$HOSTILE short-inside "$TESTTMP/short-inside.hprof"
if hf_mount "$TESTTMP/short-inside.hprof" -o index=none; then
  check "short instance inside the file: the next object is not read as its reference" \
    grep -q '^unreachable: ' "$MNT/latest/objects/0x500/path"
  check "short instance inside the file: it does not dominate the next object" \
    bash -c "! ls '$MNT/latest/objects/0x400/dominated' | grep -q 0x500"
  hf_umount
else
  echo "not ok - mount a short instance inside the file"
fi

# ---- deep chains of classes with many fields ----
# chain N: heapfs --check on N classes of 65535 fields each, under 400 MB
# and 30 s; its output in $TESTTMP/check.N
chain() {
  local f=$TESTTMP/chain$1.hprof
  $HOSTILE deep-chain "$f" "$1" 65535
  timeout 60 /usr/bin/time -f '%M %e' -o "$TESTTMP/rss" "$HEAPFS" --check "$f" \
    >"$TESTTMP/check.$1" 2>&1
  local rc=$? kb secs
  read -r kb secs < <(tail -1 "$TESTTMP/rss")
  check_eq "$1 classes of 65535 fields ($(stat -c %s "$f") bytes): --check exits 0" 0 "$rc"
  check "...within 400 MB and 30 s (max RSS ${kb:-?} KB, ${secs:-?} s)" \
    bash -c "[ '${kb:-999999999}' -lt 409600 ] && [ \"\$(echo '${secs:-99} < 30' | bc)\" = 1 ]"
}
chain 40
check "40 classes: every field laid out" bash -c "! grep -q 'laid out without' '$TESTTMP/check.40'"
# the views of a smaller chain (the same code, less to read)
$HOSTILE deep-chain "$TESTTMP/chain-small.hprof" 40 1001
if hf_mount "$TESTTMP/chain-small.hprof" -o index=none; then
  O=$MNT/latest/objects/0x100027
  check_eq "the deepest instance's fields: one line each, the header first" 40041 "$(wc -l <"$O/fields")"
  check_eq "...the last one C0's first, shadowed" "f@C0${TAB}long${TAB}0" "$(tail -1 "$O/fields")"
  check_eq "...its class's fields too" "f${TAB}long${TAB}C0" "$(tail -1 "$MNT/latest/classes/C39/fields")"
  check "...refs/ names its references as fields does" \
    bash -c "ls -U '$O/refs' | head -1 | grep -qx 'f@C39'"
  check "...and the path of the instance before it goes through one" \
    grep -qx '0x100026 C38 via f@C39' "$MNT/latest/objects/0x100026/path"
  hf_umount
else
  echo "not ok - mount 40 classes of 1001 fields"
fi
chain 70
check "70 classes: the chain is cut at 4 Mi fields, and errors says where" \
  grep -q 'class C64: 4259775 instance fields .*laid out without them' "$TESTTMP/check.70"

# ---- pprof gzip bombs ----
# bomb MIB WHAT: heapfs --check on a MIB MiB bomb exits 1 with one line
# naming the file and saying WHAT (a grep regex), under 256 MB and 20 s
bomb() {
  local f=$TESTTMP/bomb$1.pb.gz
  $HOSTILE pprof-bomb "$f" "$1"
  timeout 20 /usr/bin/time -f '%M' -o "$TESTTMP/rss" "$HEAPFS" --check "$f" \
    >/dev/null 2>"$TESTTMP/err"
  local rc=$? kb
  kb=$(tail -1 "$TESTTMP/rss")
  check_eq "a ${1} MiB pprof bomb ($(stat -c %s "$f") bytes): --check exits 1" 1 "$rc"
  check "...with one line naming it: $2" \
    bash -c "[ \$(wc -l <'$TESTTMP/err') = 1 ] && grep -q '^heapfs: $f: .*$2' '$TESTTMP/err'"
  check "...within 256 MB (max RSS ${kb:-?} KB)" test "${kb:-999999999}" -lt 262144
}
bomb 20 "would take more than"
bomb 80 "inflates beyond"
