#!/usr/bin/env bash
# t_truncate_hprof.sh - the HPROF binary files of tests/corpus/hprof/ walked
# whole and cut at 240 offsets each (tests/mount/truncate.sh says what is
# checked), then four cuts of two of them mounted for real: the first 20
# bytes, and three cuts inside a record, which must be reported.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/truncate.sh"

mapfile -t files < <(corpus_files "$CORPUS/hprof")
truncate_files "${files[@]}"

for f in "$CORPUS/hprof/slurp_hprof-64.bin" "$CORPUS/hprof/leakcanary_leak_service_binder.hprof"; do
  [ -f "$f" ] || continue
  python3 "$ROOT/tests/fuzz/cuts.py" "$f" "$NCUTS" >"$TESTTMP/cuts"
  must=($(sed -n 2p "$TESTTMP/cuts" | tr ',' ' '))
  nm=${#must[@]}
  mount_cut "$f" 20 0
  mount_cut "$f" "${must[$((nm / 3))]}" 1
  mount_cut "$f" "${must[$((nm * 2 / 3))]}" 1
  mount_cut "$f" "${must[$((nm - 1))]}" 1
done
