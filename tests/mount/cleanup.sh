#!/usr/bin/env bash
# cleanup.sh [DIR] - unmounts the heapfs mounts a test run left behind (a
# test that failed, was killed, or whose daemon died): every heapfs mount
# under DIR (tests/run.sh passes its own temp dir), or without DIR every
# heapfs mount under a heapfs-test.* directory.  Then waits (up to 10 s)
# for them to be gone, so nothing is left when it returns.
dir=${1:-}
list() {
  awk -v d="${dir%/}/" '$3 ~ /^fuse\.heapfs/ && (d == "/" ? $2 ~ /heapfs-test\./ : index($2, d) == 1) {print $2}' /proc/mounts
}
list | while read -r m; do
  fusermount3 -u "$m" 2>/dev/null || fusermount3 -uz "$m" 2>/dev/null || umount -l "$m" 2>/dev/null
done
for _ in $(seq 1 100); do
  [ -z "$(list)" ] && break
  sleep 0.1
done
exit 0
