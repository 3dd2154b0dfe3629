#!/usr/bin/env bash
# t_truncate.sh - every file of tests/corpus/ and tests/fixtures/ but HPROF
# binary, HPROF text, BMD and V8 (t_truncate_hprof.sh,
# t_truncate_android.sh, t_truncate_hproftxt.sh, t_truncate_bmd.sh, fewer
# cuts in t_v8_corpus.sh: a cut of its snapshot takes 0.3 s) walked whole
# and cut at 240 offsets each (tests/mount/truncate.sh says what is
# checked); and cuts of a gperftools and an OEMP file mounted for real.
# (t_rewrite.sh: dumps rewritten in place while mounted.)
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/truncate.sh"

mapfile -t files < <(corpus_files -v "$CORPUS/hprof" "$CORPUS/hprof-txt" "$CORPUS/bmd" "$CORPUS/v8")
truncate_files "${files[@]}"

# ---- real mounts of cut files: mount with errors, or refuse cleanly ----
for f in "$CORPUS"/pprof-heap/local_tcmalloc_hp.0001.heap "$ROOT"/tests/fixtures/small-v2.oemp; do
  [ -f "$f" ] || continue
  s=$(stat -c %s "$f")
  mount_cut "$f" $((s / 2 + 3)) 0
  mount_cut "$f" 40 0
done
