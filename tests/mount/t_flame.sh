#!/usr/bin/env bash
# t_flame.sh - flame.svg beside every stacks.folded, in every format that
# has stacks (HPROF binary and text, BMD, gperftools, pprof, OEMP).
#
# Each flame.svg is well-formed XML (xmllint), refers to nothing outside
# itself, and its frames add up to stacks.folded: "all" is the sum, each
# frame the sum of the lines under its path (flame_check.py parses both).
# Then headless Chromium renders one: a screenshot (not blank; the two
# widest frames above "all" are at the place and in the colour
# stacks.folded implies, after a click into one and a click on Reset
# Zoom) and the DOM after a click and a search driven by the URL fragment
# (flame.h): the frame fills the width, the others are hidden, the search
# says the share of the matching frames.  Two Chromium runs: it is slow
# to start.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/browser.sh"
CHECK=$ROOT/tests/mount/flame_check.py

# check_flames LABEL: every stacks.folded of MNT (at the top or in a
# snapshot; not under objects/, which is large) has a good flame.svg.
check_flames() {
  local label=$1 n=0 f d bad=0
  while IFS= read -r f; do
    d=$(dirname "$f"); n=$((n + 1))
    if [ ! -s "$d/flame.svg" ]; then
      echo "not ok - $label: flame.svg beside ${d#$MNT/}/stacks.folded"; bad=1; continue
    fi
    if ! xmllint --noout "$d/flame.svg" 2>"$TESTTMP/xml.err"; then
      echo "not ok - $label: ${d#$MNT/}/flame.svg is well-formed"; head -3 "$TESTTMP/xml.err"; bad=1
    fi
    if ! python3 "$CHECK" check "$d/flame.svg" "$f" >"$TESTTMP/chk.out"; then
      echo "not ok - $label: ${d#$MNT/}/flame.svg adds up to stacks.folded"
      sed 's/^/# /' "$TESTTMP/chk.out" | head -5; bad=1
    fi
  done < <(find "$MNT"/ "$MNT"/snapshots/* -maxdepth 1 -name stacks.folded)
  [ "$n" -gt 0 ] || { echo "not ok - $label: has stacks.folded"; return; }
  [ $bad = 1 ] || echo "ok - $label: $n flame.svg, well-formed, self-contained, add up to stacks.folded"
}

command -v xmllint >/dev/null || echo "not ok - xmllint (libxml2-utils) is installed"

for f in "$CORPUS"/hprof/mat_sun_jdk6_31_hprofagent_compressedOops.hprof \
         "$CORPUS"/hprof/slurp_hprof-64.bin \
         "$CORPUS"/hprof-txt/Magnulas_ADKLabb3_heapdump_sites.java.hprof.txt \
         "$CORPUS"/bmd/leakcanary_leak_service_binder.bmd \
         "$CORPUS"/pprof-heap/googlepprof_cppbench.heap \
         "$ROOT"/tests/fixtures/small-v2.oemp; do
  if hf_mount "$f"; then
    check_flames "$(basename "$f")"
    case $f in *cppbench.heap) cp "$MNT/latest/heap.pb.gz" "$TESTTMP/cppbench.pb.gz" ;; esac
    hf_umount
  else
    echo "not ok - $(basename "$f") mounts"
  fi
done
# pprof (profile.proto): the gperftools profile as heapfs writes it.
if [ -s "$TESTTMP/cppbench.pb.gz" ] && hf_mount "$TESTTMP/cppbench.pb.gz" -o index=none; then
  grep -q '^format: gopprof' "$MNT/info" || echo "# $(head -1 "$MNT/info")"
  check_flames "cppbench.pb.gz (pprof)"
  hf_umount
else
  echo "not ok - heap.pb.gz mounts as a pprof profile"
fi
if hf_mount_series "$CORPUS"/pprof-heap/local_tcmalloc_hp.000[12].heap; then
  check_flames "gperftools series"
  hf_umount
fi

# ---- in a browser ----
if [ -z "$CHROMIUM" ]; then
  echo "ok - flame.svg in a browser # SKIP chromium is not installed"
  exit 0
fi
if hf_mount "$CORPUS"/hprof-txt/Magnulas_ADKLabb3_heapdump_sites.java.hprof.txt; then
  cp "$MNT/latest/flame.svg" "$TESTTMP/b.svg"
  cp "$MNT/latest/stacks.folded" "$TESTTMP/b.folded"
  hf_umount
  flame_in_browser "$TESTTMP/b.svg" "$TESTTMP/b.folded" flame.svg
else
  echo "not ok - hprof text mounts"
fi
