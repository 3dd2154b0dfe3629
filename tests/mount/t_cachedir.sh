#!/usr/bin/env bash
# t_cachedir.sh - the cache directory $XDG_CACHE_HOME/heapfs (docs/
# architecture.md "The cache directory"): dumps in an unwritable directory
# keep their index and results files there; a mount that writes one keeps
# the directory under -o index_max, least recently used first, never a file
# a running mount maps; the files of a deleted dump go at the next write;
# heapfs --forget removes exactly a dump's files (and says so), also for a
# deleted dump, and refuses what is not a dump.  A results file is written
# beside a dump only when its directory is writable and not with -o
# index=none.  A file over the bound is not written there at all.
source "$(dirname "$0")/lib.sh"

SRC=$CORPUS/hprof/mat_oracle_jdk8_05_x64.hprof
CACHE=$XDG_CACHE_HOME/heapfs

# wait_stats MNT REGEX: until MNT/.stats has a line matching REGEX (30 s)
wait_stats() {
  local i
  for i in $(seq 1 300); do grep -q "$2" "$1/.stats" && return 0; sleep 0.1; done
  return 1
}
# cached NAME: the cache directory's files of dump NAME, sorted
cached() { ls "$CACHE" 2>/dev/null | grep "^$1-" | sort | tr '\n' ' '; }
# mount_kept NAME [opts]: mounts RO/NAME, waits for its index file, reads
# its dominators and waits for its results file; leaves it mounted
mount_kept() {
  local name=$1; shift
  hf_mount "$ro_dir/$name" "$@" || return 1
  wait_stats "$MNT" '^index: .*\(written to\|loaded from\)' || return 1
  head -3 "$MNT/latest/dominators" >/dev/null
  wait_stats "$MNT" 'retained sizes, snapshot 1: \(kept in\|loaded from\)'
}

# ---- -o index=none, in a writable directory: nothing written anywhere ----
W=$TESTTMP/w
mkdir -p "$W"; cp "$SRC" "$W/w.hprof"
hf_mount "$W/w.hprof" -o index=none
head -3 "$MNT/latest/dominators" >/dev/null
wait_stats "$MNT" 'retained sizes, snapshot 1: computed'
sleep 0.5   # a writer thread, were there one, would be done by now
check_eq "-o index=none: no results file beside the dump, even with retained sizes computed" \
  "w.hprof" "$(ls "$W")"
check "-o index=none: nothing in the cache directory" test -z "$(cached w.hprof)"
hf_umount

# ---- an unwritable dump directory ----
RO=$TESTTMP/ro
mkdir -p "$RO"
for n in a b c d e; do cp "$SRC" "$RO/$n.hprof"; done
hf_unwritable "$RO"; ro_dir=$HF_RO
if [ -z "$ro_dir" ]; then
  echo "# as root without a read-only bind mount, no directory is unwritable: skipped"
  echo "ok - cache directory checks skipped (root, no bind mounts here)"
  exit 0
fi
writable() { chmod u+w "$RO" 2>/dev/null; "$@"; [ "$ro_dir" != "$RO" ] || chmod 555 "$RO"; }

mount_kept a.hprof; hf_umount
check_eq "a dump in an unwritable directory: index and results files in the cache" \
  2 "$(cached a.hprof | wc -w)"
check "...named NAME-HASH.heapfs-index and .retained-strong.1" \
  bash -c "ls '$CACHE' | grep -q '^a\.hprof-[0-9a-f]\{16\}\.heapfs-index$' && ls '$CACHE' | grep -q '^a\.hprof-[0-9a-f]\{16\}\.heapfs-index\.retained-strong\.1$'"
check_eq "...and nothing beside the dump" "a.hprof b.hprof c.hprof d.hprof e.hprof" "$(ls "$RO" | tr '\n' ' ' | sed 's/ $//')"
mount_kept b.hprof; hf_umount
sizes=$(cd "$CACHE" && stat -c '%s %n' b.hprof-* | sed "s|^\([0-9]*\) |kept: \1 $CACHE/|")
check_eq "--check lists the dump's kept files with their sizes" "$sizes" \
  "$("$HEAPFS" --check "$ro_dir/b.hprof" | grep '^kept: ')"
check "--check says what the cache directory holds and its bound" \
  bash -c "'$HEAPFS' --check '$ro_dir/b.hprof' | grep -q '^cache directory: $CACHE: 4 files, [0-9]* bytes; bound [0-9]* bytes'"

# ---- the bound: least recently used first, never a mapped file ----
mount_kept a.hprof; A=$MNT   # loads a's files: used now, and mapped while mounted
check "a remount loads its files from the cache" grep -q "^index: loaded from $CACHE/a.hprof-" "$A/.stats"
a_files=$(cached a.hprof); b_files=$(cached b.hprof)
bytes_ab=$(cat "$CACHE"/a.hprof-* "$CACHE"/b.hprof-* | wc -c)
# c's index makes 5 files; a bound a little above c's index and a's files
max=$(( $(cat "$CACHE"/a.hprof-* | wc -c) * 3 / 2 ))
hf_mount "$ro_dir/c.hprof" -o index_max=$max
wait_stats "$MNT" '^index: .*written to'
check "the file just written is kept" test -n "$(cached c.hprof)"
c_ix=$(ls "$CACHE"/c.hprof-*.heapfs-index)
check ".stats says where the index was written and its size" \
  grep -q "^index: .*written to $c_ix in [0-9.]* s ($(stat -c %s "$c_ix") bytes)" "$MNT/.stats"
check_eq "over -o index_max: the least recently used dump's files went" "" "$(cached b.hprof)"
check_eq "...but not those a running mount maps (though the directory stays over the bound)" \
  "$a_files" "$(cached a.hprof)"
check "...which the mount still reads" cmp -s "$A/latest/dominators" "$MNT/latest/dominators"
hf_umount

# ---- a file bigger than the bound is not written into the cache at all ----
hf_mount "$ro_dir/e.hprof" -o index_max=1K
wait_stats "$MNT" '^index: .*not written'
check "an index file over -o index_max: not written, and .stats says why" \
  grep -q "^index: .*index file not written ($CACHE/e.hprof-[0-9a-f]*\.heapfs-index: [0-9]* bytes, over the cache directory's bound of 1024 (-o index_max), not written)" "$MNT/.stats"
check_eq "...nothing of it in the cache (no other dump's files evicted for it)" "" "$(cached e.hprof)"
check "...and the mount works" test -s "$MNT/latest/histogram"
hf_umount

# ---- --forget refuses while a mount maps the files ----
out=$("$HEAPFS" --forget "$ro_dir/a.hprof" 2>&1); rc=$?
check "--forget while mounted: non-zero, says the file is in use" \
  bash -c "[ $rc != 0 ] && grep -q 'heapfs: $CACHE/a.hprof-.*: in use by a running heapfs mount' <<<'$out'"
check_eq "...and leaves them" "$a_files" "$(cached a.hprof)"
fusermount3 -u "$A"

# ---- a deleted dump's files go when a mount writes a file ----
writable rm "$RO/a.hprof"
check "a deleted dump's files are left until a mount writes" test -n "$(cached a.hprof)"
hf_mount "$ro_dir/d.hprof"; wait_stats "$MNT" '^index: .*written to'; hf_umount
check_eq "a deleted dump's files are removed when a mount writes into the cache" "" "$(cached a.hprof)"
check "...not those of the dumps still there" bash -c "[ -n '$(cached c.hprof)' ] && [ -n '$(cached d.hprof)' ]"

# ---- --forget ----
mount_kept b.hprof; hf_umount
expect=$(cd "$CACHE" && stat -c '%s %n' b.hprof-* | sed "s|^\([0-9]*\) |removed \1 $CACHE/|")
total=$(cat "$CACHE"/b.hprof-* | wc -c)
others=$(ls "$CACHE" | grep -v '^b\.hprof-' | sort)
out=$("$HEAPFS" --forget "$ro_dir/b.hprof"); rc=$?
check_eq "--forget: exit 0" 0 "$rc"
check_eq "--forget: prints each file removed with its bytes, then the total" \
  "$expect
$ro_dir/b.hprof: 2 files removed, $total bytes" "$out"
check_eq "--forget: removes exactly the dump's files" "$others" "$(ls "$CACHE" | sort)"
out=$("$HEAPFS" --forget "$ro_dir/b.hprof"); rc=$?
check_eq "--forget of a dump with nothing kept: says so, exit 0" "0 $ro_dir/b.hprof: nothing kept" "$rc $out"
writable rm "$RO/c.hprof"
c_files=$(cached c.hprof)
out=$("$HEAPFS" --forget "$ro_dir/c.hprof"); rc=$?
check "--forget of a deleted dump: its cache files found by the path's hash and removed" \
  bash -c "[ $rc = 0 ] && [ -n '$c_files' ] && [ -z '$(cached c.hprof)' ] && grep -q '^removed [0-9]* $CACHE/c.hprof-' <<<'$out'"
out=$("$HEAPFS" --forget "$ro_dir/c.hprof" 2>&1); rc=$?
check "--forget of a deleted dump with nothing kept: heapfs: PATH: why, non-zero" \
  bash -c "[ $rc != 0 ] && grep -q '^heapfs: $ro_dir/c.hprof: No such file or directory' <<<'$out'"
printf 'not a dump\n' >"$W/notes.txt"
err=$("$HEAPFS" --forget "$W/notes.txt" 2>&1 >/dev/null); rc=$?
check "--forget of a file that is no dump: heapfs: PATH: why, non-zero" \
  bash -c "[ $rc != 0 ] && grep -q '^heapfs: $W/notes.txt: not a format heapfs knows' <<<'$err'"
err=$("$HEAPFS" --forget "$W" 2>&1 >/dev/null); rc=$?
check "--forget of a directory: heapfs: PATH: why, non-zero" \
  bash -c "[ $rc != 0 ] && grep -q '^heapfs: $W: is a directory' <<<'$err'"

# ---- a writable directory: beside the dump, and --forget removes those ----
hf_mount "$W/w.hprof"; wait_stats "$MNT" '^index: .*written to'
head -3 "$MNT/latest/dominators" >/dev/null
wait_stats "$MNT" 'retained sizes, snapshot 1: kept in'; hf_umount
check_eq "a writable directory: the index and results files beside the dump" \
  "w.hprof w.hprof.heapfs-index w.hprof.heapfs-index.retained-strong.1" "$(ls "$W" | grep -v notes | tr '\n' ' ' | sed 's/ $//')"
"$HEAPFS" --forget "$W/w.hprof" >/dev/null
check_eq "--forget removes them" "notes.txt w.hprof" "$(ls "$W" | tr '\n' ' ' | sed 's/ $//')"

# ---- every daemon ended cleanly (under SANITIZE=1: no report in its log) ----
for m in "${HF_MOUNTS[@]}"; do mountpoint -q "$m" && fusermount3 -u "$m"; done
for p in "${HF_PIDS[@]}"; do wait "$p" 2>/dev/null; done
check "no daemon reported a sanitizer error or a leak" \
  bash -c "! cat '$TESTTMP'/mnt.*.log | grep -q 'AddressSanitizer\|LeakSanitizer\|runtime error'"
