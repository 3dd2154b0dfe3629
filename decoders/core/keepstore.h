/*
 * keepstore.h - a decoder's index file over its life (keepfile.h is the
 * container): where it may be and the dump's key at open, mapping it back
 * (the decoder's loader fills the dump from it), the .stats line saying
 * which of "loaded", "built" and "written" happened and why a file found
 * was not used, and writing it once the mount is live.  HPROF and V8 use
 * it; what goes in the sections is theirs (hprof/store.c, v8/store.c).
 *
 * Ownership: the store owns its paths, the reader (mapped while the dump
 * lives: the decoder's arrays point into it) and its strings.  Thread
 * safety: begin, load and built run inside open; save runs once on the
 * after-mount thread while status() is read by others (status is behind
 * the lock).
 */
#ifndef HF_KEEPSTORE_H
#define HF_KEEPSTORE_H

#include "decoders/core/keepfile.h"
#include "decoders/core/model.h"

typedef struct {
    const char *format; /* the decoder's name, part of the key */
    GPtrArray *paths;   /* where to look and write; empty: -o index=none */
    hf_keepkey key;     /* of the dump as it was opened */
    bool keyed;
    hf_keepr *r;        /* the file the index came from: mapped while the dump lives */
    char *why;          /* a file that was there but not used: why */
    double seconds;     /* indexing took, when built */
    GMutex lock;        /* guards status, which the writer thread replaces
                           (zero-filled: no init, as a static GMutex) */
    char *status;       /* the .stats line */
} hf_keepstore;

/* Where the file may be and the dump's key (opts NULL or -o index=none:
 * nowhere); false, with *err, when -o index= names a file that is not an
 * index file and must not be replaced. */
bool hf_keepstore_begin(hf_keepstore *st, const char *format, const char *path,
                        const uint8_t *data, size_t size, const hf_open_opts *opts,
                        GError **err);
void hf_keepstore_clear(hf_keepstore *st);

/* Fills the decoder's dump from the file r; false when anything is
 * missing or inconsistent (after undoing what points into r). */
typedef bool (*hf_keepstore_load_fn)(const hf_keepr *r, void *ud);
/* Opens a valid file for the key and gives it to load: true when it took
 * it (st->r stays mapped); else the reason goes to the .stats line. */
bool hf_keepstore_load(hf_keepstore *st, hf_keepstore_load_fn load, void *ud);
/* After indexing the dump itself (seconds: it took): the .stats line. */
void hf_keepstore_built(hf_keepstore *st, double seconds);

/* Adds the decoder's sections to w. */
typedef void (*hf_keepstore_fill_fn)(hf_keepw *w, void *ud);
/* Writes the file (hf_dump_ops.after_mount) unless it was loaded from one
 * or none is wanted, or the dump (path, data, size) changed since open.
 * Returns the id of the file written (results files are keyed to it), 0
 * when none was. */
uint64_t hf_keepstore_save(hf_keepstore *st, const char *path, const uint8_t *data,
                           size_t size, hf_keepstore_fill_fn fill, void *ud);
/* The .stats line. */
void hf_keepstore_status(hf_keepstore *st, GString *out);

#endif
