#!/usr/bin/env bash
# t_v8_traces.sh - traces/N of V8 snapshots taken with allocation tracking.
#
# Debian's nodejs, run with --track-heap-objects, writes two snapshots of a
# program whose Widget objects are all made in makeWidgets(), which the
# script's top level calls: 300 before the first snapshot, 200 more before
# the second.  traces/N must hold the stack of sites' trace N, leaf first,
# the leaf being the row's function, for every row; and the row that holds
# the Widgets' bytes must have makeWidgets as its leaf, called from the
# script.  Two snapshots of one process are one dump: one traces/ for
# both, the second's numbers following the first's, as its sites rows say.
. "$(dirname "$0")/lib.sh"

if ! command -v node >/dev/null 2>&1; then
  echo "ok - traces of V8 snapshots # SKIP node (package nodejs) is not installed"
  exit 0
fi
cat > "$TESTTMP/widgets.js" <<'JS'
class Widget { constructor (i) { this.name = 'widget-' + i; this.parts = [i, i + 1, i + 2] } }
function makeWidgets (n, into) { for (let i = 0; i < n; i++) into.push(new Widget(i)); return into }
const v8 = require('v8')
globalThis.kept = makeWidgets(300, [])
v8.writeHeapSnapshot(process.argv[2] + '.1.heapsnapshot')
makeWidgets(200, globalThis.kept)
v8.writeHeapSnapshot(process.argv[2] + '.2.heapsnapshot')
JS
timeout 60 node --track-heap-objects "$TESTTMP/widgets.js" "$TESTTMP/w" >/dev/null 2>&1
check "node --track-heap-objects writes two snapshots" test -s "$TESTTMP/w.2.heapsnapshot"

# every_leaf SNAPDIR TRACESDIR: rows of sites whose trace's first line is
# not the row's function (none expected), and how many rows there are
every_leaf() {
  local bad=0 rows=0 n f
  while IFS=$'\t' read -r _ _ n f; do
    rows=$((rows + 1))
    [ "$(head -1 "$2/$n")" = "$f" ] || bad=$((bad + 1))
  done < <(grep -v '^#' "$1/sites")
  echo "$rows $bad"
}

# the sites row of makeWidgets: "objects bytes trace"
widget_row() { awk -F'\t' '$4 ~ /^makeWidgets \(.*widgets\.js:2:[0-9]+\)$/ {print $1, $2, $3}' "$1/sites"; }

if hf_mount "$TESTTMP/w.1.heapsnapshot"; then
  S=$MNT/latest
  read -r rows bad <<<"$(every_leaf "$S" "$MNT/traces")"
  check "sites has rows ($rows)" test "$rows" -gt 10
  check_eq "traces/N's leaf is sites' function, every row" 0 "$bad"
  check_eq "one file per call-tree node: traces/1 .. traces/N" \
    "$(ls "$MNT/traces" | sort -n | tail -1)" "$(ls "$MNT/traces" | wc -l)"
  read -r objs bytes n <<<"$(widget_row "$S")"
  check "makeWidgets made the 300 Widgets (and their arrays: $objs objects)" test "${objs:-0}" -ge 300
  ONE=$(awk '$1 == "size:" {print $2}' "$S/objects/$(head -1 "$S/classes/Widget/instances")/info")
  check "... and holds their bytes ($bytes >= 300 x $ONE)" test "${bytes:-0}" -ge $((300 * ONE))
  check "traces/$n: makeWidgets, leaf first" grep -qP '^makeWidgets \(.*widgets\.js:2:\d+\)$' \
    <(head -1 "$MNT/traces/$n")
  check "traces/$n: called from the script's top level" grep -qP '^\(anonymous\) \(.*widgets\.js:1:1\)$' \
    <(sed -n 2p "$MNT/traces/$n")
  check "traces/$n: no frame is the tree's (root)" bash -c "! grep -qx '(root)' '$MNT/traces/$n'"
  check_eq "the tree's root has no frames" 0 "$(wc -c < "$MNT/traces/1")"
  N1=$(ls "$MNT/traces" | wc -l)
  check_eq "info counts them" "traces: $N1" "$(grep '^traces:' "$MNT/info")"
  check "the index file is written" wait_written "$MNT"
  traces_digest() { (cd "$1/traces" && ls | sort -n | xargs cat | md5sum); cat "$1/latest/sites" | md5sum; }
  first=$(traces_digest "$MNT")
  hf_umount
  if hf_mount "$TESTTMP/w.1.heapsnapshot"; then
    check "remounted from its index file" grep -q '^index: loaded from' "$MNT/.stats"
    check_eq "remounted: every traces/N and sites as the first mount's" "$first" "$(traces_digest "$MNT")"
    hf_umount
  fi
else
  echo "not ok - w.1.heapsnapshot mounts"
fi

if hf_mount_series "$TESTTMP/w.1.heapsnapshot" "$TESTTMP/w.2.heapsnapshot"; then
  S=$MNT/snapshots/2
  check "one traces/ for both snapshots" test -d "$MNT/traces" -a ! -e "$S/traces"
  read -r rows bad <<<"$(every_leaf "$S" "$MNT/traces")"
  check_eq "snapshot 2: traces/N's leaf is sites' function, every row ($rows)" 0 "$bad"
  read -r objs bytes n <<<"$(widget_row "$S")"
  check "snapshot 2: makeWidgets made 500 Widgets ($objs objects)" test "${objs:-0}" -ge 500
  check "snapshot 2's trace numbers follow snapshot 1's ($n > ${N1:-?})" test "${n:-0}" -gt "${N1:-0}"
  check "snapshot 2: traces/$n is makeWidgets" grep -qP '^makeWidgets \(' <(head -1 "$MNT/traces/$n")
  hf_umount
else
  echo "not ok - two tracked snapshots mount together"
fi
