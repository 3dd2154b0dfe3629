#!/usr/bin/env bash
# t_truncate_bmd.sh - the BMD files of tests/corpus/bmd/ walked whole and cut
# at 240 offsets each (tests/mount/truncate.sh says what is checked).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/truncate.sh"

mapfile -t files < <(corpus_files "$CORPUS/bmd")
truncate_files "${files[@]}"
