#!/usr/bin/env bash
# make demo: dump a small real JVM (contrib/demo/Shop.java, which leaks
# orders into a cache), mount the dump with heapfs, show around it, unmount.
# Without a JDK it mounts a dump from tests/corpus instead.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d /tmp/heapfs-demo.XXXXXX)
mnt="$work/mnt"; mkdir "$mnt"
pid=""; hpid=""
cleanup() {
  mountpoint -q "$mnt" && fusermount3 -u "$mnt"
  [ -n "$pid" ] && kill "$pid" 2>/dev/null
  [ -n "$hpid" ] && wait "$hpid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

run() { printf '\n$ %s\n' "$*"; eval "$@"; }

dump="$work/shop.hprof"
if command -v javac >/dev/null && command -v jcmd >/dev/null; then
  javac -d "$work" contrib/demo/Shop.java
  java -cp "$work" Shop > "$work/out" &
  pid=$!
  for i in $(seq 100); do grep -q READY "$work/out" 2>/dev/null && break; sleep 0.2; done
  jcmd "$pid" GC.heap_dump "$dump" > /dev/null
  kill "$pid"; pid=""
else
  dump=tests/corpus/hprof/slurp_hprof-64.bin
  echo "(no JDK here: using $dump)"
fi

./heapfs -f "$dump" "$mnt" & hpid=$!
for i in $(seq 100); do mountpoint -q "$mnt" && break; sleep 0.1; done
cd "$mnt"
run "ls"
run "head -12 info"
run "head -8 latest/histogram"
run "grep -c . latest/strings"
run "grep -m3 'customer-7' latest/strings"
cls=$(ls latest/classes | grep -m1 'Shop\$Order$' || ls latest/classes | head -1)
run "cat 'latest/classes/$cls/info'"
obj=$(head -1 "latest/classes/$cls/instances")
run "cat latest/objects/$obj/fields"
run "ls -l latest/objects/$obj/refs/"
run "cat latest/objects/$obj/refs/note/value; echo"
run "head -5 latest/suspects"
run "cat latest/objects/$obj/path"
run "head -4 latest/dominators"
run "cat .stats"
cd /
echo
echo "Unmounting: fusermount3 -u MOUNTPOINT"
