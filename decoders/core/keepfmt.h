/*
 * keepfmt.h - the fixed part of a kept file (keepfile.h), shared by the
 * container (keepfile.c) and the cleanup that only peeks at headers
 * (keepdir.c): the header and section-table layout, opening a file that
 * may be one without ever blocking, and the key's part a stat gives.
 *
 * A file is the header, the table (n_sections entries), the dump's path
 * (path_len bytes, no NUL; not covered by the checksum), then the
 * sections.  Pure functions; any thread.
 */
#ifndef HF_KEEPFMT_H
#define HF_KEEPFMT_H

#include "decoders/core/keepfile.h"

#include <sys/stat.h>

#define HF_KEEP_MAGIC "HFINDEX"
#define HF_KEEP_VERSION 5u /* 2: ctime in the key; 3: the file's id, and key.source;
                              4: classes keep their own fields; 5: instance sizes
                              from object addresses */
#define HF_KEEP_ENDIAN 0x01020304u

typedef struct {
    char magic[8];
    uint32_t version, endian;
    uint32_t n_sections;
    uint32_t path_len; /* the dump's path after the table (0: not recorded; the field
                          was a zero "reserved" before, so old and new files read
                          alike, with no version change) */
    uint64_t file_size;
    uint64_t id; /* this file's own (hf_keepw_id), never 0 */
    hf_keepkey key;
    uint8_t checksum[32];
} hf_keephdr;

typedef struct {
    uint32_t id, kind;
    uint64_t off, len;
} hf_keepent;

G_STATIC_ASSERT(sizeof(hf_keephdr) % 8 == 0);
G_STATIC_ASSERT(sizeof(hf_keepent) == 24);

/* path opened for reading when it is a regular file, else -1 with *bad
 * (static; NULL when it does not exist).  Never blocks: the type is
 * checked before opening (a FIFO another user planted would block open()
 * forever) and again after (O_NONBLOCK, O_NOFOLLOW).  Leaves the atime
 * alone (O_NOATIME, on files of this user): it is the last use. */
int hf_keepfmt_open(const char *path, struct stat *st, const char **bad);
/* Whether the file open at fd begins as a kept file does. */
bool hf_keepfmt_has_magic(int fd);
/* Whether the file at path is a regular file that begins as a kept file
 * does; if so, and it is of this version, its key in *key (else zeros)
 * and the dump's path it records in *dump (else NULL; to g_free).  Reads
 * the header only: no checksum. */
bool hf_keepfmt_peek(const char *path, hf_keepkey *key, char **dump);
/* The size, mtime, ctime (ns), inode and device of st into k. */
void hf_keepfmt_key_stat(hf_keepkey *k, const struct stat *st);
/* Whether k (a file's key) is that of the file st describes now, by
 * those (the sampled hash is not read). */
bool hf_keepfmt_key_is_file(const hf_keepkey *k, const struct stat *st);

#endif
