/*
 * keepfmt.c - see keepfmt.h: opening a kept file safely, peeking at its
 * header, the key's stat part.
 */
#include "decoders/core/keepfmt.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

/* What a file that is not a regular one is, for messages. */
static const char *kind_of(mode_t mode)
{
    return S_ISLNK(mode)    ? "a symbolic link (not followed)"
           : S_ISFIFO(mode) ? "a FIFO, not a regular file"
           : S_ISDIR(mode)  ? "a directory"
           : S_ISSOCK(mode) ? "a socket, not a regular file"
                            : "a device, not a regular file";
}

int hf_keepfmt_open(const char *path, struct stat *st, const char **bad)
{
    *bad = NULL;
    if (lstat(path, st) != 0) {
        if (errno != ENOENT && errno != ENOTDIR)
            *bad = g_strerror(errno);
        return -1;
    }
    if (!S_ISREG(st->st_mode)) {
        *bad = kind_of(st->st_mode);
        return -1;
    }
    /* Reading the header is no use of the file: under relatime the read
     * would set the atime, which the cache directory's bound takes for
     * the last use (keepdir.h), so a trim that peeks at every file would
     * make them all just used.  Readers set it themselves (hf_keepr_open).
     * O_NOATIME is refused (EPERM) on a file of another user. */
    int flags = O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK;
    int fd = open(path, flags | O_NOATIME);
    if (fd < 0 && errno == EPERM)
        fd = open(path, flags);
    if (fd < 0) {
        *bad = errno == ELOOP ? kind_of(S_IFLNK) : g_strerror(errno);
        return -1;
    }
    if (fstat(fd, st) != 0 || !S_ISREG(st->st_mode)) {
        *bad = kind_of(st->st_mode);
        close(fd);
        return -1;
    }
    return fd;
}

bool hf_keepfmt_has_magic(int fd)
{
    char magic[sizeof HF_KEEP_MAGIC];
    return pread(fd, magic, sizeof magic, 0) == (ssize_t)sizeof magic &&
           memcmp(magic, HF_KEEP_MAGIC, sizeof HF_KEEP_MAGIC) == 0;
}

/* The dump's path recorded after hd's table in the file open at fd, NULL
 * when none is. */
static char *recorded_dump(int fd, const hf_keephdr *hd)
{
    uint64_t at = sizeof *hd + (uint64_t)hd->n_sections * sizeof(hf_keepent);
    if (!hd->path_len || hd->path_len >= 65536)
        return NULL;
    char *p = g_malloc(hd->path_len + 1);
    if (pread(fd, p, hd->path_len, (off_t)at) != (ssize_t)hd->path_len ||
        memchr(p, 0, hd->path_len)) {
        g_free(p);
        return NULL;
    }
    p[hd->path_len] = 0;
    return p;
}

bool hf_keepfmt_peek(const char *path, hf_keepkey *key, char **dump)
{
    struct stat st;
    const char *bad;
    hf_keephdr hd;
    memset(key, 0, sizeof *key);
    *dump = NULL;
    int fd = hf_keepfmt_open(path, &st, &bad);
    if (fd < 0)
        return false;
    bool ours = hf_keepfmt_has_magic(fd);
    if (ours && pread(fd, &hd, sizeof hd, 0) == (ssize_t)sizeof hd &&
        hd.endian == HF_KEEP_ENDIAN && hd.version == HF_KEEP_VERSION) {
        *key = hd.key;
        *dump = recorded_dump(fd, &hd);
    }
    close(fd);
    return ours;
}

void hf_keepfmt_key_stat(hf_keepkey *k, const struct stat *st)
{
    k->size = (uint64_t)st->st_size;
    k->mtime_ns = (uint64_t)st->st_mtim.tv_sec * 1000000000u + (uint64_t)st->st_mtim.tv_nsec;
    k->ctime_ns = (uint64_t)st->st_ctim.tv_sec * 1000000000u + (uint64_t)st->st_ctim.tv_nsec;
    k->ino = st->st_ino;
    k->dev = st->st_dev;
}

bool hf_keepfmt_key_is_file(const hf_keepkey *k, const struct stat *st)
{
    hf_keepkey now;
    hf_keepfmt_key_stat(&now, st);
    return k->size == now.size && k->mtime_ns == now.mtime_ns && k->ctime_ns == now.ctime_ns &&
           k->ino == now.ino && k->dev == now.dev;
}
