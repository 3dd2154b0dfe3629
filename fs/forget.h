/*
 * forget.h - heapfs --forget DUMP...: removes what heapfs keeps for each
 * dump (index and retained-size results files, beside it and in the cache
 * directory: decoders/core/keepdir.h finds them), and says what it removed.
 *
 * No FUSE (compiled into libhftree.a).  Single-threaded.
 */
#ifndef HF_FORGET_H
#define HF_FORGET_H

#include <stdio.h>

/* For each path: "removed BYTES PATH" per file removed and a total line,
 * or "PATH: nothing kept", on out.  A path that is no dump heapfs would
 * open (or that does not exist and has nothing kept), and a file that
 * could not be removed (a running mount maps it), get "heapfs: WHAT: why"
 * on err.  0 when every path was a dump and all its files went, else 1. */
int hf_forget_run(char *const *paths, int n, FILE *out, FILE *err);

#endif
