#!/usr/bin/env bash
# t_keeproom.sh - heapfs does not fill a disk with its index and results
# files: a file that would take more than half of the space free on its
# file system is not written (beside the dump nor in the cache directory), .stats says
# why, no temporary file is left, and the mount works all the same; with
# room, both are written beside the dump.  On a small tmpfs in a private
# mount namespace (root only; skipped otherwise).
if [ -z "${HF_ROOM_INNER:-}" ] && command -v unshare >/dev/null && unshare -m true 2>/dev/null; then
  HF_ROOM_INNER=1 exec unshare -m bash "${BASH_SOURCE[0]}" "$@"
fi
source "$(dirname "$0")/lib.sh"

SRC=$CORPUS/hprof/mat_oracle_jdk8_05_x64.hprof
S=$TESTTMP/small
mkdir -p "$S"
if [ "${HF_ROOM_INNER:-}" != 1 ] || ! mount -t tmpfs -o size=16m heapfs-room "$S" 2>/dev/null; then
  echo "ok - a full disk's index files # SKIP needs root (unshare -m, mount -t tmpfs)"
  exit 0
fi
export XDG_CACHE_HOME=$S/cache # the cache directory on the small disk too
# the daemons go before the tmpfs they read from, then the rest
t_keeproom_cleanup() {
  local m p
  for m in "${HF_MOUNTS[@]}"; do mountpoint -q "$m" && fusermount3 -u "$m"; done
  for p in "${HF_PIDS[@]}"; do wait "$p" 2>/dev/null; done
  umount "$S"
  hf_cleanup
}
trap t_keeproom_cleanup EXIT

# wait_stats MNT REGEX: until MNT/.stats has a line matching REGEX (30 s)
wait_stats() {
  local i
  for i in $(seq 1 300); do grep -q "$2" "$1/.stats" && return 0; sleep 0.1; done
  return 1
}
avail() { df -B1 --output=avail "$S" | tail -1; }

# the sizes of the two files, from a mount on the big disk
B=$TESTTMP/big
mkdir -p "$B"; cp "$SRC" "$B/d.hprof"
hf_mount "$B/d.hprof" -o index="$B/d.hprof.heapfs-index"
wait_stats "$MNT" '^index: .*written to'
cat "$MNT/latest/dominators" >"$TESTTMP/dominators"
wait_stats "$MNT" 'retained sizes, snapshot 1: kept in'
hf_umount
ix=$(stat -c %s "$B/d.hprof.heapfs-index")
check "the index file's size is known" test "$ix" -gt 0

# ---- too little room: neither file written, and .stats says why ----
cp "$SRC" "$S/d.hprof"
fallocate -l $(( $(avail) - ix )) "$S/filler" # free: about ix, so under twice either file
hf_mount "$S/d.hprof"
wait_stats "$MNT" '^index: .*not written'
check "an index file that would take over half of what is free: not written, .stats says why" \
  grep -q "^index: .*index file not written ($S/.*: [0-9]* bytes, more than half of the [0-9]* bytes free on its file system, not written)" "$MNT/.stats"
head -3 "$MNT/latest/dominators" >/dev/null
wait_stats "$MNT" 'retained sizes, snapshot 1: not kept'
check "...the results file neither" grep -q "retained sizes, snapshot 1: not kept (.*more than half of the [0-9]* bytes free on its file system" "$MNT/.stats"
check "...the mount reads as ever" cmp -s "$MNT/latest/dominators" "$TESTTMP/dominators"
check "...its views are there" test -s "$MNT/latest/histogram-retained"
hf_umount
check_eq "...and nothing was left on the disk, beside the dump or in the cache" \
  "d.hprof filler" "$( (ls "$S"; ls "$S/cache/heapfs" 2>/dev/null) | grep -v '^cache$' | tr '\n' ' ' | sed 's/ $//')"

# ---- with room: both beside the dump ----
rm "$S/filler"
hf_mount "$S/d.hprof"
wait_stats "$MNT" '^index: .*written to'
head -3 "$MNT/latest/dominators" >/dev/null
wait_stats "$MNT" 'retained sizes, snapshot 1: kept in'
hf_umount
check_eq "with room: the index and results files beside the dump" \
  "d.hprof d.hprof.heapfs-index d.hprof.heapfs-index.retained-strong.1" \
  "$(ls "$S" | grep -v '^cache$' | tr '\n' ' ' | sed 's/ $//')"
