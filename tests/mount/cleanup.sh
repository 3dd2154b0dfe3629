#!/usr/bin/env bash
# Unmounts any heapfs mount a test run left behind under the temp directory.
awk '$3 ~ /^fuse\.heapfs/ && $2 ~ /heapfs-test\./ {print $2}' /proc/mounts | while read -r m; do
  fusermount3 -u "$m" 2>/dev/null || fusermount3 -uz "$m" 2>/dev/null
done
exit 0
