#!/usr/bin/env bash
# t_rewrite.sh - dumps of four formats rewritten in place while mounted
# (same size, other bytes): the daemon stays up, answers in bounded time,
# and new opens fail with EIO.  (t_truncate*.sh cut files before mounting.)
source "$(dirname "$0")/lib.sh"

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
  # the daemon is still working on, so a walk still busy after 60 s is a
  # hang, and the mount is torn down (the daemon killed) to end it.
  bash -c "find '$MNT' -maxdepth 6 2>/dev/null | head -20000 >'$TESTTMP/rw.list'
           grep -v '/refs/' '$TESTTMP/rw.list' | head -5000 | xargs -d '\n' stat -c %s
           find '$MNT' -maxdepth 7 -type l 2>/dev/null | head -3000 | xargs -d '\n' readlink" >/dev/null 2>&1 &
  walker=$!
  for i in $(seq 1 600); do kill -0 "$walker" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$walker" 2>/dev/null; then
    echo "not ok - $b rewritten in place: stat/readdir/readlink answered within 60 s (a request still busy)"
    fusermount3 -uz "$MNT"
    kill -KILL "${HF_PIDS[-1]}"
    wait "$walker" 2>/dev/null
    exec 7<&- 8<&-
    continue
  fi
  echo "ok - $b rewritten in place: stat/readdir/readlink of $(wc -l <"$TESTTMP/rw.list") nodes answered within 60 s"
  cat <&7 >/dev/null 2>&1
  [ -n "$strings_view" ] && cat <&8 >/dev/null 2>&1
  exec 7<&- 8<&-
  out=$(cat "$MNT/errors" 2>&1 >/dev/null)
  check "$b rewritten in place: the daemon is still up after stat/readdir/readlink/read of $(wc -l <"$TESTTMP/rw.list") nodes" mountpoint -q "$MNT"
  check "$b rewritten in place: a new open fails with EIO" bash -c "[[ '$out' == *'Input/output error'* ]]"
  hf_umount
done
