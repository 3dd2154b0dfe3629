#!/usr/bin/env bash
# Filesystem properties users rely on, checked on real corpus dumps through
# a real mount: every HPROF file mounts; read-only everywhere (EROFS); exact
# st_size; stable inode numbers across remounts; bad input refused with one
# line and no mount left behind; truncated dumps mount with the problem in
# `errors`; SIGTERM unmounts cleanly; the dump changing underneath never
# kills the daemon.
source "$(dirname "$0")/lib.sh"

hprofs=("$CORPUS"/hprof/*.hprof "$CORPUS"/hprof/*.bin)

# --- every corpus HPROF mounts and its tree is coherent ---
for f in "${hprofs[@]}"; do
  b=$(basename "$f")
  if ! hf_mount "$f"; then echo "not ok - $b mounts"; continue; fi
  echo "ok - $b mounts"
  check "$b: root lists README info errors snapshots latest" \
    bash -c "ls '$MNT' | grep -vx growth.svg | tr '\n' ' ' | grep -q 'README errors info latest snapshots'"
  check_eq "$b: info says format hprof" "format: hprof" "$(grep '^format:' "$MNT/info")"
  check_eq "$b: ...and the name users know" "format name: HPROF heap dump" "$(grep '^format name:' "$MNT/info")"
  check "$b: README names the format so too" grep -qx "This is heapfs: .* mounted read-only as files (HPROF heap dump)." "$MNT/README"
  objs=$(sed -n 's/^objects: *//p' "$MNT/info")
  n=0; for s in "$MNT"/snapshots/*; do n=$((n + $(ls "$s/objects" | wc -l))); done
  check_eq "$b: objects listed = objects in info" "$objs" "$n"
  # exact sizes: stat before reading equals bytes read, on a sample of files
  bad=0
  while read -r p; do
    [ "$(stat -c %s "$p")" = "$(cat "$p" | wc -c)" ] || { bad=1; echo "# size mismatch: $p"; }
  done < <( { ls -d "$MNT"/info "$MNT"/errors "$MNT"/README "$MNT"/latest/*;
              find "$MNT/latest/classes" -maxdepth 2 -type f | head -40;
              find "$MNT/latest/objects" -maxdepth 2 -type f | head -60; } | grep -v '/classes$\|/objects$')
  check_eq "$b: st_size is exact for every sampled file" 0 "$bad"
  check "$b: latest is a symlink into snapshots" bash -c "readlink '$MNT/latest' | grep -q '^snapshots/[0-9]*$'"
  hf_umount
done

f="$CORPUS/hprof/slurp_hprof-64.bin"

# --- read-only everywhere ---
hf_mount "$f"
obj=$(ls "$MNT/latest/objects" | head -1)
file="$MNT/latest/objects/$obj/info"
erofs() { local out; out=$("$@" 2>&1); [[ "$out" == *"Read-only file system"* ]]; }
check "write to a view fails with EROFS" erofs bash -c "echo x >> '$file'"
check "truncate via open fails with EROFS" erofs bash -c "echo x > '$file'"
check "create fails with EROFS" erofs touch "$MNT/latest/new"
check "mkdir fails with EROFS" erofs mkdir "$MNT/latest/d"
check "unlink fails with EROFS" erofs rm -f "$file"
check "rmdir fails with EROFS" erofs rmdir "$MNT/latest/objects/$obj"
check "rename fails with EROFS" erofs mv "$MNT/info" "$MNT/info2"
check "symlink fails with EROFS" erofs ln -s x "$MNT/l"
check "link fails with EROFS" erofs ln "$MNT/info" "$MNT/h"
check "chmod fails with EROFS" erofs chmod 600 "$MNT/info"
check "setxattr fails with EROFS" erofs python3 -c "import os; os.setxattr('$MNT/info', 'user.x', b'1')"
check "truncate(2) fails with EROFS" erofs truncate -s 0 "$MNT/info"

# --- modes follow the dump; .stats shows the cache counters ---
want_mode=$(printf '%o' $(( 0$(stat -c %a "$f") & 0444 )))
check_eq "file modes are the dump's read bits" "$want_mode" "$(stat -c %a "$MNT/info")"
cat "$MNT/latest/histogram" > /dev/null; cat "$MNT/latest/histogram" > /dev/null
check ".stats shows hits, misses and evictions" bash -c "grep -q '^hits: ' '$MNT/.stats' && grep -q '^misses: ' '$MNT/.stats' && grep -q '^evictions: ' '$MNT/.stats'"
check ".stats is not listed" bash -c "! ls -a '$MNT' | grep -q stats"

# --- stable inode numbers across a remount ---
inos() { (cd "$MNT" && stat -c '%i %n' latest/objects/$obj/info latest/objects/$obj latest/classes info latest/histogram); }
ino1=$(inos)
hf_umount
hf_mount "$f"
ino2=$(inos)
check_eq "inode numbers are the same after a remount" "$ino1" "$ino2"
first=$MNT
hf_mount "$f"
check "two mounts of one dump diff clean (diff -r over classes)" diff -r "$first/latest/classes" "$MNT/latest/classes"

# --- SIGTERM unmounts cleanly ---
pid=${HF_PIDS[-1]}
kill -TERM "$pid"
for i in $(seq 50); do mountpoint -q "$MNT" || break; sleep 0.1; done
check "SIGTERM unmounts" bash -c "! mountpoint -q '$MNT'"
wait "$pid" 2>/dev/null; rc=$?
check_eq "SIGTERM exits with status 0" 0 "$rc"

# --- bad input: one line "heapfs: WHAT: why", its exit status, no mount ---
# refused WHAT RC LINE CMD...: CMD (run with a 20 s timeout, in $TESTTMP)
# exits RC, writes exactly LINE (no libfuse or GLib line beside it) and
# leaves $TESTTMP/m unmounted.  LINE ending in '*' is a prefix.
mkdir -p "$TESTTMP/m"
refused() {
  local what=$1 want_rc=$2 want=$3 out rc; shift 3
  out=$(cd "$TESTTMP" && timeout 20 "$@" 2>&1 >/dev/null); rc=$?
  # shellcheck disable=SC2053
  if [ "$rc" = "$want_rc" ] && [[ "$out" == $want ]] && [ "$(wc -l <<<"$out")" = 1 ] && ! mountpoint -q "$TESTTMP/m"; then
    echo "ok - $what: one line, exit $rc"
  else
    echo "not ok - $what (exit $rc, want $want_rc; got '$out'; want '$want')"
    mountpoint -q "$TESTTMP/m" && fusermount3 -u "$TESTTMP/m"
  fi
}
q() { printf '%q' "$1" | sed 's/\\ / /g'; }  # a literal for [[ == ]]
head -c 5000 /dev/urandom > "$TESTTMP/random.bin"
: > "$TESTTMP/empty"
printf 'hello world\n' > "$TESTTMP/text"
known="not a format heapfs knows (HPROF heap dump, HPROF text (java.hprof.txt), BMD, OpenEdge memory profile (.oemp), gperftools heap profile, Go pprof (profile.proto), V8 heap snapshot (.heapsnapshot))"
refused "a file that is not a dump" 1 "$(q "heapfs: $TESTTMP/random.bin: $known")" "$HEAPFS" -f random.bin m
refused "a text file" 1 "$(q "heapfs: $TESTTMP/text: $known")" "$HEAPFS" -f text m
refused "an empty file" 1 "$(q "heapfs: $TESTTMP/empty: empty file")" "$HEAPFS" -f empty m
refused "a directory" 1 "$(q "heapfs: $TESTTMP: is a directory, not a dump file")" "$HEAPFS" -f "$TESTTMP" m
refused "a device" 1 "$(q "heapfs: /dev/null: not a regular file")" "$HEAPFS" -f /dev/null m
refused "a missing file, named by its absolute path" 1 "$(q "heapfs: $TESTTMP/nope: No such file or directory")" "$HEAPFS" -f nope m
refused "--check on garbage" 1 "$(q "heapfs: $TESTTMP/random.bin: $known")" "$HEAPFS" --check random.bin
# the command line and the mount point are checked before the dump is
# opened (indexing a big dump first would make a typo cost minutes): the
# message is about them, not about the dump that is not one
refused "an unknown mount option, named before any dump is read" 2 \
  "$(q "heapfs: -o no_such_option: not an option of heapfs or libfuse (see heapfs --help)")" "$HEAPFS" -o no_such_option random.bin m
refused "-o rw" 2 "$(q "heapfs: -o rw: heapfs mounts are read-only (mount with -o ro)")" "$HEAPFS" -o rw random.bin m
refused "--check with a mount option" 2 "$(q "heapfs: -o allow_other: --check takes no mount option (see heapfs --help)")" \
  "$HEAPFS" --check -o allow_other random.bin
refused "-o index= empty" 2 "$(q "heapfs: -o index=: empty (a file name, or none)")" "$HEAPFS" -o index= random.bin m
refused "-o index=FILE with two dumps" 2 \
  "$(q "heapfs: -o index=$TESTTMP/one.ix: names one file, and 2 dumps are given (leave it out: each dump then has its own, or -o index=none)")" \
  "$HEAPFS" -o index=one.ix random.bin text m
refused "-o retained= a level that is none" 2 "$(q "heapfs: -o retained=bogus: not a level (strong, soft, finalizer, weak or phantom)")" \
  "$HEAPFS" -o retained=bogus random.bin m
refused "a missing names file, before any dump is read" 1 "$(q "heapfs: names file $TESTTMP/none.txt: No such file or directory")" \
  "$HEAPFS" -o names=none.txt random.bin m
refused "a names file that is a directory" 1 "$(q "heapfs: names file $TESTTMP: Is a directory")" \
  "$HEAPFS" --check -o names="$TESTTMP" "$f"
refused "a mount point that is a file, before any dump is read" 2 "$(q "heapfs: mount point $TESTTMP/text: Not a directory")" \
  "$HEAPFS" random.bin text
refused "a missing mount point" 2 "$(q "heapfs: mount point $TESTTMP/no/such/dir: No such file or directory (make the directory first)")" \
  "$HEAPFS" -f "$f" no/such/dir
hf_mount "$f"
refused "a mount point already mounted" 2 "$(q "heapfs: mount point $MNT: already mounted (unmount it first: fusermount3 -u $MNT)")" \
  "$HEAPFS" -o index=none "$f" "$MNT"
pid=${HF_PIDS[-1]}
kill -KILL "$pid"; wait "$pid" 2>/dev/null
refused "the mount point of a stopped heapfs" 2 \
  "$(q "heapfs: mount point $MNT: Transport endpoint is not connected (a heapfs that stopped is still mounted there: fusermount3 -u $MNT)")" \
  "$HEAPFS" -o index=none "$f" "$MNT"
fusermount3 -u "$MNT"
if id nobody >/dev/null 2>&1 && command -v runuser >/dev/null; then
  cp "$f" "$TESTTMP/private.hprof"; chmod 600 "$TESTTMP/private.hprof"; chmod 755 "$TESTTMP"
  refused "an unreadable dump (no GLib message)" 1 "$(q "heapfs: $TESTTMP/private.hprof: Permission denied")" \
    runuser -u nobody -- "$HEAPFS" --check private.hprof
  refused "a mount point this user may not write" 2 \
    "$(q "heapfs: mount point $TESTTMP/m: not writable by this user (fusermount3 mounts only on a directory its user may write)")" \
    runuser -u nobody -- "$HEAPFS" "$f" m
  mkdir "$TESTTMP/mine"; chown nobody "$TESTTMP/mine"
  if ! runuser -u nobody -- test -r /dev/fuse -a -w /dev/fuse; then
    refused "no access to /dev/fuse, with what to do" 1 "$(q "heapfs: /dev/fuse: Permission denied (mounting needs it: ")*" \
      runuser -u nobody -- "$HEAPFS" "$f" mine
  else
    echo "ok - no access to /dev/fuse # SKIP nobody may open /dev/fuse here"
  fi
fi
check "--check on a good dump exits 0 and prints info" bash -c "'$HEAPFS' --check '$f' | grep -q '^format: hprof'"
check "--help works" bash -c "'$HEAPFS' --help | grep -q cache_size"
check "--version works" bash -c "'$HEAPFS' --version | grep -q heapfs"

# --- a truncated dump mounts what could be decoded, with the offset in errors ---
check_cut_mounts "$f" "a dump" "its errors name an offset" 'offset 0x'

# --- the dump changes while mounted: the daemon stays up ---
cp "$f" "$TESTTMP/changing.hprof"
hf_mount "$TESTTMP/changing.hprof"
cat "$MNT/info" > /dev/null
obj=$(ls "$MNT/latest/objects" | sed -n 100p)
cls=$(ls "$MNT/latest/classes" | grep -vF '[]' | sed -n 5p)
truncate -s 4096 "$TESTTMP/changing.hprof"
# the objects and classes exist, their bytes are gone: EIO, never ENOENT
for p in "objects/$obj" "objects/$obj/fields" "objects/$obj/info" "classes/$cls/fields" "classes/$cls/statics"; do
  out=$(cat "$MNT/latest/$p" 2>&1 >/dev/null)
  check "after the dump shrank, $p gives EIO ($out)" bash -c "[[ '$out' == *'Input/output error'* ]]"
done
out=$(cat "$MNT/latest/strings" 2>&1)
check "reads after the dump shrank fail with EIO" bash -c "[[ '$(echo "$out" | head -1 | tr -d "'")' == *'Input/output error'* ]]"
cat "$MNT/latest/objects"/*/info > /dev/null 2>&1
check "the daemon is still up after the dump shrank" mountpoint -q "$MNT"
check "every later open fails with EIO, even of views read before" bash -c "! cat '$MNT/info' 2>&1 >/dev/null | grep -qv 'Input/output error'; ! cat '$MNT/info' >/dev/null 2>&1"
hf_umount
cp "$f" "$TESTTMP/deleted.hprof"
hf_mount "$TESTTMP/deleted.hprof"
rm "$TESTTMP/deleted.hprof"
check "a deleted dump is still served from its mapping" bash -c "cat '$MNT/latest/histogram' | grep -q java.lang.String"
hf_umount
