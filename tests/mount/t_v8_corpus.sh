#!/usr/bin/env bash
# t_v8_corpus.sh - the public V8 snapshots of tests/corpus/v8 (gzipped;
# where they come from: tests/corpus/PROVENANCE.md) mounted.
#
# Each must mount without problems, with the node count its own meta
# states; every file of the mount, of its snapshot, of its tables/, of a
# few classes and of a few of their objects must read; the histogram must
# add up to info's objects and bytes.  And Chrome DevTools' own code
# (devtools_oracle.mjs, as in t_v8.sh) must agree on every object's class,
# shallow and retained size and dominator.  One naming difference is
# allowed: a node whose type the meta's list lacks (a 2017 V8 wrote type
# 12, "symbol", with a list of 12 names) is "(?)" here, and "(undefined)"
# in DevTools, which looks the name up past the end of its list.
# Then each is walked whole and cut at 96 offsets (tests/mount/truncate.sh
# says what is checked: its first 64 bytes and 32 spread over it, not
# t_truncate.sh's 240 cuts: a cut takes 0.3 s).
. "$(dirname "$0")/lib.sh"
NCUTS=${NCUTS:-96}
. "$(dirname "$0")/truncate.sh"

# readable DIR: how many of DIR's files (not its subdirectories) fail to read
readable() {
  local f bad=0
  for f in "$1"/*; do
    [ -f "$f" ] || continue
    cat "$f" > /dev/null 2>&1 || { echo "# cannot read $f" >&2; bad=$((bad + 1)); }
  done
  echo "$bad"
}

for f in "$CORPUS"/v8/*.heapsnapshot.gz; do
  name=$(basename "$f")
  if ! hf_mount "$f"; then
    echo "not ok - $name mounts"
    continue
  fi
  S=$MNT/latest
  # the one problem the 2017 file has: 13 nodes whose type number is past
  # its meta's node_types (DevTools calls them "(undefined)")
  check "$name: errors says 13 nodes have a type past node_types" \
    grep -q ': 13 nodes have a type past the meta.s node_types: shown as type "?"' "$MNT/errors"
  check_eq "$name: ... and nothing else" \
    0 "$(grep -v '^#' "$MNT/errors" | grep -v -c 'nodes have a type past the meta.s node_types')"
  check "$name: info says v8, gzipped" grep -q '^gzip: yes' "$S/info"
  stated=$(zcat "$f" | head -c 4096 | grep -o '"node_count":[0-9]*' | cut -d: -f2)
  check_eq "$name: the nodes its meta states" "nodes: $stated" "$(grep '^nodes:' "$S/info")"
  bad=$(( $(readable "$MNT") + $(readable "$S") + $(readable "$S/tables") ))
  n=0
  while IFS= read -r c; do
    bad=$((bad + $(readable "$S/classes/$c")))
    for o in $(head -3 "$S/classes/$c/instances"); do
      bad=$((bad + $(readable "$S/objects/$o")))
      ls "$S/objects/$o/refs" "$S/objects/$o/referrers" > /dev/null || bad=$((bad + 1))
      n=$((n + 1))
    done
  done < <(awk -F'\t' '!/^#/ {print $3}' "$S/histogram" | head -25)
  check_eq "$name: every file reads (the mount's, the snapshot's, tables/, 25 classes, $n objects)" \
    0 "$bad"
  check_eq "$name: the histogram adds up to info's objects and bytes" \
    "$(awk '$1 == "objects:" || $1 == "bytes:" {print $2}' "$S/info" | tr '\n' ' ')" \
    "$(awk -F'\t' '!/^#/ {n += $1; b += $2} END {print n " " b " "}' "$S/histogram")"
  zcat "$f" > "$TESTTMP/plain.heapsnapshot"
  if node "$ROOT/tests/programs/v8/devtools_oracle.mjs" "$TESTTMP/plain.heapsnapshot" \
      > "$TESTTMP/oracle" 2>/dev/null; then
    awk -F'\t' 'BEGIN {OFS = FS} $2 == "(undefined)" {$2 = "(?)"} {print}' "$TESTTMP/oracle" \
      > "$TESTTMP/oracle.named"
    python3 "$ROOT/tests/programs/v8/oracle_compare.py" "$S" "$TESTTMP/oracle.named" \
      > "$TESTTMP/cmp" 2>&1
    sed 's/^/# /' "$TESTTMP/cmp"
    check "$name: DevTools agrees on every object (class, shallow, retained, dominator)" \
      grep -q ', 0 differences$' "$TESTTMP/cmp"
  elif command -v node > /dev/null 2>&1; then
    echo "not ok - $name: DevTools' code (devtools_oracle.mjs) reads it: run contrib/install-deps.sh"
  else
    echo "ok - $name: DevTools agrees # SKIP node (package nodejs) is not installed"
  fi
  hf_umount
done

mapfile -t files < <(corpus_files "$CORPUS/v8")
truncate_files "${files[@]}"
