#!/usr/bin/env bash
# t_flamediff.sh - snapshots/S/flame-diff.svg from the second snapshot on:
# S's stacks.folded drawn against the snapshot before's, in every format
# with stacks and several snapshots (gperftools series, OEMP recordings,
# an HPROF with two heap dumps, two dumps of two formats on one mount).
#
# Each is well-formed (xmllint) and self-contained; its frames add up to
# S's stacks.folded as flame.svg's do, and each frame's earlier value
# (data-b) is the sum of the earlier stacks.folded's lines under its path,
# with hover text and colour saying the change (flame_check.py check,
# diff).  The first snapshot has none.  Headless Chromium draws one: not
# blank, the widest frames where stacks.folded puts them in their colour,
# and a click zooms and a search sums the matches as in flame.svg.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/browser.sh"
CHECK=$ROOT/tests/mount/flame_check.py

# check_diffs LABEL: every snapshot of MNT after the first has a good
# flame-diff.svg against the one before; the first has none.
check_diffs() {
  local label=$1 prev="" s n=0 bad=0 d
  for s in $(ls "$MNT/snapshots" | sort -n); do
    d=$MNT/snapshots/$s
    if [ -z "$prev" ]; then
      [ ! -e "$d/flame-diff.svg" ] || { echo "not ok - $label: snapshot $s, the first, has no flame-diff.svg"; bad=1; }
      prev=$s; continue
    fi
    n=$((n + 1))
    if ! xmllint --noout "$d/flame-diff.svg" 2>"$TESTTMP/xml.err"; then
      echo "not ok - $label: snapshots/$s/flame-diff.svg is well-formed"; head -3 "$TESTTMP/xml.err"; bad=1
    fi
    if ! python3 "$CHECK" check "$d/flame-diff.svg" "$d/stacks.folded" >"$TESTTMP/chk.out" ||
       ! python3 "$CHECK" diff "$d/flame-diff.svg" "$MNT/snapshots/$prev/stacks.folded" >>"$TESTTMP/chk.out"; then
      echo "not ok - $label: snapshots/$s/flame-diff.svg adds up to stacks.folded of $s and $prev"
      grep -v '^#' "$TESTTMP/chk.out" | sed 's/^/# /' | head -5; bad=1
    fi
    grep '^# .* grew' "$TESTTMP/chk.out" >>"$TESTTMP/grew.txt"
    prev=$s
  done
  [ "$n" -gt 0 ] || { echo "not ok - $label: has a second snapshot"; return; }
  [ $bad = 1 ] || echo "ok - $label: $n flame-diff.svg, well-formed, self-contained, add up to both snapshots"
}

command -v xmllint >/dev/null || echo "not ok - xmllint (libxml2-utils) is installed"

if hf_mount_series "$CORPUS"/pprof-heap/local_tcmalloc_hp.000[12].heap; then
  check_diffs "gperftools series"
  hf_umount
else
  echo "not ok - the gperftools series mounts"
fi
for f in "$ROOT"/tests/fixtures/gen-v1.oemp "$ROOT"/tests/fixtures/small-v2.oemp \
         "$CORPUS"/hprof/mat_sun_jdk6_31_hprofagent_compressedOops.hprof; do
  if hf_mount "$f"; then
    check_diffs "$(basename "$f")"
    case $f in *gen-v1.oemp)
      last=$(ls "$MNT/snapshots" | sort -n | tail -1)
      cp "$MNT/snapshots/$last/flame-diff.svg" "$TESTTMP/b.svg"
      cp "$MNT/snapshots/$last/stacks.folded" "$TESTTMP/b.folded" ;;
    esac
    hf_umount
  else
    echo "not ok - $(basename "$f") mounts"
  fi
done
# Two dumps of two formats: frames are matched by their text.
if hf_mount_series "$CORPUS"/hprof/mat_sun_jdk6_31_hprofagent_compressedOops.hprof \
     "$CORPUS"/hprof-txt/JoelStuart_COMP3702A1_sites.java.hprof.txt; then
  check_diffs "an HPROF and an HPROF text on one mount"
  hf_umount
else
  echo "not ok - an HPROF and an HPROF text mount together"
fi
check "the pictures show frames that grew and frames that shrank" \
  awk '$4 > 0 {g = 1} $6 > 0 {s = 1} END {exit !(g && s)}' "$TESTTMP/grew.txt"

# ---- in a browser ----
if [ -z "$CHROMIUM" ] || [ ! -s "$TESTTMP/b.svg" ]; then
  echo "ok - flame-diff.svg in a browser # SKIP chromium is not installed"
  exit 0
fi
flame_in_browser "$TESTTMP/b.svg" "$TESTTMP/b.folded" flame-diff.svg
