/*
 * fuse_ops.h - the libfuse3 low-level operations of heapfs.
 *
 * Every operation decodes its inode number (inode.h), asks the tree, and
 * sends exactly one reply.  Nothing is remembered per inode, so forget is a
 * no-op and any inode can be answered after the kernel dropped it (NFS).
 * Everything that would change something fails with EROFS.
 *
 * The hf_fs passed as userdata is owned by main(); the operations only
 * read it.  Thread-safe: requests run on several threads.
 */
#ifndef HF_FUSE_OPS_H
#define HF_FUSE_OPS_H

#define FUSE_USE_VERSION 312
#include <fuse_lowlevel.h>

#include "fs/tree.h"

#include <sys/stat.h>

typedef struct {
    hf_tree *tree;
    struct stat dump_st; /* owner and times of the (first) dump file; modes:
                            what every dump file grants */
    uint64_t generation; /* same for every node; changes when a dump does */
    double timeout;      /* entry and attribute timeout, seconds */
    uint32_t n_files;    /* the dump files, re-checked at each open: */
    char **paths;        /* absolute paths */
    struct stat *file_st; /* as they were at mount */
} hf_fs;

extern const struct fuse_lowlevel_ops hf_fuse_ops;

#endif
