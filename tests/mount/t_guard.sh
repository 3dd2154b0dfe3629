#!/usr/bin/env bash
# t_guard.sh - files that shrink while mapped (fs/guard.h): a read past the
# new end of a mapping raises SIGBUS, which the guard turns into EIO for
# every view while the daemon stays up.  Every mapping is guarded, however
# many: 40 dumps with their index files in one mount (80 mappings; the
# guard once held 64), one dump truncated; and a retained results file
# (DUMP.heapfs-index.retained-strong.1) truncated while mapped; an index
# file truncated after this mount wrote it and mapped it over its arrays.
source "$(dirname "$0")/lib.sh"

SRC=$CORPUS/hprof/slurp_hprof-32.bin
N=40
D=$TESTTMP/dumps
mkdir -p "$D"
dumps=()
for i in $(seq 1 $N); do cp "$SRC" "$D/d$i.hprof"; dumps+=("$D/d$i.hprof"); done

# wait_for MNT REGEX COUNT: until .stats has COUNT lines matching REGEX
wait_for() {
  local i
  for i in $(seq 1 300); do
    [ "$(grep -c "$2" "$1/.stats")" -ge "$3" ] && return 0
    sleep 0.1
  done
  return 1
}
eio() { [[ "$(cat "$1" 2>&1 >/dev/null)" == *'Input/output error'* ]]; }

# ---- 40 dumps with index files, the last one truncated ----
hf_mount_series "${dumps[@]}" || { echo "not ok - mount $N dumps"; exit 0; }
check "$N dumps: each index file is written" wait_for "$MNT" 'written to' $N
hf_umount
hf_mount_series "${dumps[@]}" || { echo "not ok - remount $N dumps"; exit 0; }
check_eq "$N dumps: each index file is loaded (mapped)" $N "$(grep -c '^index: loaded from' "$MNT/.stats")"
truncate -s 4096 "$D/d$N.hprof"
check "the last dump truncated: reading it fails with EIO" eio "$MNT/snapshots/$N/strings"
check "...the daemon is still up (.stats reads)" cat "$MNT/.stats"
check "...and other views fail with EIO too" eio "$MNT/snapshots/1/histogram"
hf_umount

# ---- a retained results file truncated while mapped ----
cp "$SRC" "$D/r.hprof"
hf_mount "$D/r.hprof"
o=$(ls "$MNT/latest/objects" | head -1)
cat "$MNT/latest/objects/$o/retained" >/dev/null
check "results: written after they are computed" wait_for "$MNT" 'retained sizes, snapshot 1: kept in' 1
hf_umount
RES=$D/r.hprof.heapfs-index.retained-strong.1
hf_mount "$D/r.hprof"
cat "$MNT/latest/objects/$o/retained" >/dev/null
check "results: loaded by a remount" grep -q "retained sizes, snapshot 1: loaded from $RES" "$MNT/.stats"
truncate -s 0 "$RES"
check "the results file truncated: dominators fail with EIO" eio "$MNT/latest/dominators"
check "...the daemon is still up (.stats reads)" cat "$MNT/.stats"
hf_umount

# ---- an index file written at this mount, truncated: its pages now back
# the index's arrays (core/keeparray.h), so they are guarded too ----
cp "$CORPUS/hprof/mat_oracle_jdk8_05_x64.hprof" "$D/w.hprof"
hf_mount "$D/w.hprof"
check "written index: mapped in place of the arrays built" wait_for "$MNT" 'mapped in place of the arrays built' 1
truncate -s 0 "$D/w.hprof.heapfs-index"
check "...truncated: reading objects fails with EIO" eio "$MNT/latest/strings"
check "...the daemon is still up (.stats reads)" cat "$MNT/.stats"
hf_umount
