#!/usr/bin/env bash
# t_hostile.sh - crafted dumps that ask for what no real one does
# (tests/fuzz/hostile.py makes them here): the daemon answers or refuses
# with one clear line, and stays up.
#   - an instance with fewer bytes than its class's fields: no reference is
#     read past its end, inside the file (a reference it does not have) or
#     past the file's end (a crash in the dominator computation).
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
