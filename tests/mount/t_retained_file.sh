#!/usr/bin/env bash
# t_retained_file.sh - t_retained.sh again with the retained sizes' working
# arrays in mapped files (-o retained_mem=file, docs/retained.md), the mode a
# dump larger than memory gets: the same answers, VisualVM's included.
RETAINED_MEM=file exec bash "$(dirname "$0")/t_retained.sh"
