/*
 * check.h - heapfs --check: decode dumps and report, with no FUSE at all.
 *
 * The same decoding a mount does (hf_mount_open), driven from plain C: a
 * file that cannot be decoded gives one line on stderr.  This header and
 * check.c include no FUSE header; the Makefile compiles them without
 * FUSE's include path (they go into libhftree.a).
 */
#ifndef HF_CHECK_H
#define HF_CHECK_H

#include "fs/mount.h"

#include <stdio.h>

/* Exit statuses of heapfs --check (documented in heapfs(1)). */
enum {
    HF_CHECK_OK = 0,       /* decoded; problems, if any, were listed */
    HF_CHECK_UNDECODED = 1 /* a file could not be opened or decoded */
};

/* Opens the n files of one mount (mount.h).  NULL after printing
 * "heapfs: why" to err when they cannot be opened or decoded. */
hf_mount *hf_check_open(char *const *paths, int n, const hf_open_opts *opts, FILE *err);

/* Writes MOUNT/info, then "problems:" and one indented line per problem
 * when there are any.  Returns HF_CHECK_OK. */
int hf_check_report(hf_mount *m, FILE *out);

/* --check: open, report to out, close.  HF_CHECK_OK or HF_CHECK_UNDECODED. */
int hf_check_run(char *const *paths, int n, const hf_open_opts *opts, FILE *out, FILE *err);

#endif
