/*
 * tree.h - the mounted tree (README.md), computed from the model.
 *
 * Every question the FUSE front end asks (what is this node, what is in
 * this directory, where does this link point, what bytes are in this file)
 * is answered here from a node (inode.h) and the dump's model ops, as the
 * row of the node's kind in the kind table says (kinds.h).  Nothing is
 * stored per node: a node is its inode number, so any inode can be
 * answered at any time, in any order.
 *
 * Ownership: the tree borrows the mount and the cache; the caller frees
 * them after hf_tree_free.  Thread-safe: all functions may run on several
 * threads at once.  No FUSE header, so tests drive it without a mount.
 */
#ifndef HF_TREE_H
#define HF_TREE_H

#include "cache/cache.h"
#include "decoders/core/model.h"
#include "fs/mount.h"
#include "fs/inode.h"

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

typedef enum { HF_T_DIR, HF_T_FILE, HF_T_LINK } hf_type;

typedef struct hf_tree hf_tree;

hf_tree *hf_tree_new(hf_mount *m, hf_cache *cache);
void hf_tree_free(hf_tree *t);
hf_mount *hf_tree_mount(hf_tree *t);

hf_type hf_tree_type(const hf_node *n);
/* The dump, and its snapshot index, node n's parts come from: traces and
 * threads their dump's (mount.h hf_mount_tt), a node in a snapshot the
 * snapshot's; {NULL, 0} for the mount's own nodes and for a snapshot that
 * does not exist. */
hf_snapref hf_tree_source(hf_tree *t, const hf_node *n);
/* True when n names a node that exists in this dump. */
bool hf_tree_valid(hf_tree *t, const hf_node *n);
/* The directory holding n (the root for the root; a snapshot file in a
 * subdirectory: the snapshot, as only directories are asked for ".."). */
hf_node hf_tree_parent(const hf_node *n);
/* Child `name` of dir ("." of any node is the node itself: NFS handles of
 * files come back as LOOKUP(node, "."); ".." of a directory is its parent);
 * 0 or -ENOENT / -ENOTDIR. */
int hf_tree_lookup(hf_tree *t, const hf_node *dir, const char *name, hf_node *out);

/* Called for each entry; return false to stop (buffer full).  `next` is the
 * offset to resume after this entry. */
typedef bool (*hf_dir_emit)(void *ctx, const char *name, const hf_node *n, uint64_t next);
/* Emit the entries of dir from offset `off` (0 = start, with "." and "..").
 * Streams: big directories are listed without building a list. */
int hf_tree_readdir(hf_tree *t, const hf_node *dir, uint64_t off, hf_dir_emit emit, void *ctx);

/* Target of a symlink node, appended to out; 0 or -EINVAL. */
int hf_tree_readlink(hf_tree *t, const hf_node *n, GString *out);
/* Exact size of a file (rendered once to learn it) or link. */
uint64_t hf_tree_size(hf_tree *t, const hf_node *n);
size_t hf_tree_read(hf_tree *t, const hf_node *n, char *buf, size_t size, uint64_t off);
/* Files whose contents change while mounted (.stats): never cached. */
bool hf_tree_volatile(const hf_node *n);
/* False for the files that report on heapfs itself (.stats), which stay
 * readable after the dump changed. */
bool hf_tree_reads_dump(const hf_node *n);

#endif
