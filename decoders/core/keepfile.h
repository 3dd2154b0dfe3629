/*
 * keepfile.h - a keepfile: what a decoder built at open, kept on disk so
 * that the next open of the same dump maps it instead of computing it
 * again.  The index file (heapfs -o index=..., docs/architecture.md "The
 * index file") is one; a snapshot's dominator results are another.
 *
 * This is the container only: where the file lives, the key that ties it
 * to one dump, the checksum, writing it atomically and mapping it back.
 * What goes in the sections is the decoder's (decoders/heap/persist.c,
 * decoders/heap/graphfile.c, decoders/hprof/store.c).
 *
 * A file is a header (magic, format version, byte order, its random id,
 * the key, a SHA-256 checksum), a table of sections {id, offset, length}, then the
 * sections, each at an offset that is a multiple of 64, so arrays of
 * integers are used in place from the mapping.  The checksum (SHA-256)
 * covers the header, the table, every section whole, except the big
 * arrays used in place (hf_keepw_add_big): of those, the first and last
 * 4 KiB and 64 blocks of 4 KiB spread over them, so that checking costs
 * the same for any dump size.  A damaged byte inside a big array may go
 * unnoticed: the readers of those arrays (locators, class indices) check
 * every value they use.  Big arrays the reader relies on whole (the
 * dominator results) are checksummed whole with zlib's CRC-32
 * (hf_keepw_add_crc), which runs at some 3 GB/s here.
 *
 * Keyed by the dump's size, mtime and ctime (ns), inode and device, a
 * SHA-256 of its first and last 4 KiB and of 64 blocks of 4 KiB spread
 * over it, the decoder's name and a "variant" (options that change the
 * contents); a
 * results file also by the id of the index file it was computed from
 * (each file written gets a random one), so an index rebuilt, after
 * damage say, makes the results computed from the old one stale.  A
 * file whose key, version, size or checksum does not match, that is not a
 * regular file owned by this user, or that others may write, is ignored.
 * What is not a regular file (a FIFO, a symbolic link) is never opened:
 * open() on a FIFO would block until someone writes to it.
 *
 * Written to a unique temporary name (mkstemp) in the target's directory,
 * then renamed over the target: readers only ever open complete files, and
 * two writers at once each rename a complete file (the last one stays).
 * Only an index file or an empty file is ever replaced
 * (hf_keep_not_replaceable), and hf_keepr_open removes what killed writers
 * left.  The header also records the dump's path (outside the checksum),
 * so that the cache directory's cleanup finds files whose dump is gone.
 * Where files are named, locked while in use, and removed: keepdir.h;
 * the header's layout: keepfmt.h.
 *
 * Ownership: an hf_keepr owns its mapping; pointers from hf_keepr_section stay
 * valid until hf_keepr_free.  An hf_keepw borrows the data given to
 * hf_keepw_add until hf_keepw_write returns.  Thread safety: none needed; each
 * object is used by one thread (readers of the mapped bytes may be many).
 */
#ifndef HF_KEEPFILE_H
#define HF_KEEPFILE_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct {
    uint64_t size, mtime_ns, ino, dev;
    uint64_t ctime_ns;  /* changes on any write, even one whose mtime is put back */
    uint8_t sample[32]; /* SHA-256 of the sampled blocks of the dump */
    char format[16];    /* decoder name, NUL padded */
    uint64_t variant;   /* options that change what is stored */
    uint64_t source;    /* a results file: the id (hf_keepr_id, hf_keepw_id) of the index
                           file its contents were computed from, 0 for none */
} hf_keepkey;

/* The key of the dump at path whose mapped contents are data[0..size).
 * False when the file cannot be stat()ed. */
bool hf_keep_key(hf_keepkey *k, const char *path, const uint8_t *data, size_t size,
                 const char *format, uint64_t variant);

/* The files to try, in order, for the dump at path under -o index=opt
 * (NULL: the default), with `suffix` appended ("" for the index,
 * ".retained-strong" for a second file): opt "none" gives none; a path
 * gives that path; the default gives DUMP.heapfs-index beside the dump,
 * then $XDG_CACHE_HOME/heapfs/BASENAME-HASH.heapfs-index (HASH: of the
 * dump's absolute path).  A GPtrArray of char *, freed by the caller. */
GPtrArray *hf_keep_candidates(const char *dump_path, const char *opt, const char *suffix);
/* Which of those hf_keepw_write will write: the first whose directory this
 * user may write, else the last (the cache directory, made when written);
 * NULL for none (-o index=none).  Points into paths. */
const char *hf_keep_place(const GPtrArray *paths);

/* Why the file at path must not be replaced by an index file (to g_free),
 * NULL when it may: it does not exist, is empty, or is a regular file that
 * begins as an index file does and is not the dump key was made for (under
 * another name or hard link either: device and inode are compared).  So
 * -o index=DUMP never destroys the dump, nor a planted FIFO or symbolic
 * link anything. */
char *hf_keep_not_replaceable(const char *path, const hf_keepkey *key);

/* ---- reading ---- */

typedef struct hf_keepr hf_keepr;

/* The first of `paths` that is a valid index file for key; NULL (with
 * *why, for the first file that exists, when why is non-NULL) otherwise.
 * First removes what writers killed before their rename left beside each
 * path: PATH.XXXXXX exactly (six letters or digits), a regular file owned
 * by this user, unchanged for 10 minutes and unlocked.  The file opened is
 * held with a shared lock until hf_keepr_free, and its atime set to now
 * (the cache directory's bound removes the least recently used first). */
hf_keepr *hf_keepr_open(const hf_keepkey *key, GPtrArray *paths, char **why);
void hf_keepr_free(hf_keepr *r);
const char *hf_keepr_path(const hf_keepr *r);
/* The file's id: random, given when it was written, never 0. */
uint64_t hf_keepr_id(const hf_keepr *r);
const uint8_t *hf_keepr_data(const hf_keepr *r, size_t *len);
/* Section id: its bytes and length, NULL when the file has none. */
const uint8_t *hf_keepr_section(const hf_keepr *r, uint32_t id, uint64_t *len);

/* A bounds-checked cursor over a section: every read past the end returns
 * zeros and clears ok, so a parser checks ok once at the end. */
typedef struct {
    const uint8_t *p, *end;
    bool ok;
} hf_keepcur;
hf_keepcur hf_keepcur_of(const hf_keepr *r, uint32_t id);
uint8_t hf_keepcur_u8(hf_keepcur *c);
uint32_t hf_keepcur_u32(hf_keepcur *c);
uint64_t hf_keepcur_u64(hf_keepcur *c);
/* n bytes in place (NULL and !ok when fewer are left). */
const void *hf_keepcur_bytes(hf_keepcur *c, uint64_t n);
/* A string written by hf_keepb_str: NULL for a NULL string (*len 0). */
const char *hf_keepcur_str(hf_keepcur *c, uint32_t *len);

/* ---- writing ---- */

/* Appending to a small section being built. */
void hf_keepb_u8(GByteArray *b, uint8_t v);
void hf_keepb_u32(GByteArray *b, uint32_t v);
void hf_keepb_u64(GByteArray *b, uint64_t v);
void hf_keepb_bytes(GByteArray *b, const void *p, size_t n);
void hf_keepb_str(GByteArray *b, const char *s); /* NULL allowed */

typedef struct hf_keepw hf_keepw;
hf_keepw *hf_keepw_new(void);
/* The id the files w writes carry (hf_keepr_id reads it back). */
uint64_t hf_keepw_id(const hf_keepw *w);
/* Section id with len bytes at data (borrowed until hf_keepw_write). */
void hf_keepw_add(hf_keepw *w, uint32_t id, const void *data, uint64_t len);
/* A big array the reader uses in place: checksummed by samples only. */
void hf_keepw_add_big(hf_keepw *w, uint32_t id, const void *data, uint64_t len);
/* hf_keepw_add_big for an array from core/keeparray.h's hf_keeparray_new:
 * placed on a page of the file, so that hf_keepw_map_back can give its
 * pages to the file once written. */
void hf_keepw_add_array(hf_keepw *w, uint32_t id, const void *data, uint64_t len);
/* A big array the reader checks whole: checksummed whole, with CRC-32. */
void hf_keepw_add_crc(hf_keepw *w, uint32_t id, const void *data, uint64_t len);
/* hf_keepw_add, taking b (freed with the writer). */
void hf_keepw_add_bytes(hf_keepw *w, uint32_t id, GByteArray *b);
/* Writes the file to the first of paths whose directory takes it (the
 * cache directory is made, mode 0700) and that may be replaced
 * (hf_keep_not_replaceable), with permissions `mode`, under a temporary
 * name (locked while written) then renamed.  When paths are
 * hf_keep_candidates' default ones, the dump's path (the first's name
 * without its .heapfs-index ending) is recorded in the header.  A file
 * written into the cache directory is followed by hf_keepdir_trim there.
 * Returns the path written (the caller's), or NULL with *why. */
char *hf_keepw_write(hf_keepw *w, const hf_keepkey *key, GPtrArray *paths, unsigned mode, char **why);
/* After hf_keepw_write wrote path: the arrays added by hf_keepw_add_array
 * are backed by the file from now on (hf_keeparray_map), read-only, their
 * anonymous memory given back.  Only if path is still the file w wrote.
 * Returns the bytes so mapped. */
uint64_t hf_keepw_map_back(hf_keepw *w, const char *path);
void hf_keepw_free(hf_keepw *w);

#endif
