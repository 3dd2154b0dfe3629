/*
 * inode.h - what a node of the mounted tree is, and its inode number.
 *
 * Inode numbers are computed from what a node is, never handed out in
 * lookup order, so the same dump always gives the same numbers and any
 * number can be answered at any time (after the kernel forgets an inode,
 * after a restart of the daemon): that is what NFS export needs.
 *
 * Layout of a 64-bit inode number (bit 63 is always 0, so cache keys with
 * bit 63 set can never collide with a view's):
 *
 *     62..58  kind   (hf_node_kind, 5 bits: 32 kinds)
 *     57..46  snap   snapshot index (12 bits: 4096 snapshots)
 *     45..15  a      class, object, trace, thread or file index (31 bits)
 *     14..0   b      file or link of a node, or slot (15 bits: 32768 entries)
 *
 * A kind is a shape of node, not one file: files that are alike share a
 * kind and a or b says which.  The files at the root (README, info,
 * errors, .stats, growth.svg) are HF_N_ROOT_FILE with b = hf_root_file;
 * a snapshot's files are HF_N_SNAP_FILE with a = the row of the
 * decoder's snapshot table (model.h hf_parts), and its comparison files
 * HF_N_COMPARE with a = which (mount.h HF_CMP_*); a thread's, class's
 * and object's files, links and link directories are rows of their
 * tables in b.  So a new view costs no kind: a decoder's view is a row
 * of its parts table, a file at the root a value of hf_root_file (and a
 * row in kinds.c).  26 of the 32 kinds are used, 6 are free; a new kind
 * is only for a new shape (a new sort of directory).
 *
 * An entry of an object's link directory (refs/, referrers/, ...) has the
 * directory in its kind (HF_N_OBJ_ENTRY + directory), so all 15 bits of b
 * are its slot.
 *
 * Traces and threads (HF_N_TRACES .. HF_N_THREAD_FILE) belong to the mount
 * (snap 0) when it has one dump; with several dumps they are parts of each
 * snapshot, and snap is the snapshot's index + 1.
 *
 * The root is FUSE_ROOT_ID (1), which no other node can encode to since
 * every other kind is >= 1.  Limits that follow: 2^31 objects per
 * snapshot, 4096 snapshots, a link directory lists its first 32768 slots
 * (refs/: every element still shows in `fields`).  Numbers are what a
 * node is, so they hold from one mount to the next of the same heapfs;
 * the root files' numbers changed when they became one kind (NFS clients
 * of an older heapfs remount).
 *
 * What the tree does with a node of each kind is that kind's row of the
 * kind table (kinds.h), and for HF_N_ROOT_FILE the row of its b: a new
 * kind is a value here and a row there.
 *
 * Pure functions; thread-safe.  No FUSE header.
 */
#ifndef HF_INODE_H
#define HF_INODE_H

#include <stdbool.h>
#include <stdint.h>

typedef enum {
    HF_N_ROOT = 0,
    HF_N_ROOT_FILE, /* b = which (hf_root_file): README, info, ... */
    HF_N_SNAPSHOTS,
    HF_N_LATEST, /* symlink */
    HF_N_TRACES,
    HF_N_TRACE, /* a = trace */
    HF_N_THREADS,
    HF_N_THREAD,      /* a = thread */
    HF_N_THREAD_FILE, /* a = thread, b = file (hf_parts tables, model.h) */
    HF_N_SNAP,        /* snap */
    HF_N_SNAP_FILE,   /* a = file */
    HF_N_SNAP_SUBDIR, /* a = the first file under that directory */
    HF_N_COMPARE,     /* a = growth, ..., flame-diff.svg (mount.h HF_CMP_*) */
    HF_N_CLASSES,
    HF_N_CLASS,      /* a = class */
    HF_N_CLASS_FILE, /* a = class, b = file */
    HF_N_CLASS_LINK, /* a = class, b = link; symlink */
    HF_N_OBJECTS,
    HF_N_OBJECT,     /* a = object */
    HF_N_OBJ_FILE,   /* a = object, b = file */
    HF_N_OBJ_LINK,   /* a = object, b = link; symlink */
    HF_N_OBJ_DIR,    /* a = object, b = link directory */
    HF_N_OBJ_ENTRY,  /* a = object, b = slot; symlink in link directory 0 ... */
    HF_N_OBJ_ENTRY_LAST = HF_N_OBJ_ENTRY + 3, /* ... to 3 (HF_DIRS_MAX) */
    HF_N_KINDS
} hf_node_kind;

/* The files at the root, b of an HF_N_ROOT_FILE node (kinds.c has a row
 * for each); a new one is a value here, before HF_RF_N. */
typedef enum {
    HF_RF_README,
    HF_RF_INFO,
    HF_RF_ERRORS,
    HF_RF_STATS,      /* .stats: the cache counters (not listed, not cached) */
    HF_RF_GROWTH_SVG, /* growth.svg: every snapshot charted */
    HF_RF_N
} hf_root_file;

#define HF_KIND_BITS 5
_Static_assert(HF_N_KINDS <= 1 << HF_KIND_BITS, "the kind fits its 5 bits");

#define HF_SNAP_MAX (1u << 12)
#define HF_A_MAX (1ull << 31)
#define HF_B_MAX (1u << 15)

typedef struct {
    hf_node_kind kind;
    uint32_t snap;
    uint64_t a;
    uint32_t b;
} hf_node;

uint64_t hf_ino_encode(const hf_node *n);
/* False when ino cannot be any node's number. */
bool hf_ino_decode(uint64_t ino, hf_node *n);
hf_node hf_node_make(hf_node_kind kind, uint32_t snap, uint64_t a, uint32_t b);
/* Field-wise equality (the struct has padding: never memcmp it). */
bool hf_node_equal(const hf_node *x, const hf_node *y);

#endif
