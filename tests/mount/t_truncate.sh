#!/usr/bin/env bash
# t_truncate.sh - every corpus file (and tests/fixtures file) cut at 240 offsets:
# each cut either opens, with its tree walked whole (every node looked up,
# listed, stat'ed and read: tests/fuzz/walk.h) and the problem in `errors`,
# or is refused with one clear line.  No crash, no hang (a watchdog per cut),
# no sanitizer report (under `make check SANITIZE=1` the driver is built
# with ASan + UBSan + LeakSanitizer).
#
# Offsets (tests/fuzz/cuts.py): every byte of the first 64, around every
# record boundary (HPROF top-level records and heap dump sub-records; line
# starts in text formats): the byte before, at, after, a few bytes in, the
# middle of the record; and an even spread over the file.  For HPROF, a cut
# strictly inside a record must be reported (refused, or `errors` not
# empty); a cut exactly at a record boundary may look like a whole file.
#
# The driver is tests/fuzz/hf_walk (hf_open, the same code as a mount, then
# fs/tree.h without FUSE).  Then a few cut files are mounted for real.
source "$(dirname "$0")/lib.sh"

B=${B:-build/rel}
case "$B" in *san*) SAN=1 ;; *) SAN=0 ;; esac
NCUTS=${NCUTS:-240}

if ! make -s -C "$ROOT" -f tests/fuzz/fuzz.mk hf_walk SANITIZE=$SAN >"$TESTTMP/build.log" 2>&1; then
  sed 's/^/# /' "$TESTTMP/build.log" | tail -20
  echo "not ok - build tests/fuzz/hf_walk"
  exit 1
fi
WALK=$ROOT/$B/tests/fuzz/hf_walk
echo "# formats: $("$WALK" --list-formats | tr '\n' ' ')"

files=()
for f in "$CORPUS"/*/* "$ROOT"/tests/fixtures/*; do
  [ -f "$f" ] || continue
  case "$f" in *.md | *.heapfs-index*) continue ;; esac
  files+=("$f")
done

# ---- whole files first: every node (up to 2000 per directory), twice ----
timeout 900 "$WALK" --timeout 300 --max-children 2000 --repeat "${files[@]}" >"$TESTTMP/whole" 2>"$TESTTMP/whole.err"
rc=$?
if [ "$rc" -eq 0 ]; then
  echo "ok - ${#files[@]} whole files: $(grep -c ': ok' "$TESTTMP/whole") walked twice (64K and 256M cache) with identical bytes and no contract broken, $(grep -c ': refused' "$TESTTMP/whole") refused"
else
  echo "not ok - whole files walk clean (driver exit $rc)"
  grep -vE ': (ok|refused)' "$TESTTMP/whole" | head -5 | sed 's/^/# /'
  grep -E 'ERROR|SUMMARY|runtime error' "$TESTTMP/whole.err" | head -5 | sed 's/^/# /'
fi
grep ' note: ' "$TESTTMP/whole" | head -5 | sed 's/^/# /'

total=0
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
    cp "$TESTTMP/out" "$TESTTMP/err" /tmp/ 2>/dev/null
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

# ---- real mounts of cut files: mount with errors, or refuse cleanly ----
# mount_cut FILE OFFSET MUST(0/1): tries to mount the first OFFSET bytes.
mount_cut() {
  local f=$1 off=$2 must=$3 b cut m pid i out
  b=$(basename "$f")
  cut="$TESTTMP/cut-$off-$b"
  head -c "$off" "$f" >"$cut"
  m=$(mktemp -d "$TESTTMP/mnt.XXXXXX")
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

for f in "$CORPUS/hprof/slurp_hprof-64.bin" "$CORPUS/hprof/leakcanary_leak_service_binder.hprof"; do
  [ -f "$f" ] || continue
  python3 "$ROOT/tests/fuzz/cuts.py" "$f" "$NCUTS" >"$TESTTMP/cuts"
  must=($(sed -n 2p "$TESTTMP/cuts" | tr ',' ' '))
  nm=${#must[@]}
  mount_cut "$f" 20 0
  mount_cut "$f" "${must[$((nm / 3))]}" 1
  mount_cut "$f" "${must[$((nm * 2 / 3))]}" 1
  mount_cut "$f" "${must[$((nm - 1))]}" 1
done
for f in "$CORPUS"/pprof-heap/local_tcmalloc_hp.0001.heap "$CORPUS"/hprof-txt/JoelStuart_COMP3702A1_sites.java.hprof.txt "$ROOT"/tests/fixtures/small-v2.oemp; do
  [ -f "$f" ] || continue
  s=$(stat -c %s "$f")
  mount_cut "$f" $((s / 2 + 3)) 0
  mount_cut "$f" 40 0
done

# ---- the dump rewritten in place while mounted (same size, other bytes) ----
# t_fs.sh covers a dump that shrinks or is deleted.  Here the bytes under the
# mapping change: getattr, readdir and readlink keep being answered from an
# index that no longer matches, and files opened before keep reading.  The
# daemon must stay up; new opens fail with EIO (the dump's mtime changed).
# (The fuzz targets do the same to every input: HF_FUZZ_CHANGE=1.)
for f in "$CORPUS/hprof/slurp_hprof-64.bin" "$CORPUS/bmd/slurp_hprof-32.bmd" \
         "$CORPUS/hprof-txt/JoelStuart_COMP3702A1_sites.java.hprof.txt" "$ROOT/tests/fixtures/gen-v1.oemp"; do
  [ -f "$f" ] || continue
  b=$(basename "$f")
  cp "$f" "$TESTTMP/rw-$b"
  hf_mount "$TESTTMP/rw-$b" -o cache_size=64K || { echo "not ok - $b: mount for rewrite"; continue; }
  exec 7<"$MNT/info"
  strings_view=$(ls -d "$MNT"/latest/strings "$MNT"/latest/histogram 2>/dev/null | head -1)
  [ -n "$strings_view" ] && exec 8<"$strings_view"
  python3 - "$TESTTMP/rw-$b" <<'PY'
import os, random, sys
p = sys.argv[1]
n = os.path.getsize(p)
random.seed(7)
with open(p, "r+b") as f:
    f.seek(n // 3)
    f.write(bytes(random.getrandbits(8) for _ in range(n - n // 3)))
PY
  # In bounded time: `timeout` cannot end a process blocked in a request
  # the daemon is still working on, so a walk still busy after 120 s is a
  # hang, and the mount is torn down (the daemon killed) to end it.
  bash -c "find '$MNT' -maxdepth 6 2>/dev/null | head -20000 >'$TESTTMP/rw.list'
           grep -v '/refs/' '$TESTTMP/rw.list' | head -5000 | xargs -d '\n' stat -c %s
           find '$MNT' -maxdepth 7 -type l 2>/dev/null | head -3000 | xargs -d '\n' readlink" >/dev/null 2>&1 &
  walker=$!
  for i in $(seq 1 1200); do kill -0 "$walker" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$walker" 2>/dev/null; then
    echo "not ok - $b rewritten in place: stat/readdir/readlink answered within 120 s (a request still busy)"
    fusermount3 -uz "$MNT"
    kill -KILL "${HF_PIDS[-1]}"
    wait "$walker" 2>/dev/null
    exec 7<&- 8<&-
    continue
  fi
  echo "ok - $b rewritten in place: stat/readdir/readlink of $(wc -l <"$TESTTMP/rw.list") nodes answered within 120 s"
  cat <&7 >/dev/null 2>&1
  [ -n "$strings_view" ] && cat <&8 >/dev/null 2>&1
  exec 7<&- 8<&-
  out=$(cat "$MNT/errors" 2>&1 >/dev/null)
  check "$b rewritten in place: the daemon is still up after stat/readdir/readlink/read of $(wc -l <"$TESTTMP/rw.list") nodes" mountpoint -q "$MNT"
  check "$b rewritten in place: a new open fails with EIO" bash -c "[[ '$out' == *'Input/output error'* ]]"
  hf_umount
done
