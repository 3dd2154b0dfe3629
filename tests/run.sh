#!/usr/bin/env bash
# Runs every test and prints one closing line "N passed, N failed".
# Arguments: the cmocka unit test binaries.  Then every tests/mount/t_*.sh
# (each prints TAP-style "ok - ..." / "not ok - ..." lines) is run.
# A test binary or script that dies without reporting counts as failed.
#
# Tests run two at a time (TEST_JOBS=N for another number), the slowest of
# the last run first ($B/test-times), each with a timeout of TEST_TIMEOUT
# seconds (300); a test's output is printed whole when it ends.  Before
# them, what several tests would otherwise each build is made once:
# tests/fuzz/hf_walk (t_truncate, t_fuzz_smoke, t_growth), and the fuzz
# targets when clang can build them (t_fuzz_smoke).  Dumps that several
# tests make from a JVM are made by the first test that asks and shared
# through $HF_SHARED (tests/mount/jvm.sh).  The five slowest tests are
# listed before the closing line.
set -u
cd "$(dirname "$0")/.."
B=${B:-build/rel}
JOBS=${TEST_JOBS:-2}
ALONE="t_load"   # tests that run with no other test beside them
TIMEOUT=${TEST_TIMEOUT:-300}
TIMES=$B/test-times
pass=0; fail=0
log=$(mktemp -d)
# This run's own temp dir: every mount its tests make lives under it, and
# the cleanup unmounts only those (another `make check` may be running on
# the same machine).  Readable by all: t_access.sh works as another user.
export TMPDIR=$(mktemp -d /tmp/heapfs-run.XXXXXX)
chmod 755 "$TMPDIR"
export HF_SHARED=$TMPDIR/shared
mkdir -p "$HF_SHARED"
trap 'rm -rf "$log"; tests/mount/cleanup.sh "$TMPDIR" 2>/dev/null; rm -rf --one-file-system "$TMPDIR" 2>/dev/null' EXIT

# ---- what several tests build ----
case "$B" in *san*) SAN=1 ;; *) SAN=0 ;; esac
t0=$SECONDS
if ! make -s -j"$JOBS" -f tests/fuzz/fuzz.mk hf_walk SANITIZE=$SAN >"$log/prepare" 2>&1; then
  tail -20 "$log/prepare"   # the tests that need it report the failure
fi
# (the probe is t_fuzz_smoke.sh's, which reports a failure to build)
if echo 'int LLVMFuzzerTestOneInput(const char *d, long n) { return 0; }' |
   "${FUZZ_CC:-clang}" -x c -fsanitize=fuzzer -o "$log/probe" - >/dev/null 2>&1; then
  make -s -j"$JOBS" -f tests/fuzz/fuzz.mk fuzzers seeds >"$log/prepare" 2>&1
fi
echo "prepare: what several tests share, built ($((SECONDS - t0)) s)"

# ---- the tests ----
# run_unit NAME BINARY / run_mount NAME SCRIPT, run as a job: the output in
# $log/NAME.out, what to print in $log/NAME.report, "PASSED FAILED SECONDS"
# in $log/NAME.count.
run_unit() {
  local name=$1 t=$2 t0=$SECONDS rc p f
  timeout "$TIMEOUT" "$t" >"$log/$name.out" 2>&1; rc=$?
  p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log/$name.out" | awk '{s+=$1} END {print s+0}')
  f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$log/$name.out" | awk '{s+=$1} END {print s+0}')
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
  if [ "$p" -eq 0 ] && [ "$f" -eq 0 ]; then f=1; fi
  {
    if [ "$f" -ne 0 ]; then cat "$log/$name.out"; fi
    echo "unit $name: $p passed, $f failed ($((SECONDS - t0)) s)"
  } >"$log/$name.report"
  echo "$p $f $((SECONDS - t0))" >"$log/$name.count"
}

run_mount() {
  local name=$1 s=$2 t0=$SECONDS rc p f
  timeout "$TIMEOUT" bash "$s" >"$log/$name.out" 2>&1; rc=$?
  p=$(grep -c '^ok ' "$log/$name.out")
  f=$(grep -c '^not ok ' "$log/$name.out")
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; echo "not ok - $name exited $rc" >>"$log/$name.out"; fi
  if [ "$p" -eq 0 ] && [ "$f" -eq 0 ]; then f=1; echo "not ok - $name ran no test" >>"$log/$name.out"; fi
  {
    grep -E '^(not ok|#)' "$log/$name.out" | head -50
    [ "$rc" -ne 0 ] && tail -20 "$log/$name.out"
    echo "mount $name: $p passed, $f failed ($((SECONDS - t0)) s)"
  } >"$log/$name.report"
  echo "$p $f $((SECONDS - t0))" >"$log/$name.count"
}

# The queue, "KIND NAME PATH": the slowest of the last run first (a test
# never timed counts as slow), then in the usual order.
queue=$(
  { for t in "$@"; do echo "unit $(basename "$t") $t"; done
    for s in tests/mount/t_*.sh; do [ -e "$s" ] && echo "mount $(basename "$s" .sh) $s"; done
  } | awk -v times="$TIMES" '
    BEGIN { while ((getline l < times) > 0) { split(l, w, " "); secs[w[1]] = w[2] } }
    { printf "%d %06d %s\n", ($2 in secs) ? secs[$2] : 1000000, NR, $0 }' |
  sort -k1,1nr -k2,2n | cut -d' ' -f3-)

declare -A running=()   # pid -> test name
queued=0; finished=0
finish() {  # waits for one job, prints its report
  local pid name p f secs
  wait -n -p pid
  name=${running[$pid]}
  unset "running[$pid]"
  cat "$log/$name.report"
  read -r p f secs <"$log/$name.count" 2>/dev/null || { p=0; f=1; secs=0; echo "not ok - $name left no count"; }
  pass=$((pass + p)); fail=$((fail + f))
  finished=$((finished + 1))
  echo "$name $secs" >>"$log/times"
}
mapfile -t entries <<<"$queue"
for entry in "${entries[@]}"; do
  read -r kind name path <<<"$entry"
  [ -n "$kind" ] || continue
  # A test that measures the daemon's memory under load runs alone: beside
  # another test, more of its threads allocate at once and glibc gives them
  # more arenas, which is the machine's load, not a leak.
  alone=0; case " $ALONE " in *" $name "*) alone=1 ;; esac
  limit=$JOBS; [ "$alone" = 1 ] && limit=1
  while [ "${#running[@]}" -ge "$limit" ]; do finish; done
  "run_$kind" "$name" "$path" </dev/null &
  running[$!]=$name
  queued=$((queued + 1))
  [ "$alone" = 1 ] && finish
done
while [ "${#running[@]}" -gt 0 ]; do finish; done
scripts=$(ls tests/mount/t_*.sh | wc -l)
if [ "$finished" -ne "$queued" ] || [ "$queued" -ne $(($# + scripts)) ]; then
  echo "not ok - run: $finished tests reported, $queued started, of $# unit tests and $scripts scripts"
  fail=$((fail + 1))
fi

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

mkdir -p "$(dirname "$TIMES")" && cp "$log/times" "$TIMES" 2>/dev/null
echo "slowest: $(sort -k2,2nr "$log/times" 2>/dev/null | head -5 | awk '{ printf "%s%s %d s", (NR > 1 ? ", " : ""), $1, $2 }')"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
