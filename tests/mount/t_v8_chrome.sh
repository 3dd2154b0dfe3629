#!/usr/bin/env bash
# t_v8_chrome.sh - a real Chrome heap snapshot with detached DOM nodes.
#
# tests/programs/chrome/detached.js starts Debian's chromium headless, loads
# page.html (100 divs taken out of the document and kept in
# window.detachedDivs, a section of 49 spans taken out and kept in
# window.detachedTree, 10 divs left in) and takes a heap snapshot through
# the DevTools protocol, as DevTools' Memory panel does.  Checked against
# those numbers, and against Chrome DevTools' own heap snapshot code (npm
# heap-snapshot-toolkit, run by tests/programs/v8/devtools_oracle.mjs): the
# detached view, the classes, every object's class, shallow and retained
# size and dominator, and the path from the root to a detached div through
# the page's global.
. "$(dirname "$0")/lib.sh"

for tool in node chromium; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "ok - a Chrome snapshot with detached DOM nodes # SKIP $tool is not installed"
    exit 0
  fi
done
# (detached.js gives up after 60 s itself; timeout is for a hung node)
timeout -k 5 75 node "$ROOT/tests/programs/chrome/detached.js" "$TESTTMP/chrome" \
  "$TESTTMP/page.heapsnapshot" 2> "$TESTTMP/detached.err"
rc=$?
sed 's/^/# /' "$TESTTMP/detached.err"
if [ "$rc" != 0 ] || [ ! -s "$TESTTMP/page.heapsnapshot" ]; then
  echo "not ok - headless chromium writes a heap snapshot (status $rc)"
  exit 0
fi
echo "ok - headless chromium writes a heap snapshot"

if ! hf_mount "$TESTTMP/page.heapsnapshot"; then
  echo "not ok - the Chrome snapshot mounts"
  exit 0
fi
S=$MNT/latest
check "nothing in errors" test ! -s "$MNT/errors"
# count CLASS: the rows of detached of that class
count() { awk -F'\t' -v c="$1" '!/^#/ && $3 == c' "$S/detached" | wc -l; }
check_eq "detached: the 100 divs" 100 "$(count 'Detached <div>')"
check_eq "detached: the 49 spans" 49 "$(count 'Detached <span>')"
check_eq "detached: the section" 1 "$(count 'Detached <section>')"
check "detached: the 10 divs in the document are not" \
  bash -c "! awk -F'\t' '!/^#/ && \$3 == \"<div>\"' '$S/detached' | grep -q ."
check_eq "histogram: 10 attached <div>" 10 \
  "$(awk -F'\t' '!/^#/ && $3 == "<div>" {print $1}' "$S/histogram")"
check_eq "classes/Detached <div>/instances lists 100" 100 \
  "$(wc -l < "$S/classes/Detached <div>/instances")"

if node "$ROOT/tests/programs/v8/devtools_oracle.mjs" "$TESTTMP/page.heapsnapshot" \
    > "$TESTTMP/oracle"; then
  python3 "$ROOT/tests/programs/v8/oracle_compare.py" "$S" "$TESTTMP/oracle" > "$TESTTMP/cmp" 2>&1
  sed 's/^/# /' "$TESTTMP/cmp"
  check "DevTools agrees on every object (class, shallow, retained, dominator)" \
    grep -q ', 0 differences$' "$TESTTMP/cmp"
  check_eq "detached lists what DevTools calls Detached" \
    "$(awk -F'\t' '$2 ~ /^Detached / {print $1}' "$TESTTMP/oracle" | sort | tr '\n' ' ')" \
    "$(awk -F'\t' '!/^#/ {print $1}' "$S/detached" | sort | tr '\n' ' ')"
  # the detached nodes' retained sizes, heapfs's beside DevTools'
  awk -F'\t' '!/^#/ {print $1}' "$S/detached" | sort > "$TESTTMP/ids"
  join -t $'\t' "$TESTTMP/ids" <(awk -F'\t' '{print $1 "\t" $4}' "$TESTTMP/oracle" | sort) \
    > "$TESTTMP/theirs"
  join -t $'\t' "$TESTTMP/ids" <(awk -F'\t' 'NR > 1 {print $1 "\t" $2}' \
    "$S/tables/retained.tsv" | sort) > "$TESTTMP/ours"
  check_eq "the detached nodes' retained sizes are DevTools' ($(wc -l < "$TESTTMP/ours") nodes)" \
    "$(cat "$TESTTMP/theirs")" "$(cat "$TESTTMP/ours")"
else
  echo "not ok - DevTools' code (devtools_oracle.mjs) reads the snapshot: run contrib/install-deps.sh"
fi

# known structure: the section dominates its 49 spans and retains them
SEC=$(head -1 "$S/classes/Detached <section>/instances")
field() { awk -v k="$2:" '$1 == k {print $2}' "$S/objects/$1/$3"; }
SPANS=$(awk -F'\t' '!/^#/ && $3 == "Detached <span>" {s += $2} END {print s}' "$S/detached")
check_eq "the section retains itself and its 49 spans" \
  "$(($(field "$SEC" shallow retained) + SPANS))" "$(field "$SEC" retained retained)"
# under A: whether A is on O's dominator chain (the spans hang from the
# first one, which hangs from the section, as Chrome links them)
under() {
  local o=$1 k
  for k in $(seq 60); do
    o=$(basename "$(readlink "$S/objects/$o/dominator")")
    [ "$o" = "$2" ] && return 0
    [ -e "$S/objects/$o/dominator" ] || return 1
  done
  return 1
}
n=0
for o in $(cat "$S/classes/Detached <span>/instances"); do under "$o" "$SEC" && n=$((n + 1)); done
check_eq "the section dominates every span" 49 "$n"

# a path from the root to a detached div: through the page's global
DIV=$(head -1 "$S/classes/Detached <div>/instances")
tail -3 "$S/objects/$DIV/path" | sed 's/^/# /'
check "the path reaches the Window global" grep -q '^0x[0-9a-f]* Window .* via global_object$' \
  "$S/objects/$DIV/path"
check "... then the array window.detachedDivs" grep -qP '^0x[0-9a-f]+ Array via detachedDivs$' \
  <(tail -2 "$S/objects/$DIV/path" | head -1)
check "... then the div" grep -qP "^$DIV Detached <div> via \\d+\$" <(tail -1 "$S/objects/$DIV/path")
ARR=$(awk '$NF == "detachedDivs" {print $1}' "$S/objects/$DIV/path")
check_eq "the array dominates every detached div" 100 \
  "$(for o in $(cat "$S/classes/Detached <div>/instances"); do readlink "$S/objects/$o/dominator"; done |
     grep -c "/$ARR\$")"
check "the div's info says detached" grep -qx 'detachedness: detached' "$S/objects/$DIV/info"
check "its name is the element as Chrome writes it" grep -qx 'name: <div class="leak">' \
  "$S/objects/$DIV/info"
hf_umount
