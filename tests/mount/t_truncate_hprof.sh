#!/usr/bin/env bash
# t_truncate_hprof.sh - the HPROF binary files of tests/corpus/hprof/ but
# the Android one (t_truncate_android.sh: it alone takes as long as these)
# walked whole and cut at 240 offsets each (tests/mount/truncate.sh says
# what is checked), then four cuts of one of them mounted for real: the
# first 20 bytes, and three cuts inside a record, which must be reported.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/truncate.sh"

mapfile -t files < <(corpus_files "$CORPUS/hprof" | grep -v '/leakcanary_')
truncate_files "${files[@]}"
mount_cuts "$CORPUS/hprof/slurp_hprof-64.bin"
