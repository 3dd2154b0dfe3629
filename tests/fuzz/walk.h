/*
 * walk.h - open a dump (a file, or bytes in memory) and visit every node of
 * its tree through fs/tree.h, exactly as a mount would serve it, without
 * FUSE: lookup, readdir, readlink, size and read of every file.
 *
 * Used by the libFuzzer targets (fuzz_target.c) and by the hf_walk driver
 * (hf_walk.c) that t_truncate.sh runs on cut corpus files.  Besides not
 * crashing, the walk checks the tree's contracts and counts a violation for
 * each one broken:
 *   - every name listed by readdir looks up to the same node, and the node
 *     is valid (hf_tree_valid) and survives an inode encode/decode;
 *   - names are non-empty, hold no '/', are not "." or "..", and fit
 *     HF_NAME_MAX;
 *   - readdir resumed from an entry's offset continues with the next entry;
 *   - the size of a file (stat) is exactly the number of bytes read, and a
 *     read at any offset gives the same bytes as the sequential read;
 *   - a link's size is the length of its target;
 *   - nonsense lookups (names and indices that cannot exist) fail cleanly.
 * Notes (counted apart, not violations): a NUL byte in a text view; a name
 * listed twice in one directory (among the entries visited; a dump with a
 * repeated object id, which the decoder reports in `errors`).
 * Directories with many entries (objects/, classes/, traces/, refs/ ...) are
 * visited up to a cap, so a huge dump is walked in bounded time.
 *
 * Ownership: the caller owns the dump it passes and the stats it gets.
 * Not thread-safe (one walk at a time per stats); the tree underneath is.
 */
#ifndef HF_FUZZ_WALK_H
#define HF_FUZZ_WALK_H

#include "decoders/core/model.h"
#include "fs/mount.h"

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct {
    uint64_t max_children;   /* entries visited per directory (0: all) */
    uint64_t max_file_bytes; /* bytes read per file; bigger files are read
                                at the start and at the end only (0: all) */
    uint64_t max_nodes;      /* nodes visited in all (0: no cap) */
    size_t cache_bytes;      /* bound of the view cache for this walk */
} hf_walk_opts;

typedef struct {
    uint64_t dirs, files, links, entries, bytes;
    uint64_t digest;     /* FNV-1a over every name, link target and byte read */
    uint64_t violations; /* contracts broken */
    char first[512];     /* the first one: "path: what" */
    uint64_t notes;      /* things a person would trip on that break no
                            contract of the tree (a NUL byte in a text view) */
    char first_note[512];
    bool capped;         /* some directory or file was not visited whole */
} hf_walk_stats;

/* Defaults: 200 children per directory, 1 MiB per file, no node cap,
 * 64 KiB cache (so views bigger than 64 KiB are served from checkpoints). */
void hf_walk_opts_default(hf_walk_opts *o);

/* Walk the whole tree of d.  Returns the violation count. */
uint64_t hf_walk(hf_dump *d, const hf_walk_opts *o, hf_walk_stats *st);
/* The same over the tree of several dumps mounted together (fs/mount.h). */
uint64_t hf_walk_mount(hf_mount *m, const hf_walk_opts *o, hf_walk_stats *st);

/* The registered decoder of that format name, NULL when there is none. */
const hf_decoder *hf_walk_decoder(const char *format);

/*
 * Open bytes in memory as a dump, as hf_open would open a file holding
 * them: each buffer goes to a memfd ("/proc/self/fd/N" is the path the
 * decoder sees).  With dec NULL the format is detected by the registry
 * (hf_open / hf_open_files); with dec set, the bytes must pass dec's own
 * detect() (else NULL with *err set) and dec opens them.  n > 1 opens a
 * series (dec->open_series, or hf_open_files, which must give one dump).
 * Returns the dump or NULL with *err set.  The memfds are closed before
 * returning, except the first one when keep_fd is not NULL: it is stored
 * there (the caller closes it), so the caller can change the bytes under
 * the dump's mapping.
 */
hf_dump *hf_walk_open_buffers(const uint8_t *const *data, const size_t *len, int n,
                              const hf_decoder *dec, int *keep_fd, GError **err);
/* Closes a dump hf_walk_open_buffers opened.  While it is open, the pages
 * after its first file's mapping (with dec given) are unreadable, so a
 * read past the file's end faults even where the process happens to have
 * other memory mapped next. */
void hf_walk_close(hf_dump *d);

#endif
