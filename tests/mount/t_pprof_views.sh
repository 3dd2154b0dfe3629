#!/usr/bin/env bash
# t_pprof_views.sh - heap.pprof and stacks.folded of HPROF binary dumps
# (the other formats' are checked in their own scripts).
#
# google-pprof --text reads each mounted heap.pprof with no binary; its
# totals are the snapshot's objects and bytes (live objects by allocation
# trace), or, where the snapshot has allocation sites, the totals of those
# sites; stacks.folded sums to the same live bytes.
. "$(dirname "$0")/lib.sh"

have_pprof=0
command -v google-pprof >/dev/null 2>&1 && have_pprof=1
[ $have_pprof = 1 ] || echo "# google-pprof unavailable: pprof totals not checked"

for f in "$CORPUS"/hprof/*.hprof "$CORPUS"/hprof/*.bin; do
  b=$(basename "$f")
  if ! hf_mount "$f"; then echo "not ok - $b mounts"; continue; fi
  S=$MNT/snapshots/1
  check "$b: heap.pprof and stacks.folded present" test -s "$S/heap.pprof" -a -s "$S/stacks.folded"
  read -r io ib ao ab <<<"$(sed -n 's/^heap profile: *\([0-9]*\): *\([0-9]*\) *\[ *\([0-9]*\): *\([0-9]*\)\].*/\1 \2 \3 \4/p' "$S/heap.pprof")"
  if [ ! -e "$S/sites" ]; then
    check_eq "$b: heap.pprof totals are the snapshot's objects and bytes" \
      "$(sed -n 's/^objects: //p' "$S/info") $(sed -n 's/^bytes: //p' "$S/info")" "$io $ib"
  fi
  check_eq "$b: stacks.folded sums to the live bytes" "$ib" "$(awk '{s+=$NF} END {print s+0}' "$S/stacks.folded")"
  if [ $have_pprof = 1 ]; then
    cp "$S/heap.pprof" "$TESTTMP/h.pprof"
    check_eq "$b: google-pprof reads heap.pprof: live bytes" "Total: $ib B" \
      "$(google-pprof --text --show_bytes --inuse_space "$TESTTMP/h.pprof" 2>/dev/null | head -1)"
    check_eq "$b: google-pprof reads heap.pprof: allocated objects" "Total: $ao objects" \
      "$(google-pprof --text --alloc_objects "$TESTTMP/h.pprof" 2>/dev/null | head -1)"
  fi
  hf_umount
done
