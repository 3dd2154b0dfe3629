#!/usr/bin/env bash
# t_signals.sh - shutdown: signals unmount cleanly, a failed start leaves no
# mount, a test that fails or is killed leaves no mount.
#   - SIGINT and SIGHUP unmount and exit 0, idle (t_fs.sh does SIGTERM idle);
#   - SIGINT and SIGTERM while 8 readers are busy: unmounted within 10 s,
#     exit 0, the readers end (with errors, never hung), no mount left;
#   - starts that fail (a missing or empty dump, no mount point,
#     an unknown -o option, a bad cache_size, garbage) exit non-zero with
#     one line on stderr and leave no heapfs mount behind;
#   - a daemon killed with SIGKILL leaves a dead mount; cleanup.sh removes it;
#   - a test script that mounts and then fails, exits, or is killed with
#     SIGTERM (what tests/run.sh's timeout does) leaves no mount (lib.sh's
#     trap), and cleanup.sh DIR removes one left under DIR only.
source "$(dirname "$0")/lib.sh"

DUMP=$CORPUS/hprof/slurp_hprof-64.bin
[ -f "$DUMP" ] || { echo "not ok - $DUMP exists"; exit 1; }

# heapfs mounts of this test (others may run on the machine at the same time)
heapfs_mounts() { awk -v d="$TESTTMP/" '$3 ~ /^fuse\.heapfs/ && index($2, d) == 1 {print $2}' /proc/mounts | sort; }

# A shell starts background jobs with SIGINT ignored, and libfuse keeps an
# ignored SIGINT ignored (as daemons should).  The SIGINT tests start heapfs
# with SIGINT at its default, as a terminal does.
sigint_mount() {
  MNT=$(mktemp -d "$TESTTMP/mnt.XXXXXX")
  env --default-signal=INT "$HEAPFS" -f -o index=none "$@" "$MNT" 2>"$MNT.log" &
  HF_MOUNTS+=("$MNT"); HF_PIDS+=($!)
  local i
  for i in $(seq 1 300); do mountpoint -q "$MNT" && return 0; sleep 0.1; done
  return 1
}

# wait_gone MNT PID: true when MNT is unmounted and PID exited within 10 s;
# sets RC to the exit status.
wait_gone() {
  local i
  for i in $(seq 1 100); do
    if ! mountpoint -q "$1" && ! kill -0 "$2" 2>/dev/null; then
      wait "$2" 2>/dev/null; RC=$?
      return 0
    fi
    sleep 0.1
  done
  RC=
  return 1
}

# ---- idle: SIGINT, SIGHUP ----
for sig in INT HUP; do
  sigint_mount "$DUMP" || { echo "not ok - mount for SIG$sig"; continue; }
  pid=${HF_PIDS[-1]}
  cat "$MNT/info" >/dev/null
  kill -"$sig" "$pid"
  if wait_gone "$MNT" "$pid"; then
    echo "ok - SIG$sig unmounts"
    check_eq "SIG$sig: exit status 0" 0 "$RC"
  else
    echo "not ok - SIG$sig unmounts"
  fi
done

# ---- busy: SIGINT, SIGTERM while readers run ----
for sig in INT TERM; do
  sigint_mount -o cache_size=64K "$DUMP" || { echo "not ok - mount for busy SIG$sig"; continue; }
  pid=${HF_PIDS[-1]}
  readers=()
  for r in $(seq 1 8); do
    ( end=$((SECONDS + 30)); while [ $SECONDS -lt $end ]; do
        cat "$MNT/latest/strings" "$MNT"/latest/objects/*/info >/dev/null 2>&1 || break
      done ) &
    readers+=($!)
  done
  sleep 2
  kill -"$sig" "$pid"
  if wait_gone "$MNT" "$pid"; then
    echo "ok - SIG$sig with 8 busy readers unmounts within 10 s"
    check_eq "busy SIG$sig: exit status 0" 0 "$RC"
  else
    echo "not ok - SIG$sig with 8 busy readers unmounts within 10 s"
  fi
  hung=0
  for r in "${readers[@]}"; do
    for i in $(seq 1 50); do kill -0 "$r" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$r" 2>/dev/null && { hung=$((hung + 1)); kill "$r" 2>/dev/null; }
  done
  check_eq "busy SIG$sig: no reader hangs after the unmount" 0 "$hung"
  check "busy SIG$sig: no mount left" bash -c "! mountpoint -q '$MNT'"
done

# ---- failed starts leave no mount ----
before=$(heapfs_mounts)
fail_start() {  # what args...
  local what=$1; shift
  local out rc
  out=$(timeout 20 "$HEAPFS" -f "$@" 2>&1 >/dev/null); rc=$?
  if [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && [ -n "$out" ] && [ "$(printf '%s\n' "$out" | wc -l)" -le 2 ] &&
     [ "$(heapfs_mounts)" = "$before" ]; then
    echo "ok - $what: exit $rc, no mount left ($(printf '%s' "$out" | head -1 | cut -c1-90))"
  else
    echo "not ok - $what: exit $rc, mounts $(heapfs_mounts | wc -l) (before $(echo -n "$before" | grep -c .)), said: $out"
  fi
}
touch "$TESTTMP/afile"
m=$(mktemp -d "$TESTTMP/mnt.XXXXXX")
fail_start "unknown -o option" -o no_such_option "$DUMP" "$m"
fail_start "bad cache_size" -o cache_size=lots "$DUMP" "$m"
fail_start "missing dump" "$TESTTMP/nope.hprof" "$m"
fail_start "garbage dump" "$TESTTMP/afile" "$m"
fail_start "no mount point" "$DUMP"
check "the mount point is left empty and unmounted" bash -c "! mountpoint -q '$m' && [ -z \"\$(ls -A '$m')\" ]"

# ---- SIGKILL leaves a dead mount; cleanup.sh removes it ----
hf_mount "$DUMP" || echo "not ok - mount for SIGKILL"
pid=${HF_PIDS[-1]}
kill -KILL "$pid"; wait "$pid" 2>/dev/null
out=$(ls "$MNT" 2>&1)
check "after SIGKILL the mount is dead (Transport endpoint is not connected)" bash -c "[[ '$out' == *'not connected'* ]]"
bash "$ROOT/tests/mount/cleanup.sh" "$TESTTMP"
check "cleanup.sh removes the dead mount" bash -c "! grep -q ' $MNT ' /proc/mounts"

# ---- a failing or killed test script leaves no mount ----
scratch=$(mktemp -d "$TESTTMP/scratch.XXXXXX")
cat >"$scratch/t_fails.sh" <<EOF
source "$ROOT/tests/mount/lib.sh"
hf_mount "$DUMP" || exit 3
echo "\$MNT" >"$scratch/mnt.\$1"
case "\$1" in
  fail) echo "not ok - on purpose"; exit 1 ;;
  error) set -e; false ;;
  hang) sleep 300 & wait ;;
esac
EOF
for how in fail error hang; do
  if [ "$how" = hang ]; then
    TMPDIR=$scratch timeout 5 bash "$scratch/t_fails.sh" "$how" >/dev/null 2>&1
  else
    TMPDIR=$scratch bash "$scratch/t_fails.sh" "$how" >/dev/null 2>&1
  fi
  m=$(cat "$scratch/mnt.$how" 2>/dev/null)
  if [ -z "$m" ]; then echo "not ok - the $how test script mounted"; continue; fi
  for i in $(seq 1 50); do mountpoint -q "$m" || break; sleep 0.1; done
  check "a test script that ends by '$how' leaves no mount" bash -c "! mountpoint -q '$m'"
done
# cleanup.sh DIR: only mounts under DIR
hf_mount "$DUMP"; inside=$MNT
other=$(mktemp -d "$TESTTMP/elsewhere.XXXXXX")
mkdir -p "$other/sub"
bash "$ROOT/tests/mount/cleanup.sh" "$other"
check "cleanup.sh DIR leaves mounts outside DIR alone" mountpoint -q "$inside"
bash "$ROOT/tests/mount/cleanup.sh" "$TESTTMP"
check "cleanup.sh DIR removes the mounts under DIR" bash -c "! mountpoint -q '$inside'"
