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

/* Where a mount keeps the index file of paths[i], the i-th of the n
 * files m was opened from, and its retained-sizes results, under -o
 * index=index_opt (NULL: the default), appended to out in one line without
 * its newline: "PATH and .retained-* beside it (...)", with why when the
 * file's directory is not writable, or "none (...)".  Every file of a
 * series has its own.  False, appending
 * nothing, for a format that keeps none. */
bool hf_check_index_files(const hf_mount *m, char *const *paths, int n, int i,
                          const char *index_opt, GString *out);

/* The kept files of the n dumps at paths (decoders/core/keepdir.h), one
 * line each, "kept: BYTES PATH" ("kept: nothing for DUMP" when none), then
 * the cache directory's line: "cache directory: DIR: N files, B bytes;
 * bound M bytes (why)". */
void hf_check_kept(const char *const *paths, int n, GString *out);

/* Writes MOUNT/info, the indexing figures, where a mount would keep the
 * index files of each of the n files m was opened from (-o
 * index=index_opt) and what is kept now (hf_check_kept), then "problems:"
 * and one indented line per problem when there are any.  Returns
 * HF_CHECK_OK. */
int hf_check_report(hf_mount *m, char *const *paths, int n, const char *index_opt, FILE *out);

/* --check: open (never reading or writing an index file, whatever
 * opts->index says), report to out, close.  HF_CHECK_OK or
 * HF_CHECK_UNDECODED. */
int hf_check_run(char *const *paths, int n, const hf_open_opts *opts, FILE *out, FILE *err);

#endif
