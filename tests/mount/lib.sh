# lib.sh - shared helpers for mount tests (source it).
#
#   hf_mount DUMP [heapfs options...]   mounts in a fresh directory; sets MNT
#   hf_mount_series ARG...              heapfs -f ARG... MNT: several dumps
#   hf_umount                           unmounts the last mount
#   check "what" CMD...                 runs CMD; prints "ok - what" or "not ok - what"
#   check_eq "what" EXPECTED ACTUAL     compares two strings
#   hf_unwritable DIR                   HF_RO: DIR as a directory this user cannot write
#   check_cut_mounts DUMP LABEL ERRWHAT ERRRE
#                                       DUMP cut at 2/3 mounts, its errors match
#                                       ERRRE, its objects still list
#
# Every mount made here is unmounted when the script exits, pass or fail.
#
# Index files (heapfs -o index=): hf_mount of a file under tests/ (the
# corpus, the fixtures) adds -o index=none unless the test gives -o index=
# itself, so no test writes into the repository; dumps copied to TESTTMP get
# theirs beside them, as users do.  XDG_CACHE_HOME is TESTTMP's, so the
# fallback place is never the real ~/.cache.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HEAPFS=${HEAPFS:-$ROOT/heapfs}
CORPUS=${CORPUS:-$ROOT/tests/corpus}
TESTTMP=$(mktemp -d "${TMPDIR:-/tmp}/heapfs-test.XXXXXX")
export XDG_CACHE_HOME=$TESTTMP/cache
HF_MOUNTS=()
HF_PIDS=()
declare -gA HF_PID_OF=() # mount point -> its daemon, for hf_umount (hf_mount_series's)

hf_cleanup() {
  local m
  for m in "${HF_MOUNTS[@]}"; do
    mountpoint -q "$m" 2>/dev/null && { fusermount3 -u "$m" 2>/dev/null || fusermount3 -uz "$m" 2>/dev/null; }
  done
  local p
  for p in "${HF_PIDS[@]}"; do kill "$p" 2>/dev/null; done
  wait 2>/dev/null
  umount "$TESTTMP/robind" 2>/dev/null   # hf_unwritable's
  rm -rf "$TESTTMP"
}

# hf_unwritable DIR: sets HF_RO to a path of DIR this user cannot write
# into: DIR itself, made 555, or as root (who writes anywhere) a read-only
# bind mount of it, $TESTTMP/robind, unmounted on exit.  HF_RO is empty
# when neither can be made.  Files are changed through DIR (chmod u+w
# first when HF_RO is DIR).
hf_unwritable() {
  HF_RO=""
  if [ "$(id -u)" != 0 ]; then
    chmod 555 "$1"; HF_RO=$1
  elif mkdir -p "$TESTTMP/robind" && mount --bind "$1" "$TESTTMP/robind" 2>/dev/null; then
    if mount -o remount,ro,bind "$TESTTMP/robind" 2>/dev/null; then
      HF_RO=$TESTTMP/robind
    else
      umount "$TESTTMP/robind"
    fi
  fi
}
trap hf_cleanup EXIT

# hf_mount_series ARG...: heapfs -f ARG... MNT (dumps and options, in that
# order) in the foreground (backgrounded here); waits until the mount is
# live.  Returns non-zero when it never came up.  A dump under tests/ gets
# -o index=none (unless an index= is given): no index file in the tree.
hf_mount_series() {
  local a in_tree=0
  for a in "$@"; do
    [ -f "$a" ] && case "$(realpath -m "$a")" in "$ROOT"/tests/*) in_tree=1 ;; esac
  done
  if [ "$in_tree" = 1 ] && [[ " $* " != *" index="* && " $* " != *",index="* ]]; then
    set -- -o index=none "$@"
  fi
  # (no mount point, no log beside it in the current directory: TESTTMP
  # is gone when the run is being torn down)
  MNT=$(mktemp -d "$TESTTMP/mnt.XXXXXX") || return 1
  "$HEAPFS" -f "$@" "$MNT" 2>"$MNT.log" &
  local pid=$!
  HF_MOUNTS+=("$MNT"); HF_PIDS+=("$pid"); HF_PID_OF[$MNT]=$pid
  local i
  for i in $(seq 1 600); do
    if mountpoint -q "$MNT"; then return 0; fi
    kill -0 "$pid" 2>/dev/null || { cat "$MNT.log" >&2; return 1; }
    sleep 0.1
  done
  echo "mount of $* timed out" >&2
  return 1
}

# hf_mount DUMP [options...]: one dump.
hf_mount() {
  local dump=$1; shift
  hf_mount_series "$@" "$dump"
}

# wait_written MNT: until .stats says the index file (heapfs -o index=) was
# written (or not); "not written yet" is not an answer (up to 30 s: the
# machine may be busy)
wait_written() {
  local i
  for i in $(seq 1 300); do
    grep '^index: ' "$1/.stats" | grep -v 'not written yet' | grep -q 'written to\|not written\|no index file' &&
      return 0
    sleep 0.1
  done
  return 1
}

# hf_umount: unmounts MNT, then waits (up to 30 s) for its daemon to end:
# until then it still holds what it opened (an index file's lock: --forget
# says "in use by a running heapfs mount"), and a busy machine can take a
# while.  Returns fusermount3's status.
hf_umount() {
  fusermount3 -u "$MNT"
  local rc=$? pid=${HF_PID_OF[$MNT]:-} i
  [ -n "$pid" ] || return $rc
  for i in $(seq 1 300); do # a zombie answers kill -0: its state says it ended
    case "$(cut -d' ' -f3 "/proc/$pid/stat" 2>/dev/null)" in
      "" | Z) wait "$pid" 2>/dev/null; return $rc ;;
    esac
    sleep 0.1
  done
  return $rc
}

check() {
  local what=$1; shift
  if "$@" >/dev/null 2>&1; then echo "ok - $what"; else echo "not ok - $what"; fi
}

check_eq() {
  if [ "$2" = "$3" ]; then echo "ok - $1"; else echo "not ok - $1 (expected '$2', got '$3')"; fi
}

# growth_rows FILE: a growth file's rows as "NAME DELTA_OBJECTS DELTA_BYTES",
# sorted (the name, TABs and all, is what follows the fifth TAB).
growth_rows() {
  grep -v '^#' "$1" | awk '{ n = $0; for (i = 1; i <= 5; i++) sub(/^[^\t]*\t/, "", n); print n, $1, $2 }' |
    LC_ALL=C sort
}

# check_cut_mounts DUMP LABEL ERRWHAT ERRRE: the first 2/3 of DUMP, copied to
# TESTTMP, must mount ("ok - LABEL cut at 2/3 mounts"); then its errors file
# must match the grep regex ERRRE ("ok - ERRWHAT") and its latest/objects
# must still list an object.  Unmounts it afterwards.
check_cut_mounts() {
  local dump=$1 label=$2 errwhat=$3 errre=$4
  local cut="$TESTTMP/cut.${dump##*.}" size
  size=$(stat -c %s "$dump")
  head -c $((size * 2 / 3)) "$dump" > "$cut"
  if hf_mount "$cut"; then
    echo "ok - $label cut at 2/3 mounts"
    check "$errwhat" grep -q "$errre" "$MNT/errors"
    check "its objects can still be listed" bash -c "ls '$MNT/latest/objects' | head -1 | grep -q 0x"
    hf_umount
  else
    echo "not ok - $label cut at 2/3 mounts"
  fi
}
