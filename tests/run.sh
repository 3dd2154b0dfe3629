#!/usr/bin/env bash
# Runs every test and prints one closing line "N passed, N failed".
# Arguments: the cmocka unit test binaries.  Then every tests/mount/*.sh
# (each prints TAP-style "ok - ..." / "not ok - ..." lines) is run.
# A test binary or script that dies without reporting counts as failed.
set -u
cd "$(dirname "$0")/.."
pass=0; fail=0
log=$(mktemp -d)
# This run's own temp dir: every mount its tests make lives under it, and
# the cleanup unmounts only those (another `make check` may be running on
# the same machine).  Readable by all: t_access.sh works as another user.
export TMPDIR=$(mktemp -d /tmp/heapfs-run.XXXXXX)
chmod 755 "$TMPDIR"
trap 'rm -rf "$log"; tests/mount/cleanup.sh "$TMPDIR" 2>/dev/null; rm -rf --one-file-system "$TMPDIR" 2>/dev/null' EXIT

for t in "$@"; do
  name=$(basename "$t")
  t0=$SECONDS
  "$t" >"$log/$name.out" 2>&1; rc=$?
  p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log/$name.out" | awk '{s+=$1} END {print s+0}')
  f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$log/$name.out" | awk '{s+=$1} END {print s+0}')
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
  if [ "$p" -eq 0 ] && [ "$f" -eq 0 ]; then f=1; fi
  if [ "$f" -ne 0 ]; then cat "$log/$name.out"; fi
  echo "unit $name: $p passed, $f failed ($((SECONDS - t0)) s)"
  pass=$((pass + p)); fail=$((fail + f))
done

for s in tests/mount/t_*.sh; do
  [ -e "$s" ] || continue
  name=$(basename "$s" .sh)
  t0=$SECONDS
  timeout 900 bash "$s" >"$log/$name.out" 2>&1; rc=$?
  p=$(grep -c '^ok ' "$log/$name.out")
  f=$(grep -c '^not ok ' "$log/$name.out")
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; echo "not ok - $name exited $rc" >>"$log/$name.out"; fi
  if [ "$p" -eq 0 ] && [ "$f" -eq 0 ]; then f=1; echo "not ok - $name ran no test" >>"$log/$name.out"; fi
  grep -E '^(not ok|#)' "$log/$name.out" | head -50
  [ "$rc" -ne 0 ] && tail -20 "$log/$name.out"
  echo "mount $name: $p passed, $f failed ($((SECONDS - t0)) s)"
  pass=$((pass + p)); fail=$((fail + f))
done

# Tests mount files under tests/ with -o index=none: an index file left
# there would be picked up by the next run's tests as a dump to decode.
left=$(find tests -name '*.heapfs-index*' 2>/dev/null)
if [ -n "$left" ]; then
  echo "$left" | sed 's/^/not ok - an index file was left in the tree: /'
  find tests -name '*.heapfs-index*' -delete
  fail=$((fail + 1))
else
  pass=$((pass + 1))
fi
echo "run: no test left an index file under tests/"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
