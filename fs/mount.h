/*
 * mount.h - a mount: the dumps it serves, and how their snapshots are
 * numbered.  (One dump is an hf_dump, model.h; the mount of one or several
 * is an hf_mount.)
 *
 * `heapfs before.hprof after.hprof MNT` mounts two dumps: their snapshots
 * follow one another (snapshots 1, 2, ... in the order the files were
 * given; a file holding several heap dumps gives several).  A series of
 * one format that merges its files (gperftools, pprof) is one dump.  The
 * tree (tree.h) asks here which dump, and which of its snapshots, a
 * snapshot of the mount is, and renders the mount-wide files (info,
 * errors, .stats) of every dump.
 *
 * Snapshot numbers: dump k's snapshot numbered N is named B + N, where B
 * is the name of the last snapshot of the dumps before it (0 for the
 * first dump), so one dump keeps its own numbers and names keep ascending.
 *
 * Ownership: an hf_mount owns its dumps (unless made with own false).
 * Thread-safe: everything may run on several threads; the string sets of
 * strings-new are made once, under a lock, on first use.  No FUSE header.
 */
#ifndef HF_MOUNT_H
#define HF_MOUNT_H

#include "decoders/core/compare.h"
#include "decoders/core/model.h"
#include "fs/inode.h"

typedef struct hf_mount hf_mount;

/* Opens the files of one mount (hf_open_files).  NULL with *err set,
 * naming the file, when one cannot be decoded. */
hf_mount *hf_mount_open(char *const *paths, int n, const hf_open_opts *opts, GError **err);
/* The mount of n >= 1 open dumps (the array is copied); with `own`,
 * hf_mount_free closes them. */
hf_mount *hf_mount_new(hf_dump *const *d, uint32_t n, bool own);
void hf_mount_free(hf_mount *m);

uint32_t hf_mount_n_dumps(const hf_mount *m);
hf_dump *hf_mount_dump(const hf_mount *m, uint32_t k);
/* Snapshots of all dumps (at most inode.h's HF_SNAP_MAX, one fewer with
 * several dumps: their traces and threads number snapshot s as s + 1). */
uint32_t hf_mount_n_snaps(const hf_mount *m);
/* Which dump snapshot s (< n_snaps) is, and its index there. */
hf_snapref hf_mount_at(const hf_mount *m, uint32_t s);
/* The directory name of snapshot s. */
uint64_t hf_mount_snap_number(const hf_mount *m, uint32_t s);
/* Where traces/ and threads/ come from: with one dump, the mount's
 * (tsnap 0) are the dump's; with several, snapshot tsnap - 1's dump's.
 * {NULL, 0} for any other tsnap. */
hf_snapref hf_mount_tt(const hf_mount *m, uint32_t tsnap);

/* The files comparing snapshot s with s - 1 (compare.h), by index. */
enum { HF_CMP_GROWTH, HF_CMP_GROWTH_RETAINED, HF_CMP_STRINGS_NEW, HF_CMP_FLAME_DIFF, HF_CMP_N };
extern const char *const hf_mount_compare_names[HF_CMP_N];
bool hf_mount_has_compare(hf_mount *m, uint32_t s, uint64_t which);
uint64_t hf_mount_compare(hf_mount *m, uint32_t s, uint64_t which, uint64_t first, GString *out,
                          size_t budget);

/* MOUNT/growth.svg (compare.h hf_growth_chart) of all snapshots, and
 * whether the mount has it (two snapshots or more, each with a tally). */
bool hf_mount_has_growth_chart(hf_mount *m);
uint64_t hf_mount_growth_chart(hf_mount *m, uint64_t first, GString *out, size_t budget);

/* MOUNT/info: the one dump's info; for several, the list of files, then
 * each file's info under a "== PATH ==" line.  Render protocol (model.h). */
uint64_t hf_mount_info(hf_mount *m, uint64_t first, GString *out, size_t budget);
/* MOUNT/errors: one problem a line (with several dumps "PATH: problem"). */
uint64_t hf_mount_errors(hf_mount *m, uint64_t first, GString *out, size_t budget);
/* The dumps' lines of MOUNT/.stats (hf_dump_ops.status). */
void hf_mount_status(hf_mount *m, GString *out);

#endif
