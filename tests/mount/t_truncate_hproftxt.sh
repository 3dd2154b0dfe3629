#!/usr/bin/env bash
# t_truncate_hproftxt.sh - the HPROF text files of tests/corpus/hprof-txt/
# (java.hprof.txt of the HPROF agent) walked whole and cut at 240 offsets
# each (tests/mount/truncate.sh says what is checked): apart from
# t_truncate.sh because one of them alone took half of its time; and cuts
# of one mounted for real.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/truncate.sh"

mapfile -t files < <(corpus_files "$CORPUS/hprof-txt")
truncate_files "${files[@]}"

f=$CORPUS/hprof-txt/JoelStuart_COMP3702A1_sites.java.hprof.txt
if [ -f "$f" ]; then
  s=$(stat -c %s "$f")
  mount_cut "$f" $((s / 2 + 3)) 0
  mount_cut "$f" 40 0
fi
