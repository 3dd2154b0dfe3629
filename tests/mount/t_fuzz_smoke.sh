#!/usr/bin/env bash
# t_fuzz_smoke.sh - the fuzz targets still build and run, and every input
# that once crashed stays fixed.  (The long runs are `make fuzz`.)
#   - every registered decoder has a fuzz target (a line in tests/fuzz/fuzz.mk);
#   - every input under tests/fuzz/regress/FORMAT/ is replayed through
#     tests/fuzz/hf_walk --format FORMAT (the project's compiler; sanitized
#     under `make check SANITIZE=1`): it must open and walk clean or be
#     refused, with no crash, hang, sanitizer or leak report;
#   - with clang and libFuzzer present: each fuzz_FORMAT (ASan + UBSan) is
#     built, run SMOKE_SECONDS (2) on a bounded set of its seeds, then half
#     that with the dump changing underneath (HF_FUZZ_CHANGE=1); nothing may
#     be found.  Without clang: that part is skipped.  libFuzzer runs every
#     seed before its time limit applies, so the seeds bound this script's
#     time on a loaded machine: both runs get the target's regression
#     inputs (so both replay them) and, of each kind of seed mkseeds.py
#     makes (whole files, each prefix length, shrunk dumps, series of
#     files), the smallest; the first run also every seed of at most
#     16 KiB (smoke_seeds below).
#     All seeds: `make -f tests/fuzz/fuzz.mk smoke`.
source "$(dirname "$0")/lib.sh"

B=${B:-build/rel}
case "$B" in *san*) SAN=1 ;; *) SAN=0 ;; esac
SMOKE=${SMOKE_SECONDS:-2}

# smoke_seeds DIR REGRESS OUT SMALL: copies to OUT every regression input
# of REGRESS, the seeds of DIR of at most SMALL bytes and, per kind (the
# name's .headN / .shrunkN suffix, a series, else a whole file), the
# smallest bigger one.  (mkseeds.py's copies of the regression inputs are
# left out: OUT has them once.)
smoke_seeds() {
  mkdir -p "$3"
  for r in "$2"/*; do
    [ -f "$r" ] && cp "$r" "$3/regress-$(basename "$r")"
  done
  for s in "$1"/*; do
    n=$(basename "$s"); kind=whole
    [ -f "$s" ] && [ ! -e "$2/${n#*-}" ] || continue
    [[ $n =~ \.(head[0-9]+|shrunk[0-9a-z]*)$ ]] && kind=${BASH_REMATCH[1]}
    [[ $n == [0-9]*-series-* ]] && kind=series
    echo "$(stat -c %s "$s") $kind $s"
  done | sort -k2,2 -k1,1n | awk -v small="$4" \
      '$1 <= small || !($2 in big) { if ($1 > small) big[$2] = 1; print $3 }' |
    while read -r s; do cp "$s" "$3/"; done
}
FMK="make -s -C $ROOT -f tests/fuzz/fuzz.mk"

if ! $FMK hf_walk SANITIZE=$SAN >"$TESTTMP/build.log" 2>&1; then
  sed 's/^/# /' "$TESTTMP/build.log" | tail -20
  echo "not ok - build tests/fuzz/hf_walk"
  exit 1
fi
WALK=$ROOT/$B/tests/fuzz/hf_walk
formats=$("$WALK" --list-formats)
targets=" $($FMK list 2>/dev/null) "
for f in $formats; do
  check "decoder $f has a fuzz target in tests/fuzz/fuzz.mk" bash -c "[[ '$targets' == *' $f '* ]]"
done

# ---- regression inputs through the driver ----
for dir in "$ROOT"/tests/fuzz/regress/*/; do
  [ -d "$dir" ] || continue
  f=$(basename "$dir")
  inputs=("$dir"*)
  [ -e "${inputs[0]}" ] || continue
  if ! echo "$formats" | grep -qx "$f"; then
    echo "not ok - tests/fuzz/regress/$f: no decoder '$f' is registered"
    continue
  fi
  timeout 600 "$WALK" --format "$f" --timeout 60 --repeat "${inputs[@]}" >"$TESTTMP/replay" 2>"$TESTTMP/replay.err"
  rc=$?
  if [ "$rc" -eq 0 ]; then
    echo "ok - regress/$f: ${#inputs[@]} inputs replay clean through hf_walk ($(grep -c ': ok' "$TESTTMP/replay") open, $(grep -c ': refused' "$TESTTMP/replay") refused)"
  else
    echo "not ok - regress/$f: replay through hf_walk exits $rc"
    grep -v -E ': (ok|refused)' "$TESTTMP/replay" | head -5 | sed 's/^/# /'
    grep -E 'ERROR|SUMMARY|runtime error' "$TESTTMP/replay.err" | head -5 | sed 's/^/# /'
  fi
done

# ---- libFuzzer ----
if ! command -v "${FUZZ_CC:-clang}" >/dev/null 2>&1 ||
   ! echo 'int LLVMFuzzerTestOneInput(const char *d, long n) { return 0; }' |
     "${FUZZ_CC:-clang}" -x c -fsanitize=fuzzer -o "$TESTTMP/probe" - >/dev/null 2>&1; then
  echo "ok - libFuzzer smoke # SKIP clang with libFuzzer (libclang-rt-dev) is not installed"
  exit 0
fi
if ! timeout 900 $FMK fuzzers seeds >"$TESTTMP/fbuild.log" 2>&1; then
  grep -E 'error|Error' "$TESTTMP/fbuild.log" | head -10 | sed 's/^/# /'
  echo "not ok - the fuzz targets build (clang, ASan + UBSan)"
  exit 1
fi
echo "ok - the fuzz targets build (clang, ASan + UBSan)"
for f in $($FMK list); do
  bin=$ROOT/build/fuzz/fuzz_$f
  for mode in plain change; do
    name=$f; secs=$SMOKE; env=; small=16384
    [ "$mode" = change ] && { name="$f (dump changing underneath)"; secs=$(( (SMOKE + 1) / 2 )); env=HF_FUZZ_CHANGE=1; small=0; }
    seeds=$TESTTMP/seeds-$f-$mode
    smoke_seeds "$ROOT/build/fuzz/seeds/$f" "$ROOT/tests/fuzz/regress/$f" "$seeds" $small
    nseeds=$(ls "$seeds" | wc -l)
    nreg=$(ls "$seeds" | grep -c '^regress-')
    rm -rf "$TESTTMP/corpus-$f" "$TESTTMP/art-$f"
    mkdir -p "$TESTTMP/corpus-$f" "$TESTTMP/art-$f"
    # A fixed seed: every run tries the same inputs in the same order, so a
    # smoke failure is a regression that reproduces, not a lucky draw (long
    # random runs are `make fuzz`).
    timeout $((secs * 10 + 120)) env $env "$bin" -seed=1 -max_total_time="$secs" -rss_limit_mb=2048 -malloc_limit_mb=512 \
      -timeout=20 -max_len=131072 -print_final_stats=1 -artifact_prefix="$TESTTMP/art-$f/" \
      "$TESTTMP/corpus-$f" "$seeds" >"$TESTTMP/fuzz-$f.log" 2>&1
    rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$TESTTMP/fuzz-$f.log")
    if [ "$rc" -eq 0 ] && [ -z "$(ls -A "$TESTTMP/art-$f")" ]; then
      echo "ok - fuzz_$name: $nseeds seeds ($nreg regression inputs), $execs executions in ${secs}s, nothing found"
    else
      echo "not ok - fuzz_$name found something (exit $rc, $execs executions)"
      grep -a -E 'ERROR|SUMMARY|runtime error|contract broken|Test unit' "$TESTTMP/fuzz-$f.log" | head -8 | sed 's/^/# /'
      for a in "$TESTTMP/art-$f"/*; do
        [ -e "$a" ] || continue
        mkdir -p "$ROOT/build/fuzz/artifacts/$f"
        cp "$a" "$ROOT/build/fuzz/artifacts/$f/"
        echo "# input kept: build/fuzz/artifacts/$f/$(basename "$a") (add it to tests/fuzz/regress/$f/)"
      done
    fi
  done
done
