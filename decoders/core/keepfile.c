/*
 * keepfile.c - see keepfile.h: the container, its key and its checksum.
 */
#include "decoders/core/keepfile.h"
#include "decoders/core/keeparray.h"
#include "decoders/core/keepdir.h"
#include "decoders/core/keepfmt.h"
#include "decoders/core/mapwatch.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#define ALIGN 64
#define BLOCK 4096
#define SAMPLES 64
#define MAX_SECTIONS 65536u
#define MAP_MIN 16 /* pages: a smaller array is not worth a mapping of its own */

/* How a section is checksummed. */
enum { WHOLE, SAMPLED /* hf_keepw_add_big */, CRC /* hf_keepw_add_crc */ };

/* ---- hashing ---- */

/* The first and last block of [data, data+len) and SAMPLES spread between
 * (all of it when whole). */
static void hash_sampled(GChecksum *cs, const uint8_t *data, uint64_t len, bool whole)
{
    if (whole || len <= (uint64_t)(SAMPLES + 2) * BLOCK) {
        g_checksum_update(cs, data, (gssize)len);
        return;
    }
    g_checksum_update(cs, data, BLOCK);
    for (uint64_t i = 0; i < SAMPLES; i++)
        g_checksum_update(cs, data + i * ((len - BLOCK) / (SAMPLES - 1)), BLOCK);
    g_checksum_update(cs, data + len - BLOCK, BLOCK);
}

/* A section as its kind says: whole, sampled, or its CRC-32 (zlib's, some
 * ten times faster than GChecksum's SHA-256: for big arrays read whole). */
static void hash_section(GChecksum *cs, const uint8_t *data, uint64_t len, uint32_t kind)
{
    if (kind != CRC) {
        hash_sampled(cs, data, len, kind == WHOLE);
        return;
    }
    uLong crc = crc32_z(0, data, len);
    uint32_t c = (uint32_t)crc;
    g_checksum_update(cs, (const guchar *)&c, 4);
}

static void digest(GChecksum *cs, uint8_t out[32])
{
    gsize n = 32;
    g_checksum_get_digest(cs, out, &n);
}

bool hf_keep_key(hf_keepkey *k, const char *path, const uint8_t *data, size_t size,
                 const char *format, uint64_t variant)
{
    struct stat st;
    memset(k, 0, sizeof *k);
    if (stat(path, &st) != 0)
        return false;
    hf_keepfmt_key_stat(k, &st);
    g_strlcpy(k->format, format, sizeof k->format);
    k->variant = variant;
    GChecksum *cs = g_checksum_new(G_CHECKSUM_SHA256);
    hash_sampled(cs, data, size, false);
    digest(cs, k->sample);
    g_checksum_free(cs);
    return true;
}

static bool key_equal(const hf_keepkey *a, const hf_keepkey *b)
{
    return a->size == b->size && a->mtime_ns == b->mtime_ns && a->ctime_ns == b->ctime_ns &&
           a->ino == b->ino &&
           a->dev == b->dev && memcmp(a->sample, b->sample, 32) == 0 &&
           strncmp(a->format, b->format, sizeof a->format) == 0 && a->variant == b->variant &&
           a->source == b->source;
}

/* Why a file whose key is not `want` was not used. */
static const char *key_mismatch(const hf_keepkey *have, const hf_keepkey *want)
{
    hf_keepkey k = *have;
    k.source = want->source;
    return key_equal(&k, want) ? "computed from another index file"
                               : "made for another dump, or the dump changed";
}

/* The checksum of a file whose header (checksum zeroed), table and
 * sections are given. */
static void file_checksum(const hf_keephdr *hd, const hf_keepent *tab, const uint8_t *const *sec,
                          uint8_t out[32])
{
    hf_keephdr h = *hd;
    memset(h.checksum, 0, sizeof h.checksum);
    GChecksum *cs = g_checksum_new(G_CHECKSUM_SHA256);
    g_checksum_update(cs, (const guchar *)&h, sizeof h);
    g_checksum_update(cs, (const guchar *)tab, (gssize)(hd->n_sections * sizeof *tab));
    for (uint32_t i = 0; i < hd->n_sections; i++)
        hash_section(cs, sec[i], tab[i].len, tab[i].kind);
    digest(cs, out);
    g_checksum_free(cs);
}

/* ---- where ---- */

GPtrArray *hf_keep_candidates(const char *dump_path, const char *opt, const char *suffix)
{
    GPtrArray *a = g_ptr_array_new_with_free_func(g_free);
    if (opt && strcmp(opt, "none") == 0)
        return a;
    if (opt) {
        g_ptr_array_add(a, g_strconcat(opt, suffix, NULL));
        return a;
    }
    char *abs = g_canonicalize_filename(dump_path, NULL);
    g_ptr_array_add(a, g_strconcat(abs, HF_KEEP_SUFFIX, suffix, NULL));
    char *stem = hf_keepdir_stem(abs), *dir = hf_keepdir_path();
    char *name = g_strconcat(stem, HF_KEEP_SUFFIX, suffix, NULL);
    g_ptr_array_add(a, g_build_filename(dir, name, NULL));
    g_free(name);
    g_free(dir);
    g_free(stem);
    g_free(abs);
    return a;
}

const char *hf_keep_place(const GPtrArray *paths)
{
    for (guint i = 0; i + 1 < paths->len; i++) {
        char *dir = g_path_get_dirname(g_ptr_array_index(paths, i));
        bool writable = access(dir, W_OK) == 0;
        g_free(dir);
        if (writable)
            return g_ptr_array_index(paths, i);
    }
    return paths->len ? g_ptr_array_index(paths, paths->len - 1) : NULL;
}

/* ---- reading ---- */

struct hf_keepr {
    int fd; /* held open with a shared lock while mapped: hf_keepdir_remove leaves it */
    GMappedFile *map;
    const uint8_t *data;
    size_t size;
    const hf_keephdr *hd;
    const hf_keepent *tab;
    char *path;
};

void hf_keepr_free(hf_keepr *r)
{
    if (!r)
        return;
    if (r->map) {
        hf_mapwatch_remove(r->data);
        g_mapped_file_unref(r->map);
    }
    if (r->fd >= 0)
        close(r->fd); /* and with it the lock */
    g_free(r->path);
    g_free(r);
}

char *hf_keep_not_replaceable(const char *path, const hf_keepkey *key)
{
    struct stat st;
    const char *bad = NULL;
    int fd = hf_keepfmt_open(path, &st, &bad);
    if (fd < 0)
        return bad ? g_strdup(bad) : NULL; /* NULL: there is none */
    bool ours = st.st_size == 0 || hf_keepfmt_has_magic(fd);
    close(fd);
    if ((uint64_t)st.st_dev == key->dev && (uint64_t)st.st_ino == key->ino)
        return g_strdup("the dump itself");
    return ours ? NULL : g_strdup("not a heapfs index file");
}

/* The file at path when it is a valid index file for key; else NULL, and
 * *why (when still NULL) says what is wrong with it.  A missing file says
 * nothing. */
static hf_keepr *try_open(const hf_keepkey *key, const char *path, char **why)
{
    struct stat st;
    const char *bad = NULL;
    int fd = hf_keepfmt_open(path, &st, &bad);
    if (fd < 0) {
        if (bad && why && !*why)
            *why = g_strdup_printf("%s: %s", path, bad);
        return NULL;
    }
    if (st.st_uid != geteuid() || (st.st_mode & 022))
        bad = "owned by another user, or writable by others";
    else if ((uint64_t)st.st_size < sizeof(hf_keephdr))
        bad = hf_keepfmt_has_magic(fd) ? "truncated" : "not a heapfs index file";
    else if (flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK)
        bad = "being removed by a cleanup"; /* hf_keepdir_remove holds it */
    GMappedFile *map = bad ? NULL : g_mapped_file_new_from_fd(fd, FALSE, NULL);
    if (!bad && !map)
        bad = "cannot be mapped";
    hf_keepr *r = g_new0(hf_keepr, 1);
    r->fd = fd;
    r->map = map;
    if (!bad) {
        r->data = (const uint8_t *)g_mapped_file_get_contents(map);
        r->size = g_mapped_file_get_length(map);
        r->hd = (const hf_keephdr *)(const void *)r->data;
        hf_mapwatch_add(r->data, r->size); /* it may shrink while we read it */
    }
    const hf_keephdr *hd = r->hd;
    if (bad) {
        /* said why already */
    } else if (memcmp(hd->magic, HF_KEEP_MAGIC, sizeof HF_KEEP_MAGIC) != 0 ||
               hd->endian != HF_KEEP_ENDIAN) {
        bad = "not a heapfs index file of this machine's byte order";
    } else if (hd->version != HF_KEEP_VERSION) {
        bad = "another format version";
    } else if (hd->file_size != r->size || hd->n_sections > MAX_SECTIONS ||
               sizeof(hf_keephdr) + (uint64_t)hd->n_sections * sizeof(hf_keepent) > r->size) {
        bad = "truncated or damaged";
    } else if (!key_equal(&hd->key, key)) {
        bad = key_mismatch(&hd->key, key);
    } else {
        r->tab = (const hf_keepent *)(const void *)(r->data + sizeof(hf_keephdr));
        const uint8_t **sec = g_new(const uint8_t *, hd->n_sections + 1);
        for (uint32_t i = 0; i < hd->n_sections && !bad; i++) {
            const hf_keepent *e = &r->tab[i];
            if (e->off % ALIGN || e->off > r->size || e->len > r->size - e->off || e->kind > CRC)
                bad = "a section lies outside the file";
            sec[i] = r->data + (bad ? 0 : e->off);
        }
        uint8_t sum[32];
        if (!bad) {
            file_checksum(hd, r->tab, sec, sum);
            if (memcmp(sum, hd->checksum, 32) != 0)
                bad = "damaged (checksum)";
        }
        g_free(sec);
    }
    if (bad) {
        if (why && !*why)
            *why = g_strdup_printf("%s: %s", path, bad);
        hf_keepr_free(r);
        return NULL;
    }
    r->path = g_strdup(path);
    /* used now: the cache directory's bound removes the least recently used
     * first (keepdir.h).  Set, not left to the kernel: relatime updates an
     * atime once a day at most, noatime never; setting it works under both */
    futimens(fd, (const struct timespec[2]){{0, UTIME_NOW}, {0, UTIME_OMIT}});
    return r;
}

/* The temporaries beside path (hf_keepdir_remove_stale_temps). */
static void remove_stale_temps(const char *path)
{
    char *dir = g_path_get_dirname(path), *base = g_path_get_basename(path);
    hf_keepdir_remove_stale_temps(dir, base);
    g_free(dir);
    g_free(base);
}

hf_keepr *hf_keepr_open(const hf_keepkey *key, GPtrArray *paths, char **why)
{
    for (guint i = 0; i < paths->len; i++)
        remove_stale_temps(g_ptr_array_index(paths, i));
    for (guint i = 0; i < paths->len; i++) {
        hf_keepr *r = try_open(key, g_ptr_array_index(paths, i), why);
        if (r)
            return r;
    }
    return NULL;
}

const char *hf_keepr_path(const hf_keepr *r)
{
    return r->path;
}

uint64_t hf_keepr_id(const hf_keepr *r)
{
    return r->hd->id;
}

const uint8_t *hf_keepr_data(const hf_keepr *r, size_t *len)
{
    *len = r->size;
    return r->data;
}

const uint8_t *hf_keepr_section(const hf_keepr *r, uint32_t id, uint64_t *len)
{
    for (uint32_t i = 0; i < r->hd->n_sections; i++)
        if (r->tab[i].id == id) {
            *len = r->tab[i].len;
            return r->data + r->tab[i].off;
        }
    *len = 0;
    return NULL;
}

hf_keepcur hf_keepcur_of(const hf_keepr *r, uint32_t id)
{
    uint64_t len;
    const uint8_t *p = hf_keepr_section(r, id, &len);
    return (hf_keepcur){p, p ? p + len : NULL, p != NULL};
}

const void *hf_keepcur_bytes(hf_keepcur *c, uint64_t n)
{
    if (!c->ok || (uint64_t)(c->end - c->p) < n) {
        c->ok = false;
        return NULL;
    }
    const void *r = c->p;
    c->p += n;
    return r;
}

uint8_t hf_keepcur_u8(hf_keepcur *c)
{
    const uint8_t *p = hf_keepcur_bytes(c, 1);
    return p ? *p : 0;
}

uint32_t hf_keepcur_u32(hf_keepcur *c)
{
    const void *p = hf_keepcur_bytes(c, 4);
    uint32_t v = 0;
    if (p)
        memcpy(&v, p, 4);
    return v;
}

uint64_t hf_keepcur_u64(hf_keepcur *c)
{
    const void *p = hf_keepcur_bytes(c, 8);
    uint64_t v = 0;
    if (p)
        memcpy(&v, p, 8);
    return v;
}

const char *hf_keepcur_str(hf_keepcur *c, uint32_t *len)
{
    uint32_t n = hf_keepcur_u32(c);
    *len = 0;
    if (n == UINT32_MAX || !c->ok)
        return NULL;
    const char *s = hf_keepcur_bytes(c, n);
    if (s)
        *len = n;
    return s;
}

/* ---- writing ---- */

void hf_keepb_bytes(GByteArray *b, const void *p, size_t n)
{
    g_byte_array_append(b, p, (guint)n);
}

void hf_keepb_u8(GByteArray *b, uint8_t v)
{
    hf_keepb_bytes(b, &v, 1);
}

void hf_keepb_u32(GByteArray *b, uint32_t v)
{
    hf_keepb_bytes(b, &v, 4);
}

void hf_keepb_u64(GByteArray *b, uint64_t v)
{
    hf_keepb_bytes(b, &v, 8);
}

void hf_keepb_str(GByteArray *b, const char *s)
{
    if (!s) {
        hf_keepb_u32(b, UINT32_MAX);
        return;
    }
    size_t n = strlen(s);
    hf_keepb_u32(b, (uint32_t)n);
    hf_keepb_bytes(b, s, n);
}

struct hf_keepw {
    uint64_t id;     /* written in the hf_keephdr */
    GArray *tab;     /* hf_keepent (off filled when written) */
    GPtrArray *data; /* const uint8_t * per section */
    GPtrArray *owned; /* GByteArray */
    GArray *arrays;   /* guint: sections from hf_keepw_add_array */
    dev_t dev;        /* the file written, as it was renamed: */
    ino_t ino;        /* what hf_keepw_map_back maps */
};

hf_keepw *hf_keepw_new(void)
{
    hf_keepw *w = g_new0(hf_keepw, 1);
    while (!w->id) /* random: a file written again is another file */
        w->id = (uint64_t)g_random_int() << 32 | g_random_int();
    w->tab = g_array_new(FALSE, TRUE, sizeof(hf_keepent));
    w->data = g_ptr_array_new();
    w->owned = g_ptr_array_new_with_free_func((GDestroyNotify)g_byte_array_unref);
    w->arrays = g_array_new(FALSE, FALSE, sizeof(guint));
    return w;
}

void hf_keepw_free(hf_keepw *w)
{
    if (!w)
        return;
    g_array_free(w->tab, TRUE);
    g_ptr_array_free(w->data, TRUE);
    g_ptr_array_free(w->owned, TRUE);
    g_array_free(w->arrays, TRUE);
    g_free(w);
}

uint64_t hf_keepw_id(const hf_keepw *w)
{
    return w->id;
}

void hf_keepw_add(hf_keepw *w, uint32_t id, const void *data, uint64_t len)
{
    hf_keepent e = {.id = id, .len = len};
    g_array_append_val(w->tab, e);
    g_ptr_array_add(w->data, (gpointer)(len ? data : ""));
}

void hf_keepw_add_big(hf_keepw *w, uint32_t id, const void *data, uint64_t len)
{
    hf_keepw_add(w, id, data, len);
    g_array_index(w->tab, hf_keepent, w->tab->len - 1).kind = SAMPLED;
}

void hf_keepw_add_array(hf_keepw *w, uint32_t id, const void *data, uint64_t len)
{
    hf_keepw_add_big(w, id, data, len);
    guint i = w->tab->len - 1;
    if (len >= MAP_MIN * hf_keeparray_align())
        g_array_append_val(w->arrays, i);
}

void hf_keepw_add_crc(hf_keepw *w, uint32_t id, const void *data, uint64_t len)
{
    hf_keepw_add(w, id, data, len);
    g_array_index(w->tab, hf_keepent, w->tab->len - 1).kind = CRC;
}

void hf_keepw_add_bytes(hf_keepw *w, uint32_t id, GByteArray *b)
{
    g_ptr_array_add(w->owned, b);
    hf_keepw_add(w, id, b->data, b->len);
}

static bool write_all(int fd, const void *p, uint64_t n, uint64_t off)
{
    const uint8_t *q = p;
    while (n) {
        ssize_t k = pwrite(fd, q, n > (1u << 30) ? (1u << 30) : n, (off_t)off);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return false;
        q += k, n -= (uint64_t)k, off += (uint64_t)k;
    }
    return true;
}

/* The file's layout: each section's offset in tab; returns the file's
 * size.  An array hf_keepw_map_back may map starts on a page. */
static uint64_t lay_out(hf_keepw *w, uint32_t path_len)
{
    hf_keepent *tab = (hf_keepent *)(void *)w->tab->data;
    uint64_t off = sizeof(hf_keephdr) + (uint64_t)w->tab->len * sizeof(hf_keepent) + path_len;
    for (guint i = 0, a = 0; i < w->tab->len; i++) {
        uint64_t align = ALIGN;
        if (a < w->arrays->len && g_array_index(w->arrays, guint, a) == i) {
            align = hf_keeparray_align();
            a++;
        }
        off = (off + align - 1) / align * align;
        tab[i].off = off;
        off += tab[i].len;
    }
    return off;
}

/* Writes the whole file to fd; dump (NULL: not recorded) after the table.
 * Its blocks are reserved first: a disk too full fails at once, not after
 * gigabytes written. */
static bool write_file(hf_keepw *w, const hf_keepkey *key, const char *dump, int fd)
{
    hf_keephdr hd = {.version = HF_KEEP_VERSION, .endian = HF_KEEP_ENDIAN, .key = *key};
    memcpy(hd.magic, HF_KEEP_MAGIC, sizeof HF_KEEP_MAGIC);
    hd.n_sections = w->tab->len;
    hd.path_len = dump ? (uint32_t)strlen(dump) : 0;
    hf_keepent *tab = (hf_keepent *)(void *)w->tab->data;
    uint64_t at = sizeof hd + (uint64_t)w->tab->len * sizeof(hf_keepent);
    hd.file_size = lay_out(w, hd.path_len);
    hd.id = w->id;
    file_checksum(&hd, tab, (const uint8_t *const *)w->data->pdata, hd.checksum);
    int e = posix_fallocate(fd, 0, (off_t)hd.file_size);
    if (e != 0 && e != EOPNOTSUPP && e != EINVAL) {
        errno = e;
        return false;
    }
    if (ftruncate(fd, (off_t)hd.file_size) != 0 || !write_all(fd, &hd, sizeof hd, 0) ||
        !write_all(fd, tab, (uint64_t)w->tab->len * sizeof(hf_keepent), sizeof hd) ||
        !write_all(fd, dump, hd.path_len, at))
        return false;
    for (guint i = 0; i < w->tab->len; i++)
        if (!write_all(fd, w->data->pdata[i], tab[i].len, tab[i].off))
            return false;
    return true;
}

/* Why a file of `size` bytes is not to be written into dir (to g_free),
 * NULL when it may be: it would take more than half of the space free on
 * dir's file system (a dump's results can be bigger than the dump: heapfs
 * does not fill a disk for what it can compute again; a share of what is
 * free, not of the disk, so that a small file is written on a disk
 * nearly full and a big one refused on a big disk), or, in the cache
 * directory, it is bigger than the directory's bound (trimming would
 * evict everything else). */
static char *no_room(const char *dir, uint64_t size, bool cache)
{
    struct statvfs vfs;
    if (statvfs(dir, &vfs) == 0) {
        uint64_t avail = (uint64_t)vfs.f_bavail * vfs.f_frsize;
        if (size > avail / 2)
            return g_strdup_printf("%" G_GUINT64_FORMAT " bytes, more than half of the %"
                                   G_GUINT64_FORMAT " bytes free on its file system",
                                   size, avail);
    }
    unsigned percent;
    uint64_t max = cache ? hf_keepdir_max(dir, &percent) : UINT64_MAX;
    if (size > max)
        return g_strdup_printf("%" G_GUINT64_FORMAT " bytes, over the cache directory's bound "
                               "of %" G_GUINT64_FORMAT " (-o index_max)",
                               size, max);
    return NULL;
}

/* After a file was written to path: a cache directory kept in bounds. */
static void written(const char *path)
{
    char *dir = g_path_get_dirname(path), *cache = hf_keepdir_path();
    if (strcmp(dir, cache) == 0)
        hf_keepdir_trim(dir, path, NULL);
    g_free(cache);
    g_free(dir);
}

char *hf_keepw_write(hf_keepw *w, const hf_keepkey *key, GPtrArray *paths, unsigned mode, char **why)
{
    /* hf_keep_candidates' default places: the first names the dump */
    const char *beside = paths->len > 1 ? g_ptr_array_index(paths, 0) : NULL;
    const char *cut = beside ? hf_keepdir_suffix(beside) : NULL;
    char *dump = cut ? g_strndup(beside, (gsize)(cut - beside)) : NULL;
    char *to = NULL;
    for (guint i = 0; i < paths->len && !to; i++) {
        const char *path = g_ptr_array_index(paths, i);
        char *no = hf_keep_not_replaceable(path, key);
        if (no) {
            if (why) {
                g_free(*why);
                *why = g_strdup_printf("%s: %s, not replaced", path, no);
            }
            g_free(no);
            continue;
        }
        char *dir = g_path_get_dirname(path);
        if (i > 0) /* the cache directory: made private */
            g_mkdir_with_parents(dir, 0700);
        no = no_room(dir, lay_out(w, dump ? (uint32_t)strlen(dump) : 0), i > 0);
        g_free(dir);
        if (no) {
            if (why) {
                g_free(*why);
                *why = g_strdup_printf("%s: %s, not written", path, no);
            }
            g_free(no);
            continue;
        }
        char *tmp = g_strconcat(path, ".XXXXXX", NULL);
        int fd = g_mkstemp_full(tmp, O_RDWR | O_CLOEXEC, (int)(mode & 0644));
        if (fd < 0) {
            if (why) {
                g_free(*why);
                *why = g_strdup_printf("%s: %s", path, g_strerror(errno));
            }
            g_free(tmp);
            continue;
        }
        fchmod(fd, mode & 0644); /* mkstemp's mode is cut by the umask */
        flock(fd, LOCK_EX | LOCK_NB); /* being written: no cleanup removes it */
        bool ok = write_file(w, key, dump, fd);
        int err = errno;
        struct stat st;
        if (ok && fstat(fd, &st) == 0)
            w->dev = st.st_dev, w->ino = st.st_ino;
        ok = close(fd) == 0 && ok;
        if (ok && rename(tmp, path) == 0) {
            g_free(tmp);
            to = g_strdup(path);
            break;
        }
        err = errno ? errno : err;
        unlink(tmp);
        g_free(tmp);
        if (why) {
            g_free(*why);
            *why = g_strdup_printf("%s: %s", path, g_strerror(err));
        }
    }
    g_free(dump);
    if (to)
        written(to);
    return to;
}

uint64_t hf_keepw_map_back(hf_keepw *w, const char *path)
{
    if (!w->arrays->len || !w->ino)
        return 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    struct stat st;
    uint64_t mapped = 0;
    /* the file this writer renamed there, not one written after it */
    if (fd >= 0 && fstat(fd, &st) == 0 && st.st_dev == w->dev && st.st_ino == w->ino) {
        const hf_keepent *tab = (const hf_keepent *)(const void *)w->tab->data;
        for (guint a = 0; a < w->arrays->len; a++) {
            guint i = g_array_index(w->arrays, guint, a);
            mapped += hf_keeparray_map(w->data->pdata[i], tab[i].len, fd, tab[i].off);
        }
    }
    if (fd >= 0)
        close(fd);
    return mapped;
}
