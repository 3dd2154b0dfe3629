#!/usr/bin/env bash
# t_progress.sh - the progress line (decoders/core/progress.h) and the
# indexing figures, and that the thread count changes nothing:
#   - on a terminal (script(1) makes a pty), `heapfs --check` and a mount
#     print "heapfs: indexing NAME: ...", rewritten with \r, ended by one
#     line "done, ... MB/s, N threads"; a foreground mount prints the
#     dominator progress the same way once dominators are computed;
#   - with stderr not a terminal nothing at all goes to stderr;
#   - --check prints "indexing: S s, R MB/s, N threads" after the info, and
#     MOUNT/.stats has the same line; info has none;
#   - HEAPFS_THREADS=1, 2 and 3 give the same --check output (but for that
#     line) and the same histogram, on every HPROF corpus file and on one
#     re-cut into many heap dump segments;
#   - 1517 problems from 1500 bodies and the records between them: listed in
#     file order, capped at 1000 and counted, the same with 1 and 3 threads.
source "$(dirname "$0")/lib.sh"

f=$CORPUS/hprof/leakcanary_leak_service_binder.hprof   # 647 heap dump segments
name=$(basename "$f")

if ! command -v script >/dev/null; then
  echo "ok - # SKIP script(1) (util-linux) not installed"
  exit 0
fi

# ---- on a terminal ----------------------------------------------------------
HEAPFS_THREADS=2 script -qec "'$HEAPFS' --check '$f' >'$TESTTMP/check.out'" "$TESTTMP/tty.log" >/dev/null 2>&1
check "--check on a terminal: progress line for $name" grep -qa "heapfs: indexing $name: " "$TESTTMP/tty.log"
check "--check on a terminal: the line is rewritten in place (\\r, erase to end of line)" \
  grep -qaP '\rheapfs: indexing .*\x1b\[K' "$TESTTMP/tty.log"
check "--check on a terminal: ends with the figures and a newline" \
  grep -qaP "heapfs: indexing $name: done, [0-9.]+ MB in [0-9.]+ s, [0-9]+ MB/s, 2 threads\\x1b\\[K\\r?$" "$TESTTMP/tty.log"
check "--check on a terminal: stdout has the info" grep -q '^format: hprof' "$TESTTMP/check.out"

MNT=$(mktemp -d "$TESTTMP/mnt.XXXXXX")
HF_MOUNTS+=("$MNT")
script -qec "'$HEAPFS' -o index=none '$f' '$MNT'" "$TESTTMP/mount.log" >/dev/null 2>&1
check "mount on a terminal: progress line while indexing" grep -qa "heapfs: indexing $name: done, " "$TESTTMP/mount.log"
check "mount on a terminal: the mount is live" mountpoint -q "$MNT"
check ".stats has the indexing figures" grep -qE '^indexing: [0-9.]+ s, [0-9]+ MB/s, [0-9]+ threads?$' "$MNT/.stats"
check "info has no timing" bash -c "! grep -q '^indexing' '$MNT/info'"
fusermount3 -u "$MNT"

# a foreground mount on a terminal shows the dominator computation too
MNT=$(mktemp -d "$TESTTMP/mnt.XXXXXX")
HF_MOUNTS+=("$MNT")
script -qec "'$HEAPFS' -f -o index=none '$f' '$MNT'" "$TESTTMP/fg.log" >/dev/null 2>&1 &
HF_PIDS+=("$!")
for _ in $(seq 1 300); do mountpoint -q "$MNT" && break; sleep 0.1; done
cat "$MNT/latest/dominators" >/dev/null
fusermount3 -u "$MNT"
wait "${HF_PIDS[-1]}" 2>/dev/null
check "foreground mount on a terminal: dominator progress, ended by its figures" \
  grep -qaP 'heapfs: snapshot 1: retained sizes of [0-9]+ objects in [0-9.]+ s, [0-9]+ MiB' "$TESTTMP/fg.log"

# ---- not a terminal: nothing ------------------------------------------------------
"$HEAPFS" --check "$f" >"$TESTTMP/plain.out" 2>"$TESTTMP/plain.err"
check_eq "--check without a terminal writes nothing to stderr" "" "$(cat "$TESTTMP/plain.err")"
check "--check prints the indexing figures after the info" \
  grep -qE '^indexing: [0-9.]+ s, [0-9]+ MB/s, [0-9]+ threads?$' "$TESTTMP/plain.out"
hf_mount "$f" || echo "not ok - mount of $name"
check_eq "a mount without a terminal writes nothing to stderr" "" "$(cat "$MNT.log")"
hf_umount

# ---- the same index whatever the number of threads -------------------------------
python3 - "$ROOT/tests/fuzz" "$CORPUS/hprof/mat_sun_jdk6_18_x64.hprof" "$TESTTMP/resegmented.hprof" <<'PY'
# the one HEAP DUMP record re-cut into HEAP DUMP SEGMENTs of about 7 KB, then END
import struct, sys
sys.path.insert(0, sys.argv[1])
from mkseeds import hprof_records, sub_len
d = open(sys.argv[2], "rb").read()
hlen, idsz, recs = hprof_records(d)
out = bytearray(d[:hlen])
for tag, start, b, e in recs:
    if tag != 0x0C:
        out += d[start:e]
        continue
    q = s = b
    while q < e:
        q += sub_len(d[:e], q, idsz)
        if q - s >= 7000 or q >= e:
            out += bytes([0x1C]) + d[start + 1:start + 5] + struct.pack(">I", q - s) + d[s:q]
            s = q
    out += bytes([0x2C]) + d[start + 1:start + 5] + struct.pack(">I", 0)
open(sys.argv[3], "wb").write(out)
PY
check "a single heap dump re-cut into segments" bash -c "'$HEAPFS' --check '$TESTTMP/resegmented.hprof' | grep -qE '^records heap dump segment: [0-9]{2,}'"
strip() { grep -vE '^(indexing|records heap dump[a-z ]*|file|size|index files[^:]*|kept|cache directory):'; }
HEAPFS_THREADS=1 "$HEAPFS" --check "$CORPUS/hprof/mat_sun_jdk6_18_x64.hprof" | strip >"$TESTTMP/whole.1"
for t in 1 2 3; do
  HEAPFS_THREADS=$t "$HEAPFS" --check "$TESTTMP/resegmented.hprof" | strip >"$TESTTMP/reseg.$t"
done
check "re-cut into segments: the same info (size rule included) as the whole record, 1 thread" cmp "$TESTTMP/whole.1" "$TESTTMP/reseg.1"
check "re-cut into segments: 2 threads the same" cmp "$TESTTMP/whole.1" "$TESTTMP/reseg.2"
check "re-cut into segments: 3 threads the same" cmp "$TESTTMP/whole.1" "$TESTTMP/reseg.3"
for g in "$CORPUS"/hprof/*.hprof "$CORPUS"/hprof/*.bin "$TESTTMP/resegmented.hprof"; do
  b=$(basename "$g")
  for t in 1 3; do
    HEAPFS_THREADS=$t "$HEAPFS" --check "$g" | grep -v '^indexing' >"$TESTTMP/$b.$t"
  done
  check "$b: --check the same with 1 and 3 threads" cmp "$TESTTMP/$b.1" "$TESTTMP/$b.3"
  for t in 1 3; do
    HEAPFS_THREADS=$t hf_mount "$g" || echo "not ok - mount of $b"
    cat "$MNT/latest/histogram" "$MNT/latest/roots" >"$TESTTMP/$b.h$t"
    hf_umount
  done
  check "$b: histogram and roots the same with 1 and 3 threads" cmp "$TESTTMP/$b.h1" "$TESTTMP/$b.h3"
done

# problems of many bodies and of the records between them: in file order,
# the first 1000 listed, the rest counted, the same with 1 and 3 threads
python3 - "$TESTTMP/many.hprof" <<'PY'
import struct, sys
out = bytearray(b"JAVA PROFILE 1.0.2\0" + struct.pack(">IQ", 8, 0))
for i in range(1500):   # a root, then a sub-record tag nobody knows
    body = bytes([0xFF]) + struct.pack(">Q", 0x1000 + 8 * i) + bytes([0x77, 1, 2, 3])
    out += bytes([0x1C]) + struct.pack(">II", 0, len(body)) + body
    if i % 100 == 50:   # a record tag nobody knows
        out += bytes([0x99]) + struct.pack(">II", 0, 2) + b"xx"
out += bytes([0x2C]) + struct.pack(">II", 0, 0)
out += bytes([0x1C]) + struct.pack(">II", 0, 100) + b"\xff"   # cut off
open(sys.argv[1], "wb").write(out)
PY
for t in 1 3; do
  HEAPFS_THREADS=$t "$HEAPFS" --check "$TESTTMP/many.hprof" | grep -v '^indexing' >"$TESTTMP/many.$t"
done
check "1517 problems: the same list with 1 and 3 threads" cmp "$TESTTMP/many.1" "$TESTTMP/many.3"
check "1517 problems: 1000 listed, in file order" bash -c "
  sed -n 's/^  offset 0x\([0-9a-f]*\):.*/\1/p' '$TESTTMP/many.3' >'$TESTTMP/offs'
  [ \$(wc -l <'$TESTTMP/offs') = 1000 ] && python3 -c 'import sys; o=[int(l,16) for l in open(sys.argv[1])]; sys.exit(o != sorted(o))' '$TESTTMP/offs'"
check "1517 problems: the rest counted" grep -qx '  517 more problems, not listed' "$TESTTMP/many.3"
