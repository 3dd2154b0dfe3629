#!/usr/bin/env bash
# t_retained_mem.sh - -o retained_mem= (docs/retained.md "Memory"): the
# retained sizes' working arrays in RAM, in files, or in both past a budget,
# and auto choosing by the memory available (played small through
# HEAPFS_TEST_MEM_AVAILABLE, the tests' stand-in for a cgroup's limit), or
# refusing a snapshot too big for all of it (HEAPFS_TEST_MEM_TOTAL).
# Every way gives the same dominator, retained size and path of every
# object, on a generated dump (build/hprofgen) of 300,000 objects; so do
# the phases run side by side on two threads (HEAPFS_RETAINED_THREADS=2,
# which a dump this small gets only when forced).
source "$(dirname "$0")/lib.sh"
GEN=$ROOT/build/hprofgen
[ -x "$GEN" ] || make -s -C "$ROOT" build/hprofgen >&2 || { echo "not ok - build hprofgen"; exit 0; }
DUMP=$TESTTMP/gen.hprof
"$GEN" -q -n 300000 -c 50 -s 7 -o "$DUMP" || { echo "not ok - hprofgen"; exit 0; }

# every object's retained size and dominator, the top of the tree, the
# suspects and one path: one digest
digest() {
  local S=$MNT/latest
  { cat "$S/tables/retained.tsv" "$S/dominators" "$S/suspects" "$S/histogram-retained"
    cat "$S/objects/$(sed -n '2s/\t.*//p' "$S/tables/retained.tsv")/path"
  } | sha256sum | cut -d' ' -f1
}
stats() { grep 'retained sizes, snapshot 1: computed' "$MNT/.stats"; }

hf_mount "$DUMP" -o index=none,retained_mem=ram || { echo "not ok - mount retained_mem=ram"; exit 0; }
RAM=$(digest)
check "ram: .stats says the arrays were in RAM only" bash -c "grep -q 'working arrays in RAM (peak [0-9.]* GiB in RAM; retained_mem=ram; page faults' <<<'$(stats)'"
check "ram: tables/retained.tsv has a row per reachable object" test "$(wc -l <"$MNT/latest/tables/retained.tsv")" -gt 250000
hf_umount

# the link-eval forest (2.4 MB) has RAM reserved when the budget holds it,
# before the passes over the dump take any; with 4M the shallow sizes
# (2.4 MB) do not fit beside it, and come with the references
for how in file 2M 4M 8M; do
  case $how in 2M) said=2097152 ;; 4M) said=4194304 ;; 8M) said=8388608 ;; *) said=$how ;; esac
  case $how in [48]M) forest="GiB of RAM reserved for the link-eval forest" ;;
    *) forest="no room to reserve [0-9.]* GiB of RAM for the link-eval forest" ;; esac
  hf_mount "$DUMP" -o index=none,retained_mem=$how || { echo "not ok - mount retained_mem=$how"; continue; }
  check_eq "retained_mem=$how: the same dominators, retained sizes and paths as in RAM" "$RAM" "$(digest)"
  check "retained_mem=$how: .stats says files held working arrays" bash -c "grep -q 'in files in $XDG_CACHE_HOME/heapfs.*retained_mem=$said' <<<'$(stats)'"
  check "retained_mem=$how: .stats says $forest" bash -c "grep -q '$forest' <<<'$(stats)'"
  [ $how = 4M ] && check "retained_mem=4M: the shallow sizes read with the references, no pass of their own" \
    bash -c "! grep -q 'shallow sizes [0-9]' <<<'$(stats)'"
  check "retained_mem=$how, memory to spare: the semidominators read the referrers by node, nothing renumbered" \
    bash -c "grep -q 'semidominators [0-9]' <<<'$(stats)' && ! grep -q 'preorder predecessors' <<<'$(stats)'"
  hf_umount
done
# two threads: in RAM the dominator pass (dfs, preorder predecessors,
# semidominators, nca, idom) on the helper, beside the transpose, the BFS
# and the shallow sizes; in files, where the shallow sizes come with the
# references, the transpose beside the BFS (one phase); in both, the
# retained sizes beside the children, and the class walk and the packing
# of the retained sizes into 6 bytes beside their sort
for how in ram file; do
  [ $how = ram ] && helped="8 phases" || helped="4 phases"
  HEAPFS_RETAINED_THREADS=2 hf_mount "$DUMP" -o index=none,retained_mem=$how ||
    { echo "not ok - mount on two threads, retained_mem=$how"; continue; }
  check_eq "two threads, retained_mem=$how: the same answers as one" "$RAM" "$(digest)"
  check "two threads, retained_mem=$how: .stats says $helped ran on a helper" \
    bash -c "grep -q '; $helped on helper threads; phases (' <<<'$(stats)'"
  hf_umount
done
check "the working files have no names: the cache directory is empty" test -z "$(ls -A "$XDG_CACHE_HOME/heapfs")"

export HEAPFS_TEST_MEM_AVAILABLE=4000000
hf_mount "$DUMP" -o index=none || { echo "not ok - mount with 4 MB available"; exit 0; }
check_eq "auto, 4 MB available: the same answers" "$RAM" "$(digest)"
check "auto, 4 MB available: files, and .stats says why" bash -c "grep -q 'in files in .*retained_mem=auto: half of 0.00 GiB available by HEAPFS_TEST_MEM_AVAILABLE' <<<'$(stats)'"
check "auto, 4 MB available: the referrers would not stay in memory, so the successors are renumbered" \
  bash -c "grep -q 'preorder predecessors [0-9]' <<<'$(stats)'"
hf_umount
unset HEAPFS_TEST_MEM_AVAILABLE

# all the memory the daemon may have (a cgroup's limit) below what the
# dominator pass reads at random (300,068 objects x 16 = 4.6 MiB) beside
# what the daemon holds: auto says why it does not compute, and the other
# views work; a budget the user chose computes anyway; 1 GB is enough
export HEAPFS_TEST_MEM_TOTAL=4000000
hf_mount "$DUMP" -o index=none || { echo "not ok - mount with 4 MB in all"; exit 0; }
check "4 MB in all, auto: dominators says the computation would not finish, and how to run it anyway" \
  grep -q '^# no retained sizes: 300[0-9]* objects: the dominator pass reads 4.6 MiB at random (16 bytes an object at least), and the daemon holds [0-9.]* MiB already, more than the 3.8 MiB it may have .*-o retained_mem=file to run it anyway' "$MNT/latest/dominators"
check "4 MB in all, auto: .stats says it too" grep -q 'retained sizes, snapshot 1: none (300[0-9]* objects: the dominator pass reads' "$MNT/.stats"
check "4 MB in all, auto: the other views still work" grep -q 'objects' "$MNT/latest/info"
hf_umount
hf_mount "$DUMP" -o index=none,retained_mem=file || { echo "not ok - mount with 4 MB in all, retained_mem=file"; exit 0; }
check_eq "4 MB in all, retained_mem=file: computed, the same answers" "$RAM" "$(digest)"
hf_umount
export HEAPFS_TEST_MEM_TOTAL=1000000000
hf_mount "$DUMP" -o index=none || { echo "not ok - mount with 1 GB in all"; exit 0; }
check_eq "1 GB in all, auto: computed, the same answers" "$RAM" "$(digest)"
hf_umount
unset HEAPFS_TEST_MEM_TOTAL

hf_mount "$DUMP" -o index=none || { echo "not ok - mount by default"; exit 0; }
cat "$MNT/latest/dominators" >/dev/null
check "auto on this machine: a small dump's arrays in RAM" bash -c "grep -q 'working arrays in RAM (.*retained_mem=auto' <<<'$(stats)'"
check "auto on this machine: a small dump's phases on one thread" bash -c "! grep -q 'on helper threads' <<<'$(stats)'"
hf_umount

# no place for the files: the views say so, and the daemon lives on
CACHE=$XDG_CACHE_HOME; export XDG_CACHE_HOME=/proc/no-such-dir
hf_mount "$DUMP" -o index=none,retained_mem=file || { echo "not ok - mount with no place for files"; exit 0; }
export XDG_CACHE_HOME=$CACHE
check "no place for the files: dominators says why there are no retained sizes" \
  grep -q '^# no retained sizes: out of memory (RAM or disk) for the working arrays; .*arrays could not be had' "$MNT/latest/dominators"
check "no place for the files: the other views still work" grep -q 'objects' "$MNT/latest/info"
hf_umount

for bad in bogus 12Q ""; do
  check "-o retained_mem=$bad is refused with a message" \
    bash -c "'$HEAPFS' --check -o retained_mem=$bad '$DUMP' 2>&1 >/dev/null | grep -q 'heapfs: -o retained_mem=$bad: '"
done
