# truncate.sh - what the truncation tests share (source it after lib.sh):
# t_truncate.sh (every file of tests/corpus/ and tests/fixtures/ but the
# folders below, the real mounts of cut profile and OEMP files),
# t_truncate_hprof.sh and t_truncate_android.sh (tests/corpus/hprof/),
# t_truncate_hproftxt.sh (tests/corpus/hprof-txt/), t_truncate_bmd.sh
# (tests/corpus/bmd/), t_v8_corpus.sh (tests/corpus/v8/, 96 cuts): one walk
# of files for each of them, run side by side by tests/run.sh.
#
#   truncate_files FILE...     every FILE walked whole twice, then cut at
#                              NCUTS (240) offsets, each cut walked
#   mount_cut FILE OFFSET MUST the first OFFSET bytes of FILE mounted for
#                              real: it mounts and reads back (with `errors`
#                              not empty when MUST is 1), or is refused with
#                              one line
#   mount_cuts FILE            mount_cut of its first 20 bytes and of three
#                              cuts inside a record (a third of the way,
#                              two thirds, the last)
#   corpus_files [-v] DIR...   the corpus and fixture files under DIRs (-v:
#                              all but those), one a line
#
# Whole files: every node (up to 2000 per directory, 500 under SANITIZE=1)
# walked twice, with a 64 KiB and a 256 MiB cache, the bytes compared.  Cuts: each cut either
# opens, with its tree walked whole (every node looked up, listed, stat'ed
# and read: tests/fuzz/walk.h) and the problem in `errors`, or is refused
# with one clear line.  No crash, no hang (a watchdog per cut), no
# sanitizer report (under `make check SANITIZE=1` the driver is built with
# ASan + UBSan + LeakSanitizer).
#
# Offsets (tests/fuzz/cuts.py): every byte of the first 64, around every
# record boundary (HPROF top-level records and heap dump sub-records; line
# starts in text formats): the byte before, at, after, a few bytes in, the
# middle of the record; and an even spread over the file.  For HPROF, a cut
# strictly inside a record must be reported (refused, or `errors` not
# empty); a cut exactly at a record boundary may look like a whole file.
#
# The driver is tests/fuzz/hf_walk (hf_open, the same code as a mount, then
# fs/tree.h without FUSE), built here unless tests/run.sh built it already.

B=${B:-build/rel}
case "$B" in *san*) SAN=1 ;; *) SAN=0 ;; esac
# Sanitized walks are 3-5 times slower: under SANITIZE=1 each file gets 96
# cuts (its first 64 bytes and 32 spread over it), the plain run all 240;
# and the whole files' walk lists 500 children of a directory, not 2000
# (the same views and kinds of node; half the CPU of the walk).
if [ "$SAN" = 1 ]; then
  NCUTS=${NCUTS:-96}
  WHOLE_CHILDREN=${WHOLE_CHILDREN:-500}
fi
NCUTS=${NCUTS:-240}
WHOLE_CHILDREN=${WHOLE_CHILDREN:-2000}

# (one make at a time: these tests may run side by side)
mkdir -p "$ROOT/$B"
if ! flock "$ROOT/$B/hf_walk.lock" make -s -C "$ROOT" -f tests/fuzz/fuzz.mk hf_walk SANITIZE=$SAN >"$TESTTMP/build.log" 2>&1; then
  sed 's/^/# /' "$TESTTMP/build.log" | tail -20
  echo "not ok - build tests/fuzz/hf_walk"
  exit 1
fi
WALK=$ROOT/$B/tests/fuzz/hf_walk
echo "# formats: $("$WALK" --list-formats | tr '\n' ' ')"

corpus_files() {
  local not=0 f d in
  [ "$1" = -v ] && { not=1; shift; }
  for f in "$CORPUS"/*/* "$ROOT"/tests/fixtures/*; do
    [ -f "$f" ] || continue
    case "$f" in *.md | *.heapfs-index*) continue ;; esac
    in=0
    for d in "$@"; do [ "${f#"$d"/}" != "$f" ] && in=1; done
    [ "$in" != "$not" ] && echo "$f"
  done
}

truncate_files() {
  local files=("$@") f b offs must n start rc secs done_n opened witherr refused bad silent o
  timeout 900 "$WALK" --timeout 300 --max-children "$WHOLE_CHILDREN" --repeat "${files[@]}" >"$TESTTMP/whole" 2>"$TESTTMP/whole.err"
  rc=$?
  if [ "$rc" -eq 0 ]; then
    echo "ok - ${#files[@]} whole files: $(grep -c ': ok' "$TESTTMP/whole") walked twice (64K and 256M cache) with identical bytes and no contract broken, $(grep -c ': refused' "$TESTTMP/whole") refused"
  else
    echo "not ok - whole files walk clean (driver exit $rc)"
    grep -vE ': (ok|refused)' "$TESTTMP/whole" | head -5 | sed 's/^/# /'
    grep -E 'ERROR|SUMMARY|runtime error' "$TESTTMP/whole.err" | head -5 | sed 's/^/# /'
  fi
  grep ' note: ' "$TESTTMP/whole" | head -5 | sed 's/^/# /'

  local total=0
  for f in "${files[@]}"; do
    b=$(basename "$f")
    python3 "$ROOT/tests/fuzz/cuts.py" "$f" "$NCUTS" >"$TESTTMP/cuts" || { echo "not ok - $b: cuts.py"; continue; }
    offs=$(sed -n 1p "$TESTTMP/cuts")
    must=$(sed -n 2p "$TESTTMP/cuts")
    n=$(echo "$offs" | tr ',' '\n' | grep -c .)
    start=$(date +%s.%N)
    timeout 1200 "$WALK" --timeout 60 --max-children 100 --max-file-bytes 524288 \
      --tmpdir "$TESTTMP" --cuts "$offs" "$f" >"$TESTTMP/out" 2>"$TESTTMP/err"
    rc=$?
    secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f", b - a}')
    total=$((total + n))
    done_n=$(grep -cE "^[^ ]+@[0-9]+: (ok|refused)" "$TESTTMP/out")
    opened=$(grep -cE "^[^ ]+@[0-9]+: ok" "$TESTTMP/out")
    witherr=$(grep -E "^[^ ]+@[0-9]+: ok problems=[1-9]" "$TESTTMP/out" | wc -l)
    refused=$(grep -cE "^[^ ]+@[0-9]+: refused" "$TESTTMP/out")
    if [ "$rc" -eq 0 ] && [ "$done_n" -eq "$n" ]; then
      echo "ok - $b: $n cuts: $opened open ($witherr with errors), $refused refused; no crash, hang or report (${secs}s)"
    else
      echo "not ok - $b: $n cuts, $done_n walked cleanly, driver exit $rc"
      grep -vE ": (ok|refused)" "$TESTTMP/out" | head -5 | sed 's/^/# /'
      tail -c 300 "$TESTTMP/out" | tail -1 | sed 's/^/# last: /'
      grep -E "ERROR|SUMMARY|runtime error|HANG|hang" "$TESTTMP/err" | head -5 | sed 's/^/# /'
      # kept for a look (TESTTMP goes at exit), by file: the scripts run
      # side by side, and a fixed /tmp/out would be the other's
      mkdir -p "$ROOT/$B/truncate-failed" &&
        cp "$TESTTMP/out" "$ROOT/$B/truncate-failed/$b.out" &&
        cp "$TESTTMP/err" "$ROOT/$B/truncate-failed/$b.err" &&
        echo "# kept: $B/truncate-failed/$b.out and .err"
    fi
    # A refusal is one line that names the file.
    bad=$(grep -E "^[^ ]+@[0-9]+: refused: " "$TESTTMP/out" | grep -vc "hf_walk-[0-9]*-$b")
    check_eq "$b: every refusal names the file" 0 "$bad"
    if [ -n "$must" ]; then
      silent=0
      for o in $(echo "$must" | tr ',' ' '); do
        grep -qE "^$b@$o: (refused|ok problems=[1-9])" "$TESTTMP/out" || { silent=$((silent + 1)); [ $silent -le 3 ] && echo "# $b cut at $o inside a record: $(grep -E "^$b@$o:" "$TESTTMP/out" | cut -c1-120)"; }
      done
      check_eq "$b: each of $(echo "$must" | tr ',' '\n' | grep -c .) cuts inside a record is reported" 0 "$silent"
    fi
  done
  echo "# $total cuts of ${#files[@]} files"
}

mount_cuts() {
  local f=$1 must nm
  [ -f "$f" ] || return 0
  python3 "$ROOT/tests/fuzz/cuts.py" "$f" "$NCUTS" >"$TESTTMP/cuts"
  must=($(sed -n 2p "$TESTTMP/cuts" | tr ',' ' '))
  nm=${#must[@]}
  mount_cut "$f" 20 0
  mount_cut "$f" "${must[$((nm / 3))]}" 1
  mount_cut "$f" "${must[$((nm * 2 / 3))]}" 1
  mount_cut "$f" "${must[$((nm - 1))]}" 1
}

mount_cut() {
  local f=$1 off=$2 must=$3 b cut m pid i out
  b=$(basename "$f")
  cut="$TESTTMP/cut-$off-$b"
  head -c "$off" "$f" >"$cut"
  m=$(mktemp -d "$TESTTMP/mnt.XXXXXX") || { echo "not ok - $b cut at $off: no mount point"; return; }
  "$HEAPFS" -f -o cache_size=1M "$cut" "$m" 2>"$m.log" &
  pid=$!
  HF_MOUNTS+=("$m"); HF_PIDS+=("$pid")
  for i in $(seq 1 300); do
    mountpoint -q "$m" && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if mountpoint -q "$m"; then
    # the whole tree down to objects/ID, every file read
    out=$(timeout 120 find "$m" -maxdepth 5 -type f -print0 2>&1 | head -z -n 3000 | timeout 120 xargs -0 -r cat 2>&1 >/dev/null | head -3)
    if [ -z "$out" ] && { [ "$must" = 0 ] || [ -s "$m/errors" ]; }; then
      echo "ok - $b cut at $off mounts, reads back, errors: $(wc -l <"$m/errors") lines"
    else
      echo "not ok - $b cut at $off mounts and reads back (must report: $must; $out)"
    fi
    fusermount3 -u "$m"
    wait "$pid"; i=$?
    check_eq "$b cut at $off: the daemon exits 0 after unmount" 0 "$i"
  else
    wait "$pid"; i=$?
    if [ "$i" -ne 0 ] && [ "$(wc -l <"$m.log")" -eq 1 ] && grep -q "^heapfs: " "$m.log"; then
      echo "ok - $b cut at $off is refused with one line: $(cut -c1-100 "$m.log")"
    else
      echo "not ok - $b cut at $off is refused with one line (exit $i: $(head -3 "$m.log"))"
    fi
  fi
  rm -f "$cut"
}
