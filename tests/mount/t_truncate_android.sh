#!/usr/bin/env bash
# t_truncate_android.sh - the Android HPROF dump of tests/corpus/hprof/
# walked whole and cut at 240 offsets (tests/mount/truncate.sh says what
# is checked), then four cuts mounted for real: the first 20 bytes, and
# three cuts inside a record, which must be reported.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/truncate.sh"

f=$CORPUS/hprof/leakcanary_leak_service_binder.hprof
truncate_files "$f"
mount_cuts "$f"
