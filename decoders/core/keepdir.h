/*
 * keepdir.h - where kept files (keepfile.h: index files and retained-size
 * results) are named, found and removed: the cache directory
 * $XDG_CACHE_HOME/heapfs, kept from growing without end, and what
 * `heapfs --forget DUMP` removes.
 *
 * Names.  A kept file is named DUMP.heapfs-index[.retained-LEVEL.N] beside
 * the dump, or STEM.heapfs-index[.retained-LEVEL.N] in the cache
 * directory, STEM being BASENAME-HASH (HASH: the first 16 hex digits of
 * the SHA-256 of the dump's absolute path, as given: symbolic links are
 * not resolved).  Its temporaries are NAME.XXXXXX.  Nothing here touches a
 * file of any other name (other modules' files in the cache directory are
 * safe), nor a file that is not this user's, nor one that does not begin
 * as an index file does.
 *
 * Locks.  A reader holds a shared flock(2) on a kept file for as long as
 * it maps it (hf_keepr), a writer an exclusive one on its temporary until
 * it renames it; hf_keepdir_remove takes an exclusive one, without
 * waiting, before it unlinks, so a file another daemon maps or writes is
 * never removed, on this machine or (flock over NFS) another.
 *
 * The bound.  When a daemon writes a file into the cache directory
 * (hf_keepw_write), hf_keepdir_trim removes there: temporaries of dead
 * writers (unchanged for 10 minutes, unlocked); files whose dump is gone
 * (the path recorded in the file's header no longer exists, or names a
 * file that is not the one keyed: another inode, size, mtime or ctime, so
 * the file could never be used again); then, while the files add up to
 * more than the bound, the least recently used.  "Used" is the later of
 * the file's atime and mtime; hf_keepr_open sets the atime of a file it
 * opens (futimens), since relatime updates it once a day at most and
 * noatime never; peeking at a header here (a trim, --forget) leaves it
 * alone (O_NOATIME), else a trim's reads would mark every file it looks
 * at as just used.  The file just written is never removed, nor a locked
 * one, so the directory can exceed the bound by those.
 *
 * Thread safety: hf_keepdir_set_max once, before any thread writes a kept
 * file; everything else may run on any thread, and in several processes
 * at once (the locks above).
 */
#ifndef HF_KEEPDIR_H
#define HF_KEEPDIR_H

#include "decoders/core/keepfile.h"

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#define HF_KEEP_SUFFIX ".heapfs-index"
/* The default bound: this share of the file system holding the directory. */
#define HF_KEEPDIR_DEFAULT_PERCENT 10u

/* ---- names ---- */

/* The cache directory, $XDG_CACHE_HOME/heapfs (to g_free). */
char *hf_keepdir_path(void);
/* BASENAME-HASH for the dump at absolute path abs (to g_free). */
char *hf_keepdir_stem(const char *abs);
/* Where name's ".heapfs-index[.retained-LEVEL.N]" ending begins; NULL
 * when name is no kept file's. */
const char *hf_keepdir_suffix(const char *name);
/* Whether name is a kept file's, and one of stem (a dump's absolute path,
 * or its hf_keepdir_stem). */
bool hf_keepdir_is_kept(const char *name);
bool hf_keepdir_is_kept_of(const char *name, const char *stem);

/* ---- removing ---- */

/* Unlinks path unless a reader or writer holds its lock: 0, EBUSY when
 * one does, EAGAIN when another file was renamed over it meanwhile, or
 * errno. */
int hf_keepdir_remove(const char *path);
/* Removes in dir the temporaries of base (a file name; NULL: of any kept
 * file) that a killed writer left: regular files of this user unchanged
 * for 10 minutes and unlocked. */
void hf_keepdir_remove_stale_temps(const char *dir, const char *base);

/* ---- the bound ---- */

/* The bound of the cache directory: `bytes`, or when percent is non-zero,
 * that share of its file system (-o index_max=). */
void hf_keepdir_set_max(uint64_t bytes, unsigned percent);
/* The bound for dir now, in bytes (UINT64_MAX when its file system's size
 * is unknown); *percent: the share it is of that, 0 for a size in bytes. */
uint64_t hf_keepdir_max(const char *dir, unsigned *percent);

typedef struct {
    unsigned gone, evicted; /* files removed: their dump gone; least recently used */
    uint64_t freed, left;   /* bytes removed; bytes of kept files left */
    unsigned busy;          /* files over the bound that were locked */
} hf_trim;

/* The bytes of the kept files in dir, and how many (*files). */
uint64_t hf_keepdir_bytes(const char *dir, unsigned *files);
/* Cleans dir as above; just_written (NULL: none) is never removed.
 * Counts go to *out when not NULL. */
void hf_keepdir_trim(const char *dir, const char *just_written, hf_trim *out);

/* ---- one dump's files ---- */

typedef struct {
    char *path;
    uint64_t bytes;
} hf_kept;

/* The kept files of this user for the dump at path (which need not exist
 * any more), beside it and in the cache directory, by path: those named
 * after its absolute path (beside: DUMP.heapfs-index...; cache: its
 * stem), those whose header records that path, and, when the dump exists,
 * those keyed to its device and inode (written under another name of it,
 * or before it changed).  A GArray of hf_kept, sorted by path; free with
 * hf_keepdir_kept_free. */
GArray *hf_keepdir_find(const char *path);
void hf_keepdir_kept_free(GArray *kept);

#endif
