#!/usr/bin/env bash
# t_hostile.sh - crafted dumps that ask for what no real one does
# (tests/fuzz/hostile.py makes them here): the daemon answers or refuses
# with one clear line, and stays up.
#   - an instance with fewer bytes than its class's fields: no reference is
#     read past its end, inside the file (a reference it does not have) or
#     past the file's end (a crash in the dominator computation);
#   - a pprof gzip bomb (empty string table entries: 1000 times smaller
#     gzipped, 32 times bigger unpacked): refused with one line, in
#     bounded memory and time, whether it stops inflating (over 512 times
#     the file) or stops unpacking (protobuf-c's structures over budget).
source "$(dirname "$0")/lib.sh"

HOSTILE="python3 $ROOT/tests/fuzz/hostile.py"

# ---- an instance shorter than its class's fields ----
$HOSTILE short-last "$TESTTMP/short-last.hprof"
if hf_mount "$TESTTMP/short-last.hprof" -o index=none; then
  check "short instance last in the file: dominators are computed" \
    grep -q '^0x300 ' "$MNT/latest/dominators"
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
