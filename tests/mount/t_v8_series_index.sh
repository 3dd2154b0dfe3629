#!/usr/bin/env bash
# t_v8_series_index.sh - several V8 snapshots mounted together (a series)
# use an index file and a retained results file per snapshot file, the
# ones a mount of that file alone reads and writes: the first mount reads
# the JSON and writes them; the second maps them (.stats says so, and the
# daemon has no snapshot file mapped) and shows every view byte for byte
# as the first; a file mounted alone afterwards loads its own; a damaged
# one is refused, with why in .stats, and rewritten; --forget and --check
# work per file; -o index=none writes nothing.  The snapshots:
# tests/programs/v8/heapshape.js (three of one process, 300 more Leak
# objects in each).
. "$(dirname "$0")/lib.sh"

if ! command -v node >/dev/null 2>&1; then
  echo "ok - V8 series index files # SKIP node (package nodejs) is not installed"
  exit 0
fi
D=$TESTTMP/s
mkdir -p "$D"
(cd "$TESTTMP" && node "$ROOT/tests/programs/v8/heapshape.js" "$D/h" 3) > /dev/null 2>&1
check "heapshape.js writes three snapshots" test -s "$D/h.3.heapsnapshot"
F=("$D/h.1.heapsnapshot" "$D/h.2.heapsnapshot" "$D/h.3.heapsnapshot")

# all_written MNT: until each of the three .stats lines says its file was
# written, or kept, or that none is (up to 60 s: the machine may be busy)
all_written() {
  local i
  for i in $(seq 1 600); do
    [ "$(grep -c '^index: snapshot [123]: .*\(written to\|not written\|no index file\|valid, not used\)' "$1/.stats")" = 3 ] &&
      ! grep -q 'not written yet' "$1/.stats" && return 0
    sleep 0.1
  done
  return 1
}
# views MNT: what a user reads of the series, as one text: info, errors,
# growth.svg, and for each snapshot every file at its top (growth, new,
# leaks, histogram, dominators, ...), its tables, the listing of classes/
# and objects/, and the files of Leak and of every 997th object
views() {
  local m=$1 n f o
  for f in info errors growth.svg; do echo "== $f"; cat "$m/$f"; done
  for n in 1 2 3; do
    for f in "$m/snapshots/$n"/* "$m/snapshots/$n"/tables/*; do
      [ -f "$f" ] && { echo "== $n ${f#"$m"/}"; cat "$f"; }
    done
    echo "== $n classes"; ls "$m/snapshots/$n/classes"
    for f in "$m/snapshots/$n/classes/Leak"/*; do echo "== $n Leak $f"; cat "$f"; done 2>&1
    echo "== $n objects"; ls "$m/snapshots/$n/objects"
    for o in $(ls "$m/snapshots/$n/objects" | awk 'NR % 997 == 1'); do
      for f in info edges value retained; do
        echo "== $n $o $f"; cat "$m/snapshots/$n/objects/$o/$f" 2>&1
      done
      echo "== $n $o refs"; ls "$m/snapshots/$n/objects/$o/refs"
    done
  done | sed "s|$m|MNT|g"
}
# all_kept MNT WORD: until each snapshot's retained sizes are WORD (kept
# in, loaded from) h.N.heapsnapshot.heapfs-index.retained-strong.1 (60 s)
all_kept() {
  local i n ok
  for i in $(seq 1 600); do
    ok=1
    for n in 1 2 3; do
      grep -q "^retained sizes, snapshot $n: $2 .*/h\.$n\.heapsnapshot\.heapfs-index\.retained-strong\.1 " "$1/.stats" || ok=0
    done
    [ $ok = 1 ] && return 0
    sleep 0.1
  done
  return 1
}
# maps_snapshots PID: the daemon maps one of the snapshot files
maps_snapshots() { grep -q '/h\.[123]\.heapsnapshot$' "/proc/$1/maps"; }
# stats_line MNT N: snapshot N's index line
stats_line() { grep "^index: snapshot $2: " "$1/.stats"; }

# ---- first mount: read, three files written; second: all loaded ----
if hf_mount_series "${F[@]}"; then
  check "first mount: the daemon maps the snapshot files (it reads them)" maps_snapshots "${HF_PIDS[-1]}"
  check "first mount: each snapshot built" test "$(grep -c '^index: snapshot [123]: built in' "$MNT/.stats")" = 3
  check "first mount: each file's index written beside it" \
    bash -c "$(declare -f all_written); all_written '$MNT' && for n in 1 2 3; do grep -q \"^index: snapshot \$n: built in .*, written to $D/h.\$n.heapsnapshot.heapfs-index\" '$MNT/.stats' || exit 1; done"
  views "$MNT" > "$TESTTMP/first"
  check "the views read: over 10000 lines" test "$(wc -l < "$TESTTMP/first")" -gt 10000
  check "the series has growth, new and leaks" \
    bash -c "grep -q '^== 2 snapshots/2/growth\$' '$TESTTMP/first' && grep -q '^== 3 snapshots/3/leaks\$' '$TESTTMP/first' && grep -q '^== 3 snapshots/3/new\$' '$TESTTMP/first'"
  check "first mount: each snapshot's retained sizes kept beside its file's index file" \
    bash -c "$(declare -f all_kept); all_kept '$MNT' kept"
  hf_umount
else
  echo "not ok - a series mounts"
fi
if hf_mount_series "${F[@]}"; then
  PID=${HF_PIDS[-1]}
  for n in 1 2 3; do
    check "second mount: snapshot $n loaded from h.$n.heapsnapshot.heapfs-index" \
      bash -c "grep -q '^index: snapshot $n: loaded from $D/h.$n.heapsnapshot.heapfs-index in' '$MNT/.stats'"
  done
  check "second mount: no snapshot file mapped (no JSON read)" bash -c "$(declare -f maps_snapshots); ! maps_snapshots $PID"
  views "$MNT" > "$TESTTMP/second"
  check "second mount: every view byte for byte as the first" cmp -s "$TESTTMP/first" "$TESTTMP/second"
  check "second mount: each snapshot's retained sizes loaded, not computed" \
    bash -c "$(declare -f all_kept); all_kept '$MNT' loaded"
  hf_umount
fi

# ---- a member alone loads the file the series wrote ----
if hf_mount "${F[1]}"; then
  check "h.2 alone: loaded from the series' file" grep -q "^index: loaded from ${F[1]}.heapfs-index in" "$MNT/.stats"
  for f in histogram strings roots dominators; do
    check_eq "h.2 alone: $f as the series' snapshot 2" \
      "$(sed -n "/^== 2 snapshots\/2\/$f\$/,/^== /p" "$TESTTMP/first" | sed '1d;$d')" "$(cat "$MNT/latest/$f")"
  done
  check "h.2 alone: its retained sizes loaded from the file the series kept" \
    grep -q "^retained sizes, snapshot 1: loaded from ${F[1]}.heapfs-index.retained-strong.1 in" "$MNT/.stats"
  hf_umount
fi

# ---- a damaged file: refused, why in .stats, rewritten ----
IX=${F[1]}.heapfs-index
python3 - "$IX" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
n = struct.unpack_from('<I', b, 16)[0]
for i in range(n):
    sid, kind, off, ln = struct.unpack_from('<IIQQ', b, 176 + 24 * i)
    if kind == 2 and ln > 64:  # a section checked whole (CRC-32)
        b[off + ln // 2] ^= 0xff
        break
open(sys.argv[1], 'wb').write(b)
PY
if hf_mount_series "${F[@]}"; then
  check "damaged: .stats says snapshot 2's file is damaged, and rewrites it" \
    bash -c "$(declare -f all_written); all_written '$MNT' && grep -q '^index: snapshot 2: built in .* ($IX: damaged (checksum)), written to $IX' '$MNT/.stats'"
  check "damaged: the others' files kept, not written again" \
    bash -c "grep -q '^index: snapshot 1: ${F[0]}.heapfs-index valid, not used' '$MNT/.stats' && grep -q '^index: snapshot 3: ${F[2]}.heapfs-index valid, not used' '$MNT/.stats'"
  views "$MNT" > "$TESTTMP/third"
  check "damaged: the views are the snapshots'" cmp -s "$TESTTMP/first" "$TESTTMP/third"
  hf_umount
fi
if hf_mount_series "${F[@]}"; then
  check "...and then all three load" test "$(grep -c '^index: snapshot [123]: loaded from' "$MNT/.stats")" = 3
  hf_umount
fi

# ---- --check and --forget per file ----
out=$("$HEAPFS" --check "${F[2]}" 2>&1)
check "--check h.3 lists its kept index file" grep -q "^kept: [0-9]* ${F[2]}.heapfs-index\$" <<< "$out"
out=$("$HEAPFS" --check "${F[@]}" 2>&1)
for f in "${F[@]}"; do
  check "--check of the series says where ${f##*/}'s index and results files are" \
    grep -qxF "index files (a mount's; --check writes none): $f.heapfs-index and .retained-* beside it (-o index=none: none)" <<< "$out"
  check "--check of the series lists ${f##*/}'s kept file" grep -q "^kept: [0-9]* $f.heapfs-index\$" <<< "$out"
done
"$HEAPFS" --forget "${F[2]}" > /dev/null 2>&1
check "--forget h.3 removes its file only" \
  bash -c "test ! -e '${F[2]}.heapfs-index' && test -s '${F[0]}.heapfs-index' && test -s '${F[1]}.heapfs-index'"
if hf_mount_series "${F[@]}"; then
  check "after --forget: snapshot 3 built, written again" \
    bash -c "$(declare -f all_written); all_written '$MNT' && grep -q '^index: snapshot 3: built in .*, written to ${F[2]}.heapfs-index' '$MNT/.stats'"
  hf_umount
fi

# ---- -o index=none: read, nothing written ----
N=$TESTTMP/none
mkdir -p "$N"
cp "${F[@]}" "$N/"
if hf_mount_series "$N/h.1.heapsnapshot" "$N/h.2.heapsnapshot" "$N/h.3.heapsnapshot" -o index=none; then
  check "-o index=none: .stats says no index file, for each" \
    test "$(grep -c '^index: snapshot [123]: built in .*no index file (-o index=none)' "$MNT/.stats")" = 3
  cat "$MNT/snapshots/3/dominators" > /dev/null
  sleep 0.5
  check "-o index=none writes nothing" test -z "$(ls "$N" "$XDG_CACHE_HOME" 2>/dev/null | grep heapfs-index)"
  hf_umount
fi
